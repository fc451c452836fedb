#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Boot the test VM once: Debian's kernel under qemu TCG with our initramfs,
# no NIC to the outside.  Two virtio-net NICs sit on one qemu hub with
# nothing else on it, so they are wired to each other: tests that need a
# real NIC driver (vcsw_nic.sh) load virtio_pci and virtio_net.  The console goes to CONSOLE_LOG (and the
# terminal with V=1), the VM's KTAP report to RESULTS.
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

# One VM at a time on this machine, across trees and clones: two TCG guests
# on two cores would each run at half speed and time out.  The lock lives in
# the shared cache; the wait does not count against TIMEOUT.  make check
# holds it itself (FQ_VM_LOCK_HELD=1) for its two VMs of different kinds.
if [ "${FQ_VM_LOCK_HELD:-0}" != 1 ]; then
	mkdir -p "$FQ_CACHE"
	exec 9>>"$FQ_CACHE/vm.lock"
	flock 9
fi

: > "$RESULTS"
cmd=(qemu-system-x86_64 -accel "$FQ_VM_ACCEL" -cpu "$FQ_VM_CPU" -smp "$FQ_VM_CPUS"
     -m "$FQ_VM_MEM" -nodefaults -no-user-config -display none -no-reboot
     -nic none -serial stdio -serial "file:$RESULTS"
     -netdev hubport,id=h0,hubid=0
     -device virtio-net-pci,netdev=h0,mac=52:54:00:00:00:01,romfile=
     -netdev hubport,id=h1,hubid=0
     -device virtio-net-pci,netdev=h1,mac=52:54:00:00:00:02,romfile=
     -kernel "$KERNEL" -initrd "$INITRD"
     -append "console=ttyS0 panic=-1 rdinit=/init loglevel=7 ${FQ_VM_APPEND:-}"
     ${FQ_VM_QEMU_ARGS:-} "$@")

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
if [ "${V:-0}" = 1 ]; then
	timeout -k 5 "$TIMEOUT" "${cmd[@]}" < /dev/null 2>&1 | host_clock | tee "$CONSOLE_LOG"
	exit "${PIPESTATUS[0]}"
fi
timeout -k 5 "$TIMEOUT" "${cmd[@]}" < /dev/null 2>&1 | host_clock > "$CONSOLE_LOG"
exit "${PIPESTATUS[0]}"
