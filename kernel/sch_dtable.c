// SPDX-License-Identifier: GPL-2.0
/*
 * sch_dtable: table-based egress scheduling (DTable, SBT, round robin).
 *
 * The classes are service levels, each with a child qdisc (pfifo unless
 * grafted).  An arbitration table of entries (class, weight) decides which
 * class sends next (paper: omni-path-qos-sbt-dtable, section 3; the
 * algorithms are in core/dtable_core.h):
 *
 *   dtable  the table is walked round robin to the next entry whose class
 *           has a packet; the class gets the entry's weight (credits of
 *           "credit" bytes) plus its deficit and sends while its head
 *           packet fits; the rest is its deficit; an idle class loses it.
 *           The number of entries of a class and their spacing bound its
 *           latency, their weights set its share: the two are decoupled
 *           (dtable-config computes such tables).
 *   sbt     one entry per class, weights in packets, restored when every
 *           active class has used its own; a lone active class may go on.
 *   rr      one packet per active class in table order.
 *
 * The table is replaced whole and atomically by "tc qdisc change": queued
 * packets stay in their classes, so nothing is lost or reordered within a
 * class.  Validation rejects tables that name missing classes, leave a
 * class out, hold zero weights (dtable, sbt), exceed the entry limit, or
 * (dtable) give an entry less than its class's packet size, which is what
 * lets one walk of the table always find a sender.
 *
 * Children may drop (a full pfifo, codel at dequeue) or hold packets back
 * (tbf, netem).  The scheduler asks a child for its head with ->peek()
 * and takes exactly that packet with qdisc_dequeue_peeked() (rr, which
 * needs no length to decide, takes the head at once); a held child
 * is passed over with its deficit kept (at most its mtu: weight it could
 * not use is not banked, dt_kept_deficit()); when a child empties, at our
 * dequeue or by its own drops (qlen_notify), its class loses its deficit
 * and the link.
 *
 * A child can drop inside those very calls: netem's peek hands a packet
 * to its own child, a tbf that refuses it, and tells us through
 * qlen_notify that it is empty while the core is in the middle of a pick,
 * about the class it is asking; a child may also report itself empty
 * while it still holds the packet it is about to hand over.  So every
 * call into a child is bracketed (dt_ask() inside the core's picks,
 * dt_enter() / dt_sent_mode() around our dequeue): a notify for that
 * class is put off, and afterwards a class whose child holds a packet is
 * active.  One our dequeue emptied may stay marked until the walk finds
 * it empty (dtable and rr; dt_class_drained()).  qlen_notify is
 * idempotent and ignores a class whose child still holds packets.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <net/netlink.h>
#include <net/pkt_cls.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include "include/uapi/linux/pkt_sched_dtable.h"
#include "core/dtable_core.h"
#include "core/fabric_credit.h"
#include "fabric_link.h"
#include "qdisc_dump.h"
#include "qdisc_gso.h"

#define DTABLE_DEFAULT_CREDIT	1	/* weights in bytes */
#define DTABLE_MTU_MAX		65536

struct dtable_class {
	struct Qdisc *qdisc;
	u64 drops;		/* refused by the child at enqueue */
};

struct dtable_sched {
	struct tcf_proto __rcu *filter_list;
	struct tcf_block *block;
	/*
	 * The filters' answer for the packet being enqueued.  Here, not on
	 * the enqueue's stack: a local whose address escapes costs every
	 * packet a stack canary, its zeroing and a realigned frame.  The
	 * enqueue holds the qdisc lock, so one is enough.
	 */
	struct tcf_result filter_res;
	u16 nclasses;
	u8 prio2cls[TC_DTABLE_PRIO_BANDS];
	struct dtable_class *classes;
	struct dt_class *core_cls;
	struct dt_entry *table;
	struct dt_sched core;
	/*
	 * The packet dtable_take_head() took for dtable_dequeue_rr() or
	 * dtable_dequeue_sbt(), from the ask to the return of the pick:
	 * NULL at any other time.
	 */
	struct sk_buff *taken;
	u64 table_changes;
	struct fabric_credit_gate gate;		/* credits on */
};

/* A validated configuration, built before anything is changed. */
struct dtable_cfg {
	u8 mode;
	u32 credit;
	u32 mtu[TC_DTABLE_MAX_CLASSES];
	u8 prio2cls[TC_DTABLE_PRIO_BANDS];
	struct dt_entry *table;	/* newly allocated, or NULL: keep the old */
	u32 n;
};

/* ---- netlink policy ---------------------------------------------------- */

static struct netlink_range_validation dtable_credit_range = {
	.min = 1,
	.max = DT_MAX_CREDIT,
};

static const struct nla_policy dtable_policy[TCA_DTABLE_MAX + 1] = {
	[TCA_DTABLE_MODE]	= NLA_POLICY_MAX(NLA_U8, TC_DTABLE_MODE_MAX),
	[TCA_DTABLE_CLASSES]	= NLA_POLICY_RANGE(NLA_U16, 1, TC_DTABLE_MAX_CLASSES),
	[TCA_DTABLE_CREDIT]	= NLA_POLICY_FULL_RANGE(NLA_U32, &dtable_credit_range),
	[TCA_DTABLE_MTU]	= { .type = NLA_BINARY,
				    .len = sizeof(u32) * TC_DTABLE_MAX_CLASSES },
	[TCA_DTABLE_PRIOMAP]	= NLA_POLICY_EXACT_LEN(TC_DTABLE_PRIO_BANDS),
	/* the entry count is checked by hand, to say so in plain words */
	[TCA_DTABLE_TABLE]	= { .type = NLA_BINARY, .len = U16_MAX - NLA_HDRLEN },
	[TCA_DTABLE_ENTRIES]	= { .type = NLA_REJECT },
	[TCA_DTABLE_CREDITS]	= NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_DTABLE_CREDIT_UNIT] = { .type = NLA_U32 },	/* range: fabric_link */
};

/* ---- helpers ------------------------------------------------------------- */

static u32 dtable_class_id(struct Qdisc *sch, u32 c)
{
	return TC_H_MAKE(sch->handle, c + 1);
}

/* The class of a "minor" arg (1..nclasses), or NULL. */
static struct dtable_class *dtable_class_from_arg(struct Qdisc *sch, unsigned long arg)
{
	struct dtable_sched *q = qdisc_priv(sch);

	if (!arg || arg > q->nclasses)
		return NULL;
	return &q->classes[arg - 1];
}

/*
 * The length of the packet at the head of class @c's queue, peeked, or
 * DT_HELD / DT_IDLE when the queue shows none.  Lengths are clamped to
 * the core's int: the stack's cannot pass INT_MAX (a size table's is an
 * int kept at least 1), but a negative one would read as an answer.
 */
static __always_inline int dtable_peek_len(struct dtable_sched *q, u32 c)
{
	struct Qdisc *child = q->classes[c].qdisc;
	struct sk_buff *skb = child->ops->peek(child);

	if (!skb)
		return child->q.qlen ? DT_HELD : DT_IDLE;
	return min_t(unsigned int, qdisc_pkt_len(skb), INT_MAX);
}

/*
 * Head callback of the core's picks, inlined into them: the walks ask
 * classes our dequeue emptied (they drain lazily), which need no call.
 */
static __always_inline int dtable_head(void *ctx, u32 c)
{
	struct dtable_sched *q = ctx;

	if (!q->classes[c].qdisc->q.qlen)
		return DT_IDLE;
	return dtable_peek_len(q, c);
}

/*
 * Head callback of rr's and sbt's own dequeues (credits off): they send
 * one packet per visit whatever its length, and a pick that finds one
 * ends there (dt_pick_rr(), dt_pick_sbt_take()), so the head is taken
 * rather than peeked, one call into the child per packet instead of a
 * peek and a dequeue.  The packet waits in q->taken for the caller of
 * the pick.  Taken inside the ask's bracket, like the dequeue it
 * replaces inside dt_enter().
 */
static __always_inline int dtable_take_head(void *ctx, u32 c)
{
	struct dtable_sched *q = ctx;
	struct Qdisc *child = q->classes[c].qdisc;
	struct sk_buff *skb;

	if (!child->q.qlen)
		return DT_IDLE;
	/* a packet another path peeked first comes first */
	skb = qdisc_dequeue_peeked(child);
	if (!skb)
		return child->q.qlen ? DT_HELD : DT_IDLE;
	q->taken = skb;
	return min_t(unsigned int, qdisc_pkt_len(skb), INT_MAX);
}

/* rr's pick with each head, both continued past a held class (dtable_rr.h) */
DT_DEFINE_RR_HELD(dtable_rr_held_peek, dtable_head)
DT_DEFINE_RR_HELD(dtable_rr_held_take, dtable_take_head)

/* ... and of dt_cur_ready(): the class being served is seldom empty */
static __always_inline int dtable_head_cur(void *ctx, u32 c)
{
	return dtable_peek_len(ctx, c);
}

/* ---- enqueue / dequeue ---------------------------------------------------- */

/*
 * The class (0..nclasses - 1) of @skb, or -1 to drop it (*qerr says how).
 * An index, not the class: the scheduler core wants one, and the
 * pointer's difference cost a division's worth of instructions.
 */
static __always_inline int dtable_classify(struct sk_buff *skb, struct Qdisc *sch,
					   int *qerr)
{
	struct dtable_sched *q = qdisc_priv(sch);
	u32 prio = skb->priority;
	struct tcf_proto *fl;
	int err;

	*qerr = NET_XMIT_SUCCESS | __NET_XMIT_BYPASS;
	if (TC_H_MAJ(prio) != sch->handle) {
		fl = rcu_dereference_bh(q->filter_list);
		err = fq_tcf_classify(skb, fl, &q->filter_res);
#ifdef CONFIG_NET_CLS_ACT
		switch (err) {
		case TC_ACT_STOLEN:
		case TC_ACT_QUEUED:
		case TC_ACT_TRAP:
			*qerr = NET_XMIT_SUCCESS | __NET_XMIT_STOLEN;
			fallthrough;
		case TC_ACT_SHOT:
			return -1;
		}
#endif
		if (!fl || err < 0)
			return q->prio2cls[prio & TC_PRIO_MAX];
		prio = q->filter_res.classid;
	}
	/* a classid of ours: minors 1..nclasses; anything else the priomap's */
	if (TC_H_MIN(prio) < 1 || TC_H_MIN(prio) > q->nclasses)
		return q->prio2cls[0];
	return TC_H_MIN(prio) - 1;
}

/* Queue @skb in class @c (0..nclasses - 1). */
static __always_inline int dtable_enqueue_class(struct sk_buff *skb,
						struct Qdisc *sch, int c,
						struct sk_buff **to_free)
{
	unsigned int len = qdisc_pkt_len(skb);
	struct dtable_sched *q = qdisc_priv(sch);
	struct dtable_class *cl = &q->classes[c];
	int err;

	err = qdisc_enqueue(skb, cl->qdisc, to_free);
	if (unlikely(err != NET_XMIT_SUCCESS)) {
		if (net_xmit_drop_count(err)) {
			cl->drops++;
			qdisc_qstats_drop(sch);
		}
		/* NET_XMIT_CN: this one or another went, the child may hold more */
		if (cl->qdisc->q.qlen)
			dt_class_active(&q->core, c);
		return err;
	}
	dt_class_active(&q->core, c);
	sch->qstats.backlog += len;
	sch->q.qlen++;
	return NET_XMIT_SUCCESS;
}

/* @skb's wire frames, cut in software; NULL when it cannot be cut */
static struct sk_buff *dtable_segments(struct sk_buff *skb)
{
	netdev_features_t features = netif_skb_features(skb);
	struct sk_buff *segs;

	segs = skb_gso_segment(skb, features & ~NETIF_F_GSO_MASK);
	return IS_ERR(segs) ? NULL : segs;
}

/* a frame of a GSO packet dtable_enqueue_frames() cut for class *@ctx */
static int dtable_enqueue_frame(struct sk_buff *seg, struct Qdisc *sch, void *ctx,
				u32 parts, u8 flags, struct sk_buff **to_free)
{
	return dtable_enqueue_class(seg, sch, *(int *)ctx, to_free);
}

/* GSO packet @skb, classified to @c, queued in @c as its wire frames */
static noinline int dtable_enqueue_frames(struct sk_buff *skb, struct Qdisc *sch,
					  int c, struct sk_buff **to_free)
{
	struct dtable_sched *q = qdisc_priv(sch);
	struct sk_buff *segs = dtable_segments(skb);

	if (!segs) {
		q->classes[c].drops++;
		return qdisc_drop(skb, sch, to_free);
	}
	return fq_enqueue_segments(skb, segs, sch, dtable_enqueue_frame, &c,
				   to_free);
}

/*
 * A GSO packet is cut into its wire frames, each charged its length and
 * queued in the class the packet was classified to, when
 *  - it is longer than its class's mtu.  Whole, it would go once the
 *    class held an mtu and be charged no more than that (dt_fits()): a
 *    bulk TCP class on a device with TSO (GSO packets of up to 64 KB, the
 *    class mtu the device's) took 43 times its weight per visit.  A class
 *    given an mtu that covers its GSO packets keeps them whole, charged
 *    their length.
 *  - credits are on: a credit link counts wire frames, and a GSO packet
 *    would cross a veth whole (credits.rst, Hosts).
 * The packet is classified once, so its frames share a class whatever
 * the filters would make of their lengths.
 */
static int dtable_qdisc_enqueue(struct sk_buff *skb, struct Qdisc *sch,
				struct sk_buff **to_free)
{
	struct dtable_sched *q = qdisc_priv(sch);
	int err, c;

	c = dtable_classify(skb, sch, &err);
	if (unlikely(c < 0)) {
		if (err & __NET_XMIT_BYPASS)
			qdisc_qstats_drop(sch);
		__qdisc_drop(skb, to_free);
		return err;
	}
	if (unlikely(qdisc_pkt_len(skb) > q->core_cls[c].mtu || q->gate.link) &&
	    skb_is_gso(skb))
		return dtable_enqueue_frames(skb, sch, c, to_free);
	return dtable_enqueue_class(skb, sch, c, to_free);
}

/*
 * In dtable_dequeue_any(), which has the picks of all three modes, sbt's
 * is a function of its own: inlined beside the other two, its scan took
 * registers from their allocation (12 instructions per packet in dtable
 * mode when this was the only dequeue, make profile).
 */
static noinline int dtable_pick_sbt(struct dtable_sched *q)
{
	return dt_pick_mode(&q->core, DT_MODE_SBT, dtable_head, q);
}

static __always_inline int dtable_pick_class(struct dtable_sched *q, u8 mode)
{
	switch (mode) {
	case DT_MODE_SBT:
		return dtable_pick_sbt(q);
	case DT_MODE_RR:
		return dt_pick_rr_with(&q->core, dtable_head, q, dtable_rr_held_peek);
	default:
		return dt_pick_mode(&q->core, DT_MODE_DTABLE, dtable_head, q);
	}
}

/* The child of class @c gave nothing after its peek showed a packet. */
static noinline void dtable_gave_nothing(struct dtable_sched *q, int c)
{
	dt_leave_dequeue(&q->core, c, q->classes[c].qdisc->q.qlen != 0);
}

/*
 * The head of class @c, just picked in @mode, leaves, inside dt_enter():
 * the packet, or NULL when the child gave nothing after all.
 */
static __always_inline struct sk_buff *dtable_take_entered(struct Qdisc *sch, u8 mode,
							  int c)
{
	struct dtable_sched *q = qdisc_priv(sch);
	struct Qdisc *child = q->classes[c].qdisc;
	struct sk_buff *skb;

	skb = qdisc_dequeue_peeked(child);
	if (likely(skb)) {
		dt_sent_mode(&q->core, mode, c, qdisc_pkt_len(skb), child->q.qlen != 0);
		/* bstats when it leaves */
		qdisc_qstats_backlog_dec(sch, skb);
		sch->q.qlen--;
		return skb;
	}
	dtable_gave_nothing(q, c);
	return NULL;
}

/*
 * The head of class @c, just picked in @mode, leaves: the packet, or
 * NULL when the child gave nothing after all.
 */
static __always_inline struct sk_buff *dtable_take(struct Qdisc *sch, u8 mode, int c)
{
	struct dtable_sched *q = qdisc_priv(sch);

	dt_enter(&q->core, c);
	return dtable_take_entered(sch, mode, c);
}

/*
 * One pick and dequeue in @mode (the table's): the packet; NULL when the
 * table found no class that may send (only held-back children: their
 * timers call us); ERR_PTR(-EAGAIN) when the child picked gave nothing
 * after all.
 */
static __always_inline struct sk_buff *dtable_try(struct Qdisc *sch, u8 mode)
{
	struct dtable_sched *q = qdisc_priv(sch);
	struct sk_buff *skb;
	int c = dtable_pick_class(q, mode);

	if (c < 0)
		return NULL;
	skb = dtable_take(sch, mode, c);
	return skb ?: ERR_PTR(-EAGAIN);
}

/*
 * A child that drops what its peek showed leaves us with nothing to
 * send: pick again rather than return NULL while other classes wait,
 * since nothing would call us before the next enqueue.  A child that
 * keeps doing so is given up on after one try per class here, after
 * the one or two before (the case's own dequeue, dtable_dequeue_any()'s
 * first).  Out of line, so that the common path keeps no count of tries.
 */
static noinline struct sk_buff *dtable_try_again(struct Qdisc *sch, u8 mode)
{
	struct dtable_sched *q = qdisc_priv(sch);
	struct sk_buff *skb;
	u32 tries;

	for (tries = 0; tries < q->nclasses && sch->q.qlen; tries++) {
		skb = dtable_try(sch, mode);
		if (!IS_ERR(skb))
			return skb;
	}
	return NULL;
}

/*
 * dtable_pick() compiled for one @mode.  The first try needs no look at
 * our queue length: our callers (fabric_gate_dequeue()) have looked.
 */
static __always_inline struct sk_buff *dtable_pick_mode(struct Qdisc *sch, u8 mode)
{
	struct sk_buff *skb = dtable_try(sch, mode);

	if (likely(!IS_ERR(skb)))
		return skb;
	return dtable_try_again(sch, mode);
}

static __always_inline struct sk_buff *dtable_pick(struct Qdisc *sch)
{
	struct dtable_sched *q = qdisc_priv(sch);

	/* in this order: sbt's scan costs the most anyway (make profile) */
	if (likely(q->core.mode == DT_MODE_DTABLE))
		return dtable_pick_mode(sch, DT_MODE_DTABLE);
	if (q->core.mode == DT_MODE_RR)
		return dtable_pick_mode(sch, DT_MODE_RR);
	return dtable_pick_mode(sch, DT_MODE_SBT);
}

/*
 * The dequeue is split by case, each a function of its own, so that
 * each saves only the registers its own path needs (every path has
 * calls into the children, so each saves some): dtable_qdisc_dequeue()
 * sorts the cases with loads and tests alone and jumps to the others.
 */

/*
 * Every case: credits on or a packet waiting for them, any mode, a
 * child that gave nothing (tried again).
 */
static noinline struct sk_buff *dtable_dequeue_any(struct Qdisc *sch)
{
	struct dtable_sched *q = qdisc_priv(sch);

	return fabric_gate_dequeue(sch, &q->gate, dtable_pick);
}

/* Credits off, a packet queued, mode dtable, no class being served. */
static noinline struct sk_buff *dtable_dequeue_walk(struct Qdisc *sch)
{
	struct dtable_sched *q = qdisc_priv(sch);
	struct sk_buff *skb;
	int c;

	c = dt_walk_dtable(&q->core, dtable_head, q);
	if (c < 0)
		return NULL;	/* only held-back children: their timers call us */
	skb = dtable_take(sch, DT_MODE_DTABLE, c);
	if (unlikely(!skb))
		return dtable_dequeue_any(sch);
	qdisc_bstats_update(sch, skb);
	return skb;
}

/*
 * The packet dtable_take_head() took for class @c, which a pick in @mode
 * has just returned, leaves.
 */
static __always_inline struct sk_buff *dtable_sent_taken(struct Qdisc *sch, u8 mode, int c)
{
	struct dtable_sched *q = qdisc_priv(sch);
	struct sk_buff *skb = q->taken;

	q->taken = NULL;
	dt_sent_mode(&q->core, mode, c, qdisc_pkt_len(skb),
		     q->classes[c].qdisc->q.qlen != 0);
	qdisc_qstats_backlog_dec(sch, skb);
	sch->q.qlen--;
	qdisc_bstats_update(sch, skb);
	return skb;
}

/* Credits off, a packet queued, mode rr: the pick takes the packet. */
static noinline struct sk_buff *dtable_dequeue_rr(struct Qdisc *sch)
{
	struct dtable_sched *q = qdisc_priv(sch);
	int c;

	c = dt_pick_rr_with(&q->core, dtable_take_head, q, dtable_rr_held_take);
	if (c < 0)
		return NULL;	/* only held-back children: their timers call us */
	return dtable_sent_taken(sch, DT_MODE_RR, c);
}

/*
 * Credits off, a packet queued, mode sbt: the pick takes the packet too
 * (weights count packets), except the lone class's, which it only peeks
 * (dt_pick_sbt_take()).
 */
static noinline struct sk_buff *dtable_dequeue_sbt(struct Qdisc *sch)
{
	struct dtable_sched *q = qdisc_priv(sch);
	struct sk_buff *skb;
	int c;

	c = dt_pick_sbt_take(&q->core, dtable_take_head, dtable_head, q);
	if (c < 0)
		return NULL;	/* only held-back children: their timers call us */
	if (likely(q->taken))
		return dtable_sent_taken(sch, DT_MODE_SBT, c);
	skb = dtable_take(sch, DT_MODE_SBT, c);
	if (unlikely(!skb))
		return dtable_dequeue_any(sch);
	qdisc_bstats_update(sch, skb);
	return skb;
}

/*
 * The packet the table picks goes when the link has credits (if on).
 * Here, the common case of backlogged classes in dtable mode: the class
 * being served goes on while its head fits what it holds, with neither
 * the walk nor anything of the other modes.  A class whose head is too
 * long for what it holds, or whose queue is empty, passes the link on
 * (dtable_dequeue_walk()); anything else (held back, a long packet) is
 * left to dtable_dequeue_any(), whose pick asks cur's head again.
 */
static struct sk_buff *dtable_qdisc_dequeue(struct Qdisc *sch)
{
	struct dtable_sched *q = qdisc_priv(sch);
	struct Qdisc *sch_cur = sch;
	struct sk_buff *skb;
	int c, len;

	if (!sch->q.qlen)
		return NULL;
	if (unlikely(q->gate.skb || q->gate.link))
		return dtable_dequeue_any(sch);
	if (unlikely(q->core.mode != DT_MODE_DTABLE))
		return q->core.mode == DT_MODE_RR ? dtable_dequeue_rr(sch) :
						    dtable_dequeue_sbt(sch);
	if (q->core.cur < 0)
		return dtable_dequeue_walk(sch);
	/*
	 * A copy the compiler cannot see through: the registers this path
	 * saves on entry then do not hold @sch above, so the jumps above
	 * come before they are saved (8 instructions per packet less for
	 * uncongested classes, make profile).
	 */
	OPTIMIZER_HIDE_VAR(sch_cur);
	q = qdisc_priv(sch_cur);
	c = q->core.cur;
	len = dt_cur_ready(&q->core, dtable_head_cur, q);
	if (len >= 0) {
		skb = dtable_take_entered(sch_cur, DT_MODE_DTABLE, c);
		if (likely(skb)) {
			qdisc_bstats_update(sch_cur, skb);
			return skb;
		}
	} else if (len == DT_CUR_RELEASED) {
		return dtable_dequeue_walk(sch_cur);
	}
	return dtable_dequeue_any(sch_cur);
}

/* ---- configuration ------------------------------------------------------- */

/*
 * Check @tb against the current state (@init: none yet) and fill @cfg.
 * Allocates cfg->table when a table is given or made by default; the
 * caller frees it on error.
 */
static int dtable_prepare(struct Qdisc *sch, struct nlattr **tb, u16 nclasses,
			  bool init, struct dtable_cfg *cfg,
			  struct netlink_ext_ack *extack)
{
	struct dtable_sched *q = qdisc_priv(sch);
	const struct dt_entry *check;
	u32 i, n, bad;

	cfg->table = NULL;
	cfg->mode = tb[TCA_DTABLE_MODE] ? nla_get_u8(tb[TCA_DTABLE_MODE]) :
		    init ? TC_DTABLE_MODE_DTABLE : q->core.mode;
	cfg->credit = tb[TCA_DTABLE_CREDIT] ? nla_get_u32(tb[TCA_DTABLE_CREDIT]) :
		      init ? DTABLE_DEFAULT_CREDIT : q->core.credit;

	if (tb[TCA_DTABLE_MTU]) {
		u32 len = nla_len(tb[TCA_DTABLE_MTU]);
		const u32 *v = nla_data(tb[TCA_DTABLE_MTU]);

		if (len != sizeof(u32) && len != sizeof(u32) * nclasses) {
			NL_SET_ERR_MSG_MOD(extack, "mtu takes one value or one per class");
			return -EINVAL;
		}
		for (i = 0; i < nclasses; i++) {
			cfg->mtu[i] = len == sizeof(u32) ? v[0] : v[i];
			if (cfg->mtu[i] < 1 || cfg->mtu[i] > DTABLE_MTU_MAX) {
				NL_SET_ERR_MSG_MOD(extack, "a class mtu is outside 1..65536 bytes");
				return -EINVAL;
			}
		}
	} else {
		/* the default within the range a user may give, so that what
		 * the dump shows a change takes back (lo: 65536 + 14; a
		 * device of mtu 0 with no link header: 0) */
		u32 dev_mtu = clamp_t(u32, psched_mtu(qdisc_dev(sch)), 1, DTABLE_MTU_MAX);

		for (i = 0; i < nclasses; i++)
			cfg->mtu[i] = init ? dev_mtu : q->core_cls[i].mtu;
	}

	if (tb[TCA_DTABLE_PRIOMAP]) {
		const u8 *p = nla_data(tb[TCA_DTABLE_PRIOMAP]);

		for (i = 0; i < TC_DTABLE_PRIO_BANDS; i++) {
			if (p[i] >= nclasses) {
				NL_SET_ERR_MSG_MOD(extack, "the priomap names a class that does not exist");
				return -EINVAL;
			}
			cfg->prio2cls[i] = p[i];
		}
	} else {
		for (i = 0; i < TC_DTABLE_PRIO_BANDS; i++)
			cfg->prio2cls[i] = init ? nclasses - 1 : q->prio2cls[i];
	}

	if (tb[TCA_DTABLE_TABLE]) {
		const struct tc_dtable_entry *e = nla_data(tb[TCA_DTABLE_TABLE]);
		u32 len = nla_len(tb[TCA_DTABLE_TABLE]);

		if (len % sizeof(*e)) {
			NL_SET_ERR_MSG_MOD(extack, "the table is not a whole number of entries");
			return -EINVAL;
		}
		n = len / sizeof(*e);
		if (n > TC_DTABLE_MAX_ENTRIES) {
			NL_SET_ERR_MSG_MOD(extack, "too many table entries (at most 4096)");
			return -EINVAL;
		}
		if (!n) {
			NL_SET_ERR_MSG_MOD(extack, "the table has no entries");
			return -EINVAL;
		}
		/* zero now, so that a later field can use it */
		for (i = 0; i < n; i++) {
			if (e[i].pad) {
				NL_SET_ERR_MSG_MOD(extack, "a table entry's pad is not zero");
				return -EINVAL;
			}
		}
		cfg->table = kvcalloc(n, sizeof(*cfg->table), GFP_KERNEL);
		if (!cfg->table)
			return -ENOMEM;
		for (i = 0; i < n; i++) {
			/* out of range classes fail dt_table_check() below */
			cfg->table[i].cls = e[i].cls;
			cfg->table[i].weight = e[i].weight;
		}
		cfg->n = n;
	} else if (init) {
		/* one entry per class, of its packet size (dtable) or 1 */
		n = nclasses;
		cfg->table = kvcalloc(n, sizeof(*cfg->table), GFP_KERNEL);
		if (!cfg->table)
			return -ENOMEM;
		for (i = 0; i < n; i++) {
			cfg->table[i].cls = i;
			cfg->table[i].weight = cfg->mode == TC_DTABLE_MODE_DTABLE ?
				DIV_ROUND_UP(cfg->mtu[i], cfg->credit) : 1;
		}
		cfg->n = n;
	} else {
		cfg->n = q->core.n;
	}

	/* the old table must also suit a new mode, credit or mtu */
	check = cfg->table ? cfg->table : q->table;
	switch (dt_table_check(check, cfg->n, cfg->mode, cfg->credit, cfg->mtu,
			       nclasses, &bad)) {
	case DT_TABLE_OK:
		return 0;
	case DT_TABLE_NO_CLASS:
		NL_SET_ERR_MSG_MOD(extack, "a table entry names a class that does not exist");
		break;
	case DT_TABLE_ZERO_WEIGHT:
		NL_SET_ERR_MSG_MOD(extack, "a table entry has weight zero");
		break;
	case DT_TABLE_HEAVY:
		NL_SET_ERR_MSG_MOD(extack, "a table entry's weight is above 2^24");
		break;
	case DT_TABLE_BELOW_MTU:
		NL_SET_ERR_MSG_MOD(extack, "a table entry's weight x credit is below its class's mtu");
		break;
	case DT_TABLE_SBT_DUP:
		NL_SET_ERR_MSG_MOD(extack, "sbt takes exactly one table entry per class");
		break;
	case DT_TABLE_UNSERVED:
		NL_SET_ERR_MSG_MOD(extack, "a class has no table entry: its packets would never leave");
		break;
	default:
		NL_SET_ERR_MSG_MOD(extack, "invalid table");
		break;
	}
	kvfree(cfg->table);
	cfg->table = NULL;
	return -EINVAL;
}

/*
 * Install @cfg; under sch_tree_lock unless @init.  Returns the table to
 * free: the old one, or the new one if it repeats the old.  The walk
 * starts again only if the schedule changed: a change of the priomap or
 * the credits, or a controller pushing the same table again, leaves it
 * where it is (a restart hands the first entry's class its weight once
 * more, and changes in a row would give that class the link).
 */
static struct dt_entry *dtable_commit(struct Qdisc *sch, struct dtable_cfg *cfg)
{
	struct dtable_sched *q = qdisc_priv(sch);
	struct dt_entry *table = cfg->table ? cfg->table : q->table;
	/* init: dt_init() put the table in the core, but not in q->table */
	bool reshape = !q->table ||
		       !dt_same_schedule(&q->core, table, cfg->n, cfg->mode, cfg->credit);
	struct dt_entry *old = NULL;
	u32 i;

	for (i = 0; i < q->nclasses; i++) {
		reshape |= q->core_cls[i].mtu != cfg->mtu[i];
		q->core_cls[i].mtu = cfg->mtu[i];
	}
	memcpy(q->prio2cls, cfg->prio2cls, sizeof(q->prio2cls));
	if (cfg->table) {
		old = reshape ? q->table : cfg->table;
		if (reshape)
			q->table = cfg->table;
		cfg->table = NULL;
	}
	if (reshape)
		dt_set_table(&q->core, q->table, cfg->n, cfg->mode, cfg->credit);
	return old;
}

static int dtable_qdisc_change(struct Qdisc *sch, struct nlattr *opt,
			       struct netlink_ext_ack *extack)
{
	struct dtable_sched *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_DTABLE_MAX + 1];
	struct fabric_link *link, *old_link;
	struct dtable_cfg *cfg;
	struct dt_entry *old;
	int err;

	if (!opt) {
		NL_SET_ERR_MSG_MOD(extack, "options are required");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, TCA_DTABLE_MAX, opt, dtable_policy, extack);
	if (err < 0)
		return err;
	if (tb[TCA_DTABLE_CLASSES] && nla_get_u16(tb[TCA_DTABLE_CLASSES]) != q->nclasses) {
		NL_SET_ERR_MSG_MOD(extack, "the number of classes cannot change");
		return -EINVAL;
	}
	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	err = dtable_prepare(sch, tb, q->nclasses, false, cfg, extack);
	if (err)
		goto out;
	link = fabric_link_configure(sch, q->gate.link, tb[TCA_DTABLE_CREDITS],
				     tb[TCA_DTABLE_CREDIT_UNIT],
				     FCR_DEFAULT_VCS, extack);
	if (IS_ERR(link)) {
		err = PTR_ERR(link);
		goto out;
	}

	sch_tree_lock(sch);
	err = fabric_link_may_start(sch, q->gate.link, link, extack);
	if (err) {
		sch_tree_unlock(sch);
		fabric_link_put(link);
		goto out;
	}
	old = dtable_commit(sch, cfg);
	q->table_changes++;
	old_link = q->gate.link;
	q->gate.link = link;
	sch_tree_unlock(sch);
	kvfree(old);
	if (old_link && old_link != link) {
		fabric_link_put(old_link);
		/* a packet that waited for credits goes now */
		__netif_schedule(qdisc_root(sch));
	}
out:
	kvfree(cfg->table);
	kfree(cfg);
	return err;
}

static int dtable_qdisc_init(struct Qdisc *sch, struct nlattr *opt,
			     struct netlink_ext_ack *extack)
{
	struct dtable_sched *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_DTABLE_MAX + 1];
	struct fabric_link *link;
	struct dtable_cfg *cfg;
	u16 nclasses;
	int err;
	u32 i;

	err = tcf_block_get(&q->block, &q->filter_list, sch, extack);
	if (err)
		return err;
	if (!opt) {
		NL_SET_ERR_MSG_MOD(extack, "\"classes N\" is required");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, TCA_DTABLE_MAX, opt, dtable_policy, extack);
	if (err < 0)
		return err;
	if (!tb[TCA_DTABLE_CLASSES]) {
		NL_SET_ERR_MSG_MOD(extack, "\"classes N\" is required");
		return -EINVAL;
	}
	nclasses = nla_get_u16(tb[TCA_DTABLE_CLASSES]);

	cfg = kzalloc(sizeof(*cfg), GFP_KERNEL);
	if (!cfg)
		return -ENOMEM;
	err = dtable_prepare(sch, tb, nclasses, true, cfg, extack);
	if (err)
		goto out;
	err = -ENOMEM;
	q->classes = kcalloc(nclasses, sizeof(*q->classes), GFP_KERNEL);
	q->core_cls = kcalloc(nclasses, sizeof(*q->core_cls), GFP_KERNEL);
	if (!q->classes || !q->core_cls)
		goto out;	/* destroy() frees what was allocated */
	/*
	 * The link last of what may fail: a new one starts its books and
	 * speaks to the peer at once (fabric_link_get()), which a qdisc that
	 * then fails to be would have begun for nothing.  Before the
	 * children, which destroy() frees only once nclasses is set.
	 */
	link = fabric_link_configure(sch, NULL, tb[TCA_DTABLE_CREDITS],
				     tb[TCA_DTABLE_CREDIT_UNIT],
				     FCR_DEFAULT_VCS, extack);
	if (IS_ERR(link)) {
		err = PTR_ERR(link);
		goto out;
	}
	q->gate.link = link;
	for (i = 0; i < nclasses; i++) {
		struct Qdisc *child;

		child = qdisc_create_dflt(sch->dev_queue, &pfifo_qdisc_ops,
					  dtable_class_id(sch, i), extack);
		if (child)
			qdisc_hash_add(child, true);
		q->classes[i].qdisc = child ? child : &noop_qdisc;
	}
	q->nclasses = nclasses;
	dt_init(&q->core, q->core_cls, nclasses, cfg->table, cfg->n, cfg->mode,
		cfg->credit);
	dtable_commit(sch, cfg);	/* nothing old to free */
	err = 0;
out:
	kvfree(cfg->table);
	kfree(cfg);
	return err;
}

static void dtable_qdisc_reset(struct Qdisc *sch)
{
	struct dtable_sched *q = qdisc_priv(sch);
	u32 i;

	/* nothing queued: no class holds the link, credit or walk bits */
	for (i = 0; i < q->nclasses; i++) {
		qdisc_reset(q->classes[i].qdisc);
		dt_class_idle(&q->core, i);
	}
	if (q->table)
		dt_set_table(&q->core, q->table, q->core.n, q->core.mode, q->core.credit);
	fabric_gate_purge(sch, &q->gate);
}

static void dtable_qdisc_destroy(struct Qdisc *sch)
{
	struct dtable_sched *q = qdisc_priv(sch);
	u32 i;

	tcf_block_put(q->block);
	if (q->classes) {
		for (i = 0; i < q->nclasses; i++)
			qdisc_put(q->classes[i].qdisc);
	}
	kfree(q->classes);
	kfree(q->core_cls);
	kvfree(q->table);
	fabric_gate_purge(sch, &q->gate);
	if (q->gate.link)
		fabric_link_put(q->gate.link);
}

static int dtable_qdisc_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct dtable_sched *q = qdisc_priv(sch);
	struct tc_dtable_entry *e;
	struct nlattr *opts, *attr;
	u32 i, *mtu;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;
	if (nla_put_u8(skb, TCA_DTABLE_MODE, q->core.mode) ||
	    nla_put_u16(skb, TCA_DTABLE_CLASSES, q->nclasses) ||
	    nla_put_u32(skb, TCA_DTABLE_ENTRIES, q->core.n) ||
	    nla_put_u32(skb, TCA_DTABLE_CREDIT, q->core.credit) ||
	    nla_put(skb, TCA_DTABLE_PRIOMAP, sizeof(q->prio2cls), q->prio2cls) ||
	    nla_put_u8(skb, TCA_DTABLE_CREDITS, !!q->gate.link) ||
	    (q->gate.link && nla_put_u32(skb, TCA_DTABLE_CREDIT_UNIT,
					 fabric_link_unit(q->gate.link))))
		goto nla_put_failure;
	attr = nla_reserve(skb, TCA_DTABLE_MTU, sizeof(u32) * q->nclasses);
	if (!attr)
		goto nla_put_failure;
	mtu = nla_data(attr);
	for (i = 0; i < q->nclasses; i++)
		mtu[i] = q->core_cls[i].mtu;
	/*
	 * A 4096-entry table (32 KiB) fits no netlink message: rather than
	 * make the qdisc vanish from dumps, a table that does not fit in this
	 * one is left out (the entry count above still says how long it is).
	 */
	if (!fq_qdisc_dump_fits(skb, sizeof(*e) * q->core.n,
				sizeof(struct tc_dtable_xstats)))
		return nla_nest_end(skb, opts);
	attr = nla_reserve(skb, TCA_DTABLE_TABLE, sizeof(*e) * q->core.n);
	if (!attr)
		goto nla_put_failure;
	e = nla_data(attr);
	for (i = 0; i < q->core.n; i++) {
		e[i].cls = q->table[i].cls;
		e[i].pad = 0;
		e[i].weight = q->table[i].weight;
	}
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

/*
 * Statistics are dumped under RTNL only: since 5.17 no qdisc lock is
 * passed to gnet_stats_start_copy(), and the data path moves the
 * scheduler's state under the qdisc lock on other CPUs.  A snapshot is
 * taken under sch_tree_lock() and copied out after it.
 */
static int dtable_qdisc_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct dtable_sched *q = qdisc_priv(sch);
	struct tc_dtable_xstats st = { .type = TC_DTABLE_XSTATS_QDISC };

	sch_tree_lock(sch);
	st.walks = q->core.walks;
	st.empty_scans = q->core.empty_scans;
	st.resets = q->core.resets;
	st.lone_sends = q->core.lone_sends;
	st.table_changes = q->table_changes;
	sch_tree_unlock(sch);
	if (q->gate.link)
		fabric_link_read_stats(q->gate.link, &st.credits);

	return gnet_stats_copy_app(d, &st, sizeof(st));
}

/* ---- classes ---------------------------------------------------------------- */

static int dtable_class_graft(struct Qdisc *sch, unsigned long arg,
			      struct Qdisc *new, struct Qdisc **old,
			      struct netlink_ext_ack *extack)
{
	struct dtable_class *cl = dtable_class_from_arg(sch, arg);

	if (!cl)
		return -ENOENT;
	if (!new) {
		new = qdisc_create_dflt(sch->dev_queue, &pfifo_qdisc_ops,
					dtable_class_id(sch, arg - 1), extack);
		if (new)
			qdisc_hash_add(new, true);
		else
			new = &noop_qdisc;
	}
	/* purges the old child: qlen_notify clears the class's state */
	*old = qdisc_replace(sch, new, &cl->qdisc);
	return 0;
}

static struct Qdisc *dtable_class_leaf(struct Qdisc *sch, unsigned long arg)
{
	struct dtable_class *cl = dtable_class_from_arg(sch, arg);

	return cl ? cl->qdisc : NULL;
}

static unsigned long dtable_class_find(struct Qdisc *sch, u32 classid)
{
	struct dtable_sched *q = qdisc_priv(sch);
	u32 minor = TC_H_MIN(classid);

	if (TC_H_MAJ(classid) && TC_H_MAJ(classid) != sch->handle)
		return 0;
	return minor >= 1 && minor <= q->nclasses ? minor : 0;
}

/*
 * A child emptied, by its own drops or purged by a graft.  Called from
 * inside our own calls into the child too (see the top); idempotent.  A
 * child that still holds packets is not empty, whatever it said.
 */
static void dtable_class_qlen_notify(struct Qdisc *sch, unsigned long arg)
{
	struct dtable_class *cl = dtable_class_from_arg(sch, arg);
	struct dtable_sched *q = qdisc_priv(sch);

	if (cl && !cl->qdisc->q.qlen)
		dt_class_idle(&q->core, arg - 1);
}

static int dtable_class_dump(struct Qdisc *sch, unsigned long arg,
			     struct sk_buff *skb, struct tcmsg *tcm)
{
	struct dtable_sched *q = qdisc_priv(sch);
	struct dtable_class *cl = dtable_class_from_arg(sch, arg);
	struct nlattr *opts;
	u64 weight = 0;
	u32 i, entries = 0;

	if (!cl)
		return -1;
	for (i = 0; i < q->core.n; i++) {
		if (q->table[i].cls == arg - 1) {
			entries++;
			weight += q->table[i].weight;
		}
	}
	tcm->tcm_parent = TC_H_ROOT;
	tcm->tcm_handle = dtable_class_id(sch, arg - 1);
	tcm->tcm_info = cl->qdisc->handle;
	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;
	if (nla_put_u32(skb, TCA_DTABLE_CLASS_MTU, q->core_cls[arg - 1].mtu) ||
	    nla_put_u32(skb, TCA_DTABLE_CLASS_ENTRIES, entries) ||
	    nla_put_u64_64bit(skb, TCA_DTABLE_CLASS_WEIGHT, weight,
			      TCA_DTABLE_CLASS_PAD))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int dtable_class_dump_stats(struct Qdisc *sch, unsigned long arg,
				   struct gnet_dump *d)
{
	struct dtable_sched *q = qdisc_priv(sch);
	struct dtable_class *cl = dtable_class_from_arg(sch, arg);
	struct tc_dtable_class_xstats st = { .type = TC_DTABLE_XSTATS_CLASS };
	const struct dt_class *c;

	if (!cl)
		return -1;
	/* no qdisc lock is held for us (see dtable_qdisc_dump_stats()) */
	sch_tree_lock(sch);
	c = &q->core_cls[arg - 1];
	st.deficit = dt_class_deficit(&q->core, arg - 1);
	st.visited = dt_class_visited(&q->core, arg - 1);
	st.skipped = dt_class_skipped(&q->core, arg - 1);
	st.packets = c->packets;
	st.bytes = c->bytes;
	st.drops = cl->drops;
	/* sbt's alone: the other modes leave it at the first entry's weight */
	st.left = q->core.mode == DT_MODE_SBT ? c->left : 0;
	sch_tree_unlock(sch);
	if (gnet_stats_copy_basic(d, NULL, &cl->qdisc->bstats, true) < 0 ||
	    qdisc_qstats_copy(d, cl->qdisc) < 0)
		return -1;
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static void dtable_class_walk(struct Qdisc *sch, struct qdisc_walker *arg)
{
	struct dtable_sched *q = qdisc_priv(sch);
	u32 i;

	if (arg->stop)
		return;
	for (i = 0; i < q->nclasses; i++)
		if (!tc_qdisc_stats_dump(sch, i + 1, arg))
			break;
}

static struct tcf_block *dtable_tcf_block(struct Qdisc *sch, unsigned long cl,
					  struct netlink_ext_ack *extack)
{
	struct dtable_sched *q = qdisc_priv(sch);

	if (cl) {
		NL_SET_ERR_MSG_MOD(extack, "filters attach to the qdisc, not to a class");
		return NULL;
	}
	return q->block;
}

static unsigned long dtable_bind_tcf(struct Qdisc *sch, unsigned long parent,
				     u32 classid)
{
	return dtable_class_find(sch, classid);
}

static void dtable_unbind_tcf(struct Qdisc *sch, unsigned long arg)
{
}

static const struct Qdisc_class_ops dtable_class_ops = {
	.graft		= dtable_class_graft,
	.leaf		= dtable_class_leaf,
	.find		= dtable_class_find,
	.qlen_notify	= dtable_class_qlen_notify,
	.dump		= dtable_class_dump,
	.dump_stats	= dtable_class_dump_stats,
	.walk		= dtable_class_walk,
	.tcf_block	= dtable_tcf_block,
	.bind_tcf	= dtable_bind_tcf,
	.unbind_tcf	= dtable_unbind_tcf,
};

static struct Qdisc_ops dtable_qdisc_ops __read_mostly = {
	.cl_ops		= &dtable_class_ops,
	.id		= "dtable",
	.priv_size	= sizeof(struct dtable_sched),
	.enqueue	= dtable_qdisc_enqueue,
	.dequeue	= dtable_qdisc_dequeue,
	.peek		= qdisc_peek_dequeued,
	.change		= dtable_qdisc_change,
	.init		= dtable_qdisc_init,
	.reset		= dtable_qdisc_reset,
	.destroy	= dtable_qdisc_destroy,
	.dump		= dtable_qdisc_dump,
	.dump_stats	= dtable_qdisc_dump_stats,
	.owner		= THIS_MODULE,
};

static int __init dtable_module_init(void)
{
	/* the picks index the core's classes with a shift (dtable_core.h) */
	BUILD_BUG_ON(!is_power_of_2(sizeof(struct dt_class)));
	return register_qdisc(&dtable_qdisc_ops);
}

static void __exit dtable_module_exit(void)
{
	unregister_qdisc(&dtable_qdisc_ops);
}

module_init(dtable_module_init);
module_exit(dtable_module_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Table-based egress scheduling: DTable, SBT and round robin");
FQ_MODULE_ALIAS_QDISC("dtable");
