/* The audit trail of tool calls and runs: one JSON line per event, appended by the
 * host to /log/actions.jsonl (which the guest may read, never write) and handed to
 * the caller's audit callback (up to capsa_options.audit_max_bytes); and the
 * SHA-256 of arguments that are logged by hash. */
#ifndef CAPSA_AUDIT_H
#define CAPSA_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "capsa.h"
#include "json.h"

/* Appends one JSON line (line[0..len), no newline) to /log/actions.jsonl (unless
 * disabled) and hands it to the audit callback, unless that would go over the
 * callback's audit_max_bytes (a call's line, event 0, also over the room kept for
 * the lines of runs, event 1). Returns 0, or -1 when the file or the callback did
 * not get it (counted in audit_dropped). Run's thread only. */
int capsa__audit_line(capsa_sandbox *sb, const char *line, size_t len, int event);

/* NULL when the trail can take a call's line of `need` bytes and still keep room
 * for the lines of the run's end; else why not, as a static phrase: the log at the
 * filesystem's quotas, or the callback at its audit_max_bytes. */
const char *capsa__audit_no_room(capsa_sandbox *sb, uint64_t need);

/* Releases the log file the sandbox holds open (before its filesystem is freed). */
void capsa__audit_close(capsa_sandbox *sb);

/* A lifecycle event: {"time","event":event,"run":run} plus extra (a JSON object's
 * members without braces, "" for none). */
void capsa__audit_event(capsa_sandbox *sb, const char *event, uint64_t run, const char *extra);

/* Appends the current UTC time as an ISO 8601 JSON string with milliseconds. */
int capsa__audit_time(capsa__buf *b, const capsa_allocator *a);

/* The SHA-256 of data[0..len) as 64 lower-case hex digits and a NUL in hex[65]. */
void capsa__sha256_hex(const void *data, size_t len, char hex[65]);

#endif
