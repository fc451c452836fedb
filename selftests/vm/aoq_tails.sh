#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# A GSO message whose last segment the lane's child drops: aoq counts it
# in tails_lost, and the message ends with the last frame the child took
# (the lane is not left busy until its stall time).  The lane's child
# has room for 10 of a message's 20 frames; aoq cuts the message at
# enqueue and offers its 20 frames in that one call, before any leaves,
# so which frames fit does not depend on the host's speed.  Three
# children, three ways of dropping:
#
#  - pfifo refuses the frames it has no room for (NET_XMIT_DROP): the
#    tail is lost, once per message;
#  - sfq takes each frame and drops its flow's newest, the frame itself,
#    answering NET_XMIT_CN: the tail is lost all the same (aoq did not
#    count it: it took every NET_XMIT_CN for "the frame was kept");
#  - fq_codel takes each frame and drops its flow's oldest, also with
#    NET_XMIT_CN: the tail is kept and ends its message, nothing is lost.
#
#   [ns A] veth0 (aoq 1:, one lane 1:1, CHILD limit 10) ----> veth1 [ns B]
#     10.25.0.1/24  udp-lat: 3 GSO messages of 20 frames      10.25.0.2/24
. ./lib.sh

require_cmd tc udp-lat
require_module sch_aoq
require_module sch_sfq
require_module sch_fq_codel
two_hosts 25 quiet

MESSAGES=3
PARTS=20
ROOM=10

# a listener, so that the sends are not refused by port unreachables
ns_bg B udp-lat recv --port 9000 --duration 3600 --ready "$TMP_DIR/recv.ready" \
	> /dev/null 2> "$TMP_DIR/recv.err"
wait_for 10 test -e "$TMP_DIR/recv.ready" || fatal "receiver did not start"

qd_stat() {	# FIELD: a number from the root qdisc's statistics
	ns_exec A tc -s -j qdisc show dev veth0 root | tr -d ' \n' |
		sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p" | head -n1
}
lane_stat() {	# FIELD: a number from lane 1:1's statistics (tc 6.1 prints
		# a class in text, -j or not)
	ns_exec A tc -s class show dev veth0 classid 1:1 |
		sed -n "s/.* $1 \([0-9]*\).*/\1/p" | head -n1
}
qdisc_is_empty() { [[ $(qd_stat qlen) == 0 ]]; }

# messages CHILD...: a fresh aoq whose one lane has CHILD, and the
# messages sent through it
messages() {
	ns_exec A tc qdisc del dev veth0 root 2>/dev/null
	ns_run A tc qdisc add dev veth0 root handle 1: aoq default 1 &&
	ns_run A tc class add dev veth0 parent 1: classid 1:1 aoq &&
	ns_run A tc qdisc add dev veth0 parent 1:1 handle 10: "$@" ||
		fatal "cannot set up aoq with $1"
	ns_run A udp-lat send --dst 10.25.0.2 --port 9000 --size 1472 \
		--frame-bytes $((PARTS * 1472)) --frame-interval 20000 --gso \
		--count $MESSAGES > /dev/null 2> "$TMP_DIR/send.err" ||
		fatal "sender: $(cat "$TMP_DIR/send.err")"
	wait_for 10 qdisc_is_empty
	check_eq "$1: frames queued at the end" 0 "$(qd_stat qlen)"
	check_eq "$1: GSO packets cut" $MESSAGES "$(qd_stat gso_segmented)"
	# no message is left going on: the lane ended each one
	check_eq "$1: lanes still active" 0 "$(qd_stat active_lanes)"
}

messages pfifo limit $ROOM
check_eq "pfifo: frames sent" $((MESSAGES * ROOM)) "$(lane_stat frames)"
check_eq "pfifo: frames dropped" $((MESSAGES * (PARTS - ROOM))) "$(lane_stat drops)"
check_eq "pfifo: tails lost" $MESSAGES "$(qd_stat tails_lost)"
log_test "a child that refuses the tail: tails_lost counts it"

messages sfq limit $ROOM
check_eq "sfq: frames sent" $((MESSAGES * ROOM)) "$(lane_stat frames)"
check_eq "sfq: frames dropped" $((MESSAGES * (PARTS - ROOM))) "$(lane_stat drops)"
check_eq "sfq: tails lost" $MESSAGES "$(qd_stat tails_lost)"
log_test "a child that takes the tail and drops it (sfq): tails_lost counts it"

messages fq_codel limit $ROOM
sent=$(lane_stat frames)
((sent >= MESSAGES && sent < MESSAGES * PARTS))
check_err $? "fq_codel: $sent frames sent, not between $MESSAGES and $((MESSAGES * PARTS))"
check_eq "fq_codel: tails lost" 0 "$(qd_stat tails_lost)"
log_test "a child that keeps the tail and drops older frames: no tail lost"

exit $EXIT_STATUS
