/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output port buffer of the soft switch (paper: edf-deadline-qos-two-vcs,
 * sections 3.2 to 3.4 and the appendix), shared by kernel/vcsw_main.c, the unit
 * tests and "qsim port".
 *
 * A port has two virtual channels, VC0 (regulated) strictly before VC1
 * (best effort), each with a byte limit, or four (vcsw_port_set_vcs(): the
 * paper's "Traditional 4 VCs", one per traffic class), each strictly
 * before the next.  VCs 1 to 3 are FIFOs.  VC0 is one of:
 *
 *  fifo      one FIFO in arrival order (the paper's "Simple 2 VCs");
 *  takeover  an ordered FIFO L and a take-over FIFO U ("Advanced 2 VCs"):
 *            a packet goes to L if L is empty or its deadline is not
 *            below the deadline of L's tail, else to U; the head with the
 *            smaller deadline leaves first, L's on a tie (see
 *            vcsw_vc_pick() for why the tie matters);
 *  ideal     fully sorted by deadline, ties in arrival order: a
 *            red-black tree (rbq.h), so a frame costs O(log n) whatever
 *            its deadline (a sorted list cost a walk of the buffer per
 *            frame when deadlines fall, in softirq under the port lock);
 *  recn      (any VC, the switch's architecture "recn") a RECN set of
 *            FIFOs, one per detection queue and SAQ, served in round
 *            robin among those ready (vcsw_recn.h); the caller gives each
 *            VC its set (vcsw_vc_attach_recn()).
 *
 * The appendix proves that takeover keeps L sorted, that L's tail holds the
 * largest deadline, that U never outlives L, and hence that no flow whose
 * deadlines grow is reordered.  selftests/unit/test_vcsw_port.c checks all
 * of that on random traces.
 *
 * Order errors (a departure while a packet with a smaller deadline waits
 * in the same VC) are measured, not assumed: every waiting packet also
 * sits in a pairing heap keyed by deadline, whose minimum after a
 * departure tells whether a smaller deadline was left behind.  The heap
 * costs O(log n) per packet and no memory beyond the node.
 *
 * Packets are intrusive nodes (struct vcsw_node) that the caller embeds in
 * its own packet descriptor, so nothing here allocates.  Times are ns on
 * one clock, rates bytes/s.  The caller serialises all calls on a port.
 */
#ifndef FQ_VCSW_PORT_H
#define FQ_VCSW_PORT_H

#include "core_types.h"
#include "vcsw_list.h"
#include "vcsw_recn.h"
#include "edf_core.h"
#include "../include/uapi/linux/vcsw.h"

/*
 * A VC of architecture "recn" (vcsw_xbar.h): not one of the uapi's VC0
 * disciplines, which IFLA_VCSW_VC0_MODE names.
 */
#define VCSW_MODE_RECN	(VCSW_MODE_MAX + 1)

struct vcsw_vc {
	struct vcsw_list	ordered;	/* the FIFO, or L */
	struct vcsw_list	takeover;	/* U: takeover mode only */
	struct rbq		sorted;		/* ideal mode only */
	struct pheap		waiting;	/* every waiting node, by deadline */
	struct vcsw_rq		*rq;		/* recn mode only: the caller's */
	fq_u8			mode;		/* VCSW_MODE_* */
	fq_u32			limit;		/* bytes */
	fq_u32			backlog;	/* bytes */
	struct vcsw_vc_stats	st;
};

struct vcsw_port {
	struct vcsw_vc		vc[VCSW_MAX_VCS];
	fq_u8			vcs;		/* VCs in use: 2 or 4 */
	fq_u64			rate;		/* bytes/s; 0: no emulated link */
	fq_u64			link_free;	/* the link is busy until then */
};

enum vcsw_enq_result {
	VCSW_ENQ_OK,
	VCSW_ENQ_FULL,		/* over the VC's byte limit: caller frees it */
};

/* ---- one VC ---------------------------------------------------------------- */

static inline const char *vcsw_mode_name(unsigned int mode)
{
	switch (mode) {
	case VCSW_MODE_FIFO:
		return "fifo";
	case VCSW_MODE_TAKEOVER:
		return "takeover";
	case VCSW_MODE_IDEAL:
		return "ideal";
	case VCSW_MODE_RECN:
		return "recn";
	default:
		return "?";
	}
}

static inline void vcsw_vc_init(struct vcsw_vc *v, fq_u8 mode, fq_u32 limit)
{
	vcsw_list_init(&v->ordered);
	vcsw_list_init(&v->takeover);
	rbq_init(&v->sorted);
	pheap_init(&v->waiting);
	v->rq = NULL;
	/* recn needs the caller's set: vcsw_vc_attach_recn() */
	v->mode = mode == VCSW_MODE_RECN ? VCSW_MODE_FIFO : mode;
	v->limit = limit;
	v->backlog = 0;
	{
		struct vcsw_vc_stats zero = { 0 };

		v->st = zero;
	}
}

static inline fq_u32 vcsw_vc_qlen(const struct vcsw_vc *v)
{
	return v->ordered.count + v->takeover.count + v->sorted.count +
	       (v->mode == VCSW_MODE_RECN ? v->rq->frames : 0);
}

/* Put @n in the VC's structure, no accounting. */
static inline void vcsw_vc_link(struct vcsw_vc *v, struct vcsw_node *n)
{
	struct vcsw_node *tail = v->ordered.tail;

	n->in_takeover = false;
	switch (v->mode) {
	case VCSW_MODE_TAKEOVER:
		/*
		 * L empty (and so U empty, Lemma 1) or not below L's tail:
		 * the ordered FIFO; otherwise it may overtake L.
		 */
		if (tail && n->deadline < tail->deadline) {
			n->in_takeover = true;
			vcsw_list_append(&v->takeover, n);
			break;
		}
		vcsw_list_append(&v->ordered, n);
		break;
	case VCSW_MODE_IDEAL:
		rbq_insert(&v->sorted, &n->rb, n->deadline);
		break;
	case VCSW_MODE_RECN:
		vcsw_rq_link(v->rq, n);
		break;
	default:
		vcsw_list_append(&v->ordered, n);
		break;
	}
	pheap_insert(&v->waiting, &n->heap, n->deadline);
}

/*
 * The node that leaves next for output @out: in recn mode the next ready
 * queue whose head goes there (an input's request at the crossbar), in
 * the others the head, wherever it goes (one FIFO per VC: head-of-line
 * blocking).  Takeover: the head with the smaller deadline, and L's head
 * on a tie.  The tie rule keeps flows in order even when a flow repeats a
 * deadline: a flow's later packet can sit at U's head while its earlier
 * packet with the same deadline is still in L; L's head then has a
 * deadline no larger, and must go first.
 *
 * The crossbar asks each input that has frames, for each output their
 * heads go to, so this runs often.  FIFO, the mode of every VC but VC0 in
 * every architecture, is tested first: asking it after the other modes
 * cost a trad switch of 8 ports and 4 VCs a sixth of its instructions in
 * qsim, when the crossbar still asked every input for every output
 * (Documentation/benchmarks.rst, "The crossbar's ask").
 */
static inline struct vcsw_node *vcsw_vc_pick_for(const struct vcsw_vc *v, fq_u16 out)
{
	struct vcsw_node *l = v->ordered.head, *u = v->takeover.head;

	if (v->mode == VCSW_MODE_FIFO)
		return l;
	if (v->mode == VCSW_MODE_IDEAL) {
		struct rbq_node *r = rbq_first(&v->sorted);

		return r ? vcsw_node_of_rb(r) : NULL;
	}
	if (v->mode == VCSW_MODE_RECN)
		return vcsw_rq_pick(v->rq, out);
	if (!u)
		return l;
	if (!l || u->deadline < l->deadline)
		return u;
	return l;
}

/* The node that leaves next, wherever it goes. */
static inline struct vcsw_node *vcsw_vc_pick(const struct vcsw_vc *v)
{
	return vcsw_vc_pick_for(v, 0xffff);
}

/*
 * Any node, to empty the VC: the one that leaves next, except in recn
 * mode, where frames of a stopped SAQ are never "next".
 */
static inline struct vcsw_node *vcsw_vc_first(const struct vcsw_vc *v)
{
	if (v->mode == VCSW_MODE_RECN)
		return vcsw_rq_first(v->rq);
	return vcsw_vc_pick(v);
}

/* Take @n out of the VC, no accounting. */
static inline void vcsw_vc_unlink(struct vcsw_vc *v, struct vcsw_node *n)
{
	if (v->mode == VCSW_MODE_IDEAL)
		rbq_erase(&v->sorted, &n->rb);
	else if (v->mode == VCSW_MODE_RECN)
		vcsw_rq_unlink(v->rq, n);
	else
		vcsw_list_unlink(n->in_takeover ? &v->takeover : &v->ordered, n);
	pheap_remove(&v->waiting, &n->heap);
	n->in_takeover = false;
}

/* ---- the port -------------------------------------------------------------- */

/*
 * Two VCs; VCs 2 and 3, unused until vcsw_port_set_vcs(), are FIFOs of
 * @vc1_limit bytes.
 */
static inline void vcsw_port_init(struct vcsw_port *p, fq_u8 vc0_mode,
				  fq_u32 vc0_limit, fq_u32 vc1_limit,
				  fq_u64 rate)
{
	unsigned int vc;

	vcsw_vc_init(&p->vc[0], vc0_mode, vc0_limit);
	for (vc = 1; vc < VCSW_MAX_VCS; vc++)
		vcsw_vc_init(&p->vc[vc], VCSW_MODE_FIFO, vc1_limit);
	p->vcs = VCSW_NUM_VCS;
	p->rate = rate;
	p->link_free = 0;
}

/*
 * Use @vcs VCs, 2 to VCSW_MAX_VCS (clamped).  The VCs it stops using must
 * be empty: a caller that shrinks a port with frames waiting flushes it
 * first (the soft switch changes the count only while it is down).
 */
static inline void vcsw_port_set_vcs(struct vcsw_port *p, unsigned int vcs)
{
	if (vcs < VCSW_NUM_VCS)
		vcs = VCSW_NUM_VCS;
	if (vcs > VCSW_MAX_VCS)
		vcs = VCSW_MAX_VCS;
	p->vcs = (fq_u8)vcs;
}

static inline fq_u32 vcsw_port_qlen(const struct vcsw_port *p)
{
	fq_u32 n = 0;
	unsigned int vc;

	for (vc = 0; vc < p->vcs; vc++)
		n += vcsw_vc_qlen(&p->vc[vc]);
	return n;
}

/* Whether @len more bytes fit in VC @v's byte limit. */
static inline bool vcsw_vc_has_room(const struct vcsw_vc *v, fq_u32 len)
{
	return len <= v->limit && v->backlog <= v->limit - len;
}

/*
 * Queue @n in VC @v at @now and count its arrival, without looking at
 * the byte limit: for a caller that has just checked vcsw_vc_has_room()
 * under the same lock (the crossbar's move), so that nothing is left to
 * refuse and no refused entry can be lost.
 */
static inline void vcsw_vc_add(struct vcsw_vc *v, struct vcsw_node *n,
			       fq_u64 now)
{
	n->enq_ns = now;
	if (v->mode == VCSW_MODE_RECN)
		v->rq->now = now;
	vcsw_vc_link(v, n);
	if (n->in_takeover)
		v->st.takeovers++;
	v->backlog += n->len;
	if (v->backlog > v->st.max_backlog_bytes)
		v->st.max_backlog_bytes = v->backlog;
	if (vcsw_vc_qlen(v) > v->st.max_backlog_packets)
		v->st.max_backlog_packets = vcsw_vc_qlen(v);
}

/*
 * Queue @n in VC @v at @now, if it fits in the VC's byte limit; a packet
 * that does not is counted and refused (the caller frees it).
 */
static inline enum vcsw_enq_result vcsw_vc_enqueue(struct vcsw_vc *v,
						   struct vcsw_node *n,
						   fq_u64 now)
{
	if (!vcsw_vc_has_room(v, n->len)) {
		v->st.drops_full++;
		return VCSW_ENQ_FULL;
	}
	vcsw_vc_add(v, n, now);
	return VCSW_ENQ_OK;
}

/*
 * The VC a frame that says @vc takes in a switch of @vcs VCs: its own, or
 * VC1 (best effort) when the switch has no such VC, as a two-VC link
 * counts a VC2 or VC3 frame (fcr_frame_vc()).
 */
static inline fq_u8 vcsw_vc_of(unsigned int vc, unsigned int vcs)
{
	return vc < vcs ? (fq_u8)vc : 1;
}

/*
 * Queue @n (deadline, len, vc and timed filled in by the caller) at @now
 * in its VC; a VC the port does not have is VC1 (vcsw_vc_of()).
 */
static inline enum vcsw_enq_result vcsw_port_enqueue(struct vcsw_port *p,
						     struct vcsw_node *n,
						     fq_u64 now)
{
	n->vc = vcsw_vc_of(n->vc, p->vcs);
	return vcsw_vc_enqueue(&p->vc[n->vc], n, now);
}

/* The packet that leaves next: each VC strictly before the next. */
static inline struct vcsw_node *vcsw_port_peek(const struct vcsw_port *p)
{
	struct vcsw_node *n = NULL;
	unsigned int vc;

	for (vc = 0; vc < p->vcs && !n; vc++)
		n = vcsw_vc_pick(&p->vc[vc]);
	return n;
}

/* May a packet start now?  Only the head is checked (appendix). */
static inline bool vcsw_port_link_ready(const struct vcsw_port *p, fq_u64 now)
{
	return !p->rate || now >= p->link_free;
}

static inline unsigned int vcsw_sojourn_bucket(fq_u64 ns)
{
	fq_u64 us = fq_div64(ns, 1000);
	unsigned int b = 0;

	while (us && b < VCSW_SOJOURN_BUCKETS - 1) {
		us >>= 1;
		b++;
	}
	return b;
}

/*
 * Take @n, the node vcsw_vc_pick() chose, out of VC @v at @now, counting
 * no departure: the caller drops it (and counts that).
 */
static inline void vcsw_vc_unqueue(struct vcsw_vc *v, struct vcsw_node *n,
				   fq_u64 now)
{
	if (v->mode == VCSW_MODE_RECN)
		v->rq->now = now;
	vcsw_vc_unlink(v, n);
	v->backlog -= n->len;
}

/*
 * Take @n, the node vcsw_vc_pick() chose, out of VC @v at @now and count
 * its departure: an order error if a smaller deadline is left waiting,
 * and its time in the VC.
 */
static inline void vcsw_vc_take(struct vcsw_vc *v, struct vcsw_node *n,
				fq_u64 now)
{
	struct pheap_node *min;

	vcsw_vc_unqueue(v, n, now);
	min = pheap_peek(&v->waiting);
	if (min && min->key < n->deadline)
		v->st.order_errors++;
	v->st.packets++;
	v->st.bytes += n->len;
	v->st.sojourn_hist[vcsw_sojourn_bucket(now > n->enq_ns ?
					       now - n->enq_ns : 0)]++;
}

/*
 * Remove the next packet of VC @vc at @now (the caller checked the link
 * with vcsw_port_link_ready(), and chose the VC: the lowest first, unless
 * its head may not go, e.g. for want of credits downstream), account its
 * departure and occupy the emulated link for its transmission time.
 * NULL when the VC is empty.
 */
static inline struct vcsw_node *vcsw_port_dequeue_vc(struct vcsw_port *p,
						     unsigned int vc,
						     fq_u64 now)
{
	struct vcsw_node *n = vcsw_vc_pick(&p->vc[vc]);

	if (!n)
		return NULL;
	vcsw_vc_take(&p->vc[vc], n, now);
	if (n->timed && n->deadline < now)
		p->vc[vc].st.deadline_misses++;
	if (p->rate)
		p->link_free = edf_add_sat(edf_max(p->link_free, now),
					   edf_tx_time(n->len, p->rate));
	return n;
}

/*
 * Remove the next packet at @now, each VC strictly before the next (the caller
 * checked the link with vcsw_port_link_ready()): vcsw_port_dequeue_vc()
 * of the VC of vcsw_port_peek().  NULL when the port is empty.
 */
static inline struct vcsw_node *vcsw_port_dequeue(struct vcsw_port *p,
						  fq_u64 now)
{
	struct vcsw_node *n = vcsw_port_peek(p);

	return n ? vcsw_port_dequeue_vc(p, n->vc, now) : NULL;
}

/* Remove any packet without accounting it (flush); NULL when empty. */
static inline struct vcsw_node *vcsw_port_pop(struct vcsw_port *p)
{
	struct vcsw_node *n = NULL;
	unsigned int vc;

	for (vc = 0; vc < p->vcs && !n; vc++)
		n = vcsw_vc_first(&p->vc[vc]);
	if (n) {
		vcsw_vc_unlink(&p->vc[n->vc], n);
		p->vc[n->vc].backlog -= n->len;
	}
	return n;
}

/*
 * Switch VC @v to another discipline with packets waiting: they are taken
 * out in the old discipline's order and queued again under the new one,
 * which keeps every flow's order (both orders are order preserving).
 */
static inline void vcsw_vc_set_mode(struct vcsw_vc *v, fq_u8 mode)
{
	struct vcsw_list tmp;
	struct vcsw_node *n;

	if (v->mode == mode)
		return;
	if (mode == VCSW_MODE_RECN && !v->rq)
		mode = VCSW_MODE_FIFO;
	if (v->mode == mode)
		return;
	vcsw_list_init(&tmp);
	while ((n = vcsw_vc_first(v))) {
		vcsw_vc_unlink(v, n);
		vcsw_list_append(&tmp, n);
	}
	v->mode = mode;
	while ((n = tmp.head)) {
		vcsw_list_unlink(&tmp, n);
		vcsw_vc_link(v, n);
	}
}

/*
 * Give VC @v the RECN set @rq (vcsw_rq_init()ed, empty), and switch it to
 * recn mode if @recn.  The set stays the VC's for later switches.
 */
static inline void vcsw_vc_attach_recn(struct vcsw_vc *v, struct vcsw_rq *rq, bool recn)
{
	if (v->mode == VCSW_MODE_RECN)
		vcsw_vc_set_mode(v, VCSW_MODE_FIFO);
	v->rq = rq;
	if (recn)
		vcsw_vc_set_mode(v, VCSW_MODE_RECN);
}

/* VC0 of port @p to another discipline, with packets waiting. */
static inline void vcsw_port_set_mode(struct vcsw_port *p, fq_u8 mode)
{
	vcsw_vc_set_mode(&p->vc[0], mode);
}

/* Whether @match says of any packet of VC @v (a walk, no change). */
static inline bool vcsw_vc_any(const struct vcsw_vc *v,
			       bool (*match)(const struct vcsw_node *n,
					     const void *arg),
			       const void *arg)
{
	const struct vcsw_node *n;
	const struct rbq_node *r;

	if (v->mode == VCSW_MODE_IDEAL) {
		for (r = rbq_first(&v->sorted); r; r = rbq_next(r))
			if (match(vcsw_node_of_rb(r), arg))
				return true;
		return false;
	}
	if (v->mode == VCSW_MODE_RECN) {
		fq_u32 q;

		for (q = 0; q < VCSW_RQ_QUEUES; q++)
			for (n = v->rq->q[q].head; n; n = n->next)
				if (match(n, arg))
					return true;
		return false;
	}
	for (n = v->ordered.head; n; n = n->next)
		if (match(n, arg))
			return true;
	for (n = v->takeover.head; n; n = n->next)
		if (match(n, arg))
			return true;
	return false;
}

/*
 * Take every packet @match says of out of VC @v, without accounting them
 * as departures, onto @gone in the VC's order; the others stay, queued
 * again in the order the VC would have sent them (each flow's order is
 * kept; the relative order of frames from different flows may change in
 * a take-over pair, as when the discipline changes).  Nothing moves when
 * none matches.  For an input buffer whose frames can no longer cross.
 * @now: the clock, for the RECN set whose queues it may empty.  Returns
 * how many were taken.
 */
static inline fq_u32 vcsw_vc_remove(struct vcsw_vc *v,
				    bool (*match)(const struct vcsw_node *n,
						  const void *arg),
				    const void *arg, struct vcsw_list *gone, fq_u64 now)
{
	struct vcsw_list keep;
	struct vcsw_node *n;
	fq_u32 taken = 0;

	if (!vcsw_vc_any(v, match, arg))
		return 0;
	if (v->mode == VCSW_MODE_RECN) {
		/* out of their queues where they are: the others stay put */
		fq_u32 q;

		for (q = 0; q < VCSW_RQ_QUEUES; q++) {
			struct vcsw_node *next;

			for (n = v->rq->q[q].head; n; n = next) {
				next = n->next;
				if (!match(n, arg))
					continue;
				vcsw_rq_remove(v->rq, n, now);
				pheap_remove(&v->waiting, &n->heap);
				v->backlog -= n->len;
				vcsw_list_append(gone, n);
				taken++;
			}
		}
		return taken;
	}
	vcsw_list_init(&keep);
	while ((n = vcsw_vc_pick(v))) {
		vcsw_vc_unlink(v, n);
		if (match(n, arg)) {
			v->backlog -= n->len;
			vcsw_list_append(gone, n);
			taken++;
		} else {
			vcsw_list_append(&keep, n);
		}
	}
	while ((n = keep.head)) {
		vcsw_list_unlink(&keep, n);
		vcsw_vc_link(v, n);
	}
	return taken;
}

static inline bool vcsw_node_bound_for(const struct vcsw_node *n,
				       const void *out)
{
	return n->out == *(const fq_u16 *)out;
}

/*
 * Every packet of VC @v bound for output @out (vcsw_node.out), onto
 * @gone, at @now: their output port left the switch.
 */
static inline fq_u32 vcsw_vc_remove_out(struct vcsw_vc *v, fq_u16 out,
					struct vcsw_list *gone, fq_u64 now)
{
	return vcsw_vc_remove(v, vcsw_node_bound_for, &out, gone, now);
}

/* Counters with the current backlog filled in. */
static inline void vcsw_vc_read_stats(const struct vcsw_vc *v,
				      struct vcsw_vc_stats *st)
{
	*st = v->st;
	st->backlog_bytes = v->backlog;
	st->backlog_packets = vcsw_vc_qlen(v);
}

/*
 * The local deadline of a frame that arrives at @now with time to deadline
 * @ttd: now + TTD, and 0 (the earliest) when a negative TTD reaches back
 * before the clock's start, as it can early in a boot, instead of wrapping
 * round to the end of time.
 */
static inline fq_u64 vcsw_ingress_deadline(fq_u64 now, fq_s64 ttd)
{
	if (ttd < 0 && (fq_u64)-ttd > now)
		return 0;
	return ttd < 0 ? now - (fq_u64)-ttd : edf_add_sat(now, (fq_u64)ttd);
}

#endif /* FQ_VCSW_PORT_H */
