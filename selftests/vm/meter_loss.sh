#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 60
# vm: deterministic
# kernels: first
#
# fabric-meter counts losses exactly: 8 Mbit/s of CBR into a 4 Mbit/s tbf
# whose child pfifo holds 5 packets.  The pfifo drops about half; the
# receiver's lost equals sent - received (sent from the sender's end mark)
# and equals the pfifo's drop counter.
#
#   [ns A] veth0: tbf rate 4mbit --> pfifo limit 5 -----> veth1 [ns B]
#     10.22.0.1   fabric-meter send (cbr 8 Mbit/s)          10.22.0.2 recv
. ./lib.sh
. ./meter_lib.sh

require_cmd tc fabric-meter
two_hosts 22 quiet
ns_run A tc qdisc add dev veth0 root handle 1: tbf rate 4mbit burst 3000 limit 30000 ||
	fatal "tbf"
ns_run A tc qdisc add dev veth0 parent 1:1 handle 10: pfifo limit 5 || fatal "pfifo"

meter_recv B loss --port 5201 --duration 10
ns_run A fabric-meter send --dst 10.22.0.2 --port 5201 --duration 1 --quiet \
	--class cbr,rate=8m,size=1000,name=cbr > "$TMP_DIR/send.out"
check_err $? "fabric-meter send failed"
bg_wait "$METER_PID"
check_err $? "fabric-meter recv failed: $(cat "$TMP_DIR/loss.err")"
sed 's/^/INFO: /' "$TMP_DIR/loss.csv"
ns_exec A tc -s qdisc show dev veth0 | sed 's/^/INFO: /'

f=$TMP_DIR/loss.csv
sent=$(meter_csv "$f" cbr sent)
recvd=$(meter_csv "$f" cbr received)
lost=$(meter_csv "$f" cbr lost)
drops=$(ns_exec A tc -s qdisc show dev veth0 |
	awk '/^qdisc pfifo 10:/ { p = 1; next } p && /dropped/ { sub(",", "", $7); print $7; exit }')
log_info "sent $sent received $recvd lost $lost pfifo dropped $drops"
xfail_on_slow check_eq "datagrams sent (1000 pps for 1 s)" 1000 "$sent"
check_eq "lost = sent - received" "$((sent - recvd))" "$lost"
check_eq "lost = the pfifo's drops" "$drops" "$lost"
within "$lost" 300 700
xfail_on_slow check_err $? "lost $lost of $sent, want about half"
log_test "losses counted: lost = sent - received = qdisc drops"

exit $EXIT_STATUS
