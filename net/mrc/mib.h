/* SPDX-License-Identifier: GPL-2.0 */
/* mrc counters: one per-cpu array per network namespace, summed on read.
 * Every drop has its own counter; names read like sentences.
 */
#ifndef _NET_MRC_MIB_H
#define _NET_MRC_MIB_H

#include <linux/percpu.h>
#include <linux/types.h>

enum mrc_mib_field {
	MRC_MIB_IN_PKTS,	/* datagrams the UDP tunnel handed to mrc */
	MRC_MIB_DROP_SHORT,	/* dropped: shorter than the common header */
	MRC_MIB_DROP_VERSION,	/* dropped: unknown protocol version */
	MRC_MIB_DROP_TYPE,	/* dropped: unknown packet type */
	MRC_MIB_DROP_NO_CONN,	/* dropped: no connection with that id */

	__MRC_MIB_MAX
};

struct mrc_mib {
	unsigned long	mibs[__MRC_MIB_MAX];
};

struct mrc_net;

/* Any context: this CPU's copy, no lock. */
#define MRC_INC_STATS(mn, field)	this_cpu_inc((mn)->mib->mibs[field])

/* netlink attribute (enum mrc_stats_attr) reporting each field */
extern const u16 mrc_mib_attr[__MRC_MIB_MAX];

u64 mrc_mib_read(const struct mrc_net *mn, enum mrc_mib_field field);

#endif /* _NET_MRC_MIB_H */
