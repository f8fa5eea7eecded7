// SPDX-License-Identifier: GPL-2.0
/* mrc generic netlink family "mrc": per-namespace settings and counters.
 * The contract is Documentation/netlink/specs/mrc.yaml.
 */
#include <linux/cred.h>
#include <linux/uidgid.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/ipv6.h>
#include <net/sock.h>

#include "compat.h"
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

static struct netlink_range_validation mrc_probe_range = {
	.min = 1, .max = 60 * MSEC_PER_SEC,
};

static struct netlink_range_validation mrc_cc_delay_range = {
	.min = 1, .max = USEC_PER_SEC,
};

static struct netlink_range_validation mrc_cc_ai_range = {
	.min = 1, .max = 64,
};

static struct netlink_range_validation mrc_cc_md_range = {
	.min = 1, .max = 1024,
};

static struct netlink_range_validation mrc_cc_init_range = {
	.min = 1, .max = 1024,
};

static struct netlink_range_validation mrc_cc_max_range = {
	.min = 2, .max = 1024,
};

static struct netlink_range_validation mrc_ack_delay_range = {
	.min = 1, .max = MRC_ACK_DELAY_US_LIMIT,
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
	[MRC_A_CONFIG_EV_SPARES]	= NLA_POLICY_MAX(NLA_U16,
							 MRC_EV_SPARES_LIMIT),
	[MRC_A_CONFIG_EV_POLICY]	= NLA_POLICY_MAX(NLA_U8,
							 MRC_EV_POLICY_REPS),
	[MRC_A_CONFIG_PROBE_INTERVAL_MS] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_probe_range),
	[MRC_A_CONFIG_CC]		= NLA_POLICY_MAX(NLA_U8, MRC_CC_RENO),
	[MRC_A_CONFIG_CC_TARGET_DELAY_US] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_cc_delay_range),
	[MRC_A_CONFIG_CC_AI]		=
		NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_cc_ai_range),
	[MRC_A_CONFIG_CC_MD]		=
		NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_cc_md_range),
	[MRC_A_CONFIG_CC_INIT_CWND]	=
		NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_cc_init_range),
	[MRC_A_CONFIG_CC_MAX_CWND]	=
		NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_cc_max_range),
	[MRC_A_CONFIG_ACK_COALESCE]	=
		NLA_POLICY_RANGE(NLA_U8, 1, MRC_ACK_COALESCE_LIMIT),
	[MRC_A_CONFIG_ACK_DELAY_US]	=
		NLA_POLICY_FULL_RANGE(NLA_U32, &mrc_ack_delay_range),
	[MRC_A_CONFIG_FLOWLET]		=
		NLA_POLICY_RANGE(NLA_U8, 1, MRC_FLOWLET_LIMIT),
};

static const struct nla_policy mrc_conn_get_policy[MRC_A_CONN_MAX + 1] = {
	[MRC_A_CONN_LOCAL_CID]		= { .type = NLA_U32 },
};

static const struct nla_policy mrc_path_get_policy[MRC_A_PATH_MAX + 1] = {
	[MRC_A_PATH_CID]		= { .type = NLA_U32 },
};

static const struct nla_policy mrc_path_set_policy[MRC_A_PATH_MAX + 1] = {
	[MRC_A_PATH_CID]		= { .type = NLA_U32 },
	[MRC_A_PATH_PORT]		= NLA_POLICY_MIN(NLA_U16, 1),
	[MRC_A_PATH_STATE]		= NLA_POLICY_MAX(NLA_U8, MRC_EV_DENIED),
	[MRC_A_PATH_PEER]		= NLA_POLICY_RANGE(NLA_BINARY, 4, 16),
	[MRC_A_PATH_PORT_MIN]		= NLA_POLICY_MIN(NLA_U16, 1),
	[MRC_A_PATH_PORT_MAX]		= NLA_POLICY_MIN(NLA_U16, 1),
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

	/* the port and the settings of one moment */
	mutex_lock(&mn->lock);
	port = mn->port;
	s = *mrc_settings(mn);
	mutex_unlock(&mn->lock);

	if (nla_put_u16(msg, MRC_A_CONFIG_PORT, port) ||
	    nla_put_u32(msg, MRC_A_CONFIG_RTO_MIN_US, s.rto_min_us) ||
	    nla_put_u32(msg, MRC_A_CONFIG_RTO_MAX_US, s.rto_max_us) ||
	    nla_put_u32(msg, MRC_A_CONFIG_CONN_TIMEOUT_MS, s.conn_timeout_ms) ||
	    nla_put_u32(msg, MRC_A_CONFIG_MAX_MSG_SIZE, s.max_msg_size) ||
	    nla_put_u16(msg, MRC_A_CONFIG_EV_COUNT, s.ev_count) ||
	    nla_put_u16(msg, MRC_A_CONFIG_EV_PORT_MIN, s.ev_port_min) ||
	    nla_put_u16(msg, MRC_A_CONFIG_EV_PORT_MAX, s.ev_port_max) ||
	    nla_put_u16(msg, MRC_A_CONFIG_EV_SPARES, s.ev_spares) ||
	    nla_put_u8(msg, MRC_A_CONFIG_EV_POLICY, s.ev_policy) ||
	    nla_put_u32(msg, MRC_A_CONFIG_PROBE_INTERVAL_MS,
			s.probe_interval_ms) ||
	    nla_put_u8(msg, MRC_A_CONFIG_CC, s.cc) ||
	    nla_put_u32(msg, MRC_A_CONFIG_CC_TARGET_DELAY_US,
			s.cc_params.target_delay_us) ||
	    nla_put_u32(msg, MRC_A_CONFIG_CC_AI, s.cc_params.ai) ||
	    nla_put_u32(msg, MRC_A_CONFIG_CC_MD, s.cc_params.md) ||
	    nla_put_u32(msg, MRC_A_CONFIG_CC_INIT_CWND, s.cc_params.init_cwnd) ||
	    nla_put_u32(msg, MRC_A_CONFIG_CC_MAX_CWND, s.cc_params.max_cwnd) ||
	    nla_put_u8(msg, MRC_A_CONFIG_ACK_COALESCE, s.ack_coalesce) ||
	    nla_put_u32(msg, MRC_A_CONFIG_ACK_DELAY_US, s.ack_delay_us) ||
	    nla_put_u8(msg, MRC_A_CONFIG_FLOWLET, s.flowlet)) {
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
	if (attrs[MRC_A_CONFIG_EV_SPARES])
		s->ev_spares = nla_get_u16(attrs[MRC_A_CONFIG_EV_SPARES]);
	if (attrs[MRC_A_CONFIG_EV_POLICY])
		s->ev_policy = nla_get_u8(attrs[MRC_A_CONFIG_EV_POLICY]);
	if (attrs[MRC_A_CONFIG_PROBE_INTERVAL_MS])
		s->probe_interval_ms =
			nla_get_u32(attrs[MRC_A_CONFIG_PROBE_INTERVAL_MS]);

	if (attrs[MRC_A_CONFIG_CC])
		s->cc = nla_get_u8(attrs[MRC_A_CONFIG_CC]);
	if (attrs[MRC_A_CONFIG_CC_TARGET_DELAY_US])
		s->cc_params.target_delay_us =
			nla_get_u32(attrs[MRC_A_CONFIG_CC_TARGET_DELAY_US]);
	if (attrs[MRC_A_CONFIG_CC_AI])
		s->cc_params.ai = nla_get_u32(attrs[MRC_A_CONFIG_CC_AI]);
	if (attrs[MRC_A_CONFIG_CC_MD])
		s->cc_params.md = nla_get_u32(attrs[MRC_A_CONFIG_CC_MD]);
	if (attrs[MRC_A_CONFIG_CC_INIT_CWND])
		s->cc_params.init_cwnd =
			nla_get_u32(attrs[MRC_A_CONFIG_CC_INIT_CWND]);
	if (attrs[MRC_A_CONFIG_CC_MAX_CWND])
		s->cc_params.max_cwnd =
			nla_get_u32(attrs[MRC_A_CONFIG_CC_MAX_CWND]);
	if (attrs[MRC_A_CONFIG_ACK_COALESCE])
		s->ack_coalesce = nla_get_u8(attrs[MRC_A_CONFIG_ACK_COALESCE]);
	if (attrs[MRC_A_CONFIG_ACK_DELAY_US])
		s->ack_delay_us = nla_get_u32(attrs[MRC_A_CONFIG_ACK_DELAY_US]);
	if (attrs[MRC_A_CONFIG_FLOWLET])
		s->flowlet = nla_get_u8(attrs[MRC_A_CONFIG_FLOWLET]);

	if (s->cc_params.init_cwnd > s->cc_params.max_cwnd) {
		NL_SET_ERR_MSG_MOD(extack, "cc_init_cwnd is above cc_max_cwnd");
		return -EINVAL;
	}
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

/* Publish the current settings with @attrs applied over them as @new, one
 * copy checked as a whole, and free the copy it replaces; @new is taken
 * either way.  Process context.
 */
static int mrc_nl_settings_publish(struct mrc_net *mn, struct nlattr **attrs,
				   struct mrc_settings *new,
				   struct netlink_ext_ack *extack)
{
	struct mrc_settings *old;
	int err;

	mutex_lock(&mn->lock);
	old = rcu_dereference_protected(mn->settings,
					lockdep_is_held(&mn->lock));
	*new = *old;
	err = mrc_nl_settings_parse(attrs, new, extack);
	if (!err)
		rcu_assign_pointer(mn->settings, new);
	mutex_unlock(&mn->lock);

	if (err) {
		kfree(new);
		return err;
	}
	/* readers may still hold the old copy: softirq or rcu_read_lock() */
	kfree_rcu(old, rcu);
	return 0;
}

static int mrc_nl_config_set(struct sk_buff *skb, struct genl_info *info)
{
	struct net *net = genl_info_net(info);
	struct mrc_net *mn = mrc_pernet(net);
	struct nlattr **attrs = info->attrs;
	struct mrc_settings *new;
	bool any = false;
	int i, err;

	for (i = 1; i <= MRC_A_CONFIG_MAX; i++)
		any |= !!attrs[i];
	if (!any) {
		NL_SET_ERR_MSG_MOD(info->extack, "no setting given");
		return -EINVAL;
	}

	/* allocate and check before the port moves: a refused request
	 * changes nothing
	 */
	new = kmalloc(sizeof(*new), GFP_KERNEL);
	if (!new)
		return -ENOMEM;
	mrc_settings_copy(mn, new);
	err = mrc_nl_settings_parse(attrs, new, info->extack);
	if (err)
		goto err_free;

	if (attrs[MRC_A_CONFIG_PORT]) {
		err = mrc_net_set_port(mn, net,
				       nla_get_u16(attrs[MRC_A_CONFIG_PORT]),
				       info->extack);
		if (err) {
			NL_SET_BAD_ATTR(info->extack, attrs[MRC_A_CONFIG_PORT]);
			goto err_free;
		}
	}

	/* all at once: a reader sees the old settings or the new ones.
	 * Applied again over what another CONFIG_SET may have published
	 * meanwhile, so its changes are kept; only if they clash with
	 * this request is it refused there, after its port took effect.
	 */
	return mrc_nl_settings_publish(mn, attrs, new, info->extack);

err_free:
	kfree(new);
	return err;
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

/* Batch of connections a dump or a change works on at a time. */
#define MRC_NL_BATCH	32

/* A dump's state in cb->ctx.  Who asked is fixed when the dump starts, in
 * the task that sent the request: the later parts of a dump run in
 * whichever task reads the socket, so current's credentials mean nothing
 * then.
 */
struct mrc_nl_dump_ctx {
	u64 pos;		/* conns: next id (mrc_conn_collect()); paths:
				 * next EV slot
				 */
	kuid_t uid;		/* the caller, INVALID_UID if it is unclear */
	bool admin;		/* CAP_NET_ADMIN over the namespace */
};

static_assert(sizeof(struct mrc_nl_dump_ctx) <=
	      sizeof_field(struct netlink_callback, ctx));

static struct mrc_nl_dump_ctx *mrc_nl_dump_ctx(struct netlink_callback *cb)
{
	return (struct mrc_nl_dump_ctx *)cb->ctx;
}

/* Who may see connection ids, in the sender's context (genl's start).
 * CAP_NET_ADMIN is asked of both the task that opened the netlink socket
 * and the one that sent the request (netlink_net_capable()), and so is
 * the uid: the caller is the uid that owns the netlink socket (its
 * opener's fsuid, sock_i_uid()) only if it is also the sender's fsuid.
 * Anyone holding the socket reads the answer, so a socket passed from
 * one user to another shows neither user's ids.
 */
static int mrc_nl_dump_start(struct netlink_callback *cb)
{
	struct mrc_nl_dump_ctx *ctx = mrc_nl_dump_ctx(cb);
	kuid_t opener = sock_i_uid(NETLINK_CB(cb->skb).sk);

	ctx->admin = netlink_net_capable(cb->skb, CAP_NET_ADMIN);
	ctx->uid = uid_eq(opener, current_fsuid()) ? opener : INVALID_UID;
	return 0;
}

/* May the caller of this dump see the ids of @sk?  Its owner is the uid
 * `ss -e` would show (sock_i_uid(): the owner of the socket's inode); a
 * connection not yet accepted, or closed and still finishing, has no
 * socket and counts as root's.
 */
static bool mrc_nl_may_see(const struct mrc_nl_dump_ctx *ctx, struct sock *sk)
{
	return ctx->admin ||
	       (uid_valid(ctx->uid) && uid_eq(sock_i_uid(sk), ctx->uid));
}

static int mrc_nl_put_addr(struct sk_buff *msg, int attr, bool v4,
			   const struct in6_addr *a)
{
	if (v4)
		return nla_put_in_addr(msg, attr, a->s6_addr32[3]);
	return nla_put_in6_addr(msg, attr, a);
}

/* The attributes of one connection, its ids only if @ids; socket locked
 * (or owned by the softirq that holds its spinlock).
 */
static int mrc_nl_put_conn(struct sk_buff *msg, struct sock *sk, bool ids)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_conn_stats *st = &msk->stats;
	u16 n[4] = {};

	if (msk->evset.nr_evs)
		mrc_evset_count(&msk->evset, n);
	if (ids && (nla_put_u32(msg, MRC_A_CONN_LOCAL_CID, msk->local_cid) ||
		    nla_put_u32(msg, MRC_A_CONN_PEER_CID, msk->peer_cid)))
		return -EMSGSIZE;
	if (nla_put_u16(msg, MRC_A_CONN_FAMILY, msk->v4 ? AF_INET : AF_INET6) ||
	    mrc_nl_put_addr(msg, MRC_A_CONN_SADDR, msk->v4, &msk->saddr) ||
	    mrc_nl_put_addr(msg, MRC_A_CONN_DADDR, msk->v4, &msk->peer) ||
	    nla_put_u16(msg, MRC_A_CONN_SPORT, msk->port) ||
	    nla_put_u16(msg, MRC_A_CONN_DPORT, msk->peer_port) ||
	    nla_put_u8(msg, MRC_A_CONN_STATE, sk->sk_state) ||
	    nla_put_u8(msg, MRC_A_CONN_POLICY, msk->ev_policy) ||
	    nla_put_u16(msg, MRC_A_CONN_EVS, msk->evset.nr_pos) ||
	    nla_put_u16(msg, MRC_A_CONN_EV_GOOD, n[MRC_EV_GOOD]) ||
	    nla_put_u16(msg, MRC_A_CONN_EV_SKIP, n[MRC_EV_SKIP]) ||
	    nla_put_u16(msg, MRC_A_CONN_EV_BAD, n[MRC_EV_BAD]) ||
	    nla_put_u16(msg, MRC_A_CONN_EV_DENIED, n[MRC_EV_DENIED]) ||
	    nla_put_u32(msg, MRC_A_CONN_EV_CHANGES, msk->evset.changes) ||
	    nla_put_u32(msg, MRC_A_CONN_SRTT_US, msk->srtt_us) ||
	    nla_put_u32(msg, MRC_A_CONN_RTO_US, msk->rto_us) ||
	    nla_put_u32(msg, MRC_A_CONN_CWND, msk->cc.cwnd) ||
	    nla_put_u8(msg, MRC_A_CONN_CC, msk->cc.algo) ||
	    nla_put_u32(msg, MRC_A_CONN_CC_ALPHA, msk->cc.alpha) ||
	    nla_put_u32(msg, MRC_A_CONN_BASE_RTT_US, msk->cc.base_rtt_us) ||
	    nla_put_u32(msg, MRC_A_CONN_QUEUE_DELAY_US, msk->cc.delay_us) ||
	    nla_put_u32(msg, MRC_A_CONN_IN_FLIGHT, msk->in_flight) ||
	    nla_put_u32(msg, MRC_A_CONN_MR_COUNT, msk->mr_count) ||
	    nla_put_u64_64bit(msg, MRC_A_CONN_MR_BYTES, msk->mr_bytes,
			      MRC_A_CONN_PAD) ||
	    nla_put_u32(msg, MRC_A_CONN_RTX_SLOTS,
			msk->rtx.slot ? mrc_ring_size(&msk->rtx) : 0) ||
	    nla_put_u32(msg, MRC_A_CONN_OFO_SLOTS,
			msk->rcv_ofo.slot ? mrc_ring_size(&msk->rcv_ofo) : 0) ||
	    nla_put_u64_64bit(msg, MRC_A_CONN_BYTES_SENT, st->bytes_sent,
			      MRC_A_CONN_PAD) ||
	    nla_put_u64_64bit(msg, MRC_A_CONN_BYTES_RECEIVED,
			      st->bytes_received, MRC_A_CONN_PAD) ||
	    nla_put_u64_64bit(msg, MRC_A_CONN_MSGS_SENT, st->msgs_sent,
			      MRC_A_CONN_PAD) ||
	    nla_put_u64_64bit(msg, MRC_A_CONN_MSGS_RECEIVED,
			      st->msgs_received, MRC_A_CONN_PAD) ||
	    nla_put_u64_64bit(msg, MRC_A_CONN_PKTS_SENT, st->pkts_sent,
			      MRC_A_CONN_PAD) ||
	    nla_put_u64_64bit(msg, MRC_A_CONN_PKTS_RECEIVED,
			      st->pkts_received, MRC_A_CONN_PAD) ||
	    nla_put_u64_64bit(msg, MRC_A_CONN_RETRANS, st->retrans,
			      MRC_A_CONN_PAD) ||
	    nla_put_u64_64bit(msg, MRC_A_CONN_LOST, st->lost, MRC_A_CONN_PAD) ||
	    nla_put_u64_64bit(msg, MRC_A_CONN_RTO_COUNT, st->rto,
			      MRC_A_CONN_PAD) ||
	    nla_put_u64_64bit(msg, MRC_A_CONN_CE, st->ce, MRC_A_CONN_PAD))
		return -EMSGSIZE;
	return 0;
}

/* One connection, with its ids if @ids; socket locked. */
static int mrc_nl_fill_conn(struct sk_buff *msg, struct sock *sk, bool ids,
			    u32 portid, u32 seq, int flags)
{
	void *hdr;

	hdr = genlmsg_put(msg, portid, seq, &mrc_genl_family, flags,
			  MRC_CMD_CONN_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (mrc_nl_put_conn(msg, sk, ids)) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

/* Does the conn dump show @sk, and with its ids?  Every connection is
 * listed, as ss lists every TCP socket, but its ids only to those who may
 * see them; a dump for one id matches only a connection the caller may
 * see, so that it cannot be used to find out which ids exist.  Locked.
 */
static bool mrc_nl_conn_match(const struct mrc_nl_dump_ctx *ctx,
			      const struct nlattr *only, struct sock *sk,
			      bool *ids)
{
	*ids = mrc_nl_may_see(ctx, sk);
	return !only || (*ids && nla_get_u32(only) == mrc_sk(sk)->local_cid);
}

/* Dump the connections in id order, resuming at id ctx->pos: one that
 * exists throughout the dump is listed once, whatever ends or starts in
 * between the parts (mrc_conn_collect()).
 */
static int mrc_nl_conn_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct mrc_nl_dump_ctx *ctx = mrc_nl_dump_ctx(cb);
	struct mrc_net *mn = mrc_pernet(sock_net(skb->sk));
	struct nlattr *only = info->attrs[MRC_A_CONN_LOCAL_CID];
	struct sock *socks[MRC_NL_BATCH];
	int i, n, err = 0;
	u64 next, done;
	bool ids;
	u32 cid;

	if (only && ctx->pos < nla_get_u32(only))
		ctx->pos = nla_get_u32(only);	/* no lower id is listed */
	while (!err && ctx->pos < MRC_CONN_COLLECT_END) {
		next = ctx->pos;
		done = ctx->pos;	/* below it, all are listed */
		n = mrc_conn_collect(mn, &next, socks,
				     only ? 1 : MRC_NL_BATCH);
		if (only)
			next = MRC_CONN_COLLECT_END;	/* nor any higher */
		for (i = 0; i < n; i++) {
			struct sock *sk = socks[i];

			if (!err) {
				lock_sock(sk);
				cid = mrc_sk(sk)->local_cid; /* 0: it ended */
				if (cid && mrc_nl_conn_match(ctx, only, sk, &ids))
					err = mrc_nl_fill_conn(skb, sk, ids,
							       NETLINK_CB(cb->skb).portid,
							       cb->nlh->nlmsg_seq,
							       NLM_F_MULTI);
				if (cid && !err)
					done = (u64)cid + 1;
				release_sock(sk);
			}
			sock_put(sk);
		}
		/* the skb full: the next part starts after the last listed */
		ctx->pos = err ? done : next;
	}
	return skb->len;
}

/* One EV of a connection; socket locked. */
static int mrc_nl_fill_path(struct sk_buff *msg, struct sock *sk, u16 e,
			    u32 portid, u32 seq, int flags)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_ev *ev = &msk->evset.evs[e];
	void *hdr;

	hdr = genlmsg_put(msg, portid, seq, &mrc_genl_family, flags,
			  MRC_CMD_PATH_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(msg, MRC_A_PATH_CID, msk->local_cid) ||
	    nla_put_u16(msg, MRC_A_PATH_PORT, ev->port) ||
	    nla_put_u8(msg, MRC_A_PATH_STATE, ev->state) ||
	    nla_put_u8(msg, MRC_A_PATH_ACTIVE, ev->serving != MRC_EV_NONE) ||
	    nla_put_u64_64bit(msg, MRC_A_PATH_SENT, ev->sent, MRC_A_PATH_PAD) ||
	    nla_put_u64_64bit(msg, MRC_A_PATH_ACKED, ev->acked,
			      MRC_A_PATH_PAD) ||
	    nla_put_u64_64bit(msg, MRC_A_PATH_LOST, ev->lost, MRC_A_PATH_PAD) ||
	    nla_put_u64_64bit(msg, MRC_A_PATH_CE, ev->ce, MRC_A_PATH_PAD) ||
	    nla_put_u64_64bit(msg, MRC_A_PATH_PROBES, ev->probes,
			      MRC_A_PATH_PAD) ||
	    nla_put_u32(msg, MRC_A_PATH_SRTT_US, ev->srtt_us) ||
	    nla_put_u8(msg, MRC_A_PATH_CE_LEVEL, ev->ce_level) ||
	    nla_put_u64_64bit(msg, MRC_A_PATH_ACKS, ev->acks,
			      MRC_A_PATH_PAD) ||
	    nla_put_u64_64bit(msg, MRC_A_PATH_ACKS_LOST, ev->acks_lost,
			      MRC_A_PATH_PAD)) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

/* The connection a path dump is for, referenced; NULL with an error in
 * @err if the caller may not see it or there is none.  To a caller
 * without CAP_NET_ADMIN both are EPERM, so that asking cannot tell which
 * ids exist.
 */
static struct sock *mrc_nl_path_conn(struct netlink_callback *cb,
				     struct mrc_net *mn, u32 cid, int *err)
{
	const struct mrc_nl_dump_ctx *ctx = mrc_nl_dump_ctx(cb);
	struct sock *sk = mrc_conn_lookup(mn, cid);

	if (sk && !mrc_nl_may_see(ctx, sk)) {
		sock_put(sk);
		sk = NULL;
	}
	if (sk)
		return sk;
	*err = 0;		/* it went away during the dump */
	if (ctx->pos)
		return NULL;
	if (ctx->admin) {
		NL_SET_ERR_MSG_MOD(cb->extack, "no connection with that id");
		*err = -ENOENT;
	} else {
		NL_SET_ERR_MSG_MOD(cb->extack,
				   "no connection of yours has that id (only CAP_NET_ADMIN sees every connection)");
		*err = -EPERM;
	}
	return NULL;
}

/* Dump the EVs of one connection, resuming at slot ctx->pos. */
static int mrc_nl_path_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct mrc_nl_dump_ctx *ctx = mrc_nl_dump_ctx(cb);
	struct mrc_net *mn = mrc_pernet(sock_net(skb->sk));
	struct nlattr *cid = info->attrs[MRC_A_PATH_CID];
	struct sock *sk;
	int err = 0;

	if (!cid) {
		NL_SET_ERR_MSG_MOD(cb->extack, "the connection id (cid) is missing");
		return -EINVAL;
	}
	sk = mrc_nl_path_conn(cb, mn, nla_get_u32(cid), &err);
	if (!sk)
		return err;
	lock_sock(sk);
	while (!err && ctx->pos < mrc_sk(sk)->evset.nr_evs) {
		err = mrc_nl_fill_path(skb, sk, ctx->pos,
				       NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI);
		if (!err)
			ctx->pos++;
	}
	if (!mrc_sk(sk)->evset.nr_evs)
		ctx->pos = 1;	/* nothing to show, and done */
	release_sock(sk);
	sock_put(sk);
	return skb->len;
}

/* Deny or allow the EVs of @sk whose ports are in [@lo, @hi]; locked. */
static void mrc_nl_apply(struct sock *sk, struct mrc_net *mn, u16 lo, u16 hi,
			 bool deny)
{
	struct mrc_evset *set = &mrc_sk(sk)->evset;
	u16 e;

	for (e = 0; e < set->nr_evs; e++) {
		u16 port = set->evs[e].port;

		if (port < lo || port > hi)
			continue;
		if (deny)
			mrc_ev_deny(sk, e);
		else if (set->evs[e].state == MRC_EV_DENIED &&
			 !mrc_net_port_denied(mn, &mrc_sk(sk)->peer, port))
			mrc_ev_revive(sk, e, MRC_MIB_EV_ALLOWED);
	}
}

/* One EV of one connection. */
static int mrc_nl_path_set_one(struct mrc_net *mn, struct genl_info *info,
			       bool deny)
{
	struct nlattr **attrs = info->attrs;
	struct sock *sk;
	u16 port;
	int err = 0;

	if (!attrs[MRC_A_PATH_PORT]) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "a connection id needs the port of one of its EVs");
		return -EINVAL;
	}
	port = nla_get_u16(attrs[MRC_A_PATH_PORT]);
	sk = mrc_conn_lookup(mn, nla_get_u32(attrs[MRC_A_PATH_CID]));
	if (!sk) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[MRC_A_PATH_CID],
				    "no connection with that id");
		return -ENOENT;
	}
	lock_sock(sk);
	if (mrc_evset_find(&mrc_sk(sk)->evset, port) == MRC_EV_NONE) {
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[MRC_A_PATH_PORT],
				    "the connection has no EV with that port");
		err = -ENOENT;
	} else {
		u16 e = mrc_evset_find(&mrc_sk(sk)->evset, port);

		if (deny)
			mrc_ev_deny(sk, e);
		else if (mrc_sk(sk)->evset.evs[e].state == MRC_EV_DENIED)
			mrc_ev_revive(sk, e, MRC_MIB_EV_ALLOWED);
	}
	release_sock(sk);
	sock_put(sk);
	return err;
}

static int mrc_nl_path_set(struct sk_buff *skb, struct genl_info *info)
{
	struct mrc_net *mn = mrc_pernet(genl_info_net(info));
	struct nlattr **attrs = info->attrs;
	struct in6_addr peer, *peerp = NULL;
	u64 next = 0;
	struct sock *socks[MRC_NL_BATCH];
	u16 lo, hi;
	bool deny;
	int i, n, err;

	if (!attrs[MRC_A_PATH_STATE]) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "the state (denied or good) is missing");
		return -EINVAL;
	}
	switch (nla_get_u8(attrs[MRC_A_PATH_STATE])) {
	case MRC_EV_DENIED:
		deny = true;
		break;
	case MRC_EV_GOOD:
		deny = false;
		break;
	default:
		NL_SET_ERR_MSG_ATTR(info->extack, attrs[MRC_A_PATH_STATE],
				    "only denied and good (allowed) can be set");
		return -EINVAL;
	}
	if (attrs[MRC_A_PATH_CID]) {
		if (attrs[MRC_A_PATH_PEER] || attrs[MRC_A_PATH_PORT_MIN] ||
		    attrs[MRC_A_PATH_PORT_MAX]) {
			NL_SET_ERR_MSG_MOD(info->extack,
					   "a connection id goes with one port, not a peer or a range");
			return -EINVAL;
		}
		return mrc_nl_path_set_one(mn, info, deny);
	}

	if (!attrs[MRC_A_PATH_PORT_MIN] || !attrs[MRC_A_PATH_PORT_MAX]) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "give a connection id and port, or a port range");
		return -EINVAL;
	}
	lo = nla_get_u16(attrs[MRC_A_PATH_PORT_MIN]);
	hi = nla_get_u16(attrs[MRC_A_PATH_PORT_MAX]);
	if (lo > hi) {
		NL_SET_ERR_MSG_MOD(info->extack, "port_min is above port_max");
		return -EINVAL;
	}
	if (attrs[MRC_A_PATH_PEER]) {
		struct nlattr *a = attrs[MRC_A_PATH_PEER];

		if (nla_len(a) == sizeof(struct in_addr)) {
			ipv6_addr_set_v4mapped(nla_get_in_addr(a), &peer);
		} else if (nla_len(a) == sizeof(struct in6_addr)) {
			peer = nla_get_in6_addr(a);
		} else {
			NL_SET_ERR_MSG_ATTR(info->extack, a,
					    "the peer is an IPv4 (4 bytes) or IPv6 (16 bytes) address");
			return -EINVAL;
		}
		peerp = &peer;
	}
	err = mrc_net_deny(mn, peerp, lo, hi, deny);
	if (err == -ENOSPC) {
		NL_SET_ERR_MSG_MOD(info->extack, "too many denied ranges");
		return err;
	}
	if (err == -ENOENT) {
		NL_SET_ERR_MSG_MOD(info->extack,
				   "no denied range of that peer inside that range");
		return err;
	}

	/* the connections that exist now */
	while (next < MRC_CONN_COLLECT_END) {
		n = mrc_conn_collect(mn, &next, socks, MRC_NL_BATCH);
		for (i = 0; i < n; i++) {
			struct sock *sk = socks[i];

			lock_sock(sk);
			if (mrc_sk(sk)->evset.nr_evs &&
			    (!peerp || ipv6_addr_equal(peerp, &mrc_sk(sk)->peer)))
				mrc_nl_apply(sk, mn, lo, hi, deny);
			release_sock(sk);
			sock_put(sk);
		}
	}
	return 0;
}

enum mrc_mcgrp {
	MRC_MCGRP_EVENTS,
};

/* The events carry connection ids: only CAP_NET_ADMIN over the namespace
 * may join, where the kernel can say so (compat.h); where it cannot, the
 * events leave the ids out.
 */
static const struct genl_multicast_group mrc_genl_mcgrps[] = {
	[MRC_MCGRP_EVENTS] = {
		.name = MRC_GENL_MCGRP_EVENTS,
		MRC_GENL_MCGRP_ADMIN_ONLY
	},
};

/**
 * mrc_nl_conn_event() - tell the events group about a connection
 * @sk: the connection, locked
 * @what: enum mrc_conn_event
 * @err: the errno of a failure, else 0
 *
 * Any context.
 */
void mrc_nl_conn_event(struct sock *sk, u8 what, int err)
{
	struct net *net = sock_net(sk);
	struct sk_buff *msg;
	void *hdr;

	if (!genl_has_listeners(&mrc_genl_family, net, MRC_MCGRP_EVENTS))
		return;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_ATOMIC);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &mrc_genl_family, 0, MRC_CMD_CONN_EVENT);
	if (!hdr || mrc_nl_put_conn(msg, sk, MRC_GENL_MCGRP_HAS_IDS) ||
	    nla_put_u8(msg, MRC_A_CONN_EVENT, what) ||
	    (err && nla_put_u32(msg, MRC_A_CONN_ERROR, err))) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast_netns(&mrc_genl_family, net, msg, 0,
				MRC_MCGRP_EVENTS, GFP_ATOMIC);
}

/**
 * mrc_nl_path_event() - tell the events group an EV changed state
 * @sk: the connection, locked
 * @evi: the slot of the EV
 * @old: its state before
 * @cause: enum mrc_path_cause
 *
 * Rate-limited per namespace; what the limit holds back is counted.  Any
 * context.
 */
void mrc_nl_path_event(struct sock *sk, u16 evi, u8 old, u8 cause)
{
	const struct mrc_ev *ev = &mrc_sk(sk)->evset.evs[evi];
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct net *net = sock_net(sk);
	struct sk_buff *msg;
	void *hdr;

	if (!genl_has_listeners(&mrc_genl_family, net, MRC_MCGRP_EVENTS))
		return;
	if (!__ratelimit(&mn->event_rs)) {
		MRC_INC_STATS(mn, MRC_MIB_EVENTS_SUPPRESSED);
		return;
	}
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_ATOMIC);
	if (!msg)
		return;
	hdr = genlmsg_put(msg, 0, 0, &mrc_genl_family, 0, MRC_CMD_PATH_EVENT);
	if (!hdr ||
	    (MRC_GENL_MCGRP_HAS_IDS &&
	     nla_put_u32(msg, MRC_A_PATH_CID, mrc_sk(sk)->local_cid)) ||
	    nla_put_u16(msg, MRC_A_PATH_PORT, ev->port) ||
	    nla_put_u8(msg, MRC_A_PATH_STATE, ev->state) ||
	    nla_put_u8(msg, MRC_A_PATH_OLD_STATE, old) ||
	    nla_put_u8(msg, MRC_A_PATH_CAUSE, cause)) {
		nlmsg_free(msg);
		return;
	}
	genlmsg_end(msg, hdr);
	genlmsg_multicast_netns(&mrc_genl_family, net, msg, 0,
				MRC_MCGRP_EVENTS, GFP_ATOMIC);
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
	{
		.cmd	= MRC_CMD_CONN_GET,
		.start	= mrc_nl_dump_start,
		.dumpit	= mrc_nl_conn_dump,
		.policy	= mrc_conn_get_policy,
		.maxattr = MRC_A_CONN_MAX,
	},
	{
		.cmd	= MRC_CMD_PATH_GET,
		.start	= mrc_nl_dump_start,
		.dumpit	= mrc_nl_path_dump,
		.policy	= mrc_path_get_policy,
		.maxattr = MRC_A_PATH_MAX,
	},
	{
		.cmd	= MRC_CMD_PATH_SET,
		.doit	= mrc_nl_path_set,
		.policy	= mrc_path_set_policy,
		.maxattr = MRC_A_PATH_MAX,
		.flags	= GENL_UNS_ADMIN_PERM,
	},
};

static struct genl_family mrc_genl_family __ro_after_init = {
	.name		= MRC_GENL_NAME,
	.version	= MRC_GENL_VERSION,
	.netnsok	= true,
	.module		= THIS_MODULE,
	.ops		= mrc_genl_ops,
	.n_ops		= ARRAY_SIZE(mrc_genl_ops),
	.mcgrps		= mrc_genl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(mrc_genl_mcgrps),
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
