// SPDX-License-Identifier: GPL-2.0
/* mrc(8): talking to the "mrc" generic netlink family with libmnl, and
 * turning the kernel's errors (with their extack text) into messages.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/mrc.h>

#include "mrc.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif

struct mrc_nl {
	struct mnl_socket *sock;
	uint16_t family;
	bool has_events;	/* the family has the "events" group */
	uint32_t events_group;	/* its id */
	unsigned int seq;
	unsigned int portid;
	char buf[32768];
};

/* One group of CTRL_ATTR_MCAST_GROUPS: keep the id of "events". */
static int family_group_cb(const struct nlattr *nest, void *data)
{
	const struct nlattr *attr, *name = NULL, *id = NULL;
	struct mrc_nl *nl = data;

	mnl_attr_for_each_nested(attr, nest) {
		if (mnl_attr_get_type(attr) == CTRL_ATTR_MCAST_GRP_NAME &&
		    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
			name = attr;
		else if (mnl_attr_get_type(attr) == CTRL_ATTR_MCAST_GRP_ID &&
			 mnl_attr_validate(attr, MNL_TYPE_U32) >= 0)
			id = attr;
	}
	if (name && id &&
	    !strcmp(mnl_attr_get_str(name), MRC_GENL_MCGRP_EVENTS)) {
		nl->events_group = mnl_attr_get_u32(id);
		nl->has_events = true;
	}
	return MNL_CB_OK;
}

static int family_attr_cb(const struct nlattr *attr, void *data)
{
	struct mrc_nl *nl = data;

	switch (mnl_attr_get_type(attr)) {
	case CTRL_ATTR_FAMILY_ID:
		if (mnl_attr_validate(attr, MNL_TYPE_U16) >= 0)
			nl->family = mnl_attr_get_u16(attr);
		break;
	case CTRL_ATTR_MCAST_GROUPS:
		if (mnl_attr_validate(attr, MNL_TYPE_NESTED) >= 0)
			mnl_attr_parse_nested(attr, family_group_cb, nl);
		break;
	}
	return MNL_CB_OK;
}

/* The CTRL_CMD_GETFAMILY reply: the family's id and multicast groups. */
static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), family_attr_cb,
			      data);
}

/* One request in flight: the caller's callback and the kernel's answer. */
struct talk_ctx {
	mnl_cb_t cb;
	void *data;
	int error;		/* negative errno from NLMSG_ERROR or DONE */
	bool interrupted;	/* a dump part had NLM_F_DUMP_INTR */
	char extack[256];	/* the kernel's extack message, if any */
};

static int data_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk_ctx *ctx = data;
	int ret;

	if (nlh->nlmsg_flags & NLM_F_DUMP_INTR)
		ctx->interrupted = true;
	if (!ctx->cb)
		return MNL_CB_OK;
	ret = ctx->cb(nlh, ctx->data);
	if (ret == MNL_CB_ERROR && !ctx->error)
		ctx->error = -EBADMSG;
	return ret;
}

/* The extack message among the TLVs that follow an error at @off. */
static void get_extack(const struct nlmsghdr *nlh, unsigned int off,
		       struct talk_ctx *ctx)
{
	const struct nlattr *attr;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	mnl_attr_for_each(attr, nlh, off) {
		if (mnl_attr_get_type(attr) == NLMSGERR_ATTR_MSG &&
		    mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) >= 0)
			snprintf(ctx->extack, sizeof(ctx->extack), "%s",
				 mnl_attr_get_str(attr));
	}
}

/* Keep the kernel's error and its extack message for the caller. */
static int error_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	struct talk_ctx *ctx = data;
	unsigned int off;

	if (nlh->nlmsg_len < mnl_nlmsg_size(sizeof(*err))) {
		ctx->error = -EBADMSG;
		return MNL_CB_ERROR;
	}
	if (err->error == 0)
		return MNL_CB_STOP;

	ctx->error = err->error;
	off = sizeof(*err);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += mnl_nlmsg_get_payload_len(&err->msg);
	get_extack(nlh, off, ctx);
	return MNL_CB_ERROR;
}

/* The end of a dump: an int, the dump's error (0 if it went well),
 * followed by extack TLVs when it failed part way.
 */
static int done_cb(const struct nlmsghdr *nlh, void *data)
{
	struct talk_ctx *ctx = data;
	int error;

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(error))
		return MNL_CB_STOP;
	memcpy(&error, mnl_nlmsg_get_payload(nlh), sizeof(error));
	if (!error)
		return MNL_CB_STOP;
	ctx->error = error < 0 ? error : -error;
	get_extack(nlh, sizeof(error), ctx);
	return MNL_CB_ERROR;
}

/* Send @nlh and run the replies, every part of a dump up to NLMSG_DONE;
 * 0 or -1 with ctx->error set.
 */
static int talk(struct mrc_nl *nl, struct nlmsghdr *nlh, struct talk_ctx *ctx)
{
	static mnl_cb_t ctl[NLMSG_MIN_TYPE] = {
		[NLMSG_ERROR] = error_cb,
		[NLMSG_DONE] = done_cb,
	};
	unsigned int seq = nlh->nlmsg_seq;
	int ret;

	if (mnl_socket_sendto(nl->sock, nlh, nlh->nlmsg_len) < 0) {
		ctx->error = -errno;
		return -1;
	}
	do {
		ret = mnl_socket_recvfrom(nl->sock, nl->buf, sizeof(nl->buf));
		if (ret <= 0) {
			ctx->error = ret < 0 ? -errno : -EPIPE;
			return -1;
		}
		errno = 0;
		ret = mnl_cb_run2(nl->buf, ret, seq, nl->portid, data_cb, ctx,
				  ctl, NLMSG_MIN_TYPE);
	} while (ret > 0);
	if (ret < 0 && !ctx->error)
		ctx->error = errno ? -errno : -EBADMSG;
	return ret < 0 ? -1 : 0;
}

struct mrc_nl *mrc_nl_open(int *exit_code)
{
	struct mrc_nl *nl;
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;
	struct talk_ctx ctx = { .cb = family_cb };
	int one = 1;

	nl = calloc(1, sizeof(*nl));
	if (!nl) {
		*exit_code = MRC_EXIT_SYSTEM;
		return NULL;
	}
	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock || mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		fprintf(stderr, "mrc: cannot open a netlink socket: %s\n",
			strerror(errno));
		*exit_code = MRC_EXIT_SYSTEM;
		goto err;
	}
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	nl->portid = mnl_socket_get_portid(nl->sock);
	nl->seq = time(NULL);

	nlh = mnl_nlmsg_put_header(nl->buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = ++nl->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, MRC_GENL_NAME);
	ctx.data = nl;
	if (talk(nl, nlh, &ctx) < 0 || !nl->family) {
		if (ctx.error == -ENOENT) {
			fprintf(stderr, "mrc: mrc module not loaded (no netlink family %s)\n",
				MRC_GENL_NAME);
			*exit_code = MRC_EXIT_NOMRC;
		} else {
			fprintf(stderr, "mrc: cannot resolve the netlink family: %s\n",
				strerror(-ctx.error));
			*exit_code = MRC_EXIT_SYSTEM;
		}
		goto err;
	}
	return nl;
err:
	if (nl->sock)
		mnl_socket_close(nl->sock);
	free(nl);
	return NULL;
}

void mrc_nl_close(struct mrc_nl *nl)
{
	mnl_socket_close(nl->sock);
	free(nl);
}

/**
 * mrc_nl_join_events() - subscribe to the family's "events" group
 * @nl: the open family
 *
 * The socket's receive buffer is made larger (as far as the system lets
 * us) so that a burst of notifications fits.
 *
 * Return: MRC_EXIT_OK, or an exit code after printing what went wrong.
 */
int mrc_nl_join_events(struct mrc_nl *nl)
{
	int fd = mnl_socket_get_fd(nl->sock);
	int size = 4 << 20;

	if (!nl->has_events) {
		fprintf(stderr, "mrc: the mrc module has no \"%s\" multicast group (too old?)\n",
			MRC_GENL_MCGRP_EVENTS);
		return MRC_EXIT_KERNEL;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	if (mnl_socket_setsockopt(nl->sock, NETLINK_ADD_MEMBERSHIP,
				  &nl->events_group,
				  sizeof(nl->events_group)) < 0) {
		fprintf(stderr, "mrc: cannot join the \"%s\" multicast group: %s%s\n",
			MRC_GENL_MCGRP_EVENTS, strerror(errno),
			errno == EPERM ? " (it needs CAP_NET_ADMIN)" : "");
		return MRC_EXIT_SYSTEM;
	}
	return MRC_EXIT_OK;
}

/**
 * mrc_nl_fd() - the file descriptor of the socket, to poll
 * @nl: the open family
 *
 * Return: the descriptor.
 */
int mrc_nl_fd(struct mrc_nl *nl)
{
	return mnl_socket_get_fd(nl->sock);
}

/* Notifications of other families (none are expected) are skipped. */
struct recv_ctx {
	struct mrc_nl *nl;
	mnl_cb_t cb;
	void *data;
};

static int recv_cb(const struct nlmsghdr *nlh, void *data)
{
	struct recv_ctx *ctx = data;

	if (nlh->nlmsg_type != ctx->nl->family ||
	    mnl_nlmsg_get_payload_len(nlh) < sizeof(struct genlmsghdr))
		return MNL_CB_OK;
	return ctx->cb(nlh, ctx->data);
}

/**
 * mrc_nl_recv() - receive what is queued on the socket: one datagram
 * @nl: the open family, joined to a group
 * @cb: called for each message of the family
 * @data: passed to @cb
 *
 * Return: 0, or a negative errno: -ENOBUFS when the kernel dropped
 * messages because the receive buffer was full (the socket goes on),
 * -EAGAIN or -EINTR if nothing was read, -EBADMSG if a message did not
 * parse.
 */
int mrc_nl_recv(struct mrc_nl *nl, mnl_cb_t cb, void *data)
{
	struct recv_ctx ctx = { nl, cb, data };
	ssize_t len;

	len = recv(mnl_socket_get_fd(nl->sock), nl->buf, sizeof(nl->buf),
		   MSG_DONTWAIT);
	if (len < 0)
		return -errno;
	if (len == 0)
		return -EPIPE;
	errno = 0;
	if (mnl_cb_run(nl->buf, len, 0, 0, recv_cb, &ctx) < 0)
		return errno ? -errno : -EBADMSG;
	return 0;
}

/**
 * mrc_nl_msg() - start a request of the mrc family in the socket's buffer
 * @nl: the open family
 * @cmd: MRC_CMD_*
 * @flags: NLM_F_DUMP for a dump, or 0
 *
 * A "do" request asks for an ACK; a dump ends with NLMSG_DONE instead.
 *
 * Return: the message, to add attributes to.
 */
struct nlmsghdr *mrc_nl_msg(struct mrc_nl *nl, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(nl->buf);
	struct genlmsghdr *g;

	nlh->nlmsg_type = nl->family;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	if ((flags & NLM_F_DUMP) != NLM_F_DUMP)
		nlh->nlmsg_flags |= NLM_F_ACK;
	nlh->nlmsg_seq = ++nl->seq;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = MRC_GENL_VERSION;
	return nlh;
}

/**
 * mrc_nl_talk_quiet() - send a request, feed each reply to @cb
 * @nl: the open family
 * @nlh: the request, from mrc_nl_msg()
 * @cb: called for each reply message (each part of a dump), may be NULL
 * @data: passed to @cb
 * @quiet_errnos: the errnos the caller expects and handles, ending with
 *	0; may be NULL
 *
 * Return: MRC_EXIT_OK; -1 if the kernel answered one of @quiet_errnos
 * (nothing printed); or MRC_EXIT_KERNEL after printing the kernel's error
 * and its extack message.
 */
int mrc_nl_talk_quiet(struct mrc_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		      void *data, const int *quiet_errnos)
{
	struct talk_ctx ctx = { .cb = cb, .data = data };
	int ret = talk(nl, nlh, &ctx);
	const int *q;

	if (ctx.interrupted)
		fprintf(stderr, "mrc: the dump was interrupted and may be inconsistent\n");
	if (ret == 0)
		return MRC_EXIT_OK;
	for (q = quiet_errnos; q && *q; q++)
		if (ctx.error == -*q)
			return -1;
	if (ctx.extack[0])
		fprintf(stderr, "mrc: %s: %s\n", strerror(-ctx.error),
			ctx.extack);
	else
		fprintf(stderr, "mrc: %s\n", strerror(-ctx.error));
	return MRC_EXIT_KERNEL;
}

/**
 * mrc_nl_talk() - send a request, feed each reply to @cb
 * @nl: the open family
 * @nlh: the request, from mrc_nl_msg()
 * @cb: called for each reply message (each part of a dump), may be NULL
 * @data: passed to @cb
 *
 * Return: MRC_EXIT_OK, or MRC_EXIT_KERNEL after printing the kernel's
 * error and its extack message.
 */
int mrc_nl_talk(struct mrc_nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb,
		void *data)
{
	return mrc_nl_talk_quiet(nl, nlh, cb, data, NULL);
}

/**
 * mrc_nl_uint() - the value of an unsigned integer attribute
 * @attr: the attribute, may be NULL
 * @type: MNL_TYPE_U8, _U16, _U32 or _U64
 *
 * Return: its value, or 0 if it is absent or not of @type.
 */
uint64_t mrc_nl_uint(const struct nlattr *attr, enum mnl_attr_data_type type)
{
	if (!attr || mnl_attr_validate(attr, type) < 0)
		return 0;
	switch (type) {
	case MNL_TYPE_U8:
		return mnl_attr_get_u8(attr);
	case MNL_TYPE_U16:
		return mnl_attr_get_u16(attr);
	case MNL_TYPE_U32:
		return mnl_attr_get_u32(attr);
	case MNL_TYPE_U64:
		return mnl_attr_get_u64(attr);
	default:
		return 0;
	}
}

/* Collect the top-level attributes of a genl reply into @tb. */
struct attrs_ctx {
	const struct nlattr **tb;
	unsigned int max;
};

static int attrs_cb(const struct nlattr *attr, void *data)
{
	struct attrs_ctx *ctx = data;
	unsigned int type = mnl_attr_get_type(attr);

	if (type <= ctx->max)
		ctx->tb[type] = attr;
	return MNL_CB_OK;
}

int mrc_nl_attrs(const struct nlmsghdr *nlh, const struct nlattr **tb,
		 unsigned int max)
{
	struct attrs_ctx ctx = { tb, max };

	memset(tb, 0, sizeof(*tb) * (max + 1));
	return mnl_attr_parse(nlh, sizeof(struct genlmsghdr), attrs_cb, &ctx);
}
