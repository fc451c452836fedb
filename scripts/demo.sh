#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: run the scenarios of selftests/demo/scenarios/ (the paper's
# architectures on the Table 1 mix) in one boot of the deterministic VM,
# collect their results into build/demo/NAME/, then print one table per
# traffic class comparing the architectures and write build/demo/report.md
# with gnuplot plots (scripts/demo-report.sh).  Documentation/demo.rst.
#
# Usage: scripts/demo.sh [--live] [SCENARIO...]
#   SCENARIO   names of selftests/demo/scenarios/*.conf (default: all;
#              those that need what is not built yet are skipped);
#              NAME@qosN: NAME with the QoS classes at N % of the load;
#              NAME@KEY=VALUE...: NAME with those lines added
#              (selftests/demo/spec.sh);
#              sweep: the QoS-load sweep, every architecture at each
#              load of $SWEEP_LOADS (default 10 30 50 60 70 80 90);
#              scale: the fabric's size points, $SCALE_POINTS
#   --live     run on this host's kernel instead of the VM (root; the
#              modules and tc plugin installed: make install)
# Environment: V=1 shows the VM console live.
set -uo pipefail
. "$(dirname "$0")/lib.sh"
. "$FQ_ROOT/selftests/demo/spec.sh"
# what they measure needs the deterministic VM's -icount: never the slow
# kernels' boot of make check-debug (FQ_VM_SLOW, fq_vm_boot)
unset FQ_VM_SLOW

OUT=$FQ_BUILD/demo
KIND=deterministic
LIVE=0
if [ "${1:-}" = --live ]; then
	LIVE=1
	shift
fi
SCEN_DIR=$FQ_ROOT/selftests/demo/scenarios
# the sweep: the paper's five architectures (Figs. 6 to 8)
SWEEP_ARCHS="trad2 trad4 simple2 advanced2 ideal"
SWEEP_LOADS=${SWEEP_LOADS:-10 30 50 60 70 80 90}
# the fabric's size (Documentation/demo.rst, "How large a fabric"): the
# 16-host fabric as the demo runs it and at twice its link rate (the
# serialisation times halved), then 64 hosts (8-ary 2-tree of 16-port
# switches, the paper's switch, and 4-ary 3-tree, whose longest path has
# six links, not four: its targets one and a half times) at the same
# 5 Mbit/s.  A link much slower than 5 Mbit/s needs fewer multimedia
# flows (@flows=...+multimedia:2+...): each flow's mean frame (rate x
# interval) must stay above fabric-meter's 1 KB.
SCALE_POINTS=${SCALE_POINTS:-fabric-advanced2
fabric-advanced2@link=10mbit@control_target=8ms@eligibility=4ms@frame_latency=10ms
fabric-advanced2@tree=8,2
fabric-advanced2@tree=4,3@control_target=24ms@frame_latency=30ms}
names=
for n in ${*:-$(ls "$SCEN_DIR"/*.conf | sed 's|.*/||; s|\.conf$||')}; do
	if [ "$n" = sweep ]; then
		for q in $SWEEP_LOADS; do
			[[ $q =~ ^[0-9]+$ ]] && [ "$q" -ge 1 ] && [ "$q" -le 99 ] ||
				fq_die "SWEEP_LOADS: '$q' is not a QoS load of 1 .. 99 (%)"
			for a in $SWEEP_ARCHS; do names+=" $a@qos$q"; done
		done
		continue
	fi
	if [ "$n" = scale ]; then
		names+=" "$(echo $SCALE_POINTS)
		continue
	fi
	names+=" $n"
done
# tree_namespaces SPEC: the namespaces of its @tree=K,N (hosts and
# switches), or nothing when it changes no tree; fails on a tree the
# budget below cannot hold
tree_namespaces() {
	local t k l

	[[ $1 == *@tree=* ]] || return 0
	t=${1#*@tree=}
	t=${t%%@*}
	k=${t%,*} l=${t#*,}
	[[ $k =~ ^[0-9]+$ && $l =~ ^[0-9]+$ ]] && [ "$k" -ge 2 ] && [ "$k" -le 16 ] &&
		[ "$l" -ge 1 ] && [ "$l" -le 4 ] || return 1
	echo $((k ** l + l * k ** (l - 1)))
}
for n in $names; do
	spec_overrides "$n" > /dev/null || fq_die "bad scenario name '$n'"
	[ -r "$SCEN_DIR/$(spec_conf "$n").conf" ] ||
		fq_die "no scenario '$(spec_conf "$n")' in ${SCEN_DIR#"$FQ_ROOT"/}"
	tree_namespaces "$n" > /dev/null || fq_die "$n: want @tree=K,N (K 2 .. 16, N 1 .. 4)"
done

rm -rf "$OUT"
mkdir -p "$OUT"
start=$(date +%s)
failed=0
# the kernel the results come from, for the report (demo-report.sh)
if [ $LIVE = 1 ]; then
	echo "$(uname -r) (live host, $(uname -v))" > "$OUT/kernel.txt"
else
	fq_kernel_label > "$OUT/kernel.txt"
fi
echo "# kernel $(cat "$OUT/kernel.txt")"

if [ $LIVE = 1 ]; then
	[ "$(id -u)" = 0 ] || fq_die "--live needs root"
	export PATH=$FQ_BUILD/bin:$PATH
	for n in $names; do
		echo "# scenario $n (live host $(uname -r))"
		changes=()
		lines=$(spec_overrides "$n")
		[ -z "$lines" ] || mapfile -t changes <<< "$lines"
		conf=$SCEN_DIR/$(spec_conf "$n").conf
		n=$(spec_name "$n")
		bash "$FQ_ROOT/selftests/demo/scenario.sh" "$conf" "$OUT/$n" ${changes[@]+"${changes[@]}"}
		rc=$?
		case $rc in
		0) echo "ok $n" ;;
		4) echo "ok $n # SKIP"; rm -rf "${OUT:?}/$n" ;;
		*) echo "not ok $n # exit $rc"; failed=1 ;;
		esac
	done
else
	list=$OUT/list
	# guest seconds: a scenario runs about 5 (4 of traffic), at most 20;
	# a fabric (fabric-*) builds 24 namespaces and runs 16 hosts' worth
	# of senders and receivers first: up to 300, and a larger tree
	# (@tree=K,N) in proportion to its namespaces
	guest=120
	for n in $names; do
		case $n in
		fabric-*@tree=*) guest=$((guest + 300 * $(tree_namespaces "$n") / 24)) ;;
		fabric-*) guest=$((guest + 300)) ;;
		*) guest=$((guest + 30)) ;;
		esac
	done
	echo "demo/scenarios $guest /opt/fabric-qos/selftests/demo/demo.sh" > "$list"
	FQ_DEMO_SCENARIOS="$names" "$FQ_ROOT/scripts/mkinitramfs.sh" "$OUT/initrd.gz" "$list" \
		> "$OUT/initramfs.log" 2>&1 ||
		{ cat "$OUT/initramfs.log"; fq_die "building the initramfs failed"; }
	# guest seconds per scenario: its run plus setup; budget in wall seconds
	budget=$((120 + $(fq_vm_budget "$KIND" $((guest - 120)))))
	fq_vm_boot "$KIND" "$OUT/initrd.gz" "$OUT/console.log" "$OUT/results.ktap" "$budget"
	vm_rc=$?
	echo "# $KIND VM ran $(( $(date +%s) - start ))s (qemu exit $vm_rc), console: ${OUT#"$FQ_ROOT"/}/console.log"
	# the files between the markers, into build/demo/NAME/FILE
	fq_demo_files "$OUT/results.ktap" "$OUT"
	while read -r n res rest; do
		case $res in
		ok) echo "ok $n${rest:+ # $rest}" ;;
		skip) echo "ok $n # SKIP ${rest#SKIP: }"; rm -rf "${OUT:?}/$n" ;;
		*) echo "not ok $n # $rest"; failed=1 ;;
		esac
	done < "$OUT/summary.txt"
	if fq_demo_kernel_log_bad "$OUT"; then
		failed=1
	elif ! grep -q '^# FQ-VM-DONE' "$OUT/results.ktap"; then
		echo "not ok vm # the VM did not finish (qemu exit $vm_rc)"
		tail -n 20 "$OUT/console.log" | sed 's/^/#   /'
		failed=1
	fi
fi

"$FQ_ROOT/scripts/demo-report.sh" "$OUT" || failed=1
echo
echo "# kernel $(cat "$OUT/kernel.txt")"
echo "make demo took $(( $(date +%s) - start ))s; report: ${OUT#"$FQ_ROOT"/}/report.md"
exit $failed
