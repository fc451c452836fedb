#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 30
#
# selftests/vm/lib.sh on a slow kernel (make check-debug, fq.slow=1): a
# check run through xfail_on_slow that misses is an expected failure
# there and an ordinary failure everywhere else; any other check fails
# the test on both; wait_for waits FQ_SLOW_SCALE times as long.  The VM's
# library is sourced here as a test would source it, with FQ_SLOW set as
# fq_param would have set it.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
fails=0

# run_case SLOW: a test script's checks, on a kernel slow or not
run_case() {
	cd "$ROOT/selftests/vm" && bash -c '
		. ./lib.sh
		FQ_SLOW=$1
		xfail_on_slow check_eq "latency" 5 6
		log_test "timing only"
		check_eq "count" 1 1
		xfail_on_slow check_err 1 "rate low"
		xfail_on_slow check_fail 0 "queue built up"
		log_test "timing only, three kinds"
		xfail_on_slow check_eq "latency" 5 5
		log_test "timing met"
		check_eq "count" 1 2
		log_test "accounting"
		xfail_on_slow check_eq "rate" 10 9
		check_eq "books" 3 4
		log_test "mixed"
		t0=$SECONDS
		wait_for 1 false
		echo "waited $((SECONDS - t0))"
		exit $EXIT_STATUS' _ "$1"
}

expect() {	# WHAT PATTERN TEXT
	if ! grep -qE -- "$2" <<< "$3"; then
		echo "FAIL: $1: no line matching '$2' in:"
		echo "$3" | sed 's/^/    /'
		fails=$((fails + 1))
	fi
}

# both at once: the waits are most of the time
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
run_case 0 > "$T/plain" & plain=$!
run_case 1 > "$T/slow"; rc_slow=$?
wait $plain; rc=$?
out=$(cat "$T/plain")
expect "plain kernel: a timing miss fails" '^TEST: timing only +\[FAIL\]' "$out"
expect "plain kernel: check_err through xfail_on_slow fails" '^TEST: timing only, three kinds +\[FAIL\]' "$out"
expect "plain kernel: a met timing check passes" '^TEST: timing met +\[ OK \]' "$out"
expect "plain kernel: accounting fails" '^TEST: accounting +\[FAIL\]' "$out"
plain_waited=$(sed -n 's/^waited //p' <<< "$out")
[ $rc = 1 ] || { echo "FAIL: plain kernel: exit $rc, want 1"; fails=$((fails + 1)); }

out=$(cat "$T/slow"); rc=$rc_slow
expect "slow kernel: a timing miss is XFAIL" '^TEST: timing only +\[XFAIL\]' "$out"
expect "slow kernel: its reason is printed" 'latency: expected .5., got .6. \(expected on a slow kernel\)' "$out"
expect "slow kernel: all three kinds are XFAIL" '^TEST: timing only, three kinds +\[XFAIL\]' "$out"
expect "slow kernel: check_fail's reason" 'queue built up \(expected on a slow kernel\)' "$out"
expect "slow kernel: a met timing check passes" '^TEST: timing met +\[ OK \]' "$out"
expect "slow kernel: accounting still fails" '^TEST: accounting +\[FAIL\]' "$out"
expect "slow kernel: a timing miss beside a failure: FAIL" '^TEST: mixed +\[FAIL\]' "$out"
expect "... with the failure's reason" 'books: expected .3., got .4.$' "$out"
expect "... and the timing miss still printed" 'rate: expected .10., got .9. \(expected on a slow kernel\)' "$out"
slow_waited=$(sed -n 's/^waited //p' <<< "$out")
[ $rc = 1 ] || { echo "FAIL: slow kernel: exit $rc, want 1 (accounting)"; fails=$((fails + 1)); }

# how long wait_for 1 waited: at least its timeout, and on a slow kernel
# at least four times that and longer than the plain one in the same run
# (no upper bound: a loaded machine only makes both longer)
if ! [ "${plain_waited:-0}" -ge 1 ] || ! [ "${slow_waited:-0}" -ge 4 ] ||
	! [ "$slow_waited" -gt "$plain_waited" ]; then
	echo "FAIL: wait_for 1 waited ${plain_waited:-?} s plain, ${slow_waited:-?} s slow (want >= 1, >= 4 and longer)"
	fails=$((fails + 1))
fi

# skip: a test that skips the rest after a failed check fails, whether
# the failure was logged or not; one that skips with nothing failed skips
skip_case() {	# CASE
	cd "$ROOT/selftests/vm" && bash -c '
		. ./lib.sh
		FQ_SLOW=0
		case $1 in
		logged) check_eq "count" 1 2; log_test "accounting" ;;
		pending) check_eq "count" 1 2 ;;
		clean) check_eq "count" 1 1; log_test "accounting" ;;
		esac
		skip "no such feature"' _ "$1"
}
for c in logged:1 pending:1 clean:4; do
	out=$(skip_case "${c%:*}"); rc=$?
	[ $rc = "${c#*:}" ] || {
		echo "FAIL: skip after a ${c%:*} check: exit $rc, want ${c#*:}:"
		echo "$out" | sed 's/^/    /'
		fails=$((fails + 1))
	}
done
expect "a skip after a pending failure names it" 'count: expected .1., got .2.' "$(skip_case pending)"

[ $fails = 0 ] && echo "ok: xfail_on_slow, wait_for and skip on plain and slow kernels"
[ $fails = 0 ]
