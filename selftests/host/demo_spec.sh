#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 30
#
# selftests/demo/spec.sh, which make demo's names go through on the host
# and in the VM: a name's scenario file, its results' name and its
# changes to the file, and refusal of a change that is neither @qosN nor
# @KEY=VALUE.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/selftests/demo/spec.sh"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# expect SPEC CONF NAME CHANGES (the changes space-separated)
expect() {
	local got

	got=$(spec_conf "$1")
	[ "$got" = "$2" ] || fail "spec_conf $1: '$got', want '$2'"
	got=$(spec_name "$1")
	[ "$got" = "$3" ] || fail "spec_name $1: '$got', want '$3'"
	got=$(spec_overrides "$1" | paste -sd ' ')
	[ "$got" = "$4" ] || fail "spec_overrides $1: '$got', want '$4'"
}
expect advanced2 advanced2 advanced2 ""
expect trad2@qos70 trad2 trad2-qos70 "qos_load=70"
expect fabric-advanced2@tree=8,2@link=2500kbit fabric-advanced2 \
	fabric-advanced2-tree8x2-link2500kbit "tree=8,2 link=2500kbit"
expect fabric-ideal@qos30@control_target=8ms fabric-ideal \
	fabric-ideal-qos30-control_target8ms "qos_load=30 control_target=8ms"

# a list's '+' is a space, within the one change (a line of its own)
expect fabric-trad2@flows=control:4+multimedia:1@link=5mbit fabric-trad2 \
	fabric-trad2-flowscontrol4_multimedia1-link5mbit "flows=control:4 multimedia:1 link=5mbit"
[ "$(spec_overrides fabric-trad2@flows=control:4+multimedia:1@link=5mbit | wc -l)" = 2 ] ||
	fail "spec_overrides: a list with '+' is not one change"

for bad in trad2@flows=+control:4 trad2@flows=control:4+ trad2@qos0 trad2@qos100 trad2@qos trad2@ trad2@link trad2@=5 \
	'trad2@link=a/b' trad2@LINK=5mbit 'trad2@link=5 mbit'; do
	spec_overrides "$bad" > /dev/null 2>&1 && fail "spec_overrides took '$bad'"
done

[ $fails = 0 ] || exit 1
echo "ok: demo spec: names, results' names and changes, bad changes refused"
