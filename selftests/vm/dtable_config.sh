#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# dtable configuration and bookkeeping: defaults, boundaries, every kind
# of bad table rejected with its extack message and the old table kept;
# the table changed under traffic (modes too) without a packet lost or
# reordered within a class; children that drop (pfifo limit 2) or hold
# back (tbf, netem) leave the counters right; the qdisc deleted and the
# module unloaded while traffic flows.
#
#   [ns C] dummy0 (dtable 1:)                     configuration only
#
#   [ns A] veth0: tbf 10: (20mbit) -> dtable 1: ---> veth1 [ns B] udp-lat recv
#     10.21.0.1/24     1:1 1:2 1:3 (pfifo, or           10.21.0.2/24
#                      pfifo limit 2 / tbf / netem)
. ./lib.sh

require_cmd tc udp-lat dtable-raw-table
require_module sch_dtable

# ---- configuration on a dummy device ----------------------------------------
ns_create C
ns_run C ip link add dummy0 type dummy || fatal "no dummy device"
ns_run C ip link set dummy0 up

tcq() { ns_exec C tc "$@"; }
qdisc_text() { tcq qdisc show dev dummy0 | grep 'dtable'; }
opt_field() {
	tcq -j qdisc show dev dummy0 | tr -d ' \n' |
		sed -n "s/.*\"kind\":\"dtable\".*\"options\":{.*\"$1\":\([^,}]*\).*/\1/p"
}

accept() {
	local desc=$1 out; shift
	out=$(tcq "$@" 2>&1)
	check_err $? "$desc: rejected: $out"
}

# reject DESC MSG_REGEX ARGS...: tc fails saying MSG, the table stays
reject() {
	local desc=$1 msg=$2 out before; shift 2
	before=$(qdisc_text)
	out=$(tcq "$@" 2>&1)
	check_fail $? "$desc: accepted"
	if [ -n "$msg" ] && ! echo "$out" | grep_quiet -E "$msg"; then
		check_err 1 "$desc: message '$out' does not match '$msg'"
	fi
	check_eq "$desc: qdisc after the refusal" "$before" "$(qdisc_text)"
}

# table of N entries cycling over C classes with weight W
mktable() {
	awk -v n="$1" -v c="$2" -v w="$3" 'BEGIN { for (i = 0; i < n; i++) printf " %d:%d", i % c, w }'
}

reject "no classes" "classes" qdisc add dev dummy0 root handle 1: dtable
accept "add with defaults" qdisc add dev dummy0 root handle 1: dtable classes 3
check_eq "default mode" '"dtable"' "$(opt_field mode)"
check_eq "default credit" 1 "$(opt_field credit)"
check_eq "default entries" 3 "$(opt_field entries)"
check_eq "classes" 3 "$(tcq class show dev dummy0 | grep -c 'class dtable 1:')"
tcq class show dev dummy0 classid 1:2 | grep_quiet "mtu 1514 entries 1 weight 1514" ||
	check_err 1 "class 1:2: $(tcq class show dev dummy0 classid 1:2)"
log_test "defaults: one entry per class of the device's packet size"

Q="qdisc change dev dummy0 root handle 1: dtable"
accept "a table" $Q credit 64 mtu 1500 table 0:24 1:24 0:24 2:48
check_eq "entries" 4 "$(opt_field entries)"
qdisc_text | grep_quiet "table 0:24 1:24 0:24 2:48" || check_err 1 "table: $(qdisc_text)"
tcq class show dev dummy0 classid 1:1 | grep_quiet "entries 2 weight 48" ||
	check_err 1 "class 1:1: $(tcq class show dev dummy0 classid 1:1)"
# "left" is sbt's: it once showed the first entry's weight in every mode
tcq -s class show dev dummy0 classid 1:1 | grep_quiet " left 0$" ||
	check_err 1 "dtable mode, class 1:1: $(tcq -s class show dev dummy0 classid 1:1 | grep left)"
log_test "change installs a table"

reject "missing class" "class that does not exist" $Q table 0:24 1:24 3:24 2:24
reject "zero weight" "weight zero" $Q table 0:24 1:0 2:24
reject "weight below the mtu" "below its class's mtu" $Q table 0:24 1:23 2:24
reject "a class left out" "no table entry" $Q table 0:24 1:24
reject "mtu raised above a weight" "below its class's mtu" $Q mtu 1600
reject "credit lowered under the weights" "below its class's mtu" $Q credit 32
reject "sbt with two entries of a class" "one table entry per class" $Q mode sbt
# a word given twice is refused, not taken at its last value
reject "credit given twice" "\"credit\" is given twice" $Q credit 100 credit 200
reject "classes changed" "cannot change" $Q classes 4
reject "priomap to a missing class" "priomap" $Q priomap 0 1 2 3 0 0 0 0 0 0 0 0 0 0 0 0
reject "4097 entries" "too many table entries" $Q credit 64 table $(mktable 4097 3 24)
reject "credit 65537" "" $Q credit 65537
reject "mtu 65537" "" $Q mtu 65537
reject "class 65536 in a table" "" $Q table 0:24 1:24 65536:24
reject "not CLASS:WEIGHT" "CLASS:WEIGHT" $Q table 0:24 1-24
# tc always sends an entry's pad as 0; straight over rtnetlink, a new
# table with a pad set is refused (it was once taken silently), and the
# same table with pads of 0 is installed (the tool works)
before=$(qdisc_text)
out=$(ns_exec C dtable-raw-table dummy0 1: 0:24 2:48 1:24:1 0:24 2>&1)
check_fail $? "a table entry with pad 1: accepted ($out)"
echo "$out" | grep_quiet "pad is not zero" || check_err 1 "pad 1: message '$out'"
check_eq "pad 1: qdisc after the refusal" "$before" "$(qdisc_text)"
out=$(ns_exec C dtable-raw-table dummy0 1: 0:24 2:48 1:24:0 0:24 2>&1)
check_err $? "the same table with pads of 0: $out"
qdisc_text | grep_quiet "table 0:24 2:48 1:24 0:24" ||
	check_err 1 "pads of 0: table not installed: $(qdisc_text)"
log_test "bad tables rejected with a reason, old table kept"

accept "1024 entries" $Q table $(mktable 1024 3 24)
check_eq "entries" 1024 "$(opt_field entries)"
accept "4096 entries" $Q table $(mktable 4096 3 24)
check_eq "entries" 4096 "$(opt_field entries)"
tcq class show dev dummy0 classid 1:3 | grep_quiet "entries 1365 weight 32760" ||
	check_err 1 "class 1:3: $(tcq class show dev dummy0 classid 1:3)"
accept "credit 65536" $Q credit 65536 mtu 65536 table 0:1 1:1 2:1
accept "sbt" $Q mode sbt table 0:10 1:30 2:60
check_eq "mode" '"sbt"' "$(opt_field mode)"
tcq -s class show dev dummy0 classid 1:2 | grep_quiet " left 30$" ||
	check_err 1 "sbt, class 1:2: $(tcq -s class show dev dummy0 classid 1:2 | grep left)"
accept "rr" $Q mode rr
tcq qdisc del dev dummy0 root
accept "256 classes" qdisc add dev dummy0 root handle 1: dtable classes 256
check_eq "classes" 256 "$(tcq class show dev dummy0 | grep -c 'class dtable 1:')"
tcq qdisc del dev dummy0 root
reject "257 classes" "" qdisc add dev dummy0 root handle 1: dtable classes 257
# lo's packet size, 65536 + 14, is above what a user may give: the default
# stops at 65536, so that the mtu the dump shows a change takes back
ns_run C ip link set lo up
accept "on lo with defaults" qdisc add dev lo root handle 1: dtable classes 2
lo_mtu=$(tcq class show dev lo classid 1:1 | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')
check_eq "default mtu on lo" 65536 "$lo_mtu"
accept "the mtu shown, given back" qdisc change dev lo root handle 1: dtable mtu "$lo_mtu"
tcq qdisc del dev lo root
log_test "boundaries: 4096 entries, credit and mtu 65536, 256 classes, lo's mtu"

# ---- traffic --------------------------------------------------------------------
two_hosts 21 quiet
# veth puts a packet on the backlog of the CPU that transmits it, and this
# qdisc is run from more than one CPU (the sender, the tbf watchdog's
# softirq, tc's softirqs after a change): two CPUs may then deliver to the
# socket at once and swap packets that left the qdisc in order.  RPS puts
# every packet of veth1 on one CPU's backlog, in the order they left, so
# the order seen by the receiver is the qdisc's.
ns_exec B sh -c 'echo 1 > /sys/class/net/veth1/queues/rx-0/rps_cpus' ||
	fatal "cannot steer veth1 to one CPU (RPS)"

# per stream: packets received in order? "stream packets order_errors"
order_check() {
	awk '{ n[$1]++; if (($1 in last) && $2 <= last[$1]) bad[$1]++; last[$1] = $2 }
	     END { for (s in n) printf "%s %d %d\n", s, n[s], bad[s] + 0 }' "$1" | sort -n
}

root_qlen() {	# qlen and backlog of dtable 1:, "qlen backlog"
	ns_exec A tc -s qdisc show dev veth0 | awk '
		/^qdisc dtable/ { d = 1; next } /^qdisc/ { d = 0 }
		d && /backlog/ { b = $2; q = $3; sub(/p$/, "", q); print q, b; exit }'
}

# burst_test NAME PACKETS_PER_STREAM [CMD...]: three streams of bursts into
# 1:1..1:3; CMD runs in the background meanwhile (table changes)
burst_test() {
	local name=$1 per=$2 out
	shift 2
	ns_bg B udp-lat recv --port 9200 --ports 3 --duration 250 --count $((3 * per)) \
		--log "$TMP_DIR/$name.log" --ready "$TMP_DIR/$name.ready" > "$TMP_DIR/$name.recv"
	local rpid=$BG_PID
	wait_for 10 test -e "$TMP_DIR/$name.ready" || fatal "receiver did not start"
	ns_bg A udp-lat send --dst 10.21.0.2 --port 9200 --streams 3 --size 800 \
		--burst "$per" --prio 1:1 --prio 1:2 --prio 1:3 > "$TMP_DIR/$name.send"
	local spid=$BG_PID
	[ $# -gt 0 ] && "$@"
	bg_wait $spid
	check_err $? "$name: sender failed"
	bg_wait $rpid
	out=$(order_check "$TMP_DIR/$name.log" | tr '\n' ' ')
	check_eq "$name: per stream received / out of order" \
		"0 $per 0 1 $per 0 2 $per 0 " "$out"
	[ "$out" = "0 $per 0 1 $per 0 2 $per 0 " ] ||
		log_info "$name: out of order: $(awk '($1 in last) && $2 <= last[$1] {
			printf "stream %s seq %s after %s; ", $1, $2, last[$1] } { last[$1] = $2 }' \
			"$TMP_DIR/$name.log" | head -c 300)"
	wait_for 10 eval 'test "$(root_qlen)" = "0 0b"'
	check_err $? "$name: dtable left with qlen/backlog $(root_qlen)"
}

# The table is changed 12 times while packets wait: 3 x 3000 packets of
# 800 bytes would take 2 minutes to leave at 500 kbit/s, longer than any
# host takes for the changes, and once they are done the link is sped
# up so the rest leaves in seconds.  Each change is checked to have met
# a queue.
ns_run A tc qdisc add dev veth0 root handle 10: tbf rate 500kbit burst 4k latency 2s || fatal tbf
ns_run A tc qdisc add dev veth0 parent 10:1 handle 1: dtable classes 3 credit 64 \
	mtu 1000 table 0:16 1:16 2:32 || fatal dtable

queued() { [ "$(root_qlen | cut -d' ' -f1)" -gt 0 ]; }
changes() {
	local i idle=0
	wait_for 20 queued || check_err 1 "no queue formed"
	for i in $(seq 1 12); do
		queued || idle=$((idle + 1))
		case $((i % 4)) in
		0) ns_exec A tc qdisc change dev veth0 parent 10:1 handle 1: dtable mode dtable table 0:16 1:16 2:32 ;;
		1) ns_exec A tc qdisc change dev veth0 parent 10:1 handle 1: dtable mode dtable table 2:16 0:64 1:16 2:16 ;;
		2) ns_exec A tc qdisc change dev veth0 parent 10:1 handle 1: dtable mode sbt table 1:3 2:1 0:2 ;;
		3) ns_exec A tc qdisc change dev veth0 parent 10:1 handle 1: dtable mode rr ;;
		esac || check_err 1 "change $i refused"
	done
	check_eq "changes made with an empty queue" 0 "$idle"
	ns_exec A tc qdisc change dev veth0 root handle 10: tbf rate 100mbit burst 64k latency 2s ||
		check_err 1 "speeding up the link"
}
burst_test change 3000 changes
n=$(ns_exec A tc -s qdisc show dev veth0 | sed -n 's/.*table_changes \([0-9]*\).*/\1/p')
check_eq "table changes counted" 12 "$n"
log_test "table changed under traffic: nothing lost or reordered in a class"

ns_run A tc qdisc change dev veth0 parent 10:1 handle 1: dtable mode dtable table 0:16 1:16 2:32
ns_run A tc qdisc replace dev veth0 parent 1:1 handle 11: pfifo limit 2 &&
ns_run A tc qdisc replace dev veth0 parent 1:2 handle 12: tbf rate 2mbit burst 2k latency 1s &&
ns_run A tc qdisc replace dev veth0 parent 1:3 handle 13: netem delay 5ms limit 50 ||
	fatal "grafting children"
# a 2 Mbit/s link: queues form in the children however slowly a loaded
# VM sends (at 20 Mbit/s a slow sender never filled pfifo limit 2)
ns_run A tc qdisc change dev veth0 root handle 10: tbf rate 2mbit burst 4k latency 2s ||
	fatal "slowing the link"
burst_test children 150
drops=$(ns_exec A tc -s class show dev veth0 classid 1:1 | sed -n 's/.* drops \([0-9]*\).*/\1/p' | tail -n1)
log_info "class 1:1 (pfifo limit 2): $drops packets refused and sent again"
[ "${drops:-0}" -gt 0 ]
check_err $? "pfifo limit 2 never dropped: the test did not test it"
log_test "children that drop or hold back: counters right, all delivered"

# grafting back to the default while packets wait purges them cleanly: a
# slow tbf (100 packets take 6 s) so they are still there
ns_run A tc qdisc replace dev veth0 parent 1:2 handle 12: tbf rate 100kbit burst 2k latency 20s ||
	fatal "slow tbf"
ns_bg B udp-lat recv --port 9300 --duration 60 > /dev/null
ns_bg A udp-lat send --dst 10.21.0.2 --port 9300 --size 800 --burst 100 --prio 1:2 > /dev/null
spid=$BG_PID
tbf_backlog() {
	ns_exec A tc -s qdisc show dev veth0 |
		awk '/qdisc tbf 12:/ { f = 1 } f && /backlog/ { print $3; exit }'
}
tbf_holds() { local b; b=$(tbf_backlog); [ -n "$b" ] && [ "$b" != 0p ]; }
wait_for 10 tbf_holds
check_err $? "the tbf child never held packets"
log_info "tbf child holds $(tbf_backlog) when it is deleted"
ns_run A tc qdisc del dev veth0 parent 1:2
check_err $? "delete the tbf child"
bg_wait $spid
wait_for 10 eval 'test "$(root_qlen)" = "0 0b"'
check_err $? "after purging a child: qlen/backlog $(root_qlen)"
log_test "child replaced while it holds packets"

# ---- lifecycle under traffic ------------------------------------------------------
# traffic until the steps are done, however long a host takes for them
# (a debug kernel is 30 times slower): stopped below
ns_bg B udp-lat recv --port 9400 --ports 3 --duration 3600 > /dev/null
rpid=$BG_PID
ns_bg A udp-lat send --dst 10.21.0.2 --port 9400 --streams 3 --size 800 --duration 3600 \
	--prio 1:1 --prio 1:2 --prio 1:3 > "$TMP_DIR/life.send"
spid=$BG_PID
wait_for 20 queued
check_err $? "no traffic through dtable"
ns_run A tc qdisc del dev veth0 parent 10:1
check_err $? "delete dtable under traffic"
ns_run A tc qdisc add dev veth0 parent 10:1 handle 1: dtable classes 3 mode rr
check_err $? "add again"
sleep 0.5
ns_run A tc qdisc del dev veth0 root
module_unload sch_dtable
check_err $? "unload the module under traffic"
ns_run A tc qdisc add dev veth0 root handle 1: dtable classes 3 mode sbt table 0:2 1:1 2:1
check_err $? "autoload and add as root"
sleep 0.5
ns_run A tc qdisc del dev veth0 root
kill -0 $spid 2>/dev/null
check_err $? "the sender stopped before the steps were done: $(cat "$TMP_DIR/life.send")"
kill $spid $rpid 2>/dev/null
bg_wait $spid
bg_wait $rpid
log_test "delete, re-add and unload under traffic"

exit $EXIT_STATUS
