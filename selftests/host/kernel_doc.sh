#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# The kernel-doc comments of kernel/ as the VM kernels' own kernel-doc
# reads them, verbose: every parameter and return value described.  A
# W=1 build runs kernel-doc over each source it compiles, and a verbose
# one (make V=1) passes -v, which asks for a "Return:" section; without
# one the build-warnings check failed for any run with V=1.  Headers
# are read too, which no build checks.  Each kernel make setup put in
# the cache (6.1 and 6.12) checks with its own script.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/scripts/lib.sh"

scripts=()
for k in 6.1 6.12; do
	abi=$(cat "$FQ_CACHE/vm-abi-$k" 2>/dev/null) || continue
	for s in "$(fq_kernel_dir "$abi")"/headers/usr/src/linux-headers-*-common/scripts/kernel-doc; do
		[ -x "$s" ] && scripts+=("$s")
	done
done
[ ${#scripts[@]} -gt 0 ] || { echo "SKIP: no VM kernel's headers (make setup)"; exit 4; }

fail=0
for s in "${scripts[@]}"; do
	out=$(cd "$ROOT" && "$s" -v -none kernel/*.c kernel/*.h 2>&1 | grep -E 'warning|error')
	if [ -n "$out" ]; then
		echo "FAIL: $s:"
		echo "$out"
		fail=1
	else
		echo "ok: $s: no warning"
	fi
done
exit $fail
