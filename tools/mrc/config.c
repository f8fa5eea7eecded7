// SPDX-License-Identifier: GPL-2.0
/* mrc(8): "mrc config": show and set the settings of this namespace. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/mrc.h>

#include "mrc.h"

/* Names of enum mrc_ev_policy, in settings and in connections. */
const char *const mrc_ev_policy_words[3] = {
	[MRC_EV_POLICY_SPRAY]	= "spray",
	[MRC_EV_POLICY_SINGLE]	= "single",
	[MRC_EV_POLICY_REPS]	= "reps",
};

/* Names of enum mrc_cc_algo, in settings and in connections. */
const char *const mrc_cc_algo_words[3] = {
	[MRC_CC_NSCC]	= "nscc",
	[MRC_CC_DCTCP]	= "dctcp",
	[MRC_CC_RENO]	= "reno",
};

/* The settings, by their netlink attribute; names are the tool's words.
 * A setting with words is shown and set by the names of its values.
 */
static const struct setting {
	const char *name;
	uint16_t attr;
	enum mnl_attr_data_type type;
	uint64_t min, max;
	const char *const *words;
	const char *help;
} settings[] = {
	{ "port", MRC_A_CONFIG_PORT, MNL_TYPE_U16, 1, 65535, NULL,
	  "UDP encapsulation port" },
	{ "rto_min_us", MRC_A_CONFIG_RTO_MIN_US, MNL_TYPE_U32, 100, 60000000,
	  NULL, "retransmission timeout floor, microseconds" },
	{ "rto_max_us", MRC_A_CONFIG_RTO_MAX_US, MNL_TYPE_U32, 100, 60000000,
	  NULL, "retransmission timeout ceiling, microseconds" },
	{ "conn_timeout_ms", MRC_A_CONFIG_CONN_TIMEOUT_MS, MNL_TYPE_U32, 10,
	  3600000, NULL, "nothing acknowledged this long: ETIMEDOUT" },
	{ "max_msg_size", MRC_A_CONFIG_MAX_MSG_SIZE, MNL_TYPE_U32, 1,
	  MRC_MAX_MSG_SIZE_LIMIT, NULL, "largest message, bytes" },
	{ "ev_count", MRC_A_CONFIG_EV_COUNT, MNL_TYPE_U16, 1,
	  MRC_EV_COUNT_LIMIT, NULL, "entropy values per new connection" },
	{ "ev_port_min", MRC_A_CONFIG_EV_PORT_MIN, MNL_TYPE_U16, 1, 65535,
	  NULL, "lowest UDP source port of the entropy values" },
	{ "ev_port_max", MRC_A_CONFIG_EV_PORT_MAX, MNL_TYPE_U16, 1, 65535,
	  NULL, "highest UDP source port of the entropy values" },
	{ "ev_spares", MRC_A_CONFIG_EV_SPARES, MNL_TYPE_U16, 0,
	  MRC_EV_SPARES_LIMIT, NULL,
	  "spare entropy values per new connection" },
	{ "ev_policy", MRC_A_CONFIG_EV_POLICY, MNL_TYPE_U8,
	  MRC_EV_POLICY_SPRAY, MRC_EV_POLICY_REPS, mrc_ev_policy_words,
	  "how new connections spread packets over their EVs" },
	{ "probe_interval_ms", MRC_A_CONFIG_PROBE_INTERVAL_MS, MNL_TYPE_U32,
	  1, 60000, NULL, "probe a BAD entropy value this often" },
	{ "cc", MRC_A_CONFIG_CC, MNL_TYPE_U8, MRC_CC_NSCC, MRC_CC_RENO,
	  mrc_cc_algo_words, "congestion control of new connections" },
	{ "cc_target_delay_us", MRC_A_CONFIG_CC_TARGET_DELAY_US, MNL_TYPE_U32,
	  1, 1000000, NULL, "queueing delay nscc aims at, microseconds" },
	{ "cc_ai", MRC_A_CONFIG_CC_AI, MNL_TYPE_U32, 1, 64, NULL,
	  "packets added per window acknowledged" },
	{ "cc_md", MRC_A_CONFIG_CC_MD, MNL_TYPE_U32, 1, 1024, NULL,
	  "largest window decrease, 1/1024" },
	{ "cc_init_cwnd", MRC_A_CONFIG_CC_INIT_CWND, MNL_TYPE_U32, 1, 1024,
	  NULL, "window of a new connection, packets" },
	{ "cc_max_cwnd", MRC_A_CONFIG_CC_MAX_CWND, MNL_TYPE_U32, 2, 1024, NULL,
	  "largest window, packets" },
	{ "ack_coalesce", MRC_A_CONFIG_ACK_COALESCE, MNL_TYPE_U8, 1,
	  MRC_ACK_COALESCE_LIMIT, NULL,
	  "data packets one ACK may acknowledge (1: an ACK per packet)" },
	{ "ack_delay_us", MRC_A_CONFIG_ACK_DELAY_US, MNL_TYPE_U32, 1,
	  MRC_ACK_DELAY_US_LIMIT, NULL,
	  "longest an ACK is held back, microseconds" },
	{ "flowlet", MRC_A_CONFIG_FLOWLET, MNL_TYPE_U8, 1, MRC_FLOWLET_LIMIT,
	  NULL, "new data packets in a row on one EV, one GSO datagram" },
};

/* "(1-65535)" or "(spray|single)": what a setting accepts. */
static void print_range(FILE *f, const struct setting *st)
{
	uint64_t v;

	if (!st->words) {
		fprintf(f, "(%llu-%llu)", (unsigned long long)st->min,
			(unsigned long long)st->max);
		return;
	}
	for (v = st->min; v <= st->max; v++)
		fprintf(f, "%s%s", v == st->min ? "(" : "|", st->words[v]);
	fputc(')', f);
}

static void config_usage(FILE *f)
{
	unsigned int i;

	fputs("Usage: mrc config [ show ]\n"
	      "       mrc config set SETTING VALUE [SETTING VALUE]...\n"
	      "       mrc config help\n"
	      "SETTING:\n", f);
	for (i = 0; i < ARRAY_SIZE(settings); i++) {
		fprintf(f, "  %-18s %s ", settings[i].name, settings[i].help);
		print_range(f, &settings[i]);
		fputc('\n', f);
	}
}

static void config_show_one(const struct setting *st, const struct nlattr *a)
{
	uint64_t val;

	if (mnl_attr_validate(a, st->type) < 0)
		return;
	val = mrc_nl_uint(a, st->type);
	if (st->words && val <= st->max)
		mrc_out_str(st->name, st->words[val]);
	else
		mrc_out_u64(st->name, val);
}

static int config_show_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[MRC_A_CONFIG_MAX + 1];
	unsigned int i;

	if (mrc_nl_attrs(nlh, tb, MRC_A_CONFIG_MAX) < 0)
		return MNL_CB_ERROR;
	mrc_out_begin();
	for (i = 0; i < ARRAY_SIZE(settings); i++)
		if (tb[settings[i].attr])
			config_show_one(&settings[i], tb[settings[i].attr]);
	mrc_out_end();
	return MNL_CB_OK;
}

static int parse_setting(const struct setting *st, const char *arg,
			 uint64_t *val)
{
	uint64_t v;

	if (st->words) {
		for (v = st->min; v <= st->max; v++) {
			if (!strcmp(arg, st->words[v])) {
				*val = v;
				return 0;
			}
		}
	} else if (!mrc_parse_u64(arg, st->min, st->max, val)) {
		return 0;
	}
	fprintf(stderr, "mrc: \"%s\" is not a valid %s ", arg, st->name);
	print_range(stderr, st);
	fputc('\n', stderr);
	return -1;
}

static const struct setting *find_setting(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(settings); i++)
		if (!strcmp(name, settings[i].name))
			return &settings[i];
	return NULL;
}

/* Check the whole command line before talking to the kernel. */
static int config_set_parse(int argc, char **argv, uint64_t *vals)
{
	const struct setting *st;
	int i;

	if (argc == 0) {
		config_usage(stderr);
		return MRC_EXIT_USAGE;
	}
	for (i = 0; i < argc; i += 2) {
		st = find_setting(argv[i]);
		if (!st) {
			fprintf(stderr, "mrc: unknown setting \"%s\"; try \"mrc config help\"\n",
				argv[i]);
			return MRC_EXIT_USAGE;
		}
		if (i + 1 >= argc) {
			fprintf(stderr, "mrc: \"%s\" needs a value\n", argv[i]);
			return MRC_EXIT_USAGE;
		}
		if (parse_setting(st, argv[i + 1], &vals[i / 2]))
			return MRC_EXIT_USAGE;
	}
	return MRC_EXIT_OK;
}

static int config_set(struct mrc_nl *nl, int argc, char **argv,
		      const uint64_t *vals)
{
	struct nlmsghdr *nlh = mrc_nl_msg(nl, MRC_CMD_CONFIG_SET, 0);
	const struct setting *st;
	int i;

	for (i = 0; i < argc; i += 2) {
		st = find_setting(argv[i]);
		switch (st->type) {
		case MNL_TYPE_U8:
			mnl_attr_put_u8(nlh, st->attr, vals[i / 2]);
			break;
		case MNL_TYPE_U16:
			mnl_attr_put_u16(nlh, st->attr, vals[i / 2]);
			break;
		default:
			mnl_attr_put_u32(nlh, st->attr, vals[i / 2]);
			break;
		}
	}
	return mrc_nl_talk(nl, nlh, NULL, NULL);
}

int cmd_config(int argc, char **argv)
{
	uint64_t vals[ARRAY_SIZE(settings) * 4];
	bool set = false;
	struct mrc_nl *nl;
	int ret;

	if (argc > 0 && matches(argv[0], "help")) {
		config_usage(stdout);
		return MRC_EXIT_OK;
	}
	if (argc > 0 && matches(argv[0], "show")) {
		if (argc > 1 && matches(argv[1], "help")) {
			config_usage(stdout);
			return MRC_EXIT_OK;
		}
		if (argc > 1) {
			fprintf(stderr, "mrc: \"config show\" takes no arguments\n");
			return MRC_EXIT_USAGE;
		}
	} else if (argc > 0 && matches(argv[0], "set")) {
		set = true;
		if (argc > 1 && matches(argv[1], "help")) {
			config_usage(stdout);
			return MRC_EXIT_OK;
		}
		if (argc - 1 > (int)ARRAY_SIZE(vals)) {
			fprintf(stderr, "mrc: too many settings\n");
			return MRC_EXIT_USAGE;
		}
		ret = config_set_parse(argc - 1, argv + 1, vals);
		if (ret)
			return ret;
	} else if (argc > 0) {
		fprintf(stderr, "mrc: unknown command \"config %s\"\n", argv[0]);
		config_usage(stderr);
		return MRC_EXIT_USAGE;
	}

	nl = mrc_nl_open(&ret);
	if (!nl)
		return ret;
	if (set)
		ret = config_set(nl, argc - 1, argv + 1, vals);
	else
		ret = mrc_nl_talk(nl, mrc_nl_msg(nl, MRC_CMD_CONFIG_GET, 0),
				  config_show_cb, NULL);
	mrc_nl_close(nl);
	return ret;
}
