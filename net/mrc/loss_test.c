// SPDX-License-Identifier: GPL-2.0
/* KUnit suites for mrc's reliability rules: the SACK scoreboard, the loss
 * rules, RTT/RTO estimation and the receiver's message sequence check.
 */
#include <kunit/test.h>

#include "loss.h"

#define SLOTS	128

static unsigned int sack(void **ofo, u32 cum, u32 hi, u32 *w)
{
	return mrc_sack_build(ofo, SLOTS, cum, hi, w);
}

static void mrc_sack_reports_held_psns(struct kunit *test)
{
	void **ofo = kunit_kcalloc(test, SLOTS, sizeof(*ofo), GFP_KERNEL);
	u32 w[MRC_SACK_WORDS];
	static int held;
	u32 cum = 1000;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ofo);
	KUNIT_EXPECT_EQ(test, sack(ofo, cum, cum, w), 2U);
	KUNIT_EXPECT_EQ(test, w[0] | w[1], 0U);
	ofo[(cum + 1) % SLOTS] = &held;		/* bit 0 */
	ofo[(cum + 33) % SLOTS] = &held;	/* bit 32 */
	ofo[(cum + 64) % SLOTS] = &held;	/* bit 63 */
	KUNIT_EXPECT_EQ(test, sack(ofo, cum, cum + 65, w), 2U);
	KUNIT_EXPECT_EQ(test, w[0], 1U);
	KUNIT_EXPECT_EQ(test, w[1], 1U | 1U << 31);
	/* a third word only once a PSN in it is held */
	ofo[(cum + 65) % SLOTS] = &held;	/* bit 64 */
	KUNIT_EXPECT_EQ(test, sack(ofo, cum, cum + 66, w), 3U);
	KUNIT_EXPECT_EQ(test, w[2], 1U);
	/* nothing is looked at from @hi on */
	KUNIT_EXPECT_EQ(test, sack(ofo, cum, cum + 65, w), 2U);
	KUNIT_EXPECT_EQ(test, w[2], 0U);
	/* a @hi not after the cumulative PSN: nothing held */
	KUNIT_EXPECT_EQ(test, sack(ofo, cum, cum - 5, w), 2U);
	KUNIT_EXPECT_EQ(test, w[0], 0U);
}

/* The widest SACK covers MRC_SACK_BITS PSNs, and no more than the
 * out-of-order slots hold.
 */
static void mrc_sack_widest(struct kunit *test)
{
	static void *ofo[2 * MRC_SACK_BITS];
	u32 w[MRC_SACK_WORDS];
	static int held;
	u32 cum = 7, i;

	for (i = 0; i < ARRAY_SIZE(ofo); i++)
		ofo[i] = &held;
	KUNIT_EXPECT_EQ(test, mrc_sack_build(ofo, ARRAY_SIZE(ofo), cum,
					     cum + 1000, w),
			(unsigned int)MRC_SACK_WORDS);
	for (i = 0; i < MRC_SACK_WORDS; i++)
		KUNIT_EXPECT_EQ(test, w[i], ~0U);
	/* a ring of 40 slots holds 39 PSNs after the cumulative one */
	KUNIT_EXPECT_EQ(test, mrc_sack_build(ofo, 40, cum, cum + 1000, w), 2U);
	KUNIT_EXPECT_EQ(test, w[0], ~0U);
	KUNIT_EXPECT_EQ(test, w[1], 0x7fU);
}

static void mrc_sack_at_wraparound(struct kunit *test)
{
	void **ofo = kunit_kcalloc(test, SLOTS, sizeof(*ofo), GFP_KERNEL);
	u32 w[MRC_SACK_WORDS];
	static int held;
	u32 cum = 0xfffffffeU;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, ofo);
	ofo[(u32)(cum + 1) % SLOTS] = &held;	/* 0xffffffff: bit 0 */
	ofo[(u32)(cum + 2) % SLOTS] = &held;	/* 0: bit 1 */
	ofo[(u32)(cum + 5) % SLOTS] = &held;	/* 3: bit 4 */
	KUNIT_EXPECT_EQ(test, sack(ofo, cum, 4, w), 2U);
	KUNIT_EXPECT_EQ(test, w[0], 0x13U);
}

static void mrc_loss_ev_only_inside_sack_range(struct kunit *test)
{
	u32 cum = 0xfffffff0U;

	/* the cumulative point itself is missing by definition */
	KUNIT_EXPECT_TRUE(test, mrc_loss_ev_visible(cum, cum));
	KUNIT_EXPECT_TRUE(test, mrc_loss_ev_visible(cum + MRC_SACK_BITS, cum));
	/* beyond the bitmap the ACK says nothing */
	KUNIT_EXPECT_FALSE(test,
			   mrc_loss_ev_visible(cum + MRC_SACK_BITS + 1, cum));
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

	/* the floor is an allowance over srtt, then the ceiling */
	KUNIT_EXPECT_EQ(test, mrc_rtt_update(&r, 10, 5000, 1000000), 5010U);
	/* a steady RTT above the floor: srtt plus the floor, not srtt plus
	 * its small variation
	 */
	r = (struct mrc_rtt){ 20000, 100 };
	KUNIT_EXPECT_EQ(test, mrc_rtt_update(&r, 20000, 10000, 1000000),
			30000U);
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

/* Feed ACKs @from..@to (inclusive, wrapping), each naming @port as its
 * predecessor's EV, but for @skip; count the reports.
 */
static unsigned int ack_run(struct mrc_ack_rx *rx, u16 from, u16 to,
			    u16 skip, u16 port, struct mrc_ack_lost *got)
{
	struct mrc_ack_lost lost[MRC_ACK_LOG];
	unsigned int n = 0, i, k;
	u16 s;

	for (s = from;; s++) {
		if (s != skip) {
			k = mrc_ack_rx_add(rx, s, port, lost);
			for (i = 0; i < k; i++)
				got[n++] = lost[i];
		}
		if (s == to)
			break;
	}
	return n;
}

/* Reverse-path learning: a missing ACK is reported once, with the EV its
 * successor named, when MRC_ACK_REORDER later ones have come; one that
 * is only late is not; wrap-around and jumps are harmless.
 */
static void mrc_ack_rx_judges_missing(struct kunit *test)
{
	struct mrc_ack_lost got[64], lost[MRC_ACK_LOG];
	struct mrc_ack_rx rx = {};

	/* the peer's first ACK names no EV; nothing missing, across the
	 * wrap
	 */
	KUNIT_EXPECT_EQ(test, mrc_ack_rx_add(&rx, 0xffef, 0, lost), 0U);
	KUNIT_EXPECT_EQ(test, ack_run(&rx, 0xfff0, 0x0020, 0x8000, 7, got),
			0U);
	/* 0x0025 missing: judged once 0x0025 + 8 arrived, not before */
	KUNIT_EXPECT_EQ(test, ack_run(&rx, 0x0021, 0x002c, 0x0025, 1234, got),
			0U);
	KUNIT_EXPECT_EQ(test, ack_run(&rx, 0x002d, 0x002d, 0x8000, 1234, got),
			1U);
	KUNIT_EXPECT_EQ(test, got[0].seq, 0x0025);
	KUNIT_EXPECT_EQ(test, got[0].port, 1234);
	KUNIT_EXPECT_EQ(test, ack_run(&rx, 0x002e, 0x0060, 0x8000, 1, got),
			0U);
	/* arriving after its verdict changes nothing, nor reports again */
	KUNIT_EXPECT_EQ(test, mrc_ack_rx_add(&rx, 0x0025, 1, lost), 0U);
	KUNIT_EXPECT_EQ(test, ack_run(&rx, 0x0061, 0x0070, 0x8000, 1, got),
			0U);

	/* late by 7: no verdict */
	KUNIT_EXPECT_EQ(test, ack_run(&rx, 0x0071, 0x0078, 0x0072, 9, got),
			0U);
	KUNIT_EXPECT_EQ(test, mrc_ack_rx_add(&rx, 0x0072, 9, lost), 0U);
	KUNIT_EXPECT_EQ(test, ack_run(&rx, 0x0079, 0x0090, 0x8000, 9, got),
			0U);

	/* a duplicate is nothing */
	KUNIT_EXPECT_EQ(test, mrc_ack_rx_add(&rx, 0x0090, 9, lost), 0U);

	/* the first of a run of losses has no successor to name it: only
	 * the last is judged
	 */
	KUNIT_EXPECT_EQ(test, ack_run(&rx, 0x0091, 0x0093, 0x8000, 5, got),
			0U);
	KUNIT_EXPECT_EQ(test, ack_run(&rx, 0x0096, 0x00a0, 0x8000, 5, got),
			1U);
	KUNIT_EXPECT_EQ(test, got[0].seq, 0x0095);

	/* a jump far ahead: at most the log is judged, nothing stale */
	KUNIT_EXPECT_EQ(test, ack_run(&rx, 0x00a1, 0x00a2, 0x8000, 5, got),
			0U);
	KUNIT_EXPECT_EQ(test, mrc_ack_rx_add(&rx, 0x4000, 5, lost), 0U);
	KUNIT_EXPECT_EQ(test, ack_run(&rx, 0x4001, 0x4010, 0x8000, 5, got),
			1U);
	KUNIT_EXPECT_EQ(test, got[0].seq, 0x3fff);
	/* an ACK that names no EV (the peer's first) announces nothing */
	KUNIT_EXPECT_EQ(test, ack_run(&rx, 0x4012, 0x4030, 0x8000, 0, got),
			0U);

	/* the first ACK seen names its predecessor, which never came */
	memset(&rx, 0, sizeof(rx));
	KUNIT_EXPECT_EQ(test, ack_run(&rx, 100, 108, 0x8000, 3, got), 1U);
	KUNIT_EXPECT_EQ(test, got[0].seq, 99);
	KUNIT_EXPECT_EQ(test, got[0].port, 3);
}

/* An ACK that may only say it arrived (mrc_ack_rx_late(): its PSNs are
 * older than what was acknowledged): a genuine late one is not reported
 * lost; one far ahead or behind moves nothing and names nothing.
 */
static void mrc_ack_rx_late_only_arrives(struct kunit *test)
{
	struct mrc_ack_lost got[64], lost[MRC_ACK_LOG];
	struct mrc_ack_rx rx = {};

	mrc_ack_rx_late(&rx, 5);
	KUNIT_EXPECT_FALSE(test, rx.any);
	KUNIT_EXPECT_EQ(test, mrc_ack_rx_add(&rx, 1, 0, lost), 0U);
	/* 15 named missing by 16, then arrives late, as an old ACK */
	KUNIT_EXPECT_EQ(test, ack_run(&rx, 2, 20, 15, 3, got), 0U);
	mrc_ack_rx_late(&rx, 15);
	KUNIT_EXPECT_EQ(test, ack_run(&rx, 21, 40, 0x8000, 3, got), 0U);
	/* forged: far ahead, or behind the reordering allowance */
	mrc_ack_rx_late(&rx, 0x1000);
	mrc_ack_rx_late(&rx, 40 - MRC_ACK_REORDER);
	KUNIT_EXPECT_EQ(test, rx.hi, 40);
	KUNIT_EXPECT_NE(test, rx.log[0x1000 % MRC_ACK_LOG].seq, 0x1000);
	/* 45 missing, judged; arriving afterwards changes nothing */
	KUNIT_EXPECT_EQ(test, ack_run(&rx, 41, 60, 45, 3, got), 1U);
	KUNIT_EXPECT_EQ(test, got[0].seq, 45);
	mrc_ack_rx_late(&rx, 45);
	KUNIT_EXPECT_EQ(test, rx.log[45 % MRC_ACK_LOG].state,
			MRC_ACK_RX_REPORTED);
	/* a missing one whose late copy comes within the allowance */
	KUNIT_EXPECT_EQ(test, ack_run(&rx, 61, 70, 66, 3, got), 0U);
	mrc_ack_rx_late(&rx, 66);
	KUNIT_EXPECT_EQ(test, ack_run(&rx, 71, 90, 0x8000, 3, got), 0U);
}

/* Which data packets' ACKs wait to go with later ones: @psn just taken,
 * in the middle of its message, the stream fast, nothing else unusual.
 */
static bool hold(u32 psn, u32 rcv_nxt, u32 rcv_hi, unsigned int pend,
		 unsigned int coalesce)
{
	return mrc_ack_hold(psn, rcv_nxt, rcv_hi, true, true, 0, pend,
			    coalesce);
}

static void mrc_ack_hold_rule(struct kunit *test)
{
	/* in order in the middle of a message: waits, up to the 8th */
	KUNIT_EXPECT_TRUE(test, hold(100, 101, 101, 0, 8));
	KUNIT_EXPECT_TRUE(test, hold(100, 101, 101, 6, 8));
	KUNIT_EXPECT_FALSE(test, hold(100, 101, 101, 7, 8));
	KUNIT_EXPECT_TRUE(test, hold(100, 101, 101, 15, 17));
	KUNIT_EXPECT_FALSE(test, hold(100, 101, 101, 16, 17));
	/* an ACK per packet */
	KUNIT_EXPECT_FALSE(test, hold(100, 101, 101, 0, 1));
	/* the last of a message or an operation, a marked one */
	KUNIT_EXPECT_FALSE(test, mrc_ack_hold(100, 101, 101, false, true, 0,
					      0, 8));
	KUNIT_EXPECT_FALSE(test, mrc_ack_hold(100, 101, 101, true, true,
					      MRC_F_CE, 0, 8));
	/* a slow stream: the next packet is not worth waiting for */
	KUNIT_EXPECT_FALSE(test, mrc_ack_hold(100, 101, 101, true, false, 0,
					      0, 8));
	/* out of order: held, the gap stays open */
	KUNIT_EXPECT_FALSE(test, hold(105, 100, 106, 0, 8));
	/* it filled a gap: the ones that waited went with it */
	KUNIT_EXPECT_FALSE(test, hold(100, 106, 106, 0, 8));
	/* in order, but packets wait out of order beyond the next gap */
	KUNIT_EXPECT_FALSE(test, hold(100, 101, 110, 0, 8));
	/* rcv_hi left behind rcv_nxt (nothing held) is not a gap */
	KUNIT_EXPECT_TRUE(test, hold(100, 101, 90, 0, 8));
	/* across the wrap of the PSN space */
	KUNIT_EXPECT_TRUE(test, hold(U32_MAX, 0, 0, 0, 8));
	KUNIT_EXPECT_FALSE(test, hold(U32_MAX, 0, 3, 0, 8));
}

static struct kunit_case mrc_loss_cases[] = {
	KUNIT_CASE(mrc_ack_hold_rule),
	KUNIT_CASE(mrc_sack_reports_held_psns),
	KUNIT_CASE(mrc_sack_at_wraparound),
	KUNIT_CASE(mrc_sack_widest),
	KUNIT_CASE(mrc_ack_rx_judges_missing),
	KUNIT_CASE(mrc_ack_rx_late_only_arrives),
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
