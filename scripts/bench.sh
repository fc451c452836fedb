#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make bench: run every benchmark under selftests/bench/ in one boot of the
# deterministic VM (guest time = guest instruction count), collect their
# "bench ..." lines into build/bench/results.txt and print them as tables.
# Benchmarks are not tests: a result below a target is reported, not
# failed.  The run fails only when a benchmark could not measure (its exit
# code), the VM did not finish, or the kernel log has a warning or oops.
#
# Usage: scripts/bench.sh [REGEX]   only benchmarks whose name (bench/x)
#                                   matches the extended regex
# Environment: V=1 shows the VM console live.
set -uo pipefail
. "$(dirname "$0")/lib.sh"

FILTER=${1:-}
OUT=$FQ_BUILD/bench
KIND=deterministic
LIST=$OUT/list
KTAP=$OUT/results.ktap
CONSOLE=$OUT/console.log
RESULTS=$OUT/results.txt
TARGET=0.80	# edf/fq, from the edf issue

budget=120	# boot and poweroff
list=
for b in "$FQ_ROOT"/selftests/bench/*.sh; do
	[ -x "$b" ] || continue
	name=bench/$(basename "$b" .sh)
	[ -z "$FILTER" ] || [[ $name =~ $FILTER ]] || continue
	tmo=$(fq_script_header "$b" timeout)
	tmo=${tmo:-600}
	list+="$name $tmo /opt/fabric-qos/selftests/bench/$(basename "$b")"$'\n'
	budget=$((budget + $(fq_vm_budget "$KIND" "$tmo")))
done
[ -n "$list" ] || fq_die "no benchmark matches '$FILTER'"

rm -rf "$OUT"
mkdir -p "$OUT"
printf '%s' "$list" > "$LIST"

"$FQ_ROOT/scripts/mkinitramfs.sh" "$OUT/initrd.gz" "$LIST" > "$OUT/initramfs.log" 2>&1 ||
	{ cat "$OUT/initramfs.log"; fq_die "building the initramfs failed"; }
start=$(date +%s)
fq_vm_boot "$KIND" "$OUT/initrd.gz" "$CONSOLE" "$KTAP" "$budget"
vm_rc=$?
echo "# $KIND VM ran $(( $(date +%s) - start ))s (qemu exit $vm_rc), console: ${CONSOLE#"$FQ_ROOT"/}"

# Each benchmark's output ("# " lines) goes to build/bench/bench_<name>.log;
# its "bench ..." lines to results.txt as well.
tr -d '\r' < "$KTAP" | awk -v dir="$OUT" '
	/^# FQ-KERNEL-LOG-BEGIN/ { klog = 1; next }
	/^# FQ-KERNEL-LOG-END/   { klog = 0; next }
	klog { sub(/^# /, ""); print > (dir "/kernel.log"); next }
	/^# / { sub(/^# /, ""); buf = buf $0 "\n"; if (/^bench /) print > (dir "/results.txt"); next }
	/^(not )?ok [0-9]+ / {
		name = ($1 == "ok") ? $3 : $4; gsub("/", "_", name)
		printf "%s", buf > (dir "/" name ".log"); buf = ""
	}'
touch "$RESULTS"

failed=0
while read -r name _; do
	line=$(tr -d '\r' < "$KTAP" | grep -E "^(not )?ok [0-9]+ $name( |\$)")
	if [ -z "$line" ]; then
		echo "not ok $name # no result: the VM stopped before reporting it"
		tail -n 20 "$CONSOLE" | sed 's/^/#   /'
		failed=1
	elif [[ $line == "not ok"* ]]; then
		echo "$line"
		sed 's/^/#   /' "$OUT/${name//\//_}.log"
		failed=1
	elif [[ $line == *"# SKIP"* ]]; then
		echo "$line"
	fi
done < "$LIST"
if grep -Eh -A12 "$FQ_BAD_LOG" "$CONSOLE" "$OUT/kernel.log" 2>/dev/null | head -n 40 | grep .; then
	echo "not ok kernel-log # WARNING/BUG/Oops in the kernel log"
	failed=1
elif ! grep -q '^# FQ-VM-DONE' "$KTAP"; then
	echo "not ok vm # the VM did not finish (qemu exit $vm_rc)"
	failed=1
fi

# One table per benchmark: rows are flow counts, columns qdiscs, cells
# "pps (instructions per packet)", then each ratio against its target.
awk -v target="$TARGET" '
	$1 != "bench" { next }
	$3 == "ratio" {
		split($5, f, "=")
		ratio[$2, f[2]] = $6; rname[$2] = $4
		next
	}
	{
		for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		b = $2
		if (!(b in seen)) { seen[b] = 1; order[++nb] = b }
		if (!((b, v["qdisc"]) in hasq)) { hasq[b, v["qdisc"]] = 1; qs[b] = qs[b] " " v["qdisc"] }
		if (!((b, v["flows"]) in hasf)) { hasf[b, v["flows"]] = 1; fs[b] = fs[b] " " v["flows"] }
		cell[b, v["flows"], v["qdisc"]] = sprintf("%d (%d)", v["pps"], v["insn_per_pkt"])
	}
	END {
		for (n = 1; n <= nb; n++) {
			b = order[n]
			nq = split(qs[b], q, " "); nf = split(fs[b], f, " ")
			printf "\n%s: packets per second (guest instructions per packet)\n", b
			printf "%-8s", "flows"
			for (j = 1; j <= nq; j++) printf "  %-15s", q[j]
			if (rname[b] != "") printf "  %s", rname[b]
			printf "\n"
			for (i = 1; i <= nf; i++) {
				printf "%-8s", f[i]
				for (j = 1; j <= nq; j++) printf "  %-15s", cell[b, f[i], q[j]]
				if ((b, f[i]) in ratio) {
					r = ratio[b, f[i]]
					printf "  %s %s", r, (r + 0 >= target + 0) ? "" : "(below " target ")"
				}
				printf "\n"
			}
		}
	}' "$RESULTS"
echo
echo "results: ${RESULTS#"$FQ_ROOT"/}, outputs: ${OUT#"$FQ_ROOT"/}/"
exit $failed
