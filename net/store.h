/* The session store of `capsa serve`: one small interface over the engines that
 * keep sessions outside any one process, so replicas stay stateless. A store
 * holds records (a key, bytes, a version that every write raises, an expiry),
 * leases (one owner at a time, lapsing unless renewed), and per-tenant indexes
 * (the ids of a tenant's sessions). Two stores implement it: dir:PATH
 * (net/store_dir.c: files in a directory, atomic rename, a file lock; one
 * machine) and redis://HOST:PORT/DB (net/store_redis.c, hiredis: a record is
 * a hash {data, version}, written by a Lua script that compares the version; a
 * lease is SET key owner NX PX). Another engine needs one more store_ops.
 *
 * Every function is safe to call from several threads on one store. Keys are
 * short printable ASCII without '/' (the server uses hex ids and tenant names
 * it hashes). Every function returns STORE_OK, or a STORE_* code with a
 * message in err[0..errsize) for STORE_ERROR. */
#ifndef CAPSA_NET_STORE_H
#define CAPSA_NET_STORE_H

#include <stddef.h>
#include <stdint.h>

enum {
    STORE_OK = 0,
    STORE_NOT_FOUND = 1, /* no such record (never written, deleted, expired) */
    STORE_CONFLICT = 2,  /* version mismatch, or the lease is another owner's */
    STORE_ERROR = -1     /* the engine failed or could not be reached: err says why */
};

typedef struct store store;

/* Opens the store a URL names: "dir:PATH" (the directory is made when missing)
 * or "redis://HOST[:PORT][/DB]" (port 6379, db 0 by default). Returns NULL
 * with err set on a malformed URL or an engine that cannot be reached. The
 * caller owns the store (store_close). */
store *store_open(const char *url, char *err, size_t errsize);

/* Closes the store. NULL is a no-op. */
void store_close(store *s);

/* The store's URL as opened (owned by the store). */
const char *store_url(const store *s);

/* Reads record key: *data (malloc'd, the caller frees it; NUL-terminated
 * beyond *len), *len, *version. STORE_NOT_FOUND when absent. Each of data, len
 * and version may be NULL; without data the bytes are not read at all (a cached
 * copy's version is checked cheaply). */
int store_get(store *s, const char *key, char **data, size_t *len, uint64_t *version,
              char *err, size_t errsize);

/* Writes record key when its version is expect (0: the record must not exist),
 * setting *version to the new one (expect + 1). ttl_ms > 0: the record expires
 * that long after this write; 0: never. STORE_CONFLICT when the version is
 * another (nothing written). */
int store_put(store *s, const char *key, const void *data, size_t len, uint64_t expect,
              uint64_t ttl_ms, uint64_t *version, char *err, size_t errsize);

/* Deletes record key. STORE_NOT_FOUND when absent. */
int store_delete(store *s, const char *key, char *err, size_t errsize);

/* Takes the lease named key for owner (a string unique to the taker) for ttl_ms
 * when nobody holds it: STORE_CONFLICT when another owner does. */
int store_lease(store *s, const char *key, const char *owner, uint64_t ttl_ms,
                char *err, size_t errsize);

/* Extends owner's lease to ttl_ms from now: STORE_CONFLICT when it has lapsed
 * and another owner holds it, STORE_NOT_FOUND when it lapsed and nobody does. */
int store_renew(store *s, const char *key, const char *owner, uint64_t ttl_ms,
                char *err, size_t errsize);

/* Gives up owner's lease (no-op and STORE_OK when owner does not hold it). */
int store_release(store *s, const char *key, const char *owner, char *err, size_t errsize);

/* Adds member to, or removes it from, the index named key (a set of strings). */
int store_index_add(store *s, const char *key, const char *member, char *err, size_t errsize);
int store_index_remove(store *s, const char *key, const char *member, char *err, size_t errsize);

/* Lists up to max members of index key in ascending byte order, starting after
 * `after` (NULL or "": from the first): *members is a malloc'd array of *n
 * malloc'd strings (store_free_members frees them). */
int store_index_list(store *s, const char *key, const char *after, size_t max,
                     char ***members, size_t *n, char *err, size_t errsize);
void store_free_members(char **members, size_t n);

/* ---- for the engines ---------------------------------------------------------------- */

/* What one engine provides; each function as above, with s its own state. */
typedef struct store_ops {
    const char *scheme; /* "dir", "redis" */
    void *(*open)(const char *rest, char *err, size_t errsize); /* rest: after "scheme:" */
    void (*close)(void *st);
    int (*get)(void *st, const char *key, char **data, size_t *len, uint64_t *version,
               char *err, size_t errsize);
    int (*put)(void *st, const char *key, const void *data, size_t len, uint64_t expect,
               uint64_t ttl_ms, uint64_t *version, char *err, size_t errsize);
    int (*del)(void *st, const char *key, char *err, size_t errsize);
    int (*lease)(void *st, const char *key, const char *owner, uint64_t ttl_ms, char *err,
                 size_t errsize);
    int (*renew)(void *st, const char *key, const char *owner, uint64_t ttl_ms, char *err,
                 size_t errsize);
    int (*release)(void *st, const char *key, const char *owner, char *err, size_t errsize);
    int (*index_add)(void *st, const char *key, const char *member, char *err, size_t errsize);
    int (*index_remove)(void *st, const char *key, const char *member, char *err,
                        size_t errsize);
    int (*index_list)(void *st, const char *key, const char *after, size_t max,
                      char ***members, size_t *n, char *err, size_t errsize);
} store_ops;

/* Writes a message into err[0..errsize) (nothing when err is NULL or errsize 0)
 * and returns STORE_ERROR, so an engine can `return store_fail(err, ...)`. */
int store_fail(char *err, size_t errsize, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

extern const store_ops store_dir_ops;
extern const store_ops store_redis_ops;

#endif
