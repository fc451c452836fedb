#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
#
# fabric_hdr.ko loads and unloads cleanly while fabric frames (valid and
# malformed) arrive and statistics are read: unloading must wait for running
# receive handlers and netlink requests and free every per-device entry.
# Afterwards the module loads again and traffic flows.
#
#   +------------------------------+          +------------------------------+
#   | netns A                      |          | netns B                      |
#   |   fabric-send (valid, paced) |          |   fabric-stat loop           |
#   |   fabric-send (malformed)    |          |   udp-sink (final check)     |
#   |   va 10.0.0.1/24  -----------+---veth---+-----------  vb 10.0.0.2/24   |
#   +------------------------------+          +------------------------------+
#
#   init netns:  CYCLES x { modprobe fabric_hdr; modprobe -r fabric_hdr },
#                every CHECK_EVERY-th cycle waiting until B counted a frame
#                so the unload provably races live traffic
#
# Bounded: senders stop after SEND_LIMIT_S, the cycles after CYCLES or
# CYCLE_BUDGET_S, whichever comes first (a cycle takes about 0.7 s under
# TCG, several times that on a busy host).  How many cycles fit in the
# budget depends on the host, so only MIN_CYCLES are required: enough
# for two checked races with traffic.

source "$(dirname "$0")/lib.sh"

IP_A=10.0.0.1
IP_B=10.0.0.2
MAC_B=02:fa:b0:00:00:02
PORT=5000
# 20 cycles, not 30 (each about 0.5 s in the fast VM): every unload
# meets 6000 frames/s arriving, so a receive handler running at the
# unload is met in nearly every cycle; a statistics read (one every
# 0.2 s or so, a good part of that under TCG) overlaps a given unload
# perhaps a third of the time (an estimate), so 20 cycles miss it
# altogether about one time in 1000 (0.7^20), with 4 cycles checked to
# race live traffic
CYCLES=${CYCLES:-20}
MIN_CYCLES=10
CHECK_EVERY=5
CYCLE_BUDGET_S=200
SEND_LIMIT_S=260

send()
{
	ns_run A fabric-send -i va --dst-mac "$MAC_B" --src-ip "$IP_A" \
		--dst-ip "$IP_B" --dport "$PORT" "$@"
}

kernel_complaints()
{
	dmesg | grep -cE 'WARNING:|BUG:|Oops|general protection|refcount_t:'
}

setup()
{
	require_root
	require_cmd ip modprobe modinfo dmesg fabric-send fabric-stat udp-sink
	require_module veth
	modinfo fabric_hdr >/dev/null 2>&1 || skip "module fabric_hdr not installed"
	if module_is_loaded fabric_hdr; then
		# the modules built on it (sch_edf, sch_aoq, vcsw), loaded by
		# the tests before this one and unused between tests, hold it
		local holder
		for holder in /sys/module/fabric_hdr/holders/*; do
			[ -e "$holder" ] && module_unload "$(basename "$holder")" 2>/dev/null
		done
		module_unload fabric_hdr 2>/dev/null ||
			skip "fabric_hdr is in use ($(ls /sys/module/fabric_hdr/holders 2>/dev/null | tr '\n' ' ')), cannot cycle it"
	fi
	tmp_dir_create

	ns_create A
	ns_create B
	veth_create A va "$IP_A/24" B vb "$IP_B/24" "$MAC_B"
	COMPLAINTS_BEFORE=$(kernel_complaints)
}

start_load()
{
	local stop=$TMP_DIR/stop i

	# --count bounds each sender even if this script were killed hard
	ns_bg A fabric-send -i va --dst-mac "$MAC_B" --src-ip "$IP_A" \
		--dst-ip "$IP_B" --dport "$PORT" --ttd 100000 \
		--interval 200 --count $((SEND_LIMIT_S * 5000)) \
		--payload cycle >/dev/null
	VALID_PID=$BG_PID
	ns_bg A fabric-send -i va --dst-mac "$MAC_B" --src-ip "$IP_A" \
		--dst-ip "$IP_B" --dport "$PORT" --malform truncated \
		--interval 1000 --count $((SEND_LIMIT_S * 1000)) >/dev/null
	BAD_PID=$BG_PID

	(
		for ((i = 0; i < 100000; i++)); do
			[[ -e $stop ]] && break
			ns_exec B fabric-stat >/dev/null 2>&1
			# leave CPU to the cycles: TCG is slow
			sleep 0.2
		done
	) &
	bg_track $!
	STAT_LOOP_PID=$!
	RX_BEFORE=$(ns_exec B cat /sys/class/net/vb/statistics/rx_packets)
}

stop_load()
{
	touch "$TMP_DIR/stop"
	bg_wait "$STAT_LOOP_PID"
	kill "$VALID_PID" "$BAD_PID" 2>/dev/null
	bg_wait "$VALID_PID"
	bg_wait "$BAD_PID"
}

test_cycles()
{
	local start=$SECONDS i cycles=0 rx

	start_load
	for ((i = 1; i <= CYCLES; i++)); do
		if ! modprobe fabric_hdr; then
			check_err 1 "modprobe fabric_hdr failed in cycle $i"
			break
		fi
		if ((i % CHECK_EVERY == 1)) &&
		   ! wait_for 10 ns_exec B fabric-stat vb >/dev/null 2>&1; then
			check_err 1 "no fabric frame counted in cycle $i"
		fi
		if ! module_unload fabric_hdr; then
			check_err 1 "modprobe -r fabric_hdr failed in cycle $i"
			break
		fi
		cycles=$i
		if ((SECONDS - start >= CYCLE_BUDGET_S && i < CYCLES)); then
			log_info "time budget of ${CYCLE_BUDGET_S}s spent after $i cycles"
			break
		fi
	done
	log_info "$cycles load/unload cycles in $((SECONDS - start))s"
	((cycles >= MIN_CYCLES))
	xfail_on_slow check_err $? "only $cycles cycles, want $MIN_CYCLES or more"

	# both senders must have lived through all cycles
	kill -0 "$VALID_PID" 2>/dev/null && kill -0 "$BAD_PID" 2>/dev/null
	check_err $? "a sender died during the cycles"
	rx=$(ns_exec B cat /sys/class/net/vb/statistics/rx_packets)
	((rx - RX_BEFORE >= cycles))
	check_err $? "too little traffic: $((rx - RX_BEFORE)) frames"
	stop_load
	! module_is_loaded fabric_hdr
	check_err $? "fabric_hdr still loaded after the last cycle"
	log_test "load/unload cycles under traffic and netlink reads"
}

test_after()
{
	local expected=$'after-1\nafter-2\nafter-3' json i

	modprobe fabric_hdr
	check_err $? "modprobe fabric_hdr failed"
	# the sink exits once it has the three; the timeout only ends a failure
	sink_start B after "$IP_B" "$PORT" 3 120000
	for i in 1 2 3; do
		send --seq "$i" --payload "after-$i"
		check_err $? "fabric-send after-$i"
	done
	sink_check after "$expected"
	wait_for 10 ns_exec B fabric-stat vb >/dev/null 2>&1
	json=$(ns_exec B fabric-stat -j vb | grep '"ifindex"')
	check_err $? "fabric-stat -j vb failed"
	# a fresh module starts from zero: exactly our three frames
	check_eq rx_frames 3 "$(json_u64 "$json" rx_frames)"
	check_eq drop_truncated 0 "$(json_u64 "$json" drop_truncated)"
	log_test "module loads again and traffic flows"

	ns_destroy_all
	ns_all_gone
	check_err $? "namespaces left behind"
	module_unload fabric_hdr
	check_err $? "modprobe -r fabric_hdr failed"
	check_eq "new kernel warnings" "$COMPLAINTS_BEFORE" "$(kernel_complaints)"
	log_test "teardown: module unloads, kernel log clean"
}

setup
test_cycles
test_after
exit $EXIT_STATUS
