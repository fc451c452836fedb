#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers of the tests in selftests/vm, sourced by each of them.
# They run as root inside the test VM, one bash per test, cwd = this
# directory, our tools on PATH.
#
#   RET / check_err / check_fail / log_test   sub-check bookkeeping; the
#                                             script exits with $EXIT_STATUS
#   read_num VAR CMD...                       CMD's output into VAR, a
#                                             failed check if no number
#   skip REASON                               exit 4 with the reason
#   require_cmd / require_module              skip when the VM lacks them
#   module_unload NAME                        modprobe -r, riding out readers
#   ns_create NAME                            namespace "<test>-<pid>-NAME"
#   ns_run NAME CMD...                        run in it, echoing the command
#   ns_bg NAME CMD...                         same in the background; pid in
#                                             $BG_PID, killed by cleanup
#   wait_for SECONDS CMD...                   poll CMD until it succeeds
#   nap SECONDS                               sleep, no program started
#   xfail_on_slow CHECK...                    a timing check: an expected
#                                             failure on a debug kernel
#   veth_create NS1 DEV1 ADDR1 NS2 DEV2 ADDR2 MAC2
#   sink_start / sink_check                   udp-sink in a namespace
#   json_u64 / json_hist                      fields of `fabric-stat -j`
#   qdisc_stat NS DEV NAME [SELECTOR...]      a number of a qdisc's `tc -s -j`
#   pair_vms / peer CMD...                    the tester of a pair of VMs
#                                             ("# vm: pair"); a command
#                                             run on the other VM
#
# cleanup runs on every exit, after a failure too: it kills what ns_bg
# started, runs the test's own cleanup_test if defined, deletes the
# namespaces and the scratch directory $TMP_DIR.

KSFT_PASS=0
KSFT_FAIL=1
KSFT_SKIP=4

TEST_NAME=${TEST_NAME:-$(basename "$0" .sh)}
NS_PREFIX="$TEST_NAME-$$"
NS_LIST=()
BG_PIDS=()
BG_PID=
TMP_DIR=

RET=0
EXIT_STATUS=0
retmsg=
XFAIL_MSGS=()	# misses of checks run by xfail_on_slow on a slow kernel

set -o pipefail

# Command echoes go to the test's stderr even when a caller redirects the
# helper's own stderr (ns_bg ... 2>file).
exec {LOG_FD}>&2

# nap SECONDS: sleep without starting a program.  A poll loop's `sleep
# 0.02` cost the deterministic VM 1.4 ms of guest time each (/usr/bin/sleep
# started and mapped), more than what the loop polled for; `read -t` on a
# pipe that this shell holds both ends of, so nothing ever arrives, is a
# builtin's timed wait.  A FIFO rather than <(:): the VM has no /dev/fd.
NAP_FD=
if mkfifo -m 600 "/tmp/nap.$$" 2>/dev/null; then
	exec {NAP_FD}<> "/tmp/nap.$$"
	rm -f "/tmp/nap.$$"
fi
nap()
{
	if [[ -n $NAP_FD ]]; then
		read -r -t "$1" -u "$NAP_FD" _
	else
		sleep "$1"
	fi
	return 0
}

# ---- results -----------------------------------------------------------------

check_err()
{
	local err=$1
	local msg=$2

	if [[ $err -ne 0 && ${FAIL_TO_XFAIL:-0} = 1 ]]; then
		XFAIL_MSGS+=("$msg")
		return
	fi
	if [[ $RET -eq 0 && $err -ne 0 ]]; then
		RET=$err
		retmsg=$msg
	fi
}

check_fail()
{
	local err=$1
	local msg=$2

	if [[ $err -eq 0 && ${FAIL_TO_XFAIL:-0} = 1 ]]; then
		XFAIL_MSGS+=("$msg")
		return
	fi
	if [[ $RET -eq 0 && $err -eq 0 ]]; then
		RET=1
		retmsg=$msg
	fi
}

# check_eq WHAT EXPECTED ACTUAL: exact comparison as strings.
check_eq()
{
	local what=$1
	local expected=$2
	local actual=$3

	if [[ "$expected" != "$actual" ]]; then
		check_err 1 "$what: expected '$expected', got '$actual'"
		return 1
	fi
	return 0
}

# read_num VAR CMD...: CMD's output into VAR when CMD succeeded and
# printed one unsigned decimal number (digits only); otherwise a failed
# check, "CMD: not a number: 'OUTPUT'", and VAR set to 0.
#
# For the numbers a test sums or subtracts: in bash $((a + $(cmd))), with
# cmd printing nothing, is a syntax error that ends the whole top-level
# command around it (the loop, the function call) without a word in the
# verdict: the checks after it never run and log_test says OK.  A helper
# used as $(num CMD) could not record the failure (check_err would set
# RET in the subshell), and one that printed something non-numeric would
# only move the syntax error into the caller.  So this one assigns, like
# read, and records the failure in the test's own shell: it must not be
# run in $( ) or a pipeline.  VAR is 0 on a failure so that the caller's
# arithmetic still runs (its result no longer matters: the test has
# failed).  A read that gives no number is not a matter of speed: the
# failure is never an expected one, even under xfail_on_slow.  Its local
# names are uncommon because CMD, a function, sees them (bash's scoping
# is dynamic): `local out` here would hide a caller's $out from CMD.
read_num()
{
	local __read_num_var=$1 __read_num_out __read_num_rc

	shift
	__read_num_out=$("$@")
	__read_num_rc=$?
	if [[ $__read_num_rc -eq 0 && $__read_num_out =~ ^[0-9]+$ ]]; then
		printf -v "$__read_num_var" '%s' "$__read_num_out"
		return 0
	fi
	printf -v "$__read_num_var" '%s' 0
	__read_num_out="$*: not a number: '${__read_num_out:0:200}'"
	[[ $__read_num_rc -eq 0 ]] || __read_num_out+=" (exit status $__read_num_rc)"
	FAIL_TO_XFAIL=0 check_err 1 "$__read_num_out"
	return 1
}

# The seconds since the previous verdict, and the CPU seconds the guest
# was busy in them, follow it: a run's results show where the suite's
# time goes (the 30-minute budget of make check; in the deterministic VM
# busy time is instructions, which is what its wall time follows).
# Builtins only: no process is started for this.
# Busy: the uptime times the CPUs less the exact idle time (as the VM's
# init counts it, scripts/vm-init), not the tick-sampled times of
# /proc/stat, which an idle CPU's stopped tick leaves blind to short bursts.
LIB_NCPU=0
while read -r LIB_LINE; do
	[[ $LIB_LINE == cpu[0-9]* ]] && LIB_NCPU=$((LIB_NCPU + 1))
done < /proc/stat
cpu_busy_ticks()	# sets CPU_BUSY: hundredths of a second of all CPUs not idle
{
	local up idle

	read -r up idle < /proc/uptime
	CPU_BUSY=$(( 10#${up%.*}${up#*.} * LIB_NCPU - 10#${idle%.*}${idle#*.} ))
}
cpu_busy_ticks
LOG_TEST_T0=$SECONDS
LOG_TEST_BUSY0=$CPU_BUSY
log_test()
{
	local name=$1 took=$((SECONDS - LOG_TEST_T0)) busy

	cpu_busy_ticks
	busy=$CPU_BUSY
	took="${took}s busy $(( (busy - LOG_TEST_BUSY0) / 100 )).$(( (busy - LOG_TEST_BUSY0) / 10 % 10 ))s"
	if [[ $RET -ne 0 ]]; then
		EXIT_STATUS=$KSFT_FAIL
		printf "TEST: %-60s  [FAIL] %s\n" "$name" "$took"
		[[ -n "$retmsg" ]] && printf "\t%s\n" "$retmsg"
		[[ ${#XFAIL_MSGS[@]} -gt 0 ]] &&
			printf "\t%s (expected on a slow kernel)\n" "${XFAIL_MSGS[@]}"
	elif [[ ${#XFAIL_MSGS[@]} -gt 0 ]]; then
		printf "TEST: %-60s  [XFAIL] %s\n" "$name" "$took"
		printf "\t%s (expected on a slow kernel)\n" "${XFAIL_MSGS[@]}"
	else
		printf "TEST: %-60s  [ OK ] %s\n" "$name" "$took"
	fi
	RET=0
	retmsg=
	XFAIL_MSGS=()
	LOG_TEST_T0=$SECONDS
	LOG_TEST_BUSY0=$busy
}

log_info()
{
	echo "INFO: $*"
}

# skip REASON: the rest cannot run here.  Once a check has failed, a skip
# would hide it (the test's verdict is its exit status): it fails instead.
skip()
{
	echo "SKIP: $*"
	if [[ $RET -ne 0 ]]; then
		printf "TEST: %-60s  [FAIL]\n" "checks before the skip"
		[[ -n "$retmsg" ]] && printf "\t%s\n" "$retmsg"
		EXIT_STATUS=$KSFT_FAIL
	fi
	[[ $EXIT_STATUS -ne 0 ]] && exit $EXIT_STATUS
	exit $KSFT_SKIP
}

# A setup step that must work for the rest to mean anything.
fatal()
{
	printf "TEST: %-60s  [FAIL]\n" "setup"
	printf "\t%s\n" "$*"
	exit $KSFT_FAIL
}

# ---- requirements --------------------------------------------------------------

require_root()
{
	[[ $(id -u) -eq 0 ]] || skip "needs root"
}

require_cmd()
{
	local cmd

	for cmd in "$@"; do
		command -v "$cmd" >/dev/null 2>&1 || skip "$cmd not found"
	done
}

module_is_loaded()
{
	[[ -d /sys/module/$1 ]]
}

# Skip when the module is not installed; fail when it is but won't load.
require_module()
{
	local mod=$1

	module_is_loaded "$mod" && return 0
	modinfo "$mod" >/dev/null 2>&1 || skip "module $mod not installed"
	modprobe "$mod" || fatal "modprobe $mod failed"
}

# A netlink dump in progress holds a reference on the module that serves
# it, so an unload racing a reader fails with "in use" for a moment: retry
# briefly, then once more loudly for the log.
module_unload()
{
	wait_for 10 modprobe -r "$1" 2>/dev/null || modprobe -r "$1"
}

# ---- namespaces and processes ---------------------------------------------------

ns_name()
{
	echo "$NS_PREFIX-$1"
}

ns_create()
{
	local ns

	ns=$(ns_name "$1")
	ip netns add "$ns" || fatal "ip netns add $ns failed"
	NS_LIST+=("$ns")
	[[ -e $NETNS_DIR/$ns ]] || NETNS_DIR=/var/run/netns
	ip -n "$ns" link set lo up
}

# Echoes the command to stderr unless LIB_QUIET=1, so logs show each step.
ns_run()
{
	local ns=$1; shift

	[[ ${LIB_QUIET:-0} -eq 1 ]] || echo "[$ns] $*" >&$LOG_FD
	ns_exec "$ns" "$@"
}

# Run quietly: for polling and for output that is parsed.
#
# Starting a program is what the tests spend most of their time on under
# TCG: one linked against glibc's shared libraries costs some 60 ms more
# there than a static one (busybox, our static helpers), and the tests
# start thousands.  So a command enters the namespace the cheapest way
# that gives it the namespace it needs: tc and ip by themselves (-n, the
# same switch as `ip netns exec`, /sys included); the programs that use
# only sockets and /proc (ours, sysctl, ping) through nsenter, which sets
# the network namespace and execs them; anything else (cat of /sys, sh
# scripts) through `ip netns exec`, which also mounts the namespace's own
# /sys.  The namespace's name is spelled out rather than taken from
# $(ns_name): a command substitution forks the shell on every call.
NETNS_DIR=/run/netns
NSENTER=$(command -v nsenter)
ns_entry()	# NS COMMAND: sets NS_ENTRY, the words that run COMMAND in NS
{
	case $2 in
	tc|ip)	NS_ENTRY=("$2" -n "$NS_PREFIX-$1") ;;
	udp-lat|udp-sink|fabric-*|mac-flood|txtime-stamp|cpu-steal|tc-fuzz|credits-race|sysctl|ping)
		if [[ -n $NSENTER ]]; then
			NS_ENTRY=("$NSENTER" --net="$NETNS_DIR/$NS_PREFIX-$1" "$2")
		else
			NS_ENTRY=(ip netns exec "$NS_PREFIX-$1" "$2")
		fi ;;
	*)	NS_ENTRY=(ip netns exec "$NS_PREFIX-$1" "$2") ;;
	esac
}

ns_exec()
{
	local ns=$1; shift

	ns_entry "$ns" "$1"
	"${NS_ENTRY[@]}" "${@:2}"
}

# Background run; redirect in the caller: ns_bg A cmd >out 2>err.  Every
# way into a namespace execs the command, so $BG_PID is the command
# itself (a function run with & would be a subshell's).
ns_bg()
{
	local ns=$1; shift

	echo "[$ns] $* &" >&$LOG_FD
	ns_entry "$ns" "$1"
	"${NS_ENTRY[@]}" "${@:2}" &
	BG_PID=$!
	BG_PIDS+=("$BG_PID")
}

# pktgen NS FILE=COMMAND...: each COMMAND written to /proc/net/pktgen/FILE
# in turn, by one shell in namespace NS (a setup of a dozen commands used
# to start two programs per command, each costly under TCG).  After a
# command to a device, its "Result:" line must say OK; at the first that
# does not, the shell says which and exits 1.  "pgctrl=start" returns when
# every device's run has ended (pktgen-wait.sh: pktgen's own start does
# not promise it, and a test that went on while a run still went cut it
# short: edf_flows sent 991,569 of 1,048,544 packets).  "sh=COMMAND"
# runs COMMAND in that shell at that point instead (to read a count
# between two runs without starting another shell in the namespace).
PKTGEN_WAIT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/pktgen-wait.sh
pktgen()
{
	local ns=$1; shift

	# $0 of the shell: pktgen-wait.sh
	ns_exec "$ns" sh -c '
		for a; do
			f=${a%%=*} c=${a#*=}
			[ "$f" = sh ] && { eval "$c" || exit 1; continue; }
			echo "$c" > "/proc/net/pktgen/$f" ||
				{ echo "pktgen: $f: $c: refused" >&2; exit 1; }
			case $f in
			pgctrl) [ "$c" = start ] && { sh "$0" || exit 1; }
				continue ;;
			kpktgend_*) continue ;;
			esac
			r=
			while read -r l; do
				case $l in Result:*) r=$l ;; esac
			done < "/proc/net/pktgen/$f"
			case $r in "Result: OK"*) ;; *)
				echo "pktgen: $f: $c: $r" >&2; exit 1 ;;
			esac
		done' "$PKTGEN_WAIT" "$@"
}

# Track a background job started otherwise (a loop in a subshell).
bg_track()
{
	BG_PIDS+=("$1")
}

# bg_wait PID: wait for a tracked job, forget it, return its exit status.
bg_wait()
{
	local pid=$1 rc i

	wait "$pid"
	rc=$?
	for i in "${!BG_PIDS[@]}"; do
		[[ ${BG_PIDS[$i]} == "$pid" ]] && unset "BG_PIDS[$i]"
	done
	return $rc
}

# grep_quiet [GREP OPTIONS] PATTERN: whether the input has a line matching,
# like grep -q, but reading all of it.  Under pipefail, "producer | grep -q"
# fails when grep exits at the first match while the producer still writes
# (bash writes echo's output line by line): SIGPIPE kills the producer, and
# the pipeline says no although the line was there.
grep_quiet()
{
	grep "$@" > /dev/null
}

# wait_for SECONDS CMD...: run CMD (quietly) until it succeeds; 1 on timeout.
# Tried at least once, and once more after the deadline, so a slow VM that
# overshoots while running CMD still gets a last look.  CMD's words are
# expanded once, by the caller: to re-read a counter on every try, pass a
# function or quote the test for eval, e.g. wait_for 5 eval 'test "$(n)" = 3'.
# Time the VM did not run does not count: the fast VM's clock is the
# host's, and a loaded host may leave it unscheduled for seconds while
# that clock runs on; a 0.1 s sleep that took over a second moves the
# deadline by what it overslept.
wait_for()
{
	local timeout=$1; shift
	local deadline t0 slept

	[[ $FQ_SLOW = 1 ]] && timeout=$((timeout * FQ_SLOW_SCALE))
	deadline=$(( ${EPOCHREALTIME/./} + timeout * 1000000 ))

	while true; do
		LIB_QUIET=1 "$@" && return 0
		if (( ${EPOCHREALTIME/./} >= deadline )); then
			LIB_QUIET=1 "$@"
			return
		fi
		t0=${EPOCHREALTIME/./}
		nap 0.1
		slept=$(( ${EPOCHREALTIME/./} - t0 ))
		((slept > 1000000)) && deadline=$((deadline + slept - 100000))
	done
}

# Interface MAC address inside a namespace.
ns_mac()
{
	ip -n "$(ns_name "$1")" link show dev "$2" |
		awk '$1 == "link/ether" { print $2; exit }'
}

# veth_create NS1 DEV1 ADDR1/LEN NS2 DEV2 ADDR2/LEN MAC2: a veth pair between
# two namespaces, addressed and up; DEV2 gets a fixed MAC so senders of raw
# frames know it.
veth_create()
{
	local ns1=$1 dev1=$2 addr1=$3 ns2=$4 dev2=$5 addr2=$6 mac2=$7

	ip link add "$dev1" netns "$(ns_name "$ns1")" type veth \
		peer name "$dev2" netns "$(ns_name "$ns2")" ||
		fatal "cannot create veth pair $dev1 - $dev2"
	ns_run "$ns2" ip link set "$dev2" address "$mac2" &&
	ns_run "$ns1" ip addr add "$addr1" dev "$dev1" &&
	ns_run "$ns2" ip addr add "$addr2" dev "$dev2" &&
	ns_run "$ns1" ip link set "$dev1" up &&
	ns_run "$ns2" ip link set "$dev2" up ||
		fatal "cannot configure veth pair $dev1 - $dev2"
}

tmp_dir_create()
{
	TMP_DIR=$(mktemp -d "/tmp/$TEST_NAME.XXXXXX") || fatal "mktemp failed"
}

ns_destroy_all()
{
	local ns

	for ns in "${NS_LIST[@]}"; do
		ip netns del "$ns" 2>/dev/null
	done
	NS_LIST=()
}

# True when no namespace of this test is left.
ns_all_gone()
{
	! ip netns list | grep_quiet "^$NS_PREFIX-"
}

# ---- what a fabric leaves behind --------------------------------------------------
# fabric_refs: the references held on the fabric's modules; fabric_veths:
# the veths in this namespace.  fabric_leftovers_mark notes both before a
# fabric is built, fabric_leftovers_check WHAT that its teardown left
# nothing: no namespace of this test, no module reference, no veth.

fabric_refs()
{
	local m

	for m in vcsw fabric_hdr sch_edf; do
		printf '%s ' "$(cat /sys/module/$m/refcnt)"
	done
}

fabric_veths()
{
	ip -o link show type veth | wc -l
}

fabric_leftovers_mark()
{
	FABRIC_REFS0=$(fabric_refs)
	FABRIC_VETHS0=$(fabric_veths)
}

fabric_leftovers_check()
{
	wait_for 30 ns_all_gone
	check_err $? "$1: namespaces left: $(ip netns list | grep "^$NS_PREFIX-")"
	wait_for 30 eval '[ "$(fabric_refs)" = "$FABRIC_REFS0" ]'
	check_err $? "$1: module references $(fabric_refs), before $FABRIC_REFS0"
	check_eq "$1: veths in the root namespace" "$FABRIC_VETHS0" "$(fabric_veths)"
}

bg_kill_all()
{
	local pid

	for pid in "${BG_PIDS[@]}"; do
		kill "$pid" 2>/dev/null
	done
	for pid in "${BG_PIDS[@]}"; do
		wait "$pid" 2>/dev/null
	done
	BG_PIDS=()
}

# backlog_raise: a test that counts every frame of an unpaced sender
# (a packet socket blasting into a veth) needs each CPU's receive backlog
# to hold what arrives while the VM does not run the softirq (a loaded
# host, or ksoftirqd waiting for a vCPU): netdev_max_backlog, a global
# setting, goes from 1000 to 100000 until the test ends.
LIB_BACKLOG_SAVED=
backlog_raise()
{
	LIB_BACKLOG_SAVED=$(sysctl -n net.core.netdev_max_backlog)
	sysctl -qw net.core.netdev_max_backlog=100000
}

# softirq_first: the kernel's softirq threads (ksoftirqd, which runs the
# network's receive, transmit and timer work once there is much of it)
# at nice -20 until the test ends.  Hosts in namespaces of one VM share
# one CPU between what their NICs would do on their own processors and
# their applications; at the default priority, a burst of processes
# (traffic generators starting, tc reading counters) delayed softirq work
# by up to a millisecond, which an FBS host takes for back-pressure
# (selftests/vm/fbs_eight.sh).
# Not on a slow kernel (make check-debug's): there the hosts' timers and
# link messages keep the vCPUs in softirq, and with ksoftirqd first the
# processes hardly run.  KASAN's quarantine of freed objects shrinks only
# when something allocates with a mask that may sleep (mm/kasan/common.c),
# which softirq never does, so it grows by every skb the timers free
# while the processes wait (a run of vm/fbs_eight ran out of memory there;
# that test no longer runs on that kernel).  The timing checks that want
# softirq first are expected failures there anyway.
LIB_SOFTIRQ_NICE=()
softirq_first()
{
	local p stat

	[[ $FQ_SLOW = 1 ]] && return 0
	for p in /proc/[0-9]*; do
		[[ "$(cat "$p/comm" 2>/dev/null)" == ksoftirqd/* ]] || continue
		stat=($(sed 's/.*) //' "$p/stat"))
		# field 19 of stat, the 17th after the name: the nice value
		LIB_SOFTIRQ_NICE+=("${p#/proc/}:${stat[16]}")
		renice -20 -p "${p#/proc/}" > /dev/null || fatal "renice ksoftirqd"
	done
	[ ${#LIB_SOFTIRQ_NICE[@]} -gt 0 ] || fatal "no ksoftirqd thread"
}

cleanup()
{
	local p

	# Only the test's own shell: a subshell that inherited the trap and
	# died by a signal was seen to run it, killing the test's processes
	# and deleting its namespaces while the test went on
	[[ $BASHPID == "$$" ]] || return 0
	bg_kill_all
	if declare -F cleanup_test >/dev/null; then
		cleanup_test
	fi
	[ -n "$LIB_BACKLOG_SAVED" ] &&
		sysctl -qw net.core.netdev_max_backlog="$LIB_BACKLOG_SAVED"
	for p in "${LIB_SOFTIRQ_NICE[@]}"; do
		renice "${p#*:}" -p "${p%%:*}" > /dev/null
	done
	ns_destroy_all
	[[ -n "$TMP_DIR" ]] && rm -rf "$TMP_DIR"
}

trap cleanup EXIT

# ---- udp-sink --------------------------------------------------------------------

# sink_start NS NAME ADDR PORT COUNT TIMEOUT_MS: udp-sink in NS, bound before
# this returns; output in $TMP_DIR/NAME.{out,err}, pid in $SINK_PID.
sink_start()
{
	local ns=$1 name=$2 addr=$3 port=$4 count=$5 timeout_ms=$6

	ns_bg "$ns" udp-sink -a "$addr" -p "$port" -n "$count" \
		-t "$timeout_ms" -r "$TMP_DIR/$name.ready" \
		>"$TMP_DIR/$name.out" 2>"$TMP_DIR/$name.err"
	SINK_PID=$BG_PID
	wait_for 10 test -e "$TMP_DIR/$name.ready" ||
		fatal "udp-sink $name did not start: $(cat "$TMP_DIR/$name.err")"
}

# sink_check NAME EXPECTED: the last started sink exits 0 and printed exactly
# EXPECTED (payloads separated by newlines).
sink_check()
{
	local name=$1 expected=$2

	bg_wait "$SINK_PID"
	check_err $? "udp-sink $name: $(cat "$TMP_DIR/$name.err")"
	check_eq "payloads received" "$expected" "$(cat "$TMP_DIR/$name.out")"
}

# ---- fabric-stat -j ------------------------------------------------------------

# json_u64 JSON KEY: the unsigned number of "KEY" in one device's object
# (the last "KEY" in JSON, if several), nothing if none.  Matched by bash
# itself: a sed started for it cost as much as the read of the counters.
json_u64()
{
	local re="^.*\"$2\":([0-9]+)"

	[[ $1 =~ $re ]] && echo "${BASH_REMATCH[1]}"
	return 0
}

# host_rx_frames NS: fabric frames NS's eth0 passed up (0 before the first)
host_rx_frames()
{
	local j

	j=$(ns_exec "$1" fabric-stat -j eth0 2>/dev/null)
	[[ $j == *'"rx_frames":'* ]] || j='"rx_frames":0'
	json_u64 "$j" rx_frames
}

# fstat NS DEV KEY: a receive counter of fabric_hdr on DEV, 0 before
# DEV's first fabric frame (fabric-stat has no entry then, and says so).
# Any other read that fails is noted for fstat_read_ok rather than taken
# for 0, as two failed reads would make a before and an after agree; it
# prints 0 so that the caller's arithmetic goes on (an empty operand
# would abort the caller's whole command).
fstat()
{
	local v j

	[ -n "$TMP_DIR" ] || fatal "fstat needs tmp_dir_create"
	j=$(ns_exec "$1" fabric-stat -j "$2" 2> "$TMP_DIR/fstat.err")
	v=$(json_u64 "$j" "$3")
	if [ -z "$v" ]; then
		if [[ $(< "$TMP_DIR/fstat.err") == *"no fabric frame received yet"* ]]; then
			v=0
		else
			echo "$*" >> "$TMP_DIR/fstat_unread"
		fi
	fi
	echo "${v:-0}"
}

# fstat_read_ok: a check that every fstat so far read its counter
fstat_read_ok()
{
	[ ! -e "$TMP_DIR/fstat_unread" ]
	check_err $? "fabric-stat could not be read: $(sort -u "$TMP_DIR/fstat_unread" 2>/dev/null | tr '\n' ';')"
}

# root_qlen NS: packets waiting in the root qdisc of NS's eth0
root_qlen()
{
	local j

	j=$(ns_exec "$1" tc -s -j qdisc show dev eth0 root)
	json_u64 "${j//[[:space:]]/}" qlen
}

# now_us: the clock in microseconds
now_us() { echo "${EPOCHREALTIME/./}"; }

# idle_backed_off N MS: whether an end of an idle credit link that sent N
# link messages over MS ms (the window its counts were read over, from
# before the first read to after the last) backed off: some, and fewer
# than a fifth of the 1000 a second of the base period (1 ms; backed off
# all the way, 64 ms apart, core fabric_credit.h, it sends some 16)
idle_backed_off() { (($1 > 0 && $1 * 1000 < 200 * $2)); }

# link_json NS DEV: DEV's `ip -j -d link show`, blanks removed, for
# json_obj_u64 (one program per read of a port's counters).
link_json()
{
	local j

	j=$(ns_exec "$1" ip -j -d link show dev "$2")
	echo "${j//[[:space:]]/}"
}

# links_json NS: every device of NS as link_json gives one, in
# LINKS_JSON[DEV]: one program for all the ports of a switch, where a
# read per port (and per counter) started dozens.  A device's object in
# the dump begins with its "ifindex", which no nested object has.
declare -A LINKS_JSON
links_json()
{
	local j obj objs re='"ifname":"([^"]*)"'

	LINKS_JSON=()
	j=$(ns_exec "$1" ip -j -d link show) || return 1
	j=${j//[[:space:]]/}
	mapfile -t objs <<< "${j//\},\{\"ifindex\":/$'}\n{"ifindex":'}"
	for obj in "${objs[@]}"; do
		[[ $obj =~ $re ]] && LINKS_JSON[${BASH_REMATCH[1]}]=$obj
	done
}

# vcsw_ports_empty NS PORT...: no frame waits in the input or output
# buffers of these vcsw ports (either VC)
vcsw_ports_empty()
{
	local ns=$1 p j vc n

	shift
	for p in "$@"; do
		j=$(link_json "$ns" "$p")
		for vc in vc0 vc1 in_vc0 in_vc1; do
			json_obj_num n "$j" $vc backlog_packets && [ "$n" = 0 ] || return 1
		done
	done
}

# vcsw_stat NS DEV OBJ KEY: counter KEY of object OBJ of vcsw port DEV
vcsw_stat()
{
	json_obj_u64 "$(link_json "$1" "$2")" "$3" "$4"
}

# vcsw_sent NS DEV: frames that left vcsw port DEV, both VCs
vcsw_sent()
{
	local j

	j=$(link_json "$1" "$2")
	echo $(($(json_obj_u64 "$j" vc0 packets) + $(json_obj_u64 "$j" vc1 packets)))
}

# vcsw_books_exact NS_A A NS_B B: the credit books of both directions of
# the link between vcsw ports A and B are exact: each sender's credits are
# the other end's advertised buffer (not zero), and nothing is held.
vcsw_books_exact()
{
	local a b vc

	a=$(link_json "$1" "$2"); b=$(link_json "$3" "$4")
	for vc in 0 1; do
		[ "$(json_obj_u64 "$a" credits_vc$vc tx_credits)" = "$(json_obj_u64 "$b" credits_vc$vc rx_buffer)" ] &&
		[ "$(json_obj_u64 "$b" credits_vc$vc tx_credits)" = "$(json_obj_u64 "$a" credits_vc$vc rx_buffer)" ] &&
		[ "$(json_obj_u64 "$a" credits_vc$vc rx_held)" = 0 ] &&
		[ "$(json_obj_u64 "$b" credits_vc$vc rx_held)" = 0 ] &&
		[ "$(json_obj_u64 "$b" credits_vc$vc rx_buffer)" -gt 0 ] || return 1
	done
}

# json_obj_u64 JSON OBJ KEY: number KEY of object OBJ (the last object of
# that name, flat) in JSON; bash matching, no program started.
json_obj_u64()
{
	local n

	json_obj_num n "$@" && echo "$n"
}

# qdisc_stat NS DEV NAME [SELECTOR...]: the first number called NAME in
# `tc -s -j qdisc show` of DEV's qdiscs in NS (the root's comes first), or
# of those SELECTOR picks ("parent 1:1"), empty if none
qdisc_stat()
{
	ns_exec "$1" tc -s -j qdisc show dev "$2" "${@:4}" | tr -d ' \n' |
		awk -v k="\"$3\":" '{ i = index($0, k); if (!i) exit
			s = substr($0, i + length(k)); match(s, /^[0-9]+/)
			if (RLENGTH > 0) print substr(s, 1, RLENGTH) }'
}

# json_obj_num VAR JSON OBJ KEY: the same number into VAR (empty when
# there is none), without the subshell of $(json_obj_u64 ...): for sums
# over many ports
json_obj_num()
{
	local re="^.*\"$3\":\\{([^}]*)\\}"

	printf -v "$1" '%s' ""
	[[ $2 =~ $re ]] || return 1
	re="\"$4\":([0-9]+)"
	[[ ${BASH_REMATCH[1]} =~ $re ]] && printf -v "$1" '%s' "${BASH_REMATCH[1]}"
}

# json_hist JSON: the "late_hist" buckets as "b0,b1,...,b15".
json_hist()
{
	echo "$1" | sed -n 's/.*"late_hist":\[\([0-9,]*\)\].*/\1/p'
}

# ---- the two-host topology of the qdisc tests ----------------------------------

# switch_host HOST PORT MAC ADDR: namespace HOST with eth0 (MAC, ADDR, no
# IPv6), a veth whose peer PORT is a port of sw0 in namespace S; all up
switch_host()
{
	local host=$1 port=$2 mac=$3 addr=$4

	ns_create "$host"
	ip link add eth0 netns "$(ns_name "$host")" address "$mac" type veth \
		peer name "$port" netns "$(ns_name S)" || fatal "veth $host-$port"
	ns_exec "$host" sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
	ns_run "$host" ip addr add "$addr" dev eth0
	ns_run "$host" ip link set eth0 up
	ns_run S ip link set "$port" master sw0 || fatal "$port master sw0"
	ns_run S ip link set "$port" up
}

# fdb_host SWNS PORT HOST MAC ADDR: HOST's eth0 (MAC, ADDR, no IPv6), a
# veth whose peer PORT is a port of sw0 in SWNS, with a static forwarding
# entry for MAC there; both ends left down, for the caller's settings
fdb_host()
{
	local sw=$1 port=$2 host=$3 mac=$4 addr=$5

	ip link add eth0 netns "$(ns_name "$host")" address "$mac" type veth \
		peer name "$port" netns "$(ns_name "$sw")" || fatal "veth $host-$port"
	ns_exec "$sw" sysctl -qw net.ipv6.conf."$port".disable_ipv6=1
	ns_exec "$host" sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
	ns_run "$sw" ip link set "$port" master sw0 || fatal "$port master sw0"
	ns_run "$sw" ip link set "$port" type vcsw_slave fdb_add "$mac" || fatal "fdb $host"
	ns_run "$host" ip addr add "$addr" dev eth0
}

# host_neighbours H NET N...: in host H (namespace "H$H"), a permanent
# neighbour NET.N for each other N, at the test's own "mac N"
host_neighbours()
{
	local h=$1 net=$2 o

	shift 2
	for o in "$@"; do
		[ "$o" = "$h" ] || ns_run "H$h" ip neigh replace "$net.$o" lladdr "$(mac "$o")" \
			dev eth0 nud permanent || fatal "neighbour $net.$o in H$h"
	done
}

# rx_one_cpu NS DEV...: every frame the devices receive is taken on CPU
# 0's backlog (RPS).  A veth hands a frame to the backlog of the CPU that
# sent it, so two frames sent in order from two CPUs can be taken in the
# other order: a debug kernel, slow enough for one CPU to lag, showed it
# (2 to 34 of 300 to 600 frames of one stream in edf_recn_order; none with
# this).  A NIC's receive queue keeps a flow's order; a test of order
# steers its veths so.
rx_one_cpu()
{
	local ns=$1 dev

	shift
	for dev in "$@"; do
		ns_exec "$ns" sh -c "echo 1 > /sys/class/net/$dev/queues/rx-0/rps_cpus" ||
			fatal "rps_cpus of $dev in $ns"
	done
}

# virtio_nics: the VM's two virtio-net NICs, which scripts/vm-run.sh wires
# to each other, in NIC0 and NIC1 (skip without them).  A test that
# moves them defines cleanup_test to give them back with nics_return.
virtio_nics()
{
	modprobe virtio_pci 2>/dev/null
	modprobe virtio_net 2>/dev/null || skip "virtio_net not available"
	wait_for 30 eval 'test -n "$(nic_by_mac 52:54:00:00:00:02)"' ||
		skip "no virtio-net NICs in this VM"
	NIC0=$(nic_by_mac 52:54:00:00:00:01)
	NIC1=$(nic_by_mac 52:54:00:00:00:02)
	[ -n "$NIC0" ] && [ -n "$NIC1" ] || skip "virtio-net NICs not found"
}
nic_by_mac()
{
	ip -o link show | awk -v m="$1" '$0 ~ "link/ether " m { sub(":$", "", $2); print $2; exit }'
}
# nics_return NS0 NS1: nic0 from NS0 and nic1 from NS1 back to the initial
# namespace under their own names, and virtio_net unloaded: the VM as the
# next test expects it, without two NICs called eth0 and eth1 in the way
# of the veths it names so
nics_return()
{
	ns_exec "$2" ip link set nic1 netns 1 name "$NIC1" 2>/dev/null
	ns_exec "$1" ip link set nic0 netns 1 name "$NIC0" 2>/dev/null
	modprobe -r virtio_net 2>/dev/null
}

# ---- a pair of VMs (tests with "# vm: pair", fq_vm_boot_pair) ----------

# pair_vms: this VM is the tester of a pair: the control link (its second
# NIC, 52:54:00:00:01:02) up as 10.99.0.1/24 and the peer's command
# server answering; DATA_NIC names the NIC of the data link to the peer
# (52:54:00:00:01:01).  Elsewhere (one VM, make check LIVE=1) the test is
# skipped: it needs a second machine.
pair_vms()
{
	local ctl

	grep -qw 'fq.pair=tester' /proc/cmdline ||
		skip "needs the pair of VMs that make check boots for it"
	modprobe virtio_pci 2>/dev/null
	modprobe virtio_net 2>/dev/null || fatal "virtio_net not available"
	wait_for 30 eval 'test -n "$(nic_by_mac 52:54:00:00:01:02)"' ||
		fatal "no control NIC 52:54:00:00:01:02"
	ctl=$(nic_by_mac 52:54:00:00:01:02)
	DATA_NIC=$(nic_by_mac 52:54:00:00:01:01)
	[ -n "$DATA_NIC" ] || fatal "no data NIC 52:54:00:00:01:01"
	sysctl -qw net.ipv6.conf."$ctl".disable_ipv6=1
	ip addr add 10.99.0.1/24 dev "$ctl" 2>/dev/null
	ip link set "$ctl" up
	# the peer booted first, but may still be on its way up
	wait_for 120 peer true || fatal "the peer VM's command server does not answer"
}

# peer COMMAND...: run the words as one bash script on the peer VM
# (selftests/vm/pair_exec.sh), print its output, return its exit status
# (255 when the peer cannot be reached).  A command that leaves a
# process running redirects that process's output.
peer()
{
	local out last

	out=$(printf '%s\n' "$*" | nc 10.99.0.2 7000 2>/dev/null)
	last=${out##*$'\n'}
	[[ $last =~ ^rc=([0-9]+)$ ]] || return 255
	[ "$out" != "$last" ] && printf '%s\n' "${out%$'\n'*}"
	return "${BASH_REMATCH[1]}"
}

# fuzz_switch MAC: namespaces C and D joined through the vcsw switch sw0 in
# namespace S: C's eth0 to port p1, D's eth0 (address MAC) to port p2,
# with a static entry for MAC on p2.  No IPv6 anywhere, so only what the
# test sends crosses.
fuzz_switch()
{
	local mac=$1 n p

	ns_create C; ns_create S; ns_create D
	ip link add eth0 netns "$(ns_name C)" type veth peer name p1 \
		netns "$(ns_name S)" || fatal veth
	ip link add eth0 netns "$(ns_name D)" address "$mac" type veth \
		peer name p2 netns "$(ns_name S)" || fatal veth
	for n in C D; do
		ns_exec $n sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
		ns_run $n ip link set eth0 up
	done
	ns_run S ip link add sw0 type vcsw || fatal vcsw
	for p in p1 p2; do
		ns_exec S sysctl -qw net.ipv6.conf.$p.disable_ipv6=1
		ns_run S ip link set $p master sw0 || fatal "$p master"
		ns_run S ip link set $p up
	done
	ns_run S ip link set sw0 up
	ns_run S ip link set p2 type vcsw_slave fdb_add "$mac" || fatal fdb_add
}

# two_hosts N [quiet]: namespaces A and B joined by veth0 (10.N.0.1/24, in A)
# and veth1 (10.N.0.2/24, MAC 02:00:00:00:NN:02, in B), up, plus the scratch
# directory.  "quiet": A sends nothing but what the test sends (no IPv6
# chatter, a permanent neighbour instead of ARP), for exact counts.
two_hosts()
{
	local n=$1 mode=${2:-}
	local mac

	mac=$(printf '02:00:00:00:%02x:02' "$n")
	tmp_dir_create
	ns_create A
	ns_create B
	veth_create A veth0 "10.$n.0.1/24" B veth1 "10.$n.0.2/24" "$mac"
	# quiet: veth0 sends only what the test sends.  No IPv6, and no ARP
	# either way: B answers A's traffic (an ICMP unreachable for fabric
	# frames that fabric_hdr, loaded with any of our qdiscs, hands up),
	# and without an entry for A it would ask, and A's reply would go
	# through A's qdisc
	if [[ $mode == quiet ]]; then
		ns_exec A sysctl -qw net.ipv6.conf.veth0.disable_ipv6=1 &&
		ns_run A ip neigh replace "10.$n.0.2" lladdr "$mac" dev veth0 nud permanent &&
		ns_run B ip neigh replace "10.$n.0.1" lladdr "$(ns_mac A veth0)" \
			dev veth1 nud permanent ||
			fatal "cannot quiet veth0"
	fi
}

# ---- parameters from the VM's command line ---------------------------------------

# fq_param NAME DEFAULT: the value of "fq.NAME=value" on the kernel command
# line (make check-debug passes longer fuzz runs that way), else DEFAULT.
fq_param()
{
	local v

	v=$(tr ' ' '\n' < /proc/cmdline | sed -n "s/^fq\.$1=//p" | tail -n1)
	echo "${v:-$2}"
}

# ---- slow kernels ----------------------------------------------------------------

# make check-debug boots a kernel with KASAN and lockdep, many times
# slower than the distribution's, and never under -icount (there such a
# kernel ran at about a sixtieth of real time, hours for the
# deterministic tests): fq.slow=1 on its command line.  Such a run is
# for the kernel's own reports and for every check that holds at any
# speed: accounting, configuration, what the algorithms decide.  A check
# whose outcome depends on the kernel keeping up with the offered load
# (a latency, a rate or a share measured over time, a loss only a CPU
# falling behind causes) runs as "xfail_on_slow CHECK...": on a slow
# kernel its miss is printed as an expected failure ([XFAIL]) and does not
# fail the test; elsewhere it is an ordinary check.  wait_for waits
# FQ_SLOW_SCALE times as long.
FQ_SLOW=$(fq_param slow 0)
FQ_SLOW_SCALE=4

xfail_on_slow()
{
	if [[ $FQ_SLOW != 1 ]]; then
		"$@"
		return
	fi
	FAIL_TO_XFAIL=1 "$@"
}
