// SPDX-License-Identifier: GPL-2.0
/* mrc one-sided operations at their initiator: the operations a socket
 * sent, their outcomes as the peer's status records tell them, and the
 * completions the application reads from the error queue.
 *
 * The peer sends a status record (DATA with MRC_F_STATUS) for each
 * operation that failed there and each whose last piece asked for one
 * (MRC_F_REPORT), in op_id order, in its reliable stream; we take them in
 * order.  A record for operation X ends X and, successfully, every older
 * one still waiting: none of those got a record, so none failed.  So the
 * outcome of an operation that asked for none is known at the next
 * record; we ask for one every MRC_OPS_MAX / 4 operations whatever the
 * application asked, so that the ring never fills with operations
 * nobody will hear about.
 *
 * A READ needs no record when it succeeds: the last piece of its response
 * ends it when the walk in order passes it (mrc_op_read_end()), every
 * byte placed, in the same order as records (the peer serves READs and
 * sends records in op_id order, in one stream).
 */
#include <net/sock.h>

#include "protocol.h"

/* Every this many operations, one asks for a record whatever its flags. */
#define MRC_OP_REPORT_EVERY	(MRC_OPS_MAX / 4)

static const int mrc_op_errno[__MRC_OP_MAX] = {
	[MRC_OP_OK]		= 0,
	[MRC_OP_BAD_KEY]	= ENOKEY,
	[MRC_OP_BAD_ACCESS]	= EACCES,
	[MRC_OP_BAD_RANGE]	= ERANGE,
};

static struct mrc_op *mrc_op_at(struct mrc_sock *msk, u32 op_id)
{
	return &msk->ops[op_id % MRC_OPS_MAX];
}

/* Does @op_id name an operation we sent whose outcome is not known? */
static bool mrc_op_waiting(const struct mrc_sock *msk, u32 op_id)
{
	return msk->ops && op_id - msk->op_done < msk->op_end - msk->op_done;
}

/* Is @op's outcome for the application to read? */
static bool mrc_op_visible(const struct mrc_op *op)
{
	return op->error || (op->flags & MRC_WRITE_SIGNAL);
}

/**
 * mrc_op_room() - may another operation start?
 * @sk: the socket, locked
 *
 * Return: true when fewer than MRC_OPS_MAX operations wait for their
 * outcome or for the application to read it.
 */
bool mrc_op_room(const struct sock *sk)
{
	const struct mrc_sock *msk = mrc_sk(sk);

	return msk->op_end - msk->op_read < MRC_OPS_MAX;
}

/**
 * mrc_op_alloc() - the socket's ring of operations, at its first one
 * @sk: the socket, locked, in process context
 *
 * Return: 0 or -ENOBUFS.
 */
int mrc_op_alloc(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	if (msk->ops)
		return 0;
	msk->ops = kcalloc(MRC_OPS_MAX, sizeof(*msk->ops), sk->sk_allocation);
	return msk->ops ? 0 : -ENOBUFS;
}

/**
 * mrc_op_report() - does the operation being queued ask for a record?
 * @sk: the socket, locked
 * @flags: its struct mrc_write.flags
 *
 * Return: true for a signaled operation, and for one in every
 * MRC_OP_REPORT_EVERY.
 */
bool mrc_op_report(const struct sock *sk, u32 flags)
{
	return (flags & MRC_WRITE_SIGNAL) ||
	       mrc_sk(sk)->snd_op_id % MRC_OP_REPORT_EVERY ==
	       MRC_OP_REPORT_EVERY - 1;
}

/**
 * mrc_op_add() - an operation's first piece is queued
 * @sk: the socket, locked, with room (mrc_op_room())
 * @cookie: struct mrc_write.cookie
 * @flags: struct mrc_write.flags
 */
void mrc_op_add(struct sock *sk, u64 cookie, u32 flags)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_op *op = mrc_op_at(msk, msk->op_end);

	op->cookie = cookie;
	op->flags = flags;
	op->error = 0;
	msk->op_end++;
}

/**
 * mrc_op_add_read() - a READ request is queued
 * @sk: the socket, locked, with room (mrc_op_room())
 * @rd: the READ, its local region checked (mrc_mr_local())
 */
void mrc_op_add_read(struct sock *sk, const struct mrc_read *rd)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_op *op = mrc_op_at(msk, msk->op_end);

	mrc_op_add(sk, rd->cookie, rd->flags | MRC_OP_READ);
	op->lkey = rd->local_key;
	op->loff = rd->local_offset;
	op->len = rd->len;
}

/* Pass over the outcomes nobody reads (successes not signaled) at the
 * head; wake a writer that waited for room if there is some now.
 */
static void mrc_op_skip(struct sock *sk, bool was_full)
{
	struct mrc_sock *msk = mrc_sk(sk);

	while (msk->op_read != msk->op_done &&
	       !mrc_op_visible(mrc_op_at(msk, msk->op_read)))
		WRITE_ONCE(msk->op_read, msk->op_read + 1);
	if (was_full && mrc_op_room(sk))
		sk->sk_write_space(sk);
}

/* The outcomes of the operations before @end are known now: tell the
 * reader if any is for it.
 */
static void mrc_op_settle(struct sock *sk, u32 end)
{
	struct mrc_sock *msk = mrc_sk(sk);

	WRITE_ONCE(msk->op_done, end);
	mrc_op_skip(sk, !mrc_op_room(sk));
	if (msk->op_read != msk->op_done)
		sk_error_report(sk);
}

/**
 * mrc_op_status() - the peer's status record, taken in order
 * @sk: the connection, locked
 * @op_id: the operation it names
 * @status: enum mrc_op_result, validated (mrc_hdr_check())
 */
void mrc_op_status(struct sock *sk, u32 op_id, u8 status)
{
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_op *op;

	/* the oldest waiting operation or a later one we sent */
	if (!mrc_op_waiting(msk, op_id)) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_BAD_STATUS);
		return;
	}
	MRC_INC_STATS(mn, MRC_MIB_IN_STATUS);
	/* the ones before it got no record: they succeeded; a READ may
	 * have failed here already
	 */
	op = mrc_op_at(msk, op_id);
	if (status != MRC_OP_OK || !(op->flags & MRC_OP_READ))
		op->error = mrc_op_errno[status];
	mrc_op_settle(sk, op_id + 1);
}

/**
 * mrc_op_read_find() - the READ a piece of a response is for
 * @sk: the connection, locked
 * @op_id: the piece's op_id
 * @len: its op_len, the READ's length
 *
 * Return: the READ, whose outcome is not known yet, or NULL when @op_id
 * names no such READ of @len bytes.
 */
struct mrc_op *mrc_op_read_find(struct sock *sk, u32 op_id, u32 len)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_op *op;

	if (!mrc_op_waiting(msk, op_id))
		return NULL;
	op = mrc_op_at(msk, op_id);
	if (!(op->flags & MRC_OP_READ) || op->len != len)
		return NULL;
	return op;
}

/**
 * mrc_op_read_end() - the walk in order passed the last piece of READ
 * @op_id's response: its outcome, and that of every older operation
 * @sk: the connection, locked
 * @op_id: the READ, found by mrc_op_read_find() when the piece came
 */
void mrc_op_read_end(struct sock *sk, u32 op_id)
{
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);

	/* a status record (from a lying peer) ended it meanwhile */
	if (!mrc_op_waiting(msk, op_id)) {
		MRC_INC_STATS(mn, MRC_MIB_DROP_BAD_RESP);
		return;
	}
	MRC_INC_STATS(mn, MRC_MIB_READ_DONE);
	/* the ones before it got no record: they succeeded */
	mrc_op_settle(sk, op_id + 1);
}

/**
 * mrc_op_end_all() - the connection ended: the outcome of the operations
 * still waiting
 * @sk: the connection, locked
 * @err: 0 when it ended in order (both FINs taken: the peer had taken
 *       every piece and sent every record before its FIN), or the error
 *       that ended it
 */
void mrc_op_end_all(struct sock *sk, int err)
{
	struct mrc_sock *msk = mrc_sk(sk);
	u32 id;

	if (!msk->ops || msk->op_done == msk->op_end)
		return;
	for (id = msk->op_done; id != msk->op_end; id++)
		mrc_op_at(msk, id)->error = err;
	mrc_op_settle(sk, msk->op_end);
}

/**
 * mrc_op_pending() - are completions waiting to be read?
 * @sk: the socket, locked or not (poll)
 *
 * Return: true if recvmsg(MSG_ERRQUEUE) has one to return.
 */
bool mrc_op_pending(const struct sock *sk)
{
	const struct mrc_sock *msk = mrc_sk(sk);

	return READ_ONCE(msk->op_read) != READ_ONCE(msk->op_done);
}

/**
 * mrc_op_recv_completions() - recvmsg(MSG_ERRQUEUE): completions read
 * @sk: the socket
 * @msg: where they go, one MRC_CMSG_COMPLETION each, as many as fit
 *
 * Never waits.
 *
 * Return: 0, -EAGAIN when there is none, -EINVAL when not even one fits
 * in the control buffer, -EFAULT.
 */
int mrc_op_recv_completions(struct sock *sk, struct msghdr *msg)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_completion c = {};
	struct mrc_op *op;
	int err = 0, n = 0;
	bool full;

	lock_sock(sk);
	full = !mrc_op_room(sk);
	while (msk->op_read != msk->op_done) {
		/* the native size is the larger: a compat caller may get
		 * one fewer than would fit
		 */
		if (msg->msg_controllen < CMSG_SPACE(sizeof(c))) {
			if (!n)
				err = -EINVAL;
			break;
		}
		op = mrc_op_at(msk, msk->op_read);
		c.cookie = op->cookie;
		c.error = op->error;
		err = put_cmsg(msg, SOL_MRC, MRC_CMSG_COMPLETION, sizeof(c), &c);
		if (err)
			break;
		n++;
		WRITE_ONCE(msk->op_read, msk->op_read + 1);
		mrc_op_skip(sk, false);
	}
	if (full && mrc_op_room(sk))
		sk->sk_write_space(sk);
	release_sock(sk);
	if (!err && !n)
		return -EAGAIN;
	if (n)
		msg->msg_flags |= MSG_ERRQUEUE;
	return n ? 0 : err;
}
