#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# Hostile GSO fabric frames: gso-fuzz sends fabric frames with a
# virtio-net header (PACKET_VNET_HDR), which makes each an skb that claims
# to be a GSO packet of whatever type, segment size and checksum offsets
# the sender chose (SKB_GSO_DODGY).  Such frames reach a host's receive
# path whole (fabric_hdr strips the header once), and a vcsw port, which
# cuts them with skb_gso_segment(), that is with fabric_hdr's GSO offload
# and the inner IPv4/IPv6 offloads under it.  Nothing may crash or warn
# (the harness reads the kernel log), the switch may forward no malformed
# frame, and both paths must still carry ordinary frames afterwards.
# A port with credits refuses every GSO frame.  Last, an untrusted port
# counts and polices a GSO frame's segments one by one, as the wire
# frames they are.
# First, well-formed frames: a port cuts a GSO frame whose segment size
# its sender chose into at most 256 segments and refuses (drop_gso) one
# that would need more, instead of turning one frame into thousands.
# fq.gso_fuzz_frames=N on the VM's command line sets the count.
#
#   [A] veth0 --gso-fuzz--> veth1 [B] fabric_hdr receive path
#   [C] eth0 --gso-fuzz--> p1 [S] sw0 p2 --> eth0 [D]
. ./lib.sh

require_cmd gso-fuzz fabric-send fabric-stat ip
require_module fabric_hdr
require_module vcsw
FRAMES=$(fq_param gso_fuzz_frames 2000)
SEED=$(fq_param fuzz_seed 1)
log_info "$FRAMES frames per run, seed $SEED"

tmp_dir_create
two_hosts 52 quiet
MAC_B=02:00:00:00:34:02
MAC_D=02:00:00:52:00:04

# fstat, fstat_read_ok: lib.sh
# malformed NS DEV: malformed fabric frames that receive path dropped
malformed() {
	local k n=0
	for k in drop_short drop_version drop_inner_type drop_truncated; do
		n=$((n + $(fstat "$1" "$2" $k)))
	done
	echo $n
}
# sent_of OUT: gso-fuzz's count of frames the kernel took
sent_of() { echo "$1" | sed -n 's/.*sent=\([0-9]*\).*/\1/p'; }
# settled CMD: CMD's output the same twice, 1 s apart (the frames are in)
settled() {
	local a b
	a=$("$@")
	sleep 1
	b=$("$@")
	[ "$a" = "$b" ]
}
# valid_to NS DEV MAC SRC DST RX_NS RX_DEV: ten ordinary frames still pass.
# They are sent late (a negative TTD) and counted by the receiver's "late",
# which gso-fuzz's frames (a TTD of a second or more) never reach, so
# fuzzed frames still arriving cannot stand in for them.
valid_to() {
	local late0
	late0=$(fstat "$6" "$7" late)
	ns_exec "$1" fabric-send -i "$2" --dst-mac "$3" --src-ip "$4" --dst-ip "$5" \
		--dport 9 --ttd -1000 --count 10 > /dev/null || return 1
	wait_for 10 eval "[ \$(fstat $6 $7 late) -ge $((late0 + 10)) ]"
	[ "$(fstat "$6" "$7" late)" -eq $((late0 + 10)) ]
}

# --- a host's receive path ------------------------------------------------------------
out=$(ns_exec A gso-fuzz -i veth0 -d $MAC_B -n "$FRAMES" -s "$SEED")
check_err $? "gso-fuzz failed"
log_info "A -> B: $out"
# enough must have gone in, or this tests nothing (the kernel refuses
# most virtio-net headers that do not match their packet: EINVAL)
sent=$(sent_of "$out")
check_err $((sent < FRAMES / 50)) "the kernel took only $sent of $FRAMES frames"
wait_for 30 settled fstat B veth1 rx_frames
valid_to A veth0 $MAC_B 10.52.0.1 10.52.0.2 B veth1
check_err $? "ordinary frames no longer reach B after the fuzzing"
log_test "host receive path: GSO frames claimed by the sender, kernel unharmed"

# --- a switch port -------------------------------------------------------------------
fuzz_switch $MAC_D
# room for every segment in the output buffer: what D counts is what was cut
ns_run S ip link set sw0 type vcsw buffer 4m
# port NAME KEY: a counter of vcsw port NAME
port() { json_obj_u64 "$(ns_exec S ip -j -d link show dev "$1")" port "$2"; }

# gso_frames GSO_SIZE PAYLOAD SEGS_EACH VERDICT N: N well-formed TCP
# frames of PAYLOAD bytes cut at GSO_SIZE; VERDICT "cut": D receives
# SEGS_EACH frames for each, "refused": p1 counts each in drop_gso and D
# receives none of them.  N * SEGS_EACH stays under D's receive backlog
# (netdev_max_backlog, 1000), which takes them all at once.
gso_frames() {
	local rx0 gso0 out want n=$5
	rx0=$(fstat D eth0 rx_frames)
	gso0=$(port p1 drop_gso)
	out=$(ns_exec C gso-fuzz -i eth0 -d $MAC_D -n "$n" -g "$1" -p "$2")
	check_err $? "gso-fuzz -g $1 -p $2 failed"
	check_eq "frames the kernel took (gso $1, payload $2)" "$n" "$(sent_of "$out")"
	if [ "$4" = cut ]; then
		want=$((rx0 + n * $3))
		wait_for 30 eval "[ \$(fstat D eth0 rx_frames) -ge $want ]"
		wait_for 10 settled fstat D eth0 rx_frames
		check_eq "segments at D (gso $1, payload $2)" $want "$(fstat D eth0 rx_frames)"
		check_eq "p1 drop_gso (gso $1, payload $2)" "$gso0" "$(port p1 drop_gso)"
	else
		wait_for 30 eval "[ \$(port p1 drop_gso) -ge $((gso0 + n)) ]"
		check_eq "p1 drop_gso (gso $1, payload $2)" $((gso0 + n)) "$(port p1 drop_gso)"
		wait_for 10 settled fstat D eth0 rx_frames
		check_eq "segments at D (gso $1, payload $2)" "$rx0" "$(fstat D eth0 rx_frames)"
	fi
}
# C's veth counts the segments (gso_segs) from the TCP payload: 256 and
# 257 are the edge
gso_frames 1400 30000 22 cut 5
gso_frames 100 25600 256 cut 2
gso_frames 100 25601 257 refused 5
gso_frames 8 30000 3750 refused 5
log_test "switch port: GSO frames of at most 256 segments cut, more refused"

# With credits on, none: an end that speaks credits segments first, and a
# frame of two segments, well within the grant, would take the room of
# one and go on as two, outside the books
ns_run S ip link set p1 type vcsw_slave credits on || fatal "credits on p1"
gso_frames 500 1000 2 refused 5
ns_run S ip link set p1 type vcsw_slave credits off || fatal "credits off p1"
log_test "switch port with credits: every GSO frame refused"

dbad0=$(malformed D eth0)
out=$(ns_exec C gso-fuzz -i eth0 -d $MAC_D -n "$FRAMES" -s $((SEED + 1)))
check_err $? "gso-fuzz failed"
log_info "C -> S -> D: $out"
sent=$(sent_of "$out")
check_err $((sent < FRAMES / 50)) "the kernel took only $sent of $FRAMES frames"
wait_for 60 settled fstat D eth0 rx_frames
log_info "D: rx_frames $(fstat D eth0 rx_frames), p1: $(ns_exec S ip -j -d link show dev p1 |
	tr -d ' \n' | sed -n 's/.*"port":{\([^}]*\)}.*/\1/p')"
# D must have got some: the switch forwards what it could cut
check_err $(( $(fstat D eth0 rx_frames) == 0 )) "no frame reached D"
check_eq "malformed frames the switch let through to D" "$dbad0" "$(malformed D eth0)"
fstat_read_ok
valid_to C eth0 $MAC_D 10.52.1.3 10.52.1.4 D eth0
check_err $? "ordinary frames no longer cross the switch after the fuzzing"
log_test "switch port: GSO frames cut or dropped, none malformed forwarded"

# --- an untrusted port polices the frames it cuts ----------------------------------------
# p1 untrusted: VC0 at vc0_rate 8kbit (1000 bytes a second) with a burst
# of BURST bytes.  C sends PKTS regulated GSO packets at once, each of
# SEGS segments of 100 bytes: 2074 bytes whole, SEG_WIRE bytes a frame
# cut.  The policer must see the frames: at most the burst and what the
# rate added while they came passes as VC0 (the GCRA, core/vcsw_trust.h),
# and at least the burst less one frame.  Charged by the packet, seven
# packets (140 frames, 24360 bytes) passed and police_drop counted 3;
# rx_packets counted 10 and rx_bytes 20740.
BURST=16384
PKTS=10
SEGS=20
SEG_WIRE=$((14 + 20 + 20 + 20 + 100))
FRAMES_CUT=$((PKTS * SEGS))
# police EXCEED: p1 untrusted, its bucket full again (a change restarts it)
police() {
	ns_run S ip link set p1 type vcsw_slave trust off vc0_rate 8kbit \
		vc0_burst $BURST vc0_exceed "$1" || fatal "p1 untrusted, $1"
}
# send_vc0 GSO PAYLOAD N FRAMES: C's N regulated GSO packets, cut into
# FRAMES frames; sets SEND_US, the time from the first send to p1's count
# of every frame received
send_vc0() {
	local rx0 t0 out want=$4
	rx0=$(port p1 rx_packets)
	t0=$(now_us)
	out=$(ns_exec C gso-fuzz -i eth0 -d $MAC_D -n "$3" -g "$1" -p "$2" -r)
	check_err $? "gso-fuzz -g $1 -p $2 -r failed"
	check_eq "packets the kernel took (gso $1, payload $2)" "$3" "$(sent_of "$out")"
	wait_for 30 eval "[ \$(port p1 rx_packets) -ge $((rx0 + want)) ]"
	SEND_US=$(($(now_us) - t0))
	check_eq "frames p1 received (gso $1, payload $2)" "$want" \
		"$(($(port p1 rx_packets) - rx0))"
}
# most VC0 bytes the policer may pass: the burst and what the rate adds
# over the sending, a byte a millisecond (polled: later than the last frame)
vc0_bound() { echo $((BURST + SEND_US / 1000 + 1)); }

police drop
pd0=$(port p1 police_drop)
b0=$(port p1 rx_bytes)
d0=$(fstat D eth0 rx_frames)
send_vc0 100 2000 $PKTS $FRAMES_CUT
check_eq "bytes p1 received" $((FRAMES_CUT * SEG_WIRE)) "$(($(port p1 rx_bytes) - b0))"
wait_for 10 settled fstat D eth0 rx_frames
passed=$(($(fstat D eth0 rx_frames) - d0))
dropped=$(($(port p1 police_drop) - pd0))
check_eq "frames passed and policed" $FRAMES_CUT $((passed + dropped))
bound=$(vc0_bound)
[ $((passed * SEG_WIRE)) -le "$bound" ]
check_err $? "$passed frames, $((passed * SEG_WIRE)) bytes, passed as VC0: more than $bound"
[ $((passed * SEG_WIRE)) -gt $((BURST - SEG_WIRE)) ]
check_err $? "$passed frames, $((passed * SEG_WIRE)) bytes, passed as VC0: less than the burst"
log_info "vc0_exceed drop: $passed of $FRAMES_CUT frames passed ($((passed * SEG_WIRE)) bytes, bound $bound)"
log_test "untrusted port: GSO packets policed by the frames they are cut into"

# a packet bigger than the burst is not refused whole: 21 frames of 1474
# bytes and one of 674, of which the burst holds 11 (all dropped by the
# packet); the fewest bytes that many frames can be: the short one and
# the rest full
police drop
d0=$(fstat D eth0 rx_frames)
send_vc0 1400 30000 1 22
wait_for 10 settled fstat D eth0 rx_frames
passed=$(($(fstat D eth0 rx_frames) - d0))
[ "$passed" -ge 11 ] && [ $((674 + (passed - 1) * 1474)) -le "$(vc0_bound)" ]
check_err $? "$passed of the 22 frames of a 30074-byte VC0 packet passed, want 11 (burst $BURST)"
log_test "untrusted port: a VC0 packet over vc0_burst passes the frames the burst holds"

# demote: every frame crosses, those over the rate saying VC1 on the wire
police demote
dm0=$(port p1 police_demote)
ns_bg D fabric-vc-count -i eth0 -n $FRAMES_CUT -t 20000 -r "$TMP_DIR/vcc.ready" > "$TMP_DIR/vcc.out"
vcc=$BG_PID
wait_for 10 test -e "$TMP_DIR/vcc.ready" || fatal "fabric-vc-count did not start"
send_vc0 100 2000 $PKTS $FRAMES_CUT
bg_wait $vcc
check_err $? "D did not see the $FRAMES_CUT frames: $(cat "$TMP_DIR/vcc.out")"
vcc=$(cat "$TMP_DIR/vcc.out")
vc0=$(echo "$vcc" | sed -n 's/.* vc0=\([0-9]*\).*/\1/p')
vc1=$(echo "$vcc" | sed -n 's/.* vc1=\([0-9]*\).*/\1/p')
check_eq "frames on VC0 and VC1 at D" $FRAMES_CUT $((${vc0:-0} + ${vc1:-0}))
check_eq "frames demoted" "${vc1:-x}" "$(($(port p1 police_demote) - dm0))"
bound=$(vc0_bound)
[ $((${vc0:-0} * SEG_WIRE)) -le "$bound" ] && [ $((${vc0:-0} * SEG_WIRE)) -gt $((BURST - SEG_WIRE)) ]
check_err $? "${vc0:-0} frames, $((${vc0:-0} * SEG_WIRE)) bytes, kept VC0: not within the burst less a frame and $bound"
log_info "vc0_exceed demote: $vcc"
log_test "untrusted port: GSO frames over the rate demoted frame by frame, VC1 on the wire"

exit "$EXIT_STATUS"
