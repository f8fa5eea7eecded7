#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The protocol's memory pool (net.mrc.mem, as tcp_mem): /proc/net/protocols
# shows it, receivers that do not read cannot take more than its limit
# (data beyond it is dropped, counted in drop_mem, and retransmitted),
# and the memory comes back when the connections are gone.  Orphans are capped
# (net.mrc.max_orphans).

# shellcheck source=selftests/mrc_lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/mrc_lib.sh"
mrc_require_build
mrc_module_load || { mrc_fail "module loads"; mrc_done; }
mrc_pair || { mrc_fail "pair topology"; mrc_done; }

# proto_col NAME COLUMN [VAR]: a column of /proc/net/protocols for
# protocol NAME (2: size, 3: sockets, 4: memory in pages, 5: pressure);
# into VAR if given (no subshell: the samplers below call it in loops)
proto_col() {
	local f

	while read -ra f; do
		[ "${f[0]}" = "$1" ] || continue
		if [ -n "${3:-}" ]; then
			printf -v "$3" %s "${f[$2 - 1]}"
		else
			echo "${f[$2 - 1]}"
		fi
		return
	done </proc/net/protocols
}

# ns_socks NS [VAR]: MRC and MRCv6 sockets in use in namespace NS (the
# sockets column is per namespace, the memory the whole protocol's), or
# "none" if it cannot be read; into VAR if given.  Read from the
# /proc/PID/net of a process that sits in NS for the whole test
# (ns_anchor): no process is started per sample (nsenter and awk took a
# sixth of a second each in the emulated VM).
declare -A ns_anchor
ns_socks() {
	local f n=0 pid=${ns_anchor[$1]:-none}

	if [ -r "/proc/$pid/net/protocols" ]; then
		while read -ra f; do
			[[ ${f[0]} =~ ^MRC(v6)?$ ]] && n=$((n + f[2]))
		done <"/proc/$pid/net/protocols"
	else
		n=none
	fi
	if [ -n "${2:-}" ]; then
		printf -v "$2" %s "$n"
	else
		echo "$n"
	fi
}

# ns_anchor_start NS: a process that sits in NS until the test ends, for
# ns_socks.
ns_anchor_start() {
	local i pid

	ip netns exec "$1" sleep 100000 &
	pid=$!
	mrc_pids+=("$pid")
	ns_anchor[$1]=$pid
	for ((i = 0; i < 100; i++)); do
		[ "$(readlink "/proc/$pid/ns/net")" != \
		  "$(readlink /proc/self/ns/net)" ] && return 0
		mrc_nap 0.05
	done
	return 1
}

if ! ns_anchor_start "$MRC_H1" || ! ns_anchor_start "$MRC_H2"; then
	mrc_fail "a process in each namespace (ns_anchor_start)"
	mrc_done
fi
socks1=none socks2=none m2=none

# sockets_allocated: what memory pressure weighs, every namespace's mrc
# sockets (a test build shows it; empty otherwise)
alloc_param=/sys/module/mrc/parameters/sockets_allocated
sockets_allocated() {
	[ -r "$alloc_param" ] && cat "$alloc_param"
}

mrc_expect_eq "/proc/net/protocols shows MRC's memory" yes \
	"$([[ "$(proto_col MRC 4)" =~ ^[0-9]+$ ]] && echo yes)"
mrc_expect_eq "/proc/net/protocols shows MRC's memory pressure" yes \
	"$([[ "$(proto_col MRC 5)" =~ ^(yes|no)$ ]] && echo yes)"
mrc_expect_eq "MRCv6 shares the pool" "$(proto_col MRC 4)" \
	"$(proto_col MRCv6 4)"

old_mem=$(cat /proc/sys/net/mrc/mem)
old_orph=$(cat /proc/sys/net/mrc/max_orphans)
# the limits are the whole protocol's: later tests need them back
restore() {
	echo "$old_mem" >/proc/sys/net/mrc/mem
	echo "$old_orph" >/proc/sys/net/mrc/max_orphans
}
trap 'restore; mrc_cleanup' EXIT
mrc_check "net.mrc.mem can be set" sysctl -qw net.mrc.mem="1024 1536 2048"
# per-CPU batches of the counter (sysctl_mem_pcpu_rsv, 1 MiB) may hide
# up to 256 pages per CPU from the limit check, and each of the 32
# receivers may always take the piece it waits for while it holds less
# than mrc_rmem_min (16 KiB, 4 pages)
limit=$((2048 + 256 * $(nproc) + 32 * 4))

# 32 connections whose receiver waits 8 s before reading: they would
# buffer about 32 x 400 KiB, four times the limit.  Both ends share the
# pool here (one kernel), so the senders' queues fill it too.  Every
# message must still arrive: a receiver that drops data for lack of
# memory must not acknowledge it (it once echoed it, the sender took it
# as delivered and never sent it again: every connection stalled and
# timed out), and a reader waiting for the rest of a message must get
# what is there when the rest cannot come in (rcv_mem_short).
max=0
max_socks=0
ns_socks "$MRC_H1" socks1
ns_socks "$MRC_H2" socks2
alloc0=$(sockets_allocated)
MRC_TRANSFER_TIMEOUT=150 mrc_transfer_start "$MRC_H1" "$MRC_H2" \
	"$MRC_H2_ADDR4" -c 32 -n 24 -m 65536 -M 65536 -P 8000
while mrc_transfer_running; do
	proto_col MRC 4 m
	[ "${m:-0}" -gt "$max" ] && max=$m
	ns_socks "$MRC_H2" m
	[ "$m" -gt "$max_socks" ] && max_socks=$m
	mrc_nap 0.2
done
mrc_transfer_wait "every message arrives while the pool is full"
echo "# peak MRC memory: $max pages (limit 2048)"
if [ "$max" -le "$limit" ]; then
	mrc_ok "the pool stayed within its limit ($max <= $limit pages)"
else
	mrc_fail "the pool stayed within its limit" "peak $max pages, limit $limit"
fi
d=$(mrc_stat "$MRC_H2" drop_mem)
if [ "$d" -gt 0 ]; then
	mrc_ok "data beyond the limit was dropped and counted (drop_mem $d)"
else
	mrc_fail "data beyond the limit was dropped and counted" "drop_mem 0, peak $max"
fi

# the listener and its 32 children were counted in their namespace
if [ "$max_socks" -ge $((socks2 + 33)) ]; then
	mrc_ok "the receiver's namespace counts its sockets (peak $max_socks)"
else
	mrc_fail "the receiver's namespace counts its sockets" \
		"peak $max_socks, before $socks2, 33 expected more"
fi

# the sockets go, and the memory comes back (what remains is at most
# the per-CPU batches)
for ((_n = 1; _n <= 300; _n++)); do
	ns_socks "$MRC_H1" m
	ns_socks "$MRC_H2" m2
	[ "$m $m2" = "$socks1 $socks2" ] && break
	mrc_nap 0.2
done
mrc_expect_eq "no MRC socket is left in either namespace" \
	"$socks1 $socks2" "$(ns_socks "$MRC_H1") $(ns_socks "$MRC_H2")"
if [ -n "$alloc0" ]; then
	# other tests' sockets may still be going: at most as many as before
	for ((_n = 1; _n <= 100; _n++)); do
		[ "$(sockets_allocated)" -le "$alloc0" ] && break
		mrc_nap 0.2
	done
	a=$(sockets_allocated)
	if [ "$a" -le "$alloc0" ]; then
		mrc_ok "sockets_allocated came back ($a, was $alloc0)"
	else
		mrc_fail "sockets_allocated came back" "$a, was $alloc0"
	fi
else
	mrc_skip "sockets_allocated came back" \
		"the module is not a test build (MRC_FAULT_INJECT=1)"
fi
m=$(proto_col MRC 4)
if [ "$m" -le $((256 * $(nproc))) ]; then
	mrc_ok "the memory came back ($m pages left in per-CPU batches)"
else
	mrc_fail "the memory came back" "$m pages still allocated"
fi

restore

# The reserve: over the pool's limit a receiver with less than 16 KiB to
# read still takes the packet it waits for in order, and all such
# packets share one reserve, an eighth of the limit (it was 16 KiB per
# socket, without bound: 10,000 sockets, 160 MiB beyond the limit).
# The senders' data packets (1024 bytes and more: not the handshake's)
# are held 3 s on the way, and their RTO is longer than that.  512
# connections each send a message of 16 KiB while the limit is 4096
# pages; once the senders have queued them, the limit falls to 1024,
# below what their queues hold, so that every message finds the pool
# over its limit when it arrives: without the bound each receiver would
# take its message beyond the limit, as much again as the senders hold.
# After 5 s the limit comes back and the messages go on.
reserve_test() {
	local old_rto old_ct last m base max grow ru
	old_rto=$(mrc -n "$MRC_H1" config show |
		awk '$1 ~ /^rto_m(in|ax)_us$/ { printf " %s %s", $1, $2 }')
	mrc_check "net.mrc.mem can be set" \
		sysctl -qw net.mrc.mem="2048 3072 4096"
	modprobe -a sch_prio sch_netem cls_u32 2>/dev/null
	if ! tc -n "$MRC_H1" qdisc replace dev eth0 root handle 1: prio \
		bands 2 priomap 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 2>/dev/null ||
	   ! tc -n "$MRC_H1" qdisc add dev eth0 parent 1:2 handle 20: \
		netem delay 3000ms limit 100000 2>/dev/null ||
	   ! tc -n "$MRC_H1" filter add dev eth0 parent 1: protocol ip \
		prio 1 u32 match u16 0x0400 0x0400 at 2 flowid 1:2 2>/dev/null
	then
		tc -n "$MRC_H1" qdisc del dev eth0 root 2>/dev/null
		mrc_skip "over the limit, receivers took at most the reserve" \
			"the kernel lacks sch_prio, sch_netem or cls_u32"
		return
	fi
	mrc_check "the senders' RTO is longer than the delay" \
		mrc -n "$MRC_H1" config set rto_max_us 12000000 \
		rto_min_us 6000000
	# with RTOs of 6-12 s, a lost FIN or last packet takes that long to
	# go again: give the connections (and the receivers' orphans, which
	# wait for their FIN to be acknowledged) a minute, not 15 s, before
	# they give up (a loaded make check once reset 31 of them)
	old_ct=$(mrc_setting "$MRC_H1" conn_timeout_ms)
	mrc -n "$MRC_H1" config set conn_timeout_ms 60000
	mrc -n "$MRC_H2" config set conn_timeout_ms 60000
	MRC_TRANSFER_TIMEOUT=150 mrc_transfer_start "$MRC_H1" "$MRC_H2" \
		"$MRC_H2_ADDR4" -c 512 -n 1 -m 16384 -M 16384 -P 3000
	# the senders have queued their messages when the pool stops
	# growing (512 connects one after the other take a while on a
	# loaded machine)
	last=0
	for ((_n = 1; _n <= 300; _n++)); do
		proto_col MRC 4 m
		[ "$m" -ge 1536 ] && [ "$m" -le "$last" ] && break
		last=$m
		mrc_nap 0.2
	done
	sysctl -qw net.mrc.mem="256 512 1024"
	base=$(proto_col MRC 4)
	max=$base
	for ((_n = 1; _n <= 50; _n++)); do
		proto_col MRC 4 m
		[ "$m" -gt "$max" ] && max=$m
		mrc_nap 0.1
	done
	sysctl -qw net.mrc.mem="2048 3072 4096"
	mrc_transfer_wait "every message arrives while receivers draw on the reserve"
	ru=/sys/module/mrc/parameters/reserve_users
	if [ -r "$ru" ]; then
		for ((_n = 1; _n <= 100; _n++)); do
			[ "$(cat "$ru")" = 0 ] && break
			mrc_nap 0.2
		done
		mrc_expect_eq "every receiver gave its part of the reserve back" \
			0 "$(cat "$ru")"
	else
		mrc_skip "every receiver gave its part of the reserve back" \
			"the module is not a test build (MRC_FAULT_INJECT=1)"
	fi
	tc -n "$MRC_H1" qdisc del dev eth0 root
	# shellcheck disable=SC2086 # pairs of words
	mrc -n "$MRC_H1" config set $old_rto
	mrc -n "$MRC_H1" config set conn_timeout_ms "$old_ct"
	mrc -n "$MRC_H2" config set conn_timeout_ms "$old_ct"
	# the reserve (128 pages) and what the per-CPU batches may hide
	grow=$((1024 / 8 + 256 * $(nproc) + 64))
	echo "# MRC memory: $base pages when the limit fell to 1024, then at most $max"
	if [ "$base" -gt 1024 ] && [ $((max - base)) -le "$grow" ]; then
		mrc_ok "over the limit, receivers took at most the reserve ($((max - base)) <= $grow pages)"
	else
		mrc_fail "over the limit, receivers took at most the reserve" \
			"$base pages when the limit fell to 1024 (more expected), then $max: $((max - base)) more, at most $grow expected"
	fi
}
reserve_test
restore

# A non-blocking send must queue a message whole: when the pool has no
# room for all of it, it fails with EAGAIN and queues nothing; with room,
# it queues the whole message (in pieces) and the message arrives intact.
out=$(ip netns exec "$MRC_H2" timeout 60 python3 -c '
import socket
import os
# fd 3: net.mrc.mem, opened outside the namespace (the pool is global)
def mem(v):
    os.pwrite(3, v.encode(), 0)
old = os.pread(3, 200, 0).decode()
L = socket.socket(socket.AF_INET, socket.SOCK_SEQPACKET, 254)
L.bind(("127.0.0.1", 0))
L.listen(1)
c = socket.socket(socket.AF_INET, socket.SOCK_SEQPACKET, 254)
c.connect(L.getsockname())
a, _ = L.accept()
msg = bytes(range(256)) * 8192
mem("64 64 64")
try:
    n = c.send(msg, socket.MSG_DONTWAIT)
    first = "sent %d" % n
except BlockingIOError:
    first = "EAGAIN"
try:
    a.recv(1, socket.MSG_DONTWAIT)
    early = "data"
except BlockingIOError:
    early = "nothing"
mem(old)
n = c.send(msg, socket.MSG_DONTWAIT)
got = b""
a.settimeout(30)
while len(got) < len(msg):
    d, _, flags, _ = a.recvmsg(len(msg))
    got += d
    if flags & socket.MSG_EOR:
        break
print(first, early, n, "intact" if got == msg else "damaged %d" % len(got))
' 3<>/proc/sys/net/mrc/mem 2>&1)
mrc_expect_eq "a non-blocking send the pool has no room for queues nothing (EAGAIN); with room, all of it" \
	"EAGAIN nothing 2097152 intact" "$out"
restore

# Orphans: with max_orphans 0, closing a connection that still has data
# to deliver resets it at once (orphan_aborted) instead of lingering.
mrc_check "net.mrc.max_orphans can be set" \
	bash -c 'echo 0 >/proc/sys/net/mrc/max_orphans'
orph0=$(mrc_stat "$MRC_H1" orphan_aborted)
ready=$(mktemp -u /tmp/mrc-memory-ready.XXXXXX)
ip netns exec "$MRC_H2" python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_SEQPACKET, 254)
s.bind(("0.0.0.0", 7500))
s.listen(8)
open(sys.argv[1], "w").close()
c, _ = s.accept()
time.sleep(15)' "$ready" &
lpid=$!
mrc_pids+=("$lpid")
mrc_wait_ready "$ready"
ip netns exec "$MRC_H1" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_SEQPACKET, 254)
s.settimeout(5)
s.connect((sys.argv[1], 7500))
# more than the receiver, which does not read, can take: some of it
# is still unacknowledged at close()
for _ in range(2):
    s.send(b"x" * 60000)
s.close()' "$MRC_H2_ADDR4"
mrc_expect_eq "over max_orphans a closing connection is reset" 1 \
	"$(($(mrc_stat "$MRC_H1" orphan_aborted) - orph0))"
kill "$lpid" 2>/dev/null
wait "$lpid" 2>/dev/null
restore

# An orphan's life is bounded: one whose data makes no progress for the
# connection timeout (3 s here) is reset, although its peer is alive and
# answers every probe (it accepted the connection and does not read).
old_ct=$(mrc_setting "$MRC_H1" conn_timeout_ms)
mrc_check "the connection timeout can be set" \
	mrc -n "$MRC_H1" config set conn_timeout_ms 3000
orph0=$(mrc_stat "$MRC_H1" orphan_aborted)
ns_socks "$MRC_H1" socks1
ip netns exec "$MRC_H2" python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_SEQPACKET, 254)
# a small buffer: most of what is sent waits for a window that stays shut
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
s.bind(("0.0.0.0", 7501))
s.listen(8)
open(sys.argv[1], "w").close()
c, _ = s.accept()
time.sleep(30)' "$ready" &
lpid=$!
mrc_pids+=("$lpid")
mrc_wait_ready "$ready"
ip netns exec "$MRC_H1" python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_SEQPACKET, 254)
s.settimeout(5)
s.connect((sys.argv[1], 7501))
for _ in range(2):
    s.send(b"x" * 60000)
s.close()' "$MRC_H2_ADDR4"
t0=$SECONDS
for ((_n = 1; _n <= 200; _n++)); do
	[ "$(mrc_stat "$MRC_H1" orphan_aborted)" -gt "$orph0" ] && break
	mrc_nap 0.1
done
waited=$((SECONDS - t0))
mrc_expect_eq "an orphan that makes no progress is reset" 1 \
	"$(($(mrc_stat "$MRC_H1" orphan_aborted) - orph0))"
for ((_n = 1; _n <= 50; _n++)); do
	ns_socks "$MRC_H1" m
	[ "$m" = "$socks1" ] && break
	mrc_nap 0.1
done
mrc_expect_eq "the orphan's socket is gone" "$socks1" "$(ns_socks "$MRC_H1")"
mrc_check "it lived about the connection timeout (${waited}s, 2 to 15 expected)" \
	test "$waited" -ge 2 -a "$waited" -le 15
kill "$lpid" 2>/dev/null
wait "$lpid" 2>/dev/null
mrc -n "$MRC_H1" config set conn_timeout_ms "$old_ct"

# Memory cgroups: a listener's connections are charged, from accept(),
# to the memory cgroup of the task that accepts them, as TCP's are, what
# they received before it included; what they uncharge when they end
# was charged (a page counter that underflows warns, which fails the run).
# The senders stay outside the cgroup.
cgroot=/sys/fs/cgroup
[ -e "$cgroot/cgroup.controllers" ] ||
	mount -t cgroup2 cgroup2 "$cgroot" 2>/dev/null
if ! grep -qw memory "$cgroot/cgroup.controllers" 2>/dev/null; then
	mrc_skip "accepted connections are charged to the acceptor's memory cgroup" \
		"the running kernel has no cgroup v2 memory controller"
else
	# memcg_sock: socket memory charged to the test's cgroup, bytes
	memcg_sock() {
		awk '$1 == "sock" { print $2 }' "$cg/memory.stat"
	}
	echo +memory >"$cgroot/cgroup.subtree_control"
	cg=$cgroot/mrc-memory-$$
	mkdir "$cg"
	# 4 readers that wait 4 s hold about a window (more than 64 KiB) each
	max=0
	MRC_XFER_SERVER_CGROUP=$cg mrc_transfer_start "$MRC_H1" "$MRC_H2" \
		"$MRC_H2_ADDR4" -c 4 -n 8 -m 65536 -M 65536 -P 4000
	while mrc_transfer_running; do
		m=$(memcg_sock)
		[ "${m:-0}" -gt "$max" ] && max=$m
		mrc_nap 0.2
	done
	mrc_transfer_wait "every message arrives to readers in a memory cgroup"
	echo "# peak socket memory of the readers' cgroup: $max bytes"
	if [ "$max" -ge $((4 * 65536)) ]; then
		mrc_ok "accepted connections are charged to the acceptor's memory cgroup ($max bytes)"
	else
		mrc_fail "accepted connections are charged to the acceptor's memory cgroup" \
			"peak socket memory $max bytes, expected at least $((4 * 65536))"
	fi
	# the cgroup's statistics are flushed every 2 s
	for ((_n = 1; _n <= 50; _n++)); do
		[ "$(memcg_sock)" -eq 0 ] && break
		mrc_nap 0.2
	done
	mrc_expect_eq "the cgroup's socket memory comes back to 0" 0 "$(memcg_sock)"
	rmdir "$cg"
fi

restore
mrc_expect_eq "net.mrc.mem restored" "$old_mem" "$(cat /proc/sys/net/mrc/mem)"
mrc_expect_eq "net.mrc.max_orphans restored" "$old_orph" \
	"$(cat /proc/sys/net/mrc/max_orphans)"
# The rings of a connection (mrc.rst, "PSNs and messages"): 64 slots
# each at first, doubled while more packets are in flight (the sender's)
# or held out of order (the receiver's), 64 again once the connection is
# idle (the idle probe, a third of conn_timeout_ms).  A link with 10 ms
# of delay that lets one packet in ten through at once, ahead of those
# in the delay, and reno with a first window of 200 packets: the
# receiver holds packets far ahead (its ring grows, or the sender's
# does), and all four must be 64 again once idle.
# (A tc gact filter dropping every 400th packet at the receiver's
# ingress made the receiver's grow too, but a run of make check once
# locked a CPU up in __netif_receive_skb_core with it; the out-of-order
# ring's growth is left to KUnit's mrc_ring and to integrity.sh's
# reordering links.)  One connection, held open after its messages.
# conn_slots NS [all]: "rtx_slots ofo_slots" of the established
# connection in NS (with all, its msgs_received too)
conn_slots() {
	local objs=() obj state r=null o=null m=null

	mrc_json_objects objs "$(mrc -n "$1" -j conn show 2>/dev/null)" ||
		return 1
	for obj in "${objs[@]}"; do
		state=
		mrc_json_get state state "$obj"
		[ "$state" = established ] || continue
		mrc_json_get r rtx_slots "$obj"
		mrc_json_get o ofo_slots "$obj"
		mrc_json_get m msgs_received "$obj"
		break
	done
	echo "$r $o${2:+ $m}"
}
old_ct=$(mrc_setting "$MRC_H1" conn_timeout_ms)
old_cc=$(mrc_setting "$MRC_H1" cc)
old_iw=$(mrc_setting "$MRC_H1" cc_init_cwnd)
# buffers of 4 MiB, not the 208 KiB that net.core.[rw]mem_max allow
old_bufs="$(sysctl -n net.core.rmem_max) $(sysctl -n net.core.wmem_max)"
sysctl -qw net.core.rmem_max=4194304 net.core.wmem_max=4194304
for ns in "$MRC_H1" "$MRC_H2"; do
	mrc -n "$ns" config set conn_timeout_ms 9000 cc reno cc_init_cwnd 200
done
if mrc_netem "$MRC_H1" eth0 delay 10ms reorder 10% limit 10000; then
	mrc_transfer_start "$MRC_H1" "$MRC_H2" "$MRC_H2_ADDR4" \
		-n 24 -m 256K -M 256K -b 4194304 -H 15000
	rtx_max=0
	ofo_max=0
	# until the 24 messages are through (the client holds on)
	while mrc_transfer_running; do
		r=0 o=0 m=0
		read -r r _ < <(conn_slots "$MRC_H1")
		read -r _ o m < <(conn_slots "$MRC_H2" all)
		[ "${r:-0}" -gt "$rtx_max" ] 2>/dev/null && rtx_max=$r
		[ "${o:-0}" -gt "$ofo_max" ] 2>/dev/null && ofo_max=$o
		[ "${m:-0}" -ge 24 ] 2>/dev/null && break
		mrc_nap 0.2
	done
	echo "# rings while busy: sender rtx_slots up to $rtx_max, receiver ofo_slots up to $ofo_max"
	mrc_check "rings: a ring grew past 64 slots under the window" \
		test "$rtx_max" -gt 64 -o "$ofo_max" -gt 64
	for ((_n = 1; _n <= 60; _n++)); do
		[ "$(conn_slots "$MRC_H1") $(conn_slots "$MRC_H2")" = \
		  "64 64 64 64" ] && break
		mrc_transfer_running || break
		mrc_nap 0.2
	done
	mrc_expect_eq "rings: 64 slots each again once idle, both ends" \
		"64 64 64 64" "$(conn_slots "$MRC_H1") $(conn_slots "$MRC_H2")"
	mrc_transfer_stop
	mrc_transfer_wait "rings: every message once and intact through growing and shrinking"
else
	mrc_skip "rings grow and shrink" "the kernel lacks sch_netem"
fi
mrc_netem "$MRC_H1" eth0 none
for ns in "$MRC_H1" "$MRC_H2"; do
	mrc -n "$ns" config set conn_timeout_ms "$old_ct" cc "$old_cc" \
		cc_init_cwnd "$old_iw"
done
read -r r m <<<"$old_bufs"
sysctl -qw net.core.rmem_max="$r" net.core.wmem_max="$m"
mrc_done
