#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The peer VM of a "# vm: pair" test (fq_vm_boot_pair in scripts/lib.sh):
# vm-init runs this instead of the test list when the kernel command line
# says fq.pair=peer.  It brings up the control link, its second NIC
# (52:54:00:00:02:02), as 10.99.0.2/24, and runs every command the tester
# sends to TCP port 7000 there (pair_exec.sh; the tester's lib.sh
# function "peer"), as root, until the host stops the VM.  The control
# link joins only the two VMs; the data link (52:54:00:00:02:01) is left
# to the test.
PEER_CTL_MAC=52:54:00:00:02:02

nic_by_mac()
{
	ip -o link show | awk -v m="$1" '$0 ~ "link/ether " m { sub(":$", "", $2); print $2; exit }'
}

modprobe virtio_pci
modprobe virtio_net
for i in $(seq 300); do
	ctl=$(nic_by_mac $PEER_CTL_MAC)
	[ -n "$ctl" ] && break
	sleep 0.1
done
if [ -z "$ctl" ]; then
	echo "fabric-qos: peer: no control NIC $PEER_CTL_MAC" > /dev/console
	exit 1
fi
ip link set "$ctl" name ctl
sysctl -qw net.ipv6.conf.ctl.disable_ipv6=1
ip addr add 10.99.0.2/24 dev ctl
ip link set ctl up
echo "fabric-qos: peer: serving on 10.99.0.2 port 7000" > /dev/console
while :; do
	nc -ll -p 7000 -e bash /opt/fabric-qos/selftests/vm/pair_exec.sh
	sleep 1
done
