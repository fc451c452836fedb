#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the test VM once: Debian's kernel under qemu TCG with our initramfs,
# no NIC to the outside.  Two virtio-net NICs sit on one qemu hub with
# nothing else on it, so they are wired to each other: tests that need a
# real NIC driver (vcsw_nic.sh) load virtio_pci and virtio_net.  With
# FQ_VM_NET_ARGS, the NICs are those qemu arguments instead.  The console
# goes to CONSOLE_LOG (and the terminal with V=1), the VM's KTAP report
# to RESULTS.
#
# Usage: scripts/vm-run.sh INITRD CONSOLE_LOG RESULTS TIMEOUT_S [qemu args...]
# Exit status: qemu's, or 124 when the VM did not power off in time.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

INITRD=$1 CONSOLE_LOG=$2 RESULTS=$3 TIMEOUT=$4
shift 4
ABI=$(fq_vm_abi) || fq_die "no VM kernel prepared: run make setup"
KERNEL=$(fq_kernel_dir "$ABI")/vmlinuz

# /dev/kvm exists on these machines but guests hang under it: TCG only.
# A plain x86-64 CPU rather than -cpu max: with AVX2 and the rest on
# offer, the guest's libc and kernel pick code paths that TCG emulates
# slowly; with qemu64 the same tests ran 10 to 20 % faster (fast VM
# 72 s against 81 s, deterministic VM 115 s against 124 and 142 s), and
# nothing we test needs more than x86-64 itself.
: "${FQ_VM_CPUS:=2}" "${FQ_VM_MEM:=1024}"
: "${FQ_VM_ACCEL:=tcg,thread=multi}" "${FQ_VM_CPU:=qemu64}"

# QEMU before 8.0 corrupts RFLAGS after cmpxchg16b under TCG: its helper
# recomputes the flags from a stale record of the last flag-setting
# instruction, so an operand's bits (DF, TF, NT, reserved ones) can land
# in RFLAGS and reach the kernel through interrupt frames and pushf/popf
# (selftests/vm/cx16-flags.c shows it).  The slab allocator runs that
# instruction on every allocation, and 6.12 guests crashed at random:
# with trace events on, 4 crashes in 35 meter_fabric runs on QEMU 7.2
# with CX16; none in 36 without it, none in 48 on QEMU 10.0 with it.
# Without CX16 the kernel emulates the instruction with interrupts off.
# A model that names cx16 itself is left as given: FQ_VM_CPU=qemu64,+cx16
# brings the bug back, and vm/cpu_cx16 fails then.
if [[ $FQ_VM_CPU != *cx16* ]] && (( $(fq_qemu_major) < 8 )); then
	FQ_VM_CPU+=,-cx16
fi

# One VM at a time on this machine (fq_vm_lock); the wait does not count
# against TIMEOUT.  make check and make bench hold it themselves
# (FQ_VM_LOCK_HELD=1) for all the VMs of their run.
if [ "${FQ_VM_LOCK_HELD:-0}" != 1 ]; then
	fq_vm_lock "scripts/vm-run.sh"
fi

# The NICs: FQ_VM_NET_ARGS replaces the hub pair (the pair of VMs of
# fq_vm_boot_pair, whose NICs are wired to the other VM's instead).
if [ -n "${FQ_VM_NET_ARGS:-}" ]; then
	read -ra nics <<< "$FQ_VM_NET_ARGS"
else
	nics=(-netdev hubport,id=h0,hubid=0
	      -device virtio-net-pci,netdev=h0,mac=52:54:00:00:00:01,romfile=
	      -netdev hubport,id=h1,hubid=0
	      -device virtio-net-pci,netdev=h1,mac=52:54:00:00:00:02,romfile=)
fi

: > "$RESULTS"
cmd=(qemu-system-x86_64 -accel "$FQ_VM_ACCEL" -cpu "$FQ_VM_CPU" -smp "$FQ_VM_CPUS"
     -m "$FQ_VM_MEM" -nodefaults -no-user-config -display none -no-reboot
     -nic none -serial stdio -serial "file:$RESULTS"
     "${nics[@]}"
     -kernel "$KERNEL" -initrd "$INITRD"
     -append "console=ttyS0 panic=-1 rdinit=/init loglevel=7 ${FQ_VM_APPEND:-}"
     ${FQ_VM_QEMU_ARGS:-} "$@")

# FQ_VM_IDLE=1: qemu runs SCHED_IDLE (the fast VM beside a deterministic
# one, fq_vm_boot), watched by unstarve.  What the watchers did goes to
# NOTE, and after the VM to the end of the console log.
PIDFILE=$RESULTS.pid
NOTE=$RESULTS.note
rm -f "$PIDFILE" "$NOTE"
cmd+=(-pidfile "$PIDFILE")
if [ "${FQ_VM_IDLE:-0}" = 1 ]; then
	cmd=(chrt --idle 0 "${cmd[@]}")
fi

# run_ns PID...: nanoseconds all threads of the PIDs have run
# (/proc/PID/task/*/schedstat; a thread that waits to run has its wait
# counted there only once it runs, so that says nothing of a starved one)
run_ns() {
	local p

	for p in "$@"; do
		cat /proc/"$p"/task/*/schedstat 2>/dev/null
	done | awk '{ run += $1 } END { printf "%.0f\n", run }'
}

# busy_ns: nanoseconds all CPUs have been busy (/proc/stat, USER_HZ 100)
busy_ns() {
	awk '$1 == "cpu" { printf "%.0f\n", ($2 + $3 + $4 + $7 + $8 + $9) * 10000000; exit }' /proc/stat
}

# runnable PID: whether a thread of PID is running or waiting to run
runnable() {
	grep -q '^State:[[:space:]]*R' /proc/"$1"/task/*/status 2>/dev/null
}

# unstarve: SCHED_IDLE takes what nothing else wants: the deterministic
# VM beside it first, as intended, but other work on the machine too (a
# compile on every core, the harness building the next kernel's modules),
# which would leave the VM next to nothing for as long as it lasts, while
# its guest clock, the host's, runs on.  Every 5 s: if its threads were
# runnable at 8 of 10 looks, the VM ran less than a fifth of a core, and
# work other than the test VMs took more than half a core, twice in a
# row, it is starved, and its threads go to the normal policy; once other
# work has taken less than a tenth of a core three times in a row, back
# to SCHED_IDLE.  Each move is said at the end of the console log.  A
# guest that idles is not runnable, and stays as it is.
unstarve() {
	local pid run run0 busy busy0 vms vms0 other starved=0 calm=0 normal=0 ready i

	for i in $(seq 300); do
		[ -s "$PIDFILE" ] && break
		sleep 0.1
	done
	pid=$(cat "$PIDFILE" 2>/dev/null) || return 0
	run0=$(run_ns "$pid") busy0=$(busy_ns)
	vms0=$(run_ns $(pgrep -x qemu-system-x86))
	while kill -0 "$pid" 2>/dev/null; do
		ready=0
		for i in 1 2 3 4 5 6 7 8 9 10; do
			sleep 0.5
			runnable "$pid" && ready=$((ready + 1))
		done
		run=$(run_ns "$pid") busy=$(busy_ns)
		vms=$(run_ns $(pgrep -x qemu-system-x86))
		other=$(( (busy - busy0) - (vms - vms0) ))
		[ -n "${FQ_VM_UNSTARVE_LOG:-}" ] &&
			echo "$SECONDS normal $normal ready $ready run $(( (run - run0) / 1000000 )) other $((other / 1000000)) busy $(( (busy - busy0) / 1000000 )) vms $(( (vms - vms0) / 1000000 ))" >> "$FQ_VM_UNSTARVE_LOG"
		if ((normal)); then
			if ((other < 500000000)); then
				calm=$((calm + 1))
			else
				calm=0
			fi
			if ((calm >= 3)) && chrt -i -a -p 0 "$pid" > /dev/null; then
				echo "fabric-qos: host: other work ended after ${SECONDS}s; the VM runs SCHED_IDLE again" >> "$NOTE"
				normal=0 calm=0
			fi
		else
			if (( ready >= 8 && run - run0 < 1000000000 && other > 2500000000 )); then
				starved=$((starved + 1))
			else
				starved=0
			fi
			if ((starved >= 2)) && chrt -o -a -p 0 "$pid" > /dev/null; then
				echo "fabric-qos: host: the VM was starved by other work after ${SECONDS}s; it runs at the normal policy until that work ends" >> "$NOTE"
				normal=1 starved=0
			fi
		fi
		run0=$run busy0=$busy vms0=$vms
	done
}

# boot_watch LIMIT: a VM whose first test has not begun LIMIT seconds
# after qemu started ("fabric-qos: [1/N]" on the console) hung booting:
# stop it, and say so (FQ_BOOT_HUNG in lib.sh), so that make check boots
# it again (fq_console_died_booting) instead of waiting out the budget of
# the whole test list.  A boot takes 10 to 100 s here, on the debug
# kernel too.
boot_watch() {
	local limit=$1 pid

	while ((SECONDS < limit)); do
		sleep 1
		grep -q '^fabric-qos: \[' "$CONSOLE_LOG" 2>/dev/null && return 0
	done
	pid=$(cat "$PIDFILE" 2>/dev/null) || return 0
	echo "fabric-qos: host: no test began ${limit}s after qemu started: the boot hung; qemu stopped" >> "$NOTE"
	kill "$pid" 2>/dev/null
}

# host_clock: the console, each line the guest's /init writes at the start
# of a test ("fabric-qos: [i/N] NAME") stamped with this host's seconds
# since boot, so the log tells what each test cost the host in wall time
host_clock() {
	local line
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"fabric-qos: ["*) printf '%s (host +%ss)\n' "$line" "$SECONDS" ;;
		*) printf '%s\n' "$line" ;;
		esac
	done
}

SECONDS=0
WATCH=()
if [ "${FQ_VM_IDLE:-0}" = 1 ]; then
	unstarve &
	WATCH+=($!)
fi
if [ -n "${FQ_VM_BOOT_LIMIT:-}" ]; then
	boot_watch "$FQ_VM_BOOT_LIMIT" &
	WATCH+=($!)
fi
if [ "${V:-0}" = 1 ]; then
	timeout -k 5 "$TIMEOUT" "${cmd[@]}" < /dev/null 2>&1 | host_clock | tee "$CONSOLE_LOG"
else
	timeout -k 5 "$TIMEOUT" "${cmd[@]}" < /dev/null 2>&1 | host_clock > "$CONSOLE_LOG"
fi
rc=${PIPESTATUS[0]}
if [ ${#WATCH[@]} -gt 0 ]; then
	kill "${WATCH[@]}" 2>/dev/null
	wait "${WATCH[@]}" 2>/dev/null
fi
if [ -s "$NOTE" ]; then
	cat "$NOTE" >> "$CONSOLE_LOG"
	cat "$NOTE" >&2
fi
rm -f "$PIDFILE" "$NOTE"
exit "$rc"
