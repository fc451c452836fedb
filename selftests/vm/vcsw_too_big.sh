#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# A frame larger than its credit peer's whole input buffer (credits.rst,
# "Limits"): no grant can ever cover it, and waiting for one held its VC
# for good, with every frame behind it.  Input buffers of 4 KB are set
# while the MTU is 1500 (the switch refuses a buffer below a full-size
# frame); the MTU then goes to 9000, which the switch allows, and 6000-byte
# frames come:
#  - from hosts whose qdisc sends under credits (edf, aoq, dtable, fbs):
#    each qdisc drops the frame at dequeue (counted in its drops; edf's as
#    oversize), and the small frames sent after it reach H4;
#  - from a host whose edf sits under drr (H7: the big frame in class
#    1:1, the small ones in 1:2): the drop is told to drr at once, so
#    drr neither keeps counting the frame nor keeps asking 1:1 for it
#    while 1:2 waits;
#  - through S, from a host without credits, towards T, whose input
#    behind the credit link s2t = t2s has 4 KB: S's port s2t drops it
#    (drop_oversize), and the small frames after it reach H4.
# Nothing is refused as a violation: the big frames never go.
#
#   [H1] edf    --- s1 -+
#   [H2] aoq    --- s2 -+
#   [H3] dtable --- s3 -+- [S] sw0 s2t ===== t2s [T] sw0 t4 --- [H4]
#   [H6] fbs    --- s6 -+
#   [H7] drr, edf under it --- s7 -+
#   [H5] (none) --- s5 -+    credits on s1, s2, s3, s6, s7 and s2t = t2s
. ./lib.sh

require_cmd ip tc fabric-send fabric-stat
require_module vcsw
require_module fabric_hdr
require_module sch_edf
require_module sch_aoq
require_module sch_dtable
require_module sch_fbs
tmp_dir_create

H4_MAC=02:00:00:4b:00:04
BIG_MAC=02:00:00:4b:00:99
SMALL=$(printf '%0100d' 0)
BIG=$(printf '%06000d' 0)	# 6062-byte frames: 95 units of 64, the buffers 64
HOSTS="1 2 3 5 6 7"
QHOSTS="1 2 3 6 7"	# hosts with a qdisc under credits

rx_frames() { json_u64 "$(ns_exec H4 fabric-stat -j eth0 2>/dev/null)" rx_frames || echo 0; }
qdisc_json() {
	local j

	j=$(ns_exec "$1" tc -s -j qdisc show dev eth0 root)
	echo "${j//[[:space:]]/}"
}
qstat() { json_u64 "$(qdisc_json "$1")" "$2"; }
# send H COUNT PAYLOAD [MAC]: fabric frames on VC1 from host H to H4 (or MAC)
send() {
	ns_exec H$1 fabric-send -i eth0 --dst-mac "${4:-$H4_MAC}" --src-ip 10.75.0.$1 \
		--dst-ip 10.75.0.4 --dport 9 --vc 1 --ttd 5000000 --flow "$1" \
		--count "$2" --payload "$3" > /dev/null
}
idle() {
	local h

	vcsw_ports_empty S s1 s2 s3 s5 s6 s7 s2t && vcsw_ports_empty T t2s t4 || return 1
	for h in $QHOSTS; do
		[ "$(qstat H$h qlen)" = 0 ] || return 1
	done
}

# --- topology ----------------------------------------------------------------------
for n in S T H1 H2 H3 H4 H5 H6 H7; do ns_create $n; done
ns_run S ip link add sw0 type vcsw || fatal "vcsw S"
ns_run T ip link add sw0 type vcsw || fatal "vcsw T"
ip link add s2t netns "$(ns_name S)" type veth peer name t2s netns "$(ns_name T)" || fatal veth
for h in $HOSTS; do
	ip link add eth0 netns "$(ns_name H$h)" address 02:00:00:4b:00:0$h type veth \
		peer name s$h netns "$(ns_name S)" || fatal "veth H$h"
done
ip link add eth0 netns "$(ns_name H4)" address $H4_MAC type veth \
	peer name t4 netns "$(ns_name T)" || fatal "veth H4"
for d in "S s2t" "S s1" "S s2" "S s3" "S s5" "S s6" "S s7" "T t2s" "T t4"; do
	set -- $d
	ns_exec $1 sysctl -qw net.ipv6.conf.$2.disable_ipv6=1
	ns_run $1 ip link set $2 master sw0 || fatal "$2 master"
done
for h in $HOSTS 4; do
	ns_exec H$h sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
done
ns_run S ip link set s2t type vcsw_slave fdb_add $H4_MAC || fatal "fdb S"
ns_run T ip link set t4 type vcsw_slave fdb_add $H4_MAC || fatal "fdb T"
for p in s1 s2 s3 s6 s7; do
	ns_run S ip link set $p type vcsw_slave credits on vc0_in_buffer 4k vc1_in_buffer 4k ||
		fatal "credits $p"
done
ns_run S ip link set s2t type vcsw_slave credits on || fatal "credits s2t"
ns_run T ip link set t2s type vcsw_slave credits on vc0_in_buffer 4k vc1_in_buffer 4k ||
	fatal "credits t2s"
for d in "S s2t" "S s1" "S s2" "S s3" "S s5" "S s6" "S s7" "T t2s" "T t4" \
	 "H1 eth0" "H2 eth0" "H3 eth0" "H4 eth0" "H5 eth0" "H6 eth0" "H7 eth0"; do
	set -- $d
	ns_run $1 ip link set $2 mtu 9000 || fatal "mtu $2"
done
ns_run H1 tc qdisc add dev eth0 root handle 1: edf credits on || fatal "edf"
ns_run H2 tc qdisc add dev eth0 root handle 1: aoq default 1 credits on || fatal "aoq"
ns_run H2 tc class add dev eth0 parent 1: classid 1:1 aoq || fatal "aoq lane"
ns_run H3 tc qdisc add dev eth0 root handle 1: dtable classes 2 credits on || fatal "dtable"
# every slot H4's, frames up to 8000 bytes (fbs drops longer ones at enqueue)
ns_run H6 tc qdisc add dev eth0 root handle 1: fbs dests 1 slot 100us frame 8000 \
	table 0 limit 1000 credits on || fatal "fbs"
ns_run H6 tc filter add dev eth0 parent 1: protocol all pref 1 flower dst_mac $H4_MAC \
	classid 1:1 || fatal "H6's filter"
# drr with an edf (credits on, the device's one unit) in each class: frames
# to BIG_MAC (which nothing delivers) in 1:1, to H4 in 1:2
ns_run H7 tc qdisc add dev eth0 root handle 1: drr || fatal "drr"
for c in 1 2; do
	ns_run H7 tc class add dev eth0 parent 1: classid 1:$c drr || fatal "drr 1:$c"
	ns_run H7 tc qdisc add dev eth0 parent 1:$c handle 1$c: edf credits on || fatal "edf 1:$c"
done
ns_run H7 tc filter add dev eth0 parent 1: protocol all pref 1 flower dst_mac $BIG_MAC \
	classid 1:1 || fatal "H7's filter 1:1"
ns_run H7 tc filter add dev eth0 parent 1: protocol all pref 2 flower dst_mac $H4_MAC \
	classid 1:2 || fatal "H7's filter 1:2"
for d in "S sw0" "T sw0" "S s2t" "S s1" "S s2" "S s3" "S s5" "S s6" "S s7" "T t2s" "T t4" \
	 "H1 eth0" "H2 eth0" "H3 eth0" "H4 eth0" "H5 eth0" "H6 eth0" "H7 eth0"; do
	set -- $d
	ns_run $1 ip link set $2 up
done

# every sender's books have the peer's grant before anything is sent
wait_for 20 vcsw_books_exact S s2t T t2s
check_err $? "books not exact on the new link s2t = t2s"
for h in $QHOSTS; do
	wait_for 20 eval '[ "$(ns_exec H'$h' tc -s qdisc show dev eth0 | grep -c "tx_credits vc0 64 vc1 64")" -ge 1 ]'
	check_err $? "H$h: no grant of 64 units per VC: $(ns_exec H$h tc -s qdisc show dev eth0 | grep credits)"
done
log_test "credit links up with 4 KB input buffers, MTU 9000"

# --- hosts: the big frame dropped by the qdisc, the rest flows -------------------------
for h in 1 2 3 6; do
	d0[h]=$(qstat H$h drops)
done
rx0=$(rx_frames)
for h in 1 2 3 6; do
	send $h 1 "$BIG" || fatal "fabric-send big H$h"
	send $h 20 "$SMALL" || fatal "fabric-send small H$h"
done
wait_for 30 idle
check_err $? "frames still wait behind the big ones"
check_eq "H4 received the small frames of four hosts" 80 $(($(rx_frames) - rx0))
for h in 1 2 3 6; do
	check_eq "H$h: the big frame counted in the qdisc's drops" 1 $(($(qstat H$h drops) - d0[h]))
done
[[ "$(ns_exec H1 tc -s qdisc show dev eth0 root)" == *"oversize 1"* ]]
check_err $? "edf: not counted as oversize: $(ns_exec H1 tc -s qdisc show dev eth0 root | grep -i drop)"
for p in s1 s2 s3 s6; do
	for k in "credits_vc0 violations" "credits_vc1 violations"; do
		check_eq "S $p $k" 0 "$(vcsw_stat S $p $k)"
	done
done
log_test "edf, aoq, dtable, fbs: a frame above the peer's buffer dropped at dequeue, the rest flows"

# --- under a parent: drr told of the drop at once ---------------------------------------
rx0=$(rx_frames)
send 7 1 "$BIG" $BIG_MAC || fatal "fabric-send big H7"
send 7 20 "$SMALL" || fatal "fabric-send small H7"
wait_for 30 idle
check_err $? "frames still wait in H7 ($(ns_exec H7 tc -s qdisc show dev eth0 | tr '\n' ' '))"
check_eq "H4 received H7's small frames" 20 $(($(rx_frames) - rx0))
check_eq "H7's drr: nothing counted as queued" "0 0" "$(qstat H7 qlen) $(qstat H7 backlog)"
[[ "$(ns_exec H7 tc -s qdisc show dev eth0 parent 1:1)" == *"oversize 1"* ]]
check_err $? "H7: edf 1:1 did not count it as oversize"
log_test "edf under drr: the drop told to drr, the other class flows"

# --- a switch: S's port s2t drops it -------------------------------------------------------
o0=$(vcsw_stat S s2t port drop_oversize)
rx0=$(rx_frames)
send 5 1 "$BIG" || fatal "fabric-send big H5"
send 5 20 "$SMALL" || fatal "fabric-send small H5"
wait_for 30 idle
check_err $? "frames still wait behind the big one in S"
check_eq "H4 received H5's small frames" 20 $(($(rx_frames) - rx0))
check_eq "S s2t drop_oversize" 1 $(($(vcsw_stat S s2t port drop_oversize) - o0))
for k in "credits_vc0 violations" "credits_vc1 violations"; do
	check_eq "T t2s $k" 0 "$(vcsw_stat T t2s $k)"
done
wait_for 10 vcsw_books_exact S s2t T t2s
check_err $? "books not exact once idle"
log_test "a switch port: a frame above its peer's buffer dropped (drop_oversize), the rest flows"

exit $EXIT_STATUS
