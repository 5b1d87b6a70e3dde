/* JSON text of jansson values, with numbers written as JavaScript writes them.
 * jansson writes a real with 17 significant digits (0.1 as 0.10000000000000001,
 * 19.99 as 19.989999999999998): text that reads back as the same double but not
 * as the decimal it was, which capsa's strict parse refuses (so a policy or a
 * schema that held 0.1 would not load again) and which a person or a model
 * reading a result should not see. Here a real is written in the shortest form
 * that reads back as the same double, and everything else as jansson writes it.
 * It needs only jansson and the C library, so the same source is compiled into
 * libcapsa and into libcapsa-net (net/ and cli/ include it as "../src/json_write.h"). */
#ifndef CAPSA_JSON_WRITE_H
#define CAPSA_JSON_WRITE_H

#include <jansson.h>
#include <stddef.h>

/* Writes into buf (size at least 32) the shortest text that reads back as d, as
 * JavaScript writes numbers, whatever the program's locale ("0.1", "10", "1e+21",
 * "1.5e-7", "-0"; the sign of zero is kept). Returns 0, or
 * -1 when d is not finite (or the C locale cannot be had). */
int capsa__json_real_text(double d, char *buf, size_t size);

/* Reads s, a number's text, as a double in the C locale: 0, or -1 when that
 * locale cannot be had. */
int capsa__json_read_real(const char *s, double *d);

/* Writes v as JSON text through cb, as json_dump_callback does with the same
 * flags (JSON_COMPACT, JSON_INDENT(n), JSON_ENCODE_ANY; others are ignored;
 * object members in their order), except that a real is written as
 * capsa__json_real_text writes it, with ".0" added when that has neither a
 * point nor an exponent (5.0 stays a real). Returns 0, or -1 when cb failed,
 * v is NULL, nested deeper than 2048 levels, or not an object or an array
 * without JSON_ENCODE_ANY. */
int capsa__json_dump_callback(const json_t *v, json_dump_callback_t cb, void *ud, size_t flags);

/* v's JSON text as capsa__json_dump_callback writes it, NUL-terminated, in memory
 * from malloc that the caller frees with free(); NULL when out of memory or when
 * v cannot be written (as above). The replacement for json_dumps. */
char *capsa__json_dumps(const json_t *v, size_t flags);

#endif
