#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 420
# vm: deterministic
#
# dtable over children that drop while dtable peeks at them or dequeues
# from them, and children deleted while they hold packets: the classful
# qdisc bugs of drr / hfsc / qfq / ets (qlen_notify during a walk).  In
# every mode (dtable, sbt, rr):
#
# 1. A drop during the peek of the class being served.  Class 1:1 is
#    netem (delay 1 s) over a tbf whose burst (1000 bytes) is below the
#    second packet.  p1 (600 bytes) is picked and waits in dtable for the
#    root tbf's tokens while its class keeps serving (dtable: s->cur);
#    p2 (1400 bytes, sent 0.5 s later) falls due meanwhile.  When the
#    root takes p1, dtable peeks 1:1 again: netem hands p2 to its tbf,
#    which drops it, and netem, now empty, tells dtable (qlen_notify)
#    from inside the peek.  Before the fix dtable then wrote to class
#    -1 (an oops).  p1 must arrive, dtable must end with qlen 0 and
#    backlog 0, and a lone packet sent afterwards must leave on its own.
#
# 2. Five children that drop or hold back (netem over a dropping tbf,
#    codel and fq_codel with tight targets under GSO frames, pfifo limit
#    3, a slow tbf) under a 2 Mbit/s link, while the children are
#    deleted and re-added, replaced, and the mode changes.  Once the
#    senders stop every queue drains to qlen 0 / backlog 0, and then a
#    lone packet into each class leaves without any traffic after it.
#
# 3. A plugged child (sch_plug, blocked) beside an open one: the open
#    class's packets leave, the plugged ones stay until the plug is
#    released, which no timer of the child's does: tc's change schedules
#    the device queue.
#
# 4. A child that lets a packet out now and then (a slow tbf) under
#    entries of 15000 bytes: each visit sends one packet and finds the
#    child holding the next.  The class may keep at most a packet size
#    of what it did not use; it once kept it all and grew by an entry
#    per packet (603 KB after 40 packets), to be sent in one run, every
#    other class waiting, once the child let go.
#
# 5. A bulk TCP transfer (GSO packets, TSO on veth) in one class against
#    full-size datagrams in another, equal weights: byte shares 50 / 50
#    within 5 points.  A GSO packet once went whole for an mtu's charge,
#    and the UDP class got 4.5 % of the link (6.1).
#
# 6. GSO packets cut into frames that a full fq_codel child takes by
#    dropping older packets of the flow (NET_XMIT_CN): the sender must
#    not see them refused.  Every such send once came back ENOBUFS.
#
#   [ns A] veth0: tbf 10: -> dtable 1: ------------------> veth1 [ns B]
#     10.24.0.1/24   1:1 netem 11: -> tbf 111: (burst 1000)   10.24.0.2/24
#                    1:2 pfifo | codel | fq_codel ...          udp-lat recv
#                    ...
. ./lib.sh

require_cmd tc udp-lat tcp-bulk
require_module sch_dtable
two_hosts 24 quiet

DST=10.24.0.2
MODES=(dtable sbt rr)
# guest seconds of traffic and surgery per mode: the surgery loop runs
# flat out, so the storm is busy time (a second of it 1.4 busy s with the
# lone packets).  Half a second is 18 rounds or more on the distribution
# kernels (37-39 a second while the senders still burned the CPU on
# retries, below), each deleting all five children while dtable holds
# packets (every round met a queue in the runs of 37-39): a delete that
# leaves qlen / backlog or a class's activity wrong shows at the first
# such round, and the drain and lone-packet checks after the storm judge
# it; eighteen rounds still meet the children in their varied states
# (served, full, dropping).
STORM=0.5

# qlen_backlog KIND HANDLE: "qlen backlog_bytes" of that qdisc on veth0
qlen_backlog() {
	ns_exec A tc -s qdisc show dev veth0 | awk -v k="$1" -v h="$2" '
		/^qdisc/ { d = ($2 == k && $3 == h); next }
		d && $1 == "backlog" { b = $2; q = $3; sub(/b$/, "", b); sub(/p$/, "", q); print q, b; exit }'
}

is_empty() { [ "$(qlen_backlog "$1" "$2")" = "0 0" ]; }
holds_packets() { ! is_empty dtable 1:; }

# every queue of the tree: the root, dtable and each of its classes
tree_is_empty() {
	is_empty tbf 10: && is_empty dtable 1: &&
		! ns_exec A tc -s class show dev veth0 | awk '
			/^class dtable/ { d = 1; next } /^class/ { d = 0 }
			d && $1 == "backlog" && ($2 != "0b" || $3 != "0p") { bad = 1 }
			END { exit !bad }'
}

# class_sent CLASS: packets its child has sent
class_sent() {
	ns_exec A tc -s class show dev veth0 classid "$1" |
		sed -n 's/^ *Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' | head -n1
}
# class_sent_is CLASS N: CLASS's child has sent N packets
class_sent_is() { [ "$(class_sent "$1")" = "$2" ]; }
# lone_left CLASS N: that, and the tree is empty
lone_left() { class_sent_is "$1" "$2" && tree_is_empty; }

# lone_packet CLASS PORT: one datagram into CLASS with nothing after it
# must leave the tree and arrive (a class marked idle while its child
# holds the packet, or a walk that gave up on it, leaves it there until
# the next enqueue into that class).  The wait polls the tree: twice in
# the deterministic VM a lone packet that had left the tree reached the
# receiver only after it had given up (it answered with an ICMP port
# unreachable: an ARP reply for it left A later) when the guest sat idle
# until the receiver's 20 s timer, which no polling interrupted.
lone_packet() {
	local cls=$1 port=$2 rpid before
	ns_bg B udp-lat recv --port "$port" --count 1 --duration 20 \
		--ready "$TMP_DIR/lone-$port.ready" > "$TMP_DIR/lone-$port.recv"
	rpid=$BG_PID
	wait_for 10 test -e "$TMP_DIR/lone-$port.ready" || fatal "receiver did not start"
	before=$(class_sent "$cls")
	ns_exec A udp-lat send --dst $DST --port "$port" --count 1 --size 200 \
		--prio "$cls" > /dev/null || check_err 1 "lone packet into $cls: send failed"
	wait_for 10 lone_left "$cls" $((before + 1))
	check_err $? "a lone packet into class $cls stayed in the tree ($(class_sent "$cls") sent, $((before + 1)) expected)"
	if ! bg_wait $rpid; then
		check_err 1 "a lone packet into class $cls left the tree but did not arrive"
		# where it is: the tree's counters tell a bookkeeping fault
		# (a class idle while its child holds it) from a drop
		{
			ns_exec A tc -s -d qdisc show dev veth0
			ns_exec A tc -s class show dev veth0
			ns_exec A ip -s link show dev veth0
			ns_exec B ip -s link show dev veth1
			ns_exec B cat /proc/net/snmp
		} 2>&1 | sed 's/^/\t/'
	fi
}

# table N W: one entry of weight W per class 0..N-1
table() { awk -v n="$1" -v w="$2" 'BEGIN { for (i = 0; i < n; i++) printf " %d:%d", i, w }'; }

# mode_cmd MODE N: the tc command (for -batch) that sets MODE with a table
# of one entry per class, N classes
mode_cmd() {
	local mode=$1 n=$2
	case $mode in
	dtable) echo "qdisc change dev veth0 parent 10:1 handle 1: dtable mode dtable" \
		"credit 64 mtu 1500 table$(table "$n" 24)" ;;
	sbt) echo "qdisc change dev veth0 parent 10:1 handle 1: dtable mode sbt table$(table "$n" 2)" ;;
	rr) echo "qdisc change dev veth0 parent 10:1 handle 1: dtable mode rr table$(table "$n" 1)" ;;
	esac
}

# tc_batch: the commands on stdin, in one tc process (a process per
# command costs more than the commands in the deterministic VM)
tc_batch() { ns_exec A tc -batch -; }

set_mode() { mode_cmd "$1" "$2" | tc_batch; }

# ---- 1. a drop inside the peek of the class being served ----------------------
peek_drop() {
	local mode=$1 rpid d
	ns_exec A tc qdisc del dev veth0 root 2>/dev/null
	# 125 bytes/s, room for one 1442-byte frame: p1 then waits ~3 s
	ns_run A tc qdisc add dev veth0 root handle 10: tbf rate 1kbit burst 1600 limit 100000 &&
	ns_run A tc qdisc add dev veth0 parent 10:1 handle 1: dtable classes 2 mtu 1500 &&
	ns_run A tc qdisc replace dev veth0 parent 1:1 handle 11: netem delay 1s limit 100 &&
	ns_run A tc qdisc add dev veth0 parent 11:1 handle 111: tbf rate 100mbit burst 1000 limit 100000 &&
	set_mode "$mode" 2 || fatal "$mode: setting up"

	ns_bg B udp-lat recv --port 9401 --count 1 --duration 30 \
		--ready "$TMP_DIR/p1-$mode.ready" > "$TMP_DIR/p1-$mode.recv"
	rpid=$BG_PID
	wait_for 10 test -e "$TMP_DIR/p1-$mode.ready" || fatal "receiver did not start"
	# p0 into 1:2 empties the root's bucket
	ns_exec A udp-lat send --dst $DST --port 9400 --count 1 --size 1400 --prio 1:2 > /dev/null &&
	ns_exec A udp-lat send --dst $DST --port 9401 --count 1 --size 600 --prio 1:1 > /dev/null &&
	sleep 0.5 &&
	ns_exec A udp-lat send --dst $DST --port 9402 --count 1 --size 1400 --prio 1:1 > /dev/null ||
		check_err 1 "$mode: sending p0 p1 p2"
	bg_wait $rpid
	check_err $? "$mode: p1 did not arrive"
	d=$(ns_exec A tc -s qdisc show dev veth0 | awk '/^qdisc tbf 111:/ { t = 1; next }
		t && /dropped/ { sub(/,/, "", $7); print $7; exit }')
	check_eq "$mode: p2 dropped by the tbf under netem" 1 "$d"
	wait_for 10 tree_is_empty
	check_err $? "$mode: left with dtable $(qlen_backlog dtable 1:), root $(qlen_backlog tbf 10:)"
	# the link is slow: let the root's bucket fill again first
	ns_exec A tc qdisc change dev veth0 root handle 10: tbf rate 100mbit burst 64k limit 100000
	lone_packet 1:1 9403
	log_test "$mode: a child that empties by a drop inside dtable's peek"
}

for mode in dtable sbt rr; do
	peek_drop $mode
done

# ---- 2. children that drop or hold back, deleted and replaced under traffic ---
ns_exec A tc qdisc del dev veth0 root
ns_run A tc qdisc add dev veth0 root handle 10: tbf rate 2mbit burst 4k limit 1000000 &&
ns_run A tc qdisc add dev veth0 parent 10:1 handle 1: dtable classes 5 mtu 1500 ||
	fatal "dtable"

children_cmds() {	# (re)graft the five children
	cat <<-EOF
	qdisc replace dev veth0 parent 1:1 handle 11: netem delay 5ms limit 100
	qdisc replace dev veth0 parent 11:1 handle 111: tbf rate 100mbit burst 1000 limit 100000
	qdisc replace dev veth0 parent 1:2 handle 12: codel target 1ms interval 5ms
	qdisc replace dev veth0 parent 1:3 handle 13: fq_codel target 1ms interval 5ms
	qdisc replace dev veth0 parent 1:4 handle 14: pfifo limit 3
	qdisc replace dev veth0 parent 1:5 handle 15: tbf rate 1mbit burst 2k limit 20000
	EOF
}
children() { children_cmds | tc_batch; }

# one round of surgery while packets wait: each child deleted (dtable
# grafts a pfifo), added back, the netem child's own child replaced; then
# a change to mode NEXT and back to MODE, all in one batch (tc -batch
# stops at the first command that fails)
surgery() {
	local mode=$1 next=$2 k
	{
		for k in 1 2 3 4 5; do
			echo "qdisc del dev veth0 parent 1:$k"
		done
		children_cmds
		echo "qdisc replace dev veth0 parent 11:1 handle 112: pfifo limit 1"
		echo "qdisc replace dev veth0 parent 11:1 handle 111: tbf rate 100mbit burst 1000 limit 100000"
		mode_cmd "$next" 5
		mode_cmd "$mode" 5
	} | tc_batch
}

storm() {
	local mode=$1 pids=() k rounds=0 queued=0
	children || fatal "$mode: children"
	set_mode "$mode" 5 || fatal "$mode: mode"
	ns_bg B udp-lat recv --port 9500 --ports 8 --duration 60 > /dev/null
	local rpid=$BG_PID
	# 1:1 small and too large for the tbf under netem; GSO frames into
	# codel and fq_codel; bursts into pfifo limit 3; the slow tbf.  Each
	# offers several times its class's fifth of the link, so the
	# children stay full.  --no-retry on all: a sender that retries a
	# refused datagram every 100 us (netem at its limit of 100, the
	# slow tbf at 20000 bytes, both full within 0.1 s) was three 10-kHz
	# loops of wakeups and refused sends, most of the storm's busy time
	# and the host's dearest part of it (a context switch per retry),
	# and added nothing: a refused datagram is a drop either way.
	ns_bg A udp-lat send --dst $DST --port 9500 --size 200 --interval 500 --no-retry --duration $STORM --prio 1:1 > /dev/null
	pids+=($BG_PID)
	ns_bg A udp-lat send --dst $DST --port 9501 --size 1400 --interval 3000 --no-retry --duration $STORM --prio 1:1 > /dev/null
	pids+=($BG_PID)
	ns_bg A udp-lat send --dst $DST --port 9502 --size 1400 --frame-bytes 5600 --gso \
		--frame-interval 4000 --no-retry --duration $STORM --prio 1:2 > /dev/null
	pids+=($BG_PID)
	ns_bg A udp-lat send --dst $DST --port 9503 --streams 2 --size 1400 --frame-bytes 5600 --gso \
		--frame-interval 4000 --no-retry --duration $STORM --prio 1:3 > /dev/null
	pids+=($BG_PID)
	ns_bg A udp-lat send --dst $DST --port 9505 --size 800 --interval 200 --no-retry --duration $STORM --prio 1:4 > /dev/null
	pids+=($BG_PID)
	ns_bg A udp-lat send --dst $DST --port 9506 --size 600 --interval 2000 --no-retry --duration $STORM --prio 1:5 > /dev/null
	pids+=($BG_PID)
	# surgery and mode changes until the senders are done.  The first
	# round waits for a queue: how many rounds fit into the senders'
	# time depends on the kernel's speed (37-39 a second on the
	# distribution kernel, 1-3 under KASAN), so counting on a later round to meet one
	# would make the check below a test of the machine's speed.
	while [ "$rounds" = 0 ] || kill -0 "${pids[0]}" 2>/dev/null; do
		if [ "$rounds" = 0 ]; then
			wait_for 5 holds_packets && queued=1
		else
			holds_packets && queued=$((queued + 1))
		fi
		surgery "$mode" "${MODES[rounds % 3]}" ||
			check_err 1 "$mode: surgery or mode change refused"
		rounds=$((rounds + 1))
	done
	for k in "${pids[@]}"; do bg_wait "$k"; done
	log_info "$mode: $rounds rounds of surgery, $queued of them with packets queued"
	[ "$queued" -ge 1 ] || check_err 1 "$mode: no surgery met a queue"
	wait_for 20 tree_is_empty
	check_err $? "$mode: idle but dtable $(qlen_backlog dtable 1:), root $(qlen_backlog tbf 10:): $(ns_exec A tc -s class show dev veth0 | grep -A3 '^class dtable' | tr '\n' ' ')"
	kill "$rpid" 2>/dev/null
	bg_wait "$rpid"
	for k in 1 2 3 4 5; do
		lone_packet 1:$k $((9600 + k))
	done
	wait_for 10 tree_is_empty
	check_err $? "$mode: lone packets left dtable $(qlen_backlog dtable 1:)"
	log_test "$mode: children that drop and hold back, deleted under traffic"
}

for mode in "${MODES[@]}"; do
	storm $mode
done

# ---- 3. a child held back until tc releases it --------------------------------
# sch_plug, blocked, holds its packets (its peek, qdisc_peek_dequeued() on
# 6.1 and 6.12, shows none: rr, which takes the head instead of peeking
# it, learns the same from the dequeue).  Packets into the other class
# must leave all the same, and the plugged ones once the plug is
# released: no timer of the child's calls dequeue, tc's change schedules
# the device queue.
plugged() {
	local mode=$1 n=5 rpid k
	ns_exec A tc qdisc del dev veth0 root 2>/dev/null
	ns_run A tc qdisc add dev veth0 root handle 10: tbf rate 100mbit burst 64k limit 1000000 &&
	ns_run A tc qdisc add dev veth0 parent 10:1 handle 1: dtable classes 2 mtu 1500 &&
	ns_run A tc qdisc replace dev veth0 parent 1:1 handle 11: plug limit 100000 &&
	set_mode "$mode" 2 || fatal "$mode: setting up"

	ns_exec A udp-lat send --dst $DST --port 9700 --count $n --size 600 --prio 1:1 > /dev/null ||
		check_err 1 "$mode: sending into the plugged class"
	ns_bg B udp-lat recv --port 9701 --count $n --duration 20 \
		--ready "$TMP_DIR/plug-$mode.ready" > /dev/null
	rpid=$BG_PID
	wait_for 10 test -e "$TMP_DIR/plug-$mode.ready" || fatal "receiver did not start"
	# one at a time, each into a tree that holds the plugged ones
	for k in $(seq $n); do
		ns_exec A udp-lat send --dst $DST --port 9701 --count 1 --size 600 --prio 1:2 > /dev/null ||
			check_err 1 "$mode: sending into the open class"
	done
	wait_for 10 class_sent_is 1:2 $n
	check_err $? "$mode: the open class sent $(class_sent 1:2) of $n beside a plugged one"
	bg_wait $rpid
	check_err $? "$mode: packets of the open class did not arrive beside a plugged one"
	check_eq "$mode: the plugged class still holds its packets" "$n 0" \
		"$(qlen_backlog plug 11: | cut -d' ' -f1) $(class_sent 1:1)"

	ns_bg B udp-lat recv --port 9700 --count $n --duration 20 \
		--ready "$TMP_DIR/unplug-$mode.ready" > /dev/null
	rpid=$BG_PID
	wait_for 10 test -e "$TMP_DIR/unplug-$mode.ready" || fatal "receiver did not start"
	ns_run A tc qdisc change dev veth0 parent 1:1 handle 11: plug release_indefinite
	bg_wait $rpid
	check_err $? "$mode: the plugged class's packets did not arrive after its release"
	wait_for 10 tree_is_empty
	check_err $? "$mode: released, but dtable $(qlen_backlog dtable 1:)"
	log_test "$mode: a plugged child beside an open one"
}

for mode in "${MODES[@]}"; do
	plugged $mode
done

# ---- 4. a held class banks no weight ---------------------------------------
# class_deficit CLASS: the deficit tc -s shows for it
class_deficit() {
	ns_exec A tc -s class show dev veth0 classid "$1" |
		awk '{ for (i = 1; i < NF; i++) if ($i == "deficit") { print $(i + 1); exit } }'
}
# class_sent_at_least CLASS N
class_sent_at_least() { [ "$(class_sent "$1")" -ge "$2" ] 2>/dev/null; }

held_banks_no_weight() {
	local n=60 rpid deficit worst=0 k
	ns_exec A tc qdisc del dev veth0 root 2>/dev/null
	ns_run A tc qdisc add dev veth0 root handle 10: tbf rate 100mbit burst 64k limit 1000000 &&
	ns_run A tc qdisc add dev veth0 parent 10:1 handle 1: dtable classes 2 mtu 1500 \
		credit 1500 table 0:10 1:10 &&
	ns_run A tc qdisc replace dev veth0 parent 1:1 handle 11: tbf rate 200kbit burst 1600 \
		limit 1000000 || fatal "held: setting up"

	ns_bg B udp-lat recv --port 9702 --count $n --duration 30 \
		--ready "$TMP_DIR/held.ready" > /dev/null
	rpid=$BG_PID
	wait_for 10 test -e "$TMP_DIR/held.ready" || fatal "receiver did not start"
	# 60 x 642 bytes behind 200 kbit/s: one out every 26 ms, for 1.5 s
	ns_exec A udp-lat send --dst $DST --port 9702 --count $n --size 600 --prio 1:1 > /dev/null ||
		check_err 1 "held: sending"
	for k in 10 20 30 40; do
		wait_for 20 class_sent_at_least 1:1 $k || break
		deficit=$(class_deficit 1:1)
		if [ "${deficit:-0}" -gt "$worst" ]; then worst=$deficit; fi
	done
	class_sent_at_least 1:1 40
	check_err $? "held: the class sent $(class_sent 1:1) of $n"
	# the served class shows what it holds: a packet size and an entry
	[ "$worst" -le $((1500 + 10 * 1500)) ]
	check_err $? "held: the class's deficit reached $worst bytes, want at most 16500"
	log_info "held: largest deficit seen $worst bytes"
	# a class seen with no deficit each time was idle when asked: the
	# sender lost the race against the tbf, and nothing was tested
	[ "$worst" -gt 0 ]
	xfail_on_slow check_err $? "held: the class never showed a deficit: never caught holding"
	bg_wait $rpid
	check_err $? "held: not every packet of the held class arrived"
	wait_for 10 tree_is_empty
	check_err $? "held: dtable $(qlen_backlog dtable 1:) after the run"
	log_test "dtable: a class held by its child keeps at most a packet size of its weight"
}

held_banks_no_weight

# ---- 5. GSO packets longer than their class's mtu ---------------------------
# class_bytes CLASS: bytes the scheduler sent from it (its statistics)
class_bytes() {
	ns_exec A tc -s class show dev veth0 classid "$1" |
		awk '{ for (i = 1; i < NF; i++) if ($i == "bytes" && $(i - 2) == "packets") { print $(i + 1); exit } }'
}
class_queued() {
	ns_exec A tc -s class show dev veth0 classid "$1" |
		awk '$1 == "backlog" { q = $3; sub(/p$/, "", q); print q; exit }'
}
both_backlogged() { [ "$(class_queued 1:1)" -gt 0 ] && [ "$(class_queued 1:2)" -gt 0 ]; } 2>/dev/null

# A bulk TCP transfer (veth offloads TSO: GSO packets of up to 64 KB) in
# class 1:1 against datagrams of the device's MTU in 1:2, behind an 8
# Mbit/s link, with the default table: one entry of the class mtu (the
# device's) each, so equal shares.  A GSO packet once went whole, once its
# class held an mtu, charged an mtu: TCP took up to 43 times its weight
# per visit, and UDP got 4.5 % of the link on 6.1.  Now it is cut into
# its frames.
gso_shares() {
	local tsink usink tcp udp b1 b2 a1 a2 share dry
	ns_exec A tc qdisc del dev veth0 root 2>/dev/null
	ns_run A tc qdisc add dev veth0 root handle 10: tbf rate 8mbit burst 128k \
		limit 1000000 &&
	# priority 0 (TCP's) to 1:1; the default priomap's is the last class
	ns_run A tc qdisc add dev veth0 parent 10:1 handle 1: dtable classes 2 \
		priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 || fatal "gso: setting up"
	# veth offloads TSO by default: say so where ethtool is at hand
	if command -v ethtool > /dev/null; then
		ns_run A ethtool -K veth0 tso on gso on || fatal "gso: tso on"
	fi

	ns_bg B tcp-bulk -l $DST -p 9703 -t 60000 -r "$TMP_DIR/gso-tcp.ready"
	tsink=$BG_PID
	ns_bg B udp-lat recv --port 9704 --duration 60 > /dev/null
	usink=$BG_PID
	wait_for 10 test -e "$TMP_DIR/gso-tcp.ready" || fatal "tcp receiver did not start"
	ns_bg A tcp-bulk -c $DST -p 9703 -b 1000000000 -t 60000
	tcp=$BG_PID
	ns_bg A udp-lat send --dst $DST --port 9704 --size 1472 --duration 30 --prio 1:2 > /dev/null
	udp=$BG_PID
	# the senders' pace (the debug kernel: never both)
	wait_for 20 both_backlogged ||
		xfail_on_slow check_err 1 "gso: the two classes never both held packets"
	b1=$(class_bytes 1:1) b2=$(class_bytes 1:2)
	sleep 1
	a1=$(class_bytes 1:1) a2=$(class_bytes 1:2)
	# the premise: a sender that did not keep its class backlogged (a
	# slow kernel's: UDP, 40 % on the debug kernel once) leaves shares
	# that judge the sender, not the scheduler
	both_backlogged
	dry=$?
	xfail_on_slow check_err $dry "gso: a class ran dry during the window"
	kill $tcp $udp 2>/dev/null
	bg_wait $tcp; bg_wait $udp
	kill $tsink $usink 2>/dev/null
	bg_wait $tsink; bg_wait $usink
	share=$(awk -v t=$((a1 - b1)) -v u=$((a2 - b2)) \
		'BEGIN { printf "%.1f %.1f", t + u ? 100 * t / (t + u) : 0, t + u ? 100 * u / (t + u) : 0 }')
	log_info "gso: byte shares TCP / UDP $share % over $((a1 - b1 + a2 - b2)) bytes"
	# the defect: the GSO class took the link
	awk -v s="$share" 'BEGIN { split(s, v, " "); exit !(v[2] >= 45) }'
	fair=$?		# not $? inside the if below: that is the test's
	if [ "$dry" = 0 ]; then
		check_err $fair "gso: byte shares TCP / UDP $share %, want 50 / 50 within 5 points"
	else
		xfail_on_slow check_err $fair "gso: byte shares TCP / UDP $share %, want 50 / 50 within 5 points"
	fi
	# short of its share, TCP's sender kept its class too short a queue
	# (47 % on the debug kernel, 50.0 on 6.1 and 6.12)
	awk -v s="$share" 'BEGIN { split(s, v, " "); exit !(v[1] >= 45) }'
	xfail_on_slow check_err $? "gso: byte shares TCP / UDP $share %: TCP short of its half"
	wait_for 10 tree_is_empty
	check_err $? "gso: dtable $(qlen_backlog dtable 1:) after the run"
	log_test "dtable: GSO packets longer than their class's mtu are charged their frames"
}

gso_shares

# ---- 6. a GSO packet whose frames a congested child takes -------------------
# fq_codel_dropped: packets fq_codel 11: has dropped
fq_codel_dropped() {
	ns_exec A tc -s qdisc show dev veth0 | awk '
		/^qdisc/ { d = ($2 == "fq_codel" && $3 == "11:"); next }
		d && $1 == "Sent" { for (i = 1; i < NF; i++) if ($i == "(dropped") { sub(/,$/, "", $(i + 1)); print $(i + 1); exit } }'
}

# Class 1:1's child is fq_codel with room for one packet, held full by
# an 8 kbit/s root, and each of 40 UDP_SEGMENT sends of four 1000-byte
# datagrams is cut by dtable into its frames (longer than the class mtu).
# fq_codel takes each frame and drops an older packet of the same flow:
# NET_XMIT_CN, not a loss of this frame.  The send must not be refused:
# the sender once saw ENOBUFS for every such packet (dropped= in
# udp-lat's count), because no frame had come back NET_XMIT_SUCCESS.
gso_congested_child() {
	local rpid out refused dropped
	ns_exec A tc qdisc del dev veth0 root 2>/dev/null
	ns_run A tc qdisc add dev veth0 root handle 10: tbf rate 8kbit burst 10k \
		limit 1000000 &&
	ns_run A tc qdisc add dev veth0 parent 10:1 handle 1: dtable classes 2 &&
	ns_run A tc qdisc replace dev veth0 parent 1:1 handle 11: fq_codel limit 1 ||
		fatal "congested child: setting up"

	ns_bg B udp-lat recv --port 9705 --duration 30 --ready "$TMP_DIR/cn.ready" > /dev/null
	rpid=$BG_PID
	wait_for 10 test -e "$TMP_DIR/cn.ready" || fatal "receiver did not start"
	out=$(ns_exec A udp-lat send --dst $DST --port 9705 --count 40 --size 1000 \
		--frame-bytes 4000 --frame-interval 100 --gso --no-retry --prio 1:1)
	check_err $? "congested child: sending"
	log_info "congested child: udp-lat: $out"
	refused=$(echo "$out" | sed -n 's/.* dropped=\([0-9]*\).*/\1/p')
	dropped=$(fq_codel_dropped)
	# nothing tested unless the child was congested
	[ "${dropped:-0}" -gt 0 ]
	check_err $? "congested child: fq_codel dropped '$dropped' packets, want some"
	check_eq "congested child: datagrams refused to the sender (ENOBUFS)" 0 "$refused"
	kill $rpid 2>/dev/null
	bg_wait $rpid
	wait_for 20 tree_is_empty
	check_err $? "congested child: dtable $(qlen_backlog dtable 1:) after the run"
	log_test "dtable: frames a congested child takes are not a drop to the sender"
}

gso_congested_child

ns_run A tc qdisc del dev veth0 root
exit $EXIT_STATUS
