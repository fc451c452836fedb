#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 900
# vm: deterministic
#
# Guest instructions per frame forwarded by vcsw, each architecture,
# against the Linux bridge forwarding the same frames
# (Documentation/benchmarks.rst, "Switch forwarding").
#
#   [pktgen] in0 ==veth== in1 -- SWITCH -- out1 ==veth== out0
#
# pktgen hands minimum-size frames to in0 (a veth, no qdisc); the switch
# (a bridge, or vcsw with rate 0) forwards each by a static entry for its
# destination to out1; out0 drops it (not its address).  With the frames
# on one CPU and pktgen ending its run only when the last one was freed,
# pktgen's rate covers all of it: 1e9 / pps is the instructions per frame
# (the deterministic VM counts one ns per instruction).  "direct" is the
# floor: in1 not a port, so in1 drops every frame the way out0 does; a
# switch's own cost is its figure less direct's.
#
# vcsw with credits on (case vcsw-ARCH-credits): in1 and out1 speak
# credits, in0 carries an edf qdisc with "credits on" (the sender must
# honour them) and out0 one too (a host's end, which grants as a sink);
# its peer is "bridge-edf", the bridge with the same edf on in0 without
# credits, so the ratio compares the switches and the credit machinery.
#
# Output: "bench vcsw case=NAME frames=N pps=N insn_per_frame=N
# delivered=N" per case, "bench vcsw-peer case=NAME peer=NAME".
. ../vm/lib.sh
. ./lib.sh

# recn against trad: RECN on and off (the same FIFOs and round robin
# without its sets), on frames that take no part in it (no route: each
# still pays the sets' queues, classification and round robin)
ARCHS="trad simple advanced ideal recn"
DST_MAC=02:00:00:00:00:02	# lib.sh's pg_config sends to this address

if [[ ${1:-} != --in-netns ]]; then
	require_module vcsw
	require_module fabric_hdr
	require_module sch_edf
	require_module bridge
	bench_in_netns "$0" tc ip
	exit
fi
TMP_DIR=$2	# the outer run's; it removes it
DEV=in0		# pktgen's device (lib.sh)

sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 ||
	fatal "cannot disable IPv6"
[[ -w $PG/pgctrl ]] || fatal "no pktgen in the namespace"
ip link add in0 type veth peer name in1 &&
ip link add out0 type veth peer name out1 || fatal "cannot add the veths"
for d in in0 in1 out0 out1; do
	ip link set $d up || fatal "cannot set $d up"
done
ip addr add 198.18.0.1/24 dev in0 &&
ip neigh add 198.18.0.2 lladdr $DST_MAC dev in0 nud permanent || fatal "in0"

rx_packets() { ip -s link show dev "$1" | awk '/RX:/ { getline; print $2; exit }'; }
# vcsw_sent PORT: data frames the vcsw port sent, both VCs
vcsw_sent() {
	local j

	j=$(link_json "" "$1")
	echo $(($(json_obj_u64 "$j" vc0 packets) + $(json_obj_u64 "$j" vc1 packets)))
}

# switch_down: no switch left, no qdisc on the ends
switch_down()
{
	ip link del sw0 2>/dev/null
	ip link del br0 2>/dev/null
	tc qdisc del dev in0 root 2>/dev/null
	tc qdisc del dev out0 root 2>/dev/null
}

# switch_up CASE: build CASE's switch between in1 and out1
switch_up()
{
	local cs=$1 arch

	switch_down
	case $cs in
	direct)
		;;
	bridge|bridge-edf)
		ip link add br0 type bridge stp_state 0 &&
		ip link set in1 master br0 && ip link set out1 master br0 &&
		ip link set br0 up &&
		bridge fdb add $DST_MAC dev out1 master static || return 1
		[[ $cs == bridge ]] ||
			tc qdisc add dev in0 root handle 1: edf || return 1
		;;
	vcsw-*)
		arch=${cs#vcsw-}
		arch=${arch%-credits}
		ip link add sw0 type vcsw arch "$arch" &&
		ip link set in1 master sw0 && ip link set out1 master sw0 &&
		ip link set sw0 up &&
		ip link set out1 type vcsw_slave fdb_add $DST_MAC || return 1
		[[ $cs == *-credits ]] || return 0
		tc qdisc add dev in0 root handle 1: edf credits on &&
		tc qdisc add dev out0 root handle 1: edf credits on &&
		ip link set in1 type vcsw_slave credits on &&
		ip link set out1 type vcsw_slave credits on || return 1
		# both links granted before the first frame
		wait_for 10 eval '[ "$(json_obj_u64 "$(link_json "" out1)" credits_vc1 tx_credits)" -gt 0 ] &&
			[ "$(json_obj_u64 "$(link_json "" in1)" credits msgs_received)" -gt 0 ]' ||
			{ echo "credit links not up" >&2; return 1; }
		;;
	esac
	for d in in1 out1; do
		ip link set $d up || return 1
	done
}

# measure CASE: one result line
measure()
{
	local cs=$1 rx0 pps errors delivered count=$BENCH_COUNT

	switch_up "$cs" 2> "$TMP_DIR/setup.err" ||
		{ echo "bench skip case=$cs $(head -n1 "$TMP_DIR/setup.err")"; return; }
	pg_run 1 "$BENCH_WARMUP"
	rx0=$(rx_packets out0)
	[[ $cs == direct ]] && rx0=$(rx_packets in1)
	[[ $cs == *-credits ]] && rx0=$(vcsw_sent out1)
	pg_run 1 "$count"
	read -r pps errors <<< "$(pg_result)"
	if [[ $cs == direct ]]; then
		delivered=$(($(rx_packets in1) - rx0))
	elif [[ $cs == *-credits ]]; then
		# out0 also receives out1's link messages: count out1's data
		delivered=$(($(vcsw_sent out1) - rx0))
	else
		delivered=$(($(rx_packets out0) - rx0))
	fi
	[[ -n $pps && $pps != 0 ]] || fatal "$cs: pktgen measured nothing"
	echo "bench vcsw case=$cs frames=$count pps=$pps insn_per_frame=$(insn_per_pkt "$pps")" \
		"delivered=$delivered errors=$errors"
}

# link_json with no namespace: this one (lib.sh's wants a namespace name)
link_json()
{
	local j

	j=$(ip -j -d link show dev "$2")
	echo "${j//[[:space:]]/}"
}

log_info "$BENCH_COUNT frames of 60 bytes per case, after a warm-up of $BENCH_WARMUP"
measure direct
measure bridge
for a in $ARCHS; do
	measure vcsw-$a
	echo "bench vcsw-peer case=vcsw-$a peer=bridge"
done
measure bridge-edf
for a in $ARCHS; do
	measure vcsw-$a-credits
	echo "bench vcsw-peer case=vcsw-$a-credits peer=bridge-edf"
done
switch_down
pg pgctrl reset
exit 0
