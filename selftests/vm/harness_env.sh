#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 60
#
# The VM gives tests what the harness promises: the real ip and tc (not
# busybox's), in-tree modules loadable by name with their dependencies,
# our modules known to modprobe, our tools on PATH, network namespaces
# and veth.
#
#   [ns A] veth0 <---> veth1 [ns B]
#     10.99.0.1/24      10.99.0.2/24
. ./lib.sh

ip -V 2>&1 | grep_quiet iproute2
check_err $? "ip is not iproute2's"
tc -V 2>&1 | grep_quiet iproute2
check_err $? "tc is not iproute2's"
log_test "real ip and tc"

for m in veth dummy sch_fq sch_ets sch_prio sch_tbf sch_netem bridge pktgen; do
	modprobe "$m"
	check_err $? "modprobe $m"
done
log_test "in-tree modules load with dependencies"

n=0
for ko in /lib/modules/"$(uname -r)"/updates/fabric-qos/*.ko; do
	[ -e "$ko" ] || continue
	m=$(basename "$ko" .ko)
	modinfo "$m" > /dev/null
	check_err $? "modprobe does not know $m"
	n=$((n + 1))
done
[ "$n" -gt 0 ]
check_err $? "no fabric-qos module installed in the VM"
log_test "our $n module(s) known to modprobe"

command -v fabric-stat > /dev/null
check_err $? "fabric-stat not on PATH"
log_test "our tools on PATH"

ns_create A
ns_create B
veth_create A veth0 10.99.0.1/24 B veth1 10.99.0.2/24 02:00:00:00:99:02
wait_for 10 ns_exec A ping -c1 -W1 10.99.0.2 > /dev/null
check_err $? "no ping over veth between namespaces"
log_test "namespaces and veth"

ns_run A tc qdisc add dev veth0 root handle 1: fq
ns_exec A tc -s qdisc show dev veth0 | grep_quiet 'qdisc fq 1:'
check_err $? "tc cannot attach fq"
log_test "tc attaches in-tree qdiscs"

exit $EXIT_STATUS
