/* Tools, capabilities and audit through the public API: the registry and the two
 * JS forms, introspection and the generated .d.ts files, arguments that arrive
 * byte for byte and are parsed strictly, denials and budgets, concurrency, step
 * mode with timers, timeouts, bad and large results, the audit log and its
 * callback, and allocation failure. */
#include <pthread.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "capsa.h"
#include "test.h"

static capsa_engine *engine;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const capsa_result *run(capsa_sandbox *sb, const char *code, int *rc)
{
    const capsa_result *r = NULL;
    *rc = capsa_run(sb, code, strlen(code), NULL, &r);
    return r;
}


/* ---- tools used by the tests ------------------------------------------------------ */

/* add: {a, b} -> a + b (parsed by hand: the tests need no JSON library). */
static void tool_add(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
    double a = 0, b = 0;
    const char *pa = strstr(call->args, "\"a\":"), *pb = strstr(call->args, "\"b\":");
    if (pa)
        a = strtod(pa + 4, NULL);
    if (pb)
        b = strtod(pb + 4, NULL);
    char out[64];
    int n = snprintf(out, sizeof(out), "%.17g", a + b);
    capsa_tool_reply_json(reply, out, (size_t)n);
}

/* echo: the arguments back, and the last ones kept for the test to compare. */
static pthread_mutex_t echo_lock = PTHREAD_MUTEX_INITIALIZER;
static char echo_last[8192];
static int echo_calls;

static void tool_echo(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
    pthread_mutex_lock(&echo_lock);
    snprintf(echo_last, sizeof(echo_last), "%.*s", (int)call->args_len, call->args);
    echo_calls++;
    pthread_mutex_unlock(&echo_lock);
    capsa_tool_reply_json(reply, call->args, call->args_len);
}

/* sleep: sleeps the milliseconds in ud, then answers {"slept":true}. */
static void tool_sleep(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
    long ms = (long)(intptr_t)ud;
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
    capsa_tool_reply_json(reply, call->args, call->args_len);
}

/* fail: an error with its own code. */
static void tool_fail(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
    capsa_tool_reply_error(reply, "rate_limited", "slow down, please");
}

/* bad: a result that is not JSON. */
static void tool_bad(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
    capsa_tool_reply_json(reply, "{\"a\":", 5);
}

/* big: a string result of the bytes in ud. */
static void tool_big(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
    size_t n = (size_t)(intptr_t)ud;
    char *s = malloc(n + 2);
    s[0] = '"';
    memset(s + 1, 'x', n - 2);
    s[n - 1] = '"';
    capsa_tool_reply_json(reply, s, n);
    free(s);
}

/* The process's resident size in KiB (VmRSS), or -1. */
static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof(line), f)) {
        if (strncmp(line, "VmRSS:", 6) == 0)
            kb = strtol(line + 6, NULL, 10);
    }
    if (f)
        fclose(f);
    return kb;
}

/* padded: the JSON value 1 followed by spaces, the bytes in ud in all (a big result
 * the guest parses into a small value), noting the peak resident size. */
static long padded_peak_kb;
static void tool_padded(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
    (void)call;
    long kb = rss_kb();
    if (kb > padded_peak_kb)
        padded_peak_kb = kb;
    size_t n = (size_t)(intptr_t)ud;
    char *s = malloc(n);
    memset(s, ' ', n);
    s[0] = '1';
    capsa_tool_reply_json(reply, s, n);
    free(s);
}

/* silent: returns without answering. */
static void tool_silent(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
}

/* A callback that tries to call back into its own sandbox (ud): every such call
 * must be refused; it answers with the codes it got, as [run, fs_write, reset,
 * policy_add, tool_add]. */
static void tool_reenter(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
    (void)call;
    capsa_sandbox *sb = ud;
    const capsa_result *r = NULL;
    capsa_tool_def d;
    capsa_tool_def_init(&d);
    d.name = "late.tool";
    d.fn = tool_silent;
    char json[128];
    snprintf(json, sizeof(json), "[%d,%d,%d,%d,%d]", capsa_run(sb, "1", 1, NULL, &r),
             capsa_fs_write(sb, "/workspace/x", "x", 1), capsa_reset(sb),
             capsa_policy_add(sb, "**", NULL, 0), capsa_tool_add(sb, &d));
    capsa_sandbox_free(sb); /* ignored from inside the run */
    capsa_tool_reply_json(reply, json, strlen(json));
}

static int add_tool(capsa_sandbox *sb, const char *name, const char *params, capsa_tool_fn fn,
                    void *ud, uint32_t flags, uint64_t timeout_ms)
{
    capsa_tool_def d;
    capsa_tool_def_init(&d);
    d.name = name;
    d.description = "a test tool";
    d.parameters = params;
    d.fn = fn;
    d.ud = ud;
    d.flags = flags;
    d.timeout_ms = timeout_ms;
    return capsa_tool_add(sb, &d);
}

static const char add_schema[] =
    "{\"type\":\"object\",\"description\":\"Two numbers.\",\"properties\":{"
    "\"a\":{\"type\":\"number\",\"description\":\"the first\"},\"b\":{\"type\":\"number\"},"
    "\"mode\":{\"enum\":[\"exact\",\"fast\"]},\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}}},"
    "\"required\":[\"a\",\"b\"]}";

static capsa_sandbox *new_sandbox(const capsa_options *o)
{
    capsa_sandbox *sb = NULL;
    int rc = capsa_sandbox_new(engine, o, &sb);
    CHECK_INT(rc, CAPSA_OK, "a sandbox is created");
    return sb;
}

/* A sandbox with the tool echo, granted. */
static capsa_sandbox *echo_sandbox(const capsa_options *o)
{
    capsa_sandbox *sb = new_sandbox(o);
    add_tool(sb, "echo", NULL, tool_echo, NULL, 0, 0);
    capsa_policy_add(sb, "echo", NULL, 0);
    return sb;
}

/* ---- tests -------------------------------------------------------------------------- */

TEST(registry_names)
{
    capsa_sandbox *sb = new_sandbox(NULL);
    CHECK_INT(add_tool(sb, "math.add", add_schema, tool_add, NULL, CAPSA_TOOL_INLINE, 0), CAPSA_OK,
              "provider.action name");
    CHECK_INT(add_tool(sb, "github/issues/search", NULL, tool_echo, NULL, 0, 0), CAPSA_OK, "a/b/c name");
    CHECK_INT(add_tool(sb, "web-search.fetch", NULL, tool_echo, NULL, 0, 0), CAPSA_OK, "- in a name");
    CHECK_INT(add_tool(sb, "math.add", NULL, tool_echo, NULL, 0, 0), CAPSA_EEXIST, "a name taken twice");
    CHECK_INT(add_tool(sb, "math_add", NULL, tool_echo, NULL, 0, 0), CAPSA_EEXIST,
              "a name whose flat form is taken");
    CHECK_CONTAINS(capsa_errmsg(sb), "flat form", "the message says why");
    const char *bad[] = { "", "1abc", "a..b", "a.", ".a", "a b", "a/é", "x;y", "a:b", "a./b", "a/",
                          "/a", "a//b", NULL };
    for (int i = 0; bad[i]; i++)
        CHECK_INT(add_tool(sb, bad[i], NULL, tool_echo, NULL, 0, 0), CAPSA_EINVAL, bad[i]);
    CHECK_INT(add_tool(sb, "s.bad", "{\"type\":\"object\",\"type\":\"string\"}", tool_echo, NULL, 0, 0),
              CAPSA_EINVAL, "a schema with a duplicate key");
    CHECK_INT(add_tool(sb, "s.bad2", "[1]", tool_echo, NULL, 0, 0), CAPSA_EINVAL, "a schema not an object");
    CHECK_INT(add_tool(sb, "s.bad3", "{\"type\":5}", tool_echo, NULL, 0, 0), CAPSA_EINVAL,
              "a schema whose type is not a string");
    CHECK_INT(add_tool(sb, "s.bad4", "{\"type\":\"string\"}", tool_echo, NULL, 0, 0), CAPSA_EINVAL,
              "a schema of something other than an object");
    CHECK_CONTAINS(capsa_errmsg(sb), "\"type\" must be \"object\"", "the message says why");
    CHECK_INT(add_tool(sb, "s.bad5", "{\"properties\":[]}", tool_echo, NULL, 0, 0), CAPSA_EINVAL,
              "properties that are not an object");
    CHECK_INT(add_tool(sb, "s.bad6", "{\"properties\":{\"a\":3}}", tool_echo, NULL, 0, 0),
              CAPSA_EINVAL, "a property schema that is not an object");
    CHECK_INT(add_tool(sb, "s.bad7", "{\"required\":\"a\"}", tool_echo, NULL, 0, 0), CAPSA_EINVAL,
              "required that is not an array of names");
    CHECK_INT(add_tool(sb, "i.none", NULL, NULL, NULL, CAPSA_TOOL_INLINE, 0), CAPSA_EINVAL,
              "an inline tool without a callback");
    CHECK_INT(capsa_tool_add(sb, NULL), CAPSA_EINVAL, "no definition");
    CHECK_INT(capsa_policy_add(sb, "**", NULL, 0), CAPSA_OK, "allow everything");

    CHECK_STR(js_value(sb, "return await tools.math.add({a: 2, b: 40})"), "42", "namespaced call");
    CHECK_STR(js_value(sb, "return await math_add({a: 1.5, b: 1})"), "2.5", "flat call");
    CHECK_STR(js_value(sb, "return (await tools.github.issues.search({q: 'x'})).q"), "\"x\"",
              "a/b/c becomes tools.a.b.c");
    CHECK_STR(js_value(sb, "return (await github_issues_search({q: 'y'})).q"), "\"y\"", "a/b/c flat");
    CHECK_STR(js_value(sb, "return (await tools['web-search'].fetch({u: 1})).u"), "1", "- kept in a namespace");
    CHECK_STR(js_value(sb, "return (await web_search_fetch({u: 2})).u"), "2", "- and . become _");
    CHECK_STR(js_value(sb, "return await tools.call('math.add', {a: 1, b: 1})"), "2", "tools.call by name");
    CHECK_STR(js_value(sb, "return await tools.call('math_add', '{\"a\":3,\"b\":4}')"), "7",
              "tools.call by flat name, with JSON text");
    CHECK_STR(js_value(sb, "return tools.list().map(t => t.name)"),
              "[\"math.add\",\"github.issues.search\",\"web-search.fetch\"]",
              "tools.list(): the canonical names ('/' registered as '.')");
    CHECK_STR(js_value(sb, "const d = tools.describe('math.add'); return [d.flat, d.description, "
                           "d.parameters.required, d.types]"),
              "[\"math_add\",\"a test tool\",[\"a\",\"b\"],\"/tools/math.add.d.ts\"]", "tools.describe()");
    CHECK_STR(js_value(sb, "return tools.describe('nope')"), "undefined", "describe of an unknown tool");
    CHECK_STR(js_value(sb, "return [Object.isFrozen(tools), Object.isFrozen(tools.math)]"), "[true,true]",
              "tools and its namespaces are frozen");
    CHECK_STR(js_value(sb, "try { await tools.call('nope', {}) } catch (e) { return [e.name, e.code, e instanceof Error] }"),
              "[\"ToolError\",\"unknown_tool\",true]", "an unknown tool rejects with unknown_tool");
    CHECK_STR(js_value(sb, "try { await math_add([1]) } catch (e) { return [e.name, e.code] }"),
              "[\"TypeError\",\"invalid_arguments\"]", "arguments must be an object");
    CHECK_STR(js_value(sb, "try { await math_add({x: 1n}) } catch (e) { return e.name }"), "\"TypeError\"",
              "arguments JSON cannot hold are a TypeError");
    capsa_sandbox_free(sb);
}

TEST(declarations)
{
    capsa_sandbox *sb = new_sandbox(NULL);
    add_tool(sb, "math.add", add_schema, tool_add, NULL, 0, 0);
    add_tool(sb, "math.stats.mean", NULL, tool_echo, NULL, 0, 0);
    add_tool(sb, "github/search", "{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"string\"},"
                                   "\"not-ident\":{\"type\":[\"string\",\"null\"]}}}", tool_echo, NULL, 0, 0);
    char *data = NULL;
    size_t len = 0;
    CHECK_INT(capsa_fs_read(sb, "/tools/math.add.d.ts", &data, &len), CAPSA_OK, "/tools/math.add.d.ts exists");
    CHECK_CONTAINS(data, "export declare type MathAddArgs = {", "the arguments' type");
    CHECK_CONTAINS(data, "  /** the first */\n  a: number;", "a required property with its description");
    CHECK_CONTAINS(data, "  mode?: \"exact\" | \"fast\";", "an enum as a union of literals");
    CHECK_CONTAINS(data, "  tags?: Array<string>;", "an array");
    CHECK_CONTAINS(data, "export declare function math_add(args: MathAddArgs): Promise<any>;",
                   "the function, arguments required");
    capsa_free(data);
    CHECK_INT(capsa_fs_read(sb, "/tools/github.search.d.ts", &data, &len), CAPSA_OK,
              "an a/b name is declared under its canonical name a.b");
    CHECK_CONTAINS(data, "\"not-ident\"?: string | null;", "a key that is not an identifier is quoted");
    CHECK_CONTAINS(data, "function github_search(args?: GithubSearchArgs)", "optional arguments");
    capsa_free(data);
    CHECK_INT(capsa_fs_read(sb, "/tools/index.d.ts", &data, &len), CAPSA_OK, "/tools/index.d.ts exists");
    CHECK_CONTAINS(data, "declare function math_stats_mean(", "every tool's function");
    CHECK_CONTAINS(data, "declare const tools: {", "the tools object");
    CHECK_CONTAINS(data, "  math: {\n    add: typeof math_add;\n    stats: {\n      mean: typeof math_stats_mean;\n    };\n  };",
                   "namespaces nest");
    CHECK_CONTAINS(data, "  github: {\n    search: typeof github_search;\n  };", "a/b names nest too");
    capsa_free(data);
    CHECK_STR(js_value(sb, "return require('fs').readFileSync('/tools/index.d.ts', 'utf8').includes('math_add')"),
              "true", "the script can read the declarations");
    CHECK_STR(js_value(sb, "try { require('fs').writeFileSync('/tools/index.d.ts', 'x') } catch (e) { return e.code }"),
              "\"EROFS\"", "but not change them");
    capsa_sandbox_free(sb);
}

TEST(arguments_exact_and_strict)
{
    capsa_sandbox *sb = echo_sandbox(NULL);
    CHECK_STR(js_value(sb, "const a = {b: 1, a: 'é\\u2028\"\\n', n: 1e300, m: -0.000001, d: [null, true, {}]};"
                           "const back = await echo(a); return JSON.stringify(back) === JSON.stringify(a)"),
              "true", "a call with strings, numbers and nesting");
    pthread_mutex_lock(&echo_lock);
    CHECK_STR(echo_last, "{\"b\":1,\"a\":\"é\u2028\\\"\\n\",\"n\":1e+300,\"m\":-0.000001,\"d\":[null,true,{}]}",
              "the tool gets the script's JSON.stringify text byte for byte");
    pthread_mutex_unlock(&echo_lock);

    pthread_mutex_lock(&echo_lock);
    int before = echo_calls;
    pthread_mutex_unlock(&echo_lock);
    CHECK_STR(js_value(sb, "try { await tools.call('echo', '{\"a\":1,\"a\":2}') } catch (e) { return [e.code, e.message] }"),
              "[\"invalid_arguments\",\"the arguments of 'echo' are not strict JSON: duplicate object key near '\\\"a\\\"' (line 1, column 10)\"]",
              "a duplicate key is refused with a clear error");
    CHECK_STR(js_value(sb, "try { await tools.call('echo', '{\"a\":1,}') } catch (e) { return e.code }"),
              "\"invalid_arguments\"", "a trailing comma is refused");
    CHECK_STR(js_value(sb, "try { await tools.call('echo', '[1]') } catch (e) { return e.code }"),
              "\"invalid_arguments\"", "arguments that are not an object are refused");
    CHECK_STR(js_value(sb, "try { await tools.call('echo', '{\"a\":\"\\\\u0000\"}') } catch (e) { return e.code }"),
              "\"invalid_arguments\"", "a NUL inside a string is refused");
    CHECK_STR(js_value(sb, "try { await tools.call('echo', '{\"n\":1e400}') } catch (e) { return e.code }"),
              "\"invalid_arguments\"", "a real beyond a double is refused");
    CHECK_CONTAINS(js_value(sb, "try { await tools.call('echo', '{\"n\":123456789012345678901234567890}') } catch (e) { return e.message }"),
                   "pass it as a string", "an integer beyond 64 bits is refused, saying what to do");
    pthread_mutex_lock(&echo_lock);
    CHECK_INT(echo_calls, before, "the tool was never called for refused arguments");
    pthread_mutex_unlock(&echo_lock);

    CHECK_STR(js_value(sb, "const r = await tools.call('echo', '{\"__proto__\":{\"x\":1},\"a\":1}');"
                           "return [Object.keys(r), Object.getPrototypeOf(r) === Object.prototype, r.x]"),
              "[[\"__proto__\",\"a\"],true,null]", "__proto__ is an ordinary key");
    pthread_mutex_lock(&echo_lock);
    CHECK_STR(echo_last, "{\"__proto__\":{\"x\":1},\"a\":1}", "and arrives as sent");
    pthread_mutex_unlock(&echo_lock);
    CHECK_STR(js_value(sb, "await tools.call('echo', '{\"n\":9007199254740993,\"r\":1.7976931348623157e308}'); return 1"),
              "1", "huge numbers within range are accepted");
    pthread_mutex_lock(&echo_lock);
    CHECK_STR(echo_last, "{\"n\":9007199254740993,\"r\":1.7976931348623157e308}", "and keep their digits");
    pthread_mutex_unlock(&echo_lock);

    /* The policy compares what the tool gets, exactly. */
    capsa_policy_set(sb, "{\"capabilities\":[{\"pattern\":\"echo\",\"constraints\":"
                         "[{\"param\":\"n\",\"op\":\"<=\",\"value\":9007199254740992}]}]}",
                    strlen("{\"capabilities\":[{\"pattern\":\"echo\",\"constraints\":"
                           "[{\"param\":\"n\",\"op\":\"<=\",\"value\":9007199254740992}]}]}"));
    CHECK_CONTAINS(js_value(sb, "try { await tools.call('echo', '{\"n\":9007199254740993}') } catch (e) { return e.message }"),
                   "failed: n <= 9007199254740992", "2^53+1 does not pass <= 2^53");
    capsa_sandbox_free(sb);
}

TEST(denials_and_budgets)
{
    capsa_sandbox *sb = new_sandbox(NULL);
    add_tool(sb, "math.add", add_schema, tool_add, NULL, CAPSA_TOOL_INLINE, 0);
    add_tool(sb, "math/mul", NULL, tool_echo, NULL, 0, 0);
    CHECK_STR(js_value(sb, "try { await tools.math.add({a: 1, b: 2}) } catch (e) { return [e.name, e.code, e.message, e.tool] }"),
              "[\"ToolError\",\"permission_denied\",\"No capability authorizes 'math.add'. Granted: []\",\"math.add\"]",
              "deny by default, with the policy's message");
    const char policy[] = "{\"capabilities\":[{\"pattern\":\"math.add\",\"constraints\":"
                          "[{\"param\":\"a\",\"op\":\"<=\",\"value\":10}],\"max_calls\":2}]}";
    static const char bogus[] = "{\"capabilities\":[{\"pattern\":\"x\",\"bogus\":1}]}";
    CHECK_INT(capsa_policy_set(sb, bogus, sizeof(bogus) - 1), CAPSA_EINVAL,
              "a malformed policy is refused");
    CHECK_CONTAINS(capsa_errmsg(sb), "bogus", "naming the field");
    CHECK_INT(capsa_policy_set(sb, policy, sizeof(policy) - 1), CAPSA_OK, "a policy from JSON text");
    CHECK_STR(js_value(sb, "try { await tools.math.add({a: 11, b: 2}) } catch (e) { return e.message }"),
              "\"'math.add' matched 'math.add' but failed: a <= 10 (got 11)\"", "a failed constraint");
    int allowed = -1;
    char msg[256];
    CHECK_INT(capsa_policy_check(sb, "math.add", "{\"a\":1}", 7, &allowed, msg, sizeof(msg)), CAPSA_OK,
              "a dry-run check");
    CHECK_INT(allowed, 1, "would be allowed");
    CHECK_INT(capsa_policy_check(sb, "math_add", "{\"a\":1}", 7, &allowed, msg, sizeof(msg)), CAPSA_OK,
              "a dry-run check by flat name");
    CHECK_INT(allowed, 1, "the flat name is checked as the registered one");
    uint64_t used = 99, remaining = 99;
    CHECK_INT(capsa_policy_calls(sb, "math.add", &used, &remaining), CAPSA_OK, "counts of a pattern");
    CHECK_INT(used, 0, "the dry run spent nothing");
    CHECK_STR(js_value(sb, "return [await tools.math.add({a: 1, b: 2}), await math_add({a: 2, b: 2})]"),
              "[3,4]", "two calls within the budget");
    capsa_policy_calls(sb, "math.add", &used, &remaining);
    CHECK_INT(used, 2, "two used");
    CHECK_INT(remaining, 0, "none left");
    CHECK_STR(js_value(sb, "try { await math_add({a: 1, b: 1}) } catch (e) { return e.message }"),
              "\"Call limit reached for 'math.add': 2 of 2 used\"", "the budget spans runs");
    CHECK_INT(capsa_policy_check(sb, "math.add", "{\"a\":1}", 7, &allowed, msg, sizeof(msg)), CAPSA_OK,
              "a dry run when spent");
    CHECK_INT(allowed, 0, "would be denied");
    CHECK_STR(msg, "Call limit reached for 'math.add': 2 of 2 used", "saying the limit");
    CHECK_INT(capsa_policy_check(sb, "math.add", "{\"a\":1,\"a\":1}", 13, &allowed, NULL, 0), CAPSA_EINVAL,
              "a dry run with a duplicate key");
    char *counts = capsa_policy_counts_json(sb);
    CHECK_STR(counts, "[{\"pattern\":\"math.add\",\"max_calls\":2,\"used\":2,\"remaining\":0}]", "counts as JSON");
    capsa_free(counts);
    CHECK_INT(capsa_policy_calls(sb, "nope", &used, NULL), CAPSA_ENOENT, "an unknown pattern");
    capsa_policy_reset_counts(sb);
    CHECK_STR(js_value(sb, "return await math_add({a: 1, b: 1})"), "2", "budgets reset");
    CHECK_INT(capsa_policy_add(sb, "math/*", "[{\"param\":\"x\",\"op\":\"lte\",\"value\":1}]", 0), CAPSA_EINVAL,
              "a bad constraint");
    CHECK_INT(capsa_policy_add(sb, "math/*", NULL, 0), CAPSA_OK, "a pattern without constraints");
    CHECK_STR(js_value(sb, "return (await tools.math.mul({z: 1})).z"), "1", "math/* allows math/mul");
    CHECK_STR(js_value(sb, "try { await tools.call('math/mul', '{\"z\":1,\"z\":2}') } catch (e) { return e.code }"),
              "\"invalid_arguments\"", "strictness before the policy");
    capsa_sandbox_free(sb);
}

TEST(tool_errors_and_results)
{
    capsa_options o;
    capsa_options_init(&o);
    o.tool_max_result = 1000;
    capsa_sandbox *sb = new_sandbox(&o);
    add_tool(sb, "fail", NULL, tool_fail, NULL, 0, 0);
    add_tool(sb, "bad", NULL, tool_bad, NULL, 0, 0);
    add_tool(sb, "big", NULL, tool_big, (void *)(intptr_t)2000, 0, 0);
    add_tool(sb, "fits", NULL, tool_big, (void *)(intptr_t)1000, 0, 0);
    add_tool(sb, "silent", NULL, tool_silent, NULL, 0, 0);
    add_tool(sb, "slow", NULL, tool_sleep, (void *)(intptr_t)400, 0, 100);
    capsa_policy_add(sb, "*", NULL, 0);
    CHECK_STR(js_value(sb, "try { await fail() } catch (e) { return [e.name, e.code, e.message, e instanceof Error] }"),
              "[\"ToolError\",\"rate_limited\",\"slow down, please\",true]", "a tool's error with its code");
    CHECK_STR(js_value(sb, "try { await bad() } catch (e) { return e.code }"), "\"invalid_result\"",
              "a result that is not JSON");
    CHECK_STR(js_value(sb, "try { await big() } catch (e) { return e.code }"), "\"result_too_large\"",
              "a result over the limit");
    CHECK_STR(js_value(sb, "return (await fits()).length"), "998", "a result at the limit");
    CHECK_STR(js_value(sb, "try { await silent() } catch (e) { return e.code }"), "\"tool_error\"",
              "a callback that answers nothing");
    double t0 = now_ms();
    CHECK_STR(js_value(sb, "try { await slow() } catch (e) { return [e.code, e.message] }"),
              "[\"timeout\",\"tool 'slow' did not answer within 100 ms\"]", "a per-call timeout");
    double dt = now_ms() - t0;
    CHECK(dt < 350, "the script did not wait for the slow callback");
    CHECK_STR(js_value(sb, "return 1"), "1", "the sandbox goes on");
    capsa_sandbox_free(sb);

    /* A call's promise settles as a resolve function would: a result that is a
       thenable (through a script's Object.prototype.then) is adopted, as a
       Promise resolved with it would in Node. */
    sb = new_sandbox(NULL);
    add_tool(sb, "echo", NULL, tool_echo, NULL, CAPSA_TOOL_INLINE, 0);
    add_tool(sb, "fail", NULL, tool_fail, NULL, 0, 0);
    capsa_policy_add(sb, "*", NULL, 0);
    CHECK_STR(js_value(sb, "const p1 = echo({a: 1}); return [p1 instanceof Promise, (await p1).a]"),
              "[true,1]", "a result object");
    CHECK_STR(js_value(sb, "Object.prototype.then = function (ok) { delete Object.prototype.then; ok(42) };"
                           " return await echo({a: 1})"),
              "42", "a thenable result is adopted");
    CHECK_STR(js_value(sb, "const order = []; const p2 = echo({}).then(() => order.push('tool'));"
                           " Promise.resolve().then(() => order.push('tick')); await p2; return order"),
              "[\"tick\",\"tool\"]", "reactions run as jobs, after those already queued");
    CHECK_STR(js_value(sb, "try { await fail() } catch (e) { return e.code }"), "\"rate_limited\"",
              "a failure rejects");
    capsa_sandbox_free(sb);

    /* A big result within the default limit. */
    sb = new_sandbox(NULL);
    add_tool(sb, "huge", NULL, tool_big, (void *)(intptr_t)(5 << 20), 0, 0);
    capsa_policy_add(sb, "huge", NULL, 0);
    CHECK_STR(js_value(sb, "return (await huge()).length"), "5242878", "a 5 MiB result in one piece");
    capsa_sandbox_free(sb);
}

TEST(concurrency)
{
    capsa_sandbox *sb = new_sandbox(NULL);
    add_tool(sb, "sleepy", NULL, tool_sleep, (void *)(intptr_t)100, 0, 0);
    capsa_policy_add(sb, "sleepy", NULL, 0);
    double t0 = now_ms();
    CHECK_STR(js_value(sb, "const r = await Promise.all([0,1,2,3,4,5,6,7,8,9].map(i => sleepy({i})));"
                           "return r.map(x => x.i)"),
              "[0,1,2,3,4,5,6,7,8,9]", "10 concurrent calls, results in order");
    double dt = now_ms() - t0;
    char what[96];
    snprintf(what, sizeof(what), "10 calls of 100 ms take %.0f ms (8 workers: two rounds)", dt);
    CHECK(dt < 600, what);
    capsa_options o;
    capsa_options_init(&o);
    o.tool_concurrency = 10;
    capsa_sandbox *sb2 = new_sandbox(&o);
    add_tool(sb2, "sleepy", NULL, tool_sleep, (void *)(intptr_t)100, 0, 0);
    capsa_policy_add(sb2, "sleepy", NULL, 0);
    t0 = now_ms();
    CHECK_STR(js_value(sb2, "return (await Promise.all([...Array(10).keys()].map(i => sleepy({i})))).length"),
              "10", "with 10 workers");
    dt = now_ms() - t0;
    snprintf(what, sizeof(what), "10 calls of 100 ms on 10 workers take %.0f ms", dt);
    CHECK(dt < 300, what);
    /* A timer and calls on one loop: the timer fires while the calls are out. */
    CHECK_STR(js_value(sb2, "const order = []; setTimeout(() => order.push('timer'), 20);"
                            "await sleepy({}).then(() => order.push('call')); return order"),
              "[\"timer\",\"call\"]", "a timer fires while a call is in flight");
    /* The run's deadline while waiting for a call. */
    capsa_options_init(&o);
    o.timeout_ms = 150;
    capsa_sandbox *sb3 = new_sandbox(&o);
    add_tool(sb3, "slow", NULL, tool_sleep, (void *)(intptr_t)400, 0, 0);
    capsa_policy_add(sb3, "slow", NULL, 0);
    int rc;
    t0 = now_ms();
    run(sb3, "await slow()", &rc);
    dt = now_ms() - t0;
    CHECK_INT(rc, CAPSA_ETIMEOUT, "the run's time limit stops a run waiting for a call");
    CHECK(dt < 350, "promptly");
    CHECK_STR(js_value(sb3, "return 5"), "5", "and the sandbox is usable");
    capsa_sandbox_free(sb);
    capsa_sandbox_free(sb2);
    capsa_sandbox_free(sb3); /* waits for the slow callback still running */
}

TEST(step_mode)
{
    capsa_sandbox *sb = new_sandbox(NULL);
    add_tool(sb, "ext.get", NULL, NULL, NULL, 0, 0); /* no callback: the host resolves */
    add_tool(sb, "math.add", add_schema, tool_add, NULL, 0, 0);
    capsa_policy_add(sb, "**", NULL, 0);
    const capsa_result *r = NULL;
    const char code[] =
        "const log = [];"
        "setTimeout(() => log.push('timer'), 1000);"
        "const all = Promise.allSettled([ext_get({k: 1}), tools.ext.get({k: 2}), ext_get({k: 3}),"
        "  math_add({a: 1, b: 2})]);"
        "const r = await all; log.push('done');"
        "return [r.map(x => x.status === 'fulfilled' ? x.value : x.reason.code + ':' + x.reason.message), log]";
    int rc = capsa_run(sb, code, sizeof(code) - 1, NULL, &r);
    CHECK_INT(rc, CAPSA_PENDING, "the run waits for the host");
    CHECK(r != NULL && capsa_result_status(r) == CAPSA_PENDING, "a result with status pending");
    CHECK_INT(capsa_pending_count(sb), 3, "three calls wait for the host (the callback tool ran)");
    capsa_tool_call c[3];
    for (size_t i = 0; i < 3; i++) {
        c[i].struct_size = sizeof(c[i]);
        CHECK_INT(capsa_pending_call(sb, i, &c[i]), CAPSA_OK, "a pending call");
    }
    CHECK_STR(c[0].name, "ext.get", "its registered name");
    CHECK_STR(c[1].args, "{\"k\":2}", "its arguments");
    double timer = capsa_pending_timer_ms(sb);
    /* 1 s: long enough that a slow (sanitized, loaded) host has not passed it yet. */
    CHECK(timer >= 0 && timer <= 1000, "the next timer is known");
    CHECK_INT(capsa_run(sb, "1", 1, NULL, NULL), CAPSA_EINVAL, "no new run while one is pending");
    /* Out of order, one rejected, one left. */
    CHECK_INT(capsa_call_resolve(sb, c[2].id, "\"three\"", 7), CAPSA_OK, "resolve the third");
    CHECK_INT(capsa_call_reject(sb, c[0].id, "not_found", "no such key"), CAPSA_OK, "reject the first");
    CHECK_INT(capsa_call_resolve(sb, c[2].id, "1", 1), CAPSA_ENOENT, "a call settles once");
    CHECK_INT(capsa_call_resolve(sb, 99999, "1", 1), CAPSA_ENOENT, "an unknown id");
    rc = capsa_resume(sb, &r);
    CHECK_INT(rc, CAPSA_PENDING, "still one call out");
    CHECK_INT(capsa_pending_count(sb), 1, "the one left");
    capsa_pending_call(sb, 0, &c[0]);
    CHECK_STR(c[0].args, "{\"k\":2}", "is the second");
    timer = capsa_pending_timer_ms(sb);
    CHECK(timer >= 0 && timer <= 1000, "the timer is still ahead");
    usleep((useconds_t)(timer * 1000) + 20000);
    rc = capsa_resume(sb, &r); /* the timer is due: it runs, then the run waits again */
    CHECK_INT(rc, CAPSA_PENDING, "a timer ran, the call is still out");
    CHECK_INT(capsa_call_resolve(sb, c[0].id, "{\"v\":2}", 7), CAPSA_OK, "resolve the last");
    rc = capsa_resume(sb, &r);
    CHECK_INT(rc, CAPSA_OK, "the run completes");
    CHECK_STR(capsa_result_value(r), "[[\"not_found:no such key\",{\"v\":2},\"three\",3],[\"timer\",\"done\"]]",
              "every outcome in order, the timer first");
    capsa_stats st = { .struct_size = sizeof(st) };
    capsa_result_stats(r, &st);
    CHECK_INT(st.tool_calls, 4, "stats count the calls");
    CHECK_INT(capsa_resume(sb, &r), CAPSA_EINVAL, "nothing to resume");

    /* An invalid answer still settles the call; a reset abandons a pending run. */
    rc = capsa_run(sb, "try { await ext_get({}) } catch (e) { return e.code }", 53, NULL, &r);
    CHECK_INT(rc, CAPSA_PENDING, "pending again");
    capsa_tool_call one = { .struct_size = sizeof(one) };
    capsa_pending_call(sb, 0, &one);
    CHECK_INT(capsa_call_resolve(sb, one.id, "{oops", 5), CAPSA_EINVAL, "invalid JSON from the host");
    rc = capsa_resume(sb, &r);
    CHECK_STR(capsa_result_value(r), "\"invalid_result\"", "the script gets invalid_result");
    rc = capsa_run(sb, "globalThis.kept = 1; await ext_get({})", 38, NULL, &r);
    CHECK_INT(rc, CAPSA_PENDING, "pending");
    CHECK_INT(capsa_reset(sb), CAPSA_OK, "reset abandons it");
    CHECK_STR(js_value(sb, "return typeof kept"), "\"undefined\"", "fresh state");
    capsa_sandbox_free(sb);
}

/* Results the script has not collected are held by the host: a budget per
 * sandbox (by default its memory limit, at least 64 MiB) bounds them, and a call
 * whose result would go over it fails with resource_exhausted, its bytes freed at
 * once. Inline calls in a synchronous loop land their results before the script
 * can take any. */
TEST(pending_budget)
{
    capsa_options o;
    capsa_options_init(&o);
    o.memory_limit = 32u << 20;
    capsa_sandbox *sb = new_sandbox(&o);
    add_tool(sb, "padded", NULL, tool_padded, (void *)(intptr_t)(1 << 20), CAPSA_TOOL_INLINE, 0);
    capsa_policy_add(sb, "padded", NULL, 0);
    static const char code[] =
        "const ps = []; for (let i = 0; i < 150; i++) ps.push(padded({}).then(v => 'ok', e => e.code));"
        "const n = {}; for (const c of await Promise.all(ps)) n[c] = (n[c] || 0) + 1;"
        "return [n.ok | 0, n.resource_exhausted | 0, Object.keys(n).length]";
    long base = rss_kb();
    padded_peak_kb = base;
    int ok = -1, refused = -1, kinds = -1;
    sscanf(js_value(sb, code), "[%d,%d,%d]", &ok, &refused, &kinds);
    char what[160];
    snprintf(what, sizeof(what), "150 results of 1 MiB, 64 MiB budget: %d delivered, %d refused", ok,
             refused);
    CHECK(ok >= 32 && ok <= 64 && refused == 150 - ok && kinds == 2, what);
    snprintf(what, sizeof(what), "the host's resident size grew by %ld MiB while they were held",
             (padded_peak_kb - base) >> 10);
#ifdef __SANITIZE_ADDRESS__
    (void)what; /* ASan's quarantine keeps freed memory resident: the size says nothing */
#else
    CHECK(base > 0 && padded_peak_kb - base < (96 << 10), what);
#endif
    CHECK_STR(js_value(sb, "return await padded({})"), "1", "the budget is free again after the run");
    capsa_sandbox_free(sb);

    /* An explicit budget: exactly what fits is held. Results the host resolves
       (step mode) count too: over the budget, capsa_call_resolve says so and the
       script gets resource_exhausted. */
    capsa_options_init(&o);
    o.tool_max_pending = 3u << 20;
    sb = new_sandbox(&o);
    add_tool(sb, "padded", NULL, tool_padded, (void *)(intptr_t)(1 << 20), CAPSA_TOOL_INLINE, 0);
    add_tool(sb, "ext", NULL, NULL, NULL, 0, 0);
    capsa_policy_add(sb, "**", NULL, 0);
    CHECK_STR(js_value(sb, "const ps = []; for (let i = 0; i < 10; i++) ps.push(padded({}).then(v => 'ok', e => e.code));"
                           "const n = {}; for (const c of await Promise.all(ps)) n[c] = (n[c] || 0) + 1; return n"),
              "{\"ok\":2,\"resource_exhausted\":8}", "two results of 1 MiB fit in 3 MiB, not three");
    CHECK_CONTAINS(js_value(sb, "const three = [padded({}), padded({}), padded({})];"
                                "try { await Promise.all(three) } catch (e) { return e.message }"),
                   "budget is 3145728 bytes (tool_max_pending)", "the message names the budget");
    const capsa_result *r = NULL;
    static const char step[] = "return await Promise.all([ext({}), ext({})].map(p => p.then(v => 'ok', e => e.code)))";
    CHECK_INT(capsa_run(sb, step, sizeof(step) - 1, NULL, &r), CAPSA_PENDING, "two calls for the host");
    capsa_tool_call c[2] = { { .struct_size = sizeof(c[0]) }, { .struct_size = sizeof(c[1]) } };
    capsa_pending_call(sb, 0, &c[0]);
    capsa_pending_call(sb, 1, &c[1]);
    size_t n = 2u << 20;
    char *big = malloc(n);
    memset(big, ' ', n);
    big[0] = '0';
    CHECK_INT(capsa_call_resolve(sb, c[0].id, big, n), CAPSA_OK, "a result of 2 MiB is held");
    CHECK_INT(capsa_call_resolve(sb, c[1].id, big, n), CAPSA_ETOOBIG, "a second one is over the budget");
    CHECK_CONTAINS(capsa_errmsg(sb), "resource_exhausted", "saying what the script gets");
    free(big);
    CHECK_INT(capsa_resume(sb, &r), CAPSA_OK, "the run completes");
    CHECK_STR(capsa_result_value(r), "[\"ok\",\"resource_exhausted\"]", "the script got both outcomes");
    capsa_sandbox_free(sb);
}

/* Audit callback: the lines, concatenated. */
static char audit_seen[65536];
static size_t audit_len;
static void on_audit(void *ud, const char *line, size_t len)
{
    if (audit_len + len + 1 < sizeof(audit_seen)) {
        memcpy(audit_seen + audit_len, line, len);
        audit_len += len;
        audit_seen[audit_len++] = '\n';
        audit_seen[audit_len] = '\0';
    }
}

/* A sandbox whose audit lines go to on_audit, from empty. */
static capsa_sandbox *audited_sandbox(void)
{
    capsa_options o;
    capsa_options_init(&o);
    o.on_audit = on_audit;
    audit_len = 0;
    audit_seen[0] = '\0';
    return new_sandbox(&o);
}

TEST(audit)
{
    capsa_sandbox *sb = audited_sandbox();
    add_tool(sb, "math.add", add_schema, tool_add, NULL, 0, 0);
    add_tool(sb, "fail", NULL, tool_fail, NULL, 0, 0);
    capsa_policy_add(sb, "math.add", NULL, 0);
    CHECK_STR(js_value(sb, "await math_add({a: 1, b: 2}); try { await fail() } catch {} return 1"), "1",
              "an allowed and a denied call");
    char *log = NULL;
    size_t len = 0;
    CHECK_INT(capsa_fs_read(sb, "/log/actions.jsonl", &log, &len), CAPSA_OK, "the log exists");
    CHECK_CONTAINS(log, "\"event\":\"run_start\",\"run\":1}", "the run's start");
    CHECK_CONTAINS(log, "\"event\":\"tool_call\",\"run\":1,\"id\":1,\"tool\":\"math.add\",\"args\":{\"a\":1,\"b\":2},"
                        "\"decision\":\"allowed\",\"capability\":\"math.add\",\"outcome\":\"ok\",\"result_bytes\":1,",
                   "an allowed call");
    CHECK_CONTAINS(log, "\"tool\":\"fail\",\"args\":{},\"decision\":\"denied\",\"capability\":null,"
                        "\"reason\":\"No capability authorizes 'fail'. Granted: ['math.add']\",\"outcome\":\"error\","
                        "\"error_code\":\"permission_denied\"", "a denied call, with the reason");
    CHECK_CONTAINS(log, "\"event\":\"run_end\",\"run\":1,\"status\":\"CAPSA_OK\"", "the run's end");
    CHECK_CONTAINS(log, "\"tool_calls\":2}", "with its calls");
    int lines = 0;
    for (size_t i = 0; i < len; i++)
        lines += log[i] == '\n';
    CHECK_INT(lines, 4, "one line per event");
    CHECK_STR(audit_seen, log, "the callback got the same lines");
    capsa_free(log);
    CHECK_STR(js_value(sb, "return require('fs').readFileSync('/log/actions.jsonl', 'utf8').split('\\n').length"),
              "6", "the script can read its trail (4 lines, this run's start, and the end)");
    CHECK_STR(js_value(sb, "try { require('fs').writeFileSync('/log/actions.jsonl', '') } catch (e) { return e.code }"),
              "\"EPERM\"", "but not rewrite it");
    /* The log file is kept open between lines: a host that removes it gets a new
       one with the next line, and nothing is written to the removed one. */
    CHECK_INT(capsa_fs_remove(sb, "/log/actions.jsonl", 0), CAPSA_OK, "the host removes the log");
    CHECK_STR(js_value(sb, "await math_add({a: 2, b: 2}); return 1"), "1", "a call after the removal");
    CHECK_INT(capsa_fs_read(sb, "/log/actions.jsonl", &log, &len), CAPSA_OK, "a new log exists");
    CHECK_CONTAINS(log, "\"args\":{\"a\":2,\"b\":2}", "with the new call");
    CHECK_INT(strstr(log, "\"args\":{\"a\":1,\"b\":2}") == NULL, 1, "and not the old ones");
    CHECK_INT(strncmp(log, "{\"time\":", 8), 0, "starting with a whole line");
    capsa_free(log);
    capsa_sandbox_free(sb);

    /* Hashed arguments; the log off; quotas: fail closed. */
    capsa_options o;
    capsa_options_init(&o);
    o.audit_flags = CAPSA_AUDIT_HASH_ARGS;
    sb = echo_sandbox(&o);
    js_value(sb, "await echo({})");
    capsa_fs_read(sb, "/log/actions.jsonl", &log, &len);
    CHECK_CONTAINS(log, "\"args_bytes\":2,\"args_sha256\":\"44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a\"",
                   "the SHA-256 of the arguments instead of them");
    capsa_free(log);
    capsa_sandbox_free(sb);

    capsa_options_init(&o);
    o.audit_flags = CAPSA_AUDIT_NO_FILE;
    sb = echo_sandbox(&o);
    js_value(sb, "await echo({})");
    CHECK_INT(capsa_fs_read(sb, "/log/actions.jsonl", &log, &len), CAPSA_ENOENT, "no log file when off");
    capsa_sandbox_free(sb);

    capsa_options_init(&o);
    o.fs_max_bytes = 64 << 10;
    sb = echo_sandbox(&o);
    CHECK_STR(js_value(sb, "const fs = require('fs'); let n = 0;"
                           "try { for (;;) { fs.writeFileSync('/tmp/f' + n, 'x'.repeat(1000)); n++ } } catch {}"
                           "try { await echo({a: 1}); return 'called' } catch (e) { return e.code }"),
              "\"audit_unavailable\"", "a full filesystem: the call is refused (fail closed)");
    capsa_sandbox_free(sb);

    /* Sandboxes without tools write nothing to /log. */
    sb = new_sandbox(NULL);
    js_value(sb, "return 1");
    CHECK_INT(capsa_fs_read(sb, "/log/actions.jsonl", &log, &len), CAPSA_ENOENT, "no tools, no log");
    capsa_sandbox_free(sb);
}

/* Audit callback that keeps only sizes: the bytes and lines it got, the longest
 * line, and the lines holding `audit_count_needle`. */
static size_t audit_total, audit_lines, audit_longest, audit_needles;
static const char *audit_count_needle = "";
static void on_audit_count(void *ud, const char *line, size_t len)
{
    (void)ud;
    audit_total += len + 1;
    audit_lines++;
    if (len > audit_longest)
        audit_longest = len;
    size_t n = strlen(audit_count_needle);
    for (size_t i = 0; n && i + n <= len; i++) {
        if (memcmp(line + i, audit_count_needle, n) == 0) {
            audit_needles++;
            break;
        }
    }
}

/* Denied calls are bounded: their big arguments are logged by size and hash, and
 * after tool_max_denials (1000) in a run every further call of the run fails at
 * once with resource_exhausted, with one summary line instead of a line each. */
TEST(denial_budget)
{
    capsa_options o;
    capsa_options_init(&o);
    o.on_audit = on_audit_count;
    o.fs_max_bytes = 8u << 20;
    audit_total = audit_lines = audit_longest = audit_needles = 0;
    audit_count_needle = "\"event\":\"tool_denials\"";
    capsa_sandbox *sb = new_sandbox(&o);
    add_tool(sb, "echo", NULL, tool_echo, NULL, 0, 0);
    static const char code[] =
        "const pad = 'x'.repeat(64 << 10); const n = {};"
        "for (let i = 0; i < 1500; i++) {"
        "  try { await echo({pad}) } catch (e) { n[e.code] = (n[e.code] || 0) + 1 } }"
        "return [n.permission_denied | 0, n.resource_exhausted | 0, Object.keys(n).length]";
    CHECK_STR(js_value(sb, code), "[1000,500,2]",
              "1000 denials, then every call of the run is refused at once");
    char what[160];
    snprintf(what, sizeof(what), "1500 denied calls of 64 KiB gave %zu bytes of audit in %zu lines",
             audit_total, audit_lines);
    CHECK(audit_total < (1u << 20) && audit_lines >= 1000 && audit_lines < 1010, what);
    snprintf(what, sizeof(what), "the longest line is %zu bytes", audit_longest);
    CHECK(audit_longest < 4096, what);
    CHECK_INT(audit_needles, 1, "one summary line when the denials run out");
    char *log = NULL;
    size_t len = 0;
    CHECK_INT(capsa_fs_read(sb, "/log/actions.jsonl", &log, &len), CAPSA_OK, "the log");
    CHECK(log && strstr(log, "\"tool\":\"echo\",\"args_bytes\":65546,\"args_sha256\":\""),
          "big denied arguments are logged by size and hash");
    CHECK(log && !strstr(log, "xxxxxxxx"), "never whole");
    CHECK(log && strstr(log, "\"event\":\"tool_denials\",\"run\":1,\"denied\":1000,"),
          "the summary says how many");
    CHECK(log && strstr(log, "\"status\":\"CAPSA_OK\",\"wall_ms\":"),
          "the run ended normally");
    CHECK(log && strstr(log, "\"tool_calls\":1500,\"tool_calls_unaudited\":500}"),
          "its end counts the calls refused without a line");
    capsa_free(log);
    CHECK_STR(js_value(sb, "try { await echo({a: 1}) } catch (e) { return e.code }"),
              "\"permission_denied\"", "the next run has its own budget");
    capsa_sandbox_free(sb);
}

/* audit_max_bytes bounds what the callback gets over the sandbox's life: past it,
 * calls are refused before their tool runs (fail closed), and the room kept for
 * the lines of a run's end still takes them. */
TEST(audit_callback_cap)
{
    capsa_options o;
    capsa_options_init(&o);
    o.on_audit = on_audit_count;
    o.audit_max_bytes = 128u << 10;
    o.audit_flags = CAPSA_AUDIT_NO_FILE;
    audit_total = audit_lines = audit_longest = audit_needles = 0;
    audit_count_needle = "\"event\":\"run_end\"";
    capsa_sandbox *sb = echo_sandbox(&o);
    pthread_mutex_lock(&echo_lock);
    int before = echo_calls;
    pthread_mutex_unlock(&echo_lock);
    static const char code[] =
        "const pad = 'y'.repeat(8000); const n = {};"
        "for (let i = 0; i < 40; i++) { try { await echo({pad}); n.ok = (n.ok | 0) + 1 }"
        "  catch (e) { n[e.code] = (n[e.code] | 0) + 1; n.message = e.message } }"
        "return n";
    const char *v = js_value(sb, code);
    int ok = -1, refused = -1;
    sscanf(v, "{\"ok\":%d,\"audit_unavailable\":%d,", &ok, &refused);
    char what[200];
    snprintf(what, sizeof(what), "8 KB calls under a 128 KiB audit budget: %d made, %d refused", ok,
             refused);
    CHECK(ok >= 10 && ok <= 14 && ok + refused == 40, what);
    CHECK_CONTAINS(v, "the audit callback reached its audit_max_bytes", "the refusal says why");
    pthread_mutex_lock(&echo_lock);
    CHECK_INT(echo_calls - before, ok, "the refused calls never reached the tool");
    pthread_mutex_unlock(&echo_lock);
    snprintf(what, sizeof(what), "the callback got %zu bytes", audit_total);
    CHECK(audit_total <= (128u << 10), what);
    CHECK_INT(audit_needles, 1, "and the run's end");
    capsa_sandbox_free(sb);
}

/* CAPSA_AUDIT_KEEP: the lines a callback would get are kept, and capsa_audit_take
 * hands over those since its last call; within audit_max_bytes, as the callback. */
/* The lines sb kept since the last take, as a string the caller frees. */
static char *take_kept(capsa_sandbox *sb)
{
    const char *lines = NULL;
    size_t len = 0;
    capsa_audit_take(sb, &lines, &len);
    return strndup(lines ? lines : "", len);
}

TEST(audit_keep)
{
    capsa_options o;
    capsa_options_init(&o);
    o.audit_flags = CAPSA_AUDIT_KEEP;
    capsa_sandbox *sb = echo_sandbox(&o);
    const char *lines = "x";
    size_t len = 1;
    CHECK_INT(capsa_audit_take(sb, &lines, &len), CAPSA_OK, "a take before any run");
    CHECK(lines == NULL && len == 0, "gives nothing");
    js_value(sb, "await echo({a: 1}); return 1");
    CHECK_INT(capsa_audit_take(sb, &lines, &len), CAPSA_OK, "a take after a run");
    char *log = NULL;
    size_t log_len = 0;
    capsa_fs_read(sb, "/log/actions.jsonl", &log, &log_len);
    CHECK(lines && len == log_len && memcmp(lines, log, len) == 0,
          "gives the lines of /log/actions.jsonl, each ended by a newline");
    capsa_free(log);
    CHECK_INT(capsa_audit_take(sb, &lines, &len), CAPSA_OK, "a second take");
    CHECK(lines == NULL && len == 0, "gives nothing new");
    js_value(sb, "return 2");
    capsa_audit_take(sb, &lines, &len);
    CHECK(lines && strncmp(lines, "{\"time\":", 8) == 0 && lines[len - 1] == '\n',
          "the next run's lines, whole");
    char *copy = strndup(lines ? lines : "", len);
    CHECK_CONTAINS(copy, "\"event\":\"run_start\",\"run\":2}", "its start");
    CHECK(strstr(copy, "\"run\":1") == NULL, "and not the first run's");
    free(copy);
    CHECK_INT(capsa_audit_take(NULL, &lines, &len), CAPSA_EINVAL, "no sandbox");
    CHECK_INT(capsa_audit_take(sb, NULL, &len), CAPSA_EINVAL, "no place for the lines");
    CHECK_INT(capsa_audit_take(sb, &lines, NULL), CAPSA_EINVAL, "no place for their length");
    capsa_sandbox_free(sb);

    /* A sandbox without tools keeps the lines of its runs, as with a callback. */
    sb = new_sandbox(&o);
    js_value(sb, "return 1");
    copy = take_kept(sb);
    CHECK_CONTAINS(copy, "\"event\":\"run_end\",\"run\":1", "a run's lines without tools");
    free(copy);
    capsa_sandbox_free(sb);

    /* With a callback too, the callback gets them and nothing is kept. */
    o.on_audit = on_audit;
    audit_len = 0;
    sb = echo_sandbox(&o);
    js_value(sb, "await echo({}); return 1");
    capsa_audit_take(sb, &lines, &len);
    CHECK(len == 0 && audit_len > 0, "on_audit set: the callback gets the lines, none kept");
    capsa_sandbox_free(sb);

    /* audit_max_bytes: past it, calls are refused before their tool runs. */
    capsa_options_init(&o);
    o.audit_flags = CAPSA_AUDIT_KEEP | CAPSA_AUDIT_NO_FILE;
    o.audit_max_bytes = 64u << 10;
    sb = echo_sandbox(&o);
    const char *v = js_value(sb, "const pad = 'y'.repeat(8000); let refused = 0, message = '';"
                                 "for (let i = 0; i < 20; i++) { try { await echo({pad}) }"
                                 "  catch (e) { refused++; message = e.message } }"
                                 "return {refused, message}");
    CHECK_CONTAINS(v, "the kept audit lines reached their audit_max_bytes", "calls refused, saying why");
    capsa_audit_take(sb, &lines, &len);
    CHECK(len > 0 && len <= (64u << 10), "the lines kept stay within audit_max_bytes");
    capsa_sandbox_free(sb);

    /* Not carried by a checkpoint: a restored sandbox's reader is the restore's. */
    capsa_options_init(&o);
    o.audit_flags = CAPSA_AUDIT_KEEP;
    sb = new_sandbox(&o);
    js_value(sb, "return 1");
    char *blob = NULL;
    size_t blob_len = 0;
    capsa_sandbox *back = NULL;
    CHECK_INT(capsa_checkpoint(sb, &blob, &blob_len), CAPSA_OK, "a checkpoint of a keeping sandbox");
    CHECK_INT(capsa_sandbox_restore(engine, blob, blob_len, NULL, &back, NULL, 0), CAPSA_OK,
              "restored");
    capsa_options got;
    capsa_options_init(&got);
    capsa_sandbox_options(back, &got);
    CHECK_INT(got.audit_flags & CAPSA_AUDIT_KEEP, 0, "the restored sandbox keeps no lines");
    capsa_audit_take(back, &lines, &len);
    CHECK_INT(len, 0, "and has none of the original's");
    capsa_sandbox_free(back);
    /* Asked for by the restore, it keeps them. */
    capsa_restore_options ro;
    capsa_restore_options_init(&ro);
    ro.audit_flags = CAPSA_AUDIT_KEEP;
    CHECK_INT(capsa_sandbox_restore(engine, blob, blob_len, &ro, &back, NULL, 0), CAPSA_OK,
              "restored with CAPSA_AUDIT_KEEP");
    copy = take_kept(back);
    CHECK_CONTAINS(copy, "\"event\":\"restore\"", "the restore's own line is kept");
    free(copy);
    js_value(back, "return 2");
    copy = take_kept(back);
    CHECK_CONTAINS(copy, "\"event\":\"run_end\",\"run\":2", "and the next run's");
    free(copy);
    capsa_sandbox_free(back);
    ro.audit_flags = CAPSA_AUDIT_HASH_ARGS;
    char why[256];
    back = (capsa_sandbox *)1;
    CHECK_INT(capsa_sandbox_restore(engine, blob, blob_len, &ro, &back, why, sizeof(why)),
              CAPSA_EINVAL, "a restore's audit flag other than CAPSA_AUDIT_KEEP is refused");
    CHECK(back == NULL, "with no sandbox");
    CHECK_CONTAINS(why, "only CAPSA_AUDIT_KEEP", "saying which flag a restore may give");
    capsa_free(blob);
    capsa_sandbox_free(sb);

    capsa_options_init(&o);
    o.audit_flags = 8;
    capsa_sandbox *bad = NULL;
    CHECK_INT(capsa_sandbox_new(engine, &o, &bad), CAPSA_EINVAL, "an unknown audit flag is refused");
}

/* The trail in /log is the host's alone: the guest may read it, never add to it,
 * so no line of it is the guest's, whole or glued to one of the host's. */
TEST(audit_unforgeable)
{
    capsa_sandbox *sb = echo_sandbox(NULL);
    CHECK_STR(js_value(sb, "await echo({a: 1}); const fs = require('fs'); const out = [];"
                           "for (const f of [() => fs.appendFileSync('/log/actions.jsonl', '{\"event\":\"forged\",'),"
                           "  () => fs.appendFileSync('/log/actions.jsonl', '\\n{\"event\":\"forged\"}\\n'),"
                           "  () => fs.promises.appendFile('/log/actions.jsonl', 'x')]) {"
                           "  try { await f(); out.push('appended') } catch (e) { out.push(e.code) } }"
                           "await echo({a: 2});"
                           "const lines = fs.readFileSync('/log/actions.jsonl', 'utf8').split('\\n');"
                           "return [out, lines.pop(), lines.every(l => JSON.parse(l).time)]"),
              "[[\"EPERM\",\"EPERM\",\"EPERM\"],\"\",true]",
              "appending is refused; every line is the host's and parses");
    char *log = NULL;
    size_t len = 0;
    CHECK_INT(capsa_fs_read(sb, "/log/actions.jsonl", &log, &len), CAPSA_OK, "the log");
    CHECK(log && !strstr(log, "forged"), "nothing of the guest's is in it");
    capsa_free(log);
    capsa_sandbox_free(sb);
}

/* ---- allocation failure ------------------------------------------------------------- */

static test_fail_alloc failing = { -1, 0 };

TEST(no_reentry)
{
    capsa_sandbox *sb = new_sandbox(NULL);
    CHECK_INT(add_tool(sb, "self.call", NULL, tool_reenter, sb, CAPSA_TOOL_INLINE, 0), CAPSA_OK,
              "an inline tool that calls back into its sandbox");
    CHECK_INT(add_tool(sb, "self.worker", NULL, tool_reenter, sb, 0, 0), CAPSA_OK,
              "the same on a worker thread");
    CHECK_INT(capsa_policy_add(sb, "self.call", NULL, 0), CAPSA_OK, "granted");
    CHECK_INT(capsa_policy_add(sb, "self.worker", NULL, 0), CAPSA_OK, "granted too");
    const capsa_result *r = NULL;
    static const char code[] = "return [await tools.self.call(), await tools.self.worker()]";
    CHECK_INT(capsa_run(sb, code, sizeof(code) - 1, NULL, &r), CAPSA_OK, "the run completes");
    CHECK_STR(capsa_result_value(r), "[[1,1,1,1,1],[1,1,1,1,1]]",
              "every call into the sandbox from its own callback is CAPSA_EINVAL");
    CHECK_INT(capsa_run(sb, "return 2", 8, NULL, &r), CAPSA_OK, "the sandbox works after");
    CHECK_STR(capsa_result_value(r), "2", "and was not freed or reset by the callback");
    capsa_sandbox_free(sb);
}

TEST(allocation_failure)
{
    capsa_allocator a = { test_fail_realloc, test_fail_free, &failing };
    capsa_engine_options eo;
    capsa_engine_options_init(&eo);
    eo.allocator = &a;
    capsa_engine *e = NULL;
    CHECK_INT(capsa_engine_new(&eo, &e), CAPSA_OK, "an engine with a failing allocator");
    int ok_runs = 0, clean = 1;
    for (long k = 0; k < 400; k++) {
        capsa_sandbox *sb = NULL;
        __atomic_store_n(&failing.countdown, k, __ATOMIC_RELAXED);
        int rc = capsa_sandbox_new(e, NULL, &sb);
        if (rc != CAPSA_OK) {
            clean &= rc == CAPSA_ENOMEM && sb == NULL;
            continue;
        }
        rc = add_tool(sb, "math.add", add_schema, tool_add, NULL, 0, 0);
        clean &= rc == CAPSA_OK || rc == CAPSA_ENOMEM || rc == CAPSA_ENOSPC;
        capsa_policy_add(sb, "**", NULL, 0);
        const capsa_result *r = NULL;
        static const char code[] = "return await math_add({a: 1, b: 2})";
        rc = capsa_run(sb, code, sizeof(code) - 1, NULL, &r);
        clean &= rc == CAPSA_OK || rc == CAPSA_ESCRIPT || rc == CAPSA_ENOMEM;
        if (rc == CAPSA_OK && r && capsa_result_value(r) && strcmp(capsa_result_value(r), "3") == 0)
            ok_runs++;
        capsa_sandbox_free(sb);
    }
    __atomic_store_n(&failing.countdown, -1, __ATOMIC_RELAXED);
    CHECK(clean, "every failure is a documented code");
    CHECK(ok_runs > 0, "with enough memory the call works");
    capsa_engine_free(e);
}

/* Counts the calls that reach it, and answers {}. */
static int counted_calls;
static void tool_counted(void *ud, const capsa_tool_call *call, capsa_tool_reply *reply)
{
    (void)ud;
    (void)call;
    __atomic_add_fetch(&counted_calls, 1, __ATOMIC_RELAXED);
    capsa_tool_reply_json(reply, "{}", 2);
}

/* One name everywhere: '.' is canonical and '/' the same separator, for the
 * registry, the two JS forms, tools.call/describe/list, the policy, the budget
 * keys, the audit, the declarations and the shell's `tool`. */
TEST(names_one_separator)
{
    capsa_sandbox *sb = audited_sandbox();
    CHECK_INT(add_tool(sb, "stripe/charges/create", "{\"type\":\"object\",\"properties\":"
                                                    "{\"amount\":{\"type\":\"integer\"}}}",
                       tool_echo, NULL, CAPSA_TOOL_INLINE, 0),
              CAPSA_OK, "a name with '/'");
    CHECK_INT(add_tool(sb, "github.search_issues", NULL, tool_echo, NULL, CAPSA_TOOL_INLINE, 0),
              CAPSA_OK, "a name with '.'");
    CHECK_INT(add_tool(sb, "stripe.charges.create", NULL, tool_echo, NULL, 0, 0), CAPSA_EEXIST,
              "the same name with the other separator is taken");
    CHECK_CONTAINS(capsa_errmsg(sb), "taken by tool 'stripe.charges.create'",
                   "the message names the canonical tool");
    CHECK_INT(add_tool(sb, "github/search_issues", NULL, tool_echo, NULL, 0, 0), CAPSA_EEXIST,
              "and the other way round");
    CHECK_INT(add_tool(sb, "stripe.charges/create", NULL, tool_echo, NULL, 0, 0), CAPSA_EEXIST,
              "and mixed");
    CHECK_INT(add_tool(sb, "github_search.issues", NULL, tool_echo, NULL, 0, 0), CAPSA_EEXIST,
              "a different name with the same flat form is taken");
    CHECK_INT(capsa_policy_add(sb, "github.*", NULL, 0), CAPSA_OK, "the README's github.* loads");
    CHECK_INT(capsa_policy_add(sb, "stripe/charges/*",
                               "[{\"param\":\"amount\",\"op\":\"<=\",\"value\":1000}]", 5),
              CAPSA_OK, "a pattern with '/'");
    CHECK_STR(js_value(sb, "return tools.list().map(t => t.name)"),
              "[\"stripe.charges.create\",\"github.search_issues\"]", "tools.list() gives canonical names");
    CHECK_STR(js_value(sb, "return [tools.describe('stripe/charges/create').name, "
                           "tools.describe('stripe.charges.create').types, "
                           "tools.describe('stripe_charges_create').flat]"),
              "[\"stripe.charges.create\",\"/tools/stripe.charges.create.d.ts\",\"stripe_charges_create\"]",
              "describe takes either separator or the flat name");
    CHECK_STR(js_value(sb, "{ const r = []; for (const f of [() => tools.stripe.charges.create({amount: 1}),"
                           " () => stripe_charges_create({amount: 2}),"
                           " () => tools.call('stripe/charges/create', {amount: 3}),"
                           " () => tools.call('stripe.charges.create', {amount: 4}),"
                           " () => tools.call('stripe.charges/create', {amount: 5})]) r.push((await f()).amount);"
                           " return r }"),
              "[1,2,3,4,5]", "every form of the name reaches the tool");
    CHECK_CONTAINS(audit_seen, "\"id\":3,\"tool\":\"stripe.charges.create\",\"args\":{\"amount\":3},"
                               "\"decision\":\"allowed\",\"capability\":\"stripe.charges.*\"",
                   "the audit names the canonical tool and pattern, whatever the script wrote");
    CHECK(strstr(audit_seen, "\"tool\":\"stripe/") == NULL, "no audit line names a tool with '/'");

    /* A name written with '/' cannot dodge a pattern or a constraint written with '.'. */
    CHECK_STR(js_value(sb, "{ const r = []; for (const n of ['stripe/charges/create', 'stripe.charges.create',"
                           " 'stripe_charges_create']) { try { await tools.call(n, {amount: 5000}) }"
                           " catch (e) { r.push(e.code) } } return r }"),
              "[\"permission_denied\",\"permission_denied\",\"permission_denied\"]",
              "the constraint holds for every spelling of the name");
    CHECK_CONTAINS(js_value(sb, "try { await tools.call('stripe/charges/create', {amount: 5000}) }"
                                " catch (e) { return e.message }"),
                   "'stripe.charges.create' matched 'stripe.charges.*' but failed: amount <= 1000 (got 5000)",
                   "the denial names the canonical tool and pattern");
    uint64_t used = 0, remaining = 0;
    CHECK_INT(capsa_policy_calls(sb, "stripe.charges.*", &used, &remaining), CAPSA_OK,
              "the budget's key with '.'");
    CHECK_INT(used, 5, "the five allowed calls were counted, under one capability");
    CHECK_INT(capsa_policy_calls(sb, "stripe/charges/*", &used, &remaining), CAPSA_OK,
              "the same key with '/'");
    CHECK_INT(remaining, 0, "its budget is spent");
    int allowed = 1;
    char msg[512];
    CHECK_INT(capsa_policy_check(sb, "github/search_issues", "{}", 2, &allowed, msg, sizeof(msg)),
              CAPSA_OK, "a dry run under the '/' spelling");
    CHECK_INT(allowed, 1, "github.* allows github/search_issues");
    CHECK_STR(msg, "'github.search_issues' allowed by 'github.*'", "named canonically");
    CHECK_INT(capsa_policy_check(sb, "github/issues/other", "{}", 2, &allowed, msg, sizeof(msg)),
              CAPSA_OK, "a dry run of an unregistered name");
    CHECK_INT(allowed, 0, "'*' takes one segment only");
    CHECK_CONTAINS(msg, "No capability authorizes 'github.issues.other'", "its name, canonical");
    char *data = NULL;
    size_t len = 0;
    CHECK_INT(capsa_fs_read(sb, "/tools/stripe.charges.create.d.ts", &data, &len), CAPSA_OK,
              "the declarations are under the canonical name");
    capsa_free(data);
    CHECK_INT(capsa_fs_read(sb, "/tools/index.d.ts", &data, &len), CAPSA_OK, "index.d.ts");
    CHECK_CONTAINS(data, "  stripe: {\n    charges: {\n      create: typeof stripe_charges_create;",
                   "and the namespaces nest by segment");
    capsa_free(data);

    /* The shell's `tool` takes either spelling, its values typed by the schema. */
    const capsa_result *r = NULL;
    const char *cmd = "tool stripe/charges/create --amount 7 && tool --help stripe/charges/create";
    CHECK_INT(capsa_shell(sb, cmd, NULL, 0, &r), CAPSA_OK, "tool NAME with '/'");
    CHECK_INT(capsa_result_exit_code(r), 1, "the budget is spent: the call fails");
    CHECK_CONTAINS(capsa_result_stderr(r, NULL), "Call limit reached for 'stripe.charges.*'",
                   "with the policy's message");
    capsa_policy_reset_counts(sb);
    CHECK_INT(capsa_shell(sb, cmd, NULL, 0, &r), CAPSA_OK, "again with budget left");
    CHECK_CONTAINS(capsa_result_stdout(r, NULL), "\"amount\": 7", "the number went as a number");
    CHECK_CONTAINS(capsa_result_stdout(r, NULL), "usage: tool stripe.charges.create",
                   "--help found the tool by its '/' spelling");
    capsa_sandbox_free(sb);
}

/* Every call's arguments are validated against the tool's schema on the host,
 * before the policy and before the tool; a failure is invalid_arguments with the
 * path and the rule, audited, and spends no budget. */
TEST(arguments_schema)
{
    capsa_sandbox *sb = audited_sandbox();
    static const char forms[] =
        "{\"type\":\"object\",\"$defs\":{\"item\":{\"type\":\"object\",\"properties\":"
        "{\"name\":{\"type\":\"string\",\"minLength\":1}},\"required\":[\"name\"],"
        "\"additionalProperties\":false}},"
        "\"properties\":{\"q\":{\"type\":\"string\",\"pattern\":\"^[a-z]+$\"},"
        "\"n\":{\"type\":\"integer\",\"minimum\":1,\"exclusiveMaximum\":100},"
        "\"mode\":{\"enum\":[\"exact\",\"fast\"]},"
        "\"pair\":{\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\"},{\"type\":\"number\"}],"
        "\"items\":false},"
        "\"items\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/item\"},\"maxItems\":3},"
        "\"id\":{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}},"
        "\"required\":[\"q\"],\"additionalProperties\":false}";
    counted_calls = 0;
    CHECK_INT(add_tool(sb, "db.find", forms, tool_counted, NULL, 0, 0), CAPSA_OK,
              "a 2020-12 schema compiles");
    CHECK_INT(capsa_policy_add(sb, "db.*", "[{\"param\":\"n\",\"op\":\"<=\",\"value\":10}]", 100),
              CAPSA_OK, "a policy with a constraint");
    CHECK_STR(js_value(sb, "return (await db_find({q: 'abc', n: 5, mode: 'fast', pair: ['a', 1],"
                           " items: [{name: 'x'}], id: 3})) !== undefined"),
              "true", "valid arguments reach the tool");
    CHECK_INT(counted_calls, 1, "once");
    struct { const char *args, *message; } bad[] = {
        { "{n: 5}", "/: missing required property 'q'" },
        { "{q: 5}", "/q: expected string, got number" },
        { "{q: 'ABC'}", "/q: " },
        { "{q: 'a', n: 0}", "/n: " },
        { "{q: 'a', n: 100}", "/n: " },
        { "{q: 'a', n: 2.5}", "/n: expected integer" },
        { "{q: 'a', mode: 'slow'}", "/mode: " },
        { "{q: 'a', pair: ['a', 'b']}", "/pair/1: expected number, got string" },
        { "{q: 'a', pair: ['a', 1, 2]}", "/pair" },
        { "{q: 'a', items: [{name: 'x'}, {name: ''}]}", "/items/1/name: " },
        { "{q: 'a', items: [{name: 'x', extra: 1}]}", "/items/0: property 'extra' is not allowed" },
        { "{q: 'a', items: [{}, {}, {}, {}]}", "/items: " },
        { "{q: 'a', id: true}", "/id: " },
        { "{q: 'a', other: 1}", "/: property 'other' is not allowed" },
        { NULL, NULL },
    };
    for (int i = 0; bad[i].args; i++) {
        char code[512];
        snprintf(code, sizeof(code),
                 "try { await db_find(%s); return 'called' } catch (e) { return [e.code, e.message] }",
                 bad[i].args);
        const char *v = js_value(sb, code);
        CHECK_CONTAINS(v, "[\"invalid_arguments\",\"the arguments of 'db.find' do not match its schema: ",
                       bad[i].args);
        CHECK_CONTAINS(v, bad[i].message, bad[i].args);
    }
    CHECK_INT(counted_calls, 1, "no invalid call reached the tool");
    uint64_t used = 9;
    capsa_policy_calls(sb, "db.*", &used, NULL);
    CHECK_INT(used, 1, "and none spent budget: the schema comes before the policy");
    CHECK_CONTAINS(audit_seen, "\"tool\":\"db.find\",\"args\":{\"q\":5},\"decision\":\"denied\","
                               "\"capability\":null,\"reason\":\"/q: expected string, got number\","
                               "\"outcome\":\"error\",\"error_code\":\"invalid_arguments\"",
                   "an invalid call is audited as denied, with the validator's reason");
    /* Valid for the schema, refused by the policy: both checks apply. */
    CHECK_STR(js_value(sb, "try { await db_find({q: 'a', n: 50}) } catch (e) { return e.code }"),
              "\"permission_denied\"", "schema-valid but policy-denied");
    CHECK_INT(counted_calls, 1, "not called either");
    /* JSON text through tools.call is checked the same way. */
    CHECK_CONTAINS(js_value(sb, "try { await tools.call('db/find', '{\"q\":\"a\",\"n\":\"5\"}') }"
                                " catch (e) { return e.message }"),
                   "/n: expected integer, got string", "JSON text, by the '/' name");
    /* Values past the validator's bounds are refused, never half-checked. */
    CHECK_CONTAINS(js_value(sb, "{ let v = 'x'; for (let i = 0; i < 300; i++) v = [v];"
                                "try { await db_find({q: 'a', deep: v}) } catch (e) { return [e.code, e.message] } }"),
                   "/: property 'deep' is not allowed", "a deep value where none is allowed");
    CHECK_INT(add_tool(sb, "any.thing", "{\"type\":\"object\",\"$defs\":{\"n\":{\"items\":"
                                        "{\"$ref\":\"#/$defs/n\"}}},\"properties\":{\"v\":"
                                        "{\"$ref\":\"#/$defs/n\"}}}", tool_counted, NULL, 0, 0),
              CAPSA_OK, "a recursive schema that follows arrays all the way down");
    capsa_policy_add(sb, "any.*", NULL, 0);
    CHECK_CONTAINS(js_value(sb, "{ let v = 1; for (let i = 0; i < 300; i++) v = [v];"
                                "try { await any_thing({v}); return 'called' } catch (e) { return [e.code, e.message] } }"),
                   "the schema goes deeper than 256 levels here", "refused by the validator's depth bound");
    CHECK_INT(counted_calls, 1, "without calling the tool");

    /* Draft-07 by $schema. */
    CHECK_INT(add_tool(sb, "old.tool", "{\"$schema\":\"http://json-schema.org/draft-07/schema#\","
                                       "\"type\":\"object\",\"properties\":{\"t\":{\"type\":\"array\","
                                       "\"items\":[{\"type\":\"string\"}],\"additionalItems\":false}}}",
                       tool_counted, NULL, 0, 0),
              CAPSA_OK, "a draft-07 schema");
    capsa_policy_add(sb, "old.*", NULL, 0);
    CHECK_CONTAINS(js_value(sb, "try { await old_tool({t: ['a', 'b']}) } catch (e) { return e.message }"),
                   "/t", "draft-07's tuple items are asserted");
    capsa_sandbox_free(sb);
}

/* A schema the validator cannot compile is refused when the tool is added, with
 * the validator's message. */
TEST(schema_refused_at_add)
{
    capsa_sandbox *sb = new_sandbox(NULL);
    struct { const char *schema, *message; } bad[] = {
        { "{\"type\":\"object\",\"properties\":{\"q\":{\"type\":\"strin\"}}}",
          "tool 'b.t': parameters: #/properties/q/type: unknown type 'strin'" },
        { "{\"type\":\"object\",\"unevaluatedProperties\":false}", "unevaluatedProperties" },
        { "{\"type\":\"object\",\"properties\":{\"q\":{\"$ref\":\"https://example.com/s.json\"}}}",
          "#/properties/q/$ref" },
        { "{\"type\":\"object\",\"properties\":{\"q\":{\"$ref\":\"#/$defs/missing\"}}}", "missing" },
        { "{\"type\":\"object\",\"properties\":{\"q\":{\"pattern\":\"(?=a)\"}}}", "#/properties/q/pattern" },
        { "{\"type\":\"object\",\"properties\":{\"q\":{\"items\":[{}]}}}", "#/properties/q/items" },
        { "{\"type\":\"object\",\"$ref\":\"#\"}", "$ref" },
        { "{\"type\":\"object\",\"required\":\"q\"}", "#/required" },
        { "{\"type\":\"object\",\"minimum\":\"1\"}", "#/minimum" },
        { "{\"$schema\":\"http://example.com/other\"}", "$schema" },
        { NULL, NULL },
    };
    for (int i = 0; bad[i].schema; i++) {
        CHECK_INT(add_tool(sb, "b.t", bad[i].schema, tool_echo, NULL, 0, 0), CAPSA_EINVAL, bad[i].schema);
        CHECK_CONTAINS(capsa_errmsg(sb), bad[i].message, bad[i].schema);
    }
    CHECK_STR(js_value(sb, "return tools.list().length"), "0", "no refused tool was registered");
    capsa_sandbox_free(sb);
}

/* A result's schema (capsa_tool_def.returns) is the declared return type; it is
 * compiled as parameters is, and refused the same way, but never checked. */
TEST(declared_result)
{
    capsa_sandbox *sb = new_sandbox(NULL);
    capsa_tool_def d;
    capsa_tool_def_init(&d);
    d.name = "w.get";
    d.fn = tool_echo;
    d.returns = "{\"type\":\"object\",\"properties\":{\"temp\":{\"type\":\"number\"},"
                "\"sky\":{\"$ref\":\"#/$defs/sky\"}},\"required\":[\"temp\"],"
                "\"$defs\":{\"sky\":{\"enum\":[\"clear\",\"rain\"]}}}";
    CHECK_INT(capsa_tool_add(sb, &d), CAPSA_OK, "a tool with a result schema");
    capsa_policy_add(sb, "w.get", NULL, 0);
    char *data = NULL;
    size_t len = 0;
    CHECK_INT(capsa_fs_read(sb, "/tools/w.get.d.ts", &data, &len), CAPSA_OK, "its declarations");
    CHECK_CONTAINS(data, "export declare type WGetResult_sky = \"clear\" | \"rain\";",
                   "the result's $defs are named types of their own");
    CHECK_CONTAINS(data, "export declare type WGetResult = {\n  temp: number;\n  sky?: WGetResult_sky;\n};",
                   "the result's type");
    CHECK_CONTAINS(data, "export declare function w_get(args?: WGetArgs): Promise<WGetResult>;",
                   "the function returns a promise of it");
    capsa_free(data);
    /* Declared, not checked: a result that does not match still arrives. */
    CHECK_STR(js_value(sb, "return (await tools.w.get({x: 1})).x"), "1", "the result is not checked");
    struct { const char *schema, *message; } bad[] = {
        { "{\"type\":\"strin\"}", "tool 'w.bad': returns: #/type: unknown type 'strin'" },
        { "[1]", "tool 'w.bad': returns: the schema must be a JSON object" },
        { "{\"a\":1,\"a\":2}", "tool 'w.bad': returns: " },
        { NULL, NULL },
    };
    for (int i = 0; bad[i].schema; i++) {
        d.name = "w.bad";
        d.returns = bad[i].schema;
        CHECK_INT(capsa_tool_add(sb, &d), CAPSA_EINVAL, bad[i].schema);
        CHECK_CONTAINS(capsa_errmsg(sb), bad[i].message, bad[i].schema);
    }
    CHECK_STR(js_value(sb, "return tools.list().length"), "1", "no refused tool was registered");
    capsa_sandbox_free(sb);
}

/* The declarations say in TypeScript what the schema the calls are checked against
 * says: every form the validator supports has a type. */
TEST(declarations_schema_forms)
{
    capsa_sandbox *sb = new_sandbox(NULL);
    static const char forms[] =
        "{\"type\":\"object\",\"description\":\"All the forms.\","
        "\"$defs\":{\"Point\":{\"type\":\"object\",\"description\":\"A point.\",\"properties\":"
        "{\"x\":{\"type\":\"number\"},\"y\":{\"type\":\"number\"}},\"required\":[\"x\",\"y\"],"
        "\"additionalProperties\":false},"
        "\"Tree\":{\"type\":\"object\",\"properties\":{\"kids\":{\"type\":\"array\",\"items\":{\"$ref\":\"#/$defs/Tree\"}}}},"
        "\"not-ident\":{\"type\":\"string\"}},"
        "\"properties\":{"
        "\"mode\":{\"enum\":[\"a\",\"b\",1,null]},"
        "\"fixed\":{\"const\":{\"k\":[1,\"x\"]}},"
        "\"id\":{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]},"
        "\"one\":{\"oneOf\":[{\"type\":\"boolean\"},{\"type\":\"null\"}]},"
        "\"both\":{\"allOf\":[{\"$ref\":\"#/$defs/Point\"},{\"type\":\"object\",\"properties\":{\"z\":{\"type\":\"number\"}}}]},"
        "\"either\":{\"type\":\"object\",\"properties\":{\"t\":{\"type\":\"string\"}},\"anyOf\":[{\"$ref\":\"#/$defs/Point\"},{\"type\":\"null\"}]},"
        "\"pt\":{\"$ref\":\"#/$defs/Point\"},"
        "\"tree\":{\"$ref\":\"#/$defs/Tree\"},"
        "\"odd\":{\"$ref\":\"#/$defs/not-ident\"},"
        "\"ptr\":{\"$ref\":\"#/properties/mode\"},"
        "\"pair\":{\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\"},{\"type\":[\"number\",\"null\"]}],\"items\":false,\"minItems\":1},"
        "\"head\":{\"type\":\"array\",\"prefixItems\":[{\"type\":\"string\"}],\"items\":{\"type\":\"boolean\"},\"minItems\":1},"
        "\"list\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}},"
        "\"map\":{\"type\":\"object\",\"additionalProperties\":{\"type\":\"integer\"}},"
        "\"pat\":{\"type\":\"object\",\"patternProperties\":{\"^x\":{\"type\":\"string\"}},\"additionalProperties\":false},"
        "\"empty\":{\"type\":\"object\",\"additionalProperties\":false},"
        "\"open\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},\"additionalProperties\":true},"
        "\"self\":{\"$ref\":\"#\"},"
        "\"n\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":10,\"description\":\"how many\"},"
        "\"s\":{\"type\":\"string\",\"pattern\":\"^a*/$\",\"format\":\"email\"},"
        "\"nothing\":false,\"anything\":true,"
        "\"maybe\":{\"type\":[\"string\",\"null\"],\"anyOf\":[{\"minLength\":1},{\"type\":\"null\"}]},"
        "\"neg\":{\"not\":{\"type\":\"string\"}}},"
        "\"required\":[\"mode\",\"pt\"],\"additionalProperties\":false}";
    CHECK_INT(add_tool(sb, "forms/all", forms, tool_echo, NULL, 0, 0), CAPSA_OK, "the schema compiles");
    CHECK_INT(add_tool(sb, "old.d7", "{\"$schema\":\"http://json-schema.org/draft-07/schema#\","
                                     "\"type\":\"object\",\"definitions\":{\"P\":{\"type\":\"string\"}},"
                                     "\"properties\":{\"t\":{\"type\":\"array\",\"items\":[{\"type\":\"string\"}],"
                                     "\"additionalItems\":false},\"p\":{\"$ref\":\"#/definitions/P\"}}}",
                       tool_echo, NULL, 0, 0),
              CAPSA_OK, "a draft-07 schema");
    CHECK_INT(add_tool(sb, "ab_c", NULL, tool_echo, NULL, 0, 0), CAPSA_OK, "ab_c");
    CHECK_INT(add_tool(sb, "abC", NULL, tool_echo, NULL, 0, 0), CAPSA_OK, "abC: another flat name, "
              "the same PascalCase");
    char *d = NULL;
    size_t len;
    CHECK_INT(capsa_fs_read(sb, "/tools/forms.all.d.ts", &d, &len), CAPSA_OK, "the tool's file");
    struct { const char *want, *what; } lines[] = {
        { "/** A point. */\nexport declare type FormsAllArgs_Point = {\n  x: number;\n  y: number;\n};\n",
          "a $defs member is a named type, with its description" },
        { "export declare type FormsAllArgs_Tree = {\n  kids?: Array<FormsAllArgs_Tree>;\n};\n",
          "a recursive $defs member refers to itself" },
        { "/** All the forms. */\nexport declare type FormsAllArgs = {\n", "the arguments' type" },
        { "  mode: \"a\" | \"b\" | 1 | null;\n", "enum: a union of literals, required" },
        { "  fixed?: {\"k\":[1,\"x\"]};\n", "const: a literal, optional" },
        { "  id?: string | number;\n", "anyOf: a union" },
        { "  one?: boolean | null;\n", "oneOf: a union" },
        { "  both?: FormsAllArgs_Point & {\n    z?: number;\n  };\n", "allOf: an intersection" },
        { "  either?: {\n    t?: string;\n  } & (FormsAllArgs_Point | null);\n",
          "a type beside anyOf: intersected, the union in parentheses" },
        { "  pt: FormsAllArgs_Point;\n", "$ref to $defs: the named type" },
        { "  odd?: string;\n", "a $defs name that is not an identifier: inlined" },
        { "  ptr?: \"a\" | \"b\" | 1 | null;\n", "$ref by JSON Pointer: inlined" },
        { "  /** @minItems 1 */\n  pair?: [string, (number | null)?];\n",
          "prefixItems with items false: a closed tuple, members past minItems optional" },
        { "  head?: [string, ...Array<boolean>];\n", "prefixItems then items: a tuple with a rest" },
        { "  list?: Array<number>;\n", "items alone: an array" },
        { "  map?: Record<string, number>;\n", "additionalProperties: an index signature" },
        { "  pat?: Record<string, string>;\n", "patternProperties: an index signature" },
        { "  empty?: Record<string, never>;\n", "no members allowed" },
        { "  open?: {\n    a?: string;\n    [key: string]: unknown;\n  };\n",
          "additionalProperties true beside properties: an index signature of unknown" },
        { "  self?: FormsAllArgs;\n", "$ref to the root: the arguments' own type" },
        { "  /** how many\n   * @minimum 1\n   * @maximum 10 */\n  n?: number;\n",
          "description and bounds as JSDoc; integer is number" },
        { "  /** @pattern ^a*\\/$\n   * @format email */\n  s?: string;\n",
          "the pattern in the JSDoc, its */ defused" },
        { "  nothing?: never;\n  anything?: unknown;\n", "false is never, true unknown" },
        { "  maybe?: string | null;\n", "a union member that says nothing absorbs the union" },
        { "  neg?: unknown;\n", "not has no type" },
        { "};\n/** a test tool */\nexport declare function forms_all(args: FormsAllArgs): Promise<any>;\n",
          "additionalProperties false: no index signature; required members: args required" },
        { NULL, NULL },
    };
    for (int i = 0; lines[i].want; i++)
        CHECK_CONTAINS(d, lines[i].want, lines[i].what);
    CHECK(!strstr(d, "not-ident ="), "no named type for a name that is not an identifier");
    capsa_free(d);
    CHECK_INT(capsa_fs_read(sb, "/tools/index.d.ts", &d, &len), CAPSA_OK, "index.d.ts");
    CHECK_CONTAINS(d, "declare type OldD7Args_P = string;\ndeclare type OldD7Args = {\n"
                      "  t?: [string?];\n  p?: OldD7Args_P;\n};\n",
                   "draft-07: definitions and tuple items");
    CHECK_CONTAINS(d, "declare type AbCArgs = Record<string, unknown>;\n/** a test tool */\n"
                      "declare function ab_c(args?: AbCArgs)",
                   "the first of two tools whose PascalCase is the same");
    CHECK_CONTAINS(d, "declare type AbCArgs2 = Record<string, unknown>;\n/** a test tool */\n"
                      "declare function abC(args?: AbCArgs2)",
                   "the second gets a number: index.d.ts declares no name twice");
    CHECK_CONTAINS(d, "declare type FormsAllArgs_Point = {", "named types are in index.d.ts too");
    capsa_free(d);
    capsa_sandbox_free(sb);
}

int main(void)
{
    if (capsa_engine_new(NULL, &engine) != CAPSA_OK) {
        fprintf(stderr, "cannot create an engine\n");
        return 1;
    }
    RUN(registry_names);
    RUN(declarations);
    RUN(arguments_exact_and_strict);
    RUN(denials_and_budgets);
    RUN(tool_errors_and_results);
    RUN(concurrency);
    RUN(step_mode);
    RUN(pending_budget);
    RUN(audit);
    RUN(denial_budget);
    RUN(audit_callback_cap);
    RUN(audit_keep);
    RUN(audit_unforgeable);
    RUN(no_reentry);
    RUN(names_one_separator);
    RUN(arguments_schema);
    RUN(schema_refused_at_add);
    RUN(declarations_schema_forms);
    RUN(declared_result);
    RUN(allocation_failure);
    capsa_engine_free(engine);
    return test_summary("test_tools");
}
