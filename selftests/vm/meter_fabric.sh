#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# kernels: first
#
# The fabric runner of make demo (selftests/demo/fabric.sh, a scenario
# with "tree = K,N"): four edf hosts on a 2-ary 2-tree of vcsw switches
# send the whole mix, each flow to a drawn destination, multimedia
# through admission control.  Every class arrives; the merged results
# count what the senders sent; every class went where traffic.txt says,
# over the switches it says (the switches' ports together sent at least
# that many frames, and nothing was dropped in the lossless fabric);
# admission control refuses at a cap below a flow's rate; Traditional 4
# VCs runs with four VCs end to end; bad
# fabric scenarios are refused before anything is built; nothing is left
# behind.  No timing is asserted (make demo measures).
. ./lib.sh
. ./meter_lib.sh

require_cmd tc fabric-meter fabric-topo fabric-cac fabric-route
require_module sch_edf
require_module vcsw
require_module fabric_hdr
RUNNER=../demo/scenario.sh
tmp_dir_create
export FABRIC_TOPO_SHELL=bash
runner_ns_gone() { ! ip netns list | grep_quiet '^fqs-'; }
# host_stalls_seen NAME DIR: the premise of a run's "lossless": its hosts'
# edf waited for credits (the stalls of every VC in DIR/qdisc.txt, tc -s
# after the run), so that a switch that dropped what did not fit would
# have been seen.  The congestion needs hosts that keep up with the
# offered load (164 to 758 stalls here): expected to miss on a slow kernel
host_stalls_seen() {
	local n

	n=$(awk '{ for (i = 1; i < NF; i++) if ($i == "stalls")
			for (j = i + 1; j + 1 <= NF && $j ~ /^vc[0-9]$/; j += 2) n += $(j + 1) }
		END { print n + 0 }' "$2/qdisc.txt")
	log_info "$1: the hosts' edf waited for credits $n times"
	[[ $n -gt 0 ]]
	xfail_on_slow check_err $? "$1: no host ever waited for credits, so nothing tested losslessness"
}
# a run whose sender never got through keeps its hosts' and switch ports'
# counters, credits included (fabric.sh): show them
failed_state() {
	[ -s "$1/failed-state.txt" ] || return 0
	log_info "hosts and switch ports when the sender failed:"
	log_info "$(head -n 400 "$1/failed-state.txt")"
}

cat > "$TMP_DIR/f.conf" <<'CONF'
host = edf
switch = advanced
tree = 2,2
link = 10mbit
duration = 1
control_target = 4ms
eligibility = 4ms
flows = control:2 multimedia:2 besteffort:1 background:1
CONF
bash "$RUNNER" "$TMP_DIR/f.conf" "$TMP_DIR/f" > "$TMP_DIR/f.out" 2>&1
check_err $? "fabric run failed: $(tail -n 5 "$TMP_DIR/f.out")"
failed_state "$TMP_DIR/f"
log_info "$(cat "$TMP_DIR/f/hops.txt" 2>/dev/null)"
for k in control multimedia besteffort background; do
	n=$(meter_csv "$TMP_DIR/f/results.csv" $k received)
	[[ ${n:-0} -gt 0 ]]
	check_err $? "class $k: received '${n}'"
	senders=$(awk -v k=$k '$2 == k && / to h/ { print $1 }' "$TMP_DIR/f/traffic.txt" | sort -u | wc -l)
	check_eq "hosts that sent $k" 4 "$senders"
	# what the senders sent of the class (send.txt: "NAME[/FLOW] KIND SENT ...")
	s=$(awk -v k="$k" '$2 == k { n += $3 } END { print n + 0 }' "$TMP_DIR/f/send.txt")
	check_eq "$k sent, merged receivers against the senders" "$s" "$(meter_csv "$TMP_DIR/f/results.csv" $k sent)"
done
# each host's receiver got a class from each sender and kind that
# traffic.txt sent it flows of
for h in 0 1 2 3; do
	want=$(awk -v h="h$h" '/ to h/ && $(NF - 2) == h "," { print $1, $2 }' "$TMP_DIR/f/traffic.txt" |
		sort -u | wc -l)
	got=0
	[[ -s $TMP_DIR/f/r$h/results.csv ]] && got=$(($(wc -l < "$TMP_DIR/f/r$h/results.csv") - 1))
	check_eq "classes received by h$h" "$want" "$got"
done
check_eq "multimedia flows refused" 0 "$(sed -n 's/^multimedia flows refused by admission control: //p' "$TMP_DIR/f/traffic.txt")"
drops=$(awk '{ for (i = 1; i < NF; i++) if ($i ~ /^(drops_full|drop_nomem|violations|drop_route)$/) n += $(i + 1) }
	END { print n + 0 }' "$TMP_DIR/f/switch.txt")
check_eq "frames dropped in the switches" 0 "$drops"
host_stalls_seen fabric "$TMP_DIR/f"
routes=$(sed -n 's/^switches per datagram, from the routes: \([0-9.]*\).*/\1/p' "$TMP_DIR/f/hops.txt")
measured=$(sed -n 's/^switches per datagram, measured: \([0-9.]*\).*/\1/p' "$TMP_DIR/f/hops.txt")
awk -v r="${routes:-0}" -v m="${measured:-0}" 'BEGIN { exit !(r >= 1 && m >= r) }'
check_err $? "switches per datagram: $measured measured, $routes from the routes"
grep -q "^qdisc edf 1: root .*ttd on.*credits on" "$TMP_DIR/f/qdisc.txt"
check_err $? "the hosts' edf lacks ttd on and credits on: $(head -n 3 "$TMP_DIR/f/qdisc.txt")"
runner_ns_gone
check_err $? "namespaces left: $(ip netns list)"
log_test "fabric run: every class from every host, merged, routed, lossless, torn down"

# --- admission control at a cap below a multimedia flow's rate ----------------
# a multimedia flow takes half of 25 % of 10 Mbit/s, 1.25 Mbit/s, above a
# 10 % cap on every link: each of the 4 flows (two hosts' two) draws its
# destinations in vain and none is sent.  The smallest fabric, one switch
# (tree = 2,1), is enough for that, at a quarter of the namespaces and
# switches to build of the run above.
sed 's/^tree = .*/tree = 2,1/' "$TMP_DIR/f.conf" > "$TMP_DIR/cap.conf"
bash "$RUNNER" "$TMP_DIR/cap.conf" "$TMP_DIR/cap" cap=10 > "$TMP_DIR/cap.out" 2>&1
check_err $? "capped run failed: $(tail -n 5 "$TMP_DIR/cap.out")"
failed_state "$TMP_DIR/cap"
check_eq "multimedia flows refused at cap 10" 4 "$(sed -n 's/^multimedia flows refused by admission control: //p' "$TMP_DIR/cap/traffic.txt")"
n=$(meter_csv "$TMP_DIR/cap/results.csv" multimedia received)
check_eq "multimedia received at cap 10" "" "$n"
n=$(meter_csv "$TMP_DIR/cap/results.csv" control received)
[[ ${n:-0} -gt 0 ]]
check_err $? "control received at cap 10: '$n'"
runner_ns_gone
check_err $? "namespaces left: $(ip netns list)"
log_test "admission control refuses what would pass the cap; the rest runs"

# --- Traditional 4 VCs ----------------------------------------------------------
# trad4 hosts in a fabric: edf with four VCs and token buckets (burst)
# into switches and links of four VCs; one switch (tree = 2,1) is enough
# to see every class arrive on its own VC, nothing dropped, while the
# hosts wait for credits (305 and 369 stalls in two runs on 6.1)
sed 's/^tree = .*/tree = 2,1/; s/^host = .*/host = trad4/; s/^switch = .*/switch = trad/' \
	"$TMP_DIR/f.conf" > "$TMP_DIR/t4.conf"
bash "$RUNNER" "$TMP_DIR/t4.conf" "$TMP_DIR/t4" > "$TMP_DIR/t4.out" 2>&1
check_err $? "trad4 fabric run failed: $(tail -n 5 "$TMP_DIR/t4.out")"
failed_state "$TMP_DIR/t4"
for k in control multimedia besteffort background; do
	n=$(meter_csv "$TMP_DIR/t4/results.csv" $k received)
	[[ ${n:-0} -gt 0 ]]
	check_err $? "trad4: class $k: received '${n}'"
done
grep -q "^qdisc edf 1: root .*vcs 4" "$TMP_DIR/t4/qdisc.txt"
check_err $? "trad4: the hosts' edf lacks vcs 4: $(head -n 3 "$TMP_DIR/t4/qdisc.txt")"
grep -q "burst [0-9]*b" "$TMP_DIR/t4/qdisc.txt"
check_err $? "trad4: no token bucket in the hosts' classes"
# every VC carried frames out of the switch, and nothing was dropped
for v in 0 1 2 3; do
	p=$(awk -v v="vc$v:" '$1 == v && $2 == "packets" { p += $3 } END { print p + 0 }' \
		"$TMP_DIR/t4/switch.txt")
	[[ $p -gt 0 ]]
	check_err $? "trad4: the switch sent $p frames on VC$v"
done
drops=$(awk '{ for (i = 1; i < NF; i++) if ($i ~ /^(drops_full|drop_nomem|violations|drop_route|msgs_malformed)$/) n += $(i + 1) }
	END { print n + 0 }' "$TMP_DIR/t4/switch.txt")
check_eq "trad4: frames dropped in the switch, messages refused" 0 "$drops"
host_stalls_seen trad4 "$TMP_DIR/t4"
runner_ns_gone
check_err $? "namespaces left: $(ip netns list)"
log_test "trad4 fabric run: four VCs from host to host, token buckets, lossless"

# --- refusals -------------------------------------------------------------------
bad() {	# NAME LINES MESSAGE
	printf '%b' "$2" > "$TMP_DIR/$1.conf"
	bash "$RUNNER" "$TMP_DIR/$1.conf" "$TMP_DIR/$1" > "$TMP_DIR/$1.out" 2>&1
	check_eq "exit status, $1" 2 $?
	grep -qF "$3" "$TMP_DIR/$1.out"
	check_err $? "$1: message: $(cat "$TMP_DIR/$1.out")"
}
bad tree 'switch = ideal\ntree = 4\n' "tree = 4: want K,N"
bad noswitch 'tree = 2,2\n' "tree = 2,2 needs a switch architecture"
bad lossy 'switch = trad\ncredits = off\ntree = 2,2\n' "credits = off is not supported"
bad cap 'switch = trad\ntree = 2,2\ncap = 0\n' "cap = 0: want 1 .. 100"
runner_ns_gone
check_err $? "namespaces left after the refusals: $(ip netns list)"
log_test "bad fabric scenarios refused before anything is built"

exit $EXIT_STATUS
