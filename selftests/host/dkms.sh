#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
#
# DKMS for real: Debian's dkms builds the modules from a staged copy of
# the tree, by dkms.conf, against the headers of the newest VM kernel the
# cache holds (make setup: 6.12, whose headers ship vmlinux and so take
# kbuild's BTF path), and makes every module dkms.conf names.  One
# kernel: make check builds the modules for every VM kernel anyway, and a
# second dkms build (55 s of CPU) held up the second lane of VMs, which
# waits for the host tests (scripts/check.sh).  "dkms build", not
# install: the source and dkms trees are temporary directories
# (--sourcetree, --dkmstree), so nothing is installed on this machine
# (dkms keeps its module signing key in /var/lib/dkms, as for any build).
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/scripts/lib.sh"
command -v dkms > /dev/null || { echo "SKIP: dkms not installed (make setup installs it)"; exit 4; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
FAIL=0
fail() { echo "FAIL: $*"; FAIL=1; }

name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"/\1/p' "$ROOT/dkms.conf")
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$ROOT/dkms.conf")
listed=$(sed -n 's/^BUILT_MODULE_NAME\[[0-9]*\]="\{0,1\}\([^"]*\)"\{0,1\}/\1/p' "$ROOT/dkms.conf" | sort)
kbuild=$(sed -n 's/^obj-m += \(.*\)\.o$/\1/p' "$ROOT/kernel/Kbuild" | sort)
[ "$listed" = "$kbuild" ] ||
	fail "dkms.conf lists '$(echo $listed)', kernel/Kbuild builds '$(echo $kbuild)'"

# the tree as a user would copy it to /usr/src, without build products
src=$T/src/$name-$version
mkdir -p "$src" "$T/dkms"
# The tree's sources: make check builds its modules for each VM kernel
# while this test runs, so what kbuild writes (all of it in .gitignore)
# stays out.  In a git checkout git names the files, new ones included;
# elsewhere, the ignored patterns.
if git -C "$ROOT" rev-parse --is-inside-work-tree > /dev/null 2>&1; then
	git -C "$ROOT" ls-files -z --cached --others --exclude-standard |
		(cd "$ROOT" && while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done) |
		tar -C "$ROOT" --null -T - -c | tar -x -C "$src"
else
	tar -C "$ROOT" --exclude=./build --exclude=./.git --exclude='*.o' --exclude='*.ko' \
		--exclude='*.mod*' --exclude='.*.cmd' --exclude='.*.d' --exclude=Module.symvers \
		--exclude=modules.order --exclude=.tmp_versions --exclude=kernel/.built-for \
		-c . | tar -x -C "$src"
fi
dkms add -m "$name" -v "$version" --sourcetree "$T/src" --dkmstree "$T/dkms" > "$T/add.log" 2>&1 ||
	{ cat "$T/add.log"; fail "dkms add"; exit 1; }

# As on a machine without pahole (package dwarves): Debian's 6.12 headers
# ship vmlinux, and kbuild then needs pahole for every module's BTF unless
# our Makefile builds without it.  Hidden here so that the build takes
# the same path on every machine, with dwarves installed or not.
export PAHOLE=$T/no-pahole

kernels=0
newest=$(for f in "$FQ_CACHE"/vm-abi-*; do
	[ -e "$f" ] || continue
	abi=$(cat "$f")
	[ -e "$(fq_kernel_dir "$abi")/build/Makefile" ] && echo "$abi"
done | sort -V | tail -n1)
for abi in $newest; do
	kdir=$(fq_kernel_dir "$abi")/build
	kernels=$((kernels + 1))
	if ! dkms build -m "$name" -v "$version" -k "$abi" --kernelsourcedir "$kdir" \
		--sourcetree "$T/src" --dkmstree "$T/dkms" > "$T/build-$abi.log" 2>&1; then
		tail -n 30 "$T/build-$abi.log"
		find "$T/dkms" -name make.log -exec tail -n 30 {} \;
		fail "dkms build for $abi"
		continue
	fi
	made=$(ls "$T/dkms/$name/$version/$abi"/*/module/ 2>/dev/null |
		sed 's/\.ko\(\.[a-z]*\)\{0,1\}$//' | sort)
	[ "$made" = "$listed" ] || fail "$abi: dkms made '$(echo $made)', dkms.conf lists '$(echo $listed)'"
	echo "dkms build for $(fq_kernel_label_of "$abi"): $(echo $made)"
done
if [ $kernels = 0 ] && [ $FAIL = 0 ]; then
	echo "SKIP: no kernel headers in $FQ_CACHE (make setup puts them there)"
	exit 4
fi
exit $FAIL
