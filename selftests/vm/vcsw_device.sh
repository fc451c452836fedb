#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 180
#
# vcsw behaves as a bridge device does:
#  - IEEE 802.1D link-local groups (01:80:C2:00:00:0x: STP, PAUSE, LACP,
#    EAPOL, LLDP, ...) are not relayed, unless group_fwd_mask asks for one
#    (never STP, PAUSE or LACP);
#  - an administratively down switch forwards nothing, and forwards again
#    once up;
#  - frames longer than the output port's MTU are dropped and counted;
#  - the switch cannot leave its namespace (its ports would stay behind).
#
#   [H1] eth0 --- p1 -+
#   [H2] eth0 --- p2 -+- sw0 [S]
#   [H3] eth0 --- p3 -+
. ./lib.sh

require_cmd ip taskset mac-flood
require_module vcsw
tmp_dir_create

N=47
mac() { printf '02:00:00:%02x:00:%02x' $N "$1"; }

pstat() {
	ns_exec S ip -j -d link show dev "$1" | tr -d ' \n' |
		sed -n "s/.*\"$2\":{\([^}]*\)}.*/\1/p" |
		sed -n "s/.*\"$3\":\([0-9]*\).*/\1/p"
}
# frames port DEV has sent or holds
port_out() { echo $(($(pstat "$1" vc1 packets) + $(pstat "$1" vc1 backlog_packets))); }
# frames received on H$1's eth0
host_rx() { ns_exec H$1 cat /sys/class/net/eth0/statistics/rx_packets; }

ns_create S
ns_run S ip link add sw0 type vcsw || fatal "vcsw"
ns_run S ip link set sw0 up
for i in 1 2 3; do
	ns_create H$i
	ip link add eth0 netns "$(ns_name H$i)" address "$(mac $i)" type veth \
		peer name p$i netns "$(ns_name S)" || fatal "veth $i"
	ns_exec H$i sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
	ns_exec S sysctl -qw net.ipv6.conf.p$i.disable_ipv6=1
	ns_run H$i ip link set eth0 up
	ns_run S ip link set p$i master sw0 || fatal "p$i master sw0"
	ns_run S ip link set p$i up
done
# everyone learned
for i in 1 2 3; do
	ns_run H$i taskset -c 0 mac-flood -i eth0 --count 1 > /dev/null || fatal "H$i send"
done

# --- link-local groups ------------------------------------------------------------------
out2=$(port_out p2); out3=$(port_out p3); rx1=$(pstat p1 port rx_packets)
for g in 00 01 02 03 04 0e 0f; do
	ns_run H1 taskset -c 0 mac-flood -i eth0 --count 10 --dst 01:80:c2:00:00:$g > /dev/null ||
		fatal "send to 01:80:c2:00:00:$g"
done
# a plain multicast frame after them: flooded, so once p2 has it the
# link-local frames before it have been decided
ns_run H1 taskset -c 0 mac-flood -i eth0 --count 1 --dst 01:00:5e:00:00:01 > /dev/null
wait_for 10 eval 'test "$(port_out p2)" -ge $((out2 + 1))'
check_err $? "the multicast frame was not flooded"
check_eq "link-local frames relayed to p2" 1 $(($(port_out p2) - out2))
check_eq "link-local frames relayed to p3" 1 $(($(port_out p3) - out3))
check_eq "frames received on p1" 71 $(($(pstat p1 port rx_packets) - rx1))
check_eq "link-local frames dropped" 70 "$(pstat p1 port drop_link_local)"
log_test "802.1D link-local groups are not relayed"

# group_fwd_mask: 802.1X PAE (bit 3) relayed on request; STP, PAUSE, LACP never
ns_exec S ip link set sw0 type vcsw group_fwd_mask 0x1 2>"$TMP_DIR/err"
check_fail $? "group_fwd_mask 0x1 (STP) accepted"
grep -q "never relayed" "$TMP_DIR/err"
check_err $? "no reason given: $(cat "$TMP_DIR/err")"
ns_run S ip link set sw0 type vcsw group_fwd_mask 0x8 || fatal "group_fwd_mask 0x8"
out2=$(port_out p2)
ns_run H1 taskset -c 0 mac-flood -i eth0 --count 10 --dst 01:80:c2:00:00:03 > /dev/null
ns_run H1 taskset -c 0 mac-flood -i eth0 --count 10 --dst 01:80:c2:00:00:0e > /dev/null
ns_run H1 taskset -c 0 mac-flood -i eth0 --count 1 --dst 01:00:5e:00:00:01 > /dev/null
wait_for 10 eval 'test "$(port_out p2)" -ge $((out2 + 11))'
check_err $? "EAPOL frames not relayed with group_fwd_mask 0x8"
check_eq "frames relayed to p2" 11 $(($(port_out p2) - out2))
ns_run S ip link set sw0 type vcsw group_fwd_mask 0
rx1=$(pstat p1 port rx_packets)
log_test "group_fwd_mask relays what it names, refuses STP/PAUSE/LACP"

# --- an administratively down switch ---------------------------------------------------
ns_run S ip link set sw0 down
rx2=$(host_rx 2)
ns_run H1 taskset -c 0 mac-flood -i eth0 --count 50 --dst "$(mac 2)" > /dev/null
ns_run H1 taskset -c 0 mac-flood -i eth0 --count 50 --dst ff:ff:ff:ff:ff:ff > /dev/null
wait_for 10 eval 'test "$(pstat p1 port rx_packets)" -ge $((rx1 + 100))'
check_err $? "the frames did not reach p1"
check_eq "frames H2 received from a down switch" 0 $(($(host_rx 2) - rx2))
check_eq "frames counted as received while down" 100 "$(pstat p1 port drop_disabled)"
ns_run S ip link set sw0 up
ns_run H1 taskset -c 0 mac-flood -i eth0 --count 50 --dst "$(mac 2)" > /dev/null
wait_for 10 eval 'test "$(host_rx 2)" -ge $((rx2 + 50))'
check_err $? "H2 received $(($(host_rx 2) - rx2)) of 50 frames after sw0 came up"
log_test "a down switch forwards nothing, and forwards again when up"

# --- frames longer than the output port's MTU --------------------------------------
# dropped and counted as a bridge does (veth would pass them on: it checks
# only its peer's MTU)
ns_run S ip link set p2 mtu 1000
ov=$(pstat p2 port drop_oversize); rx2=$(host_rx 2)
ns_run H1 taskset -c 0 mac-flood -i eth0 --count 20 --len 1200 --dst "$(mac 2)" > /dev/null
ns_run H1 taskset -c 0 mac-flood -i eth0 --count 1 --len 1000 --dst "$(mac 2)" > /dev/null
wait_for 10 eval 'test "$(host_rx 2)" -ge $((rx2 + 1))'
check_err $? "the 1000-byte frame did not arrive"
check_eq "frames H2 received" $((rx2 + 1)) "$(host_rx 2)"
check_eq "oversize frames dropped" $((ov + 20)) "$(pstat p2 port drop_oversize)"
ns_run S ip link set p2 mtu 1500
log_test "frames longer than the output port's MTU are dropped, counted"

# --- the switch stays in its namespace -----------------------------------------------
ns_create T
ns_exec S ip link set sw0 netns "$(ns_name T)" 2>"$TMP_DIR/err"
check_fail $? "sw0 moved to another namespace"
ns_exec S ip link show sw0 > /dev/null 2>&1
check_err $? "sw0 is gone from its namespace"
ns_exec S ip -d link show p1 | grep_quiet "master sw0"
check_err $? "p1 lost its switch"
log_test "the switch cannot move to another namespace"

exit $EXIT_STATUS
