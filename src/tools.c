/* Tools: a sandbox's registry of host tools and the calls its guest makes. Every
 * call is decided here, on the host, when the guest makes it: the tool must be
 * registered, its arguments must be strict JSON (a duplicate key is an error, so
 * that the policy and the tool cannot see different values), and the capability
 * policy must allow it. The tool then gets the very text the policy checked.
 * Allowed calls run inline (CAPSA_TOOL_INLINE), on the sandbox's pool of worker
 * threads, or are handed to the caller (tools without a callback: step mode);
 * their outcomes wait in a queue until the guest takes them. The registry writes
 * each tool's declarations to /tools (made by dts.c), the calls their audit lines
 * through audit.c; the policy is held here and lent to policy.c's public side. */
#include "tools.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "abi.h"
#include "audit.h"
#include "dts.h"
#include "json.h"
#include "rt.h"
#include "sandbox.h"
#include "schema.h"

#define DEFAULT_CONCURRENCY 8
#define DEFAULT_CALL_TIMEOUT_MS 30000
#define DEFAULT_MAX_ARGS (1u << 20)
#define DEFAULT_MAX_RESULT (16u << 20)
#define DEFAULT_MAX_DENIALS 1000
#define MIN_DEFAULT_PENDING (64u << 20)
#define MAX_MESSAGE 4096 /* bytes of a tool's error message kept */
#define MAX_CODE 48      /* bytes of an error code */
#define DECL_PATH_MAX (CAPSA__TOOL_NAME_MAX + 16) /* "/tools/<name>.d.ts" */

typedef struct tool {
    char *name, *flat, *description;
    char *schema; /* compact JSON text of the parameters' schema */
    char *returns; /* compact JSON text of the result's schema, or NULL */
    capsa__schema *validator; /* the same schema, compiled: every call is checked */
    capsa_tool_fn fn;
    void *ud;
    uint32_t flags;
    uint64_t timeout_ms;
} tool;

enum { CALL_QUEUED, CALL_RUNNING, CALL_EXTERNAL, CALL_DONE, CALL_OFFERED };

typedef struct call {
    uint32_t id;
    int state;
    int abandoned; /* the run no longer wants it: whoever holds it last frees it */
    int audited;
    tool *tool;    /* NULL when the call was refused before a tool was found */
    char *args;    /* the JSON text as the guest sent it (NUL-terminated) */
    size_t args_len;
    uint64_t start_ns, deadline_ns;
    int ok;
    char *out;     /* outcome: the result, or {"code","message"} */
    size_t out_len;
    int out_static;
    char code[MAX_CODE]; /* the error's code, for the audit */
    capsa__buf audit;    /* the audit line's head, written when the outcome is known */
    /* Bytes of the call counted in the tools' `held`: of its arguments and audit
       line (changed by the run's thread only), and of its outcome (changed by
       whoever sets it: the worker running the call, else the run's thread). */
    uint64_t charged, out_charged;
    struct call *next;   /* in the work queue or the done queue */
} call;

struct capsa__tools {
    capsa_sandbox *sb;
    const capsa_allocator *a;
    tool **tools;
    size_t n_tools, cap_tools;
    uint32_t generation;
    capsa__buf list;   /* the registry as JSON, for the guest */
    capsa__policy *policy;

    pthread_mutex_t lock;
    pthread_cond_t work_cv, done_cv;
    pthread_t *threads;
    size_t n_threads, max_threads, idle;
    int shutdown;
    call *work_head, *work_tail;
    call *done_head, *done_tail;

    /* Run's thread only: */
    call **calls;      /* the calls of the run not yet delivered */
    size_t n_calls;
    call *offered;     /* what tool_next offered */
    uint32_t next_id;
    uint64_t run, calls_made;
    uint64_t denials;    /* calls of the run refused so far */
    uint64_t unaudited;  /* calls refused at once after the denials ran out */
    uint64_t wake_ns;
    call **snap;       /* capsa_pending_*: the external calls at the last return */
    size_t n_snap;

    /* Any thread (atomic): bytes the calls hold, arguments, audit copies and
       results, bounded by max_pending (their `charged`, and results being
       handed over by a reply). */
    uint64_t held;
};

static const char oom_outcome[] = "{\"code\":\"out_of_memory\",\"message\":\"the host ran out of memory\"}";

/* ---- helpers ------------------------------------------------------------------------ */

static char *dup_str(const capsa_allocator *a, const char *s)
{
    return s ? capsa__strndup(a, s, strlen(s)) : NULL;
}

static uint64_t call_timeout_ms(const capsa__tools *t, const tool *tl)
{
    if (tl && tl->timeout_ms)
        return tl->timeout_ms;
    return t->sb->opts.tool_timeout_ms ? t->sb->opts.tool_timeout_ms : DEFAULT_CALL_TIMEOUT_MS;
}

static uint64_t max_args(const capsa__tools *t)
{
    return t->sb->opts.tool_max_args ? t->sb->opts.tool_max_args : DEFAULT_MAX_ARGS;
}

static uint64_t max_result(const capsa__tools *t)
{
    return t->sb->opts.tool_max_result ? t->sb->opts.tool_max_result : DEFAULT_MAX_RESULT;
}

static uint64_t max_denials(const capsa__tools *t)
{
    return t->sb->opts.tool_max_denials ? t->sb->opts.tool_max_denials : DEFAULT_MAX_DENIALS;
}

/* The budget of held bytes: tool_max_pending, or by default the guest's memory
   limit (the script could not hold more at once either), at least 64 MiB (so that
   a small guest's concurrent calls do not lose results that arrive together). */
static uint64_t max_pending(const capsa__tools *t)
{
    uint64_t mem = t->sb->opts.memory_limit;
    if (t->sb->opts.tool_max_pending)
        return t->sb->opts.tool_max_pending;
    return mem > MIN_DEFAULT_PENDING ? mem : MIN_DEFAULT_PENDING;
}

/* Counts n more bytes as held, if the budget has room: 0, or -1 (nothing counted). */
static int reserve(capsa__tools *t, uint64_t n)
{
    uint64_t now = __atomic_add_fetch(&t->held, n, __ATOMIC_RELAXED);
    if (now > max_pending(t) || now < n) {
        __atomic_sub_fetch(&t->held, n, __ATOMIC_RELAXED);
        return -1;
    }
    return 0;
}

static void release(capsa__tools *t, uint64_t n)
{
    __atomic_sub_fetch(&t->held, n, __ATOMIC_RELAXED);
}

/* Counts `now` bytes instead of the *charged ones. Never refused: what a call may
   grow to was reserved when it was made, and results reserve their bytes before
   they are copied. */
static void recharge(capsa__tools *t, uint64_t *charged, uint64_t now)
{
    if (now > *charged)
        __atomic_add_fetch(&t->held, now - *charged, __ATOMIC_RELAXED);
    else
        release(t, *charged - now);
    *charged = now;
}

/* Counts what c's arguments and audit line hold now (run's thread). */
static void charge_call(capsa__tools *t, call *c)
{
    recharge(t, &c->charged, (c->args ? c->args_len + 1 : 0) + c->audit.cap);
}

/* Counts what c's outcome holds now (whoever set it). */
static void charge_out(capsa__tools *t, call *c)
{
    recharge(t, &c->out_charged, c->out && !c->out_static ? c->out_len + 1 : 0);
}

/* Frees a tool of the registry and its strings; NULL is a no-op. */
static void tool_free(capsa__tools *t, tool *tl)
{
    if (!tl)
        return;
    capsa__free(t->a, tl->name);
    capsa__free(t->a, tl->flat);
    capsa__free(t->a, tl->description);
    capsa__free(t->a, tl->schema);
    capsa__free(t->a, tl->returns);
    capsa__schema_free(tl->validator);
    capsa__free(t->a, tl);
}

static void call_free(capsa__tools *t, call *c)
{
    if (!c)
        return;
    release(t, c->charged + c->out_charged);
    capsa__free(t->a, c->args);
    if (!c->out_static)
        capsa__free(t->a, c->out);
    capsa__buf_free(&c->audit, t->a);
    capsa__free(t->a, c);
}

/* Sets c's outcome to the error {code, message} (message[0..mlen)): what the
 * script's call rejects with. (The sandbox's own message is capsa__sandbox_errorf.) */
static void call_error(capsa__tools *t, call *c, const char *code, const char *message,
                       size_t mlen)
{
    const capsa_allocator *a = t->a;
    if (!c->out_static)
        capsa__free(a, c->out);
    c->out = NULL;
    c->out_static = 0;
    c->ok = 0;
    snprintf(c->code, sizeof(c->code), "%s", code);
    if (mlen > MAX_MESSAGE)
        mlen = MAX_MESSAGE;
    capsa__buf b = { 0 };
    capsa__buf_append_str(&b, a, "{\"code\":");
    capsa__json_quote(&b, a, code, strlen(code));
    capsa__buf_append_str(&b, a, ",\"message\":");
    capsa__json_quote(&b, a, message, mlen);
    capsa__buf_append_str(&b, a, "}");
    if (b.failed) {
        capsa__buf_free(&b, a);
        c->out = (char *)oom_outcome;
        c->out_len = sizeof(oom_outcome) - 1;
        c->out_static = 1;
    } else {
        c->out = b.data;
        c->out_len = b.len;
    }
    charge_out(t, c);
}

static void call_errorf(capsa__tools *t, call *c, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void call_errorf(capsa__tools *t, call *c, const char *code, const char *fmt, ...)
{
    char msg[CAPSA__POLICY_MSG_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    call_error(t, c, code, msg, n < 0 ? 0 : (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
}

/* Whether code is a usable error code: 1 to MAX_CODE - 1 bytes of [a-z0-9_]. */
static int valid_code(const char *code)
{
    size_t n = 0;
    for (; code[n]; n++) {
        char ch = code[n];
        if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_' ||
              (ch >= 'A' && ch <= 'Z')))
            return 0;
    }
    return n > 0 && n < MAX_CODE;
}

/* ---- the reply of a callback ------------------------------------------------------ */

struct capsa_tool_reply {
    capsa__tools *t;
    call *c;
    int done;
    int ok;
    char *out;
    size_t len;
    uint64_t reserved; /* bytes of out counted in the tools' `held` */
    char code[MAX_CODE];
    char *message;
    size_t message_len;
};

/* Fails reply r with code and the message msg[0..n) (copied; cut at MAX_MESSAGE). */
static void reply_fail(capsa_tool_reply *r, const char *code, const char *msg, size_t n)
{
    snprintf(r->code, sizeof(r->code), "%s", code);
    if (n > MAX_MESSAGE)
        n = MAX_MESSAGE;
    r->message = capsa__strndup(r->t->a, msg, n);
    r->message_len = r->message ? n : 0;
}

CAPSA_API int capsa_tool_reply_json(capsa_tool_reply *r, const char *json, size_t len)
{
    if (!r || r->done || (!json && len))
        return CAPSA_EINVAL;
    r->done = 1;
    char msg[320];
    if (len > max_result(r->t)) {
        int n = snprintf(msg, sizeof(msg), "the tool's result of %zu bytes is over the limit of %llu bytes",
                         len, (unsigned long long)max_result(r->t));
        reply_fail(r, "result_too_large", msg, (size_t)n);
        return CAPSA_ETOOBIG;
    }
    if (!capsa__json_valid(json ? json : "", len)) {
        static const char bad[] = "the tool's result is not valid JSON";
        reply_fail(r, "invalid_result", bad, sizeof(bad) - 1);
        return CAPSA_EINVAL;
    }
    /* Counted before it is copied, so that results the script does not take
       cannot pile up on the host beyond the budget. */
    if (reserve(r->t, (uint64_t)len + 1) != 0) {
        int n = snprintf(msg, sizeof(msg),
                         "the tool's result of %zu bytes was dropped: the host already holds %llu "
                         "bytes of this run's calls and results the script has not taken, and its "
                         "budget is %llu bytes (tool_max_pending)",
                         len, (unsigned long long)__atomic_load_n(&r->t->held, __ATOMIC_RELAXED),
                         (unsigned long long)max_pending(r->t));
        reply_fail(r, "resource_exhausted", msg, (size_t)n);
        return CAPSA_ETOOBIG;
    }
    r->out = capsa__strndup(r->t->a, json ? json : "", len);
    if (!r->out) {
        release(r->t, (uint64_t)len + 1);
        snprintf(r->code, sizeof(r->code), "out_of_memory");
        return CAPSA_ENOMEM;
    }
    r->reserved = (uint64_t)len + 1;
    r->ok = 1;
    r->len = len;
    return CAPSA_OK;
}

CAPSA_API int capsa_tool_reply_error(capsa_tool_reply *r, const char *code, const char *message)
{
    if (!r || r->done)
        return CAPSA_EINVAL;
    r->done = 1;
    if (!message)
        message = "the tool failed";
    reply_fail(r, code && valid_code(code) ? code : "tool_error", message, strlen(message));
    return CAPSA_OK;
}

CAPSA_API int capsa_tool_reply_cancelled(const capsa_tool_reply *r)
{
    if (!r || !r->c)
        return 0;
    pthread_mutex_lock(&r->t->lock);
    int cancelled = r->c->abandoned;
    pthread_mutex_unlock(&r->t->lock);
    return cancelled;
}

/* Runs the tool's callback for c (any thread) and puts the reply in *r. */
static void run_callback(capsa__tools *t, call *c, capsa_tool_reply *r)
{
    memset(r, 0, sizeof(*r));
    r->t = t;
    r->c = c;
    capsa_tool_call info = { sizeof(info), c->id, c->tool->name, c->args, c->args_len };
    c->tool->fn(c->tool->ud, &info, r);
}

/* Makes the reply c's outcome (and frees what the reply held). */
static void apply_reply(capsa__tools *t, call *c, capsa_tool_reply *r)
{
    if (r->done && r->ok) {
        if (!c->out_static)
            capsa__free(t->a, c->out);
        c->out = r->out;
        c->out_len = r->len;
        c->out_static = 0;
        c->ok = 1;
        c->code[0] = '\0';
        c->out_charged += r->reserved; /* the result's bytes now belong to c */
        charge_out(t, c);
    } else if (r->done && r->code[0]) {
        call_error(t, c, r->code, r->message ? r->message : "the tool failed",
                   r->message ? r->message_len : 15);
    } else {
        call_errorf(t, c, "tool_error", "tool '%s' gave no result", c->tool->name);
    }
    capsa__free(t->a, r->message);
}

/* Frees what a reply that nobody wants any more holds. */
static void discard_reply(capsa__tools *t, capsa_tool_reply *r)
{
    if (r->ok) {
        capsa__free(t->a, r->out);
        release(t, r->reserved);
    }
    capsa__free(t->a, r->message);
}

/* ---- workers ------------------------------------------------------------------------- */

/* Appends c to the queue *head..*tail (the work queue or the done queue). */
static void enqueue(call **head, call **tail, call *c)
{
    c->next = NULL;
    if (*tail)
        (*tail)->next = c;
    else
        *head = c;
    *tail = c;
}

static void push_done(capsa__tools *t, call *c)
{
    c->state = CALL_DONE;
    enqueue(&t->done_head, &t->done_tail, c);
}

static void *worker_main(void *arg)
{
    capsa__tools *t = arg;
    pthread_mutex_lock(&t->lock);
    for (;;) {
        while (!t->shutdown && !t->work_head) {
            t->idle++;
            pthread_cond_wait(&t->work_cv, &t->lock);
            t->idle--;
        }
        call *c = t->work_head;
        if (!c)
            break; /* shut down and nothing left */
        t->work_head = c->next;
        if (!t->work_head)
            t->work_tail = NULL;
        if (c->abandoned) {
            pthread_mutex_unlock(&t->lock);
            call_free(t, c);
            pthread_mutex_lock(&t->lock);
            continue;
        }
        c->state = CALL_RUNNING;
        pthread_mutex_unlock(&t->lock);
        capsa_tool_reply r;
        run_callback(t, c, &r);
        pthread_mutex_lock(&t->lock);
        if (c->abandoned) {
            pthread_mutex_unlock(&t->lock);
            discard_reply(t, &r);
            call_free(t, c);
            pthread_mutex_lock(&t->lock);
            continue;
        }
        apply_reply(t, c, &r);
        push_done(t, c);
        pthread_cond_signal(&t->done_cv);
    }
    pthread_mutex_unlock(&t->lock);
    return NULL;
}

/* Queues c for a worker, starting one when none is idle and the pool may grow.
 * Returns 0, or -1 when no worker exists and none could be started. */
static int dispatch(capsa__tools *t, call *c)
{
    pthread_mutex_lock(&t->lock);
    c->state = CALL_QUEUED;
    enqueue(&t->work_head, &t->work_tail, c);
    size_t queued = 0;
    for (call *q = t->work_head; q && queued <= t->idle; q = q->next)
        queued++;
    if (queued > t->idle && t->n_threads < t->max_threads) {
        if (!t->threads)
            t->threads = capsa__malloc(t->a, t->max_threads * sizeof(*t->threads));
        if (t->threads && pthread_create(&t->threads[t->n_threads], NULL, worker_main, t) == 0)
            t->n_threads++;
    }
    int ok = t->n_threads > 0;
    if (!ok) {
        /* Take it back: nobody would ever run it. */
        t->work_head = t->work_tail = NULL;
    } else {
        pthread_cond_signal(&t->work_cv);
    }
    pthread_mutex_unlock(&t->lock);
    return ok ? 0 : -1;
}

/* ---- state --------------------------------------------------------------------------- */

static int rebuild_list(capsa__tools *t);

int capsa__tools_new(capsa_sandbox *sb, capsa__tools **out)
{
    *out = NULL;
    capsa__tools *t = capsa__malloc(sb->alloc, sizeof(*t));
    if (!t)
        return CAPSA_ENOMEM;
    memset(t, 0, sizeof(*t));
    t->sb = sb;
    t->a = sb->alloc;
    t->next_id = 1;
    t->max_threads = sb->opts.tool_concurrency ? sb->opts.tool_concurrency : DEFAULT_CONCURRENCY;
    if (t->max_threads > CAPSA__TOOLS_MAX_THREADS)
        t->max_threads = CAPSA__TOOLS_MAX_THREADS;
    if (capsa__policy_new(sb->alloc, &t->policy) != CAPSA_OK || rebuild_list(t) != 0) {
        capsa__policy_free(t->policy);
        capsa__buf_free(&t->list, t->a);
        capsa__free(sb->alloc, t);
        return CAPSA_ENOMEM;
    }
    pthread_mutex_init(&t->lock, NULL);
    pthread_cond_init(&t->work_cv, NULL);
    pthread_cond_init(&t->done_cv, NULL);
    *out = t;
    return CAPSA_OK;
}

/* Forgets every call of the run: those a worker holds are left to it. */
static void drop_calls(capsa__tools *t)
{
    pthread_mutex_lock(&t->lock);
    for (size_t i = 0; i < t->n_calls; i++) {
        call *c = t->calls[i];
        if (c->state == CALL_QUEUED || c->state == CALL_RUNNING) {
            c->abandoned = 1;
            t->calls[i] = NULL;
        }
    }
    t->done_head = t->done_tail = NULL;
    pthread_mutex_unlock(&t->lock);
    for (size_t i = 0; i < t->n_calls; i++)
        call_free(t, t->calls[i]);
    t->n_calls = 0;
    t->offered = NULL;
    t->n_snap = 0;
    t->wake_ns = 0;
}

void capsa__tools_free(capsa__tools *t)
{
    if (!t)
        return;
    drop_calls(t);
    pthread_mutex_lock(&t->lock);
    t->shutdown = 1;
    pthread_cond_broadcast(&t->work_cv);
    pthread_mutex_unlock(&t->lock);
    for (size_t i = 0; i < t->n_threads; i++)
        pthread_join(t->threads[i], NULL);
    for (call *c = t->work_head; c;) {
        call *next = c->next;
        call_free(t, c);
        c = next;
    }
    pthread_mutex_destroy(&t->lock);
    pthread_cond_destroy(&t->work_cv);
    pthread_cond_destroy(&t->done_cv);
    for (size_t i = 0; i < t->n_tools; i++)
        tool_free(t, t->tools[i]);
    capsa__free(t->a, t->tools);
    capsa__free(t->a, t->threads);
    capsa__free(t->a, t->calls);
    capsa__free(t->a, t->snap);
    capsa__buf_free(&t->list, t->a);
    capsa__policy_free(t->policy);
    capsa__free(t->a, t);
}

/* ---- the registry ---------------------------------------------------------------------- */

/* The tool that name[0..len) names: its name, with either separator ("a/b" is
 * "a.b"), or else its flat name. Registration keeps both unique across tools. */
static tool *find_tool(const capsa__tools *t, const char *name, size_t len)
{
    for (size_t i = 0; i < t->n_tools; i++) {
        tool *tl = t->tools[i];
        if (capsa__name_equal(tl->name, strlen(tl->name), name, len))
            return tl;
    }
    for (size_t i = 0; i < t->n_tools; i++) {
        tool *tl = t->tools[i];
        if (strlen(tl->flat) == len && memcmp(tl->flat, name, len) == 0)
            return tl;
    }
    return NULL;
}

/* Checks a tool name: segments of [A-Za-z0-9_-] joined by '.' or '/' (the same
 * separator), the first starting with a letter or '_', at most
 * CAPSA__TOOL_NAME_MAX bytes. Fills canon (the name with '.' as its separator:
 * what the registry, the policy, the audit and the guest call it) and flat (with
 * the separators and '-' as '_'). Returns 0 or -1. */
static int check_name(const char *name, char *canon, char *flat)
{
    size_t n = strlen(name);
    if (n == 0 || n > CAPSA__TOOL_NAME_MAX)
        return -1;
    if (!((name[0] >= 'a' && name[0] <= 'z') || (name[0] >= 'A' && name[0] <= 'Z') || name[0] == '_'))
        return -1;
    for (size_t i = 0; i < n; i++) {
        char ch = name[i];
        int word = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                   ch == '_' || ch == '-';
        if (capsa__name_sep(ch)) {
            if (i + 1 == n || capsa__name_sep(name[i + 1]))
                return -1;
        } else if (!word) {
            return -1;
        }
        canon[i] = capsa__name_sep(ch) ? '.' : ch;
        flat[i] = capsa__name_sep(ch) || ch == '-' ? '_' : ch;
    }
    canon[n] = flat[n] = '\0';
    return 0;
}

static int rebuild_list(capsa__tools *t)
{
    capsa__buf b = { 0 };
    capsa__buf_append_str(&b, t->a, "[");
    for (size_t i = 0; i < t->n_tools && !b.failed; i++) {
        tool *tl = t->tools[i];
        capsa__buf_append_str(&b, t->a, i ? ",{\"name\":" : "{\"name\":");
        capsa__json_quote(&b, t->a, tl->name, strlen(tl->name));
        capsa__buf_append_str(&b, t->a, ",\"flat\":");
        capsa__json_quote(&b, t->a, tl->flat, strlen(tl->flat));
        capsa__buf_append_str(&b, t->a, ",\"description\":");
        capsa__json_quote(&b, t->a, tl->description, strlen(tl->description));
        capsa__buf_append_str(&b, t->a, ",\"parameters\":");
        capsa__buf_append_str(&b, t->a, tl->schema);
        capsa__buf_append_str(&b, t->a, "}");
    }
    capsa__buf_append_str(&b, t->a, "]");
    if (b.failed) {
        capsa__buf_free(&b, t->a);
        return -1;
    }
    capsa__buf_free(&t->list, t->a);
    t->list = b;
    return 0;
}

/* The declaration file of tl, or of every tool (tl NULL), into *out (capsa__dts_write). */
static int tools_dts(const capsa__tools *t, const tool *tl, capsa__buf *out)
{
    capsa__dts_tool *list = capsa__malloc(t->a, t->n_tools * sizeof(*list));
    if (!list)
        return CAPSA_ENOMEM;
    const capsa__dts_tool *one = NULL;
    for (size_t i = 0; i < t->n_tools; i++) {
        const tool *r = t->tools[i];
        list[i] = (capsa__dts_tool){ r->name, r->flat, r->description, r->schema, r->returns };
        if (r == tl)
            one = &list[i];
    }
    int rc = capsa__dts_write(list, t->n_tools, one, out);
    capsa__free(t->a, list);
    return rc;
}

/* Writes /tools/<name>.d.ts for tl and /tools/index.d.ts for all (as the host:
 * /tools is read-only for the guest). Returns 0, or a WASI errno with path naming
 * the file that failed. */
static int write_declarations(capsa__tools *t, const tool *tl, char path[DECL_PATH_MAX])
{
    capsa__buf b = { 0 };
    snprintf(path, DECL_PATH_MAX, "/tools/%s.d.ts", tl->name);
    int err = tools_dts(t, tl, &b) == CAPSA_OK
                  ? capsa__vfs_write_file(t->sb->vfs, path, b.data, b.len) : CAPSA__WASI_ENOMEM;
    if (!err) {
        snprintf(path, DECL_PATH_MAX, "/tools/index.d.ts");
        err = tools_dts(t, NULL, &b) == CAPSA_OK
                  ? capsa__vfs_write_file(t->sb->vfs, path, b.data, b.len) : CAPSA__WASI_ENOMEM;
    }
    capsa__buf_free(&b, &capsa__default_allocator);
    return err;
}

CAPSA_API void capsa_tool_def_init(capsa_tool_def *def)
{
    if (!def)
        return;
    memset(def, 0, sizeof(*def));
    def->struct_size = sizeof(*def);
}

/* What is wrong with the top of a tool's parameters schema, or NULL. Arguments are
 * always a JSON object, so the schema must describe one: it is an object whose
 * "type", when given, is "object". The rest is the validator's (schema.c), which
 * refuses what it cannot check. */
static const char *schema_problem(const json_t *schema)
{
    if (!json_is_object(schema))
        return "the schema must be a JSON object";
    const json_t *type = json_object_get(schema, "type");
    if (type && !(json_is_string(type) && strcmp(json_string_value(type), "object") == 0))
        return "\"type\" must be \"object\": a tool's arguments are a JSON object";
    return NULL;
}

/* Compiles the schema text given as what ("parameters", which must describe an
 * object and is {"type":"object"} when NULL, or "returns") of tool name into
 * *validator and its compact text into *text (the C library's malloc). Returns
 * CAPSA_OK, or CAPSA_EINVAL / CAPSA_ENOMEM with the sandbox's message set and
 * nothing kept. */
static int compile_schema(capsa_sandbox *sb, const char *given, const char *what,
                          const char *name, capsa__schema **validator, char **text)
{
    *validator = NULL;
    *text = NULL;
    int params = strcmp(what, "parameters") == 0;
    json_error_t jerr;
    json_t *schema;
    if (given) {
        schema = capsa__json_load_strict(given, strlen(given), 0, &jerr);
        const char *bad = !schema ? jerr.text
                          : params ? schema_problem(schema)
                          : json_is_object(schema) ? NULL : "the schema must be a JSON object";
        if (bad) {
            capsa__sandbox_errorf(sb, "tool '%s': %s: %s", name, what, bad);
            json_decref(schema);
            return schema || json_error_code(&jerr) != json_error_out_of_memory ? CAPSA_EINVAL
                                                                                : CAPSA_ENOMEM;
        }
    } else {
        schema = json_pack("{s:s}", "type", "object");
    }
    char err[CAPSA__SCHEMA_MSG_MAX];
    int rc = schema ? capsa__schema_compile(sb->alloc, schema, 0, validator, err, sizeof(err))
                    : CAPSA_ENOMEM;
    if (rc == CAPSA_OK && !(*text = capsa__json_dumps(schema, JSON_COMPACT))) {
        capsa__schema_free(*validator);
        *validator = NULL;
        rc = CAPSA_ENOMEM;
    }
    json_decref(schema);
    if (rc == CAPSA_EINVAL)
        capsa__sandbox_errorf(sb, "tool '%s': %s: %s", name, what, err);
    else if (rc != CAPSA_OK)
        capsa__sandbox_errorf(sb, "out of memory adding tool '%s'", name);
    return rc;
}

/* Checks definition d (the caller's, copied into the library's struct) and makes
 * its tool, not yet registered: CAPSA_OK with *out, or a code with the sandbox's
 * message saying why (a bad name, flags or schema; a name taken; no memory). */
static int tool_make(capsa__tools *t, const capsa_tool_def *d, tool **out)
{
    capsa_sandbox *sb = t->sb;
    *out = NULL;
    char canon[CAPSA__TOOL_NAME_MAX + 1], flat[CAPSA__TOOL_NAME_MAX + 1];
    if (!d->name || check_name(d->name, canon, flat) != 0) {
        capsa__sandbox_errorf(sb, "invalid tool name '%.200s': segments of letters, digits, '_' "
                                  "and '-' joined by '.' (or '/', the same separator), starting "
                                  "with a letter or '_', at most %d bytes",
                              d->name ? d->name : "(null)", CAPSA__TOOL_NAME_MAX);
        return CAPSA_EINVAL;
    }
    if (d->flags & ~(uint32_t)CAPSA_TOOL_INLINE) {
        capsa__sandbox_errorf(sb, "tool '%s': unknown flags 0x%x", d->name, d->flags);
        return CAPSA_EINVAL;
    }
    if ((d->flags & CAPSA_TOOL_INLINE) && !d->fn) {
        capsa__sandbox_errorf(sb, "tool '%s': an inline tool needs a callback", d->name);
        return CAPSA_EINVAL;
    }
    /* "a/b" and "a.b" are one name; flat names must not collide either. */
    for (size_t i = 0; i < t->n_tools; i++) {
        if (strcmp(t->tools[i]->name, canon) == 0 || strcmp(t->tools[i]->flat, flat) == 0) {
            capsa__sandbox_errorf(sb, "tool '%s': the name%s is taken by tool '%s'", d->name,
                                  strcmp(t->tools[i]->name, canon) == 0 ? "" : " (its flat form)",
                                  t->tools[i]->name);
            return CAPSA_EEXIST;
        }
    }
    /* The schema: parsed strictly, compiled once, kept compact for the guest. */
    capsa__schema *validator, *unused;
    char *schema_text, *returns_text = NULL;
    int rc = compile_schema(sb, d->parameters, "parameters", d->name, &validator, &schema_text);
    if (rc != CAPSA_OK)
        return rc;
    /* The result's schema is only declared: compiled to refuse what the
       declarations could not read, the validator dropped. */
    if (d->returns) {
        rc = compile_schema(sb, d->returns, "returns", d->name, &unused, &returns_text);
        capsa__schema_free(unused);
        if (rc != CAPSA_OK) {
            free(schema_text);
            capsa__schema_free(validator);
            return rc;
        }
    }
    tool *tl = capsa__malloc(t->a, sizeof(*tl));
    if (tl) {
        memset(tl, 0, sizeof(*tl));
        tl->name = dup_str(t->a, canon);
        tl->flat = dup_str(t->a, flat);
        tl->description = dup_str(t->a, d->description ? d->description : "");
        tl->schema = dup_str(t->a, schema_text);
        tl->returns = returns_text ? dup_str(t->a, returns_text) : NULL;
        tl->validator = validator;
        validator = NULL;
        tl->fn = d->fn;
        tl->ud = d->ud;
        tl->flags = d->flags;
        tl->timeout_ms = d->timeout_ms;
    }
    int want_returns = returns_text != NULL;
    free(schema_text);
    free(returns_text);
    capsa__schema_free(validator); /* not NULL only when tl could not be allocated */
    if (!tl || !tl->name || !tl->flat || !tl->description || !tl->schema ||
        (want_returns && !tl->returns)) {
        tool_free(t, tl);
        capsa__sandbox_errorf(sb, "out of memory adding tool '%s'", d->name);
        return CAPSA_ENOMEM;
    }
    *out = tl;
    return CAPSA_OK;
}

/* Appends tl to the registry (taking it) or, out of memory, frees it. */
static int tool_append(capsa__tools *t, tool *tl)
{
    if (t->n_tools == t->cap_tools) {
        size_t cap = t->cap_tools ? t->cap_tools * 2 : 8;
        tool **nt = capsa__malloc(t->a, cap * sizeof(*nt));
        if (!nt) {
            capsa__sandbox_errorf(t->sb, "out of memory adding tool '%s'", tl->name);
            tool_free(t, tl);
            return CAPSA_ENOMEM;
        }
        if (t->n_tools)
            memcpy(nt, t->tools, t->n_tools * sizeof(*nt));
        capsa__free(t->a, t->tools);
        t->tools = nt;
        t->cap_tools = cap;
    }
    t->tools[t->n_tools++] = tl;
    return CAPSA_OK;
}

CAPSA_API int capsa_tool_add(capsa_sandbox *sb, const capsa_tool_def *def)
{
    if (!sb || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    capsa_tool_def d;
    capsa_tool_def_init(&d);
    if (!def || capsa__struct_in(&d, sizeof(d), def) != 0) {
        capsa__sandbox_errorf(sb, "capsa_tool_add: no definition, or one of an unknown size");
        return CAPSA_EINVAL;
    }
    capsa__tools *t = sb->tools;
    tool *tl;
    int rc = tool_make(t, &d, &tl);
    if (rc == CAPSA_OK)
        rc = tool_append(t, tl);
    if (rc != CAPSA_OK)
        return rc;
    char path[DECL_PATH_MAX];
    int err = rebuild_list(t) == 0 ? write_declarations(t, tl, path) : CAPSA__WASI_ENOMEM;
    if (err) {
        rc = capsa__vfs_status(err);
        t->n_tools--;
        rebuild_list(t);
        tool_free(t, tl);
        if (rc == CAPSA_ENOMEM)
            capsa__sandbox_errorf(sb, "tool '%s': cannot write its declarations: out of memory",
                                  d.name);
        else
            capsa__sandbox_errorf(sb, "tool '%s': cannot write its declarations: write '%.300s': %s",
                                  d.name, path, capsa__vfs_strerror(err));
        return rc;
    }
    t->generation++;
    return CAPSA_OK;
}

/* ---- checkpoints ----------------------------------------------------------------------- */

size_t capsa__tools_count(const capsa__tools *t)
{
    return t->n_tools;
}

void capsa__tools_saved(const capsa__tools *t, size_t i, capsa__tool_saved *out)
{
    const tool *tl = t->tools[i];
    *out = (capsa__tool_saved){ tl->name, tl->description, tl->schema, tl->returns, tl->flags,
                                tl->timeout_ms, tl->fn != NULL };
}

uint32_t capsa__tools_next_id(const capsa__tools *t)
{
    return t->next_id;
}

/* Whether a definition's name names the saved tool canon (kept canonical, '.'
 * as its separator): with '/' or '.' between segments, as capsa_tool_add takes
 * it ("a/b" registers "a.b"). */
static int same_tool_name(const char *given, const char *canon)
{
    for (; *given && *canon; given++, canon++) {
        if (*given != *canon && !(capsa__name_sep(*given) && *canon == '.'))
            return 0;
    }
    return *given == *canon;
}

int capsa__tools_restore(capsa__tools *t, const capsa__tool_saved *saved, size_t n,
                         const capsa_tool_def *const *defs, size_t n_defs, uint32_t generation,
                         uint32_t next_id)
{
    capsa_sandbox *sb = t->sb;
    if (next_id == 0 || next_id > INT32_MAX || (n && generation == 0)) {
        capsa__sandbox_errorf(sb, "the checkpoint's tool registry is malformed (call id %u, "
                                  "generation %u)", next_id, generation);
        return CAPSA_EINVAL;
    }
    for (size_t i = 0; i < n; i++) {
        const capsa__tool_saved *s = &saved[i];
        capsa_tool_def d;
        capsa_tool_def_init(&d);
        for (size_t k = 0; k < n_defs; k++) {
            capsa_tool_def given;
            capsa_tool_def_init(&given);
            if (!defs[k] || capsa__struct_in(&given, sizeof(given), defs[k]) != 0 || !given.name) {
                capsa__sandbox_errorf(sb, "restore: tool definition %zu is NULL, has no name or "
                                          "has an unknown size", k);
                return CAPSA_EINVAL;
            }
            if (same_tool_name(given.name, s->name)) {
                d.fn = given.fn;
                d.ud = given.ud;
                break;
            }
        }
        if (s->has_fn && !d.fn) {
            capsa__sandbox_errorf(sb, "the checkpoint's tool '%.200s' had a callback, and no "
                                      "definition given to the restore binds one to it: give one "
                                      "named '%.200s'", s->name, s->name);
            return CAPSA_ENOENT;
        }
        d.name = s->name;
        d.description = s->description;
        d.parameters = s->schema;
        d.returns = s->returns;
        d.flags = s->flags;
        d.timeout_ms = s->timeout_ms;
        tool *tl;
        int rc = tool_make(t, &d, &tl);
        if (rc == CAPSA_OK)
            rc = tool_append(t, tl);
        if (rc != CAPSA_OK)
            return rc == CAPSA_ENOMEM ? rc : CAPSA_EINVAL;
    }
    if (rebuild_list(t) != 0) {
        capsa__sandbox_errorf(sb, "out of memory restoring the tools");
        return CAPSA_ENOMEM;
    }
    t->generation = generation;
    t->next_id = next_id;
    return CAPSA_OK;
}

uint32_t capsa__tools_generation(const capsa__tools *t)
{
    return t->generation;
}

const char *capsa__tools_list(const capsa__tools *t, size_t *len)
{
    *len = t->list.len;
    return t->list.data;
}

void capsa__tools_set_wake(capsa__tools *t, uint64_t wake_ns)
{
    t->wake_ns = wake_ns;
}

capsa__policy *capsa__tools_policy(const capsa__tools *t)
{
    return t->policy;
}

void capsa__tools_set_policy(capsa__tools *t, capsa__policy *p)
{
    capsa__policy_free(t->policy);
    t->policy = p;
}

const char *capsa__tools_find(const capsa__tools *t, const char *name)
{
    const tool *tl = find_tool(t, name, strlen(name));
    return tl ? tl->name : NULL;
}

/* ---- calls ----------------------------------------------------------------------------- */

/* Begins c's audit line (capsa__audit_call_begin) and counts what it holds. */
static void audit_head(capsa__tools *t, call *c, const char *name, size_t name_len,
                       const char *args, size_t args_len, const char *decision,
                       const char *capability, const char *reason, json_t *parsed)
{
    capsa__audit_call_begin(t->sb, &c->audit, t->run, c->id, name, name_len, args, args_len,
                            decision, capability, reason, parsed);
    charge_call(t, c);
}

/* Completes c's audit line with its outcome and writes it, once (run's thread). */
static void audit_finish(capsa__tools *t, call *c, const char *outcome_override)
{
    if (c->audited)
        return;
    c->audited = 1;
    int ok = c->ok && !outcome_override;
    capsa__audit_call_end(t->sb, &c->audit, c->start_ns,
                          outcome_override ? outcome_override : ok ? "ok" : "error",
                          ok ? NULL : outcome_override ? "cancelled" : c->code, c->out_len);
    charge_call(t, c);
}

/* Adds c to the run's table. */
static int table_add(capsa__tools *t, call *c)
{
    if (!t->calls) {
        t->calls = capsa__malloc(t->a, CAPSA__TOOLS_MAX_CALLS * sizeof(*t->calls));
        if (!t->calls)
            return -1;
    }
    t->calls[t->n_calls++] = c;
    return 0;
}

static void table_remove(capsa__tools *t, call *c)
{
    for (size_t i = 0; i < t->n_calls; i++) {
        if (t->calls[i] == c) {
            t->calls[i] = t->calls[--t->n_calls];
            return;
        }
    }
}

/* Queues c's outcome for the guest: it is ready at once. */
static int32_t ready_now(capsa__tools *t, call *c)
{
    pthread_mutex_lock(&t->lock);
    push_done(t, c);
    pthread_mutex_unlock(&t->lock);
    return (int32_t)c->id;
}

/* Records a refused call: its error is its outcome, ready at once. The run's
 * refusals are counted; the one that spends the last of tool_max_denials is
 * followed by a summary line, since the calls after it get none of their own. */
static int32_t refuse(capsa__tools *t, call *c)
{
    audit_finish(t, c, NULL);
    if (++t->denials == max_denials(t)) {
        char extra[400];
        snprintf(extra, sizeof(extra),
                 "\"denied\":%llu,\"message\":\"%llu calls of this run were refused: every further "
                 "call of the run fails with resource_exhausted, without a line of its own (run_end "
                 "counts them as tool_calls_unaudited)\"",
                 (unsigned long long)t->denials, (unsigned long long)t->denials);
        capsa__audit_event(t->sb, "tool_denials", t->run, extra);
    }
    return ready_now(t, c);
}

/* The run's refusals are spent: c fails at once, unchecked and unaudited. */
static int32_t refuse_unaudited(capsa__tools *t, call *c)
{
    c->audited = 1;
    t->unaudited++;
    call_errorf(t, c, "resource_exhausted",
                "this run already had %llu tool calls refused: its further calls are refused "
                "without being checked", (unsigned long long)t->denials);
    return ready_now(t, c);
}

/* What a call may hold before its outcome: its arguments, their copy in its audit
 * line (or what the line says instead), and the line's other fields. */
static uint64_t call_reserve(size_t args_len)
{
    return 2 * (uint64_t)args_len + 1024 + CAPSA__POLICY_MSG_MAX;
}

int32_t capsa__tools_call(capsa__tools *t, const char *name, size_t name_len, const char *args,
                          size_t args_len)
{
    const capsa_allocator *a = t->a;
    if (t->n_calls >= CAPSA__TOOLS_MAX_CALLS)
        return CAPSA_TOOL_EBUSY;
    call *c = capsa__malloc(a, sizeof(*c));
    if (!c)
        return CAPSA_TOOL_EBUSY;
    memset(c, 0, sizeof(*c));
    if (table_add(t, c) != 0) {
        capsa__free(a, c);
        return CAPSA_TOOL_EBUSY;
    }
    c->id = t->next_id;
    t->next_id = t->next_id >= INT32_MAX ? 1 : t->next_id + 1;
    c->start_ns = capsa__rt_now_ns();
    t->calls_made++;
    if (name_len > CAPSA__TOOL_NAME_MAX)
        name_len = CAPSA__TOOL_NAME_MAX + 1; /* enough to say it is too long */

    if (t->denials >= max_denials(t))
        return refuse_unaudited(t, c);
    if (args_len > max_args(t)) {
        audit_head(t, c, name, name_len, args, args_len, "denied", NULL, "arguments too large",
                   NULL);
        call_errorf(t, c, "invalid_arguments",
                    "the arguments (%zu bytes of JSON) are over the limit of %llu bytes", args_len,
                    (unsigned long long)max_args(t));
        return refuse(t, c);
    }
    /* Counted before anything is copied: calls whose outcomes the script does not
       take cannot pile up on the host beyond the budget. */
    uint64_t need = call_reserve(args_len);
    if (reserve(t, need) != 0) {
        audit_head(t, c, name, name_len, args, args_len, "denied", NULL,
                   "over the host's budget of bytes held for tool calls", NULL);
        call_errorf(t, c, "resource_exhausted",
                    "the call was refused: the host already holds %llu bytes of this run's calls "
                    "and results the script has not taken, and its budget is %llu bytes "
                    "(tool_max_pending)",
                    (unsigned long long)__atomic_load_n(&t->held, __ATOMIC_RELAXED),
                    (unsigned long long)max_pending(t));
        return refuse(t, c);
    }
    c->charged = need; /* until audit_head counts what it holds */
    c->args = capsa__strndup(a, args, args_len);
    if (!c->args) {
        table_remove(t, c);
        call_free(t, c);
        return CAPSA_TOOL_EBUSY;
    }
    c->args_len = args_len;

    tool *tl = name_len <= CAPSA__TOOL_NAME_MAX ? find_tool(t, name, name_len) : NULL;
    if (!tl) {
        audit_head(t, c, name, name_len, args, args_len, "denied", NULL, "unknown tool", NULL);
        capsa__buf quoted = { 0 };
        capsa__json_quote(&quoted, a, name, name_len > 200 ? 200 : name_len);
        call_errorf(t, c, "unknown_tool", "No tool named %s is registered",
                    quoted.data ? quoted.data : "?");
        capsa__buf_free(&quoted, a);
        return refuse(t, c);
    }
    c->tool = tl;
    c->deadline_ns = c->start_ns + call_timeout_ms(t, tl) * 1000000u;
    if (c->deadline_ns < c->start_ns)
        c->deadline_ns = UINT64_MAX;

    /* The exact text, parsed strictly: what the policy checks is what the tool gets. */
    json_error_t jerr;
    json_t *parsed = capsa__json_load_strict(args, args_len, 0, &jerr);
    if (!parsed || !json_is_object(parsed)) {
        audit_head(t, c, tl->name, strlen(tl->name), args, args_len, "denied", NULL,
                   "invalid arguments", NULL);
        if (!parsed && json_error_code(&jerr) == json_error_numeric_overflow)
            call_errorf(t, c, "invalid_arguments",
                        "the arguments of '%s' hold a number the host cannot compare exactly "
                        "(integers must fit in 64 bits, reals in a double): %s; pass it as a string",
                        tl->name, jerr.text);
        else if (!parsed)
            call_errorf(t, c, "invalid_arguments",
                        "the arguments of '%s' are not strict JSON: %s (line %d, column %d)",
                        tl->name, jerr.text, jerr.line, jerr.column);
        else
            call_errorf(t, c, "invalid_arguments", "the arguments of '%s' must be a JSON object",
                        tl->name);
        json_decref(parsed);
        return refuse(t, c);
    }
    /* The tool's schema, before the policy: a call it refuses spends no budget. */
    char why[CAPSA__SCHEMA_MSG_MAX];
    int valid = capsa__schema_validate(tl->validator, parsed, why, sizeof(why));
    if (valid != CAPSA_OK) {
        int oom = valid == CAPSA_ENOMEM;
        audit_head(t, c, tl->name, strlen(tl->name), args, args_len, "denied", NULL,
                   oom ? "out of memory checking the arguments" : why, parsed);
        json_decref(parsed);
        if (oom)
            call_errorf(t, c, "out_of_memory", "the host ran out of memory checking the arguments "
                                               "of '%s'", tl->name);
        else
            call_errorf(t, c, "invalid_arguments", "the arguments of '%s' do not match its "
                                                   "schema: %s", tl->name, why);
        return refuse(t, c);
    }
    capsa__decision d;
    capsa__policy_check(t->policy, tl->name, parsed, &d);
    const char *pattern = d.capability >= 0 ? capsa__policy_pattern(t->policy, (size_t)d.capability)
                                            : NULL;
    if (!d.allowed) {
        audit_head(t, c, tl->name, strlen(tl->name), args, args_len, "denied", pattern, d.message,
                   parsed);
        json_decref(parsed);
        call_error(t, c, "permission_denied", d.message, strlen(d.message));
        return refuse(t, c);
    }
    audit_head(t, c, tl->name, strlen(tl->name), args, args_len, "allowed", pattern, NULL,
               parsed);
    json_decref(parsed);
    /* Fail closed: a call the audit trail could not record does not happen. */
    const char *full = capsa__audit_no_room(t->sb, (c->audit.data ? c->audit.len : c->args_len) + 512);
    if (full) {
        capsa__buf_free(&c->audit, a);
        audit_head(t, c, tl->name, strlen(tl->name), args, args_len, "denied", pattern,
                   "audit log full", NULL);
        call_errorf(t, c, "audit_unavailable",
                    "the call to '%s' was refused: the audit trail cannot record it (%s)", tl->name,
                    full);
        return refuse(t, c);
    }
    if (!tl->fn) {
        c->state = CALL_EXTERNAL; /* the caller resolves it (step mode) */
        return (int32_t)c->id;
    }
    if (tl->flags & CAPSA_TOOL_INLINE) {
        capsa_tool_reply r;
        run_callback(t, c, &r);
        apply_reply(t, c, &r);
        return ready_now(t, c);
    }
    if (dispatch(t, c) != 0) {
        call_errorf(t, c, "resource_exhausted", "no worker thread could be started for '%s'",
                    tl->name);
        return refuse(t, c);
    }
    return (int32_t)c->id;
}

int capsa__tools_next(capsa__tools *t, uint32_t *id, uint32_t *ok, uint32_t *len)
{
    if (t->offered) {
        /* Offered again (the guest did not take it): the same one. */
        *id = t->offered->id;
        *ok = (uint32_t)t->offered->ok;
        *len = (uint32_t)t->offered->out_len;
        return 1;
    }
    pthread_mutex_lock(&t->lock);
    call *c = t->done_head;
    if (c) {
        t->done_head = c->next;
        if (!t->done_head)
            t->done_tail = NULL;
        c->state = CALL_OFFERED;
    }
    pthread_mutex_unlock(&t->lock);
    if (!c)
        return 0;
    if (c->out_len > UINT32_MAX / 2) {
        call_errorf(t, c, "result_too_large", "the result does not fit in guest memory");
    }
    t->offered = c;
    *id = c->id;
    *ok = (uint32_t)c->ok;
    *len = (uint32_t)c->out_len;
    return 1;
}

int capsa__tools_take(capsa__tools *t, uint32_t id, uint8_t *dst, uint32_t len)
{
    call *c = t->offered;
    if (!c || c->id != id || (dst && len != c->out_len) || (!dst && len != 0))
        return -1;
    if (dst)
        memcpy(dst, c->out, len);
    audit_finish(t, c, NULL);
    t->offered = NULL;
    table_remove(t, c);
    for (size_t i = 0; i < t->n_snap; i++) {
        if (t->snap[i] == c)
            t->snap[i] = NULL;
    }
    call_free(t, c);
    return 0;
}

/* Gives calls past their deadline a timeout outcome; a worker still running one
 * keeps its own copy, and its late result is discarded. Under the lock. */
static void expire_calls(capsa__tools *t, uint64_t now)
{
    for (size_t i = 0; i < t->n_calls; i++) {
        call *c = t->calls[i];
        if ((c->state != CALL_QUEUED && c->state != CALL_RUNNING && c->state != CALL_EXTERNAL) ||
            now < c->deadline_ns)
            continue;
        call *r = c;
        if (c->state != CALL_EXTERNAL) {
            r = capsa__malloc(t->a, sizeof(*r));
            if (!r)
                continue; /* tried again at the next wake */
            *r = *c;
            r->args = NULL;  /* the worker's copy keeps the arguments */
            r->out = NULL;
            r->out_static = 0;
            r->out_charged = 0;
            r->charged = c->audit.cap; /* the audit line moves to r */
            c->charged -= c->audit.cap;
            c->audit = (capsa__buf){ 0 };
            c->abandoned = 1;
            t->calls[i] = r;
        }
        call_errorf(t, r, "timeout", "tool '%s' did not answer within %llu ms", r->tool->name,
                    (unsigned long long)call_timeout_ms(t, r->tool));
        push_done(t, r);
    }
}

static uint64_t next_call_deadline(const capsa__tools *t)
{
    uint64_t next = 0;
    for (size_t i = 0; i < t->n_calls; i++) {
        const call *c = t->calls[i];
        if ((c->state == CALL_QUEUED || c->state == CALL_RUNNING || c->state == CALL_EXTERNAL) &&
            (!next || c->deadline_ns < next))
            next = c->deadline_ns;
    }
    return next;
}

int capsa__tools_wait(capsa__tools *t, uint64_t deadline_ns)
{
    int result;
    pthread_mutex_lock(&t->lock);
    for (;;) {
        uint64_t now = capsa__rt_now_ns();
        expire_calls(t, now);
        if (t->done_head) {
            result = CAPSA__WAIT_READY;
            break;
        }
        if ((deadline_ns && now >= deadline_ns) || capsa__sandbox_interrupted(t->sb)) {
            result = CAPSA__WAIT_DEADLINE;
            break;
        }
        if (t->wake_ns && now >= t->wake_ns) {
            result = CAPSA__WAIT_WAKE;
            break;
        }
        size_t busy = 0, external = 0;
        for (size_t i = 0; i < t->n_calls; i++) {
            int s = t->calls[i]->state;
            busy += s == CALL_QUEUED || s == CALL_RUNNING;
            external += s == CALL_EXTERNAL;
        }
        if (!busy && external) {
            result = CAPSA__WAIT_EXTERNAL;
            break;
        }
        if (!busy && !t->wake_ns) {
            result = CAPSA__WAIT_IDLE;
            break;
        }
        uint64_t until = next_call_deadline(t);
        if (t->wake_ns && (!until || t->wake_ns < until))
            until = t->wake_ns;
        if (deadline_ns && (!until || deadline_ns < until))
            until = deadline_ns;
        if (!until) {
            pthread_cond_wait(&t->done_cv, &t->lock);
        } else {
            /* The condition variable waits on CLOCK_REALTIME: convert. */
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            uint64_t wait = until > now ? until - now : 0;
            uint64_t ns = (uint64_t)ts.tv_nsec + wait % 1000000000u;
            ts.tv_sec += (time_t)(wait / 1000000000u + ns / 1000000000u);
            ts.tv_nsec = (long)(ns % 1000000000u);
            pthread_cond_timedwait(&t->done_cv, &t->lock, &ts);
        }
    }
    pthread_mutex_unlock(&t->lock);
    if (result != CAPSA__WAIT_EXTERNAL)
        t->n_snap = 0;
    return result;
}

void capsa__tools_wake(capsa__tools *t)
{
    pthread_mutex_lock(&t->lock);
    pthread_cond_broadcast(&t->done_cv);
    pthread_mutex_unlock(&t->lock);
}

void capsa__tools_run_begin(capsa__tools *t, uint64_t run)
{
    drop_calls(t);
    t->run = run;
    t->calls_made = 0;
    t->denials = 0;
    t->unaudited = 0;
}

void capsa__tools_run_end(capsa__tools *t)
{
    /* Outcomes that were ready but not delivered are audited as they were; calls
       still running as cancelled. */
    for (size_t i = 0; i < t->n_calls; i++) {
        call *c = t->calls[i];
        pthread_mutex_lock(&t->lock);
        int state = c->state;
        pthread_mutex_unlock(&t->lock);
        audit_finish(t, c, state == CALL_DONE || state == CALL_OFFERED ? NULL : "cancelled");
    }
    drop_calls(t);
}

uint64_t capsa__tools_calls_made(const capsa__tools *t)
{
    return t->calls_made;
}

uint64_t capsa__tools_calls_unaudited(const capsa__tools *t)
{
    return t->unaudited;
}

void capsa__tools_snapshot_pending(capsa__tools *t)
{
    t->n_snap = 0;
    if (!t->snap) {
        t->snap = capsa__malloc(t->a, CAPSA__TOOLS_MAX_CALLS * sizeof(*t->snap));
        if (!t->snap)
            return;
    }
    for (size_t i = 0; i < t->n_calls; i++) {
        if (t->calls[i]->state == CALL_EXTERNAL)
            t->snap[t->n_snap++] = t->calls[i];
    }
}

/* ---- step mode: the caller resolves calls ------------------------------------------ */

CAPSA_API size_t capsa_pending_count(const capsa_sandbox *sb)
{
    return sb && sb->tools ? sb->tools->n_snap : 0;
}

CAPSA_API int capsa_pending_call(const capsa_sandbox *sb, size_t i, capsa_tool_call *out)
{
    if (!sb || !out || out->struct_size < sizeof(size_t) || i >= sb->tools->n_snap)
        return CAPSA_EINVAL;
    const call *c = sb->tools->snap[i];
    capsa_tool_call info = { sizeof(info), 0, NULL, NULL, 0 };
    if (c) {
        info.id = c->id;
        info.name = c->tool->name;
        info.args = c->args;
        info.args_len = c->args_len;
    }
    capsa__struct_out(out, &info, sizeof(info));
    return c ? CAPSA_OK : CAPSA_ENOENT;
}

CAPSA_API double capsa_pending_timer_ms(const capsa_sandbox *sb)
{
    if (!sb || !sb->tools || !sb->tools->wake_ns)
        return -1;
    uint64_t now = capsa__rt_now_ns();
    uint64_t wake = sb->tools->wake_ns;
    return wake > now ? (double)(wake - now) / 1e6 : 0;
}

/* The external call id waiting for the caller, or NULL (errmsg set). */
static call *external_call(capsa_sandbox *sb, uint64_t id)
{
    capsa__tools *t = sb->tools;
    for (size_t i = 0; i < t->n_calls; i++) {
        call *c = t->calls[i];
        if (c->id == id && c->state == CALL_EXTERNAL)
            return c;
    }
    capsa__sandbox_errorf(sb, "no call %llu waits for the host: it was settled, timed out, or its "
                              "run ended", (unsigned long long)id);
    return NULL;
}

/* Settles external call c (found by external_call) with the reply r, made by
 * capsa_tool_reply_json or _error: the outcome is queued for the guest. */
static void settle_external(capsa__tools *t, call *c, capsa_tool_reply *r)
{
    apply_reply(t, c, r);
    pthread_mutex_lock(&t->lock);
    push_done(t, c);
    pthread_mutex_unlock(&t->lock);
}

CAPSA_API int capsa_call_resolve(capsa_sandbox *sb, uint64_t id, const char *json, size_t len)
{
    if (!sb || (!json && len) || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    call *c = external_call(sb, id);
    if (!c)
        return CAPSA_ENOENT;
    capsa_tool_reply r = { .t = sb->tools, .c = c };
    int rc = capsa_tool_reply_json(&r, json, len);
    settle_external(sb->tools, c, &r);
    if (rc != CAPSA_OK)
        capsa__sandbox_errorf(sb, "call %llu: %s; the script gets the error '%s'",
                              (unsigned long long)id,
                              rc == CAPSA_ETOOBIG ? "the result is over the size limit, or over the "
                                                    "budget of results the script has not taken"
                              : rc == CAPSA_ENOMEM ? "out of memory"
                                                   : "the result is not valid JSON",
                              c->code);
    return rc;
}

CAPSA_API int capsa_call_reject(capsa_sandbox *sb, uint64_t id, const char *code, const char *message)
{
    if (!sb || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    call *c = external_call(sb, id);
    if (!c)
        return CAPSA_ENOENT;
    capsa_tool_reply r = { .t = sb->tools, .c = c };
    capsa_tool_reply_error(&r, code, message);
    settle_external(sb->tools, c, &r);
    return CAPSA_OK;
}
