#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Bad packets over the wire at a live connection.  Host a connects to host
# b; then, from a's namespace, mrc_inject.py (scapy) sends crafted
# datagrams to b's encapsulation port, one class at a time.  For every
# class: b's counters move exactly as the class says (its own drop reason,
# by the number sent, and nothing else), the connection's MRC_INFO on both
# ends is unchanged and nothing was delivered.  At the end the connection
# still carries messages intact.  The VM runner checks the kernel log.

# shellcheck source=selftests/mrc_lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/mrc_lib.sh"
mrc_require_build
mrc_module_load || { mrc_fail "module loads"; mrc_done; }

PYTHON=/usr/bin/python3
INJECT=$MRC_SELFTESTS/mrc_inject.py
HOLD_BIN=$MRC_SELFTESTS/mrc_hold

# scapy is one of the project's dependencies (tools/testing/deps): its
# absence is a failure, not a skip
if ! $PYTHON -c 'import scapy' 2>/dev/null; then
	mrc_fail "scapy available" "python3-scapy missing: run tools/testing/deps"
	mrc_done
fi
if [ ! -x "$HOLD_BIN" ]; then
	mrc_fail "mrc_hold built" "$HOLD_BIN missing: run make"
	mrc_done
fi

tmp=$(mktemp -d)
trap 'mrc_cleanup; rm -rf "$tmp"' EXIT

ns_a=
ns_b=
addr_a=10.0.9.1
addr_b=10.0.9.2

# bi_pair: two namespaces joined by one veth, a=$addr_a, b=$addr_b
bi_pair() {
	modprobe veth 2>/dev/null
	mrc_ns_create ns_a || return 1
	mrc_ns_create ns_b || return 1
	ip link add eth0 netns "$ns_a" type veth peer name eth0 \
		netns "$ns_b" || return 1
	ip -n "$ns_a" addr add "$addr_a/24" dev eth0 || return 1
	ip -n "$ns_b" addr add "$addr_b/24" dev eth0 || return 1
	ip -n "$ns_a" link set eth0 up || return 1
	ip -n "$ns_b" link set eth0 up
}
bi_pair || { mrc_fail "pair topology set up"; mrc_done; }

# idle connections probe their peer every conn_timeout_ms / 3: make that
# longer than the test, so that only the injected packets move counters
for ns in "$ns_a" "$ns_b"; do
	mrc -n "$ns" config set conn_timeout_ms 3600000 ||
		{ mrc_fail "conn_timeout_ms set"; mrc_done; }
done
udp_port=$(mrc_setting "$ns_b" port)
max_msg=$(mrc_setting "$ns_b" max_msg_size)
lport=$((7000 + RANDOM % 1000))

# Two helpers answer commands on their stdin, a line per line, through
# fifos: mrc_hold holds the connection (see mrc_hold.c) and mrc_inject.py
# serves in a's namespace (python and scapy start slowly in the VM: once).
mkfifo "$tmp/hold.in" "$tmp/hold.out" "$tmp/inj.in" "$tmp/inj.out"
"$HOLD_BIN" "$ns_a" "$ns_b" "$addr_b" "$lport" <"$tmp/hold.in" \
	>"$tmp/hold.out" 2>"$tmp/hold.err" &
mrc_pids+=("$!")
exec {hold_in}>"$tmp/hold.in" {hold_out}<"$tmp/hold.out"
ip netns exec "$ns_a" $PYTHON "$INJECT" serve <"$tmp/inj.in" \
	>"$tmp/inj.out" 2>"$tmp/inj.err" &
mrc_pids+=("$!")
exec {inj_in}>"$tmp/inj.in" {inj_out}<"$tmp/inj.out"

# hold_line: the connection helper's next output line, into $line
hold_line() {
	read -r -t 120 line <&"$hold_out"
}

# hold_cmd CMD: one command with a one-line answer, into $line
hold_cmd() {
	line=
	echo "$1" >&"$hold_in" && hold_line
}

# hold_info: both ends' MRC_INFO into info[a.KEY] and info[b.KEY]
declare -A info
hold_info() {
	info=()
	echo info >&"$hold_in" || return 1
	while hold_line; do
		[ "$line" = end ] && return 0
		info[${line%%=*}]=${line#*=}
	done
	return 1
}

# state_str: what bad packets must not change, on either end, from info[]
# into $state (no subshells: processes are slow in an emulated VM)
state_str() {
	local side key
	state=
	for side in a b; do
		for key in state local_cid peer_cid snd_una snd_nxt rcv_nxt \
			   in_flight msgs_sent msgs_received bytes_sent \
			   bytes_received pkts_received retrans ce; do
			state+="$side.$key=${info[$side.$key]} "
		done
	done
	# b's view of a's window (a's of b's moves when b answers)
	state+="b.peer_rwnd=${info[b.peer_rwnd]}"
}

# inj_cmd ARGS...: have the injector send one class; its answer line
inj_cmd() {
	local line
	echo "$*" >&"$inj_in" || return 1
	read -r -t 120 line <&"$inj_out" || return 1
	echo "$line"
}

# snapshot NS: "NAME VALUE" lines, the mrc counters of NS and its UDP MIB
# error counters as udp_NAME
# (nsenter: "ip netns exec" is slow in an emulated VM)
# shellcheck disable=SC2016 # an awk program
snapshot() {
	# route_lookups: whether an answer's EV had looked its route up
	# before, not what the packet did
	"$MRC_TOOL" -n "$1" stats show | grep -v '^route_lookups ' &&
	nsenter --net="/run/netns/$1" awk '$1 == "Udp:" {
		if (!n++) { split($0, k); next }
		for (i = 2; i <= NF; i++)
			if (k[i] ~ /^(InErrors|InCsumErrors|NoPorts|RcvbufErrors)$/)
				print "udp_" k[i], $i
	}' /proc/net/snmp
}

# counters_moved BEFORE AFTER: NAME=DELTA of what moved, sorted, by commas
counters_moved() {
	awk 'NR == FNR { a[$1] = $2; next }
	     $2 != a[$1] { print $1 "=" $2 - a[$1] }' "$1" "$2" |
		LC_ALL=C sort | paste -sd, -
}

line=
ready=
read -r -t 120 ready <&"$inj_out"
if [ "$ready" != ready ]; then
	mrc_fail "packet injector started" \
		"mrc_inject.py: ${ready:-no answer} $(tr '\n' ' ' <"$tmp/inj.err")"
	mrc_done
fi
hold_line
if [ "$line" != ready ]; then
	mrc_fail "connection a -> b established" \
		"mrc_hold: ${line:-no answer} $(tr '\n' ' ' <"$tmp/hold.err")"
	mrc_done
fi
mrc_ok "connection a -> b established"
hold_cmd "xfer 10"
mrc_expect_eq "messages both ways before the bad packets" "xfer ok 10" "$line"

hold_info
mrc_expect_eq "both ends established, ids cross-match" \
	"a.state=1 b.state=1 b.local_cid=${info[a.peer_cid]} b.peer_cid=${info[a.local_cid]}" \
	"a.state=${info[a.state]} b.state=${info[b.state]} b.local_cid=${info[b.local_cid]} b.peer_cid=${info[b.peer_cid]}"

# Counters before the first class; each class's "after" is the next one's
# "before" (nothing else runs: the connection is idle).
snapshot "$ns_b" >"$tmp/before.cnt"

# inject NAME CLASS: send one class of bad packets from a to b and check
# b's counters, both ends' state and that nothing was delivered
inject() {
	local name=$1 cls=$2 out sent expect seen before_state

	state_str
	before_state=$state
	out=$(inj_cmd "$cls" \
		--src "$addr_a" --dst "$addr_b" --port "$udp_port" \
		--cid "${info[b.local_cid]}" --peer "${info[b.peer_cid]}" \
		--snd-una "${info[b.snd_una]}" --snd-nxt "${info[b.snd_nxt]}" \
		--rcv-nxt "${info[b.rcv_nxt]}" \
		--msg-id "${info[b.msgs_received]}" \
		--rwnd "${info[b.peer_rwnd]}" \
		--max-msg "$max_msg" --listen-port "$lport" \
		--free-port "$((lport + 1))")
	case "$out" in
	sent=*" expect="*) ;;
	*)
		mrc_fail "$name: counted" \
			"mrc_inject.py: $out $(tail -n 3 "$tmp/inj.err" | tr '\n' ' ')"
		mrc_fail "$name: connection unchanged, nothing delivered"
		return
		;;
	esac
	sent=${out%% *}
	sent=${sent#sent=}
	expect=${out#* expect=}
	# the datagrams are processed in softirq, soon after they are sent;
	# wait a little for anything that should not happen, and longer if
	# they are not all counted yet
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		mrc_nap 0.5
		snapshot "$ns_b" >"$tmp/after.cnt"
		seen=$(counters_moved "$tmp/before.cnt" "$tmp/after.cnt")
		[ "$seen" = "$expect" ] && break
	done
	mv "$tmp/after.cnt" "$tmp/before.cnt"
	mrc_expect_eq "$name: $sent sent, b's counters moved by exactly" \
		"$expect" "$seen"

	hold_info || line="mrc_hold does not answer"
	state_str
	hold_cmd idle
	mrc_expect_eq "$name: connection unchanged, nothing delivered" \
		"$before_state idle ok" "$state $line"
}

inject "truncated headers, every type at every length" short
inject "bad version" version
inject "unknown type" type
inject "unknown or misplaced flags" flags
inject "length field longer or shorter than the datagram" length
inject "UDP length shorter than the IP payload" udp_len_short
inject "UDP length longer than the IP payload" udp_len_long
inject "piece beyond its message end" beyond_end
inject "message larger than max_msg_size (4 GiB)" too_big
inject "zero connection id where one is needed" zero_cid
inject "unknown connection" no_conn
inject "right dst_cid, wrong src_cid" wrong_src_cid
inject "right ids from another address" spoofed
inject "DATA beyond the receive window" out_of_window
inject "DATA already delivered" dup_data
inject "ACK of data never sent" ack_unsent
inject "ACK older than snd_una" ack_old
inject "ACK older than snd_una with later sequence numbers" ack_old_seq
inject "CE on ACKs and probes" ce_control
inject "bad UDP checksum" bad_csum
inject "reserved field set or port zero" bad_field

# a SYN or CONFIRM nobody listens for is refused: the RST reaches a,
# where no connection has the packet's id
before=$(mrc_stat "$ns_a" drop_no_conn)
inject "SYN or CONFIRM to a port nobody listens on" no_listener
mrc_expect_eq "SYN or CONFIRM to a port nobody listens on: refusals reach the sender" 8 \
	"$(($(mrc_stat "$ns_a" drop_no_conn) - before))"

# the connection still works, and delivered only what was sent
hold_cmd "xfer 20"
mrc_expect_eq "messages both ways after the bad packets" "xfer ok 20" "$line"
hold_info
mrc_expect_eq "exactly the messages sent were delivered" \
	"a.msgs_received=30 b.msgs_received=30 a.state=1 b.state=1" \
	"a.msgs_received=${info[a.msgs_received]} b.msgs_received=${info[b.msgs_received]} a.state=${info[a.state]} b.state=${info[b.state]}"
hold_cmd idle
mrc_expect_eq "nothing left to read" "idle ok" "$line"

echo quit >&"$hold_in"
mrc_done
