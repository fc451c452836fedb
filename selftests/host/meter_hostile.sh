#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# fabric-meter under hostile or heavy input, built with AddressSanitizer
# and UBSan for the purpose:
#  - a sender of 200 flows (a socket each) with --rtt polls them all: its
#    poll set once had room for 64 (stack overflow past 64 flows);
#  - any host can send a receiver an end mark, and the class name in it
#    names the files of --data and a JSON string: forged names with a
#    "../" and a quote are read as no name (the class keeps "classN"),
#    no file appears outside the data directory, the JSON parses;
#  - a sender or receiver whose results cannot be written (--output or
#    stdout on a full device) exits 1 and says why: they exited 0.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$T"' EXIT
fail=0
# four ports in a row that nothing on this machine listens on (qemu's
# socket links of a VM pair use the same range)
free_ports() {
	local p=$((20000 + ($$ * 7) % 20000)) k busy

	while [ $p -lt 60000 ]; do
		busy=0
		for k in 0 1 2 3; do
			[ -n "$(ss -Hlun "sport = :$((p + k))" 2>/dev/null)" ] && busy=1
		done
		[ $busy = 0 ] && { echo $p; return; }
		p=$((p + 4))
	done
	echo 20000
}
PORT=$(free_ports)

ok() { echo "ok: $*"; }
bad() { echo "FAIL: $*"; fail=1; }

command -v python3 > /dev/null || { echo "SKIP: no python3"; exit 4; }
FM=$T/fabric-meter-asan
if ! ${CC:-cc} -O0 -g -fsanitize=address,undefined -fno-omit-frame-pointer -std=gnu11 \
	-D_GNU_SOURCE -I"$ROOT/kernel/include/uapi" -I"$ROOT/kernel" -I"$ROOT/userspace/lib" \
	-o "$FM" "$ROOT"/userspace/fabric-meter/*.c "$ROOT"/userspace/lib/*.c -lmnl -lm \
	2> "$T/cc.err"; then
	echo "SKIP: cannot build with -fsanitize=address,undefined: $(head -n 3 "$T/cc.err")"
	exit 4
fi
export ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# a runtime that cannot start here (older sanitizers on kernels with more
# address-space randomisation) is no finding of ours
if ! "$FM" --help > /dev/null 2> "$T/start.err"; then
	echo "SKIP: the sanitizer runtime does not start here: $(head -n 2 "$T/start.err")"
	exit 4
fi

# --- 200 flows with --rtt ----------------------------------------------------------
"$FM" reflect --bind 127.0.0.1 --port $PORT --duration 20 --quiet --ready "$T/refl.ready" \
	> "$T/refl.out" 2>&1 &
REFL=$!
for i in $(seq 100); do [ -e "$T/refl.ready" ] && break; sleep 0.1; done
"$FM" send --dst 127.0.0.1 --port $PORT --rtt --duration 1 --csv --quiet \
	--class cbr,name=many,rate=20m,flows=200 > "$T/send.csv" 2> "$T/send.err"
rc=$?
if [ $rc = 0 ] && ! grep -q 'Sanitizer' "$T/send.err"; then
	ok "send --rtt with 200 flows: no sanitizer report"
else
	bad "send --rtt with 200 flows: exit $rc: $(grep -m3 -A4 'ERROR\|runtime error' "$T/send.err")"
fi
kill $REFL 2>/dev/null
wait $REFL 2>/dev/null

# --- forged end marks -----------------------------------------------------------------
PORT=$((PORT + 1))
mkdir -p "$T/data"
"$FM" recv --bind 127.0.0.1 --port $PORT --duration 20 --expect 2 --linger 0.2 --json \
	--quiet --data "$T/data" --ready "$T/ready" > "$T/recv.json" 2> "$T/recv.err" &
RECV=$!
for i in $(seq 100); do [ -e "$T/ready" ] && break; sleep 0.1; done
# a datagram, then an end mark (fabric-meter/wire.c): the 48-byte
# header, then the end mark's body
python3 - "$PORT" <<'PY'
import socket, struct, sys
port = int(sys.argv[1])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for cls, name in ((3, b"../evil"), (4, b'a"b')):
    data = struct.pack(">IBBBBIIHHIQQQ", 0xFAB3E7E5, 1, 1, 0, cls, 0, 0, 0, 1, 48, 0, 0, 0)
    s.sendto(data, ("127.0.0.1", port))
    hdr = struct.pack(">IBBBBIIHHIQQQ", 0xFAB3E7E5, 1, 2, 0, cls, 0, 0, 0, 0, 0, 0, 0, 0)
    body = struct.pack(">QQQQQB16sH", 10, 10, 1000, 0, 0, 0, name.ljust(16, b"\0"), 1)
    s.sendto(hdr + body.ljust(64, b"\0"), ("127.0.0.1", port))
PY
wait $RECV
rc=$?
[ $rc = 0 ] && ! grep -q 'Sanitizer\|runtime error' "$T/recv.err" &&
	ok "the receiver took two forged end marks" ||
	bad "recv exited $rc: $(head -n 20 "$T/recv.err")"
outside=$(find "$T" -path "$T/data" -prune -o -name '*evil*' -print)
[ -z "$outside" ] && ok "no file outside the data directory" ||
	bad "files written outside --data: $outside"
names=$(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
print(" ".join(sorted(c["name"] for c in d["classes"])))' "$T/recv.json" 2> "$T/py.err")
[ "$names" = "class3 class4" ] && ok "JSON parses; the forged names were not taken ($names)" ||
	bad "JSON names '$names' (want 'class3 class4'): $(cat "$T/py.err") $(head -c 600 "$T/recv.json")"

# --- results that do not reach their file ------------------------------------------
if [ -w /dev/full ]; then
	PORT=$((PORT + 1))
	"$FM" recv --bind 127.0.0.1 --port $PORT --duration 20 --expect 1 --quiet \
		--ready "$T/ready2" > /dev/null 2>&1 &
	RECV=$!
	for i in $(seq 100); do [ -e "$T/ready2" ] && break; sleep 0.1; done
	"$FM" send --dst 127.0.0.1 --port $PORT --duration 0.3 --quiet \
		--class cbr,rate=1m --output /dev/full 2> "$T/full.err"
	rc=$?
	[ $rc = 1 ] && grep -q 'No space left' "$T/full.err" &&
		ok "send --output to a full device: exit 1, reason given" ||
		bad "send --output /dev/full: exit $rc, want 1: $(cat "$T/full.err")"
	wait $RECV
	# the same on stdout, at both ends
	PORT=$((PORT + 1))
	"$FM" recv --bind 127.0.0.1 --port $PORT --duration 20 --expect 1 --quiet --json \
		--ready "$T/ready3" > /dev/full 2> "$T/rfull.err" &
	RECV=$!
	for i in $(seq 100); do [ -e "$T/ready3" ] && break; sleep 0.1; done
	"$FM" send --dst 127.0.0.1 --port $PORT --duration 0.3 --quiet \
		--class cbr,rate=1m > /dev/full 2> "$T/sfull.err"
	rc=$?
	[ $rc = 1 ] && grep -q 'stdout: No space left' "$T/sfull.err" &&
		ok "send to a full stdout: exit 1, reason given" ||
		bad "send > /dev/full: exit $rc, want 1: $(cat "$T/sfull.err")"
	wait $RECV
	rc=$?
	[ $rc = 1 ] && grep -q 'stdout: No space left' "$T/rfull.err" &&
		ok "recv --json to a full stdout: exit 1, reason given" ||
		bad "recv --json > /dev/full: exit $rc, want 1: $(cat "$T/rfull.err")"
fi

[ $fail = 0 ]
