#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# A switch whose first port left: its slot is free (a port of none), the
# other ports keep theirs.  Frames from ports with credits cross the
# crossbar (frames from ports without go around it), which must still
# move them: H1 and H2 ping each other before and after p0 leaves.
#
#   [H0] eth0 --- p0 -+              (leaves: ip link set p0 nomaster)
#   [H1] eth0 edf --- p1 -+- [S] sw0     credits on p1 and p2, and on the
#   [H2] eth0 edf --- p2 -+              hosts' edf
. ./lib.sh

require_cmd ip ping tc
require_module vcsw
require_module sch_edf
tmp_dir_create
ns_create S
ns_run S ip link add sw0 type vcsw || fatal "vcsw"
ns_run S ip link set sw0 up
switch_host H0 p0 02:00:00:61:00:00 10.61.0.10/24
switch_host H1 p1 02:00:00:61:00:01 10.61.0.11/24
switch_host H2 p2 02:00:00:61:00:02 10.61.0.12/24
ns_run H1 ip neigh replace 10.61.0.12 lladdr 02:00:00:61:00:02 dev eth0 nud permanent &&
ns_run H2 ip neigh replace 10.61.0.11 lladdr 02:00:00:61:00:01 dev eth0 nud permanent ||
	fatal "neighbours"
for p in p1 p2; do
	ns_run S ip link set $p type vcsw_slave credits on || fatal "credits on $p"
done
for h in H1 H2; do
	ns_run $h tc qdisc add dev eth0 root handle 1: edf credits on || fatal "edf on $h"
done

ping_ok() { ns_exec H1 ping -c 3 -i 0.2 -W 2 -q 10.61.0.12 > /dev/null; }

ping_ok
check_err $? "H1 cannot reach H2 through the credit ports"
log_test "credit ports forward with every slot in use"

ns_run S ip link set p0 nomaster || fatal "p0 nomaster"
ping_ok
check_err $? "H1 no longer reaches H2 once the first slot is free: $(ns_exec S ip -s -d link show p1 | tr -s ' \n' ' ')"
log_test "credit ports forward with the first slot free"

exit $EXIT_STATUS
