#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make check: run every test under selftests/ and print one KTAP-style line
# per test and the closing line "N passed, N failed, N skipped".
#
#   selftests/unit/   host unit tests of the portable core (built by make)
#   selftests/host/   host-side shell tests (e.g. the staged install)
#   selftests/vm/     tests run as root inside the qemu VM
#
# Usage: scripts/check.sh [REGEX]   only tests whose name (unit/x, host/x,
#                                   vm/x) matches the extended regex
# Environment: V=1 shows every test's output and the VM console live.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

FILTER=${1:-}
LOGDIR=$FQ_BUILD/check
DEFAULT_TIMEOUT=120

n=0 passed=0 failed=0 skipped=0
failures=()	# "name: verdict line and reason" of each failed test, for the summary
rm -rf "$LOGDIR"
mkdir -p "$LOGDIR"
# the log of make check's own build of the tree (Makefile: check-locked),
# for the first kernel's warnings; gone after this run, so a later
# scripts/check.sh does not report a build it did not follow
mv -f "$FQ_BUILD/check-build.log" "$LOGDIR/tree-build.log" 2>/dev/null

wanted() { [ -z "$FILTER" ] || [[ $1 =~ $FILTER ]]; }

# A test's own timeout: a "# timeout: N" line near its top, else the
# default; times FQ_VM_TIMEOUT_SCALE (make check-debug: a kernel with
# KASAN and lockdep runs several times slower).  On such a kernel a
# "# slow-timeout: N" line replaces both, for a test whose work grows
# faster than that (vm/fbs_eight: eight hosts' slot timers and link
# messages every millisecond keep the debug kernel's vCPUs busy).
test_timeout() {
	local t
	if [ "${FQ_VM_SLOW:-0}" = 1 ]; then
		t=$(fq_script_header "$1" slow-timeout)
		[ -n "$t" ] && { echo "$t"; return; }
	fi
	t=$(fq_script_header "$1" timeout)
	echo $(( ${t:-$DEFAULT_TIMEOUT} * ${FQ_VM_TIMEOUT_SCALE:-1} ))
}

# record NAME RESULT(ok|fail|skip) DETAIL OUTPUT_FILE
record() {
	local name=$1 result=$2 detail=$3 out=$4
	n=$((n + 1))
	case $result in
	ok)   passed=$((passed + 1)); echo "ok $n $name${detail:+ # $detail}" ;;
	skip) skipped=$((skipped + 1)); echo "ok $n $name # SKIP $detail" ;;
	*)    failed=$((failed + 1)); echo "not ok $n $name${detail:+ # $detail}" ;;
	esac
	if [ -s "$out" ] && { [ "$result" = fail ] || [ "${V:-0}" = 1 ]; }; then
		sed 's/^/#   /' "$out"
	fi
	if [ "$result" = fail ]; then
		failures+=("$name: ${detail:-failed}" "$(failed_verdicts "$out")")
	fi
}

# The [FAIL] verdicts of a test's output and the reason line under each:
# repeated in the summary at the end, where a log cut to its head and tail
# still shows them.
failed_verdicts() {
	[ -s "$1" ] || return 0
	grep -A1 -F '[FAIL]' "$1" | grep -v '^--$' | head -n 20
}

run_host_test() {	# name timeout command...
	local name=$1 tmo=$2 out rc
	shift 2
	out=$LOGDIR/${name//\//_}.log
	timeout -k 5 "$tmo" "$@" > "$out" 2>&1 < /dev/null
	rc=$?
	case $rc in
	0) record "$name" ok "" "$out" ;;
	4) record "$name" skip "$(grep -i skip "$out" | tail -n1)" "$out" ;;
	124) record "$name" fail "TIMEOUT after ${tmo}s" "$out" ;;
	*) record "$name" fail "exit code $rc" "$out" ;;
	esac
}

# --- VM tests --------------------------------------------------------------
# Three kinds of boot (fq_vm_boot in lib.sh): "fast" for most tests,
# "deterministic" (guest time = instruction count) for a test with a
# "# vm: deterministic" line near its top, and "pair" (two VMs with two
# clocks, joined by a link) for one with "# vm: pair".

# FQ_VM_SLOW=1 (make check-debug): the kernel is many times slower than
# the distribution's; the deterministic VM would run it at about a
# sixtieth of real time, so its tests boot as the fast VM does
# (fq_vm_boot), still in their own VM and lane, and every guest gets
# fq.slow=1 (selftests/vm/lib.sh, "slow kernels").
test_vm_kind() {
	case $(fq_script_header "$1" vm) in
	deterministic) echo deterministic ;;
	pair) echo pair ;;
	*) echo fast ;;
	esac
}
if [ "${FQ_VM_SLOW:-0}" = 1 ]; then
	export FQ_VM_APPEND="fq.slow=1 ${FQ_VM_APPEND:-}"
fi

# The VMs of every kernel run in two lanes, each lane one VM at a time,
# taking the next VM of a shared queue when it is free (vm_lanes_start).
# The deterministic guest's clock is its instruction count, so sharing
# the machine makes it take longer but does not change what it measures
# (two of them at once take a core each), and the fast VM's tests allow
# for a busy host (its threads yield to a deterministic VM's,
# fq_vm_boot).  Neither lane waits for the other between kernels.  Files
# are named after the kind and the kernel (KTAG).

# initrd_with_list BASE LIST OUT: OUT is BASE followed by an archive that
# holds LIST as /etc/fabric-qos/tests.  Neither is compressed: the
# guest's inflate of a gzipped image took some 5 s of each boot in TCG.
initrd_with_list() {
	local d rc

	d=$(mktemp -d) || return 1
	mkdir -p "$d/etc/fabric-qos" && cp "$2" "$d/etc/fabric-qos/tests" &&
		{ cat "$1" && ( cd "$d" && find etc -print0 | cpio --null -o -H newc --quiet ); } \
		> "$3"
	rc=$?
	rm -rf "$d"
	return $rc
}

# on_this_kernel TEST: whether TEST runs on kernel $KTAG.  A test with a
# "# kernels: first" line runs on the first kernel only ($FIRST_KTAG, 6.1 in
# make check): one whose subject is our userspace tools (the measurement
# tool, the topology builder), the same binaries on every kernel, whose
# kernel paths the module tests cover on each kernel.  On 6.12 those
# took some 180 s of VM time (how much of the wall time that saves depends
# on which lane was the longer: in one run, none).
on_this_kernel() {
	[ "$(fq_script_header "$1" kernels)" != first ] || [ "$KTAG" = "$FIRST_KTAG" ]
}

# vm_prepare: for kernel $KTAG (our modules just built for it), the list
# of tests and the initramfs of each kind; on failure record it
vm_prepare() {
	local t name tmo kind budget
	local -A vm_budget=([fast]=0 [deterministic]=0 [pair]=0)

	for kind in fast deterministic pair; do
		: > "$LOGDIR/vm-tests-$kind-$KTAG"
		rm -f "$FQ_BUILD/vm/initrd-$kind-$KTAG.cpio" "$LOGDIR/vm-$kind-$KTAG."{budget,rc}
	done
	for t in "$FQ_ROOT"/selftests/vm/*.sh; do
		[ -x "$t" ] || continue
		name=vm/$(basename "$t" .sh)$SUFFIX
		wanted "$name" || continue
		on_this_kernel "$t" || continue
		tmo=$(test_timeout "$t")
		kind=$(test_vm_kind "$t")
		echo "$name $tmo /opt/fabric-qos/selftests/vm/$(basename "$t")" >> "$LOGDIR/vm-tests-$kind-$KTAG"
		vm_budget[$kind]=$((vm_budget[$kind] + $(fq_vm_budget "$kind" "$tmo")))
	done
	# One image per kernel, and for each kind of VM that image with its
	# test list in a small archive after it: the kernel unpacks
	# concatenated archives in order.  Three images of 15 MB each took
	# 27 s before 6.1's VMs could start, and 6.12's 3.7 minutes of the
	# CPU its first VMs run on.
	local base=$FQ_BUILD/vm/initrd-base-$KTAG.cpio
	rm -f "$base"
	for kind in fast deterministic pair; do
		[ -s "$LOGDIR/vm-tests-$kind-$KTAG" ] || continue
		if { [ -s "$base" ] || "$FQ_ROOT/scripts/mkinitramfs.sh" "$base" - \
				> "$LOGDIR/initramfs-$KTAG.log" 2>&1; } &&
			initrd_with_list "$base" "$LOGDIR/vm-tests-$kind-$KTAG" \
				"$FQ_BUILD/vm/initrd-$kind-$KTAG.cpio" >> "$LOGDIR/initramfs-$KTAG.log" 2>&1; then
			:
		else
			record "vm/$kind-initramfs$SUFFIX" fail "building the initramfs failed" \
				"$LOGDIR/initramfs-$KTAG.log"
			rm -f "$FQ_BUILD/vm/initrd-$kind-$KTAG.cpio"
			continue
		fi
		# boot and poweroff take well under two minutes even on a busy machine
		echo $((vm_budget[$kind] + 120)) > "$LOGDIR/vm-$kind-$KTAG.budget"
	done
}

# vm_take_job: the next VM to boot, "KIND:KERNEL", taken off the shared
# queue (LOGDIR/vm-queue, one job a line, in the order to take them):
# the first whose kernel has been prepared (its modules and initramfs are
# made meanwhile, vm_build_kernels), waiting while none has; nothing when
# the queue is empty
vm_take_job() {
	local job

	while :; do
		job=$(
			exec 8>> "$LOGDIR/vm-queue.lock"
			flock 8
			while read -r j; do
				[ -e "$LOGDIR/prepared-${j#*:}" ] || continue
				grep -vxF -- "$j" "$LOGDIR/vm-queue" > "$LOGDIR/vm-queue.new"
				mv "$LOGDIR/vm-queue.new" "$LOGDIR/vm-queue"
				echo "$j"
				break
			done < "$LOGDIR/vm-queue"
		)
		[ -n "$job" ] && { echo "$job"; return 0; }
		[ -s "$LOGDIR/vm-queue" ] || return 1
		sleep 1
	done
}

# vm_lane LANE: boot the VMs of the queue one at a time, each KIND's VM
# with its KERNEL (its FQ_VM_KERNEL when several), until the queue is
# empty; the qemu exit code and the wall seconds go to vm-KIND-KTAG.rc.
# Lane 0 starts at once, lane 1 when the host tests have ended.
vm_lane() {
	local job kind k t0 rc boot

	# The second lane starts when the host tests end (run_host_tests).
	# Beside them and a deterministic VM at nice -20 a fast VM got what
	# was left of one core for its two vCPUs: 6.1's fast VM took 1199 s
	# in one clean-clone run where 6.12's, later, took 470 s.  Held back,
	# the host tests have a core to themselves meanwhile; holding the
	# fast kind instead (32bb045, reverted) gave both lanes deterministic
	# VMs at nice -20 and starved the host tests.
	# ($$, the harness itself: a harness gone before then leaves no lane
	# waiting forever with the VM lock)
	if [ "$1" = 1 ]; then
		while [ ! -e "$LOGDIR/host-done" ] && kill -0 $$ 2> /dev/null; do
			sleep 1
		done
	fi
	while job=$(vm_take_job); do
		kind=${job%%:*} k=${job#*:}
		[ -s "$LOGDIR/vm-$kind-$k.budget" ] || continue
		[ -n "${FQ_VM_ABI:-}" ] || export FQ_VM_KERNEL=$k
		t0=$(date +%s)
		# a kernel that died or hung booting, before any test, boots
		# once more, its first console kept (vm_report says so); a
		# boot hung when no test began within 300 s (vm-run.sh)
		for boot in 1 2; do
			FQ_VM_LOCK_HELD=1 FQ_VM_BOOT_LIMIT=300 fq_vm_boot "$kind" "$FQ_BUILD/vm/initrd-$kind-$k.cpio" \
				"$FQ_BUILD/vm-$kind-$k-console.log" "$FQ_BUILD/vm-$kind-$k-results.ktap" \
				"$(cat "$LOGDIR/vm-$kind-$k.budget")"
			rc=$?
			[ $boot = 1 ] && fq_console_died_booting "$FQ_BUILD/vm-$kind-$k-console.log" ||
				break
			mv "$FQ_BUILD/vm-$kind-$k-console.log" "$FQ_BUILD/vm-$kind-$k-console-boot1.log"
			echo "qemu exit $rc" > "$LOGDIR/vm-$kind-$k.reboot"
		done
		echo "$rc $(( $(date +%s) - t0 ))" > "$LOGDIR/vm-$kind-$k.rc"
	done
}

# vm_report KIND: record one line per test listed for kernel $KTAG
vm_report() {
	local kind=$1 list=$LOGDIR/vm-tests-$1-$KTAG
	local console=$FQ_BUILD/vm-$kind-$KTAG-console.log
	local ktap=$FQ_BUILD/vm-$kind-$KTAG-results.ktap
	local klog=$LOGDIR/vm-$kind-$KTAG-kernel.log
	local out=$LOGDIR/vm-test.out
	local vm_rc secs line tname directive guest_kernel in_klog=0
	local -A seen=()

	[ -s "$LOGDIR/vm-$kind-$KTAG.budget" ] || return 0
	read -r vm_rc secs < "$LOGDIR/vm-$kind-$KTAG.rc" 2>/dev/null || vm_rc=unknown secs=?
	if [ -s "$LOGDIR/vm-$kind-$KTAG.reboot" ]; then
		line=${console%.log}-boot1.log
		echo "# $kind VM: the kernel died or hung booting, before any test ($(cat "$LOGDIR/vm-$kind-$KTAG.reboot"), console: ${line#$FQ_ROOT/}); booted again"
		grep -Eh -m1 -A3 "$FQ_BAD_LOG|$FQ_BOOT_HUNG" "$line" | sed 's/^/#   /'
	fi
	echo "# $kind VM ran ${secs}s (qemu exit $vm_rc), console: ${console#$FQ_ROOT/}"
	guest_kernel=$(tr -d '\r' < "$ktap" | sed -n 's/^# kernel //p' | head -n1)
	echo "# $kind VM booted ${guest_kernel:-an unknown kernel}"

	# one line per listed test, from the VM's KTAP; the output lines
	# ("# ...") before a result belong to that test
	: > "$out"
	: > "$klog"
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		"# FQ-KERNEL-LOG-BEGIN") in_klog=1; continue ;;
		"# FQ-KERNEL-LOG-END") in_klog=0; continue ;;
		esac
		[ $in_klog = 1 ] && { echo "${line#\# }" >> "$klog"; continue; }
		if [[ $line =~ ^(not\ ok|ok)\ [0-9]+\ ([^ ]+)(\ \#\ (.*))?$ ]]; then
			tname=${BASH_REMATCH[2]} directive=${BASH_REMATCH[4]}
			seen[$tname]=1
			if [ "${BASH_REMATCH[1]}" = ok ]; then
				if [[ $directive == SKIP* ]]; then
					record "$tname" skip "${directive#SKIP }" "$out"
				else
					record "$tname" ok "" "$out"
				fi
			else
				record "$tname" fail "$directive" "$out"
			fi
			: > "$out"
		elif [[ $line =~ ^1\.\.[0-9]+$ ]]; then
			: > "$out"	# the preamble is no test's output
		elif [[ $line == "# "* ]]; then
			echo "${line#\# }" >> "$out"
		fi
	done < "$ktap"
	while read -r tname _; do
		[ -n "${seen[$tname]:-}" ] && continue
		tail -n 40 "$console" > "$out"
		record "$tname" fail "no result: the VM stopped before reporting it (see ${console#$FQ_ROOT/})" "$out"
	done < "$list"

	# the whole kernel log, including what no test was running for
	grep -Eh -A12 "$FQ_BAD_LOG" "$console" "$klog" 2>/dev/null | head -n 80 > "$out"
	if [ -s "$out" ]; then
		record "vm/kernel-log-$kind$SUFFIX" fail "WARNING/BUG/Oops in the kernel log" "$out"
	elif [ -n "$guest_kernel" ] && ! fq_guest_runs_cached_kernel "$guest_kernel"; then
		: > "$out"
		record "vm/kernel-log-$kind$SUFFIX" fail "the VM booted '$guest_kernel', not $(fq_kernel_label)" "$out"
	elif ! grep -q '^# FQ-VM-DONE' "$ktap"; then
		tail -n 40 "$console" > "$out"
		record "vm/kernel-log-$kind$SUFFIX" fail "VM did not finish (qemu exit $vm_rc)" "$out"
	else
		record "vm/kernel-log-$kind$SUFFIX" ok "" "$out"
	fi
}

# vm_lanes_start KERNEL...: the two lanes, in the background, for the
# kernels that are being prepared, and their queue: the deterministic VMs
# kernel by kernel, then the fast ones, and the pairs of VMs (two fast
# ones, "# vm: pair", about a minute each) last.  A lane takes the next
# job as soon as it is free, so the lanes end about together whatever
# each VM takes: in fixed lanes the fast VMs' times swung from 434 to
# 870 s with what ran beside them (the host tests, the next kernel's
# build), and one lane idled for 5.5 minutes at the end.  The second
# lane starts after the host tests, some 5 minutes later: when it took
# 6.1's fast VM then (about 750 s, the longest, with the first kernel's
# own tests) and 6.12's after it, it ended 84 s after the first lane,
# which had had both deterministic VMs (about 640 s each).
LANES=()
vm_lanes_start() {
	local k i kind

	: > "$LOGDIR/vm-queue"
	for k in "$@"; do
		rm -f "$LOGDIR/prepared-$k"
	done
	for kind in deterministic fast pair; do
		for k in "$@"; do
			echo "$kind:$k" >> "$LOGDIR/vm-queue"
		done
	done
	fq_vm_lock "make check"	# the wait counts against no budget
	rm -f "$LOGDIR/host-done"
	for i in 0 1; do
		vm_lane $i &
		LANES+=($!)
	done
}

# vm_prepared KERNEL: its jobs may go (whatever vm_prepare made of it)
vm_prepared() {
	: > "$LOGDIR/prepared-$1"
}

# vm_lanes_finish KERNEL...: wait for the lanes, then report kernel by
# kernel the kernels that were prepared
vm_lanes_finish() {
	local k kind

	wait "${LANES[@]}"
	exec 9>&-
	for k in "$@"; do
		KTAG=$k SUFFIX=${SUFFIXES[$k]}
		[ -n "${FQ_VM_ABI:-}" ] || export FQ_VM_KERNEL=$k
		[ -s "$LOGDIR/vm-tests-fast-$k" ] || [ -s "$LOGDIR/vm-tests-deterministic-$k" ] ||
			[ -s "$LOGDIR/vm-tests-pair-$k" ] || continue
		echo "# kernel $(fq_kernel_label)"
		for kind in fast deterministic pair; do
			vm_report "$kind"
		done
		LABELS+=("$(fq_kernel_label)")
	done
}

# run_live_suite: the VM tests on this host's own kernel (make check
# LIVE=1), as root, with the modules and plugins installed (make install)
# and the tests' helper programs from the build.  A test's name is
# live/NAME; the kernel log is checked for what the tests caused.
run_live_suite() {
	local t name tmo out rc log_before

	[ "$(id -u)" = 0 ] || { echo "make check LIVE=1 runs as root" >&2; return 1; }
	for m in fabric_hdr sch_edf sch_aoq sch_dtable sch_fbs vcsw; do
		modinfo "$m" > /dev/null 2>&1 && continue
		record "live/modules" fail "module $m is not installed for $(uname -r): make install KDIR=/lib/modules/\$(uname -r)/build" /dev/null
		return 1
	done
	echo "# live host: kernel $(uname -r) $(uname -v)"
	log_before=$(dmesg | wc -l)
	export PATH=$FQ_BUILD/selftests/vm:$FQ_BUILD/bin:$PATH
	for t in "$FQ_ROOT"/selftests/vm/*.sh; do
		[ -x "$t" ] || continue
		name=live/$(basename "$t" .sh)
		wanted "$name" || continue
		tmo=$(test_timeout "$t")
		out=$LOGDIR/${name//\//_}.log
		( cd "$FQ_ROOT/selftests/vm" && exec timeout -k 5 "$tmo" bash "$t" ) \
			> "$out" 2>&1 < /dev/null
		rc=$?
		case $rc in
		0) record "$name" ok "" "$out" ;;
		4) record "$name" skip "$(grep -i skip "$out" | tail -n1)" "$out" ;;
		124) record "$name" fail "TIMEOUT after ${tmo}s" "$out" ;;
		*) record "$name" fail "exit code $rc" "$out" ;;
		esac
		# what the test left behind (its namespaces are TEST-PID-X);
		# nothing else of this host's
		for ns in $(ip netns list 2>/dev/null | cut -d' ' -f1); do
			[[ $ns == "$(basename "$t" .sh)"-[0-9]*-* ]] && ip netns del "$ns" 2>/dev/null
		done
	done
	out=$LOGDIR/live-kernel.log
	dmesg | tail -n +"$((log_before + 1))" | grep -E -A12 "$FQ_BAD_LOG" | head -n 80 > "$out"
	if [ -s "$out" ]; then
		record "live/kernel-log" fail "WARNING/BUG/Oops in the kernel log" "$out"
	else
		record "live/kernel-log" ok "" "$out"
	fi
	LABELS+=("$(uname -r) (live host)")
}

# The kernels: FQ_CHECK_KERNELS (make check: 6.1 and 6.12, or VM_KERNEL),
# each with our modules built for it; or one kernel named by FQ_VM_ABI
# (make check-debug), built for by the caller.  With more than one, test
# names end in @KERNEL (vm/edf_flows@6.12).
LABELS=()
declare -A SUFFIXES=()

# vm_wanted KERNEL...: whether the filter leaves a VM test that runs on
# one of those kernels (on_this_kernel), or one of their build records;
# if not, no module build and no wait for the VM lock, which another
# tree's VM run may hold for an hour
vm_wanted() {
	local k s t KTAG

	for k in "$@"; do
		s= KTAG=$k
		[ $# -gt 1 ] && s=@$k
		wanted "vm/build$s" || wanted "vm/build-warnings$s" && return 0
		for t in "$FQ_ROOT"/selftests/vm/*.sh; do
			[ -x "$t" ] && wanted "vm/$(basename "$t" .sh)$s" &&
				on_this_kernel "$t" && return 0
		done
	done
	return 1
}

# vm_build_kernels KERNEL...: each kernel's modules built and packed into
# its initramfs before the next kernel's build replaces them, the lanes
# told as each is ready (vm_prepared); run in the background beside the
# host tests, so its records wait in LOGDIR/vm-records for vm_finish and
# the kernels made in LOGDIR/vm-ready
vm_build_kernels() {
	local k logs

	# fields apart by the unit separator: a tab, whitespace to read,
	# would swallow an empty detail
	record() { printf '%s\x1f%s\x1f%s\x1f%s\n' "$@" >> "$LOGDIR/vm-records"; }
	for k in "$@"; do
		KTAG=$k SUFFIX=${SUFFIXES[$k]}
		if [ -z "${FQ_VM_ABI:-}" ]; then
			export FQ_VM_KERNEL=$k
			# W=1: the kernel's extra warnings, which the modules
			# promise to build without on every supported kernel
			# (testing.rst)
			if ! make -s --no-print-directory -C "$FQ_ROOT" VM_KERNEL="$k" W=1 \
				FQ_CHECK_BUILD=1 build-quiet > "$LOGDIR/build-$k.log" 2>&1; then
				record "vm/build$SUFFIX" fail "building for $(fq_kernel_label) failed" "$LOGDIR/build-$k.log"
				vm_prepared "$k"
				continue
			fi
			# the first kernel's objects, and the tools and
			# plugins, were compiled by make check's build of the
			# tree, if it ran (its log: tree-build.log); this
			# build compiled what was left
			logs=("$FQ_BUILD/make.log")
			[ "$k" = "$FIRST_KTAG" ] && [ -e "$LOGDIR/tree-build.log" ] &&
				logs+=("$LOGDIR/tree-build.log")
			grep -h -B2 -A3 'warning:' "${logs[@]}" > "$LOGDIR/build-$k-warnings.log"
			if [ -s "$LOGDIR/build-$k-warnings.log" ]; then
				# the next check compiles every object again
				# and finds these again (Makefile: BUILT_FOR)
				rm -f "$FQ_ROOT/kernel/.built-for"
				record "vm/build-warnings$SUFFIX" fail "the build for $(fq_kernel_label) has warnings (W=1)" \
					"$LOGDIR/build-$k-warnings.log"
			else
				record "vm/build-warnings$SUFFIX" ok "" /dev/null
			fi
		fi
		vm_prepare
		vm_prepared "$k"
		echo "$k" >> "$LOGDIR/vm-ready"
	done
}

# vm_start: the VM half of the run, in the background: the kernels
# (FQ_CHECK_KERNELS: 6.1 and 6.12 in make check, or VM_KERNEL; or the one
# FQ_VM_ABI names, make check-debug, whose build is the caller's), their
# builds and their lanes.  The host tests run meanwhile: they used to come
# first, some 150 s with one core idle for half of it, while no VM ran.
VM_KERNELS=() VM_BUILDER=
vm_start() {
	local k

	if [ -n "${FQ_VM_ABI:-}" ]; then
		VM_KERNELS=("$FQ_VM_ABI")
	else
		read -ra VM_KERNELS <<< "${FQ_CHECK_KERNELS:-${FQ_VM_KERNEL:-6.1}}"
	fi
	FIRST_KTAG=${VM_KERNELS[0]}
	for k in "${VM_KERNELS[@]}"; do
		SUFFIXES[$k]=
		[ ${#VM_KERNELS[@]} -gt 1 ] && SUFFIXES[$k]=@$k
	done
	vm_wanted "${VM_KERNELS[@]}" || { VM_KERNELS=(); return 0; }
	: > "$LOGDIR/vm-records"
	: > "$LOGDIR/vm-ready"
	vm_lanes_start "${VM_KERNELS[@]}"
	vm_build_kernels "${VM_KERNELS[@]}" &
	VM_BUILDER=$!
}

# vm_finish: wait for the builds, record them, then wait for the lanes
# and record their tests kernel by kernel
vm_finish() {
	local name result detail out ready=()

	[ ${#VM_KERNELS[@]} -gt 0 ] || return 0
	wait "$VM_BUILDER"
	while IFS=$'\x1f' read -r name result detail out; do
		record "$name" "$result" "$detail" "$out"
	done < "$LOGDIR/vm-records"
	mapfile -t ready < "$LOGDIR/vm-ready"
	vm_lanes_finish "${ready[@]}"
}

echo "KTAP version 1"

# run_host_tests yes|no: the host shell tests whose "# tree-build:" line
# says yes, or those whose does not.  One that says yes runs make in this
# tree: it runs before the VMs' builds start, which rebuild the tree's
# modules for each kernel (host/install).  The others run beside them.
run_host_tests() {
	local t name tree

	for t in "$FQ_ROOT"/selftests/host/*.sh; do
		[ -x "$t" ] || continue
		tree=no
		[ "$(fq_script_header "$t" tree-build)" = yes ] && tree=yes
		[ "$tree" = "$1" ] || continue
		name=host/$(basename "$t" .sh)
		wanted "$name" || continue
		run_host_test "$name" "$(test_timeout "$t")" bash "$t"
	done
}

run_host_tests yes

if [ "${FQ_LIVE:-0}" = 1 ]; then
	LIVE_RUN=1
else
	LIVE_RUN=0
	vm_start
fi

# --- host: unit tests of the portable core ------------------------------
for bin in "$FQ_BUILD"/selftests/unit/*; do
	[ -x "$bin" ] || continue
	name=unit/$(basename "$bin")
	name=${name/unit\/test_/unit/}
	wanted "$name" || continue
	run_host_test "$name" 60 "$bin"
done

# --- host: shell tests ---------------------------------------------------
run_host_tests no
: > "$LOGDIR/host-done"	# the second VM lane goes (vm_lane)

if [ $LIVE_RUN = 1 ]; then
	run_live_suite
else
	vm_finish
fi

for l in "${LABELS[@]}"; do
	echo "# kernel $l"
done
echo "1..$n"
if [ ${#failures[@]} -gt 0 ]; then
	echo "# failed:"
	printf '%s\n' "${failures[@]}" | sed '/^$/d; s/^/#   /'
fi
if [ $n = 0 ]; then
	echo "no test matches '$FILTER'" >&2
	echo "0 passed, 0 failed, 0 skipped"
	exit 1
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
