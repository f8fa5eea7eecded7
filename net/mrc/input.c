// SPDX-License-Identifier: GPL-2.0
/* mrc receive path: datagrams from the namespace's UDP tunnel socket are
 * validated, demultiplexed to their connection (or listener) and placed
 * by PSN; in-order data moves to the socket's receive queue.
 */
#include <linux/skbuff.h>
#include <linux/udp.h>
#include <net/inet_ecn.h>
#include <net/ip.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/udp.h>

#include "protocol.h"
#include "trace.h"
#include "psn.h"

static const enum mrc_mib_field mrc_hdr_drop_mib[__MRC_HDR_MAX] = {
	[MRC_HDR_SHORT]		= MRC_MIB_DROP_SHORT,
	[MRC_HDR_BAD_VERSION]	= MRC_MIB_DROP_VERSION,
	[MRC_HDR_BAD_TYPE]	= MRC_MIB_DROP_TYPE,
	[MRC_HDR_BAD_FLAGS]	= MRC_MIB_DROP_BAD_FLAGS,
	[MRC_HDR_BAD_LEN]	= MRC_MIB_DROP_BAD_LEN,
	[MRC_HDR_BAD_CID]	= MRC_MIB_DROP_BAD_CID,
	[MRC_HDR_TOO_BIG]	= MRC_MIB_DROP_TOO_BIG,
	[MRC_HDR_BAD_FIELD]	= MRC_MIB_DROP_BAD_FIELD,
};

static inline const struct mrc_hdr *mrc_skb_hdr(const struct sk_buff *skb)
{
	return (const struct mrc_hdr *)(skb->data + sizeof(struct udphdr));
}

/* Was @skb sent from @peer (v4-mapped for IPv4)? */
static bool mrc_skb_from_peer(const struct sk_buff *skb,
			      const struct in6_addr *peer)
{
	if (ip_hdr(skb)->version == 4)
		return ipv6_addr_v4mapped(peer) &&
		       peer->s6_addr32[3] == ip_hdr(skb)->saddr;
	return ipv6_addr_equal(peer, &ipv6_hdr(skb)->saddr);
}

/* The header bytes of @skb's type, its common header in the linear part:
 * an ACK's SACK words and echoes, a WRITE's extension and immediate, a
 * status record; a message's DATA header only, not its payload (in page
 * fragments, mrc_copy_to_frags(): pulling any of it would copy the head
 * of a clone), as mrc_hdr_check() and the fuzz model read it.
 */
static unsigned int mrc_hdr_pull_len(const struct sk_buff *skb)
{
	const struct mrc_hdr *h = mrc_skb_hdr(skb);

	if (h->type == MRC_PKT_ACK)
		return MRC_ACK_MAX_LEN;
	if (h->type == MRC_PKT_DATA && (ntohs(h->flags) & MRC_F_RDMA))
		return ntohs(h->flags) & MRC_F_IMM ? MRC_RDMA_IMM_HDR_LEN :
		       MRC_RDMA_HDR_LEN;
	if (h->type == MRC_PKT_DATA)
		return sizeof(struct mrc_data_hdr) +
		       (ntohs(h->flags) & MRC_F_STATUS ?
			sizeof(struct mrc_op_status) : 0);
	return sizeof(struct mrc_ack_hdr);
}

static bool mrc_skb_ce(const struct sk_buff *skb)
{
	if (ip_hdr(skb)->version == 4)
		return INET_ECN_is_ce(ip_hdr(skb)->tos);
	return INET_ECN_is_ce(ipv6_get_dsfield(ipv6_hdr(skb)));
}

/**
 * mrc_rcv_window() - bytes we accept beyond our cumulative PSN
 * @sk: the connection
 *
 * What is left of the receive buffer, counted like the sender counts
 * (payload plus MRC_PKT_OVERHEAD per packet, see mrc_pkt_cost()).
 *
 * Return: the window to advertise.
 */
u32 mrc_rcv_window(const struct sock *sk)
{
	int space = READ_ONCE(sk->sk_rcvbuf) - atomic_read(&sk->sk_rmem_alloc);

	/* half, as TCP does: truesize is larger than the payload */
	return space > 0 ? space / 2 : 0;
}

/**
 * mrc_rcv_purge() - free the messages received and not read
 * @sk: the connection, locked or unreachable
 */
void mrc_rcv_purge(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	__skb_queue_purge(&sk->sk_receive_queue);
	msk->rcv_queued = 0;
	msk->rcv_complete = 0;
	msk->rcv_head_off = 0;
	mrc_mem_reserve_put(sk);
}

/* Free what a one-sided packet held for the walk in order, chained by
 * ->next: a status record, the notification of a WRITE with immediate, a
 * READ to serve, the end of a READ's response.
 */
static void mrc_ofo_free_chain(struct sock *sk, struct sk_buff *skb)
{
	struct sk_buff *next;

	for (; skb; skb = next) {
		next = skb->next;
		skb->next = NULL;
		if (mrc_cb_status(mrc_cb(skb)) || mrc_cb_read_job(mrc_cb(skb)))
			mrc_wmem_free(sk, skb);
		else
			kfree_skb(skb);
	}
}

/**
 * mrc_ofo_purge() - free what arrived out of order
 * @sk: the connection, locked or unreachable
 */
void mrc_ofo_purge(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	int i;

	if (!msk->rcv_ofo.slot)
		return;
	for (i = 0; i < mrc_ring_size(&msk->rcv_ofo); i++) {
		struct sk_buff *skb = msk->rcv_ofo.slot[i];

		if (!mrc_ofo_is_write(skb))
			kfree_skb(skb);
		else
			mrc_ofo_free_chain(sk, mrc_ofo_record(skb));
		msk->rcv_ofo.slot[i] = NULL;
	}
	msk->rcv_ofo_bytes = 0;
}

/* Does the next in-order piece continue the message stream correctly?
 * A peer that lies about message ids or offsets breaks the connection.
 */
static bool mrc_rcv_in_sequence(struct mrc_sock *msk, struct sk_buff *skb)
{
	struct mrc_skb_cb *cb = mrc_cb(skb);

	switch (mrc_rcv_seq_next(&msk->rcv_seq, cb->msg_id, cb->msg_len,
				 cb->offset, cb->len,
				 cb->flags & MRC_CB_FIN)) {
	case MRC_SEQ_EOR:
		cb->flags |= MRC_CB_EOR;
		return true;
	case MRC_SEQ_PIECE:
	case MRC_SEQ_FIN:
		return true;
	default:
		return false;
	}
}

/* Move @skb (the piece at rcv_nxt) to the receive queue. */
static bool mrc_rcv_deliver(struct sock *sk, struct sk_buff *skb)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_skb_cb *cb = mrc_cb(skb);

	if (cb->flags & MRC_CB_PEER_STATUS) {
		msk->rcv_nxt++;
		mrc_op_status(sk, cb->msg_id, cb->offset);
		kfree_skb(skb);
		if (!msk->rcv_queued)
			mrc_mem_reserve_put(sk);
		return true;
	}
	if (!mrc_rcv_in_sequence(msk, skb)) {
		MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_DROP_BAD_SEQUENCE);
		kfree_skb(skb);
		if (!msk->rcv_queued)
			mrc_mem_reserve_put(sk);
		return false;
	}
	msk->rcv_nxt++;
	if (cb->flags & MRC_CB_FIN) {
		msk->fin_rcvd = true;
		kfree_skb(skb);
		/* nothing for the reader to take: the reserve is not held */
		if (!msk->rcv_queued)
			mrc_mem_reserve_put(sk);
		if (sk->sk_state == TCP_ESTABLISHED)
			inet_sk_set_state(sk, TCP_CLOSE_WAIT);
		sk->sk_shutdown |= RCV_SHUTDOWN;
		sk->sk_state_change(sk);
		return true;
	}
	__skb_queue_tail(&sk->sk_receive_queue, skb);
	msk->rcv_queued += cb->len;
	msk->stats.bytes_received += cb->len;
	if (cb->flags & MRC_CB_EOR) {
		msk->rcv_complete++;
		msk->stats.msgs_received++;
	}
	return true;
}

/* Room in the protocol's pool (and the memory cgroup) for @skb?  Over
 * the pool's limit a connection still takes the packet it waits for in
 * order, while less than mrc_rmem_min bytes wait to be read, from a
 * reserve all sockets share (mrc_mem_force_rmem()), until the reader has
 * taken them.
 */
static bool mrc_rmem_schedule(struct sock *sk, struct sk_buff *skb,
			      bool in_order)
{
	if (sk_rmem_schedule(sk, skb, skb->truesize))
		return true;
	if (!in_order || mrc_sk(sk)->rcv_queued >= mrc_mem_rmem_min())
		return false;
	return mrc_mem_force_rmem(sk, skb->truesize);
}

/* A data packet taken (in order or not): the connection's counters. */
static void mrc_rcv_count(struct sock *sk, bool ce)
{
	struct mrc_sock *msk = mrc_sk(sk);

	msk->stats.pkts_received++;
	if (ce) {
		msk->rcv_ce++;
		msk->stats.ce++;
		MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_IN_CE);
	}
}

/* Hold @psn, after rcv_nxt: its packet @skb, or mrc_ofo_write(). */
static void mrc_rcv_hold(struct sock *sk, u32 psn, struct sk_buff *skb)
{
	struct mrc_sock *msk = mrc_sk(sk);

	*mrc_ring_at(&msk->rcv_ofo, psn) = skb;
	if (!mrc_psn_before(psn, msk->rcv_hi))
		msk->rcv_hi = psn + 1;
	MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_IN_OFO);
}

/* Room in the ring for @psn, after rcv_nxt and inside the window: the
 * ring grows (doubling, up to MRC_WIN_PKTS slots) when @psn is further
 * ahead than it has slots.
 *
 * Return: 0, or -ENOMEM: the packet cannot be held now.
 */
static int mrc_rcv_make_room(struct mrc_sock *msk, u32 psn)
{
	int err = mrc_ring_fit(&msk->rcv_ofo, msk->rcv_nxt, msk->rcv_hi, psn,
			       MRC_WIN_PKTS, GFP_ATOMIC);

	/* what is held always fits: rcv_hi is within the ring's span */
	MRC_DEBUG_WARN_ON_ONCE(err == -EINVAL);
	return err;
}

/* Has our FIN left (or is it queued behind nothing more may go)? */
static bool mrc_fin_gone(struct sock *sk)
{
	struct sk_buff *tail = skb_peek_tail(&sk->sk_write_queue);

	return mrc_sk(sk)->fin_queued &&
	       (!tail || !(mrc_cb(tail)->flags & MRC_CB_FIN));
}

/* Queue @skb, a status record or a piece of a READ's response, charged
 * already, for the peer: before our FIN if that has not left.
 *
 * Return: 0, or -ECONNRESET when our FIN has left: nothing can follow it,
 * the connection must end (the peer learns the outcome of its operations
 * as an error).  @skb is freed then.
 */
static int mrc_queue_reply(struct sock *sk, struct sk_buff *skb)
{
	if (mrc_fin_gone(sk)) {
		mrc_wmem_free(sk, skb);
		return -ECONNRESET;
	}
	if (mrc_sk(sk)->fin_queued)
		__skb_queue_before(&sk->sk_write_queue,
				   skb_peek_tail(&sk->sk_write_queue), skb);
	else
		__skb_queue_tail(&sk->sk_write_queue, skb);
	if (mrc_cb_status(mrc_cb(skb)))
		MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_OUT_STATUS);
	return 0;
}

/* Queue status record @rec for the peer, behind the READs it waits to
 * serve, whose responses go first (records and responses in op order).
 *
 * Return: 0 or the error that ends the connection (mrc_queue_reply()).
 */
static int mrc_queue_status(struct sock *sk, struct sk_buff *rec)
{
	struct mrc_sock *msk = mrc_sk(sk);
	int err = 0;

	if (!skb_queue_empty(&msk->rsp_queue))
		__skb_queue_tail(&msk->rsp_queue, rec);
	else
		err = mrc_queue_reply(sk, rec);
	if (!err)
		mrc_push(sk);
	return err;
}

/* The walk in order passes the peer's READ (@job, struct mrc_read_job):
 * its response goes after what we queued before, as the send buffer has
 * room (mrc_rsp_fill(), from mrc_push()).
 *
 * Return: 0, or -ECONNRESET when our FIN has left: no response can go.
 */
static int mrc_queue_read(struct sock *sk, struct sk_buff *job)
{
	if (mrc_fin_gone(sk)) {
		mrc_wmem_free(sk, job);
		return -ECONNRESET;
	}
	__skb_queue_tail(&mrc_sk(sk)->rsp_queue, job);
	mrc_push(sk);
	return 0;
}

/* Turn @skb (a READ being served, whose data has room for one) into the
 * status record of its failure @status.
 */
static void mrc_read_job_fail(struct sk_buff *skb, u8 status)
{
	struct mrc_read_job *j = (struct mrc_read_job *)skb->data;
	struct mrc_op_status *st;
	u32 op_id = j->op_id;

	skb_trim(skb, 0);
	st = skb_put_zero(skb, sizeof(*st));
	st->op_id = htonl(op_id);
	st->status = status;
	mrc_cb(skb)->msg_id = MRC_F_STATUS;
	mrc_cb(skb)->len = sizeof(*st);
}

static u8 mrc_mr_status(int err)
{
	return err == -ENOENT ? MRC_OP_BAD_KEY :
	       err == -EACCES ? MRC_OP_BAD_ACCESS : MRC_OP_BAD_RANGE;
}

/* The peer's READs waiting to be served whole (MRC_INFO). */
u32 mrc_rsp_reads(struct sock *sk)
{
	struct sk_buff *skb;
	u32 n = 0;

	skb_queue_walk(&mrc_sk(sk)->rsp_queue, skb)
		n += mrc_cb_read_job(mrc_cb(skb));
	return n;
}

/**
 * mrc_rsp_fill() - queue the responses to the peer's READs
 * @sk: the connection, locked
 *
 * Serves the READs on rsp_queue in order, copying their bytes from the
 * pinned pages of their regions into packets at the end of the write
 * queue while the send buffer has room (one packet at least when the
 * write queue is empty), at most MRC_BURST_PKTS at a time; the status
 * records queued behind a READ follow it.  A READ whose region is gone
 * (deregistered, closed), or not readable, or too short, ends with a
 * failure record instead of the rest of its bytes.  Without memory the
 * rest waits for the next ACK or the timer.  Called by mrc_push().
 *
 * Return: 0, or the error that ends the connection (mrc_queue_reply()).
 */
int mrc_rsp_fill(struct sock *sk)
{
	size_t pkt = mrc_sk(sk)->mss - sizeof(struct mrc_rdma_ext);
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);
	struct sk_buff *job, *skb;
	unsigned int built = 0;
	int err = 0;

	while (!err && (job = skb_peek(&msk->rsp_queue))) {
		struct mrc_read_job *j = (struct mrc_read_job *)job->data;
		struct mrc_rdma_ext *x;
		struct mrc_skb_cb *cb;
		u32 n;

		if (mrc_cb_status(mrc_cb(job))) {
			__skb_unlink(job, &msk->rsp_queue);
			err = mrc_queue_reply(sk, job);
			continue;
		}
		if (built >= MRC_BURST_PKTS ||
		    (READ_ONCE(sk->sk_wmem_queued) >= READ_ONCE(sk->sk_sndbuf) &&
		     !skb_queue_empty(&sk->sk_write_queue)))
			break;
		n = min_t(u32, j->len - j->done, pkt);
		skb = alloc_skb(MRC_HEADROOM + sizeof(*x) + n, GFP_ATOMIC);
		if (!skb)
			break;
		if (!sk_wmem_schedule(sk, skb->truesize)) {
			kfree_skb(skb);
			break;
		}
		skb_reserve(skb, MRC_HEADROOM);
		x = skb_put(skb, sizeof(*x));
		err = mrc_mr_read(sk, j->key, j->off + j->done, skb_put(skb, n),
				  n);
		if (err) {
			kfree_skb(skb);
			mrc_read_job_fail(job, mrc_mr_status(err));
			MRC_INC_STATS(mn, MRC_MIB_READ_REFUSED);
			err = 0;
			continue;
		}
		x->rkey = 0;
		x->roffset = 0;
		x->op_id = htonl(j->op_id);
		x->op_len = htonl(j->len);
		__skb_header_release(skb);
		cb = mrc_cb(skb);
		memset(cb, 0, sizeof(*cb));
		cb->flags = MRC_CB_RDMA;
		cb->msg_id = MRC_F_RDMA | MRC_F_RESP;
		cb->offset = j->done;
		cb->len = n;
		sk_wmem_queued_add(sk, skb->truesize);
		sk_mem_charge(sk, skb->truesize);
		err = mrc_queue_reply(sk, skb);
		if (err)
			break;
		built++;
		j->done += n;
		msk->stats.read_bytes_out += n;
		if (j->done == j->len) {
			__skb_unlink(job, &msk->rsp_queue);
			mrc_wmem_free(sk, job);
			MRC_INC_STATS(mn, MRC_MIB_READ_SERVED);
		}
	}
	return err;
}

/* The walk in order passes a one-sided packet, @v its mrc_ofo_write().
 * A WRITE's piece: its status record goes to the peer, unless a failure
 * of the same operation went already (one record per operation; its
 * pieces are consecutive), and the notification of a WRITE with
 * immediate to the reader, unless the operation failed; the record comes
 * first in the chain.  The peer's READ: to be served.  The last piece of
 * our READ's response: the READ's end.
 *
 * Return: 0 or the error that ends the connection (mrc_queue_status()).
 */
static int mrc_rcv_write_passed(struct sock *sk, struct sk_buff *v)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct sk_buff *x = mrc_ofo_record(v), *next;
	int err = 0;

	for (; x; x = next) {
		next = x->next;
		x->next = NULL;
		if (mrc_cb_read_end(mrc_cb(x))) {
			if (!err)
				mrc_op_read_end(sk, mrc_cb(x)->offset);
			kfree_skb(x);
		} else if (mrc_cb_read_job(mrc_cb(x))) {
			if (err)
				mrc_wmem_free(sk, x);
			else
				err = mrc_queue_read(sk, x);
		} else if (mrc_cb_status(mrc_cb(x))) {
			const struct mrc_op_status *st = (const void *)x->data;

			if (msk->rcv_op_failed || err) {
				mrc_wmem_free(sk, x);
				continue;
			}
			if (st->status != MRC_OP_OK)
				msk->rcv_op_failed = true;
			err = mrc_queue_status(sk, x);
		} else if (msk->rcv_op_failed || err) {
			kfree_skb(x);
		} else {
			__skb_queue_tail(&sk->sk_receive_queue, x);
			msk->rcv_complete++;
			MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_WRITE_IMM);
			sk->sk_data_ready(sk);
		}
	}
	if ((unsigned long)v & MRC_OFO_WRITE_LAST)
		msk->rcv_op_failed = false;
	return err;
}

/* Should the pieces just queued wake the socket's waiters?  When a
 * message completed (@complete_before is @rcv_complete before them), or
 * when, with no whole message queued, they make a reader asleep in
 * recvmsg() or poll() return.  A piece that makes nobody's call return
 * wakes nobody: a reader waiting for a whole message of 64 KiB would
 * otherwise be woken, only to sleep again, by each of its 46 packets.
 * Nor does a piece behind a whole message not yet read: no reader
 * sleeps while there is one.  Every sleeper is woken by the wake this
 * allows, and each one that sleeps again sets @rcv_lowat again.
 */
static bool mrc_rcv_wake_due(struct sock *sk, u32 complete_before)
{
	struct mrc_sock *msk = mrc_sk(sk);
	u32 lowat;

	if (msk->rcv_complete == complete_before) {
		if (msk->rcv_complete)
			return false;
		lowat = READ_ONCE(msk->rcv_lowat);
		if (!mrc_readable(sk, lowat ?: SIZE_MAX))
			return false;
	}
	WRITE_ONCE(msk->rcv_lowat, 0);
	return true;
}

/* rcv_nxt has just advanced: what waited for it follows, pieces of
 * messages to the receive queue, the peer's status records to their
 * operations, WRITE's pieces (placed already) passed over.  Wakes the
 * reader if the pieces queued, here or (@queued) by the caller, call for
 * it (mrc_rcv_wake_due(); @complete_before: whole messages queued before
 * the caller's piece).
 *
 * Return: 0, or the error that ends the connection: -EPROTO when a piece
 * breaks the message stream.
 */
static int mrc_rcv_in_order(struct sock *sk, bool queued,
			    u32 complete_before)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct sk_buff *skb, **slot;
	int err = 0;

	for (;;) {
		slot = mrc_ring_at(&msk->rcv_ofo, msk->rcv_nxt);
		skb = *slot;
		if (!skb)
			break;
		*slot = NULL;
		if (mrc_ofo_is_write(skb)) {
			msk->rcv_nxt++;
			err = mrc_rcv_write_passed(sk, skb);
			if (err)
				break;
			continue;
		}
		msk->rcv_ofo_bytes -= mrc_cb(skb)->len;
		if (!(mrc_cb(skb)->flags & MRC_CB_PEER_STATUS))
			queued = true;
		if (!mrc_rcv_deliver(sk, skb)) {
			err = -EPROTO;
			break;
		}
	}
	/* rcv_hi never falls behind: [rcv_nxt, rcv_hi) spans what the
	 * ring holds (mrc_rcv_make_room())
	 */
	if (mrc_psn_before(msk->rcv_hi, msk->rcv_nxt))
		msk->rcv_hi = msk->rcv_nxt;
	if (!err && queued && mrc_rcv_wake_due(sk, complete_before)) {
		MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_RCV_WAKEUPS);
		sk->sk_data_ready(sk);
	}
	return err;
}

/* An skb for the peer, or for serving it, with room for @size bytes of
 * data: a status record, a READ to serve.  Charged to the socket's send
 * queue and the pool like a message, at most twice the send buffer: the
 * peer must take them.
 */
static struct sk_buff *mrc_reply_alloc(struct sock *sk, unsigned int size)
{
	struct sk_buff *skb;

	if (READ_ONCE(sk->sk_wmem_queued) >= 2 * READ_ONCE(sk->sk_sndbuf))
		return NULL;
	skb = alloc_skb(MRC_HEADROOM + size, GFP_ATOMIC);
	if (!skb)
		return NULL;
	if (!sk_wmem_schedule(sk, skb->truesize)) {
		kfree_skb(skb);
		return NULL;
	}
	skb_reserve(skb, MRC_HEADROOM);
	__skb_header_release(skb);
	memset(mrc_cb(skb), 0, sizeof(struct mrc_skb_cb));
	mrc_cb(skb)->flags = MRC_CB_RDMA;
	sk_wmem_queued_add(sk, skb->truesize);
	sk_mem_charge(sk, skb->truesize);
	return skb;
}

/* A status record for the peer: operation @op_id ended with @status. */
static struct sk_buff *mrc_status_alloc(struct sock *sk, u32 op_id,
					u8 status)
{
	struct mrc_op_status *st;
	struct sk_buff *skb;

	skb = mrc_reply_alloc(sk, sizeof(*st));
	if (!skb)
		return NULL;
	st = skb_put_zero(skb, sizeof(*st));
	st->op_id = htonl(op_id);
	st->status = status;
	mrc_cb(skb)->msg_id = MRC_F_STATUS;
	mrc_cb(skb)->len = sizeof(*st);
	return skb;
}

/* The notification of a WRITE with immediate whose last piece is @d, for
 * the reader once the walk in order passes it: struct mrc_imm as its data
 * (as the peer's packets say it), charged to the receive buffer like a
 * message's piece.
 */
static struct sk_buff *mrc_imm_alloc(struct sock *sk,
				     const struct mrc_data_hdr *d, bool in_order)
{
	const struct mrc_rdma_ext *x = (const void *)(d + 1);
	const struct mrc_imm_ext *ie = (const void *)(x + 1);
	struct sk_buff *skb;
	struct mrc_imm *n;

	skb = alloc_skb(sizeof(*n), GFP_ATOMIC);
	if (!skb)
		return NULL;
	if (!mrc_rmem_schedule(sk, skb, in_order)) {
		kfree_skb(skb);
		return NULL;
	}
	n = skb_put(skb, sizeof(*n));
	n->key = be64_to_cpu(x->rkey);
	n->offset = be64_to_cpu(x->roffset) - ntohl(d->offset);
	n->len = ntohl(x->op_len);
	n->imm = ntohl(ie->imm);
	memset(mrc_cb(skb), 0, sizeof(struct mrc_skb_cb));
	mrc_cb(skb)->flags = MRC_CB_EOR | MRC_CB_IMM;
	skb_set_owner_r(skb, sk);
	return skb;
}

/**
 * mrc_rcv_ack_data() - acknowledge a data packet just taken
 * @sk: the connection, locked
 * @psn: its PSN
 * @tsval: its transmit time
 * @ev: its EV
 * @flags: MRC_F_CE if it came marked
 * @more: more of its message or operation is to come
 *
 * An ACK goes at once for a packet that says something the sender must
 * hear now: a mark, a gap (the packet came out of order, or filled a
 * hole), the end of a message or an operation, the FIN.  A packet in
 * order in the middle of a stream is held back instead, to go as one of
 * the echoes of the next ACK (each keeps its own PSN, timestamp and EV,
 * so the sender's per-EV RTT and loss rules see every packet), until
 * @ack_coalesce packets wait or the oldest has waited @ack_delay_us; each
 * echo says how long its packet waited (wait_us), which the sender takes
 * out of its RTT sample and adds to its RTO.  Only packets that come
 * less than @ack_delay_us apart wait: in a slower stream every one is
 * acknowledged at once, as before.
 */
static void mrc_rcv_ack_data(struct sock *sk, u32 psn, u32 tsval, u16 ev,
			     u16 flags, bool more)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_ack_echo *e;
	u64 now, delay;
	bool fast;

	/* an ACK per packet (the default): no clock read for the rule */
	if (msk->ack_coalesce <= 1) {
		mrc_send_ack_echo(sk, psn, tsval, ev, flags);
		return;
	}
	now = mrc_now_ns();
	delay = (u64)msk->ack_delay_us * NSEC_PER_USEC;
	fast = now - msk->ack_data_ns < delay;
	msk->ack_data_ns = now;
	if (!mrc_ack_hold(psn, msk->rcv_nxt, msk->rcv_hi, more, fast, flags,
			  msk->ack_pend_n, msk->ack_coalesce)) {
		mrc_send_ack_echo(sk, psn, tsval, ev, flags);
		return;
	}
	e = &msk->ack_pend[msk->ack_pend_n++];
	e->psn = htonl(psn);
	e->tsval = htonl(tsval);
	e->ev = htons(ev);
	e->flags = 0;
	/* when it came, until the ACK says how long it waited */
	e->wait_us = htonl(mrc_ns_to_us32(now));
	if (msk->ack_pend_n == 1) {
		msk->ack_due_ns = now + delay;
		mrc_timer_arm_by(sk, msk->ack_due_ns);
	}
}

/* A one-sided packet @skb at @psn, new and inside the window, is taken:
 * @chain (what the walk in order does for it, mrc_rcv_write_passed()) is
 * held with its PSN, or done now if it is rcv_nxt; @last: it ends a
 * WRITE; @more: more of its operation is to come (mrc_rcv_ack_data()).
 * ACKs it.
 */
static void mrc_rcv_rdma_take(struct sock *sk, const struct sk_buff *skb,
			      u32 psn, struct sk_buff *chain, bool last,
			      bool more)
{
	const struct mrc_data_hdr *d = (const void *)mrc_skb_hdr(skb);
	bool ce = mrc_cb(skb)->flags & MRC_CB_CE;
	struct mrc_sock *msk = mrc_sk(sk);
	int err;

	mrc_rcv_count(sk, ce);
	if (psn != msk->rcv_nxt) {
		mrc_rcv_hold(sk, psn, mrc_ofo_write(chain, last));
	} else {
		msk->rcv_nxt++;
		err = mrc_rcv_write_passed(sk, mrc_ofo_write(chain, last));
		if (!err)
			err = mrc_rcv_in_order(sk, false, msk->rcv_complete);
		if (err) {
			mrc_conn_abort(sk, -err, true);
			return;
		}
	}
	mrc_rcv_ack_data(sk, psn, ntohl(d->tsval), ntohs(d->ev),
			 ce ? MRC_F_CE : 0, more);
	if (msk->fin_rcvd && msk->fin_acked)
		mrc_conn_done(sk);
}

/* No memory for what a one-sided packet needs: it is dropped, it comes
 * again, and its path is not to blame.
 */
static void mrc_rcv_rdma_nomem(struct sock *sk, const struct sk_buff *skb,
			       u32 psn)
{
	const struct mrc_data_hdr *d = (const void *)mrc_skb_hdr(skb);

	MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_DROP_MEM);
	mrc_send_ack_echo(sk, psn, ntohl(d->tsval), ntohs(d->ev), MRC_F_DROP);
}

/* A WRITE's piece (DATA with MRC_F_RDMA), new and inside the window:
 * placed into its region now, whatever its order, and its PSN taken like
 * any DATA's, so that the walk in order passes it and a message sent
 * after the WRITE is delivered after its bytes are in place.  A piece
 * that names no region of this connection, one not remotely writable or
 * bytes past a region's end is refused: nothing is written, the refusal
 * is counted, and the PSN is taken all the same (the connection goes
 * on).  Nothing is queued or charged to the receive buffer.
 *
 * A refused piece, and the last piece of an operation that asks for a
 * report (MRC_F_REPORT), get their status record now, and the last piece
 * of a WRITE with immediate its notification, taken when the walk in
 * order passes them (mrc_rcv_write_passed()): without memory for them the
 * piece is dropped as a message's would be, to come again.  Does not
 * consume @skb.
 */
static void mrc_rcv_write(struct sock *sk, struct sk_buff *skb, u32 psn)
{
	const struct mrc_data_hdr *d = (const void *)mrc_skb_hdr(skb);
	const struct mrc_rdma_ext *x = (const void *)(d + 1);
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);
	u32 len = ntohs(d->len), op_id = ntohl(x->op_id);
	bool last = ntohl(d->offset) + len == ntohl(x->op_len);
	u16 flags = ntohs(d->common.flags);
	struct sk_buff *rec = NULL, *imm = NULL;
	u8 status;
	int err;

	/* the immediate comes with the last piece (mrc_hdr_check()) */
	if (flags & MRC_F_IMM) {
		imm = mrc_imm_alloc(sk, d, psn == msk->rcv_nxt);
		if (!imm)
			goto nomem;
	}
	if (last && (flags & MRC_F_REPORT)) {
		rec = mrc_status_alloc(sk, op_id, MRC_OP_OK);
		if (!rec)
			goto nomem;
	}
	err = mrc_mr_write(sk, be64_to_cpu(x->rkey), be64_to_cpu(x->roffset),
			   skb, sizeof(struct udphdr) +
			   (flags & MRC_F_IMM ? MRC_RDMA_IMM_HDR_LEN :
			    MRC_RDMA_HDR_LEN), len);
	if (err) {
		/* a failed WRITE has no notification */
		kfree_skb(imm);
		imm = NULL;
		status = mrc_mr_status(err);
		if (rec)
			((struct mrc_op_status *)rec->data)->status = status;
		else
			rec = mrc_status_alloc(sk, op_id, status);
		if (!rec)
			goto nomem;
		MRC_INC_STATS(mn, status == MRC_OP_BAD_KEY ?
			      MRC_MIB_WRITE_BAD_KEY :
			      status == MRC_OP_BAD_ACCESS ?
			      MRC_MIB_WRITE_BAD_ACCESS : MRC_MIB_WRITE_BAD_RANGE);
		msk->stats.write_refused++;
	} else {
		MRC_INC_STATS(mn, MRC_MIB_WRITE_PLACED);
		msk->stats.bytes_received += len;
		msk->stats.write_bytes_in += len;
	}
	/* what the walk in order takes: the record first */
	if (rec)
		rec->next = imm;
	else
		rec = imm;
	mrc_rcv_rdma_take(sk, skb, psn, rec, last, !last);
	return;
nomem:
	kfree_skb(imm);
	mrc_rcv_rdma_nomem(sk, skb, psn);
}

/* The peer's READ (DATA with MRC_F_READ), new and inside the window: a
 * struct mrc_read_job for the walk in order, which queues it to be served
 * (mrc_rsp_fill() checks the region then).  Charged like a status record;
 * without memory for it the request is dropped, to come again.
 */
static void mrc_rcv_read(struct sock *sk, struct sk_buff *skb, u32 psn)
{
	const struct mrc_data_hdr *d = (const void *)mrc_skb_hdr(skb);
	const struct mrc_rdma_ext *x = (const void *)(d + 1);
	struct mrc_read_job *j;
	struct sk_buff *job;

	job = mrc_reply_alloc(sk, sizeof(*j));
	if (!job) {
		mrc_rcv_rdma_nomem(sk, skb, psn);
		return;
	}
	j = skb_put(job, sizeof(*j));
	j->key = be64_to_cpu(x->rkey);
	j->off = be64_to_cpu(x->roffset);
	j->op_id = ntohl(x->op_id);
	j->len = ntohl(x->op_len);
	j->done = 0;
	mrc_cb(job)->msg_id = MRC_F_READ;
	mrc_rcv_rdma_take(sk, skb, psn, job, false, false);
}

/* A piece of the response to our READ (DATA with MRC_F_RESP), new and
 * inside the window: placed now, whatever its order, into the region the
 * READ named, at the READ's offset there plus the piece's; the last piece
 * ends the READ when the walk in order passes it (every byte placed), and
 * holds an skb for that (charged to the receive buffer; without memory
 * the piece is dropped, to come again).  A piece that matches no READ of
 * ours in flight is counted and taken, nothing placed.  A region gone
 * meanwhile fails the READ (ENOKEY).  Does not consume @skb.
 */
static void mrc_rcv_resp(struct sock *sk, struct sk_buff *skb, u32 psn)
{
	const struct mrc_data_hdr *d = (const void *)mrc_skb_hdr(skb);
	const struct mrc_rdma_ext *x = (const void *)(d + 1);
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);
	u32 len = ntohs(d->len), off = ntohl(d->offset);
	u32 op_id = ntohl(x->op_id), op_len = ntohl(x->op_len);
	struct sk_buff *end = NULL;
	struct mrc_op *op;
	int err;

	op = mrc_op_read_find(sk, op_id, op_len);
	if (!op) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_BAD_RESP);
		mrc_rcv_rdma_take(sk, skb, psn, NULL, false, false);
		return;
	}
	if (off + len == op_len) {
		end = alloc_skb(0, GFP_ATOMIC);
		if (!end || !mrc_rmem_schedule(sk, end, psn == msk->rcv_nxt)) {
			kfree_skb(end);
			mrc_rcv_rdma_nomem(sk, skb, psn);
			return;
		}
		memset(mrc_cb(end), 0, sizeof(struct mrc_skb_cb));
		mrc_cb(end)->flags = MRC_CB_RDMA;
		mrc_cb(end)->msg_id = MRC_F_RESP;
		mrc_cb(end)->offset = op_id;
		skb_set_owner_r(end, sk);
	}
	err = mrc_mr_place(sk, op->lkey, op->loff + off, skb,
			   sizeof(struct udphdr) + MRC_RDMA_HDR_LEN, len);
	if (err && !op->error)
		op->error = err == -ENOENT ? ENOKEY : -err;
	if (!err)
		msk->stats.read_bytes_in += len;
	/* not a WRITE's: its end is the chain's (rcv_op_failed is the
	 * peer's WRITEs', whose pieces ours may come between)
	 */
	mrc_rcv_rdma_take(sk, skb, psn, end, false, !end);
}

static void mrc_rcv_data(struct sock *sk, struct sk_buff *skb)
{
	const struct mrc_data_hdr *d = (const void *)mrc_skb_hdr(skb);
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_skb_cb *cb = mrc_cb(skb);
	u32 psn = ntohl(d->psn), tsval = ntohl(d->tsval);
	u16 ce = cb->flags & MRC_CB_CE ? MRC_F_CE : 0;
	u16 ev = ntohs(d->ev);
	bool fin = ntohs(d->common.flags) & MRC_F_FIN;
	bool status = ntohs(d->common.flags) & MRC_F_STATUS;
	bool more;

	if (sk->sk_state != TCP_ESTABLISHED && sk->sk_state != TCP_FIN_WAIT1 &&
	    sk->sk_state != TCP_CLOSE_WAIT) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_STATE);
		goto drop;
	}
	/* The peer missed one of our ACKs: that EV's path towards it loses.
	 * Read from every packet within a window of rcv_nxt, duplicates too:
	 * the peer repeats a report until the packet carrying it is
	 * acknowledged, and the packets whose ACKs were lost come again.
	 */
	if (d->ack_lost_ev &&
	    mrc_psn_in_window(psn, msk->rcv_nxt - MRC_WIN_PKTS,
			      2 * MRC_WIN_PKTS))
		mrc_ev_ack_lost(sk, ntohs(d->ack_lost_seq), ntohs(d->ack_lost_ev));
	if (mrc_psn_before(psn, msk->rcv_nxt)) {
		/* already delivered: the ACK that says so was lost */
		MRC_INC_STATS(mn, MRC_MIB_DUP_DATA);
		mrc_send_ack_echo(sk, psn, tsval, ev, ce);
		goto drop;
	}
	if (!mrc_psn_in_window(psn, msk->rcv_nxt, MRC_WIN_PKTS)) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_OUT_OF_WINDOW);
		goto drop;
	}
	if (msk->fin_rcvd) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_AFTER_FIN);
		goto drop;
	}
	if (sock_flag(sk, SOCK_DEAD)) {
		/* closed: nobody will read it, so the peer must not think
		 * it was delivered
		 */
		MRC_INC_STATS(mn, MRC_MIB_DROP_STATE);
		kfree_skb(skb);
		mrc_conn_abort(sk, ECONNRESET, true);
		return;
	}
	/* a packet that came early: its place in the ring */
	if (psn != msk->rcv_nxt && mrc_rcv_make_room(msk, psn)) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_MEM);
		/* it comes again, and its path is not to blame */
		mrc_send_ack_echo(sk, psn, tsval, ev, MRC_F_DROP);
		goto drop;
	}
	if (*mrc_ring_at(&msk->rcv_ofo, psn)) {
		MRC_INC_STATS(mn, MRC_MIB_DUP_DATA);
		mrc_send_ack_echo(sk, psn, tsval, ev, ce);
		goto drop;
	}
	if (ntohs(d->common.flags) & MRC_F_READ) {
		mrc_rcv_read(sk, skb, psn);
		goto drop;
	}
	if (ntohs(d->common.flags) & MRC_F_RESP) {
		mrc_rcv_resp(sk, skb, psn);
		goto drop;
	}
	if (ntohs(d->common.flags) & MRC_F_RDMA) {
		mrc_rcv_write(sk, skb, psn);
		goto drop;
	}
	/* A peer within our window stays within the buffer; a lying one is
	 * cut off at twice the buffer.  An empty buffer takes one packet
	 * whatever its size, or a buffer smaller than a packet would stall.
	 */
	if (atomic_read(&sk->sk_rmem_alloc) &&
	    atomic_read(&sk->sk_rmem_alloc) + skb->truesize >
	    2 * (u32)READ_ONCE(sk->sk_rcvbuf)) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_RCVBUF);
		/* it must come again, and its path is not to blame */
		mrc_send_ack_echo(sk, psn, tsval, ev, MRC_F_DROP);
		goto drop;
	}
	/* the protocol's pool and the memory cgroup must have room too */
	if (!mrc_rmem_schedule(sk, skb, psn == msk->rcv_nxt)) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_MEM);
		if (psn == msk->rcv_nxt && !msk->rcv_mem_short) {
			/* the reader may take a piece of a message now */
			WRITE_ONCE(msk->rcv_mem_short, true);
			sk->sk_data_ready(sk);
		}
		/* An ACK with the window that names this packet as
		 * dropped: the sender sends it again without blaming its
		 * path or cutting its window.
		 */
		mrc_send_ack_echo(sk, psn, tsval, ev, MRC_F_DROP);
		goto drop;
	}
	if (psn == msk->rcv_nxt && msk->rcv_mem_short)
		WRITE_ONCE(msk->rcv_mem_short, false);

	mrc_rcv_count(sk, ce);
	cb->psn = psn;
	cb->msg_id = ntohl(d->msg_id);
	cb->msg_len = ntohl(d->msg_len);
	cb->offset = ntohl(d->offset);
	cb->len = ntohs(d->len);
	cb->flags = fin ? MRC_CB_FIN : 0;
	if (status) {
		const struct mrc_op_status *st = (const void *)(d + 1);

		/* not a message: nothing of it for the receive buffer */
		cb->msg_id = ntohl(st->op_id);
		cb->offset = st->status;
		cb->len = 0;
		cb->flags = MRC_CB_PEER_STATUS;
	}
	/* the packet may be read and freed once delivered */
	more = !fin && !status && cb->len < cb->msg_len - cb->offset;
	__skb_pull(skb, sizeof(struct udphdr) + sizeof(*d));
	skb_orphan(skb);
	skb_set_owner_r(skb, sk);

	if (psn != msk->rcv_nxt) {
		mrc_rcv_hold(sk, psn, skb);
		msk->rcv_ofo_bytes += cb->len;
	} else {
		u32 complete = msk->rcv_complete;
		int err = mrc_rcv_deliver(sk, skb) ? 0 : -EPROTO;

		if (!err)
			err = mrc_rcv_in_order(sk, !status, complete);
		if (err) {
			mrc_conn_abort(sk, -err, true);
			return;
		}
	}
	mrc_rcv_ack_data(sk, psn, tsval, ev, ce, more);
	/* both directions are finished */
	if (msk->fin_rcvd && msk->fin_acked)
		mrc_conn_done(sk);
	return;
drop:
	kfree_skb(skb);
}

static void mrc_rcv_probe(struct sock *sk, struct sk_buff *skb)
{
	const struct mrc_probe_hdr *p = (const void *)mrc_skb_hdr(skb);
	struct mrc_sock *msk = mrc_sk(sk);

	if (sk->sk_state == TCP_SYN_SENT || !msk->rcv_ofo.slot) {
		MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_DROP_STATE);
		return;
	}
	mrc_send_ack_echo(sk, msk->rcv_nxt - 1, ntohl(p->tsval), ntohs(p->ev),
			  MRC_F_PROBE |
			  (mrc_cb(skb)->flags & MRC_CB_CE ? MRC_F_CE : 0));
}

/* A CONFIRM for a connection that exists: its first answer was lost. */
static void mrc_rcv_confirm(struct sock *sk, struct sk_buff *skb)
{
	const struct mrc_syn_hdr *syn = (const void *)mrc_skb_hdr(skb);
	struct mrc_sock *msk = mrc_sk(sk);

	if (!msk->rcv_ofo.slot) {
		MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_DROP_STATE);
		return;
	}
	MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_SYN_REPEATED);
	mrc_send_ack_echo(sk, msk->rcv_nxt - 1, ntohl(syn->tsval), 0, 0);
}

/* Is @h from the peer as far as the ids tell?  While we connect, any
 * SYNACK may name the peer (each SYN gets a cookie of its own); before
 * the first, only an RST refusing our SYN (src_cid 0) can come.
 */
static bool mrc_rcv_ids_match(const struct sock *sk, const struct mrc_hdr *h)
{
	if (h->type == MRC_PKT_SYNACK && sk->sk_state == TCP_SYN_SENT)
		return true;
	return ntohl(h->src_cid) == mrc_sk(sk)->peer_cid;
}

/* A validated packet for a connection; socket locked. */
static int mrc_rcv_sk(struct sock *sk, struct sk_buff *skb)
{
	const struct mrc_hdr *h = mrc_skb_hdr(skb);
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_net *mn = mrc_sk_pernet(sk);

	trace_mrc_rcv(sk, h->type, skb->len);
	/* the connection ended while the packet waited in the backlog */
	if (sk->sk_state == TCP_CLOSE || sk->sk_state == TCP_LISTEN ||
	    !msk->local_cid || ntohl(h->dst_cid) != msk->local_cid) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_STATE);
		goto consumed;
	}
	/* the ids are no secret to the socket's owner and the
	 * administrator: the packet must also come from the peer's address
	 */
	if (!mrc_skb_from_peer(skb, &msk->peer)) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_BAD_ADDR);
		goto consumed;
	}
	if (!mrc_rcv_ids_match(sk, h)) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_BAD_CID);
		goto consumed;
	}

	if (sk->sk_state == TCP_SYN_SENT) {
		switch (h->type) {
		case MRC_PKT_SYNACK:
			mrc_rcv_synack(sk, skb);
			goto consumed;
		case MRC_PKT_RST:
			mrc_rcv_rst(sk, skb);
			goto consumed;
		case MRC_PKT_DATA:
		case MRC_PKT_ACK:
		case MRC_PKT_PROBE:
			/* the listener's connection answers our CONFIRM */
			if (msk->peer_cid) {
				mrc_conn_opened(sk);
				break;
			}
			fallthrough;
		default:
			MRC_INC_STATS(mn, MRC_MIB_DROP_STATE);
			goto consumed;
		}
	}
	/* for the idle probe and timeout, seconds away: the clock of the
	 * last tick does, without reading the clock source per packet
	 */
	msk->last_rcv_ns = ktime_get_coarse_ns();

	switch (h->type) {
	case MRC_PKT_DATA:
		mrc_rcv_data(sk, skb);
		return 0;
	case MRC_PKT_ACK:
		mrc_rcv_ack(sk, skb);
		break;
	case MRC_PKT_SYNACK:
		MRC_INC_STATS(mn, MRC_MIB_SYN_REPEATED);
		break;
	case MRC_PKT_CONFIRM:
		mrc_rcv_confirm(sk, skb);
		break;
	case MRC_PKT_RST:
		mrc_rcv_rst(sk, skb);
		break;
	case MRC_PKT_PROBE:
		mrc_rcv_probe(sk, skb);
		break;
	default:
		MRC_INC_STATS(mn, MRC_MIB_DROP_STATE);
		break;
	}
consumed:
	kfree_skb(skb);
	return 0;
}

/**
 * mrc_backlog_rcv() - process a packet that waited while the socket was
 * owned by a process
 * @sk: the socket, owned by the caller (release_sock)
 * @skb: the datagram
 *
 * Return: 0.
 */
int mrc_backlog_rcv(struct sock *sk, struct sk_buff *skb)
{
	return mrc_rcv_sk(sk, skb);
}

/* Hand @skb to @sk now, or queue it for the process that owns @sk. */
static void mrc_rcv_locked(struct mrc_net *mn, struct sock *sk,
			   struct sk_buff *skb)
{
	bh_lock_sock(sk);
	if (!sock_owned_by_user(sk)) {
		mrc_rcv_sk(sk, skb);
	} else if (sk_add_backlog(sk, skb, READ_ONCE(sk->sk_rcvbuf) +
				  READ_ONCE(sk->sk_sndbuf))) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_BACKLOG);
		kfree_skb(skb);
	}
	bh_unlock_sock(sk);
}

/* A SYN, or a CONFIRM for no connection: for the listener on its port,
 * which takes it without its socket lock (softirq).  Does not consume.
 */
static void mrc_rcv_listen(struct mrc_net *mn, struct sk_buff *skb,
			   const struct mrc_hdr *h)
{
	const struct mrc_syn_hdr *syn = (const void *)h;
	struct sock *lsk;

	lsk = mrc_port_lookup_listener(mn, ntohs(syn->dst_port));
	if (!lsk) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_NO_LISTENER);
		mrc_send_rst_reply(mn, skb, h, true);
		return;
	}
	trace_mrc_rcv(lsk, h->type, skb->len);
	if (h->type == MRC_PKT_SYN)
		mrc_listen_rcv_syn(lsk, skb);
	else
		mrc_listen_rcv_confirm(lsk, skb);
	sock_put(lsk);
}

/**
 * mrc_udp_encap_rcv() - receive one datagram from a tunnel socket
 * @sk: the namespace's UDP tunnel socket
 * @skb: the datagram, skb->data at the UDP header
 *
 * Softirq context, under rcu_read_lock.  Consumes @skb.
 *
 * Return: 0, the datagram is always consumed.
 */
int mrc_udp_encap_rcv(struct sock *sk, struct sk_buff *skb)
{
	enum mrc_hdr_verdict verdict;
	const struct mrc_hdr *h;
	struct mrc_net *mn;
	unsigned int len, hlen;
	struct sock *csk;

	mn = rcu_dereference_sk_user_data(sk);
	if (unlikely(!mn)) {	/* the socket is being closed */
		kfree_skb(skb);
		return 0;
	}
	MRC_INC_STATS(mn, MRC_MIB_IN_PKTS);

	len = skb->len - sizeof(struct udphdr);
	hlen = sizeof(struct udphdr) + min_t(unsigned int, len,
					     sizeof(struct mrc_hdr));
	if (!pskb_may_pull(skb, hlen)) {
		MRC_INC_STATS(mn, len < sizeof(struct mrc_hdr) ?
			      MRC_MIB_DROP_SHORT : MRC_MIB_DROP_NOMEM);
		goto drop;
	}
	/* then the headers of its type: an ACK's SACK words and echoes, a
	 * WRITE's extension, are read as headers too
	 */
	if (len > sizeof(struct mrc_hdr) &&
	    !pskb_may_pull(skb, sizeof(struct udphdr) +
			   min_t(unsigned int, len, mrc_hdr_pull_len(skb)))) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_NOMEM);
		goto drop;
	}
	verdict = mrc_hdr_check(skb->data + sizeof(struct udphdr), len,
				mrc_settings(mn)->max_msg_size);
	if (verdict != MRC_HDR_OK) {
		MRC_INC_STATS(mn, mrc_hdr_drop_mib[verdict]);
		goto drop;
	}
	h = mrc_skb_hdr(skb);
	mrc_cb(skb)->flags = mrc_skb_ce(skb) ? MRC_CB_CE : 0;

	if (h->type == MRC_PKT_SYN) {
		mrc_rcv_listen(mn, skb, h);
		goto drop;
	}

	csk = mrc_conn_lookup(mn, ntohl(h->dst_cid));
	if (!csk) {
		if (h->type == MRC_PKT_CONFIRM) {
			mrc_rcv_listen(mn, skb, h);
			goto drop;
		}
		MRC_INC_STATS(mn, MRC_MIB_DROP_NO_CONN);
		mrc_send_rst_reply(mn, skb, h, false);
		goto drop;
	}
	mrc_rcv_locked(mn, csk, skb);
	sock_put(csk);
	return 0;
drop:
	kfree_skb(skb);
	return 0;
}
