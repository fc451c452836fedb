/* SPDX-License-Identifier: GPL-2.0 */
/*
 * RECN in the soft switch's buffers (architecture "recn"; paper:
 * two-vcs-with-recn-congestion-management, Section 4).  Each VC of each
 * input buffer and each output buffer is a RECN set (recn_core.h): its
 * frames wait in one FIFO per detection queue or SAQ, and the set serves
 * them in round robin among the queues that are ready.  Plain C shared by
 * kernel/vcsw_main.c (through vcsw_port.h's VCSW_MODE_RECN) and the unit
 * tests.
 *
 * Where a frame waits:
 *  - at an input, the detection queue of the output it crosses to (its
 *    route's first digit; for a frame forwarded by MAC, the output's
 *    index + 1, and 63 for port 63 as for port 62: no route can name
 *    port 63, and the crossbar asks each queue's head where it goes);
 *  - at an output, the detection queue of the next switch's output (the
 *    route's next digit), 0 for a frame whose route ends at the next hop
 *    or that has no route;
 *  - in a SAQ instead when its route and SL pass a congested point the set
 *    was told of (recn_classify()).
 * Only frames with a source route take part: a frame forwarded by MAC
 * names no point, so it is never detected as congestion nor set aside.
 *
 * The sets do not send their messages themselves: each set posts them in
 * a box (struct vcsw_rq_box, bounded; a full box drops and counts, which
 * RECN survives as it survives any lost message), and the switch delivers
 * the box after the operation, under the same lock (vcsw_xbar_recn_deliver()):
 * inside the switch to the other side's set, across a link by a callback
 * that sends them in a FABRIC_CTRL_RECN frame.
 */
#ifndef FQ_VCSW_RECN_H
#define FQ_VCSW_RECN_H

#include "vcsw_list.h"
#include "recn_core.h"

#define VCSW_RQ_QUEUES		(RECN_DETQS + RECN_SAQ_MAX)
/*
 * Messages the sets may post before they are delivered: a set's tick
 * repeats each stopped point's Xoff to every port told of it (16 roots
 * told by 16 inputs fill it), and the switch delivers between two sets
 * once it is half full (vcsw_xbar_recn_tick()).  32 bytes each.
 */
#define VCSW_RQ_BOX		256

enum vcsw_rq_side {
	VCSW_RQ_IN,		/* an input buffer: upstream is the link */
	VCSW_RQ_OUT,		/* an output buffer: upstream are the inputs */
};

/* A message a set posted, with where it comes from. */
struct vcsw_rq_note {
	struct recn_msg m;
	fq_u8 to;		/* recn_send_fn's @to */
	fq_u8 side;		/* enum vcsw_rq_side */
	fq_u8 vc;
	fq_u16 port;		/* the set's port */
};

struct vcsw_rq_box {
	struct vcsw_rq_note note[VCSW_RQ_BOX];
	fq_u32 head, count;
	fq_u64 dropped;		/* posted to a full box */
};

/* One VC of one side of a port. */
struct vcsw_rq {
	struct recn_set set;
	struct vcsw_list q[VCSW_RQ_QUEUES];
	fq_u32 frames;
	fq_s32 last;		/* the queue served last: round robin */
	fq_u64 now;		/* the clock of the operation under way */
	struct vcsw_rq_box *box;
	fq_u16 port;
	fq_u8 side, vc;
	bool tell_up;		/* input side: the link's far end hears RECN */
	fq_u64 dropped;		/* messages it posted that the box lost */
};

static inline void vcsw_rq_init(struct vcsw_rq *rq, const struct recn_cfg *cfg,
				struct vcsw_rq_box *box, fq_u16 port,
				enum vcsw_rq_side side, fq_u8 vc, bool tell_up)
{
	fq_u32 i;

	recn_init(&rq->set, cfg);
	if (side == VCSW_RQ_OUT)
		recn_set_output_side(&rq->set);
	for (i = 0; i < VCSW_RQ_QUEUES; i++)
		vcsw_list_init(&rq->q[i]);
	rq->frames = 0;
	rq->last = -1;
	rq->now = 0;
	rq->box = box;
	rq->port = port;
	rq->side = (fq_u8)side;
	rq->vc = vc;
	rq->tell_up = tell_up;
	rq->dropped = 0;
}

/* recn_send_fn: into the box, for vcsw_xbar_recn_deliver(). */
static inline void vcsw_rq_post(void *ctx, fq_u32 to, const struct recn_msg *m)
{
	struct vcsw_rq *rq = ctx;
	struct vcsw_rq_box *b = rq->box;
	struct vcsw_rq_note *n;

	if (b->count == VCSW_RQ_BOX) {
		b->dropped++;
		rq->dropped++;
		return;
	}
	n = &b->note[(b->head + b->count) % VCSW_RQ_BOX];
	n->m = *m;
	n->to = (fq_u8)to;
	n->side = rq->side;
	n->vc = rq->vc;
	n->port = rq->port;
	b->count++;
}

/* The frame's route as this side reads it: the next digit at an output. */
static inline fq_u32 vcsw_rq_route(const struct vcsw_rq *rq, const struct vcsw_node *n)
{
	if (!(n->route & FHC_ROUTE_ON))
		return 0;
	return rq->side == VCSW_RQ_IN ? n->route : fhc_route_next(n->route);
}

static inline fq_u32 vcsw_rq_detq(const struct vcsw_rq *rq, const struct vcsw_node *n,
				  fq_u32 route)
{
	if (rq->side == VCSW_RQ_IN)
		return n->out < RECN_DETQS - 1 ? n->out + 1u : RECN_DETQS - 1u;
	return route ? recn_detq_of(route) : 0;
}

/* A frame joins the set: its SAQ, else its detection queue. */
static inline void vcsw_rq_link(struct vcsw_rq *rq, struct vcsw_node *n)
{
	fq_u32 route = vcsw_rq_route(rq, n), q, from;
	int saq = recn_classify(&rq->set, route, n->sl);

	q = saq >= 0 ? RECN_Q_SAQ((fq_u32)saq) : vcsw_rq_detq(rq, n, route);
	n->rq_q = (fq_u8)q;
	n->rq_seq = RECN_Q_IS_SAQ(q) ? rq->set.saq[q - RECN_DETQS].arrived : rq->set.detq[q].arrived;
	vcsw_list_append(&rq->q[q], n);
	rq->frames++;
	if (rq->side == VCSW_RQ_IN)
		from = rq->tell_up ? 0 : RECN_NO_UPSTREAM;
	else
		from = n->from;
	recn_arrive(&rq->set, q, route, n->sl, n->len, from, rq->now, vcsw_rq_post, rq);
}

/* Frame @n (the head of its queue when served) leaves the set. */
static inline void vcsw_rq_unlink(struct vcsw_rq *rq, struct vcsw_node *n)
{
	fq_u32 q = n->rq_q;

	vcsw_list_unlink(&rq->q[q], n);
	rq->frames--;
	rq->last = (fq_s32)q;
	recn_depart(&rq->set, q, n->len, rq->now, vcsw_rq_post, rq);
}

/*
 * Frame @n leaves the set from wherever it is in its queue at @now:
 * taken out, not served in turn (an input buffer whose output shrank).
 * Every SAQ waiting for the older frames of @n's queue must go on
 * waiting for them: if @n is not one of them, its going is not theirs
 * (the SAQ's count moves on with it).  And what recn_depart() does for
 * a frame served is undone where it is not so here: the SAQ @n leaves
 * keeps its own wait, and the round robin stays with the queue served
 * last.
 */
static inline void vcsw_rq_remove(struct vcsw_rq *rq, struct vcsw_node *n, fq_u64 now)
{
	fq_u32 q = n->rq_q, j;
	struct recn_saq *own = RECN_Q_IS_SAQ(q) ? &rq->set.saq[q - RECN_DETQS] : NULL;
	fq_s32 wait_q = own ? own->wait_q : -1, last = rq->last;
	fq_u32 wait_seq = own ? own->wait_seq : 0;

	/* a queue it empties is empty from now on (its idle time) */
	rq->now = now;

	for (j = 0; j < RECN_SAQ_MAX; j++) {
		struct recn_saq *a = &rq->set.saq[j];

		if (a->used && a->wait_q == (fq_s32)q && (fq_s32)(n->rq_seq - a->wait_seq) >= 0)
			a->wait_seq++;
	}
	vcsw_rq_unlink(rq, n);
	rq->last = last;
	if (own && own->used && wait_q >= 0) {
		own->wait_q = wait_q;
		own->wait_seq = wait_seq;
	}
}

struct vcsw_rq_for {
	const struct vcsw_rq *rq;
	fq_u32 out;
};

static inline bool vcsw_rq_head_for(void *ctx, fq_u32 q)
{
	const struct vcsw_rq_for *f = ctx;

	return f->rq->q[q].head->out == f->out;
}

/*
 * The frame the set serves next in round robin, among the queues that
 * may go (a stopped SAQ, or one waiting for frames of its point ahead of
 * it, may not); with @out below 0xffff only queues whose head crosses to
 * output @out (an input's request to one output at the crossbar).  NULL
 * if none.
 */
static inline struct vcsw_node *vcsw_rq_pick(const struct vcsw_rq *rq, fq_u32 out)
{
	struct vcsw_rq_for f = { rq, out };
	fq_u64 detmask = ~0ULL;
	fq_u32 saqmask = ~0u, left;
	int q;

	if (out < 0xffff && rq->side == VCSW_RQ_IN) {
		/*
		 * At an input only the output's own detection queue and the
		 * SAQs whose point starts with its digit can hold a frame for
		 * it: the crossbar asks every input with frames for every
		 * output, and a walk of the whole set each time cost more
		 * than the rest of the frame's way through the switch
		 */
		fq_u32 d = out < RECN_DETQS - 1 ? out + 1 : RECN_DETQS - 1;

		detmask = 1ULL << d;
		saqmask = 0;
		for (left = rq->set.saq_used; left; left &= left - 1) {
			fq_u32 i = (fq_u32)__builtin_ctz(left);

			if ((rq->set.saq[i].pt.turns & 63) == d)
				saqmask |= 1u << i;
		}
	}
	q = recn_next_among(&rq->set, rq->last, detmask, saqmask,
			    out < 0xffff ? vcsw_rq_head_for : NULL, &f);
	return q < 0 ? NULL : rq->q[q].head;
}

/* Any frame of the set, ready or not: to empty it. */
static inline struct vcsw_node *vcsw_rq_first(const struct vcsw_rq *rq)
{
	fq_u32 i;

	if (!rq->frames)
		return NULL;
	for (i = 0; i < VCSW_RQ_QUEUES; i++)
		if (rq->q[i].head)
			return rq->q[i].head;
	return NULL;
}

/*
 * Is anything left for recn_tick() to do: a SAQ or a root?  (Frames in
 * detection queues alone need no tick.)
 */
static inline bool vcsw_rq_busy(const struct vcsw_rq *rq)
{
	fq_u32 i;

	for (i = 0; i < RECN_SAQ_MAX; i++)
		if (rq->set.saq[i].used)
			return true;
	for (i = 0; i < RECN_ROOT_MAX; i++)
		if (rq->set.root[i].used)
			return true;
	return false;
}

/*
 * recn_tick() at @now; true while the set needs ticks.  *@woke is set if
 * a SAQ's lease ended: it may go again, so its buffer wants serving.
 */
static inline bool vcsw_rq_tick(struct vcsw_rq *rq, fq_u64 now, bool *woke)
{
	fq_u64 leases = rq->set.st.lease_expired;

	rq->now = now;
	recn_tick(&rq->set, now, vcsw_rq_post, rq);
	if (rq->set.st.lease_expired != leases)
		*woke = true;
	return vcsw_rq_busy(rq);
}

/* The set's stopped SAQs, a bit each. */
static inline fq_u32 vcsw_rq_stopped(const struct vcsw_rq *rq)
{
	fq_u32 i, mask = 0;

	for (i = 0; i < RECN_SAQ_MAX; i++)
		mask |= (fq_u32)(rq->set.saq[i].used && rq->set.saq[i].stopped) << i;
	return mask;
}

/*
 * A message for this set (recn_receive()).  True if it let a stopped SAQ
 * go (an Xon): only then may frames move that could not (a repeated
 * Xoff, which most messages are, changes nothing).
 */
static inline bool vcsw_rq_receive(struct vcsw_rq *rq, const struct recn_msg *m,
				   fq_u32 from, fq_u64 now)
{
	fq_u32 stopped = vcsw_rq_stopped(rq);

	rq->now = now;
	recn_receive(&rq->set, m, from, now, vcsw_rq_post, rq);
	return (stopped & ~vcsw_rq_stopped(rq)) != 0;
}

/*
 * Where a posted message goes: to another set of the switch (the input
 * side of port *@port, or the output side; the point rewritten for it in
 * @m), over the link of the note's port, or nowhere (a point too long to
 * say upstream, or naming no output).
 */
enum vcsw_rq_dest {
	VCSW_RQ_TO_NONE,
	VCSW_RQ_TO_SET,
	VCSW_RQ_TO_LINK,
};

static inline enum vcsw_rq_dest vcsw_rq_dest_of(const struct vcsw_rq_note *n,
						struct recn_msg *m, fq_u32 *port,
						enum vcsw_rq_side *side)
{
	*m = n->m;
	if (n->side == VCSW_RQ_OUT && n->to != RECN_DOWNSTREAM) {
		/* up to an input of this switch: our digit in front */
		if (!recn_point_up_from_output(&m->pt, n->port))
			return VCSW_RQ_TO_NONE;
		*port = n->to;
		*side = VCSW_RQ_IN;
		return VCSW_RQ_TO_SET;
	}
	if (n->side == VCSW_RQ_IN && n->to == RECN_DOWNSTREAM) {
		/* down to the output the point names first */
		if (!recn_point_down_to_output(&m->pt, port))
			return VCSW_RQ_TO_NONE;
		*side = VCSW_RQ_OUT;
		return VCSW_RQ_TO_SET;
	}
	/* an input's upstream, an output's downstream: the link's far end */
	*port = n->port;
	return VCSW_RQ_TO_LINK;
}

/*
 * The side of a port a message from the link's far end is for: what is
 * said upstream (NOTIFY, XOFF, XON) reaches the output side that sends on
 * the link, what is said downstream (RELEASE, FULL) the input side.
 */
static inline enum vcsw_rq_side vcsw_rq_side_of_link_msg(const struct recn_msg *m)
{
	return m->kind == RECN_MSG_RELEASE || m->kind == RECN_MSG_FULL ? VCSW_RQ_IN :
									 VCSW_RQ_OUT;
}

#endif /* FQ_VCSW_RECN_H */
