/* SPDX-License-Identifier: GPL-2.0 */
/* mrc internal types shared between the files of the module: the socket,
 * the per-namespace state and the entry points each file offers the others.
 */
#ifndef _NET_MRC_PROTOCOL_H
#define _NET_MRC_PROTOCOL_H

#include <linux/mutex.h>
#include <linux/net.h>
#include <linux/ipv6.h>
#include <net/inet_sock.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <uapi/linux/mrc.h>

#include "mib.h"

/**
 * struct mrc_sock - an mrc socket
 * @inet: inet socket, must be first
 */
struct mrc_sock {
	struct inet_sock	inet;
};

/* IPv6 sockets: ipv6_pinfo must be the last member (inet6_sk_generic). */
struct mrc6_sock {
	struct mrc_sock		msk;
	struct ipv6_pinfo	inet6;
};

static inline struct mrc_sock *mrc_sk(const struct sock *sk)
{
	return (struct mrc_sock *)sk;
}

/**
 * struct mrc_net - mrc state of one network namespace
 * @lock: serialises changes of the settings and of the tunnel sockets;
 *        process context only
 * @sock4: UDP tunnel socket for IPv4, bound to @port; under @lock
 * @sock6: UDP tunnel socket for IPv6 (v6only), bound to @port; NULL when
 *         the kernel has no IPv6; under @lock
 * @port: UDP encapsulation port, host order; under @lock
 * @mib: counters of this namespace
 */
struct mrc_net {
	struct mutex		lock;	/* settings, sockets */
	struct socket		*sock4;
	struct socket		*sock6;
	u16			port;
	struct mrc_mib __percpu	*mib;
};

extern unsigned int mrc_net_id;

static inline struct mrc_net *mrc_pernet(const struct net *net)
{
	return net_generic(net, mrc_net_id);
}

/* af_mrc.c */
extern struct proto mrc_prot;
extern struct proto mrcv6_prot;

/* netns.c */
int mrc_pernet_register(void);
void mrc_pernet_unregister(void);
int mrc_net_set_port(struct mrc_net *mn, struct net *net, u16 port,
		     struct netlink_ext_ack *extack);

/* input.c */
int mrc_udp_encap_rcv(struct sock *sk, struct sk_buff *skb);

/* netlink.c */
int mrc_genl_register(void);
void mrc_genl_unregister(void);

#endif /* _NET_MRC_PROTOCOL_H */
