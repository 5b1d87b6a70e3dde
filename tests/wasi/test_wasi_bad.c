/* Bad guest input to the WASI host (src/wasi.c), calling the imports directly as
 * a guest would: wild pointers and huge lengths are EFAULT and never make the
 * host touch memory outside the guest's (its one page sits between inaccessible
 * pages, so a stray access would crash this test), bad descriptors are EBADF,
 * missing rights ENOTCAPABLE, ".." and absolute paths cannot leave a preopened
 * directory, and proc_exit unwinds the guest call. */
#define _GNU_SOURCE
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "buf.h"
#include "rt.h"
#include "test.h"
#include "vfs.h"
#include "wasi.h"

#define PAGE 65536u
#define RIGHT_FD_READ (1ull << 1)
#define RIGHT_FD_SEEK (1ull << 2)
#define RIGHT_FD_WRITE (1ull << 6)
#define RIGHT_FD_READDIR (1ull << 14)
#define RIGHT_FD_FILESTAT_SET_SIZE (1ull << 22)
#define FD_WS 3   /* /workspace, preopened as "workspace" */
#define FD_ROOT 4 /* /, preopened as "/" */

static wasm_rt_memory_t mem;
static uint8_t *m;       /* mem.data */
static capsa__vfs *vfs;
static capsa__wasi w;
static int outputs;      /* calls of the output hook */
static char out_text[256];
static size_t out_len;

static void output(void *ud, int fd, const char *data, size_t len)
{
    (void)ud;
    (void)fd;
    outputs++;
    size_t n = len < sizeof(out_text) - out_len ? len : sizeof(out_text) - out_len;
    memcpy(out_text + out_len, data, n);
    out_len += n;
}

static void put32(uint32_t at, uint32_t v)
{
    memcpy(m + at, &v, 4);
}

static uint32_t get32(uint32_t at)
{
    uint32_t v;
    memcpy(&v, m + at, 4);
    return v;
}

/* Writes s at `at` in guest memory; returns its length. */
static uint32_t put_str(uint32_t at, const char *s)
{
    memcpy(m + at, s, strlen(s));
    return (uint32_t)strlen(s);
}

/* Opens path under directory fd with the given base rights; returns the errno,
 * the new fd in *fd. */
static uint32_t open_at(uint32_t dirfd, const char *path, uint32_t oflags, uint64_t rights,
                        uint32_t *fd)
{
    uint32_t len = put_str(1024, path);
    uint32_t err = Z_wasi_snapshot_preview1Z_path_open(&w, dirfd, 1, 1024, len, oflags, rights,
                                                       0, 0, 2048);
    *fd = get32(2048);
    return err;
}

/* A host file with the given contents. */
static void host_file(const char *path, const char *text)
{
    capsa__vnode *n;
    uint64_t end;
    int err = capsa__vfs_open(vfs, capsa__vfs_root(vfs), path, strlen(path), CAPSA__VFS_FOLLOW,
                              CAPSA__VFS_O_CREAT, 1u << CAPSA__VFS_WRITE, CAPSA__VFS_HOST, &n);
    CHECK_INT(err, 0, "creating a host file");
    if (err)
        return;
    CHECK_INT(capsa__vfs_write(vfs, n, 0, text, strlen(text), 0, &end, CAPSA__VFS_HOST), 0,
              "writing a host file");
    capsa__vfs_unref(vfs, n);
}

static const uint8_t stdin_bytes[] = "input";

static void setup(void)
{
    /* One page of guest memory between two inaccessible ones. */
    uint8_t *r = mmap(NULL, 3 * PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (r == MAP_FAILED || mprotect(r + PAGE, PAGE, PROT_READ | PROT_WRITE) != 0) {
        fprintf(stderr, "cannot map the test memory\n");
        exit(1);
    }
    m = r + PAGE;
    mem = (wasm_rt_memory_t){ .data = m, .pages = 1, .max_pages = 1, .size = PAGE };
    if (capsa__vfs_new(&capsa__default_allocator, NULL, &vfs) != 0) {
        fprintf(stderr, "cannot make a VFS\n");
        exit(1);
    }
    host_file("/workspace/f", "hello");
    host_file("/rofile", "secret");
    static const capsa__wasi_preopen pre[] = { { "/workspace", "workspace" }, { "/", "/" } };
    static const char *const argv[] = { "prog", "one", "two" };
    static const char *const envp[] = { "A=1" };
    capsa__wasi_config cfg = { pre, 2, argv, 3, envp, 1 };
    w.output = output;
    int err = capsa__wasi_init(&w, &capsa__default_allocator, vfs, &cfg);
    if (err) {
        fprintf(stderr, "capsa__wasi_init: errno %d\n", err);
        exit(1);
    }
    w.memory = &mem;
    static capsa__wasi_stdin in;
    in = (capsa__wasi_stdin){ .data = (uint8_t *)stdin_bytes, .len = 5 };
    w.stdin_src = &in;
}

TEST(fd_write_bad_pointers)
{
    outputs = 0;
    put_str(0, "abc");
    put32(100, 0);
    put32(104, 3);
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_write(&w, 1, 100, 1, 200), 0, "a good write");
    CHECK_INT(outputs, 1, "the good write reached the output");
    outputs = 0;
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_write(&w, 1, 0xfffffff0u, 1, 200), CAPSA__WASI_EFAULT,
              "iovec array outside memory");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_write(&w, 1, 100, 0x20000000u, 200), CAPSA__WASI_EFAULT,
              "huge iovec count");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_write(&w, 1, PAGE - 4, 1, 200), CAPSA__WASI_EFAULT,
              "iovec array crossing the end of memory");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_write(&w, 1, 100, 1, PAGE - 2), CAPSA__WASI_EFAULT,
              "nwritten crossing the end of memory");
    put32(104, 0xffffffffu);
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_write(&w, 1, 100, 1, 200), CAPSA__WASI_EFAULT,
              "huge buffer length");
    put32(100, PAGE - 2);
    put32(104, 3);
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_write(&w, 1, 100, 1, 200), CAPSA__WASI_EFAULT,
              "buffer one byte past the end");
    /* A good first buffer and a bad second one: nothing is written at all. */
    put32(100, 0);
    put32(104, 3);
    put32(108, 0xfffffff0u);
    put32(112, 100);
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_write(&w, 1, 100, 2, 200), CAPSA__WASI_EFAULT,
              "second buffer outside memory");
    CHECK_INT(outputs, 0, "no bad write reached the output");
    put32(100, PAGE - 3);
    put32(104, 3);
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_write(&w, 1, 100, 1, 200), 0,
              "buffer ending exactly at the end of memory");
}

TEST(fd_read_bad_pointers)
{
    uint32_t fd;
    CHECK_INT(open_at(FD_WS, "f", 0, RIGHT_FD_READ | RIGHT_FD_SEEK, &fd), 0, "opening f to read");
    put32(100, PAGE - 2);
    put32(104, 5);
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_read(&w, fd, 100, 1, 200), CAPSA__WASI_EFAULT,
              "read buffer crossing the end of memory");
    put32(104, 0xffffffffu);
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_read(&w, fd, 100, 1, 200), CAPSA__WASI_EFAULT,
              "huge read length");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_read(&w, fd, 100, 0xffffffffu, 200), CAPSA__WASI_EFAULT,
              "huge iovec count");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_pread(&w, fd, 0xfffffff8u, 1, 0, 200), CAPSA__WASI_EFAULT,
              "pread iovec outside memory");
    put32(100, 300);
    put32(104, 16);
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_read(&w, fd, 100, 1, 200), 0, "a good read");
    CHECK_INT(get32(200), 5, "bytes read");
    CHECK(memcmp(m + 300, "hello", 5) == 0, "the file's bytes");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_read(&w, fd, 100, 1, 200), 0, "a read at the end");
    CHECK_INT(get32(200), 0, "end of file");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_close(&w, fd), 0, "closing");
    /* stdin: its bytes, then end of file. */
    put32(104, 3);
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_read(&w, 0, 100, 1, 200), 0, "reading stdin");
    CHECK_INT(get32(200), 3, "stdin bytes");
    put32(104, 16);
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_read(&w, 0, 100, 1, 200), 0, "reading stdin");
    CHECK_INT(get32(200), 2, "the rest of stdin");
    CHECK(memcmp(m + 300, "ut", 2) == 0, "stdin's last bytes");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_read(&w, 0, 100, 1, 200), 0, "reading stdin at its end");
    CHECK_INT(get32(200), 0, "stdin at end of file");
}

TEST(path_bad_pointers)
{
    put_str(1024, "f");
    CHECK_INT(Z_wasi_snapshot_preview1Z_path_open(&w, FD_WS, 0, 0xffffff00u, 1, 0, RIGHT_FD_READ,
                                                  0, 0, 2048),
              CAPSA__WASI_EFAULT, "path outside memory");
    CHECK_INT(Z_wasi_snapshot_preview1Z_path_open(&w, FD_WS, 0, 1024, 0xffffffffu, 0,
                                                  RIGHT_FD_READ, 0, 0, 2048),
              CAPSA__WASI_EFAULT, "huge path length");
    CHECK_INT(Z_wasi_snapshot_preview1Z_path_open(&w, FD_WS, 0, 1024, 1, 0, RIGHT_FD_READ, 0, 0,
                                                  PAGE - 1),
              CAPSA__WASI_EFAULT, "opened fd pointer crossing the end");
    memset(m + 4096, 'a', 5000);
    CHECK_INT(Z_wasi_snapshot_preview1Z_path_open(&w, FD_WS, 0, 4096, 5000, 0, RIGHT_FD_READ, 0,
                                                  0, 2048),
              CAPSA__WASI_ENAMETOOLONG, "a path longer than CAPSA__VFS_PATH_MAX");
    CHECK_INT(Z_wasi_snapshot_preview1Z_path_create_directory(&w, FD_WS, PAGE - 1, 2),
              CAPSA__WASI_EFAULT, "mkdir path crossing the end");
    CHECK_INT(Z_wasi_snapshot_preview1Z_path_symlink(&w, 0xfffffff0u, 4, FD_WS, 1024, 1),
              CAPSA__WASI_EFAULT, "symlink target outside memory");
    CHECK_INT(Z_wasi_snapshot_preview1Z_path_filestat_get(&w, FD_WS, 0, 1024, 1, PAGE - 10),
              CAPSA__WASI_EFAULT, "filestat buffer crossing the end");
    CHECK_INT(Z_wasi_snapshot_preview1Z_path_readlink(&w, FD_WS, 1024, 1, 3000, 0xffffffffu, 200),
              CAPSA__WASI_EFAULT, "huge readlink buffer");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_prestat_dir_name(&w, FD_WS, PAGE - 3, 9),
              CAPSA__WASI_EFAULT, "prestat name crossing the end");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_prestat_dir_name(&w, FD_WS, 3000, 3),
              CAPSA__WASI_ENAMETOOLONG, "prestat name buffer too small");
}

TEST(fd_readdir_bad_pointers)
{
    uint32_t fd;
    CHECK_INT(open_at(FD_WS, ".", CAPSA__VFS_O_DIRECTORY, RIGHT_FD_READDIR, &fd), 0,
              "opening the directory");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_readdir(&w, fd, 0xfffffff0u, 64, 0, 200),
              CAPSA__WASI_EFAULT, "buffer outside memory");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_readdir(&w, fd, 3000, 0xffffffffu, 0, 200),
              CAPSA__WASI_EFAULT, "huge buffer length");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_readdir(&w, fd, 3000, 64, 0, PAGE - 1),
              CAPSA__WASI_EFAULT, "bufused crossing the end");
    /* A buffer that ends inside the first entry's header: filled, and cut. */
    memset(m + 3000, 0xee, 64);
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_readdir(&w, fd, 3000, 10, 0, 200), 0, "a cut readdir");
    CHECK_INT(get32(200), 10, "a full buffer");
    CHECK_INT(m[3010], 0xee, "nothing written past the buffer");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_readdir(&w, fd, 3000, 1024, 0, 200), 0, "a readdir");
    uint32_t used = get32(200);
    /* ".", ".." and "f": three headers and four name bytes. */
    CHECK_INT(used, 3 * 24 + 4, "bytes used by three entries");
    CHECK_INT(get32(3000 + 16), 1, "the first name's length");
    CHECK_INT(m[3000 + 24], '.', "the first name");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_readdir(&w, 1, 3000, 64, 0, 200), CAPSA__WASI_ENOTDIR,
              "readdir on stdout");
    Z_wasi_snapshot_preview1Z_fd_close(&w, fd);
}

TEST(args_environ_bad_pointers)
{
    CHECK_INT(Z_wasi_snapshot_preview1Z_args_sizes_get(&w, 100, 104), 0, "args_sizes_get");
    CHECK_INT(get32(100), 3, "argc");
    CHECK_INT(get32(104), 13, "argv bytes");
    CHECK_INT(Z_wasi_snapshot_preview1Z_args_sizes_get(&w, 0xfffffffeu, 104), CAPSA__WASI_EFAULT,
              "argc pointer outside memory");
    CHECK_INT(Z_wasi_snapshot_preview1Z_args_get(&w, PAGE - 8, 3000), CAPSA__WASI_EFAULT,
              "argv array crossing the end");
    CHECK_INT(Z_wasi_snapshot_preview1Z_args_get(&w, 100, PAGE - 12), CAPSA__WASI_EFAULT,
              "argv strings crossing the end");
    CHECK_INT(Z_wasi_snapshot_preview1Z_args_get(&w, 100, 3000), 0, "args_get");
    CHECK_INT(get32(104), 3005, "the second argument's address");
    CHECK_STR((const char *)m + 3005, "one", "the second argument");
    CHECK_INT(Z_wasi_snapshot_preview1Z_environ_get(&w, 0xffffffffu, 3000), CAPSA__WASI_EFAULT,
              "environ array outside memory");
    CHECK_INT(Z_wasi_snapshot_preview1Z_environ_get(&w, 100, 3000), 0, "environ_get");
    CHECK_STR((const char *)m + 3000, "A=1", "the variable");
}

TEST(poll_oneoff_bad_pointers)
{
    memset(m + 4096, 0, 48);
    m[4096 + 8] = 1; /* fd_read */
    put32(4096 + 16, 0);
    CHECK_INT(Z_wasi_snapshot_preview1Z_poll_oneoff(&w, 0xffffff00u, 8192, 1, 200),
              CAPSA__WASI_EFAULT, "subscriptions outside memory");
    CHECK_INT(Z_wasi_snapshot_preview1Z_poll_oneoff(&w, 4096, PAGE - 16, 1, 200),
              CAPSA__WASI_EFAULT, "events crossing the end");
    CHECK_INT(Z_wasi_snapshot_preview1Z_poll_oneoff(&w, 20000, 8192, 1000, 200),
              CAPSA__WASI_EFAULT, "1000 subscriptions would cross the end");
    CHECK_INT(Z_wasi_snapshot_preview1Z_poll_oneoff(&w, 4096, 8192, 0xffffffffu, 200),
              CAPSA__WASI_EINVAL, "a huge subscription count");
    CHECK_INT(Z_wasi_snapshot_preview1Z_poll_oneoff(&w, 4096, 8192, 1, 200), 0,
              "polling stdin");
    CHECK_INT(get32(200), 1, "one event");
    put32(4096 + 16, 99);
    CHECK_INT(Z_wasi_snapshot_preview1Z_poll_oneoff(&w, 4096, 8192, 1, 200), 0,
              "polling a bad fd");
    CHECK_INT(m[8192 + 8], CAPSA__WASI_EBADF, "the event's error");
}

TEST(bad_fds)
{
    put32(100, 0);
    put32(104, 1);
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_write(&w, 99, 100, 1, 200), CAPSA__WASI_EBADF,
              "write to an fd never opened");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_read(&w, 1000000, 100, 1, 200), CAPSA__WASI_EBADF,
              "read from a huge fd");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_close(&w, 0xffffffffu), CAPSA__WASI_EBADF, "close");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_seek(&w, 77, 0, 0, 200), CAPSA__WASI_EBADF, "seek");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_fdstat_get(&w, 5, 200), CAPSA__WASI_EBADF, "fdstat");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_renumber(&w, 1, 50), CAPSA__WASI_EBADF,
              "renumber to a closed fd");
    CHECK_INT(Z_wasi_snapshot_preview1Z_sock_shutdown(&w, 50, 0), CAPSA__WASI_EBADF,
              "sock_shutdown on a bad fd");
    CHECK_INT(Z_wasi_snapshot_preview1Z_sock_send(&w, 1, 0, 0, 0, 200), CAPSA__WASI_ENOTSOCK,
              "sock_send on stdout");
    CHECK_INT(Z_wasi_snapshot_preview1Z_sock_accept(&w, FD_WS, 0, 200), CAPSA__WASI_ENOTSOCK,
              "sock_accept on a directory");
    uint32_t fd;
    put_str(1024, "f");
    CHECK_INT(Z_wasi_snapshot_preview1Z_path_open(&w, 60, 0, 1024, 1, 0, RIGHT_FD_READ, 0, 0, 2048),
              CAPSA__WASI_EBADF, "path_open from a bad fd");
    CHECK_INT(open_at(FD_WS, "f", 0, RIGHT_FD_READ, &fd), 0, "opening f");
    CHECK_INT(open_at(fd, "x", 0, RIGHT_FD_READ, &fd), CAPSA__WASI_ENOTDIR,
              "path_open from a file");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_close(&w, get32(2048)), 0, "closing f");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_seek(&w, 1, 0, 0, 200), CAPSA__WASI_ESPIPE,
              "seeking stdout");
    CHECK_INT(Z_wasi_snapshot_preview1Z_proc_raise(&w, 9), CAPSA__WASI_ENOTSUP, "proc_raise");
}

TEST(read_only_fd_cannot_write)
{
    uint32_t fd;
    CHECK_INT(open_at(FD_WS, "f", 0, RIGHT_FD_READ, &fd), 0, "opening f read-only");
    put_str(0, "XXXX");
    put32(100, 0);
    put32(104, 4);
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_write(&w, fd, 100, 1, 200), CAPSA__WASI_ENOTCAPABLE,
              "writing to a read-only fd");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_pwrite(&w, fd, 100, 1, 0, 200), CAPSA__WASI_ENOTCAPABLE,
              "pwrite to a read-only fd");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_filestat_set_size(&w, fd, 0), CAPSA__WASI_ENOTCAPABLE,
              "truncating through a read-only fd");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_fdstat_set_rights(&w, fd, RIGHT_FD_READ | RIGHT_FD_WRITE,
                                                             0),
              CAPSA__WASI_ENOTCAPABLE, "adding the write right");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_fdstat_get(&w, fd, 200), 0, "fdstat");
    uint64_t base;
    memcpy(&base, m + 208, 8);
    CHECK(!(base & RIGHT_FD_WRITE), "a read-only fd has no write right");
    Z_wasi_snapshot_preview1Z_fd_close(&w, fd);
    uint64_t len;
    capsa__vnode *n;
    CHECK_INT(capsa__vfs_open(vfs, capsa__vfs_root(vfs), "/workspace/f", 12, CAPSA__VFS_FOLLOW, 0,
                              0, CAPSA__VFS_HOST, &n),
              0, "opening f as the host");
    const uint8_t *data = capsa__vfs_file_data(n, &len);
    CHECK(len == 5 && memcmp(data, "hello", 5) == 0, "f is unchanged");
    capsa__vfs_unref(vfs, n);
    /* Under the read-only root nothing can be opened for writing or created. */
    CHECK_INT(open_at(FD_ROOT, "rofile", 0, RIGHT_FD_WRITE, &fd), CAPSA__WASI_EROFS,
              "opening a file under / for writing");
    CHECK_INT(open_at(FD_ROOT, "new", CAPSA__VFS_O_CREAT, RIGHT_FD_WRITE, &fd), CAPSA__WASI_EROFS,
              "creating a file under /");
    CHECK_INT(open_at(FD_ROOT, "rofile", CAPSA__VFS_O_TRUNC, 0, &fd), CAPSA__WASI_EROFS,
              "truncating a file under /");
    uint32_t len2 = put_str(1024, "newdir");
    CHECK_INT(Z_wasi_snapshot_preview1Z_path_create_directory(&w, FD_ROOT, 1024, len2),
              CAPSA__WASI_EROFS, "mkdir under /");
    CHECK_INT(open_at(FD_ROOT, "rofile", 0, RIGHT_FD_READ, &fd), 0, "reading under / is allowed");
    Z_wasi_snapshot_preview1Z_fd_close(&w, fd);
}

TEST(dotdot_escapes)
{
    uint32_t fd;
    CHECK_INT(open_at(FD_WS, "../rofile", 0, RIGHT_FD_READ, &fd), CAPSA__WASI_ENOTCAPABLE,
              "../ out of the preopen");
    uint32_t l = put_str(1024, "d");
    CHECK_INT(Z_wasi_snapshot_preview1Z_path_create_directory(&w, FD_WS, 1024, l), 0, "mkdir d");
    CHECK_INT(open_at(FD_WS, "d/../../rofile", 0, RIGHT_FD_READ, &fd), CAPSA__WASI_ENOTCAPABLE,
              "d/../../ out of the preopen");
    CHECK_INT(open_at(FD_WS, "..", CAPSA__VFS_O_DIRECTORY, RIGHT_FD_READ, &fd),
              CAPSA__WASI_ENOTCAPABLE, ".. itself");
    CHECK_INT(open_at(FD_WS, "/rofile", 0, RIGHT_FD_READ, &fd), CAPSA__WASI_ENOTCAPABLE,
              "an absolute path from a preopen that is not the root");
    uint32_t l1 = put_str(1024, "../"), l2 = put_str(1100, "esc");
    CHECK_INT(Z_wasi_snapshot_preview1Z_path_symlink(&w, 1024, l1, FD_WS, 1100, l2), 0,
              "a symlink to ../");
    CHECK_INT(open_at(FD_WS, "esc/rofile", 0, RIGHT_FD_READ, &fd), CAPSA__WASI_ENOTCAPABLE,
              "following a symlink out of the preopen");
    l1 = put_str(1024, "/rofile");
    l2 = put_str(1100, "abs");
    CHECK_INT(Z_wasi_snapshot_preview1Z_path_symlink(&w, 1024, l1, FD_WS, 1100, l2),
              CAPSA__WASI_ENOTCAPABLE, "an absolute symlink under a preopen that is not the root");
    l2 = put_str(1100, "..");
    CHECK_INT(Z_wasi_snapshot_preview1Z_path_filestat_get(&w, FD_WS, 0, 1100, l2, 3000),
              CAPSA__WASI_ENOTCAPABLE, "stat of ..");
    CHECK_INT(open_at(FD_WS, "./f", 0, RIGHT_FD_READ, &fd), 0, "./f stays inside");
    Z_wasi_snapshot_preview1Z_fd_close(&w, fd);
}

TEST(fd_table)
{
    /* Renumbering moves an fd and closes the target. */
    uint32_t a, b;
    CHECK_INT(open_at(FD_WS, "f", 0, RIGHT_FD_READ, &a), 0, "opening f");
    CHECK_INT(open_at(FD_WS, "f", 0, RIGHT_FD_READ | RIGHT_FD_SEEK, &b), 0, "opening f again");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_renumber(&w, b, a), 0, "renumber");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_close(&w, b), CAPSA__WASI_EBADF, "the old number is closed");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_seek(&w, a, 1, 0, 200), 0, "the new number has b's rights");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_close(&w, a), 0, "closing");
    /* The table is bounded. */
    uint32_t n = 0, fd, err;
    while ((err = open_at(FD_WS, "f", 0, RIGHT_FD_READ, &fd)) == 0 && n < 2 * CAPSA__WASI_MAX_FDS)
        n++;
    CHECK_INT(err, CAPSA__WASI_EMFILE, "opening more than CAPSA__WASI_MAX_FDS");
    CHECK_INT(n, CAPSA__WASI_MAX_FDS - 5, "fds available beside stdio and the preopens");
    for (uint32_t i = 5; i < CAPSA__WASI_MAX_FDS; i++)
        Z_wasi_snapshot_preview1Z_fd_close(&w, i);
}

/* What a checkpoint asks of the fd table (capsa__wasi_changed_fd): nothing open
 * beyond stdio and the preopens, nothing of theirs changed. */
TEST(changed_fds_for_checkpoints)
{
    uint32_t in_use = 99, fd;
    CHECK_INT(capsa__wasi_changed_fd(&w, 2, &in_use), UINT32_MAX, "a table as init made it");
    CHECK_INT(in_use, 0, "nothing else open");
    CHECK_INT(capsa__wasi_changed_fd(&w, 3, &in_use), 5, "a preopen missing");
    CHECK_INT(open_at(FD_WS, "f", 0, RIGHT_FD_READ, &fd), 0, "opening f");
    CHECK_INT(capsa__wasi_changed_fd(&w, 2, &in_use), fd, "an open file is named");
    CHECK_INT(in_use, 1, "and counted");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_close(&w, fd), 0, "closing it");
    CHECK_INT(capsa__wasi_changed_fd(&w, 2, &in_use), UINT32_MAX, "pristine again");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_fdstat_set_flags(&w, 1, 1), 0, "stdout in append mode");
    CHECK_INT(capsa__wasi_changed_fd(&w, 2, &in_use), 1, "a standard fd changed");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_fdstat_set_flags(&w, 1, 0), 0, "back");
    CHECK_INT(Z_wasi_snapshot_preview1Z_fd_fdstat_set_rights(&w, FD_WS, 0, 0), 0,
              "a preopen's rights dropped");
    CHECK_INT(capsa__wasi_changed_fd(&w, 2, &in_use), FD_WS, "a preopen changed");
}

static void call_exit(void *p)
{
    Z_wasi_snapshot_preview1Z_proc_exit(p, 42);
}

TEST(proc_exit_unwinds)
{
    int64_t fuel = 0;
    CHECK_INT(capsa__rt_thread_prepare(), 0, "preparing the thread");
    int trap = capsa__rt_call(&mem, NULL, &fuel, NULL, call_exit, &w, NULL);
    CHECK_INT(trap, CAPSA__TRAP_EXIT, "proc_exit ends the call with CAPSA__TRAP_EXIT");
    CHECK_INT(w.exit_code, 42, "the exit code in the instance");
    CHECK_INT(capsa__rt_exit_code(), 42, "the exit code in the runtime");
    CHECK_CONTAINS(capsa__rt_trap_message(trap), "exit", "the trap's message");
}

int main(void)
{
    setup();
    RUN(fd_write_bad_pointers);
    RUN(fd_read_bad_pointers);
    RUN(path_bad_pointers);
    RUN(fd_readdir_bad_pointers);
    RUN(args_environ_bad_pointers);
    RUN(poll_oneoff_bad_pointers);
    RUN(bad_fds);
    RUN(read_only_fd_cannot_write);
    RUN(dotdot_escapes);
    RUN(fd_table);
    RUN(proc_exit_unwinds);
    RUN(changed_fds_for_checkpoints);
    capsa__wasi_finish(&w);
    capsa__wasi_finish(&w); /* twice is safe */
    uint64_t bytes, entries;
    capsa__vfs_usage(vfs, &bytes, &entries);
    capsa__vfs_free(vfs);
    return test_summary("test_wasi_bad");
}
