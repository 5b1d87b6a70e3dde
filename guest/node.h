/* Natives of node.js (guest/node.c): what `process` needs from C. */
#ifndef CAPSA_GUEST_NODE_H
#define CAPSA_GUEST_NODE_H

#include "quickjs.h"

/* Adds node.js's natives to obj, the host object node.js captures. */
void capsa_node_add_natives(JSContext *ctx, JSValueConst obj);

/* Sets the path process.argv[1] gives from now on (copied). 0, or -1 when out of
 * memory (the old one is kept). */
int capsa_node_set_script(const char *path);

#endif
