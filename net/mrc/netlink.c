// SPDX-License-Identifier: GPL-2.0
/* mrc generic netlink family "mrc": per-namespace settings and counters.
 * The contract is Documentation/netlink/specs/mrc.yaml.
 */
#include <net/genetlink.h>

#include "protocol.h"

static const struct nla_policy mrc_config_set_policy[MRC_A_CONFIG_MAX + 1] = {
	[MRC_A_CONFIG_PORT]	= NLA_POLICY_MIN(NLA_U16, 1),
};

static struct genl_family mrc_genl_family;

/* Start a reply to @info's request; NULL when memory is short. */
static struct sk_buff *mrc_genl_reply_new(struct genl_info *info, u8 cmd,
					  void **hdr)
{
	struct sk_buff *msg;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return NULL;
	*hdr = genlmsg_put_reply(msg, info, &mrc_genl_family, 0, cmd);
	if (!*hdr) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static int mrc_nl_config_get(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_net *mn = mrc_pernet(genl_info_net(info));
	struct sk_buff *msg;
	void *hdr;
	u16 port;

	msg = mrc_genl_reply_new(info, MRC_CMD_CONFIG_GET, &hdr);
	if (!msg)
		return -ENOMEM;

	mutex_lock(&mn->lock);
	port = mn->port;
	mutex_unlock(&mn->lock);

	if (nla_put_u16(msg, MRC_A_CONFIG_PORT, port)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static int mrc_nl_config_set(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct mrc_net *mn = mrc_pernet(net);
	struct nlattr **attrs = info->attrs;
	bool any = false;
	int err;

	if (attrs[MRC_A_CONFIG_PORT]) {
		err = mrc_net_set_port(mn, net,
				       nla_get_u16(attrs[MRC_A_CONFIG_PORT]),
				       info->extack);
		if (err) {
			NL_SET_BAD_ATTR(info->extack, attrs[MRC_A_CONFIG_PORT]);
			return err;
		}
		any = true;
	}

	if (!any) {
		NL_SET_ERR_MSG_MOD(info->extack, "no setting given");
		return -EINVAL;
	}
	return 0;
}

static int mrc_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_net *mn = mrc_pernet(genl_info_net(info));
	struct sk_buff *msg;
	void *hdr;
	int i;

	msg = mrc_genl_reply_new(info, MRC_CMD_STATS_GET, &hdr);
	if (!msg)
		return -ENOMEM;

	for (i = 0; i < __MRC_MIB_MAX; i++) {
		if (nla_put_u64_64bit(msg, mrc_mib_attr[i],
				      mrc_mib_read(mn, i), MRC_A_STATS_PAD)) {
			nlmsg_free(msg);
			return -EMSGSIZE;
		}
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

static const struct genl_ops mrc_genl_ops[] = {
	{
		.cmd	= MRC_CMD_CONFIG_GET,
		.doit	= mrc_nl_config_get,
	},
	{
		.cmd	= MRC_CMD_CONFIG_SET,
		.doit	= mrc_nl_config_set,
		.policy	= mrc_config_set_policy,
		.maxattr = MRC_A_CONFIG_MAX,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
	{
		.cmd	= MRC_CMD_STATS_GET,
		.doit	= mrc_nl_stats_get,
	},
};

static struct genl_family mrc_genl_family __ro_after_init = {
	.name		= MRC_GENL_NAME,
	.version	= MRC_GENL_VERSION,
	.netnsok	= true,
	.module		= THIS_MODULE,
	.ops		= mrc_genl_ops,
	.n_ops		= ARRAY_SIZE(mrc_genl_ops),
	.resv_start_op	= 0,
};

/**
 * mrc_genl_register() - register the "mrc" generic netlink family
 *
 * Return: 0 or a negative errno.
 */
int mrc_genl_register(void)
{
	return genl_register_family(&mrc_genl_family);
}

/**
 * mrc_genl_unregister() - unregister the "mrc" generic netlink family
 */
void mrc_genl_unregister(void)
{
	genl_unregister_family(&mrc_genl_family);
}
