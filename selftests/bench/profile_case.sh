#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 1500
# vm: profile
#
# make profile's guest side (scripts/profile.sh): one case of
# qdisc_pps.sh, uncongested or backlogged, while the insn-profile plugin
# counts the guest's kernel instructions by address.  Then the kernel's
# text symbols, between "PROFILE-KALLSYMS-BEGIN" and "-END" lines, and
# "profile packets=N": the packets the device sent, to divide by.
#
# /etc/fabric-qos/profile.env holds "CASE PATH FLOWS CLASSES COUNT".
. ../vm/lib.sh
. ./cases.sh
. ./lib.sh

read -r P_CASE P_PATH P_FLOWS P_CLASSES P_COUNT < /etc/fabric-qos/profile.env
BENCH_COUNT=$P_COUNT

if [[ ${1:-} != --in-netns ]]; then
	bench_in_netns "$0" tc cpu-steal txtime-stamp || exit
	echo "PROFILE-KALLSYMS-BEGIN"
	awk '$2 ~ /^[tT]$/' /proc/kallsyms
	echo "PROFILE-KALLSYMS-END"
	exit 0
fi
TMP_DIR=$2	# the outer run's; it removes it

bench_netns_setup
bench_case_has_path "$P_CASE" "$P_PATH" ||
	fatal "no benchmark case $P_CASE measured $P_PATH"
DEV=$(bench_case_dev "$P_CASE")
tx0=$(dev_tx_packets)
"measure_$P_PATH" "$P_CASE" "$P_FLOWS" "$P_CLASSES" || fatal "cannot measure $P_CASE"
echo "profile packets=$(($(dev_tx_packets) - tx0))"
