/* SPDX-License-Identifier: GPL-2.0 */
/* mrc congestion control: one window per connection, across all its EVs,
 * behind an ops table in the manner of tcp_congestion_ops.
 *
 *   nscc   (default) in the spirit of UET's NSCC: the fraction of CE marks
 *          and the queueing delay (RTT above the lowest seen; delayed:
 *          most samples of the round at or above the target) decide once
 *          per round trip: no marks and little delay -> grow; marks and
 *          delay -> shrink in proportion to the marked fraction; marks
 *          without delay -> hold (a path problem: the marked EVs are
 *          skipped instead); delay without marks (a path that bleaches
 *          ECN) -> shrink gently towards the target delay.
 *   dctcp  ECN only: the EWMA of the marked fraction, shrink by half of it
 *          in a round with marks, else grow by one packet a round.
 *   reno   slow start and one packet a round; halve on loss; ignores ECN
 *          and delay (for comparison).
 *
 * Every algorithm halves (by the decrease factor) on loss once per round
 * trip and falls to a quarter on a timeout.  The rules are pure, on
 * struct mrc_cc, so KUnit drives them with scripted ACK sequences.
 */
#ifndef _NET_MRC_CC_H
#define _NET_MRC_CC_H

#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/types.h>
#include <uapi/linux/mrc.h>

#include "psn.h"

#define MRC_CC_ONE	1024U	/* fixed point 1.0 for alpha and factors */
#define MRC_CC_G_SHIFT	4	/* alpha gain 1/16, as DCTCP */
#define MRC_CC_MIN_CWND	2U
#define MRC_CC_ROUND_MIN_ACKS	8U	/* fewest ACKs a round is judged on */

/**
 * struct mrc_cc_params - the tunables (namespace settings)
 * @target_delay_us: queueing delay nscc aims at
 * @ai: packets added per round trip when growing
 * @md: largest decrease, in 1/1024 of the window (loss: all of it)
 * @init_cwnd: window at the start, packets
 * @max_cwnd: largest window, packets
 */
struct mrc_cc_params {
	u32	target_delay_us;
	u32	ai;
	u32	md;
	u32	init_cwnd;
	u32	max_cwnd;
};

/**
 * struct mrc_cc - congestion state of one connection
 * @algo: enum mrc_cc_algo
 * @p: its parameters, fixed when the connection starts
 * @cwnd: window, packets
 * @ssthresh: slow-start threshold, packets
 * @cnt: packets acknowledged towards the next additive increase
 * @alpha: EWMA of the marked fraction, 1/1024
 * @base_rtt_us: lowest RTT of the last MRC_CC_BASE_RTT_WIN_US (of the
 *               two windows of half that, @base_cur_us and @base_prev_us),
 *               0 before a sample
 * @base_cur_us: lowest RTT since @base_epoch_us
 * @base_prev_us: lowest RTT of the half window before, 0 if none
 * @base_epoch_us: start of the current half window
 * @round_end: the round trip ends when this PSN is acknowledged
 * @round_acked: packets acknowledged in this round
 * @round_ce: of which CE-marked
 * @round_delay_us: sum of the queueing delay samples of this round
 * @round_samples: their number
 * @round_late: of which at or above the target delay
 * @delay_us: mean queueing delay of the last round
 * @late: most of the last round's samples were at or above the target
 * @recovery_psn: no further loss reaction until it is acknowledged
 * @undo_cwnd: the window before the last loss reaction, 0 when that one
 *             cannot be undone (mrc_cc_undo())
 * @undo_ssthresh: ssthresh before it
 * @undo_psn: the packet whose loss caused it
 * @in_recovery: a loss reaction is in force
 * @grow: the last round allowed growth (no marks; for nscc, low delay)
 * @used: the window was in use at the last ACK (the sender was limited by
 *        it, not by the application): only then does it grow
 */
struct mrc_cc {
	u8	algo;
	struct mrc_cc_params p;
	u32	cwnd;
	u32	ssthresh;
	u32	cnt;
	u32	alpha;
	u32	base_rtt_us;
	u32	base_cur_us;
	u32	base_prev_us;
	u32	base_epoch_us;
	u32	round_end;
	u32	round_acked;
	u32	round_ce;
	u64	round_delay_us;
	u32	round_samples;
	u32	round_late;
	u32	delay_us;
	u32	recovery_psn;
	u32	undo_cwnd;
	u32	undo_ssthresh;
	u32	undo_psn;
	bool	in_recovery;
	bool	grow;
	bool	used;
	bool	late;
};

/**
 * struct mrc_cc_ack - what one ACK tells the window
 * @acked: packets newly acknowledged (cumulatively or selectively)
 * @ce: how many of them arrived CE-marked
 * @rtt_us: an RTT sample, 0 if the ACK gave none
 * @now_us: when it arrived (mrc_now_us32(); wraps)
 * @snd_una: oldest unacknowledged PSN after the ACK
 * @snd_nxt: next new PSN
 * @in_flight: packets the window held when it arrived (in flight, or
 *             lost and waiting to go again)
 */
struct mrc_cc_ack {
	u32	acked;
	u32	ce;
	u32	rtt_us;
	u32	now_us;
	u32	snd_una;
	u32	snd_nxt;
	u32	in_flight;
};

/**
 * struct mrc_cc_ops - a congestion control algorithm
 * @name: as the tool and the documentation call it
 * @round: a round trip ended: decide from its marks and delay
 * @ack: per ACK, between round decisions (slow start, additive growth)
 */
struct mrc_cc_ops {
	const char *name;
	void (*round)(struct mrc_cc *cc);
	void (*ack)(struct mrc_cc *cc, const struct mrc_cc_ack *a);
};

static inline void mrc_cc_set_cwnd(struct mrc_cc *cc, u64 cwnd)
{
	cc->cwnd = clamp_t(u64, cwnd, MRC_CC_MIN_CWND, cc->p.max_cwnd);
}

/* Grow: slow start below ssthresh, else @ai packets per window acked;
 * only a window in use grows (an application that sends less than it
 * allows would otherwise take it to the maximum, to be spent at once
 * later).
 */
static inline void mrc_cc_grow(struct mrc_cc *cc, u32 acked)
{
	if (!cc->used)
		return;
	if (cc->cwnd < cc->ssthresh) {
		mrc_cc_set_cwnd(cc, min_t(u64, (u64)cc->cwnd + acked,
					  cc->ssthresh));
		return;
	}
	cc->cnt += acked;
	if (cc->cnt >= cc->cwnd) {
		cc->cnt -= cc->cwnd;
		mrc_cc_set_cwnd(cc, (u64)cc->cwnd + cc->p.ai);
	}
}

/* Shrink by @frac/1024 of the window (at most the decrease factor); a
 * cut of 1/32 or more takes one packet at least: small windows (flows
 * sharing a small bandwidth-delay product) would otherwise never give
 * way, and the largest of them would keep its lead.
 */
static inline void mrc_cc_shrink(struct mrc_cc *cc, u32 frac)
{
	u32 f = min(frac, cc->p.md);
	u64 cut = (u64)cc->cwnd * f / MRC_CC_ONE;

	if (!cut && f >= MRC_CC_ONE / 32)
		cut = 1;

	mrc_cc_set_cwnd(cc, cc->cwnd - cut);
	cc->ssthresh = cc->cwnd;
	cc->cnt = 0;
	cc->undo_cwnd = 0;	/* a later cut is not undone with a loss's */
}

/* The marked fraction of the round, 1/1024, and alpha's EWMA of it. */
static inline u32 mrc_cc_round_frac(const struct mrc_cc *cc)
{
	if (!cc->round_acked)
		return 0;
	return min_t(u32, (u64)cc->round_ce * MRC_CC_ONE / cc->round_acked,
		     MRC_CC_ONE);
}

static inline void mrc_cc_update_alpha(struct mrc_cc *cc)
{
	u32 f = mrc_cc_round_frac(cc);

	cc->alpha = cc->alpha - (cc->alpha >> MRC_CC_G_SHIFT) +
		    (f >> MRC_CC_G_SHIFT);
}

static inline void mrc_cc_reno_ack(struct mrc_cc *cc,
				   const struct mrc_cc_ack *a)
{
	if (!cc->in_recovery)
		mrc_cc_grow(cc, a->acked);
}

static inline void mrc_cc_reno_round(struct mrc_cc *cc)
{
}

/* DCTCP: grow while neither this round nor the last had marks; shrink
 * once a round by alpha/2.
 */
static inline void mrc_cc_dctcp_ack(struct mrc_cc *cc,
				    const struct mrc_cc_ack *a)
{
	if (!cc->in_recovery && cc->grow && !cc->round_ce)
		mrc_cc_grow(cc, a->acked - a->ce);
}

static inline void mrc_cc_dctcp_round(struct mrc_cc *cc)
{
	mrc_cc_update_alpha(cc);
	cc->grow = !cc->round_ce;
	if (cc->round_ce)
		mrc_cc_shrink(cc, cc->alpha / 2);
}

/* nscc: the four quadrants of (marks, delay), decided once a round; in
 * the growing quadrant the window grows per ACK, as reno's does, during
 * the next round, until that round sees a mark.
 *
 * The round counts as delayed when most of its RTT samples are at least
 * the target above the base RTT: a queue that every path shares (the
 * receiver's edge) delays every packet, while a queue on one path delays
 * only the packets sprayed over it, which EV choice moves elsewhere; a
 * mean would let one slow path shrink the whole window.
 */
static inline bool mrc_cc_nscc_delayed(const struct mrc_cc *cc)
{
	return cc->late;
}

static inline void mrc_cc_nscc_ack(struct mrc_cc *cc,
				   const struct mrc_cc_ack *a)
{
	if (!cc->in_recovery && cc->grow && !cc->round_ce)
		mrc_cc_grow(cc, a->acked);
}

static inline void mrc_cc_nscc_round(struct mrc_cc *cc)
{
	u32 frac = mrc_cc_round_frac(cc);

	mrc_cc_update_alpha(cc);
	cc->grow = !cc->round_ce && !mrc_cc_nscc_delayed(cc);
	if (!mrc_cc_nscc_delayed(cc))
		return;		/* grow (per ACK), or hold: marks, no delay */
	if (cc->round_ce) {
		/* congestion at a queue we share: in proportion to marks */
		mrc_cc_shrink(cc, max(frac, cc->alpha) / 2);
		return;
	}
	/* delay and no marks: towards the target, at most an eighth */
	if (cc->delay_us > cc->p.target_delay_us)
		mrc_cc_shrink(cc, min_t(u64, MRC_CC_ONE / 8,
					(u64)(cc->delay_us -
					      cc->p.target_delay_us) *
					MRC_CC_ONE / (2 * (u64)cc->delay_us)));
}

/**
 * mrc_cc_ops_of() - the ops of an algorithm
 * @algo: enum mrc_cc_algo, valid
 *
 * Return: its ops.
 */
static inline const struct mrc_cc_ops *mrc_cc_ops_of(u8 algo)
{
	static const struct mrc_cc_ops algos[] = {
		[MRC_CC_NSCC] = {
			.name	= "nscc",
			.round	= mrc_cc_nscc_round,
			.ack	= mrc_cc_nscc_ack,
		},
		[MRC_CC_DCTCP] = {
			.name	= "dctcp",
			.round	= mrc_cc_dctcp_round,
			.ack	= mrc_cc_dctcp_ack,
		},
		[MRC_CC_RENO] = {
			.name	= "reno",
			.round	= mrc_cc_reno_round,
			.ack	= mrc_cc_reno_ack,
		},
	};

	return &algos[algo < ARRAY_SIZE(algos) ? algo : MRC_CC_NSCC];
}

/**
 * mrc_cc_init() - start a connection's window
 * @cc: the state
 * @algo: enum mrc_cc_algo
 * @p: the parameters
 * @snd_nxt: the first PSN the connection will send
 */
static inline void mrc_cc_init(struct mrc_cc *cc, u8 algo,
			       const struct mrc_cc_params *p, u32 snd_nxt)
{
	memset(cc, 0, sizeof(*cc));
	cc->algo = algo <= MRC_CC_RENO ? algo : MRC_CC_NSCC;
	cc->p = *p;
	cc->p.max_cwnd = max(cc->p.max_cwnd, MRC_CC_MIN_CWND);
	cc->p.ai = max(cc->p.ai, 1U);
	mrc_cc_set_cwnd(cc, p->init_cwnd);
	cc->ssthresh = cc->p.max_cwnd;
	cc->grow = true;
	cc->round_end = snd_nxt;
}

/* The base RTT ages: it is the lowest sample of the last 10 s or so (two
 * half windows), so that after a failover to a longer path, or a route
 * change, the extra delay stops reading as queueing within that time.
 * A standing queue that lasts longer would read as the base, as it does
 * for every delay-based algorithm with a windowed minimum (BBR's is 10 s
 * too); a long idle time forgets everything.
 */
#define MRC_CC_BASE_RTT_WIN_US	(10 * USEC_PER_SEC)

static inline void mrc_cc_base_rtt(struct mrc_cc *cc, u32 rtt_us, u32 now_us)
{
	u32 age = now_us - cc->base_epoch_us;

	if (!cc->base_rtt_us || age >= MRC_CC_BASE_RTT_WIN_US) {
		cc->base_prev_us = 0;
		cc->base_cur_us = 0;
		cc->base_epoch_us = now_us;
	} else if (age >= MRC_CC_BASE_RTT_WIN_US / 2) {
		cc->base_prev_us = cc->base_cur_us;
		cc->base_cur_us = 0;
		cc->base_epoch_us = now_us;
	}
	if (!cc->base_cur_us || rtt_us < cc->base_cur_us)
		cc->base_cur_us = rtt_us;
	cc->base_rtt_us = cc->base_prev_us ?
			  min(cc->base_prev_us, cc->base_cur_us) :
			  cc->base_cur_us;
}

/**
 * mrc_cc_on_ack() - an ACK acknowledged packets
 * @cc: the state
 * @a: what it said
 *
 * Return: true if the window changed.
 */
static inline bool mrc_cc_on_ack(struct mrc_cc *cc, const struct mrc_cc_ack *a)
{
	const struct mrc_cc_ops *ops = mrc_cc_ops_of(cc->algo);
	u32 cwnd = cc->cwnd;

	if (a->rtt_us) {
		mrc_cc_base_rtt(cc, a->rtt_us, a->now_us);
		cc->round_delay_us += a->rtt_us - cc->base_rtt_us;
		cc->round_samples++;
		if (a->rtt_us - cc->base_rtt_us >= cc->p.target_delay_us)
			cc->round_late++;
	}
	cc->round_acked += a->acked;
	cc->round_ce += min(a->ce, a->acked);
	/* in use: full, or in slow start more than half full (it doubles) */
	cc->used = a->in_flight >= cc->cwnd ||
		   (cc->cwnd < cc->ssthresh && 2 * a->in_flight > cc->cwnd);
	if (cc->in_recovery && !mrc_psn_before(a->snd_una, cc->recovery_psn))
		cc->in_recovery = false;
	ops->ack(cc, a);

	if (!mrc_psn_before(a->snd_una, cc->round_end)) {
		if (cc->round_samples) {
			cc->delay_us = div_u64(cc->round_delay_us,
					       cc->round_samples);
			cc->late = 2 * cc->round_late > cc->round_samples;
		}
		/* too few ACKs to judge (the round after an idle time): one
		 * marked ACK is not a fully marked round
		 */
		if (!cc->in_recovery &&
		    cc->round_acked >= clamp(cc->cwnd / 2, 1U,
					     MRC_CC_ROUND_MIN_ACKS))
			ops->round(cc);
		cc->round_end = a->snd_nxt;
		cc->round_acked = 0;
		cc->round_ce = 0;
		cc->round_delay_us = 0;
		cc->round_samples = 0;
		cc->round_late = 0;
	}
	return cc->cwnd != cwnd;
}

/**
 * mrc_cc_on_loss() - a packet was judged lost
 * @cc: the state
 * @snd_nxt: next new PSN: the reaction lasts until it is acknowledged
 * @psn: the packet
 *
 * Return: true if the window changed (once per round trip).
 */
static inline bool mrc_cc_on_loss(struct mrc_cc *cc, u32 snd_nxt, u32 psn)
{
	u32 cwnd = cc->cwnd, ssthresh = cc->ssthresh;

	if (cc->in_recovery)
		return false;
	mrc_cc_shrink(cc, cc->p.md);
	cc->undo_cwnd = cwnd;
	cc->undo_ssthresh = ssthresh;
	cc->undo_psn = psn;
	cc->in_recovery = true;
	cc->recovery_psn = snd_nxt;
	return true;
}

/**
 * mrc_cc_on_rto() - the retransmission timer expired
 * @cc: the state
 * @snd_nxt: next new PSN
 */
static inline void mrc_cc_on_rto(struct mrc_cc *cc, u32 snd_nxt)
{
	cc->undo_cwnd = 0;	/* a timeout's reaction stays */
	cc->ssthresh = max(cc->cwnd / 2, MRC_CC_MIN_CWND);
	mrc_cc_set_cwnd(cc, cc->cwnd / 4);
	cc->cnt = 0;
	cc->in_recovery = true;
	cc->recovery_psn = snd_nxt;
}

/**
 * mrc_cc_undo() - the loss that cut the window was no loss
 * @cc: the state
 * @psn: a packet whose retransmission turned out spurious: an earlier
 *       transmission arrived (the echoed timestamp says so)
 *
 * When @psn is the packet whose loss caused the last reaction, the
 * window and ssthresh go back to what they were before it, as TCP's
 * undo does on a spurious retransmission (Eifel, RFC 4015): a packet
 * that was only late (a slower path) must not cost the window.  Once.
 *
 * Return: true if the reaction was undone.
 */
static inline bool mrc_cc_undo(struct mrc_cc *cc, u32 psn)
{
	if (!cc->undo_cwnd || psn != cc->undo_psn)
		return false;
	mrc_cc_set_cwnd(cc, max(cc->cwnd, cc->undo_cwnd));
	cc->ssthresh = max(cc->ssthresh, cc->undo_ssthresh);
	cc->undo_cwnd = 0;
	cc->in_recovery = false;
	return true;
}

#endif /* _NET_MRC_CC_H */
