#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# edf under mq on a multi-queue device, the configuration Documentation/
# edf.rst ("Multi-queue devices") recommends: one edf per transmit queue,
# the stack spreading sockets over the queues by their hash, and a clsact
# egress filter (skbedit queue_mapping) steering the regulated traffic to
# one queue so that it shares one deadline order.  Exact packet counts per
# instance; every datagram reaches the receiver.
#
#   [ns A] veth0, 4 queues, mq 1: -----------------------------> veth1 [ns B]
#     1:1 .. 1:4  edf 11: .. 14:, each: 1N:1 rate 50mbit (default)
#                                       1N:2 control
#     clsact egress: UDP dport 9472..9535 -> queue 3 (edf 13:), class 13:2
. ./lib.sh

require_cmd tc udp-lat
require_module sch_edf
require_module act_skbedit

STREAMS=64	# sockets: 4 queues all get some (each misses with p < 1e-7)
COUNT=20	# datagrams per socket
PORT=9472	# 64 ports, 9472..9535: dport & 0xffc0 == 9472

tmp_dir_create
ns_create A
ns_create B
ip link add veth0 numtxqueues 4 numrxqueues 4 netns "$(ns_name A)" type veth \
	peer name veth1 numtxqueues 4 numrxqueues 4 netns "$(ns_name B)" ||
	fatal "cannot create a 4-queue veth pair"
MAC=02:00:00:00:21:02
ns_run B ip link set veth1 address "$MAC" &&
ns_run A ip addr add 10.21.0.1/24 dev veth0 &&
ns_run B ip addr add 10.21.0.2/24 dev veth1 &&
ns_exec A sysctl -qw net.ipv6.conf.veth0.disable_ipv6=1 &&
ns_run A ip link set veth0 up && ns_run B ip link set veth1 up &&
ns_run A ip neigh replace 10.21.0.2 lladdr "$MAC" dev veth0 nud permanent &&
ns_run B ip neigh replace 10.21.0.1 lladdr "$(ns_mac A veth0)" dev veth1 nud permanent ||
	fatal "cannot configure the veth pair"

ns_run A tc qdisc add dev veth0 root handle 1: mq || fatal "mq"
for q in 1 2 3 4; do
	ns_run A tc qdisc add dev veth0 parent "1:$q" handle "1$q:" edf default 1 &&
	ns_run A tc class add dev veth0 parent "1$q:" classid "1$q:1" edf rate 50mbit &&
	ns_run A tc class add dev veth0 parent "1$q:" classid "1$q:2" edf control ||
		fatal "edf on queue $q"
done
check_eq "edf instances under mq" 4 \
	"$(ns_exec A tc qdisc show dev veth0 | grep -c '^qdisc edf 1[1-4]: parent 1:[1-4] ')"
log_test "one edf per transmit queue under mq"

ns_bg B udp-lat recv --port "$PORT" --ports "$STREAMS" --duration 3600 \
	--ready "$TMP_DIR/ready" > /dev/null
wait_for 10 test -e "$TMP_DIR/ready" || fatal "receiver did not start"

# sent QDISC [CLASS]: packets an edf instance (or one of its classes) sent
sent() {
	if [[ -n ${2:-} ]]; then
		ns_exec A tc -s class show dev veth0 classid "$2"
	else
		ns_exec A tc -s qdisc show dev veth0 | sed -n "/^qdisc edf $1 /,/^qdisc/p"
	fi | sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' | head -n1
}
rx() { ns_exec B cat /sys/class/net/veth1/statistics/rx_packets; }
drained() {
	! ns_exec A tc -s qdisc show dev veth0 | grep ' backlog ' | grep -vq ' backlog 0b 0p '
}
send() {
	ns_exec A udp-lat send --dst 10.21.0.2 --port "$PORT" --streams "$STREAMS" \
		--count "$COUNT" --rate 2000 > /dev/null || check_err 1 "udp-lat send failed"
	wait_for 20 drained || check_err 1 "the queues did not drain"
}

total=$((STREAMS * COUNT))
rx0=$(rx)
send
sum=0 used=0
for q in 1 2 3 4; do
	n=$(sent "1$q:")
	log_info "queue $q: edf 1$q: sent $n packets"
	sum=$((sum + n))
	((n > 0)) && used=$((used + 1))
done
check_eq "packets sent by the four instances" "$total" "$sum"
check_eq "queues used by $STREAMS sockets" 4 "$used"
check_eq "packets the receiver got" "$total" "$(($(rx) - rx0))"
log_test "sockets spread over the queues, each queue's edf sends its share"

# steer the 64 ports to queue 3 (queue_mapping counts from 0) and to its
# control class
before=()
for q in 1 2 3 4; do
	before[q]=$(sent "1$q:")
done
ctl0=$(sent 13: 13:2)
ns_run A tc qdisc add dev veth0 clsact &&
ns_run A tc filter add dev veth0 egress protocol ip prio 1 u32 \
	match ip dport "$PORT" 0xffc0 \
	action skbedit queue_mapping 2 priority 13:2 || fatal "the steering filter"
rx0=$(rx)
send
for q in 1 2 4; do
	check_eq "queue $q after steering" "${before[q]}" "$(sent "1$q:")"
done
check_eq "queue 3 after steering" "$((before[3] + total))" "$(sent 13:)"
check_eq "13:2 (control) after steering" "$((ctl0 + total))" "$(sent 13: 13:2)"
check_eq "packets the receiver got" "$total" "$(($(rx) - rx0))"
log_test "skbedit queue_mapping on clsact egress steers traffic to one edf"

exit $EXIT_STATUS
