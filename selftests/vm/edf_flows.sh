#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# A million flows: pktgen sends 1,048,560 distinct UDP 5-tuples through
# edf on a dummy device, in a class whose every packet is due 10 s out
# (frame 10s), so each flow keeps deadline state for 10 s after its
# packet.  With flows 1048576 the qdisc tracks every flow of the last
# 10 s (hundreds of thousands) and keeps working.  With the default
# flows 65536 the table stays at that bound, the least recently emptied
# flows are collected and no packet is dropped for want of a flow.
# Every flow is freed when the qdisc goes (the module's count of
# allocated flows comes back to where it was).
#
#   [ns F] pktgen -> dummy0 (edf flows N default 1, 1:1 frame 10s)
. ./lib.sh

require_cmd tc
require_module sch_edf
modprobe pktgen || skip "pktgen not available"
ns_create F
ns_run F ip link add dummy0 type dummy || fatal "dummy"
# no IPv6 chatter in exact packet counts
ns_exec F sysctl -qw net.ipv6.conf.dummy0.disable_ipv6=1
ns_run F ip link set dummy0 up
ns_run F ip addr add 10.12.0.1/24 dev dummy0

PG=/proc/net/pktgen
PKTS=1048560		# lcm(65535 ports, 16 addresses): every pair once
# 1.5 x the default bound, sent within 10 s (about 3 s at the usual 35k
# pps) so that no flow's deadline passes: the bound alone limits the table
PKTS_BOUND=98320

pg() { ns_exec F sh -c "echo '$2' > $PG/$1" || check_err 1 "pktgen: $2"; }

# run_pktgen COUNT [random]: COUNT packets over 65535 source ports and 16
# addresses.  In order, each packet is a new (port, address) pair;
# "random" draws them instead (about 93,600 distinct in 98,320 packets).
run_pktgen() {
	pg kpktgend_0 "rem_device_all"
	pg kpktgend_0 "add_device dummy0"
	pg dummy0 "xmit_mode queue_xmit"
	pg dummy0 "count $1"
	pg dummy0 "pkt_size 60"
	pg dummy0 "dst_min 10.12.1.1"
	pg dummy0 "dst_max 10.12.1.16"
	pg dummy0 "udp_src_min 1"
	pg dummy0 "udp_src_max 65535"
	if [ "${2:-}" = random ]; then
		pg dummy0 "flag UDPSRC_RND"
		pg dummy0 "flag IPDST_RND"
	fi
	pg dummy0 "dst_mac 02:00:00:00:12:02"
	timeout 200 ip netns exec "$(ns_name F)" sh -c "echo start > $PG/pgctrl"
	check_err $? "pktgen run did not finish"
	ns_exec F grep -A2 "^Result" $PG/dummy0 | sed 's/^/INFO: /'
	PPS=$(ns_exec F sed -n 's/^ *\([0-9]*\)pps.*/\1/p' $PG/dummy0)
}

# qd_stat KEY: a statistic of the edf qdisc from `tc -s -j` (not an
# option or drop reason of the same name)
qd_stat() {
	ns_exec F tc -s -j qdisc show dev dummy0 | tr -d ' \n' |
		sed -e 's/"options":{[^}]*}//' -e 's/"drop_reasons":{[^}]*}//' |
		sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"
}

mem_avail() { awk '/MemAvailable/ { print $2 }' /proc/meminfo; }
# flows held by every edf qdisc, counted by the module
FLOWS_ALLOCATED=/sys/module/sch_edf/parameters/flows_allocated
flows_allocated() { cat $FLOWS_ALLOCATED; }

# --- every flow kept -----------------------------------------------------------
ns_run F tc qdisc add dev dummy0 root handle 1: edf flows 1048576 default 1 || fatal "edf"
ns_run F tc class add dev dummy0 parent 1: classid 1:1 edf frame 10s || fatal "1:1"
mem_before=$(mem_avail)
alloc_before=$(flows_allocated)
run_pktgen $PKTS
created=$(qd_stat flows_created)
flows=$(qd_stat flows)
sent=$(ns_exec F tc -s -j qdisc show dev dummy0 | tr -d ' \n' | sed -n 's/.*"packets":\([0-9]*\).*/\1/p')
mem_after=$(mem_avail)
log_info "sent $sent, flows created $created, kept $flows," \
	"MemAvailable $mem_before -> $mem_after kB"
check_eq "packets through the qdisc" $PKTS "$sent"
# distinct 5-tuples can share a 32-bit hash; a handful at most
[ "${created:-0}" -ge $((PKTS - 1000)) ] && [ "$created" -le $PKTS ]
check_err $? "created $created flows for $PKTS distinct 5-tuples"
check_eq "created - collected = kept" "$flows" "$((created - $(qd_stat flows_collected)))"
check_eq "flows allocated by the module: before + kept" "$((alloc_before + flows))" "$(flows_allocated)"
log_test "1,048,560 distinct flows through edf"

# every flow of the last 10 s is still tracked: with pktgen's rate
# (which follows the host's load) that is hundreds of thousands at once
expect=$((10 * PPS)); [ $expect -gt $PKTS ] && expect=$PKTS
log_info "$flows flows tracked at the end; $PPS pps (average) x 10 s = $expect"
[ "${flows:-0}" -ge 100000 ] && [ "$flows" -le $PKTS ]
check_err $? "$flows flows tracked at once, want 100000 or more"
log_test "flows with live deadlines are kept (hundreds of thousands at once)"

ns_run F tc qdisc del dev dummy0 root
check_err $? "deleting the qdisc with a million flows"
# every flow is freed: the module's count is back where it started, and
# so, roughly, is the memory (the log shows it; the slab keeps some pages)
flows_freed() { [ "$(flows_allocated)" = "$alloc_before" ]; }
wait_for 10 flows_freed
check_err $? "flows allocated: $(flows_allocated) after delete, $alloc_before before"
log_info "MemAvailable after delete: $(mem_avail) kB, $mem_before kB before"
log_test "deleting the qdisc frees every flow"

# --- bounded: the default 65536 flows ---------------------------------------------
ns_run F tc qdisc add dev dummy0 root handle 1: edf default 1 || fatal "edf"
ns_run F tc class add dev dummy0 parent 1: classid 1:1 edf frame 10s || fatal "1:1"
run_pktgen $PKTS_BOUND random
created=$(qd_stat flows_created)
collected=$(qd_stat flows_collected)
flows=$(qd_stat flows)
log_info "flows created $created, collected $collected, kept $flows"
check_eq "flows kept at the bound" 65536 "$flows"
check_eq "created - collected = kept" "$flows" "$((created - collected))"
check_eq "packets dropped for want of a flow" 0 "$(ns_exec F tc -s -j qdisc show dev dummy0 |
	tr -d ' \n' | sed -n 's/.*"drop_reasons":{[^}]*"flows":\([0-9]*\).*/\1/p')"
log_test "flows 65536 bounds the table; idle flows are collected"

pg kpktgend_0 "rem_device_all"
ns_run F tc qdisc del dev dummy0 root
exit $EXIT_STATUS
