/* The audit trail of tool calls and runs: one JSON line per event, made here,
 * appended by the host to /log/actions.jsonl (which the guest may read, never
 * write) and handed to the caller's audit callback (up to
 * capsa_options.audit_max_bytes). */
#ifndef CAPSA_AUDIT_H
#define CAPSA_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "capsa.h"
#include "json.h"

/* NULL when the trail can take a call's line of `need` bytes and still keep room
 * for the lines of the run's end; else why not, as a static phrase: the log at the
 * filesystem's quotas, or the callback at its audit_max_bytes. */
const char *capsa__audit_no_room(capsa_sandbox *sb, uint64_t need);

/* Releases the log file the sandbox holds open (before its filesystem is freed). */
void capsa__audit_close(capsa_sandbox *sb);

/* A lifecycle event: {"time","event":event,"run":run} plus extra (a JSON object's
 * members without braces, "" for none). */
void capsa__audit_event(capsa_sandbox *sb, const char *event, uint64_t run, const char *extra);

/* Begins in *line the audit line of the tool call id of run `run` (nothing when
 * no one reads the trail: no log file, no callback): the tool name[0..name_len),
 * the decision ("allowed" or "denied"), the pattern of the capability that made
 * it (NULL: none) and a denial's reason (NULL: none). The arguments
 * args[0..args_len) are logged as they are (parsed again without their line
 * breaks when they have some), or as their size and SHA-256: when asked
 * (CAPSA_AUDIT_HASH_ARGS), when they are not JSON (parsed NULL), and when a
 * denied call's are long, so that a script that floods the host with refused
 * calls does not get to copy their arguments into the trail. Out of memory
 * leaves *line empty; capsa__audit_call_end then counts the line as dropped. */
void capsa__audit_call_begin(capsa_sandbox *sb, capsa__buf *line, uint64_t run, uint64_t id,
                             const char *name, size_t name_len, const char *args, size_t args_len,
                             const char *decision, const char *capability, const char *reason,
                             const json_t *parsed);

/* Completes the line begun for a call made at start_ns (capsa__rt_now_ns) with
 * its outcome ("ok", "error", "cancelled"), the error's code (NULL: none, the
 * result had result_bytes bytes) and its duration, writes it to the log (unless
 * disabled) and the callback (within audit_max_bytes, short of the room kept for
 * the lines of runs) and frees *line. A line either could not take is counted in
 * audit_dropped. Run's thread only. */
void capsa__audit_call_end(capsa_sandbox *sb, capsa__buf *line, uint64_t start_ns,
                           const char *outcome, const char *error_code, uint64_t result_bytes);

#endif
