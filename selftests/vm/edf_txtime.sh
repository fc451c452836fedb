#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 150
# vm: deterministic
#
# SO_TXTIME deadlines, under full best-effort load:
#  - frame class ("frame 10ms smooth"): frames of 10 parts sent in 10 calls
#    carry the deadlines D(Pi) = max(D(Pi-1), now) + 10 ms / 10 computed by
#    the application (edf_frame.h, udp-lat --txtime-frame) and complete in
#    10 ms +- 10 % at least 99 % of the time.  Negative control: without
#    txtimes every call is a one-packet frame due 10 ms after it, the
#    frame takes 100 ms or more, and fewer than 10 % are in the window;
#  - txtime class: packets due 5 ms after they are sent leave in time
#    (deadline_misses 0) and far ahead of the best-effort queue; packets
#    sent 2 ms after their txtime are all counted as deadline misses,
#    each late by at least those 2 ms.
#  - a hostile socket stamps every packet SO_TXTIME 1 (CLOCK_MONOTONIC,
#    any user may) and sends as fast as it can into txtime class 1:4,
#    while a 0.8 Mbit/s flow of regulated class 1:6 (rate 2mbit) has
#    work falling due.  A txtime in the past is ordered at now, so the
#    victim waits at most for what the hostile flow already queued
#    (flow_limit 100 packets, 58 ms at 20 Mbit/s): it sends all it
#    wants and nothing of it waits 100 ms.  Every late txtime is counted
#    in txtime_late (tc -s, tc -j).  Before the fix the hostile flow's
#    deadline stayed 1 and it headed the regulated VC for as long as it
#    kept sending: the victim got nothing through.
#
#   [ns A] veth0 ------------------------------------> veth1 [ns B]
#     10.14.0.1/24                                      10.14.0.2/24
#     edf rate 20mbit: 1:2 frame 10ms smooth  <- frames       (port 9402)
#                      1:3 rate 10mbit besteffort <- bulk     (port 9403)
#                      1:4 txtime             <- now + 5 ms   (port 9404)
#                      1:5 txtime             <- now - 2 ms   (port 9405)
#                      1:4 txtime             <- tstamp 1     (port 9407)
#                      1:6 rate 2mbit         <- victim       (port 9406)
. ./lib.sh

require_cmd tc udp-lat
require_module sch_edf
two_hosts 14 quiet

ns_run A tc qdisc add dev veth0 root handle 1: edf rate 20mbit || fatal "edf"
ns_run A tc class add dev veth0 parent 1: classid 1:2 edf frame 10ms smooth || fatal "1:2"
ns_run A tc class add dev veth0 parent 1: classid 1:3 edf rate 10mbit besteffort || fatal "1:3"
ns_run A tc class add dev veth0 parent 1: classid 1:4 edf txtime || fatal "1:4"
ns_run A tc class add dev veth0 parent 1: classid 1:5 edf txtime || fatal "1:5"
ns_run A tc class add dev veth0 parent 1: classid 1:6 edf rate 2mbit || fatal "1:6"

RUN=4		# seconds of measurement per loaded phase
# A measured receiver listens RUN + LINGER seconds from when it is ready,
# the sender RUN from its start: on a slow kernel (make check-debug) that
# start alone can take longer than 2 s
LINGER=2
[[ $FQ_SLOW = 1 ]] && LINGER=30
DST=10.14.0.2

field() { sed -n "s/.*\b$1=\([0-9.]*\).*/\1/p" | head -n1; }

# cstat CLASS KEY: the word after KEY in the class's `tc -s class show`
# (cstat 1:4 deadline_misses)
cstat() {
	ns_exec A tc -s class show dev veth0 classid "$1" |
		awk -v k="$2" '{ for (i = 1; i < NF; i++) if ($i == k) { print $(i + 1); exit } }'
}

# class_sent CLASS: packets sent ("Sent 5121000 bytes 40012 pkt")
class_sent() { cstat "$1" bytes; }

# backlog_pkts qdisc | class classid CLASS: packets queued ("backlog
# 16458b 11p")
backlog_pkts() {
	ns_exec A tc -s "$1" show dev veth0 "${@:2}" |
		awk '$1 == "backlog" { sub(/p$/, "", $3); print $3; exit }'
}

qdisc_is_empty() { [ "$(backlog_pkts qdisc)" = 0 ]; }
bulk_is_backlogged() { [ "$(backlog_pkts class classid 1:3)" -ge 50 ] 2>/dev/null; }

# to_ns TIME: a time as tc prints it (0ns, 41us, 2.05ms, 1e+03us) in ns
to_ns() {
	awk -v t="$1" 'BEGIN {
		n = t; u = t
		sub(/[a-z]+$/, "", n); sub(/^[0-9.e+-]+/, "", u)
		m = u == "s" ? 1e9 : u == "ms" ? 1e6 : u == "us" ? 1e3 : 1
		printf "%.0f\n", n * m
	}'
}

# run_phase NAME PORT "RECV OPTIONS" SEND OPTIONS...: the bulk saturating
# best-effort class 1:3, then a receiver on PORT and the measured sender
# on top; the bulk stops after it.  Output in $TMP_DIR/NAME.{recv,bulk,send}.
# Each step waits for the one before, not for a fixed time: on a slow
# kernel a sender took more than 8 s to start, and a bulk or receiver
# with a fixed duration had ended before the measured sender began.
run_phase() {
	local name=$1 port=$2 recv_opts=$3 r1 r2 bulk
	shift 3

	# what the last phase left has drained
	wait_for 5 qdisc_is_empty || fatal "$name: the qdisc still holds $(backlog_pkts qdisc) packets"
	ns_bg B udp-lat recv --port 9403 --duration $((RUN + 600)) \
		--ready "$TMP_DIR/$name.r2" > "$TMP_DIR/$name.bulk"
	r2=$BG_PID
	wait_for 10 test -e "$TMP_DIR/$name.r2" || fatal "$name: the bulk's receiver did not start"
	# twice the link's 1733 frames a second, refusals not retried (a
	# retry every 100 us costs the VM more than the traffic does)
	ns_bg A udp-lat send --dst $DST --port 9403 --size 1400 \
		--duration $((RUN + 600)) --prio 1:3 --rate 3500 --no-retry > /dev/null
	bulk=$BG_PID
	# its single flow fills up to flow_limit (100) within a few ms once
	# it runs, if it can send faster than the class's 10 Mbit/s: a debug
	# kernel's sender (make check-debug) could not, and the phase then
	# runs without the load (what it measures is reported XFAIL there;
	# its counts are still checked)
	if ! wait_for 10 bulk_is_backlogged; then
		[[ $FQ_SLOW = 1 ]] || fatal "$name: the best-effort queue did not build up"
		xfail_on_slow check_err 1 \
			"$name: the best-effort queue did not build up ($(backlog_pkts class classid 1:3) packets queued)"
	fi
	# shellcheck disable=SC2086 # recv_opts is a list of options
	ns_bg B udp-lat recv --port "$port" --duration $((RUN + LINGER)) $recv_opts \
		--ready "$TMP_DIR/$name.r1" > "$TMP_DIR/$name.recv"
	r1=$BG_PID
	wait_for 10 test -e "$TMP_DIR/$name.r1" || fatal "$name: the receiver did not start"
	ns_run A udp-lat send --dst $DST --port "$port" --duration "$RUN" "$@" \
		> "$TMP_DIR/$name.send"
	check_err $? "$name: sender failed"
	kill "$bulk" 2>/dev/null
	bg_wait "$bulk"
	bg_wait "$r1"
	check_err $? "$name: receiver failed"
	# the bulk's receiver prints what it got when stopped
	kill "$r2" 2>/dev/null
	bg_wait "$r2"
	log_info "$name sender: $(cat "$TMP_DIR/$name.send")"
	log_info "$name receiver: $(head -n1 "$TMP_DIR/$name.recv")"
}

FRAME_OPTS=(--size 1000 --frame-bytes 10000 --frame-interval 40000 --prio 1:2)

# --- frames of 10 calls with txtime deadlines ----------------------------------------
run_phase frames 9402 "--frame-window 9000:11000" "${FRAME_OPTS[@]}" --txtime-frame 10000
frames=$(field frames < "$TMP_DIR/frames.recv")
inwin=$(field frames_in_window < "$TMP_DIR/frames.recv")
log_info "txtime frames within 10 ms +- 10 %: $inwin of $frames"
[ "${frames:-0}" -ge $((RUN * 25 * 9 / 10)) ]	# one per 40 ms
xfail_on_slow check_err $? "only ${frames:-0} frames measured"
awk -v w="${inwin:-0}" -v n="${frames:-0}" 'BEGIN { exit !(n > 0 && w >= 0.99 * n) }'
xfail_on_slow check_err $? "$inwin of $frames frames within 9..11 ms, want 99 %"
log_test "frames sent in 10 calls with txtime: 10 ms +- 10 % for 99 %"

# --- the same frames without txtime: each call is a frame of its own -------------------
run_phase plain 9402 "--frame-window 9000:11000" "${FRAME_OPTS[@]}"
frames=$(field frames < "$TMP_DIR/plain.recv")
inwin=$(field frames_in_window < "$TMP_DIR/plain.recv")
p50=$(field frame_p50_us < "$TMP_DIR/plain.recv")
log_info "frames without txtime within 10 ms +- 10 %: $inwin of $frames (p50 $p50 us)"
[ "${frames:-0}" -ge 20 ]
xfail_on_slow check_err $? "only ${frames:-0} frames measured"
awk -v w="${inwin:-0}" -v n="${frames:-0}" 'BEGIN { exit !(n > 0 && w < 0.1 * n) }'
xfail_on_slow check_err $? "$inwin of $frames frames within 9..11 ms without txtime, want fewer than 10 %"
awk -v p="${p50:-0}" 'BEGIN { exit !(p >= 99000) }'
xfail_on_slow check_err $? "frame p50 ${p50} us without txtime, want >= 99 ms (10 parts x 10 ms)"
log_test "without txtime the 10 calls take 10 x 10 ms (negative control)"

# --- txtime class: due 5 ms after the send, under load ---------------------------------
# From here 2 s of measurement, not 4: the frame phases above keep 4 (the
# 99 % rule allows a miss only from 100 frames on; without txtime 49
# frames completed, 20 required), but here 1000 packets due 5 ms ahead
# show a miss as well as 2000 (none seen; p50 0.3 ms against best
# effort's 56 ms, 10x required), and below the victim's p99 (57.8 ms
# against 100) is the hostile backlog's depth, reached within
# milliseconds, and its 1000 datagrams show starvation (it would send a
# few hundred: its flow_limit and socket buffer, whatever the RUN).
RUN=2
run_phase ahead 9404 "" --size 200 --interval 2000 --txtime-offset 5000 --prio 1:4
ns_exec A tc -s class show dev veth0 | sed 's/^/INFO: /'
sent=$(field sent < "$TMP_DIR/ahead.send")
got=$(field packets < "$TMP_DIR/ahead.recv")
p50=$(field lat_p50_us < "$TMP_DIR/ahead.recv")
bulk_p50=$(field lat_p50_us < "$TMP_DIR/ahead.bulk")
misses=$(cstat 1:4 deadline_misses)
log_info "txtime now + 5 ms: $misses misses of $sent, p50 $p50 us; best-effort p50 $bulk_p50 us"
[ "${sent:-0}" -ge $((RUN * 500 * 3 / 4)) ]
xfail_on_slow check_err $? "only ${sent:-0} of about $((RUN * 500)) packets sent"
check_eq "packets the class sent" "$sent" "$(class_sent 1:4)"
check_eq "packets received" "$sent" "$got"
xfail_on_slow check_eq "deadline misses of class 1:4" 0 "$misses"
awk -v p="${p50:-0}" -v b="${bulk_p50:-0}" 'BEGIN { exit !(p > 0 && b >= 10 * p) }'
xfail_on_slow check_err $? "latency p50 ${p50} us is not 10x below the best-effort p50 ${bulk_p50} us"
log_test "txtime class: due now + 5 ms, no misses, ahead of best effort"

# --- txtime class: already late ------------------------------------------------------
# A txtime in the past is ordered at the time the packet came (it cannot
# jump ahead of work already due): each is counted in txtime_late and
# leaves at once, so it is late by the little it waited here, not by the
# 2 ms it was late on arrival.
COUNT=200
ns_bg B udp-lat recv --port 9405 --duration 30 --count $COUNT \
	--ready "$TMP_DIR/late.r" > "$TMP_DIR/late.recv"
recv=$BG_PID
wait_for 10 test -e "$TMP_DIR/late.r" || fatal "late: receiver did not start"
ns_run A udp-lat send --dst $DST --port 9405 --size 200 --interval 1000 --count $COUNT \
	--txtime-offset -2000 --prio 1:5 > "$TMP_DIR/late.send"
check_err $? "late: sender failed"
bg_wait "$recv"
check_err $? "late: receiver did not get $COUNT packets"
check_eq "packets the class sent" $COUNT "$(class_sent 1:5)"
check_eq "late txtimes of class 1:5" $COUNT "$(cstat 1:5 txtime_late)"
late=$(cstat 1:5 max_lateness)
late_ns=$(to_ns "$late")
log_info "txtime now - 2 ms: max_lateness $late ($late_ns ns)"
[ -n "$late_ns" ] && [ "$late_ns" -lt 1000000 ]
xfail_on_slow check_err $? "max_lateness $late, want below 1 ms: a late txtime is ordered at now"
log_test "txtime class: packets past their txtime are counted and ordered at now"

# --- a hostile socket: SO_TXTIME 1 on every packet -------------------------------------
# --txtime-offset -86400 s from a clock that started at boot gives 1
# (as run_phase: the hostile sender runs until stopped, each step waits
# for the one before)
wait_for 5 qdisc_is_empty || fatal "hostile: the qdisc still holds $(backlog_pkts qdisc) packets"
ns_bg B udp-lat recv --port 9407 --duration $((RUN + 600)) \
	--ready "$TMP_DIR/hostile.r" > /dev/null
rhostile=$BG_PID
wait_for 10 test -e "$TMP_DIR/hostile.r" || fatal "hostile: its receiver did not start"
late_before=$(cstat 1:4 txtime_late)
sent_before=$(class_sent 1:4)
ns_bg A udp-lat send --dst $DST --port 9407 --size 1400 --duration $((RUN + 600)) \
	--txtime-offset -86400000000 --prio 1:4 --rate 3500 --no-retry > "$TMP_DIR/hostile.send"
hostile=$BG_PID
hostile_is_backlogged() { [ "$(backlog_pkts class classid 1:4)" -ge 50 ] 2>/dev/null; }
# as the bulk in run_phase: a debug kernel's sender may not outrun the link
if ! wait_for 10 hostile_is_backlogged; then
	[[ $FQ_SLOW = 1 ]] || fatal "hostile: its queue did not build up"
	xfail_on_slow check_err 1 \
		"hostile: its queue did not build up ($(backlog_pkts class classid 1:4) packets queued)"
fi
# On a slow kernel the victim's sender once took 37 s for its RUN under
# the hostile load, past the receiver's RUN + LINGER: its last datagrams
# found no socket.  There the receiver listens until the qdisc has sent
# everything (below), and is stopped then.
listen=$((RUN + LINGER))
[[ $FQ_SLOW = 1 ]] && listen=600
ns_bg B udp-lat recv --port 9406 --duration $listen \
	--ready "$TMP_DIR/victim.r" > "$TMP_DIR/victim.recv"
rvictim=$BG_PID
wait_for 10 test -e "$TMP_DIR/victim.r" || fatal "hostile: the victim's receiver did not start"
ns_run A udp-lat send --dst $DST --port 9406 --size 200 --interval 2000 --duration "$RUN" \
	--prio 1:6 > "$TMP_DIR/victim.send"
check_err $? "hostile: the victim's sender failed"
# the victim ran under the hostile load throughout: its sender had not
# stopped (an error would have ended it)
still=$(kill -0 $hostile 2>/dev/null && echo yes)
kill $hostile 2>/dev/null
bg_wait $hostile
if [[ $FQ_SLOW = 1 ]]; then
	wait_for 5 qdisc_is_empty
	sleep 2
	kill $rvictim 2>/dev/null
fi
bg_wait $rvictim
kill $rhostile 2>/dev/null
bg_wait $rhostile
# what the hostile socket still had queued leaves before the counts
wait_for 5 qdisc_is_empty || fatal "hostile: the qdisc still holds $(backlog_pkts qdisc) packets"
log_info "victim sender: $(cat "$TMP_DIR/victim.send")"
log_info "victim receiver: $(head -n1 "$TMP_DIR/victim.recv")"
log_info "hostile sender: $(cat "$TMP_DIR/hostile.send")"
check_eq "the hostile sender still sending after the victim" yes "$still"
sent=$(field sent < "$TMP_DIR/victim.send")
got=$(field packets < "$TMP_DIR/victim.recv")
p99=$(field lat_p99_us < "$TMP_DIR/victim.recv")
# starved, its flow fills up (flow_limit) and the sender waits: it would
# send a few hundred of its RUN x 500
[ "${sent:-0}" -ge $((RUN * 500 * 9 / 10)) ]
xfail_on_slow check_err $? "the victim sent ${sent:-0} of $((RUN * 500)): starved"
check_eq "victim packets received" "$sent" "$got"
awk -v p="${p99:-0}" 'BEGIN { exit !(p > 0 && p < 100000) }'
xfail_on_slow check_err $? "victim p99 latency ${p99} us, want below 100 ms (the hostile backlog is 58 ms)"
hsent=$(( $(class_sent 1:4) - sent_before ))
late_now=$(cstat 1:4 txtime_late)
check_eq "late txtimes of class 1:4: each hostile packet" \
	"$hsent" "$(( ${late_now:-0} - ${late_before:-0} ))"
qlate=$(ns_exec A tc -s qdisc show dev veth0 | awk '{ for (i = 1; i < NF; i++) if ($i == "txtime_late") { print $(i + 1); exit } }')
jlate=$(ns_exec A tc -s -j qdisc show dev veth0 | tr -d ' \n' | sed -n 's/.*"txtime_late":\([0-9]*\).*/\1/p')
check_eq "qdisc txtime_late in tc -s and tc -j" "$qlate" "$jlate"
[ "${qlate:-0}" -ge $((hsent + COUNT)) ]
check_err $? "qdisc txtime_late ${qlate} below the $((hsent + COUNT)) late packets sent"
log_test "a socket stamping SO_TXTIME 1 does not starve a flow whose work is due"

exit $EXIT_STATUS
