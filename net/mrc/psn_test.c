// SPDX-License-Identifier: GPL-2.0
/* KUnit suite for mrc's PSN arithmetic, around zero and at wrap-around. */
#include <kunit/test.h>
#include <linux/module.h>

#include "psn.h"

static void mrc_psn_order_basic(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, mrc_psn_before(1, 2));
	KUNIT_EXPECT_FALSE(test, mrc_psn_before(2, 1));
	KUNIT_EXPECT_FALSE(test, mrc_psn_before(5, 5));
	KUNIT_EXPECT_TRUE(test, mrc_psn_after(2, 1));
	KUNIT_EXPECT_FALSE(test, mrc_psn_after(5, 5));
	KUNIT_EXPECT_EQ(test, mrc_psn_diff(10, 3), 7);
	KUNIT_EXPECT_EQ(test, mrc_psn_diff(3, 10), -7);
}

static void mrc_psn_order_wrap(struct kunit *test)
{
	/* 0xffffffff is just before 0, and 0 just after it */
	KUNIT_EXPECT_TRUE(test, mrc_psn_before(0xffffffffU, 0));
	KUNIT_EXPECT_TRUE(test, mrc_psn_after(0, 0xffffffffU));
	KUNIT_EXPECT_EQ(test, mrc_psn_diff(0, 0xffffffffU), 1);
	KUNIT_EXPECT_EQ(test, mrc_psn_diff(5, 0xfffffffbU), 10);
	KUNIT_EXPECT_EQ(test, mrc_psn_diff(0xfffffffbU, 5), -10);
	KUNIT_EXPECT_EQ(test, mrc_psn_max(0xfffffff0U, 3), 3U);
	KUNIT_EXPECT_EQ(test, mrc_psn_max(3, 0xfffffff0U), 3U);
}

static void mrc_psn_order_half_space(struct kunit *test)
{
	/* just under half the space apart: still ordered */
	KUNIT_EXPECT_TRUE(test, mrc_psn_before(0, 0x7fffffffU));
	KUNIT_EXPECT_TRUE(test, mrc_psn_before(0x80000000U, 0xffffffffU));
	/* one more and the order flips, as serial arithmetic defines */
	KUNIT_EXPECT_TRUE(test, mrc_psn_after(0, 0x80000001U));
}

static void mrc_psn_window(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, mrc_psn_in_window(100, 100, 64));
	KUNIT_EXPECT_TRUE(test, mrc_psn_in_window(163, 100, 64));
	KUNIT_EXPECT_FALSE(test, mrc_psn_in_window(164, 100, 64));
	KUNIT_EXPECT_FALSE(test, mrc_psn_in_window(99, 100, 64));
	/* a window that straddles the wrap */
	KUNIT_EXPECT_TRUE(test, mrc_psn_in_window(0xfffffff0U, 0xffffffe0U, 64));
	KUNIT_EXPECT_TRUE(test, mrc_psn_in_window(5, 0xffffffe0U, 64));
	KUNIT_EXPECT_TRUE(test, mrc_psn_in_window(0x1f, 0xffffffe0U, 64));
	KUNIT_EXPECT_FALSE(test, mrc_psn_in_window(0x20, 0xffffffe0U, 64));
	KUNIT_EXPECT_FALSE(test, mrc_psn_in_window(0xffffffdfU, 0xffffffe0U, 64));
	/* an empty window holds nothing */
	KUNIT_EXPECT_FALSE(test, mrc_psn_in_window(7, 7, 0));
}

static struct kunit_case mrc_psn_cases[] = {
	KUNIT_CASE(mrc_psn_order_basic),
	KUNIT_CASE(mrc_psn_order_wrap),
	KUNIT_CASE(mrc_psn_order_half_space),
	KUNIT_CASE(mrc_psn_window),
	{}
};

static struct kunit_suite mrc_psn_suite = {
	.name = "mrc_psn",
	.test_cases = mrc_psn_cases,
};

kunit_test_suite(mrc_psn_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("KUnit tests for mrc");
