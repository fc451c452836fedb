#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build, once, the debug kernel that make check-debug boots: Debian's own
# source of the VM kernel (linux-source-6.1, or linux-source-6.12 with
# VM_KERNEL=6.12; the same package version as the VM kernel) configured
# from x86_64_defconfig plus
# scripts/debug-kernel.config: KASAN, KFENCE, lockdep, atomic-sleep
# checks, kmemleak, and, as modules, what the tests load.  The result is
# laid out like a downloaded VM kernel, in $FQ_CACHE/kernel/<release>/
# (vmlinuz, lib/modules/<release>/, package-version), with the build tree
# our modules compile against in $FQ_CACHE/debug-build/ (6.12's in
# $FQ_CACHE/debug-build-6.12/).  A second run
# with the same source version and configuration builds nothing.
#
# Usage: scripts/debug-kernel.sh            build if needed; print the release
#        scripts/debug-kernel.sh --check    exit 0 if built and current
# Environment: FQ_DEBUG_JOBS (default: the number of CPUs).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

FRAGMENT=$FQ_ROOT/scripts/debug-kernel.config
SERIES=${FQ_VM_KERNEL:-6.1}
# the RT flavour has no source package of its own
case $SERIES in
6.1|6.12) ;;
*) fq_die "no debug kernel for VM_KERNEL=$SERIES: 6.1 or 6.12" ;;
esac
SRC_PKG=linux-source-$SERIES
# 6.1's tree keeps the name it had before there was a choice
TOP=$FQ_CACHE/debug-build
[ "$SERIES" = 6.1 ] || TOP=$FQ_CACHE/debug-build-$SERIES
LOCALVERSION=-fqdebug
BUILD_PACKAGES="bc bison flex libelf-dev libssl-dev xz-utils cpio"
JOBS=${FQ_DEBUG_JOBS:-$(nproc)}

# The source package version must be the VM kernel's: the debug kernel is
# that kernel with checks compiled in.
want_version() {
	local v
	v=$(fq_kernel_version "$(fq_vm_abi)") ||
		fq_die "no VM kernel prepared (run make setup): its version names the source"
	echo "$v"
}

# What a build depends on: the source version, the configuration and the
# edits of the source (EDITS: a version of them, raised when they change).
EDITS=1
build_key() {
	echo "$1 $(sha256sum "$FRAGMENT" | cut -c1-16) edits $EDITS"
}

# edit_source DIR: the one change to the source.  PROVE_RCU (selected by
# PROVE_LOCKING) runs the RCU-tasks self test early in boot, on the boot
# CPU before the others start; it waits there for a grace period of each
# RCU-tasks flavour (synchronize_rcu_tasks(), _rude(), _trace()), and under
# this machine's QEMU 7.2 TCG the kernel stopped in that wait, its vCPUs
# idle, in four of five boots one afternoon (after a morning of boots
# that all got through).  Without the three waits the test still queues
# its callbacks (call_rcu_tasks() and the rest), and a late initcall
# still warns if one has not run 30 s later: the same test, not blocking
# the boot.  Idempotent: the source tree is kept between builds.
edit_source() {
	local f=$1/kernel/rcu/tasks.h

	sed -i '/^static void rcu_tasks_initiate_self_tests(void)$/,/^}$/ {
		/^\tsynchronize_rcu_tasks\(_rude\|_trace\)\{0,1\}();$/d
	}' "$f" || return 1
	! sed -n '/^static void rcu_tasks_initiate_self_tests(void)$/,/^}$/p' "$f" |
		grep -q 'synchronize_rcu_tasks'
}

release_of() {	# the upstream version in the source tree + LOCALVERSION
	make -s -C "$1" kernelversion 2>/dev/null | sed "s/\$/$LOCALVERSION/"
}

current() {
	local version=$1 rel
	[ -r "$TOP/key" ] || return 1
	[ "$(cat "$TOP/key")" = "$(build_key "$version")" ] || return 1
	rel=$(cat "$TOP/release" 2>/dev/null) || return 1
	[ -s "$(fq_kernel_dir "$rel")/vmlinuz" ] &&
		[ -s "$(fq_kernel_dir "$rel")/lib/modules/$rel/modules.dep" ]
}

fetch_source() {	# VERSION DIR: the unpacked source of $SRC_PKG VERSION
	local version=$1 dir=$2 tmp
	tmp=$(mktemp -d "$FQ_CACHE/.src.XXXXXX")
	chmod 755 "$tmp"
	fq_say "downloading $SRC_PKG $version"
	( cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "$SRC_PKG=$version" ) >&2 ||
		{ apt-get update -qq && ( cd "$tmp" && apt-get download -q \
			-o APT::Sandbox::User=root "$SRC_PKG=$version" ) >&2; } ||
		fq_die "apt-get download $SRC_PKG=$version failed"
	dpkg-deb -x "$tmp"/${SRC_PKG}_*.deb "$tmp/root"
	fq_say "unpacking the kernel source"
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -xJf "$tmp"/root/usr/src/$SRC_PKG.tar.xz -C "$dir" --strip-components=1
	rm -rf "$tmp"
}

build() {
	local version=$1 top=$TOP
	local src=$top/src out=$top/out rel kdir start missing p

	missing=
	for p in $BUILD_PACKAGES; do
		[ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" = "install ok installed" ] ||
			missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		fq_say "installing:$missing"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			$missing >&2 || fq_die "apt-get install$missing failed"
	fi

	rm -f "$top/key"
	[ "$(cat "$top/src-version" 2>/dev/null)" = "$version" ] || {
		fetch_source "$version" "$src"
		echo "$version" > "$top/src-version"
		rm -rf "$out"
	}
	edit_source "$src" || fq_die "editing the kernel source failed (kernel/rcu/tasks.h)"
	mkdir -p "$out"
	start=$(date +%s)
	fq_say "configuring (x86_64_defconfig + ${FRAGMENT#"$FQ_ROOT"/})"
	make -s -C "$src" O="$out" x86_64_defconfig >&2
	"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "$FRAGMENT" >&2
	make -s -C "$src" O="$out" LOCALVERSION="$LOCALVERSION" olddefconfig >&2
	check_config "$out/.config"
	fq_say "building the debug kernel with $JOBS jobs (the first build takes long)"
	# uname -v names the source, as Debian's kernels do (a Debian
	# variable: the upstream one must be a date)
	KBUILD_BUILD_VERSION_TIMESTAMP="$SRC_PKG $version (fabric-qos debug)" \
	KBUILD_BUILD_USER=fabric-qos KBUILD_BUILD_HOST=debug \
		make -s -C "$src" O="$out" LOCALVERSION="$LOCALVERSION" -j"$JOBS" \
			bzImage modules >&2 || fq_die "the debug kernel build failed"
	rel=$(cat "$out/include/config/kernel.release")
	kdir=$(fq_kernel_dir "$rel")
	rm -rf "$kdir"
	mkdir -p "$kdir"
	make -s -C "$src" O="$out" LOCALVERSION="$LOCALVERSION" INSTALL_MOD_PATH="$kdir" \
		INSTALL_MOD_STRIP=1 DEPMOD=/bin/true modules_install >&2
	rm -f "$kdir/lib/modules/$rel/build" "$kdir/lib/modules/$rel/source"
	depmod -b "$kdir" "$rel"
	cp "$out/arch/x86/boot/bzImage" "$kdir/vmlinuz"
	cp "$out/.config" "$kdir/config"
	echo "$version" > "$kdir/package-version"
	echo "$rel" > "$top/release"
	build_key "$version" > "$top/key"
	fq_say "debug kernel $rel built in $(( $(date +%s) - start ))s"
}

# Every option of the fragment must have survived olddefconfig: a
# dependency that is off silently drops an option (KASAN without its
# compiler support, say), and a debug kernel without its checks would
# pass everything.
check_config() {
	local opt want got
	while IFS= read -r line; do
		case $line in
		CONFIG_*=*) opt=${line%%=*} want=${line#*=} ;;
		"# CONFIG_"*" is not set") opt=${line#\# }; opt=${opt%% *}; want=n ;;
		*) continue ;;
		esac
		got=$(sed -n "s/^$opt=//p" "$1")
		[ -n "$got" ] || got=n
		[ "$got" = "$want" ] || fq_die "debug config: $opt=$want requested, olddefconfig made it $got"
	done < "$FRAGMENT"
}

version=$(want_version)
if [ "${1:-}" = --check ]; then
	current "$version"
	exit
fi
current "$version" || build "$version"
rel=$(cat "$TOP/release")
# what our modules build against, where the Makefile looks (KDIR)
ln -sfn "$TOP/out" "$(fq_kernel_dir "$rel")/build"
echo "$rel"
