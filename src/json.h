/* JSON text at the host's edges: the one strict parse of text from outside (a
 * guest's tool arguments, policy text, a caller's JSON), quoting of text that may
 * not be UTF-8, and a validator for JSON that is passed on, not parsed. */
#ifndef CAPSA_JSON_H
#define CAPSA_JSON_H

#include <jansson.h>
#include <stddef.h>

#include "buf.h"

/* Parses text[0..len) as one JSON value with duplicate object keys refused, and
 * flags (JSON_DECODE_ANY, ...) added. A raw NUL byte anywhere is refused first:
 * jansson's lexer steps over one between tokens, so the value it returned would
 * not be the whole text, and what a policy checked could differ from what a tool
 * gets. Returns a new reference, or NULL with *err filled. */
json_t *capsa__json_load_strict(const char *text, size_t len, size_t flags, json_error_t *err);

/* Appends s[0..len) as a JSON string to b: quotes and control bytes escaped, and
 * invalid UTF-8 (guest text need not be valid) turned into U+FFFD, so the result
 * is always valid JSON. Returns 0, or -1 when out of memory. */
int capsa__json_quote(capsa__buf *b, const capsa_allocator *a, const char *s, size_t len);

/* Whether text[0..len) is one JSON value (RFC 8259; any type; insignificant
 * whitespace around it), nested at most 512 deep. Unlike a parse, it accepts
 * numbers of any size: it checks the text, it does not convert it. */
int capsa__json_valid(const char *text, size_t len);

#endif
