#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# vm: deterministic
#
# Packets per second through a classful root qdisc with 5 and 64 classes:
# dtable (each mode) against the in-tree drr and ets, pfifo as the floor.
# The path is uncongested: pktgen hands each minimum-size UDP frame to
# dev_queue_xmit (xmit_mode queue_xmit) and dummy0 frees it at once, so
# every packet costs one classification, one enqueue and one dequeue, and
# classes go active and idle packet by packet, the worst case for a table
# walk.  The same flow filter spreads packets over the classes for every
# qdisc: pktgen steps through 1024 UDP source ports, and
# "handle 1 flow hash keys proto-src divisor N baseclass 1:1" (cls_flow
# wants a handle) maps them to 1:1..1:N.
#
#   [ns P]  kpktgend_0 --dev_queue_xmit--> root qdisc of dummy0 --> dummy0
#
# The qdiscs (classes N; every class has its default pfifo child):
#   pfifo        the floor (no classes, no filter)
#   drr          N classes, quantum 1514
#   ets          N bands, all DRR (no strict bands), quanta 1514
#   dtable       N classes, one entry each of 1514 bytes
#   dtable-128   N classes, a 128-entry table (entry i: class i mod N)
#   sbt, rr      dtable in those modes, one entry per class
#
# Under the deterministic VM (-icount shift=0) guest time is one ns per
# guest instruction: pps is 1e9 / (instructions per packet).
#
# Output, one line per measurement and one per ratio:
#   bench dtable_pps qdisc=drr classes=5 pps=N insn_per_pkt=N
#   bench dtable_pps ratio dtable/drr classes=5 X.XX
. ../vm/lib.sh

COUNT=100000		# packets per measurement
WARMUP=10000		# packets before each, not measured
CLASS_COUNTS="5 64"
QDISCS="pfifo drr ets dtable dtable-128 sbt rr"
PG=/proc/net/pktgen
DEV=dummy0

if [[ ${1:-} != --in-netns ]]; then
	require_root
	require_cmd tc
	require_module pktgen
	require_module sch_dtable
	modprobe sch_drr || skip "sch_drr not available"
	modprobe sch_ets || skip "sch_ets not available"
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

# pg_setup COUNT: a fresh pktgen device on dummy0, 1024 source ports
pg_setup() {
	pg pgctrl reset
	pg kpktgend_0 "add_device $DEV"
	pg "$DEV" "xmit_mode queue_xmit" "count $1" "clone_skb 0" \
		"pkt_size 60" "delay 0" "flag NO_TIMESTAMP" \
		"dst_mac 02:00:00:00:00:02" "src_min 198.18.0.1" \
		"src_max 198.18.0.1" "dst 198.18.0.2" \
		"udp_src_min 1024" "udp_src_max 2048" \
		"udp_dst_min 9" "udp_dst_max 10"
}

# table N LEN WEIGHT: LEN entries, entry i for class i mod N
table() {
	local i out=
	for ((i = 0; i < $2; i++)); do out+=" $((i % $1)):$3"; done
	echo "$out"
}

qdisc_setup() {
	local qd=$1 n=$2 i quanta=

	tc qdisc del dev "$DEV" root 2>/dev/null
	case $qd in
	pfifo)
		tc qdisc add dev "$DEV" root pfifo ;;
	drr)
		tc qdisc add dev "$DEV" root handle 1: drr &&
		for ((i = 1; i <= n; i++)); do
			tc class add dev "$DEV" parent 1: classid 1:$i drr quantum 1514 || break
		done ;;
	ets)
		for ((i = 0; i < n; i++)); do quanta+=" 1514"; done
		tc qdisc add dev "$DEV" root handle 1: ets bands "$n" quanta $quanta ;;
	dtable)
		tc qdisc add dev "$DEV" root handle 1: dtable classes "$n" ;;
	dtable-128)
		tc qdisc add dev "$DEV" root handle 1: dtable classes "$n" \
			table $(table "$n" 128 1514) ;;
	sbt)
		tc qdisc add dev "$DEV" root handle 1: dtable classes "$n" mode sbt \
			table $(table "$n" "$n" 10) ;;
	rr)
		tc qdisc add dev "$DEV" root handle 1: dtable classes "$n" mode rr ;;
	esac || fatal "cannot set up $qd"
	[[ $qd == pfifo ]] && return
	tc filter add dev "$DEV" parent 1: protocol ip prio 1 handle 1 flow hash \
		keys proto-src divisor "$n" baseclass 1:1 || fatal "filter for $qd"
}

sent_packets() {
	tc -s qdisc show dev "$DEV" |
		sed -n 's/^ *Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' | head -n1
}

# classes_used: how many classes sent something (the filter spreads)
classes_used() {
	tc -s class show dev "$DEV" |
		awk '/^ *Sent/ && $4 > 0 { n++ } END { print n + 0 }'
}

measure() {
	local qd=$1 n=$2 result pps errors sent used

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
		fatal "$qd classes=$n: pps '$pps', errors '$errors', qdisc sent '$sent' of $((WARMUP + COUNT))"
	fi
	if [[ $qd != pfifo ]]; then
		used=$(classes_used)
		[[ $used == "$n" ]] || fatal "$qd classes=$n: only $used classes carried packets"
	fi
	PPS[$qd,$n]=$pps
	echo "bench dtable_pps qdisc=$qd classes=$n pps=$pps" \
		"insn_per_pkt=$(awk -v p="$pps" 'BEGIN { printf "%.0f", 1e9 / p }')"
}

declare -A PPS=()
log_info "$COUNT packets of 60 bytes per measurement after $WARMUP, 1024 flows" \
	"spread over the classes by cls_flow"
for n in $CLASS_COUNTS; do
	for qd in $QDISCS; do
		measure "$qd" "$n"
	done
done
pg pgctrl reset
tc qdisc del dev "$DEV" root 2>/dev/null

for n in $CLASS_COUNTS; do
	for qd in dtable dtable-128 sbt rr; do
		for ref in drr ets; do
			echo "bench dtable_pps ratio $qd/$ref classes=$n" \
				"$(awk -v a="${PPS[$qd,$n]}" -v b="${PPS[$ref,$n]}" \
					'BEGIN { printf "%.2f", a / b }')"
		done
	done
done
exit 0
