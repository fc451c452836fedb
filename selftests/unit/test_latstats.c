// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of userspace/lib/latstats.c: percentiles, jitter, deadline
 * misses and the CDF on inputs whose answers are known.
 */
#include "unit.h"
#include "latstats.c"

static void add_all(struct ls_stats *s, const int64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		ls_add(s, v[i]);
	ls_finish(s);
}

UNIT_TEST(percentiles_nearest_rank_of_1_to_1000)
{
	struct ls_stats s;
	int64_t i;

	ls_init(&s, 100000, 0);
	for (i = 1000; i >= 1; i--)	/* any order */
		ls_add(&s, i);
	ls_finish(&s);
	EXPECT_EQ(s.count, 1000);
	EXPECT_EQ(ls_percentile(&s, 0.5), 500);
	EXPECT_EQ(ls_percentile(&s, 0.9), 900);
	EXPECT_EQ(ls_percentile(&s, 0.99), 990);
	EXPECT_EQ(ls_percentile(&s, 0.999), 999);
	EXPECT_EQ(ls_percentile(&s, 1.0), 1000);
	EXPECT_EQ(ls_percentile(&s, 0), 1);
	EXPECT_EQ(s.max, 1000);
	EXPECT_EQ(s.min, 1);
	EXPECT_TRUE(ls_mean(&s) == 500.5);
	ls_free(&s);
}

UNIT_TEST(percentiles_of_few_samples)
{
	static const int64_t v[] = { 30, 10, 20, 40 };
	struct ls_stats s;

	ls_init(&s, 16, 0);
	add_all(&s, v, 4);
	EXPECT_EQ(ls_percentile(&s, 0.5), 20);	/* rank ceil(2) */
	EXPECT_EQ(ls_percentile(&s, 0.51), 30);	/* rank ceil(2.04) */
	EXPECT_EQ(ls_percentile(&s, 0.99), 40);
	EXPECT_TRUE(ls_mean(&s) == 25.0);
	ls_free(&s);

	ls_init(&s, 16, 0);
	ls_finish(&s);
	EXPECT_EQ(ls_percentile(&s, 0.5), 0);
	EXPECT_TRUE(ls_mean(&s) == 0 && ls_jitter(&s) == 0 && ls_miss_ratio(&s) == 0);
	ls_free(&s);
}

UNIT_TEST(jitter_is_mean_ipdv_in_arrival_order)
{
	static const int64_t v[] = { 100, 110, 90, 90, 130 };
	struct ls_stats s;

	ls_init(&s, 16, 0);
	add_all(&s, v, 5);
	/* |10| + |-20| + |0| + |40| = 70 over 4 pairs */
	EXPECT_TRUE(ls_jitter(&s) == 17.5);
	ls_free(&s);

	/* constant latency: no jitter, whatever its size */
	ls_init(&s, 16, 0);
	ls_add(&s, 5000);
	ls_add(&s, 5000);
	ls_add(&s, 5000);
	EXPECT_TRUE(ls_jitter(&s) == 0);
	ls_free(&s);
}

UNIT_TEST(deadline_misses_above_the_target)
{
	static const int64_t v[] = { 5, 10, 11, 10, 20, 1 };
	struct ls_stats s;

	ls_init(&s, 16, 10);		/* 10 itself is in time */
	add_all(&s, v, 6);
	EXPECT_EQ(s.misses, 2);
	EXPECT_TRUE(ls_miss_ratio(&s) == 2.0 / 6.0);
	ls_free(&s);

	ls_init(&s, 16, 0);		/* no target: no misses */
	add_all(&s, v, 6);
	EXPECT_EQ(s.misses, 0);
	ls_free(&s);
}

UNIT_TEST(cdf_points_and_fractions)
{
	static const int64_t v[] = { 1, 2, 2, 2, 3, 4, 5, 6, 7, 100 };
	struct ls_point p[64];
	struct ls_stats s;
	size_t n, i;

	ls_init(&s, 64, 0);
	add_all(&s, v, 10);
	EXPECT_TRUE(ls_cdf_at(&s, 2) == 0.4);
	EXPECT_TRUE(ls_cdf_at(&s, 0) == 0.0);
	EXPECT_TRUE(ls_cdf_at(&s, 99) == 0.9);
	EXPECT_TRUE(ls_cdf_at(&s, 100) == 1.0);
	n = ls_cdf(&s, p, 64);
	/* one point per distinct value, fraction at that value */
	ASSERT_EQ(n, 8);
	EXPECT_EQ(p[0].value, 1);
	EXPECT_TRUE(p[0].frac == 0.1);
	EXPECT_EQ(p[1].value, 2);
	EXPECT_TRUE(p[1].frac == 0.4);
	EXPECT_EQ(p[7].value, 100);
	EXPECT_TRUE(p[7].frac == 1.0);
	for (i = 1; i < n; i++)
		EXPECT_TRUE(p[i].value > p[i - 1].value && p[i].frac > p[i - 1].frac);
	ls_free(&s);
}

UNIT_TEST(cdf_keeps_the_tail_with_few_points)
{
	struct ls_point p[8];
	struct ls_stats s;
	size_t n;
	int64_t i;

	ls_init(&s, 100000, 0);
	for (i = 1; i <= 10000; i++)
		ls_add(&s, i);
	ls_finish(&s);
	n = ls_cdf(&s, p, 8);		/* 5 even points + p99, p99.9, max */
	ASSERT_EQ(n, 7);		/* the max is also the last even point */
	EXPECT_EQ(p[0].value, 2000);
	EXPECT_EQ(p[4].value, 9900);
	EXPECT_EQ(p[5].value, 9990);
	EXPECT_EQ(p[6].value, 10000);
	ls_free(&s);
}

UNIT_TEST(bounded_memory_keeps_exact_mean_and_max)
{
	struct ls_stats s;
	int64_t i;

	ls_init(&s, 1000, 0);
	for (i = 1; i <= 100000; i++)
		ls_add(&s, i);
	ls_finish(&s);
	EXPECT_EQ(s.n, 1000);
	EXPECT_EQ(s.count, 100000);
	EXPECT_EQ(s.max, 100000);
	EXPECT_TRUE(ls_mean(&s) == 50000.5);
	/* a uniform pick: the median of the kept samples is near the true one */
	EXPECT_TRUE(llabs(ls_percentile(&s, 0.5) - 50000) < 5000);
	ls_free(&s);
}

UNIT_TEST(histogram_buckets)
{
	static const int64_t v[] = { 0, 5, 10, 15, 25, 1000, -3 };
	uint64_t b[3];
	struct ls_stats s;

	ls_init(&s, 16, 0);
	add_all(&s, v, 7);
	ls_histogram(&s, 0, 10, b, 3);
	EXPECT_EQ(b[0], 3);		/* -3 (under), 0, 5 */
	EXPECT_EQ(b[1], 2);
	EXPECT_EQ(b[2], 2);		/* 25 and the overflow */
	ls_free(&s);
}

int main(void)
{
	return unit_run();
}
