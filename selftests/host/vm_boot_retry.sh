#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
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

# The boot watch of scripts/vm-run.sh (FQ_VM_BOOT_LIMIT): a qemu that
# prints the start of a boot and then nothing, as the debug kernel did
# after "Running RCU-tasks wait API self tests", is stopped after the
# limit and its console says so; one whose first test begins in time is
# left alone.  The qemu here is a script on PATH.
fake_qemu() {	# MODE: "hang" or "test"
	mkdir -p "$work/bin"
	cat > "$work/bin/qemu-system-x86_64" <<EOF
#!/bin/bash
[ "\$1" = --version ] && { echo "QEMU emulator version 9.9.9"; exit 0; }
while [ \$# -gt 0 ]; do [ "\$1" = -pidfile ] && echo \$\$ > "\$2"; shift; done
echo "[    2.454385] Running RCU-tasks wait API self tests"
[ $1 = test ] && echo "fabric-qos: [1/1] vm/a_test"
exec sleep 300
EOF
	chmod +x "$work/bin/qemu-system-x86_64"
}
watched() {	# MODE WANT(yes|no) TIMEOUT: vm-run.sh under a 3 s boot limit
	local t0=$SECONDS got=no

	fake_qemu "$1"
	PATH=$work/bin:$PATH FQ_VM_LOCK_HELD=1 FQ_VM_BOOT_LIMIT=3 \
		"$ROOT/scripts/vm-run.sh" /dev/null "$work/watch-$1.log" "$work/watch-$1.ktap" "$3" \
		> /dev/null 2>&1
	grep -q "$FQ_BOOT_HUNG" "$work/watch-$1.log" && got=yes
	if [ "$got" != "$2" ]; then
		echo "FAIL: boot watch, $1: stopped as hung? $got, want $2"
		fails=$((fails + 1))
	elif [ "$2" = yes ] && ((SECONDS - t0 >= $3)); then
		echo "FAIL: boot watch, $1: qemu ran until its timeout, not stopped at the limit"
		fails=$((fails + 1))
	else
		echo "ok: boot watch, $1: $got"
	fi
}
if fq_vm_abi > /dev/null 2>&1; then
	watched hang yes 60	# stopped at 3 to 4 s by the watch, else at 60
	expect yes watch-hang.log
	watched test no 5	# past the limit and the watch's next look
	expect no watch-test.log
else
	echo "no VM kernel prepared (make setup): the boot watch not run"
fi

[ $fails = 0 ] || exit 1
