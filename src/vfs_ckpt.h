/* A sandbox's filesystem in a checkpoint: the whole tree (directories, files,
 * symlinks, hard links, the null device) with contents, inode numbers, times,
 * mount roots and their modes, and the marks the host put on nodes (read-only for
 * the guest, host permissions). Nothing of the host is kept: a mount's subtree is,
 * the host directory it came from is not. Errors are WASI errno values, as the
 * VFS's. */
#ifndef CAPSA_VFS_CKPT_H
#define CAPSA_VFS_CKPT_H

#include <stddef.h>

#include "buf.h"
#include "vfs.h"

/* Appends the tree of vfs to *out (allocated with a). Returns 0 or ENOMEM. */
int capsa__vfs_save(capsa__vfs *vfs, capsa__buf *out, const capsa_allocator *a);

/* Rebuilds the tree the reader holds (as capsa__vfs_save wrote it) into vfs, a
 * filesystem with the default layout and nothing else, as the host, within
 * vfs's quotas. Every name, target, count and length is checked: a malformed tree
 * is EINVAL, one over the quotas ENOSPC, and msg (msgsize bytes) says what was
 * wrong where. On failure vfs holds part of the tree and is to be freed. */
int capsa__vfs_load(capsa__vfs *vfs, capsa__rd *r, char *msg, size_t msgsize);

#endif
