/* In-memory filesystem of one sandbox: the tree of directories, files and
 * symlinks (and /dev/null), the mounts that decide what the guest may do, the
 * quotas, and the operations on paths and nodes. Copies of trees in and out are
 * built on it: host directories in vfs_host.c, tar streams in vfs_tar.c, both
 * through vfs_tree.h. */
#include "vfs.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "vfs_tree.h"

#define DEFAULT_MAX_BYTES (64ull << 20)
#define DEFAULT_MAX_ENTRIES 10000ull

/* A directory entry: its record is in vfs_tree.h, for the walks of the copies. */
typedef capsa__vfs_dent dent;

struct capsa__vnode {
    capsa__vfs_type type;
    uint64_t refs;  /* open fds and other holders */
    uint64_t links; /* directory entries naming it (the root has one, for itself) */
    uint64_t ino;
    uint64_t atim, mtim, ctim;
    capsa__vnode *mnt;    /* the mount root this node belongs to */
    int is_mount;         /* a mount root: cannot be removed or renamed */
    capsa__vfs_mode mode; /* of a mount root: what the guest may do below it */
    uint64_t chg;         /* the generation of its last change (a file's bytes or
                             times, a directory's entries); 0: as on the host */
    int guest_readonly;   /* the guest may only read it, whatever its mount */
    union { /* nothing for the null device: it holds no bytes */
        struct {
            uint8_t *data;
            uint64_t size, cap;
            unsigned host_mode; /* permissions of the host file it was copied
                                   from, 0 for none */
        } file;
        struct {
            char *target; /* NUL-terminated, owned */
            size_t len;
        } link;
        struct {
            dent *ents; /* sorted by name, bytewise */
            size_t n, cap;
            capsa__vnode *parent; /* NULL for the root and for removed directories */
            size_t nsub;          /* subdirectories, for nlink */
            size_t visit;         /* cursor of the allocation-free tree walks */
        } dir;
    } u;
};

struct capsa__vfs {
    const capsa_allocator *a;
    capsa__vnode *root;
    uint64_t bytes;   /* file contents and symlink targets of live nodes */
    uint64_t entries; /* live nodes other than mount roots */
    uint64_t next_ino;
    uint64_t names;   /* changes whenever an entry is added or removed anywhere */
    uint64_t gen;     /* stamps changes, for write-back (capsa__vfs_mark) */
    capsa__vfs_quota q;
};

/* ---- small helpers ------------------------------------------------------------- */

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *vfs_alloc(capsa__vfs *vfs, size_t n)
{
    return capsa__malloc(vfs->a, n);
}

static void vfs_dealloc(capsa__vfs *vfs, void *p)
{
    capsa__free(vfs->a, p);
}

static void *vfs_realloc(capsa__vfs *vfs, void *p, size_t n)
{
    return vfs->a->realloc_fn(vfs->a->ud, p, n ? n : 1);
}

static char *vfs_strndup(capsa__vfs *vfs, const char *s, size_t n)
{
    char *d = vfs_alloc(vfs, n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

/* Whether s[0..n) is well-formed UTF-8: no overlong forms, surrogates or code
 * points above U+10FFFF. */
static int utf8_valid(const unsigned char *s, size_t n)
{
    for (size_t i = 0, k; i < n; i += k) {
        k = s[i] < 0x80 ? 1 : capsa__utf8_len(s + i, n - i);
        if (!k)
            return 0;
    }
    return 1;
}

int capsa__vfs_check_path(const char *p, size_t len)
{
    if (len > CAPSA__VFS_PATH_MAX)
        return CAPSA__WASI_ENAMETOOLONG;
    if (len && memchr(p, '\0', len))
        return CAPSA__WASI_EINVAL;
    if (!utf8_valid((const unsigned char *)p, len))
        return CAPSA__WASI_EILSEQ;
    size_t run = 0;
    for (size_t i = 0; i < len; i++) {
        run = p[i] == '/' ? 0 : run + 1;
        if (run > CAPSA__VFS_NAME_MAX)
            return CAPSA__WASI_ENAMETOOLONG;
    }
    return 0;
}

/* ---- errors ------------------------------------------------------------------------ */

int capsa__vfs_status(int err)
{
    switch (err) {
    case 0: return CAPSA_OK;
    case CAPSA__WASI_ENOENT: return CAPSA_ENOENT;
    case CAPSA__WASI_EEXIST: return CAPSA_EEXIST;
    case CAPSA__WASI_ENOTDIR: return CAPSA_ENOTDIR;
    case CAPSA__WASI_EISDIR: return CAPSA_EISDIR;
    case CAPSA__WASI_ENOTEMPTY: return CAPSA_ENOTEMPTY;
    case CAPSA__WASI_ENOSPC:
    case CAPSA__WASI_EDQUOT:
    case CAPSA__WASI_EFBIG: return CAPSA_ENOSPC;
    case CAPSA__WASI_ENOMEM: return CAPSA_ENOMEM;
    case CAPSA__WASI_EIO: return CAPSA_EIO;
    default: return CAPSA_EINVAL;
    }
}

const char *capsa__vfs_strerror(int err)
{
    switch (err) {
    case CAPSA__WASI_ENOENT: return "no such file or directory";
    case CAPSA__WASI_EEXIST: return "file exists";
    case CAPSA__WASI_ENOTDIR: return "not a directory";
    case CAPSA__WASI_EISDIR: return "is a directory";
    case CAPSA__WASI_ENOTEMPTY: return "directory not empty";
    case CAPSA__WASI_ENOSPC: return "the filesystem quota (bytes or entries) is exceeded";
    case CAPSA__WASI_EDQUOT:
    case CAPSA__WASI_EFBIG: return "the file size quota is exceeded";
    case CAPSA__WASI_ENOMEM: return "out of memory";
    case CAPSA__WASI_EIO: return "input/output error on the host";
    case CAPSA__WASI_EBUSY: return "it is (or holds) a mount point or a device";
    case CAPSA__WASI_ELOOP: return "too many levels of symbolic links";
    case CAPSA__WASI_ENAMETOOLONG: return "path too long, or directories nested too deep";
    case CAPSA__WASI_EILSEQ: return "path is not valid UTF-8";
    case CAPSA__WASI_ENOTCAPABLE: return "the path leaves the directory it is relative to";
    case CAPSA__WASI_EXDEV: return "across mounts";
    case CAPSA__WASI_EPERM: return "operation not permitted";
    case CAPSA__WASI_EINVAL: return "invalid argument";
    case CAPSA__VFS_ELINK:
        return "a symlink on the path leads where the sandbox's code may not write, and the "
               "host does not write there through it";
    default: return "filesystem error";
    }
}

/* ---- nodes and directories ------------------------------------------------------- */

static int name_cmp(const char *a, size_t al, const char *b, size_t bl)
{
    int c = memcmp(a, b, al < bl ? al : bl);
    if (c)
        return c;
    return al < bl ? -1 : al > bl;
}

/* Binary search in directory d: the index of name when *found, else where it
 * would be inserted. */
static size_t dir_find(const capsa__vnode *d, const char *name, size_t len, int *found)
{
    size_t lo = 0, hi = d->u.dir.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = name_cmp(d->u.dir.ents[mid].name, d->u.dir.ents[mid].len, name, len);
        if (c == 0) {
            *found = 1;
            return mid;
        }
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    *found = 0;
    return lo;
}

/* Makes room for one more entry in d, so that the insertion that follows cannot
 * fail. Extra capacity changes nothing visible, so this may run before the
 * other checks of an operation. */
static int dir_reserve(capsa__vfs *vfs, capsa__vnode *d)
{
    if (d->u.dir.n < d->u.dir.cap)
        return 0;
    size_t cap = d->u.dir.cap ? d->u.dir.cap * 2 : 8;
    if (cap > SIZE_MAX / sizeof(dent))
        return CAPSA__WASI_ENOMEM;
    dent *e = vfs_realloc(vfs, d->u.dir.ents, cap * sizeof(dent));
    if (!e)
        return CAPSA__WASI_ENOMEM;
    d->u.dir.ents = e;
    d->u.dir.cap = cap;
    return 0;
}

/* Inserts (name, node) at idx of d, taking ownership of name; room was reserved. */
static void dir_insert(capsa__vfs *vfs, capsa__vnode *d, size_t idx, char *name, size_t len,
                       capsa__vnode *n)
{
    dent *e = d->u.dir.ents;
    vfs->names++;
    d->chg = vfs->gen;
    memmove(e + idx + 1, e + idx, (d->u.dir.n - idx) * sizeof(dent));
    e[idx] = (dent){ name, len, n, vfs->gen };
    d->u.dir.n++;
    n->links++;
    if (n->type == CAPSA__VFS_DIR) {
        n->u.dir.parent = d;
        d->u.dir.nsub++;
    }
}

/* Removes entry idx of d and returns the node it named (the caller releases it). */
static capsa__vnode *dir_remove(capsa__vfs *vfs, capsa__vnode *d, size_t idx)
{
    dent *e = d->u.dir.ents;
    capsa__vnode *n = e[idx].node;
    vfs->names++;
    d->chg = vfs->gen;
    vfs_dealloc(vfs, e[idx].name);
    memmove(e + idx, e + idx + 1, (d->u.dir.n - idx - 1) * sizeof(dent));
    d->u.dir.n--;
    n->links--;
    if (n->type == CAPSA__VFS_DIR) {
        n->u.dir.parent = NULL;
        d->u.dir.nsub--;
    }
    return n;
}

/* Whether n is part of the layout rather than the sandbox's own entries: a mount
 * root or the null device. Neither counts as an entry, and nothing (the host
 * included) removes, renames or replaces them. */
static int pinned(const capsa__vnode *n)
{
    return n->is_mount || n->type == CAPSA__VFS_CHARDEV;
}

/* Frees one node and its own storage, and takes it out of the usage counts. A
 * directory is empty by then. */
static void node_free(capsa__vfs *vfs, capsa__vnode *n)
{
    switch (n->type) {
    case CAPSA__VFS_CHARDEV:
        break;
    case CAPSA__VFS_FILE:
        vfs->bytes -= n->u.file.size;
        vfs_dealloc(vfs, n->u.file.data);
        break;
    case CAPSA__VFS_SYMLINK:
        vfs->bytes -= n->u.link.len;
        vfs_dealloc(vfs, n->u.link.target);
        break;
    case CAPSA__VFS_DIR:
        vfs_dealloc(vfs, n->u.dir.ents);
        break;
    }
    if (!pinned(n))
        vfs->entries--;
    vfs_dealloc(vfs, n);
}

/* Frees n when nothing names or holds it any more. */
static void node_release(capsa__vfs *vfs, capsa__vnode *n)
{
    if (n->links == 0 && n->refs == 0)
        node_free(vfs, n);
}

void capsa__vfs_tw_start(capsa__vfs_tw *w, capsa__vnode *top)
{
    top->u.dir.visit = 0;
    *w = (capsa__vfs_tw){ top, top, 0, 0 };
}

void capsa__vfs_tw_descend(capsa__vfs_tw *w, capsa__vnode *c)
{
    c->u.dir.visit = 0;
    w->d = c;
    w->depth++;
}

int capsa__vfs_tw_step(capsa__vfs_tw *w, const capsa__vfs_dent **e)
{
    capsa__vnode *d = w->d;
    if (d->u.dir.visit < d->u.dir.n) {
        *e = &d->u.dir.ents[d->u.dir.visit++];
        return CAPSA__VFS_TW_ENTRY;
    }
    if (d == w->top) {
        *e = NULL;
        if (w->done)
            return CAPSA__VFS_TW_END;
        w->done = 1;
        return CAPSA__VFS_TW_LEAVE;
    }
    w->d = d->u.dir.parent;
    w->depth--;
    *e = &w->d->u.dir.ents[w->d->u.dir.visit - 1];
    return CAPSA__VFS_TW_LEAVE;
}

/* Points every node below mount root m (down to the next mount roots) at m. */
static void retag(capsa__vnode *m)
{
    capsa__vfs_tw w;
    const dent *e;
    capsa__vfs_tw_start(&w, m);
    for (int ev; (ev = capsa__vfs_tw_step(&w, &e)) != CAPSA__VFS_TW_END;) {
        if (ev != CAPSA__VFS_TW_ENTRY || (e->node->type == CAPSA__VFS_DIR && e->node->is_mount))
            continue;
        e->node->mnt = m;
        if (e->node->type == CAPSA__VFS_DIR)
            capsa__vfs_tw_descend(&w, e->node);
    }
}

size_t capsa__vfs_depth(const capsa__vnode *d)
{
    size_t k = 0;
    for (; d->u.dir.parent; d = d->u.dir.parent)
        k++;
    return k;
}

/* Whether directories nest more than `room` levels below directory d. */
static int deeper_than(capsa__vnode *d, size_t room)
{
    capsa__vfs_tw w;
    const dent *e;
    capsa__vfs_tw_start(&w, d);
    for (int ev; (ev = capsa__vfs_tw_step(&w, &e)) != CAPSA__VFS_TW_END;) {
        if (ev != CAPSA__VFS_TW_ENTRY || e->node->type != CAPSA__VFS_DIR)
            continue;
        if (w.depth + 1 > room)
            return 1;
        capsa__vfs_tw_descend(&w, e->node);
    }
    return 0;
}

int capsa__vfs_quota_bytes(const capsa__vfs *vfs, uint64_t add)
{
    if (add > vfs->q.max_bytes || vfs->bytes > vfs->q.max_bytes - add)
        return CAPSA__WASI_ENOSPC;
    return 0;
}

/* Creates a node of the given type named name[0..nlen) in directory dir (which
 * must not have that name yet). Checks the quotas and allocates everything
 * before anything changes; on 0, *out is the new node, borrowed from the tree. */
static int make_node(capsa__vfs *vfs, capsa__vnode *dir, const char *name, size_t nlen,
                     capsa__vfs_type type, const char *target, size_t tlen, capsa__vnode **out)
{
    if (dir->links == 0)
        return CAPSA__WASI_ENOENT; /* a removed directory takes no new entries */
    if (type == CAPSA__VFS_DIR && capsa__vfs_depth(dir) + 1 > CAPSA__VFS_DEPTH_MAX)
        return CAPSA__WASI_ENAMETOOLONG;
    if (vfs->entries >= vfs->q.max_entries)
        return CAPSA__WASI_ENOSPC;
    if (type == CAPSA__VFS_SYMLINK && capsa__vfs_quota_bytes(vfs, tlen))
        return CAPSA__WASI_ENOSPC;
    if (dir_reserve(vfs, dir))
        return CAPSA__WASI_ENOMEM;
    char *nm = vfs_strndup(vfs, name, nlen);
    capsa__vnode *n = nm ? vfs_alloc(vfs, sizeof *n) : NULL;
    char *t = NULL;
    if (n && type == CAPSA__VFS_SYMLINK)
        t = vfs_strndup(vfs, target, tlen);
    if (!nm || !n || (type == CAPSA__VFS_SYMLINK && !t)) {
        vfs_dealloc(vfs, nm);
        vfs_dealloc(vfs, n);
        return CAPSA__WASI_ENOMEM;
    }
    memset(n, 0, sizeof *n);
    n->type = type;
    n->chg = vfs->gen;
    n->ino = ++vfs->next_ino;
    n->atim = n->mtim = n->ctim = now_ns();
    n->mnt = dir->mnt;
    if (type == CAPSA__VFS_SYMLINK) {
        n->u.link.target = t;
        n->u.link.len = tlen;
        vfs->bytes += tlen;
    }
    vfs->entries++;
    int found;
    size_t idx = dir_find(dir, name, nlen, &found);
    dir_insert(vfs, dir, idx, nm, nlen, n);
    dir->mtim = dir->ctim = n->ctim;
    *out = n;
    return 0;
}

/* Gives file n room for need bytes. Capacity doubles, so appending is amortised
 * O(1), but never past what the quotas would let the file reach. */
static int file_reserve(capsa__vfs *vfs, capsa__vnode *n, uint64_t need)
{
    if (need <= n->u.file.cap)
        return 0;
    uint64_t limit = vfs->q.max_file;
    uint64_t room = n->u.file.size + (vfs->q.max_bytes - vfs->bytes);
    if (room < limit)
        limit = room;
    uint64_t cap = n->u.file.cap ? n->u.file.cap * 2 : 64;
    if (cap > limit)
        cap = limit;
    if (cap < need)
        cap = need;
    if (cap > SIZE_MAX)
        return CAPSA__WASI_ENOMEM;
    uint8_t *d = vfs_realloc(vfs, n->u.file.data, (size_t)cap);
    if (!d)
        return CAPSA__WASI_ENOMEM;
    n->u.file.data = d;
    n->u.file.cap = cap;
    return 0;
}

/* ---- the filesystem ------------------------------------------------------------- */

int capsa__vfs_new(const capsa_allocator *a, const capsa__vfs_quota *quota, capsa__vfs **out)
{
    static const struct {
        const char *path;
        capsa__vfs_mode mode;
    } layout[] = {
        { "/workspace", CAPSA__VFS_RW },
        { "/tmp", CAPSA__VFS_RW },
        { "/tools", CAPSA__VFS_RO },
        { "/log", CAPSA__VFS_APPEND },
        { "/dev", CAPSA__VFS_RO },
    };
    *out = NULL;
    if (!a)
        a = &capsa__default_allocator;
    capsa__vfs *vfs = capsa__malloc(a, sizeof *vfs);
    if (!vfs)
        return CAPSA__WASI_ENOMEM;
    memset(vfs, 0, sizeof *vfs);
    vfs->a = a;
    vfs->gen = 1; /* 0 marks what is as on the host */
    if (quota)
        vfs->q = *quota;
    if (!vfs->q.max_bytes)
        vfs->q.max_bytes = DEFAULT_MAX_BYTES;
    if (!vfs->q.max_entries)
        vfs->q.max_entries = DEFAULT_MAX_ENTRIES;
    if (!vfs->q.max_file)
        vfs->q.max_file = vfs->q.max_bytes;
    capsa__vnode *root = vfs_alloc(vfs, sizeof *root);
    if (!root) {
        capsa__free(a, vfs);
        return CAPSA__WASI_ENOMEM;
    }
    memset(root, 0, sizeof *root);
    root->type = CAPSA__VFS_DIR;
    root->links = 1;
    root->ino = vfs->next_ino = 1;
    root->atim = root->mtim = root->ctim = now_ns();
    root->mnt = root;
    root->is_mount = 1;
    root->mode = CAPSA__VFS_RO;
    vfs->root = root;
    for (size_t i = 0; i < sizeof layout / sizeof layout[0]; i++) {
        int e = capsa__vfs_mount(vfs, layout[i].path, layout[i].mode);
        if (e) {
            capsa__vfs_free(vfs);
            return e;
        }
    }
    /* /dev is read-only: the guest can neither add nor remove anything there,
       while capsa__vfs_allow lets it read and write the device itself. */
    capsa__vfs_where w;
    capsa__vnode *null_dev;
    int e = capsa__vfs_walk(vfs, root, "/dev", 4, 0, CAPSA__VFS_HOST, &w);
    if (!e)
        e = make_node(vfs, w.node, "null", 4, CAPSA__VFS_CHARDEV, NULL, 0, &null_dev);
    if (e) {
        capsa__vfs_free(vfs);
        return e;
    }
    vfs->entries--; /* the layout, as the mount roots */
    *out = vfs;
    return 0;
}

/* Frees the whole tree without recursion: entries are popped from the end of
 * each directory, descending into subdirectories and climbing back by parent
 * links. A file with several names is freed with its last name. */
void capsa__vfs_free(capsa__vfs *vfs)
{
    if (!vfs)
        return;
    capsa__vnode *d = vfs->root;
    while (d) {
        if (d->u.dir.n) {
            dent *e = &d->u.dir.ents[--d->u.dir.n];
            capsa__vnode *c = e->node;
            vfs_dealloc(vfs, e->name);
            c->links--;
            if (c->type == CAPSA__VFS_DIR) {
                d = c;
            } else if (c->links == 0) {
                if (c->type == CAPSA__VFS_FILE)
                    vfs_dealloc(vfs, c->u.file.data);
                else if (c->type == CAPSA__VFS_SYMLINK)
                    vfs_dealloc(vfs, c->u.link.target);
                vfs_dealloc(vfs, c);
            }
        } else {
            capsa__vnode *p = d->u.dir.parent;
            vfs_dealloc(vfs, d->u.dir.ents);
            vfs_dealloc(vfs, d);
            d = p;
        }
    }
    capsa__free(vfs->a, vfs);
}

capsa__vnode *capsa__vfs_root(capsa__vfs *vfs)
{
    return vfs->root;
}

/* The decision for an operation on n, which walk w reached: capsa__vfs_allow,
 * except that a host past a symlink is bound as the guest is. A link the guest
 * planted must not lead the host's writes where the guest may not write itself
 * (the audit trail, /tools, a read-only mount): refused with CAPSA__VFS_ELINK. */
static int allow_at(const capsa__vfs *vfs, const capsa__vfs_where *w, const capsa__vnode *n,
                    capsa__vfs_op op, int who)
{
    if (who == CAPSA__VFS_GUEST || !w->via_link)
        return capsa__vfs_allow(vfs, n, op, who);
    return capsa__vfs_allow(vfs, n, op, CAPSA__VFS_GUEST) ? CAPSA__VFS_ELINK : 0;
}

/* Creates every missing directory of path[0..len) from base (as mkdir -p), then
 * resolves it, following symlinks: on 0, *w names the directory. */
static int make_path(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len, int who,
                     capsa__vfs_where *w)
{
    for (size_t i = 1; i <= len; i++) {
        if (i < len && !(path[i] == '/' && path[i - 1] != '/'))
            continue;
        int e = capsa__vfs_mkdir(vfs, base, path, i, who);
        if (e && e != CAPSA__WASI_EEXIST)
            return e;
    }
    int e = capsa__vfs_walk(vfs, base, path, len, CAPSA__VFS_FOLLOW, who, w);
    if (e)
        return e;
    if (!w->node)
        return CAPSA__WASI_ENOENT;
    if (w->node->type != CAPSA__VFS_DIR)
        return CAPSA__WASI_ENOTDIR;
    return 0;
}

int capsa__vfs_mkdirs(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len, int who,
                      capsa__vnode **out)
{
    capsa__vfs_where w;
    int e = make_path(vfs, base, path, len, who, &w);
    if (e)
        return e;
    /* Every caller fills the directory: through a link, only where the guest
       may change it. */
    if ((e = allow_at(vfs, &w, w.node, CAPSA__VFS_CHANGE, who)))
        return e;
    *out = w.node;
    return 0;
}

int capsa__vfs_make_dirs(capsa__vfs *vfs, const char *abs)
{
    capsa__vfs_where w;
    return make_path(vfs, vfs->root, abs, strlen(abs), CAPSA__VFS_HOST, &w);
}

int capsa__vfs_mount(capsa__vfs *vfs, const char *path, capsa__vfs_mode mode)
{
    if (mode != CAPSA__VFS_RO && mode != CAPSA__VFS_RW && mode != CAPSA__VFS_APPEND)
        return CAPSA__WASI_EINVAL;
    capsa__vnode *d;
    int e = capsa__vfs_mkdirs(vfs, vfs->root, path, strlen(path), CAPSA__VFS_HOST, &d);
    return e ? e : capsa__vfs_mount_node(vfs, d, mode);
}

int capsa__vfs_mount_node(capsa__vfs *vfs, capsa__vnode *d, capsa__vfs_mode mode)
{
    if (d->type != CAPSA__VFS_DIR ||
        (mode != CAPSA__VFS_RO && mode != CAPSA__VFS_RW && mode != CAPSA__VFS_APPEND))
        return CAPSA__WASI_EINVAL;
    if (!d->is_mount) {
        d->is_mount = 1;
        vfs->entries--; /* mount roots are the layout, not the sandbox's entries */
    }
    d->mode = mode;
    d->mnt = d;
    retag(d);
    return 0;
}

void capsa__vfs_quota_get(const capsa__vfs *vfs, capsa__vfs_quota *q)
{
    *q = vfs->q;
}

uint64_t capsa__vfs_names(const capsa__vfs *vfs)
{
    return vfs->names;
}

uint64_t capsa__vfs_mark(capsa__vfs *vfs)
{
    return vfs->gen++;
}

void capsa__vfs_usage(const capsa__vfs *vfs, uint64_t *bytes, uint64_t *entries)
{
    if (bytes)
        *bytes = vfs->bytes;
    if (entries)
        *entries = vfs->entries;
}

/* ---- nodes ---------------------------------------------------------------------- */

void capsa__vfs_ref(capsa__vnode *n)
{
    if (n)
        n->refs++;
}

void capsa__vfs_unref(capsa__vfs *vfs, capsa__vnode *n)
{
    if (!n)
        return;
    if (n->refs)
        n->refs--;
    node_release(vfs, n);
}

int capsa__vfs_allow(const capsa__vfs *vfs, const capsa__vnode *n, capsa__vfs_op op, int who)
{
    (void)vfs;
    if (who != CAPSA__VFS_GUEST)
        return 0; /* the host (and tar import) is bound by quotas only */
    if (!n)
        return CAPSA__WASI_EACCES;
    if (op == CAPSA__VFS_READ)
        return 0;
    if (n->guest_readonly)
        return CAPSA__WASI_EPERM;
    /* The null device takes writes wherever it is (they keep nothing); CHANGE is
       asked of directories only, so it never reaches here for the device. */
    if (n->type == CAPSA__VFS_CHARDEV)
        return op == CAPSA__VFS_CHANGE ? CAPSA__WASI_EPERM : 0;
    switch (n->mnt->mode) {
    case CAPSA__VFS_RW:
        return 0;
    case CAPSA__VFS_RO:
        return CAPSA__WASI_EROFS;
    case CAPSA__VFS_APPEND:
        return op == CAPSA__VFS_APPEND_OP && n->type == CAPSA__VFS_FILE ? 0 : CAPSA__WASI_EPERM;
    }
    return CAPSA__WASI_EACCES;
}

void capsa__vfs_set_guest_readonly(capsa__vnode *n)
{
    n->guest_readonly = 1;
}

int capsa__vfs_guest_readonly(const capsa__vnode *n)
{
    return n->guest_readonly;
}

void capsa__vfs_node_restore(capsa__vfs *vfs, capsa__vnode *n, uint64_t ino, uint64_t atim,
                             uint64_t mtim, uint64_t ctim)
{
    n->ino = ino;
    if (ino > vfs->next_ino)
        vfs->next_ino = ino;
    n->atim = atim;
    n->mtim = mtim;
    n->ctim = ctim;
}

void capsa__vfs_stat_node(const capsa__vnode *n, capsa__vfs_stat *st)
{
    memset(st, 0, sizeof *st);
    st->type = n->type;
    st->ino = n->ino;
    switch (n->type) {
    case CAPSA__VFS_CHARDEV:
        st->nlink = n->links;
        break;
    case CAPSA__VFS_FILE:
        st->nlink = n->links;
        st->size = n->u.file.size;
        break;
    case CAPSA__VFS_SYMLINK:
        st->nlink = n->links;
        st->size = n->u.link.len;
        break;
    case CAPSA__VFS_DIR:
        /* POSIX counts the entry in the parent, ".", and each subdirectory's "..". */
        st->nlink = n->links ? 2 + n->u.dir.nsub : 0;
        st->size = n->u.dir.n;
        break;
    }
    st->atim = n->atim;
    st->mtim = n->mtim;
    st->ctim = n->ctim;
    st->mode = n->mnt->mode;
}

capsa__vfs_type capsa__vfs_node_type(const capsa__vnode *n)
{
    return n->type;
}

/* ---- what the copies in and out see of nodes (vfs_tree.h) ---------------------- */

const capsa_allocator *capsa__vfs_allocator(const capsa__vfs *vfs)
{
    return vfs->a;
}

int capsa__vfs_is_mount(const capsa__vnode *n)
{
    return n->is_mount;
}

uint64_t capsa__vfs_changed(const capsa__vnode *n)
{
    return n->chg;
}

void capsa__vfs_as_on_host(capsa__vnode *n)
{
    n->chg = 0;
}

const capsa__vfs_dent *capsa__vfs_dir_entry(const capsa__vnode *d, const char *name, size_t len)
{
    int found;
    size_t i = dir_find(d, name, len, &found);
    return found ? &d->u.dir.ents[i] : NULL;
}

void capsa__vfs_entry_as_on_host(capsa__vnode *d, const char *name, size_t len)
{
    int found;
    size_t i = dir_find(d, name, len, &found);
    if (found) {
        d->u.dir.ents[i].gen = 0;
        d->u.dir.ents[i].node->chg = 0;
    }
}

unsigned capsa__vfs_host_mode(const capsa__vnode *n)
{
    return n->type == CAPSA__VFS_FILE ? n->u.file.host_mode : 0;
}

void capsa__vfs_set_host_mode(capsa__vnode *n, unsigned mode)
{
    if (n->type == CAPSA__VFS_FILE)
        n->u.file.host_mode = mode;
}

const char *capsa__vfs_link_target(const capsa__vnode *n, size_t *len)
{
    if (n->type != CAPSA__VFS_SYMLINK) {
        *len = 0;
        return NULL;
    }
    *len = n->u.link.len;
    return n->u.link.target;
}

/* ---- paths ---------------------------------------------------------------------- */

/* One string being resolved: the path itself, or a symlink target met on the way. */
typedef struct frame {
    const char *p;
    size_t len, pos;
} frame;

/* Fills *w at the end of a walk: the last component name[0..len), the directory
 * that holds it (NULL for "." and ".."), the node it names (NULL: none yet), and
 * whether the path ended in '/'. Returns 0. */
static int walk_end(capsa__vfs_where *w, capsa__vnode *dir, const char *name, size_t len,
                    capsa__vnode *node, int slash)
{
    w->dir = dir;
    memcpy(w->name, name, len);
    w->name[len] = '\0';
    w->node = node;
    w->trailing_slash = slash;
    return 0;
}

/* Resolution keeps a stack of frames rather than splicing symlink targets into a
 * copy of the path: nothing is allocated, and targets are borrowed from the tree,
 * which does not change during a walk. The guest's confinement is an invariant:
 * the current directory stays within base's subtree, because ".." at base and
 * absolute paths (unless base is the root) are refused. */
int capsa__vfs_walk(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len,
                    unsigned flags, int who, capsa__vfs_where *w)
{
    w->dir = NULL;
    w->name[0] = '\0';
    w->node = NULL;
    w->trailing_slash = 0;
    w->via_link = 0;
    int e = capsa__vfs_check_path(path, len);
    if (e)
        return e;
    if (len == 0)
        return CAPSA__WASI_ENOENT;
    if (!base)
        base = vfs->root;
    if (base->type != CAPSA__VFS_DIR)
        return CAPSA__WASI_ENOTDIR;
    int confined = who != CAPSA__VFS_HOST;
    frame st[CAPSA__VFS_SYMLOOP_MAX + 1];
    int top = 0, follows = 0;
    st[0] = (frame){ path, len, 0 };
    capsa__vnode *cur = base;
    if (path[0] == '/') {
        if (confined && base != vfs->root)
            return CAPSA__WASI_ENOTCAPABLE;
        cur = vfs->root;
    }
    for (;;) {
        frame *f = &st[top];
        while (f->pos < f->len && f->p[f->pos] == '/')
            f->pos++;
        if (f->pos == f->len) {
            if (top == 0)
                break;
            top--;
            continue;
        }
        const char *c = f->p + f->pos;
        size_t cl = 0;
        while (f->pos < f->len && f->p[f->pos] != '/')
            f->pos++, cl++;
        /* The component is the last when no frame has another one after it; it
         * has a trailing slash when some frame still holds slashes. */
        int final = 1, slash = 0;
        for (int i = top; i >= 0 && final; i--) {
            size_t k = st[i].pos;
            while (k < st[i].len && st[i].p[k] == '/')
                k++;
            if (k < st[i].len)
                final = 0;
            else if (st[i].pos < st[i].len)
                slash = 1;
        }
        if (cl == 1 && c[0] == '.') {
            if (final)
                return walk_end(w, NULL, ".", 1, cur, slash);
            continue;
        }
        if (cl == 2 && c[0] == '.' && c[1] == '.') {
            if (confined && cur == base)
                return CAPSA__WASI_ENOTCAPABLE;
            if (cur != vfs->root) {
                if (!cur->u.dir.parent)
                    return CAPSA__WASI_ENOENT; /* a removed directory */
                cur = cur->u.dir.parent;
            }
            if (final)
                return walk_end(w, NULL, "..", 2, cur, slash);
            continue;
        }
        int found;
        size_t idx = dir_find(cur, c, cl, &found);
        if (!found) {
            if (!final) {
                w->dir = cur; /* the deepest directory that exists */
                return CAPSA__WASI_ENOENT;
            }
            return walk_end(w, cur, c, cl, NULL, slash);
        }
        capsa__vnode *n = cur->u.dir.ents[idx].node;
        if (n->type == CAPSA__VFS_SYMLINK && (!final || (flags & CAPSA__VFS_FOLLOW))) {
            if (++follows > CAPSA__VFS_SYMLOOP_MAX)
                return CAPSA__WASI_ELOOP;
            w->via_link = 1;
            if (n->u.link.target[0] == '/') {
                if (confined && base != vfs->root)
                    return CAPSA__WASI_ENOTCAPABLE;
                cur = vfs->root;
            }
            st[++top] = (frame){ n->u.link.target, n->u.link.len, 0 };
            continue;
        }
        if (final) {
            if (slash && n->type != CAPSA__VFS_DIR)
                return CAPSA__WASI_ENOTDIR;
            return walk_end(w, cur, c, cl, n, slash);
        }
        if (n->type != CAPSA__VFS_DIR)
            return CAPSA__WASI_ENOTDIR;
        cur = n;
    }
    /* Only slashes (or symlinks to "/"): the path names a directory itself. */
    w->node = cur;
    w->trailing_slash = 1;
    return 0;
}

/* ---- operations on paths ---------------------------------------------------------- */

/* The checks before a new entry is made where walk w ended: nothing may be there
 * (EEXIST, also for "." and ".."), a name ending in '/' makes a directory only
 * (ENOENT for anything else), and its directory must take the change. */
static int can_add(const capsa__vfs *vfs, const capsa__vfs_where *w, int is_dir, int who)
{
    if (w->node || !w->dir)
        return CAPSA__WASI_EEXIST;
    if (w->trailing_slash && !is_dir)
        return CAPSA__WASI_ENOENT;
    return allow_at(vfs, w, w->dir, CAPSA__VFS_CHANGE, who);
}

/* capsa__vfs_walk to a node that must exist: ENOENT when the path names none. */
static int walk_to(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len,
                   unsigned flags, int who, capsa__vfs_where *w)
{
    int e = capsa__vfs_walk(vfs, base, path, len, flags, who, w);
    if (!e && !w->node)
        e = CAPSA__WASI_ENOENT;
    return e;
}

int capsa__vfs_open(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len,
                    unsigned lookup_flags, unsigned oflags, unsigned access, int who,
                    capsa__vnode **out)
{
    *out = NULL;
    int creat = (oflags & CAPSA__VFS_O_CREAT) != 0;
    int excl = creat && (oflags & CAPSA__VFS_O_EXCL);
    /* O_CREAT|O_EXCL never follows a final symlink: it names an existing entry. */
    unsigned lf = excl ? lookup_flags & ~(unsigned)CAPSA__VFS_FOLLOW : lookup_flags;
    capsa__vfs_where w;
    int e = capsa__vfs_walk(vfs, base, path, len, lf, who, &w);
    if (e)
        return e;
    capsa__vnode *n = w.node;
    if (!n) {
        if (!creat)
            return CAPSA__WASI_ENOENT;
        if (w.trailing_slash)
            return CAPSA__WASI_EISDIR; /* as Linux: a new regular file cannot end in '/' */
        if (oflags & CAPSA__VFS_O_DIRECTORY)
            return CAPSA__WASI_EINVAL;
        if ((e = allow_at(vfs, &w, w.dir, CAPSA__VFS_CHANGE, who)))
            return e;
        if ((e = make_node(vfs, w.dir, w.name, strlen(w.name), CAPSA__VFS_FILE, NULL, 0, &n)))
            return e;
        n->refs++;
        *out = n;
        return 0;
    }
    if (excl)
        return CAPSA__WASI_EEXIST;
    if (n->type == CAPSA__VFS_SYMLINK)
        return CAPSA__WASI_ELOOP;
    if ((oflags & CAPSA__VFS_O_DIRECTORY) && n->type != CAPSA__VFS_DIR)
        return CAPSA__WASI_ENOTDIR;
    if (creat && n->type == CAPSA__VFS_DIR && !(oflags & CAPSA__VFS_O_DIRECTORY))
        return CAPSA__WASI_EISDIR; /* POSIX: O_CREAT without O_DIRECTORY on a directory */
    unsigned writes = (1u << CAPSA__VFS_WRITE) | (1u << CAPSA__VFS_APPEND_OP);
    if (n->type == CAPSA__VFS_DIR && ((access & writes) || (oflags & CAPSA__VFS_O_TRUNC)))
        return CAPSA__WASI_EISDIR;
    static const capsa__vfs_op ops[] = { CAPSA__VFS_READ, CAPSA__VFS_WRITE, CAPSA__VFS_APPEND_OP };
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if ((access & (1u << ops[i])) && (e = allow_at(vfs, &w, n, ops[i], who)))
            return e;
    if (oflags & CAPSA__VFS_O_TRUNC) {
        if ((e = allow_at(vfs, &w, n, CAPSA__VFS_WRITE, who)))
            return e;
        if (n->type == CAPSA__VFS_FILE) { /* the null device has nothing to cut */
            vfs->bytes -= n->u.file.size;
            vfs_dealloc(vfs, n->u.file.data);
            n->u.file.data = NULL;
            n->u.file.size = n->u.file.cap = 0;
            n->mtim = n->ctim = now_ns();
            n->chg = vfs->gen;
        }
    }
    n->refs++;
    *out = n;
    return 0;
}

int capsa__vfs_mkdir(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len, int who)
{
    capsa__vfs_where w;
    int e = capsa__vfs_walk(vfs, base, path, len, 0, who, &w);
    if (e || (e = can_add(vfs, &w, 1, who)))
        return e;
    capsa__vnode *n;
    return make_node(vfs, w.dir, w.name, strlen(w.name), CAPSA__VFS_DIR, NULL, 0, &n);
}

/* The error for removing or renaming what a walk gave without a parent entry:
 * ".", "..", the base or the root. */
static int no_parent_error(const capsa__vfs_where *w, int for_rmdir)
{
    if (for_rmdir && strcmp(w->name, ".") == 0)
        return CAPSA__WASI_EINVAL; /* as rmdir(2) */
    if (!for_rmdir || w->node->is_mount || !w->name[0])
        return CAPSA__WASI_EBUSY;
    return CAPSA__WASI_ENOTEMPTY; /* "..": its parent holds at least this directory */
}

/* Takes the entry w names out of its directory, stamping the times, and releases
 * its node. */
static void unlink_entry(capsa__vfs *vfs, const capsa__vfs_where *w, capsa__vnode *n)
{
    int found;
    size_t idx = dir_find(w->dir, w->name, strlen(w->name), &found);
    dir_remove(vfs, w->dir, idx);
    w->dir->mtim = w->dir->ctim = n->ctim = now_ns();
    node_release(vfs, n);
}

/* Empties directory top, whose subtree holds nothing pinned: from the last entry
 * of each directory up, descending into non-empty subdirectories and climbing
 * back by parent links, each directory removed from its parent once empty. */
static void empty_tree(capsa__vfs *vfs, capsa__vnode *top)
{
    uint64_t now = now_ns();
    capsa__vnode *d = top;
    for (;;) {
        if (d->u.dir.n) {
            capsa__vnode *c = d->u.dir.ents[d->u.dir.n - 1].node;
            if (c->type == CAPSA__VFS_DIR && c->u.dir.n) {
                d = c;
                continue;
            }
            dir_remove(vfs, d, d->u.dir.n - 1);
            c->ctim = now;
            node_release(vfs, c);
        } else if (d == top) {
            break;
        } else {
            d = d->u.dir.parent;
        }
    }
}

/* rmdir, and with recursive set the whole tree below the directory too. */
static int remove_dir(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len,
                      int recursive, int who)
{
    capsa__vfs_where w;
    int e = walk_to(vfs, base, path, len, 0, who, &w);
    if (e)
        return e;
    capsa__vnode *n = w.node;
    if (n->type != CAPSA__VFS_DIR)
        return CAPSA__WASI_ENOTDIR;
    if (!w.dir)
        return no_parent_error(&w, 1);
    if (n->is_mount)
        return CAPSA__WASI_EBUSY;
    if ((e = allow_at(vfs, &w, w.dir, CAPSA__VFS_CHANGE, who)))
        return e;
    if (n->u.dir.n) {
        if (!recursive)
            return CAPSA__WASI_ENOTEMPTY;
        if ((e = allow_at(vfs, &w, n, CAPSA__VFS_CHANGE, who)))
            return e;
        /* Refuse before removing anything when something below is what nothing
           may remove: a mount root (for the guest also the only directory below
           that it might not change) or the null device. */
        capsa__vfs_tw t;
        const dent *de;
        capsa__vfs_tw_start(&t, n);
        for (int ev; (ev = capsa__vfs_tw_step(&t, &de)) != CAPSA__VFS_TW_END;) {
            if (ev != CAPSA__VFS_TW_ENTRY)
                continue;
            if (pinned(de->node))
                return CAPSA__WASI_EBUSY;
            if (de->node->type == CAPSA__VFS_DIR)
                capsa__vfs_tw_descend(&t, de->node);
        }
        empty_tree(vfs, n);
    }
    unlink_entry(vfs, &w, n);
    return 0;
}

int capsa__vfs_rmdir(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len, int who)
{
    return remove_dir(vfs, base, path, len, 0, who);
}

int capsa__vfs_unlink(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len, int who)
{
    capsa__vfs_where w;
    int e = walk_to(vfs, base, path, len, 0, who, &w);
    if (e)
        return e;
    capsa__vnode *n = w.node;
    if (n->type == CAPSA__VFS_DIR)
        return CAPSA__WASI_EISDIR;
    if ((e = allow_at(vfs, &w, w.dir, CAPSA__VFS_CHANGE, who)))
        return e;
    if (pinned(n))
        return CAPSA__WASI_EBUSY; /* the null device: not even the host removes it */
    unlink_entry(vfs, &w, n);
    return 0;
}

int capsa__vfs_remove(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len,
                      int recursive, int who)
{
    capsa__vfs_stat st;
    int e = capsa__vfs_stat(vfs, base, path, len, 0, who, &st);
    if (e)
        return e;
    if (st.type == CAPSA__VFS_DIR)
        return remove_dir(vfs, base, path, len, recursive, who);
    return capsa__vfs_unlink(vfs, base, path, len, who);
}

int capsa__vfs_rename(capsa__vfs *vfs, capsa__vnode *base1, const char *p1, size_t l1,
                      capsa__vnode *base2, const char *p2, size_t l2, int who)
{
    capsa__vfs_where s, d;
    int e = capsa__vfs_walk(vfs, base1, p1, l1, 0, who, &s);
    if (e)
        return e;
    if ((e = capsa__vfs_walk(vfs, base2, p2, l2, 0, who, &d)))
        return e;
    capsa__vnode *n = s.node, *old = d.node;
    if (!n)
        return CAPSA__WASI_ENOENT;
    if (!s.dir || !d.dir || n->is_mount || (old && old->is_mount))
        return CAPSA__WASI_EBUSY;
    if ((e = allow_at(vfs, &s, s.dir, CAPSA__VFS_CHANGE, who)) ||
        (e = allow_at(vfs, &d, d.dir, CAPSA__VFS_CHANGE, who)))
        return e;
    if (pinned(n) || (old && pinned(old)))
        return CAPSA__WASI_EBUSY; /* the null device, moved or replaced */
    if (s.dir->mnt != d.dir->mnt)
        return CAPSA__WASI_EXDEV;
    if (d.trailing_slash && n->type != CAPSA__VFS_DIR)
        return CAPSA__WASI_ENOTDIR;
    if (old == n)
        return 0; /* two names of one node: POSIX does nothing */
    if (n->type == CAPSA__VFS_DIR)
        for (capsa__vnode *p = d.dir; p; p = p->u.dir.parent)
            if (p == n)
                return CAPSA__WASI_EINVAL; /* into its own subtree */
    if (old) {
        if (n->type == CAPSA__VFS_DIR && old->type != CAPSA__VFS_DIR)
            return CAPSA__WASI_ENOTDIR;
        if (n->type != CAPSA__VFS_DIR && old->type == CAPSA__VFS_DIR)
            return CAPSA__WASI_EISDIR;
        if (old->type == CAPSA__VFS_DIR && old->u.dir.n)
            return CAPSA__WASI_ENOTEMPTY;
    }
    if (d.dir->links == 0)
        return CAPSA__WASI_ENOENT;
    if (n->type == CAPSA__VFS_DIR && d.dir != s.dir) {
        /* Moving a directory down moves its whole subtree down. */
        size_t at = capsa__vfs_depth(d.dir) + 1;
        if (at > capsa__vfs_depth(s.dir) + 1 &&
            (at > CAPSA__VFS_DEPTH_MAX || deeper_than(n, CAPSA__VFS_DEPTH_MAX - at)))
            return CAPSA__WASI_ENAMETOOLONG;
    }
    size_t dlen = strlen(d.name);
    char *nm = NULL;
    if (!old) {
        if (dir_reserve(vfs, d.dir) || !(nm = vfs_strndup(vfs, d.name, dlen)))
            return CAPSA__WASI_ENOMEM;
    }
    /* Nothing fails from here on. */
    int found;
    size_t si = dir_find(s.dir, s.name, strlen(s.name), &found);
    dir_remove(vfs, s.dir, si);
    size_t di = dir_find(d.dir, d.name, dlen, &found);
    if (old) {
        d.dir->u.dir.ents[di].node = n;
        d.dir->u.dir.ents[di].gen = d.dir->chg = vfs->gen;
        n->links++;
        if (n->type == CAPSA__VFS_DIR) {
            n->u.dir.parent = d.dir;
            d.dir->u.dir.nsub++;
        }
        old->links--;
        if (old->type == CAPSA__VFS_DIR) {
            old->u.dir.parent = NULL;
            d.dir->u.dir.nsub--;
        }
    } else {
        dir_insert(vfs, d.dir, di, nm, dlen, n);
    }
    uint64_t t = now_ns();
    s.dir->mtim = s.dir->ctim = d.dir->mtim = d.dir->ctim = n->ctim = t;
    if (old) {
        old->ctim = t;
        node_release(vfs, old);
    }
    return 0;
}

int capsa__vfs_link(capsa__vfs *vfs, capsa__vnode *base1, const char *p1, size_t l1,
                    unsigned lookup_flags, capsa__vnode *base2, const char *p2, size_t l2, int who)
{
    capsa__vfs_where s, d;
    int e = capsa__vfs_walk(vfs, base1, p1, l1, lookup_flags, who, &s);
    if (e)
        return e;
    if ((e = capsa__vfs_walk(vfs, base2, p2, l2, 0, who, &d)))
        return e;
    capsa__vnode *n = s.node;
    if (!n)
        return CAPSA__WASI_ENOENT;
    if (n->type == CAPSA__VFS_DIR || n->type == CAPSA__VFS_CHARDEV)
        return CAPSA__WASI_EPERM; /* the null device has one name, in /dev */
    if ((e = can_add(vfs, &d, 0, who)))
        return e;
    if (n->mnt != d.dir->mnt)
        return CAPSA__WASI_EXDEV;
    if (d.dir->links == 0 || n->links == 0)
        return CAPSA__WASI_ENOENT;
    size_t dlen = strlen(d.name);
    char *nm = NULL;
    if (dir_reserve(vfs, d.dir) || !(nm = vfs_strndup(vfs, d.name, dlen)))
        return CAPSA__WASI_ENOMEM;
    int found;
    size_t di = dir_find(d.dir, d.name, dlen, &found);
    dir_insert(vfs, d.dir, di, nm, dlen, n);
    d.dir->mtim = d.dir->ctim = n->ctim = now_ns();
    return 0;
}

int capsa__vfs_symlink(capsa__vfs *vfs, const char *target, size_t tlen, capsa__vnode *base,
                       const char *path, size_t len, int who)
{
    int e = capsa__vfs_check_path(target, tlen);
    if (e)
        return e;
    if (tlen == 0)
        return CAPSA__WASI_ENOENT;
    capsa__vfs_where w;
    if ((e = capsa__vfs_walk(vfs, base, path, len, 0, who, &w)) || (e = can_add(vfs, &w, 0, who)))
        return e;
    capsa__vnode *n;
    return make_node(vfs, w.dir, w.name, strlen(w.name), CAPSA__VFS_SYMLINK, target, tlen, &n);
}

int capsa__vfs_readlink(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len,
                        int who, const char **target, size_t *tlen)
{
    capsa__vfs_where w;
    int e = walk_to(vfs, base, path, len, 0, who, &w);
    if (e)
        return e;
    if (w.node->type != CAPSA__VFS_SYMLINK)
        return CAPSA__WASI_EINVAL;
    if ((e = capsa__vfs_allow(vfs, w.node, CAPSA__VFS_READ, who)))
        return e;
    *target = w.node->u.link.target;
    *tlen = w.node->u.link.len;
    return 0;
}

int capsa__vfs_stat_path(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len,
                         unsigned lookup_flags, int who, capsa__vfs_stat *st)
{
    capsa__vfs_where w;
    int e = walk_to(vfs, base, path, len, lookup_flags, who, &w);
    if (e)
        return e;
    capsa__vfs_stat_node(w.node, st);
    return 0;
}

/* The parent directory part of abs ("/a/b" -> "/a", "/a" -> "/"). */
static void parent_of(const char *abs, char out[CAPSA__VFS_PATH_MAX + 1])
{
    size_t n = strlen(abs);
    while (n > 1 && abs[n - 1] == '/')
        n--;
    while (n > 0 && abs[n - 1] != '/')
        n--;
    while (n > 1 && abs[n - 1] == '/')
        n--;
    if (n == 0)
        n = 1;
    memcpy(out, abs, n);
    out[n] = '\0';
}

int capsa__vfs_write_file(capsa__vfs *vfs, const char *abs, const void *data, size_t len)
{
    char dir[CAPSA__VFS_PATH_MAX + 1];
    parent_of(abs, dir);
    capsa__vnode *root = capsa__vfs_root(vfs);
    int err = capsa__vfs_make_dirs(vfs, dir);
    if (err)
        return err;
    capsa__vfs_stat st;
    int existed = capsa__vfs_stat(vfs, root, abs, strlen(abs), CAPSA__VFS_FOLLOW, CAPSA__VFS_HOST,
                                  &st) == 0;
    capsa__vnode *n = NULL;
    err = capsa__vfs_open(vfs, root, abs, strlen(abs), CAPSA__VFS_FOLLOW, CAPSA__VFS_O_CREAT,
                          1u << CAPSA__VFS_WRITE, CAPSA__VFS_HOST, &n);
    if (err)
        return err;
    /* Write over the old contents, then cut them: if the write is refused (a
       quota), the file is left as it was. */
    uint64_t end = 0;
    err = capsa__vfs_write(vfs, n, 0, data, len, 0, &end, CAPSA__VFS_HOST);
    if (!err)
        err = capsa__vfs_truncate(vfs, n, len, CAPSA__VFS_HOST);
    capsa__vfs_unref(vfs, n);
    if (err && !existed)
        capsa__vfs_unlink(vfs, root, abs, strlen(abs), CAPSA__VFS_HOST);
    return err;
}

/* ---- operations on nodes ---------------------------------------------------------- */

/* The checks of an access to the bytes of an open node: a directory is EISDIR, a
 * symlink EINVAL (only files and the null device hold bytes), then
 * capsa__vfs_allow. */
static int bytes_allowed(const capsa__vfs *vfs, const capsa__vnode *n, capsa__vfs_op op, int who)
{
    if (n->type == CAPSA__VFS_DIR)
        return CAPSA__WASI_EISDIR;
    if (n->type != CAPSA__VFS_FILE && n->type != CAPSA__VFS_CHARDEV)
        return CAPSA__WASI_EINVAL;
    return capsa__vfs_allow(vfs, n, op, who);
}

int capsa__vfs_read(capsa__vfs *vfs, capsa__vnode *n, uint64_t offset, void *buf, size_t len,
                    size_t *nread, int who)
{
    *nread = 0;
    int e = bytes_allowed(vfs, n, CAPSA__VFS_READ, who);
    if (e)
        return e;
    if (n->type == CAPSA__VFS_CHARDEV)
        return 0; /* the null device: always at its end */
    if (offset >= n->u.file.size || len == 0)
        return 0;
    uint64_t avail = n->u.file.size - offset;
    size_t k = avail < len ? (size_t)avail : len;
    memcpy(buf, n->u.file.data + offset, k);
    *nread = k;
    n->atim = now_ns();
    return 0;
}

int capsa__vfs_write(capsa__vfs *vfs, capsa__vnode *n, uint64_t offset, const void *data,
                     size_t len, int append, uint64_t *end, int who)
{
    int e = bytes_allowed(vfs, n, append ? CAPSA__VFS_APPEND_OP : CAPSA__VFS_WRITE, who);
    if (e)
        return e;
    if (n->type == CAPSA__VFS_CHARDEV) {
        /* The null device: every byte taken, none kept, no quota used. Its
           position does not move, as on Linux. */
        if (end)
            *end = append ? 0 : offset;
        return 0;
    }
    uint64_t size = n->u.file.size;
    uint64_t off = append ? size : offset;
    if (len > UINT64_MAX - off)
        return CAPSA__WASI_EFBIG;
    uint64_t stop = off + len;
    if (len == 0) {
        if (end)
            *end = off;
        return 0;
    }
    if (stop > vfs->q.max_file)
        return CAPSA__WASI_EDQUOT;
    if (stop > size && capsa__vfs_quota_bytes(vfs, stop - size))
        return CAPSA__WASI_ENOSPC;
    if ((e = file_reserve(vfs, n, stop)))
        return e;
    if (off > size)
        memset(n->u.file.data + size, 0, (size_t)(off - size));
    memcpy(n->u.file.data + off, data, len);
    if (stop > size) {
        vfs->bytes += stop - size;
        n->u.file.size = stop;
    }
    n->mtim = n->ctim = now_ns();
    n->chg = vfs->gen;
    if (end)
        *end = stop;
    return 0;
}

int capsa__vfs_truncate(capsa__vfs *vfs, capsa__vnode *n, uint64_t size, int who)
{
    int e = bytes_allowed(vfs, n, CAPSA__VFS_WRITE, who);
    if (e)
        return e;
    if (n->type == CAPSA__VFS_CHARDEV)
        return 0; /* the null device stays empty */
    uint64_t old = n->u.file.size;
    if (size > vfs->q.max_file)
        return CAPSA__WASI_EDQUOT;
    if (size > old) {
        if (capsa__vfs_quota_bytes(vfs, size - old))
            return CAPSA__WASI_ENOSPC;
        if ((e = file_reserve(vfs, n, size)))
            return e;
        memset(n->u.file.data + old, 0, (size_t)(size - old));
        vfs->bytes += size - old;
    } else {
        vfs->bytes -= old - size;
        if (size == 0) {
            vfs_dealloc(vfs, n->u.file.data);
            n->u.file.data = NULL;
            n->u.file.cap = 0;
        }
    }
    n->u.file.size = size;
    n->mtim = n->ctim = now_ns();
    n->chg = vfs->gen;
    return 0;
}

int capsa__vfs_set_times(capsa__vfs *vfs, capsa__vnode *n, const uint64_t *atim,
                         const uint64_t *mtim, int who)
{
    int e = capsa__vfs_allow(vfs, n, CAPSA__VFS_SETATTR, who);
    if (e)
        return e;
    uint64_t t = now_ns();
    if (atim)
        n->atim = *atim == UINT64_MAX ? t : *atim;
    if (mtim)
        n->mtim = *mtim == UINT64_MAX ? t : *mtim;
    n->ctim = t;
    if (n->type == CAPSA__VFS_FILE)
        n->chg = vfs->gen; /* a file's times are written back with it */
    return 0;
}

const uint8_t *capsa__vfs_file_data(const capsa__vnode *n, uint64_t *len)
{
    if (n->type != CAPSA__VFS_FILE) {
        *len = 0;
        return NULL;
    }
    *len = n->u.file.size;
    return n->u.file.data;
}

int capsa__vfs_readdir(capsa__vfs *vfs, capsa__vnode *d, uint64_t cookie, capsa__vfs_dirent *e,
                       int who)
{
    if (d->type != CAPSA__VFS_DIR)
        return CAPSA__WASI_ENOTDIR;
    int r = capsa__vfs_allow(vfs, d, CAPSA__VFS_READ, who);
    if (r)
        return r;
    if (cookie == 0) {
        d->atim = now_ns();
        *e = (capsa__vfs_dirent){ ".", 1, CAPSA__VFS_DIR, d->ino, 1 };
        return 0;
    }
    if (cookie == 1) {
        const capsa__vnode *p = d->u.dir.parent ? d->u.dir.parent : d;
        *e = (capsa__vfs_dirent){ "..", 2, CAPSA__VFS_DIR, p->ino, 2 };
        return 0;
    }
    if (cookie - 2 >= d->u.dir.n)
        return CAPSA__WASI_ENOENT;
    const dent *de = &d->u.dir.ents[cookie - 2];
    *e = (capsa__vfs_dirent){ de->name, de->len, de->node->type, de->node->ino, cookie + 1 };
    return 0;
}
