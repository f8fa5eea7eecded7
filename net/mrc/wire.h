/* SPDX-License-Identifier: GPL-2.0 */
/* mrc wire format: the headers carried in UDP datagrams between namespaces,
 * and the pure validation of them.  Documented in mrc.rst, "Wire format".
 */
#ifndef _NET_MRC_WIRE_H
#define _NET_MRC_WIRE_H

#include <linux/types.h>
#include <linux/build_bug.h>

#define MRC_WIRE_VERSION	1

/* Packet types, in the common header's type field. */
enum mrc_pkt_type {
	MRC_PKT_DATA = 1,	/* a piece of a message */
	MRC_PKT_ACK,		/* cumulative PSN, SACK bitmap, echo */
	MRC_PKT_SYN,		/* open a connection */
	MRC_PKT_SYNACK,		/* accept a connection */
	MRC_PKT_FIN,		/* no more messages from the sender */
	MRC_PKT_RST,		/* abort the connection */
	MRC_PKT_PROBE,		/* is this entropy value's path alive? */
	MRC_PKT_PROBE_ACK,	/* yes, it is */

	__MRC_PKT_MAX
};

/**
 * struct mrc_hdr - common header, first in every mrc datagram
 * @version: MRC_WIRE_VERSION
 * @type: one of enum mrc_pkt_type
 * @flags: type-specific flags, unknown ones must be zero
 * @dst_cid: the receiver's connection id (random, chosen by the receiver;
 *           zero only in a SYN, which opens a connection)
 */
struct mrc_hdr {
	__u8	version;
	__u8	type;
	__be16	flags;
	__be32	dst_cid;
};

/* Why a packet was dropped by header validation (0: it was not). */
enum mrc_hdr_verdict {
	MRC_HDR_OK,
	MRC_HDR_SHORT,
	MRC_HDR_BAD_VERSION,
	MRC_HDR_BAD_TYPE,
};

/**
 * mrc_hdr_check() - validate the common header of a received datagram
 * @data: start of the mrc payload (after the UDP header)
 * @len: bytes available at @data
 *
 * Pure: reads at most sizeof(struct mrc_hdr) bytes and only when @len
 * allows it.
 *
 * Return: MRC_HDR_OK or the reason to drop the packet.
 */
static inline enum mrc_hdr_verdict mrc_hdr_check(const void *data,
						 unsigned int len)
{
	const struct mrc_hdr *h = data;

	BUILD_BUG_ON(sizeof(struct mrc_hdr) != 8);

	if (len < sizeof(*h))
		return MRC_HDR_SHORT;
	if (h->version != MRC_WIRE_VERSION)
		return MRC_HDR_BAD_VERSION;
	if (h->type == 0 || h->type >= __MRC_PKT_MAX)
		return MRC_HDR_BAD_TYPE;
	return MRC_HDR_OK;
}

#endif /* _NET_MRC_WIRE_H */
