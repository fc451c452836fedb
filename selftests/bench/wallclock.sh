#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# vm: fast
#
# Wall-clock cross-check of qdisc_pps.sh: the uncongested path at 1,000
# flows in the ordinary multi-threaded VM, where guest time is real time,
# repeated so scripts/bench.sh can report medians and their spread.  These
# figures move with the host's load; the instruction counts of the
# deterministic VM are the ones to compare.
#
# Output: "bench wall case=NAME path=uncongested flows=1000 classes=1
# pps=N insn_per_pkt=N slab_bytes_per_flow=N", REPS lines per case.
. ../vm/lib.sh
. ./cases.sh
. ./lib.sh

REPS=5
FLOWS=1000
: "${BENCH_WALL_RE:=^(noqueue|pfifo|fq|drr|edf|dtable|aoq)$}"

if [[ ${1:-} != --in-netns ]]; then
	bench_in_netns "$0" tc
	exit
fi
TMP_DIR=$2	# the outer run's; it removes it

bench_netns_setup
log_info "$REPS repetitions of $BENCH_COUNT packets at $FLOWS flows;" \
	"the case order rotates so a slow spell of the host hits them alike"
cases=()
for cs in "${BENCH_CASES[@]}"; do
	[[ $cs =~ $BENCH_WALL_RE ]] || continue
	bench_setup "$cs" root 1 2>/dev/null && cases+=("$cs")
done
for ((rep = 0; rep < REPS; rep++)); do
	for ((i = 0; i < ${#cases[@]}; i++)); do
		cs=${cases[(i + rep) % ${#cases[@]}]}
		BENCH_LINE=wall measure_uncongested "$cs" "$FLOWS" 1
	done
done
bench_netns_cleanup
exit 0
