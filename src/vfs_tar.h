/* Tar streams in and out of a sandbox's VFS, as the host. Errors are WASI errno
 * values, as the VFS's. */
#ifndef CAPSA_VFS_TAR_H
#define CAPSA_VFS_TAR_H

#include <stddef.h>

#include "buf.h"
#include "vfs.h"

/* Appends the tree at guest_path as a POSIX tar stream (ustar; names relative to
 * guest_path; a pax header carries a name or link target too long for ustar; the
 * null device is left out) to *out, grown with the filesystem's allocator.
 * Returns 0 or ENOMEM (*out is then as it was); ENOENT/ENOTDIR for a bad
 * guest_path, ENAMETOOLONG for an entry more than 4096 bytes below it. */
int capsa__vfs_export_tar(capsa__vfs *vfs, const char *guest_path, capsa__buf *out);

/* Extracts the tar stream data[0..len) under guest_path (created). Every name is
 * resolved from guest_path as the guest's would be: a name that would leave it
 * ("..", absolute) fails with ENOTCAPABLE before anything is written. Directories,
 * files and symlinks are kept; other entry types are refused (EINVAL), and so is
 * an entry naming the null device (EBUSY). A malformed stream is EINVAL. Returns
 * 0 or a WASI errno; msg says what failed. */
int capsa__vfs_import_tar(capsa__vfs *vfs, const char *guest_path, const void *data, size_t len,
                          char *msg, size_t msgsize);

#endif
