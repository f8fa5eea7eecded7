// SPDX-License-Identifier: GPL-2.0
/* mrc connections: the per-namespace tables (connection ids, bound ports),
 * connection state allocation, the handshake and the teardown.
 */
#include <linux/bitmap.h>
#include <linux/gcd.h>
#include <linux/random.h>
#include <linux/rhashtable.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "protocol.h"

static void mrc_recent_add(struct mrc_net *mn, u32 cid, u64 end_ns);

static const struct rhashtable_params mrc_conn_params = {
	.key_len		= sizeof(u32),
	.key_offset		= offsetof(struct mrc_sock, local_cid),
	.head_offset		= offsetof(struct mrc_sock, node),
	.automatic_shrinking	= true,
};

/**
 * mrc_conn_table_init() - set up a namespace's connection table
 * @mn: the namespace's mrc state
 *
 * Return: 0 or a negative errno.
 */
int mrc_conn_table_init(struct mrc_net *mn)
{
	int i;

	spin_lock_init(&mn->ports_lock);
	for (i = 0; i < ARRAY_SIZE(mn->ports); i++)
		INIT_HLIST_HEAD(&mn->ports[i]);
	spin_lock_init(&mn->conns_lock);
	mn->conns_by_id = RB_ROOT;
	return rhashtable_init(&mn->conns, &mrc_conn_params);
}

static bool mrc_conn_id_less(struct rb_node *a, const struct rb_node *b)
{
	return rb_entry(a, struct mrc_sock, id_node)->local_cid <
	       rb_entry(b, struct mrc_sock, id_node)->local_cid;
}

/* A connection just hashed under its id joins the tree in id order. */
static void mrc_conn_id_add(struct mrc_net *mn, struct mrc_sock *msk)
{
	spin_lock_bh(&mn->conns_lock);
	rb_add(&msk->id_node, &mn->conns_by_id, mrc_conn_id_less);
	spin_unlock_bh(&mn->conns_lock);
}

/**
 * mrc_conn_table_destroy() - free a namespace's (empty) connection table
 * @mn: the namespace's mrc state
 */
void mrc_conn_table_destroy(struct mrc_net *mn)
{
	rhashtable_destroy(&mn->conns);
}

/**
 * mrc_conn_hash() - give a connection a random id and make it findable
 * @sk: the connection, locked
 *
 * Return: 0 or a negative errno.
 */
int mrc_conn_hash(struct sock *sk)
{
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);
	int err = -EADDRNOTAVAIL, tries;

	for (tries = 0; tries < 16; tries++) {
		msk->local_cid = get_random_u32();
		if (!msk->local_cid)
			continue;
		err = rhashtable_lookup_insert_fast(&mn->conns, &msk->node,
						    mrc_conn_params);
		if (err != -EEXIST)
			break;
	}
	if (err)
		msk->local_cid = 0;
	else
		mrc_conn_id_add(mn, msk);
	return err;
}

/* Make a connection findable under a chosen id; -EEXIST if it is taken. */
static int mrc_conn_hash_cid(struct sock *sk, u32 cid)
{
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);
	int err;

	msk->local_cid = cid;
	err = rhashtable_lookup_insert_fast(&mn->conns, &msk->node,
					    mrc_conn_params);
	if (err)
		msk->local_cid = 0;
	else
		mrc_conn_id_add(mn, msk);
	return err;
}

/**
 * mrc_conn_unhash() - stop packets from finding a connection
 * @sk: the connection, locked
 */
void mrc_conn_unhash(struct sock *sk)
{
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);

	if (!msk->local_cid)
		return;
	/* first, so that no copy of its CONFIRM finds neither */
	if (msk->cookie_end_ns > mrc_now_ns())
		mrc_recent_add(mn, msk->local_cid,
			       msk->cookie_end_ns);
	spin_lock_bh(&mn->conns_lock);
	rb_erase(&msk->id_node, &mn->conns_by_id);
	spin_unlock_bh(&mn->conns_lock);
	rhashtable_remove_fast(&mn->conns, &msk->node, mrc_conn_params);
	msk->local_cid = 0;
}

/**
 * mrc_conn_lookup() - find a connection by our id
 * @mn: the namespace's mrc state
 * @cid: the connection id
 *
 * Any context.  Sockets are freed after an RCU grace period
 * (SOCK_RCU_FREE), so the reference is taken safely.
 *
 * Return: the socket with a reference held, or NULL.
 */
struct sock *mrc_conn_lookup(struct mrc_net *mn, u32 cid)
{
	struct mrc_sock *msk;
	struct sock *sk = NULL;

	rcu_read_lock();
	msk = rhashtable_lookup(&mn->conns, &cid, mrc_conn_params);
	if (msk && refcount_inc_not_zero(&msk->inet.sk.sk_refcnt))
		sk = &msk->inet.sk;
	rcu_read_unlock();
	return sk;
}

/**
 * mrc_conn_collect() - take references on the next connections by id
 * @mn: the namespace's mrc state
 * @from: the lowest connection id to collect, 0 at first; set to where
 *        the next batch starts (the next id in the table), or past every
 *        id (MRC_CONN_COLLECT_END) when none is left
 * @socks: filled with up to @max connections of ids at least @from, the
 *         lowest ones in ascending order, each with a reference held
 * @max: room in @socks
 *
 * For dumps and for changes to every connection: the caller may sleep
 * (lock_sock) on what it collected and resume at the next id.  Resuming
 * by id, not by position, a walk in batches sees every connection that
 * exists throughout exactly once, whatever comes or goes in between.
 * Each batch costs O(log n + @max) under conns_lock: a walk over n
 * connections, O(n).  Process context.
 *
 * Return: how many were collected (connections going away are not).
 */
int mrc_conn_collect(struct mrc_net *mn, u64 *from, struct sock **socks,
		     int max)
{
	struct rb_node *node, *next = NULL;
	struct mrc_sock *msk;
	int n = 0;

	if (*from >= MRC_CONN_COLLECT_END)
		return 0;
	spin_lock_bh(&mn->conns_lock);
	/* the first id at least @from */
	for (node = mn->conns_by_id.rb_node; node;) {
		msk = rb_entry(node, struct mrc_sock, id_node);
		if (msk->local_cid < *from) {
			node = node->rb_right;
		} else {
			next = node;
			node = node->rb_left;
		}
	}
	for (node = next; node && n < max; node = rb_next(node)) {
		msk = rb_entry(node, struct mrc_sock, id_node);
		if (refcount_inc_not_zero(&msk->inet.sk.sk_refcnt))
			socks[n++] = &msk->inet.sk;
	}
	*from = node ? rb_entry(node, struct mrc_sock, id_node)->local_cid :
		       MRC_CONN_COLLECT_END;
	spin_unlock_bh(&mn->conns_lock);
	return n;
}

static struct hlist_head *mrc_port_bucket(struct mrc_net *mn, u16 port)
{
	return &mn->ports[hash_32(port, 8)];
}

static bool mrc_port_taken(struct mrc_net *mn, u16 port)
{
	struct mrc_sock *msk;

	hlist_for_each_entry(msk, mrc_port_bucket(mn, port), port_node)
		if (msk->port == port)
			return true;
	return false;
}

/**
 * mrc_port_bind() - reserve an mrc port for a socket
 * @sk: the socket, locked, not bound yet
 * @port: the port, or 0 for an ephemeral one
 *
 * mrc ports are a space of their own per namespace, shared by both
 * families.  Ephemeral ports come from the namespace's
 * ip_local_port_range.
 *
 * Return: 0, -EADDRINUSE or -EADDRNOTAVAIL (no ephemeral port left).
 */
int mrc_port_bind(struct sock *sk, u16 port)
{
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);
	int low, high, range, i, err = 0;
	u16 p;

	spin_lock_bh(&mn->ports_lock);
	if (port) {
		if (mrc_port_taken(mn, port)) {
			err = -EADDRINUSE;
			goto out;
		}
		p = port;
	} else {
		inet_get_local_port_range(sock_net(sk), &low, &high);
		range = high - low + 1;
		p = low + get_random_u32_below(range);
		for (i = 0; i < range; i++) {
			if (!mrc_port_taken(mn, p))
				break;
			p = p == high ? low : p + 1;
		}
		if (i == range) {
			err = -EADDRNOTAVAIL;
			goto out;
		}
	}
	msk->port = p;
	inet_sk(sk)->inet_sport = htons(p);
	inet_sk(sk)->inet_num = p;
	hlist_add_head_rcu(&msk->port_node, mrc_port_bucket(mn, p));
out:
	spin_unlock_bh(&mn->ports_lock);
	return err;
}

/**
 * mrc_port_unbind() - release a socket's mrc port
 * @sk: the socket
 */
void mrc_port_unbind(struct sock *sk)
{
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);

	if (hlist_unhashed(&msk->port_node))
		return;
	spin_lock_bh(&mn->ports_lock);
	hlist_del_init_rcu(&msk->port_node);
	spin_unlock_bh(&mn->ports_lock);
}

/**
 * mrc_port_lookup_listener() - the listening socket on an mrc port
 * @mn: the namespace's mrc state
 * @port: the port, host order
 *
 * Return: the listener with a reference held, or NULL.
 */
struct sock *mrc_port_lookup_listener(struct mrc_net *mn, u16 port)
{
	struct mrc_sock *msk;
	struct sock *sk = NULL;

	rcu_read_lock();
	hlist_for_each_entry_rcu(msk, mrc_port_bucket(mn, port), port_node) {
		if (msk->port == port &&
		    READ_ONCE(msk->inet.sk.sk_state) == TCP_LISTEN &&
		    refcount_inc_not_zero(&msk->inet.sk.sk_refcnt)) {
			sk = &msk->inet.sk;
			break;
		}
	}
	rcu_read_unlock();
	return sk;
}

/* The EV source ports of @s: the first in @lo; returns how many, 1 to
 * 65536.  CONFIG_SET refuses a minimum above the maximum; should one get
 * here even so, the range is the minimum alone rather than a division by
 * zero.
 */
static u32 mrc_conn_port_range(const struct mrc_settings *s, u32 *lo)
{
	*lo = s->ev_port_min;
	if (WARN_ON_ONCE(s->ev_port_max < s->ev_port_min))
		return 1;
	return (u32)s->ev_port_max - s->ev_port_min + 1;
}

/* The EV count and policy of a new connection: its socket options, or the
 * namespace's settings @s.
 */
static void mrc_conn_ev_params(struct sock *sk, const struct mrc_settings *s,
			       u16 *nr_pos, u16 *nr_evs)
{
	struct mrc_sock *msk = mrc_sk(sk);
	u32 lo, range = mrc_conn_port_range(s, &lo);
	u32 pos, spares;

	msk->ev_policy = msk->opt_ev_policy ? msk->opt_ev_policy - 1 :
			 s->ev_policy;
	pos = msk->opt_ev_count ?: s->ev_count;
	spares = s->ev_spares;
	if (msk->ev_policy == MRC_EV_POLICY_SINGLE) {
		pos = 1;
		spares = 0;
	}
	/* distinct ports: the range bounds the positions, then the spares */
	pos = clamp_t(u32, pos, 1, range);
	spares = min(spares, range - pos);
	*nr_pos = pos;
	*nr_evs = pos + spares;
}

/**
 * mrc_conn_alloc_state() - allocate what a connection needs to run
 * @sk: the socket, locked, its peer known
 * @s: the namespace's settings, one snapshot (a copy where @gfp may sleep)
 * @gfp: allocation flags (GFP_ATOMIC from softirq)
 *
 * The EVs are sized and drawn from the same @s.
 *
 * Return: 0 or -ENOMEM.
 */
int mrc_conn_alloc_state(struct sock *sk, const struct mrc_settings *s,
			 gfp_t gfp)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_evset *set = &msk->evset;
	u16 nr_pos, nr_evs;

	mrc_conn_ev_params(sk, s, &nr_pos, &nr_evs);
	msk->ack_coalesce = s->ack_coalesce;
	msk->ack_delay_us = s->ack_delay_us;
	msk->flowlet = s->flowlet;
	/* the rings start small: an idle connection holds no packet */
	msk->rtx.slot = NULL;
	msk->rcv_ofo.slot = NULL;
	mrc_ring_resize(&msk->rtx, 0, 0, MRC_RING_MIN, gfp);
	mrc_ring_resize(&msk->rcv_ofo, 0, 0, MRC_RING_MIN, gfp);
	set->evs = kcalloc(nr_evs, sizeof(*set->evs), gfp);
	set->act = kcalloc(nr_pos, sizeof(*set->act), gfp);
	set->index = kcalloc(MRC_EVSET_INDEX_LEN(nr_evs), sizeof(*set->index),
			     gfp);
	/* one route for every EV until two EVs' routes differ */
	msk->routes.one = NULL;
	msk->routes.dst = NULL;
	msk->routes.on_one = bitmap_zalloc(nr_evs, gfp);
	msk->routes.nr = nr_evs;
	if (!msk->rtx.slot || !msk->rcv_ofo.slot || !set->evs || !set->act ||
	    !set->index || !msk->routes.on_one) {
		mrc_conn_free_state(sk);
		return -ENOMEM;
	}
	mrc_conn_init_evs(sk, s, nr_pos, nr_evs);
	return 0;
}

/**
 * mrc_conn_free_state() - free a connection's queues and tables
 * @sk: the socket, locked or unreachable
 */
void mrc_conn_free_state(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	mrc_rtx_purge(sk);
	mrc_ofo_purge(sk);
	kfree(msk->rtx.slot);
	kfree(msk->rcv_ofo.slot);
	kfree(msk->evset.evs);
	kfree(msk->evset.act);
	kfree(msk->evset.index);
	mrc_routes_release(msk);
	kfree(msk->routes.dst);
	msk->routes.dst = NULL;
	bitmap_free(msk->routes.on_one);
	msk->routes.on_one = NULL;
	msk->rtx.slot = NULL;
	msk->rcv_ofo.slot = NULL;
	msk->ack_pend_n = 0;
	memset(&msk->evset, 0, sizeof(msk->evset));
}

/**
 * mrc_conn_init_evs() - draw a connection's entropy values
 * @sk: the connection, locked, its EV set allocated
 * @s: the namespace's settings that @nr_pos and @nr_evs were sized from
 * @nr_pos: EVs in use
 * @nr_evs: EVs in use and spares, at most the size of the port range
 *
 * Distinct source ports drawn at random from the range of @s; those the
 * administrator denied for this peer start DENIED.
 */
void mrc_conn_init_evs(struct sock *sk, const struct mrc_settings *s,
		       u16 nr_pos, u16 nr_evs)
{
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_evset *set = &msk->evset;
	u32 lo, range = mrc_conn_port_range(s, &lo);
	u32 start, step, i;
	bool replaced;

	/* a step coprime with the range visits distinct ports */
	start = get_random_u32_below(range);
	do {
		step = 1 + get_random_u32_below(range);
	} while (range > 1 && gcd(step, range) != 1);
	for (i = 0; i < nr_evs; i++)
		set->evs[i].port = lo + (start + (u64)i * step) % range;
	mrc_evset_init(set, nr_pos, nr_evs, get_random_u32());
	for (i = 0; i < nr_evs; i++)
		if (mrc_net_port_denied(mn, &msk->peer, set->evs[i].port))
			mrc_evset_deny(set, i, &replaced);
	set->changes = 0;
}

/**
 * mrc_conn_new_port() - a source port for a recycled EV
 * @sk: the connection, locked
 *
 * Return: a port of the namespace's range that the connection does not
 * use and the administrator did not deny, or 0 if none was found.
 */
u16 mrc_conn_new_port(struct sock *sk)
{
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);
	u32 lo, range;
	int tries;

	rcu_read_lock();
	range = mrc_conn_port_range(mrc_settings(mn), &lo);
	rcu_read_unlock();

	for (tries = 0; tries < 8; tries++) {
		u16 port = lo + get_random_u32_below(range);

		if (mrc_evset_find(&msk->evset, port) == MRC_EV_NONE &&
		    !mrc_net_port_denied(mn, &msk->peer, port))
			return port;
	}
	return 0;
}

/**
 * mrc_conn_start_cc() - (re)start a connection's congestion window
 * @sk: the socket, locked; snd_nxt is the first PSN it will send
 * @s: the namespace's settings, one snapshot
 *
 * The algorithm is the socket's MRC_CC or the one of @s; the parameters
 * are those of @s.
 */
void mrc_conn_start_cc(struct sock *sk, const struct mrc_settings *s)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_cc_params p = s->cc_params;

	p.max_cwnd = min_t(u32, p.max_cwnd, MRC_WIN_PKTS);
	mrc_cc_init(&msk->cc, msk->opt_cc ? msk->opt_cc - 1 : s->cc, &p,
		    msk->snd_nxt);
	msk->peer_ce = 0;
}

/**
 * mrc_conn_established() - the handshake is complete
 * @sk: the connection, locked
 */
void mrc_conn_established(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	inet_sk_set_state(sk, TCP_ESTABLISHED);
	msk->last_ack_ns = mrc_now_ns();
	msk->last_rcv_ns = msk->last_ack_ns;
	sk->sk_state_change(sk);
	sk_wake_async(sk, SOCK_WAKE_IO, POLL_OUT);
	mrc_nl_conn_event(sk, MRC_CONN_EVENT_UP, 0);
}

/* Free everything a connection holds once nothing can reach it any more. */
static void mrc_conn_destroy(struct sock *sk)
{
	mrc_timer_stop(sk);
	mrc_conn_unhash(sk);
	mrc_conn_free_state(sk);
}

/**
 * mrc_conn_done() - the connection is over; free it if it is orphaned
 * @sk: the connection, locked; the caller holds a reference
 */
void mrc_conn_done(struct sock *sk)
{
	/* a connection that was up and did not fail closed in order */
	struct mrc_sock *msk = mrc_sk(sk);

	if (sk->sk_state != TCP_CLOSE && sk->sk_state != TCP_SYN_SENT &&
	    !msk->failed)
		mrc_nl_conn_event(sk, MRC_CONN_EVENT_CLOSED, 0);
	/* in order, every status record came before the peer's FIN */
	mrc_op_end_all(sk, msk->failed ? READ_ONCE(sk->sk_err) ? : ECONNRESET :
		       0);
	inet_sk_set_state(sk, TCP_CLOSE);
	sk->sk_shutdown = SHUTDOWN_MASK;
	mrc_conn_destroy(sk);
	if (!sock_flag(sk, SOCK_DEAD)) {
		sk->sk_state_change(sk);
		return;
	}
	/* orphaned by close(): drop the reference the socket kept */
	mrc_orphan_done(sk);
	mrc_rcv_purge(sk);
	mrc_port_unbind(sk);
	sock_put(sk);
}

/**
 * mrc_conn_abort() - end a connection with an error
 * @sk: the connection, locked; the caller holds a reference
 * @err: errno the application sees (ETIMEDOUT, ECONNRESET, ...)
 * @send_rst: tell the peer
 */
void mrc_conn_abort(struct sock *sk, int err, bool send_rst)
{
	struct mrc_sock *msk = mrc_sk(sk);

	if (sk->sk_state == TCP_CLOSE || sk->sk_state == TCP_LISTEN)
		return;
	if (send_rst && msk->peer_cid)
		mrc_send_rst(sk);
	MRC_INC_STATS(mrc_sk_pernet(sk), err == ETIMEDOUT ?
		      MRC_MIB_CONN_TIMEDOUT : MRC_MIB_CONN_ABORTED);
	mrc_nl_conn_event(sk, MRC_CONN_EVENT_FAILED, err);
	msk->failed = true;
	mrc_sock_error(sk, err);
	mrc_conn_done(sk);
}

static void mrc_addr_from_skb(const struct sk_buff *skb, struct in6_addr *src,
			      struct in6_addr *dst)
{
	if (ip_hdr(skb)->version == 4) {
		ipv6_addr_set_v4mapped(ip_hdr(skb)->saddr, src);
		ipv6_addr_set_v4mapped(ip_hdr(skb)->daddr, dst);
	} else {
		*src = ipv6_hdr(skb)->saddr;
		*dst = ipv6_hdr(skb)->daddr;
	}
}

/* What a listener's cookie covers: the SYN (or the CONFIRM that repeats
 * it), both addresses and the time of the SYNACK.  Hashed as bytes, so
 * no implicit padding.
 */
struct mrc_cookie_in {
	struct in6_addr	peer;
	struct in6_addr	local;
	__be32		cid;
	__be32		isn;
	__be16		sport;
	__be16		dport;
	__be16		udp_port;
	__be16		pad;
	u64		t;
};

/* The cookies' clock: microseconds in 64 bits.  A SYNACK carries the low
 * 32 and the CONFIRM brings them back; the cookie covers all 64, taken
 * as the latest time with those low bits, so that a CONFIRM replayed
 * after the 32-bit clock wrapped (71.6 minutes) has the wrong cookie.
 * Test builds can move it (mrc_fault_cookie_clock_us()).
 */
static u64 mrc_cookie_now_us(void)
{
	return div_u64(mrc_now_ns(), NSEC_PER_USEC) +
	       mrc_fault_cookie_clock_us();
}

/* The listener's cookie: the connection id (high half, never 0) and our
 * first PSN (low half) of the connection a SYN asks for, at time @t of
 * the cookies' clock (mrc_cookie_now_us()).
 */
static void mrc_cookie(struct mrc_net *mn, const struct in6_addr *peer,
		       const struct in6_addr *local,
		       const struct mrc_syn_hdr *syn, u64 t, u32 *cid, u32 *isn)
{
	struct mrc_cookie_in in = {
		.peer = *peer, .local = *local, .cid = syn->common.src_cid,
		.isn = syn->isn, .sport = syn->src_port,
		.dport = syn->dst_port, .udp_port = syn->udp_port, .t = t,
	};
	u64 c;

	BUILD_BUG_ON(sizeof(in) != 56);
	c = siphash(&in, sizeof(in), &mn->cid_key);
	*cid = (u32)(c >> 32) ?: 1;
	*isn = (u32)c;
}

struct mrc_recent {
	struct rhash_head	node;
	struct list_head	age;
	struct rcu_head		rcu;
	u32			cid;
	u64			end_ns;
};

static const struct rhashtable_params mrc_recent_params = {
	.key_len		= sizeof(u32),
	.key_offset		= offsetof(struct mrc_recent, cid),
	.head_offset		= offsetof(struct mrc_recent, node),
	.automatic_shrinking	= true,
};

/**
 * mrc_recent_init() - set up a namespace's table of ended connections
 * @mn: the namespace's mrc state
 *
 * Return: 0 or a negative errno.
 */
int mrc_recent_init(struct mrc_net *mn)
{
	spin_lock_init(&mn->recent_lock);
	INIT_LIST_HEAD(&mn->recent_age);
	return rhashtable_init(&mn->recent, &mrc_recent_params);
}

static void mrc_recent_del(struct mrc_net *mn, struct mrc_recent *r)
{
	rhashtable_remove_fast(&mn->recent, &r->node, mrc_recent_params);
	list_del(&r->age);
	kfree_rcu(r, rcu);
	mn->nr_recent--;
}

/* Free the entries that have expired, oldest first; under recent_lock.
 * An entry lives at most MRC_COOKIE_LIFE_US, so one that expired behind
 * a younger one waits at most that long; lookups check the time.
 */
static void mrc_recent_prune(struct mrc_net *mn, u64 now)
{
	struct mrc_recent *r, *tmp;

	list_for_each_entry_safe(r, tmp, &mn->recent_age, age) {
		if (r->end_ns > now)
			break;
		mrc_recent_del(mn, r);
	}
}

/* A connection made from a cookie ends while a duplicate of its CONFIRM
 * could still pass the cookie check: remember its id until then.  When
 * the table is full (or memory is short) every cookie issued before now
 * is refused instead, until the last of them has expired.  O(1): a hash
 * lookup, and pruning what expired in the order it was added.
 */
static void mrc_recent_add(struct mrc_net *mn, u32 cid, u64 end_ns)
{
	struct mrc_recent *r = NULL, *old;
	u64 now = mrc_now_ns();

	spin_lock_bh(&mn->recent_lock);
	mrc_recent_prune(mn, now);
	old = rhashtable_lookup_fast(&mn->recent, &cid, mrc_recent_params);
	if (old) {
		/* another connection with the same id: keep the later end */
		old->end_ns = max(old->end_ns, end_ns);
		goto out;
	}
	if (mn->nr_recent < MRC_RECENT_MAX)
		r = kmalloc(sizeof(*r), GFP_ATOMIC);
	if (r) {
		r->cid = cid;
		r->end_ns = end_ns;
		if (rhashtable_insert_fast(&mn->recent, &r->node,
					   mrc_recent_params)) {
			kfree(r);
			r = NULL;
		}
	}
	if (r) {
		list_add_tail(&r->age, &mn->recent_age);
		mn->nr_recent++;
	} else {
		mn->recent_floor_us = mrc_cookie_now_us();
		mn->recent_floor_end_ns = now + MRC_COOKIE_LIFE_US *
					  NSEC_PER_USEC;
	}
out:
	spin_unlock_bh(&mn->recent_lock);
}

/* Could a CONFIRM with id @cid and cookie time @t be the duplicate of one
 * whose connection has ended?
 */
static bool mrc_recent_seen(struct mrc_net *mn, u32 cid, u64 t)
{
	u64 now = mrc_now_ns();
	struct mrc_recent *r;
	bool seen = false;

	spin_lock(&mn->recent_lock);
	if (mn->recent_floor_end_ns > now && t <= mn->recent_floor_us)
		seen = true;
	mrc_recent_prune(mn, now);
	r = rhashtable_lookup_fast(&mn->recent, &cid, mrc_recent_params);
	if (r && r->end_ns > now)
		seen = true;
	spin_unlock(&mn->recent_lock);
	return seen;
}

/**
 * mrc_recent_flush() - forget every ended connection (namespace exit)
 * @mn: the namespace's mrc state
 */
void mrc_recent_flush(struct mrc_net *mn)
{
	spin_lock_bh(&mn->recent_lock);
	mrc_recent_prune(mn, U64_MAX);
	spin_unlock_bh(&mn->recent_lock);
	rhashtable_destroy(&mn->recent);
}

static void mrc_child_init_addrs(struct sock *sk, const struct in6_addr *peer,
				 const struct in6_addr *local)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct inet_sock *inet = inet_sk(sk);

	msk->peer = *peer;
	msk->saddr = *local;
	msk->v4 = ipv6_addr_v4mapped(peer);
	inet->inet_dport = htons(msk->peer_port);
	if (msk->v4) {
		inet->inet_daddr = peer->s6_addr32[3];
		inet->inet_saddr = local->s6_addr32[3];
		inet->inet_rcv_saddr = local->s6_addr32[3];
	}
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6) {
		sk->sk_v6_daddr = *peer;
		sk->sk_v6_rcv_saddr = *local;
		inet6_sk(sk)->saddr = *local;
	}
#endif
}

/* Does the listener take connections from @peer to @local? */
static bool mrc_listen_admits(struct sock *lsk, const struct in6_addr *peer,
			      const struct in6_addr *local)
{
	const struct in6_addr *bound = &mrc_sk(lsk)->saddr;

	if (READ_ONCE(lsk->sk_state) != TCP_LISTEN)
		return false;
	/* the listener's family, V6ONLY and bound address must admit it */
	if (lsk->sk_family == AF_INET ? !ipv6_addr_v4mapped(peer) :
	    ipv6_only_sock(lsk) && ipv6_addr_v4mapped(peer))
		return false;
	return ipv6_addr_any(bound) ||
	       (ipv6_addr_v4mapped(bound) && !bound->s6_addr32[3]) ||
	       ipv6_addr_equal(bound, local);
}

/**
 * mrc_listen_rcv_syn() - a SYN for a listener
 * @lsk: the listening socket, not locked (a reference held)
 * @skb: the datagram; mrc payload at skb->data + sizeof(struct udphdr)
 *
 * Softirq.  Answers with a SYNACK whose connection id and first PSN are
 * a cookie (mrc_cookie()) and keeps no state: the connection is made
 * when the CONFIRM brings the cookie back (mrc_listen_rcv_confirm()).  A
 * repeated SYN gets a SYNACK of its own.
 */
void mrc_listen_rcv_syn(struct sock *lsk, struct sk_buff *skb)
{
	const struct mrc_syn_hdr *syn = (void *)(skb->data +
						 sizeof(struct udphdr));
	struct mrc_net *mn = mrc_sk_pernet(lsk);
	struct in6_addr peer, local;
	u32 cid, isn;
	u64 t;

	mrc_addr_from_skb(skb, &peer, &local);
	if (!mrc_listen_admits(lsk, &peer, &local)) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_NO_LISTENER);
		return;
	}
	if (sk_acceptq_is_full(lsk)) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_BACKLOG);
		return;
	}
	t = mrc_cookie_now_us();
	mrc_cookie(mn, &peer, &local, syn, t, &cid, &isn);
	mrc_send_synack(mn, skb, syn, cid, isn, (u32)t, mrc_rcv_window(lsk),
			READ_ONCE(lsk->sk_bound_dev_if));
}

/* Make the socket of a connection whose CONFIRM carried a valid cookie
 * and queue it for accept().  Softirq; @age_us: how old the cookie is.
 */
static int mrc_listen_new_child(struct sock *lsk, struct sk_buff *skb,
				const struct in6_addr *peer,
				const struct in6_addr *local, u32 cid,
				u32 isn, u32 age_us)
{
	const struct mrc_syn_hdr *syn = (void *)(skb->data +
						 sizeof(struct udphdr));
	struct mrc_sock *lmsk = mrc_sk(lsk), *child;
	struct mrc_net *mn = mrc_sk_pernet(lsk);
	struct mrc_settings s;
	struct sock *sk;
	bool queued;
	int err;

	sk = sk_clone_lock(lsk, GFP_ATOMIC);
	if (!sk)
		return -ENOMEM;
	/* sk_clone_lock() returns the clone bh-locked; tell sparse */
	__acquire(&sk->sk_lock.slock);
	mrc_mem_child_added(sk);
	child = mrc_sk(sk);
	mrc_sock_init_fields(sk);
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6) {
		struct ipv6_pinfo *np = &((struct mrc6_sock *)sk)->inet6;

		inet_sk(sk)->pinet6 = np;
		np->ipv6_mc_list = NULL;
		np->ipv6_ac_list = NULL;
		np->ipv6_fl_list = NULL;
		np->pktoptions = NULL;
		RCU_INIT_POINTER(np->opt, NULL);
	}
#endif
	inet_sk(sk)->mc_list = NULL;
	RCU_INIT_POINTER(inet_sk(sk)->inet_opt, NULL);

	child->port = lmsk->port;
	child->peer_port = ntohs(syn->src_port);
	child->peer_udp = ntohs(syn->udp_port);
	child->peer_cid = ntohl(syn->common.src_cid);
	child->peer_rwnd = ntohl(syn->rwnd);
	child->peer_max_msg = ntohl(syn->max_msg);
	/* one snapshot for what the new connection takes from the settings */
	mrc_settings_copy(mn, &s);
	child->max_msg = s.max_msg_size;
	child->rcv_nxt = ntohl(syn->isn);
	child->rcv_hi = child->rcv_nxt;
	mrc_child_init_addrs(sk, peer, local);

	err = -ENOMEM;
	if (mrc_conn_alloc_state(sk, &s, GFP_ATOMIC))
		goto err;
	if (mrc_route_mss(sk) < 0)
		goto err;
	err = mrc_conn_hash_cid(sk, cid);
	if (err)	/* -EEXIST: a copy of the CONFIRM made it first */
		goto err;
	child->snd_una = isn;
	child->snd_nxt = isn;
	mrc_conn_start_cc(sk, &s);
	mrc_rtt_sample(sk, age_us);
	inet_sk_set_state(sk, TCP_ESTABLISHED);
	child->last_ack_ns = mrc_now_ns();
	child->last_rcv_ns = child->last_ack_ns;

	spin_lock(&lmsk->accept_lock);
	queued = READ_ONCE(lsk->sk_state) == TCP_LISTEN &&
		 !sk_acceptq_is_full(lsk);
	if (queued) {
		child->parent = lsk;
		sock_hold(lsk);
		/* the clone's second reference is the accept queue's */
		list_add_tail(&child->accept_node, &lmsk->accept_queue);
		sk_acceptq_added(lsk);
	}
	spin_unlock(&lmsk->accept_lock);
	if (!queued) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_BACKLOG);
		err = -ENOBUFS;
		goto err;
	}
	/* until then a copy of the CONFIRM could pass the cookie check */
	child->cookie_end_ns = child->last_ack_ns +
			       (u64)(MRC_COOKIE_LIFE_US - age_us) *
			       NSEC_PER_USEC;

	/* the connecting side is confirmed by our first packet */
	mrc_send_ack_echo(sk, child->rcv_nxt - 1, ntohl(syn->tsval), 0, 0);
	/* from now on the peer must show signs of life */
	mrc_timer_arm(sk);
	mrc_nl_conn_event(sk, MRC_CONN_EVENT_UP, 0);
	bh_unlock_sock(sk);
	return 0;
err:
	mrc_conn_destroy(sk);
	__release(&sk->sk_lock.slock);
	mrc_mem_child_free(sk);
	return err;
}

/**
 * mrc_listen_rcv_confirm() - a CONFIRM for no connection: make one if it
 * carries a valid cookie
 * @lsk: the listener on the CONFIRM's port, not locked (a reference held)
 * @skb: the datagram; mrc payload at skb->data + sizeof(struct udphdr)
 *
 * Softirq.  The cookie must be one this namespace issued (its key) to
 * this peer for this SYN, at most MRC_COOKIE_LIFE_US ago; and no
 * connection made from it may have ended (mrc_recent_seen()), so an old
 * duplicate cannot make a connection again.
 */
void mrc_listen_rcv_confirm(struct sock *lsk, struct sk_buff *skb)
{
	const struct mrc_syn_hdr *syn = (void *)(skb->data +
						 sizeof(struct udphdr));
	struct mrc_net *mn = mrc_sk_pernet(lsk);
	u64 now = mrc_cookie_now_us();
	/* the latest time whose low bits the CONFIRM brings back */
	u32 age = (u32)now - ntohl(syn->echo_tsval);
	u64 t = now - age;
	struct in6_addr peer, local;
	u32 cid, isn;
	int err;

	mrc_addr_from_skb(skb, &peer, &local);
	if (!mrc_listen_admits(lsk, &peer, &local)) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_NO_LISTENER);
		return;
	}
	mrc_cookie(mn, &peer, &local, syn, t, &cid, &isn);
	if (cid != ntohl(syn->common.dst_cid) || age >= MRC_COOKIE_LIFE_US) {
		/* forged, for another SYN, or expired: nothing to answer */
		MRC_INC_STATS(mn, MRC_MIB_DROP_BAD_COOKIE);
		return;
	}
	if (mrc_recent_seen(mn, cid, t)) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_OLD_CONFIRM);
		return;
	}
	if (sk_acceptq_is_full(lsk)) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_BACKLOG);
		return;
	}
	err = mrc_listen_new_child(lsk, skb, &peer, &local, cid, isn, age);
	if (err) {
		if (err == -ENOMEM)
			MRC_INC_STATS(mn, MRC_MIB_DROP_NOMEM);
		return;
	}
	MRC_INC_STATS(mn, MRC_MIB_CONN_ACCEPTED);
	lsk->sk_data_ready(lsk);
}

/**
 * mrc_listen_stop() - a listener closes: abort the unaccepted children
 * @lsk: the listener, owned by the caller (process context), its state
 *       no longer TCP_LISTEN so that no child joins the queue
 */
void mrc_listen_stop(struct sock *lsk)
{
	struct mrc_sock *lmsk = mrc_sk(lsk), *child, *tmp;
	LIST_HEAD(queue);
	struct sock *sk;

	spin_lock_bh(&lmsk->accept_lock);
	list_splice_init(&lmsk->accept_queue, &queue);
	WRITE_ONCE(lsk->sk_ack_backlog, 0);
	spin_unlock_bh(&lmsk->accept_lock);

	list_for_each_entry_safe(child, tmp, &queue, accept_node) {
		sk = &child->inet.sk;
		list_del_init(&child->accept_node);

		/* like accept(): the owner's lock, as netlink takes it */
		lock_sock_nested(sk, SINGLE_DEPTH_NESTING);
		/* nobody owns it: it was never accepted */
		sock_orphan(sk);
		sock_hold(sk);
		if (sk->sk_state == TCP_CLOSE) {
			/* reset while it waited: nothing left but the socket */
			mrc_rcv_purge(sk);
			sock_put(sk);
		} else {
			mrc_conn_abort(sk, ECONNRESET, true);
		}
		mrc_sk_release_parent(sk);
		release_sock(sk);
		sock_put(sk);	/* the accept queue's reference */
		sock_put(sk);	/* ours */
	}
}

/**
 * mrc_sk_release_parent() - drop a child's reference to its listener
 * @sk: the child
 */
void mrc_sk_release_parent(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	if (msk->parent) {
		sock_put(msk->parent);
		msk->parent = NULL;
	}
}

/**
 * mrc_conn_opened() - the listener's first packet confirmed our CONFIRM
 * @sk: the connecting socket, locked, in TCP_SYN_SENT with the peer's id
 */
void mrc_conn_opened(struct sock *sk)
{
	mrc_conn_established(sk);
	MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_CONN_OPENED);
}

/**
 * mrc_rcv_synack() - the listener answered our SYN with its cookie
 * @sk: the connecting socket, locked
 * @skb: the datagram; mrc payload at skb->data + sizeof(struct udphdr)
 *
 * Takes the cookie as the peer's connection id and answers with a
 * CONFIRM.  The connection is up once the listener's connection answers
 * (mrc_conn_opened()); until then the timer repeats the CONFIRM.
 */
void mrc_rcv_synack(struct sock *sk, struct sk_buff *skb)
{
	const struct mrc_syn_hdr *syn = (void *)(skb->data +
						 sizeof(struct udphdr));
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);
	u32 echo = ntohl(syn->echo_tsval), now = mrc_now_us32();

	if (sk->sk_state != TCP_SYN_SENT || msk->peer_cid) {
		/* an answer to a repeated SYN: the first one counts */
		MRC_INC_STATS(mn, MRC_MIB_SYN_REPEATED);
		return;
	}
	if (ntohs(syn->dst_port) != msk->port ||
	    ntohs(syn->src_port) != msk->peer_port) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_BAD_FIELD);
		return;
	}
	/* it must answer one of our SYNs: the first or a later one */
	if ((s32)(echo - msk->syn_tsval) < 0 || (s32)(now - echo) < 0) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_BAD_FIELD);
		return;
	}

	msk->peer_cid = ntohl(syn->common.src_cid);
	msk->peer_udp = ntohs(syn->udp_port);
	msk->peer_rwnd = ntohl(syn->rwnd);
	msk->peer_max_msg = ntohl(syn->max_msg);
	msk->rcv_nxt = ntohl(syn->isn);
	msk->rcv_hi = msk->rcv_nxt;
	msk->synack_tsval = ntohl(syn->tsval);
	msk->synack_ns = mrc_now_ns();
	/* the echo names the SYN it answers: a sample even after repeats */
	mrc_rtt_sample(sk, now - echo);
	mrc_send_syn(sk, MRC_PKT_CONFIRM);
	msk->syn_sent_ns = msk->synack_ns;
	mrc_timer_arm(sk);
}

/* Our FIN has left and is all the peer has not acknowledged. */
static bool mrc_only_fin_unacked(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	return msk->fin_queued && skb_queue_empty(&sk->sk_write_queue) &&
	       skb_queue_empty(&msk->rsp_queue) &&
	       msk->snd_nxt - msk->snd_una == 1;
}

/**
 * mrc_rcv_rst() - the peer aborted the connection, or refused it
 * @sk: the connection, locked
 * @skb: the datagram; mrc payload at skb->data + sizeof(struct udphdr)
 *
 * An RST counts only if it names a PSN of our send window, which only
 * the peer knows (RFC 5961's check for TCP); another one is answered
 * with a probe, to which a peer that really lost the connection answers
 * with an RST that does.  One that comes when only our FIN waits for
 * its ACK, the peer's FIN taken, ends the connection in order.
 */
void mrc_rcv_rst(struct sock *sk, struct sk_buff *skb)
{
	const struct mrc_probe_hdr *p = (void *)(skb->data +
						 sizeof(struct udphdr));
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);
	bool refused = ntohs(p->common.flags) & MRC_F_REFUSED;
	u32 psn = ntohl(p->psn);

	if (!mrc_psn_in_window(psn, msk->snd_una,
			       msk->snd_nxt - msk->snd_una + 1)) {
		MRC_INC_STATS(mn, MRC_MIB_RST_CHALLENGED);
		if (sk->sk_state != TCP_SYN_SENT)
			mrc_send_challenge(sk);
		return;
	}
	if (sk->sk_state == TCP_SYN_SENT) {
		int err = refused ? ECONNREFUSED : ECONNRESET;

		MRC_INC_STATS(mn, refused ? MRC_MIB_CONN_REFUSED :
			      MRC_MIB_CONN_ABORTED);
		mrc_nl_conn_event(sk, MRC_CONN_EVENT_FAILED, err);
		msk->failed = true;
		mrc_sock_error(sk, err);
		mrc_conn_done(sk);
		return;
	}
	/* The peer took our FIN's retransmission for a packet of no
	 * connection: it had freed ours when our ACK of its FIN came, and
	 * its ACK of our FIN was lost (there is no TIME_WAIT).  With its
	 * FIN taken and everything before ours acknowledged, both
	 * directions were complete: the connection ends in order.
	 */
	if (msk->fin_rcvd && mrc_only_fin_unacked(sk)) {
		MRC_INC_STATS(mn, MRC_MIB_RST_AFTER_FIN);
		mrc_conn_done(sk);
		return;
	}
	mrc_conn_abort(sk, ECONNRESET, false);
}
