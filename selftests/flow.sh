#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Many connections at once, a receiver that stops reading (flow control
# holds the sender with bounded memory), and a peer that disappears (both
# ends fail with ETIMEDOUT within the connection timeout, nothing leaks).

# shellcheck source=selftests/mrc_lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/mrc_lib.sh"
mrc_require_build
mrc_module_load || { mrc_fail "module loads"; mrc_done; }
mrc_pair || { mrc_fail "pair topology"; mrc_done; }

# 64 connections between the same two hosts, thousands of messages each
mrc_transfer "64 connections x 2000 messages, every message once and intact" \
	4 -c 64 -n 2000 -m 1 -M 2K

# A receiver that waits 4 s before reading: the sender fills the window,
# stops, probes, and everything completes once the receiver reads.
before_zw=$(mrc_stat "$MRC_H1" zero_window)
mrc_transfer "stalled receiver: everything delivered once it reads" \
	6 -n 400 -m 1K -M 64K -b 64K -P 4000
mrc_check "stalled receiver: sender stopped by the zero window" \
	test "$(mrc_stat "$MRC_H1" zero_window)" -gt "$before_zw"
mrc_expect_eq "stalled receiver: sender never overran the receive buffer" \
	0 "$(mrc_stat "$MRC_H2" drop_rcvbuf)"

# A peer namespace that disappears mid-transfer.  The link is cut first so
# no RST can tell anyone: both ends must find out by themselves.
peer_gone() {
	local fam=$1 addr=$MRC_H2_ADDR4 v6=() t0 out
	[ "$fam" = 6 ] && { addr=$MRC_H2_ADDR6; v6=(-6); }
	ip netns exec "$MRC_H1" "$MRC_TOOL" config set conn_timeout_ms 3000
	ip netns exec "$MRC_H2" "$MRC_TOOL" config set conn_timeout_ms 3000
	out=$(mktemp)
	# bounded: a connection that never came up must not hang the test
	timeout 60 ip netns exec "$MRC_H2" "$MRC_SELFTESTS/mrc_msg" server \
		"${v6[@]}" -p 7100 -n 100000 -M 64K >"$out.s" 2>&1 &
	local spid=$!
	mrc_pids+=("$spid")
	sleep 0.5
	timeout 60 ip netns exec "$MRC_H1" "$MRC_SELFTESTS/mrc_msg" client \
		"${v6[@]}" -a "$addr" -p 7100 -n 100000 -M 64K >"$out" 2>&1 &
	local cpid=$!
	# cut only an established connection with data flowing (a loaded
	# machine may take a while to get there)
	for _ in $(seq 100); do
		[ "$(ip netns exec "$MRC_H2" "$MRC_TOOL" -j conn show 2>/dev/null |
		     jq '[.[] | select(.state == "established" and
				       .bytes_received > 0)] | length')" -gt 0 ] &&
			break
		sleep 0.1
	done
	t0=$SECONDS
	mrc_netem "$MRC_H1" eth0 loss 100%
	mrc_netem "$MRC_H2" eth0 loss 100%
	wait "$spid"
	mrc_check "IPv$fam peer cut off: receiver fails with ETIMEDOUT" \
		grep -q "Connection timed out" "$out.s"
	wait "$cpid"
	mrc_check "IPv$fam peer cut off: sender fails with ETIMEDOUT" \
		grep -q "Connection timed out" "$out"
	mrc_check "IPv$fam peer cut off: both noticed within 3 s + 10 s slack" \
		test $((SECONDS - t0)) -le 14
	rm -f "$out" "$out.s"
}

peer_gone 4
mrc_check "namespace of the peer deleted" mrc_ns_del "$MRC_H2"
mrc_pair || { mrc_fail "pair topology again"; mrc_done; }
peer_gone 6
mrc_check "peer namespace deleted while its connection timed out" \
	mrc_ns_del "$MRC_H2"
mrc_check "timeout counted" test "$(mrc_stat "$MRC_H1" conn_timedout)" -ge 1

# Every connection above has ended: orphans, timed-out connections and
# children that were never accepted all let go of their socket, so
# nothing holds the module any more.
mrc_check "module unloads after the failure scenarios" \
	mrc_module_unload_when_free 20
mrc_check "module loads again" mrc_module_load

mrc_done
