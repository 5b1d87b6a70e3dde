/* The libraries loaded when first needed (see lazylibs.h): dlopen by
 * SONAME, every function found or none used, once per process. */
#include "lazylibs.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* One library: its SONAME, the Debian package that has it, the names of the
 * functions of its table in the table's order, and what loading it came to. */
typedef struct netlib {
    const char *soname, *package;
    const char *const *names;
    void **table;
    size_t count;
    int ok;
    char why[256];
} netlib;

static void netlib_load(netlib *l)
{
    void *h = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(l->why, sizeof(l->why), "cannot load %s (%s): install Debian's %s", l->soname,
                 e ? e : "not found", l->package);
        return;
    }
    for (size_t i = 0; i < l->count; i++) {
        void *f = dlsym(h, l->names[i]);
        if (!f) {
            snprintf(l->why, sizeof(l->why), "%s has no function %s: it is not the version "
                     "capsa was built for", l->soname, l->names[i]);
            dlclose(h);
            memset(l->table, 0, l->count * sizeof(void *));
            return;
        }
        l->table[i] = f;
    }
    l->ok = 1;
}

/* The library's table once loaded (once runs load), or NULL with err. A table
   is filled as an array of pointers: a struct of function pointers, each the
   size of a void * on every target capsa builds for (dlsym relies on it too). */
static const void *netlib_get(netlib *l, pthread_once_t *once, void (*load)(void), char *err,
                              size_t errsize)
{
    pthread_once(once, load);
    if (l->ok)
        return l->table;
    if (errsize)
        snprintf(err, errsize, "%s", l->why);
    return NULL;
}

/* One library's table, names and loader, and its lazylibs_NAME_get (lazylibs.h):
   LAZYLIB(NAME, TYPE, SONAME, PACKAGE, the names of TYPE's members in order). */
#define LAZYLIB(name, type, soname, package, ...)                                          \
    static type name##_fns;                                                                 \
    static const char *const name##_names[] = { __VA_ARGS__ };                              \
    _Static_assert(sizeof(name##_fns) ==                                                    \
                       sizeof(name##_names) / sizeof(name##_names[0]) * sizeof(void *),     \
                   "a name for each of " soname "'s symbols");                              \
    static netlib name##_lib = { soname, package, name##_names, (void **)&name##_fns,       \
                                 sizeof(name##_names) / sizeof(name##_names[0]), 0, "" };   \
    static pthread_once_t name##_once = PTHREAD_ONCE_INIT;                                  \
    static void name##_load(void)                                                           \
    {                                                                                       \
        netlib_load(&name##_lib);                                                           \
    }                                                                                       \
    const type *lazylibs_##name##_get(char *err, size_t errsize)                            \
    {                                                                                       \
        return netlib_get(&name##_lib, &name##_once, name##_load, err, errsize);            \
    }

LAZYLIB(curl, lazylibs_curl, "libcurl.so.4", "libcurl4", "curl_global_init", "curl_easy_init",
        "curl_easy_setopt", "curl_easy_getinfo", "curl_easy_perform", "curl_easy_cleanup",
        "curl_easy_strerror", "curl_slist_append", "curl_slist_free_all")

LAZYLIB(mhd, lazylibs_mhd, "libmicrohttpd.so.12", "libmicrohttpd12", "MHD_start_daemon",
        "MHD_stop_daemon", "MHD_get_daemon_info", "MHD_lookup_connection_value",
        "MHD_create_response_from_buffer", "MHD_create_response_from_callback",
        "MHD_add_response_header", "MHD_queue_response", "MHD_destroy_response")

LAZYLIB(crypto, lazylibs_crypto, "libcrypto.so.3", "libssl3", "SHA256")

LAZYLIB(edit, lazylibs_edit, "libedit.so.2", "libedit2", "readline", "using_history",
        "read_history", "add_history", "write_history", "rl_outstream")
