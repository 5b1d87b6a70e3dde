/* The session store (net/store.h): every case runs against each engine, dir:
 * in a temporary directory and redis:// on a redis-server this test starts on a
 * free loopback port (in a temporary directory) and stops at the end. Records
 * with compare-and-set, expiry, leases, indexes, bad input, threads and
 * processes racing. */
#define _GNU_SOURCE
#include "../../net/store.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test.h"

static store *S;             /* the store of the engine under test */
static const char *URL;      /* its URL */
static char tmpdir[256];     /* this run's temporary directory */
static char name_buf[128];

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* A key unique to this test and engine (records left by one case never meet
 * another's). */
static const char *K(const char *what)
{
    snprintf(name_buf, sizeof(name_buf), "%s:%s", test_current, what);
    return name_buf;
}

/* ---- records ------------------------------------------------------------------------ */

TEST(records)
{
    char err[256], *data = NULL, key[128];
    size_t len = 99;
    uint64_t v = 99;
    snprintf(key, sizeof(key), "%s", K("r"));
    CHECK_INT(store_get(S, key, &data, &len, &v, err, sizeof(err)), STORE_NOT_FOUND,
              "a record never written is not found");
    CHECK(data == NULL && len == 0 && v == 0, "a failed get leaves its outputs empty");
    static const char bytes[] = "one\0two";
    CHECK_INT(store_put(S, key, bytes, 7, 0, 0, &v, err, sizeof(err)), STORE_OK,
              "the first write, expecting no record");
    CHECK_INT(v, 1, "the first write's version");
    CHECK_INT(store_get(S, key, &data, &len, &v, err, sizeof(err)), STORE_OK, "read back");
    CHECK(len == 7 && data && memcmp(data, bytes, 7) == 0 && data[7] == 0,
          "the bytes read back are the bytes written, NULs included, NUL-terminated");
    CHECK_INT(v, 1, "the version read back");
    free(data);
    CHECK_INT(store_put(S, key, "x", 1, 0, 0, &v, err, sizeof(err)), STORE_CONFLICT,
              "expecting no record when there is one");
    CHECK_INT(store_put(S, key, "second", 6, 1, 0, &v, err, sizeof(err)), STORE_OK,
              "a write expecting the current version");
    CHECK_INT(v, 2, "the version a write raises");
    CHECK_INT(store_put(S, key, "stale", 5, 1, 0, &v, err, sizeof(err)), STORE_CONFLICT,
              "a write expecting an old version");
    CHECK_INT(store_put(S, key, "ahead", 5, 7, 0, &v, err, sizeof(err)), STORE_CONFLICT,
              "a write expecting a version from the future");
    CHECK_INT(store_get(S, key, &data, &len, &v, err, sizeof(err)), STORE_OK, "read again");
    CHECK(len == 6 && memcmp(data, "second", 6) == 0 && v == 2,
          "a write that conflicted changed nothing");
    free(data);
    CHECK_INT(store_get(S, key, NULL, NULL, &v, err, sizeof(err)), STORE_OK,
              "a get of the version alone");
    CHECK_INT(v, 2, "the version alone");
    len = 0;
    CHECK_INT(store_get(S, key, NULL, &len, &v, err, sizeof(err)), STORE_OK,
              "a get of the version and length without the bytes");
    CHECK(len == 6 && v == 2, "the length and version without the bytes");
    CHECK_INT(store_get(S, K("absent"), NULL, &len, &v, err, sizeof(err)), STORE_NOT_FOUND,
              "the version of an absent record");
    CHECK_INT(store_put(S, key, NULL, 0, 2, 0, &v, err, sizeof(err)), STORE_OK,
              "an empty record");
    CHECK_INT(store_get(S, key, &data, &len, &v, err, sizeof(err)), STORE_OK, "read empty");
    CHECK(data && len == 0 && data[0] == 0 && v == 3, "an empty record reads back empty");
    free(data);
    CHECK_INT(store_delete(S, key, err, sizeof(err)), STORE_OK, "delete");
    CHECK_INT(store_get(S, key, &data, &len, &v, err, sizeof(err)), STORE_NOT_FOUND,
              "a deleted record is not found");
    CHECK_INT(store_delete(S, key, err, sizeof(err)), STORE_NOT_FOUND,
              "deleting an absent record");
    CHECK_INT(store_put(S, key, "again", 5, 3, 0, &v, err, sizeof(err)), STORE_CONFLICT,
              "a write expecting the deleted record's version");
    CHECK_INT(store_put(S, key, "again", 5, 0, 0, &v, err, sizeof(err)), STORE_OK,
              "a deleted record's key is free again");
    CHECK_INT(v, 1, "and starts at version 1");
    store_delete(S, key, err, sizeof(err));
}

TEST(expiry)
{
    char err[256], *data = NULL, key[128], keep[128];
    size_t len;
    uint64_t v;
    snprintf(key, sizeof(key), "%s", K("short"));
    snprintf(keep, sizeof(keep), "%s", K("kept"));
    CHECK_INT(store_put(S, key, "brief", 5, 0, 150, &v, err, sizeof(err)), STORE_OK,
              "a record with a ttl");
    CHECK_INT(store_put(S, keep, "long", 4, 0, 150, &v, err, sizeof(err)), STORE_OK,
              "another with a ttl");
    CHECK_INT(store_put(S, keep, "forever", 7, 1, 0, &v, err, sizeof(err)), STORE_OK,
              "rewritten without one");
    CHECK_INT(store_get(S, key, &data, &len, &v, err, sizeof(err)), STORE_OK,
              "a record before its ttl");
    free(data);
    sleep_ms(300);
    CHECK_INT(store_get(S, key, &data, &len, &v, err, sizeof(err)), STORE_NOT_FOUND,
              "a record after its ttl is not found");
    CHECK_INT(store_delete(S, key, err, sizeof(err)), STORE_NOT_FOUND,
              "deleting an expired record");
    CHECK_INT(store_put(S, key, "new", 3, 1, 0, &v, err, sizeof(err)), STORE_CONFLICT,
              "a write expecting the expired record's version");
    CHECK_INT(store_put(S, key, "new", 3, 0, 0, &v, err, sizeof(err)), STORE_OK,
              "an expired record's key is free");
    CHECK_INT(v, 1, "at version 1");
    CHECK_INT(store_get(S, keep, &data, &len, &v, err, sizeof(err)), STORE_OK,
              "a record rewritten without a ttl outlives the old one");
    CHECK(data && len == 7 && memcmp(data, "forever", 7) == 0 && v == 2, "its bytes and version");
    free(data);
    /* A write with a ttl on a record without one: the new ttl counts. */
    CHECK_INT(store_put(S, keep, "brief", 5, 2, 100, &v, err, sizeof(err)), STORE_OK,
              "a ttl given again");
    sleep_ms(250);
    CHECK_INT(store_get(S, keep, NULL, NULL, &v, err, sizeof(err)), STORE_NOT_FOUND,
              "it expires by the new ttl");
    store_delete(S, key, err, sizeof(err));
}

/* ---- leases ------------------------------------------------------------------------- */

TEST(leases)
{
    char err[256], key[128];
    snprintf(key, sizeof(key), "%s", K("l"));
    CHECK_INT(store_lease(S, key, "alice", 5000, err, sizeof(err)), STORE_OK, "a free lease");
    CHECK_INT(store_lease(S, key, "bob", 5000, err, sizeof(err)), STORE_CONFLICT,
              "a lease another owner holds");
    CHECK_INT(store_lease(S, key, "alice", 5000, err, sizeof(err)), STORE_OK,
              "the holder taking it again");
    CHECK_INT(store_renew(S, key, "alice", 5000, err, sizeof(err)), STORE_OK, "the holder renews");
    CHECK_INT(store_renew(S, key, "bob", 5000, err, sizeof(err)), STORE_CONFLICT,
              "another owner cannot renew it");
    CHECK_INT(store_release(S, key, "bob", err, sizeof(err)), STORE_OK,
              "another owner's release is a no-op");
    CHECK_INT(store_lease(S, key, "bob", 5000, err, sizeof(err)), STORE_CONFLICT,
              "which left the lease with its holder");
    CHECK_INT(store_release(S, key, "alice", err, sizeof(err)), STORE_OK, "the holder releases");
    CHECK_INT(store_renew(S, key, "alice", 5000, err, sizeof(err)), STORE_NOT_FOUND,
              "a released lease cannot be renewed");
    CHECK_INT(store_lease(S, key, "bob", 5000, err, sizeof(err)), STORE_OK,
              "a released lease is free");
    CHECK_INT(store_release(S, key, "bob", err, sizeof(err)), STORE_OK, "release it");
    CHECK_INT(store_release(S, key, "bob", err, sizeof(err)), STORE_OK,
              "releasing a lease nobody holds");
}

TEST(lease_lapse)
{
    char err[256], key[128];
    snprintf(key, sizeof(key), "%s", K("l"));
    CHECK_INT(store_lease(S, key, "owner 1", 150, err, sizeof(err)), STORE_OK, "a short lease");
    sleep_ms(80);
    CHECK_INT(store_renew(S, key, "owner 1", 150, err, sizeof(err)), STORE_OK,
              "renewed before it lapses");
    sleep_ms(100);
    CHECK_INT(store_lease(S, key, "owner 2", 150, err, sizeof(err)), STORE_CONFLICT,
              "the renewal kept it past its first ttl");
    sleep_ms(250);
    CHECK_INT(store_renew(S, key, "owner 1", 150, err, sizeof(err)), STORE_NOT_FOUND,
              "a lapsed lease nobody took cannot be renewed");
    CHECK_INT(store_lease(S, key, "owner 2", 5000, err, sizeof(err)), STORE_OK,
              "a lapsed lease is free");
    CHECK_INT(store_renew(S, key, "owner 1", 150, err, sizeof(err)), STORE_CONFLICT,
              "the old holder's renewal after another took it");
    CHECK_INT(store_release(S, key, "owner 1", err, sizeof(err)), STORE_OK,
              "the old holder's release is a no-op");
    CHECK_INT(store_lease(S, key, "owner 3", 5000, err, sizeof(err)), STORE_CONFLICT,
              "and left the new holder's lease");
    store_release(S, key, "owner 2", err, sizeof(err));
}

/* ---- indexes ------------------------------------------------------------------------ */

/* The members of index key after `after`, up to max, joined by ",". */
static const char *listed(const char *key, const char *after, size_t max)
{
    static char out[4096];
    char err[256], **m = NULL;
    size_t n = 0;
    int rc = store_index_list(S, key, after, max, &m, &n, err, sizeof(err));
    if (rc != STORE_OK) {
        snprintf(out, sizeof(out), "error %d: %s", rc, err);
        return out;
    }
    out[0] = 0;
    for (size_t i = 0; i < n; i++) {
        if (i)
            strcat(out, ",");
        strncat(out, m[i], sizeof(out) - strlen(out) - 2);
    }
    store_free_members(m, n);
    return out;
}

TEST(indexes)
{
    char err[256], key[128];
    snprintf(key, sizeof(key), "%s", K("i"));
    CHECK_STR(listed(key, NULL, 10), "", "an index never written is empty");
    const char *adds[] = {"b", "a", "c", "a", "B"};
    for (size_t i = 0; i < sizeof(adds) / sizeof(adds[0]); i++)
        CHECK_INT(store_index_add(S, key, adds[i], err, sizeof(err)), STORE_OK, "add a member");
    CHECK_STR(listed(key, NULL, 10), "B,a,b,c", "members in byte order, each once");
    CHECK_STR(listed(key, "", 2), "B,a", "the first page");
    CHECK_STR(listed(key, "a", 1), "b", "a page after a member");
    CHECK_STR(listed(key, "aa", 10), "b,c", "a page after a name between members");
    CHECK_STR(listed(key, "c", 10), "", "nothing after the last");
    CHECK_STR(listed(key, NULL, 0), "", "max 0 lists nothing");
    CHECK_INT(store_index_remove(S, key, "b", err, sizeof(err)), STORE_OK, "remove a member");
    CHECK_INT(store_index_remove(S, key, "zz", err, sizeof(err)), STORE_OK,
              "removing a member that is not there");
    CHECK_STR(listed(key, NULL, 10), "B,a,c", "after the removal");
    CHECK_INT(store_index_remove(S, K("none"), "a", err, sizeof(err)), STORE_OK,
              "removing from an index that does not exist");
    for (const char *m = "Bac"; *m; m++) {
        char one[2] = {*m, 0};
        store_index_remove(S, key, one, err, sizeof(err));
    }
    CHECK_STR(listed(key, NULL, 10), "", "an index whose members are all removed is empty");

    /* Paging through 250 members, 64 at a time, meets each once and in order. */
    char ids[250][40];
    for (int i = 0; i < 250; i++) {
        snprintf(ids[i], sizeof(ids[i]), "%08x%08x", (unsigned)(i * 2654435761u), (unsigned)i);
        store_index_add(S, key, ids[i], err, sizeof(err));
    }
    char after[64] = "", prev[64] = "";
    int seen = 0, ordered = 1, pages = 0;
    for (;;) {
        char **m = NULL;
        size_t n = 0;
        if (store_index_list(S, key, after, 64, &m, &n, err, sizeof(err)) != STORE_OK || n == 0) {
            store_free_members(m, n);
            break;
        }
        pages++;
        for (size_t i = 0; i < n; i++) {
            if (strcmp(m[i], prev) <= 0)
                ordered = 0;
            snprintf(prev, sizeof(prev), "%s", m[i]);
            seen++;
        }
        snprintf(after, sizeof(after), "%s", m[n - 1]);
        store_free_members(m, n);
    }
    CHECK_INT(seen, 250, "paging meets every member");
    CHECK_INT(pages, 4, "in pages of 64");
    CHECK(ordered, "each member after the one before");
    for (int i = 0; i < 250; i++)
        store_index_remove(S, key, ids[i], err, sizeof(err));
}

/* ---- bad input ---------------------------------------------------------------------- */

/* rc must be STORE_ERROR with a message in err that names `says`. */
#define CHECK_REFUSED(rc, err, says, what)                                  \
    do {                                                                    \
        CHECK_INT((rc), STORE_ERROR, what);                                 \
        CHECK_CONTAINS((err), (says), what);                                \
    } while (0)

TEST(bad_input)
{
    char err[256], *data, **m;
    size_t len, n;
    uint64_t v;
    char long_key[260];
    memset(long_key, 'k', 201);
    long_key[201] = 0;
    CHECK_REFUSED(store_get(S, "a/b", &data, &len, &v, err, sizeof(err)), err, "'/'",
                  "a key with '/'");
    CHECK_REFUSED(store_put(S, "../x", "x", 1, 0, 0, &v, err, sizeof(err)), err, "'.'",
                  "a key that climbs out");
    CHECK_REFUSED(store_put(S, "", "x", 1, 0, 0, &v, err, sizeof(err)), err, "1 to 200",
                  "an empty key");
    CHECK_REFUSED(store_put(S, long_key, "x", 1, 0, 0, &v, err, sizeof(err)), err, "1 to 200",
                  "a key of 201 bytes");
    CHECK_REFUSED(store_put(S, "a b", "x", 1, 0, 0, &v, err, sizeof(err)), err, "printable",
                  "a key with a space");
    CHECK_REFUSED(store_put(S, "a\nb", "x", 1, 0, 0, &v, err, sizeof(err)), err, "0x0a",
                  "a key with a newline");
    CHECK_REFUSED(store_put(S, "caf\xc3\xa9", "x", 1, 0, 0, &v, err, sizeof(err)), err,
                  "printable", "a key that is not ASCII");
    CHECK_REFUSED(store_delete(S, NULL, err, sizeof(err)), err, "NULL", "a NULL key");
    CHECK_REFUSED(store_get(NULL, "k", &data, &len, &v, err, sizeof(err)), err, "NULL",
                  "a NULL store");
    CHECK_REFUSED(store_put(S, "k", NULL, 5, 0, 0, &v, err, sizeof(err)), err, "NULL",
                  "NULL data with a length");
    /* Refused before the bytes are read: the pointer need not hold them. */
    CHECK_REFUSED(store_put(S, "k", "x", ((size_t)512 << 20) + 1, 0, 0, &v, err, sizeof(err)),
                  err, "512 MiB", "a record over 512 MiB");
    CHECK_REFUSED(store_put(S, "k", "x", 1, UINT64_MAX, 0, &v, err, sizeof(err)), err,
                  "cannot be raised", "a version at its maximum");
    CHECK_REFUSED(store_lease(S, "k", "me", 0, err, sizeof(err)), err, "ttl",
                  "a lease without a ttl");
    CHECK_REFUSED(store_lease(S, "k", NULL, 100, err, sizeof(err)), err, "owner",
                  "a lease without an owner");
    CHECK_REFUSED(store_lease(S, "k", "me\n", 100, err, sizeof(err)), err, "owner",
                  "an owner with a newline");
    CHECK_REFUSED(store_renew(S, "k", "", 100, err, sizeof(err)), err, "owner", "an empty owner");
    CHECK_REFUSED(store_index_add(S, "i", "a/b", err, sizeof(err)), err, "member",
                  "a member with '/'");
    CHECK_REFUSED(store_index_list(S, "i", NULL, 10, NULL, &n, err, sizeof(err)), err,
                  "members", "a list without somewhere to put it");
    CHECK_REFUSED(store_index_list(S, "i", "x/y", 10, &m, &n, err, sizeof(err)), err, "member",
                  "a list after a name with '/'");
    CHECK_INT(store_put(S, "a/b", "x", 1, 0, 0, &v, NULL, 0), STORE_ERROR,
              "no error buffer: still refused, nothing written");
    CHECK_INT(store_get(S, "a/b", NULL, NULL, NULL, NULL, 0), STORE_ERROR,
              "no outputs and no error buffer");
    char small[8];
    CHECK_REFUSED(store_get(S, "a/b", NULL, NULL, NULL, small, sizeof(small)), small, "store",
                  "a small error buffer gets the message cut, NUL-terminated");
    CHECK(strlen(small) == 7, "cut at its size");
    store_close(NULL);
    CHECK(store_url(NULL) == NULL, "store_url(NULL)");
    CHECK_STR(store_url(S), URL, "store_url gives the URL opened");
}

TEST(huge_value)
{
    char err[256], *data = NULL, key[128];
    size_t len = 0, big = 8u << 20;
    uint64_t v = 0;
    snprintf(key, sizeof(key), "%s", K("big"));
    unsigned char *b = malloc(big);
    uint32_t x = 12345;
    for (size_t i = 0; i < big; i++) {
        x = x * 1103515245u + 12345u;
        b[i] = (unsigned char)(x >> 24);
    }
    CHECK_INT(store_put(S, key, b, big, 0, 0, &v, err, sizeof(err)), STORE_OK, "an 8 MiB record");
    CHECK_INT(store_get(S, key, &data, &len, &v, err, sizeof(err)), STORE_OK, "read it back");
    CHECK(len == big && data && memcmp(data, b, big) == 0, "all 8 MiB read back unchanged");
    free(data);
    free(b);
    store_delete(S, key, err, sizeof(err));
}

/* ---- racing ------------------------------------------------------------------------- */

typedef struct racer {
    pthread_barrier_t *go;
    const char *key;
    uint64_t expect;
    int rc;
    char owner[48];
    int increments; /* for the counter: how many to make */
} racer;

static void *cas_once(void *arg)
{
    racer *r = arg;
    char err[256];
    uint64_t v;
    pthread_barrier_wait(r->go);
    r->rc = store_put(S, r->key, r->owner, strlen(r->owner), r->expect, 0, &v, err, sizeof(err));
    return NULL;
}

TEST(cas_race)
{
    char err[256], key[128];
    uint64_t v = 0;
    snprintf(key, sizeof(key), "%s", K("c"));
    store_put(S, key, "start", 5, 0, 0, &v, err, sizeof(err));
    int rounds_ok = 0;
    const int rounds = 40;
    for (int round = 0; round < rounds; round++) {
        pthread_barrier_t go;
        pthread_barrier_init(&go, NULL, 2);
        racer r[2];
        pthread_t t[2];
        for (int i = 0; i < 2; i++) {
            r[i] = (racer){.go = &go, .key = key, .expect = v};
            snprintf(r[i].owner, sizeof(r[i].owner), "thread %d round %d", i, round);
            pthread_create(&t[i], NULL, cas_once, &r[i]);
        }
        for (int i = 0; i < 2; i++)
            pthread_join(t[i], NULL);
        pthread_barrier_destroy(&go);
        int won = (r[0].rc == STORE_OK) + (r[1].rc == STORE_OK);
        int lost = (r[0].rc == STORE_CONFLICT) + (r[1].rc == STORE_CONFLICT);
        char *data = NULL;
        size_t len = 0;
        store_get(S, key, &data, &len, &v, err, sizeof(err));
        int winner = r[0].rc == STORE_OK ? 0 : 1;
        if (won == 1 && lost == 1 && data && len == strlen(r[winner].owner) &&
            memcmp(data, r[winner].owner, len) == 0)
            rounds_ok++;
        free(data);
    }
    CHECK_INT(rounds_ok, rounds,
              "rounds where exactly one of two racing writes won and its bytes are stored");
    CHECK_INT(v, rounds + 1, "one version per round");
    store_delete(S, key, err, sizeof(err));
}

/* Adds r->increments to the counter record r->key, each by read, +1, write
 * expecting the version read, again on a conflict. */
static void *count_up(void *arg)
{
    racer *r = arg;
    char err[256];
    pthread_barrier_wait(r->go);
    for (int i = 0; i < r->increments;) {
        char *data = NULL, buf[32];
        size_t len;
        uint64_t v, nv;
        int rc = store_get(S, r->key, &data, &len, &v, err, sizeof(err));
        long n = rc == STORE_OK ? strtol(data, NULL, 10) : 0;
        free(data);
        if (rc != STORE_OK && rc != STORE_NOT_FOUND) {
            r->rc = rc;
            return NULL;
        }
        int w = snprintf(buf, sizeof(buf), "%ld", n + 1);
        rc = store_put(S, r->key, buf, (size_t)w, v, 0, &nv, err, sizeof(err));
        if (rc == STORE_OK)
            i++;
        else if (rc != STORE_CONFLICT) {
            r->rc = rc;
            return NULL;
        }
    }
    r->rc = STORE_OK;
    return NULL;
}

/* The counter record's value. */
static long counter(const char *key)
{
    char err[256], *data = NULL;
    size_t len;
    uint64_t v;
    long n = -1;
    if (store_get(S, key, &data, &len, &v, err, sizeof(err)) == STORE_OK)
        n = strtol(data, NULL, 10);
    free(data);
    return n;
}

TEST(counter_threads)
{
    char err[256], key[128];
    snprintf(key, sizeof(key), "%s", K("n"));
    enum { THREADS = 4, EACH = 25 };
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, THREADS);
    racer r[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
        r[i] = (racer){.go = &go, .key = key, .increments = EACH, .rc = -9};
        pthread_create(&t[i], NULL, count_up, &r[i]);
    }
    int all_ok = 1;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        all_ok &= r[i].rc == STORE_OK;
    }
    pthread_barrier_destroy(&go);
    CHECK(all_ok, "every thread made its increments");
    CHECK_INT(counter(key), THREADS * EACH, "no increment lost among 4 threads");
    store_delete(S, key, err, sizeof(err));
}

/* Another process (its own store handle) counts up beside this one: the
 * compare-and-set holds between processes too. */
TEST(counter_processes)
{
    char err[256], key[128];
    snprintf(key, sizeof(key), "%s", K("n"));
    enum { EACH = 30 };
    int pipefd[2];
    if (pipe(pipefd) != 0) {
        CHECK(0, "pipe");
        return;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(pipefd[1]);
        store *mine = store_open(URL, err, sizeof(err));
        char c;
        if (read(pipefd[0], &c, 1) != 1 || !mine)
            _exit(2);
        store *parent = S;
        S = mine;
        pthread_barrier_t go;
        pthread_barrier_init(&go, NULL, 1);
        racer r = {.go = &go, .key = key, .increments = EACH, .rc = -9};
        count_up(&r);
        S = parent;
        store_close(mine);
        _exit(r.rc == STORE_OK ? 0 : 1);
    }
    close(pipefd[0]);
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, 1);
    racer r = {.go = &go, .key = key, .increments = EACH, .rc = -9};
    if (write(pipefd[1], "g", 1) != 1)
        CHECK(0, "start the child");
    close(pipefd[1]);
    count_up(&r);
    int status = 0;
    waitpid(pid, &status, 0);
    pthread_barrier_destroy(&go);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the other process made its increments");
    CHECK_INT(r.rc, STORE_OK, "this process made its increments");
    CHECK_INT(counter(key), 2 * EACH, "no increment lost between two processes");
    store_delete(S, key, err, sizeof(err));
}

static void *lease_once(void *arg)
{
    racer *r = arg;
    char err[256];
    pthread_barrier_wait(r->go);
    r->rc = store_lease(S, r->key, r->owner, 5000, err, sizeof(err));
    return NULL;
}

TEST(lease_race)
{
    char err[256], key[128];
    enum { THREADS = 12 };
    int rounds_ok = 0;
    for (int round = 0; round < 10; round++) {
        snprintf(key, sizeof(key), "%s%d", K("l"), round);
        pthread_barrier_t go;
        pthread_barrier_init(&go, NULL, THREADS);
        racer r[THREADS];
        pthread_t t[THREADS];
        for (int i = 0; i < THREADS; i++) {
            r[i] = (racer){.go = &go, .key = key};
            snprintf(r[i].owner, sizeof(r[i].owner), "replica-%d", i);
            pthread_create(&t[i], NULL, lease_once, &r[i]);
        }
        int won = 0, lost = 0, winner = -1;
        for (int i = 0; i < THREADS; i++) {
            pthread_join(t[i], NULL);
            if (r[i].rc == STORE_OK)
                won++, winner = i;
            lost += r[i].rc == STORE_CONFLICT;
        }
        pthread_barrier_destroy(&go);
        if (won == 1 && lost == THREADS - 1 &&
            store_renew(S, key, r[winner].owner, 5000, err, sizeof(err)) == STORE_OK)
            rounds_ok++;
        if (winner >= 0)
            store_release(S, key, r[winner].owner, err, sizeof(err));
    }
    CHECK_INT(rounds_ok, 10, "rounds where exactly one of 12 racing takers got the lease (more than the 8 connections of a Redis store)");
}

/* What was written is there for a store opened afresh. */
TEST(reopen)
{
    char err[256], *data = NULL, key[128], idx[128];
    size_t len = 0;
    uint64_t v = 0;
    snprintf(key, sizeof(key), "%s", K("r"));
    snprintf(idx, sizeof(idx), "%s", K("i"));
    store_put(S, key, "kept", 4, 0, 0, &v, err, sizeof(err));
    store_index_add(S, idx, "m1", err, sizeof(err));
    store *again = store_open(URL, err, sizeof(err));
    CHECK(again != NULL, "the store opens a second time");
    if (!again)
        return;
    CHECK_INT(store_get(again, key, &data, &len, &v, err, sizeof(err)), STORE_OK,
              "the other handle reads the record");
    CHECK(len == 4 && memcmp(data, "kept", 4) == 0 && v == 1, "its bytes and version");
    free(data);
    store *mine = S;
    S = again;
    CHECK_STR(listed(idx, NULL, 10), "m1", "the other handle lists the index");
    S = mine;
    store_delete(again, key, err, sizeof(err));
    store_index_remove(again, idx, "m1", err, sizeof(err));
    store_close(again);
}

/* ---- engine-specific ---------------------------------------------------------------- */

typedef struct bad_url {
    const char *url, *says; /* a URL store_open refuses, and what its error says */
} bad_url;

static void refused_urls(const bad_url *bad, size_t n)
{
    char err[256];
    for (size_t i = 0; i < n; i++) {
        err[0] = 0;
        store *s = store_open(bad[i].url, err, sizeof(err));
        CHECK(s == NULL, bad[i].url);
        CHECK_CONTAINS(err, bad[i].says, bad[i].url);
        store_close(s);
    }
}

TEST(open_errors)
{
    char err[256], path[512];
    const bad_url bad[] = {
        {"", "no URL"},
        {"nosuch:x", "unknown store"},
        {"/tmp/x", "unknown store"},
        {"dir:", "needs a path"},
        {"dir:/proc/self/nonexistent/x", "cannot make"},
    };
    refused_urls(bad, sizeof(bad) / sizeof(bad[0]));
    CHECK(store_open(NULL, err, sizeof(err)) == NULL, "a NULL URL");
    snprintf(path, sizeof(path), "%s/file", tmpdir);
    int fd = open(path, O_WRONLY | O_CREAT, 0600);
    close(fd);
    char url[600];
    snprintf(url, sizeof(url), "dir:%s", path);
    CHECK(store_open(url, err, sizeof(err)) == NULL, "dir: on a plain file");
    CHECK_CONTAINS(err, "cannot make or open", "dir: on a plain file says so");
    snprintf(url, sizeof(url), "dir:%s/a/b/c", tmpdir);
    store *s = store_open(url, err, sizeof(err));
    CHECK(s != NULL, "dir: makes missing parents");
    store_close(s);
}

/* A record file that is not one of the store's (cut short, written by hand) is
 * an error that says so, and can still be deleted. */
TEST(dir_corrupt)
{
    char err[256], path[600], *data = NULL;
    size_t len;
    uint64_t v;
    snprintf(path, sizeof(path), "%s/records/broken", URL + 4);
    FILE *f = fopen(path, "w");
    fputs("capsa-store-record 1 12", f);
    fclose(f);
    CHECK_REFUSED(store_get(S, "broken", &data, &len, &v, err, sizeof(err)), err, "corrupt",
                  "a record without a whole header");
    CHECK(data == NULL, "no bytes for it");
    CHECK_INT(store_put(S, "broken", "x", 1, 0, 0, &v, err, sizeof(err)), STORE_ERROR,
              "no write over a record that cannot be read");
    CHECK_INT(store_delete(S, "broken", err, sizeof(err)), STORE_OK, "it can be deleted");
    CHECK_INT(store_get(S, "broken", &data, &len, &v, err, sizeof(err)), STORE_NOT_FOUND,
              "and is gone");
}

/* An expired record nobody reads again is removed when the store next opens. */
TEST(dir_sweep)
{
    char err[256], path[600];
    uint64_t v;
    store_put(S, "swept", "x", 1, 0, 50, &v, err, sizeof(err));
    store_put(S, "unswept", "x", 1, 0, 0, &v, err, sizeof(err));
    sleep_ms(120);
    store *again = store_open(URL, err, sizeof(err));
    store_close(again);
    struct stat st;
    snprintf(path, sizeof(path), "%s/records/swept", URL + 4);
    CHECK(stat(path, &st) != 0 && errno == ENOENT, "the expired record's file is gone");
    snprintf(path, sizeof(path), "%s/records/unswept", URL + 4);
    CHECK(stat(path, &st) == 0, "a live record's file stays");
    store_delete(S, "unswept", err, sizeof(err));
}

/* ---- the Redis server ----------------------------------------------------------------- */

static pid_t redis_pid = -1;
static int redis_port;
static char redis_dir[300];

/* A port that was free a moment ago on 127.0.0.1. */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    int port = -1;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
        getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

/* Starts a redis-server on port with its files in redis_dir (no snapshots;
 * password: --requirepass when not NULL) and waits until it answers (url, with
 * the password in it, must open). Its pid, or -1 when it did not start. */
static pid_t spawn_redis(int port, const char *password, const char *url)
{
    char p[16], log[400];
    snprintf(p, sizeof(p), "%d", port);
    snprintf(log, sizeof(log), "%s/redis-%d.log", redis_dir, port);
    pid_t pid = fork();
    if (pid == 0) {
        /* It goes when this test goes, even when the test crashes. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        execlp("redis-server", "redis-server", "--port", p, "--bind", "127.0.0.1", "--dir",
               redis_dir, "--save", "", "--appendonly", "no", "--logfile", log, "--daemonize",
               "no", "--requirepass", password ? password : "", (char *)NULL);
        _exit(127);
    }
    if (pid < 0)
        return -1;
    char err[256];
    for (int i = 0; i < 100; i++) {
        store *s = store_open(url, err, sizeof(err));
        if (s) {
            store_close(s);
            return pid;
        }
        int status;
        if (waitpid(pid, &status, WNOHANG) == pid)
            return -1;
        sleep_ms(50);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

/* Starts the redis-server of the redis:// cases on redis_port. 0 or -1. */
static int redis_start(void)
{
    char url[64];
    snprintf(url, sizeof(url), "redis://127.0.0.1:%d", redis_port);
    redis_pid = spawn_redis(redis_port, NULL, url);
    return redis_pid > 0 ? 0 : -1;
}

static void redis_stop(void)
{
    if (redis_pid <= 0)
        return;
    kill(redis_pid, SIGKILL);
    waitpid(redis_pid, NULL, 0);
    redis_pid = -1;
}

static int have_redis_server(void)
{
    return system("command -v redis-server >/dev/null 2>&1") == 0;
}

TEST(redis_open_errors)
{
    char url[128];
    int closed = free_port();
    snprintf(url, sizeof(url), "redis://127.0.0.1:%d/0", closed);
    const bad_url bad[] = {
        {"redis:", "redis://HOST"},
        {"redis:127.0.0.1", "redis://HOST"},
        {"redis://", "needs a host"},
        {"redis://:6379", "needs a host"},
        {"redis://127.0.0.1:0", "port must be"},
        {"redis://127.0.0.1:65536", "port must be"},
        {"redis://127.0.0.1:http", "port must be"},
        {"redis://127.0.0.1:6379/x", "database must be"},
        {"redis://127.0.0.1:6379/1/2", "database must be"},
        {"redis://secret@127.0.0.1", "[USER]:PASSWORD@"},
        {"redis://[::1:6379", "lacks its ']'"},
        {url, "cannot connect"},
        {"redis://no-such-host.invalid", "cannot connect"},
    };
    refused_urls(bad, sizeof(bad) / sizeof(bad[0]));
}

/* Redis goes away and comes back: the store says so while it is away and
 * reconnects by itself once it is back. */
TEST(redis_restart)
{
    char err[256];
    uint64_t v;
    CHECK_INT(store_put(S, "before", "x", 1, 0, 0, &v, err, sizeof(err)), STORE_OK,
              "a write while Redis runs");
    redis_stop();
    err[0] = 0;
    CHECK_INT(store_get(S, "before", NULL, NULL, &v, err, sizeof(err)), STORE_ERROR,
              "a read while Redis is away");
    CHECK_CONTAINS(err, "store redis 127.0.0.1:", "the error names the Redis store");
    CHECK_INT(store_lease(S, "l", "me", 1000, err, sizeof(err)), STORE_ERROR,
              "a lease while Redis is away");
    CHECK(redis_start() == 0, "Redis starts again");
    CHECK_INT(store_put(S, "after", "y", 1, 0, 0, &v, err, sizeof(err)), STORE_OK,
              "a write on the same handle after the restart");
    CHECK_INT(store_get(S, "after", NULL, NULL, &v, err, sizeof(err)), STORE_OK,
              "read back after the restart");
    store_delete(S, "after", err, sizeof(err));
}

/* Kill the connection under a pooled handle (CLIENT KILL from another): the
 * next command notices and is sent again on a new one. */
TEST(redis_broken_connection)
{
    char err[256], url[128];
    uint64_t v;
    CHECK_INT(store_put(S, K("r"), "x", 1, 0, 0, &v, err, sizeof(err)), STORE_OK, "a write");
    snprintf(url, sizeof(url), "redis://127.0.0.1:%d", redis_port);
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "redis-cli -p %d CLIENT KILL TYPE normal >/dev/null 2>&1",
             redis_port);
    int have_cli = system("command -v redis-cli >/dev/null 2>&1") == 0;
    CHECK(have_cli, "redis-cli is there (it comes with redis-server)");
    if (!have_cli)
        return;
    CHECK(system(cmd) == 0, "every client's connection killed");
    CHECK_INT(store_get(S, K("r"), NULL, NULL, &v, err, sizeof(err)), STORE_OK,
              "the next read succeeds on a new connection");
    CHECK_INT(v, 1, "and reads the record");
    store_delete(S, K("r"), err, sizeof(err));
}

/* A connection Redis closed, written to at length: the write after the peer's
 * reset raises SIGPIPE, which must not end the process (it is the store's to
 * take, on its thread), and the write goes through on a new connection. */
TEST(redis_sigpipe)
{
    char err[256], cmd[256];
    uint64_t v;
    size_t big = 8u << 20;
    char *b = calloc(1, big);
    CHECK_INT(store_put(S, K("r"), "x", 1, 0, 0, &v, err, sizeof(err)), STORE_OK,
              "a write makes the pooled connection");
    snprintf(cmd, sizeof(cmd), "redis-cli -p %d CLIENT KILL TYPE normal >/dev/null 2>&1",
             redis_port);
    CHECK(system(cmd) == 0, "every client's connection killed");
    sleep_ms(100);
    CHECK_INT(store_put(S, K("r"), b, big, 1, 0, &v, err, sizeof(err)), STORE_OK,
              "an 8 MiB write on the dead connection goes through on a new one");
    CHECK_INT(v, 2, "once");
    free(b);
    store_delete(S, K("r"), err, sizeof(err));
}

/* A Redis that wants a password: the URL's opens it, a wrong or missing one
 * is refused at open with a message that says so. */
TEST(redis_auth)
{
    char err[256], url[128];
    int port = free_port();
    snprintf(url, sizeof(url), "redis://:s3cret-pass@127.0.0.1:%d/2", port);
    pid_t pid = spawn_redis(port, "s3cret-pass", url);
    CHECK(pid > 0, "a redis-server with a password starts");
    if (pid <= 0)
        return;
    store *s = store_open(url, err, sizeof(err));
    CHECK(s != NULL, "the right password opens it");
    uint64_t v;
    CHECK_INT(store_put(s, "k", "v", 1, 0, 0, &v, err, sizeof(err)), STORE_OK,
              "and the store works");
    store_close(s);
    snprintf(url, sizeof(url), "redis://:wrong@127.0.0.1:%d", port);
    CHECK(store_open(url, err, sizeof(err)) == NULL, "a wrong password");
    CHECK_CONTAINS(err, "AUTH refused", "is refused at open");
    snprintf(url, sizeof(url), "redis://127.0.0.1:%d", port);
    CHECK(store_open(url, err, sizeof(err)) == NULL, "no password");
    CHECK_CONTAINS(err, "NOAUTH", "is refused at open, saying a password is wanted");
    snprintf(url, sizeof(url), "redis://nobody:s3cret-pass@127.0.0.1:%d", port);
    CHECK(store_open(url, err, sizeof(err)) == NULL, "a user Redis does not know");
    CHECK_CONTAINS(err, "AUTH refused", "is refused");
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* Databases are apart; a key used as one kind and then as another is an error
 * that says so, not a crash. */
TEST(redis_db)
{
    char err[256], url[128];
    uint64_t v;
    snprintf(url, sizeof(url), "redis://127.0.0.1:%d/3", redis_port);
    store *other = store_open(url, err, sizeof(err));
    CHECK(other != NULL, "database 3 opens");
    if (!other)
        return;
    CHECK_STR(store_url(other), url, "its URL");
    store_put(S, "shared", "zero", 4, 0, 0, &v, err, sizeof(err));
    CHECK_INT(store_get(other, "shared", NULL, NULL, &v, err, sizeof(err)), STORE_NOT_FOUND,
              "a record of database 0 is not in database 3");
    CHECK_INT(store_put(other, "shared", "three", 5, 0, 0, &v, err, sizeof(err)), STORE_OK,
              "the same key in database 3");
    store_delete(other, "shared", err, sizeof(err));
    store_close(other);
    CHECK_REFUSED(store_lease(S, "shared", "me", 1000, err, sizeof(err)), err, "WRONGTYPE",
                  "a record's key taken as a lease");
    CHECK_REFUSED(store_index_add(S, "shared", "m", err, sizeof(err)), err, "WRONGTYPE",
                  "a record's key taken as an index");
    store_delete(S, "shared", err, sizeof(err));
}

/* ---- running -------------------------------------------------------------------------- */

#define RUN_ON(engine, name)                                         \
    do {                                                             \
        test_current = engine ":" #name;                             \
        test_##name();                                               \
    } while (0)

#define RUN_COMMON(engine)                 \
    do {                                   \
        RUN_ON(engine, records);           \
        RUN_ON(engine, expiry);            \
        RUN_ON(engine, leases);            \
        RUN_ON(engine, lease_lapse);       \
        RUN_ON(engine, indexes);           \
        RUN_ON(engine, bad_input);         \
        RUN_ON(engine, huge_value);        \
        RUN_ON(engine, cas_race);          \
        RUN_ON(engine, counter_threads);   \
        RUN_ON(engine, counter_processes); \
        RUN_ON(engine, lease_race);        \
        RUN_ON(engine, reopen);            \
    } while (0)

static void rm_rf(const char *path)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", path);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", path);
}

int main(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(tmpdir, sizeof(tmpdir), "%s/capsa-store-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    char err[256], url[400];

    RUN(open_errors);
    snprintf(url, sizeof(url), "dir:%s/dir-store", tmpdir);
    URL = url;
    S = store_open(URL, err, sizeof(err));
    CHECK(S != NULL, "the dir store opens");
    if (S) {
        RUN_COMMON("dir");
        RUN_ON("dir", dir_corrupt);
        RUN_ON("dir", dir_sweep);
        store_close(S);
    }

    if (!have_redis_server()) {
        printf("test_store: redis-server is not installed: the redis:// cases are skipped "
               "(deps/install.sh installs it)\n");
    } else {
        snprintf(redis_dir, sizeof(redis_dir), "%s/redis", tmpdir);
        mkdir(redis_dir, 0700);
        redis_port = free_port();
        CHECK(redis_start() == 0, "redis-server starts on a free loopback port");
        snprintf(url, sizeof(url), "redis://127.0.0.1:%d/0", redis_port);
        URL = url;
        S = redis_pid > 0 ? store_open(URL, err, sizeof(err)) : NULL;
        CHECK(S != NULL, "the redis store opens");
        if (S) {
            RUN_COMMON("redis");
            RUN_ON("redis", redis_open_errors);
            RUN_ON("redis", redis_db);
            RUN_ON("redis", redis_auth);
            RUN_ON("redis", redis_broken_connection);
            RUN_ON("redis", redis_sigpipe);
            RUN_ON("redis", redis_restart);
            store_close(S);
        }
        redis_stop();
    }

    rm_rf(tmpdir);
    return test_summary("test_store");
}
