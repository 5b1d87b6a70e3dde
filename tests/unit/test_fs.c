/* The public file API of a sandbox (capsa_fs_*): writing, reading, listing and
 * removing as the host; quotas; host directory mounts, read-only and written back
 * (only what the guest changed, modes, links and special files kept);
 * copying out without following host symlinks; tar streams in and out, malicious
 * ones included; files kept across runs, resets and stopped runs; the guest's view
 * of what the host put there; /dev/null as the host and the guest see it; trees
 * as deep as the guest may make them, walked on a small stack; host writes never
 * led by the guest's symlinks where the guest may not write. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capsa.h"
#include "test.h"

static capsa_engine *engine;
static char tmp_root[] = "/tmp/capsa-test-fs-XXXXXX";

static capsa_sandbox *sandbox_with(uint64_t max_bytes, uint64_t max_entries, uint64_t max_file)
{
    capsa_options o;
    capsa_options_init(&o);
    o.fs_max_bytes = max_bytes;
    o.fs_max_entries = max_entries;
    o.fs_max_file = max_file;
    capsa_sandbox *sb = NULL;
    int rc = capsa_sandbox_new(engine, &o, &sb);
    CHECK_INT(rc, CAPSA_OK, "a sandbox is created");
    return sb;
}

/* Reads a file of the sandbox into a static buffer, or NULL. */
static const char *read_text(capsa_sandbox *sb, const char *path)
{
    static char text[4096];
    char *data = NULL;
    size_t len = 0;
    if (capsa_fs_read(sb, path, &data, &len) != CAPSA_OK)
        return NULL;
    snprintf(text, sizeof(text), "%.*s", (int)len, data);
    capsa_free(data);
    return text;
}

/* Runs code; returns the value's JSON text in a static buffer, or the error. */
static const char *run_value(capsa_sandbox *sb, const char *code)
{
    static char text[4096];
    const capsa_result *r = NULL;
    int rc = capsa_run(sb, code, strlen(code), NULL, &r);
    if (!r)
        return "(no result)";
    if (rc != CAPSA_OK)
        snprintf(text, sizeof(text), "%s: %s", capsa_result_error_name(r),
                 capsa_result_error_message(r));
    else
        snprintf(text, sizeof(text), "%s", capsa_result_value(r) ? capsa_result_value(r) : "undefined");
    return text;
}

static void write_host(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static char *host_text(const char *path)
{
    static char text[4096];
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t n = fread(text, 1, sizeof(text) - 1, f);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* Adds "name " (directories "name/ ") to the 256-byte buffer ud. */
static int list_fn(void *ud, const char *name, const capsa_file_info *fi)
{
    char *names = ud;
    size_t n = strlen(names);
    snprintf(names + n, 256 - n, "%s%s ", name, fi->type == CAPSA_DIRECTORY ? "/" : "");
    return 0;
}

TEST(write_read_list_stat_remove)
{
    capsa_sandbox *sb = sandbox_with(0, 0, 0);
    CHECK_INT(capsa_fs_write(sb, "/workspace/a/b/c.txt", "hello", 5), CAPSA_OK,
              "a write creates the parent directories");
    CHECK_STR(read_text(sb, "/workspace/a/b/c.txt"), "hello", "the file reads back");
    CHECK_INT(capsa_fs_write(sb, "a/b/c.txt", "hi", 2), CAPSA_OK, "a relative path is under /workspace");
    CHECK_STR(read_text(sb, "/workspace/a/b/c.txt"), "hi", "a shorter write replaces the whole contents");
    const char bin[] = { 'x', 0, 'y', (char)0xff };
    CHECK_INT(capsa_fs_write(sb, "/tmp/bin", bin, 4), CAPSA_OK, "binary contents");
    char *data = NULL;
    size_t len = 0;
    CHECK_INT(capsa_fs_read(sb, "/tmp/bin", &data, &len), CAPSA_OK, "binary read");
    CHECK(len == 4 && data && memcmp(data, bin, 4) == 0 && data[4] == 0, "binary bytes and a NUL after them");
    capsa_free(data);
    CHECK_INT(capsa_fs_write(sb, "/workspace/empty", NULL, 0), CAPSA_OK, "an empty file from NULL, 0");
    CHECK_STR(read_text(sb, "/workspace/empty"), "", "the empty file reads back empty");

    capsa_file_info info = { sizeof(info), 0, 0, 0, 0 };
    CHECK_INT(capsa_fs_stat(sb, "/workspace/a/b/c.txt", &info), CAPSA_OK, "stat of a file");
    CHECK_INT(info.type, CAPSA_FILE, "it is a file");
    CHECK_INT(info.size, 2, "its size");
    CHECK(info.mtime_ns > 1600000000ull * 1000000000ull, "its mtime is now-ish");
    CHECK_INT(info.guest_writable, 1, "the guest may write under /workspace");
    CHECK_INT(capsa_fs_stat(sb, "/", &info), CAPSA_OK, "stat of the root");
    CHECK_INT(info.type, CAPSA_DIRECTORY, "the root is a directory");
    CHECK_INT(info.guest_writable, 0, "the guest may not write the root");
    CHECK_INT(capsa_fs_write(sb, "/tools/x.d.ts", "declare", 7), CAPSA_OK, "the host may write under /tools");
    CHECK_INT(capsa_fs_stat(sb, "/tools/x.d.ts", &info), CAPSA_OK, "stat under /tools");
    CHECK_INT(info.guest_writable, 0, "the guest may not write under /tools");
    CHECK_INT(capsa_fs_write(sb, "/log/audit.jsonl", "{}\n", 3), CAPSA_OK, "the host may write under /log");

    CHECK_INT(capsa_fs_mkdir(sb, "/workspace/d/e"), CAPSA_OK, "mkdir with parents");
    CHECK_INT(capsa_fs_mkdir(sb, "/workspace/d/e"), CAPSA_OK, "mkdir of an existing directory is fine");
    CHECK_INT(capsa_fs_mkdir(sb, "/workspace/a/b/c.txt"), CAPSA_ENOTDIR, "mkdir over a file");
    CHECK_CONTAINS(capsa_errmsg(sb), "c.txt", "the message names the path");

    /* Listing: name order, types. */
    char names[256] = "";
    CHECK_INT(capsa_fs_list(sb, "/workspace", list_fn, names), CAPSA_OK, "list /workspace");
    CHECK_STR(names, "a/ d/ empty ", "entries in name order, directories marked");
    names[0] = '\0';
    CHECK_INT(capsa_fs_list(sb, "/", list_fn, names), CAPSA_OK, "list /");
    CHECK_STR(names, "dev/ log/ tmp/ tools/ workspace/ ", "the default layout");

    CHECK_INT(capsa_fs_read(sb, "/workspace/nope", &data, &len), CAPSA_ENOENT, "reading a missing file");
    CHECK(data == NULL, "no data on failure");
    CHECK_CONTAINS(capsa_errmsg(sb), "/workspace/nope", "the message names the missing path");
    CHECK_INT(capsa_fs_read(sb, "/workspace/a", &data, &len), CAPSA_EISDIR, "reading a directory");
    CHECK_INT(capsa_fs_write(sb, "/workspace/a/b/c.txt/x", "1", 1), CAPSA_ENOTDIR, "a file as a parent");
    CHECK_INT(capsa_fs_write(sb, "/workspace/a", "1", 1), CAPSA_EISDIR, "writing over a directory");

    CHECK_INT(capsa_fs_remove(sb, "/workspace/a", 0), CAPSA_ENOTEMPTY, "a non-empty directory needs recursive");
    CHECK_INT(capsa_fs_remove(sb, "/workspace/a", 1), CAPSA_OK, "recursive removal");
    CHECK_INT(capsa_fs_stat(sb, "/workspace/a", &info), CAPSA_ENOENT, "it is gone");
    CHECK_INT(capsa_fs_remove(sb, "/workspace/empty", 0), CAPSA_OK, "removing a file");
    CHECK_INT(capsa_fs_remove(sb, "/workspace/empty", 0), CAPSA_ENOENT, "removing it twice");
    CHECK_INT(capsa_fs_remove(sb, "/workspace", 1), CAPSA_EINVAL, "a mount point cannot be removed");
    CHECK_CONTAINS(capsa_errmsg(sb), "mount point", "the message says why");
    CHECK_INT(capsa_fs_remove(sb, "/", 1), CAPSA_EINVAL, "the root cannot be removed");
    capsa_sandbox_free(sb);
}

static int stop_after_one(void *ud, const char *name, const capsa_file_info *fi)
{
    (void)name;
    (void)fi;
    (*(int *)ud)++;
    return 1;
}

TEST(bad_arguments)
{
    capsa_sandbox *sb = sandbox_with(0, 0, 0);
    char *data = (char *)1;
    size_t len = 7;
    CHECK_INT(capsa_fs_write(NULL, "/a", "x", 1), CAPSA_EINVAL, "no sandbox");
    CHECK_INT(capsa_fs_write(sb, NULL, "x", 1), CAPSA_EINVAL, "no path");
    CHECK_INT(capsa_fs_write(sb, "", "x", 1), CAPSA_ENOENT, "an empty path");
    CHECK_INT(capsa_fs_write(sb, "/workspace/x", NULL, 3), CAPSA_EINVAL, "NULL data with a length");
    CHECK_INT(capsa_fs_read(sb, "/workspace/x", NULL, &len), CAPSA_EINVAL, "no out pointer");
    CHECK_INT(capsa_fs_read(sb, NULL, &data, &len), CAPSA_EINVAL, "reading no path");
    CHECK(data == NULL && len == 0, "outputs cleared on failure");
    char long_path[6000];
    memset(long_path, 'a', sizeof(long_path) - 1);
    long_path[0] = '/';
    long_path[sizeof(long_path) - 1] = '\0';
    CHECK_INT(capsa_fs_write(sb, long_path, "x", 1), CAPSA_EINVAL, "a path over 4096 bytes");
    char long_name[300] = "/workspace/";
    memset(long_name + 11, 'n', 280);
    long_name[291] = '\0';
    CHECK_INT(capsa_fs_write(sb, long_name, "x", 1), CAPSA_EINVAL, "a name over 255 bytes");
    CHECK_INT(capsa_fs_write(sb, "/workspace/\xff\xfe", "x", 1), CAPSA_EINVAL, "a path that is not UTF-8");
    CHECK_INT(capsa_fs_list(sb, "/workspace", NULL, NULL), CAPSA_EINVAL, "listing without a callback");
    capsa_file_info info = { 0, 0, 0, 0, 0 };
    CHECK_INT(capsa_fs_stat(sb, "/", &info), CAPSA_EINVAL, "stat without struct_size");
    CHECK_INT(capsa_fs_mount(sb, "/nonexistent-host-dir", "/workspace/m", CAPSA_MOUNT_RO),
              CAPSA_ENOENT, "mounting a missing host directory");
    CHECK_INT(capsa_fs_mount(sb, "/", "/workspace/m", 7), CAPSA_EINVAL, "an unknown mount mode");
    CHECK_INT(capsa_fs_write(sb, "/workspace/../../../workspace/dots", "x", 1), CAPSA_OK,
              "'..' stops at the root");
    CHECK_STR(read_text(sb, "/workspace/dots"), "x", "and the file is where the path leads");
    capsa_fs_write(sb, "/workspace/1", "", 0);
    capsa_fs_write(sb, "/workspace/2", "", 0);
    int calls = 0;
    CHECK_INT(capsa_fs_list(sb, "/workspace", stop_after_one, &calls), CAPSA_OK, "a listing stopped early");
    CHECK_INT(calls, 1, "the callback ran once");
    capsa_sandbox_free(sb);
}

TEST(quotas)
{
    capsa_options bad;
    capsa_options_init(&bad);
    bad.fs_max_bytes = 1000;
    bad.fs_max_file = 2000;
    capsa_sandbox *sb = NULL;
    CHECK_INT(capsa_sandbox_new(engine, &bad, &sb), CAPSA_EINVAL, "a file quota over the total");

    sb = sandbox_with(1 << 20, 20, 600 << 10);
    static char big[2 << 20];
    memset(big, 'z', sizeof(big));
    CHECK_INT(capsa_fs_write(sb, "/workspace/big", big, 700 << 10), CAPSA_ENOSPC, "over the file quota");
    capsa_file_info info = { sizeof(info), 0, 0, 0, 0 };
    CHECK_INT(capsa_fs_stat(sb, "/workspace/big", &info), CAPSA_ENOENT, "the refused file was not left behind");
    CHECK_INT(capsa_fs_write(sb, "/workspace/one", big, 500 << 10), CAPSA_OK, "500 KiB fits");
    CHECK_INT(capsa_fs_write(sb, "/workspace/two", big, 500 << 10), CAPSA_OK, "1000 KiB fits");
    CHECK_INT(capsa_fs_write(sb, "/workspace/one", "short", 5), CAPSA_OK, "shrinking a file");
    CHECK_INT(capsa_fs_write(sb, "/workspace/three", big, 600 << 10), CAPSA_ENOSPC, "over the total");
    CHECK_CONTAINS(capsa_errmsg(sb), "quota", "the message says it is a quota");
    CHECK_STR(read_text(sb, "/workspace/one"), "short", "other files are intact");
    CHECK_INT(capsa_fs_write(sb, "/workspace/two", big, 520 << 10), CAPSA_OK, "growing within the total");
    CHECK_INT(capsa_fs_write(sb, "/workspace/two", big, 1000 << 10), CAPSA_ENOSPC, "growing over it");
    CHECK_INT(capsa_fs_stat(sb, "/workspace/two", &info), CAPSA_OK, "the file is still there");
    CHECK_INT(info.size, 520 << 10, "with its old size");
    int made = 0;
    for (int i = 0; i < 40; i++) {
        char path[64];
        snprintf(path, sizeof(path), "/tmp/f%d", i);
        if (capsa_fs_write(sb, path, "", 0) == CAPSA_OK)
            made++;
    }
    CHECK(made > 0 && made < 20, "the entry quota stops file creation");
    CHECK_INT(capsa_fs_write(sb, "/tmp/another", "", 0), CAPSA_ENOSPC, "one more entry is refused");
    capsa_sandbox_free(sb);
}

TEST(mounts_and_copy_out)
{
    char host[512], path[700];
    snprintf(host, sizeof(host), "%s/src", tmp_root);
    mkdir(host, 0755);
    snprintf(path, sizeof(path), "%s/data.txt", host);
    write_host(path, "from the host");
    snprintf(path, sizeof(path), "%s/sub", host);
    mkdir(path, 0755);
    snprintf(path, sizeof(path), "%s/sub/inner.txt", host);
    write_host(path, "inner");
    snprintf(path, sizeof(path), "%s/passwd-link", host);
    CHECK_INT(symlink("/etc/passwd", path), 0, "a host symlink pointing out is planted");

    capsa_sandbox *sb = sandbox_with(0, 0, 0);
    CHECK_INT(capsa_fs_mount(sb, host, "/data", CAPSA_MOUNT_RO), CAPSA_OK, "a read-only mount");
    CHECK_STR(read_text(sb, "/data/data.txt"), "from the host", "its files are copied in");
    CHECK_STR(read_text(sb, "/data/sub/inner.txt"), "inner", "recursively");
    capsa_file_info info = { sizeof(info), 0, 0, 0, 0 };
    CHECK_INT(capsa_fs_stat(sb, "/data/passwd-link", &info), CAPSA_OK, "the symlink came in");
    CHECK_INT(info.type, CAPSA_SYMLINK, "as a symlink");
    CHECK(read_text(sb, "/data/passwd-link") == NULL, "it resolves inside the sandbox only (no /etc/passwd there)");
    CHECK_INT(info.guest_writable, 0, "a symlink under a read-only mount is read-only too");
    CHECK_INT(capsa_fs_stat(sb, "/data/data.txt", &info), CAPSA_OK, "stat of a mounted file");
    CHECK_INT(info.guest_writable, 0, "the guest may not write a read-only mount");
    capsa_sandbox_free(sb);

    /* Read-write: after each run the host directory is made a copy of the tree. */
    char rw[512];
    snprintf(rw, sizeof(rw), "%s/rw", tmp_root);
    mkdir(rw, 0755);
    snprintf(path, sizeof(path), "%s/keep.txt", rw);
    write_host(path, "keep");
    snprintf(path, sizeof(path), "%s/gone.txt", rw);
    write_host(path, "gone");
    sb = sandbox_with(0, 0, 0);
    CHECK_INT(capsa_fs_mount(sb, rw, "/workspace/proj", CAPSA_MOUNT_RW), CAPSA_OK, "a read-write mount");
    CHECK_INT(capsa_fs_write(sb, "/workspace/proj/new/made.txt", "made", 4), CAPSA_OK, "a new file in it");
    CHECK_INT(capsa_fs_remove(sb, "/workspace/proj/gone.txt", 0), CAPSA_OK, "a file removed from it");
    CHECK_STR(run_value(sb, "return 1"), "1", "a run");
    snprintf(path, sizeof(path), "%s/new/made.txt", rw);
    CHECK_STR(host_text(path), "made", "the new file was written back");
    snprintf(path, sizeof(path), "%s/gone.txt", rw);
    CHECK(access(path, F_OK) != 0, "the removed file was removed on the host");
    snprintf(path, sizeof(path), "%s/keep.txt", rw);
    CHECK_STR(host_text(path), "keep", "the untouched file is still there");
    capsa_sandbox_free(sb);

    /* Copy out: never through a symlink planted on the host. */
    sb = sandbox_with(0, 0, 0);
    capsa_fs_write(sb, "/workspace/out.txt", "result", 6);
    capsa_fs_write(sb, "/workspace/deep/x.txt", "x", 1);
    capsa_fs_write(sb, "/workspace/evil/passwd", "pwned", 5);
    char out[512], victim[600];
    snprintf(out, sizeof(out), "%s/out", tmp_root);
    mkdir(out, 0755);
    snprintf(victim, sizeof(victim), "%s/victim", tmp_root);
    mkdir(victim, 0755);
    snprintf(path, sizeof(path), "%s/evil", out);
    CHECK_INT(symlink(victim, path), 0, "a host symlink is planted in the target");
    int rc = capsa_fs_copy_out(sb, "/workspace", out);
    CHECK(rc != CAPSA_OK, "copying out through a planted symlink fails");
    snprintf(path, sizeof(path), "%s/passwd", victim);
    CHECK(access(path, F_OK) != 0, "nothing was written through the symlink");
    CHECK_CONTAINS(capsa_errmsg(sb), "evil", "the message names the refused path");
    char out2[512];
    snprintf(out2, sizeof(out2), "%s/out2/nested", tmp_root);
    CHECK_INT(capsa_fs_copy_out(sb, "/workspace", out2), CAPSA_OK, "copy out to a new directory");
    snprintf(path, sizeof(path), "%s/deep/x.txt", out2);
    CHECK_STR(host_text(path), "x", "subdirectories are copied");
    capsa_sandbox_free(sb);
}

/* The mode, inode and link count of a host path (lstat), or all -1. */
typedef struct host_st {
    long mode, ino, nlink;
} host_st;

static host_st host_stat(const char *dir, const char *name)
{
    char p[700];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    struct stat st;
    if (lstat(p, &st) != 0)
        return (host_st){ -1, -1, -1 };
    return (host_st){ (long)(st.st_mode & 07777), (long)st.st_ino, (long)st.st_nlink };
}

static const char *host_link(const char *dir, const char *name)
{
    static char target[256];
    char p[700];
    snprintf(p, sizeof(p), "%s/%s", dir, name);
    ssize_t n = readlink(p, target, sizeof(target) - 1);
    if (n < 0)
        return NULL;
    target[n] = '\0';
    return target;
}

TEST(write_back_only_changes)
{
    char rw[512], p[700], q[700];
    snprintf(rw, sizeof(rw), "%s/wb", tmp_root);
    mkdir(rw, 0755);
    static const struct {
        const char *name, *text;
        mode_t mode;
    } files[] = { { "secret.txt", "secret", 0600 },
                  { "run.sh", "#!/bin/sh\necho hi\n", 0755 },
                  { "a.txt", "linked", 0644 },
                  { "gone.txt", "to be removed", 0644 } };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        snprintf(p, sizeof(p), "%s/%s", rw, files[i].name);
        write_host(p, files[i].text);
        chmod(p, files[i].mode);
    }
    snprintf(p, sizeof(p), "%s/a.txt", rw);
    snprintf(q, sizeof(q), "%s/b.txt", rw);
    CHECK_INT(link(p, q), 0, "a hard link pair on the host");
    snprintf(p, sizeof(p), "%s/link", rw);
    CHECK_INT(symlink("a.txt", p), 0, "a host symlink");
    snprintf(p, sizeof(p), "%s/pipe", rw);
    CHECK_INT(mkfifo(p, 0600), 0, "a fifo (never copied in)");
    static const char *names[] = { "secret.txt", "run.sh", "a.txt", "b.txt", "link", "gone.txt", "pipe" };
    enum { N = sizeof(names) / sizeof(names[0]) };
    host_st before[N];
    for (int i = 0; i < N; i++)
        before[i] = host_stat(rw, names[i]);

    capsa_sandbox *sb = sandbox_with(0, 0, 0);
    CHECK_INT(capsa_fs_mount(sb, rw, "/workspace/proj", CAPSA_MOUNT_RW), CAPSA_OK, "a read-write mount");
    CHECK_STR(run_value(sb, "return fs.readFileSync('/workspace/proj/secret.txt', 'utf8')"),
              "\"secret\"", "a run that reads and changes nothing");
    for (int i = 0; i < N; i++) {
        host_st now = host_stat(rw, names[i]);
        CHECK_INT(now.mode, before[i].mode, names[i]);
        CHECK_INT(now.ino, before[i].ino, names[i]);
        CHECK_INT(now.nlink, before[i].nlink, names[i]);
    }
    CHECK_STR(host_link(rw, "link"), "a.txt", "the host symlink is intact");

    CHECK_STR(run_value(sb, "fs.writeFileSync('/workspace/proj/secret.txt', 'changed'); return 1"),
              "1", "a run that changes one file");
    snprintf(p, sizeof(p), "%s/secret.txt", rw);
    CHECK_STR(host_text(p), "changed", "the changed file was written back");
    CHECK_INT(host_stat(rw, "secret.txt").mode, 0600, "with its mode kept");
    for (int i = 1; i < N; i++) {
        host_st now = host_stat(rw, names[i]);
        CHECK_INT(now.ino, before[i].ino, names[i]);
        CHECK_INT(now.nlink, before[i].nlink, names[i]);
    }
    CHECK_STR(host_link(rw, "link"), "a.txt", "the host symlink is still intact");

    /* A removal changes the directory: only what the guest removed goes. */
    CHECK_STR(run_value(sb, "fs.unlinkSync('/workspace/proj/gone.txt');"
                            "fs.mkdirSync('/workspace/proj/bin');"
                            "fs.renameSync('/workspace/proj/run.sh', '/workspace/proj/bin/run.sh');"
                            "fs.symlinkSync('/etc/passwd', '/workspace/proj/newlink'); return 1"),
              "1", "a run that removes, moves and links");
    CHECK_INT(host_stat(rw, "gone.txt").mode, -1, "the removed file is removed on the host");
    CHECK_INT(host_stat(rw, "pipe").ino, before[6].ino, "the fifo is left alone");
    CHECK_STR(host_link(rw, "link"), "a.txt", "the unchanged symlink is left alone");
    CHECK_INT(host_stat(rw, "a.txt").nlink, 2, "so are the hard links");
    CHECK_INT(host_stat(rw, "run.sh").mode, -1, "the moved file left its old name");
    CHECK_INT(host_stat(rw, "bin/run.sh").mode, 0755, "and kept its mode at the new one");
    snprintf(p, sizeof(p), "%s/bin/run.sh", rw);
    CHECK_STR(host_text(p), "#!/bin/sh\necho hi\n", "with its contents");
    CHECK_INT(host_stat(rw, "newlink").mode, -1, "no host symlink is made from the guest's");

    /* The guest replaces the host symlink with a file: the link is replaced, its
       target untouched. */
    CHECK_STR(run_value(sb, "fs.unlinkSync('/workspace/proj/link');"
                            "fs.writeFileSync('/workspace/proj/link', 'a file now'); return 1"),
              "1", "a run that replaces the symlink");
    snprintf(p, sizeof(p), "%s/link", rw);
    CHECK_STR(host_text(p), "a file now", "the host has the file");
    CHECK(host_link(rw, "link") == NULL, "instead of the link");
    snprintf(p, sizeof(p), "%s/a.txt", rw);
    CHECK_STR(host_text(p), "linked", "whose target is unchanged");
    CHECK_INT(host_stat(rw, "a.txt").nlink, 2, "and still linked");
    capsa_sandbox_free(sb);
}

/* Appends a ustar header for name (type '0' file, '5' dir, '2' symlink) and data. */
static size_t tar_entry(unsigned char *buf, const char *name, char type, const char *data,
                        const char *link, int bad_sum)
{
    size_t len = data ? strlen(data) : 0;
    memset(buf, 0, 512);
    snprintf((char *)buf, 100, "%s", name);
    memcpy(buf + 100, "0000644", 8);
    memcpy(buf + 108, "0000000", 8);
    memcpy(buf + 116, "0000000", 8);
    snprintf((char *)buf + 124, 12, "%011o", (unsigned)len);
    memcpy(buf + 136, "00000000000", 12);
    buf[156] = (unsigned char)type;
    if (link)
        snprintf((char *)buf + 157, 100, "%s", link);
    memcpy(buf + 257, "ustar", 6);
    memcpy(buf + 263, "00", 2);
    memset(buf + 148, ' ', 8);
    unsigned sum = 0;
    for (int i = 0; i < 512; i++)
        sum += buf[i];
    snprintf((char *)buf + 148, 8, "%06o", sum + (bad_sum ? 1 : 0));
    size_t n = 512;
    if (len) {
        memset(buf + 512, 0, (len + 511) / 512 * 512);
        memcpy(buf + 512, data, len);
        n += (len + 511) / 512 * 512;
    }
    return n;
}

TEST(tar_streams)
{
    capsa_sandbox *a = sandbox_with(0, 0, 0);
    capsa_fs_write(a, "/workspace/notes.md", "# notes", 7);
    char long_dir[400];
    snprintf(long_dir, sizeof(long_dir), "/workspace/%0200d/%0150d/file.txt", 1, 2);
    CHECK_INT(capsa_fs_write(a, long_dir, "long", 4), CAPSA_OK, "a file with a 370-byte path");
    capsa_fs_mkdir(a, "/workspace/empty-dir");
    char *tar = NULL;
    size_t len = 0;
    CHECK_INT(capsa_fs_export_tar(a, "/workspace", &tar, &len), CAPSA_OK, "export /workspace");
    CHECK(tar && len >= 1024 && len % 512 == 0, "a tar stream of whole blocks");
    capsa_sandbox *b = sandbox_with(0, 0, 0);
    CHECK_INT(capsa_fs_import_tar(b, "/workspace/restored", tar, len), CAPSA_OK, "import it elsewhere");
    CHECK_STR(read_text(b, "/workspace/restored/notes.md"), "# notes", "a file round-trips");
    char restored[420];
    snprintf(restored, sizeof(restored), "/workspace/restored/%0200d/%0150d/file.txt", 1, 2);
    CHECK_STR(read_text(b, restored), "long", "a long name round-trips");
    capsa_file_info info = { sizeof(info), 0, 0, 0, 0 };
    CHECK_INT(capsa_fs_stat(b, "/workspace/restored/empty-dir", &info), CAPSA_OK, "an empty directory round-trips");
    CHECK_INT(info.type, CAPSA_DIRECTORY, "as a directory");
    capsa_free(tar);
    CHECK_INT(capsa_fs_export_tar(a, "/workspace/notes.md", &tar, &len), CAPSA_ENOTDIR, "exporting a file");
    CHECK(tar == NULL, "no stream on failure");

    static unsigned char evil[8192];
    size_t n = tar_entry(evil, "ok.txt", '0', "fine", NULL, 0);
    n += tar_entry(evil + n, "../escape.txt", '0', "bad", NULL, 0);
    memset(evil + n, 0, 1024);
    CHECK_INT(capsa_fs_import_tar(b, "/workspace/in", evil, n + 1024), CAPSA_EINVAL, "a name with '..' out");
    CHECK_INT(capsa_fs_stat(b, "/workspace/in/ok.txt", &info), CAPSA_ENOENT,
              "nothing of a refused archive was written");
    CHECK_INT(capsa_fs_stat(b, "/workspace/escape.txt", &info), CAPSA_ENOENT, "nothing escaped");
    n = tar_entry(evil, "/etc/x", '0', "abs", NULL, 0);
    memset(evil + n, 0, 1024);
    CHECK_INT(capsa_fs_import_tar(b, "/workspace/in", evil, n + 1024), CAPSA_EINVAL, "an absolute name");
    n = tar_entry(evil, "sum.txt", '0', "x", NULL, 1);
    memset(evil + n, 0, 1024);
    CHECK_INT(capsa_fs_import_tar(b, "/workspace/in", evil, n + 1024), CAPSA_EINVAL, "a bad checksum");
    n = tar_entry(evil, "cut.txt", '0', "0123456789", NULL, 0);
    CHECK_INT(capsa_fs_import_tar(b, "/workspace/in", evil, 600), CAPSA_EINVAL, "a truncated stream");
    n = tar_entry(evil, "link", '2', NULL, "/workspace", 0);
    n += tar_entry(evil + n, "link/through.txt", '0', "via link", NULL, 0);
    memset(evil + n, 0, 1024);
    int rc = capsa_fs_import_tar(b, "/workspace/in", evil, n + 1024);
    CHECK(rc != CAPSA_OK, "a file written through a symlink in the same archive is refused");
    CHECK_INT(capsa_fs_stat(b, "/workspace/through.txt", &info), CAPSA_ENOENT, "nothing went through it");
    n = tar_entry(evil, "dev", '3', NULL, NULL, 0);
    memset(evil + n, 0, 1024);
    CHECK_INT(capsa_fs_import_tar(b, "/workspace/in", evil, n + 1024), CAPSA_EINVAL, "a device entry");
    CHECK_INT(capsa_fs_import_tar(b, "/workspace/in", "garbage", 7), CAPSA_EINVAL, "garbage");
    CHECK_INT(capsa_fs_import_tar(b, "/workspace/in", NULL, 5), CAPSA_EINVAL, "NULL data");
    capsa_sandbox_free(a);
    capsa_sandbox_free(b);
}

/* A tar stream of one file, name and contents given, in buf; returns its length. */
static size_t one_file_tar(unsigned char *buf, const char *name, const char *data)
{
    size_t n = tar_entry(buf, name, '0', data, NULL, 0);
    memset(buf + n, 0, 1024);
    return n + 1024;
}

TEST(host_writes_and_guest_symlinks)
{
    char host[512], path[700];
    snprintf(host, sizeof(host), "%s/ro-src", tmp_root);
    mkdir(host, 0755);
    snprintf(path, sizeof(path), "%s/a.txt", host);
    write_host(path, "read-only data");
    capsa_sandbox *sb = sandbox_with(0, 0, 0);
    CHECK_INT(capsa_fs_mount(sb, host, "/data", CAPSA_MOUNT_RO), CAPSA_OK, "a read-only mount");
    CHECK_INT(capsa_fs_write(sb, "/log/actions.jsonl", "trail\n", 6), CAPSA_OK, "an audit trail");
    CHECK_INT(capsa_fs_write(sb, "/tools/x.d.ts", "declare", 7), CAPSA_OK, "a declaration");
    CHECK_STR(run_value(sb, "const links = { 'task.txt': '/log/actions.jsonl', logdir: '/log',"
                            " tl: '/tools', decl: '/tools/x.d.ts', a: '/data/a.txt', d: '/data',"
                            " rel: '../tools', 'fine.txt': '/tmp/ok.txt', tmpdir: '/tmp' };"
                            "for (const [k, v] of Object.entries(links)) fs.symlinkSync(v, '/workspace/' + k);"
                            "return fs.readdirSync('/workspace').length"),
              "9", "the guest plants symlinks");

    /* Through a link to where the guest may not write: refused, nothing changed. */
    static const char *refused[] = { "/workspace/task.txt", "/workspace/decl", "/workspace/a",
                                     "/workspace/tl/new.d.ts", "/workspace/rel/new.d.ts",
                                     "/workspace/logdir/new.jsonl", "/workspace/d/new.txt",
                                     "/workspace/tl/sub/new.txt" };
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        CHECK_INT(capsa_fs_write(sb, refused[i], "overwritten", 11), CAPSA_EINVAL, refused[i]);
        CHECK_CONTAINS(capsa_errmsg(sb), "symlink", "the message says why");
    }
    CHECK_STR(read_text(sb, "/log/actions.jsonl"), "trail\n", "the audit trail is intact");
    CHECK_STR(read_text(sb, "/tools/x.d.ts"), "declare", "the declaration is intact");
    CHECK_STR(read_text(sb, "/data/a.txt"), "read-only data", "the read-only mount is intact");
    capsa_file_info info = { sizeof(info), 0, 0, 0, 0 };
    CHECK_INT(capsa_fs_stat(sb, "/tools/new.d.ts", &info), CAPSA_ENOENT, "nothing made in /tools");
    CHECK_INT(capsa_fs_stat(sb, "/tools/sub", &info), CAPSA_ENOENT, "no directory either");
    CHECK_INT(capsa_fs_stat(sb, "/log/new.jsonl", &info), CAPSA_ENOENT, "nothing made in /log");
    CHECK_INT(capsa_fs_mkdir(sb, "/workspace/tl/sub"), CAPSA_EINVAL, "mkdir through the link");
    CHECK_INT(capsa_fs_remove(sb, "/workspace/tl/x.d.ts", 0), CAPSA_EINVAL, "remove through it");
    CHECK_INT(capsa_fs_remove(sb, "/workspace/logdir/actions.jsonl", 0), CAPSA_EINVAL,
              "remove of the trail through a link to /log");
    CHECK_INT(capsa_fs_remove(sb, "/workspace/d", 1), CAPSA_OK,
              "a final symlink is removed itself, not followed");
    CHECK_STR(read_text(sb, "/data/a.txt"), "read-only data", "its target is intact");
    static unsigned char tar[4096];
    size_t tn = one_file_tar(tar, "evil.d.ts", "evil");
    CHECK_INT(capsa_fs_import_tar(sb, "/workspace/tl", tar, tn), CAPSA_EINVAL,
              "a tar import into a link to /tools");
    tn = one_file_tar(tar, "tl/evil.d.ts", "evil");
    CHECK_INT(capsa_fs_import_tar(sb, "/workspace", tar, tn), CAPSA_EINVAL,
              "a tar entry through a link inside the target");
    tn = one_file_tar(tar, "tl/deeper/evil.d.ts", "evil");
    CHECK_INT(capsa_fs_import_tar(sb, "/workspace", tar, tn), CAPSA_EINVAL,
              "a tar entry whose new parents would be made through the link");
    CHECK_INT(capsa_fs_stat(sb, "/tools/evil.d.ts", &info), CAPSA_ENOENT, "nothing of them in /tools");
    CHECK_INT(capsa_fs_stat(sb, "/tools/deeper", &info), CAPSA_ENOENT, "not even a directory");
    CHECK_INT(capsa_fs_mount(sb, host, "/workspace/tl", CAPSA_MOUNT_RW), CAPSA_EINVAL,
              "a mount through a link to /tools");
    CHECK_INT(capsa_fs_mount(sb, host, "/workspace/logdir", CAPSA_MOUNT_RW), CAPSA_EINVAL,
              "a mount through a link to /log");
    CHECK_INT(capsa_fs_stat(sb, "/tools/a.txt", &info), CAPSA_ENOENT, "nothing copied into /tools");
    CHECK_STR(run_value(sb, "const r = [];"
                            "for (const f of ['/tools/y', '/log/actions.jsonl'])"
                            " try { fs.writeFileSync(f, 'guest'); r.push('written'); } catch (e) { r.push(e.code); }"
                            "return r"),
              "[\"EROFS\",\"EPERM\"]", "/tools and /log are as read-only for the guest as before");

    /* Through a link to where the guest may write itself: done, as POSIX does. */
    CHECK_INT(capsa_fs_write(sb, "/workspace/fine.txt", "fine", 4), CAPSA_OK, "a link into /tmp");
    CHECK_STR(read_text(sb, "/tmp/ok.txt"), "fine", "written where it leads");
    CHECK_INT(capsa_fs_write(sb, "/workspace/tmpdir/sub/x.txt", "x", 1), CAPSA_OK, "a directory link into /tmp");
    CHECK_STR(read_text(sb, "/tmp/sub/x.txt"), "x", "with its new parent");
    tn = one_file_tar(tar, "from-tar.txt", "tar");
    CHECK_INT(capsa_fs_import_tar(sb, "/workspace/tmpdir", tar, tn), CAPSA_OK, "a tar through it");
    CHECK_STR(read_text(sb, "/tmp/from-tar.txt"), "tar", "lands in /tmp");
    /* The host's own paths are not limited. */
    CHECK_INT(capsa_fs_write(sb, "/tools/y.d.ts", "y", 1), CAPSA_OK, "a direct write to /tools");
    CHECK_INT(capsa_fs_write(sb, "/log/actions.jsonl", "host\n", 5), CAPSA_OK, "and to /log");
    CHECK_INT(capsa_fs_remove(sb, "/workspace/task.txt", 0), CAPSA_OK, "the planted link is removed");
    CHECK_STR(read_text(sb, "/log/actions.jsonl"), "host\n", "and the trail is not");
    capsa_sandbox_free(sb);
}

TEST(files_outlive_runs_and_resets)
{
    capsa_options o;
    capsa_options_init(&o);
    o.timeout_ms = 200;
    capsa_sandbox *sb = NULL;
    CHECK_INT(capsa_sandbox_new(engine, &o, &sb), CAPSA_OK, "a sandbox with a timeout");
    capsa_fs_write(sb, "/workspace/state.txt", "kept", 4);
    CHECK_INT(capsa_reset(sb), CAPSA_OK, "reset");
    CHECK_STR(read_text(sb, "/workspace/state.txt"), "kept", "files survive a reset");
    const capsa_result *r = NULL;
    CHECK_INT(capsa_run(sb, "for(;;){}", 9, NULL, &r), CAPSA_ETIMEOUT, "a run stopped by its limit");
    CHECK_STR(read_text(sb, "/workspace/state.txt"), "kept", "files survive a stopped run");
    capsa_sandbox_free(sb);
}

TEST(dev_null)
{
    capsa_sandbox *sb = sandbox_with(0, 0, 0);
    char names[256] = "";
    CHECK_INT(capsa_fs_list(sb, "/dev", list_fn, names), CAPSA_OK, "list /dev");
    CHECK_STR(names, "null ", "one entry, null");
    capsa_file_info info = { sizeof(info), 0, 0, 0, 0 };
    CHECK_INT(capsa_fs_stat(sb, "/dev", &info), CAPSA_OK, "stat /dev");
    CHECK_INT(info.type, CAPSA_DIRECTORY, "a directory");
    CHECK_INT(info.guest_writable, 0, "that the guest cannot change");
    CHECK_INT(capsa_fs_stat(sb, "/dev/null", &info), CAPSA_OK, "stat /dev/null");
    CHECK_INT(info.type, CAPSA_FILE, "the public API has no devices: a file");
    CHECK_INT(info.size, 0, "empty");
    CHECK_INT(info.guest_writable, 1, "that the guest may write");
    CHECK_STR(read_text(sb, "/dev/null"), "", "the host reads it empty");
    CHECK_INT(capsa_fs_write(sb, "/dev/null", "discarded", 9), CAPSA_OK, "the host writes to it");
    CHECK_STR(read_text(sb, "/dev/null"), "", "and nothing is kept");
    CHECK_INT(capsa_fs_remove(sb, "/dev/null", 0), CAPSA_EINVAL, "it cannot be removed");
    CHECK_CONTAINS(capsa_errmsg(sb), "device", "the message says why");
    CHECK_INT(capsa_fs_remove(sb, "/dev", 1), CAPSA_EINVAL, "nor /dev");
    CHECK_INT(capsa_fs_stat(sb, "/dev/null", &info), CAPSA_OK, "it is still there");
    CHECK_INT(capsa_fs_mkdir(sb, "/dev/null"), CAPSA_ENOTDIR, "no directory over it");

    /* The guest: writes of any size vanish, reads end at once, no quota used. */
    CHECK_STR(run_value(sb,
                        "const big = 'x'.repeat(1 << 20);"
                        "for (let i = 0; i < 100; i++) fs.writeFileSync('/dev/null', big);"
                        "fs.appendFileSync('/dev/null', 'more');"
                        "const st = fs.statSync('/dev/null');"
                        "return [fs.readFileSync('/dev/null', 'utf8'), st.size, st.isFile(),"
                        " fs.readdirSync('/dev'), fs.readdirSync('/').includes('dev')];"),
              "[\"\",0,false,[\"null\"],true]", "100 MiB written to /dev/null from the guest");
    CHECK_STR(run_value(sb,
                        "const r = [];"
                        "for (const f of [() => fs.unlinkSync('/dev/null'),"
                        " () => fs.renameSync('/dev/null', '/tmp/n'),"
                        " () => fs.writeFileSync('/dev/x', 'x'),"
                        " () => fs.mkdirSync('/dev/null'),"
                        " () => fs.writeFileSync('/dev/null', 'x', { flag: 'wx' })])"
                        " try { f(); r.push('ok'); } catch (e) { r.push(e.code); }"
                        "fs.writeFileSync('/tmp/f', 'f');"
                        "try { fs.renameSync('/tmp/f', '/dev/null'); r.push('ok'); } catch (e) { r.push(e.code); }"
                        "return r;"),
              "[\"EROFS\",\"EROFS\",\"EROFS\",\"EEXIST\",\"EEXIST\",\"EROFS\"]",
              "the guest cannot remove, rename, replace or add to it");
    CHECK_STR(read_text(sb, "/dev/null"), "", "still empty after the runs");

    /* Copies out: no host file is made from the device. */
    char out[600], p[700];
    snprintf(out, sizeof(out), "%s/devout", tmp_root);
    CHECK_INT(capsa_fs_copy_out(sb, "/", out), CAPSA_OK, "copy / out");
    snprintf(p, sizeof(p), "%s/dev/null", out);
    struct stat st;
    CHECK(lstat(p, &st) != 0, "no dev/null on the host");
    snprintf(p, sizeof(p), "%s/tmp/f", out);
    CHECK(lstat(p, &st) == 0, "while the guest's file is there");
    char *tar = NULL;
    size_t len = 0;
    CHECK_INT(capsa_fs_export_tar(sb, "/", &tar, &len), CAPSA_OK, "a tar of /");
    int has_null = 0;
    for (size_t i = 0; tar && i + 8 <= len; i += 512)
        if (memcmp(tar + i, "dev/null", 8) == 0)
            has_null = 1;
    CHECK(!has_null, "without dev/null");
    capsa_sandbox *b = sandbox_with(0, 0, 0);
    CHECK_INT(capsa_fs_import_tar(b, "/", tar, len), CAPSA_OK, "it imports into another sandbox's /");
    CHECK_STR(read_text(b, "/tmp/f"), "f", "with its files");
    capsa_free(tar);
    capsa_sandbox_free(b);
    capsa_sandbox_free(sb);
}

/* The deepest a directory may be: /workspace is level 1. */
#define DEPTH_MAX CAPSA_FS_MAX_DEPTH

/* Runs fn(arg) on a thread with a 64 KiB stack: a host walk that recursed once per
 * level of a deep tree, with a path buffer per level, would overflow it. */
static int on_small_stack(void *(*fn)(void *), void *arg)
{
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setstacksize(&at, 64 << 10);
    pthread_t t;
    int e = pthread_create(&t, &at, fn, arg);
    pthread_attr_destroy(&at);
    return e ? e : pthread_join(t, NULL);
}

typedef struct deep_job {
    capsa_sandbox *sb, *other;
    const char *host;
    int rc_tar, rc_copy, rc_mount, rc_import, rc_remove;
    size_t tar_len;
} deep_job;

/* Every host walk of the deep tree, then freeing the sandboxes. */
static void *deep_walks(void *arg)
{
    deep_job *j = arg;
    char *tar = NULL;
    j->rc_tar = capsa_fs_export_tar(j->sb, "/workspace", &tar, &j->tar_len);
    j->rc_copy = capsa_fs_copy_out(j->sb, "/workspace", j->host);
    char from[600];
    snprintf(from, sizeof(from), "%s/deep", j->host);
    j->rc_mount = capsa_fs_mount(j->other, from, "/workspace/again", CAPSA_MOUNT_RO);
    j->rc_import = capsa_fs_import_tar(j->other, "/tmp", tar, j->tar_len);
    capsa_free(tar);
    j->rc_remove = capsa_fs_remove(j->sb, "/workspace/deep", 1);
    capsa_sandbox_free(j->sb);
    capsa_sandbox_free(j->other);
    return NULL;
}

static void *run_on_small_stack(void *arg)
{
    deep_job *j = arg;
    j->rc_remove = capsa_run(j->sb, "return 1", 8, NULL, NULL);
    return NULL;
}

TEST(deep_trees)
{
    capsa_sandbox *sb = sandbox_with(0, 0, 0);
    /* The guest nests directories as deep as it can: the depth limit stops it
       well before the path length limit would. */
    char want[64];
    snprintf(want, sizeof(want), "[\"ENAMETOOLONG\",%d]", DEPTH_MAX - 2);
    CHECK_STR(run_value(sb, "let p = '/workspace/deep', n = 0, code = 'none';"
                            "fs.mkdirSync(p);"
                            "try { for (;;) { fs.mkdirSync(p + '/d'); p += '/d'; n++; } }"
                            "catch (e) { code = e.code; }"
                            "fs.writeFileSync(p + '/leaf.txt', 'leaf');"
                            "return [code, n];"),
              want, "the guest's directories stop at the depth limit");
    char deepest[DEPTH_MAX * 2 + 64] = "/workspace/deep";
    for (int i = 2; i < DEPTH_MAX; i++)
        strcat(deepest, "/d");
    char path[sizeof(deepest) + 32];
    snprintf(path, sizeof(path), "%s/leaf.txt", deepest);
    CHECK_STR(read_text(sb, path), "leaf", "a file in the deepest directory");
    snprintf(path, sizeof(path), "%s/d", deepest);
    CHECK_INT(capsa_fs_mkdir(sb, path), CAPSA_EINVAL, "the host cannot nest deeper either");
    CHECK_CONTAINS(capsa_errmsg(sb), "deep", "the message says why");
    snprintf(path, sizeof(path), "%s/d/x.txt", deepest);
    CHECK_INT(capsa_fs_write(sb, path, "x", 1), CAPSA_EINVAL, "nor write below the limit");
    /* Renames cannot stack trees deeper than the limit. */
    snprintf(want, sizeof(want), "[\"ENAMETOOLONG\",\"ok\"]");
    CHECK_STR(run_value(sb, "const r = [];"
                            "fs.mkdirSync('/workspace/t/a/b', { recursive: true });"
                            "const at = '/workspace/deep' + '/d'.repeat(253);"
                            "try { fs.renameSync('/workspace/t', at + '/t'); r.push('ok'); }"
                            "catch (e) { r.push(e.code); }"
                            "try { fs.renameSync('/workspace/t/a/b', at + '/b'); r.push('ok'); }"
                            "catch (e) { r.push(e.code); }"
                            "return r;"),
              want, "a rename too deep is refused, one that fits is done");

    /* Every host walk on a 64 KiB stack. */
    char host[512];
    snprintf(host, sizeof(host), "%s/deep-copy", tmp_root);
    deep_job j = { sb, sandbox_with(0, 0, 0), host, -1, -1, -1, -1, -1, 0 };
    CHECK_INT(on_small_stack(deep_walks, &j), 0, "a thread with a small stack");
    CHECK_INT(j.rc_tar, CAPSA_OK, "export_tar of the deep tree");
    CHECK(j.tar_len > (size_t)DEPTH_MAX * 512, "a header per level");
    CHECK_INT(j.rc_copy, CAPSA_OK, "copy_out of the deep tree");
    char host_leaf[sizeof(deepest) + 600];
    snprintf(host_leaf, sizeof(host_leaf), "%s%s/leaf.txt", host, deepest + strlen("/workspace"));
    CHECK_STR(host_text(host_leaf), "leaf", "the deepest file on the host");
    CHECK_INT(j.rc_mount, CAPSA_OK, "a mount of the deep host tree");
    CHECK_INT(j.rc_import, CAPSA_OK, "import_tar of the deep tree");
    CHECK_INT(j.rc_remove, CAPSA_OK, "recursive remove of the deep tree");

    /* Write-back of a read-write mount, on a small stack too. */
    char rw[512];
    snprintf(rw, sizeof(rw), "%s/deep-rw", tmp_root);
    mkdir(rw, 0755);
    sb = sandbox_with(0, 0, 0);
    CHECK_INT(capsa_fs_mount(sb, rw, "/workspace/m", CAPSA_MOUNT_RW), CAPSA_OK, "a read-write mount");
    snprintf(want, sizeof(want), "%d", DEPTH_MAX - 2);
    CHECK_STR(run_value(sb, "let p = '/workspace/m', n = 0;"
                            "try { for (;;) { fs.mkdirSync(p + '/d'); p += '/d'; n++; } } catch (e) {}"
                            "fs.writeFileSync(p + '/leaf.txt', 'rw leaf');"
                            "return n;"),
              want, "the guest nests directories in the mount");
    char rw_leaf[sizeof(deepest) + 600];
    snprintf(rw_leaf, sizeof(rw_leaf), "%s%s/leaf.txt", rw, deepest + strlen("/workspace/deep"));
    CHECK_STR(host_text(rw_leaf), "rw leaf", "written back to the host");
    CHECK_STR(run_value(sb, "fs.rmSync('/workspace/m/d', { recursive: true }); return 0"), "0",
              "the guest removes the deep tree");
    j.sb = sb;
    CHECK_INT(on_small_stack(run_on_small_stack, &j), 0, "a run on a small stack");
    CHECK_INT(j.rc_remove, CAPSA_OK, "its write-back");
    snprintf(path, sizeof(path), "%s/d", rw);
    CHECK(access(path, F_OK) != 0, "the deep host tree was removed on the host");
    capsa_sandbox_free(sb);
}

int main(void)
{
    if (!mkdtemp(tmp_root)) {
        perror("mkdtemp");
        return 1;
    }
    if (capsa_engine_new(NULL, &engine) != CAPSA_OK) {
        fprintf(stderr, "cannot create an engine\n");
        return 1;
    }
    RUN(write_read_list_stat_remove);
    RUN(bad_arguments);
    RUN(quotas);
    RUN(mounts_and_copy_out);
    RUN(write_back_only_changes);
    RUN(tar_streams);
    RUN(host_writes_and_guest_symlinks);
    RUN(files_outlive_runs_and_resets);
    RUN(dev_null);
    RUN(deep_trees);
    capsa_engine_free(engine);
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp_root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmp_root);
    return test_summary("test_fs");
}
