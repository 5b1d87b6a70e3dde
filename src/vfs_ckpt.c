/* A sandbox's filesystem in a checkpoint, and back: the tree written depth-first
 * from the root, each node's record followed (for a directory) by its entries,
 * and read back as the host through the VFS's own operations, every name, count
 * and length checked, so a tampered record can only fail the restore. Built on
 * vfs_tree.h, beside vfs_host.c and vfs_tar.c.
 *
 * A node:   u8 type, u64 ino, atim, mtim, ctim, u8 flags (NODE_*), u8 mount mode,
 *           u32 host permissions, then by type: a file's u64 size and bytes, a
 *           symlink's target (u32 length and bytes), a directory's u32 count of
 *           entries, the null device nothing.
 * An entry: its name (u32 length and bytes), then u8 ENTRY_NEW and a node (its
 *           entries follow it at once when it is a directory), or u8 ENTRY_LINK
 *           and the u32 index of a node met before (a hard link; nodes are
 *           numbered in the order they come, the root 0).
 * The tree is the root's node and its entries. */
#include "vfs_ckpt.h"

#include <string.h>

#include "vfs_tree.h"

#define H CAPSA__VFS_HOST

enum { NODE_MOUNT = 1, NODE_GUEST_READONLY = 2 };
enum { ENTRY_NEW = 0, ENTRY_LINK = 1 };

/* ---- saving ------------------------------------------------------------------------ */

/* The index of each node named more than once, by address (open addressing). */
typedef struct link_map {
    const capsa__vnode **node;
    uint32_t *index;
    size_t cap, n;
} link_map;

static size_t slot_of(const link_map *m, const capsa__vnode *n)
{
    size_t h = ((uintptr_t)n >> 4) * 0x9e3779b97f4a7c15ull;
    for (size_t i = h & (m->cap - 1);; i = (i + 1) & (m->cap - 1))
        if (!m->node[i] || m->node[i] == n)
            return i;
}

/* The index recorded for n, or UINT32_MAX. */
static uint32_t map_get(const link_map *m, const capsa__vnode *n)
{
    if (!m->cap)
        return UINT32_MAX;
    size_t i = slot_of(m, n);
    return m->node[i] ? m->index[i] : UINT32_MAX;
}

static int map_put(link_map *m, const capsa_allocator *a, const capsa__vnode *n, uint32_t index)
{
    if (2 * (m->n + 1) > m->cap) {
        link_map big = { NULL, NULL, m->cap ? 2 * m->cap : 64, 0 };
        big.node = capsa__malloc(a, big.cap * sizeof(*big.node));
        big.index = capsa__malloc(a, big.cap * sizeof(*big.index));
        if (!big.node || !big.index) {
            capsa__free(a, big.node);
            capsa__free(a, big.index);
            return -1;
        }
        memset(big.node, 0, big.cap * sizeof(*big.node));
        for (size_t i = 0; i < m->cap; i++) {
            if (m->node[i]) {
                size_t j = slot_of(&big, m->node[i]);
                big.node[j] = m->node[i];
                big.index[j] = m->index[i];
                big.n++;
            }
        }
        capsa__free(a, m->node);
        capsa__free(a, m->index);
        *m = big;
    }
    size_t i = slot_of(m, n);
    m->node[i] = n;
    m->index[i] = index;
    m->n++;
    return 0;
}

static void put_node(capsa__buf *b, const capsa_allocator *a, const capsa__vnode *n)
{
    capsa__vfs_stat st;
    capsa__vfs_stat_node(n, &st);
    capsa__buf_put_u8(b, a, (uint8_t)st.type);
    capsa__buf_put_u64(b, a, st.ino);
    capsa__buf_put_u64(b, a, st.atim);
    capsa__buf_put_u64(b, a, st.mtim);
    capsa__buf_put_u64(b, a, st.ctim);
    capsa__buf_put_u8(b, a, (uint8_t)((capsa__vfs_is_mount(n) ? NODE_MOUNT : 0) |
                                      (capsa__vfs_guest_readonly(n) ? NODE_GUEST_READONLY : 0)));
    capsa__buf_put_u8(b, a, (uint8_t)st.mode);
    capsa__buf_put_u32(b, a, capsa__vfs_host_mode(n));
    size_t len;
    uint64_t size;
    const void *p;
    switch (st.type) {
    case CAPSA__VFS_FILE:
        p = capsa__vfs_file_data(n, &size);
        capsa__buf_put_u64(b, a, size);
        capsa__buf_append(b, a, p, (size_t)size);
        break;
    case CAPSA__VFS_SYMLINK:
        p = capsa__vfs_link_target(n, &len);
        capsa__buf_put_str(b, a, p, len);
        break;
    case CAPSA__VFS_DIR:
        capsa__buf_put_u32(b, a, (uint32_t)st.size);
        break;
    case CAPSA__VFS_CHARDEV:
        break;
    }
}

int capsa__vfs_save(capsa__vfs *vfs, capsa__buf *out, const capsa_allocator *a)
{
    link_map map = { 0 };
    uint32_t count = 1;
    capsa__vnode *root = capsa__vfs_root(vfs);
    put_node(out, a, root);
    capsa__vfs_tw w;
    const capsa__vfs_dent *e;
    capsa__vfs_tw_start(&w, root);
    for (int ev; !out->failed && (ev = capsa__vfs_tw_step(&w, &e)) != CAPSA__VFS_TW_END;) {
        if (ev != CAPSA__VFS_TW_ENTRY)
            continue;
        capsa__buf_put_str(out, a, e->name, e->len);
        capsa__vfs_stat st;
        capsa__vfs_stat_node(e->node, &st);
        uint32_t index = st.type != CAPSA__VFS_DIR && st.nlink > 1 ? map_get(&map, e->node)
                                                                    : UINT32_MAX;
        if (index != UINT32_MAX) {
            capsa__buf_put_u8(out, a, ENTRY_LINK);
            capsa__buf_put_u32(out, a, index);
            continue;
        }
        if (st.type != CAPSA__VFS_DIR && st.nlink > 1 && map_put(&map, a, e->node, count) != 0)
            capsa__buf_fail(out);
        capsa__buf_put_u8(out, a, ENTRY_NEW);
        put_node(out, a, e->node);
        count++;
        if (st.type == CAPSA__VFS_DIR)
            capsa__vfs_tw_descend(&w, e->node);
    }
    capsa__free(a, map.node);
    capsa__free(a, map.index);
    return out->failed ? CAPSA__WASI_ENOMEM : 0;
}

/* ---- loading ----------------------------------------------------------------------- */

/* A node read back, and what is set on it once the whole tree stands. */
typedef struct lnode {
    capsa__vnode *node;
    capsa__vnode *parent; /* where it was first named (for a hard link to it) */
    const char *name;     /* borrowed from the reader's data */
    size_t len;
    uint8_t type, flags, mode;
    uint32_t host_mode;
    uint64_t ino, atim, mtim, ctim;
} lnode;

typedef struct loader {
    capsa__vfs *vfs;
    capsa__rd *r;
    const capsa_allocator *a;
    lnode *nodes;
    size_t n, cap;
    char *msg;
    size_t msgsize;
} loader;

/* A malformed record: EINVAL with the entry's name in the message. */
static int bad(loader *l, const char *name, size_t len, const char *what)
{
    if (!name) {
        name = "/";
        len = 1;
    }
    return capsa__msgf(l->msg, l->msgsize, CAPSA__WASI_EINVAL,
                           "the checkpoint's filesystem is malformed at '%.*s': %s",
                           (int)(len > 200 ? 200 : len), name, what);
}

/* Why the VFS refused to make an entry. */
static int refused(loader *l, const char *name, size_t len, int e)
{
    return capsa__msgf(l->msg, l->msgsize, e == CAPSA__WASI_ENOMEM ? e
                                               : e == CAPSA__WASI_ENOSPC || e == CAPSA__WASI_EDQUOT
                                                   ? CAPSA__WASI_ENOSPC : CAPSA__WASI_EINVAL,
                           "cannot restore '%.*s' of the checkpoint's filesystem: %s",
                           (int)(len > 200 ? 200 : len), name, capsa__vfs_strerror(e));
}

/* Reads a node's fields (up to its contents) into *ln. */
static int read_head(loader *l, lnode *ln, const char *name, size_t len)
{
    capsa__rd *r = l->r;
    ln->type = capsa__rd_u8(r);
    ln->ino = capsa__rd_u64(r);
    ln->atim = capsa__rd_u64(r);
    ln->mtim = capsa__rd_u64(r);
    ln->ctim = capsa__rd_u64(r);
    ln->flags = capsa__rd_u8(r);
    ln->mode = capsa__rd_u8(r);
    ln->host_mode = capsa__rd_u32(r);
    if (r->failed)
        return bad(l, name, len, "truncated");
    if (ln->type != CAPSA__VFS_DIR && ln->type != CAPSA__VFS_FILE &&
        ln->type != CAPSA__VFS_SYMLINK && ln->type != CAPSA__VFS_CHARDEV)
        return bad(l, name, len, "unknown node type");
    if (ln->flags & ~(NODE_MOUNT | NODE_GUEST_READONLY))
        return bad(l, name, len, "unknown flags");
    if ((ln->flags & NODE_MOUNT) && ln->type != CAPSA__VFS_DIR)
        return bad(l, name, len, "a mount root that is not a directory");
    if (ln->mode > CAPSA__VFS_APPEND)
        return bad(l, name, len, "unknown mount mode");
    if (ln->host_mode > 07777)
        return bad(l, name, len, "host permissions out of range");
    if (ln->ino == 0)
        return bad(l, name, len, "inode number 0");
    return 0;
}

static int add_node(loader *l, const lnode *ln)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 64;
        lnode *nodes = l->a->realloc_fn(l->a->ud, l->nodes, cap * sizeof(*nodes));
        if (!nodes)
            return capsa__msgf(l->msg, l->msgsize, CAPSA__WASI_ENOMEM,
                                   "out of memory restoring the filesystem");
        l->nodes = nodes;
        l->cap = cap;
    }
    l->nodes[l->n++] = *ln;
    return 0;
}

/* A name of one entry: what the VFS takes for a path, without '/' or a "." or
 * ".." of its own. */
static int check_name(loader *l, const char *name, size_t len)
{
    if (!name)
        return bad(l, NULL, 0, "truncated");
    if (len == 0 || len > CAPSA__VFS_NAME_MAX || memchr(name, '/', len) ||
        (len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.') ||
        capsa__vfs_check_path(name, len) != 0)
        return bad(l, name, len, "not a valid name");
    return 0;
}

/* Makes the node of entry name[0..len) of directory dir from ln (its contents
 * next in the reader) and sets ln->node. Directories, and the null device, of
 * the default layout are there already and are taken as they are. */
static int make_entry(loader *l, capsa__vnode *dir, const char *name, size_t len, lnode *ln)
{
    capsa__vfs *vfs = l->vfs;
    const capsa__vfs_dent *have = capsa__vfs_dir_entry(dir, name, len);
    capsa__vnode *have_node = have ? have->node : NULL;
    int e = 0;
    switch (ln->type) {
    case CAPSA__VFS_DIR:
        if (have_node && capsa__vfs_node_type(have_node) != CAPSA__VFS_DIR)
            return bad(l, name, len, "a directory where the layout has another node");
        if (!have_node && (e = capsa__vfs_mkdir(vfs, dir, name, len, H)))
            return refused(l, name, len, e);
        break;
    case CAPSA__VFS_CHARDEV:
        if (!have_node || capsa__vfs_node_type(have_node) != CAPSA__VFS_CHARDEV)
            return bad(l, name, len, "a device other than /dev/null");
        break;
    case CAPSA__VFS_FILE: {
        uint64_t size = capsa__rd_u64(l->r);
        const uint8_t *data = size <= SIZE_MAX ? capsa__rd_bytes(l->r, (size_t)size) : NULL;
        if (!data)
            return bad(l, name, len, "truncated contents");
        if (have_node)
            return bad(l, name, len, "a name that is there already");
        capsa__vnode *n;
        uint64_t end;
        e = capsa__vfs_open(vfs, dir, name, len, 0, CAPSA__VFS_O_CREAT | CAPSA__VFS_O_EXCL,
                            1u << CAPSA__VFS_WRITE, H, &n);
        if (e)
            return refused(l, name, len, e);
        e = size ? capsa__vfs_write(vfs, n, 0, data, (size_t)size, 0, &end, H) : 0;
        capsa__vfs_unref(vfs, n);
        if (e)
            return refused(l, name, len, e);
        break;
    }
    case CAPSA__VFS_SYMLINK: {
        size_t tlen;
        const char *target = capsa__rd_str(l->r, CAPSA__VFS_PATH_MAX, &tlen);
        if (!target)
            return bad(l, name, len, "truncated or overlong symlink target");
        if (have_node)
            return bad(l, name, len, "a name that is there already");
        if ((e = capsa__vfs_symlink(vfs, target, tlen, dir, name, len, H)))
            return refused(l, name, len, e);
        break;
    }
    }
    ln->node = capsa__vfs_dir_entry(dir, name, len)->node;
    ln->parent = dir;
    ln->name = name;
    ln->len = len;
    return 0;
}

/* Where the load is in a directory: entries of it still to come. */
typedef struct level {
    capsa__vnode *dir;
    uint32_t left;
} level;

/* Reads the entries of the root and, depth-first, of every directory below. */
static int load_entries(loader *l, uint32_t root_entries)
{
    level *stack = capsa__malloc(l->a, (CAPSA__VFS_DEPTH_MAX + 1) * sizeof(*stack));
    if (!stack)
        return capsa__msgf(l->msg, l->msgsize, CAPSA__WASI_ENOMEM,
                               "out of memory restoring the filesystem");
    size_t depth = 1;
    stack[0] = (level){ capsa__vfs_root(l->vfs), root_entries };
    int e = 0;
    while (!e && depth) {
        level *top = &stack[depth - 1];
        if (top->left == 0) {
            depth--;
            continue;
        }
        top->left--;
        size_t len;
        const char *name = capsa__rd_str(l->r, CAPSA__VFS_NAME_MAX, &len);
        if ((e = check_name(l, name, len)))
            break;
        uint8_t kind = capsa__rd_u8(l->r);
        if (kind == ENTRY_LINK) {
            uint32_t index = capsa__rd_u32(l->r);
            if (l->r->failed)
                e = bad(l, name, len, "truncated");
            else if (index >= l->n || l->nodes[index].type == CAPSA__VFS_DIR ||
                     l->nodes[index].type == CAPSA__VFS_CHARDEV)
                e = bad(l, name, len, "a hard link to no file");
            else if ((e = capsa__vfs_link(l->vfs, l->nodes[index].parent, l->nodes[index].name,
                                          l->nodes[index].len, 0, top->dir, name, len, H)))
                e = refused(l, name, len, e);
            continue;
        }
        if (kind != ENTRY_NEW) {
            e = bad(l, name, len, l->r->failed ? "truncated" : "unknown kind of entry");
            break;
        }
        lnode ln;
        memset(&ln, 0, sizeof(ln));
        if ((e = read_head(l, &ln, name, len)) || (e = make_entry(l, top->dir, name, len, &ln)))
            break;
        uint32_t entries = ln.type == CAPSA__VFS_DIR ? capsa__rd_u32(l->r) : 0;
        if (l->r->failed) {
            e = bad(l, name, len, "truncated");
            break;
        }
        if ((e = add_node(l, &ln)))
            break;
        if (ln.type == CAPSA__VFS_DIR && entries) {
            if (depth > CAPSA__VFS_DEPTH_MAX) {
                e = bad(l, name, len, "directories nested too deep");
                break;
            }
            stack[depth++] = (level){ ln.node, entries };
        }
    }
    capsa__free(l->a, stack);
    return e;
}

int capsa__vfs_load(capsa__vfs *vfs, capsa__rd *r, char *msg, size_t msgsize)
{
    loader l = { vfs, r, capsa__vfs_allocator(vfs), NULL, 0, 0, msg, msgsize };
    lnode root;
    memset(&root, 0, sizeof(root));
    int e = read_head(&l, &root, NULL, 0);
    uint32_t entries = capsa__rd_u32(r);
    if (!e && (root.type != CAPSA__VFS_DIR || !(root.flags & NODE_MOUNT)))
        e = bad(&l, NULL, 0, "the root is not a directory");
    if (!e && r->failed)
        e = bad(&l, NULL, 0, "truncated");
    root.node = capsa__vfs_root(vfs);
    if (!e)
        e = add_node(&l, &root);
    if (!e)
        e = load_entries(&l, entries);
    /* The tree stands: mount roots get their modes (outer ones first, so that each
       inner one then takes its own subtree back), and every node its marks, its
       inode number and its times, which making the tree changed. */
    for (size_t i = 0; !e && i < l.n; i++) {
        const lnode *ln = &l.nodes[i];
        if (ln->flags & NODE_MOUNT)
            e = capsa__vfs_mount_node(vfs, ln->node, (capsa__vfs_mode)ln->mode);
        else if (ln->type == CAPSA__VFS_DIR && capsa__vfs_is_mount(ln->node))
            e = bad(&l, ln->name, ln->len, "a mount root of the layout is not one");
    }
    for (size_t i = 0; !e && i < l.n; i++) {
        const lnode *ln = &l.nodes[i];
        if (ln->flags & NODE_GUEST_READONLY)
            capsa__vfs_set_guest_readonly(ln->node);
        if (ln->host_mode)
            capsa__vfs_set_host_mode(ln->node, ln->host_mode);
        capsa__vfs_node_restore(vfs, ln->node, ln->ino, ln->atim, ln->mtim, ln->ctim);
    }
    capsa__free(l.a, l.nodes);
    return e;
}
