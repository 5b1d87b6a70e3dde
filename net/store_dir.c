/* The dir:PATH store (see store.h): one machine's sessions as files. A record is
 * PATH/records/KEY, a one-line header (version, expiry) and then its bytes,
 * replaced by writing a temporary file, fsync and rename, so a reader sees the
 * old record or the new one, never a mix. A lease is PATH/leases/KEY (expiry and
 * owner). An index is the directory PATH/indexes/KEY with an empty file per
 * member. Compare-and-set and leases hold one of LOCK_STRIPES lock files
 * (flock, between processes) and its mutex (between this process's threads,
 * which share open file descriptions): the key's hash picks which. Expired
 * records and lapsed leases read as absent and are removed when next met, and
 * by a sweep when the store opens and every SWEEP_EVERY writes. */
#define _GNU_SOURCE
#include "store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define LOCK_STRIPES 64
#define SWEEP_EVERY 1024
#define RECORD_MAGIC "capsa-store-record 1 "
#define LEASE_MAGIC "capsa-store-lease 1 "
/* The longest header: the magic, two 20-digit numbers, a space and a newline. */
#define HEADER_MAX 80

typedef struct dir_store {
    char *path;
    int records, leases, indexes; /* directory fds */
    int lock_fd[LOCK_STRIPES];
    pthread_mutex_t lock_mu[LOCK_STRIPES];
    unsigned long puts; /* atomic: writes since the last sweep */
} dir_store;

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The expiry ttl_ms from now; 0 (never) stays 0. */
static uint64_t expiry(uint64_t ttl_ms)
{
    return ttl_ms ? now_ms() + ttl_ms : 0;
}

static int expired(uint64_t expires)
{
    return expires && now_ms() >= expires;
}

static int sys_fail(char *err, size_t errsize, const dir_store *d, const char *what,
                    const char *name)
{
    return store_fail(err, errsize, "store %s: %s %s: %s", d->path, what, name, strerror(errno));
}

/* ---- the lock stripes --------------------------------------------------------------- */

static unsigned stripe_of(char kind, const char *key)
{
    uint32_t h = 2166136261u;
    h = (h ^ (unsigned char)kind) * 16777619u;
    for (const char *p = key; *p; p++)
        h = (h ^ (unsigned char)*p) * 16777619u;
    return h % LOCK_STRIPES;
}

/* Takes the stripe of (kind, key): its mutex, then its file lock. Returns the
 * stripe, or -1 with err set. */
static int lock_key(dir_store *d, char kind, const char *key, char *err, size_t errsize)
{
    unsigned i = stripe_of(kind, key);
    pthread_mutex_lock(&d->lock_mu[i]);
    while (flock(d->lock_fd[i], LOCK_EX) != 0) {
        if (errno != EINTR) {
            sys_fail(err, errsize, d, "cannot lock for", key);
            pthread_mutex_unlock(&d->lock_mu[i]);
            return -1;
        }
    }
    return (int)i;
}

static void unlock_key(dir_store *d, int i)
{
    flock(d->lock_fd[i], LOCK_UN);
    pthread_mutex_unlock(&d->lock_mu[i]);
}

/* ---- files -------------------------------------------------------------------------- */

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Replaces dirfd/name with header + data: a temporary file ".NAME.tmp" (only
 * the holder of name's stripe writes it), fsync'd when durable, renamed over
 * name, and the directory fsync'd when durable. */
static int replace_file(dir_store *d, int dirfd, const char *name, const char *header,
                        size_t hlen, const void *data, size_t len, int durable, char *err,
                        size_t errsize)
{
    char tmp[256];
    snprintf(tmp, sizeof(tmp), ".%s.tmp", name);
    int fd = openat(dirfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return sys_fail(err, errsize, d, "cannot write", name);
    if (write_all(fd, header, hlen) || write_all(fd, data, len) || (durable && fsync(fd))) {
        sys_fail(err, errsize, d, "cannot write", name);
        close(fd);
        unlinkat(dirfd, tmp, 0);
        return STORE_ERROR;
    }
    if (close(fd) || renameat(dirfd, tmp, dirfd, name)) {
        sys_fail(err, errsize, d, "cannot write", name);
        unlinkat(dirfd, tmp, 0);
        return STORE_ERROR;
    }
    if (durable && fsync(dirfd))
        return sys_fail(err, errsize, d, "cannot sync the directory of", name);
    return STORE_OK;
}

/* Reads up to max bytes of dirfd/name into *buf (malloc'd, NUL-terminated
 * beyond *len); *whole (when not NULL) is the file's size. STORE_NOT_FOUND when
 * there is no such file. */
static int read_file(dir_store *d, int dirfd, const char *name, size_t max, char **buf,
                     size_t *len, size_t *whole, char *err, size_t errsize)
{
    *buf = NULL;
    *len = 0;
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return STORE_NOT_FOUND;
        return sys_fail(err, errsize, d, "cannot read", name);
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        sys_fail(err, errsize, d, "cannot read", name);
        close(fd);
        return STORE_ERROR;
    }
    size_t size = (size_t)st.st_size < max ? (size_t)st.st_size : max, got = 0;
    if (whole)
        *whole = (size_t)st.st_size;
    char *b = malloc(size + 1);
    if (!b) {
        close(fd);
        return store_fail(err, errsize, "store %s: out of memory reading %s", d->path, name);
    }
    while (got < size) {
        ssize_t r = read(fd, b + got, size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            sys_fail(err, errsize, d, "cannot read", name);
            free(b);
            close(fd);
            return STORE_ERROR;
        }
        if (r == 0)
            break; /* cannot happen with rename-replaced files; read what is there */
        got += (size_t)r;
    }
    close(fd);
    b[got] = 0;
    *buf = b;
    *len = got;
    return STORE_OK;
}

/* Parses the header "MAGIC A B" + sep at the start of buf[0..len): a, b
 * (decimal, up to 19 digits each), and where what follows sep starts. -1 when
 * buf does not start with such a header. */
static int parse_header(const char *buf, size_t len, const char *magic, char sep, uint64_t *a,
                        uint64_t *b, size_t *rest)
{
    size_t m = strlen(magic), i = m;
    if (len < m || memcmp(buf, magic, m) != 0)
        return -1;
    uint64_t *out[2] = {a, b};
    for (int k = 0; k < 2; k++) {
        uint64_t x = 0;
        size_t start = i;
        while (i < len && i - start < 19 && buf[i] >= '0' && buf[i] <= '9')
            x = x * 10 + (uint64_t)(buf[i++] - '0');
        if (i == start || i >= len || buf[i] != (k == 0 ? ' ' : sep))
            return -1;
        *out[k] = x;
        i++;
    }
    *rest = i;
    return 0;
}

/* Reads record key: its version, expiry and, when data, bytes (else only its
 * header is read; *len is still set). A record that has expired is still
 * returned here: callers decide. */
static int read_record(dir_store *d, const char *key, uint64_t *version, uint64_t *expires,
                       char **data, size_t *len, char *err, size_t errsize)
{
    char *buf;
    size_t n, rest, whole;
    int rc = read_file(d, d->records, key, data ? SIZE_MAX : HEADER_MAX, &buf, &n, &whole, err,
                       errsize);
    if (rc != STORE_OK)
        return rc;
    if (parse_header(buf, n, RECORD_MAGIC, '\n', version, expires, &rest) != 0) {
        free(buf);
        return store_fail(err, errsize, "store %s: record %s is corrupt (no valid header)",
                          d->path, key);
    }
    if (len)
        *len = whole - rest;
    if (data) {
        memmove(buf, buf + rest, n - rest + 1);
        *data = buf;
    } else {
        free(buf);
    }
    return STORE_OK;
}

/* Removes record key if it is still expired (under its stripe: a writer may
 * just have replaced it). */
static void remove_if_expired(dir_store *d, const char *key)
{
    char e[8];
    int i = lock_key(d, 'r', key, e, sizeof(e));
    if (i < 0)
        return;
    uint64_t v, exp;
    if (read_record(d, key, &v, &exp, NULL, NULL, e, sizeof(e)) == STORE_OK && expired(exp))
        unlinkat(d->records, key, 0);
    unlock_key(d, i);
}

/* Removes every expired record: the ones nobody reads again would stay forever. */
static void sweep(dir_store *d)
{
    int fd = openat(d->records, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
    if (!dir) {
        if (fd >= 0)
            close(fd);
        return;
    }
    struct dirent *de;
    while ((de = readdir(dir)) != NULL) {
        char e[8];
        uint64_t v, exp;
        if (de->d_name[0] != '.' &&
            read_record(d, de->d_name, &v, &exp, NULL, NULL, e, sizeof(e)) == STORE_OK &&
            expired(exp))
            remove_if_expired(d, de->d_name);
    }
    closedir(dir);
}

/* ---- the engine --------------------------------------------------------------------- */

static void dir_close(void *st);

static int open_dir(int at, const char *name)
{
    if (mkdirat(at, name, 0700) != 0 && errno != EEXIST)
        return -1;
    return openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

/* Makes path and its missing parents. */
static int make_path(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n >= sizeof(buf))
        return errno = ENAMETOOLONG, -1;
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != 0)
            continue;
        char c = buf[i];
        buf[i] = 0;
        if (mkdir(buf, 0700) != 0 && errno != EEXIST)
            return -1;
        buf[i] = c;
    }
    return 0;
}

static void *dir_open(const char *rest, char *err, size_t errsize)
{
    if (!*rest) {
        store_fail(err, errsize, "store: dir: needs a path (dir:PATH)");
        return NULL;
    }
    dir_store *d = calloc(1, sizeof(*d));
    if (!d || !(d->path = strdup(rest))) {
        free(d);
        store_fail(err, errsize, "store: out of memory");
        return NULL;
    }
    d->records = d->leases = d->indexes = -1;
    for (int i = 0; i < LOCK_STRIPES; i++) {
        d->lock_fd[i] = -1;
        pthread_mutex_init(&d->lock_mu[i], NULL);
    }
    int root = -1, locks = -1;
    if (make_path(rest) != 0 || (root = open(rest, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        store_fail(err, errsize, "store %s: cannot make or open the directory: %s", rest,
                   strerror(errno));
        goto fail;
    }
    if ((d->records = open_dir(root, "records")) < 0 || (d->leases = open_dir(root, "leases")) < 0 ||
        (d->indexes = open_dir(root, "indexes")) < 0 || (locks = open_dir(root, "locks")) < 0) {
        store_fail(err, errsize, "store %s: cannot make its subdirectories: %s", rest,
                   strerror(errno));
        goto fail;
    }
    for (int i = 0; i < LOCK_STRIPES; i++) {
        char name[16];
        snprintf(name, sizeof(name), "%02d", i);
        d->lock_fd[i] = openat(locks, name, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (d->lock_fd[i] < 0) {
            store_fail(err, errsize, "store %s: cannot open lock file %s: %s", rest, name,
                       strerror(errno));
            goto fail;
        }
    }
    close(locks);
    close(root);
    sweep(d);
    return d;
fail:
    if (locks >= 0)
        close(locks);
    if (root >= 0)
        close(root);
    dir_close(d);
    return NULL;
}

static void dir_close(void *st)
{
    dir_store *d = st;
    if (!d)
        return;
    int fds[] = {d->records, d->leases, d->indexes};
    for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++)
        if (fds[i] >= 0)
            close(fds[i]);
    for (int i = 0; i < LOCK_STRIPES; i++) {
        if (d->lock_fd[i] >= 0)
            close(d->lock_fd[i]);
        pthread_mutex_destroy(&d->lock_mu[i]);
    }
    free(d->path);
    free(d);
}

static int dir_get(void *st, const char *key, char **data, size_t *len, uint64_t *version,
                   char *err, size_t errsize)
{
    dir_store *d = st;
    uint64_t v, exp;
    char *buf = NULL;
    size_t n = 0;
    int rc = read_record(d, key, &v, &exp, data ? &buf : NULL, &n, err, errsize);
    if (rc != STORE_OK)
        return rc;
    if (expired(exp)) {
        free(buf);
        remove_if_expired(d, key);
        return STORE_NOT_FOUND;
    }
    if (data)
        *data = buf;
    if (len)
        *len = n;
    if (version)
        *version = v;
    return STORE_OK;
}

/* The record's version now, 0 when it is absent or expired. */
static int current_version(dir_store *d, const char *key, uint64_t *cur, char *err,
                           size_t errsize)
{
    uint64_t exp;
    int rc = read_record(d, key, cur, &exp, NULL, NULL, err, errsize);
    if (rc == STORE_NOT_FOUND || (rc == STORE_OK && expired(exp))) {
        *cur = 0;
        return STORE_OK;
    }
    return rc;
}

static int dir_put(void *st, const char *key, const void *data, size_t len, uint64_t expect,
                   uint64_t ttl_ms, uint64_t *version, char *err, size_t errsize)
{
    dir_store *d = st;
    int i = lock_key(d, 'r', key, err, errsize);
    if (i < 0)
        return STORE_ERROR;
    uint64_t cur;
    int rc = current_version(d, key, &cur, err, errsize);
    if (rc == STORE_OK && cur != expect)
        rc = STORE_CONFLICT;
    if (rc == STORE_OK) {
        char header[HEADER_MAX];
        int hlen = snprintf(header, sizeof(header), RECORD_MAGIC "%llu %llu\n",
                            (unsigned long long)(expect + 1),
                            (unsigned long long)expiry(ttl_ms));
        rc = replace_file(d, d->records, key, header, (size_t)hlen, data, len, 1, err, errsize);
        if (rc == STORE_OK)
            *version = expect + 1;
    }
    unlock_key(d, i);
    if (rc == STORE_OK && __atomic_add_fetch(&d->puts, 1, __ATOMIC_RELAXED) % SWEEP_EVERY == 0)
        sweep(d);
    return rc;
}

static int dir_del(void *st, const char *key, char *err, size_t errsize)
{
    dir_store *d = st;
    int i = lock_key(d, 'r', key, err, errsize);
    if (i < 0)
        return STORE_ERROR;
    uint64_t v, exp;
    int rc = read_record(d, key, &v, &exp, NULL, NULL, err, errsize);
    if (rc == STORE_OK || rc == STORE_ERROR) { /* a corrupt record can still be deleted */
        int was_live = rc == STORE_OK && !expired(exp);
        if (unlinkat(d->records, key, 0) != 0 && errno != ENOENT)
            rc = sys_fail(err, errsize, d, "cannot delete", key);
        else if (fsync(d->records) != 0)
            rc = sys_fail(err, errsize, d, "cannot sync the directory of", key);
        else
            rc = was_live || rc == STORE_ERROR ? STORE_OK : STORE_NOT_FOUND;
    }
    unlock_key(d, i);
    return rc;
}

/* Reads lease key: its owner (into owner[0..size)) and expiry. STORE_NOT_FOUND
 * when there is none or it has lapsed (a lapsed one is removed). Under its stripe. */
static int read_lease(dir_store *d, const char *key, char *owner, size_t size, char *err,
                      size_t errsize)
{
    char *buf;
    size_t n, rest;
    uint64_t exp, zero;
    int rc = read_file(d, d->leases, key, SIZE_MAX, &buf, &n, NULL, err, errsize);
    if (rc != STORE_OK)
        return rc;
    if (parse_header(buf, n, LEASE_MAGIC, ' ', &exp, &zero, &rest) != 0 || n - rest < 2 ||
        buf[n - 1] != '\n' || n - rest > size) {
        /* A lease file cut short (a full disk) guards nothing: take it as lapsed. */
        free(buf);
        unlinkat(d->leases, key, 0);
        return STORE_NOT_FOUND;
    }
    memcpy(owner, buf + rest, n - rest - 1);
    owner[n - rest - 1] = 0;
    free(buf);
    if (expired(exp)) {
        unlinkat(d->leases, key, 0);
        return STORE_NOT_FOUND;
    }
    return STORE_OK;
}

/* Writes owner's lease key, lapsing ttl_ms from now. Not fsync'd: after a crash
 * of the machine a lease is better lost than kept. */
static int write_lease(dir_store *d, const char *key, const char *owner, uint64_t ttl_ms,
                       char *err, size_t errsize)
{
    char header[HEADER_MAX];
    int hlen = snprintf(header, sizeof(header), LEASE_MAGIC "%llu 0 ",
                        (unsigned long long)expiry(ttl_ms));
    char line[256];
    int olen = snprintf(line, sizeof(line), "%s\n", owner);
    char all[HEADER_MAX + 256];
    memcpy(all, header, (size_t)hlen);
    memcpy(all + hlen, line, (size_t)olen);
    return replace_file(d, d->leases, key, all, (size_t)(hlen + olen), "", 0, 0, err, errsize);
}

/* Takes (take) or renews lease key for owner. */
static int lease_op(dir_store *d, const char *key, const char *owner, uint64_t ttl_ms, int take,
                    char *err, size_t errsize)
{
    int i = lock_key(d, 'l', key, err, errsize);
    if (i < 0)
        return STORE_ERROR;
    char holder[256];
    int rc = read_lease(d, key, holder, sizeof(holder), err, errsize);
    if (rc == STORE_OK && strcmp(holder, owner) != 0)
        rc = STORE_CONFLICT;
    else if (rc == STORE_OK || (rc == STORE_NOT_FOUND && take))
        rc = write_lease(d, key, owner, ttl_ms, err, errsize);
    unlock_key(d, i);
    return rc;
}

static int dir_lease(void *st, const char *key, const char *owner, uint64_t ttl_ms, char *err,
                     size_t errsize)
{
    return lease_op(st, key, owner, ttl_ms, 1, err, errsize);
}

static int dir_renew(void *st, const char *key, const char *owner, uint64_t ttl_ms, char *err,
                     size_t errsize)
{
    return lease_op(st, key, owner, ttl_ms, 0, err, errsize);
}

static int dir_release(void *st, const char *key, const char *owner, char *err, size_t errsize)
{
    dir_store *d = st;
    int i = lock_key(d, 'l', key, err, errsize);
    if (i < 0)
        return STORE_ERROR;
    char holder[256];
    int rc = read_lease(d, key, holder, sizeof(holder), err, errsize);
    if (rc == STORE_OK && strcmp(holder, owner) == 0 && unlinkat(d->leases, key, 0) != 0)
        rc = sys_fail(err, errsize, d, "cannot release", key);
    else if (rc != STORE_ERROR)
        rc = STORE_OK;
    unlock_key(d, i);
    return rc;
}

static int dir_index_add(void *st, const char *key, const char *member, char *err,
                         size_t errsize)
{
    dir_store *d = st;
    int made = mkdirat(d->indexes, key, 0700) == 0;
    if (!made && errno != EEXIST)
        return sys_fail(err, errsize, d, "cannot make index", key);
    if (made && fsync(d->indexes) != 0)
        return sys_fail(err, errsize, d, "cannot sync index", key);
    int dfd = openat(d->indexes, key, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return sys_fail(err, errsize, d, "cannot open index", key);
    int fd = openat(dfd, member, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    int rc = fd >= 0 && close(fd) == 0 && fsync(dfd) == 0
                 ? STORE_OK
                 : sys_fail(err, errsize, d, "cannot add to index", key);
    close(dfd);
    return rc;
}

static int dir_index_remove(void *st, const char *key, const char *member, char *err,
                            size_t errsize)
{
    dir_store *d = st;
    int dfd = openat(d->indexes, key, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return errno == ENOENT ? STORE_OK : sys_fail(err, errsize, d, "cannot open index", key);
    int rc = STORE_OK;
    if (unlinkat(dfd, member, 0) == 0) {
        if (fsync(dfd) != 0)
            rc = sys_fail(err, errsize, d, "cannot sync index", key);
    } else if (errno != ENOENT) {
        rc = sys_fail(err, errsize, d, "cannot remove from index", key);
    }
    close(dfd);
    return rc;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int dir_index_list(void *st, const char *key, const char *after, size_t max,
                          char ***members, size_t *n, char *err, size_t errsize)
{
    dir_store *d = st;
    int dfd = openat(d->indexes, key, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0)
        return errno == ENOENT ? STORE_OK : sys_fail(err, errsize, d, "cannot open index", key);
    DIR *dir = fdopendir(dfd);
    if (!dir) {
        close(dfd);
        return sys_fail(err, errsize, d, "cannot read index", key);
    }
    char **v = NULL;
    size_t count = 0, cap = 0;
    struct dirent *de;
    int rc = STORE_OK;
    while ((de = readdir(dir)) != NULL) {
        if (de->d_name[0] == '.' || (after && strcmp(de->d_name, after) <= 0))
            continue;
        if (count == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            char **nv = realloc(v, ncap * sizeof(*v));
            if (!nv) {
                rc = STORE_ERROR;
                break;
            }
            v = nv;
            cap = ncap;
        }
        if (!(v[count] = strdup(de->d_name))) {
            rc = STORE_ERROR;
            break;
        }
        count++;
    }
    closedir(dir);
    if (rc != STORE_OK) {
        store_free_members(v, count);
        return store_fail(err, errsize, "store %s: out of memory listing index %s", d->path, key);
    }
    if (count > 1)
        qsort(v, count, sizeof(*v), cmp_names);
    while (count > max)
        free(v[--count]);
    if (count == 0) {
        free(v);
        v = NULL;
    }
    *members = v;
    *n = count;
    return STORE_OK;
}

const store_ops store_dir_ops = {
    .scheme = "dir",
    .open = dir_open,
    .close = dir_close,
    .get = dir_get,
    .put = dir_put,
    .del = dir_del,
    .lease = dir_lease,
    .renew = dir_renew,
    .release = dir_release,
    .index_add = dir_index_add,
    .index_remove = dir_index_remove,
    .index_list = dir_index_list,
};
