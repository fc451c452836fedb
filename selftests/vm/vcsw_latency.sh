#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# vm: deterministic
#
# The paper's experiment on one switch port.  Two hosts send smoothed video
# (edf "frame 10ms smooth", eligibility 2 ms: packets leave up to 2 ms
# before their deadlines) and best effort, a third sends control messages
# (edf "control": deadlines a few us ahead), all to a fourth host through
# one vcsw port at 20 Mbit/s, every host marking TTD in the fabric header.
# Video keeps VC0 busy, so control messages arrive behind video packets
# with later deadlines: order errors.  The same traffic (fixed seed) runs
# with VC0 in fifo, takeover and ideal:
#  - control latency: ideal best, takeover between, fifo worst (how
#    close takeover comes to ideal depends on the two videos' phase);
#  - takeover removes most of fifo's order errors, ideal has none;
#  - no flow is reordered;
#  - VC0 strictly before VC1: VC1 overflows, VC0 loses nothing and control
#    p99 stays far below the best-effort median.
#
#   [H1] video 1:2 + best effort 1:3 --p1-+
#   [H2] video 1:2 --------------------p2-+- sw0 rate 20mbit -p4-- [H4] receivers
#   [H3] control 1:1 ------------------p3-+        (vcsw)          fabric_hdr
#   hosts: edf rate 100mbit eligibility 2ms ttd on
. ./lib.sh

require_cmd tc ip udp-lat
require_module vcsw
require_module sch_edf
require_module fabric_hdr
tmp_dir_create

# Guest seconds of traffic per discipline: 4 puts 2000 control messages
# in each mean (p99 on the slowest 20); the verdicts' margins (below) are
# set by the discipline and the videos' phase, not by the count, and 5 s
# spent a fifth more of the test's busy time for 500 more.
RUN=4
N=41
mac() { printf '02:00:00:%02x:00:%02x' $N "$1"; }

# pstat DEV OBJ KEY: counter of a port of sw0
pstat() {
	ns_exec S ip -j -d link show dev "$1" | tr -d ' \n' |
		sed -n "s/.*\"$2\":{\([^}]*\)}.*/\1/p" |
		sed -n "s/.*\"$3\":\([0-9]*\).*/\1/p"
}
field() { sed -n "s/.*\b$1=\([0-9.]*\).*/\1/p" | head -n1; }

ns_create S
ns_run S ip link add sw0 type vcsw vc0 fifo rate 20mbit buffer 64k || fatal "vcsw"
ns_run S ip link set sw0 up
for i in 1 2 3 4; do
	ns_create H$i
	ip link add eth0 netns "$(ns_name H$i)" address "$(mac $i)" type veth \
		peer name p$i netns "$(ns_name S)" || fatal "veth $i"
	ns_exec H$i sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
	ns_exec S sysctl -qw net.ipv6.conf.p$i.disable_ipv6=1
	ns_run H$i ip addr add 10.$N.0.$i/24 dev eth0
	ns_run H$i ip link set eth0 up
	ns_run S ip link set p$i master sw0 || fatal "p$i master sw0"
	ns_run S ip link set p$i up
	ns_run S ip link set p$i type vcsw_slave fdb_add "$(mac $i)" || fatal "fdb_add"
done
for i in 1 2 3; do
	ns_run H$i ip neigh replace 10.$N.0.4 lladdr "$(mac 4)" dev eth0 nud permanent
	ns_run H$i tc qdisc add dev eth0 root handle 1: edf rate 100mbit eligibility 2ms ttd on ||
		fatal "edf on H$i"
	ns_run H$i tc class add dev eth0 parent 1: classid 1:1 edf control
	ns_run H$i tc class add dev eth0 parent 1: classid 1:2 edf frame 10ms smooth
	ns_run H$i tc class add dev eth0 parent 1: classid 1:3 edf rate 10mbit besteffort
done

# run_phase MODE: the same traffic with VC0 in MODE; results in $TMP_DIR/MODE.*
run_phase() {
	local m=$1 oe0 to0 r1 r2 r3 v1 v2 be
	ns_run S ip link set sw0 type vcsw vc0 "$m" || fatal "vc0 $m"
	oe0=$(pstat p4 vc0 order_errors)
	to0=$(pstat p4 vc0 takeovers)
	for p in 1 2 3; do rm -f "$TMP_DIR/$m.r$p"; done
	# RUN + 1: the receivers are ready before the senders start, and
	# the slowest datagram, best effort behind VC1's 64 KB, arrives
	# 0.32 s after it was sent; 3 s more were idle guest time
	ns_bg H4 udp-lat recv --port 9001 --duration $((RUN + 1)) --log "$TMP_DIR/$m.ctl.log" \
		--ready "$TMP_DIR/$m.r1" > "$TMP_DIR/$m.ctl"
	r1=$BG_PID
	ns_bg H4 udp-lat recv --port 9002 --duration $((RUN + 1)) --log "$TMP_DIR/$m.vid.log" \
		--ready "$TMP_DIR/$m.r2" > "$TMP_DIR/$m.vid"
	r2=$BG_PID
	ns_bg H4 udp-lat recv --port 9003 --duration $((RUN + 1)) \
		--ready "$TMP_DIR/$m.r3" > "$TMP_DIR/$m.be"
	r3=$BG_PID
	wait_for 10 test -e "$TMP_DIR/$m.r1" -a -e "$TMP_DIR/$m.r2" -a -e "$TMP_DIR/$m.r3" ||
		fatal "receivers did not start"

	# Best effort only has to keep VC1 full: it got 234 datagrams a
	# second of what video and control leave; 600 overflows VC1's 64 KB
	# within half a second as 1500 did, without three times the
	# datagrams dropped at VC1 after a trip through H1's edf and sw0.
	ns_bg H1 udp-lat send --dst 10.$N.0.4 --port 9003 --size 1000 --rate 600 \
		--duration "$RUN" --prio 1:3 > /dev/null
	be=$BG_PID
	ns_bg H1 udp-lat send --dst 10.$N.0.4 --port 9002 --stream 1 --size 1000 \
		--frame-bytes 10000 --frame-interval 10000 --gso --duration "$RUN" \
		--prio 1:2 > /dev/null
	v1=$BG_PID
	ns_bg H2 udp-lat send --dst 10.$N.0.4 --port 9002 --stream 2 --size 1000 \
		--frame-bytes 10000 --frame-interval 10000 --gso --duration "$RUN" \
		--prio 1:2 > /dev/null
	v2=$BG_PID
	ns_run H3 udp-lat send --dst 10.$N.0.4 --port 9001 --stream 3 --size 200 \
		--poisson 2000 --seed 7 --duration "$RUN" --prio 1:1 > /dev/null
	bg_wait $v1; bg_wait $v2; bg_wait $be
	bg_wait $r1; bg_wait $r2; bg_wait $r3
	echo $(($(pstat p4 vc0 order_errors) - oe0)) > "$TMP_DIR/$m.oe"
	echo $(($(pstat p4 vc0 takeovers) - to0)) > "$TMP_DIR/$m.to"
	log_info "$m control: $(head -n1 "$TMP_DIR/$m.ctl")"
	log_info "$m video: $(head -n1 "$TMP_DIR/$m.vid")"
	log_info "$m best effort: $(head -n1 "$TMP_DIR/$m.be")"
	log_info "$m VC0 order errors $(cat "$TMP_DIR/$m.oe"), take-overs $(cat "$TMP_DIR/$m.to")"
}

for m in fifo takeover ideal; do
	run_phase $m
done
ns_exec S ip -d -s link show dev p4 | sed 's/^/INFO: /'

# --- control latency ---------------------------------------------------------------
for m in fifo takeover ideal; do
	eval "p99_$m=\$(field lat_p99_us < \"\$TMP_DIR/\$m.ctl\")"
	eval "mean_$m=\$(field lat_mean_us < \"\$TMP_DIR/\$m.ctl\")"
	eval "n_$m=\$(field packets < \"\$TMP_DIR/\$m.ctl\")"
	eval "oe_$m=\$(cat \"\$TMP_DIR/\$m.oe\")"
done
log_info "control mean: fifo ${mean_fifo} us, takeover ${mean_takeover} us, ideal ${mean_ideal} us"
log_info "control p99: fifo ${p99_fifo} us, takeover ${p99_takeover} us, ideal ${p99_ideal} us"
log_info "order errors: fifo $oe_fifo, takeover $oe_takeover, ideal $oe_ideal"
for m in fifo takeover ideal; do
	eval "n=\$n_$m"
	[ "${n:-0}" -ge 400 ]
	xfail_on_slow check_err $? "$m: only ${n:-0} control messages measured"
done
# How close takeover comes to ideal depends on the phase between the two
# video sources, which each run draws anew (the senders start a few guest
# ms apart, and the icount VM does not repeat a multi-process run bit for
# bit).  When H2's frames fall between H1's in deadline order they queue
# in the take-over FIFO, and control messages wait there behind them: in
# one run of five, takeover made 260 order errors (fifo 1136) and its
# control p99 was 821 us against ideal's 451 and fifo's 878; in the
# others it made 0 to 34 and its p99 was within 15 % of ideal's
# (Documentation/vcsw.rst has the five).  The paper claims
# "almost the same as ideal" over a whole fabric, where such phases
# average out; on one port and one draw the claim that holds is the
# ordering: ideal best, takeover between, fifo worst.  The means rest on
# 2000 messages each (p99 on the slowest 20):
#  - ideal's mean at most 10 % above takeover's (run-to-run noise; a
#    sorted VC cannot lose to the approximation);
#  - takeover's mean at most 0.8 of fifo's (0.40 to 0.63 seen), its p99
#    no higher than fifo's;
#  - ideal's p99 at most 3/4 of fifo's (0.38 to 0.52 seen).
awk -v f="$mean_fifo" -v t="$mean_takeover" -v i="$mean_ideal" \
	'BEGIN { exit !(i > 0 && t > 0 && i <= 1.1 * t && t <= 0.8 * f) }'
xfail_on_slow check_err $? "control mean not ideal <= takeover < fifo: $mean_ideal, $mean_takeover, $mean_fifo us"
awk -v f="$p99_fifo" -v t="$p99_takeover" -v i="$p99_ideal" \
	'BEGIN { exit !(i > 0 && t > 0 && t <= f && i <= 0.75 * f) }'
xfail_on_slow check_err $? "control p99 not ideal, takeover < fifo: $p99_ideal, $p99_takeover, $p99_fifo us"
log_test "control latency: ideal <= takeover < fifo"

# --- order errors --------------------------------------------------------------------
[ "$oe_fifo" -ge 50 ]
xfail_on_slow check_err $? "fifo made only $oe_fifo order errors: the scenario does not exercise them"
[ $((oe_takeover * 2)) -lt "$oe_fifo" ]
xfail_on_slow check_err $? "takeover $oe_takeover order errors is not below half of fifo's $oe_fifo"
check_eq "ideal order errors" 0 "$oe_ideal"
[ "$(cat "$TMP_DIR/takeover.to")" -gt 0 ]
xfail_on_slow check_err $? "takeover mode took over nothing"
log_test "takeover removes most of fifo's order errors, ideal none"

# --- per-flow order ---------------------------------------------------------------------
bad=0
for f in "$TMP_DIR"/*.log; do
	n=$(awk '{ if ($1 in last && $2 <= last[$1]) bad++; last[$1] = $2 } END { print bad + 0 }' "$f")
	[ "$n" = 0 ] || { log_info "$(basename "$f"): $n datagrams out of order"; bad=1; }
done
# On a slow kernel (make check-debug) this test runs in a VM of two vCPUs,
# not the deterministic one's single vCPU, and there flows came reordered
# in fifo as much as in the other disciplines (38 of a control flow's
# datagrams in fifo, where VC0 cannot reorder anything): the hosts' own
# path (a sender moving between CPUs, veth's per-CPU backlogs), not the
# switch.  Not yet shown by pinning the senders: XFAIL there.
xfail_on_slow check_eq "flows reordered" 0 "$bad"
log_test "no flow reordered in any discipline"

# --- VC0 strictly before VC1 -----------------------------------------------------------
[ "$(pstat p4 vc1 drops_full)" -gt 0 ]
xfail_on_slow check_err $? "VC1 never overflowed: no load"
xfail_on_slow check_eq "VC0 drops" 0 "$(pstat p4 vc0 drops_full)"
for m in fifo takeover ideal; do
	lost=$(field lost < "$TMP_DIR/$m.ctl")
	xfail_on_slow check_eq "$m control lost" 0 "${lost:-x}"
	lost=$(field lost < "$TMP_DIR/$m.vid")
	xfail_on_slow check_eq "$m video lost" 0 "${lost:-x}"
	be50=$(field lat_p50_us < "$TMP_DIR/$m.be")
	eval "c99=\$p99_$m"
	awk -v b="$be50" -v c="$c99" 'BEGIN { exit !(b > 5 * c) }'
	xfail_on_slow check_err $? "$m: best-effort median $be50 us not far above control p99 $c99 us"
done
log_test "VC0 strictly before VC1: VC1 overflows, VC0 loses nothing"

exit $EXIT_STATUS
