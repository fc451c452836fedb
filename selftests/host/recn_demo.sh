#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# scripts/recn-demo.sh, small: two loads of 0.4 ms of traffic.  Every
# architecture and SL has its row, the report has its tables, the tree's
# innocent flow is isolated only by recn; the report's tables of the VM's
# sweep (from rows made up here: the VM's own run is make demo's); bad
# settings are refused.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[ -x "$ROOT/build/bin/qsim" ] || { echo "SKIP: qsim not built"; exit 4; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FAIL=0
expect() {
	if [ "$2" = "$3" ]; then echo "ok: $1 = $2"; else echo "FAIL: $1: got '$2', want '$3'"; FAIL=1; fi
}
# the generator past 2^31 ns (the VM's traces are seconds long): mawk's
# printf %d stopped there, and every later frame came at 2.147 s
awk -v seed=1 -v hosts=4 -v load=0.5 -v bps=250000 -v dur=8000000000 \
	-f "$ROOT/scripts/recn-traffic.awk" > "$T/long.trace"
expect "a long trace's times: past 2^32 ns, no two thirds at one time" \
	"$(sort -n "$T/long.trace" | awk '{ n++; c[$1]++; if ($1 > m) m = $1 }
		END { top = 0; for (t in c) if (c[t] > top) top = c[t]; print (m > 4294967296 && m < 8000000000 && top < n / 3) }')" 1
RECN_OUT=$T/out RECN_LOADS="0.5 1.0" RECN_DUR=400000 "$ROOT/scripts/recn-demo.sh" > "$T/log" 2>&1
expect "recn-demo exit status" $? 0
tail -n 12 "$T/log"
expect "sweep rows (2 loads, 4 archs, 8 SLs)" "$(tail -n +2 "$T/out/results.tsv" | wc -l)" 64
expect "rows with traffic offered and accepted" \
	"$(awk -F'\t' 'NR > 1 && $4 > 0 && $5 > 0' "$T/out/results.tsv" | wc -l)" 64
expect "tree rows (3 archs, 4 flows)" "$(tail -n +2 "$T/out/tree.tsv" | wc -l)" 12
expect "the innocent flow, fifo voq recn" \
	"$(awk -F'\t' '$2 == "0->3" { printf "%s ", $3 }' "$T/out/tree.tsv")" \
	"333333333 333333333 500000000 "
expect "SAQs sampled over time, some in use" \
	"$(awk '$2 > 0 { n++ } END { print (n > 10) }' "$T/out/tree-saqs.dat")" 1
for t in "Best-effort SLs 4-7" "QoS SLs 0-3, avg latency" "QoS SLs 0-3, max latency" "A congestion tree"; do
	expect "report.md has \"$t\"" "$(grep -c "$t" "$T/out/report.md")" 1
done
if command -v gnuplot > /dev/null; then
	expect "plots" "$(ls "$T/out"/recn-*.png | wc -l)" 5
fi
# the VM's sweep in the report: rows made up here, trad accepting half of
# what was offered, recn all of it, qsim's fifo a quarter, its recn three;
# latency 2, 1, 3 and 4 ms (SL s: + s ms)
{
	printf 'arch\tload\tsl\toffered_Bps\taccepted_Bps\tlat_avg_ns\tlat_max_ns\n'
	for a in trad recn qsim-fifo qsim-recn; do
		case $a in
		trad) acc=500 lat=2000000 ;;
		recn) acc=1000 lat=1000000 ;;
		qsim-fifo) acc=250 lat=3000000 ;;
		qsim-recn) acc=750 lat=4000000 ;;
		esac
		for l in 0.5 1.0; do
			for s in 0 1 2 3 4 5 6 7; do
				printf '%s\t%s\t%d\t1000\t%d\t%d\t%d\n' $a $l $s $acc $((lat + s * 1000000)) \
					$((4 * lat))
			done
		done
	done
} > "$T/out/vm-results.tsv"
mkdir -p "$T/out/vm/recn"
printf 'tree\t4,2\nlink\t2mbit\nbuffer\t16k\ndur_ns\t8000000000\nwarmup_ns\t2000000000\n' \
	> "$T/out/vm/recn/setup.tsv"
printf 'arch\tload\tcpu_busy_pct\nrecn\t0.5\t42\n' > "$T/out/vm/recn/runs.tsv"
"$ROOT/scripts/recn-report.sh" "$T/out" > "$T/log2" 2>&1
expect "recn-report with the VM's rows" $? 0
expect "VM best effort, accepted (%): load trad recn qsim-fifo qsim-recn" \
	"$(tr '\t\n' ' ;' < "$T/out/vm-be-all.dat")" "0.5 50.0 100.0 25.0 75.0;1.0 50.0 100.0 25.0 75.0;"
expect "VM SL 3 average latency (ms): load trad recn qsim-fifo qsim-recn" \
	"$(tr '\t\n' ' ;' < "$T/out/vm-qos-avg-sl3.dat")" "0.5 5.00 4.00 6.00 7.00;1.0 5.00 4.00 6.00 7.00;"
expect "VM SL 0 maximum latency (ms)" "$(head -n 1 "$T/out/vm-qos-max-sl0.dat" | tr '\t' ' ')" \
	"0.5 8.00 4.00 12.00 16.00"
for t in "The same experiment in the VM" "a 4,2 tree of switches, 2mbit links, 16k per VC per side, 8 s of traffic measured after 2 s" \
	"| recn | 0.5 | 42 |"; do
	expect "report.md has \"$t\"" "$(grep -cF "$t" "$T/out/report.md")" 1
done
if command -v gnuplot > /dev/null; then
	expect "plots with the VM's" "$(ls "$T/out"/recn-*.png | wc -l)" 8
fi
for bad in "RECN_VM_LOADS=1.5" "RECN_VM_DUR=10" "RECN_VM_LINK=fast"; do
	env "$bad" "$ROOT/scripts/recn-demo-vm.sh" "$T/badvm" 1 > /dev/null 2>&1
	expect "$bad refused before any VM" "$?:$(ls "$T/badvm" 2>/dev/null | wc -l)" "1:0"
done
# a demo VM's log that fails the run, and one that does not
mkdir -p "$T/klog"
printf 'fabric-qos: [1/1] demo/recn\n' > "$T/klog/console.log"
expect "a clean console passes" "$(bash -c '. "$1/scripts/lib.sh"; fq_demo_kernel_log_bad "$2"; echo $?' - "$ROOT" "$T/klog")" 1
printf '[ 12.3] WARNING: CPU: 0 PID: 1 at net/core/dev.c:1 x\n' > "$T/klog/kernel.log"
expect "a WARNING in kernel.log fails" \
	"$(bash -c '. "$1/scripts/lib.sh"; fq_demo_kernel_log_bad "$2" | grep -c "not ok kernel-log\|WARNING"' - "$ROOT" "$T/klog")" 2
RECN_OUT=$T/bad RECN_LOADS="1.5" "$ROOT/scripts/recn-demo.sh" > /dev/null 2>&1
expect "load 1.5 refused" $? 1
RECN_OUT=$T/bad RECN_DUR=10 "$ROOT/scripts/recn-demo.sh" > /dev/null 2>&1
expect "10 ns refused" $? 1
exit $FAIL
