/* The MCP stdio transport (see mcp_stdio.h): lines in, lines out. Answers come
 * from the reading thread and the session's worker, so writes are serialised by
 * one lock and each message goes out whole. */
#include "mcp_stdio.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonrpc.h"

typedef struct stdio_sink {
    mcp_sink base;
    pthread_mutex_t lock;
    int fd;
    int broken; /* a write failed: the reader has gone */
} stdio_sink;

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void stdio_emit(mcp_sink *sink, const char *json, size_t len, int is_response)
{
    stdio_sink *s = (stdio_sink *)sink;
    if (!json)
        return; /* a cancelled request: nothing is sent */
    pthread_mutex_lock(&s->lock);
    if (!s->broken && (write_all(s->fd, json, len) != 0 || write_all(s->fd, "\n", 1) != 0))
        s->broken = 1;
    pthread_mutex_unlock(&s->lock);
}

/* The sink lives on mcp_serve_stdio's stack, which outlasts every hold. */
static void stdio_destroy(mcp_sink *sink)
{
}

/* Whether line[0..n) holds nothing but JSON whitespace. */
static int blank(const char *line, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!strchr(" \t\r\n", line[i]))
            return 0;
    }
    return 1;
}

int mcp_serve_stdio(mcp_server *srv, int in_fd, int out_fd, const char *id)
{
    char err[256] = "";
    mcp_session *ss = NULL;
    if (mcp_session_new(srv, id, &ss, err, sizeof(err)) != 0) {
        fprintf(stderr, "capsa mcp: %s\n", err);
        return -1;
    }
    stdio_sink sink = { { stdio_emit, stdio_destroy, 1 }, PTHREAD_MUTEX_INITIALIZER, out_fd, 0 };
    size_t max = mcp_server_max_message(srv);
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    int status = 0, skipping = 0; /* skipping: the rest of a line over the limit */
    if (!buf) {
        fprintf(stderr, "capsa mcp: out of memory\n");
        status = -1;
    }
    while (buf) {
        if (len == cap) {
            char *nb = cap <= max ? realloc(buf, cap * 2) : NULL;
            if (!nb) {
                /* Over the limit (or no memory): answer once, drop the line. */
                char why[128];
                snprintf(why, sizeof(why), "Parse error: the message is over the limit of %zu bytes",
                         max);
                json_t *e = jrpc_error(NULL, JRPC_PARSE_ERROR, why, NULL);
                size_t elen = 0;
                char *text = e ? jrpc_dump(e, &elen) : NULL;
                if (text)
                    stdio_emit(&sink.base, text, elen, 1);
                free(text);
                json_decref(e);
                skipping = 1;
                len = 0;
            } else {
                buf = nb;
                cap *= 2;
            }
        }
        ssize_t got = read(in_fd, buf + len, cap - len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            fprintf(stderr, "capsa mcp: cannot read the input: %s\n", strerror(errno));
            status = -1;
            break;
        }
        size_t end = len + (size_t)got, start = 0;
        for (size_t i = len; i < end; i++) {
            if (buf[i] != '\n')
                continue;
            if (!skipping && !blank(buf + start, i - start))
                mcp_session_handle(ss, buf + start, i - start, &sink.base, NULL);
            skipping = 0;
            start = i + 1;
        }
        if (got == 0) {
            if (!skipping && start < end && !blank(buf + start, end - start))
                mcp_session_handle(ss, buf + start, end - start, &sink.base, NULL);
            break;
        }
        memmove(buf, buf + start, end - start);
        len = end - start;
        if (skipping)
            len = 0;
    }
    free(buf);
    mcp_session_drain(ss);
    mcp_session_free(ss);
    return status;
}
