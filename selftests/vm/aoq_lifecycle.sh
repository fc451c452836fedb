#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# aoq under traffic: children that drop (a tiny pfifo) and that hold frames
# back (tbf, netem), mode and weight changes, lane delete/add, child
# grafts, qdisc replace and module unload while GSO senders keep every
# lane busy.  Passing means no kernel warning (the harness checks the log),
# qlen and backlog back at 0 when the traffic stops, and traffic flowing
# after the churn.
#
#   [ns A] veth0 (aoq 1:, lanes 1:1..1:4) ----> veth1 [ns B] udp-lat recv
#     10.17.0.1/24                               10.17.0.2/24
. ./lib.sh

require_cmd tc udp-lat
require_module sch_aoq
two_hosts 17

aoq_setup() {
	# default 1: ARP and IPv6 chatter need a lane too
	ns_run A tc qdisc replace dev veth0 root handle 1: aoq default 1 "$@" &&
	ns_run A tc class replace dev veth0 parent 1: classid 1:1 aoq &&
	ns_run A tc class replace dev veth0 parent 1: classid 1:2 aoq &&
	ns_run A tc class replace dev veth0 parent 1: classid 1:3 aoq &&
	ns_run A tc class replace dev veth0 parent 1: classid 1:4 aoq &&
	# 1:2 drops (5 frames, a GSO message is 44), 1:3 and 1:4 hold back
	ns_run A tc qdisc replace dev veth0 parent 1:2 handle 12: pfifo limit 5 &&
	ns_run A tc qdisc replace dev veth0 parent 1:3 handle 13: tbf rate 20mbit burst 20k limit 200k &&
	ns_run A tc qdisc replace dev veth0 parent 1:4 handle 14: netem delay 2ms limit 200
}

root_backlog() {	# "qlen backlog" of the root qdisc
	ns_exec A tc -s -j qdisc show dev veth0 | tr -d ' \n' |
		sed -n 's/.*"backlog":\([0-9]*\),"qlen":\([0-9]*\).*/\2 \1/p'
}
sent_pkts() {
	ns_exec A tc -s -j qdisc show dev veth0 | tr -d ' \n' |
		sed -n 's/.*"packets":\([0-9]*\).*/\1/p'
}
sends_more_than() { [ "$(sent_pkts)" -gt "$1" ]; }
is_empty() { [ "$(root_backlog)" = "0 0" ]; }

start_traffic() {	# SECONDS
	ns_bg B udp-lat recv --port 7000 --ports 4 --duration "$1" \
		--ready "$TMP_DIR/recv.ready" > "$TMP_DIR/recv.out" 2> "$TMP_DIR/recv.err"
	RECV_PID=$BG_PID
	wait_for 10 test -e "$TMP_DIR/recv.ready" || fatal "receiver did not start"
	rm -f "$TMP_DIR/recv.ready"
	ns_bg A udp-lat send --dst 10.17.0.2 --port 7000 --size 1400 \
		--frame-bytes 60000 --frame-interval 20000 --gso --duration "$1" --streams 4 --no-retry \
		--prio 1:1 --prio 1:2 --prio 1:3 --prio 1:4 \
		> "$TMP_DIR/send.out" 2> "$TMP_DIR/send.err"
	SEND_PID=$BG_PID
}

aoq_setup || fatal "cannot set up aoq"
start_traffic 280
before=$(sent_pkts)
wait_for 10 sends_more_than "${before:-0}"
check_err $? "no traffic through aoq"
log_test "GSO traffic through lanes with dropping and holding children"

for m in fbrr arr pbrr aoq fbrr aoq; do
	ns_run A tc qdisc change dev veth0 root handle 1: aoq mode $m stall 10ms
	check_err $? "mode $m under load"
	sleep 0.2
done
ns_run A tc class change dev veth0 classid 1:1 aoq weight 4
check_err $? "weight change under load"
sleep 0.2
ns_run A tc class change dev veth0 classid 1:1 aoq weight 1
log_test "mode and weight changes under load"

for i in 1 2 3; do
	ns_run A tc class del dev veth0 classid 1:3
	check_err $? "lane delete $i under load"
	sleep 0.2
	ns_run A tc class add dev veth0 parent 1: classid 1:3 aoq &&
	ns_run A tc qdisc add dev veth0 parent 1:3 handle 13: tbf rate 20mbit burst 20k limit 200k
	check_err $? "lane add $i under load"
	sleep 0.2
done
log_test "lane delete/add under load"

for i in 1 2 3; do
	ns_run A tc qdisc replace dev veth0 parent 1:4 handle 24: pfifo limit 3
	check_err $? "graft pfifo over netem $i"
	sleep 0.2
	ns_run A tc qdisc del dev veth0 parent 1:4 handle 24:
	check_err $? "ungraft $i"
	sleep 0.2
	ns_run A tc qdisc replace dev veth0 parent 1:4 handle 14: netem delay 2ms limit 200
	check_err $? "graft netem $i"
done
log_test "child grafts under load"

for i in 1 2 3; do
	ns_run A tc qdisc replace dev veth0 root handle 2: pfifo limit 100
	check_err $? "replace aoq by pfifo $i"
	sleep 0.2
	aoq_setup mode pbrr stall 5ms
	check_err $? "replace pfifo by aoq $i"
	sleep 0.2
done
log_test "qdisc replace under load"

for i in 1 2; do
	ns_run A tc qdisc del dev veth0 root
	modprobe -r sch_aoq
	check_err $? "modprobe -r sch_aoq under load ($i)"
	! module_is_loaded sch_aoq
	check_err $? "sch_aoq still loaded"
	aoq_setup
	check_err $? "aoq set up again after unload $i"
	sleep 0.3
done
log_test "module unload and autoload under load"

before=$(sent_pkts)
wait_for 10 sends_more_than "${before:-0}"
check_err $? "aoq sends nothing after the churn ($before -> $(sent_pkts) packets)"
log_test "traffic flows through aoq after the churn"

# the dropping lane drops once a message reaches it after the last setup
lane2_dropped() {
	ns_exec A tc -s class show dev veth0 classid 1:2 | grep -q "drops [1-9]"
}
wait_for 20 lane2_dropped
kill "$SEND_PID" 2>/dev/null
bg_wait "$SEND_PID"
kill "$RECV_PID" 2>/dev/null
bg_wait "$RECV_PID"
grep -q '^total packets=[1-9]' "$TMP_DIR/recv.out"
check_err $? "receiver got nothing: $(cat "$TMP_DIR/recv.err")"
wait_for 10 is_empty
read -r qlen backlog <<< "$(root_backlog)"
check_eq "qlen when idle" 0 "$qlen"
check_eq "backlog when idle" 0 "$backlog"
# the dropping lane did drop, and says so
lane2_dropped
check_err $? "lane 1:2 (pfifo limit 5) shows no drops: $(ns_exec A tc -s class show dev veth0 classid 1:2)"
log_test "empty qdisc reports qlen 0 and backlog 0; drops counted"

ns_run A tc qdisc del dev veth0 root
modprobe -r sch_aoq
check_err $? "final unload"
log_test "final unload"

exit $EXIT_STATUS
