#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
#
# vcsw under traffic, with frames waiting in rate-limited port buffers:
# a port goes down and up, a port leaves (nomaster) and comes back, a
# port's device is deleted, the switch is deleted, the switch's namespace
# is deleted, and the module is unloaded.  Each step must leave the kernel
# log clean (the runner checks) and the remaining ports forwarding.
#
#   [H1] --p1-+
#   [H2] --p2-+- sw0 (rate 5mbit) [S]      H1, H3 -> H2 UDP at ~16 Mbit/s,
#   [H3] --p3-+                            H1 -> broadcast MAC (flooded)
. ./lib.sh

require_cmd ip udp-lat fabric-send
require_module vcsw
tmp_dir_create

pstat() {
	ns_exec S ip -j -d link show dev "$1" | tr -d ' \n' |
		sed -n "s/.*\"$2\":{\([^}]*\)}.*/\1/p" |
		sed -n "s/.*\"$3\":\([0-9]*\).*/\1/p"
}

switch_up() {
	ns_run S ip link add sw0 type vcsw vc0 takeover rate 5mbit buffer 32k || fatal "vcsw"
	ns_run S ip link set sw0 up
	for i in 1 2 3; do
		ns_run S ip link set p$i master sw0 || fatal "p$i master"
	done
}

traffic() {	# SECONDS: H1, H3 -> H2, and flooded broadcast frames from H1
	ns_bg H1 udp-lat send --dst 10.43.0.2 --port 9000 --size 1000 --rate 1000 \
		--duration "$1" --no-retry > /dev/null 2>&1
	ns_bg H3 udp-lat send --dst 10.43.0.2 --port 9000 --size 1000 --rate 1000 \
		--duration "$1" --no-retry > /dev/null 2>&1
	ns_bg H1 fabric-send -i eth0 --dst-mac ff:ff:ff:ff:ff:ff --src-ip 10.43.0.1 \
		--dst-ip 10.43.0.255 --dport 9 --count $((200 * $1)) --interval 5000 \
		--payload flood > /dev/null 2>&1
}

ns_create S
for i in 1 2 3; do
	ns_create H$i
	ip link add eth0 netns "$(ns_name H$i)" address "02:00:00:43:00:0$i" type veth \
		peer name p$i netns "$(ns_name S)" || fatal "veth $i"
	ns_exec H$i sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
	ns_run H$i ip addr add 10.43.0.$i/24 dev eth0
	ns_run H$i ip link set eth0 up
	ns_run S ip link set p$i up
done
for i in 1 3; do
	ns_run H$i ip neigh replace 10.43.0.2 lladdr 02:00:00:43:00:02 dev eth0 nud permanent
done
switch_up
wait_for 30 ns_exec H2 ping -c 1 -W 2 10.43.0.1 > /dev/null	# learn H2's address
check_err $? "ping before the test"

# --- down / up, nomaster / master under traffic ------------------------------------
# one load for the whole test; cleanup stops it
traffic 600
# the senders start slowly on a loaded host: allow them time (a debug
# kernel's senders never outpace the 5 Mbit/s port: there the changes
# below run beside whatever traffic there is)
wait_for 20 eval 'test "$(pstat p2 vc1 backlog_packets)" -gt 5'
xfail_on_slow check_err $? "no queue formed on p2 ($(pstat p2 vc1 backlog_packets) waiting)"
ns_run S ip link set p2 down
wait_for 20 eval 'test "$(pstat p2 port drop_down)" -gt 0'
check_err $? "frames for a down port not counted as drop_down"
check_eq "queue flushed when the port went down" 0 "$(pstat p2 vc1 backlog_packets)"
ns_run S ip link set p2 up
sleep 0.3
ns_run S ip link set p1 nomaster
check_err $? "nomaster under traffic"
sleep 0.3
ns_run S ip link set p1 master sw0
check_err $? "master again under traffic"
sent=$(pstat p2 vc1 packets)
wait_for 20 eval 'test "$(pstat p2 vc1 packets)" -gt $((sent + 20))'
check_err $? "p2 stopped forwarding after the changes"
log_test "port down/up and leave/rejoin under traffic"

# --- a port's device deleted -------------------------------------------------------------
ns_run S ip link del p3
check_err $? "deleting p3"
sent=$(pstat p2 vc1 packets)
wait_for 20 eval 'test "$(pstat p2 vc1 packets)" -gt $((sent + 20))'
check_err $? "p2 stopped forwarding after p3 went away"
ns_exec S ip link show p3 >/dev/null 2>&1
check_fail $? "p3 still there"
log_test "port device deleted under traffic"

# --- the switch deleted, then its namespace --------------------------------------------
# the senders start slowly on a loaded host: allow them time
wait_for 20 eval 'test "$(pstat p2 vc1 backlog_packets)" -gt 5'
xfail_on_slow check_err $? "no queue on p2 before deleting sw0 ($(pstat p2 vc1 backlog_packets) waiting)"
ns_run S ip link del sw0
check_err $? "deleting sw0 under traffic"
ns_exec S ip -d link show p1 | grep_quiet "master"
check_fail $? "p1 still has a master"
# p3's peer went with it: a new pair for H3
ip link add eth0 netns "$(ns_name H3)" address 02:00:00:43:00:03 type veth \
	peer name p3 netns "$(ns_name S)" || fatal "veth 3 again"
ns_exec H3 sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
ns_exec H3 ip addr add 10.43.0.3/24 dev eth0
ns_exec H3 ip link set eth0 up
ns_exec H3 ip neigh replace 10.43.0.2 lladdr 02:00:00:43:00:02 dev eth0 nud permanent
ns_run S ip link set p3 up
switch_up
sent=$(pstat p2 vc1 packets)
wait_for 20 eval 'test "$(pstat p2 vc1 packets)" -gt $((sent + 20))'
check_err $? "a new switch does not forward"
log_test "switch deleted under traffic and created again"

# a second switch in its own namespace, deleted with the namespace
ns_create T
ns_run T ip link add swT type vcsw rate 1mbit
ip link add t0 netns "$(ns_name H1)" type veth peer name t1 netns "$(ns_name T)" || fatal "veth t"
ns_run T ip link set t1 master swT
ns_run T ip link set t1 up
ns_run T ip link set swT up
ip netns del "$(ns_name T)"
check_err $? "deleting a namespace with a switch"
log_test "namespace with a switch deleted"

# --- module unload under traffic ------------------------------------------------------------
# the senders start slowly on a loaded host: allow them time
wait_for 20 eval 'test "$(pstat p2 vc1 backlog_packets)" -gt 5'
xfail_on_slow check_err $? "no queue before unloading"
module_unload vcsw
check_err $? "modprobe -r vcsw under traffic"
ns_exec S ip link show sw0 >/dev/null 2>&1
check_fail $? "sw0 survived the unload"
ns_exec S ip -d link show p1 | grep_quiet master
check_fail $? "p1 still has a master after the unload"
modprobe vcsw
check_err $? "reloading vcsw"
ns_run S ip link add sw1 type vcsw
check_err $? "a switch after the reload"
log_test "module unload under traffic, reload"

exit $EXIT_STATUS
