// SPDX-License-Identifier: GPL-2.0
/* mrc fault injection for the selftests: module parameters that make
 * transmissions fail or move the cookie clock, and one that shows what
 * the tests cannot see otherwise.  Built only with MRC_FAULT_INJECT=1 (see Kbuild).
 *
 * The parameters are global, not per namespace, as debugfs fault
 * attributes are: they exist for one test at a time on a test machine.
 */
#include <linux/atomic.h>
#include <linux/moduleparam.h>
#include <linux/sysfs.h>

#include "protocol.h"

static unsigned int fail_xmit_clone_every;
module_param(fail_xmit_clone_every, uint, 0644);
MODULE_PARM_DESC(fail_xmit_clone_every,
		 "test builds: every Nth copy of a data packet to transmit fails (0: none)");

static unsigned int fail_xmit_clone_next;
module_param(fail_xmit_clone_next, uint, 0644);
MODULE_PARM_DESC(fail_xmit_clone_next,
		 "test builds: the next N copies of data packets to transmit fail (counts down)");

static unsigned long long cookie_clock_us;
module_param(cookie_clock_us, ullong, 0644);
MODULE_PARM_DESC(cookie_clock_us,
		 "test builds: microseconds added to the listeners' cookie clock");

static atomic_t mrc_fault_clones = ATOMIC_INIT(0);

/**
 * mrc_fault_cookie_clock_us() - how far the cookie clock is moved
 *
 * Any context.  A test moves it past a wrap of its low 32 bits.
 *
 * Return: microseconds to add.
 */
u64 mrc_fault_cookie_clock_us(void)
{
	return READ_ONCE(cookie_clock_us);
}

/**
 * mrc_fault_xmit_clone() - should this copy of a data packet fail?
 *
 * Any context.
 *
 * Return: true when the caller is to act as if the allocation had failed.
 */
bool mrc_fault_xmit_clone(void)
{
	unsigned int every = READ_ONCE(fail_xmit_clone_every);
	unsigned int next = READ_ONCE(fail_xmit_clone_next);

	while (next)
		if (try_cmpxchg(&fail_xmit_clone_next, &next, next - 1))
			return true;
	return every &&
	       (unsigned int)atomic_inc_return(&mrc_fault_clones) % every == 0;
}

static int mrc_fault_get_sockets(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lld\n", mrc_mem_sockets());
}

static const struct kernel_param_ops mrc_fault_sockets_ops = {
	.get = mrc_fault_get_sockets,
};

/* read-only: what memory pressure weighs, for memory.sh to check that it
 * comes back when the sockets are gone
 */
module_param_cb(sockets_allocated, &mrc_fault_sockets_ops, NULL, 0444);
MODULE_PARM_DESC(sockets_allocated,
		 "test builds: mrc sockets in existence, every namespace (read-only)");

static int mrc_fault_get_reserve(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", mrc_mem_reserve_users());
}

static const struct kernel_param_ops mrc_fault_reserve_ops = {
	.get = mrc_fault_get_reserve,
};

/* read-only: receivers holding part of the pool's reserve, for memory.sh
 * to check that each gives its part back
 */
module_param_cb(reserve_users, &mrc_fault_reserve_ops, NULL, 0444);
MODULE_PARM_DESC(reserve_users,
		 "test builds: receivers drawing on the pool's reserve (read-only)");
