/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The dtable mode's pick (Algorithm 2): the class being served goes on
 * while its head fits what it holds, then the walk of the marked entries
 * finds the next class whose head fits its deficit plus its entry's
 * credit.
 *
 * Part of dtable_core.h, which includes it; not to be included alone.
 */
#ifndef FQ_DTABLE_WALK_H
#define FQ_DTABLE_WALK_H

#ifndef FQ_DTABLE_CORE_H
#error "include core/dtable_core.h"
#endif

/*
 * Does a head of @len fit in @acc bytes?  A packet longer than the class's
 * packet size (a class given too small a one: sch_dtable cuts GSO packets
 * that long into frames) goes once the class holds a full packet size,
 * and is charged what the class holds, so no packet waits forever.
 */
static fq_always_inline bool dt_fits(const struct dt_class *c, fq_u32 len, fq_u64 acc)
{
	return len <= acc || (len > c->mtu && acc >= c->mtu && acc);
}

/* The class being served, @c, gives up the link and keeps what it may. */
static fq_always_inline void dt_cur_release(struct dt_sched *s, struct dt_class *c)
{
	c->deficit = dt_kept_deficit(c, s->acc);
	s->cur = -1;
	s->acc = 0;
}

/*
 * Algorithm 2, first half: the class being served (cur) goes on while
 * its head fits what it holds; otherwise it keeps the remainder and
 * gives up the link.  The class, or -1 when the walk must find one.
 */
static fq_always_inline int dt_pick_cur(struct dt_sched *s, dt_head_fn head, void *ctx)
{
	fq_u32 cls;
	struct dt_class *c;
	int len;

	if (s->cur < 0)
		return -1;
	cls = (fq_u32)s->cur;
	c = &s->cls[cls];
	len = dt_ask(s, head, ctx, cls);
	if (len >= 0 && dt_fits(c, len, s->acc))
		return (int)cls;
	/* idle: dt_ask() cleared the deficit and cur; held or too long: the
	 * remainder is kept */
	if (s->cur >= 0)
		dt_cur_release(s, c);
	return -1;
}

static int dt_walk_dtable_held(struct dt_sched *s, dt_head_fn head, void *ctx,
			       fq_u64 visits, int held_from, fq_u32 cls);

/*
 * Algorithm 2, second half, with no class being served: the walk from
 * pos to the next class whose head fits its deficit plus its entry's
 * credit; that class becomes cur.  The class, or -1.  @held: the classes
 * found held so far, or NULL until one is (then the walk goes on in
 * dt_walk_dtable_held() from where it is).
 */
static fq_always_inline int dt_walk_dtable_on(struct dt_sched *s, dt_head_fn head,
					      void *ctx, fq_u64 visits, int held_from,
					      struct dt_held *held)
{
	fq_u64 max_visits = (fq_u64)s->n * s->rounds;
	int len;

	while (visits < max_visits) {
		const struct dt_entry *e;
		struct dt_class *c;
		fq_u64 acc;
		int p = dt_next_active(s, s->pos);

		/*
		 * Back at the first of a run of held classes with nothing
		 * else visited since: a lap of held heads, and a head held
		 * now is held for the rest of this dequeue.  Asking round
		 * again (a lone held entry in a long table met itself up to
		 * n times) tells nothing and counts visits and walks that
		 * were not made.
		 */
		if (p < 0 || p == held_from)
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
		visits++;
		if (len < 0) {
			c->skipped++;
			if (held_from < 0)
				held_from = p;
			if (!held)
				return dt_walk_dtable_held(s, head, ctx, visits,
							   held_from, e->cls);
			dt_held_note(held, e->cls);
			continue;
		}
		acc = c->deficit + (fq_u64)e->weight * s->credit;
		c->deficit = 0;
		if (dt_fits(c, len, acc)) {
			s->cur = e->cls;
			s->acc = acc;
			return s->cur;
		}
		c->skipped++;
		c->deficit = acc;
		held_from = -1;	/* its deficit grew: another lap may serve it */
	}
	s->empty_scans++;
	return -1;
}

/* The rest of a walk that found class @cls held: see struct dt_held. */
static fq_noinline_rare int dt_walk_dtable_held(struct dt_sched *s, dt_head_fn head,
						void *ctx, fq_u64 visits,
						int held_from, fq_u32 cls)
{
	struct dt_held held;

	return dt_walk_dtable_on(s, head, ctx, visits, held_from,
				 dt_held_start(&held, cls));
}

static fq_always_inline int dt_walk_dtable(struct dt_sched *s, dt_head_fn head, void *ctx)
{
	return dt_walk_dtable_on(s, head, ctx, 0, -1, NULL);
}

/*
 * dt_pick_cur() for a caller that keeps a path of its own for the class
 * being served (cur >= 0), with dt_walk_dtable() and dt_pick() beside it:
 *
 * - the length of cur's head when it fits what the class holds: the
 *   bracket stays open (dt_enter()) for the caller's dequeue of that
 *   head, which dt_sent_mode() or dt_leave_dequeue() closes;
 * - DT_CUR_RELEASED when cur gave up the link, the walk to come next
 *   (dt_walk_dtable(), whether or not anything is queued, as in
 *   dt_pick_dtable()): its head is longer than what it holds (it keeps
 *   the remainder), or its queue is empty (it is idle now, as dt_ask()
 *   makes it);
 * - -1 when its queue holds packets but none may leave now, or the head
 *   goes by dt_fits()'s rule for long packets: nothing changed, for
 *   dt_pick() to decide by asking again.
 */
#define DT_CUR_RELEASED	(-3)

static fq_always_inline int dt_cur_ready(struct dt_sched *s, dt_head_fn head, void *ctx)
{
	fq_u32 cls = (fq_u32)s->cur;
	struct dt_class *c;
	int len;

	dt_enter(s, cls);
	len = head(ctx, cls);
	if (len >= 0 && (fq_u64)len <= s->acc)
		return len;
	s->asking = -1;
	if (len == DT_IDLE) {
		dt_class_idle(s, cls);
		return DT_CUR_RELEASED;
	}
	c = &s->cls[cls];
	if (len < 0 || dt_fits(c, len, s->acc))
		return -1;
	dt_cur_release(s, c);
	return DT_CUR_RELEASED;
}

/* Algorithm 2: the class to send from, or -1. */
static fq_always_inline int dt_pick_dtable(struct dt_sched *s, dt_head_fn head, void *ctx)
{
	int cls = dt_pick_cur(s, head, ctx);

	return cls >= 0 ? cls : dt_walk_dtable(s, head, ctx);
}

#endif
