# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared by the scripts in this directory: where the cache lives and which
# kernel the VM boots.  Source it; it defines variables and functions only.

FQ_ROOT=${FQ_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
# Downloads live outside the repo so a fresh clone on the same machine
# reuses them.  Override with FQ_CACHE=/some/dir.
FQ_CACHE=${FQ_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fabric-qos}
FQ_BUILD=${FQ_BUILD:-$FQ_ROOT/build}

fq_say()  { printf '%s\n' "fabric-qos: $*" >&2; }
fq_die()  { printf '%s\n' "fabric-qos: error: $*" >&2; exit 1; }

# The kernel ABI (e.g. 6.1.0-56-amd64) the distribution currently ships,
# read from the metapackage's dependency so no version is hard-coded.
# Prints nothing when apt's package lists do not know the metapackage.
fq_distro_abi() {
	local meta=$1	# linux-image or linux-headers
	apt-cache depends "$meta-amd64" 2>/dev/null |
		sed -n "s/^ *Depends: $meta-\([0-9].*-amd64\)\$/\1/p" | head -n1
}

# The VM kernels, by the names users give (VM_KERNEL=6.12-rt): Debian
# 12's own 6.1, and the 6.12 and 6.12 PREEMPT_RT kernels it offers.
# make check runs the default ones.
FQ_VM_KERNELS_ALL="6.1 6.12 6.12-rt"
FQ_VM_KERNELS_DEFAULT="6.1 6.12"
fq_vm_kernel_known() {
	[[ " $FQ_VM_KERNELS_ALL " == *" $1 "* ]]
}

# The ABI (kernel release) the VM boots: FQ_VM_ABI when set (make
# check-debug sets it to the debug kernel's), else the one `make setup`
# last prepared for kernel FQ_VM_KERNEL (default 6.1), from the cache.
fq_vm_abi() {
	if [ -n "${FQ_VM_ABI:-}" ]; then
		echo "$FQ_VM_ABI"
	else
		[ -r "$FQ_CACHE/vm-abi-${FQ_VM_KERNEL:-6.1}" ] &&
			cat "$FQ_CACHE/vm-abi-${FQ_VM_KERNEL:-6.1}"
	fi
}

# Where the unpacked VM kernel of an ABI lives.
fq_kernel_dir() { echo "$FQ_CACHE/kernel/$1"; }

# The Debian package version (e.g. 6.1.192-2) of the cached kernel of an
# ABI: Debian publishes new packages under the same ABI, so the ABI alone
# does not say which kernel the VM booted.
fq_kernel_version() {
	cat "$(fq_kernel_dir "$1")/package-version" 2>/dev/null
}

# "6.1.0-56-amd64 (6.1.192-2)": the VM kernel as check, bench and demo
# name it in their output.
fq_kernel_label() {
	local abi
	abi=$(fq_vm_abi) || { echo "none prepared"; return; }
	fq_kernel_label_of "$abi"
}
# fq_guest_runs_cached_kernel "RELEASE VERSION...": whether a guest's
# "uname -r uname -v" is the cached kernel's (Debian puts the package
# version in uname -v: "#1 SMP PREEMPT_DYNAMIC Debian 6.1.192-2 (...)",
# and so does scripts/debug-kernel.sh).
# True when no package version is recorded: there is nothing to compare.
fq_guest_runs_cached_kernel() {
	local abi version
	abi=$(fq_vm_abi) || return 0
	version=$(fq_kernel_version "$abi") || return 0
	[[ "$1 " == "$abi "*" $version "* ]]
}
fq_kernel_label_of() {
	echo "$1 ($(fq_kernel_version "$1" || echo "package version unknown"))"
}

fq_multiarch() {
	dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null ||
		gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu
}

# A kernel log line that fails a VM run.
FQ_BAD_LOG='WARNING:|BUG:|Oops|general protection|Kernel panic|kernel BUG|UBSAN:|KASAN:|refcount_t:|unreferenced object|detected stall|hung_task|soft lockup'

# fq_demo_kernel_log_bad DIR: whether a demo's VM logged a line that fails
# a run (DIR/console.log, DIR/kernel.log of fq_demo_files); prints the
# first of them and a "not ok kernel-log" line if so
fq_demo_kernel_log_bad() {
	grep -Eh -A12 "$FQ_BAD_LOG" "$1/console.log" "$1/kernel.log" 2>/dev/null | head -n 40 | grep . ||
		return 1
	echo "not ok kernel-log # WARNING/BUG/Oops in the kernel log"
}

# fq_console_died_booting CONSOLE: whether the VM's kernel died while it
# booted, before the first test began ("fabric-qos: [1/N] ..."): no
# module of ours is loaded before that, so what killed it was the
# distribution's kernel under qemu's TCG (an int3 Oops while the kernel
# patched its own code, seen on 6.12 with two vCPUs), and booting again
# tests what the suite is for.  A VM that printed nothing bad, or died
# once a test had begun, is not one.  A boot that hung is one too: the
# debug kernel (make check-debug) stopped, its vCPUs idle, right after
# "Running RCU-tasks wait API self tests" in some boots, and
# scripts/vm-run.sh (FQ_VM_BOOT_LIMIT) then stops qemu and says so.
FQ_BOOT_HUNG='^fabric-qos: host: no test began'
fq_console_died_booting() {
	! grep -q '^fabric-qos: \[' "$1" 2>/dev/null &&
		grep -Eq "$FQ_BAD_LOG|$FQ_BOOT_HUNG" "$1" 2>/dev/null
}

# fq_qemu_major: the major version of the qemu-system-x86_64 on PATH (0
# if it says none)
fq_qemu_major() {
	local v

	v=$(qemu-system-x86_64 --version 2>/dev/null |
		sed -n '1s/^QEMU emulator version \([0-9]*\)\..*/\1/p')
	echo "${v:-0}"
}

# fq_script_header FILE KEY: the value of a "# KEY: value" line near the
# top of a test or benchmark script ("# timeout: 120", "# vm: deterministic").
fq_script_header() {
	head -n 20 "$1" 2>/dev/null | sed -n "s/^# *$2: *\([^ ]*\).*/\1/p" | head -n1
}

# fq_vm_icount KIND: whether that kind of VM runs under -icount: the
# deterministic one, except on a slow kernel (FQ_VM_SLOW=1, make
# check-debug), which boots it as the fast one
fq_vm_icount() {
	[ "$1" = deterministic ] && [ "${FQ_VM_SLOW:-0}" != 1 ]
}

# fq_vm_budget KIND GUEST_SECONDS: wall-clock seconds to allow a script with
# that timeout (guest time); a busy deterministic guest's clock runs up to a
# few times slower than the wall clock.
fq_vm_budget() {
	if fq_vm_icount "$1"; then
		echo $((4 * ($2 + 5)))
	else
		echo $(($2 + 5))
	fi
}

# fq_demo_files KTAP DIR: the files a demo run in the VM printed between
# its markers (FQ-DEMO-FILE NAME/FILE ... FQ-DEMO-EOF) into DIR/NAME/FILE,
# its FQ-DEMO-RESULT lines into DIR/summary.txt, the kernel log it dumped
# into DIR/kernel.log and its indented output into DIR/scenarios.log
fq_demo_files() {
	tr -d '\r' < "$1" | awk -v dir="$2" '
		/^# FQ-DEMO-FILE / { f = dir "/" $3; d = f; sub("/[^/]*$", "", d)
				     system("mkdir -p \"" d "\""); printf "" > f; next }
		/^# FQ-DEMO-EOF/   { close(f); f = ""; next }
		f != ""            { sub(/^# /, ""); sub(/^#$/, ""); print >> f; next }
		/^# FQ-DEMO-RESULT / { sub(/^# FQ-DEMO-RESULT /, ""); print > (dir "/summary.txt"); next }
		/^# FQ-KERNEL-LOG-BEGIN/ { k = 1; next }
		/^# FQ-KERNEL-LOG-END/ { k = 0; next }
		k { sub(/^# /, ""); print > (dir "/kernel.log"); next }
		/^#   / { sub(/^# /, ""); print > (dir "/scenarios.log") }'
	touch "$2/summary.txt"
}

# fq_vm_boot KIND INITRD CONSOLE_LOG RESULTS TIMEOUT_S: boot the test VM
# once (scripts/vm-run.sh).  KIND "fast": 2 vCPUs, multi-threaded TCG.
# "deterministic": 1 vCPU under -icount, where guest time advances one
# nanosecond per guest instruction, so timers, latencies and rates inside
# the guest do not depend on how busy this machine is (FQ_VM_PLUGIN_ARGS:
# a TCG plugin to load, make profile's); with FQ_VM_SLOW=1
# (a debug kernel, scripts/check.sh) booted as the fast VM is.
fq_vm_boot() {
	local kind=$1
	shift
	if [ "$kind" = pair ]; then
		fq_vm_boot_pair "$@"
	elif fq_vm_icount "$kind"; then
		# Its idle guest time costs nothing (the clock jumps to the
		# next timer) as long as its threads run at once on every
		# wakeup; behind the fast VM's busy vCPUs, or other work, each
		# wakeup waited for a core and idle guest seconds cost host
		# seconds.  So it runs at the highest priority a nice value
		# gives, where the user may set it.
		FQ_VM_ACCEL=tcg,thread=single FQ_VM_CPUS=1 \
		FQ_VM_QEMU_ARGS="-icount shift=0,sleep=off ${FQ_VM_PLUGIN_ARGS:-}" \
			$(fq_vm_priority) "$FQ_ROOT/scripts/vm-run.sh" "$@"
	else
		# a TCG vCPU that a loaded host leaves unscheduled for 20 s
		# would be reported as a soft lockup or an RCU stall: allow a
		# minute (a real lockup still shows, and the test times out)
		# Beside a deterministic VM its threads are SCHED_IDLE, so
		# that VM's wakeups never wait behind them: on one machine
		# the fast VM itself ran its tests in 90 to 102 s SCHED_IDLE,
		# 128 to 133 s at the normal policy (the deterministic one
		# raised instead).  SCHED_IDLE yields to any other work too,
		# and a compile on both cores would starve it for as long as
		# it lasts, while its guest clock, the host's, runs on:
		# vm-run.sh watches for that and puts it at the normal
		# policy while the other work lasts (FQ_VM_IDLE).  On a slow
		# kernel both of make check-debug's VMs run so, side by side.
		FQ_VM_APPEND="watchdog_thresh=30 rcupdate.rcu_cpu_stall_timeout=60 ${FQ_VM_APPEND:-}" \
		FQ_VM_IDLE=1 "$FQ_ROOT/scripts/vm-run.sh" "$@"
	fi
}

# fq_vm_boot_pair INITRD CONSOLE_LOG RESULTS TIMEOUT_S: two VMs, two
# kernels with two clocks, for the tests with a "# vm: pair" line.  Each
# VM has two virtio-net NICs, wired to the other VM's by qemu UDP socket
# links on 127.0.0.1 (nothing else is on them, and neither VM has a NIC to
# the outside): the first a data link for the test, the second a control
# link.  The peer (kernel command line fq.pair=peer) boots first and only
# serves commands on its control link (vm-init); the tester
# (fq.pair=tester) boots FQ_PAIR_DELAY_S (default 20) seconds later, so
# that the clocks differ by that much at least, and runs the tests.  The
# peer's console follows the tester's in CONSOLE_LOG, its lines prefixed
# "peer: ", so a kernel warning on either machine fails the run.
#
# One pair at a time on this machine (FQ_CACHE/vm-pair.lock, held until
# both VMs are gone): a port is taken only when its qemu starts, the
# tester's 20 s after the ports were chosen, so two pairs started
# together (make check's two lanes, each with a kernel's pair) chose the
# same free ports and wired each other's VMs (vm/pair_clocks@6.1 lost
# its ping in a clean-clone check; host/vm_pair_ports).
fq_vm_boot_pair() {
	local initrd=$1 console=$2 results=$3 tmo=$4
	local ports=() p peer rc lock mac_t=52:54:00:00:01 mac_p=52:54:00:00:02

	mkdir -p "$FQ_CACHE"
	exec {lock}>>"$FQ_CACHE/vm-pair.lock"
	flock "$lock"
	# four free UDP ports: data and control, one at each end
	p=$((20000 + (BASHPID % 2000) * 8))
	while [ ${#ports[@]} -lt 4 ] && [ "$p" -lt 65000 ]; do
		[ -z "$(ss -Hlun "sport = :$p" 2>/dev/null)" ] && ports+=("$p")
		p=$((p + 1))
	done
	[ ${#ports[@]} = 4 ] ||
		{ echo "fabric-qos: no free UDP ports for the VM pair" >&2; exec {lock}>&-; return 1; }
	link() {	# ID LOCAL_PORT REMOTE_PORT MAC
		echo "-netdev socket,id=$1,udp=127.0.0.1:$3,localaddr=127.0.0.1:$2" \
		     "-device virtio-net-pci,netdev=$1,mac=$4,romfile="
	}
	# the peer runs no test: no boot watch (FQ_VM_BOOT_LIMIT) for it
	FQ_VM_CPUS=1 FQ_VM_LOCK_HELD=1 FQ_VM_IDLE=1 FQ_VM_BOOT_LIMIT= \
	FQ_VM_APPEND="fq.pair=peer watchdog_thresh=30 rcupdate.rcu_cpu_stall_timeout=60 ${FQ_VM_APPEND:-}" \
	FQ_VM_NET_ARGS="$(link d "${ports[1]}" "${ports[0]}" $mac_p:01) $(link c "${ports[3]}" "${ports[2]}" $mac_p:02)" \
		"$FQ_ROOT/scripts/vm-run.sh" "$initrd" "$console.peer" "$results.peer" \
		"$((tmo + ${FQ_PAIR_DELAY_S:-20}))" &
	peer=$!
	sleep "${FQ_PAIR_DELAY_S:-20}"
	FQ_VM_CPUS=1 FQ_VM_LOCK_HELD=1 FQ_VM_IDLE=1 \
	FQ_VM_APPEND="fq.pair=tester fq.pair_delay=${FQ_PAIR_DELAY_S:-20} watchdog_thresh=30 rcupdate.rcu_cpu_stall_timeout=60 ${FQ_VM_APPEND:-}" \
	FQ_VM_NET_ARGS="$(link d "${ports[0]}" "${ports[1]}" $mac_t:01) $(link c "${ports[2]}" "${ports[3]}" $mac_t:02)" \
		"$FQ_ROOT/scripts/vm-run.sh" "$initrd" "$console" "$results" "$tmo"
	rc=$?
	# the peer serves until it is stopped: qemu ends on SIGTERM
	pkill -TERM -f -- "file:$results.peer" 2>/dev/null
	wait "$peer"
	exec {lock}>&-
	sed 's/^/peer: /' "$console.peer" >> "$console"
	rm -f "$console.peer" "$results.peer"
	return "$rc"
}

# fq_vm_lock WHAT: take the machine's VM lock on fd 9, for as long as the
# calling shell keeps that fd open (its children inherit it).  One VM at a
# time on this machine, across trees and clones: two TCG guests on two
# cores would each run at half speed.  A caller that boots several VMs
# whose figures are compared (make bench's deterministic and fast VMs,
# make check's lanes) takes it once for all of them and boots them with
# FQ_VM_LOCK_HELD=1, so that no other tree's VM runs between them.  When
# another run holds it, says so on stderr, and how long it waited: the
# wait counts against no budget, but a run that waited should say so.
fq_vm_lock() {
	local what=$1 start

	mkdir -p "$FQ_CACHE"
	exec 9>>"$FQ_CACHE/vm.lock"
	flock -n 9 && return 0
	start=$(date +%s)
	fq_say "$what: waiting for the VM lock ($FQ_CACHE/vm.lock): another VM run on this machine holds it"
	flock 9
	fq_say "$what: took the VM lock after waiting $(( $(date +%s) - start ))s"
}

# fq_vm_priority: the words that start the deterministic VM at nice -20,
# or nothing where this user may not raise a priority
fq_vm_priority() {
	if nice -n -20 true 2>/dev/null && [ "$(nice -n -20 nice)" -lt 0 ]; then
		echo "nice -n -20"
	fi
}

