#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 90
#
# Every attribute of the switch and of a port, with every option set to a
# value that is not its default, comes back from the kernel: as one link
# (RTM_GETLINK, a message sized by the module's get_size), in a dump, and
# in the notifications each change sends.  The module checks each message
# it fills against its own size estimate and warns when the estimate is
# short, so an attribute left out of get_size fails this test (through
# the kernel log) even where slab rounding would have hidden it.
#
#   [H1] eth0 --- p1 -+- sw0 [S]
#   [H2] eth0 --- p2 -+
. ./lib.sh

require_cmd ip
require_module vcsw
tmp_dir_create

ns_create S
# ageing 077 is 77 s, not octal (the mask alone takes hex, as the bridge's)
ns_bg S ip -d monitor link > "$TMP_DIR/monitor"
ns_run S ip link add sw0 type vcsw vc0 ideal rate 300mbit vc0_buffer 96k vc1_buffer 48k \
	fdb_max 2000 ageing 077 group_fwd_mask 0x4008 wormhole on flood off ||
	fatal "vcsw with every option"
ns_run S ip link set sw0 up
for i in 1 2; do
	ns_create H$i
	ip link add eth0 netns "$(ns_name H$i)" address "02:00:00:49:00:0$i" type veth \
		peer name p$i netns "$(ns_name S)" || fatal "veth $i"
	# quiet hosts: the one forwarding entry is the static one below
	ns_exec H$i sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
	ns_run S ip link set p$i master sw0 || fatal "p$i master"
	ns_run S ip link set p$i up
	ns_run H$i ip link set eth0 up
done
ns_run S ip link set p1 type vcsw_slave fdb_add 02:00:00:49:00:01 trust off \
	vc0_rate 12mbit vc0_burst 32k vc0_exceed demote ttd_min -5us ttd_max 2ms ||
	fatal "port with every option"
# credits on a port whose host does not speak them: nothing is sent here
ns_run S ip link set p2 type vcsw_slave credits on credit_unit 128 vc0_in_buffer 16k \
	vc1_in_buffer 12k || fatal "port with every credit option"

sw=$(ns_exec S ip -j -d link show dev sw0 | tr -d ' \n')
port=$(ns_exec S ip -j -d link show dev p1 | tr -d ' \n')
all=$(ns_exec S ip -j -d link show | tr -d ' \n')
has() {	# JSON KEY VALUE
	echo "$1" | grep_quiet "\"$2\":$3[,}]"
	check_err $? "\"$2\":$3 missing"
}
for j in "$sw" "$all"; do
	has "$j" vc0 '"ideal"'
	has "$j" rate 37500000
	has "$j" vc0_buffer 98304
	has "$j" vc1_buffer 49152
	has "$j" fdb_max 2000
	has "$j" ageing 77
	has "$j" fdb_count 1
	has "$j" group_fwd_mask 16392
	has "$j" arch '"ideal"'
	has "$j" wormhole true
	has "$j" flood false
	for k in learned moved aged evicted learn_fail; do
		has "$j" "$k" '[0-9]*'
	done
done
log_test "switch: every attribute, one link and in a dump"

for j in "$port" "$all"; do
	has "$j" trust false
	has "$j" vc0_rate 1500000
	has "$j" vc0_burst 32768
	has "$j" vc0_exceed '"demote"'
	has "$j" ttd_min -5000
	has "$j" ttd_max 2000000
	for k in rx_packets drop_malformed drop_link_local drop_disabled \
		drop_oversize police_drop police_demote ttd_clamped rx_routed drop_route \
		drop_unrouted drop_gso; do
		has "$j" "$k" '[0-9]*'
	done
	for k in packets takeovers order_errors deadline_misses; do
		has "$j" "$k" '[0-9]*'
	done
done
log_test "port: every attribute, one link and in a dump"

port2=$(ns_exec S ip -j -d link show dev p2 | tr -d ' \n')
for j in "$port2" "$all"; do
	has "$j" credits true
	has "$j" credit_unit 128
	has "$j" vc0_in_buffer 16384
	has "$j" vc1_in_buffer 12288
	for k in msgs_sent msgs_received msgs_malformed msgs_off resyncs restarts \
		stalls violations lost_units tx_credits rx_buffer rx_held; do
		has "$j" "$k" '[0-9]*'
	done
done
echo "$port2" | grep_quiet '"in_vc0":{'
check_err $? "no input buffer counters"
log_test "port: credit attributes and counters, one link and in a dump"

# changes send notifications, sized the same way
ns_run S ip link set sw0 type vcsw fdb_max 1999
ns_run S ip link set p2 type vcsw_slave trust off
wait_for 10 grep -q "fdb_max 1999" "$TMP_DIR/monitor"
check_err $? "no notification of the change"
log_test "notifications of changes"

exit $EXIT_STATUS
