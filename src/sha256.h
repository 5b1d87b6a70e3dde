/* SHA-256 (FIPS 180-4): for the arguments the audit logs by hash, and for the id
 * of the guest image a checkpoint names. */
#ifndef CAPSA_SHA256_H
#define CAPSA_SHA256_H

#include <stddef.h>
#include <stdint.h>

/* A hash in progress: capsa__sha256_init, _update any number of times, _final. */
typedef struct capsa__sha256 {
    uint32_t h[8];
    uint64_t len;           /* bytes hashed so far */
    unsigned char buf[64];  /* the bytes of a block not yet full */
    size_t n;
} capsa__sha256;

void capsa__sha256_init(capsa__sha256 *s);
void capsa__sha256_update(capsa__sha256 *s, const void *data, size_t len);
/* The digest of what was hashed into out[32]; s must be initialised again to be used. */
void capsa__sha256_final(capsa__sha256 *s, uint8_t out[32]);

/* The SHA-256 of data[0..len) as 64 lower-case hex digits and a NUL in hex[65]. */
void capsa__sha256_hex(const void *data, size_t len, char hex[65]);

#endif
