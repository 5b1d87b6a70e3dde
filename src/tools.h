/* Tools: the registry of a sandbox's host tools, the calls its guest makes (decided
 * on the host: registry, strict JSON, capability policy), their dispatch (inline,
 * on a pool of worker threads, or handed to the caller in step mode), and the
 * delivery of their outcomes back to the guest. It holds the sandbox's policy;
 * the audit lines of calls are made in audit.c, the declarations in dts.c. */
#ifndef CAPSA_TOOLS_H
#define CAPSA_TOOLS_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "capsa.h"
#include "policy.h"

/* The most calls of one run that may be in flight (made, outcome not yet
 * delivered) at once; beyond, a call fails at once with resource_exhausted. The
 * bytes they hold are bounded by capsa_options.tool_max_pending. */
#define CAPSA__TOOLS_MAX_CALLS 1024
/* The longest tool name. */
#define CAPSA__TOOL_NAME_MAX 128
/* The most worker threads a sandbox may have. */
#define CAPSA__TOOLS_MAX_THREADS 256

typedef struct capsa__tools capsa__tools;

/* Creates the tool state of sb (no tools, an empty policy: every call denied).
 * Returns CAPSA_OK or CAPSA_ENOMEM with *out NULL. */
int capsa__tools_new(capsa_sandbox *sb, capsa__tools **out);

/* Frees it. Waits for the callbacks still running on its worker threads (C code
 * cannot be stopped); their results are discarded. NULL is a no-op. */
void capsa__tools_free(capsa__tools *t);

/* ---- the guest's side (the "capsa" imports, called on the run's thread) ---------- */

/* A call of the tool name[0..name_len) with the JSON text args[0..args_len): its
 * id (> 0; refused calls get one too, their error is their outcome), or
 * CAPSA_TOOL_EBUSY when no more calls can be taken. */
int32_t capsa__tools_call(capsa__tools *t, const char *name, size_t name_len, const char *args,
                          size_t args_len);

/* Offers the next outcome ready for delivery: 1 with *id, *ok and *len set, or 0. */
int capsa__tools_next(capsa__tools *t, uint32_t *id, uint32_t *ok, uint32_t *len);

/* Copies the offered outcome (id and len must match the offer) to dst (NULL with
 * len 0: drop it) and forgets the call. Returns 0 or -1. */
int capsa__tools_take(capsa__tools *t, uint32_t id, uint8_t *dst, uint32_t len);

/* Changes whenever a tool is added. */
uint32_t capsa__tools_generation(const capsa__tools *t);

/* The registry as JSON for the guest; borrowed, valid until a tool is added. */
const char *capsa__tools_list(const capsa__tools *t, size_t *len);

/* The capability policy calls are checked against: borrowed, valid until
 * capsa__tools_set_policy. */
capsa__policy *capsa__tools_policy(const capsa__tools *t);

/* Makes p the policy (taken over); the one before is freed. */
void capsa__tools_set_policy(capsa__tools *t, capsa__policy *p);

/* The registered (canonical) name of the tool that name names (by its name, with
 * '.' or '/' as the separator, or by its flat name), or NULL: borrowed, valid
 * while the sandbox lives. */
const char *capsa__tools_find(const capsa__tools *t, const char *name);

/* The guest is about to wait: its next timer is due at wake_ns (0: none). */
void capsa__tools_set_wake(capsa__tools *t, uint64_t wake_ns);

/* ---- the run's side (sandbox.c) ---------------------------------------------------- */

/* What the run does after the guest returned CAPSA_GUEST_PENDING. */
enum {
    CAPSA__WAIT_READY,    /* outcomes are ready: continue the guest */
    CAPSA__WAIT_WAKE,     /* its next timer is due: continue the guest */
    CAPSA__WAIT_EXTERNAL, /* only calls the caller resolves are left: return CAPSA_PENDING */
    CAPSA__WAIT_DEADLINE, /* the run's deadline passed */
    CAPSA__WAIT_IDLE,     /* nothing is in flight and no timer: the guest is confused */
};

/* Waits, on the run's thread, until one of the above (deadline_ns 0: none):
 * outcomes of callbacks, calls timing out, the guest's next timer. */
int capsa__tools_wait(capsa__tools *t, uint64_t deadline_ns);

/* Wakes capsa__tools_wait, so that it sees capsa_interrupt (it then answers
 * CAPSA__WAIT_DEADLINE). Any thread. */
void capsa__tools_wake(capsa__tools *t);

/* A run starts (number run) / ends: calls still in flight are cancelled (their
 * late results discarded) and audited as such. */
void capsa__tools_run_begin(capsa__tools *t, uint64_t run);
void capsa__tools_run_end(capsa__tools *t);

/* Calls of the current run so far, and those of them refused without an audit
 * line of their own (after the run's tool_max_denials). */
uint64_t capsa__tools_calls_made(const capsa__tools *t);
uint64_t capsa__tools_calls_unaudited(const capsa__tools *t);

/* ---- checkpoints (checkpoint.c) ------------------------------------------------------ */

/* What a checkpoint keeps of a tool: all of its definition but the callback. */
typedef struct capsa__tool_saved {
    const char *name, *description, *schema; /* schema: compact JSON text */
    const char *returns; /* compact JSON text of the result's schema, or NULL */
    uint32_t flags;
    uint64_t timeout_ms;
    int has_fn; /* it had a callback (else the host resolves its calls) */
} capsa__tool_saved;

/* The registry's size, tool i of it (strings borrowed until a tool is added), and
 * the id the next call will get. */
size_t capsa__tools_count(const capsa__tools *t);
void capsa__tools_saved(const capsa__tools *t, size_t i, capsa__tool_saved *out);
uint32_t capsa__tools_next_id(const capsa__tools *t);

/* Fills the empty registry of a new sandbox with the checkpoint's tools, checked
 * as capsa_tool_add checks them but without writing /tools (the checkpoint's
 * files hold it), each bound to the callback of the definition in defs with its
 * name (the rest of that definition is not used); a tool that had a callback and
 * that no definition names is CAPSA_ENOENT. generation and next_id continue the
 * checkpoint's. Returns CAPSA_OK or a code with the sandbox's message set; on
 * failure the sandbox is to be freed. */
int capsa__tools_restore(capsa__tools *t, const capsa__tool_saved *saved, size_t n,
                         const capsa_tool_def *const *defs, size_t n_defs, uint32_t generation,
                         uint32_t next_id);

/* Snapshots the calls that wait for the caller (step mode) for capsa_pending_*. */
void capsa__tools_snapshot_pending(capsa__tools *t);

#endif
