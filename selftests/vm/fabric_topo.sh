#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 900
# kernels: first
#
# fabric-topo builds a 2-ary 2-tree (four hosts, four vcsw switches) in
# namespaces, traffic crosses it, and it tears it down without a trace;
# twice, with other options the second time.  Every host pings every
# other on its default routes: the switches' ports together send exactly
# the hops of those routes, nothing floods, nothing is dropped for its
# route.  A reservation's route from fabric-cac replaces a default one
# and the frames move to the other top switch; its edf class and filter
# take h0's traffic to h3.  A second build under a
# name in use is refused and leaves the first fabric alone; a build that
# fails half-way leaves nothing behind.  After each tear-down: no
# namespace, no veth, no reference on vcsw or fabric_hdr.
. ./lib.sh

require_cmd ip tc ping fabric-topo fabric-route fabric-cac fabric-send
require_module vcsw
require_module fabric_hdr
require_module sch_edf
tmp_dir_create
PINGS=3
TOPO=(fabric-topo --tree 2,2 --name "$NS_PREFIX")
# the VM's /bin/sh is busybox, whose sh runs its own ip applet first
FABRIC_TOPO_SHELL=$(command -v bash)
export FABRIC_TOPO_SHELL

cleanup_test() {
	"${TOPO[@]}" destroy > /dev/null 2>&1
}

SWITCHES="s0.0.0 s0.1.0 s1.0.0 s1.0.1"
ports_of() { case $1 in s0.*) echo 0 1 2 3 ;; *) echo 0 1 ;; esac; }
sent() { vcsw_sent "$1" "p$2"; }
# SENT, FLOODED, DROP_ROUTE: frames sent, flooded and dropped for their
# route over every port of every switch, from one read of each switch's
# devices (a read per port and counter started some 70 programs, 7 s)
switch_totals() {
	local s p j n

	SENT=0 FLOODED=0 DROP_ROUTE=0 DROP_UNROUTED=0
	for s in $SWITCHES; do
		links_json $s || return 1
		for p in $(ports_of $s); do
			j=${LINKS_JSON[p$p]}
			json_obj_num n "$j" vc0 packets && SENT=$((SENT + n)) &&
			json_obj_num n "$j" vc1 packets && SENT=$((SENT + n)) &&
			json_obj_num n "$j" port flooded && FLOODED=$((FLOODED + n)) &&
			json_obj_num n "$j" port drop_route && DROP_ROUTE=$((DROP_ROUTE + n)) &&
			json_obj_num n "$j" port drop_unrouted &&
				DROP_UNROUTED=$((DROP_UNROUTED + n)) ||
				{ SENT= FLOODED= DROP_ROUTE= DROP_UNROUTED=; return 1; }
		done
	done
}
addr() { echo "10.59.0.$(($1 + 1))"; }

# what holds a reference on our modules, and the veths, before we start
fabric_leftovers_mark

# every host pings every other; HOPS: what their routes add up to.  The
# twelve pings run at once (each mostly waits: 12 x 0.4 s in a row),
# and the hosts' routes are read meanwhile, one table per host.
ping_all() {
	local a b ports routes line pids=() re

	for a in 0 1 2 3; do
		ns_entry h$a ping
		for b in 0 1 2 3; do
			[ $a = $b ] && continue
			"${NS_ENTRY[@]}" -c $PINGS -i 0.2 -W 5 "$(addr $b)" > /dev/null &
			pids+=($!)
			bg_track $!
		done
	done
	HOPS=0
	for a in 0 1 2 3; do
		routes=$(ns_exec h$a fabric-route show dev eth0)
		for b in 0 1 2 3; do
			[ $a = $b ] && continue
			re=" to 02:fa:00:00:00:0$b ports ([0-9,]*) "
			ports=
			while IFS= read -r line; do
				[[ $line =~ $re ]] && ports+=${ports:+$'\n'}${BASH_REMATCH[1]}
			done <<< "$routes"
			[ -n "$ports" ] || check_err 1 "h$a has no route to h$b"
			# a hop per port of the route, there and back for each ping
			ports=${ports//[^,$'\n']/}
			HOPS=$((HOPS + 2 * PINGS * (${#ports} + 1)))
		done
	done
	for a in 0 1 2 3; do
		for b in 0 1 2 3; do
			[ $a = $b ] && continue
			bg_wait "${pids[0]}"
			check_err $? "h$a could not ping h$b"
			pids=("${pids[@]:1}")
		done
	done
}

# --- the first fabric: credits, advanced, emulated links ---------------------------------
"${TOPO[@]}" --link 200mbit build > "$TMP_DIR/build.out" 2>&1 ||
	fatal "build failed: $(tail -5 "$TMP_DIR/build.out")"
check_eq "namespaces" 8 "$(ip netns list | grep -c "^$NS_PREFIX-")"
check_eq "h2's routes" 3 "$(ns_exec h2 fabric-route show | grep -c '^dev eth0 to ')"
[[ "$(ns_exec s0.0.0 ip -d link show dev p3)" == *"credits on"* ]]
check_err $? "s0.0.0 p3 without credits: $(ns_exec s0.0.0 ip -d link show dev p3)"
[[ "$(ns_exec h1 tc qdisc show dev eth0)" == *"edf"*"ttd on"*"credits on"* ]]
check_err $? "h1's qdisc: $(ns_exec h1 tc qdisc show dev eth0)"
for s in $SWITCHES; do
	links_json $s
	for p in $(ports_of $s); do
		idx=
		[[ ${LINKS_JSON[p$p]} =~ \"port_index\":([0-9]*) ]] && idx=${BASH_REMATCH[1]}
		check_eq "$s p$p index" $p "$idx"
	done
done
log_test "build: eight namespaces, ports in port order, credits, edf with ttd, routes"

"${TOPO[@]}" build > /dev/null 2> "$TMP_DIR/err"
check_fail $? "a second build under the same name accepted"
grep_quiet "exists" < "$TMP_DIR/err"
check_err $? "no reason: $(cat "$TMP_DIR/err")"
check_eq "namespaces after the refused build" 8 "$(ip netns list | grep -c "^$NS_PREFIX-")"
log_test "a build under a name in use is refused, the fabric it names stays"

switch_totals || check_err 1 "the switches' counters unreadable"
before=$SENT
ping_all
sleep 1
switch_totals || check_err 1 "the switches' counters unreadable"
check_eq "frames the switches sent: the routes' hops" "$HOPS" "$((SENT - before))"
check_eq "flooded" 0 "$FLOODED"
check_eq "dropped for their route" 0 "$DROP_ROUTE"
log_test "every host pings every other: $HOPS hops, as the default routes say"

# a broadcast fabric frame without a route: the first switch drops it
# (flood off), where flooding would carry it round the loops
[[ "$(ns_exec s0.0.0 ip -d link show dev sw0)" == *"flood off"* ]]
check_err $? "s0.0.0: $(ns_exec s0.0.0 ip -d link show dev sw0)"
switch_totals || check_err 1 "the switches' counters unreadable"
before=$SENT unrouted=$DROP_UNROUTED
ns_exec h0 fabric-send -i eth0 --dst-mac ff:ff:ff:ff:ff:ff --src-ip "$(addr 0)" \
	--dst-ip 10.59.255.255 --dport 9 --count $PINGS || check_err 1 "fabric-send"
sleep 1
switch_totals || check_err 1 "the switches' counters unreadable"
check_eq "broadcasts dropped for no route" $PINGS "$((DROP_UNROUTED - unrouted))"
check_eq "frames the switches sent" "$before" "$SENT"
check_eq "flooded" 0 "$FLOODED"
log_test "a broadcast fabric frame without a route: dropped at the first switch, not flooded"

# a reservation's route replaces h0's default to h3 (over top s1.0.1)
fabric-cac --state "$TMP_DIR/cac" --tree 2,2 --link 200mbit add 0 3 10mbit > /dev/null ||
	fatal "fabric-cac add"
fabric-cac --state "$TMP_DIR/cac" routes 0 > "$TMP_DIR/routes"
ns_exec h0 fabric-route -b "$TMP_DIR/routes"
check_err $? "fabric-route -b $(cat "$TMP_DIR/routes")"
t0=$(sent s1.0.0 1) t1=$(sent s1.0.1 1)
ns_exec h0 ping -c $PINGS -i 0.2 -W 5 "$(addr 3)" > /dev/null
check_err $? "h0 could not ping h3 on the reserved route"
sleep 1
check_eq "h0 to h3 over s1.0.0" $PINGS $(( $(sent s1.0.0 1) - t0 ))
check_eq "h0 to h3 no longer over s1.0.1" 0 $(( $(sent s1.0.1 1) - t1 ))
log_test "fabric-cac's route for h0 to h3 takes the other top switch"

# and its classes: h0's traffic to h3 goes into the reservation's class
fabric-cac --state "$TMP_DIR/cac" classes 0 > "$TMP_DIR/classes"
ns_exec h0 tc -b "$TMP_DIR/classes"
check_err $? "tc -b $(cat "$TMP_DIR/classes")"
ns_exec h0 tc -b "$TMP_DIR/classes"
check_err $? "the classes applied a second time"
class_packets() {
	ns_exec h0 tc -s class show dev eth0 classid "$1" |
		sed -n 's/.*Sent [0-9]* bytes \([0-9]*\) pkt.*/\1/p' | head -n1
}
c0=$(class_packets 1:1)
[ -n "$c0" ] || check_err 1 "no class 1:1 at h0: $(ns_exec h0 tc class show dev eth0)"
[[ "$(ns_exec h0 tc class show dev eth0)" == *"1:1"*"rate 10Mbit"* ]]
check_err $? "h0's class 1:1: $(ns_exec h0 tc class show dev eth0)"
ns_exec h0 ping -c $PINGS -i 0.2 -W 5 "$(addr 3)" > /dev/null
check_err $? "h0 could not ping h3 through its class"
ns_exec h0 ping -c $PINGS -i 0.2 -W 5 "$(addr 1)" > /dev/null
check_err $? "h0 could not ping h1"
check_eq "h0's class 1:1: the pings to h3, not those to h1" $PINGS $(( $(class_packets 1:1) - c0 ))
log_test "fabric-cac's classes for h0: its traffic to h3 in the reservation's class"

# a frame reservation: an edf frame class, h0's traffic to h2 in it
fabric-cac --state "$TMP_DIR/cac" add 0 2 frame 20ms size 64k every 40ms class 2 > /dev/null ||
	fatal "fabric-cac add frame"
fabric-cac --state "$TMP_DIR/cac" classes 0 > "$TMP_DIR/classes"
ns_exec h0 tc -b "$TMP_DIR/classes"
check_err $? "tc -b $(cat "$TMP_DIR/classes")"
[[ "$(ns_exec h0 tc class show dev eth0 classid 1:2)" == *"frame 20ms"*"perflow on"* ]]
check_err $? "h0's class 1:2: $(ns_exec h0 tc class show dev eth0 classid 1:2)"
c1=$(class_packets 1:1) c2=$(class_packets 1:2)
ns_exec h0 ping -c $PINGS -i 0.2 -W 5 "$(addr 2)" > /dev/null
check_err $? "h0 could not ping h2 through its frame class"
check_eq "h0's class 1:2: the pings to h2" $PINGS $(( $(class_packets 1:2) - c2 ))
check_eq "h0's class 1:1: none of them" 0 $(( $(class_packets 1:1) - c1 ))
log_test "fabric-cac's frame reservation for h0: an edf frame class carrying its traffic to h2"

"${TOPO[@]}" destroy
check_err $? "destroy failed"
fabric_leftovers_check "first fabric"
log_test "destroy: no namespace, veth or module reference left"

# --- the second: no credits, trad, the devices' own rate ---------------------------------
"${TOPO[@]}" --arch trad --credits off build > "$TMP_DIR/build.out" 2>&1
check_err $? "second build failed: $(tail -5 "$TMP_DIR/build.out")"
[[ "$(ns_exec s1.0.0 ip -d link show dev sw0)" == *"arch trad"* ]]
check_err $? "s1.0.0 is not trad: $(ns_exec s1.0.0 ip -d link show dev sw0)"
switch_totals || check_err 1 "the switches' counters unreadable"
before=$SENT
ping_all
sleep 1
switch_totals || check_err 1 "the switches' counters unreadable"
check_eq "frames the switches sent: the routes' hops" "$HOPS" "$((SENT - before))"
check_eq "flooded" 0 "$FLOODED"
"${TOPO[@]}" destroy
check_err $? "second destroy failed"
fabric_leftovers_check "second fabric"
log_test "built again without credits: $HOPS hops as routed, destroyed without a trace"

# --- a build that fails half-way ---------------------------------------------------------
# a fabric-route that refuses: the build stops at the first host's routes
mkdir "$TMP_DIR/bin"
printf '#!/bin/sh\necho "refusing on purpose" >&2\nexit 1\n' > "$TMP_DIR/bin/fabric-route"
chmod +x "$TMP_DIR/bin/fabric-route"
PATH="$TMP_DIR/bin:$PATH" "${TOPO[@]}" build > /dev/null 2> "$TMP_DIR/err"
check_fail $? "a build whose fabric-route failed succeeded"
grep_quiet "build failed" < "$TMP_DIR/err"
check_err $? "no message: $(cat "$TMP_DIR/err")"
fabric_leftovers_check "failed build"
log_test "a build that fails half-way destroys what it built"

exit $EXIT_STATUS
