#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make profile: where a benchmark case's guest instructions go, by kernel
# function (Documentation/benchmarks.rst, "Profiles").
#
# Boots the deterministic VM once with the insn-profile QEMU plugin
# (scripts/insn-profile.c), which counts every kernel instruction the
# guest executes by address, runs one case of bench/qdisc_pps in it
# (selftests/bench/profile_case.sh) and resolves the counts with the
# guest's kallsyms.  The whole boot is counted: boot-time functions show
# up too, but the same in every profile, so compare two profiles by
# function (scripts/insn-profile-report.py diff) rather than by total.
#
# Usage: scripts/profile.sh "CASE PATH FLOWS CLASSES [PACKETS]" [TAG]
#   CASE a case of selftests/bench/cases.sh, PATH uncongested or
#   backlogged, PACKETS per measurement (default 200000).  Writes
#   build/profile/TAG.{counts,kallsyms,packets,txt}; TAG defaults to
#   CASE-PATH-FLOWS-CLASSES.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
unset FQ_VM_SLOW	# counts need the deterministic VM's -icount

read -r CASE PATHNAME FLOWS CLASSES PACKETS <<< "${1:-}"
[ -n "${CLASSES:-}" ] ||
	fq_die 'usage: make profile P="CASE PATH FLOWS CLASSES [PACKETS]" [TAG=NAME]'
[[ $FLOWS =~ ^[0-9]+$ && $CLASSES =~ ^[0-9]+$ && ${PACKETS:=200000} =~ ^[0-9]+$ ]] ||
	fq_die "FLOWS, CLASSES and PACKETS are numbers"
# refused here rather than after the VM's boot
. "$FQ_ROOT/selftests/bench/cases.sh"
bench_case_has_path "$CASE" "$PATHNAME" ||
	fq_die "no benchmark case '$CASE' measured '$PATHNAME' in selftests/bench/cases.sh" \
		"(PATH: uncongested or backlogged; baselines and mq: uncongested only;" \
		"shuffled: backlogged only)"
TAG=${2:-$CASE-$PATHNAME-$FLOWS-$CLASSES}
OUT=$FQ_BUILD/profile
mkdir -p "$OUT"
rm -f "$OUT/$TAG".*

cc -O2 -Wall -Wextra -Wno-unused-parameter -shared -fPIC -fvisibility=hidden \
	-o "$OUT/insn-profile.so" "$FQ_ROOT/scripts/insn-profile.c" ||
	fq_die "building the QEMU plugin failed"

list=$OUT/list
echo "bench/profile_case 1500 /opt/fabric-qos/selftests/bench/profile_case.sh" > "$list"
FQ_PROFILE_CASE="$CASE $PATHNAME $FLOWS $CLASSES $PACKETS" \
	"$FQ_ROOT/scripts/mkinitramfs.sh" "$OUT/initrd.gz" "$list" \
	> "$OUT/initramfs.log" 2>&1 ||
	{ cat "$OUT/initramfs.log"; fq_die "building the initramfs failed"; }

# the CPU make bench measures on (bench.sh)
FQ_VM_CPU=${FQ_VM_CPU:-max} \
FQ_VM_PLUGIN_ARGS="-plugin $OUT/insn-profile.so,out=$OUT/$TAG.counts" \
	fq_vm_boot deterministic "$OUT/initrd.gz" "$OUT/console.log" \
		"$OUT/results.ktap" "$(fq_vm_budget deterministic 1500)"
vm_rc=$?

tr -d '\r' < "$OUT/results.ktap" | awk -v syms="$OUT/$TAG.kallsyms" \
	-v pk="$OUT/$TAG.packets" '
	/^# PROFILE-KALLSYMS-BEGIN/ { in_syms = 1; next }
	/^# PROFILE-KALLSYMS-END/ { in_syms = 0; next }
	in_syms { sub(/^# /, ""); print > syms; next }
	/^# profile packets=/ { sub(/^# profile packets=/, ""); print > pk }
	/^# bench qdisc / { sub(/^# /, ""); print }
	/^not ok / { print }'
if [ "$vm_rc" != 0 ] || [ ! -s "$OUT/$TAG.counts" ] || [ ! -s "$OUT/$TAG.packets" ]; then
	tail -n 30 "$OUT/console.log"
	fq_die "the profile did not complete (qemu exit $vm_rc); console: $OUT/console.log"
fi
python3 "$FQ_ROOT/scripts/insn-profile-report.py" symbols "$OUT/$TAG" > "$OUT/$TAG.txt" ||
	fq_die "resolving the counts failed"
head -n 32 "$OUT/$TAG.txt"
echo "profile: ${OUT#"$FQ_ROOT"/}/$TAG.txt"
