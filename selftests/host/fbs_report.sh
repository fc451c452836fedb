#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 60
#
# make fbs-demo's report (scripts/fbs-report.sh) from measurement files
# of the shape selftests/demo/fbs.sh writes: the threshold table, the
# first window with frames out of their slot per feedback setting, the
# latency table and ratio, a missing file refused, and with gnuplot the
# three plots.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
fail=0
expect() {
	if [ "$2" != "$3" ]; then
		echo "FAIL: $1: got '$2', want '$3'"
		fail=1
	fi
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/fbs"
t=$(printf '\t')
cat > "$work/fbs/trials.tsv" <<EOF
nodes${t}feedback${t}empty${t}periods${t}judged${t}out_of_slot${t}stalls
4${t}on${t}0${t}6${t}120${t}0${t}40
4${t}on${t}248${t}6${t}96${t}0${t}18
4${t}on${t}372${t}6${t}96${t}7${t}18
8${t}on${t}0${t}6${t}336${t}12${t}80
EOF
cat > "$work/fbs/threshold.tsv" <<EOF
nodes${t}drift_ppm${t}eq3_empty${t}max_empty${t}eq3_overhead_pct${t}overhead_pct
4${t}1000${t}496${t}248${t}0.80${t}1.59
8${t}1000${t}492${t}-1${t}1.60${t}-
EOF
cat > "$work/fbs/corrupt.tsv" <<EOF
feedback${t}t_ms${t}judged${t}out_of_slot
on${t}100${t}60${t}0
on${t}200${t}60${t}0
off${t}100${t}60${t}0
off${t}200${t}60${t}25
off${t}300${t}60${t}60
EOF
cat > "$work/fbs/setup.tsv" <<EOF
slot_us${t}1200
drift_ppm${t}1000
periods${t}6
nodes${t}4 8
series_nodes${t}4
lat_nodes${t}8
lat_seconds${t}3
boot${t}synchronised after 16 rounds, the last took 120.0 us
EOF
cat > "$work/fbs/latency.tsv" <<EOF
kind${t}nodes${t}frames${t}mean_us${t}p50_q${t}p99_q${t}max_q${t}max_us
reserved${t}8${t}2000${t}1180${t}3${t}4${t}4${t}1390
best-effort${t}8${t}2100${t}3540${t}11${t}25${t}27${t}8340
EOF
{
	printf 'kind\tquarter\tframes\n'
	for b in $(seq 0 63); do
		printf 'reserved\t%d\t%d\n' "$b" "$(case $b in 3) echo 1500 ;; 4) echo 500 ;; *) echo 0 ;; esac)"
	done
	for b in $(seq 0 63); do
		printf 'best-effort\t%d\t%d\n' "$b" "$([ "$b" -ge 4 ] && [ "$b" -le 27 ] && echo 100 || echo 0)"
	done
} > "$work/fbs/latency_hist.tsv"
echo "6.1.0-test (test)" > "$work/kernel.txt"

out=$("$ROOT/scripts/fbs-report.sh" "$work" 2>/dev/null)
expect "exit" $? 0
expect "4 nodes" "$(grep '^| 4 |' <<< "$out")" "| 4 | 496 | 248 | 0.80 % | 1.59 % |"
expect "8 nodes: none good" "$(grep '^| 8 |' <<< "$out")" "| 8 | 492 | none | 1.60 % | - |"
expect "feedback" "$(grep '^feedback on' <<< "$out")" \
	"feedback on: 0 of 120 frames out of their slot in 0.2 s; none"
expect "no feedback" "$(grep '^feedback off' <<< "$out")" \
	"feedback off: 85 of 180 frames out of their slot in 0.3 s; the first in the window ending at 200 ms"
expect "latency, reserved" "$(grep '^| reserved |' <<< "$out")" \
	"| reserved | 2000 | 1180 us | 1200 us | 1500 us | 1390 us |"
expect "latency, best effort" "$(grep '^| best-effort |' <<< "$out")" \
	"| best-effort | 2100 | 3540 us | 3600 us | 7800 us | 8340 us |"
expect "latency ratio" "$(grep '^best effort against' <<< "$out")" \
	"best effort against reserved: mean 3.0x, largest 6.0x"
grep -q "^| 4 | 372 | 96 | 7 | 18 |$" "$work/report.md"
expect "report.md: every trial" $? 0
grep -q "^4 nodes, no empty slots, after V0's clock goes 1000 ppm slow:$" "$work/report.md"
expect "report.md: the series' nodes" $? 0
if command -v gnuplot > /dev/null; then
	expect "the reserved histogram" "$(cat "$work/fbs-latency-reserved.dat")" "1.05 75
1.35 25"
	for p in fbs-empty.png fbs-corrupt.png fbs-latency.png; do
		[ -s "$work/$p" ] && grep -q "($p)" "$work/report.md"
		expect "plot $p" $? 0
		grep -q "<svg" "$work/${p%.png}.svg"
		expect "plot ${p%.png}.svg" $? 0
	done
	expect "the 4-node series" "$(cat "$work/fbs-empty-4.dat")" "0 0
248 0
372 7.29167"
fi
rm "$work/fbs/corrupt.tsv"
"$ROOT/scripts/fbs-report.sh" "$work" > /dev/null 2>&1
expect "a missing file refused" $? 1

[ $fail = 0 ] && echo "ok: fbs-report"
exit $fail
