// SPDX-License-Identifier: GPL-2.0
/*
 * RECN in the soft switch (arch recn; Documentation/recn.rst): the sets of
 * every port, the messages between them and on the links, and the tick.
 *
 * Each port has four sets (core/vcsw_recn.h), the input and output
 * buffers of VCs 0 and 1, allocated with the port and used while the
 * switch's architecture is recn.  The sets post their messages in the
 * switch's box; whoever holds the switch's lock and may have made a set
 * post (a frame arriving, the crossbar, an output sending, a message, the
 * tick) delivers the box before letting go (vcsw_recn_deliver()):
 * messages between the sides of the switch at once, messages for a link's
 * far end staged per port and built into one FABRIC_CTRL_RECN frame per
 * port, which the flush after the lock sends straight to the driver, as
 * the credit messages go.  Only ports with "recn on" (IFLA_VCSW_PORT_RECN:
 * the far end runs RECN) hear messages or are believed: a host, or a
 * neighbour not trusted with it, cannot make SAQs here.
 *
 * The tick (recn_tick() of every set: leases, repeats, lines left idle)
 * runs every refresh period while any set holds a SAQ or a root, and stops
 * when none does; a message delivered starts it again.
 */
#include "vcsw_priv.h"
#include "core/vcsw_xbar_recn.h"

void vcsw_recn_defaults(struct recn_cfg *c)
{
	recn_cfg_default(c, VCSW_RECN_MTU);
}

/*
 * Give @p's buffers fresh sets, in recn mode if the switch is: frames
 * waiting move out of the old sets and into the new ones in order.
 * The switch's lock held, or @p not yet reachable.
 */
static void vcsw_recn_port_setup(struct vcsw *sw, struct vcsw_slave *p)
{
	struct vcsw_recn_port *rp = p->rp;
	bool recn = sw->arch == VCSW_ARCH_RECN;
	unsigned int vc;

	for (vc = 0; vc < VCSW_RECN_VCS; vc++) {
		vcsw_vc_attach_recn(&p->x.in[vc], &rp->in[vc], false);
		vcsw_vc_attach_recn(&p->x.out.vc[vc], &rp->out[vc], false);
		vcsw_rq_init(&rp->in[vc], &sw->recn_cfg, &sw->recn_box, p->idx, VCSW_RQ_IN,
			     vc, p->recn_peer);
		vcsw_rq_init(&rp->out[vc], &sw->recn_cfg, &sw->recn_box, p->idx, VCSW_RQ_OUT,
			     vc, p->recn_peer);
		if (recn) {
			vcsw_vc_set_mode(&p->x.in[vc], VCSW_MODE_RECN);
			vcsw_vc_set_mode(&p->x.out.vc[vc], VCSW_MODE_RECN);
		}
	}
	rp->ntx = 0;
}

/* A new port's RECN state, before it is reachable.  RTNL held. */
int vcsw_recn_port_alloc(struct vcsw *sw, struct vcsw_slave *p)
{
	p->rp = kvzalloc(sizeof(*p->rp), GFP_KERNEL);
	if (!p->rp)
		return -ENOMEM;
	skb_queue_head_init(&p->rp->txq);
	atomic64_set(&p->rp->frames_tx, 0);
	atomic64_set(&p->rp->frames_rx, 0);
	atomic64_set(&p->rp->frames_refused, 0);
	atomic64_set(&p->rp->msgs_dropped, 0);
	vcsw_recn_port_setup(sw, p);
	return 0;
}

/* After the port's buffers were purged and nobody can reach it. */
void vcsw_recn_port_free(struct vcsw_slave *p)
{
	if (!p->rp)
		return;
	skb_queue_purge(&p->rp->txq);
	kvfree(p->rp);
	p->rp = NULL;
}

/*
 * Every port's sets anew, from sw->recn_cfg and the architecture (both
 * change only while the switch is down, or at its start), and nothing
 * left to deliver.  RTNL held.
 */
void vcsw_recn_reset(struct vcsw *sw)
{
	struct vcsw_slave *p;

	spin_lock_bh(&sw->lock);
	list_for_each_entry(p, &sw->ports, list)
		vcsw_recn_port_setup(sw, p);
	sw->recn_box.head = 0;
	sw->recn_box.count = 0;
	spin_unlock_bh(&sw->lock);
}

/* IFLA_VCSW_PORT_RECN.  RTNL held. */
void vcsw_recn_set_peer(struct vcsw_slave *p, bool on)
{
	unsigned int vc;

	spin_lock_bh(&p->sw->lock);
	WRITE_ONCE(p->recn_peer, on);
	/* the input sides tell their upstream only if it listens */
	for (vc = 0; vc < VCSW_RECN_VCS; vc++)
		p->rp->in[vc].tell_up = on;
	spin_unlock_bh(&p->sw->lock);
}

/*
 * Build the messages staged for @p's far end into a frame on its txq.
 * The switch's lock held.
 */
static void vcsw_recn_stage_out(struct vcsw_slave *p, unsigned long *flush)
{
	struct vcsw_recn_port *rp = p->rp;
	u8 buf[FABRIC_HDR_LEN + FABRIC_CTRL_RECN_LEN(FABRIC_CTRL_RECN_MAX)];
	struct fhc_fields f = { 0 };
	struct sk_buff *skb;
	u32 len;

	if (!rp->ntx)
		return;
	f.version = FABRIC_HDR_VERSION;
	f.vc = FABRIC_VC_REGULATED;
	f.inner_proto = ETH_P_FABRIC;
	fhc_encode(buf, &f);
	len = FABRIC_HDR_LEN + recn_wire_build(buf + FABRIC_HDR_LEN, rp->tx, rp->ntx);
	skb = fabric_link_msg_skb(p->dev, buf, len);
	if (!skb || skb_queue_len(&rp->txq) >= VCSW_RECN_TXQ_MAX) {
		atomic64_add(rp->ntx, &rp->msgs_dropped);
		kfree_skb(skb);
	} else {
		skb_queue_tail(&rp->txq, skb);
		__set_bit(p->idx, flush);
	}
	rp->ntx = 0;
}

struct vcsw_recn_link_ctx {
	struct vcsw *sw;
	unsigned long *flush;
	u64 staged;		/* ports with messages staged */
};

/* vcsw_recn_link_fn: stage @m for port @port's far end. */
static void vcsw_recn_link(void *ctx, u32 port, u8 vc, const struct recn_msg *m)
{
	struct vcsw_recn_link_ctx *k = ctx;
	struct vcsw_slave *p = port < VCSW_MAX_PORTS ? k->sw->slot_port[port] : NULL;
	struct vcsw_recn_port *rp;

	/* a port whose far end does not run RECN hears nothing of it */
	if (!p || !READ_ONCE(p->recn_peer) || p->dead)
		return;
	rp = p->rp;
	if (rp->ntx == FABRIC_CTRL_RECN_MAX)
		vcsw_recn_stage_out(p, k->flush);
	rp->tx[rp->ntx].m = *m;
	rp->tx[rp->ntx].vc = vc;
	rp->ntx++;
	k->staged |= BIT_ULL(port);
}

/* Put every port's staged messages on its txq, in frames. */
static void vcsw_recn_stage_all(struct vcsw_recn_link_ctx *k)
{
	while (k->staged) {
		unsigned int i = __ffs64(k->staged);

		k->staged &= k->staged - 1;
		vcsw_recn_stage_out(k->sw->slot_port[i], k->flush);
	}
}

/*
 * Deliver what the sets posted (core vcsw_xbar_recn_deliver()); frames
 * for the links go on their ports' txq, and @flush notes those ports.
 * Returns how many messages reached a set of the switch.  The switch's
 * lock held.
 */
u32 vcsw_recn_deliver(struct vcsw *sw, u64 now, unsigned long *flush)
{
	struct vcsw_recn_link_ctx k = { sw, flush, 0 };
	u32 inside;

	lockdep_assert_held(&sw->lock);
	if (!sw->recn_box.count)
		return 0;
	inside = vcsw_xbar_recn_deliver(sw->slots, sw->nslots, &sw->recn_box, now,
					vcsw_recn_link, &k);
	vcsw_recn_stage_all(&k);
	vcsw_recn_arm(sw);
	return inside;
}

/*
 * Send @p's RECN frames, straight to the driver, in the order they were
 * built: one context sends at a time (@sending, under the queue's lock),
 * as vcsw_slave_flush() does for data, or an Xon built after an Xoff
 * could reach the far end first and leave its SAQ stopped.  The others
 * leave their frames to it; it sends until the queue is empty, a few
 * rounds at most (the queue holds VCSW_RECN_TXQ_MAX), and what is left
 * goes with the port's next flush.  Under RCU, BHs off, no lock held.
 */
void vcsw_recn_flush(struct vcsw_slave *p)
{
	struct vcsw_recn_port *rp = p->rp;
	struct sk_buff_head list;
	unsigned int round;
	unsigned long flags;
	struct sk_buff *skb;

	spin_lock_irqsave(&rp->txq.lock, flags);
	if (rp->sending) {
		spin_unlock_irqrestore(&rp->txq.lock, flags);
		return;
	}
	rp->sending = true;
	__skb_queue_head_init(&list);
	for (round = 0; round < 4 && !skb_queue_empty(&rp->txq); round++) {
		skb_queue_splice_tail_init(&rp->txq, &list);
		spin_unlock_irqrestore(&rp->txq.lock, flags);
		while ((skb = __skb_dequeue(&list))) {
			u32 n = skb->data[ETH_HLEN + FABRIC_HDR_LEN + 1];	/* ours: whole */
			int rc;

			if (!vcsw_slave_up(p)) {
				atomic64_add(n, &rp->msgs_dropped);
				kfree_skb(skb);
				continue;
			}
			/* net_xmit_eval() evaluates its argument twice */
			rc = dev_direct_xmit(skb, 0);
			if (net_xmit_eval(rc))
				atomic64_add(n, &rp->msgs_dropped);
			else
				atomic64_inc(&rp->frames_tx);
		}
		spin_lock_irqsave(&rp->txq.lock, flags);
	}
	rp->sending = false;
	spin_unlock_irqrestore(&rp->txq.lock, flags);
}

/*
 * A FABRIC_CTRL_RECN frame from @p's far end (skb->data at the fabric
 * header): taken whole or refused whole.  Bytes after its messages (the
 * Ethernet padding of a short frame) are not looked at.  Consumes @skb.
 * Softirq, RCU.
 */
void vcsw_recn_rcv(struct vcsw_slave *p, struct sk_buff *skb)
{
	struct recn_wire_msg msg[FABRIC_CTRL_RECN_MAX];
	struct vcsw *sw = p->sw;
	struct vcsw_recn_port *rp = p->rp;
	bool woke = false, post;
	u32 len, want, n, i;
	u64 now;

	if (READ_ONCE(sw->arch) != VCSW_ARCH_RECN || !READ_ONCE(p->recn_peer) ||
	    !READ_ONCE(p->enabled) || !netif_running(sw->dev))
		goto refuse;
	want = FABRIC_HDR_LEN + FABRIC_CTRL_RECN_LEN(FABRIC_CTRL_RECN_MAX);
	if (!pskb_may_pull(skb, min_t(u32, skb->len, want)))
		goto refuse;
	len = min_t(u32, skb->len, skb_headlen(skb)) - FABRIC_HDR_LEN;
	/* the count says how long it is; the rest is padding */
	len = recn_wire_len(skb->data + FABRIC_HDR_LEN, len);
	if (recn_wire_parse(skb->data + FABRIC_HDR_LEN, len, msg, &n) != RECN_WIRE_OK)
		goto refuse;
	atomic64_inc(&rp->frames_rx);
	now = ktime_get_ns();
	spin_lock(&sw->lock);
	/* the port may have left its slot since the handler found it */
	if (sw->slot_port[p->idx] == p && !p->dead) {
		for (i = 0; i < n; i++)
			woke |= vcsw_xbar_recn_receive(sw->slots, sw->nslots, p->idx, msg[i].vc,
						       &msg[i].m, now) == VCSW_RECN_RX_WOKE;
		/*
		 * Only the tick ends a stopped SAQ's lease or frees an idle
		 * one: make sure it runs.  (A SAQ made here posts only when
		 * it takes over a root's Xoff: Xon, delivered below.)
		 */
		vcsw_recn_arm(sw);
	}
	post = sw->recn_box.count;
	spin_unlock(&sw->lock);
	consume_skb(skb);
	/*
	 * An Xon lets a SAQ of this output go, and what the sets answered
	 * goes out; a repeated Xoff, the most common message, needs neither
	 */
	if (woke || post)
		vcsw_kick(sw, woke ? p : NULL);
	return;

refuse:
	atomic64_inc(&rp->frames_refused);
	kfree_skb(skb);
}

/* The tick's period: the refresh period, which it keeps. */
static u64 vcsw_recn_period(const struct vcsw *sw)
{
	return max_t(u64, sw->recn_cfg.refresh_ns, 1000);
}

/* Start the tick if it is not running.  The switch's lock held. */
void vcsw_recn_arm(struct vcsw *sw)
{
	/* a switch going down cancels it, and nothing may start it again */
	if (sw->recn_ticking || sw->arch != VCSW_ARCH_RECN || !netif_running(sw->dev))
		return;
	sw->recn_ticking = true;
	hrtimer_start(&sw->recn_timer, ns_to_ktime(vcsw_recn_period(sw)), HRTIMER_MODE_REL_SOFT);
}

enum hrtimer_restart vcsw_recn_timer(struct hrtimer *t)
{
	struct vcsw *sw = container_of(t, struct vcsw, recn_timer);
	DECLARE_BITMAP(flush, VCSW_FLUSH_BITS);
	struct vcsw_recn_link_ctx k = { sw, flush, 0 };
	u64 now = ktime_get_ns();
	bool busy = false, woke = false, post;

	bitmap_zero(flush, VCSW_FLUSH_BITS);
	spin_lock(&sw->lock);
	/* the box is delivered as it fills, between two sets */
	if (sw->arch == VCSW_ARCH_RECN)
		busy = vcsw_xbar_recn_tick(sw->slots, sw->nslots, &sw->recn_box, now,
					   vcsw_recn_link, &k, &woke);
	vcsw_recn_stage_all(&k);
	sw->recn_ticking = busy;
	if (busy)
		hrtimer_forward_now(t, ns_to_ktime(vcsw_recn_period(sw)));
	post = sw->recn_box.count;
	spin_unlock(&sw->lock);
	rcu_read_lock();
	/* what those deliveries staged for the links */
	vcsw_flush_ports(sw, flush);
	/*
	 * Messages wait (repeats): deliver them; a lease ended, or what a
	 * settle had left in the box reached a set (a SAQ may go again):
	 * serve everything too.  Many ticks do neither, and cost only the
	 * look at the sets.
	 */
	if (woke || post)
		vcsw_kick_all(sw, woke);
	rcu_read_unlock();
	return busy ? HRTIMER_RESTART : HRTIMER_NORESTART;
}

/* RTNL or RCU. */
void vcsw_recn_read_stats(struct vcsw_slave *p, struct vcsw_recn_stats *st)
{
	struct vcsw_recn_port *rp = p->rp;
	struct recn_stats sum = { 0 };
	unsigned int vc, s;
	u64 saqs = 0, dropped = 0;

	memset(st, 0, sizeof(*st));
	spin_lock_bh(&p->sw->lock);
	for (vc = 0; vc < VCSW_RECN_VCS; vc++) {
		for (s = 0; s < 2; s++) {
			const struct vcsw_rq *rq = s ? &rp->out[vc] : &rp->in[vc];

			recn_stats_add(&sum, &rq->set.st);
			saqs += recn_saqs_used(&rq->set);
			dropped += rq->dropped;
		}
	}
	spin_unlock_bh(&p->sw->lock);
	st->notify_tx = sum.notify_tx;
	st->notify_rx = sum.notify_rx;
	st->xoff_tx = sum.xoff_tx;
	st->xoff_rx = sum.xoff_rx;
	st->xon_tx = sum.xon_tx;
	st->xon_rx = sum.xon_rx;
	st->release_tx = sum.release_tx;
	st->release_rx = sum.release_rx;
	st->full_tx = sum.full_tx;
	st->full_rx = sum.full_rx;
	st->saq_alloc = sum.saq_alloc;
	st->saq_free = sum.saq_free;
	st->saq_idle_free = sum.saq_idle_free;
	st->saq_full = sum.saq_full;
	st->root_alloc = sum.root_alloc;
	st->root_full = sum.root_full;
	st->lease_expired = sum.lease_expired;
	st->stale_rx = sum.stale_rx;
	st->bad_rx = sum.bad_rx;
	st->saqs = saqs;
	st->frames_tx = atomic64_read(&rp->frames_tx);
	st->frames_rx = atomic64_read(&rp->frames_rx);
	st->frames_refused = atomic64_read(&rp->frames_refused);
	/* not sent, or lost in the switch's box before delivery */
	st->msgs_dropped = atomic64_read(&rp->msgs_dropped) + dropped;
}
