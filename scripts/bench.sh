#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: measure our qdiscs against the in-tree ones
# (Documentation/benchmarks.rst).
#
#   1. every benchmark under selftests/bench/ with "# vm: deterministic"
#      in one boot of the deterministic VM (guest time = guest instruction
#      count): instructions per packet, repeatable to well under 1 %;
#   2. those with "# vm: fast" in one boot of the ordinary VM: wall-clock
#      figures, reported as medians with their spread;
#   3. on the host, instructions per packet of the portable cores under
#      valgrind's callgrind.
#
# It prints tables and writes build/bench/{results.txt,qdisc.csv,qdisc.json,
# core.csv,wall.csv,*.svg}.  Benchmarks are not tests: a figure below a
# target is reported, not failed.  The run fails only when a benchmark
# could not measure (its exit code), a VM did not finish, or a kernel log
# has a warning or oops.
#
# Usage: scripts/bench.sh [REGEX]   only benchmarks whose name (bench/x)
#                                   matches the extended regex
# Environment: V=1 shows the VM console live.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
# what they measure needs the deterministic VM's -icount: never the slow
# kernels' boot of make check-debug (FQ_VM_SLOW, fq_vm_boot)
unset FQ_VM_SLOW

FILTER=${1:-}
OUT=$FQ_BUILD/bench
RESULTS=$OUT/results.txt
failed=0

rm -rf "$OUT"
mkdir -p "$OUT"
: > "$RESULTS"
echo "# kernel $(fq_kernel_label)"

# bench_vm_lock: the machine's VM lock (fq_vm_lock), taken by the first VM
# the run boots and kept until the last has run: another tree's VM between
# them would run the fast VM's wall-clock figures later, or beside the
# rest of that tree's work.  A run that boots no VM (T=core) does not wait
# for it.
BENCH_LOCKED=0
bench_vm_lock() {
	[ "$BENCH_LOCKED" = 1 ] && return 0
	fq_vm_lock "make bench"
	BENCH_LOCKED=1
	export FQ_VM_LOCK_HELD=1
}

# run_kind KIND: boot KIND once with its benchmarks, append their "bench"
# lines to results.txt, keep each one's output in bench_<name>.log
run_kind() {
	local kind=$1 list=$OUT/list-$1 ktap=$OUT/results-$1.ktap
	local console=$OUT/console-$1.log budget=120 b name tmo start vm_rc line

	: > "$list"
	for b in "$FQ_ROOT"/selftests/bench/*.sh; do
		[ -x "$b" ] || continue
		[ "$(fq_script_header "$b" vm)" = "$kind" ] || continue
		name=bench/$(basename "$b" .sh)
		[ -z "$FILTER" ] || [[ $name =~ $FILTER ]] || continue
		tmo=$(fq_script_header "$b" timeout)
		tmo=${tmo:-600}
		echo "$name $tmo /opt/fabric-qos/selftests/bench/$(basename "$b")" >> "$list"
		budget=$((budget + $(fq_vm_budget "$kind" "$tmo")))
	done
	[ -s "$list" ] || return 0

	"$FQ_ROOT/scripts/mkinitramfs.sh" "$OUT/initrd-$kind.gz" "$list" \
		> "$OUT/initramfs-$kind.log" 2>&1 ||
		{ cat "$OUT/initramfs-$kind.log"; fq_die "building the initramfs failed"; }
	bench_vm_lock
	start=$(date +%s)
	# the CPU the published figures (benchmarks.rst) were measured on:
	# guest instructions per packet depend on the code paths it offers
	FQ_VM_CPU=${FQ_VM_CPU:-max} \
		fq_vm_boot "$kind" "$OUT/initrd-$kind.gz" "$console" "$ktap" "$budget"
	vm_rc=$?
	echo "# $kind VM ran $(( $(date +%s) - start ))s (qemu exit $vm_rc), console: ${console#"$FQ_ROOT"/}"

	tr -d '\r' < "$ktap" | awk -v dir="$OUT" -v kind="$kind" '
		/^# FQ-KERNEL-LOG-BEGIN/ { klog = 1; next }
		/^# FQ-KERNEL-LOG-END/   { klog = 0; next }
		klog { sub(/^# /, ""); print > (dir "/kernel-" kind ".log"); next }
		/^# / { sub(/^# /, ""); buf = buf $0 "\n"; if (/^bench /) print >> (dir "/results.txt"); next }
		/^(not )?ok [0-9]+ / {
			name = ($1 == "ok") ? $3 : $4; gsub("/", "_", name)
			printf "%s", buf > (dir "/" name ".log"); buf = ""
		}'

	while read -r name _; do
		line=$(tr -d '\r' < "$ktap" | grep -E "^(not )?ok [0-9]+ $name( |\$)")
		if [ -z "$line" ]; then
			echo "not ok $name # no result: the VM stopped before reporting it"
			tail -n 20 "$console" | sed 's/^/#   /'
			failed=1
		elif [[ $line == "not ok"* ]]; then
			echo "$line"
			sed 's/^/#   /' "$OUT/${name//\//_}.log"
			failed=1
		elif [[ $line == *"# SKIP"* ]]; then
			echo "$line"
		fi
	done < "$list"
	if grep -Eh -A12 "$FQ_BAD_LOG" "$console" "$OUT/kernel-$kind.log" 2>/dev/null | head -n 40 | grep .; then
		echo "not ok kernel-log-$kind # WARNING/BUG/Oops in the kernel log"
		failed=1
	elif ! grep -q '^# FQ-VM-DONE' "$ktap"; then
		echo "not ok vm-$kind # the VM did not finish (qemu exit $vm_rc)"
		failed=1
	fi
}

# core_costs: callgrind instruction counts of the portable cores, per
# packet: the difference between runs of 2N and N packets, over N
core_costs() {
	local bin=$FQ_BUILD/bench/core_cost n=100000 d flows path a b
	local csv=$OUT/core.csv

	command -v valgrind >/dev/null || { echo "# no valgrind: core costs skipped"; return; }
	echo "discipline,path,flows,insn_per_pkt" > "$csv"
	for d in $("$bin" --list); do
		for path in uncongested backlogged; do
			for flows in 1 1000 100000; do
				a=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
					"$bin" "$d" "$flows" "$path" "$n" 2>&1 |
					sed -n 's/.*Collected : //p')
				b=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
					"$bin" "$d" "$flows" "$path" $((2 * n)) 2>&1 |
					sed -n 's/.*Collected : //p')
				[ -n "$a" ] && [ -n "$b" ] || { echo "not ok core-cost $d # callgrind failed"; failed=1; return; }
				echo "$d,$path,$flows,$(( (b - a) / n ))" >> "$csv"
			done
		done
	done
	echo
	echo "portable cores on the host (callgrind): instructions per packet, enqueue + dequeue"
	awk -F, 'NR > 1 { printf "%-10s %-12s flows=%-7s %s\n", $1, $2, $3, $4 }' "$csv"
}

# wall_summary: median pps and spread per case of the fast VM's repetitions
wall_summary() {
	local csv=$OUT/wall.csv

	grep '^bench wall ' "$RESULTS" | awk '
		{ for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		  print v["case"], v["pps"] }' | sort -k1,1 -k2n |
	awk '
		{ c = $1; if (!(c in n)) order[++nc] = c; p[c, ++n[c]] = $2 }
		END {
			print "case,reps,median_pps,min_pps,max_pps,spread_pct"
			for (i = 1; i <= nc; i++) {
				c = order[i]; k = n[c]
				med = (k % 2) ? p[c, (k + 1) / 2] : (p[c, k / 2] + p[c, k / 2 + 1]) / 2
				printf "%s,%d,%.0f,%d,%d,%.1f\n", c, k, med, p[c, 1], p[c, k],
					100 * (p[c, k] - p[c, 1]) / med
			}
		}' > "$csv"
	[ "$(wc -l < "$csv")" -gt 1 ] || return 0
	echo
	echo "wall clock, ordinary VM, uncongested, 1000 flows (moves with host load):"
	awk -F, 'NR > 1 { printf "%-12s median %8d pps  spread %5.1f %% over %d runs\n", $1, $3, $6, $2 }' "$csv"
}

# vcsw_summary: the switch forwarding figures (selftests/bench/vcsw_fwd.sh):
# instructions per frame, own cost (less direct's), ratio to the peer
vcsw_summary() {
	local csv=$OUT/vcsw.csv

	grep -E '^bench vcsw(-peer)? ' "$RESULTS" | awk '
		{ delete v; for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		$2 == "vcsw-peer" { peer[v["case"]] = v["peer"]; next }
		{ c = v["case"]; order[++n] = c; ins[c] = v["insn_per_frame"]; pps[c] = v["pps"]
		  del[c] = v["delivered"]; fr[c] = v["frames"]; err[c] = v["errors"] }
		END {
			print "case,insn_per_frame,own_insn_per_frame,frames,delivered,errors,peer,pps_ratio_to_peer"
			for (i = 1; i <= n; i++) {
				c = order[i]; p = (c in peer) ? peer[c] : ""
				printf "%s,%s,%s,%s,%s,%s,%s,%s\n", c, ins[c],
					("direct" in ins) ? ins[c] - ins["direct"] : "",
					fr[c], del[c], err[c], p,
					(p != "" && pps[p] > 0) ? sprintf("%.2f", pps[c] / pps[p]) : ""
			}
		}' > "$csv"
	[ "$(wc -l < "$csv")" -gt 1 ] || { rm -f "$csv"; return 0; }
	echo
	echo "switch forwarding, deterministic VM: guest instructions per frame (own: less direct's)"
	awk -F, 'NR > 1 { printf "%-22s %6s (own %6s)  delivered %s of %s%s%s\n", $1, $2, $3, $5, $4,
		$6 != "" && $6 != 0 ? ", pktgen errors " $6 : "",
		$7 != "" ? sprintf(", pps ratio to %s %s", $7, $8) : "" }' "$csv"
}

# tcp_summary: the TCP bulk figures (selftests/bench/tcp_gso.sh): bytes
# per guest second, edf's counters, ratio to the peer
tcp_summary() {
	local csv=$OUT/tcp.csv

	grep -E '^bench tcp(-peer)? ' "$RESULTS" | awk '
		{ delete v; for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] } }
		$2 == "tcp-peer" { peer[v["case"]] = v["peer"]; next }
		v["case"] == "warmup" { next }
		{ c = v["case"]; order[++n] = c; rate[c] = v["bytes_per_gs"]
		  seg[c] = v["gso_segmented"]; push[c] = v["ttd_pushed"] }
		END {
			print "case,bytes_per_guest_s,gso_segmented,ttd_pushed,peer,ratio_to_peer"
			for (i = 1; i <= n; i++) {
				c = order[i]; p = (c in peer) ? peer[c] : ""
				printf "%s,%s,%s,%s,%s,%s\n", c, rate[c], seg[c], push[c], p,
					(p != "" && rate[p] > 0) ? sprintf("%.2f", rate[c] / rate[p]) : ""
			}
		}' > "$csv"
	[ "$(wc -l < "$csv")" -gt 1 ] || { rm -f "$csv"; return 0; }
	echo
	echo "TCP bulk, deterministic VM: bytes per guest second (1e9 instructions)"
	awk -F, 'NR > 1 { printf "%-12s %11s B/s  gso_segmented %s ttd_pushed %s%s\n", $1, $2, $3, $4,
		$5 != "" ? sprintf(", ratio to %s %s", $5, $6) : "" }' "$csv"
}

run_kind deterministic
run_kind fast
# the host's part (core_costs) needs no VM: the lock goes
if [ "$BENCH_LOCKED" = 1 ]; then
	exec 9>&-
	unset FQ_VM_LOCK_HELD
fi
abi=$(fq_vm_abi)
grep -q '^bench qdisc ' "$RESULTS" 2>/dev/null && FQ_ROOT=$FQ_ROOT FQ_BENCH_KERNEL=$abi \
	FQ_BENCH_KERNEL_PACKAGE=$(fq_kernel_version "$abi" || echo unknown) \
	"$FQ_ROOT/scripts/bench-report.sh" "$RESULTS" "$OUT"
wall_summary
vcsw_summary
tcp_summary
[ -z "$FILTER" ] || [[ core =~ $FILTER ]] && core_costs

echo
echo "# kernel $(fq_kernel_label)"
echo "results: ${RESULTS#"$FQ_ROOT"/}, outputs: ${OUT#"$FQ_ROOT"/}/"
exit $failed
