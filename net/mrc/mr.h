/* SPDX-License-Identifier: GPL-2.0 */
/* mrc memory regions: a range of an application's memory, pinned, that
 * the peer of one connection may write and/or read (mrc.rst "Memory
 * regions").  The pure rules, for KUnit: what a registration may ask for,
 * how many pages it pins, and the key that names it.
 */
#ifndef _NET_MRC_MR_H
#define _NET_MRC_MR_H

#include <linux/errno.h>
#include <linux/mm_types.h>
#include <linux/overflow.h>
#include <linux/types.h>
#include <uapi/linux/mrc.h>

/* A key's low bits are the region's index in its socket's table (1 to
 * MRC_MR_MAX), the rest random: 48 random bits to guess, and a lookup
 * that is one array index.
 */
#define MRC_MR_IDX_BITS		16
#define MRC_MR_IDX_MASK		((1ULL << MRC_MR_IDX_BITS) - 1)

#define MRC_MR_ACCESS_ALL	(MRC_MR_REMOTE_WRITE | MRC_MR_REMOTE_READ | \
				 MRC_MR_LOCAL_WRITE)

/**
 * struct mrc_mr - one registered memory region
 * @key: its key (mrc_mr_key())
 * @addr: its first byte, in the registrant's address space
 * @len: its bytes
 * @access: MRC_MR_REMOTE_WRITE, MRC_MR_REMOTE_READ, MRC_MR_LOCAL_WRITE
 *          (set with MRC_MR_REMOTE_WRITE too: its pages are pinned for
 *          writing)
 * @npages: pages pinned, @pages' length
 * @pages: the pinned pages, in address order
 * @mm: whose pinned_vm they are charged to (mmgrab()ed)
 */
struct mrc_mr {
	u64			key;
	u64			addr;
	u64			len;
	u32			access;
	unsigned long		npages;
	struct page		**pages;
	struct mm_struct	*mm;
};

/**
 * mrc_mr_check() - is a registration's request well formed?
 * @reg: the request
 * @npages: out: the pages [addr, addr + len) touches
 *
 * Return: 0, or -EINVAL: flags set, no right or an unknown one, a length
 * of 0 or over MRC_MR_LEN_MAX, or a range that wraps around the top of
 * the address space.  Whether the range is mapped is pin_user_pages()'s
 * to say.
 */
static inline int mrc_mr_check(const struct mrc_mr_reg *reg,
			       unsigned long *npages)
{
	u64 last;

	if (reg->flags || !reg->access ||
	    (reg->access & ~MRC_MR_ACCESS_ALL))
		return -EINVAL;
	if (!reg->len || reg->len > MRC_MR_LEN_MAX)
		return -EINVAL;
	if (check_add_overflow(reg->addr, reg->len - 1, &last))
		return -EINVAL;
	*npages = (last >> PAGE_SHIFT) - (reg->addr >> PAGE_SHIFT) + 1;
	return 0;
}

/**
 * mrc_mr_key() - the key of the region at an index
 * @rnd: a random number
 * @idx: its index, 1 to MRC_MR_MAX
 *
 * Return: the key, never 0.
 */
static inline u64 mrc_mr_key(u64 rnd, u32 idx)
{
	return (rnd & ~MRC_MR_IDX_MASK) | idx;
}

/* The index a key names (0, no region's, for a key that names none). */
static inline u32 mrc_mr_key_idx(u64 key)
{
	u32 idx = key & MRC_MR_IDX_MASK;

	return idx <= MRC_MR_MAX ? idx : 0;
}

/**
 * mrc_mr_range_ok() - do @n bytes at @off lie inside a region?
 * @mr_len: the region's bytes
 * @off: the offset of the first byte, any 64-bit value
 * @n: the bytes
 *
 * Return: whether [@off, @off + @n) is inside [0, @mr_len), in 64-bit
 * arithmetic that no value wraps.  An empty range at the region's end is
 * inside it.
 */
static inline bool mrc_mr_range_ok(u64 mr_len, u64 off, u64 n)
{
	return off <= mr_len && n <= mr_len - off;
}

#endif /* _NET_MRC_MR_H */
