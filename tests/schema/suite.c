/* Runs the official JSON-Schema-Test-Suite against the validator (src/schema.c):
 * every case of the given files, each schema compiled once and each of its tests
 * validated. A case listed in the known-failures file (with its reason) may fail;
 * any other failure, or a listed case that passes, fails the run.
 *
 * usage: schema_suite [-7] [-n NAME] KNOWN-FAILURES DIR FILE...
 *   -7       compile the schemas as draft-07 (the suite's directory is draft7/)
 *   -n NAME  what the total line calls the cases (default JSON-Schema-Test-Suite)
 * FILEs are relative to DIR, in the suite's format ([{description, schema, tests:
 * [{description, data, valid}]}]); each file's pass count is printed, then the
 * total. tests/schema/diff2020.py writes such a file too, its verdicts another
 * validator's. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/schema.h"

typedef struct known {
    char *file, *group, *test, *reason;
    int seen;
} known;

static known *list;
static size_t nlist;

/* Reads the known failures: one a line, "file<TAB>case<TAB>test<TAB>reason",
 * test "*" for every test of the case; '#' starts a comment line. */
static int load_known(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return -1;
    }
    char line[2048];
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || line[0] == '\0')
            continue;
        char *fields[4], *s = line;
        int n = 0;
        for (; n < 4 && s; n++) {
            fields[n] = s;
            s = strchr(s, '\t');
            if (s)
                *s++ = '\0';
        }
        if (n < 4 || !fields[3][0]) {
            fprintf(stderr, "%s: a line without four tab-separated fields (the last the reason): %s\n",
                    path, line);
            fclose(f);
            return -1;
        }
        known *grown = realloc(list, (nlist + 1) * sizeof *list);
        if (!grown) {
            fclose(f);
            return -1;
        }
        list = grown;
        list[nlist++] = (known){ strdup(fields[0]), strdup(fields[1]), strdup(fields[2]),
                                 strdup(fields[3]), 0 };
    }
    fclose(f);
    return 0;
}

static known *find_known(const char *file, const char *group, const char *test)
{
    for (size_t i = 0; i < nlist; i++)
        if (strcmp(list[i].file, file) == 0 && strcmp(list[i].group, group) == 0 &&
            (strcmp(list[i].test, "*") == 0 || strcmp(list[i].test, test) == 0))
            return &list[i];
    return NULL;
}

int main(int argc, char **argv)
{
    unsigned flags = 0;
    const char *name = "JSON-Schema-Test-Suite";
    int a = 1;
    for (;;) {
        if (a < argc && strcmp(argv[a], "-7") == 0) {
            flags |= CAPSA__SCHEMA_DRAFT7;
            a++;
        } else if (a + 1 < argc && strcmp(argv[a], "-n") == 0) {
            name = argv[a + 1];
            a += 2;
        } else {
            break;
        }
    }
    if (argc - a < 3) {
        fprintf(stderr, "usage: %s [-7] [-n NAME] KNOWN-FAILURES DIR FILE...\n", argv[0]);
        return 2;
    }
    if (load_known(argv[a]) != 0)
        return 2;
    const char *dir = argv[a + 1];
    int passed = 0, failed = 0, skipped = 0;
    for (int fi = a + 2; fi < argc; fi++) {
        const char *file = argv[fi];
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, file);
        json_error_t je;
        json_t *cases = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
        const char *note = "";
        if (!cases && strstr(je.text, "too big")) {
            /* Integers beyond 64 bits (optional/bignum.json): read them as reals. */
            cases = json_load_file(path, JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL, &je);
            note = " (integers read as reals: jansson holds 64 bits)";
        }
        if (!json_is_array(cases)) {
            fprintf(stderr, "%s: cannot read: %s\n", path, je.text);
            failed++;
            json_decref(cases);
            continue;
        }
        int fp = 0, ft = 0, fk = 0;
        for (size_t ci = 0; ci < json_array_size(cases); ci++) {
            const json_t *c = json_array_get(cases, ci);
            const char *group = json_string_value(json_object_get(c, "description"));
            const json_t *tests = json_object_get(c, "tests");
            char err[CAPSA__SCHEMA_MSG_MAX];
            capsa__schema *s = NULL;
            int crc = capsa__schema_compile(NULL, json_object_get(c, "schema"), flags, &s, err, sizeof err);
            for (size_t ti = 0; ti < json_array_size(tests); ti++) {
                const json_t *t = json_array_get(tests, ti);
                const char *test = json_string_value(json_object_get(t, "description"));
                int want = json_is_true(json_object_get(t, "valid"));
                char why[CAPSA__SCHEMA_MSG_MAX + 32] = "";
                int got;
                if (crc == CAPSA_OK) {
                    got = capsa__schema_validate(s, json_object_get(t, "data"), why, sizeof why) == CAPSA_OK;
                } else {
                    got = -1;
                    snprintf(why, sizeof why, "schema refused: %s", err);
                }
                known *k = find_known(file, group, test);
                ft++;
                if (got == want) {
                    if (k) {
                        k->seen = 1;
                        printf("UNEXPECTED PASS %s | %s | %s (listed as: %s)\n", file, group, test,
                               k->reason);
                        failed++;
                    } else {
                        fp++;
                        passed++;
                    }
                    continue;
                }
                if (k) {
                    k->seen = 1;
                    fk++;
                    skipped++;
                    continue;
                }
                failed++;
                printf("FAIL %s | %s | %s: expected %s, got %s%s%s\n", file, group, test,
                       want ? "valid" : "invalid", got < 0 ? "no schema" : got ? "valid" : "invalid",
                       why[0] ? ": " : "", why);
            }
            capsa__schema_free(s);
        }
        printf("%-40s %3d of %3d passed (%d known failures)%s\n", file, fp, ft, fk, note);
        json_decref(cases);
    }
    for (size_t i = 0; i < nlist; i++)
        if (!list[i].seen) {
            int ran = 0;
            for (int fi = a + 2; fi < argc; fi++)
                ran |= strcmp(argv[fi], list[i].file) == 0;
            if (ran) {
                printf("STALE known failure (no such case): %s | %s | %s\n", list[i].file,
                       list[i].group, list[i].test);
                failed++;
            }
        }
    printf("%s: %d passed, %d failed, %d skipped\n", name, passed, failed, skipped);
    return failed ? 1 : 0;
}
