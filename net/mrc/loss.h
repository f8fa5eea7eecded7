/* SPDX-License-Identifier: GPL-2.0 */
/* mrc reliability rules as pure functions of plain data: SACK bitmaps,
 * the loss rules, RTT/RTO estimation, and the receiver's check that
 * pieces continue the message stream.  Used by ack.c and input.c and
 * tested by loss_test.c.
 */
#ifndef _NET_MRC_LOSS_H
#define _NET_MRC_LOSS_H

#include <linux/kernel.h>
#include <linux/time64.h>
#include <linux/types.h>

#include "psn.h"
#include "wire.h"

/**
 * mrc_sack_build() - the SACK bitmap a receiver reports
 * @ofo: out-of-order slots, indexed by PSN % @slots, non-NULL when held
 * @slots: size of @ofo
 * @cum: the cumulative PSN (next expected)
 *
 * Return: bit i set when PSN cum + 1 + i is held (i < MRC_SACK_BITS).
 */
static inline u64 mrc_sack_build(void *const *ofo, u32 slots, u32 cum)
{
	u64 sack = 0;
	u32 i;

	for (i = 0; i < MRC_SACK_BITS && i + 1 < slots; i++)
		if (ofo[(cum + 1 + i) % slots])
			sack |= 1ULL << i;
	return sack;
}

/* The two 32-bit halves of an ACK's bitmap as one 64-bit map. */
static inline u64 mrc_sack_decode(u32 hi, u32 lo)
{
	return hi | (u64)lo << 32;
}

/**
 * mrc_loss_ev_visible() - may the per-EV rule judge @psn lost?
 * @psn: an earlier packet on the EV of a packet that was just acknowledged
 * @cum: the ACK's cumulative PSN
 *
 * Only when the ACK shows it missing: at @cum or inside the SACK range.
 * Beyond it the ACK says nothing about @psn.
 */
static inline bool mrc_loss_ev_visible(u32 psn, u32 cum)
{
	return mrc_psn_in_window(psn, cum, MRC_SACK_BITS + 1);
}

/* The reordering allowance grows by a quarter RTT per spurious
 * retransmission seen, up to this many quarters more (RACK's reo_wnd_mult),
 * and shrinks by one per MRC_LOSS_REO_DECAY_RTTS round trips without one.
 */
#define MRC_LOSS_REO_MULT_MAX	15
#define MRC_LOSS_REO_DECAY_RTTS	16

/* How long the time rule lets a packet be overtaken: the RTT plus a
 * quarter of it (times 1 + @reo_mult, the spurious retransmissions seen
 * lately: paths whose delays differ reorder more), or twice the RTT
 * variation if that is more (hosts whose timing jitters reorder more).
 */
static inline u64 mrc_loss_reo_wait_ns(u32 srtt_us, u32 rttvar_us,
				       u8 reo_mult)
{
	u64 reo = (u64)srtt_us / 4 * (1 + min_t(u8, reo_mult,
						 MRC_LOSS_REO_MULT_MAX));

	return ((u64)srtt_us + max_t(u64, reo, 2 * (u64)rttvar_us)) *
	       NSEC_PER_USEC;
}

/**
 * mrc_loss_time_expired() - the time rule (RACK-like)
 * @now: current time, ns
 * @sent: when the packet was (last) sent, ns
 * @rack_sent: latest send time among acknowledged packets, 0 if none
 * @srtt_us: smoothed RTT, 0 before the first sample
 * @rttvar_us: RTT variation
 * @reo_mult: spurious retransmissions seen lately (mrc_loss_reo_wait_ns())
 *
 * A packet sent before one that has been acknowledged, and outstanding for
 * longer than an RTT plus a reordering allowance, is lost.
 */
static inline bool mrc_loss_time_expired(u64 now, u64 sent, u64 rack_sent,
					 u32 srtt_us, u32 rttvar_us,
					 u8 reo_mult)
{
	if (!rack_sent || !srtt_us || sent >= rack_sent)
		return false;
	return now - sent >= mrc_loss_reo_wait_ns(srtt_us, rttvar_us,
						  reo_mult);
}

/**
 * struct mrc_rtt - RTT estimator state (RFC 6298)
 * @srtt_us: smoothed RTT, 0 before the first sample
 * @rttvar_us: RTT variation
 */
struct mrc_rtt {
	u32	srtt_us;
	u32	rttvar_us;
};

/**
 * mrc_rtt_update() - feed a sample, compute the RTO
 * @r: the estimator
 * @sample_us: the measured RTT; samples over 60 s are ignored
 * @rto_min_us: floor
 * @rto_max_us: ceiling
 *
 * Return: the new RTO, or 0 when the sample was ignored.
 */
static inline u32 mrc_rtt_update(struct mrc_rtt *r, u32 sample_us,
				 u32 rto_min_us, u32 rto_max_us)
{
	u32 rto;

	if (sample_us > 60 * USEC_PER_SEC)
		return 0;
	if (!sample_us)
		sample_us = 1;
	if (!r->srtt_us) {
		r->srtt_us = sample_us;
		r->rttvar_us = sample_us / 2;
	} else {
		u32 delta = abs((s32)(sample_us - r->srtt_us));

		r->rttvar_us = (3 * r->rttvar_us + delta) / 4;
		r->srtt_us = (7 * r->srtt_us + sample_us) / 8;
	}
	rto = r->srtt_us + max_t(u32, 4 * r->rttvar_us, 1);
	return clamp_t(u32, rto, rto_min_us, rto_max_us);
}

/**
 * struct mrc_rcv_seq - where the receiver's in-order message stream is
 * @msg_id: message the next piece must belong to
 * @off: offset the next piece must start at
 * @len: length of the message being received, 0 between messages
 */
struct mrc_rcv_seq {
	u32	msg_id;
	u32	off;
	u32	len;
};

enum mrc_seq_verdict {
	MRC_SEQ_PIECE,		/* continues the message */
	MRC_SEQ_EOR,		/* ends the message */
	MRC_SEQ_FIN,		/* the peer's FIN, between messages */
	MRC_SEQ_BAD,		/* out of sequence: protocol violation */
};

/**
 * mrc_rcv_seq_next() - accept the next in-order piece, or refuse it
 * @s: the stream position, advanced when the piece is accepted
 * @msg_id: the piece's message id
 * @msg_len: its message's length
 * @off: its offset
 * @len: its payload length
 * @fin: it is the FIN marker
 *
 * Return: what the piece is.  A peer that lies about ids, lengths or
 * offsets gets MRC_SEQ_BAD and @s is unchanged.
 */
static inline enum mrc_seq_verdict mrc_rcv_seq_next(struct mrc_rcv_seq *s,
						    u32 msg_id, u32 msg_len,
						    u32 off, u32 len, bool fin)
{
	if (msg_id != s->msg_id || off != s->off)
		return MRC_SEQ_BAD;
	if (fin)
		return s->off ? MRC_SEQ_BAD : MRC_SEQ_FIN;
	if (s->off && msg_len != s->len)
		return MRC_SEQ_BAD;
	if ((u64)off + len > msg_len)
		return MRC_SEQ_BAD;
	s->len = msg_len;
	s->off += len;
	if (s->off < s->len)
		return MRC_SEQ_PIECE;
	s->msg_id++;
	s->off = 0;
	s->len = 0;
	return MRC_SEQ_EOR;
}

#endif /* _NET_MRC_LOSS_H */
