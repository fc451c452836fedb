#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
# slow-timeout: 1800
# (on the 6.12 debug kernel the parts before the last took 980 s)
#
# fbs configuration: what is required, defaults, every bad value refused
# with its extack message and the qdisc left as it was; the table shown
# as tc reads it (runs as W*K) and in JSON; classes with their slot
# counts; a change of table, slot, drift and limit; packets for a class
# the table gives no slot and packets above "frame" dropped and counted;
# classes refuse children; a GSO send is queued as wire frames, and one
# a filter shoots is answered as a plain datagram would be; the
# qdisc deleted and the module unloaded while traffic flows; pause holds
# the schedule until "pause off" or a restart; a table of any length
# leaves the qdisc in every dump; a change keeps the clock's phase;
# under mq, fbs has the device's credits alone.
#
#   [ns C] dummy0 (fbs 1:)                        configuration only
#   [ns A] veth0: fbs 1: -------------------------> veth1 [ns B] udp-lat recv
#     10.23.0.1/24                                   10.23.0.2/24
. ./lib.sh

require_cmd tc udp-lat fbs-sched fbs-boot mac-flood
require_module sch_fbs
require_module sch_edf

ns_create C
ns_run C ip link add dummy0 type dummy || fatal "no dummy device"
# no IPv6 of its own (router solicitations, MLD): what the qdisc counts
# is what the test sends, however slowly the kernel runs
ns_exec C sysctl -qw net.ipv6.conf.dummy0.disable_ipv6=1
ns_run C ip link set dummy0 up

tcq() { ns_exec C tc "$@"; }
qdisc_text() { tcq qdisc show dev dummy0 | grep 'fbs'; }
json() { tcq -j "$@" | tr -d ' \n'; }

accept() {
	local desc=$1 out; shift
	out=$(tcq "$@" 2>&1)
	check_err $? "$desc: rejected: $out"
}

# reject DESC MSG_REGEX ARGS...: tc fails saying MSG, the qdisc stays
reject() {
	local desc=$1 msg=$2 out before; shift 2
	before=$(qdisc_text)
	out=$(tcq "$@" 2>&1)
	check_fail $? "$desc: accepted"
	if [ -n "$msg" ] && ! echo "$out" | grep_quiet -E "$msg"; then
		check_err 1 "$desc: message '$out' does not match '$msg'"
	fi
	check_eq "$desc: qdisc after the refusal" "$before" "$(qdisc_text)"
}

A="qdisc add dev dummy0 root handle 1: fbs"
reject "no dests" "dests N.* is required" $A slot 100us
reject "no slot" "slot TIME.*is required" $A dests 2
reject "dests 0" "Illegal \"dests\"" $A dests 0 slot 100us
reject "dests 65" "Illegal \"dests\"" $A dests 65 slot 100us
reject "slot too short" "want 1us to 1s" $A dests 2 slot 999ns
reject "slot too long" "want 1us to 1s" $A dests 2 slot 2s
reject "a slot for a missing destination" "names a destination that does not exist" \
	$A dests 2 slot 100us table 0 1 2
reject "too many slots" "too many slots" $A dests 2 slot 100us table "0*32001"
reject "drift too large" "Illegal \"drift\"" $A dests 2 slot 100us drift 100001
reject "frame too small" "Illegal \"frame\"" $A dests 2 slot 100us frame 59
reject "rate without frame" "needs \"frame\"" $A dests 2 rate 10mbit
reject "a frame longer than a slot at the rate" "largest frame takes longer than a slot at this rate" \
	$A dests 2 slot 100us rate 10mbit frame 1500
reject "bad table word" "is not a destination" $A dests 2 slot 100us table 0 5*0
check_eq "no qdisc after the refusals" "" "$(qdisc_text)"
log_test "required options, ranges and bad tables refused with a reason"

accept "defaults" $A dests 3 slot 120us
qdisc_text | grep_quiet "fbs 1: root .*dests 3 slot 120us drift 0ppm frame 1514 limit 1000 slots 4 node 0 verify off delay 0[a-z]* table 0 1 2 - " ||
	check_err 1 "defaults: $(qdisc_text)"
check_eq "classes: three destinations and best effort" 4 \
	"$(tcq class show dev dummy0 | grep -c 'class fbs 1:')"
tcq class show dev dummy0 classid 1:4 | grep_quiet "slots 1" ||
	check_err 1 "best effort's class: $(tcq class show dev dummy0 classid 1:4)"
log_test "defaults: a slot per destination, then one unreserved"

Q="qdisc change dev dummy0 root handle 1: fbs"
accept "a table" $Q table 0 -*3 1*2 x*2 -*998 2 drift -12.5 limit 50
qdisc_text | grep_quiet "slot 120us drift -12.500ppm frame 1514 limit 50 slots 1007 node 0 verify off delay 0[a-z]* table 0 -\*3 1\*2 x\*2 -\*998 2 " ||
	check_err 1 "the table: $(qdisc_text)"
j=$(json qdisc show dev dummy0)
[[ $j == *'"slot":120000,"drift_ppb":-12500,"frame":1514,"limit":50,"slots":1007,"node":0,"verify":false,"delay":0,"pause":false,"table":[0,-1,-1,-1,1,1,-2,-2,-1,'* ]]
check_err $? "tc -j: $j"
tcq class show dev dummy0 classid 1:2 | grep_quiet "slots 2" ||
	check_err 1 "class 1:2: $(tcq class show dev dummy0 classid 1:2)"
tcq class show dev dummy0 classid 1:4 | grep_quiet "slots 1001" ||
	check_err 1 "class 1:4: $(tcq class show dev dummy0 classid 1:4)"
accept "rate and frame make the slot" $Q rate 100mbit frame 1250
qdisc_text | grep_quiet "slot 100us drift -12.500ppm frame 1250" ||
	check_err 1 "slot from the rate: $(qdisc_text)"
# a slot longer than a frame at the link's rate (room for the credits' way back)
accept "slot and rate" $Q slot 1250us rate 10mbit
qdisc_text | grep_quiet "slot 1.25ms drift -12.500ppm frame 1250 .* rate 10Mbit table " ||
	check_err 1 "slot and rate: $(qdisc_text)"
[[ $(json qdisc show dev dummy0) == *'"rate":1250000,'* ]]
check_err $? "tc -j: the rate in bytes/s: $(json qdisc show dev dummy0)"
# the link's round trip is learnt from credits: without them it is 0,
# not the cap a slot leaves (1250 us less a frame's 1000 at this rate)
check_eq "credits off: link_trip_ns" 0 "$(json_u64 "$(json -s qdisc show dev dummy0)" link_trip_ns)"
reject "a slower rate than the frame fits" "largest frame takes longer than a slot at this rate" \
	$Q slot 1250us rate 1mbit
# a change of the rate alone keeps the slot (it was refused for want of
# a frame to make a slot of); the drift as tc shows it is taken back
accept "rate alone" $Q rate 20mbit
qdisc_text | grep_quiet "slot 1.25ms drift -12.500ppm frame 1250 .* rate 20Mbit table " ||
	check_err 1 "rate alone: $(qdisc_text)"
accept "drift as shown" $Q drift -12.500ppm
reject "drift in other units" "Illegal \"drift\"" $Q drift 12ppb
reject "a word given twice" "\"limit\" is given twice" $Q limit 50 limit 60
reject "dests changed" "cannot change" $Q dests 4
reject "a change naming a missing destination" "does not exist" $Q table 3
accept "credits on a dummy device" $Q credits on
tcq qdisc show dev dummy0 | grep_quiet "credits on credit_unit 64" ||
	check_err 1 "credits: $(qdisc_text)"
accept "credits off" $Q credits off
log_test "change: table (W*K runs, silent slots, JSON), slot from rate and frame, slot and rate, rate alone, drift, limit, credits"

# Under mq the children share the device's credit link; fbs times its
# slots by its own frames' credits, so it takes the link alone, whichever
# child came first.
ns_run C ip link add dummymq numtxqueues 2 numrxqueues 2 type dummy || fatal "dummymq"
ns_exec C sysctl -qw net.ipv6.conf.dummymq.disable_ipv6=1
ns_run C ip link set dummymq up
# refused DESC MSG_REGEX ARGS...: tc fails saying MSG
refused() {
	local desc=$1 msg=$2 out; shift 2
	out=$(tcq "$@" 2>&1)
	check_fail $? "$desc: accepted"
	echo "$out" | grep_quiet -E "$msg" ||
		check_err 1 "$desc: message '$out' does not match '$msg'"
}
M1="qdisc add dev dummymq parent 1:1 handle 11:"
M2="qdisc add dev dummymq parent 1:2 handle 12:"
FBS="fbs dests 1 slot 1ms"
tcq qdisc add dev dummymq root handle 1: mq || fatal "mq"
accept "fbs with credits under mq" $M1 $FBS credits on
refused "a second fbs with credits" "fbs qdisc has this device's credits" $M2 $FBS credits on
refused "an edf with credits beside fbs" "fbs qdisc has this device's credits" $M2 edf credits on
accept "fbs without credits beside it" $M2 $FBS
tcq qdisc del dev dummymq root
tcq qdisc add dev dummymq root handle 1: mq || fatal "mq again"
accept "edf with credits under mq" $M1 edf credits on
refused "fbs with credits beside edf's" "another qdisc of this device has credits on" \
	$M2 $FBS credits on
accept "fbs without credits beside edf's" $M2 $FBS
refused "credits on by a change beside edf's" "another qdisc of this device has credits on" \
	qdisc change dev dummymq parent 1:2 handle 12: fbs credits on
# with edf gone the link is free again
tcq qdisc del dev dummymq root
tcq qdisc add dev dummymq root handle 1: mq || fatal "mq a third time"
accept "fbs with credits once the link is free" $M2 $FBS credits on
tcq qdisc del dev dummymq root
# a replace makes the new qdisc while the old one has the link
tcq qdisc add dev dummymq root handle 1: edf credits on || fatal "edf at the root"
refused "edf replaced by fbs, credits on in both" "one this replaces included" \
	qdisc replace dev dummymq root $FBS credits on
tcq qdisc change dev dummymq root handle 1: edf credits off || fatal "edf credits off"
accept "edf without credits replaced by fbs with them" qdisc replace dev dummymq root \
	$FBS credits on
refused "fbs replaced by edf, credits on in both" "to replace it, turn its credits off" \
	qdisc replace dev dummymq root edf credits on
tcq qdisc del dev dummymq root
ns_run C ip link del dummymq
log_test "credits under mq: fbs's link is its alone"

out=$(tcq qdisc add dev dummy0 parent 1:1 handle 10: pfifo 2>&1)
check_fail $? "a child grafted under an fbs class"
echo "$out" | grep_quiet "take no child qdisc" || check_err 1 "graft refused without a reason: $out"
out=$(tcq class add dev dummy0 parent 1: classid 1:9 fbs 2>&1)
check_fail $? "a class added"
tcq -s qdisc show dev dummy0 | grep_quiet "slots [0-9]* stalls 0 stall_ns 0 reserved_frames 0" ||
	check_err 1 "tc -s: $(tcq -s qdisc show dev dummy0)"
accept "delete" qdisc del dev dummy0 root
log_test "classes take no children and no options; tc -s shows the counters"

# verification: node, verify, delay; restart only by change; one per device
reject "restart on a new qdisc" "is for a change" $A dests 2 slot 100us restart
reject "node 64" "Illegal \"node\"" $A dests 2 slot 100us node 64
reject "verify maybe" "Illegal \"verify\"" $A dests 2 slot 100us verify maybe
accept "node, verify, delay" $A dests 2 slot 100us node 5 verify on delay 200us
qdisc_text | grep_quiet "node 5 verify on delay 200us" || check_err 1 "verify: $(qdisc_text)"
accept "restart" qdisc change dev dummy0 root handle 1: fbs restart
tcq -s qdisc show dev dummy0 | grep_quiet "restarts 1 boot_frames 0 boot_refused 0 tagged 0" ||
	check_err 1 "restarts: $(tcq -s qdisc show dev dummy0)"
# fbs-boot's messages go outside the schedule: its EtherType, 12 bytes
# after the Ethernet header at least, 60 in all at most; the rest of that
# type is refused and counted (frames here: 26, 60; 25, 61, 100)
for len in 26 60; do
	ns_exec C mac-flood -i dummy0 --ethertype 0x88b6 --len $len > /dev/null ||
		check_err 1 "mac-flood --len $len"
done
# a refusal is a drop the sender hears of (ENOBUFS)
for len in 25 61 100; do
	ns_exec C mac-flood -i dummy0 --ethertype 0x88b6 --len $len > /dev/null 2>&1 &&
		check_err 1 "mac-flood --len $len: not refused"
done
tcq -s qdisc show dev dummy0 | grep_quiet "boot_frames 2 boot_refused 3 " ||
	check_err 1 "fbs-boot's frames: $(tcq -s qdisc show dev dummy0)"
# a start signal's time (fbs-boot --follow) must be of the last minute:
# a host may take the signal a whole ring round before it restarts (on a
# debug kernel, 33 s; a bound of a second failed fbs-boot there).  Each
# time is read just before its command, and the one to come is 30 s
# ahead: on the debug kernel the two commands before it took more than
# 5 s, and a time read before them, 5 s ahead, was past when it came.
real_ns_in() { echo $(( ($(date +%s) + $1) * 1000000000 )); }
accept "restart at, seconds ago" \
	qdisc change dev dummy0 root handle 1: fbs restart at "$(real_ns_in -5)"
reject "restart at, minutes ago" "not within the last minute" \
	qdisc change dev dummy0 root handle 1: fbs restart at "$(real_ns_in -120)"
reject "restart at, to come" "not within the last minute" \
	qdisc change dev dummy0 root handle 1: fbs restart at "$(real_ns_in 30)"
reject "restart at, not a number" "want CLOCK_REALTIME in ns" \
	qdisc change dev dummy0 root handle 1: fbs restart at -5
reject "restart and pause on" "ends a pause: not both" \
	qdisc change dev dummy0 root handle 1: fbs pause on restart
reject "pause maybe" "Illegal \"pause\"" qdisc change dev dummy0 root handle 1: fbs pause maybe
accept "verify off" qdisc change dev dummy0 root handle 1: fbs verify off
accept "delete" qdisc del dev dummy0 root
ns_run C ip link add dummy1 numtxqueues 2 type dummy || fatal "a dummy with two queues"
ns_run C tc qdisc add dev dummy1 root handle 1: mq || fatal "mq"
accept "fbs verifying under mq" qdisc add dev dummy1 parent 1:1 fbs dests 2 slot 100us verify on
out=$(tcq qdisc add dev dummy1 parent 1:2 fbs dests 2 slot 100us verify on 2>&1)
check_fail $? "two qdiscs verifying on one device"
echo "$out" | grep_quiet "verifies slots already" || check_err 1 "no reason: $out"
accept "the second without verify" qdisc add dev dummy1 parent 1:2 fbs dests 2 slot 100us
ns_run C ip link del dummy1
# the tag is a fabric header after an Ethernet one: a tun device's
# packets begin with their IP header, whose bytes 12 and 13 (an IPv6
# source address, an IPv4 one) read as an EtherType the header was
# pushed in front of
require_module tun
ns_run C ip tuntap add dev tun0 mode tun || fatal "tun0"
out=$(tcq qdisc add dev tun0 root handle 1: fbs dests 2 slot 100us verify on 2>&1)
check_fail $? "verify on a tun device"
echo "$out" | grep_quiet "verify needs an Ethernet device" || check_err 1 "tun0: no reason: $out"
accept "fbs on a tun device, not verifying" qdisc add dev tun0 root handle 1: fbs dests 2 slot 100us
out=$(tcq qdisc change dev tun0 root handle 1: fbs verify on 2>&1)
check_fail $? "verify turned on on a tun device"
echo "$out" | grep_quiet "verify needs an Ethernet device" || check_err 1 "tun0 change: no reason: $out"
ns_run C ip link del tun0
log_test "verify: node, delay, restart by change only (at a time of the last minute), one verifying qdisc per device, Ethernet only"

# what fbs-sched prints for a node, tc takes as it is
fbs-sched all-to-all 4 --drift-ppm 300 > "$TMP_DIR/sched" || fatal "fbs-sched all-to-all"
fbs-sched tc "$TMP_DIR/sched" --node C --slot 120us --dev dummy0 --mac 02:fa:00:00:00:00 \
	--credits > "$TMP_DIR/c.tc" || fatal "fbs-sched tc"
tcq -b "$TMP_DIR/c.tc"
check_err $? "tc -b of fbs-sched's commands: $(head -c 300 "$TMP_DIR/c.tc")"
qdisc_text | grep_quiet "dests 4 slot 120us drift 0ppm .* slots 1666 .*table 2 3 0 1 -\*1662 .*credits on" ||
	check_err 1 "node C's qdisc: $(qdisc_text)"
check_eq "node C's filters, one per destination" 4 \
	"$(tcq filter show dev dummy0 parent 1: | grep -c 'classid 1:[1-4]')"
accept "delete" qdisc del dev dummy0 root
log_test "fbs-sched tc: a node's column, classes and filters, as tc -b takes them"

# A table of any length: the qdisc is in every dump, with the table when
# it fits beside the statistics, which come after it, and its slot count
# always; and a qdisc dumped after it is there too.  The lengths cover
# where the table fits a first dump buffer of a page but its statistics
# (800 bytes, written twice) do not, and the same in 32 KiB buffers.
# The qdisc went missing (a8c0f5a) for about 900 to 1500 slots in a page
# and 15300 to 15900 in 32 KiB: lengths 200 slots (400 bytes) apart put
# three in each window, and two in one half as wide (a margin short by
# one of the two copies of the statistics).
ns_run C ip link add dummy2 type dummy && ns_run C ip link set dummy2 up ||
	fatal "dummy2"
ns_run C tc qdisc add dev dummy2 root handle 2: pfifo limit 7 || fatal "pfifo on dummy2"
missing=
for n in 1 600 800 1000 1200 1400 1600 2000 8000 \
	 15000 15200 15400 15600 15800 16000 16300 32000; do
	tcq qdisc replace dev dummy0 root handle 1: fbs dests 2 slot 100us table "0*$n" ||
		{ check_err 1 "a table of $n slots"; continue; }
	tcq qdisc show dev dummy0 | grep_quiet "fbs 1: .*slots $n " || missing+=" $n(show)"
	tcq -s qdisc show dev dummy0 | grep_quiet "slots $n " || missing+=" $n(-s)"
	tcq -s -j qdisc show dev dummy0 | tr -d ' \n' | grep_quiet '"slots":'"$n," ||
		missing+=" $n(-j)"
	tcq qdisc show | grep_quiet "pfifo 2: .*limit 7p" || missing+=" $n(after)"
done
check_eq "table lengths whose qdisc a dump left out" "" "$missing"
tcq qdisc replace dev dummy0 root handle 1: fbs dests 2 slot 100us table "0*600" 1 ||
	check_err 1 "a table of 601 slots"
qdisc_text | grep_quiet "table 0\*600 1 " || check_err 1 "a table that fits not shown: $(qdisc_text)"
accept "delete" qdisc del dev dummy0 root
ns_run C ip link del dummy2
log_test "a table of any length: the qdisc, and the next one, in every dump"

# A change keeps the clock's phase.  An idle qdisc runs its clock only
# when it sends, so its current slot is the one it was made in; a change
# of drift or slot brings it to now by the old length first, else the
# time since would be counted in slots of the new one.  Read from the
# qdisc's own slot and slot_start_ns (CLOCK_MONOTONIC), not timed here.
# Running, the change's own run of the qdisc may step a slot or two at
# the new length before the read: the drift, 37 ppm, makes those 37 ns
# a slot off the old grid, within the 1 us allowed, and all of a
# second's slots at the new length (the bug) 37 us off.  Paused, nothing
# steps the clock, and the new slot, 1234567 ns, is no multiple of the
# old.
xs() {
	local j k
	j=$(tcq -s -j qdisc show dev dummy0 | tr -d ' \n')
	V=()
	for k in "$@"; do
		# the last one: the statistics come after the options
		if [[ $j =~ .*\"$k\":([0-9]+) ]]; then V+=("${BASH_REMATCH[1]}")
		else check_err 1 "no $k in $j"; V+=(0); fi
	done
}
# within 1 us of whole slots of LEN_NUM / LEN_DEN ns from T_FROM to T_TO,
# and at the slot that many on from SLOT_FROM (8 slots): phase DESC ...
phase() {
	local desc=$1 from=$2 to=$3 num=$4 den=$5 s_from=$6 s_to=$7 k off
	k=$((((to - from) * den + num / 2) / num))
	off=$((to - from - k * num / den))
	[ "${off#-}" -lt 1000 ] && [ $k -ge 500 ]
	check_err $? "$desc: $k slots of $num/$den ns and $off ns since the last read ($from -> $to)"
	check_eq "$desc: the slot it is in" $(((s_from + k) % 8)) "$s_to"
}
accept "a clock of 1 ms slots" qdisc add dev dummy0 root handle 1: fbs dests 2 slot 1ms \
	table 0 1 - x - 1 0 -
xs slot slot_start_ns; s0=${V[0]} t0=${V[1]}
sleep 1
accept "drift 37 ppm" qdisc change dev dummy0 root handle 1: fbs drift 37
xs slot slot_start_ns; s1=${V[0]} t1=${V[1]}
phase "idle, then drift changed" "$t0" "$t1" 1000000 1 "$s0" "$s1"
sleep 1
# slots of 1 ms on a clock 37 ppm fast: 10^15 / (10^9 + 37000) ns
accept "limit" qdisc change dev dummy0 root handle 1: fbs limit 500
xs slot slot_start_ns; s2=${V[0]} t2=${V[1]}
phase "then at the new length" "$t1" "$t2" 1000000000000000 1000037000 "$s1" "$s2"
accept "pause on" qdisc change dev dummy0 root handle 1: fbs pause on
xs slot slot_start_ns; s3=${V[0]} t3=${V[1]}
sleep 1
accept "paused, slot 1234567ns" qdisc change dev dummy0 root handle 1: fbs slot 1234567ns
xs slot slot_start_ns; s4=${V[0]} t4=${V[1]}
phase "paused, then slot changed" "$t3" "$t4" 1000000000000000 1000037000 "$s3" "$s4"
accept "delete" qdisc del dev dummy0 root
log_test "a change of drift or slot keeps the clock's phase, idle or paused"

# ---- traffic ------------------------------------------------------------------
two_hosts 23 quiet
DST=10.23.0.2
ns_bg B udp-lat recv --port 9000 --duration 3600 > /dev/null
tca() { ns_exec A tc "$@"; }
xstat() { tca -s -j qdisc show dev veth0 | tr -d ' \n' | sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"; }
# a class's own counter (tc prints classes as text only): "packets N bytes N drops N"
cstat() { tca -s class show dev veth0 classid "$1" | sed -n "s/.* $2 \([0-9]*\).*/\1/p" | tail -n1; }

# destination 1 (class 1:2) has no slot: its packets are dropped, counted
tca qdisc add dev veth0 root handle 1: fbs dests 2 slot 200us table 0 - - frame 1000 ||
	fatal "fbs on veth0"
ns_exec A udp-lat send --dst $DST --port 9000 --size 500 --count 20 --rate 1000 \
	--prio 1:2 --no-retry > /dev/null 2>&1
check_eq "no_slot" 20 "$(xstat no_slot)"
check_eq "class 1:2 drops" 20 "$(cstat 1:2 drops)"
# above "frame": 1000 bytes at most, a 1200-byte datagram is 1214 on the wire
ns_exec A udp-lat send --dst $DST --port 9000 --size 1200 --count 10 --rate 1000 \
	--no-retry > /dev/null 2>&1
check_eq "oversize" 10 "$(xstat oversize)"
# what fits goes, best effort in the unreserved slots, 1:1 in its own
ns_exec A udp-lat send --dst $DST --port 9000 --size 500 --count 30 --rate 1000 \
	--prio 1:1 --no-retry > /dev/null 2>&1
ns_exec A udp-lat send --dst $DST --port 9000 --size 500 --count 30 --rate 1000 \
	--no-retry > /dev/null 2>&1
wait_for 10 eval '[ "$(xstat qlen)" = 0 ]'
check_eq "reserved_frames: class 1:1's" 30 "$(xstat reserved_frames)"
check_eq "unreserved_frames: best effort's" 30 "$(xstat unreserved_frames)"
check_eq "class 1:1 packets" 30 "$(cstat 1:1 packets)"
check_eq "class 1:3 packets" 30 "$(cstat 1:3 packets)"
log_test "a class without a slot and frames above \"frame\" dropped and counted; the rest sent"

# a change that lowers "frame" drops what is queued above it: such a frame
# would run past its slot (they were once kept and sent)
tca qdisc del dev veth0 root
tca qdisc add dev veth0 root handle 1: fbs dests 1 slot 200us table 0 - || fatal "fbs, frame"
tca qdisc change dev veth0 root handle 1: fbs pause on || fatal "pause on"
ns_exec A udp-lat send --dst $DST --port 9000 --size 1200 --count 5 --rate 1000 \
	--prio 1:1 --no-retry > /dev/null 2>&1
ns_exec A udp-lat send --dst $DST --port 9000 --size 300 --count 5 --rate 1000 \
	--prio 1:1 --no-retry > /dev/null 2>&1
check_eq "queued while paused" 10 "$(xstat qlen)"
tca qdisc change dev veth0 root handle 1: fbs frame 1000 || check_err 1 "frame 1000"
check_eq "oversize after frame 1000" 5 "$(xstat oversize)"
check_eq "queued after frame 1000" 5 "$(xstat qlen)"
check_eq "class 1:1 drops" 5 "$(cstat 1:1 drops)"
tca qdisc change dev veth0 root handle 1: fbs pause off || check_err 1 "pause off"
wait_for 10 eval '[ "$(xstat qlen)" = 0 ]'
check_eq "class 1:1 packets: the short ones" 5 "$(cstat 1:1 packets)"
log_test "frames queued above a lowered \"frame\" dropped and counted"

# GSO: a 30 KB UDP send leaves as wire frames, each in a slot of its own
tca qdisc del dev veth0 root
tca qdisc add dev veth0 root handle 1: fbs dests 1 slot 100us table - || fatal "fbs again"
ns_exec A udp-lat send --dst $DST --port 9000 --size 1400 --frame-bytes 28000 \
	--frame-interval 20000 --gso --count 1 --no-retry > /dev/null 2>&1
wait_for 10 eval '[ "$(xstat qlen)" = 0 ]'
check_eq "segments sent, one per slot" 20 "$(xstat unreserved_frames)"
log_test "a GSO send is queued as its wire frames"

# a filter that shoots every frame of a GSO send: the sender is answered as
# for a plain datagram shot (success; the qdisc counts the drops), not with
# ENOBUFS, which every such send once got (udp-lat's dropped=)
refused() { sed -n 's/.* dropped=\([0-9]*\).*/\1/p'; }
tca filter add dev veth0 parent 1: protocol ip prio 1 u32 match ip dport 9001 0xffff \
	action drop || fatal "the dropping filter"
d0=$(xstat drops)
out=$(ns_exec A udp-lat send --dst $DST --port 9001 --size 1000 --count 5 --no-retry)
check_eq "plain datagrams shot: refused to the sender" 0 "$(refused <<< "$out")"
out=$(ns_exec A udp-lat send --dst $DST --port 9001 --size 1000 --frame-bytes 4000 \
	--frame-interval 1000 --gso --count 5 --no-retry)
check_eq "GSO sends shot: refused to the sender" 0 "$(refused <<< "$out")"
# 5 datagrams and 5 x 4 frames, each counted once
check_eq "drops counted by the qdisc" 25 "$(($(xstat drops) - d0))"
log_test "a GSO send whose frames a filter drops is answered as a datagram would be"

# pause (fbs-boot's ring): nothing scheduled leaves until "pause off" or
# a restart, and the queues keep what comes meanwhile
qtext() { tca qdisc show dev veth0 root; }
tca qdisc del dev veth0 root
tca qdisc add dev veth0 root handle 1: fbs dests 1 slot 100us table - pause on ||
	fatal "fbs created paused"
qtext | grep_quiet "pause on" || check_err 1 "not shown paused: $(qtext)"
check_eq "JSON pause" '"pause":true' "$(tca -j qdisc show dev veth0 root | tr -d ' \n' | grep -o '"pause":[a-z]*')"
ns_exec A udp-lat send --dst $DST --port 9000 --size 500 --count 20 --rate 1000 \
	--no-retry > /dev/null 2>&1
sleep 0.2
check_eq "frames sent while paused" 0 "$(xstat unreserved_frames)"
check_eq "queued while paused" 20 "$(xstat qlen)"
tca qdisc change dev veth0 root handle 1: fbs pause off || check_err 1 "pause off"
wait_for 10 eval '[ "$(xstat qlen)" = 0 ]'
check_eq "sent after pause off" 20 "$(xstat unreserved_frames)"
qtext | grep_quiet "pause on" && check_err 1 "still shown paused: $(qtext)"
tca qdisc change dev veth0 root handle 1: fbs pause on || check_err 1 "pause on"
ns_exec A udp-lat send --dst $DST --port 9000 --size 500 --count 10 --rate 1000 \
	--no-retry > /dev/null 2>&1
sleep 0.2
check_eq "no more sent while paused again" 20 "$(xstat unreserved_frames)"
tca qdisc change dev veth0 root handle 1: fbs restart || check_err 1 "restart"
wait_for 10 eval '[ "$(xstat qlen)" = 0 ]'
check_eq "sent after the restart, which ends the pause" 30 "$(xstat unreserved_frames)"
check_eq "JSON pause after the restart" '"pause":false' \
	"$(tca -j qdisc show dev veth0 root | tr -d ' \n' | grep -o '"pause":[a-z]*')"
# fbs-boot pauses the qdisc for its ring, and a ring that fails gives the
# schedule back (no host on the left here: it times out)
# (the ring's 3 s count from the pause, however late the tool starts)
ns_bg A fbs-boot --left 02:00:00:00:00:09 --rounds 2 --dev veth0 --timeout 3 \
	> "$TMP_DIR/boot.out" 2>&1
boot=$BG_PID
wait_for 10 eval 'qtext | grep_quiet "pause on"' ||
	check_err 1 "not paused during the ring: $(qtext)"
bg_wait "$boot"
check_eq "fbs-boot's exit status, timed out" 1 "$?"
grep_quiet "timeout in round" "$TMP_DIR/boot.out" || check_err 1 "fbs-boot: $(cat "$TMP_DIR/boot.out")"
qtext | grep_quiet "pause on" && check_err 1 "still paused after the failed ring: $(qtext)"
log_test "pause: nothing scheduled leaves until pause off or a restart; shown in text and JSON; fbs-boot pauses, a failed ring resumes"

# fbs-boot where the root is not an fbs qdisc: refused at once, and the
# kernel's reason (its extack message) printed after the error, not only
# "Invalid argument" (which is all a host whose restart came too long
# after the start signal was told, on a debug kernel)
ns_exec A fbs-boot --left 02:00:00:00:00:09 --rounds 2 --dev lo --timeout 3 \
	> "$TMP_DIR/boot.out" 2>&1
check_eq "fbs-boot's exit status, no fbs qdisc" 1 "$?"
grep_quiet -E "^fbs-boot: pausing the fbs qdisc of lo: [^:]+: [^ ].*" "$TMP_DIR/boot.out" ||
	check_err 1 "fbs-boot gave no reason from the kernel: $(cat "$TMP_DIR/boot.out")"
log_info "fbs-boot without an fbs qdisc: $(cat "$TMP_DIR/boot.out")"
log_test "fbs-boot on a device without an fbs qdisc: refused with the kernel's reason"

# deleted and unloaded while traffic flows
tca qdisc del dev veth0 root
ns_bg A udp-lat send --dst $DST --port 9000 --size 500 --rate 20000 --duration 3600 \
	--no-retry > /dev/null 2>&1
sender=$BG_PID
for i in $(seq 1 30); do
	tca qdisc replace dev veth0 root handle 1: fbs dests 2 slot 50us table 0 - 1 - ||
		check_err 1 "add $i"
	tca qdisc del dev veth0 root || check_err 1 "delete $i"
done
tca qdisc add dev veth0 root handle 1: fbs dests 2 slot 50us table - || fatal "fbs again"
sleep 1
tca qdisc del dev veth0 root
kill "$sender"
bg_wait "$sender"
module_unload sch_fbs
! module_is_loaded sch_fbs
check_err $? "sch_fbs still loaded"
log_test "replaced and deleted 30 times under traffic, the module unloaded"

exit $EXIT_STATUS
