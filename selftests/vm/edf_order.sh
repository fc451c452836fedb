#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
# vm: deterministic
#
# Departure order between flows of different rates follows the virtual
# clock D(Pk) = max(D(Pk-1), now) + len / rate: two backlogged flows of
# 800 and 200 kbit/s leave interleaved by their deadlines (4 : 1), and
# each flow's own packets leave in order.
#
#   [ns A] veth0 (edf rate 2mbit) ---> veth1 [ns B] udp-lat recv --log
#     10.8.0.1/24                        10.8.0.2/24
#     1:1 rate 800kbit  <- stream 0
#     1:2 rate 200kbit  <- stream 1
. ./lib.sh

require_cmd tc udp-lat
require_module sch_edf
two_hosts 8

ns_run A tc qdisc add dev veth0 root handle 1: edf rate 2mbit || fatal "edf"
ns_run A tc class add dev veth0 parent 1: classid 1:1 edf rate 800kbit || fatal "1:1"
ns_run A tc class add dev veth0 parent 1: classid 1:2 edf rate 200kbit || fatal "1:2"

BURST=40
SIZE=1000			# UDP payload
WIRE=$((SIZE + 8 + 20 + 14))	# what the qdisc counts: Ethernet frame

ns_bg B udp-lat recv --port 8000 --duration 60 --count $((2 * BURST)) \
	--log "$TMP_DIR/order.log" --ready "$TMP_DIR/ready" > "$TMP_DIR/recv.out"
RECV=$BG_PID
wait_for 10 test -e "$TMP_DIR/ready" || fatal "receiver did not start"
ns_run A udp-lat send --dst 10.8.0.2 --port 8000 --same-port --size $SIZE \
	--streams 2 --prio 1:1 --prio 1:2 --burst $BURST > "$TMP_DIR/send.out" ||
	fatal "sender failed"
bg_wait "$RECV"
check_err $? "receiver got $(grep -c . "$TMP_DIR/order.log") of $((2 * BURST)) packets"
log_test "all $((2 * BURST)) packets arrive"

# Expected deadline of each packet, relative to its flow's start: both
# flows start together (the sender alternates), so the k-th packet of a
# flow of rate R is due (k + 1) * WIRE / R.  Walk the arrival order and
# count departures that overtook a packet due more than TOL earlier.
# The first few packets left before the other flow's burst was queued.
result=$(awk -v wire=$WIRE -v r0=100000 -v r1=25000 -v tol=0.002 -v skip=4 '
	{
		r = ($1 == 0) ? r0 : r1
		d = ($2 + 1) * wire / r
		n++
		if ($2 != next_seq[$1] + 0) reorder++
		next_seq[$1] = $2 + 1
		if (n > skip && d < maxd - tol) inv++
		if (d > maxd) maxd = d
		if (n <= 25 && $1 == 0) first0++
	}
	END { printf "%d %d %d\n", inv + 0, reorder + 0, first0 + 0 }
' "$TMP_DIR/order.log")
read -r inversions reorders first0 <<< "$result"
log_info "deadline inversions $inversions, in-flow reorders $reorders, stream 0 in the first 25: $first0"
xfail_on_slow check_eq "packets that left before an earlier deadline" 0 "$inversions"
log_test "departures in deadline order (EDF over the virtual clocks)"

check_eq "packets out of order within a flow" 0 "$reorders"
log_test "each flow's packets in order"

# 4 : 1 rates: of the first 25 departures, 20 belong to the faster flow
[ "$first0" -ge 19 ] && [ "$first0" -le 21 ]
xfail_on_slow check_err $? "stream 0 has $first0 of the first 25 departures, want 20 +- 1"
log_test "interleaving follows the rates 4 : 1"

exit $EXIT_STATUS
