#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# edf with ttd on keeps a TCP flow's GSO packets whole, one deadline and
# one fabric header each, and the fabric header's GSO offload
# (fabric_hdr_gso.c) cuts them into numbered wire frames wherever that
# happens:
#
#   1. veth takes them whole: they cross whole, B's fabric_hdr strips the
#      header, and the stream arrives intact;
#   2. veth0 without TSO: the stack cuts them after the qdisc; on the
#      wire every frame has the header, the frames carry every sequence
#      number from the first to the last once (the peer may take them
#      in a different order on its two CPUs), the first segment of each
#      packet is flagged head and its last tail (as many heads and tails
#      as edf pushed headers), and no frame is bigger than the MTU;
#   3. through a vcsw: the port gets them whole from the host's veth and
#      cuts them, with the same numbering on the far side.
#
# In all three edf itself cut nothing (gso_segmented 0).  The route's
# MTU is 1480, room for the header.
#
#   4. a VXLAN tunnel over veth0 (still without TSO): a tunnel's GSO
#      packet is one the header's offload cannot cut (its segments would
#      come out with their headers misplaced and unwritten headroom in
#      front), so edf cuts it at enqueue and every segment carries its own
#      header; the stream arrives intact through the tunnel.
#
#   [ns A] veth0 (edf ttd on) ====== veth1 [ns B]         parts 1, 2, 4
#   [H1] eth0 (edf ttd on) == p1 [S: vcsw sw0] p2 == eth0 [H2]   part 3
. ./lib.sh

require_cmd tc ip ethtool tcp-bulk fabric-vc-count fabric-stat
require_module sch_edf
require_module fabric_hdr
require_module vcsw
two_hosts 13 quiet
BYTES=4194304

ns_run A ip route replace 10.13.0.0/24 dev veth0 src 10.13.0.1 mtu 1480 ||
	fatal "route mtu"
ns_run A tc qdisc add dev veth0 root edf ttd on || fatal "edf"

# transfer SRC-NS DST-NS DST-ADDR CAPTURE-DEV: BYTES by TCP while
# fabric-vc-count -q watches CAPTURE-DEV in DST-NS; sets SEQ (its "seq"
# line), FRAMES and PUSHED (edf's headers pushed during the transfer)
transfer() {
	local src=$1 dst=$2 addr=$3 cap=$4 srcdev=$5 rcv count pushed0

	rm -f "$TMP_DIR/ready" "$TMP_DIR/cready"
	ns_bg "$dst" fabric-vc-count -i "$cap" -n 10000000 -t 240000 -q \
		-r "$TMP_DIR/cready" > "$TMP_DIR/count.out"
	count=$BG_PID
	ns_bg "$dst" tcp-bulk -l "$addr" -p 5002 -t 240000 -r "$TMP_DIR/ready" \
		> "$TMP_DIR/bulk.out"
	rcv=$BG_PID
	wait_for 10 test -e "$TMP_DIR/ready" -a -e "$TMP_DIR/cready" ||
		fatal "receivers did not start"
	pushed0=$(qdisc_stat "$src" "$srcdev" ttd_pushed)
	ns_exec "$src" tcp-bulk -c "$addr" -p 5002 -b $BYTES -t "${BULK_MS:-240000}"
	check_err $? "the sender failed"
	bg_wait "$rcv"
	check_err $? "the stream did not arrive intact: $(cat "$TMP_DIR/bulk.out")"
	PUSHED=$(( $(qdisc_stat "$src" "$srcdev" ttd_pushed) - pushed0 ))
	kill -TERM "$count"
	bg_wait "$count"
	FRAMES=$(sed -n 's/^frames=\([0-9]*\).*/\1/p' "$TMP_DIR/count.out")
	SEQ=$(grep '^seq ' "$TMP_DIR/count.out")
	log_info "$(sed -n 's/.*\(bytes=.*\)/\1/p' "$TMP_DIR/bulk.out"); frames $FRAMES, headers pushed $PUSHED; $SEQ"
	grep -q "bytes=$BYTES .*bad=0" "$TMP_DIR/bulk.out"
	check_err $? "received $(cat "$TMP_DIR/bulk.out"), want bytes=$BYTES bad=0"
}

seqval() { sed -n "s/.* $1=\([0-9]*\).*/\1/p" <<< "$SEQ"; }

# the numbering of cut packets: what part 2 and part 3 check on the wire
check_cut() {
	check_eq "frames the capture lost" 0 "$(seqval drops)"
	check_eq "frames whole on the wire" 0 "$(seqval big)"
	# gaps (order) are not checked: the peer's CPUs interleave frames
	check_eq "numbers no frame carried" 0 "$(seqval missing)"
	check_eq "numbers carried twice" 0 "$(seqval dups)"
	check_eq "numbers out of reach" 0 "$(seqval far)"
	check_eq "frames flagged head" "$PUSHED" "$(seqval heads)"
	check_eq "frames flagged tail" "$PUSHED" "$(seqval tails)"
	[[ $FRAMES -gt $((PUSHED * 3 / 2)) ]]
	check_err $? "$FRAMES wire frames for $PUSHED headers: the packets were not GSO"
}

# --- 1. whole through veth ----------------------------------------------------
transfer A B 10.13.0.2 veth1 veth0
# a whole packet's number is its first segment's: the numbers jump
check_eq "frames the capture lost" 0 "$(seqval drops)"
[[ $(seqval big) -gt 0 ]]
check_err $? "no GSO packet crossed whole"
check_eq "frames flagged head" "$PUSHED" "$(seqval heads)"
check_eq "edf cut nothing" 0 "$(qdisc_stat A veth0 gso_segmented)"
log_test "GSO packets keep one header through veth, the stream arrives intact"

# --- 2. cut after the qdisc by the offload --------------------------------------
ns_run A ethtool -K veth0 tso off > /dev/null || fatal "tso off"
transfer A B 10.13.0.2 veth1 veth0
check_cut
check_eq "edf cut nothing" 0 "$(qdisc_stat A veth0 gso_segmented)"
log_test "the stack cuts them after the qdisc, every segment numbered"

# --- 3. cut by a vcsw port --------------------------------------------------------
ns_create S
ns_run S ip link add sw0 type vcsw || fatal "vcsw"
ns_run S ip link set sw0 up
switch_host H1 p1 02:00:00:13:00:01 10.14.0.1/24
switch_host H2 p2 02:00:00:13:00:02 10.14.0.2/24
ns_run H1 ip neigh replace 10.14.0.2 lladdr 02:00:00:13:00:02 dev eth0 nud permanent &&
ns_run H2 ip neigh replace 10.14.0.1 lladdr 02:00:00:13:00:01 dev eth0 nud permanent ||
	fatal "neighbours"
ns_run H1 ip route replace 10.14.0.0/24 dev eth0 src 10.14.0.1 mtu 1480 ||
	fatal "route mtu"
ns_run H1 tc qdisc add dev eth0 root edf ttd on || fatal "edf on H1"
transfer H1 H2 10.14.0.2 eth0 eth0
check_cut
check_eq "edf cut nothing" 0 "$(qdisc_stat H1 eth0 gso_segmented)"
malformed=$(ns_exec S ip -s -j -d link show p1 | tr -d ' \n' |
	sed -n 's/.*"drop_malformed":\([0-9]*\).*/\1/p')
check_eq "switch port's malformed drops" 0 "$malformed"
log_test "a vcsw port cuts them, every segment numbered"

# --- 4. a tunnel's GSO packets, cut by edf ------------------------------------------
for ns in A B; do
	if [[ $ns == A ]]; then l=10.13.0.1 r=10.13.0.2 dev=veth0 me=10.15.0.1
	else l=10.13.0.2 r=10.13.0.1 dev=veth1 me=10.15.0.2; fi
	ns_run $ns ip link add vx0 mtu 1400 type vxlan id 42 local $l remote $r \
		dstport 4789 dev $dev &&
	ns_exec $ns sysctl -qw net.ipv6.conf.vx0.disable_ipv6=1 &&
	ns_run $ns ip addr add $me/24 dev vx0 &&
	ns_run $ns ip link set vx0 up || fatal "vxlan in $ns"
done
# no ARP inside the tunnel either
ns_run A ip neigh replace 10.15.0.2 lladdr "$(ns_mac B vx0)" dev vx0 nud permanent &&
ns_run B ip neigh replace 10.15.0.1 lladdr "$(ns_mac A vx0)" dev vx0 nud permanent ||
	fatal "tunnel neighbours"
seg0=$(qdisc_stat A veth0 gso_segmented)
# a mangled stream never completes: a minute is many times what it needs
BULK_MS=60000 transfer A B 10.15.0.2 veth1 veth0
[[ $(( $(qdisc_stat A veth0 gso_segmented) - seg0 )) -gt 0 ]]
check_err $? "edf cut no tunnel packet: the tunnel sent no GSO packets to cut"
check_eq "frames the capture lost" 0 "$(seqval drops)"
check_eq "tunnel frames whole on the wire" 0 "$(seqval big)"
# each header edf pushed is one frame on the wire, numbered in turn: a
# packet mangled by a cut after the qdisc is no fabric frame at B
check_eq "fabric frames at B" "$PUSHED" "$FRAMES"
check_eq "numbers no frame carried" 0 "$(seqval missing)"
log_test "a tunnel's GSO packets are cut at enqueue, the stream arrives intact"

exit $EXIT_STATUS
