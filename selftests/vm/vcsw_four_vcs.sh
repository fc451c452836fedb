#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# vm: deterministic
#
# Four VCs (the EDF paper's Traditional 4 VCs; Documentation/vcsw.rst,
# "Four VCs"): switches of vcs 4, a credit link between them carrying
# four VCs, each VC strictly before the next at every output and at the
# crossbar.
#
#   [H1] -- a1 [SA] ax ===== sa [S] sw0 trad, rate 1mbit, p4 -- [H4]
#             credit link ax = sa, 4 VCs
#
# H1 sends COUNT frames on VC3, then COUNT on VC2, on VC1 and last on
# VC0, while S's output is all but stopped (rate 1kbit, a frame every
# 8.5 s), so the later batches find the earlier ones still waiting
# however fast or slow the sender is; then the output runs at 1 Mbit/s.
# With four strict VCs,
# from the first VC0 frame on, H4 must receive the rest in VC order (all
# of VC0, then VC1, VC2, VC3), whatever the order they were sent in;
# nothing is dropped on the credit path.  The same traffic through
# two-VC switches (VC2 and VC3 frames are best effort, VC1's FIFO) comes
# out of that order, which shows the check can fail.  Also: vcs changes
# only while the switch is down, the attributes and counters of VCs 2
# and 3 show, and ends of another count refuse each other's link
# messages (msgs_malformed) until they agree again.
. ./lib.sh

require_cmd ip fabric-send fabric-vc-count
require_module vcsw
tmp_dir_create

H4_MAC=02:00:00:4a:00:04
PAYLOAD=$(printf '%01000d' 0)	# 1062-byte frames: 8.5 ms each at 1 Mbit/s
COUNT=30			# frames per VC and run
INTERVAL=500			# us: 17 times S's output rate

pstat() { json_obj_u64 "$(link_json "$1" "$2")" "$3" "$4"; }

for n in SA S H1 H4; do ns_create $n; done
ns_run SA ip link add sw0 type vcsw arch trad vcs 4 buffer 1m || fatal "vcsw SA"
ns_run S ip link add sw0 type vcsw arch trad vcs 4 rate 1mbit buffer 4k || fatal "vcsw S"
ip link add ax netns "$(ns_name SA)" type veth peer name sa netns "$(ns_name S)" || fatal veth
ip link add eth0 netns "$(ns_name H1)" address 02:00:00:4a:00:01 type veth \
	peer name a1 netns "$(ns_name SA)" || fatal "veth H1"
ip link add eth0 netns "$(ns_name H4)" address $H4_MAC type veth \
	peer name p4 netns "$(ns_name S)" || fatal "veth H4"
for d in "SA ax" "SA a1" "S sa" "S p4"; do
	set -- $d
	ns_exec $1 sysctl -qw net.ipv6.conf.$2.disable_ipv6=1
	ns_run $1 ip link set $2 master sw0 || fatal "$2 master"
done
ns_run SA ip link set ax type vcsw_slave credits on || fatal "credits ax"
ns_run S ip link set sa type vcsw_slave credits on || fatal "credits sa"
for h in 1 4; do
	ns_exec H$h sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
	ns_run H$h ip link set eth0 up
done
for d in "SA sw0" "S sw0" "SA ax" "SA a1" "S sa" "S p4"; do
	set -- $d
	ns_run $1 ip link set $2 up
done
ns_run SA ip link set ax type vcsw_slave fdb_add $H4_MAC || fatal "fdb SA"
ns_run S ip link set p4 type vcsw_slave fdb_add $H4_MAC || fatal "fdb S"

# --- configuration ------------------------------------------------------------------------
j=$(ns_exec S ip -d -j link show sw0)
check_eq "S's vcs" 4 "$(json_u64 "$j" vcs)"
check_eq "S's vc3_buffer" 4096 "$(json_u64 "$j" vc3_buffer)"
ns_run S ip link set sw0 type vcsw vc3_buffer 8k || fatal "vc3_buffer"
check_eq "S's vc3_buffer, set alone" 8192 "$(json_u64 "$(ns_exec S ip -d -j link show sw0)" vc3_buffer)"
check_eq "S's vc2_buffer, untouched" 4096 "$(json_u64 "$(ns_exec S ip -d -j link show sw0)" vc2_buffer)"
out=$(ns_exec S ip link set sw0 type vcsw vcs 2 2>&1)
check_fail $? "vcs changed while the switch is up"
[[ $out == *"only while the switch is down"* ]]
check_err $? "the refusal does not say why: $out"
out=$(ns_exec S ip link set sw0 type vcsw vcs 5 2>&1)
check_fail $? "vcs 5 taken"
ns_run S ip link set sa type vcsw_slave vc2_in_buffer 16k || fatal "vc2_in_buffer"
j=$(link_json S sa)
check_eq "sa's vc2_in_buffer" 16384 "$(json_u64 "$j" vc2_in_buffer)"
check_eq "sa's vc3_in_buffer, untouched" 8192 "$(json_u64 "$j" vc3_in_buffer)"
ns_run S ip link set sa type vcsw_slave vc2_in_buffer 0 || fatal "vc2_in_buffer 0"
log_test "vcs 4: per-VC buffers shown and set, vcs changes refused while up"

# run TAG: the four batches, VC3 first; ORDER: the VCs in H4's order
run() {
	local tag=$1 vc vcc rx0

	ns_bg H4 fabric-vc-count -i eth0 -n $((4 * COUNT)) -t 120000 -s \
		-r "$TMP_DIR/$tag.ready" > "$TMP_DIR/$tag.out"
	vcc=$BG_PID
	wait_for 10 test -e "$TMP_DIR/$tag.ready" || fatal "fabric-vc-count did not start"
	ns_run S ip link set sw0 type vcsw rate 1kbit || fatal "rate 1kbit"
	rx0=$(pstat SA a1 port rx_packets)
	for vc in 3 2 1 0; do
		ns_exec H1 fabric-send -i eth0 --dst-mac $H4_MAC --src-ip 10.74.0.1 \
			--dst-ip 10.74.0.4 --dport 9 --vc $vc --flow $vc --count $COUNT \
			--interval $INTERVAL --payload "$PAYLOAD" > /dev/null ||
			fatal "fabric-send VC$vc"
	done
	# every batch queued in SA or S, VC0's in S's output
	wait_for 60 eval '[ "$(pstat SA a1 port rx_packets)" -ge $((rx0 + 4 * COUNT)) ]' ||
		fatal "SA did not receive the $((4 * COUNT)) frames"
	wait_for 30 eval '[ "$(pstat S p4 vc0 backlog_packets)" -gt 0 ]' ||
		fatal "no VC0 frame reached S's output"
	ns_run S ip link set sw0 type vcsw rate 1mbit || fatal "rate 1mbit"
	bg_wait $vcc
	check_err $? "$tag: H4 did not receive the $((4 * COUNT)) frames: $(cat "$TMP_DIR/$tag.out")"
	ORDER=$(sed -n 's/^order=//p' "$TMP_DIR/$tag.out")
	log_info "$tag: H4's order: $ORDER"
}

# whether $1, from its first 0 on, never goes down (VC order)
in_vc_order() { [[ ${1#${1%%0*}} =~ ^0+1*2*3*$ ]]; }

wait_for 10 eval '[ "$(pstat SA ax credits_vc3 tx_credits)" -gt 0 ]'
check_err $? "no VC3 credits granted on the link to S"
run four
in_vc_order "$ORDER"
check_err $? "four VCs: not in VC order from the first VC0 frame on"
for k in 0 1 2 3; do
	check_eq "S sa in_vc$k frames" $COUNT "$(pstat S sa in_vc$k packets)"
	check_eq "S sa in_vc$k drops_full" 0 "$(pstat S sa in_vc$k drops_full)"
	check_eq "S sa credits_vc$k violations" 0 "$(pstat S sa credits_vc$k violations)"
	check_eq "S p4 vc$k frames" $COUNT "$(pstat S p4 vc$k packets)"
done
# VC3's frames waited for credits at SA: the later VCs overtook them there
[ "$(pstat SA ax credits_vc3 stalls)" -gt 0 ]
check_err $? "SA never waited for S's VC3 credits"
check_eq "S sa msgs_malformed" 0 "$(pstat S sa credit_stats msgs_malformed)"
log_test "four VCs, each strictly before the next, lossless on the credit path"

# --- the same through two-VC switches -----------------------------------------------------
for s in SA S; do
	ns_run $s ip link set sw0 down
	ns_run $s ip link set sw0 type vcsw vcs 2 || fatal "vcs 2 $s"
	ns_run $s ip link set sw0 up
done
j=$(link_json S p4)
# the same dump has VC1's: an empty read is no proof of no VC2
check_err $(( $(json_obj_u64 "$j" vc1 packets 2>/dev/null | grep -c '^[0-9][0-9]*$') != 1 )) \
	"no VC1 counters read on p4 of the two-VC switch"
check_eq "no VC2 counters on a two-VC switch" "" \
	"$(json_obj_u64 "$j" vc2 packets 2>/dev/null)"
wait_for 10 eval '[ "$(pstat SA ax credits_vc1 tx_credits)" -gt 0 ]'
check_err $? "no credits granted on the two-VC link"
run two
in_vc_order "$ORDER"
check_fail $? "two VCs: in VC order, as if VC2 and VC3 had their own VCs"
# VC1's frames of both runs, and VC2's and VC3's of this one
check_eq "S p4 vc1 frames" $((4 * COUNT)) "$(pstat S p4 vc1 packets)"
log_test "two VCs: VC2 and VC3 frames are best effort (VC1, FIFO): the order check fails"

# --- ends that disagree -------------------------------------------------------------------
m0=$(pstat S sa credit_stats msgs_malformed)
ns_run SA ip link set sw0 down
ns_run SA ip link set sw0 type vcsw vcs 4 || fatal "vcs 4 SA"
ns_run SA ip link set sw0 up
wait_for 10 eval '[ "$(pstat S sa credit_stats msgs_malformed)" -gt $m0 ]'
check_err $? "a two-VC end took a four-VC end's link messages"
ns_run S ip link set sw0 down
ns_run S ip link set sw0 type vcsw vcs 4 || fatal "vcs 4 S"
ns_run S ip link set sw0 up
wait_for 10 eval '[ "$(pstat SA ax credits_vc3 tx_credits)" -gt 0 ]'
check_err $? "no VC3 credits once both ends have four VCs again"
log_test "ends of another VC count refuse each other's messages, agree again"

exit $EXIT_STATUS
