#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 30
#
# selftests/vm/lib.sh on a slow kernel (make check-debug, fq.slow=1): a
# check run through xfail_on_slow that misses is an expected failure
# there and an ordinary failure everywhere else; any other check fails
# the test on both; wait_for waits FQ_SLOW_SCALE times as long.  The VM's
# library is sourced here as a test would source it, with FQ_SLOW set as
# fq_param would have set it.  read_num, the reader of a number, fails
# a test on a read that gives none, never as an expected failure.
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

# read_num: a read that gives no number fails the test, in its own shell,
# also on a slow kernel and under xfail_on_slow, and the checks after it
# still run; a number is read as it is, by a CMD that sees the caller's
# variables.  (The pattern it replaces, $((s + $(cmd))) with cmd printing
# nothing, ended the loop around it and left the test passing.)
num_case() {	# SLOW
	cd "$ROOT/selftests/vm" && bash -c '
		. ./lib.sh
		FQ_SLOW=$1
		out="seed=1 taken=12 refused=7"
		fz() { echo "$out" | sed -n "s/.* $1=\([0-9]*\).*/\1/p"; }
		read_num t fz taken && read_num r fz refused
		check_eq "taken + refused" 19 "$((t + r))"
		log_test "numbers read"
		hrx() { [ "$1" = 2 ] || echo 10; }
		sum=0
		for h in 0 1 2 3; do read_num n hrx $h; sum=$((sum + n)); done
		echo "loop ran to h=$h, sum $sum"
		check_eq "a check after the loop" 1 1
		log_test "an empty read in a sum"
		reads() { read_num n echo 12abc; }
		xfail_on_slow reads
		log_test "a read that is no number, under xfail_on_slow"
		read_num n sh -c "echo 5; exit 3"
		log_test "a number from a command that failed"
		exit $EXIT_STATUS' _ "$1"
}
for slow in 0 1; do
	out=$(num_case $slow); rc=$?
	expect "read_num (slow=$slow): numbers read" '^TEST: numbers read +\[ OK \]' "$out"
	expect "read_num (slow=$slow): an empty read fails" '^TEST: an empty read in a sum +\[FAIL\]' "$out"
	expect "... saying which" "hrx 2: not a number: ''\$" "$out"
	expect "... and the loop and the checks after it run" '^loop ran to h=3, sum 30$' "$out"
	expect "read_num (slow=$slow): no number fails, not XFAIL" '^TEST: a read that is no number, under xfail_on_slow +\[FAIL\]' "$out"
	expect "... saying which" "echo 12abc: not a number: '12abc'\$" "$out"
	expect "read_num (slow=$slow): a failed command fails" '^TEST: a number from a command that failed +\[FAIL\]' "$out"
	expect "... with its status" "not a number: '5' \\(exit status 3\\)\$" "$out"
	[ $rc = 1 ] || { echo "FAIL: read_num (slow=$slow): exit $rc, want 1"; fails=$((fails + 1)); }
done

[ $fails = 0 ] && echo "ok: xfail_on_slow, wait_for, skip and read_num on plain and slow kernels"
[ $fails = 0 ]
