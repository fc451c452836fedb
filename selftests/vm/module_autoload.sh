#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 90
#
# The stock tools load our modules on demand, as users expect on every
# kernel we support: "tc qdisc add ... edf|aoq|dtable|fbs" (the kernel asks
# for module sch_KIND before 6.9, net-sch-KIND since) and "ip link add
# ... type vcsw" (rtnl-link-vcsw).  Each module is unloaded first, then
# the command must succeed and leave the module loaded.
#
#   [ns A] dummy0: tc qdisc add root <kind>; ip link add sw0 type vcsw
. ./lib.sh

require_cmd tc ip modprobe
ns_create A
ns_run A ip link add dummy0 type dummy || fatal "dummy"
ns_run A ip link set dummy0 up
log_info "kernel $(uname -r)"

for kind in edf aoq dtable fbs; do
	mod=sch_$kind
	modinfo $mod > /dev/null 2>&1 || skip "module $mod not installed"
	module_is_loaded $mod && module_unload $mod
	! module_is_loaded $mod
	check_err $? "$mod still loaded before the test"
	args=
	case $kind in
	dtable) args="classes 2" ;;
	fbs) args="dests 2 slot 100us" ;;
	esac
	ns_run A tc qdisc add dev dummy0 root handle 1: $kind $args
	check_err $? "tc qdisc add ... $kind did not load $mod"
	module_is_loaded $mod
	check_err $? "$mod not loaded after tc qdisc add"
	ns_run A tc qdisc del dev dummy0 root
	log_test "tc qdisc add ... $kind loads $mod"
done

modinfo vcsw > /dev/null 2>&1 || skip "module vcsw not installed"
module_is_loaded vcsw && module_unload vcsw
ns_run A ip link add sw0 type vcsw
check_err $? "ip link add ... type vcsw did not load vcsw"
module_is_loaded vcsw
check_err $? "vcsw not loaded after ip link add"
ns_run A ip link del sw0
log_test "ip link add ... type vcsw loads vcsw"

exit $EXIT_STATUS
