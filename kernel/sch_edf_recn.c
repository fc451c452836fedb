// SPDX-License-Identifier: GPL-2.0
/*
 * sch_edf: RECN at the host.  The qdisc honours the SAQs of the credit
 * link it sends on (fabric_link_recn.c): see the comment below and
 * Documentation/recn.rst, "Hosts".
 */
#include "sch_edf.h"

/*
 * With recn on (Documentation/recn.rst, "Hosts"), the link counts each
 * frame in the SAQ or detection queue its route and SL go to, and a frame
 * counted in a SAQ the switch behind the link stopped (Xoff), or that
 * waits for older frames of its point, may not go.  The frames stay in
 * their flows, in order; a flow whose head may not go is held: out of its
 * ready heap, on the list of that SAQ, until the SAQ may go again (an Xon
 * or the lease's end, after which the link runs our queue).  The VC's
 * other flows go on meanwhile: that is the isolation.  The pick looks at
 * the head's tag only, and asks the link (its lock) only about a head
 * counted in a SAQ.
 */

static const struct fhc_fields *edf_recn_push(const struct edf_sched *q,
					      const struct edf_class *cl,
					      const struct sk_buff *skb,
					      struct fhc_fields *push);

/* @skb, of @cl, was queued in @f: the link counts it, @f is active. */
void edf_recn_arrive(struct Qdisc *sch, struct edf_class *cl,
		     struct edf_flow *f, struct sk_buff *skb, u32 len)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct fhc_fields push;

	edf_skb_cb(skb)->recn_tag =
		fabric_link_recn_arrive(q->link, skb, edf_recn_push(q, cl, skb, &push), len);
	if (f->qlen == 1) {
		list_add_tail(&f->recn_node, &q->recn_active);
		q->recn_active_n++;
	}
}

bool edf_recn_may_go(struct edf_sched *q, struct edf_flow *f,
		     struct edf_recn_look *k)
{
	u16 tag = edf_skb_cb(f->head)->recn_tag;
	unsigned int vc;

	if (!fabric_link_recn_tag_is_saq(tag))
		return true;
	vc = fabric_link_recn_tag_vc(tag);
	if (!(k->asked & BIT(vc))) {
		k->ready[vc] = fabric_link_recn_ready(q->link, vc);
		k->asked |= BIT(vc);
	}
	return k->ready[vc] & BIT(fabric_link_recn_tag_saq(tag));
}

/* @skb leaves the qdisc, sent or dropped: out of the link's count. */
static void edf_recn_depart(struct edf_sched *q, struct sk_buff *skb)
{
	u16 tag = edf_skb_cb(skb)->recn_tag;

	if (unlikely(tag != FABRIC_LINK_RECN_NONE) && q->link)
		fabric_link_recn_depart(q->link, tag, qdisc_pkt_len(skb));
}

/*
 * @skb, @f's head, left the qdisc (sent or dropped): out of the link's
 * count, and an emptied @f out of the active flows.
 */
void edf_recn_took(struct edf_sched *q, struct edf_flow *f, struct sk_buff *skb)
{
	edf_recn_depart(q, skb);
	if (!f->head && !list_empty(&f->recn_node)) {
		list_del_init(&f->recn_node);
		q->recn_active_n--;
	}
}

/* @f, at the root of its ready heap, waits for its head's SAQ. */
void edf_recn_hold(struct edf_sched *q, struct edf_flow *f)
{
	u16 tag = edf_skb_cb(f->head)->recn_tag;

	runheap_remove(&q->ready[f->cl->vc], &f->heap_node);
	f->state = EDF_FLOW_HELD;
	f->held_vc = fabric_link_recn_tag_vc(tag);
	f->held_saq = fabric_link_recn_tag_saq(tag);
	list_add_tail(&f->held_node, &q->recn_held[f->held_vc][f->held_saq]);
	q->recn_held_mask[f->held_vc] |= BIT(f->held_saq);
	q->recn_held_flows++;
	q->xs.recn_held++;
}

void edf_recn_unhold(struct edf_sched *q, struct edf_flow *f)
{
	list_del_init(&f->held_node);
	if (list_empty(&q->recn_held[f->held_vc][f->held_saq]))
		q->recn_held_mask[f->held_vc] &= ~BIT(f->held_saq);
	q->recn_held_flows--;
}

/* Flows held for SAQs that may go now go back where their heads belong. */
void edf_recn_release(struct edf_sched *q, u64 now)
{
	struct edf_flow *f, *tmp;
	unsigned int vc, i;
	u32 go;

	for (vc = 0; vc < RECN_HOST_VCS; vc++) {
		if (!q->recn_held_mask[vc])
			continue;
		go = q->recn_held_mask[vc] & fabric_link_recn_ready(q->link, vc);
		for (; go; go &= go - 1) {
			i = __ffs(go);
			list_for_each_entry_safe(f, tmp, &q->recn_held[vc][i], held_node) {
				edf_recn_unhold(q, f);
				edf_flow_place(q, f, now, false);
			}
		}
	}
}

/* Every flow held goes back where its head belongs; the pick holds again. */
static void edf_recn_release_all(struct edf_sched *q, u64 now)
{
	struct edf_flow *f, *tmp;
	unsigned int vc, i;

	for (vc = 0; vc < RECN_HOST_VCS; vc++)
		for (; q->recn_held_mask[vc]; ) {
			i = __ffs(q->recn_held_mask[vc]);
			list_for_each_entry_safe(f, tmp, &q->recn_held[vc][i], held_node) {
				edf_recn_unhold(q, f);
				edf_flow_place(q, f, now, false);
			}
		}
}

/* What edf_push_ttd() will write, or NULL (edf_recn_arrive()). */
static const struct fhc_fields *edf_recn_push(const struct edf_sched *q,
					      const struct edf_class *cl,
					      const struct sk_buff *skb,
					      struct fhc_fields *push)
{
	if (!edf_gets_header(q, skb))
		return NULL;
	*push = (struct fhc_fields){
		.vc = cl->vc,
		.sl = TC_H_MIN(cl->common.classid) & 0xff,
	};
	return push;
}

/*
 * The link made SAQs (or RECN went on): count the queued frames again,
 * so the frames of a congested point already queued go to its SAQ (a
 * sender's backlog would fill the switch's buffer otherwise), then let
 * the pick hold flows anew.  A count costs as many frames as are queued
 * and the switch decides how often SAQs are made, so it is bounded: it
 * looks at EDF_RECN_RECOUNT_BUDGET frames at most, going on where it
 * stopped (each flow looked at goes to the tail of q->recn_active) until
 * every flow that had packets when it began was looked at, and the next
 * one comes no sooner than EDF_RECN_RECOUNT_NS or four times what this
 * one took.  Frames queued meanwhile are counted right at their enqueue.
 * A flow longer than the budget is counted only in part (the rest stays
 * where it was counted, and only goes unheld).
 */
void edf_recn_recount(struct Qdisc *sch, u64 now)
{
	struct edf_sched *q = qdisc_priv(sch);
	u32 gen = fabric_link_recn_gen(q->link);
	unsigned int budget = EDF_RECN_RECOUNT_BUDGET;
	struct fhc_fields push;
	struct sk_buff *skb;
	struct edf_flow *f;
	u64 end;

	if (gen != q->recn_pass_gen) {
		q->recn_pass_gen = gen;
		q->recn_left = q->recn_active_n;
	}
	while (q->recn_left && !list_empty(&q->recn_active)) {
		f = list_first_entry(&q->recn_active, struct edf_flow, recn_node);
		/* a flow that would not fit: later, unless it is the first */
		if (f->qlen > budget && budget < EDF_RECN_RECOUNT_BUDGET)
			break;
		for (skb = f->head; skb && budget; skb = skb->next, budget--) {
			struct edf_skb_cb *cb = edf_skb_cb(skb);

			cb->recn_tag = fabric_link_recn_retag(q->link, skb,
							      edf_recn_push(q, f->cl, skb, &push),
							      cb->recn_tag, qdisc_pkt_len(skb));
		}
		list_move_tail(&f->recn_node, &q->recn_active);
		q->recn_left--;
		if (!budget)
			break;
	}
	if (!q->recn_left || list_empty(&q->recn_active))
		q->recn_gen = gen;
	end = ktime_get_ns();
	q->recn_next_ns = end + max_t(u64, EDF_RECN_RECOUNT_NS, 4 * (end - now));
	edf_recn_release_all(q, now);
}

/* Count everything queued again at the next dequeue (a new pass). */
void edf_recn_recount_soon(struct edf_sched *q, struct fabric_link *link)
{
	q->recn_gen = fabric_link_recn_gen(link) - 1;
	q->recn_pass_gen = q->recn_gen;
	q->recn_next_ns = 0;
}

/* Is a count due (edf_recn_recount())? */
bool edf_recn_recount_due(const struct edf_sched *q)
{
	return fabric_link_recn_gen(q->link) != q->recn_gen;
}

/* RECN goes off or anew: no frame stays counted in the link (commit). */
void edf_recn_untag_all(struct Qdisc *sch)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct edf_flow *f, *tmp;
	struct sk_buff *skb;

	list_for_each_entry_safe(f, tmp, &q->recn_active, recn_node) {
		for (skb = f->head; skb; skb = skb->next) {
			edf_recn_depart(q, skb);
			edf_skb_cb(skb)->recn_tag = FABRIC_LINK_RECN_NONE;
		}
		list_del_init(&f->recn_node);
	}
	q->recn_active_n = 0;
	edf_recn_release_all(q, ktime_get_ns());
}

static void edf_recn_list_flow(struct edf_sched *q, struct edf_flow *f)
{
	if (f->head && list_empty(&f->recn_node)) {
		list_add_tail(&f->recn_node, &q->recn_active);
		q->recn_active_n++;
	}
}

/*
 * RECN goes on: each class without perflow gives the frames of its one
 * queue to their destinations' queues (edf_recn_split_shared()).
 */
void edf_recn_split_all(struct Qdisc *sch)
{
	struct edf_sched *q = qdisc_priv(sch);
	unsigned int i, pkts = 0, bytes = 0;
	struct Qdisc_class_common *c;
	u64 now = ktime_get_ns();

	for (i = 0; i < q->clhash.hashsize; i++)
		hlist_for_each_entry(c, &q->clhash.hash[i], hnode)
			edf_recn_split_shared(sch, container_of(c, struct edf_class, common),
					      now, &pkts, &bytes);
	edf_recn_split_shared(sch, &q->default_cl, now, &pkts, &bytes);
	if (pkts)
		qdisc_tree_reduce_backlog(sch, pkts, bytes);
}

/*
 * RECN goes on: the flows with packets, for edf_recn_retag_all(): those
 * of the table (a walk of it, as edf_purge_flows()), then the classes'
 * own.
 */
void edf_recn_list_active(struct Qdisc *sch)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct Qdisc_class_common *c;
	struct rb_node *n;
	unsigned int i;

	for (i = 0; i < (1U << EDF_FLOW_BUCKETS_LOG); i++)
		for (n = rb_first(&q->flows[i]); n; n = rb_next(n))
			edf_recn_list_flow(q, rb_entry(n, struct edf_flow, hash_node));
	for (i = 0; i < q->clhash.hashsize; i++)
		hlist_for_each_entry(c, &q->clhash.hash[i], hnode)
			edf_recn_list_flow(q, &container_of(c, struct edf_class,
							    common)->shared);
	edf_recn_list_flow(q, &q->default_cl.shared);
}

/* A held flow, for edf_drop_one() when nothing else is left. */
struct edf_flow *edf_recn_first_held(struct edf_sched *q)
{
	unsigned int vc;

	for (vc = 0; vc < RECN_HOST_VCS; vc++)
		if (q->recn_held_mask[vc])
			return list_first_entry(&q->recn_held[vc][__ffs(q->recn_held_mask[vc])],
						struct edf_flow, held_node);
	return NULL;
}
