#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# Frame fuzzing: fabric-send --fuzz sends random and mutated frames
# (every VC, boundary TTDs, random routes and flags, IPv4/IPv6/ARP/other
# inner types, cut short, past the MTU, bit-flipped, other EtherTypes)
# and classes each one as the receivers' shared validator does.  Every
# frame is accounted for: passed up or dropped with its reason, on a
# host's receive path and on a switch port.  Then forged credit-link
# messages (fabric-send --link-fuzz) at a host's qdisc and at a switch
# port, both with credits on: each taken or refused as the core's own
# receive function says.  The kernel log must stay clean (the harness
# checks).  fq.fuzz_frames=N on the VM's command line
# sets the count (make check-debug: 1,000,000).
#
#   [A] veth0 --fuzz--> veth1 [B] fabric_hdr receive path
#   [C] eth0 --fuzz, random MACs--> p1 [S] sw0 p2 --> eth0 [D]
. ./lib.sh

require_cmd fabric-send fabric-stat ip taskset
backlog_raise
require_module fabric_hdr
require_module vcsw
FRAMES=$(fq_param fuzz_frames 50000)
SEED=$(fq_param fuzz_seed 1)
log_info "$FRAMES frames per run, seed $SEED"

tmp_dir_create
two_hosts 51 quiet
MAC_B=02:00:00:00:33:02

# fuzz_field OUT KEY: a count from fabric-send's summary line
fuzz_field() { echo "$1" | sed -n "s/.* $2=\([0-9]*\).*/\1/p"; }
bstat() { fstat B veth1 "$1"; }
# d_malformed: malformed fabric frames D's receive path dropped
d_malformed() {
	local k n=0
	for k in drop_short drop_version drop_inner_type drop_truncated; do
		n=$((n + $(fstat D eth0 $k)))
	done
	echo $n
}

# --- a host's receive path ------------------------------------------------------------
declare -A before
for k in rx_frames drop_short drop_version drop_inner_type drop_truncated drop_nomem \
	 drop_link_msg; do
	before[$k]=$(bstat $k)
done
tx_drop0=$(ns_exec A cat /sys/class/net/veth0/statistics/tx_dropped)
out=$(ns_exec A fabric-send -i veth0 --dst-mac $MAC_B --src-ip 10.51.0.1 \
	--dst-ip 10.51.0.2 --fuzz --seed "$SEED" --count "$FRAMES")
check_err $? "fabric-send --fuzz failed"
log_info "$out"
check_eq "no frame lost on the veth" "$tx_drop0" \
	"$(ns_exec A cat /sys/class/net/veth0/statistics/tx_dropped)"
check_eq "nothing dropped for want of memory" "${before[drop_nomem]}" "$(bstat drop_nomem)"
# the frames arrive in softirq after the sender returns: wait for them
fabric=$(( $(fuzz_field "$out" sent) - $(fuzz_field "$out" other) ))
# (a frame that is a control frame is a link message to B, which has no
# qdisc with credits on: dropped as drop_link_msg)
counted() {
	local n=0 k
	for k in rx_frames drop_short drop_version drop_inner_type drop_truncated \
		 drop_link_msg; do
		n=$((n + $(bstat $k) - before[$k]))
	done
	[ $n -ge $fabric ]
}
wait_for 30 counted
check_err $? "not every fabric frame counted at B within 30 s"
for k in rx_frames:valid drop_short:short drop_version:version \
	 drop_inner_type:inner_type drop_truncated:truncated drop_link_msg:ctrl; do
	check_eq "${k%%:*}" "$(fuzz_field "$out" ${k#*:})" "$(( $(bstat ${k%%:*}) - before[${k%%:*}] ))"
done
fstat_read_ok
log_test "host receive path: every fuzzed frame passed up or dropped with its reason"

# A seed gives the same frames when the device's queue is full now and
# then: fabric-send sends a refused frame again rather than build another
# (it built another, so the classes it counted moved with the host's
# speed).  A tbf that lets 16 KB through and then queues 4 KB, at a
# quarter of the rate the sender reached on the plain veth (a fixed 4
# Mbit/s was more than a KASAN kernel's sender reached: the queue never
# filled), refuses frames; the counts must be those of the plain run.
FULL_FRAMES=600
tx_bytes() { ns_exec A cat /sys/class/net/veth0/statistics/tx_bytes; }
bytes0=$(tx_bytes) t0=$(now_us)
plain=$(ns_exec A fabric-send -i veth0 --dst-mac $MAC_B --src-ip 10.51.0.1 \
	--dst-ip 10.51.0.2 --fuzz --seed $((SEED + 7)) --count $FULL_FRAMES)
check_err $? "fabric-send --fuzz failed"
t1=$(now_us) bytes1=$(tx_bytes)
full_rate=$(( (bytes1 - bytes0) * 8 * 1000000 / ((t1 - t0) * 4 + 1) ))
[ "$full_rate" -ge 100000 ] || full_rate=100000
log_info "plain: $((bytes1 - bytes0)) bytes in $((t1 - t0)) us; the tbf at ${full_rate} bit/s"
ns_run A tc qdisc add dev veth0 root handle 1: tbf rate ${full_rate}bit burst 16kb limit 4kb ||
	fatal "cannot add the tbf"
full=$(ns_exec A fabric-send -i veth0 --dst-mac $MAC_B --src-ip 10.51.0.1 \
	--dst-ip 10.51.0.2 --fuzz --seed $((SEED + 7)) --count $FULL_FRAMES)
check_err $? "fabric-send --fuzz through the tbf failed"
tbf_drops=$(ns_exec A tc -s qdisc show dev veth0 | sed -n 's/.*dropped \([0-9]*\),.*/\1/p' | head -n1)
ns_run A tc qdisc del dev veth0 root
log_info "plain: $plain"
log_info "tbf ($tbf_drops refused): $full"
[ "${tbf_drops:-0}" -gt 0 ]
check_err $? "the tbf refused no frame: the queue was never full"
check_eq "a seed's frames with the queue full at times" "$plain" "$full"
log_test "fabric-send --fuzz: a full queue does not change the frames of a seed"

# --- a switch port -------------------------------------------------------------------
fuzz_switch 02:00:00:51:00:04

pstat() {	# DEV OBJ KEY
	ns_exec S ip -j -d link show dev "$1" | tr -d ' \n' |
		sed -n "s/.*\"$2\":{\([^}]*\)}.*/\1/p" |
		sed -n "s/.*\"$3\":\([0-9]*\).*/\1/p"
}
rx0=$(pstat p1 port rx_packets); fab0=$(pstat p1 port rx_fabric)
bad0=$(pstat p1 port drop_malformed); off0=$(pstat p1 credit_stats msgs_off)
dbad0=$(d_malformed)
out=$(ns_exec C fabric-send -i eth0 --dst-mac 02:00:00:51:00:04 --src-ip 10.51.1.3 \
	--dst-ip 10.51.1.4 --fuzz --fuzz-macs --seed $((SEED + 1)) --count "$FRAMES")
check_err $? "fabric-send --fuzz failed"
log_info "$out"
sent=$(fuzz_field "$out" sent)
malformed=0
for k in short version inner_type truncated; do
	malformed=$((malformed + $(fuzz_field "$out" $k)))
done
# control frames are link messages to the port, which speaks no credits:
# counted as such (msgs_off), not as data
ctrl=$(fuzz_field "$out" ctrl)
arrived() { [ "$(pstat p1 port rx_packets)" -ge $((rx0 + sent - ctrl)) ]; }
wait_for 30 arrived
check_err $? "not every frame counted at p1 within 30 s"
check_eq "p1 rx_packets" $((rx0 + sent - ctrl)) "$(pstat p1 port rx_packets)"
check_eq "p1 link messages with credits off" $((off0 + ctrl)) "$(pstat p1 credit_stats msgs_off)"
check_eq "p1 rx_fabric (valid headers)" $((fab0 + $(fuzz_field "$out" valid))) "$(pstat p1 port rx_fabric)"
check_eq "p1 drop_malformed" $((bad0 + malformed)) "$(pstat p1 port drop_malformed)"
check_eq "malformed frames the switch let through to D" "$dbad0" "$(d_malformed)"
fstat_read_ok
log_test "switch port: every fuzzed frame counted, none malformed forwarded"

# --- forged link messages ----------------------------------------------------------------
# fabric-send --link-fuzz plays the peer of a credit link and says how
# many of its messages the core must take, refuse as malformed or for
# their unit, or ignore as stale; nothing else speaks credits to the
# receiver, so its counters must say exactly that.
LINK_FRAMES=$((FRAMES / 5))
# Whether a message is stale depends on the order the messages arrive
# in: the forger stays on one CPU, so that its frames wait in one CPU's
# receive backlog.  A sender that moves to the other CPU while frames
# wait in the first one's backlog (on a slow kernel, where the softirq
# falls behind to ksoftirqd) has its later frames taken first, and the
# earlier ones then are stale.
# link_fuzz_field OUT KEY
link_field() { echo "$1" | sed -n "s/.* $2=\([0-9]*\).*/\1/p"; }

# B's qdisc with credits on: a host's end (fabric_link.c)
ns_run B tc qdisc add dev veth1 root handle 1: edf credits on || fatal "edf credits on"
bcred() {	# KEY: B's credit counter
	ns_exec B tc -s -j qdisc show dev veth1 | tr -d ' \n' |
		sed -n 's/.*"credits":{\([^}]*\)}.*/\1/p' |
		sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"
}
tx_drop0=$(ns_exec A cat /sys/class/net/veth0/statistics/tx_dropped)
out=$(ns_exec A taskset -c 0 fabric-send -i veth0 --link-fuzz 64 --seed "$SEED" --count "$LINK_FRAMES")
check_err $? "fabric-send --link-fuzz failed"
log_info "$out"
check_eq "no message lost on the veth" "$tx_drop0" \
	"$(ns_exec A cat /sys/class/net/veth0/statistics/tx_dropped)"
[ "$(link_field "$out" peer_epoch)" -gt 0 ] 2>/dev/null
check_err $? "B's own link messages never heard: no forged grant echoed its epoch"
b_counted() {
	[ $(( $(bcred msgs_received) + $(bcred msgs_refused) )) -ge $LINK_FRAMES ]
}
wait_for 30 b_counted
check_eq "B msgs_received" "$(link_field "$out" received)" "$(bcred msgs_received)"
# a host's link refuses a frame of RECN's type as any other type
check_eq "B msgs_refused" $(( $(link_field "$out" malformed) + $(link_field "$out" unit) + \
	$(link_field "$out" stale) + $(link_field "$out" recn) )) "$(bcred msgs_refused)"
# whatever the forger granted, B is still a working qdisc: it lets go
ns_run B tc qdisc del dev veth1 root || fatal "edf credits off"
log_test "host: every forged link message taken or refused as the core says"

# p1 with credits on: a switch port's end (the input's books)
ns_run S ip link set p1 type vcsw_slave credits on || fatal "p1 credits on"
pcred() { pstat p1 credit_stats "$1"; }
# a frame of RECN's type is a RECN frame to a switch port: with recn off
# (the default), refused as one, not counted by the credit books
recn0=$(pstat p1 recn_stats frames_refused)
out=$(ns_exec C taskset -c 0 fabric-send -i eth0 --link-fuzz 64 --seed $((SEED + 2)) --count "$LINK_FRAMES")
check_err $? "fabric-send --link-fuzz failed"
log_info "$out"
[ "$(link_field "$out" peer_epoch)" -gt 0 ] 2>/dev/null
check_err $? "p1's own link messages never heard: no forged grant echoed its epoch"
p_counted() {
	[ $(( $(pcred msgs_received) + $(pcred msgs_malformed) + $(pcred msgs_unit) + \
		$(pcred msgs_stale) + $(pstat p1 recn_stats frames_refused) - recn0 )) -ge $LINK_FRAMES ]
}
wait_for 30 p_counted
for k in received malformed unit stale; do
	check_eq "p1 msgs_$k" "$(link_field "$out" $k)" "$(pcred msgs_$k)"
done
check_eq "p1 RECN frames refused" $((recn0 + $(link_field "$out" recn))) \
	"$(pstat p1 recn_stats frames_refused)"
ns_run S ip link set p1 type vcsw_slave credits off || fatal "p1 credits off"
log_test "switch port: every forged link message taken or refused as the core says"

exit $EXIT_STATUS
