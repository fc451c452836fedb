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

static int dt_pick_rr_held(struct dt_sched *s, dt_head_fn head, void *ctx,
			   fq_u32 i, int first, fq_u32 cls);

/*
 * Round robin: the next active entry, one packet each.  @held as in
 * dt_walk_dtable_on(): NULL until a class is found held.
 */
static fq_always_inline int dt_pick_rr_on(struct dt_sched *s, dt_head_fn head, void *ctx,
					  fq_u32 i, int first, struct dt_held *held)
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
			return dt_pick_rr_held(s, head, ctx, i, first, e->cls);
		dt_held_note(held, e->cls);
	}
	s->empty_scans++;
	return -1;
}

static fq_noinline_rare int dt_pick_rr_held(struct dt_sched *s, dt_head_fn head,
					    void *ctx, fq_u32 i, int first,
					    fq_u32 cls)
{
	struct dt_held held;

	return dt_pick_rr_on(s, head, ctx, i, first, dt_held_start(&held, cls));
}

static fq_always_inline int dt_pick_rr(struct dt_sched *s, dt_head_fn head, void *ctx)
{
	return dt_pick_rr_on(s, head, ctx, 0, -1, NULL);
}

#endif
