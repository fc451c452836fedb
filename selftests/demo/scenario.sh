#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scenario.sh: build one scenario's topology in network namespaces, attach
# its qdiscs, run the traffic mix with fabric-meter, collect the results,
# tear everything down (also after a failure or a signal).  Used by
# `make demo` inside the VM and on a live host as root.
# Documentation/scenarios.rst describes the file format and the
# architectures.
#
# Usage: scenario.sh SCENARIO.conf OUTDIR [KEY=VALUE...]
#   KEY=VALUE: a line "KEY = VALUE" after the file's, which it overrides
#   (make demo S=sweep runs each architecture with qos_load=N)
#   OUTDIR gets: scenario.conf (as run), setup.log (every command),
#   send.txt, results.json, results.csv, CLASS.{cdf,msg.cdf,msg.hist},
#   qdisc.txt (tc -s after the run).
# Exit: 0 done, 1 failed, 2 bad scenario file, 4 skipped (something the
# scenario needs is missing; the reason is printed).
#
# Direct link (switch = none):
#
#   [ns H1] veth0 ===================================> veth1 [ns SINK]
#     10.77.0.1    host qdiscs of the architecture,       10.77.0.2
#                  emulated link rate                     fabric-meter recv
#     fabric-meter send: control, multimedia, besteffort, background
#
# With a switch (switch = trad | simple | advanced | ideal), see
# switch_attach().
set -u

PROG=scenario
CONF=${1:-}
OUT=${2:-}
[[ -n $CONF && -n $OUT ]] || { echo "usage: $0 SCENARIO.conf OUTDIR [KEY=VALUE...]" >&2; exit 2; }
[[ -r $CONF ]] || { echo "$PROG: cannot read $CONF" >&2; exit 2; }
shift 2
ARGS=("$@")
OVERRIDES=()
for kv in "$@"; do
	[[ $kv == ?*=* ]] || { echo "$PROG: '$kv': want KEY=VALUE" >&2; exit 2; }
	OVERRIDES+=("${kv%%=*} = ${kv#*=}")
done


. "$(dirname "$0")/scenario_lib.sh"

HOSTS=()		# namespaces of the sending hosts
SPLIT=0			# 1: every class is sent by both hosts, half the flows each
declare -A HOST_OF	# traffic kind -> the host that sends it

# ---- topology ------------------------------------------------------------------

# host H1 and the sink joined by one veth pair; quiet (no IPv6, a fixed
# neighbour) so only the measured traffic is on the link
topology_direct()
{
	ns_add H1
	ns_add SINK
	ip link add veth0 netns "$(ns H1)" type veth peer name veth1 netns "$(ns SINK)" ||
		die "cannot create the veth pair"
	nsx SINK ip link set veth1 address 02:00:00:00:77:02
	nsx H1 sysctl -qw net.ipv6.conf.veth0.disable_ipv6=1
	nsx SINK sysctl -qw net.ipv6.conf.veth1.disable_ipv6=1
	nsx H1 ip addr add 10.77.0.1/24 dev veth0
	nsx SINK ip addr add 10.77.0.2/24 dev veth1
	nsx H1 ip link set veth0 up
	nsx SINK ip link set veth1 up
	nsx H1 ip neigh replace 10.77.0.2 lladdr 02:00:00:00:77:02 dev veth0 nud permanent ||
		die "cannot configure the link"
	HOSTS=(H1)
	for kind in control multimedia besteffort background; do
		HOST_OF[$kind]=H1
	done
	HOST_DEV=veth0
	DST=10.77.0.2
}

# ---- switch topology ---------------------------------------------------------------
#
# With a switch (switch = trad | simple | advanced | ideal): two hosts
# and the sink are ports of one vcsw switch (Documentation/vcsw.rst) in
# namespace SW, of the scenario's architecture (arch), every port
# emulating the scenario's link rate.  Each host sends every class with
# half its flows, so both VCs are fed from two inputs contending for
# the one output port to the sink, where the architectures differ: the
# crossbar picks among the inputs' heads by round robin (trad) or by
# deadline (the others), and VC0 is a FIFO (trad, simple), an ordered +
# take-over pair (advanced) or sorted (ideal).  edf hosts mark the
# fabric header's time to deadline (ttd on); the switch turns it into
# local deadlines and rewrites it on departure; the sink's fabric_hdr.ko
# strips the header before UDP.
#
# With credits on (the default), the links from the hosts are lossless:
# the hosts' qdiscs have "credits on", the ports p1 and p2 "credits on",
# a frame waits in its input buffer until its output VC has room, and
# congestion backs up into the hosts, whose schedulers then decide what
# goes (Documentation/credits.rst).  The sink's port p3 has no credits:
# the sink takes what arrives, and p3 sends at the emulated rate.
#
#   [H1] veth0 --p1--+
#   [H2] veth0 --p2--+- sw0 (vcsw, arch ARCH, rate LINK) -p3-- veth1 [SINK]
#   10.77.0.1, .3                                        10.77.0.2
SW_MAC_H1=02:00:00:00:77:01
SW_MAC_H2=02:00:00:00:77:03
SW_MAC_SINK=02:00:00:00:77:02

# switch_port NS DEV PORT MAC ADDR: a veth pair DEV (in NS) - PORT (a port
# of sw0), DEV's address MAC / ADDR, a static forwarding entry for MAC
switch_port()
{
	local n=$1 dev=$2 port=$3 mac=$4 addr=$5

	ns_add "$n"
	ip link add "$dev" netns "$(ns "$n")" address "$mac" type veth \
		peer name "$port" netns "$(ns SW)" || die "cannot create the veth pair of $n"
	nsx "$n" sysctl -qw "net.ipv6.conf.$dev.disable_ipv6=1"
	nsx SW sysctl -qw "net.ipv6.conf.$port.disable_ipv6=1"
	nsx "$n" ip addr add "$addr/24" dev "$dev"
	nsx "$n" ip link set "$dev" up
	nsx SW ip link set "$port" master sw0 >> "$OUT/setup.log" 2>&1 ||
		die "$port master sw0 failed: $(tail -n 2 "$OUT/setup.log")"
	nsx SW ip link set "$port" up
	nsx SW ip link set "$port" type vcsw_slave fdb_add "$mac" >> "$OUT/setup.log" 2>&1 ||
		die "fdb_add $mac on $port failed: $(tail -n 2 "$OUT/setup.log")"
	[[ -z $CREDITS || $n == SINK ]] && return
	nsx SW ip link set "$port" type vcsw_slave credits on >> "$OUT/setup.log" 2>&1 ||
		die "credits on $port failed: $(tail -n 2 "$OUT/setup.log")"
}

switch_attach()
{
	local arch=$1 h

	modinfo vcsw >/dev/null 2>&1 || lsmod | grep -q '^vcsw' ||
		skip "switch = $arch needs the vcsw module"
	modinfo fabric_hdr >/dev/null 2>&1 || lsmod | grep -q '^fabric_hdr' ||
		skip "switch = $arch needs the fabric_hdr module (the sink strips the header)"
	[[ $S_CREDITS == on ]] && CREDITS="credits on"
	modprobe vcsw 2>/dev/null
	# the sink's receive path: fabric header off, then UDP as usual
	modprobe fabric_hdr || die "cannot load fabric_hdr"
	ns_add SW
	nsx SW ip link add sw0 type vcsw arch "$arch" rate "$S_LINK" buffer "$S_SWITCH_BUFFER" \
		>> "$OUT/setup.log" 2>&1 || die "cannot create the vcsw switch: $(tail -n 2 "$OUT/setup.log")"
	nsx SW ip link set sw0 up
	switch_port H1 veth0 p1 "$SW_MAC_H1" 10.77.0.1
	switch_port H2 veth0 p2 "$SW_MAC_H2" 10.77.0.3
	switch_port SINK veth1 p3 "$SW_MAC_SINK" 10.77.0.2
	for h in H1 H2; do
		nsx "$h" ip neigh replace 10.77.0.2 lladdr "$SW_MAC_SINK" dev veth0 nud permanent ||
			die "cannot configure $h"
	done
	HOSTS=(H1 H2)
	SPLIT=1
	TTD="ttd on"
	HOST_DEV=veth0
	DST=10.77.0.2
}

# ---- run -------------------------------------------------------------------------

read_conf
# a k-ary n-tree of switches: the fabric runner
[[ -z $S_TREE ]] || exec bash "$(dirname "$0")/fabric.sh" "$CONF" "$OUT" "${ARGS[@]}"
mkdir -p "$OUT" || die "cannot create $OUT"
rm -f "$OUT"/*
{ cat "$CONF"; printf '%s\n' "${OVERRIDES[@]}"; } > "$OUT/scenario.conf"
# every key as resolved (defaults included), for the report
for key in name title host switch credits switch_buffer link duration load mix flows \
	control_target frame_latency eligibility be_weights seed qos_load; do
	v=S_${key^^}
	printf '%s = %s\n' "$key" "${!v}"
done > "$OUT/settings.txt"
: > "$OUT/setup.log"
command -v fabric-meter >/dev/null || skip "fabric-meter not on PATH"
[[ $(id -u) == 0 ]] || skip "needs root (namespaces, qdiscs)"
# edf hosts, and trad2 hosts on a switch (host_trad2_marked), need sch_edf
if [[ $S_HOST == edf || ($S_HOST == trad2 && $S_SWITCH != none) ]]; then
	modinfo sch_edf >/dev/null 2>&1 || lsmod | grep -q '^sch_edf' ||
		skip "host = $S_HOST with switch = $S_SWITCH needs the sch_edf module"
fi

LINK_BPS=$(rate_bps "$S_LINK")
if [[ $S_SWITCH == none ]]; then
	topology_direct
else
	switch_attach "$S_SWITCH"
fi
for h in "${HOSTS[@]}"; do
	"host_$S_HOST" "$h"
done

# the traffic mix: each class its share of load x link, sent by its host,
# or with SPLIT by both hosts, each with half its flows (H1 the odd one)
# and a share of the rate in proportion.  The flows of both keep one class
# id and distinct flow ids (flow=, allflows=), so the receiver measures
# the class as one and waits for the end marks of all its flows.
declare -A HOST_CLASSES
NCLASSES=0
for kind in control multimedia besteffort background; do
	share=$(list_get "$S_MIX" $kind 0)
	((share > 0)) || continue
	bps=$((LINK_BPS * S_LOAD / 100 * share / 100))
	nflows=$(list_get "$S_FLOWS" $kind 1)
	opts=${CLASS_OPTS[$kind]:+,${CLASS_OPTS[$kind]}}
	case $kind in
	control)    opts+=",target=$S_CONTROL_TARGET" ;;
	multimedia) opts+=",target=$S_FRAME_LATENCY" ;;
	esac
	if ((SPLIT)); then	# two flows or more: check_classes
		n1=$(((nflows + 1) / 2))
		HOST_CLASSES[H1]+=" $kind,rate=$((bps * n1 / nflows)),flows=$n1,allflows=$nflows$opts"
		HOST_CLASSES[H2]+=" $kind,rate=$((bps - bps * n1 / nflows)),flows=$((nflows - n1)),flow=$n1,allflows=$nflows$opts"
	else
		HOST_CLASSES[${HOST_OF[$kind]}]+=" $kind,rate=$bps,flows=$nflows$opts"
	fi
	NCLASSES=$((NCLASSES + 1))
done

echo "$PROG: $S_NAME ($S_TITLE): host $S_HOST, switch $S_SWITCH, link $S_LINK," \
	"load $S_LOAD %, ${S_DURATION}s"
# The receiver stops once every class sent its end mark (--expect); its
# duration is only the bound for when that never comes.  With lossless
# links a slow host sends late, its frames wait for credits, and the end
# marks come long after the run's seconds (a debug kernel: 10 s to send
# 1 s of traffic), so the bound is generous; a quick run costs nothing.
recv_time=$(awk -v d="$S_DURATION" 'BEGIN { printf "%d", 5 * d + 60 }')
backlog_apply
softnet_start=$(softnet_drops)
cpu_start=$(cpu_ticks)
# the run ends when every class sent its end mark, from whichever host
nsx SINK fabric-meter recv --quiet --port 5201 --duration "$recv_time" --expect "$NCLASSES" \
	--ready "$OUT/recv.ready" --data "$OUT" > "$OUT/recv.txt" 2> "$OUT/recv.err" &
RECV=$!
BG_PIDS+=("$RECV")
wait_file "$OUT/recv.ready" || die "the receiver did not start: $(cat "$OUT/recv.err")"
# one sender per host; distinct class ids (--class-base) for the one receiver
base=0
hi=0
SENDERS=()
for h in "${HOSTS[@]}"; do
	args=()
	for spec in ${HOST_CLASSES[$h]:-}; do
		args+=(--class "$spec")
	done
	((${#args[@]})) || continue
	# --wait: the end marks may queue behind full buffers on a slow host;
	# the receiver answers them, so waiting costs nothing when it is quick
	nsx "$h" fabric-meter send --quiet --dst "$DST" --port 5201 --duration "$S_DURATION" \
		--wait 60 \
		--seed $((S_SEED + hi)) --class-base $base "${args[@]}" \
		> "$OUT/send-$h.txt" 2> "$OUT/send-$h.err" &
	SENDERS+=("$h:$!")
	BG_PIDS+=("$!")
	((SPLIT)) || base=$((base + ${#args[@]} / 2))	# split: the same ids
	hi=$((hi + 1))
done
for hp in "${SENDERS[@]}"; do
	wait "${hp#*:}" || die "fabric-meter send in ${hp%%:*} failed: $(cat "$OUT/send-${hp%%:*}.err")"
done
wait "$RECV" || die "fabric-meter recv failed: $(cat "$OUT/recv.err")"
BG_PIDS=()
cpu_record "$cpu_start"
losses_record "$softnet_start" "${HOSTS[@]}" SINK
send_gather "${SENDERS[@]}"
for h in "${HOSTS[@]}"; do
	echo "== $h"
	nsx "$h" tc -s qdisc show dev "$HOST_DEV" 2>&1
done > "$OUT/qdisc.txt"
if [[ $S_SWITCH != none ]]; then
	nsx SW ip -d -s link show dev p3 > "$OUT/switch.txt" 2>&1
	for p in p1 p2; do
		nsx SW ip -d -s link show dev $p 2>&1
	done > "$OUT/switch-inputs.txt"
fi
rm -f "$OUT/recv.ready"
cat "$OUT/recv.txt"
exit 0
