#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# fabric_merge.sh OUT: one set of results per traffic class from the
# receivers of a fabric scenario (fabric.sh), in the form scenario.sh
# leaves for one receiver, so that make demo's report puts the fabric
# next to the single switch: OUT/results.csv, OUT/recv.txt and
# OUT/KIND.{cdf,msg.cdf,msg.hist} from OUT/rH/results.csv and the CDFs
# beside them (one class per sender and kind there, named hS-dD-KK).
#
# How the classes merge, per kind:
# - counts (sent, received, lost, bytes, messages) add up, and so do the
#   receivers' throughputs;
# - means and jitter are weighted by datagrams (packets) or complete
#   messages; the deadline-miss and in-window ratios likewise;
# - the maxima are the largest;
# - percentiles come from the receivers' CDFs merged: each point of a
#   receiver's CDF stands for the samples between it and the point
#   before (its fraction step times the class's count), and the merged
#   distribution is those weighted points in order.  A receiver's CDF
#   has 400 points evenly spaced in rank plus its p99, p99.9 and
#   maximum, so a merged percentile is within a 400th of the rank of
#   the exact one.
set -u
OUT=${1:?usage: fabric_merge.sh OUT}
KINDS="control multimedia besteffort background"
CSV_HEAD="class,name,kind,sent,received,lost,loss_ratio,bytes,throughput_bps,lat_mean_us,lat_p50_us,lat_p90_us,lat_p99_us,lat_p999_us,lat_max_us,jitter_us,msgs,msg_mean_us,msg_p50_us,msg_p99_us,msg_max_us,target_us,deadline_miss_ratio,in_window_ratio,msg_p90_us,msg_p999_us,msg_jitter_us"

shopt -s nullglob
csvs=("$OUT"/r*/results.csv)
((${#csvs[@]})) || { echo "fabric_merge: no receiver results in $OUT" >&2; exit 1; }

# rows KIND: "DIR NAME RECEIVED MSGS" of every class of KIND
rows()
{
	local f

	for f in "${csvs[@]}"; do
		awk -F, -v kind="$1" -v dir="${f%/results.csv}" '
			FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["kind"] == kind { print dir, $c["name"], $c["received"], $c["msgs"] }' "$f"
	done
}

# weighted EXT COLUMN(3: datagrams, 4: messages): "latency weight" of
# every CDF point of the kind's classes, in latency order
weighted()
{
	local dir name rcvd msgs n

	while read -r dir name rcvd msgs; do
		[[ $2 == 3 ]] && n=$rcvd || n=$msgs
		[[ -s $dir/$name.$1 ]] || continue
		awk -v n="$n" '/^#/ { next } { print $1, ($2 - last) * n; last = $2 }' "$dir/$name.$1"
	done < "$ROWS" | sort -g
}

# percentiles OUTFILE [HIST]: from "latency weight" lines in order, print
# "p50 p90 p99 p999", write the merged CDF to OUTFILE (a point per 400th
# of the weight, and the last), and with HIST a 50-bucket histogram
percentiles()
{
	awk -v out="$1" -v hist="${2:-}" '
		{ lat[NR] = $1; w[NR] = $2; tot += $2 }
		END {
			if (!NR || tot <= 0) { print "   "; exit }
			split("0.5 0.9 0.99 0.999", q, " ")
			print "# latency_us fraction" > out
			cum = 0; k = 1; step = 1
			for (i = 1; i <= NR; i++) {
				cum += w[i]
				while (k <= 4 && cum >= q[k] * tot - 1e-9) { p[k] = lat[i]; k++ }
				if (cum >= step * tot / 400 - 1e-9 || i == NR) {
					printf "%.3f %.6f\n", lat[i], cum / tot > out
					while (step * tot / 400 <= cum + 1e-9) step++
				}
			}
			for (; k <= 4; k++) p[k] = lat[NR]
			if (hist != "") {
				lo = lat[1]; width = (lat[NR] - lo) / 50
				if (width <= 0) width = 1
				for (i = 1; i <= NR; i++) {
					b = int((lat[i] - lo) / width); if (b > 49) b = 49
					cnt[b] += w[i]
				}
				print "# bucket_start_us bucket_width_us count" > hist
				for (b = 0; b < 50; b++)
					printf "%.3f %.3f %.0f\n", lo + b * width, width, cnt[b] > hist
			}
			printf "%.3f %.3f %.3f %.3f\n", p[1], p[2], p[3], p[4]
		}'
}

ROWS=$(mktemp)
trap 'rm -f "$ROWS"' EXIT
echo "$CSV_HEAD" > "$OUT/results.csv"
declare -A NMERGED
idx=0
for kind in $KINDS; do
	rows "$kind" > "$ROWS"
	[[ -s $ROWS ]] || continue
	NMERGED[$kind]=$(wc -l < "$ROWS")
	read -r p50 p90 p99 p999 <<< "$(weighted cdf 3 | percentiles "$OUT/$kind.cdf")"
	hist=
	[[ $kind == multimedia ]] && hist=$OUT/$kind.msg.hist
	read -r m50 m90 m99 m999 <<< "$(weighted msg.cdf 4 | percentiles "$OUT/$kind.msg.cdf" "$hist")"
	for f in "${csvs[@]}"; do
		# comma-separated: a class without a target has empty fields
		awk -F, -v OFS=, -v kind="$kind" 'FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
			$c["kind"] == kind {
				print $c["sent"], $c["received"], $c["lost"], $c["bytes"], $c["throughput_bps"],
				      $c["lat_mean_us"], $c["lat_max_us"], $c["jitter_us"], $c["msgs"],
				      $c["msg_mean_us"], $c["msg_max_us"], $c["target_us"],
				      ($c["deadline_miss_ratio"] == "" ? "-" : $c["deadline_miss_ratio"]),
				      ($c["in_window_ratio"] == "" ? "-" : $c["in_window_ratio"]),
				      $c["msg_jitter_us"] }' "$f"
	done | awk -F, -v idx="$idx" -v kind="$kind" -v p="$p50,$p90,$p99,$p999" -v m="$m50,$m90,$m99,$m999" '
		{ sent += $1; rcvd += $2; lost += $3; bytes += $4; tput += $5
		  lsum += $6 * $2; if ($7 > lmax) lmax = $7; jsum += $8 * $2
		  msgs += $9; msum += $10 * $9; if ($11 > mmax) mmax = $11; target = $12
		  if ($13 != "-") { miss += $13 * $9; hasmiss = 1 }
		  if ($14 != "-") { win += $14 * $9; haswin = 1 }
		  mjsum += $15 * $9 }
		END {
			split(p, P, ","); split(m, M, ",")
			r = rcvd ? rcvd : 1; mm = msgs ? msgs : 1
			printf "%d,%s,%s,%d,%d,%d,%.6f,%d,%.0f,%.3f,%s,%s,%s,%s,%.3f,%.3f,%d,%.3f,%s,%s,%.3f,%s,%s,%s,%s,%s,%.3f\n",
				idx, kind, kind, sent, rcvd, lost, sent ? lost / sent : 0, bytes, tput,
				lsum / r, P[1], P[2], P[3], P[4], lmax, jsum / r,
				msgs, msum / mm, M[1], M[3], mmax, target,
				hasmiss ? sprintf("%.6f", miss / mm) : "", haswin ? sprintf("%.6f", win / mm) : "",
				M[2], M[4], mjsum / mm }' >> "$OUT/results.csv"
	idx=$((idx + 1))
done

# recv.txt: the merged classes, with how many sender classes each merges
counts=
for kind in $KINDS; do
	counts+="$kind=${NMERGED[$kind]:-0} "
done
awk -F, -v counts="$counts" '
	BEGIN {
		n = split(counts, kv, " ")
		for (i = 1; i <= n; i++) { split(kv[i], a, "="); merged[a[1]] = a[2] }
		printf "%-11s %7s %8s %7s %9s %10s %10s %10s %10s %8s %8s\n", "class", "senders", "sent",
			"lost%", "Mbit/s", "pkt p99us", "msg mean", "msg p99us", "msg max", "miss %", "in +-10%"
	}
	NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	{ printf "%-11s %7d %8d %7.2f %9.2f %10.0f %10.0f %10.0f %10.0f %8s %8s\n",
		$c["name"], merged[$c["name"]], $c["sent"], 100 * $c["loss_ratio"],
		$c["throughput_bps"] / 1e6, $c["lat_p99_us"], $c["msg_mean_us"], $c["msg_p99_us"],
		$c["msg_max_us"],
		$c["deadline_miss_ratio"] == "" ? "-" : sprintf("%.2f", 100 * $c["deadline_miss_ratio"]),
		$c["in_window_ratio"] == "" ? "-" : sprintf("%.1f", 100 * $c["in_window_ratio"]) }' \
	"$OUT/results.csv" > "$OUT/recv.txt"
