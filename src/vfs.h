/* The in-memory filesystem of one sandbox: a tree of directories, files and
 * symlinks (and the null device, /dev/null), mounts that say what the guest may
 * do under them (read-only, read-write, append-only), and quotas. Every path is
 * resolved by one function (capsa__vfs_walk) and every guest access is decided
 * by one function (capsa__vfs_allow). Errors are WASI errno values, the guest's
 * own vocabulary; capsa__vfs_status maps them to CAPSA_* codes for the public
 * API. Copies of trees in and out are vfs_host.h (host directories) and
 * vfs_tar.h (tar streams). */
#ifndef CAPSA_VFS_H
#define CAPSA_VFS_H

#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "capsa.h"

/* WASI preview1 errno values (the spec's numbering). 0 is success. */
enum {
    CAPSA__WASI_ESUCCESS = 0,
    CAPSA__WASI_E2BIG = 1,
    CAPSA__WASI_EACCES = 2,
    CAPSA__WASI_EAGAIN = 6,
    CAPSA__WASI_EBADF = 8,
    CAPSA__WASI_EBUSY = 10,
    CAPSA__WASI_EDQUOT = 19,
    CAPSA__WASI_EEXIST = 20,
    CAPSA__WASI_EFAULT = 21,
    CAPSA__WASI_EFBIG = 22,
    CAPSA__WASI_EILSEQ = 25,
    CAPSA__WASI_EINVAL = 28,
    CAPSA__WASI_EIO = 29,
    CAPSA__WASI_EISDIR = 31,
    CAPSA__WASI_ELOOP = 32,
    CAPSA__WASI_EMFILE = 33,
    CAPSA__WASI_EMLINK = 34,
    CAPSA__WASI_ENAMETOOLONG = 37,
    CAPSA__WASI_ENOENT = 44,
    CAPSA__WASI_ENOMEM = 48,
    CAPSA__WASI_ENOSPC = 51,
    CAPSA__WASI_ENOSYS = 52,
    CAPSA__WASI_ENOTDIR = 54,
    CAPSA__WASI_ENOTEMPTY = 55,
    CAPSA__WASI_ENOTSOCK = 57,
    CAPSA__WASI_ENOTSUP = 58,
    CAPSA__WASI_EOVERFLOW = 61,
    CAPSA__WASI_EPERM = 63,
    CAPSA__WASI_EROFS = 69,
    CAPSA__WASI_ESPIPE = 70,
    CAPSA__WASI_EXDEV = 75,
    CAPSA__WASI_ENOTCAPABLE = 76,
};

/* Not a WASI errno, and never the guest's: a host operation refused because a
 * symlink on its path leads where the guest may not write (capsa__vfs_allow). */
#define CAPSA__VFS_ELINK 1000

/* What a VFS error means, for messages ("no such file or directory"). */
const char *capsa__vfs_strerror(int err);

/* The CAPSA_* status code of a VFS error, for the public API (0 is CAPSA_OK). */
int capsa__vfs_status(int err);

/* Limits on paths (bytes): a whole path, one component, and how many symlinks one
 * resolution may follow before it fails with ELOOP. */
#define CAPSA__VFS_PATH_MAX 4096
#define CAPSA__VFS_NAME_MAX 255
#define CAPSA__VFS_SYMLOOP_MAX 40
/* How many levels below the root a directory may be (/workspace is level 1):
 * making or moving a directory deeper is ENAMETOOLONG, for the host too. Every
 * walk of a tree is iterative, and one that holds a host directory open per
 * level (import, export) needs at most this many descriptors. */
#define CAPSA__VFS_DEPTH_MAX CAPSA_FS_MAX_DEPTH

typedef struct capsa__vfs capsa__vfs;
/* An inode: a directory, a file, a symlink or the null device. Reference-counted:
 * it lives while a directory entry names it or anyone holds a reference (an open
 * fd). */
typedef struct capsa__vnode capsa__vnode;

/* Node types, numbered as WASI's filetype. The one character device is the
 * null device of the default layout (/dev/null): reads give end of file at once,
 * writes and truncations succeed and keep nothing, and it uses no quota. Nothing
 * (guest or host) can remove, rename, replace or link it. */
typedef enum capsa__vfs_type {
    CAPSA__VFS_CHARDEV = 2,
    CAPSA__VFS_DIR = 3,
    CAPSA__VFS_FILE = 4,
    CAPSA__VFS_SYMLINK = 7,
} capsa__vfs_type;

/* What the guest may do under a mount. The host API is never limited by it. */
typedef enum capsa__vfs_mode {
    CAPSA__VFS_RO = 0,     /* read and list only */
    CAPSA__VFS_RW = 1,     /* anything */
    CAPSA__VFS_APPEND = 2, /* read, list, and append to existing files: never
                              create, remove, rename, truncate or overwrite */
} capsa__vfs_mode;

/* One access to decide (capsa__vfs_allow). */
typedef enum capsa__vfs_op {
    CAPSA__VFS_READ,    /* read a file, list a directory, read a symlink */
    CAPSA__VFS_WRITE,   /* change a file's bytes anywhere, truncate or extend it */
    CAPSA__VFS_APPEND_OP, /* add bytes at a file's end */
    CAPSA__VFS_CHANGE,  /* create, remove or rename an entry in a directory */
    CAPSA__VFS_SETATTR, /* set times */
} capsa__vfs_op;

/* Quotas of one filesystem; 0 in a field means its default. */
typedef struct capsa__vfs_quota {
    uint64_t max_bytes;   /* file contents and symlink targets; default 64 MiB */
    uint64_t max_entries; /* files, directories and symlinks; default 10,000 */
    uint64_t max_file;    /* the largest single file; default max_bytes */
} capsa__vfs_quota;

typedef struct capsa__vfs_stat {
    capsa__vfs_type type;
    uint64_t ino;      /* unique within the filesystem, never reused */
    uint64_t nlink;
    uint64_t size;     /* bytes of a file, length of a symlink's target, entries of a dir */
    uint64_t atim, mtim, ctim; /* ns since the epoch */
    capsa__vfs_mode mode;      /* the mode of the mount the node lives in */
} capsa__vfs_stat;

/* Who asks: the guest is bound by mounts and by its base directory; the host
 * (the public API, mounts, tar import) only by quotas. */
enum { CAPSA__VFS_GUEST = 0, CAPSA__VFS_HOST = 1 };

/* ---- the filesystem ------------------------------------------------------------- */

/* Creates a filesystem with the default layout: / read-only, /workspace and /tmp
 * read-write, /tools read-only, /log append-only, and /dev read-only holding the
 * null device /dev/null (which the guest may read and write). quota may be NULL
 * (defaults).
 * On success *out owns it (free with capsa__vfs_free); returns 0 or a WASI errno
 * (ENOMEM). a must outlive it. */
int capsa__vfs_new(const capsa_allocator *a, const capsa__vfs_quota *quota, capsa__vfs **out);

/* Frees the filesystem. Nodes still referenced (by fds) must have been released
 * first. NULL is a no-op. */
void capsa__vfs_free(capsa__vfs *vfs);

/* The root directory. Borrowed: valid as long as the filesystem. */
capsa__vnode *capsa__vfs_root(capsa__vfs *vfs);

/* Makes the directory at absolute path (creating it and its parents, as the host)
 * a mount root with the given mode: everything below it, down to the next mount
 * root, follows that mode. Returns 0 or a WASI errno. */
int capsa__vfs_mount(capsa__vfs *vfs, const char *path, capsa__vfs_mode mode);

/* The quotas in force (defaults filled in) into *q. */
void capsa__vfs_quota_get(const capsa__vfs *vfs, capsa__vfs_quota *q);

/* Bytes and entries in use, for stats and tests. Mount roots (the default
 * layout's directories included) do not count as entries; a node unlinked while
 * an fd holds it counts until it is freed. */
void capsa__vfs_usage(const capsa__vfs *vfs, uint64_t *bytes, uint64_t *entries);

/* A number that changes whenever an entry is added, removed or renamed anywhere in
 * the tree: while it stays the same, every path names the node it named before (a
 * node looked up once can be kept instead of walking its path again). */
uint64_t capsa__vfs_names(const capsa__vfs *vfs);

/* ---- nodes ------------------------------------------------------------------------ */

/* Takes a reference to a node (for an open fd). */
void capsa__vfs_ref(capsa__vnode *n);
/* Drops a reference; the node is freed when nothing names or holds it. */
void capsa__vfs_unref(capsa__vfs *vfs, capsa__vnode *n);

/* The one decision on what a guest may do: returns 0 when `who` may perform op
 * on node n, else EROFS (read-only mount), EPERM (append-only mount, or a node
 * read-only for the guest), or EACCES.
 * The null device may be read, written and have its times set whatever its
 * mount's mode. Every guest access in the VFS and the WASI host goes through
 * here. The host may do anything, except past a symlink: there the operations on
 * paths below (and the directories that imports fill) bind it as they bind the
 * guest, refusing with CAPSA__VFS_ELINK, so that a link the guest planted never
 * leads the host to write where the guest could not. */
int capsa__vfs_allow(const capsa__vfs *vfs, const capsa__vnode *n, capsa__vfs_op op, int who);

/* Makes n a node the guest may only read, whatever its mount's mode: every other
 * access of the guest is EPERM (for the host's audit log, in append-only /log).
 * It stays so for the node's life. */
void capsa__vfs_set_guest_readonly(capsa__vnode *n);

void capsa__vfs_stat_node(const capsa__vnode *n, capsa__vfs_stat *st);
/* Whether n is a mount root (the layout's directories and the host's mounts). */
int capsa__vfs_is_mount(const capsa__vnode *n);
capsa__vfs_type capsa__vfs_node_type(const capsa__vnode *n);

/* ---- paths ------------------------------------------------------------------------ */

/* Flags of a walk. */
enum {
    CAPSA__VFS_FOLLOW = 1, /* follow a symlink in the last component */
};

/* Where a path leads: the directory that holds its last component, that
 * component's name, and the node it names (NULL when it does not exist). The
 * node pointers are borrowed: valid until the tree changes. */
typedef struct capsa__vfs_where {
    capsa__vnode *dir;  /* NULL when the path names the base or the root itself */
    char name[CAPSA__VFS_NAME_MAX + 1];
    capsa__vnode *node;
    int trailing_slash; /* the path ended in '/': node must be a directory */
    int via_link;       /* a symlink was followed on the way */
} capsa__vfs_where;

/* Resolves path[0..len) from directory `base`: the one function that turns a
 * path into a node. The path may not contain NUL (EINVAL) and must be valid
 * UTF-8 (EILSEQ), at most CAPSA__VFS_PATH_MAX bytes
 * and components at most CAPSA__VFS_NAME_MAX (ENAMETOOLONG). "." and ".." work; a
 * walk by the guest may never go above `base` (ENOTCAPABLE), and an absolute path
 * or absolute symlink target is allowed for the guest only when base is the root
 * (it starts again at the root); the host's ".." stops at the root as in POSIX.
 * Symlinks in the middle are always followed, at most CAPSA__VFS_SYMLOOP_MAX
 * (ELOOP); a missing middle component is ENOENT (w->dir then names the deepest
 * directory reached, and via_link is kept), a non-directory ENOTDIR. Returns 0
 * with *w filled, or a WASI errno. */
int capsa__vfs_walk(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len,
                    unsigned flags, int who, capsa__vfs_where *w);

/* ---- operations on paths ----------------------------------------------------------- */
/* Each resolves through capsa__vfs_walk from base and checks through
 * capsa__vfs_allow; `who` as above; returns 0 or a WASI errno. */

/* Open flags, as WASI's oflags. */
enum {
    CAPSA__VFS_O_CREAT = 1,
    CAPSA__VFS_O_DIRECTORY = 2,
    CAPSA__VFS_O_EXCL = 4,
    CAPSA__VFS_O_TRUNC = 8,
};

/* Opens (and with O_CREAT creates) a node; `access` is a mask of 1 << op for the
 * accesses the opener wants (CAPSA__VFS_READ, _WRITE, _APPEND_OP), checked now.
 * lookup_flags: CAPSA__VFS_FOLLOW. On 0, *out holds a new reference (release with
 * capsa__vfs_unref). A symlink met without FOLLOW is ELOOP; O_DIRECTORY on a
 * non-directory ENOTDIR; writing to a directory EISDIR; O_TRUNC needs WRITE. */
int capsa__vfs_open(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len,
                    unsigned lookup_flags, unsigned oflags, unsigned access, int who,
                    capsa__vnode **out);

/* Makes a directory (ENAMETOOLONG when it would be more than CAPSA__VFS_DEPTH_MAX
 * levels below the root). */
int capsa__vfs_mkdir(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len, int who);
/* Removes an empty directory (ENOTEMPTY otherwise; EBUSY for a mount root). */
int capsa__vfs_rmdir(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len, int who);
/* Removes a file or symlink (EISDIR for a directory; EBUSY for the null device). */
int capsa__vfs_unlink(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len, int who);
/* Removes what path names: a file or symlink as unlink, an empty directory as
 * rmdir, and with recursive set a directory and everything below it. Checks the
 * whole tree first, so that a refusal (EBUSY for a mount root or the null device
 * below) removes nothing. Iterative, whatever the depth. */
int capsa__vfs_remove(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len,
                      int recursive, int who);
/* Renames within the filesystem (EXDEV across mounts; POSIX rules on replacing;
 * EBUSY for a mount root or the null device, as source or as what it replaces;
 * ENAMETOOLONG when a directory's subtree would nest below CAPSA__VFS_DEPTH_MAX). */
int capsa__vfs_rename(capsa__vfs *vfs, capsa__vnode *base1, const char *p1, size_t l1,
                      capsa__vnode *base2, const char *p2, size_t l2, int who);
/* A hard link to a file (EPERM for a directory or the null device; EXDEV across
 * mounts). */
int capsa__vfs_link(capsa__vfs *vfs, capsa__vnode *base1, const char *p1, size_t l1,
                    unsigned lookup_flags, capsa__vnode *base2, const char *p2, size_t l2, int who);
/* Creates a symlink at path whose target is target[0..tlen) (stored as given,
 * resolved only when followed). */
int capsa__vfs_symlink(capsa__vfs *vfs, const char *target, size_t tlen, capsa__vnode *base,
                       const char *path, size_t len, int who);
/* Reads a symlink's target: *target borrowed, valid until the tree changes. */
int capsa__vfs_readlink(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len,
                        int who, const char **target, size_t *tlen);
/* Stats the node at path. C cannot have a function and a type of one name
 * (capsa__vfs_stat is the struct above), so the function is capsa__vfs_stat_path
 * and the function-like macro keeps the call spelling capsa__vfs_stat(...) working
 * (a macro of that form expands only when the name is followed by '('). */
int capsa__vfs_stat_path(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len,
                         unsigned lookup_flags, int who, capsa__vfs_stat *st);
#define capsa__vfs_stat(...) capsa__vfs_stat_path(__VA_ARGS__)

/* Makes every missing directory of the absolute path abs (mkdir -p), as the host;
 * one that exists must be a directory, or lead to one (ENOTDIR). */
int capsa__vfs_make_dirs(capsa__vfs *vfs, const char *abs);

/* Makes data[0..len) the whole contents of the file at the absolute path abs, as
 * the host, its missing directories made first. When the write is refused (a
 * quota), a file that existed keeps its contents and one that did not is not
 * left behind. */
int capsa__vfs_write_file(capsa__vfs *vfs, const char *abs, const void *data, size_t len);

/* ---- operations on nodes (an open fd's) ---------------------------------------------- */

/* Reads up to len bytes at offset into buf; *n gets the count (0 at or past the
 * end, and always for the null device). */
int capsa__vfs_read(capsa__vfs *vfs, capsa__vnode *n, uint64_t offset, void *buf, size_t len,
                    size_t *nread, int who);
/* Writes data[0..len) at offset (append: at the end, offset ignored), growing the
 * file with zeros as needed. Checked: WRITE (APPEND_OP when appending) and the
 * quotas (EDQUOT for the file size limit, ENOSPC for the total): on error nothing
 * was written. *end gets the offset after the last byte written. The null device
 * takes any number of bytes and keeps none: *end is then the offset unmoved. */
int capsa__vfs_write(capsa__vfs *vfs, capsa__vnode *n, uint64_t offset, const void *data,
                     size_t len, int append, uint64_t *end, int who);
/* Sets a file's size (zeros when growing); the null device stays empty. */
int capsa__vfs_truncate(capsa__vfs *vfs, capsa__vnode *n, uint64_t size, int who);
/* Sets times (ns); a NULL pointer leaves that time, UINT64_MAX means now. */
int capsa__vfs_set_times(capsa__vfs *vfs, capsa__vnode *n, const uint64_t *atim,
                         const uint64_t *mtim, int who);
/* A file's contents, borrowed until the file changes. */
const uint8_t *capsa__vfs_file_data(const capsa__vnode *n, uint64_t *len);

/* One directory entry. */
typedef struct capsa__vfs_dirent {
    const char *name;   /* borrowed until the tree changes */
    size_t name_len;
    capsa__vfs_type type;
    uint64_t ino;
    uint64_t next;      /* the cookie of the entry after this one */
} capsa__vfs_dirent;

/* The entry of directory d at cookie (0 is ".", 1 "..", then the entries in name
 * order). Returns 0 with *e filled, ENOENT past the last entry (the end), or
 * ENOTDIR. */
int capsa__vfs_readdir(capsa__vfs *vfs, capsa__vnode *d, uint64_t cookie, capsa__vfs_dirent *e,
                       int who);

/* ---- generations ------------------------------------------------------------------ */

/* A generation: every change to the tree from now on (a file's bytes or times, a
 * directory's entries) is stamped later than the value returned, every earlier
 * one no later. Copies from the host (capsa__vfs_import_dir) are stamped 0. */
uint64_t capsa__vfs_mark(capsa__vfs *vfs);

#endif
