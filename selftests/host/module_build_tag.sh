#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 60
#
# The modules' build tag (Makefile: BUILT_FOR, kernel/.built-for): a
# check's build (FQ_CHECK_BUILD=1) compiles every object itself, so its
# log shows every warning; a build after it that compiles nothing keeps
# the check's objects.  scripts/mkinitramfs.sh runs such a build (make
# install-files) after each of the check's builds: it used to wipe the
# objects and compile every module again, twice per kernel and check.
# One that does compile something, or fails halfway, leaves the tag
# without "(make check)", so the next check compiles everything again.
#
# Kbuild is played by a stub kernel tree whose "modules" compiles (touches)
# each kernel/*.c's object when it is missing or older, and prints it.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tree" "$work/kdir" "$work/kdir2"
cp "$ROOT/Makefile" "$work/tree/"
cp -r "$ROOT/kernel" "$work/tree/"
(cd "$work/tree/kernel" && rm -f ./*.o ./*.ko ./*.mod ./*.mod.c ./.*.cmd modules.order .built-for)
for k in kdir kdir2; do
	cat > "$work/$k/Makefile" <<'EOF'
modules:
	@for c in $(M)/kernel/*.c; do o=$${c%.c}.o; \
		if [ ! -e $$o ] || [ $$c -nt $$o ]; then touch $$o; echo "CC $$o"; fi; \
		[ -z "$$STUB_FAIL" ] || exit 1; done
EOF
done
sources=$(ls "$work/tree/kernel/"*.c | wc -l)

fails=0
# build NAME KDIR EXPECTED_COMPILED EXPECTED_TAG_SUFFIX [VAR=VALUE...]
build() {
	local name=$1 kdir=$2 want=$3 suffix=$4 got tag
	shift 4
	got=$(env "$@" make -s -C "$work/tree" modules KDIR="$work/$kdir" KREL=stub \
		PAHOLE=false 2>/dev/null | grep -c '^CC ')
	tag=$(cat "$work/tree/kernel/.built-for" 2>/dev/null)
	[ "$got" = "$want" ] ||
		{ echo "FAIL: $name: compiled $got objects, expected $want"; fails=$((fails + 1)); }
	[ "$tag" = "$work/$kdir$suffix" ] ||
		{ echo "FAIL: $name: tag '$tag', expected '$work/$kdir$suffix'"; fails=$((fails + 1)); }
}

build "first build" kdir "$sources" ""
build "check after a build of its own" kdir "$sources" " (make check)" FQ_CHECK_BUILD=1
build "install after a check" kdir 0 " (make check)"
build "the next check" kdir 0 " (make check)" FQ_CHECK_BUILD=1
touch "$work/tree/kernel/$(ls "$work/tree/kernel" | grep -m1 '\.c$')"
build "a build that compiles one object" kdir 1 ""
build "the check after it" kdir "$sources" " (make check)" FQ_CHECK_BUILD=1
touch "$work/tree/kernel/$(ls "$work/tree/kernel" | grep -m1 '\.c$')"
build "a build that fails after one object" kdir 1 "" STUB_FAIL=1
build "the check after that" kdir "$sources" " (make check)" FQ_CHECK_BUILD=1
build "a build for another kernel" kdir2 "$sources" ""
build "the check for that kernel" kdir2 "$sources" " (make check)" FQ_CHECK_BUILD=1

[ $fails = 0 ] && echo "ok: $sources objects; every build compiled what its tag calls for"
[ $fails = 0 ]
