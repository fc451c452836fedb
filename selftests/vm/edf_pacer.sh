#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
# vm: deterministic
#
# edf's pacer (``rate``) and the GSO packets a rate class keeps whole:
#
#  1. A UDP sender with UDP_SEGMENT keeps the qdisc backlogged with GSO
#     packets of 60 segments of 500 bytes, each 30042 bytes in one skb
#     but 32520 on the wire (the UDP, IP and Ethernet headers once per
#     segment).  Over 4 s of the deterministic VM's clock the qdisc's
#     bytes sent (tc -s, the wire's count) come at the pacer's rate; the
#     pacer once counted the skb's length, one set of headers per
#     packet, and sent 8 % over its rate.
#  2. The class those packets went through counts each one's segments
#     as the qdisc does (it counted one per GSO packet, 60 times fewer).
#  3. With the pacer at 8 kbit/s, a first GSO packet sets the next
#     departure 32 s ahead; "rate 1gbit" then sends the two queued behind
#     it at once, with no new packet to run the qdisc (they once waited
#     for the old rate's 32 s).
#
#   [ns A] veth0 (edf rate R, class 1:1 rate 5mbit, default 1) --> veth1 [ns B]
#     10.26.0.1/24  udp-lat send --gso                               10.26.0.2/24
. ./lib.sh

require_cmd tc udp-lat
require_module sch_edf
two_hosts 26 quiet

SEG=500			# UDP payload per segment
SEGS=60			# segments per GSO packet (UDP_SEGMENT allows 64)
WIRE=$((SEGS * (SEG + 8 + 20 + 14)))	# 32520 bytes on the wire
RATE_BPS=10000000

ns_bg B udp-lat recv --port 9000 --duration 3600 --ready "$TMP_DIR/recv.ready" \
	> /dev/null 2> "$TMP_DIR/recv.err"
wait_for 10 test -e "$TMP_DIR/recv.ready" || fatal "receiver did not start"

now_ns() { echo "${EPOCHREALTIME/./}000"; }	# busybox date has no %N
qd_stat() {	# FIELD: a number from the root qdisc's statistics
	ns_exec A tc -s -j qdisc show dev veth0 root | tr -d ' \n' |
		sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" | head -n1
}
class_pkts() {	# packets class 1:1 sent (tc 6.1 prints classes in text)
	ns_exec A tc -s class show dev veth0 classid 1:1 |
		sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' | head -n1
}
edf_setup() {	# RATE: a fresh edf pacing at RATE, class 1:1 for all packets
	ns_exec A tc qdisc del dev veth0 root 2>/dev/null
	ns_run A tc qdisc add dev veth0 root handle 1: edf rate "$1" default 1 &&
	ns_run A tc class add dev veth0 parent 1: classid 1:1 edf rate 5mbit ||
		fatal "cannot set up edf at $1"
}
send_gso() {	# INTERVAL_US COUNT|-: GSO packets, COUNT of them or until killed
	local n=()

	[[ $2 != - ]] && n=(--count "$2")
	ns_bg A udp-lat send --dst 10.26.0.2 --port 9000 --size $SEG \
		--frame-bytes $((SEGS * SEG)) --frame-interval "$1" --gso \
		--duration 60 "${n[@]}" > /dev/null 2> "$TMP_DIR/send.err"
	SEND_PID=$BG_PID
}

# --- 1 and 2: the rate on the wire, the class's packets ------------------------------
edf_setup $((RATE_BPS / 1000))kbit
# a packet per 5 ms against 26 ms at the rate: backlogged from the
# start, the socket's buffer holding the sender back
send_gso 5000 -
sleep 1
b0=$(qd_stat bytes) t0=$(now_ns)
sleep 4
b1=$(qd_stat bytes) t1=$(now_ns)
kill "$SEND_PID" 2>/dev/null
wait "$SEND_PID" 2>/dev/null
# per mille of the rate: 1000 is exact; a packet more or less in the
# window is 7
permille=$(( (b1 - b0) * 8 * 1000000000 / (t1 - t0) * 1000 / RATE_BPS ))
log_info "$((b1 - b0)) bytes in $(( (t1 - t0) / 1000000 )) ms: $permille per mille of the rate"
# over the rate is the pacer's doing at any speed; under it, a sender
# too slow to keep the queue full (the debug kernel: 679)
((permille <= 1015))
check_err $? "GSO packets at rate: $permille per mille of the rate, want at most 1015"
((permille >= 950))
xfail_on_slow check_err $? "GSO packets at rate: $permille per mille of the rate, want at least 950"
# the premise of this part and the next: edf kept the GSO packets whole
# (cut at enqueue, each frame would be its own wire length and its own
# packet, and both would pass whatever the pacer and the class counted)
check_eq "GSO packets edf cut at enqueue" 0 "$(qd_stat gso_segmented)"
log_test "pacer: a whole GSO packet's headers count once per segment"

wait_for 20 eval '[ "$(qd_stat qlen)" = 0 ]' || fatal "the queue did not drain"
pkts=$(qd_stat packets) cpkts=$(class_pkts)
log_info "qdisc $pkts packets, class 1:1 $cpkts"
((pkts >= 100 * SEGS))
check_err $? "the qdisc sent $pkts packets, want at least $((100 * SEGS))"
check_eq "class 1:1 packets against the qdisc's" "$pkts" "$cpkts"
log_test "a class counts a whole GSO packet's segments"

# --- 3. a new rate applies to the packets already waiting ----------------------------
edf_setup 8kbit
send_gso 1000 3
bg_wait "$SEND_PID"
check_eq "queued behind the first packet" 2 "$(qd_stat qlen)"
ns_run A tc qdisc change dev veth0 root handle 1: edf rate 1gbit ||
	fatal "rate 1gbit"
wait_for 2 eval '[ "$(qd_stat qlen)" = 0 ]'
check_err $? "after rate 1gbit: $(qd_stat qlen) packets still queued"
log_test "a new rate sends what the old one held back"

exit $EXIT_STATUS
