#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# scripts/recn-demo.sh, small: two loads of 0.4 ms of traffic.  Every
# architecture and SL has its row, the report has its tables, the tree's
# innocent flow is isolated only by recn; bad settings are refused.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[ -x "$ROOT/build/bin/qsim" ] || { echo "SKIP: qsim not built"; exit 4; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FAIL=0
expect() {
	if [ "$2" = "$3" ]; then echo "ok: $1 = $2"; else echo "FAIL: $1: got '$2', want '$3'"; FAIL=1; fi
}
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
RECN_OUT=$T/bad RECN_LOADS="1.5" "$ROOT/scripts/recn-demo.sh" > /dev/null 2>&1
expect "load 1.5 refused" $? 1
RECN_OUT=$T/bad RECN_DUR=10 "$ROOT/scripts/recn-demo.sh" > /dev/null 2>&1
expect "10 ns refused" $? 1
exit $FAIL
