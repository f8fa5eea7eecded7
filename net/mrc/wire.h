/* SPDX-License-Identifier: GPL-2.0 */
/* mrc wire format: the headers carried in UDP datagrams between namespaces,
 * and the pure validation of them.  Documented in mrc.rst, "Wire format".
 */
#ifndef _NET_MRC_WIRE_H
#define _NET_MRC_WIRE_H

#include <linux/types.h>
#include <linux/build_bug.h>

#define MRC_WIRE_VERSION	8

/* Packet types, in the common header's type field. */
enum mrc_pkt_type {
	MRC_PKT_DATA = 1,	/* a piece of a message, or the FIN marker */
	MRC_PKT_ACK,		/* cumulative PSN, SACK bitmap, echo */
	MRC_PKT_SYN,		/* open a connection */
	MRC_PKT_SYNACK,		/* accept a connection */
	MRC_PKT_RST,		/* abort the connection */
	MRC_PKT_PROBE,		/* ask for an ACK (window or path probe) */
	MRC_PKT_CONFIRM,	/* complete the handshake with the cookie */

	__MRC_PKT_MAX
};

/* Common header flags. */
#define MRC_F_FIN	0x0001	/* DATA: end of the sender's messages */
#define MRC_F_CE	0x0002	/* ACK: the echoed packet arrived CE-marked */
#define MRC_F_REFUSED	0x0004	/* RST: no listener on the port */
#define MRC_F_PROBE	0x0008	/* ACK: answers a probe; echo_ev and
				 * echo_tsval are the probe's
				 */
#define MRC_F_DROP	0x0010	/* ACK: the echoed packet arrived and the
				 * receiver dropped it (memory, buffer)
				 */
#define MRC_F_RDMA	0x0020	/* DATA: a WRITE's piece; struct
				 * mrc_rdma_ext follows the DATA header
				 */
#define MRC_F_STATUS	0x0040	/* DATA: an operation's status record
				 * (struct mrc_op_status), not a message
				 */
#define MRC_F_REPORT	0x0080	/* DATA, with MRC_F_RDMA: the last piece
				 * of a WRITE whose sender wants a status
				 * record even when it succeeds
				 */
#define MRC_F_IMM	0x0100	/* DATA, with MRC_F_RDMA: the last piece
				 * of a WRITE with immediate; struct
				 * mrc_imm_ext follows struct mrc_rdma_ext
				 */
#define MRC_F_READ	0x0200	/* DATA, with MRC_F_RDMA: a READ request,
				 * no payload: the receiver sends op_len
				 * bytes of its region from roffset on
				 */
#define MRC_F_RESP	0x0400	/* DATA, with MRC_F_RDMA: a piece of the
				 * response to the receiver's READ op_id
				 */
#define MRC_F_KNOWN	(MRC_F_FIN | MRC_F_CE | MRC_F_REFUSED | MRC_F_PROBE | \
			 MRC_F_DROP | MRC_F_RDMA | MRC_F_STATUS | MRC_F_REPORT | \
			 MRC_F_IMM | MRC_F_READ | MRC_F_RESP)

/* Flags of an ACK's extra echoes (struct mrc_ack_echo). */
#define MRC_ECHO_F_CE	0x0001	/* the echoed packet arrived CE-marked */
#define MRC_ECHO_F_DROP	0x0002	/* it arrived and the receiver dropped it */
#define MRC_ECHO_F_KNOWN	(MRC_ECHO_F_CE | MRC_ECHO_F_DROP)

/**
 * struct mrc_hdr - common header, first in every mrc datagram
 * @version: MRC_WIRE_VERSION
 * @type: one of enum mrc_pkt_type
 * @flags: MRC_F_*; unknown flags must be zero
 * @dst_cid: the receiver's connection id (random, chosen by the receiver;
 *           zero only in a SYN, which opens a connection)
 * @src_cid: the sender's connection id (zero only in a RST refusing a SYN)
 */
struct mrc_hdr {
	__u8	version;
	__u8	type;
	__be16	flags;
	__be32	dst_cid;
	__be32	src_cid;
};

/**
 * struct mrc_data_hdr - a piece of a message
 * @common: common header, type MRC_PKT_DATA
 * @psn: packet sequence number; a retransmission keeps its PSN
 * @msg_id: message number, consecutive from the connection's start
 * @msg_len: length of the whole message
 * @offset: where this piece starts in the message
 * @tsval: sender's transmit time in microseconds, echoed in the ACK
 * @ev: entropy value the packet was sent on, echoed in the ACK
 * @len: payload bytes following this header; must match the datagram
 * @ack_lost_seq: @ack_lost_ev's ACK: its ack_seq
 * @ack_lost_ev: the EV (UDP source port) of an ACK of the receiver's
 *               that the sender found missing, 0 if none: the receiver's
 *               reverse path on that EV loses (mrc.rst, "Reverse paths")
 *
 * A FIN (MRC_F_FIN) has len, msg_len and offset zero and takes a PSN, so
 * it is delivered reliably and in order after the last message.
 */
struct mrc_data_hdr {
	struct mrc_hdr	common;
	__be32	psn;
	__be32	msg_id;
	__be32	msg_len;
	__be32	offset;
	__be32	tsval;
	__be16	ev;
	__be16	len;
	__be16	ack_lost_seq;
	__be16	ack_lost_ev;
};

/**
 * struct mrc_rdma_ext - where a one-sided packet's bytes go (DATA with
 * MRC_F_RDMA)
 * @rkey: the key of the receiver's region; 0 in a READ's response
 * @roffset: where in that region the piece's first byte goes (a READ
 *           request: the first byte to read); 0 in a READ's response
 * @op_id: the operation's number, consecutive from the connection's start
 *         (a READ's response: the number of the receiver's READ)
 * @op_len: the operation's length
 *
 * A piece of a WRITE follows its DATA header; the DATA header's msg_id
 * and msg_len are zero and its offset is the piece's offset in the
 * operation.  It is not part of the message stream: it is placed as it
 * arrives, and takes a PSN like any DATA, so it is delivered once and
 * before every message sent after it.  A READ request (MRC_F_READ) is one
 * empty packet; the pieces of its response (MRC_F_RESP) go in the
 * responder's stream, like a WRITE's into the region its requester named
 * for it (the requester knows which: the op_id).
 */
struct mrc_rdma_ext {
	__be64	rkey;
	__be64	roffset;
	__be32	op_id;
	__be32	op_len;
};

/**
 * struct mrc_imm_ext - the immediate of a WRITE (MRC_F_IMM), after the
 * struct mrc_rdma_ext of its last piece
 * @imm: the value for the receiver's notification
 * @reserved: zero
 */
struct mrc_imm_ext {
	__be32	imm;
	__be32	reserved;
};

/* The outcome of an operation (struct mrc_op_status.status). */
enum mrc_op_result {
	MRC_OP_OK,
	MRC_OP_BAD_KEY,		/* no region of the connection has the key */
	MRC_OP_BAD_ACCESS,	/* the region does not allow it */
	MRC_OP_BAD_RANGE,	/* bytes past the region's end */

	__MRC_OP_MAX
};

/**
 * struct mrc_op_status - an operation's status record, the payload of a
 * DATA with MRC_F_STATUS
 * @op_id: the operation, the op_id of its pieces
 * @status: enum mrc_op_result
 * @reserved: zero
 *
 * The target of operations sends one for each that failed and each whose
 * last piece carried MRC_F_REPORT, in the order of their op_ids, in its
 * reliable stream (the DATA header's msg_id, msg_len and offset are zero,
 * len is 8).  An operation before @op_id that got no record succeeded.
 */
struct mrc_op_status {
	__be32	op_id;
	__u8	status;
	__u8	reserved[3];
};

/* The headers of a WRITE's piece; of its last with immediate. */
#define MRC_RDMA_HDR_LEN	(sizeof(struct mrc_data_hdr) + \
				 sizeof(struct mrc_rdma_ext))
#define MRC_RDMA_IMM_HDR_LEN	(MRC_RDMA_HDR_LEN + sizeof(struct mrc_imm_ext))

/**
 * struct mrc_ack_hdr - acknowledgment
 * @common: common header, type MRC_PKT_ACK; MRC_F_CE if @echo_psn's
 *          packet was CE-marked
 * @cum_psn: every PSN before this one has been received
 * @rwnd: bytes the receiver accepts beyond @cum_psn
 * @sack_hi: PSNs cum_psn + 1 .. cum_psn + 32 received (bit 0: cum_psn + 1)
 * @sack_lo: PSNs cum_psn + 33 .. cum_psn + 64 received
 * @echo_psn: PSN of the packet that triggered this ACK
 * @echo_tsval: its @tsval
 * @echo_ev: its @ev
 * @ack_seq: the sender's count of ACKs, one more in each; tells the newer
 *           of two reordered ACKs (whose @rwnd counts)
 * @ce_count: CE-marked data packets received on the connection so far
 * @prev_ev: the EV (UDP source port) the sender's previous ACK (@ack_seq
 *           - 1) was sent on, 0 if none: tells the receiver, should that
 *           one be missing, which of the sender's reverse paths lost it
 * @sack_words: SACK words after this header (0 to MRC_SACK_EXTRA_WORDS),
 *              each for the next 32 PSNs after @sack_lo's, bit 0 first
 * @nr_echo: struct mrc_ack_echo entries after them (0 to MRC_ACK_ECHOES):
 *           packets received since the previous ACK besides @echo_psn
 * @echo_wait_us: microseconds the receiver held @echo_psn's ACK back (0
 *                when the ACK went as the packet arrived): the sender
 *                takes it out of the packet's RTT sample
 */
struct mrc_ack_hdr {
	struct mrc_hdr	common;
	__be32	cum_psn;
	__be32	rwnd;
	__be32	sack_hi;
	__be32	sack_lo;
	__be32	echo_psn;
	__be32	echo_tsval;
	__be16	echo_ev;
	__be16	ack_seq;
	__be32	ce_count;
	__be16	prev_ev;
	__u8	sack_words;
	__u8	nr_echo;
	__be32	echo_wait_us;
};

/**
 * struct mrc_ack_echo - a further packet an ACK echoes
 * @psn: its PSN
 * @tsval: its @tsval
 * @ev: its @ev
 * @flags: MRC_ECHO_F_*
 * @wait_us: microseconds the receiver held its ACK back (as
 *           struct mrc_ack_hdr's @echo_wait_us)
 */
struct mrc_ack_echo {
	__be32	psn;
	__be32	tsval;
	__be16	ev;
	__be16	flags;
	__be32	wait_us;
};

/* SACK words an ACK may carry after its own two: 256 PSNs in all. */
#define MRC_SACK_EXTRA_WORDS	6
/* Extra echoes an ACK may carry. */
#define MRC_ACK_ECHOES		16
/* The longest ACK: all its SACK words and echoes. */
#define MRC_ACK_MAX_LEN		(sizeof(struct mrc_ack_hdr) + \
				 MRC_SACK_EXTRA_WORDS * sizeof(__be32) + \
				 MRC_ACK_ECHOES * sizeof(struct mrc_ack_echo))

/**
 * struct mrc_syn_hdr - the handshake: SYN, SYNACK and CONFIRM
 * @common: common header; in a SYN dst_cid is zero; in a SYNACK src_cid
 *          is the listener's cookie, which the CONFIRM carries back as
 *          dst_cid
 * @isn: first PSN the sender will use (in a CONFIRM: the SYN's again)
 * @src_port: sender's mrc port
 * @dst_port: receiver's mrc port
 * @udp_port: UDP port the sender receives mrc datagrams on
 * @reserved: zero
 * @rwnd: bytes the sender accepts before its first ACK
 * @tsval: transmit time in microseconds
 * @echo_tsval: SYNACK: the SYN's @tsval (the connecting side's RTT
 *              sample, whichever SYN it answers); CONFIRM: the SYNACK's
 *              @tsval (the listener's clock: how old the cookie is);
 *              SYN: zero
 * @max_msg: the largest message the sender accepts, bytes
 */
struct mrc_syn_hdr {
	struct mrc_hdr	common;
	__be32	isn;
	__be16	src_port;
	__be16	dst_port;
	__be16	udp_port;
	__be16	reserved;
	__be32	rwnd;
	__be32	tsval;
	__be32	echo_tsval;
	__be32	max_msg;
};

/**
 * struct mrc_probe_hdr - asks the receiver for an ACK (PROBE); aborts
 * the connection (RST)
 * @common: common header, type MRC_PKT_PROBE or MRC_PKT_RST
 * @tsval: transmit time, echoed in the ACK
 * @ev: entropy value the packet was sent on, echoed in the ACK
 * @reserved: zero
 * @psn: PROBE: the sender's next PSN; RST: a PSN of the receiver's own
 *       send window (the sender's cumulative point, or the PSN of the
 *       packet the RST answers), which the receiver checks (RFC 5961)
 */
struct mrc_probe_hdr {
	struct mrc_hdr	common;
	__be32	tsval;
	__be16	ev;
	__be16	reserved;
	__be32	psn;
};

/* PSNs after the cumulative one the SACK of an ACK may cover */
#define MRC_SACK_BITS_MIN	64
#define MRC_SACK_BITS	(MRC_SACK_BITS_MIN + 32 * MRC_SACK_EXTRA_WORDS)

/* Why a packet was dropped by header validation (0: it was not). */
enum mrc_hdr_verdict {
	MRC_HDR_OK,
	MRC_HDR_SHORT,		/* shorter than its type's header */
	MRC_HDR_BAD_VERSION,
	MRC_HDR_BAD_TYPE,
	MRC_HDR_BAD_FLAGS,	/* unknown or misplaced flag */
	MRC_HDR_BAD_LEN,	/* length fields disagree with the datagram */
	MRC_HDR_BAD_CID,	/* connection id zero where it cannot be */
	MRC_HDR_TOO_BIG,	/* message larger than the receiver allows */
	MRC_HDR_BAD_FIELD,	/* reserved field not zero, port zero, ... */

	__MRC_HDR_MAX
};

/* Header size of each packet type; 0 for unknown types. */
static inline unsigned int mrc_hdr_len(u8 type)
{
	switch (type) {
	case MRC_PKT_DATA:
		return sizeof(struct mrc_data_hdr);
	case MRC_PKT_ACK:
		return sizeof(struct mrc_ack_hdr);
	case MRC_PKT_SYN:
	case MRC_PKT_SYNACK:
	case MRC_PKT_CONFIRM:
		return sizeof(struct mrc_syn_hdr);
	case MRC_PKT_RST:
	case MRC_PKT_PROBE:
		return sizeof(struct mrc_probe_hdr);
	}
	return 0;
}

/* Length of an ACK with @sack_words extra SACK words and @nr_echo echoes. */
static inline unsigned int mrc_ack_len(unsigned int sack_words,
				       unsigned int nr_echo)
{
	return sizeof(struct mrc_ack_hdr) + sack_words * sizeof(__be32) +
	       nr_echo * sizeof(struct mrc_ack_echo);
}

static inline void mrc_wire_build_bug(void)
{
	BUILD_BUG_ON(sizeof(struct mrc_hdr) != 12);
	BUILD_BUG_ON(sizeof(struct mrc_data_hdr) != 40);
	BUILD_BUG_ON(sizeof(struct mrc_rdma_ext) != 24);
	BUILD_BUG_ON(sizeof(struct mrc_op_status) != 8);
	BUILD_BUG_ON(sizeof(struct mrc_imm_ext) != 8);
	BUILD_BUG_ON(sizeof(struct mrc_ack_hdr) != 52);
	BUILD_BUG_ON(sizeof(struct mrc_ack_echo) != 16);
	BUILD_BUG_ON(sizeof(struct mrc_syn_hdr) != 40);
	BUILD_BUG_ON(sizeof(struct mrc_probe_hdr) != 24);
}

/**
 * mrc_hdr_check() - validate the headers of a received datagram
 * @data: start of the mrc payload (after the UDP header)
 * @len: bytes of mrc payload (the whole datagram after the UDP header);
 *       at least min(@len, mrc_hdr_len(type)) bytes are readable at @data,
 *       min(@len, MRC_ACK_MAX_LEN) for an ACK, min(@len, MRC_RDMA_HDR_LEN)
 *       for a DATA with MRC_F_RDMA, MRC_RDMA_IMM_HDR_LEN with MRC_F_IMM too,
 *       its DATA header and struct mrc_op_status for a status record
 * @max_msg: largest message this receiver accepts
 *
 * Pure: reads only within @len and nothing but @data.  Every field that
 * does not depend on connection state is checked here; PSNs, windows
 * and connection ids are checked against the connection by the caller.
 *
 * Return: MRC_HDR_OK or the reason to drop the packet.
 */
static inline enum mrc_hdr_verdict mrc_hdr_check(const void *data,
						 unsigned int len,
						 u32 max_msg)
{
	const struct mrc_hdr *h = data;
	unsigned int hlen;
	u16 flags;

	if (len < sizeof(*h))
		return MRC_HDR_SHORT;
	if (h->version != MRC_WIRE_VERSION)
		return MRC_HDR_BAD_VERSION;
	hlen = mrc_hdr_len(h->type);
	if (!hlen)
		return MRC_HDR_BAD_TYPE;
	if (len < hlen)
		return MRC_HDR_SHORT;

	flags = be16_to_cpu(h->flags);
	if (flags & ~MRC_F_KNOWN)
		return MRC_HDR_BAD_FLAGS;
	/* only a refusal, which answers a SYN, may not know the sender's id */
	if (!h->src_cid &&
	    !(h->type == MRC_PKT_RST && (flags & MRC_F_REFUSED)))
		return MRC_HDR_BAD_CID;
	if (h->type == MRC_PKT_SYN ? h->dst_cid != 0 : h->dst_cid == 0)
		return MRC_HDR_BAD_CID;

	switch (h->type) {
	case MRC_PKT_DATA: {
		const struct mrc_data_hdr *d = data;
		u32 msg_len = be32_to_cpu(d->msg_len);
		u32 off = be32_to_cpu(d->offset);
		u32 plen = be16_to_cpu(d->len);
		u16 kind;

		if (flags & ~(MRC_F_FIN | MRC_F_RDMA | MRC_F_STATUS |
			      MRC_F_REPORT | MRC_F_IMM | MRC_F_READ |
			      MRC_F_RESP))
			return MRC_HDR_BAD_FLAGS;
		/* of one kind: a FIN, a one-sided packet or a status record;
		 * a one-sided packet a WRITE's piece (a report asked for, an
		 * immediate), a READ request or a response's piece
		 */
		kind = flags & (MRC_F_FIN | MRC_F_RDMA | MRC_F_STATUS);
		if ((kind & (kind - 1)) ||
		    ((flags & (MRC_F_REPORT | MRC_F_IMM | MRC_F_READ |
			       MRC_F_RESP)) && !(flags & MRC_F_RDMA)))
			return MRC_HDR_BAD_FLAGS;
		kind = flags & (MRC_F_REPORT | MRC_F_IMM | MRC_F_READ |
				MRC_F_RESP);
		if ((flags & (MRC_F_READ | MRC_F_RESP)) && (kind & (kind - 1)))
			return MRC_HDR_BAD_FLAGS;
		if (!d->ack_lost_ev && d->ack_lost_seq)
			return MRC_HDR_BAD_FIELD;
		if (flags & MRC_F_STATUS) {
			const struct mrc_op_status *st = data + hlen;

			if (plen != len - hlen || plen != sizeof(*st))
				return MRC_HDR_BAD_LEN;
			if (d->msg_id || d->msg_len || d->offset ||
			    st->status >= __MRC_OP_MAX || st->reserved[0] ||
			    st->reserved[1] || st->reserved[2])
				return MRC_HDR_BAD_FIELD;
			break;
		}
		if (flags & MRC_F_RDMA) {
			const struct mrc_rdma_ext *x = data + hlen;
			unsigned int xlen = flags & MRC_F_IMM ?
					    MRC_RDMA_IMM_HDR_LEN :
					    MRC_RDMA_HDR_LEN;
			u64 roff;

			if (len < xlen)
				return MRC_HDR_SHORT;
			if (plen != len - xlen)
				return MRC_HDR_BAD_LEN;
			if (d->msg_id || d->msg_len)
				return MRC_HDR_BAD_FIELD;
			if ((flags & MRC_F_IMM) &&
			    ((const struct mrc_imm_ext *)(x + 1))->reserved)
				return MRC_HDR_BAD_FIELD;
			if ((flags & MRC_F_RESP) && (x->rkey || x->roffset))
				return MRC_HDR_BAD_FIELD;
			/* a request: no payload, its bytes inside 64-bit
			 * offsets
			 */
			if (flags & MRC_F_READ) {
				roff = be64_to_cpu(x->roffset);
				if (plen || off ||
				    roff + be32_to_cpu(x->op_len) < roff)
					return MRC_HDR_BAD_LEN;
				break;
			}
			/* a piece lies inside its operation and its bytes
			 * inside 64-bit offsets; an empty operation is one
			 * empty piece
			 */
			msg_len = be32_to_cpu(x->op_len);
			roff = be64_to_cpu(x->roffset);
			if ((!plen && msg_len) || (u64)off + plen > msg_len ||
			    roff + plen < roff)
				return MRC_HDR_BAD_LEN;
			/* the immediate comes with the last piece only */
			if ((flags & MRC_F_IMM) && off + plen != msg_len)
				return MRC_HDR_BAD_FLAGS;
			break;
		}
		if (plen != len - hlen)
			return MRC_HDR_BAD_LEN;
		if (flags & MRC_F_FIN) {
			if (plen || msg_len || off)
				return MRC_HDR_BAD_LEN;
			break;
		}
		if (msg_len > max_msg)
			return MRC_HDR_TOO_BIG;
		/* a piece is not empty (an empty message is one empty piece)
		 * and lies inside its message; no u32 overflow: both <= 2^32
		 */
		if ((!plen && msg_len) || (u64)off + plen > msg_len)
			return MRC_HDR_BAD_LEN;
		break;
	}
	case MRC_PKT_ACK: {
		const struct mrc_ack_hdr *a = data;
		const struct mrc_ack_echo *e;
		unsigned int i;

		if (flags & ~(MRC_F_CE | MRC_F_PROBE | MRC_F_DROP))
			return MRC_HDR_BAD_FLAGS;
		/* a probe's answer echoes the probe, not a dropped packet */
		if ((flags & MRC_F_PROBE) && (flags & MRC_F_DROP))
			return MRC_HDR_BAD_FLAGS;
		if (a->sack_words > MRC_SACK_EXTRA_WORDS ||
		    a->nr_echo > MRC_ACK_ECHOES)
			return MRC_HDR_BAD_FIELD;
		if (len != mrc_ack_len(a->sack_words, a->nr_echo))
			return MRC_HDR_BAD_LEN;
		e = data + len - a->nr_echo * sizeof(*e);
		for (i = 0; i < a->nr_echo; i++)
			if (be16_to_cpu(e[i].flags) & ~MRC_ECHO_F_KNOWN)
				return MRC_HDR_BAD_FLAGS;
		break;
	}
	case MRC_PKT_SYN:
	case MRC_PKT_SYNACK:
	case MRC_PKT_CONFIRM: {
		const struct mrc_syn_hdr *s = data;

		if (flags)
			return MRC_HDR_BAD_FLAGS;
		if (len != hlen)
			return MRC_HDR_BAD_LEN;
		if (s->reserved)
			return MRC_HDR_BAD_FIELD;
		if (!s->src_port || !s->dst_port || !s->udp_port)
			return MRC_HDR_BAD_FIELD;
		if ((h->type == MRC_PKT_SYN && s->echo_tsval) || !s->max_msg)
			return MRC_HDR_BAD_FIELD;
		break;
	}
	case MRC_PKT_RST:
	case MRC_PKT_PROBE: {
		const struct mrc_probe_hdr *p = data;

		if (flags & ~(h->type == MRC_PKT_RST ? MRC_F_REFUSED : 0))
			return MRC_HDR_BAD_FLAGS;
		if (len != hlen)
			return MRC_HDR_BAD_LEN;
		if (p->reserved)
			return MRC_HDR_BAD_FIELD;
		break;
	}
	}
	return MRC_HDR_OK;
}

#endif /* _NET_MRC_WIRE_H */
