/* SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause) */
/* What the core needs from its host: string functions, errno, byte order. */
#ifndef OPTINC_CORE_COMPAT_H
#define OPTINC_CORE_COMPAT_H

#ifdef __KERNEL__
#include <linux/string.h>
#include <linux/errno.h>
#include <linux/bitops.h>
/* gcc may lower __builtin_popcountll to libgcc's __popcountdi2 */
#define oi_popcount64(x)	hweight64(x)
#else
#include <string.h>
#include <errno.h>
#define oi_popcount64(x)	__builtin_popcountll(x)
#endif
#include <linux/types.h>

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define oi_be16(x)	((__u16)__builtin_bswap16((__u16)(x)))
#define oi_be32(x)	((__u32)__builtin_bswap32((__u32)(x)))
#define oi_le16(x)	((__u16)(x))
#define oi_le32(x)	((__u32)(x))
#else
#define oi_be16(x)	((__u16)(x))
#define oi_be32(x)	((__u32)(x))
#define oi_le16(x)	((__u16)__builtin_bswap16((__u16)(x)))
#define oi_le32(x)	((__u32)__builtin_bswap32((__u32)(x)))
#endif

/* Unaligned big-endian loads and stores: frames give no alignment. */
static inline __u16 oi_get16(const void *p)
{
	__u16 v;

	memcpy(&v, p, 2);
	return oi_be16(v);
}

static inline __u32 oi_get32(const void *p)
{
	__u32 v;

	memcpy(&v, p, 4);
	return oi_be32(v);
}

static inline void oi_put16(void *p, __u16 v)
{
	v = oi_be16(v);
	memcpy(p, &v, 2);
}

static inline void oi_put32(void *p, __u32 v)
{
	v = oi_be32(v);
	memcpy(p, &v, 4);
}

#endif /* OPTINC_CORE_COMPAT_H */
