#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make fuzz: each fuzz target of the portable cores (build/fuzz/fuzz_*,
# made from selftests/fuzz/) for SECONDS, one after the other, each
# growing its corpus in build/fuzz/corpus/NAME across runs.  An input
# that crashes a target (a sanitizer's report, a FUZZ_CHECK() that does
# not hold) is saved as build/fuzz/NAME-crash-*, and the run fails.
# Documentation/testing.rst, "Fuzzing the cores".
#
# Usage: scripts/fuzz.sh [NAME_REGEX] [SECONDS]
set -u
. "$(dirname "$0")/lib.sh"

FILTER=${1:-}
SECONDS_EACH=${2:-600}
OUT=${FQ_BUILD:-$FQ_ROOT/build}/fuzz
case $SECONDS_EACH in
''|*[!0-9]*) fq_die "FUZZ_TIME must be a number of seconds, not '$SECONDS_EACH'" ;;
esac

failed=0 ran=0
for bin in "$OUT"/fuzz_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	[ -z "$FILTER" ] || [[ $name =~ $FILTER ]] || continue
	mkdir -p "$OUT/corpus/$name"
	fq_say "$name: $SECONDS_EACH s, corpus $OUT/corpus/$name"
	if "$bin" -max_total_time="$SECONDS_EACH" -print_final_stats=1 \
		-artifact_prefix="$OUT/$name-" "$OUT/corpus/$name" \
		> "$OUT/$name.log" 2>&1; then
		grep -E '^stat::number_of_executed_units|^stat::new_units_added' "$OUT/$name.log" |
			sed "s/^/  /"
	else
		fq_say "$name FAILED: see $OUT/$name.log and the $name-crash-* input there"
		grep -E 'ERROR|runtime error|does not hold' "$OUT/$name.log" | head -n 3 | sed 's/^/  /'
		failed=$((failed + 1))
	fi
	ran=$((ran + 1))
done
[ $ran -gt 0 ] || fq_die "no fuzz target matches '$FILTER' in $OUT (make fuzzers)"
[ $failed = 0 ]
