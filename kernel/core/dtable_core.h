/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Table-based egress schedulers of the dtable qdisc (paper:
 * omni-path-qos-sbt-dtable, section 3), shared by sch_dtable.c, the unit
 * tests and qsim.  This file keeps the state they share (the table, the
 * classes, the walk's bits, the statistics); each mode's pick is in a
 * file of its own that it includes: dtable_walk.h, dtable_sbt.h,
 * dtable_rr.h.
 *
 * A table is a list of entries (class, weight).  Three disciplines walk it:
 *
 *  dtable  (Algorithm 2) the table is walked round robin to the next entry
 *          whose class is active; the class gets the entry's weight (in
 *          credits of @credit bytes) plus its deficit and sends while its
 *          head packet fits.  When the head no longer fits, or the
 *          class's child holds it back, what is left becomes the class's
 *          deficit, up to a packet size; when the class goes idle its
 *          deficit is cleared.  Real packet lengths are charged.
 *  sbt     (Algorithm 1) one entry per class, weights in packets: the class
 *          being served keeps sending while it has weight left, each packet
 *          costs one; the weights are restored when every active class has
 *          run out.  A lone active class may send with no weight left.
 *  rr      one packet per active class in table order (the baseline).
 *
 * The core holds no packets.  The caller tells it, through a callback, the
 * length of a class's head packet, or that the class is idle (no packet)
 * or held (packets, none allowed out now: a shaping child).  dt_pick()
 * names the class to send from; the caller takes the head packet and
 * reports it with dt_charge().  When a class empties, the caller says so:
 * dt_leave_dequeue() after its own dequeue (the class may stay marked
 * until the walk reaches it, dt_class_drained()), dt_class_idle() when
 * its child dropped its last packet.
 *
 * A child queue may drop packets while it is asked for its head or
 * dequeued (netem handing a packet to a tbf that refuses it, codel), and
 * the caller hears of it through dt_class_idle() from inside the call
 * (qdisc_tree_reduce_backlog() -> qlen_notify), sometimes while the
 * child still holds a packet it is about to hand over.  So every call
 * into a class's queue is bracketed by dt_enter() / dt_leave(): in
 * between, dt_class_idle() of that class is put off, and dt_leave()
 * makes the class active or idle by what its queue holds afterwards.
 * dt_pick() brackets its head() calls itself.  The state is then the
 * same whatever a child does meanwhile: no class is idle while its
 * queue holds a packet, and the class being served is never lost track
 * of in the middle of a pick.
 */
#ifndef FQ_DTABLE_CORE_H
#define FQ_DTABLE_CORE_H

#include "core_types.h"

#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <string.h>
#endif

#define DT_MAX_ENTRIES		4096
#define DT_MAX_CLASSES		256
#define DT_MAX_WEIGHT		(1U << 24)
#define DT_MAX_CREDIT		65536U

enum dt_mode {
	DT_MODE_DTABLE = 0,
	DT_MODE_SBT = 1,
	DT_MODE_RR = 2,
};

/* head callback results besides a length */
#define DT_IDLE		(-1)	/* no packet queued */
#define DT_HELD		(-2)	/* packets queued, none may leave now */

#define DT_NO_ENTRY	0xffff
#if DT_MAX_ENTRIES > DT_NO_ENTRY
#error "table positions are kept in 16 bits"
#endif

/*
 * A class's entries are found by 64-entry word, the walk bits' unit
 * (dt_set_table() sets the links): the class's first entry in each word
 * it has entries in holds their bits and the next such entry of the
 * class, so that marking a class or counting its idle passes takes a
 * step per word, at most 64, however many entries it has.
 */
struct dt_entry {
	fq_u16 cls;
	fq_u16 next_word;	/* on a class's first entry of a word: its first
				 * entry of the next word it has, DT_NO_ENTRY:
				 * none; elsewhere unused */
	fq_u32 weight;		/* dtable: credits; sbt: packets; rr: unused */
	fq_u64 word_bits;	/* on that entry: the class's entries of the
				 * word, as walk bits; elsewhere 0 */
};

/*
 * The unit tests count the steps of those lists (to show they stay
 * bounded); nothing else does.
 */
#ifndef DT_LIST_STEP
#define DT_LIST_STEP()	do { } while (0)
#endif

/*
 * 64 bytes, so that the picks find a class with a shift: sbt's weight is
 * its one entry's (dt_sbt_weight()), and a position fits 16 bits.
 */
struct dt_class {
	fq_u64 deficit;		/* dtable: bytes owed to the class */
	fq_u32 mtu;		/* largest packet the weights are sized for */
	fq_u32 left;		/* sbt: packets left in this round */
	fq_u16 first;		/* its first table entry, DT_NO_ENTRY: none */
	fq_u16 nent;		/* its table entries */
	bool active;		/* has packets (dt_class_active / _idle) */
	bool drained;		/* active, but our dequeue emptied it (lazy modes) */
	/* where the walk was when the class went idle (dtable, rr) */
	fq_u16 idle_pos;
	fq_u64 idle_walks;
	/* statistics, only grow */
	fq_u64 packets;
	fq_u64 bytes;
	fq_u64 visited;		/* table entries of this class the walk passed */
	fq_u64 skipped;		/* ... without the class sending (idle, held,
				 * head too long) */
};

struct dt_sched {
	struct dt_entry *table;
	fq_u32 n;		/* entries */
	fq_u32 credit;		/* bytes per weight unit (dtable) */
	fq_u32 rounds;		/* table walks a pick may need */
	fq_u8 mode;
	struct dt_class *cls;
	fq_u32 ncls;

	fq_u32 pos;		/* entry being served or last visited */
	fq_s32 cur;		/* dtable: class being served, -1 for none */
	fq_s32 asking;		/* class inside dt_enter() / dt_leave(), or -1 */
	fq_u64 acc;		/* dtable: accumulated weight of cur, bytes */
	bool free_ride;		/* sbt: this pick is the lone-class exception */
	fq_u64 sbt_left;	/* sbt: the classes' left, summed (the lone-class
				 * test reads it once per pick) */
	fq_u64 sbt_total;	/* sbt: every weight of the table, summed */

	/* statistics */
	fq_u64 walks;		/* passes through the whole table */
	fq_u64 empty_scans;	/* picks that found nothing to send */
	fq_u64 resets;		/* sbt weight restorations */
	fq_u64 lone_sends;	/* sbt packets sent on zero weight */

	/*
	 * dtable and rr walk only the entries whose class has packets: bit i
	 * is set while entry i's class is active, so an idle class costs
	 * nothing per packet.  The passes over an idle class's entries are
	 * counted when it wakes up (dt_idle_passes()), not one by one.
	 */
	fq_u64 emask[DT_MAX_ENTRIES / 64];
};

typedef int (*dt_head_fn)(void *ctx, fq_u32 cls);

/*
 * sbt's weight of class @c, restored at each reset: sbt takes one entry
 * per class (dt_table_check()).  Only read in sbt mode.
 */
static inline fq_u32 dt_sbt_weight(const struct dt_sched *s, const struct dt_class *c)
{
	return c->first == DT_NO_ENTRY ? 0 : s->table[c->first].weight;
}

/* Set or clear the walk bit of entry @e. */
static fq_always_inline void dt_mark_entry(struct dt_sched *s, fq_u32 e, bool on)
{
	if (on)
		s->emask[e / 64] |= 1ULL << (e % 64);
	else
		s->emask[e / 64] &= ~(1ULL << (e % 64));
}

/*
 * Set or clear the walk bits of a class of several entries, a word at a
 * time.  Out of line, as dt_idle_passes_words(): the loops' registers
 * would otherwise be saved at every enqueue that wakes a class.
 */
static fq_noinline void dt_mark_words(struct dt_sched *s, const struct dt_class *c, bool on)
{
	fq_u32 e;

	for (e = c->first; e != DT_NO_ENTRY; e = s->table[e].next_word) {
		DT_LIST_STEP();
		if (on)
			s->emask[e / 64] |= s->table[e].word_bits;
		else
			s->emask[e / 64] &= ~s->table[e].word_bits;
	}
}

/*
 * Set or clear the walk bits of class @c's entries.  A class of one
 * entry (every class of sbt's, which marks and clears at every wake-up
 * and drain) needs no walk of its list.
 */
static fq_always_inline void dt_mark(struct dt_sched *s, const struct dt_class *c, bool on)
{
	if (c->nent == 1)
		dt_mark_entry(s, c->first, on);
	else
		dt_mark_words(s, c, on);
}

/* The bits of word @word for the entries at or before position @pos. */
static fq_always_inline fq_u64 dt_bits_upto(fq_u32 pos, fq_u32 word)
{
	if (pos / 64 != word)
		return pos / 64 > word ? ~0ULL : 0;
	return (2ULL << (pos % 64)) - 1;	/* pos % 64 == 63: all */
}

/* dt_idle_passes()'s sum of the brackets, for a class of several entries */
static fq_noinline fq_u64 dt_idle_passes_words(const struct dt_sched *s,
					       const struct dt_class *c)
{
	fq_u64 passes = 0;
	fq_u32 e;

	for (e = c->first; e != DT_NO_ENTRY; e = s->table[e].next_word) {
		fq_u64 bits = s->table[e].word_bits;

		DT_LIST_STEP();
		/* mod 2^64, as the sum is: the total is not negative */
		passes += fq_popcount64(bits & dt_bits_upto(s->pos, e / 64));
		passes -= fq_popcount64(bits & dt_bits_upto(c->idle_pos, e / 64));
	}
	return passes;
}

/*
 * Passes of the walk over idle class @c's entries since it went idle.
 * With W = walks x n + pos the walk's position, entry i is passed once
 * per k in (W1, W2] with k = i mod n, which is (walks2 - walks1) +
 * [i <= pos2] - [i <= pos1]: no division, and the brackets summed over a
 * word's entries are the set bits up to each position.
 */
static inline fq_u64 dt_idle_passes(const struct dt_sched *s, const struct dt_class *c)
{
	fq_u64 passes = s->walks - c->idle_walks;

	if (c->nent == 1)	/* as dt_mark() */
		return passes + (c->first <= s->pos) - (c->first <= c->idle_pos);
	return passes * c->nent + dt_idle_passes_words(s, c);
}

static inline bool dt_counts_lazily(const struct dt_sched *s)
{
	return true;	/* every mode walks the active entries only */
}

/*
 * Fold an idle class's passes into its statistics.  The count is not
 * restarted here: both callers are done with it (the class becomes
 * active, which reads neither mark until dt_class_idle() sets them, or
 * dt_set_table() sets them for every class), so storing them here was
 * work thrown away on every wake-up.
 */
static inline void dt_fold_idle(struct dt_sched *s, struct dt_class *c)
{
	if (!c->active && dt_counts_lazily(s)) {
		fq_u64 p = dt_idle_passes(s, c);

		c->visited += p;
		c->skipped += p;
	}
}

/* Active class @c leaves the walk, which counts its passes from here. */
static fq_always_inline void dt_unmark_idle(struct dt_sched *s, struct dt_class *c)
{
	c->active = false;
	c->idle_walks = s->walks;
	c->idle_pos = (fq_u16)s->pos;
	dt_mark(s, c, false);
}

/*
 * Class @cls has no packet left: it loses its deficit and the link.
 * Idempotent.  Inside dt_enter() / dt_leave() of the same class it is put
 * off: dt_leave() decides from what the queue holds then.
 */
static inline void dt_class_idle(struct dt_sched *s, fq_u32 cls)
{
	struct dt_class *c;

	if (cls >= s->ncls || (fq_s32)cls == s->asking)
		return;
	c = &s->cls[cls];
	c->deficit = 0;
	c->drained = false;
	if (s->cur == (fq_s32)cls) {
		s->cur = -1;
		s->acc = 0;
	}
	if (c->active)
		dt_unmark_idle(s, c);
}

/*
 * What a class that gives up the link with @acc bytes in hand keeps as
 * deficit: at most one packet size.  A head that does not fit leaves
 * less than that already (dt_fits()); a child that holds its packets
 * back (tbf, netem, fq pacing a socket) leaves the link with most of
 * its entry's weight unused, and were that kept, each visit that sent
 * a packet and then found the child holding would add an entry's
 * weight, without bound, for the class to spend in one run once the
 * child lets go while every other class waits.  As in DRR, weight a
 * class could not use is not banked.
 */
static fq_always_inline fq_u64 dt_kept_deficit(const struct dt_class *c, fq_u64 acc)
{
	return acc < c->mtu ? acc : c->mtu;
}

/*
 * Would installing @table (@n entries), @mode and @credit change the
 * schedule @s runs?  The class mtus are the caller's to compare.  Entries
 * are compared by class and weight (the links are dt_set_table()'s).
 */
static inline bool dt_same_schedule(const struct dt_sched *s, const struct dt_entry *table,
				    fq_u32 n, fq_u8 mode, fq_u32 credit)
{
	fq_u32 i;

	if (!s->table || n != s->n || mode != s->mode || (credit ? credit : 1) != s->credit)
		return false;
	if (table == s->table)
		return true;
	for (i = 0; i < n; i++)
		if (table[i].cls != s->table[i].cls || table[i].weight != s->table[i].weight)
			return false;
	return true;
}

/*
 * Install @table (@n entries) on @s; its class lists by word are (re)made.
 * Queued packets stay where they are: the class being served keeps what
 * it holds as deficit; every deficit is held to its class's packet size
 * (dt_kept_deficit()), or cleared by a new mode; the walk restarts at the
 * first entry, sbt weights restart full.  Every install gives the first
 * entry's class its weight again, so the caller installs only a schedule
 * that changed (dt_same_schedule()).  The caller has validated the table
 * (dt_table_check()).
 */
static inline void dt_set_table(struct dt_sched *s, struct dt_entry *table,
				fq_u32 n, fq_u8 mode, fq_u32 credit)
{
	fq_u32 i, rounds = 1;

	if (s->cur >= 0 && mode == DT_MODE_DTABLE)
		s->cls[s->cur].deficit = s->acc;
	for (i = 0; i < s->ncls; i++) {
		struct dt_class *c = &s->cls[i];

		/*
		 * only dtable mode owes deficits: none comes back from an
		 * earlier spell of it after sbt or rr; and none above a
		 * class's mtu, which the change may have lowered
		 */
		c->deficit = mode != s->mode ? 0 : dt_kept_deficit(c, c->deficit);
	}
	if (s->table) {
		/*
		 * A drained class is idle from here: the new walk (or sbt,
		 * which drains eagerly) must not find it marked.  The walk
		 * has not passed it since it drained, or it would be idle
		 * already, so no pass is lost.
		 */
		for (i = 0; i < s->ncls; i++) {
			if (s->cls[i].drained)
				dt_class_idle(s, i);
			dt_fold_idle(s, &s->cls[i]);
		}
	}
	s->table = table;
	s->n = n;
	s->mode = mode;
	s->credit = credit ? credit : 1;
	s->cur = -1;
	s->acc = 0;
	s->free_ride = false;
	/* the first walk starts at entry 0 (sbt scans from pos itself) */
	s->pos = mode == DT_MODE_SBT ? 0 : n - 1;
	for (i = 0; i < s->ncls; i++) {
		s->cls[i].first = DT_NO_ENTRY;
		s->cls[i].nent = 0;
	}
	s->sbt_total = 0;
	/*
	 * links built backwards so each list is in table order: an entry in
	 * the word of its class's first so far takes over that word's bits
	 */
	for (i = n; i-- > 0; ) {
		struct dt_class *c = &s->cls[table[i].cls];
		fq_u64 w = (fq_u64)table[i].weight * s->credit;
		fq_u32 r;

		table[i].word_bits = 1ULL << (i % 64);
		table[i].next_word = c->first;
		if (c->first != DT_NO_ENTRY && c->first / 64 == i / 64) {
			struct dt_entry *prev = &table[c->first];

			table[i].word_bits |= prev->word_bits;
			table[i].next_word = prev->next_word;
			prev->word_bits = 0;
			prev->next_word = DT_NO_ENTRY;
		}
		c->first = (fq_u16)i;
		c->nent++;
		s->sbt_total += table[i].weight;
		/* walks an entry needs before its class's largest packet fits */
		r = w ? (fq_u32)fq_div64(c->mtu + w - 1, w) : 1;
		if (r > rounds)
			rounds = r;
	}
	for (i = 0; i < DT_MAX_ENTRIES / 64; i++)
		s->emask[i] = 0;
	s->sbt_left = s->sbt_total;
	for (i = 0; i < s->ncls; i++) {
		struct dt_class *c = &s->cls[i];

		c->left = dt_sbt_weight(s, c);
		c->idle_walks = s->walks;
		c->idle_pos = (fq_u16)s->pos;
		if (c->active)
			dt_mark(s, c, true);
	}
	s->rounds = rounds;
}

static inline void dt_init(struct dt_sched *s, struct dt_class *cls, fq_u32 ncls,
			   struct dt_entry *table, fq_u32 n, fq_u8 mode,
			   fq_u32 credit)
{
	*s = (struct dt_sched){ .cur = -1, .asking = -1 };
	s->cls = cls;
	s->ncls = ncls;
	dt_set_table(s, table, n, mode, credit);
}

/* Idle class @c has packets now. */
static fq_always_inline void dt_wake(struct dt_sched *s, struct dt_class *c)
{
	dt_fold_idle(s, c);
	c->active = true;
	dt_mark(s, c, true);
}

/*
 * The same for a class of several entries, out of line, so that the
 * enqueue's common case (a class active already) saves no register
 * for its lists' loops.
 */
static fq_noinline void dt_wake_words(struct dt_sched *s, struct dt_class *c)
{
	dt_wake(s, c);
}

/* Class @cls has packets now (idempotent: call after every enqueue). */
static fq_always_inline void dt_class_active(struct dt_sched *s, fq_u32 cls)
{
	struct dt_class *c = &s->cls[cls];

	if (c->active) {
		c->drained = false;
		return;
	}
	if (c->nent == 1)
		dt_wake(s, c);
	else
		dt_wake_words(s, c);
}

/*
 * Does an emptied class keep its walk bits until the walk reaches it?
 * dtable and rr: yes.  A class that empties is usually refilled before
 * the walk comes back to it (every class of a steady load empties and
 * fills again with each packet), and then its bits never change: an
 * eager idle cleared them, and counted its idle passes, only to set them
 * again at its next packet.  When the walk does reach a drained class,
 * it asks for its head, finds nothing and makes it idle there: the same
 * pick, the same visits counted, the cost of the eager way moved to that
 * visit.  sbt: no, its scan starts at the class served last, which is
 * the one that just drained, so that visit would always be paid.
 */
static inline bool dt_drains_lazily(const struct dt_sched *s)
{
	return s->mode != DT_MODE_SBT;
}

/*
 * Our own dequeue emptied class @cls: like dt_class_idle(), it loses its
 * deficit and the link at once; in the lazy modes it stays active (its
 * bits set) until the walk finds it empty or a packet comes.  Only an
 * active class is drained (one that is not has nothing to keep).
 */
static fq_always_inline void dt_class_drained(struct dt_sched *s, fq_u32 cls)
{
	if (!dt_drains_lazily(s) || !s->cls[cls].active) {
		dt_class_idle(s, cls);
		return;
	}
	s->cls[cls].deficit = 0;
	s->cls[cls].drained = true;
	if (s->cur == (fq_s32)cls) {
		s->cur = -1;
		s->acc = 0;
	}
}

/*
 * Bracket a call into class @cls's queue (a peek, a dequeue) during which
 * the queue may report drops back through dt_class_idle().  @has_packets:
 * does the queue hold a packet afterwards (queued or held back)?
 */
static fq_always_inline void dt_enter(struct dt_sched *s, fq_u32 cls)
{
	s->asking = (fq_s32)cls;
}

static fq_always_inline void dt_leave(struct dt_sched *s, fq_u32 cls, bool has_packets)
{
	s->asking = -1;
	if (has_packets)
		dt_class_active(s, cls);
	else
		dt_class_idle(s, cls);
}

/*
 * dt_leave() after our dequeue of class @cls's head: an empty class is
 * drained (dt_class_drained()), not idle.
 */
static fq_always_inline void dt_leave_dequeue(struct dt_sched *s, fq_u32 cls, bool has_packets)
{
	s->asking = -1;
	if (has_packets)
		dt_class_active(s, cls);
	else
		dt_class_drained(s, cls);
}

/*
 * head() of class @cls, bracketed: its answer is what the state becomes.
 * Only the picks ask, and only an active class (a marked entry's, or
 * dtable's cur).  One that answers with a packet, queued or held, got it
 * through dt_class_active(), which cleared drained: a drained class's
 * packets were gone.  So such an answer leaves the state as it is, and
 * only an empty one changes it; dt_leave()'s dt_class_active() would be
 * a load, a test and a store per ask for nothing (the random children
 * test checks that no drained class holds a packet).
 */
static fq_always_inline int dt_ask(struct dt_sched *s, dt_head_fn head, void *ctx, fq_u32 cls)
{
	int len;

	dt_enter(s, cls);
	len = head(ctx, cls);
	s->asking = -1;
	if (len == DT_IDLE)
		dt_class_idle(s, cls);
	return len;
}

/* statistics: entries passed and skipped, idle passes included */
static inline fq_u64 dt_class_visited(const struct dt_sched *s, fq_u32 cls)
{
	const struct dt_class *c = &s->cls[cls];

	return c->visited + (!c->active && dt_counts_lazily(s) ? dt_idle_passes(s, c) : 0);
}

static inline fq_u64 dt_class_skipped(const struct dt_sched *s, fq_u32 cls)
{
	const struct dt_class *c = &s->cls[cls];

	return c->skipped + (!c->active && dt_counts_lazily(s) ? dt_idle_passes(s, c) : 0);
}

/*
 * The first entry after @from, cyclically, whose class is active; -1 when
 * none is.  At most one look per 64 entries.
 */
static fq_always_inline int dt_next_active(const struct dt_sched *s, fq_u32 from)
{
	fq_u32 words, i, k;

	/*
	 * A table of one word (most are: one entry per class, a few
	 * classes) needs no loop: the bits after @from, else the first.
	 * No bit at or beyond n is ever set, so @from + 1 needs no wrap
	 * (shifted twice: by 64 at once would be undefined).
	 */
	if (s->n <= 64) {
		fq_u64 all = s->emask[0], m = all & ((~0ULL << from) << 1);

		if (m)
			return __builtin_ctzll(m);
		return all ? __builtin_ctzll(all) : -1;
	}
	words = (s->n + 63) / 64;
	i = from + 1 >= s->n ? 0 : from + 1;
	for (k = 0; k <= words; k++) {
		fq_u32 w = i / 64;
		fq_u64 m = s->emask[w] & (~0ULL << (i % 64));

		if (m)
			return (int)(w * 64 + __builtin_ctzll(m));
		i = (w + 1) * 64;
		if (i >= s->n)
			i = 0;
	}
	return -1;
}

/* Why dt_table_check() refuses a table. */
enum dt_table_err {
	DT_TABLE_OK,
	DT_TABLE_EMPTY,
	DT_TABLE_TOO_LONG,
	DT_TABLE_BAD_CREDIT,
	DT_TABLE_NO_CLASS,
	DT_TABLE_ZERO_WEIGHT,
	DT_TABLE_HEAVY,
	DT_TABLE_BELOW_MTU,
	DT_TABLE_SBT_DUP,
	DT_TABLE_UNSERVED,
};

static inline const char *dt_table_strerror(int err)
{
	switch (err) {
	case DT_TABLE_OK:		return "ok";
	case DT_TABLE_EMPTY:		return "the table has no entries";
	case DT_TABLE_TOO_LONG:		return "too many table entries";
	case DT_TABLE_BAD_CREDIT:	return "credit out of range";
	case DT_TABLE_NO_CLASS:		return "a table entry names a class that does not exist";
	case DT_TABLE_ZERO_WEIGHT:	return "a table entry has weight zero";
	case DT_TABLE_HEAVY:		return "a table entry's weight is too large";
	case DT_TABLE_BELOW_MTU:	return "a table entry's weight is below its class's packet size";
	case DT_TABLE_SBT_DUP:		return "sbt takes one entry per class";
	default:			return "a class has no table entry";
	}
}

/*
 * Why a table is refused (DT_TABLE_*), or DT_TABLE_OK.  @mtu[c] is class
 * c's packet size in bytes (weights below it are refused in dtable mode,
 * so that one walk of the table always finds a sender).  @bad gets the
 * offending entry (or class, for DT_TABLE_UNSERVED).
 */
static inline int dt_table_check(const struct dt_entry *table, fq_u32 n,
				 fq_u8 mode, fq_u32 credit,
				 const fq_u32 *mtu, fq_u32 ncls, fq_u32 *bad)
{
	fq_u32 seen[DT_MAX_CLASSES / 32] = { 0 };
	fq_u32 i;

	*bad = 0;
	if (!n)
		return DT_TABLE_EMPTY;
	if (n > DT_MAX_ENTRIES)
		return DT_TABLE_TOO_LONG;
	if (!credit || credit > DT_MAX_CREDIT)
		return DT_TABLE_BAD_CREDIT;
	for (i = 0; i < n; i++) {
		const struct dt_entry *e = &table[i];

		*bad = i;
		if (e->cls >= ncls)
			return DT_TABLE_NO_CLASS;
		if (mode != DT_MODE_RR && !e->weight)
			return DT_TABLE_ZERO_WEIGHT;
		if (e->weight > DT_MAX_WEIGHT)
			return DT_TABLE_HEAVY;
		if (mode == DT_MODE_DTABLE &&
		    (fq_u64)e->weight * credit < mtu[e->cls])
			return DT_TABLE_BELOW_MTU;
		if (mode == DT_MODE_SBT && (seen[e->cls / 32] & (1U << (e->cls % 32))))
			return DT_TABLE_SBT_DUP;
		seen[e->cls / 32] |= 1U << (e->cls % 32);
	}
	for (i = 0; i < ncls; i++) {
		if (!(seen[i / 32] & (1U << (i % 32)))) {
			*bad = i;
			return DT_TABLE_UNSERVED;
		}
	}
	return DT_TABLE_OK;
}

/*
 * dt_walk_finds_empty: how the walks of dtable and rr treat an entry
 * whose class turns out empty when asked (drained by our dequeue, or its
 * child dropped what it held).  dt_ask() makes the class idle while the
 * walk still stands where it was, and the walk goes on to the next
 * marked entry without moving onto this one.  So the class's passes are
 * counted as any idle class's are, by position (dt_idle_passes()), a
 * pick counts only visits to classes with packets against its bound
 * (each empty visit clears bits, so there are at most n of them), and
 * the walk ends where it would have ended had the class been made idle
 * the moment it emptied: the lazy drain changes no decision and no count.
 */

/*
 * The classes one pick found held.  A head held now is held for the
 * rest of the pick, so a class with many entries is asked at its first
 * and passed at the others: a class held behind a shaping child on 4095
 * of 4096 entries was asked 4095 times a packet.  A pick goes on in a
 * walk that keeps this set (out of line, dt_walk_dtable_held()) only
 * once it meets a held class, so the walk of a pick that meets none has
 * no more to do than before (core_cost: the set in every walk cost 4
 * instructions a packet, 7 in rr).
 */
struct dt_held {
	fq_u32 bits[DT_MAX_CLASSES / 32];
};

static fq_always_inline bool dt_held_known(const struct dt_held *h, fq_u32 cls)
{
	return h->bits[cls / 32] & (1U << (cls % 32));
}

static fq_always_inline void dt_held_note(struct dt_held *h, fq_u32 cls)
{
	h->bits[cls / 32] |= 1U << (cls % 32);
}

/* dt_ask(), or DT_HELD for a class in @held (NULL: none is yet). */
static fq_always_inline int dt_ask_unless_held(struct dt_sched *s, const struct dt_held *held,
					       dt_head_fn head, void *ctx, fq_u32 cls)
{
	if (held && dt_held_known(held, cls))
		return DT_HELD;
	return dt_ask(s, head, ctx, cls);
}

/* The set of a pick that has just found its first held class, @cls. */
static fq_always_inline struct dt_held *dt_held_start(struct dt_held *h, fq_u32 cls)
{
	memset(h, 0, sizeof(*h));
	dt_held_note(h, cls);
	return h;
}

#include "dtable_walk.h"
#include "dtable_sbt.h"
#include "dtable_rr.h"

/*
 * dt_pick() for a caller that knows the mode (@mode is s->mode): the
 * qdisc compiles one dequeue per mode, each with registers allocated for
 * its own pick, which costs less than the three picks inlined together.
 */
static fq_always_inline int dt_pick_mode(struct dt_sched *s, fq_u8 mode,
					 dt_head_fn head, void *ctx)
{
	/* s->n >= 1: dt_table_check() refuses an empty table */
	switch (mode) {
	case DT_MODE_SBT:
		return dt_pick_sbt(s, head, ctx);
	case DT_MODE_RR:
		return dt_pick_rr(s, head, ctx);
	default:
		return dt_pick_dtable(s, head, ctx);
	}
}

static fq_always_inline int dt_pick(struct dt_sched *s, dt_head_fn head, void *ctx)
{
	return dt_pick_mode(s, s->mode, head, ctx);
}

/*
 * The head of class @cls, just picked in @mode (s->mode), @len bytes, has
 * left.  In dtable mode the class picked is cur (dt_pick_dtable() returns
 * no other), and it pays from what it holds.
 */
static fq_always_inline void dt_charge_mode(struct dt_sched *s, fq_u8 mode,
					    fq_u32 cls, fq_u32 len)
{
	struct dt_class *c = &s->cls[cls];

	c->packets++;
	c->bytes += len;
	switch (mode) {
	case DT_MODE_DTABLE:
		s->acc -= len < s->acc ? len : s->acc;
		break;
	case DT_MODE_SBT:
		if (!s->free_ride && c->left) {
			c->left--;
			s->sbt_left--;
		}
		s->free_ride = false;
		break;
	default:
		break;
	}
}

static fq_always_inline void dt_charge(struct dt_sched *s, fq_u32 cls, fq_u32 len)
{
	dt_charge_mode(s, s->mode, cls, len);
}

/*
 * Our dequeue of the head of class @cls, just picked in @mode (s->mode),
 * gave a packet of @len bytes: dt_charge() and dt_leave_dequeue() in one.
 * @has_packets: does the class's queue hold a packet now?  What the pick
 * left known is not looked at again: the class is active and not drained
 * (dt_ask()), an idle notice from inside the dequeue was put off by
 * dt_enter(), and in dtable mode the class is cur.  So a class that
 * still holds a packet needs nothing more, and one that is empty now is
 * drained without the tests of dt_class_drained() (sbt: made idle).
 */
static fq_always_inline void dt_sent_mode(struct dt_sched *s, fq_u8 mode, fq_u32 cls,
					  fq_u32 len, bool has_packets)
{
	struct dt_class *c = &s->cls[cls];

	s->asking = -1;
	if (has_packets || mode == DT_MODE_SBT) {
		dt_charge_mode(s, mode, cls, len);
		/*
		 * sbt: dt_class_idle() without its tests: the class is valid
		 * and active, sbt drains none lazily and serves no cur.
		 */
		if (!has_packets) {
			c->deficit = 0;	/* what dtable mode left, if it ran */
			dt_unmark_idle(s, c);
		}
		return;
	}
	/* drained (dt_drains_lazily()): no charge, dtable's remainder goes */
	c->packets++;
	c->bytes += len;
	if (mode == DT_MODE_DTABLE) {
		s->cur = -1;
		s->acc = 0;
	}
	c->deficit = 0;
	c->drained = true;
}

static fq_always_inline void dt_sent(struct dt_sched *s, fq_u32 cls, fq_u32 len,
				     bool has_packets)
{
	dt_sent_mode(s, s->mode, cls, len, has_packets);
}

/* A class's deficit as statistics show it (the served one holds acc). */
static inline fq_u64 dt_class_deficit(const struct dt_sched *s, fq_u32 cls)
{
	if (s->mode == DT_MODE_DTABLE && s->cur == (fq_s32)cls)
		return s->acc;
	return s->cls[cls].deficit;
}

#endif /* FQ_DTABLE_CORE_H */
