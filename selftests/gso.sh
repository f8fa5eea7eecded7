#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Runs of packets on one EV as UDP GSO datagrams (the flowlet setting):
# the device sends one packet per datagram, the receiving host cuts them
# into the packets the receiver takes, and messages, WRITEs and READs
# stay whole under loss, duplication, reordering and corruption, on IPv4
# and IPv6.  With flowlet 1 no datagram holds more than one packet.

# shellcheck source=selftests/mrc_lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/mrc_lib.sh"
mrc_require_build
mrc_module_load || { mrc_fail "module loads"; mrc_done; }
mrc_pair || { mrc_fail "pair topology"; mrc_done; }

flowlet() {
	local ns
	for ns in "$MRC_H1" "$MRC_H2"; do
		"$MRC_TOOL" -n "$ns" config set flowlet "$1"
	done
}

# what H1 sends that is not data: every one a datagram of its own
ctl_sent() {
	local k n=0
	for k in out_ack out_syn out_synack out_probe out_rst out_confirm \
		 out_status; do
		n=$((n + $(mrc_stat "$MRC_H1" "$k")))
	done
	echo "$n"
}

# counts NAME FAM ARGS...: one transfer from H1 to H2; sets data, gso,
# gso_pkts (H1's counters), dgrams (the datagrams mrc handed to the
# stack), tx (what H1's eth0 sent, plus what veth dropped when its peer's
# backlog was full, as a loaded host's can be), drops (those drops) and
# rcvd (the packets H2 took) for it
counts() {
	local name=$1 fam=$2 d0 g0 p0 c0 t0 x0 r0
	shift 2
	d0=$(mrc_stat "$MRC_H1" out_data)
	g0=$(mrc_stat "$MRC_H1" out_gso)
	p0=$(mrc_stat "$MRC_H1" out_gso_pkts)
	c0=$(ctl_sent)
	t0=$(mrc_link_stat "$MRC_H1" eth0 tx)
	x0=$(mrc_link_stat "$MRC_H1" eth0 tx dropped)
	r0=$(mrc_stat "$MRC_H2" in_pkts)
	mrc_transfer "$name" "$fam" "$@"
	data=$(($(mrc_stat "$MRC_H1" out_data) - d0))
	gso=$(($(mrc_stat "$MRC_H1" out_gso) - g0))
	gso_pkts=$(($(mrc_stat "$MRC_H1" out_gso_pkts) - p0))
	dgrams=$((data - gso_pkts + gso + $(ctl_sent) - c0))
	drops=$(($(mrc_link_stat "$MRC_H1" eth0 tx dropped) - x0))
	tx=$(($(mrc_link_stat "$MRC_H1" eth0 tx) - t0 + drops))
	rcvd=$(($(mrc_stat "$MRC_H2" in_pkts) - r0))
	echo "# $name: $data data packets, $gso_pkts of them in $gso GSO datagrams; $dgrams datagrams, eth0 sent $((tx - drops)) and dropped $drops; H2 took $rcvd packets"
}

# veth passes a GSO datagram whole: eth0 counts one packet for it.  A
# few packets of neither (ARP, IPv6 neighbour discovery) may join.  Runs
# need several packets allowed out at once: the receiver acknowledges 8
# packets per ACK, and holds them up to 5 ms (an ACK per packet, or the
# 50 us timer on a slow host, clocks the sender out a packet or two at a
# time).
flowlet 8
"$MRC_TOOL" -n "$MRC_H2" config set ack_coalesce 8
"$MRC_TOOL" -n "$MRC_H2" config set ack_delay_us 5000
counts "flowlet 8, 40 messages of 64 KiB: every message once and intact" \
	4 -n 40 -m 64K -M 64K
mrc_check "flowlet 8: runs went as GSO datagrams ($gso)" test "$gso" -gt 0
mrc_check "flowlet 8: a third of the data packets in runs ($gso_pkts of $data)" \
	test $((gso_pkts * 3)) -ge "$data"
mrc_check "flowlet 8: eth0 sent a packet per datagram ($tx for $dgrams)" \
	test "$tx" -ge "$dgrams" -a "$tx" -le $((dgrams + 20))
mrc_check "flowlet 8: eth0 sent fewer packets than data packets ($tx, $data)" \
	test $((tx * 4)) -le $((data * 3))
# a datagram veth dropped held at most 8 of them
mrc_check "flowlet 8: the receiver took every packet cut apart ($rcvd, $data)" \
	test $((rcvd + 8 * drops)) -ge "$data"

counts "flowlet 8, IPv6, 40 messages of 64 KiB: every message once and intact" \
	6 -n 40 -m 64K -M 64K
mrc_check "flowlet 8, IPv6: runs went as GSO datagrams ($gso)" \
	test "$gso" -gt 0 -a $((gso_pkts * 3)) -ge "$data"
mrc_check "flowlet 8, IPv6: eth0 sent a packet per datagram ($tx for $dgrams)" \
	test "$tx" -ge "$dgrams" -a "$tx" -le $((dgrams + 20))

flowlet 1
"$MRC_TOOL" -n "$MRC_H2" config set ack_coalesce 1
"$MRC_TOOL" -n "$MRC_H2" config set ack_delay_us 50
counts "flowlet 1, 40 messages of 64 KiB: every message once and intact" \
	4 -n 40 -m 64K -M 64K
mrc_expect_eq "flowlet 1: no GSO datagram" 0 "$gso"
mrc_check "flowlet 1: eth0 sent every data packet alone ($tx, $data)" \
	test "$tx" -ge "$data"

# The runs through a link that loses, duplicates, corrupts (netem cuts a
# GSO datagram apart to corrupt one of its packets) and reorders, in both
# directions; messages, then WRITEs into a region whose hash is checked,
# each followed by READs compared byte for byte.
flowlet 8
for ns in "$MRC_H1" "$MRC_H2"; do
	"$MRC_TOOL" -n "$ns" config set conn_timeout_ms 60000
	"$MRC_TOOL" -n "$ns" config set cc_target_delay_us 20000
	mrc_netem "$ns" eth0 loss 2% duplicate 2% corrupt 1% delay 1ms \
		reorder 25% 50%
done
g0=$(mrc_stat "$MRC_H1" out_gso)
for fam in 4 6; do
	mrc_transfer "flowlet 8, lossy link, IPv$fam: every message once and intact" \
		"$fam" -n "${MRC_INTEGRITY_MSGS:-300}" -m 1 -M 256K
	mrc_transfer "flowlet 8, WRITEs and READs, lossy link, IPv$fam: every byte where it was sent" \
		"$fam" -W 4M -n "${MRC_INTEGRITY_WRITES:-24}" -m 1 -M 1M
done
for ns in "$MRC_H1" "$MRC_H2"; do
	mrc_netem "$ns" eth0 none
done
mrc_check "lossy link: runs went as GSO datagrams" \
	test "$(mrc_stat "$MRC_H1" out_gso)" -gt "$g0"

mrc_done
