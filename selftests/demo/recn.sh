#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The RECN paper's experiment in the deterministic VM, for make recn-demo
# VM=1 (scripts/recn-demo.sh, Documentation/recn.rst "In the VM"): the
# same kind of trace qsim replays, on live hosts and switches.
#
# A k-ary n-tree of vcsw switches (fabric-topo, TREE, 4,2: 4 leaves of 4
# hosts under 4 spines, qsim's sweep's shape) on lossless credit links of
# LINK (500kbit), BUFFER (16k) per VC per side, once with arch trad (the
# lossless switch, two VCs, no RECN) and once with arch recn (RECN on
# every port and in every host's edf).  Each host's edf has a class per
# SL: 1:100 .. 1:103 control, regulated (VC0), 1:104 .. 1:107 best effort
# of equal weight (VC1); the class minor is the fabric header's SL.  At
# each load of LOADS, fabric-replay replays trace-LOAD-hH (host H's
# frames, made on the host by scripts/recn-traffic.awk) for DUR ns and
# counts per SL what arrives from DUR/4 on.
#
# Files, between demo.sh's markers (FQ-DEMO-FILE recn/FILE ...
# FQ-DEMO-EOF, then FQ-DEMO-RESULT recn ok|fail):
#   vm.tsv    arch load sl frames bytes accepted_Bps lat_avg_ns lat_max_ns
#   runs.tsv  arch load cpu_busy_pct sent send_errors lag_max_ns
#             host_drops outside bad saq_alloc saq_free xoff_tx
#             (bad: datagrams without a probe and an earlier run's frames)
#   setup.tsv the settings
# Input: /etc/fabric-qos/recn-demo/ (env: LOADS, DUR, TREE, LINK, BUFFER;
# the traces).
cd "$(dirname "$0")/../vm" || exit 1
TEST_NAME=recn-demo
. ./lib.sh

IN=/etc/fabric-qos/recn-demo
[ -r $IN/env ] && . $IN/env
LOADS=${LOADS:-0.2 0.4 0.6 0.8 1.0}
DUR=${DUR:-16000000000}
TREE=${TREE:-4,2}
LINK=${LINK:-500kbit}
BUFFER=${BUFFER:-16k}
WARM=$((DUR / 4))
K=${TREE%,*}
N=${TREE#*,}
HOSTS=$((K ** N))
OUT=/tmp/demo/recn
ARCHS="trad recn"

require_cmd ip tc fabric-topo fabric-replay
require_module vcsw
require_module fabric_hdr
require_module sch_edf
tmp_dir_create
rm -rf "$OUT"
mkdir -p "$OUT"
printf 'arch\tload\tsl\tframes\tbytes\taccepted_Bps\tlat_avg_ns\tlat_max_ns\n' > "$OUT/vm.tsv"
printf 'arch\tload\tcpu_busy_pct\tsent\tsend_errors\tlag_max_ns\thost_drops\toutside\tbad\tsaq_alloc\tsaq_free\txoff_tx\n' \
	> "$OUT/runs.tsv"

# Every veth frame of every namespace passes the one CPU's receive
# backlog: the kernel's 1000 would drop frames of a lossless fabric
# before any qdisc or switch saw them (scenario_lib.sh's backlog_apply).
BACKLOG_SAVED=$(sysctl -n net.core.netdev_max_backlog)
sysctl -qw net.core.netdev_max_backlog=100000
cleanup_test() { sysctl -qw net.core.netdev_max_backlog="$BACKLOG_SAVED"; }

cpu_ticks() {
	local cpu user nice sys idle iowait irq softirq rest

	read -r cpu user nice sys idle iowait irq softirq rest < /proc/stat
	echo "$((user + nice + sys + irq + softirq)) $((idle + iowait))"
}

# the switches' namespaces, after NS_PREFIX-s
switches() {
	ip netns list | awk -v p="$NS_PREFIX-s" 'index($1, p) == 1 { print substr($1, length(p) + 1) }'
}
# recn_sums: saq_alloc, saq_free and xoff_tx of every switch port's RECN
# counters, each summed over the fabric (one dump a switch)
recn_sums() {
	local s

	for s in $(switches); do
		ns_exec "s$s" ip -j -d link show master sw0
	done | tr -d '[:space:]' | grep -oE '"(saq_alloc|saq_free|xoff_tx)":[0-9]+' |
		awk -F'[":]+' '{ v[$2] += $3 } END { printf "%.0f %.0f %.0f\n", v["saq_alloc"], v["saq_free"], v["xoff_tx"] }'
}
# host_drops: packets the hosts' qdiscs dropped, summed
host_drops() {
	local h

	for ((h = 0; h < HOSTS; h++)); do
		ns_exec h$h tc -s qdisc show dev eth0 root
	done | awk '{ if (match($0, /dropped [0-9]+/)) d += substr($0, RSTART + 8, RLENGTH - 8) }
		END { print d + 0 }'
}
# sleep_until NS: of fabric-replay's clock
sleep_until() {
	local ms=$(( ($1 - $(fabric-replay now)) / 1000000 ))

	((ms > 0)) && sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
}
drained() {
	local h

	for ((h = 0; h < HOSTS; h++)); do
		[ "$(root_qlen h$h)" = 0 ] || return 1
	done
}

# build ARCH: the fabric and each host's classes
build() {
	local h s j

	FABRIC_TOPO_SHELL=bash fabric-topo --tree "$TREE" --name "$NS_PREFIX" --link "$LINK" \
		--arch "$1" --buffer "$BUFFER" --in-buffer "$BUFFER" build > "$TMP_DIR/topo.log" 2>&1 ||
		fatal "fabric-topo --arch $1: $(tail -n 3 "$TMP_DIR/topo.log")"
	for ((h = 0; h < HOSTS; h++)); do
		{
			# a burst of one SL is a hundred frames: room for many
			echo "qdisc change dev eth0 root handle 1: edf limit 200000 flow_limit 20000"
			for s in 0 1 2 3; do
				echo "class add dev eth0 parent 1: classid 1:10$s edf control perflow off"
			done
			for s in 4 5 6 7; do
				echo "class add dev eth0 parent 1: classid 1:10$s edf rate $LINK besteffort"
			done
		} | ns_exec h$h tc -batch - || fatal "host $h's classes"
	done
	# the change kept what fabric-topo set
	j=$(ns_exec h0 tc -j qdisc show dev eth0 root)
	j=${j//[[:space:]]/}
	[[ $j == *'"limit":200000'* && $j == *'"ttd":true'* &&
	   ( $1 != recn || $j == *'"recn":true'* ) ]] ||
		fatal "host 0's edf: $(ns_exec h0 tc qdisc show dev eth0 root)"
}

destroy() {
	FABRIC_TOPO_SHELL=bash fabric-topo --tree "$TREE" --name "$NS_PREFIX" destroy > "$TMP_DIR/topo.log" 2>&1 ||
		fatal "fabric-topo destroy: $(tail -n 3 "$TMP_DIR/topo.log")"
}

# run ARCH LOAD
run() {
	local arch=$1 load=$2 h n e g start c0 c1 pids=() sent=0 errs=0 lag=0 out=0 bad=0 lags
	local a0=0 f0=0 x0=0 a1=0 f1=0 x1=0 d0 d1

	[ "$arch" = recn ] && read -r a0 f0 x0 <<< "$(recn_sums)"
	d0=$(host_drops)
	# time for every receiver and sender to start first (about 60 ms a
	# program under TCG); idle guest time costs no host time
	start=$(( $(fabric-replay now) + 1000000000 + HOSTS * 300000000 ))
	for ((h = 0; h < HOSTS; h++)); do
		ns_bg h$h fabric-replay recv --start $start --warmup $WARM --until $DUR \
			--linger 1000000000 > "$TMP_DIR/r$h" 2>&1
		pids+=($BG_PID)
	done
	# every receiver must listen before the clock starts
	listening() {
		local h

		for ((h = 0; h < HOSTS; h++)); do
			grep -q '^listening$' "$TMP_DIR/r$h" || return 1
		done
	}
	wait_for 60 listening || fatal "$arch load $load: receivers not listening"
	(( $(fabric-replay now) < start - HOSTS * 100000000 )) ||
		fatal "$arch load $load: the receivers took the senders' time to start"
	for ((h = 0; h < HOSTS; h++)); do
		ns_bg h$h fabric-replay send --trace "$IN/trace-$load-h$h" --host $h --start $start \
			--until $DUR > "$TMP_DIR/s$h" 2> "$TMP_DIR/e$h"
		pids+=($BG_PID)
	done
	# the CPU's load over the measured window
	sleep_until $((start + WARM))
	c0=$(cpu_ticks)
	sleep_until $((start + DUR))
	c1=$(cpu_ticks)
	for h in "${pids[@]}"; do
		bg_wait "$h" || fatal "fabric-replay failed ($arch, load $load): $(cat "$TMP_DIR"/[rse]* | grep -v '^sl\|^sent\|^bad\|^stale\|^listening' | head -3)"
	done
	# the window's frames, per SL over every receiver
	cat "$TMP_DIR"/r* | awk -v a=$arch -v l=$load -v w=$((DUR - WARM)) '
		$1 == "sl" { f[$2] += $4; b[$2] += $6; ls[$2] += $8 * $4; if ($10 > m[$2]) m[$2] = $10 }
		END { for (s = 0; s < 8; s++)
			printf "%s\t%s\t%d\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\n", a, l, s, f[s], b[s],
				b[s] * 1e9 / w, f[s] ? ls[s] / f[s] : 0, m[s] }' >> "$OUT/vm.tsv"
	lags=
	for ((h = 0; h < HOSTS; h++)); do
		read -r _ _ n _ _ _ e _ g <<< "$(grep '^sent ' "$TMP_DIR/s$h")"
		sent=$((sent + n)); errs=$((errs + e)); ((g > lag)) && lag=$g
		lags+=" $((g / 1000000))"
		out=$((out + $(awk '$1 == "sl" { o += $12 } END { print o + 0 }' "$TMP_DIR/r$h")))
		bad=$((bad + $(awk '$1 == "bad" || $1 == "stale" { b += $2 } END { print b + 0 }' "$TMP_DIR/r$h")))
	done
	wait_for 120 drained || log_info "$arch load $load: host queues not drained after 120 s"
	d1=$(host_drops)
	if [ "$arch" = recn ]; then
		sleep 1		# idle SAQs go after recn_idle
		read -r a1 f1 x1 <<< "$(recn_sums)"
	fi
	echo "$c0 $c1" | awk -v a=$arch -v l=$load -v s=$sent -v e=$errs -v g=$lag -v d=$((d1 - d0)) \
		-v o=$out -v bd=$bad -v sa=$((a1 - a0)) -v sf=$((f1 - f0)) -v x=$((x1 - x0)) '
		{ b = $3 - $1; i = $4 - $2
		  printf "%s\t%s\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\n", a, l,
			 b + i ? 100 * b / (b + i) : 0, s, e, g, d, o, bd, sa, sf, x }' >> "$OUT/runs.tsv"
	log_info "$(tail -n 1 "$OUT/runs.tsv")"
	log_info "$arch $load: each sender's lag (ms):$lags"
	# a sender that fell a second behind its trace measured the VM
	((lag < 1000000000)) || fatal "$arch load $load: a sender fell $((lag / 1000000)) ms behind"
	rm -f "$TMP_DIR"/[rse]*
}

for l in $LOADS; do
	for ((h = 0; h < HOSTS; h++)); do
		[ -r "$IN/trace-$l-h$h" ] || fatal "no trace for load $l, host $h in $IN"
	done
done
for a in $ARCHS; do
	build $a
	for l in $LOADS; do
		run $a $l
	done
	destroy
done
check_eq "no frame refused at a sender" 0 "$(awk -F'\t' 'NR > 1 { s += $5 } END { print s + 0 }' "$OUT/runs.tsv")"
log_test "the RECN sweep ran"

printf 'tree\t%s\nlink\t%s\nbuffer\t%s\ndur_ns\t%s\nwarmup_ns\t%s\nloads\t%s\n' \
	"$TREE" "$LINK" "$BUFFER" "$DUR" "$WARM" "$LOADS" > "$OUT/setup.tsv"
for f in "$OUT"/*; do
	echo "FQ-DEMO-FILE recn/${f##*/}"
	cat "$f"
	echo "FQ-DEMO-EOF"
done
echo "FQ-DEMO-RESULT recn ok"
exit $EXIT_STATUS
