#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make setup: install what the build and the VM need, and fetch the VM
# kernels with their headers.  Idempotent: a second run on a prepared
# machine installs and downloads nothing.
#
# Usage: scripts/setup.sh [--check] [KERNEL...]
#   KERNEL   6.1 (Debian 12's kernel), 6.12, 6.12-rt (the 6.12 kernels
#            Debian 12 offers); default: 6.1 6.12
#   --check  only report whether setup is needed (exit 0: ready, 1: not)
#
# Kernels and their headers are unpacked into the cache ($FQ_CACHE/kernel/
# <abi>/) from the .debs, not installed: installing a kernel image would
# change what this machine boots next.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

CHECK_ONLY=0
FETCH_TMP=
trap '[ -z "$FETCH_TMP" ] || rm -rf "$FETCH_TMP"' EXIT
if [ "${1:-}" = --check ]; then
	CHECK_ONLY=1
	shift
fi
KERNELS=${*:-$FQ_VM_KERNELS_DEFAULT}
for k in $KERNELS; do
	fq_vm_kernel_known "$k" || fq_die "unknown VM kernel '$k': want one of $FQ_VM_KERNELS_ALL"
done

# Build, VM image and test tools, from Debian; valgrind and gnuplot for
# make bench's core counts and plots; docutils for host/docs, the check
# of Documentation/*.rst; dkms for host/dkms, which builds the modules
# the way users do; ethtool for the tests that turn a veth's TSO off;
# clang and its runtimes (libFuzzer) for the fuzz targets of the cores.
BASE_PACKAGES="gcc make libc6-dev libmnl-dev pkg-config kmod cpio gzip xz-utils
	busybox-static qemu-system-x86 iproute2 bash dpkg-dev valgrind gnuplot-nox
	python3-docutils dkms ethtool clang libclang-rt-14-dev"

apt_updated=0
apt_update_once() {
	[ $apt_updated = 1 ] && return 0
	fq_say "refreshing apt package lists (apt-get update)"
	apt-get update -qq || fq_die "apt-get update failed; is a Debian mirror reachable?"
	apt_updated=1
}

# Debian publishes new kernel packages under the same ABI; lists older
# than a day may not know the newest one.  Refresh them, but a machine
# that cannot reach its mirror goes on with what it knows.
APT_LISTS_MAX_AGE_MIN=1440
apt_lists_stale() {
	[ -z "$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' \
		-mmin -$APT_LISTS_MAX_AGE_MIN 2>/dev/null | head -n1)" ]
}
refresh_stale_lists() {
	apt_lists_stale || return 0
	fq_say "apt package lists are over a day old: refreshing them (apt-get update)"
	if apt-get update -qq; then
		apt_updated=1
	else
		fq_say "warning: apt-get update failed; using the package lists there are"
	fi
}

# The version apt would install of a package now (empty if none).
candidate_version() {
	apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p' |
		grep -vx '(none)' | head -n1
}

installed_version() {
	pkg_installed "$1" && dpkg-query -W -f='${Version}' "$1"
}

# version_older A B: A is older than B (false when B is unknown)
version_older() {
	[ -n "$2" ] && dpkg --compare-versions "$1" lt "$2"
}

pkg_installed() {
	[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" = "install ok installed" ]
}

# The ABI of kernel NAME that Debian ships now.  6.1: what the
# metapackages depend on; 6.12 and 6.12-rt have no metapackage in
# Debian 12, so: the newest such image apt knows.
distro_abi() {
	local flavour
	case $1 in
	6.1)
		flavour=$(fq_distro_abi linux-image)
		[ -n "$flavour" ] || return 0
		local hdr
		hdr=$(fq_distro_abi linux-headers)
		if [ -n "$hdr" ] && [ "$hdr" != "$flavour" ]; then
			fq_die "linux-image-amd64 wants $flavour but linux-headers-amd64 wants $hdr; refresh apt lists (apt-get update) and retry"
		fi
		echo "$flavour"
		return 0 ;;
	6.12) flavour=amd64 ;;
	6.12-rt) flavour=rt-amd64 ;;
	esac
	apt-cache pkgnames linux-image-6.12. 2>/dev/null |
		sed -n "s/^linux-image-\(6\.12\.[0-9]*+deb12-$flavour\)-unsigned\$/\1/p" |
		sort -V | tail -n1
}

# The ABI to use for kernel NAME.  Without package lists (a fresh
# machine) refresh them once; --check falls back to what was prepared.
resolve_abi() {
	local name=$1 abi
	abi=$(distro_abi "$name")
	if [ -z "$abi" ]; then
		if [ $CHECK_ONLY = 1 ]; then
			abi=$(FQ_VM_KERNEL=$name fq_vm_abi || true)
			[ -n "$abi" ] || return 1
			echo "$abi"
			return 0
		fi
		apt_update_once
		abi=$(distro_abi "$name")
	fi
	[ -n "$abi" ] || fq_die "cannot tell the ABI of Debian's $name kernel from apt's package lists"
	echo "$abi"
}

missing_packages() {
	local p
	for p in $BASE_PACKAGES; do
		pkg_installed "$p" || echo "$p"
	done
}

kernel_ready() {
	local kdir
	kdir=$(fq_kernel_dir "$1")
	[ -s "$kdir/vmlinuz" ] && [ -s "$kdir/lib/modules/$1/modules.dep" ] &&
		[ -s "$kdir/build/Makefile" ]
}

# kernel_stale ABI: why the cached kernel of ABI must be fetched again
# (prints the reason), or false when it is Debian's current package.
kernel_stale() {
	local abi=$1 have want
	kernel_ready "$abi" || { echo "not in the cache"; return 0; }
	have=$(fq_kernel_version "$abi") ||
		{ echo "cached without its package version"; return 0; }
	want=$(candidate_version "$(image_package "$abi")")
	if version_older "$have" "$want"; then
		echo "cached package $have is older than Debian's current $want"
		return 0
	fi
	return 1
}

# The image package of an ABI: 6.1's is linux-image-<abi>; the 6.12
# images of Debian 12 are taken unsigned (the same kernel and modules).
image_package() {
	case $1 in
	6.1.*) echo "linux-image-$1" ;;
	*) echo "linux-image-$1-unsigned" ;;
	esac
}

# The header packages of an ABI: linux-headers-<abi> and what it needs
# of them (the -common headers and linux-kbuild), at the same version.
header_packages() {
	echo "linux-headers-$1"
	apt-cache depends "linux-headers-$1" 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-\(headers-[^ ]*-common[^ ]*\|kbuild-[^ ]*\)\)$/\1/p'
}

download() {	# DIR PACKAGE...: their .debs into DIR
	local dir=$1
	shift
	( cd "$dir" && apt-get download -q -o APT::Sandbox::User=root "$@" ) >&2 ||
		{ apt_update_once; ( cd "$dir" && apt-get download -q \
			-o APT::Sandbox::User=root "$@" ) >&2; } ||
		fq_die "apt-get download $* failed"
}

fetch_kernel() {
	local abi=$1 kdir tmp deb img pkgs p
	kdir=$(fq_kernel_dir "$abi")
	tmp=$(mktemp -d "$FQ_CACHE/.fetch.XXXXXX")
	FETCH_TMP=$tmp
	chmod 755 "$tmp"
	img=$(image_package "$abi")
	pkgs=$(header_packages "$abi" | tr '\n' ' ')
	fq_say "downloading $img $pkgs(apt-get download) into $FQ_CACHE"
	download "$tmp" "$img" $pkgs
	deb=$(ls "$tmp/${img}"_*.deb 2>/dev/null | head -n1)
	[ -n "$deb" ] || fq_die "apt-get download left no .deb for $img"
	fq_say "unpacking $(basename "$deb") and the headers"
	dpkg-deb -x "$deb" "$tmp/root" || fq_die "dpkg-deb -x $deb failed"
	dpkg-deb -f "$deb" Version > "$tmp/package-version" ||
		fq_die "dpkg-deb -f $deb Version failed"
	[ -s "$tmp/root/boot/vmlinuz-$abi" ] || fq_die "$deb has no boot/vmlinuz-$abi"
	for p in $pkgs; do
		dpkg-deb -x "$tmp/${p}"_*.deb "$tmp/headers" || fq_die "dpkg-deb -x $p failed"
	done
	[ -s "$tmp/headers/usr/src/linux-headers-$abi/Makefile" ] ||
		fq_die "linux-headers-$abi has no Makefile"
	rm -rf "$kdir"
	mkdir -p "$kdir/lib/modules"
	mv "$tmp/root/boot/vmlinuz-$abi" "$kdir/vmlinuz"
	mv "$tmp/root/boot/config-$abi" "$kdir/config" 2>/dev/null || true
	mv "$tmp/root/lib/modules/$abi" "$kdir/lib/modules/"
	# The .deb leaves modules.dep to its postinst; make it ourselves.
	depmod -b "$kdir" "$abi" || fq_die "depmod for the VM kernel failed"
	# The headers' Makefile includes the -common one by its absolute
	# path under /usr/src; point it into the cache (the other links in
	# the packages are relative).
	mv "$tmp/headers" "$kdir/headers"
	sed -i "s|^include /usr/src/|include $kdir/headers/usr/src/|" \
		"$kdir/headers/usr/src/linux-headers-$abi/Makefile"
	ln -s "headers/usr/src/linux-headers-$abi" "$kdir/build"
	mv "$tmp/package-version" "$kdir/package-version"
	rm -rf "$tmp"
	fq_say "VM kernel $(fq_kernel_label_of "$abi") ready in $kdir"
}

# prepare_kernel NAME: Debian's current kernel NAME in the cache
prepare_kernel() {
	local name=$1 abi why
	abi=$(resolve_abi "$name")
	fq_say "VM kernel $name: ABI $abi"
	if why=$(kernel_stale "$abi"); then
		fq_say "VM kernel $abi: $why: downloading it"
		fetch_kernel "$abi"
	else
		fq_say "VM kernel $name: $(fq_kernel_label_of "$abi") already in $(fq_kernel_dir "$abi")"
	fi
	echo "$abi" > "$FQ_CACHE/vm-abi-$name"
}

kernel_current() {	# NAME: prepared, and Debian's current package
	local abi
	abi=$(resolve_abi "$1") || return 1
	! kernel_stale "$abi" > /dev/null &&
		[ "$(FQ_VM_KERNEL=$1 fq_vm_abi || true)" = "$abi" ]
}

main() {
	local missing k
	if [ $CHECK_ONLY = 1 ]; then
		! apt_lists_stale || exit 1
		[ -z "$(missing_packages)" ] || exit 1
		for k in $KERNELS; do
			kernel_current "$k" || exit 1
		done
		exit 0
	fi

	[ "$(id -u)" = 0 ] || fq_die "make setup installs Debian packages: run it as root"
	command -v apt-get >/dev/null || fq_die "make setup needs a Debian system with apt-get"
	mkdir -p "$FQ_CACHE" || fq_die "cannot create cache directory $FQ_CACHE (set FQ_CACHE)"

	refresh_stale_lists
	missing=$(missing_packages | tr '\n' ' ')
	if [ -n "${missing// /}" ]; then
		apt_update_once
		fq_say "installing: $missing"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			$missing >&2 || fq_die "apt-get install $missing failed"
	else
		fq_say "packages: all present"
	fi
	for k in $KERNELS; do
		prepare_kernel "$k"
	done
	fq_say "setup done"
}

main
