// SPDX-License-Identifier: GPL-2.0
/* mrc counters: reading a counter summed over all CPUs. */
#include "protocol.h"

/**
 * mrc_mib_read() - a counter of a namespace, summed over all CPUs
 * @mn: the namespace's mrc state
 * @field: which counter
 *
 * Return: the sum; concurrent increments may or may not be included.
 */
u64 mrc_mib_read(const struct mrc_net *mn, enum mrc_mib_field field)
{
	u64 sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(mn->mib, cpu)->mibs[field]);
	return sum;
}
