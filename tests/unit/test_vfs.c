/* The in-memory filesystem on its own: layout and modes, path resolution and
 * confinement, every operation's errors, quotas, allocation failure at every
 * allocation, host directory import/export, and tar streams (also malicious);
 * depth limits; the host never led by the guest's symlinks. */
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../src/vfs.h"
#include "../../src/vfs_host.h"
#include "../../src/vfs_tar.h"
#include "test.h"

#define S(s) (s), strlen(s)
#define G CAPSA__VFS_GUEST
#define H CAPSA__VFS_HOST
#define F CAPSA__VFS_FOLLOW
#define RD (1u << CAPSA__VFS_READ)
#define WR (1u << CAPSA__VFS_WRITE)
#define AP (1u << CAPSA__VFS_APPEND_OP)

static capsa__vfs *new_vfs(const capsa__vfs_quota *q)
{
    capsa__vfs *v = NULL;
    int e = capsa__vfs_new(&capsa__default_allocator, q, &v);
    CHECK_INT(e, 0, "a filesystem is created");
    return v;
}

/* The directory at an absolute path, resolved as the host. */
static capsa__vnode *dir_at(capsa__vfs *v, const char *path)
{
    capsa__vfs_where w;
    if (capsa__vfs_walk(v, capsa__vfs_root(v), S(path), F, H, &w) || !w.node)
        return NULL;
    return w.node;
}

/* Writes a whole file (created or truncated) as `who` from base. */
static int put(capsa__vfs *v, capsa__vnode *base, const char *path, const char *data, int who)
{
    capsa__vnode *n;
    int e = capsa__vfs_open(v, base, S(path), F, CAPSA__VFS_O_CREAT | CAPSA__VFS_O_TRUNC, WR, who, &n);
    if (e)
        return e;
    e = capsa__vfs_write(v, n, 0, data, strlen(data), 0, NULL, who);
    capsa__vfs_unref(v, n);
    return e;
}

/* Reads a whole file into buf (NUL-terminated); returns a WASI errno. */
static int get(capsa__vfs *v, capsa__vnode *base, const char *path, char *buf, size_t size)
{
    capsa__vnode *n;
    int e = capsa__vfs_open(v, base, S(path), F, 0, RD, H, &n);
    if (e)
        return e;
    size_t got = 0;
    e = capsa__vfs_read(v, n, 0, buf, size - 1, &got, H);
    buf[got] = '\0';
    capsa__vfs_unref(v, n);
    return e;
}

static int type_at(capsa__vfs *v, const char *path)
{
    capsa__vfs_stat st;
    if (capsa__vfs_stat(v, capsa__vfs_root(v), S(path), 0, H, &st))
        return -1;
    return (int)st.type;
}

TEST(layout_and_modes)
{
    capsa__vfs *v = new_vfs(NULL);
    capsa__vnode *root = capsa__vfs_root(v), *dummy;
    static const struct {
        const char *path;
        capsa__vfs_mode mode;
    } want[] = { { "/", CAPSA__VFS_RO },         { "/workspace", CAPSA__VFS_RW },
                 { "/tmp", CAPSA__VFS_RW },      { "/tools", CAPSA__VFS_RO },
                 { "/log", CAPSA__VFS_APPEND } };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        capsa__vfs_stat st;
        CHECK_INT(capsa__vfs_stat(v, root, S(want[i].path), 0, G, &st), 0, want[i].path);
        CHECK_INT(st.type, CAPSA__VFS_DIR, "a directory");
        CHECK_INT(st.mode, want[i].mode, "the mount's mode");
    }
    uint64_t bytes, entries;
    capsa__vfs_usage(v, &bytes, &entries);
    CHECK_INT(bytes, 0, "a new filesystem uses no bytes");
    CHECK_INT(entries, 0, "mount roots are not counted as entries");
    CHECK_INT(capsa__vfs_mkdir(v, root, S("x"), G), CAPSA__WASI_EROFS, "/ is read-only");
    CHECK_INT(put(v, root, "/tools/t", "x", G), CAPSA__WASI_EROFS, "/tools is read-only");
    CHECK_INT(put(v, root, "/workspace/a", "x", G), 0, "/workspace is writable");
    CHECK_INT(put(v, root, "/tmp/a", "x", G), 0, "/tmp is writable");
    CHECK_INT(put(v, root, "/tools/t", "tool", H), 0, "the host writes anywhere");
    CHECK_INT(capsa__vfs_unlink(v, root, S("/tools/t"), G), CAPSA__WASI_EROFS, "no removal in /tools");
    CHECK_INT(capsa__vfs_rmdir(v, root, S("/workspace"), G), CAPSA__WASI_EBUSY, "a mount root stays");
    CHECK_INT(capsa__vfs_rmdir(v, root, S("/tmp"), H), CAPSA__WASI_EBUSY, "even for the host");
    CHECK_INT(capsa__vfs_rename(v, root, S("/tmp"), root, S("/tmp2"), H), CAPSA__WASI_EBUSY,
              "a mount root cannot be renamed");
    CHECK_INT(capsa__vfs_mount(v, "/workspace/ro/deep", CAPSA__VFS_RO), 0, "a nested mount");
    CHECK_INT(put(v, root, "/workspace/ro/deep/f", "x", G), CAPSA__WASI_EROFS, "follows its mode");
    CHECK_INT(put(v, root, "/workspace/ro/f", "x", G), 0, "above it, the outer mode");
    CHECK_INT(put(v, root, "/workspace/later/f", "x", H), CAPSA__WASI_ENOENT, "no parents made");
    CHECK_INT(capsa__vfs_mkdir(v, root, S("/workspace/later"), G), 0, "a directory");
    CHECK_INT(capsa__vfs_mkdir(v, root, S("/workspace/later/sub"), G), 0, "a subdirectory");
    CHECK_INT(put(v, root, "/workspace/later/sub/f", "x", G), 0, "a file in it");
    CHECK_INT(capsa__vfs_mount(v, "/workspace/later", CAPSA__VFS_RO), 0, "mounted over content");
    CHECK_INT(put(v, root, "/workspace/later/sub/f", "y", G), CAPSA__WASI_EROFS,
              "the existing content follows the new mode");
    CHECK_INT(capsa__vfs_open(v, root, S("/workspace/later"), 0, CAPSA__VFS_O_CREAT, RD, H, &dummy),
              CAPSA__WASI_EISDIR, "O_CREAT on a directory");
    CHECK_INT(capsa__vfs_mount(v, "/workspace/a/b", CAPSA__VFS_RW), CAPSA__WASI_ENOTDIR,
              "no mount below a file");
    capsa__vfs_free(v);
    capsa__vfs_free(NULL);
}

TEST(append_only_log)
{
    capsa__vfs *v = new_vfs(NULL);
    capsa__vnode *root = capsa__vfs_root(v), *n;
    CHECK_INT(put(v, root, "/log/run.log", "one\n", H), 0, "the host creates a log");
    CHECK_INT(capsa__vfs_open(v, root, S("/log/run.log"), F, 0, RD | AP, G, &n), 0,
              "the guest opens it to append");
    uint64_t end = 0;
    CHECK_INT(capsa__vfs_write(v, n, 0, "two\n", 4, 1, &end, G), 0, "and appends");
    CHECK_INT(end, 8, "at the end");
    CHECK_INT(capsa__vfs_write(v, n, 0, "XX", 2, 0, &end, G), CAPSA__WASI_EPERM, "no overwrite");
    CHECK_INT(capsa__vfs_truncate(v, n, 0, G), CAPSA__WASI_EPERM, "no truncate");
    uint64_t t = 5;
    CHECK_INT(capsa__vfs_set_times(v, n, &t, &t, G), CAPSA__WASI_EPERM, "no settimes");
    capsa__vfs_unref(v, n);
    char buf[64];
    CHECK_INT(get(v, root, "/log/run.log", buf, sizeof buf), 0, "read back");
    CHECK_STR(buf, "one\ntwo\n", "appended, nothing overwritten");
    CHECK_INT(capsa__vfs_open(v, root, S("/log/run.log"), F, 0, WR, G, &n), CAPSA__WASI_EPERM,
              "no open for writing");
    CHECK_INT(capsa__vfs_open(v, root, S("/log/run.log"), F, CAPSA__VFS_O_TRUNC, RD, G, &n),
              CAPSA__WASI_EPERM, "no O_TRUNC");
    CHECK_INT(put(v, root, "/log/new", "x", G), CAPSA__WASI_EPERM, "no create");
    CHECK_INT(capsa__vfs_mkdir(v, root, S("/log/d"), G), CAPSA__WASI_EPERM, "no mkdir");
    CHECK_INT(capsa__vfs_unlink(v, root, S("/log/run.log"), G), CAPSA__WASI_EPERM, "no remove");
    CHECK_INT(capsa__vfs_rename(v, root, S("/log/run.log"), root, S("/log/x"), G),
              CAPSA__WASI_EPERM, "no rename");
    CHECK_INT(capsa__vfs_symlink(v, S("x"), root, S("/log/l"), G), CAPSA__WASI_EPERM, "no symlink");
    capsa__vfs_dirent de;
    CHECK_INT(capsa__vfs_readdir(v, dir_at(v, "/log"), 2, &de, G), 0, "listing is allowed");
    CHECK_STR(de.name, "run.log", "the log is listed");
    capsa__vfs_free(v);
}

TEST(walk_basics)
{
    capsa__vfs *v = new_vfs(NULL);
    capsa__vnode *root = capsa__vfs_root(v), *ws = dir_at(v, "/workspace");
    capsa__vfs_where w;
    CHECK_INT(capsa__vfs_mkdir(v, ws, S("dir"), G), 0, "mkdir dir");
    CHECK_INT(capsa__vfs_mkdir(v, ws, S("dir/nested"), G), 0, "mkdir dir/nested");
    CHECK_INT(put(v, ws, "dir/nested/file", "data", G), 0, "a file");
    CHECK_INT(capsa__vfs_walk(v, ws, S("dir/.//nested/../../dir/nested/../nested///./file"), 0, G, &w),
              0, "dots and repeated slashes");
    CHECK(w.node && capsa__vfs_node_type(w.node) == CAPSA__VFS_FILE, "they reach the file");
    CHECK_STR(w.name, "file", "the last component");
    CHECK_INT(capsa__vfs_walk(v, ws, S("dir/nested/file/"), 0, G, &w), CAPSA__WASI_ENOTDIR,
              "a trailing slash on a file");
    CHECK_INT(capsa__vfs_walk(v, ws, S("dir/nested///"), 0, G, &w), 0, "trailing slashes on a dir");
    CHECK(w.trailing_slash && w.node, "noted");
    CHECK_INT(capsa__vfs_walk(v, ws, S("dir/missing/x"), 0, G, &w), CAPSA__WASI_ENOENT,
              "a missing middle component");
    CHECK_INT(capsa__vfs_walk(v, ws, S("dir/nested/file/x"), 0, G, &w), CAPSA__WASI_ENOTDIR,
              "a file in the middle");
    CHECK_INT(capsa__vfs_symlink(v, S("dir/nested/file"), ws, S("tofile"), G), 0, "a link to a file");
    CHECK_INT(capsa__vfs_walk(v, ws, S("tofile/x"), 0, G, &w), CAPSA__WASI_ENOTDIR,
              "a symlink to a file in the middle");
    CHECK_INT(capsa__vfs_walk(v, ws, S("dir/new"), 0, G, &w), 0, "a missing last component");
    CHECK(w.node == NULL && w.dir != NULL, "gives its directory and no node");
    CHECK_INT(capsa__vfs_walk(v, ws, "", 0, 0, G, &w), CAPSA__WASI_ENOENT, "an empty path");
    CHECK_INT(capsa__vfs_walk(v, ws, S("."), 0, G, &w), 0, "\".\"");
    CHECK(w.node == ws && w.dir == NULL, "names the base itself");
    /* confinement */
    CHECK_INT(capsa__vfs_walk(v, ws, S(".."), 0, G, &w), CAPSA__WASI_ENOTCAPABLE, "\"..\" at base");
    CHECK_INT(capsa__vfs_walk(v, ws, S("dir/../../workspace/dir"), 0, G, &w),
              CAPSA__WASI_ENOTCAPABLE, "never above base, even on the way back");
    CHECK_INT(capsa__vfs_walk(v, ws, S("/workspace/dir"), 0, G, &w), CAPSA__WASI_ENOTCAPABLE,
              "an absolute path from a non-root base");
    CHECK_INT(capsa__vfs_walk(v, root, S("/workspace/dir"), 0, G, &w), 0,
              "an absolute path from the root");
    CHECK_INT(capsa__vfs_walk(v, root, S(".."), 0, G, &w), CAPSA__WASI_ENOTCAPABLE,
              "the guest's \"..\" at the root");
    CHECK_INT(capsa__vfs_walk(v, root, S("/../../workspace"), 0, H, &w), 0,
              "the host's \"..\" at the root stays there");
    CHECK(w.node == ws, "and reaches /workspace");
    capsa__vnode *dir = dir_at(v, "/workspace/dir");
    CHECK_INT(capsa__vfs_walk(v, dir, S("../dir"), 0, H, &w), 0, "the host may climb above base");
    /* validation */
    CHECK_INT(capsa__vfs_walk(v, ws, "dir\0x", 5, 0, G, &w), CAPSA__WASI_EINVAL, "NUL");
    CHECK_INT(capsa__vfs_walk(v, ws, S("dir/\xff"), 0, G, &w), CAPSA__WASI_EILSEQ, "bad UTF-8");
    CHECK_INT(capsa__vfs_walk(v, ws, S("\xc0\xaf"), 0, G, &w), CAPSA__WASI_EILSEQ, "overlong UTF-8");
    CHECK_INT(capsa__vfs_walk(v, ws, S("\xed\xa0\x80"), 0, G, &w), CAPSA__WASI_EILSEQ, "a surrogate");
    CHECK_INT(capsa__vfs_walk(v, ws, S("d\xc3\xa9j\xc3\xa0"), 0, G, &w), 0, "good UTF-8");
    char longp[CAPSA__VFS_PATH_MAX + 2];
    memset(longp, 'a', sizeof longp);
    for (size_t i = 100; i < sizeof longp; i += 101)
        longp[i] = '/';
    CHECK_INT(capsa__vfs_walk(v, ws, longp, CAPSA__VFS_PATH_MAX + 1, 0, G, &w),
              CAPSA__WASI_ENAMETOOLONG, "a path over 4096 bytes");
    CHECK_INT(capsa__vfs_walk(v, ws, longp, CAPSA__VFS_PATH_MAX, 0, G, &w), CAPSA__WASI_ENOENT,
              "4096 bytes is allowed");
    memset(longp, 'b', 256);
    CHECK_INT(capsa__vfs_walk(v, ws, longp, 256, 0, G, &w), CAPSA__WASI_ENAMETOOLONG,
              "a component over 255 bytes");
    CHECK_INT(capsa__vfs_walk(v, ws, longp, 255, 0, G, &w), 0, "255 bytes is allowed");
    capsa__vnode *f;
    CHECK_INT(capsa__vfs_open(v, ws, S("dir/nested/file"), 0, 0, RD, G, &f), 0, "open a file");
    CHECK_INT(capsa__vfs_walk(v, f, S("x"), 0, G, &w), CAPSA__WASI_ENOTDIR, "a file as base");
    capsa__vfs_unref(v, f);
    capsa__vfs_free(v);
}

TEST(symlinks)
{
    capsa__vfs *v = new_vfs(NULL);
    capsa__vnode *root = capsa__vfs_root(v), *ws = dir_at(v, "/workspace"), *n;
    capsa__vfs_where w;
    CHECK_INT(capsa__vfs_mkdir(v, ws, S("sub"), G), 0, "mkdir");
    capsa__vnode *sub = dir_at(v, "/workspace/sub");
    CHECK_INT(put(v, ws, "f", "hello", G), 0, "a file");
    CHECK_INT(capsa__vfs_symlink(v, S("../f"), ws, S("sub/up"), G), 0, "a relative symlink");
    CHECK_INT(capsa__vfs_walk(v, ws, S("sub/up"), F, G, &w), 0, "resolves from its directory");
    CHECK(w.node && capsa__vfs_node_type(w.node) == CAPSA__VFS_FILE, "to the file");
    CHECK_INT(capsa__vfs_walk(v, sub, S("up"), F, G, &w), CAPSA__WASI_ENOTCAPABLE,
              "but not above base");
    CHECK_INT(capsa__vfs_walk(v, ws, S("sub/up"), 0, G, &w), 0, "not followed without FOLLOW");
    CHECK(w.node && capsa__vfs_node_type(w.node) == CAPSA__VFS_SYMLINK, "gives the symlink");
    CHECK_INT(capsa__vfs_symlink(v, S("/etc/passwd"), ws, S("abs"), G), 0, "an absolute target");
    CHECK_INT(capsa__vfs_walk(v, ws, S("abs"), F, G, &w), CAPSA__WASI_ENOTCAPABLE,
              "refused from a non-root base");
    CHECK_INT(capsa__vfs_symlink(v, S("/workspace/f"), ws, S("abs2"), G), 0, "an absolute target");
    CHECK_INT(capsa__vfs_walk(v, root, S("/workspace/abs2"), F, G, &w), 0,
              "restarts at the root when base is the root");
    CHECK_INT(capsa__vfs_symlink(v, S("../../.."), ws, S("sub/esc"), G), 0, "an escaping link");
    CHECK_INT(capsa__vfs_walk(v, ws, S("sub/esc/tmp"), 0, G, &w), CAPSA__WASI_ENOTCAPABLE,
              "cannot be used to escape");
    CHECK_INT(capsa__vfs_symlink(v, S("loop"), ws, S("loop"), G), 0, "a self loop");
    CHECK_INT(capsa__vfs_walk(v, ws, S("loop"), F, G, &w), CAPSA__WASI_ELOOP, "ELOOP");
    CHECK_INT(capsa__vfs_walk(v, ws, S("loop/x"), 0, G, &w), CAPSA__WASI_ELOOP, "ELOOP in the middle");
    CHECK_INT(capsa__vfs_open(v, ws, S("loop"), 0, 0, RD, G, &n), CAPSA__WASI_ELOOP,
              "opening a symlink without FOLLOW");
    /* A chain of 40 links resolves, 41 does not. */
    char a[16], b[16];
    for (int i = 1; i <= 41; i++) {
        snprintf(a, sizeof a, "c%d", i);
        snprintf(b, sizeof b, i == 1 ? "f" : "c%d", i - 1);
        capsa__vfs_symlink(v, S(b), ws, S(a), G);
    }
    CHECK_INT(capsa__vfs_walk(v, ws, S("c40"), F, G, &w), 0, "40 links are followed");
    CHECK_INT(capsa__vfs_walk(v, ws, S("c41"), F, G, &w), CAPSA__WASI_ELOOP, "41 are too many");
    /* trailing slashes (path_symlink_trailing_slashes) */
    CHECK_INT(capsa__vfs_symlink(v, S("source"), ws, S("target/"), G), CAPSA__WASI_ENOENT,
              "a new symlink cannot end in a slash");
    CHECK_INT(capsa__vfs_symlink(v, S("source"), ws, S("sub/"), G), CAPSA__WASI_EEXIST, "on a dir");
    CHECK_INT(capsa__vfs_symlink(v, S("source"), ws, S("f/"), G), CAPSA__WASI_ENOTDIR, "on a file/");
    CHECK_INT(capsa__vfs_symlink(v, S("source"), ws, S("f"), G), CAPSA__WASI_EEXIST, "on a file");
    CHECK_INT(capsa__vfs_symlink(v, "", 0, ws, S("empty"), G), CAPSA__WASI_ENOENT, "empty target");
    CHECK_INT(capsa__vfs_symlink(v, "a\0b", 3, ws, S("nul"), G), CAPSA__WASI_EINVAL, "NUL target");
    CHECK_INT(capsa__vfs_symlink(v, S("sub"), ws, S("tosub"), G), 0, "a link to a directory");
    CHECK_INT(capsa__vfs_walk(v, ws, S("tosub/"), 0, G, &w), CAPSA__WASI_ENOTDIR,
              "the symlink itself with a slash, not followed");
    CHECK_INT(capsa__vfs_walk(v, ws, S("tosub/"), F, G, &w), 0, "followed with FOLLOW");
    CHECK_INT(capsa__vfs_open(v, ws, S("tosub"), F, CAPSA__VFS_O_DIRECTORY, RD, G, &n), 0,
              "opened as a directory with FOLLOW");
    capsa__vfs_unref(v, n);
    /* readlink */
    const char *t;
    size_t tl;
    CHECK_INT(capsa__vfs_readlink(v, ws, S("sub/up"), G, &t, &tl), 0, "readlink");
    CHECK(tl == 4 && memcmp(t, "../f", 4) == 0, "gives the target as stored");
    CHECK_INT(capsa__vfs_readlink(v, ws, S("f"), G, &t, &tl), CAPSA__WASI_EINVAL, "of a file");
    CHECK_INT(capsa__vfs_readlink(v, ws, S("nope"), G, &t, &tl), CAPSA__WASI_ENOENT, "missing");
    /* dangling: created through with O_CREAT, ELOOP without FOLLOW */
    CHECK_INT(capsa__vfs_symlink(v, S("made"), ws, S("dangling"), G), 0, "a dangling link");
    CHECK_INT(capsa__vfs_open(v, ws, S("dangling"), 0, CAPSA__VFS_O_DIRECTORY, RD, G, &n),
              CAPSA__WASI_ELOOP, "opened as a directory without FOLLOW");
    CHECK_INT(capsa__vfs_open(v, ws, S("dangling"), F, CAPSA__VFS_O_CREAT | CAPSA__VFS_O_EXCL, WR, G, &n),
              CAPSA__WASI_EEXIST, "O_CREAT|O_EXCL on a symlink is EEXIST");
    CHECK_INT(capsa__vfs_open(v, ws, S("dangling"), F, CAPSA__VFS_O_CREAT, WR, G, &n), 0,
              "O_CREAT with FOLLOW creates the target");
    capsa__vfs_unref(v, n);
    CHECK_INT(type_at(v, "/workspace/made"), CAPSA__VFS_FILE, "the target exists now");
    capsa__vfs_free(v);
}

TEST(open_errors)
{
    capsa__vfs *v = new_vfs(NULL);
    capsa__vnode *ws = dir_at(v, "/workspace"), *n;
    CHECK_INT(put(v, ws, "file", "abc", G), 0, "a file");
    CHECK_INT(capsa__vfs_mkdir(v, ws, S("dir"), G), 0, "a dir");
    CHECK_INT(capsa__vfs_open(v, ws, S("file"), 0, CAPSA__VFS_O_DIRECTORY, RD, G, &n),
              CAPSA__WASI_ENOTDIR, "O_DIRECTORY on a file");
    CHECK_INT(capsa__vfs_open(v, ws, S("file"), 0, CAPSA__VFS_O_CREAT | CAPSA__VFS_O_EXCL, WR, G, &n),
              CAPSA__WASI_EEXIST, "O_EXCL on an existing file");
    CHECK_INT(capsa__vfs_open(v, ws, S("dir"), 0, 0, WR, G, &n), CAPSA__WASI_EISDIR,
              "a directory for writing");
    CHECK_INT(capsa__vfs_open(v, ws, S("missing"), 0, 0, RD, G, &n), CAPSA__WASI_ENOENT, "missing");
    CHECK_INT(capsa__vfs_open(v, ws, S("new/"), 0, CAPSA__VFS_O_CREAT, WR, G, &n),
              CAPSA__WASI_EISDIR, "creating a file with a trailing slash");
    CHECK_INT(capsa__vfs_open(v, ws, S("file/"), 0, 0, RD, G, &n), CAPSA__WASI_ENOTDIR,
              "a file with a trailing slash");
    CHECK_INT(capsa__vfs_open(v, ws, S("dir/"), 0, 0, RD, G, &n), 0, "a dir with a trailing slash");
    CHECK_INT(capsa__vfs_write(v, n, 0, "x", 1, 0, NULL, H), CAPSA__WASI_EISDIR, "writing a dir");
    size_t got;
    char buf[8];
    CHECK_INT(capsa__vfs_read(v, n, 0, buf, 8, &got, G), CAPSA__WASI_EISDIR, "reading a dir");
    CHECK_INT(capsa__vfs_truncate(v, n, 0, H), CAPSA__WASI_EISDIR, "truncating a dir");
    capsa__vfs_unref(v, n);
    CHECK_INT(capsa__vfs_open(v, ws, S("file"), 0, CAPSA__VFS_O_CREAT | CAPSA__VFS_O_TRUNC, WR | RD, G, &n),
              0, "O_TRUNC");
    CHECK_INT(capsa__vfs_read(v, n, 0, buf, 8, &got, G), 0, "read");
    CHECK_INT(got, 0, "the file is empty after O_TRUNC");
    CHECK_INT(capsa__vfs_write(v, n, 4, "xy", 2, 0, NULL, G), 0, "a write past the end");
    CHECK_INT(capsa__vfs_read(v, n, 0, buf, 8, &got, G), 0, "read");
    CHECK(got == 6 && memcmp(buf, "\0\0\0\0xy", 6) == 0, "fills the gap with zeros");
    CHECK_INT(capsa__vfs_read(v, n, 10, buf, 8, &got, G), 0, "a read past the end");
    CHECK_INT(got, 0, "reads nothing");
    capsa__vfs_unref(v, n);
    capsa__vfs_free(v);
}

TEST(mkdir_rmdir_unlink)
{
    capsa__vfs *v = new_vfs(NULL);
    capsa__vnode *ws = dir_at(v, "/workspace");
    CHECK_INT(capsa__vfs_mkdir(v, ws, S("d"), G), 0, "mkdir");
    CHECK_INT(capsa__vfs_mkdir(v, ws, S("d"), G), CAPSA__WASI_EEXIST, "twice");
    CHECK_INT(capsa__vfs_mkdir(v, ws, S("."), G), CAPSA__WASI_EEXIST, "\".\"");
    CHECK_INT(capsa__vfs_mkdir(v, ws, S("e/"), G), 0, "with a trailing slash");
    CHECK_INT(capsa__vfs_mkdir(v, ws, S("x/y"), G), CAPSA__WASI_ENOENT, "under a missing dir");
    CHECK_INT(put(v, ws, "d/f", "1", G), 0, "a file in d");
    CHECK_INT(capsa__vfs_rmdir(v, ws, S("d"), G), CAPSA__WASI_ENOTEMPTY, "rmdir non-empty");
    CHECK_INT(capsa__vfs_rmdir(v, ws, S("d/f"), G), CAPSA__WASI_ENOTDIR, "rmdir a file");
    CHECK_INT(capsa__vfs_rmdir(v, ws, S("d/f/"), G), CAPSA__WASI_ENOTDIR, "rmdir a file/");
    CHECK_INT(capsa__vfs_rmdir(v, ws, S("."), G), CAPSA__WASI_EINVAL, "rmdir \".\"");
    CHECK_INT(capsa__vfs_rmdir(v, ws, S("nope"), G), CAPSA__WASI_ENOENT, "rmdir missing");
    CHECK_INT(capsa__vfs_unlink(v, ws, S("d"), G), CAPSA__WASI_EISDIR, "unlink a dir");
    CHECK_INT(capsa__vfs_unlink(v, ws, S("d/"), G), CAPSA__WASI_EISDIR, "unlink a dir/");
    CHECK_INT(capsa__vfs_unlink(v, ws, S("d/f/"), G), CAPSA__WASI_ENOTDIR, "unlink a file/");
    CHECK_INT(capsa__vfs_unlink(v, ws, S("d/nope"), G), CAPSA__WASI_ENOENT, "unlink missing");
    CHECK_INT(capsa__vfs_unlink(v, ws, S("d/f"), G), 0, "unlink a file");
    CHECK_INT(capsa__vfs_rmdir(v, ws, S("d/"), G), 0, "rmdir with a trailing slash");
    CHECK_INT(type_at(v, "/workspace/d"), -1, "gone");
    /* a removed directory held open takes no new entries */
    capsa__vnode *e;
    CHECK_INT(capsa__vfs_open(v, ws, S("e"), 0, CAPSA__VFS_O_DIRECTORY, RD, G, &e), 0, "open e");
    CHECK_INT(capsa__vfs_rmdir(v, ws, S("e"), G), 0, "remove it");
    CHECK_INT(capsa__vfs_mkdir(v, e, S("x"), G), CAPSA__WASI_ENOENT, "nothing is created in it");
    capsa__vfs_dirent de;
    CHECK_INT(capsa__vfs_readdir(v, e, 2, &de, G), CAPSA__WASI_ENOENT, "it is empty");
    capsa__vfs_stat st;
    capsa__vfs_stat_node(e, &st);
    CHECK_INT(st.nlink, 0, "and has no links");
    capsa__vfs_unref(v, e);
    uint64_t entries;
    capsa__vfs_usage(v, NULL, &entries);
    CHECK_INT(entries, 0, "everything was freed");
    capsa__vfs_free(v);
}

TEST(rename)
{
    capsa__vfs *v = new_vfs(NULL);
    capsa__vnode *root = capsa__vfs_root(v), *ws = dir_at(v, "/workspace");
    char buf[32];
    CHECK_INT(capsa__vfs_mkdir(v, ws, S("source"), G), 0, "mkdir");
    CHECK_INT(capsa__vfs_rename(v, ws, S("source"), ws, S("target"), G), 0, "rename a dir");
    CHECK_INT(type_at(v, "/workspace/source"), -1, "the old name is gone");
    CHECK_INT(capsa__vfs_mkdir(v, ws, S("source"), G), 0, "mkdir");
    CHECK_INT(capsa__vfs_rename(v, ws, S("source"), ws, S("target"), G), 0, "onto an empty dir");
    CHECK_INT(capsa__vfs_mkdir(v, ws, S("source"), G), 0, "mkdir");
    CHECK_INT(put(v, ws, "target/file", "t", G), 0, "fill target");
    CHECK_INT(capsa__vfs_rename(v, ws, S("source"), ws, S("target"), G), CAPSA__WASI_ENOTEMPTY,
              "onto a non-empty dir");
    CHECK_INT(capsa__vfs_rename(v, ws, S("source"), ws, S("target/file"), G), CAPSA__WASI_ENOTDIR,
              "a dir onto a file");
    CHECK_INT(capsa__vfs_rename(v, ws, S("target/file"), ws, S("source"), G), CAPSA__WASI_EISDIR,
              "a file onto a dir");
    CHECK_INT(capsa__vfs_rename(v, ws, S("target/file"), ws, S("f2/"), G), CAPSA__WASI_ENOTDIR,
              "a file onto a name with a trailing slash");
    CHECK_INT(capsa__vfs_rename(v, ws, S("target/file/"), ws, S("f2"), G), CAPSA__WASI_ENOTDIR,
              "a file named with a trailing slash");
    CHECK_INT(capsa__vfs_rename(v, ws, S("target"), ws, S("target/sub"), G), CAPSA__WASI_EINVAL,
              "a dir into its own subtree");
    CHECK_INT(capsa__vfs_rename(v, ws, S("nope"), ws, S("x"), G), CAPSA__WASI_ENOENT, "missing");
    CHECK_INT(capsa__vfs_rename(v, ws, S("source/"), ws, S("moved"), G), 0, "dir/ -> name");
    CHECK_INT(capsa__vfs_rename(v, ws, S("moved"), ws, S("source/"), G), 0, "name -> dir/");
    CHECK_INT(capsa__vfs_rename(v, ws, S("source/"), ws, S("moved/"), G), 0, "dir/ -> dir/");
    CHECK_INT(put(v, ws, "a", "A", G), 0, "file a");
    CHECK_INT(put(v, ws, "b", "B", G), 0, "file b");
    CHECK_INT(capsa__vfs_rename(v, ws, S("a"), ws, S("b"), G), 0, "a file onto a file");
    CHECK_INT(get(v, ws, "b", buf, sizeof buf), 0, "read b");
    CHECK_STR(buf, "A", "replaced");
    CHECK_INT(capsa__vfs_rename(v, ws, S("b"), ws, S("moved/b"), G), 0, "into a subdirectory");
    CHECK_INT(capsa__vfs_rename(v, ws, S("moved/b"), root, S("/tmp/b"), G), CAPSA__WASI_EXDEV,
              "across mounts");
    CHECK_INT(capsa__vfs_rename(v, ws, S("moved/b"), root, S("/tmp/b"), H), CAPSA__WASI_EXDEV,
              "across mounts, also for the host");
    CHECK_INT(capsa__vfs_rename(v, ws, S("."), ws, S("x"), G), CAPSA__WASI_EBUSY, "renaming \".\"");
    CHECK_INT(capsa__vfs_link(v, ws, S("moved/b"), 0, ws, S("hard"), G), 0, "a hard link");
    CHECK_INT(capsa__vfs_rename(v, ws, S("moved/b"), ws, S("hard"), G), 0,
              "renaming onto another name of the same file");
    CHECK_INT(type_at(v, "/workspace/moved/b"), CAPSA__VFS_FILE, "does nothing (POSIX)");
    capsa__vfs_stat st;
    CHECK_INT(capsa__vfs_stat(v, ws, S("moved"), 0, G, &st), 0, "stat");
    CHECK_INT(capsa__vfs_rename(v, ws, S("moved"), ws, S("target/moved"), G), 0, "a dir elsewhere");
    capsa__vfs_stat st2;
    CHECK_INT(capsa__vfs_stat(v, ws, S("target/moved/b"), 0, G, &st2), 0, "its content came along");
    CHECK_INT(capsa__vfs_stat(v, ws, S("target"), 0, G, &st), 0, "stat target");
    CHECK_INT(st.nlink, 3, "a dir's nlink counts its subdirectories");
    capsa__vfs_free(v);
}

TEST(links_and_unlink_while_open)
{
    capsa__vfs *v = new_vfs(NULL);
    capsa__vnode *root = capsa__vfs_root(v), *ws = dir_at(v, "/workspace"), *n;
    char buf[32];
    CHECK_INT(put(v, ws, "file", "shared", G), 0, "a file");
    CHECK_INT(capsa__vfs_mkdir(v, ws, S("sub"), G), 0, "a dir");
    CHECK_INT(capsa__vfs_link(v, ws, S("file"), 0, ws, S("sub/link"), G), 0, "a hard link");
    capsa__vfs_stat a, b;
    capsa__vfs_stat(v, ws, S("file"), 0, G, &a);
    capsa__vfs_stat(v, ws, S("sub/link"), 0, G, &b);
    CHECK(a.ino == b.ino && a.nlink == 2 && b.nlink == 2, "one inode, two links");
    CHECK_INT(put(v, ws, "sub/link", "changed", G), 0, "write through the link");
    CHECK_INT(get(v, ws, "file", buf, sizeof buf), 0, "read the other name");
    CHECK_STR(buf, "changed", "the data is shared");
    CHECK_INT(capsa__vfs_link(v, ws, S("file"), 0, ws, S("sub/link"), G), CAPSA__WASI_EEXIST,
              "onto an existing name");
    CHECK_INT(capsa__vfs_link(v, ws, S("file"), 0, ws, S("file"), G), CAPSA__WASI_EEXIST, "onto itself");
    CHECK_INT(capsa__vfs_link(v, ws, S("file"), 0, ws, S("sub"), G), CAPSA__WASI_EEXIST, "onto a dir");
    CHECK_INT(capsa__vfs_link(v, ws, S("sub"), 0, ws, S("dl"), G), CAPSA__WASI_EPERM, "of a dir");
    CHECK_INT(capsa__vfs_link(v, ws, S("file"), 0, ws, S("l2/"), G), CAPSA__WASI_ENOENT,
              "to a name with a trailing slash");
    CHECK_INT(capsa__vfs_link(v, ws, S("file"), 0, root, S("/tmp/x"), G), CAPSA__WASI_EXDEV,
              "across mounts");
    CHECK_INT(capsa__vfs_symlink(v, S("target"), ws, S("sym"), G), 0, "a dangling symlink");
    CHECK_INT(capsa__vfs_link(v, ws, S("sym"), 0, ws, S("symlink2"), G), 0, "a link to the symlink");
    CHECK_INT(capsa__vfs_link(v, ws, S("sym"), F, ws, S("l3"), G), CAPSA__WASI_ENOENT,
              "following a dangling symlink");
    /* unlink while open */
    uint64_t before, after;
    capsa__vfs_usage(v, &before, NULL);
    CHECK_INT(capsa__vfs_open(v, ws, S("file"), 0, 0, RD | WR, G, &n), 0, "open");
    CHECK_INT(capsa__vfs_unlink(v, ws, S("file"), G), 0, "unlink one name");
    CHECK_INT(capsa__vfs_unlink(v, ws, S("sub/link"), G), 0, "unlink the other");
    size_t got;
    CHECK_INT(capsa__vfs_read(v, n, 0, buf, sizeof buf, &got, G), 0, "read through the fd");
    CHECK(got == 7 && memcmp(buf, "changed", 7) == 0, "the data is still there");
    CHECK_INT(capsa__vfs_write(v, n, 7, "!", 1, 0, NULL, G), 0, "and writable");
    capsa__vfs_stat_node(n, &a);
    CHECK_INT(a.nlink, 0, "no links left");
    capsa__vfs_usage(v, &after, NULL);
    CHECK_INT(after, before + 1, "its bytes count until it is freed");
    capsa__vfs_unref(v, n);
    capsa__vfs_usage(v, &after, NULL);
    CHECK_INT(after, before - 7, "and stop counting when the fd closes");
    capsa__vfs_free(v);
}

TEST(readdir_order_and_cookies)
{
    capsa__vfs *v = new_vfs(NULL);
    capsa__vnode *root = capsa__vfs_root(v), *ws = dir_at(v, "/workspace");
    const char *names[] = { "zeta", "alpha", "Beta", "mid", "alpha2" };
    for (size_t i = 0; i < 5; i++)
        put(v, ws, names[i], "x", G);
    const char *want[] = { ".", "..", "Beta", "alpha", "alpha2", "mid", "zeta" };
    capsa__vfs_dirent de;
    uint64_t cookie = 0;
    size_t i = 0;
    while (capsa__vfs_readdir(v, ws, cookie, &de, G) == 0 && i < 10) {
        CHECK(i < 7 && de.name_len == strlen(want[i]) && memcmp(de.name, want[i], de.name_len) == 0,
              "entries in name order after . and ..");
        CHECK_INT(de.next, cookie + 1, "the next cookie");
        cookie = de.next;
        i++;
    }
    CHECK_INT(i, 7, "all entries");
    CHECK_INT(capsa__vfs_readdir(v, ws, 4, &de, G), 0, "resume at a cookie");
    CHECK_STR(de.name, "alpha2", "the entry at cookie 4");
    capsa__vfs_stat st;
    capsa__vfs_stat(v, ws, S("mid"), 0, G, &st);
    capsa__vfs_readdir(v, ws, 5, &de, G);
    CHECK(de.ino == st.ino && de.type == CAPSA__VFS_FILE, "ino and type of an entry");
    CHECK_INT(capsa__vfs_readdir(v, root, 1, &de, G), 0, "the root's \"..\"");
    CHECK_INT(de.ino, 1, "is the root");
    capsa__vnode *f;
    capsa__vfs_open(v, ws, S("mid"), 0, 0, RD, G, &f);
    CHECK_INT(capsa__vfs_readdir(v, f, 0, &de, G), CAPSA__WASI_ENOTDIR, "readdir of a file");
    capsa__vfs_unref(v, f);
    /* many entries stay sorted */
    char name[32];
    for (int k = 999; k >= 0; k--) {
        snprintf(name, sizeof name, "tmp/file.%d", k);
        CHECK(put(v, root, name, "", H) == 0 || k < 0, "create");
    }
    capsa__vnode *tmp = dir_at(v, "/tmp");
    char prev[300] = "";
    size_t count = 0;
    for (cookie = 2; capsa__vfs_readdir(v, tmp, cookie, &de, G) == 0; cookie = de.next) {
        char cur[300];
        snprintf(cur, sizeof cur, "%.*s", (int)de.name_len, de.name);
        if (count && strcmp(prev, cur) >= 0)
            CHECK(0, "sorted");
        strcpy(prev, cur);
        count++;
    }
    CHECK_INT(count, 1000, "1000 entries");
    capsa__vfs_free(v);
}

TEST(times)
{
    capsa__vfs *v = new_vfs(NULL);
    capsa__vnode *ws = dir_at(v, "/workspace"), *n;
    capsa__vfs_stat s0, s1, d0, d1;
    capsa__vfs_stat_node(ws, &d0);
    CHECK_INT(capsa__vfs_open(v, ws, S("f"), 0, CAPSA__VFS_O_CREAT, WR, G, &n), 0, "create");
    capsa__vfs_stat_node(ws, &d1);
    CHECK(d1.mtim >= d0.mtim && d1.ctim >= d0.ctim, "creating updates the dir's mtime");
    capsa__vfs_stat_node(n, &s0);
    CHECK(s0.atim && s0.mtim == s0.ctim, "a new file has times");
    struct timespec ts = { 0, 2000000 };
    nanosleep(&ts, NULL);
    capsa__vfs_write(v, n, 0, "x", 1, 0, NULL, G);
    capsa__vfs_stat_node(n, &s1);
    CHECK(s1.mtim > s0.mtim && s1.ctim > s0.ctim, "a write updates mtime and ctime");
    uint64_t at = 1000, mt = 2000;
    CHECK_INT(capsa__vfs_set_times(v, n, &at, &mt, G), 0, "set times");
    capsa__vfs_stat_node(n, &s1);
    CHECK(s1.atim == 1000 && s1.mtim == 2000 && s1.ctim > 2000, "as given; ctime is now");
    uint64_t now = UINT64_MAX;
    CHECK_INT(capsa__vfs_set_times(v, n, NULL, &now, G), 0, "mtime now");
    capsa__vfs_stat_node(n, &s1);
    CHECK(s1.atim == 1000 && s1.mtim > 2000, "NULL keeps atime; UINT64_MAX is now");
    capsa__vfs_unref(v, n);
    CHECK_INT(capsa__vfs_set_times(v, dir_at(v, "/tools"), &at, &mt, G), CAPSA__WASI_EROFS,
              "no settimes in a read-only mount");
    capsa__vfs_free(v);
}

TEST(quotas)
{
    capsa__vfs_quota q = { 1000, 6, 600 };
    capsa__vfs *v = new_vfs(&q);
    capsa__vnode *ws = dir_at(v, "/workspace"), *n;
    char big[1200];
    memset(big, 'q', sizeof big);
    uint64_t bytes, entries;
    CHECK_INT(capsa__vfs_open(v, ws, S("a"), 0, CAPSA__VFS_O_CREAT, WR | RD, H, &n), 0, "create a");
    CHECK_INT(capsa__vfs_write(v, n, 0, big, 500, 0, NULL, H), 0, "500 bytes");
    CHECK_INT(capsa__vfs_write(v, n, 500, big, 101, 0, NULL, H), CAPSA__WASI_EDQUOT,
              "past the file limit, even for the host");
    CHECK_INT(capsa__vfs_write(v, n, 0, big, 10, 1, NULL, H), 0, "appending within the limit");
    CHECK_INT(capsa__vfs_truncate(v, n, 601, G), CAPSA__WASI_EDQUOT, "truncate past the limit");
    CHECK_INT(capsa__vfs_truncate(v, n, 600, G), 0, "truncate to the limit");
    capsa__vfs_usage(v, &bytes, NULL);
    CHECK_INT(bytes, 600, "usage counts file sizes");
    capsa__vnode *b;
    CHECK_INT(capsa__vfs_open(v, ws, S("b"), 0, CAPSA__VFS_O_CREAT, WR, G, &b), 0, "create b");
    CHECK_INT(capsa__vfs_write(v, b, 0, big, 401, 0, NULL, G), CAPSA__WASI_ENOSPC, "past the total");
    CHECK_INT(capsa__vfs_truncate(v, b, 401, G), CAPSA__WASI_ENOSPC, "truncate past the total");
    uint64_t end = 0;
    CHECK_INT(capsa__vfs_write(v, b, 0, big, 400, 0, &end, G), 0, "exactly to the total");
    CHECK_INT(end, 400, "end offset");
    CHECK_INT(capsa__vfs_symlink(v, S("x"), ws, S("s"), G), CAPSA__WASI_ENOSPC,
              "symlink targets count as bytes");
    capsa__vfs_usage(v, &bytes, &entries);
    CHECK(bytes == 1000 && entries == 2, "usage at the limit");
    size_t got;
    char buf[8];
    CHECK_INT(capsa__vfs_read(v, n, 599, buf, 8, &got, G), 0, "a is unchanged and readable");
    CHECK_INT(got, 1, "its size is 600");
    CHECK_INT(capsa__vfs_truncate(v, n, 100, G), 0, "shrink a");
    capsa__vfs_unref(v, n);
    capsa__vfs_unref(v, b);
    CHECK_INT(capsa__vfs_symlink(v, S("x"), ws, S("s"), G), 0, "room again");
    for (int i = 0; i < 3; i++) {
        char name[16];
        snprintf(name, sizeof name, "d%d", i);
        CHECK_INT(capsa__vfs_mkdir(v, ws, S(name), G), 0, "an entry");
    }
    CHECK_INT(capsa__vfs_mkdir(v, ws, S("d9"), G), CAPSA__WASI_ENOSPC, "the entry limit");
    CHECK_INT(put(v, ws, "e", "", H), CAPSA__WASI_ENOSPC, "applies to the host too");
    CHECK_INT(capsa__vfs_rmdir(v, ws, S("d0"), G), 0, "remove one");
    CHECK_INT(put(v, ws, "e", "ok", G), 0, "and there is room");
    capsa__vfs_usage(v, &bytes, &entries);
    CHECK(bytes == 503 && entries == 6, "usage adds up");
    capsa__vfs_free(v);
}

/* ---- allocation failure ------------------------------------------------------------ */

typedef struct failalloc {
    long fail_at, count, live;
} failalloc;

static void *fa_realloc(void *ud, void *p, size_t n)
{
    failalloc *f = ud;
    if (++f->count == f->fail_at)
        return NULL;
    void *q = realloc(p, n);
    if (q && !p)
        f->live++;
    return q;
}

static void fa_free(void *ud, void *p)
{
    failalloc *f = ud;
    if (p) {
        f->live--;
        free(p);
    }
}

/* Walks the whole tree through the API: names strictly sorted, each node
 * reachable, and the usage counts equal to what the tree holds. */
static int consistent(capsa__vfs *v)
{
    uint64_t bytes = 0, entries = 0, ub, ue;
    capsa__vnode *stack[64];
    int sp = 0;
    stack[sp++] = capsa__vfs_root(v);
    uint64_t seen[512];
    size_t nseen = 0;
    while (sp) {
        capsa__vnode *d = stack[--sp];
        capsa__vfs_dirent de;
        char prev[256] = "";
        for (uint64_t c = 2; capsa__vfs_readdir(v, d, c, &de, H) == 0; c = de.next) {
            char cur[256];
            snprintf(cur, sizeof cur, "%.*s", (int)de.name_len, de.name);
            if (c > 2 && strcmp(prev, cur) >= 0)
                return 0;
            strcpy(prev, cur);
            capsa__vfs_where w;
            if (capsa__vfs_walk(v, d, de.name, de.name_len, 0, H, &w) || !w.node)
                return 0;
            capsa__vfs_stat st;
            capsa__vfs_stat_node(w.node, &st);
            size_t k = 0;
            while (k < nseen && seen[k] != st.ino)
                k++;
            if (k < nseen)
                continue; /* another name of a file already counted */
            if (nseen < 512)
                seen[nseen++] = st.ino;
            if (st.type == CAPSA__VFS_DIR) {
                if (sp < 64)
                    stack[sp++] = w.node;
                if (!(d == capsa__vfs_root(v) &&
                      (!strcmp(cur, "workspace") || !strcmp(cur, "tmp") ||
                       !strcmp(cur, "tools") || !strcmp(cur, "log") || !strcmp(cur, "dev"))))
                    entries++;
            } else if (st.type != CAPSA__VFS_CHARDEV) { /* /dev/null is the layout's */
                entries++;
                bytes += st.size;
            }
        }
    }
    if (type_at(v, "/workspace/m/n") == CAPSA__VFS_DIR)
        entries--; /* the scenario's own mount root */
    capsa__vfs_usage(v, &ub, &ue);
    return ub == bytes && ue == entries;
}

/* A run through most operations; returns 0, or the first error (ENOMEM when an
 * allocation failed), leaving the filesystem to be checked and freed. */
static int scenario(capsa__vfs *v, const capsa_allocator *a)
{
    capsa__vnode *root = capsa__vfs_root(v), *n;
    int e;
    if ((e = capsa__vfs_mkdir(v, root, S("/workspace/d"), G)) ||
        (e = put(v, root, "/workspace/d/a", "alpha", G)) ||
        (e = put(v, root, "/workspace/b", "beta", G)))
        return e;
    for (int i = 0; i < 20; i++) {
        char name[32];
        snprintf(name, sizeof name, "/tmp/f%02d", i);
        if ((e = put(v, root, name, "x", G)))
            return e;
    }
    if ((e = capsa__vfs_open(v, root, S("/workspace/big"), 0, CAPSA__VFS_O_CREAT, WR, G, &n)))
        return e;
    char chunk[300];
    memset(chunk, 'z', sizeof chunk);
    for (int i = 0; i < 10 && !e; i++)
        e = capsa__vfs_write(v, n, 0, chunk, sizeof chunk, 1, NULL, G);
    if (!e)
        e = capsa__vfs_truncate(v, n, 5000, G);
    capsa__vfs_unref(v, n);
    if (e || (e = capsa__vfs_symlink(v, S("d/a"), root, S("/workspace/s"), G)) ||
        (e = capsa__vfs_link(v, root, S("/workspace/b"), 0, root, S("/workspace/d/b2"), G)) ||
        (e = capsa__vfs_rename(v, root, S("/workspace/b"), root, S("/workspace/d/c"), G)) ||
        (e = capsa__vfs_rename(v, root, S("/workspace/d/a"), root, S("/workspace/d/c"), G)) ||
        (e = capsa__vfs_unlink(v, root, S("/tmp/f03"), G)) ||
        (e = capsa__vfs_mount(v, "/workspace/m/n", CAPSA__VFS_RO)))
        return e;
    capsa__buf tar = { 0 };
    e = capsa__vfs_export_tar(v, "/workspace", &tar);
    if (!e)
        e = capsa__vfs_import_tar(v, "/tmp/copy", tar.data, tar.len, NULL, 0);
    capsa__buf_free(&tar, a);
    return e;
}

TEST(allocation_failure_everywhere)
{
    int completed = 0;
    long n;
    for (n = 1; n < 100000 && !completed; n++) {
        failalloc f = { n, 0, 0 };
        capsa_allocator a = { fa_realloc, fa_free, &f };
        capsa__vfs *v = NULL;
        int e = capsa__vfs_new(&a, NULL, &v);
        if (e) {
            CHECK_INT(e, CAPSA__WASI_ENOMEM, "new fails only for memory");
            CHECK(v == NULL, "and gives nothing");
        } else {
            e = scenario(v, &a);
            if (e != 0 && e != CAPSA__WASI_ENOMEM) {
                CHECK_INT(e, CAPSA__WASI_ENOMEM, "a step fails only for memory");
                fprintf(stderr, "  at allocation %ld\n", n);
            }
            if (!consistent(v)) {
                CHECK(0, "the tree is consistent after a failed allocation");
                fprintf(stderr, "  at allocation %ld\n", n);
            }
            capsa__vfs_free(v);
        }
        completed = f.count < n;
        if (f.live != 0) {
            CHECK_INT(f.live, 0, "everything is freed");
            fprintf(stderr, "  at allocation %ld\n", n);
            break;
        }
    }
    CHECK(completed, "the scenario completes once allocations stop failing");
    printf("allocation failure: %ld allocation points checked\n", n - 1);
}

/* ---- depth --------------------------------------------------------------------------- */

TEST(depth_limit)
{
    capsa__vfs *v = new_vfs(NULL);
    capsa__vnode *root = capsa__vfs_root(v);
    char path[CAPSA__VFS_PATH_MAX + 1] = "/workspace/t";
    size_t len = strlen(path);
    int made = 0, e;
    while ((e = capsa__vfs_mkdir(v, root, path, len, H)) == 0) {
        memcpy(path + len, "/d", 3);
        len += 2;
        made++;
    }
    CHECK_INT(e, CAPSA__WASI_ENAMETOOLONG, "nesting deeper is refused");
    CHECK_INT(made, CAPSA__VFS_DEPTH_MAX - 1, "directories down to the limit, as the host");
    path[len -= 2] = '\0';
    capsa__vnode *deepest = dir_at(v, path);
    CHECK(deepest != NULL, "the deepest directory");
    CHECK_INT(capsa__vfs_mkdir(v, deepest, S("x"), G), CAPSA__WASI_ENAMETOOLONG,
              "nor relative to a base at the limit (as openat from a deep fd)");
    CHECK_INT(put(v, deepest, "f", "deepest file", G), 0, "a file at the limit is fine");
    CHECK_INT(capsa__vfs_mkdir(v, root, S("/workspace/s"), G), 0, "another directory");
    CHECK_INT(capsa__vfs_mkdir(v, root, S("/workspace/s/a"), G), 0, "with a subdirectory");
    CHECK_INT(capsa__vfs_rename(v, root, S("/workspace/s"), deepest, S("s"), G),
              CAPSA__WASI_ENAMETOOLONG, "a rename that moves a subtree below the limit");
    CHECK_INT(type_at(v, "/workspace/s/a"), CAPSA__VFS_DIR, "left where it was");
    char above[CAPSA__VFS_PATH_MAX + 1];
    snprintf(above, sizeof above, "%.*s/a", (int)(len - 2), path);
    CHECK_INT(capsa__vfs_rename(v, root, S("/workspace/s/a"), root, S(above), G), 0,
              "a directory without subdirectories fits one level above the deepest");
    CHECK_INT(capsa__vfs_rename(v, root, S(above), root, S("/workspace/up"), G), 0,
              "and moves back up");

    /* A tar of the tree does not fit one level further down: refused whole. */
    capsa__buf tar = { 0 };
    CHECK_INT(capsa__vfs_export_tar(v, "/workspace", &tar), 0, "export the deep tree");
    char msg[256];
    CHECK_INT(capsa__vfs_import_tar(v, "/tmp/in", tar.data, tar.len, msg, sizeof msg),
              CAPSA__WASI_ENAMETOOLONG, "importing it one level deeper");
    CHECK_CONTAINS(msg, "levels deep", "the message says why");
    CHECK_INT(type_at(v, "/tmp/in"), -1, "nothing was written");
    CHECK_INT(capsa__vfs_import_tar(v, "/tmp", tar.data, tar.len, msg, sizeof msg), 0,
              "at the same depth it fits");
    CHECK_INT(type_at(v, "/tmp/up"), CAPSA__VFS_DIR, "with its directories");
    snprintf(above, sizeof above, "/tmp%s/f", path + strlen("/workspace"));
    CHECK_INT(type_at(v, above), CAPSA__VFS_FILE, "down to the deepest file");
    capsa__buf_free(&tar, &capsa__default_allocator);

    /* Recursive removal: refused whole when a mount root is below. */
    CHECK_INT(capsa__vfs_mount(v, "/workspace/t/d/m", CAPSA__VFS_RO), 0, "a mount inside the tree");
    CHECK_INT(capsa__vfs_remove(v, root, S("/workspace/t"), 1, H), CAPSA__WASI_EBUSY,
              "removing a tree with a mount root below");
    CHECK_INT(get(v, deepest, "f", msg, sizeof msg), 0, "nothing was removed");
    CHECK_INT(capsa__vfs_remove(v, root, S("/workspace/t/d/d"), 1, G), 0,
              "the guest removes the deep part");
    CHECK_INT(type_at(v, "/workspace/t/d/d"), -1, "gone");
    CHECK_INT(type_at(v, "/workspace/t/d/m"), CAPSA__VFS_DIR, "the mount is still there");
    CHECK_INT(capsa__vfs_remove(v, root, S("/workspace/up"), 0, G), 0, "an empty directory");
    CHECK_INT(capsa__vfs_remove(v, root, S("/workspace/t"), 0, G), CAPSA__WASI_ENOTEMPTY,
              "a full one without recursive");
    CHECK_INT(capsa__vfs_remove(v, root, S("/tmp/t"), 1, G), 0, "the imported copy, as the guest");
    capsa__vfs_free(v);
}

/* ---- host directories ---------------------------------------------------------------- */

static void write_host(const char *path, const char *data)
{
    FILE *fp = fopen(path, "w");
    if (fp) {
        fputs(data, fp);
        fclose(fp);
    }
}

static void read_host(const char *path, char *buf, size_t size)
{
    buf[0] = '\0';
    FILE *fp = fopen(path, "r");
    if (fp) {
        size_t k = fread(buf, 1, size - 1, fp);
        buf[k] = '\0';
        fclose(fp);
    }
}

static int rm_rf(const char *path)
{
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    return system(cmd);
}

TEST(import_export_dir)
{
    char tmpl[] = "/tmp/capsa-vfs-XXXXXX";
    char *top = mkdtemp(tmpl);
    CHECK(top != NULL, "a temporary directory");
    if (!top)
        return;
    char p[4200], q[4200], buf[256], msg[512];
    snprintf(p, sizeof p, "%s/src", top);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/src/sub", top);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/src/a.txt", top);
    write_host(p, "file a");
    snprintf(p, sizeof p, "%s/src/sub/b.txt", top);
    write_host(p, "file b");
    snprintf(p, sizeof p, "%s/src/link", top);
    CHECK_INT(symlink("sub/b.txt", p), 0, "a host symlink");
    snprintf(p, sizeof p, "%s/src/abs", top);
    CHECK_INT(symlink("/etc/passwd", p), 0, "a host symlink out");
    snprintf(p, sizeof p, "%s/src/fifo", top);
    CHECK_INT(mkfifo(p, 0644), 0, "a fifo");

    capsa__vfs *v = new_vfs(NULL);
    capsa__vnode *root = capsa__vfs_root(v);
    snprintf(p, sizeof p, "%s/src", top);
    CHECK_INT(capsa__vfs_import_dir(v, p, "/workspace/imp", msg, sizeof msg), 0, "import");
    CHECK_INT(get(v, root, "/workspace/imp/a.txt", buf, sizeof buf), 0, "a file");
    CHECK_STR(buf, "file a", "copied");
    CHECK_INT(get(v, root, "/workspace/imp/link", buf, sizeof buf), 0, "through the symlink");
    CHECK_STR(buf, "file b", "the symlink resolves inside the filesystem");
    CHECK_INT(type_at(v, "/workspace/imp/abs"), CAPSA__VFS_SYMLINK, "a symlink out is a symlink");
    capsa__vfs_where w;
    CHECK_INT(capsa__vfs_walk(v, dir_at(v, "/workspace/imp"), S("abs"), F, G, &w),
              CAPSA__WASI_ENOTCAPABLE, "that the guest cannot follow out");
    CHECK_INT(type_at(v, "/workspace/imp/fifo"), -1, "the fifo was skipped");

    /* quota: a host file over the per-file limit */
    capsa__vfs_quota qq = { 100, 0, 4 };
    capsa__vfs *small = new_vfs(&qq);
    CHECK_INT(capsa__vfs_import_dir(small, p, "/workspace/x", msg, sizeof msg), CAPSA__WASI_EDQUOT,
              "a file over the quota");
    CHECK_CONTAINS(msg, ".txt", "the message names the file");
    capsa__vfs_free(small);

    /* export round trip */
    snprintf(q, sizeof q, "%s/out", top);
    CHECK_INT(capsa__vfs_export_dir(v, "/workspace/imp", q, msg, sizeof msg), 0, "export");
    snprintf(p, sizeof p, "%s/out/sub/b.txt", top);
    read_host(p, buf, sizeof buf);
    CHECK_STR(buf, "file b", "exported contents");
    snprintf(p, sizeof p, "%s/out/link", top);
    struct stat st;
    CHECK(lstat(p, &st) != 0, "symlinks are not exported");

    /* a symlink planted in the target is not followed */
    snprintf(p, sizeof p, "%s/outside", top);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/outside/secret", top);
    write_host(p, "secret");
    snprintf(p, sizeof p, "%s/out/sub", top);
    rm_rf(p);
    snprintf(q, sizeof q, "%s/outside", top);
    CHECK_INT(symlink(q, p), 0, "plant a directory symlink");
    snprintf(q, sizeof q, "%s/out", top);
    int e = capsa__vfs_export_dir(v, "/workspace/imp", q, msg, sizeof msg);
    CHECK(e == CAPSA__WASI_ELOOP || e == CAPSA__WASI_EPERM, "export refuses the planted symlink");
    CHECK_CONTAINS(msg, "sub", "and says where");
    snprintf(p, sizeof p, "%s/outside/b.txt", top);
    CHECK(lstat(p, &st) != 0, "nothing was written through it");
    snprintf(p, sizeof p, "%s/out/sub", top);
    unlink(p);
    snprintf(p, sizeof p, "%s/out/a.txt", top);
    unlink(p);
    snprintf(q, sizeof q, "%s/outside/secret", top);
    CHECK_INT(symlink(q, p), 0, "plant a file symlink");
    e = capsa__vfs_export_dir(v, "/workspace/imp", top, msg, sizeof msg);
    snprintf(q, sizeof q, "%s/out", top);
    e = capsa__vfs_export_dir(v, "/workspace/imp", q, msg, sizeof msg);
    CHECK(e == CAPSA__WASI_ELOOP || e == CAPSA__WASI_EPERM, "refused for a file too");
    snprintf(p, sizeof p, "%s/outside/secret", top);
    read_host(p, buf, sizeof buf);
    CHECK_STR(buf, "secret", "the outside file is intact");
    snprintf(p, sizeof p, "%s/out/a.txt", top);
    unlink(p);
    snprintf(q, sizeof q, "%s/outside/secret", top);
    CHECK_INT(link(q, p), 0, "plant a hard link");
    snprintf(q, sizeof q, "%s/out", top);
    CHECK_INT(capsa__vfs_export_dir(v, "/workspace/imp", q, msg, sizeof msg), 0,
              "export over a hard link");
    snprintf(p, sizeof p, "%s/outside/secret", top);
    read_host(p, buf, sizeof buf);
    CHECK_STR(buf, "secret", "replaces the name, never writes through the link");
    snprintf(p, sizeof p, "%s/out/a.txt", top);
    read_host(p, buf, sizeof buf);
    CHECK_STR(buf, "file a", "the exported file");

    /* mirror removes what the tree does not have, symlinks themselves only */
    snprintf(p, sizeof p, "%s/out/extra.txt", top);
    write_host(p, "extra");
    snprintf(p, sizeof p, "%s/out/extradir", top);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/out/extradir/deep", top);
    write_host(p, "deep");
    snprintf(p, sizeof p, "%s/out/extralink", top);
    snprintf(q, sizeof q, "%s/outside", top);
    CHECK_INT(symlink(q, p), 0, "an extra symlink to a directory");
    snprintf(q, sizeof q, "%s/out", top);
    capsa__vnode *imp = dir_at(v, "/workspace/imp");
    uint64_t g = capsa__vfs_mark(v);
    CHECK_INT(capsa__vfs_sync_dir(v, imp, q, g, msg, sizeof msg), 0, "a write-back of no change");
    snprintf(p, sizeof p, "%s/out/extra.txt", top);
    CHECK(lstat(p, &st) == 0, "leaves the host as it is");
    CHECK_INT(put(v, imp, "new.txt", "new", G), 0, "the guest adds a file");
    CHECK_INT(capsa__vfs_sync_dir(v, imp, q, g, msg, sizeof msg), 0, "a write-back of the change");
    snprintf(p, sizeof p, "%s/out/new.txt", top);
    read_host(p, buf, sizeof buf);
    CHECK_STR(buf, "new", "the new file is written");
    snprintf(p, sizeof p, "%s/out/extra.txt", top);
    CHECK(lstat(p, &st) != 0, "an extra file is removed");
    snprintf(p, sizeof p, "%s/out/extradir", top);
    CHECK(lstat(p, &st) != 0, "an extra directory is removed");
    snprintf(p, sizeof p, "%s/out/extralink", top);
    CHECK(lstat(p, &st) != 0, "an extra symlink is removed");
    snprintf(p, sizeof p, "%s/outside/secret", top);
    CHECK(lstat(p, &st) == 0, "but not what it pointed to");
    snprintf(p, sizeof p, "%s/out/a.txt", top);
    CHECK(lstat(p, &st) == 0, "the tree's files stay");

    /* the host tree comes back in */
    CHECK_INT(capsa__vfs_import_dir(v, q, "/tmp/back", msg, sizeof msg), 0, "import the export");
    CHECK_INT(get(v, root, "/tmp/back/sub/b.txt", buf, sizeof buf), 0, "round trip");
    CHECK_STR(buf, "file b", "same contents");
    capsa__vfs_free(v);
    rm_rf(top);
}

/* ---- tar ---------------------------------------------------------------------------- */

/* Compares two trees through the API (names, types, contents, link targets). */
static int same_tree(capsa__vfs *v, capsa__vnode *a, capsa__vnode *b, int depth)
{
    capsa__vfs_dirent da, db;
    uint64_t c = 2;
    for (;; c++) {
        int ea = capsa__vfs_readdir(v, a, c, &da, H), eb = capsa__vfs_readdir(v, b, c, &db, H);
        if (ea || eb)
            return ea == eb;
        if (da.name_len != db.name_len || memcmp(da.name, db.name, da.name_len) || da.type != db.type)
            return 0;
        capsa__vfs_where wa, wb;
        if (capsa__vfs_walk(v, a, da.name, da.name_len, 0, H, &wa) ||
            capsa__vfs_walk(v, b, db.name, db.name_len, 0, H, &wb))
            return 0;
        if (da.type == CAPSA__VFS_DIR) {
            if (depth > 40 || !same_tree(v, wa.node, wb.node, depth + 1))
                return 0;
        } else if (da.type == CAPSA__VFS_FILE) {
            uint64_t la, lb;
            const uint8_t *pa = capsa__vfs_file_data(wa.node, &la), *pb = capsa__vfs_file_data(wb.node, &lb);
            if (la != lb || (la && memcmp(pa, pb, la)))
                return 0;
        } else {
            capsa__vfs_stat sa, sb;
            capsa__vfs_stat_node(wa.node, &sa);
            capsa__vfs_stat_node(wb.node, &sb);
            if (sa.size != sb.size)
                return 0;
        }
    }
}

TEST(tar_round_trip)
{
    capsa__vfs *v = new_vfs(NULL);
    capsa__vnode *root = capsa__vfs_root(v);
    char path[CAPSA__VFS_PATH_MAX + 1], comp[256];
    CHECK_INT(capsa__vfs_mkdir(v, root, S("/workspace/src"), H), 0, "mkdir");
    capsa__vnode *src = dir_at(v, "/workspace/src");
    put(v, src, "small.txt", "small", H);
    put(v, src, "empty", "", H);
    capsa__vfs_mkdir(v, src, S("emptydir"), H);
    /* a 255-byte component, and a path of nearly 4096 bytes */
    memset(comp, 'n', 255);
    comp[255] = '\0';
    CHECK_INT(put(v, src, comp, "long component", H), 0, "a 255-byte name");
    size_t len = 0;
    while (len + 256 < CAPSA__VFS_PATH_MAX - 40) {
        memcpy(path + len, comp, 200);
        len += 200;
        path[len] = '\0';
        CHECK_INT(capsa__vfs_mkdir(v, src, path, len, H), 0, "a deep directory");
        path[len++] = '/';
    }
    memcpy(path + len, "leaf.bin", 9);
    char bin[3000];
    for (size_t i = 0; i < sizeof bin; i++)
        bin[i] = (char)(i * 7);
    capsa__vnode *f;
    CHECK_INT(capsa__vfs_open(v, src, S(path), 0, CAPSA__VFS_O_CREAT, WR, H, &f), 0, "a deep file");
    capsa__vfs_write(v, f, 0, bin, sizeof bin, 0, NULL, H);
    capsa__vfs_unref(v, f);
    memset(comp, 't', 200);
    memcpy(comp + 200, "/x", 3);
    CHECK_INT(capsa__vfs_symlink(v, S(comp), src, S("longlink"), H), 0, "a long symlink target");
    CHECK_INT(capsa__vfs_symlink(v, S("small.txt"), src, S("short"), H), 0, "a symlink");
    capsa__buf tar = { 0 };
    CHECK_INT(capsa__vfs_export_tar(v, "/workspace/src", &tar), 0, "export a tar");
    CHECK(tar.len % 512 == 0 && tar.len > 4096, "whole blocks");
    char msg[256];
    CHECK_INT(capsa__vfs_import_tar(v, "/tmp/dst", tar.data, tar.len, msg, sizeof msg), 0, "import it");
    CHECK(same_tree(v, src, dir_at(v, "/tmp/dst"), 0), "the same tree comes back");
    CHECK_INT(capsa__vfs_import_tar(v, "/tmp/dst", tar.data, tar.len, msg, sizeof msg), 0,
              "importing again over it");
    CHECK(same_tree(v, src, dir_at(v, "/tmp/dst"), 0), "still the same tree");
    /* the stream is readable by the system's tar */
    char tmpl[] = "/tmp/capsa-tar-XXXXXX";
    char *top = mkdtemp(tmpl);
    if (top && system("command -v tar >/dev/null 2>&1") == 0) {
        char cmd[4400], tf[4200];
        snprintf(tf, sizeof tf, "%s/a.tar", top);
        FILE *fp = fopen(tf, "wb");
        if (fp) {
            fwrite(tar.data, 1, tar.len, fp);
            fclose(fp);
        }
        snprintf(cmd, sizeof cmd, "cd '%s' && tar -xf a.tar 2>&1 && cat small.txt >/dev/null", top);
        CHECK_INT(system(cmd), 0, "the system's tar extracts it");
        snprintf(cmd, sizeof cmd, "cd '%s' && tar -cf b.tar --format=gnu small.txt empty %s emptydir 2>/dev/null",
                 top, "longlink");
        if (system(cmd) == 0) {
            snprintf(tf, sizeof tf, "%s/b.tar", top);
            fp = fopen(tf, "rb");
            static char gnu[1 << 16];
            size_t k = fp ? fread(gnu, 1, sizeof gnu, fp) : 0;
            if (fp)
                fclose(fp);
            CHECK_INT(capsa__vfs_import_tar(v, "/tmp/gnu", gnu, k, msg, sizeof msg), 0,
                      "a GNU tar stream imports");
            CHECK_INT(type_at(v, "/tmp/gnu/longlink"), CAPSA__VFS_SYMLINK, "with its long link");
        }
    }
    if (top)
        rm_rf(top);
    capsa__buf_free(&tar, &capsa__default_allocator);
    capsa__vfs_free(v);
}

/* Builds a ustar header for the malicious archives. */
static void mk_header(unsigned char *h, const char *name, char type, size_t size, const char *link)
{
    memset(h, 0, 512);
    memcpy(h, name, strlen(name));
    snprintf((char *)h + 100, 8, "%07o", 0644);
    snprintf((char *)h + 108, 8, "%07o", 0);
    snprintf((char *)h + 116, 8, "%07o", 0);
    snprintf((char *)h + 124, 12, "%011zo", size);
    snprintf((char *)h + 136, 12, "%011o", 0);
    h[156] = (unsigned char)type;
    if (link)
        memcpy(h + 157, link, strlen(link));
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    memset(h + 148, ' ', 8);
    unsigned s = 0;
    for (int i = 0; i < 512; i++)
        s += h[i];
    snprintf((char *)h + 148, 8, "%06o", s);
    h[155] = ' ';
}

/* An archive of up to three entries (files get 5 bytes of data). */
static size_t mk_tar(unsigned char *buf, const char *n1, char t1, const char *l1, const char *n2,
                     char t2, const char *l2)
{
    size_t off = 0;
    const char *names[2] = { n1, n2 }, *links[2] = { l1, l2 };
    char types[2] = { t1, t2 };
    for (int i = 0; i < 2 && names[i]; i++) {
        size_t sz = types[i] == '0' ? 5 : 0;
        mk_header(buf + off, names[i], types[i], sz, links[i]);
        off += 512;
        if (sz) {
            memset(buf + off, 0, 512);
            memcpy(buf + off, "evil!", 5);
            off += 512;
        }
    }
    memset(buf + off, 0, 1024);
    return off + 1024;
}

TEST(tar_malicious)
{
    capsa__vfs *v = new_vfs(NULL);
    capsa__vnode *root = capsa__vfs_root(v);
    static unsigned char t[8192];
    char msg[256];
    uint64_t b0, e0, b1, e1;
    CHECK_INT(capsa__vfs_mkdir(v, root, S("/tmp/in"), H), 0, "the target");
    CHECK_INT(capsa__vfs_symlink(v, S("/"), root, S("/tmp/in/rootlink"), H), 0,
              "an existing symlink out of the target");
    capsa__vfs_usage(v, &b0, &e0);
    size_t n = mk_tar(t, "ok.txt", '0', NULL, "../x", '0', NULL);
    CHECK_INT(capsa__vfs_import_tar(v, "/tmp/in", t, n, msg, sizeof msg), CAPSA__WASI_ENOTCAPABLE,
              "\"../x\" is refused");
    CHECK_INT(type_at(v, "/tmp/in/ok.txt"), -1, "before anything was written");
    n = mk_tar(t, "a/../../x", '0', NULL, NULL, 0, NULL);
    CHECK_INT(capsa__vfs_import_tar(v, "/tmp/in", t, n, msg, sizeof msg), CAPSA__WASI_ENOTCAPABLE,
              "a name that climbs out");
    n = mk_tar(t, "ok.txt", '0', NULL, "/etc/x", '0', NULL);
    CHECK_INT(capsa__vfs_import_tar(v, "/tmp/in", t, n, msg, sizeof msg), CAPSA__WASI_ENOTCAPABLE,
              "an absolute name is refused");
    n = mk_tar(t, "l", '2', "../../..", "l/x", '0', NULL);
    CHECK_INT(capsa__vfs_import_tar(v, "/tmp/in", t, n, msg, sizeof msg), CAPSA__WASI_ENOTCAPABLE,
              "a file written through the archive's own symlink");
    CHECK_INT(type_at(v, "/tmp/in/l"), -1, "the symlink was not created either");
    n = mk_tar(t, "rootlink/etc/x", '0', NULL, NULL, 0, NULL);
    CHECK_INT(capsa__vfs_import_tar(v, "/tmp/in", t, n, msg, sizeof msg), CAPSA__WASI_ENOTCAPABLE,
              "a file written through an existing symlink out");
    CHECK_INT(type_at(v, "/etc"), -1, "nothing appeared at the root");
    n = mk_tar(t, "ok.txt", '0', NULL, "bad", '0', NULL);
    t[512 + 512 + 10] ^= 1;
    CHECK_INT(capsa__vfs_import_tar(v, "/tmp/in", t, n, msg, sizeof msg), CAPSA__WASI_EINVAL,
              "a bad checksum");
    CHECK_CONTAINS(msg, "checksum", "is reported");
    n = mk_tar(t, "ok.txt", '0', NULL, NULL, 0, NULL);
    CHECK_INT(capsa__vfs_import_tar(v, "/tmp/in", t, 700, msg, sizeof msg), CAPSA__WASI_EINVAL,
              "a truncated stream");
    CHECK_INT(capsa__vfs_import_tar(v, "/tmp/in", t, 300, msg, sizeof msg), CAPSA__WASI_EINVAL,
              "a truncated header");
    mk_header(t, "big", '0', 1 << 20, NULL);
    memset(t + 512, 0, 2048);
    CHECK_INT(capsa__vfs_import_tar(v, "/tmp/in", t, 2560, msg, sizeof msg), CAPSA__WASI_EINVAL,
              "a size larger than the data");
    mk_header(t, "x", '0', 0, NULL);
    memcpy(t + 124, "12345678z\0\0\0", 12);
    memset(t + 148, ' ', 8);
    unsigned s = 0;
    for (int i = 0; i < 512; i++)
        s += t[i];
    snprintf((char *)t + 148, 8, "%06o", s);
    CHECK_INT(capsa__vfs_import_tar(v, "/tmp/in", t, 1536, msg, sizeof msg), CAPSA__WASI_EINVAL,
              "a non-octal size");
    n = mk_tar(t, "hard", '1', "ok.txt", NULL, 0, NULL);
    CHECK_INT(capsa__vfs_import_tar(v, "/tmp/in", t, n, msg, sizeof msg), CAPSA__WASI_EINVAL,
              "hard links are refused");
    n = mk_tar(t, "dev", '3', NULL, NULL, 0, NULL);
    CHECK_INT(capsa__vfs_import_tar(v, "/tmp/in", t, n, msg, sizeof msg), CAPSA__WASI_EINVAL,
              "devices are refused");
    n = mk_tar(t, "bad\xff", '0', NULL, NULL, 0, NULL);
    CHECK_INT(capsa__vfs_import_tar(v, "/tmp/in", t, n, msg, sizeof msg), CAPSA__WASI_EILSEQ,
              "a name that is not UTF-8");
    capsa__vfs_usage(v, &b1, &e1);
    CHECK(b0 == b1 && e0 == e1, "nothing changed after all the refusals");
    n = mk_tar(t, "dir/", '5', NULL, "dir/ok.txt", '0', NULL);
    CHECK_INT(capsa__vfs_import_tar(v, "/tmp/in", t, n, msg, sizeof msg), 0, "a good archive");
    char buf[16];
    CHECK_INT(get(v, root, "/tmp/in/dir/ok.txt", buf, sizeof buf), 0, "extracted");
    CHECK_STR(buf, "evil!", "with its data");
    CHECK_INT(capsa__vfs_import_tar(v, "/tmp/new/deep/er", t, n, msg, sizeof msg), 0,
              "into a target that does not exist yet");
    CHECK_INT(type_at(v, "/tmp/new/deep/er/dir/ok.txt"), CAPSA__VFS_FILE, "made with its parents");
    capsa__vfs_quota q = { 4, 0, 0 };
    capsa__vfs *small = new_vfs(&q);
    CHECK_INT(capsa__vfs_import_tar(small, "/tmp", t, n, msg, sizeof msg), CAPSA__WASI_EDQUOT,
              "an archive over the quota");
    CHECK_INT(type_at(small, "/tmp/dir"), -1, "is refused before writing");
    capsa__vfs_free(small);
    capsa__vfs_free(v);
}

/* ---- the null device ---------------------------------------------------------------- */

/* ---- the host past the guest's symlinks ---------------------------------------------- */

TEST(host_past_symlinks)
{
    capsa__vfs *v = new_vfs(NULL);
    capsa__vnode *root = capsa__vfs_root(v);
    CHECK_INT(capsa__vfs_mount(v, "/workspace/ro", CAPSA__VFS_RO), 0, "a read-only mount inside");
    CHECK_INT(put(v, root, "/workspace/ro/r.txt", "ro", H), 0, "the host fills it");
    CHECK_INT(put(v, root, "/log/trail", "trail", H), 0, "a trail in /log");
    CHECK_INT(put(v, root, "/workspace/f", "f", G), 0, "a guest file");
    CHECK_INT(capsa__vfs_symlink(v, S("ro"), root, S("/workspace/l"), G), 0, "a link to it");
    CHECK_INT(capsa__vfs_symlink(v, S("/log/trail"), root, S("/workspace/t"), G), 0, "a link to the trail");
    capsa__vnode *n = NULL;
    CHECK_INT(capsa__vfs_open(v, root, S("/workspace/t"), F, 0, WR, H, &n), CAPSA__VFS_ELINK,
              "the host opening the trail for writing through the link");
    CHECK_INT(capsa__vfs_open(v, root, S("/workspace/t"), F, 0, WR, G, &n), CAPSA__WASI_EPERM,
              "the guest gets its own error");
    CHECK_INT(capsa__vfs_open(v, root, S("/workspace/t"), F, 0, RD, H, &n), 0, "reading through it is fine");
    capsa__vfs_unref(v, n);
    CHECK_INT(capsa__vfs_open(v, root, S("/log/trail"), F, 0, WR, H, &n), 0, "and so is the direct path");
    capsa__vfs_unref(v, n);
    CHECK_INT(capsa__vfs_rename(v, root, S("/workspace/f"), root, S("/workspace/l/f"), H),
              CAPSA__VFS_ELINK, "rename through it");
    CHECK_INT(capsa__vfs_link(v, root, S("/workspace/f"), 0, root, S("/workspace/l/g"), H),
              CAPSA__VFS_ELINK, "a hard link through it");
    CHECK_INT(capsa__vfs_symlink(v, S("x"), root, S("/workspace/l/s"), H), CAPSA__VFS_ELINK,
              "a symlink through it");
    CHECK_INT(capsa__vfs_unlink(v, root, S("/workspace/l/r.txt"), H), CAPSA__VFS_ELINK,
              "unlink through it");
    CHECK_INT(capsa__vfs_remove(v, root, S("/workspace/l/r.txt"), 0, H), CAPSA__VFS_ELINK,
              "remove through it");
    CHECK_INT(capsa__vfs_mount(v, "/workspace/l", CAPSA__VFS_RW), CAPSA__VFS_ELINK,
              "a mount through it");
    CHECK_INT(capsa__vfs_allow(v, dir_at(v, "/workspace/ro"), CAPSA__VFS_CHANGE, G), CAPSA__WASI_EROFS,
              "the mount stays read-only");

    /* Tar: one entry through the link refuses the whole archive. */
    static unsigned char t[8192];
    size_t k = mk_tar(t, "ok.txt", '0', NULL, "l/x.txt", '0', NULL);
    char msg[256];
    CHECK_INT(capsa__vfs_import_tar(v, "/workspace", t, k, msg, sizeof msg), CAPSA__VFS_ELINK,
              "an archive with an entry through the link");
    CHECK_CONTAINS(msg, "l/x.txt", "the message names it");
    CHECK_INT(type_at(v, "/workspace/ok.txt"), -1, "nothing of it was written");
    CHECK_INT(capsa__vfs_import_tar(v, "/workspace/l", t, k, msg, sizeof msg), CAPSA__VFS_ELINK,
              "an archive into the link");
    CHECK_INT(type_at(v, "/workspace/ro/ok.txt"), -1, "nothing of that either");
    capsa__vfs_free(v);
}

TEST(null_device)
{
    capsa__vfs *v = new_vfs(NULL);
    capsa__vnode *root = capsa__vfs_root(v), *n, *dummy;
    capsa__vfs_stat st;
    CHECK_INT(capsa__vfs_stat(v, root, S("/dev"), 0, G, &st), 0, "/dev exists");
    CHECK_INT(st.type, CAPSA__VFS_DIR, "/dev is a directory");
    CHECK_INT(st.mode, CAPSA__VFS_RO, "of a read-only mount");
    CHECK_INT(capsa__vfs_stat(v, root, S("/dev/null"), 0, G, &st), 0, "/dev/null exists");
    CHECK_INT(st.type, CAPSA__VFS_CHARDEV, "a character device (WASI filetype 2)");
    CHECK_INT(st.type, 2, "numbered as WASI's FILETYPE_CHARACTER_DEVICE");
    CHECK_INT(st.size, 0, "empty");
    CHECK_INT(st.nlink, 1, "one name");
    uint64_t bytes, entries;
    capsa__vfs_usage(v, &bytes, &entries);
    CHECK_INT(entries, 0, "/dev and /dev/null are the layout, not entries");

    /* listing /dev: ".", "..", then "null" alone */
    capsa__vnode *dev = dir_at(v, "/dev");
    capsa__vfs_dirent de;
    CHECK_INT(capsa__vfs_readdir(v, dev, 2, &de, G), 0, "the guest lists /dev");
    CHECK(de.name_len == 4 && memcmp(de.name, "null", 4) == 0, "its one entry is null");
    CHECK_INT(de.type, CAPSA__VFS_CHARDEV, "listed as a character device");
    CHECK_INT(capsa__vfs_readdir(v, dev, de.next, &de, G), CAPSA__WASI_ENOENT, "and nothing else");
    int seen_dev = 0;
    for (uint64_t c = 2; capsa__vfs_readdir(v, root, c, &de, G) == 0; c = de.next)
        if (de.name_len == 3 && memcmp(de.name, "dev", 3) == 0)
            seen_dev = de.type == CAPSA__VFS_DIR;
    CHECK(seen_dev, "/ lists dev as a directory");

    /* reads: end of file at once */
    char buf[64] = "untouched";
    size_t got = 99;
    CHECK_INT(capsa__vfs_open(v, root, S("/dev/null"), F, 0, RD, G, &n), 0, "open for reading");
    CHECK_INT(capsa__vfs_read(v, n, 0, buf, sizeof buf, &got, G), 0, "read");
    CHECK_INT(got, 0, "end of file at once");
    CHECK_INT(capsa__vfs_read(v, n, 12345, buf, sizeof buf, &got, G), 0, "read at an offset");
    CHECK_INT(got, 0, "end of file there too");
    CHECK_STR(buf, "untouched", "nothing copied out");
    capsa__vfs_unref(v, n);

    /* writes: taken whole, nothing kept */
    CHECK_INT(capsa__vfs_open(v, root, S("/dev/null"), F, CAPSA__VFS_O_CREAT | CAPSA__VFS_O_TRUNC,
                              RD | WR, G, &n), 0, "open O_CREAT|O_TRUNC for writing (cp, >)");
    uint64_t end = 77;
    CHECK_INT(capsa__vfs_write(v, n, 0, "hello", 5, 0, &end, G), 0, "write");
    CHECK_INT(end, 0, "the position does not move");
    CHECK_INT(capsa__vfs_write(v, n, 1u << 20, "x", 1, 0, &end, G), 0, "pwrite far out");
    CHECK_INT(end, 1u << 20, "at the offset given");
    CHECK_INT(capsa__vfs_write(v, n, 5, "tail", 4, 1, &end, G), 0, "append");
    CHECK_INT(capsa__vfs_write(v, n, UINT64_MAX - 1, "xyz", 3, 0, &end, G), 0,
              "past the largest offset: nothing to overflow");
    CHECK_INT(capsa__vfs_write(v, n, 0, "", 0, 0, &end, G), 0, "an empty write");
    capsa__vfs_stat_node(n, &st);
    CHECK_INT(st.size, 0, "the size stays 0");
    CHECK_INT(capsa__vfs_read(v, n, 0, buf, sizeof buf, &got, G), 0, "read back");
    CHECK_INT(got, 0, "nothing was kept");
    capsa__vfs_usage(v, &bytes, &entries);
    CHECK_INT(bytes, 0, "no bytes used");
    CHECK_INT(capsa__vfs_truncate(v, n, 4096, G), 0, "ftruncate (grow) succeeds");
    CHECK_INT(capsa__vfs_truncate(v, n, 0, G), 0, "ftruncate (to 0) succeeds");
    capsa__vfs_stat_node(n, &st);
    CHECK_INT(st.size, 0, "and does nothing");
    uint64_t t = 1234567890ull * 1000000000ull;
    CHECK_INT(capsa__vfs_set_times(v, n, &t, &t, G), 0, "its times may be set");
    capsa__vfs_unref(v, n);
    CHECK_INT(capsa__vfs_open(v, root, S("/dev/null"), F, 0, AP, G, &n), 0, "open for appending");
    CHECK_INT(capsa__vfs_write(v, n, 0, "more", 4, 1, &end, G), 0, "append");
    capsa__vfs_unref(v, n);
    CHECK_INT(put(v, root, "/dev/null", "data", H), 0, "the host writes too");
    CHECK_INT(type_at(v, "/dev/null"), CAPSA__VFS_CHARDEV, "and it stays the device");

    /* 100 MB through it: far past the 64 MiB quota, none of it counted */
    CHECK_INT(put(v, root, "/tmp/keep", "kept", G), 0, "a file of the guest's");
    uint64_t bytes0, entries0;
    capsa__vfs_usage(v, &bytes0, &entries0);
    static char chunk[1 << 20];
    memset(chunk, 'q', sizeof chunk);
    CHECK_INT(capsa__vfs_open(v, root, S("/dev/null"), F, 0, WR, G, &n), 0, "open for writing");
    int failed = 0;
    uint64_t off = 0;
    for (int i = 0; i < 100 && !failed; i++) {
        failed = capsa__vfs_write(v, n, off, chunk, sizeof chunk, 0, &end, G);
        off += sizeof chunk; /* as pwrite at a growing offset */
    }
    CHECK_INT(failed, 0, "100 MiB written in 1 MiB chunks");
    capsa__vfs_unref(v, n);
    capsa__vfs_usage(v, &bytes, &entries);
    CHECK_INT(bytes, bytes0, "the byte quota is untouched");
    CHECK_INT(entries, entries0, "so is the entry count");
    CHECK_INT(put(v, root, "/tmp/after", "still room", G), 0, "the guest still has its room");

    /* with a tiny quota, still writable */
    capsa__vfs_quota q = { 4, 0, 2 };
    capsa__vfs *small = new_vfs(&q);
    CHECK_INT(capsa__vfs_open(small, capsa__vfs_root(small), S("/dev/null"), F, 0, WR, G, &n), 0,
              "open in a 4-byte filesystem");
    CHECK_INT(capsa__vfs_write(small, n, 0, chunk, 1000, 0, NULL, G), 0,
              "1000 bytes past a 2-byte file limit");
    capsa__vfs_unref(small, n);
    capsa__vfs_free(small);

    /* it cannot be removed, renamed, replaced, linked or made a directory */
    CHECK_INT(capsa__vfs_unlink(v, root, S("/dev/null"), G), CAPSA__WASI_EROFS, "guest: no unlink");
    CHECK_INT(capsa__vfs_unlink(v, root, S("/dev/null"), H), CAPSA__WASI_EBUSY, "host: no unlink");
    CHECK_INT(capsa__vfs_rmdir(v, root, S("/dev/null"), H), CAPSA__WASI_ENOTDIR, "rmdir: not a dir");
    CHECK_INT(capsa__vfs_rmdir(v, root, S("/dev"), G), CAPSA__WASI_EBUSY, "/dev stays (guest)");
    CHECK_INT(capsa__vfs_rmdir(v, root, S("/dev"), H), CAPSA__WASI_EBUSY, "/dev stays (host)");
    CHECK_INT(capsa__vfs_rename(v, root, S("/dev"), root, S("/dev2"), H), CAPSA__WASI_EBUSY,
              "/dev is not renamed");
    CHECK_INT(capsa__vfs_rename(v, root, S("/dev/null"), root, S("/dev/zero"), G),
              CAPSA__WASI_EROFS, "guest: no rename within /dev");
    CHECK_INT(capsa__vfs_rename(v, root, S("/dev/null"), root, S("/tmp/null"), G),
              CAPSA__WASI_EROFS, "guest: no rename out of /dev");
    CHECK_INT(capsa__vfs_rename(v, root, S("/dev/null"), root, S("/dev/zero"), H),
              CAPSA__WASI_EBUSY, "host: no rename either");
    CHECK_INT(capsa__vfs_rename(v, root, S("/tmp/keep"), root, S("/dev/null"), G),
              CAPSA__WASI_EROFS, "guest: nothing renamed onto it");
    CHECK_INT(capsa__vfs_rename(v, root, S("/tmp/keep"), root, S("/dev/null"), H),
              CAPSA__WASI_EBUSY, "host: nothing renamed onto it");
    CHECK_INT(capsa__vfs_mkdir(v, root, S("/tmp/d"), G), 0, "a directory");
    CHECK_INT(capsa__vfs_rename(v, root, S("/tmp/d"), root, S("/dev/null"), H), CAPSA__WASI_EBUSY,
              "nor a directory");
    CHECK_INT(capsa__vfs_link(v, root, S("/dev/null"), 0, root, S("/tmp/l"), G), CAPSA__WASI_EPERM,
              "guest: no link to it");
    CHECK_INT(capsa__vfs_link(v, root, S("/dev/null"), 0, root, S("/dev/l"), H), CAPSA__WASI_EPERM,
              "host: no link to it");
    CHECK_INT(capsa__vfs_link(v, root, S("/tmp/keep"), 0, root, S("/dev/null"), H), CAPSA__WASI_EEXIST,
              "no link over it");
    CHECK_INT(capsa__vfs_mkdir(v, root, S("/dev/null"), G), CAPSA__WASI_EEXIST, "no mkdir over it");
    CHECK_INT(capsa__vfs_mkdir(v, root, S("/dev/null"), H), CAPSA__WASI_EEXIST, "not even the host's");
    CHECK_INT(capsa__vfs_symlink(v, S("x"), root, S("/dev/null"), H), CAPSA__WASI_EEXIST,
              "no symlink over it");
    CHECK_INT(capsa__vfs_open(v, root, S("/dev/null"), F, CAPSA__VFS_O_CREAT | CAPSA__VFS_O_EXCL,
                              WR, G, &dummy), CAPSA__WASI_EEXIST, "O_CREAT|O_EXCL: EEXIST");
    CHECK_INT(capsa__vfs_open(v, root, S("/dev/null"), F, CAPSA__VFS_O_DIRECTORY, RD, G, &dummy),
              CAPSA__WASI_ENOTDIR, "O_DIRECTORY: not a directory");
    CHECK_INT(capsa__vfs_open(v, root, S("/dev/null/x"), F, CAPSA__VFS_O_CREAT, WR, G, &dummy),
              CAPSA__WASI_ENOTDIR, "nothing below it");
    CHECK_INT(type_at(v, "/dev/null"), CAPSA__VFS_CHARDEV, "still the device");
    CHECK_INT(type_at(v, "/tmp/keep"), CAPSA__VFS_FILE, "and the file that was not moved");

    /* /dev takes nothing new from the guest */
    CHECK_INT(put(v, root, "/dev/zero", "x", G), CAPSA__WASI_EROFS, "no new file in /dev");
    CHECK_INT(capsa__vfs_mkdir(v, root, S("/dev/sub"), G), CAPSA__WASI_EROFS, "no directory");
    CHECK_INT(capsa__vfs_symlink(v, S("null"), root, S("/dev/nil"), G), CAPSA__WASI_EROFS,
              "no symlink");
    CHECK_INT(capsa__vfs_set_times(v, dev, &t, &t, G), CAPSA__WASI_EROFS, "no times on /dev");
    CHECK_INT(capsa__vfs_allow(v, dev, CAPSA__VFS_CHANGE, G), CAPSA__WASI_EROFS,
              "capsa__vfs_allow decides: /dev is not writable as a directory");

    /* a symlink to it works as the device */
    CHECK_INT(capsa__vfs_symlink(v, S("/dev/null"), root, S("/tmp/sink"), G), 0, "a symlink to it");
    CHECK_INT(put(v, root, "/tmp/sink", "through the link", G), 0, "writes through it");
    CHECK_INT(type_at(v, "/dev/null"), CAPSA__VFS_CHARDEV, "land in the device");

    /* export: the device is no host file, and no tar entry */
    char tmpl[] = "/tmp/capsa-vfs-null-XXXXXX";
    char *top = mkdtemp(tmpl);
    CHECK(top != NULL, "a temporary directory");
    char msg[512], p[4200];
    if (top) {
        snprintf(p, sizeof p, "%s/dev", top);
        CHECK_INT(capsa__vfs_export_dir(v, "/dev", p, msg, sizeof msg), 0, "copy /dev out");
        snprintf(p, sizeof p, "%s/dev/null", top);
        struct stat hst;
        CHECK(lstat(p, &hst) != 0, "no host file is made from the device");
        snprintf(p, sizeof p, "%s/wb-dev", top);
        CHECK_INT(capsa__vfs_sync_dir(v, dir_at(v, "/dev"), p, 0, msg, sizeof msg), 0,
                  "write /dev back");
        snprintf(p, sizeof p, "%s/wb-dev/null", top);
        CHECK(lstat(p, &hst) != 0, "not in a write-back either");
        snprintf(p, sizeof p, "%s/wb-tmp", top);
        CHECK_INT(capsa__vfs_sync_dir(v, dir_at(v, "/tmp"), p, 0, msg, sizeof msg), 0,
                  "write /tmp back");
        snprintf(p, sizeof p, "%s/wb-tmp/keep", top);
        CHECK(lstat(p, &hst) == 0, "while the files are");
        rm_rf(top);
    }
    capsa__buf tar = { 0 };
    CHECK_INT(capsa__vfs_export_tar(v, "/", &tar), 0, "tar of /");
    int has_null = 0;
    for (size_t i = 0; tar.data && i + 8 <= tar.len; i += 512)
        if (memcmp(tar.data + i, "dev/null", 8) == 0)
            has_null = 1;
    CHECK(!has_null, "the tar has no dev/null entry");
    capsa__vfs *w2 = new_vfs(NULL);
    CHECK_INT(capsa__vfs_import_tar(w2, "/", tar.data, tar.len, msg, sizeof msg), 0,
              "and imports into a fresh filesystem's /");
    CHECK_INT(type_at(w2, "/dev/null"), CAPSA__VFS_CHARDEV, "whose device is left alone");
    CHECK_INT(type_at(w2, "/tmp/keep"), CAPSA__VFS_FILE, "next to the files it carried");
    capsa__buf_free(&tar, &capsa__default_allocator);
    /* a tar naming dev/null is refused before anything is written */
    capsa__vfs *w3 = new_vfs(NULL);
    CHECK_INT(capsa__vfs_mkdir(w3, capsa__vfs_root(w3), S("/tmp/a"), H), 0, "a directory");
    CHECK_INT(put(w3, capsa__vfs_root(w3), "/tmp/a/first", "1", H), 0, "a file");
    CHECK_INT(capsa__vfs_mkdir(w3, capsa__vfs_root(w3), S("/tmp/a/dev"), H), 0, "a dev directory");
    CHECK_INT(put(w3, capsa__vfs_root(w3), "/tmp/a/dev/null", "x", H), 0, "a file named null");
    capsa__buf t2 = { 0 };
    CHECK_INT(capsa__vfs_export_tar(w3, "/tmp/a", &t2), 0, "its tar");
    CHECK_INT(capsa__vfs_import_tar(w2, "/", t2.data, t2.len, msg, sizeof msg), CAPSA__WASI_EBUSY,
              "would replace the device: refused");
    CHECK_CONTAINS(msg, "dev/null", "the message names it");
    CHECK_INT(type_at(w2, "/first"), -1, "nothing was written");
    CHECK_INT(type_at(w2, "/dev/null"), CAPSA__VFS_CHARDEV, "the device is intact");
    capsa__buf_free(&t2, &capsa__default_allocator);
    capsa__vfs_free(w3);
    capsa__vfs_free(w2);
    capsa__vfs_free(v);
}

int main(void)
{
    RUN(layout_and_modes);
    RUN(append_only_log);
    RUN(walk_basics);
    RUN(symlinks);
    RUN(open_errors);
    RUN(mkdir_rmdir_unlink);
    RUN(rename);
    RUN(links_and_unlink_while_open);
    RUN(readdir_order_and_cookies);
    RUN(times);
    RUN(quotas);
    RUN(allocation_failure_everywhere);
    RUN(import_export_dir);
    RUN(tar_round_trip);
    RUN(tar_malicious);
    RUN(null_device);
    RUN(depth_limit);
    RUN(host_past_symlinks);
    return test_summary("vfs");
}
