/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where in an FBS table a class next has a slot, without walking the
 * table: portable, for sch_fbs.c and the unit tests.
 *
 * A host's fbs qdisc that cannot send now sets its timer to the next slot
 * whose class has something queued.  Walking the table for it cost up to
 * a whole period (32000 slots) per dequeue, under the qdisc's lock, and
 * every packet queued for a class whose slot has just gone ran such a
 * dequeue.  Instead the table's slots are kept grouped by class, each
 * group in slot order, and each class with packets is looked up in its
 * group by bisection: O(classes x log slots) however long the table.
 */
#ifndef FQ_FBS_NEXT_H
#define FQ_FBS_NEXT_H

#include "core_types.h"

#define FBS_NEXT_MAX_CLASSES	65	/* 64 destinations and best effort */
#define FBS_NEXT_UNRESERVED	0xffffu	/* a slot best effort may use */

struct fbs_next {
	const fq_u16 *by_class;	/* the slot numbers, grouped by class */
	fq_u32 first[FBS_NEXT_MAX_CLASSES + 1];	/* where each group starts */
};

/*
 * The class of a table word: a destination (below @ndests), best effort
 * (@ndests) for FBS_NEXT_UNRESERVED, or none (@ndests + 1) for the rest,
 * the silent slots.
 */
static inline fq_u32 fbs_next_class(fq_u16 word, fq_u32 ndests)
{
	if (word < ndests)
		return word;
	return word == FBS_NEXT_UNRESERVED ? ndests : ndests + 1;
}

/*
 * Index @table of @n slots (@ndests <= 64 destinations) into @x, the slot
 * numbers going to @by_class (room for @n).  A counting sort: each
 * group comes out in slot order.
 */
static inline void fbs_next_build(struct fbs_next *x, const fq_u16 *table, fq_u32 n,
				  fq_u32 ndests, fq_u16 *by_class)
{
	fq_u32 at[FBS_NEXT_MAX_CLASSES + 1], c, t;

	for (c = 0; c <= ndests + 1; c++)
		at[c] = 0;
	for (t = 0; t < n; t++)
		at[fbs_next_class(table[t], ndests)]++;
	/* first[c]: the slots of the classes before c; silent ones last */
	x->first[0] = 0;
	for (c = 0; c <= ndests; c++)
		x->first[c + 1] = x->first[c] + at[c];
	for (c = 0; c <= ndests; c++)
		at[c] = x->first[c];
	for (t = 0; t < n; t++) {
		c = fbs_next_class(table[t], ndests);
		if (c <= ndests)
			by_class[at[c]++] = (fq_u16)t;
	}
	x->by_class = by_class;
}

/*
 * Slots from slot @cur of @n on until the next slot of class @c (1 .. @n:
 * @n when @cur is its only one), or 0 if the table gives it none: what a
 * walk from @cur + 1 round to @cur would count.
 */
static inline fq_u32 fbs_next_in(const struct fbs_next *x, fq_u32 c, fq_u32 cur, fq_u32 n)
{
	fq_u32 lo = x->first[c], hi = x->first[c + 1], start = lo;

	if (lo == hi)
		return 0;
	/* the first of the group after @cur */
	while (lo < hi) {
		fq_u32 mid = lo + (hi - lo) / 2;

		if (x->by_class[mid] <= cur)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < x->first[c + 1])
		return x->by_class[lo] - cur;
	return x->by_class[start] + n - cur;
}

#endif /* FQ_FBS_NEXT_H */
