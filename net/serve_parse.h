/* What `capsa serve` (net/serve.c) parses from untrusted bytes, apart from its
 * routes so that the fuzz harness (fuzz/fuzz_serve.c) reaches it: the guest
 * path of a files/{path} URL, the session record read back from the store,
 * query counts, session ids, and the JSON bodies of a session's creation and of
 * a run. Internal to net/: not part of libcapsa-net's API. None of these
 * functions keeps a pointer to what it is given. */
#ifndef CAPSA_NET_SERVE_PARSE_H
#define CAPSA_NET_SERVE_PARSE_H

#include <jansson.h>
#include <stddef.h>

#include "capsa.h"

#define SERVE_RECORD_MAGIC "capsa-session 1\n"

/* A record as read: its metadata (owned: json_decref) and where its checkpoint
 * lies in the blob it was parsed from (valid while the blob is). */
typedef struct serve_record {
    json_t *meta;
    const char *ckpt;
    size_t ckpt_len;
} serve_record;

/* Parses blob[0..len): the magic line, the metadata (one JSON object on one
 * line, no duplicate keys), then the checkpoint's bytes. Returns 0 with *r set,
 * or -1 with *r zeroed. */
int serve_record_parse(const char *blob, size_t len, serve_record *r);

/* The record of meta and the checkpoint ckpt[0..len): a new buffer of *out_len
 * bytes (caller frees with free), or NULL when out of memory. */
char *serve_record_make(json_t *meta, const char *ckpt, size_t len, size_t *out_len);

/* Whether id[0..n) is a session id (32 lowercase hex digits). */
int serve_id_valid(const char *id, size_t n);

/* The guest path of files/{raw} (raw a NUL-terminated string, as in the URL):
 * "/" and raw percent-decoded, with its segments checked (no empty, "." or ".."
 * segment, no NUL; one trailing '/' dropped), in out[0..size). Returns 0 with
 * out, or -1 with *why (a static string naming the fault). */
int serve_path_decode(const char *raw, char *out, size_t size, const char **why);

/* A query value v (NULL when absent) as a whole number in [0, max]: def when v
 * is NULL, -1 when malformed or out of range. */
long long serve_query_count(const char *v, long long def, long long max);

/* body[0..len) as a JSON object (an empty body: {}): a new reference, or NULL
 * with the fault in msg[0..size). */
json_t *serve_body_object(const char *body, size_t len, char *msg, size_t size);

/* Whether body has no field but those named (a NULL-terminated list); when not,
 * says so in msg, naming the allowed ones (list). */
int serve_only_fields(json_t *body, const char *const *names, const char *list, char *msg,
                      size_t size);

/* The limits of a new session in *o: the server's (*server), each lowered by
 * the request's "limits" object lim (borrowed; NULL: none). Returns 0, or the
 * HTTP status (400, 422) with the fault in msg. */
int serve_limits(const capsa_options *server, json_t *lim, capsa_options *o, char *msg,
                 size_t size);

/* Whether body (borrowed) is a run's: {"code": STRING, "language":
 * "javascript" (the default) or "shell"}, a shell line without NUL; sets
 * *shell. Returns 0, or -1 with the fault in msg. */
int serve_run_check(json_t *body, int *shell, char *msg, size_t size);

#endif
