// SPDX-License-Identifier: GPL-2.0
/* mrc paths: a connection's entropy values (EVs) in use.  Which EV the
 * next packet takes, what happens to an EV that loses a packet (BAD: out
 * of service at once, its packets retransmitted elsewhere, a spare in its
 * place), probing BAD EVs until they answer, recycling spares that never
 * do, and the administrator's DENIED.  The pure rules are in evset.h.
 */
#include <linux/random.h>
#include <linux/skbuff.h>
#include <net/sock.h>

#include "protocol.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

/**
 * mrc_ev_changed() - an EV changed state: trace it, tell the listeners
 * @sk: the connection, locked
 * @evi: the slot
 * @old: its state before
 * @cause: enum mrc_path_cause
 */
void mrc_ev_changed(struct sock *sk, u16 evi, u8 old, u8 cause)
{
	const struct mrc_ev *ev = &mrc_sk(sk)->evset.evs[evi];

	trace_mrc_ev_state(sk, ev->port, old, ev->state, cause);
	mrc_nl_path_event(sk, evi, old, cause);
}

static u64 mrc_probe_interval_ns(struct sock *sk)
{
	u64 interval;

	rcu_read_lock();
	interval = (u64)mrc_settings(mrc_sk_pernet(sk))->probe_interval_ms *
		   NSEC_PER_MSEC;
	rcu_read_unlock();
	return interval;
}

/**
 * mrc_ev_pick() - the EV for the next data packet
 * @sk: the connection, locked, its EV set allocated
 * @avoid: for a retransmission, the slot its last transmission took (not
 *         used if another is usable); MRC_EV_NONE for a first one
 *
 * A retransmission goes on an EV known to be fast if one serves a position
 * (mrc_evset_pick_known()), otherwise as data does.
 *
 * Return: a slot.  When no EV is usable a BAD one is used (counted): a
 * path may have come back before its probe says so.
 */
u16 mrc_ev_pick(struct sock *sk, u16 avoid)
{
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_evset *set = &msk->evset;
	u32 skipped = 0;
	u16 e;

	if (avoid != MRC_EV_NONE && msk->srtt_us) {
		/* a retransmission: through a path known to be fast */
		e = mrc_evset_pick_known(set, avoid,
					 mrc_ev_slow_lim(msk->srtt_us));
		if (e != MRC_EV_NONE)
			return e;
	}
	if (msk->ev_policy == MRC_EV_POLICY_REPS) {
		bool reused;

		e = mrc_evset_pick_reps(set, avoid, &skipped, mrc_now_ns(),
					&reused);
		if (reused)
			MRC_INC_STATS(mn, MRC_MIB_EV_REUSED);
	} else {
		e = mrc_evset_pick(set, avoid, &skipped);
	}
	if (skipped)
		MRC_ADD_STATS(mn, MRC_MIB_EV_GOOD_SKIPPED, skipped);
	if (e == MRC_EV_NONE) {
		MRC_INC_STATS(mn, MRC_MIB_EV_NONE_USABLE);
		e = mrc_evset_pick_any(set);
	}
	return e;
}

/**
 * mrc_ev_fail() - a packet sent on an EV was lost: the EV goes BAD
 * @sk: the connection, locked
 * @evi: the slot
 * @why: MRC_MIB_EV_BAD_LOSS, MRC_MIB_EV_BAD_RTO or MRC_MIB_EV_BAD_ACK
 * @why_pkt: the loss rule to count for the packets it still carries
 *
 * What the EV still carries is judged lost at once and goes out again on
 * other EVs; a spare takes its place; probes start after an interval.
 *
 * Return: true when the EV went BAD now (its packets left the connection's
 * list of packets in flight), false when it was not usable (BAD already,
 * or DENIED): nothing changed.
 */
bool mrc_ev_fail(struct sock *sk, u16 evi, enum mrc_mib_field why,
		 enum mrc_mib_field why_pkt)
{
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_ev *ev = &msk->evset.evs[evi];
	struct mrc_skb_cb *cb, *tmp;
	u64 now = mrc_now_ns();
	u8 old = ev->state;
	bool replaced;

	if (!mrc_evset_fail(&msk->evset, evi, now, mrc_probe_interval_ns(sk),
			    &replaced))
		return false;
	MRC_INC_STATS(mn, why);
	/* reps: no exploring until the failed EVs' probes have had a go */
	if (msk->ev_policy == MRC_EV_POLICY_REPS)
		mrc_evset_reps_freeze(&msk->evset,
				      now + mrc_probe_interval_ns(sk));
	mrc_ev_changed(sk, evi, old, why == MRC_MIB_EV_BAD_RTO ?
		       MRC_PATH_CAUSE_RTO : why == MRC_MIB_EV_BAD_ACK ?
		       MRC_PATH_CAUSE_ACK : MRC_PATH_CAUSE_LOSS);
	if (replaced)
		MRC_INC_STATS(mn, MRC_MIB_EV_REPLACED);
	list_for_each_entry_safe(cb, tmp, &ev->outstanding, ev_node)
		mrc_mark_lost(sk, mrc_cb_skb(cb), why_pkt);
	if (!msk->probe_ns || ev->probe_ns < msk->probe_ns)
		msk->probe_ns = ev->probe_ns;
	return true;
}

/**
 * mrc_ev_weigh() - a packet sent on an EV shows that its path queues
 * @sk: the connection, locked
 * @evi: the slot
 * @why: MRC_MIB_EV_SKIP_CE (a CE mark) or MRC_MIB_EV_SKIP_DELAY (slow)
 * @level: the level its delay calls for, 0 for a mark
 *
 * The EV is weighed down (mrc_evset_weigh()); a GOOD one goes SKIP.
 */
void mrc_ev_weigh(struct sock *sk, u16 evi, enum mrc_mib_field why, u8 level)
{
	if (!mrc_evset_weigh(&mrc_sk(sk)->evset, evi, level))
		return;
	MRC_INC_STATS(mrc_sk_pernet(sk), why);
	mrc_ev_changed(sk, evi, MRC_EV_GOOD, why == MRC_MIB_EV_SKIP_CE ?
		       MRC_PATH_CAUSE_CE : MRC_PATH_CAUSE_DELAY);
}

/* A probe was answered: often a repair, and what failed together comes
 * back together.  Every other BAD EV is probed now, not when its backed
 * off turn comes, so the connection is back on a repaired path within
 * about a round trip of its first answer; at most once per backoff cap
 * (interval * 2^MRC_EV_PROBE_BACKOFF), so that EVs coming back one by one
 * elsewhere do not make a dead path's EVs probed more than twice as often
 * as their backoff allows.
 */
static void mrc_ev_sweep(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_evset *set = &msk->evset;
	u64 now = mrc_now_ns();
	u64 cap = mrc_probe_interval_ns(sk) << MRC_EV_PROBE_BACKOFF;
	bool any = false;
	u16 e;

	if (msk->sweep_ns && now < msk->sweep_ns + cap)
		return;
	for (e = 0; e < set->nr_evs; e++) {
		struct mrc_ev *ev = &set->evs[e];

		if (ev->state == MRC_EV_BAD && ev->probe_ns > now) {
			ev->probe_ns = now;
			any = true;
		}
	}
	if (!any)
		return;
	msk->sweep_ns = now;
	msk->probe_ns = now;
	MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_EV_SWEEP);
}

/**
 * mrc_ev_revive() - a BAD or DENIED EV returns to service
 * @sk: the connection, locked
 * @evi: the slot
 * @why: MRC_MIB_EV_GOOD_PROBE or MRC_MIB_EV_ALLOWED
 */
void mrc_ev_revive(struct sock *sk, u16 evi, enum mrc_mib_field why)
{
	struct mrc_sock *msk = mrc_sk(sk);
	u8 old = msk->evset.evs[evi].state;

	if (!mrc_evset_revive(&msk->evset, evi))
		return;
	/* reports of ACKs sent before now do not condemn it again */
	msk->evset.evs[evi].ack_from = msk->ack_seq + 1;
	MRC_INC_STATS(mrc_sk_pernet(sk), why);
	mrc_ev_changed(sk, evi, old, why == MRC_MIB_EV_ALLOWED ?
		       MRC_PATH_CAUSE_ALLOWED : MRC_PATH_CAUSE_PROBE);
	if (why == MRC_MIB_EV_GOOD_PROBE)
		mrc_ev_sweep(sk);
}

/**
 * mrc_ev_deny() - the administrator takes an EV out of service
 * @sk: the connection, locked
 * @evi: the slot
 *
 * Packets already sent on it are left to arrive; nothing new is sent on
 * it, and it is not probed, until it is allowed again.
 */
void mrc_ev_deny(struct sock *sk, u16 evi)
{
	struct mrc_net *mn = mrc_sk_pernet(sk);
	u8 old = mrc_sk(sk)->evset.evs[evi].state;
	bool replaced;

	if (!mrc_evset_deny(&mrc_sk(sk)->evset, evi, &replaced))
		return;
	MRC_INC_STATS(mn, MRC_MIB_EV_DENIED);
	mrc_ev_changed(sk, evi, old, MRC_PATH_CAUSE_DENIED);
	if (replaced)
		MRC_INC_STATS(mn, MRC_MIB_EV_REPLACED);
}

/**
 * mrc_ev_probe_due() - probe the BAD EVs whose turn it is
 * @sk: the connection, locked, established
 * @now: current time, ns
 *
 * A spare that has not answered its probes for a while is given a new
 * source port instead: another path, probably.
 */
void mrc_ev_probe_due(struct sock *sk, u64 now)
{
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_evset *set = &msk->evset;
	u64 interval = mrc_probe_interval_ns(sk);
	u16 e, port;

	for (e = 0; e < set->nr_evs; e++) {
		struct mrc_ev *ev = &set->evs[e];

		if (ev->state != MRC_EV_BAD || ev->probe_ns > now)
			continue;
		if (mrc_evset_recyclable(set, e)) {
			port = mrc_conn_new_port(sk);
			if (port) {
				mrc_evset_recycle(set, e, port);
				ev->ack_from = msk->ack_seq + 1;
				MRC_INC_STATS(mn, MRC_MIB_EV_RECYCLED);
				mrc_ev_changed(sk, e, MRC_EV_BAD,
					       MRC_PATH_CAUSE_RECYCLED);
				continue;
			}
		}
		mrc_ev_probed(ev, now, interval, get_random_u32());
		MRC_INC_STATS(mn, MRC_MIB_EV_PROBE);
		mrc_send_ev_probe(sk, e);
	}
	msk->probe_ns = mrc_evset_probe_ns(set);
}

/**
 * mrc_ev_ack_lost() - the peer reports one of our ACKs lost
 * @sk: the connection, locked
 * @seq: the ACK's sequence number
 * @port: the EV it was sent on
 *
 * The peer found the ACK missing while later ones arrived (mrc.rst,
 * "Reverse paths"): the EV's path towards the peer loses, and it goes BAD
 * as for a lost data packet: ACKs, probe answers and data avoid it until
 * a probe on it is answered.  A report of an ACK sent before the EV last
 * came back to service or before the last reported one (a report is
 * repeated until its carrier is acknowledged), or of a port no EV has
 * any more, is stale.
 */
void mrc_ev_ack_lost(struct sock *sk, u16 seq, u16 port)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_evset *set = &msk->evset;
	struct mrc_ev *ev;
	u16 evi;

	evi = mrc_evset_find(set, port);
	if (evi == MRC_EV_NONE)
		return;
	ev = &set->evs[evi];
	/* keep the mark within reach of 16-bit comparisons */
	if ((u16)(msk->ack_seq - ev->ack_from) >= 0x4000)
		ev->ack_from = msk->ack_seq - 0x4000;
	if ((s16)(seq - ev->ack_from) < 0 || (s16)(msk->ack_seq - seq) < 0)
		return;
	/* a report repeated (its first carrier arrived, but not its ACK),
	 * and those of ACKs that left before, are the same failure
	 */
	ev->ack_from = seq + 1;
	ev->acks_lost++;
	mrc_ev_fail(sk, evi, MRC_MIB_EV_BAD_ACK, MRC_MIB_LOST_EV);
}

/**
 * mrc_ev_answered() - an ACK shows a packet sent on an EV arrived
 * @sk: the connection, locked
 * @evi: the slot
 * @sent_ns: when that packet left
 *
 * A BAD EV that delivered a packet sent after it went BAD works again.
 */
void mrc_ev_answered(struct sock *sk, u16 evi, u64 sent_ns)
{
	struct mrc_ev *ev = &mrc_sk(sk)->evset.evs[evi];

	if (ev->state == MRC_EV_BAD && sent_ns > ev->bad_ns)
		mrc_ev_revive(sk, evi, MRC_MIB_EV_GOOD_PROBE);
}
