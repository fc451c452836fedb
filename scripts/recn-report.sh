#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# recn-report.sh DIR: the tables of scripts/recn-demo.sh's results (DIR/
# tree.tsv, results.tsv, tree-saqs.dat, and vm-results.tsv with vm/recn/
# when the VM's sweep ran) on stdout and in DIR/report.md, with plots (PNG
# and SVG) when gnuplot is installed.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

DIR=${1:?usage: recn-report.sh DIR}
[ -s "$DIR/results.tsv" ] && [ -s "$DIR/tree.tsv" ] || fq_die "$DIR: no results"
QSIM_ARCHS="fifo voq voq8 recn"
# best-effort throughput, accepted over offered (%), all four SLs or one,
# per architecture of ARCHS (a column each), from FILE (results.tsv's)
be_table() {	# be_table FILE "ARCHS" SL|all
	awk -F'\t' -v archs="$2" -v want="$3" -v order="$(table_loads "$1")" \
		'NR > 1 && $3 >= 4 && (want == "all" || $3 == want) {
			off[$2, $1] += $4; acc[$2, $1] += $5
		}
		END {
			n = split(order, ls, " ")
			na = split(archs, a, " ")
			for (i = 1; i <= n; i++) {
				l = ls[i]
				printf "%s", l
				for (k = 1; k <= na; k++)
					printf "\t%.1f", off[l, a[k]] ? 100 * acc[l, a[k]] / off[l, a[k]] : 0
				printf "\n"
			}
		}' "$1"
}
# QoS latency of one SL (column 6 average, 7 maximum) in us (DIV 1000,
# FMT %.1f) or ms (1000000, %.2f), per architecture of ARCHS
qos_table() {	# qos_table FILE "ARCHS" SL COLUMN DIV FMT
	awk -F'\t' -v archs="$2" -v sl="$3" -v c="$4" -v div="$5" -v fmt="$6" \
		-v order="$(table_loads "$1")" 'NR > 1 && $3 == sl { v[$2, $1] = $c / div }
		END {
			n = split(order, ls, " ")
			na = split(archs, a, " ")
			for (i = 1; i <= n; i++) {
				printf "%s", ls[i]
				for (k = 1; k <= na; k++)
					printf "\t" fmt, v[ls[i], a[k]]
				printf "\n"
			}
		}' "$1"
}
# the loads of FILE, in order
table_loads() { awk -F'\t' 'NR > 1 { print $2 }' "$1" | sort -n -u | tr '\n' ' '; }
md_rows() { awk -F'\t' '{ printf "|"; for (i = 1; i <= NF; i++) printf " %s |", $i; printf "\n" }'; }
# md_table "ARCHS" FILE: a markdown table, a column per architecture
md_table() {
	echo "| load | ${1// / | } |"
	echo "|$(for a in load $1; do printf ' --- |'; done)"
	md_rows < "$2"
}
# sweep_tables PREFIX "ARCHS" UNIT: the best-effort and QoS tables of the
# PREFIX*.dat files (qsim's "", the VM's vm-)
sweep_tables() {
	local s k

	echo "### Best-effort SLs 4-7, accepted over offered (%)"
	echo
	md_table "$2" "$DIR/${1}be-all.dat"
	for s in 4 5 6 7; do
		printf '\nSL %s:\n\n' $s
		md_table "$2" "$DIR/${1}be-sl$s.dat"
	done
	for k in avg max; do
		printf '\n### QoS SLs 0-3, %s latency (%s)\n' $k "$3"
		for s in 0 1 2 3; do
			printf '\nSL %s:\n\n' $s
			md_table "$2" "$DIR/${1}qos-$k-sl$s.dat"
		done
	done
}

# The VM's sweep (scripts/recn-demo-vm.sh), when it ran: the same tables,
# the lossless switch (trad) against recn, and qsim's fifo and recn on
# the same frames
VMR=$DIR/vm-results.tsv
[ -s "$VMR" ] && [ "$(wc -l < "$VMR")" -gt 1 ] || VMR=
VM_ARCHS="trad recn qsim-fifo qsim-recn"
if [ -n "$VMR" ]; then
	be_table "$VMR" "$VM_ARCHS" all > "$DIR/vm-be-all.dat"
	for s in 4 5 6 7; do be_table "$VMR" "$VM_ARCHS" $s > "$DIR/vm-be-sl$s.dat"; done
	for s in 0 1 2 3; do
		qos_table "$VMR" "$VM_ARCHS" $s 6 1000000 %.2f > "$DIR/vm-qos-avg-sl$s.dat"
		qos_table "$VMR" "$VM_ARCHS" $s 7 1000000 %.2f > "$DIR/vm-qos-max-sl$s.dat"
	done
fi

R=$DIR/results.tsv
be_table "$R" "$QSIM_ARCHS" all > "$DIR/be-all.dat"
for s in 4 5 6 7; do be_table "$R" "$QSIM_ARCHS" $s > "$DIR/be-sl$s.dat"; done
for s in 0 1 2 3; do
	qos_table "$R" "$QSIM_ARCHS" $s 6 1000 %.1f > "$DIR/qos-avg-sl$s.dat"
	qos_table "$R" "$QSIM_ARCHS" $s 7 1000 %.1f > "$DIR/qos-max-sl$s.dat"
done

plots=()
if command -v gnuplot >/dev/null; then
	gp=$DIR/recn.gp
	plot_all() {
		local ext=$1 s
		echo "set grid"
		echo "set key bottom left"
		echo "set output '$DIR/recn-tree-saqs.$ext'"
		echo "set title 'SAQs in use over the fabric: hot traffic offered from 0 to 2 ms, then drained from the hosts'"
		echo "set xlabel 'time (us)'"
		echo "set ylabel 'SAQs in use'"
		echo "plot '$DIR/tree-saqs.dat' using 1:2 with steps title 'recn'"
		echo "set key bottom left"
		echo "set xlabel 'input load'"
		echo "set output '$DIR/recn-be-throughput.$ext'"
		echo "set title 'Best-effort SLs 4-7: accepted over offered traffic (Fig. 2)'"
		echo "set ylabel 'accepted / offered (%)'"
		echo "plot for [c=2:5] '$DIR/be-all.dat' using 1:c with linespoints title word('fifo voq voq8 recn', c - 1)"
		echo "set output '$DIR/recn-be-sl.$ext'"
		echo "set multiplot layout 2,2 title 'Accepted over offered traffic per best-effort SL (Fig. 3)'"
		for s in 4 5 6 7; do
			echo "set title 'SL $s'"
			echo "plot for [c=2:5] '$DIR/be-sl$s.dat' using 1:c with linespoints title word('fifo voq voq8 recn', c - 1)"
		done
		echo "unset multiplot"
		echo "set key top left"
		echo "set ylabel 'latency (us)'"
		for k in avg max; do
			echo "set output '$DIR/recn-qos-latency-$k.$ext'"
			echo "set multiplot layout 2,2 title 'QoS SLs 0-3: $k latency (Fig. $([ $k = avg ] && echo 4 || echo 5))'"
			for s in 0 1 2 3; do
				echo "set title 'SL $s'"
				echo "plot for [c=2:5] '$DIR/qos-$k-sl$s.dat' using 1:c with linespoints title word('fifo voq voq8 recn', c - 1)"
			done
			echo "unset multiplot"
		done
		[ -n "$VMR" ] || return 0
		echo "set key bottom left"
		echo "set ylabel 'accepted / offered (%)'"
		echo "set output '$DIR/recn-vm-be.$ext'"
		echo "set multiplot layout 2,3 title 'In the VM: best-effort accepted over offered, all SLs 4-7 and each (Figs. 2, 3)'"
		echo "set title 'SLs 4-7'"
		echo "plot for [c=2:5] '$DIR/vm-be-all.dat' using 1:c with linespoints title word('trad recn qsim-fifo qsim-recn', c - 1)"
		for s in 4 5 6 7; do
			echo "set title 'SL $s'"
			echo "plot for [c=2:5] '$DIR/vm-be-sl$s.dat' using 1:c with linespoints title word('trad recn qsim-fifo qsim-recn', c - 1)"
		done
		echo "unset multiplot"
		echo "set key top left"
		echo "set ylabel 'latency (ms)'"
		for k in avg max; do
			echo "set output '$DIR/recn-vm-qos-$k.$ext'"
			echo "set multiplot layout 2,2 title 'In the VM: QoS SLs 0-3, $k latency (Fig. $([ $k = avg ] && echo 4 || echo 5))'"
			for s in 0 1 2 3; do
				echo "set title 'SL $s'"
				echo "plot for [c=2:5] '$DIR/vm-qos-$k-sl$s.dat' using 1:c with linespoints title word('trad recn qsim-fifo qsim-recn', c - 1)"
			done
			echo "unset multiplot"
		done
	}
	{
		echo "set terminal pngcairo size 900,560 font ',10' noenhanced"
		plot_all png
		echo "set terminal svg size 900,560 dynamic font 'sans,11' noenhanced"
		plot_all svg
	} > "$gp"
	if gnuplot "$gp" > "$DIR/gnuplot.log" 2>&1; then
		plots=(recn-tree-saqs.png recn-be-throughput.png recn-be-sl.png
		       recn-qos-latency-avg.png recn-qos-latency-max.png)
		[ -z "$VMR" ] || plots+=(recn-vm-be.png recn-vm-qos-avg.png recn-vm-qos-max.png)
	else
		echo "recn-report: gnuplot failed, see ${DIR#"$FQ_ROOT"/}/gnuplot.log" >&2
	fi
else
	echo "recn-report: gnuplot not found (make setup installs it): no plots" >&2
fi

{
	echo "# RECN in qsim"
	echo
	echo "## A congestion tree"
	echo
	echo "Two leaves of three hosts under one spine, 1 GB/s links, 2000-byte frames:"
	echo "hosts 1, 3 and 4 each send at the link's rate to host 5; host 0 sends 500"
	echo "MB/s to host 3 over the spine link that carries host 1's hot frames."
	echo "Throughput (B/s) and average latency (ns) from 0.5 to 2 ms."
	echo
	echo "| arch | flow | rate_Bps | lat_avg_ns |"
	echo "| --- | --- | --- | --- |"
	tail -n +2 "$DIR/tree.tsv" | md_rows
	echo
	echo "## The paper's experiment, scaled"
	echo
	echo "4 leaves of 4 hosts under 4 spines, 1 GB/s links, 16 KiB per VC per side,"
	echo "8 SLs (0-3 on VC0, 4-7 on VC1), self-similar bursts (5 KB QoS, 30 KB best"
	echo "effort), each SL a eighth of the input load.  voq8: a VC per SL at the"
	echo "switches, 4 KiB each (the paper's VOQ Switch)."
	echo
	sweep_tables "" "$QSIM_ARCHS" us
	if [ -n "$VMR" ]; then
		echo
		echo "## The same experiment in the VM"
		echo
		echo "vcsw switches and edf hosts in the deterministic VM (selftests/demo/recn.sh):"
		echo "$(awk -F'\t' '$1 == "tree" { t = $2 } $1 == "link" { l = $2 } $1 == "buffer" { b = $2 }
			$1 == "dur_ns" { d = $2 / 1e9 } $1 == "warmup_ns" { w = $2 / 1e9 }
			END { printf "a %s tree of switches, %s links, %s per VC per side, %g s of traffic measured after %g s", t, l, b, d, w }' \
			"$DIR/vm/recn/setup.tsv" 2>/dev/null);"
		echo "trad is the lossless switch without RECN, recn runs RECN at every port and host;"
		echo "qsim-fifo and qsim-recn are qsim on the same frames with the VM's settings."
		echo
		sweep_tables vm- "$VM_ARCHS" ms
		if [ -s "$DIR/vm/recn/runs.tsv" ]; then
			echo
			echo "### Each run"
			echo
			echo "CPU busy in the VM, frames sent, how late the latest left, host qdisc drops,"
			echo "SAQs allocated and freed and Xoffs sent over all switch ports:"
			echo
			head -n 1 "$DIR/vm/recn/runs.tsv" | md_rows
			head -n 1 "$DIR/vm/recn/runs.tsv" | awk -F'\t' '{ printf "|"; for (i = 1; i <= NF; i++) printf " --- |"; printf "\n" }'
			tail -n +2 "$DIR/vm/recn/runs.tsv" | md_rows
		fi
	fi
	for p in "${plots[@]}"; do
		echo
		echo "![${p%.png}]($p)"
	done
} > "$DIR/report.md"
echo "best-effort SLs 4-7, accepted/offered (%): load fifo voq voq8 recn"
sed 's/^/  /' "$DIR/be-all.dat"
echo "QoS SL 3 average latency (us): load fifo voq voq8 recn"
sed 's/^/  /' "$DIR/qos-avg-sl3.dat"
if [ -n "$VMR" ]; then
	echo "in the VM, best-effort SLs 4-7, accepted/offered (%): load trad recn qsim-fifo qsim-recn"
	sed 's/^/  /' "$DIR/vm-be-all.dat"
	echo "in the VM, QoS SL 3 average latency (ms): load trad recn qsim-fifo qsim-recn"
	sed 's/^/  /' "$DIR/vm-qos-avg-sl3.dat"
fi
echo "# report: ${DIR#"$FQ_ROOT"/}/report.md"
