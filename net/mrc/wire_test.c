// SPDX-License-Identifier: GPL-2.0
/* KUnit suite for validation of mrc's common header. */
#include <kunit/test.h>

#include "wire.h"

static void mrc_hdr_fill(struct mrc_hdr *h, u8 version, u8 type)
{
	memset(h, 0, sizeof(*h));
	h->version = version;
	h->type = type;
	h->dst_cid = cpu_to_be32(0x12345678);
}

static void mrc_hdr_accepts_every_type(struct kunit *test)
{
	struct mrc_hdr h;
	u8 type;

	for (type = MRC_PKT_DATA; type < __MRC_PKT_MAX; type++) {
		mrc_hdr_fill(&h, MRC_WIRE_VERSION, type);
		KUNIT_EXPECT_EQ_MSG(test, mrc_hdr_check(&h, sizeof(h)),
				    MRC_HDR_OK, "type %u", type);
	}
}

static void mrc_hdr_rejects_short(struct kunit *test)
{
	struct mrc_hdr h;
	unsigned int len;

	mrc_hdr_fill(&h, MRC_WIRE_VERSION, MRC_PKT_DATA);
	for (len = 0; len < sizeof(h); len++)
		KUNIT_EXPECT_EQ_MSG(test, mrc_hdr_check(&h, len),
				    MRC_HDR_SHORT, "len %u", len);
}

static void mrc_hdr_rejects_version(struct kunit *test)
{
	struct mrc_hdr h;

	mrc_hdr_fill(&h, 0, MRC_PKT_DATA);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(&h, sizeof(h)),
			MRC_HDR_BAD_VERSION);
	mrc_hdr_fill(&h, MRC_WIRE_VERSION + 1, MRC_PKT_DATA);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(&h, sizeof(h)),
			MRC_HDR_BAD_VERSION);
	mrc_hdr_fill(&h, 0xff, MRC_PKT_DATA);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(&h, sizeof(h)),
			MRC_HDR_BAD_VERSION);
}

static void mrc_hdr_rejects_type(struct kunit *test)
{
	struct mrc_hdr h;

	mrc_hdr_fill(&h, MRC_WIRE_VERSION, 0);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(&h, sizeof(h)), MRC_HDR_BAD_TYPE);
	mrc_hdr_fill(&h, MRC_WIRE_VERSION, __MRC_PKT_MAX);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(&h, sizeof(h)), MRC_HDR_BAD_TYPE);
	mrc_hdr_fill(&h, MRC_WIRE_VERSION, 0xff);
	KUNIT_EXPECT_EQ(test, mrc_hdr_check(&h, sizeof(h)), MRC_HDR_BAD_TYPE);
}

/* The header is read in place from the packet: check it never reads past
 * the length it is given, with a buffer whose end KASAN watches.
 */
static void mrc_hdr_reads_within_len(struct kunit *test)
{
	unsigned int len;
	u8 *buf;

	for (len = 0; len <= sizeof(struct mrc_hdr); len++) {
		buf = kunit_kzalloc(test, len ? len : 1, GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, buf);
		if (len >= 2) {
			buf[0] = MRC_WIRE_VERSION;
			buf[1] = MRC_PKT_ACK;
		}
		KUNIT_EXPECT_EQ(test, mrc_hdr_check(buf, len),
				len < sizeof(struct mrc_hdr) ?
				MRC_HDR_SHORT : MRC_HDR_OK);
	}
}

static struct kunit_case mrc_wire_cases[] = {
	KUNIT_CASE(mrc_hdr_accepts_every_type),
	KUNIT_CASE(mrc_hdr_rejects_short),
	KUNIT_CASE(mrc_hdr_rejects_version),
	KUNIT_CASE(mrc_hdr_rejects_type),
	KUNIT_CASE(mrc_hdr_reads_within_len),
	{}
};

static struct kunit_suite mrc_wire_suite = {
	.name = "mrc_wire",
	.test_cases = mrc_wire_cases,
};

kunit_test_suite(mrc_wire_suite);
