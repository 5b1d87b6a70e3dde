/* Reading a run's result: accessors, statistics, and the whole result as one JSON
 * object {"stdout","stderr","value","error","stats"}; and capsa_free, for what the
 * library hands out. */
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "sandbox.h"

static const char *part(const capsa_result *r, int i)
{
    return r && r->has[i] ? r->part[i].data : NULL;
}

CAPSA_API int capsa_result_status(const capsa_result *r)
{
    return r ? r->status : CAPSA_EINVAL;
}

CAPSA_API int capsa_result_exit_code(const capsa_result *r)
{
    return r ? r->exit_code : -1;
}

CAPSA_API int capsa_result_shell_exited(const capsa_result *r)
{
    return r && r->shell_exited;
}

CAPSA_API const char *capsa_result_stdout(const capsa_result *r, size_t *len)
{
    if (len)
        *len = r ? r->out.len : 0;
    return r && r->out.data ? r->out.data : "";
}

CAPSA_API const char *capsa_result_stderr(const capsa_result *r, size_t *len)
{
    if (len)
        *len = r ? r->err.len : 0;
    return r && r->err.data ? r->err.data : "";
}

CAPSA_API const char *capsa_result_value(const capsa_result *r)
{
    return part(r, PART_VALUE);
}

CAPSA_API const char *capsa_result_error_name(const capsa_result *r)
{
    return part(r, PART_ERROR_NAME);
}

CAPSA_API const char *capsa_result_error_message(const capsa_result *r)
{
    return part(r, PART_ERROR_MESSAGE);
}

CAPSA_API const char *capsa_result_error_code(const capsa_result *r)
{
    return part(r, PART_ERROR_CODE);
}

CAPSA_API const char *capsa_result_error_stack(const capsa_result *r)
{
    return part(r, PART_ERROR_STACK);
}

CAPSA_API void capsa_result_stats(const capsa_result *r, capsa_stats *stats)
{
    if (!r || !stats || stats->struct_size < sizeof(size_t))
        return;
    capsa__struct_out(stats, &r->stats, sizeof(r->stats));
}

/* The result's error as a JSON object {"name","message","stack"} (and "code" when
 * it has one), or null, appended to b. */
static void append_error(capsa__buf *b, const capsa_result *r)
{
    static const struct { int part; const char *key; } keys[] = {
        { PART_ERROR_NAME, "{\"name\":" },
        { PART_ERROR_MESSAGE, ",\"message\":" },
        { PART_ERROR_STACK, ",\"stack\":" },
    };
    const capsa_allocator *a = &capsa__default_allocator;
    if (!r->has[PART_ERROR_NAME] && !r->has[PART_ERROR_MESSAGE]) {
        capsa__buf_append_str(b, a, "null");
        return;
    }
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        const capsa__buf *p = &r->part[keys[i].part];
        capsa__buf_append_str(b, a, keys[i].key);
        if (r->has[keys[i].part])
            capsa__json_quote(b, a, p->data, p->len);
        else
            capsa__buf_append_str(b, a, "\"\"");
    }
    /* The code only when the error has one (fs errors, tool errors). */
    if (r->has[PART_ERROR_CODE]) {
        capsa__buf_append_str(b, a, ",\"code\":");
        capsa__json_quote(b, a, r->part[PART_ERROR_CODE].data, r->part[PART_ERROR_CODE].len);
    }
    capsa__buf_append_str(b, a, "}");
}

CAPSA_API char *capsa_result_json(const capsa_result *r)
{
    if (!r)
        return NULL;
    /* Allocated by the C library: capsa_free releases it. */
    const capsa_allocator *a = &capsa__default_allocator;
    capsa__buf b = { 0 };
    char stats[320];
    snprintf(stats, sizeof(stats),
             ",\"stats\":{\"wall_ms\":%.3f,\"memory_bytes\":%llu,\"stdout_bytes\":%llu,"
             "\"stderr_bytes\":%llu,\"output_dropped\":%llu,\"fuel_used\":%llu}}",
             r->stats.wall_ms, (unsigned long long)r->stats.memory_bytes,
             (unsigned long long)r->stats.stdout_bytes, (unsigned long long)r->stats.stderr_bytes,
             (unsigned long long)r->stats.output_dropped, (unsigned long long)r->stats.fuel_used);
    /* The value is embedded as the guest's JSON.stringify wrote it: valid JSON,
     * and no precision is lost to a parse and a re-print. */
    capsa__buf_append_str(&b, a, "{\"stdout\":");
    capsa__json_quote(&b, a, r->out.data ? r->out.data : "", r->out.len);
    capsa__buf_append_str(&b, a, ",\"stderr\":");
    capsa__json_quote(&b, a, r->err.data ? r->err.data : "", r->err.len);
    capsa__buf_append_str(&b, a, ",\"value\":");
    capsa__buf_append_str(&b, a, r->has[PART_VALUE] ? r->part[PART_VALUE].data : "null");
    if (r->exit_code >= 0) {
        char code[32];
        snprintf(code, sizeof(code), ",\"exit_code\":%d", r->exit_code);
        capsa__buf_append_str(&b, a, code);
    }
    capsa__buf_append_str(&b, a, ",\"error\":");
    append_error(&b, r);
    capsa__buf_append_str(&b, a, stats);
    if (b.failed) {
        capsa__buf_free(&b, a);
        return NULL;
    }
    return b.data;
}

CAPSA_API void capsa_free(void *ptr)
{
    free(ptr);
}
