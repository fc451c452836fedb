#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 60
#
# qsim port on a hand-made trace: each discipline's departure order and
# counters, exactly.  Packets of 1000 bytes at 1 GB/s take 1000 ns; VC0
# arrivals come while the first is on the wire, VC1's late-deadline
# packet still leaves last.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
QSIM=$ROOT/build/bin/qsim
[ -x "$QSIM" ] || { echo "SKIP: $QSIM not built"; exit 4; }
T=$(mktemp)
trap 'rm -f "$T"' EXIT
FAIL=0
cat > "$T" <<'TRACE'
# time flow len deadline vc
0   1 1000 100000 0
100 2 1000 900000 0
200 3 1000 500000 0
300 4 1000  20000 1
400 5 1000 300000 0
TRACE

order() { "$QSIM" port --mode "$1" --rate 1000000000 "$T" | awk '$1 == "dep" { printf "%s ", $3 }'; }
field() { "$QSIM" port --mode "$1" --rate 1000000000 --quiet "$T" |
	awk -v k="$2" '$1 == "vc0" { for (i = 2; i < NF; i++) if ($i == k) print $(i + 1) }'; }
expect() {
	if [ "$2" = "$3" ]; then echo "ok: $1 = $2"; else echo "FAIL: $1: got '$2', want '$3'"; FAIL=1; fi
}

expect "fifo order" "$(order fifo)" "1 2 3 5 4 "
expect "takeover order" "$(order takeover)" "1 3 5 2 4 "
expect "ideal order" "$(order ideal)" "1 5 3 2 4 "
expect "fifo order errors" "$(field fifo order_errors)" 2
expect "takeover order errors" "$(field takeover order_errors)" 1
expect "takeover take-overs" "$(field takeover takeovers)" 2
expect "ideal order errors" "$(field ideal order_errors)" 0

# a 1500-byte VC0 buffer holds one packet behind the one on the wire
drops=$("$QSIM" port --mode fifo --rate 1000000000 --buffer0 1500 --quiet "$T" |
	awk '$1 == "vc0" { for (i = 2; i < NF; i++) if ($i == "drops_full") print $(i + 1) }')
expect "drops with a small buffer" "$drops" 2

# malformed input is refused, not guessed
if echo "0 1 0 5 0" | "$QSIM" port >/dev/null 2>&1; then
	echo "FAIL: a zero length was accepted"; FAIL=1
else
	echo "ok: zero length refused"
fi
if printf '5 1 100 5 0\n4 1 100 5 0\n' | "$QSIM" port >/dev/null 2>&1; then
	echo "FAIL: time going backwards was accepted"; FAIL=1
else
	echo "ok: time going backwards refused"
fi
exit $FAIL
