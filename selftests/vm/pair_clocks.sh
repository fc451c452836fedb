#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 180
# vm: pair
# kernels: first
#
# Deadlines carried by TTD across two machines whose clocks disagree.  Two
# VMs (two kernels, two CLOCK_MONOTONICs) are joined by a virtio-net link
# over a qemu socket; the peer booted 20 s before this VM, so its clock is
# that far ahead, and the test makes it run 5 % fast on top (adjtimex tick
# 10500 us for 10000).  Both are measured (clock-probe, over the control
# link).  H1 sends through edf with "ttd on" over a real NIC to a vcsw on
# the other machine, which forwards to H2:
#
#   this VM                               peer VM
#   [H1] eth0 (edf, ttd on) ==virtio== nic0 [S] sw0 p2 --veth-- eth0 [H2]
#   10.45.0.1                          (advanced)            10.45.0.2
#                                                            fabric_hdr
#
# Nothing synchronises the clocks: the header carries the time to the
# deadline, each machine turns it into a deadline of its own clock on
# arrival and back into a time on departure.  So frames sent on time
# arrive on time, and frames the sender's link made late arrive exactly as
# late as the sender's qdisc counted, plus the time they spent in the
# peer's switch; an absolute deadline would be off by the clocks' offset,
# some 20 s, two hundred times the bound checked here.
#
# On the first kernel only: what is tested here is the header's time
# across two clocks, the same code on every kernel; the kernel paths it
# takes (edf's ttd on a real NIC, a vcsw port on one, fabric_hdr's
# receive) have their tests on each kernel (edf_ttd, vcsw_nic,
# fabric_hdr_rx), and the pair of VMs took 40 to 70 s of the check's
# 30 minutes per kernel.
. ./lib.sh

require_cmd tc udp-lat fabric-stat clock-probe nc
require_module sch_edf
pair_vms
tmp_dir_create

PEER_DATA_MAC=52:54:00:00:02:01
H2_MAC=02:00:00:45:00:02
SIZE=1000
BURST=30
TICK_US=10500		# the peer's clock: 5 % fast
# the switch's residence time that a loaded host may add to a frame's
# lateness (its clock runs 5 % fast, which adds 5 % of that)
SLACK_NS=100000000

probe() { clock-probe ask -a 10.99.0.2 -p 7001 -n 50; }
qstat() { ns_exec H1 tc -s -j qdisc show dev eth0 | tr -d ' \n' |
	sed -n "s/.*\"$1\":\([0-9]*\).*/\1/p"; }
stat_h2() { peer ip netns exec pH2 fabric-stat -j eth0; }
field() { awk -v k="$1" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }

cleanup_test() {
	peer 'ip netns del pH2; ip netns del pS; adjtimex -t 10000 > /dev/null' > /dev/null 2>&1
}

# --- the peer: a switch between the link and H2, a clock probe, 5 % fast ----
peer "modprobe vcsw && modprobe fabric_hdr" || fatal "modules on the peer"
peer "set -e
d=\$(ip -o link show | awk '/link\\/ether $PEER_DATA_MAC/ { sub(\":\$\", \"\", \$2); print \$2 }')
ip netns add pS; ip netns add pH2
ip link set \$d netns pS name nic0
ip link add eth0 netns pH2 address $H2_MAC type veth peer name p2 netns pS
ip -n pS link add sw0 type vcsw arch advanced
ip -n pS link set sw0 up
for p in nic0 p2; do
	ip netns exec pS sysctl -qw net.ipv6.conf.\$p.disable_ipv6=1
	ip -n pS link set \$p master sw0; ip -n pS link set \$p up
done
ip netns exec pH2 sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
ip -n pH2 addr add 10.45.0.2/24 dev eth0
ip -n pH2 link set eth0 up" || fatal "the peer's switch"
peer "setsid clock-probe serve -p 7001 > /dev/null 2>&1 &" || fatal "clock probe on the peer"
peer "adjtimex -t $TICK_US > /dev/null" || fatal "adjtimex on the peer"
log_test "a switch and a host on the peer machine"

# --- H1 on this machine, on the real NIC of the link -------------------------
ns_create H1
ip link set "$DATA_NIC" netns "$(ns_name H1)" name eth0 || fatal "move $DATA_NIC"
ns_exec H1 sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1
ns_run H1 ip addr add 10.45.0.1/24 dev eth0
ns_run H1 ip neigh add 10.45.0.2 lladdr $H2_MAC dev eth0 nud permanent
ns_run H1 ip link set eth0 up
ns_run H1 tc qdisc add dev eth0 root handle 1: edf rate 2mbit ttd on || fatal edf
ns_run H1 tc class add dev eth0 parent 1: classid 1:1 edf rate 20mbit || fatal "1:1"
ns_run H1 tc class add dev eth0 parent 1: classid 1:2 edf frame 100ms || fatal "1:2"

# --- the clocks: far apart, and one fast ------------------------------------
wait_for 30 probe > /dev/null || fatal "no answer from the peer's clock probe"
read -r _ off1 _ rtt1 _ at1 <<< "$(probe)"
log_info "peer's clock ahead by $((off1 / 1000000)) ms (probe round trip $((rtt1 / 1000)) us)"
delay=$(sed -n 's/.*fq.pair_delay=\([0-9]*\).*/\1/p' /proc/cmdline)
[ "$off1" -ge $(( ${delay:-20} * 1000000000 / 2 )) ]
check_err $? "the peer's clock is $off1 ns ahead; it booted ${delay:-20} s earlier"
log_test "the two machines' clocks are $((off1 / 1000000000)) s apart"

# --- on time: paced frames, 100 ms to spare -----------------------------------
recv_start() {	# COUNT
	peer "rm -f /tmp/ready /tmp/recv.rc
		setsid bash -c 'ip netns exec pH2 udp-lat recv --port 9200 --duration 60 \
			--count $1 --ready /tmp/ready > /tmp/recv.out 2>&1
			echo \$? > /tmp/recv.rc' > /dev/null 2>&1 &" ||
		fatal "receiver on the peer"
	wait_for 20 peer test -e /tmp/ready || fatal "the peer's receiver did not start"
}
# recv_done: the receiver ended, having had all it waited for
recv_done() {
	wait_for 70 peer test -s /tmp/recv.rc || return 1
	[ "$(peer cat /tmp/recv.rc)" = 0 ]
}

wait_for 20 ns_exec H1 ping -c 1 -W 1 10.45.0.2 > /dev/null
check_err $? "ping across the machines"
# the counters before the measured frames (the pings count too)
json=$(stat_h2)
base=$(json_u64 "$json" rx_frames)
late0=$(json_u64 "$json" late)
misses0=$(qstat deadline_misses)
recv_start 20
ns_run H1 udp-lat send --dst 10.45.0.2 --port 9200 --size $SIZE --rate 20 \
	--count 20 --prio 1:2 > /dev/null
recv_done
check_err $? "the peer's receiver did not get 20 datagrams"
json=$(stat_h2)
check_eq "fabric frames received" 20 $(( $(json_u64 "$json" rx_frames) - base ))
xfail_on_slow check_eq "late frames" 0 $(( $(json_u64 "$json" late) - late0 ))
xfail_on_slow check_eq "qdisc deadline misses" 0 $(( $(qstat deadline_misses) - misses0 ))
log_test "frames sent on time arrive on time on the other machine"

# --- late: a burst H1's 2 Mbit/s link cannot carry at 20 Mbit/s --------------
recv_start $BURST
ns_run H1 udp-lat send --dst 10.45.0.2 --port 9200 --size $SIZE --burst $BURST \
	--prio 1:1 > /dev/null
recv_done
check_err $? "the peer's receiver did not get the burst"
json=$(stat_h2)
late=$(( $(json_u64 "$json" late) - late0 ))
late_max=$(json_u64 "$json" late_max_ns)
misses=$(( $(qstat deadline_misses) - misses0 ))
qmax=$(qstat max_lateness)
log_info "receiver: late $late, late_max $late_max ns; sender's qdisc: misses $misses, max $qmax ns"
check_eq "fabric frames received" $((20 + BURST)) $(( $(json_u64 "$json" rx_frames) - base ))
# the first frame of the burst leaves with a link time to spare, which
# the switch may use up; the others were late when they left H1.  That a
# frame late when it left arrives late, and no less late, holds at any
# speed; how many left late, and the switch's time, depend on it
[ "$late" -ge "$misses" ]
check_err $? "$late frames arrived late, the sender's qdisc counted $misses of $BURST"
# (a clean-clone make check saw 27 of 30 leave late on 6.12: the pair VMs
# run beside the deterministic one, and a sender the host holds back
# issues the first frames of its burst nearer the link's pace): most
# of the burst, not all but two
[ "$misses" -ge $((BURST / 2)) ] && [ "$late" -le $((misses + 1)) ]
xfail_on_slow check_err $? "$late frames arrived late, the sender's qdisc counted $misses of $BURST"
[ "$late_max" -ge "$qmax" ]
check_err $? "largest lateness $late_max ns at the receiver, $qmax ns at the sender"
[ "$late_max" -le $((qmax + SLACK_NS)) ]
xfail_on_slow check_err $? "largest lateness $late_max ns at the receiver, $qmax ns at the sender"
log_test "lateness on the other machine = the sender's + the switch's time"

# --- the drift, measured over the test ---------------------------------------
read -r _ off2 _ rtt2 _ at2 <<< "$(probe)"
drift_ppm=$(( (off2 - off1) * 1000000 / (at2 - at1) ))
log_info "over $(( (at2 - at1) / 1000000 )) ms the peer's clock gained $(( (off2 - off1) / 1000000 )) ms: $drift_ppm ppm (probe round trip $((rtt2 / 1000)) us)"
want_ppm=$(( (TICK_US - 10000) * 100 ))
[ "$drift_ppm" -ge $((want_ppm * 6 / 10)) ] && [ "$drift_ppm" -le $((want_ppm * 14 / 10)) ]
check_err $? "the peer's clock drifted $drift_ppm ppm, adjtimex asked for $want_ppm"
log_test "the peer's clock ran $((drift_ppm / 10000)).$(( (drift_ppm % 10000) / 1000 )) % fast meanwhile"

exit $EXIT_STATUS
