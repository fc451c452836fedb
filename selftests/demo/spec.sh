# SPDX-License-Identifier: GPL-2.0
#
# spec.sh: what a make demo scenario name means, for scripts/demo.sh on
# the host and selftests/demo/demo.sh in the VM (sourced by both).
#
# A spec is NAME, a scenario file scenarios/NAME.conf, followed by any
# number of @-separated changes to it:
#
#   @qosN         the QoS classes at N % of the load (qos_load = N): one
#                 point of the QoS-load sweep (make demo S=sweep)
#   @KEY=VALUE    the line "KEY = VALUE" after the file's, which it
#                 overrides (make demo S=scale: tree=, link=, ...); a
#                 '+' in VALUE is a space, for the lists (flows, mix,
#                 be_weights), which a name cannot hold: the whole list
#                 is replaced, e.g. @flows=control:4+multimedia:1
#
# e.g. fabric-advanced2@tree=4,3@link=10mbit.  Its results are named
# after it with each change as -qosN or -KEYVALUE, commas as x, each '+'
# as '_' and the colons gone (fabric-advanced2-tree4x3-link10mbit,
# ...-flowscontrol4_multimedia1): a directory name, which the report
# reads back.

# spec_conf SPEC: NAME, the scenario file's name without .conf
spec_conf()
{
	echo "${1%%@*}"
}

# spec_name SPEC: the name of its results
spec_name()
{
	local name=${1%%@*} rest=${1#*@} seg

	[[ $1 == *@* ]] || { echo "$1"; return; }
	while :; do
		seg=${rest%%@*}
		if [[ $seg == *=* ]]; then
			seg=${seg%%=*}${seg#*=}
			seg=${seg//,/x}
			seg=${seg//+/_}
			name+=-${seg//:/}
		else
			name+=-$seg
		fi
		[[ $rest == *@* ]] || break
		rest=${rest#*@}
	done
	echo "$name"
}

# spec_overrides SPEC: its changes as KEY=VALUE arguments of scenario.sh,
# one a line; fails (with the reason on stderr) on one that is neither
# qosN (N of 1 .. 99) nor KEY=VALUE with KEY a lower-case word
spec_overrides()
{
	local rest seg

	[[ $1 == *@* ]] || return 0
	rest=${1#*@}
	while :; do
		seg=${rest%%@*}
		if [[ $seg =~ ^qos([0-9]+)$ ]]; then
			((BASH_REMATCH[1] >= 1 && BASH_REMATCH[1] <= 99)) ||
				{ echo "$1: @qosN wants N of 1 .. 99 (%)" >&2; return 1; }
			echo "qos_load=${BASH_REMATCH[1]}"
		elif [[ $seg =~ ^[a-z][a-z_]*=[^[:space:]/+][^[:space:]/]*$ && $seg != *+ ]]; then
			echo "${seg//+/ }"
		else
			echo "$1: '@$seg': want @qosN or @KEY=VALUE" >&2
			return 1
		fi
		[[ $rest == *@* ]] || break
		rest=${rest#*@}
	done
}
