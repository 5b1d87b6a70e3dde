/* The redis://HOST[:PORT][/DB] store (see store.h), over hiredis. A record is a
 * hash {data, version} with PEXPIRE for its ttl, written by one Lua script that
 * compares the version first (so the compare and the write are one step for
 * Redis); a lease is a string SET key owner NX PX, renewed and released by Lua
 * scripts that compare the owner; an index is a sorted set with every score 0,
 * listed in byte order by ZRANGEBYLEX. Threads share a small pool of
 * connections; a command that meets a broken connection (Redis restarted, a
 * timeout) drops the idle ones too and is sent once more on a new one. */
#define _GNU_SOURCE
#include "store.h"

#include <hiredis/hiredis.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define POOL_MAX 8
#define CONNECT_TIMEOUT_S 2
/* A command's answer: long enough for a record of hundreds of MiB on a slow
 * link, short enough that a Redis that hangs is noticed. */
#define COMMAND_TIMEOUT_S 10

typedef struct redis_store {
    char host[256];
    int port, db;
    char *user, *password; /* NULL when the URL names none */
    char where[320];       /* "HOST:PORT/DB", for messages */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    redisContext *idle[POOL_MAX];
    int n_idle, n_open; /* n_open counts idle and lent connections */
} redis_store;

static const char PUT_SCRIPT[] =
    "local v = redis.call('HGET', KEYS[1], 'version')\n"
    "if (v or '0') ~= ARGV[1] then return 0 end\n"
    "redis.call('HSET', KEYS[1], 'data', ARGV[3], 'version', ARGV[2])\n"
    "if ARGV[4] ~= '0' then redis.call('PEXPIRE', KEYS[1], ARGV[4])\n"
    "else redis.call('PERSIST', KEYS[1]) end\n"
    "return 1\n";
/* 1: renewed; 0: another owner's; -1: nobody's. */
static const char RENEW_SCRIPT[] =
    "local v = redis.call('GET', KEYS[1])\n"
    "if not v then return -1 end\n"
    "if v ~= ARGV[1] then return 0 end\n"
    "redis.call('PEXPIRE', KEYS[1], ARGV[2])\n"
    "return 1\n";
static const char RELEASE_SCRIPT[] =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end\n"
    "return 1\n";

/* ---- connections -------------------------------------------------------------------- */

/* Sends a command of the connection's setup (AUTH, SELECT) on c. */
static int setup(redis_store *r, redisContext *c, int argc, const char **argv, char *err,
                 size_t errsize)
{
    size_t lens[3];
    for (int i = 0; i < argc; i++)
        lens[i] = strlen(argv[i]);
    redisReply *rep = redisCommandArgv(c, argc, argv, lens);
    int rc = STORE_OK;
    if (!rep || rep->type == REDIS_REPLY_ERROR)
        rc = store_fail(err, errsize, "store redis %s: %s refused: %s", r->where, argv[0],
                        rep ? rep->str : c->errstr);
    freeReplyObject(rep);
    return rc;
}

/* A new connection, authenticated and on the store's database; NULL with err set. */
static redisContext *connect_one(redis_store *r, char *err, size_t errsize)
{
    struct timeval ct = {CONNECT_TIMEOUT_S, 0}, rt = {COMMAND_TIMEOUT_S, 0};
    redisContext *c = redisConnectWithTimeout(r->host, r->port, ct);
    if (!c || c->err) {
        store_fail(err, errsize, "store redis %s: cannot connect: %s", r->where,
                   c ? c->errstr : "out of memory");
        redisFree(c);
        return NULL;
    }
    redisSetTimeout(c, rt);
    redisEnableKeepAlive(c);
    if (r->password) {
        const char *argv[3] = {"AUTH"};
        int argc = 1;
        if (r->user)
            argv[argc++] = r->user;
        argv[argc++] = r->password;
        if (setup(r, c, argc, argv, err, errsize) != STORE_OK)
            goto fail;
    }
    if (r->db) {
        char db[16];
        snprintf(db, sizeof(db), "%d", r->db);
        const char *argv[2] = {"SELECT", db};
        if (setup(r, c, 2, argv, err, errsize) != STORE_OK)
            goto fail;
    }
    return c;
fail:
    redisFree(c);
    return NULL;
}

/* Lends a connection: an idle one, a new one while fewer than POOL_MAX are open,
 * else waits for one to come back. NULL with err set when none can be made. */
static redisContext *acquire(redis_store *r, char *err, size_t errsize)
{
    pthread_mutex_lock(&r->mu);
    while (r->n_idle == 0 && r->n_open >= POOL_MAX)
        pthread_cond_wait(&r->cv, &r->mu);
    if (r->n_idle > 0) {
        redisContext *c = r->idle[--r->n_idle];
        pthread_mutex_unlock(&r->mu);
        return c;
    }
    r->n_open++;
    pthread_mutex_unlock(&r->mu);
    redisContext *c = connect_one(r, err, errsize);
    if (!c) {
        pthread_mutex_lock(&r->mu);
        r->n_open--;
        pthread_cond_signal(&r->cv);
        pthread_mutex_unlock(&r->mu);
    }
    return c;
}

/* Takes back a lent connection. A broken one is closed, and so is every idle
 * one: they were made before the break, and are most likely broken too. */
static void give_back(redis_store *r, redisContext *c, int broken)
{
    redisContext *drop[POOL_MAX + 1];
    int n = 0;
    pthread_mutex_lock(&r->mu);
    if (broken) {
        drop[n++] = c;
        while (r->n_idle > 0)
            drop[n++] = r->idle[--r->n_idle];
        r->n_open -= n;
    } else {
        r->idle[r->n_idle++] = c;
    }
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    for (int i = 0; i < n; i++)
        redisFree(drop[i]);
}

/* Sends one command on a lent connection, retrying once on a new one. */
static redisReply *command_once_more(redis_store *r, int argc, const char **argv,
                                     const size_t *lens, char *err, size_t errsize)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        redisContext *c = acquire(r, err, errsize);
        if (!c)
            return NULL;
        redisReply *rep = redisCommandArgv(c, argc, argv, lens);
        if (rep) {
            give_back(r, c, 0);
            if (rep->type == REDIS_REPLY_ERROR) {
                store_fail(err, errsize, "store redis %s: %s: %s", r->where, argv[0], rep->str);
                freeReplyObject(rep);
                return NULL;
            }
            return rep;
        }
        store_fail(err, errsize, "store redis %s: %s", r->where,
                   c->errstr[0] ? c->errstr : "connection lost");
        give_back(r, c, 1);
    }
    return NULL;
}

/* Sends one command: its reply (the caller frees it with freeReplyObject), or
 * NULL with err set (no connection, or Redis answered an error). A connection
 * that broke is replaced and the command sent once more: every command here
 * may be repeated (a write compares its version, a lease its owner). hiredis
 * writes with write(), so a write to a connection Redis reset raises SIGPIPE:
 * it is blocked on this thread meanwhile and taken if it came, so that it
 * never ends the program (which may not ignore SIGPIPE). */
static redisReply *command(redis_store *r, int argc, const char **argv, const size_t *lens,
                           char *err, size_t errsize)
{
    sigset_t pipe_set, old;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
    redisReply *rep = command_once_more(r, argc, argv, lens, err, errsize);
    if (!sigismember(&old, SIGPIPE)) {
        /* A write raises SIGPIPE on the thread that wrote: one pending now is
         * this thread's own. */
        struct timespec zero = {0, 0};
        sigset_t pending;
        while (sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE) &&
               sigtimedwait(&pipe_set, NULL, &zero) > 0) {
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    return rep;
}

/* Runs a Lua script on one key: its integer reply into *out. */
static int script(redis_store *r, const char *body, const char *key, int nargs,
                  const char **args, const size_t *arglens, long long *out, char *err,
                  size_t errsize)
{
    const char *argv[8] = {"EVAL", body, "1", key};
    size_t lens[8] = {4, strlen(body), 1, strlen(key)};
    for (int i = 0; i < nargs; i++) {
        argv[4 + i] = args[i];
        lens[4 + i] = arglens ? arglens[i] : strlen(args[i]);
    }
    redisReply *rep = command(r, 4 + nargs, argv, lens, err, errsize);
    if (!rep)
        return STORE_ERROR;
    int rc = STORE_OK;
    if (rep->type == REDIS_REPLY_INTEGER)
        *out = rep->integer;
    else
        rc = store_fail(err, errsize, "store redis %s: unexpected reply to a script", r->where);
    freeReplyObject(rep);
    return rc;
}

/* ---- the URL ------------------------------------------------------------------------ */

/* Parses "//[[USER]:PASSWORD@]HOST[:PORT][/DB]" (what follows "redis:"). */
static int parse_url(redis_store *r, const char *rest, char *err, size_t errsize)
{
    if (strncmp(rest, "//", 2) != 0)
        return store_fail(err, errsize, "store: a Redis URL is redis://HOST[:PORT][/DB]");
    const char *p = rest + 2, *at = strchr(p, '@'), *slash;
    if (at) {
        const char *colon = memchr(p, ':', (size_t)(at - p));
        if (!colon)
            return store_fail(err, errsize,
                              "store: a Redis URL's credentials are [USER]:PASSWORD@");
        if (colon > p && !(r->user = strndup(p, (size_t)(colon - p))))
            return store_fail(err, errsize, "store: out of memory");
        if (!(r->password = strndup(colon + 1, (size_t)(at - colon - 1))))
            return store_fail(err, errsize, "store: out of memory");
        p = at + 1;
    }
    const char *host_end;
    if (*p == '[') { /* an IPv6 literal */
        host_end = strchr(p, ']');
        if (!host_end)
            return store_fail(err, errsize, "store: a Redis URL's IPv6 address lacks its ']'");
        p++;
    } else {
        host_end = p + strcspn(p, ":/");
    }
    size_t hlen = (size_t)(host_end - p);
    if (hlen == 0 || hlen >= sizeof(r->host))
        return store_fail(err, errsize, "store: a Redis URL needs a host (redis://HOST[:PORT][/DB])");
    memcpy(r->host, p, hlen);
    r->host[hlen] = 0;
    p = host_end + (*host_end == ']');
    r->port = 6379;
    if (*p == ':') {
        char *end;
        long port = strtol(p + 1, &end, 10);
        if (end == p + 1 || port < 1 || port > 65535 || (*end && *end != '/'))
            return store_fail(err, errsize, "store: a Redis URL's port must be 1 to 65535 "
                              "(got \"%.20s\")", p + 1);
        r->port = (int)port;
        p = end;
    }
    r->db = 0;
    if ((slash = p, *slash == '/') && slash[1]) {
        char *end;
        long db = strtol(slash + 1, &end, 10);
        if (end == slash + 1 || *end || db < 0 || db > INT_MAX)
            return store_fail(err, errsize, "store: a Redis URL's database must be a number "
                              "(got \"%.20s\")", slash + 1);
        r->db = (int)db;
    } else if (*p && strcmp(p, "/") != 0) {
        return store_fail(err, errsize, "store: unexpected \"%.40s\" in a Redis URL", p);
    }
    snprintf(r->where, sizeof(r->where), "%s:%d/%d", r->host, r->port, r->db);
    return STORE_OK;
}

/* ---- the engine --------------------------------------------------------------------- */

static void redis_close(void *st)
{
    redis_store *r = st;
    if (!r)
        return;
    for (int i = 0; i < r->n_idle; i++)
        redisFree(r->idle[i]);
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
    free(r->user);
    free(r->password);
    free(r);
}

static void *redis_open(const char *rest, char *err, size_t errsize)
{
    redis_store *r = calloc(1, sizeof(*r));
    if (!r) {
        store_fail(err, errsize, "store: out of memory");
        return NULL;
    }
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    if (parse_url(r, rest, err, errsize) != STORE_OK) {
        redis_close(r);
        return NULL;
    }
    /* Reached now, so that a wrong address is said at start, not at first use. */
    const char *argv[] = {"PING"};
    size_t lens[] = {4};
    redisReply *rep = command(r, 1, argv, lens, err, errsize);
    if (!rep) {
        redis_close(r);
        return NULL;
    }
    freeReplyObject(rep);
    return r;
}

/* Parses a version as the scripts store it (decimal). -1 when it is not one. */
static int parse_version(const redisReply *e, uint64_t *v)
{
    char *end;
    if (e->type != REDIS_REPLY_STRING || e->len == 0 || e->str[0] < '0' || e->str[0] > '9')
        return -1;
    *v = strtoull(e->str, &end, 10);
    return *end ? -1 : 0;
}

/* The version and the data's length of record key, in one transaction. */
static int version_only(redis_store *r, const char *key, size_t *len, uint64_t *version,
                        char *err, size_t errsize)
{
    static const char script_body[] =
        "return {redis.call('HGET', KEYS[1], 'version'), redis.call('HSTRLEN', KEYS[1], 'data')}";
    const char *argv[] = {"EVAL", script_body, "1", key};
    size_t lens[] = {4, strlen(script_body), 1, strlen(key)};
    redisReply *rep = command(r, 4, argv, lens, err, errsize);
    if (!rep)
        return STORE_ERROR;
    uint64_t v = 0;
    int rc = STORE_OK;
    /* An absent version comes back as a nil (Lua's false). */
    if (rep->type != REDIS_REPLY_ARRAY)
        rc = store_fail(err, errsize, "store redis %s: unexpected reply to a script", r->where);
    else if (rep->elements == 0 || rep->element[0]->type == REDIS_REPLY_NIL)
        rc = STORE_NOT_FOUND;
    else if (rep->elements != 2 || parse_version(rep->element[0], &v) != 0 ||
             rep->element[1]->type != REDIS_REPLY_INTEGER)
        rc = store_fail(err, errsize, "store redis %s: record %s has a bad version", r->where,
                        key);
    if (rc == STORE_OK) {
        if (len)
            *len = (size_t)rep->element[1]->integer;
        if (version)
            *version = v;
    }
    freeReplyObject(rep);
    return rc;
}

static int redis_get(void *st, const char *key, char **data, size_t *len, uint64_t *version,
                     char *err, size_t errsize)
{
    redis_store *r = st;
    /* Without data, its length alone (HSTRLEN) instead of its bytes: a replica
     * that has the session cached asks only whether it is still current. */
    const char *argv[] = {"HMGET", key, "data", "version"};
    size_t lens[] = {5, strlen(key), 4, 7};
    if (!data)
        return version_only(r, key, len, version, err, errsize);
    redisReply *rep = command(r, 4, argv, lens, err, errsize);
    if (!rep)
        return STORE_ERROR;
    int rc = STORE_OK;
    if (rep->type != REDIS_REPLY_ARRAY || rep->elements != 2) {
        rc = store_fail(err, errsize, "store redis %s: unexpected reply to HMGET", r->where);
    } else if (rep->element[1]->type != REDIS_REPLY_STRING) {
        rc = STORE_NOT_FOUND;
    } else if (rep->element[0]->type != REDIS_REPLY_STRING) {
        rc = store_fail(err, errsize, "store redis %s: record %s has no data", r->where, key);
    } else {
        redisReply *d = rep->element[0];
        uint64_t v = 0;
        if (parse_version(rep->element[1], &v) != 0)
            rc = store_fail(err, errsize, "store redis %s: record %s has a bad version", r->where,
                            key);
        else if (!(*data = malloc(d->len + 1)))
            rc = store_fail(err, errsize, "store redis %s: out of memory", r->where);
        if (rc == STORE_OK) {
            memcpy(*data, d->str, d->len);
            (*data)[d->len] = 0;
            if (len)
                *len = d->len;
            if (version)
                *version = v;
        }
    }
    freeReplyObject(rep);
    return rc;
}

static int redis_put(void *st, const char *key, const void *data, size_t len, uint64_t expect,
                     uint64_t ttl_ms, uint64_t *version, char *err, size_t errsize)
{
    char want[24], next[24], ttl[24];
    snprintf(want, sizeof(want), "%llu", (unsigned long long)expect);
    snprintf(next, sizeof(next), "%llu", (unsigned long long)(expect + 1));
    snprintf(ttl, sizeof(ttl), "%llu", (unsigned long long)ttl_ms);
    const char *args[] = {want, next, data, ttl};
    size_t lens[] = {strlen(want), strlen(next), len, strlen(ttl)};
    long long won = 0;
    int rc = script(st, PUT_SCRIPT, key, 4, args, lens, &won, err, errsize);
    if (rc != STORE_OK)
        return rc;
    if (!won)
        return STORE_CONFLICT;
    *version = expect + 1;
    return STORE_OK;
}

static int redis_del(void *st, const char *key, char *err, size_t errsize)
{
    const char *argv[] = {"DEL", key};
    size_t lens[] = {3, strlen(key)};
    redisReply *rep = command(st, 2, argv, lens, err, errsize);
    if (!rep)
        return STORE_ERROR;
    int rc = rep->type == REDIS_REPLY_INTEGER && rep->integer == 0 ? STORE_NOT_FOUND : STORE_OK;
    freeReplyObject(rep);
    return rc;
}

static int redis_renew(void *st, const char *key, const char *owner, uint64_t ttl_ms, char *err,
                       size_t errsize)
{
    char ttl[24];
    snprintf(ttl, sizeof(ttl), "%llu", (unsigned long long)ttl_ms);
    const char *args[] = {owner, ttl};
    long long got = 0;
    int rc = script(st, RENEW_SCRIPT, key, 2, args, NULL, &got, err, errsize);
    if (rc != STORE_OK)
        return rc;
    return got == 1 ? STORE_OK : got == 0 ? STORE_CONFLICT : STORE_NOT_FOUND;
}

static int redis_lease(void *st, const char *key, const char *owner, uint64_t ttl_ms, char *err,
                       size_t errsize)
{
    char ttl[24];
    snprintf(ttl, sizeof(ttl), "%llu", (unsigned long long)ttl_ms);
    const char *argv[] = {"SET", key, owner, "NX", "PX", ttl};
    size_t lens[] = {3, strlen(key), strlen(owner), 2, 2, strlen(ttl)};
    /* Taken when free; else the holder's own taking renews it; and when it
     * lapsed between the two, one more try. */
    for (int attempt = 0; attempt < 2; attempt++) {
        redisReply *rep = command(st, 6, argv, lens, err, errsize);
        if (!rep)
            return STORE_ERROR;
        int taken = rep->type == REDIS_REPLY_STATUS;
        freeReplyObject(rep);
        if (taken)
            return STORE_OK;
        int rc = redis_renew(st, key, owner, ttl_ms, err, errsize);
        if (rc != STORE_NOT_FOUND)
            return rc;
    }
    return STORE_CONFLICT;
}

static int redis_release(void *st, const char *key, const char *owner, char *err, size_t errsize)
{
    const char *args[] = {owner};
    long long got = 0;
    return script(st, RELEASE_SCRIPT, key, 1, args, NULL, &got, err, errsize);
}

/* ZADD or ZREM of one member. */
static int index_change(void *st, const char *cmd, const char *key, const char *member,
                        char *err, size_t errsize)
{
    int add = cmd[1] == 'A';
    const char *argv[] = {cmd, key, add ? "0" : member, member};
    size_t lens[] = {4, strlen(key), add ? 1 : strlen(member), strlen(member)};
    redisReply *rep = command(st, add ? 4 : 3, argv, lens, err, errsize);
    if (!rep)
        return STORE_ERROR;
    freeReplyObject(rep);
    return STORE_OK;
}

static int redis_index_add(void *st, const char *key, const char *member, char *err,
                           size_t errsize)
{
    return index_change(st, "ZADD", key, member, err, errsize);
}

static int redis_index_remove(void *st, const char *key, const char *member, char *err,
                              size_t errsize)
{
    return index_change(st, "ZREM", key, member, err, errsize);
}

static int redis_index_list(void *st, const char *key, const char *after, size_t max,
                            char ***members, size_t *n, char *err, size_t errsize)
{
    redis_store *r = st;
    char from[256], count[24];
    if (after)
        snprintf(from, sizeof(from), "(%s", after);
    else
        snprintf(from, sizeof(from), "-");
    snprintf(count, sizeof(count), "%llu",
             (unsigned long long)(max > (size_t)LLONG_MAX ? (size_t)LLONG_MAX : max));
    const char *argv[] = {"ZRANGEBYLEX", key, from, "+", "LIMIT", "0", count};
    size_t lens[7];
    for (int i = 0; i < 7; i++)
        lens[i] = strlen(argv[i]);
    redisReply *rep = command(r, 7, argv, lens, err, errsize);
    if (!rep)
        return STORE_ERROR;
    if (rep->type != REDIS_REPLY_ARRAY) {
        freeReplyObject(rep);
        return store_fail(err, errsize, "store redis %s: unexpected reply to ZRANGEBYLEX",
                          r->where);
    }
    char **v = rep->elements ? calloc(rep->elements, sizeof(*v)) : NULL;
    size_t got = 0;
    int rc = STORE_OK;
    if (rep->elements && !v)
        rc = STORE_ERROR;
    for (size_t i = 0; rc == STORE_OK && i < rep->elements; i++) {
        redisReply *e = rep->element[i];
        if (e->type != REDIS_REPLY_STRING || !(v[got] = strndup(e->str, e->len)))
            rc = STORE_ERROR;
        else
            got++;
    }
    freeReplyObject(rep);
    if (rc != STORE_OK) {
        store_free_members(v, got);
        return store_fail(err, errsize, "store redis %s: cannot list index %s", r->where, key);
    }
    *members = v;
    *n = got;
    return STORE_OK;
}

const store_ops store_redis_ops = {
    .scheme = "redis",
    .open = redis_open,
    .close = redis_close,
    .get = redis_get,
    .put = redis_put,
    .del = redis_del,
    .lease = redis_lease,
    .renew = redis_renew,
    .release = redis_release,
    .index_add = redis_index_add,
    .index_remove = redis_index_remove,
    .index_list = redis_index_list,
};
