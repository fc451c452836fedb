#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
#
# edf under traffic: change, class add/delete, replace, delete and module
# unload while a sender keeps the queue full.  Passing means no kernel
# warning (the harness checks the log), the qdisc's counters stay
# consistent (no negative or stuck backlog), and traffic flows after.
#
#   [ns A] veth0 (edf, rate 20mbit) ----> veth1 [ns B] udp-lat recv
#     10.7.0.1/24                          10.7.0.2/24
. ./lib.sh

require_cmd tc udp-lat
require_module sch_edf
two_hosts 7

# One tc -batch (stopping at the first command that fails, as the &&
# chain did): the test is about the qdisc coming and going under load,
# not about four tc starts of some 100 ms each in the VM; it runs ten
# times.  The kernel loads sch_edf by itself for the first command of
# the batch as for a lone tc.
cat > "$TMP_DIR/edf_setup" <<EOF
qdisc replace dev veth0 root handle 1: edf rate 20mbit
class replace dev veth0 parent 1: classid 1:1 edf control
class replace dev veth0 parent 1: classid 1:2 edf rate 5mbit besteffort
class replace dev veth0 parent 1: classid 1:3 edf frame 5ms smooth
EOF
edf_setup() {
	ns_run A tc -batch "$TMP_DIR/edf_setup"
}

# qlen and backlog of the root qdisc, "qlen backlog"
root_backlog() {
	ns_exec A tc -s -j qdisc show dev veth0 | tr -d ' \n' |
		sed -n 's/.*"backlog":\([0-9]*\),"qlen":\([0-9]*\).*/\2 \1/p'
}

start_traffic() {	# SECONDS
	ns_bg B udp-lat recv --port 7000 --ports 3 --duration "$1" --ready "$TMP_DIR/recv.ready" \
		> "$TMP_DIR/recv.out" 2> "$TMP_DIR/recv.err"
	RECV_PID=$BG_PID
	wait_for 10 test -e "$TMP_DIR/recv.ready" || fatal "receiver did not start"
	rm -f "$TMP_DIR/recv.ready"
	# 3 x 2000 datagrams/s of 1000 bytes against edf's 20 Mbit/s (2500/s):
	# its 300 places (flow_limit 100, three flows) fill within a tenth of
	# a second of a new qdisc, and what it refuses is counted, not
	# retried every 100 us as an unpaced sender did, burning a vCPU
	ns_bg A udp-lat send --dst 10.7.0.2 --port 7000 --size 1000 --duration "$1" \
		--streams 3 --prio 0x10001 --prio 0x10002 --prio 0x10003 \
		--rate 2000 --no-retry \
		> "$TMP_DIR/send.out" 2> "$TMP_DIR/send.err"
	SEND_PID=$BG_PID
}

edf_setup || fatal "cannot set up edf"
start_traffic 600

# Between the steps the queue refills: at 3500 datagrams/s above what
# edf lets out, 300 in less than 0.1 s; with the next tc start's own
# 0.1 s that is the nap below, where 0.2 to 0.3 s were slept.
refill() { nap 0.1; }

# --- changes under load ----------------------------------------------------------
for i in 1 2 3 4 5; do
	ns_run A tc qdisc change dev veth0 root handle 1: edf limit $((100 * i)) flow_limit 50
	check_err $? "qdisc change $i"
	ns_run A tc class change dev veth0 classid 1:2 edf rate $((i))mbit besteffort
	check_err $? "class change $i"
	refill
done
log_test "qdisc and class changes under load"

ns_run A tc qdisc change dev veth0 root handle 1: edf limit 1 flow_limit 1
check_err $? "shrinking the limit under load"
nap 0.2	# 1200 datagrams offered meanwhile
read -r qlen backlog <<< "$(root_backlog)"
[ "${qlen:-99}" -le 1 ]
check_err $? "qlen $qlen above limit 1"
ns_run A tc qdisc change dev veth0 root handle 1: edf limit 10000 flow_limit 100
# (the queue drains by itself within the sleep, so whether the change
# dropped the excess is edf_config's check, where nothing leaves)
log_test "limit shrunk under load: the queue holds at most the new limit"

for i in 1 2 3; do
	ns_run A tc class del dev veth0 classid 1:2
	check_err $? "class delete $i under load"
	refill
	ns_run A tc class add dev veth0 parent 1: classid 1:2 edf rate 5mbit besteffort
	check_err $? "class add $i under load"
	refill
done
log_test "class delete/add under load"

for i in 1 2 3; do
	ns_run A tc qdisc del dev veth0 root
	check_err $? "qdisc delete $i under load"
	edf_setup
	check_err $? "qdisc re-add $i under load"
	refill
done
log_test "qdisc delete/add under load"

for i in 1 2 3; do
	ns_run A tc qdisc replace dev veth0 root handle 2: pfifo limit 100
	check_err $? "replace edf by pfifo $i"
	refill
	edf_setup
	check_err $? "replace pfifo by edf $i"
	refill
done
log_test "qdisc replace under load"

# --- module unload under load ----------------------------------------------------
for i in 1 2 3; do
	ns_run A tc qdisc del dev veth0 root
	modprobe -r sch_edf
	check_err $? "modprobe -r sch_edf under load ($i)"
	! module_is_loaded sch_edf
	check_err $? "sch_edf still loaded"
	# the kernel loads it again by itself on the next tc command
	edf_setup
	check_err $? "edf set up again after unload $i"
	refill
done
log_test "module unload and autoload under load"

# --- traffic still flows, accounting is sane ---------------------------------------
sent_pkts() {
	ns_exec A tc -s -j qdisc show dev veth0 | tr -d ' \n' |
		sed -n 's/.*"packets":\([0-9]*\).*/\1/p'
}
sends_more_than() { [ "$(sent_pkts)" -gt "$1" ]; }
is_empty() { [ "$(root_backlog)" = "0 0" ]; }
before=$(sent_pkts)
wait_for 10 sends_more_than "${before:-0}"
check_err $? "edf sends nothing after the churn ($before -> $(sent_pkts) packets)"
log_test "traffic flows through edf after the churn"

# the traffic was sized to outlast any churn: stop it now
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
log_test "empty qdisc reports qlen 0 and backlog 0"

ns_run A tc qdisc del dev veth0 root
modprobe -r sch_edf
check_err $? "final unload"
log_test "final unload"

exit $EXIT_STATUS
