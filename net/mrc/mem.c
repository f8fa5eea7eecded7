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
