/* TypeScript declarations of a sandbox's tools, made from their JSON Schemas: the
 * files of /tools (one per tool, and index.d.ts for all of them) that tell
 * model-written code what it may call, and with what. */
#ifndef CAPSA_DTS_H
#define CAPSA_DTS_H

#include <stddef.h>

#include "buf.h"

/* What the declarations say of one tool. */
typedef struct capsa__dts_tool {
    const char *name;        /* as registered: "math.add" */
    const char *flat;        /* its flat form: "math_add" */
    const char *description; /* "" for none */
    const char *schema;      /* the compact JSON text of its parameters' schema */
    const char *returns;     /* that of its result's schema, or NULL (any) */
} capsa__dts_tool;

/* The declaration file of the tool `one` (one of tools[0..n), its own file), or
 * with one NULL that of all n tools (index.d.ts, with the `tools` namespace), into
 * *out with the C library's allocator (what *out held is freed). Returns CAPSA_OK,
 * or CAPSA_ENOMEM with *out as it was. */
int capsa__dts_write(const capsa__dts_tool *tools, size_t n, const capsa__dts_tool *one,
                     capsa__buf *out);

#endif
