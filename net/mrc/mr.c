// SPDX-License-Identifier: GPL-2.0
/* mrc memory regions: registration (MRC_MR_REG), deregistration
 * (MRC_MR_DEREG) and their release when the socket is closed.
 *
 * A region's pages are pinned for its life (FOLL_LONGTERM: the memory
 * the peer's operations will reach into, as RDMA's) and charged, as
 * RDMA's ib_umem does, to the registering process's mm->pinned_vm against
 * RLIMIT_MEMLOCK unless it has CAP_IPC_LOCK.  The table is changed under
 * the socket lock, in process context; its entries are the xarray's, so
 * that a lookup is an index and a compare of the whole key.
 */
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/sock.h>

#include "protocol.h"

/* pin_user_pages_fast() takes an int count: pin in pieces */
#define MRC_MR_PIN_CHUNK	BIT(16)

static void mrc_mr_unpin(struct mrc_mr *mr, unsigned long npages)
{
	/* what the peer or our READs may have written is dirty */
	unpin_user_pages_dirty_lock(mr->pages, npages,
				    mr->access & MRC_MR_LOCAL_WRITE);
}

/* Process context: unpinning may sleep (the page lock of a dirty page). */
static void mrc_mr_free(struct mrc_mr *mr)
{
	mrc_mr_unpin(mr, mr->npages);
	atomic64_sub(mr->npages, &mr->mm->pinned_vm);
	mmdrop(mr->mm);
	kvfree(mr->pages);
	kfree(mr);
}

/* Charge @npages to the caller's pinned_vm, as ib_umem_get() does. */
static int mrc_mr_charge(struct mm_struct *mm, unsigned long npages)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	u64 pinned = atomic64_add_return(npages, &mm->pinned_vm);

	if (pinned > limit && !capable(CAP_IPC_LOCK)) {
		atomic64_sub(npages, &mm->pinned_vm);
		return -ENOMEM;
	}
	return 0;
}

/* Pin the region's pages into mr->pages; all of them, or none. */
static int mrc_mr_pin(struct mrc_mr *mr)
{
	unsigned int gup = FOLL_LONGTERM;
	unsigned long done = 0;
	int n;

	if (mr->access & MRC_MR_LOCAL_WRITE)
		gup |= FOLL_WRITE;
	while (done < mr->npages) {
		n = pin_user_pages_fast((mr->addr & PAGE_MASK) +
					done * PAGE_SIZE,
					min(mr->npages - done,
					    MRC_MR_PIN_CHUNK),
					gup, mr->pages + done);
		if (n <= 0) {
			mrc_mr_unpin(mr, done);
			return n ? n : -EFAULT;
		}
		done += n;
		if (fatal_signal_pending(current) && done < mr->npages) {
			mrc_mr_unpin(mr, done);
			return -EINTR;
		}
	}
	return 0;
}

/**
 * mrc_mr_register() - MRC_MR_REG: register a region of the caller's memory
 * @sk: the socket, not locked
 * @reg: the request; its key is filled in
 *
 * Return: 0; -EINVAL for a malformed request (mrc_mr_check()) or a
 * listening socket; -EFAULT when
 * the range is not mapped (or, for MRC_MR_REMOTE_WRITE, not writable);
 * -ENOMEM over RLIMIT_MEMLOCK or without memory; -ENOSPC when the socket
 * has MRC_MR_MAX regions.
 */
int mrc_mr_register(struct sock *sk, struct mrc_mr_reg *reg)
{
	struct mrc_net *mn = mrc_sk_pernet(sk);
	struct mrc_sock *msk = mrc_sk(sk);
	struct mm_struct *mm = current->mm;
	unsigned long npages;
	struct mrc_mr *mr;
	u32 idx;
	int err;

	err = mrc_mr_check(reg, &npages);
	if (err)
		return err;
	if (!mm)
		return -EFAULT;
	if (READ_ONCE(sk->sk_state) == TCP_LISTEN)
		return -EINVAL;
	err = mrc_mr_charge(mm, npages);
	if (err)
		goto denied;
	err = -ENOMEM;
	mr = kzalloc(sizeof(*mr), GFP_KERNEL_ACCOUNT);
	if (!mr)
		goto uncharge;
	mr->addr = reg->addr;
	mr->len = reg->len;
	/* what the peer may write we write too: pinned for writing */
	mr->access = reg->access;
	if (reg->access & MRC_MR_REMOTE_WRITE)
		mr->access |= MRC_MR_LOCAL_WRITE;
	mr->npages = npages;
	mr->pages = kvmalloc_array(npages, sizeof(*mr->pages),
				   GFP_KERNEL_ACCOUNT);
	if (!mr->pages)
		goto free_mr;
	err = mrc_mr_pin(mr);
	if (err)
		goto free_pages;
	mmgrab(mm);
	mr->mm = mm;

	lock_sock(sk);
	err = sk->sk_state == TCP_LISTEN ? -EINVAL : 0;
	if (!err)
		err = xa_alloc(&msk->mrs, &idx, mr, XA_LIMIT(1, MRC_MR_MAX),
			       GFP_KERNEL_ACCOUNT);
	if (!err) {
		mr->key = mrc_mr_key(get_random_u64(), idx);
		msk->mr_count++;
		msk->mr_bytes += mr->len;
	}
	release_sock(sk);
	if (err) {
		/* xa_alloc(): -EBUSY when the table is full */
		if (err == -EBUSY)
			err = -ENOSPC;
		if (err == -ENOSPC)
			MRC_INC_STATS(mn, MRC_MIB_MR_DENIED);
		mrc_mr_free(mr);
		return err;
	}
	reg->key = mr->key;
	MRC_INC_STATS(mn, MRC_MIB_MR_REG);
	return 0;

free_pages:
	kvfree(mr->pages);
free_mr:
	kfree(mr);
uncharge:
	atomic64_sub(npages, &mm->pinned_vm);
	return err;
denied:
	MRC_INC_STATS(mn, MRC_MIB_MR_DENIED);
	return err;
}

/**
 * mrc_mr_deregister() - MRC_MR_DEREG: release the region with a key
 * @sk: the socket, not locked
 * @key: its key
 *
 * Return: 0, or -ENOENT when no region of this socket has that key.
 */
int mrc_mr_deregister(struct sock *sk, u64 key)
{
	struct mrc_sock *msk = mrc_sk(sk);
	u32 idx = mrc_mr_key_idx(key);
	struct mrc_mr *mr = NULL;

	lock_sock(sk);
	if (idx) {
		mr = xa_load(&msk->mrs, idx);
		if (mr && mr->key == key) {
			xa_erase(&msk->mrs, idx);
			msk->mr_count--;
			msk->mr_bytes -= mr->len;
		} else {
			mr = NULL;
		}
	}
	release_sock(sk);
	if (!mr)
		return -ENOENT;
	mrc_mr_free(mr);
	MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_MR_DEREG);
	return 0;
}

/**
 * mrc_mr_release_all() - release every region of a socket being closed
 * @sk: the socket, locked, in process context (close())
 */
void mrc_mr_release_all(struct sock *sk)
{
	struct mrc_sock *msk = mrc_sk(sk);
	struct mrc_mr *mr;
	unsigned long idx;

	xa_for_each(&msk->mrs, idx, mr) {
		xa_erase(&msk->mrs, idx);
		mrc_mr_free(mr);
		MRC_INC_STATS(mrc_sk_pernet(sk), MRC_MIB_MR_DEREG);
	}
	msk->mr_count = 0;
	msk->mr_bytes = 0;
	xa_destroy(&msk->mrs);
}

/* The region of @sk with @key if it allows @access (MRC_MR_LOCAL_WRITE:
 * our READs' bytes) to @n bytes at @off: 0 and *@mrp, or -ENOENT when no
 * region of the
 * connection has @key, -EACCES, -ERANGE.  The table changes only under
 * the socket lock (mrc_mr_register(), mrc_mr_deregister(), close), so the
 * region found stays pinned while the caller holds it, and nothing is
 * placed into (or read from) a region after its deregistration returns.
 */
static int mrc_mr_find(struct sock *sk, u64 key, u32 access, u64 off, u64 n,
		       struct mrc_mr **mrp)
{
	u32 idx = mrc_mr_key_idx(key);
	struct mrc_mr *mr;

	mr = idx ? xa_load(&mrc_sk(sk)->mrs, idx) : NULL;
	if (!mr || mr->key != key)
		return -ENOENT;
	if ((mr->access & access) != access)
		return -EACCES;
	if (!mrc_mr_range_ok(mr->len, off, n))
		return -ERANGE;
	*mrp = mr;
	return 0;
}

/* Copy @len bytes between @buf (or @skb from @skb_off) and @mr from @off,
 * checked to lie inside it: into the region when @in.
 */
static int mrc_mr_copy(struct mrc_mr *mr, u64 off, const struct sk_buff *skb,
		       int skb_off, void *buf, u32 len, bool in)
{
	/* from the first page's start: the region need not be aligned */
	u64 pos = offset_in_page(mr->addr) + off;

	while (len) {
		struct page *page = mr->pages[pos >> PAGE_SHIFT];
		unsigned int in_page = offset_in_page(pos);
		unsigned int n = min_t(u32, len, PAGE_SIZE - in_page);
		void *p = kmap_local_page(page);
		int err = 0;

		if (!in)
			memcpy(buf, p + in_page, n);
		else if (skb)
			err = skb_copy_bits(skb, skb_off, p + in_page, n);
		else
			memcpy(p + in_page, buf, n);
		kunmap_local(p);
		/* the bytes were checked to be in the packet */
		if (WARN_ON_ONCE(err))
			return err;
		if (in)
			flush_dcache_page(page);
		pos += n;
		if (skb)
			skb_off += n;
		else
			buf += n;
		len -= n;
	}
	return 0;
}

/**
 * mrc_mr_write() - place a WRITE's piece into a region of its connection
 * @sk: the connection, locked (softirq, or its owner's backlog)
 * @key: the region's key, from the packet
 * @roff: where in the region the piece starts, from the packet
 * @skb: the packet
 * @off: where in @skb the piece's bytes start
 * @len: its bytes
 *
 * Return: 0 when the bytes are in place; -ENOENT when no region of the
 * connection has @key, -EACCES when it is not remotely writable, -ERANGE
 * when the bytes would pass its end: nothing was written.
 */
int mrc_mr_write(struct sock *sk, u64 key, u64 roff,
		 const struct sk_buff *skb, int off, u32 len)
{
	struct mrc_mr *mr;
	int err = mrc_mr_find(sk, key, MRC_MR_REMOTE_WRITE, roff, len, &mr);

	return err ?: mrc_mr_copy(mr, roff, skb, off, NULL, len, true);
}

/**
 * mrc_mr_place() - place a piece of our READ's response into the region
 * the READ named
 * @sk: the connection, locked
 * @key: the region's key, from the READ
 * @off: where in the region the piece starts
 * @skb: the packet
 * @skb_off: where in @skb the piece's bytes start
 * @len: its bytes
 *
 * Return: 0, -ENOENT (the region is gone), -EACCES or -ERANGE (neither
 * when the READ was sent, mrc_mr_local()): nothing written.
 */
int mrc_mr_place(struct sock *sk, u64 key, u64 off,
		 const struct sk_buff *skb, int skb_off, u32 len)
{
	struct mrc_mr *mr;
	int err = mrc_mr_find(sk, key, MRC_MR_LOCAL_WRITE, off, len, &mr);

	return err ?: mrc_mr_copy(mr, off, skb, skb_off, NULL, len, true);
}

/**
 * mrc_mr_read() - copy bytes of a region the peer reads
 * @sk: the connection, locked
 * @key: the region's key, from the peer's READ
 * @off: where in it the bytes start
 * @to: where they go
 * @len: their number
 *
 * Return: 0, -ENOENT, -EACCES (not remotely readable) or -ERANGE.
 */
int mrc_mr_read(struct sock *sk, u64 key, u64 off, void *to, u32 len)
{
	struct mrc_mr *mr;
	int err = mrc_mr_find(sk, key, MRC_MR_REMOTE_READ, off, len, &mr);

	return err ?: mrc_mr_copy(mr, off, NULL, 0, to, len, false);
}

/**
 * mrc_mr_local() - may a READ of ours put @len bytes at @off of region @key?
 * @sk: the socket, locked
 * @key: one of its regions' keys
 * @off: where the first byte goes
 * @len: the bytes
 *
 * Return: 0, -ENOKEY (no region of the socket has @key), -EACCES (it was
 * registered with neither MRC_MR_LOCAL_WRITE nor MRC_MR_REMOTE_WRITE: its
 * pages were not pinned for writing) or -ERANGE.
 */
int mrc_mr_local(struct sock *sk, u64 key, u64 off, u64 len)
{
	struct mrc_mr *mr;
	int err = mrc_mr_find(sk, key, MRC_MR_LOCAL_WRITE, off, len, &mr);

	return err == -ENOENT ? -ENOKEY : err;
}
