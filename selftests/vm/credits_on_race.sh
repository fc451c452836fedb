#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# kernels: first
#
# "credits on" while GSO packets come in.  A qdisc with credits on cuts
# GSO packets at enqueue (a grant covers wire frames; no link grants 64
# KB), so credits on is refused while the qdisc holds packets.  The
# check must hold until the link is in place: a GSO packet that comes in
# after it and waits whole would block its VC for good.
#
#   [ns A] veth0 (QDISC, held back) ---> veth1 [ns B] udp-lat recv
#     udp-lat send: a UDP GSO frame of 8 datagrams every 4 ms
#
# The qdisc holds each frame about half the time between two (edf: its
# rate; dtable and aoq: a tbf child), so both the refusal and the window
# after the check come often.  Over many turns of credits on and off,
# every accepted "credits on" is followed by a look at the queue: with
# no peer granting, nothing leaves, and packets cut at enqueue are at
# most 1514 bytes, so a backlog above 1514 bytes a packet (once the
# queue has settled) means a whole GSO packet got in.
#
# The window is short: on the tree before the check under the tree lock
# (fabric_link_may_start()), of three runs with 120 to 200 dtable turns
# two let a whole GSO packet into dtable twice and one none; none ever
# into edf or aoq.  A regression check that catches the race about two
# times in three, then (with as many turns as that; in make check the
# budgets below may allow fewer).  dtable takes up to ATTEMPTS turns
# (120) in 50 s, edf and aoq a third as many in 15 s, for the paths that
# refuse and unwind: in make check, with the other VM beside it, a turn
# can take seconds, and without budgets the test ran into its 300 s
# timeout.  fq.credits_race_attempts on the kernel command line sets
# ATTEMPTS, and the budgets scale with it.  On the first kernel only:
# the race is in our modules' change paths, the same code on every
# kernel.
. ./lib.sh

require_cmd tc udp-lat
require_module sch_edf
require_module sch_dtable
require_module sch_aoq
require_module fabric_hdr
two_hosts 19 quiet

ATTEMPTS=$(fq_param credits_race_attempts 120)
FRAME_MAX=1514		# veth0's MTU 1500 and the Ethernet header

ns_bg B udp-lat recv --port 9400 --duration 3600 --ready "$TMP_DIR/ready" > /dev/null
wait_for 10 test -e "$TMP_DIR/ready" || fatal "receiver did not start"

# root_queue: "QLEN BACKLOG" of the root qdisc (tc -s -j lists it first).
# One dump reads the two at different moments (the queue length before
# the qdisc's own statistics, the backlog after), so only a queue that
# has stopped changing gives a consistent pair: root_queue_settled.
root_queue() {
	ns_exec A tc -s -j qdisc show dev veth0 | tr -d ' \n' |
		grep -o '"backlog":[0-9]*,"qlen":[0-9]*' | head -n1 |
		sed 's/"backlog":\([0-9]*\),"qlen":\([0-9]*\)/\2 \1/'
}

root_queue_is_empty() { [[ $(root_queue) == "0 0" ]]; }

# root_queue_settled: root_queue once two dumps 50 ms apart agree (with
# credits on and no peer, the queue fills until the socket's buffer or
# flow_limit stops it), empty after 4 s without
root_queue_settled() {
	local a b i

	a=$(root_queue)
	for ((i = 0; i < 80; i++)); do
		sleep 0.05
		b=$(root_queue)
		if [[ $a == "$b" ]]; then
			echo "$a"
			return
		fi
		a=$b
	done
}

# race NAME TURNS SECONDS QDISC-ARGS...: up to TURNS turns for one qdisc,
# set up by the caller, stopping after SECONDS (a loaded machine takes
# seconds a turn: the budget keeps make check's time, the turns vary)
race() {
	local name=$1 turns=$2 budget=$3 accepted=0 whole=0 i qlen backlog sender
	local start=$SECONDS busy=0 refused=0 why= out

	shift 3
	ns_bg A udp-lat send --dst 10.19.0.2 --port 9400 --size 1400 \
		--frame-bytes 11200 --frame-interval 4000 --gso --no-retry \
		--duration 3600 > /dev/null
	sender=$BG_PID
	for ((i = 0; i < turns && SECONDS - start < budget; i++)); do
		# from an empty queue, so that the turn is not refused outright
		# however loaded the machine (the frames keep coming)
		if ! wait_for 1 root_queue_is_empty; then
			busy=$((busy + 1))
			continue
		fi
		if ! out=$(ns_exec A tc qdisc change dev veth0 root handle 1: "$@" \
			credits on 2>&1); then
			refused=$((refused + 1))
			why=$out
			continue
		fi
		accepted=$((accepted + 1))
		# a read that shows no whole packet is right: the backlog is
		# read after the length, and a packet in stays in
		read -r qlen backlog <<< "$(root_queue)"
		((backlog > FRAME_MAX * qlen)) &&
			read -r qlen backlog <<< "$(root_queue_settled)"
		if [[ -z $qlen || -z $backlog ]]; then
			check_err 1 "$name: no settled qlen and backlog in tc -s -j"
			break
		fi
		if ((backlog > FRAME_MAX * qlen)); then
			whole=$((whole + 1))
			log_info "$name: turn $i: $qlen packets of $backlog bytes with credits on"
		fi
		ns_run A tc qdisc change dev veth0 root handle 1: "$@" credits off ||
			fatal "$name: credits off"
	done
	kill "$sender" 2>/dev/null
	wait "$sender" 2>/dev/null
	# how many is the machine's doing (make check on a loaded host:
	# edf 2 of 13 in 15 s), so it is reported, not checked
	log_info "$name: credits on accepted $accepted of $i times in $((SECONDS - start)) s ($busy never empty, $refused refused${why:+, last: $why})"
	check_eq "$name: turns that let a whole GSO packet in" 0 "$whole"
	ns_run A tc qdisc del dev veth0 root || fatal "$name: delete"
}

ns_run A tc qdisc add dev veth0 root handle 1: edf rate 50mbit || fatal "edf"
race edf $((ATTEMPTS / 3)) $((ATTEMPTS * 15 / 120)) edf
log_test "edf: credits on never takes a whole GSO packet in"

ns_run A tc qdisc add dev veth0 root handle 1: dtable classes 1 || fatal "dtable"
ns_run A tc qdisc add dev veth0 parent 1:1 tbf rate 50mbit burst 12000 limit 1000000 ||
	fatal "tbf under dtable"
race dtable $ATTEMPTS $((ATTEMPTS * 50 / 120)) dtable
log_test "dtable: credits on never takes a whole GSO packet in"

ns_run A tc qdisc add dev veth0 root handle 1: aoq default 1 &&
ns_run A tc class add dev veth0 parent 1: classid 1:1 aoq || fatal "aoq"
ns_run A tc qdisc add dev veth0 parent 1:1 tbf rate 50mbit burst 12000 limit 1000000 ||
	fatal "tbf under aoq"
race aoq $((ATTEMPTS / 3)) $((ATTEMPTS * 15 / 120)) aoq
log_test "aoq: credits on never takes a whole GSO packet in"

exit $EXIT_STATUS
