#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 30
#
# make check boots a VM again when its kernel died while booting, before
# the first test began (fq_console_died_booting, scripts/lib.sh): a CI
# run lost all 14 tests of a 6.12 VM to an int3 Oops in the kernel's own
# code patching at 2.9 s, no module of ours loaded.  A VM that died once
# a test had begun is never booted again: that may be ours.  Consoles cut
# down from real runs.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/scripts/lib.sh"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
expect() {	# WANT(yes|no) NAME: fq_console_died_booting of $work/NAME
	local got=no
	fq_console_died_booting "$work/$2" && got=yes
	if [ "$got" = "$1" ]; then
		echo "ok: $2: $got"
	else
		echo "FAIL: $2: died booting? $got, want $1"
		fails=$((fails + 1))
	fi
}

cat > "$work/oops-at-boot" <<'LOG'
[    0.000000] Command line: console=ttyS0 panic=-1 rdinit=/init loglevel=7
[    2.883268] Oops: int3: 0000 [#1] PREEMPT SMP NOPTI
[    2.883856] RIP: 0010:sched_clock_cpu+0x9/0x190
[    2.885818] Modules linked in:
[    2.886459] Kernel panic - not syncing: Fatal exception in interrupt
LOG
expect yes oops-at-boot

cat > "$work/oops-in-a-test" <<'LOG'
[    0.000000] Command line: console=ttyS0 panic=-1 rdinit=/init loglevel=7
fabric-qos: [15/28] vm/meter_fabric@6.12 (host +239s)
[  263.968274] BUG: kernel NULL pointer dereference, address: 0000000000000008
[  263.976614] RIP: 0010:net_rx_action+0xec/0x420
[  264.003339] Kernel panic - not syncing: Fatal exception in interrupt
LOG
expect no oops-in-a-test

cat > "$work/clean" <<'LOG'
[    0.000000] Command line: console=ttyS0 panic=-1 rdinit=/init loglevel=7
fabric-qos: [1/2] vm/aoq_config@6.12 (host +7s)
fabric-qos: [2/2] vm/aoq_lifecycle@6.12 (host +17s)
LOG
expect no clean

# qemu that never started: nothing bad printed, nothing to boot again for
: > "$work/empty"
expect no empty
expect no missing-file

[ $fails = 0 ] || exit 1
