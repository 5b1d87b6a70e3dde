/* Status codes and the library's version: the messages and names generated from
 * CAPSA_ERRNO_MAP, so the list of codes exists once. */
#include "capsa.h"

CAPSA_API int capsa_version_number(void)
{
    return CAPSA_VERSION_NUMBER;
}

CAPSA_API const char *capsa_version(void)
{
    return CAPSA_VERSION_STRING;
}

CAPSA_API const char *capsa_errstr(int code)
{
    switch (code) {
#define CAPSA__STR(name, num, msg) case num: return msg;
    CAPSA_ERRNO_MAP(CAPSA__STR)
#undef CAPSA__STR
    default: return "unknown error";
    }
}

CAPSA_API const char *capsa_errname(int code)
{
    switch (code) {
#define CAPSA__NAME(name, num, msg) case num: return "CAPSA_" #name;
    CAPSA_ERRNO_MAP(CAPSA__NAME)
#undef CAPSA__NAME
    default: return "CAPSA_UNKNOWN";
    }
}
