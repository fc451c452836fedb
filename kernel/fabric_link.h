/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-internal API of a host's end of a credit link (fabric_link.c in
 * fabric_hdr.ko), for the qdiscs that send on it and for the soft switch,
 * which shares the way link messages go on the wire.  The protocol is
 * Documentation/credits.rst, the books core/fabric_credit.h.
 */
#ifndef _FABRIC_LINK_H
#define _FABRIC_LINK_H

#include <linux/netdevice.h>
#include <linux/netlink.h>
#include <linux/skbuff.h>
#include <net/sch_generic.h>

#include "include/uapi/linux/fabric_hdr.h"
#include "core/fabric_hdr_core.h"
#include "core/recn_host.h"

struct fabric_link;

/*
 * The ends of a link address their messages to this link-local group
 * (802.1D reserves 01:80:C2:00:00:00-0F; no bridge relays them).
 */
extern const u8 fabric_link_group[ETH_ALEN];

int fabric_link_xmit_msg(struct net_device *dev, const u8 *msg, u32 len);
struct sk_buff *fabric_link_msg_skb(struct net_device *dev, const u8 *msg, u32 len);
bool fabric_link_is_msg(struct sk_buff *skb);

/*
 * A qdisc on @dev that sends under credits takes the device's end of the
 * link (one per device, shared by every qdisc that takes it, e.g. the
 * children of mq); @unit and @vcs (the VCs it carries, 2 to 4) must be
 * those of whoever took it first.  Under RTNL.  fabric_link_put() when
 * the qdisc goes or turns credits off.
 */
struct fabric_link *fabric_link_get(struct net_device *dev, u32 unit,
				    unsigned int vcs,
				    struct netlink_ext_ack *extack);
void fabric_link_put(struct fabric_link *l);
/*
 * The caller's qdisc, which has @l, is to be its only user until it puts
 * it (fbs, which times its slots by its own frames' credits): -EBUSY if
 * another qdisc has it, and fabric_link_get() refuses others after.
 */
int fabric_link_claim_alone(struct fabric_link *l, struct netlink_ext_ack *extack);
bool fabric_link_dev_has_link(const struct net_device *dev);
/* refusal of credits on for a qdisc that holds packets */
#define FABRIC_LINK_BUSY_MSG \
	"turn credits on while the qdisc is empty: packets queued before may never fit a grant"
struct fabric_link *fabric_link_configure(struct Qdisc *sch,
					  struct fabric_link *cur,
					  const struct nlattr *on,
					  const struct nlattr *unit,
					  unsigned int vcs,
					  struct netlink_ext_ack *extack);
int fabric_link_may_start(struct Qdisc *sch, const struct fabric_link *cur,
			  const struct fabric_link *link,
			  struct netlink_ext_ack *extack);
u32 fabric_link_unit(const struct fabric_link *l);
/*
 * The link's rate (bytes/s; 0: not known, the default), which sets how
 * often our end speaks (core fcr_base_period()): a qdisc that knows it
 * says so.  Shared by the qdiscs on the device: the last one told wins.
 */
void fabric_link_set_rate(struct fabric_link *l, u64 rate);

/* The VC @skb (data at its Ethernet header) travels on, and its length. */
unsigned int fabric_link_skb_vc(const struct fabric_link *l,
				const struct sk_buff *skb);

/*
 * Take the credits for a frame of @len bytes (from the Ethernet header
 * on) on @vc.  FABRIC_LINK_GO: the peer has room, the frame may go now.
 * FABRIC_LINK_WAIT: not yet; the qdisc is scheduled again when credits
 * come back.  FABRIC_LINK_TOO_BIG: the frame is larger than the whole
 * input buffer the peer states, so no grant will ever cover it: the
 * caller drops it (a wait would hold its VC for good).  BHs off (a
 * dequeue).
 */
enum fabric_link_verdict {
	FABRIC_LINK_WAIT,
	FABRIC_LINK_GO,
	FABRIC_LINK_TOO_BIG,
};

enum fabric_link_verdict fabric_link_take(struct fabric_link *l, unsigned int vc,
					  u32 len);

/*
 * Whether the peer has room now for a frame of @len bytes on @vc, taking
 * nothing: an FBS executor asks at a slot's end whether its last frame
 * was accepted, and (@grew_ns, may be NULL) when the VC's credits last
 * grew, which with a one-frame buffer is when that frame left the switch
 * plus the way back.  A peer whose buffer on @vc is smaller than @len
 * (as its link messages state it) has room once its whole buffer is
 * free.  When there is no room, the qdisc is scheduled again
 * when credits come back, as after a refused take.  BHs off.
 */
bool fabric_link_room(struct fabric_link *l, unsigned int vc, u32 len, u64 *grew_ns);

/*
 * A number that changes whenever either end's books start again (our
 * restarts: the device down and up, a new unit; the peer's new
 * epochs).  Credits that come back after it changed were granted by the
 * new books, not returned for a frame sent before: an FBS executor that
 * sent a frame under other books learns nothing from when they came.
 */
u64 fabric_link_books_gen(struct fabric_link *l);

void fabric_link_read_stats(struct fabric_link *l,
			    struct tc_fabric_credit_xstats *st);
/* VC @vc's credits now and stalls (tc_fabric_credit_xstats has two VCs). */
void fabric_link_read_vc(struct fabric_link *l, unsigned int vc,
			 u32 *tx_credits, u64 *stalls);

/*
 * @skb, already off @sch's queue and backlog, dropped at dequeue (too big
 * for the link's peer): counted in @sch's drops, and its parents told at
 * once, as sch_codel does since the kernels we build for made every
 * qlen_notify() safe to call from a parent's own dequeue.  A drop that
 * empties @sch runs the root again: a parent that peeked us (drr, hfsc,
 * qfq, ets) returns nothing this round though its other classes wait.
 */
void fabric_dequeue_drop(struct Qdisc *sch, struct sk_buff *skb);

/*
 * For a scheduler that does not tell VCs apart (aoq, dtable): the packet
 * it picked waits here, still counted in the qdisc's queue, until the
 * link has credits for it, and nothing overtakes it; one too big for the
 * peer's buffer is dropped (the qdisc's drops) and the next picked.
 * @pick is the scheduler's own dequeue, which leaves the qdisc's bstats
 * to this (updated when a packet leaves).  With no link, @pick alone.
 */
struct fabric_credit_gate {
	struct fabric_link	*link;
	struct sk_buff		*skb;
};

/* A packet waits, or credits are on: fabric_gate_dequeue()'s slow path. */
struct sk_buff *fabric_gate_dequeue_slow(struct Qdisc *sch,
					 struct fabric_credit_gate *g,
					 struct sk_buff *(*pick)(struct Qdisc *));

/*
 * Inline, so that with credits off (the common case) @pick is a direct
 * call in the qdisc's own module: no call into fabric_hdr.ko and no
 * indirect call (a retpoline on Debian's kernels) per packet.  @pick
 * must find nothing in an empty qdisc.  An empty queue (the second
 * dequeue of every __qdisc_run()) is answered first, before anything
 * else is loaded, so that the compiler can return before saving the
 * registers the pick needs: a packet waiting here is counted in the
 * queue, so an empty one has none.
 */
static __always_inline struct sk_buff *
fabric_gate_dequeue(struct Qdisc *sch, struct fabric_credit_gate *g,
		    struct sk_buff *(*pick)(struct Qdisc *))
{
	struct sk_buff *skb;

	if (!sch->q.qlen)
		return NULL;
	if (unlikely(g->skb || g->link))
		return fabric_gate_dequeue_slow(sch, g, pick);
	skb = pick(sch);
	if (skb)
		qdisc_bstats_update(sch, skb);
	return skb;
}
/* the waiting packet, if any, dropped (reset, destroy) */
void fabric_gate_purge(struct Qdisc *sch, struct fabric_credit_gate *g);

/*
 * RECN at the host (Documentation/recn.rst, "Hosts"; core/recn_host.h):
 * the link keeps a RECN set per VC for the qdiscs that turn it on (edf's
 * "recn on"), takes the switch's FABRIC_CTRL_RECN frames into them and
 * answers.  The qdisc counts each frame in at enqueue, tagged
 * (fabric_link_recn_arrive()), out when it leaves, whether sent or
 * dropped (fabric_link_recn_depart()), and holds back the frames of SAQs
 * that may not go (fabric_link_recn_ready()); the link runs the device's
 * queues when one may go again.
 */
#define FABRIC_LINK_RECN_NONE	0xffffu		/* a frame no set counts */

/*
 * Turn RECN on for one more qdisc of the link (RTNL): the first one's
 * settings hold for all, and another asking for others is refused.
 */
int fabric_link_recn_get(struct fabric_link *l, const struct recn_host_cfg *cfg,
			 struct netlink_ext_ack *extack);
/*
 * New settings: only for a link one qdisc alone runs RECN on (asked
 * first, RTNL), which counts no frame when it sets them (its tree lock).
 */
int fabric_link_recn_can_set(struct fabric_link *l, const struct recn_host_cfg *cfg,
			     struct netlink_ext_ack *extack);
void fabric_link_recn_set(struct fabric_link *l, const struct recn_host_cfg *cfg);
/* ... and off; the qdisc has no frame counted.  RTNL. */
void fabric_link_recn_put(struct fabric_link *l);
/*
 * Count @skb (data at its Ethernet header) in: the tag to give
 * fabric_link_recn_depart().  @push: the fabric header the qdisc will
 * push at dequeue (its VC and SL; a route of 0 is the host's route to
 * the destination, as fabric_hdr_push() finds it), or NULL: the frame's
 * own header, if it has one.
 */
u16 fabric_link_recn_arrive(struct fabric_link *l, const struct sk_buff *skb,
			    const struct fhc_fields *push, u32 bytes);
void fabric_link_recn_depart(struct fabric_link *l, u16 tag, u32 bytes);
/*
 * Bumped when the qdiscs must count their queued frames again with
 * fabric_link_recn_retag() (new SAQs take the frames of their points
 * already queued; RECN turned on or set anew).  Read without a lock.
 */
u32 fabric_link_recn_gen(const struct fabric_link *l);
/* @skb's tag after counting it again (as fabric_link_recn_arrive()). */
u16 fabric_link_recn_retag(struct fabric_link *l, const struct sk_buff *skb,
			   const struct fhc_fields *push, u16 tag, u32 bytes);
/* The VC of a tagged frame, and whether its SAQ's bit is in @ready. */
static inline unsigned int fabric_link_recn_tag_vc(u16 tag)
{
	return tag >> 8;
}
static inline bool fabric_link_recn_tag_is_saq(u16 tag)
{
	return tag != FABRIC_LINK_RECN_NONE && RECN_Q_IS_SAQ(tag & 0xff);
}
static inline unsigned int fabric_link_recn_tag_saq(u16 tag)
{
	return (tag & 0xff) - RECN_DETQS;
}
/* SAQs of @vc whose frames may go now (bit i: SAQ i).  BHs off. */
u32 fabric_link_recn_ready(struct fabric_link *l, unsigned int vc);
void fabric_link_recn_read_stats(struct fabric_link *l, struct tc_fabric_recn_xstats *st);

/* fabric_hdr_main.c's receive path and device events */
bool fabric_link_rcv(struct net_device *dev, struct sk_buff *skb);
void fabric_link_dev_event(struct net_device *dev, unsigned long event);
void fabric_link_exit(void);

#endif /* _FABRIC_LINK_H */
