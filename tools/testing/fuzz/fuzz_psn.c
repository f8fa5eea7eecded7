// SPDX-License-Identifier: GPL-2.0
/* libFuzzer harness for mrc's PSN serial arithmetic (net/mrc/psn.h).
 *
 * Input: PSNs a, b, start and a window size, 4 bytes each, big endian
 * (missing bytes read as zero).  The helpers are checked against plain
 * 64-bit arithmetic modulo 2^32; a violation abort()s.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../../net/mrc/psn.h"

#define HALF	0x80000000U

static void fail(const char *what, u32 a, u32 b, u32 c)
{
	fprintf(stderr, "fuzz_psn: %s (%#x %#x %#x)\n", what, a, b, c);
	abort();
}

static u32 get32(const uint8_t *data, size_t size, size_t off)
{
	u32 v = 0;
	size_t i;

	for (i = off; i < off + 4; i++)
		v = v << 8 | (i < size ? data[i] : 0);
	return v;
}

/* Distance from @b forward to @a, 0 .. 2^32 - 1. */
static uint64_t fwd(u32 a, u32 b)
{
	return ((uint64_t)a + (1ULL << 32) - b) & 0xffffffffULL;
}

static void check_pair(u32 a, u32 b)
{
	uint64_t d = fwd(a, b);
	int64_t diff = mrc_psn_diff(a, b);
	bool before = d >= HALF;
	u32 m;

	/* the signed distance is the forward distance, folded at 2^31 */
	if (diff != (d < HALF ? (int64_t)d : (int64_t)d - (1LL << 32)))
		fail("diff", a, b, 0);
	if (d != HALF && diff + mrc_psn_diff(b, a) != 0)
		fail("diff not antisymmetric", a, b, 0);
	if (mrc_psn_before(a, b) != before)
		fail("before", a, b, 0);
	/* exactly 2^31 apart each is before the other (out of contract) */
	if (d != HALF && mrc_psn_before(a, b) != mrc_psn_after(b, a))
		fail("before(a, b) != after(b, a)", a, b, 0);
	if (mrc_psn_before(a, b) && mrc_psn_after(a, b))
		fail("both before and after", a, b, 0);
	if (mrc_psn_after(a, b) != (d != 0 && d < HALF))
		fail("after", a, b, 0);
	if (a == b && (mrc_psn_before(a, b) || mrc_psn_after(a, b)))
		fail("a PSN before or after itself", a, b, 0);
	if (a != b && d != HALF &&
	    mrc_psn_before(a, b) == mrc_psn_after(a, b))
		fail("neither before nor after", a, b, 0);

	m = mrc_psn_max(a, b);
	if (m != a && m != b)
		fail("max is neither", a, b, m);
	if (d != HALF && (mrc_psn_before(m, a) || mrc_psn_before(m, b) ||
			  m != mrc_psn_max(b, a)))
		fail("max", a, b, m);
}

static void check_window(u32 psn, u32 start, u32 size)
{
	bool in = mrc_psn_in_window(psn, start, size);

	if (in != (fwd(psn, start) < size))
		fail("in_window", psn, start, size);
	/* inside [start, start + size) is after-or-at start and before
	 * the end, while the window is at most half the sequence space
	 */
	if (size && size <= HALF &&
	    in != (!mrc_psn_before(psn, start) &&
		   mrc_psn_before(psn, start + size)))
		fail("in_window disagrees with before", psn, start, size);
	if (mrc_psn_in_window(start, start, size) != !!size)
		fail("start not in its window", psn, start, size);
	if (size && !mrc_psn_in_window(start + size - 1, start, size))
		fail("last PSN not in its window", psn, start, size);
	if (mrc_psn_in_window(start + size, start, size) && size)
		fail("end in its window", psn, start, size);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	u32 a = get32(data, size, 0);
	u32 b = get32(data, size, 4);
	u32 start = get32(data, size, 8);
	u32 wsize = get32(data, size, 12);

	check_pair(a, b);
	check_pair(a, a + 1);
	check_pair(a, a + HALF - 1);
	check_pair(a, a + HALF);
	check_window(a, start, wsize);
	check_window(b, start, wsize);
	check_window(a, b, wsize % (HALF + 1));
	return 0;
}
