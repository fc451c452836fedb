#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
#
# Our classful qdiscs stacked with the in-tree ones, the setups behind the
# 2023-2025 CVEs of drr, hfsc, qfq and ets (queue length bookkeeping when a
# child drops or empties during peek or dequeue, classes deleted while
# they hold packets):
#
# 1. aoq and dtable as parents of children that drop or hold back (edf's
#    classes keep their own per-flow queues and take no child qdisc):
#    netem over a tbf that drops what exceeds its burst (the drop happens
#    inside the parent's peek), tbf, codel and fq_codel with tight
#    targets under GSO sends, drr, hfsc and qfq with one class each.
#    Under traffic, classes (edf, aoq) and children are deleted while
#    they hold packets, then grafted again.
# 2. edf, aoq and dtable as children of drr, hfsc, ets, tbf and netem,
#    our classes deleted while queued, then our qdisc deleted while
#    queued.
#
# After each setup the senders stop and every qdisc of the tree must
# drain to qlen 0 and backlog 0; the kernel log must stay clean (the
# harness checks).
#
#   [ns A] veth0: <parent> -> <child> ... --------------> veth1 [ns B]
#     10.54.0.1/24                                        10.54.0.2/24
. ./lib.sh

require_cmd tc udp-lat
for m in sch_edf sch_aoq sch_dtable; do
	require_module $m
done
two_hosts 54 quiet
DST=10.54.0.2
ns_bg B udp-lat recv --port 9000 --ports 4 --duration 3600 > /dev/null
tcq() { ns_exec A tc "$@"; }

# A tc start costs some 100 ms in the VM and a setup is a dozen commands:
# between batch_begin and batch_run, tcx gathers them for one tc -batch
# (stopping at the first that fails); otherwise it runs each at once.
BATCH=
tcx() {
	if [ -n "$BATCH" ]; then
		echo "$*" >> "$BATCH"
	else
		tcq "$@"
	fi
}
batch_begin() { BATCH=$TMP_DIR/batch; : > "$BATCH"; }
batch_run() {
	local f=$BATCH

	BATCH=
	tcq -batch "$f" > "$TMP_DIR/batch.out" 2>&1
}
batch_err() { tail -n 2 "$TMP_DIR/batch.out" | tr '\n' ' '; }

# traffic_start PRIO|gso:PRIO...: per argument a sender of 1400-byte UDP
# datagrams (5.6 Mbit/s) or of 30 KB GSO sends (12 Mbit/s) with that
# priority, above what the tree lets out
SENDERS=()
traffic_start() {
	local p
	for p in "$@"; do
		case $p in
		gso:*)	ns_bg A udp-lat send --dst $DST --port 9001 --size 1400 \
				--frame-bytes 30000 --frame-interval 20000 --gso --duration 3600 \
				--prio "${p#gso:}" --no-retry > /dev/null 2>&1 ;;
		*)	ns_bg A udp-lat send --dst $DST --port 9000 --size 1400 \
				--rate 500 --duration 3600 --prio "$p" --no-retry > /dev/null 2>&1 ;;
		esac
		SENDERS+=($BG_PID)
	done
}
traffic_stop() {
	local p
	for p in "${SENDERS[@]}"; do
		kill "$p" 2>/dev/null
		bg_wait "$p"
	done
	SENDERS=()
}

# every qdisc on veth0 reports qlen 0 and backlog 0: tc succeeded (the
# pipeline fails with it, pipefail) and printed backlogs, all of them 0
tree_idle() {
	tcq -s qdisc show dev veth0 | awk '
		$1 == "backlog" { n++; if ($2 != "0b" || $3 != "0p") bad = 1 }
		END { exit !(n > 0 && !bad) }'
}
backlogs() { tcq -s qdisc show dev veth0 | awk '/^qdisc/ { q = $2 " " $3 } $1 == "backlog" { print q, $2, $3 }' | tr '\n' ';'; }

# queued HANDLE: that qdisc holds packets; false when tc fails or the
# qdisc (or its backlog line) is not in the dump.  awk reads to the end:
# an early exit could kill tc with SIGPIPE, failing the pipeline.
queued() {
	tcq -s qdisc show dev veth0 | awk -v h="$1" '
		/^qdisc/ { d = ($3 == h); next }
		d && $1 == "backlog" && !seen { seen = 1; q = ($3 != "0p") }
		END { exit !(seen && q) }'
}

settle() {	# NAME: the senders stop, the tree drains
	traffic_stop
	wait_for 60 tree_idle
	check_err $? "$1: not idle after the traffic stopped: $(backlogs)"
	tcq qdisc del dev veth0 root 2>/dev/null
}

# our_class KIND: the options a new class of KIND needs
our_class() {
	case $1 in
	edf) echo "edf rate 5mbit" ;;
	*) echo "$1" ;;
	esac
}

# ours KIND HANDLE "PARENT" [slow]: one of our qdiscs with three classes;
# "slow" makes packets wait inside our qdisc's tree when it is itself a
# child: a 2 Mbit/s tbf under each class, or edf's own pacing.  edf's
# queue has no byte bound that short (100 GSO sends of 30 KB a flow), so
# what the senders (17.6 Mbit/s) put in above its pace is what settle
# waits for it to drain: at 6 Mbit/s a queue still forms (the parents
# let out 10) and it drains in 1.9 times as long as it filled, not 7.8
# times as at 2 Mbit/s
ours() {
	local kind=$1 h=$2 parent=$3 slow=${4:-} c pace=
	[ -n "$slow" ] && [ $kind = edf ] && pace="rate 6mbit"
	case $kind in
	dtable)
		tcx qdisc replace dev veth0 $parent handle $h dtable classes 3 || return 1 ;;
	*)
		tcx qdisc replace dev veth0 $parent handle $h $kind default 1 $pace &&
		for c in 1 2 3; do
			tcx class add dev veth0 parent $h classid ${h}$c $(our_class $kind) || return 1
		done ;;
	esac
	[ -n "$slow" ] && [ $kind != edf ] || return 0
	for c in 1 2 3; do
		tcx qdisc replace dev veth0 parent ${h}$c tbf rate 2mbit burst 3000 limit 30000 || return 1
	done
}

# child SPEC PARENT HANDLE: an in-tree child, with what it needs to pass
# packets (a class and a filter for drr and qfq, a default for hfsc)
child() {
	local spec=$1 parent=$2 h=$3
	case $spec in
	netem-tbf)
		tcx qdisc add dev veth0 parent $parent handle $h netem delay 1ms limit 100 &&
		tcx qdisc add dev veth0 parent ${h}1 handle 2$h tbf rate 20mbit burst 1000 limit 20000 ;;
	tbf)	tcx qdisc add dev veth0 parent $parent handle $h tbf rate 5mbit burst 3000 limit 30000 ;;
	codel)	tcx qdisc add dev veth0 parent $parent handle $h codel target 100us interval 1ms limit 50 ;;
	fq_codel) tcx qdisc add dev veth0 parent $parent handle $h fq_codel target 100us interval 1ms limit 50 ;;
	drr|qfq)
		tcx qdisc add dev veth0 parent $parent handle $h $spec &&
		tcx class add dev veth0 parent $h classid ${h}1 $spec &&
		tcx filter add dev veth0 parent $h protocol all matchall classid ${h}1 ;;
	hfsc)
		tcx qdisc add dev veth0 parent $parent handle $h hfsc default 1 &&
		tcx class add dev veth0 parent $h classid ${h}1 hfsc sc rate 10mbit ul rate 10mbit ;;
	esac
}

# --- ours as parents -------------------------------------------------------------
# a 10 Mbit/s link (tbf root) so queues form in our qdisc and its children;
# each class 1:N its own kind of child, UDP into the odd classes and GSO
# sends into the even ones
GROUPS=("netem-tbf codel drr hfsc" "tbf fq_codel qfq netem-tbf")
for kind in aoq dtable; do
	for group in "${GROUPS[@]}"; do
		read -ra specs <<< "$group"
		tcq qdisc del dev veth0 root 2>/dev/null
		batch_begin
		tcx qdisc add dev veth0 root handle 9: tbf rate 10mbit burst 10k latency 1s
		case $kind in
		dtable) tcx qdisc add dev veth0 parent 9:1 handle 1: dtable classes 4 ;;
		*)	tcx qdisc add dev veth0 parent 9:1 handle 1: $kind default 1
			for c in 1 2 3 4; do tcx class add dev veth0 parent 1: classid 1:$c $kind; done ;;
		esac
		for c in 1 2 3 4; do
			child "${specs[c - 1]}" 1:$c 1$c:
		done
		batch_run || { check_err 1 "$kind over $group: setup: $(batch_err)"; continue; }
		traffic_start 1:1 gso:1:2 1:3 gso:1:4
		wait_for 20 queued 1: || check_err 1 "$kind over $group: no queue formed"
		# children deleted and grafted again while they hold packets
		for c in 1 2 3 4; do
			tcq qdisc del dev veth0 parent 1:$c 2>/dev/null
			child "${specs[c - 1]}" 1:$c 1$c: || check_err 1 "$kind over ${specs[c - 1]}: graft again"
		done
		# classes deleted while queued (dtable's classes are fixed)
		if [ $kind != dtable ]; then
			for c in 2 3; do
				tcq class del dev veth0 classid 1:$c || check_err 1 "$kind: delete queued class 1:$c"
				tcq class add dev veth0 parent 1: classid 1:$c $kind &&
				child "${specs[c - 1]}" 1:$c 1$c: || check_err 1 "$kind: class 1:$c again"
			done
		fi
		settle "$kind over $group"
	done
	log_test "$kind over netem, tbf, codel, fq_codel, drr, hfsc, qfq"
done

# --- ours as children -------------------------------------------------------------
# Each step is one tc -batch: the tree is built, churned and rebuilt in
# fewer tc starts, and a step's commands follow each other closely, while
# the senders run between the steps
for kind in edf aoq dtable; do
	for parent in drr hfsc ets tbf netem; do
		tcq qdisc del dev veth0 root 2>/dev/null
		batch_begin
		case $parent in
		drr)	tcx qdisc add dev veth0 root handle 1: drr
			tcx class add dev veth0 parent 1: classid 1:1 drr quantum 1500
			tcx filter add dev veth0 parent 1: protocol all matchall classid 1:1 ;;
		hfsc)	tcx qdisc add dev veth0 root handle 1: hfsc default 1
			tcx class add dev veth0 parent 1: classid 1:1 hfsc sc rate 10mbit ul rate 10mbit ;;
		ets)	tcx qdisc add dev veth0 root handle 1: ets bands 2 quanta 1500 1500 priomap 0
			tcx filter add dev veth0 parent 1: protocol all matchall classid 1:1 ;;
		tbf)	tcx qdisc add dev veth0 root handle 1: tbf rate 10mbit burst 10k latency 1s ;;
		netem)	tcx qdisc add dev veth0 root handle 1: netem delay 2ms rate 10mbit limit 1000 ;;
		esac
		where="parent 1:1"
		ours $kind 5: "$where" slow
		batch_run || { check_err 1 "$kind under $parent: setup: $(batch_err)"; continue; }
		traffic_start 1:1 gso:5:2
		wait_for 20 queued 5: || check_err 1 "$kind under $parent: no queue formed in $kind"
		if [ $kind != dtable ]; then
			# one step per round: the class added again fills
			# before the next round deletes it
			for i in 1 2; do
				batch_begin
				tcx class del dev veth0 classid 5:2
				tcx class add dev veth0 parent 5: classid 5:2 $(our_class $kind)
				[ $kind = edf ] ||
					tcx qdisc replace dev veth0 parent 5:2 tbf rate 2mbit burst 3000 limit 30000
				batch_run || check_err 1 "$kind under $parent: delete a queued class, add it again: $(batch_err)"
			done
		fi
		# our qdisc deleted while it holds packets, then added again
		batch_begin
		tcx qdisc del dev veth0 $where
		ours $kind 5: "$where" slow
		batch_run || check_err 1 "$kind under $parent: delete while queued, add again: $(batch_err)"
		# the tree drains from a queue in the new qdisc
		wait_for 20 queued 5: || check_err 1 "$kind under $parent: no queue formed again"
		settle "$kind under $parent"
	done
	log_test "$kind under drr, hfsc, ets, tbf and netem"
done

exit $EXIT_STATUS
