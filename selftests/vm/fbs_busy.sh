#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# vm: deterministic
#
# FBS with every host sending in every slot (Documentation/fbs.rst), and
# what the switch's wormhole mode does for its feedback.  Three hosts on
# one vcsw run a two-slot schedule in which each sends to one of the
# others in each slot (A to B, B to C, C to A, then the other way round:
# conflict-free and self-synchronizing, fbs-sched check says), more
# traffic offered than the slots carry.  Credits on, one-frame input
# buffers, deep output buffers (64k, some forty frames), V0's clock 2 %
# slow once the frames flow.
#
# 1. Wormhole on: each host's next frame waits for its last one's
#    credits, which the switch holds while the output is busy.  Every
#    slot carries a frame, the hosts ahead of V0 are held (they stall),
#    and the frames stay in their slots (at most 1 % out).  With no slot
#    idle, a hold too small to act on passes to the next slot: these
#    waits add up to feedback (fbs_feedback_held()'s gated time).
# 2. Wormhole turned off on the running switch: the output buffers take
#    the frames as they come, so nothing holds the hosts ahead (they
#    stall less than a tenth as often), and every host receives frames
#    out of their slots, as with no feedback at all.  The frames the
#    switch held when it changed go on: traffic keeps flowing on every
#    host.
#
# Counts over windows of guest time are asserted, no rate: the
# deterministic VM's clock is its instruction count.
#
#   [V0] eth0 --- p0 -+
#   [V1] eth0 --- p1 -+- [S] sw0 (advanced, 10mbit, buffer 64k, wormhole on)
#   [V2] eth0 --- p2 -+
. ./lib.sh
. ./fbs_lib.sh

require_cmd ip tc udp-lat fbs-sched fbs-boot

# a 1462-byte frame takes 1.17 ms at 10 Mbit/s; 80 us for its credits
# to come back (fbs_verify step 3)
FBS_TC="--slot 1250us --rate 10mbit --verify --delay 20us"
fbs_fabric 3 arch advanced rate 10mbit buffer 64k wormhole on
HOSTS=$FBS_HOSTS
for i in $HOSTS; do
	ns_run S ip link set p$i type vcsw_slave credits on in_buffer 1536 || fatal "credits p$i"
done

printf 'A B C\nB C A\nC A B\n' > "$TMP_DIR/sched"
fbs-sched check "$TMP_DIR/sched" > "$TMP_DIR/check.out"
check_err $? "fbs-sched check: $(cat "$TMP_DIR/check.out")"
fbs_qdiscs "$TMP_DIR/sched" --credits
fbs_traffic_stop
fbs_boot
log_info "$FBS_BOOT_LOG"
# 500 frames/s to each of two destinations, where a slot in two carries 400
fbs_traffic_start 500
sleep 0.3
ns_run V0 tc qdisc change dev eth0 root handle 1: fbs drift -20000 || fatal "drift"
sleep 0.3

# --- 1. wormhole on ----------------------------------------------------------------------
slots_sent() {
	fbs_xs $1 slots reserved_frames
	SLOTS[$1]=${FBS_V[0]} SENT[$1]=${FBS_V[1]}
}
for i in $HOSTS; do slots_sent $i; s0[i]=${SLOTS[i]} r0[i]=${SENT[i]}; done
fbs_window 2
for i in $HOSTS; do
	slots_sent $i
	ds=$((SLOTS[i] - s0[i])) dr=$((SENT[i] - r0[i]))
	log_info "V$i: $dr frames in $ds slots"
	# all but the slots at the window's two ends, read apart from it
	[ $((dr * 100)) -ge $((ds * 95)) ] && [ "$ds" -ge 100 ]
	xfail_on_slow check_err $? "V$i sent $dr frames in $ds slots: not in every slot"
	out=$((dE[i] + dL[i] + dX[i]))
	# judged some, as in part 2: 0 out of 0 would pass
	[ "${dF[i]}" -ge 100 ] && [ $((out * 100)) -le "${dF[i]}" ]
	xfail_on_slow check_err $? "V$i: $out of ${dF[i]} frames judged out of their slot"
done
for i in 1 2; do
	[ "${dS[i]}" -gt 0 ]
	xfail_on_slow check_err $? "V$i never stalled: nothing held it back to V0's pace"
	held[i]=${dS[i]}
done
log_test "every slot used, wormhole on: the hosts ahead are held, frames stay in their slots"

# --- 2. wormhole off, on the running switch -----------------------------------------------
ns_run S ip link set sw0 type vcsw wormhole off || fatal "wormhole off"
[[ "$(ns_exec S ip -d link show dev sw0)" == *"wormhole off"* ]]
check_err $? "sw0 still in wormhole mode: $(ns_exec S ip -d link show dev sw0)"
sleep 0.3
fbs_window 2
for i in $HOSTS; do
	[ "${dF[i]}" -ge 100 ]
	xfail_on_slow check_err $? "V$i judged ${dF[i]} frames in 2 s: the traffic stopped"
done
for i in 1 2; do
	[ $((dS[i] * 10)) -lt "${held[i]}" ]
	xfail_on_slow check_err $? "V$i stalled ${dS[i]} times, ${held[i]} with wormhole on: still held"
done
# with two slots in a period, a frame a slot late is as much a slot early
for i in $HOSTS; do
	[ $((dE[i] + dL[i] + dX[i])) -gt 0 ]
	xfail_on_slow check_err $? "V$i: every frame in its slot with V0 2 % slow and wormhole off"
done
log_test "wormhole off on the running switch: nothing holds the hosts ahead, frames leave their slots"

exit $EXIT_STATUS
