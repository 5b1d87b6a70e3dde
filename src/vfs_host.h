/* Host directories in and out of a sandbox's VFS, as the host: a directory
 * copied in (a mount), a tree copied out, and a read-write mount written back to
 * its directory, as far as the guest changed it. Errors are WASI errno values, as
 * the VFS's; msg (msgsize bytes, may be NULL) says which path failed. */
#ifndef CAPSA_VFS_HOST_H
#define CAPSA_VFS_HOST_H

#include <stddef.h>
#include <stdint.h>

#include "vfs.h"

/* Copies the host directory host_dir into the filesystem at guest_path (created
 * with its parents; capsa__vfs_mount makes it a mount root). Host symlinks are copied as
 * symlinks (they resolve inside the filesystem only); other special files are
 * skipped. What it copies is stamped generation 0 (capsa__vfs_mark), and files
 * keep their host permissions for write-back. Returns 0 or a WASI errno
 * (ENOSPC/EDQUOT when over a quota, the filesystem then holds what was copied so
 * far, consistently); msg says which host path failed. */
int capsa__vfs_import_dir(capsa__vfs *vfs, const char *host_dir, const char *guest_path,
                          char *msg, size_t msgsize);

/* Copies the tree at guest_path into the host directory host_dir (created if
 * missing): directories and files; symlinks and the null device are skipped.
 * Never follows a host symlink (every file is opened relative to its directory
 * with O_NOFOLLOW; a symlink in the way is refused). An existing host file is
 * replaced by unlinking it (a hard link keeps its contents) and its permissions
 * are kept. Returns 0 or a WASI errno; msg says which path. */
int capsa__vfs_export_dir(capsa__vfs *vfs, const char *guest_path, const char *host_dir,
                          char *msg, size_t msgsize);

/* Writes back directory d (the root of a read-write mount) into host_dir, the
 * directory it was imported from: only what changed after generation `since`
 * (0 for the first write-back: everything but what the import copied). Files
 * changed or new at their name are written (permissions as capsa__vfs_export_dir
 * keeps them, or as they were copied in for a moved file), host entries that
 * the guest removed are removed, a host symlink in the way of the guest's new
 * file or directory is replaced (never followed); what did not change is never
 * touched: unchanged files keep their inode, mode and hard links, host
 * symlinks and special files stay. Mount roots below are left out. Returns 0 or
 * a WASI errno; msg says which path. */
int capsa__vfs_sync_dir(capsa__vfs *vfs, capsa__vnode *d, const char *host_dir, uint64_t since,
                        char *msg, size_t msgsize);

#endif
