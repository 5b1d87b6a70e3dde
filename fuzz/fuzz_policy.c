/* libFuzzer harness: policy files (the CLI's --policy, the library's policy text)
 * and the checks they make. The input is split at the first NUL: policy text
 * before it; after it, lines "METHOD ARGS-JSON" checked against the policy when
 * it loaded. Loading must answer OK or EINVAL with a message, never crash; a
 * loaded policy must describe itself as JSON that loads again to the same
 * description; every dry run (peek) must give a decision with a message, and the
 * check after it the same decision (its message, when it denies). */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "capsa.h"
#include "policy.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    size_t text_len = strnlen(text, size);
    char err[256];
    capsa__policy *p = NULL;
    int rc = capsa__policy_parse(NULL, text, text_len, &p, err, sizeof(err));
    if (rc != CAPSA_OK) {
        if (p || (rc != CAPSA_EINVAL && rc != CAPSA_ENOMEM) || !err[0])
            abort();
        return 0;
    }
    char *json = capsa__policy_to_json(p);
    if (json) {
        capsa__policy *again = NULL;
        if (capsa__policy_parse(NULL, json, strlen(json), &again, err, sizeof(err)) != CAPSA_OK)
            abort(); /* a policy's own description must load */
        char *json2 = capsa__policy_to_json(again);
        if (json2 && strcmp(json, json2) != 0)
            abort();
        capsa__policy_free_string(again, json2);
        capsa__policy_free(again);
        capsa__policy_free_string(p, json);
    }
    /* The checks: each line after the NUL is "METHOD ARGS". */
    const char *p_end = (const char *)data + size;
    const char *line = text + text_len + (text_len < size);
    while (line < p_end) {
        const char *nl = memchr(line, '\n', (size_t)(p_end - line));
        const char *end = nl ? nl : p_end;
        const char *sp = memchr(line, ' ', (size_t)(end - line));
        char method[256];
        size_t mlen = (size_t)((sp ? sp : end) - line);
        if (mlen >= sizeof(method))
            mlen = sizeof(method) - 1;
        memcpy(method, line, mlen);
        method[mlen] = '\0';
        json_t *args = NULL;
        if (sp)
            args = json_loadb(sp + 1, (size_t)(end - sp - 1), JSON_REJECT_DUPLICATES, NULL);
        capsa__decision peek, d;
        capsa__policy_peek(p, method, args, &peek);
        capsa__policy_check(p, method, args, &d);
        if (!peek.message[0] || peek.allowed != d.allowed || peek.capability != d.capability ||
            (!d.allowed && !d.message[0]) || (d.allowed && d.capability < 0))
            abort();
        json_decref(args);
        line = end + 1;
    }
    capsa__policy_free(p);
    return 0;
}
