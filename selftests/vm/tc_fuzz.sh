#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 400
#
# Configuration fuzzing under traffic: random sequences (seeded,
# reproducible) of qdisc and class add, change, replace, graft and delete
# for edf, aoq and dtable, well-formed through tc (tc-fuzz batch) and
# malformed straight over rtnetlink (tc-fuzz raw: every attribute type up
# to past the last, wrong lengths, boundary values, nested garbage),
# while pktgen and UDP senders with SO_PRIORITY of every class keep the
# device busy.  After each sequence the traffic stops, the tree is
# settled (classes and children deleted with packets in them, pacing
# off) and the idle root must report qlen 0 and backlog 0.  The kernel
# log must stay clean (the harness checks).  fq.tc_fuzz_ops=N and
# fq.tc_fuzz_rounds=N on the VM's command line scale it (make
# check-debug: 5 rounds of 12,000 of each kind; of a raw round's 12,000
# about 72 % are changes sent, 20 % dumps, so about 10^5 changes in all).
#
#   [A] veth0 (root 1: edf | aoq | dtable, classes 1:1..1:10, children)
#        --> veth1 [B] udp-lat recv
. ./lib.sh

require_cmd tc tc-fuzz udp-lat
require_module sch_edf
require_module sch_aoq
require_module sch_dtable
modprobe pktgen || skip "pktgen not available"
OPS=$(fq_param tc_fuzz_ops 400)
ROUNDS=$(fq_param tc_fuzz_rounds 3)
SEED=$(fq_param fuzz_seed 1)
log_info "$ROUNDS rounds of $OPS well-formed and $OPS raw operations, seed $SEED"

two_hosts 53
ns_bg B udp-lat recv --port 9000 --ports 10 --duration 3600 > /dev/null
PG=/proc/net/pktgen

# The traffic's rate divided by TRAFFIC_DIV.  On a slow kernel (make
# check-debug) the full rate took the fast VM's CPUs: an operation took
# 31 to 36 ms there with it and 3 to 7 ms without (2026-11-29, 6.1 debug
# kernel alone on this machine), so 10^5 operations would have taken
# about 100 minutes; a tenth of it still sends packets of every class and
# GSO packets while the configuration changes.
TRAFFIC_DIV=1
[ "$FQ_SLOW" = 1 ] && TRAFFIC_DIV=10

traffic_start() {
	local k
	# 5000 packets/s at most (a tenth on a slow kernel)
	pktgen A "kpktgend_0=rem_device_all" "kpktgend_0=add_device veth0" \
		"veth0=xmit_mode queue_xmit" "veth0=count 0" \
		"veth0=delay $((200000 * TRAFFIC_DIV))" \
		"veth0=pkt_size 200" "veth0=dst 10.53.0.2" "veth0=dst_mac $(ns_mac B veth1)" \
		"veth0=udp_src_min 1" "veth0=udp_src_max 2000" || check_err 1 "pktgen setup"
	ns_exec A sh -c "echo start > $PG/pgctrl" &
	PGCTRL=$!
	SENDERS=()
	for k in 1 2 3 4; do
		ns_bg A udp-lat send --dst 10.53.0.2 --port $((9000 + k)) --size 1200 \
			--rate $((500 / TRAFFIC_DIV)) --duration 3600 --prio 0x1000$k \
			--no-retry > /dev/null 2>&1
		SENDERS+=($BG_PID)
	done
	# GSO sends: a frame of 20 packets every 20 ms (200 on a slow kernel)
	ns_bg A udp-lat send --dst 10.53.0.2 --port 9005 --size 1400 --frame-bytes 28000 \
		--frame-interval $((20000 * TRAFFIC_DIV)) --gso --duration 3600 --prio 0x10005 --no-retry \
		> /dev/null 2>&1
	SENDERS+=($BG_PID)
}

traffic_stop() {
	local p
	ns_exec A sh -c "echo stop > $PG/pgctrl"
	wait $PGCTRL 2>/dev/null
	for p in "${SENDERS[@]}"; do
		kill "$p" 2>/dev/null
		bg_wait "$p"
	done
}

root_kind() { ns_exec A tc qdisc show dev veth0 root | awk '{ print $2; exit }'; }
root_backlog() {	# "qlen backlog" of the root qdisc
	ns_exec A tc -s -j qdisc show dev veth0 root | tr -d ' \n' |
		sed -n 's/.*"backlog":\([0-9]*\),"qlen":\([0-9]*\).*/\2 \1/p' | head -n1
}
idle() { [ "$(root_backlog)" = "0 0" ]; }

# settle: what holds packets for long goes, with the packets in it
settle() {
	local m
	for m in $(seq 1 10); do
		ns_exec A tc qdisc del dev veth0 parent 1:$m 2>/dev/null
		ns_exec A tc class del dev veth0 classid 1:$m 2>/dev/null
	done
	case $(root_kind) in
	edf) ns_exec A tc qdisc change dev veth0 root handle 1: edf rate 0 ;;
	esac
}

total_raw=0 total_batch=0
for ((r = 0; r < ROUNDS; r++)); do
	ns_exec A tc qdisc replace dev veth0 root handle 1: edf default 1 || fatal "edf"
	traffic_start
	ns_exec A tc-fuzz raw veth0 $((SEED * 1000 + r)) "$OPS" > "$TMP_DIR/raw.out"
	check_err $? "tc-fuzz raw, round $r"
	log_info "round $r: $(cat "$TMP_DIR/raw.out")"
	ns_exec A tc-fuzz batch veth0 $((SEED * 1000 + r)) "$OPS" |
		ns_exec A tc -s -force -batch - > /dev/null 2> "$TMP_DIR/batch.err"
	log_info "round $r: $OPS tc commands, $(grep -c . "$TMP_DIR/batch.err") error lines"
	total_raw=$((total_raw + $(sed -n 's/.*sent=\([0-9]*\).*/\1/p' "$TMP_DIR/raw.out")))
	total_batch=$((total_batch + OPS))
	traffic_stop
	kind=$(root_kind)
	settle
	wait_for 60 idle
	check_err $? "round $r: idle $kind root reports qlen/backlog '$(root_backlog)'"
	ns_exec A tc qdisc del dev veth0 root 2>/dev/null
done
log_info "$total_batch well-formed and $total_raw raw operations"
log_test "random configuration sequences under traffic; idle qdisc empty"

pktgen A "kpktgend_0=rem_device_all"
exit $EXIT_STATUS
