#!/bin/sh
# a script file
for n in 3 1 2; do
  echo "n=$n"
done | sort
case "$0" in *) echo "args: $#";; esac
