/* libFuzzer harness: what `capsa serve` reads back from the shared store and
 * from a request's body (net/serve_parse.c). The input is a session record
 * ("capsa-session 1", its metadata as one JSON line, its checkpoint's bytes) as
 * another replica, or whoever can write the store, may have left it: one that
 * parses must re-serialize to bytes that parse to the same metadata and
 * checkpoint, and serialize the same way again. The same bytes are also a
 * request's body: of a session's creation (its limits, against a server's:
 * each kept at most the server's and above 0 but where 0 is "none") and of a
 * run. Nothing may crash, leak or read out of bounds. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../net/serve_parse.h"

static void check_record(const char *blob, size_t len)
{
    serve_record r;
    if (serve_record_parse(blob, len, &r) != 0) {
        if (r.meta || r.ckpt || r.ckpt_len)
            abort(); /* a refusal leaves nothing */
        return;
    }
    if (!json_is_object(r.meta) || r.ckpt < blob || r.ckpt_len > len ||
        r.ckpt + r.ckpt_len != blob + len)
        abort();
    size_t n1 = 0, n2 = 0;
    char *b1 = serve_record_make(r.meta, r.ckpt, r.ckpt_len, &n1);
    if (!b1)
        abort();
    serve_record r2;
    if (serve_record_parse(b1, n1, &r2) != 0 || !json_equal(r.meta, r2.meta) ||
        r2.ckpt_len != r.ckpt_len || memcmp(r2.ckpt, r.ckpt, r.ckpt_len) != 0)
        abort();
    char *b2 = serve_record_make(r2.meta, r2.ckpt, r2.ckpt_len, &n2);
    if (!b2 || n2 != n1 || memcmp(b1, b2, n1) != 0)
        abort();
    free(b2);
    free(b1);
    json_decref(r2.meta);
    json_decref(r.meta);
}

static void check_limits(json_t *body, int server_unlimited)
{
    capsa_options server, o;
    memset(&server, 0, sizeof(server)); /* serve_limits reads only the limits */
    server.memory_limit = 256u << 20;
    server.fs_max_bytes = 64u << 20;
    server.fs_max_file = 32u << 20;
    server.max_output = 1u << 20;
    server.timeout_ms = server_unlimited ? 0 : 30000;
    server.fuel = server_unlimited ? 0 : 1000000000;
    static const char *const fields[] = { "limits", "policy", NULL };
    char msg[256] = "";
    if (!serve_only_fields(body, fields, "limits, policy", msg, sizeof(msg))) {
        if (!*msg)
            abort();
        return;
    }
    int st = serve_limits(&server, json_object_get(body, "limits"), &o, msg, sizeof(msg));
    if (st != 0) {
        if ((st != 400 && st != 422) || !*msg)
            abort();
        return;
    }
    const uint64_t *got[] = { &o.memory_limit, &o.fs_max_bytes, &o.max_output, &o.timeout_ms,
                              &o.fuel };
    const uint64_t *max[] = { &server.memory_limit, &server.fs_max_bytes, &server.max_output,
                              &server.timeout_ms, &server.fuel };
    for (size_t i = 0; i < sizeof(got) / sizeof(got[0]); i++) {
        if (*max[i] && (*got[i] == 0 || *got[i] > *max[i]))
            abort(); /* over the server's maximum, or none where it has one */
        if (i < 3 && *got[i] == 0)
            abort(); /* memory, disk and output are never unlimited */
    }
    if (o.fs_max_file > o.fs_max_bytes)
        abort();
    /* A limit asked for above 0 is never "none". */
    static const char *const names[] = { "memory", "disk", "max_output", "timeout", "fuel" };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        json_t *v = json_object_get(json_object_get(body, "limits"), names[i]);
        if (v && json_number_value(v) > 0 && *got[i] == 0)
            abort();
    }
}

static void check_run(json_t *body)
{
    int shell = -1;
    char msg[256] = "";
    if (serve_run_check(body, &shell, msg, sizeof(msg)) != 0) {
        if (!*msg)
            abort();
        return;
    }
    json_t *code = json_object_get(body, "code");
    if (!json_is_string(code) || (shell != 0 && shell != 1) ||
        (shell && strlen(json_string_value(code)) != json_string_length(code)))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* An exact-size copy, so that ASan sees a read past the end. */
    char *blob = malloc(size ? size : 1);
    memcpy(blob, data, size);
    check_record(blob, size);
    char msg[256] = "";
    json_t *body = serve_body_object(blob, size, msg, sizeof(msg));
    if (!body) {
        if (!*msg)
            abort();
    } else {
        if (!json_is_object(body))
            abort();
        check_limits(body, size & 1);
        check_run(body);
        json_decref(body);
    }
    free(blob);
    return 0;
}
