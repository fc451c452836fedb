#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# pktgen-wait.sh: wait, in the network namespace it runs in, until every
# pktgen device shows a run's result ("Result: OK: <usec>(c..."), not a
# command's ("Result: OK: count=..."); exit 1 after 10 minutes.
#
# pktgen's "start" to pgctrl does not wait for the run: it flags it,
# sleeps 125 ms and returns at once if its thread (which looks every
# 100 ms) has not taken the run by then, which a host that stops running
# the VM for a moment makes happen.  Whoever reads the counts or starts
# the next run after a start runs this first.  A device must have been
# written to since its last run, or its old result counts.
# Used by lib.sh's pktgen() and by ../bench/lib.sh's pg_run().

# result FILE: its "Result:" line in r
result() {
	r=
	while read -r l; do
		case $l in Result:*) r=$l ;; esac
	done < "$1"
}

# ran FILE: its Result is a run's
ran() {
	result "$1"
	case $r in "Result: OK: "[0-9]*) return 0 ;; esac
	return 1
}

for d in /proc/net/pktgen/*; do
	case ${d##*/} in kpktgend_*|pgctrl) continue ;; esac
	n=0
	until ran "$d"; do
		n=$((n + 1))
		[ $n -le 6000 ] || {
			echo "pktgen: ${d##*/}: no run result: $r" >&2
			exit 1
		}
		sleep 0.1
	done
done
