// SPDX-License-Identifier: GPL-2.0
/*
 * vcsw: a soft switch with the two-VC buffers of edf-deadline-qos-two-vcs
 * (sections 3.2 to 3.4, the appendix), combined input/output buffered on
 * links with credit flow control.
 *
 *	ip link add sw0 type vcsw arch advanced rate 1gbit vc0_buffer 64k
 *	ip link set sw0 up
 *	ip link set veth-h1 master sw0
 *
 * A switch is a net_device of kind "vcsw"; any Ethernet device becomes a
 * port with "master sw0".  An rx_handler on each port takes every frame:
 * it learns the source MAC, finds the output port by destination MAC
 * (static entries, learned entries, else flooding: broadcast, multicast
 * and unknown unicast go to every other port), and queues the frame in the
 * output port's buffer.  As a bridge does, the switch forwards only while
 * it is up, never relays the IEEE 802.1D link-local groups
 * 01:80:C2:00:00:0x unless group_fwd_mask asks for one (it drops them),
 * and stays in its network namespace.  There is no loop protection: a loop of switches floods for
 * ever.
 *
 * The forwarding table is an rhashtable (a seeded hash, resized as it
 * grows, so crafted addresses cannot build long chains) with at most
 * fdb_max entries.  Learned entries age out, collected by delayed work;
 * at the bound a new address takes the place of an entry that was not
 * seen since the last time a clock hand passed it (second chance,
 * core/vcsw_clock.h), so learning never stops and active hosts keep their
 * entries.
 *
 * Ingress turns the fabric header's time to deadline into a local
 * deadline D = now + TTD; the header's VC picks the virtual channel.  A
 * frame without the header is best effort (VC1) in arrival order.  A
 * frame with a malformed header is dropped and counted.  A port can be
 * untrusted: its VC0 frames are then policed to a rate (the excess
 * dropped or demoted to VC1) and its TTDs held to a range, so a host
 * that lies cannot starve the others (Documentation/trust.rst,
 * core/vcsw_trust.h).
 *
 * Output port: the portable core (core/vcsw_port.h) holds VC0 in the
 * discipline of the switch's architecture strictly before VC1, each VC
 * within its byte limit.  With a rate the port emulates a link of that
 * speed: a frame may start only when the previous one has been "on the
 * wire" for len / rate, an hrtimer wakes the port then, so queues really
 * form on veth.  On departure the header's TTD becomes D - now.
 *
 * Credits (Documentation/credits.rst, core/fabric_credit.h): a port can
 * run per-VC credit flow control with the other end of its link.  Off
 * (the default), a frame that arrives there goes straight into its
 * output port's buffer and is dropped when that is full, as in an
 * output-queued switch.  On, every data frame that arrives is counted in
 * the port's books and waits in the port's input buffer (per VC, what
 * the port advertises upstream) until the crossbar (core/vcsw_xbar.h:
 * trad, simple, advanced, ideal) moves it to its output, when that
 * output VC has room; its credits go back upstream as it leaves the
 * input, in a link message that the port's timer sends periodically
 * (and sooner when a quarter of a buffer was freed).  So nothing is
 * dropped inside the switch for want of room on a path that starts at
 * a credit port.  A port with credits sends the frame its buffer picks
 * only when the downstream VC has credits for it (only that frame is
 * checked; VC1 may pass a VC0 head that waits), and is woken by the link
 * message that brings them.  Link messages go straight to the driver,
 * never behind data in a qdisc; those that arrive are consumed, never
 * forwarded.
 *
 * Locking: configuration and port membership change under RTNL.  The
 * port list and the forwarding table are read under RCU from the receive
 * path (softirq).  The switch's lock guards every port's buffers (input
 * and output, struct vcsw_xport), the crossbar's slots and cursor; it is
 * taken by the receive path of any port, the ports' and the switch's
 * hrtimers (softirq mode) and, with BHs off, by configuration.  Each
 * port's own lock guards its send queue (@txq, @sending), @dead and its
 * credit books; it nests inside the switch's lock, and is also taken
 * alone (link messages, the credit timer, sending).  Never two port
 * locks at once; frames and link messages are handed to the device with
 * no lock held.  The crossbar moves at most VCSW_XBAR_BUDGET frames per
 * run and leaves the rest to the switch's timer.  A port's trust
 * settings and policer have a lock of their own, taken on that port's
 * receive path and, with BHs off, by configuration.  The table's lock
 * nests in none.  Arch recn (vcsw_recn.c): the ports' RECN sets and the
 * switch's box of their messages are under the switch's lock, delivered
 * before it is let go; a port's built RECN frames wait on their own
 * queue (its lock nests inside the switch's, and is taken alone by the
 * flush that sends them); the RECN tick is an hrtimer (softirq mode)
 * that takes the switch's lock.
 *
 * A port joins in the order of the bridge's br_add_if(): it is built,
 * its receive handler registered (frames it gets then are dropped, not
 * learned or forwarded), the upper-device link made, and only then is it
 * given its slot, listed and enabled; a failure undoes exactly the steps
 * taken, and the port was never reachable from the table, the slots or
 * the port list.  It leaves in the opposite order: marked dead (its
 * timers cancelled, neither re-armed), unhooked, its table entries
 * removed, then its slot given up (frames in other inputs bound for it
 * are dropped, their credits given back), and its buffers purged after
 * a grace period.
 */
#include "vcsw_priv.h"

/* What no frame reaches: the crossbar's free slots. */
static struct vcsw_xport vcsw_xport_none;

static struct kmem_cache *vcsw_ent_cache __read_mostly;
static const struct net_device_ops vcsw_netdev_ops;


/* The port behind @dev, or NULL; caller holds RTNL. */
struct vcsw_slave *vcsw_slave_of_rtnl(const struct net_device *dev)
{
	if (rcu_access_pointer(dev->rx_handler) != vcsw_handle_frame)
		return NULL;
	return rcu_dereference_rtnl(dev->rx_handler_data);
}

/* ---- output ports ---------------------------------------------------------- */

static void vcsw_ent_free(struct vcsw_ent *e)
{
	kfree_skb(e->skb);
	kmem_cache_free(vcsw_ent_cache, e);
}

/*
 * The frame @p sends next, or NULL.  Without credits (or on a link that
 * is down, where frames are dropped anyway) the head, VC0 first.  With
 * credits the chosen head of each VC and only it is checked (the
 * appendix's rule): a VC0 head the downstream cannot take yet holds VC0,
 * while VC1 may go (and so on down the VCs, with four).  A head larger
 * than the peer's whole input buffer never will: it is returned with
 * @too_big set, to be dropped.  Caller holds the switch's lock and
 * p->lock.
 */
static struct vcsw_node *vcsw_slave_next(struct vcsw_slave *p, bool *too_big)
{
	struct vcsw_port *q = &p->x.out;
	unsigned int vc;

	if (!p->credits || !vcsw_slave_up(p))
		return vcsw_port_peek(q);
	for (vc = 0; vc < q->vcs; vc++) {
		struct vcsw_node *h = vcsw_vc_pick(&q->vc[vc]);

		if (!h)
			continue;
		if (fcr_tx_may_send(&p->cp.l, vc, fcr_wire_len(h->len)))
			return h;
		if (unlikely(fcr_tx_too_big(&p->cp.l, vc, fcr_wire_len(h->len)))) {
			*too_big = true;
			return h;
		}
		if (!p->stalled[vc]) {
			p->stalled[vc] = true;
			p->cst_stalls[vc]++;
		}
	}
	return NULL;
}

/*
 * Take every frame that may leave by @now off the buffer into @out and
 * arm the timer for the next one when the emulated link is busy (a port
 * waiting for credits is woken by the link message that brings them).
 * Caller holds the switch's lock and p->lock.
 */
static void vcsw_slave_service(struct vcsw_slave *p, u64 now,
			       struct sk_buff_head *out)
{
	struct vcsw_port *q = &p->x.out;
	bool credits = p->credits && vcsw_slave_up(p), too_big = false;
	struct vcsw_node *n;

	lockdep_assert_held(&p->sw->lock);
	lockdep_assert_held(&p->lock);
	while (vcsw_port_qlen(q)) {
		struct vcsw_skb_cb *cb;
		struct vcsw_ent *e;
		struct sk_buff *skb;

		if (!vcsw_port_link_ready(q, now)) {
			if (!hrtimer_is_queued(&p->timer))
				hrtimer_start(&p->timer, ns_to_ktime(q->link_free),
					      HRTIMER_MODE_ABS_SOFT);
			break;
		}
		n = vcsw_slave_next(p, &too_big);
		if (!n)
			break;
		if (unlikely(too_big)) {
			/* a wait would hold its VC for good (credits.rst) */
			vcsw_vc_unqueue(&q->vc[n->vc], n, now);
			vcsw_count(p, VCSW_PS_DROP_OVERSIZE);
			vcsw_ent_free(container_of(n, struct vcsw_ent, node));
			too_big = false;
			continue;
		}
		n = vcsw_port_dequeue_vc(q, n->vc, now);
		e = container_of(n, struct vcsw_ent, node);
		skb = e->skb;
		cb = vcsw_cb(skb);
		cb->deadline = n->deadline;
		cb->timed = n->timed;
		cb->cgen = 0;
		if (credits) {
			cb->cvc = n->vc;
			cb->clen = fcr_wire_len(n->len);
			cb->cgen = p->cp.gen;
			/* handed to the device by vcsw_slave_flush() */
			cb->cunits = fcr_tx_queue(&p->cp.l, n->vc, cb->clen);
			p->stalled[n->vc] = false;
			/* the first frame after an idle spell: speak again */
			if (unlikely(fcr_woke(&p->cp.l)))
				vcsw_credit_kick(p);
		}
		kmem_cache_free(vcsw_ent_cache, e);
		__skb_queue_tail(out, skb);
	}
	/*
	 * Wormhole: an input may hold a frame for this output until its
	 * link is free; nothing else would run the crossbar then
	 */
	if (p->x.wormhole && !vcsw_port_link_ready(q, now) && !hrtimer_is_queued(&p->timer))
		hrtimer_start(&p->timer, ns_to_ktime(q->link_free), HRTIMER_MODE_ABS_SOFT);
}

/*
 * A frame that took credits was not sent after all: they were not spent.
 * BHs off.
 */
static void vcsw_credit_unsend(struct vcsw_slave *p, const struct vcsw_skb_cb *cb)
{
	if (!cb->cgen)
		return;
	spin_lock(&p->lock);
	if (p->credits && p->cp.gen == cb->cgen) {
		fcr_tx_unsend(&p->cp.l, cb->cvc, cb->clen);
		if (fcr_woke(&p->cp.l))
			vcsw_credit_kick(p);
		/*
		 * A head that stalled for want of these credits would wait
		 * for a link message that never comes (the peer's grant did
		 * not change): serve the port again
		 */
		if (p->stalled[cb->cvc] && !p->dead)
			hrtimer_start(&p->timer, ns_to_ktime(ktime_get_ns()),
				      HRTIMER_MODE_ABS_SOFT);
	}
	spin_unlock(&p->lock);
}

/*
 * Hand frames to the device, outside the port lock, under RCU.  Returns
 * how many it took off @list; adds to @units, per VC, the units of those
 * the books of generation @gen counted, whether the device took them or
 * not: all of them left the port's own queue.
 */
static unsigned int vcsw_slave_send(struct vcsw_slave *p, struct sk_buff_head *list,
				    u64 gen, u32 *units)
{
	unsigned int n = 0;
	struct sk_buff *skb;
	int rc;

	while ((skb = __skb_dequeue(list))) {
		struct vcsw_skb_cb cb = *vcsw_cb(skb);

		n++;
		if (cb.cgen && cb.cgen == gen)
			units[cb.cvc] += cb.cunits;

		if (cb.timed) {
			s64 ttd = (s64)(cb.deadline - ktime_get_ns());

			if (unlikely(fabric_hdr_set_ttd(skb, ETH_HLEN, ttd))) {
				vcsw_count(p, VCSW_PS_DROP_REWRITE);
				vcsw_credit_unsend(p, &cb);
				kfree_skb(skb);
				continue;
			}
		}
		if (unlikely(!netif_running(p->dev) || !netif_carrier_ok(p->dev))) {
			vcsw_count(p, VCSW_PS_DROP_DOWN);
			vcsw_credit_unsend(p, &cb);
			kfree_skb(skb);
			continue;
		}
		memset(skb->cb, 0, sizeof(skb->cb));
		skb->dev = p->dev;
		/* net_xmit_eval() is a macro that evaluates its argument twice */
		rc = dev_queue_xmit(skb);
		if (unlikely(net_xmit_eval(rc))) {
			vcsw_count(p, VCSW_PS_DROP_XMIT);
			vcsw_credit_unsend(p, &cb);
		}
	}
	return n;
}

/*
 * The most frames one call of vcsw_slave_flush() sends.  While it sends,
 * the other CPUs may keep filling p->txq (a port with no rate releases
 * every frame at once); without a bound the sending context could stay in
 * softirq for as long as they do.
 */
#define VCSW_FLUSH_QUOTA	64

/*
 * The frames that vcsw_slave_send() counted in @units (books of @gen) went
 * to the device: from now, time tells whether the VC is quiet (core
 * fcr_tx_quiet()), unless the books started again meanwhile (their
 * frames then were of the old ones).  p->lock held.
 */
static void vcsw_credit_handed(struct vcsw_slave *p, u64 gen, const u32 *units)
{
	unsigned int vc;
	u64 now;

	if (!p->credits || p->cp.gen != gen)
		return;
	now = ktime_get_ns();
	for (vc = 0; vc < VCSW_MAX_VCS; vc++)
		if (units[vc])
			fcr_tx_handed(&p->cp.l, vc, units[vc], now);
}

/*
 * Send what the buffer released onto p->txq, in that order.  The receive
 * path on every CPU, the timer and a configuration change all serve a
 * port; if each sent its own frames after dropping the lock, two of them
 * could hand frames to the device in the opposite order to the one the
 * buffer released them in (seen: UDP reordered through a virtio port).
 * So one context sends at a time: the one that finds nobody sending
 * takes the queue, and goes on until it finds it empty; the others
 * leave their frames to it.  After VCSW_FLUSH_QUOTA frames it leaves the
 * rest to the port's timer, armed to fire at once: a new softirq pass, so
 * softirq's own time limit (then ksoftirqd) applies.  Called with p->lock
 * held and bottom halves off, under RCU; returns with the lock released.
 */
static void vcsw_slave_flush(struct vcsw_slave *p)
	__releases(&p->lock)
{
	struct sk_buff_head list;
	u32 units[VCSW_MAX_VCS];
	unsigned int sent = 0;
	u64 gen;

	if (p->sending) {
		spin_unlock(&p->lock);
		return;
	}
	p->sending = true;
	__skb_queue_head_init(&list);
	while (!skb_queue_empty(&p->txq)) {
		unsigned int take = VCSW_FLUSH_QUOTA - sent;

		if (!take) {
			/*
			 * A dead port's frames are purged, not sent.  Pinned:
			 * unless another CPU's receive path takes the queue
			 * over first, the rest leaves from this CPU too, so a
			 * veth peer takes it into the same backlog, behind
			 * these.
			 */
			if (!p->dead)
				hrtimer_start(&p->timer, ktime_get(),
					      HRTIMER_MODE_ABS_PINNED_SOFT);
			break;
		}
		/* the whole queue when it fits, as it nearly always does */
		if (skb_queue_len(&p->txq) <= take)
			skb_queue_splice_tail_init(&p->txq, &list);
		else
			while (take--)
				__skb_queue_tail(&list, __skb_dequeue(&p->txq));
		gen = p->credits ? p->cp.gen : 0;
		spin_unlock(&p->lock);
		memset(units, 0, sizeof(units));
		sent += vcsw_slave_send(p, &list, gen, units);
		spin_lock(&p->lock);
		vcsw_credit_handed(p, gen, units);
	}
	p->sending = false;
	spin_unlock(&p->lock);
}

/* ---- the crossbar ------------------------------------------------------------ */

/*
 * Serve @p's output at @now: released frames go on its txq; @flush notes
 * the port.  Caller holds the switch's lock.
 */
static void vcsw_serve(struct vcsw_slave *p, u64 now, unsigned long *flush)
{
	spin_lock(&p->lock);
	if (!p->dead)
		vcsw_slave_service(p, now, &p->txq);
	if (!skb_queue_empty(&p->txq))
		__set_bit(p->idx, flush);
	spin_unlock(&p->lock);
}

/*
 * Run the crossbar at @now: move frames from the input buffers to the
 * outputs, VCSW_XBAR_BUDGET at most (the rest from the switch's timer,
 * a new softirq pass), each leaving its input with its credits given
 * back upstream, each output served as a frame reaches it.  Caller holds
 * the switch's lock; two port locks are never held at once.
 */
/*
 * Wormhole: the frames whose last byte has left their output's link
 * (@force: all of them) give their inputs' credits back.  The switch's
 * lock held.
 */
void vcsw_wormhole_release(struct vcsw *sw, u64 now, bool force)
{
	unsigned int i;

	lockdep_assert_held(&sw->lock);
	/* the crossbar's hot path: nothing to look at without wormhole */
	for (i = 0; sw->wh_held && i < sw->nslots; i++) {
		struct vcsw_slave *out = sw->slot_port[i];

		if (!out || !out->wh_from)
			continue;
		if (!force && (vcsw_port_qlen(&out->x.out) ||
			       !vcsw_port_link_ready(&out->x.out, now)))
			continue;
		vcsw_credit_release(out->wh_from, &out->wh_charge);
		out->wh_from = NULL;
		sw->wh_held--;
	}
}

static void vcsw_xbar_go(struct vcsw *sw, u64 now, unsigned long *flush)
{
	unsigned int moved = 0, from;
	struct vcsw_xbar_look look;
	struct vcsw_node *n;

	lockdep_assert_held(&sw->lock);
	vcsw_wormhole_release(sw, now, false);
	/* frames arrive under sw->lock, never during this run */
	vcsw_xbar_look_init(&look);
	while (sw->in_frames) {
		struct vcsw_ent *e;

		/*
		 * Past the budget, or with half of the RECN box used (the
		 * moves' arrivals and departures post): the rest after a
		 * delivery, from the timer
		 */
		if (moved == VCSW_XBAR_BUDGET || sw->recn_box.count >= VCSW_RQ_BOX / 2) {
			hrtimer_start(&sw->xbar_timer, 0, HRTIMER_MODE_REL_PINNED_SOFT);
			return;
		}
		n = vcsw_xbar_step(sw->slots, sw->nslots, sw->arch, now,
				   &sw->cursor, &from, &look);
		if (!n)
			return;
		moved++;
		sw->in_frames--;
		e = container_of(n, struct vcsw_ent, node);
		/* slots in use have their port: the frame was taken there */
		if (sw->slots[n->out]->wormhole) {
			/* its credits wait for its last byte on the output */
			struct vcsw_slave *out = sw->slot_port[n->out];

			/* an idle output holds nothing: never lose a charge */
			if (WARN_ON_ONCE(out->wh_from))
				vcsw_credit_release(out->wh_from, &out->wh_charge);
			else
				sw->wh_held++;
			out->wh_from = sw->slot_port[from];
			out->wh_charge = e->charge;
			e->charge.gen = 0;
		} else {
			vcsw_credit_release(sw->slot_port[from], &e->charge);
		}
		vcsw_serve(sw->slot_port[n->out], now, flush);
		/* an output without an emulated rate is free at once */
		vcsw_wormhole_release(sw, now, false);
	}
}

/*
 * Arch recn: deliver what the sets posted (vcsw_recn.c), and run the
 * crossbar again while that lets frames go (an Xon, a SAQ's wait over),
 * a few rounds; what is left waits for the tick.  The switch's lock held.
 */
static void vcsw_recn_settle(struct vcsw *sw, u64 now, unsigned long *flush)
{
	unsigned int round;

	for (round = 0; round < 4 && sw->recn_box.count; round++)
		if (vcsw_recn_deliver(sw, now, flush) && sw->in_frames)
			vcsw_xbar_go(sw, now, flush);
	if (sw->recn_box.count)
		vcsw_recn_arm(sw);
}

/* Flush the ports noted in @flush.  Under RCU, BHs off, no lock held. */
void vcsw_flush_ports(struct vcsw *sw, unsigned long *flush)
{
	unsigned int i;

	for_each_set_bit(i, flush, VCSW_FLUSH_BITS) {
		/* a port that left is freed only after a grace period */
		struct vcsw_slave *p = READ_ONCE(sw->slot_port[i]);

		if (!p)
			continue;
		/* RECN messages first: they stop and start what follows */
		if (!skb_queue_empty(&p->rp->txq))
			vcsw_recn_flush(p);
		spin_lock(&p->lock);
		vcsw_slave_flush(p);
	}
}

/*
 * Serve @p (NULL: none) and run the crossbar: an output freed room, or
 * credits came.  Under RCU, BHs off.
 */
void vcsw_kick(struct vcsw *sw, struct vcsw_slave *p)
{
	DECLARE_BITMAP(flush, VCSW_FLUSH_BITS);
	u64 now = ktime_get_ns();

	bitmap_zero(flush, VCSW_FLUSH_BITS);
	spin_lock(&sw->lock);
	if (p)
		vcsw_serve(p, now, flush);
	vcsw_xbar_go(sw, now, flush);
	vcsw_recn_settle(sw, now, flush);
	spin_unlock(&sw->lock);
	vcsw_flush_ports(sw, flush);
}

/*
 * After the RECN tick: deliver what it posted and, if @serve (a lease
 * ended: SAQs anywhere may go again), run the crossbar and serve every
 * port.  Under RCU, BHs off.
 */
void vcsw_kick_all(struct vcsw *sw, bool serve)
{
	DECLARE_BITMAP(flush, VCSW_FLUSH_BITS);
	u64 now = ktime_get_ns();
	unsigned int i;

	bitmap_zero(flush, VCSW_FLUSH_BITS);
	spin_lock(&sw->lock);
	if (serve) {
		vcsw_xbar_go(sw, now, flush);
		for (i = 0; i < sw->nslots; i++)
			if (sw->slot_port[i] && vcsw_port_qlen(&sw->slots[i]->out))
				vcsw_serve(sw->slot_port[i], now, flush);
	}
	vcsw_recn_settle(sw, now, flush);
	spin_unlock(&sw->lock);
	vcsw_flush_ports(sw, flush);
}

/*
 * vcsw_kick() from process context: a port's buffers were emptied (link
 * down, port gone), and inputs that waited for room there, or behind
 * frames for it, may move now; nothing else would wake them.
 */
void vcsw_kick_bh(struct vcsw *sw, struct vcsw_slave *p)
{
	rcu_read_lock();
	local_bh_disable();
	vcsw_kick(sw, p);
	local_bh_enable();
	rcu_read_unlock();
}

static enum hrtimer_restart vcsw_xbar_timer(struct hrtimer *t)
{
	rcu_read_lock();
	vcsw_kick(container_of(t, struct vcsw, xbar_timer), NULL);
	rcu_read_unlock();
	return HRTIMER_NORESTART;
}

/* The emulated link is free again, or the flush left frames to send. */
static enum hrtimer_restart vcsw_slave_timer(struct hrtimer *t)
{
	struct vcsw_slave *p = container_of(t, struct vcsw_slave, timer);

	rcu_read_lock();
	vcsw_kick(p->sw, p);
	rcu_read_unlock();
	return HRTIMER_NORESTART;
}

/*
 * Take every frame out of @p's input buffers, giving their credits back.
 * The switch's lock held.
 */
static void vcsw_input_purge(struct vcsw *sw, struct vcsw_slave *p, bool count)
{
	unsigned int vc;

	lockdep_assert_held(&sw->lock);
	for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
		struct vcsw_vc *v = &p->x.in[vc];
		struct vcsw_node *n;

		/* every frame, a stopped SAQ's too (arch recn) */
		while ((n = vcsw_vc_first(v))) {
			struct vcsw_ent *e = container_of(n, struct vcsw_ent, node);

			vcsw_vc_unlink(v, n);
			v->backlog -= n->len;
			sw->in_frames--;
			vcsw_credit_release(p, &e->charge);
			if (count)
				vcsw_count(p, VCSW_PS_DROP_DOWN);
			vcsw_ent_free(e);
		}
	}
}

/*
 * Drop everything waiting on @p's output (and with @inputs, in its input
 * buffers).  BHs on, RTNL held.
 */
static void vcsw_slave_purge(struct vcsw_slave *p, bool count, bool inputs)
{
	struct vcsw *sw = p->sw;
	struct sk_buff *skb;
	struct vcsw_node *n;

	spin_lock_bh(&sw->lock);
	if (inputs)
		vcsw_input_purge(sw, p, count);
	spin_lock(&p->lock);
	while ((n = vcsw_port_pop(&p->x.out))) {
		if (count)
			vcsw_count(p, VCSW_PS_DROP_DOWN);
		vcsw_ent_free(container_of(n, struct vcsw_ent, node));
	}
	/* released but not yet taken by the sending context: they took
	 * credits (p->lock held, so straight to the books) */
	while ((skb = __skb_dequeue(&p->txq))) {
		const struct vcsw_skb_cb *cb = vcsw_cb(skb);

		if (count)
			vcsw_count(p, VCSW_PS_DROP_DOWN);
		if (cb->cgen && p->credits && p->cp.gen == cb->cgen)
			fcr_tx_unqueue(&p->cp.l, cb->cvc, cb->clen);
		kfree_skb(skb);
	}
	if (fcr_woke(&p->cp.l))
		vcsw_credit_kick(p);
	spin_unlock(&p->lock);
	spin_unlock_bh(&sw->lock);
}

/* A new entry for @skb, or NULL (counted on @out). */
static struct vcsw_ent *vcsw_ent_new(struct vcsw_slave *out, struct sk_buff *skb,
				     const struct vcsw_fwd *fw, u8 from)
{
	struct vcsw_ent *e;

	if (unlikely(!netif_running(out->dev))) {
		vcsw_count(out, VCSW_PS_DROP_DOWN);
		return NULL;
	}
	/* as a bridge: nothing the output device's MTU cannot carry */
	if (unlikely(!is_skb_forwardable(out->dev, skb))) {
		vcsw_count(out, VCSW_PS_DROP_OVERSIZE);
		return NULL;
	}
	e = kmem_cache_alloc(vcsw_ent_cache, GFP_ATOMIC);
	if (unlikely(!e)) {
		vcsw_count(out, VCSW_PS_DROP_NOMEM);
		return NULL;
	}
	memset(&e->node, 0, sizeof(e->node));
	e->skb = skb;
	e->charge.gen = 0;
	e->node.deadline = fw->deadline;
	e->node.len = skb->len;
	e->node.vc = fw->vc;
	e->node.timed = fw->timed;
	e->node.out = out->idx;
	e->node.route = fw->route;
	e->node.sl = fw->sl;
	e->node.from = from;
	return e;
}

/*
 * Receive path (softirq, RCU), a frame from a port without credits:
 * straight into @out's buffer (drop-tail), and send what may go.
 */
void vcsw_forward_one(struct vcsw_slave *out, struct sk_buff *skb,
		      const struct vcsw_fwd *fw, u64 now)
{
	DECLARE_BITMAP(flush, VCSW_FLUSH_BITS);
	struct vcsw *sw = out->sw;
	struct vcsw_ent *e;

	/* no input buffer, so no RECN set upstream of the output to tell */
	e = vcsw_ent_new(out, skb, fw, RECN_NO_UPSTREAM);
	if (unlikely(!e)) {
		kfree_skb(skb);
		return;
	}
	bitmap_zero(flush, VCSW_FLUSH_BITS);
	spin_lock(&sw->lock);
	if (unlikely(READ_ONCE(out->dead))) {
		spin_unlock(&sw->lock);
		vcsw_count(out, VCSW_PS_DROP_DOWN);
		vcsw_ent_free(e);
		return;
	}
	if (unlikely(vcsw_port_enqueue(&out->x.out, &e->node, now) != VCSW_ENQ_OK)) {
		/* counted by the core as drops_full of the VC */
		spin_unlock(&sw->lock);
		vcsw_ent_free(e);
		return;
	}
	vcsw_serve(out, now, flush);
	if (sw->in_frames)
		vcsw_xbar_go(sw, now, flush);
	vcsw_recn_settle(sw, now, flush);
	spin_unlock(&sw->lock);
	vcsw_flush_ports(sw, flush);
}

/*
 * Receive path, a frame from @in, a port with credits, counted in @c:
 * into @in's input buffer, where it waits for the crossbar to move it to
 * @out's buffer when that has room.  Nothing is dropped for want of room
 * inside the switch; what is refused here (a sender beyond its credits
 * was refused before) gives its credits back.
 */
void vcsw_input_one(struct vcsw_slave *in, struct vcsw_slave *out,
		    struct sk_buff *skb, const struct vcsw_fwd *fw,
		    u64 now, struct fcr_charge *c)
{
	DECLARE_BITMAP(flush, VCSW_FLUSH_BITS);
	struct vcsw *sw = in->sw;
	struct vcsw_ent *e;

	e = vcsw_ent_new(out, skb, fw, (u8)in->idx);
	if (unlikely(!e)) {
		vcsw_credit_release(in, c);
		kfree_skb(skb);
		return;
	}
	e->charge = *c;
	c->gen = 0;
	bitmap_zero(flush, VCSW_FLUSH_BITS);
	spin_lock(&sw->lock);
	/* a port leaving gives up its slot first */
	if (unlikely(READ_ONCE(out->dead) || sw->slot_port[out->idx] != out)) {
		vcsw_count(out, VCSW_PS_DROP_DOWN);
		goto refuse;
	}
	/* counted as drops_full of the input VC */
	if (unlikely(vcsw_xbar_arrive(sw->slots, sw->nslots, in->idx, &e->node,
				      now) != VCSW_ENQ_OK))
		goto refuse;
	sw->in_frames++;
	vcsw_xbar_go(sw, now, flush);
	vcsw_recn_settle(sw, now, flush);
	spin_unlock(&sw->lock);
	vcsw_flush_ports(sw, flush);
	return;

refuse:
	vcsw_credit_release(in, &e->charge);
	spin_unlock(&sw->lock);
	vcsw_ent_free(e);
}

/* ---- ports: add and remove ------------------------------------------------- */

static int vcsw_add_slave(struct net_device *dev, struct net_device *sdev,
			  struct netlink_ext_ack *extack)
{
	struct vcsw *sw = netdev_priv(dev);
	struct vcsw_slave *p;
	int err, i, slot;

	if (sdev->type != ARPHRD_ETHER || sdev->addr_len != ETH_ALEN ||
	    (sdev->flags & IFF_LOOPBACK)) {
		NL_SET_ERR_MSG_MOD(extack, "a port must be an Ethernet device");
		return -EINVAL;
	}
	if (sdev->netdev_ops == &vcsw_netdev_ops) {
		NL_SET_ERR_MSG_MOD(extack, "a switch cannot be a port of a switch");
		return -ELOOP;
	}
	if (!net_eq(dev_net(sdev), dev_net(dev))) {
		NL_SET_ERR_MSG_MOD(extack, "port and switch must be in one namespace");
		return -EINVAL;
	}
	if (netdev_master_upper_dev_get(sdev)) {
		NL_SET_ERR_MSG_MOD(extack, "device already has a master");
		return -EBUSY;
	}
	if (netdev_is_rx_handler_busy(sdev)) {
		NL_SET_ERR_MSG_MOD(extack, "device already has a receive handler (bridge, bond, ...)");
		return -EBUSY;
	}
	/* its qdisc would wait for credits the switch's port takes first */
	if (fabric_link_dev_has_link(sdev)) {
		NL_SET_ERR_MSG_MOD(extack, "a qdisc on the device sends under credits: turn its credits off first");
		return -EBUSY;
	}
	/* slots change under RTNL only */
	for (slot = 0; slot < VCSW_MAX_PORTS; slot++)
		if (!sw->slot_port[slot])
			break;
	if (slot == VCSW_MAX_PORTS) {
		NL_SET_ERR_MSG_MOD(extack, "the switch has its 64 ports already");
		return -ENOSPC;
	}

	/* built complete, but not enabled: it neither learns nor forwards */
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->sw = sw;
	p->dev = sdev;
	p->idx = slot;
	spin_lock_init(&p->lock);
	skb_queue_head_init(&p->txq);
	/* credits off: the input buffers take nothing until they are on */
	p->credit_unit = FCR_DEFAULT_UNIT;
	fcr_port_init(&p->cp, p->credit_unit,
		      vcsw_in_bytes(0, p->credit_unit, sdev->mtu));
	fcr_set_vcs(&p->cp.l, sw->vcs);
	vcsw_xport_init(&p->x, sw->arch, 0, sw->buffer[0], sw->rate);
	vcsw_xport_set_vcs(&p->x, sw->vcs);
	p->x.wormhole = sw->wormhole;
	for (i = 0; i < VCSW_MAX_VCS; i++) {
		p->x.in[i].limit = vcsw_in_limit(p->cp.in_bytes, i);
		p->x.out.vc[i].limit = sw->buffer[i];
	}
	err = vcsw_recn_port_alloc(sw, p);
	if (err)
		goto err_free;
	atomic64_set(&p->cst_msgs_off, 0);
	atomic64_set(&p->cst_tx_fail, 0);
	fq_hrtimer_setup(&p->timer, vcsw_slave_timer, CLOCK_MONOTONIC,
			 HRTIMER_MODE_ABS_SOFT);
	fq_hrtimer_setup(&p->ctimer, vcsw_credit_timer, CLOCK_MONOTONIC,
			 HRTIMER_MODE_REL_SOFT);
	p->trusted = true;
	p->trust.exceed = VCSW_EXCEED_DROP;
	p->trust.ttd_min = VCSW_DEFAULT_TTD_MIN;
	p->trust.ttd_max = VCSW_DEFAULT_TTD_MAX;
	p->vc0_burst = VCSW_DEFAULT_VC0_BURST;
	spin_lock_init(&p->police_lock);
	vcsw_police_init(&p->police, 0, p->vc0_burst);
	for (i = 0; i < VCSW_PS_MAX; i++)
		atomic64_set(&p->st[i], 0);

	err = dev_set_promiscuity(sdev, 1);
	if (err)
		goto err_free;
	/* from here frames reach the handler, which drops them: !enabled */
	err = netdev_rx_handler_register(sdev, vcsw_handle_frame, p);
	if (err)
		goto err_promisc;
	err = netdev_master_upper_dev_link(sdev, dev, NULL, NULL, extack);
	if (err)
		goto err_handler;
	/* nothing fails from here on: make it a member */
	dev_hold(sdev);
	p->link_up = vcsw_slave_up(p);
	spin_lock_bh(&sw->lock);
	sw->slots[slot] = &p->x;
	sw->slot_port[slot] = p;
	sw->nslots = max_t(unsigned int, sw->nslots, slot + 1);
	spin_unlock_bh(&sw->lock);
	list_add_tail_rcu(&p->list, &sw->ports);
	WRITE_ONCE(p->enabled, true);
	return 0;

err_handler:
	/* waits for every handler that may have seen p: none kept it */
	netdev_rx_handler_unregister(sdev);
err_promisc:
	dev_set_promiscuity(sdev, -1);
err_free:
	vcsw_recn_port_free(p);
	kfree(p);
	return err;
}

/*
 * Free the frames taken out of @in's input buffer onto @gone, giving their
 * credits back; each counted as drop_down of @down if not NULL.  The
 * switch's lock held.
 */
void vcsw_input_free(struct vcsw_slave *in, struct vcsw_list *gone,
		     struct vcsw_slave *down)
{
	struct vcsw_node *n;

	lockdep_assert_held(&in->sw->lock);
	while ((n = gone->head)) {
		struct vcsw_ent *e = container_of(n, struct vcsw_ent, node);

		vcsw_list_unlink(gone, n);
		vcsw_credit_release(in, &e->charge);
		if (down)
			vcsw_count(down, VCSW_PS_DROP_DOWN);
		vcsw_ent_free(e);
	}
}

/*
 * Give up @p's slot: the frames in other ports' inputs bound for it can
 * never cross now (their credits go back upstream), its own inputs are
 * emptied, and the crossbar no longer sees it.  RTNL held.
 */
static void vcsw_slot_release(struct vcsw *sw, struct vcsw_slave *p)
{
	unsigned int i, vc;
	u64 now;

	spin_lock_bh(&sw->lock);
	now = ktime_get_ns();
	vcsw_input_purge(sw, p, true);
	/* wormhole: what @p's link held goes back; what @p's books lent is gone */
	if (p->wh_from) {
		vcsw_credit_release(p->wh_from, &p->wh_charge);
		p->wh_from = NULL;
		sw->wh_held--;
	}
	for (i = 0; i < sw->nslots; i++) {
		struct vcsw_slave *q = sw->slot_port[i];

		if (q && q->wh_from == p) {
			q->wh_from = NULL;
			sw->wh_held--;
		}
		if (!q || q == p)
			continue;
		for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
			struct vcsw_list gone;

			vcsw_list_init(&gone);
			sw->in_frames -= vcsw_vc_remove_out(&q->x.in[vc], p->idx, &gone, now);
			vcsw_input_free(q, &gone, p);
		}
	}
	sw->slots[p->idx] = &vcsw_xport_none;
	WRITE_ONCE(sw->slot_port[p->idx], NULL);
	while (sw->nslots && !sw->slot_port[sw->nslots - 1])
		sw->nslots--;
	spin_unlock_bh(&sw->lock);
}

/* RTNL held. */
static void vcsw_slave_remove(struct vcsw *sw, struct vcsw_slave *p)
{
	WRITE_ONCE(p->enabled, false);
	spin_lock_bh(&sw->lock);
	spin_lock(&p->lock);
	p->dead = true;
	spin_unlock(&p->lock);
	spin_unlock_bh(&sw->lock);
	/* neither re-arms itself, or is armed by others, on a dead port */
	hrtimer_cancel(&p->timer);
	hrtimer_cancel(&p->ctimer);

	netdev_rx_handler_unregister(p->dev);
	list_del_rcu(&p->list);
	netdev_upper_dev_unlink(p->dev, sw->dev);
	dev_set_promiscuity(p->dev, -1);
	/* no receive handler of this port runs now, so nothing learns it */
	synchronize_net();
	vcsw_fdb_flush_port(sw, p, true);
	vcsw_slot_release(sw, p);
	vcsw_kick_bh(sw, NULL);
	/*
	 * and nobody still holds a table entry, list pointer or slot to it;
	 * the crossbar can no longer move frames to it
	 */
	synchronize_net();
	vcsw_slave_purge(p, true, false);
	vcsw_recn_port_free(p);
	dev_put(p->dev);
	kfree(p);
}

static int vcsw_del_slave(struct net_device *dev, struct net_device *sdev)
{
	struct vcsw_slave *p = vcsw_slave_of_rtnl(sdev);

	if (!p || p->sw != netdev_priv(dev))
		return -EINVAL;
	vcsw_slave_remove(p->sw, p);
	return 0;
}

static int vcsw_netdev_event(struct notifier_block *nb, unsigned long event,
			     void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct vcsw_slave *p = vcsw_slave_of_rtnl(dev);

	if (!p)
		return NOTIFY_DONE;
	switch (event) {
	case NETDEV_PRE_TYPE_CHANGE:
		/*
		 * A port stays Ethernet (checked when it joined): a bond that
		 * takes a non-Ethernet slave would hand the receive path
		 * frames without the header it reads
		 */
		return notifier_from_errno(-EBUSY);
	case NETDEV_UNREGISTER:
		vcsw_slave_remove(p->sw, p);
		break;
	case NETDEV_UP:
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		if (!vcsw_slave_up(p))
			vcsw_slave_purge(p, true, false);
		vcsw_credit_link_change(p);
		vcsw_kick_bh(p->sw, p);
		break;
	case NETDEV_CHANGEMTU:
		vcsw_credit_mtu_change(p);
		break;
	}
	return NOTIFY_DONE;
}

static struct notifier_block vcsw_notifier = {
	.notifier_call = vcsw_netdev_event,
};

/* ---- the switch device ------------------------------------------------------ */

static netdev_tx_t vcsw_dev_xmit(struct sk_buff *skb, struct net_device *dev)
{
	/* the switch has no local port: what the host sends to it is lost */
	DEV_STATS_INC(dev, tx_dropped);
	dev_kfree_skb(skb);
	return NETDEV_TX_OK;
}

static int vcsw_dev_init(struct net_device *dev)
{
	struct vcsw *sw = netdev_priv(dev);

	return vcsw_fdb_init(sw);
}

static void vcsw_dev_uninit(struct net_device *dev)
{
	struct vcsw *sw = netdev_priv(dev);
	struct vcsw_slave *p, *tmp;

	cancel_delayed_work_sync(&sw->fdb_gc);
	list_for_each_entry_safe(p, tmp, &sw->ports, list)
		vcsw_slave_remove(sw, p);
	/* no port is left to arm them */
	hrtimer_cancel(&sw->xbar_timer);
	hrtimer_cancel(&sw->recn_timer);
	vcsw_fdb_flush_all(sw);
	/* no reader left: ports are gone, with a grace period each */
	vcsw_fdb_destroy(sw);
}

static int vcsw_dev_open(struct net_device *dev)
{
	struct vcsw *sw = netdev_priv(dev);

	queue_delayed_work(system_long_wq, &sw->fdb_gc, VCSW_GC_MIN_DELAY);
	/* RECN starts afresh: what its sets knew went with the frames */
	vcsw_recn_reset(sw);
	return 0;
}

/*
 * Down: forward nothing (the receive path checks netif_running(), which
 * is false before we are called), so drop what waits in the port
 * buffers and, as a bridge does, forget what was learned.
 */
int vcsw_dev_stop(struct net_device *dev)
{
	struct vcsw *sw = netdev_priv(dev);
	struct vcsw_slave *p;

	cancel_delayed_work_sync(&sw->fdb_gc);
	/* receive handlers that saw the switch up are done after this */
	synchronize_net();
	/*
	 * The RECN tick first: it serves every port, and would move frames
	 * from inputs not yet purged into outputs already purged.  Nothing
	 * starts it again (vcsw_recn_arm() looks at netif_running()).
	 */
	hrtimer_cancel(&sw->recn_timer);
	/*
	 * Every port's inputs, under one hold of the lock, before any
	 * output: the crossbar also runs from the ports' link timers and
	 * from link messages that grow credits, and between two ports'
	 * purges it moved frames from an input not yet purged into an
	 * output already purged.  They were sent while the switch was
	 * down, or, after "vcs 2", stayed in VC 2 or 3 for good.  With the
	 * inputs empty nothing reaches an output again: the receive path
	 * drops while down.
	 */
	spin_lock_bh(&sw->lock);
	sw->recn_ticking = false;
	list_for_each_entry(p, &sw->ports, list)
		vcsw_input_purge(sw, p, true);
	spin_unlock_bh(&sw->lock);
	list_for_each_entry(p, &sw->ports, list) {
		vcsw_slave_purge(p, true, false);
		vcsw_fdb_flush_port(sw, p, false);
	}
	/* nothing is left in an input for it to move */
	hrtimer_cancel(&sw->xbar_timer);
	return 0;
}

static const struct net_device_ops vcsw_netdev_ops = {
	.ndo_init		= vcsw_dev_init,
	.ndo_uninit		= vcsw_dev_uninit,
	.ndo_open		= vcsw_dev_open,
	.ndo_stop		= vcsw_dev_stop,
	.ndo_start_xmit		= vcsw_dev_xmit,
	.ndo_add_slave		= vcsw_add_slave,
	.ndo_del_slave		= vcsw_del_slave,
	.ndo_set_mac_address	= eth_mac_addr,
	.ndo_validate_addr	= eth_validate_addr,
};

void vcsw_setup(struct net_device *dev)
{
	struct vcsw *sw = netdev_priv(dev);
	unsigned int i;

	ether_setup(dev);
	dev->netdev_ops = &vcsw_netdev_ops;
	dev->needs_free_netdev = true;
	dev->priv_flags |= IFF_NO_QUEUE;
	fq_netdev_set_lltx(dev);
	/* its ports cannot follow it to another namespace: it stays */
	fq_netdev_set_netns_local(dev);
	eth_hw_addr_random(dev);

	sw->dev = dev;
	INIT_LIST_HEAD(&sw->ports);
	spin_lock_init(&sw->fdb_lock);
	INIT_LIST_HEAD(&sw->fdb_list);
	sw->fdb_hand = &sw->fdb_list;
	INIT_DELAYED_WORK(&sw->fdb_gc, vcsw_fdb_gc);
	for (i = 0; i < VCSW_SS_MAX; i++)
		atomic64_set(&sw->st[i], 0);
	spin_lock_init(&sw->lock);
	for (i = 0; i < VCSW_MAX_PORTS; i++)
		sw->slots[i] = &vcsw_xport_none;
	fq_hrtimer_setup(&sw->xbar_timer, vcsw_xbar_timer, CLOCK_MONOTONIC,
			 HRTIMER_MODE_REL_PINNED_SOFT);
	fq_hrtimer_setup(&sw->recn_timer, vcsw_recn_timer, CLOCK_MONOTONIC,
			 HRTIMER_MODE_REL_SOFT);
	vcsw_recn_defaults(&sw->recn_cfg);
	sw->arch = VCSW_DEFAULT_ARCH;
	sw->rate = 0;
	for (i = 0; i < VCSW_MAX_VCS; i++)
		sw->buffer[i] = VCSW_DEFAULT_BUFFER;
	sw->vcs = VCSW_NUM_VCS;
	sw->fdb_max = VCSW_DEFAULT_FDB_MAX;
	sw->ageing = VCSW_DEFAULT_AGEING;
	sw->group_fwd_mask = 0;
	sw->flood = true;
}

/* ---- module ------------------------------------------------------------------- */

static int __init vcsw_module_init(void)
{
	int err;

	vcsw_ent_cache = KMEM_CACHE(vcsw_ent, 0);
	if (!vcsw_ent_cache)
		return -ENOMEM;
	err = register_netdevice_notifier(&vcsw_notifier);
	if (err)
		goto err_cache;
	err = rtnl_link_register(&vcsw_link_ops);
	if (err)
		goto err_notifier;
	return 0;

err_notifier:
	unregister_netdevice_notifier(&vcsw_notifier);
err_cache:
	kmem_cache_destroy(vcsw_ent_cache);
	return err;
}

static void __exit vcsw_module_exit(void)
{
	/* deletes every switch, and with them every port and queued frame */
	rtnl_link_unregister(&vcsw_link_ops);
	unregister_netdevice_notifier(&vcsw_notifier);
	/* table entries are freed after a grace period */
	rcu_barrier();
	kmem_cache_destroy(vcsw_ent_cache);
}

module_init(vcsw_module_init);
module_exit(vcsw_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("Soft switch with two-VC deadline buffers, a crossbar and credit links (trad / simple / advanced / ideal / recn)");
MODULE_ALIAS_RTNL_LINK("vcsw");
