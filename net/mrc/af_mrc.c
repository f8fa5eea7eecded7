// SPDX-License-Identifier: GPL-2.0
/* mrc: multipath reliable message connections over UDP.
 * This file owns module init/exit and the protocol switch entries that
 * make socket(AF_INET{,6}, SOCK_SEQPACKET, IPPROTO_MRC) reach mrc.
 */
#include <linux/module.h>
#include <net/genetlink.h>
#include <net/inet_common.h>
#include <net/ipv6.h>
#include <net/protocol.h>
#include <net/transp_v6.h>

#include "protocol.h"
#include "wire.h"

static struct inet_protosw mrc_protosw = {
	.type		= SOCK_SEQPACKET,
	.protocol	= IPPROTO_MRC,
	.prot		= &mrc_prot,
	.ops		= &mrc_inet_ops,
};

#if IS_ENABLED(CONFIG_IPV6)
static struct inet_protosw mrcv6_protosw = {
	.type		= SOCK_SEQPACKET,
	.protocol	= IPPROTO_MRC,
	.prot		= &mrcv6_prot,
	.ops		= &mrc_inet6_ops,
};

static int mrc_inet6_register(void)
{
	int err;

	err = proto_register(&mrcv6_prot, 1);
	if (err)
		return err;
	err = inet6_register_protosw(&mrcv6_protosw);
	if (err) {
		proto_unregister(&mrcv6_prot);
		return err;
	}
	return 0;
}

static void mrc_inet6_unregister(void)
{
	inet6_unregister_protosw(&mrcv6_protosw);
	proto_unregister(&mrcv6_prot);
}
#else
static int mrc_inet6_register(void)
{
	return 0;
}

static void mrc_inet6_unregister(void)
{
}
#endif

static int __init mrc_init(void)
{
	int err;

	mrc_wire_build_bug();

	err = mrc_mem_init();
	if (err)
		return err;
	mrc_mem_proto_init(&mrc_prot);
#if IS_ENABLED(CONFIG_IPV6)
	mrc_mem_proto_init(&mrcv6_prot);
#endif
	err = proto_register(&mrc_prot, 1);
	if (err)
		goto err_mem;

	err = mrc_pernet_register();
	if (err)
		goto err_proto;

	err = mrc_genl_register();
	if (err)
		goto err_pernet;

	/* Sockets last: once they exist, everything they use is ready. */
	inet_register_protosw(&mrc_protosw);

	err = mrc_inet6_register();
	if (err)
		goto err_protosw;

	return 0;

err_protosw:
	inet_unregister_protosw(&mrc_protosw);
	mrc_genl_unregister();
err_pernet:
	mrc_pernet_unregister();
err_proto:
	proto_unregister(&mrc_prot);
err_mem:
	mrc_mem_exit();
	return err;
}

/* Every socket holds a module reference, so none exists here. */
static void __exit mrc_exit(void)
{
	mrc_inet6_unregister();
	inet_unregister_protosw(&mrc_protosw);
	mrc_genl_unregister();
	mrc_pernet_unregister();
	proto_unregister(&mrc_prot);
	mrc_mem_exit();
}

module_init(mrc_init);
module_exit(mrc_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("mrc: multipath reliable message connections over UDP");
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET, IPPROTO_MRC, SOCK_SEQPACKET);
MODULE_ALIAS_NET_PF_PROTO_TYPE(PF_INET6, IPPROTO_MRC, SOCK_SEQPACKET);
MODULE_ALIAS_GENL_FAMILY(MRC_GENL_NAME);
