#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the test VM's initramfs: busybox, bash, the real ip/tc/kmod with
# their libraries, the in-tree modules the tests need (with dependencies
# from modules.dep), and our modules, plugins, tools and tests installed
# by `make install` into the image.
#
# Usage: scripts/mkinitramfs.sh OUT.cpio.gz|OUT.cpio TESTLIST
#   OUT ending in .cpio: not compressed (make check: in TCG the guest's
#             inflate of the image cost some 5 s of every boot, more than
#             the host's copy of the larger file)
#   TESTLIST: lines "name timeout_s path", the VM tests (or benchmarks,
#             selftests/bench) to run, in order; "-" for none, when the
#             list comes in an archive of its own after this one
#             (scripts/check.sh: one image per kernel, a list per VM).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

OUT=$1
TESTLIST=$2
ABI=$(fq_vm_abi) || fq_die "no VM kernel prepared: run make setup"
KSRC=$(fq_kernel_dir "$ABI")
MA=$(fq_multiarch)
STAGE=$FQ_BUILD/vm/root

# In-tree modules the tests may load, as paths under kernel/ or whole
# directories; dependencies are added from modules.dep.
INTREE_MODULES="
	drivers/net/veth.ko
	drivers/net/dummy.ko
	drivers/net/ifb.ko
	drivers/net/virtio_net.ko
	drivers/net/vxlan/vxlan.ko
	drivers/net/bonding/bonding.ko
	drivers/net/tun.ko
	drivers/virtio/virtio_pci.ko
	net/bridge/bridge.ko
	net/core/pktgen.ko
	net/8021q/8021q.ko
	net/ipv4/ip_gre.ko
	net/sched/
"
# Host programs copied with their shared libraries; optional ones are
# skipped when this machine lacks them.
PROGRAMS="/usr/sbin/ip /usr/sbin/tc /usr/sbin/bridge /usr/bin/kmod /usr/bin/bash
	/usr/bin/timeout /usr/bin/env /usr/bin/nice /usr/bin/nohup /usr/bin/xargs"
OPTIONAL_PROGRAMS="/usr/sbin/ethtool /usr/bin/taskset /usr/bin/chrt"
# Busybox applets we do not link: the real tools take these names.  The
# ones that run other commands must be real too: busybox's would run its
# own "ip" applet rather than /usr/sbin/ip.
NOT_APPLETS=" ip tc bridge modprobe insmod rmmod lsmod depmod modinfo bash sh timeout env nice nohup xargs "

# Map a host path onto the image's merged-/usr layout.
usr_path() {
	case $1 in
	/lib/*|/lib64/*|/bin/*|/sbin/*) echo "/usr$1" ;;
	*) echo "$1" ;;
	esac
}

copy_file() {	# host path -> same place in the image, dereferenced
	local dst
	dst=$STAGE$(usr_path "$1")
	[ -e "$dst" ] && return 0
	mkdir -p "$(dirname "$dst")"
	cp -L "$1" "$dst"
}

copy_program() {
	local lib
	copy_file "$1"
	for lib in $(ldd "$1" 2>/dev/null | grep -o '/[^ ]*'); do
		copy_file "$lib"
	done
}

# The file of a module in the kernel's tree: Debian's 6.12 compresses them
# (veth.ko.xz); the VM's kmod reads xz and zstd.
module_file() {	# kernel/drivers/net/veth.ko
	local ext
	for ext in "" .xz .zst; do
		[ -e "$KSRC/lib/modules/$ABI/$1$ext" ] && { echo "$1$ext"; return 0; }
	done
	return 1
}

add_module_with_deps() {	# relative path like kernel/drivers/net/veth.ko
	local mod=$1 dep
	if ! mod=$(module_file "$1"); then
		# built into this kernel (a debug or other kernel's configuration)
		grep -qx "$1" "$KSRC/lib/modules/$ABI/modules.builtin" && return 0
		fq_die "module $1 not found for $ABI"
	fi
	[ -e "$STAGE/lib/modules/$ABI/$mod" ] && return 0
	mkdir -p "$(dirname "$STAGE/lib/modules/$ABI/$mod")"
	cp "$KSRC/lib/modules/$ABI/$mod" "$STAGE/lib/modules/$ABI/$mod"
	for dep in $(sed -n "s|^$mod: *||p" "$KSRC/lib/modules/$ABI/modules.dep"); do
		add_module_with_deps "$dep"
	done
}

rm -rf "$STAGE"
mkdir -p "$STAGE"/usr/{bin,sbin,lib,lib64} "$STAGE"/{dev,proc,sys,tmp,run,etc,root}
for d in bin sbin lib lib64; do ln -s "usr/$d" "$STAGE/$d"; done

# busybox first, so real programs copied next replace nothing of it
cp /usr/bin/busybox "$STAGE/usr/bin/busybox"
for applet in $(/usr/bin/busybox --list); do
	case $NOT_APPLETS in *" $applet "*) continue ;; esac
	[ -e "$STAGE/usr/bin/$applet" ] || ln -s busybox "$STAGE/usr/bin/$applet"
done
ln -s busybox "$STAGE/usr/bin/sh"

for p in $PROGRAMS; do
	[ -x "$p" ] || fq_die "$p missing: run make setup"
	copy_program "$p"
done
for p in $OPTIONAL_PROGRAMS; do
	[ -x "$p" ] && copy_program "$p"
done
for tool in modprobe insmod rmmod lsmod depmod modinfo; do
	ln -sf ../bin/kmod "$STAGE/usr/sbin/$tool"
done
# tc's distribution tables and iproute2's name tables
[ -d "/usr/lib/$MA/tc" ] && mkdir -p "$STAGE/usr/lib/$MA/tc" &&
	cp /usr/lib/$MA/tc/*.dist "$STAGE/usr/lib/$MA/tc/" 2>/dev/null || true
[ -d /usr/share/iproute2 ] && cp -r /usr/share/iproute2 "$STAGE/usr/share/" 2>/dev/null || true
[ -d /etc/iproute2 ] && cp -r /etc/iproute2 "$STAGE/etc/"
printf 'root:x:0:0:root:/root:/bin/bash\n' > "$STAGE/etc/passwd"
printf 'root:x:0:\n' > "$STAGE/etc/group"

# kernel modules
mkdir -p "$STAGE/lib/modules/$ABI"
cp "$KSRC/lib/modules/$ABI"/modules.{builtin,builtin.modinfo,order} "$STAGE/lib/modules/$ABI/"
for m in $INTREE_MODULES; do
	if [ "${m%/}" != "$m" ]; then
		for f in "$KSRC/lib/modules/$ABI/kernel/$m"*.ko*; do
			[ -e "$f" ] || continue
			f=${f#$KSRC/lib/modules/$ABI/}
			add_module_with_deps "${f%.ko*}.ko"
		done
	else
		add_module_with_deps "kernel/$m"
	fi
done

# our build, laid out by the same install rule users run
make -s -C "$FQ_ROOT" install-files DESTDIR="$STAGE" PREFIX=/opt/fabric-qos \
	KREL="$ABI" >/dev/null
depmod -b "$STAGE" "$ABI"

# the tests, the benchmarks and the list to run
mkdir -p "$STAGE/opt/fabric-qos/selftests" "$STAGE/etc/fabric-qos"
cp -r "$FQ_ROOT/selftests/vm" "$FQ_ROOT/selftests/bench" "$FQ_ROOT/selftests/demo" \
	"$STAGE/opt/fabric-qos/selftests/"
if [ -d "$FQ_BUILD/selftests/vm" ]; then
	cp "$FQ_BUILD/selftests/vm/"* "$STAGE/opt/fabric-qos/bin/" 2>/dev/null || true
fi
[ "$TESTLIST" = - ] || cp "$TESTLIST" "$STAGE/etc/fabric-qos/tests"
# make demo: which scenarios selftests/demo/demo.sh runs (default: all)
if [ -n "${FQ_DEMO_SCENARIOS:-}" ]; then
	printf '%s\n' $FQ_DEMO_SCENARIOS > "$STAGE/etc/fabric-qos/demo-scenarios"
fi
# make fbs-demo: its settings (NAME=VALUE lines) for selftests/demo/fbs.sh
if [ -n "${FQ_FBS_DEMO_ENV:-}" ]; then
	printf '%s\n' "$FQ_FBS_DEMO_ENV" > "$STAGE/etc/fabric-qos/fbs-demo.env"
fi
# make demo's RECN sweep: its settings and traces for selftests/demo/recn.sh
if [ -n "${FQ_RECN_DEMO_DIR:-}" ]; then
	cp -r "$FQ_RECN_DEMO_DIR" "$STAGE/etc/fabric-qos/recn-demo"
fi
# make profile: the case selftests/bench/profile_case.sh measures
if [ -n "${FQ_PROFILE_CASE:-}" ]; then
	printf '%s\n' "$FQ_PROFILE_CASE" > "$STAGE/etc/fabric-qos/profile.env"
fi
install -m 755 "$FQ_ROOT/scripts/vm-init" "$STAGE/init"
install -m 644 "$FQ_ROOT/scripts/vm-report.sh" "$STAGE/etc/fabric-qos/vm-report.sh"

compress=(gzip -1)
[[ $OUT == *.cpio ]] && compress=(cat)
( cd "$STAGE" && find . -print0 | cpio --null -o -H newc --quiet ) | "${compress[@]}" > "$OUT"
