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
# Exit 0 when no scenario failed (skipped ones are fine).
cd "$(dirname "$0")" || exit 1
LIST=/etc/fabric-qos/demo-scenarios
if [[ -r $LIST ]]; then
	names=$(cat "$LIST")
else
	names=$(ls scenarios/*.conf | sed 's|.*/||; s|\.conf$||')
fi

failed=0
for name in $names; do
	out=/tmp/demo/$name
	start=$(date +%s)
	bash ./scenario.sh "scenarios/$name.conf" "$out" > /tmp/demo-run.out 2>&1
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
