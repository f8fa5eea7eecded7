// SPDX-License-Identifier: GPL-2.0
/* mrc socket calls: bind, listen, accept, connect, sendmsg, recvmsg, poll,
 * shutdown, close and the socket options, for IPv4 and IPv6 sockets; the
 * struct proto of both.
 */
#include <linux/poll.h>
#include <linux/sched/signal.h>
#include <net/addrconf.h>
#include <net/inet_common.h>
#include <net/route.h>
#include <net/ipv6.h>
#include <net/sock.h>
#include <net/transp_v6.h>

#include "compat.h"
#include "protocol.h"

/**
 * mrc_sock_init_fields() - reset mrc's part of a socket
 * @sk: a new socket, or a fresh clone of a listener
 */
void mrc_sock_init_fields(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	const struct mrc_settings *s;
	int i;

	memset((char *)msk + offsetof(struct mrc_sock, node), 0,
	       sizeof(*msk) - offsetof(struct mrc_sock, node));
	for (i = 0; i < MRC_LATE_PKTS; i++)
		msk->late[i].evi = MRC_EV_NONE;
	INIT_HLIST_NODE(&msk->port_node);
	spin_lock_init(&msk->accept_lock);
	INIT_LIST_HEAD(&msk->accept_queue);
	INIT_LIST_HEAD(&msk->accept_node);
	mutex_init(&msk->send_lock);
	xa_init_flags(&msk->mrs, XA_FLAGS_ALLOC);
	__skb_queue_head_init(&msk->rsp_queue);
	INIT_LIST_HEAD(&msk->tsorted);
	mrc_timer_init(sk);
	rcu_read_lock();
	s = mrc_settings(mrc_sk_pernet(sk));
	mrc_conn_start_cc(sk, s);
	msk->rto_us = clamp_t(u32, MRC_INIT_RTO_US, s->rto_min_us,
			      s->rto_max_us);
	rcu_read_unlock();
	msk->peer_rwnd = MRC_PKT_OVERHEAD * 4;
}

/* Can a message be queued now? */
static bool mrc_may_send(struct sock *sk)
{
	return READ_ONCE(sk->sk_wmem_queued) < READ_ONCE(sk->sk_sndbuf);
}

/* Acknowledged packets were freed: wake writers if a message fits, the
 * one in the middle of a message too (TASK_KILLABLE, see mrc_send_sleep()).
 */
static void mrc_write_space(struct sock *sk)
{
	struct socket_wq *wq;

	if (!sk->sk_socket || !mrc_may_send(sk))
		return;
	clear_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
	rcu_read_lock();
	wq = rcu_dereference(sk->sk_wq);
	if (skwq_has_sleeper(wq))
		wake_up_poll(&wq->wait, EPOLLOUT | EPOLLWRNORM | EPOLLWRBAND);
	if (wq && wq->fasync_list && !(sk->sk_shutdown & SEND_SHUTDOWN))
		sock_wake_async(wq, SOCK_WAKE_SPACE, POLL_OUT);
	rcu_read_unlock();
}

static int mrc_sk_init(struct sock *sk)
{
	mrc_net_tunnels_want(sock_net(sk));
	mrc_sock_init_fields(sk);
	mrc_mem_sock_added(sk);
	sk->sk_state = TCP_CLOSE;
	sk->sk_write_space = mrc_write_space;
	sock_set_flag(sk, SOCK_RCU_FREE);
	return 0;
}

/**
 * mrc_sock_error() - report an error to the application
 * @sk: the socket, locked
 * @err: positive errno
 */
void mrc_sock_error(struct sock *sk, int err)
{
	WRITE_ONCE(sk->sk_err, err);
	sk_error_report(sk);
}

/* Turn a user address into a v4-mapped or v6 address and an mrc port. */
static int mrc_get_addr(struct sock *sk, struct sockaddr *uaddr, int len,
			struct in6_addr *addr, u16 *port)
{
	if (sk->sk_family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)uaddr;

		if (len < sizeof(*sin))
			return -EINVAL;
		if (sin->sin_family != AF_INET)
			return -EAFNOSUPPORT;
		ipv6_addr_set_v4mapped(sin->sin_addr.s_addr, addr);
		*port = ntohs(sin->sin_port);
		return 0;
	}
	if (len >= sizeof(struct sockaddr_in6) &&
	    uaddr->sa_family == AF_INET6) {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)uaddr;

		if (ipv6_addr_v4mapped(&sin6->sin6_addr) && ipv6_only_sock(sk))
			return -ENETUNREACH;
		if (ipv6_addr_type(&sin6->sin6_addr) & IPV6_ADDR_LINKLOCAL)
			return -EINVAL;	/* scope ids are not supported */
		*addr = sin6->sin6_addr;
		*port = ntohs(sin6->sin6_port);
		return 0;
	}
	if (len < sizeof(struct sockaddr_in6) && uaddr->sa_family == AF_INET6)
		return -EINVAL;
	return -EAFNOSUPPORT;
}

static void mrc_set_local_addr(struct sock *sk, const struct in6_addr *a)
{
	struct inet_sock *inet = inet_sk(sk);

	mrc_sk(sk)->saddr = *a;
	if (ipv6_addr_v4mapped(a)) {
		inet->inet_rcv_saddr = a->s6_addr32[3];
		inet->inet_saddr = a->s6_addr32[3];
	}
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6) {
		sk->sk_v6_rcv_saddr = *a;
		inet6_sk(sk)->saddr = *a;
	}
#endif
}

static void mrc_set_peer_addr(struct sock *sk, const struct in6_addr *a,
			      u16 port)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct inet_sock *inet = inet_sk(sk);

	msk->peer = *a;
	msk->peer_port = port;
	msk->v4 = ipv6_addr_v4mapped(a);
	inet->inet_dport = htons(port);
	if (msk->v4)
		inet->inet_daddr = a->s6_addr32[3];
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6)
		sk->sk_v6_daddr = *a;
#endif
}

static int mrc_bind(struct socket *sock, struct sockaddr *uaddr, int len)
{
	struct sock *sk = sock->sk;
	struct in6_addr addr;
	u16 port;
	int err;

	err = mrc_get_addr(sk, uaddr, len, &addr, &port);
	if (err)
		return err;

	lock_sock(sk);
	err = -EINVAL;
	if (sk->sk_state != TCP_CLOSE || mrc_sk(sk)->port)
		goto out;
	if (!ipv6_addr_any(&addr) &&
	    !(ipv6_addr_v4mapped(&addr) && !addr.s6_addr32[3])) {
		bool local;

		if (ipv6_addr_v4mapped(&addr))
			local = inet_addr_type(sock_net(sk), addr.s6_addr32[3]) ==
				RTN_LOCAL;
		else
			local = ipv6_chk_addr(sock_net(sk), &addr, NULL, 0);
		err = -EADDRNOTAVAIL;
		if (!local)
			goto out;
		mrc_set_local_addr(sk, &addr);
	}
	err = mrc_port_bind(sk, port);
out:
	release_sock(sk);
	return err;
}

static int mrc_listen(struct socket *sock, int backlog)
{
	struct sock *sk = sock->sk;
	int err = 0;

	lock_sock(sk);
	/* a listener has no connection for memory regions to serve */
	if (sock->state != SS_UNCONNECTED ||
	    (sk->sk_state != TCP_CLOSE && sk->sk_state != TCP_LISTEN) ||
	    mrc_sk(sk)->mr_count) {
		err = -EINVAL;
		goto out;
	}
	if (!mrc_sk(sk)->port) {
		err = mrc_port_bind(sk, 0);
		if (err)
			goto out;
	}
	WRITE_ONCE(sk->sk_max_ack_backlog, backlog);
	inet_sk_set_state(sk, TCP_LISTEN);
out:
	release_sock(sk);
	return err;
}

static int mrc_accept(struct socket *sock, struct socket *newsock, int flags,
		      bool kern)
{
	struct sock *sk = sock->sk, *child;
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct mrc_sock *msk = mrc_sk(sk);
	long timeo;
	int err = 0;

	lock_sock(sk);
	if (sk->sk_state != TCP_LISTEN) {
		err = -EINVAL;
		goto out;
	}
	timeo = sock_rcvtimeo(sk, flags & O_NONBLOCK);
	add_wait_queue(sk_sleep(sk), &wait);
	while (list_empty_careful(&msk->accept_queue)) {
		if (!timeo) {
			err = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			err = sock_intr_errno(timeo);
			break;
		}
		sk_wait_event(sk, &timeo,
			      !list_empty_careful(&msk->accept_queue) ||
			      sk->sk_state != TCP_LISTEN, &wait);
		if (sk->sk_state != TCP_LISTEN) {
			err = -EINVAL;
			break;
		}
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	if (err)
		goto out;

	/* children join in softirq, without our socket lock */
	spin_lock_bh(&msk->accept_lock);
	child = &list_first_entry(&msk->accept_queue, struct mrc_sock,
				  accept_node)->inet.sk;
	list_del_init(&mrc_sk(child)->accept_node);
	sk_acceptq_removed(sk);
	spin_unlock_bh(&msk->accept_lock);

	lock_sock_nested(child, SINGLE_DEPTH_NESTING);
	mrc_mem_accept_memcg(child);
	sock_graft(child, newsock);
	newsock->state = SS_CONNECTED;
	mrc_sk_release_parent(child);
	release_sock(child);
	sock_put(child);	/* the accept queue's reference */
out:
	release_sock(sk);
	return err;
}

/* A connect attempt is over: what connect() returns (@ok on success). */
static int mrc_connect_result(struct socket *sock, struct sock *sk, int ok)
{
	if (sk->sk_state == TCP_CLOSE) {
		sock->state = SS_UNCONNECTED;
		return sock_error(sk) ? : -ECONNABORTED;
	}
	sock->state = SS_CONNECTED;
	return ok;
}

static int mrc_connect(struct socket *sock, struct sockaddr *uaddr, int len,
		       int flags)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *msk = mrc_sk(sk);
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct mrc_settings s;
	struct in6_addr addr;
	long timeo;
	u16 port;
	int err;

	if (len >= sizeof(uaddr->sa_family) && uaddr->sa_family == AF_UNSPEC)
		return -EOPNOTSUPP;	/* no disconnect: close the socket */
	err = mrc_get_addr(sk, uaddr, len, &addr, &port);
	if (err)
		return err;
	if (!port || ipv6_addr_any(&addr) ||
	    (ipv6_addr_v4mapped(&addr) && !addr.s6_addr32[3]))
		return -EINVAL;

	lock_sock(sk);
	switch (sock->state) {
	case SS_CONNECTED:
		err = -EISCONN;
		goto out;
	case SS_CONNECTING:
		if (sk->sk_state == TCP_SYN_SENT) {
			err = -EALREADY;
			goto wait;
		}
		/* a non-blocking connect ended: report a failure once */
		err = mrc_connect_result(sock, sk, -EISCONN);
		goto out;
	default:
		break;
	}
	err = -EINVAL;
	if (sk->sk_state != TCP_CLOSE || sk->sk_err)
		goto out;

	mrc_set_peer_addr(sk, &addr, port);
	err = mrc_route_mss(sk);
	if (err)
		goto out;
	mrc_set_local_addr(sk, &msk->saddr);
	if (!msk->port) {
		err = mrc_port_bind(sk, 0);
		if (err)
			goto out;
	}
	/* one snapshot for what the new connection takes from the settings */
	mrc_settings_copy(mrc_sk_pernet(sk), &s);
	err = mrc_conn_alloc_state(sk, &s, GFP_KERNEL);
	if (err)
		goto out;
	err = mrc_conn_hash(sk);
	if (err) {
		mrc_conn_free_state(sk);
		goto out;
	}
	msk->peer_udp = READ_ONCE(mrc_sk_pernet(sk)->port);
	msk->snd_una = get_random_u32();
	msk->snd_nxt = msk->snd_una;
	mrc_conn_start_cc(sk, &s);
	msk->max_msg = s.max_msg_size;
	msk->syn_start_ns = mrc_now_ns();
	msk->syn_sent_ns = msk->syn_start_ns;
	/* the first SYN's: a SYNACK echoes this one or a later one */
	msk->syn_tsval = mrc_now_us32();
	inet_sk_set_state(sk, TCP_SYN_SENT);
	sock->state = SS_CONNECTING;
	mrc_send_syn(sk, MRC_PKT_SYN);
	mrc_timer_arm(sk);
	err = -EINPROGRESS;
wait:
	timeo = sock_sndtimeo(sk, flags & O_NONBLOCK);
	if (!timeo)
		goto out;
	add_wait_queue(sk_sleep(sk), &wait);
	while (sk->sk_state == TCP_SYN_SENT) {
		if (signal_pending(current)) {
			err = sock_intr_errno(timeo);
			break;
		}
		if (!timeo) {
			err = -EINPROGRESS;
			break;
		}
		sk_wait_event(sk, &timeo, sk->sk_state != TCP_SYN_SENT, &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	if (sk->sk_state != TCP_SYN_SENT)
		err = mrc_connect_result(sock, sk, 0);
out:
	release_sock(sk);
	return err;
}

/* Why a sender waiting for room must stop now, or 0: the connection's
 * error, the end of sending, no time left or a signal.  In the middle of
 * a message (@rest) only the connection's end or a fatal signal stop it:
 * the message must be queued whole, before a FIN that shutdown() asked
 * for meanwhile (see mrc_shutdown()).
 */
static int mrc_send_wait_stop(struct sock *sk, long timeo, bool rest)
{
	int err;

	if (sk->sk_err) {
		err = sock_error(sk);
		return err ? : -EPIPE;
	}
	if (sk->sk_state != TCP_ESTABLISHED && sk->sk_state != TCP_CLOSE_WAIT)
		return -EPIPE;
	/* a shutdown(SHUT_WR) meanwhile waits for the end of the message */
	if (rest)
		return fatal_signal_pending(current) ? -EINTR : 0;
	if (sk->sk_shutdown & SEND_SHUTDOWN)
		return -EPIPE;
	if (!timeo)
		return -EAGAIN;
	if (signal_pending(current))
		return sock_intr_errno(timeo);
	return 0;
}

/* Sleep until @sk's wait queue is woken or *@timeo passes, with the
 * socket released meanwhile (sk_wait_event() without its condition: the
 * callers' loops test theirs).  In the middle of a message a signal must
 * not end the wait (nor make it spin), so it is TASK_KILLABLE, which
 * only mrc_write_space()'s wakeup reaches: the errors and state changes
 * that wake sockets wake interruptible sleepers only, so it also looks
 * again every MRC_SEND_RECHECK.
 */
#define MRC_SEND_RECHECK	(HZ / 5)

static void mrc_send_sleep(struct sock *sk, long *timeo, bool rest,
			   struct wait_queue_entry *wait)
{
	release_sock(sk);
	if (rest)
		wait_woken(wait, TASK_KILLABLE,
			   min_t(long, *timeo, MRC_SEND_RECHECK));
	else
		*timeo = wait_woken(wait, TASK_INTERRUPTIBLE, *timeo);
	lock_sock(sk);
}

static int mrc_wait_for_space(struct sock *sk, long *timeo, bool rest)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	int err = 0;

	add_wait_queue(sk_sleep(sk), &wait);
	for (;;) {
		/* the rest of a message goes before a FIN asked for */
		if (mrc_may_send(sk) && !sk->sk_err &&
		    (rest || !(sk->sk_shutdown & SEND_SHUTDOWN)) &&
		    (sk->sk_state == TCP_ESTABLISHED ||
		     sk->sk_state == TCP_CLOSE_WAIT))
			break;
		err = mrc_send_wait_stop(sk, *timeo, rest);
		if (err)
			break;
		set_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		mrc_send_sleep(sk, timeo, rest, &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	return err;
}

/* A WRITE waits for room in the ring of operations (mrc_op_room()):
 * completions read, or outcomes of operations that need none known.
 */
static int mrc_wait_for_op(struct sock *sk, long *timeo)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	int err = mrc_op_alloc(sk);

	if (err)
		return err;
	add_wait_queue(sk_sleep(sk), &wait);
	while (!mrc_op_room(sk)) {
		err = mrc_send_wait_stop(sk, *timeo, false);
		if (err)
			break;
		mrc_send_sleep(sk, timeo, false, &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	return err;
}

/* Put a WRITE's extension for its bytes @off on into @skb's data, and
 * its immediate if @last (the piece that ends it) and it has one.
 */
static void mrc_put_rdma_ext(struct sock *sk, struct sk_buff *skb,
			     const struct mrc_write *wr, size_t len,
			     size_t off, bool last)
{
	struct mrc_rdma_ext *x = skb_put(skb, sizeof(*x));
	struct mrc_imm_ext *ie;

	x->rkey = cpu_to_be64(wr->key);
	x->roffset = cpu_to_be64(wr->offset + off);
	x->op_id = htonl(mrc_sk(sk)->snd_op_id);
	x->op_len = htonl(len);
	if (last && (wr->flags & MRC_WRITE_IMM)) {
		ie = skb_put(skb, sizeof(*ie));
		ie->imm = htonl(wr->imm);
		ie->reserved = 0;
	}
}

/* The extension's bytes in a WRITE's (@wr) packets, which take room from
 * the payload: every packet of a WRITE with immediate leaves room for it.
 */
static size_t mrc_rdma_ext_len(const struct mrc_write *wr)
{
	if (!wr)
		return 0;
	return sizeof(struct mrc_rdma_ext) +
	       (wr->flags & MRC_WRITE_IMM ? sizeof(struct mrc_imm_ext) : 0);
}

/* Payload bytes in a packet of a message, or of a WRITE (@wr). */
static size_t mrc_pkt_payload(struct sock *sk, const struct mrc_write *wr)
{
	return mrc_sk(sk)->mss - mrc_rdma_ext_len(wr);
}

/* Copy @n bytes of the sender's buffer into page fragments of @skb, as
 * TCP does (sk_page_frag()): packets share the pages, and no packet needs
 * a linear buffer of its payload's size.  Its truesize grows by @n.  On an
 * error the iterator is where it was (the pages' bytes copied are lost).
 */
static int mrc_copy_to_frags(struct sock *sk, struct sk_buff *skb,
			     struct iov_iter *from, size_t n)
{
	struct page_frag *pfrag = sk_page_frag(sk);
	size_t done = 0;
	int err;

	while (done < n) {
		int i = skb_shinfo(skb)->nr_frags;
		bool merge;
		size_t copy;

		err = -ENOBUFS;
		if (!sk_page_frag_refill(sk, pfrag))
			goto fail;
		copy = min_t(size_t, n - done, pfrag->size - pfrag->offset);
		/* right after the last fragment's bytes: that one grows */
		merge = skb_can_coalesce(skb, i, pfrag->page, pfrag->offset);
		err = -EMSGSIZE;	/* an mss of pages cannot need it */
		if (!merge && i == MAX_SKB_FRAGS)
			goto fail;
		err = -EFAULT;
		if (!copy_from_iter_full(page_address(pfrag->page) +
					 pfrag->offset, copy, from))
			goto fail;
		if (merge) {
			skb_frag_size_add(&skb_shinfo(skb)->frags[i - 1], copy);
		} else {
			skb_fill_page_desc(skb, i, pfrag->page, pfrag->offset,
					   copy);
			get_page(pfrag->page);
		}
		pfrag->offset += copy;
		skb->len += copy;
		skb->data_len += copy;
		skb->truesize += copy;
		done += copy;
	}
	return 0;
fail:
	iov_iter_revert(from, done);
	return err;
}

/* Copy bytes @off to @off + @n of a message of @len bytes, or of a WRITE
 * (@wr), into packets on a private list, charged to nothing yet: the
 * headers in each one's linear part, the payload in page fragments.  On
 * an error the list is empty and the iterator is where it was.
 */
static int mrc_build_message(struct sock *sk, struct msghdr *msg,
			     size_t len, size_t off, size_t n,
			     const struct mrc_write *wr,
			     struct sk_buff_head *list)
{
	struct mrc_sock *msk = mrc_sk(sk);
	size_t end = off + n, copied = 0, pkt = mrc_pkt_payload(sk, wr);
	size_t ext = mrc_rdma_ext_len(wr);
	struct sk_buff *skb;
	int err;

	__skb_queue_head_init(list);
	do {
		size_t chunk = min_t(size_t, end - off, pkt);
		struct mrc_skb_cb *cb;

		skb = alloc_skb(MRC_HEADROOM + ext, sk->sk_allocation);
		if (!skb) {
			err = -ENOBUFS;
			goto fail;
		}
		skb_reserve(skb, MRC_HEADROOM);
		if (wr)
			mrc_put_rdma_ext(sk, skb, wr, len, off,
					 off + chunk == len);
		if (chunk) {
			err = mrc_copy_to_frags(sk, skb, &msg->msg_iter, chunk);
			if (err) {
				kfree_skb(skb);
				goto fail;
			}
		}
		copied += chunk;
		/* the headers of each transmission go into the headroom */
		__skb_header_release(skb);
		cb = mrc_cb(skb);
		memset(cb, 0, sizeof(*cb));
		/* a WRITE's piece: msg_id and msg_len 0, its offset in the
		 * operation
		 */
		if (!wr) {
			cb->msg_id = msk->snd_msg_id;
			cb->msg_len = len;
		}
		cb->offset = off;
		cb->len = chunk;
		off += chunk;
		if (wr) {
			/* its DATA flags in msg_id (mrc_xmit_data()) */
			cb->flags |= MRC_CB_RDMA;
			cb->msg_id = MRC_F_RDMA;
			if (off == len && mrc_op_report(sk, wr->flags))
				cb->msg_id |= MRC_F_REPORT;
			if (off == len && (wr->flags & MRC_WRITE_IMM))
				cb->msg_id |= MRC_F_IMM;
		} else if (off == len) {
			cb->flags |= MRC_CB_EOR;
		}
		__skb_queue_tail(list, skb);
	} while (off < end);
	return 0;
fail:
	__skb_queue_purge(list);
	iov_iter_revert(&msg->msg_iter, copied);
	return err;
}

/* Charge built packets to the socket and the protocol's pool (and the
 * memory cgroup) and queue them.  Over the pool's limit, wait as TCP does
 * (sk_stream_wait_memory()): a while at random, up to the send timeout,
 * for other sockets' memory to come back; then -EAGAIN.  The packets stay
 * built meanwhile; on an error the caller frees them.
 */
static int mrc_queue_list(struct sock *sk, struct sk_buff_head *list,
			  long *timeo, bool rest)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct sk_buff *skb;
	int size = 0, err = 0;

	skb_queue_walk(list, skb)
		size += skb->truesize;
	if (!sk_wmem_schedule(sk, size)) {
		add_wait_queue(sk_sleep(sk), &wait);
		while (!sk_wmem_schedule(sk, size)) {
			long pause = min_t(long, *timeo,
					   2 + get_random_u32_below(HZ / 5));

			err = mrc_send_wait_stop(sk, *timeo, rest);
			if (err)
				break;
			*timeo -= pause;
			mrc_send_sleep(sk, &pause, rest, &wait);
			*timeo += pause;
		}
		remove_wait_queue(sk_sleep(sk), &wait);
		if (err)
			return err;
	}
	skb_queue_walk(list, skb) {
		sk_wmem_queued_add(sk, skb->truesize);
		sk_mem_charge(sk, skb->truesize);
	}
	skb_queue_splice_tail_init(list, &sk->sk_write_queue);
	return 0;
}

/* Queue our FIN after the last message. */
static void mrc_queue_fin(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct sk_buff *skb;

	if (msk->fin_queued || !msk->rtx.slot)
		return;
	skb = alloc_skb(MRC_HEADROOM, sk->sk_allocation | __GFP_NOFAIL);
	skb_reserve(skb, MRC_HEADROOM);
	__skb_header_release(skb);
	memset(mrc_cb(skb), 0, sizeof(struct mrc_skb_cb));
	mrc_cb(skb)->msg_id = msk->snd_msg_id;
	mrc_cb(skb)->flags = MRC_CB_FIN;
	/* one small packet per connection, which close() cannot fail to
	 * queue: counted in the socket's queue, not in the pool
	 */
	sk_wmem_queued_add(sk, skb->truesize);
	__skb_queue_tail(&sk->sk_write_queue, skb);
	msk->fin_queued = true;
	if (sk->sk_state == TCP_ESTABLISHED)
		inet_sk_set_state(sk, TCP_FIN_WAIT1);
	mrc_push(sk);
}

/* How much of the @left bytes still to queue to build now: what the send
 * buffer has room for (a packet's truesize is at most about twice its
 * payload: a 512-byte head for its headers, its payload in page
 * fragments),
 * at least a packet and at most MRC_SEND_CHUNK_PKTS, so that the first
 * packets leave before a large message is copied whole.  In whole
 * packets of @mss payload bytes: a piece ends where a packet does.
 */
#define MRC_SEND_CHUNK_PKTS	64

static size_t mrc_send_chunk(struct sock *sk, size_t left, size_t mss)
{
	int room = READ_ONCE(sk->sk_sndbuf) - READ_ONCE(sk->sk_wmem_queued);
	size_t n = room > 0 ? rounddown((size_t)room / 2, mss) : 0;

	n = clamp_t(size_t, n, mss, MRC_SEND_CHUNK_PKTS * mss);
	return min(n, left);
}

/* The truesize of the whole message of @len bytes whose first @n bytes
 * were built into @list, in 64-bit arithmetic.
 */
static u64 mrc_message_truesize(struct sk_buff_head *list, size_t n,
				size_t len)
{
	struct sk_buff *skb;
	u64 size = 0;

	skb_queue_walk(list, skb)
		size += skb->truesize;
	return n ? div64_u64(size * len + n - 1, n) : size;
}

/* Queue a message of @len bytes in pieces, pushing each so that its
 * first packets leave while the rest is copied, and taking the ACKs that
 * waited meanwhile.  A blocking sender builds each piece as the send
 * buffer has room; a non-blocking one queues the message whole, in
 * pieces of MRC_SEND_CHUNK_PKTS, once it knows the pool has room for all
 * of it.  The send timeout and signals apply until the first piece is
 * queued; after it the message is queued whole, or the connection is
 * reset: a fatal signal, a bad buffer (EFAULT) or the end of the
 * connection cut it, and its first pieces may have left.
 */
static int mrc_send_message(struct sock *sk, struct msghdr *msg, size_t len,
			    const struct mrc_write *wr, long timeo)
{
	struct mrc_sock *msk = mrc_sk(sk);
	long forever = MAX_SCHEDULE_TIMEOUT;
	size_t pkt = mrc_pkt_payload(sk, wr);
	bool nonblock = !timeo;
	struct sk_buff_head list;
	size_t off = 0, n;
	int err;

	err = mrc_wait_for_space(sk, &timeo, false);
	if (err)
		return err;
	msk->snd_partial = true;
	do {
		bool rest = off != 0;

		n = nonblock ? min_t(size_t, len - off,
				     MRC_SEND_CHUNK_PKTS * pkt) :
			       mrc_send_chunk(sk, len - off, pkt);
		err = mrc_build_message(sk, msg, len, off, n, wr, &list);
		if (!err && nonblock && !rest && n < len &&
		    !mrc_mem_room(sk, mrc_message_truesize(&list, n, len))) {
			__skb_queue_purge(&list);
			iov_iter_revert(&msg->msg_iter, n);
			err = -EAGAIN;
			break;
		}
		if (err == -ENOBUFS && rest) {
			/* no memory for a piece: wait for some, as for the
			 * pool
			 */
			long pause = 2 + get_random_u32_below(HZ / 5);
			DEFINE_WAIT_FUNC(wait, woken_wake_function);

			add_wait_queue(sk_sleep(sk), &wait);
			mrc_send_sleep(sk, &pause, true, &wait);
			remove_wait_queue(sk_sleep(sk), &wait);
			err = mrc_send_wait_stop(sk, forever, true);
			continue;
		}
		if (!err)
			err = mrc_queue_list(sk, &list, rest ? &forever : &timeo,
					     rest);
		if (err) {
			__skb_queue_purge(&list);
			break;
		}
		/* its outcome comes once its first piece may leave */
		if (wr && !rest)
			mrc_op_add(sk, wr->cookie, wr->flags);
		off += n;
		mrc_push(sk);
		if (off < len) {
			sk_flush_backlog(sk);
			err = nonblock ? mrc_send_wait_stop(sk, forever, true) :
					 mrc_wait_for_space(sk, &forever, true);
		}
	} while (!err && off < len);

	msk->snd_partial = false;
	if (!err && wr) {
		msk->snd_op_id++;
		msk->stats.writes_sent++;
	} else if (!err) {
		msk->snd_msg_id++;
	}
	/* a message cut short: the stream cannot go on without the rest */
	if (err && off && sk->sk_state != TCP_CLOSE)
		mrc_conn_abort(sk, ECONNABORTED, true);
	else if ((sk->sk_shutdown & SEND_SHUTDOWN) &&
		 (sk->sk_state == TCP_ESTABLISHED ||
		  sk->sk_state == TCP_CLOSE_WAIT))
		mrc_queue_fin(sk);	/* asked for while we slept */
	return err;
}

/* Queue READ @rd: one empty packet asks the peer for the bytes, which
 * its response places into our region when they come.  The local region
 * is checked once the socket has room for the request, and again as each
 * piece comes (it may be deregistered meanwhile: the READ fails, ENOKEY).
 */
static int mrc_send_read(struct sock *sk, const struct mrc_read *rd,
			 long timeo)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct sk_buff_head list;
	struct mrc_rdma_ext *x;
	struct sk_buff *skb;
	int err;

	err = mrc_wait_for_space(sk, &timeo, false);
	if (err)
		return err;
	err = mrc_mr_local(sk, rd->local_key, rd->local_offset, rd->len);
	if (err)
		return err;
	skb = alloc_skb(MRC_HEADROOM + sizeof(*x), sk->sk_allocation);
	if (!skb)
		return -ENOBUFS;
	skb_reserve(skb, MRC_HEADROOM);
	x = skb_put(skb, sizeof(*x));
	x->rkey = cpu_to_be64(rd->key);
	x->roffset = cpu_to_be64(rd->offset);
	x->op_id = htonl(msk->snd_op_id);
	x->op_len = htonl(rd->len);
	__skb_header_release(skb);
	memset(mrc_cb(skb), 0, sizeof(struct mrc_skb_cb));
	mrc_cb(skb)->flags = MRC_CB_RDMA;
	mrc_cb(skb)->msg_id = MRC_F_RDMA | MRC_F_READ;
	__skb_queue_head_init(&list);
	__skb_queue_tail(&list, skb);
	err = mrc_queue_list(sk, &list, &timeo, false);
	if (err) {
		__skb_queue_purge(&list);
		return err;
	}
	mrc_op_add_read(sk, rd);
	msk->snd_op_id++;
	msk->stats.reads_sent++;
	mrc_push(sk);
	return 0;
}

/* The control messages of a sendmsg: a WRITE (MRC_CMSG_WRITE) fills @wr,
 * a READ (MRC_CMSG_READ) @rd; returns its type, or 0 for none, -EINVAL
 * for a malformed or unknown one, or more than one.
 */
static int mrc_send_cmsgs(struct msghdr *msg, size_t len,
			  struct mrc_write *wr, struct mrc_read *rd)
{
	struct cmsghdr *cmsg;
	int found = 0;

	for_each_cmsghdr(cmsg, msg) {
		if (!CMSG_OK(msg, cmsg) || cmsg->cmsg_level != SOL_MRC ||
		    found)
			return -EINVAL;
		if (cmsg->cmsg_type == MRC_CMSG_WRITE &&
		    cmsg->cmsg_len == CMSG_LEN(sizeof(*wr))) {
			memcpy(wr, CMSG_DATA(cmsg), sizeof(*wr));
			if ((wr->flags & ~(MRC_WRITE_SIGNAL | MRC_WRITE_IMM)) ||
			    (wr->imm && !(wr->flags & MRC_WRITE_IMM)))
				return -EINVAL;
			/* the last byte's offset must not wrap: the peer
			 * would drop every piece after it (mrc_hdr_check())
			 */
			if (wr->offset + len < wr->offset)
				return -EINVAL;
		} else if (cmsg->cmsg_type == MRC_CMSG_READ &&
			   cmsg->cmsg_len == CMSG_LEN(sizeof(*rd))) {
			memcpy(rd, CMSG_DATA(cmsg), sizeof(*rd));
			/* the bytes come into a region, not from the iov */
			if ((rd->flags & ~MRC_READ_SIGNAL) || len ||
			    rd->len > MRC_READ_LEN_MAX ||
			    rd->offset + rd->len < rd->offset)
				return -EINVAL;
		} else {
			return -EINVAL;
		}
		found = cmsg->cmsg_type;
	}
	return found;
}

static int mrc_sendmsg(struct socket *sock, struct msghdr *msg, size_t len)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_write wr;
	struct mrc_read rd;
	u32 max_msg;
	long timeo;
	int err, op;

	if (msg->msg_flags & ~(MSG_DONTWAIT | MSG_NOSIGNAL | MSG_EOR))
		return -EOPNOTSUPP;
	if (msg->msg_name)
		return sk->sk_state == TCP_LISTEN ? -EOPNOTSUPP : -EISCONN;
	op = mrc_send_cmsgs(msg, len, &wr, &rd);
	if (op < 0)
		return op;
	rcu_read_lock();
	max_msg = mrc_settings(mn)->max_msg_size;
	rcu_read_unlock();
	/* a WRITE is not queued at the peer: max_msg_size is not its */
	if (len > (op ? MRC_WRITE_LEN_MAX : max_msg))
		return -EMSGSIZE;

	if (mutex_lock_interruptible(&msk->send_lock))
		return -ERESTARTSYS;
	lock_sock(sk);
	timeo = sock_sndtimeo(sk, msg->msg_flags & MSG_DONTWAIT);

	if (sk->sk_state == TCP_SYN_SENT) {
		DEFINE_WAIT_FUNC(wait, woken_wake_function);

		add_wait_queue(sk_sleep(sk), &wait);
		while (sk->sk_state == TCP_SYN_SENT && timeo &&
		       !signal_pending(current))
			sk_wait_event(sk, &timeo,
				      sk->sk_state != TCP_SYN_SENT, &wait);
		remove_wait_queue(sk_sleep(sk), &wait);
		if (sk->sk_state == TCP_SYN_SENT) {
			err = timeo ? sock_intr_errno(timeo) : -EAGAIN;
			goto out;
		}
	}
	if (sk->sk_state != TCP_ESTABLISHED && sk->sk_state != TCP_CLOSE_WAIT &&
	    !sk->sk_err) {
		err = (sk->sk_shutdown & SEND_SHUTDOWN) ? -EPIPE : -ENOTCONN;
		goto out;
	}
	/* the peer said in the handshake what it takes */
	if (!op && msk->peer_max_msg && len > msk->peer_max_msg) {
		err = -EMSGSIZE;
		goto out;
	}
	if (op) {
		err = mrc_wait_for_op(sk, &timeo);
		if (err)
			goto out;
	}
	if (op == MRC_CMSG_READ)
		err = mrc_send_read(sk, &rd, timeo);
	else
		err = mrc_send_message(sk, msg, len, op ? &wr : NULL, timeo);
	if (err)
		goto out;
	err = len;
out:
	release_sock(sk);
	mutex_unlock(&msk->send_lock);
	if (err == -EPIPE && !(msg->msg_flags & MSG_NOSIGNAL))
		send_sig(SIGPIPE, current, 0);
	return err;
}

/* The peer's address as the socket's family sees it; its length. */
static int mrc_peer_sockaddr(struct sock *sk, void *addr)
{
	struct mrc_sock *msk = mrc_sk(sk);

	if (sk->sk_family == AF_INET) {
		struct sockaddr_in *sin = addr;

		sin->sin_family = AF_INET;
		sin->sin_port = htons(msk->peer_port);
		sin->sin_addr.s_addr = msk->peer.s6_addr32[3];
		memset(sin->sin_zero, 0, sizeof(sin->sin_zero));
		return sizeof(*sin);
	}
	struct sockaddr_in6 *sin6 = addr;

	memset(sin6, 0, sizeof(*sin6));
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(msk->peer_port);
	sin6->sin6_addr = msk->peer;
	return sizeof(*sin6);
}

/* Tell the peer its window opened once reading freed enough. */
static void mrc_window_update(struct sock *sk, u32 before)
{
	struct mrc_sock *msk = mrc_sk(sk);
	u32 now = mrc_rcv_window(sk);

	if (!msk->rcv_ofo.slot || sk->sk_state == TCP_CLOSE)
		return;
	if (now >= before + READ_ONCE(sk->sk_rcvbuf) / 4 ||
	    (before < 4 * MRC_PKT_OVERHEAD && now >= 4 * MRC_PKT_OVERHEAD)) {
		MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_WINDOW_UPDATE);
		mrc_send_ack_echo(sk, msk->rcv_nxt - 1, 0, 0, 0);
	}
}

/* The head of the receive queue is the notification of a WRITE with
 * immediate, @skb: an empty message with MRC_CMSG_IMM (MSG_CTRUNC if the
 * control buffer cannot hold it).
 */
static int mrc_recv_imm(struct sock *sk, struct msghdr *msg,
			struct sk_buff *skb, bool peek)
{
	int err = put_cmsg(msg, SOL_MRC, MRC_CMSG_IMM, sizeof(struct mrc_imm),
			   skb->data);

	if (err)
		return err;
	msg->msg_flags |= MSG_EOR;
	if (!peek) {
		__skb_unlink(skb, &sk->sk_receive_queue);
		mrc_sk(sk)->rcv_complete--;
		kfree_skb(skb);
		if (!mrc_sk(sk)->rcv_queued)
			mrc_mem_reserve_put(sk);
	}
	return 0;
}

static int mrc_recvmsg(struct socket *sock, struct msghdr *msg, size_t len,
		       int flags)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *msk = mrc_sk(sk);
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	size_t copied = 0, off;
	unsigned int nfull = 0;
	u32 win_before, want;
	struct sk_buff *skb;
	bool peek = flags & MSG_PEEK;
	long timeo;
	int err = 0;

	if (flags & ~(MSG_DONTWAIT | MSG_PEEK | MSG_TRUNC | MSG_WAITALL |
		      MSG_CMSG_COMPAT | MSG_NOSIGNAL | MSG_ERRQUEUE))
		return -EOPNOTSUPP;
	if (flags & MSG_ERRQUEUE)
		return mrc_op_recv_completions(sk, msg);

	lock_sock(sk);
	if (sk->sk_state == TCP_LISTEN) {
		err = -ENOTCONN;
		goto out;
	}
	timeo = sock_rcvtimeo(sk, flags & MSG_DONTWAIT);
	add_wait_queue(sk_sleep(sk), &wait);
	while (!mrc_readable(sk, len)) {
		if (sk->sk_err) {
			err = sock_error(sk);
			break;
		}
		if (sk->sk_shutdown & RCV_SHUTDOWN || msk->fin_rcvd ||
		    sk->sk_state == TCP_CLOSE) {
			if (!msk->rcv_queued) {
				if (sk->sk_state == TCP_CLOSE &&
				    !(sk->sk_shutdown & RCV_SHUTDOWN))
					err = -ENOTCONN;
				break;	/* end of the peer's messages: 0 */
			}
			break;	/* deliver what is left, piece by piece */
		}
		if (!timeo) {
			err = -EAGAIN;
			break;
		}
		if (signal_pending(current)) {
			err = sock_intr_errno(timeo);
			break;
		}
		/* pieces wake us once they make this call return */
		want = clamp_t(size_t, len, 1, U32_MAX);
		if (!msk->rcv_lowat || want < msk->rcv_lowat)
			WRITE_ONCE(msk->rcv_lowat, want);
		sk_wait_event(sk, &timeo, mrc_readable(sk, len) ||
			      sk->sk_err || msk->fin_rcvd ||
			      (sk->sk_shutdown & RCV_SHUTDOWN) ||
			      sk->sk_state == TCP_CLOSE, &wait);
	}
	remove_wait_queue(sk_sleep(sk), &wait);
	/* an empty message has no bytes queued, but is there to read */
	if (err || skb_queue_empty(&sk->sk_receive_queue))
		goto out;

	win_before = mrc_rcv_window(sk);
	skb = skb_peek(&sk->sk_receive_queue);
	if (mrc_cb(skb)->flags & MRC_CB_IMM) {
		err = mrc_recv_imm(sk, msg, skb, peek);
		goto update;
	}
	off = msk->rcv_head_off;
	skb_queue_walk(&sk->sk_receive_queue, skb) {
		size_t n = min_t(size_t, skb->len - off, len - copied);

		if (n) {
			err = skb_copy_datagram_msg(skb, off, msg, n);
			if (err)
				goto out;
		}
		copied += n;
		off += n;
		if (off < skb->len)
			break;		/* the user's buffer is full */
		nfull++;
		off = 0;
		if (mrc_cb(skb)->flags & MRC_CB_EOR) {
			msg->msg_flags |= MSG_EOR;
			break;
		}
	}
	err = copied;

	if ((flags & MSG_TRUNC) && !(msg->msg_flags & MSG_EOR) &&
	    msk->rcv_complete) {
		/* discard the rest of a complete message, like a datagram,
		 * and return its whole length
		 */
		size_t rest = 0;
		int i = 0;

		skb_queue_walk(&sk->sk_receive_queue, skb) {
			if (i++ < nfull)
				continue;
			rest += skb->len - off;
			off = 0;
			nfull++;
			if (mrc_cb(skb)->flags & MRC_CB_EOR)
				break;
		}
		msg->msg_flags |= MSG_TRUNC | MSG_EOR;
		err = copied + rest;
	}
	if (!peek)
		mrc_recv_consume(sk, nfull, off);
update:
	if (msg->msg_name)
		msg->msg_namelen = mrc_peer_sockaddr(sk, msg->msg_name);
	if (!peek)
		mrc_window_update(sk, win_before);
out:
	release_sock(sk);
	return err;
}

/**
 * mrc_recv_consume() - drop what recvmsg read from the receive queue
 * @sk: the connection, locked
 * @nfull: pieces read to their end
 * @off: bytes read of the piece after them
 */
void mrc_recv_consume(struct sock *sk, unsigned int nfull, size_t off)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct sk_buff *skb;

	while (nfull--) {
		skb = __skb_dequeue(&sk->sk_receive_queue);
		msk->rcv_queued -= skb->len - msk->rcv_head_off;
		msk->rcv_head_off = 0;
		if (mrc_cb(skb)->flags & MRC_CB_EOR)
			msk->rcv_complete--;
		kfree_skb(skb);
	}
	msk->rcv_queued -= off - msk->rcv_head_off;
	msk->rcv_head_off = off;
	if (!msk->rcv_queued)
		mrc_mem_reserve_put(sk);
}

static __poll_t mrc_poll(struct file *file, struct socket *sock,
			 poll_table *wait)
{
	struct sock *sk = sock->sk;
	struct mrc_sock *msk = mrc_sk(sk);
	__poll_t mask = 0;
	int state;

	sock_poll_wait(file, sock, wait);
	state = inet_sk_state_load(sk);
	if (state == TCP_LISTEN)
		return list_empty_careful(&msk->accept_queue) ? 0 :
		       EPOLLIN | EPOLLRDNORM;

	if (READ_ONCE(sk->sk_err) || mrc_op_pending(sk))
		mask |= EPOLLERR;
	if (READ_ONCE(sk->sk_shutdown) == SHUTDOWN_MASK ||
	    (state == TCP_CLOSE && sock->state != SS_UNCONNECTED))
		mask |= EPOLLHUP;
	if (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN || msk->fin_rcvd)
		mask |= EPOLLIN | EPOLLRDNORM | EPOLLRDHUP;
	/* what recvmsg() returns to any buffer: no POLLIN for a piece that
	 * it would wait to grow
	 */
	if (mrc_readable(sk, SIZE_MAX))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (state == TCP_ESTABLISHED || state == TCP_CLOSE_WAIT) {
		if (!(READ_ONCE(sk->sk_shutdown) & SEND_SHUTDOWN)) {
			if (mrc_may_send(sk))
				mask |= EPOLLOUT | EPOLLWRNORM;
			else
				set_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		}
	}
	return mask;
}

static int mrc_shutdown(struct socket *sock, int how)
{
	struct sock *sk = sock->sk;
	int err = 0;

	how++;	/* SHUT_RD -> RCV_SHUTDOWN, ... */
	if (how & ~SHUTDOWN_MASK || !how)
		return -EINVAL;

	lock_sock(sk);
	if (sk->sk_state == TCP_LISTEN) {
		if (how & RCV_SHUTDOWN) {
			inet_sk_set_state(sk, TCP_CLOSE);
			mrc_listen_stop(sk);
			sk->sk_state_change(sk);
		}
		goto out;
	}
	if (sock->state != SS_CONNECTED && sock->state != SS_CONNECTING) {
		err = -ENOTCONN;
		goto out;
	}
	sk->sk_shutdown |= how;
	/* not in the middle of a message: its sender queues the FIN after
	 * the message's last piece
	 */
	if ((how & SEND_SHUTDOWN) && !mrc_sk(sk)->snd_partial &&
	    (sk->sk_state == TCP_ESTABLISHED || sk->sk_state == TCP_CLOSE_WAIT))
		mrc_queue_fin(sk);
	sk->sk_state_change(sk);
out:
	release_sock(sk);
	return err;
}

/* All our messages (and FIN) are acknowledged, or the connection ended. */
static bool mrc_close_done(const struct sock *sk)
{
	return sk->sk_state == TCP_CLOSE || mrc_sk(sk)->fin_acked;
}

static void mrc_close(struct sock *sk, long timeout)
{
	DEFINE_WAIT_FUNC(wait, woken_wake_function);
	struct mrc_sock *msk = mrc_sk(sk);

	lock_sock(sk);
	sk->sk_shutdown = SHUTDOWN_MASK;
	/* no placement into them once close() has begun */
	mrc_mr_release_all(sk);
	if (sk->sk_state == TCP_LISTEN) {
		inet_sk_set_state(sk, TCP_CLOSE);
		mrc_listen_stop(sk);
	} else if (sk->sk_state == TCP_SYN_SENT) {
		mrc_conn_done(sk);
	} else if (sk->sk_state != TCP_CLOSE) {
		if (msk->rcv_queued || skb_peek(&sk->sk_receive_queue) ||
		    (sock_flag(sk, SOCK_LINGER) && !sk->sk_lingertime)) {
			/* unread messages, or linger 0: abort */
			mrc_conn_abort(sk, ECONNRESET, true);
		} else {
			mrc_queue_fin(sk);
			if (timeout && !mrc_close_done(sk)) {
				add_wait_queue(sk_sleep(sk), &wait);
				while (!mrc_close_done(sk) && timeout &&
				       !signal_pending(current))
					sk_wait_event(sk, &timeout,
						      mrc_close_done(sk), &wait);
				remove_wait_queue(sk_sleep(sk), &wait);
			}
		}
	}

	sock_hold(sk);
	sock_orphan(sk);
	/* an orphan needs nothing from the peer once its FIN is acknowledged */
	if (sk->sk_state != TCP_CLOSE && sk->sk_state != TCP_LISTEN &&
	    msk->fin_acked) {
		inet_sk_set_state(sk, TCP_CLOSE);
		mrc_conn_free_state(sk);
	}
	if (sk->sk_state == TCP_CLOSE) {
		/* nothing left to deliver: free it now */
		mrc_conn_free_state(sk);
		mrc_port_unbind(sk);
		mrc_timer_stop(sk);
		mrc_conn_unhash(sk);
		release_sock(sk);
		sk_common_release(sk);
	} else {
		/* the connection delivers the rest on its own, bounded by
		 * the connection timeout; mrc_conn_done() frees it
		 */
		MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_CONN_ORPHANED);
		if (!mrc_orphan_add(sk)) {
			MRC_INC_STATS(mrc_sk_pernet(sk),
				      MRC_MIB_ORPHAN_ABORTED);
			mrc_conn_abort(sk, ECONNRESET, true);
		}
		release_sock(sk);
	}
	sock_put(sk);
}

static void mrc_unhash(struct sock *sk)
{
	mrc_port_unbind(sk);
	mrc_conn_unhash(sk);
}

static void mrc_release_cb(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	if (test_and_clear_bit(MRC_DEFERRED_TIMER, &msk->deferred)) {
		mrc_timer_handle(sk);
		__sock_put(sk);
	}
}

static void mrc_destroy(struct sock *sk)
{
	/* close() released them, in process context */
	MRC_DEBUG_WARN_ON_ONCE(!xa_empty(&mrc_sk(sk)->mrs));
	mrc_conn_free_state(sk);
	mrc_rcv_purge(sk);
	kfree(mrc_sk(sk)->ops);
	mrc_sk(sk)->ops = NULL;
}

/* IPV6_V6ONLY is the one IPv6 option that matters to mrc sockets. */
static int mrc_set_v6only(struct sock *sk, sockptr_t optval,
			  unsigned int optlen)
{
	int val, err = 0;

	if (sk->sk_family != AF_INET6)
		return -ENOPROTOOPT;
	if (optlen < sizeof(int))
		return -EINVAL;
	if (copy_from_sockptr(&val, optval, sizeof(val)))
		return -EFAULT;
	lock_sock(sk);
	if (sk->sk_state != TCP_CLOSE || mrc_sk(sk)->port)
		err = -EINVAL;
	else
		sk->sk_ipv6only = !!val;
	release_sock(sk);
	return err;
}

/* MRC_EV_COUNT, MRC_EV_POLICY and MRC_CC: before connect() or listen(). */
static int mrc_set_ev_opt(struct sock *sk, int optname, sockptr_t optval,
			  unsigned int optlen)
{
	struct mrc_sock *msk = mrc_sk(sk);
	int val, err = 0;

	if (optlen < sizeof(int))
		return -EINVAL;
	if (copy_from_sockptr(&val, optval, sizeof(val)))
		return -EFAULT;
	if (optname == MRC_EV_COUNT ? val < 0 || val > MRC_EV_COUNT_LIMIT :
	    val < -1 || val > (optname == MRC_CC ? MRC_CC_RENO :
			       MRC_EV_POLICY_REPS))
		return -EINVAL;
	lock_sock(sk);
	if (sk->sk_state == TCP_LISTEN)
		err = -EINVAL;
	else if (sk->sk_state != TCP_CLOSE)
		err = -EISCONN;
	else if (optname == MRC_EV_COUNT)
		msk->opt_ev_count = val;
	else if (optname == MRC_CC)
		msk->opt_cc = val + 1;
	else
		msk->opt_ev_policy = val + 1;
	release_sock(sk);
	return err;
}

static int mrc_setsockopt(struct socket *sock, int level, int optname,
			  sockptr_t optval, unsigned int optlen)
{
	if (level == SOL_IPV6 && optname == IPV6_V6ONLY)
		return mrc_set_v6only(sock->sk, optval, optlen);
	if (level != SOL_MRC)
		return -ENOPROTOOPT;
	switch (optname) {
	case MRC_EV_COUNT:
	case MRC_EV_POLICY:
	case MRC_CC:
		return mrc_set_ev_opt(sock->sk, optname, optval, optlen);
	case MRC_MR_DEREG: {
		u64 key;

		if (optlen < sizeof(key))
			return -EINVAL;
		if (copy_from_sockptr(&key, optval, sizeof(key)))
			return -EFAULT;
		return mrc_mr_deregister(sock->sk, key);
	}
	case MRC_INFO:
	case MRC_MR_REG:
		return -EOPNOTSUPP;	/* getsockopt */
	default:
		return -ENOPROTOOPT;
	}
}

static void mrc_fill_info(struct sock *sk, struct mrc_info *info)
{
	struct mrc_sock *msk = mrc_sk(sk);

	memset(info, 0, sizeof(*info));
	info->mrci_version = MRC_INFO_VERSION;
	info->mrci_state = sk->sk_state;
	info->mrci_srtt_us = msk->srtt_us;
	info->mrci_rttvar_us = msk->rttvar_us;
	info->mrci_rto_us = msk->rto_us;
	info->mrci_cwnd = msk->cc.cwnd;
	info->mrci_ssthresh = msk->cc.ssthresh;
	info->mrci_in_flight = msk->in_flight;
	info->mrci_peer_rwnd = msk->peer_rwnd;
	info->mrci_rcv_window = mrc_rcv_window(sk);
	info->mrci_mss = msk->mss;
	info->mrci_evs = msk->evset.nr_pos;
	info->mrci_local_cid = msk->local_cid;
	info->mrci_peer_cid = msk->peer_cid;
	info->mrci_bytes_sent = msk->stats.bytes_sent;
	info->mrci_bytes_received = msk->stats.bytes_received;
	info->mrci_msgs_sent = msk->stats.msgs_sent;
	info->mrci_msgs_received = msk->stats.msgs_received;
	info->mrci_pkts_sent = msk->stats.pkts_sent;
	info->mrci_pkts_received = msk->stats.pkts_received;
	info->mrci_retrans = msk->stats.retrans;
	info->mrci_lost = msk->stats.lost;
	info->mrci_rto_count = msk->stats.rto;
	info->mrci_ce = msk->stats.ce;
	info->mrci_snd_una = msk->snd_una;
	info->mrci_snd_nxt = msk->snd_nxt;
	info->mrci_rcv_nxt = msk->rcv_nxt;
	if (msk->evset.nr_evs) {
		u16 n[4];

		mrc_evset_count(&msk->evset, n);
		info->mrci_ev_good = n[MRC_EV_GOOD];
		info->mrci_ev_skip = n[MRC_EV_SKIP];
		info->mrci_ev_bad = n[MRC_EV_BAD];
		info->mrci_ev_denied = n[MRC_EV_DENIED];
	}
	if (msk->evset.nr_evs) {
		info->mrci_ev_policy = msk->ev_policy;
	} else if (msk->opt_ev_policy) {
		info->mrci_ev_policy = msk->opt_ev_policy - 1;
	} else {
		rcu_read_lock();
		info->mrci_ev_policy =
			mrc_settings(mrc_sk_pernet(sk))->ev_policy;
		rcu_read_unlock();
	}
	info->mrci_ev_changes = msk->evset.changes;
	info->mrci_cc = msk->cc.algo;
	info->mrci_cc_alpha = msk->cc.alpha;
	info->mrci_base_rtt_us = msk->cc.base_rtt_us;
	info->mrci_queue_delay_us = msk->cc.delay_us;
	info->mrci_mr_count = msk->mr_count;
	info->mrci_mr_bytes = msk->mr_bytes;
	info->mrci_writes_sent = msk->stats.writes_sent;
	info->mrci_write_bytes_in = msk->stats.write_bytes_in;
	info->mrci_write_refused = msk->stats.write_refused;
	info->mrci_reads_sent = msk->stats.reads_sent;
	info->mrci_read_bytes_in = msk->stats.read_bytes_in;
	info->mrci_read_bytes_out = msk->stats.read_bytes_out;
	info->mrci_ops_waiting = msk->op_end - msk->op_done;
	info->mrci_ops_unread = msk->op_done - msk->op_read;
	info->mrci_reads_queued = mrc_rsp_reads(sk);
}

/* MRC_MR_REG: the request in, its key out, in the caller's buffer. */
static int mrc_get_mr_reg(struct sock *sk, char __user *optval,
			  int __user *optlen, int len)
{
	struct mrc_mr_reg reg;
	int err;

	if (len < sizeof(reg))
		return -EINVAL;
	if (copy_from_user(&reg, optval, sizeof(reg)))
		return -EFAULT;
	err = mrc_mr_register(sk, &reg);
	if (err)
		return err;
	if (put_user((int)sizeof(reg), optlen) ||
	    copy_to_user(optval, &reg, sizeof(reg))) {
		/* the caller cannot learn the key: no region */
		mrc_mr_deregister(sk, reg.key);
		return -EFAULT;
	}
	return 0;
}

static int mrc_getsockopt(struct socket *sock, int level, int optname,
			  char __user *optval, int __user *optlen)
{
	struct sock *sk = sock->sk;
	struct mrc_info info;
	int len;

	if (level != SOL_MRC && !(level == SOL_IPV6 && optname == IPV6_V6ONLY))
		return -ENOPROTOOPT;
	if (get_user(len, optlen))
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	if (level == SOL_IPV6) {
		int val = sk->sk_ipv6only;

		if (sk->sk_family != AF_INET6)
			return -ENOPROTOOPT;
		len = min_t(unsigned int, len, sizeof(val));
		if (put_user(len, optlen) || copy_to_user(optval, &val, len))
			return -EFAULT;
		return 0;
	}

	switch (optname) {
	case MRC_EV_COUNT:
	case MRC_EV_POLICY:
	case MRC_CC: {
		int val = optname == MRC_EV_COUNT ? mrc_sk(sk)->opt_ev_count :
			  optname == MRC_CC ? (int)mrc_sk(sk)->opt_cc - 1 :
			  (int)mrc_sk(sk)->opt_ev_policy - 1;

		len = min_t(unsigned int, len, sizeof(val));
		if (put_user(len, optlen) || copy_to_user(optval, &val, len))
			return -EFAULT;
		return 0;
	}
	case MRC_MR_REG:
		return mrc_get_mr_reg(sk, optval, optlen, len);
	case MRC_INFO:
		lock_sock(sk);
		mrc_fill_info(sk, &info);
		release_sock(sk);
		len = min_t(unsigned int, len, sizeof(info));
		if (put_user(len, optlen) || copy_to_user(optval, &info, len))
			return -EFAULT;
		return 0;
	default:
		return -ENOPROTOOPT;
	}
}

#define MRC_PROTO_COMMON					\
	.owner		= THIS_MODULE,				\
	.init		= mrc_sk_init,				\
	.close		= mrc_close,				\
	.destroy	= mrc_destroy,				\
	.unhash		= mrc_unhash,				\
	.backlog_rcv	= mrc_backlog_rcv,			\
	.release_cb	= mrc_release_cb

struct proto mrc_prot = {
	.name		= "MRC",
	.obj_size	= sizeof(struct mrc_sock),
	MRC_PROTO_COMMON,
};

struct proto mrcv6_prot = {
	.name		= "MRCv6",
	.obj_size	= sizeof(struct mrc6_sock),
	MRC_PROTO_IPV6_PINFO_OFFSET(struct mrc6_sock, inet6)
	MRC_PROTO_COMMON,
};

#define MRC_OPS_COMMON					\
	.owner		= THIS_MODULE,			\
	.bind		= mrc_bind,			\
	.connect	= mrc_connect,			\
	.socketpair	= sock_no_socketpair,		\
	.accept		= mrc_accept,			\
	.poll		= mrc_poll,			\
	.ioctl		= sock_no_ioctl,		\
	.listen		= mrc_listen,			\
	.shutdown	= mrc_shutdown,			\
	.setsockopt	= mrc_setsockopt,		\
	.getsockopt	= mrc_getsockopt,		\
	.sendmsg	= mrc_sendmsg,			\
	.recvmsg	= mrc_recvmsg,			\
	.mmap		= sock_no_mmap

const struct proto_ops mrc_inet_ops = {
	.family		= PF_INET,
	.release	= inet_release,
	.getname	= inet_getname,
	MRC_OPS_COMMON,
};

#if IS_ENABLED(CONFIG_IPV6)
const struct proto_ops mrc_inet6_ops = {
	.family		= PF_INET6,
	.release	= inet6_release,
	.getname	= inet6_getname,
	MRC_OPS_COMMON,
};
#endif
