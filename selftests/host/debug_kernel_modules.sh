#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 30
#
# The debug kernel (scripts/debug-kernel.sh) builds, as modules, what the
# VM's initramfs takes from the kernel (INTREE_MODULES in
# scripts/mkinitramfs.sh): a module added to the image but not to
# scripts/debug-kernel.config is found missing only when make
# check-debug builds the image, after hours of building the kernel.
# Each module is named here by the option that builds it; a module with
# no entry here fails too, so that whoever adds one adds its option.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FRAGMENT=$ROOT/scripts/debug-kernel.config

# module path (as in INTREE_MODULES) -> the option that builds it
declare -A OPTION=(
	[drivers/net/veth.ko]=CONFIG_VETH
	[drivers/net/dummy.ko]=CONFIG_DUMMY
	[drivers/net/ifb.ko]=CONFIG_IFB
	[drivers/net/virtio_net.ko]=CONFIG_VIRTIO_NET
	[drivers/net/vxlan/vxlan.ko]=CONFIG_VXLAN
	[drivers/net/bonding/bonding.ko]=CONFIG_BONDING
	[drivers/net/tun.ko]=CONFIG_TUN
	[drivers/virtio/virtio_pci.ko]=CONFIG_VIRTIO_PCI
	[net/bridge/bridge.ko]=CONFIG_BRIDGE
	[net/core/pktgen.ko]=CONFIG_NET_PKTGEN
	[net/8021q/8021q.ko]=CONFIG_VLAN_8021Q
	[net/ipv4/ip_gre.ko]=CONFIG_NET_IPGRE
	[net/sched/]=CONFIG_NET_SCHED
)

modules=$(sed -n '/^INTREE_MODULES="/,/^"/p' "$ROOT/scripts/mkinitramfs.sh" |
	sed '1d;$d' | tr -d '\t ')
[ -n "$modules" ] || { echo "FAIL: no INTREE_MODULES in scripts/mkinitramfs.sh"; exit 1; }

fail=0 n=0
for m in $modules; do
	n=$((n + 1))
	opt=${OPTION[$m]:-}
	if [ -z "$opt" ]; then
		echo "FAIL: $m is in the VM image but not in this test: name its option here and in scripts/debug-kernel.config"
		fail=1
	elif ! grep -Eq "^$opt=[ym]$" "$FRAGMENT"; then
		echo "FAIL: $m is in the VM image, but the debug kernel's fragment does not build it ($opt=m)"
		fail=1
	fi
done
[ $fail = 0 ] && echo "ok: the $n module entries of the VM image are all built by the debug kernel"
exit $fail
