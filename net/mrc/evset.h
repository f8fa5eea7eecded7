/* SPDX-License-Identifier: GPL-2.0 */
/* mrc entropy-value sets: which EV carries a connection's next packet, and
 * the state of each EV (GOOD, SKIP, BAD, DENIED).
 *
 * A connection has nr_pos positions (the EV count) and nr_evs slots: slot
 * i < nr_pos is the home EV of position i, the other slots are spares.
 * Data is sprayed by rotating over the positions; each position is served
 * by its home EV, or while that one is BAD or DENIED by a spare, or by
 * nothing when no spare is usable.  An EV that loses a packet goes BAD at
 * once and gives up its position; a probe (or an acknowledged packet sent
 * on it later) brings it back, and a home EV then takes its position back,
 * so the connection returns to its original spread.  A spare that stays
 * BAD is recycled: it gets a new source port.
 *
 * Pure logic with no socket in sight, for KUnit; the caller moves packets,
 * sends probes and counts.
 */
#ifndef _NET_MRC_EVSET_H
#define _NET_MRC_EVSET_H

#include <linux/hash.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/types.h>
#include <uapi/linux/mrc.h>

#define MRC_EV_NONE		0xffff

/* A spare whose probes went unanswered this many times gets a new port. */
#define MRC_EV_RECYCLE_MISSES	3

/* Probes of a BAD EV back off up to the interval times 2^this. */
#define MRC_EV_PROBE_BACKOFF	3

/* A CE mark (or a slow echo) raises an EV's level by one, and while its
 * level is L it is used on one turn of the data rotation in 2^L: its
 * weight halves per mark.  Unmarked echoes add to the weight again, about
 * 1/2^MRC_EV_CE_CLEAN_SHIFT of a full one each (the level falls by one
 * after 2^(MRC_EV_CE_CLEAN_SHIFT - L) of them, at least one): additive
 * increase, multiplicative decrease, so that a path's share settles where
 * it marks a little, as a window does.  An EV whose every packet comes
 * back marked or slow carries 1/2^MRC_EV_CE_LEVEL_MAX of its share: with a
 * quarter of the EVs on one spine, 1 % of the packets, below the share of
 * a spine at a twenty-fifth of the others' rate.
 */
#define MRC_EV_CE_LEVEL_MAX	5
#define MRC_EV_CE_CLEAN_SHIFT	4

/* An EV whose packets take twice the connection's RTT, and at least this
 * much longer, is weighed down as if marked (mrc_ev_slow()).
 */
#define MRC_EV_SLOW_MIN_US	1000

/* Policy reps: how many EVs whose packets came back clean wait to be
 * used again (UET's REPS keeps 8).
 */
#define MRC_REPS_SLOTS		8

/* First transmissions in a row on one EV that our own stack dropped that
 * make it BAD (mrc_xmit_dropped()).
 */
#define MRC_EV_XMIT_DROPS	3

/**
 * struct mrc_ev - one entropy value of a connection and what it carries
 * @port: UDP source port (and IPv6 flow label) of the packets sent on it
 * @state: enum mrc_ev_state
 * @misses: probes sent since it went BAD
 * @suspect: its transmissions that RTOs swept up (and the ACK before
 *           showed missing) since one sent on it was last acknowledged
 * @ce_level: how heavily CE marks weigh it down: up one per mark (or slow
 *            echo, mrc_ev_slow()), down one per 2^(MRC_EV_CE_CLEAN_SHIFT -
 *            level) unmarked echoes, at most MRC_EV_CE_LEVEL_MAX
 * @clean: unmarked echoes since its level last changed
 * @passes: SKIP: turns of the data rotation it gives up before its next
 *          packet
 * @serving: the position it serves, MRC_EV_NONE if none
 * @outstanding: transmissions on this EV not yet acknowledged, in send
 *               order (packets on one path arrive in order, so a later one
 *               acknowledged while an earlier one is missing means loss)
 * @sent: packets sent on it
 * @acked: packets acknowledged that were sent on it
 * @lost: packets judged lost that were sent on it
 * @ce: CE marks reported for packets sent on it
 * @probes: probes sent on it while BAD (at most one per probe interval)
 * @srtt_us: smoothed RTT of the packets echoed on it, 0 before a sample
 * @bad_ns: when it last went BAD
 * @probe_ns: BAD: when the next probe is due
 * @acks: ACKs (and probe answers) sent on it
 * @acks_lost: of which the peer reported lost (a reverse path that loses)
 * @ack_from: the first of our ACK sequence numbers that a report of a
 *            lost ACK on it may name: the ACKs before went out before it
 *            last came back to service, or were reported already
 * @xmit_drops: data transmissions on it in a row that our own stack
 *              dropped with others leaving between (mrc_xmit_dropped())
 * @drop_mark: the connection's @xmit_left at the last of them
 */
struct mrc_ev {
	u16		port;
	u8		state;
	u8		misses;
	u8		suspect;
	u8		ce_level;
	u8		clean;
	u8		passes;
	u16		serving;
	u16		ack_from;
	u8		xmit_drops;
	u8		drop_mark;
	u32		srtt_us;
	u32		acks;
	u32		acks_lost;
	u32		probes;
	struct list_head outstanding;
	u64		sent;
	u64		acked;
	u64		lost;
	u64		ce;
	u64		bad_ns;
	u64		probe_ns;
};

/* A connection's EVs are one array: the default 128 and their 32 spares
 * fit in 16 KiB, an order-2 allocation (at 104 bytes each they took an
 * order-3 one, 32 KiB).
 */
static_assert(sizeof(struct mrc_ev) <= 96);

/**
 * struct mrc_evset - the entropy values of one connection
 * @evs: the slots
 * @act: for each position, the slot serving it or MRC_EV_NONE
 * @index: the slots by port, MRC_EVSET_INDEX_LEN(@nr_evs) entries: slot + 1
 *         at hash_32(port) or after it (linear probing), 0 where none is;
 *         mrc_evset_find() reads it, mrc_evset_reindex() builds it
 * @index_bits: log2 of the length of @index
 * @nr_evs: slots (positions and spares)
 * @nr_pos: positions
 * @next: next position of the data rotation
 * @ctl_next: next position for ACKs and probes
 * @fb_next: next slot when no EV is usable
 * @changes: state changes so far
 * @reps: policy reps: slots whose packets came back clean, oldest at
 *        @reps_head, to be used again (mrc_evset_pick_reps())
 * @reps_head: index of the oldest in @reps
 * @reps_len: how many @reps holds
 * @reps_frozen: policy reps: until when (ns) it does not explore
 */
struct mrc_evset {
	struct mrc_ev	*evs;
	u16		*act;
	u16		*index;
	u8		index_bits;
	u16		nr_evs;
	u16		nr_pos;
	u16		next;
	u16		ctl_next;
	u16		fb_next;
	u32		changes;
	u16		reps[MRC_REPS_SLOTS];
	u8		reps_head;
	u8		reps_len;
	u64		reps_frozen;
};

/* Entries of the index of a set of @n slots: a power of two, at most two
 * thirds full, so that a lookup finds an empty entry after a few.
 */
#define MRC_EVSET_INDEX_LEN(n)	roundup_pow_of_two((n) * 3 / 2 + 1)

/**
 * mrc_evset_reindex() - index the slots by port, after a port changed
 * @set: the set, its @index of MRC_EVSET_INDEX_LEN(@nr_evs) entries
 *
 * O(@nr_evs): when a connection starts, and when a spare gets a new port.
 * Of two slots with one port (there are none: ports are drawn distinct)
 * the lower is found, as a scan in slot order would find it.
 */
static inline void mrc_evset_reindex(struct mrc_evset *set)
{
	u32 len = MRC_EVSET_INDEX_LEN(set->nr_evs), h;
	u16 e;

	set->index_bits = ilog2(len);
	memset(set->index, 0, len * sizeof(*set->index));
	for (e = 0; e < set->nr_evs; e++) {
		h = hash_32(set->evs[e].port, set->index_bits);
		while (set->index[h])
			h = (h + 1) & (len - 1);
		set->index[h] = e + 1;
	}
}

/**
 * mrc_evset_init() - start with every position served by its home EV
 * @set: the set, @evs, @act and @index allocated for @nr_evs slots and
 *       @nr_pos positions; the ports already drawn
 * @nr_pos: positions (at least 1)
 * @nr_evs: slots, at least @nr_pos
 * @start: where the rotations begin (any number, taken modulo)
 */
static inline void mrc_evset_init(struct mrc_evset *set, u16 nr_pos,
				  u16 nr_evs, u32 start)
{
	u16 i;

	set->nr_pos = nr_pos;
	set->nr_evs = nr_evs;
	set->changes = 0;
	for (i = 0; i < nr_evs; i++) {
		struct mrc_ev *ev = &set->evs[i];

		ev->state = MRC_EV_GOOD;
		ev->misses = 0;
		ev->ce_level = 0;
		ev->clean = 0;
		ev->passes = 0;
		ev->serving = i < nr_pos ? i : MRC_EV_NONE;
		INIT_LIST_HEAD(&ev->outstanding);
		if (i < nr_pos)
			set->act[i] = i;
	}
	set->next = start % nr_pos;
	set->ctl_next = (start / 2) % nr_pos;
	set->fb_next = 0;
	mrc_evset_reindex(set);
	set->reps_head = 0;
	set->reps_len = 0;
	set->reps_frozen = 0;
}

/* Usable for data: GOOD or SKIP (SKIP is passed over on some turns). */
static inline bool mrc_ev_usable(const struct mrc_ev *ev)
{
	return ev->state == MRC_EV_GOOD || ev->state == MRC_EV_SKIP;
}

/**
 * mrc_evset_pick() - the EV for the next data packet
 * @set: the set
 * @avoid: a slot not to use if another is usable (a retransmission leaves
 *         the EV its original took), or MRC_EV_NONE
 * @skipped: incremented for each turn a SKIP EV gives up
 *
 * A SKIP EV gives up turns until its passes run out, is used on the next,
 * and then gives up 2^level - 1 turns again, or becomes GOOD when its
 * level has fallen to zero (mrc_evset_unmarked()).
 *
 * Return: the slot, or MRC_EV_NONE when no position has a usable EV.
 */
static inline u16 mrc_evset_pick(struct mrc_evset *set, u16 avoid,
				 u32 *skipped)
{
	u16 n, fallback = MRC_EV_NONE, avoided = MRC_EV_NONE;

	for (n = 0; n < set->nr_pos; n++) {
		u16 p = set->next, e;
		struct mrc_ev *ev;

		if (++set->next >= set->nr_pos)
			set->next = 0;
		e = set->act[p];
		if (e == MRC_EV_NONE || !mrc_ev_usable(&set->evs[e]))
			continue;
		ev = &set->evs[e];
		if (ev->state == MRC_EV_SKIP) {
			if (ev->passes) {
				ev->passes--;
				(*skipped)++;
				if (fallback == MRC_EV_NONE)
					fallback = e;
				continue;
			}
			if (e == avoid) {
				avoided = e;
				continue;
			}
			ev->passes = (1U << ev->ce_level) - 1;
			if (!ev->passes) {
				ev->state = MRC_EV_GOOD;
				set->changes++;
			}
			return e;
		}
		if (e == avoid) {
			avoided = e;
			continue;
		}
		return e;
	}
	return fallback != MRC_EV_NONE ? fallback : avoided;
}

/**
 * mrc_evset_pick_known() - an EV for a retransmission: one known to be fast
 * @set: the set
 * @avoid: the slot the packet's last transmission took
 * @lim_us: the RTT above which an EV's estimate is too slow (as
 *          mrc_ev_slow() judges)
 *
 * The next position of the data rotation whose EV is GOOD, has an RTT
 * estimate and that estimate is at most @lim_us: a packet that was late or
 * lost once should not go through a path nobody has heard from, which may
 * be the slow one (every EV of a connection is unknown until its first
 * echo; a slow spine's queue holds its first packets for many round
 * trips).  The rotation moves on as for data; no SKIP EV gives up a turn.
 *
 * Return: the slot, or MRC_EV_NONE when no such EV serves a position.
 */
static inline u16 mrc_evset_pick_known(struct mrc_evset *set, u16 avoid,
				       u32 lim_us)
{
	u16 n, p = set->next, e;

	for (n = 0; n < set->nr_pos; n++) {
		e = set->act[p];
		if (++p >= set->nr_pos)
			p = 0;
		if (e == MRC_EV_NONE || e == avoid ||
		    set->evs[e].state != MRC_EV_GOOD ||
		    !set->evs[e].srtt_us || set->evs[e].srtt_us > lim_us)
			continue;
		set->next = p;
		return e;
	}
	return MRC_EV_NONE;
}

/**
 * mrc_evset_reps_clean() - policy reps: a packet came back clean on an EV
 * @set: the set
 * @e: the slot: its packet was echoed in time, not marked, not slow
 *
 * The EV is used again for one of the next packets: each clean echo earns
 * its EV one more packet, so load follows the paths that deliver cleanly.
 * When MRC_REPS_SLOTS are waiting the echo earns nothing.
 */
static inline void mrc_evset_reps_clean(struct mrc_evset *set, u16 e)
{
	if (set->reps_len >= MRC_REPS_SLOTS)
		return;
	set->reps[(set->reps_head + set->reps_len) % MRC_REPS_SLOTS] = e;
	set->reps_len++;
}

/**
 * mrc_evset_reps_freeze() - policy reps: a path failed, stop exploring
 * @set: the set
 * @until: until when, ns
 *
 * While frozen the EVs that came back clean are used over and over (each
 * goes back to the end of the queue) instead of once, and the rotation is
 * explored only when none of them is usable: a failure is no time to try
 * paths nobody knows.
 */
static inline void mrc_evset_reps_freeze(struct mrc_evset *set, u64 until)
{
	if (until > set->reps_frozen)
		set->reps_frozen = until;
}

/**
 * mrc_evset_pick_reps() - policy reps: the EV for the next data packet
 * @set: the set
 * @avoid: as for mrc_evset_pick()
 * @skipped: as for mrc_evset_pick()
 * @now: current time, ns
 * @reused: set if the slot is one that came back clean (not explored)
 *
 * The oldest EV that came back clean, if it still serves a position and is
 * GOOD (one marked, slow or failed since is dropped); otherwise the next
 * of the rotation (exploring, as policy spray does).
 *
 * Return: the slot, or MRC_EV_NONE when no position has a usable EV.
 */
static inline u16 mrc_evset_pick_reps(struct mrc_evset *set, u16 avoid,
				      u32 *skipped, u64 now, bool *reused)
{
	bool frozen = now < set->reps_frozen;
	u8 n = set->reps_len;

	while (n--) {
		u16 e = set->reps[set->reps_head];

		set->reps_head = (set->reps_head + 1) % MRC_REPS_SLOTS;
		set->reps_len--;
		if (e >= set->nr_evs || set->evs[e].state != MRC_EV_GOOD ||
		    set->evs[e].serving == MRC_EV_NONE)
			continue;
		if (frozen || e == avoid)
			mrc_evset_reps_clean(set, e);
		if (e != avoid) {
			*reused = true;
			return e;
		}
	}
	*reused = false;
	return mrc_evset_pick(set, avoid, skipped);
}

/**
 * mrc_evset_pick_any() - an EV when none is usable
 * @set: the set
 *
 * Rotates over every slot that is not DENIED (BAD ones: a path may have
 * come back without a probe saying so yet), or over every slot when all
 * are DENIED.
 *
 * Return: a slot.
 */
static inline u16 mrc_evset_pick_any(struct mrc_evset *set)
{
	u16 n, e;

	for (n = 0; n < set->nr_evs; n++) {
		e = set->fb_next;
		if (++set->fb_next >= set->nr_evs)
			set->fb_next = 0;
		if (set->evs[e].state != MRC_EV_DENIED)
			return e;
	}
	e = set->fb_next;
	if (++set->fb_next >= set->nr_evs)
		set->fb_next = 0;
	return e;
}

/**
 * mrc_evset_pick_ctl() - the EV for an ACK or a probe of the peer
 * @set: the set
 *
 * Rotates over the positions' usable EVs so the reverse path survives a
 * failure too; SKIP does not matter for these small packets.
 *
 * Return: a slot.
 */
static inline u16 mrc_evset_pick_ctl(struct mrc_evset *set)
{
	u16 n;

	for (n = 0; n < set->nr_pos; n++) {
		u16 p = set->ctl_next, e;

		if (++set->ctl_next >= set->nr_pos)
			set->ctl_next = 0;
		e = set->act[p];
		if (e != MRC_EV_NONE && mrc_ev_usable(&set->evs[e]))
			return e;
	}
	return mrc_evset_pick_any(set);
}

/* A usable spare not serving any position, or MRC_EV_NONE: one known to
 * work (it carried data before, and its last echo was not marked) if there
 * is one, rather than one nobody has heard from.
 */
static inline u16 mrc_evset_spare(const struct mrc_evset *set)
{
	u16 e, first = MRC_EV_NONE;

	for (e = set->nr_pos; e < set->nr_evs; e++) {
		const struct mrc_ev *ev = &set->evs[e];

		if (!mrc_ev_usable(ev) || ev->serving != MRC_EV_NONE)
			continue;
		if (ev->srtt_us && !ev->ce_level)
			return e;
		if (first == MRC_EV_NONE)
			first = e;
	}
	return first;
}

/* Serve position @p (unserved) with a spare if there is one.
 * Return: the spare, or MRC_EV_NONE.
 */
static inline u16 mrc_evset_fill(struct mrc_evset *set, u16 p)
{
	u16 e = mrc_evset_spare(set);

	if (e != MRC_EV_NONE) {
		set->act[p] = e;
		set->evs[e].serving = p;
	}
	return e;
}

/* Serve every unserved position that a spare can take.
 * Return: how many positions were filled.
 */
static inline u16 mrc_evset_fill_all(struct mrc_evset *set)
{
	u16 p, n = 0;

	for (p = 0; p < set->nr_pos; p++)
		if (set->act[p] == MRC_EV_NONE &&
		    mrc_evset_fill(set, p) != MRC_EV_NONE)
			n++;
	return n;
}

/* @e stops serving its position, which a spare takes if it can.
 * Return: true if a spare took it.
 */
static inline bool mrc_evset_release(struct mrc_evset *set, u16 e)
{
	struct mrc_ev *ev = &set->evs[e];
	u16 p = ev->serving;

	if (p == MRC_EV_NONE)
		return false;
	ev->serving = MRC_EV_NONE;
	set->act[p] = MRC_EV_NONE;
	return mrc_evset_fill(set, p) != MRC_EV_NONE;
}

/**
 * mrc_evset_fail() - an EV lost a packet: BAD, out of service at once
 * @set: the set
 * @e: the slot
 * @now: current time, ns
 * @interval_ns: the probe interval
 * @replaced: set if a spare took its position
 *
 * Return: true if the state changed (it was GOOD or SKIP).
 */
static inline bool mrc_evset_fail(struct mrc_evset *set, u16 e, u64 now,
				  u64 interval_ns, bool *replaced)
{
	struct mrc_ev *ev = &set->evs[e];

	*replaced = false;
	if (!mrc_ev_usable(ev))
		return false;
	ev->state = MRC_EV_BAD;
	ev->misses = 0;
	ev->suspect = 0;
	ev->bad_ns = now;
	ev->probe_ns = now + interval_ns;
	set->changes++;
	*replaced = mrc_evset_release(set, e);
	return true;
}

/**
 * mrc_evset_revive() - a BAD or DENIED EV is GOOD again
 * @set: the set
 * @e: the slot
 *
 * GOOD, or SKIP if marks or delay had weighed it down (its level holds).
 * A home EV takes its position back (its substitute becomes a spare
 * again); a spare serves an unserved position if there is one.
 *
 * Return: true if the state changed.
 */
static inline bool mrc_evset_revive(struct mrc_evset *set, u16 e)
{
	struct mrc_ev *ev = &set->evs[e];

	if (mrc_ev_usable(ev))
		return false;
	/* what marks and delay made of its weight still holds */
	ev->state = ev->ce_level ? MRC_EV_SKIP : MRC_EV_GOOD;
	ev->passes = (1U << ev->ce_level) - 1;
	ev->misses = 0;
	set->changes++;
	if (e < set->nr_pos) {
		u16 sub = set->act[e];

		if (sub != MRC_EV_NONE && sub != e)
			set->evs[sub].serving = MRC_EV_NONE;
		set->act[e] = e;
		ev->serving = e;
		/* the substitute may serve a position left without one */
		mrc_evset_fill_all(set);
	} else {
		mrc_evset_fill_all(set);
	}
	return true;
}

/**
 * mrc_evset_deny() - the administrator takes an EV out of service
 * @set: the set
 * @e: the slot
 * @replaced: set if a spare took its position
 *
 * Return: true if the state changed.
 */
static inline bool mrc_evset_deny(struct mrc_evset *set, u16 e,
				  bool *replaced)
{
	struct mrc_ev *ev = &set->evs[e];

	*replaced = false;
	if (ev->state == MRC_EV_DENIED)
		return false;
	ev->state = MRC_EV_DENIED;
	set->changes++;
	*replaced = mrc_evset_release(set, e);
	return true;
}

/**
 * mrc_evset_weigh() - a packet sent on an EV came back marked or slow
 * @set: the set
 * @e: the slot
 * @level: the level its delay calls for at least (mrc_ev_slow_level()),
 *         0 for a CE mark, which says nothing of how much the path queues
 *
 * The EV's level rises by one, or to @level if that is more, and it gives
 * up 2^level - 1 turns of the data rotation before each packet (SKIP): a
 * path that keeps marking carries less and less while the others take the
 * rest, and a path far slower than the others learns it from one echo.  A
 * BAD or DENIED EV keeps its state (and its level, for when it comes
 * back).
 *
 * Return: true if the state changed (it was GOOD).
 */
static inline bool mrc_evset_weigh(struct mrc_evset *set, u16 e, u8 level)
{
	struct mrc_ev *ev = &set->evs[e];

	level = max_t(u8, level, ev->ce_level + 1);
	ev->ce_level = min_t(u8, level, MRC_EV_CE_LEVEL_MAX);
	ev->clean = 0;
	if (!mrc_ev_usable(ev))
		return false;
	ev->passes = (1U << ev->ce_level) - 1;
	if (ev->state == MRC_EV_SKIP)
		return false;
	ev->state = MRC_EV_SKIP;
	set->changes++;
	return true;
}

/**
 * mrc_evset_mark() - a packet sent on an EV came back with a CE mark
 * @set: the set
 * @e: the slot
 *
 * Its level rises by one (mrc_evset_weigh()).
 *
 * Return: true if the state changed (it was GOOD).
 */
static inline bool mrc_evset_mark(struct mrc_evset *set, u16 e)
{
	return mrc_evset_weigh(set, e, 0);
}

/**
 * mrc_evset_unmarked() - a packet sent on an EV came back without a mark
 * @set: the set
 * @e: the slot
 *
 * It counts towards the fall of its level by one: after
 * 2^(MRC_EV_CE_CLEAN_SHIFT - level) such echoes (at least one), so its
 * weight grows by about the same amount per echo whatever its level.  The
 * turns it gives up before its next packet stay given up.
 */
static inline void mrc_evset_unmarked(struct mrc_evset *set, u16 e)
{
	struct mrc_ev *ev = &set->evs[e];
	u8 need;

	if (!ev->ce_level)
		return;
	need = ev->ce_level >= MRC_EV_CE_CLEAN_SHIFT ? 1 :
	       1U << (MRC_EV_CE_CLEAN_SHIFT - ev->ce_level);
	if (++ev->clean < need)
		return;
	ev->ce_level--;
	ev->clean = 0;
}

/**
 * mrc_ev_probed() - a probe left on a BAD EV: schedule the next one
 * @ev: the EV
 * @now: current time, ns
 * @interval_ns: the probe interval; it doubles per unanswered probe
 * @rnd: a random number (0: no jitter)
 *
 * The next probe is due after the backed-off interval, less up to half of
 * it at random: EVs that failed together (a spine) would otherwise be
 * probed together for as long as they stay BAD, and a repair would wait
 * for their next common turn, up to the whole backed-off interval.
 * Spread out, the first of them is answered soon after a repair, and the
 * sweep (mrc_ev_sweep()) brings the others back with it.
 */
static inline void mrc_ev_probed(struct mrc_ev *ev, u64 now, u64 interval_ns,
				 u32 rnd)
{
	u64 d;

	ev->probes++;
	if (ev->misses < U8_MAX)
		ev->misses++;
	d = interval_ns << min_t(u8, ev->misses, MRC_EV_PROBE_BACKOFF);
	ev->probe_ns = now + d - mul_u64_u32_shr(d / 2, rnd, 32);
}

/**
 * mrc_evset_recyclable() - a spare that stayed BAD: give it a new port?
 * @set: the set
 * @e: the slot
 *
 * Return: true for a BAD spare whose probes went unanswered often enough
 * and that carries nothing.
 */
static inline bool mrc_evset_recyclable(const struct mrc_evset *set, u16 e)
{
	const struct mrc_ev *ev = &set->evs[e];

	return e >= set->nr_pos && ev->state == MRC_EV_BAD &&
	       ev->misses >= MRC_EV_RECYCLE_MISSES &&
	       list_empty(&ev->outstanding);
}

/**
 * mrc_evset_recycle() - a spare gets a new source port and a clean slate
 * @set: the set
 * @e: the slot (mrc_evset_recyclable())
 * @port: the new port
 */
static inline void mrc_evset_recycle(struct mrc_evset *set, u16 e, u16 port)
{
	struct mrc_ev *ev = &set->evs[e];
	u8 i;

	/* what came back clean on it was on another path */
	for (i = 0; i < MRC_REPS_SLOTS; i++)
		if (set->reps[i] == e)
			set->reps[i] = MRC_EV_NONE;
	ev->port = port;
	mrc_evset_reindex(set);
	ev->state = MRC_EV_GOOD;
	ev->misses = 0;
	ev->suspect = 0;
	ev->ce_level = 0;
	ev->clean = 0;
	ev->srtt_us = 0;
	/* its counters are the new port's (the path's), from zero */
	ev->sent = 0;
	ev->acked = 0;
	ev->lost = 0;
	ev->ce = 0;
	ev->probes = 0;
	ev->acks = 0;
	ev->acks_lost = 0;
	set->changes++;
	mrc_evset_fill_all(set);
}

/**
 * mrc_evset_probe_ns() - when the next probe of a BAD EV is due
 * @set: the set
 *
 * Return: the time, ns, or 0 when no EV is BAD.
 */
static inline u64 mrc_evset_probe_ns(const struct mrc_evset *set)
{
	u64 t = 0;
	u16 e;

	for (e = 0; e < set->nr_evs; e++)
		if (set->evs[e].state == MRC_EV_BAD &&
		    (!t || set->evs[e].probe_ns < t))
			t = set->evs[e].probe_ns;
	return t;
}

/**
 * mrc_evset_find() - the slot of a source port
 * @set: the set
 * @port: the port
 *
 * O(1): through @index, not a scan of the slots (an ACK looks up the EV
 * of each packet it echoes).  A set without slots (a listener's, or a
 * connection's before or after its state) has no index and finds none.
 *
 * Return: the slot or MRC_EV_NONE.
 */
static inline u16 mrc_evset_find(const struct mrc_evset *set, u16 port)
{
	u32 mask, h;
	u16 e;

	if (!set->nr_evs)
		return MRC_EV_NONE;
	mask = (1U << set->index_bits) - 1;
	h = hash_32(port, set->index_bits);
	while ((e = set->index[h])) {
		if (set->evs[e - 1].port == port)
			return e - 1;
		h = (h + 1) & mask;
	}
	return MRC_EV_NONE;
}

/**
 * mrc_evset_count() - EVs per state
 * @set: the set
 * @n: filled with the count of each enum mrc_ev_state
 */
static inline void mrc_evset_count(const struct mrc_evset *set, u16 n[4])
{
	u16 e;

	memset(n, 0, 4 * sizeof(*n));
	for (e = 0; e < set->nr_evs; e++)
		if (set->evs[e].state <= MRC_EV_DENIED)
			n[set->evs[e].state]++;
}

/* EV RTT: an EWMA with gain 1/8, like srtt. */
static inline void mrc_ev_rtt_sample(struct mrc_ev *ev, u32 rtt_us)
{
	if (!ev->srtt_us)
		ev->srtt_us = rtt_us;
	else
		ev->srtt_us = ev->srtt_us - (ev->srtt_us >> 3) + (rtt_us >> 3);
}

/* The RTT above which an EV is slow (mrc_ev_slow()): twice the
 * connection's, and MRC_EV_SLOW_MIN_US more at least.
 */
static inline u32 mrc_ev_slow_lim(u32 conn_srtt_us)
{
	return max_t(u32, 2 * conn_srtt_us, conn_srtt_us + MRC_EV_SLOW_MIN_US);
}

/**
 * mrc_ev_slow() - does an EV's path queue where the others' do not?
 * @ev: the EV, its RTT estimate updated with @rtt_us
 * @rtt_us: an RTT sample of a packet sent on it
 * @conn_srtt_us: the connection's smoothed RTT, over all its EVs
 *
 * A path that queues without marking (a slower or degraded link, a queue
 * without ECN) shows only in delay.  When the sample and the EV's own
 * estimate both exceed twice the connection's RTT, and that by
 * MRC_EV_SLOW_MIN_US, the EV is weighed down as a CE mark would
 * (mrc_evset_mark()): it carries less until its delay falls back.  A
 * queue that every EV shares (the receiver's link) delays all of them and
 * the connection's RTT with them: it weighs down none.  One stall of the
 * host delays one sample, not the EV's estimate: both must be slow.
 *
 * Return: true if the EV is slow.
 */
static inline bool mrc_ev_slow(const struct mrc_ev *ev, u32 rtt_us,
			       u32 conn_srtt_us)
{
	u32 lim = mrc_ev_slow_lim(conn_srtt_us);

	if (!conn_srtt_us)
		return false;
	return rtt_us > lim && ev->srtt_us > lim;
}

/**
 * mrc_ev_slow_level() - how far a slow EV is weighed down at once
 * @rtt_us: an RTT sample of a packet sent on it (mrc_ev_slow() said slow)
 * @conn_srtt_us: the connection's smoothed RTT, not 0
 *
 * A path whose packets take 2^k times the connection's RTT carries a
 * 2^k-th of its share at most: a spine far slower than the others (or
 * with a long queue) is known from the first echo of each EV on it, not
 * after a mark per halving, which on a slow path takes many of its round
 * trips, through a queue that grows all that time.
 *
 * Return: the level, at most MRC_EV_CE_LEVEL_MAX.
 */
static inline u8 mrc_ev_slow_level(u32 rtt_us, u32 conn_srtt_us)
{
	u32 r = rtt_us / conn_srtt_us;

	return r ? min_t(u8, ilog2(r), MRC_EV_CE_LEVEL_MAX) : 0;
}

#endif /* _NET_MRC_EVSET_H */
