#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 60
#
# make check with a filter that leaves no VM test neither builds modules
# nor waits for the VM lock: scripts/check.sh '^host/x' used to sit in
# flock for as long as another tree's VM run held the lock (an hour for
# make check-debug).  Here the lock of a cache of our own is held while
# check.sh runs with such a filter; it must finish, not time out.  With a
# filter that does name a VM test it must still wait for the lock (the
# lock is what keeps two VM runs apart).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/cache" "$work/build"
exec 9>>"$work/cache/vm.lock"
flock 9

# run_check FILTER SECONDS [background]: check.sh's exit code, 124 when it
# ran out; with "background", at once, the timeout's process in CHECKER
# (not make check-debug's kernel or make check LIVE=1's host, when this
# test runs under those)
run_check() {
	env -u FQ_VM_ABI -u FQ_LIVE -u FQ_VM_SLOW -u FQ_VM_TIMEOUT_SCALE \
		FQ_CACHE="$work/cache" FQ_BUILD="$work/build" FQ_CHECK_KERNELS="6.1 6.12" \
		timeout "$2" "$ROOT/scripts/check.sh" "$1" > "$work/out" 2>&1 9>&- &
	CHECKER=$!
	[ "${3:-}" = background ] || wait "$CHECKER"
}

fails=0
run_check '^host/no-such-test$' 30
rc=$?
if [ $rc = 124 ]; then
	echo "FAIL: a filter without VM tests waited for the VM lock"
	fails=$((fails + 1))
elif ! grep -q 'no test matches' "$work/out"; then
	echo "FAIL: a filter that matches nothing: exit $rc, no 'no test matches'"
	sed 's/^/  /' "$work/out"
	fails=$((fails + 1))
else
	echo "ok: a filter without VM tests finished (exit $rc) with the VM lock held"
fi

# it says it waits (vm_lanes_start, before any build): looked for as long
# as a minute, however slowly this machine gets there, then stopped
run_check '^vm/edf_ttd@6.12$' 60 background
checker=$CHECKER
for _ in $(seq 600); do
	grep -q 'make check: waiting for the VM lock' "$work/out" 2>/dev/null && break
	kill -0 "$checker" 2>/dev/null || break
	sleep 0.1
done
kill "$checker" 2>/dev/null	# timeout passes it on to check.sh
wait "$checker"
rc=$?
if ! grep -q 'make check: waiting for the VM lock' "$work/out"; then
	echo "FAIL: a filter naming a VM test did not wait for the VM lock (exit $rc)"
	sed 's/^/  /' "$work/out" | head -n 20
	fails=$((fails + 1))
elif [ -e "$work/build/check" ] && grep -q '^ok\|^not ok' "$work/out"; then
	echo "FAIL: a filter naming a VM test ran a test while another run held the VM lock"
	fails=$((fails + 1))
else
	echo "ok: a filter naming a VM test waits for the VM lock, and says so"
fi
[ $fails = 0 ]
