#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 60
#
# fabric-meter send with a destination per class (dst=) and the class id
# it has there (id=), on this machine's loopback: one sender drives two
# receivers (127.0.0.2 and 127.0.0.3), each receiver counts exactly what
# the sender sent its classes, under the ids given; two classes with one
# id to one destination, a bad dst=, an id out of range and classes
# without a destination are refused before anything is sent.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FM=$ROOT/build/bin/fabric-meter
[ -x "$FM" ] || { echo "SKIP: no $FM (make)"; exit 4; }
T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
fail=0
PORT=$((20000 + $$ % 20000))

ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }

"$FM" recv --bind 127.0.0.2 --port $PORT --duration 30 --expect 2 --csv --quiet \
	--ready "$T/ra" > "$T/a.csv" 2> "$T/a.err" &
RA=$!
"$FM" recv --bind 127.0.0.3 --port $PORT --duration 30 --expect 1 --csv --quiet \
	--ready "$T/rb" > "$T/b.csv" 2> "$T/b.err" &
RB=$!
for i in $(seq 100); do [ -e "$T/ra" ] && [ -e "$T/rb" ] && break; sleep 0.1; done
"$FM" send --port $PORT --duration 1 --csv --seed 7 \
	--class control,name=ca,dst=127.0.0.2,id=5,rate=1m \
	--class besteffort,name=ba,dst=127.0.0.2,id=9,rate=1m,flows=2 \
	--class control,name=cb,dst=127.0.0.3,id=5,rate=2m > "$T/send.csv" 2> "$T/send.err" ||
	bad "send exited $?: $(cat "$T/send.err")"
wait $RA || bad "receiver a exited $?: $(cat "$T/a.err")"
wait $RB || bad "receiver b exited $?: $(cat "$T/b.err")"

sent() { awk -F, -v n="$1" '$2 ~ "^" n "(/|$)" { s += $4 } END { print s + 0 }' "$T/send.csv"; }
row() { awk -F, -v n="$2" '$2 == n { print $1, $4, $5 }' "$T/$1.csv"; }
for c in "a ca 5" "a ba 9" "b cb 5"; do
	set -- $c
	read -r id snt rcv <<< "$(row "$1" "$2")"
	want=$(sent "$2")
	[ "$want" -gt 0 ] && [ "$id" = "$3" ] && [ "$snt" = "$want" ] && [ "$rcv" = "$want" ] &&
		ok "$2 at receiver $1: id $id, sent $snt, received $rcv" ||
		bad "$2 at receiver $1: id '$id' (want $3), sent '$snt' received '$rcv', the sender sent $want"
done
[ "$(grep -vc '^class' "$T/a.csv")" = 2 ] && [ "$(grep -vc '^class' "$T/b.csv")" = 1 ] &&
	ok "each receiver got only its classes" || bad "receivers: $(cat "$T/a.csv" "$T/b.csv")"

refused() {	# MESSAGE ARGS...: exit 2 with MESSAGE on stderr
	local msg=$1
	shift
	"$FM" send --port $PORT --duration 1 "$@" > /dev/null 2> "$T/err"
	local rc=$?
	[ $rc = 2 ] && grep -qF "$msg" "$T/err" && ok "refused: $msg" ||
		bad "want exit 2 and '$msg', got $rc: $(cat "$T/err")"
}
refused "one class id (3) to one destination" \
	--class control,name=x,dst=127.0.0.2,id=3,rate=1m --class control,name=y,dst=127.0.0.2,id=3,rate=1m
refused "dst: want an IPv4 or IPv6 address" --class control,dst=not..an.address,rate=1m
refused "id: want 0 .. 63" --class control,dst=127.0.0.2,id=64,rate=1m
refused "send: --dst is required (or dst= in every --class)" \
	--class control,name=x,dst=127.0.0.2,rate=1m --class control,name=y,rate=1m
exit $fail
