#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 60
# vm: deterministic
# kernels: first
#
# Two classes share a link as configured: htb at 10 Mbit/s with classes
# of 7.5 and 2.5 Mbit/s (ceil 10), both offered 8 Mbit/s by one
# fabric-meter sender (SO_PRIORITY 1:10 and 1:20).  The receiver's
# throughputs split 3 : 1 within 10 % and add up to the link rate.
#
#   [ns A] veth0: htb 1:1 10mbit -+- 1:10 7.5mbit <- class "gold"
#                                 +- 1:20 2.5mbit <- class "bronze"
#     10.23.0.1  fabric-meter send ------------------> veth1 [ns B] recv
. ./lib.sh
. ./meter_lib.sh

require_cmd tc fabric-meter
two_hosts 23 quiet
tc_a() { ns_run A tc "$@" || fatal "tc $*"; }
tc_a qdisc add dev veth0 root handle 1: htb
tc_a class add dev veth0 parent 1: classid 1:1 htb rate 10mbit
tc_a class add dev veth0 parent 1:1 classid 1:10 htb rate 7.5mbit ceil 10mbit
tc_a class add dev veth0 parent 1:1 classid 1:20 htb rate 2.5mbit ceil 10mbit
# short queues: the backlog ends with the run, so neither class drains alone
tc_a qdisc add dev veth0 parent 1:10 pfifo limit 20
tc_a qdisc add dev veth0 parent 1:20 pfifo limit 20

meter_recv B split --port 5201 --duration 10
ns_run A fabric-meter send --dst 10.23.0.2 --port 5201 --duration 2 --quiet \
	--class cbr,rate=8m,size=1000,prio=1:10,name=gold \
	--class cbr,rate=8m,size=1000,prio=1:20,name=bronze > "$TMP_DIR/send.out"
check_err $? "fabric-meter send failed"
bg_wait "$METER_PID"
check_err $? "fabric-meter recv failed: $(cat "$TMP_DIR/split.err")"
sed 's/^/INFO: /' "$TMP_DIR/split.csv"

f=$TMP_DIR/split.csv
gold=$(meter_csv "$f" gold throughput_bps)
bronze=$(meter_csv "$f" bronze throughput_bps)
# htb counts 42 bytes of UDP, IP and Ethernet headers per 1000-byte payload
ratio=$(awk -v g="$gold" -v b="$bronze" 'BEGIN { if (b > 0) printf "%.3f", g / b; else print 0 }')
total=$(awk -v g="$gold" -v b="$bronze" 'BEGIN { printf "%.0f", (g + b) * 1042 / 1000 }')
log_info "gold $gold bit/s, bronze $bronze bit/s (payload), ratio $ratio, wire total $total bit/s"
within "$ratio" 2.7 3.3
xfail_on_slow check_err $? "gold : bronze = $ratio, want 3 +- 10 %"
within "$total" 9000000 11000000
xfail_on_slow check_err $? "total $total bit/s on the wire, want 10 Mbit/s +- 10 %"
log_test "two classes through htb 7.5 : 2.5 get a 3 : 1 throughput split"

exit $EXIT_STATUS
