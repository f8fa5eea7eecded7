// SPDX-License-Identifier: GPL-2.0
/* mrc fault injection for the selftests: module parameters that make
 * transmissions fail.  Built only with MRC_FAULT_INJECT=1 (see Kbuild).
 *
 * The parameters are global, not per namespace, as debugfs fault
 * attributes are: they exist for one test at a time on a test machine.
 */
#include <linux/atomic.h>
#include <linux/moduleparam.h>

#include "protocol.h"

static unsigned int fail_xmit_clone_every;
module_param(fail_xmit_clone_every, uint, 0644);
MODULE_PARM_DESC(fail_xmit_clone_every,
		 "test builds: every Nth copy of a data packet to transmit fails (0: none)");

static unsigned int fail_xmit_clone_next;
module_param(fail_xmit_clone_next, uint, 0644);
MODULE_PARM_DESC(fail_xmit_clone_next,
		 "test builds: the next N copies of data packets to transmit fail (counts down)");

static atomic_t mrc_fault_clones = ATOMIC_INIT(0);

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
