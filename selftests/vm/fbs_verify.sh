#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 400
# vm: deterministic
#
# FBS end to end (Documentation/fbs.rst): three hosts on one vcsw run
# the paper's all-to-all round (fbs-sched all-to-all 3) and four empty
# slots, 1.5-ms slots that a 1462-byte frame fills for 1.17 ms at the
# switch's 10 Mbit/s, each frame marked with its slot and sender
# ("verify on") and judged by its receiver's own slot clock.
#
# 1. After the ring bootstrap (fbs-boot), whose messages cross the
#    switch as fabric control frames, every frame arrives in its slot.
# 2. V0's clock 2 % slow, no feedback (credits off): its frames arrive
#    late at V1 and V2, theirs early at V0.
# 3. The same drift with feedback (credits on everywhere, one-frame
#    input buffers, the switch in wormhole mode), bootstrapped again
#    and the drift set once the frames flow: the switch holds V1 and V2
#    back to V0's pace (their slots stall) and every frame stays in its
#    slot.  The slots are 1.25 ms here, 80 us more than a frame: a
#    slot's slack is a lead feedback cannot see, once per arc of the
#    schedule's cycle (Documentation/fbs.rst), and 1.5-ms slots leave
#    too much of it for a 2 % drift.
# 4. Latency, from a frame's slot start at its sender to its last byte
#    at its receiver (read from its time to deadline), no drift: a
#    reserved frame meets no other at the switch and is in within 1.5
#    slots; best effort in every slot, two hosts to a third at more than
#    its link carries, waits behind the other's frame, beyond that.
#
# Counts over windows of guest time are asserted, no rate: the
# deterministic VM's clock is its instruction count.
#
#   [V0] eth0 --- p0 -+
#   [V1] eth0 --- p1 -+- [S] sw0 (advanced, 10mbit, buffer 2k, wormhole)
#   [V2] eth0 --- p2 -+
. ./lib.sh
. ./fbs_lib.sh

require_cmd ip tc udp-lat fbs-sched fbs-boot fabric-stat
# a 1462-byte frame (1400 bytes of UDP, the fabric header) takes 1.17 ms
# at 10 Mbit/s: the rest of the slot is the time its credits take to come
# back once its last byte is out, so that a host in step is not held
# back, and one ahead is.  The switch passes a frame on as its first
# byte goes on the emulated link: it reaches its receiver about 20 us
# after its slot began (delay; step 4 measures it).
FBS_TC="--slot 1500us --verify --delay 20us"

fbs_fabric 3 arch advanced rate 10mbit buffer 2k wormhole on
HOSTS=$FBS_HOSTS
[[ "$(ns_exec S ip -d link show dev sw0)" == *"wormhole on"* ]]
check_err $? "sw0 not in wormhole mode: $(ns_exec S ip -d link show dev sw0)"

fbs-sched all-to-all 3 --empty 4 > "$TMP_DIR/sched" || fatal "fbs-sched all-to-all"
# boot: the ring with no traffic (the paper bootstraps before the
# schedule runs), then traffic: each host to each other, 150 datagrams/s,
# over the 95/s its slots carry (one per 10.5-ms period), so that every
# reserved slot has a frame
# The ring's messages are fabric control frames: with no traffic, every
# host's fabric_hdr takes at least one per round from its right
# neighbour (as many acknowledgements go back), none refused.
fabric_rx() { json_u64 "$(ns_exec V$1 fabric-stat -j eth0)" "$2"; }
boot() {
	local rx0=() bad0=() i

	fbs_traffic_stop
	for i in $HOSTS; do
		rx0[i]=$(fabric_rx $i rx_frames) bad0[i]=$(fabric_rx $i drop_inner_type)
	done
	fbs_boot
	log_info "$FBS_BOOT_LOG"
	for i in $HOSTS; do
		[ $(($(fabric_rx $i rx_frames) - rx0[i])) -ge $((2 * FBS_N)) ]
		check_err $? "V$i took $(($(fabric_rx $i rx_frames) - rx0[i])) fabric frames in a ring of $((2 * FBS_N)) rounds"
		check_eq "V$i: frames of an inner type not carried" "${bad0[i]}" "$(fabric_rx $i drop_inner_type)"
	done
	fbs_traffic_start 150
}

fbs_qdiscs "$TMP_DIR/sched"
fbs_traffic_start 150

# --- 1. bootstrapped: every frame in its slot ------------------------------------------------
boot
sleep 0.5
# 1 s: some 190 frames a host (100 required), every one judged in its
# slot (388 of 388 over 2 s): a slot clock out of step puts frames out
# within milliseconds, not after a second
fbs_window 1
for i in $HOSTS; do
	[ "${dF[i]}" -ge 100 ]
	xfail_on_slow check_err $? "V$i judged ${dF[i]} frames in 1 s"
	# none early, late or foreign (frames and verdicts are not read in
	# one instant: a frame may arrive between them)
	xfail_on_slow check_eq "V$i: frames out of their slot" 0 "$((dE[i] + dL[i] + dX[i]))"
done
[ "${dF[0]}" -ge 100 ] || log_info "V0: $(ns_exec V0 tc -s qdisc show dev eth0) $(ns_exec V1 fabric-stat eth0)"
log_test "the ring bootstrap in fabric control frames; after it every frame arrives in its slot"

# --- 2. V0 2 % slow, no feedback --------------------------------------------------------------
ns_run V0 tc qdisc change dev eth0 root handle 1: fbs drift -20000 || fatal "drift"
fbs_window 1.5
for i in 1 2; do
	[ "${dL[i]}" -gt 0 ]
	xfail_on_slow check_err $? "V$i: no frame late with V0 2 % slow and no feedback"
done
[ "${dE[0]}" -gt 0 ]
xfail_on_slow check_err $? "V0: no frame early with its own clock 2 % slow"
log_test "a clock 2 % slow without feedback: frames late at the others, early at it"

# --- 3. the same drift with feedback ------------------------------------------------------------
# credits go on with a new qdisc (an empty one): what the old held is lost.
# The qdisc is told the link's rate: it times each frame on the wire, to
# tell the switch's hold from the link's own round trip.
for i in $HOSTS; do
	ns_run S ip link set p$i type vcsw_slave credits on in_buffer 1536 || fatal "credits p$i"
	ns_run V$i tc qdisc del dev eth0 root
done
FBS_TC="--slot 1250us --rate 10mbit --verify --delay 20us"
fbs_qdiscs "$TMP_DIR/sched" --credits
# the drift once the frames flow: feedback needs frames, and at 2 % an
# idle start would put V0 a slot behind in 60 ms
boot
sleep 0.3
ns_run V0 tc qdisc change dev eth0 root handle 1: fbs drift -20000 || fatal "drift"
sleep 0.3
# 1 s: some 228 frames a host, V1 and V2 held about 115 times each (229
# stalls and no frame out of its slot over 2 s); at 2 % V0 falls a slot
# behind in 60 ms without the hold, so a second shows it many times over
fbs_window 1
for i in $HOSTS; do
	[ "${dF[i]}" -ge 100 ]
	xfail_on_slow check_err $? "V$i judged ${dF[i]} frames in 1 s"
	fbs_xs $i link_trip_ns stall_ns
	log_info "V$i: the link's round trip and the time held in all (ns):" "${FBS_V[@]}"
done
# the switch holds the hosts that run ahead of V0 ...
for i in 1 2; do
	[ "${dS[i]}" -gt 0 ]
	xfail_on_slow check_err $? "V$i never stalled: nothing held it back to V0's pace"
done
# ... and that keeps the frames in their slots, where without feedback
# (step 2) a quarter to most of them went wrong.  At most 1 % may be
# out (one run here saw 1 frame of 1500 early, another none).
for i in $HOSTS; do
	out=$((dE[i] + dL[i] + dX[i]))
	[ $((out * 100)) -le "${dF[i]}" ]
	xfail_on_slow check_err $? "V$i with feedback: $out of ${dF[i]} frames out of their slot"
done
log_test "the same drift with feedback (wormhole, credits): the hosts ahead are held, frames stay in their slots"

# --- 4. latency: reserved slots against best effort in the same switch --------------------------
# Fresh qdiscs, credits on, no drift.  A frame in its reserved slot
# meets no other at its output: it is in a frame's time (1.17 ms) and
# the switch's few microseconds after its slot began, under 1.5 slots
# (6 quarters).  Best effort, every slot unreserved, V1 and V2 both to V0
# at 500 frames/s each where V0's link carries 855: one of two frames
# waits at the switch's output for the other's 1.17 ms, about two
# frames' time in all.  The latencies are counted over a window that
# starts once the senders run and is read by the hosts' readers: on 6.1
# the start of a sender held the network work about a slot, and put a
# reserved frame 2.2 ms late when the count began at the fresh qdiscs
# (2026-12-01).  Half a second of window: 117 reserved frames a host
# (50 required; max 1194 us against the 1875 us of 1.5 slots, set by a
# frame's time, not by the count) and some 437 best-effort ones (100
# required), half of which wait behind another frame.
fresh() {
	fbs_traffic_stop
	for i in $HOSTS; do ns_run V$i tc qdisc del dev eth0 root; done
	fbs_qdiscs "$1" --credits
	fbs_boot
}
# lat_window SECONDS: every host's arrival latencies at the start and
# the end of a window (LAT0, LAT1) that begins half a second after the
# senders started; nothing started meanwhile, not even awk
lat_window() {
	local i

	sleep 0.5
	for i in $HOSTS; do fbs_lat_read $i; LAT0[i]=$FBS_LAT_LINE; done
	sleep "$1"
	for i in $HOSTS; do fbs_lat_read $i; LAT1[i]=$FBS_LAT_LINE; done
}
# lat_of_window I: host I's window in FBS_LAT_*, FBS_LAT_OVER counting
# from 1.5 slots (6 quarters)
lat_of_window() {
	fbs_lat 6 "$(printf '0 %s\n1 %s\n' "${LAT0[$1]}" "${LAT1[$1]}" | fbs_lat_window)"
}
# after the traffic stopped: every frame judged since the qdisc began
# has its latency
lat_all_counted() {
	fbs_lat_read $1
	fbs_lat 64 "$FBS_LAT_LINE"
	fbs_xget rx_frames rx_foreign
	check_eq "V$1: frames with a latency" "$((FBS_V[0] - FBS_V[1]))" "$FBS_LAT_N"
}
LAT0=() LAT1=()
fresh "$TMP_DIR/sched"
fbs_traffic_start 150
lat_window 0.5
fbs_traffic_stop
sched_max=0
for i in $HOSTS; do
	lat_of_window $i
	log_info "V$i reserved: $FBS_LAT_N frames in the window, latency mean $FBS_LAT_MEAN_US us, max $FBS_LAT_MAX_US us (since the qdisc began)"
	[ "$FBS_LAT_N" -ge 50 ]
	xfail_on_slow check_err $? "V$i: $FBS_LAT_N frames judged in 0.5 s"
	xfail_on_slow check_eq "V$i: reserved frames 1.5 slots or more after their slot began" 0 "$FBS_LAT_OVER"
	[ "$FBS_LAT_MAX_US" -gt $sched_max ] && sched_max=$FBS_LAT_MAX_US
	lat_all_counted $i
done

printf 'A B C\nempty 7\n' > "$TMP_DIR/besteffort"
FBS_FILTERS=0 fresh "$TMP_DIR/besteffort"
fbs_send 1 0 500
fbs_send 2 0 500
lat_window 0.5
fbs_traffic_stop
lat_of_window 0
log_info "V0 best effort: $FBS_LAT_N frames in the window, latency mean $FBS_LAT_MEAN_US us, max $FBS_LAT_MAX_US us (reserved: max $sched_max us)"
[ "$FBS_LAT_N" -ge 100 ]
xfail_on_slow check_err $? "V0: $FBS_LAT_N best-effort frames judged in 0.5 s"
[ "$FBS_LAT_OVER" -gt 0 ]
xfail_on_slow check_err $? "V0: no best-effort frame 1.5 slots or more after its slot began"
lat_all_counted 0
log_test "latency: reserved frames within 1.5 slots, best effort behind another frame beyond"

exit $EXIT_STATUS
