#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 60
#
# The tools' readers refuse what they cannot take, saying so, instead of
# reading it wrong:
#  - a line longer than a reader's buffer (fbs-sched reserve, the traces
#    of qsim port, switch, recn and table): its rest was read as a line
#    of its own, so the tail of a long comment became a frame;
#  - numbers that are not finite or out of range (qsim table's --class
#    LOAD and LEN, --duration; qsim lanes' --load and --bubble): NaN
#    passed every range check, and a cast of it (or of 1e-300's gap) to
#    an integer was undefined: a run that never ended, or 10^9 arrivals;
#  - numbers past what sscanf()'s %u holds (fabric-cac's state file and
#    --tree, fabric-topo's --tree and --net, fabric-replay's --net and
#    --class-base, qsim lanes' --size, the traces of qsim port, switch
#    and table): they wrapped, 4294967298 was 2; and a sign wrapped %lu
#    and %llu (fbs-sched reserve's SLOTS, fabric-cac's link, the traces'
#    times and deadlines): -18446744073709551615 was 1;
#  - trace times and deadlines past 2^62 ns (qsim port, switch, table):
#    the clock ran into 2^64 - 1, the simulators' "no next event";
#  - a sign, which strtoul() takes after blanks and negates with
#    (" -18446744073709551614" was 2): qsim port's, switch's, recn's and
#    lanes' options, fabric-route's turnpool, dtable-config's numbers and
#    qsim table's --table, whose weights were also cut to 32 bits;
#  - MAC addresses read with sscanf()'s %x: fabric-route's, fabric-topo's
#    and fabric-cac's octets wrapped ("100000002:..." and "-fffffffe:..."
#    were 02:...), and fbs-sched's, fbs-boot's and fabric-send's (%2x)
#    took "-2" for fe;
#  - hex that begins with a letter (fbs-boot --handle ff:) was refused.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=${FQ_BUILD:-$ROOT/build}
QSIM=$B/bin/qsim
FBS_SCHED=$B/bin/fbs-sched
CAC=$B/bin/fabric-cac
TOPO=$B/bin/fabric-topo
FR=$B/bin/fabric-replay
ROUTE=$B/bin/fabric-route
DC=$B/bin/dtable-config
BOOT=$B/bin/fbs-boot
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
for bin in "$QSIM" "$FBS_SCHED" "$CAC" "$TOPO" "$FR" "$ROUTE" "$DC" "$BOOT"; do
	[ -x "$bin" ] || { echo "FAIL: $bin not built"; exit 1; }
done

# refused WHY COMMAND...: COMMAND exits non-zero within 10 s, saying WHY
refused() {
	local why=$1 rc

	shift
	timeout 10 "$@" > "$T/out" 2> "$T/err"
	rc=$?
	if [ $rc = 0 ] || [ $rc = 124 ]; then
		echo "FAIL: accepted (exit $rc): $*"
		fail=1
	elif ! grep -q -- "$why" "$T/err"; then
		echo "FAIL: no \"$why\" from: $*: $(head -c 300 "$T/err")"
		fail=1
	fi
}

# a comment longer than every reader's buffer, a frame's words at its end
long="# $(printf 'x%.0s' $(seq 1 600)) 5 0 1 100 0"
printf '%s\n1000 0 1 100 0\n' "$long" > "$T/recn"
refused "longer than" "$QSIM" recn "$T/recn"
printf '%s\n1000 0 100 5000 0\n' "$long" > "$T/port"
refused "longer than" "$QSIM" port "$T/port"
printf '%s\n1000 0 100 5000 0 0 1\n' "$long" > "$T/switch"
refused "longer than" "$QSIM" switch "$T/switch"
printf '%s\n100 0 100\n' "$long" > "$T/table"
refused "longer than" "$QSIM" table --mode rr --rate 1000000 --table 0:1 --classes 1 \
	--trace "$T/table"
printf 'A B\n' > "$T/sched"
printf '%s\nA B 1\n' "$long" > "$T/resv"
refused "longer than" "$FBS_SCHED" reserve "$T/resv" --nodes A,B --period 100
# the same files with a short comment are taken
printf '# short\n1000 0 1 100 0\n' > "$T/recn"
timeout 30 "$QSIM" recn "$T/recn" > /dev/null 2>&1 || { echo "FAIL: qsim recn: a good trace"; fail=1; }

TABLE=("$QSIM" table --mode rr --rate 1000000 --table 0:1)
for load in nan inf -inf 1e-300 0 1001; do
	refused "bad" "${TABLE[@]}" --class "100:$load" --duration 0.01
done
refused "bad" "${TABLE[@]}" --class 4294967297:0.5 --duration 0.01
for d in nan inf 1e11 0 -1; do
	refused "bad" "${TABLE[@]}" --class 100:0.5 --duration "$d"
done
out=$(timeout 30 "${TABLE[@]}" --class 100:0.5 --duration 0.01) ||
	{ echo "FAIL: qsim table: a good run"; fail=1; }
[[ $out == *$'\n0 '*50*5000* ]] || { echo "FAIL: qsim table: 50 packets of 100 bytes: $out"; fail=1; }
for v in nan inf 0 1.6; do
	refused "load" "$QSIM" lanes --load "$v" --cycles 100
done
for v in nan 1 -0.1; do
	refused "bubble" "$QSIM" lanes --bubble "$v" --cycles 100
done

# numbers past 2^32, or signed past 2^64, were taken for the small ones
# they wrapped to; each state file is named for the field that wraps,
# and the same state and reserve file without them are taken
head='fabric-cac 1 tree 2 2 link 100000000 cap 70'
for f in "id 4294967297 0 2 1 30000000 0" "src 1 4294967296 2 1 30000000 0" \
	 "dst 1 0 4294967298 1 30000000 0" "class 1 0 2 4294967297 30000000 0" \
	 "choice 1 0 2 1 30000000 4294967296"; do
	printf '%s\nresv %s\n' "$head" "${f#* }" > "$T/${f%% *}"
	refused "not a reservation" "$CAC" --state "$T/${f%% *}" show
done
for f in "k tree 4294967298 2 link 100000000 cap 70" \
	 "n tree 2 4294967298 link 100000000 cap 70" \
	 "cap tree 2 2 link 100000000 cap 4294967366" \
	 "link tree 2 2 link -18446744073709551615 cap 70"; do
	printf 'fabric-cac 1 %s\n' "${f#* }" > "$T/${f%% *}"
	refused "not a fabric-cac state" "$CAC" --state "$T/${f%% *}" show
done
printf '%s\nresv 1 0 2 1 30000000 0\n' "$head" > "$T/cac"
timeout 10 "$CAC" --state "$T/cac" show > /dev/null 2>&1 ||
	{ echo "FAIL: fabric-cac: a good state"; fail=1; }
for tree in 4294967298,2 2,4294967298; do
	refused "--tree: want K,N" "$CAC" --state "$T/none" --tree "$tree" --link 100mbit show
	refused "--tree: want K,N" "$TOPO" --tree "$tree" script
done
# fabric-cac's --tree took anything after K,N too (fabric-topo's refused it)
refused "--tree: want K,N" "$CAC" --state "$T/none" --tree 2,2x --link 100mbit show
refused "--net: want A.B" "$TOPO" --tree 2,2 --net 4294967306.59 script
refused "--net: want A.B" "$TOPO" --tree 2,2 --net 10.4294967355 script
printf 'A B -18446744073709551615\n' > "$T/resv"
refused 'want "SRC DST SLOTS"' "$FBS_SCHED" reserve "$T/resv" --nodes A,B --period 100
printf 'A B 1\n' > "$T/resv"
timeout 10 "$FBS_SCHED" reserve "$T/resv" --nodes A,B --period 100 > /dev/null 2>&1 ||
	{ echo "FAIL: fbs-sched reserve: a good file"; fail=1; }

# fabric-replay's --net as fabric-topo's; its --class-base wrapped in hex
# (100000001:100 was 1:100, -ffffffff:100 too); good ones are taken, and
# the host, checked after them, is refused
: > "$T/trace"
REPLAY=("$FR" send --trace "$T/trace" --start 1)
for net in 4294967306.59 10.4294967355; do
	refused "--net: want A.B" "${REPLAY[@]}" --host 1 --net "$net"
done
for cls in 100000001:100 1:100000100 -ffffffff:100; do
	refused "--class-base: want MAJ:MIN" "${REPLAY[@]}" --host 1 --class-base "$cls"
done
refused "a /16 holds hosts" "${REPLAY[@]}" --host 65533 --net 10.59 --class-base ff:100
for size in 4294967297-50 1-4294967346; do
	refused "--size MIN-MAX" "$QSIM" lanes --size "$size" --cycles 100
done
timeout 10 "$QSIM" lanes --size 1-50 --cycles 100 > /dev/null 2>&1 ||
	{ echo "FAIL: qsim lanes: a good --size"; fail=1; }

# the traces: each file is named for the field that wraps or takes a
# sign, "late" for a time past 2^62, "late-deadline" for a deadline; a
# line of each field's largest is taken
for f in "flow 0 4294967297 100 5000 0" "len 0 1 4294967396 5000 0" \
	 "deadline 0 1 100 -18446744073709551615 0" "vc 0 1 100 5000 4294967296" \
	 "time -1 1 100 5000 0"; do
	printf '%s\n' "${f#* }" > "$T/${f%% *}"
	refused 'want "time_ns flow len' "$QSIM" port "$T/${f%% *}"
done
for f in "late 4611686018427387905 1 100 5000 0" "late-deadline 0 1 100 4611686018427387905 0"; do
	printf '%s\n' "${f#* }" > "$T/${f%% *}"
	refused "at most 2^62" "$QSIM" port "$T/${f%% *}"
done
printf '4611686018427387904 4294967295 65536 4611686018427387904 1\n' > "$T/port"
timeout 10 "$QSIM" port "$T/port" > /dev/null 2>&1 ||
	{ echo "FAIL: qsim port: a good trace"; fail=1; }
for f in "flow 0 4294967297 100 5 0 0 1" "len 0 1 4294967396 5 0 0 1" \
	 "deadline 0 1 100 -18446744073709551611 0 0 1" "vc 0 1 100 5 4294967296 0 1" \
	 "input 0 1 100 5 0 4294967296 1" "output 0 1 100 5 0 0 4294967297"; do
	printf '%s\n' "${f#* }" > "$T/${f%% *}"
	refused 'want "time_ns flow len' "$QSIM" switch "$T/${f%% *}"
done
for f in "late 4611686018427387905 1 100 5 0 0 1" \
	 "late-deadline 0 1 100 4611686018427387905 0 0 1"; do
	printf '%s\n' "${f#* }" > "$T/${f%% *}"
	refused "at most 2^62" "$QSIM" switch "$T/${f%% *}"
done
printf '4611686018427387904 4294967295 65536 4611686018427387904 1 63 0\n' > "$T/switch"
timeout 10 "$QSIM" switch --in-buffer 65536 --out-buffer 65536 "$T/switch" > /dev/null 2>&1 ||
	{ echo "FAIL: qsim switch: a good trace"; fail=1; }
for f in "class 100 4294967296 100" "len 100 0 4294967396" "time -1 0 100" \
	 "late 4611686018427387905 0 100"; do
	printf '%s\n' "${f#* }" > "$T/${f%% *}"
	refused "bad trace line" "$QSIM" table --mode rr --rate 1000000 --table 0:1 --classes 1 \
		--trace "$T/${f%% *}"
done
printf '100 0 4294967295\n4611686018427387904 0 100\n' > "$T/table"
timeout 10 "$QSIM" table --mode rr --rate 1000000 --table 0:1 --classes 1 --trace "$T/table" \
	> /dev/null 2>&1 || { echo "FAIL: qsim table: a good trace"; fail=1; }

# a sign after a blank: strtoul() skips the blank, then negates, so that
# " -18446744073709551615" is 1 and " -18446744073709551516" 100; the
# same numbers without the sign are taken
neg=" -18446744073709551615"
printf '0 1 100 5000 0\n' > "$T/port1"
printf '0 1 100 5 0 0 1\n' > "$T/switch1"
refused "bad rate" "$QSIM" port --rate "$neg" "$T/port1"
refused "bad buffer" "$QSIM" port --buffer0 "$neg" "$T/port1"
refused "bad rate" "$QSIM" switch --rate "$neg" "$T/switch1"
refused "bad buffer" "$QSIM" switch --in-buffer " -18446744073709551516" "$T/switch1"
refused "bad --vcs" "$QSIM" switch --vcs " -18446744073709551614" "$T/switch1"
refused "bad --vcs" "$QSIM" recn --vcs " -18446744073709551614" "$T/recn"
timeout 10 "$QSIM" switch --rate 1 --in-buffer 100 --vcs 2 "$T/switch1" > /dev/null 2>&1 ||
	{ echo "FAIL: qsim switch: good options"; fail=1; }
# lanes' took a sign even with no blank
for opt in lanes buffer cycles; do
	refused "--$opt" "$QSIM" lanes "--$opt" -18446744073709551615 --cycles 100
done
refused "not a 32-bit number" "$ROUTE" add dev lo to 02:00:00:00:00:01 turnpool "$neg"
REQ=(--gmtu 1024 --w 8 --k 2 --sl VO:10%:2:128 --sl VI:30%:4:256)
refused "--entries: .* is not a number" "$DC" "${REQ[@]}" --entries " -18446744073709551488"
refused "--sl distance: .* is not a number" "$DC" --entries 128 "${REQ[@]}" \
	--sl "BE:10%: -18446744073709551600:128"
timeout 10 "$DC" --entries 128 "${REQ[@]}" --sl BE:10%:16:128 > /dev/null 2>&1 ||
	{ echo "FAIL: dtable-config: a good one"; fail=1; }

# qsim table's --table C:W: W was cut to 32 bits (0:4294967297 was 0:1)
# and either took a sign; separators as before are taken
SBT=("$QSIM" table --mode sbt --rate 1000000 --duration 0.01 --class 100:0.5)
for t in 0:4294967297 0:-18446744073709551615; do
	refused "bad $t" "${SBT[@]}" --table "$t"
done
refused "bad 0:1 -18446744073709551615:1" "${SBT[@]}" --class 100:0.5 \
	--table "0:1 -18446744073709551615:1"
timeout 10 "${SBT[@]}" --class 100:0.5 --table $' 0:7,\t1:39 ,' > /dev/null 2>&1 ||
	{ echo "FAIL: qsim table: a good --table"; fail=1; }

# MAC addresses: %x without a width kept an octet's low 32 bits, and its
# sign negated them (fabric-route, fabric-topo, fabric-cac: 100000002 and
# -fffffffe were 02); %2x took "-2" for fe (fbs-sched, fbs-boot).  An
# octet is one or two hex digits, and single ones are taken
for mac in 100000002:00:00:00:00:01 -fffffffe:00:00:00:00:01; do
	refused "is not a MAC address" "$ROUTE" add dev lo to "$mac" ports 1
done
for mac in 100000002:00:00:57:10:00 -fffffffe:00:00:57:10:00; do
	refused "--mac: want a unicast" "$TOPO" --tree 2,2 --mac "$mac" script
	refused 'want "dev DEV" or "mac MAC"' "$CAC" --state "$T/cac" routes 0 mac "$mac"
done
timeout 10 "$TOPO" --tree 2,2 --mac 2:0:0:57:10:0 script > /dev/null 2>&1 ||
	{ echo "FAIL: fabric-topo: single-digit octets"; fail=1; }
printf 'A B\nB A\n' > "$T/sched"
refused "want a unicast MAC" "$FBS_SCHED" tc "$T/sched" --slot 1ms --node A --mac -2:fa:0:0:1:0
refused "want a unicast MAC" "$BOOT" --left -2:00:00:00:00:01 --rounds 1 --dev fq-no-such-dev
# all zero is no host's address: a follower told to take the start
# signal only from it took none (review of 76d975c)
refused "want a unicast MAC" "$BOOT" --left 02:00:00:00:00:01 --rounds 1 --follow \
	--leader-mac 00:00:00:00:00:00 --dev fq-no-such-dev
refused "want a unicast MAC" "$BOOT" --left 0:0:0:0:0:0 --rounds 1 --dev fq-no-such-dev
refused "want a unicast MAC" "$FBS_SCHED" tc "$T/sched" --slot 1ms --node A --mac 00:00:00:00:00:00
refused "--mac: want a unicast" "$TOPO" --tree 2,2 --mac 00:00:00:00:00:00 script
timeout 10 "$FBS_SCHED" tc "$T/sched" --slot 1ms --node A --mac 2:fa:0:0:1:0 > /dev/null 2>&1 ||
	{ echo "FAIL: fbs-sched tc: single-digit octets"; fail=1; }

# hex that starts with a letter is hex (fbs-boot said "hex, 1 to ffff"
# and refused ff:); the next word's complaint shows --handle was taken
out=$(timeout 10 "$BOOT" --handle ff: 2>&1)
[[ $out != *'--handle: "ff:"'* ]] || { echo "FAIL: fbs-boot --handle ff: refused: $out"; fail=1; }
refused '--handle: "fg:"' "$BOOT" --handle fg:

[ $fail = 0 ] && echo "ok: long lines, non-finite and wrapping numbers, hex refused or taken"
exit $fail
