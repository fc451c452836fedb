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
# A port with credits refuses every GSO frame.
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

exit "$EXIT_STATUS"
