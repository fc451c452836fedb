#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# vm: deterministic
#
# The fbs slot executor on the wire (Documentation/fbs.rst).
#
# 1. The table paces the classes: with slots of 2 ms and the table
#    "0 - 1 -*7", destinations 0 and 1 get one frame per 10 slots each
#    and best effort eight, however much more they offer; the slot clock
#    keeps the guest clock's time.
# 2. drift: at +5 % the clock runs 5 % fast, at -5 % 5 % slow.
#    Slot counts are bracketed by the guest clock read just before and
#    just after each statistics read, so no figure of this machine's
#    speed is assumed.
#    2b. The reserved slots of an idle spell count as idle, not late.
# 3. Feedback: H1's fbs with "credits on" sends, in H4's slots, into a
#    vcsw port whose input buffer holds one of its frames, to an output
#    of 2 Mbit/s.  The host's 100-us slots wait for the switch: it sends
#    at the switch's pace (a frame every 4.2 ms), every slot stalls until
#    its frame was accepted, and nothing is lost.  Without credits the
#    same host runs at its own clock's pace and the stalls stay 0.
#    Frames after an idle spell seldom stall, nor do those after the
#    host's link went down and up (the new books' grant is not their
#    return).
#
# 4. With credits on, a best-effort frame that the switch never has room
#    for (larger than its VC1 buffer) is refused slot after slot, and
#    the frames for H4 queued behind it still go in their slots.
# 5. With credits on and "frame" larger than the switch's VC0 buffer
#    (shrunk in place), each slot's end waits for the whole buffer, not
#    for room that never comes: every frame for H4 goes, each slot still
#    held until its frame left the switch.
# 6. With credits on, a best-effort frame that stays in the switch for
#    good (its output never gets credits) stops no reserved slot: a
#    best-effort frame on a VC of its own is not feedback.
# 7. Best effort on the VC of the destinations' frames is: each of its
#    slots waits until its frame left the switch's input.
#
#   [ns A] veth0: fbs 1: -----------------------> veth1 [ns B]
#   [H1] eth0 fbs credits on --- s1 [S] sw0 (2mbit, buffer 2k) s4 --- eth0 [H4]
#                                        s5 --- h5 (6: credits on, never granted;
#                                                    7: credits off)
. ./lib.sh

require_cmd tc udp-lat fabric-send fabric-stat
require_module sch_fbs
require_module vcsw
require_module fabric_hdr
tmp_dir_create

now_ns() { echo "${EPOCHREALTIME/./}000"; }	# busybox date has no %N
# qstat NS DEV KEY: a counter of the fbs qdisc's statistics (tc -s -j),
# before the link's own statistics ("credits", last, with its own "stalls")
qstat() {
	local j

	j=$(ns_exec "$1" tc -s -j qdisc show dev "$2" root | tr -d ' \n')
	sed -n "s/.*\"$3\":\([0-9]*\).*/\1/p" <<< "${j%\"credits\":\{*}"
}
# snap NS DEV: T0 before, SLOTS, RESERVED, UNRESERVED, LATE, T1 after
snap() {
	local j

	T0=$(now_ns)
	j=$(ns_exec "$1" tc -s -j qdisc show dev "$2" root | tr -d ' \n')
	T1=$(now_ns)
	SLOTS=$(sed -n 's/.*"slots":\([0-9]*\),"stalls".*/\1/p' <<< "$j")
	RESERVED=$(sed -n 's/.*"reserved_frames":\([0-9]*\).*/\1/p' <<< "$j")
	UNRESERVED=$(sed -n 's/.*"unreserved_frames":\([0-9]*\).*/\1/p' <<< "$j")
	LATE=$(sed -n 's/.*"late_slots":\([0-9]*\).*/\1/p' <<< "$j")
}
# in_range DESC V LO HI
in_range() {
	[ "$2" -ge "$3" ] && [ "$2" -le "$4" ]
	check_err $? "$1: $2, want $3 .. $4"
}

# --- 1. the table paces the classes ------------------------------------------------------
two_hosts 24 quiet
DST=10.24.0.2
SLOT_US=2000
ns_bg B udp-lat recv --port 9000 --duration 3600 > /dev/null
ns_run A tc qdisc add dev veth0 root handle 1: fbs dests 2 slot ${SLOT_US}us \
	table 0 - 1 -*7 limit 100 || fatal "fbs"
# each class offered twice what its slots carry: 50 and 400 frames/s
pids=()
for p in 1:1 1:2; do
	ns_bg A udp-lat send --dst $DST --port 9000 --size 500 --rate 100 --prio $p \
		--duration 3600 --no-retry > /dev/null 2>&1
	pids+=($BG_PID)
done
ns_bg A udp-lat send --dst $DST --port 9000 --size 500 --rate 800 \
	--duration 3600 --no-retry > /dev/null 2>&1
pids+=($BG_PID)
sleep 1
snap A veth0
s0=$SLOTS r0=$RESERVED u0=$UNRESERVED l0=$LATE a0=$T0 b0=$T1
sleep 3
snap A veth0
ds=$((SLOTS - s0)) dr=$((RESERVED - r0)) du=$((UNRESERVED - u0)) dl=$((LATE - l0))
log_info "$ds slots: $dr reserved frames, $du unreserved, $dl reserved slots late"
# the slots the guest clock allows between the reads, give or take two
# that a counter read between two dequeues may lag
in_range "slots between the reads" "$ds" $(((T0 - b0) / (SLOT_US * 1000) - 2)) \
	$(((T1 - a0) / (SLOT_US * 1000) + 2))
# two reserved slots in every ten: never more frames than came round,
# and, offered more than they carry, one in each but those run late
rounds=$(((ds + 9) / 10))
in_range "reserved frames" "$dr" $((2 * ds / 10 - dl - 2)) $((2 * rounds + 2))
in_range "unreserved frames" "$du" 0 $((8 * rounds + 8))
# best effort has no late count: 9 in 10 of its slots used needs a
# kernel that keeps up with them
xfail_on_slow in_range "unreserved frames" "$du" $((8 * ds / 10 * 9 / 10)) $((8 * rounds + 8))
[ "$dl" -le $((ds / 50)) ]
xfail_on_slow check_err $? "reserved slots run late: $dl of $((2 * ds / 10))"
log_test "the table paces the classes: 2 and 8 in 10 slots, at the guest clock's pace"

# --- 2. drift --------------------------------------------------------------------------------
for drift in 50000 -50000; do
	ns_run A tc qdisc change dev veth0 root handle 1: fbs drift $drift || fatal "drift $drift"
	sleep 0.5
	snap A veth0
	s0=$SLOTS a0=$T0 b0=$T1
	sleep 3
	snap A veth0
	ds=$((SLOTS - s0))
	# a slot lasts slot / (1 + drift): 2 ms / 1.05 fast, / 0.95 slow
	len_ps=$((SLOT_US * 1000000 * 1000 / (1000 + drift / 1000)))
	lo=$(((T0 - b0) * 1000 / len_ps - 2)) hi=$(((T1 - a0) * 1000 / len_ps + 2))
	log_info "drift $drift ppm: $ds slots in $(((T1 - a0) / 1000000)) ms"
	in_range "slots at drift $drift ppm" "$ds" $lo $hi
	# and not what an exact clock would have run.  Given the range
	# above, this holds unless the two ranges overlap, that is unless
	# reading the counters took so long that the measurement cannot tell
	# 5 % apart: on a slow kernel the two reads took 17 s of a 20-s
	# window (make check-debug), a miss expected there
	exact_hi=$(((T1 - a0) / (SLOT_US * 1000) + 2)) exact_lo=$(((T0 - b0) / (SLOT_US * 1000) - 2))
	! { [ "$ds" -ge "$exact_lo" ] && [ "$ds" -le "$exact_hi" ]; }
	xfail_on_slow check_err $? "drift $drift: $ds slots, as many as without drift"
done
log_test "drift +-50000 ppm: the slot clock runs 5 % fast and slow"
for p in "${pids[@]}"; do
	kill "$p"
	bg_wait "$p"
done

# --- 2b. an idle spell -----------------------------------------------------------------------
# An idle qdisc runs no clock: the slots of an idle spell are counted when
# the next packet comes, and they passed with nothing queued (idle_slots),
# not with that packet queued (late_slots).  One reserved slot in four of
# 1 ms: about 500 in 2 s.
ns_run A tc qdisc del dev veth0 root
ns_run A tc qdisc add dev veth0 root handle 1: fbs dests 1 slot 1ms table 0 - - - ||
	fatal "fbs, one slot in four"
ns_run A udp-lat send --dst $DST --port 9000 --size 500 --rate 10 --count 1 --prio 1:1 \
	> /dev/null || fatal "first datagram"
sleep 0.5
snap A veth0
l0=$LATE i0=$(qstat A veth0 idle_slots)
sleep 2
ns_run A udp-lat send --dst $DST --port 9000 --size 500 --rate 10 --count 1 --prio 1:1 \
	> /dev/null || fatal "datagram after the idle spell"
sleep 0.5
snap A veth0
dl=$((LATE - l0)) di=$(($(qstat A veth0 idle_slots) - i0))
log_info "after 2 s idle: $di reserved slots idle, $dl late"
# the premise: the spell's slots were counted at all
[ "$di" -ge 250 ]
check_err $? "reserved slots of the idle spell counted idle: $di, want 250 or more"
# the slot the packet came in may end before its dequeue, and one its
# dequeue missed; a slow kernel's timers miss more (10 on a debug kernel)
[ "$dl" -le 2 ]
xfail_on_slow check_err $? "reserved slots of an idle spell counted late: $dl"
log_test "an idle spell's slots are idle, not late"
ns_run A tc qdisc del dev veth0 root

# --- 3. feedback from a switch's credits ---------------------------------------------------
H4_MAC=02:00:00:49:00:04
PAYLOAD=$(printf '%01000d' 0)	# 1062-byte frames: 14 + 20 + 20 + 8 + 1000
COUNT=150
FRAME_US=4248			# 1062 bytes at 2 Mbit/s
for n in S H1 H4; do ns_create $n; done
ns_run S ip link add sw0 type vcsw arch advanced rate 2mbit buffer 2k || fatal "vcsw"
for h in 1 4; do
	ip link add eth0 netns "$(ns_name H$h)" address 02:00:00:49:00:0$h type veth \
		peer name s$h netns "$(ns_name S)" || fatal "veth H$h"
	ns_exec S sysctl -qw net.ipv6.conf.s$h.disable_ipv6=1
	ns_exec H$h sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
	ns_run S ip link set s$h master sw0 || fatal "s$h master"
done
ns_run S ip link set s4 type vcsw_slave fdb_add $H4_MAC || fatal "fdb H4"
# the smallest input buffer vcsw takes, a full-size frame (24 credits of
# 64 bytes): one of our 1062-byte frames (17), not two
ns_run S ip link set s1 type vcsw_slave credits on in_buffer 1536 || fatal "credits s1"
# every slot H4's: only a destination's frame is feedback (part 6)
ns_run H1 tc qdisc add dev eth0 root handle 1: fbs dests 1 slot 100us frame 1100 \
	table 0 limit 1000 credits on || fatal "fbs H1"
ns_run H1 tc filter add dev eth0 parent 1: protocol all pref 1 flower dst_mac $H4_MAC \
	classid 1:1 || fatal "H1's filter"
ns_run S ip link set sw0 up
for h in 1 4; do
	ns_run S ip link set s$h up
	ns_run H$h ip link set eth0 up
done
rx_frames() { json_u64 "$(ns_exec H4 fabric-stat -j eth0)" rx_frames; }
send() {
	ns_exec H1 fabric-send -i eth0 --dst-mac $H4_MAC --src-ip 10.49.0.1 \
		--dst-ip 10.49.0.4 --dport 9 --vc 1 --flow 1 --count "$1" \
		--interval 50 --payload "$PAYLOAD" > /dev/null
}
# the link up and granting: a first frame goes through
send 1 || fatal "fabric-send"
wait_for 20 eval '[ "$(rx_frames)" = 1 ]' || fatal "no frame through the switch"

run() {	# lossless|lossy: the counters over COUNT frames sent as fast as fabric-send can
	local st0 sn0 sl0 fr0 rx0

	sl0=$(qstat H1 eth0 slots) st0=$(qstat H1 eth0 stalls) sn0=$(qstat H1 eth0 stall_ns)
	fr0=$(qstat H1 eth0 reserved_frames) rx0=$(rx_frames)
	t0=$(now_ns)
	send $COUNT || fatal "fabric-send"
	if ! wait_for 60 eval '[ "$(qstat H1 eth0 qlen)" = 0 ]'; then
		log_info "H1: $(ns_exec H1 tc -s qdisc show dev eth0)"
		log_info "S s1: $(link_json S s1)"
		fatal "H1's queue did not drain"
	fi
	t1=$(now_ns)
	DSLOTS=$(($(qstat H1 eth0 slots) - sl0))
	DSTALLS=$(($(qstat H1 eth0 stalls) - st0))
	DSTALL_MS=$((($(qstat H1 eth0 stall_ns) - sn0) / 1000000))
	DFRAMES=$(($(qstat H1 eth0 reserved_frames) - fr0))
	# lossless, H4 receives every frame; lossy, S's small buffer drops
	# most and H4's count is final once S holds nothing (waiting for
	# every frame there only ran out the wait, 20 s of guest time)
	if [ "$1" = lossless ]; then
		wait_for 20 eval '[ "$(rx_frames)" -ge $((rx0 + DFRAMES)) ]'
	else
		wait_for 20 vcsw_ports_empty S s1 s4
	fi
	DRX=$(($(rx_frames) - rx0))
	DT_MS=$(((t1 - t0) / 1000000))
	log_info "$DFRAMES frames in $DT_MS ms: $DSLOTS slots, $DSTALLS stalls ($DSTALL_MS ms), $DRX received"
}

run lossless
check_eq "credits on: every frame sent reached H4" "$DFRAMES" "$DRX"
check_eq "credits on: H1's qdisc sent them all" "$COUNT" "$DFRAMES"
# the switch's pace: a frame per 4.2 ms at its output, not per 100-us slot
[ "$DT_MS" -ge $((COUNT * FRAME_US * 9 / 10 / 1000)) ]
check_err $? "credits on: $COUNT frames in $DT_MS ms, faster than the switch's output"
# every slot after the first few waited for its frame's credits, and the
# clock spent nearly all the time held
[ "$DSTALLS" -ge $((DFRAMES * 9 / 10)) ]
check_err $? "credits on: $DSTALLS stalls for $DFRAMES frames"
[ "$DSTALL_MS" -ge $((DT_MS * 8 / 10)) ]
xfail_on_slow check_err $? "credits on: stalled $DSTALL_MS ms of $DT_MS"
j=$(link_json S s1)
check_eq "credits on: no credit violation at S" 0 "$(json_obj_u64 "$j" credits_vc1 violations)"
check_eq "credits on: no full input at S" 0 "$(json_obj_u64 "$j" in_vc1 drops_full)"
log_test "credits on: the host's slots wait for the switch, nothing lost"

# An idle host's last slot ends only when it is run again, and its
# frame's credits are what it waits for then.  After H1's link went down
# and up, the credits it finds are the new books' first grant, which
# came long after that frame: taken for its return, they made the slot
# a stall of half a slot or more (the tree before fbs_catch_up() looked
# at the books' restarts: one stall at every flap).  A frame sent after
# an idle spell without a flap is the control.  A lone frame's round
# trip itself varies by more than a 100-us slot allows now and then
# (6.12 stalled once here in a CI run, the debug kernel more often; not
# traced), so either may stall on its own: FLAPS of each, and each kind
# stalls in at most half, where the old tree stalled at every flap.
FLAPS=6
one_frame() {	# WHAT: one frame to H4 after an idle spell; DSTALLS
	local st0 rx0

	wait_for 20 vcsw_ports_empty S s1 s4 || fatal "$1: S did not drain"
	# the idle spell: the last frame's credits (a 4.2-ms frame at S's
	# output) and a new link's first grant are back long before 0.2 s;
	# 0.5 s made 6.5 of the test's 24 guest s
	nap 0.2
	st0=$(qstat H1 eth0 stalls) rx0=$(rx_frames)
	send 1 || fatal "$1: fabric-send"
	wait_for 20 eval '[ "$(rx_frames)" = $((rx0 + 1)) ]' || fatal "$1: the frame did not arrive"
	DSTALLS=$(($(qstat H1 eth0 stalls) - st0))
}
# the first ends the run's last slot, whose frame the switch did hold
one_frame "after the run"
idle_stalls=0 flap_stalls=0
for ((i = 0; i < FLAPS; i++)); do
	one_frame "after an idle spell"
	idle_stalls=$((idle_stalls + DSTALLS))
	ns_run H1 ip link set eth0 down
	ns_run H1 ip link set eth0 up
	one_frame "after the flap"
	flap_stalls=$((flap_stalls + DSTALLS))
done
log_info "lone frames that stalled: $idle_stalls of $FLAPS after an idle spell, $flap_stalls of $FLAPS after a flap"
[ "$idle_stalls" -le $((FLAPS / 2)) ]
xfail_on_slow check_err $? "frames after an idle spell: $idle_stalls of $FLAPS stalled"
[ "$flap_stalls" -le $((FLAPS / 2)) ]
xfail_on_slow check_err $? "frames after the link went down and up: $flap_stalls of $FLAPS stalled"
log_test "credits on: a link that went down and up is no stall"

ns_run H1 tc qdisc change dev eth0 root handle 1: fbs credits off || fatal "credits off"
ns_run S ip link set s1 type vcsw_slave credits off || fatal "credits off s1"
run lossy
# the premise: the host outran the switch (S's small buffer dropped what
# it had no room for), where credits on would have held it back
[ "$DRX" -lt "$DFRAMES" ]
xfail_on_slow check_err $? "credits off: H4 received all $DFRAMES frames: the host never outran the switch"
check_eq "credits off: no stall" 0 "$DSTALLS"
# its own clock's pace: the frames went in about as many 100-us slots,
# far faster than the switch's output carries them
[ "$DT_MS" -lt $((COUNT * FRAME_US / 1000 / 2)) ]
xfail_on_slow check_err $? "credits off: $COUNT frames took $DT_MS ms, the switch's pace"
log_test "credits off: the host runs at its own clock's pace, no stalls"

# --- 4. a best-effort frame above the switch's buffer holds up no reserved slot ----------
# H1's table is "0 -": a slot for H4, then one for best effort.  Its
# best-effort frame is 2000 bytes (H1's MTU raised for it), larger than
# the 1536 bytes S states for VC1, so no grant can ever cover it; five
# frames for H4 queued behind it must still go, one per reserved slot.
# Such a frame was refused in every unreserved slot for good, and the
# refusal once armed no timer (the frames for H4 waited for the next
# enqueue); it is now dropped at its first slot (credits.rst, "Limits").
# A best-effort frame refused for credits that never come is part 6's.
ns_exec H1 tc qdisc del dev eth0 root
ns_run S ip link set s1 type vcsw_slave credits on vc0_in_buffer 8192 vc1_in_buffer 1536 ||
	fatal "credits s1"
ns_run H1 ip link set eth0 mtu 2000 || fatal "H1 mtu"
send_vc() {	# VC DST_MAC COUNT PAYLOAD
	ns_exec H1 fabric-send -i eth0 --dst-mac "$2" --src-ip 10.49.0.1 \
		--dst-ip 10.49.0.4 --dport 9 --vc "$1" --flow 1 --count "$3" \
		--payload "$4" > /dev/null
}
# h1_fbs SLOT VC: H1's qdisc (a slot for H4, then one for best effort,
# credits on) with its filter to 1:1, and a first frame on VC through to
# H4: the link up and granting; rx0 is H4's count before that frame
h1_fbs() {
	ns_run H1 tc qdisc add dev eth0 root handle 1: fbs dests 1 slot "$1" frame 2100 \
		table 0 - limit 1000 credits on || fatal "fbs H1"
	ns_run H1 tc filter add dev eth0 parent 1: protocol all pref 1 flower dst_mac $H4_MAC \
		classid 1:1 || fatal "H1's filter"
	rx0=$(rx_frames)
	send_vc "$2" $H4_MAC 1 "$PAYLOAD" || fatal "fabric-send"
	wait_for 20 eval '[ "$(rx_frames)" = $((rx0 + 1)) ]' || fatal "no frame through the switch"
}
h1_fbs 1ms 0
rs0=$(qstat H1 eth0 reserved_frames) dr0=$(qstat H1 eth0 drops)
send_vc 1 02:00:00:49:00:05 1 "$(printf '%01938d' 0)" || fatal "fabric-send, 2000 bytes"
send_vc 0 $H4_MAC 5 "$PAYLOAD" || fatal "fabric-send"
wait_for 10 eval '[ "$(qstat H1 eth0 reserved_frames)" = $((rs0 + 5)) ]'
check_err $? "best effort above the buffer: $(($(qstat H1 eth0 reserved_frames) - rs0)) of 5 frames for H4 sent"
wait_for 10 eval '[ "$(rx_frames)" = $((rx0 + 6)) ]'
check_err $? "best effort above the buffer: H4 received $(($(rx_frames) - rx0)) of 6 frames"
# the best-effort frame went nowhere: dropped, not sent, not held
check_eq "best effort above the buffer: H1 dropped it" "0 0 1" \
	"$(qstat H1 eth0 qlen) $(qstat H1 eth0 unreserved_frames) $(($(qstat H1 eth0 drops) - dr0))"
log_test "credits on: a best-effort frame above the switch's buffer is dropped, holds up no reserved slot"
ns_exec H1 tc qdisc del dev eth0 root

# --- 5. "frame" above the switch's buffer ----------------------------------------------
# A slot's end waits for the link's room for a largest frame: the frame
# it sent has left the switch.  Here "frame" (2100 bytes) comes to exceed
# S's VC0 buffer, shrunk in place from 8192 to 1536 bytes under H1's
# qdisc, so that room never comes; the end waits for the whole buffer,
# which S's credit messages state.  It once waited for good: the first
# frame for H4 after the shrink went, and those behind it stayed queued,
# the clock held.
h1_fbs 100us 0
ns_run S ip link set s1 type vcsw_slave vc0_in_buffer 1536 || fatal "S's VC0 buffer 1536"
st0=$(qstat H1 eth0 stalls)
send_vc 0 $H4_MAC 20 "$PAYLOAD" || fatal "fabric-send"
wait_for 10 eval '[ "$(rx_frames)" = $((rx0 + 21)) ]'
check_err $? "frame above the buffer: H4 received $(($(rx_frames) - rx0)) of 21 frames"
check_eq "frame above the buffer: H1's queue" 0 "$(qstat H1 eth0 qlen)"
# the feedback still holds.  S's output sends a frame per 4.2 ms and
# holds one more; once it is full each frame waits in S's input, so its
# slot (200 us apart) ends only once S lets it go: a stall of the clock
# (17 of 20 on 6.1: the first three found room).  A slot that ended with
# its frame still in S would not stall (a cap too low).
dst=$(($(qstat H1 eth0 stalls) - st0))
log_info "frame above the buffer: $dst of 20 slots stalled for their frame"
[ "$dst" -ge 15 ]
check_err $? "frame above the buffer: $dst of 20 slots stalled for their frame"
log_test "credits on: a frame size above the switch's buffer does not stop the slots"
ns_exec H1 tc qdisc del dev eth0 root

# --- 6. best effort held in the switch stops no reserved slot ----------------------------
# Only a destination's frame is feedback: best effort in an unreserved
# slot may meet other hosts' in the switch, which says nothing of H1's
# clock.  Here S can never deliver H1's best effort: it goes to h5, a
# port with credits on whose peer grants none, so the first such frame
# waits in S's output to h5 for good, the second in S's VC1 input, and
# the third is refused.  The ten frames for H4 sent then, on VC0, must
# still go one per period.  Once the end of the unreserved slot waited
# for room on VC1: after the second frame no slot ended again and none
# of the ten went.
H5_MAC=02:00:00:49:00:05
ns_run S ip link add s5 type veth peer name h5 || fatal "veth s5"
for d in s5 h5; do ns_exec S sysctl -qw net.ipv6.conf.$d.disable_ipv6=1; done
ns_run S ip link set s5 master sw0 || fatal "s5 master"
ns_run S ip link set s5 type vcsw_slave credits on fdb_add $H5_MAC || fatal "s5 credits"
ns_run S ip link set h5 up
ns_run S ip link set s5 up
ns_run S ip link set s1 type vcsw_slave vc0_in_buffer 8192 || fatal "S's VC0 buffer 8192"
h1_fbs 1ms 0
us0=$(qstat H1 eth0 unreserved_frames) st0=$(qstat H1 eth0 stalls)
send_vc 1 $H5_MAC 3 "$PAYLOAD" || fatal "fabric-send to h5"
wait_for 10 eval '[ "$(qstat H1 eth0 unreserved_frames)" = $((us0 + 2)) ]' ||
	fatal "$(($(qstat H1 eth0 unreserved_frames) - us0)) of 2 best-effort frames went to S"
SMALL=$(printf '%0100d' 0)	# 162-byte frames: 0.65 ms at S's 2 Mbit/s
send_vc 0 $H4_MAC 10 "$SMALL" || fatal "fabric-send"
wait_for 10 eval '[ "$(rx_frames)" = $((rx0 + 11)) ]'
check_err $? "held best effort: H4 received $(($(rx_frames) - rx0 - 1)) of 10 frames"
# the premise: S still holds both best-effort frames, the third waits
check_eq "held best effort: best-effort frames sent, queued" "2 1" \
	"$(($(qstat H1 eth0 unreserved_frames) - us0)) $(qstat H1 eth0 qlen)"
# and the slots' ends did not wait: S's output to H4 sends a small frame
# in a third of a period, so the reserved slots hardly ever wait for
# their room, and a best-effort slot that waited for its frame's, even
# for a bounded time, would stall in each of the ten periods, with the
# third frame waiting.  Mostly 0; 1 was seen on 6.12 (the deterministic
# VM's boots differ), so a few are allowed; a kernel too slow to keep
# up has its reserved frames' credits come late (5 on the debug kernel)
dst=$(($(qstat H1 eth0 stalls) - st0))
log_info "held best effort: $dst slots stalled"
[ "$dst" -le 3 ]
xfail_on_slow check_err $? "held best effort: $dst slots stalled, at most 3"
log_test "credits on: best effort held in the switch stops no reserved slot"
ns_exec H1 tc qdisc del dev eth0 root

# --- 7. best effort on the destinations' VC is feedback -----------------------------------
# A best-effort frame on the VC that H1's frames for H4 take holds the
# buffer their next one needs, so its slot's end waits for it as for
# theirs.  H4's frames go on VC1 here, and so do 20 best-effort frames
# to h5 (credits off now: S delivers them at its 2 Mbit/s, a frame per
# 4.2 ms, one in its output and one in its VC1 input at most), one per
# 2-ms period: once S is full, each of their slots stalls until its
# frame left S's input, as in part 3 (16 and 17 of 20 on 6.1 and 6.12:
# the first few found room, and the last one's stall is counted only
# when its slot ends, after the count is read).  Without the shared VC
# (part 6) none would.
ns_run S ip link set s5 type vcsw_slave credits off || fatal "s5 credits off"
h1_fbs 1ms 1
st0=$(qstat H1 eth0 stalls) us0=$(qstat H1 eth0 unreserved_frames)
send_vc 1 $H5_MAC 20 "$PAYLOAD" || fatal "fabric-send to h5"
wait_for 20 eval '[ "$(qstat H1 eth0 unreserved_frames)" = $((us0 + 20)) ]'
check_err $? "shared VC: $(($(qstat H1 eth0 unreserved_frames) - us0)) of 20 best-effort frames sent"
dst=$(($(qstat H1 eth0 stalls) - st0))
log_info "shared VC: $dst of 20 best-effort slots stalled for their frame"
[ "$dst" -ge 10 ]
check_err $? "shared VC: $dst of 20 best-effort slots stalled for their frame"
log_test "credits on: best effort on the destinations' VC is feedback"
ns_exec H1 tc qdisc del dev eth0 root
ns_exec S ip link del s5

exit $EXIT_STATUS
