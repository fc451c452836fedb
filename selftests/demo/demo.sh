#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 900
# vm: deterministic
#
# `make demo` inside the VM: run every scenario named in
# /etc/fabric-qos/demo-scenarios (default: all of scenarios/), one after
# the other, and print each one's result files between markers for
# scripts/demo.sh on the host:
#
#   FQ-DEMO-FILE NAME/FILE
#   ...contents...
#   FQ-DEMO-EOF
#   FQ-DEMO-RESULT NAME ok|skip|fail [reason]
#
# A name may carry changes to its scenario file (spec.sh): NAME@qosN
# runs scenarios/NAME.conf with qos_load=N, one point of the QoS-load
# sweep (make demo S=sweep); NAME@KEY=VALUE with that line added, as the
# fabric's size points (make demo S=scale).  Documentation/demo.rst.
#
# Exit 0 when no scenario failed (skipped ones are fine).
cd "$(dirname "$0")" || exit 1
. ./spec.sh
LIST=/etc/fabric-qos/demo-scenarios
if [[ -r $LIST ]]; then
	names=$(cat "$LIST")
else
	names=$(ls scenarios/*.conf | sed 's|.*/||; s|\.conf$||')
fi

failed=0
for spec in $names; do
	name=$(spec_name "$spec")
	out=/tmp/demo/$name
	start=$(date +%s)
	changes=()
	if lines=$(spec_overrides "$spec" 2> /tmp/demo-run.out); then
		[[ -z $lines ]] || mapfile -t changes <<< "$lines"
		bash ./scenario.sh "scenarios/$(spec_conf "$spec").conf" "$out" ${changes[@]+"${changes[@]}"} \
			> /tmp/demo-run.out 2>&1
		rc=$?
	else
		rc=2
	fi
	sed 's/^/  /' /tmp/demo-run.out
	for f in "$out"/*; do
		[[ -f $f ]] || continue
		echo "FQ-DEMO-FILE $name/${f##*/}"
		cat "$f"
		echo "FQ-DEMO-EOF"
	done
	case $rc in
	0) echo "FQ-DEMO-RESULT $name ok $(( $(date +%s) - start ))s" ;;
	4) echo "FQ-DEMO-RESULT $name skip $(grep SKIP /tmp/demo-run.out | tail -n1)" ;;
	*) echo "FQ-DEMO-RESULT $name fail exit $rc"; failed=1 ;;
	esac
	rm -rf "$out"
done
exit $failed
