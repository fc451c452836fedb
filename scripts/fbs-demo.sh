#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make fbs-demo: the FBS measurements (selftests/demo/fbs.sh) in one boot
# of the deterministic VM, their files into build/fbs-demo/, then a table
# and build/fbs-demo/report.md with plots (gnuplot, when installed).
# Documentation/fbs.rst, "The measurements".
#
# Environment: NODES (4 8), DRIFT (ppm, 1000), PERIODS (6): passed to
# the VM; V=1 shows the VM console live.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
# what they measure needs the deterministic VM's -icount: never the slow
# kernels' boot of make check-debug (FQ_VM_SLOW, fq_vm_boot)
unset FQ_VM_SLOW

OUT=$FQ_BUILD/fbs-demo
KIND=deterministic
NODES=${NODES:-4 8}
DRIFT=${DRIFT:-1000}
PERIODS=${PERIODS:-6}
for n in $NODES; do
	[[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 2 ] && [ "$n" -le 16 ] || fq_die "NODES: '$n': want 2 to 16"
done
[[ $DRIFT =~ ^[0-9]+$ ]] && [ "$DRIFT" -ge 100 ] && [ "$DRIFT" -le 20000 ] ||
	fq_die "DRIFT: '$DRIFT': want 100 to 20000 ppm"
[[ $PERIODS =~ ^[0-9]+$ ]] && [ "$PERIODS" -ge 2 ] && [ "$PERIODS" -le 100 ] ||
	fq_die "PERIODS: '$PERIODS': want 2 to 100"

rm -rf "$OUT"
mkdir -p "$OUT"
start=$(date +%s)
fq_kernel_label > "$OUT/kernel.txt"
echo "# kernel $(cat "$OUT/kernel.txt")"
# guest seconds: each trial runs PERIODS periods of up to the Eq. 3 cycle
# (1/(2 DRIFT) slots of 1.2 ms), about 8 trials per N, plus boots and
# the 2 x 3 s of the corruption series
cycle_s=$((600 / DRIFT + 1))
guest=$((60 + 8 * $(wc -w <<< "$NODES") * (PERIODS * cycle_s + 4) + 30))
echo "demo/fbs $guest /opt/fabric-qos/selftests/demo/fbs.sh" > "$OUT/list"
FQ_FBS_DEMO_ENV="NODES='$NODES'
DRIFT=$DRIFT
PERIODS=$PERIODS" \
	"$FQ_ROOT/scripts/mkinitramfs.sh" "$OUT/initrd.gz" "$OUT/list" > "$OUT/initramfs.log" 2>&1 ||
	{ cat "$OUT/initramfs.log"; fq_die "building the initramfs failed"; }
budget=$((120 + $(fq_vm_budget "$KIND" "$guest")))
fq_vm_boot "$KIND" "$OUT/initrd.gz" "$OUT/console.log" "$OUT/results.ktap" "$budget"
vm_rc=$?
echo "# $KIND VM ran $(( $(date +%s) - start ))s (qemu exit $vm_rc), console: ${OUT#"$FQ_ROOT"/}/console.log"
fq_demo_files "$OUT/results.ktap" "$OUT"
failed=0
if fq_demo_kernel_log_bad "$OUT"; then
	failed=1
fi
if ! grep -q '^fbs ok' "$OUT/summary.txt" 2>/dev/null || [ ! -s "$OUT/fbs/threshold.tsv" ]; then
	echo "not ok fbs # the measurements did not finish (qemu exit $vm_rc)"
	grep -E 'not ok|FAIL|fatal' "$OUT/results.ktap" | head -n 20
	exit 1
fi
"$FQ_ROOT/scripts/fbs-report.sh" "$OUT" || failed=1
echo "# kernel $(cat "$OUT/kernel.txt")"
echo "make fbs-demo took $(( $(date +%s) - start ))s; report: ${OUT#"$FQ_ROOT"/}/report.md"
exit $failed
