/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The switch of arch recn (vcsw_xbar.h) and its RECN sets (vcsw_recn.h):
 * the set of a port's input or output VC, the delivery of what the sets
 * post, to the other sets of the switch and to the links, and a link's
 * messages to the set they are for.  Plain C shared by the soft switch
 * (kernel/vcsw_recn.c) and the unit tests.
 */
#ifndef FQ_VCSW_XBAR_RECN_H
#define FQ_VCSW_XBAR_RECN_H

#include "vcsw_xbar.h"

/* The RECN set of port @port's @side, VC @vc, or NULL (none, or not recn). */
static inline struct vcsw_rq *vcsw_xbar_rq(struct vcsw_xport *const *ports, unsigned int n,
					   fq_u32 port, enum vcsw_rq_side side, fq_u32 vc)
{
	struct vcsw_vc *v;

	if (port >= n || vc >= VCSW_NUM_VCS)
		return NULL;
	v = side == VCSW_RQ_IN ? &ports[port]->in[vc] : &ports[port]->out.vc[vc];
	return v->mode == VCSW_MODE_RECN ? v->rq : NULL;
}

/* Sends a message over port @port's link (the caller's way: a frame). */
typedef void (*vcsw_recn_link_fn)(void *ctx, fq_u32 port, fq_u8 vc, const struct recn_msg *m);

/*
 * Deliver what the sets of @ports posted in @box at @now: to the other
 * sets of the switch, which may post more (a FULL back, a RELEASE on),
 * and to @link for the links.  At most 4 * VCSW_RQ_BOX messages; the
 * rest is dropped (counted in the box), which RECN survives as any lost
 * message.  Returns how many reached a set of the switch (they may have
 * made a SAQ ready, or stopped one: the caller runs the crossbar again).
 */
static inline fq_u32 vcsw_xbar_recn_deliver(struct vcsw_xport *const *ports, unsigned int n,
					    struct vcsw_rq_box *box, fq_u64 now,
					    vcsw_recn_link_fn link, void *ctx)
{
	fq_u32 budget = 4 * VCSW_RQ_BOX, inside = 0;

	while (box->count) {
		struct vcsw_rq_note note = box->note[box->head];
		enum vcsw_rq_side side;
		struct vcsw_rq *rq;
		struct recn_msg m;
		fq_u32 port;

		box->head = (box->head + 1) % VCSW_RQ_BOX;
		box->count--;
		if (!budget) {
			/* on the sender's count, as a full box does */
			rq = vcsw_xbar_rq(ports, n, note.port, (enum vcsw_rq_side)note.side,
					  note.vc);
			if (rq)
				rq->dropped++;
			box->dropped++;
			continue;
		}
		budget--;
		switch (vcsw_rq_dest_of(&note, &m, &port, &side)) {
		case VCSW_RQ_TO_SET:
			rq = vcsw_xbar_rq(ports, n, port, side, note.vc);
			if (!rq)
				break;
			/* an output side knows its inputs by their index */
			vcsw_rq_receive(rq, &m, note.port, now);
			inside++;
			break;
		case VCSW_RQ_TO_LINK:
			link(ctx, port, note.vc, &m);
			break;
		case VCSW_RQ_TO_NONE:
			break;
		}
	}
	return inside;
}

/*
 * vcsw_rq_tick() the @side sets of the @n ports at @now, VC by VC, port
 * by port, delivering @box (vcsw_xbar_recn_deliver()) after a set that
 * left it half full: a tick repeats every stopped point's Xoff to every
 * port told of it, and a box delivered only at the end would drop the
 * repeats of the sets ticked last, the same ones at every tick.  Not
 * within a set: a delivery may reach the set itself.
 */
static inline bool vcsw_xbar_recn_tick_side(struct vcsw_xport *const *ports, unsigned int n,
					    enum vcsw_rq_side side, struct vcsw_rq_box *box,
					    fq_u64 now, vcsw_recn_link_fn link, void *ctx,
					    bool *woke)
{
	unsigned int p, vc;
	bool busy = false;

	for (p = 0; p < n; p++)
		for (vc = 0; vc < VCSW_NUM_VCS; vc++) {
			struct vcsw_rq *rq = vcsw_xbar_rq(ports, n, p, side, vc);

			if (!rq)
				continue;
			busy |= vcsw_rq_tick(rq, now, woke);
			if (box->count >= VCSW_RQ_BOX / 2)
				vcsw_xbar_recn_deliver(ports, n, box, now, link, ctx);
		}
	return busy;
}

/*
 * vcsw_rq_tick() every set of the @n ports at @now: the output sides
 * first, then what they posted delivered, then the input sides.  An
 * output's roots and SAQs repeat their Xoffs to the inputs they told,
 * and an input's SAQ ends its lease when no Xoff came for one: a tick
 * that comes late, past a lease, must land the repeats before it looks
 * at the leases, or it ends those of SAQs whose notifier still holds
 * its Xoff, and their frames cross before the repeat stops them again.
 * (An input side's messages go over its link, or downstream to the
 * outputs as RELEASE or FULL, which stop nothing.)  What the box held
 * before the tick (a settle stops after a few rounds) may hold an Xon:
 * delivered first, and if any of it reached a set *@woke is set, so that
 * the caller runs the crossbar.  True while a set needs ticks; *@woke
 * also as vcsw_rq_tick() says.
 */
static inline bool vcsw_xbar_recn_tick(struct vcsw_xport *const *ports, unsigned int n,
				       struct vcsw_rq_box *box, fq_u64 now,
				       vcsw_recn_link_fn link, void *ctx, bool *woke)
{
	bool busy;

	if (box->count && vcsw_xbar_recn_deliver(ports, n, box, now, link, ctx))
		*woke = true;
	busy = vcsw_xbar_recn_tick_side(ports, n, VCSW_RQ_OUT, box, now, link, ctx, woke);
	vcsw_xbar_recn_deliver(ports, n, box, now, link, ctx);
	busy |= vcsw_xbar_recn_tick_side(ports, n, VCSW_RQ_IN, box, now, link, ctx, woke);
	return busy;
}

enum vcsw_recn_rx {
	VCSW_RECN_RX_NONE,	/* no set there takes it (the port is not recn) */
	VCSW_RECN_RX_TAKEN,
	VCSW_RECN_RX_WOKE,	/* taken, and a stopped SAQ may go again */
};

/* A message from the far end of port @port's link, for VC @vc. */
static inline enum vcsw_recn_rx vcsw_xbar_recn_receive(struct vcsw_xport *const *ports,
						       unsigned int n, fq_u32 port, fq_u8 vc,
						       const struct recn_msg *m, fq_u64 now)
{
	struct vcsw_rq *rq = vcsw_xbar_rq(ports, n, port, vcsw_rq_side_of_link_msg(m), vc);

	if (!rq)
		return VCSW_RECN_RX_NONE;
	/* the input side's one upstream port is the link: bit 0 */
	return vcsw_rq_receive(rq, m, 0, now) ? VCSW_RECN_RX_WOKE : VCSW_RECN_RX_TAKEN;
}

#endif /* FQ_VCSW_XBAR_RECN_H */
