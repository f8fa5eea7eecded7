// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness for mrc's packet header validation, mrc_hdr_check(),
 * built from the very header the module compiles (net/mrc/wire.h).
 *
 * Input: one selector byte, then the datagram (the mrc payload after the
 * UDP header).  The selector picks the receiver's max_msg.  The datagram
 * is copied into a heap buffer of exactly its size, so AddressSanitizer
 * reports any read past the length; a second call gets only the bytes
 * the kernel guarantees to be linear (the common header and the type's
 * header), so a read of the payload is caught too.
 *
 * The verdict is checked against a reference model written here from the
 * wire layout and the validation order in mrc.rst, byte offset by byte
 * offset, without the structs of wire.h: the parser accepts exactly the
 * packets the model accepts, and every rejection names the reason the
 * model finds first.  A violation abort()s.
 *
 * -DMRC_FUZZ_SELFTEST=1 reads one byte past the datagram of an accepted
 * DATA packet whose payload does not start with 'a' (the seeds' payload
 * does); -DMRC_FUZZ_SELFTEST=2 makes the model forget that a PROBE's
 * reserved field must be zero.  Neither is in the seeds and both must be
 * found within seconds: they show the harness can find bugs at all.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../net/mrc/wire.h"

#ifndef MRC_FUZZ_SELFTEST
#define MRC_FUZZ_SELFTEST 0
#endif

/* Header sizes and field offsets, from the wire layout in mrc.rst. */
#define REF_COMMON_LEN	12
#define REF_DATA_LEN	40
#define REF_ACK_LEN	52
#define REF_ACK_WORD	4	/* an extra SACK word */
#define REF_ACK_ECHO	16	/* an extra echo */
#define REF_ACK_MAX_LEN	(REF_ACK_LEN + 6 * REF_ACK_WORD + 16 * REF_ACK_ECHO)
#define REF_RDMA_LEN	(REF_DATA_LEN + 24)	/* DATA with its RDMA extension */
#define REF_STATUS_LEN	(REF_DATA_LEN + 8)	/* DATA with a status record */
#define REF_RDMA_IMM_LEN (REF_RDMA_LEN + 8)	/* and with its immediate */
#define REF_SYN_LEN	40
#define REF_PROBE_LEN	24

#define REF_OFF_VERSION		0
#define REF_OFF_TYPE		1
#define REF_OFF_FLAGS		2
#define REF_OFF_DST_CID		4
#define REF_OFF_SRC_CID		8
#define REF_OFF_DATA_MSG_ID	16
#define REF_OFF_DATA_MSG_LEN	20
#define REF_OFF_DATA_OFFSET	24
#define REF_OFF_DATA_LEN	34
#define REF_OFF_DATA_ACK_LOST_SEQ	36
#define REF_OFF_DATA_ACK_LOST_EV	38
#define REF_OFF_RDMA_RKEY	40	/* after the DATA header */
#define REF_OFF_RDMA_ROFFSET	48
#define REF_OFF_RDMA_OP_LEN	60
#define REF_OFF_IMM_RESERVED	68	/* after the extension: imm, then */
#define REF_OFF_STATUS_OP_ID	40	/* after the DATA header: op_id, */
#define REF_OFF_STATUS_STATUS	44	/* status, 3 reserved bytes */
#define REF_OFF_ACK_SACK_WORDS	46
#define REF_OFF_ACK_NR_ECHO	47
#define REF_OFF_ACK_ECHO_WAIT	48	/* any value: the sender judges it */
#define REF_OFF_ECHO_FLAGS	10	/* in an echo */
#define REF_OFF_ECHO_WAIT	12	/* in an echo; any value */
#define REF_OFF_SYN_SRC_PORT	16
#define REF_OFF_SYN_DST_PORT	18
#define REF_OFF_SYN_UDP_PORT	20
#define REF_OFF_SYN_RESERVED	22
#define REF_OFF_SYN_ECHO_TSVAL	32
#define REF_OFF_SYN_MAX_MSG	36
#define REF_OFF_PROBE_RESERVED	18

/* Receiver limits the selector byte chooses from: the edges, the default
 * (MRC_DEFAULT_MAX_MSG_SIZE) and the largest allowed (MRC_MAX_MSG_SIZE_LIMIT).
 */
static const u32 max_msgs[] = {
	0, 1, 1000, 65535, 65536, 64U << 20, 1U << 30, 0xffffffffU,
};

#define BIT_V(v)	(1U << (v))
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

#if MRC_FUZZ_SELFTEST == 1
u8 mrc_fuzz_sink;	/* a load stored here is not optimised away */
#endif

static void fail(const char *what, const u8 *p, size_t len, u32 max_msg,
		 int verdict)
{
	size_t i;

	fprintf(stderr, "fuzz_wire: %s (len %zu max_msg %u verdict %d)\n",
		what, len, max_msg, verdict);
	for (i = 0; i < len && i < 64; i++)
		fprintf(stderr, "%02x%s", p[i], i % 16 == 15 ? "\n" : " ");
	fprintf(stderr, "\n");
	abort();
}

static u32 get16(const u8 *p, unsigned int off)
{
	return (u32)p[off] << 8 | p[off + 1];
}

static u32 get32(const u8 *p, unsigned int off)
{
	return (u32)p[off] << 24 | (u32)p[off + 1] << 16 |
	       (u32)p[off + 2] << 8 | p[off + 3];
}

static uint64_t get64(const u8 *p, unsigned int off)
{
	return (uint64_t)get32(p, off) << 32 | get32(p, off + 4);
}

static unsigned int ref_hdr_len(u8 type)
{
	switch (type) {
	case 1:	/* DATA */
		return REF_DATA_LEN;
	case 2:	/* ACK */
		return REF_ACK_LEN;
	case 3:	/* SYN */
	case 4:	/* SYNACK */
	case 7:	/* CONFIRM */
		return REF_SYN_LEN;
	case 5:	/* RST */
	case 6:	/* PROBE */
		return REF_PROBE_LEN;
	}
	return 0;
}

/* The flags each type may carry. */
static u32 ref_allowed_flags(u8 type)
{
	switch (type) {
	case 1:
		return 0x07e1;	/* FIN, RDMA, STATUS, REPORT, IMM, READ, RESP */
	case 2:
		return 0x001a;	/* CE, PROBE, DROP */
	case 5:
		return 0x0004;	/* REFUSED */
	}
	return 0;
}

/* Why the datagram must be dropped, as a mask of BIT_V(verdict); 0 when
 * it is well formed.  The checks come in the order mrc.rst ("Validation
 * and drops") documents; only the first step that fails counts, and in
 * its last step, the per-type fields, any of the reasons found may be
 * the verdict.
 */
static u32 ref_reasons(const u8 *p, size_t len, u32 max_msg)
{
	u32 flags, msg_len, off, plen, reasons = 0;
	unsigned int hlen;
	bool is_syn;
	u8 type;

	if (len < REF_COMMON_LEN)
		return BIT_V(MRC_HDR_SHORT);
	if (p[REF_OFF_VERSION] != 8)
		return BIT_V(MRC_HDR_BAD_VERSION);
	type = p[REF_OFF_TYPE];
	is_syn = type == 3;
	hlen = ref_hdr_len(type);
	if (!hlen)
		return BIT_V(MRC_HDR_BAD_TYPE);
	if (len < hlen)
		return BIT_V(MRC_HDR_SHORT);

	flags = get16(p, REF_OFF_FLAGS);
	if (flags & ~0x07ffU)
		return BIT_V(MRC_HDR_BAD_FLAGS);
	if (get32(p, REF_OFF_SRC_CID) == 0 &&
	    !(type == 5 && (flags & 0x0004)))
		return BIT_V(MRC_HDR_BAD_CID);
	/* dst_cid is zero in a SYN and only there */
	if (!get32(p, REF_OFF_DST_CID) != is_syn)
		return BIT_V(MRC_HDR_BAD_CID);
	if (flags & ~ref_allowed_flags(type))
		return BIT_V(MRC_HDR_BAD_FLAGS);

	switch (type) {
	case 1:
		msg_len = get32(p, REF_OFF_DATA_MSG_LEN);
		off = get32(p, REF_OFF_DATA_OFFSET);
		plen = get16(p, REF_OFF_DATA_LEN);
		/* no lost ACK reported: no sequence either */
		if (!get16(p, REF_OFF_DATA_ACK_LOST_EV) &&
		    get16(p, REF_OFF_DATA_ACK_LOST_SEQ))
			reasons |= BIT_V(MRC_HDR_BAD_FIELD);
		/* at most one of FIN, RDMA, STATUS; REPORT, IMM, READ and
		 * RESP only with RDMA, and READ and RESP alone of the four
		 */
		if (((flags & 0x0001) != 0) + ((flags & 0x0020) != 0) +
		    ((flags & 0x0040) != 0) > 1 ||
		    ((flags & 0x0780) && !(flags & 0x0020)) ||
		    ((flags & 0x0600) &&
		     ((flags & 0x0080) != 0) + ((flags & 0x0100) != 0) +
		     ((flags & 0x0200) != 0) + ((flags & 0x0400) != 0) > 1))
			reasons |= BIT_V(MRC_HDR_BAD_FLAGS);
		if (flags & 0x0040) {	/* a status record */
			if (len != REF_STATUS_LEN || plen != len - hlen) {
				reasons |= BIT_V(MRC_HDR_BAD_LEN);
				break;
			}
			if (get32(p, REF_OFF_DATA_MSG_ID) || msg_len || off ||
			    p[REF_OFF_STATUS_STATUS] > 3 ||
			    p[REF_OFF_STATUS_STATUS + 1] ||
			    p[REF_OFF_STATUS_STATUS + 2] ||
			    p[REF_OFF_STATUS_STATUS + 3])
				reasons |= BIT_V(MRC_HDR_BAD_FIELD);
			break;
		}
		if (flags & 0x0020) {	/* a WRITE's piece */
			unsigned int xlen = flags & 0x0100 ? REF_RDMA_IMM_LEN :
					    REF_RDMA_LEN;
			uint64_t roff;
			u32 op_len;

			if (len < xlen) {
				reasons |= BIT_V(MRC_HDR_SHORT);
				break;
			}
			if (plen != len - xlen)
				reasons |= BIT_V(MRC_HDR_BAD_LEN);
			if (get32(p, REF_OFF_DATA_MSG_ID) || msg_len)
				reasons |= BIT_V(MRC_HDR_BAD_FIELD);
			/* the immediate: reserved zero, on the last piece */
			if ((flags & 0x0100) && get32(p, REF_OFF_IMM_RESERVED))
				reasons |= BIT_V(MRC_HDR_BAD_FIELD);
			/* a READ's response: no key, no offset */
			if ((flags & 0x0400) && (get64(p, REF_OFF_RDMA_RKEY) ||
						 get64(p, REF_OFF_RDMA_ROFFSET)))
				reasons |= BIT_V(MRC_HDR_BAD_FIELD);
			op_len = get32(p, REF_OFF_RDMA_OP_LEN);
			roff = get64(p, REF_OFF_RDMA_ROFFSET);
			/* a READ request: empty, from 0, its range in 2^64 */
			if (flags & 0x0200) {
				if (plen || off || roff + op_len < roff)
					reasons |= BIT_V(MRC_HDR_BAD_LEN);
				break;
			}
			if ((plen == 0 && op_len != 0) ||
			    (uint64_t)off + plen > op_len ||
			    roff + plen < roff)
				reasons |= BIT_V(MRC_HDR_BAD_LEN);
			if ((flags & 0x0100) && (uint64_t)off + plen != op_len)
				reasons |= BIT_V(MRC_HDR_BAD_FLAGS);
			break;
		}
		if (plen != len - hlen)
			reasons |= BIT_V(MRC_HDR_BAD_LEN);
		if (flags & 0x0001) {
			if (plen || msg_len || off)
				reasons |= BIT_V(MRC_HDR_BAD_LEN);
			break;
		}
		if (msg_len > max_msg)
			reasons |= BIT_V(MRC_HDR_TOO_BIG);
		if (plen == 0 && msg_len != 0)
			reasons |= BIT_V(MRC_HDR_BAD_LEN);
		if ((uint64_t)off + plen > msg_len)
			reasons |= BIT_V(MRC_HDR_BAD_LEN);
		break;
	case 2: {
		unsigned int words = p[REF_OFF_ACK_SACK_WORDS];
		unsigned int echoes = p[REF_OFF_ACK_NR_ECHO], i;

		if ((flags & 0x0018) == 0x0018)	/* PROBE and DROP */
			reasons |= BIT_V(MRC_HDR_BAD_FLAGS);
		if (words > 6 || echoes > 16) {
			reasons |= BIT_V(MRC_HDR_BAD_FIELD);
			if (len != hlen + words * REF_ACK_WORD +
			    echoes * REF_ACK_ECHO)
				reasons |= BIT_V(MRC_HDR_BAD_LEN);
			break;
		}
		if (len != hlen + words * REF_ACK_WORD +
		    echoes * REF_ACK_ECHO) {
			reasons |= BIT_V(MRC_HDR_BAD_LEN);
			break;
		}
		/* the echoes are last: CE and DROP are their only flags */
		for (i = 0; i < echoes; i++)
			if (get16(p, len - (echoes - i) * REF_ACK_ECHO +
				  REF_OFF_ECHO_FLAGS) & ~0x0003U)
				reasons |= BIT_V(MRC_HDR_BAD_FLAGS);
		break;
	}
	case 3:
	case 4:
	case 7:
		if (len != hlen)
			reasons |= BIT_V(MRC_HDR_BAD_LEN);
		if (get16(p, REF_OFF_SYN_RESERVED) ||
		    !get16(p, REF_OFF_SYN_SRC_PORT) ||
		    !get16(p, REF_OFF_SYN_DST_PORT) ||
		    !get16(p, REF_OFF_SYN_UDP_PORT) ||
		    !get32(p, REF_OFF_SYN_MAX_MSG))
			reasons |= BIT_V(MRC_HDR_BAD_FIELD);
		/* a SYN echoes no timestamp */
		if (type == 3 && get32(p, REF_OFF_SYN_ECHO_TSVAL))
			reasons |= BIT_V(MRC_HDR_BAD_FIELD);
		break;
	case 5:
	case 6:
		if (len != hlen)
			reasons |= BIT_V(MRC_HDR_BAD_LEN);
		if (get16(p, REF_OFF_PROBE_RESERVED) &&
		    (type == 5 || MRC_FUZZ_SELFTEST != 2))
			reasons |= BIT_V(MRC_HDR_BAD_FIELD);
		break;
	}
	return reasons;
}

/* The structs of wire.h must sit at the offsets the model reads. */
static void ref_layout(void)
{
	mrc_wire_build_bug();
	BUILD_BUG_ON(MRC_WIRE_VERSION != 8);
	BUILD_BUG_ON(__MRC_PKT_MAX != 8);
	BUILD_BUG_ON(__MRC_HDR_MAX > 32);
	BUILD_BUG_ON(MRC_F_FIN != 0x0001 || MRC_F_CE != 0x0002 ||
		     MRC_F_REFUSED != 0x0004 || MRC_F_PROBE != 0x0008 ||
		     MRC_F_DROP != 0x0010 || MRC_F_RDMA != 0x0020 ||
		     MRC_F_STATUS != 0x0040 || MRC_F_REPORT != 0x0080 ||
		     MRC_F_IMM != 0x0100 || MRC_F_READ != 0x0200 ||
		     MRC_F_RESP != 0x0400);
	BUILD_BUG_ON(REF_DATA_LEN + offsetof(struct mrc_rdma_ext, rkey) !=
		     REF_OFF_RDMA_RKEY);
	BUILD_BUG_ON(MRC_RDMA_IMM_HDR_LEN != REF_RDMA_IMM_LEN);
	BUILD_BUG_ON(MRC_RDMA_HDR_LEN + offsetof(struct mrc_imm_ext, reserved) !=
		     REF_OFF_IMM_RESERVED);
	BUILD_BUG_ON(__MRC_OP_MAX != 4);
	BUILD_BUG_ON(REF_DATA_LEN + offsetof(struct mrc_op_status, op_id) !=
		     REF_OFF_STATUS_OP_ID);
	BUILD_BUG_ON(REF_DATA_LEN + offsetof(struct mrc_op_status, status) !=
		     REF_OFF_STATUS_STATUS);
	BUILD_BUG_ON(MRC_RDMA_HDR_LEN != REF_RDMA_LEN);
	BUILD_BUG_ON(REF_DATA_LEN + offsetof(struct mrc_rdma_ext, roffset) !=
		     REF_OFF_RDMA_ROFFSET);
	BUILD_BUG_ON(REF_DATA_LEN + offsetof(struct mrc_rdma_ext, op_len) !=
		     REF_OFF_RDMA_OP_LEN);
	BUILD_BUG_ON(offsetof(struct mrc_data_hdr, msg_id) !=
		     REF_OFF_DATA_MSG_ID);
	BUILD_BUG_ON(MRC_ECHO_F_CE != 0x0001 || MRC_ECHO_F_DROP != 0x0002);
	BUILD_BUG_ON(offsetof(struct mrc_data_hdr, ack_lost_seq) !=
		     REF_OFF_DATA_ACK_LOST_SEQ);
	BUILD_BUG_ON(offsetof(struct mrc_data_hdr, ack_lost_ev) !=
		     REF_OFF_DATA_ACK_LOST_EV);
	BUILD_BUG_ON(offsetof(struct mrc_ack_hdr, sack_words) !=
		     REF_OFF_ACK_SACK_WORDS);
	BUILD_BUG_ON(offsetof(struct mrc_ack_hdr, nr_echo) !=
		     REF_OFF_ACK_NR_ECHO);
	BUILD_BUG_ON(offsetof(struct mrc_ack_echo, flags) !=
		     REF_OFF_ECHO_FLAGS);
	BUILD_BUG_ON(offsetof(struct mrc_ack_hdr, echo_wait_us) !=
		     REF_OFF_ACK_ECHO_WAIT);
	BUILD_BUG_ON(offsetof(struct mrc_ack_echo, wait_us) !=
		     REF_OFF_ECHO_WAIT);
	BUILD_BUG_ON(sizeof(struct mrc_ack_echo) != REF_ACK_ECHO);
	BUILD_BUG_ON(MRC_ACK_MAX_LEN != REF_ACK_MAX_LEN);
	BUILD_BUG_ON(offsetof(struct mrc_hdr, flags) != REF_OFF_FLAGS);
	BUILD_BUG_ON(offsetof(struct mrc_hdr, dst_cid) != REF_OFF_DST_CID);
	BUILD_BUG_ON(offsetof(struct mrc_hdr, src_cid) != REF_OFF_SRC_CID);
	BUILD_BUG_ON(offsetof(struct mrc_data_hdr, msg_len) !=
		     REF_OFF_DATA_MSG_LEN);
	BUILD_BUG_ON(offsetof(struct mrc_data_hdr, offset) !=
		     REF_OFF_DATA_OFFSET);
	BUILD_BUG_ON(offsetof(struct mrc_data_hdr, len) != REF_OFF_DATA_LEN);
	BUILD_BUG_ON(offsetof(struct mrc_syn_hdr, src_port) !=
		     REF_OFF_SYN_SRC_PORT);
	BUILD_BUG_ON(offsetof(struct mrc_syn_hdr, dst_port) !=
		     REF_OFF_SYN_DST_PORT);
	BUILD_BUG_ON(offsetof(struct mrc_syn_hdr, udp_port) !=
		     REF_OFF_SYN_UDP_PORT);
	BUILD_BUG_ON(offsetof(struct mrc_syn_hdr, reserved) !=
		     REF_OFF_SYN_RESERVED);
	BUILD_BUG_ON(offsetof(struct mrc_syn_hdr, echo_tsval) !=
		     REF_OFF_SYN_ECHO_TSVAL);
	BUILD_BUG_ON(offsetof(struct mrc_syn_hdr, max_msg) !=
		     REF_OFF_SYN_MAX_MSG);
	BUILD_BUG_ON(offsetof(struct mrc_probe_hdr, reserved) !=
		     REF_OFF_PROBE_RESERVED);
	BUILD_BUG_ON(sizeof(struct mrc_hdr) != REF_COMMON_LEN);
	BUILD_BUG_ON(sizeof(struct mrc_data_hdr) != REF_DATA_LEN);
	BUILD_BUG_ON(sizeof(struct mrc_ack_hdr) != REF_ACK_LEN);
	BUILD_BUG_ON(sizeof(struct mrc_syn_hdr) != REF_SYN_LEN);
	BUILD_BUG_ON(sizeof(struct mrc_probe_hdr) != REF_PROBE_LEN);
}

/* Copy @len bytes of @src into a heap buffer of exactly @len bytes. */
static u8 *exact_copy(const u8 *src, size_t len)
{
	u8 *p = malloc(len ? len : 1);

	if (!p)
		abort();
	if (len)
		memcpy(p, src, len);
	return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned int verdict, again, hlen, linear;
	u32 max_msg, reasons;
	u8 *buf, *head;
	size_t len;

	ref_layout();
	if (size < 1 || size - 1 > 0xffffffffU)
		return 0;
	max_msg = max_msgs[data[0] % ARRAY_SIZE(max_msgs)];
	len = size - 1;
	buf = exact_copy(data + 1, len);

	verdict = mrc_hdr_check(buf, len, max_msg);
	if (verdict >= __MRC_HDR_MAX)
		fail("verdict out of range", buf, len, max_msg, verdict);
	if (len && memcmp(buf, data + 1, len))
		fail("datagram modified", buf, len, max_msg, verdict);
	if (len >= 2 && mrc_hdr_len(buf[1]) != ref_hdr_len(buf[1]))
		fail("mrc_hdr_len disagrees", buf, len, max_msg, verdict);

	reasons = ref_reasons(buf, len, max_msg);
	if (verdict == MRC_HDR_OK && reasons)
		fail("accepted a bad datagram", buf, len, max_msg, verdict);
	if (verdict != MRC_HDR_OK && !(reasons & BIT_V(verdict)))
		fail("rejected for the wrong reason", buf, len,
		     max_msg, verdict);
	if (verdict == MRC_HDR_OK &&
	    (len < REF_COMMON_LEN || len < mrc_hdr_len(buf[1])))
		fail("accepted a datagram shorter than its header", buf, len,
		     max_msg, verdict);

	/* Only the headers are linear in the kernel (input.c pulls
	 * min(len, its type's header): an ACK up to its largest size, a
	 * WRITE's piece up to its extension's end, a status record with
	 * its record, a message's DATA its 40 bytes, its payload being in
	 * page fragments); the payload must not be read.
	 */
	hlen = len >= 2 ? ref_hdr_len(buf[1]) : 0;
	if (len >= 2 && buf[1] == 2)
		hlen = REF_ACK_MAX_LEN;
	if (len >= 4 && buf[1] == 1 && (get16(buf, REF_OFF_FLAGS) & 0x0020))
		hlen = get16(buf, REF_OFF_FLAGS) & 0x0100 ? REF_RDMA_IMM_LEN :
		       REF_RDMA_LEN;
	if (len >= 4 && buf[1] == 1 && (get16(buf, REF_OFF_FLAGS) & 0x0040))
		hlen = REF_STATUS_LEN;
	if (hlen < REF_COMMON_LEN)
		hlen = REF_COMMON_LEN;
	linear = len < hlen ? len : hlen;
	head = exact_copy(buf, linear);
	again = mrc_hdr_check(head, len, max_msg);
	if (again != verdict)
		fail("verdict depends on the payload", buf, len, max_msg,
		     again);
	free(head);

#if MRC_FUZZ_SELFTEST == 1
	if (verdict == MRC_HDR_OK && buf[1] == MRC_PKT_DATA &&
	    !(get16(buf, REF_OFF_FLAGS) & 0x0020) &&
	    len > REF_DATA_LEN && buf[REF_DATA_LEN] != 'a')
		mrc_fuzz_sink = buf[len];
#endif
	free(buf);
	return 0;
}
