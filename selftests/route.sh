#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A connection looks the route of each of its EVs up once and keeps it
# (output.c, mrc_conn_xmit()); it must still follow the host's routes as
# they change.  h1 reaches a service address of h2 (on h2's loopback)
# over two links, eth0 (the pair's) and eth1, as h1's routes say.  For
# IPv4 and IPv6, on live connections:
#  - a route replaced mid-transfer moves the packets to the new link at
#    once (a route kept past its change would keep them on the old one),
#    and so does a more specific route added under the one they took;
#  - while every EV's route leads out one way, a connection keeps one
#    route (routes_per_ev stays); a multipath route of h1 hashed on the
#    ports spreads the EVs over both links (one route per connection
#    would keep them on one) and the connection keeps a route per EV;
#  - the second link deleted mid-transfer (its routes with it): every
#    message still arrives, over the link left.

# shellcheck source=selftests/mrc_lib.sh source-path=SCRIPTDIR
. "$(dirname "$0")/mrc_lib.sh"
mrc_require_build
mrc_module_load || { mrc_fail "module loads"; mrc_done; }
mrc_pair || { mrc_fail "pair topology"; mrc_done; }

SVC4=10.0.9.2
SVC6=fd00:9::2
ip link add eth1 netns "$MRC_H1" type veth peer name eth1 netns "$MRC_H2" ||
	{ mrc_fail "second link created"; mrc_done; }
ip -n "$MRC_H1" addr add 10.0.2.1/24 dev eth1
ip -n "$MRC_H2" addr add 10.0.2.2/24 dev eth1
ip -n "$MRC_H1" addr add fd00:2::1/64 dev eth1 nodad
ip -n "$MRC_H2" addr add fd00:2::2/64 dev eth1 nodad
ip -n "$MRC_H1" link set eth1 up
ip -n "$MRC_H2" link set eth1 up
ip -n "$MRC_H2" link set lo up
ip -n "$MRC_H2" addr add "$SVC4/32" dev lo
ip -n "$MRC_H2" addr add "$SVC6/128" dev lo nodad
# h1's packets keep the source address of their connection (eth0's)
# whichever link they take
ip netns exec "$MRC_H2" sysctl -qw net.ipv4.conf.all.rp_filter=0 \
	net.ipv4.conf.eth1.rp_filter=0
ip netns exec "$MRC_H1" sysctl -qw net.ipv4.fib_multipath_hash_policy=1 \
	net.ipv6.fib_multipath_hash_policy=1

# route FAM via0|via1|both: h1's route to the service address; the
# source address is eth0's whatever the link, so that a connection made
# over eth1 outlives it
route() {
	local r
	case "$1:$2" in
	4:via0) r="via 10.0.1.2 dev eth0" ;;
	4:via1) r="via 10.0.2.2 dev eth1" ;;
	4:both) r="nexthop via 10.0.1.2 dev eth0 nexthop via 10.0.2.2 dev eth1" ;;
	6:via0) r="via fd00:1::2 dev eth0" ;;
	6:via1) r="via fd00:2::2 dev eth1" ;;
	6:both) r="nexthop via fd00:1::2 dev eth0 nexthop via fd00:2::2 dev eth1" ;;
	esac
	if [ "$1" = 4 ]; then
		# shellcheck disable=SC2086 # r is words
		ip -n "$MRC_H1" route replace "$SVC4/32" src "$MRC_H1_ADDR4" $r
	else
		# shellcheck disable=SC2086
		ip -n "$MRC_H1" -6 route replace "$SVC6/128" src "$MRC_H1_ADDR6" $r
	fi
}

# IPv4 multipath routes need CONFIG_IP_ROUTE_MULTIPATH (IPv6 has them
# always); the UML kernel of the KUnit stage lacks it
multipath4=1
route 4 both 2>/dev/null || multipath4=0

svc() {
	if [ "$1" = 4 ]; then echo "$SVC4"; else echo "$SVC6"; fi
}

tx() {	# tx DEV: packets h1 sent on DEV
	mrc_link_stat "$MRC_H1" "$1" tx
}

# wait_tx DEV N: wait (up to 30 s) until h1 has sent N packets on DEV
wait_tx() {
	local i
	for ((i = 0; i < 300; i++)); do
		[ "$(tx "$1")" -ge "$2" ] && return 0
		mrc_transfer_running || return 1
		mrc_nap 0.1
	done
	return 1
}

# an endless transfer of small messages (-n 0: until mrc_transfer_stop)
start() {
	mrc_transfer_start "$MRC_H1" "$MRC_H2" "$(svc "$1")" \
		-n 0 -T 100 -i 300 -m 256 -M 1K
}

# moves NAME FAM CHANGE...: a transfer over eth0; CHANGE (a command)
# sends the service address over eth1 mid-transfer: every packet must
# take eth1 at once, every message arrive
moves() {
	local name=$1 fam=$2 a0 a1 b0 b1 moved=0
	shift 2
	start "$fam"
	if ! wait_tx eth0 $(($(tx eth0) + 300)); then
		mrc_fail "$name: the transfer runs on eth0"
	fi
	"$@"
	a0=$(tx eth0)
	a1=$(tx eth1)
	wait_tx eth1 $((a1 + 300)) && moved=1
	mrc_transfer_stop
	mrc_transfer_wait "$name: every message once and intact"
	b0=$(($(tx eth0) - a0))
	b1=$(($(tx eth1) - a1))
	echo "# $name: after the change eth0 sent $b0 packets, eth1 $b1"
	# eth0 may still send a few neighbour packets
	if [ "$moved" = 1 ] && [ "$b0" -lt 30 ]; then
		mrc_ok "$name: the connection's packets moved to the new link"
	else
		mrc_fail "$name: the connection's packets moved to the new link" \
			"eth0 sent $b0 and eth1 $b1 after the change"
	fi
}

# cover FAM add|del: a route over eth0 to the service address's /24 or
# /64, under which the /32 or /128 of route() is more specific
cover() {
	if [ "$1" = 4 ]; then
		ip -n "$MRC_H1" route "$2" "${SVC4%.*}.0/24" src "$MRC_H1_ADDR4" \
			via 10.0.1.2 dev eth0
	else
		ip -n "$MRC_H1" -6 route "$2" "${SVC6%::*}::/64" \
			src "$MRC_H1_ADDR6" via fd00:1::2 dev eth0
	fi
}

# unroute FAM: no /32 or /128 route to the service address
unroute() {
	if [ "$1" = 4 ]; then
		ip -n "$MRC_H1" route del "$SVC4/32"
	else
		ip -n "$MRC_H1" -6 route del "$SVC6/128"
	fi
}

for fam in 4 6; do
	route "$fam" via0
	p0=$(mrc_stat "$MRC_H1" routes_per_ev)
	moves "IPv$fam route replaced" "$fam" route "$fam" via1
	mrc_expect_eq "IPv$fam route replaced: one route for all EVs (routes_per_ev)" \
		0 $(($(mrc_stat "$MRC_H1" routes_per_ev) - p0))
	# A route added under the one every EV's route came from: the EVs'
	# routes are all stale at once (IPv6: the serial number of their
	# entry changed), none may stay on the old one when another has
	# looked its route up again
	unroute "$fam"
	cover "$fam" add
	moves "IPv$fam more specific route added" "$fam" route "$fam" via1
	cover "$fam" del

	name="IPv$fam multipath route"
	if [ "$fam" = 4 ] && [ "$multipath4" = 0 ]; then
		mrc_skip "$name" "the kernel has no IPv4 multipath routes"
		continue
	fi
	route "$fam" both
	a0=$(tx eth0)
	a1=$(tx eth1)
	l0=$(mrc_stat "$MRC_H1" route_lookups)
	d0=$(mrc_stat "$MRC_H1" out_data)
	p0=$(mrc_stat "$MRC_H1" routes_per_ev)
	mrc_transfer_between "$name: every message once and intact" \
		"$MRC_H1" "$MRC_H2" "$(svc "$fam")" -n 2000 -m 256 -M 1K
	mrc_expect_eq "$name: the connection keeps a route per EV (routes_per_ev)" \
		1 $(($(mrc_stat "$MRC_H1" routes_per_ev) - p0))
	b0=$(($(tx eth0) - a0))
	b1=$(($(tx eth1) - a1))
	l0=$(($(mrc_stat "$MRC_H1" route_lookups) - l0))
	d0=$(($(mrc_stat "$MRC_H1" out_data) - d0))
	echo "# $name: eth0 sent $b0 packets, eth1 $b1; $d0 data packets, $l0 route lookups"
	# one per EV slot (128 and spares) at most, whatever the packets
	if [ "$d0" -ge 2000 ] && [ "$l0" -le 200 ]; then
		mrc_ok "$name: a route lookup per EV, not per packet"
	else
		mrc_fail "$name: a route lookup per EV, not per packet" \
			"$l0 lookups for $d0 data packets"
	fi
	# 128 EVs hashed over two next hops: far from all on one
	if [ $((b0 * 4)) -ge $((b0 + b1)) ] && [ $((b1 * 4)) -ge $((b0 + b1)) ]; then
		mrc_ok "$name: each link carries at least a quarter"
	else
		mrc_fail "$name: each link carries at least a quarter" \
			"eth0 $b0, eth1 $b1"
	fi
done

# Delete eth1 under a transfer spread over both links; its routes go with
# it and h1 is left with a route over eth0.
fam=6
[ "$multipath4" = 0 ] || fam=4
name="IPv$fam link deleted"
route "$fam" both
start "$fam"
if ! wait_tx eth1 $(($(tx eth1) + 300)); then
	mrc_fail "$name: the transfer runs on eth1 too"
fi
ip -n "$MRC_H1" link del eth1
route "$fam" via0
a0=$(tx eth0)
moved=0
wait_tx eth0 $((a0 + 300)) && moved=1
mrc_transfer_stop
mrc_transfer_wait "$name: every message once and intact"
mrc_expect_eq "$name: the transfer went on over eth0" 1 "$moved"

mrc_done
