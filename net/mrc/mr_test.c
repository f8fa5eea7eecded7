// SPDX-License-Identifier: GPL-2.0
/* KUnit suite for mrc's memory-region rules: what a registration may ask
 * for, the pages it pins, and the keys.
 */
#include <kunit/test.h>

#include "mr.h"

static struct mrc_mr_reg reg_of(u64 addr, u64 len, u32 access)
{
	struct mrc_mr_reg reg = {
		.addr = addr, .len = len, .access = access,
	};

	return reg;
}

static void mrc_mr_check_pages(struct kunit *test)
{
	struct mrc_mr_reg reg;
	unsigned long n = 0;

	/* one byte, a whole page, a page and a byte, across a boundary */
	reg = reg_of(0x10000, 1, MRC_MR_REMOTE_WRITE);
	KUNIT_EXPECT_EQ(test, mrc_mr_check(&reg, &n), 0);
	KUNIT_EXPECT_EQ(test, n, 1UL);
	reg.len = PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, mrc_mr_check(&reg, &n), 0);
	KUNIT_EXPECT_EQ(test, n, 1UL);
	reg.len = PAGE_SIZE + 1;
	KUNIT_EXPECT_EQ(test, mrc_mr_check(&reg, &n), 0);
	KUNIT_EXPECT_EQ(test, n, 2UL);
	reg = reg_of(0x10000 + PAGE_SIZE - 1, 2, MRC_MR_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, mrc_mr_check(&reg, &n), 0);
	KUNIT_EXPECT_EQ(test, n, 2UL);
	/* the largest, unaligned: one page more than its length's */
	reg = reg_of(0x10001, MRC_MR_LEN_MAX, MRC_MR_ACCESS_ALL);
	KUNIT_EXPECT_EQ(test, mrc_mr_check(&reg, &n), 0);
	KUNIT_EXPECT_EQ(test, n, (unsigned long)(MRC_MR_LEN_MAX >> PAGE_SHIFT) + 1);
	/* ending on the last byte of the address space does not wrap */
	reg = reg_of(U64_MAX - PAGE_SIZE + 1, PAGE_SIZE, MRC_MR_REMOTE_READ);
	KUNIT_EXPECT_EQ(test, mrc_mr_check(&reg, &n), 0);
	KUNIT_EXPECT_EQ(test, n, 1UL);
}

static void mrc_mr_check_refuses(struct kunit *test)
{
	struct mrc_mr_reg reg;
	unsigned long n = 7;

	reg = reg_of(0x10000, 0, MRC_MR_REMOTE_WRITE);		/* empty */
	KUNIT_EXPECT_EQ(test, mrc_mr_check(&reg, &n), -EINVAL);
	reg = reg_of(0x10000, MRC_MR_LEN_MAX + 1, MRC_MR_REMOTE_WRITE);
	KUNIT_EXPECT_EQ(test, mrc_mr_check(&reg, &n), -EINVAL);
	reg = reg_of(0x10000, U64_MAX, MRC_MR_REMOTE_WRITE);	/* wraps */
	KUNIT_EXPECT_EQ(test, mrc_mr_check(&reg, &n), -EINVAL);
	reg = reg_of(U64_MAX - 10, 12, MRC_MR_REMOTE_WRITE);	/* wraps */
	KUNIT_EXPECT_EQ(test, mrc_mr_check(&reg, &n), -EINVAL);
	reg = reg_of(U64_MAX, 2, MRC_MR_REMOTE_WRITE);		/* wraps */
	KUNIT_EXPECT_EQ(test, mrc_mr_check(&reg, &n), -EINVAL);
	reg = reg_of(0x10000, 100, 0);				/* no right */
	KUNIT_EXPECT_EQ(test, mrc_mr_check(&reg, &n), -EINVAL);
	reg = reg_of(0x10000, 100, 0x8 | MRC_MR_REMOTE_READ);	/* unknown */
	KUNIT_EXPECT_EQ(test, mrc_mr_check(&reg, &n), -EINVAL);
	reg = reg_of(0x10000, 100, MRC_MR_REMOTE_READ);
	reg.flags = 1;
	KUNIT_EXPECT_EQ(test, mrc_mr_check(&reg, &n), -EINVAL);
	/* nothing counted for a refused one */
	KUNIT_EXPECT_EQ(test, n, 7UL);
}

static void mrc_mr_keys(struct kunit *test)
{
	u64 rnd = 0x0123456789abcdefULL;
	u32 idx;

	for (idx = 1; idx <= MRC_MR_MAX; idx++) {
		u64 key = mrc_mr_key(rnd, idx);

		KUNIT_EXPECT_NE(test, key, 0ULL);
		KUNIT_EXPECT_EQ(test, mrc_mr_key_idx(key), idx);
		/* the random part is kept */
		KUNIT_EXPECT_EQ(test, key & ~MRC_MR_IDX_MASK,
				rnd & ~MRC_MR_IDX_MASK);
	}
	/* a random number with no bits above the index is still a key */
	KUNIT_EXPECT_EQ(test, mrc_mr_key(0, 1), 1ULL);
	/* keys that name no index: 0, and indexes past MRC_MR_MAX */
	KUNIT_EXPECT_EQ(test, mrc_mr_key_idx(0), 0U);
	KUNIT_EXPECT_EQ(test, mrc_mr_key_idx(rnd & ~MRC_MR_IDX_MASK), 0U);
	KUNIT_EXPECT_EQ(test, mrc_mr_key_idx(MRC_MR_MAX + 1), 0U);
	KUNIT_EXPECT_EQ(test, mrc_mr_key_idx(MRC_MR_IDX_MASK), 0U);
}

/* The bounds a WRITE's piece is checked against, in 64-bit arithmetic. */
static void mrc_mr_ranges(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, mrc_mr_range_ok(4096, 0, 4096));
	KUNIT_EXPECT_TRUE(test, mrc_mr_range_ok(4096, 4095, 1));
	KUNIT_EXPECT_TRUE(test, mrc_mr_range_ok(4096, 4096, 0));
	KUNIT_EXPECT_TRUE(test, mrc_mr_range_ok(MRC_MR_LEN_MAX, 0,
						MRC_MR_LEN_MAX));
	KUNIT_EXPECT_FALSE(test, mrc_mr_range_ok(4096, 0, 4097));
	KUNIT_EXPECT_FALSE(test, mrc_mr_range_ok(4096, 4096, 1));
	KUNIT_EXPECT_FALSE(test, mrc_mr_range_ok(4096, 4097, 0));
	KUNIT_EXPECT_FALSE(test, mrc_mr_range_ok(4096, 1, 4096));
	/* sums that wrap are refused, not taken as small */
	KUNIT_EXPECT_FALSE(test, mrc_mr_range_ok(4096, U64_MAX, 2));
	KUNIT_EXPECT_FALSE(test, mrc_mr_range_ok(4096, 1, U64_MAX));
	KUNIT_EXPECT_FALSE(test, mrc_mr_range_ok(4096, U64_MAX - 10, 20));
	KUNIT_EXPECT_FALSE(test, mrc_mr_range_ok(MRC_MR_LEN_MAX,
						 MRC_MR_LEN_MAX, 1));
}

static struct kunit_case mrc_mr_cases[] = {
	KUNIT_CASE(mrc_mr_check_pages),
	KUNIT_CASE(mrc_mr_check_refuses),
	KUNIT_CASE(mrc_mr_keys),
	KUNIT_CASE(mrc_mr_ranges),
	{}
};

static struct kunit_suite mrc_mr_suite = {
	.name = "mrc_mr",
	.test_cases = mrc_mr_cases,
};

kunit_test_suite(mrc_mr_suite);
