/* libFuzzer harness: JSON Schemas (a tool's parameters, an MCP server's input
 * schemas) and the values checked against them. The input is split at the first
 * NUL: schema text before it; after it, one JSON value a line, each validated
 * when the schema compiled. Compiling must answer OK, or EINVAL/ENOMEM with a
 * message; validating must answer OK, EINVAL, ETOOBIG or ENOMEM, with a message
 * that starts with the value's path ('/') unless the value was valid, and must
 * give the same answer twice. Never a crash, a hang or a leak. */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capsa.h"
#include "schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    size_t text_len = strnlen(text, size);
    char err[CAPSA__SCHEMA_MSG_MAX];
    capsa__schema *s = NULL;
    int rc = capsa__schema_parse(NULL, text, text_len, (unsigned)(size & 3), &s, err, sizeof err);
    if (rc != CAPSA_OK) {
        if (s || (rc != CAPSA_EINVAL && rc != CAPSA_ENOMEM) || !err[0])
            abort();
        return 0;
    }
    if (!capsa__schema_json(s))
        abort();
    const char *end = (const char *)data + size;
    const char *line = text + text_len + (text_len < size);
    while (line < end) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *stop = nl ? nl : end;
        json_t *v = json_loadb(line, (size_t)(stop - line), JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, NULL);
        if (v) {
            char msg[CAPSA__SCHEMA_MSG_MAX], again[CAPSA__SCHEMA_MSG_MAX];
            int r1 = capsa__schema_validate(s, v, msg, sizeof msg);
            int r2 = capsa__schema_validate(s, v, again, sizeof again);
            if (r1 != r2 || strcmp(msg, again) != 0)
                abort();
            if (r1 != CAPSA_OK && r1 != CAPSA_EINVAL && r1 != CAPSA_ETOOBIG && r1 != CAPSA_ENOMEM)
                abort();
            if ((r1 == CAPSA_OK) != (msg[0] == '\0') || (r1 != CAPSA_OK && msg[0] != '/'))
                abort();
            json_decref(v);
        }
        line = stop + 1;
    }
    capsa__schema_free(s);
    return 0;
}
