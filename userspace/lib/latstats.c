// SPDX-License-Identifier: GPL-2.0
/* latstats.c: latency statistics; see latstats.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latstats.h"

void ls_init(struct ls_stats *s, size_t max_keep, int64_t target_ns)
{
	*s = (struct ls_stats){
		.max_keep = max_keep ? max_keep : 1,
		.target = target_ns,
		.rng = 0x9E3779B97F4A7C15ULL,
	};
}

void ls_free(struct ls_stats *s)
{
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

static uint64_t ls_rand(struct ls_stats *s)
{
	s->rng ^= s->rng >> 12;
	s->rng ^= s->rng << 25;
	s->rng ^= s->rng >> 27;
	return s->rng * 0x2545F4914F6CDD1DULL;
}

static bool ls_grow(struct ls_stats *s)
{
	size_t cap = s->cap ? s->cap * 2 : 1024;
	int64_t *v;

	if (cap > s->max_keep)
		cap = s->max_keep;
	v = realloc(s->v, cap * sizeof(*v));
	if (!v)
		return false;
	s->v = v;
	s->cap = cap;
	return true;
}

int ls_add(struct ls_stats *s, int64_t x)
{
	uint64_t j;

	if (s->count) {
		s->ipdv_sum += (double)llabs(x - s->last);
		s->ipdv_n++;
	}
	s->last = x;
	s->count++;
	s->sum += (double)x;
	if (s->count == 1 || x > s->max)
		s->max = x;
	if (s->count == 1 || x < s->min)
		s->min = x;
	if (s->target > 0 && x > s->target)
		s->misses++;
	s->sorted = false;
	if (s->n < s->max_keep) {
		if (s->n == s->cap && !ls_grow(s))
			return -1;
		s->v[s->n++] = x;
		return 0;
	}
	j = ls_rand(s) % s->count;
	if (j < s->n)
		s->v[j] = x;
	return 0;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

void ls_finish(struct ls_stats *s)
{
	if (!s->sorted && s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_i64);
	s->sorted = true;
}

double ls_mean(const struct ls_stats *s)
{
	return s->count ? s->sum / (double)s->count : 0;
}

double ls_jitter(const struct ls_stats *s)
{
	return s->ipdv_n ? s->ipdv_sum / (double)s->ipdv_n : 0;
}

double ls_miss_ratio(const struct ls_stats *s)
{
	return s->count ? (double)s->misses / (double)s->count : 0;
}

static size_t rank_of(size_t n, double p)
{
	double r = ceil(p * (double)n - 1e-9);

	if (r < 1)
		return 1;
	if (r > (double)n)
		return n;
	return (size_t)r;
}

int64_t ls_percentile(const struct ls_stats *s, double p)
{
	if (!s->n)
		return 0;
	return s->v[rank_of(s->n, p) - 1];
}

double ls_cdf_at(const struct ls_stats *s, int64_t x)
{
	size_t lo = 0, hi = s->n, mid;

	if (!s->n)
		return 0;
	/* first index with v > x */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (s->v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (double)lo / (double)s->n;
}

size_t ls_cdf(const struct ls_stats *s, struct ls_point *out, size_t max)
{
	static const double tail[] = { 0.99, 0.999, 1.0 };
	size_t i, k = 0, even, r, last = 0;
	size_t ranks[4096 + 3];

	if (!s->n || max < 4)
		return 0;
	even = max - 3;
	if (even > 4096)
		even = 4096;
	for (i = 1; i <= even; i++)
		ranks[k++] = rank_of(s->n, (double)i / (double)even);
	for (i = 0; i < 3; i++)
		ranks[k++] = rank_of(s->n, tail[i]);
	/* both lists are increasing; merge by sorting the few ranks */
	for (i = 1; i < k; i++) {
		size_t j = i, t = ranks[i];

		while (j && ranks[j - 1] > t) {
			ranks[j] = ranks[j - 1];
			j--;
		}
		ranks[j] = t;
	}
	k = 0;
	for (i = 0; i < even + 3; i++) {
		r = ranks[i];
		if (r <= last)
			continue;
		/* the last of equal values: the fraction at that value */
		while (r < s->n && s->v[r] == s->v[r - 1])
			r++;
		out[k].value = s->v[r - 1];
		out[k].frac = (double)r / (double)s->n;
		last = r;
		k++;
	}
	return k;
}

void ls_histogram(const struct ls_stats *s, int64_t lo, int64_t width,
		  uint64_t *bucket, size_t nb)
{
	size_t i;
	int64_t b;

	memset(bucket, 0, nb * sizeof(*bucket));
	if (!nb || width <= 0)
		return;
	for (i = 0; i < s->n; i++) {
		b = (s->v[i] - lo) / width;
		if (s->v[i] < lo)
			b = 0;
		if (b >= (int64_t)nb)
			b = nb - 1;
		bucket[b]++;
	}
}
