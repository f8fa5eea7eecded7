// SPDX-License-Identifier: GPL-2.0
/* mrc acknowledgments on the sender: the SACK scoreboard, loss detection
 * (per entropy value, by time, by timeout), RTT and RTO, the congestion
 * window, and the connection's one timer.
 */
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/sock.h>

#include "protocol.h"
#include "psn.h"
#include "trace.h"

/* The DATA packet @psn, which carried a report of a lost ACK, was
 * acknowledged (or is gone): its reports are delivered.
 */
static void mrc_ack_report_done(struct mrc_sock *msk, u32 psn)
{
	unsigned int i, n = 0;

	for (i = 0; i < msk->ack_lost_n; i++) {
		if (msk->ack_lost[i].carried && msk->ack_lost[i].psn == psn)
			continue;
		msk->ack_lost[n++] = msk->ack_lost[i];
	}
	msk->ack_lost_n = n;
}

/**
 * mrc_rtx_set_state() - move a packet of the retransmission ring to a state
 * @sk: the connection, locked
 * @skb: the packet
 * @state: MRC_CB_IN_FLIGHT (on the EV in its cb->evi), MRC_CB_LOST,
 *         MRC_CB_SACKED, or 0 (it leaves the ring)
 *
 * The one place that changes in_flight and lost_cnt: each counts the
 * packets whose state bit is set, and a packet has at most one, so no
 * sequence of transitions can count a packet twice or uncount one that
 * was not counted.  A packet in flight is on its EV's outstanding list
 * and at the tail of the connection's @tsorted (it was just sent, and
 * mrc_now_ns() does not go back); it is taken off both when it leaves
 * that state, and put on the list of its new EV, and at the tail again,
 * when it is sent again while in flight.
 */
void mrc_rtx_set_state(struct sock *sk, struct sk_buff *skb, u8 state)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_skb_cb *cb = mrc_cb(skb);
	u8 old = cb->flags & MRC_CB_STATE;

	MRC_DEBUG_WARN_ON_ONCE(hweight8(old) > 1 || hweight8(state) > 1 ||
			       state & ~MRC_CB_STATE);
	if (old == MRC_CB_IN_FLIGHT) {
		MRC_DEBUG_WARN_ON_ONCE(!msk->in_flight);
		list_del(&cb->ev_node);
		skb_list_del_init(skb);
		msk->in_flight--;
	} else if (old == MRC_CB_LOST) {
		MRC_DEBUG_WARN_ON_ONCE(!msk->lost_cnt);
		msk->lost_cnt--;
	}
	cb->flags = (cb->flags & ~MRC_CB_STATE) | state;
	/* to go again as lost: an earlier copy's echo is then spurious */
	if (state == MRC_CB_LOST)
		cb->flags &= ~MRC_CB_RESCUE;
	/* the peer has it, or it is gone: so is the report it carried */
	if ((cb->flags & MRC_CB_REPORT) && !(state & ~MRC_CB_SACKED)) {
		cb->flags &= ~MRC_CB_REPORT;
		mrc_ack_report_done(msk, cb->psn);
	}
	if (state == MRC_CB_IN_FLIGHT) {
		list_add_tail(&cb->ev_node,
			      &msk->evset.evs[cb->evi].outstanding);
		MRC_DEBUG_WARN_ON_ONCE(!list_empty(&msk->tsorted) &&
				       mrc_tsorted_last(msk)->sent_ns >
				       cb->sent_ns);
		list_add_tail(&skb->list, &msk->tsorted);
		msk->in_flight++;
	} else if (state == MRC_CB_LOST) {
		if (!msk->lost_cnt++ || mrc_psn_before(cb->psn, msk->lost_hint))
			msk->lost_hint = cb->psn;
	}
}

/**
 * mrc_on_transmit() - account a (re)transmission of a queued packet
 * @sk: the connection, locked
 * @skb: the packet in the retransmission ring
 * @evi: index of the EV it leaves on
 */
void mrc_on_transmit(struct sock *sk, struct sk_buff *skb, u16 evi)
{
	struct mrc_sock *msk = mrc_sk(sk);

	mrc_cb(skb)->evi = evi;
	mrc_rtx_set_state(sk, skb, MRC_CB_IN_FLIGHT);
	msk->evset.evs[evi].sent++;
}

/**
 * mrc_wmem_free() - free a packet of the send queue or the ring
 * @sk: the connection, locked or unreachable
 * @skb: the packet; the FIN marker was never charged to the pool
 */
void mrc_wmem_free(struct sock *sk, struct sk_buff *skb)
{
	sk_wmem_queued_add(sk, -skb->truesize);
	if (!(mrc_cb(skb)->flags & MRC_CB_FIN))
		sk_mem_uncharge(sk, skb->truesize);
	__kfree_skb(skb);
}

/* Free a packet the peer has (cumulatively) acknowledged. */
static void mrc_rtx_free(struct sock *sk, struct sk_buff *skb)
{
	mrc_rtx_set_state(sk, skb, 0);
	mrc_wmem_free(sk, skb);
}

/**
 * mrc_rtx_purge() - free every queued packet, sent or not
 * @sk: the connection, locked or unreachable
 */
void mrc_rtx_purge(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct sk_buff *skb;
	u32 psn;

	if (msk->rtx.slot) {
		for (psn = msk->snd_una; psn != msk->snd_nxt; psn++) {
			skb = *mrc_ring_at(&msk->rtx, psn);
			*mrc_ring_at(&msk->rtx, psn) = NULL;
			if (skb)
				mrc_rtx_free(sk, skb);
		}
	}
	/* the ring held every packet the counters count */
	MRC_DEBUG_WARN_ON_ONCE(msk->in_flight || msk->lost_cnt);
	msk->snd_una = msk->snd_nxt;
	msk->in_flight = 0;
	msk->lost_cnt = 0;
	msk->bytes_out = 0;
	while ((skb = __skb_dequeue(&sk->sk_write_queue)))
		mrc_wmem_free(sk, skb);
	while ((skb = __skb_dequeue(&msk->rsp_queue)))
		mrc_wmem_free(sk, skb);
}

/**
 * mrc_rtt_sample() - feed one RTT measurement (RFC 6298)
 * @sk: the connection, locked
 * @rtt_us: the sample
 */
void mrc_rtt_sample(struct sock *sk, u32 rtt_us)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_rtt r = { msk->srtt_us, msk->rttvar_us };
	const struct mrc_settings *s;
	u32 rto;

	/* samples over 60 s are clock nonsense or a forged echo; the bounds
	 * of one version, so the lower is never above the upper
	 */
	rcu_read_lock();
	s = mrc_settings(mrc_sk_pernet(sk));
	rto = mrc_rtt_update(&r, rtt_us, s->rto_min_us, s->rto_max_us);
	/* the peer's ACKs may come later than the RTT by its hold */
	if (rto)
		rto = min(rto + msk->peer_wait_us, s->rto_max_us);
	rcu_read_unlock();
	if (!rto)
		return;
	msk->srtt_us = r.srtt_us;
	msk->rttvar_us = r.rttvar_us;
	msk->rto_us = rto;
}

static void mrc_trace_cwnd(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	trace_mrc_cwnd(sk, msk->cc.cwnd, msk->cc.ssthresh, msk->in_flight);
}

/**
 * mrc_mark_lost() - judge a packet lost: it goes out again on another EV
 * @sk: the connection, locked
 * @skb: the packet in the retransmission ring
 * @why: the loss rule that decided (MRC_MIB_LOST_*)
 *
 * The EV it was sent on is left to the caller.
 */
void mrc_mark_lost(struct sock *sk, struct sk_buff *skb,
		   enum mrc_mib_field why)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_skb_cb *cb = mrc_cb(skb);

	if (!(cb->flags & MRC_CB_IN_FLIGHT))
		return;
	mrc_rtx_set_state(sk, skb, MRC_CB_LOST);
	msk->stats.lost++;
	msk->evset.evs[cb->evi].lost++;
	MRC_INC_STATS(mrc_sk_pernet(sk), why);
	trace_mrc_loss(sk, cb->psn, msk->evset.evs[cb->evi].port, why);
	if (mrc_cc_on_loss(&msk->cc, msk->snd_nxt, cb->psn))
		mrc_trace_cwnd(sk);
}

/**
 * mrc_xmit_dropped() - our own stack dropped a transmission of a packet
 * @sk: the connection, locked
 * @skb: the packet in the retransmission ring, just put in flight
 * @count: whether the drop counts against its EV: the first packet of a
 *         UDP GSO datagram does, the others, dropped with it, do not
 *
 * A dropped packet never left (a full qdisc, a firewall rule): it is lost
 * at once and goes again with the next retransmissions.  The window is
 * cut as for a loss, once a round, as TCP's is when its qdisc refuses a
 * packet: the queue that overflowed is ours.  Its EV is not blamed: a full
 * queue drops what comes, whatever its EV.  But a rule that drops one
 * EV's packets (a filter on its port) drops every one: an EV on which
 * MRC_EV_XMIT_DROPS first transmissions in a row were dropped, none
 * leaving between (mrc_xmit_data() counts), goes BAD as if the path had
 * lost them, and its probes find out when the rule goes.  A drop counts
 * only when some datagram left since the EV's last one: a full queue
 * refuses the runs of one flowlet one after the other, nothing leaving
 * between, and those are one drop, not three.
 */
void mrc_xmit_dropped(struct sock *sk, struct sk_buff *skb, bool count)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_skb_cb *cb = mrc_cb(skb);
	struct mrc_ev *ev = &msk->evset.evs[cb->evi];

	mrc_rtx_set_state(sk, skb, MRC_CB_LOST);
	if (mrc_cc_on_loss(&msk->cc, msk->snd_nxt, cb->psn))
		mrc_trace_cwnd(sk);
	/* retransmissions go on the few EVs known to be fast, and may meet
	 * the same full queue again: only the data rotation's first
	 * transmissions count
	 */
	if (!count || cb->tx_count != 1 ||
	    (ev->xmit_drops && ev->drop_mark == msk->xmit_left))
		return;
	ev->drop_mark = msk->xmit_left;
	if (++ev->xmit_drops >= MRC_EV_XMIT_DROPS) {
		ev->xmit_drops = 0;
		mrc_ev_fail(sk, cb->evi, MRC_MIB_EV_BAD_LOSS, MRC_MIB_LOST_EV);
	}
}

/* One packet an ACK echoes: the one in its header (flags MRC_F_CE,
 * MRC_F_PROBE, MRC_F_DROP of the common header) or one of its extra
 * echoes (the same flags, from MRC_ECHO_F_*).
 */
struct mrc_echo {
	u32	psn;
	u32	tsval;
	u16	ev;
	u16	flags;
	u32	wait_us;
};

/* A retransmitted packet leaves the ring: remember its last transmission
 * for a while, for an echo of an earlier one that comes after.
 */
static void mrc_late_note(struct mrc_sock *msk, const struct mrc_skb_cb *cb)
{
	struct mrc_late *l = &msk->late[cb->psn % MRC_LATE_PKTS];

	l->psn = cb->psn;
	l->tsval = (u32)div_u64(cb->sent_ns, NSEC_PER_USEC);
	l->evi = cb->prev_evi;
	l->rescue = cb->flags & MRC_CB_RESCUE;
}

/* Does the ACK echo a data packet that came on EV @evi (the EV of the
 * transmission before a packet's last)?  ACKs that echo no data (window
 * updates, answers to probes and to the handshake) name the cumulative
 * PSN with a timestamp that is not that of a transmission of it.
 */
static bool mrc_late_echo(const struct mrc_sock *msk,
			  const struct mrc_echo *e, u16 evi)
{
	return evi < msk->evset.nr_evs && !(e->flags & MRC_F_PROBE) &&
	       e->ev == msk->evset.evs[evi].port;
}

/* A late transmission (overtaken by a retransmission) of a packet sent on
 * EV @evi took @rtt_us: a delay sample of the EV, not of the connection
 * (its RTT is that of the paths that deliver in time).  A slow EV is
 * weighed down as by mrc_ev_delay(); a fast one gains nothing, its packet
 * having been late after all.
 */
static void mrc_ev_late(struct sock *sk, u16 evi, u32 rtt_us)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_ev *ev = &msk->evset.evs[evi];

	mrc_ev_rtt_sample(ev, rtt_us);
	if (mrc_ev_slow(ev, rtt_us, msk->srtt_us))
		mrc_ev_weigh(sk, evi, MRC_MIB_EV_SKIP_DELAY,
			     mrc_ev_slow_level(rtt_us, msk->srtt_us));
}

/* An echo named an earlier transmission of packet @psn than its last, at
 * @last_us: that one arrived, so the packet was late (a slower path), not
 * lost.  The time rule waits longer from now on; the EV it was sent on
 * (@evi), if it went BAD for it, works after all, and the time the late
 * one took (it left at @tsval) is a sample of that EV's delay: a path
 * whose packets are always overtaken and sent again would otherwise never
 * be weighed down for its delay (mrc_ev_delay()).  A window cut its loss
 * caused is undone (TCP's Eifel detection and response, RFC 3522 and
 * 4015, made from mrc's echoed timestamps).
 */
static void mrc_spurious(struct sock *sk, u32 psn, u16 evi, u32 last_us,
			 u32 tsval, u64 now)
{
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_ev *ev;

	MRC_INC_STATS(mn, MRC_MIB_SPURIOUS_RETRANS);
	if (msk->reo_mult < MRC_LOSS_REO_MULT_MAX)
		msk->reo_mult++;
	msk->reo_ns = now;
	if (evi < msk->evset.nr_evs) {
		ev = &msk->evset.evs[evi];
		/* BAD since the packet went again, not from a later failure */
		if (ev->state == MRC_EV_BAD &&
		    (s32)((u32)div_u64(ev->bad_ns, NSEC_PER_USEC) - last_us) <= 0)
			mrc_ev_revive(sk, evi, MRC_MIB_EV_GOOD_LATE);
		mrc_ev_late(sk, evi, mrc_ns_to_us32(now) - tsval);
	}
	if (mrc_cc_undo(&msk->cc, psn)) {
		MRC_INC_STATS(mn, MRC_MIB_CC_UNDO);
		mrc_trace_cwnd(sk);
	}
}

/* An earlier transmission of packet @psn than its last (at @last_us) on
 * EV @evi arrived: late, or, for a packet rescued from a slow path
 * (mrc_rescue_head()), the copy that was expected to come last.
 */
static void mrc_late_arrived(struct sock *sk, u32 psn, u16 evi, bool rescue,
			     u32 last_us, u32 tsval, u64 now)
{
	if (rescue)
		mrc_ev_late(sk, evi, mrc_ns_to_us32(now) - tsval);
	else
		mrc_spurious(sk, psn, evi, last_us, tsval, now);
}

/* The peer has @skb (by SACK or echo) but not cumulatively yet. */
static void mrc_mark_sacked(struct sock *sk, struct sk_buff *skb, u32 cum)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_skb_cb *cb = mrc_cb(skb);
	struct mrc_ev *ev = &msk->evset.evs[cb->evi];
	struct mrc_skb_cb *ecb, *tmp;
	bool lost = false;

	if (cb->flags & MRC_CB_SACKED)
		return;
	/* Per-EV rule: one EV is one path, and a path delivers in order.
	 * What left earlier on this EV and is still missing (visible as
	 * missing in this ACK: within the SACK range) is lost, and the EV
	 * with it.
	 */
	if (cb->flags & MRC_CB_IN_FLIGHT) {
		list_for_each_entry_safe(ecb, tmp, &ev->outstanding, ev_node) {
			if (ecb == cb)
				break;
			if (mrc_loss_ev_visible(ecb->psn, cum)) {
				mrc_mark_lost(sk, mrc_cb_skb(ecb),
					      MRC_MIB_LOST_EV);
				lost = true;
			}
		}
		ev->acked++;
		ev->suspect = 0;
	}
	/* if it was judged lost, it arrived after all: no retransmission */
	mrc_rtx_set_state(sk, skb, MRC_CB_SACKED);
	if (cb->sent_ns > msk->rack_sent_ns)
		msk->rack_sent_ns = cb->sent_ns;
	if (lost)
		mrc_ev_fail(sk, cb->evi, MRC_MIB_EV_BAD_LOSS, MRC_MIB_LOST_EV);
	else
		mrc_ev_answered(sk, cb->evi, cb->sent_ns);
}

/* Time rule (RACK-like): a packet sent before one that has been
 * acknowledged, and outstanding for longer than an RTT (the connection's,
 * or its EV's if that is longer) plus a reordering allowance (a quarter
 * of it, or twice the RTT variation if that is more: hosts whose timing
 * jitters reorder more), is lost and retransmitted.
 * Its EV goes BAD only when the ACK (@cum and its SACK range) shows the
 * packet missing: beyond that range the ACK that would have said it
 * arrived may itself be what was lost, on a reverse path that failed.
 */
static void mrc_rack_detect(struct sock *sk, u64 now, u32 cum)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct sk_buff *skb;
	u32 srtt;

	if (!msk->rack_sent_ns || !msk->srtt_us)
		return;
	/* the allowance shrinks back after a while without spurious
	 * retransmissions
	 */
	if (msk->reo_mult && now - msk->reo_ns >
	    (u64)MRC_LOSS_REO_DECAY_RTTS * msk->srtt_us * NSEC_PER_USEC) {
		msk->reo_mult--;
		msk->reo_ns = now;
	}
	/* Only packets sent before the latest one acknowledged can be late
	 * by this rule: the oldest transmissions first, up to it.
	 */
	skb = mrc_tsorted_first(msk);
	while (skb && mrc_cb(skb)->sent_ns < msk->rack_sent_ns) {
		struct mrc_skb_cb *cb = mrc_cb(skb);
		struct sk_buff *next = list_is_last(&skb->list, &msk->tsorted) ?
				       NULL : list_next_entry(skb, list);

		/* a path with a queue of its own is slower than the others:
		 * its packets get its own RTT before they count as lost
		 */
		srtt = max(msk->srtt_us, msk->evset.evs[cb->evi].srtt_us);
		if (mrc_loss_time_expired(now, cb->sent_ns, msk->rack_sent_ns,
					  srtt, msk->rttvar_us,
					  msk->reo_mult)) {
			mrc_mark_lost(sk, skb, MRC_MIB_LOST_TIME);
			if (mrc_loss_ev_visible(cb->psn, cum) &&
			    mrc_ev_fail(sk, cb->evi, MRC_MIB_EV_BAD_LOSS,
					MRC_MIB_LOST_TIME))
				/* its EV's packets left the list: @next too,
				 * perhaps
				 */
				next = mrc_tsorted_first(msk);
		}
		skb = next;
	}
}

/* The ACK names the EV of the packet it echoes: a CE mark came back on
 * it (it is weighed down, mrc_evset_mark(); only for data we have
 * outstanding, @data), or it answers a probe (a BAD EV works again if the
 * probe left after it went BAD).
 */
static void mrc_rcv_ack_echo_ev(struct sock *sk, const struct mrc_echo *e,
				bool data)
{
	struct mrc_sock *msk = mrc_sk(sk);
	u16 flags = e->flags;
	u16 evi = mrc_evset_find(&msk->evset, e->ev);
	struct mrc_ev *ev;

	if (!data)
		flags &= ~MRC_F_CE;
	if (flags & MRC_F_CE)
		msk->stats.ce++;
	if (evi == MRC_EV_NONE)
		return;
	ev = &msk->evset.evs[evi];
	if (flags & MRC_F_CE) {
		ev->ce++;
		mrc_ev_weigh(sk, evi, MRC_MIB_EV_SKIP_CE, 0);
	}
	if ((flags & MRC_F_PROBE) && ev->state == MRC_EV_BAD &&
	    (s32)(e->tsval - (u32)div_u64(ev->bad_ns, NSEC_PER_USEC)) > 0)
		mrc_ev_revive(sk, evi, MRC_MIB_EV_GOOD_PROBE);
}

/* An RTT sample @rtt_us of a packet sent on EV @evi, which came back CE
 * marked if @ce: a slow EV is weighed down as by a mark (mrc_ev_slow());
 * otherwise the marks that weigh it down wear off, one per unmarked echo,
 * and under policy reps the EV has earned another packet.
 */
static void mrc_ev_delay(struct sock *sk, u16 evi, u32 rtt_us, bool ce)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_ev *ev = &msk->evset.evs[evi];

	mrc_ev_rtt_sample(ev, rtt_us);
	if (mrc_ev_slow(ev, rtt_us, msk->srtt_us)) {
		mrc_ev_weigh(sk, evi, MRC_MIB_EV_SKIP_DELAY,
			     mrc_ev_slow_level(rtt_us, msk->srtt_us));
	} else if (!ce) {
		mrc_evset_unmarked(&msk->evset, evi);
		if (msk->ev_policy == MRC_EV_POLICY_REPS)
			mrc_evset_reps_clean(&msk->evset, evi);
	}
}

/* The receiver dropped the echoed transmission of @skb (no memory, its
 * buffer full): the packet goes again, and neither its EV (which
 * delivered it) nor the window pays for it.
 */
static void mrc_peer_dropped(struct sock *sk, struct sk_buff *skb)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_skb_cb *cb = mrc_cb(skb);

	if (!(cb->flags & MRC_CB_IN_FLIGHT))
		return;
	msk->evset.evs[cb->evi].suspect = 0;
	mrc_ev_answered(sk, cb->evi, cb->sent_ns);
	mrc_rtx_set_state(sk, skb, MRC_CB_LOST);
	msk->stats.lost++;
	MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_LOST_DROP);
	trace_mrc_loss(sk, cb->psn, msk->evset.evs[cb->evi].port,
		       MRC_MIB_LOST_DROP);
}

/* The time from echo @e's transmission to its ACK (at @now), less the
 * time the peer held the ACK back, into *@rtt_us; false when the wait is
 * as long as all of it (a broken or forged echo).
 */
static bool mrc_echo_rtt(const struct mrc_echo *e, u64 now, u32 *rtt_us)
{
	u32 rtt = mrc_ns_to_us32(now) - e->tsval;

	if (e->wait_us && e->wait_us >= rtt)
		return false;
	*rtt_us = rtt - e->wait_us;
	return true;
}

/* When echo @e's ACK would have come (it came at @now) had the peer not
 * held it back.
 */
static u64 mrc_echo_unheld(const struct mrc_echo *e, u64 now)
{
	u32 rtt;

	if (!e->wait_us || !mrc_echo_rtt(e, now, &rtt))
		return now;
	return now - (u64)e->wait_us * NSEC_PER_USEC;
}

/* The RTT sample of echo @e of a packet sent on EV slot @evi, without
 * the time the peer held its ACK back: into *@rtt_us, and the
 * estimators.  The longest wait the peer reported is added to the RTO
 * (as QUIC adds its max_ack_delay), since its ACKs come that much later
 * than the RTT says.  An echo whose wait is not shorter than its RTT
 * gives no sample.
 */
static void mrc_rcv_echo_rtt(struct sock *sk, const struct mrc_echo *e,
			     u16 evi, u32 *rtt_us, u64 now)
{
	struct mrc_sock *msk = mrc_sk(sk);

	if (!mrc_echo_rtt(e, now, rtt_us))
		return;
	if (e->wait_us > msk->peer_wait_us)
		msk->peer_wait_us = e->wait_us;
	mrc_rtt_sample(sk, *rtt_us);
	mrc_ev_delay(sk, evi, *rtt_us, e->flags & MRC_F_CE);
}

/* What one echo says before the cumulative part is applied: an RTT
 * sample when it names a packet's last transmission (returned in
 * *@rtt_us), a spurious retransmission when it names an earlier one, a
 * packet the receiver dropped; then its EV's marks and probe answer.
 */
static void mrc_rcv_echo(struct sock *sk, const struct mrc_echo *e,
			 u32 *rtt_us, u64 now)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct sk_buff *rskb = NULL;
	bool in_window;
	u32 sent_us;

	in_window = mrc_psn_in_window(e->psn, msk->snd_una,
				      msk->snd_nxt - msk->snd_una);
	if (in_window)
		rskb = *mrc_ring_at(&msk->rtx, e->psn);
	if (rskb) {
		sent_us = (u32)div_u64(mrc_cb(rskb)->sent_ns, NSEC_PER_USEC);
		if ((e->flags & MRC_F_DROP) && sent_us == e->tsval) {
			mrc_peer_dropped(sk, rskb);
			return;
		}
		if (e->flags & MRC_F_DROP)
			return;
		if (!(mrc_cb(rskb)->flags & MRC_CB_SACKED) &&
		    sent_us == e->tsval) {
			mrc_rcv_echo_rtt(sk, e, mrc_cb(rskb)->evi, rtt_us, now);
		} else if (mrc_cb(rskb)->tx_count > 1 &&
			   mrc_late_echo(msk, e, mrc_cb(rskb)->prev_evi) &&
			   (s32)(e->tsval - sent_us) < 0) {
			/* an earlier transmission arrived, before or after
			 * the last one: the packet was late, not lost (or,
			 * sent again while a slow path held it, as expected)
			 */
			mrc_late_arrived(sk, e->psn, mrc_cb(rskb)->prev_evi,
					 mrc_cb(rskb)->flags & MRC_CB_RESCUE,
					 sent_us, e->tsval,
					 mrc_echo_unheld(e, now));
			mrc_cb(rskb)->prev_evi = MRC_EV_NONE;	/* once */
		}
	} else if (mrc_psn_before(e->psn, msk->snd_una) &&
		   !(e->flags & MRC_F_DROP)) {
		struct mrc_late *l = &msk->late[e->psn % MRC_LATE_PKTS];

		/* the same, for a packet acknowledged (by its last
		 * transmission) before the earlier one arrived
		 */
		if (l->psn == e->psn && mrc_late_echo(msk, e, l->evi) &&
		    (s32)(e->tsval - l->tsval) < 0) {
			mrc_late_arrived(sk, e->psn, l->evi, l->rescue,
					 l->tsval, e->tsval,
					 mrc_echo_unheld(e, now));
			l->evi = MRC_EV_NONE;
		}
	}
	if ((e->flags & (MRC_F_CE | MRC_F_PROBE)) && !(e->flags & MRC_F_DROP))
		mrc_rcv_ack_echo_ev(sk, e, in_window);
}

/* After the SACK words: the packet an echo names has arrived. */
static u32 mrc_rcv_echo_sack(struct sock *sk, const struct mrc_echo *e,
			     u32 cum)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct sk_buff *rskb;

	if ((e->flags & MRC_F_DROP) ||
	    !mrc_psn_in_window(e->psn, msk->snd_una,
			       msk->snd_nxt - msk->snd_una))
		return 0;
	rskb = *mrc_ring_at(&msk->rtx, e->psn);
	if (!rskb || (mrc_cb(rskb)->flags & MRC_CB_SACKED))
		return 0;
	mrc_mark_sacked(sk, rskb, cum);
	return 1;
}

/* The extra echoes of an ACK, after its header and SACK words. */
static void mrc_ack_echo_get(const struct mrc_ack_hdr *a, unsigned int i,
			     struct mrc_echo *e)
{
	const struct mrc_ack_echo *x;

	x = (const void *)((const __be32 *)(a + 1) + a->sack_words);
	x += i;
	e->psn = ntohl(x->psn);
	e->tsval = ntohl(x->tsval);
	e->ev = ntohs(x->ev);
	e->flags = (ntohs(x->flags) & MRC_ECHO_F_CE ? MRC_F_CE : 0) |
		   (ntohs(x->flags) & MRC_ECHO_F_DROP ? MRC_F_DROP : 0);
	e->wait_us = ntohl(x->wait_us);
}

/* One of the peer's ACKs is lost: tell the peer in our next DATA. */
static void mrc_ack_lost_queue(struct sock *sk, u16 seq, u16 port)
{
	struct mrc_sock *msk = mrc_sk(sk);

	MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_ACK_LOST);
	if (msk->ack_lost_n == MRC_ACK_LOST_Q) {
		/* the oldest report goes */
		msk->ack_lost_n--;
		memmove(&msk->ack_lost[0], &msk->ack_lost[1],
			msk->ack_lost_n * sizeof(msk->ack_lost[0]));
	}
	msk->ack_lost[msk->ack_lost_n] = (struct mrc_ack_report){
		.seq = seq, .port = port,
	};
	msk->ack_lost_n++;
}

/* One of the peer's ACKs arrived: note it, and queue the reports of those
 * judged lost (mrc_ack_rx_add()).
 */
static void mrc_ack_log(struct sock *sk, u16 seq, u16 prev_port)
{
	struct mrc_ack_lost lost[MRC_ACK_LOG];
	unsigned int i, n;

	n = mrc_ack_rx_add(&mrc_sk(sk)->rack, seq, prev_port, lost);
	for (i = 0; i < n; i++)
		mrc_ack_lost_queue(sk, lost[i].seq, lost[i].port);
}

/* Does ACK @a (its echo @e, then its further echoes) echo the arrival of
 * packet @psn sent on EV @port?
 */
static bool mrc_ack_echoes(const struct mrc_ack_hdr *a,
			   const struct mrc_echo *e, u32 psn, u16 port)
{
	struct mrc_echo more;
	unsigned int i;

	if (e->psn == psn && e->ev == port && !(e->flags & MRC_F_PROBE))
		return true;
	for (i = 0; i < a->nr_echo; i++) {
		mrc_ack_echo_get(a, i, &more);
		if (more.psn == psn && more.ev == port)
			return true;
	}
	return false;
}

/* The first ACK (@a, its echo @e) with a later sequence than the peer's
 * newest at an RTO: were the transmissions the RTO swept up from EVs it
 * made suspect lost, or their ACKs?  The peer echoes every data packet
 * it takes, in the ACK it sends next (at once, or held back for a few
 * more, mrc_rcv_ack_data()), and numbers its ACKs: if this one follows
 * that newest directly and answers a packet sent after the RTO, the peer
 * took nothing between but what this one echoes, so a swept transmission
 * it does not echo had not arrived an RTO after it left (the latest RTO,
 * when more than one came without an ACK between): it was lost on its
 * way, and its EV goes BAD now (if none of its packets was acknowledged
 * since), rather than never: an RTO would otherwise blame only its
 * oldest transmission's EV, and one with a packet in flight at each RTO
 * (a request, the tail of a message) may not see that EV again for a
 * long time.  That the packet is acknowledged says nothing: its
 * retransmission after the RTO may be what arrived.  With ACKs missing
 * in between, the packets' may be among them (lost on a reverse path,
 * which the peer learns from our reports); an ACK of a packet sent
 * before the RTO was held up (a stalled host, ours or the peer's): no
 * verdict.
 */
static void mrc_rto_judge(struct sock *sk, const struct mrc_ack_hdr *a,
			  const struct mrc_echo *e)
{
	struct mrc_sock *msk = mrc_sk(sk);
	unsigned int i, n = msk->rto_n;
	u16 seq = ntohs(a->ack_seq), evi;

	if (!n || (s16)(seq - msk->rto_ack_seq) <= 0)
		return;
	msk->rto_n = 0;
	if ((u16)(seq - msk->rto_ack_seq) != 1 || (e->flags & MRC_F_PROBE) ||
	    (s32)(e->tsval - msk->rto_fired_us) < 0)
		return;
	for (i = 0; i < n; i++) {
		const struct mrc_rto_pkt *p = &msk->rto_pkt[i];

		if (mrc_ack_echoes(a, e, p->psn, p->port))
			continue;
		evi = mrc_evset_find(&msk->evset, p->port);
		if (evi != MRC_EV_NONE && msk->evset.evs[evi].suspect)
			mrc_ev_fail(sk, evi, MRC_MIB_EV_BAD_RTO,
				    MRC_MIB_LOST_RTO);
	}
}

/**
 * mrc_rcv_ack() - process an acknowledgment
 * @sk: the connection, locked, past the handshake
 * @skb: the datagram; mrc payload at skb->data + sizeof(struct udphdr)
 */
void mrc_rcv_ack(struct sock *sk, struct sk_buff *skb)
{
	const struct mrc_ack_hdr *a = (const void *)(skb->data +
						    sizeof(struct udphdr));
	const __be32 *words = (const __be32 *)(a + 1);
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);
	u32 cum = ntohl(a->cum_psn);
	struct mrc_echo echo = {
		.psn = ntohl(a->echo_psn),
		.tsval = ntohl(a->echo_tsval),
		.ev = ntohs(a->echo_ev),
		.flags = ntohs(a->common.flags),
		.wait_us = ntohl(a->echo_wait_us),
	};
	u32 acked = 0, rtt_us = 0, psn, word, i;
	u32 held = msk->in_flight + msk->lost_cnt;
	struct mrc_echo more;
	struct sk_buff *rskb;
	u64 now = mrc_now_ns();

	/* an ACK for data never sent is a forgery or a bug: ignore it all */
	if (mrc_psn_after(cum, msk->snd_nxt)) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_ACK_UNSENT);
		return;
	}
	/* Overtaken by a later ACK, or forged by one who does not know the
	 * send window: nothing but the note that it arrived (so that it is
	 * not reported lost), and not even that from further back than a
	 * window.  Only an ACK inside the window may move the ACK log, blame
	 * an EV or change the window (RFC 5961's rule for TCP).
	 */
	if (mrc_psn_before(cum, msk->snd_una)) {
		if (!mrc_psn_before(cum, msk->snd_una - MRC_WIN_PKTS))
			mrc_ack_rx_late(&msk->rack, ntohs(a->ack_seq));
		MRC_INC_STATS(mn, MRC_MIB_ACK_OLD);
		return;
	}
	mrc_ack_log(sk, ntohs(a->ack_seq), ntohs(a->prev_ev));
	msk->last_ack_ns = now;
	/* sprayed ACKs reorder: the window of the newest counts, which is
	 * the one with the later sequence, or one that acknowledges more
	 */
	if ((s16)(ntohs(a->ack_seq) - msk->peer_ack_seq) > 0 ||
	    mrc_psn_after(cum, msk->snd_una)) {
		msk->peer_ack_seq = ntohs(a->ack_seq);
		msk->peer_rwnd = ntohl(a->rwnd);
	}

	/* RTT from the echoed timestamps, which name one transmission each,
	 * less the time the peer held each echo's ACK back; the window's
	 * sample is the last, the packet that sent the ACK
	 */
	for (i = 0; i < a->nr_echo; i++) {
		mrc_ack_echo_get(a, i, &more);
		mrc_rcv_echo(sk, &more, &rtt_us, now);
	}
	mrc_rcv_echo(sk, &echo, &rtt_us, now);

	/* cumulative part: free what the peer has for good */
	if (msk->snd_una != cum)
		msk->progress_ns = now;
	while (msk->snd_una != cum) {
		rskb = *mrc_ring_at(&msk->rtx, msk->snd_una);
		*mrc_ring_at(&msk->rtx, msk->snd_una) = NULL;
		msk->snd_una++;
		if (!rskb)
			continue;
		if (!(mrc_cb(rskb)->flags & MRC_CB_SACKED)) {
			u16 evi = mrc_cb(rskb)->evi;

			msk->evset.evs[evi].acked++;
			msk->evset.evs[evi].suspect = 0;
			mrc_ev_answered(sk, evi, mrc_cb(rskb)->sent_ns);
			if (mrc_cb(rskb)->sent_ns > msk->rack_sent_ns)
				msk->rack_sent_ns = mrc_cb(rskb)->sent_ns;
		}
		if (mrc_cb(rskb)->tx_count > 1)
			mrc_late_note(msk, mrc_cb(rskb));
		if (mrc_cb(rskb)->flags & MRC_CB_FIN)
			msk->fin_acked = true;
		if (mrc_cb(rskb)->flags & MRC_CB_EOR)
			msk->stats.msgs_sent++;
		if (!mrc_cb_status(mrc_cb(rskb)))
			msk->stats.bytes_sent += mrc_cb(rskb)->len;
		msk->bytes_out -= mrc_cb(rskb)->len + MRC_PKT_OVERHEAD;
		mrc_rtx_free(sk, rskb);
		acked++;
	}

	/* selective part: the SACK words, then the echoed packets */
	for (i = 0; i < MRC_SACK_BITS_MIN / 32 + a->sack_words; i++) {
		word = i == 0 ? ntohl(a->sack_hi) : i == 1 ? ntohl(a->sack_lo) :
		       ntohl(words[i - 2]);
		while (word) {
			psn = cum + 1 + i * 32 + __ffs(word);
			word &= word - 1;
			if (!mrc_psn_before(psn, msk->snd_nxt))
				break;
			rskb = *mrc_ring_at(&msk->rtx, psn);
			if (rskb && !(mrc_cb(rskb)->flags & MRC_CB_SACKED)) {
				mrc_mark_sacked(sk, rskb, cum);
				acked++;
			}
		}
	}
	acked += mrc_rcv_echo_sack(sk, &echo, cum);
	for (i = 0; i < a->nr_echo; i++) {
		mrc_ack_echo_get(a, i, &more);
		acked += mrc_rcv_echo_sack(sk, &more, cum);
	}

	mrc_rto_judge(sk, a, &echo);
	mrc_rack_detect(sk, now, cum);
	if (acked) {
		struct mrc_cc_ack ca = {
			.acked = acked,
			.rtt_us = rtt_us,
			.now_us = (u32)div_u64(now, NSEC_PER_USEC),
			.snd_una = msk->snd_una,
			.snd_nxt = msk->snd_nxt,
			.in_flight = held,
		};
		u32 ce_count = ntohl(a->ce_count);

		/* the peer counts the marked packets it received; a count
		 * that went backwards is an older ACK
		 */
		if ((s32)(ce_count - msk->peer_ce) > 0) {
			ca.ce = min(ce_count - msk->peer_ce, acked);
			msk->peer_ce = ce_count;
		}
		if (mrc_cc_on_ack(&msk->cc, &ca))
			mrc_trace_cwnd(sk);
	}

	if (acked)
		sk->sk_write_space(sk);
	if (msk->fin_acked && sk->sk_state != TCP_CLOSE) {
		if (msk->fin_rcvd || sock_flag(sk, SOCK_DEAD)) {
			mrc_conn_done(sk);
			return;
		}
		/* our side is finished: waiting for the peer's FIN */
		sk->sk_state_change(sk);
	}
	mrc_push(sk);
	mrc_timer_arm(sk);
}

/* The RTO expired: everything outstanding is presumed lost; the next RTO
 * doubles, up to @rto_max_us.
 */
static void mrc_rto_fire(struct sock *sk, u32 rto_max_us)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct sk_buff *skb, *tmp, *oldest = mrc_tsorted_first(msk);
	struct mrc_skb_cb *cb;
	struct mrc_ev *ev;

	msk->stats.rto++;
	MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_RTO);
	/* Nothing came back at all: the EVs of the transmissions swept up
	 * are suspects, and the next ACK tells which of them lost their
	 * packets (mrc_rto_judge()); a stalled host would otherwise throw
	 * away every EV that had a packet in flight.  Only transmissions
	 * the last ACK showed missing (within its SACK range): beyond, the
	 * ACK that would have covered them may be what was lost.  The
	 * oldest transmission's EV goes BAD at once if it was a suspect
	 * already (a second RTO without one of its packets acknowledged in
	 * between; its ACK may have been lost on a reverse path that
	 * failed), for a connection whose ACKs do not follow each other
	 * closely enough for a verdict.
	 */
	if (oldest && mrc_loss_ev_visible(mrc_cb(oldest)->psn, msk->snd_una) &&
	    msk->evset.evs[mrc_cb(oldest)->evi].suspect)
		mrc_ev_fail(sk, mrc_cb(oldest)->evi, MRC_MIB_EV_BAD_RTO,
			    MRC_MIB_LOST_RTO);
	/* no ACK since the last RTO: what it swept up still waits for its
	 * verdict, which the next ACK gives for both
	 */
	if (!msk->rto_n)
		msk->rto_ack_seq = msk->rack.hi;
	msk->rto_fired_us = mrc_ns_to_us32(mrc_now_ns());
	list_for_each_entry_safe(skb, tmp, &msk->tsorted, list) {
		cb = mrc_cb(skb);
		ev = &msk->evset.evs[cb->evi];
		if (mrc_loss_ev_visible(cb->psn, msk->snd_una) &&
		    mrc_ev_usable(ev)) {
			if (ev->suspect < U8_MAX)
				ev->suspect++;
			/* no ACK yet: no sequence to judge by */
			if (msk->rack.any && msk->rto_n < MRC_RTO_JUDGE)
				msk->rto_pkt[msk->rto_n++] = (struct mrc_rto_pkt){
					.psn = cb->psn, .port = ev->port,
				};
		}
		mrc_mark_lost(sk, skb, MRC_MIB_LOST_RTO);
	}
	mrc_cc_on_rto(&msk->cc, msk->snd_nxt);
	mrc_trace_cwnd(sk);
	msk->rto_us = min_t(u64, (u64)msk->rto_us * 2, rto_max_us);
}

/* How long an idle connection waits between probes of its peer: a third
 * of the connection timeout, so a dead peer is noticed within it.
 */
static u64 mrc_idle_ns(struct sock *sk)
{
	u64 limit;

	rcu_read_lock();
	limit = (u64)mrc_settings(mrc_sk_pernet(sk))->conn_timeout_ms *
		NSEC_PER_MSEC;
	rcu_read_unlock();
	return max_t(u64, limit / 3, (u64)mrc_sk(sk)->rto_us * NSEC_PER_USEC);
}

/* When the connection's own duties (SYN, RTO, window and idle probes)
 * are due, or 0 when it has none.
 */
static u64 mrc_timer_conn_deadline(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	u64 rto = (u64)msk->rto_us * NSEC_PER_USEC;
	struct sk_buff *oldest;

	switch (sk->sk_state) {
	case TCP_SYN_SENT:
		return msk->syn_sent_ns + rto;
	case TCP_ESTABLISHED:
	case TCP_CLOSE_WAIT:
	case TCP_FIN_WAIT1:
		break;
	default:
		return 0;
	}
	/* lost ones wait for the window, they are not in flight */
	oldest = mrc_tsorted_first(msk);
	if (oldest)
		return max(mrc_cb(oldest)->sent_ns, msk->last_ack_ns) + rto;
	/* lost packets and none in flight: their transmission failed for
	 * want of memory (the window would have let them go); no ACK will
	 * come to push them, so try again after an RTO
	 */
	if (msk->lost_cnt)
		return max(msk->last_probe_ns, msk->last_ack_ns) + rto;
	if (!skb_queue_empty(&sk->sk_write_queue))	/* window probe */
		return max(msk->last_probe_ns, msk->last_ack_ns) + rto;
	/* responses to the peer's READs wait for memory */
	if (!skb_queue_empty(&msk->rsp_queue))
		return max(msk->last_probe_ns, msk->last_ack_ns) + rto;
	/* idle: make sure the peer is still there */
	return max(msk->last_probe_ns, msk->last_rcv_ns) + mrc_idle_ns(sk);
}

static bool mrc_may_probe_evs(const struct sock *sk)
{
	return sk->sk_state == TCP_ESTABLISHED ||
	       sk->sk_state == TCP_CLOSE_WAIT || sk->sk_state == TCP_FIN_WAIT1;
}

/* Next expiry of the connection's timer, or 0 when it has nothing to do:
 * its own duties, the next probe of a BAD EV, or the ACK held back.
 */
static u64 mrc_timer_deadline(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	u64 d = mrc_timer_conn_deadline(sk), p = msk->probe_ns;

	if (!mrc_may_probe_evs(sk))
		return d;
	if (p && (!d || p < d))
		d = p;
	if (msk->ack_pend_n && (!d || msk->ack_due_ns < d))
		d = msk->ack_due_ns;
	return d;
}

/* An idle connection's rings go back to their smallest size, those that
 * hold nothing (none may: nothing to send, nothing waits in flight).
 * Without memory for the small ones, the large ones stay.
 */
static void mrc_rings_shrink(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	if (mrc_ring_size(&msk->rtx) > MRC_RING_MIN &&
	    msk->snd_una == msk->snd_nxt)
		mrc_ring_resize(&msk->rtx, msk->snd_una, msk->snd_nxt,
				MRC_RING_MIN, GFP_ATOMIC);
	if (mrc_ring_size(&msk->rcv_ofo) > MRC_RING_MIN &&
	    msk->rcv_hi == msk->rcv_nxt)
		mrc_ring_resize(&msk->rcv_ofo, msk->rcv_nxt, msk->rcv_nxt,
				MRC_RING_MIN, GFP_ATOMIC);
}

/* Send the ACK held back for data packets taken: the newest of them is
 * its echo, the others its further echoes, each with how long it waited.
 */
static void mrc_ack_flush(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_ack_echo e;

	if (!msk->ack_pend_n)
		return;
	e = msk->ack_pend[--msk->ack_pend_n];
	mrc_send_ack_waited(sk, ntohl(e.psn), ntohl(e.tsval), ntohs(e.ev), 0,
			    mrc_now_us32() - ntohl(e.wait_us));
}

/**
 * mrc_timer_handle() - the connection's timer expired
 * @sk: the connection, locked, not owned by a process (or owned by the
 *      caller of release_sock)
 *
 * Retransmits the SYN, declares RTO losses, probes a zero window, and
 * ends a connection that has heard nothing for the connection timeout.
 */
void mrc_timer_handle(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	u64 now = mrc_now_ns(), deadline, limit;
	const struct mrc_settings *s;
	u32 rto_max_us;

	rcu_read_lock();
	s = mrc_settings(mrc_sk_pernet(sk));
	limit = (u64)s->conn_timeout_ms * NSEC_PER_MSEC;
	rto_max_us = s->rto_max_us;
	rcu_read_unlock();

	if (msk->ack_pend_n && now >= msk->ack_due_ns)
		mrc_ack_flush(sk);
	if (msk->probe_ns && now >= msk->probe_ns && mrc_may_probe_evs(sk))
		mrc_ev_probe_due(sk, now);
	deadline = mrc_timer_conn_deadline(sk);
	if (!deadline || now < deadline) {
		mrc_timer_arm(sk);
		return;
	}

	if (sk->sk_state == TCP_SYN_SENT) {
		if (now - msk->syn_start_ns >= limit) {
			mrc_conn_abort(sk, ETIMEDOUT, false);
			return;
		}
		msk->rto_us = min_t(u64, (u64)msk->rto_us * 2, rto_max_us);
		msk->syn_sent_ns = now;
		MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_SYN_RETRANS);
		/* a cookie too old to be taken soon: ask for a new one */
		if (msk->peer_cid && now - msk->synack_ns >=
		    MRC_COOKIE_LIFE_US * NSEC_PER_USEC / 2) {
			msk->peer_cid = 0;
			msk->synack_ns = 0;
		}
		mrc_send_syn(sk, msk->peer_cid ? MRC_PKT_CONFIRM : MRC_PKT_SYN);
		mrc_timer_arm(sk);
		return;
	}

	/* an orphan whose data makes no progress (a peer that keeps its
	 * window shut, or reads nothing) is given up like a silent peer
	 */
	if (msk->orphan_counted && now - msk->progress_ns >= limit) {
		MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_ORPHAN_ABORTED);
		mrc_conn_abort(sk, ETIMEDOUT, true);
		return;
	}
	if (msk->snd_una != msk->snd_nxt ||
	    !skb_queue_empty(&sk->sk_write_queue)) {
		/* data waits: only ACKs count as a sign of life */
		if (now - msk->last_ack_ns >= limit) {
			mrc_conn_abort(sk, ETIMEDOUT, false);
			return;
		}
	} else if (now - msk->last_rcv_ns >= limit) {
		/* idle, and the peer has not answered our probes */
		mrc_conn_abort(sk, ETIMEDOUT, false);
		return;
	}
	msk->last_probe_ns = now;
	if (msk->snd_una != msk->snd_nxt) {
		/* with nothing in flight, only packets whose transmission
		 * failed wait: try them again, no timeout happened
		 */
		if (msk->in_flight)
			mrc_rto_fire(sk, rto_max_us);
		mrc_push(sk);
	} else if (!skb_queue_empty(&sk->sk_write_queue)) {
		msk->rto_us = min_t(u64, (u64)msk->rto_us * 2, rto_max_us);
		mrc_send_probe(sk);
	} else if (!skb_queue_empty(&msk->rsp_queue)) {
		mrc_push(sk);
	} else {
		MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_IDLE_PROBE);
		mrc_rings_shrink(sk);
		mrc_send_probe(sk);
	}
	mrc_timer_arm(sk);
}

static enum hrtimer_restart mrc_timer_fn(struct hrtimer *t)
{
	struct mrc_sock *msk = container_of(t, struct mrc_sock, timer);
	struct sock *sk = &msk->inet.sk;

	bh_lock_sock(sk);
	if (!sock_owned_by_user(sk)) {
		msk->in_timer_cb = true;
		mrc_timer_handle(sk);
		msk->in_timer_cb = false;
	} else if (!test_and_set_bit(MRC_DEFERRED_TIMER, &msk->deferred)) {
		sock_hold(sk);	/* dropped by mrc_release_cb() */
	}
	bh_unlock_sock(sk);
	sock_put(sk);	/* this firing's reference */
	return HRTIMER_NORESTART;
}

/**
 * mrc_timer_init() - set up a socket's timer
 * @sk: the socket
 */
void mrc_timer_init(struct sock *sk)
{
	hrtimer_init(&mrc_sk(sk)->timer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_ABS_SOFT);
	mrc_sk(sk)->timer.function = mrc_timer_fn;
}

/* Is the connection's timer queued to fire by @ns? */
static bool mrc_timer_due_by(struct hrtimer *t, u64 ns)
{
	return hrtimer_is_queued(t) && ktime_to_ns(hrtimer_get_expires(t)) <= ns;
}

/**
 * mrc_timer_arm() - (re)arm the connection's timer for its next duty
 * @sk: the connection, locked
 *
 * Every queued firing holds one reference on the socket; the callback
 * drops it when it has run.  Callers are serialised by the socket lock,
 * and only they queue the timer, so a timer that is not queued needs a
 * new reference, whether or not its callback is running right now (that
 * run drops its own).  A queued firing keeps its reference when it is
 * moved: by its own callback, which it cannot race with (a timer queued
 * during its callback fires after the callback returns), or after
 * hrtimer_try_to_cancel() took it off the queue.  If that fails because
 * the callback is running on another CPU, the timer is left as it is:
 * the callback, or mrc_release_cb() after it, computes the deadline
 * again.
 *
 * A timer queued to fire no later than the deadline is not moved: when
 * it fires early it computes the deadline again (mrc_timer_handle()).
 * The deadline moves later with nearly every ACK (the oldest packet in
 * flight is acknowledged), and moving an hrtimer takes its base's lock
 * twice and may reprogram the clock event device: the timer now fires
 * early about once per RTO instead of moving at every ACK.
 */
void mrc_timer_arm(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct hrtimer *t = &msk->timer;
	u64 deadline = mrc_timer_deadline(sk);

	if (!deadline) {
		mrc_timer_stop(sk);
		return;
	}
	if (mrc_timer_due_by(t, deadline))
		return;
	if (!hrtimer_is_queued(t)) {
		sock_hold(sk);
	} else if (!msk->in_timer_cb) {
		switch (hrtimer_try_to_cancel(t)) {
		case 1:		/* dequeued: its reference is ours */
			break;
		case 0:		/* it ran in between and dropped its own */
			sock_hold(sk);
			break;
		default:	/* it is running: that run re-arms it */
			return;
		}
	}
	hrtimer_start(t, ns_to_ktime(deadline), HRTIMER_MODE_ABS_SOFT);
}

/**
 * mrc_timer_arm_by() - make sure the connection's timer fires by a time
 * @sk: the connection, locked
 * @ns: the time (mrc_now_ns()), which mrc_timer_deadline() includes
 *
 * A timer already due by then is left alone: it computes its next
 * deadline when it fires.
 */
void mrc_timer_arm_by(struct sock *sk, u64 ns)
{
	if (!mrc_timer_due_by(&mrc_sk(sk)->timer, ns))
		mrc_timer_arm(sk);
}

/**
 * mrc_timer_stop() - disarm the connection's timer
 * @sk: the connection, locked; the caller holds a reference
 *
 * A firing that cannot be removed because the callback is running (its
 * own, or on another CPU) fires, finds nothing to do and drops its
 * reference.
 */
void mrc_timer_stop(struct sock *sk)
{
	if (hrtimer_try_to_cancel(&mrc_sk(sk)->timer) == 1)
		__sock_put(sk);
}
