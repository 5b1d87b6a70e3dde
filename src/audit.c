/* The audit trail of tool calls and runs: the JSON line of each event (a call's
 * begun when it is decided, completed when its outcome is known), appended by the
 * host to /log/actions.jsonl (read-only for the guest: it can read its own trail,
 * never add to it or change it, so every line there is the host's) and handed to
 * the caller's audit callback (or kept for capsa_audit_take, CAPSA_AUDIT_KEEP), up
 * to audit_max_bytes. */
#include "audit.h"

#include <pthread.h>
#include <string.h>
#include <time.h>

#include "json_write.h"
#include "rt.h"
#include "sandbox.h"
#include "sha256.h"

#define AUDIT_PATH "/log/actions.jsonl"
#define DENIED_ARGS_MAX 4096 /* bytes of a denied call's arguments logged whole */
/* Room of the callback's audit_max_bytes that calls may not take: kept for the
   lines of runs (their end, a limit, a summary of denials). */
#define AUDIT_RESERVE (16u << 10)

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

/* Whether the host's reader of the lines is on_audit or the kept lines. */
static int host_reader(const capsa_sandbox *sb)
{
    return sb->opts.on_audit || (sb->opts.audit_flags & CAPSA_AUDIT_KEEP);
}

/* Keeps a line for capsa_audit_take: 0, or -1 when out of memory. */
static int keep_line(capsa_sandbox *sb, const char *line, size_t len)
{
    pthread_mutex_lock(&sb->audit_lock);
    capsa__buf *b = &sb->audit_kept;
    size_t was = b->len;
    capsa__buf_append(b, sb->alloc, line, len);
    capsa__buf_append(b, sb->alloc, "\n", 1);
    int failed = b->failed;
    if (failed) { /* the buffer keeps the lines before this one */
        b->len = was;
        b->failed = 0;
    }
    pthread_mutex_unlock(&sb->audit_lock);
    return failed ? -1 : 0;
}

CAPSA_API int capsa_audit_take(capsa_sandbox *sb, const char **lines, size_t *len)
{
    if (lines)
        *lines = NULL;
    if (len)
        *len = 0;
    if (!sb || !lines || !len)
        return CAPSA_EINVAL;
    pthread_mutex_lock(&sb->audit_lock);
    /* The kept lines become the taken ones; the buffer of the last taken keeps
       its memory for the next lines. */
    capsa__buf spare = sb->audit_taken;
    sb->audit_taken = sb->audit_kept;
    spare.len = 0;
    sb->audit_kept = spare;
    pthread_mutex_unlock(&sb->audit_lock);
    if (sb->audit_taken.len) {
        *lines = sb->audit_taken.data;
        *len = sb->audit_taken.len;
    }
    return CAPSA_OK;
}

const char *capsa__audit_no_room(capsa_sandbox *sb, uint64_t need)
{
    if (host_reader(sb) && !callback_room(sb, need, AUDIT_RESERVE))
        return sb->opts.on_audit ? "the audit callback reached its audit_max_bytes"
                                 : "the kept audit lines reached their audit_max_bytes";
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

/* Appends one JSON line (the text of line, no newline) to /log/actions.jsonl
 * (unless disabled) and hands it to the audit callback, unless that would go over
 * the callback's audit_max_bytes (a call's line, event 0, also over the room kept
 * for the lines of runs, event 1). The file gets the line and its newline in one
 * write (so that a quota refuses it whole), the newline put for it in the place of
 * the buffer's NUL. Returns 0, or -1 when the file or the callback did not get it
 * (counted in audit_dropped). Run's thread only. */
static int audit_line(capsa_sandbox *sb, capsa__buf *line, int event)
{
    size_t len = line->len;
    int dropped = 0;
    if (host_reader(sb)) {
        if (!callback_room(sb, (uint64_t)len + 1, event ? 0 : AUDIT_RESERVE)) {
            sb->audit_dropped++;
            dropped = 1;
        } else if (sb->opts.on_audit) {
            sb->audit_sent += (uint64_t)len + 1;
            sb->opts.on_audit(sb->opts.on_audit_ud, line->data, len);
        } else if (keep_line(sb, line->data, len) == 0) {
            sb->audit_sent += (uint64_t)len + 1;
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
        line->data[len] = '\n';
        err = capsa__vfs_write(sb->vfs, n, 0, line->data, len + 1, 1, &end, CAPSA__VFS_HOST);
        line->data[len] = '\0';
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
        audit_line(sb, &b, 1);
    capsa__buf_free(&b, a);
}

/* ---- the lines of tool calls ----------------------------------------------------- */

/* Whether anyone reads the trail: the log file, or the callback. */
static int has_reader(const capsa_sandbox *sb)
{
    return !(sb->opts.audit_flags & CAPSA_AUDIT_NO_FILE) || host_reader(sb);
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
        capsa__sha256_hex(args, args_len, hex);
        capsa__buf_append_str(b, a, ",\"args_bytes\":");
        capsa__buf_append_u64(b, a, args_len);
        capsa__buf_append_str(b, a, ",\"args_sha256\":\"");
        capsa__buf_append(b, a, hex, 64);
        capsa__buf_append_str(b, a, "\"");
    } else if (memchr(args, '\n', args_len) || memchr(args, '\r', args_len)) {
        /* One line per call: the arguments again, without their line breaks. */
        char *text = capsa__json_dumps(parsed, JSON_COMPACT | JSON_ENCODE_ANY);
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
        audit_line(sb, b, 0);
    capsa__buf_free(b, a);
}
