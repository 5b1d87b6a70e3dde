/* Runs one program of the WASI conformance suite (WebAssembly/wasi-testsuite),
 * compiled by wasm2c and linked in through tests/wasi/shim.c, on capsa's WASI
 * host and a fresh VFS:
 *   runner TEST_DIR NAME
 * reads TEST_DIR/NAME.json (args, env, dirs, exit_code, stdout; all optional),
 * copies each dir into the VFS as a read-write mount /<dir> preopened under its
 * own name, runs _start within a 10 s deadline, and checks the exit code and the
 * standard output. Prints "PASS NAME" or "FAIL NAME: why"; exits 0 or 1. */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "rt.h"
#include "runner.h"
#include "vfs.h"
#include "vfs_host.h"
#include "wasi.h"

#define DEADLINE_NS (10ull * 1000000000u)
#define MAX_ITEMS 64

static const char *test_name;

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL %s: ", test_name);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    return 1;
}

/* The guest's stdout is kept for the comparison; its stderr goes to ours. */
static void output(void *ud, int fd, const char *data, size_t len)
{
    if (fd == 1) {
        capsa__buf_append(ud, &capsa__default_allocator, data, len);
    } else {
        fwrite(data, 1, len, stderr);
    }
}

/* Removes name (a file, a symlink, or a directory and all it holds) from dir, as
 * the host. Returns 0 or a WASI errno. */
static int remove_tree(capsa__vfs *vfs, capsa__vnode *dir, const char *name)
{
    capsa__vfs_stat st;
    int err = capsa__vfs_stat(vfs, dir, name, strlen(name), 0, CAPSA__VFS_HOST, &st);
    if (err)
        return err;
    if (st.type != CAPSA__VFS_DIR)
        return capsa__vfs_unlink(vfs, dir, name, strlen(name), CAPSA__VFS_HOST);
    capsa__vnode *sub;
    err = capsa__vfs_open(vfs, dir, name, strlen(name), 0, CAPSA__VFS_O_DIRECTORY, 0,
                          CAPSA__VFS_HOST, &sub);
    if (err)
        return err;
    for (;;) {
        capsa__vfs_dirent d;
        err = capsa__vfs_readdir(vfs, sub, 2, &d, CAPSA__VFS_HOST); /* after "." and ".." */
        if (err)
            break;
        char child[CAPSA__VFS_NAME_MAX + 1];
        snprintf(child, sizeof(child), "%.*s", (int)d.name_len, d.name);
        if ((err = remove_tree(vfs, sub, child)))
            break;
    }
    capsa__vfs_unref(vfs, sub);
    if (err != CAPSA__WASI_ENOENT)
        return err;
    return capsa__vfs_rmdir(vfs, dir, name, strlen(name), CAPSA__VFS_HOST);
}

/* Removes the artefacts of earlier runs (entries named *.cleanup) anywhere under
 * the directory at path, as the suite's own runner does before each test. */
static int remove_cleanup(capsa__vfs *vfs, capsa__vnode *dir)
{
    uint64_t cookie = 2;
    for (;;) {
        capsa__vfs_dirent d;
        int err = capsa__vfs_readdir(vfs, dir, cookie, &d, CAPSA__VFS_HOST);
        if (err == CAPSA__WASI_ENOENT)
            return 0;
        if (err)
            return err;
        char name[CAPSA__VFS_NAME_MAX + 1];
        snprintf(name, sizeof(name), "%.*s", (int)d.name_len, d.name);
        size_t n = strlen(name);
        if (n > 8 && strcmp(name + n - 8, ".cleanup") == 0) {
            if ((err = remove_tree(vfs, dir, name)))
                return err;
            cookie = 2; /* the listing changed: start again */
            continue;
        }
        if (d.type == CAPSA__VFS_DIR) {
            capsa__vnode *sub;
            if ((err = capsa__vfs_open(vfs, dir, name, n, 0, CAPSA__VFS_O_DIRECTORY, 0,
                                       CAPSA__VFS_HOST, &sub)))
                return err;
            err = remove_cleanup(vfs, sub);
            capsa__vfs_unref(vfs, sub);
            if (err)
                return err;
        }
        cookie = d.next;
    }
}

typedef struct run_ctx {
    const wasi_test_module *m;
    void *inst;
    capsa__wasi *w;
} run_ctx;

static void do_instantiate(void *p)
{
    run_ctx *c = p;
    c->m->instantiate(c->inst, c->w);
}

static void do_start(void *p)
{
    run_ctx *c = p;
    c->m->start(c->inst);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s TEST_DIR NAME\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    test_name = argv[2];
    const wasi_test_module *m = &wasi_test_module_desc;

    /* The test's configuration: defaults when it has no .json file. */
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s.json", dir, test_name);
    json_t *cfg = NULL;
    if (access(path, F_OK) == 0) {
        json_error_t jerr;
        cfg = json_load_file(path, 0, &jerr);
        if (!cfg || !json_is_object(cfg))
            return fail("%s: bad JSON: %s (line %d)", path, jerr.text, jerr.line);
    } else {
        cfg = json_object();
    }
    json_t *jargs = json_object_get(cfg, "args"), *jenv = json_object_get(cfg, "env");
    json_t *jdirs = json_object_get(cfg, "dirs"), *jexit = json_object_get(cfg, "exit_code");
    json_t *jstdout = json_object_get(cfg, "stdout");
    if ((jargs && !json_is_array(jargs)) || (jenv && !json_is_object(jenv)) ||
        (jdirs && !json_is_array(jdirs)) || (jexit && !json_is_integer(jexit)) ||
        (jstdout && !json_is_string(jstdout)))
        return fail("%s: a field has the wrong type", path);
    if (json_array_size(jargs) + 1 > MAX_ITEMS || json_object_size(jenv) > MAX_ITEMS ||
        json_array_size(jdirs) > MAX_ITEMS)
        return fail("%s: more than %d args, variables or dirs", path, MAX_ITEMS);

    /* A fresh filesystem with each dir copied in, read-write. */
    capsa__vfs *vfs;
    int err = capsa__vfs_new(&capsa__default_allocator, NULL, &vfs);
    if (err)
        return fail("capsa__vfs_new: errno %d", err);
    capsa__wasi_preopen pre[MAX_ITEMS];
    char vpath[MAX_ITEMS][512];
    size_t npre = 0;
    for (size_t i = 0; i < json_array_size(jdirs); i++) {
        const char *d = json_string_value(json_array_get(jdirs, i));
        if (!d)
            return fail("%s: dirs[%zu] is not a string", path, i);
        char host[4096], msg[256] = "";
        snprintf(host, sizeof(host), "%s/%s", dir, d);
        snprintf(vpath[npre], sizeof(vpath[npre]), "/%s", d);
        if ((err = capsa__vfs_mount(vfs, vpath[npre], CAPSA__VFS_RW)))
            return fail("mounting %s: errno %d", vpath[npre], err);
        if ((err = capsa__vfs_import_dir(vfs, host, vpath[npre], msg, sizeof(msg))))
            return fail("importing %s: errno %d (%s)", host, err, msg);
        capsa__vnode *root;
        if ((err = capsa__vfs_open(vfs, capsa__vfs_root(vfs), vpath[npre], strlen(vpath[npre]),
                                   CAPSA__VFS_FOLLOW, CAPSA__VFS_O_DIRECTORY, 0, CAPSA__VFS_HOST,
                                   &root)))
            return fail("opening %s: errno %d", vpath[npre], err);
        err = remove_cleanup(vfs, root);
        capsa__vfs_unref(vfs, root);
        if (err)
            return fail("removing *.cleanup under %s: errno %d", vpath[npre], err);
        pre[npre].vfs_path = vpath[npre];
        pre[npre].name = d;
        npre++;
    }

    /* argv[0] is the program's name, as a runtime gives it. */
    const char *args[MAX_ITEMS + 1];
    char prog[256];
    snprintf(prog, sizeof(prog), "%s.wasm", test_name);
    size_t nargs = 0;
    args[nargs++] = prog;
    for (size_t i = 0; i < json_array_size(jargs); i++) {
        if (!(args[nargs++] = json_string_value(json_array_get(jargs, i))))
            return fail("%s: args[%zu] is not a string", path, i);
    }
    const char *env[MAX_ITEMS];
    size_t nenv = 0;
    const char *key;
    json_t *val;
    json_object_foreach(jenv, key, val)
    {
        if (!json_is_string(val))
            return fail("%s: env.%s is not a string", path, key);
        char *s;
        if (asprintf(&s, "%s=%s", key, json_string_value(val)) < 0)
            return fail("out of memory");
        env[nenv++] = s;
    }

    capsa__buf out = { 0 };
    capsa__wasi w;
    memset(&w, 0, sizeof(w));
    w.output = output;
    w.output_ud = &out;
    capsa__wasi_config wc = { pre, npre, args, nargs, env, nenv };
    if ((err = capsa__wasi_init(&w, &capsa__default_allocator, vfs, &wc)))
        return fail("capsa__wasi_init: errno %d", err);

    /* Instantiating allocates (and may trap on failure): it runs as guest code. */
    if (capsa__rt_thread_prepare() != 0)
        return fail("capsa__rt_thread_prepare failed");
    m->init_module();
    void *inst = calloc(1, m->instance_size);
    if (!inst)
        return fail("out of memory");
    run_ctx c = { m, inst, &w };
    int trap = capsa__rt_call(m->memory(inst), NULL, m->fuel(inst), NULL, do_instantiate, &c, NULL);
    if (trap)
        return fail("instantiating: %s", capsa__rt_trap_message(trap));
    w.memory = m->memory(inst);
    capsa__rt_limits limits = { 0, capsa__rt_now_ns() + DEADLINE_NS, NULL };
    trap = capsa__rt_call(w.memory, NULL, m->fuel(inst), &limits, do_start, &c, NULL);

    int status = 0;
    long long want = jexit ? json_integer_value(jexit) : 0;
    if (trap && trap != CAPSA__TRAP_EXIT) {
        status = fail("trapped: %s", capsa__rt_trap_message(trap));
    } else {
        uint32_t code = trap == CAPSA__TRAP_EXIT ? w.exit_code : 0;
        if (trap && capsa__rt_exit_code() != code)
            status = fail("exit code %u in the instance, %u in the runtime", code,
                          capsa__rt_exit_code());
        else if ((long long)code != want)
            status = fail("exit code %u, expected %lld", code, want);
        else if (jstdout && (out.len != strlen(json_string_value(jstdout)) ||
                             memcmp(out.data ? out.data : "", json_string_value(jstdout), out.len)))
            status = fail("stdout \"%.*s\", expected \"%s\"", (int)out.len,
                          out.data ? out.data : "", json_string_value(jstdout));
    }
    if (!status)
        printf("PASS %s\n", test_name);

    m->free(inst);
    free(inst);
    capsa__wasi_finish(&w);
    capsa__vfs_free(vfs);
    capsa__buf_free(&out, &capsa__default_allocator);
    for (size_t i = 0; i < nenv; i++)
        free((char *)env[i]);
    json_decref(cfg);
    return status;
}
