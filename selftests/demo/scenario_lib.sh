#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# scenario_lib.sh: what the scenario runners share, sourced by
# scenario.sh (a direct link or one switch) and fabric.sh (a k-ary n-tree
# of switches): the scenario file and its checks, namespaces and logged
# commands in them, cleanup, and the host qdiscs of each architecture.
# The caller sets PROG, CONF, OUT and OVERRIDES (its KEY=VALUE
# arguments as "KEY = VALUE" lines) first.

NS_PREFIX="fqs-$$"
NS_LIST=()
BG_PIDS=()

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
	[[ -z $BACKLOG_SAVED ]] || sysctl -qw net.core.netdev_max_backlog="$BACKLOG_SAVED"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

TTD=""			# "ttd on": edf hosts mark the time to deadline
CREDITS=""		# "credits on": the hosts' qdiscs honour the switch's credits

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
S_TREE=""		# K,N: a k-ary n-tree of switches (fabric.sh)
S_CAP=70		# fabric: admission control's cap, % of a link
S_BACKLOG=""		# net.core.netdev_max_backlog during the run ("": as it is)

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
		frame_latency|eligibility|be_weights|seed|credits|switch_buffer|qos_load|\
		tree|cap|backlog)
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
	# trad4's hosts on one switch are in-tree qdiscs: they cannot wait for
	# credits, and a port with credits drops what comes without
	# (violations); in a fabric they are edf (host_trad4_fabric)
	[[ $S_HOST != trad4 || $S_SWITCH == none || $S_CREDITS == off || -n $S_TREE ]] ||
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
	if [[ -n $S_TREE ]]; then
		[[ $S_TREE =~ ^[2-9],[1-3]$ ]] ||
			{ echo "$CONF: tree = $S_TREE: want K,N (K 2 .. 9, N 1 .. 3)" >&2; exit 2; }
		[[ $S_SWITCH != none ]] ||
			{ echo "$CONF: tree = $S_TREE needs a switch architecture (trad, simple, advanced, ideal)" >&2; exit 2; }
		[[ $S_CREDITS == on ]] ||
			{ echo "$CONF: tree = $S_TREE: the fabric is lossless, credits = off is not supported" >&2; exit 2; }
	fi
	[[ $S_CAP =~ ^[0-9]{1,3}$ ]] && ((10#$S_CAP >= 1 && 10#$S_CAP <= 100)) ||
		{ echo "$CONF: cap = $S_CAP: want 1 .. 100 (%)" >&2; exit 2; }
	[[ -z $S_BACKLOG || $S_BACKLOG =~ ^[1-9][0-9]{0,6}$ ]] ||
		{ echo "$CONF: backlog = $S_BACKLOG: want 1 .. 9999999 (packets)" >&2; exit 2; }
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
		# in a fabric every host sends every class with all its flows
		[[ $S_SWITCH == none || -n $S_TREE ]] || ((nflows >= 2)) ||
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

# run in a namespace, logged.  In the VM (TCG) every program started
# costs, and a run starts a hundred: ip and tc enter the namespace by
# themselves (-n); our tools and sysctl, which use only sockets and
# /proc, through nsenter, which execs them; the rest through ip netns
# exec, which also mounts the namespace's /sys (selftests/vm/lib.sh,
# ns_entry)
NETNS_DIR=/run/netns
NSENTER=$(command -v nsenter)
nsx()
{
	local n=$1; shift

	echo "[$n] $*" >> "$OUT/setup.log"
	case $1 in
	ip|tc)	"$1" -n "$NS_PREFIX-$n" "${@:2}" ;;
	fabric-*|sysctl)
		if [[ -n $NSENTER ]]; then
			"$NSENTER" --net="$NETNS_DIR/$NS_PREFIX-$n" "$@"
		else
			ip netns exec "$NS_PREFIX-$n" "$@"
		fi ;;
	*)	ip netns exec "$NS_PREFIX-$n" "$@" ;;
	esac
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
	[[ -e $NETNS_DIR/$NS_PREFIX-$1 ]] || NETNS_DIR=/var/run/netns
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

# ---- what a run records -----------------------------------------------------------

# cpu_ticks: the machine's CPU ticks "busy idle" (every CPU), from
# /proc/stat with builtins: a run during which the CPUs were always busy
# measured the machine as much as the network
cpu_ticks()
{
	local cpu user nice sys idle iowait irq softirq rest

	read -r cpu user nice sys idle iowait irq softirq rest < /proc/stat
	echo "$((user + nice + sys + irq + softirq)) $((idle + iowait))"
}

# backlog_apply: the scenario's receive backlog (netdev_max_backlog, the
# packets each CPU queues for its softirq, a global setting) until the run
# ends.  Every veth frame of every namespace goes through it: a fabric of
# many hosts on one VM CPU fills the kernel's default (1000) while the
# senders run, and what does not fit is dropped before any qdisc or
# switch sees it (losses.txt counts it).
BACKLOG_SAVED=
backlog_apply()
{
	[[ -n $S_BACKLOG ]] || return 0
	BACKLOG_SAVED=$(sysctl -n net.core.netdev_max_backlog) &&
		sysctl -qw net.core.netdev_max_backlog="$S_BACKLOG" ||
		die "cannot set net.core.netdev_max_backlog to $S_BACKLOG"
}

# softnet_drops: frames the receive backlogs of all CPUs dropped since boot
# (/proc/net/softnet_stat: a line per CPU, the second column, hex)
softnet_drops()
{
	local f sum=0

	while read -r -a f; do
		sum=$((sum + 16#${f[1]}))
	done < /proc/net/softnet_stat
	echo $sum
}

# losses_record SOFTNET_START HOST...: $OUT/losses.txt, where frames were
# lost outside the qdiscs and switches since SOFTNET_START (softnet_drops
# at the start of the run): the CPUs' receive backlogs, the hosts' devices
# (/proc/net/dev's drop columns) and their UDP sockets (/proc/net/snmp:
# a full socket buffer, a bad checksum).  The counters of a namespace
# start with it, so they are the run's.
losses_record()
{
	local start=$1 h

	shift
	{
		echo "receive backlog drops (all CPUs, netdev_max_backlog" \
			"$(sysctl -n net.core.netdev_max_backlog)): $(($(softnet_drops) - start))"
		for h in "$@"; do
			nsx "$h" cat /proc/net/dev /proc/net/snmp
		done | awk '
			/:/ && $1 !~ /^[A-Z][A-Za-z]*:$/ {
				sub(/^[^:]*:/, ""); split($0, f, " ")
				rxdrop += f[4]; txdrop += f[12]; next }
			$1 == "Udp:" && $2 ~ /^[A-Z]/ { for (i = 2; i <= NF; i++) c[i] = $i; next }
			$1 == "Udp:" { for (i = 2; i <= NF; i++) u[c[i]] += $i }
			END {
				printf "host devices: rx dropped %d, tx dropped %d\n", rxdrop, txdrop
				printf "host UDP: InDatagrams %d, InErrors %d, RcvbufErrors %d, NoPorts %d\n",
					u["InDatagrams"], u["InErrors"], u["RcvbufErrors"], u["NoPorts"]
			}'
	} > "$OUT/losses.txt"
}

# cpu_record START: $OUT/cpu.txt, how busy the CPUs were since START
# (cpu_ticks at the start of the run)
cpu_record()
{
	echo "$1 $(cpu_ticks)" | awk '{ b = $3 - $1; i = $4 - $2
		printf "cpu busy %.0f %% during the run\n", b + i ? 100 * b / (b + i) : 0 }' > "$OUT/cpu.txt"
}

# send_gather NAME:PID...: each sender's send-NAME.txt into send.txt,
# under "== NAME", in that order; its send-NAME.err goes when empty
send_gather()
{
	local sp s

	for sp in "$@"; do
		s=${sp%%:*}
		{ echo "== $s"; cat "$OUT/send-$s.txt"; } >> "$OUT/send.txt"
		rm -f "$OUT/send-$s.txt"
		[[ -s $OUT/send-$s.err ]] || rm -f "$OUT/send-$s.err"
	done
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

# trad4's token buckets: BUCKET_BPS and BUCKET_BYTES of class KIND
trad4_bucket()
{
	local kind=$1 share

	share=$(list_get "$S_MIX" "$kind" 0)
	BUCKET_BPS=$((LINK_BPS * S_LOAD / 100 * share / 100))
	((BUCKET_BPS > 0)) || BUCKET_BPS=$((LINK_BPS / 100))
	if [[ $kind == multimedia ]]; then
		# allow the video's peak: two mean frames of all flows at once
		BUCKET_BYTES=$((BUCKET_BPS / 8 * 2 * 40 / 1000))
	else
		BUCKET_BYTES=16000
	fi
	((BUCKET_BYTES >= 3000)) || BUCKET_BYTES=3000
	# the bucket's rate: the class's share and a tenth
	BUCKET_BPS=$((BUCKET_BPS * 11 / 10))
}
# Traditional 4 VCs in a fabric, whose links have credits: edf with four
# VCs, one class each (FIFO: perflow off), token buckets as host_trad4's
# (edf's burst) on all but control
host_trad4_fabric()
{
	local h=$1 kind vc=1

	modprobe sch_edf 2>/dev/null
	tcx "$h" qdisc add dev "$HOST_DEV" root handle 1: edf rate "$S_LINK" vcs 4 \
		limit 2000 flow_limit 1000 $TTD $CREDITS
	tcx "$h" class add dev "$HOST_DEV" parent 1: classid 1:1 edf control perflow off
	CLASS_OPTS[control]=prio=1:1
	for kind in multimedia besteffort background; do
		trad4_bucket $kind
		tcx "$h" class add dev "$HOST_DEV" parent 1: classid 1:$((vc + 1)) edf \
			rate ${BUCKET_BPS}bit burst $BUCKET_BYTES vc $vc perflow off
		CLASS_OPTS[$kind]=prio=1:$((vc + 1))
		vc=$((vc + 1))
	done
}
host_trad4()	# one strict VC per class, token buckets on all but control
{
	local h=$1 kind band=2

	if [[ -n $S_TREE ]]; then
		host_trad4_fabric "$h"
		return
	fi

	tcx "$h" qdisc add dev "$HOST_DEV" root handle 1: tbf rate "$S_LINK" burst 3000 limit 100000
	tcx "$h" qdisc add dev "$HOST_DEV" parent 1:1 handle 10: prio bands 4 \
		priomap 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3 3
	CLASS_OPTS[control]=prio=10:1
	for kind in multimedia besteffort background; do
		trad4_bucket $kind
		tcx "$h" qdisc add dev "$HOST_DEV" parent 10:$band handle $((band + 19)): tbf \
			rate ${BUCKET_BPS}bit burst $BUCKET_BYTES limit $((BUCKET_BYTES * 4))
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
