#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 60
#
# The JSON keys of our tc plugins' statistics do not repeat a key of the
# object tc prints them in: a qdisc's beside tc's own "bytes", "packets",
# "drops", ... at the qdisc's top level, a class's (iproute2 6.2 on)
# inside the class's "stats" object after tc's counters of the same
# names.  dtable's, fbs's and aoq's classes printed "packets", "bytes"
# and "drops" of their own there, an object with a key twice.  tc 6.1,
# in the VM, prints classes as text only, so no VM test can see it:
# selftests/tc/plugin_json_keys loads each plugin as tc does and records
# the keys its hooks print (see there).  ip's link plugins too: a port's
# option "credits" and its group of credit counters were both "credits"
# in info_slave_data (and "recn" likewise).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${FQ_BUILD:-$ROOT/build}
KEYS=$B/selftests/tc/plugin_json_keys
[ -x "$KEYS" ] || { echo "FAIL: $KEYS not built"; exit 1; }
n=0 fails=0
# tc's (q_KIND.so) and ip's (link_KIND.so: a switch's and a port's
# options and counters in one object each)
for so in "$B"/tc/q_*.so "$B"/tc/link_*.so; do
	[ -e "$so" ] || continue
	kind=$(basename "$so" .so)
	kind=${kind#q_}
	kind=${kind#link_}
	n=$((n + 1))
	"$KEYS" "$so" "$kind" || fails=$((fails + 1))
done
[ "$n" -ge 6 ] ||
	{ echo "FAIL: $n plugins in $B/tc, want edf, aoq, dtable, fbs, vcsw, vcsw_slave"; exit 1; }
[ "$fails" -eq 0 ] || { echo "FAIL: $fails of $n plugins"; exit 1; }
echo "ok: $n plugins"
