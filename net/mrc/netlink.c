// SPDX-License-Identifier: GPL-2.0
/* mrc generic netlink family "mrc": per-namespace settings and counters.
 * The contract is Documentation/netlink/specs/mrc.yaml.
 */
#include <net/genetlink.h>

#include "protocol.h"

static struct netlink_range_validation mrc_rto_range = {
	.min = 100, .max = 60 * USEC_PER_SEC,
};

static struct netlink_range_validation mrc_timeout_range = {
	.min = 10, .max = 3600 * MSEC_PER_SEC,
};

static struct netlink_range_validation mrc_msg_size_range = {
	.min = 1, .max = MRC_MAX_MSG_SIZE_LIMIT,
};

static const struct nla_policy mrc_config_set_policy[MRC_A_CONFIG_MAX + 1] = {
	[MRC_A_CONFIG_PORT]		= NLA_POLICY_MIN(NLA_U16, 1),
	[MRC_A_CONFIG_RTO_MIN_US]	=
		NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_rto_range),
	[MRC_A_CONFIG_RTO_MAX_US]	=
		NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_rto_range),
	[MRC_A_CONFIG_CONN_TIMEOUT_MS]	=
		NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_timeout_range),
	[MRC_A_CONFIG_MAX_MSG_SIZE]	=
		NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_msg_size_range),
	[MRC_A_CONFIG_EV_COUNT]		= NLA_POLICY_RANGE(NLA_U16, 1,
							   MRC_EV_COUNT_LIMIT),
	[MRC_A_CONFIG_EV_PORT_MIN]	= NLA_POLICY_MIN(NLA_U16, 1),
	[MRC_A_CONFIG_EV_PORT_MAX]	= NLA_POLICY_MIN(NLA_U16, 1),
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
	struct mrc_settings s;
	struct sk_buff *msg;
	void *hdr;
	u16 port;

	msg = mrc_genl_reply_new(info, MRC_CMD_CONFIG_GET, &hdr);
	if (!msg)
		return -ENOMEM;

	mutex_lock(&mn->lock);
	port = mn->port;
	s = mn->settings;
	mutex_unlock(&mn->lock);

	if (nla_put_u16(msg, MRC_A_CONFIG_PORT, port) ||
	    nla_put_u32(msg, MRC_A_CONFIG_RTO_MIN_US, s.rto_min_us) ||
	    nla_put_u32(msg, MRC_A_CONFIG_RTO_MAX_US, s.rto_max_us) ||
	    nla_put_u32(msg, MRC_A_CONFIG_CONN_TIMEOUT_MS, s.conn_timeout_ms) ||
	    nla_put_u32(msg, MRC_A_CONFIG_MAX_MSG_SIZE, s.max_msg_size) ||
	    nla_put_u16(msg, MRC_A_CONFIG_EV_COUNT, s.ev_count) ||
	    nla_put_u16(msg, MRC_A_CONFIG_EV_PORT_MIN, s.ev_port_min) ||
	    nla_put_u16(msg, MRC_A_CONFIG_EV_PORT_MAX, s.ev_port_max)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/* Read the settings in @attrs over @s; say what is wrong if they clash. */
static int mrc_nl_settings_parse(struct nlattr **attrs, struct mrc_settings *s,
				 struct netlink_ext_ack *extack)
{
	if (attrs[MRC_A_CONFIG_RTO_MIN_US])
		s->rto_min_us = nla_get_u32(attrs[MRC_A_CONFIG_RTO_MIN_US]);
	if (attrs[MRC_A_CONFIG_RTO_MAX_US])
		s->rto_max_us = nla_get_u32(attrs[MRC_A_CONFIG_RTO_MAX_US]);
	if (attrs[MRC_A_CONFIG_CONN_TIMEOUT_MS])
		s->conn_timeout_ms =
			nla_get_u32(attrs[MRC_A_CONFIG_CONN_TIMEOUT_MS]);
	if (attrs[MRC_A_CONFIG_MAX_MSG_SIZE])
		s->max_msg_size = nla_get_u32(attrs[MRC_A_CONFIG_MAX_MSG_SIZE]);
	if (attrs[MRC_A_CONFIG_EV_COUNT])
		s->ev_count = nla_get_u16(attrs[MRC_A_CONFIG_EV_COUNT]);
	if (attrs[MRC_A_CONFIG_EV_PORT_MIN])
		s->ev_port_min = nla_get_u16(attrs[MRC_A_CONFIG_EV_PORT_MIN]);
	if (attrs[MRC_A_CONFIG_EV_PORT_MAX])
		s->ev_port_max = nla_get_u16(attrs[MRC_A_CONFIG_EV_PORT_MAX]);

	if (s->rto_min_us > s->rto_max_us) {
		NL_SET_ERR_MSG_MOD(extack, "rto_min_us is above rto_max_us");
		return -EINVAL;
	}
	if (s->ev_port_min > s->ev_port_max) {
		NL_SET_ERR_MSG_MOD(extack, "ev_port_min is above ev_port_max");
		return -EINVAL;
	}
	return 0;
}

static int mrc_nl_config_set(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct mrc_net *mn = mrc_pernet(net);
	struct nlattr **attrs = info->attrs;
	struct mrc_settings s;
	bool any = false;
	int i, err;

	for (i = 1; i <= MRC_A_CONFIG_MAX; i++)
		any |= !!attrs[i];
	if (!any) {
		NL_SET_ERR_MSG_MOD(info->extack, "no setting given");
		return -EINVAL;
	}

	mutex_lock(&mn->lock);
	s = mn->settings;
	err = mrc_nl_settings_parse(attrs, &s, info->extack);
	mutex_unlock(&mn->lock);
	if (err)
		return err;

	if (attrs[MRC_A_CONFIG_PORT]) {
		err = mrc_net_set_port(mn, net,
				       nla_get_u16(attrs[MRC_A_CONFIG_PORT]),
				       info->extack);
		if (err) {
			NL_SET_BAD_ATTR(info->extack, attrs[MRC_A_CONFIG_PORT]);
			return err;
		}
	}

	/* readers use READ_ONCE per field; a new connection may see a mix of
	 * old and new fields only while this runs
	 */
	mutex_lock(&mn->lock);
	WRITE_ONCE(mn->settings.rto_min_us, s.rto_min_us);
	WRITE_ONCE(mn->settings.rto_max_us, s.rto_max_us);
	WRITE_ONCE(mn->settings.conn_timeout_ms, s.conn_timeout_ms);
	WRITE_ONCE(mn->settings.max_msg_size, s.max_msg_size);
	WRITE_ONCE(mn->settings.ev_count, s.ev_count);
	WRITE_ONCE(mn->settings.ev_port_min, s.ev_port_min);
	WRITE_ONCE(mn->settings.ev_port_max, s.ev_port_max);
	mutex_unlock(&mn->lock);
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
		if (nla_put_u64_64bit(msg, MRC_MIB_FIRST + i,
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
