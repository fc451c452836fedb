#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The FBS measurements of make fbs-demo (scripts/fbs-demo.sh,
# Documentation/fbs.rst "The measurements"), in the deterministic VM.
# Hosts on one vcsw (advanced, wormhole, 10 Mbit/s, one-frame credit
# buffers) run fbs-sched's all-to-all round followed by E empty slots,
# every frame marked with its slot and judged by its receiver's clock.
# After the ring bootstrap and with traffic flowing, host V0's clock is
# set DRIFT ppm slow.
#
# 1. Per N in NODES, with feedback: the largest E that keeps the frames
#    in their slots over PERIODS periods (at most 1 % out: a stray frame
#    is seen now and then, drift puts whole rounds out), by a binary
#    search between 0 and the Eq. 3 bound, against Eq. 3.
# 2. N = the largest of NODES that kept its schedule in 1. (else the
#    first), E = 0: out-of-slot frames in 30 windows after the drift
#    is set (100 ms each and the counters' reading, about 0.8 s of
#    guest time with eight hosts), with feedback and without.
# 3. N = LAT_NODES, no drift, feedback on: each frame's latency, from its
#    slot's start at its sender to its last byte at its receiver, with
#    the all-to-all round (E = 0) and the same traffic best effort (every
#    slot unreserved), over LAT_SECONDS.
#
# Prints its results between the markers demo.sh uses:
#   FQ-DEMO-FILE fbs/FILE ... FQ-DEMO-EOF, then FQ-DEMO-RESULT fbs ok|fail
# Environment (or /etc/fabric-qos/fbs-demo.env): NODES (4 8), DRIFT (1000
# ppm), PERIODS (6), LAT_NODES (the largest of NODES), LAT_SECONDS (3).
cd "$(dirname "$0")/../vm" || exit 1
TEST_NAME=fbs-demo
. ./lib.sh
. ./fbs_lib.sh

# make fbs-demo's settings
[ -r /etc/fabric-qos/fbs-demo.env ] && . /etc/fabric-qos/fbs-demo.env
NODES=${NODES:-4 8}
DRIFT=${DRIFT:-1000}
PERIODS=${PERIODS:-6}
LAT_SECONDS=${LAT_SECONDS:-3}
OUT=/tmp/demo/fbs
# 1.2-ms slots: a 1462-byte frame (1400 bytes of UDP and the fabric
# header) takes 1.17 ms at 10 Mbit/s; the 30 us left is for its credits'
# way back (the link's round trip here is 10 to 17 us).  A slot's slack
# is a lead feedback cannot see, once per arc of the cycle: little of it.
# A frame is at its receiver about 20 us after its slot began (delay).
SLOT_US=1200
FBS_TC="--slot ${SLOT_US}us --rate 10mbit --frame 1462 --verify --delay 20us"

require_cmd ip tc udp-lat fbs-sched fbs-boot
rm -rf "$OUT"
mkdir -p "$OUT"

max_n=0
for n in $NODES; do
	[[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 2 ] && [ "$n" -le 16 ] || fatal "NODES: $n: want 2 to 16"
	[ "$n" -gt $max_n ] && max_n=$n
done
LAT_NODES=${LAT_NODES:-$max_n}
[[ $LAT_NODES =~ ^[0-9]+$ ]] && [ "$LAT_NODES" -ge 2 ] && [ "$LAT_NODES" -le "$max_n" ] ||
	fatal "LAT_NODES: $LAT_NODES: want 2 to the largest of NODES"
[[ $LAT_SECONDS =~ ^[0-9]+$ ]] && [ "$LAT_SECONDS" -ge 1 ] || fatal "LAT_SECONDS: $LAT_SECONDS"

fbs_fabric $max_n arch advanced rate 10mbit buffer 2k wormhole on
ALL_HOSTS=$FBS_HOSTS

# use N: the first N hosts run the schedule, the others are left idle
use() {
	FBS_N=$1
	FBS_HOSTS=$(seq -s ' ' 0 $(($1 - 1)))
}
# feedback on|off: credits on the ports and in every qdisc, or not
feedback() {
	local i

	FEEDBACK=$1
	for i in $ALL_HOSTS; do
		ns_run S ip link set p$i type vcsw_slave credits "$1" in_buffer 1536 ||
			fatal "credits p$i"
		ns_exec V$i tc qdisc del dev eth0 root 2>/dev/null
	done
}
# start N E: the round and E empty slots on the first N hosts,
# bootstrapped, traffic on, then V0's clock DRIFT ppm slow
start() {
	local opt= i

	use "$1"
	fbs-sched all-to-all "$1" --empty "$2" > "$TMP_DIR/sched" || fatal "fbs-sched all-to-all"
	[ "$FEEDBACK" = on ] && opt=--credits
	# new qdiscs: the number of destinations may change
	for i in $FBS_HOSTS; do ns_exec V$i tc qdisc del dev eth0 root 2>/dev/null; done
	fbs_qdiscs "$TMP_DIR/sched" $opt
	# 150/s per destination is over what a period of the round carries;
	# the senders first, then the ring (vm/fbs_eight)
	fbs_traffic_start 150
	sleep 0.3
	fbs_boot
	sleep 0.2
	ns_run V0 tc qdisc change dev eth0 root handle 1: fbs drift -$DRIFT || fatal "drift"
}
stop() {
	fbs_traffic_stop
	use $max_n
}
# sum ARRAY: the sum over the hosts in use
sum() {
	local -n a=$1
	local i s=0

	for i in $FBS_HOSTS; do s=$((s + a[i])); done
	echo $s
}
# trial N E: judged, out-of-slot frames and stalls over PERIODS periods
trial() {
	local secs

	start "$1" "$2"
	secs=$(awk -v p="$PERIODS" -v n="$1" -v e="$2" -v s=$SLOT_US \
		'BEGIN { printf "%.2f", p * (n + e) * s / 1e6 + 0.3 }')
	fbs_window "$secs" quiet
	stop
	T_F=$(sum dF) T_OUT=$(( $(sum dE) + $(sum dL) + $(sum dX) )) T_S=$(sum dS)
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$1" "$FEEDBACK" "$2" "$PERIODS" "$T_F" "$T_OUT" \
		"$T_S" >> "$OUT/trials.tsv"
	log_info "N=$1 E=$2 feedback $FEEDBACK: $T_OUT of $T_F frames out of their slot, $T_S stalls"
}

# --- 1. the largest run of empty slots, with feedback ----------------------------------------
printf 'nodes\tfeedback\tempty\tperiods\tjudged\tout_of_slot\tstalls\n' > "$OUT/trials.tsv"
printf 'nodes\tdrift_ppm\teq3_empty\tmax_empty\teq3_overhead_pct\toverhead_pct\n' > "$OUT/threshold.tsv"
feedback on
series_n=
for n in $NODES; do
	eq3=$(fbs-sched bounds --ppm "$DRIFT" --round "$n" --json |
	      sed -n 's/.*"max_slots_between_sync":\([0-9]*\).*/\1/p' | head -n1)
	[[ $eq3 =~ ^[0-9]+$ ]] || fatal "fbs-sched bounds: no bound for $DRIFT ppm"
	# lo: no frame out of its slot; hi: some
	lo=-1 hi=$((eq3 - n + 1))
	while [ $((hi - lo)) -gt 1 ]; do
		[ $lo -lt 0 ] && mid=0 || mid=$(((lo + hi) / 2))
		# the search must end within a few percent of the bound
		[ $((hi - lo)) -le $(((eq3 + 49) / 50)) ] && break
		trial "$n" "$mid"
		# good: frames judged, and at most 1 % out of their slot (a
		# stray one is seen now and then; drift puts whole rounds out)
		if [ "$T_F" -gt 0 ] && [ $((T_OUT * 100)) -le "$T_F" ]; then
			lo=$mid
		else
			hi=$mid
		fi
	done
	awk -v n="$n" -v d="$DRIFT" -v eq="$((eq3 - n))" -v m="$lo" 'BEGIN {
		if (m >= 0)
			o = sprintf("%.2f", 100 * n / (m + n))
		else
			o = "-"
		printf "%d\t%d\t%d\t%d\t%.2f\t%s\n", n, d, eq, m, 100 * n / (eq + n), o }' \
		>> "$OUT/threshold.tsv"
	log_info "N=$n: the largest good run $lo empty slots (within $((hi - lo))), Eq. 3 $((eq3 - n))"
	[ $lo -ge 0 ] && series_n=$n
	[ -z "$series_n" ] && first_n=${first_n:-$n}
done
series_n=${series_n:-$first_n}

# --- 2. how fast it corrupts, with feedback and without ----------------------------------------
printf 'feedback\tt_ms\tjudged\tout_of_slot\n' > "$OUT/corrupt.tsv"
for fb in on off; do
	feedback $fb
	start $series_n 0
	# each window counts 100 ms and the counters' reading around it:
	# its end is stamped in guest time since the drift was set
	read -r up0 _ < /proc/uptime
	for k in $(seq 1 30); do
		fbs_window 0.1 quiet
		read -r up _ < /proc/uptime
		printf '%s\t%s\t%s\t%s\n' $fb "$(awk -v a="$up0" -v b="$up" 'BEGIN { printf "%.0f", (b - a) * 1000 }')" \
			"$(sum dF)" $(( $(sum dE) + $(sum dL) + $(sum dX) )) >> "$OUT/corrupt.tsv"
	done
	stop
done
# --- 3. latency: reserved slots against best effort -----------------------------------------
# Every host sends to every other at 150/s, more than its slots carry:
# with the round, each frame goes in its destination's slot; best effort,
# in whichever slot comes next, and meets the other hosts' frames to the
# same receiver at the switch.  The histograms (quarter slots) over the
# window, summed over the receivers; the largest latency since the
# qdiscs began.
printf 'kind\tnodes\tframes\tmean_us\tp50_q\tp99_q\tmax_q\tmax_us\n' > "$OUT/latency.tsv"
printf 'kind\tquarter\tframes\n' > "$OUT/latency_hist.tsv"
lat_run() {
	local kind=$1 filters=$3 i win frames mean max_us p50 p99 top d t0=() t1=()

	use "$LAT_NODES"
	for i in $FBS_HOSTS; do ns_exec V$i tc qdisc del dev eth0 root 2>/dev/null; done
	FBS_FILTERS=$filters fbs_qdiscs "$2" --credits
	fbs_traffic_start 150
	sleep 0.3
	fbs_boot
	sleep 0.5
	# read with no process started (fbs_lib.sh)
	for i in $FBS_HOSTS; do fbs_lat_read $i; t0[i]=$FBS_LAT_LINE; done
	sleep "$LAT_SECONDS"
	for i in $FBS_HOSTS; do fbs_lat_read $i; t1[i]=$FBS_LAT_LINE; done
	stop
	win=$(for i in $FBS_HOSTS; do
		echo "0 ${t0[i]}"
		echo "1 ${t1[i]}"
	done | fbs_lat_window)
	read -r frames mean max_us p50 p99 top _ <<< "$(fbs_lat_summary <<< "$win")"
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$kind" "$LAT_NODES" "$frames" "$mean" \
		"$p50" "$p99" "$top" "$max_us" >> "$OUT/latency.tsv"
	read -ra d <<< "$win"
	for i in $(seq 0 63); do
		printf '%s\t%d\t%s\n' "$kind" "$i" "${d[i]}"
	done >> "$OUT/latency_hist.tsv"
	log_info "latency, $kind: $(tail -n1 "$OUT/latency.tsv")"
}
feedback on
fbs-sched all-to-all "$LAT_NODES" --empty 0 > "$TMP_DIR/lat-sched" || fatal "fbs-sched all-to-all"
{ head -n1 "$TMP_DIR/lat-sched"; echo "empty $LAT_NODES"; } > "$TMP_DIR/lat-be"
lat_run reserved "$TMP_DIR/lat-sched" 1
lat_run best-effort "$TMP_DIR/lat-be" 0

printf 'slot_us\t%s\ndrift_ppm\t%s\nperiods\t%s\nnodes\t%s\nseries_nodes\t%s\nlat_nodes\t%s\nlat_seconds\t%s\nboot\t%s\n' \
	$SLOT_US "$DRIFT" "$PERIODS" "$NODES" "$series_n" "$LAT_NODES" "$LAT_SECONDS" \
	"$FBS_BOOT_LOG" > "$OUT/setup.tsv"

for f in "$OUT"/*; do
	echo "FQ-DEMO-FILE fbs/${f##*/}"
	cat "$f"
	echo "FQ-DEMO-EOF"
done
echo "FQ-DEMO-RESULT fbs ok"
log_test "fbs measurements"
exit $EXIT_STATUS
