#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 90
#
# A vcsw port on a real NIC driver: the VM's two virtio-net NICs share a
# qemu hub with nothing else (scripts/vm-run.sh), so they are wired to
# each other.  One is a port of the switch, the other is H2's interface.
#
#   [H1] eth0 --veth-- p1 [S] sw0 nic0 ==virtio/hub== nic1 [H2]
#   10.44.0.1                                              10.44.0.2
. ./lib.sh

require_cmd ip taskset udp-lat
require_module vcsw
tmp_dir_create
virtio_nics
log_info "NICs: $NIC0, $NIC1 ($(basename "$(readlink /sys/class/net/$NIC0/device/driver)"))"

pstat() {
	ns_exec S ip -j -d link show dev "$1" | tr -d ' \n' |
		sed -n "s/.*\"$2\":{\([^}]*\)}.*/\1/p" |
		sed -n "s/.*\"$3\":\([0-9]*\).*/\1/p"
}
cleanup_test() { nics_return S H2; }

ns_create S
ns_create H1
ns_create H2
ip link set "$NIC0" netns "$(ns_name S)" name nic0 || fatal "move $NIC0"
ip link set "$NIC1" netns "$(ns_name H2)" name nic1 || fatal "move $NIC1"
ip link add eth0 netns "$(ns_name H1)" address 02:00:00:44:00:01 type veth \
	peer name p1 netns "$(ns_name S)" || fatal veth
ns_run S ip link add sw0 type vcsw vc0 takeover rate 100mbit || fatal vcsw
ns_run S ip link set sw0 up
for d in p1 nic0; do
	ns_exec S sysctl -qw net.ipv6.conf.$d.disable_ipv6=1
	ns_run S ip link set $d master sw0 || fatal "$d master sw0"
	ns_run S ip link set $d up
done
ns_exec H1 sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
ns_exec H2 sysctl -qw net.ipv6.conf.nic1.disable_ipv6=1
ns_run H1 ip addr add 10.44.0.1/24 dev eth0
ns_run H1 ip link set eth0 up
ns_run H2 ip addr add 10.44.0.2/24 dev nic1
ns_run H2 ip link set nic1 up

wait_for 10 ns_exec H1 ping -c 1 -W 1 10.44.0.2 > /dev/null
check_err $? "ping over the virtio port"
log_test "ping through a switch port on virtio-net"

rm -f "$TMP_DIR/ready"
ns_bg H2 udp-lat recv --port 9000 --duration 60 --count 100 --log "$TMP_DIR/u.log" \
	--ready "$TMP_DIR/ready" > /dev/null
R=$BG_PID
wait_for 30 test -e "$TMP_DIR/ready" || fatal receiver
before=$(pstat nic0 vc1 packets)
ns_run H1 taskset -c 0 udp-lat send --dst 10.44.0.2 --port 9000 --size 1000 --count 100 --rate 2000 > /dev/null
bg_wait $R
check_err $? "H2 did not get 100 datagrams"
check_eq "in order" 0 "$(awk '$2 < last { bad++ } { last = $2 } END { print bad + 0 }' "$TMP_DIR/u.log")"
[ "$(pstat nic0 vc1 packets)" -ge $((before + 100)) ]
check_err $? "the virtio port sent $(($(pstat nic0 vc1 packets) - before)) frames, want 100"
log_test "UDP through the virtio port, counted, in order"

ns_run S ip link del sw0
check_err $? "deleting the switch with a NIC port"
exit $EXIT_STATUS
