#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 60
#
# selftests/demo/fabric_merge.sh, which turns the receivers of a fabric
# scenario into one set of results per class, on receivers with known
# answers: h0's control class 300 datagrams at 100 us, h1's 100 at 300 us
# (and messages likewise, 3 late at h1 of 100), so the merged class has
# 400 datagrams, mean 150 us, p50 100 us, p90 and p99 300 us, 3 % of its
# messages late; best effort only at h1, whose lines pass through; two
# receivers with one class missing at one of them; empty fields stay
# empty.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
MERGE=$ROOT/selftests/demo/fabric_merge.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
HEAD="class,name,kind,sent,received,lost,loss_ratio,bytes,throughput_bps,lat_mean_us,lat_p50_us,lat_p90_us,lat_p99_us,lat_p999_us,lat_max_us,jitter_us,msgs,msg_mean_us,msg_p50_us,msg_p99_us,msg_max_us,target_us,deadline_miss_ratio,in_window_ratio,msg_p90_us,msg_p999_us,msg_jitter_us"

# cdf FILE LATENCY POINTS: every sample at LATENCY, POINTS rank-spaced points
cdf() { awk -v l="$2" -v n="$3" 'BEGIN { print "# latency_us fraction"
	for (i = 1; i <= n; i++) printf "%.3f %.6f\n", l, i / n }' > "$1"; }

mkdir -p "$T/out/r0" "$T/out/r1"
{ echo "$HEAD"
  echo "0,control.h3,control,300,300,0,0,30000,1000000,100,100,100,100,100,100,10,300,100,100,100,100,1000,0,1,100,100,10"
} > "$T/out/r0/results.csv"
{ echo "$HEAD"
  echo "0,control.h2,control,110,100,10,0.0909,10000,3000000,300,300,300,300,300,300,30,100,300,300,300,300,1000,0.03,0.5,300,300,30"
  echo "1,besteffort.h2,besteffort,50,50,0,0,5000,500000,7,7,7,7,7,7,1,10,9,9,9,9,,,,9,9,2"
} > "$T/out/r1/results.csv"
cdf "$T/out/r0/control.h3.cdf" 100 400
cdf "$T/out/r0/control.h3.msg.cdf" 100 300
cdf "$T/out/r1/control.h2.cdf" 300 100
cdf "$T/out/r1/control.h2.msg.cdf" 300 100
cdf "$T/out/r1/besteffort.h2.cdf" 7 50
cdf "$T/out/r1/besteffort.h2.msg.cdf" 9 10

bash "$MERGE" "$T/out" || { echo "FAIL: fabric_merge.sh exited $?"; exit 1; }

get() {	# KIND COLUMN
	awk -F, -v k="$1" -v col="$2" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["kind"] == k { print $c[col] }' "$T/out/results.csv"
}
expect() {	# KIND COLUMN VALUE
	local v
	v=$(get "$1" "$2")
	if awk -v a="$v" -v b="$3" 'BEGIN { exit !(a != "" && a + 0 == b + 0 || a == b) }'; then
		echo "ok: $1 $2 = $v"
	else
		echo "FAIL: $1 $2 = '$v', want $3"
		fail=1
	fi
}
expect control sent 410
expect control received 400
expect control lost 10
expect control bytes 40000
expect control throughput_bps 4000000
expect control lat_mean_us 150
expect control lat_p50_us 100
expect control lat_p90_us 300
expect control lat_p99_us 300
expect control lat_max_us 300
expect control jitter_us 15
expect control msgs 400
expect control msg_mean_us 150
expect control msg_p50_us 100
expect control msg_p99_us 300
expect control deadline_miss_ratio 0.0075
expect control in_window_ratio 0.875
expect besteffort sent 50
expect besteffort lat_p50_us 7
expect besteffort msg_p99_us 9
expect besteffort deadline_miss_ratio ""
expect besteffort target_us ""
n=$(grep -vc '^#' "$T/out/control.cdf")
[ "$n" -ge 2 ] && [ "$n" -le 401 ] || { echo "FAIL: merged control.cdf has $n points"; fail=1; }
last=$(tail -n 1 "$T/out/control.cdf")
[ "$last" = "300.000 1.000000" ] || { echo "FAIL: merged control.cdf ends '$last'"; fail=1; }
grep -q "^control  *2 " "$T/out/recv.txt" || { echo "FAIL: recv.txt: $(cat "$T/out/recv.txt")"; fail=1; }
grep -q "^besteffort  *1 " "$T/out/recv.txt" || { echo "FAIL: recv.txt: $(cat "$T/out/recv.txt")"; fail=1; }
[ ! -e "$T/out/multimedia.cdf" ] || { echo "FAIL: a multimedia.cdf without multimedia"; fail=1; }
rm -rf "$T/empty"; mkdir -p "$T/empty"
bash "$MERGE" "$T/empty" 2> /dev/null && { echo "FAIL: no receivers, yet exit 0"; fail=1; }
exit $fail
