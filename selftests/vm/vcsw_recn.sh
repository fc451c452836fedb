#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# vm: deterministic
#
# RECN in vcsw (arch recn, Documentation/recn.rst): a congestion tree in
# a two-stage fabric of three switches on lossless credit links, and an
# innocent flow that shares its links with the tree's traffic.
#
#   [H0] [H1] [H2]               [H3] [H4] [H5]  hot spot
#    p0   p1   p2                 p0   p1   p2
#   [     A     ] p3 ---- p0 [S] p1 ---- p3 [     B     ]
#
# H1, H3 and H4 send to H5 at the whole link rate: B's port to H5 takes a
# third from each (round robin), so the tree's roots are there, and its
# branch through S and A carries H1's frames at a third of the rate.  H0
# sends to H3 at half the rate, over the same links A-S and S-B as H1's
# frames, on source routes.  Without RECN (arch trad) H1's frames fill
# the buffers along the branch, and H0's, queued behind them, get no more
# than H1's share: head-of-line blocking, a third where it asked for a
# half.  With RECN the congestion is found at B, notified upstream over
# the links, and H1's frames are set aside in SAQs at every stage (Xoff
# keeps them from filling the buffers): H0's flow keeps its rate.
#
# The figure is H0's rate: the time until H3 had all of H0's frames,
# against the same time without the hot traffic, in the same
# architecture and boot (the deterministic VM: guest time counts
# instructions).  Then: SAQs were made on every inter-switch port of the
# branch, Xoff and Xon were sent, nothing was dropped anywhere, and once
# the tree is gone every SAQ is freed again.  Then RECN messages lost:
# with S's port to B deaf to B for a second (recn off: refused, as if
# lost), every frame still arrives.  Then forged RECN frames at a port:
# each taken or refused whole.  Last, RECN at a host: H1's edf holds its
# hot frames back when A tells it to, and its innocent flow keeps its rate.
. ./lib.sh

require_cmd ip tc fabric-send fabric-stat
require_module vcsw
require_module fabric_hdr
require_module sch_edf
tmp_dir_create

RATE=4mbit
PAYLOAD=$(printf '%01000d' 0)	# 1062-byte frames: 14 + 20 + 20 + 8 + 1000
INTERVAL=2124			# us: 1062 bytes at 4 Mbit/s
N0=400				# H0's frames, at half the rate: 1.7 s
# Each hot sender's frames, at the whole rate: the hot spot takes a third
# from each, so the tree stands until it has sent all 3 * N_HOT, 3.8 s.
# H0's flow must finish inside it (at most 2.9 s, in trad; 3.1 s with
# messages lost), or a short tree would let H0 catch up and pass recn's
# check without RECN.  (With 600 RECN once left H0 611 per mille, as trad
# does, in about one run in nine: a RELEASE that crossed a notification
# inside B made B forget its port to a hot host, whose SAQ then ran out
# its lease every 8 ms and took the whole hot spot; 00e2b6b.  The leases
# checked below show the defect in passing runs too.)
N_HOT=600
SL=4				# every flow: best effort, VC1
ON=2147483648			# a route's "on" bit (fabric-header.rst)
# routes, a digit per switch (port + 1, the first switch lowest)
R_H0_H3=$((ON | 4 | 2 << 6 | 1 << 12))	# A p3, S p1, B p0
R_H1_H5=$((ON | 4 | 2 << 6 | 3 << 12))	# A p3, S p1, B p2
R_B_H5=$((ON | 3))			# B p2

mac() { echo "02:00:00:52:00:0$1"; }
pstat() { vcsw_stat "$@"; }	# NS DEV OBJ KEY
rx_frames() { host_rx_frames "H$1"; }
qbacklog() { root_qlen "H$1"; }
SENDERS="0 1 3 4"
idle() {
	local h

	vcsw_ports_empty A p0 p1 p3 && vcsw_ports_empty S p0 p1 &&
		vcsw_ports_empty B p0 p1 p2 p3 || return 1
	for h in $SENDERS; do
		[ "$(qbacklog $h)" = 0 ] || return 1
	done
}
settled() {
	local a b

	idle || return 1
	a=$(rx_frames 3); b=$(rx_frames 5)
	sleep 1
	idle && [ "$(rx_frames 3)" = "$a" ] && [ "$(rx_frames 5)" = "$b" ]
}

# flow H DST ROUTE COUNT INTERVAL: from host H to host DST on ROUTE
flow() {
	ns_exec H$1 fabric-send -i eth0 --dst-mac "$(mac $2)" --src-ip 10.52.0.$1 \
		--dst-ip 10.52.0.$2 --dport 9 --vc 1 --sl $SL --flow $(($1 * 10 + $2)) \
		--route "$3" --count "$4" --interval "$5" --payload "$PAYLOAD" > /dev/null
}
# run HOT: H0's flow, with the congestion tree if HOT is 1; DUR_US is the
# time until H3 had all of H0's frames.
run() {
	local hot=$1 pids=() p h3_0 h5_0 t0

	h3_0=$(rx_frames 3); h5_0=$(rx_frames 5)
	t0=$(now_us)
	if [ "$hot" = 1 ]; then
		flow 1 5 $R_H1_H5 $N_HOT $INTERVAL &
		pids+=($!); bg_track $!
		for p in 3 4; do
			flow $p 5 $R_B_H5 $N_HOT $INTERVAL &
			pids+=($!); bg_track $!
		done
	fi
	flow 0 3 $R_H0_H3 $N0 $((2 * INTERVAL)) &
	pids+=($!); bg_track $!
	ns_exec H3 fabric-stat --wait-rx $((h3_0 + N0)) --timeout 120 eth0 > /dev/null
	DUR_US=$(( ${EPOCHREALTIME/./} - t0 ))
	check_eq "H3 received every frame H0 sent it" $((h3_0 + N0)) "$(rx_frames 3)"
	drain "$hot" "$h5_0" "${pids[@]}"
}

# drain HOT H5_0 PID...: the senders done, the tree's frames at H5, which
# had H5_0 before (one waiter that asks every 10 ms, where settled's polls
# started a dozen programs every 0.1 s of the drain), then the fabric
# settled
drain() {
	local hot=$1 h5_0=$2 p

	shift 2
	for p in "$@"; do
		bg_wait "$p" || fatal "fabric-send"
	done
	if [ "$hot" = 1 ]; then
		ns_exec H5 fabric-stat --wait-rx $((h5_0 + 3 * N_HOT)) --timeout 120 eth0 > /dev/null
		check_eq "H5 received every hot frame" $((h5_0 + 3 * N_HOT)) "$(rx_frames 5)"
	fi
	wait_for 120 settled
	check_err $? "the fabric did not drain"
}

# switch every switch to ARCH (only while down), RECN on between switches.
# RECN's times are set for these links: the defaults (a 50 us refresh)
# suit links that carry a frame in a microsecond or two, and these take
# 2 ms: a refresh of about a frame time, a lease of four, idle lines
# freed after twenty.
set_arch() {
	local s p on=off

	[ "$1" = recn ] && on=on
	for s in A S B; do
		ns_run $s ip link set sw0 down
		ns_run $s ip link set sw0 type vcsw arch "$1" recn_refresh 2ms recn_lease 8ms \
			recn_idle 40ms || fatal "arch $1 in $s"
		ns_run $s ip link set sw0 up
	done
	for p in "A p3" "S p0" "S p1" "B p3"; do
		ns_run ${p% *} ip link set ${p#* } type vcsw_slave recn $on || fatal "recn $on $p"
	done
	wait_for 20 settled
	check_err $? "the fabric did not settle after arch $1"
}

# --- topology ----------------------------------------------------------------------
for n in A S B H0 H1 H2 H3 H4 H5; do ns_create $n; done
for s in A S B; do
	ns_run $s ip link add sw0 type vcsw arch trad rate $RATE flood off || fatal "vcsw $s"
done
for h in 0 1 2 3 4 5; do
	s=A; [ $h -ge 3 ] && s=B
	ip link add eth0 netns "$(ns_name H$h)" address "$(mac $h)" type veth \
		peer name p$((h % 3)) netns "$(ns_name $s)" || fatal "veth H$h"
done
ip link add p3 netns "$(ns_name A)" type veth peer name p0 netns "$(ns_name S)" ||
	fatal "veth A-S"
ip link add p3 netns "$(ns_name B)" type veth peer name p1 netns "$(ns_name S)" ||
	fatal "veth B-S"
# ports in order: a port's index is its number, as the routes say
for s in A S B; do
	ports="p0 p1 p2 p3"; [ $s = S ] && ports="p0 p1"
	for p in $ports; do
		ns_exec $s sysctl -qw net.ipv6.conf.$p.disable_ipv6=1
		ns_run $s ip link set $p master sw0 || fatal "$s $p master"
	done
done
# credits on every link a sender or a switch sends on; input buffers of
# 32 KB: room for the SAQs' Xoff level (6 KB) and the rest.  The hosts'
# links run at the switches' rate, as every link of the paper's fabric
# does (edf's rate paces them).  An unpaced veth sent a host's whole
# credit window at each Xon, before the switch's next Xoff could reach
# it: A's input buffer from H1 then held nothing but H1's hot frames,
# and H1's innocent flow waited for credits until they had crossed the
# tree, 1.7 s in 4 of 30 runs of the host section (2026-12-01).
for h in $SENDERS; do
	ns_exec H$h sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
	ns_run H$h tc qdisc add dev eth0 root handle 1: edf rate $RATE limit 10000 \
		flow_limit 10000 credits on || fatal "edf H$h"
done
for p in "A p0" "A p1" "B p0" "B p1" "A p3" "S p0" "S p1" "B p3"; do
	ns_run ${p% *} ip link set ${p#* } type vcsw_slave credits on in_buffer 32k ||
		fatal "credits $p"
done
for h in 2 5; do ns_exec H$h sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1; done
for s in A S B; do
	ns_run $s ip link set sw0 up
	for p in p0 p1 p2 p3; do ns_exec $s ip link set $p up 2> /dev/null; done
done
for h in 0 1 2 3 4 5; do ns_run H$h ip link set eth0 up; done
wait_for 20 settled
check_err $? "the fabric did not settle"
log_test "a two-stage fabric of three switches on credit links"

# --- without RECN: the innocent flow is blocked ------------------------------------------
run 0
trad_alone=$DUR_US
run 1
trad_share=$((trad_alone * 1000 / DUR_US))
log_info "trad: H0's flow took $((trad_alone / 1000)) ms alone, $((DUR_US / 1000)) ms beside" \
	"the tree: $trad_share per mille of its rate"
[ $((trad_share * 100)) -le 85000 ]
xfail_on_slow check_err $? "without RECN H0 kept $trad_share per mille of its rate: no blocking to remove"
log_test "arch trad: a congestion tree blocks a flow that shares its links"

# --- with RECN: isolated ------------------------------------------------------------------
set_arch recn
[[ $(link_json S p1) == *'"recn":true'* ]]
check_err $? "S p1 does not show recn on"
run 0
recn_alone=$DUR_US
run 1
recn_share=$((recn_alone * 1000 / DUR_US))
log_info "recn: H0's flow took $((recn_alone / 1000)) ms alone, $((DUR_US / 1000)) ms beside" \
	"the tree: $recn_share per mille of its rate"
# Seen: 902 to 1003 per mille in the boots of 6.1 and 6.12 it ran in, against
# 596 to 624 in trad.  Part of what is missing is the sender's: its
# relative sleeps run late on a busier CPU, and a congested fabric keeps
# it busier.  So: most of the rate, and most of what trad loses won back.
[ $((recn_share * 100)) -ge 85000 ] && [ $((recn_share - trad_share)) -ge 200 ]
xfail_on_slow check_err $? "with RECN H0 kept only $recn_share per mille of its rate (trad: $trad_share)"
log_test "arch recn: the flow keeps its rate beside the congestion tree"

# what RECN did on each inter-switch port: in the log, for the note
recn_log() {
	local p j k line

	for p in "A p3" "S p0" "S p1" "B p3"; do
		j=$(link_json ${p% *} ${p#* })
		line=
		for k in saq_alloc saq_full notify_tx notify_rx xoff_tx xoff_rx xon_tx xon_rx \
			 release_tx lease_expired stale_rx frames_tx frames_rx msgs_dropped; do
			line+=" $k $(json_obj_u64 "$j" recn_stats $k)"
		done
		log_info "$p:$line"
	done
}
recn_log

# SAQs along the branch: B's input from S found the congestion and told
# S, S's output to B set H1's frames aside and told A.  The tree grows
# that far only if the senders outpace the hot spot long enough: a debug
# kernel's do not (there B's input made SAQs, 39, but never filled one
# to its threshold, so S heard nothing), hence xfail_on_slow; what holds
# at any load (nothing refused, every SAQ freed, nothing dropped) is
# checked below everywhere.
for p in "B p3 notify_tx" "S p1 notify_rx" "S p1 saq_alloc" "S p0 notify_tx" \
	 "A p3 saq_alloc" "B p3 xoff_tx" "S p1 xoff_rx"; do
	set -- $p
	v=$(pstat $1 $2 recn_stats $3)
	[ "${v:-0}" -gt 0 ]
	xfail_on_slow check_err $? "$1 $2: recn $3 is ${v:-none}"
done
for p in "A p3" "S p0" "S p1" "B p3"; do
	set -- $p
	check_eq "$1 $2: RECN frames refused" 0 "$(pstat $1 $2 recn_stats frames_refused)"
	check_eq "$1 $2: SAQs still in use after the tree" 0 "$(pstat $1 $2 recn_stats saqs)"
	a=$(pstat $1 $2 recn_stats saq_alloc); f=$(pstat $1 $2 recn_stats saq_free)
	check_eq "$1 $2: every SAQ made was freed" "$a" "$f"
done
for p in "A p0" "A p1" "A p3" "S p0" "S p1" "B p0" "B p1" "B p3"; do
	set -- $p
	check_eq "$1 $2: nothing dropped in its input buffer" 0 "$(pstat $1 $2 in_vc1 drops_full)"
done
# The hot hosts' ports hear their Xoffs from inside the switch, where
# none is lost and each is repeated every refresh while the hot spot is
# full: a lease that runs out there means the output forgot the port.
# Before 00e2b6b it did, at a RELEASE that crossed a notification: in
# passing runs too (14 and 15 leases at B p0 and p1 in one, 107 at A p1
# in another), and some runs lost the isolation.  A tick later than the
# lease, as a slow kernel's timer is, must not end them either: it lands
# the outputs' repeated Xoffs before it looks at the inputs' leases
# (before d0b9ed1 the debug kernel ran out 682 to 842 a port).
for p in "A p1" "B p0" "B p1"; do
	set -- $p
	v=$(pstat $1 $2 recn_stats lease_expired)
	[ "${v:-0}" = 0 ]
	check_err $? "$1 $2: $v leases ran out while the hot spot was full"
done
check_eq "B p2: nothing dropped at the hot spot" 0 "$(pstat B p2 vc1 drops_full)"
log_test "SAQs made along the branch, Xoff sent, all freed, nothing dropped"

# --- messages lost --------------------------------------------------------------------
# A second into a run, S's port to B stops believing B for a second
# (recn off): what B says (the Xoffs that renew leases, Xons,
# notifications) is refused there, as if lost on the link: an Xon lost
# leaves a SAQ of S's stopped until its lease runs out.  Every frame
# still arrives, and every SAQ is freed after.
r0=$(pstat S p1 recn_stats frames_refused); l0=$(pstat S p1 recn_stats lease_expired)
( sleep 1; ns_exec S ip link set p1 type vcsw_slave recn off
  sleep 1; ns_exec S ip link set p1 type vcsw_slave recn on ) &
deaf=$!
bg_track $deaf
run 1
bg_wait $deaf
check_err $? "could not turn S p1's RECN off and on"
lost_share=$((recn_alone * 1000 / DUR_US))
log_info "recn with S deaf to B for a second: $lost_share per mille"
recn_log
r1=$(pstat S p1 recn_stats frames_refused); l1=$(pstat S p1 recn_stats lease_expired)
# B speaks in that second only if the tree has formed by then: a debug
# kernel's run took longer than the two seconds to get there
[ "$r1" -gt "$r0" ]
xfail_on_slow check_err $? "S p1 refused no RECN frame from B while off ($r0 -> $r1)"
# A lease runs out only if a SAQ was stopped when S went deaf, or B's
# Xoff was among what was lost (seen: 0 or 1 of them): a figure, not a
# check.  test_vcsw_recn and host/recn_qsim check leases that run out.
log_info "S p1: $((l1 - l0)) leases ran out, $((r1 - r0)) RECN frames refused while deaf"
for p in "A p3" "S p0" "S p1" "B p3"; do
	set -- $p
	check_eq "$1 $2: SAQs still in use after the lost messages" 0 "$(pstat $1 $2 recn_stats saqs)"
done
log_test "lost RECN messages: every frame arrives, every SAQ is freed"

# --- forged RECN frames -------------------------------------------------------------------
# H2 plays a switch that speaks RECN to A's port p2 (no credits, no
# qdisc on H2: the frames go straight out): valid frames for random
# points, padded or not, and ones with a fault.  Each is taken or
# refused whole, as the core's own parser says (fabric-send counts with
# it); the switch lives on, and the SAQs the forger made are freed once
# it stops.
FUZZ=$(fq_param recn_fuzz_frames 20000)
ns_run A ip link set p2 type vcsw_slave recn on || fatal "recn on A p2"
rx0=$(pstat A p2 recn_stats frames_rx); ref0=$(pstat A p2 recn_stats frames_refused)
out=$(ns_exec H2 fabric-send -i eth0 --recn-fuzz --seed "$(fq_param fuzz_seed 1)" --count "$FUZZ")
check_err $? "fabric-send --recn-fuzz failed"
log_info "$out"
fz() { echo "$out" | sed -n "s/.* $1=\([0-9]*\).*/\1/p"; }
read_num taken fz taken
read_num refused fz refused
fuzz_counted() {
	[ $(( $(pstat A p2 recn_stats frames_rx) + $(pstat A p2 recn_stats frames_refused) - rx0 - ref0 )) \
		-ge $((taken + refused)) ]
}
wait_for 30 fuzz_counted
check_eq "A p2: RECN frames taken" $((rx0 + taken)) "$(pstat A p2 recn_stats frames_rx)"
check_eq "A p2: RECN frames refused" $((ref0 + refused)) "$(pstat A p2 recn_stats frames_refused)"
saqs_freed() { [ "$(pstat A p2 recn_stats saqs)" = 0 ]; }
wait_for 10 saqs_freed
check_err $? "A p2: $(pstat A p2 recn_stats saqs) SAQs still in use after the forger stopped"
ns_run A ip link set p2 type vcsw_slave recn off
run 0
log_test "forged RECN frames: each taken or refused whole, the switch unharmed"

# --- RECN at the host -------------------------------------------------------------------
# H1 sends two flows: its hot one to H5, and an innocent one to H2, on
# A only (A p2), at half the rate.  Both wait in H1's edf qdisc, in its
# default class (one deadline clock, perflow off: one queue in arrival
# order), and share its credit link to A.  Without RECN at the host,
# H1's hot frames fill A's input buffer from H1 (they leave it at the
# hot spot's third), and the innocent frames wait behind the hot backlog
# in H1's queue.  With "recn on" in H1's edf and at A p1, A tells H1 of
# the congested point its hot frames pass; H1 gives it a SAQ, queues
# each destination's frames apart (still by the class's clock), and
# holds the hot ones back while A says Xoff: the innocent frames go at
# their rate.
R_H1_H2=$((ON | 3))			# A p2
# run_host HOT: H1's innocent flow, beside the tree if HOT is 1; DUR_US
# as run's
run_host() {
	local hot=$1 pids=() p h2_0 h5_0 t0

	h2_0=$(rx_frames 2); h5_0=$(rx_frames 5)
	t0=$(now_us)
	if [ "$hot" = 1 ]; then
		flow 1 5 $R_H1_H5 $N_HOT $INTERVAL &
		pids+=($!); bg_track $!
		for p in 3 4; do
			flow $p 5 $R_B_H5 $N_HOT $INTERVAL &
			pids+=($!); bg_track $!
		done
	fi
	flow 1 2 $R_H1_H2 $N0 $((2 * INTERVAL)) &
	pids+=($!); bg_track $!
	ns_exec H2 fabric-stat --wait-rx $((h2_0 + N0)) --timeout 120 eth0 > /dev/null
	DUR_US=$(( ${EPOCHREALTIME/./} - t0 ))
	check_eq "H2 received every frame H1 sent it" $((h2_0 + N0)) "$(rx_frames 2)"
	drain "$hot" "$h5_0" "${pids[@]}"
}
qjson() { ns_exec H1 tc -s -j qdisc show dev eth0 root | tr -d ' \n'; }
hstat() { json_obj_u64 "$(qjson)" recn "$1"; }

run_host 0
off_alone=$DUR_US
run_host 1
off_share=$((off_alone * 1000 / DUR_US))
log_info "host recn off: H1's innocent flow took $((off_alone / 1000)) ms alone," \
	"$((DUR_US / 1000)) ms beside its own hot flow: $off_share per mille"

# leases and idle times scaled to these links, as the switches' are
ns_run H1 tc qdisc change dev eth0 root edf recn on recn_lease 8ms recn_idle 40ms ||
	fatal "recn on in H1's edf"
ns_run A ip link set p1 type vcsw_slave recn on || fatal "recn on A p1"
[[ $(ns_exec H1 tc -j qdisc show dev eth0 root) == *'"recn":true'* ]]
check_err $? "H1's edf does not show recn on"
run_host 0
on_alone=$DUR_US
run_host 1
on_share=$((on_alone * 1000 / DUR_US))
log_info "host recn on: H1's innocent flow took $((on_alone / 1000)) ms alone," \
	"$((DUR_US / 1000)) ms beside its own hot flow: $on_share per mille"
j=$(qjson)
line=
for k in saqs saq_alloc notify_rx xoff_rx xon_rx release_tx full_tx lease_expired \
	 saq_idle_free stale_rx frames_rx frames_refused frames_tx msgs_dropped; do
	line+=" $k $(json_obj_u64 "$j" recn $k)"
done
log_info "H1's edf:$line held $(json_obj_u64 "$j" recn held)"
# Seen on 6.1: 280 per mille off, 982 on.
[ $((on_share * 100)) -ge 85000 ] && [ $((on_share - off_share)) -ge 300 ]
xfail_on_slow check_err $? "with RECN at H1 its innocent flow kept $on_share per mille (off: $off_share)"
log_test "RECN at the host: a host's innocent flow keeps its rate beside its own hot flow"

# as along the branch: told only if its hot flow outpaced the port (not
# on a debug kernel, where A p1 never notified it)
for k in notify_rx xoff_rx xon_rx saq_alloc release_tx; do
	v=$(hstat $k)
	[ "${v:-0}" -gt 0 ]
	xfail_on_slow check_err $? "H1's edf: recn $k is ${v:-none}"
done
v=$(hstat held)
[ "${v:-0}" -gt 0 ]
xfail_on_slow check_err $? "H1's edf held no flow back for a SAQ"
check_eq "H1's edf: RECN frames refused" 0 "$(hstat frames_refused)"
check_eq "H1's edf: flows still held after the tree" 0 "$(hstat held_flows)"
saqs_gone() { [ "$(hstat saqs)" = 0 ] && [ "$(pstat A p1 recn_stats saqs)" = 0 ]; }
wait_for 10 saqs_gone
check_err $? "SAQs still in use after the tree: H1 $(hstat saqs), A p1 $(pstat A p1 recn_stats saqs)"
check_eq "A p1: RECN frames refused" 0 "$(pstat A p1 recn_stats frames_refused)"
v=$(pstat A p1 recn_stats release_rx)
[ "${v:-0}" -gt 0 ]
xfail_on_slow check_err $? "A p1 heard no RELEASE from H1"
check_eq "A p1: nothing dropped in its input buffer" 0 "$(pstat A p1 in_vc1 drops_full)"
log_test "H1 made SAQs when told, held its hot flow on Xoff, freed them after"

# recn off again (the qdisc is empty, as it must be)
ns_run H1 tc qdisc change dev eth0 root edf recn off || fatal "recn off in H1's edf"
ns_run A ip link set p1 type vcsw_slave recn off
[[ $(ns_exec H1 tc -j qdisc show dev eth0 root) == *'"recn":false'* ]]
check_err $? "H1's edf does not show recn off"
log_test "RECN at the host turned off again"

exit $EXIT_STATUS
