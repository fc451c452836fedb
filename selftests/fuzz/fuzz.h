/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the fuzz targets share: a reader that takes the fuzzer's input as
 * a stream of choices, and a check that fails the run.
 *
 * Each target (selftests/fuzz/fuzz_<name>.c) drives one portable core,
 * the code the modules run, with what libFuzzer makes up: a frame from a
 * host on the link, a table from a user's tc command, or a sequence of
 * operations.  AddressSanitizer and UndefinedBehaviorSanitizer watch the
 * core; FUZZ_CHECK() states what must hold whatever the input, and
 * aborts (which libFuzzer reports as a crash, with the input saved)
 * when it does not.  Documentation/testing.rst, "Fuzzing the cores".
 */
#ifndef FQ_FUZZ_H
#define FQ_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Each target's one entry: libFuzzer calls it with every input. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_CHECK(cond)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: %s does not hold\n",	\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

/* The input, read front to back; past its end every read gives 0. */
struct fuzz_in {
	const uint8_t *p;
	size_t left;
};

static inline bool fuzz_more(const struct fuzz_in *in)
{
	return in->left != 0;
}

static inline uint8_t fuzz_u8(struct fuzz_in *in)
{
	if (!in->left)
		return 0;
	in->left--;
	return *in->p++;
}

/* little-endian; each read in its own statement: C leaves the order of
 * two calls in one expression open */
static inline uint16_t fuzz_u16(struct fuzz_in *in)
{
	uint16_t lo = fuzz_u8(in);

	return (uint16_t)(lo | fuzz_u8(in) << 8);
}

static inline uint32_t fuzz_u32(struct fuzz_in *in)
{
	uint32_t lo = fuzz_u16(in);

	return lo | (uint32_t)fuzz_u16(in) << 16;
}

static inline uint64_t fuzz_u64(struct fuzz_in *in)
{
	uint64_t lo = fuzz_u32(in);

	return lo | (uint64_t)fuzz_u32(in) << 32;
}

/* A number below @n (n > 0), from as few bytes as it needs. */
static inline uint32_t fuzz_below(struct fuzz_in *in, uint32_t n)
{
	if (n <= 0x100)
		return fuzz_u8(in) % n;
	if (n <= 0x10000)
		return fuzz_u16(in) % n;
	return fuzz_u32(in) % n;
}

/*
 * The rest of the input as one piece, its length in *@len: it ends where
 * libFuzzer's buffer ends, so AddressSanitizer catches a read past it.
 */
static inline const uint8_t *fuzz_rest(struct fuzz_in *in, size_t *len)
{
	const uint8_t *p = in->p;

	*len = in->left;
	in->p += in->left;
	in->left = 0;
	return p;
}

/*
 * Up to @max bytes of the input as one piece: its length in *@len.  A
 * read past it goes unnoticed but at the input's end: copy it to a
 * buffer of its own size where that matters.
 */
static inline const uint8_t *fuzz_bytes(struct fuzz_in *in, size_t max, size_t *len)
{
	const uint8_t *p;

	*len = fuzz_below(in, (uint32_t)max + 1);
	if (*len > in->left)
		*len = in->left;
	p = in->p;
	in->p += *len;
	in->left -= *len;
	return p;
}

#endif /* FQ_FUZZ_H */
