/* The tree's side of the VFS for the code that copies trees in and out of it
 * (vfs_host.c: host directories; vfs_tar.c: tar streams; vfs_ckpt.c: checkpoints):
 * directory entries and the walk over a subtree, what those copies read and stamp
 * on a node, and the checks and quotas they apply before they write. The nodes stay private to
 * vfs.c: these functions are the only way into them. Nothing outside the VFS
 * includes this header. */
#ifndef CAPSA_VFS_TREE_H
#define CAPSA_VFS_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "vfs.h"

/* Who asks, beyond CAPSA__VFS_GUEST and CAPSA__VFS_HOST: the host's permissions
 * with the guest's path rules. Tar import resolves names as the guest would
 * (nothing may leave the target directory) but writes wherever the host may. */
#define CAPSA__VFS_CONFINED 2

/* One entry of a directory. Borrowed: valid until the tree changes. */
typedef struct capsa__vfs_dent {
    char *name;   /* NUL-terminated */
    size_t len;
    capsa__vnode *node;
    uint64_t gen; /* the generation that bound name to node; 0: copied from the host */
} capsa__vfs_dent;

/* A depth-first walk of the tree below a directory that needs no allocation:
 * each directory keeps its own cursor and the walk climbs back by parent links.
 * The tree must not change while it runs. capsa__vfs_tw_step gives each entry
 * (CAPSA__VFS_TW_ENTRY; the caller may then capsa__vfs_tw_descend into a
 * directory), and CAPSA__VFS_TW_LEAVE when the current directory is done (*e
 * names it in its parent, NULL for the top), then CAPSA__VFS_TW_END. */
typedef struct capsa__vfs_tw {
    capsa__vnode *top, *d;
    size_t depth; /* of d, below top */
    int done;
} capsa__vfs_tw;

enum { CAPSA__VFS_TW_END, CAPSA__VFS_TW_ENTRY, CAPSA__VFS_TW_LEAVE };

void capsa__vfs_tw_start(capsa__vfs_tw *w, capsa__vnode *top);
void capsa__vfs_tw_descend(capsa__vfs_tw *w, capsa__vnode *dir);
int capsa__vfs_tw_step(capsa__vfs_tw *w, const capsa__vfs_dent **e);

/* The entry name[0..len) of directory d, or NULL. */
const capsa__vfs_dent *capsa__vfs_dir_entry(const capsa__vnode *d, const char *name, size_t len);

/* The allocator of the filesystem, for the copies' own buffers. */
const capsa_allocator *capsa__vfs_allocator(const capsa__vfs *vfs);

/* ---- nodes ---------------------------------------------------------------------- */

/* How many levels below the root directory d is (the root is 0, /workspace 1). */
size_t capsa__vfs_depth(const capsa__vnode *d);

/* The generation of n's last change (a file's bytes or times, a directory's
 * entries; see capsa__vfs_mark); 0 when it is as the host has it. */
uint64_t capsa__vfs_changed(const capsa__vnode *n);

/* Stamps n as the host has it (generation 0): a directory whose entries were all
 * just copied from the host, which write-back then leaves alone. */
void capsa__vfs_as_on_host(capsa__vnode *n);

/* The same for the entry name[0..len) of d, just copied from the host, and for
 * its node. */
void capsa__vfs_entry_as_on_host(capsa__vnode *d, const char *name, size_t len);

/* Makes directory d a mount root with the given mode (capsa__vfs_mount of a
 * node). Returns 0 or EINVAL (not a directory, or an unknown mode). */
int capsa__vfs_mount_node(capsa__vfs *vfs, capsa__vnode *d, capsa__vfs_mode mode);

/* Whether the guest may only read n (capsa__vfs_set_guest_readonly). */
int capsa__vfs_guest_readonly(const capsa__vnode *n);

/* Gives n the inode number and times it had when a checkpoint was taken; later
 * nodes get higher numbers. */
void capsa__vfs_node_restore(capsa__vfs *vfs, capsa__vnode *n, uint64_t ino, uint64_t atim,
                             uint64_t mtim, uint64_t ctim);

/* The permissions of the host file a file was copied from (0: none, or not a
 * file), kept for write-back; and setting them. */
unsigned capsa__vfs_host_mode(const capsa__vnode *n);
void capsa__vfs_set_host_mode(capsa__vnode *n, unsigned mode);

/* A symlink's target (not NUL-terminated in general: *len bytes), or NULL with
 * *len 0 for another node. Borrowed until the tree changes. */
const char *capsa__vfs_link_target(const capsa__vnode *n, size_t *len);

/* ---- checks ------------------------------------------------------------------- */

/* The checks every path (and symlink target, and name) passes before it is used:
 * at most CAPSA__VFS_PATH_MAX bytes with components of at most
 * CAPSA__VFS_NAME_MAX (ENAMETOOLONG), no NUL (EINVAL), valid UTF-8 (EILSEQ).
 * Returns 0 or that WASI errno. */
int capsa__vfs_check_path(const char *p, size_t len);

/* ENOSPC when add more bytes of contents would go over the filesystem's quota,
 * else 0. */
int capsa__vfs_quota_bytes(const capsa__vfs *vfs, uint64_t add);

/* Creates every missing directory of path[0..len) from base (as mkdir -p), as
 * who, then resolves it, following symlinks: on 0, *out is the directory, one that
 * the caller may fill (for the host through a symlink: one the guest may change,
 * else CAPSA__VFS_ELINK). Returns 0 or a WASI errno. */
int capsa__vfs_mkdirs(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len, int who,
                      capsa__vnode **out);

#endif
