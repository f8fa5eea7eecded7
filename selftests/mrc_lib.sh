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

# Starting a process costs 60-100 ms in the emulated VM and more in UML,
# so the loops that wait for a condition use bash builtins: mrc_nap
# sleeps by waiting for a line on a pipe that never gets one (its write
# end is held open here), mrc_file_has reads a file without grep.
exec {mrc_nap_fd}<> <(:)

# mrc_nap SECS: sleep SECS (fractions allowed) without starting a process.
mrc_nap() {
	read -rt "$1" -u "$mrc_nap_fd" _ || :
}

# mrc_timed CMD...: run CMD, then say how long it took ("# CMD: N s");
# returns CMD's status.
mrc_timed() {
	local t=$SECONDS rc
	"$@"
	rc=$?
	echo "# $*: $((SECONDS - t)) s"
	return "$rc"
}

# mrc_file_line FILE PATTERN: the first line of FILE that matches
# PATTERN (a bash pattern for the whole line); fails if none does.
mrc_file_line() {
	local l

	[ -r "$1" ] || return 1
	while IFS= read -r l || [ -n "$l" ]; do
		# shellcheck disable=SC2053 # $2 is a pattern
		[[ $l == $2 ]] && { echo "$l"; return 0; }
	done <"$1"
	return 1
}

# mrc_file_has FILE LINE-START: does a line of FILE begin with LINE-START
# (a bash pattern; an absent file has none)?
mrc_file_has() {
	local s

	[ -r "$1" ] || return 1
	s=$'\n'$(<"$1")
	[[ $s == *$'\n'$2* ]]
}

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
	printf -v name 'mrc-%08x' "$SRANDOM"
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

# mrc [-n NS] ARGS...: the mrc tool (its -n enters a namespace itself,
# without the fork, exec and mounts of "ip netns exec").
mrc() {
	"$MRC_TOOL" "$@"
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

# mrc_module_unload_when_free [SECS]: unload once the last socket is gone
# (orphans finish on their own, within the connection timeout); say what
# holds the module if it is still in use after SECS (default 20) seconds.
mrc_module_unload_when_free() {
	local i tries=$((${1:-20} * 2))
	mrc_module_loaded || return 0
	for ((i = 0; i < tries; i++)); do
		rmmod mrc 2>/dev/null && return 0
		mrc_nap 0.5
	done
	echo "# after ${1:-20} s still in use: $(grep '^mrc ' /proc/modules)"
	return 1
}

# mrc_ns_use NS: make (and close) an mrc socket in NS, which opens the
# namespace's tunnel sockets (a namespace binds its port on first use)
mrc_ns_use() {
	ip netns exec "$1" "$MRC_SELFTESTS/mrc_sock" create inet >/dev/null
}

# mrc_udp_bound NS PORT: is a UDP socket bound to PORT in NS?
mrc_udp_bound() {
	ip netns exec "$1" ss -Huln "sport = :$2" | grep -q .
}

# mrc_json KEY: one value of the JSON object on stdin (fails if absent).
mrc_json() {
	jq -er --arg k "$1" '.[$k] // error("no \($k)")'
}

# mrc_json_get VAR KEY JSON: set VAR to the value of KEY in JSON, as the
# tool prints it with -j (compact; a number, true, false, null, or a
# string with no quote inside), at KEY's first occurrence after "{" or
# ","; fails, leaving VAR alone, if there is none.  No jq and no fork:
# starting a process costs 50-300 ms in the emulated VM (jq the most),
# and the tests read counters thousands of times.
mrc_json_get() {
	local _mjg_re="[{,]\"$2\":(\"[^\"]*\"|[-0-9.]+|true|false|null)" _mjg_v

	[[ $3 =~ $_mjg_re ]] || return 1
	_mjg_v=${BASH_REMATCH[1]}
	_mjg_v=${_mjg_v#\"}
	printf -v "$1" %s "${_mjg_v%\"}"
}

# mrc_json_values ARRAY JSON [numbers]: ARRAY (an associative array of the
# caller) gets every KEY -> value of the flat JSON object, as "mrc -j
# stats show" and "mrc -j config show" print it: numbers as they are,
# strings without their quotes (none of the tool's strings holds a comma
# or a quote); with "numbers", integers only, other values left out.
mrc_json_values() {
	local -n _mjv_out=$1
	local _mjv_kv _mjv_k _mjv_all _mjv_s=${2#\{}

	IFS=, read -ra _mjv_all <<<"${_mjv_s%\}}"
	for _mjv_kv in "${_mjv_all[@]}"; do
		_mjv_k=${_mjv_kv%%:*}
		_mjv_kv=${_mjv_kv#*:}
		if [ -n "${3:-}" ]; then
			[[ $_mjv_kv =~ ^-?[0-9]+$ ]] || continue
		else
			_mjv_kv=${_mjv_kv#\"}
			_mjv_kv=${_mjv_kv%\"}
		fi
		_mjv_out[${_mjv_k//\"/}]=$_mjv_kv
	done
}

# mrc_json_numbers ARRAY JSON: mrc_json_values, integers only.
mrc_json_numbers() {
	mrc_json_values "$1" "$2" numbers
}

# mrc_json_objects ARRAY JSON: ARRAY (the caller's) gets the objects of
# JSON, a list of flat objects as "mrc -j conn show" prints it (no
# nesting, no brace inside a string), one per element; fails if JSON is
# not a list.
mrc_json_objects() {
	local -n _mjo_out=$1
	local _mjo_j=$2 _mjo_obj

	_mjo_out=()
	[[ $_mjo_j == "["* ]] || return 1
	_mjo_j=${_mjo_j#[}
	while [[ $_mjo_j == "{"* ]]; do
		_mjo_obj=${_mjo_j%%\}*}\}
		_mjo_j=${_mjo_j#"$_mjo_obj"}
		_mjo_j=${_mjo_j#,}
		_mjo_out+=("$_mjo_obj")
	done
}

# mrc_json_max VAR KEY JSON DEFAULT: set VAR to the largest number KEY has
# in the objects of JSON, a list (mrc_json_objects), or to DEFAULT if it
# has none.
mrc_json_max() {
	local _mjm_objs=() _mjm_o _mjm_v _mjm_max=$4 _mjm_any=0

	mrc_json_objects _mjm_objs "$3"
	for _mjm_o in "${_mjm_objs[@]}"; do
		mrc_json_get _mjm_v "$2" "$_mjm_o" || continue
		if [ "$_mjm_any" = 0 ] || [ "$_mjm_v" -gt "$_mjm_max" ]; then
			_mjm_max=$_mjm_v
		fi
		_mjm_any=1
	done
	printf -v "$1" %s "$_mjm_max"
}

# mrc_flat_json KEY JSON: one number or string of a flat JSON object, as
# "mrc -j stats show" and "mrc -j config show" print (mrc_json_get);
# fails if KEY is absent.
mrc_flat_json() {
	local v

	if mrc_json_get v "$1" "$2"; then
		echo "$v"
	else
		echo "mrc_flat_json: no $1" >&2
		return 1
	fi
}

# mrc_conn_get NS DPORT KEY...: the values of KEYs (one line, by spaces)
# of the first connection in NS whose peer port is DPORT, from the flat
# objects of "mrc -j conn show"; fails if there is none.
mrc_conn_get() {
	local objs=() obj vals=() k v re="[{,]\"dport\":$2[,}]"

	mrc_json_objects objs "$("$MRC_TOOL" -n "$1" -j conn show 2>/dev/null)" ||
		return 1
	shift 2
	for obj in "${objs[@]}"; do
		[[ $obj =~ $re ]] || continue
		for k in "$@"; do
			mrc_json_get v "$k" "$obj" || return 1
			vals+=("$v")
		done
		echo "${vals[*]}"
		return 0
	done
	return 1
}

# mrc_conn_count NS: how many connections "mrc -j conn show" lists in NS
# (its flat objects counted by their closing braces, without jq).
mrc_conn_count() {
	local json

	json=$("$MRC_TOOL" -n "$1" -j conn show) || return 1
	json=${json//[^\}]/}
	echo "${#json}"
}

# mrc_stat NS NAME: one counter of the namespace, from "mrc -j stats".
mrc_stat() {
	mrc_flat_json "$2" "$("$MRC_TOOL" -n "$1" -j stats show)"
}

# mrc_setting NS NAME: one setting of the namespace, from "mrc -j config".
mrc_setting() {
	mrc_flat_json "$2" "$("$MRC_TOOL" -n "$1" -j config show)"
}

# The tool and the module must exist: build them first (make).
mrc_require_build() {
	if [ ! -f "$MRC_KO" ] || [ ! -x "$MRC_TOOL" ]; then
		echo "# $MRC_KO or $MRC_TOOL missing: run make" >&2
		exit $KSFT_FAIL
	fi
}

# mrc_require_tools FILE...: the selftest helpers FILE... are built, and
# jq is installed; otherwise fail and end the test.
mrc_require_tools() {
	local f
	for f in "$@"; do
		[ -x "$f" ] || { mrc_fail "$(basename "$f") is there" "$f missing: run make"; mrc_done; }
	done
	command -v jq >/dev/null || { mrc_fail "jq is installed"; mrc_done; }
}

# mrc_pair: the "pair" topology.  Two hosts, namespaces $MRC_H1 and
# $MRC_H2, joined by one veth (h1: eth0 10.0.1.1/24 fd00:1::1/64, h2: eth0
# 10.0.1.2/24 fd00:1::2/64).  Removed on exit.
MRC_H1_ADDR4=10.0.1.1
MRC_H2_ADDR4=10.0.1.2
MRC_H1_ADDR6=fd00:1::1
MRC_H2_ADDR6=fd00:1::2
mrc_pair() {
	[ -d /sys/module/veth ] || modprobe veth 2>/dev/null
	mrc_ns_create MRC_H1 || return 1
	mrc_ns_create MRC_H2 || return 1
	# shellcheck disable=SC2153 # mrc_ns_create sets them
	ip link add eth0 netns "$MRC_H1" type veth peer name eth0 \
		netns "$MRC_H2" || return 1
	ip -n "$MRC_H1" addr add "$MRC_H1_ADDR4/24" dev eth0
	ip -n "$MRC_H2" addr add "$MRC_H2_ADDR4/24" dev eth0
	ip -n "$MRC_H1" addr add "$MRC_H1_ADDR6/64" dev eth0 nodad
	ip -n "$MRC_H2" addr add "$MRC_H2_ADDR6/64" dev eth0 nodad
	ip -n "$MRC_H1" link set eth0 up
	ip -n "$MRC_H2" link set eth0 up
}

# mrc_link_stat NS DEV rx|tx [FIELD]: the packets DEV in NS received or
# sent, or another of its counters in that direction (dropped, errors).
mrc_link_stat() {
	local j re="\"$3\":\\{[^}]*\"${4:-packets}\":([0-9]+)"

	j=$(ip -n "$1" -s -j link show dev "$2")
	[[ $j =~ $re ]] && echo "${BASH_REMATCH[1]}"
}

# mrc_netem NS DEV ARGS...: replace the root qdisc with netem ARGS (or
# remove it when ARGS is "none").
mrc_netem() {
	local ns=$1 dev=$2
	shift 2
	tc -n "$ns" qdisc del dev "$dev" root 2>/dev/null
	[ "$1" = none ] && return 0
	[ -d /sys/module/sch_netem ] || modprobe sch_netem 2>/dev/null
	tc -n "$ns" qdisc add dev "$dev" root netem "$@"
}

# mrc_diag [NS...]: what a failed test leaves behind, as TAP diagnostics:
# the non-zero counters of each namespace (default: the pair's hosts) and
# the kernel stacks of mrc_msg's threads.
mrc_diag() {
	local ns p t
	[ $# -gt 0 ] || set -- "$MRC_H1" "$MRC_H2"
	for ns in "$@"; do
		echo "# $ns: $("$MRC_TOOL" -n "$ns" stats show |
			       grep -v ' 0$' | tr '\n' ' ')"
	done
	for p in $(pgrep mrc_msg); do
		for t in /proc/"$p"/task/*; do
			echo "# task $t: $(head -n 4 "$t/stack" | tr '\n' ' ')"
		done
	done
}

# mrc_listen_idle NS ADDR PORT OUT: in the background, an IPv4 mrc
# listener on ADDR:PORT in NS that never accepts (backlog 1000); it
# prints "listening" to OUT.  Its pid is in $mrc_listen_pid (and
# mrc_pids, for mrc_cleanup).
mrc_listen_idle() {
	ip netns exec "$1" python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_SEQPACKET, 254)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(1000)
print("listening", flush=True)
time.sleep(600)' "$2" "$3" >"$4" 2>&1 &
	mrc_listen_pid=$!
	mrc_pids+=("$mrc_listen_pid")
}

# mrc_wait_listening FILE: wait (up to 10 s) until a server started in the
# background has written "listening" to FILE.
mrc_wait_listening() {
	local i
	for ((i = 0; i < 100; i++)); do
		mrc_file_has "$1" listening && return 0
		mrc_nap 0.1
	done
	return 1
}

# mrc_transfer_start CLIENT-NS SERVER-NS SERVER-ADDR [MRC_MSG-ARGS...]:
# start mrc_msg in the background, its server in SERVER-NS and then its
# client in CLIENT-NS, connecting to SERVER-ADDR (IPv6 if it has a colon).
# Both get the same ARGS.  mrc_transfer_wait collects it; one more can
# run beside it when it is set aside (mrc_transfer_aside).  The mrc port
# it uses is in $MRC_XFER_PORT.
mrc_transfer_start() {
	local cns=$1 sns=$2 addr=$3 v6=() cg=${MRC_XFER_SERVER_CGROUP:-}
	shift 3
	[[ "$addr" = *:* ]] && v6=(-6)
	MRC_XFER_PORT=$((7000 + RANDOM % 1000))
	[ "$MRC_XFER_PORT" != "${mrc_xfer_aside[0]:-}" ] ||
		MRC_XFER_PORT=$((MRC_XFER_PORT + 1))
	mrc_xfer_ns=("$cns" "$sns")
	mrc_xfer_out=$(mktemp)
	# MRC_XFER_SERVER_CGROUP: a cgroup v2 directory the server runs in
	# (mrc_msg -N enters the namespace itself, without "ip netns exec")
	(
		[ -z "$cg" ] || echo "$BASHPID" >"$cg/cgroup.procs" || exit
		exec "$MRC_SELFTESTS/mrc_msg" server -N "$sns" \
			"${v6[@]}" -p "$MRC_XFER_PORT" "$@"
	) >"$mrc_xfer_out" 2>&1 &
	mrc_xfer_spid=$!
	mrc_pids+=("$mrc_xfer_spid")
	mrc_wait_listening "$mrc_xfer_out"
	timeout "${MRC_TRANSFER_TIMEOUT:-120}" \
		"$MRC_SELFTESTS/mrc_msg" client -N "$cns" "${v6[@]}" -a "$addr" \
		-p "$MRC_XFER_PORT" "$@" >"$mrc_xfer_out.c" 2>&1 &
	mrc_xfer_cpid=$!
	mrc_pids+=("$mrc_xfer_cpid")
}

# mrc_wait_ready FILE: wait up to 10 s for a helper to create FILE (it
# is listening), then remove it.
mrc_wait_ready() {
	local _i
	for ((_i = 0; _i < 100; _i++)); do
		[ -e "$1" ] && break
		mrc_nap 0.1
	done
	rm -f "$1"
}

# mrc_transfer_running: is the client of the current transfer still running?
mrc_transfer_running() {
	kill -0 "$mrc_xfer_cpid" 2>/dev/null
}

# mrc_transfer_stop: make the client of the current transfer stop sending
# and finish normally (SIGUSR1 to mrc_msg; give the server -n 0).
mrc_transfer_stop() {
	local p
	for p in $(pgrep -P "$mrc_xfer_cpid"); do
		kill -USR1 "$p" 2>/dev/null
	done
}

# mrc_transfer_aside: set the current transfer aside, so that the next
# mrc_transfer_start runs beside it; mrc_transfer_back makes it current
# again (after the other has been waited for).
mrc_xfer_aside=()
mrc_transfer_aside() {
	mrc_xfer_aside=("$MRC_XFER_PORT" "$mrc_xfer_out" "$mrc_xfer_spid"
			"$mrc_xfer_cpid" "${mrc_xfer_ns[@]}")
}

mrc_transfer_back() {
	MRC_XFER_PORT=${mrc_xfer_aside[0]}
	mrc_xfer_out=${mrc_xfer_aside[1]}
	mrc_xfer_spid=${mrc_xfer_aside[2]}
	mrc_xfer_cpid=${mrc_xfer_aside[3]}
	mrc_xfer_ns=("${mrc_xfer_aside[@]:4}")
	mrc_xfer_aside=()
}

# mrc_transfer_wait NAME: wait for the transfer mrc_transfer_start began
# and check that every message the client sent arrived once, intact and
# in order.  Prints the server's summary as a diagnostic.  Returns 0 when
# the check passed.
mrc_transfer_wait() {
	local name=$1 out=$mrc_xfer_out rc src sent delivered sline dline
	wait "$mrc_xfer_cpid"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		mrc_diag "${mrc_xfer_ns[@]}"
		kill "$mrc_xfer_spid" 2>/dev/null
	fi
	wait "$mrc_xfer_spid"
	src=$?
	sline=$(mrc_file_line "$out.c" 'sent=*')
	dline=$(mrc_file_line "$out" 'delivered=*')
	sent=${sline#sent=}
	sent=${sent%% *}
	delivered=${dline#delivered=}
	delivered=${delivered%% *}
	if [ "$rc" -eq 0 ] && [ "$src" -eq 0 ] && [ -n "$sent" ] &&
	   [ "$sent" = "$delivered" ]; then
		mrc_ok "$name"
		rc=0
	else
		mrc_fail "$name" "client exit $rc, server exit $src, sent '$sent', delivered '$delivered': $(tr '\n' ' ' <"$out") $(tr '\n' ' ' <"$out.c")"
		rc=1
	fi
	echo "# $name: $dline $(mrc_file_line "$out.c" '*seconds=*')"
	rm -f "$out" "$out.c"
	return "$rc"
}

# mrc_transfer_between NAME CLIENT-NS SERVER-NS SERVER-ADDR ARGS...: run
# mrc_msg between any two namespaces and check every message arrived
# once, intact and in order.
mrc_transfer_between() {
	local name=$1
	shift
	mrc_transfer_start "$@"
	mrc_transfer_wait "$name"
}

# mrc_transfer NAME FAMILY CLIENT-ARGS...: run mrc_msg between the pair
# (server in h2, client in h1) and check every message arrived once,
# intact and in order.  FAMILY is 4 or 6.  Prints the server's summary as
# a diagnostic.
mrc_transfer() {
	local name=$1 fam=$2 addr=$MRC_H2_ADDR4
	shift 2
	[ "$fam" = 6 ] && addr=$MRC_H2_ADDR6
	mrc_transfer_between "$name" "$MRC_H1" "$MRC_H2" "$addr" "$@"
}

# mrc_conn_cid NS [DADDR [DPORT]]: the local id of a connection in NS (to
# DADDR; an established one, whose peer port is DPORT, first), from
# "mrc -j conn show"; empty when there is none.
mrc_conn_cid() {
	local objs=() obj daddr state dport cid score best="" best_score=9

	mrc_json_objects objs "$("$MRC_TOOL" -n "$1" -j conn show 2>/dev/null)" ||
		return 0
	for obj in "${objs[@]}"; do
		daddr=
		mrc_json_get daddr daddr "$obj"
		[ -z "${2:-}" ] || [ "$daddr" = "$2" ] || continue
		mrc_json_get cid local_cid "$obj" || continue
		state=
		dport=
		mrc_json_get state state "$obj"
		mrc_json_get dport dport "$obj"
		score=0
		[ "$state" = established ] || score=2
		[ "$dport" = "${3:-}" ] || score=$((score + 1))
		if [ "$score" -lt "$best_score" ]; then
			best=$cid
			best_score=$score
		fi
	done
	[ -z "$best" ] || echo "$best"
}

# ---------------------------------------------------------------------
# The "fabric" topology: two leaves, N spines, hosts on both leaves.
#
#   hosts  FH1 ... (leaf 1)                  FH2 ... (leaf 2)
#            | eth0 = l1-hJ                      | eth0 = l2-hJ
#          leaf1 --- l1-sS = sS-l1 --- spineS --- sS-l2 = l2-sS --- leaf2
#
# Namespaces (random names): $MRC_LEAF1 $MRC_LEAF2 (also ${MRC_LEAF[L]}),
# ${MRC_SPINE[S]} for S in 1..$MRC_FABRIC_SPINES, ${MRC_FHOSTS1[J]} and
# ${MRC_FHOSTS2[J]} for J in 1..$MRC_FABRIC_HOSTS; $MRC_FH1 and $MRC_FH2
# are the first host of each leaf.
#
# Addresses: host J of leaf L is 10.L.0.J/32 and fd00:aL::J/128 (first
# hosts: $MRC_FH1_ADDR4 $MRC_FH2_ADDR4 $MRC_FH1_ADDR6 $MRC_FH2_ADDR6),
# its gateway 10.L.0.254 / fd00:aL::fe on every host port of the leaf.
# The link of leaf L and spine S is 10.(100+S).L.0/24 and
# fd00:(100+S):L::/64, .1/::1 on the leaf, .2/::2 on the spine.  Every
# leaf routes the other leaf's hosts (10.L.0.0/16, fd00:aL::/64) over all
# spines (ECMP, hash policy 1: addresses, protocol and ports); every
# spine has one route to each leaf.
# shellcheck disable=SC2034 # for the scripts that source this file
{
MRC_FH1_ADDR4=10.1.0.1
MRC_FH2_ADDR4=10.2.0.1
MRC_FH1_ADDR6=fd00:a1::1
MRC_FH2_ADDR6=fd00:a2::1
}
MRC_FABRIC_SPINES=0
MRC_FABRIC_HOSTS=0
MRC_FABRIC_RATE=
# shellcheck disable=SC2034 # for the scripts that source this file
declare -a MRC_LEAF MRC_SPINE MRC_FHOSTS1 MRC_FHOSTS2

# mrc_fabric_addr L J [6]: address of host J on leaf L.
mrc_fabric_addr() {
	if [ "${3:-4}" = 6 ]; then
		echo "fd00:a$1::$2"
	else
		echo "10.$1.0.$2"
	fi
}

# mrc_fabric_prefix L [6]: the prefix of leaf L's hosts.
mrc_fabric_prefix() {
	if [ "${2:-4}" = 6 ]; then
		echo "fd00:a$1::/64"
	else
		echo "10.$1.0.0/16"
	fi
}

# mrc_fabric_spine_addr S L [6]: the spine's address on its link to leaf L
# (the leaf's own end is the same with 1 in place of 2).
mrc_fabric_spine_addr() {
	if [ "${3:-4}" = 6 ]; then
		echo "fd00:$((100 + $1)):$2::2"
	else
		echo "10.$((100 + $1)).$2.2"
	fi
}

# sysctls of a router namespace
mrc_fabric_router_sysctls() {
	ip netns exec "$1" sysctl -qw net.ipv4.ip_forward=1 \
		net.ipv4.conf.all.rp_filter=0 \
		net.ipv4.conf.default.rp_filter=0 \
		net.ipv4.fib_multipath_hash_policy=1 \
		net.ipv6.fib_multipath_hash_policy=1 \
		net.ipv6.conf.all.forwarding=1 \
		net.ipv6.conf.all.keep_addr_on_down=1 \
		net.ipv6.conf.default.keep_addr_on_down=1 \
		net.ipv6.conf.all.accept_dad=0 \
		net.ipv6.conf.default.accept_dad=0 >/dev/null
}

# mrc_fabric_leaf_routes L: leaf L's multipath routes to the other
# leaf's hosts, as "ip -batch" lines.
mrc_fabric_leaf_routes() {
	local l=$1 f s line
	for f in 4 6; do
		line="route replace $(mrc_fabric_prefix $((3 - l)) "$f")"
		for ((s = 1; s <= MRC_FABRIC_SPINES; s++)); do
			line+=" nexthop via $(mrc_fabric_spine_addr "$s" "$l" "$f") dev l$l-s$s"
		done
		echo "$line"
	done
}

# mrc_fabric_spine_routes S [L [FAMILY]]: spine S's routes to the hosts
# of leaf L (default both leaves) in FAMILY (default both), as "ip -batch"
# lines.
mrc_fabric_spine_routes() {
	local s=$1 l f via
	for l in ${2:-1 2}; do
		for f in ${3:-4 6}; do
			via=$(mrc_fabric_spine_addr "$s" "$l" "$f")
			echo "route replace $(mrc_fabric_prefix "$l" "$f") via ${via%2}1 dev s$s-l$l"
		done
	done
}

# mrc_fabric_routes: (re)install the routes of every leaf and spine, e.g.
# after a link came back up (the kernel drops the routes of a link that
# goes down; "replace" makes this idempotent).
mrc_fabric_routes() {
	local l s
	for l in 1 2; do
		mrc_fabric_leaf_routes "$l" | ip -n "${MRC_LEAF[l]}" -batch - ||
			return 1
	done
	for ((s = 1; s <= MRC_FABRIC_SPINES; s++)); do
		mrc_fabric_spine_routes "$s" | ip -n "${MRC_SPINE[s]}" -batch - ||
			return 1
	done
}

# mrc_fabric_spine_route S L FAMILY: re-install spine S's route to leaf
# L's hosts.
mrc_fabric_spine_route() {
	mrc_fabric_spine_routes "$1" "$2" "$3" | ip -n "${MRC_SPINE[$1]}" -batch -
}

# mrc_fabric_shape DEV RATE: tbf on DEV's egress, as a "tc -batch" line.
mrc_fabric_shape() {
	echo "qdisc replace dev $1 root handle 1: tbf rate $2 burst ${MRC_FABRIC_BURST:-32kb} limit ${MRC_FABRIC_LIMIT:-256kb}"
}

# mrc_fabric_hash_headers NS: multipath hash of router NS on the packet
# headers only (policy 3, fields 0x37: addresses, protocol, ports).
# Policy 1 reuses skb->hash when the stack set it from L4 (skb->l4_hash),
# which for TCP is the sending socket's txhash, carried across veth; TCP
# changes it on an RTO (sk_rethink_txhash), so under policy 1 a TCP flow
# escapes a dead path, as it could not behind real switches.
mrc_fabric_hash_headers() {
	ip netns exec "$1" sysctl -qw net.ipv4.fib_multipath_hash_policy=3 \
		net.ipv6.fib_multipath_hash_policy=3 \
		net.ipv4.fib_multipath_hash_fields=0x37 \
		net.ipv6.fib_multipath_hash_fields=0x37 >/dev/null
}

# mrc_fabric [-s SPINES] [-h HOSTS_PER_LEAF] [-r RATE] [-H]: build the
# fabric (see above).  RATE (a tc rate, e.g. 100mbit) shapes every link,
# both ways, with tbf.  -H: the leaves and spines hash the headers only
# (mrc_fabric_hash_headers) instead of policy 1.  Everything is removed
# when the test exits.
mrc_fabric() {
	local opt spines=4 hosts=1 rate='' hdrs=0 l s j f a n h OPTIND=1
	local -A cmds tcs
	while getopts "s:h:r:H" opt; do
		case $opt in
		s) spines=$OPTARG ;;
		h) hosts=$OPTARG ;;
		r) rate=$OPTARG ;;
		H) hdrs=1 ;;
		*) echo "usage: mrc_fabric [-s SPINES] [-h HOSTS_PER_LEAF] [-r RATE] [-H]" >&2
		   return 1 ;;
		esac
	done
	MRC_FABRIC_SPINES=$spines
	MRC_FABRIC_HOSTS=$hosts
	MRC_FABRIC_RATE=$rate
	modprobe veth 2>/dev/null
	[ -z "$rate" ] || modprobe sch_tbf 2>/dev/null
	MRC_LEAF=()
	MRC_SPINE=()
	MRC_FHOSTS1=()
	MRC_FHOSTS2=()
	for l in 1 2; do
		mrc_ns_create "MRC_LEAF[$l]" || return 1
		mrc_fabric_router_sysctls "${MRC_LEAF[l]}" || return 1
		# a leaf stops using an uplink whose carrier is gone, as a
		# switch withdraws a next hop whose link went down (the
		# kernel would keep hashing flows into it); spines keep
		# theirs, so a far-side failure still blackholes what leaf 1
		# sends through the spine
		ip netns exec "${MRC_LEAF[l]}" sysctl -qw \
			net.ipv4.conf.all.ignore_routes_with_linkdown=1 \
			net.ipv6.conf.all.ignore_routes_with_linkdown=1 \
			>/dev/null || return 1
		if [ "$hdrs" = 1 ]; then
			mrc_fabric_hash_headers "${MRC_LEAF[l]}" || return 1
		fi
		for ((j = 1; j <= hosts; j++)); do
			mrc_ns_create h || return 1
			if [ "$l" = 1 ]; then
				MRC_FHOSTS1[j]=$h
			else
				MRC_FHOSTS2[j]=$h
			fi
		done
	done
	for ((s = 1; s <= spines; s++)); do
		mrc_ns_create "MRC_SPINE[$s]" || return 1
		mrc_fabric_router_sysctls "${MRC_SPINE[s]}" || return 1
		if [ "$hdrs" = 1 ]; then
			mrc_fabric_hash_headers "${MRC_SPINE[s]}" || return 1
		fi
	done
	# shellcheck disable=SC2034 # for the scripts that source this file
	{ MRC_LEAF1=${MRC_LEAF[1]}; MRC_LEAF2=${MRC_LEAF[2]}; }
	# shellcheck disable=SC2034 # for the scripts that source this file
	{ MRC_FH1=${MRC_FHOSTS1[1]}; MRC_FH2=${MRC_FHOSTS2[1]}; }

	# the links, then per namespace one batch of addresses and routes
	{
		for ((s = 1; s <= spines; s++)); do
			for l in 1 2; do
				echo "link add l$l-s$s netns ${MRC_LEAF[l]} type veth peer name s$s-l$l netns ${MRC_SPINE[s]}"
			done
		done
		for l in 1 2; do
			for ((j = 1; j <= hosts; j++)); do
				[ "$l" = 1 ] && h=${MRC_FHOSTS1[j]} || h=${MRC_FHOSTS2[j]}
				echo "link add eth0 netns $h type veth peer name l$l-h$j netns ${MRC_LEAF[l]}"
			done
		done
	} | ip -batch - || return 1
	for ((s = 1; s <= spines; s++)); do
		for l in 1 2; do
			for f in 4 6; do
				a=$(mrc_fabric_spine_addr "$s" "$l" "$f")
				if [ "$f" = 4 ]; then
					n=/24
				else
					n="/64 nodad"
				fi
				cmds[${MRC_SPINE[s]}]+="address add $a$n dev s$s-l$l
"
				cmds[${MRC_LEAF[l]}]+="address add ${a%2}1$n dev l$l-s$s
"
			done
			cmds[${MRC_SPINE[s]}]+="link set s$s-l$l up
"
			cmds[${MRC_LEAF[l]}]+="link set l$l-s$s up
"
			if [ -n "$rate" ]; then
				tcs[${MRC_SPINE[s]}]+="$(mrc_fabric_shape "s$s-l$l" "$rate")
"
				tcs[${MRC_LEAF[l]}]+="$(mrc_fabric_shape "l$l-s$s" "$rate")
"
			fi
		done
	done
	for l in 1 2; do
		for ((j = 1; j <= hosts; j++)); do
			[ "$l" = 1 ] && h=${MRC_FHOSTS1[j]} || h=${MRC_FHOSTS2[j]}
			cmds[$h]="address add $(mrc_fabric_addr "$l" "$j")/32 dev eth0
address add $(mrc_fabric_addr "$l" "$j" 6)/128 dev eth0 nodad
link set eth0 up
route add 10.$l.0.254 dev eth0
route add default via 10.$l.0.254
route add fd00:a$l::fe dev eth0
route add default via fd00:a$l::fe
"
			cmds[${MRC_LEAF[l]}]+="address add 10.$l.0.254/32 dev l$l-h$j
address add fd00:a$l::fe/128 dev l$l-h$j nodad
link set l$l-h$j up
route add $(mrc_fabric_addr "$l" "$j")/32 dev l$l-h$j
route add $(mrc_fabric_addr "$l" "$j" 6)/128 dev l$l-h$j
"
			if [ -n "$rate" ]; then
				tcs[$h]="$(mrc_fabric_shape eth0 "$rate")
"
				tcs[${MRC_LEAF[l]}]+="$(mrc_fabric_shape "l$l-h$j" "$rate")
"
			fi
		done
		cmds[${MRC_LEAF[l]}]+=$(mrc_fabric_leaf_routes "$l")
	done
	for ((s = 1; s <= spines; s++)); do
		cmds[${MRC_SPINE[s]}]+=$(mrc_fabric_spine_routes "$s")
	done
	for n in "${!cmds[@]}"; do
		printf '%s\n' "${cmds[$n]}" | ip -n "$n" -batch - || return 1
	done
	for n in "${!tcs[@]}"; do
		printf '%s' "${tcs[$n]}" | tc -n "$n" -batch - || return 1
	done
}

# mrc_fabric_uplink_tx L I: packets sent by leaf L on its uplink to spine I.
mrc_fabric_uplink_tx() {
	mrc_link_stat "${MRC_LEAF[$1]}" "l$1-s$2" tx
}

# mrc_fabric_uplinks_tx L [packets|bytes]: the same for every uplink of
# leaf L, in spine order, on one line; packets, or bytes.  One "ip" and
# no jq (the tests sample these counters hundreds of times): each
# uplink's first "tx" object after its name is its own.
mrc_fabric_uplinks_tx() {
	local j rest s counts=() re="\"tx\":\\{[^}]*\"${2:-packets}\":([0-9]+)"

	j=$(ip -n "${MRC_LEAF[$1]}" -s -j link show) || return 1
	for ((s = 1; s <= MRC_FABRIC_SPINES; s++)); do
		rest=${j#*\"ifname\":\"l"$1"-s"$s"\"}
		[ "$rest" != "$j" ] && [[ $rest =~ $re ]] || return 1
		counts+=("${BASH_REMATCH[1]}")
	done
	echo "${counts[*]}"
}

# mrc_fabric_spines_of LEAFNS SRC DST DPORT [SPORT...]: which spine leaf
# LEAFNS sends each UDP packet SRC:SPORT -> DST:DPORT to, as lines
# "SPORT SPINE" (SPINE 0: no uplink).  Source ports come from the
# arguments, or one a line from stdin.  The leaf is asked as if the packet
# had arrived from the host: "ip route get ... iif HOST-PORT ipproto udp
# sport P dport Q" runs the input route lookup on a packet built with
# these ports, so it takes the forwarding path's multipath hash.
mrc_fabric_spines_of() {
	local ns=$1 src=$2 dst=$3 dport=$4 iif p i=0 ports=() spines=()
	shift 4
	iif=$(ip -n "$ns" -o route get "$src" |
	      sed -n 's/.* dev \([^ ]*\).*/\1/p')
	[ -n "$iif" ] || return 1
	if [ $# -gt 0 ]; then
		ports=("$@")
	else
		mapfile -t ports
	fi
	[ ${#ports[@]} -gt 0 ] || return 0
	mapfile -t spines < <(
		for p in "${ports[@]}"; do
			echo "route get $dst from $src iif $iif ipproto udp sport $p dport $dport"
		done | ip -n "$ns" -o -force -batch - 2>&1 |
		sed 's/.* dev l[0-9]*-s\([0-9]*\) .*/\1/;t;s/.*/0/')
	for p in "${ports[@]}"; do
		echo "$p ${spines[i]:-0}"
		i=$((i + 1))
	done
}

# mrc_fabric_spine_of LEAFNS SRC DST SPORT DPORT [6]: the spine one UDP
# flow takes from the leaf (0 if none); see mrc_fabric_spines_of.  The
# family follows from the addresses; the last argument is accepted for
# symmetry with the other helpers.
mrc_fabric_spine_of() {
	mrc_fabric_spines_of "$1" "$2" "$3" "$5" "$4" | cut -d ' ' -f 2
}

# mrc_fabric_leaf_of NS: the index of a host's leaf (1 or 2), 0 if NS is
# not a fabric host.
mrc_fabric_leaf_of() {
	local j
	for ((j = 1; j <= MRC_FABRIC_HOSTS; j++)); do
		[ "$1" = "${MRC_FHOSTS1[j]}" ] && { echo 1; return; }
		[ "$1" = "${MRC_FHOSTS2[j]}" ] && { echo 2; return; }
	done
	echo 0
}

# mrc_fabric_link_down S L END / mrc_fabric_link_up S L END: take the link
# of spine S and leaf L down (or up again) at one END, "spine" or "leaf".
# Seen from the other leaf, the spine end is the far side (its ECMP route
# keeps sending into the dead link: the other end only lost its carrier),
# the leaf end of its own link the near side (ECMP drops the dead next
# hop and rehashes).  Up re-installs the routes the kernel removed.
mrc_fabric_link_down() {
	if [ "$3" = spine ]; then
		ip -n "${MRC_SPINE[$1]}" link set "s$1-l$2" down
	else
		ip -n "${MRC_LEAF[$2]}" link set "l$2-s$1" down
	fi
}

mrc_fabric_link_up() {
	local l
	if [ "$3" = spine ]; then
		ip -n "${MRC_SPINE[$1]}" link set "s$1-l$2" up || return 1
	else
		ip -n "${MRC_LEAF[$2]}" link set "l$2-s$1" up || return 1
	fi
	mrc_fabric_spine_routes "$1" | ip -n "${MRC_SPINE[$1]}" -batch - ||
		return 1
	# the leaves' multipath routes survive unless every next hop died;
	# re-adding them fails while another of their links is down
	for l in 1 2; do
		mrc_fabric_leaf_routes "$l" |
			ip -n "${MRC_LEAF[l]}" -force -batch - 2>/dev/null
	done
	return 0
}

# The two standard link failures, for traffic from leaf 1 to leaf 2:
# far side (spine S's link to leaf 2, downed at the spine) and near side
# (leaf 1's uplink to spine S, downed at the leaf).
mrc_fabric_far_down() { mrc_fabric_link_down "$1" 2 spine; }
mrc_fabric_far_up() { mrc_fabric_link_up "$1" 2 spine; }
mrc_fabric_near_down() { mrc_fabric_link_down "$1" 1 leaf; }
mrc_fabric_near_up() { mrc_fabric_link_up "$1" 1 leaf; }

# mrc_fabric_blackhole S [L]: spine S silently drops everything to leaf
# L's hosts (default 2), IPv4 and IPv6; mrc_fabric_unblackhole S [L]
# restores its routes.
mrc_fabric_blackhole() {
	local l=${2:-2}
	ip -n "${MRC_SPINE[$1]}" route replace blackhole \
		"$(mrc_fabric_prefix "$l")" &&
	ip -n "${MRC_SPINE[$1]}" -6 route replace blackhole \
		"$(mrc_fabric_prefix "$l" 6)"
}

mrc_fabric_unblackhole() {
	local l=${2:-2}
	mrc_fabric_spine_route "$1" "$l" 4 && mrc_fabric_spine_route "$1" "$l" 6
}

# mrc_fabric_gray S [both|down|up] / mrc_fabric_ungray S: spine S drops
# everything it forwards while every carrier stays up (netem loss 100 % on
# its links' egress), a gray failure no router notices: in both directions
# (the default), only towards leaf 2 ("down": what leaf 1 sends to leaf 2)
# or only towards leaf 1 ("up").
mrc_fabric_gray() {
	local s=$1 l ls
	case "${2:-both}" in
	both) ls=(1 2) ;;
	down) ls=(2) ;;
	up) ls=(1) ;;
	*) return 1 ;;
	esac
	for l in "${ls[@]}"; do
		mrc_fabric_qdisc "${MRC_SPINE[$s]}" "s$s-l$l" netem loss 100% ||
			return 1
	done
}

mrc_fabric_ungray() {
	local l
	for l in 1 2; do
		mrc_fabric_qdisc "${MRC_SPINE[$1]}" "s$1-l$l" none || return 1
	done
}

# mrc_fabric_flap S L END PERIOD_MS SECONDS: in the background, take the
# link of spine S and leaf L down and up at END every PERIOD_MS for
# SECONDS; it ends up.  The flapper's pid goes into $MRC_FLAP_PID.
mrc_fabric_flap() {
	local s=$1 l=$2 end=$3 period=$4 secs=$5
	(
		t=$(sleep 0 & echo $SECONDS)
		p=$(printf '%d.%03d' $((period / 1000)) $((period % 1000)))
		while [ $((SECONDS - t)) -lt "$secs" ]; do
			mrc_fabric_link_down "$s" "$l" "$end"
			sleep "$p"
			mrc_fabric_link_up "$s" "$l" "$end"
			sleep "$p"
		done
	) &
	MRC_FLAP_PID=$!
	mrc_pids+=("$MRC_FLAP_PID")
}

# mrc_fabric_qdisc NS DEV KIND ARGS... | NS DEV none: put a netem, red,
# ... qdisc on one link's egress: under the link's tbf if the fabric is
# shaped (parent 1:1), else at the root; "none" removes it.  Under a
# tbf, "none" puts back the byte fifo tbf had: a tbf whose child is
# deleted gets the noop qdisc, which drops every packet.
mrc_fabric_qdisc() {
	local ns=$1 dev=$2 parent=(root)
	shift 2
	[ -n "$MRC_FABRIC_RATE" ] && parent=(parent 1:1)
	tc -n "$ns" qdisc del dev "$dev" "${parent[@]}" 2>/dev/null
	if [ "$1" = none ]; then
		[ -n "$MRC_FABRIC_RATE" ] || return 0
		set -- bfifo limit "${MRC_FABRIC_LIMIT:-256kb}"
	fi
	modprobe "sch_$1" 2>/dev/null
	tc -n "$ns" qdisc add dev "$dev" "${parent[@]}" handle 10: "$@"
}

# mrc_fabric_diag: per-uplink packet counts and the leaves' routes.
mrc_fabric_diag() {
	local l
	for l in 1 2; do
		echo "# leaf$l uplinks tx: $(mrc_fabric_uplinks_tx "$l")"
		echo "# leaf$l routes: $(ip -n "${MRC_LEAF[l]}" route show |
			tr '\n' ' ')"
	done
}
