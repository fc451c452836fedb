/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The sbt mode's pick (Algorithm 1): the scan of the marked entries from
 * the class served last, the weights left in the round, and the round's
 * end.
 *
 * Part of dtable_core.h, which includes it; not to be included alone.
 */
#ifndef FQ_DTABLE_SBT_H
#define FQ_DTABLE_SBT_H

#ifndef FQ_DTABLE_CORE_H
#error "include core/dtable_core.h"
#endif

/*
 * sbt's scan: the marked entries once around from the one served last
 * (it keeps the link while it has weight), in table order, a word of the
 * bitmap at a time: the bits of the word being scanned are taken as the
 * scan enters it, each entry's bit cleared as it is passed, so the lap
 * ends when the words run out, with no distance to keep.  An entry's
 * ask can change only its own bit, which the lap has already taken, so
 * this sees the bitmap a scan of the live one would.
 */
struct dt_lap {
	fq_u64 bits;		/* marked entries of word w not passed yet */
	fq_u32 w;		/* the word being scanned; one word: pos */
	fq_u32 turned;		/* words entered after the first */
};

/*
 * A table of one word (n <= 64: sbt takes one entry per class, and most
 * tables have a few classes) is scanned rotated: bit k of the word
 * turned right by pos is entry (pos + k) mod 64, so the bits from low to
 * high are the entries in scan order, pos first, and the lap is a count
 * of trailing zeros per entry with no word to turn to (bits n..63 are
 * never set).  The picks are compiled for each shape (dt_pick_sbt()).
 */
static fq_always_inline fq_u64 dt_ror64(fq_u64 x, fq_u32 r)
{
	return (x >> r) | (x << ((64 - r) & 63));
}

/*
 * Returned by value and assigned at its declaration: a lap declared
 * first and filled in later is zeroed on the stack before each pick by
 * kernels built to zero every local (CONFIG_INIT_STACK_ALL_ZERO, as
 * Debian's are).  It is kept small, the rest read from @s when a word
 * ends, so that it stays in registers across the head() calls.
 */
static fq_always_inline struct dt_lap dt_lap_start(const struct dt_sched *s,
						  bool one_word)
{
	if (one_word)
		return (struct dt_lap){
			.bits = dt_ror64(s->emask[0], s->pos),
			.w = s->pos,
			.turned = 0,
		};
	return (struct dt_lap){
		.bits = s->emask[s->pos / 64] & (~0ULL << (s->pos % 64)),
		.w = s->pos / 64,
		.turned = 0,
	};
}

/* the next marked entry of the lap, -1 when it is over */
static fq_always_inline int dt_lap_next(const struct dt_sched *s, struct dt_lap *l,
					bool one_word)
{
	fq_u32 words = (s->n + 63) / 64;
	int p;

	if (one_word) {
		if (!l->bits)
			return -1;
		p = (int)((l->w + (fq_u32)__builtin_ctzll(l->bits)) % 64);
		l->bits &= l->bits - 1;
		return p;
	}
	while (!l->bits) {
		if (l->turned == words)
			return -1;
		l->turned++;
		l->w = l->w + 1 == words ? 0 : l->w + 1;
		l->bits = s->emask[l->w];
		if (l->turned == words)	/* back where it began: the bits before pos */
			l->bits &= (1ULL << (s->pos % 64)) - 1;
	}
	p = (int)(l->w * 64 + __builtin_ctzll(l->bits));
	l->bits &= l->bits - 1;
	return p;
}

/*
 * sbt: no class with weight left can send.  How many of those without
 * any can (their heads asked in scan order, up to @need of them), and in
 * @last the entry of the last that can.  Only the end of a round asks
 * them: a class out of weight cannot be picked before then, so asking
 * it at every pass, as the scan used to, was a peek per packet thrown
 * away (with weights of one, the class just served is the first the
 * scan meets).
 */
static fq_always_inline fq_u32 dt_sbt_senders(struct dt_sched *s, dt_head_fn head,
					      void *ctx, fq_u32 need, int *last,
					      bool one_word)
{
	struct dt_lap lap = dt_lap_start(s, one_word);
	fq_u32 found = 0;
	int p;

	while ((p = dt_lap_next(s, &lap, one_word)) >= 0) {
		fq_u32 cls = s->table[p].cls;

		if (s->cls[cls].left || dt_ask(s, head, ctx, cls) < 0)
			continue;
		*last = p;
		if (++found == need)
			break;
	}
	return found;
}

/*
 * sbt serves entry @p: the scan stays there while its class has weight
 * (a scan that went past the table's end to reach it made a walk).
 */
static fq_always_inline int dt_sbt_serve(struct dt_sched *s, int p)
{
	if ((fq_u32)p < s->pos)
		s->walks++;
	s->pos = p;
	return s->table[p].cls;
}

/*
 * After a reset at the end of a round: the scan again from pos would
 * visit the entries up to @last, the first whose class can send, and
 * serve it.  dt_sbt_senders() has just asked every one of them (none
 * had weight left), so they are counted as the scan would count them
 * and not asked again: those before @last as passed over (one that
 * answered empty is idle and not in the lap), @last as served.
 */
static fq_always_inline int dt_sbt_first_sender(struct dt_sched *s, int last,
						bool one_word)
{
	struct dt_lap lap = dt_lap_start(s, one_word);
	int p;

	while ((p = dt_lap_next(s, &lap, one_word)) >= 0) {
		struct dt_class *c = &s->cls[s->table[p].cls];

		c->visited++;
		if (p == last)
			break;
		c->skipped++;
	}
	return dt_sbt_serve(s, last);
}

/*
 * sbt's reset: every class gets its weight back.  A loop of its own, with
 * no test per class, as it runs once a round, a round being one packet
 * per class at weights of one.
 */
static fq_always_inline void dt_sbt_restore(struct dt_sched *s)
{
	fq_u32 i;

	for (i = 0; i < s->ncls; i++)
		s->cls[i].left = dt_sbt_weight(s, &s->cls[i]);
}

/*
 * The pass a round that is over would make: every active entry visited
 * and passed (one per class: sbt takes one entry per class), counted class
 * by class instead of walked; with @restore, the reset that follows, in
 * the same loop.
 */
static fq_always_inline void dt_sbt_count_round(struct dt_sched *s, bool restore)
{
	fq_u32 i;

	for (i = 0; i < s->ncls; i++) {
		struct dt_class *c = &s->cls[i];

		c->visited += c->active;
		c->skipped += c->active;
		if (restore)
			c->left = dt_sbt_weight(s, c);
	}
}

/*
 * Algorithm 1 with the reset and the lone-active-class exception.  Every
 * active entry the scan passes is visited; a class out of weight is
 * passed without asking for its head (dt_sbt_senders()).  When no class
 * has weight left (the round is over; only at the first pass, since a
 * reset gives every class some), the scan would pass every active entry,
 * one per class, and ask none: those visits are counted class by class,
 * with the reset when it follows, without walking.
 *
 * sbt's weights count packets, so a class that answers with a packet is
 * served whatever its length, and @head may take the packet it answers
 * for (dt_pick_sbt_take()).  All but one ask: the lone-class test asks
 * for two senders and serves at most one, so it asks with @peek, which
 * must leave the packet where it is.
 */
static fq_always_inline int dt_pick_sbt_laps(struct dt_sched *s, dt_head_fn head,
					     dt_head_fn peek, void *ctx, bool one_word)
{
	fq_u32 senders;
	int pass, p, last = 0;
	bool round_over;

	s->free_ride = false;
	for (pass = 0; pass < 2; pass++) {
		struct dt_lap lap = dt_lap_start(s, one_word);

		round_over = !s->sbt_left;
		while (!round_over && (p = dt_lap_next(s, &lap, one_word)) >= 0) {
			fq_u32 cls = s->table[p].cls;
			struct dt_class *c = &s->cls[cls];

			c->visited++;
			if (!c->left) {
				c->skipped++;
				continue;
			}
			if (dt_ask(s, head, ctx, cls) >= 0)
				return dt_sbt_serve(s, p);
			/* looked up again: nothing is kept across the ask */
			s->cls[s->table[p].cls].skipped++;
		}
		/*
		 * Every class that can send is out of weight.  A lone one may
		 * go on (its idle peers keep what they have); otherwise, and
		 * when nobody has weight left, restore the table.  With none
		 * left anywhere, one sender is enough to know.
		 */
		senders = round_over ?
			  dt_sbt_senders(s, head, ctx, 1, &last, one_word) :
			  dt_sbt_senders(s, peek, ctx, 2, &last, one_word);
		if (senders == 1 && !round_over) {
			s->lone_sends++;
			s->free_ride = true;
			return dt_sbt_serve(s, last);
		}
		if (!senders) {
			if (round_over)
				dt_sbt_count_round(s, false);
			break;
		}
		if (round_over)
			dt_sbt_count_round(s, true);
		else
			dt_sbt_restore(s);
		s->sbt_left = s->sbt_total;
		s->resets++;
		if (round_over)
			return dt_sbt_first_sender(s, last, one_word);
	}
	s->empty_scans++;
	return -1;
}

/*
 * Algorithm 1 for either shape of table (dt_ror64()), for a caller whose
 * @take answers for a class's head by taking it: the class returned is
 * the one whose packet @take took, except after the lone-class test,
 * whose sender was only asked through @peek (the caller then takes its
 * head itself).  Taking saves a peek per packet.
 */
static fq_always_inline int dt_pick_sbt_take(struct dt_sched *s, dt_head_fn take,
					     dt_head_fn peek, void *ctx)
{
	if (s->n <= 64)
		return dt_pick_sbt_laps(s, take, peek, ctx, true);
	return dt_pick_sbt_laps(s, take, peek, ctx, false);
}

static fq_always_inline int dt_pick_sbt(struct dt_sched *s, dt_head_fn head, void *ctx)
{
	return dt_pick_sbt_take(s, head, head, ctx);
}

#endif
