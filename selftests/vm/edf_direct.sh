#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
# vm: deterministic
#
# A packet that finds edf empty waits in no heap (the direct packet,
# sch_edf_main.c); the next packet queued must first put it in its heap, or
# the direct packet would leave before packets with earlier deadlines or
# of a higher VC.  The qdisc paces at 8 kbit/s, so after the first packet
# leaves the next departure is half a second away: the second packet sent
# waits there as the direct packet while the others arrive.  Nothing but
# the test's packets may cross (two_hosts quiet: no ARP, no IPv6), or
# another would be the first and take the pacer's slot.
#
#   [ns A] veth0 (edf rate 8kbit) ---> veth1 [ns B] udp-lat recv --log
#
# The sender alternates its two streams: 0, 1, 0, 1, 0, 1.  Stream 1's
# first packet is the direct one; every packet of stream 0 is due before
# it, so the order must be 0, 0, 0, 1, 1, 1.
. ./lib.sh

require_cmd tc udp-lat
require_module sch_edf
two_hosts 61 quiet

SIZE=500		# UDP payload: 542-byte frames, 0.54 s each at 8 kbit/s
PER_STREAM=3

# order CLASS0 CLASS1: ORDER, the streams in the order they arrived at B
order() {
	local recv
	rm -f "$TMP_DIR/order.log" "$TMP_DIR/ready"
	ns_bg B udp-lat recv --port 8000 --duration 30 --count $((2 * PER_STREAM)) \
		--log "$TMP_DIR/order.log" --ready "$TMP_DIR/ready" > /dev/null
	recv=$BG_PID
	wait_for 10 test -e "$TMP_DIR/ready" || fatal "receiver did not start"
	ns_run A udp-lat send --dst 10.61.0.2 --port 8000 --same-port --size $SIZE \
		--streams 2 --prio "$1" --prio "$2" --burst $PER_STREAM > /dev/null ||
		fatal "sender failed"
	bg_wait "$recv" || fatal "receiver got $(grep -c . "$TMP_DIR/order.log") packets"
	ORDER=$(awk '{ printf "%s", $1 }' "$TMP_DIR/order.log")
}

# spills: the test did what it says, a direct packet went into its heap
# (direct_spills, once per busy period at most: here one or more)
spills() {
	local n
	n=$(qdisc_stat A veth0 direct_spills)
	[ "${n:-0}" -ge 1 ]
	check_err $? "no direct packet was put in a heap (direct_spills ${n:-none})"
}

# --- a higher VC queued behind the direct packet -------------------------------------
ns_run A tc qdisc add dev veth0 root handle 1: edf rate 8kbit || fatal "edf"
ns_run A tc class add dev veth0 parent 1: classid 1:1 edf rate 4kbit || fatal "1:1"
ns_run A tc class add dev veth0 parent 1: classid 1:2 edf rate 4kbit besteffort ||
	fatal "1:2"
order 1:1 1:2
check_eq "streams in departure order (0: regulated, 1: best effort)" 000111 "$ORDER"
spills
log_test "a regulated packet leaves before the best-effort packet that waited alone"

# --- an earlier deadline queued behind the direct packet -----------------------------
# stream 1 (2 kbit/s) is due 2 s after it arrives, stream 0 (1 mbit/s)
# within milliseconds
ns_run A tc qdisc del dev veth0 root
ns_run A tc qdisc add dev veth0 root handle 1: edf rate 8kbit || fatal "edf"
ns_run A tc class add dev veth0 parent 1: classid 1:1 edf rate 1mbit || fatal "1:1"
ns_run A tc class add dev veth0 parent 1: classid 1:2 edf rate 2kbit || fatal "1:2"
order 1:1 1:2
check_eq "streams in departure order (0: due first)" 000111 "$ORDER"
spills
log_test "earlier deadlines leave before the packet that waited alone"

exit $EXIT_STATUS
