#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 60
#
# fabric-replay without a fabric: its command line refuses what it must,
# and, in a network namespace of its own (where unshare can make one),
# a sender and a receiver on loopback count each SL's frames, bytes and
# the window as recn.rst says.  The fabric itself is make demo's
# (selftests/demo/recn.sh).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FR=$ROOT/build/bin/fabric-replay
[ -x "$FR" ] || { echo "FAIL: $FR not built"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# refused ARGS... REASON: exit 2, REASON in the message
refused() {
	local reason=${*: -1} rc

	"$FR" "${@:1:$#-1}" > /dev/null 2> "$work/err"
	rc=$?
	[ $rc = 2 ] || fail "fabric-replay ${*:1:$#-1}: exit $rc, want 2"
	grep -q -- "$reason" "$work/err" || fail "fabric-replay ${*:1:$#-1}: no \"$reason\": $(cat "$work/err")"
}
refused bogus 'want send, recv or now'
refused send --host 1 --start 1 "are needed"
refused send --trace - --host 65533 --start 1 "a /16 holds hosts"
refused send --trace - --host -1 --start 1 "want 0 .. 65535"
refused send --trace - --host 1 --start 1 --warmup 5 "the receiver's"
refused send --trace - --host 1 --start 1 --class-base 0:100 "MAJ 1 .. ffff"
refused send --trace - --host 1 --start 1 --class-base 1:fffa "MIN 0 .. fff8"
refused send --trace - --host 1 --start 1 --net 127.0 "unicast /16"
refused recv --start 1 --warmup 5 --until 5 "below --until"
refused recv --start 1 --warmup 0 --until 0 "want 1 .. 10^12"
refused recv --start 1 --warmup 0 --until 5 --host 1 "the sender's"
refused recv --start 1 --warmup 0 --until 5 --net 10.1 "the sender's"
refused recv --start 1 --warmup 0 --until 5 --port 0 "want 1 .. 65535"
refused now --port 5 "no options"
"$FR" --help | grep -q "fabric-replay now" || fail "--help names no now"
# a bad trace line stops the sender with its line number
printf '# c\n0 0 1 100 0\n5 0 1 100 9\n' > "$work/bad.trace"
"$FR" send --trace "$work/bad.trace" --host 0 --start 1 > /dev/null 2> "$work/err"
[ $? = 1 ] && grep -q "bad.trace:3:" "$work/err" || fail "bad trace line: $(cat "$work/err")"

# on loopback: host 0 sends to host 1 (10.59.0.2, an address of lo here)
if unshare -n true 2> /dev/null; then
	# SL s: frames of 100 + s bytes, s + 1 of them; one for SL 7 after
	# the window, and one of 10 bytes (sent as the probe's 70, counted
	# as the trace's 10); host 1's own line is not host 0's.  Times in
	# units of U ns: the window is 50 U to 600 U, frames offered at 100 U
	# to 150 U.  A machine too busy to start the sender before the clock,
	# or that let it fall 40 U behind (frames could leave the window),
	# tries again with U four times longer: nothing here assumes a speed.
	loop_run() {	# loop_run U
		local u=$1 s i

		{
			for s in 0 1 2 3 4 5 6; do
				for ((i = 0; i <= s; i++)); do echo "$((100 * u + i * u / 100)) 0 1 $((100 + s)) $s"; done
			done
			echo "$((150 * u)) 0 1 10 7"
			echo "$((150 * u)) 1 0 500 7"
			echo "$((900 * u)) 0 1 1000 7"
		} > "$work/t"
		unshare -n bash -c '
			ip link set lo up && ip addr add 10.59.0.1/32 dev lo && ip addr add 10.59.0.2/32 dev lo || exit 9
			u=$3
			start=$(( $("$1" now) + 300 * u ))
			"$1" recv --start $start --warmup $((50 * u)) --until $((600 * u)) --linger $((500 * u)) > "$2/rx" &
			rx=$!
			until grep -q "^listening$" "$2/rx"; do kill -0 $rx 2>/dev/null || exit 6; sleep 0.01; done
			(( $("$1" now) < start )) || { wait $rx; exit 8; }	# the window is gone
			"$1" send --trace "$2/t" --host 0 --start $start > "$2/tx" || exit 7
			wait $rx' - "$FR" "$work" "$u"
	}
	u=1000000
	while :; do
		loop_run $u
		rc=$?
		lag=$(awk '{ print $NF }' "$work/tx" 2>/dev/null)
		if [ $rc = 8 ] || { [ $rc = 0 ] && [ "${lag:-0}" -ge $((40 * u)) ]; }; then
			((u < 16000000)) || break
			u=$((u * 4))
			continue
		fi
		break
	done
	[ $rc = 0 ] || fail "the loopback run failed ($rc, U $u ns)"
	want="sent frames 30 bytes 3922 errors 0"	# 2912 in SLs 0-6, 10 + 1000 in SL 7
	[[ $(cat "$work/tx") == "$want"* ]] || fail "sender: $(cat "$work/tx"), want $want ..."
	for s in 0 1 2 3 4 5 6; do
		grep -q "^sl $s frames $((s + 1)) bytes $(((s + 1) * (100 + s))) lat_avg_ns [0-9]* lat_max_ns [0-9]* outside 0$" "$work/rx" ||
			fail "SL $s: $(grep "^sl $s " "$work/rx")"
	done
	grep -q "^sl 7 frames 1 bytes 10 .* outside 1$" "$work/rx" || fail "SL 7: $(grep '^sl 7 ' "$work/rx")"
	grep -q "^bad 0$" "$work/rx" || fail "bad: $(grep '^bad' "$work/rx")"
	grep -q "^stale 0$" "$work/rx" || fail "stale: $(grep '^stale' "$work/rx")"
	# latency: from its time to loopback's receive, no more than the
	# sender's lag (this run's) and 50 U
	awk -v most=$((lag + 50 * u)) '$1 == "sl" && $2 < 7 && ($8 <= 0 || $10 > most) { exit 1 }' "$work/rx" ||
		fail "latencies out of (0, lag $lag + 50 U ns]: $(grep '^sl' "$work/rx")"
else
	echo "# no network namespace here (unshare -n): the loopback run is left out"
fi

[ $fails = 0 ] || exit 1
echo "ok: fabric-replay refuses bad input and counts each SL's frames in its window"
