# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# pktgen drivers of the qdisc benchmarks, sourced after ../vm/lib.sh inside
# the benchmark's own namespace.  pktgen builds minimum-size UDP frames and
# hands each to dev_queue_xmit (xmit_mode queue_xmit), so every packet goes
# through the root qdisc of $DEV, a dummy device that frees it.
#
#   uncongested   [pktgen] -> qdisc -> dummy0
#                 The queue is empty between packets: enqueue, then dequeue
#                 of the same packet.  Work-conserving qdiscs that may be
#                 bypassed when empty (pfifo) skip both.
#   backlogged    [pktgen] -> tbf (blocked) -> qdisc -> dummy0
#                 A tbf at 1kbit parks everything in the qdisc under test,
#                 at least two packets per flow: "enqueue" is the cost per
#                 packet of filling it (tbf's enqueue and peek, and the
#                 clsact filter below, included: the same for all).  Then
#                 tbf is opened, one ping starts the queue, and the backlog
#                 drains in softirq: "drain" is the CPU time that took
#                 (cpu-steal) per packet, less the same steps with nothing
#                 queued.
#
# pktgen ends a run only when its last packet has been freed, which on the
# backlogged path would be after the drain.  So a clsact egress filter
# diverts that packet to dummy1: gact's deterministic mode ("random determ
# pipe N", N at most 10000) hands every N-th packet on to a mirred
# redirect, and the fill is a multiple of N.  (A drop would not do: pktgen
# does not count a dropped packet and sends one more.)
#
# Under the deterministic VM (-icount shift=0) guest time is one ns per
# guest instruction: pps is 1e9 / (instructions per packet), and the
# drain time is an instruction count too.

PG=/proc/net/pktgen
DEV=dummy0
PEER=198.18.0.2	# pktgen's destination; ping's too
: "${BENCH_COUNT:=20000}"	# packets per measurement
: "${BENCH_WARMUP:=5000}"	# before each, not measured; at least one per flow

# bench_in_netns SCRIPT CMD...: as root, with the commands CMD and pktgen,
# run SCRIPT again as "SCRIPT --in-netns DIR" in a namespace of its own (an
# `ip netns exec` per measurement would cost guest time), DIR a temporary
# directory the caller's exit removes; SCRIPT's exit status
bench_in_netns()
{
	local script=$1

	shift
	require_root
	require_cmd "$@"
	require_module pktgen
	tmp_dir_create
	ns_create P
	ns_exec P bash "$script" --in-netns "$TMP_DIR"
}

# bench_netns_setup: dummy0 up in this namespace, nothing else sending
bench_netns_setup()
{
	[[ -w $PG/pgctrl && -w $PG/kpktgend_0 ]] || fatal "no pktgen in the namespace"
	sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1 ||
		fatal "cannot disable IPv6"
	ip link add "$DEV" type dummy && ip link add dummy1 type dummy &&
	ip link set dummy1 up || fatal "cannot add $DEV"
	ip link add "$MQ_DEV" numtxqueues "$MQ_QUEUES" type dummy &&
	ip link set "$MQ_DEV" up || fatal "cannot add $MQ_DEV"
	ip link set "$DEV" up &&
	ip addr add 198.18.0.1/24 dev "$DEV" &&
	ip neigh add "$PEER" lladdr 02:00:00:00:00:02 dev "$DEV" nud permanent ||
		fatal "cannot set $DEV up"
	# etf's transmit-time stamper (cases.sh); without BPF, etf is skipped
	BENCH_TXTIME_PIN=
	mkdir -p "$TMP_DIR/bpf"
	if mount -t bpf bpf "$TMP_DIR/bpf" &&
	   txtime-stamp "$TMP_DIR/bpf/txtime" 1000000000000; then
		BENCH_TXTIME_PIN=$TMP_DIR/bpf/txtime
	fi
}

# bench_netns_cleanup: what bench_netns_setup left outside the namespace
bench_netns_cleanup()
{
	pg pgctrl reset
	tc qdisc del dev "$DEV" clsact 2>/dev/null
	tc qdisc del dev "$DEV" root 2>/dev/null
	tc qdisc del dev "$MQ_DEV" root 2>/dev/null
	umount "$TMP_DIR/bpf" 2>/dev/null
}

# pg FILE CMD...: pktgen commands; a device's commands must answer OK
pg()
{
	local f=$PG/$1 cmd

	for cmd in "${@:2}"; do
		echo "$cmd" > "$f" || fatal "pktgen: '$cmd' > $f failed"
		[[ $1 == "$DEV" ]] || continue
		grep -q "^Result: OK" "$f" ||
			fatal "pktgen: '$cmd': $(grep "^Result:" "$f")"
	done
}

# pg_run FLOWS COUNT [ORDER]: send COUNT packets over FLOWS flows and wait.
# pg_config FLOWS COUNT [ORDER]: the same without the start.
#
# Flows are distinct (UDP source port, UDP destination port) pairs.  In
# ORDER "turn" (the default) pktgen steps through them one step per packet:
# for N = 2^a * m (m odd) the source port cycles over m values and the
# destination port over 2^a; the cycle lengths are coprime, so N packets
# in a row are N different flows.  In ORDER "random" it draws both ports
# at random over the same ranges, so each packet's flow too.  The ranges
# do not overlap: this kernel's flow hash sorts the two ports, so (a, b)
# and (b, a) would be one flow.
pg_run()
{
	pg_config "$@"
	pg pgctrl start
	# the start may return before the run (../vm/pktgen-wait.sh)
	sh "$PKTGEN_WAIT" || fatal "pktgen: the run gave no result"
}

pg_config()
{
	local flows=$1 count=$2 order=${3:-turn} pow=1 odd=$1 rnd=()

	while ((odd % 2 == 0)); do
		pow=$((pow * 2))
		odd=$((odd / 2))
	done
	((odd + pow <= 64000)) || fatal "cannot make $flows flows from ports"

	[[ $order == random ]] && rnd=("flag UDPSRC_RND" "flag UDPDST_RND")
	pg pgctrl reset
	pg kpktgend_0 "add_device $DEV"
	# udp_*_max is exclusive: the ports cycle over [min, max)
	pg "$DEV" "xmit_mode queue_xmit" "count $count" "clone_skb 0" \
		"pkt_size 60" "delay 0" "flag NO_TIMESTAMP" \
		"dst_mac 02:00:00:00:00:02" "src_min 198.18.0.1" \
		"src_max 198.18.0.1" "dst 198.18.0.2" \
		"udp_src_min 1024" "udp_src_max $((1024 + odd))" \
		"udp_dst_min $((1024 + odd))" "udp_dst_max $((1024 + odd + pow))" \
		"${rnd[@]}"
}

# pg_result: "PPS ERRORS" of the last run
pg_result()
{
	local result

	result=$(sed -n '/^Result:/,$p' "$PG/$DEV")
	echo "$(echo "$result" | sed -n 's/^ *\([0-9]*\)pps .*/\1/p')" \
		"$(echo "$result" | sed -n 's/.*errors: \([0-9]*\).*/\1/p')"
}

# qdisc_counter HANDLE FIELD: "sent", "dropped" or "backlog" (packets) of
# the qdisc HANDLE ("1:") on $DEV
qdisc_counter()
{
	tc -s qdisc show dev "$DEV" | awk -v h="$1" -v f="$2" '
		$1 == "qdisc" { mine = ($3 == h) }
		mine && $1 == "Sent" && f == "sent" { print $4; exit }
		mine && $1 == "Sent" && f == "dropped" { v = $7; sub(/,/, "", v); print v; exit }
		mine && $1 == "backlog" && f == "backlog" { v = $3; sub(/p$/, "", v); print v; exit }'
}

slab_kb() { sed -n 's/^Slab: *\([0-9]*\) kB/\1/p' /proc/meminfo; }

insn_per_pkt() { awk -v p="$1" 'BEGIN { printf "%.0f", 1e9 / p }'; }

# bench_setup CASE PARENT CLASSES: a fresh tree with the case at PARENT
bench_setup()
{
	# (removing clsact deactivates the device: it flushes the queues)
	tc qdisc del dev "$DEV" clsact 2>/dev/null
	tc qdisc del dev "$DEV" root 2>/dev/null
	if [[ $2 != root ]]; then
		# 1kbit: one 60-byte packet every 0.48 s once the burst is spent
		tc qdisc add dev "$DEV" root handle 9: tbf rate 1kbit \
			burst 1600 limit 1000000 || fatal "cannot add the tbf"
	fi
	"setup_$1" "$DEV" "$2" 1: "$3" > "$TMP_DIR/setup.batch" || return
	[[ ! -s $TMP_DIR/setup.batch ]] || tc -batch "$TMP_DIR/setup.batch"
}

dev_tx_packets() { ip -s link show dev "$DEV" | awk '/TX:/ { getline; print $2; exit }'; }

# measure_uncongested CASE FLOWS CLASSES: one result line
measure_uncongested()
{
	local cs=$1 flows=$2 classes=$3 pps errors tx0 sent slab0 slab1
	local warmup=$((flows > BENCH_WARMUP ? flows : BENCH_WARMUP))

	bench_setup "$cs" root "$classes" || return
	tx0=$(dev_tx_packets)
	slab0=$(slab_kb)
	pg_run "$flows" "$warmup"
	slab1=$(slab_kb)
	pg_run "$flows" "$BENCH_COUNT"
	read -r pps errors <<< "$(pg_result)"
	sent=$(($(dev_tx_packets) - tx0))
	if [[ -z $pps || $pps == 0 || $errors != 0 ||
	      $sent != $((warmup + BENCH_COUNT)) ]]; then
		tc -s qdisc show dev "$DEV"
		fatal "$cs flows=$flows classes=$classes: pps '$pps', errors '$errors', $DEV sent $sent of $((warmup + BENCH_COUNT))"
	fi
	echo "bench ${BENCH_LINE:-qdisc} case=$cs path=uncongested flows=$flows classes=$classes" \
		"pps=$pps insn_per_pkt=$(insn_per_pkt "$pps")" \
		"slab_bytes_per_flow=$(((slab1 - slab0) * 1024 / flows))"
}

# drain_ns: open the blocked tbf, let one ping through to start the queue,
# and print the CPU time (ns) everything took until the machine was idle
drain_ns()
{
	local ready=$TMP_DIR/steal.ready out=$TMP_DIR/steal.out pid

	rm -f "$ready"
	cpu-steal --quiet-ms 50 --max-s 10 "$ready" > "$out" &
	pid=$!
	while [[ ! -e $ready ]]; do
		sleep 0.01
	done
	tc qdisc change dev "$DEV" root handle 9: tbf rate 100gbit \
		burst 100mb limit 1000000 || fatal "cannot open the tbf"
	ping -c 1 -W 1 "$PEER" > /dev/null	# lost: nobody answers on dummy0
	wait "$pid" || fatal "cpu-steal: $(cat "$out")"
	sed -n 's/^stolen_ns=\([0-9]*\) .*/\1/p' "$out"
}

# measure_backlogged CASE FLOWS CLASSES: one result line
measure_backlogged()
{
	local cs=$1 flows=$2 classes=$3 pps errors held dropped idle full tx0 sent
	local fill=$((2 * flows > BENCH_COUNT ? 2 * flows : BENCH_COUNT))
	local nth=10000 cut

	fill=$(((fill + nth - 1) / nth * nth))
	cut=$((fill / nth))	# packets the filter diverts, the last one included

	# the same steps with nothing queued: what drain_ns costs by itself
	bench_setup "$cs" 9:1 "$classes" || return
	idle=$(drain_ns)

	bench_setup "$cs" 9:1 "$classes" || return
	# (etf's setup has added the clsact already)
	{ tc qdisc show dev "$DEV" | grep -q "^qdisc clsact" ||
	  tc qdisc add dev "$DEV" clsact; } &&
	tc filter add dev "$DEV" egress prio 2 protocol ip matchall \
		action gact ok random determ pipe "$nth" \
		action mirred egress redirect dev dummy1 ||
		fatal "cannot add the filter that diverts pktgen's last packet"
	tx0=$(dev_tx_packets)
	pg_run "$flows" "$fill" "$(bench_case_order "$cs")"
	read -r pps errors <<< "$(pg_result)"
	held=$(qdisc_counter 1: backlog)
	dropped=$(qdisc_counter 1: dropped)
	if [[ -z $pps || $pps == 0 || $errors != 0 || $dropped != 0 ||
	      $held -lt $((fill - cut - 100)) ]]; then
		tc -s qdisc show dev "$DEV"
		fatal "$cs backlogged flows=$flows classes=$classes: pps '$pps', errors '$errors', held '$held', dropped '$dropped' of $fill"
	fi
	full=$(drain_ns)
	sent=$(($(dev_tx_packets) - tx0))
	# and the ping
	if [[ $(qdisc_counter 1: backlog) != 0 || $sent != $((fill - cut + 1)) ]]; then
		tc -s qdisc show dev "$DEV"
		fatal "$cs backlogged flows=$flows classes=$classes: did not drain ($DEV sent $sent of $((fill - cut + 1)))"
	fi
	echo "bench qdisc case=$cs path=backlogged flows=$flows classes=$classes" \
		"pps=$pps insn_per_pkt=$(insn_per_pkt "$pps") held=$held" \
		"drain_insn_per_pkt=$(((full - idle) / held))"
}
