/* The host's side of a sandbox's files (the capsa_fs_* functions are in
 * capsa.h): the read-write host mounts a sandbox records, written back after
 * each run. */
#ifndef CAPSA_FS_H
#define CAPSA_FS_H

#include <stdint.h>

#include "capsa.h"

struct capsa__vnode;

/* A host directory mounted read-write: written back after each run, as far as
 * the guest changed it since the last write-back. */
typedef struct capsa__rw_mount {
    char *host_dir;            /* owned */
    char *guest_path;          /* owned; for messages */
    struct capsa__vnode *root; /* the mount root: borrowed, lives as long as the VFS */
    uint64_t synced;           /* the generation written back last (0: none yet) */
} capsa__rw_mount;

/* Writes every read-write mount of sb back to its host directory: what changed
 * since its last write-back (capsa__vfs_sync_dir). Returns
 * CAPSA_OK or the first failure (the rest are still written), with
 * capsa_errmsg(sb) saying which. */
int capsa__fs_sync(capsa_sandbox *sb);

/* Frees the list of read-write mounts of sb. */
void capsa__fs_free_mounts(capsa_sandbox *sb);

#endif
