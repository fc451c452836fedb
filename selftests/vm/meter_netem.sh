#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 60
# vm: deterministic
# kernels: first
#
# fabric-meter measures a known delay: netem adds 5 ms on the path, the
# one-way latency (mean, p50, p99) and the round trip through a reflector
# (netem on the way out only) come out within 10 % of 5 ms, with nothing
# lost.
#
#   [ns A] veth0 (netem delay 5ms) ------> veth1 [ns B]
#     10.21.0.1    fabric-meter send          10.21.0.2  recv / reflect
. ./lib.sh
. ./meter_lib.sh

require_cmd tc fabric-meter
two_hosts 21 quiet
ns_run A tc qdisc add dev veth0 root netem delay 5ms || fatal "netem"

# --- one way -------------------------------------------------------------
meter_recv B oneway --port 5201 --duration 10
ns_run A fabric-meter send --dst 10.21.0.2 --port 5201 --duration 1 --quiet \
	--class cbr,rate=800k,size=500,name=probe > "$TMP_DIR/send.out"
check_err $? "fabric-meter send failed"
bg_wait "$METER_PID"
check_err $? "fabric-meter recv failed: $(cat "$TMP_DIR/oneway.err")"
cat "$TMP_DIR/oneway.csv" | sed 's/^/INFO: /'

f=$TMP_DIR/oneway.csv
sent=$(meter_csv "$f" probe sent)
log_info "sent $sent received $(meter_csv "$f" probe received)" \
	"mean $(meter_csv "$f" probe lat_mean_us) us p50 $(meter_csv "$f" probe lat_p50_us)" \
	"p99 $(meter_csv "$f" probe lat_p99_us) max $(meter_csv "$f" probe lat_max_us)"
xfail_on_slow check_eq "datagrams sent (200 pps for 1 s)" 200 "$sent"
check_eq "received" "$sent" "$(meter_csv "$f" probe received)"
check_eq "lost" 0 "$(meter_csv "$f" probe lost)"
for col in lat_mean_us lat_p50_us lat_p99_us; do
	v=$(meter_csv "$f" probe $col)
	within "$v" 4500 5500
	xfail_on_slow check_err $? "$col = $v us, want 5000 us +- 10 %"
done
log_test "one-way latency through netem delay 5ms within 10 %"

# --- round trip ------------------------------------------------------------
ns_bg B fabric-meter reflect --port 5202 --duration 10 --quiet \
	--ready "$TMP_DIR/refl.ready" > /dev/null
REFL=$BG_PID
wait_for 10 test -e "$TMP_DIR/refl.ready" || fatal "reflector did not start"
ns_run A fabric-meter send --dst 10.21.0.2 --port 5202 --duration 1 --rtt --csv --quiet \
	--class cbr,rate=800k,size=500,name=probe > "$TMP_DIR/rtt.csv"
check_err $? "fabric-meter send --rtt failed"
sed 's/^/INFO: /' "$TMP_DIR/rtt.csv"
f=$TMP_DIR/rtt.csv
xfail_on_slow check_eq "datagrams sent (200 pps for 1 s)" 200 "$(meter_csv "$f" probe sent)"
check_eq "round trips" "$(meter_csv "$f" probe sent)" "$(meter_csv "$f" probe received)"
for col in lat_mean_us lat_p50_us lat_p99_us; do
	v=$(meter_csv "$f" probe $col)
	within "$v" 4500 5500
	xfail_on_slow check_err $? "round trip $col = $v us, want 5000 us +- 10 %"
done
kill "$REFL" 2>/dev/null
log_test "round trip through a reflector within 10 %"

# --- an unreachable peer is an error, not an empty run ------------------------
ns_run A fabric-meter send --dst 10.21.0.2 --port 5299 --duration 1 --wait 0.5 --quiet \
	--class control,rate=100k > /dev/null 2> "$TMP_DIR/unreach.err"
rc=$?
check_eq "exit status without a receiver" 3 "$rc"
grep -q "no answer from 10.21.0.2 port 5299" "$TMP_DIR/unreach.err"
check_err $? "message: $(cat "$TMP_DIR/unreach.err")"
log_test "no receiver: exit 3 with a clear message"

exit $EXIT_STATUS
