/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RECN with service levels (paper: two-vcs-with-recn-congestion-management,
 * Section 4): congestion isolation for a lossless fabric with two VCs, in
 * plain C shared by the soft switch, the hosts' qdiscs, the unit tests and
 * qsim.  Documentation/recn.rst explains it as built.
 *
 * A *set* is the queues of one VC at one place where frames wait: one
 * side (input or output) of a switch port, or a host's egress on a fabric
 * link.  It has
 *
 *  - RECN_DETQS *detection queues*, the standard queue split by the digit
 *    the frames' route shows here (fabric-header.rst, "Source routes"):
 *    at an input port the local output port + 1, at an output port or a
 *    host the next switch's output + 1, 0 for a route that ends at the
 *    next hop (a frame for the host behind it).  The caller picks the
 *    queue (a frame forwarded by MAC has no route: the caller gives the
 *    queue of its output);
 *  - up to RECN_SAQ_MAX *set-aside queues* (SAQs), each holding the frames
 *    of one service level (SL) whose route passes one congested point.  A
 *    CAM line, struct recn_point, names the point by the route digits that
 *    lead to it from here and the SL.
 *
 * A frame goes to the SAQ whose point is the longest prefix of its route
 * with its SL (the farthest congested point it crosses: traffic for two
 * points in a row stays apart), else to its detection queue.
 *
 * Congestion is found where frames pile up: a detection queue that holds
 * @detect bytes or more is the *root* of a congested point (its digit and
 * the SL of the arriving frame), and a SAQ that does is a congested point
 * further on.  Either *notifies* the port that sent the frame (upstream:
 * the input ports of the same switch for an output side, the link's far
 * end for an input side), once per upstream port and @refresh_ns, with
 * the point as seen there; the notified port gives the point a SAQ if one
 * is free.  The notifier then keeps the upstream ports it told (@told):
 *  - at @xoff bytes it tells them Xoff, and they stop serving that SAQ;
 *    at @xon bytes or fewer it tells them Xon.  An Xoff is a lease of
 *    @lease_ns, repeated every @refresh_ns while it holds, so a lost Xon
 *    ends with the lease and a lost Xoff is sent again;
 *  - a SAQ that empties while no upstream SAQ depends on it (a leaf) is
 *    freed, and it tells the place downstream it was notified by
 *    (RELEASE), which stops counting it (unless it notified that place
 *    in this refresh period: recn_forget_port()); at a source (a host:
 *    struct recn_set's source) only after @idle_ns empty.  A SAQ whose
 *    upstream never says so (a lost RELEASE) is freed after @idle_ns
 *    empty all the same; so is a root.  So a few SAQs follow congestion
 *    as it moves.  A place with no SAQ free for a notification answers
 *    FULL, so the notifier does not count on one there.
 *
 * A new SAQ waits until the frames of its point that came before it have
 * left the queue they went to (its detection queue or a shorter SAQ), so
 * a flow's frames stay in order.
 *
 * The caller moves the frames and carries the messages: recn_send_fn gets
 * each message with the port it goes to (an upstream port's index, or
 * RECN_DOWNSTREAM), and the caller rewrites the point for the other side
 * (recn_point_up_from_output(), recn_point_down_to_output()).  Everything
 * runs under the caller's lock; times are nanoseconds of any monotonic
 * clock, passed in.
 */
#ifndef FQ_RECN_CORE_H
#define FQ_RECN_CORE_H

#include "core_types.h"
#include "fabric_hdr_core.h"

#define RECN_DETQS		64	/* one per route digit */
#define RECN_SAQ_MAX		16
#define RECN_SAQ_DEFAULT	8
#define RECN_ROOT_MAX		16	/* (detection queue, SL) roots at once */
#define RECN_UPSTREAM_MAX	64	/* upstream ports: bits of a u64 */
#define RECN_POINT_MAX_LEN	(FHC_ROUTE_HOPS + 1)	/* five turns + the end */
#define RECN_DOWNSTREAM		0xffu	/* recn_send_fn's @to: RELEASE, FULL */
#define RECN_NO_UPSTREAM	0xffu	/* recn_arrive()'s @from: none to tell */

/* Queue numbers of a set: detection queues first, then SAQs. */
#define RECN_Q_SAQ(i)		(RECN_DETQS + (i))
#define RECN_Q_IS_SAQ(q)	((q) >= RECN_DETQS)

/* A congested point as one place sees it, with the SL: a CAM line's key. */
struct recn_point {
	fq_u64 turns;	/* route digits to the point, the nearest lowest */
	fq_u8 len;	/* digits: 1 to RECN_POINT_MAX_LEN */
	fq_u8 sl;
};

/* The kinds are those of the wire (FABRIC_CTRL_RECN, recn_wire.h). */
enum recn_msg_kind {
	RECN_MSG_NOTIFY = FABRIC_RECN_NOTIFY,	/* upstream: give the point a SAQ */
	RECN_MSG_XOFF = FABRIC_RECN_XOFF,	/* upstream: stop serving its SAQ */
	RECN_MSG_XON = FABRIC_RECN_XON,		/* upstream: serve it again */
	RECN_MSG_RELEASE = FABRIC_RECN_RELEASE,	/* downstream: my SAQ for it is gone */
	RECN_MSG_FULL = FABRIC_RECN_FULL,	/* downstream: no SAQ free for it */
};

struct recn_msg {
	fq_u8 kind;
	struct recn_point pt;
};

typedef void (*recn_send_fn)(void *ctx, fq_u32 to, const struct recn_msg *m);

struct recn_cfg {
	fq_u32 nsaq;		/* 1 to RECN_SAQ_MAX */
	fq_u32 detect;		/* bytes: a queue this full is congested */
	fq_u32 xoff;		/* bytes: tell the upstream SAQs to stop */
	fq_u32 xon;		/* bytes: ... and to go again (below xoff) */
	fq_u64 lease_ns;	/* an Xoff not repeated ends after this */
	fq_u64 refresh_ns;	/* repeat Xoff and notifications this often */
	fq_u64 idle_ns;		/* free an empty SAQ or root after this */
};

/* What one side tells its upstream ports about one congested point. */
struct recn_tell {
	fq_u64 told;		/* upstream ports notified: they may hold SAQs */
	fq_u64 fresh;		/* ... notified in this refresh period */
	fq_u64 fresh_at;	/* when the period began */
	fq_u64 xoff_at;		/* last Xoff sent to all */
	fq_u64 xoff_again_at;	/* last Xoff sent again to one port */
	bool xoff;		/* the told ports are stopped */
};

struct recn_detq {
	fq_u32 bytes, frames;
	fq_u32 arrived, departed;	/* frames, running totals (wrap) */
	fq_u64 empty_since;
	fq_u16 roots;			/* bit i: root[i] is of this queue */
};

struct recn_root {
	bool used;
	fq_u8 detq;
	fq_u8 sl;
	struct recn_tell t;
};

struct recn_saq {
	bool used;
	bool stopped;		/* downstream said Xoff, until @stop_until */
	struct recn_point pt;
	fq_u32 bytes, frames;
	fq_u32 arrived, departed;
	fq_s32 wait_q;		/* -1, or the queue whose frames go first */
	fq_u32 wait_seq;	/* ... until its departed reaches this */
	fq_u64 stop_until;
	fq_u64 empty_since;
	struct recn_tell t;
};

struct recn_stats {
	fq_u64 notify_tx, notify_rx;
	fq_u64 xoff_tx, xoff_rx, xon_tx, xon_rx;
	fq_u64 release_tx, release_rx;
	fq_u64 full_tx, full_rx;	/* notifications refused for want of a SAQ */
	fq_u64 saq_alloc, saq_free, saq_idle_free, saq_full;
	fq_u64 root_alloc, root_full;
	fq_u64 lease_expired;
	fq_u64 stale_rx;	/* Xoff/Xon/RELEASE for a point with no line */
	fq_u64 bad_rx;		/* a message that names no point */
};

struct recn_set {
	struct recn_cfg cfg;
	fq_u8 up_digits;		/* what upstream sees in front: 1 at outputs */
	/*
	 * A source's set (a host's, recn_host.h): where the frames come
	 * from, so an emptied SAQ is kept until idle_ns, not freed at once.
	 * Freed at once, a SAQ that an Xon let drain would be gone when the
	 * flow's next frame came, which then went unheld into the switch's
	 * buffer until the switch said so again: a churn of notifications,
	 * new SAQs and counts, one for each Xon.
	 */
	bool source;
	fq_u64 busy;			/* detection queues with frames */
	fq_u32 saq_used;		/* bit i: saq[i] is in use */
	struct recn_detq detq[RECN_DETQS];
	struct recn_root root[RECN_ROOT_MAX];
	struct recn_saq saq[RECN_SAQ_MAX];
	struct recn_stats st;
};

/* Add @b's counters to @a's (a port's sets, a fabric's). */
static inline void recn_stats_add(struct recn_stats *a, const struct recn_stats *b)
{
	const fq_u64 *pb = (const fq_u64 *)b;
	fq_u64 *pa = (fq_u64 *)a;
	fq_u32 i;

	/* every field is a fq_u64 counter */
	for (i = 0; i < sizeof(*a) / sizeof(fq_u64); i++)
		pa[i] += pb[i];
}

/* SAQs in use in @s now. */
static inline fq_u32 recn_saqs_used(const struct recn_set *s)
{
	fq_u32 i, k = 0;

	for (i = 0; i < s->cfg.nsaq; i++)
		k += s->saq[i].used;
	return k;
}

/*
 * Has @span passed from @then to @now?  Signed, so that a @now a little
 * behind @then (a clock read on another CPU before the caller's lock)
 * reads as no time at all, not as ages.
 */
static inline bool recn_since(fq_u64 now, fq_u64 then, fq_u64 span)
{
	return (fq_s64)(now - then) >= (fq_s64)span;
}

/* ---- points ------------------------------------------------------------- */

static inline fq_u64 recn_turn_mask(fq_u32 len)
{
	return len >= 10 ? ~0ULL : (1ULL << (6 * len)) - 1;
}

/*
 * Does @pt name a point a route can pass?  1 to RECN_POINT_MAX_LEN digits,
 * none beyond them, and none after a 0 digit (a route ends at its first 0
 * digit, so nothing is ever read beyond it).  Checked on every message.
 */
static inline bool recn_point_valid(const struct recn_point *pt)
{
	fq_u64 t = pt->turns;
	fq_u32 i;

	if (pt->len < 1 || pt->len > RECN_POINT_MAX_LEN || (t & ~recn_turn_mask(pt->len)))
		return false;
	for (i = 0; i + 1 < pt->len; i++, t >>= 6)
		if (!(t & 63) && (t >> 6))
			return false;
	return true;
}

static inline bool recn_point_eq(const struct recn_point *a, const struct recn_point *b)
{
	return a->turns == b->turns && a->len == b->len && a->sl == b->sl;
}

/* Does a frame with @route (as seen here, nonzero) and @sl pass @pt? */
static inline bool recn_point_covers(const struct recn_point *pt, fq_u32 route, fq_u8 sl)
{
	return pt->sl == sl &&
	       ((fq_u64)(route & FHC_ROUTE_DIGITS) & recn_turn_mask(pt->len)) == pt->turns;
}

/* Is @a a shorter prefix of @b, with the same SL? */
static inline bool recn_point_prefix(const struct recn_point *a, const struct recn_point *b)
{
	return a->sl == b->sl && a->len < b->len &&
	       (b->turns & recn_turn_mask(a->len)) == a->turns;
}

/*
 * @pt seen at an output port, as the switch's input ports see it: the
 * output's own digit (@out + 1) first.  False if it would be too long.
 */
static inline bool recn_point_up_from_output(struct recn_point *pt, fq_u32 out)
{
	if (pt->len >= RECN_POINT_MAX_LEN || out > FHC_ROUTE_MAX_PORT)
		return false;
	pt->turns = pt->turns << 6 | (out + 1);
	pt->len++;
	return true;
}

/*
 * @pt seen at an input port, as the output it names first sees it: that
 * output's index in *@out and the rest of the point.  False for a point
 * that ends at the switch (nothing downstream holds it).
 */
static inline bool recn_point_down_to_output(struct recn_point *pt, fq_u32 *out)
{
	if (pt->len < 2 || !(pt->turns & 63))
		return false;
	*out = (fq_u32)(pt->turns & 63) - 1;
	pt->turns >>= 6;
	pt->len--;
	return true;
}

/* ---- configuration ------------------------------------------------------ */

enum recn_cfg_err {
	RECN_CFG_OK,
	RECN_CFG_NSAQ,		/* nsaq not 1 to RECN_SAQ_MAX */
	RECN_CFG_DETECT,	/* detect 0 */
	RECN_CFG_XON,		/* xon not below xoff */
	RECN_CFG_REFRESH,	/* refresh 0 or not below lease */
	RECN_CFG_IDLE,		/* idle below refresh */
};

static inline enum recn_cfg_err recn_cfg_check(const struct recn_cfg *c)
{
	if (c->nsaq < 1 || c->nsaq > RECN_SAQ_MAX)
		return RECN_CFG_NSAQ;
	if (!c->detect)
		return RECN_CFG_DETECT;
	if (c->xon >= c->xoff)
		return RECN_CFG_XON;
	if (!c->refresh_ns || c->refresh_ns >= c->lease_ns)
		return RECN_CFG_REFRESH;
	if (c->idle_ns < c->refresh_ns)
		return RECN_CFG_IDLE;
	return RECN_CFG_OK;
}

/*
 * Defaults for a VC buffer of @buffer bytes and frames of up to @mtu
 * bytes: congestion at two full frames, Xoff at four, Xon at two; a
 * 200 us lease refreshed every 50 us, idle lines freed after 1 ms.  Eight SAQs
 * stopped at four frames each, plus what is in flight, must leave room
 * for the detection queues: the buffer should hold 40 frames or more.
 */
static inline void recn_cfg_default(struct recn_cfg *c, fq_u32 mtu)
{
	c->nsaq = RECN_SAQ_DEFAULT;
	c->detect = 2 * mtu;
	c->xoff = 4 * mtu;
	c->xon = 2 * mtu;
	c->lease_ns = 200000;
	c->refresh_ns = 50000;
	c->idle_ns = 1000000;
}

static inline void recn_init(struct recn_set *s, const struct recn_cfg *cfg)
{
	fq_u32 i;

	*s = (struct recn_set){ .cfg = *cfg };
	for (i = 0; i < RECN_SAQ_MAX; i++)
		s->saq[i].wait_q = -1;
}

/*
 * An output side: the switch's inputs see its points with the output's
 * digit in front, so it tells them only of points one digit shorter than
 * the longest (a longer one could not be said upstream, and a port told
 * of nothing would count as holding a SAQ).
 */
static inline void recn_set_output_side(struct recn_set *s)
{
	s->up_digits = 1;
}

/* ---- where a frame goes ------------------------------------------------- */

/*
 * The SAQ a frame with @route (as seen here) and @sl goes to: the index
 * of the longest point it passes, or -1 for its detection queue.  A frame
 * without a route (0) never goes to a SAQ.
 */
static inline int recn_classify(const struct recn_set *s, fq_u32 route, fq_u8 sl)
{
	int best = -1;
	fq_u32 i;

	fq_u32 left = s->saq_used;

	if (!(route & FHC_ROUTE_ON))
		return -1;
	/* the SAQs in use only: with no congestion, none (the common case) */
	for (; left; left &= left - 1) {
		const struct recn_saq *q;

		i = (fq_u32)__builtin_ctz(left);
		q = &s->saq[i];
		if (recn_point_covers(&q->pt, route, sl) &&
		    (best < 0 || q->pt.len > s->saq[best].pt.len))
			best = (int)i;
	}
	return best;
}

/* The detection queue of a frame with @route here: its lowest digit. */
static inline fq_u32 recn_detq_of(fq_u32 route)
{
	return route & 63;
}

static inline fq_u32 recn_departed(const struct recn_set *s, fq_s32 q)
{
	return RECN_Q_IS_SAQ(q) ? s->saq[q - RECN_DETQS].departed : s->detq[q].departed;
}

/* Are frames of SAQ @i's point that came before it still queued elsewhere? */
static inline bool recn_saq_waiting(const struct recn_set *s, fq_u32 i)
{
	const struct recn_saq *q = &s->saq[i];

	return q->wait_q >= 0 && (fq_s32)(recn_departed(s, q->wait_q) - q->wait_seq) < 0;
}

/* May SAQ @i be served: frames, not stopped, nothing of its point ahead? */
static inline bool recn_saq_ready(const struct recn_set *s, fq_u32 i)
{
	const struct recn_saq *q = &s->saq[i];

	return q->used && q->frames && !q->stopped && !recn_saq_waiting(s, i);
}

/*
 * Round robin among the queues of the set (the paper's scheduling inside
 * a VC): the first after @last, cyclically, that has frames, may be
 * served, and whose head @ok (if given) lets go now; -1 if none.
 */
typedef bool (*recn_ok_fn)(void *ctx, fq_u32 q);

/*
 * recn_next() among the detection queues in @detmask and the SAQs in
 * @saqmask only (a caller that knows which queues can serve it: an input
 * asked for one output), in the same round-robin order.
 */
static inline int recn_next_among(const struct recn_set *s, fq_s32 last, fq_u64 detmask,
				  fq_u32 saqmask, recn_ok_fn ok, void *ctx)
{
	fq_u32 n = RECN_DETQS + s->cfg.nsaq, i, pass;
	fq_u32 start = last < 0 || (fq_u32)last + 1 >= n ? 0 : (fq_u32)last + 1;
	fq_u64 det = s->busy & detmask, saq = 0;
	fq_u32 used = s->saq_used & saqmask;

	for (; used; used &= used - 1) {
		i = (fq_u32)__builtin_ctz(used);
		if (recn_saq_ready(s, i))
			saq |= 1ULL << i;
	}
	/* the candidates from @start to the end, then from 0 to @start */
	for (pass = 0; pass < 2; pass++) {
		fq_u32 lo = pass ? 0 : start, hi = pass ? start : n;
		fq_u64 d = lo < RECN_DETQS ? det & (~0ULL << lo) : 0;
		fq_u64 a = saq & (lo > RECN_DETQS ? ~0ULL << (lo - RECN_DETQS) : ~0ULL);

		if (hi <= RECN_DETQS) {
			d &= hi == RECN_DETQS ? ~0ULL : (1ULL << hi) - 1;
			a = 0;
		} else {
			a &= (1ULL << (hi - RECN_DETQS)) - 1;
		}
		for (; d; d &= d - 1) {
			fq_u32 q = (fq_u32)__builtin_ctzll(d);

			if (!ok || ok(ctx, q))
				return (int)q;
		}
		for (; a; a &= a - 1) {
			fq_u32 q = RECN_DETQS + (fq_u32)__builtin_ctzll(a);

			if (!ok || ok(ctx, q))
				return (int)q;
		}
	}
	return -1;
}

static inline int recn_next(const struct recn_set *s, fq_s32 last, recn_ok_fn ok, void *ctx)
{
	return recn_next_among(s, last, ~0ULL, ~0u, ok, ctx);
}

/* ---- telling upstream --------------------------------------------------- */

static inline void recn_tell_all(struct recn_set *s, const struct recn_tell *t,
				 const struct recn_point *pt, fq_u8 kind,
				 recn_send_fn send, void *ctx)
{
	struct recn_msg m = { .kind = kind, .pt = *pt };
	fq_u64 left = t->told;

	while (left) {
		fq_u32 u = (fq_u32)__builtin_ctzll(left);

		left &= left - 1;
		send(ctx, u, &m);
		if (kind == RECN_MSG_XOFF)
			s->st.xoff_tx++;
		else
			s->st.xon_tx++;
	}
}

/*
 * A frame from upstream port @from reached a point holding @bytes: notify
 * @from if the point is congested and it has not been told lately, and
 * stop the told ports at @xoff.
 */
static inline void recn_tell_arrival(struct recn_set *s, struct recn_tell *t,
				     const struct recn_point *pt, fq_u32 bytes,
				     fq_u32 from, fq_u64 now, recn_send_fn send, void *ctx)
{
	if (bytes < s->cfg.detect || pt->len + s->up_digits > RECN_POINT_MAX_LEN)
		return;
	if (from < RECN_UPSTREAM_MAX && !(t->fresh >> from & 1)) {
		struct recn_msg m = { .kind = RECN_MSG_NOTIFY, .pt = *pt };

		if (!t->fresh)
			t->fresh_at = now;
		t->fresh |= 1ULL << from;
		send(ctx, from, &m);
		s->st.notify_tx++;
		if (t->xoff && !(t->told >> from & 1)) {
			/* a port told now must stop with the others */
			m.kind = RECN_MSG_XOFF;
			send(ctx, from, &m);
			s->st.xoff_tx++;
		}
		t->told |= 1ULL << from;
	}
	if (bytes >= s->cfg.xoff && !t->xoff && t->told) {
		t->xoff = true;
		t->xoff_at = now;
		t->xoff_again_at = now;
		recn_tell_all(s, t, pt, RECN_MSG_XOFF, send, ctx);
	} else if (t->xoff && bytes >= s->cfg.xoff && from < RECN_UPSTREAM_MAX &&
		   (t->told >> from & 1) &&
		   recn_since(now, t->xoff_again_at, s->cfg.refresh_ns / 8)) {
		/*
		 * A stopped port still sends: its frames were on the way, or
		 * the Xoff was lost (a port not told has no SAQ to stop).  Tell it again, at most every
		 * refresh_ns / 8, rather than let it fill the buffer until
		 * the next refresh.
		 */
		struct recn_msg m = { .kind = RECN_MSG_XOFF, .pt = *pt };

		t->xoff_again_at = now;
		send(ctx, from, &m);
		s->st.xoff_tx++;
	}
}

/* A point now holding @bytes: let the told ports go again at @xon. */
static inline void recn_tell_departure(struct recn_set *s, struct recn_tell *t,
				       const struct recn_point *pt, fq_u32 bytes,
				       recn_send_fn send, void *ctx)
{
	if (t->xoff && bytes <= s->cfg.xon) {
		t->xoff = false;
		recn_tell_all(s, t, pt, RECN_MSG_XON, send, ctx);
	}
}

static inline struct recn_point recn_root_point(const struct recn_root *r)
{
	return (struct recn_point){ .turns = r->detq, .len = 1, .sl = r->sl };
}

static inline void recn_root_free(struct recn_set *s, fq_u32 i)
{
	struct recn_root *r = &s->root[i];

	s->detq[r->detq].roots &= (fq_u16)~(1u << i);
	*r = (struct recn_root){ 0 };
}

/* The root of detection queue @d for @sl, made if missing; NULL if full. */
static inline struct recn_root *recn_root_get(struct recn_set *s, fq_u32 d, fq_u8 sl)
{
	fq_u32 i, free = RECN_ROOT_MAX;

	for (i = 0; i < RECN_ROOT_MAX; i++) {
		if (s->root[i].used && s->root[i].detq == d && s->root[i].sl == sl)
			return &s->root[i];
		if (!s->root[i].used && free == RECN_ROOT_MAX)
			free = i;
	}
	if (free == RECN_ROOT_MAX) {
		s->st.root_full++;
		return NULL;
	}
	s->root[free] = (struct recn_root){ .used = true, .detq = (fq_u8)d, .sl = sl };
	s->detq[d].roots |= (fq_u16)(1u << free);
	s->st.root_alloc++;
	return &s->root[free];
}

/* SAQ @i is empty and nothing upstream depends on it: free it. */
static inline void recn_saq_free(struct recn_set *s, fq_u32 i, recn_send_fn send, void *ctx)
{
	struct recn_saq *q = &s->saq[i];
	struct recn_msg m = { .kind = RECN_MSG_RELEASE, .pt = q->pt };
	fq_u32 j;

	/*
	 * Whoever waited for its frames has nothing left to wait for: they
	 * have gone, and they could go only once its own wait was over (a
	 * SAQ made behind it while it held none took over its wait instead:
	 * recn_saq_alloc()).
	 */
	for (j = 0; j < RECN_SAQ_MAX; j++)
		if (s->saq[j].wait_q == (fq_s32)RECN_Q_SAQ(i))
			s->saq[j].wait_q = -1;
	*q = (struct recn_saq){ .wait_q = -1 };
	s->saq_used &= ~(1u << i);
	s->st.saq_free++;
	send(ctx, RECN_DOWNSTREAM, &m);
	s->st.release_tx++;
}

/* ---- frames ------------------------------------------------------------- */

/*
 * A frame of @bytes with @route (as seen here; 0: none) and @sl joined
 * queue @q (recn_classify(): RECN_Q_SAQ(i), else its detection queue),
 * sent by upstream port @from (RECN_NO_UPSTREAM: none, as at a host).
 */
static inline void recn_arrive(struct recn_set *s, fq_u32 q, fq_u32 route, fq_u8 sl,
			       fq_u32 bytes, fq_u32 from, fq_u64 now,
			       recn_send_fn send, void *ctx)
{
	if (RECN_Q_IS_SAQ(q)) {
		struct recn_saq *a = &s->saq[q - RECN_DETQS];

		a->bytes += bytes;
		a->frames++;
		a->arrived++;
		recn_tell_arrival(s, &a->t, &a->pt, a->bytes, from, now, send, ctx);
		return;
	} else {
		struct recn_detq *d = &s->detq[q];
		struct recn_root *r;
		struct recn_point pt;

		d->bytes += bytes;
		d->frames++;
		d->arrived++;
		s->busy |= 1ULL << q;
		/* a frame without a route names no point to isolate */
		if (d->bytes < s->cfg.detect || !(route & FHC_ROUTE_ON))
			return;
		r = recn_root_get(s, q, sl);
		if (!r)
			return;
		pt = recn_root_point(r);
		recn_tell_arrival(s, &r->t, &pt, d->bytes, from, now, send, ctx);
	}
}

/* The head of queue @q, @bytes long, left. */
static inline void recn_depart(struct recn_set *s, fq_u32 q, fq_u32 bytes, fq_u64 now,
			       recn_send_fn send, void *ctx)
{
	if (RECN_Q_IS_SAQ(q)) {
		fq_u32 i = q - RECN_DETQS;
		struct recn_saq *a = &s->saq[i];

		a->bytes -= bytes;
		a->frames--;
		a->departed++;
		a->wait_q = -1;		/* it was served: nothing is ahead of it */
		recn_tell_departure(s, &a->t, &a->pt, a->bytes, send, ctx);
		if (!a->frames) {
			a->empty_since = now;
			if (!a->t.told && !s->source)
				recn_saq_free(s, i, send, ctx);
		}
	} else {
		struct recn_detq *d = &s->detq[q];
		fq_u32 roots = d->roots;

		d->bytes -= bytes;
		d->frames--;
		d->departed++;
		if (!d->frames) {
			s->busy &= ~(1ULL << q);
			d->empty_since = now;
		}
		while (roots) {
			fq_u32 i = (fq_u32)__builtin_ctz(roots);
			struct recn_root *r = &s->root[i];
			struct recn_point pt = recn_root_point(r);

			roots &= roots - 1;
			recn_tell_departure(s, &r->t, &pt, d->bytes, send, ctx);
			/* nothing upstream holds a SAQ for it, and it is not congested */
			if (!r->t.told && d->bytes < s->cfg.detect)
				recn_root_free(s, i);
		}
	}
}

/* ---- messages ----------------------------------------------------------- */

static inline int recn_saq_find(const struct recn_set *s, const struct recn_point *pt)
{
	fq_u32 i;

	for (i = 0; i < s->cfg.nsaq; i++)
		if (s->saq[i].used && recn_point_eq(&s->saq[i].pt, pt))
			return (int)i;
	return -1;
}

/*
 * A notification for @pt: give it a SAQ, behind what it holds already.
 * With none free, say so downstream (FULL), so that the notifier does not
 * count on a SAQ here.
 */
static inline void recn_saq_alloc(struct recn_set *s, const struct recn_point *pt, fq_u64 now,
				  recn_send_fn send, void *ctx)
{
	int i, free = -1, before = -1;
	struct recn_saq *q;

	for (i = 0; i < (int)s->cfg.nsaq; i++) {
		const struct recn_saq *o = &s->saq[i];

		if (!o->used) {
			if (free < 0)
				free = i;
		} else if (recn_point_eq(&o->pt, pt)) {
			return;		/* a repeat: it has one */
		} else if (recn_point_prefix(&o->pt, pt) &&
			   (before < 0 || o->pt.len > s->saq[before].pt.len)) {
			before = i;	/* its frames went here so far */
		}
	}
	if (free < 0) {
		struct recn_msg m = { .kind = RECN_MSG_FULL, .pt = *pt };

		s->st.saq_full++;
		send(ctx, RECN_DOWNSTREAM, &m);
		s->st.full_tx++;
		return;
	}
	q = &s->saq[free];
	*q = (struct recn_saq){ .used = true, .pt = *pt, .empty_since = now };
	s->saq_used |= 1u << free;
	if (pt->len == 1) {
		/*
		 * A root here of the same name (its detection queue and SL):
		 * from now on the SAQ takes its frames, so it takes over
		 * what the root told upstream too, or the root's Xon (as its
		 * queue drains) would undo the SAQ's Xoff at the same ports.
		 */
		fq_u32 roots = s->detq[pt->turns].roots;

		while (roots) {
			fq_u32 j = (fq_u32)__builtin_ctz(roots);

			roots &= roots - 1;
			if (s->root[j].sl != pt->sl)
				continue;
			q->t = s->root[j].t;
			recn_root_free(s, j);
		}
		/*
		 * It starts empty, though, at xon bytes or fewer: an Xoff
		 * the root had sent ends now, as at any departure.  Kept,
		 * it would stop the very frames the SAQ is for, no
		 * departure of its own would say Xon, and the Xoff would be
		 * repeated until the SAQ was freed idle.
		 */
		recn_tell_departure(s, &q->t, pt, q->bytes, send, ctx);
	}
	if (before >= 0 && !s->saq[before].frames && recn_saq_waiting(s, (fq_u32)before)) {
		/* it holds none of them yet: they are where it waits for */
		q->wait_q = s->saq[before].wait_q;
		q->wait_seq = s->saq[before].wait_seq;
	} else if (before >= 0) {
		q->wait_q = RECN_Q_SAQ(before);
		q->wait_seq = s->saq[before].arrived;
	} else {
		q->wait_q = (fq_s32)recn_detq_of((fq_u32)pt->turns);
		q->wait_seq = s->detq[q->wait_q].arrived;
	}
	s->st.saq_alloc++;
}

/*
 * Port @bit of @t has no SAQ any more (@full: it could not make one), as
 * far as the message says.  A port whose SAQ is gone is told again at
 * its next frame if the point is still congested; one that had none free
 * only after the refresh period (@fresh stays), so it is not asked at
 * every frame.
 *
 * But a RELEASE from a port notified in this refresh period may have
 * crossed that notification: sent as its old SAQ emptied, before the
 * notification (and the Xoff with it) made it a new one.  The crossbar
 * moves a SAQ let go by an Xon whole before it delivers what that
 * posted, so inside a switch this happens at every such drain that
 * finds the point congested again.  Such a port stays told: forgotten,
 * it would hear none of the repeated Xoffs, and its new SAQ would go on
 * at the end of each lease, into a point still full (vcsw_recn,
 * 2026-12-07).  If it holds no SAQ after all, the repeats are stale
 * there, and it is notified again at its next frame, as any port whose
 * SAQ is gone; a notifier that keeps it told is freed idle at the latest.
 */
static inline void recn_forget_port(struct recn_tell *t, fq_u64 bit, bool full)
{
	if (full) {
		t->told &= ~bit;
		return;
	}
	if (!(t->fresh & bit))
		t->told &= ~bit;
	t->fresh &= ~bit;
}

/*
 * Upstream port @from has no SAQ for @pt any more (@full: it could not
 * make one): recn_forget_port().  Only a port that was told counts: a
 * RELEASE from any other is stale.
 */
static inline void recn_release(struct recn_set *s, const struct recn_point *pt,
				fq_u32 from, bool full, recn_send_fn send, void *ctx)
{
	fq_u64 bit = from < RECN_UPSTREAM_MAX ? 1ULL << from : 0;
	int i = recn_saq_find(s, pt);
	bool found = false;

	if (i >= 0 && (s->saq[i].t.told & bit)) {
		struct recn_saq *q = &s->saq[i];

		found = true;
		recn_forget_port(&q->t, bit, full);
		if (!q->t.told && !q->frames)
			recn_saq_free(s, (fq_u32)i, send, ctx);
	}
	if (pt->len == 1 && pt->turns < RECN_DETQS) {
		fq_u32 roots = s->detq[pt->turns].roots;

		while (roots) {
			fq_u32 j = (fq_u32)__builtin_ctz(roots);
			struct recn_root *r = &s->root[j];

			roots &= roots - 1;
			if (r->sl != pt->sl || !(r->t.told & bit))
				continue;
			found = true;
			recn_forget_port(&r->t, bit, full);
			if (!r->t.told && s->detq[r->detq].bytes < s->cfg.detect)
				recn_root_free(s, j);
		}
	}
	if (!found)
		s->st.stale_rx++;
}

/*
 * A message for this set: NOTIFY, XOFF and XON from downstream, RELEASE
 * and FULL from upstream port @from.  Anything that names no valid point is
 * dropped and counted.
 */
static inline void recn_receive(struct recn_set *s, const struct recn_msg *m, fq_u32 from,
				fq_u64 now, recn_send_fn send, void *ctx)
{
	int i;

	if (!recn_point_valid(&m->pt)) {
		s->st.bad_rx++;
		return;
	}
	switch (m->kind) {
	case RECN_MSG_NOTIFY:
		s->st.notify_rx++;
		recn_saq_alloc(s, &m->pt, now, send, ctx);
		return;
	case RECN_MSG_XOFF:
	case RECN_MSG_XON:
		if (m->kind == RECN_MSG_XOFF)
			s->st.xoff_rx++;
		else
			s->st.xon_rx++;
		i = recn_saq_find(s, &m->pt);
		if (i < 0) {
			s->st.stale_rx++;
			return;
		}
		s->saq[i].stopped = m->kind == RECN_MSG_XOFF;
		s->saq[i].stop_until = now + s->cfg.lease_ns;
		return;
	case RECN_MSG_RELEASE:
	case RECN_MSG_FULL:
		if (m->kind == RECN_MSG_RELEASE)
			s->st.release_rx++;
		else
			s->st.full_rx++;
		recn_release(s, &m->pt, from, m->kind == RECN_MSG_FULL, send, ctx);
		return;
	default:
		s->st.bad_rx++;
	}
}

/* ---- time --------------------------------------------------------------- */

/*
 * Repeat what may have been lost, at most every @refresh_ns: Xoff to the
 * told ports while it holds; notifications, by forgetting which ports were
 * told in the period, while the point is congested.
 */
static inline void recn_tell_tick(struct recn_set *s, struct recn_tell *t,
				  const struct recn_point *pt, fq_u64 now,
				  recn_send_fn send, void *ctx)
{
	if (t->xoff && recn_since(now, t->xoff_at, s->cfg.refresh_ns)) {
		t->xoff_at = now;
		recn_tell_all(s, t, pt, RECN_MSG_XOFF, send, ctx);
	}
	if (t->fresh && recn_since(now, t->fresh_at, s->cfg.refresh_ns))
		t->fresh = 0;
}

/*
 * Call at least every @refresh_ns: ends Xoff leases, repeats Xoffs and
 * notifications, frees SAQs and roots left empty for @idle_ns whose
 * upstream never released them.
 */
static inline void recn_tick(struct recn_set *s, fq_u64 now, recn_send_fn send, void *ctx)
{
	fq_u32 i;

	for (i = 0; i < s->cfg.nsaq; i++) {
		struct recn_saq *q = &s->saq[i];

		if (!q->used)
			continue;
		if (q->stopped && recn_since(now, q->stop_until, 0)) {
			q->stopped = false;
			s->st.lease_expired++;
		}
		/*
		 * A finished wait is forgotten: left standing, the queue it
		 * names would make it look unfinished again once 2^31 more
		 * frames had gone through (the counts wrap).
		 */
		if (q->wait_q >= 0 && !recn_saq_waiting(s, i))
			q->wait_q = -1;
		recn_tell_tick(s, &q->t, &q->pt, now, send, ctx);
		/* its Xoff ended when it emptied: bytes <= xon */
		if (!q->frames && recn_since(now, q->empty_since, s->cfg.idle_ns)) {
			s->st.saq_idle_free++;
			recn_saq_free(s, i, send, ctx);
		}
	}
	for (i = 0; i < RECN_ROOT_MAX; i++) {
		struct recn_root *r = &s->root[i];
		struct recn_detq *d = &s->detq[r->detq];
		struct recn_point pt;

		if (!r->used)
			continue;
		pt = recn_root_point(r);
		recn_tell_tick(s, &r->t, &pt, now, send, ctx);
		if (!d->frames && recn_since(now, d->empty_since, s->cfg.idle_ns))
			recn_root_free(s, i);
	}
}

#endif /* FQ_RECN_CORE_H */
