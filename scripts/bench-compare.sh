#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Compare the instruction figures of two make bench runs: for every
# measurement in both (same case, path, flows, classes) the relative
# difference of its instructions per packet and of its drain cost.
# Prints the measurements that moved by more than the threshold and the
# largest difference; exits 1 if any moved more.
#
# Usage: scripts/bench-compare.sh OLD/results.txt NEW/results.txt [PERCENT]
#        (PERCENT defaults to 1)
set -euo pipefail

[ $# -ge 2 ] || { echo "usage: $0 OLD/results.txt NEW/results.txt [PERCENT]" >&2; exit 2; }
OLD=$1 NEW=$2 LIMIT=${3:-1}

awk -v limit="$LIMIT" '
	$1 != "bench" || $2 != "qdisc" { next }
	{
		delete v
		for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		key = v["case"] " " v["path"] " flows=" v["flows"] " classes=" v["classes"]
		if (FILENAME == ARGV[1]) {
			ins[key] = v["insn_per_pkt"]; dr[key] = v["drain_insn_per_pkt"]
			next
		}
		if (!(key in ins)) { only++; next }
		n++
		worst_here = 0
		split("insn_per_pkt drain_insn_per_pkt", what, " ")
		for (w = 1; w <= 2; w++) {
			a = (w == 1) ? ins[key] : dr[key]; b = v[what[w]]
			if (a == "" || b == "" || a == 0) continue
			d = 100 * (b - a) / a; if (d < 0) d = -d
			if (d > worst_here) worst_here = d
			if (d > worst) { worst = d; worst_key = key " " what[w] }
			if (d > limit) {
				printf "%-50s %-18s %8s -> %8s  %5.2f %%\n", key, what[w], a, b, d
				over++
			}
		}
	}
	END {
		printf "%d measurements compared (%d only in the new run); largest difference %.2f %%%s\n",
			n, only, worst, worst_key == "" ? "" : " (" worst_key ")"
		if (over) { printf "%d figures moved more than %s %%\n", over, limit; exit 1 }
	}' "$OLD" "$NEW"
