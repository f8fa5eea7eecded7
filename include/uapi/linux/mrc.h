/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * mrc: multipath reliable message connections over UDP.
 * The socket API and the generic netlink API, for userspace.
 */
#ifndef _UAPI_LINUX_MRC_H
#define _UAPI_LINUX_MRC_H

#include <linux/types.h>

/* socket(AF_INET or AF_INET6, SOCK_SEQPACKET, IPPROTO_MRC).  The number is
 * from the experimental range of RFC 3692 and never appears on the wire.
 */
#define IPPROTO_MRC		254

/* Level for mrc's own socket options. */
#define SOL_MRC			IPPROTO_MRC

/* Default UDP port of a namespace's encapsulation socket. */
#define MRC_DEFAULT_UDP_PORT	4797

/* Generic netlink family; see Documentation/netlink/specs/mrc.yaml. */
#define MRC_GENL_NAME		"mrc"
#define MRC_GENL_VERSION	1

enum mrc_cmd {
	MRC_CMD_UNSPEC,
	MRC_CMD_CONFIG_GET,
	MRC_CMD_CONFIG_SET,
	MRC_CMD_STATS_GET,

	__MRC_CMD_MAX,
	MRC_CMD_MAX = __MRC_CMD_MAX - 1
};

/* Attribute set "config": the settings of one network namespace. */
enum mrc_config_attr {
	MRC_A_CONFIG_UNSPEC,
	MRC_A_CONFIG_PORT,		/* u16: UDP encapsulation port */

	__MRC_A_CONFIG_MAX,
	MRC_A_CONFIG_MAX = __MRC_A_CONFIG_MAX - 1
};

/* Attribute set "stats": the counters of one network namespace, each u64. */
enum mrc_stats_attr {
	MRC_A_STATS_UNSPEC,
	MRC_A_STATS_PAD,
	MRC_A_STATS_IN_PKTS,		/* UDP datagrams handed to mrc */
	MRC_A_STATS_DROP_SHORT,		/* shorter than the common header */
	MRC_A_STATS_DROP_VERSION,	/* unknown protocol version */
	MRC_A_STATS_DROP_TYPE,		/* unknown packet type */
	MRC_A_STATS_DROP_NO_CONN,	/* no connection with that id */

	__MRC_A_STATS_MAX,
	MRC_A_STATS_MAX = __MRC_A_STATS_MAX - 1
};

#endif /* _UAPI_LINUX_MRC_H */
