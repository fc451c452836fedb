#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 30
#
# A VM test's "# kernels:" line (fq_test_on_kernel, scripts/lib.sh): none
# runs on every kernel of a check, "first" and "last" on that one only,
# on the one kernel of a single-kernel check as well.  And every test in
# the tree says first, last or nothing: another word would run the test
# on every kernel unnoticed.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/scripts/lib.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0

mk() {	# NAME [VALUE]: a test script with that kernels line, or none
	{ echo '#!/bin/bash'; echo '# timeout: 60'
	  [ -n "${2:-}" ] && echo "# kernels: $2"; echo 'exit 0'; } > "$work/$1.sh"
}
expect() {	# NAME KTAG WANT(run|skip) KERNELS...
	local name=$1 ktag=$2 want=$3 got=skip

	shift 3
	fq_test_on_kernel "$work/$name.sh" "$ktag" "$@" && got=run
	if [ "$got" != "$want" ]; then
		echo "FAIL: $name on $ktag of ($*): $got, want $want"
		fails=$((fails + 1))
	fi
}

mk every; mk first first; mk last last
expect every 6.1 run 6.1 6.12
expect every 6.12 run 6.1 6.12
expect first 6.1 run 6.1 6.12
expect first 6.12 skip 6.1 6.12
expect last 6.1 skip 6.1 6.12
expect last 6.12 run 6.1 6.12
for t in every first last; do
	expect $t 6.12 run 6.12
done
expect last 6.1 skip 6.1 6.12 6.12-rt
expect last 6.12-rt run 6.1 6.12 6.12-rt

bad=$(grep -l '^# *kernels:' "$ROOT"/selftests/vm/*.sh |
	while read -r t; do
		v=$(fq_script_header "$t" kernels)
		[ "$v" = first ] || [ "$v" = last ] || echo "$(basename "$t"): '$v'"
	done)
if [ -n "$bad" ]; then
	echo "FAIL: kernels lines other than first or last:"
	echo "$bad" | sed 's/^/  /'
	fails=$((fails + 1))
fi
[ $fails = 0 ] && echo "ok: kernels first, last and none; every test's line is one of them"
[ $fails = 0 ]
