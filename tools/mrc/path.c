// SPDX-License-Identifier: GPL-2.0
/* mrc(8): "mrc path": the entropy values (EVs) of connections, from the
 * MRC_CMD_PATH_GET dump, and denying or allowing them (MRC_CMD_PATH_SET).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/mrc.h>

#include "mrc.h"

const char *const mrc_ev_state_words[4] = {
	[MRC_EV_GOOD]	= "good",
	[MRC_EV_SKIP]	= "skip",
	[MRC_EV_BAD]	= "bad",
	[MRC_EV_DENIED]	= "denied",
};

/* The counters of an EV, in output order, after port, state and active. */
static const struct path_field {
	const char *key;
	const char *label;
	const char *unit;
	uint16_t attr;
	enum mnl_attr_data_type type;
} path_fields[] = {
	{ "sent", NULL, "", MRC_A_PATH_SENT, MNL_TYPE_U64 },
	{ "acked", NULL, "", MRC_A_PATH_ACKED, MNL_TYPE_U64 },
	{ "lost", NULL, "", MRC_A_PATH_LOST, MNL_TYPE_U64 },
	{ "ce", NULL, "", MRC_A_PATH_CE, MNL_TYPE_U64 },
	{ "probes", NULL, "", MRC_A_PATH_PROBES, MNL_TYPE_U64 },
	{ "srtt_us", "srtt", "us", MRC_A_PATH_SRTT_US, MNL_TYPE_U32 },
	{ "ce_level", NULL, "", MRC_A_PATH_CE_LEVEL, MNL_TYPE_U8 },
	{ "acks", NULL, "", MRC_A_PATH_ACKS, MNL_TYPE_U64 },
	{ "acks_lost", NULL, "", MRC_A_PATH_ACKS_LOST, MNL_TYPE_U64 },
};

/* What "path deny" or "path allow" names: one EV of one connection, or a
 * port range of every connection (to one peer).
 */
struct path_target {
	uint32_t cid;
	uint16_t port;
	uint16_t port_min, port_max;
	unsigned char peer[16];
	size_t peer_len;
	bool has_cid, has_port, has_ports;
};

/* One "path show" dump: the connection asked for, and all or one. */
struct path_ctx {
	uint32_t cid;
	bool all;
};

static void path_usage(FILE *f)
{
	fputs("Usage: mrc [-j] [-p] path [ show [ cid CID ] ]\n"
	      "       mrc path { deny | allow } cid CID port PORT\n"
	      "       mrc path { deny | allow } [ peer ADDR ] ports MIN[-MAX]\n"
	      "       mrc path help\n"
	      "CID  := connection id of this host, decimal or 0x hexadecimal\n"
	      "PORT := UDP source port of an entropy value (1-65535)\n"
	      "ADDR := IPv4 or IPv6 address of the peer; without it, every peer\n",
	      f);
}

static int path_show_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[MRC_A_PATH_MAX + 1];
	struct path_ctx *ctx = data;
	const struct path_field *f;
	const char *state;
	unsigned int i;
	uint32_t cid;
	bool active;

	if (mrc_nl_attrs(nlh, tb, MRC_A_PATH_MAX) < 0)
		return MNL_CB_ERROR;
	cid = tb[MRC_A_PATH_CID] ? mrc_nl_uint(tb[MRC_A_PATH_CID],
					       MNL_TYPE_U32) : ctx->cid;
	state = mrc_word(mrc_ev_state_words, ARRAY_SIZE(mrc_ev_state_words),
			 mrc_nl_uint(tb[MRC_A_PATH_STATE], MNL_TYPE_U8));
	active = mrc_nl_uint(tb[MRC_A_PATH_ACTIVE], MNL_TYPE_U8);

	if (opts.json) {
		mrc_out_begin();
		mrc_out_u64("cid", cid);
		mrc_out_u64("port", mrc_nl_uint(tb[MRC_A_PATH_PORT],
						MNL_TYPE_U16));
		mrc_out_str("state", state);
		mrc_out_bool("active", active);
		for (i = 0; i < ARRAY_SIZE(path_fields); i++)
			mrc_out_u64(path_fields[i].key,
				    mrc_nl_uint(tb[path_fields[i].attr],
						path_fields[i].type));
		mrc_out_end();
		return MNL_CB_OK;
	}

	if (ctx->all)
		printf("cid 0x%08" PRIx32 " ", cid);
	printf("port %" PRIu64 " state %s active %s",
	       mrc_nl_uint(tb[MRC_A_PATH_PORT], MNL_TYPE_U16), state,
	       active ? "yes" : "no");
	for (i = 0; i < ARRAY_SIZE(path_fields); i++) {
		f = &path_fields[i];
		printf(" %s %" PRIu64 "%s", f->label ? f->label : f->key,
		       mrc_nl_uint(tb[f->attr], f->type), f->unit);
	}
	putchar('\n');
	return MNL_CB_OK;
}

/* The EVs of one connection; -1 (nothing printed) if it is gone and
 * @quiet_gone.  Gone is ENOENT, or EPERM for a user without
 * CAP_NET_ADMIN, to whom the kernel does not tell a closed connection of
 * theirs from someone else's.
 */
static int path_show_one(struct mrc_nl *nl, struct path_ctx *ctx,
			 bool quiet_gone)
{
	static const int gone[] = { ENOENT, EPERM, 0 };
	struct nlmsghdr *nlh = mrc_nl_msg(nl, MRC_CMD_PATH_GET, NLM_F_DUMP);

	mnl_attr_put_u32(nlh, MRC_A_PATH_CID, ctx->cid);
	return mrc_nl_talk_quiet(nl, nlh, path_show_cb, ctx,
				 quiet_gone ? gone : NULL);
}

/* The EVs of every connection; one that closes meanwhile is left out. */
static int path_show_all(struct mrc_nl *nl)
{
	struct path_ctx ctx = { .all = true };
	unsigned int i, n;
	uint32_t *cids;
	int ret;

	ret = mrc_conn_ids(nl, &cids, &n);
	if (ret)
		return ret;
	mrc_out_list_begin();
	for (i = 0; i < n; i++) {
		ctx.cid = cids[i];
		ret = path_show_one(nl, &ctx, true);
		if (ret > 0)
			break;
		ret = MRC_EXIT_OK;
	}
	mrc_out_list_end();
	free(cids);
	return ret;
}

static int path_show(int argc, char **argv)
{
	struct path_ctx ctx = { .all = true };
	struct mrc_nl *nl;
	int ret;

	if (argc > 0 && matches(argv[0], "help")) {
		path_usage(stdout);
		return MRC_EXIT_OK;
	}
	if (argc > 0) {
		if (!matches(argv[0], "cid") || argc != 2) {
			fprintf(stderr, "mrc: \"path show\" takes only \"cid CID\"\n");
			path_usage(stderr);
			return MRC_EXIT_USAGE;
		}
		if (mrc_parse_cid(argv[1], &ctx.cid))
			return MRC_EXIT_USAGE;
		ctx.all = false;
	}

	nl = mrc_nl_open(&ret);
	if (!nl)
		return ret;
	if (ctx.all) {
		ret = path_show_all(nl);
	} else {
		mrc_out_list_begin();
		ret = path_show_one(nl, &ctx, false);
		mrc_out_list_end();
	}
	mrc_nl_close(nl);
	return ret;
}

static int parse_port(const char *arg, uint16_t *port)
{
	uint64_t val;

	if (mrc_parse_u64(arg, 1, 65535, &val)) {
		fprintf(stderr, "mrc: \"%s\" is not a port (1-65535)\n", arg);
		return -1;
	}
	*port = val;
	return 0;
}

/* "MIN" or "MIN-MAX" */
static int parse_ports(const char *arg, struct path_target *t)
{
	const char *dash = strchr(arg, '-');
	char min[8];

	if (!dash)
		return parse_port(arg, &t->port_min) ||
		       parse_port(arg, &t->port_max) ? -1 : 0;
	if (dash - arg >= (long)sizeof(min)) {
		fprintf(stderr, "mrc: \"%s\" is not a port range (MIN-MAX)\n",
			arg);
		return -1;
	}
	memcpy(min, arg, dash - arg);
	min[dash - arg] = '\0';
	if (parse_port(min, &t->port_min) || parse_port(dash + 1, &t->port_max))
		return -1;
	if (t->port_min > t->port_max) {
		fprintf(stderr, "mrc: port range \"%s\" ends before it starts\n",
			arg);
		return -1;
	}
	return 0;
}

static int parse_peer(const char *arg, struct path_target *t)
{
	if (inet_pton(AF_INET, arg, t->peer) == 1) {
		t->peer_len = 4;
		return 0;
	}
	if (inet_pton(AF_INET6, arg, t->peer) == 1) {
		t->peer_len = 16;
		return 0;
	}
	fprintf(stderr, "mrc: \"%s\" is not an IPv4 or IPv6 address\n", arg);
	return -1;
}

/* Check the whole command line of "path deny" or "path allow". */
static int path_set_parse(int argc, char **argv, struct path_target *t)
{
	const char *key;

	for (; argc > 0; argc -= 2, argv += 2) {
		key = argv[0];
		if (matches(key, "help")) {
			path_usage(stdout);
			return -1;
		}
		if (argc < 2) {
			fprintf(stderr, "mrc: \"%s\" needs a value\n", key);
			return MRC_EXIT_USAGE;
		}
		if (matches(key, "cid")) {
			if (mrc_parse_cid(argv[1], &t->cid))
				return MRC_EXIT_USAGE;
			t->has_cid = true;
		} else if (!strcmp(key, "port")) {
			if (parse_port(argv[1], &t->port))
				return MRC_EXIT_USAGE;
			t->has_port = true;
		} else if (!strcmp(key, "ports")) {
			if (parse_ports(argv[1], t))
				return MRC_EXIT_USAGE;
			t->has_ports = true;
		} else if (matches(key, "peer")) {
			if (parse_peer(argv[1], t))
				return MRC_EXIT_USAGE;
		} else {
			fprintf(stderr, "mrc: unknown argument \"%s\"\n", key);
			path_usage(stderr);
			return MRC_EXIT_USAGE;
		}
	}
	if (t->has_cid && t->has_port && !t->has_ports && !t->peer_len)
		return MRC_EXIT_OK;
	if (t->has_ports && !t->has_cid && !t->has_port)
		return MRC_EXIT_OK;
	fputs("mrc: name one EV (cid CID port PORT) or a port range (ports MIN[-MAX])\n",
	      stderr);
	path_usage(stderr);
	return MRC_EXIT_USAGE;
}

static int path_set(int argc, char **argv, uint8_t state)
{
	struct path_target t = { 0 };
	struct nlmsghdr *nlh;
	struct mrc_nl *nl;
	int ret;

	ret = path_set_parse(argc, argv, &t);
	if (ret)
		return ret < 0 ? MRC_EXIT_OK : ret;

	nl = mrc_nl_open(&ret);
	if (!nl)
		return ret;
	nlh = mrc_nl_msg(nl, MRC_CMD_PATH_SET, 0);
	mnl_attr_put_u8(nlh, MRC_A_PATH_STATE, state);
	if (t.has_cid) {
		mnl_attr_put_u32(nlh, MRC_A_PATH_CID, t.cid);
		mnl_attr_put_u16(nlh, MRC_A_PATH_PORT, t.port);
	} else {
		mnl_attr_put_u16(nlh, MRC_A_PATH_PORT_MIN, t.port_min);
		mnl_attr_put_u16(nlh, MRC_A_PATH_PORT_MAX, t.port_max);
		if (t.peer_len)
			mnl_attr_put(nlh, MRC_A_PATH_PEER, t.peer_len, t.peer);
	}
	ret = mrc_nl_talk(nl, nlh, NULL, NULL);
	mrc_nl_close(nl);
	return ret;
}

int cmd_path(int argc, char **argv)
{
	if (argc == 0)
		return path_show(0, NULL);
	if (matches(argv[0], "help")) {
		path_usage(stdout);
		return MRC_EXIT_OK;
	}
	if (matches(argv[0], "show") || matches(argv[0], "list"))
		return path_show(argc - 1, argv + 1);
	if (matches(argv[0], "deny"))
		return path_set(argc - 1, argv + 1, MRC_EV_DENIED);
	if (matches(argv[0], "allow"))
		return path_set(argc - 1, argv + 1, MRC_EV_GOOD);
	fprintf(stderr, "mrc: unknown command \"path %s\"\n", argv[0]);
	path_usage(stderr);
	return MRC_EXIT_USAGE;
}
