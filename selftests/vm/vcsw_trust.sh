#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 360
# vm: deterministic
#
# A host that forges its fabric headers cannot starve the others through an
# untrusted port.  H1 sends frames marked regulated (VC0) with the earliest
# deadline a header can carry (TTD = -2^31 ns) at twice the output port's
# rate; H2 sends control messages (VC0, edf "control") and best effort
# (VC1) to H3 through the same output port.
#  - p1 trusted (the default): H1's frames head VC0 for ever, VC0 is never
#    empty, and H2's best effort is starved: the attack is real;
#  - p1 untrusted, vc0_rate 4mbit, vc0_burst 16k: H1's VC0 is policed (the
#    excess dropped and counted) and its TTD held to [0, 100 ms]; H2 loses
#    nothing, and its control messages wait at most about what H1 may send
#    in one burst (16 KB at 20 Mbit/s, 6.6 ms).
# The deterministic VM makes guest time an instruction count, so rates and
# latencies do not depend on the host's load.
#
#   [H1] forger  ------------ p1 -+
#   [H2] edf control + BE ---- p2 -+- sw0 vc0 takeover rate 20mbit -p3- [H3]
#                                                                    fabric_hdr
. ./lib.sh

require_cmd tc ip udp-lat fabric-send
require_module vcsw
require_module sch_edf
require_module fabric_hdr
tmp_dir_create

# Guest seconds of H2's traffic per phase.  2 s: 1000 control messages
# and 1000 best-effort datagrams (800 required).  Trusted, best effort got
# none of 2000 (under a tenth required): starvation does not thin out
# with time.  Untrusted, control's p99 was 620-670 us against a bound of
# 8903 us set by one burst, not by the count.  The forger, 42 Mbit/s
# through the switch, is most of the test's work: 4 s and a 2-s tail
# each phase were twice what the verdicts use.
RUN=2
N=48
BURST=16384
LINK_BPS=20000000
mac() { printf '02:00:00:%02x:00:%02x' $N "$1"; }

pstat() {
	ns_exec S ip -j -d link show dev "$1" | tr -d ' \n' |
		sed -n "s/.*\"$2\":{\([^}]*\)}.*/\1/p" |
		sed -n "s/.*\"$3\":\([0-9]*\).*/\1/p"
}
slave() {	# DEV KEY: a port option as ip -j prints it (on and off: true, false)
	ns_exec S ip -j -d link show dev "$1" | tr -d ' \n' |
		sed -n "s/.*\"$2\":\"*\([-0-9a-z]*\).*/\1/p"
}
field() { sed -n "s/.*\b$1=\([0-9.]*\).*/\1/p" | head -n1; }

ns_create S
ns_run S ip link add sw0 type vcsw vc0 takeover rate 20mbit buffer 64k || fatal "vcsw"
ns_run S ip link set sw0 up
for i in 1 2 3; do
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
for i in 1 2; do
	ns_run H$i ip neigh replace 10.$N.0.3 lladdr "$(mac 3)" dev eth0 nud permanent
done
ns_run H2 tc qdisc add dev eth0 root handle 1: edf rate 100mbit ttd on || fatal "edf on H2"
ns_run H2 tc class add dev eth0 parent 1: classid 1:1 edf control
ns_run H2 tc class add dev eth0 parent 1: classid 1:3 edf rate 10mbit besteffort

# --- configuration -------------------------------------------------------------------
check_eq "trusted by default" true "$(slave p1 trust)"
ns_exec S ip link set p1 type vcsw_slave ttd_min 2ms ttd_max 1ms 2>"$TMP_DIR/err"
check_fail $? "ttd_min above ttd_max accepted"
grep -q "ttd_min is above ttd_max" "$TMP_DIR/err"
check_err $? "no reason given: $(cat "$TMP_DIR/err")"
ns_exec S ip link set p1 type vcsw_slave vc0_burst 2047 2>"$TMP_DIR/err"
check_fail $? "vc0_burst 2047 accepted"
ns_exec S ip link set p1 type vcsw_slave vc0_exceed maybe 2>/dev/null
check_fail $? "vc0_exceed maybe accepted"
check_eq "refused changes kept ttd_min" 0 "$(slave p1 ttd_min)"
check_eq "default ttd_max" 100000000 "$(slave p1 ttd_max)"
check_eq "default vc0_rate" 0 "$(slave p1 vc0_rate)"
log_test "trust options: defaults shown, ranges enforced"

PAYLOAD=$(printf '%01000d' 0)	# 1062 bytes on the wire
# run_phase NAME: the attack and H2's traffic; results in $TMP_DIR/NAME.*
run_phase() {
	local m=$1 r1 r3 c be att
	for p in 1 3; do rm -f "$TMP_DIR/$m.r$p"; done
	# the receivers and the forger outlast H2's senders by 1 s, time
	# for a datagram that was not starved to arrive (best effort took
	# 0.7 ms at most from an untrusted forger)
	ns_bg H3 udp-lat recv --port 9001 --duration $((RUN + 1)) \
		--ready "$TMP_DIR/$m.r1" > "$TMP_DIR/$m.ctl"
	r1=$BG_PID
	ns_bg H3 udp-lat recv --port 9003 --duration $((RUN + 1)) \
		--ready "$TMP_DIR/$m.r3" > "$TMP_DIR/$m.be"
	r3=$BG_PID
	wait_for 10 test -e "$TMP_DIR/$m.r1" -a -e "$TMP_DIR/$m.r3" ||
		fatal "receivers did not start"
	# the forger: one frame per 200 us, about 42 Mbit/s
	ns_bg H1 fabric-send -i eth0 --dst-mac "$(mac 3)" --src-ip 10.$N.0.1 \
		--dst-ip 10.$N.0.3 --dport 9 --vc 0 --ttd -2147483648 \
		--count $(((RUN + 1) * 5000)) --interval 200 --payload "$PAYLOAD" > /dev/null
	att=$BG_PID
	wait_for 10 eval 'test "$(pstat p1 port rx_fabric)" -gt $((att_rx0 + 200))' ||
		fatal "the forger does not send"
	ns_bg H2 udp-lat send --dst 10.$N.0.3 --port 9003 --size 1000 --rate 500 \
		--duration "$RUN" --prio 1:3 > "$TMP_DIR/$m.be.tx"
	be=$BG_PID
	ns_run H2 udp-lat send --dst 10.$N.0.3 --port 9001 --size 200 \
		--poisson 2000 --seed 7 --duration "$RUN" --prio 1:1 > "$TMP_DIR/$m.ctl.tx"
	bg_wait $be
	bg_wait $r1
	bg_wait $r3
	kill "$att" 2>/dev/null
	bg_wait "$att"
	att_rx0=$(pstat p1 port rx_fabric)
	log_info "$m control: $(head -n1 "$TMP_DIR/$m.ctl") $(cat "$TMP_DIR/$m.ctl.tx")"
	log_info "$m best effort: $(head -n1 "$TMP_DIR/$m.be") $(cat "$TMP_DIR/$m.be.tx")"
}
att_rx0=0

# --- trusted: the attack works ----------------------------------------------------------
run_phase trusted
be_sent=$(field sent < "$TMP_DIR/trusted.be.tx")
be_rx=$(field packets < "$TMP_DIR/trusted.be")
[ "${be_sent:-0}" -ge $((RUN * 400)) ]
xfail_on_slow check_err $? "H2 sent only ${be_sent:-0} best-effort datagrams"
# a number read, not a default: an unreadable receiver is no attack seen
[[ $be_rx =~ ^[0-9]+$ ]] && [ $((be_rx * 10)) -lt "${be_sent:-1}" ]
xfail_on_slow check_err $? "best effort got ${be_rx:-0} of ${be_sent:-0} through a trusted forger: no attack"
log_test "trusted port: forged VC0 starves best effort (${be_rx:-0} of ${be_sent:-0})"

# --- untrusted: policed and clamped -------------------------------------------------------
ns_run S ip link set p1 type vcsw_slave trust off vc0_rate 4mbit vc0_burst $BURST ||
	fatal "trust off"
check_eq "trust shown" false "$(slave p1 trust)"
check_eq "vc0_rate shown" 500000 "$(slave p1 vc0_rate)"
pd0=$(pstat p1 port police_drop)
tc0=$(pstat p1 port ttd_clamped)
run_phase untrusted
ctl_sent=$(field sent < "$TMP_DIR/untrusted.ctl.tx")
ctl_rx=$(field packets < "$TMP_DIR/untrusted.ctl")
ctl_p99=$(field lat_p99_us < "$TMP_DIR/untrusted.ctl")
be_sent=$(field sent < "$TMP_DIR/untrusted.be.tx")
be_rx=$(field packets < "$TMP_DIR/untrusted.be")
xfail_on_slow check_eq "control messages received" "${ctl_sent:-x}" "${ctl_rx:-y}"
xfail_on_slow check_eq "best-effort datagrams received" "${be_sent:-x}" "${be_rx:-y}"
[ "${ctl_sent:-0}" -ge $((RUN * 400)) ]
xfail_on_slow check_err $? "H2 sent only ${ctl_sent:-0} control messages"
# bound: one burst of the forger's frames plus one frame in service, at the
# port's rate, and 1.5 ms for the hosts and the timer
bound_us=$(((BURST + 2 * 1062) * 8 * 1000000 / LINK_BPS + 1500))
awk -v p="$ctl_p99" -v b="$bound_us" 'BEGIN { exit !(p > 0 && p < b) }'
xfail_on_slow check_err $? "control p99 ${ctl_p99} us, bound ${bound_us} us"
pd=$(($(pstat p1 port police_drop) - pd0))
tc=$(($(pstat p1 port ttd_clamped) - tc0))
# every forged frame carries TTD -2^31: clamped at any speed; policed only
# if the forger outran vc0_rate, which a debug kernel's did not
# (make check-debug: 0 dropped, 2661 clamped)
[ "$tc" -gt 0 ]
check_err $? "forged frames not clamped ($tc)"
[ "$pd" -gt 0 ]
xfail_on_slow check_err $? "forged frames not policed ($pd dropped)"
log_info "police_drop $pd, ttd_clamped $tc, control p99 $ctl_p99 us (bound $bound_us)"
log_test "untrusted port: H2 loses nothing, control p99 ${ctl_p99} us < ${bound_us} us"

# --- demote instead of drop ---------------------------------------------------------------
ns_run S ip link set p1 type vcsw_slave vc0_rate 0 vc0_exceed demote || fatal "demote"
dm0=$(pstat p1 port police_demote)
v1=$(pstat p3 vc1 packets)
# what H3 sees on the wire: the next hop must not put them back into VC0
ns_bg H3 fabric-vc-count -i eth0 -n 20 -t 20000 -r "$TMP_DIR/vcc.ready" > "$TMP_DIR/vcc.out"
vcc=$BG_PID
wait_for 10 test -e "$TMP_DIR/vcc.ready" || fatal "fabric-vc-count did not start"
ns_run H1 fabric-send -i eth0 --dst-mac "$(mac 3)" --src-ip 10.$N.0.1 --dst-ip 10.$N.0.3 \
	--dport 9 --vc 0 --ttd -2147483648 --count 20 --payload demoted > /dev/null
wait_for 10 eval 'test "$(pstat p1 port police_demote)" = $((dm0 + 20))'
check_err $? "demoted $(($(pstat p1 port police_demote) - dm0)) of 20"
wait_for 10 eval 'test "$(pstat p3 vc1 packets)" -ge $((v1 + 20))'
check_err $? "demoted frames did not leave by VC1"
bg_wait $vcc
check_err $? "H3 did not see the 20 demoted frames: $(cat "$TMP_DIR/vcc.out")"
check_eq "headers of the demoted frames at H3" "frames=20 vc0=0 vc1=20 other=0 vc2=0 vc3=0" "$(cat "$TMP_DIR/vcc.out")"
log_test "vc0_exceed demote: over-rate VC0 frames sent as VC1, counted, VC1 on the wire"

exit $EXIT_STATUS
