/* Tools: a sandbox's registry of host tools and the calls its guest makes. Every
 * call is decided here, on the host, when the guest makes it: the tool must be
 * registered, its arguments must be strict JSON (a duplicate key is an error, so
 * that the policy and the tool cannot see different values), and the capability
 * policy must allow it. The tool then gets the very text the policy checked.
 * Allowed calls run inline (CAPSA_TOOL_INLINE), on the sandbox's pool of worker
 * threads, or are handed to the caller (tools without a callback: step mode);
 * their outcomes wait in a queue until the guest takes them. */
#include "tools.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "abi.h"
#include "audit.h"
#include "json.h"
#include "rt.h"
#include "sandbox.h"

#define DEFAULT_CONCURRENCY 8
#define DEFAULT_CALL_TIMEOUT_MS 30000
#define DEFAULT_MAX_ARGS (1u << 20)
#define DEFAULT_MAX_RESULT (16u << 20)
#define MAX_MESSAGE 4096 /* bytes of a tool's error message kept */
#define MAX_CODE 48      /* bytes of an error code */

typedef struct tool {
    char *name, *flat, *description;
    char *schema; /* compact JSON text of the parameters' schema */
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
    uint64_t held;     /* bytes of arguments held by calls */
    uint64_t run, calls_made;
    uint64_t wake_ns;
    call **snap;       /* capsa_pending_*: the external calls at the last return */
    size_t n_snap;
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

static void call_free(const capsa_allocator *a, call *c)
{
    if (!c)
        return;
    capsa__free(a, c->args);
    if (!c->out_static)
        capsa__free(a, c->out);
    capsa__buf_free(&c->audit, a);
    capsa__free(a, c);
}

/* Sets c's outcome to the error {code, message} (message[0..mlen)). */
static void set_error(const capsa_allocator *a, call *c, const char *code, const char *message,
                      size_t mlen)
{
    if (!c->out_static)
        capsa__free(a, c->out);
    c->out = NULL;
    c->out_static = 0;
    c->ok = 0;
    snprintf(c->code, sizeof(c->code), "%s", code);
    if (mlen > MAX_MESSAGE)
        mlen = MAX_MESSAGE;
    capsa__buf b = { 0 };
    int rc = capsa__buf_append(&b, a, "{\"code\":", 8);
    rc = rc ? rc : capsa__json_quote(&b, a, code, strlen(code));
    rc = rc ? rc : capsa__buf_append(&b, a, ",\"message\":", 11);
    rc = rc ? rc : capsa__json_quote(&b, a, message, mlen);
    rc = rc ? rc : capsa__buf_append(&b, a, "}", 1);
    if (rc) {
        capsa__buf_free(&b, a);
        c->out = (char *)oom_outcome;
        c->out_len = sizeof(oom_outcome) - 1;
        c->out_static = 1;
        return;
    }
    c->out = b.data;
    c->out_len = b.len;
}

static void set_errorf(const capsa_allocator *a, call *c, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void set_errorf(const capsa_allocator *a, call *c, const char *code, const char *fmt, ...)
{
    char msg[CAPSA__POLICY_MSG_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    set_error(a, c, code, msg, n < 0 ? 0 : (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
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
    char code[MAX_CODE];
    char *message;
    size_t message_len;
};

CAPSA_API int capsa_tool_reply_json(capsa_tool_reply *r, const char *json, size_t len)
{
    if (!r || r->done || (!json && len))
        return CAPSA_EINVAL;
    r->done = 1;
    if (len > max_result(r->t)) {
        snprintf(r->code, sizeof(r->code), "result_too_large");
        char msg[160];
        int n = snprintf(msg, sizeof(msg), "the tool's result of %zu bytes is over the limit of %llu bytes",
                         len, (unsigned long long)max_result(r->t));
        r->message = capsa__strndup(r->t->a, msg, (size_t)n);
        r->message_len = r->message ? (size_t)n : 0;
        return CAPSA_ETOOBIG;
    }
    if (!capsa__json_valid(json ? json : "", len)) {
        snprintf(r->code, sizeof(r->code), "invalid_result");
        static const char msg[] = "the tool's result is not valid JSON";
        r->message = capsa__strndup(r->t->a, msg, sizeof(msg) - 1);
        r->message_len = r->message ? sizeof(msg) - 1 : 0;
        return CAPSA_EINVAL;
    }
    r->out = capsa__strndup(r->t->a, json ? json : "", len);
    if (!r->out) {
        snprintf(r->code, sizeof(r->code), "out_of_memory");
        return CAPSA_ENOMEM;
    }
    r->ok = 1;
    r->len = len;
    return CAPSA_OK;
}

CAPSA_API int capsa_tool_reply_error(capsa_tool_reply *r, const char *code, const char *message)
{
    if (!r || r->done)
        return CAPSA_EINVAL;
    r->done = 1;
    snprintf(r->code, sizeof(r->code), "%s", code && valid_code(code) ? code : "tool_error");
    if (!message)
        message = "the tool failed";
    size_t n = strlen(message);
    if (n > MAX_MESSAGE)
        n = MAX_MESSAGE;
    r->message = capsa__strndup(r->t->a, message, n);
    r->message_len = r->message ? n : 0;
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
    } else if (r->done && r->code[0]) {
        set_error(t->a, c, r->code, r->message ? r->message : "the tool failed",
                  r->message ? r->message_len : 15);
    } else {
        set_errorf(t->a, c, "tool_error", "tool '%s' gave no result", c->tool->name);
    }
    capsa__free(t->a, r->message);
}

/* ---- workers ------------------------------------------------------------------------- */

static void push_done(capsa__tools *t, call *c)
{
    c->state = CALL_DONE;
    c->next = NULL;
    if (t->done_tail)
        t->done_tail->next = c;
    else
        t->done_head = c;
    t->done_tail = c;
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
            call_free(t->a, c);
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
            if (r.ok)
                capsa__free(t->a, r.out);
            capsa__free(t->a, r.message);
            call_free(t->a, c);
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
    c->next = NULL;
    if (t->work_tail)
        t->work_tail->next = c;
    else
        t->work_head = c;
    t->work_tail = c;
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
        call_free(t->a, t->calls[i]);
    t->n_calls = 0;
    t->offered = NULL;
    t->held = 0;
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
        call_free(t->a, c);
        c = next;
    }
    pthread_mutex_destroy(&t->lock);
    pthread_cond_destroy(&t->work_cv);
    pthread_cond_destroy(&t->done_cv);
    for (size_t i = 0; i < t->n_tools; i++) {
        tool *tl = t->tools[i];
        capsa__free(t->a, tl->name);
        capsa__free(t->a, tl->flat);
        capsa__free(t->a, tl->description);
        capsa__free(t->a, tl->schema);
        capsa__free(t->a, tl);
    }
    capsa__free(t->a, t->tools);
    capsa__free(t->a, t->threads);
    capsa__free(t->a, t->calls);
    capsa__free(t->a, t->snap);
    capsa__buf_free(&t->list, t->a);
    capsa__policy_free(t->policy);
    capsa__free(t->a, t);
}

/* ---- the registry ---------------------------------------------------------------------- */

static tool *find_tool(const capsa__tools *t, const char *name, size_t len)
{
    for (size_t i = 0; i < t->n_tools; i++) {
        tool *tl = t->tools[i];
        if (strlen(tl->name) == len && memcmp(tl->name, name, len) == 0)
            return tl;
    }
    for (size_t i = 0; i < t->n_tools; i++) {
        tool *tl = t->tools[i];
        if (strlen(tl->flat) == len && memcmp(tl->flat, name, len) == 0)
            return tl;
    }
    return NULL;
}

static int is_sep(char ch)
{
    return ch == '.' || ch == '/' || ch == ':';
}

/* Checks a tool name: segments of [A-Za-z0-9_-] joined by '.', '/' or ':', the
 * first starting with a letter or '_', at most CAPSA__TOOL_NAME_MAX bytes. Fills
 * flat (the name with . / - : as _). Returns 0 or -1. */
static int check_name(const char *name, char *flat)
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
        if (is_sep(ch)) {
            if (i + 1 == n || is_sep(name[i + 1]))
                return -1;
        } else if (!word) {
            return -1;
        }
        flat[i] = is_sep(ch) || ch == '-' ? '_' : ch;
    }
    flat[n] = '\0';
    return 0;
}

static int rebuild_list(capsa__tools *t)
{
    capsa__buf b = { 0 };
    int rc = capsa__buf_append(&b, t->a, "[", 1);
    for (size_t i = 0; i < t->n_tools && rc == 0; i++) {
        tool *tl = t->tools[i];
        rc = capsa__buf_append(&b, t->a, i ? ",{\"name\":" : "{\"name\":", i ? 9 : 8);
        rc = rc ? rc : capsa__json_quote(&b, t->a, tl->name, strlen(tl->name));
        rc = rc ? rc : capsa__buf_append(&b, t->a, ",\"flat\":", 8);
        rc = rc ? rc : capsa__json_quote(&b, t->a, tl->flat, strlen(tl->flat));
        rc = rc ? rc : capsa__buf_append(&b, t->a, ",\"description\":", 15);
        rc = rc ? rc : capsa__json_quote(&b, t->a, tl->description, strlen(tl->description));
        rc = rc ? rc : capsa__buf_append(&b, t->a, ",\"parameters\":", 14);
        rc = rc ? rc : capsa__buf_append(&b, t->a, tl->schema, strlen(tl->schema));
        rc = rc ? rc : capsa__buf_append(&b, t->a, "}", 1);
    }
    rc = rc ? rc : capsa__buf_append(&b, t->a, "]", 1);
    if (rc) {
        capsa__buf_free(&b, t->a);
        return -1;
    }
    capsa__buf_free(&t->list, t->a);
    t->list = b;
    return 0;
}

static int tools_dts(const capsa__tools *t, const tool *one, capsa__buf *out);

/* Writes /tools/<name>.d.ts for tl and /tools/index.d.ts for all. */
static int write_declarations(capsa__tools *t, const tool *tl)
{
    capsa__buf b = { 0 };
    char path[CAPSA__TOOL_NAME_MAX + 16];
    snprintf(path, sizeof(path), "/tools/%s.d.ts", tl->name);
    int rc = tools_dts(t, tl, &b);
    if (rc == CAPSA_OK)
        rc = capsa_fs_write(t->sb, path, b.data, b.len);
    if (rc == CAPSA_OK)
        rc = tools_dts(t, NULL, &b);
    if (rc == CAPSA_OK)
        rc = capsa_fs_write(t->sb, "/tools/index.d.ts", b.data, b.len);
    capsa__buf_free(&b, &capsa__default_allocator);
    return rc;
}

CAPSA_API void capsa_tool_def_init(capsa_tool_def *def)
{
    if (!def)
        return;
    memset(def, 0, sizeof(*def));
    def->struct_size = sizeof(*def);
}

static void sb_error(capsa_sandbox *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void sb_error(capsa_sandbox *sb, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sb->errmsg, sizeof(sb->errmsg), fmt, ap);
    va_end(ap);
}

/* What is wrong with a tool's parameters schema, or NULL. Arguments are always a
 * JSON object, so the schema must describe one: an object whose "type", when
 * given, is "object", whose "properties", when given, is an object of schemas
 * (objects), and whose "required", when given, is an array of names. Deeper
 * keywords are the tool's business: they are passed on to the declarations. */
static const char *schema_problem(const json_t *schema)
{
    if (!json_is_object(schema))
        return "the schema must be a JSON object";
    const json_t *type = json_object_get(schema, "type");
    if (type && !(json_is_string(type) && strcmp(json_string_value(type), "object") == 0))
        return "\"type\" must be \"object\": a tool's arguments are a JSON object";
    const json_t *props = json_object_get(schema, "properties");
    if (props) {
        if (!json_is_object(props))
            return "\"properties\" must be an object of schemas";
        const char *key;
        const json_t *v;
        json_object_foreach((json_t *)props, key, v) {
            if (!json_is_object(v) && !json_is_boolean(v))
                return "each of \"properties\" must be a schema (an object)";
        }
    }
    const json_t *req = json_object_get(schema, "required");
    if (req) {
        if (!json_is_array(req))
            return "\"required\" must be an array of property names";
        size_t i;
        const json_t *v;
        json_array_foreach(req, i, v) {
            if (!json_is_string(v))
                return "\"required\" must be an array of property names";
        }
    }
    return NULL;
}

CAPSA_API int capsa_tool_add(capsa_sandbox *sb, const capsa_tool_def *def)
{
    if (!sb || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    capsa_tool_def d;
    capsa_tool_def_init(&d);
    if (!def || def->struct_size < sizeof(size_t) || def->struct_size > sizeof(d)) {
        sb_error(sb, "capsa_tool_add: no definition, or one of an unknown size");
        return CAPSA_EINVAL;
    }
    memcpy(&d, def, def->struct_size);
    capsa__tools *t = sb->tools;
    char flat[CAPSA__TOOL_NAME_MAX + 1];
    if (!d.name || check_name(d.name, flat) != 0) {
        sb_error(sb, "invalid tool name '%.200s': segments of letters, digits, '_' and '-' joined "
                     "by '.', '/' or ':', starting with a letter or '_', at most %d bytes",
                 d.name ? d.name : "(null)", CAPSA__TOOL_NAME_MAX);
        return CAPSA_EINVAL;
    }
    if (d.flags & ~(uint32_t)CAPSA_TOOL_INLINE) {
        sb_error(sb, "tool '%s': unknown flags 0x%x", d.name, d.flags);
        return CAPSA_EINVAL;
    }
    if ((d.flags & CAPSA_TOOL_INLINE) && !d.fn) {
        sb_error(sb, "tool '%s': an inline tool needs a callback", d.name);
        return CAPSA_EINVAL;
    }
    for (size_t i = 0; i < t->n_tools; i++) {
        if (strcmp(t->tools[i]->name, d.name) == 0 || strcmp(t->tools[i]->flat, flat) == 0) {
            sb_error(sb, "tool '%s': the name%s is taken by tool '%s'", d.name,
                     strcmp(t->tools[i]->name, d.name) == 0 ? "" : " (its flat form)",
                     t->tools[i]->name);
            return CAPSA_EEXIST;
        }
    }
    /* The schema: parsed strictly, kept compact. */
    json_error_t jerr;
    json_t *schema = NULL;
    if (d.parameters) {
        schema = capsa__json_load_strict(d.parameters, strlen(d.parameters), 0, &jerr);
        const char *bad = schema ? schema_problem(schema) : jerr.text;
        if (bad) {
            sb_error(sb, "tool '%s': parameters: %s", d.name, bad);
            json_decref(schema);
            return CAPSA_EINVAL;
        }
    } else {
        schema = json_pack("{s:s}", "type", "object");
    }
    char *schema_text = schema ? json_dumps(schema, JSON_COMPACT) : NULL;
    json_decref(schema);
    tool *tl = capsa__malloc(t->a, sizeof(*tl));
    if (tl)
        memset(tl, 0, sizeof(*tl));
    if (tl) {
        tl->name = dup_str(t->a, d.name);
        tl->flat = dup_str(t->a, flat);
        tl->description = dup_str(t->a, d.description ? d.description : "");
        tl->schema = schema_text ? dup_str(t->a, schema_text) : NULL;
        tl->fn = d.fn;
        tl->ud = d.ud;
        tl->flags = d.flags;
        tl->timeout_ms = d.timeout_ms;
    }
    free(schema_text);
    if (t->n_tools == t->cap_tools && tl) {
        size_t cap = t->cap_tools ? t->cap_tools * 2 : 8;
        tool **nt = capsa__malloc(t->a, cap * sizeof(*nt));
        if (nt) {
            if (t->n_tools)
                memcpy(nt, t->tools, t->n_tools * sizeof(*nt));
            capsa__free(t->a, t->tools);
            t->tools = nt;
            t->cap_tools = cap;
        }
    }
    if (!tl || !tl->name || !tl->flat || !tl->description || !tl->schema ||
        t->n_tools == t->cap_tools) {
        if (tl) {
            capsa__free(t->a, tl->name);
            capsa__free(t->a, tl->flat);
            capsa__free(t->a, tl->description);
            capsa__free(t->a, tl->schema);
            capsa__free(t->a, tl);
        }
        sb_error(sb, "out of memory adding tool '%s'", d.name);
        return CAPSA_ENOMEM;
    }
    t->tools[t->n_tools++] = tl;
    int rc = rebuild_list(t) == 0 ? write_declarations(t, tl) : CAPSA_ENOMEM;
    if (rc != CAPSA_OK) {
        char msg[sizeof(sb->errmsg)];
        snprintf(msg, sizeof(msg), "%s", sb->errmsg);
        t->n_tools--;
        rebuild_list(t);
        capsa__free(t->a, tl->name);
        capsa__free(t->a, tl->flat);
        capsa__free(t->a, tl->description);
        capsa__free(t->a, tl->schema);
        capsa__free(t->a, tl);
        sb_error(sb, "tool '%s': cannot write its declarations: %s", d.name,
                 rc == CAPSA_ENOMEM ? "out of memory" : msg);
        return rc;
    }
    t->generation++;
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

/* ---- calls ----------------------------------------------------------------------------- */

/* Begins c's audit line: who, what, and the decision. */
static void audit_head(capsa__tools *t, call *c, const char *name, size_t name_len,
                       const char *args, size_t args_len, const char *decision,
                       const char *capability, const char *reason, json_t *parsed)
{
    const capsa_allocator *a = t->a;
    capsa__buf *b = &c->audit;
    if ((t->sb->opts.audit_flags & CAPSA_AUDIT_NO_FILE) && !t->sb->opts.on_audit)
        return; /* nobody reads the trail */
    int rc = capsa__buf_append(b, a, "{\"time\":", 8);
    rc = rc ? rc : capsa__audit_time(b, a);
    rc = rc ? rc : capsa__buf_append_str(b, a, ",\"event\":\"tool_call\",\"run\":");
    rc = rc ? rc : capsa__buf_append_u64(b, a, t->run);
    rc = rc ? rc : capsa__buf_append_str(b, a, ",\"id\":");
    rc = rc ? rc : capsa__buf_append_u64(b, a, c->id);
    rc = rc ? rc : capsa__buf_append_str(b, a, ",\"tool\":");
    rc = rc ? rc : capsa__json_quote(b, a, name, name_len);
    if (t->sb->opts.audit_flags & CAPSA_AUDIT_HASH_ARGS || !parsed) {
        char hex[65];
        capsa__sha256_hex(args, args_len, hex);
        rc = rc ? rc : capsa__buf_append_str(b, a, ",\"args_bytes\":");
        rc = rc ? rc : capsa__buf_append_u64(b, a, args_len);
        rc = rc ? rc : capsa__buf_append_str(b, a, ",\"args_sha256\":\"");
        rc = rc ? rc : capsa__buf_append(b, a, hex, 64);
        rc = rc ? rc : capsa__buf_append(b, a, "\"", 1);
    } else if (memchr(args, '\n', args_len) || memchr(args, '\r', args_len)) {
        /* One line per call: the arguments again, without their line breaks. */
        char *text = json_dumps(parsed, JSON_COMPACT | JSON_ENCODE_ANY);
        rc = rc ? rc : capsa__buf_append(b, a, ",\"args\":", 8);
        rc = rc ? rc : text ? capsa__buf_append(b, a, text, strlen(text)) : -1;
        free(text);
    } else {
        rc = rc ? rc : capsa__buf_append(b, a, ",\"args\":", 8);
        rc = rc ? rc : capsa__buf_append(b, a, args, args_len);
    }
    rc = rc ? rc : capsa__buf_append(b, a, ",\"decision\":\"", 13);
    rc = rc ? rc : capsa__buf_append(b, a, decision, strlen(decision));
    rc = rc ? rc : capsa__buf_append(b, a, "\",\"capability\":", 15);
    rc = rc ? rc : capability ? capsa__json_quote(b, a, capability, strlen(capability))
                              : capsa__buf_append(b, a, "null", 4);
    if (reason) {
        rc = rc ? rc : capsa__buf_append(b, a, ",\"reason\":", 10);
        rc = rc ? rc : capsa__json_quote(b, a, reason, strlen(reason));
    }
    if (rc)
        capsa__buf_free(b, a); /* written without it: audit_finish says so */
}

/* Completes c's audit line with its outcome and writes it (run's thread). */
static void audit_finish(capsa__tools *t, call *c, const char *outcome_override)
{
    if (c->audited)
        return;
    c->audited = 1;
    if ((t->sb->opts.audit_flags & CAPSA_AUDIT_NO_FILE) && !t->sb->opts.on_audit)
        return;
    const capsa_allocator *a = t->a;
    capsa__buf *b = &c->audit;
    uint64_t us = (capsa__rt_now_ns() - c->start_ns) / 1000u;
    const char *outcome = outcome_override ? outcome_override : c->ok ? "ok" : "error";
    char ms[4] = { (char)('.'), (char)('0' + us / 100 % 10), (char)('0' + us / 10 % 10),
                   (char)('0' + us % 10) };
    int rc = b->data ? 0 : -1;
    rc = rc ? rc : capsa__buf_append_str(b, a, ",\"outcome\":\"");
    rc = rc ? rc : capsa__buf_append_str(b, a, outcome);
    if (c->ok && !outcome_override) {
        rc = rc ? rc : capsa__buf_append_str(b, a, "\",\"result_bytes\":");
        rc = rc ? rc : capsa__buf_append_u64(b, a, c->out_len);
    } else {
        rc = rc ? rc : capsa__buf_append_str(b, a, "\",\"error_code\":\"");
        rc = rc ? rc : capsa__buf_append_str(b, a, outcome_override ? "cancelled" : c->code);
        rc = rc ? rc : capsa__buf_append(b, a, "\"", 1);
    }
    rc = rc ? rc : capsa__buf_append_str(b, a, ",\"duration_ms\":");
    rc = rc ? rc : capsa__buf_append_u64(b, a, us / 1000u);
    rc = rc ? rc : capsa__buf_append(b, a, ms, sizeof(ms));
    rc = rc ? rc : capsa__buf_append(b, a, "}", 1);
    if (rc) {
        t->sb->audit_dropped++;
        return;
    }
    capsa__audit_line(t->sb, b->data, b->len);
    capsa__buf_free(b, a);
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

/* Records a refused call: its error is its outcome, ready at once. */
static int32_t refuse(capsa__tools *t, call *c)
{
    audit_finish(t, c, NULL);
    pthread_mutex_lock(&t->lock);
    push_done(t, c);
    pthread_mutex_unlock(&t->lock);
    return (int32_t)c->id;
}

int32_t capsa__tools_call(capsa__tools *t, const char *name, size_t name_len, const char *args,
                          size_t args_len)
{
    const capsa_allocator *a = t->a;
    if (t->n_calls >= CAPSA__TOOLS_MAX_CALLS || t->held > CAPSA__TOOLS_MAX_HELD)
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

    if (args_len > max_args(t)) {
        audit_head(t, c, name, name_len, args, args_len, "denied", NULL, "arguments too large",
                   NULL);
        set_errorf(a, c, "invalid_arguments",
                   "the arguments (%zu bytes of JSON) are over the limit of %llu bytes", args_len,
                   (unsigned long long)max_args(t));
        return refuse(t, c);
    }
    c->args = capsa__strndup(a, args, args_len);
    if (!c->args) {
        table_remove(t, c);
        call_free(a, c);
        return CAPSA_TOOL_EBUSY;
    }
    c->args_len = args_len;
    t->held += args_len;

    tool *tl = name_len <= CAPSA__TOOL_NAME_MAX ? find_tool(t, name, name_len) : NULL;
    if (!tl) {
        audit_head(t, c, name, name_len, args, args_len, "denied", NULL, "unknown tool", NULL);
        capsa__buf quoted = { 0 };
        capsa__json_quote(&quoted, a, name, name_len > 200 ? 200 : name_len);
        set_errorf(a, c, "unknown_tool", "No tool named %s is registered",
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
            set_errorf(a, c, "invalid_arguments",
                       "the arguments of '%s' hold a number the host cannot compare exactly "
                       "(integers must fit in 64 bits, reals in a double): %s; pass it as a string",
                       tl->name, jerr.text);
        else if (!parsed)
            set_errorf(a, c, "invalid_arguments",
                       "the arguments of '%s' are not strict JSON: %s (line %d, column %d)",
                       tl->name, jerr.text, jerr.line, jerr.column);
        else
            set_errorf(a, c, "invalid_arguments", "the arguments of '%s' must be a JSON object",
                       tl->name);
        json_decref(parsed);
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
        set_error(a, c, "permission_denied", d.message, strlen(d.message));
        return refuse(t, c);
    }
    audit_head(t, c, tl->name, strlen(tl->name), args, args_len, "allowed", pattern, NULL,
               parsed);
    json_decref(parsed);
    /* Fail closed: a call the audit log could not record does not happen. */
    if (!capsa__audit_room(t->sb, (c->audit.data ? c->audit.len : c->args_len) + 512)) {
        capsa__buf_free(&c->audit, a);
        audit_head(t, c, tl->name, strlen(tl->name), args, args_len, "denied", pattern,
                   "audit log full", NULL);
        set_errorf(a, c, "audit_unavailable",
                   "the call to '%s' was refused: the audit log /log/actions.jsonl cannot "
                   "record it (the filesystem quota is reached)", tl->name);
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
        pthread_mutex_lock(&t->lock);
        push_done(t, c);
        pthread_mutex_unlock(&t->lock);
        return (int32_t)c->id;
    }
    if (dispatch(t, c) != 0) {
        set_errorf(a, c, "resource_exhausted", "no worker thread could be started for '%s'",
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
        set_errorf(t->a, c, "result_too_large", "the result does not fit in guest memory");
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
    t->held -= c->args_len <= t->held ? c->args_len : t->held;
    table_remove(t, c);
    for (size_t i = 0; i < t->n_snap; i++) {
        if (t->snap[i] == c)
            t->snap[i] = NULL;
    }
    call_free(t->a, c);
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
            c->audit = (capsa__buf){ 0 };
            c->abandoned = 1;
            t->calls[i] = r;
        }
        set_errorf(t->a, r, "timeout", "tool '%s' did not answer within %llu ms", r->tool->name,
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
    size_t n = out->struct_size < sizeof(info) ? out->struct_size : sizeof(info);
    size_t want = out->struct_size;
    memcpy(out, &info, n);
    out->struct_size = want;
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
    sb_error(sb, "no call %llu waits for the host: it was settled, timed out, or its run ended",
             (unsigned long long)id);
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
        sb_error(sb, "call %llu: %s; the script gets the error '%s'", (unsigned long long)id,
                 rc == CAPSA_ETOOBIG ? "the result is over the size limit"
                 : rc == CAPSA_ENOMEM ? "out of memory" : "the result is not valid JSON", c->code);
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

/* ---- the policy ------------------------------------------------------------------------ */

CAPSA_API int capsa_policy_set(capsa_sandbox *sb, const char *json, size_t len)
{
    if (!sb || (!json && len) || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    capsa__policy *p = NULL;
    char err[512];
    int rc = capsa__policy_parse(sb->alloc, json ? json : "", len, &p, err, sizeof(err));
    if (rc != CAPSA_OK) {
        sb_error(sb, "invalid policy: %s", rc == CAPSA_ENOMEM ? "out of memory" : err);
        return rc;
    }
    capsa__policy_free(sb->tools->policy);
    sb->tools->policy = p;
    return CAPSA_OK;
}

CAPSA_API int capsa_policy_add(capsa_sandbox *sb, const char *pattern, const char *constraints_json,
                               uint64_t max_calls)
{
    if (!sb || !pattern || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    char err[512];
    int rc = capsa__policy_add(sb->tools->policy, pattern, constraints_json, max_calls, err,
                               sizeof(err));
    if (rc != CAPSA_OK)
        sb_error(sb, "capability '%.200s': %s", pattern, rc == CAPSA_ENOMEM ? "out of memory" : err);
    return rc;
}

CAPSA_API int capsa_policy_calls(capsa_sandbox *sb, const char *pattern, uint64_t *used,
                                 uint64_t *remaining)
{
    if (!sb || !pattern)
        return CAPSA_EINVAL;
    long i = capsa__policy_index(sb->tools->policy, pattern);
    if (i < 0) {
        sb_error(sb, "no capability has the pattern '%.200s'", pattern);
        return CAPSA_ENOENT;
    }
    if (used)
        *used = capsa__policy_used(sb->tools->policy, (size_t)i);
    if (remaining)
        *remaining = capsa__policy_remaining(sb->tools->policy, (size_t)i);
    return CAPSA_OK;
}

CAPSA_API char *capsa_policy_counts_json(capsa_sandbox *sb)
{
    if (!sb)
        return NULL;
    const capsa__policy *p = sb->tools->policy;
    capsa__buf b = { 0 };
    const capsa_allocator *a = &capsa__default_allocator; /* freed by capsa_free */
    int rc = capsa__buf_append(&b, a, "[", 1);
    for (size_t i = 0; i < capsa__policy_count(p) && rc == 0; i++) {
        const char *pat = capsa__policy_pattern(p, i);
        char nums[160];
        uint64_t max = capsa__policy_max_calls(p, i);
        int n = max ? snprintf(nums, sizeof(nums), ",\"max_calls\":%llu,\"used\":%llu,\"remaining\":%llu}",
                               (unsigned long long)max, (unsigned long long)capsa__policy_used(p, i),
                               (unsigned long long)capsa__policy_remaining(p, i))
                    : snprintf(nums, sizeof(nums), ",\"max_calls\":null,\"used\":%llu,\"remaining\":null}",
                               (unsigned long long)capsa__policy_used(p, i));
        rc = capsa__buf_append(&b, a, i ? ",{\"pattern\":" : "{\"pattern\":", i ? 12 : 11);
        rc = rc ? rc : capsa__json_quote(&b, a, pat, strlen(pat));
        rc = rc ? rc : capsa__buf_append(&b, a, nums, (size_t)n);
    }
    rc = rc ? rc : capsa__buf_append(&b, a, "]", 1);
    if (rc) {
        capsa__buf_free(&b, a);
        return NULL;
    }
    return b.data;
}

CAPSA_API int capsa_policy_reset_counts(capsa_sandbox *sb)
{
    if (!sb || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    capsa__policy_reset_budgets(sb->tools->policy);
    return CAPSA_OK;
}

CAPSA_API int capsa_policy_check(capsa_sandbox *sb, const char *name, const char *args_json,
                                 size_t len, int *allowed, char *message, size_t message_size)
{
    if (allowed)
        *allowed = 0;
    if (message && message_size)
        message[0] = '\0';
    if (!sb || !name || (!args_json && len))
        return CAPSA_EINVAL;
    json_error_t jerr;
    json_t *args = NULL;
    if (args_json) {
        args = capsa__json_load_strict(args_json, len, 0, &jerr);
        if (!args) {
            sb_error(sb, "the arguments are not strict JSON: %s (line %d, column %d)", jerr.text,
                     jerr.line, jerr.column);
            return CAPSA_EINVAL;
        }
    }
    /* A tool is checked under its registered name, as a call would be. */
    tool *tl = find_tool(sb->tools, name, strlen(name));
    capsa__decision d;
    capsa__policy_peek(sb->tools->policy, tl ? tl->name : name, args, &d);
    if (allowed)
        *allowed = d.allowed;
    if (message && message_size)
        snprintf(message, message_size, "%s", d.message);
    json_decref(args);
    return CAPSA_OK;
}

/* ---- TypeScript declarations from the schemas ---------------------------------------- */

#define TS_MAX_DEPTH 12

static int ts_put(capsa__buf *b, const char *s)
{
    return capsa__buf_append(b, &capsa__default_allocator, s, strlen(s));
}

static int ts_indent(capsa__buf *b, int n)
{
    for (int i = 0; i < n; i++) {
        if (ts_put(b, "  "))
            return -1;
    }
    return 0;
}

/* A doc comment of text (its end marker defused), at the given indent. */
static int ts_doc(capsa__buf *b, const char *text, int indent)
{
    if (!text || !*text)
        return 0;
    int rc = ts_indent(b, indent) || ts_put(b, "/** ");
    for (const char *p = text; *p && !rc; p++) {
        if (p[0] == '*' && p[1] == '/')
            rc = ts_put(b, "*\\");
        else if (*p == '\n')
            rc = ts_put(b, "\n") || ts_indent(b, indent) || ts_put(b, " * ");
        else
            rc = capsa__buf_append(b, &capsa__default_allocator, p, 1);
    }
    return rc || ts_put(b, " */\n");
}

static int ts_is_ident(const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9'))
        return 0;
    for (; *s; s++) {
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '$'))
            return 0;
    }
    return 1;
}

static int ts_key(capsa__buf *b, const char *key)
{
    if (ts_is_ident(key))
        return ts_put(b, key);
    return capsa__json_quote(b, &capsa__default_allocator, key, strlen(key));
}

/* A JSON value as a TypeScript literal type (JSON's syntax is TypeScript's). */
static int ts_literal(capsa__buf *b, const json_t *v)
{
    char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    int rc = text ? ts_put(b, text) : -1;
    free(text);
    return rc;
}

static int ts_type(capsa__buf *b, const json_t *s, int indent, int depth);

static int ts_union(capsa__buf *b, const json_t *list, int indent, int depth)
{
    size_t i;
    const json_t *v;
    if (!json_array_size(list))
        return ts_put(b, "never");
    json_array_foreach(list, i, v) {
        if ((i && ts_put(b, " | ")) || ts_type(b, v, indent, depth + 1))
            return -1;
    }
    return 0;
}

static int ts_object(capsa__buf *b, const json_t *s, int indent, int depth)
{
    const json_t *props = json_object_get(s, "properties");
    const json_t *req = json_object_get(s, "required");
    const json_t *extra = json_object_get(s, "additionalProperties");
    if (!json_object_size(props)) {
        if (json_is_object(extra))
            return ts_put(b, "Record<string, ") || ts_type(b, extra, indent, depth + 1) ||
                   ts_put(b, ">");
        return ts_put(b, "Record<string, unknown>");
    }
    if (ts_put(b, "{\n"))
        return -1;
    const char *key;
    const json_t *p;
    json_object_foreach((json_t *)props, key, p) {
        int required = 0;
        size_t i;
        const json_t *r;
        json_array_foreach(req, i, r) {
            if (json_is_string(r) && strcmp(json_string_value(r), key) == 0)
                required = 1;
        }
        if (ts_doc(b, json_string_value(json_object_get(p, "description")), indent + 1) ||
            ts_indent(b, indent + 1) || ts_key(b, key) || ts_put(b, required ? ": " : "?: ") ||
            ts_type(b, p, indent + 1, depth + 1) || ts_put(b, ";\n"))
            return -1;
    }
    if (json_is_object(extra) || json_is_true(extra)) {
        if (ts_indent(b, indent + 1) || ts_put(b, "[key: string]: ") ||
            (json_is_object(extra) ? ts_put(b, "unknown") : ts_put(b, "unknown")) ||
            ts_put(b, ";\n"))
            return -1;
    }
    return ts_indent(b, indent) || ts_put(b, "}");
}

static int ts_simple(capsa__buf *b, const char *type, const json_t *s, int indent, int depth)
{
    if (strcmp(type, "string") == 0)
        return ts_put(b, "string");
    if (strcmp(type, "number") == 0 || strcmp(type, "integer") == 0)
        return ts_put(b, "number");
    if (strcmp(type, "boolean") == 0)
        return ts_put(b, "boolean");
    if (strcmp(type, "null") == 0)
        return ts_put(b, "null");
    if (strcmp(type, "array") == 0) {
        const json_t *items = json_object_get(s, "items");
        return ts_put(b, "Array<") ||
               (json_is_object(items) ? ts_type(b, items, indent, depth + 1) : ts_put(b, "unknown")) ||
               ts_put(b, ">");
    }
    if (strcmp(type, "object") == 0)
        return ts_object(b, s, indent, depth);
    return ts_put(b, "unknown");
}

/* The TypeScript type of JSON Schema s (what model-written code needs: types,
 * properties, required, items, enum, const, anyOf/oneOf; the rest is unknown). */
static int ts_type(capsa__buf *b, const json_t *s, int indent, int depth)
{
    if (depth > TS_MAX_DEPTH || !json_is_object(s))
        return ts_put(b, "unknown");
    const json_t *v;
    if ((v = json_object_get(s, "const")))
        return ts_literal(b, v);
    if ((v = json_object_get(s, "enum")) && json_is_array(v)) {
        size_t i;
        const json_t *e;
        if (!json_array_size(v))
            return ts_put(b, "never");
        json_array_foreach(v, i, e) {
            if ((i && ts_put(b, " | ")) || ts_literal(b, e))
                return -1;
        }
        return 0;
    }
    if ((v = json_object_get(s, "anyOf")) || (v = json_object_get(s, "oneOf")))
        return ts_union(b, v, indent, depth);
    const json_t *type = json_object_get(s, "type");
    if (json_is_string(type))
        return ts_simple(b, json_string_value(type), s, indent, depth);
    if (json_is_array(type)) {
        size_t i;
        const json_t *e;
        json_array_foreach(type, i, e) {
            if ((i && ts_put(b, " | ")) ||
                ts_simple(b, json_is_string(e) ? json_string_value(e) : "", s, indent, depth))
                return -1;
        }
        return json_array_size(type) ? 0 : ts_put(b, "unknown");
    }
    if (json_object_get(s, "properties"))
        return ts_object(b, s, indent, depth);
    return ts_put(b, "unknown");
}

/* "math_add" -> "MathAddArgs". */
static int ts_args_name(capsa__buf *b, const tool *tl)
{
    int up = 1;
    for (const char *p = tl->flat; *p; p++) {
        if (*p == '_') {
            up = 1;
            continue;
        }
        char ch = up && *p >= 'a' && *p <= 'z' ? (char)(*p - 'a' + 'A') : *p;
        up = 0;
        if (capsa__buf_append(b, &capsa__default_allocator, &ch, 1))
            return -1;
    }
    return ts_put(b, "Args");
}

/* The declarations of one tool: its arguments' interface and its function. */
static int ts_tool(capsa__buf *b, const tool *tl, const char *prefix)
{
    json_t *schema = json_loads(tl->schema, 0, NULL);
    int optional = !json_array_size(json_object_get(schema, "required"));
    int rc = ts_doc(b, json_string_value(json_object_get(schema, "description")), 0) ||
             ts_put(b, prefix) || ts_put(b, "type ") || ts_args_name(b, tl) || ts_put(b, " = ") ||
             ts_type(b, schema, 0, 0) || ts_put(b, ";\n");
    json_decref(schema);
    return rc || ts_doc(b, tl->description, 0) || ts_put(b, prefix) ||
           ts_put(b, "function ") || ts_put(b, tl->flat) || ts_put(b, optional ? "(args?: " : "(args: ") ||
           ts_args_name(b, tl) || ts_put(b, "): Promise<any>;\n");
}

/* The members of the namespace whose tools' names start with the segments
 * prefix[0..plen) (split on . / :), nested. */
static int ts_namespace(capsa__buf *b, const capsa__tools *t, const char *prefix, size_t plen,
                        int indent)
{
    for (size_t i = 0; i < t->n_tools; i++) {
        const char *name = t->tools[i]->name;
        if (plen && (strncmp(name, prefix, plen) != 0 || !is_sep(name[plen])))
            continue;
        const char *seg = plen ? name + plen + 1 : name;
        size_t slen = strcspn(seg, "./:");
        size_t full = (size_t)(seg - name) + slen;
        /* Only the first tool of each segment writes it. */
        int seen = 0;
        for (size_t k = 0; k < i && !seen; k++) {
            const char *other = t->tools[k]->name;
            seen = strncmp(other, name, full) == 0 && (other[full] == '\0' || is_sep(other[full]));
        }
        if (seen || (!plen && (strncmp(seg, "list", slen) == 0 || strncmp(seg, "describe", slen) == 0 ||
                               strncmp(seg, "call", slen) == 0) &&
                                  (slen == 4 || slen == 8)))
            continue;
        const tool *exact = NULL;
        int deeper = 0;
        for (size_t k = 0; k < t->n_tools; k++) {
            const char *other = t->tools[k]->name;
            if (strncmp(other, name, full) == 0 && other[full] == '\0')
                exact = t->tools[k];
            else if (strncmp(other, name, full) == 0 && is_sep(other[full]))
                deeper = 1;
        }
        char key[CAPSA__TOOL_NAME_MAX + 1];
        snprintf(key, sizeof(key), "%.*s", (int)slen, seg);
        if (ts_indent(b, indent) || ts_key(b, key) || ts_put(b, ": "))
            return -1;
        if (exact && (ts_put(b, "typeof ") || ts_put(b, exact->flat)))
            return -1;
        if (deeper) {
            if ((exact && ts_put(b, " & ")) || ts_put(b, "{\n") ||
                ts_namespace(b, t, name, full, indent + 1) || ts_indent(b, indent) || ts_put(b, "}"))
                return -1;
        }
        if (ts_put(b, ";\n"))
            return -1;
    }
    return 0;
}

static const char ts_banner[] =
    "// Generated by capsa from the tools' JSON Schemas: what a script may call.\n"
    "// Call a tool as `await tools.<namespace>.<action>(args)` or by its flat name\n"
    "// (`await provider_action(args)`). A failed call rejects with a ToolError whose\n"
    "// `code` says why (\"permission_denied\", \"timeout\", \"invalid_arguments\", ...).\n\n";

/* The declarations of `one` (its own file) or of every tool (index.d.ts). Written
 * with the C library's allocator into out (the caller frees it). */
static int tools_dts(const capsa__tools *t, const tool *one, capsa__buf *out)
{
    capsa__buf b = { 0 };
    int rc = ts_put(&b, ts_banner);
    if (one) {
        rc = rc || ts_tool(&b, one, "export declare ");
    } else {
        rc = rc || ts_put(&b, "interface ToolError extends Error {\n  code: string;\n  tool: string;\n}\n\n");
        for (size_t i = 0; i < t->n_tools && !rc; i++)
            rc = ts_tool(&b, t->tools[i], "declare ") || ts_put(&b, "\n");
        rc = rc || ts_put(&b, "declare const tools: {\n"
                              "  /** Every tool: its name and description. */\n"
                              "  list(): { name: string; description: string }[];\n"
                              "  /** A tool's name, flat name, description, JSON Schema and declaration file. */\n"
                              "  describe(name: string): { name: string; flat: string; description: string; "
                              "parameters: unknown; types: string } | undefined;\n"
                              "  /** Calls a tool by its name. */\n"
                              "  call(name: string, args?: object): Promise<any>;\n");
        rc = rc || ts_namespace(&b, t, "", 0, 1) || ts_put(&b, "};\n");
    }
    if (rc) {
        capsa__buf_free(&b, &capsa__default_allocator);
        return CAPSA_ENOMEM;
    }
    capsa__buf_free(out, &capsa__default_allocator);
    *out = b;
    return CAPSA_OK;
}
