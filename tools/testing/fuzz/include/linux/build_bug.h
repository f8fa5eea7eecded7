/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for the kernel's <linux/build_bug.h>. */
#ifndef _MRC_FUZZ_LINUX_BUILD_BUG_H
#define _MRC_FUZZ_LINUX_BUILD_BUG_H

/* Fails to compile (negative array size) when @cond is true. */
#define BUILD_BUG_ON(cond)	((void)sizeof(char[1 - 2 * !!(cond)]))

#endif /* _MRC_FUZZ_LINUX_BUILD_BUG_H */
