# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Shared by the scripts in this directory: where the cache lives and which
# kernel the VM boots.  Source it; it defines variables and functions only.

FQ_ROOT=${FQ_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
# Downloads live outside the repo so a fresh clone on the same machine
# reuses them.  Override with FQ_CACHE=/some/dir.
FQ_CACHE=${FQ_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fabric-qos}
FQ_BUILD=${FQ_BUILD:-$FQ_ROOT/build}

fq_say()  { printf '%s\n' "fabric-qos: $*" >&2; }
fq_die()  { printf '%s\n' "fabric-qos: error: $*" >&2; exit 1; }

# The kernel ABI (e.g. 6.1.0-56-amd64) the distribution currently ships,
# read from the metapackage's dependency so no version is hard-coded.
# Prints nothing when apt's package lists do not know the metapackage.
fq_distro_abi() {
	local meta=$1	# linux-image or linux-headers
	apt-cache depends "$meta-amd64" 2>/dev/null |
		sed -n "s/^ *Depends: $meta-\([0-9].*-amd64\)\$/\1/p" | head -n1
}

# The ABI that `make setup` last prepared, from the cache.
fq_vm_abi() {
	[ -r "$FQ_CACHE/vm-abi" ] && cat "$FQ_CACHE/vm-abi"
}

# Where the unpacked VM kernel of an ABI lives.
fq_kernel_dir() { echo "$FQ_CACHE/kernel/$1"; }

fq_multiarch() {
	dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null ||
		gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu
}
