/* libFuzzer harness: tar streams from outside (capsa_fs_import_tar's input) as
 * arbitrary bytes. The import must answer with an errno, never crash or leak;
 * whatever it accepts must stay under the target directory and within the
 * quotas, and must export again. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "vfs.h"
#include "vfs_tar.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    capsa__vfs_quota q = { 1 << 20, 256, 1 << 18 };
    capsa__vfs *vfs = NULL;
    if (capsa__vfs_new(&capsa__default_allocator, &q, &vfs) != 0)
        return 0;
    char msg[256];
    capsa__vfs_mkdir(vfs, capsa__vfs_root(vfs), "/workspace/in", 13, CAPSA__VFS_HOST);
    int err = capsa__vfs_import_tar(vfs, "/workspace/in", data, size, msg, sizeof(msg));
    if (err > 76)
        abort(); /* every answer is an errno */
    uint64_t bytes, entries;
    capsa__vfs_usage(vfs, &bytes, &entries);
    if (bytes > q.max_bytes || entries > q.max_entries)
        abort();
    /* Nothing lands beside the target: /workspace holds only "in". */
    capsa__vfs_dirent e;
    capsa__vnode *ws = NULL;
    if (capsa__vfs_open(vfs, capsa__vfs_root(vfs), "/workspace", 10, 0, CAPSA__VFS_O_DIRECTORY,
                        1u << CAPSA__VFS_READ, CAPSA__VFS_HOST, &ws) != 0)
        abort();
    int n = 0;
    for (uint64_t c = 2; capsa__vfs_readdir(vfs, ws, c, &e, CAPSA__VFS_HOST) == 0; c = e.next)
        n++;
    if (n != 1)
        abort();
    capsa__vfs_unref(vfs, ws);
    capsa__buf out = { 0 };
    if (capsa__vfs_export_tar(vfs, "/workspace/in", &out) != 0 && out.len)
        abort();
    capsa__buf_free(&out, &capsa__default_allocator);
    capsa__vfs_free(vfs);
    return 0;
}
