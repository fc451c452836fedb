#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 60
#
# fabric-route's command line, where no module is needed: every malformed
# command is refused with exit 2 and a reason before the kernel is asked,
# and help names every command.  What the kernel does with good ones is
# vm/vcsw_route's.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FR=$ROOT/build/bin/fabric-route
[ -x "$FR" ] || { echo "FAIL: $FR not built"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# refused ARGS REASON: exit 2, REASON in the message
refused() {
	local reason=${*: -1} rc

	"$FR" "${@:1:$#-1}" > /dev/null 2> "$work/err"
	rc=$?
	[ $rc = 2 ] || fail "fabric-route ${*:1:$#-1}: exit $rc, want 2"
	grep -q -- "$reason" "$work/err" || fail "fabric-route ${*:1:$#-1}: no \"$reason\": $(cat "$work/err")"
}
refused bogus 'unknown command "bogus"'
refused add dev lo to 02:00:00:00:00:01 ports 1,63 "want 1 to 5 ports 0 to 62"
refused add dev lo to 02:00:00:00:00:01 ports 1,2,3,4,5,6 "want 1 to 5 ports"
refused add dev lo to 02:00:00:00:00:01 ports 1,,2 "want 1 to 5 ports"
refused add dev lo to 02:00:00:00:00:01 ports -1 "want 1 to 5 ports"
refused add dev lo to 02:00:00:00:00:01 turnpool 4294967296 "not a 32-bit number"
refused add dev lo to 02:00:00:00:00:01 turnpool -1 "not a 32-bit number"
refused add dev lo to 02:00:00:00:01 ports 1 "not a MAC address"
refused add dev lo to 02:00:00:00:00:01:02 ports 1 "not a MAC address"
refused add dev lo to 02:00:00:00:00:100 ports 1 "not a MAC address"
refused add dev fq-no-such-dev to 02:00:00:00:00:01 ports 1 "no such device"
refused add dev lo ports 1 "needs dev DEV and to MAC"
refused add dev lo to 02:00:00:00:00:01 "needs ports or turnpool"
refused del dev lo "needs dev DEV and to MAC"
refused del dev lo to 02:00:00:00:00:01 ports 1 'unknown word "ports"'
refused show dev lo to 02:00:00:00:00:01 "takes dev DEV only"
refused add dev "needs a value"
refused -b "$work/x" show "takes no command besides"

"$FR" -h > "$work/help" || fail "help"
for w in add replace del flush show "-b FILE" ports turnpool; do
	grep -q -- "$w" "$work/help" || fail "help does not name $w"
done

[ $fails = 0 ] && echo "ok: fabric-route refuses what it cannot do, with reasons" && exit 0
exit 1
