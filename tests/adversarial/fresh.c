/* adv_fresh: after an attack on one sandbox, checks that the others and the
 * attacked one after capsa_reset are exactly as pristine as before. Used by
 * tests/adversarial/run.sh for the cases whose .expect says `fresh`.
 *
 * usage: adv_fresh SCRIPT TIMEOUT_MS MEMORY_MIB
 *
 * One engine, with a pool of one instance. A probe script (below) describes the
 * global environment: every global's own properties and those of its prototype,
 * with their kinds, what built-ins print and return, what console.log writes. Its
 * output in a pristine sandbox is the reference. Then SCRIPT runs in sandbox A
 * (whatever its outcome), and the probe must give the reference again in: sandbox
 * P, made before the attack and alive through it; A after capsa_reset; a sandbox C
 * made after the attack; a sandbox that gets A's instance from the pool after A,
 * attacked again, was freed; and a sandbox attacked again, then stopped by its
 * time limit (its instance goes back through the pool). Exit status 0 when all
 * agree; 1 with the differences. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capsa.h"

static const char probe[] =
    "{\n"
    "const kinds = (o) => {\n"
    "  if (o === null || (typeof o !== 'object' && typeof o !== 'function')) return typeof o;\n"
    "  const keys = Reflect.ownKeys(o).map((k) => {\n"
    "    const d = Reflect.getOwnPropertyDescriptor(o, k);\n"
    "    const kind = d.get || d.set ? 'accessor' : typeof d.value;\n"
    "    const native = typeof d.value === 'function' ?\n"
    "      (Function.prototype.toString.call(d.value).includes('[native code]') ? ' native' : ' js') : '';\n"
    "    return String(k) + ':' + kind + native + (d.writable ? 'w' : '') +\n"
    "      (d.enumerable ? 'e' : '') + (d.configurable ? 'c' : '');\n"
    "  });\n"
    "  return keys.sort().join(',');\n"
    "};\n"
    "const out = [];\n"
    "for (const name of Reflect.ownKeys(globalThis).map(String).sort()) {\n"
    "  const v = globalThis[name];\n"
    "  out.push(name + ' = ' + kinds(v));\n"
    "  if (typeof v === 'function' && v.prototype) out.push(name + '.prototype = ' + kinds(v.prototype));\n"
    "  if (v && typeof v === 'object') out.push(name + ' proto = ' + kinds(Object.getPrototypeOf(v)));\n"
    "}\n"
    "out.push('Function.prototype = ' + kinds(Function.prototype));\n"
    "out.push('Iterator = ' + kinds(Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]()))));\n"
    "out.push('AsyncFunction = ' + kinds(Object.getPrototypeOf(async function () {})));\n"
    "out.push('Generator = ' + kinds(Object.getPrototypeOf(function* () {}).prototype));\n"
    "out.push(JSON.stringify({ a: [1, 'x', { b: null }], c: new Date(0) }));\n"
    "out.push(String([1, 2, 3]) + ' ' + `${{}}` + ' ' + (1 + { valueOf() { return 2; } }));\n"
    "out.push([...[1, 2]].join() + ' ' + 'a,b'.split(',').length + ' ' + /b/.exec('abc').index);\n"
    "out.push(String(new Error('e', {})) + ' ' + new TypeError('t').name + ' ' + Object.keys({ y: 1 }));\n"
    "out.push(typeof polluted + ' ' + ({}).polluted + ' ' + ('toJSON' in {}) + ' ' + ('then' in {}));\n"
    "out.push(new Date(86400000).toString() + ' ' + new Date(0).getTimezoneOffset());\n"
    "let r = await Promise.resolve(5).then((x) => x + 1);\n"
    "out.push('await ' + r + ' ' + await (async () => 7)());\n"
    "console.log('probe', 1, 'two', { a: 1, b: [2, { c: 'd' }] }, [1, 2, 3], new Map([[1, 2]]),\n"
    "  new Set(['s']), null, undefined, 1n, Symbol('q'), () => 1, new Error('shown').message);\n"
    "console.error('%s=%d %o', 'x', 42, { z: [1] });\n"
    "return out;\n"
    "}\n";

/* A run's outcome, copied out of the sandbox. */
typedef struct outcome {
    int rc;
    char *out, *err, *value;
} outcome;

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static int run(capsa_sandbox *sb, const char *code, size_t len, outcome *o)
{
    const capsa_result *r = NULL;
    memset(o, 0, sizeof(*o));
    o->rc = capsa_run(sb, code, len, "probe.js", &r);
    if (r) {
        size_t n;
        o->out = dup_or_null(capsa_result_stdout(r, &n));
        o->err = dup_or_null(capsa_result_stderr(r, &n));
        o->value = dup_or_null(capsa_result_value(r));
        if (o->rc != CAPSA_OK && !o->value) {
            const char *m = capsa_result_error_message(r);
            o->value = dup_or_null(m ? m : capsa_errmsg(sb));
        }
    }
    return o->rc;
}

static void outcome_free(outcome *o)
{
    free(o->out);
    free(o->err);
    free(o->value);
}

static int same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Prints the first line where a and b differ. */
static void show_difference(const char *what, const char *want, const char *got)
{
    want = want ? want : "(null)";
    got = got ? got : "(null)";
    size_t i = 0, line = 0;
    while (want[i] && want[i] == got[i])
        i++;
    while (line < i && want[i - line - 1] != '\n' && want[i - line - 1] != ',')
        line++;
    printf("  %s differs at byte %zu:\n    pristine: %.160s\n    now:      %.160s\n", what, i,
           want + i - line, got + i - line);
}

/* Compares a probe's outcome with the reference; prints and counts differences. */
static int check(const char *who, const outcome *ref, const outcome *o)
{
    int bad = 0;
    if (o->rc != ref->rc) {
        printf("%s: probe returned %s, pristine %s (%s)\n", who, capsa_errname(o->rc),
               capsa_errname(ref->rc), o->value ? o->value : "");
        return 1;
    }
    if (!same(ref->value, o->value)) {
        printf("%s: the probe's value differs\n", who);
        show_difference("value", ref->value, o->value);
        bad = 1;
    }
    if (!same(ref->out, o->out)) {
        printf("%s: the probe's stdout differs\n", who);
        show_difference("stdout", ref->out, o->out);
        bad = 1;
    }
    if (!same(ref->err, o->err)) {
        printf("%s: the probe's stderr differs\n", who);
        show_difference("stderr", ref->err, o->err);
        bad = 1;
    }
    return bad;
}

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    fclose(f);
    *len = n;
    return buf;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: adv_fresh SCRIPT TIMEOUT_MS MEMORY_MIB\n");
        return 2;
    }
    size_t len;
    char *script = read_file(argv[1], &len);
    if (!script) {
        fprintf(stderr, "adv_fresh: cannot read %s\n", argv[1]);
        return 2;
    }
    capsa_engine *engine;
    capsa_sandbox *p, *a, *c;
    capsa_options opts;
    capsa_options_init(&opts);
    opts.timeout_ms = strtoull(argv[2], NULL, 10);
    opts.memory_limit = strtoull(argv[3], NULL, 10) << 20;
    opts.max_output = 1 << 20;
    capsa_engine_options eo;
    capsa_engine_options_init(&eo);
    eo.pool_size = 1; /* P takes the pooled instance; A's goes back to the pool */
    if (capsa_engine_new(&eo, &engine) != CAPSA_OK ||
        capsa_sandbox_new(engine, &opts, &p) != CAPSA_OK ||
        capsa_sandbox_new(engine, &opts, &a) != CAPSA_OK) {
        fprintf(stderr, "adv_fresh: cannot make the engine or its sandboxes\n");
        return 2;
    }

    outcome ref, o;
    if (run(p, probe, sizeof(probe) - 1, &ref) != CAPSA_OK) {
        printf("the probe fails in a pristine sandbox: %s: %s\n", capsa_errname(ref.rc),
               ref.value ? ref.value : "");
        return 1;
    }

    outcome attack;
    run(a, script, len, &attack);
    printf("attack: %s\n", capsa_errname(attack.rc));
    outcome_free(&attack);

    int bad = 0;
    run(p, probe, sizeof(probe) - 1, &o);
    bad |= check("sandbox alive during the attack", &ref, &o);
    outcome_free(&o);

    if (capsa_reset(a) != CAPSA_OK) {
        printf("capsa_reset failed: %s\n", capsa_errmsg(a));
        bad = 1;
    } else {
        run(a, probe, sizeof(probe) - 1, &o);
        bad |= check("attacked sandbox after capsa_reset", &ref, &o);
        outcome_free(&o);
    }

    if (capsa_sandbox_new(engine, &opts, &c) != CAPSA_OK) {
        printf("cannot make a sandbox after the attack\n");
        bad = 1;
        c = NULL;
    } else {
        run(c, probe, sizeof(probe) - 1, &o);
        bad |= check("sandbox made after the attack", &ref, &o);
        outcome_free(&o);
    }

    /* The attack again; freeing A puts its instance back in the (empty) pool,
       restored, and the next sandbox gets that very instance. */
    run(a, script, len, &attack);
    outcome_free(&attack);
    capsa_sandbox_free(a);
    if (capsa_sandbox_new(engine, &opts, &a) != CAPSA_OK) {
        printf("cannot make a sandbox from the pool after the attack\n");
        bad = 1;
    } else {
        run(a, probe, sizeof(probe) - 1, &o);
        bad |= check("sandbox from the pool, on the attacked instance", &ref, &o);
        outcome_free(&o);
        capsa_sandbox_free(a);
    }

    /* The attack again, then a run stopped by its time limit: the sandbox goes
       back to the image on its own. */
    capsa_options lim = opts;
    lim.timeout_ms = 200;
    if (capsa_sandbox_new(engine, &lim, &a) == CAPSA_OK) {
        run(a, script, len, &attack);
        outcome_free(&attack);
        static const char spin[] = "for (;;) {}";
        if (run(a, spin, sizeof(spin) - 1, &o) != CAPSA_ETIMEOUT) {
            printf("an endless loop was not stopped at 200 ms: %s\n", capsa_errname(o.rc));
            bad = 1;
        }
        outcome_free(&o);
        run(a, probe, sizeof(probe) - 1, &o);
        bad |= check("sandbox after a time limit", &ref, &o);
        outcome_free(&o);
        capsa_sandbox_free(a);
    }

    outcome_free(&ref);
    capsa_sandbox_free(c);
    capsa_sandbox_free(p);
    capsa_engine_free(engine);
    free(script);
    printf("%s\n", bad ? "not pristine" : "pristine");
    return bad;
}
