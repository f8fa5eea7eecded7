// SPDX-License-Identifier: GPL-2.0
/* mrc(8): "mrc stats": the counters of this namespace. */
#include <stdio.h>
#include <linux/mrc.h>

#include "mrc.h"

static const char *const stats_names[MRC_A_STATS_MAX + 1] = {
	[MRC_A_STATS_IN_PKTS]		= "in_pkts",
	[MRC_A_STATS_DROP_SHORT]	= "drop_short",
	[MRC_A_STATS_DROP_VERSION]	= "drop_version",
	[MRC_A_STATS_DROP_TYPE]		= "drop_type",
	[MRC_A_STATS_DROP_NO_CONN]	= "drop_no_conn",
};

static void stats_usage(FILE *f)
{
	fputs("Usage: mrc stats show\n", f);
}

static int stats_show_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[MRC_A_STATS_MAX + 1];
	unsigned int i;

	if (mrc_nl_attrs(nlh, tb, MRC_A_STATS_MAX) < 0)
		return MNL_CB_ERROR;
	mrc_out_begin();
	for (i = 0; i <= MRC_A_STATS_MAX; i++) {
		if (!stats_names[i] || !tb[i] ||
		    mnl_attr_validate(tb[i], MNL_TYPE_U64) < 0)
			continue;
		mrc_out_u64(stats_names[i], mnl_attr_get_u64(tb[i]));
	}
	mrc_out_end();
	return MNL_CB_OK;
}

int cmd_stats(int argc, char **argv)
{
	struct mrc_nl *nl;
	int ret;

	if (argc > 0 && matches(argv[0], "help")) {
		stats_usage(stdout);
		return MRC_EXIT_OK;
	}
	if (argc > 1 || (argc == 1 && !matches(argv[0], "show"))) {
		stats_usage(stderr);
		return MRC_EXIT_USAGE;
	}
	nl = mrc_nl_open(&ret);
	if (!nl)
		return ret;
	ret = mrc_nl_talk(nl, mrc_nl_msg(nl, MRC_CMD_STATS_GET, 0),
			  stats_show_cb, NULL);
	mrc_nl_close(nl);
	return ret;
}
