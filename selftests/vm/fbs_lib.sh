# SPDX-License-Identifier: GPL-2.0
#
# FBS hosts on one vcsw, for vm/fbs_verify, vm/fbs_eight and demo/fbs
# (sourced after lib.sh; loads the modules, makes TMP_DIR).  Host i is namespace V$i with eth0 at fbs_mac i and fbs_addr i,
# on port p$i of switch sw0 in namespace S; fbs-sched names it by its
# default name (A, B, ...).  Every neighbour is permanent: no ARP goes
# through a schedule.
#
#   fbs_fabric N VCSW_OPTION...   build it (FBS_HOSTS: "0 1 .. N-1"), softirqs first
#   fbs_qdiscs SCHED OPTION...    each host's qdisc from fbs-sched tc
#                                 (FBS_FILTERS=0: no filter, all best effort)
#   fbs_traffic_start RATE        udp-lat from every host to every other
#   fbs_send I J RATE             ... from host I to host J only
#   fbs_traffic_stop              stop it and wait for the queues to drain
#   fbs_boot                      fbs-boot's ring on every host at once
#   fbs_xq I / fbs_xget KEY...    host I's qdisc (FBS_J), no process; its
#                                 counters KEY... (FBS_V)
#   fbs_xs I KEY...               the two at once
#   fbs_snap                      every host's counters (F, IN, EARLY, ...)
#   fbs_window SECONDS            their change over a window (dF, dIN, ...)
#   fbs_lat_read I                host I's arrival latencies, no process:
#                                 64 counts, their sum and the largest
#   fbs_lat_window                ... over a window (of two such lines)
#   fbs_lat_summary [QUARTERS]    ... summed up (of one such line)
#   fbs_lat QUARTERS LINE         ... in FBS_LAT_*

require_module sch_fbs
require_module vcsw
require_module fabric_hdr
tmp_dir_create
# make check-debug's kernel (KASAN, lockdep) runs the guest so slowly
# that the ring ends hosts milliseconds apart, more than half a slot:
# there the slot timing checks are expected failures (xfail_on_slow).
# How long fbs-boot may take.  On that kernel three hosts' rings of six
# rounds ended within a test's first three minutes (vm/fbs_busy,
# vm/fbs_verify, 2026-11-29), while eight hosts' timers and credit
# messages kept both vCPUs busy and their ring ran 1 to 5 of its 16
# rounds a minute (vm/fbs_eight, which no longer runs there): ten
# minutes there, within the tests' own timeouts.
FBS_BOOT_TIMEOUT=60
if [ "$FQ_SLOW" = 1 ]; then FBS_BOOT_TIMEOUT=600; fi

fbs_mac() { printf '02:fa:00:00:00:%02x' "$1"; }
fbs_addr() { echo "10.26.0.$(($1 + 1))"; }
fbs_name() { printf "\\x$(printf %x $((65 + $1)))"; }

fbs_fabric()
{
	local n=$1 i j

	shift
	# the hosts' NIC work before their applications (lib.sh)
	softirq_first
	FBS_N=$n
	FBS_HOSTS=$(seq -s ' ' 0 $((n - 1)))
	ns_create S
	ns_run S ip link add sw0 type vcsw "$@" || fatal "vcsw $*"
	ns_run S ip link set sw0 up
	for i in $FBS_HOSTS; do
		switch_host V$i p$i "$(fbs_mac $i)" "$(fbs_addr $i)/24"
		ns_exec S sysctl -qw net.ipv6.conf.p$i.disable_ipv6=1
		ns_run S ip link set p$i type vcsw_slave fdb_add "$(fbs_mac $i)" || fatal "fdb $i"
	done
	for i in $FBS_HOSTS; do
		for j in $FBS_HOSTS; do
			[ $i = $j ] && continue
			ns_run V$i ip neigh replace "$(fbs_addr $j)" lladdr "$(fbs_mac $j)" \
				dev eth0 nud permanent || fatal "neighbour"
		done
		ns_bg V$i udp-lat recv --port 9000 --duration 3600 > /dev/null
	done
	fbs_readers
}

# fbs_qdiscs SCHED OPTION...: each host's column of SCHED as fbs-sched
# prints it (replace), with FBS_TC (slot, rate, verify, ...) and OPTION,
# and a short queue per class (4 packets) so that stopped senders drain
# fast.  A flower filter per destination puts its frames in its class;
# FBS_FILTERS=0: none, every frame is best effort.
fbs_qdiscs()
{
	local sched=$1 i mac=(--mac 02:fa:00:00:00:00)

	shift
	[ "${FBS_FILTERS:-1}" = 1 ] || mac=()
	for i in $FBS_HOSTS; do
		# shellcheck disable=SC2086
		fbs-sched tc "$sched" --node "$(fbs_name $i)" "${mac[@]}" \
			$FBS_TC "$@" > "$TMP_DIR/v$i.tc" || fatal "fbs-sched tc"
		echo "qdisc change dev eth0 root handle 1: fbs limit 4" >> "$TMP_DIR/v$i.tc"
		ns_exec V$i tc -b "$TMP_DIR/v$i.tc" || fatal "V$i's qdisc: $(cat "$TMP_DIR/v$i.tc")"
	done
}

# fbs_traffic_start RATE: 1400-byte datagrams at RATE per second from each
# host to each other one (pick RATE over what the slots carry, so that
# every reserved slot has a frame)
FBS_SENDERS=()
fbs_send()
{
	ns_bg V$1 udp-lat send --dst "$(fbs_addr $2)" --port 9000 --size 1400 \
		--rate "$3" --duration 3600 --no-retry > /dev/null 2>&1
	FBS_SENDERS+=($BG_PID)
}
fbs_traffic_start()
{
	local i j

	for i in $FBS_HOSTS; do
		for j in $FBS_HOSTS; do
			[ $i = $j ] || fbs_send $i $j "$1"
		done
	done
}
fbs_drained()
{
	local i

	for i in $FBS_HOSTS; do
		[ "$(ns_exec V$i tc -s -j qdisc show dev eth0 root | tr -d ' \n' |
		      sed -n 's/.*"qlen":\([0-9]*\).*/\1/p')" = 0 ] || return 1
	done
}
fbs_traffic_stop()
{
	local p

	for p in "${FBS_SENDERS[@]}"; do
		kill "$p" 2>/dev/null
		bg_wait "$p"
	done
	FBS_SENDERS=()
	wait_for 20 fbs_drained || fatal "the queues did not drain"
}

# fbs_boot: the ring V0 -> V1 -> ... -> V0 (each one's left is the next),
# all at once, twice as many rounds as hosts; V0 leads: slot 0 begins on
# every host when V0's start signal arrived (from V0's address only).
# FBS_BOOT_LOG: V0's report.
fbs_boot()
{
	local i pids=() role

	for i in $FBS_HOSTS; do
		role=(--follow --leader-mac "$(fbs_mac 0)")
		[ $i = 0 ] && role=(--leader)
		ns_bg V$i fbs-boot --left "$(fbs_mac $(((i + 1) % FBS_N)))" "${role[@]}" \
			--rounds $((2 * FBS_N)) --dev eth0 --timeout $FBS_BOOT_TIMEOUT \
			> "$TMP_DIR/boot$i" 2>&1
		pids+=($BG_PID)
	done
	for i in "${pids[@]}"; do
		bg_wait "$i" || fatal "fbs-boot: $(cat "$TMP_DIR"/boot*)"
	done
	FBS_BOOT_LOG=$(cat "$TMP_DIR/boot0")
}

# fbs_readers: a tc per host, started once, that prints the host's
# qdisc when fbs_xs asks it (a line on a FIFO), so that reading counters
# starts no process.  On 6.1 every process start held the one CPU's
# network work up to a millisecond, every host's at once but unevenly,
# and a window read by a tc run per host at each end put a few frames
# out of their slots (vm/fbs_verify: 7 of 468 once).
FBS_RQ=() FBS_RA=()
fbs_readers()
{
	local i q a

	for i in $FBS_HOSTS; do
		mkfifo "$TMP_DIR/rq$i" "$TMP_DIR/ra$i"
		# read-write: opening either end then waits for no peer
		exec {q}<>"$TMP_DIR/rq$i" {a}<>"$TMP_DIR/ra$i"
		FBS_RQ[i]=$q FBS_RA[i]=$a
		# not ns_bg: a job started with & reads /dev/null unless its
		# own command line says otherwise
		echo "[V$i] tc -s -j -force -batch - (the counters' reader) &" >&"$LOG_FD"
		ns_entry V$i tc
		"${NS_ENTRY[@]}" -s -j -force -batch - <&"$q" >&"$a" 2>&1 &
		bg_track $!
	done
}

# fbs_xq I: host I's root qdisc as JSON, up to the link's own
# statistics ("credits", which come last), in FBS_J; read by host I's
# reader, with no process started
fbs_xq()
{
	local j

	FBS_XI=$1
	# not "root": tc -batch remembers it, and refuses it the second time
	echo "qdisc show dev eth0" >&"${FBS_RQ[$1]}"
	IFS= read -r -t 60 j <&"${FBS_RA[$1]}" || fatal "V$1's tc reader did not answer"
	# the root qdisc, which comes first
	j=${j%%\},\{\"kind\":*}
	FBS_J=${j%\"credits\":\{*}
}

# fbs_xget KEY...: those counters of FBS_J, in FBS_V, by bash's own
# matching
fbs_xget()
{
	local k

	FBS_V=()
	for k in "$@"; do
		# the last one, as the options come first ("slot" is in both)
		[[ $FBS_J =~ .*\"$k\":([0-9]+) ]] || fatal "V$FBS_XI: no $k in $FBS_J"
		FBS_V+=("${BASH_REMATCH[1]}")
	done
}

# fbs_xs I KEY...: host I's qdisc counters KEY..., in FBS_V
fbs_xs()
{
	fbs_xq "$1"
	shift
	fbs_xget "$@"
}

# fbs_snap: every host's judged frames and stalls, in the arrays F, IN,
# EARLY, LATE, FOREIGN, STALLS
fbs_snap()
{
	local i

	for i in $FBS_HOSTS; do
		fbs_xs $i rx_frames rx_in_slot rx_early rx_late rx_foreign stalls
		F[i]=${FBS_V[0]} IN[i]=${FBS_V[1]} EARLY[i]=${FBS_V[2]} LATE[i]=${FBS_V[3]}
		FOREIGN[i]=${FBS_V[4]} STALLS[i]=${FBS_V[5]}
	done
}

# fbs_window SECONDS [quiet]: the counts over the window, per host, in
# dF, dIN, dE, dL, dX, dS; logged unless quiet
fbs_window()
{
	local i f0=() in0=() e0=() l0=() x0=() s0=()

	fbs_snap
	for i in $FBS_HOSTS; do
		f0[i]=${F[i]} in0[i]=${IN[i]} e0[i]=${EARLY[i]} l0[i]=${LATE[i]}
		x0[i]=${FOREIGN[i]} s0[i]=${STALLS[i]}
	done
	sleep "$1"
	fbs_snap
	for i in $FBS_HOSTS; do
		dF[i]=$((F[i] - f0[i])) dIN[i]=$((IN[i] - in0[i])) dE[i]=$((EARLY[i] - e0[i]))
		dL[i]=$((LATE[i] - l0[i])) dX[i]=$((FOREIGN[i] - x0[i])) dS[i]=$((STALLS[i] - s0[i]))
		[ "${2:-}" = quiet ] ||
			log_info "V$i: ${dF[i]} judged, ${dIN[i]} in slot, ${dE[i]} early, ${dL[i]} late, ${dX[i]} foreign; ${dS[i]} stalls"
	done
}

# fbs_lat_read I: host I's arrival latencies since its qdisc began
# (verify on: from each frame's slot start at its sender to its last byte
# here) on one line, in FBS_LAT_LINE: the 64 quarter-slot counts of
# rx_lat_hist, then rx_lat_sum_ns and rx_lat_max_ns.  Read as fbs_xs
# reads, with no process started, so that a window can be read while
# traffic flows.
fbs_lat_read()
{
	fbs_xq "$1"
	[[ $FBS_J =~ \"rx_lat_sum_ns\":([0-9]+),\"rx_lat_max_ns\":([0-9]+),\"rx_lat_hist\":\[([0-9,]*)\] ]] ||
		fatal "V$1: no arrival latencies in $FBS_J"
	FBS_LAT_LINE="${BASH_REMATCH[3]//,/ } ${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
}

# fbs_lat_window: of lines "0 LINE" and "1 LINE" on stdin, LINEs of
# fbs_lat_read at a window's start (0) and end (1), of one receiver or
# more: one such line of the window, its counts and sum of latencies
# added over the receivers, then the largest latency at the end (since
# the qdiscs began: a maximum does not subtract)
fbs_lat_window()
{
	awk '{ s = $1 ? 1 : -1; for (i = 2; i < NF; i++) d[i] += s * $i
	       if ($1 && $NF > mx) mx = $NF; nf = NF }
	     END { for (i = 2; i < nf; i++) printf "%.0f ", d[i]; printf "%.0f\n", mx }'
}

# fbs_lat_summary [QUARTERS]: of such a line on stdin, the frames, the
# mean and the largest latency (us), the quarter-slot buckets that hold
# the median, the 99th percentile and the largest (-1: no frame), and
# the frames QUARTERS or more quarter slots late (64: none)
fbs_lat_summary()
{
	awk -v over="${1:-64}" '{
		nb = NF - 2
		n = 0
		for (i = 1; i <= nb; i++)
			n += $i
		p50 = p99 = top = -1
		c = o = 0
		for (i = 1; i <= nb; i++) {
			c += $i
			if (p50 < 0 && n && c * 2 >= n) p50 = i - 1
			if (p99 < 0 && n && c * 100 >= n * 99) p99 = i - 1
			if ($i) top = i - 1
			if (i - 1 >= over) o += $i
		}
		printf "%.0f %.0f %.0f %d %d %d %.0f\n", n, n ? $(NF - 1) / n / 1000 : 0,
			$NF / 1000, p50, p99, top, o
	}'
}

# fbs_lat QUARTERS LINE: fbs_lat_summary of LINE (fbs_lat_read's or
# fbs_lat_window's), in FBS_LAT_N, FBS_LAT_MEAN_US, FBS_LAT_MAX_US,
# FBS_LAT_P50_Q, FBS_LAT_P99_Q, FBS_LAT_MAX_Q and FBS_LAT_OVER
fbs_lat()
{
	read -r FBS_LAT_N FBS_LAT_MEAN_US FBS_LAT_MAX_US FBS_LAT_P50_Q FBS_LAT_P99_Q \
		FBS_LAT_MAX_Q FBS_LAT_OVER <<< "$(fbs_lat_summary "$1" <<< "$2")"
}
