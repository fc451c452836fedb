#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make setup: install what the build and the VM need, and fetch the VM's
# kernel.  Idempotent: a second run on a prepared machine installs and
# downloads nothing.  Usage: scripts/setup.sh [--check]
#   --check  only report whether setup is needed (exit 0: ready, 1: not)
set -euo pipefail
. "$(dirname "$0")/lib.sh"

CHECK_ONLY=0
FETCH_TMP=
trap '[ -z "$FETCH_TMP" ] || rm -rf "$FETCH_TMP"' EXIT
[ "${1:-}" = --check ] && CHECK_ONLY=1

# Build, VM image and test tools, from Debian; valgrind and gnuplot for
# make bench's core counts and plots; docutils for host/docs, the check
# of Documentation/*.rst.
BASE_PACKAGES="gcc make libc6-dev libmnl-dev pkg-config kmod cpio gzip
	busybox-static qemu-system-x86 iproute2 bash dpkg-dev valgrind gnuplot-nox
	python3-docutils"

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

# The ABI to use: what the distribution's metapackages depend on now.
# Without package lists (a fresh machine) refresh them once.
resolve_abi() {
	local img hdr
	img=$(fq_distro_abi linux-image)
	if [ -z "$img" ]; then
		if [ $CHECK_ONLY = 1 ]; then
			# no package lists: fall back to what was prepared before
			img=$(fq_vm_abi || true)
			[ -n "$img" ] || return 1
			echo "$img"
			return 0
		fi
		apt_update_once
		img=$(fq_distro_abi linux-image)
	fi
	[ -n "$img" ] || fq_die "cannot tell the kernel ABI: apt-cache depends linux-image-amd64 names no linux-image-<abi>-amd64"
	hdr=$(fq_distro_abi linux-headers)
	if [ -n "$hdr" ] && [ "$hdr" != "$img" ]; then
		fq_die "linux-image-amd64 wants $img but linux-headers-amd64 wants $hdr; refresh apt lists (apt-get update) and retry"
	fi
	echo "$img"
}

# Packages to install, and kernel headers to upgrade to the version of
# the image the VM boots (the modules are built against them).
missing_packages() {
	local abi=$1 p have
	for p in $BASE_PACKAGES; do
		pkg_installed "$p" || echo "$p"
	done
	p=linux-headers-$abi
	have=$(installed_version "$p") || { echo "$p"; return; }
	if version_older "$have" "$(candidate_version "$p")"; then
		echo "$p"
	fi
}

kernel_ready() {
	local kdir
	kdir=$(fq_kernel_dir "$1")
	[ -s "$kdir/vmlinuz" ] && [ -s "$kdir/lib/modules/$1/modules.dep" ]
}

# kernel_stale ABI: why the cached kernel of ABI must be fetched again
# (prints the reason), or false when it is Debian's current package.
kernel_stale() {
	local abi=$1 have want
	kernel_ready "$abi" || { echo "not in the cache"; return 0; }
	have=$(fq_kernel_version "$abi") ||
		{ echo "cached without its package version"; return 0; }
	want=$(candidate_version "linux-image-$abi")
	if version_older "$have" "$want"; then
		echo "cached package $have is older than Debian's current $want"
		return 0
	fi
	return 1
}

fetch_kernel() {
	local abi=$1 kdir tmp deb
	kdir=$(fq_kernel_dir "$abi")
	tmp=$(mktemp -d "$FQ_CACHE/.fetch.XXXXXX")
	FETCH_TMP=$tmp
	fq_say "downloading linux-image-$abi (apt-get download) into $FQ_CACHE"
	chmod 755 "$tmp"
	( cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "linux-image-$abi" ) >&2 ||
		{ apt_update_once; ( cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "linux-image-$abi" ) >&2; } ||
		fq_die "apt-get download linux-image-$abi failed"
	deb=$(ls "$tmp"/linux-image-"$abi"_*.deb 2>/dev/null | head -n1)
	[ -n "$deb" ] || fq_die "apt-get download left no .deb for linux-image-$abi"
	fq_say "unpacking $(basename "$deb")"
	dpkg-deb -x "$deb" "$tmp/root" || fq_die "dpkg-deb -x $deb failed"
	dpkg-deb -f "$deb" Version > "$tmp/package-version" ||
		fq_die "dpkg-deb -f $deb Version failed"
	[ -s "$tmp/root/boot/vmlinuz-$abi" ] || fq_die "$deb has no boot/vmlinuz-$abi"
	rm -rf "$kdir"
	mkdir -p "$kdir/lib/modules"
	mv "$tmp/root/boot/vmlinuz-$abi" "$kdir/vmlinuz"
	mv "$tmp/root/boot/config-$abi" "$kdir/config" 2>/dev/null || true
	mv "$tmp/root/lib/modules/$abi" "$kdir/lib/modules/"
	mv "$tmp/package-version" "$kdir/package-version"
	# The .deb leaves modules.dep to its postinst; make it ourselves.
	depmod -b "$kdir" "$abi" || fq_die "depmod for the VM kernel failed"
	rm -rf "$tmp"
	fq_say "VM kernel $(fq_kernel_label_of "$abi") ready in $kdir"
}

main() {
	local abi missing why
	if [ $CHECK_ONLY = 1 ]; then
		! apt_lists_stale || exit 1
		abi=$(resolve_abi) || exit 1
		[ -z "$(missing_packages "$abi")" ] && ! kernel_stale "$abi" >/dev/null &&
			[ "$(fq_vm_abi || true)" = "$abi" ]
		exit
	fi

	[ "$(id -u)" = 0 ] || fq_die "make setup installs Debian packages: run it as root"
	command -v apt-get >/dev/null || fq_die "make setup needs a Debian system with apt-get"
	mkdir -p "$FQ_CACHE" || fq_die "cannot create cache directory $FQ_CACHE (set FQ_CACHE)"

	refresh_stale_lists
	abi=$(resolve_abi)
	fq_say "VM kernel ABI: $abi (from linux-image-amd64)"

	missing=$(missing_packages "$abi" | tr '\n' ' ')
	if [ -n "${missing// /}" ]; then
		apt_update_once
		fq_say "installing: $missing"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
			$missing >&2 || fq_die "apt-get install $missing failed"
	else
		fq_say "packages: all present"
	fi

	if why=$(kernel_stale "$abi"); then
		fq_say "VM kernel $abi: $why: downloading it"
		fetch_kernel "$abi"
	else
		fq_say "VM kernel: $(fq_kernel_label_of "$abi") already in $(fq_kernel_dir "$abi")"
	fi
	echo "$abi" > "$FQ_CACHE/vm-abi"
	fq_say "setup done"
}

main
