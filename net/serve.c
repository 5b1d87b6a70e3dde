/* The /v1 API of `capsa serve` (see serve.h): the routes, the session record
 * (a header line, the metadata as one JSON line, the checkpoint), the lease and
 * its renewing thread, the compare-and-set write-back, the sandboxes kept loaded,
 * and the metrics. What it parses from a request or the store is in
 * serve_parse.c. */
#define _GNU_SOURCE
#include "serve.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mcp_http.h"
#include "mcp_server.h" /* mcp_status_name */
#include "lazylibs.h"
#include "serve_parse.h"
#include "../src/json_write.h"

#define DEFAULT_TTL_MS (24ull * 3600 * 1000)
#define DEFAULT_MAX_SESSIONS 1000
#define DEFAULT_MAX_LOADED 64
#define LEASE_TTL_MS 10000
#define LEASE_RENEW_MS 3000
/* Bytes of a checkpoint's header that name its format and build: the magic,
 * the format version and flags, the guest's build id and its image's id. */
#define CKPT_ID_BYTES 80
#define MAX_PAGE 100

/* ---- metrics ------------------------------------------------------------------------ */

static const double run_buckets[] = { 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                      0.5, 1, 2.5, 5, 10, 30 };
static const double store_buckets[] = { 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                                        0.01, 0.025, 0.05, 0.1, 0.5 };
#define N_RUN_BUCKETS (sizeof(run_buckets) / sizeof(run_buckets[0]))
#define N_STORE_BUCKETS (sizeof(store_buckets) / sizeof(store_buckets[0]))

/* mcp_status_name's, and "lost" (the lease was). */
static const char *const run_statuses[] = { "ok", "error", "timeout", "fuel", "trap",
                                            "cancelled", "memory", "invalid", "lost" };
#define N_STATUSES (sizeof(run_statuses) / sizeof(run_statuses[0]))

typedef struct histogram {
    uint64_t counts[16]; /* per bucket, then +Inf */
    uint64_t n;
    double sum;
} histogram;

/* ---- the server --------------------------------------------------------------------- */

/* A sandbox loaded from a session, kept between requests while its version is
 * still the stored one. Used by one request at a time: taken out of the cache
 * while in use. */
typedef struct loaded {
    struct serve *srv;
    char id[33];
    uint64_t version;
    capsa_sandbox *sb;
    json_t *audit; /* the current run's audit lines, or NULL */
    json_t *meta;  /* the session's metadata at version */
    uint64_t used; /* when last put back (for eviction) */
    /* While lent to the MCP server: where its output and audit lines go too. */
    capsa_output_fn fwd_output;
    capsa_audit_fn fwd_audit;
    void *fwd_ud;
} loaded;

struct serve {
    serve_config cfg;
    http_server *http;
    mcp_server *mcp_srv; /* /mcp's, on the stored sessions */
    mcp_http *mcp;
    char **tokens;
    char (*tenants)[65]; /* each token's tenant: its SHA-256, hex */
    size_t n_tokens;
    capsa_tool_def *tools;
    const capsa_tool_def **tool_ptrs;
    char **tool_names;
    size_t n_tools;
    uint8_t ckpt_id[CKPT_ID_BYTES]; /* this build's checkpoint header */
    char owner_prefix[33];          /* this replica's lease owner names start so */
    uint64_t owner_seq;             /* atomic */
    pthread_mutex_t lock;           /* the cache and the metrics */
    loaded **cache;
    size_t n_cache;
    uint64_t tick;
    uint64_t runs[N_STATUSES];
    histogram run_h, store_h;
    uint64_t denials;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The time now as RFC 3339 UTC with milliseconds. */
static void now_iso(char out[32])
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + n, 32 - n, ".%03ldZ", ts.tv_nsec / 1000000);
}

static void observe(serve *s, histogram *h, const double *bounds, size_t nb, double v)
{
    pthread_mutex_lock(&s->lock);
    size_t i = 0;
    while (i < nb && v > bounds[i])
        i++;
    h->counts[i]++;
    h->n++;
    h->sum += v;
    pthread_mutex_unlock(&s->lock);
}

/* ---- the store, timed ------------------------------------------------------------------ */

#define TIMED(s, call)                                                                   \
    ({                                                                                   \
        double t0_ = now_s();                                                            \
        int rc_ = (call);                                                                \
        observe((s), &(s)->store_h, store_buckets, N_STORE_BUCKETS, now_s() - t0_);      \
        rc_;                                                                             \
    })

/* ---- answers ------------------------------------------------------------------------ */

static void reply_json(http_request *req, unsigned status, json_t *o)
{
    char *text = o ? capsa__json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    if (!text) {
        http_respond(req, 500, "application/json",
                     "{\"error\":{\"code\":\"internal\",\"message\":\"out of memory\"}}\n", 58);
        return;
    }
    size_t n = strlen(text);
    char *line = realloc(text, n + 2);
    if (line) {
        text = line;
        text[n++] = '\n';
        text[n] = '\0';
    }
    http_respond(req, status, "application/json", text, n);
    free(text);
}

/* Answers {"error":{"code","message"}} with status; 409 busy and 503 say when
 * to try again. */
static void reply_error(http_request *req, unsigned status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void reply_error(http_request *req, unsigned status, const char *code, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (status == 503 || (status == 409 && strcmp(code, "conflict") == 0))
        http_add_header(req, "Retry-After", "1");
    if (status == 401)
        http_add_header(req, "WWW-Authenticate", "Bearer");
    reply_json(req, status, json_pack("{s:{s:s,s:s}}", "error", "code", code, "message", msg));
}

static void reply_store_error(http_request *req, const char *err)
{
    reply_error(req, 503, "store_unavailable", "the session store is unavailable: %s", err);
}

/* ---- tenants ---------------------------------------------------------------------------- */

/* The tenant of the request (its token's hash, owned by s), or NULL after the
 * 401. Without tokens every request is the one tenant "local". */
static const char *tenant_of(serve *s, http_request *req)
{
    if (s->n_tokens == 0)
        return "local";
    long i = http_bearer(req, (const char *const *)s->tokens, s->n_tokens);
    if (i < 0) {
        reply_error(req, 401, "unauthorized",
                    http_header(req, "Authorization") ? "the bearer token is not one of this server's"
                                                      : "a bearer token is required "
                                                        "(Authorization: Bearer TOKEN)");
        return NULL;
    }
    return s->tenants[i];
}

static void tenant_key(const char *tenant, char key[80])
{
    snprintf(key, 80, "t:%s", tenant);
}

/* ---- the session record ------------------------------------------------------------------ */

typedef serve_record record; /* serve_record_parse's, serve_record_make's */

static void hex(const uint8_t *b, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        snprintf(out + 2 * i, 3, "%02x", b[i]);
}

/* Whether the checkpoint was made by this build (the header's format, build and
 * image ids are this server's); when not, says so in msg. */
static int compatible(serve *s, const record *r, char *msg, size_t size)
{
    if (r->ckpt_len >= CKPT_ID_BYTES && memcmp(r->ckpt, s->ckpt_id, CKPT_ID_BYTES) == 0)
        return 1;
    const char *by = json_string_value(json_object_get(r->meta, "build"));
    char theirs[17] = "unknown", ours[17];
    if (r->ckpt_len >= 24)
        hex((const uint8_t *)r->ckpt + 16, 8, theirs);
    hex(s->ckpt_id + 16, 8, ours);
    snprintf(msg, size,
             "the session was saved by another build of capsa (%s, guest build %s...) and this "
             "server is capsa %s (guest build %s...): it cannot be resumed here; serve it with "
             "the build that saved it, or create a new session",
             by ? by : "unknown version", theirs, capsa_version(), ours);
    return 0;
}

/* ---- sandboxes kept loaded -------------------------------------------------------------- */

static void loaded_free(loaded *l)
{
    if (!l)
        return;
    capsa_sandbox_free(l->sb);
    json_decref(l->audit);
    json_decref(l->meta);
    free(l);
}

/* The loaded sandbox of session id at version, taken out of the cache, or NULL
 * (a stale one is freed). */
static loaded *cache_take(serve *s, const char *id, uint64_t version)
{
    loaded *l = NULL;
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < s->n_cache; i++) {
        if (strcmp(s->cache[i]->id, id) == 0) {
            l = s->cache[i];
            s->cache[i] = s->cache[--s->n_cache];
            break;
        }
    }
    pthread_mutex_unlock(&s->lock);
    if (l && l->version != version) {
        loaded_free(l);
        l = NULL;
    }
    return l;
}

/* Drops session id from the cache (deleted). */
static void cache_drop(serve *s, const char *id)
{
    loaded_free(cache_take(s, id, UINT64_MAX));
}

/* Keeps l for the next request (evicting the least recently used one when full). */
static void cache_put(serve *s, loaded *l)
{
    loaded *evict = NULL;
    pthread_mutex_lock(&s->lock);
    l->used = ++s->tick;
    /* A reader and a writer of one session may both put theirs back: the
       newer version stays. */
    for (size_t i = 0; i < s->n_cache; i++) {
        if (strcmp(s->cache[i]->id, l->id) == 0) {
            if (s->cache[i]->version > l->version) {
                evict = l;
            } else {
                evict = s->cache[i];
                s->cache[i] = l;
            }
            pthread_mutex_unlock(&s->lock);
            loaded_free(evict);
            return;
        }
    }
    if (s->n_cache >= s->cfg.max_loaded) {
        size_t old = 0;
        for (size_t i = 1; i < s->n_cache; i++)
            old = s->cache[i]->used < s->cache[old]->used ? i : old;
        evict = s->cache[old];
        s->cache[old] = l;
    } else {
        s->cache[s->n_cache++] = l;
    }
    pthread_mutex_unlock(&s->lock);
    loaded_free(evict);
}

static void on_audit(void *ud, const char *line, size_t len)
{
    loaded *l = ud;
    serve *s = l->srv;
    if (l->audit) {
        json_t *v = json_loadb(line, len, 0, NULL);
        json_array_append_new(l->audit, v ? v : json_stringn(line, len));
    }
    if (memmem(line, len, "\"decision\":\"denied\"", 19))
        __atomic_add_fetch(&s->denials, 1, __ATOMIC_RELAXED);
    if (s->cfg.audit)
        s->cfg.audit(s->cfg.audit_ud, l->id, line, len);
    if (l->fwd_audit)
        l->fwd_audit(l->fwd_ud, line, len);
}

static void on_output(void *ud, int stream, const char *data, size_t len)
{
    loaded *l = ud;
    if (l->fwd_output)
        l->fwd_output(l->fwd_ud, stream, data, len);
}

/* The session a request works on: its id, lease, record and sandbox. */
typedef struct ctx {
    serve *s;
    http_request *req;
    char id[33];
    char key[40], lease_key[40];
    char owner[64];
    int leased;
    char *blob;
    size_t len;
    uint64_t version;
    record rec;
    loaded *l;
    /* Without req (a sandbox lent to the MCP server): why it failed. */
    unsigned status;
    char why[512];
} ctx;

/* Fails the request of c: answers it with status, code and the message, or
 * (no request) keeps the message in c->why. */
static void ctx_fail(ctx *c, unsigned status, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void ctx_fail(ctx *c, unsigned status, const char *code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof(c->why), fmt, ap);
    va_end(ap);
    c->status = status;
    if (c->req)
        reply_error(c->req, status, code, "%s", c->why);
}


/* A sandbox of session id from the checkpoint of r. Returns 0 with *out, or an
 * HTTP status after answering. */
static int restore(serve *s, ctx *c, const char *id, uint64_t version,
                   const record *r, loaded **out)
{
    loaded *l = calloc(1, sizeof(*l));
    if (!l) {
        ctx_fail(c, 500, "internal", "out of memory");
        return 500;
    }
    l->srv = s;
    l->version = version;
    memcpy(l->id, id, 33);
    capsa_restore_options ro;
    capsa_restore_options_init(&ro);
    ro.tools = s->tool_ptrs;
    ro.n_tools = s->n_tools;
    ro.on_audit = on_audit;
    ro.on_audit_ud = l;
    ro.on_output = on_output;
    ro.on_output_ud = l;
    char msg[512];
    int rc = capsa_sandbox_restore(s->cfg.engine, r->ckpt, r->ckpt_len, &ro, &l->sb, msg,
                                   sizeof(msg));
    if (rc == CAPSA_OK) {
        l->meta = json_deep_copy(r->meta);
        *out = l;
        return 0;
    }
    free(l);
    if (rc == CAPSA_ENOENT) {
        ctx_fail(c, 409, "incompatible_session",
                    "the session uses a host tool this server does not have: %s", msg);
        return 409;
    }
    if (rc == CAPSA_ENOMEM || rc == CAPSA_ETOOMANY) {
        ctx_fail(c, 503, "store_unavailable", "cannot load the session now: %s", msg);
        return 503;
    }
    ctx_fail(c, 500, "internal", "the stored session cannot be loaded: %s", msg);
    return 500;
}

/* ---- leases ---------------------------------------------------------------------------- */

/* Renews a lease every LEASE_RENEW_MS while a run lasts; when it cannot (another
 * owner has it, or the store failed for longer than the lease lives), the run
 * is interrupted and marked lost, so that it is not written back. */
typedef struct renewer {
    ctx *c;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int stop, lost, started;
} renewer;

static void *renew_main(void *arg)
{
    renewer *r = arg;
    ctx *c = r->c;
    double last_ok = now_s();
    pthread_mutex_lock(&r->mu);
    while (!r->stop) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += LEASE_RENEW_MS / 1000;
        if (pthread_cond_timedwait(&r->cv, &r->mu, &until) != ETIMEDOUT || r->stop)
            continue;
        pthread_mutex_unlock(&r->mu);
        char err[256];
        int rc = TIMED(c->s, store_renew(c->s->cfg.store, c->lease_key, c->owner, LEASE_TTL_MS,
                                         err, sizeof(err)));
        double now = now_s();
        int lost = rc == STORE_CONFLICT || rc == STORE_NOT_FOUND ||
                   (rc == STORE_ERROR && (now - last_ok) * 1000 > LEASE_TTL_MS - 1000);
        if (rc == STORE_OK)
            last_ok = now;
        pthread_mutex_lock(&r->mu);
        if (lost) {
            r->lost = 1;
            capsa_interrupt(c->l->sb);
            break;
        }
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

static void renew_start(renewer *r, ctx *c)
{
    memset(r, 0, sizeof(*r));
    r->c = c;
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    r->started = pthread_create(&r->thread, NULL, renew_main, r) == 0;
}

/* Stops the renewing; returns whether the lease was lost meanwhile. */
static int renew_stop(renewer *r)
{
    pthread_mutex_lock(&r->mu);
    r->stop = 1;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    if (r->started)
        pthread_join(r->thread, NULL);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    return r->lost;
}

/* Takes the session's lease, waiting up to lease_wait_ms for another holder.
 * Returns 0, or a status after answering. */
static int take_lease(ctx *c)
{
    serve *s = c->s;
    snprintf(c->owner, sizeof(c->owner), "%s-%llu", s->owner_prefix,
             (unsigned long long)__atomic_add_fetch(&s->owner_seq, 1, __ATOMIC_RELAXED));
    double until = now_s() + (double)s->cfg.lease_wait_ms / 1000;
    for (;;) {
        char err[256];
        int rc = TIMED(s, store_lease(s->cfg.store, c->lease_key, c->owner, LEASE_TTL_MS, err,
                                      sizeof(err)));
        if (rc == STORE_OK) {
            c->leased = 1;
            return 0;
        }
        if (rc == STORE_ERROR) {
            ctx_fail(c, 503, "store_unavailable", "the session store is unavailable: %s", err);
            return 503;
        }
        if (now_s() >= until) {
            ctx_fail(c, 409, "conflict",
                        "the session is busy: another request is running in it; try again");
            return 409;
        }
        struct timespec ms = { 0, 10 * 1000000 };
        nanosleep(&ms, NULL);
    }
}

static void ctx_end(ctx *c)
{
    if (c->leased) {
        char err[256];
        TIMED(c->s, store_release(c->s->cfg.store, c->lease_key, c->owner, err, sizeof(err)));
    }
    json_decref(c->rec.meta);
    free(c->blob);
    loaded_free(c->l);
}

/* Opens session id for the request: its lease when lease is set, its record (of
 * this tenant, or any when tenant is NULL; from this build) and, when load is set, its sandbox. Returns 0,
 * or a status after answering. */
static int ctx_open(ctx *c, serve *s, http_request *req, const char *tenant, const char *id,
                    size_t id_len, int lease, int load)
{
    memset(c, 0, sizeof(*c));
    c->s = s;
    c->req = req;
    if (!serve_id_valid(id, id_len)) {
        ctx_fail(c, 404, "not_found", "no such session");
        return 404;
    }
    memcpy(c->id, id, 32);
    snprintf(c->key, sizeof(c->key), "s:%s", c->id);
    snprintf(c->lease_key, sizeof(c->lease_key), "l:%s", c->id);
    int st;
    if (lease && (st = take_lease(c)) != 0)
        return st;
    char err[256];
    int rc;
    if (load) {
        /* A sandbox kept loaded at the stored version needs only the version
           read, not the record. */
        rc = TIMED(s, store_get(s->cfg.store, c->key, NULL, NULL, &c->version, err, sizeof(err)));
        loaded *l = rc == STORE_OK ? cache_take(s, c->id, c->version) : NULL;
        if (l) {
            const char *owner = json_string_value(json_object_get(l->meta, "tenant"));
            if (!owner || (tenant && strcmp(owner, tenant) != 0) ||
                !(c->rec.meta = json_deep_copy(l->meta))) {
                cache_put(s, l);
                ctx_fail(c, 404, "not_found", "no such session");
                return 404;
            }
            c->l = l;
            return 0;
        }
    }
    rc = TIMED(s, store_get(s->cfg.store, c->key, &c->blob, &c->len, &c->version, err,
                            sizeof(err)));
    if (rc == STORE_ERROR) {
        ctx_fail(c, 503, "store_unavailable", "the session store is unavailable: %s", err);
        return 503;
    }
    if (rc == STORE_NOT_FOUND) {
        ctx_fail(c, 404, "not_found", "no such session");
        return 404;
    }
    if (serve_record_parse(c->blob, c->len, &c->rec) != 0) {
        ctx_fail(c, 500, "internal", "the stored session is not a capsa serve session record");
        return 500;
    }
    const char *owner = json_string_value(json_object_get(c->rec.meta, "tenant"));
    if (!owner || (tenant && strcmp(owner, tenant) != 0)) {
        ctx_fail(c, 404, "not_found", "no such session");
        return 404;
    }
    if (!load) /* its metadata: readable, and deletable, whoever saved it */
        return 0;
    char msg[512];
    if (!compatible(s, &c->rec, msg, sizeof(msg))) {
        ctx_fail(c, 409, "incompatible_session", "%s", msg);
        return 409;
    }
    c->l = cache_take(s, c->id, c->version);
    return c->l ? 0 : restore(s, c, c->id, c->version, &c->rec, &c->l);
}

/* Writes the session back: a new checkpoint under the version read. On success
 * the sandbox is kept loaded for the next request; returns 0, or a status after
 * answering. */
static int ctx_commit(ctx *c)
{
    serve *s = c->s;
    char *ck = NULL;
    size_t ck_len = 0;
    int rc = capsa_checkpoint(c->l->sb, &ck, &ck_len);
    if (rc != CAPSA_OK) {
        ctx_fail(c, rc == CAPSA_ENOMEM ? 503 : 422,
                    rc == CAPSA_ENOMEM ? "store_unavailable" : "invalid",
                    "the session cannot be saved: %s (nothing was written)",
                    capsa_errmsg(c->l->sb));
        return 422;
    }
    size_t len = 0;
    char *blob = serve_record_make(c->rec.meta, ck, ck_len, &len);
    capsa_free(ck);
    if (!blob) {
        ctx_fail(c, 500, "internal", "out of memory");
        return 500;
    }
    char err[256];
    uint64_t v = 0;
    rc = TIMED(s, store_put(s->cfg.store, c->key, blob, len, c->version, s->cfg.session_ttl_ms,
                            &v, err, sizeof(err)));
    free(blob);
    if (rc == STORE_ERROR) {
        ctx_fail(c, 503, "store_unavailable", "the session store is unavailable: %s", err);
        return 503;
    }
    if (rc != STORE_OK) {
        ctx_fail(c, 409, "conflict",
                    "the session was changed or deleted meanwhile: nothing was written");
        return 409;
    }
    c->version = v;
    c->l->version = v;
    json_decref(c->l->meta);
    c->l->meta = json_deep_copy(c->rec.meta);
    cache_put(s, c->l);
    c->l = NULL;
    return 0;
}

/* ---- bodies ------------------------------------------------------------------------------ */

/* The request's body as a JSON object (an empty body: {}), or NULL after the 400. */
static json_t *body_object(http_request *req)
{
    size_t len;
    const char *body = http_body(req, &len);
    char msg[256];
    json_t *o = serve_body_object(body, len, msg, sizeof(msg));
    if (!o)
        reply_error(req, 400, "bad_request", "%s", msg);
    return o;
}

/* Whether body has no field but those named (a NULL-terminated list); else
 * answers the 400. */
static int only_fields(http_request *req, json_t *body, const char *const *names, const char *list)
{
    char msg[256];
    if (serve_only_fields(body, names, list, msg, sizeof(msg)))
        return 1;
    reply_error(req, 400, "bad_request", "%s", msg);
    return 0;
}

/* The limits of a new session: the server's, lowered by the request's "limits"
 * object. Returns 0, or a status after answering. */
static int session_limits(serve *s, http_request *req, json_t *lim, capsa_options *o)
{
    char msg[256];
    int st = serve_limits(&s->cfg.limits, lim, o, msg, sizeof(msg));
    if (st)
        reply_error(req, (unsigned)st, st == 400 ? "bad_request" : "invalid", "%s", msg);
    return st;
}

static json_t *limits_json(const capsa_options *o)
{
    return json_pack("{s:I,s:f,s:I,s:I,s:I}", "memory", (json_int_t)o->memory_limit, "timeout",
                     (double)o->timeout_ms / 1000, "disk", (json_int_t)o->fs_max_bytes,
                     "max_output", (json_int_t)o->max_output, "fuel", (json_int_t)o->fuel);
}

/* ---- POST /v1/sessions, GET /v1/sessions ------------------------------------------------ */

/* How many sessions the tenant's index holds, dropping those that expired.
 * Returns the count, or -1 after the 503. */
static long count_sessions(serve *s, http_request *req, const char *tkey, size_t stop)
{
    char err[256], **m = NULL;
    size_t n = 0;
    int rc = TIMED(s, store_index_list(s->cfg.store, tkey, NULL, stop, &m, &n, err, sizeof(err)));
    if (rc != STORE_OK) {
        reply_store_error(req, err);
        return -1;
    }
    long live = (long)n;
    if (n >= stop) { /* at the limit: the expired ones do not count */
        live = 0;
        for (size_t i = 0; i < n; i++) {
            char key[64], *b = NULL;
            size_t bl;
            uint64_t v;
            snprintf(key, sizeof(key), "s:%s", m[i]);
            rc = TIMED(s, store_get(s->cfg.store, key, &b, &bl, &v, err, sizeof(err)));
            free(b);
            if (rc == STORE_NOT_FOUND)
                TIMED(s, store_index_remove(s->cfg.store, tkey, m[i], err, sizeof(err)));
            else
                live++;
        }
    }
    store_free_members(m, n);
    return live;
}

/* Makes a session of tenant from body ({"limits", "policy"}, both optional)
 * and stores it: 0 with its id in id[0..33), or a status after answering. */
static int new_session(serve *s, http_request *req, const char *tenant, json_t *body,
                       char id[33])
{
    int status = 400;
    capsa_options o;
    json_t *policy = json_object_get(body, "policy");
    static const char *const fields[] = { "limits", "policy", NULL };
    if (!only_fields(req, body, fields, "limits, policy") ||
        (status = session_limits(s, req, json_object_get(body, "limits"), &o)) != 0)
        return status ? status : 400;
    char tkey[80];
    tenant_key(tenant, tkey);
    long live = count_sessions(s, req, tkey, s->cfg.max_sessions);
    if (live < 0)
        return 503;
    if ((size_t)live >= s->cfg.max_sessions) {
        reply_error(req, 429, "too_many_sessions",
                    "this tenant has %ld sessions, the server's maximum: delete some first", live);
        return 429;
    }
    status = 500;
    loaded *l = calloc(1, sizeof(*l));
    ctx c;
    memset(&c, 0, sizeof(c));
    c.s = s;
    c.req = req;
    c.l = l;
    if (!l || http_random_id(c.id, sizeof(c.id)) != 0) {
        reply_error(req, 500, "internal", "out of memory or random bytes");
        goto out;
    }
    l->srv = s;
    memcpy(l->id, c.id, 33);
    o.on_audit = on_audit;
    o.on_audit_ud = l;
    o.on_output = on_output;
    o.on_output_ud = l;
    int rc = capsa_sandbox_new(s->cfg.engine, &o, &l->sb);
    if (rc != CAPSA_OK) {
        reply_error(req, 503, "store_unavailable", "cannot make a sandbox now: %s",
                    capsa_errstr(rc));
        status = 503;
        goto out;
    }
    if (s->cfg.setup && s->cfg.setup(s->cfg.setup_ud, l->sb) != 0) {
        reply_error(req, 500, "internal", "the server's tools cannot be set up");
        goto out;
    }
    if (policy) {
        char *text = json_is_object(policy) ? capsa__json_dumps(policy, JSON_COMPACT) : NULL;
        rc = text ? capsa_policy_set(l->sb, text, strlen(text)) : CAPSA_EINVAL;
        free(text);
        if (rc != CAPSA_OK) {
            reply_error(req, 422, "invalid", "policy: %s",
                        json_is_object(policy) ? capsa_errmsg(l->sb) : "must be an object");
            status = 422;
            goto out;
        }
    }
    char now[32];
    now_iso(now);
    c.rec.meta = json_pack("{s:s,s:s,s:s,s:n,s:i,s:o,s:{s:f,s:i,s:i}}", "tenant", tenant, "build",
                           capsa_version(), "created", now, "last_run", "runs", 0, "limits",
                           limits_json(&o), "usage", "wall_ms", 0.0, "tool_calls", 0, "fuel", 0);
    snprintf(c.key, sizeof(c.key), "s:%s", c.id);
    c.version = 0;
    if (!c.rec.meta) {
        reply_error(req, 500, "internal", "out of memory");
        goto out;
    }
    if ((status = ctx_commit(&c)) != 0)
        goto out;
    char err[256];
    rc = TIMED(s, store_index_add(s->cfg.store, tkey, c.id, err, sizeof(err)));
    if (rc != STORE_OK) {
        TIMED(s, store_delete(s->cfg.store, c.key, err, sizeof(err)));
        cache_drop(s, c.id);
        reply_store_error(req, err);
        status = 503;
        goto out;
    }
    memcpy(id, c.id, 33);
out:
    ctx_end(&c);
    return status;
}

static void create_session(serve *s, http_request *req, const char *tenant)
{
    json_t *body = body_object(req);
    char id[33];
    if (body && new_session(s, req, tenant, body, id) == 0)
        reply_json(req, 201, json_pack("{s:s}", "id", id));
    json_decref(body);
}

/* A raw query value as a whole number in [0, max], or def when absent; -1 when
 * malformed. */
static long long query_count(http_request *req, const char *name, long long def, long long max)
{
    return serve_query_count(http_query(req, name), def, max);
}

static void list_sessions(serve *s, http_request *req, const char *tenant)
{
    const char *after = http_query(req, "after");
    long long limit = query_count(req, "limit", 50, MAX_PAGE);
    if (limit < 1 || (after && *after && !serve_id_valid(after, strlen(after)))) {
        reply_error(req, 400, "bad_request", "after must be a session id and limit 1 to %d",
                    MAX_PAGE);
        return;
    }
    char tkey[80], err[256], **m = NULL;
    size_t n = 0;
    tenant_key(tenant, tkey);
    json_t *list = json_array();
    const char *last = after;
    char last_buf[33] = "";
    int exhausted = 0;
    /* Expired sessions are dropped from the index as they are met, so a page
       may take more than one listing to fill. */
    while (!exhausted && json_array_size(list) < (size_t)limit) {
        int rc = TIMED(s, store_index_list(s->cfg.store, tkey, last, (size_t)limit, &m, &n, err,
                                           sizeof(err)));
        if (rc != STORE_OK) {
            json_decref(list);
            reply_store_error(req, err);
            return;
        }
        exhausted = n < (size_t)limit;
        for (size_t i = 0; i < n; i++) {
            if (json_array_size(list) == (size_t)limit) {
                exhausted = 0;
                break;
            }
            char key[64], *b = NULL;
            size_t bl;
            uint64_t v;
            snprintf(key, sizeof(key), "s:%s", m[i]);
            snprintf(last_buf, sizeof(last_buf), "%s", m[i]);
            rc = TIMED(s, store_get(s->cfg.store, key, &b, &bl, &v, err, sizeof(err)));
            record r;
            if (rc == STORE_OK && serve_record_parse(b, bl, &r) == 0) {
                json_array_append_new(list, json_pack("{s:s,s:O?,s:O?,s:O?}", "id", m[i], "created",
                                                      json_object_get(r.meta, "created"),
                                                      "last_run",
                                                      json_object_get(r.meta, "last_run"),
                                                      "runs", json_object_get(r.meta, "runs")));
                json_decref(r.meta);
            } else if (rc == STORE_NOT_FOUND) {
                TIMED(s, store_index_remove(s->cfg.store, tkey, m[i], err, sizeof(err)));
            }
            free(b);
        }
        store_free_members(m, n);
        last = last_buf;
    }
    reply_json(req, 200, json_pack("{s:o,s:o}", "sessions", list, "next",
                                   !exhausted ? json_string(last_buf) : json_null()));
}

/* ---- runs -------------------------------------------------------------------------------- */

static void count_run(serve *s, const char *status, double secs)
{
    pthread_mutex_lock(&s->lock);
    for (size_t i = 0; i < N_STATUSES; i++) {
        if (strcmp(run_statuses[i], status) == 0)
            s->runs[i]++;
    }
    pthread_mutex_unlock(&s->lock);
    observe(s, &s->run_h, run_buckets, N_RUN_BUCKETS, secs);
}

/* Length of the valid UTF-8 sequence at p[0..n), or 0 when it is not one. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
    size_t k = p[0] < 0x80 ? 1 : (p[0] & 0xe0) == 0xc0 && p[0] >= 0xc2 ? 2
               : (p[0] & 0xf0) == 0xe0 ? 3 : (p[0] & 0xf8) == 0xf0 && p[0] <= 0xf4 ? 4 : 0;
    if (k == 0 || k > n)
        return 0;
    for (size_t i = 1; i < k; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
    }
    if ((k == 3 && ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0))) ||
        (k == 4 && ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))))
        return 0;
    return k;
}

/* Output as a JSON string: bytes that are not UTF-8 become U+FFFD. */
static json_t *output_string(const char *text, size_t n)
{
    json_t *v = json_stringn(text, n);
    if (v)
        return v;
    char *b = malloc(3 * n + 1);
    size_t o = 0;
    for (size_t i = 0; b && i < n;) {
        size_t k = utf8_len((const unsigned char *)text + i, n - i);
        if (k) {
            memcpy(b + o, text + i, k);
            o += k;
            i += k;
        } else {
            memcpy(b + o, "\xef\xbf\xbd", 3);
            o += 3;
            i++;
        }
    }
    v = b ? json_stringn(b, o) : NULL;
    free(b);
    return v ? v : json_string("");
}

static json_t *str_or_null(const char *v)
{
    return v ? json_string(v) : json_null();
}

/* The body of a run, checked: {"code", "language"} (owned by the caller), with
 * *shell set; or NULL after the 400. Checked before the session is loaded. */
static json_t *run_body(http_request *req, int *shell)
{
    json_t *body = body_object(req);
    char msg[256];
    if (body && serve_run_check(body, shell, msg, sizeof(msg)) != 0) {
        reply_error(req, 400, "bad_request", "%s", msg);
        json_decref(body);
        return NULL;
    }
    return body;
}

/* The count v (of the stored metadata, which whoever can write the store wrote:
 * any integer, or none) plus n, held at the largest JSON integer rather than
 * overflowing. */
_Static_assert(sizeof(json_int_t) == sizeof(long long), "json_int_t is long long");
static json_int_t count_add(const json_t *v, uint64_t n)
{
    json_int_t a = json_integer_value(v);
    if (a < 0)
        a = 0;
    return (uint64_t)(LLONG_MAX - a) < n ? LLONG_MAX : a + (json_int_t)n;
}

/* Begins a run in the sandbox of the session c opened with its lease: its audit
 * lines are gathered and the lease is renewed while it lasts. */
static void run_begin(ctx *c, renewer *rn)
{
    c->l->audit = json_array();
    renew_start(rn, c);
}

/* Ends the run run_begin began, whose capsa_run or capsa_shell returned rc and r
 * after secs: counts it under *status (its status name), and when it finished
 * with the lease held adds its usage to the metadata and writes the session
 * back (ctx_commit). *lost says whether the lease was lost. Returns 1 when
 * committed, 0 when not (a run that did not finish), or -1 after failing c (the
 * write-back). The caller still ends c (ctx_end). */
static int run_end(ctx *c, renewer *rn, int rc, const capsa_result *r, double secs, int shell,
                   const char **status, int *lost)
{
    *lost = renew_stop(rn);
    int exit_code = r ? capsa_result_exit_code(r) : -1;
    *status = *lost ? "lost" : shell && rc == CAPSA_OK && exit_code != 0 ? "error"
                                                                          : mcp_status_name(rc);
    count_run(c->s, *status, secs);
    if (*lost || (rc != CAPSA_OK && rc != CAPSA_ESCRIPT))
        return 0;
    capsa_stats st;
    memset(&st, 0, sizeof(st));
    st.struct_size = sizeof(st);
    capsa_result_stats(r, &st);
    char now[32];
    now_iso(now);
    json_t *m = c->rec.meta, *u = json_object_get(m, "usage");
    json_object_set_new(m, "last_run", json_string(now));
    json_object_set_new(m, "runs", json_integer(count_add(json_object_get(m, "runs"), 1)));
    if (json_is_object(u)) {
        double ms = json_number_value(json_object_get(u, "wall_ms")) + st.wall_ms;
        json_object_set_new(u, "wall_ms", json_real((double)(long long)(ms * 1000 + 0.5) / 1000));
        json_object_set_new(u, "tool_calls",
                            json_integer(count_add(json_object_get(u, "tool_calls"), st.tool_calls)));
        json_object_set_new(u, "fuel", json_integer(count_add(json_object_get(u, "fuel"), st.fuel_used)));
    }
    return ctx_commit(c) == 0 ? 1 : -1;
}

/* A run left pending (it called a tool without a callback, which is not
 * served) is abandoned: an invalid run without a result. */
static void settle_pending(capsa_sandbox *sb, int *rc, const capsa_result **r)
{
    if (*rc == CAPSA_PENDING) {
        capsa_reset(sb);
        *rc = CAPSA_EINVAL;
        *r = NULL;
    }
}

/* Runs body's code (run_body's) in the session c opened, and answers. */
static void run_session(serve *s, http_request *req, ctx *c, json_t *body, int shell)
{
    (void)s;
    json_t *code = json_object_get(body, "code");
    renewer rn;
    run_begin(c, &rn);
    double t0 = now_s();
    const capsa_result *r = NULL;
    int rc = shell ? capsa_shell(c->l->sb, json_string_value(code), NULL, 0, &r)
                   : capsa_run(c->l->sb, json_string_value(code), json_string_length(code),
                               "session.js", &r);
    double secs = now_s() - t0;
    settle_pending(c->l->sb, &rc, &r);
    int exit_code = r ? capsa_result_exit_code(r) : -1;
    json_t *out = json_object();
    size_t n;
    const char *value = r ? capsa_result_value(r) : NULL;
    json_t *val = value ? json_loads(value, JSON_DECODE_ANY, NULL) : NULL;
    if (value && !val) /* an integer past 64 bits */
        val = json_loads(value, JSON_DECODE_ANY | JSON_DECODE_INT_AS_REAL, NULL);
    json_object_set_new(out, "result", val ? val : json_null());
    const char *text = r ? capsa_result_stdout(r, &n) : "";
    json_object_set_new(out, "stdout", output_string(text, r ? n : 0));
    text = r ? capsa_result_stderr(r, &n) : "";
    json_object_set_new(out, "stderr", output_string(text, r ? n : 0));
    if (exit_code >= 0)
        json_object_set_new(out, "exit_code", json_integer(exit_code));
    json_t *audit = c->l->audit;
    c->l->audit = NULL;
    /* The error's text is read before the write-back hands the sandbox on. */
    const char *msg = r ? capsa_result_error_message(r) : NULL;
    json_t *error = json_pack("{s:o,s:s,s:o,s:o}", "name",
                              str_or_null(r ? capsa_result_error_name(r) : NULL), "message",
                              msg ? msg : capsa_errmsg(c->l->sb), "code",
                              str_or_null(r ? capsa_result_error_code(r) : NULL), "stack",
                              str_or_null(r ? capsa_result_error_stack(r) : NULL));
    const char *status;
    int lost;
    int committed = run_end(c, &rn, rc, r, secs, shell, &status, &lost);
    json_object_set_new(out, "status", json_string(status));
    json_object_set_new(out, "audit", audit);
    if (committed < 0) {
        json_decref(error);
        json_decref(out);
        return;
    }
    if (lost) {
        json_decref(error);
        json_decref(out);
        reply_error(req, 503, "store_unavailable",
                    "the session's lease was lost during the run: it was stopped and not "
                    "committed; try again");
        return;
    }
    if (strcmp(status, "ok") != 0)
        json_object_set_new(out, "error", error);
    else
        json_decref(error);
    json_object_set_new(out, "committed", json_boolean(committed));
    /* A run stopped by a limit is not committed: the sandbox it leaves is not
       the stored session's any more, so it is not kept loaded (c->l is freed). */
    reply_json(req, 200, out);
}

/* ---- the MCP server's sandboxes --------------------------------------------------------- */

/* A session's sandbox lent to the MCP server for one request. */
typedef struct lent {
    ctx c;
    renewer rn;
} lent;

/* mcp_server_config.borrow: the sandbox of the stored session, through the same
 * lease and load as a run of /v1 (the tenant was checked by on_mcp). */
static int mcp_borrow(void *ud, const char *session, capsa_output_fn output,
                      capsa_audit_fn audit, void *cb_ud, capsa_sandbox **sb, void **token,
                      char *why, size_t size)
{
    lent *b = calloc(1, sizeof(*b));
    if (!b) {
        snprintf(why, size, "out of memory");
        return -1;
    }
    if (ctx_open(&b->c, ud, NULL, NULL, session, strlen(session), 1, 1) != 0) {
        snprintf(why, size, "%s", b->c.status == 404 ? "the session was deleted or expired"
                                                      : b->c.why);
        ctx_end(&b->c);
        free(b);
        return -1;
    }
    b->c.l->fwd_output = output;
    b->c.l->fwd_audit = audit;
    b->c.l->fwd_ud = cb_ud;
    run_begin(&b->c, &b->rn);
    *sb = b->c.l->sb;
    *token = b;
    return 0;
}

/* mcp_server_config.give_back: ends the run as a /v1 run ends (written back
 * when it finished); rc < 0: nothing ran that changes the session (it is kept
 * loaded as it was). -1 with why when the run's work is lost. */
static int mcp_give_back(void *ud, void *token, int rc, const capsa_result *r, double secs,
                         char *why, size_t size)
{
    (void)ud;
    lent *b = token;
    loaded *l = b->c.l;
    l->fwd_output = NULL;
    l->fwd_audit = NULL;
    l->fwd_ud = NULL;
    json_decref(l->audit);
    l->audit = NULL;
    int ret = 0;
    if (rc < 0) {
        renew_stop(&b->rn);
        cache_put(b->c.s, l);
        b->c.l = NULL;
    } else {
        const char *status;
        int lost;
        settle_pending(l->sb, &rc, &r);
        int committed = run_end(&b->c, &b->rn, rc, r, secs, 0, &status, &lost);
        if (lost)
            snprintf(why, size, "the session's lease was lost during the run: it was stopped "
                                "and not committed; try again");
        else if (committed < 0)
            snprintf(why, size, "%s", b->c.why);
        ret = lost || committed < 0 ? -1 : 0;
    }
    ctx_end(&b->c);
    free(b);
    return ret;
}

/* ---- files ------------------------------------------------------------------------------- */

typedef struct listing {
    json_t *arr;
} listing;

static int list_entry(void *ud, const char *name, const capsa_file_info *info)
{
    listing *li = ud;
    char when[32];
    time_t secs = (time_t)(info->mtime_ns / 1000000000u);
    struct tm tm;
    gmtime_r(&secs, &tm);
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
    const char *type = info->type == CAPSA_DIRECTORY ? "directory"
                       : info->type == CAPSA_SYMLINK ? "symlink" : "file";
    json_array_append_new(li->arr, json_pack("{s:s,s:s,s:I,s:s}", "name", name, "type", type,
                                             "size", (json_int_t)info->size, "modified", when));
    return 0;
}

static unsigned fs_status(int rc)
{
    return rc == CAPSA_ENOENT ? 404 : rc == CAPSA_ENOSPC || rc == CAPSA_ETOOBIG ? 413 : 422;
}

static const char *fs_code(int rc)
{
    return rc == CAPSA_ENOENT ? "not_found" : rc == CAPSA_ENOSPC || rc == CAPSA_ETOOBIG ? "too_large"
                                                                                      : "invalid";
}

/* GET files/{path}: a directory (or a symlink to one) as its JSON listing, a
 * file as its bytes. */
static void read_file(http_request *req, capsa_sandbox *sb, const char *path)
{
    capsa_file_info info;
    memset(&info, 0, sizeof(info));
    info.struct_size = sizeof(info);
    int rc = capsa_fs_stat(sb, path, &info);
    if (rc == CAPSA_OK && info.type != CAPSA_FILE) {
        listing li = { json_array() };
        int lrc = capsa_fs_list(sb, path, list_entry, &li);
        if (lrc == CAPSA_OK) {
            reply_json(req, 200, li.arr);
            return;
        }
        json_decref(li.arr);
        if (info.type == CAPSA_DIRECTORY) {
            reply_error(req, fs_status(lrc), fs_code(lrc), "%s", capsa_errmsg(sb));
            return;
        }
    }
    char *data = NULL;
    size_t n = 0;
    if (rc == CAPSA_OK)
        rc = capsa_fs_read(sb, path, &data, &n);
    if (rc != CAPSA_OK) {
        reply_error(req, fs_status(rc), fs_code(rc), "%s", capsa_errmsg(sb));
        return;
    }
    http_respond(req, 200, "application/octet-stream", data, n);
    capsa_free(data);
}

/* Whether the session's own code could write path: the node, or else the
 * nearest directory above it that exists, is in a mount the guest may change.
 * The API writes no more than the code could (never /log, /tools or /). */
static int guest_may_write(capsa_sandbox *sb, const char *path)
{
    char p[4200];
    snprintf(p, sizeof(p), "%s", path);
    /* /log is append-only for the code: it may never replace or remove there. */
    if (strcmp(p, "/log") == 0 || strncmp(p, "/log/", 5) == 0)
        return 0;
    for (;;) {
        capsa_file_info info;
        memset(&info, 0, sizeof(info));
        info.struct_size = sizeof(info);
        if (capsa_fs_stat(sb, p, &info) == CAPSA_OK)
            return info.guest_writable && strcmp(p, "/") != 0;
        char *slash = strrchr(p, '/');
        if (!slash || slash == p)
            return 0;
        *slash = '\0';
    }
}

static void files(serve *s, http_request *req, ctx *c, const char *method, const char *path)
{
    capsa_sandbox *sb = c->l->sb;
    if (strcmp(method, "GET") == 0) {
        /* A read changes nothing: the sandbox stays loaded at its version. */
        read_file(req, sb, path);
        cache_put(s, c->l);
        c->l = NULL;
        return;
    }
    if (!guest_may_write(sb, path)) {
        reply_error(req, 422, "invalid",
                    "%s is not writable by the session (only /workspace, /tmp and what the "
                    "code itself may change)", path);
        return;
    }
    int rc;
    if (strcmp(method, "PUT") == 0) {
        size_t n;
        const char *body = http_body(req, &n);
        rc = capsa_fs_write(sb, path, body, n);
    } else {
        rc = capsa_fs_remove(sb, path, 1);
    }
    if (rc != CAPSA_OK) {
        reply_error(req, fs_status(rc), fs_code(rc), "%s", capsa_errmsg(sb));
        return;
    }
    if (ctx_commit(c) == 0)
        http_respond(req, 204, NULL, "", 0);
}

/* ---- audit -------------------------------------------------------------------------------- */

static void audit_entries(http_request *req, ctx *c)
{
    long long after = query_count(req, "after", 0, 1ll << 40);
    long long limit = query_count(req, "limit", 100, 1000);
    if (after < 0 || limit < 1) {
        reply_error(req, 400, "bad_request", "after must be a number from 0 and limit 1 to 1000");
        return;
    }
    char *log = NULL;
    size_t n = 0;
    int rc = capsa_fs_read(c->l->sb, "/log/actions.jsonl", &log, &n);
    json_t *arr = json_array();
    long long line = 0;
    int more = 0;
    for (char *p = rc == CAPSA_OK ? log : NULL; p && *p;) {
        char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len && line++ >= after) {
            if ((long long)json_array_size(arr) == limit) {
                more = 1;
                break;
            }
            json_t *v = json_loadb(p, len, 0, NULL);
            json_array_append_new(arr, v ? v : json_stringn(p, len));
        }
        p = nl ? nl + 1 : p + len;
    }
    capsa_free(log);
    cache_put(c->s, c->l);
    c->l = NULL;
    reply_json(req, 200, json_pack("{s:o,s:o}", "entries", arr, "next",
                                   more ? json_integer(after + limit) : json_null()));
}

/* ---- GET, DELETE /v1/sessions/{id} --------------------------------------------------------- */

static void describe(http_request *req, ctx *c)
{
    json_t *m = c->rec.meta;
    reply_json(req, 200, json_pack("{s:s,s:O?,s:O?,s:O?,s:O?,s:O?}", "id", c->id, "created",
                                   json_object_get(m, "created"), "last_run",
                                   json_object_get(m, "last_run"), "runs",
                                   json_object_get(m, "runs"), "limits",
                                   json_object_get(m, "limits"), "usage",
                                   json_object_get(m, "usage")));
}

/* Removes session id of tenant from the store, the tenant's index and the
 * cache; returns store_delete's result (err filled on STORE_ERROR). */
static int remove_session(serve *s, const char *id, const char *tenant, char *err, size_t size)
{
    char key[40], tkey[80];
    snprintf(key, sizeof(key), "s:%s", id);
    int rc = TIMED(s, store_delete(s->cfg.store, key, err, size));
    if (rc == STORE_ERROR)
        return rc;
    cache_drop(s, id);
    tenant_key(tenant, tkey);
    TIMED(s, store_index_remove(s->cfg.store, tkey, id, err, size));
    return rc;
}

static void delete_session(serve *s, http_request *req, ctx *c, const char *tenant)
{
    char err[256];
    int rc = remove_session(s, c->id, tenant, err, sizeof(err));
    if (rc == STORE_ERROR) {
        reply_store_error(req, err);
        return;
    }
    if (rc == STORE_NOT_FOUND)
        reply_error(req, 404, "not_found", "no such session");
    else
        http_respond(req, 204, NULL, "", 0);
}

/* ---- routing ------------------------------------------------------------------------------ */

/* Everything under /v1/sessions: the collection, a session, and its run, files/
 * and audit. */
static void on_sessions(void *ud, http_request *req)
{
    serve *s = ud;
    const char *tenant = tenant_of(s, req);
    if (!tenant)
        return;
    const char *method = http_method(req);
    const char *path = http_path(req) + strlen("/v1/sessions");
    if (!*path || strcmp(path, "/") == 0) {
        if (strcmp(method, "POST") == 0)
            create_session(s, req, tenant);
        else if (strcmp(method, "GET") == 0)
            list_sessions(s, req, tenant);
        else
            reply_error(req, 405, "method_not_allowed", "%s /v1/sessions: use GET or POST", method);
        return;
    }
    if (*path != '/') {
        reply_error(req, 404, "not_found", "no such endpoint");
        return;
    }
    const char *id = path + 1;
    size_t id_len = strcspn(id, "/");
    const char *rest = id + id_len;
    int get = strcmp(method, "GET") == 0, del = strcmp(method, "DELETE") == 0;
    int put = strcmp(method, "PUT") == 0, post = strcmp(method, "POST") == 0;
    ctx c;
    memset(&c, 0, sizeof(c));
    if (!*rest) {
        if (get && ctx_open(&c, s, req, tenant, id, id_len, 0, 0) == 0)
            describe(req, &c);
        else if (del && ctx_open(&c, s, req, tenant, id, id_len, 0, 0) == 0)
            delete_session(s, req, &c, tenant);
        else if (!get && !del)
            reply_error(req, 405, "method_not_allowed", "a session takes GET or DELETE");
    } else if (strcmp(rest, "/run") == 0) {
        int shell = 0;
        json_t *body = NULL;
        if (!post)
            reply_error(req, 405, "method_not_allowed", "run takes POST");
        else if ((body = run_body(req, &shell)) && ctx_open(&c, s, req, tenant, id, id_len, 1, 1) == 0)
            run_session(s, req, &c, body, shell);
        json_decref(body);
    } else if (strcmp(rest, "/audit") == 0) {
        if (!get)
            reply_error(req, 405, "method_not_allowed", "audit takes GET");
        else if (ctx_open(&c, s, req, tenant, id, id_len, 0, 1) == 0)
            audit_entries(req, &c);
    } else if (strncmp(rest, "/files", 6) == 0 && (rest[6] == '/' || !rest[6])) {
        char gp[4200];
        const char *why = NULL;
        if (!get && !put && !del)
            reply_error(req, 405, "method_not_allowed", "files take GET, PUT or DELETE");
        else if (serve_path_decode(rest[6] ? rest + 7 : "", gp, sizeof(gp), &why) != 0)
            reply_error(req, 400, "bad_request", "the file path holds %s", why);
        else if ((put || del) && strcmp(gp, "/") == 0)
            reply_error(req, 400, "bad_request", "name a file under files/, not the root");
        else if (ctx_open(&c, s, req, tenant, id, id_len, !get, 1) == 0)
            files(s, req, &c, method, gp);
    } else {
        reply_error(req, 404, "not_found", "no such endpoint");
    }
    ctx_end(&c);
}

static void on_healthz(void *ud, http_request *req)
{
    serve *s = ud;
    char err[256], *b = NULL;
    size_t n;
    uint64_t v;
    int rc = TIMED(s, store_get(s->cfg.store, "healthz", &b, &n, &v, err, sizeof(err)));
    free(b);
    if (rc == STORE_ERROR)
        reply_json(req, 503, json_pack("{s:s,s:s,s:s}", "status", "unavailable", "store",
                                       "unreachable", "message", err));
    else
        reply_json(req, 200, json_pack("{s:s,s:s}", "status", "ok", "store", "ok"));
}

static void put_histogram(FILE *f, const char *name, const histogram *h, const double *bounds,
                          size_t nb)
{
    uint64_t cum = 0;
    for (size_t i = 0; i < nb; i++) {
        cum += h->counts[i];
        fprintf(f, "%s_bucket{le=\"%g\"} %llu\n", name, bounds[i], (unsigned long long)cum);
    }
    cum += h->counts[nb];
    fprintf(f, "%s_bucket{le=\"+Inf\"} %llu\n%s_sum %.6f\n%s_count %llu\n", name,
            (unsigned long long)cum, name, h->sum, name, (unsigned long long)h->n);
}

static void on_metrics(void *ud, http_request *req)
{
    serve *s = ud;
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        reply_error(req, 500, "internal", "out of memory");
        return;
    }
    pthread_mutex_lock(&s->lock);
    fputs("# HELP capsa_runs_total Runs by how they ended.\n# TYPE capsa_runs_total counter\n", f);
    for (size_t i = 0; i < N_STATUSES; i++)
        fprintf(f, "capsa_runs_total{status=\"%s\"} %llu\n", run_statuses[i],
                (unsigned long long)s->runs[i]);
    fputs("# HELP capsa_run_seconds Wall-clock time of runs.\n# TYPE capsa_run_seconds histogram\n",
          f);
    put_histogram(f, "capsa_run_seconds", &s->run_h, run_buckets, N_RUN_BUCKETS);
    fprintf(f, "# HELP capsa_denials_total Tool calls the policy refused.\n"
               "# TYPE capsa_denials_total counter\ncapsa_denials_total %llu\n",
            (unsigned long long)__atomic_load_n(&s->denials, __ATOMIC_RELAXED));
    fputs("# HELP capsa_store_seconds Time of each session store operation.\n"
          "# TYPE capsa_store_seconds histogram\n", f);
    put_histogram(f, "capsa_store_seconds", &s->store_h, store_buckets, N_STORE_BUCKETS);
    fprintf(f, "# HELP capsa_sessions_live Sessions this replica holds loaded.\n"
               "# TYPE capsa_sessions_live gauge\ncapsa_sessions_live %zu\n", s->n_cache);
    pthread_mutex_unlock(&s->lock);
    fclose(f);
    http_respond(req, 200, "text/plain; version=0.0.4", text, len);
    free(text);
}

/* /mcp: the MCP endpoint on the stored sessions, for the tenants' tokens. An
 * initialize makes a session of the tenant (as POST /v1/sessions does, with
 * the server's limits) whose id is the Mcp-Session-Id; any replica serves a
 * request naming it, and another tenant's id is not found (404). DELETE
 * deletes the session. */
static void on_mcp(void *ud, http_request *req)
{
    serve *s = ud;
    const char *tenant = tenant_of(s, req);
    if (!tenant)
        return;
    const char *sid = http_header(req, "Mcp-Session-Id");
    size_t len = 0;
    const char *body = http_body(req, &len);
    if (sid) {
        ctx c;
        if (ctx_open(&c, s, req, tenant, sid, strlen(sid), 0, 0) == 0) {
            mcp_http_handle_session(s->mcp, req, NULL);
            char err[256];
            if (strcmp(http_method(req), "DELETE") == 0)
                remove_session(s, c.id, tenant, err, sizeof(err));
        }
        ctx_end(&c);
        return;
    }
    if (strcmp(http_method(req), "POST") != 0 || !mcp_is_initialize(body, len)) {
        mcp_http_handle_session(s->mcp, req, NULL); /* 400: no session named */
        return;
    }
    char id[33], err[256];
    json_t *none = json_object();
    int rc = none ? new_session(s, req, tenant, none, id) : 500;
    json_decref(none);
    if (rc == 500 && !none)
        reply_error(req, 500, "internal", "out of memory");
    if (rc != 0)
        return;
    mcp_http_handle_session(s->mcp, req, id);
    if (!http_added_header(req, "Mcp-Session-Id")) /* the initialize failed */
        remove_session(s, id, tenant, err, sizeof(err));
}

static const char openapi[] =
#include "serve_openapi.h"
    ;

static void on_openapi(void *ud, http_request *req)
{
    http_respond(req, 200, "application/json", openapi, sizeof(openapi) - 1);
}

/* ---- start and stop ------------------------------------------------------------------------ */

/* This build's checkpoint header, from a checkpoint of a new sandbox. */
static int learn_ckpt_id(serve *s, char *err, size_t errsize)
{
    capsa_sandbox *sb = NULL;
    char *ck = NULL;
    size_t n = 0;
    int rc = capsa_sandbox_new(s->cfg.engine, NULL, &sb);
    if (rc == CAPSA_OK)
        rc = capsa_checkpoint(sb, &ck, &n);
    if (rc == CAPSA_OK && n >= CKPT_ID_BYTES)
        memcpy(s->ckpt_id, ck, CKPT_ID_BYTES);
    else
        snprintf(err, errsize, "cannot checkpoint a sandbox: %s",
                 rc == CAPSA_OK ? "too short" : capsa_errstr(rc));
    capsa_free(ck);
    capsa_sandbox_free(sb);
    return rc == CAPSA_OK && n >= CKPT_ID_BYTES ? 0 : -1;
}

serve *serve_start(const serve_config *cfg, char *err, size_t errsize)
{
    serve *s = calloc(1, sizeof(*s));
    if (!s) {
        snprintf(err, errsize, "out of memory");
        return NULL;
    }
    s->cfg = *cfg;
    pthread_mutex_init(&s->lock, NULL);
    if (!s->cfg.session_ttl_ms)
        s->cfg.session_ttl_ms = DEFAULT_TTL_MS;
    if (!s->cfg.max_sessions)
        s->cfg.max_sessions = DEFAULT_MAX_SESSIONS;
    if (!s->cfg.max_loaded)
        s->cfg.max_loaded = DEFAULT_MAX_LOADED;
    if (!s->cfg.limits.fs_max_bytes) /* the library's default, made explicit: a maximum */
        s->cfg.limits.fs_max_bytes = 64u << 20;
    s->cfg.tools = NULL;
    s->cfg.tokens = NULL;
    if (!cfg->store || !cfg->engine) {
        snprintf(err, errsize, "a store and an engine are required");
        goto fail;
    }
    if (cfg->n_tokens == 0 && !http_host_is_loopback(cfg->http.host)) {
        snprintf(err, errsize, "%s is not a loopback address: without --token-file anyone who "
                               "can reach it could run code; give tokens, or bind 127.0.0.1",
                 cfg->http.host);
        goto fail;
    }
    const lazylibs_crypto *crypto = cfg->n_tokens ? lazylibs_crypto_get(err, errsize) : NULL;
    if (cfg->n_tokens && !crypto)
        goto fail;
    s->cache = calloc(s->cfg.max_loaded, sizeof(loaded *));
    s->tokens = calloc(cfg->n_tokens + 1, sizeof(char *));
    s->tenants = calloc(cfg->n_tokens + 1, sizeof(*s->tenants));
    s->tools = calloc(cfg->n_tools + 1, sizeof(capsa_tool_def));
    s->tool_ptrs = calloc(cfg->n_tools + 1, sizeof(capsa_tool_def *));
    s->tool_names = calloc(cfg->n_tools + 1, sizeof(char *));
    if (!s->cache || !s->tokens || !s->tenants || !s->tools || !s->tool_ptrs || !s->tool_names)
        goto nomem;
    for (size_t i = 0; i < cfg->n_tokens; i++) {
        if (!(s->tokens[i] = strdup(cfg->tokens[i])))
            goto nomem;
        s->n_tokens++;
        uint8_t h[SHA256_DIGEST_LENGTH];
        crypto->sha256((const unsigned char *)cfg->tokens[i], strlen(cfg->tokens[i]), h);
        hex(h, sizeof(h), s->tenants[i]);
    }
    for (size_t i = 0; i < cfg->n_tools; i++) {
        s->tools[i] = cfg->tools[i];
        if (!(s->tool_names[i] = strdup(cfg->tools[i].name ? cfg->tools[i].name : "")))
            goto nomem;
        s->tools[i].name = s->tool_names[i];
        s->tools[i].description = NULL;
        s->tools[i].parameters = NULL;
        s->tools[i].returns = NULL;
        s->tool_ptrs[i] = &s->tools[i];
        s->n_tools++;
    }
    if (http_random_id(s->owner_prefix, sizeof(s->owner_prefix)) != 0) {
        snprintf(err, errsize, "no random bytes");
        goto fail;
    }
    if (learn_ckpt_id(s, err, errsize) != 0)
        goto fail;
    http_config hc = cfg->http;
    hc.token = NULL;
    hc.handler_auth = 1;
    hc.json_errors = 1;
    if (!(s->http = http_server_new(&hc, err, errsize)))
        goto fail;
    if (http_route(s->http, "GET", "/healthz", on_healthz, s) != 0 ||
        http_route(s->http, "GET", "/metrics", on_metrics, s) != 0 ||
        http_route(s->http, "GET", "/v1/openapi.json", on_openapi, s) != 0)
        goto nomem;
    static const char *const methods[] = { "GET", "POST", "PUT", "DELETE" };
    for (size_t i = 0; i < 4; i++) {
        if (http_route(s->http, methods[i], "/v1/sessions*", on_sessions, s) != 0)
            goto nomem;
    }
    if (cfg->mcp) {
        mcp_server_config sc = *cfg->mcp;
        sc.borrow = mcp_borrow;
        sc.give_back = mcp_give_back;
        sc.borrow_ud = s;
        sc.audit = NULL; /* the stored sessions' audit is the server's (cfg->audit) */
        if (mcp_server_new(&sc, &s->mcp_srv, err, errsize) != 0)
            goto fail;
        mcp_http_config mc;
        memset(&mc, 0, sizeof(mc));
        mc.max_sessions = s->cfg.mcp_max_sessions;
        mc.stored = 1;
        /* A session held here is only the stored one's worker and protocol
           state, taken up again when next named: it goes after a minute idle,
           so that the replica's table holds the sessions in use. */
        mc.idle_s = 60;
        if (!(s->mcp = mcp_http_new(s->mcp_srv, &mc, err, errsize)))
            goto fail;
        for (size_t i = 0; i < 4; i++) {
            if (i != 2 && http_route(s->http, methods[i], "/mcp", on_mcp, s) != 0)
                goto nomem;
        }
    }
    if (http_server_start(s->http, err, errsize) != 0)
        goto fail;
    return s;
nomem:
    snprintf(err, errsize, "out of memory");
fail:
    serve_free(s);
    return NULL;
}

uint16_t serve_port(const serve *s)
{
    return http_server_port(s->http);
}

void serve_expire(serve *s)
{
    if (s->mcp)
        mcp_http_expire(s->mcp);
}

void serve_free(serve *s)
{
    if (!s)
        return;
    mcp_http_free(s->mcp); /* its streams end first, so that connections can be joined */
    http_server_free(s->http);
    mcp_server_free(s->mcp_srv);
    for (size_t i = 0; i < s->n_cache; i++)
        loaded_free(s->cache[i]);
    free(s->cache);
    for (size_t i = 0; i < s->n_tokens; i++)
        free(s->tokens[i]);
    free(s->tokens);
    free(s->tenants);
    for (size_t i = 0; i < s->n_tools; i++)
        free(s->tool_names[i]);
    free(s->tool_names);
    free(s->tools);
    free(s->tool_ptrs);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
