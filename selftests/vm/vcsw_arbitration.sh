#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# vm: deterministic
#
# Arbitration among a switch's inputs (Documentation/vcsw.rst, the EDF
# paper's section 3.2): two upstream switches feed S over credit links,
# each with one host's ordered stream on VC0, into one output of half the
# rate they offer.  S's inputs back up, and its crossbar decides which
# input's head goes next:
#   trad    round robin among the inputs, blind to deadlines;
#   simple  the smallest deadline among the inputs' heads: two ordered
#           chains merged in deadline order;
#   advanced  the same arbiter over each input's ordered and take-over
#           FIFOs (the appendix): with ordered inputs the take-over FIFOs
#           stay empty, and it merges as simple does;
#   ideal   both VCs sorted: the merge of simple, and no order error can
#           come from an input's own order.
# H1's frames carry a TTD of 2 ms, H2's 20 ms: each stream is in
# deadline order, and H1's frames are due long before H2's of the same
# time.  Order errors are counted where S's output takes a frame while a
# smaller deadline waits in that VC (the output holds a few frames).
# simple, advanced and ideal must each make far fewer than trad; each
# run also stays lossless on the credit path (nothing refused or dropped
# in S).
#
#   [H1] -- a1 [SA] ax ===== sa -+
#                                +- [S] sw0 arch A, rate 4mbit, p4 -- [H4]
#   [H2] -- b2 [SB] bx ===== sb -+
#            credit links: ax = sa, bx = sb
. ./lib.sh

require_cmd ip fabric-send fabric-stat
require_module vcsw
require_module fabric_hdr
tmp_dir_create

H4_MAC=02:00:00:49:00:04
PAYLOAD=$(printf '%01000d' 0)	# 1062-byte frames
INTERVAL=2124			# us: 4 Mbit/s per sender, twice S's output
COUNT=600			# per sender and architecture

pstat() { json_obj_u64 "$(link_json "$1" "$2")" "$3" "$4"; }

idle() {
	local d j

	for d in "SA ax" "SB bx" "S p4"; do
		j=$(link_json $d)
		[ "$(json_obj_u64 "$j" vc0 backlog_packets)" = 0 ] || return 1
	done
	for d in sa sb; do
		j=$(link_json S $d)
		[ "$(json_obj_u64 "$j" in_vc0 backlog_packets)" = 0 ] || return 1
	done
}

for n in SA SB S H1 H2 H4; do ns_create $n; done
ns_run SA ip link add sw0 type vcsw arch advanced || fatal "vcsw SA"
ns_run SB ip link add sw0 type vcsw arch advanced || fatal "vcsw SB"
# a small output buffer: frames wait in S's inputs, where the arbiter is
ns_run S ip link add sw0 type vcsw arch trad rate 4mbit vc0_buffer 4k || fatal "vcsw S"
ip link add ax netns "$(ns_name SA)" type veth peer name sa netns "$(ns_name S)" || fatal veth
ip link add bx netns "$(ns_name SB)" type veth peer name sb netns "$(ns_name S)" || fatal veth
ip link add eth0 netns "$(ns_name H1)" address 02:00:00:49:00:01 type veth \
	peer name a1 netns "$(ns_name SA)" || fatal "veth H1"
ip link add eth0 netns "$(ns_name H2)" address 02:00:00:49:00:02 type veth \
	peer name b2 netns "$(ns_name SB)" || fatal "veth H2"
ip link add eth0 netns "$(ns_name H4)" address $H4_MAC type veth \
	peer name p4 netns "$(ns_name S)" || fatal "veth H4"
for d in "SA ax" "SA a1" "SB bx" "SB b2" "S sa" "S sb" "S p4"; do
	set -- $d
	ns_exec $1 sysctl -qw net.ipv6.conf.$2.disable_ipv6=1
	ns_run $1 ip link set $2 master sw0 || fatal "$2 master"
done
for d in "SA ax" "SB bx" "S sa" "S sb"; do
	set -- $d
	ns_run $1 ip link set $2 type vcsw_slave credits on || fatal "credits $2"
done
for h in 1 2 4; do
	ns_exec H$h sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
	ns_run H$h ip link set eth0 up
done
for d in "SA sw0" "SB sw0" "S sw0" "SA ax" "SA a1" "SB bx" "SB b2" "S sa" "S sb" "S p4"; do
	set -- $d
	ns_run $1 ip link set $2 up
done
# static entries: nothing for H4 is flooded (a flooded frame is lossy)
ns_run SA ip link set ax type vcsw_slave fdb_add $H4_MAC || fatal "fdb SA"
ns_run SB ip link set bx type vcsw_slave fdb_add $H4_MAC || fatal "fdb SB"
ns_run S ip link set p4 type vcsw_slave fdb_add $H4_MAC || fatal "fdb S"

# run ARCH: both streams at once through S in ARCH; sets OE (S's output's
# VC0 order errors), OUT (its frames) and RX (what reached H4)
run() {
	local arch=$1 h pids=() oe0 p0 rx0 rej0

	ns_run S ip link set sw0 type vcsw arch "$arch" || fatal "arch $arch"
	oe0=$(pstat S p4 vc0 order_errors); p0=$(pstat S p4 vc0 packets)
	# (fabric-stat has nothing to say before H4's first fabric frame)
	rx0=$(json_u64 "$(ns_exec H4 fabric-stat -j eth0 2>/dev/null)" rx_frames)
	rx0=${rx0:-0}
	for h in 1 2; do
		ns_exec H$h fabric-send -i eth0 --dst-mac $H4_MAC --src-ip 10.49.0.$h \
			--dst-ip 10.49.0.4 --dport 9 --vc 0 --ttd $((h == 1 ? 2000000 : 20000000)) \
			--flow $h --count $COUNT --interval $INTERVAL --payload "$PAYLOAD" \
			> /dev/null &
		pids+=($!)
		bg_track $!
	done
	for h in "${pids[@]}"; do
		bg_wait "$h" || fatal "fabric-send"
	done
	wait_for 60 idle || check_err 1 "$arch: the path did not drain"
	OE=$(($(pstat S p4 vc0 order_errors) - oe0))
	OUT=$(($(pstat S p4 vc0 packets) - p0))
	RX=$(($(json_u64 "$(ns_exec H4 fabric-stat -j eth0)" rx_frames) - rx0))
}

# both links have exchanged epochs: credits granted
wait_for 10 eval '[ "$(pstat SA ax credits_vc0 tx_credits)" -gt 0 ] && [ "$(pstat SB bx credits_vc0 tx_credits)" -gt 0 ]'
check_err $? "no credits granted on the links to S"

run trad
oe_trad=$OE out_trad=$OUT rx_trad=$RX
declare -A OES
for a in simple advanced ideal; do
	run $a
	OES[$a]=$OE
	log_info "trad: $oe_trad order errors in $out_trad frames; $a: $OE in $OUT"
	check_eq "$a: H4 received what S's output sent" "$OUT" "$RX"
done
check_eq "trad: H4 received what S's output sent" "$out_trad" "$rx_trad"
for d in sa sb; do
	j=$(link_json S $d)
	for k in "in_vc0 drops_full" "credits_vc0 violations"; do
		check_eq "S $d $k" 0 "$(json_obj_u64 "$j" $k)"
	done
done
check_eq "S p4 vc0 drops_full" 0 "$(pstat S p4 vc0 drops_full)"
# the inputs backed up (else there was nothing to arbitrate); a slow
# kernel (the debug one, KASAN under TCG) may not send the two streams at
# their rate, so that S keeps up and nothing waits: as with the order
# errors below, expected there
[ "$(pstat SA ax credits_vc0 stalls)" -gt 0 ] && [ "$(pstat SB bx credits_vc0 stalls)" -gt 0 ]
xfail_on_slow check_err $? "the upstream switches never both waited for S's credits (stalls: SA ax $(pstat SA ax credits_vc0 stalls), SB bx $(pstat SB bx credits_vc0 stalls))"
log_test "every architecture lossless on the credit path, inputs backed up"

# round robin sends H2's far-off frames between H1's urgent ones
[ "$oe_trad" -gt $((out_trad / 10)) ]
xfail_on_slow check_err $? "trad: only $oe_trad order errors in $out_trad frames"
# the merge by head deadline: at most a tenth of round robin's
for a in simple advanced ideal; do
	[ $((OES[$a] * 10)) -le "$oe_trad" ]
	xfail_on_slow check_err $? "$a: ${OES[$a]} order errors against trad's $oe_trad"
done
log_test "simple, advanced and ideal merge the inputs' ordered chains by deadline, trad does not"

exit $EXIT_STATUS
