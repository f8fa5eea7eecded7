/* SPDX-License-Identifier: GPL-2.0 */
/* mrc reliability rules as pure functions of plain data: SACK bitmaps,
 * the loss rules, RTT/RTO estimation, and the receiver's check that
 * pieces continue the message stream.  Used by ack.c and input.c and
 * tested by loss_test.c.
 */
#ifndef _NET_MRC_LOSS_H
#define _NET_MRC_LOSS_H

#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/time64.h>
#include <linux/types.h>

#include "psn.h"
#include "wire.h"

/* 32-bit words of the widest SACK (MRC_SACK_BITS) */
#define MRC_SACK_WORDS	(MRC_SACK_BITS / 32)

/**
 * mrc_sack_build() - the SACK bitmap a receiver reports
 * @ofo: out-of-order slots, indexed by PSN % @slots, non-NULL when held
 * @slots: size of @ofo
 * @cum: the cumulative PSN (next expected)
 * @hi: one past the highest PSN held out of order (no scan when it is
 *      not after @cum + 1)
 * @words: the bitmap: bit i of words[i / 32] set when PSN cum + 1 + i is
 *         held (i < MRC_SACK_BITS)
 *
 * Return: the words to send: the two every ACK has, and as many more as
 * reach the highest PSN held (at most MRC_SACK_WORDS).
 */
static inline unsigned int mrc_sack_build(void *const *ofo, u32 slots,
					  u32 cum, u32 hi,
					  u32 words[MRC_SACK_WORDS])
{
	s32 span = (s32)(hi - cum - 1);
	unsigned int n = MRC_SACK_BITS_MIN / 32;
	u32 i, bits;

	memset(words, 0, MRC_SACK_WORDS * sizeof(u32));
	bits = span > 0 ? min_t(u32, span, MRC_SACK_BITS) : 0;
	bits = min(bits, slots - 1);
	for (i = 0; i < bits; i++) {
		if (!ofo[(cum + 1 + i) % slots])
			continue;
		words[i / 32] |= 1U << (i % 32);
		n = max(n, i / 32 + 1);
	}
	return n;
}

/**
 * mrc_loss_ev_visible() - may the per-EV rule judge @psn lost?
 * @psn: an earlier packet on the EV of a packet that was just acknowledged
 * @cum: the ACK's cumulative PSN
 *
 * Only when the ACK shows it missing: at @cum or inside the SACK range,
 * which is MRC_SACK_BITS PSNs whatever the words the ACK carries (it
 * leaves out only words of PSNs it does not hold).  Beyond it the ACK
 * says nothing about @psn.
 */
static inline bool mrc_loss_ev_visible(u32 psn, u32 cum)
{
	return mrc_psn_in_window(psn, cum, MRC_SACK_BITS + 1);
}

/**
 * mrc_ack_hold() - may a data packet's ACK wait to go with later ones?
 * @psn: its PSN, just taken
 * @rcv_nxt: the next PSN expected in order, after it was taken
 * @rcv_hi: one past the highest PSN held out of order (not after
 *          @rcv_nxt when none is)
 * @more: more of its message or operation is to come
 * @fast: the packet before it came less than the longest wait before it
 * @flags: MRC_F_CE if it came marked
 * @pend: packets already waiting for an ACK
 * @coalesce: packets one ACK may stand for (1 to MRC_ACK_ECHOES + 1)
 *
 * Only a packet that says nothing the sender must hear now waits: in
 * order, with nothing held out of order behind it (no gap open or just
 * filled), unmarked, not the last of its message or operation, and not
 * the one that makes @coalesce; and only in a stream fast enough that
 * the next one is likely to come before the wait ends (@fast): a slow
 * one gains nothing by waiting, and each wait lengthens its RTT samples.
 */
static inline bool mrc_ack_hold(u32 psn, u32 rcv_nxt, u32 rcv_hi, bool more,
				bool fast, u16 flags, unsigned int pend,
				unsigned int coalesce)
{
	return more && fast && !flags && pend + 1 < coalesce &&
	       rcv_nxt == psn + 1 && !mrc_psn_after(rcv_hi, rcv_nxt);
}

/* The peer's ACKs remembered (struct mrc_ack_rx), and how many later ones
 * must have arrived before a missing one counts as lost.
 */
#define MRC_ACK_LOG	16
#define MRC_ACK_REORDER	8

enum {
	MRC_ACK_RX_NONE,
	MRC_ACK_RX_GOT,		/* it arrived */
	MRC_ACK_RX_MISSING,	/* a later one named its EV; not arrived */
	MRC_ACK_RX_REPORTED,	/* judged lost */
};

/* One of the peer's ACKs judged lost: its sequence and its EV. */
struct mrc_ack_lost {
	u16	seq;
	u16	port;
};

/* One entry of struct mrc_ack_rx: an ACK's sequence, EV and state. */
struct mrc_ack_rx_ent {
	u16	seq;
	u16	port;
	u8	state;
};

/**
 * struct mrc_ack_rx - the peer's last ACKs, as their receiver saw them
 * @log: by sequence % MRC_ACK_LOG: which arrived, which a later one
 *       named as sent on an EV and did not arrive (yet)
 * @hi: the newest sequence number received
 * @any: @hi is set
 */
struct mrc_ack_rx {
	struct mrc_ack_rx_ent log[MRC_ACK_LOG];
	u16	hi;
	bool	any;
};

/**
 * mrc_ack_rx_add() - one of the peer's ACKs arrived; judge the missing
 * @rx: the log
 * @seq: its sequence number
 * @prev_port: the EV the ACK before it (@seq - 1) was sent on, 0 if none
 * @lost: filled with the ACKs judged lost now, at most MRC_ACK_LOG
 *
 * Reverse-path learning (mrc.rst, "ACKs and probes: the reverse path"):
 * an ACK names the EV of the one before it, so that when that one is
 * missing its receiver knows which of the peer's paths lost it.  Once
 * MRC_ACK_REORDER later ACKs have arrived (ACKs are sprayed and reorder
 * too), a missing one is judged lost, once.  An ACK older than that is
 * ignored: it was judged already.
 *
 * Return: how many entries of @lost were filled.
 */
static inline unsigned int mrc_ack_rx_add(struct mrc_ack_rx *rx, u16 seq,
					  u16 prev_port,
					  struct mrc_ack_lost *lost)
{
	struct mrc_ack_rx_ent *e, *p;
	unsigned int n = 0;
	u16 x, to, prev = seq - 1;

	if (!rx->any) {
		rx->any = true;
		rx->hi = seq - 1;
	}
	if ((s16)(rx->hi - seq) >= MRC_ACK_REORDER)
		return 0;
	if ((s16)(seq - rx->hi) > 0) {
		/* those MRC_ACK_REORDER behind the newest are judged */
		to = seq - MRC_ACK_REORDER;
		x = rx->hi - MRC_ACK_REORDER + 1;
		if ((u16)(to - x) >= MRC_ACK_LOG)
			x = to - (MRC_ACK_LOG - 1);
		rx->hi = seq;
		for (;; x++) {
			e = &rx->log[x % MRC_ACK_LOG];
			if (e->seq == x && e->state == MRC_ACK_RX_MISSING) {
				e->state = MRC_ACK_RX_REPORTED;
				lost[n].seq = x;
				lost[n].port = e->port;
				n++;
			}
			if (x == to)
				break;
		}
	}
	e = &rx->log[seq % MRC_ACK_LOG];
	if (e->seq == seq && e->state == MRC_ACK_RX_GOT)
		return n;	/* a duplicate */
	e->seq = seq;
	e->state = MRC_ACK_RX_GOT;
	/* the one before: missing until it comes, unless judged already */
	p = &rx->log[prev % MRC_ACK_LOG];
	if (prev_port && (p->seq != prev || p->state == MRC_ACK_RX_NONE) &&
	    (s16)(rx->hi - prev) < MRC_ACK_REORDER) {
		p->seq = prev;
		p->port = prev_port;
		p->state = MRC_ACK_RX_MISSING;
	}
	return n;
}

/**
 * mrc_ack_rx_late() - an ACK that may only say it arrived
 * @rx: the log
 * @seq: its sequence number
 *
 * An ACK whose cumulative PSN is older than one already processed was
 * overtaken by a later one (they are sprayed), or forged by someone who
 * does not know the send window.  Either way it is not trusted with
 * more than its own arrival, so that the genuine one is not reported
 * lost: within the MRC_ACK_REORDER behind the newest, not yet judged, it
 * is marked received; it never moves the log forward and never names a
 * missing one.
 */
static inline void mrc_ack_rx_late(struct mrc_ack_rx *rx, u16 seq)
{
	struct mrc_ack_rx_ent *e = &rx->log[seq % MRC_ACK_LOG];

	if (!rx->any || (u16)(rx->hi - seq) >= MRC_ACK_REORDER)
		return;
	if (e->seq == seq && e->state == MRC_ACK_RX_REPORTED)
		return;
	e->seq = seq;
	e->state = MRC_ACK_RX_GOT;
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
 * @rto_min_us: floor of the allowance over srtt (RFC 6298's G)
 * @rto_max_us: ceiling
 *
 * RTO = srtt + max(4 * rttvar, @rto_min_us), at most @rto_max_us: the floor
 * is added to the RTT, not a floor of the sum (as Linux TCP's, whose
 * rttvar never falls below its rto_min).  A path whose RTT is steady and
 * near or above @rto_min_us would otherwise time out at its first jitter:
 * 10 ms of netem delay gave an RTO of 11.06 ms for an srtt of 10.61 ms,
 * and timeouts, all spurious, in most runs.
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
	rto = r->srtt_us + max_t(u32, 4 * r->rttvar_us, max(rto_min_us, 1U));
	return min(rto, rto_max_us);
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
