/* Natives of fs.js and the module loader: whole-file reads and writes,
 * directories, links and stats through wasi-libc (the host's VFS behind WASI),
 * and modules read from that filesystem (ES modules, CommonJS and JSON files,
 * and the built-in modules fs.js gives). fs.js gets the natives on a host
 * object it captures and deletes, and builds Node's fs API and require() over
 * them. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "quickjs.h"
#include "fs.h"
#include "loop.h"

/* wasi-libc declares errno _Thread_local; clang 14 can only reach such a variable
 * with the local-exec model, which is right here (one thread, no shared memory:
 * lld makes it an ordinary global). */
extern _Thread_local int errno __attribute__((tls_model("local-exec")));

/* Relative paths resolve against this directory (Node's process.cwd()). */
#define FS_CWD "/workspace"

/* The largest file read whole: a JS string or ArrayBuffer holds less than 2 GiB,
 * and the sandbox's memory limit stops far below. */
#define FS_MAX_READ ((size_t)1 << 30)

/* A native that fails returns -(phase * FS_PHASE + errno): the phase says which
 * system call failed, as Node's messages name it ("open", then "read"). */
#define FS_PHASE 1000
enum { PHASE_FIRST = 0, PHASE_SECOND = 1, PHASE_FSTAT = 2 };

/* Flags of __capsaFs.write. */
enum { WRITE_APPEND = 1, WRITE_EXCL = 2 };

/* What fs.js gives the module loader: the built-in modules by name (without
 * "node:"), moduleError(kind, specifier, importer, rc) that makes the errors of
 * failed imports, importMeta(meta, name) that fills import.meta, and
 * loadCommonJS(filename, fn) that runs a CommonJS module (or reads a JSON file)
 * once and gives its module.exports, and resolvePackage(specifier, dir) that
 * finds a package's file in node_modules. Kept for the life of the context, so
 * in the image. */
static JSValue fs_builtins, fs_module_error, fs_import_meta, fs_load_commonjs, fs_resolve_package;
/* Names of the modules read from the filesystem (an object used as a set): an
 * import from one of them is relative to its directory, any other (the run's
 * script, eval code) to FS_CWD. */
static JSValue module_names;
/* The module that asked for the one being loaded (QuickJS calls the normalizer
 * just before the loader), for "imported from" in errors; NULL for a script. */
static char *importer;
/* Calls of the normalizer: a module whose compilation called it was parsed (its
 * imports were being resolved when it failed). */
static uint32_t normalize_calls;


/* What a native returns for errno `err` in `phase` (see FS_PHASE). */
static JSValue fail(JSContext *c, int phase, int err)
{
    return JS_NewInt32(c, -(phase * FS_PHASE + (err > 0 && err < FS_PHASE ? err : EIO)));
}

/* Resolves path[0..len) against the absolute directory dir. With `lexical`,
 * "." and ".." are resolved as path.resolve does (module names: one name per
 * file). Without, they are left to the filesystem, which resolves them as the
 * kernel does (through symlinks; "a/../b" needs "a"), except a ".." that would
 * climb above "/": POSIX makes it "/" itself, so it is dropped here, where WASI
 * would refuse it. Repeated slashes become one; a trailing slash is kept (it
 * requires a directory). Returns a js_malloc'd string (the caller js_frees it),
 * or NULL with an exception pending. */
static char *resolve_path(JSContext *c, const char *dir, const char *path, size_t len,
                          int lexical)
{
    size_t dlen = len > 0 && path[0] == '/' ? 0 : strlen(dir);
    char *out = js_malloc(c, dlen + len + 4);
    if (!out)
        return NULL;
    size_t o = 0, depth = 0;
    out[o++] = '/';
    const char *srcs[2] = { dir, path };
    size_t lens[2] = { dlen, len };
    for (int k = 0; k < 2; k++) {
        const char *s = srcs[k];
        size_t n = lens[k], i = 0;
        while (i < n) {
            while (i < n && s[i] == '/')
                i++;
            size_t start = i;
            while (i < n && s[i] != '/')
                i++;
            size_t clen = i - start;
            int dot = clen == 1 && s[start] == '.';
            int dotdot = clen == 2 && s[start] == '.' && s[start + 1] == '.';
            if (clen == 0 || (dot && lexical))
                continue;
            if (dotdot && lexical) {
                while (o > 1 && out[o - 1] != '/')
                    o--;
                if (o > 1)
                    o--;
                continue;
            }
            if (dotdot && depth == 0)
                continue;
            depth = dotdot ? depth - 1 : dot ? depth : depth + 1;
            if (o > 1)
                out[o++] = '/';
            memcpy(out + o, s + start, clen);
            o += clen;
        }
    }
    if (len > 0 && path[len - 1] == '/' && o > 1)
        out[o++] = '/';
    out[o] = '\0';
    return out;
}

/* The absolute path a JS string names. Returns 0 with *out js_malloc'd (the
 * caller js_frees it), an errno (ENOENT for "", EINVAL for a NUL inside), or -1
 * with an exception pending. */
static int get_path(JSContext *c, JSValueConst v, char **out)
{
    size_t len;
    const char *s = JS_ToCStringLen(c, &len, v);
    if (!s)
        return -1;
    int r = 0;
    if (len == 0)
        r = ENOENT;
    else if (strlen(s) != len)
        r = EINVAL;
    else if (!(*out = resolve_path(c, FS_CWD, s, len, 0)))
        r = -1;
    JS_FreeCString(c, s);
    return r;
}

/* Turns get_path's result into what a native returns. */
static JSValue path_failure(JSContext *c, int r)
{
    return r < 0 ? JS_EXCEPTION : fail(c, PHASE_FIRST, r);
}

static void free_buffer(JSRuntime *rt, void *opaque, void *ptr)
{
    (void)opaque;
    js_free_rt(rt, ptr);
}

/* Reads the whole file at path into a js_malloc'd buffer (sized by fstat) with
 * a NUL after the last byte. Returns 0 with *out (the caller js_frees it) and
 * *len set, phase * FS_PHASE + errno, or -1 with an exception pending. */
static int read_file(JSContext *c, const char *path, uint8_t **out, size_t *len)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return errno;
    struct stat st;
    int err = 0;
    if (fstat(fd, &st) != 0)
        err = PHASE_FSTAT * FS_PHASE + errno;
    else if (S_ISDIR(st.st_mode))
        err = PHASE_SECOND * FS_PHASE + EISDIR;
    else if (st.st_size < 0 || (uint64_t)st.st_size >= FS_MAX_READ)
        err = PHASE_SECOND * FS_PHASE + EFBIG;
    if (err) {
        close(fd);
        return err;
    }
    size_t cap = (size_t)st.st_size, n = 0;
    uint8_t *buf = js_malloc(c, cap + 1);
    if (!buf) {
        close(fd);
        return -1;
    }
    while (n < cap) {
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            err = PHASE_SECOND * FS_PHASE + errno;
            js_free(c, buf);
            close(fd);
            return err;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

/* __capsaFs.read(path): the file's bytes as an ArrayBuffer. */
static JSValue js_fs_read(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    char *path;
    uint8_t *buf;
    size_t len;
    (void)this_val;
    (void)argc;
    int r = get_path(c, argv[0], &path);
    if (r)
        return path_failure(c, r);
    r = read_file(c, path, &buf, &len);
    js_free(c, path);
    if (r < 0)
        return JS_EXCEPTION;
    if (r > 0)
        return fail(c, r / FS_PHASE, r % FS_PHASE);
    JSValue ab = JS_NewArrayBuffer(c, buf, len, free_buffer, NULL, 0);
    if (JS_IsException(ab))
        js_free(c, buf);
    return ab;
}

/* Bytes one read of standard input asks for, as Node reads a pipe. */
#define STDIN_CHUNK ((size_t)64 << 10)

/* The standard input of the shell's `js` command while it runs (its pipe or
 * redirection); fd 0 when none. stdin_source numbers the changes, so that
 * process.stdin starts afresh over a new input. */
static const char *stdin_text;
static size_t stdin_text_len, stdin_text_pos;
static int stdin_text_on;
static uint32_t stdin_source;

void capsa_fs_stdin_from(const char *data, size_t len)
{
    stdin_text = data;
    stdin_text_len = data ? len : 0;
    stdin_text_pos = 0;
    stdin_text_on = data != NULL;
    stdin_source++;
}

/* One read of standard input into p[0..cap): *n bytes, 0 at its end. Returns 0 or
 * an errno. */
static int stdin_read(uint8_t *p, size_t cap, size_t *n)
{
    if (stdin_text_on) {
        size_t left = stdin_text_len - stdin_text_pos;
        *n = cap < left ? cap : left;
        memcpy(p, stdin_text + stdin_text_pos, *n);
        stdin_text_pos += *n;
        return 0;
    }
    for (;;) {
        ssize_t r = read(0, p, cap);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return errno;
        *n = (size_t)r;
        return 0;
    }
}

int capsa_fs_read_stdin(JSContext *c, int all, uint8_t **out, size_t *len)
{
    size_t cap = STDIN_CHUNK, n = 0;
    uint8_t *buf = c ? js_malloc(c, cap + 1) : malloc(cap + 1);
    if (!buf)
        return ENOMEM;
    int err = 0;
    for (;;) {
        size_t got;
        if (n == cap) {
            /* Full: one byte says whether there is more before the buffer grows
               (a stream of exactly 2^k bytes is not doubled for nothing). */
            uint8_t one;
            if ((err = stdin_read(&one, 1, &got)) != 0 || got == 0)
                break;
            uint8_t *t = cap >= FS_MAX_READ ? NULL
                       : c ? js_realloc(c, buf, cap * 2 + 1) : realloc(buf, cap * 2 + 1);
            if (!t) {
                err = cap >= FS_MAX_READ ? EFBIG : ENOMEM;
                break;
            }
            buf = t;
            cap *= 2;
            buf[n++] = one;
        }
        if ((err = stdin_read(buf + n, cap - n, &got)) != 0)
            break;
        n += got;
        if (got == 0 || !all)
            break;
    }
    if (err) {
        if (c)
            js_free(c, buf);
        else
            free(buf);
        return err;
    }
    buf[n] = '\0';
    *out = buf;
    *len = n;
    return 0;
}

/* __capsaFs.readStdin(all): the next chunk of standard input (at most 64 KiB;
 * empty at its end), or with all what is left of it, as an ArrayBuffer; a
 * failure as the other natives give it (phase 1: the read). The read blocks
 * until bytes come (the host bounds the wait by the run's deadline). */
static JSValue js_fs_read_stdin(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    uint8_t *buf;
    size_t len;
    int all = argc > 0 && JS_ToBool(c, argv[0]);
    int r = capsa_fs_read_stdin(c, all, &buf, &len);
    if (r == ENOMEM)
        return JS_ThrowOutOfMemory(c);
    if (r)
        return fail(c, PHASE_SECOND, r);
    JSValue ab = JS_NewArrayBuffer(c, buf, len, free_buffer, NULL, 0);
    if (JS_IsException(ab))
        js_free(c, buf);
    return ab;
}

/* Whether standard input is a terminal (the host says so through fd 0's type). */
static JSValue js_fs_stdin_is_tty(JSContext *c, JSValueConst this_val, int argc,
                                  JSValueConst *argv)
{
    (void)this_val;
    (void)argc;
    (void)argv;
    return JS_NewBool(c, !stdin_text_on && isatty(0));
}

/* __capsaFs.stdinSource(): a name that changes when standard input may have: at
 * each run (the host may have given another) and each `js` command. */
static JSValue js_fs_stdin_source(JSContext *c, JSValueConst this_val, int argc,
                                  JSValueConst *argv)
{
    (void)this_val;
    (void)argc;
    (void)argv;
    char name[32];
    snprintf(name, sizeof(name), "%u:%u", (unsigned)capsa_loop_run_id(), (unsigned)stdin_source);
    return JS_NewString(c, name);
}

/* The bytes of a typed array. Returns 0, or -1 when v is not one (or its buffer
 * is detached). The pointer is valid until JS next runs. */
static int typed_array_bytes(JSContext *c, JSValueConst v, const uint8_t **p, size_t *len)
{
    size_t offset, length, bpe, size;
    JSValue buf = JS_GetTypedArrayBuffer(c, v, &offset, &length, &bpe);
    if (JS_IsException(buf))
        return -1;
    uint8_t *data = JS_GetArrayBuffer(c, &size, buf);
    JS_FreeValue(c, buf);
    if (!data || offset > size || length > size - offset)
        return -1;
    *p = data + offset;
    *len = length;
    return 0;
}

/* QuickJS writes a lone surrogate as its own 3-byte sequence (ED A0..BF xx);
 * Node writes U+FFFD (EF BF BD), of the same length. */
static int has_lone_surrogates(const uint8_t *p, size_t len)
{
    for (size_t i = 0; i + 2 < len; i++)
        if (p[i] == 0xED && p[i + 1] >= 0xA0)
            return 1;
    return 0;
}

static void replace_lone_surrogates(uint8_t *p, size_t len)
{
    for (size_t i = 0; i + 2 < len; i++) {
        if (p[i] == 0xED && p[i + 1] >= 0xA0) {
            p[i] = 0xEF;
            p[i + 1] = 0xBF;
            p[i + 2] = 0xBD;
            i += 2;
        }
    }
}

/* Writes all of data[0..len) to fd, looping on short writes. Returns 0 or errno. */
static int write_all(int fd, const uint8_t *data, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return errno;
        if (n == 0)
            return EIO;
        data += n;
        len -= (size_t)n;
    }
    return 0;
}

/* __capsaFs.write(path, data, flags): writes a string (as UTF-8) or the bytes
 * of a Uint8Array to the file, created if missing; truncated first, or appended
 * to with WRITE_APPEND; WRITE_EXCL fails if it exists. */
static JSValue js_fs_write(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    char *path;
    int32_t flags = 0;
    (void)this_val;
    if (argc < 3 || JS_ToInt32(c, &flags, argv[2]))
        return JS_EXCEPTION;
    const char *str = NULL;
    uint8_t *fixed = NULL;
    const uint8_t *data;
    size_t len;
    if (JS_IsString(argv[1])) {
        str = JS_ToCStringLen(c, &len, argv[1]);
        if (!str)
            return JS_EXCEPTION;
        data = (const uint8_t *)str;
        if (has_lone_surrogates(data, len)) {
            fixed = js_malloc(c, len + 1);
            if (!fixed) {
                JS_FreeCString(c, str);
                return JS_EXCEPTION;
            }
            memcpy(fixed, data, len);
            replace_lone_surrogates(fixed, len);
            data = fixed;
        }
    } else if (typed_array_bytes(c, argv[1], &data, &len) < 0) {
        JS_FreeValue(c, JS_GetException(c));
        return JS_ThrowTypeError(c, "write: data must be a string or a Uint8Array");
    }
    JSValue ret = JS_UNDEFINED;
    int r = get_path(c, argv[0], &path);
    if (r) {
        ret = path_failure(c, r);
    } else {
        int oflags = O_WRONLY | O_CREAT | (flags & WRITE_APPEND ? O_APPEND : O_TRUNC) |
                     (flags & WRITE_EXCL ? O_EXCL : 0);
        int fd = open(path, oflags, 0666);
        js_free(c, path);
        if (fd < 0) {
            ret = fail(c, PHASE_FIRST, errno);
        } else {
            int err = write_all(fd, data, len);
            if (close(fd) != 0 && !err)
                err = errno;
            if (err)
                ret = fail(c, PHASE_SECOND, err);
        }
    }
    js_free(c, fixed);
    if (str)
        JS_FreeCString(c, str);
    return ret;
}

/* Node's numbering of file types (its Dirent and UV_DIRENT_* values). */
enum { TYPE_UNKNOWN = 0, TYPE_FILE = 1, TYPE_DIR = 2, TYPE_LINK = 3, TYPE_FIFO = 4,
       TYPE_SOCKET = 5, TYPE_CHAR = 6, TYPE_BLOCK = 7 };

static int type_of_mode(mode_t m)
{
    return S_ISREG(m) ? TYPE_FILE : S_ISDIR(m) ? TYPE_DIR : S_ISLNK(m) ? TYPE_LINK
         : S_ISFIFO(m) ? TYPE_FIFO : S_ISSOCK(m) ? TYPE_SOCKET : S_ISCHR(m) ? TYPE_CHAR
         : S_ISBLK(m) ? TYPE_BLOCK : TYPE_UNKNOWN;
}

static double ms_of(struct timespec ts)
{
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* __capsaFs.stat(path, follow): [type, size, atimeMs, mtimeMs, ctimeMs, ino,
 * nlink, dev] of the file (of a symlink itself unless follow). */
static JSValue js_fs_stat(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    char *path;
    struct stat st;
    (void)this_val;
    int follow = argc > 1 && JS_ToBool(c, argv[1]);
    int r = get_path(c, argv[0], &path);
    if (r)
        return path_failure(c, r);
    r = follow ? stat(path, &st) : lstat(path, &st);
    int err = errno;
    js_free(c, path);
    if (r != 0)
        return fail(c, PHASE_FIRST, err);
    double v[8] = { type_of_mode(st.st_mode), (double)st.st_size, ms_of(st.st_atim),
                    ms_of(st.st_mtim), ms_of(st.st_ctim), (double)st.st_ino,
                    (double)st.st_nlink, (double)st.st_dev };
    JSValue a = JS_NewArray(c);
    if (JS_IsException(a))
        return a;
    for (uint32_t i = 0; i < 8; i++) {
        if (JS_SetPropertyUint32(c, a, i, JS_NewFloat64(c, v[i])) < 0) {
            JS_FreeValue(c, a);
            return JS_EXCEPTION;
        }
    }
    return a;
}

static int type_of_dirent(unsigned char t)
{
    switch (t) {
    case DT_REG: return TYPE_FILE;
    case DT_DIR: return TYPE_DIR;
    case DT_LNK: return TYPE_LINK;
    case DT_CHR: return TYPE_CHAR;
    case DT_BLK: return TYPE_BLOCK;
    default: return TYPE_UNKNOWN;
    }
}

/* __capsaFs.readdir(path): [name, type, name, type, ...] of the directory's
 * entries, without "." and "..", in the filesystem's order. */
static JSValue js_fs_readdir(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    char *path;
    (void)this_val;
    (void)argc;
    int r = get_path(c, argv[0], &path);
    if (r)
        return path_failure(c, r);
    DIR *dir = opendir(path);
    int err = errno;
    js_free(c, path);
    if (!dir)
        return fail(c, PHASE_FIRST, err);
    JSValue a = JS_NewArray(c);
    uint32_t n = 0;
    while (!JS_IsException(a)) {
        errno = 0;
        struct dirent *d = readdir(dir);
        if (!d) {
            if (errno) {
                JS_FreeValue(c, a);
                a = fail(c, PHASE_SECOND, errno);
            }
            break;
        }
        if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
            continue;
        if (JS_SetPropertyUint32(c, a, n++, JS_NewString(c, d->d_name)) < 0 ||
            JS_SetPropertyUint32(c, a, n++, JS_NewInt32(c, type_of_dirent(d->d_type))) < 0) {
            JS_FreeValue(c, a);
            a = JS_EXCEPTION;
        }
    }
    closedir(dir);
    return a;
}

/* The natives that take one path and return nothing: mkdir, rmdir, unlink. */
static JSValue path_op(JSContext *c, JSValueConst v, int (*op)(const char *))
{
    char *path;
    int r = get_path(c, v, &path);
    if (r)
        return path_failure(c, r);
    r = op(path);
    int err = errno;
    js_free(c, path);
    return r == 0 ? JS_UNDEFINED : fail(c, PHASE_FIRST, err);
}

static int do_mkdir(const char *path)
{
    return mkdir(path, 0777);
}

/* __capsaFs.mkdir(path), rmdir(path), unlink(path). */
static JSValue js_fs_mkdir(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    (void)argc;
    return path_op(c, argv[0], do_mkdir);
}

static JSValue js_fs_rmdir(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    (void)argc;
    return path_op(c, argv[0], rmdir);
}

static JSValue js_fs_unlink(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    (void)this_val;
    (void)argc;
    return path_op(c, argv[0], unlink);
}

/* __capsaFs.rename(from, to). */
static JSValue js_fs_rename(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    char *from, *to;
    (void)this_val;
    if (argc < 2)
        return JS_EXCEPTION;
    int r = get_path(c, argv[0], &from);
    if (r)
        return path_failure(c, r);
    r = get_path(c, argv[1], &to);
    if (r) {
        js_free(c, from);
        return path_failure(c, r);
    }
    r = rename(from, to);
    int err = errno;
    js_free(c, from);
    js_free(c, to);
    return r == 0 ? JS_UNDEFINED : fail(c, PHASE_FIRST, err);
}

/* __capsaFs.symlink(target, path): target is stored as given. */
static JSValue js_fs_symlink(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    char *path;
    size_t tlen;
    (void)this_val;
    if (argc < 2)
        return JS_EXCEPTION;
    const char *target = JS_ToCStringLen(c, &tlen, argv[0]);
    if (!target)
        return JS_EXCEPTION;
    JSValue ret;
    int r = get_path(c, argv[1], &path);
    if (r) {
        ret = path_failure(c, r);
    } else {
        if (tlen == 0 || strlen(target) != tlen) {
            ret = fail(c, PHASE_FIRST, tlen ? EINVAL : ENOENT);
        } else {
            r = symlink(target, path);
            ret = r == 0 ? JS_UNDEFINED : fail(c, PHASE_FIRST, errno);
        }
        js_free(c, path);
    }
    JS_FreeCString(c, target);
    return ret;
}

/* __capsaFs.readlink(path): a symlink's target. */
static JSValue js_fs_readlink(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    char *path;
    (void)this_val;
    (void)argc;
    int r = get_path(c, argv[0], &path);
    if (r)
        return path_failure(c, r);
    JSValue ret = JS_EXCEPTION;
    for (size_t size = 256; size <= 65536; size *= 4) {
        char *buf = js_malloc(c, size);
        if (!buf)
            break;
        ssize_t n = readlink(path, buf, size);
        if (n < 0)
            ret = fail(c, PHASE_FIRST, errno);
        else if ((size_t)n < size)
            ret = JS_NewStringLen(c, buf, (size_t)n);
        js_free(c, buf);
        if (n < 0 || (size_t)n < size)
            break;
        ret = fail(c, PHASE_FIRST, ENAMETOOLONG);
    }
    js_free(c, path);
    return ret;
}

/* __capsaFs.truncate(path, length): sets a file's size. */
static JSValue js_fs_truncate(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    char *path;
    int64_t size;
    (void)this_val;
    if (argc < 2 || JS_ToInt64(c, &size, argv[1]))
        return JS_EXCEPTION;
    int r = get_path(c, argv[0], &path);
    if (r)
        return path_failure(c, r);
    int fd = open(path, O_WRONLY);
    js_free(c, path);
    if (fd < 0)
        return fail(c, PHASE_FIRST, errno);
    int err = ftruncate(fd, size < 0 ? 0 : (off_t)size) == 0 ? 0 : errno;
    close(fd);
    return err ? fail(c, PHASE_SECOND, err) : JS_UNDEFINED;
}

static struct timespec timespec_of(double seconds)
{
    struct timespec ts;
    if (!(seconds >= 0) || seconds > 1e15)
        seconds = 0;
    double whole = floor(seconds);
    ts.tv_sec = (time_t)whole;
    ts.tv_nsec = (long)((seconds - whole) * 1e9);
    if (ts.tv_nsec > 999999999)
        ts.tv_nsec = 999999999;
    return ts;
}

/* __capsaFs.utimes(path, atime, mtime): sets the times (seconds since the
 * epoch) of the file a path leads to. */
static JSValue js_fs_utimes(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    char *path;
    double at, mt;
    (void)this_val;
    if (argc < 3 || JS_ToFloat64(c, &at, argv[1]) || JS_ToFloat64(c, &mt, argv[2]))
        return JS_EXCEPTION;
    int r = get_path(c, argv[0], &path);
    if (r)
        return path_failure(c, r);
    struct timespec ts[2] = { timespec_of(at), timespec_of(mt) };
    r = utimensat(AT_FDCWD, path, ts, 0);
    int err = errno;
    js_free(c, path);
    return r == 0 ? JS_UNDEFINED : fail(c, PHASE_FIRST, err);
}

/* __capsaFs.resolve(path): the absolute path the natives use for path. */
static JSValue js_fs_resolve(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    char *path;
    (void)this_val;
    (void)argc;
    int r = get_path(c, argv[0], &path);
    if (r)
        return path_failure(c, r);
    JSValue s = JS_NewString(c, path);
    js_free(c, path);
    return s;
}

/* Node's code, Linux errno and libuv message for each error a native returns.
 * ENOTCAPABLE (a path that leaves what WASI lets the guest reach) has no Linux
 * counterpart: Node-shaped code sees it as EACCES. */
static const struct fs_error {
    int err;
    const char *code;
    int node_errno;
    const char *text;
} fs_errors[] = {
    { ENOENT, "ENOENT", -2, "no such file or directory" },
    { EACCES, "EACCES", -13, "permission denied" },
    { ENOTCAPABLE, "EACCES", -13, "permission denied" },
    { EPERM, "EPERM", -1, "operation not permitted" },
    { EROFS, "EROFS", -30, "read-only file system" },
    { EEXIST, "EEXIST", -17, "file already exists" },
    { ENOTDIR, "ENOTDIR", -20, "not a directory" },
    { EISDIR, "EISDIR", -21, "illegal operation on a directory" },
    { ENOTEMPTY, "ENOTEMPTY", -39, "directory not empty" },
    { ENOSPC, "ENOSPC", -28, "no space left on device" },
    { EDQUOT, "EDQUOT", -122, "disk quota exceeded" },
    { EFBIG, "EFBIG", -27, "file too large" },
    { ELOOP, "ELOOP", -40, "too many symbolic links encountered" },
    { ENAMETOOLONG, "ENAMETOOLONG", -36, "name too long" },
    { EINVAL, "EINVAL", -22, "invalid argument" },
    { EBADF, "EBADF", -9, "bad file descriptor" },
    { EXDEV, "EXDEV", -18, "cross-device link not permitted" },
    { EBUSY, "EBUSY", -16, "resource busy or locked" },
    { EMFILE, "EMFILE", -24, "too many open files" },
    { ENFILE, "ENFILE", -23, "file table overflow" },
    { ENOMEM, "ENOMEM", -12, "not enough memory" },
    { EMLINK, "EMLINK", -31, "too many links" },
    { EILSEQ, "EILSEQ", -84, "illegal byte sequence" },
    { EIO, "EIO", -5, "i/o error" },
    { ENOSYS, "ENOSYS", -38, "function not implemented" },
    { ENOTSUP, "ENOTSUP", -95, "operation not supported on socket" },
    { EAGAIN, "EAGAIN", -11, "resource temporarily unavailable" },
    { EOVERFLOW, "EOVERFLOW", -75, "value too large for defined data type" },
    { ESPIPE, "ESPIPE", -29, "invalid seek" },
};

/* __capsaFs.describe(errno): [code, Node's errno, message] of a WASI errno. */
static JSValue js_fs_describe(JSContext *c, JSValueConst this_val, int argc, JSValueConst *argv)
{
    int32_t err = 0;
    (void)this_val;
    if (argc < 1 || JS_ToInt32(c, &err, argv[0]))
        return JS_EXCEPTION;
    const char *code = "UNKNOWN", *text = "unknown error";
    int node_errno = -4094;
    for (size_t i = 0; i < sizeof(fs_errors) / sizeof(fs_errors[0]); i++) {
        if (fs_errors[i].err == err) {
            code = fs_errors[i].code;
            node_errno = fs_errors[i].node_errno;
            text = fs_errors[i].text;
            break;
        }
    }
    JSValue a = JS_NewArray(c);
    if (JS_IsException(a))
        return a;
    if (JS_SetPropertyUint32(c, a, 0, JS_NewString(c, code)) < 0 ||
        JS_SetPropertyUint32(c, a, 1, JS_NewInt32(c, node_errno)) < 0 ||
        JS_SetPropertyUint32(c, a, 2, JS_NewString(c, text)) < 0) {
        JS_FreeValue(c, a);
        return JS_EXCEPTION;
    }
    return a;
}

/* ---- modules ------------------------------------------------------------------- */

/* The name of the synthetic module of the built-in module a specifier names
 * ("fs" or "node:fs" give "node:fs"): 1 with *out js_malloc'd (the caller
 * js_frees it), 0 when it names none, -1 out of memory (exception pending). */
static int builtin_module(JSContext *c, const char *name, char **out)
{
    const char *bare = strncmp(name, "node:", 5) == 0 ? name + 5 : name;
    JSValue v = JS_GetPropertyStr(c, fs_builtins, bare);
    if (JS_IsException(v))
        return -1;
    int found = !JS_IsUndefined(v);
    JS_FreeValue(c, v);
    if (!found)
        return 0;
    size_t len = strlen(bare);
    char *r = js_malloc(c, len + 6);
    if (!r)
        return -1;
    memcpy(r, "node:", 5);
    memcpy(r + 5, bare, len + 1);
    *out = r;
    return 1;
}

static int is_fs_module(JSContext *c, const char *name)
{
    JSValue v = JS_GetPropertyStr(c, module_names, name);
    int r = JS_ToBool(c, v);
    JS_FreeValue(c, v);
    return r > 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* Throws the error fs.js's moduleError makes: kind is "module" (not found),
 * "package" (a bare specifier), "builtin" (node:x other than the built-in ones),
 * "directory", or "fs" (another error reading it, rc as a native returns it). */
static void throw_module_error(JSContext *c, const char *kind, const char *specifier, int rc)
{
    JSValue args[4] = { JS_NewString(c, kind), JS_NewString(c, specifier),
                        importer ? JS_NewString(c, importer) : JS_UNDEFINED,
                        JS_NewInt32(c, rc) };
    JSValue err = JS_Call(c, fs_module_error, JS_UNDEFINED, 4, (JSValueConst *)args);
    for (int i = 0; i < 4; i++)
        JS_FreeValue(c, args[i]);
    if (!JS_IsException(err))
        JS_Throw(c, err);
}

/* The file of the package `name` imported from the directory dir, found in the
 * node_modules directories as Node finds it (fs.js's resolvePackage): a
 * js_malloc'd path, or NULL with an exception pending (the package's error when
 * there is none). */
static char *resolve_package(JSContext *c, const char *dir, const char *name)
{
    JSValue args[2] = { JS_NewString(c, name), JS_NewString(c, dir) };
    JSValue r = JS_Call(c, fs_resolve_package, JS_UNDEFINED, 2, (JSValueConst *)args);
    JS_FreeValue(c, args[0]);
    JS_FreeValue(c, args[1]);
    if (JS_IsException(r))
        return NULL;
    if (!JS_IsString(r)) {
        JS_FreeValue(c, r);
        throw_module_error(c, "package", name, 0);
        return NULL;
    }
    const char *path = JS_ToCString(c, r);
    JS_FreeValue(c, r);
    if (!path)
        return NULL;
    char *copy = js_strdup(c, path);
    JS_FreeCString(c, path);
    return copy;
}

/* QuickJS's normalizer: the module name a specifier in module `base` names.
 * Built-in modules ("fs", "node:fs") name their synthetic "node:" module; paths
 * (absolute, "./", "../", file:///) resolve against the directory of base when
 * base is a module read from the filesystem, else against FS_CWD; anything else
 * is a package in node_modules (resolve_package). Returns a js_malloc'd name, or
 * NULL with an exception pending. */
static char *module_normalize(JSContext *c, const char *base, const char *name, void *opaque)
{
    (void)opaque;
    normalize_calls++;
    char *builtin = NULL;
    int b = builtin_module(c, name, &builtin);
    if (b != 0)
        return builtin;
    int from_module = is_fs_module(c, base);
    js_free(c, importer);
    importer = from_module ? js_strdup(c, base) : NULL;
    if (!strncmp(name, "file://", 7))
        name += 7;
    size_t len = strlen(name);
    int is_path = name[0] == '/' || !strcmp(name, ".") || !strcmp(name, "..") ||
                  !strncmp(name, "./", 2) || !strncmp(name, "../", 3);
    if (!is_path && !strncmp(name, "node:", 5)) {
        throw_module_error(c, "builtin", name, 0);
        return NULL;
    }
    char *dir;
    if (!from_module) {
        dir = js_strdup(c, FS_CWD);
    } else {
        const char *slash = strrchr(base, '/');
        size_t dlen = slash && slash != base ? (size_t)(slash - base) : 1;
        dir = js_malloc(c, dlen + 1);
        if (dir) {
            memcpy(dir, base, dlen);
            dir[dlen] = '\0';
        }
    }
    if (!dir)
        return NULL;
    char *r = is_path ? resolve_path(c, dir, name, len, 1) : resolve_package(c, dir, name);
    js_free(c, dir);
    return r;
}

/* The object a synthetic module exports: a built-in module's ("node:x"), or
 * the module.exports of a CommonJS file (loaded already, so fs.js gives its
 * cached exports). */
static JSValue synthetic_exports(JSContext *c, const char *name)
{
    if (!strncmp(name, "node:", 5))
        return JS_GetPropertyStr(c, fs_builtins, name + 5);
    JSValue args[2] = { JS_NewString(c, name), JS_UNDEFINED };
    JSValue r = JS_Call(c, fs_load_commonjs, JS_UNDEFINED, 2, (JSValueConst *)args);
    JS_FreeValue(c, args[0]);
    return r;
}

/* Declares (m, not yet evaluated) or sets (evaluating) the exports of a
 * synthetic module: `default` is the object, and each of its enumerable own
 * properties is a named export (none when it is not an object). Returns 0 or -1
 * (exception pending). */
static int synthetic_exports_do(JSContext *c, JSModuleDef *m, const char *name, int set)
{
    JSValue obj = synthetic_exports(c, name);
    if (JS_IsException(obj))
        return -1;
    JSPropertyEnum *tab = NULL;
    uint32_t n = 0;
    if (JS_IsObject(obj) &&
        JS_GetOwnPropertyNames(c, &tab, &n, obj, JS_GPN_STRING_MASK | JS_GPN_ENUM_ONLY) < 0) {
        JS_FreeValue(c, obj);
        return -1;
    }
    int r = set ? JS_SetModuleExport(c, m, "default", JS_DupValue(c, obj))
                : JS_AddModuleExport(c, m, "default");
    for (uint32_t i = 0; i < n; i++) {
        const char *key = r < 0 ? NULL : JS_AtomToCString(c, tab[i].atom);
        if (!key)
            r = -1;
        else if (strcmp(key, "default"))
            r = set ? JS_SetModuleExport(c, m, key, JS_GetProperty(c, obj, tab[i].atom))
                    : JS_AddModuleExport(c, m, key);
        JS_FreeCString(c, key);
    }
    for (uint32_t i = 0; i < n; i++)
        JS_FreeAtom(c, tab[i].atom);
    js_free(c, tab);
    JS_FreeValue(c, obj);
    return r < 0 ? -1 : 0;
}

static int synthetic_module_init(JSContext *c, JSModuleDef *m)
{
    JSAtom atom = JS_GetModuleName(c, m);
    const char *name = JS_AtomToCString(c, atom);
    JS_FreeAtom(c, atom);
    if (!name)
        return -1;
    int r = synthetic_exports_do(c, m, name, 1);
    JS_FreeCString(c, name);
    return r;
}

/* A synthetic module named name, its exports declared. NULL with an exception
 * pending. */
static JSModuleDef *synthetic_module(JSContext *c, const char *name)
{
    JSModuleDef *m = JS_NewCModule(c, name, synthetic_module_init);
    if (!m || synthetic_exports_do(c, m, name, 0) < 0)
        return NULL;
    return m;
}

/* The module of the CommonJS file (or JSON file) `name`, fn its compiled wrapper
 * (taken; JS_UNDEFINED: fs.js reads and compiles it): it runs now, once, and
 * its module.exports becomes the module's exports. */
static JSModuleDef *commonjs_module(JSContext *c, const char *name, JSValue fn)
{
    JSValue args[2] = { JS_NewString(c, name), fn };
    JSValue exports = JS_Call(c, fs_load_commonjs, JS_UNDEFINED, 2, (JSValueConst *)args);
    JS_FreeValue(c, args[0]);
    JS_FreeValue(c, args[1]);
    if (JS_IsException(exports))
        return NULL;
    JS_FreeValue(c, exports);
    return synthetic_module(c, name);
}

/* Compiles src[0..len) (src[len] must be NUL) as the body of a CommonJS
 * module's wrapper function, on the line numbers of the file (a "#!" first line
 * becomes a comment): the function, or JS_EXCEPTION. */
static JSValue compile_commonjs(JSContext *c, const char *src, size_t len, const char *filename)
{
    static const char head[] = "(function (exports, require, module, __filename, __dirname) { ";
    static const char tail[] = "\n})";
    size_t hlen = sizeof(head) - 1, tlen = sizeof(tail) - 1;
    if (len > SIZE_MAX - hlen - tlen - 1)
        return JS_ThrowRangeError(c, "the module is too large");
    char *buf = js_malloc(c, hlen + len + tlen + 1);
    if (!buf)
        return JS_EXCEPTION;
    memcpy(buf, head, hlen);
    memcpy(buf + hlen, src, len);
    if (len >= 2 && src[0] == '#' && src[1] == '!')
        buf[hlen] = buf[hlen + 1] = '/';
    memcpy(buf + hlen + len, tail, tlen + 1);
    JSValue fn = JS_Eval(c, buf, hlen + len + tlen, filename, JS_EVAL_TYPE_GLOBAL);
    js_free(c, buf);
    return fn;
}

/* Compiles the ES module src[0..len) named name (its imports are loaded, and its
 * import.meta filled); flags adds JS_EVAL_FLAG_ASYNC for the run's main module.
 * *parsed says whether it parsed (its imports were resolved), also when this
 * fails. NULL with an exception pending. */
static JSModuleDef *compile_module(JSContext *c, const char *src, size_t len, const char *name,
                                   int flags, int *parsed)
{
    /* Compiling resolves (and so loads) the module's own imports, which are
       relative to it: it must be known as a module read from a file first. */
    if (JS_SetPropertyStr(c, module_names, name, JS_TRUE) < 0) {
        *parsed = 0;
        return NULL;
    }
    uint32_t calls = normalize_calls;
    JSValue fn = JS_Eval(c, src, len, name,
                         JS_EVAL_TYPE_MODULE | JS_EVAL_FLAG_COMPILE_ONLY | flags);
    *parsed = !JS_IsException(fn) || normalize_calls != calls;
    if (JS_IsException(fn))
        return NULL;
    JSModuleDef *m = JS_VALUE_GET_PTR(fn);
    JS_FreeValue(c, fn);
    JSValue meta = JS_GetImportMeta(c, m);
    if (JS_IsException(meta))
        return NULL;
    JSValue args[2] = { meta, JS_NewString(c, name) };
    JSValue ok = JS_Call(c, fs_import_meta, JS_UNDEFINED, 2, (JSValueConst *)args);
    JS_FreeValue(c, args[0]);
    JS_FreeValue(c, args[1]);
    if (JS_IsException(ok))
        return NULL;
    JS_FreeValue(c, ok);
    return m;
}

/* Whether the pending exception's property prop (a string) passes test; the
 * exception stays pending. */
static int pending_error_test(JSContext *c, const char *prop, int (*test)(const char *))
{
    JSValue err = JS_GetException(c);
    JSValue v = JS_GetPropertyStr(c, err, prop);
    const char *str = JS_IsString(v) ? JS_ToCString(c, v) : NULL;
    int r = str && test(str);
    JS_FreeCString(c, str);
    JS_FreeValue(c, v);
    JS_Throw(c, err);
    return r;
}

/* A SyntaxError's name; the CommonJS compiler's message when it stopped at ES
 * module syntax (import or export). */
static int is_syntax_error(const char *name)
{
    return !strcmp(name, "SyntaxError");
}

static int names_module_syntax(const char *message)
{
    return strstr(message, "import") || strstr(message, "export");
}

/* A file that is neither ".mjs" nor ".cjs" nor ".json": CommonJS when it
 * compiles as a CommonJS wrapper, else an ES module when it parses as one (the
 * error is then the module's), else the CommonJS compiler's SyntaxError, or the
 * module's when that one stopped at import or export (the file is meant as a
 * module). */
static JSModuleDef *load_js(JSContext *c, const char *name, const char *src, size_t len)
{
    JSValue fn = compile_commonjs(c, src, len, name);
    if (!JS_IsException(fn))
        return commonjs_module(c, name, fn);
    if (!pending_error_test(c, "name", is_syntax_error))
        return NULL;
    int module_syntax = pending_error_test(c, "message", names_module_syntax);
    JSValue cjs_error = JS_GetException(c);
    int parsed;
    JSModuleDef *m = compile_module(c, src, len, name, 0, &parsed);
    if (!m && !parsed && !module_syntax) {
        JS_FreeValue(c, JS_GetException(c));
        JS_Throw(c, cjs_error);
        return NULL;
    }
    JS_FreeValue(c, cjs_error);
    return m;
}

/* QuickJS's loader: the module named `name` (as module_normalize made it),
 * synthetic (built-in, CommonJS, JSON) or compiled from the file of that path.
 * Returns NULL with an exception pending when it cannot be read or compiled. */
static JSModuleDef *module_load(JSContext *c, const char *name, void *opaque)
{
    (void)opaque;
    if (!strncmp(name, "node:", 5))
        return synthetic_module(c, name);
    uint8_t *src;
    size_t len;
    int r = read_file(c, name, &src, &len);
    if (r < 0)
        return NULL;
    if (r > 0) {
        int err = r % FS_PHASE;
        throw_module_error(c, err == ENOENT || err == ENOTDIR ? "module"
                              : err == EISDIR ? "directory" : "fs",
                           name, -r);
        return NULL;
    }
    JSModuleDef *m;
    int parsed;
    if (ends_with(name, ".cjs") || ends_with(name, ".json"))
        m = commonjs_module(c, name, JS_UNDEFINED);
    else if (ends_with(name, ".mjs"))
        m = compile_module(c, (const char *)src, len, name, 0, &parsed);
    else
        m = load_js(c, name, (const char *)src, len);
    js_free(c, src);
    return m;
}

JSValue capsa_fs_compile_main(JSContext *c, const char *code, size_t len, const char *name,
                              int *parsed)
{
    JSModuleDef *m = compile_module(c, code, len, name, JS_EVAL_FLAG_ASYNC, parsed);
    return m ? JS_DupValue(c, JS_MKPTR(JS_TAG_MODULE, m)) : JS_EXCEPTION;
}

/* __capsaFs.compileCommonJS(source, filename): the wrapper function of a
 * CommonJS module's source; throws its SyntaxError. */
static JSValue js_fs_compile_commonjs(JSContext *c, JSValueConst this_val, int argc,
                                      JSValueConst *argv)
{
    (void)this_val;
    if (argc < 2)
        return JS_ThrowTypeError(c, "compileCommonJS(source, filename)");
    size_t len;
    const char *src = JS_ToCStringLen(c, &len, argv[0]);
    const char *name = src ? JS_ToCString(c, argv[1]) : NULL;
    JSValue fn = name ? compile_commonjs(c, src, len, name) : JS_EXCEPTION;
    JS_FreeCString(c, src);
    JS_FreeCString(c, name);
    return fn;
}

/* __capsaFs.importModule(filename): the namespace of the ES module in the file
 * (loaded and evaluated now, unless it was already), for require(). */
static JSValue js_fs_import_module(JSContext *c, JSValueConst this_val, int argc,
                                   JSValueConst *argv)
{
    (void)this_val;
    const char *name = argc > 0 ? JS_ToCString(c, argv[0]) : NULL;
    if (!name)
        return JS_EXCEPTION;
    JSModuleDef *m = JS_RunModule(c, "", name);
    JS_FreeCString(c, name);
    return m ? JS_GetModuleNamespace(c, m) : JS_EXCEPTION;
}

static const JSCFunctionListEntry fs_funcs[] = {
    JS_CFUNC_DEF("read", 1, js_fs_read),
    JS_CFUNC_DEF("readStdin", 1, js_fs_read_stdin),
    JS_CFUNC_DEF("stdinIsTTY", 0, js_fs_stdin_is_tty),
    JS_CFUNC_DEF("stdinSource", 0, js_fs_stdin_source),
    JS_CFUNC_DEF("write", 3, js_fs_write),
    JS_CFUNC_DEF("stat", 2, js_fs_stat),
    JS_CFUNC_DEF("readdir", 1, js_fs_readdir),
    JS_CFUNC_DEF("mkdir", 1, js_fs_mkdir),
    JS_CFUNC_DEF("rmdir", 1, js_fs_rmdir),
    JS_CFUNC_DEF("unlink", 1, js_fs_unlink),
    JS_CFUNC_DEF("rename", 2, js_fs_rename),
    JS_CFUNC_DEF("symlink", 2, js_fs_symlink),
    JS_CFUNC_DEF("readlink", 1, js_fs_readlink),
    JS_CFUNC_DEF("truncate", 2, js_fs_truncate),
    JS_CFUNC_DEF("utimes", 3, js_fs_utimes),
    JS_CFUNC_DEF("resolve", 1, js_fs_resolve),
    JS_CFUNC_DEF("describe", 1, js_fs_describe),
    JS_CFUNC_DEF("compileCommonJS", 2, js_fs_compile_commonjs),
    JS_CFUNC_DEF("importModule", 1, js_fs_import_module),
};

void capsa_fs_add_natives(JSContext *c, JSValueConst obj)
{
    JS_SetPropertyFunctionList(c, obj, fs_funcs, sizeof(fs_funcs) / sizeof(fs_funcs[0]));
}

int capsa_fs_init(JSContext *c, JSValueConst exports)
{
    /* Relative paths given to wasi-libc itself (not through these natives)
       resolve from the working directory too. The image is made with the
       sandbox's filesystem in place; without it (no /workspace) the directory
       stays "/". */
    if (chdir(FS_CWD) != 0)
        errno = 0;
    fs_builtins = JS_GetPropertyStr(c, exports, "builtins");
    fs_module_error = JS_GetPropertyStr(c, exports, "moduleError");
    fs_import_meta = JS_GetPropertyStr(c, exports, "importMeta");
    fs_load_commonjs = JS_GetPropertyStr(c, exports, "loadCommonJS");
    fs_resolve_package = JS_GetPropertyStr(c, exports, "resolvePackage");
    module_names = JS_NewObjectProto(c, JS_NULL);
    if (JS_IsException(fs_builtins) || JS_IsException(fs_module_error) ||
        JS_IsException(fs_import_meta) || JS_IsException(fs_load_commonjs) ||
        JS_IsException(fs_resolve_package) ||
        JS_IsException(module_names))
        return -1;
    JS_SetModuleLoaderFunc(JS_GetRuntime(c), module_normalize, module_load, NULL);
    return 0;
}
