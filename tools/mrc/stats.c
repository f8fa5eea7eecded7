// SPDX-License-Identifier: GPL-2.0
/* mrc(8): "mrc stats": the counters of this namespace. */
#include <stdio.h>
#include <linux/mrc.h>

#include "mrc.h"

static const char *const stats_names[MRC_A_STATS_MAX + 1] = {
	[MRC_A_STATS_IN_PKTS]	= "in_pkts",
	[MRC_A_STATS_DROP_SHORT]	= "drop_short",
	[MRC_A_STATS_DROP_VERSION]	= "drop_version",
	[MRC_A_STATS_DROP_TYPE]	= "drop_type",
	[MRC_A_STATS_DROP_NO_CONN]	= "drop_no_conn",
	[MRC_A_STATS_DROP_BAD_FLAGS]	= "drop_bad_flags",
	[MRC_A_STATS_DROP_BAD_LEN]	= "drop_bad_len",
	[MRC_A_STATS_DROP_BAD_CID]	= "drop_bad_cid",
	[MRC_A_STATS_DROP_TOO_BIG]	= "drop_too_big",
	[MRC_A_STATS_DROP_BAD_FIELD]	= "drop_bad_field",
	[MRC_A_STATS_DROP_NO_LISTENER]	= "drop_no_listener",
	[MRC_A_STATS_DROP_BACKLOG]	= "drop_backlog",
	[MRC_A_STATS_DROP_NOMEM]	= "drop_nomem",
	[MRC_A_STATS_DROP_STATE]	= "drop_state",
	[MRC_A_STATS_DROP_OUT_OF_WINDOW]	= "drop_out_of_window",
	[MRC_A_STATS_DROP_AFTER_FIN]	= "drop_after_fin",
	[MRC_A_STATS_DROP_RCVBUF]	= "drop_rcvbuf",
	[MRC_A_STATS_DROP_BAD_SEQUENCE]	= "drop_bad_sequence",
	[MRC_A_STATS_DROP_ACK_UNSENT]	= "drop_ack_unsent",
	[MRC_A_STATS_ACK_OLD]	= "ack_old",
	[MRC_A_STATS_DUP_DATA]	= "dup_data",
	[MRC_A_STATS_IN_OFO]	= "in_ofo",
	[MRC_A_STATS_IN_CE]	= "in_ce",
	[MRC_A_STATS_OUT_DATA]	= "out_data",
	[MRC_A_STATS_OUT_ACK]	= "out_ack",
	[MRC_A_STATS_OUT_SYN]	= "out_syn",
	[MRC_A_STATS_OUT_SYNACK]	= "out_synack",
	[MRC_A_STATS_OUT_PROBE]	= "out_probe",
	[MRC_A_STATS_OUT_RST]	= "out_rst",
	[MRC_A_STATS_OUT_NOROUTE]	= "out_noroute",
	[MRC_A_STATS_OUT_NOMEM]	= "out_nomem",
	[MRC_A_STATS_RETRANS]	= "retrans",
	[MRC_A_STATS_LOST_EV]	= "lost_ev",
	[MRC_A_STATS_LOST_TIME]	= "lost_time",
	[MRC_A_STATS_LOST_RTO]	= "lost_rto",
	[MRC_A_STATS_RTO]	= "rto",
	[MRC_A_STATS_SYN_RETRANS]	= "syn_retrans",
	[MRC_A_STATS_SYN_REPEATED]	= "syn_repeated",
	[MRC_A_STATS_IDLE_PROBE]	= "idle_probe",
	[MRC_A_STATS_ZERO_WINDOW]	= "zero_window",
	[MRC_A_STATS_WINDOW_UPDATE]	= "window_update",
	[MRC_A_STATS_CONN_OPENED]	= "conn_opened",
	[MRC_A_STATS_CONN_ACCEPTED]	= "conn_accepted",
	[MRC_A_STATS_CONN_REFUSED]	= "conn_refused",
	[MRC_A_STATS_CONN_ABORTED]	= "conn_aborted",
	[MRC_A_STATS_CONN_TIMEDOUT]	= "conn_timedout",
	[MRC_A_STATS_CONN_ORPHANED]	= "conn_orphaned",
	[MRC_A_STATS_EV_BAD_LOSS]	= "ev_bad_loss",
	[MRC_A_STATS_EV_BAD_RTO]	= "ev_bad_rto",
	[MRC_A_STATS_EV_SKIP_CE]	= "ev_skip_ce",
	[MRC_A_STATS_EV_GOOD_PROBE]	= "ev_good_probe",
	[MRC_A_STATS_EV_GOOD_SKIPPED]	= "ev_good_skipped",
	[MRC_A_STATS_EV_DENIED]	= "ev_denied",
	[MRC_A_STATS_EV_ALLOWED]	= "ev_allowed",
	[MRC_A_STATS_EV_REPLACED]	= "ev_replaced",
	[MRC_A_STATS_EV_RECYCLED]	= "ev_recycled",
	[MRC_A_STATS_EV_PROBE]	= "ev_probe",
	[MRC_A_STATS_EV_NONE_USABLE]	= "ev_none_usable",
	[MRC_A_STATS_EVENTS_SUPPRESSED]	= "events_suppressed",
	[MRC_A_STATS_DROP_BAD_ADDR]	= "drop_bad_addr",
	[MRC_A_STATS_SPURIOUS_RETRANS]	= "spurious_retrans",
	[MRC_A_STATS_OUT_CONFIRM]	= "out_confirm",
	[MRC_A_STATS_DROP_BAD_COOKIE]	= "drop_bad_cookie",
	[MRC_A_STATS_DROP_OLD_CONFIRM]	= "drop_old_confirm",
	[MRC_A_STATS_RST_CHALLENGED]	= "rst_challenged",
	[MRC_A_STATS_OUT_RST_LIMITED]	= "out_rst_limited",
	[MRC_A_STATS_DROP_MEM]		= "drop_mem",
	[MRC_A_STATS_ORPHAN_ABORTED]	= "orphan_aborted",
	[MRC_A_STATS_EV_GOOD_LATE]	= "ev_good_late",
	[MRC_A_STATS_CC_UNDO]		= "cc_undo",
	[MRC_A_STATS_EV_BAD_ACK]	= "ev_bad_ack",
	[MRC_A_STATS_ACK_LOST]		= "ack_lost",
	[MRC_A_STATS_LOST_DROP]		= "lost_drop",
	[MRC_A_STATS_EV_SKIP_DELAY]	= "ev_skip_delay",
	[MRC_A_STATS_EV_SWEEP]		= "ev_sweep",
	[MRC_A_STATS_EV_REUSED]		= "ev_reused",
	[MRC_A_STATS_RETRANS_RESCUE]	= "retrans_rescue",
	[MRC_A_STATS_OUT_DROPPED]	= "out_dropped",
	[MRC_A_STATS_MR_REG]		= "mr_reg",
	[MRC_A_STATS_MR_DEREG]		= "mr_dereg",
	[MRC_A_STATS_MR_DENIED]		= "mr_denied",
	[MRC_A_STATS_OUT_WRITE]		= "out_write",
	[MRC_A_STATS_WRITE_PLACED]	= "write_placed",
	[MRC_A_STATS_WRITE_BAD_KEY]	= "write_bad_key",
	[MRC_A_STATS_WRITE_BAD_ACCESS]	= "write_bad_access",
	[MRC_A_STATS_WRITE_BAD_RANGE]	= "write_bad_range",
	[MRC_A_STATS_OUT_STATUS]	= "out_status",
	[MRC_A_STATS_IN_STATUS]		= "in_status",
	[MRC_A_STATS_DROP_BAD_STATUS]	= "drop_bad_status",
	[MRC_A_STATS_WRITE_IMM]		= "write_imm",
	[MRC_A_STATS_READ_SERVED]	= "read_served",
	[MRC_A_STATS_READ_REFUSED]	= "read_refused",
	[MRC_A_STATS_READ_DONE]		= "read_done",
	[MRC_A_STATS_DROP_BAD_RESP]	= "drop_bad_resp",
	[MRC_A_STATS_ROUTE_LOOKUPS]	= "route_lookups",
	[MRC_A_STATS_RCV_WAKEUPS]	= "rcv_wakeups",
	[MRC_A_STATS_OUT_GSO]		= "out_gso",
	[MRC_A_STATS_OUT_GSO_PKTS]	= "out_gso_pkts",
	[MRC_A_STATS_RST_AFTER_FIN]	= "rst_after_fin",
	[MRC_A_STATS_ROUTES_PER_EV]	= "routes_per_ev",
};

static void stats_usage(FILE *f)
{
	fputs("Usage: mrc stats [ show ]\n"
	      "       mrc stats help\n", f);
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

	if ((argc > 0 && matches(argv[0], "help")) ||
	    (argc > 1 && matches(argv[0], "show") && matches(argv[1], "help"))) {
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
