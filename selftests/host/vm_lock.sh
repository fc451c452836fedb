#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# The machine's VM lock (fq_vm_lock, scripts/lib.sh): taken at once when
# free, and held by the caller's shell for what it boots next; waited for,
# and the wait said, when another run holds it.  make bench once took it
# per VM, and another tree's make check-debug took it between the bench's
# deterministic and fast VMs without either run saying so.  Here the
# other run is a process of this test that holds the lock of a cache of
# our own until the test lets it go, so nothing depends on how fast this
# machine is.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

work=$(mktemp -d)
holder=
trap '[ -n "$holder" ] && kill "$holder" 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/cache"
lock=$work/cache/vm.lock
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# in_lib NAME SCRIPT: SCRIPT in a shell with lib.sh, stderr to $work/NAME.err
in_lib() {
	env -u FQ_VM_LOCK_HELD FQ_CACHE="$work/cache" bash -c \
		". '$ROOT/scripts/lib.sh'; $2" 9>&- 2> "$work/$1.err"
}

# wait_for FILE: up to a minute
wait_for() {
	local i
	for i in $(seq 600); do
		[ -e "$1" ] && return 0
		sleep 0.1
	done
	return 1
}

# hold NAME: another run takes the lock and holds it until release NAME
hold() {
	( exec 9>>"$lock"; flock 9; touch "$work/$1.held"; wait_for "$work/$1.release" ) &
	holder=$!
	wait_for "$work/$1.held" || fail "the other run never took the lock"
}
release() {
	touch "$work/$1.release"
	wait "$holder"
	holder=
}

# 1. free: taken at once, without a word, and held while the shell runs
in_lib free "fq_vm_lock t1; touch '$work/free.taken'; flock -n '$lock' true && touch '$work/free.leaked'; true"
if [ ! -e "$work/free.taken" ]; then
	fail "a free lock was not taken"
elif [ -s "$work/free.err" ]; then
	fail "a free lock was taken with a message: $(cat "$work/free.err")"
else
	echo "ok: a free lock is taken at once, silently"
fi
# another open of the file is another holder: flock -n must fail while
# the first holds it (the check ran inside that shell, above)
if [ -e "$work/free.leaked" ]; then
	fail "the lock was not held after fq_vm_lock returned"
else
	echo "ok: the lock is held after fq_vm_lock returns"
fi
if ! flock -n "$lock" true; then
	fail "the lock stayed held after its shell ended"
else
	echo "ok: the lock goes with the shell that took it"
fi

# 2. held by another run: waited for, the wait said, taken once released
hold busy
in_lib busy "fq_vm_lock t2; touch '$work/busy.taken'" &
waiter=$!
for _ in $(seq 600); do
	grep -q 'waiting for the VM lock' "$work/busy.err" 2>/dev/null && break
	sleep 0.1
done
if ! grep -q 't2: waiting for the VM lock' "$work/busy.err"; then
	fail "no word of the wait: $(cat "$work/busy.err")"
else
	echo "ok: the wait is said while it lasts"
fi
sleep 1		# it must still be waiting, however long we take
if [ -e "$work/busy.taken" ]; then
	fail "taken while another run held it"
else
	echo "ok: not taken while another run holds it"
fi
release busy
wait "$waiter"
if [ ! -e "$work/busy.taken" ]; then
	fail "not taken once released"
elif ! grep -Eq 't2: took the VM lock after waiting [1-9][0-9]*s' "$work/busy.err"; then
	fail "the wait's length not said (it was a second at least): $(cat "$work/busy.err")"
else
	echo "ok: taken once released, after a wait it gives"
fi

# 3. make bench holds it across both its VMs: run_kind takes it (once,
# bench_vm_lock) just before it boots, and it goes only after the last
# run_kind, so the fast VM's boot finds it still held
bench=$ROOT/scripts/bench.sh
if ! awk '/^run_kind\(\) \{/ { in_rk = 1 } in_rk && /^}/ { in_rk = 0 }
	  in_rk && /^\tbench_vm_lock$/ { l = NR } in_rk && /fq_vm_boot / && l { b = NR }
	  /^run_kind deterministic$/ && b { d = NR } /^run_kind fast$/ && d { f = NR }
	  /^\texec 9>&-$/ && f { r = NR } END { exit !(l && b && d && f && r) }' "$bench"; then
	fail "scripts/bench.sh does not boot both its VMs under one hold of the lock"
else
	echo "ok: make bench boots both its VMs under one hold of the lock"
fi

# 4. a make bench that boots no VM (T=core, or a filter that names no
# benchmark) does not wait for the lock, as make check does not
hold bench
mkdir -p "$work/build"
env -u FQ_VM_LOCK_HELD FQ_CACHE="$work/cache" FQ_BUILD="$work/build" \
	timeout 60 "$bench" '^bench/no-such-benchmark$' > "$work/bench.out" 2>&1 9>&-
rc=$?
release bench
if [ $rc = 124 ]; then
	fail "make bench without a VM waited for the VM lock"
elif grep -q 'waiting for the VM lock' "$work/bench.out"; then
	fail "make bench without a VM asked for the VM lock"
else
	echo "ok: make bench without a VM does not wait for the lock (exit $rc)"
fi

[ $fails = 0 ]
