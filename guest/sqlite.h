/* Natives of sqlite.js (guest/sqlite.c): database connections and prepared
 * statements over SQLite's C API, for the node:sqlite and better-sqlite3 modules;
 * and the locking SQLite's unix VFS uses on the sandbox's filesystem. */
#ifndef CAPSA_GUEST_SQLITE_H
#define CAPSA_GUEST_SQLITE_H

#include "quickjs.h"

/* Adds sqlite.js's natives to obj, the host object sqlite.js captures. Nothing of
 * SQLite runs until a script opens a database. */
void capsa_sqlite_add_natives(JSContext *ctx, JSValueConst obj);

/* SQLITE_EXTRA_INIT (Makefile, SQLITE_CFLAGS): called by sqlite3_initialize, for
 * every user of the library (the JS modules and the sqlite3 command). Makes the
 * "unix" VFS the default, with locks kept in guest memory (see sqlite.c). Returns
 * an SQLite result code. */
int capsa_sqlite_init(const char *unused);

#endif
