/* Natives of fs.js (guest/fs.c): whole-file reads and writes, directories, links
 * and stats on the WASI filesystem, and the module loader that reads ES modules,
 * CommonJS and JSON files from it. */
#ifndef CAPSA_GUEST_FS_H
#define CAPSA_GUEST_FS_H

#include <stddef.h>
#include <stdint.h>

#include "quickjs.h"

/* Reads standard input (fd 0, or the text given by capsa_fs_stdin_from): one
 * read of at most 64 KiB (no bytes at its end), or with all every byte to its end. *out (NUL after the last byte;
 * allocated with js_malloc on c, or malloc when c is NULL: the caller frees it
 * the same way) holds *len bytes. Returns 0, or an errno: EFBIG past what the
 * host lets the guest read, ENOMEM. */
int capsa_fs_read_stdin(JSContext *c, int all, uint8_t **out, size_t *len);

/* Makes data[0..len) standard input (borrowed: valid until the next call) for
 * the shell's `js` command; NULL makes it fd 0 again. */
void capsa_fs_stdin_from(const char *data, size_t len);

/* Adds fs.js's natives to obj, the host object fs.js captures. */
void capsa_fs_add_natives(JSContext *ctx, JSValueConst obj);

/* Takes fs.js's completion value (the built-in modules, the helpers of the
 * module loader); makes /workspace the working directory and installs the module
 * loader. Returns 0, or -1 with an exception pending. */
int capsa_fs_init(JSContext *ctx, JSValueConst fs_exports);

/* Compiles code[0..len) (code[len] must be NUL) as the run's main ES module,
 * named name (an absolute path: its imports resolve from its directory), its top
 * level the body of an async function: evaluating it (JS_EvalFunction) gives its
 * promise. Its imports are loaded now. Returns the module (a new reference) or
 * JS_EXCEPTION; *parsed is 1 when the code parsed as a module (a failure is then
 * the module's, such as a missing import), 0 when it did not. */
JSValue capsa_fs_compile_main(JSContext *ctx, const char *code, size_t len, const char *name,
                              int *parsed);

#endif
