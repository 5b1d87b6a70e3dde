#!/bin/sh
# Draws the ratios of a `make bench` run as a bar chart: each bar goes from 1 (the
# reference) to the row's ratio on a log scale, so that up is capsa slower or
# bigger and down is capsa faster or smaller; the machine and the date are under
# it. Needs gnuplot (bench/deps.sh installs it); without it, says so and draws
# nothing.
#   plot.sh BENCH_JSON OUT_PNG
set -eu
json=$1
png=$2

if ! command -v gnuplot >/dev/null 2>&1; then
    echo "bench: gnuplot is missing (the Debian package gnuplot-nox; bench/deps.sh installs it): no chart" >&2
    exit 0
fi
data=$(mktemp)
script=$(mktemp)
trap 'rm -f "$data" "$script"' EXIT INT TERM

# From the JSON, which bench.sh writes one row per line: index, name, ratio and
# group (the first part of the name, the peer for a peer row) of every row that has
# a ratio.
awk '
/"name":/ {
    name = $0; sub(/.*"name": "/, "", name); sub(/".*/, "", name)
    ratio = $0; sub(/.*"ratio": /, "", ratio); sub(/[^0-9.eE+-].*/, "", ratio)
    if (ratio == "" || ratio + 0 <= 0)
        next
    group = name; sub(/\..*/, "", group)
    if (group == "peers") {
        group = name; sub(/^peers\./, "", group); sub(/\..*/, "", group)
    }
    print ++n, name, ratio, group
}' "$json" >"$data"
if [ ! -s "$data" ]; then
    echo "bench: no ratios in $json: no chart" >&2
    exit 0
fi

model=$(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo 2>/dev/null | head -n 1)
cores=$(grep -c '^processor' /proc/cpuinfo 2>/dev/null || echo "?")
machine="${model:-unknown CPU}, $cores cores"
when=$(date -u '+%Y-%m-%d %H:%M UTC')

awk -v png="$png" -v data="$data" -v machine="$machine" -v when="$when" '
{
    n = $1; name[n] = $2; ratio[n] = $3 + 0
    if (!($4 in gi)) { gi[$4] = ++ng; gname[ng] = $4 }
    group[n] = gi[$4]
    if (n == 1 || ratio[n] < lo) lo = ratio[n]
    if (n == 1 || ratio[n] > hi) hi = ratio[n]
}
END {
    # One color a group: the default cycle of gnuplot has eight, and there are more groups.
    ncolor = split("#9400d3 #009e73 #56b4e9 #e69f00 #f0e442 #0072b2 #e51e10 #404040 " \
        "#cc79a7 #8fbc8f #a0522d #00ced1", color, " ")
    if (lo > 1) lo = 1
    if (hi < 1) hi = 1
    width = 320 + 42 * n
    if (width < 900) width = 900
    printf "set terminal pngcairo noenhanced size %d,800 font \"sans,9\"\n", width
    printf "set output \"%s\"\n", png
    print "set title \"capsa, make bench: ratio of capsa to each reference measured in the same run\\n" \
        "below 1: capsa faster or smaller (memory.count: capsa created as many)\""
    printf "set label \"%s  |  %s\" at screen 0.5, screen 0.03 center\n", machine, when
    print "set ylabel \"capsa / reference (log scale)\""
    print "set logscale y"
    printf "set yrange [%g:%g]\n", lo / 1.6, hi * 1.6
    printf "set xrange [0.3:%g]\n", n + 0.7
    print "set grid ytics"
    print "set key top left"
    print "set style fill solid 0.75 border -1"
    print "set bmargin 19"
    printf "set xtics rotate by -50 left nomirror ("
    for (i = 1; i <= n; i++)
        printf "%s\"%s\" %d", (i > 1 ? ", " : ""), name[i], i
    print ")"
    print "set arrow from graph 0, first 1 to graph 1, first 1 nohead dashtype 2 linecolor rgb \"black\""
    printf "plot "
    for (g = 1; g <= ng; g++)
        printf "\"%s\" using 1:(strcol(4) eq \"%s\" ? $3 : 1/0):($1 - 0.38):($1 + 0.38):($3 < 1 ? $3 : 1):($3 < 1 ? 1 : $3) " \
            "with boxxyerrorbars linecolor rgb \"%s\" title \"%s\", ", data, gname[g],
            color[(g - 1) % ncolor + 1], gname[g]
    # Each value just past the end of its bar: above one going up, below one going down.
    printf "\"%s\" using 1:($3 >= 1 ? $3 : 1/0):(sprintf(\"%%.2f\", $3)) " \
        "with labels offset 0,0.7 font \"sans,7\" notitle, ", data
    printf "\"%s\" using 1:($3 < 1 ? $3 : 1/0):(sprintf(\"%%.2f\", $3)) " \
        "with labels offset 0,-0.7 font \"sans,7\" notitle\n", data
}' "$data" >"$script"
if gnuplot "$script"; then
    echo "chart written to $png ($(wc -c <"$png") bytes)"
else
    echo "bench: gnuplot failed: no chart" >&2
fi
