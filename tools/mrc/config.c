// SPDX-License-Identifier: GPL-2.0
/* mrc(8): "mrc config": show and set the settings of this namespace. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/mrc.h>

#include "mrc.h"

/* The settings, by their netlink attribute; names are the tool's words. */
static const struct setting {
	const char *name;
	uint16_t attr;
	bool u16;
	uint64_t min, max;
	const char *help;
} settings[] = {
	{ "port", MRC_A_CONFIG_PORT, true, 1, 65535,
	  "UDP encapsulation port" },
	{ "rto_min_us", MRC_A_CONFIG_RTO_MIN_US, false, 100, 60000000,
	  "retransmission timeout floor, microseconds" },
	{ "rto_max_us", MRC_A_CONFIG_RTO_MAX_US, false, 100, 60000000,
	  "retransmission timeout ceiling, microseconds" },
	{ "conn_timeout_ms", MRC_A_CONFIG_CONN_TIMEOUT_MS, false, 10, 3600000,
	  "nothing acknowledged this long: ETIMEDOUT" },
	{ "max_msg_size", MRC_A_CONFIG_MAX_MSG_SIZE, false, 1,
	  MRC_MAX_MSG_SIZE_LIMIT, "largest message, bytes" },
	{ "ev_count", MRC_A_CONFIG_EV_COUNT, true, 1, MRC_EV_COUNT_LIMIT,
	  "entropy values per new connection" },
	{ "ev_port_min", MRC_A_CONFIG_EV_PORT_MIN, true, 1, 65535,
	  "lowest UDP source port of the entropy values" },
	{ "ev_port_max", MRC_A_CONFIG_EV_PORT_MAX, true, 1, 65535,
	  "highest UDP source port of the entropy values" },
};

static void config_usage(FILE *f)
{
	unsigned int i;

	fputs("Usage: mrc config show\n"
	      "       mrc config set SETTING VALUE [SETTING VALUE]...\n"
	      "SETTING:\n", f);
	for (i = 0; i < ARRAY_SIZE(settings); i++)
		fprintf(f, "  %-16s %s (%llu-%llu)\n", settings[i].name,
			settings[i].help, (unsigned long long)settings[i].min,
			(unsigned long long)settings[i].max);
}

static int config_show_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[MRC_A_CONFIG_MAX + 1];
	const struct nlattr *a;
	unsigned int i;

	if (mrc_nl_attrs(nlh, tb, MRC_A_CONFIG_MAX) < 0)
		return MNL_CB_ERROR;
	mrc_out_begin();
	for (i = 0; i < ARRAY_SIZE(settings); i++) {
		a = tb[settings[i].attr];
		if (!a)
			continue;
		if (settings[i].u16 && mnl_attr_validate(a, MNL_TYPE_U16) >= 0)
			mrc_out_u64(settings[i].name, mnl_attr_get_u16(a));
		else if (!settings[i].u16 &&
			 mnl_attr_validate(a, MNL_TYPE_U32) >= 0)
			mrc_out_u64(settings[i].name, mnl_attr_get_u32(a));
	}
	mrc_out_end();
	return MNL_CB_OK;
}

static int parse_setting(const struct setting *st, const char *arg,
			 uint64_t *val)
{
	char *end;

	errno = 0;
	*val = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || arg[0] == '-' ||
	    *val < st->min || *val > st->max) {
		fprintf(stderr, "mrc: \"%s\" is not a valid %s (%llu-%llu)\n",
			arg, st->name, (unsigned long long)st->min,
			(unsigned long long)st->max);
		return -1;
	}
	return 0;
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
		if (st->u16)
			mnl_attr_put_u16(nlh, st->attr, vals[i / 2]);
		else
			mnl_attr_put_u32(nlh, st->attr, vals[i / 2]);
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
	if (argc > 0 && matches(argv[0], "set")) {
		set = true;
		if (argc - 1 > (int)ARRAY_SIZE(vals)) {
			fprintf(stderr, "mrc: too many settings\n");
			return MRC_EXIT_USAGE;
		}
		ret = config_set_parse(argc - 1, argv + 1, vals);
		if (ret)
			return ret;
	} else if (argc > 0 && !matches(argv[0], "show")) {
		fprintf(stderr, "mrc: unknown command \"config %s\"\n", argv[0]);
		config_usage(stderr);
		return MRC_EXIT_USAGE;
	} else if (argc > 1) {
		fprintf(stderr, "mrc: \"config show\" takes no arguments\n");
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
