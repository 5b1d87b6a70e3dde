/* Runs many shell command lines through the library, each in a new sandbox whose
 * /workspace is unpacked from one tar (the fixture), and writes what each printed
 * and its exit status: the "ours" side of tests/shell/compare.sh capsa, with one
 * engine for all cases instead of one capsa process each.
 *
 *   shell_batch FIXTURE.tar OUTDIR < CASES
 *
 * CASES holds the command lines, each ended by a NUL byte. For case N (from 0),
 * OUTDIR/N.out gets its stdout, OUTDIR/N.err its stderr, and OUTDIR/N.status its
 * exit status (124 when a limit stopped it, 125 when it could not run). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capsa.h"

static char *read_file(FILE *f, size_t *len)
{
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (n < cap)
            break;
        cap *= 2;
        char *g = realloc(buf, cap + 1);
        if (!g) {
            free(buf);
            return NULL;
        }
        buf = g;
    }
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

static int write_file(const char *dir, long n, const char *ext, const char *data, size_t len)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%ld.%s", dir, n, ext);
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(data, 1, len, f) == len;
    return fclose(f) == 0 && ok ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: shell_batch FIXTURE.tar OUTDIR < CASES\n");
        return 2;
    }
    FILE *t = fopen(argv[1], "rb");
    size_t tar_len = 0, cases_len = 0;
    char *tar = t ? read_file(t, &tar_len) : NULL;
    if (t)
        fclose(t);
    char *cases = read_file(stdin, &cases_len);
    capsa_engine *engine = NULL;
    if (!tar || !cases || capsa_engine_new(NULL, &engine) != CAPSA_OK) {
        fprintf(stderr, "shell_batch: cannot read the inputs or start the engine\n");
        return 2;
    }
    capsa_options opts;
    capsa_options_init(&opts);
    opts.timeout_ms = 10000;
    long n = 0;
    for (size_t at = 0; at < cases_len; n++) {
        const char *cmd = cases + at;
        at += strlen(cmd) + 1;
        capsa_sandbox *sb = NULL;
        const capsa_result *r = NULL;
        int status = 125, rc = CAPSA_EINVAL;
        if (capsa_sandbox_new(engine, &opts, &sb) == CAPSA_OK &&
            capsa_fs_import_tar(sb, "/workspace", tar, tar_len) == CAPSA_OK)
            rc = capsa_shell(sb, cmd, NULL, 0, &r);
        size_t out_len = 0, err_len = 0;
        const char *out = r ? capsa_result_stdout(r, &out_len) : "";
        const char *err = r ? capsa_result_stderr(r, &err_len) : capsa_errmsg(sb);
        if (!r)
            err_len = strlen(err);
        if (rc == CAPSA_OK)
            status = capsa_result_exit_code(r);
        else if (rc == CAPSA_ETIMEOUT || rc == CAPSA_EFUEL)
            status = 124;
        char st[16];
        int st_len = snprintf(st, sizeof(st), "%d\n", status);
        if (write_file(argv[2], n, "out", out, out_len) != 0 ||
            write_file(argv[2], n, "err", err, err_len) != 0 ||
            write_file(argv[2], n, "status", st, (size_t)st_len) != 0) {
            fprintf(stderr, "shell_batch: cannot write into %s\n", argv[2]);
            return 2;
        }
        capsa_sandbox_free(sb);
    }
    capsa_engine_free(engine);
    free(tar);
    free(cases);
    return 0;
}
