/* Natives of fs.js (guest/fs.c): whole-file reads and writes, directories, links
 * and stats on the WASI filesystem, and the ES module loader that reads modules
 * from it. */
#ifndef CAPSA_GUEST_FS_H
#define CAPSA_GUEST_FS_H

#include "quickjs.h"

/* Adds fs.js's natives to obj, the host object fs.js captures. */
void capsa_fs_add_natives(JSContext *ctx, JSValueConst obj);

/* Takes fs.js's completion value (the `fs` object, with `promises`), which the
 * 'fs' and 'fs/promises' modules export; makes /workspace the working directory
 * and installs the module loader. Returns 0, or -1 with an exception pending. */
int capsa_fs_init(JSContext *ctx, JSValueConst fs_api);

#endif
