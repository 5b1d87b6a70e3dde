/* The host's side of a sandbox's files (the capsa_fs_* functions are in
 * capsa.h): the host directories a sandbox has mounted, the read-write ones
 * written back after each run. */
#ifndef CAPSA_FS_H
#define CAPSA_FS_H

#include <stdint.h>

#include "capsa.h"

struct capsa__vnode;

/* A host directory mounted in the sandbox. A read-write one is written back after
 * each run, as far as the guest changed it since the last write-back. A mount
 * restored from a checkpoint has its subtree and mode but no host directory until
 * the caller mounts one there again. */
typedef struct capsa__host_mount {
    char *host_dir;            /* owned; NULL: restored, waiting for its directory */
    char *guest_path;          /* owned; absolute */
    struct capsa__vnode *root; /* the mount root: borrowed, lives as long as the VFS */
    int rw;                    /* CAPSA_MOUNT_RW */
    uint64_t synced;           /* the generation written back last (0: none yet) */
} capsa__host_mount;

/* Records a mount of a checkpoint at guest_path (copied; rw: CAPSA_MOUNT_RW):
 * without its host directory, which capsa_fs_mount at the same path gives it
 * again. CAPSA_OK, CAPSA_EINVAL (not a mount root of sb's filesystem, with the
 * message set) or CAPSA_ENOMEM. */
int capsa__fs_restore_mount(capsa_sandbox *sb, const char *guest_path, size_t len, int rw);

/* Writes every read-write mount of sb back to its host directory: what changed
 * since its last write-back (capsa__vfs_sync_dir). Returns
 * CAPSA_OK or the first failure (the rest are still written), with
 * capsa_errmsg(sb) saying which. */
int capsa__fs_sync(capsa_sandbox *sb);

/* Frees the list of mounts of sb. */
void capsa__fs_free_mounts(capsa_sandbox *sb);

#endif
