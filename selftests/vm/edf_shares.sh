#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
# vm: deterministic
#
# Best-effort classes share what the regulated VC leaves in proportion to
# their rates: two saturating senders in classes of 3 and 1 kbit/s on a
# 8 Mbit/s link get 75 % and 25 % of the bytes, within 3 points.
#
# Rates far below the link's, so that the VC's service frontier runs
# ahead of real time 2000 times as fast (the rates are weights: the
# classes are served 8 Mbit/s together) and passes the deadlines' cap of
# 2^42 ns (73 min) after about 2.2 s.  The cap was taken from now, and
# from then on every packet got the same deadline and the classes went in
# turn: 62 % for 1:1 over the run (the module before the fix).
#
#   [ns A] veth0 (edf rate 8mbit) -----------> veth1 [ns B]
#     1:1 rate 3kbit besteffort <- sender 1 (port 9101)
#     1:2 rate 1kbit besteffort <- sender 2 (port 9102)
. ./lib.sh

require_cmd tc udp-lat
require_module sch_edf
two_hosts 10

ns_run A tc qdisc add dev veth0 root handle 1: edf rate 8mbit || fatal "edf"
ns_run A tc class add dev veth0 parent 1: classid 1:1 edf rate 3kbit besteffort || fatal "1:1"
ns_run A tc class add dev veth0 parent 1: classid 1:2 edf rate 1kbit besteffort || fatal "1:2"

RUN=4
field() { sed -n "s/.*\b$1=\([0-9.]*\).*/\1/p" | head -n1; }

ns_bg B udp-lat recv --port 9101 --duration $((RUN + 2)) --ready "$TMP_DIR/r1" > "$TMP_DIR/c1"
R1=$BG_PID
ns_bg B udp-lat recv --port 9102 --duration $((RUN + 2)) --ready "$TMP_DIR/r2" > "$TMP_DIR/c2"
R2=$BG_PID
wait_for 10 test -e "$TMP_DIR/r1" -a -e "$TMP_DIR/r2" || fatal "receivers did not start"
# one process per class, so a full class never stalls the other's sender;
# each at twice the link's 960 frames a second, a full class's refusals
# not retried (retries every 100 us cost the VM more than the traffic)
ns_bg A udp-lat send --dst 10.10.0.2 --port 9101 --size 1000 --duration "$RUN" --prio 1:1 \
	--rate 2000 --no-retry > /dev/null
S1=$BG_PID
ns_bg A udp-lat send --dst 10.10.0.2 --port 9102 --size 1000 --duration "$RUN" --prio 1:2 \
	--rate 2000 --no-retry > /dev/null
S2=$BG_PID
bg_wait $S1; bg_wait $S2; bg_wait $R1; bg_wait $R2

b1=$(field bytes < "$TMP_DIR/c1")
b2=$(field bytes < "$TMP_DIR/c2")
share=$(awk -v a="${b1:-0}" -v b="${b2:-0}" 'BEGIN { if (a + b) printf "%.1f", 100 * a / (a + b); else print 0 }')
log_info "bytes: class 1:1 $b1, class 1:2 $b2; share of 1:1 $share %"
ns_exec A tc -s class show dev veth0 | sed 's/^/INFO: /'
awk -v s="$share" 'BEGIN { exit !(s >= 72 && s <= 78) }'
xfail_on_slow check_err $? "class 1:1 got $share % of the bytes, want 75 +- 3"
log_test "best-effort classes 3 : 1 share the link 75 / 25"

total_bps=$(awk -v a="${b1:-0}" -v b="${b2:-0}" -v t=$RUN 'BEGIN { printf "%d", 8 * (a + b) / t }')
log_info "goodput $total_bps bit/s of UDP payload on an 8 Mbit/s link"

exit $EXIT_STATUS
