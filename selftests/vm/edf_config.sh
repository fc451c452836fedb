#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# edf configuration: defaults, the boundaries of every parameter (largest
# accepted, smallest rejected), extack messages, `tc -j` output field by
# field, and that a rejected change leaves the old configuration.
#
#   [ns C] dummy0 (root qdisc edf 1:)
. ./lib.sh

require_cmd tc udp-lat
require_module sch_edf
ns_create C
ns_run C ip link add dummy0 type dummy || fatal "no dummy device"
ns_run C ip link set dummy0 up

tcq() { ns_exec C tc "$@"; }

# qdisc_field KEY: the value of KEY in the edf qdisc's `tc -j` options
qdisc_json() { tcq -j qdisc show dev dummy0 | tr -d ' \n'; }
opt_field() { qdisc_json | sed -n "s/.*\"options\":{[^}]*\"$1\":\([^,}]*\).*/\1/p"; }
# iproute2 6.1 prints classes as text only, even with -j
class_line() { tcq class show dev dummy0 classid "$1" | head -n1; }
# class_has CLASSID WORDS: the class line contains WORDS (word-bounded)
class_has() {
	class_line "$1" | grep_quiet " $2\( \|\$\)" ||
		check_err 1 "class $1: '$(class_line "$1")' lacks '$2'"
}

# accept DESC ARGS...: tc must succeed
accept() {
	local desc=$1 out; shift
	out=$(tcq "$@" 2>&1)
	check_err $? "$desc: rejected: $out"
}

# reject DESC MSG_REGEX ARGS...: tc must fail, saying why
reject() {
	local desc=$1 msg=$2 out; shift 2
	out=$(tcq "$@" 2>&1)
	check_fail $? "$desc: accepted"
	if [ -n "$msg" ] && ! echo "$out" | grep_quiet -E "$msg"; then
		check_err 1 "$desc: message '$out' does not match '$msg'"
	fi
}

Q="qdisc replace dev dummy0 root handle 1: edf"

# --- defaults ------------------------------------------------------------------
accept "add with defaults" qdisc add dev dummy0 root handle 1: edf
check_eq "default rate" 0 "$(opt_field rate)"
check_eq "default eligibility" 20000 "$(opt_field eligibility)"
check_eq "default limit" 10000 "$(opt_field limit)"
check_eq "default flow_limit" 100 "$(opt_field flow_limit)"
check_eq "default flows" 65536 "$(opt_field flows)"
check_eq "default ttd" false "$(opt_field ttd)"
check_eq "default horizon" 2000000000 "$(opt_field horizon)"
check_eq "default class" 0 "$(opt_field default)"
# a dummy device tells no speed: 1 Gbit/s
check_eq "default link_rate" 125000000 "$(opt_field link_rate)"
log_test "defaults in tc -j"

# --- qdisc parameters: largest accepted, smallest rejected ---------------------
accept "rate 1kbit" $Q rate 1kbit
check_eq "rate 1kbit in bytes/s" 125 "$(opt_field rate)"
accept "rate 400gbit" $Q rate 400gbit
check_eq "rate 400gbit in bytes/s" 50000000000 "$(opt_field rate)"
accept "rate 0 (off)" $Q rate 0
check_eq "rate off" 0 "$(opt_field rate)"
reject "rate below 1kbit" "1kbit and 400gbit" $Q rate 999bit
reject "rate above 400gbit" "1kbit and 400gbit" $Q rate 401gbit
# a percentage of the device's speed (a veth tells 10 Gbit/s; a dummy
# device none); one too small to be a byte a second was sent as 0, off
ns_run C ip link add pv0 type veth peer name pv1 || fatal "veth"
# (sysfs tells a device's speed only while it is up)
ns_run C ip link set pv1 up
ns_run C ip link set pv0 up
ns_run C tc qdisc add dev pv0 root handle 1: edf rate 1% || check_err 1 "rate 1% refused"
check_eq "rate 1% of 10 Gbit/s in bytes/s" 12500000 \
	"$(tcq -j qdisc show dev pv0 | tr -d ' \n' | sed -n 's/.*"rate":\([0-9]*\).*/\1/p')"
out=$(tcq qdisc replace dev pv0 root handle 1: edf rate 0.0000000001% 2>&1)
check_fail $? "a rate of 0.0000000001% accepted (as 0: no pacing)"
ns_run C ip link del pv0
log_test "rate: 0 or 1kbit..400gbit"

accept "eligibility 0" $Q eligibility 0
check_eq "eligibility 0" 0 "$(opt_field eligibility)"
accept "eligibility 1s" $Q eligibility 1s
check_eq "eligibility 1s" 1000000000 "$(opt_field eligibility)"
reject "eligibility above 1s" "eligibility.*0 \\.\\. 1s" $Q eligibility 1000001us
reject "eligibility above horizon" "horizon" $Q eligibility 500ms horizon 100ms
accept "eligibility back to 20us" $Q eligibility 20us
log_test "eligibility: 0..1s and not above the horizon"

accept "limit 1" $Q limit 1 flow_limit 1
check_eq "limit 1" 1 "$(opt_field limit)"
accept "limit 1000000" $Q limit 1000000
check_eq "limit 1000000" 1000000 "$(opt_field limit)"
reject "limit 0" "\"limit\": 1 \\.\\. 1000000" $Q limit 0
reject "limit 1000001" "\"limit\": 1 \\.\\. 1000000" $Q limit 1000001
reject "flow_limit above limit" "flow_limit cannot exceed limit" $Q limit 10 flow_limit 11
accept "flow_limit = limit" $Q limit 10 flow_limit 10
reject "flow_limit 0" "\"flow_limit\": 1 \\.\\. 1000000" $Q flow_limit 0
# a limit under the default flow_limit, given alone, takes it down too
# (it was refused for a flow_limit the user never gave)
tcq qdisc del dev dummy0 root
accept "add with limit 50 alone" qdisc add dev dummy0 root handle 1: edf limit 50
check_eq "flow_limit after limit 50 alone" 50 "$(opt_field flow_limit)"
accept "limit 20 alone" $Q limit 20
check_eq "flow_limit after limit 20 alone" 20 "$(opt_field flow_limit)"
accept "limit raised alone" $Q limit 30
check_eq "flow_limit after the limit is raised alone" 20 "$(opt_field flow_limit)"
accept "limit back" $Q limit 10000 flow_limit 100
log_test "limit 1..1000000, flow_limit 1..limit"

accept "flows 1" $Q flows 1
check_eq "flows 1" 1 "$(opt_field flows)"
accept "flows 1048576" $Q flows 1048576
check_eq "flows 1048576" 1048576 "$(opt_field flows)"
reject "flows 0" "\"flows\": 1 \\.\\. 1048576" $Q flows 0
reject "flows 1048577" "\"flows\": 1 \\.\\. 1048576" $Q flows 1048577
log_test "flows 1..1048576"

accept "horizon 1us" $Q horizon 1us eligibility 0
check_eq "horizon 1us" 1000 "$(opt_field horizon)"
accept "horizon 10s" $Q horizon 10s
check_eq "horizon 10s" 10000000000 "$(opt_field horizon)"
reject "horizon 11s" "\"horizon\": 1us \\.\\. 10s" $Q horizon 11s
reject "horizon below 1us" "\"horizon\": 1us \\.\\. 10s" $Q horizon 999ns
log_test "horizon 1us..10s"

accept "ttd on" $Q ttd on
check_eq "ttd on" true "$(opt_field ttd)"
accept "ttd off" $Q ttd off
check_eq "ttd off" false "$(opt_field ttd)"
reject "ttd maybe" "" $Q ttd maybe
log_test "ttd on/off"

accept "default ffff" $Q default ffff
check_eq "default 0xffff" 65535 "$(opt_field default)"
reject "default 10000 (hex)" "" $Q default 10000
accept "priomap" $Q priomap 1 2 3 0 0 0 0 0 0 0 0 0 0 0 0 4
tcq -j qdisc show dev dummy0 | tr -d ' \n' | grep_quiet '"priomap":\[1,2,3,0,0,0,0,0,0,0,0,0,0,0,0,4\]'
check_err $? "priomap not shown as given: $(qdisc_json)"
log_test "default and priomap"

# --- a rejected change keeps the old configuration ----------------------------
accept "known state" $Q rate 10mbit limit 500 flow_limit 50 eligibility 30us
reject "bad change" "" $Q rate 20mbit limit 0
check_eq "rate kept" 1250000 "$(opt_field rate)"
check_eq "limit kept" 500 "$(opt_field limit)"
reject "bad change 2" "" $Q limit 40 flow_limit 41
check_eq "limit kept after flow_limit error" 500 "$(opt_field limit)"
check_eq "eligibility kept" 30000 "$(opt_field eligibility)"
log_test "rejected change leaves the old configuration"

# --- classes ---------------------------------------------------------------------
C="class add dev dummy0 parent 1: classid"
accept "control class" $C 1:1 edf control
class_has 1:1 "control"
class_has 1:1 "regulated"
class_has 1:1 "perflow on"
accept "frame class" $C 1:2 edf frame 10ms smooth
class_has 1:2 "frame 10ms"
class_has 1:2 "smooth"
accept "best-effort class" $C 1:3 edf rate 200mbit besteffort
class_has 1:3 "rate 200Mbit"
class_has 1:3 "besteffort"
class_has 1:3 "perflow off"
accept "txtime class" $C 1:4 edf txtime
class_has 1:4 "txtime"
log_test "class modes shown by tc class show"

# what tc shows can be given back: each class's options, and the
# qdisc's ("limit 10000p"), as tc prints them, are taken by a change
# and come out the same
for c in 1:1 1:2 1:3 1:4; do
	shown=$(class_line $c | sed 's/^class edf [0-9a-f:]* root //')
	accept "class $c given back its options '$shown'" \
		class change dev dummy0 classid $c edf $shown
	check_eq "class $c after its options given back" "$shown" \
		"$(class_line $c | sed 's/^class edf [0-9a-f:]* root //')"
done
qdisc_line() { tcq qdisc show dev dummy0 | head -n1 | sed 's/^qdisc edf 1: root refcnt [0-9]* //'; }
shown=$(qdisc_line)
accept "qdisc given back its options '$shown'" $Q $shown
check_eq "qdisc after its options given back" "$shown" "$(qdisc_line)"
log_test "tc shows options that tc takes back"

accept "class rate 1kbit" $C 1:10 edf rate 1kbit
accept "class rate 400gbit" $C 1:11 edf rate 400gbit
reject "class rate 999bit" "1kbit and 400gbit" $C 1:12 edf rate 999bit
reject "class rate 401gbit" "1kbit and 400gbit" $C 1:12 edf rate 401gbit
accept "frame 1us" $C 1:13 edf frame 1us
accept "frame 10s" $C 1:14 edf frame 10s
reject "frame 11s" "\"frame\": 1us \\.\\. 10s" $C 1:15 edf frame 11s
reject "frame 999ns" "\"frame\": 1us \\.\\. 10s" $C 1:15 edf frame 999ns
accept "burst 64m" $C 1:16 edf rate 1mbit burst 64m
reject "burst 65m" "\"burst\": 0 \\.\\. 64m" $C 1:17 edf rate 1mbit burst 65m
log_test "class rate 1kbit..400gbit, frame latency 1us..10s, burst up to 64m"

reject "smooth best effort" "smooth applies to regulated classes only" \
	$C 1:20 edf rate 10mbit besteffort smooth
reject "no mode" "needs a mode" $C 1:21 edf besteffort
reject "duplicate class" "" $C 1:1 edf control
reject "class under a class" "" class add dev dummy0 parent 1:1 classid 1:22 edf control
accept "change rate of 1:3" class change dev dummy0 classid 1:3 edf rate 300mbit
class_has 1:3 "rate 300Mbit"
class_has 1:3 "besteffort"
log_test "class errors and changes"

# a mode's own setting goes with it: a rate class made a frame class keeps
# no rate (nothing would read it), and back again no latency
accept "rate class 1:5" $C 1:5 edf rate 20mbit
accept "1:5 to frame" class change dev dummy0 classid 1:5 edf frame 5ms
class_has 1:5 "frame 5ms"
class_line 1:5 | grep_quiet " rate "
check_fail $? "frame class 1:5 still shows a rate: '$(class_line 1:5)'"
accept "1:5 to control" class change dev dummy0 classid 1:5 edf control
class_line 1:5 | grep_quiet " frame "
check_fail $? "control class 1:5 still shows a latency: '$(class_line 1:5)'"
accept "1:5 to rate" class change dev dummy0 classid 1:5 edf rate 30mbit
class_has 1:5 "rate 30Mbit"
accept "delete 1:5" class del dev dummy0 classid 1:5
log_test "a class that changes mode keeps no setting of the old one"

accept "filter to 1:3" filter add dev dummy0 parent 1: protocol ip prio 1 u32 \
	match ip dport 5000 0xffff flowid 1:3
reject "delete class with a filter" "filters still point" class del dev dummy0 classid 1:3
accept "delete filter" filter del dev dummy0 parent 1: prio 1
accept "delete class" class del dev dummy0 classid 1:3
tcq class show dev dummy0 | grep_quiet "class edf 1:3 "
check_fail $? "1:3 still listed after delete"
log_test "class delete refused while filters point to it"

accept "delete qdisc" qdisc del dev dummy0 root
log_test "qdisc delete with classes"

# --- RECN at the host ---------------------------------------------------------------
# (dummy0 is an Ethernet device: credits on takes its end of a link,
# whose peer never speaks; nothing is sent here)
accept "add edf for recn" qdisc add dev dummy0 root handle 1: edf
check_eq "default recn" false "$(opt_field recn)"
reject "recn without credits" "recn needs credits on" $Q recn on
reject "recn settings with recn off" "need recn on" $Q credits on recn_saqs 4
reject "recn_saqs 0" "Illegal \"recn_saqs\"" $Q credits on recn on recn_saqs 0
reject "recn_saqs 17" "Illegal \"recn_saqs\"" $Q credits on recn on recn_saqs 17
reject "recn_lease 3us" "Illegal \"recn_lease\"" $Q credits on recn on recn_lease 3us
reject "recn_lease 11s" "Illegal \"recn_lease\"" $Q credits on recn on recn_lease 11s
reject "recn_idle 61s" "Illegal \"recn_idle\"" $Q credits on recn on recn_idle 61s
reject "recn_idle below a quarter lease" "at least a quarter of recn_lease" \
	$Q credits on recn on recn_lease 8ms recn_idle 1999us
check_eq "recn still off after the refusals" false "$(opt_field recn)"
accept "recn on, defaults" $Q credits on recn on
check_eq "recn" true "$(opt_field recn)"
check_eq "default recn_saqs" 8 "$(opt_field recn_saqs)"
check_eq "default recn_lease" 200000 "$(opt_field recn_lease)"
check_eq "default recn_idle" 1000000 "$(opt_field recn_idle)"
accept "recn bounds" qdisc change dev dummy0 root edf recn_saqs 16 recn_lease 10s \
	recn_idle 60s
check_eq "recn_saqs 16" 16 "$(opt_field recn_saqs)"
check_eq "recn_lease 10s" 10000000000 "$(opt_field recn_lease)"
accept "recn smallest" qdisc change dev dummy0 root edf recn_saqs 1 recn_lease 4us \
	recn_idle 1ms
check_eq "recn_idle 1ms" 1000000 "$(opt_field recn_idle)"
reject "recn_idle 999us" "Illegal \"recn_idle\"" qdisc change dev dummy0 root edf recn_idle 999us
reject "credits off under recn" "recn needs credits on" qdisc change dev dummy0 root edf credits off
check_eq "credits still on" true "$(opt_field credits)"
tcq -s -j qdisc show dev dummy0 | tr -d ' \n' | grep_quiet '"recn":{"nsaq":1,"saqs":0,'
check_err $? "tc -s -j: no recn statistics object with nsaq 1"
tcq -s qdisc show dev dummy0 | grep_quiet "recn: nsaq 1 saqs 0 held_flows 0 held 0"
check_err $? "tc -s: no recn line"
accept "recn off" qdisc change dev dummy0 root edf recn off
check_eq "recn off" false "$(opt_field recn)"
[ -z "$(opt_field recn_saqs)" ]
check_err $? "recn_saqs dumped with recn off"
accept "recn and credits off together" qdisc change dev dummy0 root edf recn on
accept "then both off" qdisc change dev dummy0 root edf recn off credits off
accept "delete qdisc" qdisc del dev dummy0 root
log_test "recn: needs credits, bounds of its settings, extack messages, tc -j"

# RECN turned on and off while frames wait.  With credits on and a peer
# that never speaks, every frame waits in edf.  Going on lists the flows
# with frames, which the next dequeue counts into the link's RECN and
# tags; going off takes every tagged frame out again.  Hundreds of turns
# while a sender adds frames (each enqueue runs a dequeue, which counts),
# then: nothing held, and once credits go off every frame leaves, none
# lost, with nothing sent after to run the queue.
# (exact counts: no IPv6 chatter of dummy0's among the frames; 6.12 sent one)
ns_exec C sysctl -qw net.ipv6.conf.dummy0.disable_ipv6=1
ns_run C ip addr add 10.78.0.1/24 dev dummy0 || fatal "address"
edf_sent() {
	tcq -s qdisc show dev dummy0 | sed -n 's/^ *Sent [0-9]* bytes \([0-9]*\) pkt (dropped \([0-9]*\).*/\1 \2/p' | head -n1
}
edf_qlen() {
	tcq -s qdisc show dev dummy0 | sed -n 's/^ *backlog [0-9]*b \([0-9]*\)p.*/\1/p' | head -n1
}
edf_empty() { [ "$(edf_qlen)" = 0 ]; }
accept "edf, credits on, for recn turns" qdisc add dev dummy0 root handle 1: edf credits on
# (the default class is one flow, whose flow_limit is 100: 91 frames in all)
send_held() {	# COUNT
	ns_exec C udp-lat send --dst 10.78.0.2 --port 9800 --count "$1" --size 200 > /dev/null
}
send_held 40 || check_err 1 "sending the first frames"
check_eq "frames waiting for credits" 40 "$(edf_qlen)"
# 50 more over 1.5 s, while the turns go on
ns_bg C udp-lat send --dst 10.78.0.2 --port 9800 --count 50 --interval 30000 \
	--size 200 > /dev/null
sender=$BG_PID
turns=0
while [ $turns -lt 300 ] || kill -0 $sender 2>/dev/null; do
	for i in $(seq 50); do
		echo "qdisc change dev dummy0 root handle 1: edf recn on"
		echo "qdisc change dev dummy0 root handle 1: edf recn off"
	done | tcq -batch - || check_err 1 "a turn of recn refused"
	turns=$((turns + 50))
done
bg_wait $sender
check_err $? "the sender during the turns failed"
log_info "$turns turns of recn on and off while frames waited"
accept "recn on with every frame waiting" qdisc change dev dummy0 root handle 1: edf recn on
send_held 1 || check_err 1 "sending the frame that counts the queue"
tcq -s qdisc show dev dummy0 | grep_quiet "held_flows 0 held 0"
check_err $? "recn holds frames though no switch spoke: $(tcq -s qdisc show dev dummy0 | grep recn:)"
check_eq "frames waiting after the turns" 91 "$(edf_qlen)"
accept "recn off, credits off" qdisc change dev dummy0 root handle 1: edf recn off credits off
wait_for 10 edf_empty
check_err $? "frames still waiting after credits off: $(edf_qlen)"
check_eq "every frame sent, none dropped" "91 0" "$(edf_sent)"
accept "delete qdisc" qdisc del dev dummy0 root
log_test "recn: turned on and off while frames wait, none lost"

# A lower limit takes effect at once: of 40 frames that wait for credits
# (no peer speaks, so none leaves), limit 10 keeps 10 and drops 30, each
# counted.  (edf_lifecycle shrinks the limit under load, where the queue
# drains by itself before a read can tell a drop from a departure.)
accept "edf, credits on, for the limit" qdisc add dev dummy0 root handle 1: edf credits on
send_held 40 || check_err 1 "sending the frames for the limit"
check_eq "frames waiting before the limit" "40 0" "$(edf_qlen) $(edf_sent | cut -d' ' -f2)"
accept "limit 10 over 40 waiting" $Q limit 10 flow_limit 10
check_eq "frames left by limit 10" 10 "$(edf_qlen)"
check_eq "sent and dropped after limit 10" "0 30" "$(edf_sent)"
accept "delete qdisc" qdisc del dev dummy0 root
log_test "a lower limit drops the excess at once, counted"

# the children of mq share the device's RECN: the same settings, or none
ns_run C ip link add veth0 numtxqueues 2 type veth peer name veth1 || fatal "veth"
ns_run C ip link set veth0 up
accept "mq" qdisc add dev veth0 root handle 1: mq
accept "edf on queue 1, recn" qdisc add dev veth0 parent 1:1 handle 10: edf credits on \
	recn on recn_saqs 4
reject "queue 2, other settings" "already runs with other" \
	qdisc add dev veth0 parent 1:2 handle 20: edf credits on recn on recn_saqs 5
accept "queue 2, same settings" qdisc add dev veth0 parent 1:2 handle 20: edf credits on \
	recn on recn_saqs 4
reject "new settings while shared" "share its RECN" \
	qdisc change dev veth0 parent 1:1 handle 10: edf recn_saqs 6
accept "queue 2 off" qdisc change dev veth0 parent 1:2 handle 20: edf recn off
accept "then queue 1 alone may change" qdisc change dev veth0 parent 1:1 handle 10: edf \
	recn_saqs 6
accept "delete mq" qdisc del dev veth0 root
log_test "recn: the children of mq share one RECN"

# --- the link rate follows the device's speed ------------------------------------
# A tap tells the speed ethtool last set on it (its own at first).  edf
# reads it when added, and again when the device comes up or its link
# changes: a NIC may know its speed only once up, and a renegotiation
# changes it.  It once read it only when added or changed.
tap_json() { tcq -j qdisc show dev tap0 | tr -d ' \n'; }
tap_link_rate() { tap_json | sed -n 's/.*"options":{[^}]*"link_rate":\([^,}]*\).*/\1/p'; }
LINK_RATE_TEST="the link rate follows the device's speed when it comes up"
if ! command -v ethtool > /dev/null; then
	printf "TEST: %-60s  [SKIP] no ethtool\n" "$LINK_RATE_TEST"
elif ! { module_is_loaded tun || modprobe tun 2> /dev/null; } ||
	! ns_exec C ip tuntap add dev tap0 mode tap 2> /dev/null; then
	printf "TEST: %-60s  [SKIP] no tap device\n" "$LINK_RATE_TEST"
else
	# a new tap's speed: 10 Mbit/s on 6.1, 10 Gbit/s on 6.12
	mbit=$(ns_exec C ethtool tap0 | sed -n 's/^[[:space:]]*Speed: \([0-9]*\)Mb\/s.*/\1/p')
	accept "edf on a tap" qdisc add dev tap0 root handle 1: edf
	check_eq "link_rate of a new tap (${mbit:-?} Mbit/s)" "$((${mbit:-0} * 125000))" \
		"$(tap_link_rate)"
	ns_run C ethtool -s tap0 speed 1000 duplex full autoneg off || fatal "ethtool -s tap0"
	ns_run C ip link set tap0 up
	check_eq "link_rate once the tap is up at 1 Gbit/s" 125000000 "$(tap_link_rate)"
	tcq -d qdisc show dev tap0 | grep_quiet "link_rate 1Gbit" ||
		check_err 1 "tc -d: $(tcq -d qdisc show dev tap0)"
	ns_run C ip link set tap0 down
	ns_run C ethtool -s tap0 speed 100 duplex full autoneg off || fatal "ethtool -s tap0"
	ns_run C ip link set tap0 up
	check_eq "link_rate up again at 100 Mbit/s" 12500000 "$(tap_link_rate)"
	# given a rate, edf keeps it
	accept "rate 5mbit" qdisc change dev tap0 root handle 1: edf rate 5mbit
	ns_run C ip link set tap0 down
	ns_run C ethtool -s tap0 speed 1000 duplex full autoneg off || fatal "ethtool -s tap0"
	ns_run C ip link set tap0 up
	check_eq "link_rate with rate given" 625000 "$(tap_link_rate)"
	# and without it again, the device's
	accept "rate 0" qdisc change dev tap0 root handle 1: edf rate 0
	check_eq "link_rate without rate" 125000000 "$(tap_link_rate)"
	accept "delete" qdisc del dev tap0 root
	ns_exec C ip link del tap0
	log_test "$LINK_RATE_TEST"
fi

exit $EXIT_STATUS
