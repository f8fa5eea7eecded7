/* SPDX-License-Identifier: GPL-2.0 */
/* mrc packet sequence numbers: 32-bit serial arithmetic (RFC 1982 style)
 * that stays correct across wrap-around.  Pure functions, no kernel state.
 */
#ifndef _NET_MRC_PSN_H
#define _NET_MRC_PSN_H

#include <linux/types.h>

/**
 * mrc_psn_diff() - signed distance from @b to @a
 * @a: a PSN
 * @b: a PSN
 *
 * Return: a - b as a signed 32-bit number; positive when @a is after @b.
 * Meaningful only while the two are less than 2^31 apart.
 */
static inline s32 mrc_psn_diff(u32 a, u32 b)
{
	return (s32)(a - b);
}

/* True when @a comes strictly before @b in sequence space. */
static inline bool mrc_psn_before(u32 a, u32 b)
{
	return mrc_psn_diff(a, b) < 0;
}

/* True when @a comes strictly after @b in sequence space. */
static inline bool mrc_psn_after(u32 a, u32 b)
{
	return mrc_psn_diff(a, b) > 0;
}

/**
 * mrc_psn_in_window() - is @psn inside [@start, @start + @size)?
 * @psn: the PSN to test
 * @start: first PSN of the window
 * @size: window size in packets, at most 2^31
 *
 * Return: true when @psn lies in the window, wrap-around included.
 */
static inline bool mrc_psn_in_window(u32 psn, u32 start, u32 size)
{
	return psn - start < size;
}

/* The later of two PSNs. */
static inline u32 mrc_psn_max(u32 a, u32 b)
{
	return mrc_psn_after(a, b) ? a : b;
}

#endif /* _NET_MRC_PSN_H */
