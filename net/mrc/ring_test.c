// SPDX-License-Identifier: GPL-2.0
/* KUnit suite for the rings of packets by PSN (ring.h): a ring grows to
 * fit a PSN far ahead, keeping every packet at its PSN across the wrap
 * of the PSN space, shrinks back when what it holds fits, and refuses
 * what cannot fit without changing.
 */
#include <kunit/test.h>

#include "ring.h"

/* A stand-in for the packet of @psn: only moved, never dereferenced. */
static struct sk_buff *ring_pkt(u32 psn)
{
	return (struct sk_buff *)(uintptr_t)(((unsigned long)psn << 4) | 8);
}

/* Hold a stand-in for every PSN of [@from, @to). */
static void ring_fill(struct mrc_ring *r, u32 from, u32 to)
{
	u32 psn;

	for (psn = from; psn != to; psn++)
		*mrc_ring_at(r, psn) = ring_pkt(psn);
}

/* Is every PSN of [@from, @to) at its place, and every other slot empty? */
static void ring_expect(struct kunit *test, struct mrc_ring *r, u32 from,
			u32 to)
{
	u32 psn, held = 0, i;

	for (psn = from; psn != to; psn++)
		KUNIT_EXPECT_PTR_EQ(test, *mrc_ring_at(r, psn), ring_pkt(psn));
	for (i = 0; i < mrc_ring_size(r); i++)
		held += !!r->slot[i];
	KUNIT_EXPECT_EQ(test, held, to - from);
}

static void mrc_ring_starts_empty(struct kunit *test)
{
	struct mrc_ring r = {};

	KUNIT_ASSERT_EQ(test, mrc_ring_resize(&r, 0, 0, MRC_RING_MIN,
					      GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, mrc_ring_size(&r), MRC_RING_MIN);
	ring_expect(test, &r, 0, 0);
	/* not a power of two, or a span larger than the size */
	KUNIT_EXPECT_EQ(test, mrc_ring_resize(&r, 0, 0, 96, GFP_KERNEL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_ring_resize(&r, 0, 65, 128, GFP_KERNEL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_ring_size(&r), MRC_RING_MIN);
	kfree(r.slot);
}

/* Growing across the wrap of the PSN space keeps every packet. */
static void mrc_ring_grows_across_wrap(struct kunit *test)
{
	u32 from = 0xffffffe0, to = from + MRC_RING_MIN;
	struct mrc_ring r = {};
	struct sk_buff **old;

	KUNIT_ASSERT_EQ(test, mrc_ring_resize(&r, 0, 0, MRC_RING_MIN,
					      GFP_KERNEL), 0);
	ring_fill(&r, from, to);
	/* a PSN that fits changes nothing */
	old = r.slot;
	KUNIT_EXPECT_EQ(test, mrc_ring_fit(&r, from, to, to - 1, 1024,
					   GFP_KERNEL), 0);
	KUNIT_EXPECT_PTR_EQ(test, r.slot, old);
	/* the next doubles the ring */
	KUNIT_EXPECT_EQ(test, mrc_ring_fit(&r, from, to, to, 1024,
					   GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, mrc_ring_size(&r), 2 * MRC_RING_MIN);
	ring_expect(test, &r, from, to);
	/* one far ahead: the power of two that holds it */
	KUNIT_EXPECT_EQ(test, mrc_ring_fit(&r, from, to, from + 700, 1024,
					   GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, mrc_ring_size(&r), 1024);
	ring_expect(test, &r, from, to);
	/* past the most slots allowed: refused, the ring unchanged */
	old = r.slot;
	KUNIT_EXPECT_EQ(test, mrc_ring_fit(&r, from, to, from + 1024, 1024,
					   GFP_KERNEL), -EINVAL);
	KUNIT_EXPECT_PTR_EQ(test, r.slot, old);
	ring_expect(test, &r, from, to);
	kfree(r.slot);
}

/* A ring shrinks when what it holds fits the smaller size, never when
 * it does not.
 */
static void mrc_ring_shrinks(struct kunit *test)
{
	u32 from = 0x7ffffff0;
	struct mrc_ring r = {};

	KUNIT_ASSERT_EQ(test, mrc_ring_resize(&r, 0, 0, 512, GFP_KERNEL), 0);
	ring_fill(&r, from, from + 100);
	KUNIT_EXPECT_EQ(test, mrc_ring_resize(&r, from, from + 100,
					      MRC_RING_MIN, GFP_KERNEL),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, mrc_ring_size(&r), 512);
	ring_expect(test, &r, from, from + 100);
	/* the first 60 acknowledged */
	memset(r.slot, 0, 512 * sizeof(*r.slot));
	ring_fill(&r, from + 60, from + 100);
	KUNIT_EXPECT_EQ(test, mrc_ring_resize(&r, from + 60, from + 100,
					      MRC_RING_MIN, GFP_KERNEL), 0);
	KUNIT_EXPECT_EQ(test, mrc_ring_size(&r), MRC_RING_MIN);
	ring_expect(test, &r, from + 60, from + 100);
	kfree(r.slot);
}

static struct kunit_case mrc_ring_cases[] = {
	KUNIT_CASE(mrc_ring_starts_empty),
	KUNIT_CASE(mrc_ring_grows_across_wrap),
	KUNIT_CASE(mrc_ring_shrinks),
	{}
};

static struct kunit_suite mrc_ring_suite = {
	.name = "mrc_ring",
	.test_cases = mrc_ring_cases,
};

kunit_test_suite(mrc_ring_suite);
