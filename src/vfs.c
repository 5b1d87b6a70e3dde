/* In-memory filesystem of one sandbox: the tree of directories, files and
 * symlinks (and /dev/null), the mounts that decide what the guest may do, the
 * quotas, and the copies of trees in and out (host directories and tar streams). */
#include "vfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Who asks, beyond the two public values: the host's permissions with the
 * guest's path rules. Tar import resolves names as the guest would (nothing may
 * leave the target directory) but writes wherever the host may. */
#define WHO_CONFINED 2

#define DEFAULT_MAX_BYTES (64ull << 20)
#define DEFAULT_MAX_ENTRIES 10000ull

typedef struct dent {
    char *name; /* NUL-terminated, owned */
    size_t len;
    capsa__vnode *node;
    uint64_t gen; /* the generation that bound name to node; 0: copied from the host */
} dent;

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

/* Formats msg (when the caller gave one) and returns e, so error paths read
 * `return set_msg(...)`. */
static int set_msg(char *msg, size_t msgsize, int e, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int set_msg(char *msg, size_t msgsize, int e, const char *fmt, ...)
{
    if (msg && msgsize) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msgsize, fmt, ap);
        va_end(ap);
    }
    return e;
}

/* Whether s[0..n) is well-formed UTF-8: no overlong forms, surrogates or code
 * points above U+10FFFF. */
static int utf8_valid(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t k;
        uint32_t cp, min;
        if ((c & 0xE0) == 0xC0) {
            k = 1, cp = c & 0x1F, min = 0x80;
        } else if ((c & 0xF0) == 0xE0) {
            k = 2, cp = c & 0x0F, min = 0x800;
        } else if ((c & 0xF8) == 0xF0) {
            k = 3, cp = c & 0x07, min = 0x10000;
        } else {
            return 0;
        }
        if (n - i <= k)
            return 0;
        for (size_t j = 1; j <= k; j++) {
            unsigned d = s[i + j];
            if ((d & 0xC0) != 0x80)
                return 0;
            cp = cp << 6 | (d & 0x3F);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return 0;
        i += k + 1;
    }
    return 1;
}

/* The checks every path (and symlink target) passes before it is used. */
static int check_path(const char *p, size_t len)
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

/* A depth-first walk of the tree below a directory that needs no allocation:
 * each directory keeps its own cursor (u.dir.visit) and the walk climbs back by
 * parent links. The tree must not change while it runs. tw_step gives each
 * entry (TW_ENTRY; the caller may then tw_descend into a directory), and
 * TW_LEAVE when the current directory is done (e names it in its parent, NULL
 * for the top), then TW_END. */
typedef struct tw {
    capsa__vnode *top, *d;
    size_t depth; /* of d, below top */
    int done;
} tw;

enum { TW_END, TW_ENTRY, TW_LEAVE };

static void tw_start(tw *w, capsa__vnode *top)
{
    top->u.dir.visit = 0;
    *w = (tw){ top, top, 0, 0 };
}

static void tw_descend(tw *w, capsa__vnode *c)
{
    c->u.dir.visit = 0;
    w->d = c;
    w->depth++;
}

static int tw_step(tw *w, const dent **e)
{
    capsa__vnode *d = w->d;
    if (d->u.dir.visit < d->u.dir.n) {
        *e = &d->u.dir.ents[d->u.dir.visit++];
        return TW_ENTRY;
    }
    if (d == w->top) {
        *e = NULL;
        if (w->done)
            return TW_END;
        w->done = 1;
        return TW_LEAVE;
    }
    w->d = d->u.dir.parent;
    w->depth--;
    *e = &w->d->u.dir.ents[w->d->u.dir.visit - 1];
    return TW_LEAVE;
}

/* Points every node below mount root m (down to the next mount roots) at m. */
static void retag(capsa__vnode *m)
{
    tw w;
    const dent *e;
    tw_start(&w, m);
    for (int ev; (ev = tw_step(&w, &e)) != TW_END;) {
        if (ev != TW_ENTRY || (e->node->type == CAPSA__VFS_DIR && e->node->is_mount))
            continue;
        e->node->mnt = m;
        if (e->node->type == CAPSA__VFS_DIR)
            tw_descend(&w, e->node);
    }
}

/* How many levels below the root directory d is (the root is 0, /workspace 1). */
static size_t depth_of(const capsa__vnode *d)
{
    size_t k = 0;
    for (; d->u.dir.parent; d = d->u.dir.parent)
        k++;
    return k;
}

/* Whether directories nest more than `room` levels below directory d. */
static int deeper_than(capsa__vnode *d, size_t room)
{
    tw w;
    const dent *e;
    tw_start(&w, d);
    for (int ev; (ev = tw_step(&w, &e)) != TW_END;) {
        if (ev != TW_ENTRY || e->node->type != CAPSA__VFS_DIR)
            continue;
        if (w.depth + 1 > room)
            return 1;
        tw_descend(&w, e->node);
    }
    return 0;
}

static int quota_bytes(const capsa__vfs *vfs, uint64_t add)
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
    if (type == CAPSA__VFS_DIR && depth_of(dir) + 1 > CAPSA__VFS_DEPTH_MAX)
        return CAPSA__WASI_ENAMETOOLONG;
    if (vfs->entries >= vfs->q.max_entries)
        return CAPSA__WASI_ENOSPC;
    if (type == CAPSA__VFS_SYMLINK && quota_bytes(vfs, tlen))
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
 * resolves it, following symlinks: on 0, *out is the directory, one that the
 * caller may fill (for the host through a symlink: one the guest may change). */
static int mkdirs(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len, int who,
                  capsa__vnode **out)
{
    for (size_t i = 1; i <= len; i++) {
        if (i < len && !(path[i] == '/' && path[i - 1] != '/'))
            continue;
        int e = capsa__vfs_mkdir(vfs, base, path, i, who);
        if (e && e != CAPSA__WASI_EEXIST)
            return e;
    }
    capsa__vfs_where w;
    int e = capsa__vfs_walk(vfs, base, path, len, CAPSA__VFS_FOLLOW, who, &w);
    if (e)
        return e;
    if (!w.node)
        return CAPSA__WASI_ENOENT;
    if (w.node->type != CAPSA__VFS_DIR)
        return CAPSA__WASI_ENOTDIR;
    /* Every caller fills the directory: through a link, only where the guest
       may change it. */
    if ((e = allow_at(vfs, &w, w.node, CAPSA__VFS_CHANGE, who)))
        return e;
    *out = w.node;
    return 0;
}

int capsa__vfs_mount(capsa__vfs *vfs, const char *path, capsa__vfs_mode mode)
{
    if (mode != CAPSA__VFS_RO && mode != CAPSA__VFS_RW && mode != CAPSA__VFS_APPEND)
        return CAPSA__WASI_EINVAL;
    capsa__vnode *d;
    int e = mkdirs(vfs, vfs->root, path, strlen(path), CAPSA__VFS_HOST, &d);
    if (e)
        return e;
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

/* ---- paths ---------------------------------------------------------------------- */

/* One string being resolved: the path itself, or a symlink target met on the way. */
typedef struct frame {
    const char *p;
    size_t len, pos;
} frame;

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
    int e = check_path(path, len);
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
            if (final) {
                strcpy(w->name, ".");
                w->node = cur;
                w->trailing_slash = slash;
                return 0;
            }
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
            if (final) {
                strcpy(w->name, "..");
                w->node = cur;
                w->trailing_slash = slash;
                return 0;
            }
            continue;
        }
        int found;
        size_t idx = dir_find(cur, c, cl, &found);
        if (!found) {
            if (!final) {
                w->dir = cur; /* the deepest directory that exists */
                return CAPSA__WASI_ENOENT;
            }
            w->dir = cur;
            memcpy(w->name, c, cl);
            w->name[cl] = '\0';
            w->trailing_slash = slash;
            return 0;
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
            w->dir = cur;
            memcpy(w->name, c, cl);
            w->name[cl] = '\0';
            w->node = n;
            w->trailing_slash = slash;
            return 0;
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
    if (e)
        return e;
    if (w.node || !w.dir)
        return CAPSA__WASI_EEXIST;
    if ((e = allow_at(vfs, &w, w.dir, CAPSA__VFS_CHANGE, who)))
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
    int e = capsa__vfs_walk(vfs, base, path, len, 0, who, &w);
    if (e)
        return e;
    capsa__vnode *n = w.node;
    if (!n)
        return CAPSA__WASI_ENOENT;
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
        tw t;
        const dent *de;
        tw_start(&t, n);
        for (int ev; (ev = tw_step(&t, &de)) != TW_END;) {
            if (ev != TW_ENTRY)
                continue;
            if (pinned(de->node))
                return CAPSA__WASI_EBUSY;
            if (de->node->type == CAPSA__VFS_DIR)
                tw_descend(&t, de->node);
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
    int e = capsa__vfs_walk(vfs, base, path, len, 0, who, &w);
    if (e)
        return e;
    capsa__vnode *n = w.node;
    if (!n)
        return CAPSA__WASI_ENOENT;
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
        size_t at = depth_of(d.dir) + 1;
        if (at > depth_of(s.dir) + 1 &&
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
    if (d.node || !d.dir)
        return CAPSA__WASI_EEXIST;
    if (d.trailing_slash)
        return CAPSA__WASI_ENOENT;
    if ((e = allow_at(vfs, &d, d.dir, CAPSA__VFS_CHANGE, who)))
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
    int e = check_path(target, tlen);
    if (e)
        return e;
    if (tlen == 0)
        return CAPSA__WASI_ENOENT;
    capsa__vfs_where w;
    if ((e = capsa__vfs_walk(vfs, base, path, len, 0, who, &w)))
        return e;
    if (w.node || !w.dir)
        return CAPSA__WASI_EEXIST;
    if (w.trailing_slash)
        return CAPSA__WASI_ENOENT;
    if ((e = allow_at(vfs, &w, w.dir, CAPSA__VFS_CHANGE, who)))
        return e;
    capsa__vnode *n;
    return make_node(vfs, w.dir, w.name, strlen(w.name), CAPSA__VFS_SYMLINK, target, tlen, &n);
}

int capsa__vfs_readlink(capsa__vfs *vfs, capsa__vnode *base, const char *path, size_t len,
                        int who, const char **target, size_t *tlen)
{
    capsa__vfs_where w;
    int e = capsa__vfs_walk(vfs, base, path, len, 0, who, &w);
    if (e)
        return e;
    if (!w.node)
        return CAPSA__WASI_ENOENT;
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
    int e = capsa__vfs_walk(vfs, base, path, len, lookup_flags, who, &w);
    if (e)
        return e;
    if (!w.node)
        return CAPSA__WASI_ENOENT;
    capsa__vfs_stat_node(w.node, st);
    return 0;
}

int capsa__vfs_make_dirs(capsa__vfs *vfs, const char *abs)
{
    char part[CAPSA__VFS_PATH_MAX + 1];
    size_t n = strlen(abs);
    for (size_t i = 1; i <= n; i++) {
        if (i < n && abs[i] != '/')
            continue;
        memcpy(part, abs, i);
        part[i] = '\0';
        int err = capsa__vfs_mkdir(vfs, capsa__vfs_root(vfs), part, i, CAPSA__VFS_HOST);
        if (err == CAPSA__WASI_EEXIST) {
            capsa__vfs_stat st;
            err = capsa__vfs_stat(vfs, capsa__vfs_root(vfs), part, i, CAPSA__VFS_FOLLOW, CAPSA__VFS_HOST, &st);
            if (!err && st.type != CAPSA__VFS_DIR)
                err = CAPSA__WASI_ENOTDIR;
        }
        if (err)
            return err;
    }
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

int capsa__vfs_read(capsa__vfs *vfs, capsa__vnode *n, uint64_t offset, void *buf, size_t len,
                    size_t *nread, int who)
{
    *nread = 0;
    if (n->type == CAPSA__VFS_DIR)
        return CAPSA__WASI_EISDIR;
    if (n->type != CAPSA__VFS_FILE && n->type != CAPSA__VFS_CHARDEV)
        return CAPSA__WASI_EINVAL;
    int e = capsa__vfs_allow(vfs, n, CAPSA__VFS_READ, who);
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
    if (n->type == CAPSA__VFS_DIR)
        return CAPSA__WASI_EISDIR;
    if (n->type != CAPSA__VFS_FILE && n->type != CAPSA__VFS_CHARDEV)
        return CAPSA__WASI_EINVAL;
    int e = capsa__vfs_allow(vfs, n, append ? CAPSA__VFS_APPEND_OP : CAPSA__VFS_WRITE, who);
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
    if (stop > size && quota_bytes(vfs, stop - size))
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
    if (n->type == CAPSA__VFS_DIR)
        return CAPSA__WASI_EISDIR;
    if (n->type != CAPSA__VFS_FILE && n->type != CAPSA__VFS_CHARDEV)
        return CAPSA__WASI_EINVAL;
    int e = capsa__vfs_allow(vfs, n, CAPSA__VFS_WRITE, who);
    if (e)
        return e;
    if (n->type == CAPSA__VFS_CHARDEV)
        return 0; /* the null device stays empty */
    uint64_t old = n->u.file.size;
    if (size > vfs->q.max_file)
        return CAPSA__WASI_EDQUOT;
    if (size > old) {
        if (quota_bytes(vfs, size - old))
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

/* ---- host directories ------------------------------------------------------------- */

/* One level of a walk of host directories: the directory (its descriptor, and
 * its entry stream once read), the length of the path in progress before its
 * name, and the VFS directory it pairs with. */
typedef struct hlevel {
    int fd;
    DIR *dir;
    size_t plen;
    capsa__vnode *node;
    int fresh; /* export: the directory is new at this name, write all of it */
} hlevel;

/* How many host directories one walk holds open at most: an export or import as
 * deep as the VFS allows, plus a removal of a host tree as deep again. */
#define HOST_LEVELS (2 * (CAPSA__VFS_DEPTH_MAX + 1))

/* State of one import or export: the relative path in progress (for messages),
 * the stack of open host directories (walks are iterative: no recursion per
 * level, whatever the depth), and a scratch buffer for file contents and link
 * targets. */
typedef struct hostctx {
    capsa__vfs *vfs;
    char *msg;
    size_t msgsize;
    int mirror;     /* write-back: make the host a copy, as far as it changed */
    uint64_t since; /* write-back: what changed after this generation */
    char *path; /* host_dir, then "/name" per level */
    size_t plen, pcap;
    hlevel *lv; /* innermost last */
    size_t depth;
    char *buf;
    size_t bufsize;
} hostctx;

static int host_errno(int err)
{
    switch (err) {
    case ENOENT: return CAPSA__WASI_ENOENT;
    case EACCES: return CAPSA__WASI_EACCES;
    case EPERM: return CAPSA__WASI_EPERM;
    case ELOOP: return CAPSA__WASI_ELOOP;
    case ENOTDIR: return CAPSA__WASI_ENOTDIR;
    case EISDIR: return CAPSA__WASI_EISDIR;
    case EEXIST: return CAPSA__WASI_EEXIST;
    case ENOTEMPTY: return CAPSA__WASI_ENOTEMPTY;
    case ENOSPC: return CAPSA__WASI_ENOSPC;
    case EDQUOT: return CAPSA__WASI_EDQUOT;
    case ENOMEM: return CAPSA__WASI_ENOMEM;
    case EMFILE: case ENFILE: return CAPSA__WASI_EMFILE;
    case ENAMETOOLONG: return CAPSA__WASI_ENAMETOOLONG;
    case EROFS: return CAPSA__WASI_EROFS;
    case EFBIG: return CAPSA__WASI_EFBIG;
    case EBUSY: return CAPSA__WASI_EBUSY;
    case EXDEV: return CAPSA__WASI_EXDEV;
    case EINVAL: return CAPSA__WASI_EINVAL;
    default: return CAPSA__WASI_EIO;
    }
}

static int host_fail(hostctx *c, int e, const char *what)
{
    return set_msg(c->msg, c->msgsize, e, "%s: %.*s", what, (int)c->plen, c->path);
}

/* Appends "/name" to the path in progress; returns the length to restore, or
 * (size_t)-1 when the path would be too long. */
static size_t path_push(hostctx *c, const char *name, size_t len)
{
    size_t old = c->plen;
    if (c->plen + 1 + len + 1 > c->pcap)
        return (size_t)-1;
    c->path[c->plen++] = '/';
    memcpy(c->path + c->plen, name, len);
    c->plen += len;
    c->path[c->plen] = '\0';
    return old;
}

static void path_pop(hostctx *c, size_t old)
{
    c->plen = old;
    c->path[old] = '\0';
}

static int hostctx_init(hostctx *c, capsa__vfs *vfs, const char *start, char *msg, size_t msgsize)
{
    memset(c, 0, sizeof *c);
    c->vfs = vfs;
    c->msg = msg;
    c->msgsize = msgsize;
    if (msg && msgsize)
        msg[0] = '\0';
    size_t sl = strlen(start);
    c->pcap = sl + 2 * CAPSA__VFS_PATH_MAX + 2;
    c->bufsize = 64 * 1024;
    c->path = vfs_alloc(vfs, c->pcap);
    c->buf = vfs_alloc(vfs, c->bufsize);
    c->lv = vfs_alloc(vfs, HOST_LEVELS * sizeof(hlevel));
    if (!c->path || !c->buf || !c->lv)
        return set_msg(msg, msgsize, CAPSA__WASI_ENOMEM, "out of memory");
    memcpy(c->path, start, sl + 1);
    c->plen = sl;
    return 0;
}

static void hostctx_done(hostctx *c)
{
    vfs_dealloc(c->vfs, c->path);
    vfs_dealloc(c->vfs, c->buf);
    vfs_dealloc(c->vfs, c->lv);
}

/* Enters the host directory open as fd (taken over) that pairs with VFS
 * directory node; the path in progress was plen long before its name. */
static int level_push(hostctx *c, int fd, capsa__vnode *node, size_t plen)
{
    if (c->depth == HOST_LEVELS) {
        close(fd);
        return host_fail(c, CAPSA__WASI_ENAMETOOLONG, "directories nested too deep at");
    }
    c->lv[c->depth++] = (hlevel){ fd, NULL, plen, node, 0 };
    return 0;
}

/* Leaves the innermost level: closes its directory and restores the path. */
static void level_pop(hostctx *c)
{
    hlevel *l = &c->lv[--c->depth];
    if (l->dir)
        closedir(l->dir);
    else
        close(l->fd);
    path_pop(c, l->plen);
}

/* Leaves every level above base (after an error). */
static void levels_unwind(hostctx *c, size_t base)
{
    while (c->depth > base)
        level_pop(c);
}

/* The next entry of level l's directory other than "." and "..": 0 with *name
 * (NULL at the end; valid until the next call), or a WASI errno with the message
 * set. */
static int level_next(hostctx *c, hlevel *l, const char **name)
{
    *name = NULL;
    if (!l->dir && !(l->dir = fdopendir(l->fd)))
        return host_fail(c, host_errno(errno), "cannot read directory");
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(l->dir);
        if (!de)
            return errno ? host_fail(c, host_errno(errno), "cannot read directory") : 0;
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0) {
            *name = de->d_name;
            return 0;
        }
    }
}

/* Marks entry name of d, just copied from the host, and its node as the host has
 * them (generation 0): write-back leaves both alone until they change. */
static void as_on_host(capsa__vnode *d, const char *name, size_t nlen)
{
    int found;
    size_t i = dir_find(d, name, nlen, &found);
    if (found) {
        d->u.dir.ents[i].gen = 0;
        d->u.dir.ents[i].node->chg = 0;
    }
}

/* Copies one host regular file (name in dirfd) to the entry name of directory d,
 * checking the file size against the quotas before reading a byte. */
static int import_file(hostctx *c, int pfd, const char *name, size_t nlen, capsa__vnode *d)
{
    capsa__vfs *vfs = c->vfs;
    int fd = openat(pfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return host_fail(c, host_errno(errno), "cannot open");
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return host_fail(c, CAPSA__WASI_EIO, "not a regular file any more");
    }
    uint64_t size = (uint64_t)st.st_size;
    if (size > vfs->q.max_file) {
        close(fd);
        return host_fail(c, CAPSA__WASI_EDQUOT, "larger than the file quota");
    }
    capsa__vfs_where w;
    int e = capsa__vfs_walk(vfs, d, name, nlen, 0, CAPSA__VFS_HOST, &w);
    uint64_t had = 0;
    if (!e && w.node && w.node->type == CAPSA__VFS_DIR)
        e = CAPSA__WASI_EISDIR;
    else if (!e && w.node && w.node->type == CAPSA__VFS_FILE)
        had = w.node->u.file.size;
    if (!e && size > had && quota_bytes(vfs, size - had))
        e = CAPSA__WASI_ENOSPC;
    if (!e && w.node && w.node->type == CAPSA__VFS_SYMLINK)
        e = capsa__vfs_unlink(vfs, d, name, nlen, CAPSA__VFS_HOST);
    capsa__vnode *n = NULL;
    if (!e)
        e = capsa__vfs_open(vfs, d, name, nlen, 0, CAPSA__VFS_O_CREAT | CAPSA__VFS_O_TRUNC,
                            1u << CAPSA__VFS_WRITE, CAPSA__VFS_HOST, &n);
    uint64_t off = 0;
    while (!e) {
        ssize_t r = read(fd, c->buf, c->bufsize);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            e = host_errno(errno);
        if (r <= 0)
            break;
        e = capsa__vfs_write(vfs, n, off, c->buf, (size_t)r, 0, &off, CAPSA__VFS_HOST);
    }
    close(fd);
    if (!e) {
        uint64_t at = (uint64_t)st.st_atim.tv_sec * 1000000000ull + (uint64_t)st.st_atim.tv_nsec;
        uint64_t mt = (uint64_t)st.st_mtim.tv_sec * 1000000000ull + (uint64_t)st.st_mtim.tv_nsec;
        capsa__vfs_set_times(vfs, n, &at, &mt, CAPSA__VFS_HOST);
        n->u.file.host_mode = (unsigned)(st.st_mode & 0777);
        as_on_host(d, name, nlen);
    }
    capsa__vfs_unref(vfs, n);
    return e ? host_fail(c, e, "cannot copy") : 0;
}

/* Copies the host directory open as fd (which this takes over) into directory
 * top, depth first. Host symlinks are read, never followed. */
static int import_tree(hostctx *c, int fd, capsa__vnode *top)
{
    capsa__vfs *vfs = c->vfs;
    size_t base = c->depth;
    int e = level_push(c, fd, top, c->plen);
    while (!e && c->depth > base) {
        hlevel *l = &c->lv[c->depth - 1];
        const char *name;
        if ((e = level_next(c, l, &name)))
            break;
        if (!name) {
            l->node->chg = 0; /* its entries are the host's */
            level_pop(c);
            continue;
        }
        capsa__vnode *d = l->node;
        size_t nlen = strlen(name);
        size_t old = path_push(c, name, nlen);
        if (old == (size_t)-1) {
            e = host_fail(c, CAPSA__WASI_ENAMETOOLONG, "path too long below");
            break;
        }
        if (nlen > CAPSA__VFS_NAME_MAX || !utf8_valid((const unsigned char *)name, nlen)) {
            e = host_fail(c, nlen > CAPSA__VFS_NAME_MAX ? CAPSA__WASI_ENAMETOOLONG
                                                        : CAPSA__WASI_EILSEQ, "bad name");
            break;
        }
        struct stat st;
        if (fstatat(l->fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            e = host_fail(c, host_errno(errno), "cannot stat");
            break;
        }
        if (S_ISDIR(st.st_mode)) {
            e = capsa__vfs_mkdir(vfs, d, name, nlen, CAPSA__VFS_HOST);
            capsa__vfs_where w;
            if (!e || e == CAPSA__WASI_EEXIST)
                e = capsa__vfs_walk(vfs, d, name, nlen, 0, CAPSA__VFS_HOST, &w);
            if (!e && (!w.node || w.node->type != CAPSA__VFS_DIR))
                e = CAPSA__WASI_EEXIST;
            if (e) {
                e = host_fail(c, e, "cannot make directory for");
                break;
            }
            as_on_host(d, name, nlen);
            int cfd = openat(l->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (cfd < 0) {
                e = host_fail(c, host_errno(errno), "cannot open");
                break;
            }
            e = level_push(c, cfd, w.node, old); /* its name stays until it is left */
            continue;
        } else if (S_ISREG(st.st_mode)) {
            if ((e = import_file(c, l->fd, name, nlen, d)))
                break;
        } else if (S_ISLNK(st.st_mode)) {
            ssize_t r = readlinkat(l->fd, name, c->buf, c->bufsize);
            if (r < 0) {
                e = host_fail(c, host_errno(errno), "cannot read link");
                break;
            }
            capsa__vfs_where w;
            e = capsa__vfs_walk(vfs, d, name, nlen, 0, CAPSA__VFS_HOST, &w);
            if (!e && w.node && w.node->type == CAPSA__VFS_DIR)
                e = CAPSA__WASI_EEXIST;
            if (!e && w.node)
                e = capsa__vfs_unlink(vfs, d, name, nlen, CAPSA__VFS_HOST);
            if (!e)
                e = capsa__vfs_symlink(vfs, c->buf, (size_t)r, d, name, nlen, CAPSA__VFS_HOST);
            if (e) {
                e = host_fail(c, e, "cannot copy symlink");
                break;
            }
            as_on_host(d, name, nlen);
        }
        /* Sockets, FIFOs and devices are not files to copy. */
        path_pop(c, old);
    }
    levels_unwind(c, base);
    return e;
}

int capsa__vfs_import_dir(capsa__vfs *vfs, const char *host_dir, const char *guest_path,
                          char *msg, size_t msgsize)
{
    hostctx c;
    int e = hostctx_init(&c, vfs, host_dir, msg, msgsize);
    capsa__vnode *d = NULL;
    if (!e && (e = mkdirs(vfs, vfs->root, guest_path, strlen(guest_path), CAPSA__VFS_HOST, &d)))
        e = set_msg(msg, msgsize, e, "cannot make %s", guest_path);
    if (!e) {
        int fd = open(host_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
            e = host_fail(&c, host_errno(errno), "cannot open");
        else
            e = import_tree(&c, fd, d);
    }
    hostctx_done(&c);
    return e;
}

/* Removes the host entry name of directory pfd and, for a directory, all below
 * it, without following symlinks (a symlink is removed itself). The path in
 * progress ends with name. */
static int remove_host_tree(hostctx *c, int pfd, const char *name)
{
    int fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOTDIR && errno != ELOOP)
            return host_fail(c, host_errno(errno), "cannot open");
        if (unlinkat(pfd, name, 0) != 0)
            return host_fail(c, host_errno(errno), "cannot remove");
        return 0;
    }
    size_t base = c->depth;
    int e = level_push(c, fd, NULL, c->plen);
    while (!e && c->depth > base) {
        hlevel *l = &c->lv[c->depth - 1];
        const char *child;
        if ((e = level_next(c, l, &child)))
            break;
        if (!child) {
            /* Empty now: remove it from its parent. */
            int inner = c->depth - 1 > base;
            int parent = inner ? c->lv[c->depth - 2].fd : pfd;
            if (unlinkat(parent, inner ? c->path + l->plen + 1 : name, AT_REMOVEDIR) != 0)
                e = host_fail(c, host_errno(errno), "cannot remove");
            level_pop(c);
            continue;
        }
        size_t old = path_push(c, child, strlen(child));
        if (old == (size_t)-1) {
            e = host_fail(c, CAPSA__WASI_ENAMETOOLONG, "path too long below");
            break;
        }
        int cfd = openat(l->fd, child, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (cfd >= 0) {
            e = level_push(c, cfd, NULL, old);
            continue;
        }
        if (errno != ENOTDIR && errno != ELOOP)
            e = host_fail(c, host_errno(errno), "cannot open");
        else if (unlinkat(l->fd, child, 0) != 0)
            e = host_fail(c, host_errno(errno), "cannot remove");
        path_pop(c, old);
    }
    levels_unwind(c, base);
    return e;
}

/* Writes file n as the new host file name in dirfd. An existing entry of that
 * name is unlinked first, so nothing is ever written through a host link (a
 * hard link planted there keeps its old contents; a symlink is replaced, never
 * followed). The permissions are never loosened: a file rewritten at its own
 * name keeps the host file's, one the guest moved keeps those it was copied in
 * with, one that replaces a host file takes that file's, and only a new file
 * gets the default (0666 less the umask); set-id bits are dropped. */
static int export_file(hostctx *c, int pfd, const char *name, const capsa__vnode *n, int have,
                       const struct stat *st, int fresh)
{
    int keep = -1;
    if (have && S_ISREG(st->st_mode) && (!fresh || !n->u.file.host_mode))
        keep = (int)(st->st_mode & 0777);
    else if (n->u.file.host_mode)
        keep = (int)n->u.file.host_mode;
    if (have && S_ISDIR(st->st_mode)) {
        if (!c->mirror)
            return host_fail(c, CAPSA__WASI_EISDIR, "a directory is in the way at");
        int e = remove_host_tree(c, pfd, name);
        if (e)
            return e;
    } else if (have && unlinkat(pfd, name, 0) != 0) {
        return host_fail(c, host_errno(errno), "cannot replace");
    }
    int fd = openat(pfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                    keep >= 0 ? (mode_t)keep & 0600 : 0666);
    if (fd < 0)
        return host_fail(c, host_errno(errno), "cannot create");
    const uint8_t *p = n->u.file.data;
    uint64_t left = n->u.file.size;
    while (left) {
        ssize_t w = write(fd, p, left > (1u << 30) ? (1u << 30) : (size_t)left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int err = w < 0 ? errno : EIO;
            close(fd);
            return host_fail(c, host_errno(err), "cannot write");
        }
        p += w;
        left -= (uint64_t)w;
    }
    struct timespec ts[2] = {
        { (time_t)(n->atim / 1000000000ull), (long)(n->atim % 1000000000ull) },
        { (time_t)(n->mtim / 1000000000ull), (long)(n->mtim % 1000000000ull) },
    };
    futimens(fd, ts);
    /* Made owner-only, then given its exact mode (the umask would change it). */
    if (keep >= 0 && fchmod(fd, (mode_t)keep) != 0) {
        int err = errno;
        close(fd);
        return host_fail(c, host_errno(err), "cannot set the mode of");
    }
    if (close(fd) != 0)
        return host_fail(c, host_errno(errno), "cannot write");
    return 0;
}

/* Removes the host entries of level l's directory that the guest removed from its
 * VFS directory, making the host a copy: a name the directory lacks (unless it is
 * a special file, never copied in), or names with a symlink the guest made (the
 * link is not written to the host, and what was there is not the guest's any
 * more). Mount roots below are their own mounts, and the null device is kept. */
static int mirror_dir(hostctx *c, hlevel *l)
{
    const capsa__vnode *d = l->node;
    const char *name;
    int e;
    while (!(e = level_next(c, l, &name)) && name) {
        int found;
        size_t nlen = strlen(name);
        size_t idx = dir_find(d, name, nlen, &found);
        if (found) {
            const dent *de = &d->u.dir.ents[idx];
            if (de->node->type != CAPSA__VFS_SYMLINK || !(l->fresh || de->gen > c->since))
                continue;
        } else {
            struct stat st;
            if (fstatat(l->fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && !S_ISREG(st.st_mode) &&
                !S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode))
                continue;
        }
        size_t old = path_push(c, name, nlen);
        if (old == (size_t)-1)
            return host_fail(c, CAPSA__WASI_ENAMETOOLONG, "path too long below");
        e = remove_host_tree(c, l->fd, name);
        path_pop(c, old);
        if (e)
            return e;
    }
    return e;
}

/* Writes directory top into the host directory open as fd (which this takes
 * over), depth first. Every host name is opened relative to its directory with
 * O_NOFOLLOW. A copy-out writes every file and directory. A write-back (mirror)
 * writes only what changed after c->since: files whose bytes or times changed or
 * that are new at their name (created, moved, linked there), directories new at
 * their name (all of them), and removals from directories whose entries changed;
 * what is as it was on the host is never touched, and mounts nested below are
 * left to their own write-back. */
static int export_tree(hostctx *c, int fd, capsa__vnode *top)
{
    size_t base = c->depth;
    int e = level_push(c, fd, top, c->plen);
    if (!e)
        c->lv[base].fresh = !c->mirror;
    tw w;
    const dent *de;
    tw_start(&w, top);
    for (int ev; !e && (ev = tw_step(&w, &de)) != TW_END;) {
        hlevel *l = &c->lv[c->depth - 1];
        if (ev == TW_LEAVE) {
            if (c->mirror && (l->fresh || l->node->chg > c->since))
                e = mirror_dir(c, l);
            level_pop(c);
            continue;
        }
        capsa__vnode *n = de->node;
        if (n->type == CAPSA__VFS_SYMLINK || n->type == CAPSA__VFS_CHARDEV)
            continue; /* the null device is no file to make on the host */
        if (c->mirror && n->type == CAPSA__VFS_DIR && n->is_mount)
            continue;
        int fresh = l->fresh || de->gen > c->since;
        if (n->type == CAPSA__VFS_FILE && !fresh && n->chg <= c->since)
            continue;
        size_t old = path_push(c, de->name, de->len);
        if (old == (size_t)-1) {
            e = host_fail(c, CAPSA__WASI_ENAMETOOLONG, "path too long below");
            break;
        }
        struct stat st;
        int have = fstatat(l->fd, de->name, &st, AT_SYMLINK_NOFOLLOW) == 0;
        if (!have && errno != ENOENT) {
            e = host_fail(c, host_errno(errno), "cannot stat");
        } else if (have && S_ISLNK(st.st_mode) && !c->mirror) {
            e = host_fail(c, CAPSA__WASI_ELOOP, "refusing to write through the host symlink");
        } else if (n->type == CAPSA__VFS_FILE) {
            e = export_file(c, l->fd, de->name, n, have, &st, fresh);
        } else {
            if (have && !S_ISDIR(st.st_mode)) {
                if (!c->mirror)
                    e = host_fail(c, CAPSA__WASI_ENOTDIR, "not a directory on the host:");
                else if (unlinkat(l->fd, de->name, 0) != 0)
                    e = host_fail(c, host_errno(errno), "cannot remove");
                have = 0;
            }
            if (!have)
                fresh = 1; /* whatever the tree says, the host has none of it */
            if (!e && !have && mkdirat(l->fd, de->name, 0777) != 0)
                e = host_fail(c, host_errno(errno), "cannot make directory");
            if (!e) {
                int cfd = openat(l->fd, de->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                if (cfd < 0)
                    e = host_fail(c, host_errno(errno), "cannot open");
                else if (!(e = level_push(c, cfd, n, old))) {
                    c->lv[c->depth - 1].fresh = fresh;
                    tw_descend(&w, n);
                    continue; /* its name stays until it is left */
                }
            }
        }
        path_pop(c, old);
    }
    levels_unwind(c, base);
    return e;
}

/* Writes the tree at directory node d into host_dir (created when missing). */
static int export_node(capsa__vfs *vfs, capsa__vnode *d, const char *host_dir, int mirror,
                       uint64_t since, char *msg, size_t msgsize)
{
    hostctx c;
    int e = hostctx_init(&c, vfs, host_dir, msg, msgsize);
    c.mirror = mirror;
    c.since = since;
    if (!e && mkdir(host_dir, 0777) != 0 && errno != EEXIST)
        e = host_fail(&c, host_errno(errno), "cannot make directory");
    if (!e) {
        int fd = open(host_dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (fd < 0)
            e = host_fail(&c, host_errno(errno), "cannot open");
        else
            e = export_tree(&c, fd, d);
    }
    hostctx_done(&c);
    return e;
}

int capsa__vfs_sync_dir(capsa__vfs *vfs, capsa__vnode *d, const char *host_dir, uint64_t since,
                        char *msg, size_t msgsize)
{
    if (!d || d->type != CAPSA__VFS_DIR)
        return set_msg(msg, msgsize, CAPSA__WASI_ENOTDIR, "not a directory");
    return export_node(vfs, d, host_dir, 1, since, msg, msgsize);
}

int capsa__vfs_export_dir(capsa__vfs *vfs, const char *guest_path, const char *host_dir,
                          char *msg, size_t msgsize)
{
    if (msg && msgsize)
        msg[0] = '\0';
    capsa__vfs_where w;
    int e = capsa__vfs_walk(vfs, vfs->root, guest_path, strlen(guest_path), CAPSA__VFS_FOLLOW,
                            CAPSA__VFS_HOST, &w);
    if (e)
        return set_msg(msg, msgsize, e, "cannot resolve %s", guest_path);
    if (!w.node || w.node->type != CAPSA__VFS_DIR)
        return set_msg(msg, msgsize, w.node ? CAPSA__WASI_ENOTDIR : CAPSA__WASI_ENOENT,
                       "not a directory: %s", guest_path);
    return export_node(vfs, w.node, host_dir, 0, 0, msg, msgsize);
}

/* ---- tar streams ------------------------------------------------------------------- */

/* Tar is ustar: names longer than the 100-byte field are split into prefix and
 * name where a '/' allows it, and otherwise (and for long link targets) carried
 * by a POSIX pax 'x' header before the entry. Import also reads GNU 'L'/'K'. */

enum { TAR_BLOCK = 512 };

/* Writes v as a NUL-terminated octal field of w bytes, or in base-256 (the GNU
 * and pax-era extension) when it does not fit. */
static void tar_num(char *f, size_t w, uint64_t v)
{
    if (v >> (3 * (w - 1)) == 0) {
        for (size_t i = w - 1; i-- > 0;) {
            f[i] = (char)('0' + (v & 7));
            v >>= 3;
        }
        f[w - 1] = '\0';
        return;
    }
    memset(f, 0, w);
    f[0] = (char)0x80;
    for (size_t i = w - 1; i >= 1 && v; i--) {
        f[i] = (char)(v & 0xFF);
        v >>= 8;
    }
}

static unsigned tar_sum(const unsigned char *h)
{
    unsigned s = 0;
    for (size_t i = 0; i < TAR_BLOCK; i++)
        s += (i >= 148 && i < 156) ? ' ' : h[i];
    return s;
}

/* Where name[0..nlen) splits into a ustar prefix and name: the index of the '/'
 * between them, or 0 when it cannot. */
static size_t tar_split(const char *name, size_t nlen)
{
    for (size_t p = nlen - 1 < 155 ? nlen - 1 : 155; p > 0; p--)
        if (name[p] == '/' && nlen - p - 1 <= 100 && nlen - p - 1 > 0)
            return p;
    return 0;
}

static size_t pax_record_len(size_t body)
{
    size_t n = body + 1;
    for (size_t t = body; t >= 10; t /= 10)
        n++;
    /* Adding the digits may add a digit. */
    size_t d = 0;
    for (size_t t = n; t; t /= 10)
        d++;
    return body + d;
}

typedef struct tarw {
    capsa__vfs *vfs;
    capsa__buf *out;
    char *path;
    size_t plen;
} tarw;

static int tar_append(tarw *t, const void *p, size_t n)
{
    return capsa__buf_append(t->out, t->vfs->a, p, n) ? CAPSA__WASI_ENOMEM : 0;
}

static int tar_pad(tarw *t, uint64_t size)
{
    static const char zeros[TAR_BLOCK];
    size_t r = (size_t)(size % TAR_BLOCK);
    return r ? tar_append(t, zeros, TAR_BLOCK - r) : 0;
}

/* Appends one ustar header (built in h, checksummed here). */
static int tar_header(tarw *t, const char *name, size_t nlen, char type, uint64_t size,
                      uint64_t mtime, unsigned mode, const char *link, size_t llen)
{
    unsigned char h[TAR_BLOCK];
    memset(h, 0, sizeof h);
    if (nlen <= 100) {
        memcpy(h, name, nlen);
    } else {
        size_t p = tar_split(name, nlen);
        if (p) {
            memcpy(h + 345, name, p);
            memcpy(h, name + p + 1, nlen - p - 1);
        } else {
            memcpy(h, name, 100); /* the pax header before this one has the name */
        }
    }
    tar_num((char *)h + 100, 8, mode);
    tar_num((char *)h + 108, 8, 0);
    tar_num((char *)h + 116, 8, 0);
    tar_num((char *)h + 124, 12, size);
    tar_num((char *)h + 136, 12, mtime);
    h[156] = (unsigned char)type;
    memcpy(h + 157, link, llen < 100 ? llen : 100);
    memcpy(h + 257, "ustar", 6);
    memcpy(h + 263, "00", 2);
    tar_num((char *)h + 329, 8, 0);
    tar_num((char *)h + 337, 8, 0);
    char sum[8];
    snprintf(sum, sizeof sum, "%06o", tar_sum(h) & 0777777);
    memcpy(h + 148, sum, 7);
    h[155] = ' ';
    return tar_append(t, h, sizeof h);
}

/* Appends one entry, preceded by a pax header when its name or link target
 * does not fit the ustar fields. */
static int tar_entry(tarw *t, char type, const capsa__vnode *n, const char *link, size_t llen)
{
    const char *name = t->path;
    size_t nlen = t->plen;
    int long_name = nlen > 100 && !tar_split(name, nlen);
    int long_link = llen > 100;
    int e;
    if (long_name || long_link) {
        size_t rn = long_name ? pax_record_len(sizeof " path=\n" - 1 + nlen) : 0;
        size_t rl = long_link ? pax_record_len(sizeof " linkpath=\n" - 1 + llen) : 0;
        char num[32];
        if ((e = tar_header(t, "././@PaxHeader", 14, 'x', rn + rl, 0, 0644, "", 0)))
            return e;
        if (long_name) {
            int k = snprintf(num, sizeof num, "%zu path=", rn);
            if ((e = tar_append(t, num, (size_t)k)) || (e = tar_append(t, name, nlen)) ||
                (e = tar_append(t, "\n", 1)))
                return e;
        }
        if (long_link) {
            int k = snprintf(num, sizeof num, "%zu linkpath=", rl);
            if ((e = tar_append(t, num, (size_t)k)) || (e = tar_append(t, link, llen)) ||
                (e = tar_append(t, "\n", 1)))
                return e;
        }
        if ((e = tar_pad(t, rn + rl)))
            return e;
    }
    uint64_t size = type == '0' ? n->u.file.size : 0;
    unsigned mode = type == '5' ? 0755 : type == '2' ? 0777 : 0644;
    if ((e = tar_header(t, name, nlen, type, size, n->mtim / 1000000000ull, mode, link, llen)))
        return e;
    if (size) {
        if ((e = tar_append(t, n->u.file.data, (size_t)size)) || (e = tar_pad(t, size)))
            return e;
    }
    return 0;
}

/* Appends every entry below directory top, in name order, depth first. */
static int tar_tree(tarw *t, capsa__vnode *top)
{
    tw w;
    const dent *de;
    tw_start(&w, top);
    for (int ev; (ev = tw_step(&w, &de)) != TW_END;) {
        if (ev == TW_LEAVE) {
            if (de) /* back from a directory: drop its name and its '/' */
                t->plen -= de->len + (t->plen > de->len ? 1 : 0);
            continue;
        }
        const capsa__vnode *n = de->node;
        if (n->type == CAPSA__VFS_CHARDEV)
            continue; /* the null device: part of every sandbox, nothing to carry */
        size_t old = t->plen;
        if (old + 1 + de->len + 1 > CAPSA__VFS_PATH_MAX)
            return CAPSA__WASI_ENAMETOOLONG;
        if (old)
            t->path[t->plen++] = '/';
        memcpy(t->path + t->plen, de->name, de->len);
        t->plen += de->len;
        int e;
        if (n->type == CAPSA__VFS_DIR) {
            t->path[t->plen++] = '/';
            e = tar_entry(t, '5', n, "", 0);
            t->plen--;
            if (!e) {
                tw_descend(&w, de->node);
                continue; /* its name stays until TW_LEAVE */
            }
        } else if (n->type == CAPSA__VFS_FILE) {
            e = tar_entry(t, '0', n, "", 0);
        } else {
            e = tar_entry(t, '2', n, n->u.link.target, n->u.link.len);
        }
        t->plen = old;
        if (e)
            return e;
    }
    return 0;
}

int capsa__vfs_export_tar(capsa__vfs *vfs, const char *guest_path, capsa__buf *out)
{
    capsa__vfs_where w;
    int e = capsa__vfs_walk(vfs, vfs->root, guest_path, strlen(guest_path), CAPSA__VFS_FOLLOW,
                            CAPSA__VFS_HOST, &w);
    if (e)
        return e;
    if (!w.node)
        return CAPSA__WASI_ENOENT;
    if (w.node->type != CAPSA__VFS_DIR)
        return CAPSA__WASI_ENOTDIR;
    tarw t = { vfs, out, vfs_alloc(vfs, CAPSA__VFS_PATH_MAX + 2), 0 };
    if (!t.path)
        return CAPSA__WASI_ENOMEM;
    size_t start = out->len;
    static const char end[2 * TAR_BLOCK];
    e = tar_tree(&t, w.node);
    if (!e)
        e = tar_append(&t, end, sizeof end);
    if (e)
        capsa__buf_truncate(out, start); /* a failed export appends nothing */
    vfs_dealloc(vfs, t.path);
    return e;
}

/* One entry of a tar stream being read. */
typedef struct tar_ent {
    char type; /* '0' file, '5' directory, '2' symlink */
    const char *name, *link;
    size_t nlen, llen;
    const uint8_t *data;
    uint64_t size, mtime;
    size_t at; /* offset of its header, for messages */
} tar_ent;

typedef struct tarr {
    const uint8_t *p;
    size_t len, off;
    char *msg;
    size_t msgsize;
    char name[CAPSA__VFS_PATH_MAX + 1];
    char link[CAPSA__VFS_PATH_MAX + 1];
    char norm[CAPSA__VFS_PATH_MAX + 1];
    char hname[256 + 1]; /* prefix '/' name */
} tarr;

/* Reads a numeric header field: octal (leading spaces, then digits, then spaces
 * or NULs) or base-256. Returns 0, or -1 when malformed. */
static int tar_parse_num(const uint8_t *f, size_t w, uint64_t *out)
{
    uint64_t v = 0;
    if (f[0] & 0x80) {
        if (f[0] != 0x80)
            return -1; /* negative, or beyond 64 bits */
        for (size_t i = 1; i < w; i++) {
            if (v >> 56)
                return -1;
            v = v << 8 | f[i];
        }
        *out = v;
        return 0;
    }
    size_t i = 0;
    while (i < w && f[i] == ' ')
        i++;
    for (; i < w && f[i] >= '0' && f[i] <= '7'; i++) {
        if (v >> 61)
            return -1;
        v = v << 3 | (uint64_t)(f[i] - '0');
    }
    for (; i < w; i++)
        if (f[i] != ' ' && f[i] != '\0')
            return -1;
    *out = v;
    return 0;
}

static int tar_bad(tarr *r, int e, size_t at, const char *what)
{
    return set_msg(r->msg, r->msgsize, e, "tar: %s (header at byte %zu)", what, at);
}

/* Copies a name from metadata (a GNU long name or a pax value) into dst, up to
 * its first NUL. */
static int tar_meta_name(tarr *r, char *dst, const uint8_t *src, size_t n, size_t at, size_t *out)
{
    const uint8_t *z = memchr(src, '\0', n);
    if (z)
        n = (size_t)(z - src);
    if (n > CAPSA__VFS_PATH_MAX)
        return tar_bad(r, CAPSA__WASI_ENAMETOOLONG, at, "name too long");
    memcpy(dst, src, n);
    dst[n] = '\0';
    *out = n;
    return 0;
}

/* Reads pax records ("len key=value\n") for path and linkpath. */
static int tar_pax(tarr *r, const uint8_t *d, uint64_t size, size_t at, size_t *nlen, size_t *llen,
                   int *have_name, int *have_link)
{
    size_t pos = 0;
    while (pos < size) {
        size_t len = 0, i = pos;
        while (i < size && d[i] >= '0' && d[i] <= '9' && len < SIZE_MAX / 10)
            len = len * 10 + (size_t)(d[i++] - '0');
        if (i == pos || i >= size || d[i] != ' ' || len <= i - pos || len > size - pos ||
            d[pos + len - 1] != '\n')
            return tar_bad(r, CAPSA__WASI_EINVAL, at, "malformed pax record");
        const uint8_t *kv = d + i + 1, *stop = d + pos + len - 1;
        const uint8_t *eq = memchr(kv, '=', (size_t)(stop - kv));
        if (!eq)
            return tar_bad(r, CAPSA__WASI_EINVAL, at, "malformed pax record");
        size_t klen = (size_t)(eq - kv), vlen = (size_t)(stop - eq - 1);
        if (vlen && memchr(eq + 1, '\0', vlen))
            return tar_bad(r, CAPSA__WASI_EINVAL, at, "NUL in a pax value");
        int e = 0;
        if (klen == 4 && memcmp(kv, "path", 4) == 0) {
            e = tar_meta_name(r, r->name, eq + 1, vlen, at, nlen);
            *have_name = 1;
        } else if (klen == 8 && memcmp(kv, "linkpath", 8) == 0) {
            e = tar_meta_name(r, r->link, eq + 1, vlen, at, llen);
            *have_link = 1;
        } else if (klen == 4 && memcmp(kv, "size", 4) == 0) {
            e = tar_bad(r, CAPSA__WASI_EINVAL, at, "pax size records are not supported");
        }
        if (e)
            return e;
        pos += len;
    }
    return 0;
}

/* The next entry of the stream: 0 with *e filled, 1 at the end, or a WASI errno
 * (EINVAL for a malformed stream) with the message set. Checks every header's
 * checksum, its size against the data left, and its type. */
static int tar_next(tarr *r, tar_ent *e)
{
    int have_name = 0, have_link = 0;
    size_t nlen = 0, llen = 0;
    for (;;) {
        size_t at = r->off;
        if (at == r->len) {
            if (have_name || have_link)
                return tar_bad(r, CAPSA__WASI_EINVAL, at, "extended header without an entry");
            return 1;
        }
        if (r->len - at < TAR_BLOCK)
            return tar_bad(r, CAPSA__WASI_EINVAL, at, "truncated header");
        const uint8_t *h = r->p + at;
        size_t z = 0;
        while (z < TAR_BLOCK && h[z] == 0)
            z++;
        if (z == TAR_BLOCK) {
            if (have_name || have_link)
                return tar_bad(r, CAPSA__WASI_EINVAL, at, "extended header without an entry");
            return 1; /* the end-of-archive blocks */
        }
        uint64_t sum, size, mtime;
        if (tar_parse_num(h + 148, 8, &sum) || sum != tar_sum(h))
            return tar_bad(r, CAPSA__WASI_EINVAL, at, "bad header checksum");
        if (tar_parse_num(h + 124, 12, &size))
            return tar_bad(r, CAPSA__WASI_EINVAL, at, "bad size field");
        if (tar_parse_num(h + 136, 12, &mtime))
            return tar_bad(r, CAPSA__WASI_EINVAL, at, "bad mtime field");
        uint64_t avail = r->len - at - TAR_BLOCK;
        if (size > avail || ((size + TAR_BLOCK - 1) & ~(uint64_t)(TAR_BLOCK - 1)) > avail)
            return tar_bad(r, CAPSA__WASI_EINVAL, at, "size larger than the data left");
        const uint8_t *data = h + TAR_BLOCK;
        r->off = at + TAR_BLOCK + (size_t)((size + TAR_BLOCK - 1) & ~(uint64_t)(TAR_BLOCK - 1));
        int err = 0;
        switch (h[156]) {
        case 'L':
            err = tar_meta_name(r, r->name, data, (size_t)size, at, &nlen);
            have_name = 1;
            break;
        case 'K':
            err = tar_meta_name(r, r->link, data, (size_t)size, at, &llen);
            have_link = 1;
            break;
        case 'x':
            err = tar_pax(r, data, size, at, &nlen, &llen, &have_name, &have_link);
            break;
        case 'g':
            break;
        case '0': case '\0': case '7': case '5': case '2': {
            if (!have_name) {
                size_t n = strnlen((const char *)h, 100), pl = 0;
                if (memcmp(h + 257, "ustar\0", 6) == 0)
                    pl = strnlen((const char *)h + 345, 155);
                if (pl) {
                    memcpy(r->hname, h + 345, pl);
                    r->hname[pl] = '/';
                }
                memcpy(r->hname + pl + (pl ? 1 : 0), h, n);
                nlen = pl + (pl ? 1 : 0) + n;
                r->hname[nlen] = '\0';
                e->name = r->hname;
            } else {
                e->name = r->name;
            }
            if (!have_link) {
                llen = strnlen((const char *)h + 157, 100);
                memcpy(r->link, h + 157, llen);
                r->link[llen] = '\0';
            }
            char t = (char)h[156];
            e->type = t == '5' ? '5' : t == '2' ? '2' : '0';
            if (t == '\0' && nlen && e->name[nlen - 1] == '/')
                e->type = '5'; /* the old convention for directories */
            e->nlen = nlen;
            e->link = r->link;
            e->llen = llen;
            e->data = data;
            e->size = e->type == '0' ? size : 0;
            e->mtime = mtime;
            e->at = at;
            return 0;
        }
        default:
            return tar_bad(r, CAPSA__WASI_EINVAL, at, "unsupported entry type");
        }
        if (err)
            return err;
    }
}

/* Normalises an entry name into r->norm: no ".", no empty components, ".."
 * applied. A name that is absolute or climbs above the target is ENOTCAPABLE. */
static int tar_normalize(tarr *r, const tar_ent *e, size_t *out)
{
    int err = check_path(e->name, e->nlen);
    if (err)
        return tar_bad(r, err, e->at, "bad name");
    if (e->nlen && e->name[0] == '/')
        return set_msg(r->msg, r->msgsize, CAPSA__WASI_ENOTCAPABLE,
                       "tar: absolute name refused: %.*s", (int)e->nlen, e->name);
    size_t n = 0, i = 0;
    while (i < e->nlen) {
        while (i < e->nlen && e->name[i] == '/')
            i++;
        size_t s = i;
        while (i < e->nlen && e->name[i] != '/')
            i++;
        size_t cl = i - s;
        if (cl == 0 || (cl == 1 && e->name[s] == '.'))
            continue;
        if (cl == 2 && e->name[s] == '.' && e->name[s + 1] == '.') {
            if (n == 0)
                return set_msg(r->msg, r->msgsize, CAPSA__WASI_ENOTCAPABLE,
                               "tar: name leaves the target: %.*s", (int)e->nlen, e->name);
            while (n > 0 && r->norm[n - 1] != '/')
                n--;
            if (n > 0)
                n--;
            continue;
        }
        if (n)
            r->norm[n++] = '/';
        memcpy(r->norm + n, e->name + s, cl);
        n += cl;
    }
    r->norm[n] = '\0';
    *out = n;
    return 0;
}

static const char *last_slash(const char *s, size_t n)
{
    while (n > 0)
        if (s[--n] == '/')
            return s + n;
    return NULL;
}

/* Extracts one validated entry (normalised name r->norm[0..n)) below base, as
 * who (WHO_CONFINED, or the guest when base was reached through a symlink). */
static int tar_extract(capsa__vfs *vfs, tarr *r, capsa__vnode *base, const tar_ent *te, size_t n,
                       int who)
{
    if (n == 0)
        return 0; /* the target directory itself */
    const char *slash = last_slash(r->norm, n);
    capsa__vnode *pd = base;
    const char *leaf = r->norm;
    int e;
    if (slash) {
        if ((e = mkdirs(vfs, base, r->norm, (size_t)(slash - r->norm), who, &pd)))
            return e;
        leaf = slash + 1;
    }
    size_t ll = n - (size_t)(leaf - r->norm);
    capsa__vfs_where w;
    if ((e = capsa__vfs_walk(vfs, pd, leaf, ll, 0, who, &w)))
        return e;
    if (te->type == '5') {
        if (w.node)
            return w.node->type == CAPSA__VFS_DIR ? 0 : CAPSA__WASI_EEXIST;
        return capsa__vfs_mkdir(vfs, pd, leaf, ll, who);
    }
    if (w.node && w.node->type == CAPSA__VFS_DIR)
        return te->type == '0' ? CAPSA__WASI_EISDIR : CAPSA__WASI_EEXIST;
    /* A file or symlink replaces what was there; an existing symlink is removed,
     * never written through. */
    if (w.node && (te->type == '2' || w.node->type != CAPSA__VFS_FILE) &&
        (e = capsa__vfs_unlink(vfs, pd, leaf, ll, who)))
        return e;
    if (te->type == '2')
        return capsa__vfs_symlink(vfs, te->link, te->llen, pd, leaf, ll, who);
    capsa__vnode *f;
    if ((e = capsa__vfs_open(vfs, pd, leaf, ll, 0, CAPSA__VFS_O_CREAT | CAPSA__VFS_O_TRUNC,
                             1u << CAPSA__VFS_WRITE, who, &f)))
        return e;
    if (te->size > SIZE_MAX)
        e = CAPSA__WASI_EFBIG;
    if (!e && te->size)
        e = capsa__vfs_write(vfs, f, 0, te->data, (size_t)te->size, 0, NULL, who);
    if (!e) {
        uint64_t mt = te->mtime * 1000000000ull;
        capsa__vfs_set_times(vfs, f, NULL, &mt, who);
    }
    capsa__vfs_unref(vfs, f);
    return e;
}

/* Whether normalised name[0..n) lies below one of the archive's own symlinks
 * (the NUL-separated names in links): writing it would go through the link. */
static int tar_below_link(const capsa__buf *links, const char *name, size_t n)
{
    for (size_t i = 0; links->data && i < links->len;) {
        size_t sl = strlen(links->data + i);
        if (sl < n && name[sl] == '/' && memcmp(name, links->data + i, sl) == 0)
            return 1;
        i += sl + 1;
    }
    return 0;
}

/* The depth that the directory at absolute path[0..len) has, or would have once
 * mkdirs made it (as the host): its deepest existing prefix's, plus one per
 * component still missing. */
static size_t depth_to_be(capsa__vfs *vfs, const char *path, size_t len)
{
    size_t missing = 0;
    for (size_t i = len; i > 0;) {
        capsa__vfs_where w;
        if (capsa__vfs_walk(vfs, vfs->root, path, i, CAPSA__VFS_FOLLOW, CAPSA__VFS_HOST, &w) == 0 &&
            w.node && w.node->type == CAPSA__VFS_DIR)
            return depth_of(w.node) + missing;
        while (i > 0 && path[i - 1] == '/')
            i--;
        size_t j = i;
        while (j > 0 && path[j - 1] != '/')
            j--;
        if (i > j && !(i - j == 1 && path[j] == '.') && !(i - j == 2 && path[j] == '.' && path[j + 1] == '.'))
            missing++;
        i = j;
    }
    return missing;
}

int capsa__vfs_import_tar(capsa__vfs *vfs, const char *guest_path, const void *data, size_t len,
                          char *msg, size_t msgsize)
{
    if (msg && msgsize)
        msg[0] = '\0';
    tarr *r = vfs_alloc(vfs, sizeof *r);
    if (!r)
        return set_msg(msg, msgsize, CAPSA__WASI_ENOMEM, "out of memory");
    r->p = data;
    r->len = len;
    r->off = 0;
    r->msg = msg;
    r->msgsize = msgsize;
    capsa__buf links = { 0 };
    capsa__vnode *base = NULL;
    capsa__vfs_where w;
    int e = capsa__vfs_walk(vfs, vfs->root, guest_path, strlen(guest_path), CAPSA__VFS_FOLLOW,
                            CAPSA__VFS_HOST, &w);
    /* Through a symlink, the archive is written only as the guest could write it. */
    int base_link = w.via_link;
    int who = base_link ? CAPSA__VFS_GUEST : WHO_CONFINED;
    if (!e && w.node) {
        if (w.node->type != CAPSA__VFS_DIR)
            e = set_msg(msg, msgsize, CAPSA__WASI_ENOTDIR, "tar: not a directory: %s", guest_path);
        base = w.node;
    } else if (e == CAPSA__WASI_ENOENT) {
        e = 0; /* made after validation, with its missing parents */
    } else if (e) {
        e = set_msg(msg, msgsize, e, "tar: cannot resolve %s", guest_path);
    }
    size_t base_depth = base ? depth_of(base) : depth_to_be(vfs, guest_path, strlen(guest_path));
    /* Pass 1: validate the whole stream and every name before writing anything. */
    uint64_t add_bytes = 0, add_entries = 0;
    tar_ent te;
    while (!e) {
        int k = tar_next(r, &te);
        if (k == 1)
            break;
        if ((e = k))
            break;
        size_t n;
        if ((e = tar_normalize(r, &te, &n)))
            break;
        if (n == 0 && te.type != '5') {
            e = tar_bad(r, CAPSA__WASI_EINVAL, te.at, "a file or link without a name");
            break;
        }
        if (te.type == '2') {
            int ce = te.llen ? check_path(te.link, te.llen) : CAPSA__WASI_ENOENT;
            if (ce) {
                e = tar_bad(r, ce, te.at, "bad link target");
                break;
            }
        }
        if (tar_below_link(&links, r->norm, n)) {
            e = set_msg(msg, msgsize, CAPSA__WASI_ENOTCAPABLE,
                        "tar: entry goes through a symlink of the archive: %s", r->norm);
            break;
        }
        if (te.type == '2' && capsa__buf_append(&links, vfs->a, r->norm, n + 1)) {
            e = set_msg(msg, msgsize, CAPSA__WASI_ENOMEM, "out of memory");
            break;
        }
        if (te.size > vfs->q.max_file) {
            e = set_msg(msg, msgsize, CAPSA__WASI_EDQUOT, "tar: larger than the file quota: %s",
                        r->norm);
            break;
        }
        size_t levels = n ? 1 : 0; /* the directories this entry needs below the target */
        for (size_t i = 0; i < n; i++)
            levels += r->norm[i] == '/';
        if (te.type != '5' && levels)
            levels--;
        if (base_depth + levels > CAPSA__VFS_DEPTH_MAX) {
            e = set_msg(msg, msgsize, CAPSA__WASI_ENAMETOOLONG,
                        "tar: nested more than %d levels deep: %s", CAPSA__VFS_DEPTH_MAX, r->norm);
            break;
        }
        /* Against the tree as it is: the parent must resolve inside the target,
         * and the entry must not clash with a directory. */
        capsa__vnode *existing = NULL;
        if (base && n) {
            const char *slash = last_slash(r->norm, n);
            capsa__vnode *into = base; /* the directory the entry adds to, or the
                                          deepest existing one its parents go in */
            int link = base_link;
            if (slash) {
                int we = capsa__vfs_walk(vfs, base, r->norm, (size_t)(slash - r->norm),
                                         CAPSA__VFS_FOLLOW, WHO_CONFINED, &w);
                if (we && we != CAPSA__WASI_ENOENT) {
                    e = set_msg(msg, msgsize, we, "tar: cannot place %s", r->norm);
                    break;
                }
                into = !we && w.node ? w.node : w.dir;
                link |= w.via_link;
            }
            int we = capsa__vfs_walk(vfs, base, r->norm, n, 0, WHO_CONFINED, &w);
            if (!we)
                existing = w.node;
            else if (we != CAPSA__WASI_ENOENT) {
                e = set_msg(msg, msgsize, we, "tar: cannot place %s", r->norm);
                break;
            }
            if (existing && existing->type == CAPSA__VFS_CHARDEV) {
                e = set_msg(msg, msgsize, CAPSA__WASI_EBUSY,
                            "tar: would replace the null device: %s", r->norm);
                break;
            }
            if (existing && (existing->type == CAPSA__VFS_DIR) != (te.type == '5')) {
                e = set_msg(msg, msgsize, existing->type == CAPSA__VFS_DIR ? CAPSA__WASI_EISDIR
                                                                           : CAPSA__WASI_EEXIST,
                            "tar: clashes with an existing entry: %s", r->norm);
                break;
            }
            if (link && !(existing && te.type == '5') && into &&
                capsa__vfs_allow(vfs, into, CAPSA__VFS_CHANGE, CAPSA__VFS_GUEST)) {
                e = set_msg(msg, msgsize, CAPSA__VFS_ELINK,
                            "tar: %s is reached through a symlink", r->norm);
                break;
            }
        }
        if (!existing)
            add_entries++;
        uint64_t add = te.type == '0' ? te.size : te.type == '2' ? te.llen : 0;
        if (existing && existing->type == CAPSA__VFS_FILE)
            add = add > existing->u.file.size ? add - existing->u.file.size : 0;
        add_bytes += add;
    }
    if (!e && (quota_bytes(vfs, add_bytes) || add_entries > vfs->q.max_entries - vfs->entries))
        e = set_msg(msg, msgsize, CAPSA__WASI_ENOSPC, "tar: the archive does not fit the quota");
    /* Pass 2: extract. */
    if (!e && !base && (e = mkdirs(vfs, vfs->root, guest_path, strlen(guest_path),
                                   CAPSA__VFS_HOST, &base)))
        e = set_msg(msg, msgsize, e, "tar: cannot make %s", guest_path);
    r->off = 0;
    while (!e) {
        int k = tar_next(r, &te);
        if (k == 1)
            break;
        size_t n;
        if ((e = k) || (e = tar_normalize(r, &te, &n)))
            break;
        if ((e = tar_extract(vfs, r, base, &te, n, who)))
            e = set_msg(msg, msgsize, e, "tar: cannot extract %s", r->norm);
    }
    capsa__buf_free(&links, vfs->a);
    vfs_dealloc(vfs, r);
    return e;
}
