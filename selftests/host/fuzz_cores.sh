#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# Every fuzz target of the portable cores (selftests/fuzz/, built by make
# into build/fuzz/) takes a fixed number of libFuzzer's inputs without a
# crash: no sanitizer report, no FUZZ_CHECK() that fails.  What a run
# does is set by a count, not a time, so a fast machine does not do less
# than a slow one; the seed is fixed too, though libFuzzer's choices also
# depend on where the program is loaded, so two runs need not try the
# same inputs.  `make fuzz` runs the targets at length.
#
# Usage: selftests/host/fuzz_cores.sh [RUNS]   inputs per target (200000)
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${FQ_BUILD:-$ROOT/build}/fuzz
RUNS=${1:-200000}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

n=0 failed=0
for bin in "$OUT"/fuzz_*; do
	[ -x "$bin" ] || continue
	name=$(basename "$bin")
	n=$((n + 1))
	# a fixed seed; an empty corpus directory, thrown away with $TMP:
	# each run starts from nothing, whatever make fuzz has found
	# (-timeout: an input that hangs is a crash too, its input kept)
	mkdir -p "$TMP/$name"
	if "$bin" -seed=1 -runs="$RUNS" -timeout=60 -artifact_prefix="$TMP/$name-" \
		"$TMP/$name" > "$TMP/$name.log" 2>&1; then
		echo "ok: $name: $(sed -n 's/^#\([0-9]*\).*DONE.*cov: \([0-9]*\).*/\1 inputs, \2 edges covered/p' \
			"$TMP/$name.log" | tail -n1)"
	else
		echo "FAIL: $name crashed on an input:"
		grep -E 'ERROR|runtime error|does not hold|SUMMARY' "$TMP/$name.log" | head -n 5
		# the input, kept as build/fuzz/check-NAME-* for
		# `build/fuzz/NAME FILE` (make fuzz's own are NAME-*), and its
		# first KiB here for a CI log, which is all a CI run leaves
		for c in "$TMP/$name-"{crash,leak,timeout,oom}-*; do
			[ -f "$c" ] || continue
			cp "$c" "$OUT/check-$(basename "$c")"
			echo "$OUT/check-$(basename "$c") ($(stat -c %s "$c") bytes):"
			od -An -tx1 "$c" | head -n 64
		done
		failed=$((failed + 1))
	fi
done
if [ $n = 0 ]; then
	# make builds them only where clang is (make setup installs it)
	command -v "${FUZZ_CC:-clang}" >/dev/null ||
		{ echo "SKIP: no clang to build the fuzz targets (make setup)"; exit 4; }
	echo "FAIL: no fuzz target in $OUT, though clang is here (make fuzzers)"
	exit 1
fi
echo "$n targets, $failed failed"
[ $failed = 0 ]
