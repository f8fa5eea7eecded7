// SPDX-License-Identifier: GPL-2.0
/* KUnit suite for mrc's congestion control (cc.h): each case drives an
 * algorithm with a scripted ACK sequence and checks how the window answers.
 *
 * The simulated sender is ACK-clocked: before each ACK it fills the window
 * (snd_nxt = snd_una + cwnd when fewer packets are in flight) and each ACK
 * acknowledges the oldest packet in flight.  A round is a round trip as
 * cc.h counts it: it ends when snd_una reaches the snd_nxt noted when the
 * previous round ended, so it carries a window of ACKs less the packets
 * the previous round's last ACK took out of flight (cwnd - 1 in steady
 * state, cwnd - 2 in slow start).  The first round after mrc_cc_init() is
 * a single ACK: the window is empty when the connection starts.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "cc.h"

#define START_PSN	0xffffff00U	/* sequence space wraps early on */
#define BASE_RTT	100U		/* us: the path without a queue */
#define TARGET		1000U		/* us: target_delay_us of the cases */
#define ROUND_ACKS_MAX	100000U		/* a longer round is a bug */

struct sim {
	struct kunit *test;
	struct mrc_cc cc;
	u32 una;
	u32 nxt;
	/* the last round */
	u32 acks;
	u32 marks;
	u32 samples;
	u64 delay_sum;	/* of its RTT samples above BASE_RTT */
	u32 app_limit;	/* non-zero: the application keeps no more in flight */
	u32 now_us;	/* the clock: each ACK is 10 us after the one before */
};

/* What the ACKs of a round say: @ce of every @den are marked, spread
 * evenly from the round's first ACK on; the i-th has the RTT @rtt[i % 2]
 * (0: no sample).
 */
struct pat {
	u32 ce;
	u32 den;
	u32 rtt[2];
};

static struct pat pat(u32 ce, u32 den, u32 rtt)
{
	return (struct pat){ .ce = ce, .den = den, .rtt = { rtt, rtt } };
}

static struct pat clean(void)
{
	return pat(0, 1, BASE_RTT);
}

static struct mrc_cc_params params(void)
{
	return (struct mrc_cc_params){
		.target_delay_us = TARGET,
		.ai = MRC_DEFAULT_CC_AI,
		.md = MRC_DEFAULT_CC_MD,
		.init_cwnd = MRC_DEFAULT_CC_INIT_CWND,
		.max_cwnd = MRC_DEFAULT_CC_MAX_CWND,
	};
}

static void sim_init(struct kunit *test, struct sim *s, u8 algo,
		     const struct mrc_cc_params *p)
{
	memset(s, 0, sizeof(*s));
	s->test = test;
	s->una = START_PSN;
	s->nxt = START_PSN;
	mrc_cc_init(&s->cc, algo, p, START_PSN);
}

/* An ACK for the @n oldest packets in flight.  Return: it ended a round. */
static bool sim_ack_n(struct sim *s, u32 n, u32 ce, u32 rtt_us)
{
	struct mrc_cc_ack a;
	bool end;

	if (s->nxt - s->una < s->cc.cwnd)
		s->nxt = s->una + s->cc.cwnd;
	KUNIT_ASSERT_LE(s->test, n, s->nxt - s->una);
	a = (struct mrc_cc_ack){
		.acked = n,
		.ce = ce,
		.rtt_us = rtt_us,
		.now_us = s->now_us,
		.snd_una = s->una + n,
		.snd_nxt = s->nxt,
		.in_flight = s->app_limit ? min(s->app_limit, s->nxt - s->una) :
					    s->nxt - s->una,
	};
	s->una += n;
	s->now_us += 10;
	end = !mrc_psn_before(s->una, s->cc.round_end);
	mrc_cc_on_ack(&s->cc, &a);
	KUNIT_EXPECT_GE(s->test, s->cc.cwnd, MRC_CC_MIN_CWND);
	KUNIT_EXPECT_LE(s->test, s->cc.cwnd, s->cc.p.max_cwnd);
	return end;
}

static bool sim_ack(struct sim *s, u32 ce, u32 rtt_us)
{
	return sim_ack_n(s, 1, ce, rtt_us);
}

/* One round of ACKs as @p says.  Return: how many. */
static u32 sim_round(struct sim *s, struct pat p)
{
	u32 n = 0;
	bool end;

	s->marks = 0;
	s->samples = 0;
	s->delay_sum = 0;
	do {
		bool ce = p.den && (n * p.ce) % p.den < p.ce;
		u32 rtt = p.rtt[n % 2];

		KUNIT_ASSERT_LT(s->test, n, ROUND_ACKS_MAX);
		s->marks += ce;
		if (rtt) {
			s->samples++;
			s->delay_sum += rtt - BASE_RTT;
		}
		end = sim_ack(s, ce, rtt);
		n++;
	} while (!end);
	s->acks = n;
	return n;
}

static void sim_rounds(struct sim *s, struct pat p, u32 rounds)
{
	while (rounds--)
		sim_round(s, p);
}

/* init, and the first round (one ACK) without marks at the base RTT */
static void sim_start(struct kunit *test, struct sim *s, u8 algo,
		      const struct mrc_cc_params *p)
{
	sim_init(test, s, algo, p);
	sim_round(s, clean());
	KUNIT_ASSERT_EQ(test, s->cc.base_rtt_us, BASE_RTT);
}

/* ACKs until a recovery ends */
static void sim_recover(struct sim *s)
{
	u32 n = 0;

	while (s->cc.in_recovery) {
		KUNIT_ASSERT_LT(s->test, n++, ROUND_ACKS_MAX);
		sim_ack(s, 0, BASE_RTT);
	}
}

/* the marked fraction of the last round, 1/1024 */
static u32 sim_frac(const struct sim *s)
{
	return s->acks ? s->marks * MRC_CC_ONE / s->acks : 0;
}

/* the window less @frac/1024 of it, as a decrease of the round leaves it */
static u32 cut(u32 cwnd, u32 frac)
{
	return max_t(u32, cwnd - (u64)cwnd * frac / MRC_CC_ONE,
		     MRC_CC_MIN_CWND);
}

/* ------------------------------------------------------------------ */

static void mrc_cc_init_window(struct kunit *test)
{
	struct mrc_cc_params p = params();
	struct mrc_cc cc;

	memset(&cc, 0xff, sizeof(cc));
	mrc_cc_init(&cc, MRC_CC_RENO, &p, 7);
	KUNIT_EXPECT_EQ(test, cc.algo, MRC_CC_RENO);
	KUNIT_EXPECT_EQ(test, cc.cwnd, 10U);
	KUNIT_EXPECT_EQ(test, cc.ssthresh, 1024U);
	KUNIT_EXPECT_EQ(test, cc.alpha, 0U);
	KUNIT_EXPECT_EQ(test, cc.base_rtt_us, 0U);
	KUNIT_EXPECT_EQ(test, cc.delay_us, 0U);
	KUNIT_EXPECT_EQ(test, cc.cnt, 0U);
	KUNIT_EXPECT_EQ(test, cc.round_end, 7U);
	KUNIT_EXPECT_FALSE(test, cc.in_recovery);

	/* clamped to [2, max_cwnd] */
	p.init_cwnd = 0;
	mrc_cc_init(&cc, MRC_CC_NSCC, &p, 0);
	KUNIT_EXPECT_EQ(test, cc.cwnd, 2U);
	p.init_cwnd = 1;
	mrc_cc_init(&cc, MRC_CC_NSCC, &p, 0);
	KUNIT_EXPECT_EQ(test, cc.cwnd, 2U);
	p.init_cwnd = 2;
	mrc_cc_init(&cc, MRC_CC_NSCC, &p, 0);
	KUNIT_EXPECT_EQ(test, cc.cwnd, 2U);
	p.init_cwnd = 5000;
	p.max_cwnd = 64;
	mrc_cc_init(&cc, MRC_CC_DCTCP, &p, 0);
	KUNIT_EXPECT_EQ(test, cc.cwnd, 64U);
	KUNIT_EXPECT_EQ(test, cc.ssthresh, 64U);
	p.init_cwnd = 10;
	p.max_cwnd = 0;
	mrc_cc_init(&cc, MRC_CC_DCTCP, &p, 0);
	KUNIT_EXPECT_EQ(test, cc.cwnd, 2U);
	KUNIT_EXPECT_EQ(test, cc.ssthresh, 2U);

	/* the algorithm, nscc when out of range */
	p = params();
	mrc_cc_init(&cc, MRC_CC_DCTCP, &p, 0);
	KUNIT_EXPECT_EQ(test, cc.algo, MRC_CC_DCTCP);
	mrc_cc_init(&cc, MRC_CC_NSCC, &p, 0);
	KUNIT_EXPECT_EQ(test, cc.algo, MRC_CC_NSCC);
	mrc_cc_init(&cc, MRC_CC_RENO + 1, &p, 0);
	KUNIT_EXPECT_EQ(test, cc.algo, MRC_CC_NSCC);
	mrc_cc_init(&cc, 255, &p, 0);
	KUNIT_EXPECT_EQ(test, cc.algo, MRC_CC_NSCC);
	KUNIT_EXPECT_STREQ(test, mrc_cc_ops_of(MRC_CC_RENO + 1)->name, "nscc");
	KUNIT_EXPECT_STREQ(test, mrc_cc_ops_of(MRC_CC_DCTCP)->name, "dctcp");
	KUNIT_EXPECT_STREQ(test, mrc_cc_ops_of(MRC_CC_RENO)->name, "reno");
}

/* each ACK adds a packet: the window doubles a round (less the two packets
 * the ACK clock holds back)
 */
static void mrc_cc_reno_slow_start(struct kunit *test)
{
	struct mrc_cc_params p = params();
	struct sim s;
	unsigned int i;

	sim_start(test, &s, MRC_CC_RENO, &p);
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, 11U);
	for (i = 0; i < 5; i++) {
		u32 before = s.cc.cwnd;
		u32 acks = sim_round(&s, clean());

		KUNIT_EXPECT_EQ(test, acks, before - 2);
		KUNIT_EXPECT_EQ(test, s.cc.cwnd, before + acks);
		KUNIT_EXPECT_GE(test, s.cc.cwnd, 2 * before - 2);
	}
	KUNIT_EXPECT_EQ(test, s.cc.ssthresh, 1024U);
}

/* after an RTO: slow start up to ssthresh exactly, then ai a round */
static void mrc_cc_reno_ssthresh_then_ai(struct kunit *test)
{
	struct mrc_cc_params p = params();
	u32 c, grown = 0;
	struct sim s;
	unsigned int i;

	sim_start(test, &s, MRC_CC_RENO, &p);
	while (s.cc.cwnd < 64)
		sim_round(&s, clean());
	c = s.cc.cwnd;
	mrc_cc_on_rto(&s.cc, s.nxt);
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, c / 4);
	KUNIT_EXPECT_EQ(test, s.cc.ssthresh, c / 2);
	KUNIT_EXPECT_TRUE(test, s.cc.in_recovery);
	/* no growth until what was in flight is acknowledged */
	while (s.cc.in_recovery) {
		KUNIT_EXPECT_EQ(test, s.cc.cwnd, c / 4);
		sim_ack(&s, 0, BASE_RTT);
	}
	for (i = 0; i < 10 && s.cc.cwnd < c / 2; i++) {
		u32 before = s.cc.cwnd;
		u32 acks = sim_round(&s, clean());

		KUNIT_EXPECT_EQ(test, s.cc.cwnd, min(before + acks, c / 2));
	}
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, c / 2);
	/* a round of cwnd - 1 ACKs adds ai at most once */
	for (i = 0; i < 20; i++) {
		u32 before = s.cc.cwnd;

		sim_round(&s, clean());
		KUNIT_EXPECT_TRUE(test, s.cc.cwnd == before ||
				  s.cc.cwnd == before + p.ai);
		grown += s.cc.cwnd - before;
	}
	KUNIT_EXPECT_GE(test, grown, 18 * p.ai);
	KUNIT_EXPECT_LE(test, grown, 20 * p.ai);

	/* an ACK for many packets stops at ssthresh too */
	p.init_cwnd = 100;
	sim_start(test, &s, MRC_CC_RENO, &p);
	mrc_cc_on_rto(&s.cc, s.nxt);
	sim_recover(&s);
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, 101U / 4 + 1);
	sim_ack_n(&s, 20, 0, BASE_RTT);
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, 101U / 4 + 1 + 20);
	sim_ack_n(&s, 20, 0, BASE_RTT);
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, 101U / 2);
	KUNIT_EXPECT_EQ(test, s.cc.ssthresh, 101U / 2);
}

/* loss halves once per round trip: until what was sent before it is
 * acknowledged, a further loss changes nothing
 */
static void mrc_cc_reno_loss_once_per_round_trip(struct kunit *test)
{
	struct mrc_cc_params p = params();
	u32 c, half, psn;
	struct sim s;

	sim_start(test, &s, MRC_CC_RENO, &p);
	while (s.cc.cwnd < 40)
		sim_round(&s, clean());
	c = s.cc.cwnd;
	psn = s.nxt;
	KUNIT_EXPECT_TRUE(test, mrc_cc_on_loss(&s.cc, psn, psn));
	half = c - c / 2;
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, half);
	KUNIT_EXPECT_EQ(test, s.cc.ssthresh, half);
	KUNIT_EXPECT_EQ(test, s.cc.recovery_psn, psn);
	KUNIT_EXPECT_FALSE(test, mrc_cc_on_loss(&s.cc, s.nxt, s.nxt));
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, half);

	/* ACKs up to the last packet sent before the loss */
	while (s.una + 1 != psn) {
		sim_ack(&s, 0, BASE_RTT);
		KUNIT_EXPECT_EQ(test, s.cc.cwnd, half);
	}
	KUNIT_EXPECT_TRUE(test, s.cc.in_recovery);
	KUNIT_EXPECT_FALSE(test, mrc_cc_on_loss(&s.cc, s.nxt, s.nxt));
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, half);

	/* its ACK ends the recovery: the next loss halves again */
	sim_ack(&s, 0, BASE_RTT);
	KUNIT_EXPECT_FALSE(test, s.cc.in_recovery);
	c = s.cc.cwnd;
	KUNIT_EXPECT_LE(test, c, half + 1);
	KUNIT_EXPECT_TRUE(test, mrc_cc_on_loss(&s.cc, s.nxt, s.nxt));
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, c - c / 2);
	KUNIT_EXPECT_FALSE(test, mrc_cc_on_loss(&s.cc, s.nxt, s.nxt));
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, c - c / 2);
}

/* A loss whose packet arrived after all (its retransmission was
 * spurious): the cut is undone, once, only for the packet that caused it,
 * never after a timeout, and not once another cut followed.
 */
static void mrc_cc_undo_spurious_loss(struct kunit *test)
{
	struct mrc_cc_params p = params();
	u32 c, ss;
	struct sim s;

	sim_start(test, &s, MRC_CC_RENO, &p);
	while (s.cc.cwnd < 40)
		sim_round(&s, clean());
	c = s.cc.cwnd;
	ss = s.cc.ssthresh;
	KUNIT_EXPECT_TRUE(test, mrc_cc_on_loss(&s.cc, s.nxt, 77));
	KUNIT_EXPECT_LT(test, s.cc.cwnd, c);
	KUNIT_EXPECT_FALSE(test, mrc_cc_undo(&s.cc, 78));
	KUNIT_EXPECT_TRUE(test, mrc_cc_undo(&s.cc, 77));
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, c);
	KUNIT_EXPECT_EQ(test, s.cc.ssthresh, ss);
	KUNIT_EXPECT_FALSE(test, s.cc.in_recovery);
	KUNIT_EXPECT_FALSE(test, mrc_cc_undo(&s.cc, 77));
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, c);

	/* a timeout's reaction stays */
	KUNIT_EXPECT_TRUE(test, mrc_cc_on_loss(&s.cc, s.nxt, 90));
	mrc_cc_on_rto(&s.cc, s.nxt);
	c = s.cc.cwnd;
	KUNIT_EXPECT_FALSE(test, mrc_cc_undo(&s.cc, 90));
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, c);
}

/* nscc: a cut for marks after the loss's is not undone with it */
static void mrc_cc_undo_not_after_marks(struct kunit *test)
{
	struct mrc_cc_params p = params();
	struct sim s;
	u32 c;

	p.init_cwnd = 40;
	sim_start(test, &s, MRC_CC_NSCC, &p);
	KUNIT_EXPECT_TRUE(test, mrc_cc_on_loss(&s.cc, s.nxt, 5));
	/* the recovery ends, then a fully marked round cuts again */
	sim_rounds(&s, clean(), 2);
	sim_rounds(&s, pat(1, 1, BASE_RTT + 5 * TARGET), 4);
	c = s.cc.cwnd;
	KUNIT_EXPECT_FALSE(test, mrc_cc_undo(&s.cc, 5));
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, c);
}

/* reno sees neither marks nor delay: the same ACKs marked and late leave
 * it where clean ones do
 */
static void mrc_cc_reno_ignores_ce_and_delay(struct kunit *test)
{
	struct mrc_cc_params p = params();
	struct sim a, b;
	unsigned int i;

	sim_start(test, &a, MRC_CC_RENO, &p);
	sim_start(test, &b, MRC_CC_RENO, &p);
	for (i = 0; i < 30; i++) {
		if (i == 4) {
			mrc_cc_on_loss(&a.cc, a.nxt, a.nxt);
			mrc_cc_on_loss(&b.cc, b.nxt, b.nxt);
		}
		sim_round(&a, clean());
		sim_round(&b, pat(1, 1, BASE_RTT + 20 * TARGET));
		KUNIT_EXPECT_EQ(test, a.cc.cwnd, b.cc.cwnd);
		KUNIT_EXPECT_EQ(test, a.cc.ssthresh, b.cc.ssthresh);
	}
	KUNIT_EXPECT_EQ(test, b.cc.delay_us, 20 * TARGET);
	KUNIT_EXPECT_GT(test, b.cc.cwnd, b.cc.ssthresh);
}

static void mrc_cc_reno_window_bounds(struct kunit *test)
{
	struct mrc_cc_params p = params();
	struct sim s;
	unsigned int i;

	/* never above max_cwnd, in slow start or after */
	p.max_cwnd = 64;
	sim_start(test, &s, MRC_CC_RENO, &p);
	sim_rounds(&s, clean(), 10);
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, 64U);
	mrc_cc_on_loss(&s.cc, s.nxt, s.nxt);
	sim_rounds(&s, clean(), 60);
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, 64U);

	/* never below 2, on loss or timeout */
	p = params();
	p.init_cwnd = 5;
	sim_init(test, &s, MRC_CC_RENO, &p);
	mrc_cc_on_rto(&s.cc, s.nxt);
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, 2U);
	KUNIT_EXPECT_EQ(test, s.cc.ssthresh, 2U);
	for (i = 0; i < 5; i++) {
		sim_recover(&s);
		sim_round(&s, clean());
		KUNIT_EXPECT_TRUE(test, mrc_cc_on_loss(&s.cc, s.nxt, s.nxt));
		KUNIT_EXPECT_EQ(test, s.cc.cwnd, 2U);
		mrc_cc_on_loss(&s.cc, s.nxt, s.nxt);
		KUNIT_EXPECT_EQ(test, s.cc.cwnd, 2U);
		KUNIT_EXPECT_GE(test, s.cc.ssthresh, 2U);
		mrc_cc_on_rto(&s.cc, s.nxt);
		KUNIT_EXPECT_EQ(test, s.cc.cwnd, 2U);
		KUNIT_EXPECT_EQ(test, s.cc.ssthresh, 2U);
	}
}

/* alpha, the EWMA of the marked fraction (gain 1/16), converges to it;
 * md 1 keeps the window, and so the rounds, the same size
 */
static void mrc_cc_dctcp_alpha_converges(struct kunit *test)
{
	static const u32 frac[][2] = {
		{ 1, 2 }, { 1, 4 }, { 1, 1 }, { 3, 4 }, { 0, 1 },
	};
	struct mrc_cc_params p = params();
	struct sim s;
	unsigned int i;

	p.md = 1;
	p.init_cwnd = 32;
	sim_start(test, &s, MRC_CC_DCTCP, &p);
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, 33U);
	sim_round(&s, pat(1, 1, BASE_RTT));
	KUNIT_EXPECT_EQ(test, s.cc.alpha, 64U);	/* 1024 / 16 */
	for (i = 0; i < ARRAY_SIZE(frac); i++) {
		u32 want = frac[i][0] * MRC_CC_ONE / frac[i][1];

		sim_rounds(&s, pat(frac[i][0], frac[i][1], BASE_RTT), 100);
		if (want) {
			KUNIT_EXPECT_EQ(test, s.cc.cwnd, 33U);
			KUNIT_EXPECT_EQ(test, s.acks, 32U);
		}
		KUNIT_EXPECT_EQ(test, sim_frac(&s), want);
		KUNIT_EXPECT_LE(test, abs((int)s.cc.alpha - (int)want), 16);
	}
}

/* a round with marks takes alpha/2 of the window (alpha updated with the
 * round's fraction first), at most md
 */
static void mrc_cc_dctcp_marks_shrink_by_half_alpha(struct kunit *test)
{
	static const u32 marked[][2] = {
		{ 1, 2 }, { 1, 1 }, { 1, 2 }, { 1, 8 }, { 1, 1 }, { 1, 1 },
		{ 1, 1 }, { 1, 1 }, { 3, 4 }, { 1, 1 }, { 1, 1 }, { 1, 1 },
	};
	struct mrc_cc_params p = params();
	struct sim s;
	unsigned int i;

	p.init_cwnd = 1000;
	sim_start(test, &s, MRC_CC_DCTCP, &p);
	for (i = 0; i < ARRAY_SIZE(marked); i++) {
		u32 before = s.cc.cwnd, alpha = s.cc.alpha;

		sim_round(&s, pat(marked[i][0], marked[i][1], BASE_RTT));
		alpha = alpha - (alpha >> MRC_CC_G_SHIFT) +
			(sim_frac(&s) >> MRC_CC_G_SHIFT);
		KUNIT_EXPECT_EQ(test, s.cc.alpha, alpha);
		KUNIT_EXPECT_EQ(test, s.cc.cwnd,
				cut(before, min(alpha / 2, p.md)));
		KUNIT_EXPECT_EQ(test, s.cc.ssthresh, s.cc.cwnd);
	}
	KUNIT_EXPECT_GT(test, s.cc.alpha, 300U);
	KUNIT_EXPECT_LT(test, s.cc.cwnd, 600U);
}

/* rounds without marks grow the window (ai a round past ssthresh) and let
 * alpha decay
 */
static void mrc_cc_dctcp_grows_without_marks(struct kunit *test)
{
	struct mrc_cc_params p = params();
	u32 grown = 0;
	struct sim s;
	unsigned int i;

	p.init_cwnd = 100;
	sim_start(test, &s, MRC_CC_DCTCP, &p);
	sim_rounds(&s, pat(1, 1, BASE_RTT), 3);
	KUNIT_EXPECT_LT(test, s.cc.cwnd, 100U);
	KUNIT_EXPECT_EQ(test, s.cc.ssthresh, s.cc.cwnd);
	for (i = 0; i < 20; i++) {
		u32 before = s.cc.cwnd, alpha = s.cc.alpha;

		sim_round(&s, clean());
		KUNIT_EXPECT_TRUE(test, s.cc.cwnd == before ||
				  s.cc.cwnd == before + p.ai);
		grown += s.cc.cwnd - before;
		KUNIT_EXPECT_LT(test, s.cc.alpha, alpha);
	}
	KUNIT_EXPECT_GE(test, grown, 18U);
}

/* every packet marked, round after round: down to 2 and never below */
static void mrc_cc_dctcp_all_marked_floor(struct kunit *test)
{
	struct mrc_cc_params p = params();
	struct sim s;
	unsigned int i;

	p.init_cwnd = 100;
	sim_start(test, &s, MRC_CC_DCTCP, &p);
	for (i = 0; i < 200; i++) {
		u32 before = s.cc.cwnd;

		sim_round(&s, pat(1, 1, BASE_RTT));
		KUNIT_EXPECT_LE(test, s.cc.cwnd, before);
		KUNIT_EXPECT_GE(test, s.cc.cwnd, 2U);
	}
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, 2U);
	KUNIT_EXPECT_GE(test, s.cc.alpha, MRC_CC_ONE - 16);
}

/* no marks, delay below the target: slow start, a packet an ACK */
static void mrc_cc_nscc_grows_when_clear(struct kunit *test)
{
	struct mrc_cc_params p = params();
	struct sim s;
	unsigned int i;

	sim_start(test, &s, MRC_CC_NSCC, &p);
	for (i = 0; i < 5; i++) {
		u32 before = s.cc.cwnd;
		u32 acks = sim_round(&s, pat(0, 1, BASE_RTT + TARGET - 100));

		KUNIT_EXPECT_EQ(test, s.cc.delay_us, TARGET - 100);
		KUNIT_EXPECT_EQ(test, s.cc.cwnd, before + acks);
		KUNIT_EXPECT_GT(test, s.cc.cwnd, before);
	}
}

/* marks and delay: a cut of half the marked fraction, more for more */
static void mrc_cc_nscc_marks_and_delay_shrink(struct kunit *test)
{
	struct mrc_cc_params p = params();
	struct sim s, t;
	u32 last = 0;
	u32 ce;

	p.init_cwnd = 512;
	sim_start(test, &s, MRC_CC_NSCC, &p);
	for (ce = 1; ce <= 8; ce++) {
		u32 before = s.cc.cwnd, frac, drop;

		t = s;
		sim_round(&t, pat(ce, 8, BASE_RTT + 2 * TARGET));
		frac = sim_frac(&t);
		KUNIT_EXPECT_EQ(test, t.cc.delay_us, 2 * TARGET);
		KUNIT_EXPECT_EQ(test, t.cc.cwnd,
				cut(before, min(max(frac, t.cc.alpha) / 2,
						p.md)));
		KUNIT_EXPECT_EQ(test, t.cc.ssthresh, t.cc.cwnd);
		drop = before - t.cc.cwnd;
		KUNIT_EXPECT_GT(test, drop, last);
		last = drop;
	}
	KUNIT_EXPECT_EQ(test, t.cc.cwnd, s.cc.cwnd - s.cc.cwnd / 2);
}

/* marks without delay: the marked EVs are a path problem; hold */
static void mrc_cc_nscc_marks_low_delay_hold(struct kunit *test)
{
	struct mrc_cc_params p = params();
	struct sim s;
	u32 c, ss;
	unsigned int i;

	p.init_cwnd = 100;
	sim_start(test, &s, MRC_CC_NSCC, &p);
	c = s.cc.cwnd;
	ss = s.cc.ssthresh;
	for (i = 0; i < 10; i++) {
		sim_round(&s, pat(1, i < 5 ? 2 : 1, BASE_RTT + TARGET / 2));
		KUNIT_EXPECT_EQ(test, s.cc.cwnd, c);
		KUNIT_EXPECT_EQ(test, s.cc.ssthresh, ss);
	}
	KUNIT_EXPECT_GT(test, s.cc.alpha, MRC_CC_ONE / 4);
	/* the marks gone, it grows again from the round after a clean one */
	sim_round(&s, clean());
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, c);
	sim_round(&s, clean());
	KUNIT_EXPECT_GT(test, s.cc.cwnd, c);
}

/* delay without marks: shrink towards the target, (delay - target) /
 * (2 delay) of the window and at most an eighth a round; no more once
 * the delay is below the target
 */
static void mrc_cc_nscc_delay_shrinks_gently(struct kunit *test)
{
	static const u32 delay[] = { 3 * TARGET, 20 * TARGET, TARGET + 200,
				     TARGET + 50 };
	struct mrc_cc_params p = params();
	struct sim s;
	u32 c;
	unsigned int i, j;

	p.init_cwnd = 512;
	sim_start(test, &s, MRC_CC_NSCC, &p);
	for (i = 0; i < ARRAY_SIZE(delay); i++) {
		/* this round's ACKs still see the last round's delay */
		sim_round(&s, pat(0, 1, BASE_RTT + delay[i]));
		for (j = 0; j < 4; j++) {
			u32 before = s.cc.cwnd;
			u32 frac = (delay[i] - TARGET) * MRC_CC_ONE /
				   (2 * delay[i]);

			sim_round(&s, pat(0, 1, BASE_RTT + delay[i]));
			KUNIT_EXPECT_EQ(test, s.cc.delay_us, delay[i]);
			KUNIT_EXPECT_EQ(test, s.cc.cwnd,
					cut(before, min(frac, MRC_CC_ONE / 8)));
			KUNIT_EXPECT_GE(test, s.cc.cwnd, before - before / 8);
			KUNIT_EXPECT_LT(test, s.cc.cwnd, before);
		}
	}
	c = s.cc.cwnd;
	for (i = 0; i < 10; i++) {
		u32 before = s.cc.cwnd;

		sim_round(&s, pat(0, 1, BASE_RTT + TARGET - 1));
		KUNIT_EXPECT_GE(test, s.cc.cwnd, before);
	}
	KUNIT_EXPECT_GT(test, s.cc.cwnd, c);
}

/* the base RTT is the lowest sample seen; no sample, no change */
static void mrc_cc_nscc_base_rtt_min(struct kunit *test)
{
	static const u32 rtt[][2] = {	/* sample, base after it */
		{ 0, 0 }, { 500, 500 }, { 300, 300 }, { 400, 300 }, { 0, 300 },
		{ 250, 250 }, { 5000, 250 }, { 251, 250 }, { 249, 249 },
	};
	struct mrc_cc_params p = params();
	struct sim s;
	unsigned int i;

	sim_init(test, &s, MRC_CC_NSCC, &p);
	for (i = 0; i < ARRAY_SIZE(rtt); i++) {
		sim_ack(&s, 0, rtt[i][0]);
		KUNIT_EXPECT_EQ(test, s.cc.base_rtt_us, rtt[i][1]);
	}
}

/* The base RTT ages: once a path got longer (a failover), its RTT is the
 * base within MRC_CC_BASE_RTT_WIN_US and reads as no queueing; a lower
 * sample counts at once; an idle time longer than the window forgets.
 */
static void mrc_cc_nscc_base_rtt_ages(struct kunit *test)
{
	struct mrc_cc_params p = params();
	struct sim s;

	sim_init(test, &s, MRC_CC_NSCC, &p);
	sim_ack(&s, 0, 100);
	KUNIT_EXPECT_EQ(test, s.cc.base_rtt_us, 100U);
	s.now_us += MRC_CC_BASE_RTT_WIN_US / 4;
	sim_ack(&s, 0, 400);
	KUNIT_EXPECT_EQ(test, s.cc.base_rtt_us, 100U);
	s.now_us += MRC_CC_BASE_RTT_WIN_US / 2;
	sim_ack(&s, 0, 400);
	KUNIT_EXPECT_EQ(test, s.cc.base_rtt_us, 100U);
	/* the 100 us sample is older than the window now */
	s.now_us += MRC_CC_BASE_RTT_WIN_US / 2;
	sim_ack(&s, 0, 400);
	KUNIT_EXPECT_EQ(test, s.cc.base_rtt_us, 400U);
	/* a whole round at the new base reads as no queueing */
	sim_round(&s, pat(0, 1, 400));
	sim_round(&s, pat(0, 1, 400));
	KUNIT_EXPECT_EQ(test, s.cc.delay_us, 0U);
	sim_ack(&s, 0, 300);
	KUNIT_EXPECT_EQ(test, s.cc.base_rtt_us, 300U);
	s.now_us += MRC_CC_BASE_RTT_WIN_US;
	sim_ack(&s, 0, 500);
	KUNIT_EXPECT_EQ(test, s.cc.base_rtt_us, 500U);
}

/* delay_us: the mean of the last round's samples above the base RTT */
static void mrc_cc_nscc_delay_is_mean_of_last_round(struct kunit *test)
{
	struct mrc_cc_params p = params();
	struct pat q = clean();
	struct sim s;

	p.init_cwnd = 40;
	sim_start(test, &s, MRC_CC_NSCC, &p);
	q.rtt[0] = BASE_RTT + 100;
	q.rtt[1] = BASE_RTT + 301;
	sim_round(&s, q);
	KUNIT_EXPECT_GT(test, s.samples, 30U);
	KUNIT_EXPECT_EQ(test, s.cc.delay_us, div_u64(s.delay_sum, s.samples));
	KUNIT_EXPECT_GT(test, s.cc.delay_us, 150U);
	KUNIT_EXPECT_LT(test, s.cc.delay_us, 250U);

	sim_round(&s, pat(0, 1, BASE_RTT + 5 * TARGET));
	KUNIT_EXPECT_EQ(test, s.cc.delay_us, 5 * TARGET);

	/* only the ACKs with a sample count */
	q.rtt[0] = BASE_RTT + 60;
	q.rtt[1] = 0;
	sim_round(&s, q);
	KUNIT_EXPECT_EQ(test, s.cc.delay_us, 60U);
	KUNIT_EXPECT_EQ(test, s.cc.base_rtt_us, BASE_RTT);
}

/* Two nscc flows through one bottleneck: a packet is marked when their
 * windows add up to more than FAIR_K, where the queueing delay passes the
 * target; below it the delay rises towards the target.  From unequal
 * starts they end up with about the same window.
 */
#define FAIR_K		100U
#define FAIR_SVC_US	20U	/* queueing delay a packet above FAIR_K */

static void mrc_cc_nscc_fairness(struct kunit *test)
{
	struct mrc_cc_params p = params();
	struct sim a, b;
	unsigned int i;

	p.init_cwnd = 90;
	sim_start(test, &a, MRC_CC_NSCC, &p);
	p.init_cwnd = 4;
	sim_start(test, &b, MRC_CC_NSCC, &p);
	for (i = 0; i < 500; i++) {
		u32 sum = a.cc.cwnd + b.cc.cwnd;
		struct pat q;

		if (sum > FAIR_K)
			q = pat(1, 1, BASE_RTT + TARGET +
				(sum - FAIR_K) * FAIR_SVC_US);
		else
			q = pat(0, 1, BASE_RTT + sum * (TARGET - 1) / FAIR_K);
		sim_round(&a, q);
		sim_round(&b, q);
		if (i < 450)
			continue;
		KUNIT_EXPECT_LE(test,
				4 * (u32)abs((int)a.cc.cwnd - (int)b.cc.cwnd),
				max(a.cc.cwnd, b.cc.cwnd));
		KUNIT_EXPECT_GE(test, a.cc.cwnd + b.cc.cwnd, FAIR_K / 3);
		KUNIT_EXPECT_LE(test, a.cc.cwnd + b.cc.cwnd, 2 * FAIR_K);
	}
}

/* ai: packets added a round in congestion avoidance; 0 means 1 */
static void mrc_cc_params_ai(struct kunit *test)
{
	static const u32 ai[] = { 1, 4, 16 };
	struct mrc_cc_params p = params();
	struct sim s;
	unsigned int i, j;

	for (i = 0; i < ARRAY_SIZE(ai); i++) {
		u32 grown = 0;

		p.ai = ai[i];
		p.init_cwnd = 100;
		sim_start(test, &s, MRC_CC_RENO, &p);
		mrc_cc_on_loss(&s.cc, s.nxt, s.nxt);
		sim_rounds(&s, clean(), 2);
		for (j = 0; j < 20; j++) {
			u32 before = s.cc.cwnd;

			sim_round(&s, clean());
			KUNIT_EXPECT_TRUE(test, s.cc.cwnd == before ||
					  s.cc.cwnd == before + ai[i]);
			grown += s.cc.cwnd - before;
		}
		KUNIT_EXPECT_GE(test, grown, 18 * ai[i]);
		KUNIT_EXPECT_LE(test, grown, 20 * ai[i]);
	}
	p.ai = 0;
	sim_init(test, &s, MRC_CC_NSCC, &p);
	KUNIT_EXPECT_EQ(test, s.cc.p.ai, 1U);
}

/* md: the cut on loss, and the largest cut of a round with marks */
static void mrc_cc_params_md(struct kunit *test)
{
	struct mrc_cc_params p = params();
	struct sim s;
	u8 algo;
	unsigned int i;

	for (algo = MRC_CC_NSCC; algo <= MRC_CC_RENO; algo++) {
		p.init_cwnd = 400;
		p.md = 256;
		sim_start(test, &s, algo, &p);
		KUNIT_EXPECT_TRUE(test, mrc_cc_on_loss(&s.cc, s.nxt, s.nxt));
		KUNIT_EXPECT_EQ(test, s.cc.cwnd, cut(401, 256));
		p.md = 1024;
		sim_start(test, &s, algo, &p);
		KUNIT_EXPECT_TRUE(test, mrc_cc_on_loss(&s.cc, s.nxt, s.nxt));
		KUNIT_EXPECT_EQ(test, s.cc.cwnd, 2U);
	}

	/* every packet marked: nscc and dctcp take at most md a round */
	p.md = 64;
	for (algo = MRC_CC_NSCC; algo <= MRC_CC_DCTCP; algo++) {
		sim_start(test, &s, algo, &p);
		for (i = 0; i < 40; i++) {
			u32 before = s.cc.cwnd;

			sim_round(&s, pat(1, 1, BASE_RTT + 2 * TARGET));
			KUNIT_EXPECT_GE(test, s.cc.cwnd, before - before / 16);
		}
		KUNIT_EXPECT_GT(test, s.cc.alpha, 2 * p.md);
		KUNIT_EXPECT_LT(test, s.cc.cwnd, 400U / 4);
	}
}

/* target_delay_us: the delay nscc grows below and shrinks from */
static void mrc_cc_params_target_delay(struct kunit *test)
{
	struct mrc_cc_params p = params();
	struct sim s;
	u32 c;
	unsigned int i;

	/* 600us of queueing: below a 1000us target, above a 500us one */
	sim_start(test, &s, MRC_CC_NSCC, &p);
	sim_rounds(&s, pat(0, 1, BASE_RTT + 600), 5);
	KUNIT_EXPECT_GT(test, s.cc.cwnd, 100U);
	p.target_delay_us = 500;
	p.init_cwnd = 100;
	sim_start(test, &s, MRC_CC_NSCC, &p);
	sim_round(&s, pat(0, 1, BASE_RTT + 600));
	for (i = 0; i < 5; i++) {
		c = s.cc.cwnd;
		sim_round(&s, pat(0, 1, BASE_RTT + 600));
		KUNIT_EXPECT_EQ(test, s.cc.cwnd,
				cut(c, 100 * MRC_CC_ONE / 1200));
	}
	/* at the target itself: no growth, no cut */
	sim_round(&s, pat(0, 1, BASE_RTT + 500));
	c = s.cc.cwnd;
	for (i = 0; i < 5; i++) {
		sim_round(&s, pat(0, 1, BASE_RTT + 500));
		KUNIT_EXPECT_EQ(test, s.cc.cwnd, c);
	}
}

/* init_cwnd and max_cwnd, for every algorithm */
static void mrc_cc_params_windows(struct kunit *test)
{
	struct mrc_cc_params p = params();
	struct sim s;
	u8 algo;

	p.init_cwnd = 20;
	p.max_cwnd = 50;
	for (algo = MRC_CC_NSCC; algo <= MRC_CC_RENO; algo++) {
		sim_init(test, &s, algo, &p);
		KUNIT_EXPECT_EQ(test, s.cc.cwnd, 20U);
		KUNIT_EXPECT_EQ(test, s.cc.ssthresh, 50U);
		sim_round(&s, clean());
		sim_round(&s, clean());
		KUNIT_EXPECT_EQ(test, s.cc.cwnd, 20U + 1 + 19);
		sim_rounds(&s, clean(), 20);
		KUNIT_EXPECT_EQ(test, s.cc.cwnd, 50U);
	}
}

/* Marks without delay hold the window wherever in the round the marks
 * fall (10% of the ACKs, the first of them the 10th of the round): only
 * the first round, before any verdict, may grow.
 */
static void mrc_cc_nscc_hold_late_marks(struct kunit *test)
{
	struct mrc_cc_params p = params();
	struct sim s;
	unsigned int i;
	u32 c = 0;

	p.init_cwnd = 100;
	sim_start(test, &s, MRC_CC_NSCC, &p);
	for (i = 0; i < 6; i++) {
		u32 n = 0;
		bool end;

		do {
			end = sim_ack(&s, n % 10 == 9, BASE_RTT);
			n++;
		} while (!end);
		if (!i)
			c = s.cc.cwnd;
	}
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, c);
}

/* dctcp, the same marks: after the first round, no round grows. */
static void mrc_cc_dctcp_late_marks(struct kunit *test)
{
	struct mrc_cc_params p = params();
	struct sim s;
	unsigned int i;

	p.init_cwnd = 100;
	sim_start(test, &s, MRC_CC_DCTCP, &p);
	for (i = 0; i < 6; i++) {
		u32 n = 0, before = s.cc.cwnd;
		bool end;

		do {
			end = sim_ack(&s, n % 10 == 9, BASE_RTT);
			n++;
		} while (!end);
		if (i)
			KUNIT_EXPECT_LE(test, s.cc.cwnd, before);
	}
}

/* After the pipe drains (app-limited), one marked, late ACK is not a
 * fully marked round: the window does not halve.
 */
static void mrc_cc_nscc_idle_one_ack_round(struct kunit *test)
{
	struct mrc_cc_params p = params();
	struct sim s;
	u32 before;

	p.init_cwnd = 100;
	sim_start(test, &s, MRC_CC_NSCC, &p);
	sim_rounds(&s, pat(0, 1, BASE_RTT), 2);
	while (s.una != s.nxt) {
		struct mrc_cc_ack a = { .acked = 1, .rtt_us = BASE_RTT };

		s.una++;
		a.snd_una = s.una;
		a.snd_nxt = s.nxt;
		mrc_cc_on_ack(&s.cc, &a);
	}
	before = s.cc.cwnd;
	sim_ack(&s, 1, BASE_RTT + 2 * TARGET);
	KUNIT_EXPECT_GE(test, s.cc.cwnd, before - before / 8);
}

/* An application that keeps fewer packets in flight than the window
 * allows does not make it grow, whatever the algorithm; once it uses the
 * window, growth resumes.
 */
static void mrc_cc_app_limited_no_growth(struct kunit *test)
{
	static const u8 algos[] = { MRC_CC_NSCC, MRC_CC_DCTCP, MRC_CC_RENO };
	struct mrc_cc_params p = params();
	struct sim s;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(algos); i++) {
		sim_init(test, &s, algos[i], &p);
		s.app_limit = 4;	/* of a window of 10: not half of it */
		sim_rounds(&s, pat(0, 1, BASE_RTT), 20);
		KUNIT_EXPECT_EQ(test, s.cc.cwnd, p.init_cwnd);
		s.app_limit = 0;
		sim_rounds(&s, pat(0, 1, BASE_RTT), 3);
		KUNIT_EXPECT_GT(test, s.cc.cwnd, p.init_cwnd);
	}
}

/* A small window gives way too: a cut below one packet takes one (two
 * flows of 3 and 2 packets would otherwise keep their ratio forever).
 */
static void mrc_cc_small_window_shrinks(struct kunit *test)
{
	static const u8 algos[] = { MRC_CC_NSCC, MRC_CC_DCTCP };
	struct mrc_cc_params p = params();
	struct sim s;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(algos); i++) {
		u32 start;

		p.init_cwnd = 4;
		p.max_cwnd = 4;
		sim_init(test, &s, algos[i], &p);
		sim_rounds(&s, pat(0, 1, BASE_RTT), 1);	/* the base RTT */
		start = s.cc.cwnd;
		/* marks and delay: 1/8 of 4 packets is half a packet */
		sim_rounds(&s, pat(1, 4, BASE_RTT + 3 * TARGET), 10);
		KUNIT_EXPECT_LT(test, s.cc.cwnd, start);
	}
}

/* One round of ACKs in which every @den-th (of @late of every @den) has a
 * queueing delay of 20 targets and, if @ce, a mark; the others are clean.
 */
static void sim_round_slow_path(struct sim *s, u32 late, u32 den, bool ce)
{
	u32 n = 0;
	bool end;

	do {
		bool slow = n % den < late;

		KUNIT_ASSERT_LT(s->test, n, ROUND_ACKS_MAX);
		end = sim_ack(s, slow && ce, slow ? BASE_RTT + 20 * TARGET :
					BASE_RTT);
		n++;
	} while (!end);
}

/* nscc: a queue on one path of four delays a quarter of the samples (and
 * marks them): the window holds, EV choice deals with it.  A queue that
 * three quarters of the samples wait in is shared: the window shrinks.
 */
static void mrc_cc_nscc_one_slow_path_holds(struct kunit *test)
{
	struct mrc_cc_params p = params();
	struct sim s;
	u32 before;
	int i;

	p.init_cwnd = 40;
	p.max_cwnd = 40;
	sim_start(test, &s, MRC_CC_NSCC, &p);
	before = s.cc.cwnd;
	for (i = 0; i < 5; i++)
		sim_round_slow_path(&s, 1, 4, true);
	KUNIT_EXPECT_GT(test, s.cc.delay_us, TARGET);	/* the mean is high */
	KUNIT_EXPECT_FALSE(test, s.cc.late);
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, before);
	for (i = 0; i < 5; i++)
		sim_round_slow_path(&s, 1, 4, false);
	KUNIT_EXPECT_EQ(test, s.cc.cwnd, before);

	for (i = 0; i < 2; i++)
		sim_round_slow_path(&s, 3, 4, false);
	KUNIT_EXPECT_TRUE(test, s.cc.late);
	KUNIT_EXPECT_LT(test, s.cc.cwnd, before);
}

static struct kunit_case mrc_cc_cases[] = {
	KUNIT_CASE(mrc_cc_app_limited_no_growth),
	KUNIT_CASE(mrc_cc_small_window_shrinks),
	KUNIT_CASE(mrc_cc_nscc_one_slow_path_holds),
	KUNIT_CASE(mrc_cc_nscc_hold_late_marks),
	KUNIT_CASE(mrc_cc_dctcp_late_marks),
	KUNIT_CASE(mrc_cc_nscc_idle_one_ack_round),
	KUNIT_CASE(mrc_cc_init_window),
	KUNIT_CASE(mrc_cc_reno_slow_start),
	KUNIT_CASE(mrc_cc_reno_ssthresh_then_ai),
	KUNIT_CASE(mrc_cc_reno_loss_once_per_round_trip),
	KUNIT_CASE(mrc_cc_reno_ignores_ce_and_delay),
	KUNIT_CASE(mrc_cc_reno_window_bounds),
	KUNIT_CASE(mrc_cc_dctcp_alpha_converges),
	KUNIT_CASE(mrc_cc_dctcp_marks_shrink_by_half_alpha),
	KUNIT_CASE(mrc_cc_dctcp_grows_without_marks),
	KUNIT_CASE(mrc_cc_dctcp_all_marked_floor),
	KUNIT_CASE(mrc_cc_nscc_grows_when_clear),
	KUNIT_CASE(mrc_cc_nscc_marks_and_delay_shrink),
	KUNIT_CASE(mrc_cc_nscc_marks_low_delay_hold),
	KUNIT_CASE(mrc_cc_nscc_delay_shrinks_gently),
	KUNIT_CASE(mrc_cc_nscc_base_rtt_min),
	KUNIT_CASE(mrc_cc_nscc_base_rtt_ages),
	KUNIT_CASE(mrc_cc_undo_spurious_loss),
	KUNIT_CASE(mrc_cc_undo_not_after_marks),
	KUNIT_CASE(mrc_cc_nscc_delay_is_mean_of_last_round),
	KUNIT_CASE(mrc_cc_nscc_fairness),
	KUNIT_CASE(mrc_cc_params_ai),
	KUNIT_CASE(mrc_cc_params_md),
	KUNIT_CASE(mrc_cc_params_target_delay),
	KUNIT_CASE(mrc_cc_params_windows),
	{}
};

static struct kunit_suite mrc_cc_suite = {
	.name = "mrc_cc",
	.test_cases = mrc_cc_cases,
};

kunit_test_suite(mrc_cc_suite);
