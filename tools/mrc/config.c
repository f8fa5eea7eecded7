// SPDX-License-Identifier: GPL-2.0
/* mrc(8): "mrc config": show and set the settings of this namespace. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <linux/mrc.h>

#include "mrc.h"

static void config_usage(FILE *f)
{
	fputs("Usage: mrc config show\n"
	      "       mrc config set SETTING VALUE [SETTING VALUE]...\n"
	      "where  SETTING := { port }\n"
	      "       port     UDP encapsulation port, 1-65535\n", f);
}

static int config_show_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[MRC_A_CONFIG_MAX + 1];

	if (mrc_nl_attrs(nlh, tb, MRC_A_CONFIG_MAX) < 0)
		return MNL_CB_ERROR;
	mrc_out_begin();
	if (tb[MRC_A_CONFIG_PORT] &&
	    mnl_attr_validate(tb[MRC_A_CONFIG_PORT], MNL_TYPE_U16) >= 0)
		mrc_out_u64("port", mnl_attr_get_u16(tb[MRC_A_CONFIG_PORT]));
	mrc_out_end();
	return MNL_CB_OK;
}

static int parse_u64(const char *name, const char *arg, uint64_t max,
		     uint64_t *val)
{
	char *end;

	errno = 0;
	*val = strtoull(arg, &end, 0);
	if (errno || end == arg || *end || arg[0] == '-' || *val > max) {
		fprintf(stderr, "mrc: \"%s\" is not a valid %s (0-%llu)\n",
			arg, name, (unsigned long long)max);
		return -1;
	}
	return 0;
}

static int config_set(struct mrc_nl *nl, int argc, char **argv)
{
	struct nlmsghdr *nlh = mrc_nl_msg(nl, MRC_CMD_CONFIG_SET, 0);
	uint64_t val;

	if (argc == 0) {
		config_usage(stderr);
		return MRC_EXIT_USAGE;
	}
	for (; argc > 0; argc -= 2, argv += 2) {
		if (argc < 2) {
			fprintf(stderr, "mrc: \"%s\" needs a value\n", argv[0]);
			return MRC_EXIT_USAGE;
		}
		if (matches(argv[0], "port")) {
			if (parse_u64("port", argv[1], 65535, &val))
				return MRC_EXIT_USAGE;
			mnl_attr_put_u16(nlh, MRC_A_CONFIG_PORT, val);
		} else {
			fprintf(stderr, "mrc: unknown setting \"%s\"; try \"mrc config help\"\n",
				argv[0]);
			return MRC_EXIT_USAGE;
		}
	}
	return mrc_nl_talk(nl, nlh, NULL, NULL);
}

int cmd_config(int argc, char **argv)
{
	struct mrc_nl *nl;
	int ret;

	if (argc > 0 && matches(argv[0], "help")) {
		config_usage(stdout);
		return MRC_EXIT_OK;
	}
	if (argc > 0 && !matches(argv[0], "show") && !matches(argv[0], "set")) {
		fprintf(stderr, "mrc: unknown command \"config %s\"\n", argv[0]);
		config_usage(stderr);
		return MRC_EXIT_USAGE;
	}
	if (argc > 1 && matches(argv[0], "show")) {
		fprintf(stderr, "mrc: \"config show\" takes no arguments\n");
		return MRC_EXIT_USAGE;
	}

	nl = mrc_nl_open(&ret);
	if (!nl)
		return ret;
	if (argc == 0 || matches(argv[0], "show"))
		ret = mrc_nl_talk(nl, mrc_nl_msg(nl, MRC_CMD_CONFIG_GET, 0),
				  config_show_cb, NULL);
	else
		ret = config_set(nl, argc - 1, argv + 1);
	mrc_nl_close(nl);
	return ret;
}
