#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# qsim recn (Documentation/recn.rst) on a congestion tree, exactly: two
# leaves of three hosts under one spine, 2000-byte frames, 1 GB/s links.
# Hosts 1 (across the spine), 3 and 4 each send at the link's rate to
# host 5, three times what its link takes; host 0 sends at half the rate
# to host 3, across the same spine link as host 1's hot frames.
#  - isolation: with RECN the innocent flow keeps all it offers and the
#    three hot flows share host 5's link evenly; without (fifo) and with
#    switch-level VOQs (voq) it is held to the hot flows' share;
#  - Xon/Xoff: with it a switch's SAQ stays below the VC buffer; without
#    it a SAQ fills the buffer and isolation is lost;
#  - SAQs are allocated while the tree stands and all released after;
#  - lost messages (10 % and 30 % of them): every frame still arrives,
#    in order, and the innocent flow keeps its rate;
#  - bad traces and options are refused.
# The simulator is deterministic: every figure is exact on any machine.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
QSIM=$ROOT/build/bin/qsim
[ -x "$QSIM" ] || { echo "SKIP: $QSIM not built"; exit 4; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FAIL=0
expect() {
	if [ "$2" = "$3" ]; then echo "ok: $1 = $2"; else echo "FAIL: $1: got '$2', want '$3'"; FAIL=1; fi
}
check() {	# check DESCRIPTION CONDITION...
	local what=$1
	shift
	if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; FAIL=1; fi
}
sim() { "$QSIM" recn --leaves 2 --hosts 3 --spines 1 "$@"; }
field() { awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }' <<< "$1"; }
flow_rate() { field "$(grep "^flow $2 " <<< "$1")" rate_Bps; }

awk -f "$ROOT/scripts/recn-tree.awk" > "$T/tree"
OFFERED=500000000	# host 0's rate

window() { sim --warmup 500000 --until 2000000 "$@" "$T/tree"; }
for a in fifo voq recn; do
	out=$(window --arch $a) || { echo "FAIL: $a run"; FAIL=1; continue; }
	eval "inn_$a=$(flow_rate "$out" "0 3 5")"
	expect "$a: reordered" "$(field "$(grep ^run <<< "$out")" reordered)" 0
	[ $a = recn ] && recn_out=$out
done
echo "innocent flow: offered $OFFERED B/s, got fifo $inn_fifo, voq $inn_voq, recn $inn_recn"
expect "recn: the innocent flow keeps its rate" "$inn_recn" $OFFERED
check "fifo: the innocent flow held below 3/4 of it" [ "$inn_fifo" -lt $((OFFERED * 3 / 4)) ]
check "voq: the innocent flow held below 3/4 of it" [ "$inn_voq" -lt $((OFFERED * 3 / 4)) ]
for f in "1 5 4" "3 5 4" "4 5 4"; do
	expect "recn: hot flow $f's share of host 5" "$(flow_rate "$recn_out" "$f")" 333333333
done

# Xon/Xoff
st=$(grep ^recn <<< "$recn_out")
with_xoff=$(field "$st" saq_max_bytes)
echo "recn: xoff $(field "$st" xoff) xon $(field "$st" xon), fullest SAQ $with_xoff bytes"
check "Xoffs and Xons were sent" [ "$(field "$st" xoff)" -gt 0 -a "$(field "$st" xon)" -gt 0 ]
out=$(window --xoff 1000000)
inn=$(flow_rate "$out" "0 3 5")
max=$(field "$(grep ^recn <<< "$out")" saq_max_bytes)
echo "without Xoff: fullest SAQ $max bytes, innocent flow $inn B/s"
# Xoff stops only the upstream SAQ of the point: frames of it still in
# a detection queue or a shorter SAQ upstream keep coming, so a SAQ is not
# held to Xoff, but it is held well below the VC buffer where without
# Xoff it fills it
check "the fullest SAQ: $with_xoff with Xoff, below $max without" [ "$with_xoff" -lt "$max" ]
check "without Xoff a SAQ comes within a frame of the 16384-byte buffer" \
	[ "$max" -gt $((16384 - 2000)) ]
check "without Xoff the innocent flow loses its rate" [ "$inn" -lt $((OFFERED * 3 / 4)) ]

# allocation and release over time: run on until every line has gone idle
out=$(sim --sample 250000 --until 12000000 "$T/tree")
st=$(grep ^recn <<< "$out")
expect "every frame delivered" "$(field "$(grep ^run <<< "$out")" left)" 0
during=$(awk '$1 == "saqs" && $2 >= 500000 && $2 <= 2000000 && $3 > 0 { n++ } END { print n + 0 }' <<< "$out")
expect "SAQs in use at each sample while the tree stands" "$during" 7
expect "no SAQ in use at the end" "$(awk '$1 == "saqs" { n = $3 } END { print n }' <<< "$out")" 0
expect "every SAQ allocated was freed" "$(field "$st" saq_free)" "$(field "$st" saq_alloc)"
check "more than one SAQ was allocated" [ "$(field "$st" saq_alloc)" -gt 1 ]

# lost messages
for loss in 100 300; do
	out=$(sim --loss $loss "$T/tree") || { echo "FAIL: loss $loss run"; FAIL=1; continue; }
	run=$(grep ^run <<< "$out")
	st=$(grep ^recn <<< "$out")
	echo "loss $loss/1000: $st"
	expect "loss $loss: every frame delivered" "$(field "$run" left)" 0
	expect "loss $loss: reordered" "$(field "$run" reordered)" 0
	check "loss $loss: messages were lost" [ "$(field "$st" lost)" -gt 0 ]
	inn=$(flow_rate "$(window --loss $loss)" "0 3 5")
	check "loss $loss: the innocent flow keeps 95 % of its rate ($inn)" \
		[ "$inn" -ge $((OFFERED * 95 / 100)) ]
done

# refused input
printf '0 0 0 2000 4\n' | sim > /dev/null 2>&1
expect "a frame to itself refused" $? 1
printf '0 0 6 2000 4\n' | sim > /dev/null 2>&1
expect "a host out of range refused" $? 1
printf '0 0 1 20000 4\n' | sim > /dev/null 2>&1
expect "a frame larger than the buffers refused" $? 1
printf '0 0 1 2000 8\n' | sim > /dev/null 2>&1
expect "SL 8 refused" $? 1
printf '5 0 1 2000 4\n4 0 1 2000 4\n' | sim > /dev/null 2>&1
expect "time going backwards refused" $? 1
"$QSIM" recn --leaves 2 --hosts 3 < /dev/null > /dev/null 2>&1
expect "two leaves without a spine refused" $? 2
sim --xon 4096 < /dev/null > /dev/null 2>&1
expect "xon not below xoff refused" $? 2
sim --saqs 17 < /dev/null > /dev/null 2>&1
expect "17 SAQs refused" $? 2
sim --arch voqs < /dev/null > /dev/null 2>&1
expect "an unknown architecture refused" $? 2
sim --vcs 8 --vc0-sls 2 < /dev/null > /dev/null 2>&1
expect "--vc0-sls with a VC per SL refused" $? 2
sim --vcs 4 < /dev/null > /dev/null 2>&1
expect "--vcs 4 refused" $? 2

exit $FAIL
