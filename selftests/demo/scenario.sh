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
OVERRIDES=()
for kv in "$@"; do
	[[ $kv == ?*=* ]] || { echo "$PROG: '$kv': want KEY=VALUE" >&2; exit 2; }
	OVERRIDES+=("${kv%%=*} = ${kv#*=}")
done

NS_PREFIX="fqs-$$"
NS_LIST=()
BG_PIDS=()
HOSTS=()		# namespaces of the sending hosts
SPLIT=0			# 1: every class is sent by both hosts, half the flows each
declare -A HOST_OF	# traffic kind -> the host that sends it
TTD=""			# "ttd on": edf hosts mark the time to deadline

die()  { echo "$PROG: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 4; }

cleanup()
{
	local pid ns

	for pid in "${BG_PIDS[@]}"; do
		kill "$pid" 2>/dev/null
	done
	for pid in "${BG_PIDS[@]}"; do
		wait "$pid" 2>/dev/null
	done
	for ns in "${NS_LIST[@]}"; do
		ip netns del "$ns" 2>/dev/null
	done
}
trap cleanup EXIT
trap 'exit 1' INT TERM

# ---- the scenario file --------------------------------------------------------

# Defaults: the paper's Table 1 mix at full load on a link the VM keeps up
# with.
S_NAME=$(basename "$CONF" .conf)
S_TITLE=$S_NAME
S_HOST=edf
S_SWITCH=none
S_LINK=40mbit
S_DURATION=4
S_LOAD=100
S_MIX="control:25 multimedia:25 besteffort:25 background:25"
S_FLOWS="control:4 multimedia:8 besteffort:2 background:2"
S_CONTROL_TARGET=1ms
S_FRAME_LATENCY=10ms
S_ELIGIBILITY=1ms
S_BE_WEIGHTS="besteffort:2 background:1"
S_SEED=1
S_CREDITS=on
S_SWITCH_BUFFER=""
S_QOS_LOAD=""

# key = value lines; '#' starts a comment; unknown keys are errors.
read_conf()
{
	local line key val n=0

	while IFS= read -r line || [[ -n $line ]]; do
		n=$((n + 1))
		line=${line%%#*}
		[[ $line =~ ^[[:space:]]*$ ]] && continue
		if [[ ! $line =~ ^[[:space:]]*([a-z_]+)[[:space:]]*=[[:space:]]*(.*[^[:space:]])[[:space:]]*$ ]]; then
			echo "$CONF:$n: want 'key = value'" >&2
			exit 2
		fi
		key=${BASH_REMATCH[1]} val=${BASH_REMATCH[2]}
		case $key in
		name|title|host|switch|link|duration|load|mix|flows|control_target|\
		frame_latency|eligibility|be_weights|seed|credits|switch_buffer|qos_load)
			printf -v "S_${key^^}" '%s' "$val" ;;
		*)
			echo "$CONF:$n: unknown key '$key'" >&2
			exit 2 ;;
		esac
	# a here-string, not <(...): the VM's initramfs has no /dev/fd
	done <<< "$(cat "$CONF"; printf '%s\n' "${OVERRIDES[@]}")"
	# qos_load = N: the QoS classes (control, multimedia) N % of the load,
	# best effort (best-effort, background) the rest, each pair evenly
	if [[ -n $S_QOS_LOAD ]]; then
		[[ $S_QOS_LOAD =~ ^[0-9]{1,2}$ ]] && ((S_QOS_LOAD >= 1)) ||
			{ echo "$CONF: qos_load = $S_QOS_LOAD: want 1 .. 99 (%)" >&2; exit 2; }
		local q=$((10#$S_QOS_LOAD)) r=$((100 - 10#$S_QOS_LOAD))
		S_MIX="control:$((q / 2)) multimedia:$((q - q / 2)) besteffort:$((r / 2)) background:$((r - r / 2))"
	fi
	case $S_HOST in trad2|trad4|edf) ;; *)
		echo "$CONF: host = $S_HOST: want trad2, trad4 or edf" >&2; exit 2 ;;
	esac
	# fifo and takeover: vcsw's old names (its vc0 option) of trad and
	# advanced, kept so that scenario files written for them still run
	case $S_SWITCH in
	fifo) S_SWITCH=trad ;;
	takeover) S_SWITCH=advanced ;;
	esac
	case $S_SWITCH in none|trad|simple|advanced|ideal) ;; *)
		echo "$CONF: switch = $S_SWITCH: want none, trad, simple, advanced or ideal" >&2; exit 2 ;;
	esac
	case $S_CREDITS in on|off) ;; *)
		echo "$CONF: credits = $S_CREDITS: want on or off" >&2; exit 2 ;;
	esac
	# trad4's hosts are in-tree qdiscs: they cannot wait for credits, and a
	# port with credits drops what comes without (violations)
	[[ $S_HOST != trad4 || $S_SWITCH == none || $S_CREDITS == off ]] ||
		{ echo "$CONF: host = trad4 cannot honour the switch's credits (in-tree tbf and prio): want switch = none or credits = off" >&2; exit 2; }
	# the paper's 8 KB per VC and port on a lossless switch; without
	# credits the output buffers must hold what a host's FIFO holds
	# (trad2's 1000 packets), or the comparison is of drops in the switch
	if [[ -z $S_SWITCH_BUFFER ]]; then
		S_SWITCH_BUFFER=8k
		[[ $S_CREDITS == on ]] || S_SWITCH_BUFFER=1m
	fi
	[[ $S_SWITCH_BUFFER =~ ^[0-9]+[km]?$ ]] ||
		{ echo "$CONF: switch_buffer = $S_SWITCH_BUFFER: want bytes, e.g. 8k or 1m" >&2; exit 2; }
	[[ $S_LINK =~ ^[0-9]+(\.[0-9]+)?[kmg]bit$ ]] ||
		{ echo "$CONF: link = $S_LINK: want e.g. 40mbit" >&2; exit 2; }
	[[ $S_DURATION =~ ^[0-9]+(\.[0-9]+)?$ && $S_LOAD =~ ^[0-9]+$ ]] ||
		{ echo "$CONF: duration and load must be numbers" >&2; exit 2; }
	((S_LOAD >= 1 && S_LOAD <= 200)) ||
		{ echo "$CONF: load = $S_LOAD: want 1 .. 200 (%)" >&2; exit 2; }
	check_list mix "$S_MIX" 0
	check_list flows "$S_FLOWS" 1
	check_list be_weights "$S_BE_WEIGHTS" 1
	check_classes
}

# check_list KEY "kind:N ..." MIN: every item a class of the mix and a
# whole number of at least MIN, so a typo is reported here, against the
# file, and not by the shell's arithmetic after the namespaces are built
check_list()
{
	local key=$1 list=$2 min=$3 kv

	for kv in $list; do
		case ${kv%%:*} in control|multimedia|besteffort|background) ;; *)
			echo "$CONF: $key = $list: '${kv%%:*}' is not one of control, multimedia, besteffort, background" >&2
			exit 2 ;;
		esac
		[[ $kv =~ ^[a-z]+:[0-9]{1,6}$ ]] && ((${kv#*:} >= min)) ||
			{ echo "$CONF: $key = $list: '$kv': want kind:N, N from $min" >&2; exit 2; }
	done
}

# the mix has a class with a share; with a switch, both hosts send every
# class (half its flows each), so each needs two flows or more
check_classes()
{
	local kind n=0 nflows

	for kind in control multimedia besteffort background; do
		(($(list_get "$S_MIX" $kind 0) > 0)) || continue
		n=$((n + 1))
		nflows=$(list_get "$S_FLOWS" $kind 1)
		[[ $S_SWITCH == none ]] || ((nflows >= 2)) ||
			{ echo "$CONF: flows: $kind has $nflows; with a switch each class needs 2 or more (one set per host)" >&2; exit 2; }
	done
	((n)) || { echo "$CONF: mix = $S_MIX: no class with a share" >&2; exit 2; }
}

# bits/s of a tc rate like 40mbit
rate_bps()
{
	awk -v r="$1" 'BEGIN {
		n = r + 0; u = substr(r, length(n "") + 1)
		f = (u ~ /^k/) ? 1e3 : (u ~ /^m/) ? 1e6 : (u ~ /^g/) ? 1e9 : 1
		printf "%.0f", n * f }'
}

# value of KIND in a "kind:value kind:value" list, or $3
list_get()
{
	local kv

	for kv in $1; do
		[[ ${kv%%:*} == "$2" ]] && { echo "${kv#*:}"; return; }
	done
	echo "${3:-}"
}

# ---- helpers -----------------------------------------------------------------

ns() { echo "$NS_PREFIX-$1"; }

# run in a namespace, logged
nsx()
{
	local n=$1; shift

	echo "[$n] $*" >> "$OUT/setup.log"
	ip netns exec "$(ns "$n")" "$@"
}

tcx()
{
	local n=$1; shift

	nsx "$n" tc "$@" >> "$OUT/setup.log" 2>&1 || die "[$n] tc $* failed: $(tail -n 3 "$OUT/setup.log")"
}

ns_add()
{
	ip netns add "$(ns "$1")" || die "ip netns add $(ns "$1") failed"
	NS_LIST+=("$(ns "$1")")
	nsx "$1" ip link set lo up
}

# wait_file FILE: until FILE exists, 300 looks 0.1 s apart: 30 s or more
# (a look is counted, not the clock, so a VM the host does not run for a
# while loses no looks)
wait_file()
{
	local i

	for ((i = 0; i < 300; i++)); do
		[[ -e $1 ]] && return 0
		sleep 0.1
	done
	return 1
}

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
CREDITS=""		# "credits on": the hosts' qdiscs honour the switch's credits

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

# ---- host qdiscs per architecture -------------------------------------------------

# host_ARCH HOST: the qdiscs of HOST (each sending host gets the same).
# Sets CLASS_OPTS[kind]: fabric-meter class options (markings) per kind.
declare -A CLASS_OPTS

host_trad2()	# two strict-priority VCs: QoS (control, multimedia), best-effort
{
	local h=$1

	if [[ -n $TTD ]]; then
		host_trad2_marked "$h"
		return
	fi
	tcx "$h" qdisc add dev "$HOST_DEV" root handle 1: tbf rate "$S_LINK" burst 3000 limit 100000
	tcx "$h" qdisc add dev "$HOST_DEV" parent 1:1 handle 10: prio bands 2 \
		priomap 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1
	CLASS_OPTS[control]=prio=10:1
	CLASS_OPTS[multimedia]=prio=10:1
	CLASS_OPTS[besteffort]=prio=10:2
	CLASS_OPTS[background]=prio=10:2
}

# trad2 through the switch: the switch takes a frame's VC from the fabric
# header, and only edf writes one, so the same two strict-priority FIFOs
# are built from edf: one class per VC, each a single deadline clock at
# the link rate (perflow off).  Deadlines D = max(D', now) + len / LINK
# then rise with every packet of the class: each VC sends in arrival
# order, a FIFO, and VC0 goes strictly first, as prio's two bands do.  No
# smoothing, no frame deadlines; the switch is arch trad (FIFOs, round robin).
host_trad2_marked()
{
	local h=$1

	modprobe sch_edf 2>/dev/null
	tcx "$h" qdisc add dev "$HOST_DEV" root handle 1: edf rate "$S_LINK" \
		limit 2000 flow_limit 1000 $TTD $CREDITS
	tcx "$h" class add dev "$HOST_DEV" parent 1: classid 1:1 edf control perflow off
	tcx "$h" class add dev "$HOST_DEV" parent 1: classid 1:2 edf rate "$S_LINK" \
		besteffort perflow off
	CLASS_OPTS[control]=prio=1:1
	CLASS_OPTS[multimedia]=prio=1:1
	CLASS_OPTS[besteffort]=prio=1:2
	CLASS_OPTS[background]=prio=1:2
}

host_trad4()	# one strict VC per class, token buckets on all but control
{
	local h=$1 kind bps share band=2 burst

	tcx "$h" qdisc add dev "$HOST_DEV" root handle 1: tbf rate "$S_LINK" burst 3000 limit 100000
	tcx "$h" qdisc add dev "$HOST_DEV" parent 1:1 handle 10: prio bands 4 \
		priomap 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3
	CLASS_OPTS[control]=prio=10:1
	for kind in multimedia besteffort background; do
		share=$(list_get "$S_MIX" $kind 0)
		bps=$((LINK_BPS * S_LOAD / 100 * share / 100))
		((bps > 0)) || bps=$((LINK_BPS / 100))
		if [[ $kind == multimedia ]]; then
			# allow the video's peak: two mean frames of all flows at once
			burst=$((bps / 8 * 2 * 40 / 1000))
		else
			burst=16000
		fi
		((burst >= 3000)) || burst=3000
		tcx "$h" qdisc add dev "$HOST_DEV" parent 10:$band handle $((band + 19)): tbf \
			rate $((bps * 11 / 10))bit burst $burst limit $((burst * 4))
		CLASS_OPTS[$kind]=prio=10:$band
		band=$((band + 1))
	done
}

host_edf()	# edf: control, frames, two weighted best-effort classes
{
	local h=$1 be bg

	be=$(list_get "$S_BE_WEIGHTS" besteffort 1)
	bg=$(list_get "$S_BE_WEIGHTS" background 1)
	modprobe sch_edf 2>/dev/null
	# as many packets as trad2's host holds (two bands of the veth's
	# txqueuelen, 1000), and a flow may take a band's worth: the edf
	# defaults (100 per flow) would drop best-effort bursts that trad2
	# keeps, and the comparison would be of buffers, not schedulers
	tcx "$h" qdisc add dev "$HOST_DEV" root handle 1: edf rate "$S_LINK" \
		eligibility "$S_ELIGIBILITY" limit 2000 flow_limit 1000 $TTD $CREDITS
	tcx "$h" class add dev "$HOST_DEV" parent 1: classid 1:1 edf control
	tcx "$h" class add dev "$HOST_DEV" parent 1: classid 1:2 edf frame "$S_FRAME_LATENCY" smooth
	tcx "$h" class add dev "$HOST_DEV" parent 1: classid 1:3 edf \
		rate $((LINK_BPS / 4 * be / (be + bg)))bit besteffort
	tcx "$h" class add dev "$HOST_DEV" parent 1: classid 1:4 edf \
		rate $((LINK_BPS / 4 * bg / (be + bg)))bit besteffort
	CLASS_OPTS[control]=prio=1:1
	CLASS_OPTS[multimedia]=prio=1:2,txtime=$S_FRAME_LATENCY
	CLASS_OPTS[besteffort]=prio=1:3
	CLASS_OPTS[background]=prio=1:4
}

# ---- run -------------------------------------------------------------------------

read_conf
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
# the machine's CPU ticks "busy idle" (every CPU): a run during which
# the CPUs were always busy measured the machine as much as the network
cpu_ticks() { awk '$1 == "cpu" { print $2 + $3 + $4 + $7 + $8, $5 + $6; exit }' /proc/stat; }
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
echo "$cpu_start $(cpu_ticks)" | awk '{ b = $3 - $1; i = $4 - $2
	printf "cpu busy %.0f %% during the run\n", b + i ? 100 * b / (b + i) : 0 }' > "$OUT/cpu.txt"
for hp in "${SENDERS[@]}"; do
	h=${hp%%:*}
	{ echo "== $h"; cat "$OUT/send-$h.txt"; } >> "$OUT/send.txt"
	rm -f "$OUT/send-$h.txt"
	[[ -s $OUT/send-$h.err ]] || rm -f "$OUT/send-$h.err"
done
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
