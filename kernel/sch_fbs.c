// SPDX-License-Identifier: GPL-2.0
/*
 * sch_fbs: a host's FBS slot executor (paper: fm-qos-feedback-based-
 * synchronization; Documentation/fbs.rst).
 *
 * The host's column of a global, conflict-free, cyclic slot schedule is
 * the table: per slot, the destination this host may send to, or
 * unreserved.  Traffic is queued per destination (classes MAJ:1 ..
 * MAJ:dests, by skb->priority or tc filters) and best effort (MAJ:dests+1,
 * the default).  In a destination's slot only that destination's class
 * sends; in an unreserved slot best effort does; in a silent slot
 * nothing does (another host's reservation is there).  At most one frame goes
 * per slot, and "frame" bounds it, so a slot is one maximum-size frame
 * at the link rate.
 *
 * The slot clock is core/fbs_exec.h: the next slot starts when the clock
 * says, and, with "credits on", only once the link's credits show that
 * the frame sent in the slot was accepted downstream, if it is feedback
 * (fbs_is_feedback(): best effort on a VC of its own is not).  A node
 * that is ahead of the others finds its frame held in the switch and its
 * credits late by more than the link's own round trip; its next slot
 * starts that much later (half a slot at most while it is in step): the
 * stall is the feedback that keeps all nodes at the pace of the slowest.
 * The switch's input buffer must hold one frame, so that "credits back"
 * means "the frame left".  The link's round trip is learnt (core
 * fbs_feedback); "rate" times frames on the wire to tell it apart.
 * "drift" runs the clock fast or slow, to reproduce what namespaces
 * sharing one clock cannot show.
 *
 * An idle host (nothing queued) is not run; when it is run again it
 * passes the slots that ended meanwhile at once, keeping its place in
 * the schedule, and counts the reserved ones among them as idle (or
 * late, had their class something queued).
 */
#include <linux/if_arp.h>
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

#include "include/uapi/linux/pkt_sched_fbs.h"
#include "core/fbs_exec.h"
#include "core/fbs_next.h"
#include "core/fabric_credit.h"
#include "fabric_hdr.h"
#include "fabric_link.h"
#include "fabric_slot.h"
#include "qdisc_dump.h"
#include "qdisc_gso.h"

#define FBS_DEFAULT_LIMIT	1000
#define FBS_MAX_LIMIT		1000000
#define FBS_MIN_FRAME		ETH_ZLEN
#define FBS_MAX_FRAME		65535
/* fbs-boot has one message and one acknowledgement out at a time */
#define FBS_BOOT_LIMIT		16

struct fbs_class {
	struct qdisc_skb_head	q;
	struct gnet_stats_basic_sync bstats;
	struct gnet_stats_queue	qstats;
	u64			packets, bytes, drops;
	u32			slots;		/* table entries naming it */
};

struct fbs_sched {
	struct tcf_proto __rcu	*filter_list;
	struct tcf_block	*block;
	u16			ndests;		/* classes 1..ndests; ndests+1: best effort */
	struct fbs_class	*classes;
	u16			*table;		/* nslots words, then next's slots */
	u32			nslots;
	struct fbs_next		next;		/* where each class's slots are */
	struct fbs_exec		ex;
	u32			frame;
	u32			limit;
	bool			sent;		/* a frame went in the current slot */
	bool			sent_feedback;	/* its wait in the switch is feedback */
	u8			reserved_vcs;	/* VCs a destination's frame went on
						 * (since verify was last turned) */
	bool			paused;		/* nothing scheduled leaves (fbs-boot) */
	u8			sent_vc;
	u32			sent_len;	/* its bytes on the wire */
	u64			sent_ns;	/* when it went */
	u64			sent_gated_ns;	/* of its lateness, credits (feedback) */
	u64			sent_books;	/* the link's books then (feedback) */
	struct fbs_credit_wait	credit_wait;	/* for the last feedback frame's */
	u64			refused_ns;	/* the link first refused this slot's frame */
	u64			rate;		/* the link's, bytes/s; 0: a slot is
						 * one largest frame on the wire */
	struct fbs_feedback	fb;		/* its round trip, learnt */
	struct qdisc_watchdog	watchdog;
	struct fabric_link	*link;		/* credits on */
	u16			node;		/* our index: the verified frames' sender */
	u64			delay_ns;
	struct fabric_slot_watch *watch;	/* verify on */
	struct qdisc_skb_head	boot;		/* fbs-boot's frames */
	/* statistics */
	u64			reserved_frames, unreserved_frames;
	u64			idle_slots, late_slots;
	u64			oversize, no_slot, table_changes;
	u64			tagged, untagged, restarts, boot_frames, boot_refused;
};

/* A validated configuration, built before anything is changed. */
struct fbs_cfg {
	u16 *table;		/* newly allocated, or NULL: keep the old */
	u32 nslots;
	u64 slot_ns;
	s64 drift_ppb;
	u32 frame;
	u32 limit;
	u16 node;
	u64 delay_ns;
	u64 rate;
};

/* ---- netlink policy ---------------------------------------------------- */

static struct netlink_range_validation fbs_slot_range = {
	.min = TC_FBS_MIN_SLOT_NS,
	.max = TC_FBS_MAX_SLOT_NS,
};

static struct netlink_range_validation_signed fbs_drift_range = {
	.min = -TC_FBS_MAX_DRIFT_PPB,
	.max = TC_FBS_MAX_DRIFT_PPB,
};

static struct netlink_range_validation fbs_frame_range = {
	.min = FBS_MIN_FRAME,
	.max = FBS_MAX_FRAME,
};

static struct netlink_range_validation fbs_limit_range = {
	.min = 1,
	.max = FBS_MAX_LIMIT,
};

static struct netlink_range_validation fbs_delay_range = {
	.min = 0,
	.max = TC_FBS_MAX_SLOT_NS,
};

static const struct nla_policy fbs_policy[TCA_FBS_MAX + 1] = {
	[TCA_FBS_DESTS]		= NLA_POLICY_RANGE(NLA_U16, 1, TC_FBS_MAX_DESTS),
	/* the length is checked by hand, to say so in plain words */
	[TCA_FBS_TABLE]		= { .type = NLA_BINARY, .len = U16_MAX - NLA_HDRLEN },
	[TCA_FBS_SLOT_NS]	= NLA_POLICY_FULL_RANGE(NLA_U32, &fbs_slot_range),
	[TCA_FBS_DRIFT_PPB]	= NLA_POLICY_FULL_RANGE_SIGNED(NLA_S32, &fbs_drift_range),
	[TCA_FBS_FRAME]		= NLA_POLICY_FULL_RANGE(NLA_U32, &fbs_frame_range),
	[TCA_FBS_LIMIT]		= NLA_POLICY_FULL_RANGE(NLA_U32, &fbs_limit_range),
	[TCA_FBS_CREDITS]	= NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_FBS_CREDIT_UNIT]	= { .type = NLA_U32 },	/* range: fabric_link */
	[TCA_FBS_SLOTS]		= { .type = NLA_REJECT },
	[TCA_FBS_NODE]		= NLA_POLICY_MAX(NLA_U16, TC_FBS_MAX_DESTS - 1),
	[TCA_FBS_VERIFY]	= NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_FBS_DELAY_NS]	= NLA_POLICY_FULL_RANGE(NLA_U32, &fbs_delay_range),
	[TCA_FBS_RESTART]	= { .type = NLA_FLAG },
	[TCA_FBS_PAD]		= { .type = NLA_REJECT },
	[TCA_FBS_RATE]		= NLA_POLICY_MIN(NLA_U64, 1),
	[TCA_FBS_RESTART_REAL_NS] = { .type = NLA_U64 },
	[TCA_FBS_PAUSE]		= NLA_POLICY_MAX(NLA_U8, 1),
};

/* ---- helpers ------------------------------------------------------------- */

static u32 fbs_class_id(struct Qdisc *sch, u32 c)
{
	return TC_H_MAKE(sch->handle, c + 1);
}

/* The class of a "minor" arg (1..ndests+1), or NULL. */
static struct fbs_class *fbs_class_from_arg(struct Qdisc *sch, unsigned long arg)
{
	struct fbs_sched *q = qdisc_priv(sch);

	if (!arg || arg > q->ndests + 1U)
		return NULL;
	return &q->classes[arg - 1];
}

/*
 * The class that sends in table slot @t: a destination's, or best
 * effort; NULL in a silent slot.
 */
static struct fbs_class *fbs_slot_class(const struct fbs_sched *q, u32 t)
{
	u16 d = q->table[t];

	if (d == TC_FBS_SILENT)
		return NULL;
	return &q->classes[d == TC_FBS_UNRESERVED ? q->ndests : d];
}

/*
 * Is @skb above "frame"?  With verify on the fabric header's 20 bytes go
 * on at dequeue.  Checked at enqueue, and again for what is queued when a
 * change lowers frame or turns verify on (fbs_trim()).
 */
static bool fbs_too_long(const struct fbs_sched *q, const struct sk_buff *skb)
{
	return skb->len + (q->watch ? FABRIC_HDR_LEN : 0) > q->frame;
}

/* ---- enqueue ------------------------------------------------------------- */

static struct fbs_class *fbs_classify(struct sk_buff *skb, struct Qdisc *sch, int *qerr)
{
	struct fbs_sched *q = qdisc_priv(sch);
	struct fbs_class *be = &q->classes[q->ndests];
	u32 prio = skb->priority;
	struct tcf_result res;
	struct tcf_proto *fl;
	int err;

	*qerr = NET_XMIT_SUCCESS | __NET_XMIT_BYPASS;
	if (TC_H_MAJ(prio) != sch->handle) {
		fl = rcu_dereference_bh(q->filter_list);
		err = fq_tcf_classify(skb, fl, &res);
#ifdef CONFIG_NET_CLS_ACT
		switch (err) {
		case TC_ACT_STOLEN:
		case TC_ACT_QUEUED:
		case TC_ACT_TRAP:
			*qerr = NET_XMIT_SUCCESS | __NET_XMIT_STOLEN;
			fallthrough;
		case TC_ACT_SHOT:
			return NULL;
		}
#endif
		if (!fl || err < 0)
			return be;
		prio = res.classid;
	}
	if (TC_H_MIN(prio) < 1 || TC_H_MIN(prio) > q->ndests)
		return be;
	return &q->classes[TC_H_MIN(prio) - 1];
}

/*
 * A message of the bootstrap ring: it runs before the schedule means
 * anything, so its messages do not wait for slots (Documentation/fbs.rst).
 * Each goes as a fabric control frame: the fabric header (regulated VC,
 * a whole message, a slot to its deadline, the host's route to the
 * destination) around it, so
 * that switches forward it by route as they do the data, and a vcsw
 * port with credits takes it on its VC.  The header goes on here, where
 * a frame that cannot take it is refused before it takes credits.
 */
static int fbs_boot_enqueue(struct sk_buff *skb, struct Qdisc *sch,
			    struct sk_buff **to_free)
{
	struct fbs_sched *q = qdisc_priv(sch);
	struct fhc_fields f = {
		.vc = FABRIC_VC_REGULATED,
		.head = true,
		.tail = true,
		/* due within a slot: not late on arrival, not ahead of data */
		.ttd_ns = fhc_clamp_ttd(q->ex.slot_ns),
	};

	BUILD_BUG_ON(TC_FBS_BOOT_ETHERTYPE != FABRIC_INNER_FBS_BOOT);
	/*
	 * Only a message goes outside the schedule, on the regulated VC: its
	 * own EtherType in the frame (a raw packet socket may say one type and
	 * send another), at least its 12 bytes (the receiver refuses less),
	 * at most a minimum frame (it is 12 bytes and padding).
	 */
	if (q->boot.qlen >= FBS_BOOT_LIMIT || qdisc_dev(sch)->type != ARPHRD_ETHER ||
	    skb->len < ETH_HLEN + FABRIC_FBS_BOOT_LEN || skb->len > ETH_ZLEN ||
	    !pskb_may_pull(skb, ETH_HLEN) ||
	    ((struct ethhdr *)skb->data)->h_proto != htons(FABRIC_INNER_FBS_BOOT) ||
	    fabric_hdr_push(skb, &f)) {
		q->boot_refused++;
		return qdisc_drop(skb, sch, to_free);
	}
	__qdisc_enqueue_tail(skb, &q->boot);
	qdisc_qstats_backlog_inc(sch, skb);
	sch->q.qlen++;
	return NET_XMIT_SUCCESS;
}

static bool fbs_catch_up(struct fbs_sched *q, u64 now);

static int fbs_enqueue_one(struct sk_buff *skb, struct Qdisc *sch,
			   struct sk_buff **to_free)
{
	struct fbs_sched *q = qdisc_priv(sch);
	unsigned int len = qdisc_pkt_len(skb);
	struct fbs_class *cl;
	int err;

	if (unlikely(skb->protocol == htons(TC_FBS_BOOT_ETHERTYPE)))
		return fbs_boot_enqueue(skb, sch, to_free);
	cl = fbs_classify(skb, sch, &err);
	if (unlikely(!cl)) {
		if (err & __NET_XMIT_BYPASS)
			qdisc_qstats_drop(sch);
		__qdisc_drop(skb, to_free);
		return err;
	}
	if (unlikely(fbs_too_long(q, skb))) {
		q->oversize++;
		goto drop;
	}
	/* a class without a slot would hold its packets for ever */
	if (unlikely(!cl->slots)) {
		q->no_slot++;
		goto drop;
	}
	/* per class: a destination whose slots are few must not fill the
	 * queue the others need */
	if (unlikely(cl->q.qlen >= q->limit))
		goto drop;
	/*
	 * The slots that ended before this packet came are judged by the
	 * queues they ended with (fbs_slot_unused()): a host idle for a
	 * while ran no clock, and its next dequeue would find this packet
	 * queued and count every slot of its class since as run late.
	 */
	if (!q->paused)
		fbs_catch_up(q, ktime_get_ns());
	__qdisc_enqueue_tail(skb, &cl->q);
	cl->qstats.backlog += len;
	qdisc_qstats_backlog_inc(sch, skb);
	sch->q.qlen++;
	return NET_XMIT_SUCCESS;
drop:
	cl->drops++;
	cl->qstats.drops++;
	return qdisc_drop(skb, sch, to_free);
}

static int fbs_enqueue_seg(struct sk_buff *seg, struct Qdisc *sch, void *ctx,
			   u32 parts, u8 flags, struct sk_buff **to_free)
{
	return fbs_enqueue_one(seg, sch, to_free);
}

/* A slot carries one wire frame: a GSO packet is queued as its segments. */
static int fbs_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		       struct sk_buff **to_free)
{
	netdev_features_t features;
	struct sk_buff *segs;

	if (!skb_is_gso(skb))
		return fbs_enqueue_one(skb, sch, to_free);
	features = netif_skb_features(skb);
	segs = skb_gso_segment(skb, features & ~NETIF_F_GSO_MASK);
	if (IS_ERR_OR_NULL(segs))
		return qdisc_drop(skb, sch, to_free);
	return fq_enqueue_segments(skb, segs, sch, fbs_enqueue_seg, NULL, to_free);
}

/* ---- the slot clock -------------------------------------------------------- */

/*
 * How long after its slot began a frame is expected at its receiver:
 * "delay", or one slot (a frame that fills its slot, one hop).
 */
static u64 fbs_delay(const struct fbs_sched *q)
{
	return q->delay_ns ? q->delay_ns : q->ex.slot_ns;
}

/* The current slot ends without its frame: count a reserved one. */
static void fbs_slot_unused(struct fbs_sched *q, u32 t, u64 times)
{
	u16 d = q->table[t];

	if (d == TC_FBS_UNRESERVED || d == TC_FBS_SILENT)
		return;
	if (q->classes[d].q.qlen)
		q->late_slots += times;
	else
		q->idle_slots += times;
}

/*
 * Pass @n slots from slot @first on, nothing sent in them: each table
 * entry counted as often as it comes round.
 */
static void fbs_pass(struct fbs_sched *q, u64 n)
{
	u64 rounds = div_u64(n, q->nslots);
	u32 rest = n - rounds * q->nslots, i, t = q->ex.slot;

	for (i = 0; i < q->nslots && (rounds || i < rest); i++) {
		fbs_slot_unused(q, t, rounds + (i < rest));
		t = t + 1 == q->nslots ? 0 : t + 1;
	}
	fbs_exec_jump(&q->ex, n);
}

/* How long a frame of @len bytes is on the wire of the link. */
static u64 fbs_wire_ns(const struct fbs_sched *q, u32 len)
{
	if (q->rate)
		return div64_u64((u64)len * NSEC_PER_SEC, q->rate);
	return div_u64(q->ex.slot_ns * len, q->frame);
}

/*
 * How much of the lateness of a frame that goes at @now was back-pressure
 * (fbs_feedback_held()): from the slot's start until the last frame's
 * credits were back, when they came back within this slot, and from the
 * link's first refusal of this frame until now.
 */
static u64 fbs_gated_ns(const struct fbs_sched *q, u64 now)
{
	u64 gated = fbs_credit_wait_gated(&q->credit_wait, &q->ex, now);

	if (q->refused_ns && now > q->refused_ns)
		gated += now - max(q->refused_ns, q->ex.slot_start);
	return gated;
}

/* A new slot: nothing sent in it, no wait for credits under way. */
static void fbs_slot_fresh(struct fbs_sched *q)
{
	q->sent = false;
	q->refused_ns = 0;
}

/*
 * End the slots the clock has ended by @now.  False while the end of the
 * current one waits for the link's credits (the link runs us again when
 * they come back).
 */
static bool fbs_catch_up(struct fbs_sched *q, u64 now)
{
	u64 n;

	while (now >= fbs_exec_due(&q->ex)) {
		u64 held = 0, back;

		/*
		 * Books started again since (the device went down and up,
		 * a new unit, the peer restarted): the credits that come
		 * are the new books' grant, not the frame's return, and
		 * waiting for them would take the restart for back-pressure
		 */
		if (q->sent && q->sent_feedback && q->link &&
		    fabric_link_books_gen(q->link) == q->sent_books) {
			if (!fabric_link_room(q->link, q->sent_vc, q->frame, &back))
				return false;
			/* how far the switch held it beyond the link's own trip */
			held = fbs_feedback_held(&q->fb, &q->ex, q->sent_ns, back,
						 fbs_wire_ns(q, q->sent_len),
						 q->sent_gated_ns);
			/* the next frame waits for them if they came late */
			fbs_credit_wait_back(&q->credit_wait, back);
		}
		if (!q->sent)
			fbs_slot_unused(q, q->ex.slot, 1);
		fbs_exec_advance(&q->ex, held);
		/* not a wait anew for credits a push has answered */
		fbs_credit_wait_advanced(&q->credit_wait, &q->ex, held);
		fbs_slot_fresh(q);
		/* a host that was not run for a while passes the rest at once */
		n = fbs_exec_slots_until(&q->ex, now);
		if (n > 1)
			fbs_pass(q, n - 1);
		if (q->watch)
			fabric_slot_watch_set(q->watch, &q->ex, fbs_delay(q), q->rate, q->frame);
	}
	return true;
}

/*
 * Slots from the current one on until one whose class, other than
 * @skip (may be NULL), has something queued, within a period; 0 when
 * none does (nothing queued can go).  Each class with packets is looked
 * up in the table's index (core fbs_next.h), not the table walked: a
 * period of 32000 slots, walked at every dequeue that sent nothing, cost
 * some 28 us under the lock.
 */
static u32 fbs_slots_to_next_send(const struct fbs_sched *q,
				  const struct fbs_class *skip)
{
	u32 c, k, best = 0;

	for (c = 0; c <= q->ndests; c++) {
		if (!q->classes[c].q.qlen || &q->classes[c] == skip)
			continue;
		k = fbs_next_in(&q->next, c, q->ex.slot, q->nslots);
		if (k && (!best || k < best))
			best = k;
	}
	return best;
}

/*
 * Is the wait in the switch of a frame of class @cl, going on @vc, the
 * clock's feedback?  A destination's frame is.  Best effort in an
 * unreserved slot may meet other hosts' in the switch, as the schedule
 * allows, so its wait says nothing of our clock, and waiting for its
 * VC's room would let best effort that is congested stop the reserved
 * slots after it.  Unless it shares a VC with the destinations' frames
 * (untagged frames, or a header that says so): then it holds the buffer
 * their next frame needs, and the slot's end waits for it as before, so
 * that the next reserved frame finds room in its own slot.
 */
static bool fbs_is_feedback(struct fbs_sched *q, const struct fbs_class *cl,
			    unsigned int vc)
{
	u8 bit = 1U << (vc & 7);

	if (cl != &q->classes[q->ndests]) {
		q->reserved_vcs |= bit;
		return true;
	}
	return q->reserved_vcs & bit;
}

/*
 * Verify on: whether @skb will carry the fabric header, which
 * fabric_hdr_push() gives only frames of a type the fabric carries.
 */
static bool fbs_tags(struct Qdisc *sch, const struct sk_buff *skb)
{
	const struct fbs_sched *q = qdisc_priv(sch);

	/* the device's type as it is now: a bond takes its first slave's */
	return q->watch && qdisc_dev(sch)->type == ARPHRD_ETHER && skb_headlen(skb) >= ETH_HLEN &&
	       fhc_inner_probe_len(ntohs(((const struct ethhdr *)skb->data)->h_proto));
}

/*
 * Mark @skb with the current slot and our node.  Its deadline: the end
 * of the half slot the receiver allows after its expected arrival.  A
 * frame that cannot carry the header (or for which memory was short,
 * @tag false) goes without and is counted; the receiver does not judge
 * it.
 */
static void fbs_tag(struct fbs_sched *q, struct sk_buff *skb, bool tag,
		    unsigned int vc, u64 now)
{
	u64 due = q->ex.slot_start + fbs_delay(q) + q->ex.slot_ns / 2;
	struct fhc_fields f = {
		.vc = vc,
		/* past due already: negative, so the receiver's latency holds */
		.ttd_ns = fhc_clamp_ttd((s64)due - (s64)now),
		.flow_id = FABRIC_SLOT_TAG | q->node,
		.seq = q->ex.slot,
	};

	if (tag && !fabric_hdr_push(skb, &f))
		q->tagged++;
	else
		q->untagged++;
}

/*
 * @cl's head (@boot: fbs-boot's) is larger than the link's peer can ever
 * take: dropped, so that it holds up neither its slots nor the rest.
 */
static noinline void fbs_drop_too_big(struct Qdisc *sch, struct fbs_class *cl, bool boot)
{
	struct fbs_sched *q = qdisc_priv(sch);
	struct sk_buff *skb;

	if (boot) {
		skb = __qdisc_dequeue_head(&q->boot);
	} else {
		skb = __qdisc_dequeue_head(&cl->q);
		cl->qstats.backlog -= qdisc_pkt_len(skb);
		cl->drops++;
		cl->qstats.drops++;
	}
	qdisc_qstats_backlog_dec(sch, skb);
	sch->q.qlen--;
	fabric_dequeue_drop(sch, skb);
}

static struct sk_buff *fbs_dequeue(struct Qdisc *sch)
{
	struct fbs_sched *q = qdisc_priv(sch);
	enum fabric_link_verdict v;
	unsigned int vc, len;
	struct fbs_class *cl, *refused = NULL;
	struct sk_buff *skb;
	u64 now = ktime_get_ns();
	u32 k;

	/* each turn drops a frame too big for the peer off the queue, if any */
again:
	if (unlikely(q->boot.head)) {
		skb = q->boot.head;
		v = q->link ? fabric_link_take(q->link, FABRIC_VC_REGULATED, skb->len) :
			      FABRIC_LINK_GO;
		if (v == FABRIC_LINK_WAIT)
			return NULL;
		if (unlikely(v == FABRIC_LINK_TOO_BIG)) {
			fbs_drop_too_big(sch, NULL, true);
			goto again;
		}
		skb = __qdisc_dequeue_head(&q->boot);
		q->boot_frames++;
		qdisc_qstats_backlog_dec(sch, skb);
		sch->q.qlen--;
		qdisc_bstats_update(sch, skb);
		return skb;
	}
	/* fbs-boot's ring runs: the schedule waits for its restart */
	if (q->paused)
		return NULL;
	if (!fbs_catch_up(q, now))
		return NULL;
	/* a slot pushed back by feedback begins later than now */
	if (now < q->ex.slot_start) {
		qdisc_watchdog_schedule_ns(&q->watchdog, q->ex.slot_start);
		return NULL;
	}
	cl = fbs_slot_class(q, q->ex.slot);
	if (!q->sent && cl) {
		skb = cl->q.head;
		/* too late to end in this slot: it waits for its next one */
		if (skb && now > fbs_exec_send_by(&q->ex, fbs_wire_ns(q, skb->len +
				(fbs_tags(sch, skb) ? FABRIC_HDR_LEN : 0))))
			skb = NULL;
		if (skb) {
			/*
			 * The header's room first: the credits taken below
			 * count the frame as it leaves, so the push after
			 * them must not fail for memory
			 */
			bool tag = fbs_tags(sch, skb) && !fabric_hdr_make_room(skb);

			vc = tag ? (cl == &q->classes[q->ndests] ? FABRIC_VC_BESTEFFORT :
				    FABRIC_VC_REGULATED) : fabric_link_skb_vc(q->link, skb);
			/*
			 * Refused: the link runs us again when credits on that
			 * VC come, which may be never in this slot; another
			 * class's slot must not wait for them, so the timer is
			 * armed for the next one (below), though not for this
			 * class's own: a timer per slot until the credits came
			 * would tell nothing the link's wake does not.
			 */
			v = q->link ? fabric_link_take(q->link, vc,
						       skb->len + (tag ? FABRIC_HDR_LEN : 0)) :
				      FABRIC_LINK_GO;
			if (unlikely(v == FABRIC_LINK_TOO_BIG)) {
				fbs_drop_too_big(sch, cl, false);
				goto again;
			}
			if (v == FABRIC_LINK_WAIT) {
				if (!q->refused_ns)
					q->refused_ns = now;
				refused = cl;
				goto arm;
			}
			skb = __qdisc_dequeue_head(&cl->q);
			len = qdisc_pkt_len(skb);
			if (q->watch)
				fbs_tag(q, skb, tag, vc, now);
			q->sent = true;
			q->sent_feedback = fbs_is_feedback(q, cl, vc);
			q->sent_vc = vc;
			q->sent_len = skb->len;
			q->sent_ns = now;
			/* only a feedback frame's wait is read (fbs_catch_up()) */
			if (q->sent_feedback) {
				q->sent_gated_ns = fbs_gated_ns(q, now);
				if (q->link)
					q->sent_books = fabric_link_books_gen(q->link);
			}
			q->refused_ns = 0;
			if (cl == &q->classes[q->ndests])
				q->unreserved_frames++;
			else
				q->reserved_frames++;
			cl->qstats.backlog -= len;
			cl->packets++;
			cl->bytes += len;
			_bstats_update(&cl->bstats, len, 1);
			qdisc_qstats_backlog_dec(sch, skb);
			sch->q.qlen--;
			qdisc_bstats_update(sch, skb);
			return skb;
		}
	}
arm:
	/* the next slot that has something to send, or the next slot */
	if (sch->q.qlen) {
		u64 at = fbs_exec_due(&q->ex);

		k = fbs_slots_to_next_send(q, refused);
		if (!k && refused)
			return NULL;
		if (k > 1)
			at = q->ex.slot_start +
			     fq_mul_div64(k, q->ex.slot_ns * (u64)FBS_EXEC_PPB,
					  (u64)(FBS_EXEC_PPB + q->ex.drift_ppb));
		qdisc_watchdog_schedule_ns(&q->watchdog, at);
	}
	return NULL;
}

/* ---- configuration ------------------------------------------------------- */

/*
 * Check @tb against the current state (@init: none yet) and fill @cfg;
 * allocates cfg->table when a table is given or made by default.
 */
static int fbs_prepare(struct Qdisc *sch, struct nlattr **tb, u16 ndests, bool init,
		       struct fbs_cfg *cfg, struct netlink_ext_ack *extack)
{
	struct fbs_sched *q = qdisc_priv(sch);
	u32 i;

	cfg->table = NULL;
	if (init && !tb[TCA_FBS_SLOT_NS]) {
		NL_SET_ERR_MSG_MOD(extack, "\"slot TIME\" (or \"rate\") is required: a slot is one largest frame at the link rate");
		return -EINVAL;
	}
	cfg->slot_ns = tb[TCA_FBS_SLOT_NS] ? nla_get_u32(tb[TCA_FBS_SLOT_NS]) : q->ex.slot_ns;
	cfg->drift_ppb = tb[TCA_FBS_DRIFT_PPB] ? nla_get_s32(tb[TCA_FBS_DRIFT_PPB]) :
			 init ? 0 : q->ex.drift_ppb;
	cfg->frame = tb[TCA_FBS_FRAME] ? nla_get_u32(tb[TCA_FBS_FRAME]) :
		     init ? clamp_t(u32, psched_mtu(qdisc_dev(sch)), FBS_MIN_FRAME,
				    FBS_MAX_FRAME) : q->frame;
	cfg->limit = tb[TCA_FBS_LIMIT] ? nla_get_u32(tb[TCA_FBS_LIMIT]) :
		     init ? FBS_DEFAULT_LIMIT : q->limit;
	cfg->node = tb[TCA_FBS_NODE] ? nla_get_u16(tb[TCA_FBS_NODE]) : init ? 0 : q->node;
	cfg->delay_ns = tb[TCA_FBS_DELAY_NS] ? nla_get_u32(tb[TCA_FBS_DELAY_NS]) :
			init ? 0 : q->delay_ns;
	cfg->rate = tb[TCA_FBS_RATE] ? nla_get_u64(tb[TCA_FBS_RATE]) : init ? 0 : q->rate;
	/* cannot overflow: frame under 2^17, 10^9 under 2^30 */
	if (cfg->rate &&
	    div64_u64((u64)cfg->frame * NSEC_PER_SEC, cfg->rate) > cfg->slot_ns) {
		NL_SET_ERR_MSG_MOD(extack, "the largest frame takes longer than a slot at this rate");
		return -EINVAL;
	}

	if (tb[TCA_FBS_TABLE]) {
		const u16 *e = nla_data(tb[TCA_FBS_TABLE]);
		u32 len = nla_len(tb[TCA_FBS_TABLE]);

		if (!len || len % sizeof(u16)) {
			NL_SET_ERR_MSG_MOD(extack, "the table is not a whole number of slots");
			return -EINVAL;
		}
		cfg->nslots = len / sizeof(u16);
		if (cfg->nslots > TC_FBS_MAX_SLOTS) {
			NL_SET_ERR_MSG_MOD(extack, "too many slots (at most 32000)");
			return -EINVAL;
		}
		for (i = 0; i < cfg->nslots; i++) {
			if (e[i] != TC_FBS_UNRESERVED && e[i] != TC_FBS_SILENT && e[i] >= ndests) {
				NL_SET_ERR_MSG_MOD(extack, "a slot names a destination that does not exist");
				return -EINVAL;
			}
		}
		/* with room for the index (fbs_commit()) */
		cfg->table = kvmalloc_array(cfg->nslots, 2 * sizeof(u16), GFP_KERNEL);
		if (!cfg->table)
			return -ENOMEM;
		memcpy(cfg->table, e, len);
	} else if (init) {
		/* a slot per destination, in order, then one for best effort */
		cfg->nslots = ndests + 1;
		cfg->table = kvcalloc(cfg->nslots, 2 * sizeof(u16), GFP_KERNEL);
		if (!cfg->table)
			return -ENOMEM;
		for (i = 0; i < ndests; i++)
			cfg->table[i] = i;
		cfg->table[ndests] = TC_FBS_UNRESERVED;
	} else {
		cfg->nslots = q->nslots;
	}
	return 0;
}

/* Install @cfg; under sch_tree_lock unless @init.  Returns the old table. */
static u16 *fbs_commit(struct Qdisc *sch, struct fbs_cfg *cfg)
{
	struct fbs_sched *q = qdisc_priv(sch);
	u16 *old = NULL;
	u64 wire;
	u32 i;

	if (cfg->table) {
		old = q->table;
		q->table = cfg->table;
		q->nslots = cfg->nslots;
		cfg->table = NULL;
		for (i = 0; i <= q->ndests; i++)
			q->classes[i].slots = 0;
		for (i = 0; i < q->nslots; i++) {
			struct fbs_class *cl = fbs_slot_class(q, i);

			if (cl)
				cl->slots++;
		}
		fbs_next_build(&q->next, q->table, q->nslots, q->ndests,
			       q->table + q->nslots);
	}
	/* the clock keeps its phase; a shorter period wraps its position */
	q->ex.slot_ns = cfg->slot_ns;
	q->ex.drift_ppb = cfg->drift_ppb;
	q->ex.rem = 0;
	q->ex.slots = q->nslots;
	if (q->ex.slot >= q->nslots)
		q->ex.slot %= q->nslots;
	q->frame = cfg->frame;
	q->limit = cfg->limit;
	q->node = cfg->node;
	q->delay_ns = cfg->delay_ns;
	if (q->rate != cfg->rate)
		fbs_feedback_init(&q->fb, 0);	/* frames timed otherwise now */
	q->rate = cfg->rate;
	/* the link's own round trip is at most what a slot leaves a frame */
	wire = fbs_wire_ns(q, q->frame);
	q->fb.cap_ns = q->ex.slot_ns > wire ? q->ex.slot_ns - wire : 0;
	if (q->watch)
		fabric_slot_watch_set(q->watch, &q->ex, fbs_delay(q), q->rate, q->frame);
	return old;
}

/* @skb, just taken off @cl's queue, goes: a change left no place for it. */
static void fbs_trim_drop(struct Qdisc *sch, struct fbs_class *cl, struct sk_buff *skb,
			  unsigned int *dropped, unsigned int *bytes)
{
	cl->qstats.backlog -= qdisc_pkt_len(skb);
	cl->drops++;
	cl->qstats.drops++;
	(*dropped)++;
	*bytes += qdisc_pkt_len(skb);
	qdisc_qstats_backlog_dec(sch, skb);
	sch->q.qlen--;
	qdisc_qstats_drop(sch);
	rtnl_kfree_skbs(skb, skb);
}

/*
 * Drop what a change left that may not stay: with @recheck (frame
 * lowered, or verify turned on) the frames now too long; then the
 * packets of classes without a slot, and those over the limit.
 */
static void fbs_trim(struct Qdisc *sch, bool recheck)
{
	struct fbs_sched *q = qdisc_priv(sch);
	unsigned int dropped = 0, bytes = 0, n;
	struct fbs_class *cl;
	struct sk_buff *skb;
	u32 i;

	for (i = 0; i <= q->ndests; i++) {
		cl = &q->classes[i];
		/*
		 * a frame queued before a smaller frame, or verify on, would
		 * run past its slot, or over the device's MTU with its header
		 */
		for (n = recheck ? cl->q.qlen : 0; n; n--) {
			skb = __qdisc_dequeue_head(&cl->q);
			if (fbs_too_long(q, skb)) {
				q->oversize++;
				fbs_trim_drop(sch, cl, skb, &dropped, &bytes);
			} else {
				__qdisc_enqueue_tail(skb, &cl->q);
			}
		}
		while (cl->q.qlen && (!cl->slots || cl->q.qlen > q->limit))
			fbs_trim_drop(sch, cl, __qdisc_dequeue_head(&cl->q), &dropped, &bytes);
	}
	if (dropped)
		qdisc_tree_reduce_backlog(sch, dropped, bytes);
}

/*
 * The device's slot watch after @on (absent: as it is): a new one, the
 * current one, NULL, or an error pointer.
 */
static struct fabric_slot_watch *fbs_verify_configure(struct Qdisc *sch,
						      struct fabric_slot_watch *cur,
						      const struct nlattr *on,
						      struct netlink_ext_ack *extack)
{
	if (!on)
		return cur;
	if (!nla_get_u8(on))
		return NULL;
	/*
	 * The tag is a fabric header after an Ethernet one: on a device of
	 * another type (tun, ipip, wireguard) bytes 12 and 13 of the
	 * packet are part of its IP header, and one whose bytes happened
	 * to read as IPv4 or IPv6 would get a header pushed into it
	 */
	if (qdisc_dev(sch)->type != ARPHRD_ETHER) {
		NL_SET_ERR_MSG_MOD(extack, "verify needs an Ethernet device");
		return ERR_PTR(-EOPNOTSUPP);
	}
	return cur ? cur : fabric_slot_watch_get(qdisc_dev(sch), extack);
}

/*
 * A restart's time, when given, is a moment of the last minute by this
 * host's CLOCK_REALTIME (a frame's receive timestamp, as a packet socket
 * reads it): fbs-boot's start signal, stamped as it arrived, so that
 * however late the tool ran after it, every host's slot 0 begins at the
 * signal (Documentation/fbs.rst, "Bootstrap").  A follower takes the
 * signal during its ring's last round and restarts when that round
 * ends: on a debug kernel under TCG rounds took up to 33 s, and a bound
 * of a second failed the bootstrap there.  Any past moment gives the
 * right slot clock (fbs_restart_at: the executor jumps the slots since,
 * at once); the bound only refuses a time that cannot be a signal's.
 */
#define FBS_RESTART_MAX_AGE_NS	(60ULL * NSEC_PER_SEC)

static int fbs_restart_check(struct nlattr **tb, struct netlink_ext_ack *extack)
{
	u64 now = ktime_get_real_ns(), at;

	if (!tb[TCA_FBS_RESTART_REAL_NS])
		return 0;
	if (!tb[TCA_FBS_RESTART]) {
		NL_SET_ERR_MSG_MOD(extack, "a restart time goes with \"restart\"");
		return -EINVAL;
	}
	at = nla_get_u64(tb[TCA_FBS_RESTART_REAL_NS]);
	if (at > now || now - at > FBS_RESTART_MAX_AGE_NS) {
		NL_SET_ERR_MSG_MOD(extack, "the restart time is not within the last minute");
		return -EINVAL;
	}
	return 0;
}

/* The slot clock's time of a restart at @real (absent: now), checked. */
static u64 fbs_restart_at(const struct nlattr *real)
{
	u64 now = ktime_get_ns(), at, real_now;

	if (!real)
		return now;
	real_now = ktime_get_real_ns();
	at = nla_get_u64(real);
	/* a realtime clock set back since the check: now */
	if (at > real_now || real_now - at > now)
		return now;
	return now - (real_now - at);
}

/*
 * Paused: pass the slots up to @now's, or the one before it (the count
 * is at most one short), uncounted, nothing sent in them.
 */
static void fbs_pass_paused(struct fbs_sched *q, u64 now)
{
	u64 n = fbs_exec_slots_until(&q->ex, now);

	if (n > 1) {
		fbs_slot_fresh(q);
		fbs_exec_jump(&q->ex, n - 1);
	}
}

/*
 * "pause off": the clock goes on where it is.  The slots the pause
 * spanned pass at once, counted neither idle nor late (nothing was to
 * go in them), and a frame sent before the pause is done with.
 */
static void fbs_resume(struct fbs_sched *q, u64 now)
{
	q->paused = false;
	fbs_pass_paused(q, now);
}

/*
 * Bring the clock to @now by the slot length and drift it ran under,
 * before a change installs others.  An idle host, or one that only
 * receives and judges, runs its clock only when it sends, so its current
 * slot may have begun long ago: counted from there at a new length, the
 * slots since would put the clock many slots off at once.  Running, the
 * slots passed are counted as a dequeue counts them (false: the current
 * slot waits for the link's credits, and its end is still to come);
 * paused, they pass uncounted, as at the pause's end.
 */
static void fbs_clock_to(struct fbs_sched *q, u64 now)
{
	if (!q->paused) {
		fbs_catch_up(q, now);
		return;
	}
	fbs_pass_paused(q, now);
	/* and the rest, so that the slot @now is in begins by the old length */
	while (now >= fbs_exec_due(&q->ex)) {
		fbs_exec_advance(&q->ex, 0);
		fbs_slot_fresh(q);
	}
}

/*
 * "credits" and "credit_unit" (fabric_link_configure()), and a link new
 * to the qdisc claimed for it alone: its slots wait for its own frames'
 * credits, and a sibling under mq sharing the books would hold them
 * with its frames (Documentation/fbs.rst, credits).
 */
static struct fabric_link *fbs_link_configure(struct Qdisc *sch,
					      struct fabric_link *cur,
					      struct nlattr **tb,
					      struct netlink_ext_ack *extack)
{
	struct fabric_link *link;
	int err;

	link = fabric_link_configure(sch, cur, tb[TCA_FBS_CREDITS],
				     tb[TCA_FBS_CREDIT_UNIT], FCR_DEFAULT_VCS, extack);
	if (IS_ERR_OR_NULL(link) || link == cur)
		return link;
	err = fabric_link_claim_alone(link, extack);
	if (err) {
		fabric_link_put(link);
		return ERR_PTR(err);
	}
	return link;
}

static int fbs_change(struct Qdisc *sch, struct nlattr *opt,
		      struct netlink_ext_ack *extack)
{
	struct fbs_sched *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_FBS_MAX + 1];
	struct fabric_slot_watch *watch, *old_watch;
	struct fabric_link *link, *old_link;
	struct fbs_cfg cfg;
	bool recheck;
	u16 *old;
	int err;

	if (!opt) {
		NL_SET_ERR_MSG_MOD(extack, "options are required");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, TCA_FBS_MAX, opt, fbs_policy, extack);
	if (err < 0)
		return err;
	if (tb[TCA_FBS_DESTS] && nla_get_u16(tb[TCA_FBS_DESTS]) != q->ndests) {
		NL_SET_ERR_MSG_MOD(extack, "the number of destinations cannot change");
		return -EINVAL;
	}
	err = fbs_restart_check(tb, extack);
	if (err)
		return err;
	if (tb[TCA_FBS_RESTART] && tb[TCA_FBS_PAUSE] && nla_get_u8(tb[TCA_FBS_PAUSE])) {
		NL_SET_ERR_MSG_MOD(extack, "\"restart\" ends a pause: not both");
		return -EINVAL;
	}
	err = fbs_prepare(sch, tb, q->ndests, false, &cfg, extack);
	if (err)
		return err;
	watch = fbs_verify_configure(sch, q->watch, tb[TCA_FBS_VERIFY], extack);
	if (IS_ERR(watch)) {
		kvfree(cfg.table);
		return PTR_ERR(watch);
	}
	link = fbs_link_configure(sch, q->link, tb, extack);
	if (IS_ERR(link)) {
		if (watch && watch != q->watch)
			fabric_slot_watch_put(watch);
		kvfree(cfg.table);
		return PTR_ERR(link);
	}

	sch_tree_lock(sch);
	fbs_clock_to(q, ktime_get_ns());
	if (cfg.table)
		q->table_changes++;
	if (tb[TCA_FBS_PAUSE]) {
		if (nla_get_u8(tb[TCA_FBS_PAUSE]))
			q->paused = true;
		else if (q->paused)
			fbs_resume(q, ktime_get_ns());
	}
	if (tb[TCA_FBS_RESTART]) {
		/*
		 * A bootstrap (fbs-boot) brought the hosts together: slot 0
		 * begins now, or when its start signal arrived here, nothing
		 * sent in it yet, no wait pending
		 */
		q->ex.slot = 0;
		q->ex.slot_start = fbs_restart_at(tb[TCA_FBS_RESTART_REAL_NS]);
		q->ex.rem = 0;
		fbs_slot_fresh(q);
		q->paused = false;
		q->restarts++;
	}
	/* only a smaller frame, or the header's 20 bytes, can make one too long */
	recheck = cfg.frame < q->frame || (watch && !q->watch);
	old_watch = q->watch;
	/* frames tagged or not go on other VCs from here: learn them anew */
	if (!watch != !q->watch)
		q->reserved_vcs = 0;
	q->watch = watch;
	old = fbs_commit(sch, &cfg);	/* publishes the clock on the watch */
	old_link = q->link;
	q->link = link;
	/* what the last frame's credits say is the old link's business */
	if (link != old_link)
		q->sent_feedback = false;
	fbs_trim(sch, recheck);
	sch_tree_unlock(sch);
	kvfree(old);
	if (old_link && old_link != link)
		fabric_link_put(old_link);
	if (old_watch && old_watch != watch)
		fabric_slot_watch_put(old_watch);
	/* a new clock, or no more waiting for credits: run again */
	qdisc_watchdog_cancel(&q->watchdog);
	__netif_schedule(qdisc_root(sch));
	return 0;
}

static int fbs_init(struct Qdisc *sch, struct nlattr *opt,
		    struct netlink_ext_ack *extack)
{
	struct fbs_sched *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_FBS_MAX + 1];
	struct fabric_slot_watch *watch;
	struct fabric_link *link;
	struct fbs_cfg cfg;
	u16 ndests;
	int err;
	u32 i;

	qdisc_watchdog_init(&q->watchdog, sch);
	err = tcf_block_get(&q->block, &q->filter_list, sch, extack);
	if (err)
		return err;
	if (!opt) {
		NL_SET_ERR_MSG_MOD(extack, "\"dests N\" and \"slot TIME\" are required");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, TCA_FBS_MAX, opt, fbs_policy, extack);
	if (err < 0)
		return err;
	if (tb[TCA_FBS_RESTART] || tb[TCA_FBS_RESTART_REAL_NS]) {
		NL_SET_ERR_MSG_MOD(extack, "\"restart\" is for a change: a new qdisc starts at slot 0 anyway");
		return -EINVAL;
	}
	if (!tb[TCA_FBS_DESTS]) {
		NL_SET_ERR_MSG_MOD(extack, "\"dests N\" is required");
		return -EINVAL;
	}
	ndests = nla_get_u16(tb[TCA_FBS_DESTS]);
	err = fbs_prepare(sch, tb, ndests, true, &cfg, extack);
	if (err)
		return err;
	watch = fbs_verify_configure(sch, NULL, tb[TCA_FBS_VERIFY], extack);
	if (IS_ERR(watch)) {
		kvfree(cfg.table);
		return PTR_ERR(watch);
	}
	q->watch = watch;	/* destroy() puts it if what follows fails */
	q->classes = kcalloc(ndests + 1, sizeof(*q->classes), GFP_KERNEL);
	if (!q->classes) {
		kvfree(cfg.table);
		return -ENOMEM;
	}
	/* the queues start empty: kcalloc's zeros */
	for (i = 0; i <= ndests; i++)
		gnet_stats_basic_sync_init(&q->classes[i].bstats);
	q->ndests = ndests;
	if (!fbs_exec_init(&q->ex, cfg.slot_ns, cfg.drift_ppb, cfg.nslots, ktime_get_ns())) {
		/* the policy keeps every value in range: not reached */
		kvfree(cfg.table);
		return -EINVAL;
	}
	/*
	 * The credit link last of what may fail: taking one up tells the
	 * peer of a new epoch (fabric_link_configure()), which a refused
	 * qdisc must not have done
	 */
	link = fbs_link_configure(sch, NULL, tb, extack);
	if (IS_ERR(link)) {
		kvfree(cfg.table);
		return PTR_ERR(link);
	}
	q->link = link;
	fbs_feedback_init(&q->fb, 0);	/* capped by fbs_commit() */
	/* created paused: the first restart starts it */
	q->paused = tb[TCA_FBS_PAUSE] && nla_get_u8(tb[TCA_FBS_PAUSE]);
	fbs_commit(sch, &cfg);		/* nothing old to free */
	return 0;
}

static void fbs_purge(struct Qdisc *sch)
{
	struct fbs_sched *q = qdisc_priv(sch);
	u32 i;

	rtnl_kfree_skbs(q->boot.head, q->boot.tail);
	q->boot.head = q->boot.tail = NULL;
	q->boot.qlen = 0;
	if (!q->classes)
		return;
	for (i = 0; i <= q->ndests; i++) {
		struct fbs_class *cl = &q->classes[i];

		rtnl_kfree_skbs(cl->q.head, cl->q.tail);
		cl->q.head = cl->q.tail = NULL;
		cl->q.qlen = 0;
		cl->qstats.backlog = 0;
	}
}

static void fbs_reset(struct Qdisc *sch)
{
	struct fbs_sched *q = qdisc_priv(sch);

	fbs_purge(sch);
	sch->q.qlen = 0;
	sch->qstats.backlog = 0;
	qdisc_watchdog_cancel(&q->watchdog);
}

static void fbs_destroy(struct Qdisc *sch)
{
	struct fbs_sched *q = qdisc_priv(sch);

	qdisc_watchdog_cancel(&q->watchdog);
	tcf_block_put(q->block);
	fbs_purge(sch);
	kfree(q->classes);
	kvfree(q->table);
	if (q->link)
		fabric_link_put(q->link);
	if (q->watch)
		fabric_slot_watch_put(q->watch);
}

static int fbs_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct fbs_sched *q = qdisc_priv(sch);
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;
	if (nla_put_u16(skb, TCA_FBS_DESTS, q->ndests) ||
	    nla_put_u32(skb, TCA_FBS_SLOT_NS, (u32)q->ex.slot_ns) ||
	    nla_put_s32(skb, TCA_FBS_DRIFT_PPB, (s32)q->ex.drift_ppb) ||
	    nla_put_u32(skb, TCA_FBS_FRAME, q->frame) ||
	    nla_put_u32(skb, TCA_FBS_LIMIT, q->limit) ||
	    nla_put_u32(skb, TCA_FBS_SLOTS, q->nslots) ||
	    nla_put_u16(skb, TCA_FBS_NODE, q->node) ||
	    nla_put_u8(skb, TCA_FBS_VERIFY, !!q->watch) ||
	    nla_put_u32(skb, TCA_FBS_DELAY_NS, (u32)q->delay_ns) ||
	    (q->rate && nla_put_u64_64bit(skb, TCA_FBS_RATE, q->rate, TCA_FBS_PAD)) ||
	    nla_put_u8(skb, TCA_FBS_CREDITS, !!q->link) ||
	    nla_put_u8(skb, TCA_FBS_PAUSE, q->paused) ||
	    (q->link && nla_put_u32(skb, TCA_FBS_CREDIT_UNIT, fabric_link_unit(q->link))))
		goto nla_put_failure;
	/*
	 * A long table does not fit a netlink message with the rest: rather
	 * than make the qdisc vanish from dumps, it is left out (the slot
	 * count above still says how long it is).
	 */
	if (fq_qdisc_dump_fits(skb, sizeof(u16) * q->nslots,
			       sizeof(struct tc_fbs_xstats)) &&
	    nla_put(skb, TCA_FBS_TABLE, sizeof(u16) * q->nslots, q->table))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

/*
 * Statistics are dumped under RTNL only (no qdisc lock since 5.17): a
 * snapshot under sch_tree_lock(), copied out after it.
 */
static int fbs_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct fbs_sched *q = qdisc_priv(sch);
	struct tc_fbs_xstats st = { .type = TC_FBS_XSTATS_QDISC };

	sch_tree_lock(sch);
	st.slot = q->ex.slot;
	st.slots = q->ex.executed;
	st.stalls = q->ex.stalls;
	st.stall_ns = q->ex.stall_ns;
	st.reserved_frames = q->reserved_frames;
	st.unreserved_frames = q->unreserved_frames;
	st.idle_slots = q->idle_slots;
	st.late_slots = q->late_slots;
	st.oversize = q->oversize;
	st.no_slot = q->no_slot;
	st.table_changes = q->table_changes;
	st.tagged = q->tagged;
	st.untagged = q->untagged;
	st.restarts = q->restarts;
	st.boot_frames = q->boot_frames;
	st.boot_refused = q->boot_refused;
	/* learnt from credits: without them only the cap, which says nothing */
	st.link_trip_ns = q->link ? fbs_feedback_base(&q->fb) : 0;
	st.slot_start_ns = q->ex.slot_start;
	BUILD_BUG_ON(FBS_LAT_BUCKETS != TC_FBS_LAT_BUCKETS ||
		     FBS_LAT_PER_SLOT != TC_FBS_LAT_PER_SLOT);
	if (q->watch) {
		struct fabric_slot_counts c;

		fabric_slot_watch_read(q->watch, &c, st.rx_lat_hist);
		st.rx_frames = c.frames;
		st.rx_in_slot = c.in_slot;
		st.rx_early = c.early;
		st.rx_late = c.late;
		st.rx_foreign = c.foreign;
		st.rx_lat_sum_ns = c.lat_sum_ns;
		st.rx_lat_max_ns = c.lat_max_ns;
	}
	sch_tree_unlock(sch);
	if (q->link)
		fabric_link_read_stats(q->link, &st.credits);
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

/* ---- classes: no children, a queue each ------------------------------------ */

static int fbs_class_graft(struct Qdisc *sch, unsigned long arg, struct Qdisc *new,
			   struct Qdisc **old, struct netlink_ext_ack *extack)
{
	NL_SET_ERR_MSG_MOD(extack, "fbs classes are queues of their own and take no child qdisc");
	return -EOPNOTSUPP;
}

static struct Qdisc *fbs_class_leaf(struct Qdisc *sch, unsigned long arg)
{
	return NULL;
}

static unsigned long fbs_class_find(struct Qdisc *sch, u32 classid)
{
	struct fbs_sched *q = qdisc_priv(sch);
	u32 minor = TC_H_MIN(classid);

	if (TC_H_MAJ(classid) && TC_H_MAJ(classid) != sch->handle)
		return 0;
	return minor >= 1 && minor <= q->ndests + 1U ? minor : 0;
}

static int fbs_class_dump(struct Qdisc *sch, unsigned long arg,
			  struct sk_buff *skb, struct tcmsg *tcm)
{
	struct fbs_class *cl = fbs_class_from_arg(sch, arg);
	struct nlattr *opts;

	if (!cl)
		return -1;
	tcm->tcm_parent = TC_H_ROOT;
	tcm->tcm_handle = fbs_class_id(sch, arg - 1);
	tcm->tcm_info = 0;
	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;
	if (nla_put_u32(skb, TCA_FBS_CLASS_SLOTS, cl->slots))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int fbs_class_dump_stats(struct Qdisc *sch, unsigned long arg,
				struct gnet_dump *d)
{
	struct fbs_class *cl = fbs_class_from_arg(sch, arg);
	struct tc_fbs_class_xstats st = { .type = TC_FBS_XSTATS_CLASS };
	struct gnet_stats_queue qs;
	u32 qlen;

	if (!cl)
		return -1;
	sch_tree_lock(sch);
	st.packets = cl->packets;
	st.bytes = cl->bytes;
	st.drops = cl->drops;
	qs = cl->qstats;
	qlen = cl->q.qlen;
	sch_tree_unlock(sch);
	if (gnet_stats_copy_basic(d, NULL, &cl->bstats, true) < 0 ||
	    gnet_stats_copy_queue(d, NULL, &qs, qlen) < 0)
		return -1;
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static void fbs_class_walk(struct Qdisc *sch, struct qdisc_walker *arg)
{
	struct fbs_sched *q = qdisc_priv(sch);
	u32 i;

	if (arg->stop)
		return;
	for (i = 0; i <= q->ndests; i++)
		if (!tc_qdisc_stats_dump(sch, i + 1, arg))
			break;
}

static struct tcf_block *fbs_tcf_block(struct Qdisc *sch, unsigned long cl,
				       struct netlink_ext_ack *extack)
{
	struct fbs_sched *q = qdisc_priv(sch);

	if (cl) {
		NL_SET_ERR_MSG_MOD(extack, "filters attach to the qdisc, not to a class");
		return NULL;
	}
	return q->block;
}

static unsigned long fbs_bind_tcf(struct Qdisc *sch, unsigned long parent, u32 classid)
{
	return fbs_class_find(sch, classid);
}

static void fbs_unbind_tcf(struct Qdisc *sch, unsigned long arg)
{
}

static const struct Qdisc_class_ops fbs_class_ops = {
	.graft		= fbs_class_graft,
	.leaf		= fbs_class_leaf,
	.find		= fbs_class_find,
	.dump		= fbs_class_dump,
	.dump_stats	= fbs_class_dump_stats,
	.walk		= fbs_class_walk,
	.tcf_block	= fbs_tcf_block,
	.bind_tcf	= fbs_bind_tcf,
	.unbind_tcf	= fbs_unbind_tcf,
};

static struct Qdisc_ops fbs_qdisc_ops __read_mostly = {
	.cl_ops		= &fbs_class_ops,
	.id		= "fbs",
	.priv_size	= sizeof(struct fbs_sched),
	.enqueue	= fbs_enqueue,
	.dequeue	= fbs_dequeue,
	.peek		= qdisc_peek_dequeued,
	.change		= fbs_change,
	.init		= fbs_init,
	.reset		= fbs_reset,
	.destroy	= fbs_destroy,
	.dump		= fbs_dump,
	.dump_stats	= fbs_dump_stats,
	.owner		= THIS_MODULE,
};

static int __init fbs_module_init(void)
{
	/* the index reads the table's words as the uapi writes them */
	BUILD_BUG_ON(FBS_NEXT_UNRESERVED != TC_FBS_UNRESERVED ||
		     FBS_NEXT_MAX_CLASSES < TC_FBS_MAX_DESTS + 1 ||
		     TC_FBS_SILENT < TC_FBS_MAX_DESTS);
	return register_qdisc(&fbs_qdisc_ops);
}

static void __exit fbs_module_exit(void)
{
	unregister_qdisc(&fbs_qdisc_ops);
}

module_init(fbs_module_init);
module_exit(fbs_module_exit);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("FBS: a cyclic slot schedule kept in step by link feedback");
FQ_MODULE_ALIAS_QDISC("fbs");
