#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 90
#
# Classification order of edf: skb->priority naming a class, then tc
# filters, then the priomap by skb->priority, then the "default" class,
# then the built-in default class (counted as unclassified).  Exact
# packet counts per class.  Rate estimators on classes.
#
#   [ns A] veth0 (edf 1:) -------------------------------> veth1 [ns B]
#     1:1 control               <- SO_PRIORITY 1:1
#     1:2 rate 1mbit            <- priomap: priority 3 -> 2
#     1:3 rate 1mbit besteffort <- u32 filter: UDP dport 9303
. ./lib.sh

require_cmd tc udp-lat
require_module sch_edf
two_hosts 13 quiet

ns_run A tc qdisc add dev veth0 root handle 1: edf priomap 0 0 0 2 || fatal "edf"
ns_run A tc class add dev veth0 parent 1: classid 1:1 edf control || fatal "1:1"
ns_run A tc class add dev veth0 parent 1: classid 1:2 edf rate 1mbit || fatal "1:2"
ns_run A tc class add dev veth0 parent 1: classid 1:3 edf rate 1mbit besteffort || fatal "1:3"
ns_run A tc filter add dev veth0 parent 1: protocol ip prio 1 u32 \
	match ip dport 9303 0xffff flowid 1:3 || fatal "filter"

# a receiver on every port, so no ICMP error makes a send fail
ns_bg B udp-lat recv --port 9301 --ports 4 --duration 3600 --ready "$TMP_DIR/ready" > /dev/null
wait_for 10 test -e "$TMP_DIR/ready" || fatal "receiver did not start"

# send PORT PRIO: 10 datagrams, then wait until the qdisc has sent them
# (a 1 Mbit/s class holds each back for its eligible time)
send() {
	ns_exec A udp-lat send --dst 10.13.0.2 --port "$1" --prio "$2" --count 10 \
		--rate 1000 > /dev/null
	wait_for 20 drained || check_err 1 "the qdisc did not drain"
}
drained() {
	ns_exec A tc -s qdisc show dev veth0 | grep_quiet ' backlog 0b 0p '
}
# pkts CLASSID: packets the class has sent
pkts() {
	ns_exec A tc -s class show dev veth0 classid "$1" |
		sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' | head -n1
}
unclassified() {
	ns_exec A tc -s -j qdisc show dev veth0 | tr -d ' \n' |
		sed -n 's/.*"unclassified":\([0-9]*\).*/\1/p'
}

send 9301 1:1
check_eq "1:1 after priority 1:1" 10 "$(pkts 1:1)"
log_test "skb->priority naming a class selects it"

send 9302 3
check_eq "1:2 after priority 3" 10 "$(pkts 1:2)"
log_test "priomap maps priority 3 to 1:2"

send 9303 0
check_eq "1:3 after dport 9303" 10 "$(pkts 1:3)"
log_test "a u32 filter selects 1:3"

send 9303 1:1
check_eq "1:1 after priority 1:1 to the filtered port" 20 "$(pkts 1:1)"
check_eq "1:3 unchanged" 10 "$(pkts 1:3)"
log_test "skb->priority naming a class goes before filters"

send 9304 0
check_eq "unclassified" 10 "$(unclassified)"
check_eq "1:1 unchanged" 20 "$(pkts 1:1)"
check_eq "1:2 unchanged" 10 "$(pkts 1:2)"
check_eq "1:3 unchanged" 10 "$(pkts 1:3)"
log_test "the rest goes to the built-in default class"

ns_run A tc qdisc change dev veth0 root handle 1: edf default 3
send 9304 0
check_eq "1:3 after default 3" 20 "$(pkts 1:3)"
check_eq "unclassified unchanged" 10 "$(unclassified)"
log_test "default names the class for the rest"

# the priomap and "default" are resolved to classes when either or the
# classes change: a band whose class goes falls back to "default", and
# takes its class again when it comes back
ns_run A tc class del dev veth0 classid 1:2 || fatal "del 1:2"
send 9302 3
check_eq "1:3 after priority 3 without 1:2" 30 "$(pkts 1:3)"
ns_run A tc class add dev veth0 parent 1: classid 1:2 edf rate 1mbit || fatal "1:2 again"
send 9302 3
check_eq "the new 1:2 after priority 3" 10 "$(pkts 1:2)"
check_eq "1:3 unchanged" 30 "$(pkts 1:3)"
ns_run A tc qdisc change dev veth0 root handle 1: edf default 0
send 9304 0
check_eq "unclassified after default 0" 20 "$(unclassified)"
log_test "a deleted class's band falls back to default, and a new class takes it"

# rate estimators on classes ("tc class add ... estimator"), as the
# in-tree classful qdiscs keep them: tc -s shows the class's rate
# class_rate CLASSID: the class's estimated rate line, "rate R Npps"
class_rate() {
	ns_exec A tc -s class show dev veth0 classid "$1" |
		sed -n 's/^ *\(rate [^ ]* [0-9]*pps\).*/\1/p'
}
ns_run A tc class add dev veth0 parent 1: classid 1:4 estimator 250msec 1sec \
	edf control || fatal "1:4 with an estimator"
ns_exec A udp-lat send --dst 10.13.0.2 --port 9301 --prio 1:4 --count 400 \
	--rate 200 > /dev/null
rate=$(class_rate 1:4)
log_info "1:4 after 2 s at 200 datagrams/s: $rate"
[[ $rate =~ ^rate\ [1-9][0-9.]*[KM]?bit\ [1-9][0-9]*pps$ ]]
check_err $? "1:4 shows no rate, or none measured: '$rate'"
check_eq "1:1 without an estimator shows no rate" "" "$(class_rate 1:1)"
ns_run A tc class change dev veth0 classid 1:4 estimator 500msec 2sec edf control
check_err $? "a class's estimator replaced"
ns_run A tc class change dev veth0 classid 1:1 estimator 500msec 2sec edf control
check_err $? "an estimator added to a class"
[[ $(class_rate 1:1) == rate* ]]
check_err $? "1:1 shows no rate after its estimator came"
ns_run A tc class del dev veth0 classid 1:4 || check_err 1 "a class with an estimator deleted"
log_test "rate estimators on classes: tc -s shows the rate"

exit $EXIT_STATUS
