#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 60
#
# qsim switch on hand-made traces, exactly: 1000-byte frames at 1 GB/s
# take 1000 ns; output buffers hold one frame.
#  - two ordered chains into one output: the deadline arbiters merge
#    them, round robin alternates;
#  - head-of-line blocking: a frame for an idle output waits behind one
#    for a full output;
#  - four VCs: each strictly before the next, whatever the arrival order;
#  - lossless: 600 frames offered at three times the output's rate all
#    leave, none dropped, no flow reordered; round robin makes order
#    errors at the output where the deadline arbiters make few or none.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
QSIM=$ROOT/build/bin/qsim
[ -x "$QSIM" ] || { echo "SKIP: $QSIM not built"; exit 4; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FAIL=0
expect() {
	if [ "$2" = "$3" ]; then echo "ok: $1 = $2"; else echo "FAIL: $1: got '$2', want '$3'"; FAIL=1; fi
}
sim() { "$QSIM" switch --rate 1000000000 --out-buffer 1000 --in-buffer 3000 "$@"; }

cat > "$T/merge" <<'TRACE'
# time flow len deadline vc in out
0 1 1000 10 0 0 2
0 1 1000 20 0 0 2
0 1 1000 30 0 0 2
0 2 1000  5 0 1 2
0 2 1000  6 0 1 2
0 2 1000  7 0 1 2
TRACE
deadlines() { sim --arch "$1" "$T/merge" | awk '$1 == "dep" { printf "%s ", $5 }'; }
for a in simple advanced ideal; do
	expect "$a: departures by deadline" "$(deadlines $a)" "5 6 7 10 20 30 "
done
expect "trad: inputs in turn" "$(deadlines trad)" "10 5 20 6 30 7 "

cat > "$T/hol" <<'TRACE'
# input 1 fills output 2 (one frame on the wire, one in the buffer);
# then input 0's frame for the idle output 3 sits behind its frame for
# output 2 until that one crosses, at 1000 ns
0 1 1000 0 0 1 2
0 1 1000 0 0 1 2
1 2 1000 5 0 0 2
1 3 1000 6 0 0 3
TRACE
for a in trad simple advanced ideal; do
	expect "$a: the frame for the idle output leaves at" \
		"$(sim --arch $a "$T/hol" | awk '$1 == "dep" && $3 == 3 { print $2 }')" 1000
done

cat > "$T/four" <<'TRACE'
# four VCs, one frame each at time 0 into one output, VC3 first in the
# trace; then a VC0 frame arrives while the first is on the wire
0 3 1000 1 3 0 2
0 2 1000 2 2 0 2
0 1 1000 3 1 1 2
0 0 1000 4 0 1 2
500 0 1000 5 0 1 2
TRACE
vcs_out() { sim --arch trad "$@" "$T/four" | awk '$1 == "dep" { printf "%s ", $6 }'; }
# the VC0 frame crosses at once and goes on the wire first; the later
# VC0 frame goes before VC1, VC2 and VC3, which wait for it
expect "vcs 4: departures' VCs" "$(vcs_out --vcs 4)" "0 0 1 2 3 "
sim --arch trad "$T/four" > /dev/null 2>&1
expect "vcs 2 refuses a VC2 frame" $? 1
"$QSIM" switch --vcs 5 "$T/four" 2>/dev/null
expect "--vcs 5 refused" $? 2

awk 'BEGIN {
	srand(3)
	for (i = 0; i < 3; i++) {
		t = 0; d = 10000 * i
		for (k = 0; k < 200; k++) {
			t += 2000 + int(rand() * 2000); d += 5000 + int(rand() * 35000)
			printf "%d %d 1000 %d 0 %d 3\n", t, i, d, i
		}
	}
}' | sort -n -k1,1 -s > "$T/load"
for a in trad simple advanced ideal; do
	out=$("$QSIM" switch --arch $a --rate 125000000 --quiet "$T/load")
	expect "$a: reordered" "$(echo "$out" | awk '$1 == "arch" { print $NF }')" 0
	expect "$a: frames out of port 3" \
		"$(echo "$out" | awk '$1 == "port" && $2 == 3 && $3 == "out" && $4 == "vc0" { print $8 }')" 600
	expect "$a: drops anywhere" \
		"$(echo "$out" | awk '$1 == "port" { s += $12 } END { print s + 0 }')" 0
	eval "oe_$a=\$(echo \"\$out\" | awk '\$1 == \"port\" && \$2 == 3 && \$3 == \"out\" && \$4 == \"vc0\" { print \$NF }')"
done
echo "order errors at the output: trad $oe_trad, simple $oe_simple, advanced $oe_advanced, ideal $oe_ideal"
expect "ideal order errors" "$oe_ideal" 0
[ "$oe_simple" -lt $((oe_trad / 4)) ] && [ "$oe_advanced" -le "$oe_simple" ]
expect "advanced <= simple < trad / 4 in order errors" $? 0

exit $FAIL
