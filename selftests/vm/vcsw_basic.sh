#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# vcsw basics: three hosts on one switch.
#  - configuration: options shown by ip -d, ranges refused with a reason;
#  - connectivity: ARP floods, learning, ping and UDP between every pair;
#  - static entries: fdb_add / fdb_del through the port's slave options;
#  - frames without the fabric header go to VC1, with it to their VC;
#  - malformed fabric headers are dropped and counted per port;
#  - a frame with no other port up to flood to is dropped and counted.
#
#   [H1] eth0 10.40.0.1 ---- p1 -+
#   [H2] eth0 10.40.0.2 ---- p2 -+- sw0 (vcsw) [S]
#   [H3] eth0 10.40.0.3 ---- p3 -+
. ./lib.sh

require_cmd ip udp-lat fabric-send mac-flood
require_module vcsw
require_module fabric_hdr
tmp_dir_create

# pstat DEV OBJ KEY: counter KEY of object OBJ (port, vc0, vc1) of port DEV
pstat() {
	ns_exec S ip -j -d link show dev "$1" | tr -d ' \n' |
		sed -n "s/.*\"$2\":{\([^}]*\)}.*/\1/p" |
		sed -n "s/.*\"$3\":\([0-9]*\).*/\1/p"
}
swinfo() {
	ns_exec S ip -j -d link show dev sw0 | tr -d ' \n' |
		sed -n "s/.*\"$1\":\"*\([0-9a-z]*\).*/\1/p"
}

ns_create S
ns_run S ip link add sw0 type vcsw vc0 fifo buffer 32k || fatal "cannot create vcsw"
ns_run S ip link set sw0 up
for i in 1 2 3; do
	switch_host H$i p$i "02:00:00:40:00:0$i" 10.40.0.$i/24
done

# --- configuration ------------------------------------------------------------------
check_eq "vc0 shown" fifo "$(swinfo vc0)"
check_eq "vc0_buffer shown" 32768 "$(swinfo vc0_buffer)"
check_eq "vc1_buffer shown" 32768 "$(swinfo vc1_buffer)"
ns_run S ip link set sw0 type vcsw vc0 takeover vc1_buffer 2048 ageing 60
check_err $? "changelink"
check_eq "vc0 changed" takeover "$(swinfo vc0)"
check_eq "vc1_buffer smallest" 2048 "$(swinfo vc1_buffer)"
check_eq "ageing" 60 "$(swinfo ageing)"
ns_exec S ip link set sw0 type vcsw vc1_buffer 2047 2>"$TMP_DIR/err.1"
check_fail $? "vc1_buffer 2047 accepted"
ns_exec S ip link set sw0 type vcsw vc0_buffer 64m
check_err $? "vc0_buffer 64m refused"
ns_exec S ip link set sw0 type vcsw vc0_buffer 67108865 2>"$TMP_DIR/err.2"
check_fail $? "vc0_buffer above 64m accepted"
# 2^64 + 64k bytes: refused, not wrapped around to 64k
ns_exec S ip link set sw0 type vcsw vc0_buffer 18014398509482048k 2>"$TMP_DIR/err.3"
check_fail $? "vc0_buffer 18014398509482048k (2^64 + 64k) accepted"
ns_exec S ip link set sw0 type vcsw fdb_max 0 2>"$TMP_DIR/err.4"
check_fail $? "fdb_max 0 accepted"
ns_exec S ip link set sw0 type vcsw vc0 sorted 2>"$TMP_DIR/err.5"
check_fail $? "unknown discipline accepted"
check_eq "refused change kept the old value" takeover "$(swinfo vc0)"
ns_exec S ip link set sw0 type vcsw vc0_buffer 64k vc1_buffer 64k
ns_exec S ip link add sw9 type vcsw
ns_exec S ip link set sw9 master sw0 2>"$TMP_DIR/err.6"
check_fail $? "a switch became a port of a switch"
ns_exec S ip link del sw9
# the counts below assume no learned entry expires, however slowly the
# host runs this test (a debug kernel took 395 s: 60 s aged them out)
ns_run S ip link set sw0 type vcsw ageing 0
check_err $? "ageing 0 (never) refused"
# each refusal says why (one grep over all of them passed if any did)
for i in 1 2 3 4 5 6; do
	grep -q "range\|Illegal\|switch\|nvalid\|nknown" "$TMP_DIR/err.$i"
	check_err $? "refusal $i gave no reason: $(cat "$TMP_DIR/err.$i")"
done
log_test "options shown, ranges enforced, refusals keep the configuration"

# --- connectivity ---------------------------------------------------------------------
for a in 1 2 3; do
	for b in 1 2 3; do
		[ $a = $b ] && continue
		# tried until one answers: a loaded host may hold the VM
		wait_for 30 ns_exec H$a ping -c 1 -W 2 10.40.0.$b > /dev/null
		check_err $? "ping H$a -> H$b"
	done
done
check_eq "learned entries" 3 "$(swinfo fdb_count)"
[ "$(pstat p2 port flooded)" -ge 1 ]
check_err $? "ARP requests were not flooded to p2"
log_test "ping between every pair (ARP flooded, addresses learned)"

# exact counts from here on: no ARP refreshes between any two hosts (H2's
# probes of H3, once its entry from the pings goes stale, also leave
# through p3)
for a in 1 2 3; do
	for b in 1 2 3; do
		[ $a = $b ] && continue
		ns_run H$a ip neigh replace 10.40.0.$b lladdr 02:00:00:40:00:0$b \
			dev eth0 nud permanent
	done
done

rm -f "$TMP_DIR/ready"
ns_bg H3 udp-lat recv --port 9000 --duration 60 --count 200 --log "$TMP_DIR/udp.log" \
	--ready "$TMP_DIR/ready" > "$TMP_DIR/udp.out"
R=$BG_PID
wait_for 30 test -e "$TMP_DIR/ready" || fatal "receiver"
vc1_before=$(pstat p3 vc1 packets)
# The sender stays on one CPU: veth hands a frame to the receive backlog
# of the CPU that sends it, so a sender that moves between CPUs while
# its earlier frames wait in the old CPU's backlog (softirq deferred to
# ksoftirqd, as on a slow debug kernel) has them reordered before they
# reach the switch at all.  The switch's own order is what is tested.
ns_run H1 taskset -c 0 udp-lat send --dst 10.40.0.3 --port 9000 --size 500 --count 200 --rate 2000 > /dev/null
bg_wait $R
check_err $? "receiver did not get 200 datagrams"
check_eq "in order" 0 "$(awk '$2 < last { bad++ } { last = $2 } END { print bad + 0 }' "$TMP_DIR/udp.log")"
check_eq "plain frames in VC1" $((vc1_before + 200)) "$(pstat p3 vc1 packets)"
check_eq "VC0 untouched" 0 "$(pstat p3 vc0 packets)"
log_test "UDP H1 -> H3: 200 of 200 in order, best effort in VC1"

# UDP_SEGMENT sends cross veth as GSO aggregates: the switch queues the
# frames they stand for
rm -f "$TMP_DIR/ready"
ns_bg H3 udp-lat recv --port 9001 --duration 60 --count 200 --log "$TMP_DIR/gso.log" \
	--ready "$TMP_DIR/ready" > "$TMP_DIR/gso.out"
R=$BG_PID
wait_for 30 test -e "$TMP_DIR/ready" || fatal "receiver"
vc1_before=$(pstat p3 vc1 packets)
ns_run H1 taskset -c 0 udp-lat send --dst 10.40.0.3 --port 9001 --size 1000 --frame-bytes 10000 \
	--frame-interval 5000 --gso --count 20 > /dev/null
bg_wait $R
check_err $? "receiver did not get 200 segments"
check_eq "segments in order" 0 "$(awk '$2 < last { bad++ } { last = $2 } END { print bad + 0 }' "$TMP_DIR/gso.log")"
check_eq "frames queued one by one" $((vc1_before + 200)) "$(pstat p3 vc1 packets)"
log_test "GSO sends forwarded as 200 frames"

# --- static entries --------------------------------------------------------------------
ns_run S ip link set p2 type vcsw_slave fdb_add 02:00:00:40:00:99
check_err $? "fdb_add"
check_eq "static entry counted" 4 "$(swinfo fdb_count)"
# a frame to the static address leaves by p2 only
p2=$(pstat p2 vc0 packets); p3=$(pstat p3 vc0 packets)
ns_run H1 fabric-send -i eth0 --dst-mac 02:00:00:40:00:99 --src-ip 10.40.0.1 \
	--dst-ip 10.40.0.9 --dport 9 --count 3 --vc 0 --payload static > /dev/null
check_err $? "fabric-send"
wait_for 20 eval 'test "$(pstat p2 vc0 packets)" = $((p2 + 3))'
check_err $? "static entry: p2 sent $(pstat p2 vc0 packets), want $((p2 + 3))"
check_eq "nothing flooded to p3" "$p3" "$(pstat p3 vc0 packets)"
ns_exec S ip link set p3 type vcsw_slave fdb_del 02:00:00:40:00:99 2>/dev/null
check_fail $? "fdb_del on the wrong port accepted"
ns_run S ip link set p2 type vcsw_slave fdb_del 02:00:00:40:00:99
check_err $? "fdb_del"
check_eq "static entry gone" 3 "$(swinfo fdb_count)"
log_test "static entries steer frames, fdb_del removes them"

# --- fabric frames and malformed headers ---------------------------------------------
rx=$(pstat p1 port rx_fabric)
ns_run H1 fabric-send -i eth0 --dst-mac 02:00:00:40:00:02 --src-ip 10.40.0.1 \
	--dst-ip 10.40.0.2 --dport 9 --count 4 --vc 0 --ttd 1000000 --payload good > /dev/null
wait_for 20 eval 'test "$(pstat p1 port rx_fabric)" = $((rx + 4))'
check_err $? "fabric frames not counted on p1"
bad=$(pstat p1 port drop_malformed)
for kind in short version inner-type truncated; do
	ns_run H1 fabric-send -i eth0 --dst-mac 02:00:00:40:00:02 --src-ip 10.40.0.1 \
		--dst-ip 10.40.0.2 --dport 9 --count 2 --malform $kind --payload bad > /dev/null
done
wait_for 20 eval 'test "$(pstat p1 port drop_malformed)" = $((bad + 8))'
check_err $? "malformed drops $(pstat p1 port drop_malformed), want $((bad + 8))"
check_eq "fabric frames counted" $((rx + 4)) "$(pstat p1 port rx_fabric)"
log_test "malformed fabric headers dropped and counted (8 of 8)"

# --- nowhere to flood ------------------------------------------------------------------
# With p2 and p3 down a broadcast or an unknown address from H1 has no
# port to go to: dropped and counted at its input, as with flood off.
ns_run S ip link set p2 down
ns_run S ip link set p3 down
unrouted=$(pstat p1 port drop_unrouted)
for to in ff:ff:ff:ff:ff:ff 33:33:00:00:00:01 02:00:00:40:00:99; do
	ns_run H1 mac-flood -i eth0 --dst $to --count 5 --ethertype 0x88b7 > /dev/null
done
wait_for 20 eval 'test "$(pstat p1 port drop_unrouted)" -ge $((unrouted + 15))'
check_eq "p1 drop_unrouted with no other port up" $((unrouted + 15)) "$(pstat p1 port drop_unrouted)"
ns_run S ip link set p2 up
ns_run S ip link set p3 up
log_test "frames with nowhere to flood dropped and counted (15 of 15)"

# --- frames in the switch no longer count against the sender ---------------------------
# A 100 kbit/s port with a 1 MB buffer: 400 datagrams of 1000 bytes sent
# as fast as the socket takes them all fit in the buffer at once, less
# the few the port sent meanwhile (one per 83.4 ms of the sender's
# measured duration).  Were they still charged to the sending socket
# (veth hands the skb over with it), the socket's 208 KB send buffer
# would admit about 100 at a time.
ns_run S ip link set sw0 type vcsw rate 100kbit buffer 1m
# a socket on H3's port, open until the sender is done: without one H3
# answers the first datagram with a port unreachable and the sender's
# next send fails (ECONNREFUSED); the count below is of what was sent
rm -f "$TMP_DIR/ready"
ns_bg H3 udp-lat recv --port 9002 --duration 3600 --ready "$TMP_DIR/ready" > /dev/null
R=$BG_PID
wait_for 30 test -e "$TMP_DIR/ready" || fatal "receiver"
out=$(ns_run H1 udp-lat send --dst 10.40.0.3 --port 9002 --size 1000 --count 400)
check_err $? "udp-lat send"
kill "$R" 2>/dev/null
bg_wait "$R"
sent=$(echo "$out" | sed -n 's/.*\bsent=\([0-9]*\).*/\1/p')
send_ms=$(echo "$out" | sed -n 's/.*duration_s=\([0-9.]*\).*/\1/p' | awk '{ printf "%d", $1 * 1000 + 1 }')
# frame time on the wire: (1000 + 8 + 20 + 14) bytes at 100 kbit/s
want=$((${sent:-0} - send_ms / 83 - 2))
[ $want -gt 200 ] || want=200
held=$(pstat p3 vc1 max_backlog_packets)
[ "${held:-0}" -ge $want ]
check_err $? "the port held at most $held of ${sent:-0} datagrams at once, want $want (sending took ${send_ms} ms)"
ns_run S ip link set sw0 type vcsw rate 0
log_test "frames waiting in the switch are not charged to the sender ($held of ${sent:-0} held)"

exit $EXIT_STATUS
