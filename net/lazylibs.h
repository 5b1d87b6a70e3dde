/* The shared libraries capsa loads when first needed, not linked: only the MCP
 * client's HTTP transport (mcp_client_http.c) speaks libcurl, only the HTTP
 * server (http.c) libmicrohttpd, only `capsa serve` (serve.c) libcrypto, and only
 * the interactive shell on a terminal (cli/repl.c) libedit. Linked in, they and
 * what they need (33 shared libraries for libcurl) cost every capsa process
 * about 6 ms of dynamic loading before it does anything. Each is opened once per
 * process by its SONAME (the ABI the headers are of) and its functions found by
 * name; the tables below hold them, typed from the libraries' own headers. */
#ifndef CAPSA_NET_LAZYLIBS_H
#define CAPSA_NET_LAZYLIBS_H

#include <stddef.h>

#include <curl/curl.h>
#include <editline/readline.h>
#include <microhttpd.h>
#include <openssl/sha.h>

/* The libcurl functions the MCP client calls. */
typedef struct lazylibs_curl {
    __typeof__(curl_global_init) *global_init;
    __typeof__(curl_easy_init) *easy_init;
    __typeof__(curl_easy_setopt) *easy_setopt;
    __typeof__(curl_easy_getinfo) *easy_getinfo;
    __typeof__(curl_easy_perform) *easy_perform;
    __typeof__(curl_easy_cleanup) *easy_cleanup;
    __typeof__(curl_easy_strerror) *easy_strerror;
    __typeof__(curl_slist_append) *slist_append;
    __typeof__(curl_slist_free_all) *slist_free_all;
} lazylibs_curl;

/* The libmicrohttpd functions the HTTP server calls. */
typedef struct lazylibs_mhd {
    __typeof__(MHD_start_daemon) *start_daemon;
    __typeof__(MHD_stop_daemon) *stop_daemon;
    __typeof__(MHD_get_daemon_info) *get_daemon_info;
    __typeof__(MHD_lookup_connection_value) *lookup_connection_value;
    __typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
    __typeof__(MHD_create_response_from_callback) *create_response_from_callback;
    __typeof__(MHD_add_response_header) *add_response_header;
    __typeof__(MHD_queue_response) *queue_response;
    __typeof__(MHD_destroy_response) *destroy_response;
} lazylibs_mhd;

/* The libcrypto function `capsa serve` calls (a tenant is the SHA-256 of its token). */
typedef struct lazylibs_crypto {
    __typeof__(SHA256) *sha256;
} lazylibs_crypto;

/* The libedit functions (its readline interface) and variable the REPL uses. */
typedef struct lazylibs_edit {
    __typeof__(readline) *readline;
    __typeof__(using_history) *using_history;
    __typeof__(read_history) *read_history;
    __typeof__(add_history) *add_history;
    __typeof__(write_history) *write_history;
    __typeof__(rl_outstream) *outstream; /* &rl_outstream */
} lazylibs_edit;

/* libcurl's functions, the library loaded on the first call (thread-safe; it
 * stays loaded). NULL when it cannot be: err (size errsize) then names the
 * library, why, and the Debian package that has it. The table is static. */
const lazylibs_curl *lazylibs_curl_get(char *err, size_t errsize);

/* The same for libmicrohttpd's. */
const lazylibs_mhd *lazylibs_mhd_get(char *err, size_t errsize);

/* The same for libcrypto's. */
const lazylibs_crypto *lazylibs_crypto_get(char *err, size_t errsize);

/* The same for libedit's. */
const lazylibs_edit *lazylibs_edit_get(char *err, size_t errsize);

#endif
