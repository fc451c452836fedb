#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# tree-build: yes
#
# A staged `make install DESTDIR=...` puts every module, plugin and tool
# where modprobe, tc and ip look for them, and dkms.conf names every
# module the build makes.  Runs on the host: it installs nothing outside
# its own temporary directory.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/scripts/lib.sh"
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT
MA=$(fq_multiarch)
KREL=$(fq_vm_abi)
FAIL=0
fail() { echo "FAIL: $*"; FAIL=1; }

# make check-debug names its own kernel (FQ_VM_ABI), for which it built
# the tree: install for it, as scripts/mkinitramfs.sh does.  Left to its
# default, make install rebuilt every module for the plain VM kernel and
# installed them under that kernel's name.
make -s -C "$ROOT" install DESTDIR="$STAGE" ${FQ_VM_ABI:+KREL="$FQ_VM_ABI"} \
	> "$STAGE.log" 2>&1 ||
	{ cat "$STAGE.log"; rm -f "$STAGE.log"; echo "FAIL: make install DESTDIR failed"; exit 1; }
rm -f "$STAGE.log"

# modules: where modprobe finds them after depmod
modules=0
for ko in "$ROOT"/kernel/*.ko; do
	[ -e "$ko" ] || continue
	dst=$STAGE/lib/modules/$KREL/updates/fabric-qos/$(basename "$ko")
	cmp -s "$ko" "$dst" || fail "$(basename "$ko") not installed as $dst"
	modules=$((modules + 1))
done
[ $modules -gt 0 ] || fail "the build made no module"
[ -e "$STAGE/lib/modules/$KREL/modules.dep" ] && fail "a staged install must not run depmod"

# tc plugins: in the directory this tc reads, and loadable by it
tc_dir=$(grep -a -o "/usr/lib/[a-z0-9_-]*/tc/" /usr/sbin/tc | head -n1)
[ "$tc_dir" = "/usr/lib/$MA/tc/" ] || fail "tc reads plugins from '$tc_dir', we install into /usr/lib/$MA/tc/"
for so in "$ROOT"/build/tc/q_*.so; do
	[ -e "$so" ] || continue
	kind=$(basename "$so" .so); kind=${kind#q_}
	cmp -s "$so" "$STAGE/usr/lib/$MA/tc/q_$kind.so" || fail "q_$kind.so not installed"
	out=$(TC_LIB_DIR=$STAGE/usr/lib/$MA/tc tc qdisc add dev lo root "$kind" help 2>&1)
	echo "$out" | grep -q 'Unknown qdisc' && fail "tc does not load q_$kind.so: $out"
done

# ip link plugins: in the directory this ip reads, exporting <kind>_link_util
ip_dir=$(grep -a -o "/usr/lib/[a-z0-9_-]*/ip\b" /usr/sbin/ip | head -n1)
[ "$ip_dir" = "/usr/lib/$MA/ip" ] || fail "ip reads plugins from '$ip_dir', we install into /usr/lib/$MA/ip"
for so in "$ROOT"/build/tc/link_*.so; do
	[ -e "$so" ] || continue
	kind=$(basename "$so" .so); kind=${kind#link_}
	cmp -s "$so" "$STAGE/usr/lib/$MA/ip/link_$kind.so" || fail "link_$kind.so not installed"
	nm -D --defined-only "$so" | grep -q " ${kind}_link_util\$" ||
		fail "link_$kind.so does not export ${kind}_link_util"
done

# tools: installed, executable, and they answer -h
for tool in "$ROOT"/build/bin/*; do
	[ -x "$tool" ] || continue
	dst=$STAGE/usr/local/bin/$(basename "$tool")
	[ -x "$dst" ] || { fail "$(basename "$tool") not installed in /usr/local/bin"; continue; }
	"$dst" -h > /dev/null 2>&1 || fail "$(basename "$tool") -h fails"
done
[ -e "$STAGE/usr/local/include/linux/fabric_hdr.h" ] || fail "uapi header not installed"

# dkms.conf names exactly the modules the build makes
built=$(cd "$ROOT/kernel" && ls *.ko 2>/dev/null | sed 's/\.ko$//' | sort)
listed=$(sed -n 's/^BUILT_MODULE_NAME\[[0-9]*\]="\{0,1\}\([^"]*\)"\{0,1\}/\1/p' "$ROOT/dkms.conf" | sort)
[ "$built" = "$listed" ] || fail "dkms.conf lists '$(echo $listed)', the build makes '$(echo $built)'"

[ $FAIL = 0 ] && echo "staged install of $modules module(s) OK"
exit $FAIL
