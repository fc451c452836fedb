#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabric.sh: a scenario on a multistage fabric (a scenario file with
# "tree = K,N"; scenario.sh hands those over to this runner).  The EDF
# paper's network of section 4.1 scaled to the VM: K^N hosts on a k-ary
# n-tree (folded butterfly) of vcsw switches of the scenario's
# architecture, built by fabric-topo with lossless credit links; every
# host sends the Table 1 mix, each flow of each class to a destination
# drawn uniformly from the other hosts; admission control (fabric-cac)
# gives each multimedia flow a route, the least loaded of its
# candidates, and refuses what would load a link past the cap, in which
# case the flow draws another destination (up to 8 times; then it is not
# sent and the refusal is reported).  The other classes are not
# admitted, as in the paper, and take the route their host has to the
# destination: the reserved one, or fabric-topo's default up*/down*
# route.
#
# Usage: fabric.sh SCENARIO.conf OUTDIR [KEY=VALUE...]  (as scenario.sh)
#   OUTDIR gets what scenario.sh writes (results.csv merged over the
#   receivers, CLASS.{cdf,msg.cdf,msg.hist}, qdisc.txt, switch.txt,
#   cpu.txt, setup.log, send.txt), and: rH/ (host H's receiver: its
#   recv.txt, results.csv and CDFs), traffic.txt (each flow's rate,
#   destination and switches crossed), cac.txt (fabric-cac's
#   reservations and link loads), hops.txt (switches crossed, from the
#   routes and from the switches' counters).
# Exit: 0 done, 1 failed, 2 bad scenario file, 4 skipped.
set -u

PROG=fabric
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

. "$(dirname "$0")/scenario_lib.sh"

KINDS="control multimedia besteffort background"
PORT=5201
DRAWS=8			# destinations a refused multimedia class may try

read_conf
[[ -n $S_TREE ]] || { echo "$CONF: no tree = K,N: run scenario.sh" >&2; exit 2; }
mkdir -p "$OUT" || die "cannot create $OUT"
rm -rf "${OUT:?}"/*
{ cat "$CONF"; printf '%s\n' "${OVERRIDES[@]}"; } > "$OUT/scenario.conf"
for key in name title host switch credits switch_buffer link duration load mix flows \
	control_target frame_latency eligibility be_weights seed qos_load tree cap; do
	v=S_${key^^}
	printf '%s = %s\n' "$key" "${!v}"
done > "$OUT/settings.txt"
: > "$OUT/setup.log"
[[ $(id -u) == 0 ]] || skip "needs root (namespaces, qdiscs)"
for tool in fabric-meter fabric-topo fabric-cac fabric-route; do
	command -v $tool > /dev/null || skip "$tool not on PATH"
done
for m in vcsw fabric_hdr sch_edf; do
	modinfo $m > /dev/null 2>&1 || lsmod | grep -q "^$m " ||
		skip "tree = $S_TREE needs the $m module"
done

K=${S_TREE%,*}
N=${S_TREE#*,}
NHOSTS=$((K ** N))
LINK_BPS=$(rate_bps "$S_LINK")
HOST_DEV=eth0
TTD="ttd on"
CREDITS="credits on"

# host H's address, as fabric-topo gives it (--net 10.59: 10.59.0.0 + H + 1)
host_addr() { echo "10.59.$((($1 + 1) / 256)).$((($1 + 1) % 256))"; }

# switches a frame from host A to host B crosses: up to the lowest stage L
# whose subtrees hold both, and down again, 2L + 1 (admission.rst)
switches_crossed()
{
	local a=$1 b=$2 l=0 span=$K

	while ((a / span != b / span)); do
		l=$((l + 1))
		span=$((span * K))
	done
	echo $((2 * l + 1))
}

# ---- the fabric ---------------------------------------------------------------
modprobe vcsw 2>/dev/null
modprobe fabric_hdr 2>/dev/null
modprobe sch_edf 2>/dev/null
topo=(fabric-topo --tree "$S_TREE" --name "$NS_PREFIX" --link "$S_LINK" --arch "$S_SWITCH"
      --credits on --buffer "$S_SWITCH_BUFFER")
# Traditional 4 VCs: four VCs in every switch, link and host
[[ $S_HOST != trad4 ]] || topo+=(--vcs 4)
echo "${topo[*]} build" >> "$OUT/setup.log"
# bash runs fabric-topo's script: busybox's sh (the VM's /bin/sh) would
# run its own ip applet (topology.rst)
FABRIC_TOPO_SHELL=bash "${topo[@]}" build >> "$OUT/setup.log" 2>&1 ||
	die "fabric-topo build failed: $(tail -n 3 "$OUT/setup.log")"
# every namespace of the fabric goes in cleanup, and its devices with it
# (a here-string, not <(...): the VM's initramfs has no /dev/fd)
mapfile -t NS_LIST <<< "$(ip netns list | awk -v p="$NS_PREFIX-" 'index($1, p) == 1 { print $1 }')"
((${#NS_LIST[@]} == NHOSTS + N * K ** (N - 1))) ||
	die "fabric-topo built ${#NS_LIST[@]} namespaces, want $((NHOSTS + N * K ** (N - 1)))"

# the architecture's host qdiscs replace fabric-topo's plain edf
for ((h = 0; h < NHOSTS; h++)); do
	tcx "h$h" qdisc del dev eth0 root
	"host_$S_HOST" "h$h"
done

# ---- destinations and admission -------------------------------------------------
# Every flow of every class goes to a destination drawn uniformly from the
# other hosts: the paper's "many individual flows", so that a class's
# load spreads over the fabric rather than landing whole on one host.
# bash's RANDOM, seeded with the scenario's seed, draws (in this shell:
# a subshell would not advance it), so a scenario draws the same traffic
# on every architecture.  Multimedia is regulated: each flow reserves its
# rate through fabric-cac, on the least loaded of its routes; a refused
# flow draws again, up to DRAWS times, and then is not sent.  A host's
# multimedia flows go to distinct destinations, so each reserved pair has
# one reservation and its route is the one the host's table gets.
# Control, best-effort and background are not admitted (the paper's
# section 4.2); they take the route the host has to their destination.
RANDOM=$S_SEED
draw() { D=$((RANDOM % (NHOSTS - 1))); ((D >= $1)) && D=$((D + 1)); }
CAC=(fabric-cac --state "$OUT/cac.state" --tree "$S_TREE" --link "$S_LINK" --cap "$S_CAP")
declare -A NFLOWS	# "H D KIND" -> flows of KIND from host H to host D
refused=0
: > "$OUT/traffic.txt"
for ((h = 0; h < NHOSTS; h++)); do
	mm_dests=" "
	for kind in $KINDS; do
		share=$(list_get "$S_MIX" $kind 0)
		((share > 0)) || continue
		nflows=$(list_get "$S_FLOWS" $kind 1)
		fbps=$((LINK_BPS * S_LOAD / 100 * share / 100 / nflows))
		for ((f = 0; f < nflows; f++)); do
			draw $h
			if [[ $kind == multimedia ]]; then
				for ((try = 1; ; try++)); do
					if [[ $mm_dests != *" $D "* ]]; then
						"${CAC[@]}" add $h $D ${fbps}bit class 2 >> "$OUT/setup.log" 2>&1 && break
						(($? == 3)) || die "fabric-cac add $h $D failed: $(tail -n 2 "$OUT/setup.log")"
					fi
					((try < DRAWS)) || { D=; break; }
					draw $h
				done
				if [[ -z $D ]]; then
					refused=$((refused + 1))
					echo "h$h $kind flow $f refused after $DRAWS destinations" >> "$OUT/traffic.txt"
					continue
				fi
				mm_dests+="$D "
			fi
			NFLOWS["$h $D $kind"]=$((${NFLOWS["$h $D $kind"]:-0} + 1))
			echo "h$h $kind flow $f $fbps bit/s to h$D, $(switches_crossed $h $D) switches" >> "$OUT/traffic.txt"
		done
	done
done
echo "multimedia flows refused by admission control: $refused" >> "$OUT/traffic.txt"
"${CAC[@]}" show > "$OUT/cac.txt" 2>&1
for ((h = 0; h < NHOSTS; h++)); do
	"${CAC[@]}" routes $h dev eth0 > "$OUT/routes.tmp" 2>> "$OUT/setup.log" ||
		die "fabric-cac routes $h failed"
	[[ -s $OUT/routes.tmp ]] || continue
	cat "$OUT/routes.tmp" >> "$OUT/setup.log"
	nsx "h$h" fabric-route -b - < "$OUT/routes.tmp" >> "$OUT/setup.log" 2>&1 ||
		die "[h$h] fabric-route -b failed: $(tail -n 2 "$OUT/setup.log")"
done
rm -f "$OUT/routes.tmp"

# ---- traffic ---------------------------------------------------------------------
# One sender per host, with a class per destination and kind holding the
# flows drawn for it (dst=, and the class id it has at that destination,
# id=); one receiver per destination, which tells the classes apart by
# their ids.  A class is named hH-dD-KK (KK: co, mm, be, bg), so its
# results and CDFs at the receiver say where it came from.
declare -A SPECS NRECV
declare -A CODE=([control]=co [multimedia]=mm [besteffort]=be [background]=bg)
for ((h = 0; h < NHOSTS; h++)); do
	for ((d = 0; d < NHOSTS; d++)); do
		for kind in $KINDS; do
			nf=${NFLOWS["$h $d $kind"]:-0}
			((nf)) || continue
			share=$(list_get "$S_MIX" $kind 0)
			nflows=$(list_get "$S_FLOWS" $kind 1)
			bps=$((LINK_BPS * S_LOAD / 100 * share / 100 / nflows * nf))
			opts=${CLASS_OPTS[$kind]:+,${CLASS_OPTS[$kind]}}
			case $kind in
			control)    opts+=",target=$S_CONTROL_TARGET" ;;
			multimedia) opts+=",target=$S_FRAME_LATENCY" ;;
			esac
			SPECS[$h]+=" $kind,name=h$h-d$d-${CODE[$kind]},dst=$(host_addr $d),id=${NRECV[$d]:-0},rate=$bps,flows=$nf$opts"
			NRECV[$d]=$((${NRECV[$d]:-0} + 1))
		done
	done
done

echo "$PROG: $S_NAME ($S_TITLE): ${NHOSTS} hosts on a $K-ary $N-tree, host $S_HOST," \
	"switch $S_SWITCH, link $S_LINK, load $S_LOAD %, ${S_DURATION}s"
recv_time=$(awk -v d="$S_DURATION" 'BEGIN { printf "%d", 5 * d + 60 }')
backlog_apply
softnet_start=$(softnet_drops)
cpu_start=$(cpu_ticks)
RECEIVERS=()
for d in "${!NRECV[@]}"; do
	mkdir -p "$OUT/r$d"
	nsx "h$d" fabric-meter recv --quiet --port $PORT --duration "$recv_time" \
		--expect "${NRECV[$d]}" --ready "$OUT/r$d/ready" --data "$OUT/r$d" \
		> "$OUT/r$d/recv.txt" 2> "$OUT/r$d/recv.err" &
	RECEIVERS+=("$d:$!")
	BG_PIDS+=("$!")
done
for dp in "${RECEIVERS[@]}"; do
	d=${dp%%:*}
	wait_file "$OUT/r$d/ready" || die "h$d's receiver did not start: $(cat "$OUT/r$d/recv.err")"
done
SENDERS=()
for h in "${!SPECS[@]}"; do
	args=()
	for spec in ${SPECS[$h]}; do
		args+=(--class "$spec")
	done
	nsx "h$h" fabric-meter send --quiet --port $PORT --duration "$S_DURATION" \
		--wait 60 --seed $((S_SEED * 1000 + h)) "${args[@]}" \
		> "$OUT/send-h$h.txt" 2> "$OUT/send-h$h.err" &
	SENDERS+=("h$h:$!")
	BG_PIDS+=("$!")
done
# the hosts' qdiscs, and every switch port (the report counts drops and
# credit violations there)
hosts_state()
{
	local h

	for ((h = 0; h < NHOSTS; h++)); do
		echo "== h$h"
		nsx "h$h" tc -s qdisc show dev eth0 2>&1
		nsx "h$h" tc -s class show dev eth0 2>&1
	done
}
switches_state()
{
	local ns

	for ns in "${NS_LIST[@]}"; do
		[[ $ns == "$NS_PREFIX"-s* ]] || continue
		echo "== ${ns#"$NS_PREFIX"-}"
		ip -n "$ns" -d -s link show 2>&1 | grep -v "^[0-9]*: lo:"
	done
}
for sp in "${SENDERS[@]}"; do
	wait "${sp#*:}" && continue
	# a sender that never got through: keep the links' credit counters,
	# which the teardown would take with it
	{ hosts_state; switches_state; } > "$OUT/failed-state.txt"
	die "fabric-meter send ${sp%%:*} failed: $(cat "$OUT/send-${sp%%:*}.err")" \
		"(hosts and switch ports then: $OUT/failed-state.txt)"
done
for dp in "${RECEIVERS[@]}"; do
	wait "${dp#*:}" || die "h${dp%%:*}'s receiver failed: $(cat "$OUT/r${dp%%:*}/recv.err")"
done
BG_PIDS=()
cpu_record "$cpu_start"
losses_record "$softnet_start" $(for ((h = 0; h < NHOSTS; h++)); do echo h$h; done)

# ---- results ---------------------------------------------------------------------
send_gather "${SENDERS[@]}"
hosts_state > "$OUT/qdisc.txt"
switches_state > "$OUT/switch.txt"
: > "$OUT/switch-inputs.txt"
bash "$(dirname "$0")/fabric_merge.sh" "$OUT" || die "merging the receivers' results failed"

# hops: from the routes, weighted by datagrams received; and measured, the
# frames all switch ports sent over the datagrams all hosts received
awk -F, '
	FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ split($c["name"], n, "-"); print FILENAME, substr(n[1], 2), $c["kind"], $c["received"] }' \
	"$OUT"/r*/results.csv > "$OUT/hops.tmp"
while read -r f src kind rcvd; do
	dst=${f%/results.csv}
	dst=${dst##*/r}
	echo "$rcvd $(switches_crossed "$src" "$dst")"
done < "$OUT/hops.tmp" | awk '{ n += $1; s += $1 * $2; if ($2 > m) m = $2 }
	END { printf "switches per datagram, from the routes: %.2f (at most %d)\n", n ? s / n : 0, m
	      printf "datagrams received: %d\n", n }' > "$OUT/hops.txt"
rm -f "$OUT/hops.tmp"
awk '$1 ~ /^vc[0-3]:$/ && $2 == "packets" { p += $3 } END { printf "frames sent by switch ports: %d\n", p }' \
	"$OUT/switch.txt" >> "$OUT/hops.txt"
awk '/^datagrams received:/ { n = $3 } /^frames sent by switch ports:/ { p = $6 }
	END { if (n) printf "switches per datagram, measured: %.2f (control frames and end marks included)\n", p / n }' \
	"$OUT/hops.txt" >> "$OUT/hops.txt"
# what the links' credits cost: the link messages every end sent (hosts'
# qdiscs and switch ports; they bypass the qdiscs) against the data
# frames the hosts' qdiscs and the switch ports sent
awk '/^qdisc / { q = 1 } /^class / { q = 0 }
	q && /^ Sent [0-9]+ bytes [0-9]+ pkt/ { f += $4 }
	{ for (i = 1; i < NF; i++) if ($i == "msgs_sent") m += $(i + 1) }
	END { printf "frames sent by hosts: %d\nlink messages sent: %d\n", f, m }' \
	"$OUT/qdisc.txt" "$OUT/switch.txt" >> "$OUT/hops.txt"
for f in "$OUT"/r*/ready; do rm -f "$f"; done
cat "$OUT/recv.txt"
cat "$OUT/hops.txt"
exit 0
