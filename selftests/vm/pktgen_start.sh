#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# The harness's pktgen helper: "pgctrl=start" returns when the run has
# ended, even when pktgen's thread takes the run late.  pktgen's own start
# gives its thread 125 ms to take the run and returns at once if it has
# not; its thread looks every 100 ms, so a host that stops running the VM
# for a moment makes the start return before the run, and a test then
# read counts from a run still going or restarted it with the next run's
# settings (edf_flows sent 991,569 of its 1,048,544 packets).
#
# Here the thread is kept off its CPU on purpose: kpktgend_0 is bound to
# CPU 0, and a real-time busy loop holds CPU 0 for a second from just
# before the start.  The start must still return after the run, every
# packet sent.
#
#   [ns P] pktgen -> dummy0
. ./lib.sh

require_cmd chrt taskset timeout
[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs: CPU 0 is held, the test runs on the other"
# On PREEMPT_RT timers fire from a thread (ktimers/0, SCHED_FIFO 1), which
# the busy loop keeps off CPU 0 as it does pktgen's: timeout's alarm never
# comes, the loop never ends, and RCU stalls (seen on 6.12-rt)
uname -v | grep -q PREEMPT_RT &&
	skip "PREEMPT_RT: the busy loop would hold CPU 0's timer thread too"
modprobe pktgen || skip "pktgen not available"
ns_create P
ns_run P ip link add dummy0 type dummy || fatal "dummy"
ns_run P ip link set dummy0 up
ns_run P ip addr add 10.13.0.1/24 dev dummy0

COUNT=20000
PG=/proc/net/pktgen

# result: dummy0's "Result:" and "pkts-sofar:" lines
result() { ns_exec P grep -E "^(Result|pkts-sofar):" $PG/dummy0 | tr '\n' ' '; }

pktgen P "kpktgend_0=rem_device_all" "kpktgend_0=add_device dummy0" \
	"dummy0=xmit_mode queue_xmit" "dummy0=pkt_size 60" \
	"dummy0=dst_min 10.13.0.2" "dummy0=dst_max 10.13.0.2" \
	"dummy0=dst_mac 02:00:00:00:13:02" || fatal "pktgen setup"

# The busy loop: SCHED_FIFO 1 on CPU 0 for a second; timeout, at FIFO 2
# on the same CPU, preempts it to end it.  The test goes on on CPU 1.
taskset -p -c 1 $$ > /dev/null || fatal "taskset of the test's shell"
taskset -c 0 chrt -f 2 timeout 1 chrt -f 1 sh -c 'while :; do :; done' &
hog=$!
bg_track $hog
sleep 0.1
t0=$EPOCHREALTIME
pktgen P "dummy0=count $COUNT" pgctrl=start
check_err $? "pktgen start"
t1=$EPOCHREALTIME
r=$(result)
log_info "start returned after $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", (b - a) * 1000 }') ms: $r"
case $r in
"Result: OK: "[0-9]*) ;;
*) check_err 1 "the start returned before the run's result: $r" ;;
esac
sofar=$(ns_exec P sed -n 's/^ *pkts-sofar: *\([0-9]*\).*/\1/p' $PG/dummy0)
check_eq "packets sent when the start returned" $COUNT "$sofar"
log_test "pgctrl=start returns after the run when pktgen's thread takes it late"

bg_wait $hog
ns_exec P sh -c "echo rem_device_all > $PG/kpktgend_0"
exit $EXIT_STATUS
