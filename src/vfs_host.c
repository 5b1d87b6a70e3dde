/* Host directories in and out of a sandbox's VFS: copying a host directory in
 * (capsa_fs_mount), copying a tree out (capsa_fs_copy_out), and writing a
 * read-write mount back to the directory it came from after each run. Every host
 * path is opened relative to its directory, without following a symlink. */
#include "vfs_host.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "vfs_tree.h"

/* One level of a walk of host directories: the directory (its descriptor, and
 * its entry stream once read), the length of the path in progress before its
 * name, and the VFS directory it pairs with. */
typedef struct hlevel {
    int fd;
    DIR *dir;
    size_t plen;
    capsa__vnode *node;
    int fresh; /* export: the directory is new at this name, write all of it */
} hlevel;

/* How many host directories one walk holds open at most: an export or import as
 * deep as the VFS allows, plus a removal of a host tree as deep again. */
#define HOST_LEVELS (2 * (CAPSA__VFS_DEPTH_MAX + 1))

/* State of one import or export: the relative path in progress (for messages),
 * the stack of open host directories (walks are iterative: no recursion per
 * level, whatever the depth), and a scratch buffer for file contents and link
 * targets. */
typedef struct hostctx {
    capsa__vfs *vfs;
    char *msg;
    size_t msgsize;
    int mirror;     /* write-back: make the host a copy, as far as it changed */
    uint64_t since; /* write-back: what changed after this generation */
    char *path; /* host_dir, then "/name" per level */
    size_t plen, pcap;
    hlevel *lv; /* innermost last */
    size_t depth;
    char *buf;
    size_t bufsize;
} hostctx;

static int host_errno(int err)
{
    switch (err) {
    case ENOENT: return CAPSA__WASI_ENOENT;
    case EACCES: return CAPSA__WASI_EACCES;
    case EPERM: return CAPSA__WASI_EPERM;
    case ELOOP: return CAPSA__WASI_ELOOP;
    case ENOTDIR: return CAPSA__WASI_ENOTDIR;
    case EISDIR: return CAPSA__WASI_EISDIR;
    case EEXIST: return CAPSA__WASI_EEXIST;
    case ENOTEMPTY: return CAPSA__WASI_ENOTEMPTY;
    case ENOSPC: return CAPSA__WASI_ENOSPC;
    case EDQUOT: return CAPSA__WASI_EDQUOT;
    case ENOMEM: return CAPSA__WASI_ENOMEM;
    case EMFILE: case ENFILE: return CAPSA__WASI_EMFILE;
    case ENAMETOOLONG: return CAPSA__WASI_ENAMETOOLONG;
    case EROFS: return CAPSA__WASI_EROFS;
    case EFBIG: return CAPSA__WASI_EFBIG;
    case EBUSY: return CAPSA__WASI_EBUSY;
    case EXDEV: return CAPSA__WASI_EXDEV;
    case EINVAL: return CAPSA__WASI_EINVAL;
    default: return CAPSA__WASI_EIO;
    }
}

static int host_fail(hostctx *c, int e, const char *what)
{
    return capsa__msgf(c->msg, c->msgsize, e, "%s: %.*s", what, (int)c->plen, c->path);
}

/* Appends "/name" to the path in progress; returns the length to restore, or
 * (size_t)-1 when the path would be too long. */
static size_t path_push(hostctx *c, const char *name, size_t len)
{
    size_t old = c->plen;
    if (c->plen + 1 + len + 1 > c->pcap)
        return (size_t)-1;
    c->path[c->plen++] = '/';
    memcpy(c->path + c->plen, name, len);
    c->plen += len;
    c->path[c->plen] = '\0';
    return old;
}

static void path_pop(hostctx *c, size_t old)
{
    c->plen = old;
    c->path[old] = '\0';
}

static int hostctx_init(hostctx *c, capsa__vfs *vfs, const char *start, char *msg, size_t msgsize)
{
    memset(c, 0, sizeof *c);
    c->vfs = vfs;
    c->msg = msg;
    c->msgsize = msgsize;
    if (msg && msgsize)
        msg[0] = '\0';
    size_t sl = strlen(start);
    c->pcap = sl + 2 * CAPSA__VFS_PATH_MAX + 2;
    c->bufsize = 64 * 1024;
    const capsa_allocator *a = capsa__vfs_allocator(vfs);
    c->path = capsa__malloc(a, c->pcap);
    c->buf = capsa__malloc(a, c->bufsize);
    c->lv = capsa__malloc(a, HOST_LEVELS * sizeof(hlevel));
    if (!c->path || !c->buf || !c->lv)
        return capsa__msgf(msg, msgsize, CAPSA__WASI_ENOMEM, "out of memory");
    memcpy(c->path, start, sl + 1);
    c->plen = sl;
    return 0;
}

static void hostctx_done(hostctx *c)
{
    const capsa_allocator *a = capsa__vfs_allocator(c->vfs);
    capsa__free(a, c->path);
    capsa__free(a, c->buf);
    capsa__free(a, c->lv);
}

/* Enters the host directory open as fd (taken over) that pairs with VFS
 * directory node; the path in progress was plen long before its name. */
static int level_push(hostctx *c, int fd, capsa__vnode *node, size_t plen)
{
    if (c->depth == HOST_LEVELS) {
        close(fd);
        return host_fail(c, CAPSA__WASI_ENAMETOOLONG, "directories nested too deep at");
    }
    c->lv[c->depth++] = (hlevel){ fd, NULL, plen, node, 0 };
    return 0;
}

/* Leaves the innermost level: closes its directory and restores the path. */
static void level_pop(hostctx *c)
{
    hlevel *l = &c->lv[--c->depth];
    if (l->dir)
        closedir(l->dir);
    else
        close(l->fd);
    path_pop(c, l->plen);
}

/* Leaves every level above base (after an error). */
static void levels_unwind(hostctx *c, size_t base)
{
    while (c->depth > base)
        level_pop(c);
}

/* The next entry of level l's directory other than "." and "..": 0 with *name
 * (NULL at the end; valid until the next call), or a WASI errno with the message
 * set. */
static int level_next(hostctx *c, hlevel *l, const char **name)
{
    *name = NULL;
    if (!l->dir && !(l->dir = fdopendir(l->fd)))
        return host_fail(c, host_errno(errno), "cannot read directory");
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(l->dir);
        if (!de)
            return errno ? host_fail(c, host_errno(errno), "cannot read directory") : 0;
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
            *name = de->d_name;
            return 0;
        }
    }
}

/* Copies one host regular file (name in dirfd) to the entry name of directory d,
 * checking the file size against the quotas before reading a byte. */
static int import_file(hostctx *c, int pfd, const char *name, size_t nlen, capsa__vnode *d)
{
    capsa__vfs *vfs = c->vfs;
    int fd = openat(pfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return host_fail(c, host_errno(errno), "cannot open");
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return host_fail(c, CAPSA__WASI_EIO, "not a regular file any more");
    }
    uint64_t size = (uint64_t)st.st_size;
    capsa__vfs_quota q;
    capsa__vfs_quota_get(vfs, &q);
    if (size > q.max_file) {
        close(fd);
        return host_fail(c, CAPSA__WASI_EDQUOT, "larger than the file quota");
    }
    capsa__vfs_where w;
    int e = capsa__vfs_walk(vfs, d, name, nlen, 0, CAPSA__VFS_HOST, &w);
    uint64_t had = 0;
    if (!e && w.node && capsa__vfs_node_type(w.node) == CAPSA__VFS_DIR)
        e = CAPSA__WASI_EISDIR;
    else if (!e && w.node)
        capsa__vfs_file_data(w.node, &had); /* 0 but for a file */
    if (!e && size > had && capsa__vfs_quota_bytes(vfs, size - had))
        e = CAPSA__WASI_ENOSPC;
    if (!e && w.node && capsa__vfs_node_type(w.node) == CAPSA__VFS_SYMLINK)
        e = capsa__vfs_unlink(vfs, d, name, nlen, CAPSA__VFS_HOST);
    capsa__vnode *n = NULL;
    if (!e)
        e = capsa__vfs_open(vfs, d, name, nlen, 0, CAPSA__VFS_O_CREAT | CAPSA__VFS_O_TRUNC,
                            1u << CAPSA__VFS_WRITE, CAPSA__VFS_HOST, &n);
    uint64_t off = 0;
    while (!e) {
        ssize_t r = read(fd, c->buf, c->bufsize);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            e = host_errno(errno);
        if (r <= 0)
            break;
        e = capsa__vfs_write(vfs, n, off, c->buf, (size_t)r, 0, &off, CAPSA__VFS_HOST);
    }
    close(fd);
    if (!e) {
        uint64_t at = (uint64_t)st.st_atim.tv_sec * 1000000000ull + (uint64_t)st.st_atim.tv_nsec;
        uint64_t mt = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec;
        capsa__vfs_set_times(vfs, n, &at, &mt, CAPSA__VFS_HOST);
        capsa__vfs_set_host_mode(n, (unsigned)(st.st_mode & 0777));
        capsa__vfs_entry_as_on_host(d, name, nlen);
    }
    capsa__vfs_unref(vfs, n);
    return e ? host_fail(c, e, "cannot copy") : 0;
}

/* Copies the host directory open as fd (which this takes over) into directory
 * top, depth first. Host symlinks are read, never followed. */
static int import_tree(hostctx *c, int fd, capsa__vnode *top)
{
    capsa__vfs *vfs = c->vfs;
    size_t base = c->depth;
    int e = level_push(c, fd, top, c->plen);
    while (!e && c->depth > base) {
        hlevel *l = &c->lv[c->depth - 1];
        const char *name;
        if ((e = level_next(c, l, &name)))
            break;
        if (!name) {
            capsa__vfs_as_on_host(l->node); /* its entries are the host's */
            level_pop(c);
            continue;
        }
        capsa__vnode *d = l->node;
        size_t nlen = strlen(name);
        size_t old = path_push(c, name, nlen);
        if (old == (size_t)-1) {
            e = host_fail(c, CAPSA__WASI_ENAMETOOLONG, "path too long below");
            break;
        }
        int bad = nlen > CAPSA__VFS_NAME_MAX ? CAPSA__WASI_ENAMETOOLONG
                                             : capsa__vfs_check_path(name, nlen);
        if (bad) {
            e = host_fail(c, bad, "bad name");
            break;
        }
        struct stat st;
        if (fstatat(l->fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            e = host_fail(c, host_errno(errno), "cannot stat");
            break;
        }
        if (S_ISDIR(st.st_mode)) {
            e = capsa__vfs_mkdir(vfs, d, name, nlen, CAPSA__VFS_HOST);
            capsa__vfs_where w;
            if (!e || e == CAPSA__WASI_EEXIST)
                e = capsa__vfs_walk(vfs, d, name, nlen, 0, CAPSA__VFS_HOST, &w);
            if (!e && (!w.node || capsa__vfs_node_type(w.node) != CAPSA__VFS_DIR))
                e = CAPSA__WASI_EEXIST;
            if (e) {
                e = host_fail(c, e, "cannot make directory for");
                break;
            }
            capsa__vfs_entry_as_on_host(d, name, nlen);
            int cfd = openat(l->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (cfd < 0) {
                e = host_fail(c, host_errno(errno), "cannot open");
                break;
            }
            e = level_push(c, cfd, w.node, old); /* its name stays until it is left */
            continue;
        } else if (S_ISREG(st.st_mode)) {
            if ((e = import_file(c, l->fd, name, nlen, d)))
                break;
        } else if (S_ISLNK(st.st_mode)) {
            ssize_t r = readlinkat(l->fd, name, c->buf, c->bufsize);
            if (r < 0) {
                e = host_fail(c, host_errno(errno), "cannot read link");
                break;
            }
            capsa__vfs_where w;
            e = capsa__vfs_walk(vfs, d, name, nlen, 0, CAPSA__VFS_HOST, &w);
            if (!e && w.node && capsa__vfs_node_type(w.node) == CAPSA__VFS_DIR)
                e = CAPSA__WASI_EEXIST;
            if (!e && w.node)
                e = capsa__vfs_unlink(vfs, d, name, nlen, CAPSA__VFS_HOST);
            if (!e)
                e = capsa__vfs_symlink(vfs, c->buf, (size_t)r, d, name, nlen, CAPSA__VFS_HOST);
            if (e) {
                e = host_fail(c, e, "cannot copy symlink");
                break;
            }
            capsa__vfs_entry_as_on_host(d, name, nlen);
        }
        /* Sockets, FIFOs and devices are not files to copy. */
        path_pop(c, old);
    }
    levels_unwind(c, base);
    return e;
}

int capsa__vfs_import_dir(capsa__vfs *vfs, const char *host_dir, const char *guest_path,
                          char *msg, size_t msgsize)
{
    hostctx c;
    int e = hostctx_init(&c, vfs, host_dir, msg, msgsize);
    capsa__vnode *d = NULL;
    if (!e && (e = capsa__vfs_mkdirs(vfs, capsa__vfs_root(vfs), guest_path, strlen(guest_path),
                                     CAPSA__VFS_HOST, &d)))
        e = capsa__msgf(msg, msgsize, e, "cannot make %s", guest_path);
    if (!e) {
        int fd = open(host_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            e = host_fail(&c, host_errno(errno), "cannot open");
        else
            e = import_tree(&c, fd, d);
    }
    hostctx_done(&c);
    return e;
}

/* Removes the host entry name of directory pfd and, for a directory, all below
 * it, without following symlinks (a symlink is removed itself). The path in
 * progress ends with name. */
static int remove_host_tree(hostctx *c, int pfd, const char *name)
{
    int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOTDIR && errno != ELOOP)
            return host_fail(c, host_errno(errno), "cannot open");
        if (unlinkat(pfd, name, 0) != 0)
            return host_fail(c, host_errno(errno), "cannot remove");
        return 0;
    }
    size_t base = c->depth;
    int e = level_push(c, fd, NULL, c->plen);
    while (!e && c->depth > base) {
        hlevel *l = &c->lv[c->depth - 1];
        const char *child;
        if ((e = level_next(c, l, &child)))
            break;
        if (!child) {
            /* Empty now: remove it from its parent. */
            int inner = c->depth - 1 > base;
            int parent = inner ? c->lv[c->depth - 2].fd : pfd;
            if (unlinkat(parent, inner ? c->path + l->plen + 1 : name, AT_REMOVEDIR) != 0)
                e = host_fail(c, host_errno(errno), "cannot remove");
            level_pop(c);
            continue;
        }
        size_t old = path_push(c, child, strlen(child));
        if (old == (size_t)-1) {
            e = host_fail(c, CAPSA__WASI_ENAMETOOLONG, "path too long below");
            break;
        }
        int cfd = openat(l->fd, child, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (cfd >= 0) {
            e = level_push(c, cfd, NULL, old);
            continue;
        }
        if (errno != ENOTDIR && errno != ELOOP)
            e = host_fail(c, host_errno(errno), "cannot open");
        else if (unlinkat(l->fd, child, 0) != 0)
            e = host_fail(c, host_errno(errno), "cannot remove");
        path_pop(c, old);
    }
    levels_unwind(c, base);
    return e;
}

/* Writes file n as the new host file name in dirfd. An existing entry of that
 * name is unlinked first, so nothing is ever written through a host link (a
 * hard link planted there keeps its old contents; a symlink is replaced, never
 * followed). The permissions are never loosened: a file rewritten at its own
 * name keeps the host file's, one the guest moved keeps those it was copied in
 * with, one that replaces a host file takes that file's, and only a new file
 * gets the default (0666 less the umask); set-id bits are dropped. */
static int export_file(hostctx *c, int pfd, const char *name, const capsa__vnode *n, int have,
                       const struct stat *st, int fresh)
{
    unsigned host_mode = capsa__vfs_host_mode(n);
    int keep = -1;
    if (have && S_ISREG(st->st_mode) && (!fresh || !host_mode))
        keep = (int)(st->st_mode & 0777);
    else if (host_mode)
        keep = (int)host_mode;
    if (have && S_ISDIR(st->st_mode)) {
        if (!c->mirror)
            return host_fail(c, CAPSA__WASI_EISDIR, "a directory is in the way at");
        int e = remove_host_tree(c, pfd, name);
        if (e)
            return e;
    } else if (have && unlinkat(pfd, name, 0) != 0) {
        return host_fail(c, host_errno(errno), "cannot replace");
    }
    int fd = openat(pfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    keep >= 0 ? (mode_t)keep & 0600 : 0666);
    if (fd < 0)
        return host_fail(c, host_errno(errno), "cannot create");
    uint64_t left;
    const uint8_t *p = capsa__vfs_file_data(n, &left);
    while (left) {
        ssize_t w = write(fd, p, left > (1u << 30) ? (1u << 30) : (size_t)left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int err = w < 0 ? errno : EIO;
            close(fd);
            return host_fail(c, host_errno(err), "cannot write");
        }
        p += w;
        left -= (uint64_t)w;
    }
    capsa__vfs_stat vs;
    capsa__vfs_stat_node(n, &vs);
    struct timespec ts[2] = {
        { (time_t)(vs.atim / 1000000000ull), (long)(vs.atim % 1000000000ull) },
        { (time_t)(vs.mtim / 1000000000ull), (long)(vs.mtim % 1000000000ull) },
    };
    futimens(fd, ts);
    /* Made owner-only, then given its exact mode (the umask would change it). */
    if (keep >= 0 && fchmod(fd, (mode_t)keep) != 0) {
        int err = errno;
        close(fd);
        return host_fail(c, host_errno(err), "cannot set the mode of");
    }
    if (close(fd) != 0)
        return host_fail(c, host_errno(errno), "cannot write");
    return 0;
}

/* Removes the host entries of level l's directory that the guest removed from its
 * VFS directory, making the host a copy: a name the directory lacks (unless it is
 * a special file, never copied in), or names with a symlink the guest made (the
 * link is not written to the host, and what was there is not the guest's any
 * more). Mount roots below are their own mounts, and the null device is kept. */
static int mirror_dir(hostctx *c, hlevel *l)
{
    const capsa__vnode *d = l->node;
    const char *name;
    int e;
    while (!(e = level_next(c, l, &name)) && name) {
        size_t nlen = strlen(name);
        const capsa__vfs_dent *de = capsa__vfs_dir_entry(d, name, nlen);
        if (de) {
            if (capsa__vfs_node_type(de->node) != CAPSA__VFS_SYMLINK ||
                !(l->fresh || de->gen > c->since))
                continue;
        } else {
            struct stat st;
            if (fstatat(l->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode) &&
                !S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode))
                continue;
        }
        size_t old = path_push(c, name, nlen);
        if (old == (size_t)-1)
            return host_fail(c, CAPSA__WASI_ENAMETOOLONG, "path too long below");
        e = remove_host_tree(c, l->fd, name);
        path_pop(c, old);
        if (e)
            return e;
    }
    return e;
}

/* Writes directory top into the host directory open as fd (which this takes
 * over), depth first. Every host name is opened relative to its directory with
 * O_NOFOLLOW. A copy-out writes every file and directory. A write-back (mirror)
 * writes only what changed after c->since: files whose bytes or times changed or
 * that are new at their name (created, moved, linked there), directories new at
 * their name (all of them), and removals from directories whose entries changed;
 * what is as it was on the host is never touched, and mounts nested below are
 * left to their own write-back. */
static int export_tree(hostctx *c, int fd, capsa__vnode *top)
{
    size_t base = c->depth;
    int e = level_push(c, fd, top, c->plen);
    if (!e)
        c->lv[base].fresh = !c->mirror;
    capsa__vfs_tw w;
    const capsa__vfs_dent *de;
    capsa__vfs_tw_start(&w, top);
    for (int ev; !e && (ev = capsa__vfs_tw_step(&w, &de)) != CAPSA__VFS_TW_END;) {
        hlevel *l = &c->lv[c->depth - 1];
        if (ev == CAPSA__VFS_TW_LEAVE) {
            if (c->mirror && (l->fresh || capsa__vfs_changed(l->node) > c->since))
                e = mirror_dir(c, l);
            level_pop(c);
            continue;
        }
        capsa__vnode *n = de->node;
        capsa__vfs_type type = capsa__vfs_node_type(n);
        if (type == CAPSA__VFS_SYMLINK || type == CAPSA__VFS_CHARDEV)
            continue; /* the null device is no file to make on the host */
        if (c->mirror && type == CAPSA__VFS_DIR && capsa__vfs_is_mount(n))
            continue;
        int fresh = l->fresh || de->gen > c->since;
        if (type == CAPSA__VFS_FILE && !fresh && capsa__vfs_changed(n) <= c->since)
            continue;
        size_t old = path_push(c, de->name, de->len);
        if (old == (size_t)-1) {
            e = host_fail(c, CAPSA__WASI_ENAMETOOLONG, "path too long below");
            break;
        }
        struct stat st;
        int have = fstatat(l->fd, de->name, &st, AT_SYMLINK_NOFOLLOW) == 0;
        if (!have && errno != ENOENT) {
            e = host_fail(c, host_errno(errno), "cannot stat");
        } else if (have && S_ISLNK(st.st_mode) && !c->mirror) {
            e = host_fail(c, CAPSA__WASI_ELOOP, "refusing to write through the host symlink");
        } else if (type == CAPSA__VFS_FILE) {
            e = export_file(c, l->fd, de->name, n, have, &st, fresh);
        } else {
            if (have && !S_ISDIR(st.st_mode)) {
                if (!c->mirror)
                    e = host_fail(c, CAPSA__WASI_ENOTDIR, "not a directory on the host:");
                else if (unlinkat(l->fd, de->name, 0) != 0)
                    e = host_fail(c, host_errno(errno), "cannot remove");
                have = 0;
            }
            if (!have)
                fresh = 1; /* whatever the tree says, the host has none of it */
            if (!e && !have && mkdirat(l->fd, de->name, 0777) != 0)
                e = host_fail(c, host_errno(errno), "cannot make directory");
            if (!e) {
                int cfd = openat(l->fd, de->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (cfd < 0)
                    e = host_fail(c, host_errno(errno), "cannot open");
                else if (!(e = level_push(c, cfd, n, old))) {
                    c->lv[c->depth - 1].fresh = fresh;
                    capsa__vfs_tw_descend(&w, n);
                    continue; /* its name stays until it is left */
                }
            }
        }
        path_pop(c, old);
    }
    levels_unwind(c, base);
    return e;
}

/* Writes the tree at directory node d into host_dir (created when missing). */
static int export_node(capsa__vfs *vfs, capsa__vnode *d, const char *host_dir, int mirror,
                       uint64_t since, char *msg, size_t msgsize)
{
    hostctx c;
    int e = hostctx_init(&c, vfs, host_dir, msg, msgsize);
    c.mirror = mirror;
    c.since = since;
    if (!e && mkdir(host_dir, 0777) != 0 && errno != EEXIST)
        e = host_fail(&c, host_errno(errno), "cannot make directory");
    if (!e) {
        int fd = open(host_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            e = host_fail(&c, host_errno(errno), "cannot open");
        else
            e = export_tree(&c, fd, d);
    }
    hostctx_done(&c);
    return e;
}

int capsa__vfs_sync_dir(capsa__vfs *vfs, capsa__vnode *d, const char *host_dir, uint64_t since,
                        char *msg, size_t msgsize)
{
    if (!d || capsa__vfs_node_type(d) != CAPSA__VFS_DIR)
        return capsa__msgf(msg, msgsize, CAPSA__WASI_ENOTDIR, "not a directory");
    return export_node(vfs, d, host_dir, 1, since, msg, msgsize);
}

int capsa__vfs_export_dir(capsa__vfs *vfs, const char *guest_path, const char *host_dir,
                          char *msg, size_t msgsize)
{
    if (msg && msgsize)
        msg[0] = '\0';
    capsa__vfs_where w;
    int e = capsa__vfs_walk(vfs, capsa__vfs_root(vfs), guest_path, strlen(guest_path), CAPSA__VFS_FOLLOW,
                            CAPSA__VFS_HOST, &w);
    if (e)
        return capsa__msgf(msg, msgsize, e, "cannot resolve %s", guest_path);
    if (!w.node || capsa__vfs_node_type(w.node) != CAPSA__VFS_DIR)
        return capsa__msgf(msg, msgsize, w.node ? CAPSA__WASI_ENOTDIR : CAPSA__WASI_ENOENT,
                       "not a directory: %s", guest_path);
    return export_node(vfs, w.node, host_dir, 0, 0, msg, msgsize);
}
