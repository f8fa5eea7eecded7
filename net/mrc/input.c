// SPDX-License-Identifier: GPL-2.0
/* mrc receive path: datagrams from the namespace's UDP tunnel socket are
 * validated, counted and handed to their connection, or dropped.
 */
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/udp.h>

#include "protocol.h"
#include "wire.h"

static const enum mrc_mib_field mrc_hdr_drop_mib[] = {
	[MRC_HDR_SHORT]		= MRC_MIB_DROP_SHORT,
	[MRC_HDR_BAD_VERSION]	= MRC_MIB_DROP_VERSION,
	[MRC_HDR_BAD_TYPE]	= MRC_MIB_DROP_TYPE,
};

/**
 * mrc_udp_encap_rcv() - receive one datagram from a tunnel socket
 * @sk: the namespace's UDP tunnel socket
 * @skb: the datagram, skb->data at the UDP header
 *
 * Softirq context, under rcu_read_lock.  Consumes @skb.
 *
 * Return: 0, the datagram is always consumed.
 */
int mrc_udp_encap_rcv(struct sock *sk, struct sk_buff *skb)
{
	enum mrc_hdr_verdict verdict;
	struct mrc_net *mn;
	unsigned int len;

	mn = rcu_dereference_sk_user_data(sk);
	if (unlikely(!mn))	/* the socket is being closed */
		goto drop;
	MRC_INC_STATS(mn, MRC_MIB_IN_PKTS);

	len = skb->len > sizeof(struct udphdr) ?
	      skb->len - sizeof(struct udphdr) : 0;
	if (len >= sizeof(struct mrc_hdr) &&
	    !pskb_may_pull(skb, sizeof(struct udphdr) + sizeof(struct mrc_hdr)))
		len = 0;

	verdict = mrc_hdr_check(skb->data + sizeof(struct udphdr), len);
	if (verdict != MRC_HDR_OK) {
		MRC_INC_STATS(mn, mrc_hdr_drop_mib[verdict]);
		goto drop;
	}

	/* No connection table yet: every valid packet is for an unknown one. */
	MRC_INC_STATS(mn, MRC_MIB_DROP_NO_CONN);
drop:
	kfree_skb(skb);
	return 0;
}
