// SPDX-License-Identifier: GPL-2.0
/* mrc(8): "mrc conn": the connections of this namespace, as the
 * MRC_CMD_CONN_GET dump reports them (one message per connection).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/mrc.h>

#include "mrc.h"

/* Socket states, as numbered in include/net/tcp_states.h. */
#define MRC_TCP_LISTEN	10

static const char *const tcp_state_words[] = {
	[1]	= "established",
	[2]	= "syn_sent",
	[3]	= "syn_recv",
	[4]	= "fin_wait1",
	[5]	= "fin_wait2",
	[6]	= "time_wait",
	[7]	= "close",
	[8]	= "close_wait",
	[9]	= "last_ack",
	[10]	= "listen",
	[11]	= "closing",
	[12]	= "new_syn_recv",
};

/* The fields after the addresses, state and policy, in output order.
 * Plain output prints @label (or @key) and @unit after the value; the
 * counters (@stats) only with -s, on a line of their own.  The congestion
 * control algorithm is shown by its name (a string in JSON).  A field the
 * kernel did not send (an older kernel) is left out.
 */
static const struct conn_field {
	const char *key;
	const char *label;
	const char *unit;
	uint16_t attr;
	enum mnl_attr_data_type type;
	bool stats;
} conn_fields[] = {
	{ "evs", NULL, "", MRC_A_CONN_EVS, MNL_TYPE_U16, false },
	{ "ev_good", "good", "", MRC_A_CONN_EV_GOOD, MNL_TYPE_U16, false },
	{ "ev_skip", "skip", "", MRC_A_CONN_EV_SKIP, MNL_TYPE_U16, false },
	{ "ev_bad", "bad", "", MRC_A_CONN_EV_BAD, MNL_TYPE_U16, false },
	{ "ev_denied", "denied", "", MRC_A_CONN_EV_DENIED, MNL_TYPE_U16,
	  false },
	{ "ev_changes", "changes", "", MRC_A_CONN_EV_CHANGES, MNL_TYPE_U32,
	  false },
	{ "srtt_us", "srtt", "us", MRC_A_CONN_SRTT_US, MNL_TYPE_U32, false },
	{ "rto_us", "rto", "us", MRC_A_CONN_RTO_US, MNL_TYPE_U32, false },
	{ "cwnd", NULL, "", MRC_A_CONN_CWND, MNL_TYPE_U32, false },
	{ "in_flight", NULL, "", MRC_A_CONN_IN_FLIGHT, MNL_TYPE_U32, false },
	{ "cc", NULL, "", MRC_A_CONN_CC, MNL_TYPE_U8, false },
	{ "cc_alpha", "alpha", "", MRC_A_CONN_CC_ALPHA, MNL_TYPE_U32, false },
	{ "base_rtt_us", "base_rtt", "us", MRC_A_CONN_BASE_RTT_US,
	  MNL_TYPE_U32, false },
	{ "queue_delay_us", "qdelay", "us", MRC_A_CONN_QUEUE_DELAY_US,
	  MNL_TYPE_U32, false },
	{ "mrs", NULL, "", MRC_A_CONN_MR_COUNT, MNL_TYPE_U32, false },
	{ "mr_bytes", NULL, "", MRC_A_CONN_MR_BYTES, MNL_TYPE_U64, false },
	{ "rtx_slots", NULL, "", MRC_A_CONN_RTX_SLOTS, MNL_TYPE_U32, false },
	{ "ofo_slots", NULL, "", MRC_A_CONN_OFO_SLOTS, MNL_TYPE_U32, false },
	{ "bytes_sent", NULL, "", MRC_A_CONN_BYTES_SENT, MNL_TYPE_U64, true },
	{ "bytes_received", NULL, "", MRC_A_CONN_BYTES_RECEIVED, MNL_TYPE_U64,
	  true },
	{ "msgs_sent", NULL, "", MRC_A_CONN_MSGS_SENT, MNL_TYPE_U64, true },
	{ "msgs_received", NULL, "", MRC_A_CONN_MSGS_RECEIVED, MNL_TYPE_U64,
	  true },
	{ "pkts_sent", NULL, "", MRC_A_CONN_PKTS_SENT, MNL_TYPE_U64, true },
	{ "pkts_received", NULL, "", MRC_A_CONN_PKTS_RECEIVED, MNL_TYPE_U64,
	  true },
	{ "retrans", NULL, "", MRC_A_CONN_RETRANS, MNL_TYPE_U64, true },
	{ "lost", NULL, "", MRC_A_CONN_LOST, MNL_TYPE_U64, true },
	{ "rto_count", NULL, "", MRC_A_CONN_RTO_COUNT, MNL_TYPE_U64, true },
	{ "ce", NULL, "", MRC_A_CONN_CE, MNL_TYPE_U64, true },
};

/* What one dump is for: print (maybe one cid only: the kernel filters,
 * and so do we, for kernels that ignore the filter) or collect the ids.
 */
struct conn_ctx {
	bool filter;
	uint32_t cid;
	bool collect;
	uint32_t *cids;
	unsigned int n, cap;
};

static void conn_usage(FILE *f)
{
	fputs("Usage: mrc [-j] [-p] [-s] conn [ show [ cid CID ] ]\n"
	      "       mrc conn help\n"
	      "CID := connection id of this host, decimal or 0x hexadecimal\n",
	      f);
}

/**
 * mrc_tcp_state_name() - the name of a socket state
 * @state: TCP_ESTABLISHED, TCP_LISTEN, ...
 *
 * Return: its name, or "unknown".
 */
const char *mrc_tcp_state_name(unsigned int state)
{
	return mrc_word(tcp_state_words, ARRAY_SIZE(tcp_state_words), state);
}

/**
 * mrc_conn_addr() - the text form of an address attribute
 * @a: MRC_A_CONN_SADDR or _DADDR, may be NULL
 * @family: AF_INET or AF_INET6, from MRC_A_CONN_FAMILY
 * @buf: set to the address
 * @len: size of @buf, INET6_ADDRSTRLEN
 *
 * The unspecified address of @family if the attribute is absent or of the
 * wrong size.
 */
void mrc_conn_addr(const struct nlattr *a, int family, char *buf, size_t len)
{
	unsigned char raw[16] = { 0 };
	size_t size = family == AF_INET6 ? 16 : 4;

	if (a && mnl_attr_get_payload_len(a) == size)
		memcpy(raw, mnl_attr_get_payload(a), size);
	if (!inet_ntop(family == AF_INET6 ? AF_INET6 : AF_INET, raw, buf, len))
		snprintf(buf, len, "?");
}

/* The name of a field's value, or NULL for a number. */
static const char *conn_field_word(const struct conn_field *f,
				   const struct nlattr **tb)
{
	if (f->attr != MRC_A_CONN_CC)
		return NULL;
	return mrc_word(mrc_cc_algo_words, ARRAY_SIZE(mrc_cc_algo_words),
			mrc_nl_uint(tb[f->attr], f->type));
}

/* The JSON members that name a connection: ids, addresses, ports, state
 * (shared with the conn events of mrc monitor).  The kernel leaves the
 * ids out for a caller who is neither the connection's owner nor
 * CAP_NET_ADMIN; so do we.
 */
void mrc_conn_out_ids(const struct nlattr **tb, int family,
		      const char *saddr, const char *daddr)
{
	if (tb[MRC_A_CONN_LOCAL_CID])
		mrc_out_u64("local_cid",
			    mrc_nl_uint(tb[MRC_A_CONN_LOCAL_CID],
					MNL_TYPE_U32));
	if (tb[MRC_A_CONN_PEER_CID])
		mrc_out_u64("peer_cid",
			    mrc_nl_uint(tb[MRC_A_CONN_PEER_CID], MNL_TYPE_U32));
	mrc_out_str("family", family == AF_INET6 ? "inet6" : "inet");
	mrc_out_str("saddr", saddr);
	mrc_out_str("daddr", daddr);
	mrc_out_u64("sport", mrc_nl_uint(tb[MRC_A_CONN_SPORT], MNL_TYPE_U16));
	mrc_out_u64("dport", mrc_nl_uint(tb[MRC_A_CONN_DPORT], MNL_TYPE_U16));
	mrc_out_str("state", mrc_tcp_state_name(mrc_nl_uint(tb[MRC_A_CONN_STATE],
							    MNL_TYPE_U8)));
}

static void conn_print_json(const struct nlattr **tb, int family,
			    const char *saddr, const char *daddr)
{
	const struct conn_field *f;
	const char *word;
	unsigned int i;

	mrc_out_begin();
	mrc_conn_out_ids(tb, family, saddr, daddr);
	mrc_out_str("policy", mrc_word(mrc_ev_policy_words,
				       ARRAY_SIZE(mrc_ev_policy_words),
				       mrc_nl_uint(tb[MRC_A_CONN_POLICY],
						   MNL_TYPE_U8)));
	for (i = 0; i < ARRAY_SIZE(conn_fields); i++) {
		f = &conn_fields[i];
		if (!tb[f->attr])
			continue;
		word = conn_field_word(f, tb);
		if (word)
			mrc_out_str(f->key, word);
		else
			mrc_out_u64(f->key, mrc_nl_uint(tb[f->attr], f->type));
	}
	mrc_out_end();
}

static void conn_print_plain(const struct nlattr **tb, int family,
			     const char *saddr, const char *daddr)
{
	const char *open = family == AF_INET6 ? "[" : "";
	const char *close = family == AF_INET6 ? "]" : "";
	const struct conn_field *f;
	bool stats_line = false;
	const char *word;
	unsigned int i;

	/* the ids only if the kernel showed them to us */
	if (tb[MRC_A_CONN_LOCAL_CID])
		printf("cid 0x%08" PRIx64 " ",
		       mrc_nl_uint(tb[MRC_A_CONN_LOCAL_CID], MNL_TYPE_U32));
	if (tb[MRC_A_CONN_PEER_CID])
		printf("peer_cid 0x%08" PRIx64 " ",
		       mrc_nl_uint(tb[MRC_A_CONN_PEER_CID], MNL_TYPE_U32));
	printf("%s%s%s:%" PRIu64 " -> %s%s%s:%" PRIu64 " state %s policy %s",
	       open, saddr, close,
	       mrc_nl_uint(tb[MRC_A_CONN_SPORT], MNL_TYPE_U16),
	       open, daddr, close,
	       mrc_nl_uint(tb[MRC_A_CONN_DPORT], MNL_TYPE_U16),
	       mrc_tcp_state_name(mrc_nl_uint(tb[MRC_A_CONN_STATE],
					      MNL_TYPE_U8)),
	       mrc_word(mrc_ev_policy_words, ARRAY_SIZE(mrc_ev_policy_words),
			mrc_nl_uint(tb[MRC_A_CONN_POLICY], MNL_TYPE_U8)));
	for (i = 0; i < ARRAY_SIZE(conn_fields); i++) {
		f = &conn_fields[i];
		if ((f->stats && !opts.stats) || !tb[f->attr])
			continue;
		if (f->stats && !stats_line) {
			fputs("\n   ", stdout);
			stats_line = true;
		}
		word = conn_field_word(f, tb);
		if (word)
			printf(" %s %s%s", f->label ? f->label : f->key, word,
			       f->unit);
		else
			printf(" %s %" PRIu64 "%s",
			       f->label ? f->label : f->key,
			       mrc_nl_uint(tb[f->attr], f->type), f->unit);
	}
	putchar('\n');
}

static int conn_collect(struct conn_ctx *ctx, uint32_t cid)
{
	uint32_t *cids;

	if (ctx->n == ctx->cap) {
		ctx->cap = ctx->cap ? 2 * ctx->cap : 64;
		cids = realloc(ctx->cids, ctx->cap * sizeof(*cids));
		if (!cids)
			return MNL_CB_ERROR;
		ctx->cids = cids;
	}
	ctx->cids[ctx->n++] = cid;
	return MNL_CB_OK;
}

static int conn_show_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[MRC_A_CONN_MAX + 1];
	char saddr[INET6_ADDRSTRLEN], daddr[INET6_ADDRSTRLEN];
	struct conn_ctx *ctx = data;
	uint32_t cid;
	int family;

	if (mrc_nl_attrs(nlh, tb, MRC_A_CONN_MAX) < 0)
		return MNL_CB_ERROR;
	/* a connection shown without its id matches no filter and has no
	 * EVs to ask for
	 */
	cid = mrc_nl_uint(tb[MRC_A_CONN_LOCAL_CID], MNL_TYPE_U32);
	if (ctx->filter && (!tb[MRC_A_CONN_LOCAL_CID] || cid != ctx->cid))
		return MNL_CB_OK;
	if (ctx->collect) {
		if (!tb[MRC_A_CONN_LOCAL_CID] ||
		    mrc_nl_uint(tb[MRC_A_CONN_STATE], MNL_TYPE_U8) ==
		    MRC_TCP_LISTEN)
			return MNL_CB_OK;
		return conn_collect(ctx, cid);
	}

	family = mrc_nl_uint(tb[MRC_A_CONN_FAMILY], MNL_TYPE_U16);
	mrc_conn_addr(tb[MRC_A_CONN_SADDR], family, saddr, sizeof(saddr));
	mrc_conn_addr(tb[MRC_A_CONN_DADDR], family, daddr, sizeof(daddr));
	if (opts.json)
		conn_print_json(tb, family, saddr, daddr);
	else
		conn_print_plain(tb, family, saddr, daddr);
	return MNL_CB_OK;
}

/**
 * mrc_conn_ids() - the local ids of the connections (listeners and those
 * shown without their ids left out)
 * @nl: the open family
 * @cids: set to a malloc'ed array of ids, to free()
 * @n: set to the number of ids
 *
 * Return: MRC_EXIT_OK, or an exit code after printing what went wrong.
 */
int mrc_conn_ids(struct mrc_nl *nl, uint32_t **cids, unsigned int *n)
{
	struct conn_ctx ctx = { .collect = true };
	int ret;

	ret = mrc_nl_talk(nl, mrc_nl_msg(nl, MRC_CMD_CONN_GET, NLM_F_DUMP),
			  conn_show_cb, &ctx);
	if (ret) {
		free(ctx.cids);
		return ret;
	}
	*cids = ctx.cids;
	*n = ctx.n;
	return MRC_EXIT_OK;
}

static int conn_show_parse(int argc, char **argv, struct conn_ctx *ctx)
{
	while (argc > 0) {
		if (matches(argv[0], "help")) {
			conn_usage(stdout);
			return -1;
		}
		if (!matches(argv[0], "cid")) {
			fprintf(stderr, "mrc: unknown argument \"%s\" of \"conn show\"\n",
				argv[0]);
			conn_usage(stderr);
			return MRC_EXIT_USAGE;
		}
		if (argc < 2) {
			fprintf(stderr, "mrc: \"cid\" needs a connection id\n");
			return MRC_EXIT_USAGE;
		}
		if (mrc_parse_cid(argv[1], &ctx->cid))
			return MRC_EXIT_USAGE;
		ctx->filter = true;
		argc -= 2;
		argv += 2;
	}
	return MRC_EXIT_OK;
}

int cmd_conn(int argc, char **argv)
{
	struct conn_ctx ctx = { 0 };
	struct nlmsghdr *nlh;
	struct mrc_nl *nl;
	int ret;

	if (argc > 0 && matches(argv[0], "help")) {
		conn_usage(stdout);
		return MRC_EXIT_OK;
	}
	if (argc > 0 && !matches(argv[0], "show") &&
	    !matches(argv[0], "list")) {
		fprintf(stderr, "mrc: unknown command \"conn %s\"\n", argv[0]);
		conn_usage(stderr);
		return MRC_EXIT_USAGE;
	}
	if (argc > 0) {
		ret = conn_show_parse(argc - 1, argv + 1, &ctx);
		if (ret)
			return ret < 0 ? MRC_EXIT_OK : ret;
	}

	nl = mrc_nl_open(&ret);
	if (!nl)
		return ret;
	nlh = mrc_nl_msg(nl, MRC_CMD_CONN_GET, NLM_F_DUMP);
	if (ctx.filter)
		mnl_attr_put_u32(nlh, MRC_A_CONN_LOCAL_CID, ctx.cid);
	mrc_out_list_begin();
	ret = mrc_nl_talk(nl, nlh, conn_show_cb, &ctx);
	mrc_out_list_end();
	mrc_nl_close(nl);
	return ret;
}
