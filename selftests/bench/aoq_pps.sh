#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# vm: deterministic
#
# Packets per second through a root aoq against the in-tree drr, both with
# 4 and with 16 classes (lanes) under the default pfifo children, and pfifo
# alone as the floor.  pktgen builds minimum-size UDP frames and hands each
# to dev_queue_xmit (xmit_mode queue_xmit), so every packet goes through
# the qdisc's enqueue and dequeue; dummy0 frees it.  A flow filter maps
# the UDP destination port onto the classes (classid = 1:1 + port mod N)
# in both qdiscs, so classification costs the same; pktgen steps the port
# by one per packet, so consecutive packets go to different classes.
#
#   [ns P]  kpktgend_0 --dev_queue_xmit--> root qdisc of dummy0 --> dummy0
#
# Every packet is a one-frame message here, so this measures the cost of
# the scheduler's cycle (anchor, sorted list, counts, busy-period reset),
# not the segmentation of GSO messages.
#
# Under the deterministic VM (-icount shift=0) guest time is one ns per
# guest instruction: pps is 1e9 / (instructions per packet).
#
# Output, one line per measurement and one per ratio (aoq-fbrr's ratio
# as an INFO line: the harness keeps one ratio per benchmark):
#   bench aoq_pps qdisc=drr lanes=4 pps=N insn_per_pkt=N
#   bench aoq_pps ratio aoq/drr lanes=4 X.XX
. ../vm/lib.sh

COUNT=100000		# packets per measurement
WARMUP=10000		# packets before each, not measured
LANE_COUNTS="4 16"
QDISCS="pfifo drr aoq aoq-fbrr"
PG=/proc/net/pktgen
DEV=dummy0

if [[ ${1:-} != --in-netns ]]; then
	require_root
	require_cmd tc
	require_module pktgen
	require_module sch_aoq
	modprobe sch_drr || skip "sch_drr not available"
	modprobe cls_flow || skip "cls_flow not available"
	ns_create P
	ns_exec P bash "$0" --in-netns
	exit
fi

[[ -w $PG/pgctrl && -w $PG/kpktgend_0 ]] || fatal "no pktgen in the namespace"
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 ||
	fatal "cannot disable IPv6"
ip link add "$DEV" type dummy || fatal "cannot add $DEV"
ip link set "$DEV" up || fatal "cannot set $DEV up"

pg() {
	local f=$PG/$1 cmd

	for cmd in "${@:2}"; do
		echo "$cmd" > "$f" || fatal "pktgen: '$cmd' > $f failed"
		[[ $1 == "$DEV" ]] || continue
		grep -q "^Result: OK" "$f" ||
			fatal "pktgen: '$cmd': $(grep "^Result:" "$f")"
	done
}

# pg_setup COUNT: a fresh pktgen device on dummy0, destination ports
# 1024..1024+63 in turn (a multiple of every lane count measured)
pg_setup() {
	pg pgctrl reset
	pg kpktgend_0 "add_device $DEV"
	pg "$DEV" "xmit_mode queue_xmit" "count $1" "clone_skb 0" \
		"pkt_size 60" "delay 0" "flag NO_TIMESTAMP" \
		"dst_mac 02:00:00:00:00:02" "src_min 198.18.0.1" \
		"src_max 198.18.0.1" "dst 198.18.0.2" \
		"udp_src_min 9" "udp_src_max 10" \
		"udp_dst_min 1024" "udp_dst_max 1088"
}

# qdisc_setup QDISC LANES
qdisc_setup() {
	local qd=$1 n=$2 i

	tc qdisc del dev "$DEV" root 2>/dev/null
	case $qd in
	pfifo)
		tc qdisc add dev "$DEV" root pfifo ;;
	drr)
		tc qdisc add dev "$DEV" root handle 1: drr &&
		for i in $(seq 1 "$n"); do
			tc class add dev "$DEV" parent 1: classid "1:$(printf %x "$i")" drr || return 1
		done ;;
	aoq | aoq-fbrr)
		local mode=aoq
		[[ $qd == aoq-fbrr ]] && mode=fbrr
		tc qdisc add dev "$DEV" root handle 1: aoq mode $mode &&
		for i in $(seq 1 "$n"); do
			tc class add dev "$DEV" parent 1: classid "1:$(printf %x "$i")" aoq || return 1
		done ;;
	esac || fatal "cannot set up $qd"
	if [[ $qd != pfifo ]]; then
		tc filter add dev "$DEV" parent 1: protocol ip prio 1 flow \
			map key proto-dst divisor "$n" baseclass 1:1 ||
			fatal "cannot add the flow filter"
	fi
}

sent_packets() {
	tc -s qdisc show dev "$DEV" |
		sed -n 's/^ *Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' | head -n1
}

# measure QDISC LANES: a warm-up and a measured pktgen run; checks that
# every packet went through the qdisc and that every class got its share
measure() {
	local qd=$1 n=$2 result pps errors sent

	qdisc_setup "$qd" "$n"
	pg_setup "$WARMUP"
	pg pgctrl start
	pg_setup "$COUNT"
	pg pgctrl start
	result=$(sed -n '/^Result:/,$p' "$PG/$DEV")
	pps=$(echo "$result" | sed -n 's/^ *\([0-9]*\)pps .*/\1/p')
	errors=$(echo "$result" | sed -n 's/.*errors: \([0-9]*\).*/\1/p')
	sent=$(sent_packets)
	if [[ -z $pps || $pps == 0 || $errors != 0 ||
	      $sent != $((WARMUP + COUNT)) ]]; then
		echo "$result"
		tc -s qdisc show dev "$DEV"
		fatal "$qd lanes=$n: pps '$pps', errors '$errors', qdisc sent '$sent' of $((WARMUP + COUNT))"
	fi
	if [[ $qd != pfifo ]]; then
		# the filter spread the packets: the last class got its 1/n
		local last
		last=$(tc -s class show dev "$DEV" classid "1:$(printf %x "$n")" |
			sed -n 's/^ *Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' | head -n1)
		[[ ${last:-0} -eq $(((WARMUP + COUNT) / n)) ]] ||
			fatal "$qd lanes=$n: class 1:$n sent '$last' packets, not $(((WARMUP + COUNT) / n))"
	fi
	PPS[$qd,$n]=$pps
	echo "bench aoq_pps qdisc=$qd lanes=$n pps=$pps" \
		"insn_per_pkt=$(awk -v p="$pps" 'BEGIN { printf "%.0f", 1e9 / p }')"
}

declare -A PPS=()
log_info "$COUNT packets of 60 bytes per measurement, after a warm-up of $WARMUP"
for n in $LANE_COUNTS; do
	for qd in $QDISCS; do
		measure "$qd" "$n"
	done
done
pg pgctrl reset
tc qdisc del dev "$DEV" root 2>/dev/null

for n in $LANE_COUNTS; do
	echo "bench aoq_pps ratio aoq/drr lanes=$n" \
		"$(awk -v a="${PPS[aoq,$n]}" -v b="${PPS[drr,$n]}" 'BEGIN { printf "%.2f", a / b }')"
	log_info "aoq-fbrr/drr lanes=$n" \
		"$(awk -v a="${PPS[aoq-fbrr,$n]}" -v b="${PPS[drr,$n]}" 'BEGIN { printf "%.2f", a / b }')"
done
exit 0
