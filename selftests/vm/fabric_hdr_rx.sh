#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 240
#
# Receive path of fabric_hdr.ko: valid frames are stripped and delivered
# intact and in order, late frames are counted with their lateness, and each
# kind of malformed frame is dropped, counted under its own reason and never
# reaches a socket.
#
#   +---------------------------+          +---------------------------+
#   | netns A                   |          | netns B     fabric_hdr rx |
#   |   fabric-send             |          |   udp-sink 10.0.0.2:5000  |
#   |                           |          |   fabric-stat             |
#   |   va 10.0.0.1/24 ---------+---veth---+--------- vb 10.0.0.2/24   |
#   +---------------------------+          +---------------------------+
#
#   netns C: vb moves there at the end, to check its entry goes away.
#
# Frames: Ethernet(dst vb, 0x88B5) | fabric header | IPv4 | UDP | payload.

source "$(dirname "$0")/lib.sh"

IP_A=10.0.0.1
IP_B=10.0.0.2
MAC_B=02:fa:b0:00:00:02
PORT=5000
# The sink exits as soon as it has its datagrams; the timeout only ends a
# failed wait.  It spans every step between sink_start and sink_check
# (test_malformed: 11 sends and their statistics checks), so it must not
# depend on how fast the host runs them: 20 s failed when a loaded
# machine's fast VM took 30 s for those steps.
SINK_TIMEOUT_MS=150000
STAT_TIMEOUT_S=10

# bytes after the fabric header of one of our frames: IPv4 + UDP + payload
inner_len()
{
	echo $((20 + 8 + ${#1}))
}

# All from one CPU: veth queues a frame on the sending CPU's backlog, and
# a marker sent from the other could overtake what came before it.
send()
{
	ns_run A taskset -c 0 fabric-send -i va --dst-mac "$MAC_B" --src-ip "$IP_A" \
		--dst-ip "$IP_B" --dport "$PORT" "$@"
}

stats_json()
{
	ns_exec B fabric-stat -j vb | grep '"ifindex"'
}

stat_is()
{
	[[ $(json_u64 "$(stats_json 2>/dev/null)" "$1") == "$2" ]]
}

# stats_expect KEY=VALUE...: each counter of vb is exactly VALUE; "late_hist"
# is compared as the whole comma-separated list.
stats_expect()
{
	local json kv key want got

	json=$(stats_json)
	check_err $? "fabric-stat -j vb failed"
	for kv in "$@"; do
		key=${kv%%=*}
		want=${kv#*=}
		if [[ $key == late_hist ]]; then
			got=$(json_hist "$json")
		else
			got=$(json_u64 "$json" "$key")
		fi
		check_eq "$key" "$want" "$got"
	done
}

# A histogram with COUNT in bucket B and 0 elsewhere.
hist_with()
{
	local b=$1 count=$2 i out=

	for ((i = 0; i < 16; i++)); do
		((i == b)) && out+=$count || out+=0
		((i < 15)) && out+=,
	done
	echo "$out"
}

setup()
{
	require_root
	require_cmd ip taskset modprobe modinfo fabric-send fabric-stat udp-sink
	require_module veth
	LOADED_BEFORE=0
	module_is_loaded fabric_hdr && LOADED_BEFORE=1
	require_module fabric_hdr
	tmp_dir_create

	ns_create A
	ns_create B
	veth_create A va "$IP_A/24" B vb "$IP_B/24" "$MAC_B"
}

test_valid()
{
	local i expected= bytes=0 p

	sink_start B valid "$IP_B" "$PORT" 5 "$SINK_TIMEOUT_MS"
	for i in 1 2 3 4 5; do
		p="valid-$i"
		send --ttd 2000000 --flow 7 --seq "$i" --payload "$p"
		check_err $? "fabric-send $p"
		expected+="$p"$'\n'
		bytes=$((bytes + $(inner_len "$p")))
	done
	sink_check valid "${expected%$'\n'}"
	wait_for "$STAT_TIMEOUT_S" stat_is rx_frames 5
	stats_expect rx_frames=5 rx_bytes=$bytes late=0 late_max_ns=0 \
		late_hist="$(hist_with 0 0)" drop_short=0 drop_version=0 \
		drop_inner_type=0 drop_truncated=0 drop_nomem=0 drop_link_msg=0
	log_test "valid frames: 5 delivered intact and in order, counted"
	RX_BYTES=$bytes
}

test_late()
{
	local i expected= p

	sink_start B late "$IP_B" "$PORT" 3 "$SINK_TIMEOUT_MS"
	for i in 1 2 3; do
		p="late-$i"
		send --ttd -5000000 --seq "$((10 + i))" --payload "$p"
		check_err $? "fabric-send $p"
		expected+="$p"$'\n'
		RX_BYTES=$((RX_BYTES + $(inner_len "$p")))
	done
	sink_check late "${expected%$'\n'}"
	wait_for "$STAT_TIMEOUT_S" stat_is rx_frames 8
	# 5000 us late: bucket 13 holds [4096, 8192) us
	stats_expect rx_frames=8 rx_bytes=$RX_BYTES late=3 \
		late_max_ns=5000000 late_hist="$(hist_with 13 3)" \
		drop_short=0 drop_version=0 drop_inner_type=0 \
		drop_truncated=0 drop_nomem=0 drop_link_msg=0
	log_test "late frames: delivered, late 3, max 5 ms, bucket [4096,8192) us"
}

test_malformed()
{
	local kind key
	local -A want=([short]=0 [version]=0 [inner_type]=0 [truncated]=0 [link_msg]=0)

	# A valid marker sent after all bad frames must be the first datagram:
	# anything passed up from a bad frame would arrive before it.
	sink_start B malformed "$IP_B" "$PORT" 1 "$SINK_TIMEOUT_MS"
	# ctrl: a control frame, which only a qdisc with credits on takes;
	# B has none, so it is dropped, and counted (it once was not)
	for kind in short version inner-type truncated ctrl; do
		key=${kind/-/_}
		[ "$kind" = ctrl ] && key=link_msg
		send --malform "$kind" --count 2 --payload "bad-$kind"
		check_err $? "fabric-send --malform $kind"
		want[$key]=2
		wait_for "$STAT_TIMEOUT_S" stat_is "drop_$key" 2
		stats_expect rx_frames=8 drop_short="${want[short]}" \
			drop_version="${want[version]}" \
			drop_inner_type="${want[inner_type]}" \
			drop_truncated="${want[truncated]}" drop_nomem=0 \
			drop_link_msg="${want[link_msg]}"
		log_test "malformed frames ($kind): 2 dropped as drop_$key"
	done

	# addressed to another host: neither counted nor delivered (as ip_rcv)
	send --dst-mac 02:fa:b0:00:00:99 --count 2 --payload otherhost
	check_err $? "fabric-send otherhost"
	send --payload marker
	check_err $? "fabric-send marker"
	sink_check malformed marker
	RX_BYTES=$((RX_BYTES + $(inner_len marker)))
	wait_for "$STAT_TIMEOUT_S" stat_is rx_frames 9
	stats_expect rx_frames=9 rx_bytes=$RX_BYTES late=3 \
		late_max_ns=5000000 drop_short=2 drop_version=2 \
		drop_inner_type=2 drop_truncated=2 drop_nomem=0 drop_link_msg=2
	log_test "malformed and other-host frames: none reached the socket"
}

test_per_netns()
{
	local out

	# B has exactly one entry, A (which only sent) none
	out=$(ns_exec B fabric-stat -j | grep -c '"ifindex"')
	check_eq "entries in B" 1 "$out"
	out=$(ns_exec A fabric-stat -j)
	check_err $? "fabric-stat -j in A failed"
	check_eq "dump in A" "[
]" "$out"
	out=$(ns_exec A fabric-stat va 2>&1)
	check_fail $? "fabric-stat va succeeded for a device without frames"
	[[ $out == *"no fabric statistics"* ]]
	check_err $? "unexpected message: $out"
	out=$(ns_exec A fabric-stat nosuchdev 2>&1)
	check_fail $? "fabric-stat nosuchdev succeeded"
	[[ $out == *"no such device"* ]]
	check_err $? "unexpected message: $out"
	log_test "statistics are per namespace and per device"
}

# --wait-rx: returns at once when the count is there, waits for a frame
# still to come, and on a timeout fails, says how far it got and still
# prints the counts; a device that has had nothing counts 0.
test_wait_rx()
{
	local out err rc pid have t0 waited

	have=$(json_u64 "$(stats_json)" rx_frames)
	out=$(ns_exec B fabric-stat -j --wait-rx "$have" vb)
	check_err $? "--wait-rx $have with $have frames there failed"
	check_eq "--wait-rx prints the counts" "$have" "$(json_u64 "$out" rx_frames)"

	t0=${EPOCHREALTIME/./}
	out=$(ns_exec B fabric-stat -j --wait-rx $((have + 1)) --timeout 0.3 vb 2> "$TMP_DIR/wait.err")
	rc=$?
	waited=$(( ${EPOCHREALTIME/./} - t0 ))
	err=$(< "$TMP_DIR/wait.err")
	check_eq "--wait-rx on a timeout: exit code" 1 "$rc"
	[[ $err == *"$have of $((have + 1)) frames after 0.3 s"* ]]
	check_err $? "--wait-rx on a timeout said: $err"
	check_eq "--wait-rx on a timeout prints the counts" "$have" "$(json_u64 "$out" rx_frames)"
	((waited >= 300000))
	check_err $? "--timeout 0.3 gave up after $waited us"

	err=$(ns_exec A fabric-stat --wait-rx 1 --timeout 0.1 va 2>&1)
	check_fail $? "--wait-rx 1 on a device without frames succeeded"
	[[ $err == *"0 of 1 frames"* ]]
	check_err $? "--wait-rx on a device without frames said: $err"

	ns_exec B fabric-stat --wait-rx $((have + 1)) --timeout 60 vb > "$TMP_DIR/wait.out" 2>&1 &
	pid=$!
	send --ttd 2000000 --flow 7 --seq 1 --payload wait
	wait "$pid"
	check_err $? "--wait-rx for a frame sent meanwhile: $(< "$TMP_DIR/wait.out")"

	for bad in "--wait-rx -1 vb" "--wait-rx 1x vb" "--wait-rx 1" "--timeout 1 vb" \
		   "--wait-rx 1 --timeout 0 vb" "--wait-rx 1 --timeout 86401 vb" \
		   "--wait-rx 1 --timeout nan vb"; do
		# shellcheck disable=SC2086 # the words of $bad are the arguments
		err=$(ns_exec B fabric-stat $bad 2>&1)
		check_fail $? "fabric-stat $bad succeeded"
		[[ $err == "fabric-stat: --"* ]]
		check_err $? "fabric-stat $bad said: $err"
	done
	log_test "--wait-rx: waits for the count, fails on its timeout, bad input refused"
}

# A VLAN device with reorder_hdr off puts the 802.1Q tag back in front of
# the frame, in its link-layer header: the frame is still ours, delivered
# and counted (it was dropped, counted nowhere).  A GRE device carries a
# packet of the fabric type with no Ethernet header at all: dropped, and
# counted in drop_link_layer (it was not).
test_link_layers()
{
	local j i expected=

	require_module 8021q
	require_module ip_gre
	ns_run A ip link add link va name va.5 type vlan id 5 reorder_hdr off &&
	ns_run B ip link add link vb name vb.5 type vlan id 5 reorder_hdr off ||
		fatal "VLAN devices"
	ns_run A ip addr add 10.0.5.1/24 dev va.5
	ns_run B ip addr add 10.0.5.2/24 dev vb.5
	ns_run A ip link set va.5 up
	ns_run B ip link set vb.5 up
	sink_start B vlan 10.0.5.2 "$PORT" 3 "$SINK_TIMEOUT_MS"
	for i in 1 2 3; do
		ns_run A taskset -c 0 fabric-send -i va.5 --dst-mac "$MAC_B" \
			--src-ip 10.0.5.1 --dst-ip 10.0.5.2 --dport "$PORT" \
			--seq "$i" --payload "vlan-$i"
		check_err $? "fabric-send on va.5"
		expected+="vlan-$i"$'\n'
	done
	sink_check vlan "${expected%$'\n'}"
	j=$(ns_exec B fabric-stat -j vb.5)
	check_eq "vb.5 rx_frames" 3 "$(json_u64 "$j" rx_frames)"
	check_eq "vb.5 drop_link_layer" 0 "$(json_u64 "$j" drop_link_layer)"
	log_test "VLAN with reorder_hdr off: frames delivered with their tag, counted"

	ns_run A ip link add gre5 type gre local "$IP_A" remote "$IP_B" &&
	ns_run B ip link add gre5 type gre local "$IP_B" remote "$IP_A" ||
		fatal "GRE devices"
	ns_run A ip link set gre5 up
	ns_run B ip link set gre5 up
	ns_run A fabric-send -i gre5 --dst-mac "$MAC_B" --src-ip "$IP_A" \
		--dst-ip "$IP_B" --dport "$PORT" --count 2 --payload gre
	check_err $? "fabric-send on gre5"
	wait_for "$STAT_TIMEOUT_S" eval \
		'[[ $(json_u64 "$(ns_exec B fabric-stat -j gre5 2>/dev/null)" drop_link_layer) == 2 ]]'
	j=$(ns_exec B fabric-stat -j gre5)
	check_eq "gre5 drop_link_layer" 2 "$(json_u64 "$j" drop_link_layer)"
	check_eq "gre5 rx_frames" 0 "$(json_u64 "$j" rx_frames)"
	log_test "no Ethernet header (GRE): dropped and counted in drop_link_layer"
	# gone, and their entries with them (test_dev_leaves counts B's)
	ns_run A ip link del gre5
	ns_run B ip link del gre5
	ns_run A ip link del va.5
	ns_run B ip link del vb.5
}

# Moving vb away unregisters it from B: its entry must go with it.
test_dev_leaves()
{
	local out

	ns_create C
	ns_run B ip link set vb netns "$(ns_name C)"
	check_err $? "cannot move vb"
	out=$(ns_exec B fabric-stat -j)
	check_err $? "fabric-stat -j in B failed"
	check_eq "dump in B" "[
]" "$out"
	out=$(ns_exec C fabric-stat vb 2>&1)
	check_fail $? "vb has statistics in C without a frame there"
	log_test "statistics entry freed when the device leaves the namespace"
}

test_teardown()
{
	ns_destroy_all
	ns_all_gone
	check_err $? "namespaces left behind"
	if ((!LOADED_BEFORE)); then
		module_unload fabric_hdr
		check_err $? "modprobe -r fabric_hdr failed"
		! module_is_loaded fabric_hdr
		check_err $? "fabric_hdr still loaded"
	fi
	log_test "teardown: namespaces removed, module unloads"
}

setup
test_valid
test_late
test_malformed
test_per_netns
test_wait_rx
test_link_layers
test_dev_leaves
test_teardown
exit $EXIT_STATUS
