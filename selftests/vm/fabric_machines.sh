#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 300
# kernels: first
#
# fabric-topo machines, run as the operator of real machines would run
# it: the per-machine scripts of a 2-ary 2-tree (four hosts, four
# switches), each in a namespace of its own that stands for its machine,
# whose NICs are veth ends cabled as the scripts' comments say and named
# otherwise than fabric-topo's own build names them (en0, en1, ...; a
# host's enx0), passed in the variables the scripts ask for.  Every host
# then pings every other across the fabric on the routes the scripts
# set: the switches flood nothing and drop nothing for its route.  The
# machines taken down (their namespaces deleted) leave no veth and no
# reference on our modules.
. ./lib.sh

require_cmd ip tc ping fabric-topo fabric-route
require_module vcsw
require_module fabric_hdr
require_module sch_edf
tmp_dir_create
addr() { echo "10.59.0.$(($1 + 1))"; }
fabric_leftovers_mark

fabric-topo --tree 2,2 --name m --link 100mbit machines > "$TMP_DIR/parts"
check_err $? "fabric-topo machines"
# one file per machine, its header line included
awk -v d="$TMP_DIR" '
	/^### machine / { name = $3; sub(/:$/, "", name); f = d "/part-" name; print name > (d "/machines") }
	f { print > f }' "$TMP_DIR/parts"
mapfile -t MACHINES < "$TMP_DIR/machines"
check_eq "machines" "m-s0.0.0 m-s0.1.0 m-s1.0.0 m-s1.0.1 m-h0 m-h1 m-h2 m-h3" "${MACHINES[*]}"
for m in "${MACHINES[@]}"; do ns_create "$m"; done

# the cabling, from the switches' comments ("P0: to host 0 (m-h0)",
# "P2: to m-s1.0.0 port 0"); a cable between switches once, from the
# lower stage
cable() {	# NS_A DEV_A NS_B DEV_B
	ip link add "$2" netns "$NS_PREFIX-$1" type veth peer name "$4" netns "$NS_PREFIX-$3" ||
		fatal "cable $*"
}
declare -A VARS
for m in "${MACHINES[@]}"; do
	[[ $m == m-s* ]] || continue
	while read -r line; do
		if [[ $line =~ ^#\ +P([0-9]+):\ to\ host\ ([0-9]+)\ \((m-h[0-9]+)\)$ ]]; then
			cable "$m" "en${BASH_REMATCH[1]}" "${BASH_REMATCH[3]}" enx0
		elif [[ $line =~ ^#\ +P([0-9]+):\ to\ (m-s[0-9.]+)\ port\ ([0-9]+)$ ]]; then
			[[ $m < ${BASH_REMATCH[2]} ]] &&
				cable "$m" "en${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "en${BASH_REMATCH[3]}"
		else
			continue
		fi
		VARS[$m]+=" P${BASH_REMATCH[1]}=en${BASH_REMATCH[1]}"
	done < "$TMP_DIR/part-$m"
done
# four hosts' cables and two from each leaf up: 16 ends, all in machines
ends=0
for m in "${MACHINES[@]}"; do
	ends=$((ends + $(ip -n "$NS_PREFIX-$m" -o link show type veth | wc -l)))
done
check_eq "cable ends in the machines" 16 "$ends"

# each part on its machine, with its NICs named
for m in "${MACHINES[@]}"; do
	if [[ $m == m-h* ]]; then
		vars=NIC=enx0
	else
		vars=${VARS[$m]}
	fi
	# shellcheck disable=SC2086
	ns_run "$m" env $vars bash "$TMP_DIR/part-$m" > "$TMP_DIR/run-$m" 2>&1
	check_err $? "$m's part failed: $(cat "$TMP_DIR/run-$m")"
done
log_test "every machine's part runs with its NICs named as the comments say"

for a in 0 1 2 3; do
	for b in 0 1 2 3; do
		[ $a = $b ] && continue
		ns_exec "m-h$a" ping -c 2 -i 0.2 -W 5 "$(addr $b)" > /dev/null
		check_err $? "host $a could not ping host $b"
	done
done
flooded=0 drop_route=0 unrouted=0 sent=0
for m in "${MACHINES[@]}"; do
	[[ $m == m-s* ]] || continue
	for v in ${VARS[$m]}; do
		dev=${v#*=}
		j=$(link_json "$m" "$dev")
		read_num n json_obj_u64 "$j" port flooded; flooded=$((flooded + n))
		read_num n json_obj_u64 "$j" port drop_route; drop_route=$((drop_route + n))
		read_num n json_obj_u64 "$j" port drop_unrouted; unrouted=$((unrouted + n))
		read_num n json_obj_u64 "$j" vc0 packets; sent=$((sent + n))
		read_num n json_obj_u64 "$j" vc1 packets; sent=$((sent + n))
	done
done
check_eq "flooded" 0 "$flooded"
check_eq "dropped for their route" 0 "$drop_route"
# flood off: a frame off its route would be dropped here, not flooded
check_eq "dropped for no route (flood off)" 0 "$unrouted"
# 24 pings and their replies, 1 to 3 switches each
[ "$sent" -ge 48 ]
check_err $? "the switches sent $sent frames for 24 pings and replies"
log_test "every host pings every other across the machines' fabric: nothing floods, nothing dropped for its route"

for m in "${MACHINES[@]}"; do ip netns del "$NS_PREFIX-$m"; done
fabric_leftovers_check "the machines taken down"
log_test "the machines taken down: no veth, no module reference left"

exit $EXIT_STATUS
