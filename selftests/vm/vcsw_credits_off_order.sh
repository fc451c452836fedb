#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 150
# vm: deterministic
# kernels: first
#
# "credits off" on a port whose input buffer holds frames: the frames
# that come after must not overtake them straight into an output's
# buffer (vcsw.rst, "Input buffers and credits").
#
#   [H1] eth0 ---- p1 -+- [A] sw0 arch trad, 4 Mbit/s
#                      |     credits on p1, a 256k input buffer
#   [H2] eth0 ---- p2 -+
#   [H3] eth0 ---- p3 -+
#
# H1 sends to H3 at twice the rate of A's port to H3, and to H2 at a
# tenth of it: A's output to H3 is full, and p1's input (a FIFO, trad)
# fills with H1's frames, H3's and a few of H2's behind them, waiting
# for room at H3 while the output to H2 is idle.  (H1 does not speak
# credits: what its grant does not cover is refused at p1.)  Then
# credits go off on p1.  A frame to H2 that came after must wait behind
# the ones to H2 already in the input: H2's log of arrivals must show
# H1's datagrams in order.  Before the fix such frames went straight
# into the idle output to H2 while the older ones waited half a second
# behind H3's.
. ./lib.sh

require_cmd ip udp-lat
require_module vcsw
tmp_dir_create

RATE=4mbit
mac() { echo "02:00:00:5f:00:0$1"; }

for n in A H1 H2 H3; do ns_create $n; done
ns_run A ip link add sw0 type vcsw arch trad rate $RATE flood off || fatal "vcsw"
for h in 1 2 3; do
	fdb_host A p$h H$h "$(mac $h)" "10.95.0.$h/24"
done
ns_run A ip link set p1 type vcsw_slave credits on in_buffer 256k || fatal "credits p1"
# one receiving CPU per veth, as a NIC's queue: only the switch orders
rx_one_cpu A p1 p2 p3
for h in 1 2 3; do rx_one_cpu H$h eth0; done
ns_run A ip link set sw0 up
for h in 1 2 3; do
	ns_run A ip link set p$h up
	ns_run H$h ip link set eth0 up
	host_neighbours $h 10.95.0 1 2 3
done

ns_bg H3 udp-lat recv --port 9000 --duration 12 > /dev/null
ns_bg H2 udp-lat recv --port 9001 --duration 12 --log "$TMP_DIR/h2.log" \
	--ready "$TMP_DIR/ready" > /dev/null
h2=$BG_PID
wait_for 10 test -e "$TMP_DIR/ready" || fatal "H2's receiver did not start"
# 1042-byte frames at 4 Mbit/s: 480 a second
ns_bg H1 udp-lat send --dst 10.95.0.3 --port 9000 --size 1000 --rate 960 \
	--duration 4 > /dev/null
ns_bg H1 udp-lat send --dst 10.95.0.2 --port 9001 --size 1000 --rate 100 --duration 4 \
	--stream 7 > "$TMP_DIR/small.out"
small=$BG_PID

in_held() { vcsw_stat A p1 in_vc1 backlog_packets; }	# best effort: VC1
in_full() { [ "$(in_held)" -ge 150 ] 2>/dev/null; }
wait_for 10 in_full
check_err $? "p1's input did not fill: $(in_held) frames"
held=$(in_held)
ns_run A ip link set p1 type vcsw_slave credits off || fatal "credits off p1"
bg_wait $small
bg_wait $h2

n=$(awk '$1 == 7' "$TMP_DIR/h2.log" | grep -c .)
inv=$(awk '$1 == 7 { if (n++ && $2 < last) bad++; if ($2 > last) last = $2 }
	END { print bad + 0 }' "$TMP_DIR/h2.log")
log_info "p1's input held $held frames at credits off; H2 got $n of H1's datagrams, $inv behind a later one"
# the premise: H2 got datagrams from before and after the change
((n >= 100))
check_err $? "H2 got only $n of H1's datagrams"
[ "$inv" = 0 ]
check_err $? "$inv of H1's datagrams to H2 arrived after a later one"
wait_for 10 vcsw_ports_empty A p1 p2 p3
check_err $? "the switch did not drain"
log_test "credits off under traffic: a destination's frames leave in order"

exit $EXIT_STATUS
