#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 60
#
# The VM gives tests what the harness promises: the real ip and tc (not
# busybox's), in-tree modules loadable by name with their dependencies,
# our modules known to modprobe, our tools on PATH, network namespaces
# and veth.
#
#   [ns harness-A-$$] veth0 <---> veth1 [ns harness-B-$$]
#       10.99.0.1/24                     10.99.0.2/24
. ./lib.sh

cleanup() { cleanup_netns; }
trap cleanup EXIT

RET=0
ip -V 2>&1 | grep -q iproute2
check_err $? "ip is not iproute2's"
tc -V 2>&1 | grep -q iproute2
check_err $? "tc is not iproute2's"
log_test "real ip and tc"

RET=0
for m in veth dummy sch_fq sch_ets sch_prio sch_tbf sch_netem bridge pktgen; do
	modprobe "$m"
	check_err $? "modprobe $m"
done
log_test "in-tree modules load with dependencies"

RET=0
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

RET=0
command -v fabric-stat > /dev/null
check_err $? "fabric-stat not on PATH"
log_test "our tools on PATH"

RET=0
make_netns A B
ip link add veth0 netns "$(ns A)" type veth peer name veth1 netns "$(ns B)"
in_ns A ip addr add 10.99.0.1/24 dev veth0
in_ns B ip addr add 10.99.0.2/24 dev veth1
in_ns A ip link set veth0 up
in_ns B ip link set veth1 up
wait_for 10 in_ns A ping -c1 -W1 10.99.0.2 > /dev/null
check_err $? "no ping over veth between namespaces"
log_test "namespaces and veth"

RET=0
in_ns A tc qdisc add dev veth0 root handle 1: fq
in_ns A tc -s qdisc show dev veth0 | grep -q 'qdisc fq 1:'
check_err $? "tc cannot attach fq"
log_test "tc attaches in-tree qdiscs"

exit $EXIT_STATUS
