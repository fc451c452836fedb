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

# scenarios with results, in a fixed order (the paper's), then the rest;
# the sweep's points (NAME-qosN) apart, as archs and loads
order="trad2 trad4 simple2 advanced2 ideal edf fabric-trad2 fabric-trad4 fabric-simple2 fabric-advanced2 fabric-ideal"
scen=()
sweep_archs=()
sweep_loads=()
for n in $order; do
	[ -s "$DIR/$n/results.csv" ] && scen+=("$n")
done
for d in "$DIR"/*/; do
	n=$(basename "$d")
	[ -s "$DIR/$n/results.csv" ] || continue
	if [[ $n =~ ^(.+)-qos([0-9]+)$ ]]; then
		[[ " ${sweep_archs[*]} " == *" ${BASH_REMATCH[1]} "* ]] ||
			sweep_archs+=("${BASH_REMATCH[1]}")
		[[ " ${sweep_loads[*]} " == *" ${BASH_REMATCH[2]} "* ]] ||
			sweep_loads+=("${BASH_REMATCH[2]}")
		continue
	fi
	[[ " $order " == *" $n "* ]] && continue
	scen+=("$n")
done
# the sweep's architectures in the paper's order, its loads ascending
sorted=()
for n in $order; do
	[[ " ${sweep_archs[*]} " == *" $n "* ]] && sorted+=("$n")
done
for n in "${sweep_archs[@]}"; do
	[[ " $order " == *" $n "* ]] || sorted+=("$n")
done
sweep_archs=("${sorted[@]}")
mapfile -t sweep_loads < <(printf '%s\n' "${sweep_loads[@]}" | sort -n | grep .)
if [ ${#scen[@]} = 0 ] && [ ${#sweep_archs[@]} = 0 ]; then
	echo "demo-report: no scenario results in ${DIR#"$FQ_ROOT"/}" >&2
	exit 1
fi

# title = ... of a scenario
title_of() {
	sed -n 's/^[[:space:]]*title[[:space:]]*=[[:space:]]*\(.*[^[:space:]]\)[[:space:]]*$/\1/p' \
		"$DIR/$1/scenario.conf" 2>/dev/null | head -n1
}

# csv_get DIR KIND COLUMN: COLUMN of class KIND in DIR/results.csv
csv_get() {
	awk -F, -v kind="$2" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["name"] == kind && (col in c) { print $c[col] }' "$1/results.csv" 2>/dev/null
}

# switch_summary NAME: "drops in the switch / host credit stalls" of a
# switch scenario (switch.txt, switch-inputs.txt, qdisc.txt), or "-"
switch_summary() {
	local d=$DIR/$1 drops stalls

	[ -s "$d/switch.txt" ] || { echo "-"; return; }
	drops=$(cat "$d/switch.txt" "$d/switch-inputs.txt" 2>/dev/null |
		awk '{ for (i = 1; i < NF; i++) if ($i ~ /^(drops_full|drop_nomem|violations)$/) n += $(i + 1) }
		     END { print n + 0 }')
	# "stalls vc0 N vc1 N ..." with as many VCs as the link has
	stalls=$(awk '$1 == "credits:" { for (i = 1; i < NF; i++) if ($i == "stalls")
			for (j = i + 1; j < NF && $j ~ /^vc[0-9]$/; j += 2) n += $(j + 1) }
		     END { print n + 0 }' "$d/qdisc.txt" 2>/dev/null)
	echo "$drops / ${stalls:-0}"
}

# hops_rows: per fabric scenario (with hops.txt, selftests/demo/fabric.sh)
# the switches a datagram crossed, by its route and as the switches
# counted; a single-switch scenario crosses one switch and has none
hops_rows() {
	local n f

	for n in "${scen[@]}"; do
		f=$DIR/$n/hops.txt
		[ -s "$f" ] || continue
		awk -v arch="$(title_of "$n") ($n)" '
			/^switches per datagram, from the routes:/ { r = $7; m = $10; sub(/\)$/, "", m) }
			/^switches per datagram, measured:/ { x = $5 }
			/^datagrams received:/ { n = $3 }
			END { printf "| %s | %s | %s | %s | %s |\n", arch, r == "" ? "-" : r,
				     m == "" ? "-" : m, x == "" ? "-" : x, n == "" ? "-" : n }' "$f"
	done
}

# size_rows: per fabric scenario (settings.txt with a tree) its size, how
# busy the VM's CPU was and what the fabric carried: hosts, switches, the
# link rate, the frames all switch ports sent per second of traffic, the
# link messages sent per data frame (hosts' and switch ports' frames), the
# frames the CPUs' receive backlogs dropped (losses.txt), and the QoS
# classes' figures that a CPU falling behind spoils first
size_rows() {
	local n d tree k l cpu frames hframes msgs drops

	for n in "${scen[@]}"; do
		d=$DIR/$n
		tree=$(sed -n 's/^tree = \([0-9]*,[0-9]*\)$/\1/p' "$d/settings.txt" 2>/dev/null | tail -n1)
		[ -n "$tree" ] || continue
		k=${tree%,*} l=${tree#*,}
		cpu=$(sed -n 's/^cpu busy \([0-9]*\) %.*/\1 %/p' "$d/cpu.txt" 2>/dev/null)
		frames=$(sed -n 's/^frames sent by switch ports: \([0-9]*\)$/\1/p' "$d/hops.txt" 2>/dev/null)
		hframes=$(sed -n 's/^frames sent by hosts: \([0-9]*\)$/\1/p' "$d/hops.txt" 2>/dev/null)
		msgs=$(sed -n 's/^link messages sent: \([0-9]*\)$/\1/p' "$d/hops.txt" 2>/dev/null)
		drops=$(sed -n 's/^receive backlog drops ([^)]*): \([0-9]*\)$/\1/p' "$d/losses.txt" 2>/dev/null)
		awk -F, -v n="$n" -v hosts=$((k ** l)) -v sw=$((l * k ** (l - 1))) -v tree="$tree" \
			-v link="$(sed -n 's/^link = //p' "$d/settings.txt" | tail -n1)" \
			-v dur="$(sed -n 's/^duration = //p' "$d/settings.txt" | tail -n1)" \
			-v cpu="${cpu:--}" -v frames="$frames" -v hframes="$hframes" -v msgs="$msgs" \
			-v drops="${drops:--}" '
			NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			{ mbps += $c["throughput_bps"] / 1e6 }
			$c["name"] == "control" { cp99 = $c["msg_p99_us"] / 1000; clate = 100 * $c["deadline_miss_ratio"] }
			$c["name"] == "multimedia" { win = 100 * $c["in_window_ratio"] }
			END {
				fps = (frames != "" && dur + 0 > 0) ? sprintf("%.0f", frames / dur) : "-"
				mpf = (msgs != "" && frames + hframes > 0) ? sprintf("%.1f", msgs / (frames + hframes)) : "-"
				printf "| %s | %s | %d | %d | %s | %s | %s | %s | %s | %.1f / %.1f | %.1f | %.2f |\n",
					n, tree, hosts, sw, link, cpu, fps, mpf, drops, cp99, clate, win, mbps
			}' "$d/results.csv"
	done
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

# sweep_table TITLE KIND COLUMN SCALE DECIMALS: architectures x QoS loads
sweep_table() {
	local a q v row

	echo
	echo "### $1"
	echo
	row="| architecture |"
	for q in "${sweep_loads[@]}"; do row+=" $q % |"; done
	echo "$row"
	echo "$row" | awk -F'|' '{ s = "|"; for (i = 2; i < NF; i++) s = s " --- |"; print s }'
	for a in "${sweep_archs[@]}"; do
		row="| $(title_of "$a-qos${sweep_loads[0]}") |"
		for q in "${sweep_loads[@]}"; do
			v=$(csv_get "$DIR/$a-qos$q" "$2" "$3")
			[ -n "$v" ] && v=$(awk -v v="$v" -v s="$4" -v d="$5" 'BEGIN { printf "%.*f", d, v * s }')
			row+=" ${v:--} |"
		done
		echo "$row"
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
	echo "| scenario | architecture | host | switch | credits | link | load | duration | CPU busy | switch drops / host stalls |"
	echo "| - | - | - | - | - | - | - | - | - | - |"
	for n in "${scen[@]}"; do
		# settings.txt: every key as run; scenario.conf: older results
		c=$DIR/$n/settings.txt
		[ -s "$c" ] || c=$DIR/$n/scenario.conf
		# the last line of a key counts (overrides follow the file's)
		get() { sed -n "s/^[[:space:]]*$1[[:space:]]*=[[:space:]]*\([^#]*[^#[:space:]]\).*/\1/p" "$c" | tail -n1; }
		cpu=$(sed -n 's/^cpu busy \([0-9]*\) %.*/\1 %/p' "$DIR/$n/cpu.txt" 2>/dev/null)
		sw=$(get switch)
		cr=-
		[ "${sw:-none}" = none ] || { cr=$(get credits); cr=${cr:-on}; }
		echo "| $n | $(title_of "$n") | $(get host) | ${sw:-none} | $cr | $(get link) | $(get load) | $(get duration) | ${cpu:--} | $(switch_summary "$n") |"
	done
	if [ -s "$DIR/summary.txt" ] && grep -q skip "$DIR/summary.txt"; then
		echo
		echo "Skipped:"
		echo
		grep skip "$DIR/summary.txt" | sed 's/^/- /'
	fi
	if [ ${#scen[@]} -gt 0 ]; then
		for k in $KINDS; do
			echo
			echo "## $k"
			echo
			table "$k"
		done
	fi
	if [ -n "$(hops_rows)" ]; then
		echo
		echo "## Hops"
		echo
		echo "Switches crossed per datagram received in the multistage scenarios: by"
		echo "the routes the datagrams took (the mean, and the longest), and as the"
		echo "switches counted the frames their ports sent (control frames and end"
		echo "marks included).  A single switch is one hop for every datagram."
		echo
		echo "| architecture | switches, routes | longest | switches, measured | datagrams |"
		echo "| --- | --- | --- | --- | --- |"
		hops_rows
	fi
	if [ -n "$(size_rows)" ]; then
		echo
		echo "## Fabric size"
		echo
		echo "What the VM's one CPU carried in each multistage scenario: the frames"
		echo "all switch ports sent per second of traffic, how busy the CPU was, the"
		echo "credit links' messages per data frame sent (hosts' and switch ports'),"
		echo "the frames the CPU's receive backlog dropped (losses.txt), and the"
		echo "figures that suffer first when it falls behind (control's message"
		echo "p99 in ms and share later than its target, multimedia frames within"
		echo "+-10 % of their latency, everything received in Mbit/s)."
		echo
		echo "| scenario | tree | hosts | switches | link | CPU busy | switch frames/s | link msgs / frame | backlog drops | control p99 ms / late % | multimedia in window % | received Mbit/s |"
		echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
		size_rows
	fi
	if [ ${#sweep_archs[@]} -gt 0 ]; then
		echo
		echo "## QoS-load sweep"
		echo
		echo "QoS (control and multimedia, evenly) at N % of the load, best effort"
		echo "(best-effort and background, evenly) the rest; one row per architecture,"
		echo "one column per N."
		sweep_table "control: message p99, us" control msg_p99_us 1 0
		sweep_table "control: messages later than the target, %" control deadline_miss_ratio 100 2
		sweep_table "multimedia: frame p99, us" multimedia msg_p99_us 1 0
		sweep_table "multimedia: frames within target +-10 %, %" multimedia in_window_ratio 100 1
		sweep_table "multimedia: received, Mbit/s" multimedia throughput_bps 1e-6 2
		sweep_table "best-effort: received, Mbit/s" besteffort throughput_bps 1e-6 2
		sweep_table "background: received, Mbit/s" background throughput_bps 1e-6 2
	fi
} > "$REPORT.tmp"

# ---- plots ------------------------------------------------------------------
# main_plots: the gnuplot lines of the scenarios' plots (CDFs, frame
# latency histogram, best-effort throughput), and their throughput.dat
main_plots() {
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
}

main_plots_data() {
: > "$DIR/throughput.dat"
for n in "${scen[@]}"; do
	be=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["name"] == "besteffort" { printf "%.3f", $c["throughput_bps"] / 1e6 }' "$DIR/$n/results.csv")
	bg=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["name"] == "background" { printf "%.3f", $c["throughput_bps"] / 1e6 }' "$DIR/$n/results.csv")
	printf '"%s" %s %s\n' "$(title_of "$n")" "${be:-0}" "${bg:-0}" >> "$DIR/throughput.dat"
done
}

# arch_lines Y: a gnuplot "plot" of column expression Y against the QoS
# load, one line per architecture of the sweep
arch_lines() {
	local a p="plot"

	for a in "${sweep_archs[@]}"; do
		p+=" '$DIR/sweep-$a.dat' using 1:$1 lw 2 title '$(title_of "$a-qos${sweep_loads[0]}")',"
	done
	echo "${p%,}"
}

# sweep_plots: against QoS load, one line per architecture: control p99,
# multimedia frames within +-10 %, best-effort and background received
sweep_plots() {
	local a q col p

	for a in "${sweep_archs[@]}"; do
		for q in "${sweep_loads[@]}"; do
			d=$DIR/$a-qos$q
			echo "$q $(csv_get "$d" control msg_p99_us) $(csv_get "$d" multimedia in_window_ratio)" \
				"$(csv_get "$d" besteffort throughput_bps) $(csv_get "$d" background throughput_bps)"
		done > "$DIR/sweep-$a.dat"
	done
	# undo the histogram's settings of main_plots
	echo "set key outside right; unset logscale; set autoscale; set style fill empty"
	echo "set xtics norotate autofreq; set rmargin -1; set bmargin -1"
	echo "set xlabel 'QoS load (% of the link)'; set xrange [0:100]"
	echo "set style data linespoints"
	echo "set output '$DIR/sweep-control.png'"
	echo "set title 'control: message latency p99 against QoS load'"
	echo "set ylabel 'p99 (ms, log scale)'; set logscale y"
	arch_lines '($2/1000)'
	echo "unset logscale y"
	echo "set output '$DIR/sweep-multimedia.png'"
	echo "set title 'multimedia: frames within 10 ms +-10 % against QoS load'"
	echo "set ylabel '% of frames'; set yrange [0:105]"
	arch_lines '(100*$3)'
	echo "set output '$DIR/sweep-besteffort.png'"
	echo "set title 'best-effort (solid) and background (dashed) received against QoS load'"
	echo "set ylabel 'Mbit/s'; set yrange [0:*]"
	p="plot"
	col=1
	for a in "${sweep_archs[@]}"; do
		p+=" '$DIR/sweep-$a.dat' using 1:(\$4/1e6) lw 2 lc $col title '$(title_of "$a-qos${sweep_loads[0]}")',"
		p+=" '' using 1:(\$5/1e6) lw 2 lc $col dt 2 notitle,"
		col=$((col + 1))
	done
	echo "${p%,}"
}

plots=()
if command -v gnuplot >/dev/null; then
	gp=$DIR/plots.gp
	{
		echo "set terminal pngcairo size 900,560 font ',10' noenhanced"
		echo "set grid"
		[ ${#scen[@]} = 0 ] || main_plots
		[ ${#sweep_archs[@]} = 0 ] || sweep_plots
	} > "$gp"
	[ ${#scen[@]} = 0 ] || main_plots_data
	if gnuplot "$gp" > "$DIR/gnuplot.log" 2>&1; then
		if [ ${#scen[@]} -gt 0 ]; then
			for k in $KINDS; do plots+=("cdf-$k.png"); done
			plots+=(frame-latency-hist.png throughput.png)
		fi
		[ ${#sweep_archs[@]} = 0 ] ||
			plots+=(sweep-control.png sweep-multimedia.png sweep-besteffort.png)
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
if [ ${#scen[@]} -gt 0 ]; then
	for k in $KINDS; do
		echo
		echo "$k:"
		table "$k" | sed '2d' | sed 's/^| //; s/ |$//' | column -t -s '|' 2>/dev/null || table "$k"
	done
fi
# the sweep's, from the report
if [ ${#sweep_archs[@]} -gt 0 ]; then
	echo
	echo "QoS-load sweep (report.md explains):"
	sed -n '/^## QoS-load sweep/,/^## Plots/p' "$REPORT" | grep -E '^(\||###)' |
		awk '/^###/ { if (t != "") print t | "column -t -s \"|\""; close("column -t -s \"|\"")
			      t = ""; print ""; print substr($0, 5) ":"; next }
		     /^\| *---/ { next }
		     { sub(/^\| /, ""); sub(/ \|$/, ""); t = t $0 "\n" }
		     END { if (t != "") printf "%s", t | "column -t -s \"|\"" }'
fi
exit 0
