/* Applets: (to be written). */
#include "sh.h"

const sh_applet sh_applets_util[] = {
    { NULL, NULL, NULL },
};
