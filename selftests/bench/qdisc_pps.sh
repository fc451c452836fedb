#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 1500
# vm: deterministic
#
# Instructions per packet through each qdisc of cases.sh, uncongested and
# backlogged (see lib.sh for both paths), at 1, 1,000 and 100,000 flows,
# classful qdiscs instead at several class counts (1000 flows).  noqueue (no qdisc at
# all) is the floor: a qdisc's own cost is its figure less noqueue's.  The
# mq cases run on a 4-queue device, uncongested, their floor mq-noqueue.
#
# Output, one line per measurement (scripts/bench.sh makes the tables):
#   bench qdisc case=fq path=uncongested flows=1000 classes=1 pps=N
#         insn_per_pkt=N slab_bytes_per_flow=N
#   bench qdisc case=fq path=backlogged flows=1000 classes=1 pps=N
#         insn_per_pkt=N held=N drain_insn_per_pkt=N
# and "bench skip case=NAME reason" for a case this VM cannot set up.
#
# Environment: BENCH_CASES_RE (regex of case names), BENCH_FLOWS,
# BENCH_CLASSES, BENCH_PATHS, BENCH_COUNT, BENCH_WARMUP.
. ../vm/lib.sh
. ./cases.sh
. ./lib.sh

: "${BENCH_FLOWS:=1 1000 100000}"
: "${BENCH_CLASSES:=4 5 16 64}"
: "${BENCH_PATHS:=uncongested backlogged}"
: "${BENCH_CASES_RE:=.}"
CLASS_FLOWS=1000	# flows spread over the classes

# The measurements run in a namespace of their own: this script again,
# inside it (each `ip netns exec` would cost guest time).
if [[ ${1:-} != --in-netns ]]; then
	bench_in_netns "$0" tc cpu-steal txtime-stamp
	exit
fi
TMP_DIR=$2	# the outer run's; it removes it

bench_netns_setup

log_info "$BENCH_COUNT packets of 60 bytes per measurement, after a warm-up" \
	"of $BENCH_WARMUP or one per flow"
for cs in "${BENCH_CASES[@]}"; do
	[[ $cs =~ $BENCH_CASES_RE ]] || continue
	family=${BENCH_FAMILY[$cs]}
	DEV=$(bench_case_dev "$cs")
	# a case that cannot be set up here (module missing) is skipped
	if ! bench_setup "$cs" root 1 2>"$TMP_DIR/setup.err"; then
		echo "bench skip case=$cs $(head -n1 "$TMP_DIR/setup.err")"
		continue
	fi
	class_counts=$BENCH_CLASSES
	[[ $family != mq-classes ]] || class_counts=$MQ_CLASSES
	for path in $BENCH_PATHS; do
		bench_case_has_path "$cs" "$path" || continue
		# classful qdiscs by classes (their children are FIFOs, flows
		# do not matter to them), the others by flows
		if [[ $family != classes && $family != mq-classes ]]; then
			for flows in $BENCH_FLOWS; do
				# one flow has no order to shuffle
				[[ $family == shuffled && $flows == 1 ]] && continue
				"measure_$path" "$cs" "$flows" 1
			done
			continue
		fi
		for classes in $class_counts; do
			# setup status 2: the qdisc cannot have that many classes
			"setup_$cs" "$DEV" root 1: "$classes" > /dev/null 2>&1
			(($? == 2)) && continue
			"measure_$path" "$cs" "$CLASS_FLOWS" "$classes"
		done
	done
	[[ -z ${BENCH_PEER[$cs]} ]] || echo "bench peer case=$cs peer=${BENCH_PEER[$cs]}"
done
DEV=dummy0
bench_netns_cleanup
exit 0
