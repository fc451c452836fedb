/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The portable algorithm core is plain C compiled twice: into the kernel
 * modules and into the userspace tools, unit tests and simulator.  This
 * header gives both builds the same fixed-width types and 64-bit division.
 */
#ifndef FQ_CORE_TYPES_H
#define FQ_CORE_TYPES_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/stddef.h>
#include <linux/math64.h>
#include <linux/bitops.h>
#else
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#endif

/*
 * For the helpers of a per-packet path that must not become calls (the
 * compiler makes calls of helpers it sees used in several places).
 */
#ifdef __KERNEL__
#define fq_always_inline __always_inline
#else
#define fq_always_inline inline __attribute__((always_inline))
#endif

/*
 * For the less common rest of a per-packet path, so that its registers
 * are not saved on the common path's entry (and its code is laid out
 * away from it).
 */
#define fq_noinline_rare __attribute__((__noinline__, __cold__, __unused__))

/* For a loop of a per-packet path that is not rare, kept out of its registers. */
#define fq_noinline __attribute__((__noinline__, __unused__))

#ifdef __KERNEL__
typedef u8 fq_u8;
typedef u16 fq_u16;
typedef u32 fq_u32;
typedef s32 fq_s32;
typedef u64 fq_u64;
typedef s64 fq_s64;
#else
typedef uint8_t fq_u8;
typedef uint16_t fq_u16;
typedef uint32_t fq_u32;
typedef int32_t fq_s32;
typedef uint64_t fq_u64;
typedef int64_t fq_s64;
#endif

/* 64-bit division: 32-bit kernels have no native 64 by 64 divide. */
#ifdef __KERNEL__
#define fq_div64(a, b)	div64_u64((a), (b))
#else
#define fq_div64(a, b)	((fq_u64)(a) / (fq_u64)(b))
#endif

/* @a modulo @b, 64 bits (the kernel's div64 has no % of its own here) */
#define fq_mod64(a, b)	((fq_u64)(a) - fq_div64((a), (b)) * (fq_u64)(b))

/* The set bits of @x (a popcnt where the CPU has one). */
#ifdef __KERNEL__
#define fq_popcount64(x)	((fq_u32)hweight64(x))
#else
#define fq_popcount64(x)	((fq_u32)__builtin_popcountll(x))
#endif

/* @a x @b / @c with a 128-bit product, rounded down (no overflow inside). */
#ifdef __KERNEL__
#define fq_mul_div64(a, b, c)	mul_u64_u64_div_u64((a), (b), (c))
#else
#define fq_mul_div64(a, b, c)	\
	((fq_u64)((unsigned __int128)(fq_u64)(a) * (fq_u64)(b) / (fq_u64)(c)))
#endif

#endif /* FQ_CORE_TYPES_H */
