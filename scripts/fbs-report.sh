#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The report of make fbs-demo: from DIR/fbs/{threshold,trials,corrupt,
# setup}.tsv (selftests/demo/fbs.sh), print the tables, draw the plots
# with gnuplot when it is installed, and write DIR/report.md.
#
# Usage: scripts/fbs-report.sh DIR
set -uo pipefail
. "$(dirname "$0")/lib.sh"

DIR=${1:?usage: fbs-report.sh DIR}
F=$DIR/fbs
for f in threshold trials corrupt setup; do
	[ -r "$F/$f.tsv" ] || fq_die "no $F/$f.tsv: run make fbs-demo"
done
setup() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' "$F/setup.tsv"; }
SLOT=$(setup slot_us) DRIFT=$(setup drift_ppm) PERIODS=$(setup periods)
SERIES_N=$(setup series_nodes)
LAT_N=$(setup lat_nodes)

threshold_table() {
	echo "| nodes | Eq. 3: empty slots | measured: largest good run | overhead, Eq. 3 | overhead, measured |"
	echo "| --- | --- | --- | --- | --- |"
	awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s %% | %s |\n", $1, $3, ($4 < 0 ? "none" : $4), $5, ($6 == "-" ? "-" : $6 " %") }' \
		"$F/threshold.tsv"
}
trials_table() {
	echo "| nodes | empty slots | frames judged | out of their slot | stalls |"
	echo "| --- | --- | --- | --- | --- |"
	awk -F'\t' 'NR > 1 { printf "| %s | %s | %s | %s | %s |\n", $1, $3, $5, $6, $7 }' "$F/trials.tsv"
}
# the first window with frames out of their slot, per feedback (a
# window's time: guest ms from the drift to its end)
corrupt_line() {
	awk -F'\t' -v fb="$1" 'NR > 1 && $1 == fb { n += $3; o += $4; t = $2
		if ($4 > 0 && !first) first = $2 }
		END { printf "feedback %s: %d of %d frames out of their slot in %.1f s; %s\n", fb, o, n,
			     t / 1000, first ? "the first in the window ending at " first " ms" : "none" }' \
		"$F/corrupt.tsv"
}

# latency: a quarter-slot bucket as the latency it reaches (us)
latency_table() {
	echo "| traffic | frames | mean | median under | 99th percentile under | largest |"
	echo "| --- | --- | --- | --- | --- | --- |"
	awk -F'\t' -v slot="$SLOT" 'function q(b) { return b < 0 ? "-" : sprintf("%.0f us", (b + 1) * slot / 4) }
		NR > 1 { printf "| %s | %s | %s us | %s | %s | %s us |\n", $1, $3, $4, q($5), q($6), $8 }' \
		"$F/latency.tsv"
}
latency_ratio() {
	awk -F'\t' 'NR > 1 { m[$1] = $4; x[$1] = $8 }
		END { if (m["reserved"] > 0 && x["reserved"] > 0)
			printf "best effort against reserved: mean %.1fx, largest %.1fx\n",
				m["best-effort"] / m["reserved"], x["best-effort"] / x["reserved"] }' \
		"$F/latency.tsv"
}

echo "FBS in the VM: ${SLOT}-us slots at 10 Mbit/s, one clock $DRIFT ppm slow, $PERIODS periods per trial"
threshold_table
corrupt_line on
corrupt_line off
if [ -s "$F/latency.tsv" ]; then
	echo "Latency, $LAT_N nodes, from a frame's slot start to its last byte at its receiver:"
	latency_table
	latency_ratio
fi

# the plots' data: one file per series, "x y"
for n in $(awk -F'\t' 'NR > 1 { print $1 }' "$F/threshold.tsv"); do
	awk -F'\t' -v n="$n" 'NR > 1 && $1 == n && $5 > 0 { print $3, 100 * $6 / $5 }' \
		"$F/trials.tsv" | sort -n > "$DIR/fbs-empty-$n.dat"
done
for fb in on off; do
	awk -F'\t' -v fb="$fb" 'NR > 1 && $1 == fb { print $2, ($3 > 0 ? 100 * $4 / $3 : 0) }' \
		"$F/corrupt.tsv" > "$DIR/fbs-corrupt-$fb.dat"
done
# the latency histograms: bucket middle (ms), percent of the kind's frames
for kind in reserved best-effort; do
	[ -s "$F/latency_hist.tsv" ] || break
	awk -F'\t' -v k="$kind" -v slot="$SLOT" 'NR > 1 && $1 == k { n[$2] = $3; t += $3 }
		END { for (b = 0; b < 64; b++) if (n[b] > 0) print (b + 0.5) * slot / 4000, 100 * n[b] / t }' \
		"$F/latency_hist.tsv" > "$DIR/fbs-latency-$kind.dat"
done
plots=()
if command -v gnuplot >/dev/null; then
	gp=$DIR/fbs.gp
	# each plot twice: PNG for report.md, SVG (text) for Documentation/
	plot_all() {
		local ext=$1
		echo "set key top left"
		echo "set grid"
		echo "set output '$DIR/fbs-empty.$ext'"
		echo "set title 'Frames out of their slot against empty slots per period ($DRIFT ppm, feedback on)'"
		echo "set xlabel 'empty slots after the all-to-all round'"
		echo "set ylabel 'frames out of their slot (%)'"
		echo -n "plot "
		sep=
		for f in "$DIR"/fbs-empty-*.dat; do
			n=${f##*-}
			echo -n "$sep'$f' using 1:2 with linespoints title '${n%.dat} nodes'"
			sep=", "
		done
		echo
		echo "set output '$DIR/fbs-corrupt.$ext'"
		echo "set title 'Frames out of their slot after one clock goes $DRIFT ppm slow ($SERIES_N nodes, no empty slots)'"
		echo "set xlabel 'time after the drift was set (ms)'"
		echo "set ylabel 'frames out of their slot, per window (%)'"
		echo "plot '$DIR/fbs-corrupt-on.dat' using 1:2 with linespoints title 'feedback (credits, wormhole)', '$DIR/fbs-corrupt-off.dat' using 1:2 with linespoints title 'no feedback'"
		if [ -s "$F/latency_hist.tsv" ]; then
			echo "set output '$DIR/fbs-latency.$ext'"
			echo "set title 'Latency from the slot start to the last byte in ($LAT_N nodes, quarter-slot buckets)'"
			echo "set xlabel 'latency (ms)'"
			echo "set ylabel 'frames (%)'"
			echo "set logscale y"
			echo "plot '$DIR/fbs-latency-reserved.dat' using 1:2 with boxes title 'reserved slots', '$DIR/fbs-latency-best-effort.dat' using 1:2 with linespoints title 'best effort'"
			echo "unset logscale y"
		fi
	}
	{
		echo "set terminal pngcairo size 900,560 font ',10' noenhanced"
		plot_all png
		echo "set terminal svg size 900,560 dynamic font 'sans,11' noenhanced"
		plot_all svg
	} > "$gp"
	if gnuplot "$gp" > "$DIR/gnuplot.log" 2>&1; then
		plots=(fbs-empty.png fbs-corrupt.png)
		[ -s "$F/latency_hist.tsv" ] && plots+=(fbs-latency.png)
	else
		echo "fbs-report: gnuplot failed, see ${DIR#"$FQ_ROOT"/}/gnuplot.log" >&2
	fi
else
	echo "fbs-report: gnuplot not found (make setup installs it): no plots" >&2
fi

{
	echo "# FBS in the VM"
	echo
	echo "Kernel: $(cat "$DIR/kernel.txt" 2>/dev/null). ${SLOT}-us slots at 10 Mbit/s, one vcsw"
	echo "(advanced, wormhole, one-frame credit buffers); after the ring bootstrap"
	echo "($(setup boot)) and with traffic flowing, V0's clock runs $DRIFT ppm slow."
	echo "Documentation/fbs.rst, \"The measurements\"."
	echo
	echo "## The largest run of empty slots that keeps the frames in their slots (at most 1 % out)"
	echo
	threshold_table
	echo
	echo "Every trial ($PERIODS periods each):"
	echo
	trials_table
	echo
	echo "## How fast the schedule corrupts"
	echo
	echo "$SERIES_N nodes, no empty slots, after V0's clock goes $DRIFT ppm slow:"
	echo
	echo "- $(corrupt_line on)"
	echo "- $(corrupt_line off)"
	echo
	if [ -s "$F/latency.tsv" ]; then
		echo "## Latency of scheduled traffic against best effort"
		echo
		echo "$LAT_N nodes, no drift, every host to every other at 150 frames/s; from a"
		echo "frame's slot start at its sender to its last byte at its receiver:"
		echo
		latency_table
		echo
		echo "$(latency_ratio)"
		echo
	fi
	for p in "${plots[@]}"; do
		echo "![${p%.png}]($p)"
		echo
	done
} > "$DIR/report.md"
