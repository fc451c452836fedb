#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 120
#
# aoq configuration: defaults, the boundaries of every parameter (largest
# accepted, smallest rejected), extack messages, `tc -j` output field by
# field, lanes and weights, and that a rejected change keeps the old
# configuration.
#
#   [ns C] dummy0 (root qdisc aoq 1:, lanes 1:1 .. 1:40)
. ./lib.sh

require_cmd tc
require_module sch_aoq
ns_create C
ns_run C ip link add dummy0 type dummy || fatal "no dummy device"
ns_run C ip link set dummy0 up

tcq() { ns_exec C tc "$@"; }

qdisc_json() { tcq -j qdisc show dev dummy0 | tr -d ' \n'; }
opt_field() { qdisc_json | sed -n "s/.*\"options\":{[^}]*\"$1\":\([^,}]*\).*/\1/p"; }
# iproute2 6.1 prints classes as text only, even with -j
class_line() { tcq class show dev dummy0 classid "$1" | head -n1; }
class_has() {
	class_line "$1" | grep " $2\( \|\$\)" >/dev/null ||
		check_err 1 "class $1: '$(class_line "$1")' lacks '$2'"
}

accept() {
	local desc=$1 out; shift
	out=$(tcq "$@" 2>&1)
	check_err $? "$desc: rejected: $out"
}

reject() {
	local desc=$1 msg=$2 out; shift 2
	out=$(tcq "$@" 2>&1)
	check_fail $? "$desc: accepted"
	if [ -n "$msg" ] && ! echo "$out" | grep_quiet -E "$msg"; then
		check_err 1 "$desc: message '$out' does not match '$msg'"
	fi
}

Q="qdisc replace dev dummy0 root handle 1: aoq"
C="class add dev dummy0 parent 1: classid"

# --- defaults ------------------------------------------------------------------
accept "add with defaults" qdisc add dev dummy0 root handle 1: aoq
check_eq "default mode" '"aoq"' "$(opt_field mode)"
check_eq "default stall" 100000000 "$(opt_field stall)"
check_eq "default lane" 0 "$(opt_field default)"
check_eq "default segment" true "$(opt_field segment)"
check_eq "default message_limit" 256 "$(opt_field message_limit)"
log_test "defaults in tc -j"

out=$(tcq qdisc add dev dummy0 root aoq help 2>&1)
for word in mode stall default segment message_limit weight; do
	echo "$out" | grep_quiet "^ *$word " ||
		check_err 1 "tc ... aoq help does not explain $word: $out"
done
echo "$out" | grep_quiet "message_limit FRAMES"
check_err $? "help lacks the message_limit usage: $out"
log_test "tc ... aoq help lists every parameter"

# --- qdisc parameters ------------------------------------------------------------
for m in fbrr arr pbrr aoq; do
	accept "mode $m" $Q mode $m
	check_eq "mode $m" "\"$m\"" "$(opt_field mode)"
done
reject "mode drr" "Illegal" $Q mode drr
log_test "mode aoq | fbrr | arr | pbrr"

accept "stall 1ms" $Q stall 1ms
check_eq "stall 1ms" 1000000 "$(opt_field stall)"
accept "stall 60s" $Q stall 60s
check_eq "stall 60s" 60000000000 "$(opt_field stall)"
reject "stall 999us" "Illegal" $Q stall 999us
reject "stall 60.001s" "Illegal" $Q stall 60001ms
reject "stall 0" "Illegal" $Q stall 0
accept "stall back" $Q stall 100ms
log_test "stall 1ms..60s"

accept "default 40 (64)" $Q default 40
check_eq "default 64" 64 "$(opt_field default)"
accept "default 1:3" $Q default 1:3
check_eq "default 3" 3 "$(opt_field default)"
reject "default 41 (65)" "Illegal" $Q default 41
reject "default of another qdisc" "2:3 is not a class" $Q default 2:3
# without a handle tc cannot check the major: it says so
out=$(tcq qdisc change dev dummy0 root aoq default 2:3 2>&1)
check_err $? "default 2:3 without a handle refused: $out"
echo "$out" | grep_quiet "major of 2:3 is not checked"
check_err $? "no word on the unchecked major: '$out'"
accept "default 0" $Q default 0
log_test "default 0..64"

accept "segment off" $Q segment off
check_eq "segment off" false "$(opt_field segment)"
accept "segment on" $Q segment on
check_eq "segment on" true "$(opt_field segment)"
reject "segment maybe" "Illegal" $Q segment maybe
log_test "segment on/off"

accept "message_limit 1" $Q message_limit 1
check_eq "message_limit 1" 1 "$(opt_field message_limit)"
accept "message_limit 65535" $Q message_limit 65535
check_eq "message_limit 65535" 65535 "$(opt_field message_limit)"
reject "message_limit 0" "Illegal" $Q message_limit 0
reject "message_limit 65536" "Illegal" $Q message_limit 65536
reject "message_limit -1" "Illegal" $Q message_limit -1
reject "message_limit lots" "Illegal" $Q message_limit lots
check_eq "message_limit kept" 65535 "$(opt_field message_limit)"
tcq qdisc show dev dummy0 | grep_quiet "message_limit 65535 "
check_err $? "message_limit not in the text output: $(tcq qdisc show dev dummy0)"
accept "message_limit back" $Q message_limit 256
log_test "message_limit 1..65535"

accept "known state" $Q mode arr stall 20ms default 2 message_limit 40
reject "bad change" "" $Q mode fbrr stall 0 message_limit 7
check_eq "mode kept" '"arr"' "$(opt_field mode)"
check_eq "stall kept" 20000000 "$(opt_field stall)"
check_eq "default kept" 2 "$(opt_field default)"
check_eq "message_limit kept" 40 "$(opt_field message_limit)"
accept "back to aoq" $Q mode aoq stall 100ms default 0 message_limit 256
log_test "rejected change leaves the old configuration"

# --- lanes ---------------------------------------------------------------------------
accept "lane 1" $C 1:1 aoq
class_has 1:1 "weight 1"
accept "lane 64" $C 1:40 aoq weight 256
class_has 1:40 "weight 256"
reject "lane 65" "minor must be 1..64" $C 1:41 aoq
reject "weight 0" "Illegal" $C 1:2 aoq weight 0
reject "weight 257" "Illegal" $C 1:2 aoq weight 257
reject "duplicate lane" "" $C 1:1 aoq
reject "lane under a lane" "" class add dev dummy0 parent 1:1 classid 1:3 aoq
reject "estimator" "estimators are not supported" $C 1:4 estimator 1s 8s aoq
accept "lane 2 weight 3" $C 1:2 aoq weight 3
accept "change weight" class change dev dummy0 classid 1:2 aoq weight 5
class_has 1:2 "weight 5"
log_test "lanes 1..64, weights 1..256"

reject "weights outside aoq mode" "weights need mode aoq" $Q mode fbrr
check_eq "mode kept aoq" '"aoq"' "$(opt_field mode)"
accept "weights back to 1" class change dev dummy0 classid 1:2 aoq weight 1
accept "" class change dev dummy0 classid 1:40 aoq weight 1
accept "fbrr with unit weights" $Q mode fbrr
reject "weight in fbrr" "weights need mode aoq" class change dev dummy0 classid 1:2 aoq weight 2
class_has 1:2 "weight 1"
accept "aoq again" $Q mode aoq
log_test "weights need mode aoq"

accept "graft tbf" qdisc add dev dummy0 parent 1:2 handle 20: tbf rate 1mbit burst 10k limit 100k
tcq qdisc show dev dummy0 | grep "qdisc tbf 20: parent 1:2" >/dev/null
check_err $? "tbf not grafted under 1:2"
# a child deleted: the lane's new default child is in the device's list
# (tc qdisc show invisible), as a class's first one is; the graft once
# left it out
accept "delete tbf" qdisc del dev dummy0 parent 1:2 handle 20:
tcq qdisc show dev dummy0 invisible | grep "qdisc pfifo [0-9a-f]*: parent 1:2 " >/dev/null
check_err $? "no default child listed under 1:2 after its tbf went: $(tcq qdisc show dev dummy0 invisible | tr '\n' ' ')"
tcq qdisc show dev dummy0 invisible | grep "qdisc pfifo [0-9a-f]*: parent 1:1 " >/dev/null
check_err $? "no default child listed under 1:1: $(tcq qdisc show dev dummy0 invisible | tr '\n' ' ')"
accept "graft tbf again" qdisc add dev dummy0 parent 1:2 handle 20: tbf rate 1mbit burst 10k limit 100k
accept "graft netem" qdisc add dev dummy0 parent 1:1 handle 10: netem delay 1ms
accept "filter to 1:2" filter add dev dummy0 parent 1: protocol ip prio 1 u32 \
	match ip dport 5000 0xffff flowid 1:2
reject "delete lane with a filter" "filters still point" class del dev dummy0 classid 1:2
accept "delete filter" filter del dev dummy0 parent 1: prio 1
accept "delete lane" class del dev dummy0 classid 1:2
tcq class show dev dummy0 | grep "class aoq 1:2 " >/dev/null
check_fail $? "1:2 still listed after delete"
log_test "children grafted, lane delete refused while filters point to it"

tcq -s class show dev dummy0 classid 1:1 | grep "offered 0 used 0 frames 0" >/dev/null
check_err $? "lane statistics missing: $(tcq -s class show dev dummy0 classid 1:1)"
tcq -s class show dev dummy0 classid 1:1 | grep "abandoned 0 forced_tails 0" >/dev/null
check_err $? "lane forced_tails missing: $(tcq -s class show dev dummy0 classid 1:1)"
tcq -s class show dev dummy0 classid 1:1 | grep "max_msg_opps 0 count 0" >/dev/null
check_err $? "lane max_msg_opps missing: $(tcq -s class show dev dummy0 classid 1:1)"
tcq -s qdisc show dev dummy0 | grep "max_spread 0 max_msg_opps 0 " >/dev/null
check_err $? "qdisc statistics missing: $(tcq -s qdisc show dev dummy0)"
tcq -s qdisc show dev dummy0 | grep "abandoned 0 forced_tails 0 " >/dev/null
check_err $? "qdisc forced_tails missing: $(tcq -s qdisc show dev dummy0)"
json=$(tcq -s -j qdisc show dev dummy0 | tr -d ' \n')
for f in max_spread max_msg_opps forced_tails abandoned; do
	echo "$json" | grep "\"$f\":0" >/dev/null ||
		check_err 1 "qdisc statistic $f missing in JSON: $json"
done
log_test "statistics printed as text and JSON"

accept "delete qdisc" qdisc del dev dummy0 root
log_test "qdisc delete with lanes and children"

exit $EXIT_STATUS
