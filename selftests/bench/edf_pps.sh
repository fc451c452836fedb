#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# vm: deterministic
#
# Packets per second through a root qdisc: edf against the in-tree fq, and
# pfifo as the floor (it has no per-packet work of its own: an empty pfifo
# is bypassed).  pktgen builds minimum-size UDP frames and hands each to
# dev_queue_xmit (xmit_mode queue_xmit), so every packet goes through the
# qdisc's enqueue and dequeue; dummy0 frees it.
#
#   [ns P]  kpktgend_0 --dev_queue_xmit--> root qdisc of dummy0 --> dummy0
#
# The qdiscs (see qdisc_setup):
#   pfifo        the floor: the cost of everything but a qdisc
#   fq           fq as it comes; socketless packets (pktgen's) share 1024
#                flows by hash (orphan_mask 1023)
#   fq-perflow   fq with a 20-bit orphan_mask: a flow per 5-tuple hash, as
#                edf keeps them
#   edf          one regulated per-flow class (rate 400gbit) for everything
#   edf-kept     the same with deadlines 10 s ahead (class "frame 10s":
#                D = max(D', now) + 10 s), so that no flow's state is ever
#                collected and made again
#   edf-default  no class: the built-in default class, one deadline clock
#                and no per-flow state
#
# Flows are distinct (UDP source port, UDP destination port) pairs that
# pktgen steps through in turn, one step per packet: for N = 2^a * m
# (m odd) the source port cycles over m values and the destination port
# over 2^a; the cycle lengths are coprime, so N packets in a row are N
# different flows and every flow recurs every N packets.  The two port
# ranges do not overlap: this kernel's flow hash sorts the two ports
# (__flow_hash_consistentify), so (a, b) and (b, a) would be one flow.
#
# Under the deterministic VM (-icount shift=0) guest time is one ns per
# guest instruction: pps is 1e9 / (instructions per packet).
#
# Output, one line per measurement and one per ratio:
#   bench edf_pps qdisc=fq flows=1000 pps=N insn_per_pkt=N
#   bench edf_pps ratio edf/fq flows=1000 X.XX
. ../vm/lib.sh

COUNT=100000		# packets per measurement
WARMUP=10000		# packets before each, not measured; at least one per flow
FLOW_COUNTS="1 1000 100000"
QDISCS="pfifo fq fq-perflow edf edf-kept edf-default"
PG=/proc/net/pktgen
DEV=dummy0

# The measurements run in a namespace of their own: this script again,
# inside it (each `ip netns exec` would cost guest time).
if [[ ${1:-} != --in-netns ]]; then
	require_root
	require_cmd tc
	require_module pktgen
	require_module sch_edf
	modprobe sch_fq || skip "sch_fq not available"
	ns_create P
	ns_exec P bash "$0" --in-netns
	exit
fi

# pktgen is per network namespace: the namespace has its own
# /proc/net/pktgen and its own kpktgend threads.
[[ -w $PG/pgctrl && -w $PG/kpktgend_0 ]] || fatal "no pktgen in the namespace"

# nothing but pktgen may send on dummy0: no IPv6 (MLD, router solicitations)
sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 ||
	fatal "cannot disable IPv6"
ip link add "$DEV" type dummy || fatal "cannot add $DEV"
ip link set "$DEV" up || fatal "cannot set $DEV up"

# pg FILE CMD...: pktgen commands; a device's commands must answer OK
pg() {
	local f=$PG/$1 cmd

	for cmd in "${@:2}"; do
		echo "$cmd" > "$f" || fatal "pktgen: '$cmd' > $f failed"
		[[ $1 == "$DEV" ]] || continue
		grep -q "^Result: OK" "$f" ||
			fatal "pktgen: '$cmd': $(grep "^Result:" "$f")"
	done
}

# pg_setup FLOWS COUNT: a fresh pktgen device on dummy0
pg_setup() {
	local flows=$1 count=$2 pow=1 odd=$1

	while ((odd % 2 == 0)); do
		pow=$((pow * 2))
		odd=$((odd / 2))
	done
	((odd + pow <= 64000)) || fatal "cannot make $flows flows from ports"

	pg pgctrl reset
	pg kpktgend_0 "add_device $DEV"
	# udp_*_max is exclusive: the ports cycle over [min, max)
	pg "$DEV" "xmit_mode queue_xmit" "count $count" "clone_skb 0" \
		"pkt_size 60" "delay 0" "flag NO_TIMESTAMP" \
		"dst_mac 02:00:00:00:00:02" "src_min 198.18.0.1" \
		"src_max 198.18.0.1" "dst 198.18.0.2" \
		"udp_src_min 1024" "udp_src_max $((1024 + odd))" \
		"udp_dst_min $((1024 + odd))" "udp_dst_max $((1024 + odd + pow))"
}

qdisc_setup() {
	local qd=$1 mode=(rate 400gbit)

	[[ $qd == edf-kept ]] && mode=(frame 10s)

	tc qdisc del dev "$DEV" root 2>/dev/null
	case $qd in
	pfifo)
		tc qdisc add dev "$DEV" root pfifo ;;
	fq)
		tc qdisc add dev "$DEV" root fq ;;
	fq-perflow)
		tc qdisc add dev "$DEV" root fq orphan_mask 1048575 ;;
	edf | edf-kept)
		# one regulated per-flow class that takes everything.  At
		# 400gbit, far above what pktgen reaches here, a flow's last
		# deadline has passed by the time its packet leaves, so its
		# state is collected then.
		tc qdisc add dev "$DEV" root handle 1: edf \
			flows 1048576 default 1 &&
		tc class add dev "$DEV" parent 1: classid 1:1 edf \
			"${mode[@]}" perflow on ;;
	edf-default)
		# no class: the built-in default class, one deadline clock
		tc qdisc add dev "$DEV" root handle 1: edf ;;
	esac || fatal "cannot set up $qd"
}

# sent_packets: packets the root qdisc has sent
sent_packets() {
	tc -s qdisc show dev "$DEV" |
		sed -n 's/^ *Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' | head -n1
}

# measure QDISC FLOWS: one warm-up and one measured pktgen run, prints the
# result line
measure() {
	local qd=$1 flows=$2 result pps errors sent
	local warmup=$((flows > WARMUP ? flows : WARMUP))

	qdisc_setup "$qd"
	pg_setup "$flows" "$warmup"
	pg pgctrl start
	pg_setup "$flows" "$COUNT"
	pg pgctrl start
	result=$(sed -n '/^Result:/,$p' "$PG/$DEV")
	pps=$(echo "$result" | sed -n 's/^ *\([0-9]*\)pps .*/\1/p')
	errors=$(echo "$result" | sed -n 's/.*errors: \([0-9]*\).*/\1/p')
	sent=$(sent_packets)
	if [[ -z $pps || $pps == 0 || $errors != 0 ||
	      $sent != $((warmup + COUNT)) ]]; then
		echo "$result"
		tc -s qdisc show dev "$DEV"
		fatal "$qd flows=$flows: pps '$pps', errors '$errors', qdisc sent '$sent' of $((warmup + COUNT))"
	fi
	PPS[$qd,$flows]=$pps
	# what the qdisc kept: fq's and edf's flow counters
	tc -s qdisc show dev "$DEV" | grep -E '^ +.*flows' |
		sed "s/^ */INFO: $qd flows=$flows: /"
	echo "bench edf_pps qdisc=$qd flows=$flows pps=$pps" \
		"insn_per_pkt=$(awk -v p="$pps" 'BEGIN { printf "%.0f", 1e9 / p }')"
}

declare -A PPS=()
log_info "$COUNT packets of 60 bytes per measurement, after a warm-up of" \
	"$WARMUP or one per flow"
for flows in $FLOW_COUNTS; do
	for qd in $QDISCS; do
		measure "$qd" "$flows"
	done
done
pg pgctrl reset
tc qdisc del dev "$DEV" root 2>/dev/null

for flows in $FLOW_COUNTS; do
	echo "bench edf_pps ratio edf/fq flows=$flows" \
		"$(awk -v a="${PPS[edf,$flows]}" -v b="${PPS[fq,$flows]}" \
			'BEGIN { printf "%.2f", a / b }')"
done
exit 0
