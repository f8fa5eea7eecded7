#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared helpers of mrc's selftests: TAP output, namespaces with random
# names that are removed on exit, module load/unload, the mrc tool.
#
# A test script sources this file, then calls mrc_ok/mrc_fail (or
# mrc_check) once per check and mrc_done at the end.

MRC_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MRC_KO=${MRC_KO:-$MRC_TOP/net/mrc/mrc.ko}
MRC_TOOL=${MRC_TOOL:-$MRC_TOP/tools/mrc/mrc}
# shellcheck disable=SC2034 # used by the tests that source this file
MRC_SELFTESTS=$MRC_TOP/selftests
# shellcheck disable=SC2034
MRC_DEFAULT_PORT=4797

# kselftest exit codes
KSFT_PASS=0
KSFT_FAIL=1
# shellcheck disable=SC2034
KSFT_SKIP=4

mrc_nfail=0
mrc_ntest=0
mrc_namespaces=()
mrc_pids=()

# A test name is "<script>: <check>".
mrc_test_prefix=$(basename "$0" .sh)

mrc_ok() {
	mrc_ntest=$((mrc_ntest + 1))
	echo "ok $mrc_ntest - $mrc_test_prefix: $1"
}

# mrc_fail NAME [WHAT-WAS-EXPECTED-AND-SEEN]
mrc_fail() {
	mrc_ntest=$((mrc_ntest + 1))
	mrc_nfail=$((mrc_nfail + 1))
	echo "not ok $mrc_ntest - $mrc_test_prefix: $1"
	[ -z "${2:-}" ] || echo "# $2"
}

mrc_skip() {
	mrc_ntest=$((mrc_ntest + 1))
	echo "ok $mrc_ntest - $mrc_test_prefix: $1 # SKIP $2"
}

# mrc_expect_eq NAME EXPECTED SEEN
mrc_expect_eq() {
	if [ "$2" = "$3" ]; then
		mrc_ok "$1"
	else
		mrc_fail "$1" "expected '$2', saw '$3'"
	fi
}

# mrc_check NAME CMD...: passes when CMD exits 0.
mrc_check() {
	local name=$1 out rc
	shift
	out=$("$@" 2>&1)
	rc=$?
	if [ "$rc" -eq 0 ]; then
		mrc_ok "$name"
	else
		mrc_fail "$name" "'$*' exited $rc: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
	fi
}

# mrc_check_fails NAME CMD...: passes when CMD exits non-zero.
mrc_check_fails() {
	local name=$1 out
	shift
	if out=$("$@" 2>&1); then
		mrc_fail "$name" "'$*' succeeded, expected a failure: $out"
	else
		mrc_ok "$name"
	fi
}

mrc_done() {
	[ "$mrc_nfail" -eq 0 ] && exit $KSFT_PASS
	exit $KSFT_FAIL
}

mrc_cleanup() {
	local ns pid
	for pid in "${mrc_pids[@]}"; do
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	for ns in "${mrc_namespaces[@]}"; do
		ip netns del "$ns" 2>/dev/null
	done
}
trap mrc_cleanup EXIT

# mrc_ns_create VAR: make a namespace with a random name, loopback up,
# removed when the test exits; its name goes into VAR.
mrc_ns_create() {
	local name
	name="mrc-$(mktemp -u XXXXXXXX)"
	ip netns add "$name" || return 1
	mrc_namespaces+=("$name")
	ip -n "$name" link set lo up || return 1
	printf -v "$1" '%s' "$name"
}

mrc_ns_del() {
	local ns=$1 i
	ip netns del "$ns" || return 1
	for i in "${!mrc_namespaces[@]}"; do
		[ "${mrc_namespaces[$i]}" != "$ns" ] || unset 'mrc_namespaces[i]'
	done
}

# mrc [-n NS] ARGS...: the mrc tool, in a namespace if asked.
mrc() {
	if [ "${1:-}" = "-n" ]; then
		local ns=$2
		shift 2
		ip netns exec "$ns" "$MRC_TOOL" "$@"
	else
		"$MRC_TOOL" "$@"
	fi
}

mrc_module_loaded() {
	grep -q '^mrc ' /proc/modules
}

# Load mrc.ko (and the UDP tunnel modules it needs) unless it is loaded.
mrc_module_load() {
	mrc_module_loaded && return 0
	modprobe udp_tunnel && modprobe ip6_udp_tunnel && insmod "$MRC_KO"
}

mrc_module_unload() {
	mrc_module_loaded || return 0
	rmmod mrc
}

# mrc_udp_bound NS PORT: is a UDP socket bound to PORT in NS?
mrc_udp_bound() {
	ip netns exec "$1" ss -Huln "sport = :$2" | grep -q .
}

# mrc_json KEY: one value of the JSON object on stdin.
mrc_json() {
	python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"
}

# mrc_stat NS NAME: one counter of the namespace, from "mrc -j stats".
mrc_stat() {
	ip netns exec "$1" "$MRC_TOOL" -j stats show | mrc_json "$2"
}

# mrc_setting NS NAME: one setting of the namespace, from "mrc -j config".
mrc_setting() {
	ip netns exec "$1" "$MRC_TOOL" -j config show | mrc_json "$2"
}

# The tool and the module must exist: build them first (make).
mrc_require_build() {
	if [ ! -f "$MRC_KO" ] || [ ! -x "$MRC_TOOL" ]; then
		echo "# $MRC_KO or $MRC_TOOL missing: run make" >&2
		exit $KSFT_FAIL
	fi
}

# mrc_pair: the "pair" topology.  Two hosts, namespaces $MRC_H1 and
# $MRC_H2, joined by one veth (h1: eth0 10.0.1.1/24 fd00:1::1/64, h2: eth0
# 10.0.1.2/24 fd00:1::2/64).  Removed on exit.
MRC_H1_ADDR4=10.0.1.1
MRC_H2_ADDR4=10.0.1.2
MRC_H1_ADDR6=fd00:1::1
MRC_H2_ADDR6=fd00:1::2
mrc_pair() {
	modprobe veth 2>/dev/null
	mrc_ns_create MRC_H1 || return 1
	mrc_ns_create MRC_H2 || return 1
	ip link add eth0 netns "$MRC_H1" type veth peer name eth0 \
		netns "$MRC_H2" || return 1
	ip -n "$MRC_H1" addr add "$MRC_H1_ADDR4/24" dev eth0
	ip -n "$MRC_H2" addr add "$MRC_H2_ADDR4/24" dev eth0
	ip -n "$MRC_H1" addr add "$MRC_H1_ADDR6/64" dev eth0 nodad
	ip -n "$MRC_H2" addr add "$MRC_H2_ADDR6/64" dev eth0 nodad
	ip -n "$MRC_H1" link set eth0 up
	ip -n "$MRC_H2" link set eth0 up
}

# mrc_netem NS DEV ARGS...: replace the root qdisc with netem ARGS (or
# remove it when ARGS is "none").
mrc_netem() {
	local ns=$1 dev=$2
	shift 2
	tc -n "$ns" qdisc del dev "$dev" root 2>/dev/null
	[ "$1" = none ] && return 0
	modprobe sch_netem 2>/dev/null
	tc -n "$ns" qdisc add dev "$dev" root netem "$@"
}

# mrc_diag: what a failed test leaves behind, as TAP diagnostics.
mrc_diag() {
	local ns p t
	for ns in "$MRC_H1" "$MRC_H2"; do
		echo "# $ns: $(ip netns exec "$ns" "$MRC_TOOL" stats show |
			       grep -v ' 0$' | tr '\n' ' ')"
	done
	for p in $(pgrep mrc_msg); do
		for t in /proc/"$p"/task/*; do
			echo "# task $t: $(head -n 4 "$t/stack" | tr '\n' ' ')"
		done
	done
}

# mrc_transfer NAME FAMILY CLIENT-ARGS...: run mrc_msg between the pair
# (server in h2, client in h1) and check every message arrived once,
# intact and in order.  FAMILY is 4 or 6.  Prints the server's summary as
# a diagnostic.
mrc_transfer() {
	local name=$1 fam=$2 addr=$MRC_H2_ADDR4 v6=() out rc port
	shift 2
	port=$((7000 + RANDOM % 1000))
	if [ "$fam" = 6 ]; then
		addr=$MRC_H2_ADDR6
		v6=(-6)
	fi
	out=$(mktemp)
	ip netns exec "$MRC_H2" "$MRC_SELFTESTS/mrc_msg" server "${v6[@]}" \
		-p "$port" "$@" >"$out" 2>&1 &
	local spid=$!
	mrc_pids+=("$spid")
	for _ in $(seq 50); do
		grep -q listening "$out" && break
		sleep 0.1
	done
	timeout "${MRC_TRANSFER_TIMEOUT:-120}" ip netns exec "$MRC_H1" \
		"$MRC_SELFTESTS/mrc_msg" client "${v6[@]}" -a "$addr" \
		-p "$port" "$@" >"$out.c" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ]; then
		mrc_diag
		kill "$spid" 2>/dev/null
	fi
	wait "$spid"
	local src=$?
	if [ "$rc" -eq 0 ] && [ "$src" -eq 0 ]; then
		mrc_ok "$name"
	else
		mrc_fail "$name" "client exit $rc, server exit $src: $(tr '\n' ' ' <"$out") $(tr '\n' ' ' <"$out.c")"
	fi
	echo "# $name: $(grep delivered= "$out") $(grep seconds= "$out.c")"
	rm -f "$out" "$out.c"
}
