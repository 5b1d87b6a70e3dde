/* Checkpoints through the public API: a round trip keeps the JS state (globals,
 * closures, classes, Maps, typed arrays, the module cache), the files (contents,
 * times, symlinks, hard links, mounts), the policy's used budgets, the limits and
 * the audit's place; tools are bound again by name; another process restores what
 * this one took (so the guest image is the same in both); one blob gives 100
 * independent sandboxes; and a checkpoint that is truncated, bit-flipped, from
 * another version or build, tampered inside a valid frame, or restored without
 * memory is refused with a message, never a crash. */
#define _GNU_SOURCE /* memmem */
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zstd.h>

#include "capsa.h"
#include "test.h"

static capsa_engine *engine;
static const char *self_path;


/* A checkpoint of sb into a buffer the caller frees with capsa_free. */
static char *checkpoint(capsa_sandbox *sb, size_t *len)
{
    char *data = NULL;
    int rc = capsa_checkpoint(sb, &data, len);
    CHECK_INT(rc, CAPSA_OK, capsa_errmsg(sb));
    return data;
}

/* Restores data with no tools; NULL (and a failed check) when it does not. */
static capsa_sandbox *restore(const char *data, size_t len)
{
    capsa_sandbox *sb = NULL;
    char msg[512];
    int rc = capsa_sandbox_restore(engine, data, len, NULL, &sb, msg, sizeof(msg));
    CHECK_INT(rc, CAPSA_OK, msg);
    return sb;
}

/* Restores data, expecting the code want and a message holding needle. */
static void restore_fails(const char *data, size_t len, int want, const char *needle,
                          const char *what)
{
    capsa_sandbox *sb = (capsa_sandbox *)1;
    char msg[512];
    int rc = capsa_sandbox_restore(engine, data, len, NULL, &sb, msg, sizeof(msg));
    TEST_REPORT(rc == want, "%s: expected %s, got %s (%s)", what, capsa_errname(want),
                capsa_errname(rc), msg);
    CHECK(sb == NULL, "a failed restore gives no sandbox");
    if (needle)
        CHECK_CONTAINS(msg, needle, what);
    if (rc == CAPSA_OK)
        capsa_sandbox_free(sb);
}

/* ---- JS state ----------------------------------------------------------------------- */

TEST(js_state_round_trip)
{
    capsa_sandbox *sb;
    capsa_sandbox_new(engine, NULL, &sb);
    CHECK_STR(js_value(sb,
                       "var counter = 0; const bump = (() => { let n = 10; return () => ++n; })();"
                       "class Point { #x; constructor(x) { this.#x = x; } get x() { return this.#x; } }"
                       "globalThis.p = new Point(7); globalThis.m = new Map([['a', 1], [{k: 1}, 'obj']]);"
                       "globalThis.ta = new Float64Array([1.5, 2.5, 3.5]); globalThis.s = new Set([1, 2]);"
                       "globalThis.big = 12345678901234567890n; globalThis.d = new Date(0);"
                       "fs.writeFileSync('/workspace/mod.js', 'export let n = 0; export function inc() { return ++n; }');"
                       "const mod = await import('/workspace/mod.js'); mod.inc(); mod.inc(); bump(); return counter"),
              "0", "the state is built");
    size_t len;
    char *blob = checkpoint(sb, &len);
    /* The original goes on on its own: the checkpoint is not affected by it. */
    CHECK_STR(js_value(sb, "counter = 100; return bump()"), "12", "the original goes on");
    capsa_sandbox *r = restore(blob, len);
    if (r) {
        CHECK_STR(js_value(r, "return [counter, bump(), bump()]"), "[0,12,13]",
                  "var and a closure's state");
        CHECK_STR(js_value(r, "return [p instanceof Point, p.x, new Point(3).x]"), "[true,7,3]",
                  "a class with a private field, and its instances");
        CHECK_STR(js_value(r, "return [m.get('a'), [...m.values()][1], m.size, [...s]]"),
                  "[1,\"obj\",2,[1,2]]", "Map and Set");
        CHECK_STR(js_value(r, "return [ta instanceof Float64Array, Array.from(ta), String(big), d.getTime()]"),
                  "[true,[1.5,2.5,3.5],\"12345678901234567890\",0]", "typed array, BigInt, Date");
        /* The module cache: the module is not evaluated again (its state goes on),
           even with its file gone. */
        CHECK_STR(js_value(r, "fs.unlinkSync('/workspace/mod.js'); const m2 = await import('/workspace/mod.js');"
                              "return m2.inc()"),
                  "3", "the module cache");
        CHECK_STR(js_value(r, "return typeof Math.random() === 'number' && performance.now() < 60000"),
                  "true", "Math.random and performance.now work");
        capsa_sandbox_free(r);
    }
    capsa_free(blob);
    capsa_sandbox_free(sb);
}

TEST(hundred_restores_are_independent)
{
    capsa_sandbox *sb;
    capsa_sandbox_new(engine, NULL, &sb);
    js_value(sb, "globalThis.list = [1, 2, 3]; fs.writeFileSync('n.txt', 'base')");
    size_t len;
    char *blob = checkpoint(sb, &len);
    enum { N = 100 };
    capsa_sandbox *many[N] = { 0 };
    int made = 0;
    for (int i = 0; i < N; i++) {
        char msg[256];
        if (capsa_sandbox_restore(engine, blob, len, NULL, &many[i], msg, sizeof(msg)) == CAPSA_OK)
            made++;
    }
    CHECK_INT(made, N, "100 sandboxes from one checkpoint");
    int ok = 0;
    char code[160], want[64];
    for (int i = 0; i < N && many[i]; i++) {
        snprintf(code, sizeof(code), "list.push(%d); fs.appendFileSync('n.txt', '+%d'); return list.length", i, i);
        ok += strcmp(js_value(many[i], code), "4") == 0;
    }
    CHECK_INT(ok, N, "each one changes its own state");
    ok = 0;
    for (int i = 0; i < N && many[i]; i++) {
        snprintf(want, sizeof(want), "[[1,2,3,%d],\"base+%d\"]", i, i);
        ok += strcmp(js_value(many[i], "return [list, fs.readFileSync('n.txt', 'utf8')]"), want) == 0;
    }
    CHECK_INT(ok, N, "and sees only its own");
    /* Each restore gets a Math.random seed of its own. */
    char a[64], b[64];
    snprintf(a, sizeof(a), "%s", many[0] ? js_value(many[0], "return Math.random()") : "");
    snprintf(b, sizeof(b), "%s", many[1] ? js_value(many[1], "return Math.random()") : "");
    CHECK(strcmp(a, b) != 0, "two restores draw different random numbers");
    for (int i = 0; i < N; i++)
        capsa_sandbox_free(many[i]);
    capsa_free(blob);
    capsa_sandbox_free(sb);
}

/* ---- files --------------------------------------------------------------------------- */

static int stat_of(capsa_sandbox *sb, const char *path, capsa_file_info *info)
{
    memset(info, 0, sizeof(*info));
    info->struct_size = sizeof(*info);
    return capsa_fs_stat(sb, path, info);
}

TEST(files_round_trip)
{
    capsa_sandbox *sb;
    capsa_sandbox_new(engine, NULL, &sb);
    static char bin[70000];
    for (size_t i = 0; i < sizeof(bin); i++)
        bin[i] = (char)(i * 7 + 3);
    CHECK_INT(capsa_fs_write(sb, "/workspace/bin.dat", bin, sizeof(bin)), CAPSA_OK, "host file");
    CHECK_INT(capsa_fs_write(sb, "/tools/host.txt", "host only", 9), CAPSA_OK, "a file in /tools");
    CHECK_STR(js_value(sb, "fs.mkdirSync('/workspace/a/b/c', {recursive: true});"
                           "fs.writeFileSync('/workspace/a/b/c/deep.txt', 'deep');"
                           "fs.mkdirSync('/tmp/empty'); fs.writeFileSync('/tmp/t.txt', '');"
                           "fs.symlinkSync('a/b/c/deep.txt', '/workspace/link');"
                           "fs.utimesSync('/workspace/a/b/c/deep.txt', 1000, 2000); return 1"),
              "1", "files made by the guest");
    const capsa_result *res;
    const char *cmd = "ln /workspace/a/b/c/deep.txt /workspace/hard && echo ok";
    CHECK_INT(capsa_shell(sb, cmd, NULL, 0, &res), CAPSA_OK, "a hard link, by the shell");
    capsa_file_info before, after;
    stat_of(sb, "/workspace/a/b/c/deep.txt", &before);
    size_t len;
    char *blob = checkpoint(sb, &len);
    capsa_sandbox *r = restore(blob, len);
    if (r) {
        char *data = NULL;
        size_t n = 0;
        CHECK_INT(capsa_fs_read(r, "/workspace/bin.dat", &data, &n), CAPSA_OK, "binary file back");
        CHECK(n == sizeof(bin) && memcmp(data, bin, n) == 0, "its bytes are the same");
        capsa_free(data);
        CHECK_STR(js_value(r, "return [fs.readFileSync('/workspace/link', 'utf8'), fs.readlinkSync('/workspace/link'),"
                              "fs.readdirSync('/tmp/empty').length, fs.readFileSync('/tmp/t.txt', 'utf8'),"
                              "fs.readFileSync('/tools/host.txt', 'utf8')]"),
                  "[\"deep\",\"a/b/c/deep.txt\",0,\"\",\"host only\"]", "symlinks, empty files and dirs");
        stat_of(r, "/workspace/a/b/c/deep.txt", &after);
        CHECK(after.mtime_ns == before.mtime_ns && after.mtime_ns == 2000000000000ull,
              "times are kept");
        CHECK_STR(js_value(r, "const a = fs.statSync('/workspace/hard'), b = fs.statSync('/workspace/a/b/c/deep.txt');"
                              "fs.writeFileSync('/workspace/hard', 'changed');"
                              "return [a.ino === b.ino, a.nlink, fs.readFileSync('/workspace/a/b/c/deep.txt', 'utf8')]"),
                  "[true,2,\"changed\"]", "a hard link stays one file");
        /* Modes: /tools stays read-only for the guest, /dev/null a device. */
        CHECK_STR(js_value(r, "try { fs.writeFileSync('/tools/x', '1'); return 'wrote' } catch (e) { return e.code }"),
                  "\"EROFS\"", "/tools is read-only");
        CHECK_STR(js_value(r, "fs.writeFileSync('/dev/null', 'x'); return fs.readFileSync('/dev/null', 'utf8')"),
                  "\"\"", "/dev/null");
        capsa_sandbox_free(r);
    }
    capsa_free(blob);
    capsa_sandbox_free(sb);
}

static char tmp_root[64];

static void write_host(const char *rel, const char *text)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", tmp_root, rel);
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static int host_exists(const char *rel)
{
    char path[256];
    struct stat st;
    snprintf(path, sizeof(path), "%s/%s", tmp_root, rel);
    return stat(path, &st) == 0;
}

TEST(mounts_are_reattached)
{
    snprintf(tmp_root, sizeof(tmp_root), "/tmp/capsa-ckpt-XXXXXX");
    if (!mkdtemp(tmp_root)) {
        CHECK(0, "a temporary directory");
        return;
    }
    write_host("kept.txt", "kept");
    write_host("gone.txt", "gone");
    capsa_sandbox *sb;
    capsa_sandbox_new(engine, NULL, &sb);
    CHECK_INT(capsa_fs_mount(sb, tmp_root, "/data", CAPSA_MOUNT_RW), CAPSA_OK, "rw mount");
    CHECK_STR(js_value(sb, "fs.writeFileSync('/data/new.txt', 'new'); return 1"), "1", "a write");
    CHECK(host_exists("new.txt"), "written back after the run");
    size_t len;
    char *blob = checkpoint(sb, &len);
    /* No host path goes into the checkpoint. */
    CHECK(memmem(blob, len, tmp_root, strlen(tmp_root)) == NULL, "the host directory is not in it");
    capsa_sandbox_free(sb);
    capsa_sandbox *r = restore(blob, len);
    if (r) {
        CHECK_STR(js_value(r, "return fs.readdirSync('/data').sort()"),
                  "[\"gone.txt\",\"kept.txt\",\"new.txt\"]", "the mount's subtree is kept");
        CHECK_STR(js_value(r, "fs.writeFileSync('/data/detached.txt', 'x'); return 1"), "1",
                  "the guest may still write there");
        CHECK(!host_exists("detached.txt"), "not written back: the mount has no host directory");
        /* The host changed the directory meanwhile: mounting it again shows it as
           it is now. */
        char path[256];
        snprintf(path, sizeof(path), "%s/gone.txt", tmp_root);
        unlink(path);
        write_host("host-new.txt", "from the host");
        CHECK_INT(capsa_fs_mount(r, tmp_root, "/data", CAPSA_MOUNT_RW), CAPSA_OK, "mounted again");
        CHECK_STR(js_value(r, "fs.writeFileSync('/data/after.txt', 'a'); return fs.readdirSync('/data').sort()"),
                  "[\"after.txt\",\"host-new.txt\",\"kept.txt\",\"new.txt\"]",
                  "the host's contents replace the kept copy");
        CHECK(host_exists("after.txt") && !host_exists("gone.txt") && !host_exists("detached.txt"),
              "written back again, and nothing removed comes back");
        capsa_sandbox_free(r);
    }
    capsa_free(blob);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp_root);
    CHECK_INT(system(cmd), 0, "cleanup");
}

/* ---- tools, policy, limits, audit -------------------------------------------------- */

static int tool_hits;

static void tool_count(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
    __atomic_add_fetch(&tool_hits, 1, __ATOMIC_RELAXED);
    const char *tag = ud;
    char out[64];
    int n = snprintf(out, sizeof(out), "\"%s\"", tag);
    capsa_tool_reply_json(reply, out, (size_t)n);
}

static capsa_tool_def def_of(const char *name, capsa_tool_fn fn, void *ud, uint32_t flags)
{
    capsa_tool_def d;
    capsa_tool_def_init(&d);
    d.name = name;
    d.description = "counts";
    d.fn = fn;
    d.ud = ud;
    d.flags = flags;
    return d;
}

TEST(budgets_and_tools_by_name)
{
    capsa_sandbox *sb;
    capsa_options o;
    capsa_options_init(&o);
    o.fuel = 50000000;
    o.fs_max_entries = 500;
    capsa_sandbox_new(engine, &o, &sb);
    capsa_tool_def d = def_of("svc.count", tool_count, "before", 0);
    capsa_tool_def ext = def_of("svc.step", NULL, NULL, 0);
    CHECK_INT(capsa_tool_add(sb, &d), CAPSA_OK, "tool");
    CHECK_INT(capsa_tool_add(sb, &ext), CAPSA_OK, "step-mode tool");
    const char *policy = "{\"capabilities\":[{\"pattern\":\"svc.count\",\"max_calls\":3}]}";
    CHECK_INT(capsa_policy_set(sb, policy, strlen(policy)), CAPSA_OK, "policy");
    CHECK_STR(js_value(sb, "return [await tools.svc.count({}), await svc_count({})]"),
              "[\"before\",\"before\"]", "two calls before");
    size_t len;
    char *blob = checkpoint(sb, &len);

    /* Without a definition for the tool that had a callback: refused, named. */
    restore_fails(blob, len, CAPSA_ENOENT, "svc.count", "a tool left unbound");

    capsa_tool_def rebind = def_of("svc.count", tool_count, "after", 0);
    capsa_tool_def extra = def_of("other.tool", tool_count, "x", 0);
    const capsa_tool_def *defs[] = { &extra, &rebind };
    capsa_restore_options ro;
    capsa_restore_options_init(&ro);
    ro.tools = defs;
    ro.n_tools = 2;
    capsa_sandbox *r = NULL;
    char msg[512];
    CHECK_INT(capsa_sandbox_restore(engine, blob, len, &ro, &r, msg, sizeof(msg)), CAPSA_OK, msg);
    if (r) {
        capsa_options got;
        capsa_options_init(&got);
        CHECK_INT(capsa_sandbox_options(r, &got), CAPSA_OK, "the restored sandbox's options");
        CHECK(got.fuel == 50000000 && got.fs_max_entries == 500 && got.memory_limit == o.memory_limit,
              "its limits are the checkpoint's");
        CHECK_INT(capsa_sandbox_options(NULL, &got), CAPSA_EINVAL, "options of no sandbox");
        char *text = capsa_policy_json(r);
        CHECK_STR(text, "{\"capabilities\":[{\"pattern\":\"svc.count\",\"max_calls\":3}]}",
                  "its policy, as a policy file");
        capsa_free(text);
        uint64_t used = 0, remaining = 0;
        CHECK_INT(capsa_policy_calls(r, "svc.count", &used, &remaining), CAPSA_OK, "counts");
        CHECK(used == 2 && remaining == 1, "the budget's used calls come from the checkpoint");
        CHECK_STR(js_value(r, "return await svc_count({})"), "\"after\"",
                  "the third call is allowed, by the new callback");
        CHECK_STR(js_value(r, "try { await tools.svc.count({}); return 'allowed' } catch (e) { return e.code }"),
                  "\"permission_denied\"", "the fourth is not: exactly one call after the restore");
        CHECK_STR(js_value(r, "return [tools.list().map(t => t.name).sort(), typeof other_tool]"),
                  "[[\"svc.count\",\"svc.step\"],\"undefined\"]",
                  "the checkpoint's tools, and no others");
        CHECK_STR(js_value(r, "return fs.readdirSync('/tools').sort()"),
                  "[\"index.d.ts\",\"svc.count.d.ts\",\"svc.step.d.ts\"]", "the declarations");
        CHECK_STR(js_value(r, "for (;;) {}"), "ERR FuelError: the run spent its fuel budget of 50000000 units; the sandbox was reset (its JS state is lost)",
                  "the fuel limit is the checkpoint's");
        char *log = NULL;
        size_t n = 0;
        CHECK_INT(capsa_fs_read(r, "/log/actions.jsonl", &log, &n), CAPSA_OK, "the audit log");
        CHECK_CONTAINS(log, "\"event\":\"restore\",\"run\":1}", "a restore line, after run 1");
        CHECK_CONTAINS(log, "\"event\":\"run_start\",\"run\":2}", "the runs go on counting");
        CHECK(log && strstr(log, "\"event\":\"run_start\",\"run\":1}") != NULL,
              "the lines from before the checkpoint are there");
        capsa_free(log);
        CHECK_STR(js_value(r, "try { fs.appendFileSync('/log/actions.jsonl', '{}\\n'); return 'wrote' } catch (e) { return e.code }"),
                  "\"EPERM\"", "the audit log stays read-only for the guest");
        capsa_sandbox_free(r);
    }
    capsa_free(blob);
    capsa_sandbox_free(sb);
}

/* A tool registered as "a/b" is named "a.b": the restore binds a definition
 * named either way to it (it once matched the name literally, so such a
 * sandbox could not be restored with its tools). */
/* A tool's result type is kept: declarations written after the restore (here,
 * when another tool is added) still give it. */
TEST(tool_result_types_kept)
{
    capsa_sandbox *sb;
    capsa_sandbox_new(engine, NULL, &sb);
    capsa_tool_def d = def_of("svc.typed", NULL, NULL, 0);
    d.returns = "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\"}},\"required\":[\"n\"]}";
    CHECK_INT(capsa_tool_add(sb, &d), CAPSA_OK, "a tool with a result type");
    capsa_tool_def plain = def_of("svc.plain", NULL, NULL, 0);
    CHECK_INT(capsa_tool_add(sb, &plain), CAPSA_OK, "a tool without one");
    size_t len;
    char *blob = checkpoint(sb, &len);
    capsa_sandbox *r = restore(blob, len);
    if (r) {
        capsa_tool_def later = def_of("svc.later", NULL, NULL, 0);
        CHECK_INT(capsa_tool_add(r, &later), CAPSA_OK, "a tool added after the restore");
        const char *dts = js_value(r, "return fs.readFileSync('/tools/index.d.ts', 'utf8')");
        CHECK_CONTAINS(dts, "n: number", "the restored tool's result type is in the new declarations");
        CHECK_CONTAINS(dts, "later", "the new tool too");
        capsa_sandbox_free(r);
    }
    capsa_free(blob);
    capsa_sandbox_free(sb);
}

TEST(tools_with_slashes_rebound)
{
    capsa_sandbox *sb;
    capsa_sandbox_new(engine, NULL, &sb);
    capsa_tool_def d = def_of("svc/deep/count", tool_count, "before", 0);
    CHECK_INT(capsa_tool_add(sb, &d), CAPSA_OK, "a tool named with '/'");
    CHECK_INT(capsa_policy_add(sb, "svc/**", NULL, 0), CAPSA_OK, "policy");
    size_t len;
    char *blob = checkpoint(sb, &len);
    const char *names[] = { "svc/deep/count", "svc.deep.count", "svc/deep.count" };
    for (size_t i = 0; i < 3; i++) {
        capsa_tool_def again = def_of(names[i], tool_count, "after", 0);
        const capsa_tool_def *defs[] = { &again };
        capsa_restore_options ro;
        capsa_restore_options_init(&ro);
        ro.tools = defs;
        ro.n_tools = 1;
        capsa_sandbox *r = NULL;
        char msg[512];
        CHECK_INT(capsa_sandbox_restore(engine, blob, len, &ro, &r, msg, sizeof(msg)), CAPSA_OK,
                  names[i]);
        if (r)
            CHECK_STR(js_value(r, "return await tools.svc.deep.count({})"), "\"after\"",
                      "the restored tool calls the callback bound by that name");
        capsa_sandbox_free(r);
    }
    capsa_tool_def other = def_of("svc/deep/counts", tool_count, "x", 0);
    const capsa_tool_def *odefs[] = { &other };
    capsa_restore_options ro;
    capsa_restore_options_init(&ro);
    ro.tools = odefs;
    ro.n_tools = 1;
    capsa_sandbox *r = NULL;
    CHECK_INT(capsa_sandbox_restore(engine, blob, len, &ro, &r, NULL, 0), CAPSA_ENOENT,
              "a longer name does not bind it");
    capsa_sandbox_free(r);
    capsa_free(blob);
    capsa_sandbox_free(sb);
}

static capsa_sandbox *callback_sb;
static int callback_rc;

static void tool_checkpoint_self(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
    char *data = NULL;
    size_t len = 0;
    callback_rc = capsa_checkpoint(callback_sb, &data, &len);
    capsa_free(data);
    capsa_tool_reply_json(reply, "null", 4);
}

TEST(only_between_runs)
{
    capsa_sandbox *sb;
    capsa_sandbox_new(engine, NULL, &sb);
    callback_sb = sb;
    capsa_tool_def d = def_of("self", tool_checkpoint_self, NULL, CAPSA_TOOL_INLINE);
    capsa_tool_add(sb, &d);
    capsa_tool_def step = def_of("ext", NULL, NULL, 0);
    capsa_tool_add(sb, &step);
    capsa_policy_add(sb, "*", NULL, 0);
    callback_rc = -1;
    js_value(sb, "await self({})");
    CHECK_INT(callback_rc, CAPSA_EINVAL, "from a tool callback, during the run");
    const capsa_result *r;
    CHECK_INT(capsa_run(sb, "return await ext({})", 20, NULL, &r), CAPSA_PENDING, "a pending run");
    char *data = (char *)1;
    size_t len = 1;
    CHECK_INT(capsa_checkpoint(sb, &data, &len), CAPSA_EINVAL, "while the run is pending");
    CHECK(data == NULL && len == 0, "no bytes");
    CHECK_CONTAINS(capsa_errmsg(sb), "pending", "the message says why");
    capsa_reset(sb);
    data = checkpoint(sb, &len);
    capsa_free(data);
    CHECK_INT(capsa_checkpoint(NULL, &data, &len), CAPSA_EINVAL, "no sandbox");
    CHECK_INT(capsa_checkpoint(sb, NULL, &len), CAPSA_EINVAL, "no place for the bytes");
    CHECK_INT(capsa_checkpoint_write(sb, NULL, NULL), CAPSA_EINVAL, "no writer");
    capsa_sandbox_free(sb);
}

static int stop_writer(void *ud, const void *data, size_t len)
{
    int *calls = ud;
    return ++*calls > 1;
}

TEST(writer_and_no_instance)
{
    capsa_sandbox *sb;
    capsa_options o;
    capsa_options_init(&o);
    o.fuel = 1000000;
    capsa_sandbox_new(engine, &o, &sb);
    int calls = 0;
    CHECK_INT(capsa_checkpoint_write(sb, stop_writer, &calls), CAPSA_EIO, "a writer that stops it");
    CHECK_CONTAINS(capsa_errmsg(sb), "writer", "the message says so");
    /* After a limit stopped it the sandbox has no instance until its next run:
       the checkpoint keeps the files, and a restore starts from the image. */
    js_value(sb, "globalThis.lost = 1; fs.writeFileSync('f', 'kept'); for (;;) {}");
    size_t len;
    char *blob = checkpoint(sb, &len);
    capsa_sandbox *r = restore(blob, len);
    if (r) {
        CHECK_STR(js_value(r, "return [typeof lost, fs.readFileSync('f', 'utf8')]"),
                  "[\"undefined\",\"kept\"]", "a fresh JS state, the files kept");
        capsa_sandbox_free(r);
    }
    capsa_free(blob);
    capsa_sandbox_free(sb);
}

/* ---- another process ---------------------------------------------------------------- */

/* The child: a process of its own, with an engine (and image) of its own, which
 * restores the checkpoint in `path`, checks it and checkpoints it again there. */
static int child_main(const char *path)
{
    capsa_engine_new(NULL, &engine);
    FILE *f = fopen(path, "rb");
    if (!f)
        return 2;
    static char blob[16 << 20];
    size_t len = fread(blob, 1, sizeof(blob), f);
    fclose(f);
    capsa_sandbox *sb = NULL;
    char msg[512];
    if (capsa_sandbox_restore(engine, blob, len, NULL, &sb, msg, sizeof(msg)) != CAPSA_OK) {
        fprintf(stderr, "child: %s\n", msg);
        return 3;
    }
    if (strcmp(js_value(sb, "return greet('child') + ' ' + fs.readFileSync('w.txt', 'utf8')"),
               "\"hello child from parent\"") != 0) {
        fprintf(stderr, "child: %s\n", js_value(sb, "return greet('child')"));
        return 4;
    }
    js_value(sb, "globalThis.greet = (n) => 'bye ' + n");
    char *data = NULL;
    int rc = capsa_checkpoint(sb, &data, &len);
    capsa_sandbox_free(sb);
    if (rc != CAPSA_OK || !(f = fopen(path, "wb"))) {
        capsa_free(data);
        return 5;
    }
    fwrite(data, 1, len, f);
    fclose(f);
    capsa_free(data); /* the child's memory too is checked for leaks (test-sanitize) */
    capsa_engine_free(engine);
    return 0;
}

TEST(another_process)
{
    capsa_sandbox *sb;
    capsa_sandbox_new(engine, NULL, &sb);
    js_value(sb, "globalThis.greet = (n) => 'hello ' + n; fs.writeFileSync('w.txt', 'from parent')");
    size_t len;
    char *blob = checkpoint(sb, &len);
    char path[] = "/tmp/capsa-ckpt-blob-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, blob, len) == (ssize_t)len, "the blob in a file");
    close(fd);
    pid_t pid = fork();
    if (pid == 0) {
        execl(self_path, self_path, "--child", path, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0,
          "another process (its own engine and image) restores it");
    FILE *f = fopen(path, "rb");
    static char back[16 << 20];
    size_t n = f ? fread(back, 1, sizeof(back), f) : 0;
    if (f)
        fclose(f);
    capsa_sandbox *r = restore(back, n);
    if (r) {
        CHECK_STR(js_value(r, "return greet('parent')"), "\"bye parent\"",
                  "and this one restores what it checkpointed");
        capsa_sandbox_free(r);
    }
    unlink(path);
    capsa_free(blob);
    capsa_sandbox_free(sb);
}

/* ---- bad input ------------------------------------------------------------------------ */

static uint32_t rng_state = 12345; /* CAPSA_TEST_SEED overrides it */

static uint32_t rng(void)
{
    rng_state = rng_state * 1103515245u + 12345u;
    return rng_state >> 8;
}

TEST(truncated_and_flipped)
{
    capsa_sandbox *sb;
    capsa_sandbox_new(engine, NULL, &sb);
    js_value(sb, "globalThis.x = 1");
    size_t len;
    char *blob = checkpoint(sb, &len);
    char *copy = malloc(len);
    restore_fails(NULL, 0, CAPSA_EINVAL, "not a capsa checkpoint", "nothing");
    restore_fails("CAPSACKP", 8, CAPSA_EINVAL, "truncated", "a magic alone");
    restore_fails("{\"not\":\"a checkpoint\"}", 22, CAPSA_EINVAL, "not a capsa checkpoint", "JSON");
    /* Every length up to 300 bytes, then every 97th: never a crash, always refused. */
    int refused = 0, tried = 0;
    for (size_t cut = 0; cut < len; cut += cut < 300 ? 1 : 97) {
        capsa_sandbox *r = NULL;
        char msg[256];
        tried++;
        refused += capsa_sandbox_restore(engine, blob, cut, NULL, &r, msg, sizeof(msg)) == CAPSA_EINVAL &&
                   !r && msg[0];
        capsa_sandbox_free(r);
    }
    CHECK_INT(refused, tried, "every truncation refused with a message");
    /* A flipped bit anywhere: refused (the header by its checks, the rest by
       zstd's checksum or the frame's structure). */
    refused = tried = 0;
    for (int i = 0; i < 300; i++) {
        memcpy(copy, blob, len);
        size_t at = i < 96 ? (size_t)i : rng() % len;
        copy[at] ^= (char)(1 << (rng() % 8));
        capsa_sandbox *r = NULL;
        char msg[256];
        tried++;
        int rc = capsa_sandbox_restore(engine, copy, len, NULL, &r, msg, sizeof(msg));
        /* A few bits of a zstd frame change nothing it decodes to (padding, a
           table's spare precision): the checksum of the contents then still
           holds, and so does the sandbox. */
        refused += rc == CAPSA_OK ? at >= 96 && strcmp(js_value(r, "return x"), "1") == 0
                                  : (rc == CAPSA_EINVAL || rc == CAPSA_ETOOBIG) && !r && msg[0];
        capsa_sandbox_free(r);
    }
    CHECK_INT(refused, tried, "every flipped bit refused with a message (or one that changes "
                              "nothing the frame decodes to)");
    /* Trailing bytes. */
    char *longer = malloc(len + 1);
    memcpy(longer, blob, len);
    longer[len] = 0;
    restore_fails(longer, len + 1, CAPSA_EINVAL, "corrupt", "a byte after the frame");
    free(longer);
    /* Version, flags, build and image: each refused by name. */
    memcpy(copy, blob, len);
    copy[8] = 1;
    restore_fails(copy, len, CAPSA_EINVAL, "format version 1", "the format before this one");
    copy[8] = 3;
    restore_fails(copy, len, CAPSA_EINVAL, "format version 3", "another format version");
    memcpy(copy, blob, len);
    copy[13] = 1;
    restore_fails(copy, len, CAPSA_EINVAL, "flags", "unknown flags");
    memcpy(copy, blob, len);
    copy[20] ^= 1;
    restore_fails(copy, len, CAPSA_EINVAL, "another build", "another build of the guest");
    memcpy(copy, blob, len);
    copy[50] ^= 1;
    restore_fails(copy, len, CAPSA_EINVAL, "another guest image", "another image");
    /* A small blob that claims (and holds) more than the caller allows. */
    capsa_restore_options ro;
    capsa_restore_options_init(&ro);
    ro.max_bytes = 1000;
    capsa_sandbox *r = (capsa_sandbox *)1;
    char msg[256];
    CHECK_INT(capsa_sandbox_restore(engine, blob, len, &ro, &r, msg, sizeof(msg)), CAPSA_ETOOBIG,
              "over max_bytes");
    CHECK(r == NULL, "no sandbox");
    CHECK_INT(capsa_sandbox_restore(NULL, blob, len, NULL, &r, msg, sizeof(msg)), CAPSA_EINVAL, "no engine");
    CHECK_INT(capsa_sandbox_restore(engine, blob, len, NULL, NULL, NULL, 0), CAPSA_EINVAL, "no out");
    ro.max_bytes = 0;
    ro.n_tools = 1;
    CHECK_INT(capsa_sandbox_restore(engine, blob, len, &ro, &r, msg, sizeof(msg)), CAPSA_EINVAL,
              "n_tools without tools");
    free(copy);
    capsa_free(blob);
    capsa_sandbox_free(sb);
}

static uint64_t le64(const uint8_t *p);

/* The contents of a blob, decompressed (the caller frees them): their length is
   the header's, their frames follow it (zstd decodes frames one after another). */
static uint8_t *contents_of(const char *blob, size_t len, size_t *n)
{
    *n = (size_t)le64((const uint8_t *)blob + 80);
    uint8_t *c = malloc(*n);
    ZSTD_decompress(c, *n, blob + 96, len - 96);
    return c;
}

/* A blob of contents c[0..n), compressed again as the format has them: frames of
   at most 32 KiB, each with a checksum (free with free). */
static char *seal(const uint8_t *c, size_t n, size_t *len)
{
    enum { SEGMENT = 32 << 10 };
    size_t bound = ZSTD_compressBound(n) + (n / SEGMENT + 1) * 32;
    char *blob = malloc(96 + bound);
    memcpy(blob, c, 96);
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
    size_t z = 0;
    for (size_t at = 0; at < n; at += SEGMENT)
        z += ZSTD_compress2(cc, blob + 96 + z, bound - z, c + at, n - at < SEGMENT ? n - at : SEGMENT);
    ZSTD_freeCCtx(cc);
    *len = 96 + z;
    return blob;
}

static uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* ---- checkpoints that follow each other ------------------------------------------- */

/* The frames of a sandbox's last checkpoint are kept and reused where its
 * contents did not change: what each checkpoint restores to must be the state
 * it was taken in, whatever the one before held. */
TEST(successive_checkpoints)
{
    capsa_sandbox *sb, *other;
    capsa_options o;
    capsa_options_init(&o);
    o.fuel = 200000000; /* for the limit at the end */
    capsa_sandbox_new(engine, &o, &sb);
    capsa_sandbox_new(engine, NULL, &other);
    js_value(sb, "globalThis.big = []; for (let i = 0; i < 20000; i++) big.push({i, s: 'v' + i});"
                 "fs.writeFileSync('/workspace/a.txt', 'x'.repeat(100000))");
    js_value(other, "globalThis.big = ['other']");
    size_t len1, len2, len3;
    char *first = checkpoint(sb, &len1);
    /* Frames are kept from the second checkpoint on: the third of an unchanged
       sandbox, made from them, is the same bytes as the first. */
    for (int i = 0; i < 2; i++) {
        char *same = checkpoint(sb, &len2);
        CHECK(len1 == len2 && memcmp(first, same, len1) == 0,
              "a checkpoint of an unchanged sandbox is the same bytes as the one before");
        capsa_free(same);
    }
    char *theirs = checkpoint(other, &len3); /* another sandbox's frames are its own */
    capsa_free(theirs);
    js_value(sb, "big[123].s = 'changed'; big.push('new'); fs.appendFileSync('/workspace/a.txt', 'y')");
    char *second = checkpoint(sb, &len2);
    js_value(sb, "big[5000].s = 'later'; big.length = 10; fs.writeFileSync('/workspace/a.txt', 'z')");
    char *third = checkpoint(sb, &len3);
    capsa_sandbox *r1 = restore(first, len1), *r2 = restore(second, len2), *r3 = restore(third, len3);
    if (r1 && r2 && r3) {
        const char *probe = "return [big.length, big[123] && big[123].s, big[5000] && big[5000].s,"
                            " fs.readFileSync('/workspace/a.txt', 'utf8').length]";
        CHECK_STR(js_value(r1, probe), "[20000,\"v123\",\"v5000\",100000]", "the first state");
        CHECK_STR(js_value(r2, probe), "[20001,\"changed\",\"v5000\",100001]", "the second state");
        CHECK_STR(js_value(r3, probe), "[10,null,null,1]", "the third state");
    }
    capsa_sandbox_free(r1);
    capsa_sandbox_free(r2);
    capsa_sandbox_free(r3);
    /* After a trap the instance is made anew from the image: what the kept frames
       hold of the old memory must not leak into the next checkpoint. */
    const capsa_result *res;
    CHECK_INT(capsa_run(sb, "globalThis.gone = 1; for (;;) {}", 32, NULL, &res), CAPSA_EFUEL,
              "a run the fuel limit stops");
    char *after = checkpoint(sb, &len3);
    capsa_sandbox *r4 = restore(after, len3);
    if (r4)
        CHECK_STR(js_value(r4, "return [typeof big, typeof gone]"), "[\"undefined\",\"undefined\"]",
                  "after a limit stopped it, the image's state and nothing of the old memory");
    capsa_sandbox_free(r4);
    capsa_free(first);
    capsa_free(second);
    capsa_free(third);
    capsa_free(after);
    capsa_sandbox_free(sb);
    capsa_sandbox_free(other);
}

/* The length of a blob's contents, as its header says (u64 at 80). */
static uint64_t contents_size(const char *blob)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | (uint8_t)blob[80 + i];
    return v;
}

/* An engine keeps the frames of the last blob it restored, and copies the
 * contents of a frame of the next blob that is the same bytes instead of
 * decompressing it: the state restored is the blob's own, whichever was
 * restored before, and a frame that differs in a byte is decompressed (so
 * refused when corrupt), even where its size and checksum are those of a kept
 * frame. */
TEST(frames_kept_from_the_last_restore)
{
    capsa_sandbox *sb;
    capsa_sandbox_new(engine, NULL, &sb);
    js_value(sb, "globalThis.rows = []; for (let i = 0; i < 5000; i++) rows.push({i, s: 'r' + i});"
                 "globalThis.x = 1; fs.writeFileSync('/workspace/f.txt', 'a'.repeat(70000))");
    size_t len_a, len_b;
    char *a = checkpoint(sb, &len_a);
    js_value(sb, "x = 2; rows[4000].s = 'changed'; fs.appendFileSync('/workspace/f.txt', 'b')");
    char *b = checkpoint(sb, &len_b);
    const char *probe = "return [x, rows[4000].s, fs.readFileSync('/workspace/f.txt', 'utf8').length]";
    const char *want_a = "[1,\"r4000\",70000]", *want_b = "[2,\"changed\",70001]";
    /* c: contents of b's size (only memory changed), so that each frame that is
       the same sits where it sat, and c is made over b's contents in place. */
    js_value(sb, "x = 3");
    size_t len_c;
    char *c = checkpoint(sb, &len_c);
    const char *want_c = "[3,\"changed\",70001]";
    CHECK(contents_size(c) == contents_size(b), "c's contents are b's size");
    const char *blobs[] = { a, b, a, b, c, b, c, c, b };
    for (size_t i = 0; i < sizeof(blobs) / sizeof(blobs[0]); i++) {
        const char *blob = blobs[i], *name = blob == a ? "a" : blob == b ? "b" : "c";
        capsa_sandbox *r = restore(blob, blob == a ? len_a : blob == b ? len_b : len_c);
        if (r)
            TEST_REPORT(strcmp(js_value(r, probe), blob == a ? want_a : blob == b ? want_b
                                                                               : want_c) == 0,
                        "restore %zu (%s) has its own blob's state", i, name);
        capsa_sandbox_free(r);
    }
    /* b was restored last. One byte changed in the middle of each of its frames,
       their sizes and checksums as they were: never the kept contents. */
    char *copy = malloc(len_b);
    int frames = 0, refused = 0, same = 0;
    for (size_t at = 96; copy && at < len_b; frames++) {
        size_t csize = ZSTD_findFrameCompressedSize(b + at, len_b - at);
        if (ZSTD_isError(csize) || csize < 16)
            break;
        memcpy(copy, b, len_b);
        copy[at + csize / 2] ^= 0x5a;
        capsa_sandbox *r = NULL;
        char msg[256] = "";
        int rc = capsa_sandbox_restore(engine, copy, len_b, NULL, &r, msg, sizeof(msg));
        refused += rc == CAPSA_EINVAL && !r && msg[0];
        same += rc == CAPSA_OK && strcmp(js_value(r, probe), want_b) == 0;
        capsa_sandbox_free(r);
        at += csize;
    }
    CHECK(frames > 10, "the blob has frames to change");
    TEST_REPORT(refused > frames * 3 / 4 && refused + same == frames,
                "a changed frame is decompressed, not taken from the kept ones: %d of %d "
                "refused, %d decoding to the same", refused, frames, same);
    free(copy);
    capsa_free(a);
    capsa_free(b);
    capsa_free(c);
    capsa_sandbox_free(sb);
}

/* The body is frames of at most 32 KiB of contents, each with its checksum and
 * content size: anything else is refused, even when it decodes to the same. */
TEST(frames_of_the_body)
{
    capsa_sandbox *sb;
    capsa_sandbox_new(engine, NULL, &sb);
    js_value(sb, "globalThis.x = 'y'.repeat(50000)");
    size_t len, n;
    char *blob = checkpoint(sb, &len);
    uint8_t *c = contents_of(blob, len, &n);
    /* One frame of all the contents (the format of version 1's body). */
    size_t bound = ZSTD_compressBound(n);
    char *one = malloc(96 + bound);
    memcpy(one, blob, 96);
    ZSTD_CCtx *cc = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 1);
    size_t z = ZSTD_compress2(cc, one + 96, bound, c, n);
    restore_fails(one, 96 + z, CAPSA_EINVAL, "not whole zstd frames", "a frame over 32 KiB");
    /* Frames without checksums. */
    ZSTD_CCtx_setParameter(cc, ZSTD_c_checksumFlag, 0);
    z = 0;
    for (size_t at = 0; at < n; at += 32768)
        z += ZSTD_compress2(cc, one + 96 + z, bound - z, c + at, n - at < 32768 ? n - at : 32768);
    restore_fails(one, 96 + z, CAPSA_EINVAL, "not whole zstd frames", "frames without checksums");
    /* A skippable frame before the first. */
    size_t blen;
    char *sealed = seal(c, n, &blen);
    char *skip = malloc(blen + 8);
    memcpy(skip, sealed, 96);
    const uint8_t skippable[8] = { 0x50, 0x2a, 0x4d, 0x18, 0, 0, 0, 0 };
    memcpy(skip + 96, skippable, 8);
    memcpy(skip + 104, sealed + 96, blen - 96);
    restore_fails(skip, blen + 8, CAPSA_EINVAL, "not whole zstd frames", "a skippable frame");
    /* The frames of a shorter contents than the header says. */
    uint64_t more = n + 4096;
    memcpy(sealed + 80, &more, 8);
    restore_fails(sealed, blen, CAPSA_EINVAL, "not whole zstd frames", "contents shorter than said");
    ZSTD_freeCCtx(cc);
    free(one);
    free(skip);
    free(sealed);
    free(c);
    capsa_free(blob);
    capsa_sandbox_free(sb);
}

/* Where section tag starts (its first field) in contents c, and its length. */
static size_t section_at(const uint8_t *c, size_t n, uint32_t tag, size_t *slen)
{
    for (size_t at = 96; at + 12 <= n;) {
        uint32_t t = (uint32_t)le64(c + at) & 0xffffffffu;
        uint64_t l = le64(c + at + 4);
        if (t == tag) {
            *slen = (size_t)l;
            return at + 12;
        }
        at += 12 + (size_t)l;
    }
    *slen = 0;
    return 0;
}

TEST(tampered_inside_a_valid_frame)
{
    capsa_sandbox *sb;
    capsa_sandbox_new(engine, NULL, &sb);
    const char *policy = "{\"capabilities\":[{\"pattern\":\"x\",\"max_calls\":3}]}";
    CHECK_INT(capsa_policy_set(sb, policy, strlen(policy)), CAPSA_OK, "policy");
    js_value(sb, "fs.mkdirSync('/workspace/dir'); fs.writeFileSync('/workspace/dir/f.txt', 'abc'); globalThis.y = 2");
    size_t len, n, slen;
    char *blob = checkpoint(sb, &len);
    uint8_t *c = contents_of(blob, len, &n);
    uint8_t *t = malloc(n + 64);
    size_t blen;
    char *bad;

    /* A policy's used calls over its budget (the last u64 of the section). */
    size_t at = section_at(c, n, 3, &slen);
    memcpy(t, c, n);
    t[at + slen - 8] = 9;
    bad = seal(t, n, &blen);
    restore_fails(bad, blen, CAPSA_EINVAL, "over its budget", "used calls over the budget");
    free(bad);

    /* Memory over the limit: the pages field of the memory section. */
    at = section_at(c, n, 7, &slen);
    memcpy(t, c, n);
    t[at + 1] = 0xff;
    t[at + 2] = 0xff;
    bad = seal(t, n, &blen);
    restore_fails(bad, blen, CAPSA_EINVAL, "memory limit", "memory over the limit");
    free(bad);

    /* A run of memory pages past the memory's end: the first run's start (after
       the u8 kept, three u32 globals and the u32 number of runs). */
    memcpy(t, c, n);
    t[at + 17 + 2] = 0x7f;
    bad = seal(t, n, &blen);
    restore_fails(bad, blen, CAPSA_EINVAL, "out of range", "a memory run out of range");
    free(bad);

    /* A stack pointer at the bottom of the stack (its u32 after the u8 kept and the
       pages): the guest traps as it takes its settings; refused, not a guest
       error. */
    memcpy(t, c, n);
    memset(t + at + 5, 0, 4);
    bad = seal(t, n, &blen);
    restore_fails(bad, blen, CAPSA_EINVAL, "does not make a guest that runs", "memory that breaks the guest");
    free(bad);

    /* A file's name turned into a path ("dir/f.txt" -> "dir/f/txt" is a name with
       '/'): found by its bytes in the files section. */
    at = section_at(c, n, 5, &slen);
    memcpy(t, c, n);
    uint8_t *name = memmem(t + at, slen, "f.txt", 5);
    CHECK(name != NULL, "the file's name is in the files section");
    if (name) {
        name[1] = '/';
        bad = seal(t, n, &blen);
        restore_fails(bad, blen, CAPSA_EINVAL, "not a valid name", "a name with '/'");
        free(bad);
        memcpy(t, c, n);
        name = memmem(t + at, slen, "f.txt", 5);
        name[-4] = 0xff; /* its length, now past the section */
        bad = seal(t, n, &blen);
        restore_fails(bad, blen, CAPSA_EINVAL, "malformed", "a name's length past its section");
        free(bad);
    }
    /* A section's length past the contents, and bytes after the last section. */
    memcpy(t, c, n);
    t[96 + 4 + 5] = 1;
    bad = seal(t, n, &blen);
    restore_fails(bad, blen, CAPSA_EINVAL, "options", "a section longer than the contents");
    free(bad);
    memcpy(t, c, n);
    t[n] = 0;
    uint64_t longer = n + 1; /* the contents' length, in the header (little-endian) */
    memcpy(t + 80, &longer, 8);
    bad = seal(t, n + 1, &blen);
    restore_fails(bad, blen, CAPSA_EINVAL, "after its last section", "a byte after the sections");
    free(bad);

    /* Random bytes changed inside a valid frame: whatever happens, no crash, and a
       sandbox that restores runs. */
    int handled = 0;
    for (int i = 0; i < 200; i++) {
        memcpy(t, c, n);
        for (int k = 0; k < 4; k++)
            t[96 + rng() % (n - 96)] ^= (uint8_t)(1 + rng() % 255);
        bad = seal(t, n, &blen);
        capsa_sandbox *r = NULL;
        char msg[256];
        int rc = capsa_sandbox_restore(engine, bad, blen, NULL, &r, msg, sizeof(msg));
        if (rc == CAPSA_OK) {
            const capsa_result *res;
            int run = capsa_run(r, "return 1", 8, NULL, &res);
            /* Any documented outcome: tampered limits may stop it at once. */
            int fine = strcmp(capsa_errname(run), "CAPSA_UNKNOWN") != 0;
            if (!fine)
                fprintf(stderr, "tampered, restored: the run gave %s: %s\n", capsa_errname(run),
                        capsa_errmsg(r));
            handled += fine;
        } else {
            int clean = (rc == CAPSA_EINVAL || rc == CAPSA_ENOMEM || rc == CAPSA_ENOSPC ||
                         rc == CAPSA_ENOENT || rc == CAPSA_ETOOBIG) && msg[0] && !r;
            if (!clean)
                fprintf(stderr, "tampered: %s: %s\n", capsa_errname(rc), msg);
            handled += clean;
        }
        capsa_sandbox_free(r);
        free(bad);
    }
    CHECK_INT(handled, 200, "tampered contents: refused with a message, or a working sandbox");
    free(t);
    free(c);
    capsa_free(blob);
    capsa_sandbox_free(sb);
}

TEST(allocation_failures)
{
    test_fail_alloc fa = { -1, 0 };
    capsa_allocator a = { test_fail_realloc, test_fail_free, &fa };
    capsa_engine_options eo;
    capsa_engine_options_init(&eo);
    eo.allocator = &a;
    capsa_engine *e;
    if (capsa_engine_new(&eo, &e) != CAPSA_OK) {
        CHECK(0, "an engine with a failing allocator");
        return;
    }
    capsa_sandbox *sb;
    capsa_sandbox_new(e, NULL, &sb);
    js_value(sb, "globalThis.v = [1, 2]; fs.writeFileSync('a', 'b')");
    char *blob = NULL;
    size_t len = 0;
    int ok = 0, failed_cleanly = 0;
    for (long k = 0; k < 200 && !ok; k++) {
        __atomic_store_n(&fa.countdown, k, __ATOMIC_RELAXED);
        int rc = capsa_checkpoint(sb, &blob, &len);
        __atomic_store_n(&fa.countdown, -1, __ATOMIC_RELAXED);
        if (rc == CAPSA_OK)
            ok = 1;
        else
            failed_cleanly += rc == CAPSA_ENOMEM && blob == NULL;
    }
    CHECK(ok, "a checkpoint once the allocator lets it");
    CHECK(failed_cleanly > 0, "failures before are CAPSA_ENOMEM with no bytes");
    ok = 0;
    for (long k = 0; k < 2000 && !ok && blob; k++) {
        capsa_sandbox *r = NULL;
        char msg[256];
        __atomic_store_n(&fa.countdown, k, __ATOMIC_RELAXED);
        int rc = capsa_sandbox_restore(e, blob, len, NULL, &r, msg, sizeof(msg));
        __atomic_store_n(&fa.countdown, -1, __ATOMIC_RELAXED);
        if (rc == CAPSA_OK) {
            ok = strcmp(js_value(r, "return [v, fs.readFileSync('a', 'utf8')]"), "[[1,2],\"b\"]") == 0;
            capsa_sandbox_free(r);
        } else if (r) {
            capsa_sandbox_free(r);
            break;
        }
    }
    CHECK(ok, "a restore once the allocator lets it, complete");
    capsa_free(blob);
    capsa_sandbox_free(sb);
    capsa_engine_free(e);
    CHECK_INT(fa.live, 0, "nothing leaked through the failures");
}

int main(int argc, char **argv)
{
    self_path = argv[0];
    if (getenv("CAPSA_TEST_SEED"))
        rng_state = (uint32_t)strtoul(getenv("CAPSA_TEST_SEED"), NULL, 10);
    if (argc == 3 && strcmp(argv[1], "--child") == 0)
        return child_main(argv[2]);
    if (capsa_engine_new(NULL, &engine) != CAPSA_OK) {
        fprintf(stderr, "no engine\n");
        return 1;
    }
    RUN(js_state_round_trip);
    RUN(hundred_restores_are_independent);
    RUN(files_round_trip);
    RUN(mounts_are_reattached);
    RUN(budgets_and_tools_by_name);
    RUN(tools_with_slashes_rebound);
    RUN(tool_result_types_kept);
    RUN(only_between_runs);
    RUN(writer_and_no_instance);
    RUN(another_process);
    RUN(truncated_and_flipped);
    RUN(tampered_inside_a_valid_frame);
    RUN(successive_checkpoints);
    RUN(frames_kept_from_the_last_restore);
    RUN(frames_of_the_body);
    RUN(allocation_failures);
    capsa_engine_free(engine);
    return test_summary("test_checkpoint");
}
