/* The MCP client's C API (include/capsa_net.h): its bad input, one client shared by
 * two sandboxes, the log, the status, generations, and the servers stopped and
 * reaped by capsa_mcp_client_free. The upstream is the hostile fake server of
 * tests/mcp_client (node; its path from CAPSA_FAKE_MCP, else the source tree's). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capsa_net.h"
#include "test.h"

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static char log_text[1 << 16];

static void on_log(void *ud, const char *server, int kind, const char *text, size_t len)
{
    pthread_mutex_lock(&log_lock);
    size_t n = strlen(log_text);
    snprintf(log_text + n, sizeof(log_text) - n, "%s %d %.*s\n", server, kind, (int)len, text);
    pthread_mutex_unlock(&log_lock);
}

/* Whether the log holds s. */
static int logged(const char *s)
{
    pthread_mutex_lock(&log_lock);
    int yes = strstr(log_text, s) != NULL;
    pthread_mutex_unlock(&log_lock);
    return yes;
}

TEST(bad_input)
{
    capsa_mcp_options_init(NULL);
    capsa_mcp_client_free(NULL);
    CHECK_INT(capsa_mcp_client_new(NULL, NULL), CAPSA_EINVAL, "no place for the client");
    capsa_mcp_options o;
    capsa_mcp_options_init(&o);
    capsa_mcp_client *c = (capsa_mcp_client *)1;
    o.struct_size = 3;
    CHECK_INT(capsa_mcp_client_new(&o, &c), CAPSA_EINVAL, "options of an unknown size");
    CHECK(c == NULL, "no client on failure");
    capsa_mcp_options_init(&o);
    o.max_message = 10;
    CHECK_INT(capsa_mcp_client_new(&o, &c), CAPSA_EINVAL, "a max_message under 1 KiB");
    CHECK_INT(capsa_mcp_client_new(NULL, &c), CAPSA_OK, "a client with the defaults");
    CHECK_INT(capsa_mcp_client_configure(NULL, "{}", 2), CAPSA_EINVAL, "no client to configure");
    CHECK_INT(capsa_mcp_client_configure(c, NULL, 0), CAPSA_EINVAL, "no configuration");
    CHECK_INT(capsa_mcp_client_configure(c, "{\"mcpServers\"", 13), CAPSA_EINVAL, "not JSON");
    CHECK_CONTAINS(capsa_mcp_client_errmsg(c), "not JSON", "the message says so");
    const char *bad = "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"cwd\": 5}}}";
    CHECK_INT(capsa_mcp_client_configure(c, bad, strlen(bad)), CAPSA_EINVAL, "a cwd that is a number");
    CHECK_CONTAINS(capsa_mcp_client_errmsg(c), "mcpServers.a.cwd: must be a directory's path", "the field is named");
    const char *nul = "{\"mcpServers\": {\"a\": {\"command\": \"x\\u0000y\"}}}";
    CHECK_INT(capsa_mcp_client_configure(c, nul, strlen(nul)), CAPSA_EINVAL, "a command with a NUL byte");
    const char *ok = "{\"mcpServers\": {\"a\": {\"command\": \"x\", \"disabled\": true}}}";
    CHECK_INT(capsa_mcp_client_configure(c, ok, strlen(ok)), CAPSA_OK, "a disabled server");
    CHECK_INT(capsa_mcp_client_configure(c, ok, strlen(ok)), CAPSA_EEXIST, "the same name again");
    CHECK_INT(capsa_mcp_client_start(NULL), CAPSA_EINVAL, "no client to start");
    CHECK_INT(capsa_mcp_client_start(c), CAPSA_OK, "nothing to start");
    CHECK_INT(capsa_mcp_client_attach(c, NULL, NULL), CAPSA_EINVAL, "no sandbox");
    CHECK(capsa_mcp_client_status_json(NULL) == NULL, "no status without a client");
    char *st = capsa_mcp_client_status_json(c);
    CHECK_CONTAINS(st, "\"state\":\"disabled\"", "the disabled server's state");
    capsa_free(st);
    CHECK_STR(capsa_mcp_client_errmsg(NULL), "no client", "errmsg of NULL");
    capsa_mcp_client_free(c);
}

TEST(shared_by_two_sandboxes)
{
    const char *fake = getenv("CAPSA_FAKE_MCP") ? getenv("CAPSA_FAKE_MCP") : "tests/mcp_client/fake.mjs";
    if (access(fake, R_OK) != 0) {
        CHECK(0, "the fake server is there (run from the source tree)");
        return;
    }
    char cfg[1024];
    snprintf(cfg, sizeof(cfg),
             "{\"mcpServers\": {\"fake\": {\"command\": \"node\", \"args\": [\"%s\"]},"
             " \"broken\": {\"command\": \"node\", \"args\": [\"%s\", \"--exit\"]}}}", fake, fake);
    capsa_mcp_options o;
    capsa_mcp_options_init(&o);
    o.on_log = on_log;
    capsa_mcp_client *c = NULL;
    CHECK_INT(capsa_mcp_client_new(&o, &c), CAPSA_OK, "a client with a log");
    CHECK_INT(capsa_mcp_client_configure(c, cfg, strlen(cfg)), CAPSA_OK, "two servers");
    CHECK_INT(capsa_mcp_client_start(c), CAPSA_OK, "started, though one fails");
    CHECK(logged("fake 2 fake server ready"), "the server's stderr reached on_log");
    CHECK(logged("broken 1 server 'broken' failed to start"), "the failed start reached on_log");
    char *st = capsa_mcp_client_status_json(c);
    CHECK_CONTAINS(st, "\"name\":\"fake\",\"namespace\":\"fake\",\"transport\":\"stdio\",\"state\":\"ready\"", "fake is ready");
    CHECK_CONTAINS(st, "\"state\":\"failed\",\"error\":\"server 'broken' failed to start", "broken failed");
    capsa_free(st);

    capsa_engine *engine = NULL;
    capsa_sandbox *a = NULL, *b = NULL;
    CHECK_INT(capsa_engine_new(NULL, &engine), CAPSA_OK, "an engine");
    CHECK_INT(capsa_sandbox_new(engine, NULL, &a), CAPSA_OK, "sandbox a");
    CHECK_INT(capsa_sandbox_new(engine, NULL, &b), CAPSA_OK, "sandbox b");
    uint64_t ga = 0, gb = 0;
    /* bad_schema is refused: the first failure is returned, the rest registered. */
    CHECK_INT(capsa_mcp_client_attach(c, a, &ga), CAPSA_EINVAL, "attach reports the refused tool");
    CHECK_CONTAINS(capsa_mcp_client_errmsg(c), "tool 'bad_schema' (fake.bad_schema) is left out", "and names it");
    CHECK(ga > 0, "a generation comes back");
    uint64_t again = ga;
    CHECK_INT(capsa_mcp_client_attach(c, a, &again), CAPSA_OK, "nothing new since");
    CHECK_INT(again, ga, "the generation is unchanged");
    capsa_mcp_client_attach(c, b, &gb);
    CHECK_INT(capsa_policy_add(a, "**", NULL, 0), CAPSA_OK, "a allows everything");
    CHECK_INT(capsa_policy_add(b, "fake.echo", NULL, 0), CAPSA_OK, "b allows echo");
    const capsa_result *r;
    const char *code = "return [(await tools.fake.echo({text: 'a'})).args.text, (await tools.fake.pid({})).pid]";
    CHECK_INT(capsa_run(a, code, strlen(code), NULL, &r), CAPSA_OK, "a calls the server");
    int pid = 0;
    const char *v = capsa_result_value(r);
    CHECK(v && sscanf(v, "[\"a\",%d]", &pid) == 1 && pid > 0, "a got echo and the pid");
    code = "try { await tools.fake.pid({}) } catch (e) { return (await tools.fake.echo({text: 'b'})).args.text + e.code }";
    CHECK_INT(capsa_run(b, code, strlen(code), NULL, &r), CAPSA_OK, "b calls the same server");
    CHECK_STR(capsa_result_value(r), "\"bpermission_denied\"", "b's own policy applies");
    code = "await tools.fake.add_tool({name: 'late'})";
    CHECK_INT(capsa_run(a, code, strlen(code), NULL, &r), CAPSA_OK, "a adds a tool upstream");
    uint64_t before = ga;
    CHECK_INT(capsa_mcp_client_attach(c, a, &ga), CAPSA_OK, "a is brought up to date");
    CHECK(ga > before, "the generation moved");
    code = "return (await tools.fake.late({})).tool";
    CHECK_INT(capsa_run(a, code, strlen(code), NULL, &r), CAPSA_OK, "the new tool is called");
    CHECK_STR(capsa_result_value(r), "\"late\"", "by its new name");

    /* A checkpoint of a: restored with the client's definitions its upstream tools
       are bound again by name; without them the restore names the missing one. */
    char *blob = NULL;
    size_t blen = 0;
    code = "globalThis.kept = (await tools.fake.echo({text: 'before'})).args.text";
    CHECK_INT(capsa_run(a, code, strlen(code), NULL, &r), CAPSA_OK, "a call before the checkpoint");
    CHECK_INT(capsa_checkpoint(a, &blob, &blen), CAPSA_OK, capsa_errmsg(a));
    CHECK_INT(capsa_mcp_client_defs(NULL, NULL, 0, NULL), 0, "no client, no definitions");
    size_t n = capsa_mcp_client_defs(c, NULL, 0, NULL);
    CHECK(n >= 3, "the client counts its tools without room for them");
    capsa_tool_def *defs = calloc(n, sizeof(*defs));
    const capsa_tool_def **bind = calloc(n, sizeof(*bind));
    uint64_t gr = 0;
    CHECK_INT(capsa_mcp_client_defs(c, defs, n, &gr), n, "then fills them");
    CHECK_INT(gr, ga, "with the client's generation");
    for (size_t i = 0; i < n; i++)
        bind[i] = &defs[i];
    capsa_restore_options ro;
    capsa_restore_options_init(&ro);
    capsa_sandbox *back = NULL;
    char msg[512];
    CHECK_INT(capsa_sandbox_restore(engine, blob, blen, &ro, &back, msg, sizeof(msg)), CAPSA_ENOENT,
              "a restore without the upstream tools");
    CHECK_CONTAINS(msg, "fake.", "names an upstream tool");
    ro.tools = bind;
    ro.n_tools = n;
    CHECK_INT(capsa_sandbox_restore(engine, blob, blen, &ro, &back, msg, sizeof(msg)), CAPSA_OK, msg);
    if (back) {
        code = "return kept + ' ' + (await tools.fake.echo({text: 'after'})).args.text + ' ' + "
               "(await tools.fake.late({})).tool";
        CHECK_INT(capsa_run(back, code, strlen(code), NULL, &r), CAPSA_OK, capsa_errmsg(back));
        CHECK_STR(capsa_result_value(r), "\"before after late\"",
                  "the restored sandbox calls the same server, its policy kept");
        uint64_t since = gr;
        CHECK_INT(capsa_mcp_client_attach(c, back, &since), CAPSA_OK,
                  "bringing it up to date from the generation adds nothing twice");
        capsa_sandbox_free(back);
    }
    free(defs);
    free(bind);
    capsa_free(blob);
    capsa_sandbox_free(a);
    capsa_sandbox_free(b);
    capsa_engine_free(engine);
    CHECK(kill(pid, 0) == 0, "the server lives while the client does");
    capsa_mcp_client_free(c);
    CHECK(kill(pid, 0) != 0, "capsa_mcp_client_free stopped and reaped it");
}

int main(void)
{
    RUN(bad_input);
    RUN(shared_by_two_sandboxes);
    printf("%d passed, %d failed\n", test_passed, test_failed);
    return test_failed != 0;
}
