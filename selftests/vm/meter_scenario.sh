#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 450
# kernels: first
#
# The scenario runner of make demo (selftests/demo/scenario.sh): a short
# edf scenario runs and leaves results for all four classes of the mix;
# bad scenario files are refused with file and line before anything is
# built; a short switch scenario (two edf hosts through vcsw) runs and
# uses both VCs; a scenario whose qdisc setup fails exits 1; and every
# run, failed or not, leaves no namespace behind.  No timing is asserted (make demo measures).
. ./lib.sh
. ./meter_lib.sh

require_cmd tc fabric-meter
require_module sch_edf
RUNNER=../demo/scenario.sh
[[ -r $RUNNER ]] || skip "no $RUNNER"
tmp_dir_create

# no namespace of the runner's left
runner_ns_gone() { ! ip netns list | grep_quiet '^fqs-'; }

# --- a short run -------------------------------------------------------------
cat > "$TMP_DIR/short.conf" <<'CONF'
title = short edf run   # comments after values are fine
host = edf
link = 20mbit
duration = 1
flows = control:2 multimedia:2 besteffort:2 background:2
CONF
bash "$RUNNER" "$TMP_DIR/short.conf" "$TMP_DIR/short" > "$TMP_DIR/short.out" 2>&1
check_err $? "scenario run failed: $(tail -n 5 "$TMP_DIR/short.out")"
for k in control multimedia besteffort background; do
	n=$(meter_csv "$TMP_DIR/short/results.csv" $k received)
	[[ ${n:-0} -gt 0 ]]
	check_err $? "class $k: received '${n}'"
	[[ -s $TMP_DIR/short/$k.cdf ]]
	check_err $? "no $k.cdf"
done
grep -q "^qdisc edf 1: root" "$TMP_DIR/short/qdisc.txt"
check_err $? "qdisc.txt lacks the edf qdisc"
runner_ns_gone
check_err $? "namespaces left: $(ip netns list)"
log_test "scenario run: results for every class, torn down"

# --- bad files ------------------------------------------------------------------
printf 'host = edf\ncolour = blue\n' > "$TMP_DIR/bad1.conf"
bash "$RUNNER" "$TMP_DIR/bad1.conf" "$TMP_DIR/bad1" > "$TMP_DIR/bad1.out" 2>&1
check_eq "exit status, unknown key" 2 $?
grep -q "bad1.conf:2: unknown key 'colour'" "$TMP_DIR/bad1.out"
check_err $? "message: $(cat "$TMP_DIR/bad1.out")"
printf 'host = edf\nlink 20mbit\n' > "$TMP_DIR/bad2.conf"
bash "$RUNNER" "$TMP_DIR/bad2.conf" "$TMP_DIR/bad2" > "$TMP_DIR/bad2.out" 2>&1
check_eq "exit status, no '='" 2 $?
grep -q "bad2.conf:2: want 'key = value'" "$TMP_DIR/bad2.out"
check_err $? "message: $(cat "$TMP_DIR/bad2.out")"
printf 'host = fifo\n' > "$TMP_DIR/bad3.conf"
bash "$RUNNER" "$TMP_DIR/bad3.conf" "$TMP_DIR/bad3" > "$TMP_DIR/bad3.out" 2>&1
check_eq "exit status, bad host" 2 $?
# lists are checked before anything is built: a typo, an unknown class,
# a mix without a share, one flow of a class that two hosts split
bad_list() {	# NAME LINES MESSAGE
	printf '%b' "$2" > "$TMP_DIR/$1.conf"
	bash "$RUNNER" "$TMP_DIR/$1.conf" "$TMP_DIR/$1" > "$TMP_DIR/$1.out" 2>&1
	check_eq "exit status, $1" 2 $?
	grep -qF "$1.conf: $3" "$TMP_DIR/$1.out"
	check_err $? "$1: message: $(cat "$TMP_DIR/$1.out")"
}
bad_list typo 'host = edf\nmix = control:2O\n' "mix = control:2O: 'control:2O': want kind:N, N from 0"
bad_list class 'host = edf\nflows = video:3\n' "flows = video:3: 'video' is not one of control"
bad_list noshare 'host = edf\nmix = control:0\n' "mix = control:0: no class with a share"
bad_list one 'host = edf\nswitch = fifo\nflows = control:1\n' \
	"flows: control has 1; with a switch each class needs 2 or more"
bad_list arch 'host = edf\nswitch = crossbar\n' \
	"switch = crossbar: want none, trad, simple, advanced or ideal"
bad_list credits 'host = edf\nswitch = simple\ncredits = yes\n' "credits = yes: want on or off"
bad_list buffer 'host = edf\nswitch = ideal\nswitch_buffer = 8kb\n' \
	"switch_buffer = 8kb: want bytes"
bad_list trad4 'host = trad4\nswitch = trad\n' \
	"host = trad4 cannot honour the switch's credits"
runner_ns_gone
check_err $? "namespaces left after the refusals: $(ip netns list)"
log_test "bad scenario files refused with file and line"

# --- a switch scenario -----------------------------------------------------------------
# two edf hosts and the sink on one vcsw switch: every class arrives, sent
# by both hosts (half its flows each) and measured as one class, the
# regulated classes cross the switch in VC0 (the hosts mark the TTD), the
# others in VC1
if modinfo vcsw > /dev/null 2>&1 && modinfo fabric_hdr > /dev/null 2>&1; then
	cat > "$TMP_DIR/sw.conf" <<'CONF'
host = edf
switch = advanced
link = 20mbit
duration = 1
flows = control:2 multimedia:2 besteffort:2 background:2
CONF
	bash "$RUNNER" "$TMP_DIR/sw.conf" "$TMP_DIR/sw" > "$TMP_DIR/sw.out" 2>&1
	check_err $? "switch scenario failed: $(tail -n 5 "$TMP_DIR/sw.out")"
	for k in control multimedia besteffort background; do
		n=$(meter_csv "$TMP_DIR/sw/results.csv" $k received)
		[[ ${n:-0} -gt 0 ]]
		check_err $? "switch: class $k: received '${n}': $(tail -n 4 "$TMP_DIR/sw.out"; cat "$TMP_DIR/sw/recv.err" "$TMP_DIR/sw/send.txt" 2>&1 | tail -n 12)"
	done
	for k in control multimedia besteffort background; do
		hosts=$(awk -v k="$k" '/^== / { h = $2 } $1 ~ "^" k "/" { print h }' \
			"$TMP_DIR/sw/send.txt" | sort -u | tr '\n' ' ')
		check_eq "switch: hosts that sent $k" "H1 H2 " "$hosts"
		n=$(meter_csv "$TMP_DIR/sw/results.csv" $k sent)
		s1=$(awk -v k="$k" '$1 ~ "^" k "/" { n += $3 } END { print n + 0 }' "$TMP_DIR/sw/send.txt")
		check_eq "switch: $k sent, receiver's count against both senders'" "$s1" "${n:-x}"
	done
	grep -q "^qdisc edf 1: root .*ttd on" "$TMP_DIR/sw/qdisc.txt"
	check_err $? "switch: the hosts' edf qdiscs lack ttd on: $(head -n 3 "$TMP_DIR/sw/qdisc.txt")"
	# lossless by default: both hosts' qdiscs wait for the switch's
	# credits, and its ports to them count the hosts' frames in their books
	n=$(grep -c "^qdisc edf 1: root .*credits on" "$TMP_DIR/sw/qdisc.txt")
	check_eq "switch: hosts whose edf has credits on" 2 "$n"
	grep -q "credits on" "$TMP_DIR/sw/switch-inputs.txt"
	check_err $? "switch: the ports to the hosts lack credits: $(head -n 8 "$TMP_DIR/sw/switch-inputs.txt")"
	for vc in vc0 vc1; do
		n=$(sed -n "s/^ *$vc: packets \([0-9]*\) .*/\1/p" "$TMP_DIR/sw/switch.txt")
		[[ ${n:-0} -gt 0 ]]
		check_err $? "switch: nothing left the sink's port in $vc: $(cat "$TMP_DIR/sw/switch.txt")"
	done
	runner_ns_gone
	check_err $? "namespaces left after the switch run: $(ip netns list)"
	log_test "switch scenario: two hosts send every class through vcsw, VC0 and VC1 used"

else
	# takeover: the old name of advanced, still accepted
	printf 'host = edf\nswitch = takeover\n' > "$TMP_DIR/sw.conf"
	bash "$RUNNER" "$TMP_DIR/sw.conf" "$TMP_DIR/sw" > "$TMP_DIR/sw.out" 2>&1
	check_eq "exit status, switch missing" 4 $?
	grep -q "SKIP: switch = advanced needs the" "$TMP_DIR/sw.out"
	check_err $? "message: $(cat "$TMP_DIR/sw.out")"
	runner_ns_gone
	check_err $? "namespaces left after the skip: $(ip netns list)"
	log_test "switch scenario skipped without the vcsw module"
fi

# --- a failing setup still tears down -------------------------------------------------
printf 'host = edf\neligibility = 5s\nduration = 1\n' > "$TMP_DIR/fail.conf"
bash "$RUNNER" "$TMP_DIR/fail.conf" "$TMP_DIR/fail" > "$TMP_DIR/fail.out" 2>&1
check_eq "exit status, edf refuses eligibility 5s" 1 $?
grep -q "tc qdisc add dev veth0 root handle 1: edf .* failed" "$TMP_DIR/fail.out"
check_err $? "message: $(cat "$TMP_DIR/fail.out")"
runner_ns_gone
check_err $? "namespaces left after the failure: $(ip netns list)"
log_test "failed setup: exit 1, torn down"

exit $EXIT_STATUS
