#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# The forwarding table under a flood of source addresses:
#  - the bound holds: 20,000 random sources leave fdb_max entries, no more;
#  - learning keeps working at the bound: a host that appears after the
#    table filled is learned, so frames to it are not flooded;
#  - aged entries are collected: with a short ageing time the table
#    empties of what stopped sending.
#
#   [A]  eth0 --- p1 -+            A sends from 20,000 random addresses
#   [H2] eth0 --- p2 -+- sw0 fdb_max 1024
#   [H3] eth0 --- p3 -+            H3 appears after the flood
. ./lib.sh

require_cmd ip mac-flood
require_module vcsw
tmp_dir_create

FDB_MAX=1024
FLOOD=20000
N=46
mac() { printf '02:00:00:%02x:00:%02x' $N "$1"; }

swinfo() {
	ns_exec S ip -j -d link show dev sw0 | tr -d ' \n' |
		sed -n "s/.*\"$1\":\"*\([0-9a-z]*\).*/\1/p"
}
pstat() {
	ns_exec S ip -j -d link show dev "$1" | tr -d ' \n' |
		sed -n "s/.*\"$2\":{\([^}]*\)}.*/\1/p" |
		sed -n "s/.*\"$3\":\([0-9]*\).*/\1/p"
}
# frames the port has sent or holds, whatever the VC
port_out() { echo $(($(pstat "$1" vc1 packets) + $(pstat "$1" vc1 backlog_packets))); }

ns_create S
ns_run S ip link add sw0 type vcsw fdb_max $FDB_MAX ageing 300 || fatal "vcsw"
ns_run S ip link set sw0 up
i=0
for h in A H2 H3; do
	i=$((i + 1))
	ns_create $h
	ip link add eth0 netns "$(ns_name $h)" address "$(mac $i)" type veth \
		peer name p$i netns "$(ns_name S)" || fatal "veth $h"
	ns_exec $h sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
	ns_exec S sysctl -qw net.ipv6.conf.p$i.disable_ipv6=1
	ns_run $h ip link set eth0 up
	ns_run S ip link set p$i master sw0 || fatal "p$i master sw0"
	ns_run S ip link set p$i up
done

# --- the bound ----------------------------------------------------------------------
ns_run H2 mac-flood -i eth0 --count 1 > /dev/null || fatal "H2 send"
wait_for 10 eval 'test "$(swinfo fdb_count)" = 1' || fatal "H2 not learned"
ns_run A mac-flood -i eth0 --random-src --seed 7 --count $FLOOD --dst "$(mac 99)" ||
	fatal "mac-flood"
wait_for 20 eval 'test "$(pstat p1 port rx_packets)" -ge $FLOOD'
check_err $? "p1 received $(pstat p1 port rx_packets) of $FLOOD frames"
check_eq "entries after $FLOOD sources" $FDB_MAX "$(swinfo fdb_count)"
log_test "$FLOOD source addresses leave $FDB_MAX entries"

# --- learning at the bound -------------------------------------------------------------
# H3 speaks for the first time, to H2; then H2 answers 100 frames to H3.
# Learned, they leave by p3 only; unknown, every one is flooded to p1 too.
ns_run H3 mac-flood -i eth0 --count 5 --dst "$(mac 2)" > /dev/null || fatal "H3 send"
wait_for 10 eval 'test "$(pstat p3 port rx_packets)" -ge 5' || fatal "H3's frames not seen"
p1_before=$(port_out p1)
p3_before=$(port_out p3)
ns_run H2 mac-flood -i eth0 --count 100 --dst "$(mac 3)" > /dev/null || fatal "H2 send"
wait_for 20 eval 'test "$(port_out p3)" -ge $((p3_before + 100))'
check_err $? "p3 sent $(($(port_out p3) - p3_before)) of 100 frames to H3"
check_eq "H2 -> H3 frames flooded to p1" 0 $(($(port_out p1) - p1_before))
check_eq "entries" $FDB_MAX "$(swinfo fdb_count)"
log_test "a new host is learned in a full table, not flooded"

# --- ageing ----------------------------------------------------------------------------
# the flood's entries are over a second old: with ageing 1 they go, and
# H2 (sending every 0.2 s meanwhile) stays
ns_run S ip link set sw0 type vcsw ageing 1 || fatal "ageing 1"
ns_bg H2 mac-flood -i eth0 --count 100 --interval 200000 --dst "$(mac 99)" > /dev/null
wait_for 15 eval 'test "$(swinfo fdb_count)" -le 2'
check_err $? "$(swinfo fdb_count) entries left 15 s after ageing became 1 s"
log_info "entries left: $(swinfo fdb_count)"
log_test "aged entries are collected"

exit $EXIT_STATUS
