// SPDX-License-Identifier: GPL-2.0
/* mrc transmit path: route lookups per entropy value, header building,
 * the UDP tunnel transmit, and pushing queued messages out as the windows
 * allow.
 */
#include <linux/bitmap.h>
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ip6_checksum.h>
#include <net/ip6_route.h>
#include <net/ipv6.h>
#include <net/ipv6_stubs.h>
#include <net/route.h>
#include <net/sock.h>
#include <net/udp_tunnel.h>

#include "protocol.h"
#include "run.h"
#include "trace.h"

/* Who a datagram goes to, and through which tunnel socket. */
struct mrc_flow {
	struct in6_addr	saddr;
	struct in6_addr	daddr;
	u16		sport;		/* the entropy value */
	u16		dport;		/* peer's UDP encapsulation port */
	int		oif;
};

/* The UDP header, in front of the mrc header. */
static void mrc_push_udp(struct sk_buff *skb, const struct mrc_flow *fl)
{
	struct udphdr *uh;

	__skb_push(skb, sizeof(*uh));
	skb_reset_transport_header(skb);
	uh = udp_hdr(skb);
	uh->source = htons(fl->sport);
	uh->dest = htons(fl->dport);
	uh->len = htons(skb->len);
}

/* A run of packets in one UDP GSO datagram (mrc_xmit_run()): the stack,
 * or the device, cuts it at gso_size and repeats the IP and UDP headers;
 * the checksum is left to whoever cuts it, as udp_send_skb() does for
 * UDP_SEGMENT.
 */
static void mrc_gso_csum(struct sk_buff *skb)
{
	if (!skb_is_gso(skb))
		return;
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = skb_transport_header(skb) - skb->head;
	skb->csum_offset = offsetof(struct udphdr, check);
}

/* What ip_local_out() or ip6_local_out() said, as mrc_tunnel_xmit()
 * returns it: a drop in our own stack (a full qdisc, a firewall rule) is
 * -ENOBUFS, congestion notified by a qdisc that took the packet is 0.
 */
static int mrc_local_out_err(struct mrc_net *mn, int err)
{
	if (likely(!net_xmit_eval(err)))
		return 0;
	MRC_INC_STATS(mn, MRC_MIB_OUT_DROPPED);
	return -ENOBUFS;
}

/* The route of @skb: @dst's reference goes with the packet, or, when
 * the route stays cached (an EV's, mrc_route_get()), the packet borrows
 * it for as long as the caller's RCU read section; a queue that keeps the
 * packet longer takes a reference of its own (skb_dst_force()), as for
 * TCP's packets.
 */
static void mrc_skb_dst_set(struct sk_buff *skb, struct dst_entry *dst,
			    bool cached)
{
	if (cached)
		skb_dst_set_noref(skb, dst);
	else
		skb_dst_set(skb, dst);
}

/* Forget every route of @rc. */
static void mrc_routes_flush(struct mrc_routes *rc)
{
	unsigned int i;

	dst_release(rc->one);
	rc->one = NULL;
	if (rc->on_one)
		bitmap_zero(rc->on_one, rc->nr);
	for (i = 0; rc->dst && i < rc->nr; i++) {
		dst_release(rc->dst[i]);
		rc->dst[i] = NULL;
	}
}

/* Do packets routed by @a and by @b leave the same way: the same device,
 * next hop, MTU and encapsulation?  Output routes are cached per CPU, so
 * two lookups that end at one next hop may give two objects.
 */
static bool mrc_route_same(const struct dst_entry *a,
			   const struct dst_entry *b)
{
	if (a == b)
		return true;
	if (a->dev != b->dev || a->lwtstate != b->lwtstate ||
	    dst_xfrm(a) || dst_xfrm(b) || dst_mtu(a) != dst_mtu(b))
		return false;
	if (a->ops->family == AF_INET) {
		const struct rtable *ra = container_of(a, struct rtable, dst);
		const struct rtable *rb = container_of(b, struct rtable, dst);

		if (ra->rt_type != rb->rt_type ||
		    ra->rt_gw_family != rb->rt_gw_family)
			return false;
		if (ra->rt_gw_family == AF_INET)
			return ra->rt_gw4 == rb->rt_gw4;
		if (ra->rt_gw_family == AF_INET6)
			return ipv6_addr_equal(&ra->rt_gw6, &rb->rt_gw6);
		return true;
	}
#if IS_ENABLED(CONFIG_IPV6)
	if (a->ops->family == AF_INET6)
		return ipv6_addr_equal(&((const struct rt6_info *)a)->rt6i_gateway,
				       &((const struct rt6_info *)b)->rt6i_gateway);
#endif
	return false;
}

/**
 * mrc_route_set() - cache a route just looked up for one EV
 * @mn: the namespace's mrc state (routes_per_ev)
 * @rc: the connection's routes
 * @evi: the EV's slot
 * @dst: its route, held, looked up with @cookie
 * @cookie: as &struct mrc_routes.cookie
 *
 * While every EV's route leads to one next hop, one route serves them
 * all: an EV whose route is the same keeps a bit, and its own lookup's
 * result is let go.  The first EV whose route differs moves the
 * connection to a route per EV (the others look theirs up again).
 *
 * Return: the route to send with, cached (@dst or the one it matched),
 * or NULL when it could not be kept (no memory for a route per EV): the
 * caller sends with @dst and lets it go.
 */
static struct dst_entry *mrc_route_set(struct mrc_net *mn,
				       struct mrc_routes *rc, u16 evi,
				       struct dst_entry *dst, u32 cookie)
{
	if (unlikely(cookie != rc->cookie)) {
		/* the others were checked against the old one */
		mrc_routes_flush(rc);
		rc->cookie = cookie;
	}
	if (!rc->dst) {
		if (!rc->one)
			rc->one = dst;
		if (mrc_route_same(rc->one, dst)) {
			__set_bit(evi, rc->on_one);
			if (dst != rc->one)
				dst_release(dst);	/* freed after RCU */
			return rc->one;
		}
		rc->dst = kcalloc(rc->nr, sizeof(*rc->dst), GFP_ATOMIC);
		if (!rc->dst)
			return NULL;
		mrc_routes_flush(rc);
		MRC_INC_STATS(mn, MRC_MIB_ROUTES_PER_EV);
	}
	rc->dst[evi] = dst;
	return dst;
}

/* The cached route of EV slot @evi if it is still good (dst_check(): no
 * route, address, rule or device changed since), or NULL.  The socket
 * lock serialises every use of @rc.
 */
static struct dst_entry *mrc_route_get(struct mrc_routes *rc, u16 evi)
{
	struct dst_entry *dst;

	if (rc->dst) {
		dst = rc->dst[evi];
		if (!dst)
			return NULL;
		if (likely(dst_check(dst, rc->cookie)))
			return dst;
		rc->dst[evi] = NULL;
		dst_release(dst);
		return NULL;
	}
	if (!rc->one || !test_bit(evi, rc->on_one))
		return NULL;
	if (likely(dst_check(rc->one, rc->cookie)))
		return rc->one;
	mrc_routes_flush(rc);
	return NULL;
}

/**
 * mrc_routes_release() - forget every cached route of a connection
 * @msk: the connection, locked or unreachable
 */
void mrc_routes_release(struct mrc_sock *msk)
{
	mrc_routes_flush(&msk->routes);
}

/* IPv4: as udp_tunnel_xmit_skb(), which does not say whether the packet
 * left; rcu_read_lock held.
 */
static int mrc_udp4_out(struct net *net, struct sock *tsk,
			struct sk_buff *skb, struct rtable *rt, bool cached,
			const struct flowi4 *fl4, const struct mrc_flow *fl,
			u8 tos)
{
	struct iphdr *iph;

	mrc_push_udp(skb, fl);
	mrc_gso_csum(skb);
	udp_set_csum(false, skb, fl4->saddr, fl4->daddr, skb->len);
	skb_scrub_packet(skb, false);
	skb->mark = 0;
	mrc_skb_dst_set(skb, &rt->dst, cached);
	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->frag_off = ip_mtu_locked(&rt->dst) ? 0 : htons(IP_DF);
	iph->protocol = IPPROTO_UDP;
	iph->tos = tos;
	iph->daddr = fl4->daddr;
	iph->saddr = fl4->saddr;
	iph->ttl = ip4_dst_hoplimit(&rt->dst);
	__ip_select_ident(net, iph, skb_shinfo(skb)->gso_segs ?: 1);
	return ip_local_out(net, tsk, skb);
}

#if IS_ENABLED(CONFIG_IPV6)
/* IPv6: as udp_tunnel6_xmit_skb(); rcu_read_lock held. */
static int mrc_udp6_out(struct net *net, struct sock *tsk,
			struct sk_buff *skb, struct dst_entry *dst, bool cached,
			const struct flowi6 *fl6, const struct mrc_flow *fl,
			u8 tos)
{
	struct ipv6hdr *ip6h;

	mrc_push_udp(skb, fl);
	mrc_skb_dst_set(skb, dst, cached);
	mrc_gso_csum(skb);
	udp6_set_csum(false, skb, &fl6->saddr, &fl6->daddr, skb->len);
	__skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, tos, fl6->flowlabel);
	ip6h->payload_len = htons(skb->len - sizeof(*ip6h));
	ip6h->nexthdr = IPPROTO_UDP;
	ip6h->hop_limit = ip6_dst_hoplimit(dst);
	ip6h->daddr = fl6->daddr;
	ip6h->saddr = fl6->saddr;
	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	return ip6_local_out(net, tsk, skb);
}
#endif

/**
 * mrc_tunnel_xmit() - send a packet over UDP
 * @net: the namespace
 * @skb: the packet, its mrc header pushed; consumed
 * @fl: where to, from which entropy value
 * @tos: the ECN bits (and DSCP) of the outer header
 * @rc: where the routes of a connection's EVs stay cached (an EV's @fl
 *      never changes), or NULL to look it up for this packet only
 * @evi: the EV's slot in @rc
 *
 * mrc builds the UDP and IP headers itself rather than through
 * udp_tunnel_xmit_skb(), whose callers cannot tell a packet that left
 * from one our own stack dropped.  Any context; with @rc, the lock that
 * serialises its users.
 *
 * Return: 0 when the packet left; -ENOBUFS when our stack dropped it
 * (out_dropped); another negative errno when there was no route or no
 * tunnel socket (out_noroute).
 */
static int mrc_tunnel_xmit(struct net *net, struct sk_buff *skb,
			   const struct mrc_flow *fl, u8 tos,
			   struct mrc_routes *rc, u16 evi)
{
	struct mrc_net *mn = mrc_pernet(net);
	struct dst_entry *dst = NULL;
	struct socket *sock;
	int err = -ENETUNREACH;

	rcu_read_lock();
	if (rc)
		dst = mrc_route_get(rc, evi);
	if (ipv6_addr_v4mapped(&fl->daddr)) {
		struct flowi4 fl4 = {
			.daddr = fl->daddr.s6_addr32[3],
			.saddr = fl->saddr.s6_addr32[3],
			.flowi4_proto = IPPROTO_UDP,
			.flowi4_oif = fl->oif,
			.fl4_sport = htons(fl->sport),
			.fl4_dport = htons(fl->dport),
		};
		bool cached = dst;
		struct rtable *rt;

		sock = rcu_dereference(mn->sock4);
		if (!sock)
			goto drop;
		if (cached) {
			rt = container_of(dst, struct rtable, dst);
		} else {
			MRC_INC_STATS(mn, MRC_MIB_ROUTE_LOOKUPS);
			rt = ip_route_output_key(net, &fl4);
			if (IS_ERR(rt)) {
				err = PTR_ERR(rt);
				goto drop;
			}
			/* cached only for the source address asked for */
			if (rc && fl4.saddr == fl->saddr.s6_addr32[3]) {
				dst = mrc_route_set(mn, rc, evi, &rt->dst, 0);
				cached = dst;
				if (cached)
					rt = container_of(dst, struct rtable,
							  dst);
			}
		}
		err = mrc_udp4_out(net, sock->sk, skb, rt, cached, &fl4, fl,
				   tos);
#if IS_ENABLED(CONFIG_IPV6)
	} else {
		struct flowi6 fl6 = {
			.daddr = fl->daddr,
			.saddr = fl->saddr,
			.flowi6_proto = IPPROTO_UDP,
			.flowi6_oif = fl->oif,
			.fl6_sport = htons(fl->sport),
			.fl6_dport = htons(fl->dport),
		};
		bool cached = dst;

		sock = rcu_dereference(mn->sock6);
		if (!sock)
			goto drop;
		/* the flow label carries the entropy value too */
		fl6.flowlabel = htonl(fl->sport) & IPV6_FLOWLABEL_MASK;
		if (!dst) {
			MRC_INC_STATS(mn, MRC_MIB_ROUTE_LOOKUPS);
			dst = ipv6_stub->ipv6_dst_lookup_flow(net, sock->sk,
							      &fl6, NULL);
			if (IS_ERR(dst)) {
				err = PTR_ERR(dst);
				goto drop;
			}
			if (rc && ipv6_addr_equal(&fl6.saddr, &fl->saddr)) {
				struct dst_entry *c;

				c = mrc_route_set(mn, rc, evi, dst,
						  rt6_get_cookie((struct rt6_info *)dst));
				cached = c;
				if (cached)
					dst = c;
			}
		}
		err = mrc_udp6_out(net, sock->sk, skb, dst, cached, &fl6, fl,
				   tos);
#endif
	}
	rcu_read_unlock();
	return mrc_local_out_err(mn, err);
drop:
	rcu_read_unlock();
	kfree_skb(skb);
	MRC_INC_STATS(mn, MRC_MIB_OUT_NOROUTE);
	return err;
}

/**
 * mrc_conn_xmit() - send a packet of a connection on one of its EVs
 * @sk: the connection, locked
 * @skb: the packet, its mrc header pushed; consumed
 * @evi: the slot of the EV
 * @tos: as for mrc_tunnel_xmit()
 *
 * The route is looked up once per EV and kept until it goes stale or the
 * socket's bound device changes.
 *
 * Return: as mrc_tunnel_xmit().
 */
static int mrc_conn_xmit(struct sock *sk, struct sk_buff *skb, u16 evi,
			 u8 tos)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_flow fl = {
		.saddr = msk->saddr,
		.daddr = msk->peer,
		.sport = msk->evset.evs[evi].port,
		.dport = msk->peer_udp,
		.oif = READ_ONCE(sk->sk_bound_dev_if),
	};

	if (unlikely(fl.oif != msk->routes.oif)) {
		mrc_routes_release(msk);
		msk->routes.oif = fl.oif;
	}
	return mrc_tunnel_xmit(sock_net(sk), skb, &fl, tos,
			       msk->routes.on_one ? &msk->routes : NULL, evi);
}

/**
 * mrc_route_mss() - find our address and the payload size for a peer
 * @sk: the connection, locked, with msk->peer set (msk->saddr may be
 *      any; it is filled from the route)
 *
 * Return: 0 or a negative errno (no route).
 */
int mrc_route_mss(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct net *net = sock_net(sk);
	unsigned int mtu, overhead;

	overhead = sizeof(struct udphdr) + sizeof(struct mrc_data_hdr);
	if (ipv6_addr_v4mapped(&msk->peer)) {
		struct flowi4 fl4 = {
			.daddr = msk->peer.s6_addr32[3],
			.saddr = ipv6_addr_any(&msk->saddr) ? 0 :
				 msk->saddr.s6_addr32[3],
			.flowi4_proto = IPPROTO_UDP,
			.flowi4_oif = sk->sk_bound_dev_if,
		};
		struct rtable *rt = ip_route_output_key(net, &fl4);

		if (IS_ERR(rt))
			return PTR_ERR(rt);
		ipv6_addr_set_v4mapped(fl4.saddr, &msk->saddr);
		mtu = dst_mtu(&rt->dst);
		ip_rt_put(rt);
		overhead += sizeof(struct iphdr);
#if IS_ENABLED(CONFIG_IPV6)
	} else {
		struct flowi6 fl6 = {
			.daddr = msk->peer,
			.saddr = msk->saddr,
			.flowi6_proto = IPPROTO_UDP,
			.flowi6_oif = sk->sk_bound_dev_if,
		};
		struct dst_entry *dst;

		dst = ipv6_stub->ipv6_dst_lookup_flow(net, NULL, &fl6, NULL);
		if (IS_ERR(dst))
			return PTR_ERR(dst);
		msk->saddr = fl6.saddr;
		mtu = dst_mtu(dst);
		dst_release(dst);
		overhead += sizeof(struct ipv6hdr);
#else
	} else {
		return -EAFNOSUPPORT;
#endif
	}
	if (mtu < overhead + 64)
		mtu = overhead + 64;
	msk->mss = min_t(unsigned int, mtu - overhead, U16_MAX);
	return 0;
}

static void mrc_fill_common(struct mrc_hdr *h, u8 type, u16 flags,
			    u32 dst_cid, u32 src_cid)
{
	h->version = MRC_WIRE_VERSION;
	h->type = type;
	h->flags = htons(flags);
	h->dst_cid = htonl(dst_cid);
	h->src_cid = htonl(src_cid);
}

/* A control packet of @len header bytes, with room for IP and UDP. */
static struct sk_buff *mrc_alloc_ctl(unsigned int len)
{
	struct sk_buff *skb = alloc_skb(MRC_HEADROOM + len, GFP_ATOMIC);

	if (!skb)
		return NULL;
	skb_reserve(skb, MRC_HEADROOM + len);
	return skb;
}

/* Report one of the peer's ACKs found lost (mrc_ack_log()), if any, in
 * the DATA header of packet @cb: the one it carried before, if this is a
 * retransmission of that packet, or else the oldest no packet carries.
 * A report is repeated until the packet carrying it is acknowledged
 * (mrc_rtx_set_state()): the packets whose ACKs were lost are often the
 * ones lost too.
 */
static void mrc_fill_ack_lost(struct mrc_sock *msk, struct mrc_skb_cb *cb,
			      struct mrc_data_hdr *d)
{
	struct mrc_ack_report *r = NULL;
	unsigned int i;

	d->ack_lost_seq = 0;
	d->ack_lost_ev = 0;
	for (i = 0; i < msk->ack_lost_n && !r; i++)
		if (msk->ack_lost[i].carried &&
		    msk->ack_lost[i].psn == cb->psn)
			r = &msk->ack_lost[i];
	for (i = 0; i < msk->ack_lost_n && !r; i++)
		if (!msk->ack_lost[i].carried)
			r = &msk->ack_lost[i];
	if (!r)
		return;
	r->carried = true;
	r->psn = cb->psn;
	cb->flags |= MRC_CB_REPORT;
	d->ack_lost_seq = htons(r->seq);
	d->ack_lost_ev = htons(r->port);
}

/* A copy of a queued packet to transmit.  The data is shared with the
 * queued original; the headers go into headroom the original never uses
 * (it is marked nohdr).  Copy if an earlier transmission is still in a
 * queue below us.
 */
static struct sk_buff *mrc_data_clone(struct sk_buff *skb)
{
	if (mrc_fault_xmit_clone())
		return NULL;
	if (unlikely(skb_cloned(skb)))
		return pskb_copy(skb, GFP_ATOMIC);
	return skb_clone(skb, GFP_ATOMIC);
}

/* Account a (re)transmission of queued packet @skb on slot @evi and
 * write its DATA header into @d.
 */
static void mrc_xmit_prep(struct sock *sk, struct sk_buff *skb, u16 evi,
			  struct mrc_data_hdr *d)
{
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_skb_cb *cb = mrc_cb(skb);
	struct mrc_sock *msk = mrc_sk(sk);
	u16 port = msk->evset.evs[evi].port;

	cb->sent_ns = mrc_now_ns();
	trace_mrc_xmit(sk, cb->psn, port, cb->len, cb->tx_count + 1);
	if (cb->tx_count) {
		trace_mrc_retransmit(sk, cb->psn,
				     msk->evset.evs[cb->evi].port, port);
		msk->stats.retrans++;
		MRC_INC_STATS(mn, MRC_MIB_RETRANS);
	} else if ((cb->flags & MRC_CB_RDMA) && (cb->msg_id & MRC_F_RDMA) &&
		   !(cb->msg_id & (MRC_F_READ | MRC_F_RESP))) {
		MRC_INC_STATS(mn, MRC_MIB_OUT_WRITE);
	}
	cb->tx_count++;
	mrc_on_transmit(sk, skb, evi);

	/* a one-sided packet's DATA flags are in its msg_id (no message) */
	mrc_fill_common(&d->common, MRC_PKT_DATA,
			(cb->flags & MRC_CB_FIN ? MRC_F_FIN : 0) |
			(cb->flags & MRC_CB_RDMA ? cb->msg_id : 0),
			msk->peer_cid, msk->local_cid);
	d->psn = htonl(cb->psn);
	d->msg_id = cb->flags & MRC_CB_RDMA ? 0 : htonl(cb->msg_id);
	d->msg_len = htonl(cb->msg_len);
	d->offset = htonl(cb->offset);
	d->tsval = htonl((u32)div_u64(cb->sent_ns, NSEC_PER_USEC));
	d->ev = htons(port);
	d->len = htons(cb->len);
	mrc_fill_ack_lost(msk, cb, d);

	msk->stats.pkts_sent++;
	MRC_INC_STATS(mn, MRC_MIB_OUT_DATA);
}

/* A data datagram on EV @evi left: the EV's drops are no longer in a row
 * (mrc_xmit_dropped())
 */
static void mrc_xmit_left(struct mrc_sock *msk, u16 evi)
{
	msk->evset.evs[evi].xmit_drops = 0;
	msk->xmit_left++;
}

/**
 * mrc_xmit_data() - (re)transmit one queued data packet
 * @sk: the connection, locked
 * @skb: the packet in the retransmission ring, not in flight; its data
 *       stays there
 *
 * A packet handed to the tunnel is in flight, even when no route or
 * tunnel socket took it (out_noroute): the network dropped it, as a dead
 * link would, and the loss rules and the RTO send it again, backed off
 * and on another EV.  A packet that could not be copied (out_nomem) or
 * that our own stack dropped (out_dropped: a full qdisc) never left: it
 * is marked lost and goes out with the next retransmissions, when an ACK
 * or the timer pushes again; a drop also cuts the window
 * (mrc_xmit_dropped()).
 *
 * Return: 0 when the packet is in flight, -ENOBUFS when it is left lost.
 */
int mrc_xmit_data(struct sock *sk, struct sk_buff *skb)
{
	struct mrc_skb_cb *cb = mrc_cb(skb);
	struct mrc_sock *msk = mrc_sk(sk);
	struct sk_buff *nskb;
	u16 evi;

	nskb = mrc_data_clone(skb);
	if (!nskb) {
		MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_OUT_NOMEM);
		mrc_rtx_set_state(sk, skb, MRC_CB_LOST);
		return -ENOBUFS;
	}

	cb->prev_evi = cb->tx_count ? cb->evi : MRC_EV_NONE;
	evi = mrc_ev_pick(sk, cb->prev_evi);
	mrc_xmit_prep(sk, skb, evi, skb_push(nskb, sizeof(struct mrc_data_hdr)));
	if (mrc_conn_xmit(sk, nskb, evi, INET_ECN_ECT_0) == -ENOBUFS) {
		mrc_xmit_dropped(sk, skb, true);
		return -ENOBUFS;
	}
	mrc_xmit_left(msk, evi);
	return 0;
}

/**
 * mrc_xmit_run() - transmit new packets in a row on one EV
 * @sk: the connection, locked
 * @run: the packets, just given their PSNs, in order; mrc_run_fits()
 *       said each could follow the ones before it
 * @n: how many
 *
 * One packet goes as mrc_xmit_data() sends it.  Several go on one EV as
 * one UDP GSO datagram (SKB_GSO_UDP_L4, gso_size one packet): the
 * headers of every packet in a page fragment of their own, each followed
 * by its payload's fragments, shared with the queued copy.  Whoever cuts
 * it (the device, or the stack for a device without UDP segmentation, or
 * the receiving host's UDP socket) repeats only the IP and UDP headers,
 * so every packet arrives as if it had been sent alone.  A datagram that
 * could not be built leaves its packets lost for the retransmissions, as
 * mrc_xmit_data() does; one our stack dropped counts once against its EV.
 *
 * Return: as mrc_xmit_data().
 */
static int mrc_xmit_run(struct sock *sk, struct sk_buff *const *run,
			unsigned int n)
{
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);
	unsigned int hlen = 0, off = 0, i;
	struct sk_buff *nskb;
	u8 *hdrs = NULL;
	u16 evi;

	if (n == 1)
		return mrc_xmit_data(sk, run[0]);

	for (i = 0; i < n; i++)
		hlen += mrc_run_hdr_len(run[i]);
	nskb = mrc_fault_xmit_clone() ? NULL :
	       alloc_skb(MRC_HEADROOM, GFP_ATOMIC);
	if (nskb)
		hdrs = netdev_alloc_frag(hlen);
	if (!hdrs) {
		kfree_skb(nskb);
		MRC_ADD_STATS(mn, MRC_MIB_OUT_NOMEM, n);
		for (i = 0; i < n; i++)
			mrc_rtx_set_state(sk, run[i], MRC_CB_LOST);
		return -ENOBUFS;
	}
	skb_reserve(nskb, MRC_HEADROOM);

	evi = mrc_ev_pick(sk, MRC_EV_NONE);
	for (i = 0; i < n; i++) {
		mrc_cb(run[i])->prev_evi = MRC_EV_NONE;
		mrc_xmit_prep(sk, run[i], evi,
			      (struct mrc_data_hdr *)(hdrs + off));
		off += mrc_run_hdr_len(run[i]);
	}
	mrc_run_build(nskb, run, n, hdrs);

	MRC_INC_STATS(mn, MRC_MIB_OUT_GSO);
	MRC_ADD_STATS(mn, MRC_MIB_OUT_GSO_PKTS, n);
	if (mrc_conn_xmit(sk, nskb, evi, INET_ECN_ECT_0) == -ENOBUFS) {
		for (i = 0; i < n; i++)
			mrc_xmit_dropped(sk, run[i], !i);
		return -ENOBUFS;
	}
	mrc_xmit_left(msk, evi);
	return 0;
}

static void mrc_fill_ack(struct sock *sk, struct mrc_ack_hdr *a,
			 const u32 *sack, unsigned int words, u32 echo_psn,
			 u32 echo_tsval, u16 echo_ev, u16 flags, u32 wait_us,
			 u16 port)
{
	struct mrc_sock *msk = mrc_sk(sk);
	__be32 *w = (__be32 *)(a + 1);
	unsigned int i;

	mrc_fill_common(&a->common, MRC_PKT_ACK, flags,
			msk->peer_cid, msk->local_cid);
	a->cum_psn = htonl(msk->rcv_nxt);
	a->rwnd = htonl(mrc_rcv_window(sk));
	a->sack_hi = htonl(sack[0]);
	a->sack_lo = htonl(sack[1]);
	a->echo_psn = htonl(echo_psn);
	a->echo_tsval = htonl(echo_tsval);
	a->echo_ev = htons(echo_ev);
	a->ack_seq = htons(++msk->ack_seq);
	a->ce_count = htonl(msk->rcv_ce);
	/* which EV the one before took, should the peer miss that one */
	a->prev_ev = htons(msk->ack_prev_port);
	msk->ack_prev_port = port;
	a->sack_words = words - MRC_SACK_BITS_MIN / 32;
	a->nr_echo = 0;
	a->echo_wait_us = htonl(wait_us);
	for (i = MRC_SACK_BITS_MIN / 32; i < words; i++)
		*w++ = htonl(sack[i]);
}

/* The EV for an ACK or probe: rotate so the reverse path survives too. */
static u16 mrc_ctl_evi(struct sock *sk)
{
	return mrc_evset_pick_ctl(&mrc_sk(sk)->evset);
}

/* the packets an ACK may stand for: its echo and its further echoes */
static_assert(MRC_ACK_ECHOES + 1 == MRC_ACK_COALESCE_LIMIT);

/**
 * mrc_send_ack_waited() - acknowledge a received packet, and those held back
 * @sk: the connection, locked
 * @echo_psn: PSN of the packet the ACK echoes first
 * @echo_tsval: its transmit time
 * @echo_ev: its entropy value
 * @flags: MRC_F_CE if it arrived CE-marked, MRC_F_PROBE if it was a probe,
 *         MRC_F_DROP if we dropped it (memory, receive buffer)
 * @wait_us: how long its ACK was held back (0: it goes as the packet came)
 *
 * The packets held back (@ack_pend) go as the further echoes, each with
 * the time it waited since it came.
 */
void mrc_send_ack_waited(struct sock *sk, u32 echo_psn, u32 echo_tsval,
			 u16 echo_ev, u16 flags, u32 wait_us)
{
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);
	unsigned int words, len, i, n = msk->ack_pend_n;
	u32 sack[MRC_SACK_WORDS], now_us;
	struct mrc_ack_echo *x;
	struct mrc_ack_hdr *a;
	struct sk_buff *skb;
	struct mrc_ev *ev;
	u16 prev_port, evi;

	if (!msk->rcv_ofo.slot || !msk->evset.nr_evs)
		return;
	words = mrc_sack_build((void *const *)msk->rcv_ofo.slot,
			       mrc_ring_size(&msk->rcv_ofo),
			       msk->rcv_nxt, msk->rcv_hi, sack);
	len = mrc_ack_len(words - MRC_SACK_BITS_MIN / 32, n);
	skb = mrc_alloc_ctl(len);
	if (!skb) {
		/* what was held waits for the timer, or the next ACK */
		MRC_INC_STATS(mn, MRC_MIB_OUT_NOMEM);
		return;
	}
	evi = mrc_ctl_evi(sk);
	ev = &msk->evset.evs[evi];
	ev->acks++;
	a = skb_push(skb, len);
	mrc_fill_ack(sk, a, sack, words, echo_psn, echo_tsval, echo_ev, flags,
		     wait_us, ev->port);
	/* the packets held back go as its further echoes, their arrival
	 * times made into how long they waited
	 */
	if (n) {
		x = (void *)((__be32 *)(a + 1) + a->sack_words);
		now_us = mrc_now_us32();
		for (i = 0; i < n; i++) {
			x[i] = msk->ack_pend[i];
			x[i].wait_us = htonl(now_us -
					     ntohl(msk->ack_pend[i].wait_us));
		}
		a->nr_echo = n;
		msk->ack_pend_n = 0;
	}
	prev_port = ntohs(a->prev_ev);
	MRC_INC_STATS(mn, MRC_MIB_OUT_ACK);
	if (mrc_conn_xmit(sk, skb, evi, 0) == -ENOBUFS) {
		/* our own stack dropped it: the next ACK takes its
		 * sequence number, so the peer finds no ACK lost on the EV
		 */
		msk->ack_seq--;
		msk->ack_prev_port = prev_port;
	}
}

/**
 * mrc_send_syn() - send our SYN, or the CONFIRM that answers a SYNACK
 * @sk: the connecting socket, locked
 * @type: MRC_PKT_SYN or MRC_PKT_CONFIRM
 *
 * A CONFIRM repeats the SYN's fields and carries the listener's cookie
 * back: its id as dst_cid, its time in echo_tsval.
 *
 * Return: 0 or a negative errno.
 */
int mrc_send_syn(struct sock *sk, u8 type)
{
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);
	bool confirm = type == MRC_PKT_CONFIRM;
	struct mrc_syn_hdr *s;
	struct sk_buff *skb;

	skb = mrc_alloc_ctl(sizeof(*s));
	if (!skb)
		return -ENOBUFS;
	s = skb_push(skb, sizeof(*s));
	mrc_fill_common(&s->common, type, 0, confirm ? msk->peer_cid : 0,
			msk->local_cid);
	s->isn = htonl(msk->snd_una);
	s->src_port = htons(msk->port);
	s->dst_port = htons(msk->peer_port);
	s->udp_port = htons(READ_ONCE(mn->port));
	s->reserved = 0;
	s->rwnd = htonl(mrc_rcv_window(sk));
	s->tsval = htonl(mrc_now_us32());
	s->echo_tsval = htonl(confirm ? msk->synack_tsval : 0);
	s->max_msg = htonl(msk->max_msg);
	MRC_INC_STATS(mn, confirm ? MRC_MIB_OUT_CONFIRM : MRC_MIB_OUT_SYN);
	return mrc_conn_xmit(sk, skb, mrc_ctl_evi(sk), 0);
}

/* The flow back to the sender of @skb: from the address it came to,
 * to its encapsulation port @dport, from the port it came from (its EV:
 * a repeated packet on another EV is answered on another path too).
 */
static void mrc_reply_flow(const struct sk_buff *skb, struct mrc_flow *fl,
			   u16 dport, int oif)
{
	if (ip_hdr(skb)->version == 4) {
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr, &fl->saddr);
		ipv6_addr_set_v4mapped(ip_hdr(skb)->saddr, &fl->daddr);
	} else {
		fl->saddr = ipv6_hdr(skb)->daddr;
		fl->daddr = ipv6_hdr(skb)->saddr;
	}
	fl->sport = ntohs(udp_hdr(skb)->source);
	fl->dport = dport;
	fl->oif = oif;
}

/**
 * mrc_send_synack() - answer a SYN with the listener's cookie
 * @mn: the namespace's mrc state
 * @skb: the SYN (IP header still reachable)
 * @syn: its mrc header
 * @cid: the cookie's connection id, our src_cid
 * @isn: the cookie's first PSN
 * @tsval: the cookie's time, our tsval
 * @rwnd: the listener's receive window
 * @oif: the listener's bound device, or 0
 *
 * Softirq.  Stateless: everything comes from the SYN and the cookie.
 */
void mrc_send_synack(struct mrc_net *mn, struct sk_buff *skb,
		     const struct mrc_syn_hdr *syn, u32 cid, u32 isn, u32 tsval,
		     u32 rwnd, int oif)
{
	struct mrc_syn_hdr *s;
	struct sk_buff *nskb;
	struct mrc_flow fl;

	nskb = mrc_alloc_ctl(sizeof(*s));
	if (!nskb) {
		MRC_INC_STATS(mn, MRC_MIB_OUT_NOMEM);
		return;
	}
	s = skb_push(nskb, sizeof(*s));
	mrc_fill_common(&s->common, MRC_PKT_SYNACK, 0,
			ntohl(syn->common.src_cid), cid);
	s->isn = htonl(isn);
	s->src_port = syn->dst_port;
	s->dst_port = syn->src_port;
	s->udp_port = htons(READ_ONCE(mn->port));
	s->reserved = 0;
	s->rwnd = htonl(rwnd);
	s->tsval = htonl(tsval);
	s->echo_tsval = syn->tsval;
	s->max_msg = htonl(mrc_settings(mn)->max_msg_size);
	MRC_INC_STATS(mn, MRC_MIB_OUT_SYNACK);
	mrc_reply_flow(skb, &fl, ntohs(syn->udp_port), oif);
	mrc_tunnel_xmit(dev_net(skb->dev), nskb, &fl, 0, NULL, 0);
}

/* A PROBE or RST on the EV in slot @evi, carrying @psn, counted
 * in @mib once it exists (out_nomem counts it otherwise; it is not
 * retried: the timer sends the next one).  A probe is ECN-capable like
 * the data it stands for: a queue that marks data marks it instead of
 * dropping it.
 */
static void mrc_send_small(struct sock *sk, u8 type, u16 evi, u32 psn,
			   enum mrc_mib_field mib)
{
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_probe_hdr *p;
	struct sk_buff *skb;

	skb = mrc_alloc_ctl(sizeof(*p));
	if (!skb) {
		MRC_INC_STATS(mn, MRC_MIB_OUT_NOMEM);
		return;
	}
	MRC_INC_STATS(mn, mib);
	p = skb_push(skb, sizeof(*p));
	mrc_fill_common(&p->common, type, 0, msk->peer_cid, msk->local_cid);
	p->tsval = htonl(mrc_now_us32());
	p->ev = htons(msk->evset.evs[evi].port);
	p->reserved = 0;
	p->psn = htonl(psn);
	mrc_conn_xmit(sk, skb, evi, type == MRC_PKT_PROBE ? INET_ECN_ECT_0 : 0);
}

/**
 * mrc_send_probe() - ask the peer for an ACK (zero window, idle path)
 * @sk: the connection, locked
 */
void mrc_send_probe(struct sock *sk)
{
	mrc_send_small(sk, MRC_PKT_PROBE, mrc_ctl_evi(sk), mrc_sk(sk)->snd_nxt,
		       MRC_MIB_OUT_PROBE);
}

/**
 * mrc_send_ev_probe() - probe one EV: does its path work again?
 * @sk: the connection, locked
 * @evi: the slot of the EV
 */
void mrc_send_ev_probe(struct sock *sk, u16 evi)
{
	struct mrc_sock *msk = mrc_sk(sk);

	mrc_send_small(sk, MRC_PKT_PROBE, evi, msk->snd_nxt, MRC_MIB_OUT_PROBE);
}

/**
 * mrc_send_challenge() - answer an RST that named no PSN of our window
 * @sk: the connection, locked
 *
 * A probe, at most one per MRC_CHALLENGE_GAP_NS: a peer that really lost
 * the connection answers it with an RST carrying the probe's PSN.
 */
void mrc_send_challenge(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	u64 now = mrc_now_ns();

	if (msk->challenge_ns && now - msk->challenge_ns < MRC_CHALLENGE_GAP_NS)
		return;
	msk->challenge_ns = now;
	mrc_send_probe(sk);
}

/**
 * mrc_send_rst() - abort the connection at the peer
 * @sk: the connection, locked
 *
 * The RST names our cumulative PSN, which is in the peer's send window.
 */
void mrc_send_rst(struct sock *sk)
{
	mrc_send_small(sk, MRC_PKT_RST, mrc_ctl_evi(sk), mrc_sk(sk)->rcv_nxt,
		       MRC_MIB_OUT_RST);
}

/**
 * mrc_send_rst_reply() - answer a packet that has no connection here
 * @mn: the namespace's mrc state
 * @skb: the received datagram (IP header still reachable)
 * @h: its mrc header
 * @refused: nobody listens on the port a SYN or CONFIRM is for
 *
 * Only DATA, PROBE, SYN and CONFIRM are answered: the RST carries their
 * PSN (a SYN's or CONFIRM's isn), which is in the sender's window, so
 * that the sender takes it (mrc_rcv_rst()).  At most the namespace's
 * rate (rst_rs); the rest are counted as out_rst_limited.
 */
void mrc_send_rst_reply(struct mrc_net *mn, struct sk_buff *skb,
			const struct mrc_hdr *h, bool refused)
{
	struct mrc_probe_hdr *p;
	struct sk_buff *nskb;
	struct mrc_flow fl;
	u16 dport = READ_ONCE(mn->port);
	__be32 psn;

	switch (h->type) {
	case MRC_PKT_DATA:
		psn = ((const struct mrc_data_hdr *)h)->psn;
		break;
	case MRC_PKT_PROBE:
		psn = ((const struct mrc_probe_hdr *)h)->psn;
		break;
	case MRC_PKT_SYN:
	case MRC_PKT_CONFIRM:
		psn = ((const struct mrc_syn_hdr *)h)->isn;
		dport = ntohs(((const struct mrc_syn_hdr *)h)->udp_port);
		break;
	default:	/* ACK, SYNACK, RST: nothing to reset */
		return;
	}
	if (!__ratelimit(&mn->rst_rs)) {
		MRC_INC_STATS(mn, MRC_MIB_OUT_RST_LIMITED);
		return;
	}
	mrc_reply_flow(skb, &fl, dport, 0);
	/* from our encapsulation port, where the packet came to */
	fl.sport = ntohs(udp_hdr(skb)->dest);

	nskb = mrc_alloc_ctl(sizeof(*p));
	if (!nskb)
		return;
	p = skb_push(nskb, sizeof(*p));
	mrc_fill_common(&p->common, MRC_PKT_RST,
			refused ? MRC_F_REFUSED : 0, ntohl(h->src_cid),
			ntohl(h->dst_cid));
	p->tsval = htonl(mrc_now_us32());
	p->ev = htons(fl.sport);
	p->reserved = 0;
	p->psn = psn;
	MRC_INC_STATS(mn, MRC_MIB_OUT_RST);
	mrc_tunnel_xmit(dev_net(skb->dev), nskb, &fl, 0, NULL, 0);
}

/* Window cost of a packet: payload plus what holding it costs the peer. */
static u32 mrc_pkt_cost(const struct sk_buff *skb)
{
	return mrc_cb(skb)->len + MRC_PKT_OVERHEAD;
}

/* The first packet judged lost and not yet retransmitted, looked for from
 * the lowest PSN that may be (@lost_hint), not from the window's start.
 */
static struct sk_buff *mrc_first_lost(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct sk_buff *skb;
	u32 psn = msk->lost_hint;

	if (!mrc_psn_in_window(psn, msk->snd_una, msk->snd_nxt - msk->snd_una))
		psn = msk->snd_una;
	for (; psn != msk->snd_nxt; psn++) {
		skb = *mrc_ring_at(&msk->rtx, psn);
		if (skb && (mrc_cb(skb)->flags & MRC_CB_LOST)) {
			msk->lost_hint = psn;
			return skb;
		}
	}
	return NULL;
}

/**
 * mrc_rescue_head() - send the oldest packet again if a slow path holds it
 * @sk: the connection, locked
 *
 * Called when the peer's receive window or the PSN window stops new data:
 * both are held by the oldest unacknowledged packet.  When that packet is
 * still in flight on an EV whose path is slow (weighed down, or its RTT
 * estimate over mrc_ev_slow_lim()) and it has been out for longer than
 * the connection's RTT, or on an EV not heard from yet and it has been out
 * for longer than that limit, it goes again now, once, on an EV
 * known to be fast (mrc_ev_pick()): its copy through the slow path may
 * take many round trips (its queue), and the connection would wait for
 * it.  This is MPTCP's opportunistic retransmission.  It is not a loss:
 * no EV goes BAD, the window is not cut, and the late copy's echo is only
 * a delay sample of its EV.
 */
static void mrc_rescue_head(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct sk_buff *skb;
	struct mrc_skb_cb *cb;
	u32 lim, wait_us;
	struct mrc_ev *ev;

	if (msk->snd_una == msk->snd_nxt || !msk->srtt_us)
		return;
	skb = *mrc_ring_at(&msk->rtx, msk->snd_una);
	if (!skb)
		return;
	cb = mrc_cb(skb);
	if (!(cb->flags & MRC_CB_IN_FLIGHT) || cb->tx_count != 1)
		return;
	ev = &msk->evset.evs[cb->evi];
	lim = mrc_ev_slow_lim(msk->srtt_us);
	if (ev->state == MRC_EV_GOOD && ev->srtt_us && ev->srtt_us <= lim)
		return;
	/* known slow: as soon as a fast path would have delivered it;
	 * unknown: once it is as late as a slow path would make it
	 */
	if (ev->state == MRC_EV_GOOD && !ev->srtt_us)
		wait_us = lim;
	else
		wait_us = msk->srtt_us;
	if (mrc_now_ns() - cb->sent_ns < (u64)wait_us * NSEC_PER_USEC)
		return;
	MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_RETRANS_RESCUE);
	cb->flags |= MRC_CB_RESCUE;
	mrc_xmit_data(sk, skb);
}

/**
 * mrc_push() - transmit what the windows allow
 * @sk: the connection, locked
 *
 * Retransmissions of lost packets go first, then new packets from the
 * write queue, while the congestion window, the peer's receive window
 * and the PSN window have room, and at most MRC_BURST_PKTS at a time:
 * the rest goes as ACKs come back, so a large message or an opening
 * window does not leave as one line-rate burst.  New packets go in runs
 * of up to msk->flowlet on one EV (mrc_xmit_run()).  The responses to
 * the peer's READs join the write queue first (mrc_rsp_fill()); our FIN
 * waits for them.
 */
void mrc_push(struct sock *sk)
{
	struct sk_buff *run[MRC_FLOWLET_LIMIT];
	struct mrc_sock *msk = mrc_sk(sk);
	unsigned int n = 0, nrun = 0;
	bool sent = false, rescue = false;
	struct sk_buff *skb;

	if (sk->sk_state != TCP_ESTABLISHED && sk->sk_state != TCP_CLOSE_WAIT &&
	    sk->sk_state != TCP_FIN_WAIT1)
		return;
	if (!skb_queue_empty(&msk->rsp_queue)) {
		int err = mrc_rsp_fill(sk);

		if (err) {
			mrc_conn_abort(sk, -err, true);
			return;
		}
	}

	while (msk->lost_cnt && msk->in_flight < msk->cc.cwnd &&
	       n++ < MRC_BURST_PKTS) {
		skb = mrc_first_lost(sk);
		if (WARN_ON_ONCE(!skb))
			break;
		sent = true;
		/* no memory: the rest waits for the next ACK or the timer */
		if (mrc_xmit_data(sk, skb))
			goto out;
	}

	while ((skb = skb_peek(&sk->sk_write_queue))) {
		if (msk->snd_nxt - msk->snd_una >= MRC_WIN_PKTS) {
			rescue = true;
			break;
		}
		/* The ring doubles when the window outgrows it; without
		 * memory the rest waits for the ACKs of what it holds.
		 */
		if (mrc_ring_fit(&msk->rtx, msk->snd_una, msk->snd_nxt,
				 msk->snd_nxt, MRC_WIN_PKTS, GFP_ATOMIC)) {
			MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_OUT_NOMEM);
			break;
		}
		if (msk->in_flight + nrun >= msk->cc.cwnd ||
		    n++ >= MRC_BURST_PKTS)
			break;
		/* the FIN goes after every response to the peer's READs */
		if ((mrc_cb(skb)->flags & MRC_CB_FIN) &&
		    !skb_queue_empty(&msk->rsp_queue))
			break;
		/* The peer's window, with one exception: when nothing is in
		 * flight and the window is open at all, one packet may go even
		 * if it is larger (a receive buffer smaller than a packet).
		 */
		if (msk->bytes_out + mrc_pkt_cost(skb) > msk->peer_rwnd &&
		    (msk->snd_nxt != msk->snd_una || !msk->peer_rwnd)) {
			if (msk->snd_nxt == msk->snd_una)
				/* zero window: the timer probes */
				MRC_INC_STATS(mrc_sk_pernet(sk),
					      MRC_MIB_ZERO_WINDOW);
			else
				rescue = true;
			break;
		}
		if (nrun && (nrun == msk->flowlet ||
			     !mrc_run_fits(run, nrun, skb))) {
			sent = true;
			if (mrc_xmit_run(sk, run, nrun)) {
				nrun = 0;
				goto out;
			}
			nrun = 0;
		}
		__skb_unlink(skb, &sk->sk_write_queue);
		mrc_cb(skb)->psn = msk->snd_nxt;
		*mrc_ring_at(&msk->rtx, msk->snd_nxt) = skb;
		msk->snd_nxt++;
		msk->bytes_out += mrc_pkt_cost(skb);
		run[nrun++] = skb;
	}
	if (nrun) {
		sent = true;
		if (!mrc_xmit_run(sk, run, nrun) && rescue)
			mrc_rescue_head(sk);
	} else if (rescue) {
		mrc_rescue_head(sk);
	}

out:
	if (sent || !skb_queue_empty(&sk->sk_write_queue) ||
	    !skb_queue_empty(&msk->rsp_queue))
		mrc_timer_arm(sk);
}
