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
# A name NAME@qosN runs scenarios/NAME.conf with qos_load=N (the QoS
# classes N % of the load, best effort the rest): one point of the
# QoS-load sweep (make demo S=sweep, Documentation/demo.rst).  Its
# results are named NAME-qosN.
#
# Exit 0 when no scenario failed (skipped ones are fine).
cd "$(dirname "$0")" || exit 1
LIST=/etc/fabric-qos/demo-scenarios
if [[ -r $LIST ]]; then
	names=$(cat "$LIST")
else
	names=$(ls scenarios/*.conf | sed 's|.*/||; s|\.conf$||')
fi

failed=0
for spec in $names; do
	name=${spec/@qos/-qos}
	out=/tmp/demo/$name
	start=$(date +%s)
	qos=()
	[[ $spec == *@qos* ]] && qos=("qos_load=${spec##*@qos}")
	bash ./scenario.sh "scenarios/${spec%@qos*}.conf" "$out" "${qos[@]}" > /tmp/demo-run.out 2>&1
	rc=$?
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
