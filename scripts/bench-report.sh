#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Turn the "bench qdisc ..." lines of a benchmark run into tables (stdout),
# build/bench/qdisc.csv, build/bench/qdisc.json and plots of the cost
# against the flow count (gnuplot, SVG).
#
# Usage: scripts/bench-report.sh RESULTS OUTDIR
#
# Own cost: uncongested, a case's instructions per packet less noqueue's
# (no qdisc; for an mq- case mq-noqueue's) at the same flow count;
# backlogged, its enqueue + drain instructions less pfifo's at the same
# flow count (for a -shuffled case pfifo-shuffled's: pktgen's random
# draw costs every packet).  Peer ratios are
# throughput ratios (pps, higher is better for the case) on the same path
# at the same flows / classes.
set -euo pipefail

RESULTS=$1 OUT=$2
CSV=$OUT/qdisc.csv JSON=$OUT/qdisc.json
# the kernel the figures were measured on (scripts/bench.sh sets these)
KERNEL=${FQ_BENCH_KERNEL:-unknown} KERNEL_PACKAGE=${FQ_BENCH_KERNEL_PACKAGE:-unknown}

# one CSV row per measurement, own cost computed
awk -v kernel="$KERNEL" -v kpkg="$KERNEL_PACKAGE" '
	function floor_key(cs, flows) { return (cs ~ /^mq-/ ? "mq " : "") flows }
	function floor_b_key(cs, flows) { return (cs ~ /-shuffled$/ ? "shuffled " : "") flows }
	$1 != "bench" { next }
	$2 == "peer" {
		for (i = 3; i <= NF; i++) { split($i, kv, "="); p[kv[1]] = kv[2] }
		print "#peer," p["case"] "," p["peer"]
		next
	}
	$2 != "qdisc" { next }
	{
		delete v
		for (i = 3; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		n++
		c[n] = v["case"]; pa[n] = v["path"]; f[n] = v["flows"]; k[n] = v["classes"]
		pps[n] = v["pps"]; ins[n] = v["insn_per_pkt"]
		dr[n] = v["drain_insn_per_pkt"]; sl[n] = v["slab_bytes_per_flow"]
		held[n] = v["held"]
		# an mq- case has its own floor: the same device without a qdisc
		if (pa[n] == "uncongested" && (c[n] == "noqueue" || c[n] == "mq-noqueue"))
			floor_u[floor_key(c[n], f[n])] = ins[n]
		if (pa[n] == "backlogged" && (c[n] == "pfifo" || c[n] == "pfifo-shuffled") &&
		    k[n] == 1)
			floor_b[floor_b_key(c[n], f[n])] = ins[n] + dr[n]
	}
	END {
		print "case,path,flows,classes,pps,insn_per_pkt,drain_insn_per_pkt,own_insn_per_pkt,slab_bytes_per_flow,held,kernel,kernel_package"
		for (i = 1; i <= n; i++) {
			own = ""
			if (pa[i] == "uncongested" && (floor_key(c[i], f[i]) in floor_u))
				own = ins[i] - floor_u[floor_key(c[i], f[i])]
			if (pa[i] == "backlogged" && (floor_b_key(c[i], f[i]) in floor_b))
				own = ins[i] + dr[i] - floor_b[floor_b_key(c[i], f[i])]
			printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", c[i], pa[i], f[i], k[i],
				pps[i], ins[i], dr[i], own, sl[i], held[i], kernel, kpkg
		}
	}' "$RESULTS" > "$CSV.tmp"
grep -v '^#peer' "$CSV.tmp" > "$CSV"

# JSON: {"kernel": ..., "kernel_package": ..., "measurements": [...],
# "peers": {"edf": "fq", ...}}; each measurement names its kernel too
awk -F, -v kernel="$KERNEL" -v kpkg="$KERNEL_PACKAGE" '
	/^#peer/ { peers = peers (peers ? ", " : "") "\"" $2 "\": \"" $3 "\""; next }
	$1 == "case" { for (i = 1; i <= NF; i++) h[i] = $i; nf = NF; next }
	{
		s = "    {"
		for (i = 1; i <= nf; i++) {
			if ($i == "") continue
			q = (i <= 2 || h[i] ~ /^kernel/) ? "\"" : ""
			s = s (s ~ /{$/ ? "" : ", ") "\"" h[i] "\": " q $i q
		}
		rows = rows (rows ? ",\n" : "") s "}"
	}
	END {
		printf "{\n  \"kernel\": \"%s\",\n  \"kernel_package\": \"%s\",\n", kernel, kpkg
		printf "  \"measurements\": [\n%s\n  ],\n  \"peers\": {%s}\n}\n", rows, peers
	}
' "$CSV.tmp" > "$JSON"

# tables
awk -F, '
	/^#peer/ { peer[$2] = $3; next }
	$1 == "case" { next }
	{
		key = $1 SUBSEP $2 SUBSEP $3 SUBSEP $4
		pps[key] = $5; ins[key] = $6; dr[key] = $7; own[key] = $8; sl[key] = $9
		if (!($1 in seen)) { seen[$1] = 1; cases[++nc] = $1 }
		if ($4 == 1) { if (!($3 in sf)) { sf[$3] = 1; flows[++nf] = $3 } }
		else if (!($4 in sk)) { sk[$4] = 1; classes[++nk] = $4 }
	}
	function cell(cs, path, f, k,    key) {
		key = cs SUBSEP path SUBSEP f SUBSEP k
		if (!(key in ins)) return "-"
		if (path == "uncongested") return ins[key] " (" own[key] ")"
		return ins[key] "+" dr[key] " (" own[key] ")"
	}
	function ratio(cs, path, f, k,    a, b) {
		a = cs SUBSEP path SUBSEP f SUBSEP k; b = peer[cs] SUBSEP path SUBSEP f SUBSEP k
		if (!(a in pps) || !(b in pps) || pps[b] == 0) return "-"
		return sprintf("%.2f", pps[a] / pps[b])
	}
	function table(path, what, list, cnt, isclass,    i, j, cs, r, any) {
		printf "\n%s, %s: guest instructions per packet%s (own cost)\n", path, what,
			path == "backlogged" ? ", enqueue+drain" : ""
		printf "%-14s", "case"
		for (j = 1; j <= cnt; j++) printf "  %-20s", (isclass ? "classes=" : "flows=") list[j]
		printf "  %s\n", "pps ratio to peer"
		for (i = 1; i <= nc; i++) {
			cs = cases[i]; any = 0
			for (j = 1; j <= cnt; j++)
				if (cell(cs, path, isclass ? 1000 : list[j], isclass ? list[j] : 1) != "-") any = 1
			if (!any) continue
			printf "%-14s", cs
			for (j = 1; j <= cnt; j++)
				printf "  %-20s", cell(cs, path, isclass ? 1000 : list[j], isclass ? list[j] : 1)
			if (cs in peer) {
				r = ""
				for (j = 1; j <= cnt; j++)
					r = r " " ratio(cs, path, isclass ? 1000 : list[j], isclass ? list[j] : 1)
				printf "  %s/%s%s", cs, peer[cs], r
			}
			printf "\n"
		}
	}
	END {
		table("uncongested", "by flows", flows, nf, 0)
		table("backlogged", "by flows", flows, nf, 0)
		if (nk) {
			table("uncongested", "by classes (1000 flows)", classes, nk, 1)
			table("backlogged", "by classes (1000 flows)", classes, nk, 1)
		}
		f = flows[nf]
		printf "\nslab memory per flow at %s flows (bytes, uncongested):", f
		for (i = 1; i <= nc; i++) {
			key = cases[i] SUBSEP "uncongested" SUBSEP f SUBSEP 1
			if (key in sl) printf " %s %s", cases[i], sl[key]
		}
		printf "\n"
	}' "$CSV.tmp"
rm -f "$CSV.tmp"

# plots: own cost against flows, one line per case, per path
if command -v gnuplot >/dev/null; then
	for path in uncongested backlogged; do
		data=$OUT/plot-$path.dat
		awk -F, -v path="$path" '
			NR > 1 && $2 == path && $4 == 1 && $8 != "" {
				if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
				d[$1] = d[$1] $3 " " $8 "\n"
			}
			END { for (i = 1; i <= n; i++) printf "\"%s\"\n%s\n\n", order[i], d[order[i]] }
		' "$CSV" > "$data"
		[ -s "$data" ] || continue
		gnuplot <<-GP
			set terminal svg size 800,500 dynamic noenhanced
			set output "$OUT/cost-$path.svg"
			set title "$path path: own cost per packet (guest instructions)"
			set xlabel "flows"; set ylabel "instructions per packet"
			set logscale x; set key outside right; set grid
			plot for [i=0:*] "$data" index i using 1:2 with linespoints title columnheader(1)
		GP
	done
fi
echo
echo "wrote ${CSV#"${FQ_ROOT:-}"/}, ${JSON#"${FQ_ROOT:-}"/} and plots in ${OUT#"${FQ_ROOT:-}"/}/"
