// SPDX-License-Identifier: GPL-2.0
/* KUnit suite for validation of mrc's wire headers (mrc_hdr_check()). */
#include <kunit/test.h>

#include "wire.h"

#define MAX_MSG	BIT(20)

/* A well-formed packet of @type; DATA carries @plen payload bytes. */
static unsigned int mrc_pkt_build(u8 *buf, u8 type, u16 plen)
{
	struct mrc_hdr *h = (struct mrc_hdr *)buf;
	unsigned int hlen = mrc_hdr_len(type);

	memset(buf, 0, 128);
	h->version = MRC_WIRE_VERSION;
	h->type = type;
	h->dst_cid = type == MRC_PKT_SYN ? 0 : cpu_to_be32(0x12345678);
	h->src_cid = cpu_to_be32(0x9abcdef0);
	switch (type) {
	case MRC_PKT_DATA: {
		struct mrc_data_hdr *d = (struct mrc_data_hdr *)buf;

		d->msg_len = cpu_to_be32(1000);
		d->offset = cpu_to_be32(100);
		d->len = cpu_to_be16(plen);
		return hlen + plen;
	}
	case MRC_PKT_SYN:
	case MRC_PKT_SYNACK:
	case MRC_PKT_CONFIRM: {
		struct mrc_syn_hdr *s = (struct mrc_syn_hdr *)buf;

		s->src_port = cpu_to_be16(1000);
		s->dst_port = cpu_to_be16(2000);
		s->udp_port = cpu_to_be16(4797);
		s->max_msg = cpu_to_be32(MAX_MSG);
		if (type != MRC_PKT_SYN)
			s->echo_tsval = cpu_to_be32(7);
		break;
	}
	}
	return hlen;
}

static void mrc_hdr_accepts_every_type(struct kunit *test)
{
	u8 buf[128];
	unsigned int len;
	u8 type;

	for (type = MRC_PKT_DATA; type < __MRC_PKT_MAX; type++) {
		len = mrc_pkt_build(buf, type, 16);
		KUNIT_EXPECT_EQ_MSG(test, mrc_hdr_check(buf, len, MAX_MSG),
				    MRC_HDR_OK, "type %u", type);
	}
}

static void mrc_hdr_rejects_short(struct kunit *test)
{
	u8 buf[128];
	unsigned int len, full;
	u8 type;

	for (type = MRC_PKT_DATA; type < __MRC_PKT_MAX; type++) {
		full = mrc_hdr_len(type);
		mrc_pkt_build(buf, type, 0);
		for (len = 0; len < full; len++)
			KUNIT_EXPECT_EQ_MSG(test,
					    mrc_hdr_check(buf, len, MAX_MSG),
					    MRC_HDR_SHORT, "type %u len %u",
					    type, len);
	}
}

static void mrc_hdr_rejects_version(struct kunit *test)
{
	static const u8 bad[] = { 0, MRC_WIRE_VERSION + 1, 0xff };
	u8 buf[128];
	unsigned int len, i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		len = mrc_pkt_build(buf, MRC_PKT_ACK, 0);
		buf[0] = bad[i];
		KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
				MRC_HDR_BAD_VERSION);
	}
}

static void mrc_hdr_rejects_type(struct kunit *test)
{
	static const u8 bad[] = { 0, __MRC_PKT_MAX, 0xff };
	u8 buf[128];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		mrc_pkt_build(buf, MRC_PKT_ACK, 0);
		buf[1] = bad[i];
		KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, 64, MAX_MSG),
				MRC_HDR_BAD_TYPE);
	}
}

static void mrc_hdr_rejects_flags(struct kunit *test)
{
	struct mrc_hdr *h;
	u8 buf[128];
	unsigned int len;

	/* a flag nobody defined */
	len = mrc_pkt_build(buf, MRC_PKT_DATA, 8);
	h = (struct mrc_hdr *)buf;
	h->flags = cpu_to_be16(0x8000);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
	/* CE belongs on ACKs, FIN on data */
	h->flags = cpu_to_be16(MRC_F_CE);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
	len = mrc_pkt_build(buf, MRC_PKT_ACK, 0);
	h->flags = cpu_to_be16(MRC_F_FIN);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
	h->flags = cpu_to_be16(MRC_F_CE);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);
	/* REFUSED only on RST */
	len = mrc_pkt_build(buf, MRC_PKT_PROBE, 0);
	h->flags = cpu_to_be16(MRC_F_REFUSED);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
	len = mrc_pkt_build(buf, MRC_PKT_RST, 0);
	h->flags = cpu_to_be16(MRC_F_REFUSED);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);
}

static void mrc_hdr_rejects_cids(struct kunit *test)
{
	struct mrc_hdr *h = NULL;
	u8 buf[128];
	unsigned int len;

	len = mrc_pkt_build(buf, MRC_PKT_ACK, 0);
	h = (struct mrc_hdr *)buf;
	h->dst_cid = 0;
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_CID);
	len = mrc_pkt_build(buf, MRC_PKT_ACK, 0);
	h->src_cid = 0;
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_CID);
	/* a SYN names no receiver connection yet */
	len = mrc_pkt_build(buf, MRC_PKT_SYN, 0);
	h->dst_cid = cpu_to_be32(1);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_CID);
	/* a refusal answers a SYN: it may not know the sender's id */
	len = mrc_pkt_build(buf, MRC_PKT_RST, 0);
	h->src_cid = 0;
	h->flags = cpu_to_be16(MRC_F_REFUSED);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);
}

/* Length fields that lie about the datagram or the message. */
static void mrc_hdr_rejects_lying_lengths(struct kunit *test)
{
	struct mrc_data_hdr *d;
	u8 buf[128];
	unsigned int len;

	len = mrc_pkt_build(buf, MRC_PKT_DATA, 16);
	d = (struct mrc_data_hdr *)buf;
	/* payload length says more, or less, than the datagram holds */
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len - 1, MAX_MSG),
			MRC_HDR_BAD_LEN);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len + 1, MAX_MSG),
			MRC_HDR_BAD_LEN);
	/* piece beyond its message's end */
	d->offset = cpu_to_be32(1000 - 15);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_LEN);
	d->offset = cpu_to_be32(1000 - 16);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);
	/* offset near 2^32: no wrap-around into the message */
	d->offset = cpu_to_be32(0xfffffff8);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_LEN);
	/* an empty piece of a non-empty message */
	len = mrc_pkt_build(buf, MRC_PKT_DATA, 0);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_LEN);
	/* ...but an empty message is one empty piece */
	d->msg_len = 0;
	d->offset = 0;
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);
	/* control packets have a fixed size */
	len = mrc_pkt_build(buf, MRC_PKT_ACK, 0);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len + 4, MAX_MSG),
			MRC_HDR_BAD_LEN);
}

static void mrc_hdr_rejects_huge_message(struct kunit *test)
{
	struct mrc_data_hdr *d;
	u8 buf[128];
	unsigned int len;

	len = mrc_pkt_build(buf, MRC_PKT_DATA, 16);
	d = (struct mrc_data_hdr *)buf;
	d->msg_len = cpu_to_be32(0xffffffff);	/* a 4 GiB message */
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_TOO_BIG);
	d->msg_len = cpu_to_be32(MAX_MSG + 1);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_TOO_BIG);
	d->msg_len = cpu_to_be32(MAX_MSG);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);
}

static void mrc_hdr_checks_fin(struct kunit *test)
{
	struct mrc_data_hdr *d;
	u8 buf[128];
	unsigned int len;

	len = mrc_pkt_build(buf, MRC_PKT_DATA, 0);
	d = (struct mrc_data_hdr *)buf;
	d->common.flags = cpu_to_be16(MRC_F_FIN);
	d->msg_len = 0;
	d->offset = 0;
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);
	/* a FIN carries nothing */
	d->offset = cpu_to_be32(1);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_LEN);
}

static void mrc_hdr_rejects_reserved(struct kunit *test)
{
	struct mrc_probe_hdr *p;
	struct mrc_syn_hdr *s;
	struct mrc_ack_hdr *a;
	u8 buf[128];
	unsigned int len;
	u8 type;

	/* the ACK's last 16-bit field is its sequence now, any value */
	len = mrc_pkt_build(buf, MRC_PKT_ACK, 0);
	a = (struct mrc_ack_hdr *)buf;
	a->ack_seq = cpu_to_be16(0xffff);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);
	for (type = MRC_PKT_SYN; type < __MRC_PKT_MAX; type++) {
		if (mrc_hdr_len(type) != sizeof(*s))
			continue;
		len = mrc_pkt_build(buf, type, 0);
		s = (struct mrc_syn_hdr *)buf;
		s->dst_port = 0;
		KUNIT_EXPECT_EQ_MSG(test, mrc_hdr_check(buf, len, MAX_MSG),
				    MRC_HDR_BAD_FIELD, "type %u", type);
		len = mrc_pkt_build(buf, type, 0);
		s->reserved = cpu_to_be16(1);
		KUNIT_EXPECT_EQ_MSG(test, mrc_hdr_check(buf, len, MAX_MSG),
				    MRC_HDR_BAD_FIELD, "type %u", type);
		/* every side of the handshake says what it accepts */
		len = mrc_pkt_build(buf, type, 0);
		s->max_msg = 0;
		KUNIT_EXPECT_EQ_MSG(test, mrc_hdr_check(buf, len, MAX_MSG),
				    MRC_HDR_BAD_FIELD, "type %u", type);
	}
	/* a SYN echoes nothing */
	len = mrc_pkt_build(buf, MRC_PKT_SYN, 0);
	s->echo_tsval = cpu_to_be32(1);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FIELD);
	/* a CONFIRM carries the cookie's id back */
	len = mrc_pkt_build(buf, MRC_PKT_CONFIRM, 0);
	s->common.dst_cid = 0;
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_CID);
	len = mrc_pkt_build(buf, MRC_PKT_PROBE, 0);
	p = (struct mrc_probe_hdr *)buf;
	p->reserved = cpu_to_be16(1);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FIELD);
}

/* The header is read in place from the packet: it must never read past
 * the length it is given.  Buffers of exactly that size, whose end KASAN
 * watches, for every length up to a full data header.
 */
/* Check the first 0 to @max bytes of @full, each from a buffer of
 * exactly that size: KASAN reports a read past the length.
 */
static void mrc_hdr_check_each_len(struct kunit *test, const u8 *full,
				   unsigned int max)
{
	unsigned int len;
	u8 *buf;

	for (len = 0; len <= max; len++) {
		buf = kunit_kmalloc(test, len ? len : 1, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
		memcpy(buf, full, len);
		mrc_hdr_check(buf, len, MAX_MSG);
		kunit_kfree(test, buf);
	}
}

static void mrc_hdr_reads_within_len(struct kunit *test)
{
	u8 full[128];
	unsigned int max;
	u8 type;

	for (type = 0; type <= __MRC_PKT_MAX; type++) {
		max = mrc_pkt_build(full, type, 4);
		if (!max)
			max = sizeof(struct mrc_data_hdr);
		mrc_hdr_check_each_len(test, full, max);
	}
}

/* A v3 ACK with @words extra SACK words and @echoes extra echoes. */
static unsigned int mrc_ack_build(u8 *buf, unsigned int words,
				  unsigned int echoes)
{
	struct mrc_ack_hdr *a = (struct mrc_ack_hdr *)buf;
	struct mrc_ack_echo *e;
	unsigned int i;

	memset(buf, 0, MRC_ACK_MAX_LEN + 64);
	mrc_pkt_build(buf, MRC_PKT_ACK, 0);
	a->sack_words = words;
	a->nr_echo = echoes;
	a->prev_ev = cpu_to_be16(49152);
	e = (struct mrc_ack_echo *)((__be32 *)(a + 1) + words);
	for (i = 0; i < echoes; i++) {
		e[i].psn = cpu_to_be32(100 + i);
		e[i].ev = cpu_to_be16(49153 + i);
		e[i].flags = cpu_to_be16(i & 1 ? MRC_ECHO_F_CE : 0);
	}
	return mrc_ack_len(words, echoes);
}

/* Wire version 3: an ACK's SACK words and echoes, its DROP flag, and the
 * lost ACK a DATA packet reports.
 */
static void mrc_hdr_checks_v3_fields(struct kunit *test)
{
	u8 buf[MRC_ACK_MAX_LEN + 64];
	struct mrc_ack_echo *e;
	struct mrc_data_hdr *d;
	struct mrc_hdr *h = (struct mrc_hdr *)buf;
	unsigned int len;

	len = mrc_ack_build(buf, MRC_SACK_EXTRA_WORDS, MRC_ACK_ECHOES);
	KUNIT_EXPECT_EQ(test, len, (unsigned int)MRC_ACK_MAX_LEN);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);
	len = mrc_ack_build(buf, 2, 3);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);
	/* the counts must match the datagram */
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len - 12, MAX_MSG),
			MRC_HDR_BAD_LEN);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len + 4, MAX_MSG),
			MRC_HDR_BAD_LEN);
	/* and stay within the limits */
	len = mrc_ack_build(buf, MRC_SACK_EXTRA_WORDS + 1, 0);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FIELD);
	len = mrc_ack_build(buf, 0, MRC_ACK_ECHOES + 1);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FIELD);
	/* an echo's flags: CE and DROP only */
	len = mrc_ack_build(buf, 1, 2);
	e = (struct mrc_ack_echo *)(buf + sizeof(struct mrc_ack_hdr) + 4);
	/* version 8: any wait passes here (the sender judges it against
	 * the time since the transmission left)
	 */
	((struct mrc_ack_hdr *)buf)->echo_wait_us = cpu_to_be32(U32_MAX);
	e[0].wait_us = cpu_to_be32(U32_MAX);
	e[1].wait_us = cpu_to_be32(1);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);
	e[1].flags = cpu_to_be16(MRC_ECHO_F_DROP);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);
	e[1].flags = cpu_to_be16(0x0004);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
	/* DROP on an ACK, not with PROBE, nor on other types */
	len = mrc_ack_build(buf, 0, 0);
	h->flags = cpu_to_be16(MRC_F_DROP);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);
	h->flags = cpu_to_be16(MRC_F_DROP | MRC_F_PROBE);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
	len = mrc_pkt_build(buf, MRC_PKT_PROBE, 0);
	h->flags = cpu_to_be16(MRC_F_DROP);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
	/* a lost ACK's sequence comes with its EV */
	len = mrc_pkt_build(buf, MRC_PKT_DATA, 8);
	d = (struct mrc_data_hdr *)buf;
	d->ack_lost_seq = cpu_to_be16(7);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FIELD);
	d->ack_lost_ev = cpu_to_be16(49152);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);
	d->ack_lost_seq = 0;
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);
}

/* An ACK's echoes are read from the end of the datagram: within @len for
 * every length, with KASAN watching the end of an exact-size buffer.
 */
static void mrc_hdr_reads_ack_within_len(struct kunit *test)
{
	u8 full[MRC_ACK_MAX_LEN + 64];
	unsigned int len, max;
	u8 *buf;

	max = mrc_ack_build(full, 3, 5);
	for (len = 0; len <= max + 4; len++) {
		buf = kunit_kmalloc(test, len ? len : 1, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
		memcpy(buf, full, len);
		KUNIT_EXPECT_EQ_MSG(test, mrc_hdr_check(buf, len, MAX_MSG) ==
				    MRC_HDR_OK, len == max, "len %u", len);
		kunit_kfree(test, buf);
	}
}

/* A WRITE's piece of @plen bytes at @off in an operation of @op_len,
 * placed at @roff.
 */
static unsigned int mrc_rdma_build(u8 *buf, u16 plen, u32 off, u32 op_len,
				   u64 roff)
{
	struct mrc_data_hdr *d = (struct mrc_data_hdr *)buf;
	struct mrc_rdma_ext *x = (struct mrc_rdma_ext *)(d + 1);

	mrc_pkt_build(buf, MRC_PKT_DATA, plen);
	d->common.flags = cpu_to_be16(MRC_F_RDMA);
	d->msg_len = 0;
	d->offset = cpu_to_be32(off);
	x->rkey = cpu_to_be64(0x0123456789ab0001ULL);
	x->roffset = cpu_to_be64(roff);
	x->op_id = cpu_to_be32(1);
	x->op_len = cpu_to_be32(op_len);
	return MRC_RDMA_HDR_LEN + plen;
}

/* A WRITE's piece (MRC_F_RDMA): its extension, its place in the
 * operation, 64-bit offsets that do not wrap, no message fields.
 */
static void mrc_hdr_checks_rdma(struct kunit *test)
{
	struct mrc_data_hdr *d;
	unsigned int len, n;
	u8 buf[128];

	d = (struct mrc_data_hdr *)buf;
	len = mrc_rdma_build(buf, 16, 100, 200, 4096);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);
	/* larger than max_msg: a WRITE is not queued, max_msg is not its */
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, 8), MRC_HDR_OK);
	/* the last piece, an empty operation, the top of 64-bit offsets */
	len = mrc_rdma_build(buf, 16, 184, 200, 0);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);
	len = mrc_rdma_build(buf, 0, 0, 0, U64_MAX);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);
	len = mrc_rdma_build(buf, 16, 0, 16, U64_MAX - 16);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);

	/* cut inside the extension */
	mrc_rdma_build(buf, 0, 0, 0, 0);
	for (n = sizeof(*d); n < MRC_RDMA_HDR_LEN; n++)
		KUNIT_EXPECT_EQ_MSG(test, mrc_hdr_check(buf, n, MAX_MSG),
				    MRC_HDR_SHORT, "len %u", n);
	/* bytes that wrap past 2^64, or lie outside the operation */
	len = mrc_rdma_build(buf, 16, 0, 16, U64_MAX - 15);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_LEN);
	len = mrc_rdma_build(buf, 16, 185, 200, 0);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_LEN);
	len = mrc_rdma_build(buf, 16, U32_MAX, 200, 0);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_LEN);
	len = mrc_rdma_build(buf, 0, 0, 200, 0);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_LEN);
	/* the length field counts the payload after the extension */
	len = mrc_rdma_build(buf, 16, 0, 200, 0);
	d->len = cpu_to_be16(16 + sizeof(struct mrc_rdma_ext));
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_LEN);
	/* a message's fields, a FIN */
	len = mrc_rdma_build(buf, 16, 0, 200, 0);
	d->msg_id = cpu_to_be32(1);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FIELD);
	len = mrc_rdma_build(buf, 16, 0, 200, 0);
	d->msg_len = cpu_to_be32(200);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FIELD);
	len = mrc_rdma_build(buf, 0, 0, 0, 0);
	d->common.flags = cpu_to_be16(MRC_F_RDMA | MRC_F_FIN);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
	/* only DATA carries it */
	len = mrc_pkt_build(buf, MRC_PKT_ACK, 0);
	d->common.flags = cpu_to_be16(MRC_F_RDMA);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
	len = mrc_pkt_build(buf, MRC_PKT_PROBE, 0);
	d->common.flags = cpu_to_be16(MRC_F_RDMA);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
}

/* A WRITE's piece is read only within its length. */
static void mrc_hdr_reads_rdma_within_len(struct kunit *test)
{
	u8 full[128];

	mrc_hdr_check_each_len(test, full, mrc_rdma_build(full, 8, 0, 8, 0));
}

/* An operation's status record for @op_id (MRC_F_STATUS). */
static unsigned int mrc_status_build(u8 *buf, u32 op_id, u8 status)
{
	struct mrc_data_hdr *d = (struct mrc_data_hdr *)buf;
	struct mrc_op_status *st = (struct mrc_op_status *)(d + 1);

	mrc_pkt_build(buf, MRC_PKT_DATA, sizeof(*st));
	d->common.flags = cpu_to_be16(MRC_F_STATUS);
	d->msg_len = 0;
	d->offset = 0;
	memset(st, 0, sizeof(*st));
	st->op_id = cpu_to_be32(op_id);
	st->status = status;
	return sizeof(*d) + sizeof(*st);
}

/* A status record: 8 bytes, a known status, no message fields, of one
 * kind; MRC_F_REPORT only on a WRITE's piece.
 */
static void mrc_hdr_checks_status(struct kunit *test)
{
	u8 buf[128];
	struct mrc_data_hdr *d = (struct mrc_data_hdr *)buf;
	struct mrc_op_status *st = (struct mrc_op_status *)(d + 1);
	unsigned int len, n;
	u8 status;

	for (status = 0; status < __MRC_OP_MAX; status++) {
		len = mrc_status_build(buf, U32_MAX, status);
		KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
				MRC_HDR_OK);
	}
	len = mrc_status_build(buf, 1, __MRC_OP_MAX);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FIELD);
	len = mrc_status_build(buf, 1, 0);
	st->reserved[2] = 1;
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FIELD);
	len = mrc_status_build(buf, 1, 0);
	d->offset = cpu_to_be32(8);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FIELD);
	len = mrc_status_build(buf, 1, 0);
	d->msg_id = cpu_to_be32(3);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FIELD);
	/* 8 bytes exactly, and said so */
	for (n = sizeof(*d); n < len; n++)
		KUNIT_EXPECT_EQ_MSG(test, mrc_hdr_check(buf, n, MAX_MSG),
				    MRC_HDR_BAD_LEN, "len %u", n);
	mrc_pkt_build(buf, MRC_PKT_DATA, 16);
	d->common.flags = cpu_to_be16(MRC_F_STATUS);
	d->msg_len = 0;
	d->offset = 0;
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, sizeof(*d) + 16, MAX_MSG),
			MRC_HDR_BAD_LEN);
	/* of one kind; a report is asked for by a WRITE's piece only */
	len = mrc_status_build(buf, 1, 0);
	d->common.flags = cpu_to_be16(MRC_F_STATUS | MRC_F_FIN);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
	d->common.flags = cpu_to_be16(MRC_F_STATUS | MRC_F_RDMA);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
	d->common.flags = cpu_to_be16(MRC_F_STATUS | MRC_F_REPORT);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
	len = mrc_pkt_build(buf, MRC_PKT_DATA, 16);
	d->common.flags = cpu_to_be16(MRC_F_REPORT);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
	len = mrc_rdma_build(buf, 16, 184, 200, 0);
	d->common.flags = cpu_to_be16(MRC_F_RDMA | MRC_F_REPORT);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);
	len = mrc_pkt_build(buf, MRC_PKT_ACK, 0);
	d->common.flags = cpu_to_be16(MRC_F_STATUS);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
}

/* A status record is read only within its length. */
static void mrc_hdr_reads_status_within_len(struct kunit *test)
{
	u8 full[128];

	mrc_hdr_check_each_len(test, full, mrc_status_build(full, 7, 2));
}

/* The last piece of a WRITE with immediate @imm: @plen bytes at @off in
 * an operation of @op_len.
 */
static unsigned int mrc_imm_build(u8 *buf, u16 plen, u32 off, u32 op_len,
				  u32 imm)
{
	struct mrc_data_hdr *d = (struct mrc_data_hdr *)buf;
	struct mrc_imm_ext *ie;

	mrc_rdma_build(buf, plen, off, op_len, 4096);
	d->common.flags = cpu_to_be16(MRC_F_RDMA | MRC_F_IMM);
	ie = (struct mrc_imm_ext *)(buf + MRC_RDMA_HDR_LEN);
	ie->imm = cpu_to_be32(imm);
	ie->reserved = 0;
	return MRC_RDMA_IMM_HDR_LEN + plen;
}

/* A WRITE's immediate (MRC_F_IMM): after the extension, on the last piece
 * only, its reserved word zero, with MRC_F_RDMA only.
 */
static void mrc_hdr_checks_imm(struct kunit *test)
{
	struct mrc_data_hdr *d;
	struct mrc_imm_ext *ie;
	unsigned int len, n;
	u8 buf[128];

	d = (struct mrc_data_hdr *)buf;
	ie = (struct mrc_imm_ext *)(buf + MRC_RDMA_HDR_LEN);
	len = mrc_imm_build(buf, 16, 184, 200, 0xcafe);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);
	len = mrc_imm_build(buf, 0, 0, 0, 1);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);
	d->common.flags = cpu_to_be16(MRC_F_RDMA | MRC_F_IMM | MRC_F_REPORT);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG), MRC_HDR_OK);
	/* a piece that does not end its operation */
	len = mrc_imm_build(buf, 16, 100, 200, 1);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
	/* cut inside the immediate; the length counts after it */
	mrc_imm_build(buf, 0, 0, 0, 1);
	for (n = MRC_RDMA_HDR_LEN; n < MRC_RDMA_IMM_HDR_LEN; n++)
		KUNIT_EXPECT_EQ_MSG(test, mrc_hdr_check(buf, n, MAX_MSG),
				    MRC_HDR_SHORT, "len %u", n);
	len = mrc_imm_build(buf, 16, 184, 200, 1);
	d->len = cpu_to_be16(16 + sizeof(*ie));
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_LEN);
	len = mrc_imm_build(buf, 16, 184, 200, 1);
	ie->reserved = cpu_to_be32(1);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FIELD);
	/* only a WRITE's piece carries one */
	len = mrc_pkt_build(buf, MRC_PKT_DATA, 16);
	d->common.flags = cpu_to_be16(MRC_F_IMM);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
	len = mrc_status_build(buf, 1, 0);
	d->common.flags = cpu_to_be16(MRC_F_STATUS | MRC_F_IMM);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
}

/* A WRITE's immediate is read only within its length. */
static void mrc_hdr_reads_imm_within_len(struct kunit *test)
{
	u8 full[128];

	mrc_hdr_check_each_len(test, full, mrc_imm_build(full, 8, 0, 8, 3));
}

/* A READ request: @op_len bytes from @roff of the receiver's region. */
static unsigned int mrc_read_build(u8 *buf, u32 op_len, u64 roff)
{
	struct mrc_data_hdr *d = (struct mrc_data_hdr *)buf;
	unsigned int len = mrc_rdma_build(buf, 0, 0, op_len, roff);

	d->common.flags = cpu_to_be16(MRC_F_RDMA | MRC_F_READ);
	return len;
}

/* A piece of a READ's response: @plen bytes at @off of @op_len. */
static unsigned int mrc_resp_build(u8 *buf, u16 plen, u32 off, u32 op_len)
{
	struct mrc_data_hdr *d = (struct mrc_data_hdr *)buf;
	struct mrc_rdma_ext *x = (struct mrc_rdma_ext *)(d + 1);
	unsigned int len = mrc_rdma_build(buf, plen, off, op_len, 0);

	d->common.flags = cpu_to_be16(MRC_F_RDMA | MRC_F_RESP);
	x->rkey = 0;
	return len;
}

static void mrc_hdr_checks_read(struct kunit *test)
{
	u8 buf_read[128];
	struct mrc_data_hdr *d = (struct mrc_data_hdr *)buf_read;
	unsigned int len;

	len = mrc_read_build(buf_read, 1U << 30, 4096);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf_read, len, MAX_MSG),
			MRC_HDR_OK);
	len = mrc_read_build(buf_read, 0, 0);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf_read, len, MAX_MSG),
			MRC_HDR_OK);
	/* its bytes wrap around 2^64 */
	len = mrc_read_build(buf_read, 2, ~0ULL);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf_read, len, MAX_MSG),
			MRC_HDR_BAD_LEN);
	len = mrc_read_build(buf_read, 1, ~0ULL);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf_read, len, MAX_MSG),
			MRC_HDR_BAD_LEN);
	len = mrc_read_build(buf_read, 1, ~0ULL - 1);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf_read, len, MAX_MSG),
			MRC_HDR_OK);
	/* a request carries no bytes and starts at 0 */
	len = mrc_rdma_build(buf_read, 16, 0, 16, 0);
	d->common.flags = cpu_to_be16(MRC_F_RDMA | MRC_F_READ);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf_read, len, MAX_MSG),
			MRC_HDR_BAD_LEN);
	len = mrc_read_build(buf_read, 16, 0);
	d->offset = cpu_to_be32(4);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf_read, len, MAX_MSG),
			MRC_HDR_BAD_LEN);
	/* of one kind: not with a report, an immediate or a response */
	len = mrc_read_build(buf_read, 16, 0);
	d->common.flags = cpu_to_be16(MRC_F_RDMA | MRC_F_READ | MRC_F_REPORT);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf_read, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
	d->common.flags = cpu_to_be16(MRC_F_RDMA | MRC_F_READ | MRC_F_RESP);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf_read, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
	/* a one-sided packet's only */
	d->common.flags = cpu_to_be16(MRC_F_READ);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf_read, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
	d->common.flags = cpu_to_be16(MRC_F_STATUS | MRC_F_READ);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf_read, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
}

static void mrc_hdr_checks_resp(struct kunit *test)
{
	u8 buf_read[128];
	struct mrc_data_hdr *d = (struct mrc_data_hdr *)buf_read;
	struct mrc_rdma_ext *x = (struct mrc_rdma_ext *)(d + 1);
	unsigned int len;

	len = mrc_resp_build(buf_read, 16, 184, 200);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf_read, len, MAX_MSG),
			MRC_HDR_OK);
	len = mrc_resp_build(buf_read, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf_read, len, MAX_MSG),
			MRC_HDR_OK);
	/* inside its READ, not empty unless the READ is */
	len = mrc_resp_build(buf_read, 16, 190, 200);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf_read, len, MAX_MSG),
			MRC_HDR_BAD_LEN);
	len = mrc_resp_build(buf_read, 0, 0, 200);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf_read, len, MAX_MSG),
			MRC_HDR_BAD_LEN);
	/* no key and no offset: the requester knows where it goes */
	len = mrc_resp_build(buf_read, 16, 0, 200);
	x->rkey = cpu_to_be64(1);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf_read, len, MAX_MSG),
			MRC_HDR_BAD_FIELD);
	len = mrc_resp_build(buf_read, 16, 0, 200);
	x->roffset = cpu_to_be64(16);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf_read, len, MAX_MSG),
			MRC_HDR_BAD_FIELD);
	len = mrc_resp_build(buf_read, 16, 184, 200);
	d->common.flags = cpu_to_be16(MRC_F_RDMA | MRC_F_RESP | MRC_F_IMM);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf_read, len, MAX_MSG),
			MRC_HDR_BAD_FLAGS);
}

static void mrc_hdr_reads_read_within_len(struct kunit *test)
{
	u8 full[128];

	mrc_hdr_check_each_len(test, full, mrc_read_build(full, 8, 0));
	mrc_hdr_check_each_len(test, full, mrc_resp_build(full, 8, 0, 8));
}

static struct kunit_case mrc_wire_cases[] = {
	KUNIT_CASE(mrc_hdr_accepts_every_type),
	KUNIT_CASE(mrc_hdr_rejects_short),
	KUNIT_CASE(mrc_hdr_rejects_version),
	KUNIT_CASE(mrc_hdr_rejects_type),
	KUNIT_CASE(mrc_hdr_rejects_flags),
	KUNIT_CASE(mrc_hdr_rejects_cids),
	KUNIT_CASE(mrc_hdr_rejects_lying_lengths),
	KUNIT_CASE(mrc_hdr_rejects_huge_message),
	KUNIT_CASE(mrc_hdr_checks_fin),
	KUNIT_CASE(mrc_hdr_rejects_reserved),
	KUNIT_CASE(mrc_hdr_reads_within_len),
	KUNIT_CASE(mrc_hdr_checks_v3_fields),
	KUNIT_CASE(mrc_hdr_reads_ack_within_len),
	KUNIT_CASE(mrc_hdr_checks_rdma),
	KUNIT_CASE(mrc_hdr_reads_rdma_within_len),
	KUNIT_CASE(mrc_hdr_checks_status),
	KUNIT_CASE(mrc_hdr_reads_status_within_len),
	KUNIT_CASE(mrc_hdr_checks_imm),
	KUNIT_CASE(mrc_hdr_reads_imm_within_len),
	KUNIT_CASE(mrc_hdr_checks_read),
	KUNIT_CASE(mrc_hdr_checks_resp),
	KUNIT_CASE(mrc_hdr_reads_read_within_len),
	{}
};

static struct kunit_suite mrc_wire_suite = {
	.name = "mrc_wire",
	.test_cases = mrc_wire_cases,
};

kunit_test_suite(mrc_wire_suite);
