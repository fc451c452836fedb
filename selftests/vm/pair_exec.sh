#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# One command from the tester of a "# vm: pair" test, run on the peer VM
# (pair_peer.sh starts this for each connection): what the tester sends
# until it closes its side is a bash script; its output and then "rc=N",
# its exit status, go back.  A command that leaves a process behind
# redirects its output, or the connection stays open until it ends.
export PATH=/opt/fabric-qos/bin:/usr/sbin:/usr/bin
cmd=$(cat)
cd /opt/fabric-qos/selftests/vm || exit 1
bash -c "$cmd" 2>&1 < /dev/null
echo "rc=$?"
