#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 400
# vm: deterministic
#
# Credit flow control between two switches (Documentation/credits.rst,
# vcsw.rst "Input buffers and credits").
#
#   [H1] eth0 --- a1 -+
#   [H2] eth0 --- a2 -+- [SA] sw0 (rate 0) ax ===== bx [SB] sw0 (rate 4mbit) b4 --- eth0 [H4]
#   [H3] eth0 --- a3 -+                    credits on the ax = bx link          fabric_hdr
#
# H1 and H2 send VC0, H3 VC1, each at the rate of SB's port to H4: three
# times what it can carry.  The hosts' ports on SA have no credits (lossy,
# as a host that does not speak them); the link between the switches has.
# SB's output to H4 is full, the crossbar stops moving SB's input buffer,
# SB stops granting credits, SA's port ax stalls, and what is lost is lost
# in SA's output buffer, fed by lossy ports (drops_full there).  On the
# credit path nothing is dropped: every frame that left ax reached H4.
#
# Then losses on purpose: data frames on the ax -> bx wire (netem on ax:
# link messages bypass the qdisc, so netem drops data only, and its own
# "dropped" counter says how many); data held in ax's qdisc longer than
# the quiet time, which must not be taken for lost; link messages in both directions
# (u32 on the inner EtherType at the ports' ingress: a fraction, then all
# of them for a while), then a flap of the link under traffic.  Traffic
# must resume each time, SB must still drop nothing, and once idle the
# books must be exact both ways: each sender's credits equal the
# receiver's advertised buffer, nothing held (no credit leaked or
# invented).
#
# The assertions count frames and credits, and idleness is polled for.
# It runs in the deterministic VM (guest time is instructions): there a
# vCPU the host does not run cannot hold a frame beyond the credits'
# quiet time, and idle waits cost no wall time (about 24 guest seconds).
. ./lib.sh

require_cmd ip tc fabric-send fabric-stat
require_module vcsw
require_module fabric_hdr
tmp_dir_create

H4_MAC=02:00:00:47:00:04
RATE=4mbit
PAYLOAD=$(printf '%01000d' 0)	# 1062-byte frames: 14 + 20 + 20 + 8 + 1000
INTERVAL=2124			# us: 1062 bytes at 4 Mbit/s, per sender
# Per sender, while the link is disturbed: 2.1 s, so that traffic runs
# most of a second past the end of each disturbance (1.2 s and 1.3 s in)
# for "traffic resumes" to see.  It was 1500: 3.2 s.
COUNT=1000
# Per sender, where the script waits for the end: 0.8 s, about 500
# frames on the credit link, SA out of credits about 270 times, netem's
# 5% about 25 losses, its 50 ms hold 16 or more stalls of SA, each of which
# would be marked quiet and found lost by the bug that section targets.
# 750 did each twice over.
COUNT_FG=375

# pstat NS DEV OBJ KEY: counter KEY of object OBJ of port DEV
pstat() { json_obj_u64 "$(link_json "$1" "$2")" "$3" "$4"; }
# popt NS DEV KEY: option KEY of port DEV (a word, a number, true or false)
popt() {
	local j re="^.*\"$3\":\"?([0-9a-z]+)"

	j=$(link_json "$1" "$2")
	[[ $j =~ $re ]] && echo "${BASH_REMATCH[1]}"
}
# out NS DEV: frames that left port DEV, both VCs
out() { echo $(($(pstat "$1" "$2" vc0 packets) + $(pstat "$1" "$2" vc1 packets))); }
h4_rx() { json_u64 "$(ns_exec H4 fabric-stat -j eth0)" rx_frames; }
netem_dropped() {
	ns_exec SA tc -s qdisc show dev ax | awk '/netem/ { n = 1 } n && /dropped/ {
		for (i = 1; i < NF; i++) if ($i == "(dropped") { sub(",", "", $(i + 1)); print $(i + 1); exit } }'
}

# Nothing waits anywhere on the path and nothing arrives any more.
idle() {
	local a x b j

	a=$(link_json SA ax); x=$(link_json SB bx); b=$(link_json SB b4)
	for j in "$a" "$x" "$b"; do
		[ "$(json_obj_u64 "$j" vc0 backlog_packets)" = 0 ] &&
		[ "$(json_obj_u64 "$j" vc1 backlog_packets)" = 0 ] || return 1
	done
	[ "$(json_obj_u64 "$x" in_vc0 backlog_packets)" = 0 ] &&
	[ "$(json_obj_u64 "$x" in_vc1 backlog_packets)" = 0 ]
}
settled() {	# idle, and H4's count unchanged for a second
	local a

	idle || return 1
	a=$(h4_rx)
	sleep 1
	idle && [ "$(h4_rx)" = "$a" ]
}

# The books of both directions, exact (lib.sh)
books_exact() { vcsw_books_exact SA ax SB bx; }
books_log() {
	local vc

	for vc in 0 1; do
		log_info "vc$vc: SA tx $(pstat SA ax credits_vc$vc tx_credits) / SB buffer $(pstat SB bx credits_vc$vc rx_buffer) held $(pstat SB bx credits_vc$vc rx_held); SB tx $(pstat SB bx credits_vc$vc tx_credits) / SA buffer $(pstat SA ax credits_vc$vc rx_buffer) held $(pstat SA ax credits_vc$vc rx_held)"
	done
}

# SB drops nothing on the credit path: input buffers, crossbar, output.
sb_lossless() {
	local a x b k

	a=$(link_json SA ax); x=$(link_json SB bx); b=$(link_json SB b4)
	for k in "in_vc0 drops_full" "in_vc1 drops_full" "credits_vc0 violations" \
		"credits_vc1 violations"; do
		check_eq "$1: SB bx $k" 0 "$(json_obj_u64 "$x" $k)"
	done
	for k in "vc0 drops_full" "vc1 drops_full" "port drop_nomem" "port drop_oversize" \
		"port drop_xmit" "port drop_down"; do
		check_eq "$1: SB b4 $k" 0 "$(json_obj_u64 "$b" $k)"
	done
	check_eq "$1: SA ax credits_vc0 violations" 0 "$(json_obj_u64 "$a" credits_vc0 violations)"
	check_eq "$1: SA ax credits_vc1 violations" 0 "$(json_obj_u64 "$a" credits_vc1 violations)"
}

# send: H1, H2 (VC0) and H3 (VC1) at once, COUNT frames each, to H4
send() {
	local h pids=()

	for h in 1 2 3; do
		ns_exec H$h fabric-send -i eth0 --dst-mac $H4_MAC --src-ip 10.47.0.$h \
			--dst-ip 10.47.0.4 --dport 9 --vc $((h == 3)) --ttd $((h * 5000000)) \
			--flow $h --count $COUNT --interval $INTERVAL --payload "$PAYLOAD" \
			> /dev/null &
		pids+=($!)
		bg_track $!
	done
	for h in "${pids[@]}"; do
		bg_wait "$h" || fatal "fabric-send"
	done
}

# --- topology -------------------------------------------------------------------
for n in SA SB H1 H2 H3 H4; do ns_create $n; done
ns_run SA ip link add sw0 type vcsw arch advanced || fatal "vcsw SA"
ns_run SB ip link add sw0 type vcsw arch advanced rate $RATE || fatal "vcsw SB"
ip link add ax netns "$(ns_name SA)" type veth peer name bx netns "$(ns_name SB)" || fatal veth
for h in 1 2 3; do
	ip link add eth0 netns "$(ns_name H$h)" address 02:00:00:47:00:0$h type veth \
		peer name a$h netns "$(ns_name SA)" || fatal "veth H$h"
done
ip link add eth0 netns "$(ns_name H4)" address $H4_MAC type veth \
	peer name b4 netns "$(ns_name SB)" || fatal "veth H4"
for d in "SA ax" "SA a1" "SA a2" "SA a3" "SB bx" "SB b4"; do
	set -- $d
	ns_exec $1 sysctl -qw net.ipv6.conf.$2.disable_ipv6=1
	ns_run $1 ip link set $2 master sw0 || fatal "$2 master"
done
# quiet hosts: no addresses (fabric-send writes raw frames), no IPv6, so
# the only frames on the path are the test's; H4 without an address drops
# them after fabric_hdr counted them, and answers nothing
for h in 1 2 3 4; do
	ns_exec H$h sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
	ns_run H$h ip link set eth0 up
done
# static entries: no frame for H4 is ever flooded (a flooded frame leaves
# the credit path, lossy by design)
ns_run SA ip link set ax type vcsw_slave fdb_add $H4_MAC || fatal "fdb SA"
ns_run SB ip link set b4 type vcsw_slave fdb_add $H4_MAC || fatal "fdb SB"

# --- configuration ----------------------------------------------------------------
check_eq "credits off by default" false "$(popt SA ax credits)"
check_eq "credit_unit by default" 64 "$(popt SA ax credit_unit)"
ns_exec SA ip link set ax type vcsw_slave credit_unit 0 2>/dev/null
check_fail $? "credit_unit 0 accepted"
ns_exec SA ip link set ax type vcsw_slave credit_unit 65536 2>/dev/null
check_fail $? "credit_unit 65536 accepted"
ns_exec SA ip link set ax type vcsw_slave in_buffer 1000 2>"$TMP_DIR/err"
check_fail $? "in_buffer below a full-size frame accepted"
grep -q "full-size frame" "$TMP_DIR/err"
check_err $? "no reason given: $(cat "$TMP_DIR/err")"
ns_exec SA ip link set ax type vcsw_slave in_buffer 64m
check_err $? "in_buffer 64m refused"
ns_exec SA ip link set ax type vcsw_slave in_buffer 67108865 2>/dev/null
check_fail $? "in_buffer above 64m accepted"
ns_exec SA ip link set ax type vcsw_slave in_buffer 0
check_eq "default input buffer (1500-byte MTU: 8 KB)" 8192 "$(popt SA ax vc0_in_buffer)"
ns_run SA ip link set ax mtu 9000
check_eq "default input buffer, 9000-byte MTU: two frames" $((2 * 9024)) "$(popt SA ax vc1_in_buffer)"
ns_run SA ip link set ax mtu 1500
# a buffer an MTU increase then passed is not refused (vcsw.rst), nor
# does it refuse the port's other changes; setting it again is checked
ns_exec SA ip link set ax type vcsw_slave vc0_in_buffer 2048 || check_err 1 "vc0_in_buffer 2048"
ns_run SA ip link set ax mtu 9000
out=$(ns_exec SA ip link set ax type vcsw_slave ttd_min -5us 2>&1)
check_err $? "a change of ttd_min refused after the MTU passed vc0's buffer: $out"
ns_exec SA ip link set ax type vcsw_slave vc0_in_buffer 2048 2>"$TMP_DIR/err"
check_fail $? "vc0_in_buffer 2048 at a 9000-byte MTU accepted"
grep -q "full-size frame" "$TMP_DIR/err"
check_err $? "no reason given: $(cat "$TMP_DIR/err")"
ns_exec SA ip link set ax type vcsw_slave credit_unit 128 2>/dev/null
check_fail $? "credit_unit 128 accepted with vc0's buffer below a 9000-byte MTU's frame"
ns_exec SA ip link set ax type vcsw_slave vc0_in_buffer 0 ttd_min 0 || check_err 1 "back"
ns_run SA ip link set ax mtu 1500
ns_exec SA ip link set sw0 type vcsw vc0 takeover arch ideal 2>/dev/null
check_fail $? "vc0 and arch in one request accepted"
ns_exec SA ip link set sw0 type vcsw vc0 fifo
check_eq "vc0 fifo is arch trad" trad "$(popt SA sw0 arch)"
check_eq "... whose VC0 is a FIFO" fifo "$(popt SA sw0 vc0)"
ns_run SA ip link set sw0 type vcsw arch advanced
log_test "credit options: ranges, defaults, old names"

for s in SA SB; do ns_run $s ip link set sw0 up; done
ns_run SA ip link set ax type vcsw_slave credits on || fatal "credits SA"
ns_run SB ip link set bx type vcsw_slave credits on || fatal "credits SB"
for d in "SA ax" "SA a1" "SA a2" "SA a3" "SB bx" "SB b4"; do
	set -- $d
	ns_run $1 ip link set $2 up
done
# each end has heard the other's epoch: the credits are granted
wait_for 10 books_exact
check_err $? "books not exact on an idle new link: $(books_log)"
log_test "credit link up: each end grants its whole buffer"

# --- lossless at three times the output rate ---------------------------------------
ax0=$(out SA ax); b40=$(out SB b4); rx0=$(h4_rx); bxin0=$(pstat SB bx port rx_packets)
COUNT=$COUNT_FG send
wait_for 60 settled
check_err $? "the path did not drain"
sent=$(($(out SA ax) - ax0))
check_eq "every frame that left SA's credit port reached SB" "$sent" \
	"$(($(pstat SB bx port rx_packets) - bxin0))"
check_eq "... and left SB" "$sent" "$(($(out SB b4) - b40))"
check_eq "... and reached H4" "$sent" "$(($(h4_rx) - rx0))"
sb_lossless "lossless"
stalls=$(($(pstat SA ax credits_vc0 stalls) + $(pstat SA ax credits_vc1 stalls)))
[ "$stalls" -gt 0 ]
# a slow kernel (the debug one: KASAN under TCG) may not send at three
# times the output's rate, so that SB keeps up and SA never waits
xfail_on_slow check_err $? "SA's credit port never waited for credits"
log_info "sent on the credit link $sent of $((3 * COUNT_FG)); SA ax stalls $stalls," \
	"lost in SA's lossy-fed output: vc0 $(pstat SA ax vc0 drops_full) vc1 $(pstat SA ax vc1 drops_full)"
[ "$(pstat SA ax credit_stats msgs_received)" -gt 0 ] && [ "$(pstat SB bx credit_stats msgs_received)" -gt 0 ]
check_err $? "no link message taken"
wait_for 5 books_exact
check_err $? "books not exact once idle: $(books_log)"
log_test "three senders at 3x the output rate: nothing lost on the credit path, stalls counted"

# --- data lost on the wire ----------------------------------------------------------
# netem drops data frames only: link messages bypass the port's qdisc
ns_run SA tc qdisc add dev ax root netem loss 5% || fatal netem
nd0=$(netem_dropped); ax0=$(out SA ax); bxin0=$(pstat SB bx port rx_packets)
b40=$(out SB b4); rx0=$(h4_rx)
lost0=$(($(pstat SB bx credits_vc0 lost_units) + $(pstat SB bx credits_vc1 lost_units)))
COUNT=$COUNT_FG send
wait_for 60 settled
check_err $? "the path did not drain with data lost"
nd=$(($(netem_dropped) - nd0))
arrived=$(($(pstat SB bx port rx_packets) - bxin0))
[ "$nd" -gt 0 ]
check_err $? "netem dropped nothing"
check_eq "what left SA is what arrived plus what netem dropped" \
	"$(($(out SA ax) - ax0))" "$((arrived + nd))"
check_eq "SB passed on every frame that arrived" "$arrived" "$(($(out SB b4) - b40))"
check_eq "H4 received them" "$arrived" "$(($(h4_rx) - rx0))"
lost=$(($(pstat SB bx credits_vc0 lost_units) + $(pstat SB bx credits_vc1 lost_units) - lost0))
[ "$lost" -gt 0 ]
check_err $? "SB found no lost units"
sb_lossless "data lost"
wait_for 5 books_exact
check_err $? "books not exact once idle after lost data: $(books_log)"
ns_run SA tc qdisc del dev ax root
log_test "data frames lost on the link: found again by the quiet resync, no leak"

# --- data held in the port's qdisc -------------------------------------------------
# netem holds every data frame 50 ms, five quiet times, in ax's qdisc,
# while the link messages go straight to the driver, past them.  SA runs
# out of credits with its frames still in the qdisc and sends nothing
# for longer than the quiet time; were its totals marked quiet then, SB
# would count the waiting frames lost at each one and grant them again,
# more would wait, and once they came SB would have to refuse what went
# beyond the room it keeps for late frames.  A VC is quiet only once the
# device was seen empty after its last frame: nothing is found lost.
ns_run SA tc qdisc add dev ax root netem delay 50ms || fatal "netem delay"
ax0=$(out SA ax); bxin0=$(pstat SB bx port rx_packets); b40=$(out SB b4); rx0=$(h4_rx)
lost0=$(($(pstat SB bx credits_vc0 lost_units) + $(pstat SB bx credits_vc1 lost_units)))
late0=$(($(pstat SB bx credits_vc0 late_units) + $(pstat SB bx credits_vc1 late_units)))
st0=$(($(pstat SA ax credits_vc0 stalls) + $(pstat SA ax credits_vc1 stalls)))
COUNT=$COUNT_FG send
wait_for 60 settled
check_err $? "the path did not drain with data held in the qdisc"
sent=$(($(out SA ax) - ax0))
[ "$(($(pstat SA ax credits_vc0 stalls) + $(pstat SA ax credits_vc1 stalls)))" -gt "$st0" ]
check_err $? "SA never waited for credits behind the delay"
check_eq "every frame held in the qdisc reached SB" "$sent" \
	"$(($(pstat SB bx port rx_packets) - bxin0))"
check_eq "... and left SB" "$sent" "$(($(out SB b4) - b40))"
check_eq "... and reached H4" "$sent" "$(($(h4_rx) - rx0))"
# A timing premise beyond the qdisc: a frame netem let go is in the veth
# peer's backlog, which no look sees, until SB's softirq takes it.  On
# the debug kernel (2026-12-05, deterministic VM) that once took longer
# than the quiet time: SB found 178 units lost, the frames then came
# into the room granted again (no late room taken), nothing lost.  On
# 2026-12-06 the same, with 25 units of frames come after their room was
# granted again taken into the room for late frames, which is what that
# room is for (credits.rst): the same premise, both checks its.
read_num lost_vc0 pstat SB bx credits_vc0 lost_units
read_num lost_vc1 pstat SB bx credits_vc1 lost_units
read_num late_vc0 pstat SB bx credits_vc0 late_units
read_num late_vc1 pstat SB bx credits_vc1 late_units
xfail_on_slow check_eq "SB found nothing lost" "$lost0" "$((lost_vc0 + lost_vc1))"
xfail_on_slow check_eq "SB took nothing into the room for late frames" "$late0" \
	"$((late_vc0 + late_vc1))"
sb_lossless "data held"
wait_for 5 books_exact
check_err $? "books not exact once idle after data held: $(books_log)"
ns_run SA tc qdisc del dev ax root
log_info "sent $sent frames through a qdisc that held each 50 ms"
log_test "data held in the port's qdisc beyond the quiet time: nothing found lost, no leak"

# --- link messages lost ---------------------------------------------------------------
# u32 at the ingress of both ports, on the inner EtherType of the fabric
# header: 0x88B5 is a link message.  Half of them: those with an odd
# message number (the low byte of the 32-bit number at offset 12 of the
# payload, after the 20-byte fabric header), which needs no random drop
# (gact's needs CONFIG_GACT_PROB, which not every kernel has).  Filters
# are added and deleted, never replaced: replacing a u32 filter warns on
# 6.12 (a field-spanning memcpy in u32_init_knode(), the kernel's).
msg_drop() {	# NS DEV PREF [MATCH...]: drop the link messages that match
	ns_exec "$1" tc filter add dev "$2" ingress protocol 0x88b5 pref "$3" \
		u32 match u16 0x88b5 0xffff at 2 "${@:4}" action drop
}
msg_drop_del() {	# NS DEV PREF
	ns_exec "$1" tc filter del dev "$2" ingress protocol 0x88b5 pref "$3"
}
ns_run SA tc qdisc add dev ax clsact || skip "no clsact"
ns_run SB tc qdisc add dev bx clsact || skip "no clsact"
msg_drop SA ax 2 match u8 0x01 0x01 at 35 || skip "no u32"
msg_drop SB bx 2 match u8 0x01 0x01 at 35 || skip "no u32"
ax0=$(out SA ax); b40=$(out SB b4); rx0=$(h4_rx); bxin0=$(pstat SB bx port rx_packets)
ms0=$(pstat SA ax credit_stats msgs_sent); mr0=$(pstat SB bx credit_stats msgs_received)
COUNT=$COUNT_FG send
ms=$(($(pstat SA ax credit_stats msgs_sent) - ms0)); mr=$(($(pstat SB bx credit_stats msgs_received) - mr0))
log_info "SA sent $ms link messages while half were dropped, SB took $mr"
# about half (odd numbers; messages in flight at either read move it by
# a few): fewer than all alone would pass a filter that dropped nothing,
# the reads being apart
[ "$ms" -gt 0 ] && [ $((4 * mr)) -gt "$ms" ] && [ $((4 * mr)) -lt $((3 * ms)) ]
check_err $? "not half of the link messages lost: SA sent $ms, SB took $mr"
# and then every message, in both directions, for 200 ms under traffic
send &
sender=$!
bg_track $sender
sleep 1
msg_drop SA ax 1
msg_drop SB bx 1
sleep 0.2
for pref in 1 2; do
	msg_drop_del SA ax $pref
	msg_drop_del SB bx $pref
done
rx_mid=$(h4_rx)
bg_wait $sender || fatal "fabric-send"
wait_for 60 settled
check_err $? "the path did not drain after the link messages were lost"
[ "$(h4_rx)" -gt "$rx_mid" ]
xfail_on_slow check_err $? "no traffic after the blackout"
sent=$(($(out SA ax) - ax0))
check_eq "nothing lost on the wire: all arrived" "$sent" "$(($(pstat SB bx port rx_packets) - bxin0))"
check_eq "... and reached H4" "$sent" "$(($(h4_rx) - rx0))"
sb_lossless "messages lost"
wait_for 5 books_exact
check_err $? "books not exact once idle after lost messages: $(books_log)"
log_test "link messages lost (half, then all for 200 ms): traffic resumes, no leak"

# --- the link flapped under traffic -----------------------------------------------------
r0=$(pstat SA ax credit_stats restarts)
send &
sender=$!
bg_track $sender
sleep 1
ns_run SA ip link set ax down
sleep 0.3
ns_run SA ip link set ax up
rx_mid=$(h4_rx)
bg_wait $sender || fatal "fabric-send"
wait_for 60 settled
check_err $? "the path did not drain after the flap"
[ "$(h4_rx)" -gt "$rx_mid" ]
xfail_on_slow check_err $? "no traffic after the flap"
[ "$(pstat SA ax credit_stats restarts)" -gt "$r0" ]
check_err $? "SA's books did not start again on the way up"
for k in "in_vc0 drops_full" "in_vc1 drops_full" "credits_vc0 violations" \
	"credits_vc1 violations"; do
	check_eq "flap: SB bx $k" 0 "$(pstat SB bx $k)"
done
check_eq "flap: SB b4 vc0 drops_full" 0 "$(pstat SB b4 vc0 drops_full)"
check_eq "flap: SB b4 vc1 drops_full" 0 "$(pstat SB b4 vc1 drops_full)"
wait_for 5 books_exact
check_err $? "books not exact once idle after the flap: $(books_log)"
log_test "link flapped under traffic: traffic resumes, books exact"

# --- an idle link's messages back off -------------------------------------------------
# Once each end has taken the other's last word and sends nothing, the
# period doubles up to 64 ms (core fabric_credit.h): about 16 messages a
# second each way instead of 1000 on a link that stays idle: 6.1 and
# 6.12 counted 31 in 2 s here.  The bound is a fifth of the base
# period's rate, per second of the window the counts were read over,
# from before the first read to after the last: each read starts a
# program, which on a debug kernel takes long enough that its 57 to 81
# were counted over more than 2 s (vcsw_host_credits says how that was
# found).  A link that did not back off fails it.  Every section after
# this one starts from a backed-off link.
sleep 1
t0=$(now_us)
ms0=$(pstat SA ax credit_stats msgs_sent); mr0=$(pstat SB bx credit_stats msgs_sent)
sleep 2
ms=$(($(pstat SA ax credit_stats msgs_sent) - ms0)); mr=$(($(pstat SB bx credit_stats msgs_sent) - mr0))
w=$(( ($(now_us) - t0) / 1000 ))
log_info "idle for $w ms: ax sent $ms link messages, bx $mr"
idle_backed_off "$ms" "$w" && idle_backed_off "$mr" "$w"
check_err $? "an idle link did not back off: ax sent $ms, bx $mr in $w ms (1000 a second at the base period)"
log_test "idle link: link messages backed off"

# --- credits off again: a lossy port as before ----------------------------------------
ns_run SB ip link set bx type vcsw_slave credits off
# SA's messages still come: taken by nobody, never forwarded
wait_for 5 eval '[ "$(pstat SB bx credit_stats msgs_off)" -gt 0 ]'
check_err $? "link messages to a port without credits not counted"
ns_run SA ip link set ax type vcsw_slave credits off
sleep 0.1
off0=$(pstat SB bx credit_stats msgs_off); sent0=$(pstat SA ax credit_stats msgs_sent)
rx0=$(h4_rx)
COUNT=200 send
wait_for 30 settled
check_err $? "the path did not drain without credits"
[ "$(h4_rx)" -gt "$rx0" ]
check_err $? "nothing forwarded without credits"
check_eq "no link message sent without credits" "$sent0" "$(pstat SA ax credit_stats msgs_sent)"
check_eq "none arrived" "$off0" "$(pstat SB bx credit_stats msgs_off)"
check_eq "H4 got no link message" 0 "$(json_u64 "$(ns_exec H4 fabric-stat -j eth0)" drop_inner_type)"
log_test "credits off: forwarded lossy, no link messages"

# --- teardown under traffic -----------------------------------------------------------
ns_run SA ip link set ax type vcsw_slave credits on
ns_run SB ip link set bx type vcsw_slave credits on
# 600 frames a sender: 1.3 s, traffic still running when the port goes
COUNT=600 send &
sender=$!
bg_track $sender
sleep 0.5
ns_run SB ip link set bx nomaster
check_err $? "port left under traffic"
ns_run SA ip link del sw0
check_err $? "switch deleted under traffic"
bg_wait $sender
log_test "port removed and switch deleted under traffic"

exit $EXIT_STATUS
