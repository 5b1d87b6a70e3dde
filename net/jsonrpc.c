/* JSON-RPC 2.0 messages (see jsonrpc.h): strict parsing within limits,
 * classification, the messages a peer sends, and the id table. */
#include "jsonrpc.h"
#include "../src/json_write.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_MAX_BYTES (4u << 20)
#define DEFAULT_MAX_BATCH 1024

json_t *jrpc_parse(const char *text, size_t len, const jrpc_limits *limits, json_t **error)
{
    size_t max_bytes = limits && limits->max_bytes ? limits->max_bytes : DEFAULT_MAX_BYTES;
    size_t max_batch = limits && limits->max_batch ? limits->max_batch : DEFAULT_MAX_BATCH;
    int allow_batch = limits && limits->allow_batch;
    char msg[256];
    *error = NULL;
    if (len > max_bytes) {
        snprintf(msg, sizeof(msg), "Parse error: the message is %zu bytes, over the limit of %zu",
                 len, max_bytes);
        *error = jrpc_error(NULL, JRPC_PARSE_ERROR, msg, NULL);
        return NULL;
    }
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    if (!root) {
        snprintf(msg, sizeof(msg), "Parse error: %s (line %d, column %d)", jerr.text, jerr.line,
                 jerr.column);
        *error = jrpc_error(NULL, JRPC_PARSE_ERROR, msg, NULL);
        return NULL;
    }
    if (json_is_object(root))
        return root;
    if (json_is_array(root) && allow_batch && json_array_size(root) > 0 &&
        json_array_size(root) <= max_batch)
        return root;
    if (!json_is_array(root))
        snprintf(msg, sizeof(msg), "Invalid Request: a message must be a JSON object");
    else if (!allow_batch)
        snprintf(msg, sizeof(msg), "Invalid Request: batches are not supported in this "
                                   "protocol version");
    else if (json_array_size(root) == 0)
        snprintf(msg, sizeof(msg), "Invalid Request: an empty batch");
    else
        snprintf(msg, sizeof(msg), "Invalid Request: a batch of %zu messages, over the limit of %zu",
                 json_array_size(root), max_batch);
    json_decref(root);
    *error = jrpc_error(NULL, JRPC_INVALID_REQUEST, msg, NULL);
    return NULL;
}

static jrpc_kind invalid(jrpc_msg *m, int code, const char *why)
{
    m->kind = JRPC_INVALID;
    m->error_code = code;
    snprintf(m->error_message, sizeof(m->error_message), "Invalid Request: %s", why);
    return m->kind;
}

jrpc_kind jrpc_classify(json_t *msg, jrpc_msg *m)
{
    memset(m, 0, sizeof(*m));
    if (!json_is_object(msg))
        return invalid(m, JRPC_INVALID_REQUEST, "a message must be a JSON object");
    json_t *id = json_object_get(msg, "id");
    if (id && (json_is_string(id) || json_is_integer(id)))
        m->id = id;
    json_t *version = json_object_get(msg, "jsonrpc");
    if (!json_is_string(version) || strcmp(json_string_value(version), "2.0") != 0)
        return invalid(m, JRPC_INVALID_REQUEST, "\"jsonrpc\" must be \"2.0\"");
    if (id && !m->id)
        return invalid(m, JRPC_INVALID_REQUEST, "an id must be a string or an integer");
    json_t *method = json_object_get(msg, "method");
    json_t *result = json_object_get(msg, "result"), *error = json_object_get(msg, "error");
    if (method) {
        if (!json_is_string(method) || json_string_length(method) == 0)
            return invalid(m, JRPC_INVALID_REQUEST, "\"method\" must be a non-empty string");
        if (result || error)
            return invalid(m, JRPC_INVALID_REQUEST, "a request has no \"result\" or \"error\"");
        json_t *params = json_object_get(msg, "params");
        if (params && !json_is_object(params) && !json_is_array(params))
            return invalid(m, JRPC_INVALID_REQUEST, "\"params\" must be an object or an array");
        m->method = json_string_value(method);
        m->params = params;
        m->kind = m->id ? JRPC_REQUEST : JRPC_NOTIFICATION;
        return m->kind;
    }
    if (!m->id && !(id && json_is_null(id) && error))
        return invalid(m, JRPC_INVALID_REQUEST, "a message needs a \"method\" or an \"id\"");
    if ((result != NULL) == (error != NULL))
        return invalid(m, JRPC_INVALID_REQUEST, "a response has one of \"result\" and \"error\"");
    if (error && (!json_is_object(error) || !json_is_integer(json_object_get(error, "code")) ||
                  !json_is_string(json_object_get(error, "message"))))
        return invalid(m, JRPC_INVALID_REQUEST, "an error needs an integer \"code\" and a "
                                                "string \"message\"");
    m->result = result;
    m->error = error;
    m->kind = JRPC_RESPONSE;
    return m->kind;
}

/* {"jsonrpc":"2.0"} with id (copied; NULL: null) when with_id. */
static json_t *envelope(const json_t *id, int with_id)
{
    json_t *o = json_object();
    if (!o || json_object_set_new(o, "jsonrpc", json_string("2.0")) != 0 ||
        (with_id && json_object_set_new(o, "id", id ? json_deep_copy(id) : json_null()) != 0)) {
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *jrpc_result(const json_t *id, json_t *result)
{
    json_t *o = envelope(id, 1);
    if (!result)
        result = json_object();
    if (!o || !result || json_object_set_new(o, "result", result) != 0) {
        if (!o)
            json_decref(result);
        json_decref(o);
        return NULL;
    }
    return o;
}

json_t *jrpc_error(const json_t *id, int code, const char *message, json_t *data)
{
    json_t *o = envelope(id, 1), *e = json_object();
    int bad = !o || !e || json_object_set_new(e, "code", json_integer(code)) != 0 ||
              json_object_set_new(e, "message", json_string(message ? message : "error")) != 0;
    if (!bad && data)
        bad = json_object_set(e, "data", data) != 0;
    json_decref(data);
    if (bad || json_object_set_new(o, "error", e) != 0) {
        if (bad)
            json_decref(e);
        json_decref(o);
        return NULL;
    }
    return o;
}

/* A request or notification: the envelope, the method and params (stolen). */
static json_t *call(const json_t *id, int with_id, const char *method, json_t *params)
{
    json_t *o = envelope(id, with_id);
    if (!o || json_object_set_new(o, "method", json_string(method)) != 0 ||
        (params && json_object_set(o, "params", params) != 0)) {
        json_decref(o);
        o = NULL;
    }
    json_decref(params);
    return o;
}

json_t *jrpc_notification(const char *method, json_t *params)
{
    return call(NULL, 0, method, params);
}

json_t *jrpc_request(const json_t *id, const char *method, json_t *params)
{
    return call(id, 1, method, params);
}

char *jrpc_dump(const json_t *msg, size_t *len)
{
    char *s = capsa__json_dumps(msg, JSON_COMPACT | JSON_ENCODE_ANY);
    if (s && len)
        *len = strlen(s);
    return s;
}

int jrpc_id_equal(const json_t *a, const json_t *b)
{
    if (json_is_integer(a) && json_is_integer(b))
        return json_integer_value(a) == json_integer_value(b);
    if (json_is_string(a) && json_is_string(b))
        return json_string_length(a) == json_string_length(b) &&
               memcmp(json_string_value(a), json_string_value(b), json_string_length(a)) == 0;
    return 0;
}

/* ---- the id table ------------------------------------------------------------------- */

typedef struct id_entry {
    struct id_entry *next;
    json_t *id;
    uint64_t hash;
    void *value;
} id_entry;

struct jrpc_ids {
    id_entry **buckets;
    size_t n_buckets, count;
};

/* FNV-1a over the id's kind and value, so that 1 and "1" differ. */
static uint64_t id_hash(const json_t *id)
{
    uint64_t h = 1469598103934665603ull;
    const unsigned char *p;
    size_t n;
    char num[32];
    if (json_is_integer(id)) {
        n = (size_t)snprintf(num, sizeof(num), "i%lld", (long long)json_integer_value(id));
        p = (const unsigned char *)num;
    } else {
        h = (h ^ 's') * 1099511628211ull;
        p = (const unsigned char *)json_string_value(id);
        n = json_string_length(id);
    }
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

jrpc_ids *jrpc_ids_new(void)
{
    jrpc_ids *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->n_buckets = 64;
    t->buckets = calloc(t->n_buckets, sizeof(id_entry *));
    if (!t->buckets) {
        free(t);
        return NULL;
    }
    return t;
}

void jrpc_ids_free(jrpc_ids *t)
{
    if (!t)
        return;
    for (size_t i = 0; i < t->n_buckets; i++) {
        for (id_entry *e = t->buckets[i], *next; e; e = next) {
            next = e->next;
            json_decref(e->id);
            free(e);
        }
    }
    free(t->buckets);
    free(t);
}

static id_entry **find(const jrpc_ids *t, const json_t *id, uint64_t h)
{
    id_entry **p = &t->buckets[h % t->n_buckets];
    while (*p && !((*p)->hash == h && jrpc_id_equal((*p)->id, id)))
        p = &(*p)->next;
    return p;
}

/* Doubles the buckets when the chains grow long; keeps the old ones when out of
 * memory (the table still works, only slower). */
static void grow(jrpc_ids *t)
{
    size_t n = t->n_buckets * 2;
    id_entry **b = calloc(n, sizeof(id_entry *));
    if (!b)
        return;
    for (size_t i = 0; i < t->n_buckets; i++) {
        for (id_entry *e = t->buckets[i], *next; e; e = next) {
            next = e->next;
            e->next = b[e->hash % n];
            b[e->hash % n] = e;
        }
    }
    free(t->buckets);
    t->buckets = b;
    t->n_buckets = n;
}

int jrpc_ids_add(jrpc_ids *t, const json_t *id, void *value)
{
    if (!json_is_string(id) && !json_is_integer(id))
        return -1;
    uint64_t h = id_hash(id);
    id_entry **p = find(t, id, h);
    if (*p)
        return 1;
    id_entry *e = malloc(sizeof(*e));
    if (!e || !(e->id = json_deep_copy(id))) {
        free(e);
        return -1;
    }
    e->hash = h;
    e->value = value;
    e->next = NULL;
    *p = e;
    if (++t->count > t->n_buckets * 2)
        grow(t);
    return 0;
}

void *jrpc_ids_get(const jrpc_ids *t, const json_t *id)
{
    if (!json_is_string(id) && !json_is_integer(id))
        return NULL;
    id_entry **p = find(t, id, id_hash(id));
    return *p ? (*p)->value : NULL;
}

void *jrpc_ids_take(jrpc_ids *t, const json_t *id)
{
    if (!json_is_string(id) && !json_is_integer(id))
        return NULL;
    id_entry **p = find(t, id, id_hash(id));
    id_entry *e = *p;
    if (!e)
        return NULL;
    *p = e->next;
    void *v = e->value;
    json_decref(e->id);
    free(e);
    t->count--;
    return v;
}

size_t jrpc_ids_count(const jrpc_ids *t)
{
    return t->count;
}

void jrpc_ids_each(const jrpc_ids *t, void (*fn)(void *ud, const json_t *id, void *value), void *ud)
{
    for (size_t i = 0; i < t->n_buckets; i++) {
        for (id_entry *e = t->buckets[i]; e; e = e->next)
            fn(ud, e->id, e->value);
    }
}
