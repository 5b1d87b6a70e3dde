/* JSON text of jansson values (src/json_write.c): reals in their shortest form,
 * which the strict parse reads back as the same double; everything else, layout
 * and flags included, byte for byte as jansson's own dump writes it; and what
 * cannot be written. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "../../src/json.h"
#include "../../src/json_write.h"
#include "test.h"

/* Dumps v with both writers and checks they agree (v without reals). */
static void same_as_jansson(const char *text, size_t flags)
{
    json_error_t je;
    json_t *v = json_loads(text, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    TEST_REPORT(v != NULL, "test input should parse: %s", text);
    if (!v)
        return;
    char *want = json_dumps(v, flags), *got = capsa__json_dumps(v, flags);
    TEST_REPORT(want && got && strcmp(want, got) == 0, "flags %zx of %s: jansson wrote %s, got %s",
                flags, text, want ? want : "(null)", got ? got : "(null)");
    free(want);
    free(got);
    json_decref(v);
}

TEST(layout_and_strings_as_jansson_writes_them)
{
    static const char *const texts[] = {
        "{}", "[]", "{\"a\":1}", "[1,2,3]", "[[],{},[[]],{\"x\":{}}]",
        "{\"a\":[1,{\"b\":null,\"c\":true,\"d\":false}],\"e\":\"f\",\"g\":[[1,2],[3]]}",
        "\"q\\\"b\\\\s/ \\b\\f\\n\\r\\t \\u0001\\u001f\\u007f \\u00e9\\u2028\\ud83d\\ude00\"",
        "{\"key\":\"v\\u0000al\"}", "-9223372036854775808", "9223372036854775807",
        "\"\"", "null", "true",
    };
    static const size_t flags[] = {
        JSON_COMPACT | JSON_ENCODE_ANY, JSON_ENCODE_ANY, JSON_INDENT(2) | JSON_ENCODE_ANY,
        JSON_INDENT(3) | JSON_COMPACT | JSON_ENCODE_ANY, JSON_INDENT(31) | JSON_ENCODE_ANY,
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        for (size_t f = 0; f < sizeof flags / sizeof *flags; f++)
            same_as_jansson(texts[i], flags[f]);
}

TEST(reals_in_their_shortest_form)
{
    static const struct { double d; const char *text; } cases[] = {
        { 0.1, "0.1" }, { 19.99, "19.99" }, { 1e304, "1e+304" }, { 5.0, "5.0" },
        { -0.0, "-0.0" }, { 1e21, "1e+21" }, { 1e20, "100000000000000000000.0" },
        { 1.5e-7, "1.5e-7" }, { 0.000001, "0.000001" }, { -2.5, "-2.5" },
        { 5e-324, "5e-324" }, { 1.7976931348623157e308, "1.7976931348623157e+308" },
        { 9007199254740993.0, "9007199254740992.0" }, { 0.30000000000000004, "0.30000000000000004" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        json_t *a = json_pack("[f]", cases[i].d);
        char *got = capsa__json_dumps(a, JSON_COMPACT);
        char want[64];
        snprintf(want, sizeof want, "[%s]", cases[i].text);
        CHECK_STR(got, want, "a real's text");
        /* It reads back, strictly, as the same double. */
        json_error_t je;
        json_t *back = got ? capsa__json_load_strict(got, strlen(got), 0, &je) : NULL;
        TEST_REPORT(back && json_is_real(json_array_get(back, 0)) &&
                        json_real_value(json_array_get(back, 0)) == cases[i].d &&
                        signbit(json_real_value(json_array_get(back, 0))) == signbit(cases[i].d),
                    "%s should read back strictly as the same real: %s", want,
                    back ? "a different value" : je.text);
        json_decref(back);
        free(got);
        json_decref(a);
    }
    /* Inside a document with JSON_INDENT, as the model reads a result. */
    json_t *o = json_pack("{s:f,s:[f,i]}", "price", 19.99, "n", 0.1, 2);
    char *got = capsa__json_dumps(o, JSON_INDENT(2));
    CHECK_STR(got, "{\n  \"price\": 19.99,\n  \"n\": [\n    0.1,\n    2\n  ]\n}", "indented");
    free(got);
    json_decref(o);
}

/* A callback that fails after `left` calls. */
static int fail_after(const char *s, size_t n, void *ud)
{
    (void)s;
    (void)n;
    int *left = ud;
    return (*left)-- > 0 ? 0 : -1;
}

TEST(what_cannot_be_written)
{
    json_t *s = json_string("x");
    CHECK(capsa__json_dumps(s, JSON_COMPACT) == NULL, "a string without JSON_ENCODE_ANY");
    CHECK(capsa__json_dumps(NULL, JSON_ENCODE_ANY) == NULL, "no value");
    json_decref(s);
    /* Nested deeper than 2048 levels: refused, not a deep recursion. */
    json_t *deep = json_array(), *inner = deep;
    for (int i = 0; i < 3000; i++) {
        json_t *next = json_array();
        json_array_append_new(inner, next);
        inner = next;
    }
    CHECK(capsa__json_dumps(deep, JSON_COMPACT) == NULL, "3000 levels deep");
    json_decref(deep);
    /* A failing sink fails the dump, at every point. */
    json_t *v = json_pack("{s:[i,f,s],s:{}}", "a", 1, 0.5, "t\n", "b");
    int calls = 0;
    for (int left = 0;; left++) {
        int l = left;
        if (capsa__json_dump_callback(v, fail_after, &l, JSON_INDENT(1)) == 0) {
            calls = left;
            break;
        }
    }
    CHECK(calls > 10, "the dump fails while its sink does");
    json_decref(v);
}

int main(void)
{
    RUN(layout_and_strings_as_jansson_writes_them);
    RUN(reals_in_their_shortest_form);
    RUN(what_cannot_be_written);
    return test_summary("test_json");
}
