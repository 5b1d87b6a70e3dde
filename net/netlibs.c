/* libcurl and libmicrohttpd loaded when first needed (see netlibs.h): dlopen by
 * SONAME, every function found or none used, once per process. */
#include "netlibs.h"

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

static netlibs_curl curl_fns;
static const char *const curl_names[] = {
    "curl_global_init", "curl_easy_init",     "curl_easy_setopt",
    "curl_easy_getinfo", "curl_easy_perform", "curl_easy_cleanup",
    "curl_easy_strerror", "curl_slist_append", "curl_slist_free_all",
};
_Static_assert(sizeof(curl_fns) == sizeof(curl_names) / sizeof(curl_names[0]) * sizeof(void *),
               "a name for each of libcurl's functions");
static netlib curl_lib = { "libcurl.so.4", "libcurl4", curl_names, (void **)&curl_fns,
                           sizeof(curl_names) / sizeof(curl_names[0]), 0, "" };
static pthread_once_t curl_once = PTHREAD_ONCE_INIT;

static void curl_load(void)
{
    netlib_load(&curl_lib);
}

const netlibs_curl *netlibs_curl_get(char *err, size_t errsize)
{
    return netlib_get(&curl_lib, &curl_once, curl_load, err, errsize);
}

static netlibs_mhd mhd_fns;
static const char *const mhd_names[] = {
    "MHD_start_daemon",
    "MHD_stop_daemon",
    "MHD_get_daemon_info",
    "MHD_lookup_connection_value",
    "MHD_create_response_from_buffer",
    "MHD_create_response_from_callback",
    "MHD_add_response_header",
    "MHD_queue_response",
    "MHD_destroy_response",
};
_Static_assert(sizeof(mhd_fns) == sizeof(mhd_names) / sizeof(mhd_names[0]) * sizeof(void *),
               "a name for each of libmicrohttpd's functions");
static netlib mhd_lib = { "libmicrohttpd.so.12", "libmicrohttpd12", mhd_names, (void **)&mhd_fns,
                          sizeof(mhd_names) / sizeof(mhd_names[0]), 0, "" };
static pthread_once_t mhd_once = PTHREAD_ONCE_INIT;

static void mhd_load(void)
{
    netlib_load(&mhd_lib);
}

const netlibs_mhd *netlibs_mhd_get(char *err, size_t errsize)
{
    return netlib_get(&mhd_lib, &mhd_once, mhd_load, err, errsize);
}
