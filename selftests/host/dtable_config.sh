#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 60
#
# dtable-config's output as a script reads it: the JSON object parses,
# says how many entries were asked for and how many the table has once
# the unused slots are dropped (it gave the asked number alone, 128 for
# a table of 96), and names the device given; a --dev that the JSON
# string or the command line could not carry as it is (a quote, a
# backslash, a blank, a shell character, a byte above ASCII) or that
# the kernel would refuse is refused with a message, exit 2, and nothing
# printed on stdout.  The algorithm is
# unit-tested (unit/test_dtable_config) and run in vm/dtable_shares.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
DC=$ROOT/build/bin/dtable-config
[ -x "$DC" ] || { echo "FAIL: $DC not built"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
REQ=(--entries 128 --gmtu 1024 --w 8 --k 2 --sl VO:10%:2:128 --sl VI:30%:4:256)

# the readable output says how many slots went unused
"$DC" "${REQ[@]}" > "$work/text" || fail "text output: exit $?"
grep -q "32 unused slots dropped: the table has 96 entries" "$work/text" ||
	fail "no dropped slots in: $(tail -n 3 "$work/text")"

"$DC" "${REQ[@]}" --json --dev eth0.10 > "$work/json" || fail "json output: exit $?"
python3 - "$work/json" <<'EOF' || fail "json: see above"
import json, sys
d = json.load(open(sys.argv[1]))
bad = []
if d["entries"] != 128:
    bad.append("entries %r, want 128 (as asked)" % d["entries"])
if d["table_entries"] != 96 or len(d["table"]) != 96:
    bad.append("table_entries %r, table of %d, want 96"
               % (d.get("table_entries"), len(d["table"])))
if " dev eth0.10 " not in d["tc"]:
    bad.append("tc %r names no eth0.10" % d["tc"])
for b in bad:
    print("FAIL: json: " + b)
sys.exit(1 if bad else 0)
EOF

for dev in 'a"b' 'a\b' 'a b' 'a/b' 'a:b' '' 'longer-than-15ch' '.' '..' $'a\tb' \
	'x;id' 'a$b' 'a`b' "a'b" 'a&b' 'a|b' 'a*b' 'a(b' $'a\xffb'; do
	"$DC" "${REQ[@]}" --json --dev "$dev" > "$work/out" 2> "$work/err"
	rc=$?
	[ $rc = 2 ] || fail "--dev '$dev': exit $rc, want 2"
	[ -s "$work/out" ] && fail "--dev '$dev': printed $(head -c 80 "$work/out")"
	grep -q "not a device name" "$work/err" || fail "--dev '$dev': no reason: $(cat "$work/err")"
done
# the longest name the kernel takes, and the characters it allows
for dev in 'fifteen-chars15' 'eth0.100' 'br-lan_2@x'; do
	"$DC" "${REQ[@]}" --dev "$dev" > /dev/null 2> "$work/err" ||
		fail "--dev '$dev' refused: $(cat "$work/err")"
done

[ $fails = 0 ] && echo "ok: dtable-config output" || exit 1
