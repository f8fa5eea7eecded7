#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every network namespace gets its own mrc state: a UDP tunnel socket on
# its encapsulation port (from its first mrc socket on), its own settings
# and its own counters; the state
# goes away with the namespace and comes back with the module, and a
# namespace that outlived a reload can still go away safely.  The tunnel's
# packets are counted by the device they leave through, once.

# shellcheck source=selftests/mrc_lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/mrc_lib.sh"
mrc_require_build
mrc_module_load || { mrc_fail "module loads"; mrc_done; }

port=$MRC_DEFAULT_PORT
a=
b=

mrc_ns_create a || { mrc_fail "namespace a created"; mrc_done; }
mrc_ns_create b || { mrc_fail "namespace b created"; mrc_done; }

mrc_check_fails "a new namespace binds no UDP port before its first mrc socket" \
	mrc_udp_bound "$a" "$port"
mrc_check "an mrc socket can be made there" mrc_ns_use "$a"
mrc_check "then the namespace has UDP port $port bound" mrc_udp_bound "$a" "$port"
mrc_check "an mrc socket in namespace b" mrc_ns_use "$b"
mrc_expect_eq "config show in a new namespace" "$port" "$(mrc_setting "$a" port)"

# Settings are per namespace.
mrc_check "port set to 5000 in namespace a" mrc -n "$a" config set port 5000
mrc_expect_eq "namespace a reports port 5000" "5000" "$(mrc_setting "$a" port)"
mrc_check "namespace a bound on 5000" mrc_udp_bound "$a" 5000
mrc_check_fails "namespace a released $port" mrc_udp_bound "$a" "$port"
mrc_expect_eq "namespace b keeps port $port" "$port" "$(mrc_setting "$b" port)"
mrc_check "namespace b still bound on $port" mrc_udp_bound "$b" "$port"
mrc_expect_eq "initial namespace keeps port $port" "$port" \
	"$("$MRC_TOOL" -j config show | mrc_json port)"

# A port that is taken is refused with the kernel's reason; nothing changes.
ip netns exec "$b" python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 6000))
open(sys.argv[1], "w").close()
time.sleep(60)' /tmp/mrc-netns-bound-$$ &
mrc_pids+=("$!")
for ((_n = 1; _n <= 100; _n++)); do
	[ -e /tmp/mrc-netns-bound-$$ ] && break
	mrc_nap 0.1
done
rm -f /tmp/mrc-netns-bound-$$
out=$(mrc -n "$b" config set port 6000 2>&1)
rc=$?
mrc_expect_eq "taken port refused with exit code 1" 1 "$rc"
case "$out" in
*"cannot bind the UDP port"*) mrc_ok "refusal carries the extack message" ;;
*) mrc_fail "refusal carries the extack message" "saw: $out" ;;
esac
mrc_expect_eq "namespace b unchanged after refusal" "$port" "$(mrc_setting "$b" port)"

# Bad values never reach the kernel or are refused by its policy.
mrc_check_fails "port 0 refused" mrc -n "$a" config set port 0
mrc_check_fails "port 70000 refused" mrc -n "$a" config set port 70000
mrc_check_fails "config set with no setting refused" mrc -n "$a" config set

# Writes need CAP_NET_ADMIN; reads do not.
if command -v setpriv >/dev/null; then
	nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all)
	out=$(ip netns exec "$a" "${nobody[@]}" "$MRC_TOOL" config set port 5001 2>&1)
	case "$out" in
	*"Operation not permitted"*) mrc_ok "unprivileged set refused with EPERM" ;;
	*) mrc_fail "unprivileged set refused with EPERM" "saw: $out" ;;
	esac
	mrc_expect_eq "unprivileged show works" 5000 \
		"$(ip netns exec "$a" "${nobody[@]}" "$MRC_TOOL" -j config show |
		   mrc_json port)"
else
	mrc_skip "unprivileged set refused with EPERM" "no setpriv"
fi

# Counters are per namespace and count each drop reason.
send() {	# send NS PORT BYTES (printf escapes)
	# shellcheck disable=SC2016 # expanded by the inner bash
	ip netns exec "$1" bash -c 'printf "$2" > "/dev/udp/127.0.0.1/$1"' _ "$2" "$3"
}
send "$a" 5000 'x'
hdr='\x00\x00\x12\x34\x56\x78\x00\x00\x00\x01'	# flags, dst and src cid
# version 9 (bad); wire version 8 (MRC_WIRE_VERSION) with types 0 and 9
# (unknown) and 6 (a PROBE, 24 bytes)
send "$a" 5000 "\x09\x06$hdr"
send "$a" 5000 "\x08\x00$hdr"
send "$a" 5000 "\x08\x09$hdr"
send "$a" 5000 "\x08\x06$hdr\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x05"
mrc_nap 0.2
# the RST answering the probe goes to 127.0.0.1 on our own port: it comes
# back to us as a sixth datagram for an unknown connection, never answered
mrc_expect_eq "6 datagrams counted in namespace a" 6 "$(mrc_stat "$a" in_pkts)"
mrc_expect_eq "short datagram dropped and counted" 1 "$(mrc_stat "$a" drop_short)"
mrc_expect_eq "bad version dropped and counted" 1 "$(mrc_stat "$a" drop_version)"
mrc_expect_eq "bad types dropped and counted" 2 "$(mrc_stat "$a" drop_type)"
mrc_expect_eq "probe and RST for unknown connections dropped and counted" 2 \
	"$(mrc_stat "$a" drop_no_conn)"
mrc_expect_eq "unknown connection answered with a RST" 1 \
	"$(mrc_stat "$a" out_rst)"
mrc_expect_eq "namespace b counted nothing" 0 "$(mrc_stat "$b" in_pkts)"

# The state goes with the namespace.
mrc_check "namespace a deleted" mrc_ns_del "$a"
mrc_expect_eq "namespace b unaffected by a's deletion" "$port" "$(mrc_setting "$b" port)"

# Unload with a namespace alive, load again: the namespace gets fresh state.
mrc_check "unload with a namespace alive" mrc_module_unload
mrc_check_fails "namespace b port released on unload" mrc_udp_bound "$b" "$port"
mrc_check "load again" mrc_module_load
mrc_check_fails "namespace b binds nothing on reload" mrc_udp_bound "$b" "$port"
mrc_check "an mrc socket in namespace b after reload" mrc_ns_use "$b"
mrc_check "namespace b bound again on first use" mrc_udp_bound "$b" "$port"
mrc_expect_eq "namespace b counters start at zero" 0 "$(mrc_stat "$b" in_pkts)"

# A namespace that outlived the reload goes away, and sockets of a new one
# work: every socket API check of mrc_api (IPv4, IPv6, v4-mapped), with no
# kernel warning.  Counting tunnel traffic into the output device's stats
# once corrupted whatever per-cpu data followed them, here the socket slab.
warnings() { dmesg | grep -c -e 'cut here' -e 'BUG:' -e 'general protection'; }
before=$(warnings)
mrc_check "namespace b deleted after the reload" mrc_ns_del "$b"
mrc_nap 1
c=
mrc_ns_create c || { mrc_fail "namespace c created"; mrc_done; }
mrc -n "$c" config set max_msg_size 262144
out=$(ip netns exec "$c" "$MRC_SELFTESTS/mrc_api" -m 262144 2>&1)
rc=$?
mrc_expect_eq "socket API checks pass in a namespace made after the reload" \
	"0 0" "$rc $(echo "$out" | grep -c '^not ok')"
mrc_expect_eq "no kernel warning after the reload and namespace deletion" \
	"$before" "$(warnings)"

# The tunnel's packets are counted once, by the device they leave through.
# mrc has no netdevice of its own; handing the output device to the UDP
# tunnel code made it count them in dev->tstats as well: twice on a
# bridge, and past the end of the per-cpu stats of loopback and veth,
# which keep other counters.
modprobe bridge 2>/dev/null
mrc_pair || { mrc_fail "pair topology"; mrc_done; }
ip -n "$MRC_H1" link add br0 type bridge ||
	{ mrc_fail "bridge created"; mrc_done; }
ip -n "$MRC_H1" link set eth0 master br0
ip -n "$MRC_H1" addr flush dev eth0
ip -n "$MRC_H1" addr add "$MRC_H1_ADDR6/64" dev br0 nodad
ip -n "$MRC_H1" link set br0 up
br_tx=$(mrc_link_stat "$MRC_H1" br0 tx)
port_tx=$(mrc_link_stat "$MRC_H1" eth0 tx)
mrc_transfer "IPv6 through a bridge: every message once and intact" 6 \
	-n 200 -m 1 -M 2K
# What the bridge sends leaves through its one port (but for a few frames
# of its own start-up, sent before the port forwarded); counted twice,
# the bridge would show about twice as many.
port_tx=$(($(mrc_link_stat "$MRC_H1" eth0 tx) - port_tx))
br_tx=$(($(mrc_link_stat "$MRC_H1" br0 tx) - br_tx))
if [ "$port_tx" -gt 200 ] && [ $((br_tx - port_tx)) -lt 20 ]; then
	mrc_ok "bridge counts each packet it sends once"
else
	mrc_fail "bridge counts each packet it sends once" \
		"port sent $port_tx packets, the bridge counted $br_tx"
fi

# A namespace whose port is taken does not stop the module loading, nor
# its first mrc socket being made: it gets mrc without tunnel sockets
# until a free port is set.
mrc_check "unload before taking port $port" mrc_module_unload_when_free
mrc_ns_create c || { mrc_fail "namespace c created"; mrc_done; }
held=/tmp/mrc-netns-held-$$
ip netns exec "$c" python3 -c '
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", int(sys.argv[2])))
open(sys.argv[1], "w").close()
time.sleep(120)' "$held" "$port" &
mrc_pids+=("$!")
for ((_n = 1; _n <= 100; _n++)); do
	[ -e "$held" ] && break
	mrc_nap 0.1
done
mrc_check "port $port taken in namespace c" test -e "$held"
rm -f "$held"
mrc_check "load with port $port taken in a namespace" mrc_module_load
mrc_expect_eq "that namespace still has mrc" "$port" "$(mrc_setting "$c" port)"
mrc_check "an mrc socket can be made there, its port taken" mrc_ns_use "$c"
mrc_check "an mrc socket in another namespace" mrc_ns_use "$MRC_H2"
mrc_check "which is bound" mrc_udp_bound "$MRC_H2" "$port"
mrc_check "a free port can be set there" mrc -n "$c" config set port 5002
mrc_check "and is bound" mrc_udp_bound "$c" 5002

mrc_done
