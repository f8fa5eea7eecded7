/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for the kernel's <linux/types.h>, just enough for
 * net/mrc/wire.h and net/mrc/psn.h to compile unmodified in the fuzz
 * harnesses: the uapi __u8.. and __be16/__be32 come from the system
 * header, the kernel-internal names and byte order helpers from here.
 */
#ifndef _MRC_FUZZ_LINUX_TYPES_H
#define _MRC_FUZZ_LINUX_TYPES_H

#include_next <linux/types.h>
#include <endian.h>
#include <stdbool.h>
#include <stddef.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;
typedef __s8 s8;
typedef __s16 s16;
typedef __s32 s32;
typedef __s64 s64;

#define be16_to_cpu(x)	((u16)be16toh((__u16)(x)))
#define be32_to_cpu(x)	((u32)be32toh((__u32)(x)))
#define cpu_to_be16(x)	((__be16)htobe16((__u16)(x)))
#define cpu_to_be32(x)	((__be32)htobe32((__u32)(x)))
#define be64_to_cpu(x)	((u64)be64toh((__u64)(x)))
#define cpu_to_be64(x)	((__be64)htobe64((__u64)(x)))

#endif /* _MRC_FUZZ_LINUX_TYPES_H */
