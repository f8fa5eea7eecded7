/* SPDX-License-Identifier: GPL-2.0 */
/* mrc compatibility with kernels from 6.1 on: every version guard lives
 * here, so the rest of the module is written against one API.
 */
#ifndef _NET_MRC_COMPAT_H
#define _NET_MRC_COMPAT_H

#include <linux/version.h>
#include <net/genetlink.h>

/* 6.5 moved ipv6_pinfo's location into struct proto (ipv6_pinfo_offset);
 * before, it had to be the last member of the socket.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
#define MRC_PROTO_IPV6_PINFO_OFFSET(type, member) \
	.ipv6_pinfo_offset = offsetof(type, member),
#else
#define MRC_PROTO_IPV6_PINFO_OFFSET(type, member)
#endif

/* A multicast group only CAP_NET_ADMIN over the namespace may join
 * (GENL_MCAST_CAP_NET_ADMIN): 6.7, and the 6.1 stable series since it took
 * the fix (Debian's 6.1 kernels have it).  Where the kernel has no such
 * group, anyone may join, so the events must not carry connection ids.
 */
#ifdef GENL_MCAST_CAP_NET_ADMIN
#define MRC_GENL_MCGRP_ADMIN_ONLY	.flags = GENL_MCAST_CAP_NET_ADMIN,
#define MRC_GENL_MCGRP_HAS_IDS		true
#else
#define MRC_GENL_MCGRP_ADMIN_ONLY
#define MRC_GENL_MCGRP_HAS_IDS		false
#endif

#endif /* _NET_MRC_COMPAT_H */
