/* The audit trail of tool calls and runs: the JSON line of each event (a call's
 * begun when it is decided, completed when its outcome is known), appended by the
 * host to /log/actions.jsonl (read-only for the guest: it can read its own trail,
 * never add to it or change it, so every line there is the host's) and handed to
 * the caller's audit callback, up to audit_max_bytes; and SHA-256, for arguments
 * logged by hash. */
#include "audit.h"

#include <string.h>
#include <time.h>

#include "rt.h"
#include "sandbox.h"

#define AUDIT_PATH "/log/actions.jsonl"
#define DENIED_ARGS_MAX 4096 /* bytes of a denied call's arguments logged whole */
/* Room of the callback's audit_max_bytes that calls may not take: kept for the
   lines of runs (their end, a limit, a summary of denials). */
#define AUDIT_RESERVE (16u << 10)

/* ---- SHA-256 (FIPS 180-4) ---------------------------------------------------------- */

static const uint32_t sha_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha_block(uint32_t h[8], const unsigned char *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = k + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + sha_k[i] + w[i];
        uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += k;
}

/* The SHA-256 of data[0..len) as 64 lower-case hex digits and a NUL in hex[65]. */
static void sha256_hex(const void *data, size_t len, char hex[65])
{
    uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                      0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
    const unsigned char *p = data;
    size_t n = len;
    while (n >= 64) {
        sha_block(h, p);
        p += 64;
        n -= 64;
    }
    unsigned char last[128] = { 0 };
    memcpy(last, p, n);
    last[n] = 0x80;
    size_t total = n < 56 ? 64 : 128;
    uint64_t bits = (uint64_t)len * 8;
    for (int i = 0; i < 8; i++)
        last[total - 1 - i] = (unsigned char)(bits >> (8 * i));
    sha_block(h, last);
    if (total == 128)
        sha_block(h, last + 64);
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        unsigned char byte = (unsigned char)(h[i / 4] >> (24 - 8 * (i % 4)));
        hex[2 * i] = digits[byte >> 4];
        hex[2 * i + 1] = digits[byte & 15];
    }
    hex[64] = '\0';
}

/* ---- the log --------------------------------------------------------------------- */

/* Appends the current UTC time as an ISO 8601 JSON string with milliseconds. */
static void audit_time(capsa__buf *b, const capsa_allocator *a)
{
    /* Formatting the date is the costly part: done once per second per thread. */
    static __thread time_t cached_sec = -1;
    static __thread char cached[32];
    static __thread int cached_len;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (ts.tv_sec != cached_sec) {
        struct tm tm;
        gmtime_r(&ts.tv_sec, &tm);
        cached_len = snprintf(cached, sizeof(cached), "\"%04d-%02d-%02dT%02d:%02d:%02d.",
                              tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
                              tm.tm_sec);
        cached_sec = ts.tv_sec;
    }
    long ms = ts.tv_nsec / 1000000;
    char tail[6] = { (char)('0' + ms / 100), (char)('0' + ms / 10 % 10), (char)('0' + ms % 10), 'Z', '"', 0 };
    capsa__buf_append(b, a, cached, (size_t)cached_len);
    capsa__buf_append(b, a, tail, 5);
}

/* The log file's node, created when missing, or NULL with *err set. Looked up once
 * and kept while no entry of the filesystem is added, removed or renamed: a walk of
 * the path per line would cost more than writing the line. Borrowed: the sandbox
 * holds the reference. */
static capsa__vnode *audit_file(capsa_sandbox *sb, int *err)
{
    uint64_t names = capsa__vfs_names(sb->vfs);
    if (sb->audit_node && sb->audit_names == names)
        return sb->audit_node;
    capsa__audit_close(sb);
    capsa__vnode *n = NULL;
    *err = capsa__vfs_open(sb->vfs, capsa__vfs_root(sb->vfs), AUDIT_PATH, sizeof(AUDIT_PATH) - 1,
                           CAPSA__VFS_FOLLOW, CAPSA__VFS_O_CREAT, 1u << CAPSA__VFS_APPEND_OP,
                           CAPSA__VFS_HOST, &n);
    if (*err)
        return NULL;
    /* The file is the host's: the guest may read it, and nothing else, whatever
       /log lets it do with other files (the host may have made the file itself). */
    capsa__vfs_set_guest_readonly(n);
    sb->audit_node = n;
    sb->audit_names = capsa__vfs_names(sb->vfs); /* after the creation it may have made */
    return n;
}

void capsa__audit_close(capsa_sandbox *sb)
{
    if (sb->audit_node)
        capsa__vfs_unref(sb->vfs, sb->audit_node);
    sb->audit_node = NULL;
}

/* Whether the callback may get `need` more bytes, keeping `keep` of its budget. */
static int callback_room(const capsa_sandbox *sb, uint64_t need, uint64_t keep)
{
    uint64_t max = sb->opts.audit_max_bytes;
    return !max || (sb->audit_sent <= max && need <= max - sb->audit_sent &&
                    keep <= max - sb->audit_sent - need);
}

const char *capsa__audit_no_room(capsa_sandbox *sb, uint64_t need)
{
    if (sb->opts.on_audit && !callback_room(sb, need, AUDIT_RESERVE))
        return "the audit callback reached its audit_max_bytes";
    if (sb->opts.audit_flags & CAPSA_AUDIT_NO_FILE)
        return NULL;
    static const char full[] = "the audit log /log/actions.jsonl is at the filesystem quota";
    int err;
    capsa__vnode *n = audit_file(sb, &err);
    if (!n)
        return full; /* no room for the file itself (entries quota), or no /log */
    capsa__vfs_quota q;
    capsa__vfs_quota_get(sb->vfs, &q);
    uint64_t bytes, entries;
    capsa__vfs_usage(sb->vfs, &bytes, &entries);
    capsa__vfs_stat st;
    capsa__vfs_stat_node(n, &st);
    return bytes <= q.max_bytes && need <= q.max_bytes - bytes && st.size <= q.max_file &&
                   need <= q.max_file - st.size
               ? NULL
               : full;
}

/* Appends one JSON line (line[0..len), no newline) to /log/actions.jsonl (unless
 * disabled) and hands it to the audit callback, unless that would go over the
 * callback's audit_max_bytes (a call's line, event 0, also over the room kept for
 * the lines of runs, event 1). Returns 0, or -1 when the file or the callback did
 * not get it (counted in audit_dropped). Run's thread only. */
static int audit_line(capsa_sandbox *sb, const char *line, size_t len, int event)
{
    int dropped = 0;
    if (sb->opts.on_audit) {
        if (callback_room(sb, (uint64_t)len + 1, event ? 0 : AUDIT_RESERVE)) {
            sb->audit_sent += (uint64_t)len + 1;
            sb->opts.on_audit(sb->opts.on_audit_ud, line, len);
        } else {
            sb->audit_dropped++;
            dropped = 1;
        }
    }
    if (sb->opts.audit_flags & CAPSA_AUDIT_NO_FILE)
        return dropped ? -1 : 0;
    int err;
    capsa__vnode *n = audit_file(sb, &err);
    uint64_t end;
    if (n) {
        /* One write of the line and its newline, so that a quota refuses it whole. */
        char small[1024];
        char *copy = len + 1 <= sizeof(small) ? small : capsa__malloc(sb->alloc, len + 1);
        if (copy) {
            memcpy(copy, line, len);
            copy[len] = '\n';
            err = capsa__vfs_write(sb->vfs, n, 0, copy, len + 1, 1, &end, CAPSA__VFS_HOST);
            if (copy != small)
                capsa__free(sb->alloc, copy);
        } else {
            err = CAPSA__WASI_ENOMEM;
        }
    }
    if (err) {
        sb->audit_dropped++;
        return -1;
    }
    return dropped ? -1 : 0;
}

void capsa__audit_event(capsa_sandbox *sb, const char *event, uint64_t run, const char *extra)
{
    const capsa_allocator *a = sb->alloc;
    capsa__buf b = { 0 };
    capsa__buf_append_str(&b, a, "{\"time\":");
    audit_time(&b, a);
    capsa__buf_append_str(&b, a, ",\"event\":\"");
    capsa__buf_append_str(&b, a, event);
    capsa__buf_append_str(&b, a, "\",\"run\":");
    capsa__buf_append_u64(&b, a, run);
    if (extra && *extra) {
        capsa__buf_append_str(&b, a, ",");
        capsa__buf_append_str(&b, a, extra);
    }
    capsa__buf_append_str(&b, a, "}");
    if (b.failed)
        sb->audit_dropped++;
    else
        audit_line(sb, b.data, b.len, 1);
    capsa__buf_free(&b, a);
}

/* ---- the lines of tool calls ----------------------------------------------------- */

/* Whether anyone reads the trail: the log file, or the callback. */
static int has_reader(const capsa_sandbox *sb)
{
    return !(sb->opts.audit_flags & CAPSA_AUDIT_NO_FILE) || sb->opts.on_audit;
}

void capsa__audit_call_begin(capsa_sandbox *sb, capsa__buf *b, uint64_t run, uint64_t id,
                             const char *name, size_t name_len, const char *args, size_t args_len,
                             const char *decision, const char *capability, const char *reason,
                             const json_t *parsed)
{
    if (parsed && strcmp(decision, "denied") == 0 && args_len > DENIED_ARGS_MAX)
        parsed = NULL;
    if (!has_reader(sb))
        return;
    const capsa_allocator *a = sb->alloc;
    capsa__buf_append_str(b, a, "{\"time\":");
    audit_time(b, a);
    capsa__buf_append_str(b, a, ",\"event\":\"tool_call\",\"run\":");
    capsa__buf_append_u64(b, a, run);
    capsa__buf_append_str(b, a, ",\"id\":");
    capsa__buf_append_u64(b, a, id);
    capsa__buf_append_str(b, a, ",\"tool\":");
    capsa__json_quote(b, a, name, name_len);
    if (sb->opts.audit_flags & CAPSA_AUDIT_HASH_ARGS || !parsed) {
        char hex[65];
        sha256_hex(args, args_len, hex);
        capsa__buf_append_str(b, a, ",\"args_bytes\":");
        capsa__buf_append_u64(b, a, args_len);
        capsa__buf_append_str(b, a, ",\"args_sha256\":\"");
        capsa__buf_append(b, a, hex, 64);
        capsa__buf_append_str(b, a, "\"");
    } else if (memchr(args, '\n', args_len) || memchr(args, '\r', args_len)) {
        /* One line per call: the arguments again, without their line breaks. */
        char *text = json_dumps(parsed, JSON_COMPACT | JSON_ENCODE_ANY);
        capsa__buf_append_str(b, a, ",\"args\":");
        if (text)
            capsa__buf_append_str(b, a, text);
        else
            capsa__buf_fail(b);
        free(text);
    } else {
        capsa__buf_append_str(b, a, ",\"args\":");
        capsa__buf_append(b, a, args, args_len);
    }
    capsa__buf_append_str(b, a, ",\"decision\":\"");
    capsa__buf_append_str(b, a, decision);
    capsa__buf_append_str(b, a, "\",\"capability\":");
    if (capability)
        capsa__json_quote(b, a, capability, strlen(capability));
    else
        capsa__buf_append_str(b, a, "null");
    if (reason) {
        capsa__buf_append_str(b, a, ",\"reason\":");
        capsa__json_quote(b, a, reason, strlen(reason));
    }
    if (b->failed)
        capsa__buf_free(b, a); /* written without it: capsa__audit_call_end says so */
}

void capsa__audit_call_end(capsa_sandbox *sb, capsa__buf *b, uint64_t start_ns,
                           const char *outcome, const char *error_code, uint64_t result_bytes)
{
    if (!has_reader(sb))
        return;
    const capsa_allocator *a = sb->alloc;
    uint64_t us = (capsa__rt_now_ns() - start_ns) / 1000u;
    char ms[4] = { (char)('.'), (char)('0' + us / 100 % 10), (char)('0' + us / 10 % 10),
                   (char)('0' + us % 10) };
    if (!b->data)
        capsa__buf_fail(b); /* its head could not be made */
    capsa__buf_append_str(b, a, ",\"outcome\":\"");
    capsa__buf_append_str(b, a, outcome);
    if (!error_code) {
        capsa__buf_append_str(b, a, "\",\"result_bytes\":");
        capsa__buf_append_u64(b, a, result_bytes);
    } else {
        capsa__buf_append_str(b, a, "\",\"error_code\":\"");
        capsa__buf_append_str(b, a, error_code);
        capsa__buf_append_str(b, a, "\"");
    }
    capsa__buf_append_str(b, a, ",\"duration_ms\":");
    capsa__buf_append_u64(b, a, us / 1000u);
    capsa__buf_append(b, a, ms, sizeof(ms));
    capsa__buf_append_str(b, a, "}");
    if (b->failed)
        sb->audit_dropped++;
    else
        audit_line(sb, b->data, b->len, 0);
    capsa__buf_free(b, a);
}
