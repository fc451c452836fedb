#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Simulated curves of the aoq paper's Figs. 7 and 8 (average delay against
# load, 4 and 8 lanes, packet sizes uniform in 1-50, 1-100, 50-100 flits)
# from `qsim lanes --sweep`, as CSV and SVG under Documentation/.
# Usage: scripts/aoq-plots.sh [QSIM]   (make aoq-plots)
set -euo pipefail
cd "$(dirname "$0")/.."
QSIM=${1:-build/bin/qsim}
CSV=Documentation/data/aoq-delay.csv
OUT=Documentation/aoq-delay.svg

command -v gnuplot >/dev/null || { echo "aoq-plots: needs gnuplot (apt-get install gnuplot-nox)" >&2; exit 1; }
[ -x "$QSIM" ] || { echo "aoq-plots: no $QSIM; run make first" >&2; exit 1; }
mkdir -p "$(dirname "$CSV")"
"$QSIM" lanes --sweep --cycles 1000000 --bubble 0.1 --buffer 512 --seed 1 >"$CSV.tmp"
mv "$CSV.tmp" "$CSV"

# one data file per panel and mode, as gnuplot wants them
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
awk -F, -v d="$TMP" 'NR > 1 { f = d "/" $1 "_" $2 "_" $3 "_" $6; print $4, $7 > f }' "$CSV"

{
	echo "set terminal svg size 1200,760 dynamic font 'sans,11'"
	echo "set output '$OUT'"
	echo "set multiplot layout 2,3 title 'qsim lanes: average delay (cycles) against load; bubble 0.1, buffers 512 flits'"
	echo "set key top left; set grid; set xlabel 'load'; set ylabel 'delay (cycles)'"
	for n in 4 8; do
		for r in 1_50 1_100 50_100; do
			echo "set title '$n lanes, sizes ${r/_/-} flits'"
			echo -n "plot "
			sep=
			for m in fbrr arr aoq pbrr; do
				echo -n "$sep'$TMP/${n}_${r}_$m' using 1:2 with linespoints title '$m'"
				sep=", "
			done
			echo
		done
	done
	echo "unset multiplot"
} >"$TMP/plot.gp"
gnuplot "$TMP/plot.gp"
echo "aoq-plots: wrote $CSV and $OUT"
