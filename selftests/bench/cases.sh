# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The qdiscs `make bench` measures: one entry per configuration.  An entry
# is a bench_case line and a setup function:
#
#   bench_case NAME FAMILY [PEER]
#     FAMILY  baseline  uncongested only
#             flows    measured at 1, 1,000 and 100,000 flows
#             classes  instead at several class counts (1,000 flows spread
#                      over the classes by UDP source port)
#             shuffled backlogged only, at 1,000 and 100,000 flows drawn
#                      at random per packet instead of in turn
#     PEER    the case NAME is compared with ("edf/fq")
#
#   setup_NAME DEV PARENT HANDLE CLASSES
#     print the tc commands (tc -batch lines, through tcb) that attach
#     the qdisc to DEV at PARENT ("root" or "9:1") with HANDLE ("1:"),
#     with CLASSES classes for the classes family; return 2 if the qdisc
#     cannot have that many.  The tree must hold at least 1,000,000
#     packets without dropping (the backlogged path parks up to 200,000)
#     and forward everything it is given.  One tc -batch instead of a tc
#     per class keeps the setup of 64 classes from dominating the run.
#
# A case whose setup fails on the qdisc (module missing) is reported as
# skipped.  Default children of classful qdiscs are pfifo with the device's
# txqueuelen (at most 32767) as their limit: give each class its own
# class_fifo instead.

BENCH_CASES=()
declare -A BENCH_FAMILY=() BENCH_PEER=()

bench_case()
{
	BENCH_CASES+=("$1")
	BENCH_FAMILY[$1]=$2
	BENCH_PEER[$1]=${3:-}
}

# tcb ARGS...: one tc command of a setup, as a tc -batch line
tcb() { echo "$*"; }

# classid HANDLE N: class N of qdisc HANDLE ("1:"); tc reads minors in hex
classid() { printf '%s%x' "$1" "$2"; }

# class_fifo DEV CLASSID: a pfifo child that holds the backlogged path
class_fifo()
{
	tcb qdisc add dev "$1" parent "$2" pfifo limit 1000000
}

# classes_by_port DEV HANDLE CLASSES: send each UDP source port to class
# HANDLE(1 + port % CLASSES), so consecutive ports fill every class.
classes_by_port()
{
	tcb filter add dev "$1" parent "$2" protocol ip prio 1 handle 1 \
		flow map key proto-src divisor "$3" baseclass "${2%:}:1"
}

# ---- in-tree peers -------------------------------------------------------------

# the floor, measured uncongested only: no qdisc (dummy is a no-queue device)
bench_case noqueue baseline
setup_noqueue() { :; }

bench_case pfifo flows
setup_pfifo() { tcb qdisc add dev "$1" parent "$2" handle "$3" pfifo limit 1000000; }

# fq as it comes keeps socketless packets (pktgen's) in 1024 flows by hash
bench_case fq flows
setup_fq()
{
	tcb qdisc add dev "$1" parent "$2" handle "$3" fq limit 1000000 \
		flow_limit 1000000
}

# fq with a flow per socketless hash, as edf keeps them: a reference for
# edf at 100000 flows, where plain fq folds them into 1024
bench_case fq-perflow flows
setup_fq-perflow()
{
	tcb qdisc add dev "$1" parent "$2" handle "$3" fq limit 1000000 \
		flow_limit 1000000 orphan_mask 1048575
}

# fq that turns at every packet (quantum and initial quantum of one of our
# 60-byte packets), as edf's deadlines take flows of one rate in turn: a
# reference, no peer (plain fq sends 50 packets of a flow per turn)
bench_case fq-packet flows
setup_fq-packet()
{
	tcb qdisc add dev "$1" parent "$2" handle "$3" fq limit 1000000 \
		flow_limit 1000000 quantum 60 initial_quantum 60
}

# CoDel must not drop what the backlogged path parks on purpose
bench_case fq_codel flows
setup_fq_codel()
{
	tcb qdisc add dev "$1" parent "$2" handle "$3" fq_codel limit 1000000 \
		memory_limit 1gb target 10s interval 100s
}

# etf drops packets without a transmit time in the future, and pktgen's
# carry none: a clsact egress BPF filter (txtime-stamp, pinned by
# bench_netns_setup) stamps each with now + 1000 s.  In deadline_mode etf
# sends a packet at once and only drops it once that time has passed, so
# it forwards everything here.  The filter's own cost is the case
# noqueue-stamp less noqueue; etf's figures include it.
txtime_filter()
{
	[[ -n ${BENCH_TXTIME_PIN:-} ]] || { echo "no BPF transmit-time stamper" >&2; return 1; }
	tcb qdisc add dev "$1" clsact
	tcb filter add dev "$1" egress prio 1 bpf object-pinned "$BENCH_TXTIME_PIN" \
		direct-action
}

bench_case noqueue-stamp baseline
setup_noqueue-stamp() { txtime_filter "$1"; }

bench_case etf flows
setup_etf()
{
	txtime_filter "$1" &&
	tcb qdisc add dev "$1" parent "$2" handle "$3" etf clockid CLOCK_TAI \
		delta 1000000 deadline_mode skip_sock_check
}

# drr_tree DEV PARENT HANDLE CLASSES [CLASS_OPTION...]: drr with CLASSES
# classes (their options, e.g. a quantum), fed by port
drr_tree()
{
	local i

	tcb qdisc add dev "$1" parent "$2" handle "$3" drr || return
	for ((i = 1; i <= $4; i++)); do
		tcb class add dev "$1" parent "$3" classid "$(classid "$3" "$i")" \
			drr "${@:5}" &&
		class_fifo "$1" "$(classid "$3" "$i")" || return
	done
	classes_by_port "$1" "$3" "$4"
}

bench_case drr classes
setup_drr() { drr_tree "$@"; }

# drr that turns at every packet (our packets are 60 bytes), as rr and
# sbt's default table do: what drr's own cost is at their turn (a
# reference, no peer)
bench_case drr-packet classes
setup_drr-packet() { drr_tree "$@" quantum 60; }

# ets has at most 16 bands; all of them quantum bands here
bench_case ets classes
setup_ets()
{
	local i quanta=()

	(($4 <= 16)) || return 2
	for ((i = 1; i <= $4; i++)); do
		quanta+=(1514)
	done
	tcb qdisc add dev "$1" parent "$2" handle "$3" ets bands "$4" \
		quanta "${quanta[@]}" || return
	for ((i = 1; i <= $4; i++)); do
		class_fifo "$1" "$(classid "$3" "$i")" || return
	done
	classes_by_port "$1" "$3" "$4"
}

bench_case hfsc classes
setup_hfsc()
{
	local i

	tcb qdisc add dev "$1" parent "$2" handle "$3" hfsc || return
	for ((i = 1; i <= $4; i++)); do
		tcb class add dev "$1" parent "$3" classid "$(classid "$3" "$i")" hfsc \
			ls rate 100mbit && class_fifo "$1" "$(classid "$3" "$i")" || return
	done
	classes_by_port "$1" "$3" "$4"
}

# ---- ours ---------------------------------------------------------------------

# One regulated per-flow class for everything.  At 400gbit, far above what
# pktgen reaches, a flow's last deadline has passed when its packet leaves,
# so uncongested flows are collected and made again.
bench_case edf flows fq
setup_edf()
{
	tcb qdisc add dev "$1" parent "$2" handle "$3" edf limit 1000000 \
		flow_limit 1000000 flows 1048576 default 1 &&
	tcb class add dev "$1" parent "$3" classid "${3%:}:1" edf \
		rate 400gbit perflow on
}

# deadlines 10 s ahead ("frame 10s"): no flow is ever collected
bench_case edf-kept flows fq
setup_edf-kept()
{
	tcb qdisc add dev "$1" parent "$2" handle "$3" edf limit 1000000 \
		flow_limit 1000000 flows 1048576 default 1 &&
	tcb class add dev "$1" parent "$3" classid "${3%:}:1" edf \
		frame 10s perflow on
}

# pfifo, fq and edf fed flows in no order (pktgen draws each packet's ports
# at random): a backlogged flow's next packet arrived among other flows'
# packets, so edf's flow comes back out of order, behind some flows and
# ahead of others, and goes through the tree behind its run
# (core/runheap.h).  fq's round robin does not care about the order.
# pfifo-shuffled is their floor: pktgen's draw costs every packet.
bench_case pfifo-shuffled shuffled
setup_pfifo-shuffled() { setup_pfifo "$@"; }

bench_case fq-shuffled shuffled
setup_fq-shuffled() { setup_fq "$@"; }

bench_case edf-shuffled shuffled fq-shuffled
setup_edf-shuffled() { setup_edf "$@"; }

# dtable_tree MODE DEV PARENT HANDLE CLASSES [TABLE]: dtable's default
# table (one entry per class) or TABLE, its classes fed by port like drr's
dtable_tree()
{
	local mode=$1 i

	shift
	tcb qdisc add dev "$1" parent "$2" handle "$3" dtable classes "$4" \
		mode "$mode" ${5:+table $5} || return
	for ((i = 1; i <= $4; i++)); do
		class_fifo "$1" "$(classid "$3" "$i")" || return
	done
	classes_by_port "$1" "$3" "$4"
}

bench_case dtable classes drr
setup_dtable() { dtable_tree dtable "$@"; }

bench_case dtable-sbt classes drr
setup_dtable-sbt() { dtable_tree sbt "$@"; }

# sbt with drr's turn: entries of 25 packets, the 1514 bytes of drr's
# default quantum (and of dtable's default entry) in our 60-byte packets
bench_case dtable-sbt25 classes drr
setup_dtable-sbt25()
{
	local table="" i

	for ((i = 0; i < $4; i++)); do
		table+="${table:+ }$i:25"
	done
	dtable_tree sbt "$@" "$table"
}

bench_case dtable-rr classes drr
setup_dtable-rr() { dtable_tree rr "$@"; }

# aoq_tree MODE DEV PARENT HANDLE CLASSES: lanes of equal weight; every
# packet a message of its own (no GSO, no fabric header)
aoq_tree()
{
	local mode=$1 i

	shift
	tcb qdisc add dev "$1" parent "$2" handle "$3" aoq mode "$mode" || return
	for ((i = 1; i <= $4; i++)); do
		tcb class add dev "$1" parent "$3" classid "$(classid "$3" "$i")" aoq &&
		class_fifo "$1" "$(classid "$3" "$i")" || return
	done
	classes_by_port "$1" "$3" "$4"
}

bench_case aoq classes drr
setup_aoq() { aoq_tree aoq "$@"; }

bench_case aoq-fbrr classes drr
setup_aoq-fbrr() { aoq_tree fbrr "$@"; }

# ---- under mq: one instance per transmit queue ---------------------------------
#
# A 4-queue dummy (MQ_DEV, made by bench_netns_setup) with mq at the root
# and one instance of the inner case per queue.  The stack picks each
# packet's queue by its flow hash (pktgen's packets have no socket), so the
# flows spread over the queues and the hash is computed before any qdisc:
# mq-noqueue, the same device without a qdisc, is the floor of these cases.
# Family mq: by flows; mq-classes: the inner qdisc with MQ_CLASSES classes
# per instance, at 1,000 flows.  Uncongested only (a tbf cannot sit above
# mq to park the backlog).
MQ_DEV=mq0
MQ_QUEUES=4
MQ_CLASSES=4

# bench_case_dev CASE: the device CASE runs on
bench_case_dev()
{
	if [[ ${BENCH_FAMILY[$1]:-} == mq* ]]; then
		echo "$MQ_DEV"
	else
		echo dummy0
	fi
}

# bench_case_has_path CASE PATH: is CASE measured on PATH (uncongested or
# backlogged)?  A baseline is measured uncongested only, and so is mq: it is
# a root qdisc, so no tbf above it can park a backlog.  A shuffled case is
# measured backlogged only: uncongested, each packet leaves alone, in any
# order.
bench_case_has_path()
{
	case $2 in
	uncongested) [[ ${BENCH_FAMILY[$1]+set} && ${BENCH_FAMILY[$1]} != shuffled ]] ;;
	backlogged) [[ ${BENCH_FAMILY[$1]+set} && ${BENCH_FAMILY[$1]} != baseline &&
		       ${BENCH_FAMILY[$1]} != mq* ]] ;;
	*) return 1 ;;
	esac
}

# mq_tree INNER DEV PARENT HANDLE CLASSES
mq_tree()
{
	local inner=$1 q

	shift
	[[ $2 == root ]] || { echo "mq is a root qdisc only" >&2; return 1; }
	tcb qdisc add dev "$1" root handle "$3" mq || return
	for ((q = 1; q <= MQ_QUEUES; q++)); do
		"setup_$inner" "$1" "$(classid "$3" "$q")" "$((q + 10)):" "$4" || return
	done
}

# bench_case_order CASE: the order pktgen sends CASE's flows in, "turn" or
# "random" (pg_config)
bench_case_order()
{
	if [[ ${BENCH_FAMILY[$1]:-} == shuffled ]]; then
		echo random
	else
		echo turn
	fi
}

# the device's own default on every queue: noqueue (dummy has no queue)
bench_case mq-noqueue mq
setup_mq-noqueue() { :; }

bench_case mq-fq mq
setup_mq-fq() { mq_tree fq "$@"; }

bench_case mq-edf mq mq-fq
setup_mq-edf() { mq_tree edf "$@"; }

bench_case mq-drr mq-classes
setup_mq-drr() { mq_tree drr "$@"; }

bench_case mq-dtable mq-classes mq-drr
setup_mq-dtable() { mq_tree dtable "$@"; }

bench_case mq-aoq mq-classes mq-drr
setup_mq-aoq() { mq_tree aoq "$@"; }
