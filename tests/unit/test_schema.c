/* The JSON Schema validator (src/schema.c): every keyword with its exact failure
 * message, exact numbers, the ECMA-262 pattern translation and what it refuses,
 * references and their cycles, malformed and unsupported schemas, the dialects,
 * deep and costly values and schemas (bounded, never the C stack), message
 * escaping and cutting, concurrent use, and allocation failure. The official
 * test suite runs in tests/schema/. */
#include <jansson.h>
#include <pthread.h>
#include <stdint.h>

#include "../../src/schema.h"
#include "capsa.h"
#include "test.h"

static char msgbuf[CAPSA__SCHEMA_MSG_MAX];

/* Compiles a schema that must compile (flags as for capsa__schema_parse). */
static capsa__schema *compile_flags(const char *schema, unsigned flags)
{
    capsa__schema *s = NULL;
    char err[CAPSA__SCHEMA_MSG_MAX];
    int rc = capsa__schema_parse(NULL, schema, strlen(schema), flags, &s, err, sizeof err);
    TEST_REPORT(rc == CAPSA_OK && s, "schema should compile: %s (%s)", err, schema);
    return s;
}

static capsa__schema *compile(const char *schema)
{
    return compile_flags(schema, 0);
}

/* The error of a schema that must be refused with CAPSA_EINVAL. */
static const char *refused_flags(const char *schema, unsigned flags)
{
    capsa__schema *s = (capsa__schema *)1;
    int rc = capsa__schema_parse(NULL, schema, strlen(schema), flags, &s, msgbuf, sizeof msgbuf);
    TEST_REPORT(rc == CAPSA_EINVAL && s == NULL, "schema should be refused, got %d: %s", rc, schema);
    if (rc == CAPSA_OK)
        capsa__schema_free(s);
    return msgbuf;
}

static const char *refused(const char *schema)
{
    return refused_flags(schema, 0);
}

/* Validates the JSON text value; returns the status, the message in msgbuf. */
static int validate(const capsa__schema *s, const char *value)
{
    json_error_t je;
    json_t *v = json_loads(value, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (!v) {
        TEST_REPORT(0, "bad test value %s: %s", value, je.text);
        return -1;
    }
    int rc = capsa__schema_validate(s, v, msgbuf, sizeof msgbuf);
    json_decref(v);
    return rc;
}

/* The value must be valid against the schema. */
static void valid(const char *schema, const char *value)
{
    capsa__schema *s = compile(schema);
    if (!s)
        return;
    int rc = validate(s, value);
    TEST_REPORT(rc == CAPSA_OK && msgbuf[0] == '\0', "%s should be valid against %s, got %d: %s",
                value, schema, rc, msgbuf);
    capsa__schema_free(s);
}

/* The value must be invalid against the schema, with exactly the message want. */
static void invalid(const char *schema, const char *value, const char *want)
{
    capsa__schema *s = compile(schema);
    if (!s)
        return;
    int rc = validate(s, value);
    TEST_REPORT(rc == CAPSA_EINVAL && strcmp(msgbuf, want) == 0,
                "%s against %s: expected CAPSA_EINVAL \"%s\", got %d \"%s\"", value, schema, want, rc,
                msgbuf);
    capsa__schema_free(s);
}

TEST(type)
{
    valid("{\"type\":\"string\"}", "\"x\"");
    invalid("{\"type\":\"string\"}", "5", "/: expected string, got number");
    invalid("{\"type\":[\"string\",\"null\"]}", "true", "/: expected null or string, got boolean");
    invalid("{\"type\":[\"object\",\"array\",\"integer\"]}", "1.5",
            "/: expected object, array or integer, got number");
    valid("{\"type\":\"integer\"}", "1.0");
    valid("{\"type\":\"integer\"}", "1e300");
    invalid("{\"type\":\"integer\"}", "1.5", "/: expected integer, got number");
    valid("{\"type\":\"number\"}", "-7");
    invalid("{\"type\":\"object\"}", "[]", "/: expected object, got array");
    invalid("{\"type\":\"array\"}", "{}", "/: expected array, got object");
    invalid("{\"type\":\"null\"}", "false", "/: expected null, got boolean");
    invalid("{\"type\":\"boolean\"}", "null", "/: expected boolean, got null");
    /* The example of the issue: the path of the argument and the rule. */
    invalid("{\"type\":\"object\",\"properties\":{\"items\":{\"type\":\"array\",\"items\":"
            "{\"type\":\"object\",\"properties\":{\"name\":{\"type\":\"string\"}}}}}}",
            "{\"items\":[{\"name\":\"a\"},{\"name\":\"b\"},{\"name\":5}]}",
            "/items/2/name: expected string, got number");
}

TEST(enum_and_const)
{
    valid("{\"enum\":[\"a\",\"b\"]}", "\"b\"");
    invalid("{\"enum\":[\"a\",\"b\"]}", "\"c\"", "/: expected one of [\"a\",\"b\"]");
    valid("{\"enum\":[1,2.5]}", "1.0");
    valid("{\"enum\":[1,2.5]}", "2.5");
    invalid("{\"enum\":[1,2.5]}", "true", "/: expected one of [1,2.5]");
    invalid("{\"enum\":[]}", "1", "/: expected one of []");
    valid("{\"const\":5}", "5.0");
    invalid("{\"const\":5}", "4", "/: expected the value 5");
    invalid("{\"const\":false}", "0", "/: expected the value false");
    invalid("{\"const\":null}", "0", "/: expected the value null");
    valid("{\"const\":{\"a\":1,\"b\":[1,2]}}", "{\"b\":[1,2.0],\"a\":1.0}");
    invalid("{\"const\":{\"a\":1}}", "{\"a\":1,\"b\":2}", "/: expected the value {\"a\":1}");
    invalid("{\"const\":[1]}", "[true]", "/: expected the value [1]");
    /* A long value is cut in the message. */
    capsa__schema *s = compile("{\"const\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                               "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
                               "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}");
    CHECK_INT(validate(s, "1"), CAPSA_EINVAL, "a long const fails");
    CHECK(strlen(msgbuf) < 200 && strstr(msgbuf, "...") != NULL, "its message is cut with ...");
    capsa__schema_free(s);
    /* ... between two characters, never inside one. */
    char doc[400] = "{\"const\":\"a";
    for (int i = 0; i < 100; i++)
        strcat(doc, "\xc3\xa9");
    strcat(doc, "\"}");
    s = compile(doc);
    CHECK_INT(validate(s, "1"), CAPSA_EINVAL, "a long const of two-byte characters fails");
    const char *dots = strstr(msgbuf, "...");
    CHECK(dots && dots > msgbuf && (unsigned char)dots[-1] == 0xa9,
          "its message is cut after a whole character");
    capsa__schema_free(s);
}

TEST(numbers)
{
    invalid("{\"minimum\":1}", "0", "/: expected a number >= 1, got 0");
    valid("{\"minimum\":1}", "1");
    invalid("{\"exclusiveMinimum\":1}", "1", "/: expected a number > 1, got 1");
    valid("{\"exclusiveMinimum\":1}", "1.0000001");
    invalid("{\"maximum\":10}", "10.5", "/: expected a number <= 10, got 10.5");
    invalid("{\"exclusiveMaximum\":10}", "10.0", "/: expected a number < 10, got 10.0");
    valid("{\"minimum\":1}", "\"not a number\"");
    /* Exact comparison across integers and reals, beyond 2^53. */
    invalid("{\"maximum\":9007199254740992}", "9007199254740993",
            "/: expected a number <= 9007199254740992, got 9007199254740993");
    invalid("{\"maximum\":9007199254740992.0}", "9007199254740993",
            "/: expected a number <= 9007199254740992.0, got 9007199254740993");
    valid("{\"minimum\":9007199254740992.0}", "9007199254740993");
    /* A real compares as the decimal it was written as, not as its double (that of
       1234567890123456800.0 is 1234567890123456768). */
    valid("{\"maximum\":1234567890123456800.0}", "1234567890123456790");
    invalid("{\"minimum\":1234567890123456800.0}", "1234567890123456790",
            "/: expected a number >= 1.2345678901234568e+18, got 1234567890123456790");
    valid("{\"maximum\":9223372036854775807}", "9223372036854775807");
    invalid("{\"exclusiveMaximum\":9223372036854775807}", "9.3e18",
            "/: expected a number < 9223372036854775807, got 9.3e+18");
    /* multipleOf on the decimal forms. */
    valid("{\"multipleOf\":0.01}", "19.99");
    invalid("{\"multipleOf\":0.01}", "19.999", "/: expected a multiple of 0.01, got 19.999");
    valid("{\"multipleOf\":0.1}", "0.3");
    valid("{\"multipleOf\":0.0001}", "0.0075");
    invalid("{\"multipleOf\":0.0001}", "0.00751", "/: expected a multiple of 0.0001, got 0.00751");
    valid("{\"multipleOf\":3}", "9");
    valid("{\"multipleOf\":3}", "-9");
    invalid("{\"multipleOf\":3}", "10", "/: expected a multiple of 3, got 10");
    valid("{\"multipleOf\":7}", "9223372036854775807");
    valid("{\"multipleOf\":2}", "-9223372036854775808");
    valid("{\"multipleOf\":1e-5}", "1e300");
    invalid("{\"multipleOf\":0.123456789}", "1e308", "/: expected a multiple of 0.123456789, got 1e+308");
    valid("{\"multipleOf\":1.5}", "0");
    valid("{\"multipleOf\":2.5}", "7.5");
    invalid("{\"multipleOf\":2.5}", "7", "/: expected a multiple of 2.5, got 7");
    valid("{\"type\":\"integer\",\"multipleOf\":1}", "4.0");
}

TEST(strings)
{
    invalid("{\"minLength\":2}", "\"\\u00e9\"", "/: expected at least 2 characters, got 1");
    valid("{\"minLength\":2}", "\"ab\"");
    invalid("{\"maxLength\":1}", "\"ab\"", "/: expected at most 1 character, got 2");
    valid("{\"maxLength\":1}", "\"\\ud83d\\ude00\"");
    valid("{\"maxLength\":2.0}", "\"ab\"");
    valid("{\"maxLength\":1}", "5");
    valid("{\"pattern\":\"^[a-z]+$\"}", "\"abc\"");
    invalid("{\"pattern\":\"^[a-z]+$\"}", "\"aBc\"", "/: does not match the pattern '^[a-z]+$'");
    invalid("{\"pattern\":\"^it's$\"}", "\"x\"", "/: does not match the pattern '^it\\'s$'");
    valid("{\"pattern\":\"b\"}", "\"abc\""); /* not anchored: a match anywhere */
    valid("{\"pattern\":\"^a\"}", "7");
}

/* Whether pattern matches str (both JSON string bodies), through the validator. */
static void matches(const char *pattern, const char *str, int want)
{
    char schema[512], value[512];
    snprintf(schema, sizeof schema, "{\"pattern\":\"%s\"}", pattern);
    snprintf(value, sizeof value, "\"%s\"", str);
    capsa__schema *s = compile(schema);
    if (!s)
        return;
    int rc = validate(s, value);
    TEST_REPORT(rc == (want ? CAPSA_OK : CAPSA_EINVAL), "pattern %s on %s: expected %s, got %d %s",
                pattern, value, want ? "a match" : "no match", rc, msgbuf);
    capsa__schema_free(s);
}

TEST(patterns)
{
    matches("\\\\d+", "a1", 1);
    matches("^\\\\d+$", "12a", 0);
    matches("^\\\\D$", "x", 1);
    matches("^\\\\D$", "5", 0);
    matches("^\\\\w+$", "a_Z9", 1);
    matches("^\\\\w$", "\\u00e9", 0);
    matches("^\\\\W$", "-", 1);
    matches("^\\\\s$", "\\u00a0", 1);
    matches("^\\\\s$", "\\ufeff", 1);
    matches("^\\\\s$", "\\t", 1);
    matches("^\\\\S$", " ", 0);
    matches("^.$", "\\u00e9", 1);
    matches("^.$", "\\ud83d\\ude00", 1);
    matches("^.$", "\\n", 0);
    matches("^.$", "\\u2028", 0);
    matches("^[^a]$", "\\u00e9", 1);
    matches("^[^a]$", "a", 0);
    matches("^[\\u00e9x]$", "\\u00e9", 1);
    matches("^(?:ab)+$", "abab", 1);
    matches("^(?:ab)+$", "aba", 0);
    matches("^(?<name>x)y$", "xy", 1);
    matches("^a{2}$", "aa", 1);
    matches("^a{2,}$", "a", 0);
    matches("^a{1,2}$", "aaa", 0);
    matches("^x{$", "x{", 1);
    matches("^{}$", "{}", 1);
    matches("^\\\\{\\\\}$", "{}", 1);
    matches("^[\\\\]\\\\-]+$", "]-", 1);
    matches("^[-^]$", "^", 1);
    matches("^[\\\\^]$", "^", 1);
    matches("^[\\\\^]$", "a", 0);
    matches("^[^^]$", "^", 0);
    matches("^[a\\\\-z]$", "-", 1);
    matches("^[a\\\\-z]$", "b", 0);
    matches("^[\\\\d.]+$", "1.5", 1);
    matches("^[\\\\s\\\\d]+$", " 1\\u3000", 1);
    matches("^[\\\\w-]+$", "a-b_c", 1);
    matches("^[a-c0-2_]+$", "a0_c2", 1);
    matches("^[\\\\d-z]+$", "1-z", 1); /* Annex B: a class escape, '-' and 'z' */
    matches("^[\\\\d-z]+$", "y", 0);
    matches("^[a-c0-2_]+$", "d", 0);
    matches("^[!-/]+$", "!+/", 1);
    matches("^[!-/]+$", "0", 0);
    matches("^[\\\\t\\\\n]+$", "\\t\\n", 1);
    matches("^[\\\\x41-\\\\x43]+$", "ABC", 1);
    matches("^[[]$", "[", 1);
    matches("^[[:]+$", "[:", 1);
    matches("^[\\\\\\\\]$", "\\\\", 1);
    matches("^\\\\u00e9$", "\\u00e9", 1);
    matches("^\\\\x41$", "A", 1);
    matches("^\\\\/$", "/", 1);
    matches("^\\\\uD83D\\\\uDE00$", "\\ud83d\\ude00", 1);
    matches("^\\\\t$", "\\t", 1);
    matches("a*?b", "aab", 1);
    matches("^a+?$", "aaa", 1);
    matches("\\\\bfoo\\\\b", "a foo b", 1);
    matches("\\\\bfoo\\\\b", "afoo", 0);
    matches("\\\\Bfoo", "afoo", 1);
    matches("^[^]$", "x", 1);
    matches("^(a|b)*c$", "ababc", 1);
    matches("^(a|)$", "", 1);
    matches("^$", "", 1);
    matches("", "anything", 1);
    matches("^\\\\$\\\\.\\\\*\\\\+\\\\?\\\\(\\\\)\\\\[\\\\]\\\\|\\\\\\\\$", "$.*+?()[]|\\\\", 1);
    matches("^a.c$", "abc", 1);
    matches("^a\\\\.c$", "abc", 0);
}

TEST(patterns_refused)
{
    struct { const char *pattern, *why; } cases[] = {
        { "(?=a)", "lookahead and lookbehind" },
        { "(?!a)", "lookahead and lookbehind" },
        { "(?<=a)b", "lookahead and lookbehind" },
        { "(?<!a)b", "lookahead and lookbehind" },
        { "(a)\\\\1", "back-references" },
        { "(?<n>a)\\\\k<n>", "back-references" },
        { "\\\\p{L}", "Unicode property escapes" },
        { "[\\u00e0-\\u00ff]", "ranges of non-ASCII characters" },
        { "a{1001}", "a repetition bound over 1000" },
        { "a{3,2}", "m < n" },
        { "(a{1000}){1000}", "repeats too much" },
        { "((((a{20}){20}){20}){20})", "repeats too much" },
        { "*a", "nothing to repeat" },
        { "a**", "nothing to repeat" },
        { "a{2}{3}", "nothing to repeat" },
        { "^*", "nothing to repeat" },
        { "(a", "an unclosed '('" },
        { "a)", "an unmatched ')'" },
        { "[a", "an unclosed class" },
        { "[]", "an empty class" },
        { "\\\\0", "NUL" },
        { "[\\\\D]", "inside a class" },
        { "[z-a]", "out of order" },
        { "[a-\\\\d]", "a class escape cannot end a range" },
        { "\\\\q", "an unknown escape" },
        { "\\\\c1", "\\\\c" },
        { "\\\\u{41}", "u flag" },
        { "\\\\uD800", "lone surrogate" },
        { "\\\\x4", "hex digits" },
        { "a\\\\", "ends with a backslash" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char schema[256];
        snprintf(schema, sizeof schema, "{\"properties\":{\"p\":{\"pattern\":\"%s\"}}}", cases[i].pattern);
        const char *err = refused(schema);
        CHECK_CONTAINS(err, "#/properties/p/pattern: pattern '", "the error names the pattern's place");
        char want[64];
        snprintf(want, sizeof want, "%s", cases[i].why);
        /* The test's C literal doubles the backslashes of the JSON text. */
        for (char *p = want; (p = strstr(p, "\\\\")) != NULL; p++)
            memmove(p, p + 1, strlen(p));
        CHECK_CONTAINS(err, want, cases[i].pattern);
    }
    /* In patternProperties too, named by the key. */
    CHECK_STR(refused("{\"patternProperties\":{\"(?=x)\":{}}}"),
              "#/patternProperties/(?=x): pattern '(?=x)': lookahead and lookbehind ((?=, (?!, (?<=, "
              "(?<!) are not supported", "a patternProperties key is a pattern");
}

TEST(arrays)
{
    invalid("{\"minItems\":1}", "[]", "/: expected at least 1 item, got 0");
    invalid("{\"maxItems\":2}", "[1,2,3]", "/: expected at most 2 items, got 3");
    valid("{\"maxItems\":2}", "\"abc\"");
    const char *tuple = "{\"prefixItems\":[{\"type\":\"string\"},{\"type\":\"number\"}],\"items\":false}";
    valid(tuple, "[\"a\",1]");
    valid(tuple, "[\"a\"]");
    invalid(tuple, "[\"a\",\"b\"]", "/1: expected number, got string");
    invalid(tuple, "[\"a\",1,2]", "/: expected at most 2 items (no more are allowed), got 3");
    invalid("{\"prefixItems\":[{\"type\":\"string\"}],\"items\":{\"type\":\"integer\"}}", "[\"x\",1,2.5]",
            "/2: expected integer, got number");
    invalid("{\"items\":{\"type\":\"integer\"}}", "[1,\"2\"]", "/1: expected integer, got string");
    invalid("{\"items\":false}", "[1]", "/: expected at most 0 items (no more are allowed), got 1");
    invalid("{\"contains\":{\"const\":1}}", "[2,3]", "/: no item matches the schema of contains");
    valid("{\"contains\":{\"const\":1}}", "[2,1]");
    invalid("{\"contains\":{\"const\":1},\"minContains\":2}", "[1,2]",
            "/: expected at least 2 items matching contains, got 1");
    invalid("{\"contains\":{\"const\":1},\"maxContains\":1}", "[1,1]",
            "/: expected at most 1 item matching contains, got 2");
    valid("{\"contains\":{\"const\":1},\"minContains\":0}", "[]");
    valid("{\"minContains\":5}", "[]"); /* without contains: nothing */
    invalid("{\"uniqueItems\":true}", "[1,\"1\",1.0]", "/: items 0 and 2 are equal, expected unique items");
    invalid("{\"uniqueItems\":true}", "[{\"a\":1,\"b\":[2]},{\"b\":[2.0],\"a\":1}]",
            "/: items 0 and 1 are equal, expected unique items");
    invalid("{\"uniqueItems\":true}", "[0,null,3,null,3]", "/: items 1 and 3 are equal, expected unique items");
    valid("{\"uniqueItems\":true}", "[[1],[true],0,false,\"0\",{},[],null,{\"a\":null},{\"b\":null}]");
    valid("{\"uniqueItems\":true}", "[\"a\\u0000b\",\"a\\u0000c\",\"a\"]");
    valid("{\"uniqueItems\":false}", "[1,1]");
    /* A large array: sorted, not compared pair by pair. */
    json_t *big = json_array();
    for (int i = 0; i < 200000; i++)
        json_array_append_new(big, json_integer(i));
    capsa__schema *s = compile("{\"uniqueItems\":true}");
    CHECK_INT(capsa__schema_validate(s, big, msgbuf, sizeof msgbuf), CAPSA_OK, "200000 unique items");
    json_array_append_new(big, json_real(199999.0));
    CHECK_INT(capsa__schema_validate(s, big, msgbuf, sizeof msgbuf), CAPSA_EINVAL, "and one twice");
    CHECK_STR(msgbuf, "/: items 199999 and 200000 are equal, expected unique items", "named by index");
    json_decref(big);
    capsa__schema_free(s);
}

TEST(objects)
{
    invalid("{\"required\":[\"q\"]}", "{}", "/: missing required property 'q'");
    valid("{\"required\":[\"q\"]}", "[]");
    const char *closed = "{\"properties\":{\"a\":{}},\"additionalProperties\":false}";
    valid(closed, "{\"a\":1}");
    invalid(closed, "{\"a\":1,\"b\":2}", "/: property 'b' is not allowed");
    invalid("{\"additionalProperties\":{\"type\":\"string\"}}", "{\"x\":1}", "/x: expected string, got number");
    const char *pat = "{\"patternProperties\":{\"^x_\":{\"type\":\"integer\"}},\"additionalProperties\":false}";
    valid(pat, "{\"x_a\":1,\"x_b\":2}");
    invalid(pat, "{\"x_a\":1,\"y\":1}", "/: property 'y' is not allowed");
    invalid(pat, "{\"x_a\":\"s\"}", "/x_a: expected integer, got string");
    invalid("{\"properties\":{\"a\":{\"type\":\"string\"}},\"patternProperties\":{\"a\":{\"minLength\":2}}}",
            "{\"a\":\"x\"}", "/a: expected at least 2 characters, got 1");
    invalid("{\"propertyNames\":{\"pattern\":\"^[a-z]+$\"}}", "{\"ok\":1,\"Foo\":1}",
            "/: property name 'Foo': does not match the pattern '^[a-z]+$'");
    invalid("{\"propertyNames\":{\"maxLength\":3}}", "{\"abcd\":1}",
            "/: property name 'abcd': expected at most 3 characters, got 4");
    invalid("{\"properties\":{\"o\":{\"propertyNames\":false}}}", "{\"o\":{\"k\":1}}",
            "/o: property name 'k': no value is allowed here");
    valid("{\"propertyNames\":false}", "{}");
    invalid("{\"minProperties\":1}", "{}", "/: expected at least 1 property, got 0");
    invalid("{\"maxProperties\":1}", "{\"a\":1,\"b\":2}", "/: expected at most 1 property, got 2");
    invalid("{\"dependentRequired\":{\"a\":[\"b\"]}}", "{\"a\":1}", "/: property 'b' is required when 'a' is present");
    valid("{\"dependentRequired\":{\"a\":[\"b\"]}}", "{\"b\":1}");
    invalid("{\"dependentSchemas\":{\"a\":{\"required\":[\"c\"]}}}", "{\"a\":1}", "/: missing required property 'c'");
    valid("{\"dependentSchemas\":{\"a\":{\"required\":[\"c\"]}}}", "{\"c\":1}");
    /* Keys in paths: JSON Pointer escapes; control bytes and quotes escaped. */
    invalid("{\"additionalProperties\":{\"type\":\"string\"}}", "{\"a/b~c\":1}", "/a~1b~0c: expected string, got number");
    invalid("{\"additionalProperties\":{\"type\":\"string\"}}", "{\"a\\nb: ok\\u001b\":1}",
            "/a\\x0ab: ok\\x1b: expected string, got number");
    invalid("{\"additionalProperties\":false}", "{\"it's\\\\\":1}", "/: property 'it\\'s\\\\' is not allowed");
    invalid("{\"additionalProperties\":{\"type\":\"string\"}}", "{\"\\u00e9\":1}", "/\xc3\xa9: expected string, got number");
}

TEST(applicators)
{
    invalid("{\"allOf\":[{\"type\":\"number\"},{\"minimum\":5}]}", "3", "/: expected a number >= 5, got 3");
    valid("{\"allOf\":[{\"type\":\"number\"},{\"minimum\":5}]}", "5");
    const char *any = "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"null\"}]}";
    valid(any, "null");
    invalid(any, "5", "/: matches none of the 2 schemas of anyOf: [0] /: expected string, got number; "
                      "[1] /: expected null, got number");
    invalid("{\"properties\":{\"x\":{\"anyOf\":[{\"anyOf\":[{\"type\":\"string\"},{\"minimum\":9}]},{\"type\":\"null\"}]}}}",
            "{\"x\":5}",
            "/x: matches none of the 2 schemas of anyOf: [0] /x: matches none of the 2 schemas of anyOf: "
            "[0] /x: expected string, got number; [1] /x: expected a number >= 9, got 5; "
            "[1] /x: expected null, got number");
    /* An alternative that matches takes its partial text back. */
    invalid("{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"number\"}],\"maximum\":1}", "5",
            "/: expected a number <= 1, got 5");
    invalid("{\"maximum\":10,\"anyOf\":[{\"type\":\"string\"},{\"type\":\"number\"}],\"not\":{\"const\":5}}", "5",
            "/: must not match the schema of not");
    const char *one = "{\"oneOf\":[{\"type\":\"number\"},{\"type\":\"integer\"}]}";
    valid(one, "1.5");
    invalid(one, "1", "/: matches both schema 0 and schema 1 of oneOf, expected exactly one");
    invalid(one, "\"x\"", "/: matches none of the 2 schemas of oneOf: [0] /: expected number, got string; "
                          "[1] /: expected integer, got string");
    valid("{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"number\"},{\"type\":\"null\"}]}", "null");
    invalid("{\"not\":{\"type\":\"string\"}}", "\"x\"", "/: must not match the schema of not");
    valid("{\"not\":{\"type\":\"string\"}}", "1");
    const char *cond = "{\"if\":{\"properties\":{\"kind\":{\"const\":\"a\"}}},\"then\":{\"required\":[\"x\"]},"
                       "\"else\":{\"required\":[\"y\"]}}";
    invalid(cond, "{\"kind\":\"a\"}", "/: missing required property 'x'");
    invalid(cond, "{\"kind\":\"b\"}", "/: missing required property 'y'");
    valid(cond, "{\"kind\":\"a\",\"x\":1}");
    valid("{\"then\":false}", "1"); /* then without if: nothing */
    valid("{\"if\":true}", "1");
    invalid("{\"properties\":{\"x\":false}}", "{\"x\":1}", "/x: no value is allowed here");
    valid("{\"properties\":{\"x\":false}}", "{\"y\":1}");
    valid("true", "{\"anything\":[1]}");
    invalid("false", "1", "/: no value is allowed here");
}

TEST(references)
{
    invalid("{\"$defs\":{\"pos\":{\"type\":\"integer\",\"minimum\":1}},\"properties\":{\"n\":{\"$ref\":\"#/$defs/pos\"}}}",
            "{\"n\":0}", "/n: expected a number >= 1, got 0");
    /* 2020-12: the siblings of $ref apply too. */
    invalid("{\"$defs\":{\"s\":{\"type\":\"string\"}},\"$ref\":\"#/$defs/s\",\"maxLength\":2}", "\"abc\"",
            "/: expected at most 2 characters, got 3");
    invalid("{\"$defs\":{\"s\":{\"type\":\"string\"}},\"$ref\":\"#/$defs/s\",\"maxLength\":2}", "1",
            "/: expected string, got number");
    invalid("{\"$defs\":{\"x\":{\"$anchor\":\"item\",\"type\":\"string\"}},\"items\":{\"$ref\":\"#item\"}}", "[1]",
            "/0: expected string, got number");
    const char *tree = "{\"$defs\":{\"node\":{\"type\":\"object\",\"required\":[\"v\"],\"properties\":"
                       "{\"kids\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/node\"}}}}},\"$ref\":\"#/$defs/node\"}";
    valid(tree, "{\"v\":1,\"kids\":[{\"v\":2,\"kids\":[{\"v\":3}]}]}");
    invalid(tree, "{\"v\":1,\"kids\":[{\"v\":2,\"kids\":[{\"w\":3}]}]}", "/kids/0/kids/0: missing required property 'v'");
    valid("{\"properties\":{\"self\":{\"$ref\":\"#\"}},\"type\":\"object\"}", "{\"self\":{\"self\":{}}}");
    invalid("{\"properties\":{\"self\":{\"$ref\":\"#\"}},\"type\":\"object\"}", "{\"self\":{\"self\":1}}",
            "/self/self: expected object, got number");
    /* By the document's $id, and inside an embedded resource. */
    invalid("{\"$id\":\"https://example.com/s\",\"$defs\":{\"a\":{\"type\":\"string\"}},"
            "\"properties\":{\"x\":{\"$ref\":\"https://example.com/s#/$defs/a\"}}}", "{\"x\":1}",
            "/x: expected string, got number");
    const char *embedded = "{\"$defs\":{\"t\":{\"type\":\"null\"},\"inner\":{\"$id\":\"https://example.com/inner\","
                           "\"$defs\":{\"t\":{\"type\":\"boolean\"}},\"$ref\":\"#/$defs/t\"}},\"$ref\":\"#/$defs/inner\"}";
    valid(embedded, "true");
    invalid(embedded, "null", "/: expected boolean, got null");
    invalid("{\"$defs\":{\"b\":{\"$id\":\"b.json\",\"type\":\"integer\"}},\"$ref\":\"b.json\"}", "\"x\"",
            "/: expected integer, got string");
    /* Pointers: percent-decoding, ~0 ~1, array indexes, anything in the document. */
    invalid("{\"$defs\":{\"a b\":{\"type\":\"null\"}},\"$ref\":\"#/$defs/a%20b\"}", "1", "/: expected null, got number");
    invalid("{\"$defs\":{\"a/b~\":{\"type\":\"null\"}},\"$ref\":\"#/$defs/a~1b~0\"}", "1", "/: expected null, got number");
    invalid("{\"x\":[{},{\"type\":\"null\"}],\"$ref\":\"#/x/1\"}", "1", "/: expected null, got number");
    invalid("{\"definitions\":{\"n\":{\"type\":\"null\"}},\"$ref\":\"#/definitions/n\"}", "1", "/: expected null, got number");
    /* Unresolvable references. */
    CHECK_STR(refused("{\"$ref\":\"#/$defs/missing\"}"),
              "#/$ref: cannot resolve '#/$defs/missing': there is nothing at that place", "a missing target");
    CHECK_STR(refused("{\"properties\":{\"a\":{\"$ref\":\"other.json#/x\"}}}"),
              "#/properties/a/$ref: cannot resolve 'other.json#/x': only references within this schema are "
              "supported (nothing is fetched, and relative URIs are not resolved)", "a remote reference");
    CHECK_CONTAINS(refused("{\"$ref\":\"https://example.com/schema\"}"), "only references within", "an absolute URI");
    CHECK_CONTAINS(refused("{\"$ref\":\"#nope\"}"), "no $anchor of that name", "a missing anchor");
    CHECK_CONTAINS(refused("{\"$ref\":\"#/x/01\",\"x\":[{},{}]}"), "nothing at that place", "a non-canonical index");
    CHECK_CONTAINS(refused("{\"$ref\":\"#/a~2\",\"a~2\":{}}"), "must be followed by 0 or 1", "a bad ~ escape");
    CHECK_STR(refused("{\"properties\":{\"a\":{\"$ref\":5}}}"), "#/properties/a/$ref: $ref must be a string", "not a string");
    CHECK_CONTAINS(refused("{\"$defs\":{\"x\":{\"type\":\"bogus\"}},\"$ref\":\"#/$defs/x\"}"),
                   "#/$defs/x/type: unknown type 'bogus'", "an unused or used bad definition");
    CHECK_CONTAINS(refused("{\"$ref\":\"#/other\",\"other\":{\"type\":\"bogus\"}}"),
                   "#/other/type: unknown type 'bogus'", "a target compiled through its reference");
    CHECK_CONTAINS(refused("{\"$ref\":\"#/other\",\"other\":5}"), "#/other: a schema must be an object or a boolean",
                   "a target that is no schema");
    CHECK_CONTAINS(refused("{\"$defs\":{\"a\":{\"$anchor\":\"x\"},\"b\":{\"$anchor\":\"x\"}}}"), "defined twice",
                   "an anchor twice");
    CHECK_CONTAINS(refused("{\"$anchor\":\"1x\"}"), "an anchor must start with a letter", "a bad anchor");
    CHECK_CONTAINS(refused("{\"$id\":\"https://x/y#frag\"}"), "must not have a fragment", "$id with a fragment");
}

TEST(reference_cycles)
{
    CHECK_STR(refused("{\"$ref\":\"#\"}"), "#: the $ref '#' leads back to itself without descending into the value",
              "the root refers to itself");
    CHECK_CONTAINS(refused("{\"$defs\":{\"a\":{\"$ref\":\"#/$defs/b\"},\"b\":{\"allOf\":[{\"$ref\":\"#/$defs/a\"}]}},"
                           "\"$ref\":\"#/$defs/a\"}"), "leads back to itself", "a cycle through allOf");
    CHECK_CONTAINS(refused("{\"$defs\":{\"a\":{\"anyOf\":[{\"type\":\"string\"},{\"$ref\":\"#/$defs/a\"}]}}}"),
                   "the $ref '#/$defs/a' leads back", "a guarded cycle, even unused");
    CHECK_CONTAINS(refused("{\"$defs\":{\"a\":{\"not\":{\"if\":{\"$ref\":\"#/$defs/a\"}}}}}"), "leads back",
                   "through not and if");
    CHECK_CONTAINS(refused("{\"dependentSchemas\":{\"k\":{\"$ref\":\"#\"}}}"), "leads back", "through dependentSchemas");
    /* Descending into the value breaks the cycle. */
    valid("{\"$defs\":{\"a\":{\"anyOf\":[{\"type\":\"string\"},{\"items\":{\"$ref\":\"#/$defs/a\"}}]}},"
          "\"$ref\":\"#/$defs/a\"}", "[[\"x\"],\"y\"]");
    /* A long chain without a cycle compiles (no recursion on the C stack) and is
     * stopped by the depth bound when validating. */
    json_t *doc = json_object(), *defs = json_object();
    for (int i = 0; i < 20000; i++) {
        char name[32], ref[48];
        snprintf(name, sizeof name, "a%d", i);
        snprintf(ref, sizeof ref, "#/$defs/a%d", i + 1);
        json_object_set_new(defs, name, i + 1 < 20000 ? json_pack("{s:s}", "$ref", ref) : json_pack("{s:s}", "type", "string"));
    }
    json_object_set_new(doc, "$defs", defs);
    json_object_set_new(doc, "$ref", json_string("#/$defs/a0"));
    capsa__schema *s = NULL;
    char err[256];
    CHECK_INT(capsa__schema_compile(NULL, doc, 0, &s, err, sizeof err), CAPSA_OK, "a chain of 20000 references");
    json_t *v = json_string("x");
    CHECK_INT(capsa__schema_validate(s, v, msgbuf, sizeof msgbuf), CAPSA_ETOOBIG, "is too deep to follow");
    CHECK_STR(msgbuf, "/: the schema goes deeper than 256 levels here", "and says so");
    json_decref(v);
    capsa__schema_free(s);
    /* A cycle at the end of a long chain is found too. */
    json_object_set_new(defs, "a19999", json_pack("{s:s}", "$ref", "#/$defs/a0"));
    s = (capsa__schema *)1;
    CHECK_INT(capsa__schema_compile(NULL, doc, 0, &s, err, sizeof err), CAPSA_EINVAL, "a cycle of 20000 references");
    CHECK_CONTAINS(err, "leads back to itself", "is refused");
    CHECK(s == NULL, "no schema is returned");
    json_decref(doc);
}

TEST(bad_schemas)
{
    CHECK_STR(refused("5"), "#: a schema must be an object or a boolean, got number", "a number");
    CHECK_STR(refused("{\"type\":\"strin\"}"), "#/type: unknown type 'strin'", "a misspelt type");
    CHECK_STR(refused("{\"properties\":{\"q\":{\"type\":\"strin\"}}}"), "#/properties/q/type: unknown type 'strin'",
              "its place");
    CHECK_CONTAINS(refused("{\"type\":[]}"), "#/type: type must be a type name or a non-empty array", "no type");
    CHECK_STR(refused("{\"type\":[\"string\",\"string\"]}"), "#/type/1: type 'string' is listed twice", "twice");
    CHECK_STR(refused("{\"type\":[\"string\",5]}"), "#/type/1: type must be a type name or a non-empty array of them",
              "a number among the types");
    CHECK_STR(refused("{\"minLength\":-1}"), "#/minLength: minLength must be a non-negative integer", "negative");
    CHECK_STR(refused("{\"maxItems\":1.5}"), "#/maxItems: maxItems must be a non-negative integer", "a fraction");
    CHECK_STR(refused("{\"minContains\":\"1\"}"), "#/minContains: minContains must be a non-negative integer", "a string");
    CHECK_STR(refused("{\"minimum\":\"5\"}"), "#/minimum: minimum must be a number, got string", "minimum");
    CHECK_STR(refused("{\"exclusiveMaximum\":true}"), "#/exclusiveMaximum: exclusiveMaximum must be a number, got boolean",
              "the draft-04 boolean form");
    CHECK_STR(refused("{\"multipleOf\":0}"), "#/multipleOf: multipleOf must be greater than 0", "zero");
    CHECK_STR(refused("{\"multipleOf\":-0.5}"), "#/multipleOf: multipleOf must be greater than 0", "negative");
    CHECK_STR(refused("{\"enum\":{}}"), "#/enum: enum must be an array", "enum");
    CHECK_STR(refused("{\"required\":\"a\"}"), "#/required: required must be an array of strings", "required");
    CHECK_STR(refused("{\"required\":[\"a\",1]}"), "#/required/1: required must be an array of strings", "its member");
    CHECK_STR(refused("{\"dependentRequired\":{\"a\":[1]}}"),
              "#/dependentRequired/a/0: a dependentRequired entry must be an array of strings", "dependentRequired");
    CHECK_STR(refused("{\"properties\":{\"a\":5}}"), "#/properties/a: a schema must be an object or a boolean, got number",
              "a property");
    CHECK_STR(refused("{\"properties\":[]}"), "#/properties: properties must be an object of schemas", "properties");
    CHECK_STR(refused("{\"allOf\":[]}"), "#/allOf: allOf must be a non-empty array of schemas", "allOf");
    CHECK_STR(refused("{\"anyOf\":[{},null]}"), "#/anyOf/1: a schema must be an object or a boolean, got null", "anyOf");
    CHECK_STR(refused("{\"not\":[]}"), "#/not: a schema must be an object or a boolean, got array", "not");
    CHECK_STR(refused("{\"uniqueItems\":1}"), "#/uniqueItems: uniqueItems must be a boolean", "uniqueItems");
    CHECK_STR(refused("{\"pattern\":5}"), "#/pattern: pattern must be a string", "pattern");
    CHECK_CONTAINS(refused("{\"items\":[{}]}"), "#/items: items must be a schema: in 2020-12 an array of schemas is prefixItems",
                   "the draft-07 tuple in 2020-12");
    CHECK_CONTAINS(refused("{\"additionalItems\":false}"), "#/additionalItems: additionalItems is draft-07",
                   "additionalItems in 2020-12");
    CHECK_CONTAINS(refused("{\"dependencies\":{}}"), "#/dependencies: dependencies is draft-07", "dependencies");
    CHECK_STR(refused("{\"properties\":{\"a\":{\"unevaluatedProperties\":false}}}"),
              "#/properties/a/unevaluatedProperties: unevaluatedProperties is not supported by this validator",
              "unevaluatedProperties");
    CHECK_CONTAINS(refused("{\"unevaluatedItems\":false}"), "not supported", "unevaluatedItems");
    CHECK_CONTAINS(refused("{\"$dynamicRef\":\"#x\"}"), "$dynamicRef is not supported", "$dynamicRef");
    CHECK_CONTAINS(refused("{\"$dynamicAnchor\":\"x\"}"), "not supported", "$dynamicAnchor");
    CHECK_CONTAINS(refused("{\"$recursiveRef\":\"#\"}"), "not supported", "$recursiveRef");
    CHECK_STR(refused("{\"$schema\":\"http://json-schema.org/draft-04/schema#\"}"),
              "#/$schema: unsupported $schema 'http://json-schema.org/draft-04/schema#' (2020-12 and draft-07 are)",
              "draft-04");
    CHECK_CONTAINS(refused("{\"$id\":5}"), "$id must be a string", "$id");
    CHECK_CONTAINS(refused("{\"a\":1,\"a\":2}"), "duplicate object key", "a duplicate key");
    CHECK_CONTAINS(refused("{\"type\":"), "line 1 column", "not JSON");
    /* Nested too deep. */
    char deep[2000] = "";
    for (int i = 0; i < 200; i++)
        strcat(deep, "{\"not\":");
    strcat(deep, "{}");
    for (int i = 0; i < 200; i++)
        strcat(deep, "}");
    CHECK_STR(refused(deep), "#: the schema nests deeper than 128 levels", "200 levels");
    /* The error text is cut to its buffer. */
    capsa__schema *s = (capsa__schema *)1;
    char small[16];
    const char *t = "{\"properties\":{\"q\":{\"type\":\"strin\"}}}";
    CHECK_INT(capsa__schema_parse(NULL, t, strlen(t), 0, &s, small, sizeof small), CAPSA_EINVAL, "small buffer");
    CHECK_STR(small, "#/properties...", "cut with ...");
    CHECK_INT(capsa__schema_parse(NULL, t, strlen(t), 0, &s, NULL, 0), CAPSA_EINVAL, "no buffer");
    CHECK_INT(capsa__schema_compile(NULL, NULL, 0, &s, small, sizeof small), CAPSA_EINVAL, "no document");
    CHECK_INT(capsa__schema_compile(NULL, json_true(), 0, NULL, small, sizeof small), CAPSA_EINVAL, "no out");
}

TEST(annotations_unknown_and_strict)
{
    const char *notes = "{\"title\":\"t\",\"description\":\"d\",\"default\":1,\"examples\":[1],\"format\":\"email\","
                        "\"$comment\":\"c\",\"deprecated\":true,\"readOnly\":false,\"writeOnly\":false,"
                        "\"contentMediaType\":\"application/json\",\"contentEncoding\":\"base64\","
                        "\"contentSchema\":{\"type\":\"object\"},\"$schema\":\"https://json-schema.org/draft/2020-12/schema\"}";
    capsa__schema *s = compile_flags(notes, CAPSA__SCHEMA_STRICT);
    CHECK_INT(validate(s, "\"not an email\""), CAPSA_OK, "annotations assert nothing, format included");
    capsa__schema_free(s);
    valid("{\"requried\":[\"a\"],\"x-vendor\":{\"type\":\"bogus\"}}", "{}");
    CHECK_STR(refused_flags("{\"properties\":{\"a\":{\"requried\":[\"a\"]}}}", CAPSA__SCHEMA_STRICT),
              "#/properties/a/requried: unknown keyword 'requried'", "strict: a typo fails the compile");
}

TEST(draft7)
{
    const char *d7 = "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"items\":[{\"type\":\"string\"}],"
                     "\"additionalItems\":{\"type\":\"integer\"}}";
    valid(d7, "[\"a\",1,2]");
    invalid(d7, "[\"a\",1.5]", "/1: expected integer, got number");
    invalid(d7, "[1]", "/0: expected string, got number");
    /* $ref's siblings are ignored in draft-07, applied in 2020-12. */
    const char *ref = "{\"definitions\":{\"s\":{\"type\":\"string\"}},\"properties\":{\"x\":{\"$ref\":\"#/definitions/s\","
                      "\"maxLength\":1}}}";
    capsa__schema *s = compile_flags(ref, CAPSA__SCHEMA_DRAFT7);
    CHECK_INT(validate(s, "{\"x\":\"abc\"}"), CAPSA_OK, "draft-07: maxLength beside $ref is ignored");
    CHECK_INT(validate(s, "{\"x\":1}"), CAPSA_EINVAL, "the reference holds");
    capsa__schema_free(s);
    invalid(ref, "{\"x\":\"abc\"}", "/x: expected at most 1 character, got 3");
    const char *deps = "{\"$schema\":\"http://json-schema.org/draft-07/schema\",\"dependencies\":{\"a\":[\"b\"],"
                       "\"c\":{\"required\":[\"d\"]}}}";
    invalid(deps, "{\"a\":1}", "/: property 'b' is required when 'a' is present");
    invalid(deps, "{\"c\":1}", "/: missing required property 'd'");
    valid(deps, "{\"a\":1,\"b\":2,\"c\":3,\"d\":4}");
    invalid("{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"definitions\":{\"x\":{\"$id\":\"#it\","
            "\"type\":\"null\"}},\"$ref\":\"#it\"}", "1", "/: expected null, got number");
    CHECK_CONTAINS(refused("{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"definitions\":{\"x\":5}}"),
                   "#/definitions/x: a schema must be", "draft-07 definitions are schemas");
    /* $schema wins over the flag. */
    s = compile_flags("{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"prefixItems\":[{\"type\":\"null\"}]}",
                      CAPSA__SCHEMA_DRAFT7);
    CHECK_INT(validate(s, "[1]"), CAPSA_EINVAL, "2020-12 by its $schema");
    capsa__schema_free(s);
}

/* An array (or, with $ref recursion, a tree) nested depth levels deep. */
static json_t *nested(int depth)
{
    json_t *v = json_integer(1);
    for (int i = 0; i < depth; i++) {
        json_t *a = json_array();
        json_array_append_new(a, v);
        v = a;
    }
    return v;
}

TEST(deep_and_costly_values)
{
    json_t *deep = nested(10000);
    capsa__schema *s = compile("{\"items\":{\"$ref\":\"#\"}}");
    CHECK_INT(capsa__schema_validate(s, deep, msgbuf, sizeof msgbuf), CAPSA_ETOOBIG, "10000 levels are refused");
    CHECK_CONTAINS(msgbuf, "the schema goes deeper than 256 levels here", "with the bound");
    CHECK(strncmp(msgbuf, "/0/0/0/", 7) == 0, "at the place it was reached");
    capsa__schema_free(s);
    s = compile("{\"type\":\"array\",\"maxItems\":1}");
    CHECK_INT(capsa__schema_validate(s, deep, msgbuf, sizeof msgbuf), CAPSA_OK, "a shallow schema does not descend");
    capsa__schema_free(s);
    s = compile("{\"const\":[[1]]}");
    CHECK_INT(capsa__schema_validate(s, deep, msgbuf, sizeof msgbuf), CAPSA_EINVAL, "const against a deep value");
    capsa__schema_free(s);
    s = compile("{\"enum\":[[[[1]]], 2]}");
    json_t *three = nested(3);
    CHECK_INT(capsa__schema_validate(s, three, msgbuf, sizeof msgbuf), CAPSA_OK, "enum compares nested values");
    json_decref(three);
    capsa__schema_free(s);
    s = compile("{\"uniqueItems\":true}");
    json_t *pair = json_pack("[OO]", deep, deep);
    CHECK_INT(capsa__schema_validate(s, pair, msgbuf, sizeof msgbuf), CAPSA_ETOOBIG, "uniqueItems on deep items");
    CHECK_CONTAINS(msgbuf, "uniqueItems: an item nests deeper than 256 levels", "says so");
    json_decref(pair);
    capsa__schema_free(s);
    json_decref(deep);
    /* Two alternatives at every level of 40: 2^40 paths, stopped by the step bound. */
    s = compile("{\"$defs\":{\"t\":{\"anyOf\":[{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/t\"}},"
                "{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/t\"}}]}},\"$ref\":\"#/$defs/t\"}");
    json_t *forty = nested(40);
    CHECK_INT(capsa__schema_validate(s, forty, msgbuf, sizeof msgbuf), CAPSA_ETOOBIG, "exponential work is bounded");
    CHECK_CONTAINS(msgbuf, "checking this value takes more than 4194304 steps", "says so");
    CHECK_INT(capsa__schema_validate(s, forty, NULL, 0), CAPSA_ETOOBIG, "without a message too");
    json_decref(forty);
    capsa__schema_free(s);
}

TEST(messages)
{
    capsa__schema *s = compile("{\"properties\":{\"averyveryveryverylongname\":{\"type\":\"string\"}}}");
    json_t *v = json_pack("{s:i}", "averyveryveryverylongname", 1);
    char small[20];
    CHECK_INT(capsa__schema_validate(s, v, small, sizeof small), CAPSA_EINVAL, "a small buffer");
    CHECK_STR(small, "/averyveryveryve...", "the message is cut with ...");
    CHECK_INT(capsa__schema_validate(s, v, NULL, 0), CAPSA_EINVAL, "no buffer");
    char one[1] = { 'x' };
    CHECK_INT(capsa__schema_validate(s, v, one, sizeof one), CAPSA_EINVAL, "a buffer of one byte");
    CHECK_INT(one[0], 0, "holds the empty string");
    json_decref(v);
    v = json_pack("{s:s}", "averyveryveryverylongname", "ok");
    strcpy(msgbuf, "stale");
    CHECK_INT(capsa__schema_validate(s, v, msgbuf, sizeof msgbuf), CAPSA_OK, "valid");
    CHECK_STR(msgbuf, "", "a valid value leaves an empty message");
    json_decref(v);
    CHECK_INT(capsa__schema_validate(s, NULL, msgbuf, sizeof msgbuf), CAPSA_EINVAL, "no value");
    CHECK_INT(capsa__schema_validate(NULL, json_true(), msgbuf, sizeof msgbuf), CAPSA_EINVAL, "no schema");
    capsa__schema_free(s);
    capsa__schema_free(NULL);
    /* A cut in the middle of a multi-byte character backs up to its start. */
    s = compile("{\"required\":[\"\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\\u00e9\"]}");
    char cut[36];
    v = json_object();
    CHECK_INT(capsa__schema_validate(s, v, cut, sizeof cut), CAPSA_EINVAL, "missing");
    CHECK(strlen(cut) < sizeof cut && strcmp(cut + strlen(cut) - 3, "...") == 0, "cut with ...");
    size_t n = strlen(cut) - 3, lead = 0;
    for (size_t i = 0; i < n; i++)
        lead += ((unsigned char)cut[i] & 0xC0) == 0xC0;
    size_t cont = 0;
    for (size_t i = 0; i < n; i++)
        cont += ((unsigned char)cut[i] & 0xC0) == 0x80;
    CHECK_INT(cont, lead, "no character is cut in half");
    json_decref(v);
    capsa__schema_free(s);
}

TEST(schema_json)
{
    json_t *doc = json_pack("{s:s,s:{s:{s:s}}}", "type", "object", "properties", "q", "type", "string");
    capsa__schema *s = NULL;
    CHECK_INT(capsa__schema_compile(NULL, doc, 0, &s, msgbuf, sizeof msgbuf), CAPSA_OK, "compiles");
    const json_t *kept = capsa__schema_json(s);
    CHECK(kept != doc && json_equal((json_t *)kept, doc), "the schema keeps a copy of its document");
    json_object_set_new(json_object_get(json_object_get(doc, "properties"), "q"), "type", json_string("number"));
    json_t *v = json_pack("{s:s}", "q", "text");
    CHECK_INT(capsa__schema_validate(s, v, msgbuf, sizeof msgbuf), CAPSA_OK, "changing the caller's document changes nothing");
    json_decref(v);
    json_decref(doc);
    CHECK_STR(json_string_value(json_object_get(capsa__schema_json(s), "type")), "object", "the copy outlives it");
    capsa__schema_free(s);
}

typedef struct worker {
    const capsa__schema *s;
    int wrong;
} worker;

static void *work(void *ud)
{
    worker *w = ud;
    json_t *good = json_pack("{s:s,s:[i,i]}", "name", "abc_1", "ids", 1, 2);
    json_t *bad = json_pack("{s:s,s:[i,i]}", "name", "ABC", "ids", 1, 1);
    char m[CAPSA__SCHEMA_MSG_MAX];
    for (int i = 0; i < 2000; i++) {
        w->wrong += capsa__schema_validate(w->s, good, m, sizeof m) != CAPSA_OK;
        w->wrong += capsa__schema_validate(w->s, bad, m, sizeof m) != CAPSA_EINVAL ||
                    strcmp(m, "/name: does not match the pattern '^[a-z_0-9]+$'") != 0;
    }
    json_decref(good);
    json_decref(bad);
    return NULL;
}

TEST(threads)
{
    capsa__schema *s = compile("{\"properties\":{\"name\":{\"pattern\":\"^[a-z_0-9]+$\"},"
                               "\"ids\":{\"uniqueItems\":true}}}");
    worker w[4];
    pthread_t t[4];
    for (int i = 0; i < 4; i++) {
        w[i] = (worker){ s, 0 };
        pthread_create(&t[i], NULL, work, &w[i]);
    }
    int wrong = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        wrong += w[i].wrong;
    }
    CHECK_INT(wrong, 0, "four threads share one schema");
    capsa__schema_free(s);
}

TEST(allocation_failure)
{
    const char *text = "{\"$defs\":{\"a\":{\"$anchor\":\"A\",\"type\":\"string\",\"pattern\":\"^x\"}},"
                       "\"properties\":{\"p\":{\"$ref\":\"#A\"},\"q\":{\"$ref\":\"#/$defs/a\"},\"r\":{\"$ref\":\"#/x\"}},"
                       "\"x\":{\"items\":{\"enum\":[1,2]}},\"patternProperties\":{\"^z\":true},"
                       "\"dependentRequired\":{\"p\":[\"q\"]},\"allOf\":[{},{\"uniqueItems\":true}],"
                       "\"prefixItems\":[{},{}],\"propertyNames\":{\"maxLength\":9}}";
    int compiled = 0;
    long n;
    for (n = 0; n < 10000 && !compiled; n++) {
        test_fail_alloc f = { n, 0 };
        capsa_allocator a = { test_fail_realloc, test_fail_free, &f };
        capsa__schema *s = (capsa__schema *)1;
        char err[256];
        int rc = capsa__schema_parse(&a, text, strlen(text), 0, &s, err, sizeof err);
        if (rc == CAPSA_OK) {
            compiled = 1;
            capsa__schema_free(s);
        } else if (rc != CAPSA_ENOMEM || s != NULL || strcmp(err, "out of memory") != 0) {
            TEST_REPORT(0, "allocation %ld failing: expected CAPSA_ENOMEM, got %d: %s", n, rc, err);
            break;
        }
        if (f.live != 0) {
            TEST_REPORT(0, "allocation %ld failing: %ld blocks left", n, f.live);
            break;
        }
    }
    CHECK(compiled, "the schema compiles once allocations succeed");
    CHECK(n > 10, "after failing at each of its allocations");
    /* Validation allocates for uniqueItems and propertyNames only. */
    test_fail_alloc f = { -1, 0 };
    capsa_allocator a = { test_fail_realloc, test_fail_free, &f };
    capsa__schema *s = NULL;
    const char *u = "{\"uniqueItems\":true,\"items\":{\"type\":\"object\"}}";
    CHECK_INT(capsa__schema_parse(&a, u, strlen(u), 0, &s, msgbuf, sizeof msgbuf), CAPSA_OK, "compiles");
    json_t *v = json_pack("[{s:i},{s:i}]", "a", 1, "b", 2);
    f.countdown = 0;
    CHECK_INT(capsa__schema_validate(s, v, msgbuf, sizeof msgbuf), CAPSA_ENOMEM, "uniqueItems without memory");
    CHECK_STR(msgbuf, "/: out of memory checking uniqueItems", "says so");
    f.countdown = 1;
    CHECK_INT(capsa__schema_validate(s, v, msgbuf, sizeof msgbuf), CAPSA_ENOMEM, "the buffer's growth failing");
    f.countdown = -1;
    CHECK_INT(capsa__schema_validate(s, v, msgbuf, sizeof msgbuf), CAPSA_OK, "and with memory");
    json_decref(v);
    capsa__schema_free(s);
    CHECK_INT(f.live, 0, "nothing leaks");
}

int main(void)
{
    RUN(type);
    RUN(enum_and_const);
    RUN(numbers);
    RUN(strings);
    RUN(patterns);
    RUN(patterns_refused);
    RUN(arrays);
    RUN(objects);
    RUN(applicators);
    RUN(references);
    RUN(reference_cycles);
    RUN(bad_schemas);
    RUN(annotations_unknown_and_strict);
    RUN(draft7);
    RUN(deep_and_costly_values);
    RUN(messages);
    RUN(schema_json);
    RUN(threads);
    RUN(allocation_failure);
    return test_summary("schema");
}
