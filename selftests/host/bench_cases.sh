#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# timeout: 30
#
# selftests/bench/cases.sh's answers about a case, which make bench and
# make profile both go by: the device a case runs on (the mq cases on the
# multi-queue one: make profile used to run them on dummy0, where mq
# cannot be attached, and failed after the VM's boot) and the paths it is
# measured on, and the order pktgen sends its flows in; and make profile's
# refusal, before any VM boots, of a case or path that make bench does not
# measure.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
. "$ROOT/selftests/bench/cases.sh"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

mq_cases=0
for cs in "${BENCH_CASES[@]}"; do
	family=${BENCH_FAMILY[$cs]}
	want=dummy0
	if [[ $family == mq* ]]; then
		want=$MQ_DEV
		mq_cases=$((mq_cases + 1))
	fi
	got=$(bench_case_dev "$cs")
	[[ $got == "$want" ]] || fail "bench_case_dev $cs ($family): '$got', want '$want'"

	# a shuffled case only backlogged, the one path where order matters
	want=turn
	if [[ $family == shuffled ]]; then
		want=random
		bench_case_has_path "$cs" uncongested && fail "$cs ($family): measured uncongested"
	else
		bench_case_has_path "$cs" uncongested || fail "$cs: not measured uncongested"
	fi
	got=$(bench_case_order "$cs")
	[[ $got == "$want" ]] || fail "bench_case_order $cs ($family): '$got', want '$want'"
	if [[ $family == baseline || $family == mq* ]]; then
		bench_case_has_path "$cs" backlogged && fail "$cs ($family): measured backlogged"
	else
		bench_case_has_path "$cs" backlogged || fail "$cs ($family): not measured backlogged"
	fi
	bench_case_has_path "$cs" sideways && fail "$cs: measured on path 'sideways'"
done
((mq_cases >= 4)) || fail "only $mq_cases mq cases: is the family still called mq?"
[[ $(bench_case_dev mq-dtable) == mq0 ]] || fail "mq-dtable does not run on mq0"
[[ $(bench_case_dev dtable) == dummy0 ]] || fail "dtable does not run on dummy0"
bench_case_has_path no-such-case uncongested && fail "a case that does not exist is measured"

# the scripts in the VM cannot run here: they must at least go by these
for f in qdisc_pps.sh profile_case.sh; do
	# shellcheck disable=SC2016 # the text of the script, not an expansion
	grep -q 'DEV=$(bench_case_dev ' "$ROOT/selftests/bench/$f" ||
		fail "selftests/bench/$f does not take its device from bench_case_dev"
	grep -q 'bench_case_has_path ' "$ROOT/selftests/bench/$f" ||
		fail "selftests/bench/$f does not take its paths from bench_case_has_path"
done

# make profile refuses what make bench does not measure, without a VM
# (nor a build: it would write under FQ_BUILD)
build=$(mktemp -d) || exit 1
trap 'rm -rf "$build"' EXIT
for p in "no-such-case uncongested 1 1" "mq-dtable backlogged 1000 4" \
	"noqueue backlogged 1 1" "edf sideways 1 1" \
	"edf-shuffled uncongested 1000 1"; do
	out=$(FQ_BUILD=$build timeout 10 "$ROOT/scripts/profile.sh" "$p" 2>&1)
	rc=$?
	((rc == 1)) || fail "profile.sh '$p': exit $rc, want 1"
	[[ $out == *"no benchmark case"* ]] || fail "profile.sh '$p' said: $out"
done
[[ -z $(ls -A "$build") ]] || fail "profile.sh wrote $(ls -A "$build") before refusing"

if ((fails)); then
	echo "not ok: $fails failures"
	exit 1
fi
echo "ok: ${#BENCH_CASES[@]} cases, $mq_cases on $MQ_DEV"
