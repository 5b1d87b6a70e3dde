/* The demo tools of examples/tools_agent.js, as one small program: `capsa-demo-tool
 * ACTION` reads the call's JSON arguments on stdin and prints its JSON result on
 * stdout, as capsa --tools expects of a command (a non-zero exit and a message on
 * stderr fail the call). Deterministic, no network: a stand-in for real services.
 *   deploys   {service?}        -> the deploys of last week (of one service)
 *   incident  {service, minutes} -> files an incident ticket, returns its id
 *   add       {a, b}            -> a + b */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

static const struct { const char *service, *status; int minutes; const char *at; } deploys[] = {
    { "api", "failed", 14, "2026-11-23T09:12:00Z" },     { "api", "success", 6, "2026-11-23T10:40:00Z" },
    { "billing", "failed", 31, "2026-11-24T15:02:00Z" }, { "search", "success", 9, "2026-11-25T08:00:00Z" },
    { "billing", "failed", 12, "2026-11-26T11:45:00Z" }, { "api", "failed", 8, "2026-11-27T17:20:00Z" },
    { "frontend", "success", 4, "2026-11-28T13:05:00Z" },
};

static int fail(const char *msg)
{
    fprintf(stderr, "%s\n", msg);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return fail("usage: capsa-demo-tool deploys|incident|add < args.json");
    json_error_t err;
    json_t *args = json_loadf(stdin, JSON_REJECT_DUPLICATES, &err);
    if (!json_is_object(args))
        return fail("the arguments must be a JSON object");
    json_t *out = NULL;
    if (strcmp(argv[1], "deploys") == 0) {
        const char *only = json_string_value(json_object_get(args, "service"));
        out = json_array();
        for (size_t i = 0; i < sizeof(deploys) / sizeof(deploys[0]); i++) {
            if (only && strcmp(only, deploys[i].service) != 0)
                continue;
            json_array_append_new(out, json_pack("{s:s,s:s,s:i,s:s}", "service", deploys[i].service,
                                                 "status", deploys[i].status, "minutes",
                                                 deploys[i].minutes, "at", deploys[i].at));
        }
    } else if (strcmp(argv[1], "incident") == 0) {
        const char *service = json_string_value(json_object_get(args, "service"));
        if (!service)
            return fail("incident: 'service' is required");
        unsigned h = 2166136261u;
        for (const char *p = service; *p; p++)
            h = (h ^ (unsigned char)*p) * 16777619u;
        char id[32];
        snprintf(id, sizeof(id), "INC-%05u", h % 100000);
        out = json_pack("{s:s,s:s}", "ticket", id, "service", service);
    } else if (strcmp(argv[1], "add") == 0) {
        json_t *a = json_object_get(args, "a"), *b = json_object_get(args, "b");
        if (!json_is_number(a) || !json_is_number(b))
            return fail("add: 'a' and 'b' must be numbers");
        out = json_real(json_number_value(a) + json_number_value(b));
    } else {
        return fail("unknown action");
    }
    char *text = json_dumps(out, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
    puts(text);
    return 0;
}
