// SPDX-License-Identifier: GPL-2.0
/*
 * sch_aoq: anchored opportunity queueing among lanes.
 *
 * The classes of this qdisc are lanes, each with a child qdisc (pfifo
 * unless grafted).  The unit of transmission is one wire frame (one
 * dequeue); the unit a receiver waits for is a message:
 *
 *   - a GSO packet, segmented here at enqueue: its last segment is the tail;
 *   - frames carrying the fabric header (EtherType 0x88B5): a message ends
 *     at the frame with the tail flag;
 *   - any other packet: a message of one frame.
 *
 * Every dequeue is one scheduling cycle of core/aoq_core.h: the anchor lane
 * gets the first opportunity until the tail of its message has gone, and
 * when it cannot send, the other active lanes are offered opportunities in
 * increasing order of their (weight-normalised) opportunity counts until
 * one sends.  A lane is active while it has frames queued or while its
 * message is in progress; an active lane that cannot send now (the rest
 * of its message has not arrived, or its child - tbf, netem - holds its
 * frames back) is offered the opportunity and leaves it unused, exactly
 * the paper's offered-but-unused opportunity.  The difference of the
 * opportunity counts of two lanes active together stays below M, the most
 * opportunities a message needed, so the relative fairness bound is 2M.
 *
 * mode fbrr sends frame by frame in round robin, arr anchors in round
 * robin, pbrr serves one message at a time and waits for it.  A message
 * that makes no progress for "stall" is given up (counted), so a sender
 * that died mid-message cannot hold a lane or the anchor for ever; one
 * that reaches "message_limit" frames counts as ended there (a forced
 * tail, counted), so neither can a sender that never sets the tail flag.
 *
 * Lanes come and go (class delete and add, child grafts) while others
 * keep the busy period open: every such change resets the lane in the
 * core under the tree lock, in the same critical section that swaps its
 * child, so no frame can wait in a lane the core thinks idle.
 *
 * The tail mark travels with the frame through the child qdisc in the
 * last byte of the qdisc control block, which the in-tree children we
 * support (pfifo, bfifo, tbf, netem, fq_codel, sfq) leave alone.
 *
 * Paper: aoq-anchored-opportunity-queueing, sections 3 and 4.
 */
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/netlink.h>
#include <net/pkt_cls.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>

#include "include/uapi/linux/pkt_sched_aoq.h"
#include "include/uapi/linux/fabric_hdr.h"
#include "core/aoq_core.h"
#include "core/fabric_hdr_core.h"
#include "core/fabric_credit.h"
#include "fabric_link.h"
#include "qdisc_gso.h"

#define AOQ_DEFAULT_STALL_NS	(100 * NSEC_PER_MSEC)
/* frames; 256 holds any GSO message of 64 KB down to an MSS of 256 */
#define AOQ_DEFAULT_MESSAGE_LIMIT	AOQ_MSG_LIMIT_DEFAULT

/* the tail mark in the qdisc control block, see the header comment */
#define AOQ_CB_BYTE		(QDISC_CB_PRIV_LEN - 1)
#define AOQ_CB_INNER		0xa0
#define AOQ_CB_TAIL		0xa1

struct aoq_class {
	struct Qdisc_class_common common;
	unsigned int filter_cnt;
	unsigned int lane;		/* minor - 1 */
	struct Qdisc *qdisc;
	struct gnet_stats_basic_sync bstats;	/* its bytes: xstats' too */
	struct gnet_stats_queue qstats;
	u64 frames;	/* not bstats.packets, where GSO counts segments */
};

struct aoq_qdisc {
	struct tcf_proto __rcu *filter_list;
	struct tcf_block *block;
	/*
	 * The filters' answer for the frame being enqueued, here rather
	 * than on the stack for the reason given for sent below; the
	 * enqueue holds the qdisc lock.
	 */
	struct tcf_result filter_res;
	struct Qdisc_class_hash clhash;
	struct aoq_class *lanes[TC_AOQ_MAX_LANES];
	/*
	 * Each lane's child, for the core's questions of every frame (is
	 * the lane backlogged, its next frame), so that they need not ask
	 * for the class first: &noop_qdisc, with nothing ever queued, for a
	 * lane with no class.  Set with lanes[] and the class's child,
	 * under the tree lock (aoq_set_lane_child()).
	 */
	struct Qdisc *lane_child[TC_AOQ_MAX_LANES];
	struct qdisc_watchdog watchdog;
	u32 default_minor;
	u8 segment;
	struct fabric_credit_gate gate;		/* credits on */
	u32 gso_queued;		/* segments of the GSO packet at enqueue its lane took */
	struct tc_aoq_qd_stats xs;
	/*
	 * The frame aoq_lane_send() took in the current aoq_pick().  Here
	 * rather than on the pick's stack: the core's callbacks get the
	 * qdisc itself, and no local whose address escapes costs the pick
	 * a stack canary per call.
	 */
	struct sk_buff *sent;
	struct aoq_sched core;
};

/* ---- the core's view of the lanes ----------------------------------- */

static void aoq_set_lane_child(struct aoq_qdisc *q, unsigned int lane,
			       struct aoq_class *cl)
{
	q->lane_child[lane] = cl ? cl->qdisc : &noop_qdisc;
}

/* @ctx: the struct aoq_qdisc */
static bool aoq_lane_backlogged(void *ctx, unsigned int lane)
{
	struct aoq_qdisc *q = ctx;

	return q->lane_child[lane]->q.qlen > 0;
}

/* inlined into the cycles (through the constant ops): once per frame */
static __always_inline enum aoq_tx aoq_lane_send(void *ctx, unsigned int lane)
{
	struct aoq_qdisc *q = ctx;
	struct Qdisc *child = q->lane_child[lane];
	struct sk_buff *skb;

	if (!child->q.qlen)
		return AOQ_TX_NONE;
	skb = child->dequeue(child);
	if (!skb)
		return AOQ_TX_NONE;	/* held back by the child: unused */
	q->sent = skb;
	/* a mark the child did not keep: a message of its own */
	return qdisc_skb_cb(skb)->data[AOQ_CB_BYTE] == AOQ_CB_INNER ?
		AOQ_TX_UNIT : AOQ_TX_TAIL;
}

/* read only when a stall has to be looked for or a progress stamped */
static u64 aoq_clock(void *ctx)
{
	return ktime_get_ns();
}

static const struct aoq_ops aoq_lane_ops = {
	.send = aoq_lane_send,
	.backlogged = aoq_lane_backlogged,
	.now = aoq_clock,
};

/* ---- classes -------------------------------------------------------- */

/*
 * A lane's classid is <our handle>:<lane + 1>, and lanes[] changes with
 * the class hash, in the same critical sections: an index, not a hash
 * lookup, per classified packet.
 */
static struct aoq_class *aoq_find_class(struct Qdisc *sch, u32 classid)
{
	struct aoq_qdisc *q = qdisc_priv(sch);
	u32 minor = TC_H_MIN(classid);

	if (TC_H_MAJ(classid) != sch->handle || !minor ||
	    minor > TC_AOQ_MAX_LANES)
		return NULL;
	return q->lanes[minor - 1];
}

static struct aoq_class *aoq_find_minor(struct Qdisc *sch, u32 minor)
{
	return minor ? aoq_find_class(sch, TC_H_MAKE(sch->handle, minor)) : NULL;
}

/*
 * skb->priority naming one of our lanes, then the filters, then the
 * default lane.
 */
static __always_inline struct aoq_class *
aoq_classify(struct sk_buff *skb, struct Qdisc *sch, int *qerr)
{
	struct aoq_qdisc *q = qdisc_priv(sch);
	struct aoq_class *cl;
	struct tcf_proto *fl;
	int result;

	*qerr = NET_XMIT_SUCCESS | __NET_XMIT_BYPASS;
	if (TC_H_MAJ(skb->priority ^ sch->handle) == 0) {
		cl = aoq_find_class(sch, skb->priority);
		if (cl)
			return cl;
	}
	fl = rcu_dereference_bh(q->filter_list);
	result = fq_tcf_classify(skb, fl, &q->filter_res);
	if (result >= 0) {
#ifdef CONFIG_NET_CLS_ACT
		switch (result) {
		case TC_ACT_QUEUED:
		case TC_ACT_STOLEN:
		case TC_ACT_TRAP:
			*qerr = NET_XMIT_SUCCESS | __NET_XMIT_STOLEN;
			fallthrough;
		case TC_ACT_SHOT:
			return NULL;
		}
#endif
		cl = (struct aoq_class *)q->filter_res.class;
		if (!cl)
			cl = aoq_find_class(sch, q->filter_res.classid);
		if (cl)
			return cl;
	}
	return aoq_find_minor(sch, q->default_minor);
}

/* ---- enqueue -------------------------------------------------------- */

/* aoq_frame_is_tail() of a frame that may carry the fabric header */
static noinline bool aoq_fabric_frame_is_tail(const struct sk_buff *skb)
{
	u8 buf[ETH_HLEN + FABRIC_HDR_LEN];
	struct fhc_fields f;
	const u8 *p;

	p = skb_header_pointer(skb, 0, sizeof(buf), buf);
	if (!p || get_unaligned_be16(p + 12) != ETH_P_FABRIC)
		return true;
	fhc_decode(p + ETH_HLEN, &f);
	return f.tail;
}

/*
 * Is this frame the last of its message?  Fabric frames say so in their
 * header; every other non-GSO frame is a message of its own.  The
 * EtherType is read in place when the linear part holds it, so that
 * other frames need no copy buffer (which the kernel zeroes on entry).
 */
static __always_inline bool aoq_frame_is_tail(const struct Qdisc *sch,
					      const struct sk_buff *skb)
{
	if (qdisc_dev(sch)->type != ARPHRD_ETHER)
		return true;
	if (likely(skb_headlen(skb) >= ETH_HLEN) &&
	    get_unaligned_be16(skb->data + 12) != ETH_P_FABRIC)
		return true;
	return aoq_fabric_frame_is_tail(skb);
}

static __always_inline int aoq_enqueue_frame(struct sk_buff *skb,
					     struct Qdisc *sch,
					     struct aoq_class *cl, bool tail,
					     struct sk_buff **to_free)
{
	struct aoq_qdisc *q = qdisc_priv(sch);
	unsigned int len = qdisc_pkt_len(skb);
	int ret;

	qdisc_skb_cb(skb)->data[AOQ_CB_BYTE] = tail ? AOQ_CB_TAIL : AOQ_CB_INNER;
	ret = qdisc_enqueue(skb, cl->qdisc, to_free);
	if (unlikely(ret != NET_XMIT_SUCCESS)) {
		if (net_xmit_drop_count(ret)) {
			cl->qstats.drops++;
			qdisc_qstats_drop(sch);
		}
		return ret;
	}
	sch->qstats.backlog += len;
	sch->q.qlen++;
	aoq_lane_arrive(&q->core, cl->lane);
	return NET_XMIT_SUCCESS;
}

/*
 * Did the child drop @skb itself?  A child that answers NET_XMIT_CN took
 * the frame but dropped one of the same flow for it: sfq drops the
 * flow's newest, the frame just offered; fq_codel the flow's oldest,
 * keeping the frame.  What it drops goes on @to_free, which the kernel
 * frees only after the root's enqueue returns, so the list names it.
 * The list holds this enqueue's drops: at most the GSO packet's
 * segments and what children dropped for them.
 */
static bool aoq_dropped_itself(const struct sk_buff *skb,
			       struct sk_buff *const *to_free)
{
	const struct sk_buff *dropped;

	for (dropped = *to_free; dropped; dropped = dropped->next)
		if (dropped == skb)
			return true;
	return false;
}

/* A segment is a frame of the GSO message; its last one is the tail. */
static int aoq_enqueue_seg(struct sk_buff *seg, struct Qdisc *sch, void *ctx,
			   u32 parts, u8 flags, struct sk_buff **to_free)
{
	struct aoq_qdisc *q = qdisc_priv(sch);
	bool tail = flags & FABRIC_HDR_F_TAIL;
	int ret;

	ret = aoq_enqueue_frame(seg, sch, ctx, tail, to_free);
	if (ret == NET_XMIT_SUCCESS) {
		q->gso_queued++;
	} else if (tail && q->gso_queued) {
		/*
		 * A message without its tail: it ends with its last frame
		 * queued.  (NET_XMIT_CN: the child may have queued the tail
		 * and dropped another frame; ending there is harmless then,
		 * and the tail is lost only if it is the frame dropped.)
		 */
		aoq_lane_cut(&q->core, ((struct aoq_class *)ctx)->lane);
		if ((ret & NET_XMIT_MASK) != NET_XMIT_CN ||
		    aoq_dropped_itself(seg, to_free))
			q->xs.tails_lost++;
	}
	return ret;
}

static noinline int aoq_enqueue_segments(struct sk_buff *skb,
					 struct Qdisc *sch,
					 struct aoq_class *cl,
					 struct sk_buff **to_free)
{
	struct aoq_qdisc *q = qdisc_priv(sch);
	netdev_features_t features = netif_skb_features(skb);
	struct sk_buff *segs;

	segs = skb_gso_segment(skb, features & ~NETIF_F_GSO_MASK);
	if (IS_ERR_OR_NULL(segs)) {
		cl->qstats.drops++;
		return qdisc_drop(skb, sch, to_free);
	}
	q->xs.gso_segmented++;
	q->gso_queued = 0;
	return fq_enqueue_segments(skb, segs, sch, aoq_enqueue_seg, cl, to_free);
}

/*
 * Every queue went empty and some lane is still in a message: end the
 * busy period if it can end.
 */
static noinline void aoq_sweep_idle(struct Qdisc *sch)
{
	struct aoq_qdisc *q = qdisc_priv(sch);

	aoq_sweep(&q->core, AOQ_NOW_LAZY, &aoq_lane_ops, q);
}

static int aoq_qdisc_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			     struct sk_buff **to_free)
{
	struct aoq_qdisc *q = qdisc_priv(sch);
	struct aoq_class *cl;
	int err;

	cl = aoq_classify(skb, sch, &err);
	if (unlikely(!cl)) {
		if (err & __NET_XMIT_BYPASS) {
			q->xs.unclassified++;
			qdisc_qstats_drop(sch);
		}
		__qdisc_drop(skb, to_free);
		return err;
	}
	/* every queue went empty since: end the busy period first */
	if (unlikely(!sch->q.qlen && q->core.nactive))
		aoq_sweep_idle(sch);
	/* a credit link carries no GSO packet whole (credits.rst, Hosts) */
	if (unlikely(q->segment || q->gate.link) && skb_is_gso(skb))
		return aoq_enqueue_segments(skb, sch, cl, to_free);
	return aoq_enqueue_frame(skb, sch, cl, aoq_frame_is_tail(sch, skb),
				 to_free);
}

/* ---- dequeue -------------------------------------------------------- */

/*
 * Nothing could be sent although frames wait.  Children that hold frames
 * back run their own watchdogs; what only we can end is a wait for a
 * stalled anchor (pbrr waits on it): come back when its time is up.
 */
static void aoq_arm_watchdog(struct aoq_qdisc *q)
{
	int a = q->core.anchor;

	if (a >= 0 && q->core.stall)
		qdisc_watchdog_schedule_ns(&q->watchdog,
					   q->core.lane[a].progress +
					   q->core.stall + 1);
}

/*
 * Every cycle but the common one (aoq_cycle_common()), out of line: the
 * common cycle's function then saves no registers for this one's needs.
 */
static noinline int aoq_cycle_general(struct aoq_qdisc *q)
{
	return aoq_dequeue_general(&q->core, AOQ_NOW_LAZY, &aoq_lane_ops, q);
}

static __always_inline struct sk_buff *aoq_pick(struct Qdisc *sch)
{
	struct aoq_qdisc *q = qdisc_priv(sch);
	struct aoq_class *cl;
	struct sk_buff *skb;
	int lane;

	if (!sch->q.qlen)
		return NULL;
	q->sent = NULL;
	lane = aoq_cycle_common(&q->core, AOQ_NOW_LAZY, &aoq_lane_ops, q);
	if (unlikely(lane == AOQ_NOT_COMMON))
		lane = aoq_cycle_general(q);
	skb = q->sent;
	if (lane < 0 || !skb) {
		if (sch->q.qlen) {
			q->xs.idle_dequeues++;
			aoq_arm_watchdog(q);
		}
		return NULL;
	}
	cl = q->lanes[lane];
	bstats_update(&cl->bstats, skb);
	cl->frames++;
	/* the qdisc's own bstats: when it leaves (fabric_gate_dequeue()) */
	qdisc_qstats_backlog_dec(sch, skb);
	sch->q.qlen--;
	/*
	 * With no lane left the cycle has just ended the busy period
	 * (aoq_dequeue()): the sweep would change nothing.
	 */
	if (!sch->q.qlen && q->core.nactive)
		aoq_sweep(&q->core, q->core.now, &aoq_lane_ops, q);	/* the cycle's */
	return skb;
}

/* The frame aoq picked goes when the link has credits for it (if on). */
static struct sk_buff *aoq_qdisc_dequeue(struct Qdisc *sch)
{
	struct aoq_qdisc *q = qdisc_priv(sch);

	return fabric_gate_dequeue(sch, &q->gate, aoq_pick);
}

/* ---- configuration -------------------------------------------------- */

static struct netlink_range_validation aoq_stall_range = {
	.min = TC_AOQ_MIN_STALL_NS, .max = TC_AOQ_MAX_STALL_NS,
};

/* NLA_POLICY_RANGE() holds s16 bounds: 65535 needs the full form */
static struct netlink_range_validation aoq_message_range = {
	.min = 1, .max = TC_AOQ_MAX_MESSAGE,
};

static const struct nla_policy aoq_policy[TCA_AOQ_MAX + 1] = {
	[TCA_AOQ_MODE]		= NLA_POLICY_MAX(NLA_U8, TC_AOQ_MODE_MAX),
	[TCA_AOQ_STALL]		= NLA_POLICY_FULL_RANGE(NLA_U64, &aoq_stall_range),
	[TCA_AOQ_DEFAULT]	= NLA_POLICY_MAX(NLA_U32, TC_AOQ_MAX_LANES),
	[TCA_AOQ_SEGMENT]	= NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_AOQ_CREDITS]	= NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_AOQ_CREDIT_UNIT]	= { .type = NLA_U32 },	/* range: fabric_link */
	[TCA_AOQ_MESSAGE_LIMIT]	= NLA_POLICY_FULL_RANGE(NLA_U32, &aoq_message_range),
};

static const struct nla_policy aoq_class_policy[TCA_AOQ_CLASS_MAX + 1] = {
	[TCA_AOQ_CLASS_WEIGHT]	= NLA_POLICY_RANGE(NLA_U32, 1, TC_AOQ_MAX_WEIGHT),
};

static bool aoq_has_weights(const struct aoq_qdisc *q)
{
	unsigned int i;

	for (i = 0; i < TC_AOQ_MAX_LANES; i++)
		if (q->lanes[i] && q->core.lane[i].weight != 1)
			return true;
	return false;
}

static int aoq_qdisc_change(struct Qdisc *sch, struct nlattr *opt,
			    struct netlink_ext_ack *extack)
{
	struct aoq_qdisc *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_AOQ_MAX + 1];
	enum aoq_mode mode = q->core.mode;
	struct fabric_link *link, *old_link;
	bool rerun;
	int err;

	if (!opt)
		return 0;
	err = nla_parse_nested(tb, TCA_AOQ_MAX, opt, aoq_policy, extack);
	if (err < 0)
		return err;
	if (tb[TCA_AOQ_MODE])
		mode = nla_get_u8(tb[TCA_AOQ_MODE]);
	if (mode != AOQ_MODE_AOQ && aoq_has_weights(q)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "lane weights need mode aoq: set the weights back to 1 first");
		return -EINVAL;
	}
	link = fabric_link_configure(sch, q->gate.link, tb[TCA_AOQ_CREDITS],
				     tb[TCA_AOQ_CREDIT_UNIT],
				     FCR_DEFAULT_VCS, extack);
	if (IS_ERR(link))
		return PTR_ERR(link);

	sch_tree_lock(sch);
	err = fabric_link_may_start(sch, q->gate.link, link, extack);
	if (err) {
		sch_tree_unlock(sch);
		fabric_link_put(link);
		return err;
	}
	old_link = q->gate.link;
	q->gate.link = link;
	/*
	 * What ends a wait changed (a stalled anchor's, whose watchdog was
	 * set for the old stall time, or one for credits), and the frames
	 * queued bring no dequeue: run one, which sets the watchdog again
	 * if there is still a wait
	 */
	rerun = mode != q->core.mode || tb[TCA_AOQ_STALL] || tb[TCA_AOQ_MESSAGE_LIMIT] ||
		(old_link && old_link != link);
	if (mode != q->core.mode)
		aoq_set_mode(&q->core, mode);
	if (tb[TCA_AOQ_STALL])
		q->core.stall = nla_get_u64(tb[TCA_AOQ_STALL]);
	if (tb[TCA_AOQ_DEFAULT])
		q->default_minor = nla_get_u32(tb[TCA_AOQ_DEFAULT]);
	if (tb[TCA_AOQ_SEGMENT])
		q->segment = nla_get_u8(tb[TCA_AOQ_SEGMENT]);
	if (tb[TCA_AOQ_MESSAGE_LIMIT])
		q->core.msg_limit = nla_get_u32(tb[TCA_AOQ_MESSAGE_LIMIT]);
	sch_tree_unlock(sch);
	if (old_link && old_link != link)
		fabric_link_put(old_link);
	/* a frame that waited for credits or for the old stall goes now */
	if (rerun && sch->q.qlen)
		__netif_schedule(qdisc_root(sch));
	return 0;
}

static int aoq_qdisc_init(struct Qdisc *sch, struct nlattr *opt,
			  struct netlink_ext_ack *extack)
{
	struct aoq_qdisc *q = qdisc_priv(sch);
	unsigned int i;
	int err;

	aoq_init(&q->core, AOQ_MODE_AOQ, 0);
	for (i = 0; i < TC_AOQ_MAX_LANES; i++)
		aoq_set_lane_child(q, i, NULL);
	q->core.stall = AOQ_DEFAULT_STALL_NS;
	q->core.msg_limit = AOQ_DEFAULT_MESSAGE_LIMIT;
	q->segment = 1;
	qdisc_watchdog_init(&q->watchdog, sch);
	err = tcf_block_get(&q->block, &q->filter_list, sch, extack);
	if (err)
		return err;
	err = qdisc_class_hash_init(&q->clhash);
	if (err)
		return err;
	return aoq_qdisc_change(sch, opt, extack);
}

/* All lanes lost their frames: no message can go on. */
static void aoq_forget_lanes(struct aoq_qdisc *q)
{
	unsigned int i;

	for (i = 0; i < TC_AOQ_MAX_LANES; i++)
		aoq_lane_remove(&q->core, i);
}

static void aoq_qdisc_reset(struct Qdisc *sch)
{
	struct aoq_qdisc *q = qdisc_priv(sch);
	unsigned int i;

	for (i = 0; i < TC_AOQ_MAX_LANES; i++)
		if (q->lanes[i])
			qdisc_reset(q->lanes[i]->qdisc);
	aoq_forget_lanes(q);
	qdisc_watchdog_cancel(&q->watchdog);
	fabric_gate_purge(sch, &q->gate);
}

static void aoq_destroy_class(struct aoq_class *cl)
{
	qdisc_put(cl->qdisc);
	kfree(cl);
}

static void aoq_qdisc_destroy(struct Qdisc *sch)
{
	struct aoq_qdisc *q = qdisc_priv(sch);
	struct hlist_node *next;
	struct aoq_class *cl;
	unsigned int i;

	qdisc_watchdog_cancel(&q->watchdog);
	tcf_block_put(q->block);
	for (i = 0; i < q->clhash.hashsize; i++)
		hlist_for_each_entry_safe(cl, next, &q->clhash.hash[i],
					  common.hnode)
			aoq_destroy_class(cl);
	qdisc_class_hash_destroy(&q->clhash);
	fabric_gate_purge(sch, &q->gate);
	if (q->gate.link)
		fabric_link_put(q->gate.link);
}

static int aoq_qdisc_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct aoq_qdisc *q = qdisc_priv(sch);
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;
	if (nla_put_u8(skb, TCA_AOQ_MODE, q->core.mode) ||
	    nla_put_u64_64bit(skb, TCA_AOQ_STALL, q->core.stall, TCA_AOQ_PAD) ||
	    nla_put_u32(skb, TCA_AOQ_DEFAULT, q->default_minor) ||
	    nla_put_u8(skb, TCA_AOQ_SEGMENT, q->segment) ||
	    nla_put_u32(skb, TCA_AOQ_MESSAGE_LIMIT, q->core.msg_limit) ||
	    nla_put_u8(skb, TCA_AOQ_CREDITS, !!q->gate.link) ||
	    (q->gate.link && nla_put_u32(skb, TCA_AOQ_CREDIT_UNIT,
					 fabric_link_unit(q->gate.link))))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int aoq_qdisc_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct aoq_qdisc *q = qdisc_priv(sch);
	struct tc_aoq_qd_stats st;

	sch_tree_lock(sch);
	st = q->xs;
	st.max_spread = aoq_max_spread(&q->core);
	st.busy_periods = q->core.busy_periods;
	st.active_lanes = q->core.nactive;
	st.anchor = q->core.anchor >= 0 ? q->core.anchor + 1 : -1;
	/* the core's totals: lanes deleted since still count */
	st.abandoned = q->core.abandoned;
	st.forced_tails = q->core.forced;
	st.max_msg_opps = q->core.max_msg_opps;
	sch_tree_unlock(sch);
	if (q->gate.link)
		fabric_link_read_stats(q->gate.link, &st.credits);
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

/* ---- class ops ------------------------------------------------------ */

static struct Qdisc *aoq_class_leaf(struct Qdisc *sch, unsigned long arg)
{
	return ((struct aoq_class *)arg)->qdisc;
}

static unsigned long aoq_class_find(struct Qdisc *sch, u32 classid)
{
	return (unsigned long)aoq_find_class(sch, classid);
}

static int aoq_class_change(struct Qdisc *sch, u32 classid, u32 parentid,
			    struct nlattr **tca, unsigned long *arg,
			    struct netlink_ext_ack *extack)
{
	struct aoq_qdisc *q = qdisc_priv(sch);
	struct aoq_class *cl = (struct aoq_class *)*arg;
	struct nlattr *tb[TCA_AOQ_CLASS_MAX + 1] = { };
	u32 minor, weight;
	int err;

	if (tca[TCA_RATE]) {
		NL_SET_ERR_MSG_MOD(extack, "rate estimators are not supported on aoq lanes");
		return -EOPNOTSUPP;
	}
	if (tca[TCA_OPTIONS]) {
		err = nla_parse_nested(tb, TCA_AOQ_CLASS_MAX, tca[TCA_OPTIONS],
				       aoq_class_policy, extack);
		if (err < 0)
			return err;
	}
	weight = cl ? q->core.lane[cl->lane].weight : 1;
	if (tb[TCA_AOQ_CLASS_WEIGHT])
		weight = nla_get_u32(tb[TCA_AOQ_CLASS_WEIGHT]);
	if (weight != 1 && q->core.mode != AOQ_MODE_AOQ) {
		NL_SET_ERR_MSG_MOD(extack, "lane weights need mode aoq");
		return -EINVAL;
	}

	if (cl) {
		if (parentid && parentid != sch->handle && parentid != TC_H_ROOT) {
			NL_SET_ERR_MSG_MOD(extack, "aoq lanes cannot move");
			return -EINVAL;
		}
		sch_tree_lock(sch);
		aoq_set_weight(&q->core, cl->lane, weight);
		sch_tree_unlock(sch);
		return 0;
	}

	if (!classid || TC_H_MAJ(classid) != sch->handle) {
		NL_SET_ERR_MSG_MOD(extack, "lane classid must be <qdisc handle>:<1..64>");
		return -EINVAL;
	}
	minor = TC_H_MIN(classid);
	if (minor < 1 || minor > TC_AOQ_MAX_LANES) {
		NL_SET_ERR_MSG_MOD(extack, "lane minor must be 1..64");
		return -EINVAL;
	}
	if (parentid && parentid != sch->handle && parentid != TC_H_ROOT) {
		NL_SET_ERR_MSG_MOD(extack, "aoq lanes hang off the qdisc itself");
		return -EINVAL;
	}

	cl = kzalloc(sizeof(*cl), GFP_KERNEL);
	if (!cl)
		return -ENOBUFS;
	cl->common.classid = classid;
	cl->lane = minor - 1;
	gnet_stats_basic_sync_init(&cl->bstats);
	cl->qdisc = qdisc_create_dflt(sch->dev_queue, &pfifo_qdisc_ops, classid,
				      NULL);
	if (!cl->qdisc)
		cl->qdisc = &noop_qdisc;
	else
		qdisc_hash_add(cl->qdisc, true);

	sch_tree_lock(sch);
	qdisc_class_hash_insert(&q->clhash, &cl->common);
	q->lanes[cl->lane] = cl;
	aoq_set_lane_child(q, cl->lane, cl);
	/*
	 * A new lane starts with clean counters, through the core: the lane
	 * may have been deleted a moment ago in the middle of a busy period
	 * that other lanes still keep open.
	 */
	aoq_lane_reset(&q->core, cl->lane, weight);
	if (q->core.nlanes < minor)
		q->core.nlanes = minor;
	sch_tree_unlock(sch);
	qdisc_class_hash_grow(sch, &q->clhash);

	*arg = (unsigned long)cl;
	return 0;
}

static int aoq_class_delete(struct Qdisc *sch, unsigned long arg,
			    struct netlink_ext_ack *extack)
{
	struct aoq_qdisc *q = qdisc_priv(sch);
	struct aoq_class *cl = (struct aoq_class *)arg;

	if (cl->filter_cnt) {
		NL_SET_ERR_MSG_MOD(extack, "filters still point to this lane");
		return -EBUSY;
	}
	sch_tree_lock(sch);
	qdisc_purge_queue(cl->qdisc);
	aoq_lane_remove(&q->core, cl->lane);
	q->lanes[cl->lane] = NULL;
	aoq_set_lane_child(q, cl->lane, NULL);
	qdisc_class_hash_remove(&q->clhash, &cl->common);
	sch_tree_unlock(sch);
	aoq_destroy_class(cl);
	return 0;
}

static int aoq_class_graft(struct Qdisc *sch, unsigned long arg,
			   struct Qdisc *new, struct Qdisc **old,
			   struct netlink_ext_ack *extack)
{
	struct aoq_qdisc *q = qdisc_priv(sch);
	struct aoq_class *cl = (struct aoq_class *)arg;

	if (!new) {
		new = qdisc_create_dflt(sch->dev_queue, &pfifo_qdisc_ops,
					cl->common.classid, extack);
		/* in the device's list, as tc qdisc show and its statistics find it */
		if (new)
			qdisc_hash_add(new, true);
		else
			new = &noop_qdisc;
	}
	/*
	 * Swap the child and forget the lane in one critical section: the
	 * old child's frames go, messages in progress too.  Forgetting it
	 * after a separate swap (qdisc_replace() unlocks in between) could
	 * mark idle a lane whose new child just got a frame, which would
	 * then wait for the lane's next arrival, perhaps for ever.
	 */
	sch_tree_lock(sch);
	*old = cl->qdisc;
	cl->qdisc = new;
	aoq_set_lane_child(q, cl->lane, cl);
	qdisc_purge_queue(*old);
	aoq_lane_remove(&q->core, cl->lane);
	sch_tree_unlock(sch);
	return 0;
}

/*
 * A child dropped frames and went empty.  Nothing to do now: the core
 * finds the lane idle on its next visit (or the enqueue that finds the
 * qdisc empty sweeps it), so this is trivially idempotent and safe to
 * call from inside our own dequeue.
 */
static void aoq_class_qlen_notify(struct Qdisc *sch, unsigned long arg)
{
}

static struct tcf_block *aoq_class_tcf_block(struct Qdisc *sch,
					     unsigned long cl,
					     struct netlink_ext_ack *extack)
{
	struct aoq_qdisc *q = qdisc_priv(sch);

	if (cl) {
		NL_SET_ERR_MSG_MOD(extack, "filters attach to the aoq qdisc, not to its lanes");
		return NULL;
	}
	return q->block;
}

static unsigned long aoq_class_bind_tcf(struct Qdisc *sch, unsigned long parent,
					u32 classid)
{
	struct aoq_class *cl = aoq_find_class(sch, classid);

	if (cl)
		cl->filter_cnt++;
	return (unsigned long)cl;
}

static void aoq_class_unbind_tcf(struct Qdisc *sch, unsigned long arg)
{
	struct aoq_class *cl = (struct aoq_class *)arg;

	cl->filter_cnt--;
}

static int aoq_class_dump(struct Qdisc *sch, unsigned long arg,
			  struct sk_buff *skb, struct tcmsg *tcm)
{
	struct aoq_qdisc *q = qdisc_priv(sch);
	struct aoq_class *cl = (struct aoq_class *)arg;
	struct nlattr *opts;

	tcm->tcm_parent = TC_H_ROOT;
	tcm->tcm_handle = cl->common.classid;
	tcm->tcm_info = cl->qdisc->handle;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;
	if (nla_put_u32(skb, TCA_AOQ_CLASS_WEIGHT, q->core.lane[cl->lane].weight))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int aoq_class_dump_stats(struct Qdisc *sch, unsigned long arg,
				struct gnet_dump *d)
{
	struct aoq_qdisc *q = qdisc_priv(sch);
	struct aoq_class *cl = (struct aoq_class *)arg;
	const struct aoq_lane *l;
	struct tc_aoq_class_stats st = { };
	__u32 qlen;

	sch_tree_lock(sch);
	l = &q->core.lane[cl->lane];
	st.offered = l->offered;
	st.used = l->used;
	st.messages = l->messages;
	st.abandoned = l->abandoned;
	st.forced_tails = l->forced;
	st.max_msg_opps = l->max_msg_opps;
	st.count = div64_u64(aoq_lane_count(&q->core, cl->lane), AOQ_OC_UNIT);
	st.weight = l->weight;
	st.active = l->active;
	st.busy = l->busy;
	st.anchor = q->core.anchor == (int)cl->lane;
	st.frames = cl->frames;
	st.bytes = u64_stats_read(&cl->bstats.bytes);
	st.drops = cl->qstats.drops;
	qlen = qdisc_qlen_sum(cl->qdisc);
	sch_tree_unlock(sch);

	if (gnet_stats_copy_basic(d, NULL, &cl->bstats, true) < 0 ||
	    gnet_stats_copy_queue(d, cl->qdisc->cpu_qstats, &cl->qdisc->qstats,
				  qlen) < 0)
		return -1;
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static void aoq_class_walk(struct Qdisc *sch, struct qdisc_walker *arg)
{
	struct aoq_qdisc *q = qdisc_priv(sch);
	struct Qdisc_class_common *c;
	unsigned int i;

	if (arg->stop)
		return;
	for (i = 0; i < q->clhash.hashsize; i++)
		hlist_for_each_entry(c, &q->clhash.hash[i], hnode)
			if (!tc_qdisc_stats_dump(sch, (unsigned long)c, arg))
				return;
}

static const struct Qdisc_class_ops aoq_class_ops = {
	.graft		= aoq_class_graft,
	.leaf		= aoq_class_leaf,
	.qlen_notify	= aoq_class_qlen_notify,
	.find		= aoq_class_find,
	.change		= aoq_class_change,
	.delete		= aoq_class_delete,
	.walk		= aoq_class_walk,
	.tcf_block	= aoq_class_tcf_block,
	.bind_tcf	= aoq_class_bind_tcf,
	.unbind_tcf	= aoq_class_unbind_tcf,
	.dump		= aoq_class_dump,
	.dump_stats	= aoq_class_dump_stats,
};

static struct Qdisc_ops aoq_qdisc_ops __read_mostly = {
	.cl_ops		= &aoq_class_ops,
	.id		= "aoq",
	.priv_size	= sizeof(struct aoq_qdisc),
	.enqueue	= aoq_qdisc_enqueue,
	.dequeue	= aoq_qdisc_dequeue,
	.peek		= qdisc_peek_dequeued,
	.init		= aoq_qdisc_init,
	.reset		= aoq_qdisc_reset,
	.destroy	= aoq_qdisc_destroy,
	.change		= aoq_qdisc_change,
	.dump		= aoq_qdisc_dump,
	.dump_stats	= aoq_qdisc_dump_stats,
	.owner		= THIS_MODULE,
};

static int __init aoq_module_init(void)
{
	/* a lane found with a shift (struct aoq_lane's padding) */
	BUILD_BUG_ON(sizeof(struct aoq_lane) != 128);
	return register_qdisc(&aoq_qdisc_ops);
}

static void __exit aoq_module_exit(void)
{
	unregister_qdisc(&aoq_qdisc_ops);
}

module_init(aoq_module_init);
module_exit(aoq_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Anchored opportunity queueing among lanes (AOQ / FBRR / ARR / PBRR)");
FQ_MODULE_ALIAS_QDISC("aoq");
