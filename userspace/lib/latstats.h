/* SPDX-License-Identifier: GPL-2.0 */
/*
 * latstats.h: latency statistics of the measurement tool, plain C and
 * unit-tested on the host (selftests/unit/test_latstats.c).
 *
 * Samples are nanoseconds.  Count, mean, max, jitter and deadline misses
 * cover every sample added; percentiles and the CDF come from at most
 * max_keep kept samples, a uniform pick of the whole run past that
 * (reservoir sampling), so memory stays bounded on long runs.
 *
 * Percentiles are nearest-rank: the smallest sample with at least p of
 * the samples at or below it.  Jitter is the mean inter-packet delay
 * variation (IPDV, RFC 3393 / RFC 5481): the mean of |L(i) - L(i-1)| over
 * consecutive samples in the order they were added (arrival order).  A
 * deadline miss is a sample above the target; ratio = misses / count.
 */
#ifndef FQ_LATSTATS_H
#define FQ_LATSTATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ls_stats {
	int64_t *v;		/* kept samples; sorted by ls_finish() */
	size_t n, cap, max_keep;
	uint64_t count;		/* all samples */
	double sum;
	int64_t min, max;
	int64_t last;		/* previous sample, for the IPDV */
	double ipdv_sum;
	uint64_t ipdv_n;
	int64_t target;		/* deadline, ns; <= 0: none */
	uint64_t misses;
	uint64_t rng;
	bool sorted;
};

struct ls_point {
	int64_t value;		/* ns */
	double frac;		/* fraction of samples <= value */
};

void ls_init(struct ls_stats *s, size_t max_keep, int64_t target_ns);
void ls_free(struct ls_stats *s);
/* Add a sample; -1 when no memory was left to keep it (still counted). */
int ls_add(struct ls_stats *s, int64_t x);
/* Sort the kept samples; call before percentiles and the CDF. */
void ls_finish(struct ls_stats *s);

double ls_mean(const struct ls_stats *s);
double ls_jitter(const struct ls_stats *s);
double ls_miss_ratio(const struct ls_stats *s);
/* Nearest-rank percentile, @p in [0, 1]; 0 without samples. */
int64_t ls_percentile(const struct ls_stats *s, double p);
/* Fraction of kept samples <= @x. */
double ls_cdf_at(const struct ls_stats *s, int64_t x);
/*
 * At most @max points (value, fraction) of the empirical CDF: evenly
 * spaced ranks, plus the tail ranks of p99, p99.9 and the maximum, in
 * increasing order.  Returns the number written.
 */
size_t ls_cdf(const struct ls_stats *s, struct ls_point *out, size_t max);

/* Histogram of kept samples in @nb buckets of @width ns from @lo. */
void ls_histogram(const struct ls_stats *s, int64_t lo, int64_t width,
		  uint64_t *bucket, size_t nb);

#endif /* FQ_LATSTATS_H */
