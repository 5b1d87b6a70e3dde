/* JSON text at the host's edges: the one strict parse of text from outside (a
 * guest's tool arguments, policy text, a caller's JSON), quoting of text that may
 * not be UTF-8, a validator for JSON that is passed on, not parsed, the
 * comparison of parsed values by value (numbers exactly, as the decimals they
 * write), and values shown in messages (their kind, their first bytes). */
#ifndef CAPSA_JSON_H
#define CAPSA_JSON_H

#include <jansson.h>
#include <stddef.h>

#include "buf.h"
#include "json_write.h"

/* Parses text[0..len) as one JSON value with duplicate object keys refused, and
 * flags (JSON_DECODE_ANY, ...) added. A raw NUL byte anywhere is refused first:
 * jansson's lexer steps over one between tokens, so the value it returned would
 * not be the whole text, and what a policy checked could differ from what a tool
 * gets. For the same reason every number must read as the number its text
 * writes: an integer must fit in 64 bits (jansson's own check), and a real (a
 * fraction or an exponent) must read as a double whose shortest form, the text
 * capsa__json_real_text (json_write.h) gives, is the same decimal number. So 0.1, 19.99, 1e300,
 * -0.0 and anything JSON.stringify writes pass, and 10.0000000000000001 (which
 * reads as 10), 1e-400 (0) or 9007199254740993.0 (2^53) are refused with the code
 * json_error_numeric_overflow. Returns a new reference, or NULL with *err filled. */
json_t *capsa__json_load_strict(const char *text, size_t len, size_t flags, json_error_t *err);

/* Compares two JSON numbers given as text (valid JSON number syntax, any length)
 * as the decimal numbers they write, exactly: -1, 0 or 1. Zero equals negative
 * zero; 1e2, 100 and 100.00 are equal. */
int capsa__json_number_cmp(const char *a, size_t alen, const char *b, size_t blen);

/* Appends s[0..len) as a JSON string to b: quotes and control bytes escaped, and
 * invalid UTF-8 (guest text need not be valid) turned into U+FFFD, so the result
 * is always valid JSON. Returns 0, or -1 when out of memory. */
int capsa__json_quote(capsa__buf *b, const capsa_allocator *a, const char *s, size_t len);

/* Whether text[0..len) is one JSON value (RFC 8259; any type; insignificant
 * whitespace around it), nested at most 512 deep. Unlike a parse, it accepts
 * numbers of any size: it checks the text, it does not convert it. */
int capsa__json_valid(const char *text, size_t len);

/* Writes the start of v's compact JSON text (JSON_ENCODE_ANY) into buf, at most
 * size - 1 bytes and cut at a character boundary, NUL-terminated: a message can
 * show a value without dumping all of a huge one. *cut tells whether the text
 * was longer. Returns the length written, or -1 when jansson ran out of memory. */
long capsa__json_head(const json_t *v, char *buf, size_t size, int *cut);

/* Compares two JSON numbers (integer or real) as the decimals they write, exactly
 * (capsa__json_number_cmp): a real is the decimal of its shortest form, which for
 * the numbers of a strict parse is the decimal its text wrote. So the integer 5
 * equals the real 5.0, 9007199254740993 is greater than 9007199254740992.0, and
 * 1234567890123456790 is less than 1234567890123456800.0 (whose double is
 * 1234567890123456768). Returns -1, 0 or 1, or 2 when they do not compare (a NaN,
 * which JSON text cannot hold). */
int capsa__json_num_cmp(const json_t *x, const json_t *y);

/* Deep equality by value: the same kind (all numbers are one kind, compared with
 * capsa__json_num_cmp), strings byte by byte, arrays member by member, objects
 * key by key whatever their order. Values nested deeper than max_depth levels
 * compare unequal, so that the recursion is bounded. */
int capsa__json_equal(const json_t *x, const json_t *y, unsigned max_depth);

/* The kind of v as messages name it: "object", "array", "string", "number",
 * "boolean" or "null"; with article set "an object", "a string", ... ("null"). */
const char *capsa__json_kind(const json_t *v, int article);

#endif
