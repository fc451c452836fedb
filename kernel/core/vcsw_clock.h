/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The clock (second chance) that picks the learned forwarding-table entry
 * a new address replaces when the soft switch's table is full
 * (Documentation/vcsw.rst, forwarding table); shared by kernel/vcsw_fdb.c and
 * the unit tests.
 *
 * The entries form a circle that a hand walks.  A learned entry not hit
 * (its address not seen) since the hand last passed it, or expired, is the
 * victim; one that was hit loses its hit mark, its second chance, and the
 * hand goes on.  So an address seen at least once per turn of the hand
 * keeps its entry, and one seen once goes at the next turn.  Static
 * entries are never taken, but each counts toward @scan, the entries
 * looked at per call: the receive path's work stays bounded however many
 * static entries there are.  If every learned entry within the scan had
 * its second chance, the first of them goes, so learning never stops
 * while the table holds a learned entry in reach.
 *
 * The circle is the caller's (the kernel's is an RCU list beside a hash
 * table), reached through struct vcsw_clock_ops, and so is the hand:
 * advance() returns the entry at it and moves it on.  The caller also
 * deletes the victim and locks.  With the ops a static const table and
 * vcsw_clock_victim() inlined, the compiler calls the caller's helpers
 * directly: no indirect call.
 */
#ifndef FQ_VCSW_CLOCK_H
#define FQ_VCSW_CLOCK_H

#include "core_types.h"

struct vcsw_clock_ops {
	/* the entry at the hand, the hand moved past it; NULL: no entries */
	void	*(*advance)(void *circle);
	bool	(*is_static)(void *circle, void *entry);
	/* hit since the hand last passed it */
	bool	(*hit)(void *circle, void *entry);
	void	(*clear_hit)(void *circle, void *entry);
	bool	(*expired)(void *circle, void *entry);
};

/*
 * The entry to evict from @circle, looking at @scan entries at most and
 * leaving the hand just past the last one looked at; NULL if only static
 * entries were found (or none).
 */
static inline void *vcsw_clock_victim(const struct vcsw_clock_ops *ops,
				      void *circle, unsigned int scan)
{
	void *e, *fallback = NULL;
	unsigned int i;

	for (i = 0; i < scan; i++) {
		e = ops->advance(circle);
		if (!e)
			break;
		if (ops->is_static(circle, e))
			continue;
		if (!ops->hit(circle, e) || ops->expired(circle, e))
			return e;
		ops->clear_hit(circle, e);
		if (!fallback)
			fallback = e;
	}
	return fallback;
}

#endif /* FQ_VCSW_CLOCK_H */
