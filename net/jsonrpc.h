/* JSON-RPC 2.0 messages, transport-neutral: parsing one message or a batch within
 * limits and classifying it (request, notification, response, or invalid with the
 * error to answer), building responses, errors, notifications and requests, and a
 * table of request ids (the requests in flight of a server, or those a client
 * waits on). Used by the MCP server and the MCP client; JSON is jansson's.
 * Nothing here does I/O or keeps global state. */
#ifndef CAPSA_NET_JSONRPC_H
#define CAPSA_NET_JSONRPC_H

#include <jansson.h>
#include <stddef.h>

/* The error codes JSON-RPC 2.0 defines. */
enum {
    JRPC_PARSE_ERROR = -32700,
    JRPC_INVALID_REQUEST = -32600,
    JRPC_METHOD_NOT_FOUND = -32601,
    JRPC_INVALID_PARAMS = -32602,
    JRPC_INTERNAL_ERROR = -32603,
};

typedef struct jrpc_limits {
    size_t max_bytes; /* of one message text (a batch is one text); 0: 4 MiB */
    size_t max_batch; /* elements of a batch; 0: 1024. A batch is refused whole
                         when it is not allowed (allow_batch 0) */
    int allow_batch;
} jrpc_limits;

/* Parses text[0..len) as strict JSON (UTF-8, no duplicate keys, no NUL). On success
 * returns the root (an object, or an array when a batch was allowed and given),
 * which the caller frees with json_decref. On failure returns NULL and *error gets
 * the error response to send (-32700 for text that is not JSON or over the size
 * limit, -32600 for a root that is neither an object nor an allowed batch), which
 * the caller frees. */
json_t *jrpc_parse(const char *text, size_t len, const jrpc_limits *limits, json_t **error);

typedef enum jrpc_kind {
    JRPC_REQUEST = 1,  /* method, params and id */
    JRPC_NOTIFICATION, /* method and params, no id */
    JRPC_RESPONSE,     /* id with result or error */
    JRPC_INVALID,      /* answer with error_code and error_message */
} jrpc_kind;

/* One message, its parts borrowed from the JSON it was classified from (valid as
 * long as that JSON). */
typedef struct jrpc_msg {
    jrpc_kind kind;
    json_t *id;           /* a string or an integer; NULL for a notification, and for
                             an invalid message whose id could not be read */
    const char *method;   /* requests and notifications */
    json_t *params;       /* an object or an array; NULL when absent */
    json_t *result;       /* responses: one of result and error */
    json_t *error;
    int error_code;       /* JRPC_INVALID: the code and message to answer with */
    char error_message[160];
} jrpc_msg;

/* Classifies one message (an element of a batch, or the root). Ids must be
 * strings or integers (MCP's rule: never null, never fractional). Returns
 * m->kind. */
jrpc_kind jrpc_classify(json_t *msg, jrpc_msg *m);

/* A response {"jsonrpc":"2.0","id":id,"result":result}. id is copied (NULL: null);
 * result is stolen (NULL: {}). Returns NULL when out of memory. */
json_t *jrpc_result(const json_t *id, json_t *result);

/* An error response with code, message (copied) and data (stolen; NULL: none). */
json_t *jrpc_error(const json_t *id, int code, const char *message, json_t *data);

/* A notification {"jsonrpc":"2.0","method":method,"params":params} (params stolen;
 * NULL: none). */
json_t *jrpc_notification(const char *method, json_t *params);

/* A request with id (copied), method and params (stolen; NULL: none). */
json_t *jrpc_request(const json_t *id, const char *method, json_t *params);

/* msg as compact JSON text on one line (newlines inside strings are escaped), a
 * new NUL-terminated string of *len bytes the caller frees with free(); NULL when
 * out of memory. msg is not freed. */
char *jrpc_dump(const json_t *msg, size_t *len);

/* Whether two ids are the same (the same string, or the same integer: 1 and "1"
 * differ). */
int jrpc_id_equal(const json_t *a, const json_t *b);

/* A table of request ids, each with a pointer of the caller's: a server's requests
 * in flight (a reused id is refused while the first is pending), or a client's
 * requests waiting for their responses. Not thread-safe: the caller locks. */
typedef struct jrpc_ids jrpc_ids;

/* A new empty table, or NULL when out of memory; freed with jrpc_ids_free. */
jrpc_ids *jrpc_ids_new(void);
/* Frees the table (not the values). NULL is a no-op. */
void jrpc_ids_free(jrpc_ids *t);
/* Adds id (copied) with value. Returns 0, 1 when the id is already there (nothing
 * changed), -1 when out of memory. */
int jrpc_ids_add(jrpc_ids *t, const json_t *id, void *value);
/* The value of id, or NULL when it is not there. */
void *jrpc_ids_get(const jrpc_ids *t, const json_t *id);
/* Removes id and returns its value (NULL when it was not there). */
void *jrpc_ids_take(jrpc_ids *t, const json_t *id);
/* How many ids the table holds. */
size_t jrpc_ids_count(const jrpc_ids *t);
/* Calls fn(ud, id, value) for every entry, in no set order; fn must not change
 * the table. */
void jrpc_ids_each(const jrpc_ids *t, void (*fn)(void *ud, const json_t *id, void *value), void *ud);

#endif
