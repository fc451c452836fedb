#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 30
#
# The emulated CPU must not corrupt RFLAGS.  QEMU before 8.0 does, after
# cmpxchg16b (cx16-flags.c says how), and the kernel's slab allocator runs
# that instruction on every allocation: the bits it leaves behind reach
# the kernel through interrupt frames and pushf/popf, and the 6.12 guests
# crashed at random (double faults in the allocator, skbs freed under the
# backlog) until the VM's CPU lost cmpxchg16b on such a QEMU
# (scripts/vm-run.sh).  Here: on each CPU that offers cmpxchg16b, 10^5
# rounds of the sequence that exposes the bug keep RFLAGS clean.  A CPU
# without it (the VM on QEMU 7.2) has nothing to check.
. ./lib.sh

require_cmd cx16-flags taskset
grep -qw cx16 /proc/cpuinfo ||
	skip "the CPU offers no cmpxchg16b (scripts/vm-run.sh drops it on QEMU before 8.0)"

for cpu in $(seq 0 $(($(nproc) - 1))); do
	out=$(taskset -c "$cpu" cx16-flags --rounds 100000)
	check_err $? "$out"
	log_test "CPU $cpu: RFLAGS clean after 10^5 cmpxchg16b"
done

exit $EXIT_STATUS
