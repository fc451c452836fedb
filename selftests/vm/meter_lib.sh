#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Helpers of the fabric-meter tests (meter_*.sh), sourced after lib.sh.
#
#   meter_recv NS NAME ARGS...   fabric-meter recv in NS, CSV results in
#                                $TMP_DIR/NAME.csv; returns once bound,
#                                pid in $METER_PID
#   meter_csv FILE CLASS COLUMN  a column of a class's line in a CSV result
#   within VALUE LO HI           true when LO <= VALUE <= HI (decimals)

meter_recv()
{
	local ns=$1 name=$2
	shift 2

	ns_bg "$ns" fabric-meter recv --csv --quiet --ready "$TMP_DIR/$name.ready" "$@" \
		> "$TMP_DIR/$name.csv" 2> "$TMP_DIR/$name.err"
	METER_PID=$BG_PID
	wait_for 10 test -e "$TMP_DIR/$name.ready" ||
		fatal "fabric-meter recv $name did not start: $(cat "$TMP_DIR/$name.err")"
}

meter_csv()
{
	awk -F, -v cls="$2" -v col="$3" '
		NR == 1 { for (i = 1; i <= NF; i++) idx[$i] = i; next }
		$2 == cls && (col in idx) { print $idx[col]; exit }' "$1"
}

within()
{
	awk -v v="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(v != "" && v + 0 >= lo + 0 && v + 0 <= hi + 0) }'
}
