#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# vm: deterministic
#
# Hosts honour credits (Documentation/credits.rst, "Hosts"): edf, aoq and
# dtable with "credits on" send into a switch whose ports to them have
# credits on, at three times what the switch's output can carry, for 5
# guest seconds.
#
#   [H1] eth0 edf    --- s1 -+
#   [H2] eth0 aoq    --- s2 -+- [S] sw0 (rate 2mbit) s4 --- eth0 [H4]
#   [H3] eth0 dtable --- s3 -+   credits on s1..s3, off on s4
#
# The output to H4 fills, S's input buffers stop emptying, S grants no
# more, and the hosts' qdiscs wait: nothing is dropped in the switch (no
# credit violation, no full buffer), every frame a host's qdisc sent
# reached H4, and each qdisc counted its waits.  Once idle the books are
# exact both ways: each host may send S's whole input buffer, S may send
# each host its sink's grant.  Then S sends to H1 (H4 to H1 through the
# switch): more than the host's grant in one go, so it arrives only if
# H1, a sink, keeps granting.  First of all, a qdisc whose peer does not
# speak credits sends nothing until the peer starts to, and then goes on
# by itself.
#
# Counts, not rates, are asserted; the deterministic VM's guest time is
# instructions, and waits for idleness cost no wall time.
. ./lib.sh

require_cmd ip tc fabric-send fabric-stat udp-lat
require_module vcsw
require_module fabric_hdr
require_module sch_edf
require_module sch_aoq
require_module sch_dtable
tmp_dir_create

H4_MAC=02:00:00:48:00:04
H1_MAC=02:00:00:48:00:01
RATE=2mbit
PAYLOAD=$(printf '%01000d' 0)	# 1062-byte frames: 14 + 20 + 20 + 8 + 1000
INTERVAL=4248			# us: 1062 bytes at 2 Mbit/s
# Per host: 3 x 400 frames at 2 Mbit/s take 5 s.  Each qdisc still runs
# out of credits some 360 times (the check: at least once), and H1's
# and s1's link messages, both proportional to the busy time, keep their
# ratio; 800 took 10 s to show the same.
COUNT=400
SINK_COUNT=400			# S to H1: 425 KB, above the 256 KB a host grants

pstat() { json_obj_u64 "$(link_json "$1" "$2")" "$3" "$4"; }
out() { echo $(($(pstat "$1" "$2" vc0 packets) + $(pstat "$1" "$2" vc1 packets))); }
rx_frames() { json_u64 "$(ns_exec "$1" fabric-stat -j eth0)" rx_frames; }

qdisc_json() {
	local j

	j=$(ns_exec "$1" tc -s -j qdisc show dev eth0 root)
	echo "${j//[[:space:]]/}"
}
# qsent NS: packets the host's root qdisc sent
qsent() { json_u64 "$(qdisc_json "$1")" packets; }
qdrops() { json_u64 "$(qdisc_json "$1")" drops; }
qbacklog() { json_u64 "$(qdisc_json "$1")" qlen; }
# qcredit NS KEY: KEY of the qdisc's "credits" statistics
qcredit() { json_obj_u64 "$(qdisc_json "$1")" credits "$2"; }
# qcredit_vc NS KEY VC: element VC of the pair KEY ("tx_credits", "stalls")
qcredit_vc() {
	local re="\"$2\":\\[([0-9]+),([0-9]+)\\]" j

	j=$(qdisc_json "$1")
	[[ ${j##*\"credits\":\{} =~ $re ]] && echo "${BASH_REMATCH[$(($3 + 1))]}"
}

# send_argv H COUNT [VC]: SEND_ARGV, the fabric-send that sends COUNT
# frames from host H to H4 at the output's rate
send_argv() {
	SEND_ARGV=(fabric-send -i eth0 --dst-mac "$H4_MAC" --src-ip "10.48.0.$1"
		--dst-ip 10.48.0.4 --dport 9 --vc "${3:-$(($1 == 3))}"
		--ttd $(($1 * 5000000)) --flow "$1" --count "$2" --interval "$INTERVAL"
		--payload "$PAYLOAD")
}
# send H COUNT [VC]: send them, and wait until they are sent
send() {
	send_argv "$@"
	ns_exec H$1 "${SEND_ARGV[@]}" > /dev/null
}
# send_bg H COUNT: send them in the background; BG_PID is fabric-send
# itself, which a kill stops (a kill of "send ... &" stopped the
# subshell and left fabric-send sending)
send_bg() {
	send_argv "$@"
	ns_bg H$1 "${SEND_ARGV[@]}" > /dev/null
}

idle() {
	local h

	vcsw_ports_empty S s1 s2 s3 s4 || return 1
	for h in 1 2 3; do
		[ "$(qbacklog H$h)" = 0 ] || return 1
	done
}
settled() {
	local a

	idle || return 1
	a=$(rx_frames H4)
	sleep 1
	idle && [ "$(rx_frames H4)" = "$a" ]
}

# Host H's books and S's port to it agree, both ways, nothing held.
books_exact() {
	local h=$1 j vc

	j=$(link_json S s$h)
	for vc in 0 1; do
		[ "$(qcredit_vc H$h tx_credits $vc)" = "$(json_obj_u64 "$j" credits_vc$vc rx_buffer)" ] &&
		[ "$(json_obj_u64 "$j" credits_vc$vc rx_held)" = 0 ] &&
		[ "$(json_obj_u64 "$j" credits_vc$vc rx_buffer)" -gt 0 ] &&
		[ "$(json_obj_u64 "$j" credits_vc$vc tx_credits)" = $((256 * 1024 / 64)) ] ||
			return 1
	done
}
books_log() {
	local h=$1 vc

	for vc in 0 1; do
		log_info "H$h vc$vc: host tx $(qcredit_vc H$h tx_credits $vc) / S buffer" \
			"$(pstat S s$h credits_vc$vc rx_buffer) held $(pstat S s$h credits_vc$vc rx_held);" \
			"S tx $(pstat S s$h credits_vc$vc tx_credits)"
	done
}

# Nothing dropped inside the switch on the way to H4.
switch_lossless() {
	local d k j

	for d in s1 s2 s3; do
		j=$(link_json S $d)
		for k in "in_vc0 drops_full" "in_vc1 drops_full" "credits_vc0 violations" \
			"credits_vc1 violations"; do
			check_eq "$1: S $d $k" 0 "$(json_obj_u64 "$j" $k)"
		done
	done
	j=$(link_json S s4)
	for k in "vc0 drops_full" "vc1 drops_full" "port drop_nomem" "port drop_oversize" \
		"port drop_xmit" "port drop_down"; do
		check_eq "$1: S s4 $k" 0 "$(json_obj_u64 "$j" $k)"
	done
}

# --- topology ----------------------------------------------------------------------
for n in S H1 H2 H3 H4; do ns_create $n; done
ns_run S ip link add sw0 type vcsw arch advanced rate $RATE || fatal "vcsw"
for h in 1 2 3 4; do
	ip link add eth0 netns "$(ns_name H$h)" address 02:00:00:48:00:0$h type veth \
		peer name s$h netns "$(ns_name S)" || fatal "veth H$h"
	ns_exec S sysctl -qw net.ipv6.conf.s$h.disable_ipv6=1
	ns_run S ip link set s$h master sw0 || fatal "s$h master"
	ns_exec H$h sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
done
ns_run S ip link set s4 type vcsw_slave fdb_add $H4_MAC || fatal "fdb H4"
ns_run S ip link set s1 type vcsw_slave fdb_add $H1_MAC || fatal "fdb H1"

# --- options ---------------------------------------------------------------------------
ns_exec H1 tc qdisc add dev eth0 root handle 1: edf credit_unit 64 2>"$TMP_DIR/err"
check_fail $? "credit_unit without credits accepted"
grep -q "needs credits on" "$TMP_DIR/err"
check_err $? "no reason given: $(cat "$TMP_DIR/err")"
ns_exec H1 tc qdisc add dev eth0 root handle 1: edf credits on credit_unit 0 2>/dev/null
check_fail $? "credit_unit 0 accepted"
ns_exec H1 tc qdisc add dev eth0 root handle 1: edf credits maybe 2>/dev/null
check_fail $? "credits maybe accepted"
ns_exec H1 tc qdisc add dev lo root handle 1: edf credits on 2>"$TMP_DIR/err"
check_fail $? "credits on loopback accepted"
grep -q "Ethernet" "$TMP_DIR/err"
check_err $? "no reason given: $(cat "$TMP_DIR/err")"
# one book per device: a second qdisc on it must count the same unit
ns_run H2 ip link add dummy0 numtxqueues 2 type veth peer name dummy1 || fatal "veth with two queues"
ns_run H2 tc qdisc add dev dummy0 root handle 1: mq || fatal mq
ns_run H2 tc qdisc add dev dummy0 parent 1:1 edf credits on credit_unit 128 || fatal "edf under mq"
ns_exec H2 tc qdisc add dev dummy0 parent 1:2 aoq credits on 2>"$TMP_DIR/err"
check_fail $? "two credit units on one device accepted"
grep -q "another unit" "$TMP_DIR/err"
check_err $? "no reason given: $(cat "$TMP_DIR/err")"
ns_exec H2 tc qdisc add dev dummy0 parent 1:2 aoq credits on credit_unit 128
check_err $? "the same unit twice on one device refused"
ns_exec H2 tc qdisc change dev dummy0 parent 1:1 edf credit_unit 64 2>"$TMP_DIR/err"
check_fail $? "credit unit changed while on"
grep -q "credits off" "$TMP_DIR/err"
check_err $? "no reason given: $(cat "$TMP_DIR/err")"
j=$(ns_exec H2 tc -j qdisc show dev dummy0 parent 1:1)
[[ ${j//[[:space:]]/} == *'"credits":true,"credit_unit":128'* ]]
check_err $? "tc -j does not show the credits: $j"
# alone on the device's books, a qdisc changes the unit: new books, a
# restart the peer sees; so does a replace by the same kind (a change)
ns_run H2 tc qdisc del dev dummy0 parent 1:2 || fatal "aoq off"
restarts() { ns_exec H2 tc -s -j qdisc show dev dummy0 parent 1:1 | sed -n 's/.*"restarts":\([0-9]*\).*/\1/p'; }
r0=$(restarts)
ns_exec H2 tc qdisc change dev dummy0 parent 1:1 edf credit_unit 64
check_err $? "the only qdisc with credits could not change the unit"
ns_exec H2 tc qdisc replace dev dummy0 parent 1:1 edf credits on credit_unit 256
check_err $? "replace by the same kind could not change the unit"
j=$(ns_exec H2 tc -j qdisc show dev dummy0 parent 1:1)
[[ ${j//[[:space:]]/} == *'"credits":true,"credit_unit":256'* ]]
check_err $? "the new unit not shown: $j"
check_eq "each new unit restarted the books" $((r0 + 2)) "$(restarts)"
ns_run H2 ip link del dummy0
# one end of a link per device: a switch port's is the switch's
ns_exec S tc qdisc add dev s1 root handle 1: edf credits on 2>"$TMP_DIR/err"
check_fail $? "credits on a vcsw port's qdisc accepted"
grep -q "vcsw port" "$TMP_DIR/err"
check_err $? "no reason given: $(cat "$TMP_DIR/err")"
ns_run S ip link add cx type veth peer name cy || fatal "veth cx"
ns_run S tc qdisc add dev cx root handle 1: aoq credits on || fatal "aoq on cx"
ns_exec S ip link set cx master sw0 2>"$TMP_DIR/err"
check_fail $? "a device whose qdisc has credits on enslaved"
grep -q "under credits" "$TMP_DIR/err"
check_err $? "no reason given: $(cat "$TMP_DIR/err")"
ns_run S tc qdisc del dev cx root || fatal "aoq off cx"
ns_run S ip link set cx master sw0 || fatal "cx without credits refused as a port"
ns_run S ip link del cx
log_test "credit options: ranges, reasons, one unit per device, a new unit alone, one end per port, tc -j"

ns_run H1 tc qdisc add dev eth0 root handle 1: edf credits on || fatal "edf"
ns_run H2 tc qdisc add dev eth0 root handle 1: aoq default 1 credits on || fatal "aoq"
ns_run H2 tc class add dev eth0 parent 1: classid 1:1 aoq || fatal "aoq lane"
ns_run H3 tc qdisc add dev eth0 root handle 1: dtable classes 2 credits on || fatal "dtable"
ns_run S ip link set sw0 up
for h in 1 2 3 4; do
	ns_run S ip link set s$h up
	ns_run H$h ip link set eth0 up
done

# --- a peer that does not speak credits yet ---------------------------------------------
for h in 1 2 3; do
	send $h 10 || fatal "fabric-send H$h"
done
sleep 1
for h in 1 2 3; do
	check_eq "H$h: nothing sent to a peer without credits" 0 "$(qsent H$h)"
	check_eq "H$h: all ten wait in the qdisc" 10 "$(qbacklog H$h)"
	# the qdisc says how long the peer has been silent: since its books
	# started, more than the second just slept
	[ "$(qcredit H$h peer_silent_ms)" -ge 1000 ]
	check_err $? "H$h: peer_silent_ms $(qcredit H$h peer_silent_ms) after a silent second"
done
# credits off lets what waits go at once (to a port without credits,
# lossy as before); on again, the qdisc waits for the peer afresh
ns_run H1 tc qdisc change dev eth0 root handle 1: edf credits off || fatal "credits off"
wait_for 10 eval '[ "$(qbacklog H1)" = 0 ]'
check_err $? "H1: credits off did not release the waiting frames"
ns_run H1 tc qdisc change dev eth0 root handle 1: edf credits on || fatal "credits on"
for h in 1 2 3; do
	ns_run S ip link set s$h type vcsw_slave credits on || fatal "credits s$h"
done
wait_for 10 settled
check_err $? "the waiting frames did not go once the peer granted credits"
check_eq "all thirty reached H4" 30 "$(rx_frames H4)"
# a peer that speaks sends a message at least every 64 ms (backed off
# when idle): heard just now
for h in 1 2 3; do
	[ "$(qcredit H$h peer_silent_ms)" -lt 100 ]
	xfail_on_slow check_err $? "H$h: peer_silent_ms $(qcredit H$h peer_silent_ms) with a peer that speaks"
done
for h in 1 2 3; do
	wait_for 5 books_exact $h
	check_err $? "H$h: books not exact on an idle link: $(books_log $h)"
done
# idle, the host's messages and its port's back off (up to 64 ms apart,
# core fabric_credit.h): some 16 a second on a link that stays idle,
# where the base period (1 ms) sends 1000.  The bound is a fifth of
# that, which a link that did not back off fails.  Per second of the
# window the counts were read over, from before the first read to after
# the last: each read starts a program, which on a debug kernel takes
# seconds of the deterministic VM's clock, so "2 s" there was far longer
# (its 483 messages were once taken for no back-off; with the ends'
# messages logged, every one of them was backed off all the way, some 33
# per end in 2.1 s of log, while the counts between the reads were 142
# to 151)
sleep 1
for h in 1 2 3; do
	t0[h]=$(now_us)
	hm0[h]=$(qcredit H$h msgs_sent); pm0[h]=$(pstat S s$h credit_stats msgs_sent)
done
sleep 2
for h in 1 2 3; do
	hm=$(($(qcredit H$h msgs_sent) - hm0[h])); pm=$(($(pstat S s$h credit_stats msgs_sent) - pm0[h]))
	ms=$(( ($(now_us) - t0[h]) / 1000 ))
	log_info "idle for $ms ms: H$h sent $hm link messages, s$h $pm"
	idle_backed_off "$hm" "$ms" && idle_backed_off "$pm" "$ms"
	check_err $? "H$h: an idle link did not back off: the host sent $hm, s$h $pm in $ms ms"
done
log_test "a qdisc waits for a peer's first credits and goes on by itself"

# --- three hosts at three times the output rate, 5 guest seconds -----------------------
rx0=$(rx_frames H4); o0=$(out S s4)
for h in 1 2 3; do
	sent0[h]=$(qsent H$h); drops0[h]=$(qdrops H$h); in0[h]=$(pstat S s$h port rx_packets)
	st0[h]=$(($(qcredit_vc H$h stalls 0) + $(qcredit_vc H$h stalls 1)))
done
hm0=$(qcredit H1 msgs_sent); pm0=$(pstat S s1 credit_stats msgs_sent)
pids=()
for h in 1 2 3; do
	send_bg $h $COUNT
	pids+=("$BG_PID")
done
for p in "${pids[@]}"; do
	bg_wait "$p" || fatal "fabric-send"
done
# The senders are done after a third of the time, the rest waits in the
# hosts' qdiscs: one waiter for H4's count (every 10 ms, in one program)
# rather than settled's polls, each a few ip and tc starts, every 0.1 s
# of that drain.  A frame a qdisc dropped (counted below) leaves it
# short: then its time-out, and settled, end the wait.
ns_exec H4 fabric-stat --wait-rx $((rx0 + 3 * COUNT)) --timeout 30 eth0 > /dev/null 2>&1
wait_for 60 settled
check_err $? "the path did not drain"
total=0
for h in 1 2 3; do
	sent=$(($(qsent H$h) - sent0[h]))
	dropped=$(($(qdrops H$h) - drops0[h]))
	check_eq "H$h: every frame went through the qdisc or was dropped there" \
		"$COUNT" "$((sent + dropped))"
	check_eq "H$h: every frame its qdisc sent reached S" "$sent" \
		"$(($(pstat S s$h port rx_packets) - in0[h]))"
	stalls=$(($(qcredit_vc H$h stalls 0) + $(qcredit_vc H$h stalls 1) - st0[h]))
	# A timing premise: each sender keeps the output's pace, so each
	# input fills.  On the debug kernel (a run of 2026-12-05) H1's edf
	# never waited, H2's once and H3's 304 times, nothing lost.
	[ "$stalls" -gt 0 ]
	xfail_on_slow check_err $? "H$h: its qdisc never waited for credits"
	log_info "H$h: sent $sent, dropped at the host $dropped, waited for credits $stalls times"
	total=$((total + sent))
done
check_eq "every frame the hosts sent left S" "$total" "$(($(out S s4) - o0))"
check_eq "... and reached H4" "$total" "$(($(rx_frames H4) - rx0))"
switch_lossless "three hosts"
# the link messages' base period follows the link's rate (core
# fcr_base_period()): S's ports, a quarter of 8 KB at 2 Mbit/s, 4 ms; H1,
# whose edf knows no rate but the veth's 10 Gbit/s, 1 ms.  Over the same
# busy seconds s1 so sends about a quarter of H1's messages, plus one per
# quarter of its buffer drained; at a fixed 1 ms it sent as many as H1.
# A timing premise: H1's 1 ms timer keeps its period only on a kernel
# fast enough for the load.  The debug kernel gave H1 5909, s1 2313 with
# the test alone in its boot, but H1 2929, s1 2482 after six other tests
hm=$(($(qcredit H1 msgs_sent) - hm0)); pm=$(($(pstat S s1 credit_stats msgs_sent) - pm0))
log_info "busy: H1 sent $hm link messages, s1 $pm"
[ "$hm" -gt 0 ] && [ $((4 * pm)) -lt $((3 * hm)) ]
xfail_on_slow check_err $? "s1 (2 Mbit/s) sent $pm link messages, H1 (1 ms) $hm: its period did not follow the rate"
for h in 1 2 3; do
	wait_for 5 books_exact $h
	check_err $? "H$h: books not exact once idle: $(books_log $h)"
done
log_test "edf, aoq and dtable at 3x the output rate: lossless to H4, hosts wait"

# --- S sends to a host: the host keeps granting ---------------------------------------------
r0=$(rx_frames H1); o0=$(out S s1)
ns_exec H4 fabric-send -i eth0 --dst-mac $H1_MAC --src-ip 10.48.0.4 \
	--dst-ip 10.48.0.1 --dport 9 --vc 1 --flow 4 --count $SINK_COUNT \
	--interval $INTERVAL --payload "$PAYLOAD" > /dev/null || fatal "fabric-send H4"
wait_for 30 eval '[ "$(rx_frames H1)" -ge $((r0 + SINK_COUNT)) ]'
check_eq "H1 received all that S sent it" "$SINK_COUNT" "$(($(rx_frames H1) - r0))"
check_eq "S sent it all" "$SINK_COUNT" "$(($(out S s1) - o0))"
check_eq "S s1 vc1 drops_full" 0 "$(pstat S s1 vc1 drops_full)"
wait_for 5 books_exact 1
check_err $? "H1: books not exact after receiving: $(books_log 1)"
log_test "a host grants beyond what the switch reported sent"

# --- GSO: a credit link carries wire frames ---------------------------------------------
# UDP_SEGMENT sends from H1: whole, a 20 KB GSO packet would cross the
# veth as one frame no 8 KB input buffer holds, and H1 would wait for
# good; with credits on, edf queues its segments instead
ns_run H1 ip addr add 10.48.0.1/24 dev eth0
ns_run H4 ip addr add 10.48.0.4/24 dev eth0
ns_run H1 ip neigh add 10.48.0.4 lladdr $H4_MAC dev eth0 nud permanent
ns_run H4 ip neigh add 10.48.0.1 lladdr $H1_MAC dev eth0 nud permanent
gso0=$(json_u64 "$(qdisc_json H1)" gso_segmented); sent0=$(qsent H1); gdrops0=$(qdrops H1)
in0=$(pstat S s1 port rx_packets)
# udp-lat counts the datagrams it sent (a send refused by an ICMP
# unreachable from H4, which has no listener, is not among them), and
# apart those of the sends a qdisc refused (ENOBUFS: edf dropped every
# segment, and udp-lat sent the frame again)
ns_run H1 udp-lat send --dst 10.48.0.4 --port 9000 --size 1000 \
	--frame-bytes 20000 --frame-interval 50000 --gso --count 20 \
	> "$TMP_DIR/gso.out" 2>/dev/null || fatal "udp-lat send"
segs=$(sed -n 's/^sent=\([0-9]*\) .*/\1/p' "$TMP_DIR/gso.out")
[ "${segs:-0}" -ge 200 ] || fatal "udp-lat sent ${segs:-nothing}: $(cat "$TMP_DIR/gso.out")"
refused=$(sed -n 's/.* dropped=\([0-9]*\) .*/\1/p' "$TMP_DIR/gso.out")
[ -n "$refused" ] || fatal "udp-lat printed no dropped=: $(cat "$TMP_DIR/gso.out")"
wait_for 30 settled
check_err $? "the path did not drain after the GSO sends"
# the stack may hand some over cut already (seen: 19 of 20 on 6.1): what
# must hold is that what reached edf whole left it cut, every segment
segmented=$(($(json_u64 "$(qdisc_json H1)" gso_segmented) - gso0))
[ "$segmented" -gt 0 ]
check_err $? "edf segmented no GSO packet"
log_info "GSO packets segmented by edf: $segmented of 20"
# 20 KB every 50 ms is more than the 2 Mbit/s output drains, so the
# segments queue in edf; whether its limits drop some depends on how the
# sender's pacing and the switch's meet on this kernel (a debug kernel
# sends in bursts): what edf drops, it counts
sent=$(($(qsent H1) - sent0)); dropped=$(($(qdrops H1) - gdrops0))
log_info "GSO segments: $segs sent by udp-lat and $refused in sends refused," \
	"$sent left edf, $dropped dropped there"
# the debug kernel's bursts once dropped a whole packet: 340 sent, 20
# refused, 263 left and 97 dropped (2026-12-01)
check_eq "every segment udp-lat sent left H1's qdisc or was counted dropped there" \
	"$((segs + refused))" "$((sent + dropped))"
check_eq "... and what left reached S" "$sent" "$(($(pstat S s1 port rx_packets) - in0))"
switch_lossless "gso"
log_test "GSO packets cross a credit link as their segments"

# --- the host's link flapped under traffic ----------------------------------------------
# S's end goes down and up: the host's carrier follows, its books start
# again, and its qdisc, waiting or not, goes on once S grants again
# (a sender far longer than the flap, stopped once frames come after it:
# on a slow kernel the two ip commands alone can outlast a short one)
r0=$(qcredit H2 restarts)
send_bg 2 5000
sender=$BG_PID
sleep 0.5
ns_run S ip link set s2 down
sleep 0.3
ns_run S ip link set s2 up
rx_mid=$(rx_frames H4)
wait_for 30 eval '[ "$(rx_frames H4)" -gt "$rx_mid" ]'
check_err $? "no traffic after the flap"
kill $sender 2>/dev/null
bg_wait $sender
wait_for 60 settled
check_err $? "the path did not drain after the flap"
[ "$(qcredit H2 restarts)" -gt "$r0" ]
check_err $? "H2's books did not start again when its link came back"
switch_lossless "flap"
wait_for 5 books_exact 2
check_err $? "H2: books not exact after the flap: $(books_log 2)"
log_test "the host's link flapped under traffic: traffic resumes, books exact"

# --- teardown under traffic ---------------------------------------------------------------
send_bg 1 500 2>/dev/null	# its device may go under it
sleep 0.5
ns_run H1 tc qdisc del dev eth0 root
check_err $? "qdisc with credits deleted under traffic"
ns_run S ip link del sw0
check_err $? "switch deleted under host traffic"
log_test "teardown under traffic"

exit $EXIT_STATUS
