// SPDX-License-Identifier: GPL-2.0
/* mrc(8): "mrc monitor": one line per notification of the "events"
 * multicast group (MRC_CMD_CONN_EVENT, MRC_CMD_PATH_EVENT) until a signal.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/mrc.h>

#include "mrc.h"

static const char *const conn_event_words[] = {
	[MRC_CONN_EVENT_UP]	= "up",
	[MRC_CONN_EVENT_CLOSED]	= "closed",
	[MRC_CONN_EVENT_FAILED]	= "failed",
};

static const char *const path_cause_words[] = {
	[MRC_PATH_CAUSE_LOSS]		= "loss",
	[MRC_PATH_CAUSE_RTO]		= "rto",
	[MRC_PATH_CAUSE_CE]		= "ce",
	[MRC_PATH_CAUSE_PROBE]		= "probe",
	[MRC_PATH_CAUSE_DENIED]		= "denied",
	[MRC_PATH_CAUSE_ALLOWED]	= "allowed",
	[MRC_PATH_CAUSE_RECYCLED]	= "recycled",
	[MRC_PATH_CAUSE_ACK]		= "ack",
	[MRC_PATH_CAUSE_DELAY]		= "delay",
};

/* The errors a connection can fail with, by name. */
static const struct {
	unsigned int err;
	const char *name;
} errno_names[] = {
	{ ETIMEDOUT,	"ETIMEDOUT" },
	{ ECONNREFUSED,	"ECONNREFUSED" },
	{ ECONNRESET,	"ECONNRESET" },
	{ ECONNABORTED,	"ECONNABORTED" },
	{ EPROTO,	"EPROTO" },
	{ EPIPE,	"EPIPE" },
	{ EHOSTUNREACH,	"EHOSTUNREACH" },
	{ ENETUNREACH,	"ENETUNREACH" },
	{ ENETDOWN,	"ENETDOWN" },
	{ EHOSTDOWN,	"EHOSTDOWN" },
	{ EMSGSIZE,	"EMSGSIZE" },
	{ ENOMEM,	"ENOMEM" },
	{ ENOBUFS,	"ENOBUFS" },
	{ EINVAL,	"EINVAL" },
	{ EIO,		"EIO" },
	{ EADDRNOTAVAIL, "EADDRNOTAVAIL" },
	{ EADDRINUSE,	"EADDRINUSE" },
	{ EPERM,	"EPERM" },
	{ EACCES,	"EACCES" },
	{ ESHUTDOWN,	"ESHUTDOWN" },
};

/* Which notifications to print. */
struct monitor_ctx {
	bool conn;
	bool path;
};

static void monitor_usage(FILE *f)
{
	fputs("Usage: mrc [-j] monitor [ conn | path | all ]\n"
	      "       mrc monitor help\n"
	      "Prints one line per event (JSON: one object per line) until\n"
	      "interrupted.\n", f);
}

/* The name of an errno (the kernel's number, positive; a negative one
 * is taken as its opposite), or its number for one not in the table.
 */
static const char *errno_name(uint32_t val, char *buf, size_t len)
{
	unsigned int err = val > INT32_MAX ? 0U - val : val;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(errno_names); i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	snprintf(buf, len, "%u", err);
	return buf;
}

static void print_conn_event(const struct nlattr **tb)
{
	char saddr[INET6_ADDRSTRLEN], daddr[INET6_ADDRSTRLEN], ebuf[16];
	int family = mrc_nl_uint(tb[MRC_A_CONN_FAMILY], MNL_TYPE_U16);
	const char *what, *error = NULL;

	what = mrc_word(conn_event_words, ARRAY_SIZE(conn_event_words),
			mrc_nl_uint(tb[MRC_A_CONN_EVENT], MNL_TYPE_U8));
	if (tb[MRC_A_CONN_ERROR] &&
	    mnl_attr_validate(tb[MRC_A_CONN_ERROR], MNL_TYPE_U32) >= 0)
		error = errno_name(mnl_attr_get_u32(tb[MRC_A_CONN_ERROR]),
				   ebuf, sizeof(ebuf));
	mrc_conn_addr(tb[MRC_A_CONN_SADDR], family, saddr, sizeof(saddr));
	mrc_conn_addr(tb[MRC_A_CONN_DADDR], family, daddr, sizeof(daddr));

	if (opts.json) {
		mrc_out_begin();
		mrc_out_str("event", "conn");
		mrc_out_str("what", what);
		mrc_conn_out_ids(tb, family, saddr, daddr);
		if (error)
			mrc_out_str("error", error);
		else
			mrc_out_null("error");
		mrc_out_end();
		return;
	}

	printf("conn %s", what);
	if (tb[MRC_A_CONN_LOCAL_CID])
		printf(" cid 0x%08" PRIx64,
		       mrc_nl_uint(tb[MRC_A_CONN_LOCAL_CID], MNL_TYPE_U32));
	if (family == AF_INET6)
		printf(" [%s]:%" PRIu64 " -> [%s]:%" PRIu64, saddr,
		       mrc_nl_uint(tb[MRC_A_CONN_SPORT], MNL_TYPE_U16), daddr,
		       mrc_nl_uint(tb[MRC_A_CONN_DPORT], MNL_TYPE_U16));
	else
		printf(" %s:%" PRIu64 " -> %s:%" PRIu64, saddr,
		       mrc_nl_uint(tb[MRC_A_CONN_SPORT], MNL_TYPE_U16), daddr,
		       mrc_nl_uint(tb[MRC_A_CONN_DPORT], MNL_TYPE_U16));
	if (error)
		printf(" error %s", error);
	putchar('\n');
}

static void print_path_event(const struct nlattr **tb)
{
	const char *state, *old, *cause;

	state = mrc_word(mrc_ev_state_words, ARRAY_SIZE(mrc_ev_state_words),
			 mrc_nl_uint(tb[MRC_A_PATH_STATE], MNL_TYPE_U8));
	old = mrc_word(mrc_ev_state_words, ARRAY_SIZE(mrc_ev_state_words),
		       mrc_nl_uint(tb[MRC_A_PATH_OLD_STATE], MNL_TYPE_U8));
	cause = mrc_word(path_cause_words, ARRAY_SIZE(path_cause_words),
			 mrc_nl_uint(tb[MRC_A_PATH_CAUSE], MNL_TYPE_U8));

	if (opts.json) {
		mrc_out_begin();
		mrc_out_str("event", "path");
		if (tb[MRC_A_PATH_CID])
			mrc_out_u64("cid", mrc_nl_uint(tb[MRC_A_PATH_CID],
						       MNL_TYPE_U32));
		mrc_out_u64("port", mrc_nl_uint(tb[MRC_A_PATH_PORT],
						MNL_TYPE_U16));
		mrc_out_str("state", state);
		mrc_out_str("old_state", old);
		mrc_out_str("cause", cause);
		mrc_out_end();
		return;
	}
	/* kernels that cannot restrict the group send no ids */
	fputs("path", stdout);
	if (tb[MRC_A_PATH_CID])
		printf(" cid 0x%08" PRIx64,
		       mrc_nl_uint(tb[MRC_A_PATH_CID], MNL_TYPE_U32));
	printf(" port %" PRIu64 " %s -> %s (%s)\n",
	       mrc_nl_uint(tb[MRC_A_PATH_PORT], MNL_TYPE_U16), old, state,
	       cause);
}

static void print_lost(void)
{
	if (opts.json) {
		mrc_out_begin();
		mrc_out_str("event", "lost");
		mrc_out_end();
	} else {
		puts("# events lost");
	}
}

/* One notification; commands the tool does not know are skipped. */
static int monitor_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct genlmsghdr *g = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *conn[MRC_A_CONN_MAX + 1];
	const struct nlattr *path[MRC_A_PATH_MAX + 1];
	struct monitor_ctx *ctx = data;

	switch (g->cmd) {
	case MRC_CMD_CONN_EVENT:
		if (!ctx->conn)
			break;
		if (mrc_nl_attrs(nlh, conn, MRC_A_CONN_MAX) < 0)
			return MNL_CB_ERROR;
		print_conn_event(conn);
		break;
	case MRC_CMD_PATH_EVENT:
		if (!ctx->path)
			break;
		if (mrc_nl_attrs(nlh, path, MRC_A_PATH_MAX) < 0)
			return MNL_CB_ERROR;
		print_path_event(path);
		break;
	default:
		return MNL_CB_OK;
	}
	return fflush(stdout) ? MNL_CB_ERROR : MNL_CB_OK;
}

/* SIGINT and SIGTERM end the monitor: blocked, they are read from a
 * signalfd polled with the socket.
 *
 * Return: the signalfd, or -1.
 */
static int monitor_signals(void)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	if (sigprocmask(SIG_BLOCK, &mask, NULL))
		return -1;
	return signalfd(-1, &mask, SFD_CLOEXEC);
}

static int monitor_run(struct mrc_nl *nl, struct monitor_ctx *ctx)
{
	struct pollfd pfd[2] = {
		{ .fd = mrc_nl_fd(nl), .events = POLLIN },
		{ .fd = monitor_signals(), .events = POLLIN },
	};
	int ret = MRC_EXIT_OK, err;

	if (pfd[1].fd < 0) {
		fprintf(stderr, "mrc: signalfd: %s\n", strerror(errno));
		return MRC_EXIT_SYSTEM;
	}
	while (!(pfd[1].revents & POLLIN)) {
		if (poll(pfd, ARRAY_SIZE(pfd), -1) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, "mrc: poll: %s\n", strerror(errno));
			ret = MRC_EXIT_SYSTEM;
			break;
		}
		if (!(pfd[0].revents & (POLLIN | POLLERR)))
			continue;
		err = mrc_nl_recv(nl, monitor_cb, ctx);
		if (err == -ENOBUFS) {
			print_lost();
			err = fflush(stdout) ? -errno : 0;
		}
		if (err && err != -EAGAIN && err != -EINTR) {
			/* a closed pipe on stdout ends it without a word */
			if (!ferror(stdout))
				fprintf(stderr, "mrc: reading events: %s\n",
					strerror(-err));
			ret = MRC_EXIT_SYSTEM;
			break;
		}
	}
	close(pfd[1].fd);
	return ret;
}

int cmd_monitor(int argc, char **argv)
{
	struct monitor_ctx ctx = { .conn = true, .path = true };
	struct mrc_nl *nl;
	int ret;

	if (argc > 0 && matches(argv[0], "help")) {
		monitor_usage(stdout);
		return MRC_EXIT_OK;
	}
	if (argc > 0) {
		if (matches(argv[0], "conn")) {
			ctx.path = false;
		} else if (matches(argv[0], "path")) {
			ctx.conn = false;
		} else if (!matches(argv[0], "all")) {
			fprintf(stderr, "mrc: unknown argument \"%s\" of \"monitor\"\n",
				argv[0]);
			monitor_usage(stderr);
			return MRC_EXIT_USAGE;
		}
	}
	if (argc > 1) {
		if (matches(argv[1], "help")) {
			monitor_usage(stdout);
			return MRC_EXIT_OK;
		}
		fprintf(stderr, "mrc: \"monitor\" takes one of conn, path or all\n");
		monitor_usage(stderr);
		return MRC_EXIT_USAGE;
	}
	/* JSON Lines: one object per line, whatever -p says */
	opts.pretty = false;

	nl = mrc_nl_open(&ret);
	if (!nl)
		return ret;
	ret = mrc_nl_join_events(nl);
	if (!ret)
		ret = monitor_run(nl, &ctx);
	mrc_nl_close(nl);
	return ret;
}
