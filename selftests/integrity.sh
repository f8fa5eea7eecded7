#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every message arrives exactly once, whole, uncorrupted and in order over
# a link that loses, reorders, duplicates, corrupts and delays packets, on
# IPv4 and IPv6; the counters show the recovery work.

# shellcheck source=selftests/mrc_lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/mrc_lib.sh"
mrc_require_build
mrc_module_load || { mrc_fail "module loads"; mrc_done; }
mrc_pair || { mrc_fail "pair topology"; mrc_done; }
# netem's burst model changes state per packet: a sender backed off to a
# few packets per second can stay in the 70% loss state for many seconds
# in both directions.  This test is about integrity, so give connections
# a minute rather than the default 15 s before they give up.
for ns in "$MRC_H1" "$MRC_H2"; do
	"$MRC_TOOL" -n "$ns" config set conn_timeout_ms 60000
done

# messages of 1 byte to 256 KiB, log-uniform; MRC_INTEGRITY_MSGS of them
# (300; UML's debug kernel, which checks locking and memory on every path
# rather than volume, sets fewer)
msgs=(-n "${MRC_INTEGRITY_MSGS:-300}" -m 1 -M 256K)

# impair both directions: data one way, ACKs the other
impair() {
	mrc_netem "$MRC_H1" eth0 "$@"
	mrc_netem "$MRC_H2" eth0 "$@"
}

# scenario NAME NETEM-ARGS...|none
scenario() {
	local name=$1 fam before after
	shift
	impair "$@"
	for fam in 4 6; do
		before=$(mrc_stat "$MRC_H1" retrans)
		mrc_transfer "$name, IPv$fam: every message once and intact" \
			"$fam" "${msgs[@]}"
		after=$(mrc_stat "$MRC_H1" retrans)
		echo "# $name IPv$fam: $((after - before)) retransmissions"
		last_retrans=$((after - before))
	done
	impair none
}

scenario "clean link" none
scenario "loss 1%" loss 1%
mrc_check "loss 1%: retransmissions counted" test "$last_retrans" -gt 0
scenario "loss 10%" loss 10%
mrc_check "loss 10%: retransmissions counted" test "$last_retrans" -gt 0
scenario "burst loss" loss gemodel 1% 10% 70% 0.1%
# nscc counts an RTT more than cc_target_delay_us (1 ms) above the lowest
# as queueing delay: these two links' jitter (1-2 ms) would hold its
# window near the minimum (each of these 22 MB transfers took 20-40 s,
# the others 1-8 s); set the target above the jitter, as on such a path
# (mrc.rst, nscc)
cc_target() {
	local ns
	for ns in "$MRC_H1" "$MRC_H2"; do
		"$MRC_TOOL" -n "$ns" config set cc_target_delay_us "$1"
	done
}
target=$("$MRC_TOOL" -n "$MRC_H1" -j config show |
	 jq .cc_target_delay_us)
cc_target 20000
scenario "reorder" delay 1ms reorder 25% 50%
cc_target "$target"
scenario "duplicate 5%" duplicate 5%
mrc_check "duplicates seen and dropped by the receiver" \
	test "$(mrc_stat "$MRC_H2" dup_data)" -gt 0
scenario "corrupt 1%" corrupt 1%
cc_target 20000
scenario "delay with jitter" delay 2ms 1ms distribution normal
cc_target "$target"

# WRITEs (mrc.rst, "One-sided operations: WRITE"): 1 byte to 1 MiB at
# random offsets of a 4 MiB region, the region's hash checked after every
# 8 of them (mrc_msg -W), over a link that loses, duplicates, corrupts
# and reorders at once; MRC_INTEGRITY_WRITES of them (24, about 8 MB).
# After every check two READs (1 byte to 1 MiB) bring ranges of the
# region back, compared byte for byte (mrc.rst, "One-sided operations:
# READ").
writes=(-W 4M -n "${MRC_INTEGRITY_WRITES:-24}" -m 1 -M 1M)
write_counts() {
	local k
	for k in write_placed write_bad_key write_bad_access write_bad_range; do
		printf '%s ' "$(mrc_stat "$MRC_H2" "$k")"
	done
}
read -r placed0 bad_key0 bad_access0 bad_range0 < <(write_counts)
cc_target 20000
impair loss 2% duplicate 2% corrupt 1% delay 1ms reorder 25% 50%
for fam in 4 6; do
	mrc_transfer "WRITEs, lossy link, IPv$fam: every byte placed where it was sent" \
		"$fam" "${writes[@]}"
done
# the largest: one WRITE of MRC_INTEGRITY_BIG bytes (64 MiB; less in UML)
# into a region of that size, its hash checked, then two READs of all of
# it back, every byte compared, over the same link; one connection of
# each family, side by side (each is held back by the link's losses and
# delay more than by the CPU: 37 s alone in the VM, either family)
big=${MRC_INTEGRITY_BIG:-64M}
bigops=(-W "$big" -n 1 -m "$big" -M "$big")
mrc_transfer_start "$MRC_H1" "$MRC_H2" "$MRC_H2_ADDR4" "${bigops[@]}"
mrc_transfer_aside
mrc_transfer_start "$MRC_H1" "$MRC_H2" "$MRC_H2_ADDR6" "${bigops[@]}"
mrc_transfer_wait "a $big WRITE and two $big READs, lossy link, IPv6 (beside IPv4): every byte where it was sent, and back"
mrc_transfer_back
mrc_transfer_wait "a $big WRITE and two $big READs, lossy link, IPv4 (beside IPv6): every byte where it was sent, and back"
impair none
cc_target "$target"
read -r placed bad_key bad_access bad_range < <(write_counts)
echo "# WRITEs: $((placed - placed0)) packets placed"
mrc_check "WRITEs: their packets were placed" test "$placed" -gt "$placed0"
mrc_expect_eq "WRITEs: none refused (a key, a right or an offset damaged)" \
	0 "$((bad_key + bad_access + bad_range - bad_key0 - bad_access0 - bad_range0))"

# the largest messages: up to 16 MiB, fewer of them
msgs=(-n 12 -m 1M -M 16M)
scenario "16 MiB messages, loss 1%" loss 1%

mrc_done
