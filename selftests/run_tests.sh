#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Run every mrc selftest (in the VM: tools/testing/vm/run -- selftests/run_tests.sh)
# and print their checks as one TAP stream.  A test script that dies
# without reporting is a failure.
#
# Usage: selftests/run_tests.sh [TEST.sh...]

dir=$(cd "$(dirname "$0")" && pwd)
tests=("$@")
if [ ${#tests[@]} -eq 0 ]; then
	# shellcheck disable=SC2207
	tests=($(sed -n 's/^TEST_PROGS := //p' "$dir/Makefile"))
fi
timeout=$(sed -n 's/^timeout=//p' "$dir/settings")

# processes forked since boot, all of them (a program's start costs
# 50-600 ms in the emulated VM; mrc.rst, "What a run costs")
forks() {
	local k v
	while read -r k v _; do
		[ "$k" = processes ] && { echo "$v"; return; }
	done </proc/stat
	echo 0
}

n=0
fail=0
for t in "${tests[@]}"; do
	t=$(basename "$t")
	echo "# running $t"
	t0=$SECONDS
	p0=$(forks)
	out=$(mktemp)
	timeout "${timeout:-600}" "$dir/$t" >"$out" 2>&1
	rc=$?
	checks=0
	while IFS= read -r line; do
		case "$line" in
		"not ok "*)
			n=$((n + 1)); checks=$((checks + 1)); fail=$((fail + 1))
			echo "not ok $n ${line#not ok [0-9]* }"
			;;
		"ok "*)
			n=$((n + 1)); checks=$((checks + 1))
			echo "ok $n ${line#ok [0-9]* }"
			;;
		*)
			echo "# $line"
			;;
		esac
	done <"$out"
	rm -f "$out"
	echo "# $t took $((SECONDS - t0)) s, $(($(forks) - p0)) processes"
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 4 ] && [ "$fail" -eq 0 ] ||
	   [ "$checks" -eq 0 ]; then
		n=$((n + 1)); fail=$((fail + 1))
		echo "not ok $n - ${t%.sh}: exited $rc after $checks checks"
	fi
done
echo "1..$n"
[ "$fail" -eq 0 ]
