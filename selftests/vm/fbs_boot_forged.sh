#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
# kernels: first
#
# fbs-boot's start signal from a forger (Documentation/trust.rst, "FBS").
# A follower begins slot 0 when the leader's signal went, which each copy
# gives as "I went N ns after the first"; any host can send one.
#
#   [L] eth0 --- p0 -+
#   [F] eth0 --- p1 -+- [S] sw0 (vcsw: floods broadcasts)
#   [X] eth0 --- p2 -+
#
# L leads and F follows a ring of two, with --no-restart (no qdisc: F
# prints how long before its end its slot 0 would have begun).  X
# broadcasts forged signals all the while, one every 50 us:
# 1. claiming 1.5 s after the first copy, to a follower without
#    --leader-mac: such a claim is refused (one of up to 4.3 s was taken,
#    and put every follower's slot 0 that far back, for good);
# 2. claiming 0.95 s, within that bound, from X's own address, to a
#    follower with --leader-mac L: refused as from another address.
# Each time F's slot 0 must have begun at L's signal, not at a forged
# one: less than the forged claim before F ended.  A forged copy taken
# puts slot 0 at least its claim back, on any machine; L's came 2 to
# 8 ms before in the fast VM, so only a stall of the guest as long as
# the claim (0.95 s) between the signal and F's report could fail it.
# A boot tests this only if a forged copy reached F in its ring's last
# round, which F counts among those it did not take; boots run until
# one did, up to five, and one must.  On a slow kernel (make
# check-debug) the flood is sparser, and a follower late by as much as
# the claim, or one whose socket lost every copy, is an expected
# failure.
. ./lib.sh

require_cmd ip fbs-boot mac-flood
require_module vcsw

mac() { printf '02:fb:00:00:00:%02x' "$1"; }
FLOOD_US=50
[[ $FQ_SLOW = 1 ]] && FLOOD_US=200
ns_create S
ns_run S ip link add sw0 type vcsw || fatal "vcsw"
ns_run S ip link set sw0 up
i=0
for h in L F X; do
	switch_host $h p$i "$(mac $i)" "10.63.0.$((i + 1))/24"
	i=$((i + 1))
done

# a start signal as fbs-boot sends it: "FBSB", type 3, the ns after the
# first copy, each in network order
forged() { printf '46425342%08x%08x' 3 "$1"; }

# boot FORGED_AFTER_NS FOLLOWER_OPTION...: one ring while X floods; sets
# LAG_US (how long before F's end its slot 0 began) and NOT_TAKEN (the
# forged copies F counted, whichever reason); fails if F's ring did
rc_f=0
boot() {
	local after=$1 flood f out
	shift

	ns_bg X mac-flood -i eth0 --count 1000000 --interval $FLOOD_US \
		--payload "$(forged "$after")" > /dev/null 2>&1
	flood=$BG_PID
	ns_bg F fbs-boot --left "$(mac 0)" --rounds 2 --follow "$@" --dev eth0 --timeout 30 \
		--no-restart > "$TMP_DIR/f.out" 2>&1
	f=$BG_PID
	ns_run L fbs-boot --left "$(mac 1)" --rounds 2 --leader --dev eth0 --timeout 30 \
		--no-restart > "$TMP_DIR/l.out" 2>&1 || fatal "the leader's ring: $(cat "$TMP_DIR/l.out")"
	bg_wait $f
	rc_f=$?
	kill $flood 2>/dev/null
	bg_wait $flood
	out=$(cat "$TMP_DIR/f.out")
	log_info "follower: $out"
	LAG_US=$(echo "$out" | sed -n 's/.*start signal, \([0-9.]*\) us before.*/\1/p')
	NOT_TAKEN=$(echo "$out" |
		sed -n 's/.*not taken: \([0-9]*\) from other addresses, \([0-9]*\) claiming.*/\1 \2/p' |
		awk '{ print $1 + $2 }')
	NOT_TAKEN=${NOT_TAKEN:-0}
	return $rc_f
}

# part DESC FORGED_AFTER_NS FOLLOWER_OPTION...
part() {
	local desc=$1 after=$2 n tested=0
	shift 2

	for n in 1 2 3 4 5; do
		if ! boot "$after" "$@"; then
			xfail_on_slow check_err 1 "$desc, boot $n: the follower's ring failed"
			continue
		fi
		awk -v l="${LAG_US:-x}" -v max=$((after / 1000)) \
			'BEGIN { exit !(l ~ /^[0-9.]+$/ && l < max) }'
		xfail_on_slow check_err $? "$desc, boot $n: slot 0 began ${LAG_US:-?} us before the end, want the leader's signal (under the forged $((after / 1000)) us)"
		[ "$NOT_TAKEN" -gt 0 ] && { tested=$n; break; }
	done
	[ "$tested" -gt 0 ]
	xfail_on_slow check_err $? "$desc: in none of 5 boots did a forged copy reach the follower in its last round"
	log_test "$desc: not taken, slot 0 at the leader's signal (boot $tested)"
}

part "a start signal claiming 1.5 s after the first" 1500000000
part "one from another address than --leader-mac" 950000000 --leader-mac "$(mac 0)"

exit $EXIT_STATUS
