#!/bin/sh
# Prints capsa's version (e.g. 0.2.0) from the CAPSA_VERSION_MAJOR, _MINOR and
# _PATCH lines of include/capsa.h, the version's one home ($1: another header).
set -eu
header=${1:-$(dirname "$0")/../include/capsa.h}
awk '$1 == "#define" && $2 ~ /^CAPSA_VERSION_(MAJOR|MINOR|PATCH)$/ { v[$2] = $3 }
     END {
         if (!(("CAPSA_VERSION_MAJOR" in v) && ("CAPSA_VERSION_MINOR" in v) && ("CAPSA_VERSION_PATCH" in v))) {
             print "version.sh: no CAPSA_VERSION_MAJOR/MINOR/PATCH in " FILENAME > "/dev/stderr"
             exit 1
         }
         print v["CAPSA_VERSION_MAJOR"] "." v["CAPSA_VERSION_MINOR"] "." v["CAPSA_VERSION_PATCH"]
     }' "$header"
