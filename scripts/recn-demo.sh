#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The RECN measurements with qsim recn (Documentation/recn.rst), run by
# make demo (or alone: make recn-demo); no VM.  Into build/recn-demo/:
#  - tree: a congestion tree (selftests/host/recn_qsim.sh's), each
#    architecture: the innocent flow's throughput, the SAQs in use over
#    time;
#  - sweep: the paper's experiment scaled down, 8 SLs of self-similar
#    traffic (scripts/recn-traffic.awk) on 4 leaves of 4 hosts under 4
#    spines, at each input load: best-effort throughput (Figs. 2, 3) and
#    QoS latency (Figs. 4, 5) for fifo, voq and recn with two VCs, and
#    voq8: VOQs with a VC per SL and the same buffer per side, a quarter
#    of it per VC (the paper's "VOQ Switch");
#  - with --vm (make demo; make recn-demo VM=1): the same experiment on
#    vcsw switches and edf hosts in the deterministic VM
#    (selftests/demo/recn.sh), the lossless switch (trad) against RECN,
#    into vm/ and vm-results.tsv;
#  - results.tsv, report.md, and plots when gnuplot is installed.
#
# Environment: RECN_LOADS (input loads, default 0.2 0.4 0.6 0.7 0.8 0.9
# 1.0), RECN_DUR (ns of traffic, 6000000; the first quarter is warm-up),
# RECN_SEED (1), RECN_OUT (the directory, build/recn-demo); in the VM:
# RECN_VM_LOADS (0.2 0.4 0.6 0.8 1.0), RECN_VM_DUR (16000000000 ns),
# RECN_VM_LINK (500kbit); V=1 shows the VM console live.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
VM=0
if [ "${1:-}" = --vm ]; then
	VM=1
	shift
fi
[ $# = 0 ] || fq_die "usage: recn-demo.sh [--vm]"

OUT=${RECN_OUT:-$FQ_BUILD/recn-demo}
QSIM=$FQ_BUILD/bin/qsim
LOADS=${RECN_LOADS:-0.2 0.4 0.6 0.7 0.8 0.9 1.0}
DUR=${RECN_DUR:-6000000}
SEED=${RECN_SEED:-1}
ARCHS="fifo voq voq8 recn"
# qsim recn's options for each
arch_opts() {
	case $1 in
	voq8) echo "--arch voq --vcs 8 --in-buffer 4096 --out-buffer 4096" ;;
	*) echo "--arch $1" ;;
	esac
}
TOPO="--leaves 4 --hosts 4 --spines 4"
HOSTS=16
RATE=1000000000
[ -x "$QSIM" ] || fq_die "$QSIM not built (make)"
for l in $LOADS; do
	[[ $l =~ ^(0\.[0-9]+|1(\.0+)?)$ ]] || fq_die "RECN_LOADS: '$l': want 0.x or 1.0"
done
[[ $DUR =~ ^[0-9]+$ ]] && [ "$DUR" -ge 200000 ] && [ "$DUR" -le 100000000 ] ||
	fq_die "RECN_DUR: '$DUR': want 200000 to 100000000 ns"
[[ $SEED =~ ^[0-9]+$ ]] || fq_die "RECN_SEED: '$SEED': want a number"
WARM=$((DUR / 4))

rm -rf "$OUT"
mkdir -p "$OUT"
start=$(date +%s)

# ---- the congestion tree --------------------------------------------------
awk -f "$FQ_ROOT/scripts/recn-tree.awk" > "$OUT/tree.trace"
printf 'arch\tflow\trate_Bps\tlat_avg_ns\n' > "$OUT/tree.tsv"
for a in fifo voq recn; do
	"$QSIM" recn --arch $a --leaves 2 --hosts 3 --spines 1 --warmup 500000 --until 2000000 \
		"$OUT/tree.trace" > "$OUT/tree-$a.out" || fq_die "qsim recn failed on the tree ($a)"
	awk -v a=$a '$1 == "flow" { print a "\t" $2 "->" $3 "\t" $10 "\t" $12 }' \
		"$OUT/tree-$a.out" >> "$OUT/tree.tsv"
done
"$QSIM" recn --leaves 2 --hosts 3 --spines 1 --sample 20000 --until 8000000 \
	"$OUT/tree.trace" > "$OUT/tree-saqs.out" || fq_die "qsim recn failed on the tree (saqs)"
awk '$1 == "saqs" { print $2 / 1000 "\t" $3 }' "$OUT/tree-saqs.out" > "$OUT/tree-saqs.dat"

# ---- the sweep -----------------------------------------------------------------
printf 'arch\tload\tsl\toffered_Bps\taccepted_Bps\tlat_avg_ns\tlat_max_ns\n' > "$OUT/results.tsv"
for l in $LOADS; do
	tr=$OUT/sweep-$l.trace
	awk -v seed="$SEED" -v hosts=$HOSTS -v load="$l" -v bps=$RATE -v dur="$DUR" \
		-f "$FQ_ROOT/scripts/recn-traffic.awk" | sort -n -k1,1 -s > "$tr"
	# what each SL offered in the measured window, in bytes per second
	awk -v w="$WARM" -v d="$DUR" '$1 >= w && $1 < d { b[$5] += $4 }
		END { for (s = 0; s < 8; s++) printf "%d %.0f\n", s, b[s] * 1e9 / (d - w) }' \
		"$tr" > "$OUT/sweep-$l.offered"
	for a in $ARCHS; do
		o=$OUT/sweep-$l-$a.out
		# shellcheck disable=SC2046
		"$QSIM" recn $(arch_opts $a) $TOPO --rate $RATE --warmup "$WARM" --until "$DUR" \
			"$tr" > "$o" ||
			fq_die "qsim recn failed (load $l, $a)"
		awk -v a=$a -v l="$l" 'NR == FNR { off[$1] = $2; next }
			$1 == "sl" { print a "\t" l "\t" $2 "\t" off[$2] "\t" $8 "\t" $10 "\t" $12 }' \
			"$OUT/sweep-$l.offered" "$o" >> "$OUT/results.tsv"
	done
	rm -f "$tr"
done
echo "# recn-demo: qsim $(( $(date +%s) - start ))s"

# ---- the sweep in the VM ---------------------------------------------------------
if [ $VM = 1 ]; then
	"$FQ_ROOT/scripts/recn-demo-vm.sh" "$OUT" "$SEED" || fq_die "the RECN sweep in the VM failed"
fi
echo "# recn-demo: $(( $(date +%s) - start ))s, results in ${OUT#"$FQ_ROOT"/}/"
"$FQ_ROOT/scripts/recn-report.sh" "$OUT"
