// SPDX-License-Identifier: GPL-2.0
/* KUnit suites for mrc's reliability rules: the SACK scoreboard, the loss
 * rules, RTT/RTO estimation and the receiver's message sequence check.
 */
#include <kunit/test.h>

#include "loss.h"

#define SLOTS	128

static void mrc_sack_reports_held_psns(struct kunit *test)
{
	void *ofo[SLOTS] = {};
	static int held;
	u32 cum = 1000;

	KUNIT_EXPECT_EQ(test, mrc_sack_build(ofo, SLOTS, cum), 0ULL);
	ofo[(cum + 1) % SLOTS] = &held;		/* bit 0 */
	ofo[(cum + 33) % SLOTS] = &held;	/* bit 32 */
	ofo[(cum + 64) % SLOTS] = &held;	/* bit 63 */
	ofo[(cum + 65) % SLOTS] = &held;	/* beyond the bitmap */
	KUNIT_EXPECT_EQ(test, mrc_sack_build(ofo, SLOTS, cum),
			1ULL | 1ULL << 32 | 1ULL << 63);
}

static void mrc_sack_at_wraparound(struct kunit *test)
{
	void *ofo[SLOTS] = {};
	static int held;
	u32 cum = 0xfffffffeU;

	ofo[(u32)(cum + 1) % SLOTS] = &held;	/* 0xffffffff: bit 0 */
	ofo[(u32)(cum + 2) % SLOTS] = &held;	/* 0: bit 1 */
	ofo[(u32)(cum + 5) % SLOTS] = &held;	/* 3: bit 4 */
	KUNIT_EXPECT_EQ(test, mrc_sack_build(ofo, SLOTS, cum),
			0x13ULL);
}

static void mrc_sack_decode_halves(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, mrc_sack_decode(0x1, 0x0), 0x1ULL);
	KUNIT_EXPECT_EQ(test, mrc_sack_decode(0x0, 0x80000000U),
			1ULL << 63);
	KUNIT_EXPECT_EQ(test, mrc_sack_decode(0xffffffffU, 0xffffffffU),
			~0ULL);
}

static void mrc_loss_ev_only_inside_sack_range(struct kunit *test)
{
	u32 cum = 0xfffffff0U;

	/* the cumulative point itself is missing by definition */
	KUNIT_EXPECT_TRUE(test, mrc_loss_ev_visible(cum, cum));
	KUNIT_EXPECT_TRUE(test, mrc_loss_ev_visible(cum + 64, cum));
	/* beyond the bitmap the ACK says nothing */
	KUNIT_EXPECT_FALSE(test, mrc_loss_ev_visible(cum + 65, cum));
	/* already acknowledged */
	KUNIT_EXPECT_FALSE(test, mrc_loss_ev_visible(cum - 1, cum));
}

static void mrc_loss_time_rule(struct kunit *test)
{
	u64 ms = NSEC_PER_MSEC;
	u32 srtt = 1000;	/* 1 ms: wait 1.25 ms */

	/* nothing acknowledged after it, or no RTT yet: never */
	KUNIT_EXPECT_FALSE(test, mrc_loss_time_expired(100 * ms, ms, 0, srtt,
						       0, 0));
	KUNIT_EXPECT_FALSE(test, mrc_loss_time_expired(100 * ms, ms, 2 * ms, 0, 0,
						       0));
	/* sent after the acknowledged one: not overtaken */
	KUNIT_EXPECT_FALSE(test, mrc_loss_time_expired(100 * ms, 3 * ms,
						       2 * ms, srtt, 0, 0));
	/* overtaken, but within the reordering allowance */
	KUNIT_EXPECT_FALSE(test, mrc_loss_time_expired(2 * ms, ms, 2 * ms,
						       srtt, 0, 0));
	/* overtaken and outstanding longer than RTT + RTT/4 */
	KUNIT_EXPECT_TRUE(test, mrc_loss_time_expired(ms + 1250000, ms,
						      2 * ms, srtt, 0, 0));
	KUNIT_EXPECT_FALSE(test, mrc_loss_time_expired(ms + 1249999, ms,
						       2 * ms, srtt, 0, 0));
	/* after spurious retransmissions the allowance grows: 3 of them,
	 * RTT/4 x 4 = 1 ms
	 */
	KUNIT_EXPECT_FALSE(test, mrc_loss_time_expired(ms + 1999999, ms,
						       2 * ms, srtt, 0, 3));
	KUNIT_EXPECT_TRUE(test, mrc_loss_time_expired(ms + 2000000, ms,
						      2 * ms, srtt, 0, 3));
	/* up to 16 quarters */
	KUNIT_EXPECT_EQ(test, mrc_loss_reo_wait_ns(srtt, 0, 200),
			mrc_loss_reo_wait_ns(srtt, 0, MRC_LOSS_REO_MULT_MAX));
	KUNIT_EXPECT_EQ(test, mrc_loss_reo_wait_ns(srtt, 0, 200), 5 * ms);
	/* the RTT variation still wins when larger */
	KUNIT_EXPECT_EQ(test, mrc_loss_reo_wait_ns(srtt, 3000, 3), 7 * ms);
}

static void mrc_rtt_first_sample_and_smoothing(struct kunit *test)
{
	struct mrc_rtt r = {};

	/* first sample: srtt = R, rttvar = R/2, rto = R + 4 rttvar */
	KUNIT_EXPECT_EQ(test, mrc_rtt_update(&r, 1000, 100, 1000000), 3000U);
	KUNIT_EXPECT_EQ(test, r.srtt_us, 1000U);
	KUNIT_EXPECT_EQ(test, r.rttvar_us, 500U);
	/* same again: variation shrinks */
	KUNIT_EXPECT_EQ(test, mrc_rtt_update(&r, 1000, 100, 1000000), 2500U);
	KUNIT_EXPECT_EQ(test, r.rttvar_us, 375U);
	/* a spike moves srtt by 1/8 */
	mrc_rtt_update(&r, 9000, 100, 1000000);
	KUNIT_EXPECT_EQ(test, r.srtt_us, 2000U);
}

static void mrc_rtt_clamps_and_ignores(struct kunit *test)
{
	struct mrc_rtt r = {};

	/* floor and ceiling */
	KUNIT_EXPECT_EQ(test, mrc_rtt_update(&r, 10, 5000, 1000000), 5000U);
	r = (struct mrc_rtt){};
	KUNIT_EXPECT_EQ(test, mrc_rtt_update(&r, 900000, 100, 1000000),
			1000000U);
	/* nonsense samples change nothing */
	r = (struct mrc_rtt){ 1000, 100 };
	KUNIT_EXPECT_EQ(test, mrc_rtt_update(&r, 61 * USEC_PER_SEC, 100,
					     1000000), 0U);
	KUNIT_EXPECT_EQ(test, r.srtt_us, 1000U);
	/* a zero sample counts as 1 us */
	r = (struct mrc_rtt){};
	KUNIT_EXPECT_EQ(test, mrc_rtt_update(&r, 0, 1, 1000000), 2U);
}

static void mrc_seq_whole_messages(struct kunit *test)
{
	struct mrc_rcv_seq s = { .msg_id = 7 };

	KUNIT_EXPECT_EQ(test, mrc_rcv_seq_next(&s, 7, 3000, 0, 1400, false),
			MRC_SEQ_PIECE);
	KUNIT_EXPECT_EQ(test, mrc_rcv_seq_next(&s, 7, 3000, 1400, 1400, false),
			MRC_SEQ_PIECE);
	KUNIT_EXPECT_EQ(test, mrc_rcv_seq_next(&s, 7, 3000, 2800, 200, false),
			MRC_SEQ_EOR);
	KUNIT_EXPECT_EQ(test, s.msg_id, 8U);
	/* an empty message is one empty piece */
	KUNIT_EXPECT_EQ(test, mrc_rcv_seq_next(&s, 8, 0, 0, 0, false),
			MRC_SEQ_EOR);
	KUNIT_EXPECT_EQ(test, mrc_rcv_seq_next(&s, 9, 0, 0, 0, true),
			MRC_SEQ_FIN);
}

static void mrc_seq_refuses_lies(struct kunit *test)
{
	struct mrc_rcv_seq s = { .msg_id = 0xffffffffU };
	struct mrc_rcv_seq saved;

	/* message ids wrap like everything else */
	KUNIT_EXPECT_EQ(test, mrc_rcv_seq_next(&s, 0xffffffffU, 10, 0, 10,
					       false), MRC_SEQ_EOR);
	KUNIT_EXPECT_EQ(test, s.msg_id, 0U);
	KUNIT_EXPECT_EQ(test, mrc_rcv_seq_next(&s, 0, 3000, 0, 1000, false),
			MRC_SEQ_PIECE);
	saved = s;
	/* wrong message, gap, overlap, length changing mid-message,
	 * FIN inside a message, piece past the end
	 */
	KUNIT_EXPECT_EQ(test, mrc_rcv_seq_next(&s, 1, 3000, 1000, 1000, false),
			MRC_SEQ_BAD);
	KUNIT_EXPECT_EQ(test, mrc_rcv_seq_next(&s, 0, 3000, 1500, 1000, false),
			MRC_SEQ_BAD);
	KUNIT_EXPECT_EQ(test, mrc_rcv_seq_next(&s, 0, 3000, 500, 1000, false),
			MRC_SEQ_BAD);
	KUNIT_EXPECT_EQ(test, mrc_rcv_seq_next(&s, 0, 4000, 1000, 1000, false),
			MRC_SEQ_BAD);
	KUNIT_EXPECT_EQ(test, mrc_rcv_seq_next(&s, 0, 0, 1000, 0, true),
			MRC_SEQ_BAD);
	KUNIT_EXPECT_EQ(test, mrc_rcv_seq_next(&s, 0, 3000, 1000, 2500, false),
			MRC_SEQ_BAD);
	/* a refused piece leaves the stream where it was */
	KUNIT_EXPECT_EQ(test, s.msg_id, saved.msg_id);
	KUNIT_EXPECT_EQ(test, s.off, saved.off);
	KUNIT_EXPECT_EQ(test, s.len, saved.len);
	KUNIT_EXPECT_EQ(test, mrc_rcv_seq_next(&s, 0, 3000, 1000, 2000, false),
			MRC_SEQ_EOR);
}

static struct kunit_case mrc_loss_cases[] = {
	KUNIT_CASE(mrc_sack_reports_held_psns),
	KUNIT_CASE(mrc_sack_at_wraparound),
	KUNIT_CASE(mrc_sack_decode_halves),
	KUNIT_CASE(mrc_loss_ev_only_inside_sack_range),
	KUNIT_CASE(mrc_loss_time_rule),
	KUNIT_CASE(mrc_rtt_first_sample_and_smoothing),
	KUNIT_CASE(mrc_rtt_clamps_and_ignores),
	KUNIT_CASE(mrc_seq_whole_messages),
	KUNIT_CASE(mrc_seq_refuses_lies),
	{}
};

static struct kunit_suite mrc_loss_suite = {
	.name = "mrc_loss",
	.test_cases = mrc_loss_cases,
};

kunit_test_suite(mrc_loss_suite);
