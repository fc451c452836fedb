#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 600
# vm: deterministic
#
# A TCP bulk flow through edf, with and without the fabric header
# (Documentation/benchmarks.rst, "TCP bulk and GSO"): bytes per guest
# second, which in the deterministic VM is bytes per 1e9 instructions of
# everything the transfer took (sender, qdisc, veth, receiver: one vCPU).
#
#   [ns A] veth0 (QDISC) ====veth==== veth1 [ns B] fabric_hdr
#     tcp-bulk -c                        tcp-bulk -l
#
# The route's MTU is 1480 in every case, so every packet could carry the
# header: what differs between the cases is only the qdisc.  TCP sends
# TSO packets of up to 64 KB; veth takes them whole.
#
#   noqueue       no qdisc on veth0
#   fq            fq, the in-tree peer
#   edf           edf, default class (best effort), ttd off
#   edf-ttd       the same with ttd on: each GSO packet leaves whole with
#                 one header; B's fabric_hdr strips it
#   edf-ttd-gso   ttd on, and veth0 without TSO ("ethtool -K tso off"):
#                 the stack cuts the packets after the qdisc, with the
#                 fabric header's GSO offload, as on a NIC that cannot
#                 checksum the fabric EtherType
#
# Output per case: "bench tcp case=NAME bytes=N ns=N bytes_per_gs=N
# gso_segmented=N ttd_pushed=N" (the last two edf's counters, else 0);
# "bench tcp-peer case=NAME peer=NAME" for the ratios.
. ../vm/lib.sh

BYTES=${BENCH_TCP_BYTES:-33554432}	# 32 MB per case
PORT=5001

require_root
require_cmd tc ip tcp-bulk
require_module sch_edf
require_module fabric_hdr
two_hosts 12 quiet
ns_run A ip route replace 10.12.0.0/24 dev veth0 src 10.12.0.1 mtu 1480 ||
	fatal "route mtu"

edf_counter() {	# NAME: edf's xstat on veth0, 0 without edf
	local v

	v=$(qdisc_stat A veth0 "$1")
	echo "${v:-0}"
}

run_case() {	# NAME QDISC-ARGS...
	local name=$1 out=$TMP_DIR/$1.out bytes ns
	shift

	ns_exec A tc qdisc del dev veth0 root 2> /dev/null
	if [[ $# -gt 0 ]]; then
		ns_run A tc qdisc add dev veth0 root "$@" || fatal "$name: qdisc"
	fi
	rm -f "$TMP_DIR/ready"
	ns_bg B tcp-bulk -l 10.12.0.2 -p $PORT -t 300000 -r "$TMP_DIR/ready" > "$out"
	local rcv=$BG_PID
	wait_for 10 test -e "$TMP_DIR/ready" || fatal "$name: receiver did not start"
	ns_exec A tcp-bulk -c 10.12.0.2 -p $PORT -b "$BYTES" -t 300000 ||
		fatal "$name: the sender failed"
	bg_wait "$rcv" || fatal "$name: the receiver failed: $(cat "$out")"
	bytes=$(sed -n 's/.*bytes=\([0-9]*\).*/\1/p' "$out")
	ns=$(sed -n 's/.* ns=\([0-9]*\).*/\1/p' "$out")
	[[ $bytes == "$BYTES" && $ns -gt 0 ]] || fatal "$name: $(cat "$out")"
	echo "bench tcp case=$name bytes=$bytes ns=$ns" \
		"bytes_per_gs=$((bytes * 1000000000 / ns))" \
		"gso_segmented=$(edf_counter gso_segmented)" \
		"ttd_pushed=$(edf_counter ttd_pushed)"
}

# a first transfer not measured: ARP-free already, but TCP's and the
# slab caches' first use
run_case warmup
run_case noqueue
run_case fq fq
run_case edf edf
run_case edf-ttd edf ttd on
ns_run A ethtool -K veth0 tso off > /dev/null || fatal "ethtool"
run_case edf-ttd-gso edf ttd on
echo "bench tcp-peer case=edf peer=fq"
echo "bench tcp-peer case=edf-ttd peer=edf"
echo "bench tcp-peer case=edf-ttd-gso peer=edf"
exit 0
