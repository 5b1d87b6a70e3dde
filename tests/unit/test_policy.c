/* The capability checker: method patterns, every constraint operator, types and
 * numbers, paths, budgets and their fall-through, the exact denial messages, the
 * policy file's errors (fail closed), the builder, and allocation failure. */
#include <jansson.h>
#include <stdint.h>
#include <time.h>

#include "../../src/json.h"
#include "../../src/policy.h"
#include "capsa.h"
#include "test.h"

/* Parses a policy that must load. */
static capsa__policy *load(const char *text)
{
    capsa__policy *p = NULL;
    char err[256];
    int rc = capsa__policy_parse(NULL, text, strlen(text), &p, err, sizeof err);
    TEST_REPORT(rc == CAPSA_OK, "policy should load: %s (%s)", err, text);
    return p;
}

/* Loads a policy that must be refused and returns its error message. */
static const char *load_error(const char *text)
{
    static char err[512];
    capsa__policy *p = (capsa__policy *)1;
    int rc = capsa__policy_parse(NULL, text, strlen(text), &p, err, sizeof err);
    TEST_REPORT(rc == CAPSA_EINVAL && p == NULL, "policy should be refused with CAPSA_EINVAL, got %d: %s",
                rc, text);
    return err;
}

/* Checks a call with args given as JSON text (NULL: no arguments), parsed as the
 * host parses a guest's. */
static capsa__decision decide(capsa__policy *p, const char *method, const char *args)
{
    capsa__decision d;
    json_error_t je;
    json_t *a = args ? capsa__json_load_strict(args, strlen(args), JSON_DECODE_ANY, &je) : NULL;
    if (args && !a && json_error_code(&je) != json_error_numeric_overflow)
        fprintf(stderr, "bad test arguments %s: %s\n", args, je.text);
    capsa__policy_check(p, method, a, &d);
    json_decref(a);
    return d;
}

static int allows(capsa__policy *p, const char *method, const char *args)
{
    return decide(p, method, args).allowed;
}

/* Whether the one constraint {"param": "x", "op": op, "value": value} holds for
 * the arguments args (value NULL: no value field). */
static int holds(const char *op, const char *value, const char *args)
{
    char text[1024];
    if (value)
        snprintf(text, sizeof text,
                 "{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":"
                 "[{\"param\":\"x\",\"op\":\"%s\",\"value\":%s}]}]}", op, value);
    else
        snprintf(text, sizeof text,
                 "{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":"
                 "[{\"param\":\"x\",\"op\":\"%s\"}]}]}", op);
    capsa__policy *p = load(text);
    int r = allows(p, "t", args);
    capsa__policy_free(p);
    return r;
}

/* Whether pattern matches method. */
static int matches(const char *pattern, const char *method)
{
    capsa__policy *p = NULL;
    char err[256];
    if (capsa__policy_new(NULL, &p) != CAPSA_OK ||
        capsa__policy_add(p, pattern, NULL, 0, err, sizeof err) != CAPSA_OK) {
        fprintf(stderr, "pattern %s refused: %s\n", pattern, err);
        capsa__policy_free(p);
        return -1;
    }
    int r = allows(p, method, "{}");
    capsa__policy_free(p);
    return r;
}

TEST(empty_policy_denies)
{
    capsa__policy *p = NULL;
    CHECK_INT(capsa__policy_new(NULL, &p), CAPSA_OK, "an empty policy is created");
    capsa__decision d = decide(p, "math/add", "{\"a\":1}");
    CHECK_INT(d.allowed, 0, "an empty policy denies");
    CHECK_INT(d.capability, -1, "no capability is named");
    CHECK_STR(d.message, "No capability authorizes 'math.add'. Granted: []", "denial message of an empty policy");
    CHECK_INT(capsa__policy_count(p), 0, "no capabilities");
    capsa__policy_free(p);
    capsa__policy_free(NULL);
    capsa__policy_check(NULL, "x", NULL, &d);
    CHECK_INT(d.allowed, 0, "no policy denies");
    CHECK_INT(capsa__policy_new(NULL, NULL), CAPSA_EINVAL, "no out pointer is misuse");
}

TEST(patterns)
{
    CHECK_INT(matches("stripe/charges/*", "stripe/charges/create"), 1, "* takes one segment");
    CHECK_INT(matches("stripe/charges/*", "stripe/charges"), 0, "* does not take zero segments");
    CHECK_INT(matches("stripe/charges/*", "stripe/charges/a/b"), 0, "* does not take two segments");
    CHECK_INT(matches("stripe/*/list", "stripe/customers/list"), 1, "* in the middle");
    CHECK_INT(matches("stripe/*/list", "stripe/customers/get"), 0, "the literal after * must match");
    CHECK_INT(matches("math/**", "math"), 1, "** takes zero segments");
    CHECK_INT(matches("math/**", "math/add"), 1, "** takes one segment");
    CHECK_INT(matches("math/**", "math/a/b/c"), 1, "** takes many segments");
    CHECK_INT(matches("math/**", "mathematics/add"), 0, "a literal segment is whole");
    CHECK_INT(matches("a/**/b", "a/b"), 1, "a/**/b with nothing between");
    CHECK_INT(matches("a/**/b", "a/x/y/b"), 1, "a/**/b with two between");
    CHECK_INT(matches("a/**/b", "a/x/y/c"), 0, "a/**/b needs the final b");
    CHECK_INT(matches("a/**/b/*", "a/b/x/b/y"), 1, "** backtracks to a later b");
    CHECK_INT(matches("**", "anything/at/all"), 1, "** alone matches every method");
    CHECK_INT(matches("*", "math.add"), 0, "* alone does not take two segments ('.' separates)");
    CHECK_INT(matches("*", "math/add"), 0, "* alone does not take two segments ('/' separates)");
    CHECK_INT(matches("*", "echo"), 1, "* takes a name of one segment");
    CHECK_INT(matches("**/*", "x"), 1, "**/* matches one segment");
    CHECK_INT(matches("*/**/*", "x"), 0, "*/**/* needs two segments");
    CHECK_INT(matches("math.add", "math.add"), 1, "a dotted name matches itself");
    CHECK_INT(matches("math/*", "math.add"), 1, "'/' in a pattern is '.' in a name");
    CHECK_INT(matches("math.*", "math/add"), 1, "'.' in a pattern is '/' in a name");
    CHECK_INT(matches("math/add", "math.add"), 1, "math/add is math.add");
    CHECK_INT(matches("math.add", "math/add"), 1, "and the other way round");
    CHECK_INT(matches("github.*", "github.search_issues"), 1, "the README's github.*");
    CHECK_INT(matches("github/*", "github.search_issues"), 1, "the README's github/*");
    CHECK_INT(matches("github.*", "github.issues.search"), 0, "* is one segment after '.'");
    CHECK_INT(matches("github/*", "github/issues.search"), 0, "* is one segment after '/'");
    CHECK_INT(matches("github.**", "github.issues.search"), 1, "** is any number after '.'");
    CHECK_INT(matches("github/**", "github.issues/search"), 1, "** is any number after '/'");
    CHECK_INT(matches("**.search", "github/issues.search"), 1, "** before either separator");
    CHECK_INT(matches("*.search", "github/search"), 1, "* before '.' matches before '/'");
    CHECK_INT(matches("stripe.charges/*", "stripe.charges/create"), 1, "a pattern mixing separators");
    CHECK_INT(matches("stripe.charges/*", "stripeXcharges/create"), 0, "'.' is a separator, not a wildcard");
    CHECK_INT(matches("a.b", "a_b"), 0, "'_' is not a separator");
    CHECK_INT(matches("a.b", "a:b"), 0, "':' is not a separator");
    CHECK_INT(matches("**", "a./b"), 0, "an empty segment between '.' and '/' matches nothing");
    CHECK_INT(matches("**", ".a"), 0, "a leading '.' in a method matches nothing");
    CHECK_INT(matches("Math/add", "math/add"), 0, "segments are case-sensitive");
    CHECK_INT(matches("**", ""), 0, "an empty method matches nothing");
    CHECK_INT(matches("**", "a//b"), 0, "a method with an empty segment matches nothing");
    CHECK_INT(matches("**", "/a"), 0, "a leading '/' in a method matches nothing");
    CHECK_INT(matches("**", "a/"), 0, "a trailing '/' in a method matches nothing");
    CHECK_INT(matches("a/*", "a/*"), 1, "a method named '*' is an ordinary segment");

    /* Many "**" against a long method must not take exponential time. */
    char pat[4096] = "", method[8192] = "";
    for (int i = 0; i < 200; i++)
        strcat(pat, "**/");
    strcat(pat, "z");
    for (int i = 0; i < 2000; i++)
        strcat(method, "a/");
    strcat(method, "y");
    clock_t t0 = clock();
    CHECK_INT(matches(pat, method), 0, "200 ** against 2001 segments do not match");
    CHECK(clock() - t0 < CLOCKS_PER_SEC * 2, "and the match is quick");
}

TEST(op_numbers)
{
    CHECK(holds("<", "10", "{\"x\":9}"), "9 < 10");
    CHECK(!holds("<", "10", "{\"x\":10}"), "not 10 < 10");
    CHECK(holds("<=", "10", "{\"x\":10}"), "10 <= 10");
    CHECK(!holds("<=", "10", "{\"x\":10.5}"), "not 10.5 <= 10");
    CHECK(holds(">", "10", "{\"x\":10.000001}"), "10.000001 > 10");
    CHECK(!holds(">", "10", "{\"x\":10}"), "not 10 > 10");
    CHECK(holds(">=", "10", "{\"x\":10.0}"), "10.0 >= 10");
    CHECK(!holds(">=", "10", "{\"x\":-3}"), "not -3 >= 10");
    CHECK(holds("<", "0.5", "{\"x\":-1e308}"), "-1e308 < 0.5");
    CHECK(holds("<=", "-2.5", "{\"x\":-3}"), "-3 <= -2.5");
    CHECK(!holds("<", "10", "{\"x\":\"5\"}"), "a string is never compared with a number");
    CHECK(!holds("<", "10", "{\"x\":[5]}"), "an array is not a number");
    CHECK(!holds(">", "0", "{\"x\":true}"), "true is not a number");
    CHECK(!holds("<", "10", "{\"x\":null}"), "null fails <");
    CHECK(!holds("<", "10", "{}"), "missing fails <");
}

TEST(op_equality)
{
    CHECK(holds("==", "\"usd\"", "{\"x\":\"usd\"}"), "equal strings");
    CHECK(!holds("==", "\"usd\"", "{\"x\":\"USD\"}"), "strings compare byte by byte");
    CHECK(holds("==", "5", "{\"x\":5.0}"), "integer 5 == real 5.0");
    CHECK(holds("==", "5.0", "{\"x\":5}"), "real 5.0 == integer 5");
    CHECK(holds("==", "0", "{\"x\":-0.0}"), "-0.0 == 0");
    CHECK(!holds("==", "5", "{\"x\":\"5\"}"), "5 is not \"5\"");
    CHECK(holds("==", "{\"a\":[1,{\"b\":2}]}", "{\"x\":{\"a\":[1.0,{\"b\":2}]}}"), "objects compare structurally, numbers by value");
    CHECK(!holds("==", "{\"a\":1}", "{\"x\":{\"a\":1,\"b\":2}}"), "an extra key makes objects differ");
    CHECK(!holds("==", "{\"a\":1,\"c\":2}", "{\"x\":{\"a\":1,\"b\":2}}"), "a different key makes objects differ");
    CHECK(holds("==", "{\"a\":1,\"b\":2}", "{\"x\":{\"b\":2,\"a\":1}}"), "key order does not matter");
    CHECK(holds("==", "[1,[2,null]]", "{\"x\":[1,[2,null]]}"), "arrays compare structurally, nulls inside too");
    CHECK(!holds("==", "[1,2]", "{\"x\":[2,1]}"), "array order matters");
    CHECK(!holds("==", "[1,2]", "{\"x\":[1,2,3]}"), "array length matters");
    CHECK(holds("==", "false", "{\"x\":false}"), "false == false");
    CHECK(!holds("==", "false", "{\"x\":true}"), "true is not false");
    CHECK(holds("!=", "\"usd\"", "{\"x\":\"eur\"}"), "different strings are !=");
    CHECK(!holds("!=", "\"usd\"", "{\"x\":\"usd\"}"), "equal strings are not !=");
    CHECK(!holds("!=", "5", "{\"x\":5.0}"), "5.0 is not != 5");
    CHECK(holds("!=", "5", "{\"x\":6}"), "6 != 5");
    CHECK(!holds("!=", "5", "{\"x\":\"6\"}"), "!= with different types is not satisfied");
    CHECK(!holds("!=", "0", "{\"x\":false}"), "!= between a bool and a number is not satisfied");
    CHECK(!holds("!=", "5", "{}"), "!= with a missing parameter fails");
    CHECK(!holds("!=", "5", "{\"x\":null}"), "!= with a null parameter fails");
    CHECK(holds("!=", "[1]", "{\"x\":[2]}"), "different arrays are !=");
}

TEST(bools_are_not_numbers)
{
    CHECK(!holds("==", "1", "{\"x\":true}"), "true is not 1");
    CHECK(!holds("==", "true", "{\"x\":1}"), "1 is not true");
    CHECK(!holds("==", "0", "{\"x\":false}"), "false is not 0");
    CHECK(!holds("in", "[1,0]", "{\"x\":true}"), "true is not in [1, 0]");
    CHECK(holds("in", "[1,true]", "{\"x\":true}"), "true is in [1, true]");
    CHECK(!holds("<=", "1", "{\"x\":false}"), "false is not <= 1");
    CHECK(!holds("contains", "1", "{\"x\":[true]}"), "[true] does not contain 1");
}

TEST(op_in)
{
    CHECK(holds("in", "[\"usd\",\"eur\"]", "{\"x\":\"eur\"}"), "eur in [usd, eur]");
    CHECK(!holds("in", "[\"usd\",\"eur\"]", "{\"x\":\"gbp\"}"), "gbp not in [usd, eur]");
    CHECK(holds("in", "[1,2,3]", "{\"x\":2.0}"), "2.0 in [1, 2, 3]");
    CHECK(!holds("in", "[\"1\",2]", "{\"x\":1}"), "1 is not in [\"1\", 2]: type-mismatched members never match");
    CHECK(holds("in", "[[1],{\"a\":1}]", "{\"x\":{\"a\":1}}"), "in compares objects structurally");
    CHECK(!holds("in", "[1]", "{}"), "missing is in nothing");
    CHECK(holds("not_in", "[\"usd\",\"eur\"]", "{\"x\":\"gbp\"}"), "gbp not_in [usd, eur]");
    CHECK(!holds("not_in", "[\"usd\",\"eur\"]", "{\"x\":\"usd\"}"), "usd is in [usd, eur]");
    CHECK(!holds("not_in", "[\"usd\"]", "{}"), "not_in with a missing parameter fails");
    CHECK(!holds("not_in", "[\"usd\"]", "{\"x\":null}"), "not_in with a null parameter fails");
    CHECK(!holds("not_in", "[\"usd\",\"eur\"]", "{\"x\":5}"), "not_in with no member of the parameter's type fails");
    CHECK(!holds("not_in", "[\"usd\"]", "{\"x\":[\"usd\"]}"), "an array does not slip past a list of strings");
    CHECK(holds("not_in", "[\"usd\",7]", "{\"x\":5}"), "not_in compares with the members of the same type");
    CHECK(!holds("not_in", "[\"usd\",5]", "{\"x\":5.0}"), "5.0 is in [usd, 5]");
}

TEST(op_strings)
{
    CHECK(holds("starts_with", "\"sk_\"", "{\"x\":\"sk_test\"}"), "sk_test starts with sk_");
    CHECK(!holds("starts_with", "\"sk_\"", "{\"x\":\"pk_test\"}"), "pk_test does not start with sk_");
    CHECK(!holds("starts_with", "\"sk_\"", "{\"x\":\"sk\"}"), "a shorter string does not start with a longer one");
    CHECK(holds("starts_with", "\"\"", "{\"x\":\"abc\"}"), "every string starts with \"\"");
    CHECK(!holds("starts_with", "\"1\"", "{\"x\":12}"), "starts_with on a number fails");
    CHECK(!holds("starts_with", "\"a\"", "{\"x\":[\"a\"]}"), "starts_with on an array fails");
    CHECK(holds("ends_with", "\"@example.com\"", "{\"x\":\"bob@example.com\"}"), "ends_with a domain");
    CHECK(!holds("ends_with", "\"@example.com\"", "{\"x\":\"bob@example.com.evil\"}"), "the suffix must be at the end");
    CHECK(!holds("ends_with", "\"m\"", "{}"), "ends_with a missing parameter fails");
    CHECK(holds("starts_with", "\"é\"", "{\"x\":\"été\"}"), "starts_with on UTF-8 text");
    CHECK(holds("contains", "\"needle\"", "{\"x\":\"haystack with a needle in it\"}"), "substring");
    CHECK(!holds("contains", "\"needle\"", "{\"x\":\"haystack\"}"), "no substring");
    CHECK(holds("contains", "\"\"", "{\"x\":\"\"}"), "\"\" contains \"\"");
    CHECK(holds("contains", "2", "{\"x\":[1,2,3]}"), "an array contains a member");
    CHECK(holds("contains", "2", "{\"x\":[1,2.0,3]}"), "an array member is compared by value");
    CHECK(!holds("contains", "4", "{\"x\":[1,2,3]}"), "an array without the member");
    CHECK(holds("contains", "{\"id\":1}", "{\"x\":[{\"id\":2},{\"id\":1}]}"), "an array contains an object");
    CHECK(!holds("contains", "\"2\"", "{\"x\":[1,2,3]}"), "\"2\" is not a member of [1, 2, 3]");
    CHECK(!holds("contains", "1", "{\"x\":\"a1b\"}"), "a number is not a substring");
    CHECK(!holds("contains", "\"a\"", "{\"x\":{\"a\":1}}"), "contains on an object fails");
    CHECK(!holds("contains", "\"a\"", "{\"x\":null}"), "contains on null fails");
}

TEST(exists_and_null)
{
    CHECK(holds("exists", NULL, "{\"x\":0}"), "0 exists");
    CHECK(holds("exists", NULL, "{\"x\":false}"), "false exists");
    CHECK(holds("exists", NULL, "{\"x\":\"\"}"), "\"\" exists");
    CHECK(holds("exists", NULL, "{\"x\":[]}"), "[] exists");
    CHECK(!holds("exists", NULL, "{}"), "a missing parameter does not exist");
    CHECK(!holds("exists", NULL, "{\"x\":null}"), "null does not exist");
    CHECK(holds("not_exists", NULL, "{}"), "missing satisfies not_exists");
    CHECK(holds("not_exists", NULL, "{\"x\":null}"), "null satisfies not_exists");
    CHECK(!holds("not_exists", NULL, "{\"x\":0}"), "0 fails not_exists");
    CHECK(holds("not_exists", NULL, NULL), "no arguments at all: not_exists holds");
    CHECK(!holds("exists", NULL, NULL), "no arguments at all: exists fails");
    CHECK(!holds("==", "1", "[1]"), "arguments that are not an object have no key x");
}

TEST(paths)
{
    capsa__policy *p = load(
        "{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":["
        "{\"param\":\"body/user/email\",\"op\":\"ends_with\",\"value\":\"@corp.com\"},"
        "{\"param\":\"items/0/id\",\"op\":\"==\",\"value\":7},"
        "{\"param\":\"items/1\",\"op\":\"not_exists\"}]}]}");
    CHECK(allows(p, "t", "{\"body\":{\"user\":{\"email\":\"a@corp.com\"}},\"items\":[{\"id\":7}]}"),
          "nested object path and array index");
    CHECK(!allows(p, "t", "{\"body\":{\"user\":{\"email\":\"a@corp.com\"}},\"items\":[{\"id\":7},1]}"),
          "items/1 exists: not_exists fails");
    CHECK(!allows(p, "t", "{\"body\":{\"user\":{\"email\":\"a@corp.com\"}},\"items\":[{\"id\":8}]}"),
          "items/0/id differs");
    CHECK(!allows(p, "t", "{\"body\":{\"user\":\"a@corp.com\"},\"items\":[{\"id\":7}]}"),
          "a path through a string is missing");
    CHECK(allows(p, "t", "{\"body\":{\"user\":{\"email\":\"a@corp.com\"}},\"items\":{\"0\":{\"id\":7}}}"),
          "in an object, \"0\" is an ordinary key");
    capsa__decision d = decide(p, "t", "{\"body\":{},\"items\":[{\"id\":7}]}");
    CHECK_STR(d.message, "'t' matched 't' but failed: body/user/email ends_with \"@corp.com\" (got missing)",
              "a missing nested parameter is reported as missing");
    capsa__policy_free(p);

    CHECK(!holds("==", "1", "{\"x\":[1]}"), "x is the array, not its member");
    p = load("{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":[{\"param\":\"a/01\",\"op\":\"exists\"}]}]}");
    CHECK(!allows(p, "t", "{\"a\":[0,1]}"), "an index with a leading zero is not an index");
    CHECK(allows(p, "t", "{\"a\":{\"01\":1}}"), "but \"01\" is a key of an object");
    capsa__policy_free(p);
    p = load("{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":[{\"param\":\"a/99999999999999999999999\",\"op\":\"exists\"}]}]}");
    CHECK(!allows(p, "t", "{\"a\":[0,1]}"), "an index past size_t is missing, without overflow");
    capsa__policy_free(p);
    p = load("{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":[{\"param\":\"a/-1\",\"op\":\"exists\"}]}]}");
    CHECK(!allows(p, "t", "{\"a\":[0,1]}"), "a negative index is missing");
    capsa__policy_free(p);
    p = load("{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":[{\"param\":\"a/2\",\"op\":\"exists\"}]}]}");
    CHECK(!allows(p, "t", "{\"a\":[0,1]}"), "an index past the end is missing");
    CHECK(allows(p, "t", "{\"a\":[0,1,2]}"), "the last index");
    capsa__policy_free(p);
    p = load("{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":[{\"param\":\"a.b\",\"op\":\"==\",\"value\":1}]}]}");
    CHECK(allows(p, "t", "{\"a.b\":1}"), "'.' is part of a key, not a separator");
    CHECK(!allows(p, "t", "{\"a\":{\"b\":1}}"), "a.b does not walk into a");
    capsa__policy_free(p);
}

TEST(proto_keys)
{
    capsa__policy *p = load(
        "{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":["
        "{\"param\":\"__proto__/admin\",\"op\":\"==\",\"value\":true},"
        "{\"param\":\"constructor\",\"op\":\"not_exists\"}]}]}");
    CHECK(allows(p, "t", "{\"__proto__\":{\"admin\":true}}"), "__proto__ is an ordinary key");
    CHECK(!allows(p, "t", "{\"__proto__\":{\"admin\":false}}"), "and its members are checked");
    CHECK(!allows(p, "t", "{}"), "a missing __proto__ is missing");
    CHECK(!allows(p, "t", "{\"__proto__\":{\"admin\":true},\"constructor\":1}"), "constructor is an ordinary key too");
    capsa__policy_free(p);
    CHECK(holds("==", "{\"__proto__\":1}", "{\"x\":{\"__proto__\":1}}"), "__proto__ inside a compared object");
}

TEST(huge_numbers)
{
    CHECK(holds("==", "1e308", "{\"x\":1e308}"), "1e308 == 1e308");
    CHECK(holds("<", "1e308", "{\"x\":9223372036854775807}"), "INT64_MAX < 1e308");
    CHECK(holds(">", "-1e308", "{\"x\":-9223372036854775808}"), "INT64_MIN > -1e308");
    CHECK(!holds("==", "9007199254740992.0", "{\"x\":9007199254740993}"),
          "integer 2^53+1 is not the real 2^53");
    CHECK(holds(">", "9007199254740992.0", "{\"x\":9007199254740993}"), "integer 2^53+1 > real 2^53");
    CHECK(holds("<", "9007199254740993", "{\"x\":9007199254740992.0}"), "real 2^53 < integer 2^53+1");
    CHECK(holds("==", "9007199254740992.0", "{\"x\":9007199254740992}"), "integer 2^53 == real 2^53");
    CHECK(!holds("==", "9007199254740993", "{\"x\":9007199254740992}"), "integers compare exactly");
    CHECK(holds("<", "9.223372036854776e18", "{\"x\":9223372036854775807}"),
          "INT64_MAX < the real 2^63 (written as its shortest form)");
    CHECK(holds(">", "-9.223372036854776e18", "{\"x\":-9223372036854775808}"),
          "INT64_MIN > the shortest form of the real -2^63, which is 9223372036854776000");
    CHECK(holds("<", "5.5", "{\"x\":5}"), "5 < 5.5");
    CHECK(holds(">", "-5.5", "{\"x\":-5}"), "-5 > -5.5");
    CHECK(holds("<", "-4.5", "{\"x\":-5}"), "-5 < -4.5");
    CHECK(holds(">", "5", "{\"x\":5.000000000000001}"), "5.000000000000001 > 5");
    CHECK(holds("<", "1e-300", "{\"x\":0}"), "0 < 1e-300");
    CHECK_CONTAINS(load_error("{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":"
                              "[{\"param\":\"x\",\"op\":\"<\",\"value\":1e400}]}]}"),
                   "real number overflow", "1e400 is refused at load time");
    CHECK_CONTAINS(load_error("{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":"
                              "[{\"param\":\"x\",\"op\":\"<\",\"value\":99999999999999999999}]}]}"),
                   "too big integer", "an integer beyond int64 is refused at load time");
}

/* The text of a parse refusal of args (as the host parses a guest's), or NULL
 * when they parse. */
static const char *parse_refusal(const char *args)
{
    static json_error_t je;
    json_t *a = capsa__json_load_strict(args, strlen(args), JSON_DECODE_ANY, &je);
    if (a) {
        json_decref(a);
        return NULL;
    }
    TEST_REPORT(json_error_code(&je) == json_error_numeric_overflow,
                "%s is refused as a number the host cannot hold, not as %d: %s", args,
                (int)json_error_code(&je), je.text);
    return je.text;
}

/* Numbers compare as the decimals their text writes, and a number whose value the
 * host would read as another one is refused, in the arguments and in a policy:
 * what the policy checked is what the tool gets. */
TEST(exact_numbers)
{
    /* The case: 10.0000000000000001 reads as the double 10. */
    CHECK_CONTAINS(parse_refusal("{\"a\":10.0000000000000001}"),
                   "the number 10.0000000000000001 would read as 10",
                   "a real more precise than a double is refused, saying what it would be");
    CHECK(!holds("<=", "10", "{\"x\":10.0000000000000001}"), "so it cannot pass x <= 10");
    CHECK_CONTAINS(load_error("{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":"
                              "[{\"param\":\"x\",\"op\":\"<=\",\"value\":10.0000000000000001}]}]}"),
                   "would read as 10", "nor be a policy's bound");
    CHECK_CONTAINS(parse_refusal("{\"a\":0.1000000000000000055511151231257827021181583404541015625}"),
                   "would read as 0.1",
                   "the exact value of the double 0.1 is not its shortest form 0.1: refused");
    CHECK(parse_refusal("{\"a\":0.1,\"b\":19.99,\"c\":-0.000001,\"d\":1.7976931348623157e308,"
                        "\"e\":5e-324,\"f\":0.30000000000000004,\"g\":1e21,\"h\":123.456e-7}") == NULL,
          "the shortest forms (what JSON.stringify writes) are accepted");
    CHECK(holds("<=", "19.99", "{\"x\":19.99}") && !holds("<", "19.99", "{\"x\":19.99}"),
          "19.99 <= 19.99, not <");
    CHECK(holds("<", "0.3", "{\"x\":0.1}") && holds("<", "0.30000000000000004", "{\"x\":0.3}"),
          "0.1 < 0.3 < 0.30000000000000004");

    /* Integers beyond 2^53: 64-bit integers are exact; reals are their shortest form. */
    CHECK(holds(">", "9007199254740992", "{\"x\":9007199254740993}"), "2^53+1 > 2^53 as integers");
    CHECK_CONTAINS(parse_refusal("{\"x\":9007199254740993.0}"), "would read as 9007199254740992",
                   "the real 2^53+1 is refused: a double holds 2^53");
    CHECK(holds("<", "1.152921504606847e18", "{\"x\":1152921504606846980}"),
          "an integer compares with a real's decimal (1152921504606847000), not with the "
          "double it reads as (2^60 = 1152921504606846976)");
    CHECK(!holds(">=", "1.152921504606847e18", "{\"x\":1152921504606846980}"),
          "so 1152921504606846980 >= 1.152921504606847e18 fails");
    CHECK(holds("==", "1152921504606847000", "{\"x\":1.152921504606847e18}"),
          "the real 1.152921504606847e18 equals the integer it writes");
    CHECK(holds("==", "9223372036854775807", "{\"x\":9223372036854775807}"), "INT64_MAX == INT64_MAX");
    CHECK_CONTAINS(parse_refusal("{\"x\":9223372036854775808}"), "too big integer",
                   "2^63 as an integer is beyond 64 bits: refused");
    CHECK_CONTAINS(parse_refusal("{\"x\":9223372036854775808.0}"), "would read as 9223372036854776000",
                   "2^63 as a real is refused unless written as its shortest form");
    CHECK_CONTAINS(parse_refusal("{\"x\":-123456789012345678901234567890}"), "too big",
                   "a huge negative integer is refused");

    /* Exponents. */
    CHECK(holds("==", "100", "{\"x\":1e2}") && holds("==", "1E+2", "{\"x\":100.00}") &&
              holds("==", "0.5e1", "{\"x\":5}") && holds("==", "50e-1", "{\"x\":5.0}"),
          "1e2 == 100 == 1E+2 == 100.00, 0.5e1 == 5 == 50e-1");
    CHECK(holds(">", "1e-7", "{\"x\":1.5e-7}") && holds("<", "1e300", "{\"x\":9.99e299}"),
          "small and large exponents compare by value");
    CHECK_CONTAINS(parse_refusal("{\"x\":1e-400}"), "would read as 0",
                   "1e-400 reads as 0: refused, so it cannot pass x <= 0");
    CHECK(!holds("<=", "0", "{\"x\":1e-400}"), "and does not");
    CHECK_CONTAINS(parse_refusal("{\"x\":1e-99999999999999999999999}"), "would read as 0",
                   "an exponent beyond any integer is read without overflow");
    CHECK(parse_refusal("{\"x\":0e99999999999999999999999}") == NULL,
          "zero with any exponent is zero");
    CHECK_CONTAINS(load_error("{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":"
                              "[{\"param\":\"x\",\"op\":\">\",\"value\":1e-400}]}]}"),
                   "would read as 0", "nor can 1e-400 be a policy's bound");

    /* Negative zero is zero. */
    CHECK(holds(">=", "0", "{\"x\":-0.0}") && !holds("<", "0", "{\"x\":-0.0}") &&
              holds("==", "0", "{\"x\":-0.0}"),
          "-0.0 >= 0, not < 0, == 0");
    CHECK(holds("==", "-0.0", "{\"x\":0}") && holds("==", "-0", "{\"x\":0.0}") &&
              holds("in", "[-0.0]", "{\"x\":0}"),
          "0 == -0.0 == -0 in every direction, also in 'in'");
    CHECK(holds("<", "0", "{\"x\":-5e-324}") && holds(">", "-0.0", "{\"x\":5e-324}"),
          "the smallest reals either side of zero are not zero");

    /* Long texts: many digits or zeros, read without converting them. */
    char big[12100], zeros[12100], tiny[12100];
    memcpy(big, "{\"x\":1", 6);
    memset(big + 6, '0', 12000);
    memcpy(big + 12006, ".5}", 4);
    CHECK_CONTAINS(parse_refusal(big), "real number overflow",
                   "a 12000-digit number is refused as beyond a double");
    memcpy(zeros, "{\"x\":0.", 7);
    memset(zeros + 7, '0', 12000);
    memcpy(zeros + 12007, "}", 2);
    CHECK(parse_refusal(zeros) == NULL, "12000 zeros after the point are zero");
    memcpy(tiny, "{\"x\":0.", 7);
    memset(tiny + 7, '0', 12000);
    memcpy(tiny + 12007, "1}", 3);
    CHECK_CONTAINS(parse_refusal(tiny), "would read as 0", "1e-12001 reads as 0: refused");
    CHECK_CONTAINS(parse_refusal("{\"x\":1.00000000000000000000000000000000000000000000001}"),
                   "the number 1.00000000000000000000000000000000000000...",
                   "the message cuts a long number");
    CHECK(parse_refusal("{\"s\":\"10.0000000000000001\",\"t\":\"1e-400\"}") == NULL,
          "numbers inside strings are text, not numbers");
    CHECK(holds("==", "\"10.0000000000000001\"", "{\"x\":\"10.0000000000000001\"}"),
          "and compare as strings");
    CHECK_CONTAINS(parse_refusal("{\"a\":[1,\n{\"b\":[2.5,\n 3.00000000000000001]}]}"),
                   "would read as 3", "a number deep inside is found");
    json_error_t je;
    const char *deep = "{\"a\":[1,\n{\"b\":[2.5,\n 3.00000000000000001]}]}";
    json_t *none = capsa__json_load_strict(deep, strlen(deep), 0, &je);
    CHECK(none == NULL && je.line == 3 && je.column == 2, "the refusal names the number's line and column");
    json_decref(none);

    /* What a denial shows is the decimal the policy compared. */
    capsa__policy *p = load("{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":"
                            "[{\"param\":\"x\",\"op\":\"<\",\"value\":0.3}]}]}");
    CHECK_STR(decide(p, "t", "{\"x\":0.30000000000000004}").message,
              "'t' matched 't' but failed: x < 0.3 (got 0.30000000000000004)",
              "a denial writes both numbers as their shortest forms");
    capsa__policy_free(p);
}

/* Parameter paths are JSON Pointers: '/' separates keys, and a key holding '/' or
 * '~' is written with "~1" and "~0", so every path names one place. */
TEST(slash_keys)
{
    const char *args = "{\"b\":{\"c\":1},\"b/c\":2}";
    capsa__policy *p = load("{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":"
                            "[{\"param\":\"b/c\",\"op\":\"<=\",\"value\":1}]}]}");
    CHECK(allows(p, "t", args), "b/c is the member c of b (1)");
    capsa__policy_free(p);
    p = load("{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":"
             "[{\"param\":\"b~1c\",\"op\":\"<=\",\"value\":1}]}]}");
    capsa__decision d = decide(p, "t", args);
    CHECK(!d.allowed, "b~1c is the key \"b/c\" (2), which fails <= 1");
    CHECK_STR(d.message, "'t' matched 't' but failed: b~1c <= 1 (got 2)",
              "the message names the parameter as the policy writes it");
    CHECK(allows(p, "t", "{\"b/c\":1,\"b\":{\"c\":5}}"), "and only that key");
    char *json = capsa__policy_to_json(p);
    CHECK_CONTAINS(json, "\"param\":\"b~1c\"", "the policy's JSON keeps the escaped path");
    capsa__policy_free_string(p, json);
    capsa__policy_free(p);
    p = load("{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":["
             "{\"param\":\"a~0b/x~1~0y\",\"op\":\"==\",\"value\":3},"
             "{\"param\":\"~01\",\"op\":\"==\",\"value\":4},"
             "{\"param\":\"list/1/k~1v\",\"op\":\"==\",\"value\":5}]}]}");
    CHECK(allows(p, "t", "{\"a~b\":{\"x/~y\":3},\"~1\":4,\"list\":[0,{\"k/v\":5}]}"),
          "~0 is '~' and ~1 is '/', also next to each other and after an index");
    CHECK(!allows(p, "t", "{\"a~b\":{\"x/~y\":3},\"/\":4,\"list\":[0,{\"k/v\":5}]}"),
          "~01 is the key \"~1\", not \"/\" (the escapes are undone once, left to right)");
    capsa__policy_free(p);
    CHECK_CONTAINS(load_error("{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":"
                              "[{\"param\":\"a~2\",\"op\":\"exists\"}]}]}"),
                   "capabilities[0].constraints[0].param: '~' must be followed by 0 ('~') or 1 ('/') in 'a~2'",
                   "any other escape is a load error");
    CHECK_CONTAINS(load_error("{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":"
                              "[{\"param\":\"a~\",\"op\":\"exists\"}]}]}"),
                   "'~' must be followed", "so is a '~' at the end");
    p = NULL;
    char err[256];
    CHECK_INT(capsa__policy_new(NULL, &p), CAPSA_OK, "a policy is built");
    CHECK_INT(capsa__policy_add(p, "t", "[{\"param\":\"b~1c\",\"op\":\"==\",\"value\":2}]", 0, err,
                                sizeof err),
              CAPSA_OK, "the builder takes an escaped path");
    CHECK(allows(p, "t", args), "and checks the key \"b/c\"");
    CHECK_INT(capsa__policy_add(p, "u", "[{\"param\":\"x\",\"op\":\"<\",\"value\":1.00000000000000001}]",
                                0, err, sizeof err),
              CAPSA_EINVAL, "the builder refuses an inexact number too");
    CHECK_CONTAINS(err, "would read as 1", "saying what it would read as");
    capsa__policy_free(p);
}

TEST(and_or)
{
    capsa__policy *p = load(
        "{\"capabilities\":[{\"pattern\":\"pay\",\"constraints\":["
        "{\"or\":[{\"param\":\"amount\",\"op\":\"<=\",\"value\":100},"
        "         {\"and\":[{\"param\":\"amount\",\"op\":\"<=\",\"value\":1000},"
        "                   {\"param\":\"approved\",\"op\":\"==\",\"value\":true}]}]}]}]}");
    CHECK(allows(p, "pay", "{\"amount\":50}"), "the first branch of the or");
    CHECK(allows(p, "pay", "{\"amount\":500,\"approved\":true}"), "the and branch of the or");
    CHECK(!allows(p, "pay", "{\"amount\":500,\"approved\":false}"), "the and fails on approved");
    capsa__decision d = decide(p, "pay", "{\"amount\":5000,\"approved\":true}");
    CHECK_STR(d.message,
              "'pay' matched 'pay' but failed: amount <= 100 (got 5000) or amount <= 1000 (got 5000)",
              "an or is reported with all its branches, an and by its first failure");
    d = decide(p, "pay", "{\"amount\":500}");
    CHECK_STR(d.message,
              "'pay' matched 'pay' but failed: amount <= 100 (got 500) or approved == true (got missing)",
              "the and reports its failing part");
    capsa__policy_free(p);

    p = load("{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":["
             "{\"and\":[{\"param\":\"a\",\"op\":\"exists\"},{\"param\":\"b\",\"op\":\"exists\"}]},"
             "{\"param\":\"c\",\"op\":\"==\",\"value\":\"x\"}]}]}");
    CHECK(allows(p, "t", "{\"a\":1,\"b\":2,\"c\":\"x\"}"), "and plus a leaf all hold");
    d = decide(p, "t", "{\"a\":1,\"c\":\"y\"}");
    CHECK_STR(d.message, "'t' matched 't' but failed: b exists (got missing)", "the first failing constraint is reported");
    capsa__policy_free(p);
}

TEST(nesting_depth)
{
    /* 32 levels of and/or load and evaluate; 33 are refused. */
    for (int levels = 31; levels <= 34; levels++) {
        char text[8192] = "{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":[";
        for (int i = 0; i < levels; i++)
            strcat(text, i % 2 ? "{\"or\":[" : "{\"and\":[");
        strcat(text, "{\"param\":\"x\",\"op\":\"==\",\"value\":1}");
        for (int i = 0; i < levels; i++)
            strcat(text, "]}");
        strcat(text, "]}]}");
        if (levels <= CAPSA__POLICY_MAX_DEPTH) {
            capsa__policy *p = load(text);
            CHECK(allows(p, "t", "{\"x\":1}"), "deeply nested and/or evaluate");
            capsa__decision d = decide(p, "t", "{\"x\":2}");
            CHECK_STR(d.message, "'t' matched 't' but failed: x == 1 (got 2)", "and report the leaf");
            capsa__policy_free(p);
        } else {
            CHECK_CONTAINS(load_error(text), "and/or nested deeper than 32 levels", "deeper nesting is refused");
            CHECK_CONTAINS(load_error(text), "capabilities[0].constraints[0].and[0].or[0].and[0]", "with the path");
        }
    }
    /* Deeper than jansson parses at all. */
    static char deep[40000];
    strcpy(deep, "{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":[");
    for (int i = 0; i < 3000; i++)
        strcat(deep, "{\"and\":[");
    CHECK_CONTAINS(load_error(deep), "line 1", "a hostile nesting depth is refused by the parser");
}

TEST(budgets_and_fall_through)
{
    capsa__policy *p = load(
        "{\"capabilities\":["
        "{\"pattern\":\"stripe/charges/*\",\"constraints\":[{\"param\":\"amount\",\"op\":\"<=\",\"value\":1000}],\"max_calls\":2},"
        "{\"pattern\":\"stripe/**\",\"constraints\":[{\"param\":\"amount\",\"op\":\"<=\",\"value\":100}],\"max_calls\":1},"
        "{\"pattern\":\"math/**\"}]}");
    CHECK_INT(capsa__policy_count(p), 3, "three capabilities");
    capsa__decision d = decide(p, "stripe/charges/create", "{\"amount\":50}");
    CHECK(d.allowed && d.capability == 0, "the first capability authorises");
    CHECK_STR(d.message, "", "a spending check writes no message for an allowed call");
    json_t *small = json_loads("{\"amount\":50}", 0, NULL);
    capsa__decision shown;
    capsa__policy_peek(p, "stripe/charges/create", small, &shown);
    json_decref(small);
    CHECK_STR(shown.message, "'stripe.charges.create' allowed by 'stripe.charges.*'",
              "a dry run says what allowed it");
    d = decide(p, "stripe/charges/create", "{\"amount\":60}");
    CHECK(d.allowed && d.capability == 0, "the first capability again");
    CHECK_INT(capsa__policy_used(p, 0), 2, "two calls used of the first");
    CHECK_INT(capsa__policy_remaining(p, 0), 0, "none remain");
    d = decide(p, "stripe/charges/create", "{\"amount\":70}");
    CHECK(d.allowed && d.capability == 1, "an exhausted capability falls through to the next");
    d = decide(p, "stripe/charges/create", "{\"amount\":500}");
    CHECK(!d.allowed && d.capability == 0, "the first is spent and the second's constraint fails");
    CHECK_STR(d.message, "Call limit reached for 'stripe.charges.*': 2 of 2 used",
              "the spent budget is the reason given");
    d = decide(p, "stripe/charges/create", "{\"amount\":5000}");
    CHECK_STR(d.message, "'stripe.charges.create' matched 'stripe.charges.*' but failed: amount <= 1000 (got 5000)",
              "a call failing every constraint reports the first matching capability's failure");
    CHECK_INT(d.capability, 0, "and names that capability");
    d = decide(p, "stripe/refunds/create", "{\"amount\":50}");
    CHECK_STR(d.message, "Call limit reached for 'stripe.**': 1 of 1 used", "the second is spent too");
    CHECK_INT(d.capability, 1, "and is named");
    CHECK_INT(capsa__policy_used(p, 1), 1, "one call used of the second");
    CHECK(capsa__policy_remaining(p, 2) == UINT64_MAX, "an unlimited capability has UINT64_MAX remaining");
    for (int i = 0; i < 1000; i++)
        allows(p, "math/add", NULL);
    CHECK_INT(capsa__policy_used(p, 2), 1000, "unlimited calls are counted");
    CHECK_INT(capsa__policy_max_calls(p, 0), 2, "max_calls of the first");
    CHECK_INT(capsa__policy_max_calls(p, 2), 0, "max_calls of an unlimited one is 0");
    CHECK_INT(capsa__policy_index(p, "stripe/**"), 1, "index by pattern");
    CHECK_INT(capsa__policy_index(p, "nope"), -1, "index of an unknown pattern");
    CHECK_STR(capsa__policy_pattern(p, 2), "math.**", "patterns are kept canonical: '/' as '.'");
    CHECK_INT(capsa__policy_index(p, "math.**"), 2, "index by the pattern with either separator");
    CHECK_INT(capsa__policy_index(p, "stripe.charges/*"), 0, "index by a pattern mixing both");
    CHECK_STR(capsa__policy_pattern(p, 3), NULL, "pattern out of range");
    CHECK_INT(capsa__policy_used(p, 9), 0, "used out of range");
    CHECK_INT(capsa__policy_remaining(p, 9), 0, "remaining out of range");
    capsa__policy_reset_budgets(p);
    CHECK_INT(capsa__policy_used(p, 0), 0, "reset clears the counts");
    CHECK_INT(capsa__policy_remaining(p, 0), 2, "and restores the budget");
    CHECK(allows(p, "stripe/charges/create", "{\"amount\":50}"), "a call is allowed again");
    CHECK(!allows(p, "stripe/charges/create", "{\"amount\":1001}"), "a denied call spends nothing");
    CHECK_INT(capsa__policy_used(p, 0), 1, "only the allowed call was counted");
    /* A dry run gives check's decision and spends nothing. */
    json_t *args = json_loads("{\"amount\":50}", 0, NULL);
    capsa__decision peek;
    for (int i = 0; i < 5; i++)
        capsa__policy_peek(p, "stripe/charges/create", args, &peek);
    CHECK(peek.allowed && peek.capability == 0, "peek allows what check would");
    CHECK_INT(capsa__policy_used(p, 0), 1, "five peeks spent nothing");
    allows(p, "stripe/charges/create", "{\"amount\":50}");
    capsa__policy_peek(p, "stripe/charges/create", args, &peek);
    CHECK(peek.allowed && peek.capability == 1, "peek falls through a spent budget as check does");
    json_decref(args);
    capsa__policy_free(p);
}

TEST(messages)
{
    capsa__policy *p = load(
        "{\"capabilities\":["
        "{\"pattern\":\"stripe/charges/*\",\"constraints\":[{\"param\":\"amount\",\"op\":\"<=\",\"value\":1000}],\"max_calls\":3},"
        "{\"pattern\":\"math/**\"},"
        "{\"pattern\":\"stripe/charges/*\",\"constraints\":[{\"param\":\"currency\",\"op\":\"in\",\"value\":[\"usd\",\"eur\"]}]}]}");
    capsa__decision d = decide(p, "stripe/refunds/create", "{}");
    CHECK_STR(d.message, "No capability authorizes 'stripe.refunds.create'. Granted: ['stripe.charges.*', 'math.**']",
              "no pattern matches: patterns listed once each");
    CHECK_INT(d.capability, -1, "no capability named");
    d = decide(p, "stripe/charges/create", "{\"amount\":5000,\"currency\":\"gbp\"}");
    CHECK_STR(d.message, "'stripe.charges.create' matched 'stripe.charges.*' but failed: amount <= 1000 (got 5000)",
              "constraint failure of the first matching capability");
    d = decide(p, "stripe/charges/create", "{\"amount\":5000.5,\"currency\":\"gbp\"}");
    CHECK_STR(d.message, "'stripe.charges.create' matched 'stripe.charges.*' but failed: amount <= 1000 (got 5000.5)",
              "a real in shortest form");
    d = decide(p, "stripe/charges/create", "{\"amount\":{\"a\": [1, \"x\"]},\"currency\":\"gbp\"}");
    CHECK_STR(d.message, "'stripe.charges.create' matched 'stripe.charges.*' but failed: amount <= 1000 (got {\"a\":[1,\"x\"]})",
              "the actual value as compact JSON");
    d = decide(p, "stripe/charges/create", "{\"amount\":null}");
    CHECK_CONTAINS(d.message, "amount <= 1000 (got null)", "null is reported as null");
    d = decide(p, "stripe/charges/create", "{}");
    CHECK_CONTAINS(d.message, "amount <= 1000 (got missing)", "missing is reported as missing");
    for (int i = 0; i < 3; i++)
        CHECK(allows(p, "stripe/charges/create", "{\"amount\":1}"), "three calls within the budget");
    d = decide(p, "stripe/charges/create", "{\"amount\":1}");
    CHECK_STR(d.message, "Call limit reached for 'stripe.charges.*': 3 of 3 used", "the limit message");
    d = decide(p, "stripe/charges/create", "{\"amount\":1,\"currency\":\"usd\"}");
    CHECK(d.allowed && d.capability == 2, "a later capability with the same pattern still authorises");
    capsa__policy_free(p);

    p = load("{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":["
             "{\"param\":\"k\",\"op\":\"starts_with\",\"value\":\"sk_\"},"
             "{\"param\":\"s\",\"op\":\"not_in\",\"value\":[\"a\",\"b\"]},"
             "{\"param\":\"q\",\"op\":\"not_exists\"}]}]}");
    d = decide(p, "t", "{\"k\":\"pk_1\"}");
    CHECK_STR(d.message, "'t' matched 't' but failed: k starts_with \"sk_\" (got \"pk_1\")", "a string constraint");
    d = decide(p, "t", "{\"k\":\"sk_1\",\"s\":\"a\"}");
    CHECK_STR(d.message, "'t' matched 't' but failed: s not_in [\"a\",\"b\"] (got \"a\")", "a list constraint");
    d = decide(p, "t", "{\"k\":\"sk_1\",\"s\":\"c\",\"q\":[1]}");
    CHECK_STR(d.message, "'t' matched 't' but failed: q not_exists (got [1])", "not_exists");
    capsa__policy_free(p);
}

TEST(message_escaping_and_length)
{
    capsa__policy *p = load("{\"capabilities\":[{\"pattern\":\"a/*\",\"constraints\":[{\"param\":\"x\",\"op\":\"exists\"}]}]}");
    capsa__decision d = decide(p, "it's\n\x01", NULL);
    CHECK_STR(d.message, "No capability authorizes 'it\\'s\\x0a\\x01'. Granted: ['a.*']",
              "quotes and control characters in a method are escaped");
    d = decide(p, "caf\xc3\xa9/\xff\xc3", NULL);
    CHECK_STR(d.message, "No capability authorizes 'caf\xc3\xa9.\\xff\\xc3'. Granted: ['a.*']",
              "UTF-8 is kept and invalid bytes are escaped");
    char method[5000];
    memset(method, 'm', sizeof method - 1);
    method[sizeof method - 1] = '\0';
    d = decide(p, method, NULL);
    CHECK(strlen(d.message) < 400, "a long method is cut in the message");
    CHECK_CONTAINS(d.message, "...'. Granted: ['a.*']", "with ... and the rest of the message");
    char args[20000];
    snprintf(args, sizeof args, "{\"x\":null,\"pad\":\"%s\"}", method);
    d = decide(p, "a/b", args);
    CHECK_STR(d.message, "'a.b' matched 'a.*' but failed: x exists (got null)", "a failed exists");
    capsa__policy_free(p);

    /* Many patterns fill the message: it is cut at CAPSA__POLICY_MSG_MAX with "...". */
    CHECK_INT(capsa__policy_new(NULL, &p), CAPSA_OK, "new policy");
    for (int i = 0; i < 200; i++) {
        char pat[64];
        snprintf(pat, sizeof pat, "tool%03d/\xc3\xa9\xc3\xa9\xc3\xa9", i);
        CHECK_INT(capsa__policy_add(p, pat, NULL, 0, NULL, 0), CAPSA_OK, "add a pattern");
    }
    d = decide(p, "x", NULL);
    size_t n = strlen(d.message);
    CHECK(n < CAPSA__POLICY_MSG_MAX && n > CAPSA__POLICY_MSG_MAX - 16, "the message fills its buffer");
    CHECK(strcmp(d.message + n - 3, "...") == 0, "and ends with ...");
    CHECK((((unsigned char)d.message[n - 4]) & 0xC0) != 0xC0, "without a cut UTF-8 character");
    /* A long string value is cut too. */
    capsa__policy_free(p);
    p = load("{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":[{\"param\":\"x\",\"op\":\"==\",\"value\":1}]}]}");
    snprintf(args, sizeof args, "{\"x\":\"%s\"}", method);
    d = decide(p, "t", args);
    CHECK_CONTAINS(d.message, "x == 1 (got \"mmmm", "a long value is shown");
    CHECK_CONTAINS(d.message, "mmm...)", "and cut");
    CHECK(strlen(d.message) < 300, "to a short message");
    capsa__policy_free(p);
}

TEST(load_errors)
{
    {
        static const char with_nul[] = "{\"capabilities\":[{\"pattern\":\"a\"}\0]}";
        capsa__policy *np = NULL;
        char nerr[256];
        CHECK_INT(capsa__policy_parse(NULL, with_nul, sizeof(with_nul) - 1, &np, nerr, sizeof nerr),
                  CAPSA_EINVAL, "a NUL byte in policy text is refused");
        CHECK_CONTAINS(nerr, "NUL", "and the message says so");
    }
#define CAP(body) "{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":[" body "]}]}"
    CHECK_STR(load_error("{\"capabilities\":[{\"pattern\":\"a\"},{\"pattern\":\"b\",\"constraints\":"
                         "[{\"param\":\"x\",\"op\":\"lte\",\"value\":1}]}]}"),
              "capabilities[1].constraints[0].op: unknown operator 'lte'", "unknown operator");
    CHECK_STR(load_error(CAP("{\"param\":\"x\",\"op\":\"and\",\"value\":[]}")),
              "capabilities[0].constraints[0].op: unknown operator 'and'", "and is not a leaf operator");
    CHECK_STR(load_error("{\"capabilities\":[],\"version\":1}"), "unknown field 'version'", "unknown top-level field");
    CHECK_STR(load_error("{\"capabilities\":[{\"pattern\":\"a\",\"max_call\":3}]}"),
              "capabilities[0]: unknown field 'max_call'", "unknown capability field");
    CHECK_STR(load_error(CAP("{\"param\":\"x\",\"op\":\"==\",\"value\":1,\"note\":\"\"}")),
              "capabilities[0].constraints[0]: unknown field 'note'", "unknown constraint field");
    CHECK_STR(load_error(CAP("{\"and\":[{\"param\":\"x\",\"op\":\"exists\"}],\"or\":[]}")),
              "capabilities[0].constraints[0]: unknown field 'or'", "and with or");
    CHECK_STR(load_error(CAP("{\"or\":[{\"param\":\"x\",\"op\":\"exists\"}],\"param\":\"y\"}")),
              "capabilities[0].constraints[0]: unknown field 'param'", "or with a param");
    CHECK_STR(load_error(CAP("{\"param\":\"x\",\"op\":\"<=\"}")),
              "capabilities[0].constraints[0]: missing field 'value' (required by '<=')", "missing value");
    CHECK_STR(load_error(CAP("{\"param\":\"x\",\"op\":\"exists\",\"value\":true}")),
              "capabilities[0].constraints[0].value: not allowed with 'exists'", "a value with exists");
    CHECK_STR(load_error(CAP("{\"param\":\"x\",\"op\":\"not_exists\",\"value\":null}")),
              "capabilities[0].constraints[0].value: not allowed with 'not_exists'", "a null value with not_exists");
    CHECK_STR(load_error(CAP("{\"param\":\"x\",\"op\":\"<=\",\"value\":\"10\"}")),
              "capabilities[0].constraints[0].value: '<=' needs a number, not a string", "< needs a number");
    CHECK_STR(load_error(CAP("{\"param\":\"x\",\"op\":\">\",\"value\":true}")),
              "capabilities[0].constraints[0].value: '>' needs a number, not a boolean", "> needs a number, not a bool");
    CHECK_STR(load_error(CAP("{\"param\":\"x\",\"op\":\"in\",\"value\":\"usd\"}")),
              "capabilities[0].constraints[0].value: 'in' needs an array, not a string", "in needs an array");
    CHECK_STR(load_error(CAP("{\"param\":\"x\",\"op\":\"not_in\",\"value\":[]}")),
              "capabilities[0].constraints[0].value: 'not_in' needs at least one value", "not_in needs values");
    CHECK_STR(load_error(CAP("{\"param\":\"x\",\"op\":\"in\",\"value\":[1,null]}")),
              "capabilities[0].constraints[0].value[1]: null never matches (a null parameter is missing: use 'not_exists')",
              "null in a list");
    CHECK_STR(load_error(CAP("{\"param\":\"x\",\"op\":\"starts_with\",\"value\":1}")),
              "capabilities[0].constraints[0].value: 'starts_with' needs a string, not a number", "starts_with needs a string");
    CHECK_STR(load_error(CAP("{\"param\":\"x\",\"op\":\"ends_with\",\"value\":[\"a\"]}")),
              "capabilities[0].constraints[0].value: 'ends_with' needs a string, not an array", "ends_with needs a string");
    CHECK_CONTAINS(load_error(CAP("{\"param\":\"x\",\"op\":\"==\",\"value\":null}")),
                   "capabilities[0].constraints[0].value: null never matches", "== null");
    CHECK_CONTAINS(load_error(CAP("{\"param\":\"x\",\"op\":\"contains\",\"value\":null}")),
                   "null never matches", "contains null");
    CHECK_STR(load_error(CAP("{\"op\":\"exists\"}")), "capabilities[0].constraints[0]: missing field 'param'", "missing param");
    CHECK_STR(load_error(CAP("{\"param\":\"x\"}")), "capabilities[0].constraints[0]: missing field 'op'", "missing op");
    CHECK_STR(load_error(CAP("{\"param\":3,\"op\":\"exists\"}")),
              "capabilities[0].constraints[0].param: must be a string, not a number", "param of the wrong type");
    CHECK_STR(load_error(CAP("{\"param\":\"x\",\"op\":[\"==\"],\"value\":1}")),
              "capabilities[0].constraints[0].op: must be a string, not an array", "op of the wrong type");
    CHECK_STR(load_error(CAP("{\"param\":\"\",\"op\":\"exists\"}")),
              "capabilities[0].constraints[0].param: must not be empty", "empty param");
    CHECK_STR(load_error(CAP("{\"param\":\"a//b\",\"op\":\"exists\"}")),
              "capabilities[0].constraints[0].param: empty segment in 'a//b'", "param with an empty segment");
    CHECK_STR(load_error(CAP("{\"param\":\"a/\",\"op\":\"exists\"}")),
              "capabilities[0].constraints[0].param: empty segment in 'a/'", "param with a trailing /");
    CHECK_STR(load_error(CAP("7")), "capabilities[0].constraints[0]: a constraint must be an object, not a number",
              "a constraint that is not an object");
    CHECK_STR(load_error(CAP("{\"and\":{}}")), "capabilities[0].constraints[0].and: must be an array, not an object",
              "and of the wrong type");
    CHECK_STR(load_error(CAP("{\"or\":[]}")), "capabilities[0].constraints[0].or: must hold at least one constraint",
              "empty or");
    CHECK_STR(load_error(CAP("{\"and\":[{\"param\":\"x\",\"op\":\"exists\"},{\"param\":\"y\",\"op\":\"is\"}]}")),
              "capabilities[0].constraints[0].and[1].op: unknown operator 'is'", "the path goes into and");
    CHECK_STR(load_error("{\"capabilities\":[{\"pattern\":\"t\",\"constraints\":{}}]}"),
              "capabilities[0].constraints: must be an array, not an object", "constraints of the wrong type");
    CHECK_STR(load_error("{\"capabilities\":[{\"pattern\":\"t\",\"max_calls\":0}]}"),
              "capabilities[0].max_calls: must be a positive integer (omit it for no limit), not zero or less",
              "max_calls 0 is an error");
    CHECK_STR(load_error("{\"capabilities\":[{\"pattern\":\"t\",\"max_calls\":-1}]}"),
              "capabilities[0].max_calls: must be a positive integer (omit it for no limit), not zero or less",
              "negative max_calls");
    CHECK_STR(load_error("{\"capabilities\":[{\"pattern\":\"t\",\"max_calls\":2.0}]}"),
              "capabilities[0].max_calls: must be a positive integer (omit it for no limit), not a number",
              "a real max_calls");
    CHECK_STR(load_error("{\"capabilities\":[{\"pattern\":\"t\",\"max_calls\":\"3\"}]}"),
              "capabilities[0].max_calls: must be a positive integer (omit it for no limit), not a string",
              "a string max_calls");
    CHECK_STR(load_error("{\"capabilities\":[{\"pattern\":\"t\",\"max_calls\":null}]}"),
              "capabilities[0].max_calls: must be a positive integer (omit it for no limit), not null",
              "a null max_calls");
    CHECK_CONTAINS(load_error("{\"capabilities\":[{\"pattern\":\"t\",\"max_calls\":18446744073709551616}]}"),
                   "too big integer", "a max_calls that does not fit");
    CHECK_STR(load_error("{\"capabilities\":[{\"pattern\":\"\"}]}"), "capabilities[0].pattern: must not be empty",
              "empty pattern");
    CHECK_STR(load_error("{\"capabilities\":[{\"pattern\":\"a//b\"}]}"),
              "capabilities[0].pattern: empty segment in 'a//b'", "a pattern with an empty segment");
    CHECK_STR(load_error("{\"capabilities\":[{\"pattern\":\"/a\"}]}"),
              "capabilities[0].pattern: empty segment in '/a'", "a pattern with a leading /");
    CHECK_STR(load_error("{\"capabilities\":[{\"pattern\":\"a/\"}]}"),
              "capabilities[0].pattern: empty segment in 'a/'", "a pattern with a trailing /");
    CHECK_STR(load_error("{\"capabilities\":[{\"pattern\":\"stripe/charges*\"}]}"),
              "capabilities[0].pattern: '*' must be a whole segment (\"*\" or \"**\") in 'stripe/charges*'",
              "a * inside a segment");
    CHECK_CONTAINS(load_error("{\"capabilities\":[{\"pattern\":\"a/***\"}]}"), "'*' must be a whole segment", "***");
    CHECK_CONTAINS(load_error("{\"capabilities\":[{\"pattern\":\"a*\"}]}"), "'*' must be a whole segment", "a*");
    CHECK_CONTAINS(load_error("{\"capabilities\":[{\"pattern\":\"x/*a\"}]}"), "'*' must be a whole segment", "*a");
    CHECK_CONTAINS(load_error("{\"capabilities\":[{\"pattern\":\"x/a*b/c\"}]}"), "'*' must be a whole segment", "a*b");
    CHECK_STR(load_error("{\"capabilities\":[{}]}"), "capabilities[0]: missing field 'pattern'", "missing pattern");
    CHECK_STR(load_error("{\"capabilities\":[{\"pattern\":[\"a\"]}]}"),
              "capabilities[0].pattern: must be a string, not an array", "a pattern of the wrong type");
    CHECK_STR(load_error("{\"capabilities\":[\"math/**\"]}"),
              "capabilities[0]: a capability must be an object, not a string", "a capability that is not an object");
    CHECK_STR(load_error("{\"capabilities\":{}}"), "capabilities: must be an array, not an object", "capabilities of the wrong type");
    CHECK_STR(load_error("{}"), "missing field 'capabilities'", "no capabilities");
    CHECK_STR(load_error("[]"), "the policy must be a JSON object, not an array", "an array policy");
    CHECK_STR(load_error("\"x\""), "the policy must be a JSON object, not a string", "a string policy");
    CHECK_STR(load_error("null"), "the policy must be a JSON object, not null", "a null policy");
    CHECK_STR(load_error("{\"capabilities\":[]} x"), "line 1 column 21: end of file expected near 'x'", "trailing garbage");
    CHECK_CONTAINS(load_error(""), "line 1 column 0", "empty text");
    CHECK_CONTAINS(load_error("{\"capabilities\":[{\"pattern\":\"t\",\n\"pattern\":\"u\"}]}"),
                   "line 2 column 9: duplicate object key", "a duplicate key, with its line");
    CHECK_CONTAINS(load_error("{\"capabilities\":[],\"capabilities\":[]}"), "duplicate object key", "a duplicate top-level key");
    CHECK_CONTAINS(load_error(CAP("{\"param\":\"x\",\"op\":\"==\",\"value\":{\"a\":1,\"a\":2}}")),
                   "duplicate object key", "a duplicate key inside a value");
    CHECK_CONTAINS(load_error("{\"capabilities\":[{\"pattern\":\"a\\u0000b\"}]}"), "line 1", "a NUL in a pattern");
    CHECK_CONTAINS(load_error("{\"capabilities\":[{\"pattern\":\"\xff\"}]}"), "line 1", "invalid UTF-8");
    CHECK_CONTAINS(load_error("{\"capabilities\":[],}"), "line 1", "a trailing comma");

    char err[64];
    capsa__policy *p = (capsa__policy *)1;
    CHECK_INT(capsa__policy_parse(NULL, "{\"capabilities\":[]}", 18, &p, err, sizeof err), CAPSA_EINVAL,
              "the length is honoured: a cut text is refused");
    CHECK(p == NULL, "out is cleared on failure");
    CHECK_INT(capsa__policy_parse(NULL, "{\"capabilities\":[{\"pattern\":\"x\",\"op\":\"lte\"}]}", 44, &p, NULL, 0),
              CAPSA_EINVAL, "no error buffer is fine");
    CHECK_INT(capsa__policy_parse(NULL, "{\"capabilities\":[{\"pattern\":\"toolongpatterntoolongpattern/a//\"}]}", 64, &p,
                                  err, 20), CAPSA_EINVAL, "a small error buffer");
    CHECK_INT(strlen(err), 19, "the error is cut to the buffer");
    CHECK_INT(capsa__policy_parse(NULL, NULL, 0, NULL, NULL, 0), CAPSA_EINVAL, "no out pointer");
#undef CAP
}

TEST(policy_file_loads)
{
    const char *text =
        "{\n  \"capabilities\": [\n"
        "    {\"pattern\": \"math/**\", \"constraints\": [{\"param\": \"a\", \"op\": \"<=\", \"value\": 10}], \"max_calls\": 3},\n"
        "    {\"pattern\": \"http/get\", \"constraints\": []},\n"
        "    {\"pattern\": \"fs/read\"}\n  ]\n}\n";
    capsa__policy *p = load(text);
    CHECK_INT(capsa__policy_count(p), 3, "three capabilities");
    CHECK(allows(p, "math/add", "{\"a\":10}"), "within the constraint");
    CHECK(!allows(p, "math/add", "{\"a\":11}"), "past the constraint");
    CHECK(allows(p, "http/get", "{}"), "an empty constraint list allows");
    CHECK(allows(p, "fs/read", NULL), "no constraints allow without arguments");
    capsa__policy_free(p);
    p = load("{\"capabilities\":[]}");
    CHECK(!allows(p, "a", NULL), "an empty capability list denies");
    capsa__policy_free(p);
}

TEST(builder_and_to_json)
{
    capsa__policy *p = NULL;
    char err[256];
    CHECK_INT(capsa__policy_new(NULL, &p), CAPSA_OK, "new");
    CHECK_INT(capsa__policy_add(p, "stripe/charges/*",
                                "[{\"param\":\"amount\",\"op\":\"<=\",\"value\":1000},"
                                "{\"or\":[{\"param\":\"c\",\"op\":\"in\",\"value\":[\"usd\",1.5]},{\"param\":\"t\",\"op\":\"exists\"}]}]",
                                2, err, sizeof err),
              CAPSA_OK, "add with constraints and a budget");
    CHECK_INT(capsa__policy_add(p, "math/**", NULL, 0, err, sizeof err), CAPSA_OK, "add with nothing else");
    CHECK_INT(capsa__policy_add(p, "a//b", NULL, 0, err, sizeof err), CAPSA_EINVAL, "a bad pattern");
    CHECK_STR(err, "pattern: empty segment in 'a//b'", "its error");
    CHECK_INT(capsa__policy_add(p, "a./b", NULL, 0, err, sizeof err), CAPSA_EINVAL,
              "an empty segment between the two separators");
    CHECK_INT(capsa__policy_add(p, "a.b*", NULL, 0, err, sizeof err), CAPSA_EINVAL,
              "'*' inside a segment after '.'");
    CHECK_STR(err, "pattern: '*' must be a whole segment (\"*\" or \"**\") in 'a.b*'", "its error");
    CHECK_INT(capsa__policy_add(p, "x", "[{\"param\":\"a\",\"op\":\"lte\",\"value\":1}]", 0, err, sizeof err),
              CAPSA_EINVAL, "a bad constraint");
    CHECK_STR(err, "constraints[0].op: unknown operator 'lte'", "its error");
    CHECK_INT(capsa__policy_add(p, "x", "{}", 0, err, sizeof err), CAPSA_EINVAL, "constraints not an array");
    CHECK_STR(err, "constraints: must be an array, not an object", "its error");
    CHECK_INT(capsa__policy_add(p, "x", "[] [", 0, err, sizeof err), CAPSA_EINVAL, "constraints with garbage");
    CHECK_CONTAINS(err, "constraints: line 1 column", "its error has a position");
    CHECK_INT(capsa__policy_add(p, "x", NULL, (uint64_t)INT64_MAX + 1, err, sizeof err), CAPSA_EINVAL,
              "a budget beyond INT64_MAX");
    CHECK_INT(capsa__policy_add(p, NULL, NULL, 0, err, sizeof err), CAPSA_EINVAL, "no pattern");
    CHECK_INT(capsa__policy_add(NULL, "x", NULL, 0, err, sizeof err), CAPSA_EINVAL, "no policy");
    CHECK_INT(capsa__policy_count(p), 2, "failed adds leave the policy unchanged");
    CHECK(allows(p, "stripe/charges/create", "{\"amount\":10,\"c\":1.5}"), "the built policy allows");
    CHECK(!allows(p, "stripe/charges/create", "{\"amount\":10,\"c\":\"gbp\"}"), "and denies");

    char *s = capsa__policy_to_json(p);
    CHECK_STR(s,
              "{\"capabilities\":[{\"pattern\":\"stripe.charges.*\",\"constraints\":"
              "[{\"param\":\"amount\",\"op\":\"<=\",\"value\":1000},{\"or\":[{\"param\":\"c\",\"op\":\"in\","
              "\"value\":[\"usd\",1.5]},{\"param\":\"t\",\"op\":\"exists\"}]}],\"max_calls\":2},"
              "{\"pattern\":\"math.**\"}]}",
              "the policy as JSON");
    capsa__policy *q = NULL;
    CHECK_INT(capsa__policy_parse(NULL, s, strlen(s), &q, err, sizeof err), CAPSA_OK, "the JSON loads back");
    char *t = capsa__policy_to_json(q);
    CHECK_STR(t, s, "and describes the same policy");
    capsa__policy_free_string(q, t);
    capsa__policy_free_string(p, s);
    capsa__policy_free_string(p, NULL);
    capsa__policy_free(q);
    capsa__policy_free(p);

    /* Reals as they were written (jansson's dump wrote 0.10000000000000001, which
       the strict parse refuses: the policy of a saved session did not load). */
    static const char reals[] = "{\"capabilities\":[{\"pattern\":\"x\",\"constraints\":["
                                "{\"param\":\"n\",\"op\":\"<=\",\"value\":0.1},"
                                "{\"param\":\"m\",\"op\":\"in\",\"value\":[19.99,1e+304,5.0]}]}]}";
    p = load(reals);
    s = p ? capsa__policy_to_json(p) : NULL;
    CHECK_STR(s, reals, "a policy's reals in their shortest form");
    q = NULL;
    CHECK_INT(s ? capsa__policy_parse(NULL, s, strlen(s), &q, err, sizeof err) : -1, CAPSA_OK,
              "and it loads back");
    capsa__policy_free_string(p, s);
    capsa__policy_free(q);
    capsa__policy_free(p);

    CHECK_INT(capsa__policy_new(NULL, &p), CAPSA_OK, "new");
    s = capsa__policy_to_json(p);
    CHECK_STR(s, "{\"capabilities\":[]}", "an empty policy as JSON");
    capsa__policy_free_string(p, s);
    capsa__policy_free(p);
}

TEST(allocation_failure)
{
    /* Enough capabilities to grow the array twice, with nested constraints. */
    char text[8192] = "{\"capabilities\":[";
    for (int i = 0; i < 20; i++) {
        char cap[256];
        snprintf(cap, sizeof cap,
                 "%s{\"pattern\":\"t%d/**\",\"constraints\":[{\"param\":\"a\",\"op\":\"<\",\"value\":5},"
                 "{\"or\":[{\"param\":\"b\",\"op\":\"exists\"},{\"and\":[{\"param\":\"c/0\",\"op\":\"in\",\"value\":[1]}]}]}],"
                 "\"max_calls\":%d}",
                 i ? "," : "", i, i + 1);
        strcat(text, cap);
    }
    strcat(text, "]}");
    int clean = 0, tries = 0, succeeded = 0;
    for (long n = 0; n < 1000 && !succeeded; n++) {
        test_fail_alloc f = { n, 0 };
        capsa_allocator a = { test_fail_realloc, test_fail_free, &f };
        capsa__policy *p = NULL;
        char err[128] = "";
        tries++;
        int rc = capsa__policy_parse(&a, text, strlen(text), &p, err, sizeof err);
        int ok = rc == CAPSA_OK || (rc == CAPSA_ENOMEM && p == NULL && strcmp(err, "out of memory") == 0);
        if (rc == CAPSA_OK) {
            rc = capsa__policy_add(p, "x/*", "[{\"and\":[{\"param\":\"q\",\"op\":\"==\",\"value\":{\"k\":[1]}}]}]", 4,
                                   err, sizeof err);
            ok = rc == CAPSA_OK || (rc == CAPSA_ENOMEM && capsa__policy_count(p) == 20);
        }
        if (rc == CAPSA_OK) {
            char *s = capsa__policy_to_json(p);
            capsa__decision d;
            json_t *args = json_loads("{\"a\":1,\"b\":true}", 0, NULL);
            capsa__policy_check(p, "t3/x", args, &d);
            json_decref(args);
            ok = ok && d.allowed;
            if (s) {
                succeeded = strstr(s, "\"x.*\"") != NULL;
                capsa__policy_free_string(p, s);
            }
        }
        capsa__policy_free(p);
        clean += ok && f.live == 0;
    }
    CHECK_INT(clean, tries, "every injected failure gives CAPSA_ENOMEM and leaks nothing");
    CHECK(succeeded, "with enough allocations everything succeeds");
    CHECK(tries > 60, "and there were many allocation points to fail");
}

int main(void)
{
    RUN(empty_policy_denies);
    RUN(patterns);
    RUN(op_numbers);
    RUN(op_equality);
    RUN(bools_are_not_numbers);
    RUN(op_in);
    RUN(op_strings);
    RUN(exists_and_null);
    RUN(paths);
    RUN(proto_keys);
    RUN(huge_numbers);
    RUN(exact_numbers);
    RUN(slash_keys);
    RUN(and_or);
    RUN(nesting_depth);
    RUN(budgets_and_fall_through);
    RUN(messages);
    RUN(message_escaping_and_length);
    RUN(load_errors);
    RUN(policy_file_loads);
    RUN(builder_and_to_json);
    RUN(allocation_failure);
    return test_summary("test_policy");
}
