/* What an applet sees of the shell: its standard streams, the environment, the
 * working directory, running another command (sh_run), the plumbing every
 * command shares (buffers, streams, messages, files, option parsing: io.c) and
 * the helpers the applets share (helpers.c). The environment is state.c's,
 * sh_run exec.c's, the registry applets.c's.
 * Everything here runs inside the guest; the same files also build natively
 * (tests/shell/native.c) for development and tests. */
#ifndef CAPSA_SHELL_SH_H
#define CAPSA_SHELL_SH_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __wasm__
/* wasi-libc declares errno _Thread_local; clang 14 can only reach such a variable
 * with the local-exec model, which is right here (one thread, no shared memory:
 * lld makes it an ordinary global). */
extern _Thread_local int errno __attribute__((tls_model("local-exec")));
#endif

/* A growable byte buffer. Zero-initialised is empty; sh_buf_free releases it. */
typedef struct sh_buf {
    char *data;
    size_t len, cap;
} sh_buf;

/* Appends n bytes (or the formatted text): 0, or -1 when out of memory (the
 * buffer is unchanged then). */
int sh_buf_add(sh_buf *b, const void *p, size_t n);
int sh_buf_addc(sh_buf *b, char c);
int sh_buf_adds(sh_buf *b, const char *s);
int sh_buf_addf(sh_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int sh_buf_vaddf(sh_buf *b, const char *fmt, va_list ap);
/* Appends s[0..n) in single quotes for the shell, each ' as '\'': 0, or -1
 * when out of memory (what was appended stays). */
int sh_buf_add_squoted(sh_buf *b, const char *s, size_t n);
/* NUL-terminates the contents (the NUL is not counted in len) and returns them,
 * or NULL when out of memory. The pointer is the buffer's own. */
char *sh_buf_cstr(sh_buf *b);
/* Hands the contents (NUL-terminated) to the caller, who frees them; the buffer
 * is empty after. NULL when out of memory. */
char *sh_buf_take(sh_buf *b, size_t *len);
void sh_buf_free(sh_buf *b);

/* Where a command's output goes: straight to a file descriptor (fd >= 0), or
 * collected in buf (a pipe to the next command, a command substitution, a file
 * written when the command ends). A collected stream holds at most `limit` bytes:
 * past it the reader is gone, as with a full pipe whose reader exited. */
#define SH_DISCARD (-2) /* a stream whose fd is this discards what it is given */
typedef struct sh_stream {
    int fd;
    sh_buf buf;
    size_t limit;
    int broken; /* a write failed: the command should stop (status 141, SIGPIPE) */
} sh_stream;

/* The most a pipe or a command substitution collects. */
#define SH_PIPE_LIMIT ((size_t)16 << 20)

struct sh_shell;

/* One command being run: its name (argv[0]), its standard input (all of it, read
 * before the command starts), its standard output and error, and the shell. */
typedef struct sh_proc {
    struct sh_shell *sh;
    const char *name;
    const char *in;
    size_t in_len;
    sh_stream *out, *err;
} sh_proc;

/* Writing: 0, or -1 when the stream is broken (its reader is gone, or out of
 * memory). An applet stops writing after a -1 and returns SH_STATUS_PIPE. */
#define SH_STATUS_PIPE 141
int sh_write(sh_stream *s, const void *p, size_t n);
int sh_out(sh_proc *p, const void *data, size_t n);
int sh_outs(sh_proc *p, const char *s);
int sh_outc(sh_proc *p, char c);
int sh_printf(sh_proc *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Writes "NAME: " and the formatted message and a newline to stderr. */
void sh_err(sh_proc *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same to any stream and under any name (the shell's own reports are "sh: "). */
void sh_verr(sh_stream *err, const char *name, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));
/* Writes "NAME: PATH: strerror(errno)" to stderr (errno as it is at the call). */
void sh_err_path(sh_proc *p, const char *path);

/* The path as the guest's filesystem should see it: absolute paths as they are,
 * others joined to the shell's working directory. Caller frees; NULL when out of
 * memory. */
char *sh_path(sh_proc *p, const char *path);
/* Reads all of a file ("-" is standard input) into a new NUL-terminated buffer
 * (the caller frees *data). 0, or -1 after printing the error (sh_err_path). */
int sh_load(sh_proc *p, const char *path, char **data, size_t *len);
/* The same without a message: -1 with errno set (EISDIR for a directory, ENOMEM
 * when out of memory). */
int sh_read_file(sh_proc *p, const char *path, char **data, size_t *len);

/* Days since 1970-01-01 of a proleptic Gregorian date (UTC, as the sandbox's
 * clock); months outside 1..12 and days past the month's end carry over. */
long long sh_days_from_civil(long long y, long long m, long long d);
/* Writes data to a file (created or truncated; append != 0 appends). 0, or -1
 * after printing the error. */
int sh_save(sh_proc *p, const char *path, const void *data, size_t len, int append);

/* The working directory (absolute, no trailing slash except "/"). Valid until the
 * command returns. */
const char *sh_cwd(sh_proc *p);
/* The value of a shell variable, or NULL if unset. Valid until the command
 * returns. */
const char *sh_getenv(sh_proc *p, const char *name);
/* The exported variables as "NAME=value" strings, NULL-terminated. Valid until
 * the command returns. */
char **sh_environ(sh_proc *p);

/* Runs the command argv (a function, builtin or applet; argv NULL-terminated)
 * with the extra environment assignments `assigns` ("NAME=value", NULL-terminated
 * or NULL), the given standard input, and p's output and error. Returns its exit
 * status (127 when not found). For xargs, find -exec, env CMD, timeout CMD. */
int sh_run(sh_proc *p, char **argv, char **assigns, const char *in, size_t in_len);

/* An applet: argc/argv as for main (argv[0] is its name), returns the exit status.
 * It must not call exit(), must free what it allocates, and reads its input only
 * through p (p->in, sh_load). */
typedef int (*sh_main)(sh_proc *p, int argc, char **argv);
typedef struct sh_applet {
    const char *name;
    sh_main main;
    const char *help; /* one line, for `help` */
} sh_applet;

/* The applet tables, one per source file, each ended by a { NULL } entry. */
extern const sh_applet sh_applets_files[]; /* files.c: cat ls find cp mv tar ... */
extern const sh_applet sh_applets_text[];  /* text.c: grep sort cut head wc ... */
extern const sh_applet sh_applets_sed[];   /* sed.c */
extern const sh_applet sh_applets_awk[];   /* awk.c */
extern const sh_applet sh_applets_jq[];    /* jq.c */
extern const sh_applet sh_applets_util[];  /* util.c: test expr xargs diff date env ... */
extern const sh_applet sh_applets_sqlite3[]; /* sqlite3.c: SQLite's shell (sqlite3_cli.c) */

/* The applet called name, or NULL. */
const sh_applet *sh_applet_find(const char *name);
/* The i-th applet of all tables (0, 1, ...), or NULL past the last. */
const sh_applet *sh_applet_at(size_t i);

/* --- helpers.c: what the applets share beyond the plumbing ------------------ */

/* Reports running out of memory ("NAME: out of memory") and returns 1, the
 * status the applets give for it. */
int sh_oom(sh_proc *p);
/* stat (lstat when follow is 0) of a path against the working directory: 0, or
 * -1 with errno set (ENOMEM when out of memory; ENOENT for "", which names no
 * file, as GNU's tools read it). */
struct stat;
int sh_stat(sh_proc *p, const char *path, struct stat *st, int follow);
/* The multiplier of the GNU size suffix s (what follows a number): a unit
 * letter among letters (each tool accepts its own: "KMGTPEkmgt", ...), alone or
 * followed by "iB" (powers of 1024) or "B" (powers of 1000), K the first power,
 * then M G T P E Z Y R Q. 0 with *mult set (saturated at UINTMAX_MAX), or -1
 * when s is no such suffix. */
int sh_size_suffix(const char *s, const char *letters, uintmax_t *mult);
/* The length of the POSIX bracket expression at s[0] == '[' (s[0..n)): "[]a]",
 * "[^]a]" and [:class:], [.coll.], [=equiv=] inside it included; 0 when it is
 * not closed. */
size_t sh_rx_bracket(const char *s, size_t n);
/* Appends the POSIX form of the class escape \c (\d \D \s \S \w \W, as GNU
 * grep and Oniguruma know them; gawk has the last four) for use outside a
 * bracket expression, or inside one (a negated class still becomes a bracket
 * expression of its own there): 1, 0 when c is no class letter, -1 when out of
 * memory. */
int sh_rx_class(sh_buf *b, char c, int in_bracket);
/* Whether the printf format fmt has exactly one conversion, a floating one
 * (e E f F g G a A) with only the given flag characters, width and precision:
 * the formats awk's OFMT and CONVFMT and seq -f may hold ("%%" aside). */
int sh_one_float_format(const char *fmt, const char *flags);

/* Option parsing shared by the applets: getopt_long-like and reentrant. Options
 * end at "--"; "-" is an operand. As GNU's, options may follow operands (they
 * are moved before them first) unless spec starts with '+' (commands that run
 * commands: env, xargs, find). */
typedef struct sh_longopt {
    const char *name; /* without the leading "--" */
    int has_arg;      /* 0 none, 1 required (--x=v or --x v), 2 optional (--x=v only) */
    int val;          /* returned for it */
} sh_longopt;
typedef struct sh_opt {
    int ind;   /* next argv index; start with { 1 } (all others 0) */
    int pos;   /* position inside a cluster like -abc */
    char *arg; /* the argument of the option just returned, or NULL */
} sh_opt;
/* Returns the next option character (or a long option's val), '?' for an
 * unknown option or a missing argument (the error is printed, as GNU's
 * "NAME: invalid option -- 'x'"), or -1 at the end of the options: the operands
 * are then argv[o->ind .. argc). longs may be NULL, or end with a { NULL } entry.
 * spec is as getopt's: "ab:c" (b takes an argument). Long options may be
 * abbreviated to a unique prefix. */
int sh_getopt(sh_proc *p, sh_opt *o, int argc, char **argv, const char *spec,
              const sh_longopt *longs);

#endif
