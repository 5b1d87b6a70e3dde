/* JSON text at the host's edges: the one strict parse of text from outside (a
 * guest's tool arguments, policy text, a caller's JSON), quoting of text that may
 * not be UTF-8, a validator for JSON that is passed on, not parsed, and the
 * comparison of parsed values by value (numbers exactly across integer and real). */
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

/* The length of the valid UTF-8 sequence (shortest form, no surrogate, at most
 * U+10FFFF) at s[0..len), len > 0, or 0 when there is none. */
size_t capsa__json_utf8_len(const unsigned char *s, size_t len);

/* Writes the start of v's compact JSON text (JSON_ENCODE_ANY) into buf, at most
 * size - 1 bytes and cut at a character boundary, NUL-terminated: a message can
 * show a value without dumping all of a huge one. *cut tells whether the text
 * was longer. Returns the length written, or -1 when jansson ran out of memory. */
long capsa__json_head(const json_t *v, char *buf, size_t size, int *cut);

/* Compares two JSON numbers (integer or real) by value, exactly: the integer 5
 * equals the real 5.0, and the integer 9007199254740993 is greater than the real
 * 9007199254740992.0. Returns -1, 0 or 1, or 2 when they do not compare (a NaN,
 * which JSON text cannot hold). */
int capsa__json_num_cmp(const json_t *x, const json_t *y);

/* Deep equality by value: the same kind (all numbers are one kind, compared with
 * capsa__json_num_cmp), strings byte by byte, arrays member by member, objects
 * key by key whatever their order. Values nested deeper than max_depth levels
 * compare unequal, so that the recursion is bounded. */
int capsa__json_equal(const json_t *x, const json_t *y, unsigned max_depth);

#endif
