/* libcurl and libmicrohttpd, loaded when first needed: only the MCP client's
 * HTTP transport (mcp_client_http.c) speaks libcurl and only the HTTP server
 * (http.c) libmicrohttpd, and linked in, the two and what they need (33 shared
 * libraries for libcurl) cost every capsa process about 5 ms of dynamic loading
 * before it does anything. Each is opened once per process by its SONAME (the
 * ABI the headers are of) and its functions found by name; the tables below
 * hold them, typed from the libraries' own headers. */
#ifndef CAPSA_NET_NETLIBS_H
#define CAPSA_NET_NETLIBS_H

#include <stddef.h>

#include <curl/curl.h>
#include <microhttpd.h>

/* The libcurl functions the MCP client calls. */
typedef struct netlibs_curl {
    __typeof__(curl_global_init) *global_init;
    __typeof__(curl_easy_init) *easy_init;
    __typeof__(curl_easy_setopt) *easy_setopt;
    __typeof__(curl_easy_getinfo) *easy_getinfo;
    __typeof__(curl_easy_perform) *easy_perform;
    __typeof__(curl_easy_cleanup) *easy_cleanup;
    __typeof__(curl_easy_strerror) *easy_strerror;
    __typeof__(curl_slist_append) *slist_append;
    __typeof__(curl_slist_free_all) *slist_free_all;
} netlibs_curl;

/* The libmicrohttpd functions the HTTP server calls. */
typedef struct netlibs_mhd {
    __typeof__(MHD_start_daemon) *start_daemon;
    __typeof__(MHD_stop_daemon) *stop_daemon;
    __typeof__(MHD_get_daemon_info) *get_daemon_info;
    __typeof__(MHD_lookup_connection_value) *lookup_connection_value;
    __typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
    __typeof__(MHD_create_response_from_callback) *create_response_from_callback;
    __typeof__(MHD_add_response_header) *add_response_header;
    __typeof__(MHD_queue_response) *queue_response;
    __typeof__(MHD_destroy_response) *destroy_response;
} netlibs_mhd;

/* libcurl's functions, the library loaded on the first call (thread-safe; it
 * stays loaded). NULL when it cannot be: err (size errsize) then names the
 * library, why, and the Debian package that has it. The table is static. */
const netlibs_curl *netlibs_curl_get(char *err, size_t errsize);

/* The same for libmicrohttpd's. */
const netlibs_mhd *netlibs_mhd_get(char *err, size_t errsize);

#endif
