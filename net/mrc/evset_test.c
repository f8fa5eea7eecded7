// SPDX-License-Identifier: GPL-2.0
/* KUnit suite for mrc's entropy-value sets: which EV serves each position,
 * the data and control rotations, and the GOOD/SKIP/BAD/DENIED states.
 */
#include <kunit/test.h>
#include <linux/module.h>

#include "evset.h"

#define NPOS	4	/* positions of the default set */
#define NEVS	6	/* slots: 4 home EVs and 2 spares */
#define PORT0	1000	/* port of slot 0; slot i has PORT0 + i */
#define T0	(1000 * NSEC_PER_MSEC)
#define IVL	(100 * NSEC_PER_MSEC)

struct evset_fix {
	struct mrc_ev evs[NEVS + 2];	/* room for two more spares */
	u16 act[NPOS];
	u16 index[MRC_EVSET_INDEX_LEN(NEVS + 2)];
	struct mrc_evset set;
};

/* A fixture off the stack: struct mrc_ev is large enough that six of
 * them and KUnit's expectations exceed the kernel's frame size limit.
 */
static struct evset_fix *fix_new(struct kunit *test)
{
	struct evset_fix *f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f);
	return f;
}

static struct mrc_evset *fix_init(struct evset_fix *f, u16 nr_pos,
				  u16 nr_evs, u32 start)
{
	u16 i;

	memset(f, 0, sizeof(*f));
	f->set.evs = f->evs;
	f->set.act = f->act;
	f->set.index = f->index;
	for (i = 0; i < nr_evs; i++)
		f->evs[i].port = PORT0 + i;
	mrc_evset_init(&f->set, nr_pos, nr_evs, start);
	return &f->set;
}

static u16 pick(struct mrc_evset *set, u16 avoid)
{
	u32 skipped = 0;

	return mrc_evset_pick(set, avoid, &skipped);
}

/* @e fails at T0; a spare takes its position or not, as @replaced says */
static void ev_fail(struct kunit *test, struct mrc_evset *set, u16 e,
		    bool replaced)
{
	bool r;

	KUNIT_EXPECT_TRUE(test, mrc_evset_fail(set, e, T0, IVL, &r));
	KUNIT_EXPECT_EQ(test, r, replaced);
}

static void ev_deny(struct kunit *test, struct mrc_evset *set, u16 e)
{
	bool r;

	KUNIT_EXPECT_TRUE(test, mrc_evset_deny(set, e, &r));
}

static void mrc_evset_init_home_serves(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NEVS, 6);
	u16 n[4], e;

	for (e = 0; e < NPOS; e++) {
		KUNIT_EXPECT_EQ(test, set->act[e], e);
		KUNIT_EXPECT_EQ(test, set->evs[e].serving, e);
	}
	for (e = 0; e < NEVS; e++) {
		KUNIT_EXPECT_EQ(test, set->evs[e].state, MRC_EV_GOOD);
		KUNIT_EXPECT_TRUE(test, list_empty(&set->evs[e].outstanding));
	}
	for (e = NPOS; e < NEVS; e++)
		KUNIT_EXPECT_EQ(test, set->evs[e].serving, MRC_EV_NONE);
	/* the rotations start where asked, modulo the positions */
	KUNIT_EXPECT_EQ(test, set->next, 2);
	KUNIT_EXPECT_EQ(test, set->ctl_next, 3);
	KUNIT_EXPECT_EQ(test, set->changes, 0U);
	mrc_evset_count(set, n);
	KUNIT_EXPECT_EQ(test, n[MRC_EV_GOOD], NEVS);
	KUNIT_EXPECT_EQ(test, n[MRC_EV_SKIP], 0);
	KUNIT_EXPECT_EQ(test, n[MRC_EV_BAD], 0);
	KUNIT_EXPECT_EQ(test, n[MRC_EV_DENIED], 0);
	KUNIT_EXPECT_EQ(test, mrc_evset_probe_ns(set), 0ULL);
	/* find */
	KUNIT_EXPECT_EQ(test, mrc_evset_find(set, PORT0 + 3), 3);
	KUNIT_EXPECT_EQ(test, mrc_evset_find(set, PORT0 + 5), 5);
	KUNIT_EXPECT_EQ(test, mrc_evset_find(set, PORT0 - 1), MRC_EV_NONE);
	KUNIT_EXPECT_EQ(test, mrc_evset_find(set, PORT0 + NEVS),
			MRC_EV_NONE);
}

/* The index finds every port of a large set whose ports crowd its hash
 * (a connection's are an arithmetic progression over the range), none
 * that is not there, and a recycled spare by its new port only.
 */
static void mrc_evset_find_large(struct kunit *test)
{
	const u16 nr_evs = 160, nr_pos = 128, step = 256;
	struct mrc_ev *evs = kunit_kcalloc(test, nr_evs, sizeof(*evs),
					   GFP_KERNEL);
	u16 *act = kunit_kcalloc(test, nr_pos, sizeof(*act), GFP_KERNEL);
	u16 *index = kunit_kcalloc(test, MRC_EVSET_INDEX_LEN(nr_evs),
				   sizeof(*index), GFP_KERNEL);
	struct mrc_evset set = { .evs = evs, .act = act, .index = index };
	u32 i, found = 0;

	KUNIT_ASSERT_NOT_NULL(test, evs);
	KUNIT_ASSERT_NOT_NULL(test, act);
	KUNIT_ASSERT_NOT_NULL(test, index);
	KUNIT_EXPECT_EQ(test, MRC_EVSET_INDEX_LEN(nr_evs), 256UL);
	for (i = 0; i < nr_evs; i++)
		evs[i].port = 20000 + i * step % 40000;
	mrc_evset_init(&set, nr_pos, nr_evs, 0);
	for (i = 0; i < nr_evs; i++)
		KUNIT_EXPECT_EQ(test, mrc_evset_find(&set, evs[i].port), i);
	/* every port of the range: exactly the set's are found */
	for (i = 0; i <= U16_MAX; i++)
		if (mrc_evset_find(&set, i) != MRC_EV_NONE)
			found++;
	KUNIT_EXPECT_EQ(test, found, (u32)nr_evs);
	/* a spare's new port replaces its old one */
	mrc_evset_recycle(&set, nr_evs - 1, 7);
	KUNIT_EXPECT_EQ(test, mrc_evset_find(&set, 7), nr_evs - 1);
	KUNIT_EXPECT_EQ(test, mrc_evset_find(&set, 20000 +
					     (nr_evs - 1) * step % 40000),
			MRC_EV_NONE);
	for (i = 0; i < nr_evs - 1; i++)
		KUNIT_EXPECT_EQ(test, mrc_evset_find(&set, evs[i].port), i);
}

static void mrc_evset_pick_rotates_evenly(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NEVS, 6);
	unsigned int seen[NEVS] = {};
	u32 skipped = 0;
	int round, i;

	/* the first round starts at position 6 % 4 */
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 2);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 3);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 0);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 1);
	for (round = 1; round <= 3; round++) {
		for (i = 0; i < NPOS; i++) {
			u16 e = mrc_evset_pick(set, MRC_EV_NONE, &skipped);

			KUNIT_ASSERT_LT(test, e, NEVS);
			seen[e]++;
		}
		/* each home EV exactly once per round, no spare */
		for (i = 0; i < NEVS; i++)
			KUNIT_EXPECT_EQ(test, seen[i],
					i < NPOS ? (unsigned int)round : 0U);
	}
	KUNIT_EXPECT_EQ(test, skipped, 0U);
	KUNIT_EXPECT_EQ(test, set->changes, 0U);
}

static void mrc_evset_pick_avoid(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NEVS, 0);

	/* avoided while another is usable: passed over, not lost */
	KUNIT_EXPECT_EQ(test, pick(set, 0), 1);
	KUNIT_EXPECT_EQ(test, pick(set, 0), 2);
	KUNIT_EXPECT_EQ(test, pick(set, 0), 3);
	KUNIT_EXPECT_EQ(test, pick(set, 0), 1);
	KUNIT_EXPECT_EQ(test, pick(set, MRC_EV_NONE), 2);
	KUNIT_EXPECT_EQ(test, pick(set, MRC_EV_NONE), 3);
	KUNIT_EXPECT_EQ(test, pick(set, MRC_EV_NONE), 0);

	/* the only usable one is returned even if avoided */
	set = fix_init(f, NPOS, NPOS, 0);
	ev_fail(test, set, 1, false);
	ev_fail(test, set, 2, false);
	ev_fail(test, set, 3, false);
	KUNIT_EXPECT_EQ(test, pick(set, 0), 0);
	KUNIT_EXPECT_EQ(test, pick(set, 0), 0);
	KUNIT_EXPECT_EQ(test, pick(set, MRC_EV_NONE), 0);
	/* avoiding a BAD one changes nothing */
	KUNIT_EXPECT_EQ(test, pick(set, 2), 0);
}

/* A mark halves an EV's weight: at level 1 it is passed over on every
 * other turn of its position, SKIP until unmarked echoes bring the level
 * back to 0 (2^(MRC_EV_CE_CLEAN_SHIFT - 1) of them), then GOOD.
 */
static void mrc_evset_skip_passed_over_once(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NEVS, 0);
	u32 skipped = 0;
	int i;

	KUNIT_EXPECT_TRUE(test, mrc_evset_mark(set, 1));
	KUNIT_EXPECT_EQ(test, set->evs[1].state, MRC_EV_SKIP);
	KUNIT_EXPECT_EQ(test, set->evs[1].ce_level, 1);
	KUNIT_EXPECT_EQ(test, set->changes, 1U);

	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 0);
	KUNIT_EXPECT_EQ(test, skipped, 0U);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 2);
	KUNIT_EXPECT_EQ(test, skipped, 1U);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 3);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 0);
	/* its next turn: used, still SKIP */
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 1);
	KUNIT_EXPECT_EQ(test, skipped, 1U);
	KUNIT_EXPECT_EQ(test, set->evs[1].state, MRC_EV_SKIP);
	KUNIT_EXPECT_EQ(test, set->changes, 1U);
	/* and passed over on the one after */
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 2);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 3);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 0);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 2);
	KUNIT_EXPECT_EQ(test, skipped, 2U);

	/* unmarked echoes: the level falls after eight of them */
	for (i = 0; i < (1 << (MRC_EV_CE_CLEAN_SHIFT - 1)) - 1; i++)
		mrc_evset_unmarked(set, 1);
	KUNIT_EXPECT_EQ(test, set->evs[1].ce_level, 1);
	mrc_evset_unmarked(set, 1);
	KUNIT_EXPECT_EQ(test, set->evs[1].ce_level, 0);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 3);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 0);
	/* its turn: used, and GOOD */
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 1);
	KUNIT_EXPECT_EQ(test, set->evs[1].state, MRC_EV_GOOD);
	KUNIT_EXPECT_EQ(test, set->changes, 2U);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 2);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 3);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 0);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 1);
	KUNIT_EXPECT_EQ(test, skipped, 2U);

	/* not for a BAD EV */
	ev_fail(test, set, 3, true);
	KUNIT_EXPECT_FALSE(test, mrc_evset_mark(set, 3));
	KUNIT_EXPECT_EQ(test, set->evs[3].state, MRC_EV_BAD);

	/* a SKIP EV that is the only usable one is used */
	set = fix_init(f, 1, 1, 0);
	skipped = 0;
	KUNIT_EXPECT_TRUE(test, mrc_evset_mark(set, 0));
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 0);
	KUNIT_EXPECT_EQ(test, skipped, 1U);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 0);
	KUNIT_EXPECT_EQ(test, skipped, 1U);
}

static void mrc_evset_fail_replaced_by_spare(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NEVS, 0);
	unsigned int seen[NEVS] = {};
	bool replaced;
	u16 n[4];
	int i;

	KUNIT_EXPECT_TRUE(test, mrc_evset_fail(set, 1, T0, IVL, &replaced));
	KUNIT_EXPECT_TRUE(test, replaced);
	KUNIT_EXPECT_EQ(test, set->evs[1].state, MRC_EV_BAD);
	KUNIT_EXPECT_EQ(test, set->evs[1].serving, MRC_EV_NONE);
	KUNIT_EXPECT_EQ(test, set->evs[1].bad_ns, T0);
	KUNIT_EXPECT_EQ(test, set->evs[1].probe_ns, T0 + IVL);
	KUNIT_EXPECT_EQ(test, set->act[1], NPOS);
	KUNIT_EXPECT_EQ(test, set->evs[NPOS].serving, 1);
	KUNIT_EXPECT_EQ(test, set->evs[NPOS + 1].serving, MRC_EV_NONE);
	KUNIT_EXPECT_EQ(test, set->changes, 1U);

	for (i = 0; i < 3 * NPOS; i++) {
		u16 e = pick(set, MRC_EV_NONE);

		KUNIT_ASSERT_LT(test, e, NEVS);
		seen[e]++;
	}
	KUNIT_EXPECT_EQ(test, seen[1], 0U);
	KUNIT_EXPECT_EQ(test, seen[0], 3U);
	KUNIT_EXPECT_EQ(test, seen[2], 3U);
	KUNIT_EXPECT_EQ(test, seen[3], 3U);
	KUNIT_EXPECT_EQ(test, seen[NPOS], 3U);
	KUNIT_EXPECT_EQ(test, seen[NPOS + 1], 0U);

	/* already BAD: nothing changes */
	replaced = true;
	KUNIT_EXPECT_FALSE(test, mrc_evset_fail(set, 1, T0 + IVL, IVL,
						&replaced));
	KUNIT_EXPECT_FALSE(test, replaced);
	KUNIT_EXPECT_EQ(test, set->evs[1].bad_ns, T0);
	KUNIT_EXPECT_EQ(test, set->evs[1].probe_ns, T0 + IVL);
	KUNIT_EXPECT_EQ(test, set->changes, 1U);
	mrc_evset_count(set, n);
	KUNIT_EXPECT_EQ(test, n[MRC_EV_GOOD], NEVS - 1);
	KUNIT_EXPECT_EQ(test, n[MRC_EV_BAD], 1);

	/* a SKIP EV can fail too */
	KUNIT_EXPECT_TRUE(test, mrc_evset_mark(set, 2));
	KUNIT_EXPECT_TRUE(test, mrc_evset_fail(set, 2, T0, IVL, &replaced));
	KUNIT_EXPECT_TRUE(test, replaced);
	KUNIT_EXPECT_EQ(test, set->act[2], NPOS + 1);
}

static void mrc_evset_spares_run_out(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NEVS, 0);
	unsigned int seen[NEVS] = {};
	u16 e, n[4];
	int i;

	ev_fail(test, set, 0, true);
	ev_fail(test, set, 1, true);
	ev_fail(test, set, 2, false);
	ev_fail(test, set, 3, false);
	KUNIT_EXPECT_EQ(test, set->act[0], NPOS);
	KUNIT_EXPECT_EQ(test, set->act[1], NPOS + 1);
	KUNIT_EXPECT_EQ(test, set->act[2], MRC_EV_NONE);
	KUNIT_EXPECT_EQ(test, set->act[3], MRC_EV_NONE);
	/* the served positions only, evenly */
	for (i = 0; i < 8; i++) {
		e = pick(set, MRC_EV_NONE);
		KUNIT_ASSERT_LT(test, e, NEVS);
		seen[e]++;
	}
	KUNIT_EXPECT_EQ(test, seen[NPOS], 4U);
	KUNIT_EXPECT_EQ(test, seen[NPOS + 1], 4U);

	/* no position served: nothing to pick */
	ev_fail(test, set, NPOS, false);
	KUNIT_EXPECT_EQ(test, pick(set, MRC_EV_NONE), NPOS + 1);
	ev_fail(test, set, NPOS + 1, false);
	for (e = 0; e < NPOS; e++)
		KUNIT_EXPECT_EQ(test, set->act[e], MRC_EV_NONE);
	KUNIT_EXPECT_EQ(test, pick(set, MRC_EV_NONE), MRC_EV_NONE);
	KUNIT_EXPECT_EQ(test, pick(set, 0), MRC_EV_NONE);

	/* pick_any: the BAD ones, in turn */
	for (e = 0; e < 2 * NEVS; e++)
		KUNIT_EXPECT_EQ(test, mrc_evset_pick_any(set), e % NEVS);
	/* but not the DENIED ones */
	for (e = 0; e < NPOS; e++)
		ev_deny(test, set, e);
	for (e = 0; e < 4; e++)
		KUNIT_EXPECT_EQ(test, mrc_evset_pick_any(set),
				NPOS + e % 2);
	/* all DENIED: every slot in turn */
	ev_deny(test, set, NPOS);
	ev_deny(test, set, NPOS + 1);
	mrc_evset_count(set, n);
	KUNIT_EXPECT_EQ(test, n[MRC_EV_DENIED], NEVS);
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < 2 * NEVS; i++) {
		e = mrc_evset_pick_any(set);
		KUNIT_ASSERT_LT(test, e, NEVS);
		seen[e]++;
	}
	for (e = 0; e < NEVS; e++)
		KUNIT_EXPECT_EQ(test, seen[e], 2U);
}

static void mrc_evset_revive_home_takes_back(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NEVS, 0);
	u16 e;
	int i;

	ev_fail(test, set, 0, true);		/* spare 4 serves position 0 */
	ev_fail(test, set, 1, true);		/* spare 5 serves position 1 */
	ev_fail(test, set, 2, false);		/* position 2 unserved */
	mrc_ev_probed(&set->evs[0], T0 + IVL, IVL, 0);
	KUNIT_EXPECT_EQ(test, set->evs[0].misses, 1);

	KUNIT_EXPECT_TRUE(test, mrc_evset_revive(set, 0));
	KUNIT_EXPECT_EQ(test, set->evs[0].state, MRC_EV_GOOD);
	KUNIT_EXPECT_EQ(test, set->evs[0].misses, 0);
	KUNIT_EXPECT_EQ(test, set->act[0], 0);
	KUNIT_EXPECT_EQ(test, set->evs[0].serving, 0);
	/* its substitute serves the position left without one */
	KUNIT_EXPECT_EQ(test, set->act[2], NPOS);
	KUNIT_EXPECT_EQ(test, set->evs[NPOS].serving, 2);
	/* already GOOD */
	KUNIT_EXPECT_FALSE(test, mrc_evset_revive(set, 0));
	KUNIT_EXPECT_FALSE(test, mrc_evset_revive(set, NPOS));
	KUNIT_EXPECT_EQ(test, set->changes, 4U);
	for (i = 0; i < 2 * NPOS; i++) {
		e = pick(set, MRC_EV_NONE);
		KUNIT_EXPECT_NE(test, e, 1);
		KUNIT_EXPECT_NE(test, e, 2);
	}

	/* the substitute goes back to the spare pool */
	KUNIT_EXPECT_TRUE(test, mrc_evset_revive(set, 1));
	KUNIT_EXPECT_EQ(test, set->act[1], 1);
	KUNIT_EXPECT_EQ(test, set->evs[NPOS + 1].serving, MRC_EV_NONE);
	KUNIT_EXPECT_EQ(test, set->evs[NPOS + 1].state, MRC_EV_GOOD);
	KUNIT_EXPECT_EQ(test, set->act[2], NPOS);
	/* and takes the next position given up */
	ev_fail(test, set, 3, true);
	KUNIT_EXPECT_EQ(test, set->act[3], NPOS + 1);
	/* the home EV of position 2 takes it back from spare 4 */
	KUNIT_EXPECT_TRUE(test, mrc_evset_revive(set, 2));
	KUNIT_EXPECT_EQ(test, set->act[2], 2);
	KUNIT_EXPECT_EQ(test, set->evs[NPOS].serving, MRC_EV_NONE);
	KUNIT_EXPECT_EQ(test, mrc_evset_spare(set), NPOS);
}

static void mrc_evset_revive_spare_fills(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NPOS + 1, 0);
	u16 e;
	int i;

	ev_fail(test, set, NPOS, false);	/* an idle spare goes BAD */
	KUNIT_EXPECT_EQ(test, set->evs[NPOS].state, MRC_EV_BAD);
	ev_fail(test, set, 0, false);		/* no spare left */
	KUNIT_EXPECT_EQ(test, set->act[0], MRC_EV_NONE);
	for (i = 0; i < 2 * NPOS; i++) {
		e = pick(set, MRC_EV_NONE);
		KUNIT_EXPECT_NE(test, e, 0);
		KUNIT_EXPECT_NE(test, e, NPOS);
	}

	KUNIT_EXPECT_TRUE(test, mrc_evset_revive(set, NPOS));
	KUNIT_EXPECT_EQ(test, set->evs[NPOS].state, MRC_EV_GOOD);
	KUNIT_EXPECT_EQ(test, set->act[0], NPOS);
	KUNIT_EXPECT_EQ(test, set->evs[NPOS].serving, 0);
	set->next = 0;
	KUNIT_EXPECT_EQ(test, pick(set, MRC_EV_NONE), NPOS);

	/* a revived spare with nothing to serve stays idle */
	set = fix_init(f, NPOS, NPOS + 1, 0);
	ev_fail(test, set, NPOS, false);
	KUNIT_EXPECT_TRUE(test, mrc_evset_revive(set, NPOS));
	KUNIT_EXPECT_EQ(test, set->evs[NPOS].serving, MRC_EV_NONE);
	for (e = 0; e < NPOS; e++)
		KUNIT_EXPECT_EQ(test, set->act[e], e);
}

static void mrc_evset_deny_allow(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NEVS, 0);
	bool replaced;
	u16 n[4];

	KUNIT_EXPECT_TRUE(test, mrc_evset_deny(set, 2, &replaced));
	KUNIT_EXPECT_TRUE(test, replaced);
	KUNIT_EXPECT_EQ(test, set->evs[2].state, MRC_EV_DENIED);
	KUNIT_EXPECT_EQ(test, set->act[2], NPOS);
	KUNIT_EXPECT_EQ(test, set->changes, 1U);
	/* twice, or failing a DENIED EV: nothing changes */
	KUNIT_EXPECT_FALSE(test, mrc_evset_deny(set, 2, &replaced));
	KUNIT_EXPECT_FALSE(test, replaced);
	KUNIT_EXPECT_FALSE(test, mrc_evset_fail(set, 2, T0, IVL, &replaced));
	KUNIT_EXPECT_EQ(test, set->evs[2].state, MRC_EV_DENIED);
	KUNIT_EXPECT_FALSE(test, mrc_evset_mark(set, 2));
	KUNIT_EXPECT_EQ(test, set->changes, 1U);
	/* not probed */
	KUNIT_EXPECT_EQ(test, mrc_evset_probe_ns(set), 0ULL);

	/* an idle spare denied: no position changes hands */
	KUNIT_EXPECT_TRUE(test, mrc_evset_deny(set, NPOS + 1, &replaced));
	KUNIT_EXPECT_FALSE(test, replaced);
	/* so the next position given up goes unserved */
	KUNIT_EXPECT_TRUE(test, mrc_evset_deny(set, 0, &replaced));
	KUNIT_EXPECT_FALSE(test, replaced);
	KUNIT_EXPECT_EQ(test, set->act[0], MRC_EV_NONE);
	mrc_evset_count(set, n);
	KUNIT_EXPECT_EQ(test, n[MRC_EV_GOOD], 3);
	KUNIT_EXPECT_EQ(test, n[MRC_EV_DENIED], 3);

	/* allowed again: takes its position back; the spare serves 0; the
	 * mark it got while DENIED holds: it comes back SKIP
	 */
	KUNIT_EXPECT_TRUE(test, mrc_evset_revive(set, 2));
	KUNIT_EXPECT_EQ(test, set->evs[2].state, MRC_EV_SKIP);
	KUNIT_EXPECT_EQ(test, set->evs[2].ce_level, 1);
	KUNIT_EXPECT_EQ(test, set->act[2], 2);
	KUNIT_EXPECT_EQ(test, set->act[0], NPOS);
	KUNIT_EXPECT_EQ(test, set->evs[NPOS].serving, 0);

	/* a BAD EV denied is no longer probed */
	ev_fail(test, set, 3, false);
	KUNIT_EXPECT_EQ(test, mrc_evset_probe_ns(set), T0 + IVL);
	KUNIT_EXPECT_TRUE(test, mrc_evset_deny(set, 3, &replaced));
	KUNIT_EXPECT_FALSE(test, replaced);
	KUNIT_EXPECT_EQ(test, mrc_evset_probe_ns(set), 0ULL);
}

static void mrc_evset_probe_backoff(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NEVS, 0);
	struct mrc_ev *ev = &set->evs[1];
	u64 now = T0;
	u8 k;

	ev_fail(test, set, 1, true);
	KUNIT_EXPECT_EQ(test, ev->probe_ns, T0 + IVL);
	for (k = 1; k <= MRC_EV_PROBE_BACKOFF + 3; k++) {
		now = ev->probe_ns;
		mrc_ev_probed(ev, now, IVL, 0);
		KUNIT_EXPECT_EQ(test, ev->misses, k);
		KUNIT_EXPECT_EQ(test, ev->probes, (u64)k);
		KUNIT_EXPECT_EQ(test, ev->probe_ns,
				now + (IVL << min_t(u8, k,
						    MRC_EV_PROBE_BACKOFF)));
	}
	/* capped */
	KUNIT_EXPECT_EQ(test, ev->probe_ns,
			now + IVL * (1ULL << MRC_EV_PROBE_BACKOFF));
	/* misses saturate */
	ev->misses = U8_MAX;
	mrc_ev_probed(ev, now, IVL, 0);
	KUNIT_EXPECT_EQ(test, ev->misses, U8_MAX);
	KUNIT_EXPECT_EQ(test, ev->probe_ns,
			now + (IVL << MRC_EV_PROBE_BACKOFF));
	/* a new failure starts over */
	KUNIT_EXPECT_TRUE(test, mrc_evset_revive(set, 1));
	ev_fail(test, set, 1, true);
	KUNIT_EXPECT_EQ(test, ev->misses, 0);
	KUNIT_EXPECT_EQ(test, ev->probe_ns, T0 + IVL);
	mrc_ev_probed(ev, T0 + IVL, IVL, 0);
	KUNIT_EXPECT_EQ(test, ev->probe_ns, T0 + 3 * IVL);
}

/* The jitter: up to half the backed-off interval earlier, never later,
 * so that EVs that failed together are not probed together.
 */
static void mrc_evset_probe_jitter(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NEVS, 0);
	struct mrc_ev *a = &set->evs[1], *b = &set->evs[2];
	u64 d = IVL << 1;

	ev_fail(test, set, 1, true);
	ev_fail(test, set, 2, true);
	KUNIT_EXPECT_EQ(test, a->probe_ns, b->probe_ns);
	mrc_ev_probed(a, T0 + IVL, IVL, 0);
	mrc_ev_probed(b, T0 + IVL, IVL, 1U << 31);
	KUNIT_EXPECT_EQ(test, a->probe_ns, T0 + IVL + d);
	KUNIT_EXPECT_EQ(test, b->probe_ns, T0 + IVL + d - d / 4);
	/* the most it takes off is half */
	mrc_ev_probed(a, T0, IVL, U32_MAX);
	d = IVL << 2;
	KUNIT_EXPECT_GT(test, a->probe_ns, T0 + d / 2);
	KUNIT_EXPECT_LE(test, a->probe_ns, T0 + d / 2 + 1);
	/* the backoff and its cap are as without jitter */
	a->misses = U8_MAX - 1;
	mrc_ev_probed(a, T0, IVL, 1U << 31);
	d = IVL << MRC_EV_PROBE_BACKOFF;
	KUNIT_EXPECT_EQ(test, a->probe_ns, T0 + d - d / 4);
}

static void mrc_evset_recycle_bad_spare(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NEVS, 0);
	struct mrc_ev *sp = &set->evs[NPOS];
	struct list_head pkt;
	u32 changes;
	int i;

	ev_fail(test, set, 0, true);		/* spare 4 serves position 0 */
	ev_fail(test, set, NPOS, true);	/* spare 5 takes over from it */
	KUNIT_EXPECT_EQ(test, set->act[0], NPOS + 1);
	ev_fail(test, set, 1, false);		/* position 1 unserved */
	sp->srtt_us = 500;

	for (i = 0; i < MRC_EV_RECYCLE_MISSES; i++) {
		KUNIT_EXPECT_FALSE(test, mrc_evset_recyclable(set, NPOS));
		mrc_ev_probed(sp, T0, IVL, 0);
	}
	KUNIT_EXPECT_TRUE(test, mrc_evset_recyclable(set, NPOS));
	/* not while it still carries something */
	list_add_tail(&pkt, &sp->outstanding);
	KUNIT_EXPECT_FALSE(test, mrc_evset_recyclable(set, NPOS));
	list_del(&pkt);
	KUNIT_EXPECT_TRUE(test, mrc_evset_recyclable(set, NPOS));
	/* never a home EV */
	for (i = 0; i < MRC_EV_RECYCLE_MISSES; i++)
		mrc_ev_probed(&set->evs[0], T0, IVL, 0);
	KUNIT_EXPECT_FALSE(test, mrc_evset_recyclable(set, 0));
	/* nor a spare that is not BAD */
	set->evs[NPOS + 1].misses = MRC_EV_RECYCLE_MISSES;
	KUNIT_EXPECT_FALSE(test, mrc_evset_recyclable(set, NPOS + 1));
	ev_deny(test, set, NPOS + 1);
	KUNIT_EXPECT_FALSE(test, mrc_evset_recyclable(set, NPOS + 1));
	KUNIT_EXPECT_TRUE(test, mrc_evset_revive(set, NPOS + 1));

	/* what the old port saw */
	sp->sent = 9;
	sp->acked = 5;
	sp->lost = 4;
	sp->ce = 2;
	sp->acks = 7;
	sp->acks_lost = 1;
	KUNIT_EXPECT_EQ(test, sp->probes, (u32)MRC_EV_RECYCLE_MISSES);

	changes = set->changes;
	mrc_evset_recycle(set, NPOS, 2000);
	KUNIT_EXPECT_EQ(test, set->changes, changes + 1);
	KUNIT_EXPECT_EQ(test, sp->port, 2000);
	KUNIT_EXPECT_EQ(test, sp->state, MRC_EV_GOOD);
	KUNIT_EXPECT_EQ(test, sp->misses, 0);
	KUNIT_EXPECT_EQ(test, sp->srtt_us, 0U);
	/* the new port's counters start from zero */
	KUNIT_EXPECT_EQ(test, sp->sent + sp->acked + sp->lost + sp->ce, 0ULL);
	KUNIT_EXPECT_EQ(test, sp->probes + sp->acks + sp->acks_lost, 0U);
	KUNIT_EXPECT_EQ(test, mrc_evset_find(set, 2000), NPOS);
	KUNIT_EXPECT_EQ(test, mrc_evset_find(set, PORT0 + NPOS), MRC_EV_NONE);
	KUNIT_EXPECT_FALSE(test, mrc_evset_recyclable(set, NPOS));
	/* and serves the position left without one */
	KUNIT_EXPECT_EQ(test, set->act[1], NPOS);
	KUNIT_EXPECT_EQ(test, sp->serving, 1);
}

static void mrc_evset_probe_ns_earliest(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NEVS, 0);
	bool replaced;

	KUNIT_EXPECT_EQ(test, mrc_evset_probe_ns(set), 0ULL);
	mrc_evset_fail(set, 1, 500, 100, &replaced);
	KUNIT_EXPECT_EQ(test, mrc_evset_probe_ns(set), 600ULL);
	mrc_evset_fail(set, 2, 300, 100, &replaced);
	KUNIT_EXPECT_EQ(test, mrc_evset_probe_ns(set), 400ULL);
	mrc_evset_fail(set, NPOS + 1, 800, 100, &replaced);
	KUNIT_EXPECT_EQ(test, mrc_evset_probe_ns(set), 400ULL);
	mrc_ev_probed(&set->evs[2], 400, 100, 0);	/* next at 600 */
	KUNIT_EXPECT_EQ(test, mrc_evset_probe_ns(set), 600ULL);
	mrc_ev_probed(&set->evs[1], 600, 100, 0);	/* next at 800 */
	KUNIT_EXPECT_EQ(test, mrc_evset_probe_ns(set), 600ULL);
	mrc_ev_probed(&set->evs[2], 600, 100, 0);	/* next at 1000 */
	KUNIT_EXPECT_EQ(test, mrc_evset_probe_ns(set), 800ULL);
	/* GOOD and DENIED ones are not probed */
	KUNIT_EXPECT_TRUE(test, mrc_evset_revive(set, 1));
	KUNIT_EXPECT_EQ(test, mrc_evset_probe_ns(set), 900ULL);
	ev_deny(test, set, NPOS + 1);
	KUNIT_EXPECT_EQ(test, mrc_evset_probe_ns(set), 1000ULL);
	KUNIT_EXPECT_TRUE(test, mrc_evset_revive(set, 2));
	KUNIT_EXPECT_EQ(test, mrc_evset_probe_ns(set), 0ULL);
}

static void mrc_evset_count_per_state(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NEVS, 0);
	u16 n[4];

	KUNIT_EXPECT_TRUE(test, mrc_evset_mark(set, 0));
	ev_fail(test, set, 1, true);		/* spare 4 takes position 1 */
	ev_deny(test, set, 2);		/* spare 5 takes position 2 */
	ev_deny(test, set, NPOS + 1);		/* position 2 unserved */
	KUNIT_EXPECT_EQ(test, set->act[2], MRC_EV_NONE);
	mrc_evset_count(set, n);
	KUNIT_EXPECT_EQ(test, n[MRC_EV_GOOD], 2);
	KUNIT_EXPECT_EQ(test, n[MRC_EV_SKIP], 1);
	KUNIT_EXPECT_EQ(test, n[MRC_EV_BAD], 1);
	KUNIT_EXPECT_EQ(test, n[MRC_EV_DENIED], 2);
	/* picks over and at the SKIP EV leave it SKIP while it is marked */
	set->next = 0;
	KUNIT_EXPECT_EQ(test, pick(set, MRC_EV_NONE), NPOS);
	set->next = 0;
	KUNIT_EXPECT_EQ(test, pick(set, MRC_EV_NONE), 0);
	mrc_evset_count(set, n);
	KUNIT_EXPECT_EQ(test, n[MRC_EV_GOOD], 2);
	KUNIT_EXPECT_EQ(test, n[MRC_EV_SKIP], 1);
}

static void mrc_evset_single_policy(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, 1, 1, 12345);
	bool replaced;

	KUNIT_EXPECT_EQ(test, set->next, 0);
	KUNIT_EXPECT_EQ(test, set->ctl_next, 0);
	KUNIT_EXPECT_EQ(test, pick(set, MRC_EV_NONE), 0);
	KUNIT_EXPECT_EQ(test, pick(set, 0), 0);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick_ctl(set), 0);

	KUNIT_EXPECT_TRUE(test, mrc_evset_fail(set, 0, T0, IVL, &replaced));
	KUNIT_EXPECT_FALSE(test, replaced);
	KUNIT_EXPECT_EQ(test, set->act[0], MRC_EV_NONE);
	KUNIT_EXPECT_EQ(test, pick(set, MRC_EV_NONE), MRC_EV_NONE);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick_any(set), 0);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick_any(set), 0);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick_ctl(set), 0);
	KUNIT_EXPECT_EQ(test, mrc_evset_probe_ns(set), T0 + IVL);
	/* never recycled: it is a home EV */
	mrc_ev_probed(&set->evs[0], T0, IVL, 0);
	mrc_ev_probed(&set->evs[0], T0, IVL, 0);
	mrc_ev_probed(&set->evs[0], T0, IVL, 0);
	KUNIT_EXPECT_FALSE(test, mrc_evset_recyclable(set, 0));

	ev_deny(test, set, 0);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick_any(set), 0);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick_ctl(set), 0);

	KUNIT_EXPECT_TRUE(test, mrc_evset_revive(set, 0));
	KUNIT_EXPECT_EQ(test, set->act[0], 0);
	KUNIT_EXPECT_EQ(test, pick(set, MRC_EV_NONE), 0);
}

static void mrc_evset_changes_counted(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NEVS, 0);
	bool replaced;
	int i;

	KUNIT_EXPECT_EQ(test, set->changes, 0U);
	pick(set, MRC_EV_NONE);
	mrc_evset_pick_ctl(set);
	mrc_evset_pick_any(set);
	KUNIT_EXPECT_EQ(test, set->changes, 0U);
	mrc_evset_mark(set, 1);
	KUNIT_EXPECT_EQ(test, set->changes, 1U);
	for (i = 0; i < 1 << (MRC_EV_CE_CLEAN_SHIFT - 1); i++)
		mrc_evset_unmarked(set, 1);
	pick(set, MRC_EV_NONE);		/* passes over 1 */
	KUNIT_EXPECT_EQ(test, set->changes, 1U);
	set->next = 1;
	KUNIT_EXPECT_EQ(test, pick(set, MRC_EV_NONE), 1);	/* GOOD */
	KUNIT_EXPECT_EQ(test, set->changes, 2U);
	mrc_evset_fail(set, 2, T0, IVL, &replaced);
	KUNIT_EXPECT_EQ(test, set->changes, 3U);
	mrc_evset_fail(set, 2, T0, IVL, &replaced);
	KUNIT_EXPECT_EQ(test, set->changes, 3U);
	mrc_evset_deny(set, 2, &replaced);	/* BAD -> DENIED */
	KUNIT_EXPECT_EQ(test, set->changes, 4U);
	mrc_evset_deny(set, 2, &replaced);
	KUNIT_EXPECT_EQ(test, set->changes, 4U);
	mrc_evset_revive(set, 2);
	KUNIT_EXPECT_EQ(test, set->changes, 5U);
	mrc_evset_revive(set, 2);
	KUNIT_EXPECT_EQ(test, set->changes, 5U);
	mrc_evset_fail(set, NPOS, T0, IVL, &replaced);
	KUNIT_EXPECT_EQ(test, set->changes, 6U);
	mrc_evset_recycle(set, NPOS, 3000);
	KUNIT_EXPECT_EQ(test, set->changes, 7U);
	mrc_ev_probed(&set->evs[NPOS], T0, IVL, 0);
	KUNIT_EXPECT_EQ(test, set->changes, 7U);
}

static void mrc_evset_ctl_rotates(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NEVS, 1);
	u16 e;

	/* starts at position 1 / 2 */
	for (e = 0; e < 2 * NPOS; e++)
		KUNIT_EXPECT_EQ(test, mrc_evset_pick_ctl(set), e % NPOS);
	/* SKIP does not matter, and stays */
	KUNIT_EXPECT_TRUE(test, mrc_evset_mark(set, 1));
	ev_fail(test, set, 2, true);		/* spare 4 serves position 2 */
	ev_fail(test, set, 3, true);		/* spare 5 serves position 3 */
	ev_fail(test, set, NPOS + 1, false);	/* position 3 unserved */
	for (e = 0; e < 2; e++) {
		KUNIT_EXPECT_EQ(test, mrc_evset_pick_ctl(set), 0);
		KUNIT_EXPECT_EQ(test, mrc_evset_pick_ctl(set), 1);
		KUNIT_EXPECT_EQ(test, mrc_evset_pick_ctl(set), NPOS);
	}
	KUNIT_EXPECT_EQ(test, set->evs[1].state, MRC_EV_SKIP);
	/* the data rotation is a separate one */
	KUNIT_EXPECT_EQ(test, set->next, 1);
	/* nothing usable: the fallback rotation */
	ev_fail(test, set, 0, false);
	ev_fail(test, set, 1, false);
	ev_fail(test, set, NPOS, false);
	for (e = 0; e < NEVS; e++)
		KUNIT_EXPECT_EQ(test, mrc_evset_pick_ctl(set), e);
}

static void mrc_evset_rtt_ewma(struct kunit *test)
{
	struct mrc_ev ev = {};
	int i;

	mrc_ev_rtt_sample(&ev, 800);
	KUNIT_EXPECT_EQ(test, ev.srtt_us, 800U);
	mrc_ev_rtt_sample(&ev, 1600);	/* 800 - 100 + 200 */
	KUNIT_EXPECT_EQ(test, ev.srtt_us, 900U);
	mrc_ev_rtt_sample(&ev, 100);	/* 900 - 112 + 12 */
	KUNIT_EXPECT_EQ(test, ev.srtt_us, 800U);
	for (i = 0; i < 100; i++)
		mrc_ev_rtt_sample(&ev, 4000);
	KUNIT_EXPECT_GE(test, ev.srtt_us, 3990U);
	KUNIT_EXPECT_LE(test, ev.srtt_us, 4007U);
}

/* A SKIP substitute that a revived home EV sends back to the spares is
 * still usable: the next position given up takes it.
 */
static void mrc_evset_skip_spare_reused(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, 2, 3, 0);
	bool replaced;

	ev_fail(test, set, 0, true);	/* spare 2 serves position 0 */
	KUNIT_EXPECT_TRUE(test, mrc_evset_mark(set, 2));
	KUNIT_EXPECT_TRUE(test, mrc_evset_revive(set, 0));
	KUNIT_EXPECT_TRUE(test, mrc_evset_fail(set, 1, T0, IVL, &replaced));
	KUNIT_EXPECT_TRUE(test, replaced);
	KUNIT_EXPECT_EQ(test, set->act[1], 2);
}

/* A retransmission avoids its EV even when the only other usable one is
 * being skipped for a round.
 */
static void mrc_evset_avoid_over_skip(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, 2, 2, 0);

	KUNIT_EXPECT_TRUE(test, mrc_evset_mark(set, 0));
	KUNIT_EXPECT_EQ(test, pick(set, 1), 0);
	set = fix_init(f, 2, 2, 0);
	KUNIT_EXPECT_TRUE(test, mrc_evset_mark(set, 1));
	KUNIT_EXPECT_EQ(test, pick(set, 0), 1);
}

/* Marks weigh an EV down: each one raises its level, and it gives up
 * 2^level - 1 turns; unmarked echoes bring the level back down.
 */
static void mrc_evset_marks_weigh_down(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NEVS, 0);
	unsigned int seen[NEVS] = {};
	u32 skipped = 0;
	int i;

	KUNIT_EXPECT_TRUE(test, mrc_evset_mark(set, 1));
	/* marked again while SKIP: no state change, but a heavier weight */
	KUNIT_EXPECT_FALSE(test, mrc_evset_mark(set, 1));
	KUNIT_EXPECT_EQ(test, set->evs[1].ce_level, 2);
	KUNIT_EXPECT_EQ(test, set->evs[1].passes, 3);
	KUNIT_EXPECT_EQ(test, set->changes, 1U);
	/* three rounds without 1, then it has a turn, and three more
	 * rounds without it: a quarter of its share
	 */
	for (i = 0; i < 3 * (NPOS - 1); i++)
		seen[mrc_evset_pick(set, MRC_EV_NONE, &skipped)]++;
	KUNIT_EXPECT_EQ(test, seen[1], 0U);
	KUNIT_EXPECT_EQ(test, seen[0], 3U);
	KUNIT_EXPECT_EQ(test, skipped, 3U);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 0);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick(set, MRC_EV_NONE, &skipped), 1);
	KUNIT_EXPECT_EQ(test, set->evs[1].state, MRC_EV_SKIP);
	KUNIT_EXPECT_EQ(test, set->evs[1].passes, 3);

	/* the level is capped */
	for (i = 0; i < 10; i++)
		mrc_evset_mark(set, 2);
	KUNIT_EXPECT_EQ(test, set->evs[2].ce_level, MRC_EV_CE_LEVEL_MAX);
	KUNIT_EXPECT_EQ(test, set->evs[2].passes,
			(1U << MRC_EV_CE_LEVEL_MAX) - 1);
	/* unmarked echoes lower it, by one per 2^(4 - level) of them (at
	 * least one): the weight grows by about 1/16 per echo
	 */
	mrc_evset_unmarked(set, 2);
	KUNIT_EXPECT_EQ(test, set->evs[2].ce_level, 4);
	mrc_evset_unmarked(set, 2);
	KUNIT_EXPECT_EQ(test, set->evs[2].ce_level, 3);
	mrc_evset_unmarked(set, 2);
	KUNIT_EXPECT_EQ(test, set->evs[2].ce_level, 3);
	mrc_evset_unmarked(set, 2);
	KUNIT_EXPECT_EQ(test, set->evs[2].ce_level, 2);
	for (i = 0; i < 4; i++)
		mrc_evset_unmarked(set, 2);
	KUNIT_EXPECT_EQ(test, set->evs[2].ce_level, 1);
	for (i = 0; i < 7; i++)
		mrc_evset_unmarked(set, 2);
	KUNIT_EXPECT_EQ(test, set->evs[2].ce_level, 1);
	/* a mark in between starts the count again */
	mrc_evset_mark(set, 2);
	KUNIT_EXPECT_EQ(test, set->evs[2].ce_level, 2);
	for (i = 0; i < 3; i++)
		mrc_evset_unmarked(set, 2);
	KUNIT_EXPECT_EQ(test, set->evs[2].ce_level, 2);
	for (i = 0; i < 1 + 8 + 2; i++)
		mrc_evset_unmarked(set, 2);
	/* to zero and no further */
	KUNIT_EXPECT_EQ(test, set->evs[2].ce_level, 0);
	/* a mark then counts as the first one */
	mrc_evset_mark(set, 2);
	KUNIT_EXPECT_EQ(test, set->evs[2].passes, 1);

	/* a BAD EV keeps its state but remembers the mark */
	ev_fail(test, set, 3, true);
	KUNIT_EXPECT_FALSE(test, mrc_evset_mark(set, 3));
	KUNIT_EXPECT_EQ(test, set->evs[3].state, MRC_EV_BAD);
	KUNIT_EXPECT_EQ(test, set->evs[3].ce_level, 1);
	/* a recycled spare starts clean */
	mrc_evset_mark(set, NPOS);
	ev_fail(test, set, NPOS, true);
	mrc_evset_recycle(set, NPOS, 3000);
	KUNIT_EXPECT_EQ(test, set->evs[NPOS].ce_level, 0);

	/* delay may ask for more than one step at once, marks do not */
	KUNIT_EXPECT_TRUE(test, mrc_evset_weigh(set, 0, 4));
	KUNIT_EXPECT_EQ(test, set->evs[0].ce_level, 4);
	KUNIT_EXPECT_EQ(test, set->evs[0].passes, 15);
	KUNIT_EXPECT_FALSE(test, mrc_evset_weigh(set, 0, 2));
	KUNIT_EXPECT_EQ(test, set->evs[0].ce_level, 5);
	KUNIT_EXPECT_FALSE(test, mrc_evset_weigh(set, 0, 200));
	KUNIT_EXPECT_EQ(test, set->evs[0].ce_level, MRC_EV_CE_LEVEL_MAX);
	KUNIT_EXPECT_EQ(test, mrc_ev_slow_level(3000, 1000), 1);
	KUNIT_EXPECT_EQ(test, mrc_ev_slow_level(8000, 1000), 3);
	KUNIT_EXPECT_EQ(test, mrc_ev_slow_level(999, 1000), 0);
	KUNIT_EXPECT_EQ(test, mrc_ev_slow_level(U32_MAX, 1),
			MRC_EV_CE_LEVEL_MAX);

	/* a BAD EV weighed down comes back SKIP, its weight as it was */
	ev_fail(test, set, 0, true);
	KUNIT_EXPECT_TRUE(test, mrc_evset_revive(set, 0));
	KUNIT_EXPECT_EQ(test, set->evs[0].state, MRC_EV_SKIP);
	KUNIT_EXPECT_EQ(test, set->evs[0].passes,
			(1U << MRC_EV_CE_LEVEL_MAX) - 1);
}

/* A "spine" that marks every packet it carries: with two of eight EVs on
 * it, it ends up with a small fraction of the packets instead of a
 * quarter, and the rotation still serves every other EV evenly.  A spine
 * that marks half of them keeps more than that, and clearly less than its
 * share.
 */
static unsigned int marked_share_permille(struct kunit *test, int every)
{
	struct mrc_ev *evs = kunit_kcalloc(test, 8, sizeof(*evs), GFP_KERNEL);
	u16 act[8], index[MRC_EVSET_INDEX_LEN(8)], e;
	struct mrc_evset set = { .evs = evs, .act = act, .index = index };
	unsigned int seen[8] = {}, n = 0, total = 8000, i;
	u32 skipped = 0;

	KUNIT_ASSERT_NOT_NULL(test, evs);
	mrc_evset_init(&set, 8, 8, 0);
	for (i = 0; i < total; i++) {
		e = mrc_evset_pick(&set, MRC_EV_NONE, &skipped);
		KUNIT_ASSERT_LT(test, e, 8);
		seen[e]++;
		/* the echo: EVs 0 and 1 cross the marking spine */
		if (e < 2 && (n++ % every) == 0)
			mrc_evset_mark(&set, e);
		else
			mrc_evset_unmarked(&set, e);
	}
	for (e = 3; e < 8; e++)
		KUNIT_EXPECT_LE(test, abs((int)seen[e] - (int)seen[2]), 1);
	return (seen[0] + seen[1]) * 1000 / total;
}

static void mrc_evset_marks_move_load(struct kunit *test)
{
	unsigned int all = marked_share_permille(test, 1);
	unsigned int half = marked_share_permille(test, 2);

	/* 2/32 of an even share each: (2/32) / (6 + 2/32) = 10 per mille */
	KUNIT_EXPECT_LE(test, all, 14U);
	KUNIT_EXPECT_GT(test, half, all);
	KUNIT_EXPECT_LT(test, half, 200U);
}

/* Slow is twice the connection's RTT and 1 ms more, in the sample and the
 * EV's estimate both.
 */
static void mrc_evset_slow_by_delay(struct kunit *test)
{
	struct mrc_ev ev = { .srtt_us = 30000 };

	/* no RTT of the connection yet: nothing to compare with */
	KUNIT_EXPECT_FALSE(test, mrc_ev_slow(&ev, 30000, 0));
	/* 30 ms against 10 ms */
	KUNIT_EXPECT_TRUE(test, mrc_ev_slow(&ev, 30000, 10000));
	/* exactly twice is not over it */
	KUNIT_EXPECT_FALSE(test, mrc_ev_slow(&ev, 20000, 10000));
	KUNIT_EXPECT_TRUE(test, mrc_ev_slow(&ev, 20001, 10000));
	/* one slow sample of an EV that is fast: a stall, not its path */
	ev.srtt_us = 10000;
	KUNIT_EXPECT_FALSE(test, mrc_ev_slow(&ev, 80000, 10000));
	/* an EV slow so far whose sample is fast again */
	ev.srtt_us = 40000;
	KUNIT_EXPECT_FALSE(test, mrc_ev_slow(&ev, 11000, 10000));
	/* short RTTs: twice 200 us is noise; 1 ms more is the floor */
	ev.srtt_us = 900;
	KUNIT_EXPECT_FALSE(test, mrc_ev_slow(&ev, 900, 200));
	ev.srtt_us = 1300;
	KUNIT_EXPECT_TRUE(test, mrc_ev_slow(&ev, 1300, 200));
}

/* Delay weighs like marks: an EV whose every echo is slow ends at
 * MRC_EV_CE_LEVEL_MAX and carries 1/2^that of an even share; its first
 * slow echo (ten times the connection's RTT) takes it to level 3 at once;
 * once fast again its level falls back, one step per 2^(4 - level)
 * echoes.
 */
static void mrc_evset_slow_weighs_down(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NEVS, 6);
	unsigned int seen[NPOS] = {}, i;
	bool first = true;
	u16 e;

	set->evs[0].srtt_us = 50000;
	for (i = 0; i < 33 * 64; i++) {
		e = pick(set, MRC_EV_NONE);
		KUNIT_ASSERT_LT(test, e, (u16)NPOS);
		seen[e]++;
		if (e == 0 && mrc_ev_slow(&set->evs[e], 50000, 5000)) {
			mrc_evset_weigh(set, e, mrc_ev_slow_level(50000, 5000));
			if (first)
				KUNIT_EXPECT_EQ(test, set->evs[0].ce_level, 3);
			first = false;
		} else {
			mrc_evset_unmarked(set, e);
		}
	}
	KUNIT_EXPECT_EQ(test, set->evs[0].ce_level, MRC_EV_CE_LEVEL_MAX);
	/* about 1/32 of each other's (its first echoes weigh less) */
	KUNIT_EXPECT_LE(test, seen[0] * 24, seen[1]);
	KUNIT_EXPECT_GT(test, seen[0], 0U);
	for (i = 0; i < 16; i++)
		mrc_evset_unmarked(set, 0);
	KUNIT_EXPECT_EQ(test, set->evs[0].ce_level, 0);
}

/* A retransmission goes on a GOOD EV whose estimate is known and fast:
 * not on one nobody has heard from, a weighed-down one, a slow one or the
 * one it took last; none such, none returned.
 */
static void mrc_evset_retrans_known_fast(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NEVS, 0);
	u16 e;
	int i;

	/* nobody heard from yet */
	KUNIT_EXPECT_EQ(test, mrc_evset_pick_known(set, MRC_EV_NONE, 2000),
			MRC_EV_NONE);
	set->evs[0].srtt_us = 900;	/* fast, but the one to avoid */
	set->evs[1].srtt_us = 5000;	/* slow */
	set->evs[2].srtt_us = 800;	/* fast, weighed down */
	mrc_evset_mark(set, 2);
	set->evs[3].srtt_us = 1000;	/* fast */
	for (i = 0; i < 2 * NPOS; i++) {
		e = mrc_evset_pick_known(set, 0, 2000);
		KUNIT_EXPECT_EQ(test, e, 3);
	}
	/* the rotation moved on; it still serves data evenly from there */
	KUNIT_EXPECT_EQ(test, set->next, 0);
	/* without an avoided one, both fast GOOD EVs take turns */
	KUNIT_EXPECT_EQ(test, mrc_evset_pick_known(set, MRC_EV_NONE, 2000), 0);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick_known(set, MRC_EV_NONE, 2000), 3);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick_known(set, MRC_EV_NONE, 2000), 0);
	/* the SKIP EV gave up no turn */
	KUNIT_EXPECT_EQ(test, set->evs[2].passes, 1);
	/* a BAD one is not known to be fast any more */
	ev_fail(test, set, 3, true);
	KUNIT_EXPECT_EQ(test, mrc_evset_pick_known(set, 0, 2000), MRC_EV_NONE);
}

static u16 pick_reps(struct mrc_evset *set, u16 avoid, u64 now)
{
	u32 skipped = 0;
	bool reused;

	return mrc_evset_pick_reps(set, avoid, &skipped, now, &reused);
}

/* reps: with nothing clean it explores as spray does; then each clean echo
 * earns its EV one packet, oldest first.
 */
static void mrc_evset_reps_reuses_clean(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NEVS, 0);
	unsigned int i;

	for (i = 0; i < NPOS; i++)
		KUNIT_EXPECT_EQ(test, pick_reps(set, MRC_EV_NONE, T0), (u16)i);
	mrc_evset_reps_clean(set, 2);
	mrc_evset_reps_clean(set, 2);
	mrc_evset_reps_clean(set, 1);
	KUNIT_EXPECT_EQ(test, pick_reps(set, MRC_EV_NONE, T0), 2);
	KUNIT_EXPECT_EQ(test, pick_reps(set, MRC_EV_NONE, T0), 2);
	KUNIT_EXPECT_EQ(test, pick_reps(set, MRC_EV_NONE, T0), 1);
	/* used up: the rotation again, where it left off */
	KUNIT_EXPECT_EQ(test, pick_reps(set, MRC_EV_NONE, T0), 0);
	KUNIT_EXPECT_EQ(test, set->reps_len, 0);
	/* at most MRC_REPS_SLOTS wait */
	for (i = 0; i < MRC_REPS_SLOTS + 3; i++)
		mrc_evset_reps_clean(set, 3);
	KUNIT_EXPECT_EQ(test, set->reps_len, MRC_REPS_SLOTS);
}

/* reps: an EV marked or failed since its clean echo is not reused; a
 * retransmission's avoided EV waits for the next packet.
 */
static void mrc_evset_reps_drops_stale(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NEVS, 0);

	mrc_evset_reps_clean(set, 1);
	mrc_evset_reps_clean(set, 2);
	mrc_evset_reps_clean(set, 3);
	KUNIT_EXPECT_TRUE(test, mrc_evset_mark(set, 1));
	ev_fail(test, set, 2, true);
	/* 1 is SKIP, 2 BAD: 3 is next */
	KUNIT_EXPECT_EQ(test, pick_reps(set, MRC_EV_NONE, T0), 3);
	mrc_evset_reps_clean(set, 3);
	mrc_evset_reps_clean(set, 0);
	/* 3 avoided: 0 now, 3 kept for the next */
	KUNIT_EXPECT_EQ(test, pick_reps(set, 3, T0), 0);
	KUNIT_EXPECT_EQ(test, pick_reps(set, MRC_EV_NONE, T0), 3);
	/* a recycled spare's old echoes were of another path */
	mrc_evset_reps_clean(set, 4);
	mrc_evset_recycle(set, 4, PORT0 + 100);
	KUNIT_EXPECT_NE(test, pick_reps(set, MRC_EV_NONE, T0), 4);
}

/* reps, frozen after a failure: the clean EVs go round and round and the
 * rotation (which would reach the others) is not explored; after the
 * freeze each is used once again.
 */
static void mrc_evset_reps_freeze_cycles(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NEVS, 0);
	unsigned int i;

	mrc_evset_reps_clean(set, 3);
	mrc_evset_reps_clean(set, 1);
	mrc_evset_reps_freeze(set, T0 + 1000);
	/* an earlier end does not shorten it */
	mrc_evset_reps_freeze(set, T0 + 10);
	for (i = 0; i < 6; i++)
		KUNIT_EXPECT_EQ(test, pick_reps(set, MRC_EV_NONE, T0 + 500),
				(u16)(i % 2 ? 1 : 3));
	KUNIT_EXPECT_EQ(test, pick_reps(set, MRC_EV_NONE, T0 + 1000), 3);
	KUNIT_EXPECT_EQ(test, pick_reps(set, MRC_EV_NONE, T0 + 1000), 1);
	KUNIT_EXPECT_EQ(test, pick_reps(set, MRC_EV_NONE, T0 + 1000), 0);
	/* frozen with nothing clean: packets still go, by the rotation */
	mrc_evset_reps_freeze(set, T0 + 5000);
	KUNIT_EXPECT_EQ(test, pick_reps(set, MRC_EV_NONE, T0 + 2000), 1);
}

/* A position given up is taken by a spare known to work (it carried data
 * unmarked) before one that never carried any, and before one last marked.
 */
static void mrc_evset_spare_known_first(struct kunit *test)
{
	struct evset_fix *f = fix_new(test);
	struct mrc_evset *set = fix_init(f, NPOS, NEVS + 2, 0);

	/* spares 4..7: 5 was marked, 6 worked, 4 and 7 never carried data */
	set->evs[5].srtt_us = 3000;
	set->evs[5].ce_level = 2;
	set->evs[6].srtt_us = 3000;
	ev_fail(test, set, 1, true);
	KUNIT_EXPECT_EQ(test, set->act[1], 6);
	ev_fail(test, set, 2, true);
	KUNIT_EXPECT_EQ(test, set->act[2], 4);
}

static struct kunit_case mrc_evset_cases[] = {
	KUNIT_CASE(mrc_evset_init_home_serves),
	KUNIT_CASE(mrc_evset_find_large),
	KUNIT_CASE(mrc_evset_pick_rotates_evenly),
	KUNIT_CASE(mrc_evset_pick_avoid),
	KUNIT_CASE(mrc_evset_skip_passed_over_once),
	KUNIT_CASE(mrc_evset_fail_replaced_by_spare),
	KUNIT_CASE(mrc_evset_spares_run_out),
	KUNIT_CASE(mrc_evset_revive_home_takes_back),
	KUNIT_CASE(mrc_evset_revive_spare_fills),
	KUNIT_CASE(mrc_evset_deny_allow),
	KUNIT_CASE(mrc_evset_probe_backoff),
	KUNIT_CASE(mrc_evset_probe_jitter),
	KUNIT_CASE(mrc_evset_recycle_bad_spare),
	KUNIT_CASE(mrc_evset_probe_ns_earliest),
	KUNIT_CASE(mrc_evset_count_per_state),
	KUNIT_CASE(mrc_evset_single_policy),
	KUNIT_CASE(mrc_evset_changes_counted),
	KUNIT_CASE(mrc_evset_ctl_rotates),
	KUNIT_CASE(mrc_evset_rtt_ewma),
	KUNIT_CASE(mrc_evset_skip_spare_reused),
	KUNIT_CASE(mrc_evset_avoid_over_skip),
	KUNIT_CASE(mrc_evset_marks_weigh_down),
	KUNIT_CASE(mrc_evset_marks_move_load),
	KUNIT_CASE(mrc_evset_slow_by_delay),
	KUNIT_CASE(mrc_evset_slow_weighs_down),
	KUNIT_CASE(mrc_evset_retrans_known_fast),
	KUNIT_CASE(mrc_evset_spare_known_first),
	KUNIT_CASE(mrc_evset_reps_reuses_clean),
	KUNIT_CASE(mrc_evset_reps_drops_stale),
	KUNIT_CASE(mrc_evset_reps_freeze_cycles),
	{}
};

static struct kunit_suite mrc_evset_suite = {
	.name = "mrc_evset",
	.test_cases = mrc_evset_cases,
};

kunit_test_suite(mrc_evset_suite);
