#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# The test VM's KTAP channel (scripts/vm-report.sh) loses no line while
# its PID 1 is flooded with SIGCHLD.
#
# In the VM, /init is busybox sh as PID 1: every orphan a test leaves
# behind dies into it, and a result line it wrote to the serial port
# itself was lost when such a signal arrived mid-write (a whole test
# went missing from a make check).  Here the same channel runs in the
# same shell as PID 1 of a new PID namespace, writing to a tty (a pty
# from script(1): the same n_tty write path as ttyS1), while a
# background loop sends PID 1 SIGCHLD as fast as it can.  Every line
# must arrive, in order.  Written with a plain "printf > tty", as the
# VM did before, 2000 lines arrived as 148 to 1743.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
LINES=2000

for tool in busybox unshare script; do
	command -v $tool > /dev/null || { echo "SKIP: no $tool"; exit 4; }
done
if ! unshare --fork --pid true 2> /dev/null; then
	echo "SKIP: cannot create a PID namespace here"
	exit 4
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# PID 1's script: the channel on its controlling tty, a SIGCHLD storm,
# LINES numbered lines with report and as many with report_file
cat > "$work/pid1.sh" <<EOF
KTAP_FIFO=$work/ktap.fifo
. "$ROOT/scripts/vm-report.sh"
storm() { while [ ! -e "$work/stop" ]; do kill -CHLD 1; done; }
storm > /dev/null 2>&1 &
ktap_open /dev/tty
i=0
while [ \$i -lt $LINES ]; do
	report "line \$i"
	echo "file \$i" >> "$work/file"
	i=\$((i + 1))
done
report_file "$work/file"
report "end"
touch "$work/stop"
ktap_close
EOF

script -q -e -c "unshare --fork --pid --kill-child busybox sh $work/pid1.sh" \
	/dev/null < /dev/null | tr -d '\r' > "$work/out"

expected() {
	local i
	for ((i = 0; i < LINES; i++)); do echo "line $i"; done
	for ((i = 0; i < LINES; i++)); do echo "# file $i"; done
	echo end
}
if ! diff <(expected) "$work/out" > "$work/diff"; then
	echo "FAIL: lines lost or changed under SIGCHLD ($(grep -c '^line' "$work/out") of $LINES report lines, $(grep -c '^# file' "$work/out") of $LINES file lines arrived)"
	head -n 20 "$work/diff"
	exit 1
fi
echo "ok: $LINES report and $LINES report_file lines arrived in order under a SIGCHLD storm"
