/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The rr mode's pick: the next active entry, one packet each.
 *
 * Part of dtable_core.h, which includes it; not to be included alone.
 */
#ifndef FQ_DTABLE_RR_H
#define FQ_DTABLE_RR_H

#ifndef FQ_DTABLE_CORE_H
#error "include core/dtable_core.h"
#endif

/*
 * The rest of an rr pick that found class @cls held (dt_pick_rr_on()):
 * out of line, so that the common pick keeps no set of held classes.
 */
typedef int (*dt_rr_held_fn)(struct dt_sched *s, dt_head_fn head, void *ctx,
			     fq_u32 i, int first, fq_u32 cls);

/*
 * Round robin: the next active entry, one packet each.  @held as in
 * dt_walk_dtable_on(): NULL until a class is found held; the pick then
 * goes on in @rest.
 */
static fq_always_inline int dt_pick_rr_on(struct dt_sched *s, dt_head_fn head, void *ctx,
					  fq_u32 i, int first, struct dt_held *held,
					  dt_rr_held_fn rest)
{
	while (i < s->n) {
		const struct dt_entry *e;
		struct dt_class *c;
		int p = dt_next_active(s, s->pos), len;

		/* back at the first entry asked: every active head is held */
		if (p < 0 || p == first)
			break;
		e = &s->table[p];
		c = &s->cls[e->cls];
		len = dt_ask_unless_held(s, held, head, ctx, e->cls);
		if (len == DT_IDLE)
			continue;	/* see dt_walk_finds_empty() */
		if ((fq_u32)p <= s->pos)
			s->walks++;
		s->pos = p;
		c->visited++;
		if (len >= 0)
			return e->cls;
		c->skipped++;
		if (first < 0)
			first = p;
		i++;
		if (!held)
			return rest(s, head, ctx, i, first, e->cls);
		dt_held_note(held, e->cls);
	}
	s->empty_scans++;
	return -1;
}

/*
 * DT_DEFINE_RR_HELD(name, head_fn): a rest of the pick for dt_pick_rr_with()
 * that asks with @head_fn, known here.  A qdisc that picks with more
 * than one head defines one per head: a single rest reached with several
 * would call its head through a pointer at every entry it asks (a
 * retpoline in the kernel) and never inline it.
 */
#define DT_DEFINE_RR_HELD(name, head_fn)					\
static fq_noinline_rare int name(struct dt_sched *s, dt_head_fn head,		\
				 void *ctx, fq_u32 i, int first, fq_u32 cls)	\
{										\
	struct dt_held held;							\
										\
	(void)head;								\
	return dt_pick_rr_on(s, head_fn, ctx, i, first,				\
			     dt_held_start(&held, cls), NULL);			\
}

/* The rest for any head, as passed: for callers with one head. */
static fq_noinline_rare int dt_pick_rr_held(struct dt_sched *s, dt_head_fn head,
					    void *ctx, fq_u32 i, int first,
					    fq_u32 cls)
{
	struct dt_held held;

	return dt_pick_rr_on(s, head, ctx, i, first, dt_held_start(&held, cls), NULL);
}

static fq_always_inline int dt_pick_rr_with(struct dt_sched *s, dt_head_fn head, void *ctx,
					    dt_rr_held_fn rest)
{
	return dt_pick_rr_on(s, head, ctx, 0, -1, NULL, rest);
}

static fq_always_inline int dt_pick_rr(struct dt_sched *s, dt_head_fn head, void *ctx)
{
	return dt_pick_rr_with(s, head, ctx, dt_pick_rr_held);
}

#endif
