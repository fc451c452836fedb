#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# demo-report.sh DIR: from the scenario results in DIR/NAME/ (written by
# selftests/demo/scenario.sh), print one table per traffic class comparing
# the architectures, draw the plots with gnuplot and write DIR/report.md.
# Run by scripts/demo.sh; can be rerun on kept results.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

DIR=${1:?usage: demo-report.sh DIR}
REPORT=$DIR/report.md
KINDS="control multimedia besteffort background"

# scenarios with results, in a fixed order (the paper's), then the rest
order="trad2 trad4 simple2 advanced2 ideal edf"
scen=()
for n in $order; do
	[ -s "$DIR/$n/results.csv" ] && scen+=("$n")
done
for d in "$DIR"/*/; do
	n=$(basename "$d")
	[[ " $order " == *" $n "* ]] && continue
	[ -s "$DIR/$n/results.csv" ] && scen+=("$n")
done
if [ ${#scen[@]} = 0 ]; then
	echo "demo-report: no scenario results in ${DIR#"$FQ_ROOT"/}" >&2
	exit 1
fi

# title = ... of a scenario
title_of() {
	sed -n 's/^[[:space:]]*title[[:space:]]*=[[:space:]]*\(.*[^[:space:]]\)[[:space:]]*$/\1/p' \
		"$DIR/$1/scenario.conf" 2>/dev/null | head -n1
}

# table KIND: markdown rows, one per scenario, from each results.csv
table() {
	local kind=$1 n
	local hdr="| architecture | sent | lost % | Mbit/s | pkt mean us | pkt p99 us | msg mean us | msg p50 us | msg p99 us | msg p99.9 us | msg max us | jitter us | miss % | in +-10 % |"

	echo "$hdr"
	echo "$hdr" | awk -F'|' '{ s = "|"; for (i = 2; i < NF; i++) s = s " --- |"; print s }'
	for n in "${scen[@]}"; do
		awk -F, -v kind="$kind" -v arch="$(title_of "$n") ($n)" '
			NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["name"] == kind {
				miss = $c["deadline_miss_ratio"] == "" ? "-" : sprintf("%.2f", 100 * $c["deadline_miss_ratio"])
				win = $c["in_window_ratio"] == "" ? "-" : sprintf("%.1f", 100 * $c["in_window_ratio"])
				printf "| %s | %d | %.2f | %.2f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %.0f | %s | %s |\n",
					arch, $c["sent"], 100 * $c["loss_ratio"], $c["throughput_bps"] / 1e6,
					$c["lat_mean_us"], $c["lat_p99_us"], $c["msg_mean_us"],
					$c["msg_p50_us"], $c["msg_p99_us"], $c["msg_p999_us"],
					$c["msg_max_us"], $c["msg_jitter_us"], miss, win
			}' "$DIR/$n/results.csv"
	done
}

{
	echo "# fabric-qos demo"
	echo
	echo "Generated $(date -u '+%Y-%m-%d %H:%M UTC') by \`make demo\` on kernel"
	echo "$(cat "$DIR/kernel.txt" 2>/dev/null || echo "(not recorded)")."
	echo "Per class, one row per architecture (Documentation/demo.rst explains the"
	echo "columns).  \"msg\" is a message: a control message, a multimedia frame"
	echo "(generated to last packet received), a best-effort burst message."
	echo
	echo "| scenario | architecture | host | switch | link | load | duration | CPU busy |"
	echo "| - | - | - | - | - | - | - | - |"
	for n in "${scen[@]}"; do
		c=$DIR/$n/scenario.conf
		get() { sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*\([^#]*[^#[:space:]]\).*/\1/p" "$c" | head -n1; }
		cpu=$(sed -n 's/^cpu busy \([0-9]*\) %.*/\1 %/p' "$DIR/$n/cpu.txt" 2>/dev/null)
		echo "| $n | $(title_of "$n") | $(get host) | $(get switch) | $(get link || true) | $(get load || true) | $(get duration || true) | ${cpu:--} |"
	done
	if [ -s "$DIR/summary.txt" ] && grep -q skip "$DIR/summary.txt"; then
		echo
		echo "Skipped:"
		echo
		grep skip "$DIR/summary.txt" | sed 's/^/- /'
	fi
	for k in $KINDS; do
		echo
		echo "## $k"
		echo
		table "$k"
	done
} > "$REPORT.tmp"

# ---- plots ------------------------------------------------------------------
plots=()
if command -v gnuplot >/dev/null; then
	gp=$DIR/plots.gp
	{
		echo "set terminal pngcairo size 900,560 font ',10' noenhanced"
		echo "set grid"
		for k in $KINDS; do
			# best effort waits longest: its curves end on the right
			ext=msg.cdf; what="message latency"; key="bottom right"
			case $k in besteffort|background) ext=cdf; what="packet latency"; key="top left" ;; esac
			echo "set key $key"
			echo "set output '$DIR/cdf-$k.png'"
			echo "set title '$k: $what CDF'"
			echo "set xlabel 'latency (ms, log scale)'; set ylabel 'fraction <= latency'"
			echo "set logscale x; set yrange [0:1.02]"
			p="plot"
			for n in "${scen[@]}"; do
				[ -s "$DIR/$n/$k.$ext" ] || continue
				p+=" '$DIR/$n/$k.$ext' using (\$1/1000):2 with steps lw 2 title '$(title_of "$n")',"
			done
			echo "${p%,}"
			echo "unset logscale x"
		done
		# multimedia frame latency histogram, as a density (fraction of
		# frames per ms) since each scenario has its own bucket width
		echo "set output '$DIR/frame-latency-hist.png'"
		echo "set title 'multimedia: frame latency histogram (generated to last packet)'"
		echo "set xlabel 'frame latency (ms)'; set ylabel 'fraction of frames per ms'; set autoscale y"
		echo "set key top center"
		p="plot"
		for n in "${scen[@]}"; do
			f=$DIR/$n/multimedia.msg.hist
			[ -s "$f" ] || continue
			tot=$(awk '!/^#/ { s += $3 } END { print s + 0 }' "$f")
			[ "$tot" -gt 0 ] || continue
			p+=" '$f' using (\$1/1000):(\$3/$tot/(\$2/1000)) with steps lw 2 title '$(title_of "$n")',"
		done
		echo "${p%,}"
		# best-effort and background throughput per architecture
		echo "set output '$DIR/throughput.png'"
		echo "set title 'best-effort and background throughput'"
		echo "set style data histograms; set style histogram clustered gap 1"
		echo "set style fill solid 0.8 border -1; set boxwidth 0.9"
		echo "set xlabel ''; set ylabel 'Mbit/s received'; set yrange [0:*]; set key outside top center horizontal"
		echo "set xtics rotate by -20; set rmargin 12; set bmargin 6"
		echo "plot '$DIR/throughput.dat' using 2:xtic(1) title 'best-effort', '' using 3 title 'background'"
	} > "$gp"
	: > "$DIR/throughput.dat"
	for n in "${scen[@]}"; do
		be=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["name"] == "besteffort" { printf "%.3f", $c["throughput_bps"] / 1e6 }' "$DIR/$n/results.csv")
		bg=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["name"] == "background" { printf "%.3f", $c["throughput_bps"] / 1e6 }' "$DIR/$n/results.csv")
		printf '"%s" %s %s\n' "$(title_of "$n")" "${be:-0}" "${bg:-0}" >> "$DIR/throughput.dat"
	done
	if gnuplot "$gp" > "$DIR/gnuplot.log" 2>&1; then
		for k in $KINDS; do plots+=("cdf-$k.png"); done
		plots+=(frame-latency-hist.png throughput.png)
	else
		echo "demo-report: gnuplot failed, see ${DIR#"$FQ_ROOT"/}/gnuplot.log" >&2
	fi
else
	echo "demo-report: gnuplot not found (make setup installs it): no plots" >&2
fi

{
	cat "$REPORT.tmp"
	if [ ${#plots[@]} -gt 0 ]; then
		echo
		echo "## Plots"
		for p in "${plots[@]}"; do
			echo
			echo "![${p%.png}]($p)"
		done
	fi
} > "$REPORT"
rm -f "$REPORT.tmp"

# the tables on the terminal
for k in $KINDS; do
	echo
	echo "$k:"
	table "$k" | sed '2d' | sed 's/^| //; s/ |$//' | column -t -s '|' 2>/dev/null || table "$k"
done
exit 0
