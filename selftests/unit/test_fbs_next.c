// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of kernel/core/fbs_next.h, the index sch_fbs keeps of where
 * each class next has a slot: against a walk of the table, for every
 * class (from every slot, or 64 at random) of 3000 random tables (1 to
 * 32000 slots, 1 to 64 destinations, silent and unreserved slots,
 * classes with no slot).
 */
#include "unit.h"
#include "core/fbs_next.h"

#define MAXN	32000
#define SILENT	0xfffe

static fq_u16 table[MAXN], by_class[MAXN];

/* What sch_fbs walked: slots from @cur until class @c's next, 0: none. */
static fq_u32 walk(fq_u32 n, fq_u32 ndests, fq_u32 c, fq_u32 cur)
{
	fq_u32 k, t = cur;

	for (k = 1; k <= n; k++) {
		t = t + 1 == n ? 0 : t + 1;
		if (fbs_next_class(table[t], ndests) == c)
			return k;
	}
	return 0;
}

static fq_u64 rng = 88172645463325252ULL;

static fq_u32 rnd(fq_u32 below)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (fq_u32)(rng % below);
}

UNIT_TEST(next_slot_of_each_class_as_a_walk_finds_it)
{
	struct fbs_next x;
	fq_u32 iter, checked = 0, none = 0;

	for (iter = 0; iter < 3000; iter++) {
		/* mostly short tables, every one compared in full; some long */
		fq_u32 n = iter % 300 == 0 ? MAXN - rnd(64) : 1 + rnd(iter % 3 ? 40 : 2000);
		fq_u32 ndests = 1 + rnd(64), t, c, cur;
		/* a few classes only, or all, so that some have no slot */
		fq_u32 used = 1 + rnd(ndests);

		for (t = 0; t < n; t++) {
			fq_u32 r = rnd(10);

			table[t] = r == 0 ? SILENT : r == 1 ? FBS_NEXT_UNRESERVED :
				   (fq_u16)rnd(used);
		}
		fbs_next_build(&x, table, n, ndests, by_class);
		for (c = 0; c <= ndests; c++) {
			fq_u32 tries = n > 2000 ? 10 : n > 64 ? 64 : n;

			for (t = 0; t < tries; t++) {
				fq_u32 want, got;

				cur = n > 64 ? rnd(n) : t;
				want = walk(n, ndests, c, cur);
				got = fbs_next_in(&x, c, cur, n);
				if (got != want) {
					UNIT_FAIL("table %u (%u slots, %u destinations): class %u from slot %u: %u, a walk %u",
						  iter, n, ndests, c, cur, got, want);
					return;
				}
				none += !want;
				checked++;
			}
		}
	}
	/* both kinds of answer, often */
	EXPECT_TRUE(checked > 500000);
	EXPECT_TRUE(none > 10000);
	printf("# %u lookups, %u of a class with no slot\n", checked, none);
}

/* The groups hold every slot but the silent ones, each in slot order. */
UNIT_TEST(groups_hold_the_slots_in_order)
{
	struct fbs_next x;
	fq_u32 n = 12, c, i;
	static const fq_u16 t[] = { 1, 0, SILENT, FBS_NEXT_UNRESERVED, 1, 1, 0, SILENT,
				    FBS_NEXT_UNRESERVED, 0, 1, 1 };

	for (i = 0; i < n; i++)
		table[i] = t[i];
	fbs_next_build(&x, table, n, 3, by_class);
	EXPECT_EQ(x.first[0], 0);
	EXPECT_EQ(x.first[1], 3);	/* class 0: slots 1, 6, 9 */
	EXPECT_EQ(x.first[2], 8);	/* class 1: 0, 4, 5, 10, 11 */
	EXPECT_EQ(x.first[3], 8);	/* destination 2: none */
	EXPECT_EQ(x.first[4], 10);	/* best effort: 3, 8 */
	EXPECT_EQ(by_class[0], 1);
	EXPECT_EQ(by_class[2], 9);
	EXPECT_EQ(by_class[3], 0);
	EXPECT_EQ(by_class[7], 11);
	EXPECT_EQ(by_class[9], 8);
	for (c = 0; c <= 3; c++)
		for (i = x.first[c] + 1; i < x.first[c + 1]; i++)
			EXPECT_TRUE(by_class[i - 1] < by_class[i]);
	/* from its only slot's class, a whole period; wraps */
	EXPECT_EQ(fbs_next_in(&x, 0, 9, n), 4);	/* 9 -> 1 */
	EXPECT_EQ(fbs_next_in(&x, 3, 3, n), 5);	/* 3 -> 8 */
	EXPECT_EQ(fbs_next_in(&x, 3, 8, n), 7);	/* 8 -> 3 */
	EXPECT_EQ(fbs_next_in(&x, 2, 0, n), 0);
}

int main(void)
{
	return unit_run();
}
