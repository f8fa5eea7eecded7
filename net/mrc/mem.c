// SPDX-License-Identifier: GPL-2.0
/* mrc memory: the protocol-wide pool every socket's send and receive
 * memory is charged to (as tcp_mem is TCP's, charged to the memory cgroup
 * as well), its sysctls under net.mrc, and the count of orphans.
 */
#include <linux/mm.h>
#include <linux/percpu_counter.h>
#include <linux/sysctl.h>
#include <net/inet_common.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "protocol.h"

/* net.mrc.mem: pages; below [0] no pressure, above [1] pressure, above
 * [2] no more allocations (only each socket's minimum, mrc_rmem_min).
 */
static long sysctl_mrc_mem[3];
/* net.mrc.max_orphans */
static int sysctl_mrc_max_orphans;

static atomic_long_t mrc_memory_allocated;
static DEFINE_PER_CPU(int, mrc_memory_per_cpu_fw_alloc);
static struct percpu_counter mrc_sockets_allocated;
static struct percpu_counter mrc_orphans;
static unsigned long mrc_memory_pressure;

/* Each socket may always hold this much, under pressure or over the
 * limit: one packet of the largest MTU, so that a connection still makes
 * progress, slowly.
 */
static int mrc_rmem_min = 4 * PAGE_SIZE;
static int mrc_wmem_min = 4 * PAGE_SIZE;

static struct ctl_table_header *mrc_sysctl_header;

/**
 * mrc_mem_rmem_min() - what each socket may always receive
 *
 * Return: bytes.
 */
int mrc_mem_rmem_min(void)
{
	return mrc_rmem_min;
}

/* The pool's pages in use, counting what the per-CPU batches hold back
 * from the shared counter (up to sysctl_mem_pcpu_rsv each way per CPU:
 * the pages that sockets give back sit there until a batch is full, so
 * the shared counter alone may say "full" for ever when less than a
 * batch was freed).
 */
static long mrc_mem_used(void)
{
	long used = atomic_long_read(&mrc_memory_allocated);
	int cpu;

	for_each_possible_cpu(cpu)
		used += READ_ONCE(per_cpu(mrc_memory_per_cpu_fw_alloc, cpu));
	return used;
}

/* Beyond the pool's limit, a reserve for the packets receivers wait for
 * in order (mrc_mem_force_rmem()): each receiver that draws on it holds
 * at most MRC_RESERVE_PAGES of it until its reader has taken everything,
 * and an eighth of the limit's worth of receivers may at once, however
 * many sockets there are.
 */
#define MRC_RESERVE_PAGES	8
static atomic_t mrc_reserve_users;

/**
 * mrc_mem_force_rmem() - charge a packet a receiver waits for, over the limit
 * @sk: the receiving socket, locked, which sk_rmem_schedule() refused
 * @size: the packet's truesize
 *
 * A connection whose reader has less than mrc_rmem_min waiting may take
 * the packet it waits for in order even when the pool is over its limit,
 * else connections whose unacknowledged data fills the pool would starve
 * each other's receivers for ever (the caller decides which packet that
 * is).  Those charges come from one reserve of an eighth of the limit:
 * 10,000 sockets do not take 10,000 x 16 KiB.  It is counted in
 * receivers, not pages: the shared counter may lag the pages in use by a
 * per-CPU batch (sysctl_mem_pcpu_rsv) each way, more than the reserve
 * when the limit is small, and a reserve judged by it could stay "full"
 * for ever.  Not for a socket charged to a memory cgroup, which cannot be
 * charged by force here.
 *
 * Return: true if the charge was made (to the socket's forward
 * allocation, which sk_mem_charge() then takes).
 */
bool mrc_mem_force_rmem(struct sock *sk, int size)
{
	long users = sk_prot_mem_limits(sk, 2) / 8 / MRC_RESERVE_PAGES;
	struct mrc_sock *msk = mrc_sk(sk);
	int amt;

	if (mem_cgroup_sockets_enabled && sk->sk_memcg)
		return false;
	amt = sk_mem_pages(size - sk->sk_forward_alloc);
	if (msk->rcv_reserve_pages + amt > MRC_RESERVE_PAGES)
		return false;
	if (!msk->rcv_reserve_pages &&
	    atomic_inc_return(&mrc_reserve_users) > max(users, 1L)) {
		atomic_dec(&mrc_reserve_users);
		return false;
	}
	msk->rcv_reserve_pages += amt;
	/* to the shared counter: the per-CPU batch's limit is not exported */
	atomic_long_add(amt, &mrc_memory_allocated);
	sk_forward_alloc_add(sk, amt << PAGE_SHIFT);
	return true;
}

/**
 * mrc_mem_reserve_users() - how many receivers draw on the reserve
 *
 * Return: their number.
 */
int mrc_mem_reserve_users(void)
{
	return atomic_read(&mrc_reserve_users);
}

/**
 * mrc_mem_reserve_put() - a receiver no longer draws on the reserve
 * @sk: the socket, locked or unreachable, whose reader has taken
 *	everything that was queued in order (or who is going)
 */
void mrc_mem_reserve_put(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	if (!msk->rcv_reserve_pages)
		return;
	msk->rcv_reserve_pages = 0;
	atomic_dec(&mrc_reserve_users);
}

/**
 * mrc_mem_room() - has the pool room for a message's packets now?
 * @sk: the sending socket
 * @size: their truesize in all, in 64-bit arithmetic (a message of
 *	max_msg_size may take more than 2 GiB)
 *
 * What a non-blocking sender asks before it queues the first piece of a
 * message it must then queue whole.  Other sockets may take the room
 * before the last piece is charged; the sender then waits for memory.
 *
 * Return: true if the pool's limit would not be passed.
 */
bool mrc_mem_room(const struct sock *sk, u64 size)
{
	long limit = sk_prot_mem_limits(sk, 2) - max(mrc_mem_used(), 0L);

	return limit > 0 && DIV_ROUND_UP_ULL(size, PAGE_SIZE) <= (u64)limit;
}

static struct ctl_table mrc_sysctl_table[] = {
	{
		.procname	= "mem",
		.data		= &sysctl_mrc_mem,
		.maxlen		= sizeof(sysctl_mrc_mem),
		.mode		= 0644,
		.proc_handler	= proc_doulongvec_minmax,
	},
	{
		.procname	= "max_orphans",
		.data		= &sysctl_mrc_max_orphans,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec_minmax,
		.extra1		= SYSCTL_ZERO,
	},
	{ }
};

static void mrc_enter_memory_pressure(struct sock *sk)
{
	if (!READ_ONCE(mrc_memory_pressure))
		WRITE_ONCE(mrc_memory_pressure, 1);
}

static void mrc_leave_memory_pressure(struct sock *sk)
{
	if (READ_ONCE(mrc_memory_pressure))
		WRITE_ONCE(mrc_memory_pressure, 0);
}

/**
 * mrc_mem_proto_init() - give a protocol the pool's accounting
 * @prot: mrc_prot or mrcv6_prot, before proto_register()
 *
 * Both families share one pool, as TCP's do.
 */
void mrc_mem_proto_init(struct proto *prot)
{
	prot->memory_allocated = &mrc_memory_allocated;
	prot->per_cpu_fw_alloc = &mrc_memory_per_cpu_fw_alloc;
	prot->sockets_allocated = &mrc_sockets_allocated;
	prot->memory_pressure = &mrc_memory_pressure;
	prot->enter_memory_pressure = mrc_enter_memory_pressure;
	prot->leave_memory_pressure = mrc_leave_memory_pressure;
	prot->sysctl_mem = sysctl_mrc_mem;
	prot->sysctl_rmem = &mrc_rmem_min;
	prot->sysctl_wmem = &mrc_wmem_min;
}

/**
 * mrc_mem_init() - the pool's defaults, counters and sysctls
 *
 * The defaults follow TCP's rule (tcp_init_mem()): from 1/16 of the
 * memory free for buffers, pressure at 1/12 and the limit at 1/8.
 *
 * Return: 0 or a negative errno.
 */
int mrc_mem_init(void)
{
	unsigned long base = max(nr_free_buffer_pages() / 16, 128UL);
	int err;

	sysctl_mrc_mem[0] = base;
	sysctl_mrc_mem[1] = base / 3 * 4;
	sysctl_mrc_mem[2] = base * 2;
	sysctl_mrc_max_orphans = 65536;
	err = percpu_counter_init(&mrc_sockets_allocated, 0, GFP_KERNEL);
	if (err)
		return err;
	err = percpu_counter_init(&mrc_orphans, 0, GFP_KERNEL);
	if (err)
		goto err_sockets;
	mrc_sysctl_header = register_net_sysctl(&init_net, "net/mrc",
						mrc_sysctl_table);
	if (!mrc_sysctl_header) {
		err = -ENOMEM;
		goto err_orphans;
	}
	return 0;

err_orphans:
	percpu_counter_destroy(&mrc_orphans);
err_sockets:
	percpu_counter_destroy(&mrc_sockets_allocated);
	return err;
}

/**
 * mrc_mem_exit() - undo mrc_mem_init(); no socket is left
 */
void mrc_mem_exit(void)
{
	unregister_net_sysctl_table(mrc_sysctl_header);
	percpu_counter_destroy(&mrc_orphans);
	percpu_counter_destroy(&mrc_sockets_allocated);
}

/* sk_destruct of every mrc socket: the socket leaves the counts, the
 * protocol's (sockets_allocated, which memory pressure weighs) and its
 * namespace's (/proc/net/protocols).
 */
static void mrc_sock_destruct(struct sock *sk)
{
	mrc_mem_reserve_put(sk);
	percpu_counter_dec(&mrc_sockets_allocated);
	sock_prot_inuse_add(sock_net(sk), sk->sk_prot, -1);
	inet_sock_destruct(sk);
}

/**
 * mrc_mem_sock_added() - a socket made by socket() is counted
 * @sk: the new socket
 */
void mrc_mem_sock_added(struct sock *sk)
{
	percpu_counter_inc(&mrc_sockets_allocated);
	sock_prot_inuse_add(sock_net(sk), sk->sk_prot, 1);
	sk->sk_destruct = mrc_sock_destruct;
}

/**
 * mrc_mem_child_added() - a listener's child is counted
 * @sk: the child, just made by sk_clone_lock()
 *
 * sk_clone_lock() has counted it in sockets_allocated already and copied
 * the listener's destructor (mrc_sock_destruct()); its namespace's count
 * is ours to move.
 */
void mrc_mem_child_added(struct sock *sk)
{
	sock_prot_inuse_add(sock_net(sk), sk->sk_prot, 1);
}

/**
 * mrc_mem_child_free() - free a child that never became a connection
 * @sk: the child, bh-locked, counted by mrc_mem_child_added()
 *
 * sk_free_unlock_clone() runs no destructor: the counts are undone here.
 */
void mrc_mem_child_free(struct sock *sk)
{
	percpu_counter_dec(&mrc_sockets_allocated);
	sock_prot_inuse_add(sock_net(sk), sk->sk_prot, -1);
	sk_free_unlock_clone(sk);
}

/**
 * mrc_mem_sockets() - how many mrc sockets exist, in every namespace
 *
 * Return: the protocol's sockets_allocated, summed exactly.
 */
s64 mrc_mem_sockets(void)
{
	return percpu_counter_sum(&mrc_sockets_allocated);
}

/**
 * mrc_mem_accept_memcg() - charge an accepted child to the acceptor's cgroup
 * @child: a listener's child being accepted, locked by its owner
 *
 * A child is made in softirq, where no memory cgroup applies: as
 * inet_csk_accept() does for TCP, it joins the memory cgroup of the task
 * that accepts it, which is charged what the child already holds (its
 * receive queue and forward allocation; it has sent nothing yet), so
 * that what is later uncharged was charged.  mem_cgroup_sk_alloc() and
 * mem_cgroup_charge_skmem() are not exported: the cgroup is taken from a
 * socket that sk_alloc() makes for this in process context (so the
 * kernel's own rules apply: none for the root cgroup, socket accounting
 * active on cgroup v1), and the pages are charged by __sk_mem_schedule(),
 * whose charge to the pool, already made, is given back at once.  When
 * the cgroup has no room for them, the child stays outside it, as before.
 */
void mrc_mem_accept_memcg(struct sock *child)
{
	struct sock *tmp;
	int amt;

	if (!mem_cgroup_sockets_enabled || child->sk_memcg)
		return;
	tmp = sk_alloc(sock_net(child), child->sk_family, GFP_KERNEL,
		       child->sk_prot, 1);
	if (!tmp)
		return;
	if (!tmp->sk_memcg)
		goto out;
	child->sk_memcg = tmp->sk_memcg;
	amt = sk_mem_pages(child->sk_forward_alloc +
			   atomic_read(&child->sk_rmem_alloc));
	if (amt) {
		if (!__sk_mem_schedule(child, amt << PAGE_SHIFT,
				       SK_MEM_RECV)) {
			child->sk_memcg = NULL;	/* tmp's reference goes */
			goto out;
		}
		sk_forward_alloc_add(child, -(amt << PAGE_SHIFT));
		/* the shared counter (see mrc_rmem_schedule()) */
		atomic_long_sub(amt, child->sk_prot->memory_allocated);
	}
	tmp->sk_memcg = NULL;	/* its reference is the child's now */
out:
	sk_free(tmp);
}

/**
 * mrc_orphan_add() - a closed socket goes on delivering on its own
 * @sk: the connection, locked
 *
 * Return: false when there are already net.mrc.max_orphans orphans: the
 * caller resets the connection instead.
 */
bool mrc_orphan_add(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	if (percpu_counter_read_positive(&mrc_orphans) >=
	    READ_ONCE(sysctl_mrc_max_orphans))
		return false;
	percpu_counter_inc(&mrc_orphans);
	msk->orphan_counted = true;
	msk->progress_ns = mrc_now_ns();
	return true;
}

/**
 * mrc_orphan_done() - an orphan's connection is over
 * @sk: the connection, locked or unreachable
 */
void mrc_orphan_done(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);

	if (!msk->orphan_counted)
		return;
	msk->orphan_counted = false;
	percpu_counter_dec(&mrc_orphans);
}
