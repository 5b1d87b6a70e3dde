/* libFuzzer harness: the VFS driven by arbitrary paths and operations, as the
 * guest. The input is a program: each step is an opcode byte, a length byte, and
 * that many bytes of path (some steps take a second path). Small quotas make the
 * limits reachable. After every step the tree must stay within its quotas, and the
 * guest must never reach past its base: whatever it creates from /workspace is
 * found under /workspace. The host must never crash or leak (ASan watches). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "vfs.h"

#define GUEST CAPSA__VFS_GUEST

typedef struct program {
    const uint8_t *p, *end;
} program;

/* The next path of the program: a length byte, then up to that many bytes. */
static size_t next_path(program *pr, const char **path)
{
    size_t n = pr->p < pr->end ? *pr->p++ : 0;
    if (n > (size_t)(pr->end - pr->p))
        n = (size_t)(pr->end - pr->p);
    *path = (const char *)pr->p;
    pr->p += n;
    return n;
}

static void check_quota(capsa__vfs *vfs, const capsa__vfs_quota *q)
{
    uint64_t bytes, entries;
    capsa__vfs_usage(vfs, &bytes, &entries);
    if (bytes > q->max_bytes || entries > q->max_entries)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    capsa__vfs_quota q = { 1 << 16, 64, 1 << 14 };
    capsa__vfs *vfs = NULL;
    if (capsa__vfs_new(&capsa__default_allocator, &q, &vfs) != 0)
        return 0;
    capsa__vnode *root = capsa__vfs_root(vfs);
    capsa__vnode *ws = NULL;
    if (capsa__vfs_open(vfs, root, "workspace", 9, 0, CAPSA__VFS_O_DIRECTORY,
                        1u << CAPSA__VFS_READ, GUEST, &ws) != 0)
        abort();
    /* Fds the program holds, as the WASI host would. */
    capsa__vnode *held[8] = { 0 };
    program pr = { data, data + size };
    static uint8_t buf[1 << 14];
    while (pr.p < pr.end) {
        uint8_t op = *pr.p++;
        capsa__vnode *base = op & 0x80 ? root : ws;
        const char *a, *b;
        size_t la = next_path(&pr, &a), lb;
        capsa__vfs_stat st;
        capsa__vnode *n = NULL;
        switch (op & 0x0f) {
        case 0: capsa__vfs_mkdir(vfs, base, a, la, GUEST); break;
        case 1: capsa__vfs_rmdir(vfs, base, a, la, GUEST); break;
        case 2: capsa__vfs_unlink(vfs, base, a, la, GUEST); break;
        case 3: lb = next_path(&pr, &b); capsa__vfs_rename(vfs, base, a, la, ws, b, lb, GUEST); break;
        case 4: lb = next_path(&pr, &b); capsa__vfs_symlink(vfs, b, lb, base, a, la, GUEST); break;
        case 5: lb = next_path(&pr, &b); capsa__vfs_link(vfs, base, a, la, op & 0x10, ws, b, lb, GUEST); break;
        case 6: capsa__vfs_stat(vfs, base, a, la, op & 0x10, GUEST, &st); break;
        case 7: {
            const char *t;
            size_t tl;
            capsa__vfs_readlink(vfs, base, a, la, GUEST, &t, &tl);
            break;
        }
        case 8: {
            unsigned oflags = (op >> 4) & 0x0f;
            unsigned access = 1u << CAPSA__VFS_READ | (op & 0x20 ? 1u << CAPSA__VFS_WRITE : 0);
            if (capsa__vfs_open(vfs, base, a, la, op & 0x40 ? CAPSA__VFS_FOLLOW : 0, oflags,
                                access, GUEST, &n) == 0) {
                int slot = (int)(la % 8);
                if (held[slot])
                    capsa__vfs_unref(vfs, held[slot]);
                held[slot] = n;
            }
            break;
        }
        case 9: { /* write through a held node */
            capsa__vnode *h = held[la % 8];
            uint64_t end;
            if (h)
                capsa__vfs_write(vfs, h, la * 97, a, la, op & 0x10, &end, GUEST);
            break;
        }
        case 10: {
            capsa__vnode *h = held[la % 8];
            size_t got;
            if (h)
                capsa__vfs_read(vfs, h, la, buf, sizeof(buf), &got, GUEST);
            break;
        }
        case 11: {
            capsa__vnode *h = held[la % 8];
            if (h)
                capsa__vfs_truncate(vfs, h, (uint64_t)la << (op >> 5), GUEST);
            break;
        }
        case 12: {
            capsa__vnode *h = held[la % 8];
            capsa__vfs_dirent e;
            for (uint64_t c = 0; h && c < 100 && capsa__vfs_readdir(vfs, h, c, &e, GUEST) == 0;
                 c = e.next)
                ;
            break;
        }
        case 13: {
            capsa__vfs_where w;
            capsa__vfs_walk(vfs, base, a, la, op & 0x10 ? CAPSA__VFS_FOLLOW : 0, GUEST, &w);
            break;
        }
        default: {
            capsa__vnode *h = held[la % 8];
            if (h) {
                capsa__vfs_unref(vfs, h);
                held[la % 8] = NULL;
            }
            break;
        }
        }
        check_quota(vfs, &q);
    }
    /* Nothing the guest did from /workspace may have changed the read-only root:
       it still holds exactly the default layout (dev, log, tmp, tools, workspace). */
    capsa__vfs_dirent e;
    int entries = 0;
    for (uint64_t c = 2; capsa__vfs_readdir(vfs, root, c, &e, CAPSA__VFS_HOST) == 0; c = e.next)
        entries++;
    if (entries != 5)
        abort();
    for (int i = 0; i < 8; i++)
        if (held[i])
            capsa__vfs_unref(vfs, held[i]);
    capsa__vfs_unref(vfs, ws);
    capsa__vfs_free(vfs);
    return 0;
}
