/* The capsa_fs_* functions of capsa.h: the host's side of a sandbox's files, over
 * its VFS (acting as the host: mounts' modes do not bind them, quotas do). Each
 * checks the caller's path, calls the VFS (the tree in vfs.c, host directories in
 * vfs_host.c, tar streams in vfs_tar.c) and turns its error into a status code
 * and a message. The mounts are recorded here, and the read-write ones written
 * back after each run (capsa__fs_sync). */
#include "fs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sandbox.h"
#include "vfs.h"
#include "vfs_host.h"
#include "vfs_tar.h"

#define HOST CAPSA__VFS_HOST

/* Sets the sandbox's message for a failed operation and returns its status. */
static int fail(capsa_sandbox *sb, int err, const char *what, const char *path)
{
    capsa__sandbox_errorf(sb, "%s '%.300s': %s", what, path ? path : "(null)", capsa__vfs_strerror(err));
    return capsa__vfs_status(err);
}

/* The same, for an operation on two paths, with the VFS's detail (may be empty). */
static int fail2(capsa_sandbox *sb, int err, const char *what, const char *a, const char *b,
                 const char *detail)
{
    capsa__sandbox_errorf(sb, "%s '%.200s' %.210s: %s%s%.200s", what, a ? a : "(null)", b ? b : "",
                          capsa__vfs_strerror(err), detail[0] ? ": " : "", detail);
    return capsa__vfs_status(err);
}

static int ok(capsa_sandbox *sb)
{
    capsa__sandbox_errorf(sb, "not an error");
    return CAPSA_OK;
}

/* Checks a caller's path and makes it absolute in buf: relative paths are taken
 * from /workspace. Returns 0 or a WASI errno. */
static int host_path(const char *path, char buf[CAPSA__VFS_PATH_MAX + 1])
{
    if (!path)
        return CAPSA__WASI_EINVAL;
    size_t n = strlen(path);
    const char *prefix = path[0] == '/' ? "" : "/workspace/";
    size_t p = strlen(prefix);
    if (n == 0)
        return CAPSA__WASI_ENOENT;
    if (p + n > CAPSA__VFS_PATH_MAX)
        return CAPSA__WASI_ENAMETOOLONG;
    memcpy(buf, prefix, p);
    memcpy(buf + p, path, n + 1);
    return 0;
}

#define PATH_ARG(sb, path, buf, what)                    \
    char buf[CAPSA__VFS_PATH_MAX + 1];                   \
    do {                                                 \
        int e_ = host_path((path), buf);                 \
        if (e_)                                          \
            return fail((sb), e_, (what), (path));       \
    } while (0)

CAPSA_API int capsa_fs_write(capsa_sandbox *sb, const char *path, const void *data, size_t len)
{
    if (!sb || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    if (!data && len)
        return fail(sb, CAPSA__WASI_EINVAL, "write (data is NULL)", path);
    PATH_ARG(sb, path, abs, "write");
    int err = capsa__vfs_write_file(sb->vfs, abs, data ? data : "", len);
    return err ? fail(sb, err, "write", path) : ok(sb);
}

CAPSA_API int capsa_fs_read(capsa_sandbox *sb, const char *path, char **data, size_t *len)
{
    if (data)
        *data = NULL;
    if (len)
        *len = 0;
    if (!sb || !data || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    PATH_ARG(sb, path, abs, "read");
    capsa__vnode *n = NULL;
    int err = capsa__vfs_open(sb->vfs, capsa__vfs_root(sb->vfs), abs, strlen(abs),
                              CAPSA__VFS_FOLLOW, 0, 1u << CAPSA__VFS_READ, HOST, &n);
    if (err)
        return fail(sb, err, "read", path);
    if (capsa__vfs_node_type(n) == CAPSA__VFS_DIR) {
        capsa__vfs_unref(sb->vfs, n);
        return fail(sb, CAPSA__WASI_EISDIR, "read", path);
    }
    uint64_t size = 0;
    const uint8_t *bytes = capsa__vfs_file_data(n, &size);
    /* Allocated by the C library: capsa_free releases it. */
    char *copy = size < SIZE_MAX ? malloc((size_t)size + 1) : NULL;
    if (!copy) {
        capsa__vfs_unref(sb->vfs, n);
        return fail(sb, CAPSA__WASI_ENOMEM, "read", path);
    }
    if (size)
        memcpy(copy, bytes, (size_t)size);
    copy[size] = '\0';
    capsa__vfs_unref(sb->vfs, n);
    *data = copy;
    if (len)
        *len = (size_t)size;
    return ok(sb);
}

CAPSA_API int capsa_fs_mkdir(capsa_sandbox *sb, const char *path)
{
    if (!sb || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    PATH_ARG(sb, path, abs, "mkdir");
    int err = capsa__vfs_make_dirs(sb->vfs, abs);
    return err ? fail(sb, err, "mkdir", path) : ok(sb);
}

static void fill_info(const capsa__vfs_stat *st, capsa_file_info *info)
{
    capsa_file_info full;
    memset(&full, 0, sizeof(full));
    /* capsa_file_type has no devices: /dev/null shows as an empty file. */
    full.type = st->type == CAPSA__VFS_DIR ? CAPSA_DIRECTORY
              : st->type == CAPSA__VFS_SYMLINK ? CAPSA_SYMLINK : CAPSA_FILE;
    full.size = st->size;
    full.mtime_ns = st->mtim;
    /* The null device takes the guest's writes in read-only /dev. */
    full.guest_writable = st->mode != CAPSA__VFS_RO || st->type == CAPSA__VFS_CHARDEV;
    capsa__struct_out(info, &full, sizeof(full));
}

CAPSA_API int capsa_fs_stat(capsa_sandbox *sb, const char *path, capsa_file_info *info)
{
    if (!sb || !info || info->struct_size < sizeof(size_t) || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    PATH_ARG(sb, path, abs, "stat");
    capsa__vfs_stat st;
    int err = capsa__vfs_stat(sb->vfs, capsa__vfs_root(sb->vfs), abs, strlen(abs), 0, HOST, &st);
    if (err)
        return fail(sb, err, "stat", path);
    fill_info(&st, info);
    return ok(sb);
}

CAPSA_API int capsa_fs_list(capsa_sandbox *sb, const char *path, capsa_dir_fn fn, void *ud)
{
    if (!sb || !fn || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    PATH_ARG(sb, path, abs, "list");
    capsa__vfs *vfs = sb->vfs;
    capsa__vnode *d = NULL;
    int err = capsa__vfs_open(vfs, capsa__vfs_root(vfs), abs, strlen(abs), CAPSA__VFS_FOLLOW,
                              CAPSA__VFS_O_DIRECTORY, 1u << CAPSA__VFS_READ, HOST, &d);
    if (err)
        return fail(sb, err, "list", path);
    capsa__vfs_dirent e;
    char name[CAPSA__VFS_NAME_MAX + 1];
    for (uint64_t cookie = 2; (err = capsa__vfs_readdir(vfs, d, cookie, &e, HOST)) == 0;
         cookie = e.next) {
        memcpy(name, e.name, e.name_len);
        name[e.name_len] = '\0';
        capsa__vfs_stat st;
        if (capsa__vfs_stat(vfs, d, name, e.name_len, 0, HOST, &st) != 0)
            continue;
        capsa_file_info info = { sizeof(info), 0, 0, 0, 0 };
        fill_info(&st, &info);
        if (fn(ud, name, &info) != 0)
            break;
    }
    capsa__vfs_unref(vfs, d);
    if (err && err != CAPSA__WASI_ENOENT)
        return fail(sb, err, "list", path);
    return ok(sb);
}

CAPSA_API int capsa_fs_remove(capsa_sandbox *sb, const char *path, int recursive)
{
    if (!sb || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    PATH_ARG(sb, path, abs, "remove");
    int err = capsa__vfs_remove(sb->vfs, capsa__vfs_root(sb->vfs), abs, strlen(abs), recursive,
                                HOST);
    return err ? fail(sb, err, "remove", path) : ok(sb);
}

/* The record of the mount at abs, or NULL. */
static capsa__host_mount *mount_at(capsa_sandbox *sb, const char *abs)
{
    for (size_t i = 0; i < sb->n_mounts; i++)
        if (strcmp(sb->mounts[i].guest_path, abs) == 0)
            return &sb->mounts[i];
    return NULL;
}

/* Removes everything below directory d, as the host (a mount root below is
 * EBUSY, and stops it). Returns 0 or a WASI errno. */
static int clear_dir(capsa__vfs *vfs, capsa__vnode *d)
{
    capsa__vfs_dirent e;
    char name[CAPSA__VFS_NAME_MAX + 1];
    int err;
    while ((err = capsa__vfs_readdir(vfs, d, 2, &e, HOST)) == 0) {
        memcpy(name, e.name, e.name_len);
        if ((err = capsa__vfs_remove(vfs, d, name, e.name_len, 1, HOST)))
            return err;
    }
    return err == CAPSA__WASI_ENOENT ? 0 : err;
}

CAPSA_API int capsa_fs_mount(capsa_sandbox *sb, const char *host_dir, const char *guest_path,
                             int mode)
{
    if (!sb || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    if (!host_dir || (mode != CAPSA_MOUNT_RO && mode != CAPSA_MOUNT_RW))
        return fail(sb, CAPSA__WASI_EINVAL, "mount", host_dir);
    PATH_ARG(sb, guest_path, abs, "mount");
    capsa__host_mount *again = mount_at(sb, abs);
    if (!again) {
        /* Keep room for the record first, so that a mount that worked is always
           recorded (and, read-write, written back). */
        capsa__host_mount *list = sb->alloc->realloc_fn(sb->alloc->ud, sb->mounts,
                                                        (sb->n_mounts + 1) * sizeof(*list));
        if (!list)
            return fail(sb, CAPSA__WASI_ENOMEM, "mount", host_dir);
        sb->mounts = list;
    }
    char *h = capsa__strndup(sb->alloc, host_dir, strlen(host_dir));
    char *g = capsa__strndup(sb->alloc, abs, strlen(abs));
    if (!h || !g) {
        capsa__free(sb->alloc, h);
        capsa__free(sb->alloc, g);
        return fail(sb, CAPSA__WASI_ENOMEM, "mount", host_dir);
    }
    char detail[256] = "";
    int err = 0;
    /* A mount restored from a checkpoint: the host directory's contents replace
       the copy the checkpoint kept, so that the sandbox sees the directory as it
       is now (and what the host removed meanwhile does not come back). */
    if (again && !again->host_dir && (err = clear_dir(sb->vfs, again->root)))
        snprintf(detail, sizeof(detail), "cannot empty the mount the checkpoint restored");
    if (!err)
        err = capsa__vfs_make_dirs(sb->vfs, abs);
    if (!err)
        err = capsa__vfs_import_dir(sb->vfs, host_dir, abs, detail, sizeof(detail));
    if (!err)
        err = capsa__vfs_mount(sb->vfs, abs,
                               mode == CAPSA_MOUNT_RW ? CAPSA__VFS_RW : CAPSA__VFS_RO);
    if (err) {
        capsa__free(sb->alloc, h);
        capsa__free(sb->alloc, g);
        char at[224];
        snprintf(at, sizeof(at), "at '%.200s'", guest_path);
        return fail2(sb, err, "mount", host_dir, at, detail);
    }
    /* The mount root is kept by node, not by path: it can be neither removed nor
       renamed, while a path could be led elsewhere by a link. */
    capsa__vfs_where w;
    capsa__vfs_walk(sb->vfs, capsa__vfs_root(sb->vfs), abs, strlen(abs), CAPSA__VFS_FOLLOW, HOST,
                    &w);
    capsa__host_mount m = { h, g, w.node, mode == CAPSA_MOUNT_RW, 0 };
    if (again) {
        /* Mounted again: the new directory takes the place of the old one. */
        sb->n_rw_mounts -= again->rw && again->host_dir;
        capsa__free(sb->alloc, again->host_dir);
        capsa__free(sb->alloc, again->guest_path);
        *again = m;
    } else {
        sb->mounts[sb->n_mounts++] = m;
    }
    sb->n_rw_mounts += m.rw;
    return ok(sb);
}

int capsa__fs_restore_mount(capsa_sandbox *sb, const char *guest_path, size_t len, int rw)
{
    capsa__vfs_where w;
    int err = len && guest_path[0] == '/' ? capsa__vfs_walk(sb->vfs, capsa__vfs_root(sb->vfs),
                                                            guest_path, len, 0, HOST, &w)
                                          : CAPSA__WASI_EINVAL;
    if (err || !w.node || !capsa__vfs_is_mount(w.node)) {
        capsa__sandbox_errorf(sb, "the checkpoint's mount '%.*s' is not a mount point of its "
                                  "filesystem", (int)(len > 300 ? 300 : len), guest_path);
        return CAPSA_EINVAL;
    }
    capsa__host_mount *list = sb->alloc->realloc_fn(sb->alloc->ud, sb->mounts,
                                                    (sb->n_mounts + 1) * sizeof(*list));
    char *g = list ? capsa__strndup(sb->alloc, guest_path, len) : NULL;
    if (list)
        sb->mounts = list;
    if (!g) {
        capsa__sandbox_errorf(sb, "out of memory restoring the mounts");
        return CAPSA_ENOMEM;
    }
    sb->mounts[sb->n_mounts++] = (capsa__host_mount){ NULL, g, w.node, rw != 0, 0 };
    return CAPSA_OK;
}

/* Creates the host directory dir and its missing parents (the caller's path: the
 * host is trusted with its own directories). Returns 0 or -1 with errno set. */
static int host_make_dirs(const char *dir)
{
    char part[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof(part)) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (size_t i = 1; i <= n; i++) {
        if (i < n && dir[i] != '/')
            continue;
        memcpy(part, dir, i);
        part[i] = '\0';
        if (mkdir(part, 0755) != 0 && errno != EEXIST)
            return -1;
    }
    return 0;
}

CAPSA_API int capsa_fs_copy_out(capsa_sandbox *sb, const char *guest_path, const char *host_dir)
{
    if (!sb || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    if (!host_dir)
        return fail(sb, CAPSA__WASI_EINVAL, "copy out to", host_dir);
    PATH_ARG(sb, guest_path, abs, "copy out");
    char detail[256] = "";
    if (host_make_dirs(host_dir) != 0) {
        capsa__sandbox_errorf(sb, "copy '%.200s' to '%.300s': cannot create the directory: %s",
                              guest_path, host_dir, strerror(errno));
        return CAPSA_EIO;
    }
    int err = capsa__vfs_export_dir(sb->vfs, abs, host_dir, detail, sizeof(detail));
    if (err) {
        char to[224];
        snprintf(to, sizeof(to), "to '%.200s'", host_dir);
        return fail2(sb, err, "copy", guest_path, to, detail);
    }
    return ok(sb);
}

int capsa__fs_sync(capsa_sandbox *sb)
{
    int rc = CAPSA_OK;
    char msg[256];
    for (size_t i = 0; i < sb->n_mounts; i++) {
        capsa__host_mount *m = &sb->mounts[i];
        if (!m->rw || !m->host_dir)
            continue;
        msg[0] = '\0';
        int err = capsa__vfs_sync_dir(sb->vfs, m->root, m->host_dir, m->synced, msg, sizeof(msg));
        if (!err)
            m->synced = capsa__vfs_mark(sb->vfs);
        if (err && rc == CAPSA_OK) {
            char to[224];
            snprintf(to, sizeof(to), "back to '%.200s'", m->host_dir);
            rc = fail2(sb, err, "write", m->guest_path, to, msg);
        }
    }
    return rc;
}

void capsa__fs_free_mounts(capsa_sandbox *sb)
{
    for (size_t i = 0; i < sb->n_mounts; i++) {
        capsa__free(sb->alloc, sb->mounts[i].host_dir);
        capsa__free(sb->alloc, sb->mounts[i].guest_path);
    }
    capsa__free(sb->alloc, sb->mounts);
    sb->mounts = NULL;
    sb->n_mounts = sb->n_rw_mounts = 0;
}

CAPSA_API int capsa_fs_export_tar(capsa_sandbox *sb, const char *guest_path, char **data,
                                  size_t *len)
{
    if (data)
        *data = NULL;
    if (len)
        *len = 0;
    if (!sb || !data || !len || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    PATH_ARG(sb, guest_path, abs, "export");
    capsa__vfs_stat st;
    int err = capsa__vfs_stat(sb->vfs, capsa__vfs_root(sb->vfs), abs, strlen(abs),
                              CAPSA__VFS_FOLLOW, HOST, &st);
    if (!err && st.type != CAPSA__VFS_DIR)
        err = CAPSA__WASI_ENOTDIR;
    capsa__buf out = { 0 };
    if (!err)
        err = capsa__vfs_export_tar(sb->vfs, abs, &out);
    /* The caller's copy comes from the C library's allocator: capsa_free
       releases it. */
    char *copy = err ? NULL : malloc(out.len ? out.len : 1);
    if (!err && !copy)
        err = CAPSA__WASI_ENOMEM;
    if (copy && out.len)
        memcpy(copy, out.data, out.len);
    size_t n = out.len;
    capsa__buf_free(&out, sb->alloc);
    if (err)
        return fail(sb, err, "export", guest_path);
    *data = copy;
    *len = n;
    return ok(sb);
}

CAPSA_API int capsa_fs_import_tar(capsa_sandbox *sb, const char *guest_path, const void *data,
                                  size_t len)
{
    if (!sb || capsa__sandbox_busy(sb))
        return CAPSA_EINVAL;
    if (!data && len)
        return fail(sb, CAPSA__WASI_EINVAL, "import (data is NULL)", guest_path);
    PATH_ARG(sb, guest_path, abs, "import");
    int err = capsa__vfs_make_dirs(sb->vfs, abs);
    if (err)
        return fail(sb, err, "import", guest_path);
    char detail[256] = "";
    err = capsa__vfs_import_tar(sb->vfs, abs, data ? data : "", len, detail, sizeof(detail));
    if (err)
        return fail2(sb, err, "import a tar stream into", guest_path, "", detail);
    return ok(sb);
}
