// SPDX-License-Identifier: GPL-2.0
/* mrc per-network-namespace state: the settings, the counters and the
 * kernel UDP tunnel sockets bound to the namespace's encapsulation port.
 */
#include <linux/random.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include <net/udp_tunnel.h>

#include "protocol.h"

unsigned int mrc_net_id __read_mostly;

static struct socket *mrc_tunnel_open(struct net *net, struct mrc_net *mn,
				      u8 family, u16 port)
{
	struct udp_tunnel_sock_cfg tcfg = {};
	struct udp_port_cfg ucfg = {};
	struct socket *sock;
	int err;

	ucfg.family = family;
	ucfg.local_udp_port = htons(port);
	if (family == AF_INET) {
		ucfg.local_ip.s_addr = htonl(INADDR_ANY);
		ucfg.use_udp_checksums = 1;
#if IS_ENABLED(CONFIG_IPV6)
	} else {
		ucfg.local_ip6 = in6addr_any;
		ucfg.ipv6_v6only = 1;
		ucfg.use_udp6_tx_checksums = 1;
		ucfg.use_udp6_rx_checksums = 1;
#endif
	}

	err = udp_sock_create(net, &ucfg, &sock);
	if (err)
		return ERR_PTR(err);

	tcfg.sk_user_data = mn;
	tcfg.encap_type = 1;
	tcfg.encap_rcv = mrc_udp_encap_rcv;
	setup_udp_tunnel_sock(net, sock, &tcfg);
	/* mrc has no use for CHECKSUM_COMPLETE on what it receives, and a
	 * GSO datagram cut apart for the socket (a run of packets from a
	 * local sender, mrc_xmit_run()) would have every packet's checksum
	 * computed over its bytes: those stay CHECKSUM_PARTIAL (what GRO
	 * merges was verified before, what a local sender made needs none)
	 */
	inet_dec_convert_csum(sock->sk);
	return sock;
}

static void mrc_tunnel_close(struct socket *sock)
{
	if (sock)
		udp_tunnel_sock_release(sock);
}

/* Open both tunnel sockets on @port; IPv6 is optional (disabled at boot). */
static int mrc_tunnels_open(struct net *net, struct mrc_net *mn, u16 port,
			    struct socket **s4, struct socket **s6)
{
	struct socket *sock;

	sock = mrc_tunnel_open(net, mn, AF_INET, port);
	if (IS_ERR(sock))
		return PTR_ERR(sock);
	*s4 = sock;
	*s6 = NULL;

	if (!IS_ENABLED(CONFIG_IPV6))
		return 0;
	sock = mrc_tunnel_open(net, mn, AF_INET6, port);
	if (IS_ERR(sock)) {
		if (PTR_ERR(sock) == -EAFNOSUPPORT)
			return 0;
		mrc_tunnel_close(*s4);
		*s4 = NULL;
		return PTR_ERR(sock);
	}
	*s6 = sock;
	return 0;
}

/**
 * mrc_net_set_port() - move a namespace's tunnel sockets to another port
 * @mn: the namespace's mrc state
 * @net: the namespace
 * @port: the new UDP port, host order, not zero
 * @extack: where to say what went wrong
 *
 * The new sockets are opened before the old ones are closed, so a failure
 * (the port is taken) leaves the namespace as it was.  Process context.
 *
 * Return: 0 or a negative errno.
 */
int mrc_net_set_port(struct mrc_net *mn, struct net *net, u16 port,
		     struct netlink_ext_ack *extack)
{
	struct socket *s4, *s6, *old4, *old6;
	int err;

	mutex_lock(&mn->lock);
	/* the same port again binds it if it could not be bound before */
	if (port == mn->port &&
	    rcu_access_pointer(mn->sock4)) {
		mutex_unlock(&mn->lock);
		return 0;
	}
	err = mrc_tunnels_open(net, mn, port, &s4, &s6);
	if (err) {
		mutex_unlock(&mn->lock);
		NL_SET_ERR_MSG_MOD(extack, "cannot bind the UDP port");
		return err;
	}
	old4 = rcu_dereference_protected(mn->sock4, lockdep_is_held(&mn->lock));
	old6 = rcu_dereference_protected(mn->sock6, lockdep_is_held(&mn->lock));
	rcu_assign_pointer(mn->sock4, s4);
	rcu_assign_pointer(mn->sock6, s6);
	WRITE_ONCE(mn->port, port);
	mutex_unlock(&mn->lock);

	/* transmitters may still hold the old sockets under RCU */
	synchronize_net();
	mrc_tunnel_close(old4);
	mrc_tunnel_close(old6);
	return 0;
}

/**
 * mrc_net_tunnels_want() - open a namespace's tunnel sockets on first use
 * @net: the namespace of a new mrc socket
 *
 * A namespace binds its encapsulation port when its first mrc socket is
 * made (or its port is set, mrc_net_set_port()), not when the module is
 * loaded or the namespace made: namespaces that do not use mrc keep the
 * port free.  A port that is taken leaves the namespace without tunnel
 * sockets (its connections cannot send) until the administrator sets a
 * free one; each new socket tries again.  The sockets stay open until
 * the namespace goes.  Process context.
 */
void mrc_net_tunnels_want(struct net *net)
{
	struct mrc_net *mn = mrc_pernet(net);
	struct socket *s4, *s6;
	int err;

	if (likely(rcu_access_pointer(mn->sock4)))
		return;
	mutex_lock(&mn->lock);
	if (!rcu_access_pointer(mn->sock4)) {
		err = mrc_tunnels_open(net, mn, mn->port, &s4, &s6);
		if (!err) {
			rcu_assign_pointer(mn->sock4, s4);
			rcu_assign_pointer(mn->sock6, s6);
		} else {
			pr_info_ratelimited("mrc: cannot bind UDP port %u in a namespace (error %d); set another port\n",
					    mn->port, err);
		}
	}
	mutex_unlock(&mn->lock);
}

static void mrc_settings_default(struct mrc_settings *s)
{
	s->rto_min_us = MRC_DEFAULT_RTO_MIN_US;
	s->rto_max_us = MRC_DEFAULT_RTO_MAX_US;
	s->conn_timeout_ms = MRC_DEFAULT_CONN_TIMEOUT_MS;
	s->max_msg_size = MRC_DEFAULT_MAX_MSG_SIZE;
	s->ev_count = MRC_DEFAULT_EV_COUNT;
	s->ev_port_min = MRC_DEFAULT_EV_PORT_MIN;
	s->ev_port_max = MRC_DEFAULT_EV_PORT_MAX;
	s->ev_spares = MRC_DEFAULT_EV_SPARES;
	s->ev_policy = MRC_DEFAULT_EV_POLICY;
	s->probe_interval_ms = MRC_DEFAULT_PROBE_INTERVAL_MS;
	s->cc = MRC_DEFAULT_CC;
	s->cc_params.target_delay_us = MRC_DEFAULT_CC_TARGET_DELAY_US;
	s->cc_params.ai = MRC_DEFAULT_CC_AI;
	s->cc_params.md = MRC_DEFAULT_CC_MD;
	s->cc_params.init_cwnd = MRC_DEFAULT_CC_INIT_CWND;
	s->cc_params.max_cwnd = MRC_DEFAULT_CC_MAX_CWND;
	s->ack_coalesce = MRC_DEFAULT_ACK_COALESCE;
	s->ack_delay_us = MRC_DEFAULT_ACK_DELAY_US;
	s->flowlet = MRC_DEFAULT_FLOWLET;
}

static bool mrc_deny_matches(const struct mrc_deny *d,
			     const struct in6_addr *peer)
{
	return d->any_peer || ipv6_addr_equal(&d->peer, peer);
}

/**
 * mrc_net_port_denied() - did the administrator deny a source port?
 * @mn: the namespace's mrc state
 * @peer: the connection's peer (v4-mapped for IPv4)
 * @port: the source port
 *
 * Any context.
 *
 * Return: true if a denied range for @peer (or for every peer) holds it.
 */
bool mrc_net_port_denied(struct mrc_net *mn, const struct in6_addr *peer,
			 u16 port)
{
	bool denied = false;
	int i;

	spin_lock_bh(&mn->deny_lock);
	for (i = 0; i < mn->nr_deny && !denied; i++)
		denied = mrc_deny_matches(&mn->deny[i], peer) &&
			 port >= mn->deny[i].port_min &&
			 port <= mn->deny[i].port_max;
	spin_unlock_bh(&mn->deny_lock);
	return denied;
}

/**
 * mrc_net_deny() - add or remove a denied source port range
 * @mn: the namespace's mrc state
 * @peer: the peer, or NULL for every peer
 * @port_min: first port of the range
 * @port_max: last port of the range
 * @deny: add the range, or remove every part of the list it covers
 *
 * Allowing removes the entries for the same peer (or any-peer entries)
 * that lie inside [@port_min, @port_max].
 *
 * Return: 0, -ENOSPC when the list is full, or -ENOENT when allowing
 * matched no entry.
 */
int mrc_net_deny(struct mrc_net *mn, const struct in6_addr *peer,
		 u16 port_min, u16 port_max, bool deny)
{
	int i, err = 0, removed = 0;

	spin_lock_bh(&mn->deny_lock);
	if (deny) {
		if (mn->nr_deny >= MRC_DENY_MAX) {
			err = -ENOSPC;
		} else {
			struct mrc_deny *d = &mn->deny[mn->nr_deny++];

			memset(d, 0, sizeof(*d));
			d->any_peer = !peer;
			if (peer)
				d->peer = *peer;
			d->port_min = port_min;
			d->port_max = port_max;
		}
	} else {
		for (i = 0; i < mn->nr_deny; ) {
			struct mrc_deny *d = &mn->deny[i];

			if (d->any_peer == !peer &&
			    (!peer || ipv6_addr_equal(&d->peer, peer)) &&
			    d->port_min >= port_min && d->port_max <= port_max) {
				*d = mn->deny[--mn->nr_deny];
				removed++;
				continue;
			}
			i++;
		}
		if (!removed)
			err = -ENOENT;
	}
	spin_unlock_bh(&mn->deny_lock);
	return err;
}

static int __net_init mrc_net_init(struct net *net)
{
	struct mrc_net *mn = mrc_pernet(net);
	struct mrc_settings *settings;
	int err;

	mutex_init(&mn->lock);
	spin_lock_init(&mn->deny_lock);
	/* EV notifications: bursts of 100, 200 a second; no log message */
	ratelimit_state_init(&mn->event_rs, HZ / 2, 100);
	ratelimit_set_flags(&mn->event_rs, RATELIMIT_MSG_ON_RELEASE);
	/* RSTs for packets of no connection: 1000 a second, as ICMP */
	ratelimit_state_init(&mn->rst_rs, HZ, 1000);
	ratelimit_set_flags(&mn->rst_rs, RATELIMIT_MSG_ON_RELEASE);
	mn->port = MRC_DEFAULT_UDP_PORT;
	settings = kmalloc(sizeof(*settings), GFP_KERNEL);
	if (!settings)
		return -ENOMEM;
	mrc_settings_default(settings);
	RCU_INIT_POINTER(mn->settings, settings);
	get_random_bytes(&mn->cid_key, sizeof(mn->cid_key));
	mn->mib = alloc_percpu(struct mrc_mib);
	if (!mn->mib) {
		err = -ENOMEM;
		goto err_settings;
	}
	err = mrc_conn_table_init(mn);
	if (err)
		goto err_mib;
	err = mrc_recent_init(mn);
	if (err)
		goto err_conns;

	/* the tunnel sockets wait for the namespace's first mrc socket */
	RCU_INIT_POINTER(mn->sock4, NULL);
	RCU_INIT_POINTER(mn->sock6, NULL);
	return 0;

err_conns:
	mrc_conn_table_destroy(mn);
err_mib:
	free_percpu(mn->mib);
err_settings:
	kfree(settings);
	return err;
}

static void __net_exit mrc_net_exit_batch(struct list_head *net_list)
{
	struct mrc_net *mn;
	struct net *net;

	list_for_each_entry(net, net_list, exit_list) {
		mn = mrc_pernet(net);
		mrc_tunnel_close(rcu_dereference_protected(mn->sock4, 1));
		mrc_tunnel_close(rcu_dereference_protected(mn->sock6, 1));
		RCU_INIT_POINTER(mn->sock4, NULL);
		RCU_INIT_POINTER(mn->sock6, NULL);
	}
	/* encap_rcv may still be counting on another CPU */
	synchronize_net();
	list_for_each_entry(net, net_list, exit_list) {
		mn = mrc_pernet(net);
		/* every socket of the namespace held a reference on it */
		mrc_conn_table_destroy(mn);
		mrc_recent_flush(mn);
		free_percpu(mn->mib);
		/* no socket, tunnel or netlink request of it is left to read
		 * them; a copy CONFIG_SET replaced is on its own RCU callback
		 */
		kfree(rcu_dereference_protected(mn->settings, 1));
		mutex_destroy(&mn->lock);
	}
}

static struct pernet_operations mrc_net_ops = {
	.init	= mrc_net_init,
	.exit_batch = mrc_net_exit_batch,
	.id	= &mrc_net_id,
	.size	= sizeof(struct mrc_net),
};

/**
 * mrc_pernet_register() - set up mrc in every namespace, present and future
 *
 * Return: 0 or a negative errno; on error no namespace keeps any state.
 */
int mrc_pernet_register(void)
{
	return register_pernet_subsys(&mrc_net_ops);
}

/**
 * mrc_pernet_unregister() - tear mrc down in every namespace
 */
void mrc_pernet_unregister(void)
{
	unregister_pernet_subsys(&mrc_net_ops);
}
