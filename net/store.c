/* The session store's front (see store.h): picks the engine a URL names, and
 * checks every argument once here, so the engines see only well-formed keys,
 * owners, members and sizes. */
#define _GNU_SOURCE
#include "store.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keys, members and owners longer than this are refused: the dir store makes
 * file names of them (255 bytes at most, with room for its own suffixes). */
#define MAX_NAME 200
/* A record's bytes: Redis's own limit of one value (proto-max-bulk-len). */
#define MAX_VALUE ((size_t)512 << 20)

struct store {
    const store_ops *ops;
    void *st;
    char *url;
};

static const store_ops *const engines[] = {&store_dir_ops, &store_redis_ops};

int store_fail(char *err, size_t errsize, const char *fmt, ...)
{
    if (err && errsize) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errsize, fmt, ap);
        va_end(ap);
    }
    return STORE_ERROR;
}

/* Whether name (a key, an index member) is 1 to MAX_NAME bytes of printable
 * ASCII without space or '/', not starting with '.': the same names then work in
 * every engine (the dir store keeps names with a leading '.' for its own files). */
static int check_name(const char *what, const char *name, char *err, size_t errsize)
{
    if (!name)
        return store_fail(err, errsize, "store: the %s is NULL", what);
    size_t n = strlen(name);
    if (n == 0 || n > MAX_NAME)
        return store_fail(err, errsize, "store: a %s must be 1 to %d bytes (got %zu)", what,
                          MAX_NAME, n);
    if (name[0] == '.')
        return store_fail(err, errsize, "store: a %s must not start with '.'", what);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)name[i];
        if (c <= ' ' || c > '~' || c == '/')
            return store_fail(err, errsize,
                              "store: a %s must be printable ASCII without space or '/' "
                              "(byte %zu is 0x%02x)", what, i, c);
    }
    return STORE_OK;
}

/* An owner may hold spaces (it is stored as a value, never a file name). */
static int check_owner(const char *owner, char *err, size_t errsize)
{
    if (!owner)
        return store_fail(err, errsize, "store: the lease owner is NULL");
    size_t n = strlen(owner);
    if (n == 0 || n > MAX_NAME)
        return store_fail(err, errsize, "store: a lease owner must be 1 to %d bytes (got %zu)",
                          MAX_NAME, n);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)owner[i] < ' ' || (unsigned char)owner[i] > '~')
            return store_fail(err, errsize, "store: a lease owner must be printable ASCII");
    return STORE_OK;
}

store *store_open(const char *url, char *err, size_t errsize)
{
    if (err && errsize)
        err[0] = 0;
    if (!url || !*url) {
        store_fail(err, errsize, "store: no URL given (dir:PATH or redis://HOST[:PORT][/DB])");
        return NULL;
    }
    const char *colon = strchr(url, ':');
    const store_ops *ops = NULL;
    for (size_t i = 0; colon && i < sizeof(engines) / sizeof(engines[0]); i++)
        if (strlen(engines[i]->scheme) == (size_t)(colon - url) &&
            memcmp(engines[i]->scheme, url, (size_t)(colon - url)) == 0)
            ops = engines[i];
    if (!ops) {
        store_fail(err, errsize, "store: unknown store \"%.100s\" (known: dir:PATH, "
                   "redis://HOST[:PORT][/DB])", url);
        return NULL;
    }
    store *s = calloc(1, sizeof(*s));
    if (!s || !(s->url = strdup(url))) {
        free(s);
        store_fail(err, errsize, "store: out of memory");
        return NULL;
    }
    s->ops = ops;
    s->st = ops->open(colon + 1, err, errsize);
    if (!s->st) {
        free(s->url);
        free(s);
        return NULL;
    }
    return s;
}

void store_close(store *s)
{
    if (!s)
        return;
    s->ops->close(s->st);
    free(s->url);
    free(s);
}

const char *store_url(const store *s)
{
    return s ? s->url : NULL;
}

#define CHECK_STORE()                                                         \
    do {                                                                      \
        if (err && errsize)                                                   \
            err[0] = 0;                                                       \
        if (!s)                                                               \
            return store_fail(err, errsize, "store: the store is NULL");      \
    } while (0)

int store_get(store *s, const char *key, char **data, size_t *len, uint64_t *version,
              char *err, size_t errsize)
{
    if (data)
        *data = NULL;
    if (len)
        *len = 0;
    if (version)
        *version = 0;
    CHECK_STORE();
    if (check_name("key", key, err, errsize))
        return STORE_ERROR;
    return s->ops->get(s->st, key, data, len, version, err, errsize);
}

int store_put(store *s, const char *key, const void *data, size_t len, uint64_t expect,
              uint64_t ttl_ms, uint64_t *version, char *err, size_t errsize)
{
    CHECK_STORE();
    if (check_name("key", key, err, errsize))
        return STORE_ERROR;
    if (!data && len)
        return store_fail(err, errsize, "store: data is NULL with length %zu", len);
    if (len > MAX_VALUE)
        return store_fail(err, errsize, "store: a record is at most %zu MiB (got %zu bytes)",
                          MAX_VALUE >> 20, len);
    if (expect == UINT64_MAX)
        return store_fail(err, errsize, "store: version %llu cannot be raised",
                          (unsigned long long)expect);
    uint64_t v = 0;
    int rc = s->ops->put(s->st, key, data ? data : "", len, expect, ttl_ms, &v, err, errsize);
    if (version)
        *version = rc == STORE_OK ? v : 0;
    return rc;
}

int store_delete(store *s, const char *key, char *err, size_t errsize)
{
    CHECK_STORE();
    if (check_name("key", key, err, errsize))
        return STORE_ERROR;
    return s->ops->del(s->st, key, err, errsize);
}

/* A lease that never lapses would outlive the replica that took it. */
static int check_ttl(uint64_t ttl_ms, char *err, size_t errsize)
{
    if (ttl_ms == 0 || ttl_ms > (uint64_t)365 * 24 * 3600 * 1000)
        return store_fail(err, errsize, "store: a lease's ttl must be 1 ms to a year (got %llu ms)",
                          (unsigned long long)ttl_ms);
    return STORE_OK;
}

int store_lease(store *s, const char *key, const char *owner, uint64_t ttl_ms, char *err,
                size_t errsize)
{
    CHECK_STORE();
    if (check_name("key", key, err, errsize) || check_owner(owner, err, errsize) ||
        check_ttl(ttl_ms, err, errsize))
        return STORE_ERROR;
    return s->ops->lease(s->st, key, owner, ttl_ms, err, errsize);
}

int store_renew(store *s, const char *key, const char *owner, uint64_t ttl_ms, char *err,
                size_t errsize)
{
    CHECK_STORE();
    if (check_name("key", key, err, errsize) || check_owner(owner, err, errsize) ||
        check_ttl(ttl_ms, err, errsize))
        return STORE_ERROR;
    return s->ops->renew(s->st, key, owner, ttl_ms, err, errsize);
}

int store_release(store *s, const char *key, const char *owner, char *err, size_t errsize)
{
    CHECK_STORE();
    if (check_name("key", key, err, errsize) || check_owner(owner, err, errsize))
        return STORE_ERROR;
    return s->ops->release(s->st, key, owner, err, errsize);
}

int store_index_add(store *s, const char *key, const char *member, char *err, size_t errsize)
{
    CHECK_STORE();
    if (check_name("key", key, err, errsize) || check_name("member", member, err, errsize))
        return STORE_ERROR;
    return s->ops->index_add(s->st, key, member, err, errsize);
}

int store_index_remove(store *s, const char *key, const char *member, char *err, size_t errsize)
{
    CHECK_STORE();
    if (check_name("key", key, err, errsize) || check_name("member", member, err, errsize))
        return STORE_ERROR;
    return s->ops->index_remove(s->st, key, member, err, errsize);
}

int store_index_list(store *s, const char *key, const char *after, size_t max,
                     char ***members, size_t *n, char *err, size_t errsize)
{
    if (members)
        *members = NULL;
    if (n)
        *n = 0;
    CHECK_STORE();
    if (!members || !n)
        return store_fail(err, errsize, "store: index_list needs members and n");
    if (check_name("key", key, err, errsize))
        return STORE_ERROR;
    if (after && *after && check_name("member", after, err, errsize))
        return STORE_ERROR;
    if (max == 0)
        return STORE_OK;
    return s->ops->index_list(s->st, key, after && *after ? after : NULL, max, members, n, err,
                              errsize);
}

void store_free_members(char **members, size_t n)
{
    if (!members)
        return;
    for (size_t i = 0; i < n; i++)
        free(members[i]);
    free(members);
}
