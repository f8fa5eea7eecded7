// SPDX-License-Identifier: GPL-2.0
/* mrc socket calls: the struct proto of IPv4 and IPv6 sockets, their
 * creation and release.
 */
#include <net/sock.h>

#include "compat.h"
#include "protocol.h"

static int mrc_sk_init(struct sock *sk)
{
	sk->sk_state = TCP_CLOSE;
	return 0;
}

/* Process context, from inet_release()/inet6_release(). */
static void mrc_close(struct sock *sk, long timeout)
{
	sk_common_release(sk);
}

/* Sockets are not in any lookup table yet, so there is nothing to unhash. */
static void mrc_unhash(struct sock *sk)
{
}

struct proto mrc_prot = {
	.name		= "MRC",
	.owner		= THIS_MODULE,
	.init		= mrc_sk_init,
	.close		= mrc_close,
	.unhash		= mrc_unhash,
	.obj_size	= sizeof(struct mrc_sock),
};

struct proto mrcv6_prot = {
	.name		= "MRCv6",
	.owner		= THIS_MODULE,
	.init		= mrc_sk_init,
	.close		= mrc_close,
	.unhash		= mrc_unhash,
	.obj_size	= sizeof(struct mrc6_sock),
	MRC_PROTO_IPV6_PINFO_OFFSET(struct mrc6_sock, inet6)
};
