/* Tar streams in and out of a sandbox's VFS (capsa_fs_export_tar,
 * capsa_fs_import_tar): ustar, with pax headers for long names. An archive is
 * checked whole, every name resolved as the guest's would be, before anything of
 * it is written. */
#include "vfs_tar.h"

#include <stdio.h>
#include <string.h>

#include "vfs_tree.h"

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
    return capsa__buf_append(t->out, capsa__vfs_allocator(t->vfs), p, n) ? CAPSA__WASI_ENOMEM : 0;
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
    uint64_t size;
    const uint8_t *data = capsa__vfs_file_data(n, &size); /* size 0 but for a file */
    capsa__vfs_stat st;
    capsa__vfs_stat_node(n, &st);
    unsigned mode = type == '5' ? 0755 : type == '2' ? 0777 : 0644;
    if ((e = tar_header(t, name, nlen, type, size, st.mtim / 1000000000ull, mode, link, llen)))
        return e;
    if (size) {
        if ((e = tar_append(t, data, (size_t)size)) || (e = tar_pad(t, size)))
            return e;
    }
    return 0;
}

/* Appends every entry below directory top, in name order, depth first. */
static int tar_tree(tarw *t, capsa__vnode *top)
{
    capsa__vfs_tw w;
    const capsa__vfs_dent *de;
    capsa__vfs_tw_start(&w, top);
    for (int ev; (ev = capsa__vfs_tw_step(&w, &de)) != CAPSA__VFS_TW_END;) {
        if (ev == CAPSA__VFS_TW_LEAVE) {
            if (de) /* back from a directory: drop its name and its '/' */
                t->plen -= de->len + (t->plen > de->len ? 1 : 0);
            continue;
        }
        const capsa__vnode *n = de->node;
        capsa__vfs_type type = capsa__vfs_node_type(n);
        if (type == CAPSA__VFS_CHARDEV)
            continue; /* the null device: part of every sandbox, nothing to carry */
        size_t old = t->plen;
        if (old + 1 + de->len + 1 > CAPSA__VFS_PATH_MAX)
            return CAPSA__WASI_ENAMETOOLONG;
        if (old)
            t->path[t->plen++] = '/';
        memcpy(t->path + t->plen, de->name, de->len);
        t->plen += de->len;
        int e;
        if (type == CAPSA__VFS_DIR) {
            t->path[t->plen++] = '/';
            e = tar_entry(t, '5', n, "", 0);
            t->plen--;
            if (!e) {
                capsa__vfs_tw_descend(&w, de->node);
                continue; /* its name stays until CAPSA__VFS_TW_LEAVE */
            }
        } else if (type == CAPSA__VFS_FILE) {
            e = tar_entry(t, '0', n, "", 0);
        } else {
            size_t llen;
            const char *target = capsa__vfs_link_target(n, &llen);
            e = tar_entry(t, '2', n, target, llen);
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
    int e = capsa__vfs_walk(vfs, capsa__vfs_root(vfs), guest_path, strlen(guest_path), CAPSA__VFS_FOLLOW,
                            CAPSA__VFS_HOST, &w);
    if (e)
        return e;
    if (!w.node)
        return CAPSA__WASI_ENOENT;
    if (capsa__vfs_node_type(w.node) != CAPSA__VFS_DIR)
        return CAPSA__WASI_ENOTDIR;
    const capsa_allocator *a = capsa__vfs_allocator(vfs);
    tarw t = { vfs, out, capsa__malloc(a, CAPSA__VFS_PATH_MAX + 2), 0 };
    if (!t.path)
        return CAPSA__WASI_ENOMEM;
    size_t start = out->len;
    static const char end[2 * TAR_BLOCK];
    e = tar_tree(&t, w.node);
    if (!e)
        e = tar_append(&t, end, sizeof end);
    if (e)
        capsa__buf_truncate(out, start); /* a failed export appends nothing */
    capsa__free(a, t.path);
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
    return capsa__msgf(r->msg, r->msgsize, e, "tar: %s (header at byte %zu)", what, at);
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
    int err = capsa__vfs_check_path(e->name, e->nlen);
    if (err)
        return tar_bad(r, err, e->at, "bad name");
    if (e->nlen && e->name[0] == '/')
        return capsa__msgf(r->msg, r->msgsize, CAPSA__WASI_ENOTCAPABLE,
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
                return capsa__msgf(r->msg, r->msgsize, CAPSA__WASI_ENOTCAPABLE,
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
 * who (CAPSA__VFS_CONFINED, or the guest when base was reached through a symlink). */
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
        if ((e = capsa__vfs_mkdirs(vfs, base, r->norm, (size_t)(slash - r->norm), who, &pd)))
            return e;
        leaf = slash + 1;
    }
    size_t ll = n - (size_t)(leaf - r->norm);
    capsa__vfs_where w;
    if ((e = capsa__vfs_walk(vfs, pd, leaf, ll, 0, who, &w)))
        return e;
    if (te->type == '5') {
        if (w.node)
            return capsa__vfs_node_type(w.node) == CAPSA__VFS_DIR ? 0 : CAPSA__WASI_EEXIST;
        return capsa__vfs_mkdir(vfs, pd, leaf, ll, who);
    }
    capsa__vfs_type had = w.node ? capsa__vfs_node_type(w.node) : 0;
    if (had == CAPSA__VFS_DIR)
        return te->type == '0' ? CAPSA__WASI_EISDIR : CAPSA__WASI_EEXIST;
    /* A file or symlink replaces what was there; an existing symlink is removed,
     * never written through. */
    if (w.node && (te->type == '2' || had != CAPSA__VFS_FILE) &&
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
 * capsa__vfs_mkdirs made it (as the host): its deepest existing prefix's, plus
 * one per component still missing. */
static size_t depth_to_be(capsa__vfs *vfs, const char *path, size_t len)
{
    size_t missing = 0;
    for (size_t i = len; i > 0;) {
        capsa__vfs_where w;
        if (capsa__vfs_walk(vfs, capsa__vfs_root(vfs), path, i, CAPSA__VFS_FOLLOW, CAPSA__VFS_HOST, &w) == 0 &&
            w.node && capsa__vfs_node_type(w.node) == CAPSA__VFS_DIR)
            return capsa__vfs_depth(w.node) + missing;
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
    const capsa_allocator *a = capsa__vfs_allocator(vfs);
    capsa__vfs_quota q;
    capsa__vfs_quota_get(vfs, &q);
    tarr *r = capsa__malloc(a, sizeof *r);
    if (!r)
        return capsa__msgf(msg, msgsize, CAPSA__WASI_ENOMEM, "out of memory");
    r->p = data;
    r->len = len;
    r->off = 0;
    r->msg = msg;
    r->msgsize = msgsize;
    capsa__buf links = { 0 };
    capsa__vnode *base = NULL;
    capsa__vfs_where w;
    int e = capsa__vfs_walk(vfs, capsa__vfs_root(vfs), guest_path, strlen(guest_path), CAPSA__VFS_FOLLOW,
                            CAPSA__VFS_HOST, &w);
    /* Through a symlink, the archive is written only as the guest could write it. */
    int base_link = w.via_link;
    int who = base_link ? CAPSA__VFS_GUEST : CAPSA__VFS_CONFINED;
    if (!e && w.node) {
        if (capsa__vfs_node_type(w.node) != CAPSA__VFS_DIR)
            e = capsa__msgf(msg, msgsize, CAPSA__WASI_ENOTDIR, "tar: not a directory: %s", guest_path);
        base = w.node;
    } else if (e == CAPSA__WASI_ENOENT) {
        e = 0; /* made after validation, with its missing parents */
    } else if (e) {
        e = capsa__msgf(msg, msgsize, e, "tar: cannot resolve %s", guest_path);
    }
    size_t base_depth = base ? capsa__vfs_depth(base)
                             : depth_to_be(vfs, guest_path, strlen(guest_path));
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
            int ce = te.llen ? capsa__vfs_check_path(te.link, te.llen) : CAPSA__WASI_ENOENT;
            if (ce) {
                e = tar_bad(r, ce, te.at, "bad link target");
                break;
            }
        }
        if (tar_below_link(&links, r->norm, n)) {
            e = capsa__msgf(msg, msgsize, CAPSA__WASI_ENOTCAPABLE,
                        "tar: entry goes through a symlink of the archive: %s", r->norm);
            break;
        }
        if (te.type == '2' && capsa__buf_append(&links, a, r->norm, n + 1)) {
            e = capsa__msgf(msg, msgsize, CAPSA__WASI_ENOMEM, "out of memory");
            break;
        }
        if (te.size > q.max_file) {
            e = capsa__msgf(msg, msgsize, CAPSA__WASI_EDQUOT, "tar: larger than the file quota: %s",
                        r->norm);
            break;
        }
        size_t levels = n ? 1 : 0; /* the directories this entry needs below the target */
        for (size_t i = 0; i < n; i++)
            levels += r->norm[i] == '/';
        if (te.type != '5' && levels)
            levels--;
        if (base_depth + levels > CAPSA__VFS_DEPTH_MAX) {
            e = capsa__msgf(msg, msgsize, CAPSA__WASI_ENAMETOOLONG,
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
                                         CAPSA__VFS_FOLLOW, CAPSA__VFS_CONFINED, &w);
                if (we && we != CAPSA__WASI_ENOENT) {
                    e = capsa__msgf(msg, msgsize, we, "tar: cannot place %s", r->norm);
                    break;
                }
                into = !we && w.node ? w.node : w.dir;
                link |= w.via_link;
            }
            int we = capsa__vfs_walk(vfs, base, r->norm, n, 0, CAPSA__VFS_CONFINED, &w);
            if (!we)
                existing = w.node;
            else if (we != CAPSA__WASI_ENOENT) {
                e = capsa__msgf(msg, msgsize, we, "tar: cannot place %s", r->norm);
                break;
            }
            capsa__vfs_type etype = existing ? capsa__vfs_node_type(existing) : 0;
            if (etype == CAPSA__VFS_CHARDEV) {
                e = capsa__msgf(msg, msgsize, CAPSA__WASI_EBUSY,
                            "tar: would replace the null device: %s", r->norm);
                break;
            }
            if (existing && (etype == CAPSA__VFS_DIR) != (te.type == '5')) {
                e = capsa__msgf(msg, msgsize, etype == CAPSA__VFS_DIR ? CAPSA__WASI_EISDIR
                                                                           : CAPSA__WASI_EEXIST,
                            "tar: clashes with an existing entry: %s", r->norm);
                break;
            }
            if (link && !(existing && te.type == '5') && into &&
                capsa__vfs_allow(vfs, into, CAPSA__VFS_CHANGE, CAPSA__VFS_GUEST)) {
                e = capsa__msgf(msg, msgsize, CAPSA__VFS_ELINK,
                            "tar: %s is reached through a symlink", r->norm);
                break;
            }
        }
        if (!existing)
            add_entries++;
        uint64_t add = te.type == '0' ? te.size : te.type == '2' ? te.llen : 0;
        uint64_t had = 0;
        if (existing)
            capsa__vfs_file_data(existing, &had); /* 0 but for a file */
        add = add > had ? add - had : 0;
        add_bytes += add;
    }
    uint64_t entries;
    capsa__vfs_usage(vfs, NULL, &entries);
    if (!e && (capsa__vfs_quota_bytes(vfs, add_bytes) || add_entries > q.max_entries - entries))
        e = capsa__msgf(msg, msgsize, CAPSA__WASI_ENOSPC, "tar: the archive does not fit the quota");
    /* Pass 2: extract. */
    if (!e && !base && (e = capsa__vfs_mkdirs(vfs, capsa__vfs_root(vfs), guest_path,
                                              strlen(guest_path), CAPSA__VFS_HOST, &base)))
        e = capsa__msgf(msg, msgsize, e, "tar: cannot make %s", guest_path);
    r->off = 0;
    while (!e) {
        int k = tar_next(r, &te);
        if (k == 1)
            break;
        size_t n;
        if ((e = k) || (e = tar_normalize(r, &te, &n)))
            break;
        if ((e = tar_extract(vfs, r, base, &te, n, who)))
            e = capsa__msgf(msg, msgsize, e, "tar: cannot extract %s", r->norm);
    }
    capsa__buf_free(&links, a);
    capsa__free(a, r);
    return e;
}
