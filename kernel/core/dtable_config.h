/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DTable configuration methodology (paper: omni-path-qos-sbt-dtable,
 * sections 3.3.2 and 3.3.3), used by dtable-config and its unit tests.
 * Userspace only: the kernel takes the finished table.
 *
 * Given N entries, GMTU, the decoupling parameters w and k, and per
 * service level (SL) a wanted share, a distance (largest gap in entries
 * between two consecutive entries of the SL) and an MTU:
 *
 *   pool = N x GMTU x k, M = GMTU x w             (credits)
 *   min share = n_i x MTU_i / pool, max share = n_i x M / pool
 *   entry weight = ceil(pool x share / n_i)
 *   Dweight = -round((real share - share) x total weight), spread one
 *   credit at a time over the SL's entries from its last entry backwards,
 *   round robin, never taking an entry below the SL's MTU.
 *
 * Shares are exact fractions in parts per 10^9, products use 128 bits, so
 * the rounding is the paper's and never a float's.
 *
 * The methodology takes shares of the whole link: the correction makes
 * every SL's weight its share of the total weight, so shares that add up
 * to S < 1 would come out as share / S, further bent where the MTU floor
 * stops the correction (5 / 15 / 25 % came out 14.3 / 32.1 / 53.6 %).
 * DTable is work-conserving: a backlogged link is always shared in full,
 * and what nobody reserved goes to the SLs in proportion to their
 * weights anyway.  So shares adding up to less than 1 are normalised to
 * add up to 1 (each divided by their sum, proportions kept: 5 / 15 / 25
 * % become 11.1 / 33.3 / 55.6 %), and the output says so; shares adding
 * up to more than 1 promise more than the link has and are refused.
 */
#ifndef FQ_DTABLE_CONFIG_H
#define FQ_DTABLE_CONFIG_H

#ifdef __KERNEL__
#error "dtable_config.h is for userspace"
#endif

#include <stdio.h>
#include <string.h>

#include "dtable_core.h"

#define DTC_ONE		1000000000LL	/* share 1.0 in parts per 10^9 */
#define DTC_NAME_MAX	32
#define DTC_MAX_WK	1024

typedef __int128 dtc_s128;

struct dtc_sl {
	char name[DTC_NAME_MAX];
	fq_s64 share;		/* wanted, parts per 10^9 (normalised) */
	fq_s64 given;		/* as given, before normalising */
	fq_u32 distance;
	fq_u32 mtu_bytes;
	/* results */
	fq_u32 mtu;		/* credits */
	fq_u32 entries;
	fq_u64 entry_weight;	/* before correction */
	fq_s64 dweight;
	fq_s64 dweight_left;	/* what the MTU floor kept from being applied */
	fq_u64 weight_before;	/* sum of its entries before correction */
	fq_u64 total_weight;	/* ... after */
};

struct dtc_config {
	/* input */
	fq_u32 n;
	fq_u32 gmtu_bytes;
	fq_u32 w, k;
	fq_u32 credit;
	fq_u32 nsl;
	struct dtc_sl sl[DT_MAX_CLASSES];
	/* results */
	fq_u32 gmtu;		/* credits */
	fq_u64 pool;
	fq_u64 max_weight;
	fq_u64 total_before, total_after;
	fq_s64 shares_sum;	/* of the shares as given, parts per 10^9 */
	bool normalised;	/* they added up to less than 1 */
	fq_u32 len;		/* entries in the table (unused slots dropped) */
	struct dt_entry table[DT_MAX_ENTRIES];
	char err[256];
};

static inline fq_u32 dtc_div_up(fq_u64 a, fq_u64 b)
{
	return (fq_u32)((a + b - 1) / b);
}

/* share as a double, for printing */
static inline double dtc_frac(fq_u64 num, fq_u64 den)
{
	return den ? (double)num / (double)den : 0.0;
}

static inline double dtc_min_share(const struct dtc_config *c, const struct dtc_sl *s)
{
	return dtc_frac((fq_u64)s->entries * s->mtu, c->pool);
}

static inline double dtc_max_share(const struct dtc_config *c, const struct dtc_sl *s)
{
	return dtc_frac((fq_u64)s->entries * c->max_weight, c->pool);
}

/*
 * Spread @dweight credits over the entries of class @cls in @table, one at
 * a time, from its last entry backwards, round robin, never below @mtu nor
 * above @max.  Returns what could not be applied (non-zero only when every
 * entry is at @mtu, lowering, or at @max, raising).
 */
static inline fq_s64 dtc_spread(struct dt_entry *table, fq_u32 len, fq_u32 cls,
				fq_s64 dweight, fq_u32 mtu, fq_u32 max)
{
	fq_u32 last = len, i, stuck = 0, mine = 0;

	for (i = 0; i < len; i++) {
		if (table[i].cls == cls) {
			last = i;
			mine++;
		}
	}
	if (!mine)
		return dweight;
	i = last;
	while (dweight && stuck < mine) {
		if (table[i].cls == cls) {
			if (dweight > 0 && table[i].weight < max) {
				table[i].weight++;
				dweight--;
				stuck = 0;
			} else if (dweight < 0 && table[i].weight > mtu) {
				table[i].weight--;
				dweight++;
				stuck = 0;
			} else {
				stuck++;
			}
		}
		i = i ? i - 1 : len - 1;
	}
	return dweight;
}

/* The largest gap between consecutive entries of @cls, around the end. */
static inline fq_u32 dtc_max_gap(const struct dt_entry *table, fq_u32 len, fq_u32 cls)
{
	fq_u32 i, first = len, prev = len, gap = 0;

	for (i = 0; i < len; i++) {
		if (table[i].cls != cls)
			continue;
		if (prev == len)
			first = i;
		else if (i - prev > gap)
			gap = i - prev;
		prev = i;
	}
	if (prev == len)
		return len + 1;		/* never served */
	if (len - prev + first > gap)
		gap = len - prev + first;
	return gap;
}

/*
 * Place @want entries for SL @cls with gaps of at most @d in @slot (N
 * slots, -1 = free).  First an evenly spaced comb (o, o + d, ...) when d
 * divides N, which is what the paper's tables show; otherwise, or when no
 * comb fits, each next entry goes to the latest free slot within d of the
 * previous one.  Returns the entries placed, 0 when it cannot be done.
 */
static inline fq_u32 dtc_place(int *slot, fq_u32 n, fq_u32 cls, fq_u32 d, fq_u32 want)
{
	fq_u32 o, j, first, prev, count, p;

	if (n % d == 0 && n / d == want) {
		for (o = 0; o < d; o++) {
			for (j = o; j < n && slot[j] < 0; j += d)
				;
			if (j >= n) {
				for (j = o; j < n; j += d)
					slot[j] = (int)cls;
				return want;
			}
		}
	}
	for (first = 0; first < d && first < n && slot[first] >= 0; first++)
		;
	if (first >= d || first >= n)
		return 0;
	slot[first] = (int)cls;
	count = 1;
	prev = first;
	/* until the gap around the end is short enough */
	while (n - prev + first > d) {
		fq_u32 lim = prev + d < n ? prev + d : n - 1;

		for (p = lim; p > prev && slot[p] >= 0; p--)
			;
		if (p == prev)
			goto undo;
		slot[p] = (int)cls;
		count++;
		prev = p;
	}
	return count;
undo:
	for (p = 0; p < n; p++)
		if (slot[p] == (int)cls)
			slot[p] = -1;
	return 0;
}

/* Build the table.  0, or -1 with c->err set. */
static inline int dtc_build(struct dtc_config *c)
{
	int slot[DT_MAX_ENTRIES];
	fq_u32 order[DT_MAX_CLASSES];
	fq_u64 need = 0;
	fq_s64 shares = 0;
	fq_u32 i, j;

	c->err[0] = 0;
	c->len = 0;
	if (c->n < 1 || c->n > DT_MAX_ENTRIES)
		return snprintf(c->err, sizeof(c->err), "--entries must be 1..%u",
				DT_MAX_ENTRIES), -1;
	if (c->credit < 1 || c->credit > DT_MAX_CREDIT)
		return snprintf(c->err, sizeof(c->err), "--credit must be 1..%u bytes",
				DT_MAX_CREDIT), -1;
	if (c->gmtu_bytes < 1 || c->gmtu_bytes > 65536)
		return snprintf(c->err, sizeof(c->err), "--gmtu must be 1..65536 bytes"), -1;
	if (c->w < 1 || c->w > DTC_MAX_WK || c->k < 1 || c->k > DTC_MAX_WK)
		return snprintf(c->err, sizeof(c->err), "--w and --k must be 1..%u",
				DTC_MAX_WK), -1;
	if (c->k > c->w)
		return snprintf(c->err, sizeof(c->err),
				"k (%u) must not exceed w (%u): the pool must fit in N x M",
				c->k, c->w), -1;
	if (c->nsl < 1 || c->nsl > DT_MAX_CLASSES)
		return snprintf(c->err, sizeof(c->err), "give 1..%u --sl", DT_MAX_CLASSES), -1;

	c->gmtu = dtc_div_up(c->gmtu_bytes, c->credit);
	c->pool = (fq_u64)c->n * c->gmtu * c->k;
	c->max_weight = (fq_u64)c->gmtu * c->w;

	for (i = 0; i < c->nsl; i++) {
		struct dtc_sl *s = &c->sl[i];

		if (s->share <= 0 || s->share > DTC_ONE)
			return snprintf(c->err, sizeof(c->err),
					"SL %s: share must be above 0 and at most 1", s->name), -1;
		if (s->distance < 1 || s->distance > c->n)
			return snprintf(c->err, sizeof(c->err),
					"SL %s: distance must be 1..%u (the table size)",
					s->name, c->n), -1;
		if (s->mtu_bytes < 1 || s->mtu_bytes > c->gmtu_bytes)
			return snprintf(c->err, sizeof(c->err),
					"SL %s: MTU %u must be 1..GMTU (%u bytes)",
					s->name, s->mtu_bytes, c->gmtu_bytes), -1;
		s->mtu = dtc_div_up(s->mtu_bytes, c->credit);
		s->entries = 0;
		s->dweight = s->dweight_left = 0;
		need += dtc_div_up(c->n, s->distance);
		shares += s->share;
		order[i] = i;
	}
	c->shares_sum = shares;
	if (shares > DTC_ONE)
		return snprintf(c->err, sizeof(c->err),
				"the shares add up to %.5f, more than 1",
				(double)shares / DTC_ONE), -1;
	/* less than 1: the same proportions of the whole link (see top) */
	c->normalised = shares < DTC_ONE;
	for (i = 0; i < c->nsl; i++) {
		struct dtc_sl *s = &c->sl[i];

		s->given = s->share;
		if (c->normalised)
			s->share = (fq_s64)(((dtc_s128)s->given * DTC_ONE + shares / 2) / shares);
	}
	if (need > c->n)
		return snprintf(c->err, sizeof(c->err),
				"the distances need %llu entries, the table has %u",
				(unsigned long long)need, c->n), -1;

	/* smallest distance first: the tightest SLs get the regular combs */
	for (i = 1; i < c->nsl; i++)
		for (j = i; j > 0 && c->sl[order[j]].distance < c->sl[order[j - 1]].distance; j--) {
			fq_u32 t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (i = 0; i < c->n; i++)
		slot[i] = -1;
	for (i = 0; i < c->nsl; i++) {
		struct dtc_sl *s = &c->sl[order[i]];

		s->entries = dtc_place(slot, c->n, order[i], s->distance,
				       dtc_div_up(c->n, s->distance));
		if (!s->entries)
			return snprintf(c->err, sizeof(c->err),
					"SL %s: cannot place an entry every %u entries in what the SLs of smaller distance left free",
					s->name, s->distance), -1;
	}

	/* shares within [min, max]: share x pool in [n x MTU, n x M] (x 10^9) */
	for (i = 0; i < c->nsl; i++) {
		struct dtc_sl *s = &c->sl[i];
		dtc_s128 sp = (dtc_s128)s->share * c->pool;

		if (sp < (dtc_s128)s->entries * s->mtu * DTC_ONE ||
		    sp > (dtc_s128)s->entries * c->max_weight * DTC_ONE)
			return snprintf(c->err, sizeof(c->err),
					"SL %s: share %.5f%s is outside [%.5f, %.5f], what %u entries allow with MTU %u and GMTU %u bytes, w %u, k %u",
					s->name, (double)s->share / DTC_ONE,
					c->normalised ? " (normalised: the shares add up to less than 1)" : "",
					dtc_min_share(c, s), dtc_max_share(c, s),
					s->entries, s->mtu_bytes, c->gmtu_bytes,
					c->w, c->k), -1;
		/* ceil(pool x share / n) */
		s->entry_weight = (fq_u64)((sp + (dtc_s128)s->entries * DTC_ONE - 1) /
					   ((dtc_s128)s->entries * DTC_ONE));
		if (s->entry_weight > DT_MAX_WEIGHT)
			return snprintf(c->err, sizeof(c->err),
					"SL %s: entry weight %llu is too large",
					s->name, (unsigned long long)s->entry_weight), -1;
	}

	/* the table, unused slots dropped (that only shortens gaps) */
	for (i = 0; i < c->n; i++) {
		if (slot[i] < 0)
			continue;
		c->table[c->len].cls = (fq_u16)slot[i];
		c->table[c->len].weight = (fq_u32)c->sl[slot[i]].entry_weight;
		c->len++;
	}

	/* bandwidth correction, every Dweight from the uncorrected total */
	c->total_before = 0;
	for (i = 0; i < c->nsl; i++) {
		struct dtc_sl *s = &c->sl[i];

		s->weight_before = s->entry_weight * s->entries;
		c->total_before += s->weight_before;
	}
	for (i = 0; i < c->nsl; i++) {
		struct dtc_sl *s = &c->sl[i];
		/* (share - real) x total = share x total - sum, x 10^9 */
		dtc_s128 num = (dtc_s128)s->share * c->total_before -
			       (dtc_s128)s->weight_before * DTC_ONE;
		dtc_s128 half = DTC_ONE / 2;

		s->dweight = (fq_s64)((num >= 0 ? num + half : num - half) / DTC_ONE);
		/*
		 * within the qdisc's bound (not M: the paper's own tables
		 * correct entries past it, CL's 130 over 128 in its Table 10)
		 */
		s->dweight_left = dtc_spread(c->table, c->len, i, s->dweight, s->mtu,
					     DT_MAX_WEIGHT);
	}
	/* what the qdisc would say of it: the same check (dt_table_check()) */
	{
		fq_u32 mtus[DT_MAX_CLASSES], bad;
		int err;

		for (i = 0; i < c->nsl; i++)
			mtus[i] = c->sl[i].mtu_bytes;
		err = dt_table_check(c->table, c->len, DT_MODE_DTABLE, c->credit, mtus,
				     c->nsl, &bad);
		if (err != DT_TABLE_OK)
			return snprintf(c->err, sizeof(c->err),
					"the table would be refused: %s (entry %u)",
					dt_table_strerror(err), bad), -1;
	}
	c->total_after = 0;
	for (i = 0; i < c->nsl; i++)
		c->sl[i].total_weight = 0;
	for (i = 0; i < c->len; i++) {
		c->sl[c->table[i].cls].total_weight += c->table[i].weight;
		c->total_after += c->table[i].weight;
	}
	return 0;
}

#endif /* FQ_DTABLE_CONFIG_H */
