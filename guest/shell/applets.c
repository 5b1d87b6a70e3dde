/* The applet registry: every table of applets, searched by name. The executor
 * reaches it only through the applet hook (state.h), set by sh_new; `help`
 * and the native build list it. */
#include <string.h>

#include "sh.h"

static const sh_applet *const tables[] = {
    sh_applets_files, sh_applets_text, sh_applets_sed, sh_applets_awk, sh_applets_jq,
    sh_applets_util, sh_applets_sqlite3,
};

const sh_applet *sh_applet_find(const char *name)
{
    for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
        for (const sh_applet *a = tables[t]; a->name; a++)
            if (strcmp(a->name, name) == 0)
                return a;
    return NULL;
}

const sh_applet *sh_applet_at(size_t i)
{
    for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
        for (const sh_applet *a = tables[t]; a->name; a++)
            if (i-- == 0)
                return a;
    return NULL;
}
