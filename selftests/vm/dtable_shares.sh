#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
# vm: deterministic
#
# dtable against sbt and rr on the paper's scenario (Tables 9 and 10):
# five classes VO VI CL BE BK configured by dtable-config for 10 / 30 /
# 50 / 5 / 5 % with distances 2 / 4 / 8 / 16 / 16 and MTUs 128 / 256 /
# 512 / 1024 / 1024 bytes (each class sends packets of its MTU), behind a
# tbf of 8 Mbit/s (burst: one largest frame, so the link serialises like a
# real one) so the dtable queue is the bottleneck.
#
#   [ns A] veth0: tbf 10: 8mbit -> dtable 1: ----------> veth1 [ns B]
#            1:1 VO 128 B  1:2 VI 256 B  1:3 CL 512 B     udp-lat recv
#            1:4 BE 1024 B 1:5 BK 1024 B                  ports 9500..9504
#
# 1. all classes saturated: byte shares from the scheduler's counters
#    over a window in which every class stays backlogged.  dtable: within
#    1 point of 10/30/50/5/5; sbt (weights 10/30/50/5/5 packets): packet
#    shares within 1 point of those; rr: 20 % of the packets each.
#    dtable again with the same table pushed again and again meanwhile
#    (tc -batch, as a controller that re-applies its configuration):
#    within 1 point all the same.  Each change once restarted the walk
#    at the first entry, whose class got its weight again.
# 2. every class offered half its share, Poisson arrivals: p90 and p99
#    latency per class; under dtable VO (distance 2) has the lowest p99
#    (the paper's figure; VO's frames being the smallest, any
#    work-conserving scheduler gives it that, so part 3 tests the
#    distance).
#    dtable's run is 8 s, so VO's p99 rests on dozens of samples, not a
#    dozen (a 3 s run left VO and VI close enough for one instruction-
#    count change to swap them); p90 sits at the base latency for VO and
#    VI alike and says nothing.
# 3. the distance: VO at half its share (Poisson) while BE and BK
#    (distance 16) are saturated, under the paper's table and under one
#    that puts VO at distance 16 with the same share.  At distance 2 VO
#    has every second entry, so at most one entry's worth of BE or BK
#    waits ahead of it besides the frame being sent; at distance 16 up to
#    fifteen.  VO's p99 at distance 2 must be below two thirds of its p99
#    at distance 16, with the same arrivals (the senders' seeds are
#    fixed).  In the deterministic VM: 2.2 ms (the frame in service, one
#    1024-byte frame and VO's own) against 4.3 ms.  (rr, for scale, gave
#    27 ms: one turn in three for VO is 460 a second for its 390 frames.)
# The log gives every figure for the three disciplines.
. ./lib.sh

require_cmd tc udp-lat dtable-config
require_module sch_dtable
two_hosts 22 quiet

NAMES=(VO VI CL BE BK)
SHARE=(10 30 50 5 5)
FRAME=(128 256 512 1024 1024)
RATE=1000000		# bytes/s of the tbf
# A saturating sender's datagrams a second: twice what the mode serves of
# its class when all five are backlogged (dtable: its byte share of 1 MB/s
# over its frame; sbt: 2232 frames a second by packet weights; rr: 340
# each), and --no-retry, so a full child queue costs a refused send, not a
# retry every 100 us: unpaced, five senders kept the deterministic VM's
# one CPU busy, some 8 of its guest seconds, for nothing the shares show.
# A refused send still walks the stack to the child queue, so one rate
# for all modes (the most any mode serves, doubled) spent a third of the
# saturated phases' sends on refusals in sbt and rr.  Twice the mode's
# own rate keeps every class growing its queue, so none runs dry; the
# window's all_backlogged check says so.
declare -A SAT_PPS=(
	[dtable]="1600 2400 2000 100 100"
	[sbt]="450 1340 2240 230 230"
	[rr]="700 700 700 700 700"
)
SAT_PPS[churn]=${SAT_PPS[dtable]}
# The window over which shares are counted, per mode.  dtable's and rr's
# shares are off by a few hundredths of a point over 2 s (a table walk
# or a five-packet round is small against a second's 1 MB), so 1 s keeps
# them far inside the 1-point tolerance; sbt's round is 100 packets and a
# window cut mid-round is off by up to 50 of them in a class (1.1 points
# of a 2 s window's 4464, the 0.36 seen), so sbt keeps its 2 s.
declare -A WINDOW=([dtable]=1 [churn]=1 [rr]=1 [sbt]=2)
DST=10.22.0.2
# UDP payload that makes a frame of FRAME bytes at the qdisc
payload() { echo $(($1 - 14 - 20 - 8)); }

# table_for VO_DISTANCE: the tc command installing the paper's table,
# VO at the given distance, under the tbf rather than at the root
table_for() {
	local cmd

	cmd=$(dtable-config --entries 128 --gmtu 1024 --w 8 --k 2 --credit 64 \
		--sl VO:10%:$1:128 --sl VI:30%:4:256 --sl CL:50%:8:512 \
		--sl BE:5%:16:1024 --sl BK:5%:16:1024 --dev veth0 | grep '^tc qdisc') || return 1
	cmd=${cmd/ root / parent 10:1 }
	echo "${cmd/ replace / change }"
}
DTABLE_CMD=$(table_for 2) || fatal "dtable-config failed"
# part 3's control: VO as far apart as BE and BK, its share the same
FAR_CMD=$(table_for 16) || fatal "dtable-config failed (VO at distance 16)"

ns_run A tc qdisc add dev veth0 root handle 10: tbf rate $((RATE * 8))bit burst 1100 latency 10s ||
	fatal "tbf"
ns_run A tc qdisc add dev veth0 parent 10:1 handle 1: dtable classes 5 || fatal "dtable"
ns_exec A $DTABLE_CMD || fatal "installing the dtable-config table"
# short child queues: the saturated phases drain quickly
for k in 1 2 3 4 5; do
	ns_run A tc qdisc replace dev veth0 parent 1:$k handle $((20 + k)): pfifo limit 100 ||
		fatal "child of 1:$k"
done

set_mode() {
	case $1 in
	dtable) ns_exec A $DTABLE_CMD ;;
	sbt) ns_exec A tc qdisc change dev veth0 parent 10:1 handle 1: dtable mode sbt \
		table 0:10 1:30 2:50 3:5 4:5 ;;
	rr) ns_exec A tc qdisc change dev veth0 parent 10:1 handle 1: dtable mode rr \
		table 0:1 1:1 2:1 3:1 4:1 ;;
	esac
}

# "packets bytes backlog_packets" of each class, one line per class
class_counters() {
	ns_exec A tc -s class show dev veth0 | awk '
		/^class/ { c = ($2 == "dtable") ? $3 : "" }
		/backlog/ && c { for (i = 1; i < NF; i++) if ($i == "backlog") q[c] = $(i + 2) }
		/deficit/ && c { for (i = 1; i < NF; i++) { if ($i == "packets") p[c] = $(i + 1); if ($i == "bytes") b[c] = $(i + 1) } }
		END { for (k = 1; k <= 5; k++) { c = "1:" k; sub(/p$/, "", q[c]); print p[c] + 0, b[c] + 0, q[c] + 0 } }'
}

all_backlogged() {
	class_counters | awk '$3 == 0 { bad = 1 } END { exit bad }'
}

ns_bg B udp-lat recv --port 9500 --ports 5 --duration 200 > /dev/null
SINK=$BG_PID

# a function, so wait_for reads the counters afresh on every try
nothing_queued() {
	test "$(class_counters | awk '{ s += $3 } END { print s }')" = 0
}

# saturate MODE: byte and packet shares in % over a window, "b1..b5 p1..p5"
# on stdout; its checks count, so call it in this shell, not in $(...)
saturate() {
	local mode=$1 pids=() k churn changes rates
	read -ra rates <<< "${SAT_PPS[$mode]}"
	for k in 0 1 2 3 4; do
		ns_bg A udp-lat send --dst $DST --port $((9500 + k)) --size "$(payload "${FRAME[$k]}")" \
			--duration 10 --stream $k --prio 1:$((k + 1)) \
			--rate "${rates[$k]}" --no-retry > /dev/null
		pids+=($BG_PID)
	done
	wait_for 20 all_backlogged || xfail_on_slow check_err 1 "$mode: not every class got backlogged"
	if [ "$mode" = churn ]; then
		# a simple command, not ns_exec: $! is tc itself
		ns_entry A tc
		churn_feed | "${NS_ENTRY[@]}" -force -batch - > /dev/null 2>&1 &
		churn=$!
		bg_track $churn
		changes=$(table_changes)
	fi
	class_counters > "$TMP_DIR/before-$mode"
	sleep "${WINDOW[$mode]}"
	class_counters > "$TMP_DIR/after-$mode"
	all_backlogged || xfail_on_slow check_err 1 "$mode: a class ran dry during the window"
	if [ "$mode" = churn ]; then
		changes=$(($(table_changes) - changes))
		# tc gone, the feed's next line ends it (SIGPIPE)
		kill "$churn" 2>/dev/null
		bg_wait "$churn"
		# stdout is the shares': the count goes to a file
		echo "$changes" > "$TMP_DIR/churn-changes"
	fi
	# enough: stop the senders rather than wait out their duration
	for k in "${pids[@]}"; do kill "$k" 2>/dev/null; bg_wait "$k"; done
	wait_for 20 nothing_queued || check_err 1 "$mode: the classes did not drain"
	paste "$TMP_DIR/before-$mode" "$TMP_DIR/after-$mode" | awk '
		{ dp[NR] = $4 - $1; db[NR] = $5 - $2; P += dp[NR]; B += db[NR] }
		END { for (k = 1; k <= 5; k++) printf "%.2f ", B ? 100 * db[k] / B : 0
		      for (k = 1; k <= 5; k++) printf "%.2f ", P ? 100 * dp[k] / P : 0 }'
}

# table_changes: the qdisc's count of changes
table_changes() {
	ns_exec A tc -s qdisc show dev veth0 |
		awk '/^qdisc dtable/ { d = 1 } d { for (i = 1; i < NF; i++) if ($i == "table_changes") { print $(i + 1); exit } }'
}
# churn_feed: the configuration a controller keeps pushing, the same
# table, as one tc -batch reads it, up to 200 times a second until tc is
# killed at the window's end.  Unpaced (a file of 10000), tc pushed all of
# them in a 2 s window: some 2 of the deterministic VM's busy seconds,
# where a hundred changes already test the walk (the 1 s window gets
# about 190).
churn_feed() {
	while echo "${DTABLE_CMD#tc }"; do nap 0.005; done
}

# paced MODE SECONDS: every class at half its share, Poisson, over SECONDS;
# the receiver's report in lat-MODE
paced() {
	local mode=$1 secs=$2 pids=() k mean
	ns_bg B udp-lat recv --port 9600 --ports 5 --duration $((secs + 1)) \
		--ready "$TMP_DIR/ready-$mode" > "$TMP_DIR/lat-$mode"
	local rpid=$BG_PID
	wait_for 10 test -e "$TMP_DIR/ready-$mode" || fatal "receiver did not start"
	for k in 0 1 2 3 4; do
		# mean gap = frame / (share / 2 x rate)
		mean=$((FRAME[k] * 200 * 1000000 / (SHARE[k] * RATE)))
		ns_bg A udp-lat send --dst $DST --port $((9600 + k)) --size "$(payload "${FRAME[$k]}")" \
			--duration "$secs" --poisson "$mean" --seed $((k + 7)) --stream $k \
			--prio 1:$((k + 1)) > /dev/null
		pids+=($BG_PID)
	done
	for k in "${pids[@]}"; do bg_wait "$k"; done
	bg_wait $rpid
}

# latency MODE STAT: STAT (p99, p90, mean) latency in us per class, VO to BK
latency() {
	local k
	for k in 0 1 2 3 4; do
		sed -n "s/^stream=$k .*lat_$2_us=\([0-9.]*\).*/\1/p" "$TMP_DIR/lat-$1" | head -n1
	done | tr '\n' ' '
}

bytes_of() { echo "$1" | cut -d' ' -f1-5; }
pkts_of() { echo "$1" | cut -d' ' -f6-10; }

declare -A SH LAT
for mode in dtable sbt rr; do
	set_mode $mode || fatal "mode $mode"
	# not in $(...): a subshell's check_err would not reach this shell
	saturate $mode > "$TMP_DIR/shares-$mode"
	SH[$mode]=$(cat "$TMP_DIR/shares-$mode")
	log_info "$mode: byte shares % $(bytes_of "${SH[$mode]}") | packet shares % $(pkts_of "${SH[$mode]}")"
	# dtable's is checked below; the others are only shown
	paced $mode "$([ $mode = dtable ] && echo 8 || echo 1)"
	LAT[$mode]=$(latency $mode p99)
	log_info "$mode: latency us at half load (VO VI CL BE BK): p90 $(latency $mode p90)| p99 ${LAT[$mode]}"
	if [ $mode = dtable ]; then
		saturate churn > "$TMP_DIR/shares-churn"
		SH[churn]=$(cat "$TMP_DIR/shares-churn")
		changes=$(cat "$TMP_DIR/churn-changes")
		log_info "dtable, its table pushed again $changes times meanwhile: byte shares % $(bytes_of "${SH[churn]}")"
		# the old walk kept the shares at 10 changes a second
		# (a review's model) and lost them from about 17
		[ "$changes" -ge 100 ]
		xfail_on_slow check_err $? "churn: only $changes changes in the window"
	fi
done

# guarded MODE: VO's p99 in us over 3 s of its Poisson arrivals while BE
# and BK send twice what they get.  3 s is some 1170 of VO's frames, its
# p99 a dozen above it: at 4 s the two p99s were 2.2 ms and 4.2 ms, a
# ratio of 0.52 against the 0.67 required, set by how many 1024-byte
# frames the distance lets ahead of VO, which a second less of arrivals
# does not change.
guarded() {
	local mode=$1 pids=() k
	ns_bg B udp-lat recv --port 9700 --duration 5 --ready "$TMP_DIR/ready-g$mode" \
		> "$TMP_DIR/guarded-$mode"
	local rpid=$BG_PID
	wait_for 10 test -e "$TMP_DIR/ready-g$mode" || fatal "receiver did not start"
	for k in 3 4; do
		# 1000 a second: VO's 5 % leaves BE and BK 464 each
		ns_bg A udp-lat send --dst $DST --port $((9500 + k)) --size "$(payload "${FRAME[$k]}")" \
			--duration 5 --stream $k --prio 1:$((k + 1)) --rate 1000 --no-retry > /dev/null
		pids+=($BG_PID)
	done
	wait_for 20 bulk_backlogged || xfail_on_slow check_err 1 "$mode: BE and BK did not get backlogged"
	ns_run A udp-lat send --dst $DST --port 9700 --size "$(payload "${FRAME[0]}")" \
		--duration 3 --poisson $((FRAME[0] * 200 * 1000000 / (SHARE[0] * RATE))) --seed 7 \
		--stream 0 --prio 1:1 > /dev/null || check_err 1 "$mode: VO's sender failed"
	bulk_backlogged || xfail_on_slow check_err 1 "$mode: BE or BK ran dry while VO sent"
	for k in "${pids[@]}"; do kill "$k" 2>/dev/null; bg_wait "$k"; done
	bg_wait $rpid
	wait_for 20 nothing_queued || check_err 1 "$mode: the classes did not drain"
	sed -n 's/^stream=0 .*lat_p99_us=\([0-9.]*\).*/\1/p' "$TMP_DIR/guarded-$mode" | head -n1
}

bulk_backlogged() {
	class_counters | awk 'NR >= 4 && $3 == 0 { bad = 1 } END { exit bad }'
}

declare -A GUARD
for mode in far dtable; do
	if [ $mode = far ]; then
		ns_exec A $FAR_CMD || fatal "installing the table with VO at distance 16"
	else
		set_mode dtable || fatal "mode dtable"
	fi
	guarded $mode > "$TMP_DIR/gp99-$mode"
	GUARD[$mode]=$(cat "$TMP_DIR/gp99-$mode")
done
log_info "VO's p99 with BE and BK saturated: distance 2 ${GUARD[dtable]} us, distance 16 ${GUARD[far]} us"

# within POINTS of WANT (space-separated lists)
close_to() {
	awk -v got="$1" -v want="$2" -v pts="$3" 'BEGIN {
		n = split(got, g, " "); split(want, w, " ")
		if (n < 5) exit 1
		for (i = 1; i <= 5; i++) if (g[i] - w[i] > pts || w[i] - g[i] > pts) exit 1 }'
}

close_to "$(bytes_of "${SH[dtable]}")" "10 30 50 5 5" 1
xfail_on_slow check_err $? "dtable byte shares $(bytes_of "${SH[dtable]}"), want 10 30 50 5 5 +- 1"
log_test "dtable: byte shares 10/30/50/5/5 within 1 point"

close_to "$(bytes_of "${SH[churn]}")" "10 30 50 5 5" 1
xfail_on_slow check_err $? "dtable byte shares $(bytes_of "${SH[churn]}") while its table was pushed again, want 10 30 50 5 5 +- 1"
log_test "dtable: the same shares while its table is pushed again and again"

close_to "$(pkts_of "${SH[sbt]}")" "10 30 50 5 5" 1
xfail_on_slow check_err $? "sbt packet shares $(pkts_of "${SH[sbt]}"), want 10 30 50 5 5 +- 1"
close_to "$(pkts_of "${SH[rr]}")" "20 20 20 20 20" 1
xfail_on_slow check_err $? "rr packet shares $(pkts_of "${SH[rr]}"), want 20 each +- 1"
log_test "sbt: packet shares 10/30/50/5/5; rr: 20 % of the packets each"

awk -v l="${LAT[dtable]}" 'BEGIN { n = split(l, x, " "); if (n < 5 || x[1] <= 0) exit 1
	for (i = 2; i <= 5; i++) if (x[i] <= x[1]) exit 1 }'
xfail_on_slow check_err $? "dtable p99 latencies ${LAT[dtable]}: VO is not the lowest"
log_test "dtable: the distance-2 class has the lowest p99 latency"

awk -v d="${GUARD[dtable]}" -v f="${GUARD[far]}" 'BEGIN { exit !(d > 0 && f > 0 && 3 * d < 2 * f) }'
xfail_on_slow check_err $? "VO's p99 beside saturated BE and BK: ${GUARD[dtable]} us at distance 2, ${GUARD[far]} us at 16; want below 2/3"
log_test "dtable: VO's p99 beside saturated BE and BK below 2/3 of its p99 at distance 16"

exit $EXIT_STATUS
