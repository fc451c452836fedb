/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Lane schedulers of the aoq qdisc (paper: aoq-anchored-opportunity-
 * queueing, sections 3 and 4), shared by sch_aoq.c, the unit tests and
 * the flit-level simulator (qsim lanes).
 *
 * The unit the scheduler hands out is one "opportunity": a visit to a lane
 * in which the lane may send one unit (a flit in the simulator, a wire
 * frame in the qdisc).  A visit counts whether or not the lane can use it:
 * a lane that is active (in the middle of a message, or with frames
 * waiting) but cannot send now (a pipeline bubble, a child qdisc holding
 * its frames back) is offered the opportunity and leaves it unused.
 *
 *   aoq   the anchor lane gets the first opportunity of every cycle until
 *         the tail of its message is sent; when it cannot send, the other
 *         active lanes are visited in increasing order of their
 *         opportunity count until one sends.  The next anchor is the lane
 *         with the fewest opportunities.  Counts are normalised by the
 *         lane's weight.  RFB <= 2M (Theorem 1).
 *   fbrr  one unit per lane in round robin.
 *   arr   anchored round robin: the anchor first, then the others in
 *         round robin; anchors are taken in round robin.
 *   pbrr  whole message per turn: only the current lane is visited, the
 *         link idles while it cannot send.
 *
 * The caller supplies two callbacks: send() tries to send one unit of a
 * lane and says whether it was the tail of a message; backlogged() says
 * whether the lane still has units waiting.  The core keeps no packets.
 * Lanes that lost their backlog without finishing a message in progress
 * are found lazily on their next visit, so the callbacks may not re-enter
 * the core and the caller never has to tell it about drops.
 *
 * Hostile senders: a message that makes no progress for the stall time is
 * given up, and one that goes on for msg_limit units is ended there (a
 * forced tail), so no sender holds the anchor for longer than either.
 *
 * Opportunity counts are u64 that only grow within a busy period; a link
 * that never drains never restarts them, and they wrap.  They are only
 * ever compared by signed difference (as time_after() does), which is
 * right while the two counts are less than 2^63 apart: counts of active
 * lanes stay within M of each other (Lemma 2), and an idle lane's count
 * is looked at only while it is ahead of VirtualCount (the lead bitmap),
 * a lead checked again every 2^61 of VirtualCount.
 *
 * Relative fairness (paper, Definition 4): RF(t1, t2) is the largest
 * difference of the opportunities two lanes were offered over an interval
 * in which both were active, RFB its maximum.  A caller that gives the
 * core a struct aoq_rf has it measured exactly, in every mode, at O(active
 * lanes) per cycle (the simulator and the unit tests do; the qdisc does
 * not).  max_spread, the largest difference of two active lanes' counts,
 * is Lemma 2's quantity and means something only in mode aoq, where the
 * counts are the scheduler's state: RF <= 2 * max_spread there.
 */
#ifndef FQ_AOQ_CORE_H
#define FQ_AOQ_CORE_H

#include "core_types.h"

#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <string.h>
#endif

#define AOQ_MAX_LANES		64
#define AOQ_WEIGHT_MAX		256
/* one opportunity at weight 1; divisible by every weight up to 16 */
#define AOQ_OC_UNIT		(720720ULL * 64)
/* units in a message before the core ends it (a forced tail); 0: none */
#define AOQ_MSG_LIMIT_DEFAULT	256
/* VirtualCount advance between two checks of the idle lanes' leads */
#define AOQ_OC_RECHECK		(1ULL << 61)
/* relative fairness saturates here (2^62 / AOQ_OC_UNIT opportunities) */
#define AOQ_RF_CAP		(1ULL << 62)
#define AOQ_RF_PAIRS		(AOQ_MAX_LANES * (AOQ_MAX_LANES - 1) / 2)

enum aoq_mode {
	AOQ_MODE_AOQ,
	AOQ_MODE_FBRR,
	AOQ_MODE_ARR,
	AOQ_MODE_PBRR,
	AOQ_MODE_COUNT,
};

/* what send() did */
enum aoq_tx {
	AOQ_TX_NONE,		/* nothing could go: opportunity not used */
	AOQ_TX_UNIT,		/* a unit inside a message went */
	AOQ_TX_TAIL,		/* the last unit of a message went */
};

struct aoq_ops {
	enum aoq_tx (*send)(void *ctx, unsigned int lane);
	bool (*backlogged)(void *ctx, unsigned int lane);
	/* the time, for a caller that passes AOQ_NOW_LAZY (aoq_time()) */
	fq_u64 (*now)(void *ctx);
};

/*
 * The time of a cycle, passed to aoq_dequeue() and aoq_sweep(), or this:
 * read it with ops->now() if the cycle needs it.  Only a stall needs the
 * time: a lane's progress is stamped when it sends a unit that leaves it
 * in a message and when it becomes the anchor and keeps the role past
 * the cycle, and looked at in a lane in a message or an anchor.  A
 * cycle of frames that are messages of their own needs neither, and a
 * qdisc's clock read costs as much as the rest of its bookkeeping.
 */
#define AOQ_NOW_LAZY	(~(fq_u64)0)

struct aoq_lane {
	fq_u64 oc;		/* opportunity count, AOQ_OC_UNIT / weight per visit */
	fq_u64 inc;		/* AOQ_OC_UNIT / weight */
	/*
	 * Opportunities offered, in oc units, never rebased; counted only
	 * while relative fairness is measured (aoq_measures_rf()), so a
	 * struct aoq_rf must be attached before the first cycle.
	 */
	fq_u64 wopp;
	/*
	 * Time of the last unit sent or of anchoring: a stall is looked
	 * for only in a lane that is busy (a unit of its message went) or
	 * the anchor, and both set it, so arrival and a tail do not (they
	 * need no clock).
	 */
	fq_u64 progress;
	fq_u64 offered;		/* opportunities offered (visits), only grows */
	fq_u64 used;		/* opportunities that sent a unit */
	fq_u64 messages;	/* tails sent, forced ones included */
	fq_u64 abandoned;	/* messages given up after a stall */
	fq_u64 forced;		/* messages ended at msg_limit units */
	fq_u64 msg_opps;	/* opportunities offered since the last tail */
	fq_u64 max_msg_opps;	/* most opportunities one message took */
	fq_u32 msg_units;	/* units sent of the message in progress */
	fq_u32 weight;
	bool active;		/* busy or backlogged */
	bool busy;		/* a message has started and its tail has not gone */
	/*
	 * The last message queued lost its tail (aoq_lane_cut()): once its
	 * last frame has gone, the message is over; any frame queued after
	 * it continues it instead.
	 */
	bool cut;
	/*
	 * To 128 bytes, so that a lane's address is its index shifted: at
	 * 104 it took three instructions, each of the many times a cycle
	 * finds a lane (make profile).
	 */
	fq_u8 pad[128 - 11 * 8 - 2 * 4 - 3];
};

/* Extremes of D = wopp[i] - wopp[j] (i < j) since both became active. */
struct aoq_rf_pair {
	fq_u64 hi, lo;
};

/* Relative fairness, measured when the caller provides this (s->rf). */
struct aoq_rf {
	fq_u64 max;		/* largest RF(t1, t2) seen, in oc units */
	struct aoq_rf_pair pair[AOQ_RF_PAIRS];
};

struct aoq_sched {
	enum aoq_mode mode;
	unsigned int nlanes;	/* lanes 0 .. nlanes - 1 exist */
	int anchor;		/* -1: AnchorVLValid == FALSE */
	/*
	 * aoq: the ActiveList, anchor excluded, sorted by oc: a ring of
	 * nlist lanes from list[lhead] (aoq_list_at()), so that taking its
	 * head, once per message, moves nothing (the array it was cost a
	 * memmove per frame in the kernel).
	 */
	unsigned int nlist;
	unsigned int lhead;
	fq_u8 list[AOQ_MAX_LANES];
	unsigned int rr;	/* round robin position (fbrr, arr strays) */
	unsigned int rr_anchor;	/* next anchor candidate (arr, pbrr) */
	unsigned int nactive;
	fq_u64 active_mask;	/* bit per active lane */
	fq_u64 visited;		/* lanes visited in the cycle under way (rf only) */
	/*
	 * Idle lanes whose count was ahead of VirtualCount when they went
	 * idle: they come back with it (Eq. 1).  Every other lane comes back
	 * at VirtualCount whatever its stale count says, so the end of a
	 * busy period only clears this mask, and no per-lane flag can
	 * disagree with it.
	 */
	fq_u64 lead;
	fq_u64 vcount;		/* VirtualCount */
	fq_u64 vcount_checked;	/* VirtualCount when the leads were last checked */
	fq_u64 stall;		/* give up a message after this long without progress; 0: never */
	fq_u32 msg_limit;	/* end a message after this many units; 0: never */
	fq_u64 max_spread_oc;	/* mode aoq: largest oc difference between active lanes (aoq_max_spread()) */
	fq_u64 max_msg_opps;	/* M: most opportunities one message took, any lane */
	fq_u64 busy_periods;	/* busy periods ended */
	fq_u64 abandoned;	/* messages given up, all lanes, lanes since deleted too */
	fq_u64 forced;		/* forced tails, likewise */
	bool in_busy_period;	/* some lane became active since the last end */
	/*
	 * The anchor was chosen in the cycle under way: its progress is
	 * this cycle's time, stamped at the end of the cycle if it is
	 * still the anchor (aoq_stamp_anchor()).
	 */
	bool anchor_fresh;
	fq_u64 now;		/* the cycle's time, or AOQ_NOW_LAZY: not read yet */
	struct aoq_rf *rf;	/* relative fairness measure, or NULL */
	struct aoq_lane lane[AOQ_MAX_LANES];
};

/* Wrap-safe comparison of two opportunity counts: a before b. */
static inline bool aoq_oc_before(fq_u64 a, fq_u64 b)
{
	return (fq_s64)(a - b) < 0;
}

/*
 * Is relative fairness measured (s->rf)?  Never in the kernel: the qdisc
 * does not measure it, and the test at every arrival cost the enqueue 8
 * instructions per frame (make profile; the compiler's register choices
 * around the inlined measure, not the test itself).  The test in the
 * cycle costs nothing measurable and stays.
 */
static inline bool aoq_measures_rf(const struct aoq_sched *s)
{
#ifdef __KERNEL__
	return false;
#else
	return s->rf;
#endif
}

static inline fq_u64 aoq_bit(unsigned int lane)
{
	return (fq_u64)1 << lane;
}

/* Lowest lane in a non-empty mask. */
static inline unsigned int aoq_first(fq_u64 mask)
{
	return (unsigned int)__builtin_ctzll(mask);
}

static inline fq_u64 aoq_weight_inc(fq_u32 weight)
{
	if (!weight)
		weight = 1;
	return fq_div64(AOQ_OC_UNIT, weight);
}

/* The time of the cycle under way, read from the caller at most once. */
static inline fq_u64 aoq_time(struct aoq_sched *s, const struct aoq_ops *ops,
			      void *ctx)
{
	if (s->now == AOQ_NOW_LAZY)
		s->now = ops->now(ctx);
	return s->now;
}

static inline void aoq_init(struct aoq_sched *s, enum aoq_mode mode,
			    unsigned int nlanes)
{
	unsigned int i;

	memset(s, 0, sizeof(*s));
	s->mode = mode;
	s->anchor = -1;
	s->nlanes = nlanes > AOQ_MAX_LANES ? AOQ_MAX_LANES : nlanes;
	s->msg_limit = AOQ_MSG_LIMIT_DEFAULT;
	for (i = 0; i < AOQ_MAX_LANES; i++) {
		s->lane[i].weight = 1;
		s->lane[i].inc = aoq_weight_inc(1);
	}
}

static inline void aoq_set_weight(struct aoq_sched *s, unsigned int lane,
				  fq_u32 weight)
{
	if (!weight)
		weight = 1;
	if (weight > AOQ_WEIGHT_MAX)
		weight = AOQ_WEIGHT_MAX;
	s->lane[lane].weight = weight;
	s->lane[lane].inc = aoq_weight_inc(weight);
}

/*
 * Change discipline on the fly: lanes keep their activity, the anchor is
 * dropped, the counts start level and the list is rebuilt for the new
 * mode.
 */
/*
 * The message whose frames were queued last in @lane lost its tail (a
 * GSO packet's last segment refused by the lane's child): it ends when
 * its last frame has gone, not after the stall time with the lane busy
 * and empty, which under pbrr holds the link.  After the frames that
 * were queued; a frame queued later clears it (aoq_lane_arrive()).
 */
static inline void aoq_lane_cut(struct aoq_sched *s, unsigned int lane)
{
	if (lane < s->nlanes)
		s->lane[lane].cut = true;
}

static inline void aoq_set_mode(struct aoq_sched *s, enum aoq_mode mode);

static inline bool aoq_lane_is_active(const struct aoq_sched *s,
				      unsigned int lane)
{
	return s->lane[lane].active;
}

/*
 * A lane's opportunity count as the scheduler sees it: its own while it
 * is active or idle ahead, else VirtualCount, where it would start.
 */
static inline fq_u64 aoq_lane_count(const struct aoq_sched *s,
				    unsigned int lane)
{
	if (s->lane[lane].active || (s->lead & ((fq_u64)1 << lane)))
		return s->lane[lane].oc;
	return s->vcount;
}

#define AOQ_LIST_MASK	(AOQ_MAX_LANES - 1)
#if AOQ_MAX_LANES & AOQ_LIST_MASK
#error "the ActiveList ring needs AOQ_MAX_LANES a power of two"
#endif

/* The lane at position @pos of the ActiveList (0: the head). */
static fq_always_inline unsigned int aoq_list_at(const struct aoq_sched *s,
						 unsigned int pos)
{
	return s->list[(s->lhead + pos) & AOQ_LIST_MASK];
}

static fq_always_inline void aoq_list_put(struct aoq_sched *s, unsigned int pos,
					  unsigned int lane)
{
	s->list[(s->lhead + pos) & AOQ_LIST_MASK] = (fq_u8)lane;
}

/* The sorted ActiveList: ties keep arrival order. */
static inline void aoq_list_insert(struct aoq_sched *s, unsigned int lane)
{
	fq_u64 oc = s->lane[lane].oc;
	unsigned int pos = s->nlist;

	while (pos > 0 && aoq_oc_before(oc, s->lane[aoq_list_at(s, pos - 1)].oc)) {
		aoq_list_put(s, pos, aoq_list_at(s, pos - 1));
		pos--;
	}
	aoq_list_put(s, pos, lane);
	s->nlist++;
}

static inline void aoq_list_remove_at(struct aoq_sched *s, unsigned int pos)
{
	s->nlist--;
	if (!pos) {
		s->lhead = (s->lhead + 1) & AOQ_LIST_MASK;
		return;
	}
	for (; pos < s->nlist; pos++)
		aoq_list_put(s, pos, aoq_list_at(s, pos + 1));
}

static inline void aoq_list_remove(struct aoq_sched *s, unsigned int lane)
{
	unsigned int pos;

	for (pos = 0; pos < s->nlist; pos++)
		if (aoq_list_at(s, pos) == lane) {
			aoq_list_remove_at(s, pos);
			return;
		}
}

/*
 * Re-sort after a round of visits: every visited lane grew by its own
 * increment, so only a few entries move.  Insertion sort, stable, so
 * lanes with equal counts keep their order.
 */
static inline void aoq_list_sort(struct aoq_sched *s)
{
	unsigned int i, j, lane;

	for (i = 1; i < s->nlist; i++) {
		lane = aoq_list_at(s, i);
		for (j = i; j > 0 &&
		     aoq_oc_before(s->lane[lane].oc, s->lane[aoq_list_at(s, j - 1)].oc); j--)
			aoq_list_put(s, j, aoq_list_at(s, j - 1));
		aoq_list_put(s, j, lane);
	}
}

static inline bool aoq_mode_is_sorted(const struct aoq_sched *s)
{
	return s->mode == AOQ_MODE_AOQ;
}

/* D = wopp[i] - wopp[j] of a pair, and its slot; lanes a != b. */
static inline struct aoq_rf_pair *aoq_rf_pair(struct aoq_sched *s,
					      unsigned int a, unsigned int b,
					      fq_u64 *d)
{
	unsigned int i = a < b ? a : b, j = a < b ? b : a;

	*d = s->lane[i].wopp - s->lane[j].wopp;
	return &s->rf->pair[j * (j - 1) / 2 + i];
}

/* @lane became active: its intervals with every other active lane start. */
static inline void aoq_rf_start(struct aoq_sched *s, unsigned int lane)
{
	fq_u64 m = s->active_mask & ~aoq_bit(lane), d;
	struct aoq_rf_pair *p;

	for (; m; m &= m - 1) {
		p = aoq_rf_pair(s, lane, aoq_first(m), &d);
		p->hi = p->lo = d;
	}
}

/*
 * End of a cycle: the lanes visited in it (@visited, all active at its
 * start) moved against every lane active at its start (@act0).  Each
 * pair's D is compared with its extremes since the pair's interval began;
 * their distance is the largest RF over any sub-interval.
 */
static inline void aoq_rf_update(struct aoq_sched *s, fq_u64 visited,
				 fq_u64 act0)
{
	struct aoq_rf_pair *p;
	unsigned int k, j;
	fq_u64 v, m, d, r;

	for (v = visited; v; v &= v - 1) {
		k = aoq_first(v);
		/* a pair of two visited lanes once, from the lower one */
		m = act0 & ~aoq_bit(k) & ~(visited & (aoq_bit(k) - 1));
		for (; m; m &= m - 1) {
			j = aoq_first(m);
			p = aoq_rf_pair(s, k, j, &d);
			if ((fq_s64)(d - p->hi) > 0)
				p->hi = d;
			else if ((fq_s64)(d - p->lo) < 0)
				p->lo = d;
			else
				continue;
			r = p->hi - p->lo;
			if (r > AOQ_RF_CAP) {	/* saturate: keep the distance */
				if (p->hi == d)
					p->lo = d - AOQ_RF_CAP;
				else
					p->hi = d + AOQ_RF_CAP;
				r = AOQ_RF_CAP;
			}
			if (r > s->rf->max)
				s->rf->max = r;
		}
	}
}

/*
 * Enqueue of Fig. 2: units arrived in @lane.  A lane that was not active
 * starts from max(own count, VirtualCount) so it cannot bank credit while
 * idle; its own count counts only if it went idle ahead (s->lead).
 * Calling this for an already active lane does nothing.
 */
static inline void aoq_lane_arrive(struct aoq_sched *s, unsigned int lane)
{
	struct aoq_lane *l = &s->lane[lane];

	if (lane >= s->nlanes)
		return;
	l->cut = false;		/* a frame after a cut message continues it */
	if (l->active)
		return;
	if (!(s->lead & aoq_bit(lane)) || aoq_oc_before(l->oc, s->vcount))
		l->oc = s->vcount;
	s->lead &= ~aoq_bit(lane);
	l->active = true;
	l->busy = false;
	s->nactive++;
	s->active_mask |= aoq_bit(lane);
	s->in_busy_period = true;
	if (aoq_measures_rf(s))
		aoq_rf_start(s, lane);
	if (aoq_mode_is_sorted(s))
		aoq_list_insert(s, lane);
}

static inline void aoq_set_mode(struct aoq_sched *s, enum aoq_mode mode)
{
	unsigned int i;

	s->mode = mode;
	s->anchor = -1;
	s->nlist = 0;
	/*
	 * The other disciplines do not keep VirtualCount, so their counts
	 * say nothing about fairness: everyone starts level.
	 */
	s->lead = 0;
	for (i = 0; i < AOQ_MAX_LANES; i++)
		s->lane[i].oc = s->vcount;
	/* taken from those counts, in mode aoq only: it starts again too */
	s->max_spread_oc = 0;
	if (!aoq_mode_is_sorted(s))
		return;
	for (i = 0; i < s->nlanes; i++)
		if (s->lane[i].active)
			aoq_list_insert(s, i);
}

/*
 * CheckEndOfBusyPeriod (Fig. 6): every count starts again from zero.  No
 * lane is active, so only the leads of the idle ones need forgetting.
 */
static inline void aoq_end_busy_period(struct aoq_sched *s)
{
	if (s->nactive || !s->in_busy_period)
		return;
	s->lead = 0;
	s->vcount = 0;
	s->vcount_checked = 0;
	s->busy_periods++;
	s->in_busy_period = false;
}

/*
 * VirtualCount moved on by AOQ_OC_RECHECK since the last look: idle lanes
 * it has caught up with lose their lead, so an idle lane's count is never
 * further from VirtualCount than a signed comparison can tell.
 */
static inline void aoq_recheck_leads(struct aoq_sched *s)
{
	fq_u64 m;
	unsigned int i;

	if (s->vcount - s->vcount_checked < AOQ_OC_RECHECK)
		return;
	s->vcount_checked = s->vcount;
	for (m = s->lead; m; m &= m - 1) {
		i = aoq_first(m);
		if (!aoq_oc_before(s->vcount, s->lane[i].oc))
			s->lead &= ~aoq_bit(i);
	}
}

/* A message ended (tail, forced tail, or given up): M bookkeeping. */
static inline void aoq_message_end(struct aoq_sched *s, struct aoq_lane *l)
{
	/* s->max_msg_opps >= every lane's: a lane's own max is the test */
	if (l->msg_opps > l->max_msg_opps) {
		l->max_msg_opps = l->msg_opps;
		if (l->msg_opps > s->max_msg_opps)
			s->max_msg_opps = l->msg_opps;
	}
	l->msg_opps = 0;
	l->msg_units = 0;
	l->busy = false;
}

static inline void aoq_deactivate(struct aoq_sched *s, unsigned int lane)
{
	struct aoq_lane *l = &s->lane[lane];

	l->cut = false;
	if (!l->active)
		return;
	l->active = false;
	l->busy = false;
	/* visits to a lane with nothing to send are no message's */
	l->msg_opps = 0;
	s->nactive--;
	s->active_mask &= ~aoq_bit(lane);
	if (aoq_oc_before(s->vcount, l->oc))
		s->lead |= aoq_bit(lane);
	if (s->anchor == (int)lane)
		s->anchor = -1;
	else if (aoq_mode_is_sorted(s))
		aoq_list_remove(s, lane);
}

/*
 * Remove a lane from scheduling altogether (class deleted, child reset):
 * its message and its lead go with it.
 */
static inline void aoq_lane_remove(struct aoq_sched *s, unsigned int lane)
{
	struct aoq_lane *l = &s->lane[lane];

	aoq_deactivate(s, lane);
	s->lead &= ~aoq_bit(lane);
	l->msg_opps = 0;
	l->msg_units = 0;
	aoq_end_busy_period(s);
}

/*
 * A lane starts afresh (its class was added, again or for the first
 * time): inactive, statistics at zero, the given weight.  Safe at any
 * moment, in the middle of a busy period too: an inactive lane holds no
 * place in the list, the anchor or any mask.
 */
static inline void aoq_lane_reset(struct aoq_sched *s, unsigned int lane,
				  fq_u32 weight)
{
	aoq_lane_remove(s, lane);
	memset(&s->lane[lane], 0, sizeof(s->lane[lane]));
	aoq_set_weight(s, lane, weight);
}

/* Drop the anchor role; the lane goes back to the list if still active. */
static inline void aoq_release_anchor(struct aoq_sched *s)
{
	int a = s->anchor;

	if (a < 0)
		return;
	s->anchor = -1;
	if (aoq_mode_is_sorted(s) && s->lane[a].active)
		aoq_list_insert(s, a);
}

/*
 * Is the lane still active?  Called before every visit: a lane that lost
 * its units (a child dropped them) and is not in a message is no longer
 * active, and one whose message made no progress for longer than the
 * stall time gives the message up (counted).  Returns false if the lane
 * must not be visited.
 */
static fq_always_inline bool aoq_lane_check(struct aoq_sched *s, unsigned int lane,
				  const struct aoq_ops *ops, void *ctx)
{
	struct aoq_lane *l = &s->lane[lane];
	bool backlogged = ops->backlogged(ctx, lane);
	bool anchor = s->anchor == (int)lane;

	/* a fresh anchor's progress is now: no stall */
	if (s->stall && (l->busy || anchor) && !(anchor && s->anchor_fresh) &&
	    aoq_time(s, ops, ctx) - l->progress > s->stall) {
		l->abandoned++;
		s->abandoned++;
		aoq_message_end(s, l);
		l->progress = s->now;
		if (s->anchor == (int)lane) {
			aoq_release_anchor(s);
			if (backlogged)
				return false;	/* others first this cycle */
		}
	}
	if ((!l->busy || l->cut) && !backlogged) {
		/* a cut message's last frame went: it is over */
		if (l->busy)
			aoq_message_end(s, l);
		aoq_deactivate(s, lane);
		return false;
	}
	return true;
}

/*
 * One visit: counts an opportunity whether or not a unit goes.  The unit
 * that reaches msg_limit ends its message, tail flag or not.
 */
static fq_always_inline enum aoq_tx aoq_visit(struct aoq_sched *s, unsigned int lane,
				    const struct aoq_ops *ops, void *ctx)
{
	struct aoq_lane *l = &s->lane[lane];
	enum aoq_tx tx = ops->send(ctx, lane);

	l->oc += l->inc;
	l->offered++;
	l->msg_opps++;
	if (aoq_measures_rf(s)) {	/* relative fairness's own counts */
		l->wopp += l->inc;
		s->visited |= aoq_bit(lane);
	}
	if (tx == AOQ_TX_NONE)
		return tx;
	l->used++;
	if (tx == AOQ_TX_UNIT && s->msg_limit && ++l->msg_units >= s->msg_limit) {
		tx = AOQ_TX_TAIL;
		l->forced++;
		s->forced++;
	}
	if (tx == AOQ_TX_TAIL) {
		/* not busy now; an anchor that sent it loses the role */
		l->messages++;
		aoq_message_end(s, l);
	} else {
		l->busy = true;
		l->progress = aoq_time(s, ops, ctx);
	}
	return tx;
}

/* After a tail: the lane stays active only if more units wait. */
static inline bool aoq_after_tail(struct aoq_sched *s, unsigned int lane,
				  const struct aoq_ops *ops, void *ctx)
{
	if (ops->backlogged(ctx, lane))
		return true;
	aoq_deactivate(s, lane);
	return false;
}

/* Next active lane at or after @from in lane order, -1 if none. */
static inline int aoq_next_active(const struct aoq_sched *s, unsigned int from)
{
	unsigned int i, lane;

	for (i = 0; i < s->nlanes; i++) {
		lane = (from + i) % s->nlanes;
		if (s->lane[lane].active)
			return lane;
	}
	return -1;
}

/*
 * Lemma 2's quantity, mode aoq only: the list is sorted, so its ends and
 * the anchor hold the extremes.  The other disciplines keep no
 * VirtualCount and their counts mean nothing to fairness; they keep no
 * list either (nlist stays 0), which the test below relies on.  Kept in
 * count units, divided when read: the largest quotient is the quotient
 * of the largest, and a division per frame cost the cycle more than the
 * comparison.
 */
static inline void aoq_track_spread(struct aoq_sched *s)
{
	fq_u64 lo, hi, d;

	if (s->nactive < 2 || !s->nlist)
		return;
	lo = s->lane[aoq_list_at(s, 0)].oc;
	hi = s->lane[aoq_list_at(s, s->nlist - 1)].oc;
	if (s->anchor >= 0) {
		d = s->lane[s->anchor].oc;
		if (aoq_oc_before(d, lo))
			lo = d;
		if (aoq_oc_before(hi, d))
			hi = d;
	}
	d = hi - lo;
	if (d > s->max_spread_oc)
		s->max_spread_oc = d;
}

/* The largest spread so far, in opportunities. */
static inline fq_u64 aoq_max_spread(const struct aoq_sched *s)
{
	return fq_div64(s->max_spread_oc, AOQ_OC_UNIT);
}

/* ServeFromActiveList: in increasing count until one sends */
static fq_always_inline int aoq_serve_list(struct aoq_sched *s,
					   const struct aoq_ops *ops, void *ctx)
{
	unsigned int pos = 0;
	enum aoq_tx tx;

	while (pos < s->nlist) {
		unsigned int lane = aoq_list_at(s, pos);

		if (!aoq_lane_check(s, lane, ops, ctx))
			continue;	/* removed: pos now holds the next one */
		tx = aoq_visit(s, lane, ops, ctx);
		if (tx == AOQ_TX_NONE) {
			pos++;
			continue;
		}
		if (tx == AOQ_TX_TAIL && !ops->backlogged(ctx, lane))
			aoq_deactivate(s, lane);
		aoq_list_sort(s);
		return lane;
	}
	/* nobody could send; every visited lane still grew */
	aoq_list_sort(s);
	return -1;
}

/*
 * The rest of a cycle after the anchor @a was offered its opportunity
 * and did @tx.  Its message is over: the lane goes back to the list if
 * units wait, else out (aoq_deactivate() drops the anchor role then,
 * with no search of the list it is not in).  It sent nothing: the list
 * is served.
 */
static fq_always_inline int aoq_after_anchor_visit(struct aoq_sched *s,
						   unsigned int a, enum aoq_tx tx,
						   const struct aoq_ops *ops,
						   void *ctx)
{
	if (tx == AOQ_TX_TAIL && aoq_after_tail(s, a, ops, ctx)) {
		s->anchor = -1;
		aoq_list_insert(s, a);
	}
	if (tx != AOQ_TX_NONE)
		return (int)a;
	return aoq_serve_list(s, ops, ctx);
}

/*
 * VirtualCount moves on to @v if it is ahead (it never goes back).  Only
 * a move can bring it AOQ_OC_RECHECK past the last check of the leads:
 * nothing else changes the two (the end of a busy period zeroes both).
 */
static fq_always_inline void aoq_vcount_advance(struct aoq_sched *s, fq_u64 v)
{
	if (aoq_oc_before(s->vcount, v)) {
		s->vcount = v;
		aoq_recheck_leads(s);
	}
}

/* Figs. 2-5: one cycle of AOQ. */
static fq_always_inline int aoq_cycle_aoq(struct aoq_sched *s,
				const struct aoq_ops *ops, void *ctx)
{
	int a;

	/* a stalled anchor gives up first, so another can be chosen now */
	if (s->anchor >= 0)
		aoq_lane_check(s, s->anchor, ops, ctx);
	/* SelectAnchorVL: the head of the list, the lane owed the most */
	while (s->anchor < 0 && s->nlist) {
		a = aoq_list_at(s, 0);
		aoq_list_remove_at(s, 0);
		s->anchor = a;
		s->anchor_fresh = true;
		if (!aoq_lane_check(s, a, ops, ctx))
			continue;
	}
	/*
	 * VirtualCount = min(OC(anchor), OC(head)).  It never goes back:
	 * every active lane's count is at least VirtualCount.  An anchor
	 * chosen in this cycle was the head of the sorted list, so the
	 * head now counts no less and is not asked.
	 */
	if (s->anchor >= 0 || s->nlist) {
		fq_u64 v = s->anchor >= 0 ? s->lane[s->anchor].oc :
					     s->lane[aoq_list_at(s, 0)].oc;

		if (s->nlist && s->anchor >= 0 && !s->anchor_fresh &&
		    aoq_oc_before(s->lane[aoq_list_at(s, 0)].oc, v))
			v = s->lane[aoq_list_at(s, 0)].oc;
		aoq_vcount_advance(s, v);
	}

	/*
	 * ServeAnchorVL.  A remaining anchor passed aoq_lane_check() in
	 * this cycle above (the first check, or its selection): a check that
	 * passes changes nothing, and nothing since touched what it reads,
	 * so it is not asked again.
	 */
	a = s->anchor;
	if (a < 0)
		return aoq_serve_list(s, ops, ctx);
	return aoq_after_anchor_visit(s, a, aoq_visit(s, a, ops, ctx), ops, ctx);
}

/* FBRR: one unit per visit, lanes in turn. */
static inline int aoq_cycle_fbrr(struct aoq_sched *s,
				const struct aoq_ops *ops, void *ctx)
{
	unsigned int i, lane;

	for (i = 0; i < s->nlanes; i++) {
		lane = (s->rr + i) % s->nlanes;
		if (!s->lane[lane].active || !aoq_lane_check(s, lane, ops, ctx))
			continue;
		if (aoq_visit(s, lane, ops, ctx) == AOQ_TX_NONE)
			continue;
		if (!s->lane[lane].busy)
			aoq_after_tail(s, lane, ops, ctx);
		s->rr = (lane + 1) % s->nlanes;
		return lane;
	}
	return -1;
}

/* Anchor of arr and pbrr: the next active lane after the previous one. */
static inline void aoq_select_anchor_rr(struct aoq_sched *s,
				const struct aoq_ops *ops, void *ctx)
{
	unsigned int tries;
	int a;

	/* a stalled anchor gives up first, so another can be chosen now */
	if (s->anchor >= 0)
		aoq_lane_check(s, s->anchor, ops, ctx);
	for (tries = 0; s->anchor < 0 && tries < s->nlanes; tries++) {
		a = aoq_next_active(s, s->rr_anchor);
		if (a < 0)
			return;
		s->rr_anchor = (a + 1) % s->nlanes;
		s->anchor = a;
		s->anchor_fresh = true;
		if (!aoq_lane_check(s, a, ops, ctx))
			continue;
	}
}

/*
 * Serve the anchor; returns the lane if a unit went, else -1.  Right
 * after aoq_select_anchor_rr() in the same cycle: an anchor left by it
 * has just passed aoq_lane_check(), which is not asked again.
 */
static inline int aoq_serve_anchor_rr(struct aoq_sched *s,
				const struct aoq_ops *ops, void *ctx)
{
	enum aoq_tx tx;
	int a = s->anchor;

	if (a < 0)
		return -1;
	tx = aoq_visit(s, a, ops, ctx);
	if (tx == AOQ_TX_NONE)
		return -1;
	if (tx == AOQ_TX_TAIL) {
		s->anchor = -1;
		aoq_after_tail(s, a, ops, ctx);
	}
	return a;
}

static inline int aoq_cycle_arr(struct aoq_sched *s,
				const struct aoq_ops *ops, void *ctx)
{
	unsigned int i, lane;
	int sent;

	aoq_select_anchor_rr(s, ops, ctx);
	sent = aoq_serve_anchor_rr(s, ops, ctx);
	if (sent >= 0)
		return sent;
	/* strays: the others in round robin, one unit */
	for (i = 0; i < s->nlanes; i++) {
		lane = (s->rr + i) % s->nlanes;
		if ((int)lane == s->anchor || !s->lane[lane].active ||
		    !aoq_lane_check(s, lane, ops, ctx))
			continue;
		if (aoq_visit(s, lane, ops, ctx) == AOQ_TX_NONE)
			continue;
		if (!s->lane[lane].busy)
			aoq_after_tail(s, lane, ops, ctx);
		s->rr = (lane + 1) % s->nlanes;
		return lane;
	}
	return -1;
}

static inline int aoq_cycle_pbrr(struct aoq_sched *s,
				const struct aoq_ops *ops, void *ctx)
{
	aoq_select_anchor_rr(s, ops, ctx);
	return aoq_serve_anchor_rr(s, ops, ctx);
}

/* One cycle of the disciplines other than aoq. */
static inline int aoq_cycle_unsorted(struct aoq_sched *s,
				     const struct aoq_ops *ops, void *ctx)
{
	switch (s->mode) {
	case AOQ_MODE_FBRR:
		return aoq_cycle_fbrr(s, ops, ctx);
	case AOQ_MODE_ARR:
		return aoq_cycle_arr(s, ops, ctx);
	case AOQ_MODE_PBRR:
		return aoq_cycle_pbrr(s, ops, ctx);
	default:
		return aoq_cycle_aoq(s, ops, ctx);
	}
}

/*
 * An anchor chosen in this cycle that keeps the role past it: its
 * progress is the time it was chosen, the cycle's.
 */
static inline void aoq_stamp_anchor(struct aoq_sched *s,
				    const struct aoq_ops *ops, void *ctx)
{
	if (s->anchor_fresh && s->anchor >= 0)
		s->lane[s->anchor].progress = aoq_time(s, ops, ctx);
	s->anchor_fresh = false;
}

/* The end of every cycle: the anchor's stamp, the statistics, Fig. 6. */
static fq_always_inline void aoq_cycle_end(struct aoq_sched *s, fq_u64 act0,
					   const struct aoq_ops *ops, void *ctx)
{
	aoq_stamp_anchor(s, ops, ctx);
	aoq_track_spread(s);
	if (aoq_measures_rf(s) && s->visited)
		aoq_rf_update(s, s->visited, act0);
	aoq_end_busy_period(s);
}

/* aoq_dequeue() for every cycle, the common one of aoq_cycle_common() too */
static fq_always_inline int aoq_dequeue_general(struct aoq_sched *s, fq_u64 now,
						const struct aoq_ops *ops,
						void *ctx)
{
	fq_u64 act0 = s->active_mask;
	int lane;

	s->now = now;
	if (!s->nactive)
		return -1;
	s->visited = 0;
	/* aoq first: a compare chain would test the others before it */
	if (s->mode == AOQ_MODE_AOQ)
		lane = aoq_cycle_aoq(s, ops, ctx);
	else
		lane = aoq_cycle_unsorted(s, ops, ctx);
	aoq_cycle_end(s, act0, ops, ctx);
	return lane;
}

/* aoq_cycle_common(): not the common cycle, nothing changed */
#define AOQ_NOT_COMMON	(-2)

/*
 * The rest of a common cycle whose anchor did not send the tail of its
 * message and go back to the end of the list: what aoq_cycle_aoq() does
 * after the anchor's visit, with the anchor chosen in the cycle.
 */
static fq_noinline_rare int aoq_common_rest(struct aoq_sched *s,
					    unsigned int h, enum aoq_tx tx,
					    const struct aoq_ops *ops,
					    void *ctx)
{
	int lane;

	s->anchor = (int)h;
	s->anchor_fresh = true;
	lane = aoq_after_anchor_visit(s, h, tx, ops, ctx);
	aoq_cycle_end(s, 0, ops, ctx);
	return lane;
}

/*
 * The common cycle of mode aoq, the cycle of every message of one frame:
 * there is no anchor, so the head of the ActiveList becomes it, sends
 * the tail of its message and loses the role in the same cycle, going
 * back to the end of the list, its count now the largest (the lanes are
 * backlogged), or out (the qdisc is uncongested).  The same decisions
 * as aoq_dequeue_general() (the unit test
 * common_cycle_decides_as_the_general holds the two to the same state
 * after every cycle), with what the case makes known left out: the
 * anchor is fresh, so neither a stall nor the head's count is asked,
 * and the role need not be written; the lane goes to the end of the
 * list, so the spread is its count against the head's.  Relative
 * fairness is not measured on this path (aoq_measures_rf()), so the
 * tests that measure it (Theorem 1's traces, qsim) never take it.
 *
 * Returns the lane, or AOQ_NOT_COMMON with nothing changed, after which
 * the caller runs aoq_dequeue_general().  The time is as for aoq_dequeue().
 */
static fq_always_inline int aoq_cycle_common(struct aoq_sched *s, fq_u64 now,
					     const struct aoq_ops *ops,
					     void *ctx)
{
	struct aoq_lane *l;
	unsigned int h, n;
	fq_u64 spread;
	enum aoq_tx tx;

	/* only mode aoq keeps a list (aoq_set_mode()): nlist says the mode */
	if (!s->nlist || s->anchor >= 0 || aoq_measures_rf(s))
		return AOQ_NOT_COMMON;
	h = aoq_list_at(s, 0);
	l = &s->lane[h];
	/* aoq_lane_check() of a fresh anchor: no stall is looked for */
	if ((!l->busy || l->cut) && !ops->backlogged(ctx, h))
		return AOQ_NOT_COMMON;
	s->now = now;
	aoq_list_remove_at(s, 0);
	aoq_vcount_advance(s, l->oc);
	tx = aoq_visit(s, h, ops, ctx);
	if (tx != AOQ_TX_TAIL)
		return aoq_common_rest(s, h, tx, ops, ctx);
	if (!ops->backlogged(ctx, h)) {
		/* out: aoq_deactivate() of the anchor, no search of the list */
		s->anchor = (int)h;
		aoq_deactivate(s, h);
		aoq_track_spread(s);
		aoq_end_busy_period(s);
		return (int)h;
	}
	n = s->nlist;
	if (!n) {	/* the only lane active: no spread */
		aoq_list_put(s, 0, h);
		s->nlist = 1;
		return (int)h;
	}
	if (aoq_oc_before(l->oc, s->lane[aoq_list_at(s, n - 1)].oc))
		return aoq_common_rest(s, h, tx, ops, ctx);
	aoq_list_put(s, n, h);
	s->nlist = n + 1;
	/* aoq_track_spread() with no anchor and the lane last */
	spread = l->oc - s->lane[aoq_list_at(s, 0)].oc;
	if (spread > s->max_spread_oc)
		s->max_spread_oc = spread;
	return (int)h;
}

/*
 * One scheduling cycle at time @now (cycles in the simulator, ns in the
 * qdisc; AOQ_NOW_LAZY: ask ops->now() if needed): at most one unit is
 * sent.  Returns the lane that sent, or -1.
 */
static fq_always_inline int aoq_dequeue(struct aoq_sched *s, fq_u64 now,
					const struct aoq_ops *ops, void *ctx)
{
	int lane = aoq_cycle_common(s, now, ops, ctx);

	if (lane != AOQ_NOT_COMMON)
		return lane;
	return aoq_dequeue_general(s, now, ops, ctx);
}

/*
 * The caller's queues all went empty: drop lanes that are not in the
 * middle of a message so the busy period can end.  @now as for
 * aoq_dequeue(); the time a cycle read is in s->now.
 */
static inline void aoq_sweep_lanes(struct aoq_sched *s,
				   const struct aoq_ops *ops, void *ctx)
{
	unsigned int i;

	for (i = 0; i < s->nlanes && s->nactive; i++)
		if (s->lane[i].active)
			aoq_lane_check(s, i, ops, ctx);
}

/* inlined: a qdisc sweeps whenever it empties, mostly with no lane left */
static fq_always_inline void aoq_sweep(struct aoq_sched *s, fq_u64 now,
				       const struct aoq_ops *ops, void *ctx)
{
	s->now = now;
	if (s->nactive)
		aoq_sweep_lanes(s, ops, ctx);
	aoq_end_busy_period(s);
}

#endif /* FQ_AOQ_CORE_H */
