#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# vm: deterministic
#
# Message completion, throughput and fairness of aoq against its baselines
# on a 50 Mbit/s link (an htb class above the aoq qdisc; htb does not cut
# GSO packets, so messages reach aoq whole).  Four lanes, one UDP sender
# each, 64000-byte messages sent with UDP_SEGMENT (44 frames).
#
#  1. Rounds: every 60 ms each lane sends one message at once, the
#     paper's worked example on the wire.  The mean completion time
#     (sendmsg to last frame received) with aoq is at most 0.75x fbrr's,
#     the last message of a round completes at the same time (same
#     throughput).  arr and pbrr are measured for the record.
#  2. Saturation: the four senders send twice their share; over 1.2 s the link
#     is >= 95 % busy with aoq and with fbrr and each lane gets 25 % of the
#     bytes within 5 % (of 25 %).
#  3. Lane 1:1 behind a 5 Mbit/s tbf child, saturation: aoq keeps the link
#     >= 95 % busy; pbrr waits on the slow lane and leaves it mostly idle
#     (measured, must be below 60 %).
#  4. One lane of 64 KB messages against one of one-frame messages, all
#     four modes: aoq's largest opportunity spread (max_spread, Lemma 2)
#     stays within M (max_msg_opps, the most opportunities a message
#     took), the lanes are offered and get about equal frames; arr offers
#     the big lane its whole message for each frame of the small one.
#  5. Weights 1 and 3, both lanes saturated: frames 1:3.
#
#   [ns A] veth0: htb 1: (1:1 rate 50mbit) -> aoq 2: (lanes 2:1..2:4)
#     10.19.0.1/24   senders port 9000+i, SO_PRIORITY 2:(i+1)
#                                   |
#   [ns B] veth1 10.19.0.2/24: udp-lat recv, ports 9000..9003
. ./lib.sh

require_cmd tc udp-lat awk
require_module sch_aoq
require_module sch_htb
two_hosts 19 quiet

RATE_BPS=50000000
MSG=64000
PART=1472
tcA() { ns_exec A tc "$@"; }

setup() {	# MODE: htb link, a fresh aoq with four pfifo lanes
	ns_exec A tc qdisc del dev veth0 root 2>/dev/null
	ns_run A tc qdisc add dev veth0 root handle 1: htb default 1 &&
	ns_run A tc class add dev veth0 parent 1: classid 1:1 htb \
		rate 50mbit ceil 50mbit burst 3k cburst 3k &&
	ns_run A tc qdisc add dev veth0 parent 1:1 handle 2: aoq mode "$1" &&
	for i in 1 2 3 4; do
		ns_run A tc class add dev veth0 parent 2: classid 2:$i aoq || return 1
	done
}

# bytes sent by the htb root, and by lane 2:N
root_bytes() {
	tcA -s -j qdisc show dev veth0 root | tr -d ' \n' |
		sed -n 's/.*"bytes":\([0-9]*\).*/\1/p' | head -n1
}
lane_bytes() {
	tcA -s class show dev veth0 classid "2:$1" |
		sed -n 's/.* bytes \([0-9]*\) drops.*/\1/p' | head -n1
}
now_us() { echo "${EPOCHREALTIME/./}"; }

# aoq_stat NAME: the aoq qdisc's first counter NAME
aoq_stat() { qdisc_stat A veth0 "$1" parent 1:1; }
aoq_drained() { test "$(aoq_stat qlen)" = 0; }
# what the receiver got of the TOTAL packets sent, summed over streams:
# its sequence gaps do not count packets after the last it saw
recv_losses() {	# TOTAL
	awk -v total="$1" '/^stream=/ { for (i = 1; i <= NF; i++) { split($i, kv, "=")
			if (kv[1] == "packets") p += kv[2]
			if (kv[1] == "lost") l += kv[2]
			if (kv[1] == "frames_incomplete") f += kv[2] } }
		END { printf "received %d of %d packets, %d in sequence gaps, frames incomplete %d",
			p, total, l, f }' "$TMP_DIR/recv.out"
}

recv_start() {	# DURATION_S [--frames]
	ns_bg B udp-lat recv --port 9000 --ports 4 --duration "$@" \
		--ready "$TMP_DIR/recv.ready" > "$TMP_DIR/recv.out" 2> "$TMP_DIR/recv.err"
	RECV_PID=$BG_PID
	wait_for 10 test -e "$TMP_DIR/recv.ready" || fatal "receiver did not start"
	rm -f "$TMP_DIR/recv.ready"
}

# --- 1. rounds: completion times ---------------------------------------------
ROUNDS=8
declare -A MEAN LAST
for mode in fbrr arr aoq pbrr; do
	setup $mode || fatal "cannot set up aoq mode $mode"
	recv_start 4 --frames --count $((ROUNDS * 4 * 44))
	ns_run A udp-lat send --dst 10.19.0.2 --port 9000 --streams 4 \
		--prio 2:1 --prio 2:2 --prio 2:3 --prio 2:4 --size $PART \
		--frame-bytes $MSG --frame-interval 60000 --gso --count $ROUNDS \
		> "$TMP_DIR/send.out" 2> "$TMP_DIR/send.err" ||
		fatal "sender: $(cat "$TMP_DIR/send.err")"
	bg_wait "$RECV_PID"
	# per stream: frames, frame_mean_us, frame_p50_us; mean of means, and
	# the largest of the streams' medians over the rounds (the round's
	# last message: a median, because the maximum of 32 messages rests on
	# one round, and one late round of fbrr, 45.3 ms against 41.3, failed
	# a clean run)
	read -r frames mean last <<< "$(awk '/^stream=/ {
			for (i = 1; i <= NF; i++) { split($i, kv, "=");
				if (kv[1] == "frames") f += kv[2];
				if (kv[1] == "frame_mean_us") { m += kv[2]; n++ }
				if (kv[1] == "frame_p50_us" && kv[2] > x) x = kv[2] }
		} END { printf "%d %.0f %.0f\n", f, n ? m / n : 0, x }' "$TMP_DIR/recv.out")"
	# What the qdisc sent holds at any speed: every frame, none dropped
	# (once its queue has drained: the receiver may have stopped first).
	wait_for 10 aoq_drained
	check_eq "$mode: frames aoq sent" $((ROUNDS * 4 * 44)) "$(aoq_stat packets)"
	check_eq "$mode: frames aoq dropped" 0 "$(aoq_stat drops)"
	# That they all reached the receiver's socket within its window does
	# not: a debug kernel's receiver once missed 4 messages of 32 in
	# arr's run, its mean completion 1.3 s against 26 ms here.
	xfail_on_slow check_eq "$mode: complete messages ($(recv_losses $((ROUNDS * 4 * 44))))" \
		$((ROUNDS * 4)) "$frames"
	MEAN[$mode]=$mean
	LAST[$mode]=$last
	log_info "$mode: mean message completion ${mean} us, last of a round (median) ${last} us"
	tcA -s qdisc show dev veth0 parent 1:1 | sed -n 's/^ *max_spread/  max_spread/p'
done
log_test "four 64 KB messages per round complete in every mode"

awk -v a="${MEAN[aoq]}" -v f="${MEAN[fbrr]}" 'BEGIN { exit !(a > 0 && a <= 0.75 * f) }'
xfail_on_slow check_err $? "aoq mean completion ${MEAN[aoq]} us is not <= 0.75 x fbrr ${MEAN[fbrr]} us"
log_info "aoq / fbrr mean completion: $(awk -v a="${MEAN[aoq]}" -v f="${MEAN[fbrr]}" 'BEGIN { printf "%.3f", a / f }')"
log_test "aoq mean message completion <= 0.75 x fbrr"

# the round's last message finishes when the link has sent all four
awk -v a="${LAST[aoq]}" -v f="${LAST[fbrr]}" 'BEGIN { d = a - f; if (d < 0) d = -d; exit !(d <= 0.05 * f) }'
xfail_on_slow check_err $? "a round's last message aoq ${LAST[aoq]} us vs fbrr ${LAST[fbrr]} us: not the same throughput"
log_test "same throughput: the last message of a round completes together"

# --- saturation helpers ---------------------------------------------------------
# A saturating sender sends a message every SAT_US, twice what a lane
# gets of the link when four share it (a 64000-byte message is 10.24 ms
# of 50 Mbit/s), and does not retry a send its lane's full queue refused:
# unpaced, each refused 64 KB send was built and cut again every 100 us,
# and four such senders kept the deterministic VM's CPU busy for nothing
# the shares show.
SAT_US=20000
senders_start() {	# SECONDS: four independent saturating senders
	local i
	SENDERS=()
	for i in 0 1 2 3; do
		ns_bg A udp-lat send --dst 10.19.0.2 --port $((9000 + i)) --stream $i \
			--prio 2:$((i + 1)) --size $PART --frame-bytes $MSG \
			--frame-interval $SAT_US --no-retry --gso --duration "$1" \
			> "$TMP_DIR/send$i.out" 2> "$TMP_DIR/send$i.err"
		SENDERS+=("$BG_PID")
	done
}
senders_wait() {
	local p
	for p in "${SENDERS[@]}"; do
		bg_wait "$p"
	done
}
# window SECONDS: sets UTIL (link busy, fraction) and SHARE[1..4] over it
declare -A B0 SHARE
window() {
	local i t0 t1 r0 r1 total=0
	for i in 1 2 3 4; do B0[$i]=$(lane_bytes $i); done
	r0=$(root_bytes); t0=$(now_us)
	sleep "$1"
	r1=$(root_bytes); t1=$(now_us)
	for i in 1 2 3 4; do
		SHARE[$i]=$(( $(lane_bytes $i) - B0[$i] ))
		total=$((total + SHARE[$i]))
	done
	UTIL=$(awk -v b=$((r1 - r0)) -v t=$((t1 - t0)) -v r=$RATE_BPS \
		'BEGIN { printf "%.3f", b * 8 / (t / 1e6) / r }')
	for i in 1 2 3 4; do
		SHARE[$i]=$(awk -v s="${SHARE[$i]}" -v t=$total 'BEGIN { printf "%.4f", t ? s / t : 0 }')
	done
}

# --- a sink for phases 2 to 5, which count at the qdisc ------------------------------
# (a receiver per phase would sit out its duration idle after the senders
# stop; in the deterministic VM idle guest time still costs host time)
ns_bg B udp-lat recv --port 9000 --ports 4 --duration 3600 \
	--ready "$TMP_DIR/sink.ready" > /dev/null 2>&1
wait_for 10 test -e "$TMP_DIR/sink.ready" || fatal "sink did not start"

# --- 2. saturation: throughput and byte shares -----------------------------------
declare -A UTIL_OF
for mode in fbrr aoq; do
	setup $mode || fatal "cannot set up aoq mode $mode"
	# Every lane is backlogged from its first 20-ms message, so 0.2 s
	# settles the queues; the senders stop 0.1 s after the window, not
	# 0.4 s (the shares were within 0.004 of 0.25 over 1.2 s; the window
	# stays 1.2 s, as one 64000-byte message is 0.009 of its bytes and
	# the tolerance 0.0125).
	senders_start 1.5
	sleep 0.2
	window 1.2
	UTIL_OF[$mode]=$UTIL
	log_info "$mode: link busy $UTIL, byte shares ${SHARE[1]} ${SHARE[2]} ${SHARE[3]} ${SHARE[4]}"
	awk -v u="$UTIL" 'BEGIN { exit !(u >= 0.95) }'
	xfail_on_slow check_err $? "$mode: link only $UTIL busy under saturation"
	for i in 1 2 3 4; do
		awk -v s="${SHARE[$i]}" 'BEGIN { exit !(s >= 0.2375 && s <= 0.2625) }'
		xfail_on_slow check_err $? "$mode: lane 2:$i got ${SHARE[$i]} of the bytes, not 0.25 within 5 %"
	done
	senders_wait
	tcA -s qdisc show dev veth0 parent 1:1 | sed -n 's/^ *max_spread/  max_spread/p'
	log_test "$mode: link >= 95 % busy, equal byte shares within 5 %"
done
awk -v a="${UTIL_OF[aoq]}" -v f="${UTIL_OF[fbrr]}" 'BEGIN { d = a - f; if (d < 0) d = -d; exit !(d <= 0.03) }'
xfail_on_slow check_err $? "aoq throughput ${UTIL_OF[aoq]} differs from fbrr ${UTIL_OF[fbrr]}"
log_test "same throughput under saturation (aoq vs fbrr)"

# --- 3. a lane behind a slow tbf child ------------------------------------------------
for mode in aoq pbrr; do
	setup $mode || fatal "cannot set up aoq mode $mode"
	ns_run A tc qdisc replace dev veth0 parent 2:1 handle 21: tbf \
		rate 5mbit burst 10k limit 300k || fatal "tbf child"
	# The link's busy fraction is what the scheduler does with a held
	# lane, not a sampling effect: 1.000 for aoq and 0.35 for pbrr over
	# 0.8 s against limits of 0.95 and 0.60, so 0.5 s tells them apart;
	# the 0.4 s before it lets the tbf's burst go and pbrr settle.
	senders_start 1.0
	sleep 0.4
	window 0.5
	UTIL_OF[$mode]=$UTIL
	log_info "$mode with lane 2:1 behind tbf 5mbit: link busy $UTIL, shares ${SHARE[1]} ${SHARE[2]} ${SHARE[3]} ${SHARE[4]}"
	senders_wait
done
awk -v u="${UTIL_OF[aoq]}" 'BEGIN { exit !(u >= 0.95) }'
xfail_on_slow check_err $? "aoq left the link idle behind a held lane: busy ${UTIL_OF[aoq]}"
awk -v u="${UTIL_OF[pbrr]}" 'BEGIN { exit !(u < 0.60) }'
xfail_on_slow check_err $? "pbrr kept the link busy (${UTIL_OF[pbrr]}) although it waits on the held lane"
log_test "held lane: aoq keeps the link >= 95 % busy, pbrr leaves it idle"

# --- 4. fairness with unequal messages --------------------------------------------
# Lane 2:1 sends 64 KB messages (44 frames), lane 2:2 one-frame messages,
# both at twice what they may get.  Opportunity fairness: aoq keeps the count spread
# within M (44 plus the odd unused visit; Lemma 2, so RF <= 2M), so the
# two lanes are offered and get about the same number of frames; arr and
# pbrr give each anchor its whole message, so lane 2:1 is offered 44
# opportunities for each one of lane 2:2.  max_spread is kept in mode aoq
# only: the other modes keep no VirtualCount, their counts say nothing.
# 0.4 s of sending: some 1700 frames on the link, 38 of the big lane's
# messages; the shares were 0.50 (aoq) and 0.025 (arr) over 0.8 s against
# limits of 0.40-0.60 and 0.10, and a message of 44 frames is 2.6 % of
# the 0.4 s's frames; M and the spread reach 44 with the first message.
qd_field() {	# FIELD of the aoq qdisc's statistics
	tcA -s qdisc show dev veth0 parent 1:1 |
		sed -n "s/.* $1 \([0-9]*\) .*/\1/p" | head -n1
}
lane_frames() {
	tcA -s class show dev veth0 classid "2:$1" |
		sed -n 's/.* frames \([0-9]*\) messages.*/\1/p' | head -n1
}
lane_offered() {
	tcA -s class show dev veth0 classid "2:$1" |
		sed -n 's/.* offered \([0-9]*\) used.*/\1/p' | head -n1
}
declare -A SPREAD MAXM SMALL OFFERED
for mode in fbrr arr aoq pbrr; do
	setup $mode || fatal "cannot set up aoq mode $mode"
	# twice what either lane may get: the big one a message every
	# 10.8 ms under arr, the small one some 2100 frames a second under
	# aoq (half of the link's)
	ns_bg A udp-lat send --dst 10.19.0.2 --port 9000 --stream 0 --prio 2:1 \
		--size $PART --frame-bytes $MSG --frame-interval 5000 --no-retry --gso \
		--duration 0.4 > "$TMP_DIR/big.out" 2> "$TMP_DIR/big.err"
	BIG=$BG_PID
	ns_bg A udp-lat send --dst 10.19.0.2 --port 9001 --stream 1 --prio 2:2 \
		--size $PART --rate 5000 --no-retry --duration 0.4 \
		> "$TMP_DIR/small.out" 2> "$TMP_DIR/small.err"
	SMALLP=$BG_PID
	bg_wait "$BIG"
	bg_wait "$SMALLP"
	f1=$(lane_frames 1)
	f2=$(lane_frames 2)
	o1=$(lane_offered 1)
	o2=$(lane_offered 2)
	SPREAD[$mode]=$(qd_field max_spread)
	MAXM[$mode]=$(qd_field max_msg_opps)
	# "none" when nothing was counted, which no share check below takes
	SMALL[$mode]=$(awk -v a="$f1" -v b="$f2" 'BEGIN { if (a + b) printf "%.3f", b / (a + b); else print "none" }')
	OFFERED[$mode]=$(awk -v a="$o1" -v b="$o2" 'BEGIN { if (a + b) printf "%.3f", b / (a + b); else print "none" }')
	log_info "$mode, 44-frame vs 1-frame messages: max_spread ${SPREAD[$mode]}, M ${MAXM[$mode]}, offered $o1 / $o2, frames $f1 / $f2, small lane's share ${SMALL[$mode]}"
done
[ "${MAXM[aoq]:-999999}" -ge 44 ] && [ "${MAXM[aoq]}" -le 100 ]
check_err $? "aoq: M ${MAXM[aoq]} is not the 44 frames of a message plus a few unused visits"
[ "${SPREAD[aoq]:-999999}" -le "${MAXM[aoq]:-0}" ]
check_err $? "aoq: opportunity spread ${SPREAD[aoq]} above M ${MAXM[aoq]} (Lemma 2)"
for mode in fbrr arr pbrr; do
	check_eq "$mode: max_spread (kept in mode aoq only)" 0 "${SPREAD[$mode]}"
done
awk -v s="${OFFERED[aoq]}" 'BEGIN { exit !(s != "none" && s >= 0.40 && s <= 0.60) }'
xfail_on_slow check_err $? "aoq: the one-frame lane was offered ${OFFERED[aoq]} of the opportunities, not about half"
awk -v s="${SMALL[aoq]}" 'BEGIN { exit !(s != "none" && s >= 0.40 && s <= 0.60) }'
xfail_on_slow check_err $? "aoq: the one-frame lane got ${SMALL[aoq]} of the frames, not about half"
awk -v s="${OFFERED[arr]}" 'BEGIN { exit !(s != "none" && s < 0.10) }'
xfail_on_slow check_err $? "arr: the one-frame lane was offered ${OFFERED[arr]} of the opportunities"
awk -v s="${SMALL[arr]}" 'BEGIN { exit !(s != "none" && s < 0.10) }'
xfail_on_slow check_err $? "arr: the one-frame lane got ${SMALL[arr]} of the frames"
log_test "unequal messages: aoq's spread stays within M, arr favours the big lane"

# --- 5. weights ---------------------------------------------------------------------
# Lanes 2:1 (weight 1) and 2:2 (weight 3), both sending 64 KB messages
# every 5 ms, more than either gets: every opportunity is used, so frames
# follow opportunities, 1:3.
setup aoq || fatal "cannot set up aoq"
ns_run A tc class change dev veth0 classid 2:2 aoq weight 3 || fatal "weight 3"
for i in 0 1; do
	ns_bg A udp-lat send --dst 10.19.0.2 --port $((9000 + i)) --stream $i \
		--prio 2:$((i + 1)) --size $PART --frame-bytes $MSG --frame-interval 5000 \
		--no-retry --gso --duration 0.8 > "$TMP_DIR/w$i.out" 2> "$TMP_DIR/w$i.err"
	W[$i]=$BG_PID
done
sleep 0.2
f1=$(lane_frames 1); f2=$(lane_frames 2)
sleep 0.5
f1=$(( $(lane_frames 1) - f1 )); f2=$(( $(lane_frames 2) - f2 ))
bg_wait "${W[0]}"
bg_wait "${W[1]}"
share=$(awk -v a="$f1" -v b="$f2" 'BEGIN { printf "%.3f", (a + b) ? b / (a + b) : 0 }')
log_info "weights 1:3: frames $f1 / $f2 in 0.5 s, weight-3 lane's share $share"
awk -v s="$share" 'BEGIN { exit !(s >= 0.70 && s <= 0.80) }'
xfail_on_slow check_err $? "weight 3 lane got $share of the frames, not 0.75 within 0.05"
log_test "weighted lanes: frames in proportion 1:3"

ns_run A tc qdisc del dev veth0 root
exit $EXIT_STATUS
