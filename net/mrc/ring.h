/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rings of packets indexed by PSN, sized to what they hold.
 *
 * A connection keeps the packets it sent and that are not acknowledged
 * yet, and those it received beyond its cumulative point, in rings
 * indexed by PSN.  A ring has a power of two of slots, from
 * MRC_RING_MIN to MRC_WIN_PKTS: it starts at the smallest (an idle
 * connection holds nothing), doubles when a packet further from the
 * oldest one it may hold than it has slots must go in, and goes back to
 * the smallest once it is empty and the connection idle.
 */
#ifndef _NET_MRC_RING_H
#define _NET_MRC_RING_H

#include <linux/log2.h>
#include <linux/minmax.h>
#include <linux/skbuff.h>
#include <linux/slab.h>

/* Slots of a ring that holds little: one kmalloc-512 object. */
#define MRC_RING_MIN	64

/**
 * struct mrc_ring - packets by PSN
 * @slot: mask + 1 slots, the packet of PSN p (or NULL) in slot p & @mask;
 *        NULL before the ring is first sized
 * @mask: the number of slots less one
 */
struct mrc_ring {
	struct sk_buff	**slot;
	u32		mask;
};

/* The slot of @psn (which must be within the ring's span). */
static inline struct sk_buff **mrc_ring_at(const struct mrc_ring *r, u32 psn)
{
	return &r->slot[psn & r->mask];
}

static inline u32 mrc_ring_size(const struct mrc_ring *r)
{
	return r->mask + 1;
}

/**
 * mrc_ring_resize() - give a ring @slots slots, keeping what it holds
 * @r: the ring; one never sized (@r->slot NULL) is allocated empty
 * @from: the oldest PSN the ring may hold
 * @to: one past the newest PSN it may hold: [@from, @to) moves, and
 *      must fit both the old size and @slots
 * @slots: a power of two
 * @gfp: allocation flags
 *
 * Return: 0, -EINVAL when [@from, @to) does not fit, or -ENOMEM (the ring
 * is then unchanged).
 */
static inline int mrc_ring_resize(struct mrc_ring *r, u32 from, u32 to,
				  u32 slots, gfp_t gfp)
{
	struct sk_buff **s;
	u32 psn;

	if (!is_power_of_2(slots) || to - from > slots ||
	    (r->slot && to - from > mrc_ring_size(r)))
		return -EINVAL;
	s = kcalloc(slots, sizeof(*s), gfp);
	if (!s)
		return -ENOMEM;
	if (r->slot) {
		for (psn = from; psn != to; psn++)
			s[psn & (slots - 1)] = *mrc_ring_at(r, psn);
		kfree(r->slot);
	}
	r->slot = s;
	r->mask = slots - 1;
	return 0;
}

/**
 * mrc_ring_fit() - make room for @psn in a ring holding [@from, @to)
 * @r: the ring, sized
 * @from: the oldest PSN the ring may hold
 * @to: one past the newest PSN it may hold
 * @psn: the PSN to go in, at or after @from, less than @max after it
 * @max: most slots the ring may have, a power of two
 * @gfp: allocation flags
 *
 * The ring at least doubles, so that a growing window costs a few
 * copies, not one per packet.
 *
 * Return: 0 (there is room), -EINVAL if @psn is @max or more past @from,
 * or -ENOMEM (the ring is unchanged).
 */
static inline int mrc_ring_fit(struct mrc_ring *r, u32 from, u32 to, u32 psn,
			       u32 max, gfp_t gfp)
{
	u32 need = psn - from + 1;

	if (need <= mrc_ring_size(r))
		return 0;
	if (need > max)
		return -EINVAL;
	need = max_t(u32, roundup_pow_of_two(need), 2 * mrc_ring_size(r));
	return mrc_ring_resize(r, from, to, min(need, max), gfp);
}

#endif /* _NET_MRC_RING_H */
