#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 60
#
# scripts/demo-report.sh on results of the shape the demo writes: a
# single-switch scenario and a multistage one, the per-class tables, and
# the hops and the size of the multistage one (its hops.txt, settings.txt
# and cpu.txt, selftests/demo/fabric.sh) in tables of their own that the
# single switch is not in.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

HEAD="class,name,kind,sent,received,lost,loss_ratio,bytes,throughput_bps,lat_mean_us,lat_p50_us,lat_p90_us,lat_p99_us,lat_p999_us,lat_max_us,jitter_us,msgs,msg_mean_us,msg_p50_us,msg_p99_us,msg_max_us,target_us,deadline_miss_ratio,in_window_ratio,msg_p90_us,msg_p999_us,msg_jitter_us"
# scenario NAME TITLE MULTIMEDIA_SENT: results of the four classes
scenario() {
	mkdir -p "$work/$1"
	printf 'title = %s\nhost = edf\nswitch = advanced\nlink = 40mbit\n' "$2" > "$work/$1/scenario.conf"
	{
		echo "$HEAD"
		echo "1:1,control,control,100,100,0,0,6400,51200,50,40,60,90,95,99,3,100,50,40,90,99,1000,0,,70,95,3"
		echo "1:2,multimedia,multimedia,$3,$3,0,0,900000,7200000,500,400,600,900,950,990,30,50,5000,4800,9000,9900,10000,0.01,0.9,8000,9500,300"
		echo "1:3,besteffort,besteffort,500,490,10,0.02,700000,5600000,800,700,900,2000,2500,3000,60,20,9000,8000,20000,30000,,,,15000,25000,900"
		echo "1:4,background,background,400,400,0,0,600000,4800000,900,800,1000,2200,2600,3100,70,,,,,,,,,,,"
	} > "$work/$1/results.csv"
}
scenario advanced2 "Advanced, 2 VCs" 1000
scenario fabric-advanced2 "Advanced, 2 VCs, 2-stage fabric" 2000
cat > "$work/fabric-advanced2/hops.txt" <<'HOPS'
switches per datagram, from the routes: 2.47 (at most 3)
datagrams received: 2990
frames sent by switch ports: 7712
switches per datagram, measured: 2.58 (control frames and end marks included)
frames sent by hosts: 3288
link messages sent: 27500
HOPS
printf 'receive backlog drops (all CPUs, netdev_max_backlog 1000): 17\nhost devices: rx dropped 0, tx dropped 0\n' \
	> "$work/fabric-advanced2/losses.txt"
printf 'tree = 4,2\nlink = 5mbit\nduration = 4\n' > "$work/fabric-advanced2/settings.txt"
echo "cpu busy 58 % during the run" > "$work/fabric-advanced2/cpu.txt"
echo "6.1.0-test" > "$work/kernel.txt"

out=$(bash "$ROOT/scripts/demo-report.sh" "$work" 2> "$work/err")
[ $? = 0 ] || fail "demo-report failed: $(cat "$work/err")"
R=$work/report.md
[ -s "$R" ] || fail "no report.md"
grep -q '^| Advanced, 2 VCs (advanced2) | 1000 | ' "$R" || fail "multimedia row of advanced2: $(grep multimedia -A4 "$R")"
grep -q '^| Advanced, 2 VCs, 2-stage fabric (fabric-advanced2) | 2000 | ' "$R" ||
	fail "multimedia row of fabric-advanced2"
grep -q '^## Hops$' "$R" || fail "no hops section"
grep -qx '| Advanced, 2 VCs, 2-stage fabric (fabric-advanced2) | 2.47 | 3 | 2.58 | 2990 |' "$R" ||
	fail "hops row: $(grep -A8 '^## Hops' "$R")"
[ "$(sed -n '/^## Hops$/,/^## /p' "$R" | grep -c '(advanced2)')" = 0 ] ||
	fail "the single switch in the hops table"
# the size table: 7712 frames over 4 s; 27500 link messages for 11000
# data frames; 17 dropped by the backlog; control p99 90 us, none late;
# 90 % of multimedia frames in the window; 17.65 Mbit/s received in all
grep -q '^## Fabric size$' "$R" || fail "no fabric size section"
grep -qx '| fabric-advanced2 | 4,2 | 16 | 8 | 5mbit | 58 % | 1928 | 2.5 | 17 | 0.1 / 0.0 | 90.0 | 17.65 |' "$R" ||
	fail "size row: $(sed -n '/^## Fabric size$/,/^## /p' "$R" | grep '^| fab')"
[ "$(sed -n '/^## Fabric size$/,/^## /p' "$R" | grep -c '^| advanced2 ')" = 0 ] ||
	fail "the single switch in the size table"
# without a multistage scenario, neither section
rm "$work/fabric-advanced2/hops.txt" "$work/fabric-advanced2/settings.txt"
bash "$ROOT/scripts/demo-report.sh" "$work" > /dev/null 2>&1 || fail "demo-report without hops failed"
grep -q '^## Hops$' "$R" && fail "a hops section with no multistage scenario"
grep -q '^## Fabric size$' "$R" && fail "a size section with no multistage scenario"

[ $fails = 0 ] || exit 1
echo "ok: demo-report: per-class tables and the multistage scenarios' hops and size"
