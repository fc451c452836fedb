#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 60
#
# fabric-cac, the admission control tool, as a script drives it: a state
# file made on the first add, rate and frame reservations (charged their
# mean or their peak) added and
# removed one at a time, a refusal at the cap (exit 3, nothing changed), removal freeing
# the rate, every bad input refused with a message and the state left as
# it was, and -j output that parses.  The algorithm itself is unit-tested
# (unit/test_fabric_cac).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CAC=$ROOT/build/bin/fabric-cac
[ -x "$CAC" ] || { echo "FAIL: $CAC not built"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
S=$work/state
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cac() { "$CAC" --state "$S" "$@"; }

# no state yet: the tree and the link are needed
cac show 2> "$work/err" && fail "show without a state and a tree"
grep -q "give --tree and --link" "$work/err" || fail "no reason: $(cat "$work/err")"

# 2-ary 2-tree, 100 Mbit/s, cap 70 %: hosts 0, 1 on one leaf, 2, 3 on the other
out=$(cac --tree 2,2 --link 100mbit add 0 2 30mbit) || fail "first add"
# ports 2, 1, 0: digits 3, 2, 1 from the lowest
[[ $out == "resv 1: 0 -> 2 class 1 rate 30000000 bit/s route 0/0/0:2 1/0/0:1 0/1/0:0 turnpool 0x80001083" ]] ||
	fail "first route: $out"
# the way over top switch 0 is loaded now: the least loaded is over 1
out=$(cac add 1 3 30mbit class 2) || fail "second add"
[[ $out == *"route 0/0/0:3 1/0/1:1 0/1/0:1 turnpool 0x80002084" ]] || fail "second route not the least loaded: $out"
cp "$S" "$work/before"
cac add 0 3 50mbit 2> "$work/err"
rc=$?
[ $rc = 3 ] || fail "past the cap: exit $rc, want 3"
grep -q "refused" "$work/err" || fail "no reason: $(cat "$work/err")"
cmp -s "$S" "$work/before" || fail "a refusal changed the state"
cac add 0 3 40mbit > /dev/null || fail "exactly the cap refused"
cac del 1 || fail "del 1"
cac del 1 2> /dev/null && fail "del of a reservation already gone"
cac add 0 2 30mbit > /dev/null || fail "the rate freed by del not available"

# bad input: refused with a message, the state as it was
cp "$S" "$work/before"
for args in "add 0 0 1mbit" "add 0 4 1mbit" "add 0 1 0" "add 0 1 1zbit" \
	    "add 0 1 1mbit class 0" "add 0 1 1mbit klass 1" "add -1 1 1mbit" \
	    "del x" "frob" "--tree 4,2 show" "--cap 50 show" "--link 1gbit show"; do
	# shellcheck disable=SC2086
	cac $args > /dev/null 2> "$work/err" && fail "accepted: $args"
	[ -s "$work/err" ] || fail "no message for: $args"
	cmp -s "$S" "$work/before" || fail "changed the state: $args"
done
"$CAC" --state "$work/x" --tree 1,3 --link 1gbit show 2> /dev/null && fail "a 1-ary tree"
"$CAC" --state "$work/x" --tree 2,2 --link 1gbit --cap 101 show 2> /dev/null && fail "cap 101"
echo "garbage" > "$work/bad"
"$CAC" --state "$work/bad" show 2> /dev/null && fail "a state file of garbage"
# a state whose reservations do not fit is refused, not trusted
{ head -n1 "$S"; echo "resv 7 0 2 1 80000000 0"; } > "$work/over"
"$CAC" --state "$work/over" show 2> "$work/err" && fail "a state past the cap"
grep -q "does not fit" "$work/err" || fail "no reason: $(cat "$work/err")"

# a host sends to one destination by one route, so a pair's second
# reservation goes where its first went, though the other route is empty
P=$work/pair
"$CAC" --state "$P" --tree 2,2 --link 100mbit add 0 2 30mbit > /dev/null || fail "pair: first"
out=$("$CAC" --state "$P" add 0 2 30mbit) || fail "pair: second"
[[ $out == *"route 0/0/0:2 1/0/0:1 0/1/0:0 "* ]] || fail "pair: second reservation on another route: $out"
"$CAC" --state "$P" add 0 2 11mbit 2> "$work/err"
[ $? = 3 ] || fail "pair: past the cap on its route, not refused"
grep -q "route of the reservations from 0 to 2" "$work/err" || fail "pair: no reason: $(cat "$work/err")"
# a state file with a pair on two routes is refused; so is a signed id
{ head -n1 "$P"; echo "resv 1 0 2 1 1000000 0"; echo "resv 2 0 2 1 1000000 1"; } > "$work/split"
"$CAC" --state "$work/split" show 2> "$work/err" && fail "a pair on two routes in a state"
grep -q "another route than its pair's first" "$work/err" || fail "split: no reason: $(cat "$work/err")"
{ head -n1 "$P"; echo "resv -1 0 2 1 1000000 0"; } > "$work/signed"
"$CAC" --state "$work/signed" show 2> /dev/null && fail "a state with id -1"

# a host's routes as fabric-route commands, one per destination
out=$(cac routes 1) || fail "routes 1"
[[ $out == "replace dev eth0 to 02:fa:00:00:00:03 ports 3,1,1" ]] || fail "routes 1: $out"
out=$(cac routes 0 dev veth1 mac 02:00:00:57:00:00) || fail "routes 0"
[[ $out == "replace dev veth1 to 02:00:00:57:00:03 ports "*$'\n'"replace dev veth1 to 02:00:00:57:00:02 ports "* ]] ||
	fail "routes 0: $out"
[ "$(echo "$out" | wc -l)" = 2 ] || fail "routes 0: one line per destination: $out"
[ -z "$(cac routes 2)" ] || fail "routes 2: a host without reservations has no routes"
for args in "routes 4" "routes 0 mac 03:00:00:00:00:00" "routes 0 mac 02:00:00:ff:ff:fe" \
	    "routes 0 mac 02:00:00:00:00" "routes 0 dev" "routes 0 via x"; do
	cac $args > /dev/null 2> "$work/err" && fail "accepted: $args"
	[ -s "$work/err" ] || fail "no message for: $args"
done

# a host's edf classes and filters as tc commands: a class at the sum of
# its reservations, a filter per destination
out=$(cac classes 0) || fail "classes 0"
[[ $out == "class replace dev eth0 parent 1: classid 1:1 edf rate 70000000bit perflow off
filter replace dev eth0 parent 1: protocol all pref 1 handle 4 flower dst_mac 02:fa:00:00:00:03 classid 1:1
filter replace dev eth0 parent 1: protocol all pref 1 handle 3 flower dst_mac 02:fa:00:00:00:02 classid 1:1" ]] ||
	fail "classes 0: $out"
out=$(cac classes 1 dev veth1 mac 02:00:00:57:00:00) || fail "classes 1"
[[ $out == "class replace dev veth1 parent 1: classid 1:2 edf rate 30000000bit perflow off
filter replace dev veth1 parent 1: protocol all pref 1 handle 4 flower dst_mac 02:00:00:57:00:03 classid 1:2" ]] ||
	fail "classes 1: $out"
[ -z "$(cac classes 2)" ] || fail "classes 2: a host without reservations has no classes"
for args in "classes 4" "classes 0 dev a/b" "classes 0 mac 01:00:00:00:00:00" "classes" "classes 0 dev"; do
	cac $args > /dev/null 2> "$work/err" && fail "accepted: $args"
	[ -s "$work/err" ] || fail "no message for: $args"
done

# JSON: parses, and says the same as the text
PY=$(command -v python3 || echo /usr/bin/python3)
if cac -j show | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
assert d["tree"] == {"k": 2, "n": 2, "hosts": 4}, d["tree"]
assert d["cap_pct"] == 70 and d["link_bps"] == 100000000
r = {v["id"]: v for v in d["reservations"]}
assert sorted(r) == [2, 3, 4], sorted(r)
assert r[2]["class"] == 2 and r[2]["rate_bps"] == 30000000
assert all(len(v["route"]) == 3 for v in r.values())
assert r[2]["turnpool"] == 0x80002084, r[2]
host0 = [l for l in d["links"] if l.get("host") == 0][0]
assert host0["load_bps"] == 70000000, host0
'; then :; else fail "show -j"; fi
if cac -j routes 1 | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
assert d == [{"dev": "eth0", "to": "02:fa:00:00:00:03", "dst": 3,
              "ports": [3, 1, 1], "turnpool": 0x80002084}], d
'; then :; else fail "routes -j"; fi
if cac -j classes 0 | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
assert d == {"classes": [{"dev": "eth0", "classid": "1:1", "mode": "rate", "rate_bps": 70000000}],
             "filters": [{"dev": "eth0", "to": "02:fa:00:00:00:03", "dst": 3, "classid": "1:1"},
                         {"dev": "eth0", "to": "02:fa:00:00:00:02", "dst": 2, "classid": "1:1"}]}, d
'; then :; else fail "classes -j"; fi

# frame reservations: links charged the mean, a frame whose rate within
# its latency passes the cap refused (exit 3), one kind per class, the
# terms kept in the state and checked when read back, an edf frame class
S=$work/frames
out=$(cac --tree 2,2 --link 200mbit add 0 2 frame 20ms size 250000 every 40ms class 5) ||
	fail "frame add"
[[ $out == "resv 1: 0 -> 2 class 5 frame 20ms size 250000 every 40ms (mean 50000000 bit/s) route "* ]] ||
	fail "frame add: $out"
cac add 0 3 frame 20ms size 250000 every 40ms class 5 > /dev/null || fail "second frame stream"
cp "$S" "$work/before"
cac add 1 2 frame 1ms size 17501 every 100ms 2> "$work/err"
rc=$?
[ $rc = 3 ] || fail "a frame past the cap within its latency: exit $rc, want 3"
grep -q "140008000 bit/s" "$work/err" || fail "no reason: $(cat "$work/err")"
cac add 0 1 frame 20ms size 250000 every 40ms class 5 2> /dev/null
[ $? = 3 ] || fail "frames whose mean passes the cap"
for args in "add 0 1 1mbit class 5" "add 0 1 frame 10ms size 1k every 40ms class 5" \
	    "add 0 1 frame 2ms size 1 every 1ms" "add 0 1 frame 500ns size 1 every 1ms" \
	    "add 0 1 frame 11s size 1 every 20s" "add 0 1 frame 1ms size 1 every 3601s" \
	    "add 0 1 frame 1ms size 0 every 1ms" "add 0 1 frame 1ms size 1025m every 1ms" \
	    "add 0 1 frame 1 size 1 every 1ms" "add 0 1 frame 1ms size 1 every" \
	    "add 0 1 frame 1ms bytes 1 every 1ms" "add 0 1 frame 1ms size 1 every 1ms class" \
	    "add 0 1 frame 1ms size 1 every 1ms klass 2" \
	    "add 0 1 frame 1ms size 1 every 1ms charge" "add 0 1 frame 1ms size 1 every 1ms charge max" \
	    "add 0 1 frame 1ms size 1 every 1ms charge peak charge mean" \
	    "add 0 1 frame 1ms size 1 every 1ms class 2 class 3" "add 0 1 1mbit charge peak"; do
	# shellcheck disable=SC2086
	cac $args > /dev/null 2> "$work/err"
	rc=$?
	[ $rc = 1 ] || fail "exit $rc, want 1: $args"
	[ -s "$work/err" ] || fail "no message for: $args"
	cmp -s "$S" "$work/before" || fail "changed the state: $args"
	if [[ $args == *"class 5" ]]; then
		grep -q "class 5 holds" "$work/err" || fail "not the class: $(cat "$work/err")"
	elif [[ $args =~ every\ [0-9]+[mun]?s$ ]]; then
		grep -q "want \"frame" "$work/err" || fail "not the terms: $(cat "$work/err")"
	fi
done
cac add 0 1 frame 10ms size 1k every 40ms class 7 > /dev/null || fail "another class, another latency"
grep -q "^resv 1 0 2 5 50000000 [01] frame 20000000 250000 40000000$" "$S" || fail "state: $(cat "$S")"
out=$(cac classes 0) || fail "classes 0 (frames)"
[[ $out == "class replace dev eth0 parent 1: classid 1:5 edf frame 20ms perflow on
class replace dev eth0 parent 1: classid 1:7 edf frame 10ms perflow on
"* ]] || fail "frame classes: $out"
out=$(cac show) || fail "show (frames)"
[[ $out == *"link host 0 up: 100204800 bit/s (50.1 %)"* ]] || fail "the means add up: $out"
# a state line with anything after it, or a class out of range, is refused
for lie in 's/^\(resv 1 .*\)$/\1 x/' 's/^resv 1 0 2 5 50000000 \([01]\) frame/resv 1 0 2 5 50000000 \1 frme/' \
	   's/^resv 1 0 2 5 /resv 1 0 2 0 /' 's/^resv 1 0 2 5 /resv 1 0 2 65536 /'; do
	sed "$lie" "$S" > "$work/lie"
	cmp -s "$S" "$work/lie" && fail "sed '$lie' changed nothing"
	"$CAC" --state "$work/lie" show 2> "$work/err" && fail "a state edited by sed '$lie'"
	grep -q "not a reservation" "$work/err" || fail "no reason: $(cat "$work/err")"
done
# a state whose rate does not match its frame's terms is refused
sed 's/^resv 1 0 2 5 50000000/resv 1 0 2 5 40000000/' "$S" > "$work/lie"
"$CAC" --state "$work/lie" show 2> "$work/err" && fail "a frame whose rate is not its mean"
grep -q "reservation 1 is invalid" "$work/err" || fail "no reason: $(cat "$work/err")"
if cac -j show | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
r = {v["id"]: v for v in d["reservations"]}
assert r[1]["frame"] == {"latency_ns": 20000000, "bytes": 250000,
                         "period_ns": 40000000, "peak_bps": 100000000,
                         "charge": "mean"}, r[1]
assert r[1]["rate_bps"] == 50000000
'; then :; else fail "show -j (frames)"; fi
if cac -j classes 0 | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
c = {v["classid"]: v for v in d["classes"]}
assert c["1:5"] == {"dev": "eth0", "classid": "1:5", "mode": "frame",
                    "latency_ns": 20000000, "rate_bps": 100000000}, c
'; then :; else fail "classes -j (frames)"; fi

# charge peak: links carry each frame's rate within its latency, so a
# second 100 Mbit/s stream does not fit where its mean would; the choice
# kept in the state ("peak" after the terms) and checked when read back
S=$work/peak
out=$(cac --tree 2,2 --link 200mbit add 0 2 frame 20ms size 250000 every 40ms charge peak class 5) ||
	fail "peak add"
[[ $out == "resv 1: 0 -> 2 class 5 frame 20ms size 250000 every 40ms (peak 100000000 bit/s) route "* ]] ||
	fail "peak add: $out"
cac add 0 3 class 5 frame 20ms size 250000 every 40ms charge peak 2> /dev/null
[ $? = 1 ] || fail "class before the terms taken"
cac add 0 3 frame 20ms size 250000 every 40ms class 5 charge peak 2> "$work/err"
[ $? = 3 ] || fail "a second peak stream past the cap: not refused"
grep -q "every route from 0 to 3" "$work/err" || fail "no reason: $(cat "$work/err")"
cac add 0 3 frame 20ms size 60000 every 40ms class 5 charge mean > /dev/null ||
	fail "a stream charged its mean beside one charged its peak"
grep -q "^resv 1 0 2 5 100000000 [01] frame 20000000 250000 40000000 peak$" "$S" ||
	fail "state: $(cat "$S")"
grep -q "^resv 2 0 3 5 12000000 [01] frame 20000000 60000 40000000$" "$S" ||
	fail "state: $(cat "$S")"
out=$(cac show) || fail "show (peak)"
[[ $out == *"link host 0 up: 112000000 bit/s (56.0 %)"* ]] || fail "peak and mean add up: $out"
# read back: the rate must be the peak of a "peak" line, the mean of
# another (either edit still fits under the cap: refused for the rate)
for lie in 's/^\(resv 1 .*\) peak$/\1/' 's/^\(resv 2 .*\)$/\1 peak/'; do
	sed "$lie" "$S" > "$work/lie"
	cmp -s "$S" "$work/lie" && fail "sed '$lie' changed nothing"
	"$CAC" --state "$work/lie" show 2> "$work/err" && fail "a state edited by sed '$lie'"
	grep -q "is invalid" "$work/err" || fail "no reason: $(cat "$work/err")"
done
for lie in 's/ peak$/ peek/' 's/ peak$/peak/' 's/ peak$/ peak peak/'; do
	sed "$lie" "$S" > "$work/lie"
	"$CAC" --state "$work/lie" show 2> "$work/err" && fail "a state edited by sed '$lie'"
	grep -q "not a reservation" "$work/err" || fail "no reason: $(cat "$work/err")"
done
if cac -j show | "$PY" -c '
import json, sys
d = json.load(sys.stdin)
r = {v["id"]: v for v in d["reservations"]}
assert r[1]["frame"]["charge"] == "peak" and r[1]["rate_bps"] == 100000000, r[1]
assert r[2]["frame"]["charge"] == "mean" and r[2]["rate_bps"] == 12000000, r[2]
'; then :; else fail "show -j (peak)"; fi
cac del 1 > /dev/null || fail "del 1 (peak)"
out=$(cac show) || fail "show after del"
[[ $out == *"link host 0 up: 12000000 bit/s (6.0 %)"* ]] || fail "the peak given back: $out"

[ $fails = 0 ] || exit 1
echo "ok: fabric-cac adds rates and frames, refuses at the cap, removes, prints a host's routes and classes, refuses bad input"
