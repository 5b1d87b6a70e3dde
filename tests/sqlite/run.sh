#!/bin/sh
# The sqlite3 applet: the sandbox's sqlite3 command against Debian's over the SQL
# corpus and the command-line cases, then what the sandbox refuses and bad input
# (compare.sh), and that shell.c's state is reset between runs (statics.sh).
here=$(cd "$(dirname "$0")" && pwd)
exec bash "$here/compare.sh"
