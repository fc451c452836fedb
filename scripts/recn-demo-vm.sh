#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# recn-demo-vm.sh OUT SEED: the RECN paper's experiment in one boot of the
# deterministic VM (selftests/demo/recn.sh), for scripts/recn-demo.sh
# --vm.  Makes the traces here, with the generator qsim's sweep uses
# (scripts/recn-traffic.awk: 16 hosts, 8 SLs, self-similar bursts) at the
# VM's link rate, split per host; replays each in qsim too, fifo and recn
# with the VM's rate, buffers, thresholds and times (qsim-fifo,
# qsim-recn: the model against the kernel on the same frames); boots the
# VM; writes OUT/vm/ (the VM's files, console.log) and
# OUT/vm-results.tsv (arch load sl offered_Bps accepted_Bps lat_avg_ns
# lat_max_ns, as results.tsv).
#
# Environment: RECN_VM_LOADS (0.2 0.4 0.6 0.8 1.0), RECN_VM_DUR (ns of
# traffic, 16000000000; the first quarter warm-up), RECN_VM_LINK (500kbit).
set -uo pipefail
. "$(dirname "$0")/lib.sh"
# guest time must follow instructions: never the debug kernels' boot
unset FQ_VM_SLOW

OUT=${1:?usage: recn-demo-vm.sh OUT SEED}
SEED=${2:?usage: recn-demo-vm.sh OUT SEED}
KIND=deterministic
LOADS=${RECN_VM_LOADS:-0.2 0.4 0.6 0.8 1.0}
DUR=${RECN_VM_DUR:-16000000000}
LINK=${RECN_VM_LINK:-500kbit}
TREE=4,2
HOSTS=16
# the largest frame the hosts' 1500-byte MTU takes: 1400 bytes of UDP
# payload and 42 of headers, the fabric header's 20 besides
HI=1442
for l in $LOADS; do
	[[ $l =~ ^(0\.[0-9]+|1(\.0+)?)$ ]] || fq_die "RECN_VM_LOADS: '$l': want 0.x or 1.0"
done
[[ $DUR =~ ^[0-9]+$ ]] && [ "$DUR" -ge 1000000000 ] && [ "$DUR" -le 60000000000 ] ||
	fq_die "RECN_VM_DUR: '$DUR': want 1000000000 to 60000000000 ns"
[[ $LINK =~ ^[0-9]+[km]bit$ ]] || fq_die "RECN_VM_LINK: '$LINK': want e.g. 1mbit"
bps=$(awk -v r="$LINK" 'BEGIN { m = r ~ /mbit$/ ? 1e6 : 1e3; sub(/[km]bit$/, "", r); printf "%.0f", r * m / 8 }')
# what the VM's CPU keeps up with (recn.rst), and fabric-topo's least
[ "$bps" -ge 12500 ] && [ "$bps" -le 1250000 ] ||
	fq_die "RECN_VM_LINK: '$LINK': want 100kbit to 10mbit"
WARM=$((DUR / 4))

VOUT=$OUT/vm
IN=$VOUT/in
rm -rf "$VOUT"
mkdir -p "$IN"
start=$(date +%s)
printf 'arch\tload\tsl\toffered_Bps\taccepted_Bps\tlat_avg_ns\tlat_max_ns\n' > "$OUT/vm-results.tsv"
for l in $LOADS; do
	awk -v seed="$SEED" -v hosts=$HOSTS -v load="$l" -v bps="$bps" -v dur="$DUR" -v hi=$HI \
		-f "$FQ_ROOT/scripts/recn-traffic.awk" | sort -n -k1,1 -s |
		awk -v f="$IN/trace-$l-h" '{ print > (f $2) }'
	for ((h = 0; h < HOSTS; h++)); do
		[ -e "$IN/trace-$l-h$h" ] || : > "$IN/trace-$l-h$h"
	done
	# what each SL offered in the measured window, bytes per second
	cat "$IN/trace-$l-h"* | awk -v w="$WARM" -v d="$DUR" '$1 >= w && $1 < d { b[$5] += $4 }
		END { for (s = 0; s < 8; s++) printf "%d %.0f\n", s, b[s] * 1e9 / (d - w) }' \
		> "$VOUT/offered-$l"
done
printf 'LOADS="%s"\nDUR=%s\nTREE=%s\nLINK=%s\nBUFFER=16k\n' "$LOADS" "$DUR" "$TREE" "$LINK" > "$IN/env"

# qsim on the same frames: vcsw's thresholds (3072, 6144, 3072 bytes),
# 16 KiB per VC per side, RECN's times as fabric-topo sets them (a
# 1514-byte frame's time T: refresh T, lease 4 T, idle 20 T), steps of
# 2.5 bytes
QSIM=$FQ_BUILD/bin/qsim
[ -x "$QSIM" ] || fq_die "$QSIM not built (make)"
frame_ns=$((1514 * 8 * 1000000000 / (bps * 8)))
for l in $LOADS; do
	cat "$IN/trace-$l-h"* | sort -n -k1,1 -s > "$VOUT/all.trace"
	for a in fifo recn; do
		"$QSIM" recn --arch $a --leaves 4 --hosts 4 --spines 4 --rate "$bps" \
			--in-buffer 16384 --out-buffer 16384 --detect 3072 --xoff 6144 --xon 3072 \
			--refresh $frame_ns --lease $((4 * frame_ns)) --idle $((20 * frame_ns)) \
			--step $((2500000000 / bps)) --warmup "$WARM" --until "$DUR" "$VOUT/all.trace" \
			> "$VOUT/qsim-$a-$l.out" || fq_die "qsim recn failed on the VM's trace ($a, load $l)"
		awk -v a=qsim-$a -v l="$l" 'NR == FNR { off[$1] = $2; next }
			$1 == "sl" { printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", a, l, $2, off[$2], $8, $10, $12 }' \
			"$VOUT/offered-$l" "$VOUT/qsim-$a-$l.out" >> "$OUT/vm-results.tsv"
	done
done
rm -f "$VOUT/all.trace"

nloads=$(wc -w <<< "$LOADS")
# guest seconds: per load and architecture the start margin (1 s + 0.3 s
# a host), the traffic, a second of linger, the drain (up to 30 s, its
# polls about a second each) and the counters (a few seconds); two
# builds; the boot
guest=$((60 + 2 * 40 + 2 * nloads * (DUR / 1000000000 + 2 + HOSTS * 3 / 10 + 40)))
echo "demo/recn $guest /opt/fabric-qos/selftests/demo/recn.sh" > "$VOUT/list"
FQ_RECN_DEMO_DIR=$IN "$FQ_ROOT/scripts/mkinitramfs.sh" "$VOUT/initrd.gz" "$VOUT/list" \
	> "$VOUT/initramfs.log" 2>&1 ||
	{ cat "$VOUT/initramfs.log"; fq_die "building the initramfs failed"; }
rm -rf "$IN"
budget=$((120 + $(fq_vm_budget "$KIND" "$guest")))
echo "# recn-demo: the sweep in the $KIND VM, $nloads loads x trad, recn (up to ${budget}s)"
fq_vm_boot "$KIND" "$VOUT/initrd.gz" "$VOUT/console.log" "$VOUT/results.ktap" "$budget"
vm_rc=$?
echo "# $KIND VM ran $(( $(date +%s) - start ))s (qemu exit $vm_rc), console: ${VOUT#"$FQ_ROOT"/}/console.log"
fq_demo_files "$VOUT/results.ktap" "$VOUT"
failed=0
if fq_demo_kernel_log_bad "$VOUT"; then
	failed=1
fi
if ! grep -q '^recn ok' "$VOUT/summary.txt" 2>/dev/null || [ ! -s "$VOUT/recn/vm.tsv" ]; then
	echo "not ok recn-vm # the sweep did not finish (qemu exit $vm_rc)"
	grep -E 'not ok|FAIL|fatal|INFO' "$VOUT/results.ktap" | head -n 20
	exit 1
fi
# accepted and latency from the VM, offered from the traces
for l in $LOADS; do
	awk -F'\t' -v l="$l" 'NR == FNR { split($0, o, " "); off[o[1]] = o[2]; next }
		FNR > 1 && $2 == l { printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", $1, $2, $3, off[$3], $6, $7, $8 }' \
		"$VOUT/offered-$l" "$VOUT/recn/vm.tsv" >> "$OUT/vm-results.tsv"
done
grep INFO "$VOUT/results.ktap" | sed 's/^/  /'
exit $failed
