/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small TAP harness for the host unit tests of the portable core.
 *
 *	UNIT_TEST(name) { EXPECT_EQ(a, b); ASSERT_TRUE(x); }
 *	int main(void) { return unit_run(); }
 *
 * EXPECT_* records a failure and goes on; ASSERT_* records it and leaves
 * the test.  Each test prints "ok N name" or "not ok N name"; the process
 * exits 0 only when every test passed.
 */
#ifndef FQ_UNIT_H
#define FQ_UNIT_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct unit_test {
	const char *name;
	void (*fn)(int *failed);
	struct unit_test *next;
};

static struct unit_test *unit_head, **unit_tail = &unit_head;

static inline void unit_register(struct unit_test *t)
{
	*unit_tail = t;
	unit_tail = &t->next;
}

#define UNIT_TEST(name)							\
	static void unit_fn_##name(int *unit_failed);			\
	static struct unit_test unit_t_##name = { #name, unit_fn_##name, NULL }; \
	__attribute__((constructor)) static void unit_reg_##name(void)	\
	{ unit_register(&unit_t_##name); }				\
	static void unit_fn_##name(int *unit_failed)

#define UNIT_FAIL(fmt, ...)						\
	do {								\
		printf("#   %s:%d: " fmt "\n", __FILE__, __LINE__, ##__VA_ARGS__); \
		*unit_failed = 1;					\
	} while (0)

#define EXPECT_EQ(a, b)							\
	do {								\
		long long unit_a = (long long)(a), unit_b = (long long)(b); \
		if (unit_a != unit_b)					\
			UNIT_FAIL("%s == %s: %lld != %lld", #a, #b, unit_a, unit_b); \
	} while (0)

#define EXPECT_TRUE(x)							\
	do {								\
		if (!(x))						\
			UNIT_FAIL("%s is false", #x);			\
	} while (0)

#define EXPECT_MEM_EQ(a, b, len)					\
	do {								\
		if (memcmp((a), (b), (len)))				\
			UNIT_FAIL("%s and %s differ in %zu bytes", #a, #b, (size_t)(len)); \
	} while (0)

#define ASSERT_EQ(a, b)							\
	do {								\
		int unit_before = *unit_failed;				\
		*unit_failed = 0;					\
		EXPECT_EQ(a, b);					\
		if (*unit_failed)					\
			return;						\
		*unit_failed = unit_before;				\
	} while (0)

#define ASSERT_TRUE(x)							\
	do {								\
		if (!(x)) {						\
			UNIT_FAIL("%s is false", #x);			\
			return;						\
		}							\
	} while (0)

/*
 * A seeded xorshift64 for random traces: the same seed, the same trace
 * on every host.  Set unit_rnd_state (nonzero) before a trace.
 */
static uint64_t unit_rnd_state = 0x9e3779b97f4a7c15ULL;

static inline uint64_t unit_rnd(void)
{
	unit_rnd_state ^= unit_rnd_state << 13;
	unit_rnd_state ^= unit_rnd_state >> 7;
	unit_rnd_state ^= unit_rnd_state << 17;
	return unit_rnd_state;
}

/* Uniform enough in 0 .. @n - 1 for a test's choices (@n > 0). */
static inline unsigned int unit_rnd_below(unsigned int n)
{
	return (unsigned int)(unit_rnd() % n);
}

static inline int unit_run(void)
{
	struct unit_test *t;
	int n = 0, bad = 0;

	for (t = unit_head; t; t = t->next)
		n++;
	printf("TAP version 13\n1..%d\n", n);
	n = 0;
	for (t = unit_head; t; t = t->next) {
		int failed = 0;

		t->fn(&failed);
		printf("%s %d %s\n", failed ? "not ok" : "ok", ++n, t->name);
		bad += failed;
	}
	printf("# %d passed, %d failed\n", n - bad, bad);
	return bad ? 1 : 0;
}

#endif /* FQ_UNIT_H */
