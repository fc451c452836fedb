// SPDX-License-Identifier: GPL-2.0
/*
 * fabric_link_recn.c  RECN at a host's end of a credit link (part of
 * fabric_hdr.ko; Documentation/recn.rst, "Hosts").
 *
 * The vcsw port at the other end of the link, with "recn on", tells the
 * host of congested points its frames pass (NOTIFY), and stops and
 * starts what the host sends to them (XOFF, XON), in FABRIC_CTRL_RECN
 * frames.  The host keeps the SAQs of core/recn_host.h here, once per
 * device like the credits' books, for the qdiscs that turn RECN on
 * (edf's "recn on"; the children of mq share them): each counts its
 * frames in and out and holds back those of SAQs that may not go.
 *
 * What the host says back (RELEASE when a SAQ is freed, FULL when it had
 * none to give) is staged under the link's lock and sent by the tick,
 * started at once, straight to the driver as the credit messages are.
 * The tick also ends leases and frees SAQs left idle; it runs every
 * quarter lease while a SAQ is in use, and runs the device's queues when
 * a SAQ with frames may go.
 *
 * Locking: l->lock guards l->recn and everything in it.  The pointer
 * changes under RTNL too, and the struct is freed only after the timer
 * is cancelled: the timer and the receive path look at it only under
 * l->lock, having checked that l->recn is still theirs.
 */

#include <linux/etherdevice.h>
#include <linux/hrtimer.h>
#include <linux/netdevice.h>
#include <linux/slab.h>

#include "core/recn_wire.h"
#include "fabric_link_priv.h"
#include "fabric_route.h"

struct fabric_link_recn {
	struct fabric_link	*link;
	struct recn_host	h;
	struct recn_host_cfg	cfg;
	unsigned int		users;		/* qdiscs with it on; RTNL */
	struct hrtimer		timer;
	bool			ticking;	/* armed for the next period */
	u64			frames_rx;
	u64			frames_refused;
	atomic64_t		frames_tx;
	atomic64_t		msgs_dropped;	/* not sent */
};

static u64 fabric_link_recn_period(const struct fabric_link_recn *r)
{
	return max_t(u64, recn_host_period(r->cfg.lease_ns), 1000);
}

/*
 * Run the tick: at once to send what is staged (@now), else within a
 * period if it is not running.  l->lock held.
 */
static void fabric_link_recn_arm(struct fabric_link_recn *r, bool now)
{
	lockdep_assert_held(&r->link->lock);
	if (now) {
		r->ticking = true;
		hrtimer_start(&r->timer, 0, HRTIMER_MODE_REL_SOFT);
	} else if (!r->ticking) {
		r->ticking = true;
		hrtimer_start(&r->timer, ns_to_ktime(fabric_link_recn_period(r)),
			      HRTIMER_MODE_REL_SOFT);
	}
}

/* Put the staged messages on the wire, in one frame.  No lock held. */
static void fabric_link_recn_send(struct fabric_link_recn *r,
				  const struct recn_wire_msg *out, u32 n)
{
	u8 buf[FABRIC_HDR_LEN + FABRIC_CTRL_RECN_LEN(FABRIC_CTRL_RECN_MAX)];
	struct fhc_fields f = {
		.version = FABRIC_HDR_VERSION,
		.vc = FABRIC_VC_REGULATED,
		.inner_proto = ETH_P_FABRIC,
	};
	u32 len;

	fhc_encode(buf, &f);
	len = FABRIC_HDR_LEN + recn_wire_build(buf + FABRIC_HDR_LEN, out, n);
	rcu_read_lock();
	if (fabric_link_xmit_msg(r->link->dev, buf, len) < 0)
		atomic64_add(n, &r->msgs_dropped);
	else
		atomic64_inc(&r->frames_tx);
	rcu_read_unlock();
}

static enum hrtimer_restart fabric_link_recn_timer(struct hrtimer *t)
{
	struct fabric_link_recn *r = container_of(t, struct fabric_link_recn, timer);
	struct fabric_link *l = r->link;
	struct recn_wire_msg out[RECN_HOST_OUT_MAX];
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	bool busy, woke;
	u32 n;

	spin_lock(&l->lock);
	/* turned off: fabric_link_recn_put() cancels us before it frees */
	if (l->recn != r) {
		spin_unlock(&l->lock);
		return HRTIMER_NORESTART;
	}
	busy = recn_host_tick(&r->h, ktime_get_ns(), &woke);
	n = recn_host_take_out(&r->h, out);
	r->ticking = busy;
	/* armed again while we ran (a message staged): it stays so */
	if (busy && !hrtimer_is_queued(t)) {
		hrtimer_forward_now(t, ns_to_ktime(fabric_link_recn_period(r)));
		ret = HRTIMER_RESTART;
	}
	spin_unlock(&l->lock);
	if (n)
		fabric_link_recn_send(r, out, n);
	if (woke)
		netif_tx_schedule_all(l->dev);
	return ret;
}

/**
 * fabric_link_recn_get - turn RECN on for one more qdisc of @l
 * @l: the qdisc's link (credits on)
 * @cfg: its settings; those of the first qdisc hold for all
 * @extack: for the error
 *
 * RTNL.
 *
 * Return: 0 or a negative errno.
 */
int fabric_link_recn_get(struct fabric_link *l, const struct recn_host_cfg *cfg,
			 struct netlink_ext_ack *extack)
{
	struct fabric_link_recn *r = l->recn;	/* changes only under RTNL */

	ASSERT_RTNL();
	if (r) {
		if (!recn_host_cfg_eq(&r->cfg, cfg)) {
			NL_SET_ERR_MSG(extack,
				       "RECN on this device already runs with other recn_saqs, recn_lease or recn_idle");
			return -EBUSY;
		}
		r->users++;
		return 0;
	}
	r = kvzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->link = l;
	r->cfg = *cfg;
	r->users = 1;
	recn_host_init(&r->h, cfg);
	atomic64_set(&r->frames_tx, 0);
	atomic64_set(&r->msgs_dropped, 0);
	fq_hrtimer_setup(&r->timer, fabric_link_recn_timer, CLOCK_MONOTONIC,
			 HRTIMER_MODE_REL_SOFT);
	spin_lock_bh(&l->lock);
	l->recn = r;
	/* every qdisc counts its frames in: those queued before too */
	WRITE_ONCE(l->recn_gen, l->recn_gen + 1);
	spin_unlock_bh(&l->lock);
	return 0;
}
EXPORT_SYMBOL_GPL(fabric_link_recn_get);

/**
 * fabric_link_recn_can_set - may the qdisc give @l's RECN new settings?
 * @l: its link, RECN on
 * @cfg: the settings
 * @extack: for the error
 *
 * Only if no other qdisc shares it.  RTNL.
 *
 * Return: 0, or a negative errno with @extack set.
 */
int fabric_link_recn_can_set(struct fabric_link *l, const struct recn_host_cfg *cfg,
			     struct netlink_ext_ack *extack)
{
	ASSERT_RTNL();
	if (!recn_host_cfg_eq(&l->recn->cfg, cfg) && l->recn->users > 1) {
		NL_SET_ERR_MSG(extack,
			       "other qdiscs of this device share its RECN: turn recn off in all of them to change recn_saqs, recn_lease or recn_idle");
		return -EBUSY;
	}
	return 0;
}
EXPORT_SYMBOL_GPL(fabric_link_recn_can_set);

/*
 * New settings (fabric_link_recn_can_set() said yes), for a qdisc that
 * has no frame counted (it took them out: the sets start anew).  Every
 * SAQ goes (the switch frees its side after the idle time); the counters
 * go on.  RTNL; may be called under the qdisc's tree lock.
 */
void fabric_link_recn_set(struct fabric_link *l, const struct recn_host_cfg *cfg)
{
	struct fabric_link_recn *r = l->recn;
	struct recn_wire_msg out[RECN_HOST_OUT_MAX];
	struct recn_stats st[RECN_HOST_VCS];
	unsigned int vc;
	u32 n;

	ASSERT_RTNL();
	if (recn_host_cfg_eq(&r->cfg, cfg))
		return;
	spin_lock_bh(&l->lock);
	for (vc = 0; vc < RECN_HOST_VCS; vc++)
		st[vc] = r->h.set[vc].st;
	n = recn_host_take_out(&r->h, out);
	r->cfg = *cfg;
	recn_host_init(&r->h, cfg);
	for (vc = 0; vc < RECN_HOST_VCS; vc++)
		r->h.set[vc].st = st[vc];
	/* what the old SAQs had to say still goes, with the tick */
	memcpy(r->h.out, out, n * sizeof(out[0]));
	r->h.nout = n;
	if (n)
		fabric_link_recn_arm(r, true);
	WRITE_ONCE(l->recn_gen, l->recn_gen + 1);
	spin_unlock_bh(&l->lock);
}
EXPORT_SYMBOL_GPL(fabric_link_recn_set);

/*
 * Take @l's RECN state away and free it; what it still had to say (the
 * RELEASEs of SAQs the qdiscs just emptied) goes first.  RTNL.
 */
static void fabric_link_recn_drop(struct fabric_link *l)
{
	struct fabric_link_recn *r = l->recn;
	struct recn_wire_msg out[RECN_HOST_OUT_MAX];
	u32 n;

	spin_lock_bh(&l->lock);
	l->recn = NULL;
	n = recn_host_take_out(&r->h, out);
	spin_unlock_bh(&l->lock);
	/* waits for a running tick, which saw it was no longer ours */
	hrtimer_cancel(&r->timer);
	if (n) {
		local_bh_disable();
		fabric_link_recn_send(r, out, n);
		local_bh_enable();
	}
	kvfree(r);
}

/**
 * fabric_link_recn_put - a qdisc turns RECN off, or goes
 * @l: its link
 *
 * The qdisc has no frame counted in (it was empty, or purged).  The last
 * one frees the SAQs; the RELEASEs of those the qdisc emptied go out
 * first, and the switch frees the rest of its side after its idle time.
 * RTNL.
 */
void fabric_link_recn_put(struct fabric_link *l)
{
	ASSERT_RTNL();
	if (WARN_ON_ONCE(!l->recn) || --l->recn->users)
		return;
	fabric_link_recn_drop(l);
}
EXPORT_SYMBOL_GPL(fabric_link_recn_put);

/* The link goes: a qdisc that forgot to put its RECN leaves it here.  RTNL. */
void fabric_link_recn_free(struct fabric_link *l)
{
	if (l->recn)
		fabric_link_recn_drop(l);
}

/*
 * Where @skb's fabric header will say it goes: VC, SL and route from
 * @push or from its own header.  False for a frame that names no route
 * RECN could see (no header, or too short to hold one).
 */
static bool fabric_link_recn_dest(struct fabric_link *l, const struct sk_buff *skb,
				  const struct fhc_fields *push, struct fhc_fields *f)
{
	const struct ethhdr *eth = (const struct ethhdr *)skb->data;
	u8 buf[FABRIC_HDR_LEN];
	const u8 *hdr;

	if (skb_headlen(skb) < ETH_HLEN)
		return false;
	if (push) {
		*f = *push;
		if (!f->route)
			f->route = fabric_route_find(l->dev, eth->h_dest);
		return true;
	}
	if (eth->h_proto != htons(ETH_P_FABRIC))
		return false;
	hdr = skb_header_pointer(skb, ETH_HLEN, FABRIC_HDR_LEN, buf);
	if (!hdr)
		return false;
	fhc_decode(hdr, f);
	/* the VC the credits count it on: the switch's sets are those */
	f->vc = fcr_frame_vc(l->books.vcs, true, hdr, FABRIC_HDR_LEN);
	return true;
}

u16 fabric_link_recn_arrive(struct fabric_link *l, const struct sk_buff *skb,
			    const struct fhc_fields *push, u32 bytes)
{
	struct fhc_fields f;
	u32 q;

	if (!fabric_link_recn_dest(l, skb, push, &f) || f.vc >= RECN_HOST_VCS)
		return FABRIC_LINK_RECN_NONE;
	spin_lock_bh(&l->lock);
	q = l->recn ? recn_host_arrive(&l->recn->h, f.vc, f.route, f.sl, bytes,
				       ktime_get_ns()) : RECN_HOST_NONE;
	spin_unlock_bh(&l->lock);
	if (q == RECN_HOST_NONE)
		return FABRIC_LINK_RECN_NONE;
	return (u16)(f.vc << 8 | q);
}
EXPORT_SYMBOL_GPL(fabric_link_recn_arrive);

void fabric_link_recn_depart(struct fabric_link *l, u16 tag, u32 bytes)
{
	struct fabric_link_recn *r;

	if (tag == FABRIC_LINK_RECN_NONE)
		return;
	/* BHs on too: a qdisc's destroy purges its frames in process context */
	spin_lock_bh(&l->lock);
	r = l->recn;
	if (r) {
		recn_host_depart(&r->h, fabric_link_recn_tag_vc(tag), tag & 0xff, bytes,
				 ktime_get_ns());
		/* a SAQ freed: its RELEASE goes with the tick, at once */
		if (r->h.nout)
			fabric_link_recn_arm(r, true);
	}
	spin_unlock_bh(&l->lock);
}
EXPORT_SYMBOL_GPL(fabric_link_recn_depart);

u32 fabric_link_recn_gen(const struct fabric_link *l)
{
	return READ_ONCE(l->recn_gen);
}
EXPORT_SYMBOL_GPL(fabric_link_recn_gen);

/*
 * Where a frame counts now: in @tag's queue moved to where its route and
 * SL go today (a SAQ made since), or counted in afresh (it had no tag:
 * queued before RECN went on).  A frame whose VC changed since (ttd
 * turned on or off) leaves its old VC's count.
 */
u16 fabric_link_recn_retag(struct fabric_link *l, const struct sk_buff *skb,
			   const struct fhc_fields *push, u16 tag, u32 bytes)
{
	struct fabric_link_recn *r;
	u64 now = ktime_get_ns();
	struct fhc_fields f;
	u32 q = RECN_HOST_NONE;
	bool known;

	known = fabric_link_recn_dest(l, skb, push, &f);

	spin_lock_bh(&l->lock);
	r = l->recn;
	if (!r)
		goto out;
	if (tag != FABRIC_LINK_RECN_NONE &&
	    (!known || f.vc != fabric_link_recn_tag_vc(tag))) {
		recn_host_depart(&r->h, fabric_link_recn_tag_vc(tag), tag & 0xff, bytes, now);
		tag = FABRIC_LINK_RECN_NONE;
	}
	if (!known || f.vc >= RECN_HOST_VCS)
		goto out;
	if (tag == FABRIC_LINK_RECN_NONE)
		q = recn_host_arrive(&r->h, f.vc, f.route, f.sl, bytes, now);
	else
		q = recn_host_retag(&r->h, f.vc, tag & 0xff, f.route, f.sl, bytes, now);
out:
	/* a SAQ the frame left empty was freed: its RELEASE goes at once */
	if (r && r->h.nout)
		fabric_link_recn_arm(r, true);
	spin_unlock_bh(&l->lock);
	return q == RECN_HOST_NONE ? FABRIC_LINK_RECN_NONE : (u16)(f.vc << 8 | q);
}
EXPORT_SYMBOL_GPL(fabric_link_recn_retag);

u32 fabric_link_recn_ready(struct fabric_link *l, unsigned int vc)
{
	u32 ready;

	spin_lock(&l->lock);
	/* without RECN nothing is held back */
	ready = l->recn ? recn_host_ready(&l->recn->h, vc) : ~0u;
	spin_unlock(&l->lock);
	return ready;
}
EXPORT_SYMBOL_GPL(fabric_link_recn_ready);

/*
 * A FABRIC_CTRL_RECN frame from the switch (skb->data at the fabric
 * header): false if the link has no RECN on (the caller counts it as a
 * malformed link message, as before RECN), else taken whole or refused
 * whole, and consumed.  Bytes after its messages (the Ethernet padding of
 * a short frame) are not looked at.  Softirq, RCU.
 */
bool fabric_link_recn_rcv(struct fabric_link *l, struct sk_buff *skb)
{
	struct recn_wire_msg msg[FABRIC_CTRL_RECN_MAX];
	struct fabric_link_recn *r;
	enum recn_wire_err err = RECN_WIRE_LEN;
	bool woke = false;
	u32 len, n = 0;

	if (!READ_ONCE(l->recn))
		return false;
	len = FABRIC_HDR_LEN + FABRIC_CTRL_RECN_LEN(FABRIC_CTRL_RECN_MAX);
	if (pskb_may_pull(skb, min_t(u32, skb->len, len))) {
		len = min_t(u32, skb->len, skb_headlen(skb)) - FABRIC_HDR_LEN;
		len = recn_wire_len(skb->data + FABRIC_HDR_LEN, len);
		err = recn_wire_parse(skb->data + FABRIC_HDR_LEN, len, msg, &n);
	}
	spin_lock(&l->lock);
	r = l->recn;
	if (!r) {
		spin_unlock(&l->lock);
		return false;
	}
	if (err != RECN_WIRE_OK) {
		r->frames_refused++;
	} else {
		u32 gen = r->h.gen;

		r->frames_rx++;
		woke = recn_host_receive(&r->h, msg, n, ktime_get_ns());
		if (r->h.gen != gen)
			WRITE_ONCE(l->recn_gen, l->recn_gen + 1);
		/* a SAQ made or stopped: the tick ends its lease, frees it */
		fabric_link_recn_arm(r, r->h.nout);
	}
	spin_unlock(&l->lock);
	consume_skb(skb);
	/* an Xon: the qdiscs hold frames that may go now */
	if (woke)
		netif_tx_schedule_all(l->dev);
	return true;
}

void fabric_link_recn_read_stats(struct fabric_link *l, struct tc_fabric_recn_xstats *st)
{
	struct recn_stats sum = { 0 };
	struct fabric_link_recn *r;
	unsigned int vc;

	memset(st, 0, sizeof(*st));
	spin_lock_bh(&l->lock);
	r = l->recn;
	if (r) {
		for (vc = 0; vc < RECN_HOST_VCS; vc++)
			recn_stats_add(&sum, &r->h.set[vc].st);
		st->nsaq = r->cfg.nsaq;
		st->saqs = recn_host_saqs(&r->h);
		st->frames_rx = r->frames_rx;
		st->frames_refused = r->frames_refused;
		st->frames_tx = atomic64_read(&r->frames_tx);
		st->msgs_dropped = atomic64_read(&r->msgs_dropped) + r->h.out_dropped;
	}
	spin_unlock_bh(&l->lock);
	st->notify_rx = sum.notify_rx;
	st->xoff_rx = sum.xoff_rx;
	st->xon_rx = sum.xon_rx;
	st->release_tx = sum.release_tx;
	st->full_tx = sum.full_tx;
	st->saq_alloc = sum.saq_alloc;
	st->saq_idle_free = sum.saq_idle_free;
	st->lease_expired = sum.lease_expired;
	st->stale_rx = sum.stale_rx;
	st->bad_rx = sum.bad_rx;
}
EXPORT_SYMBOL_GPL(fabric_link_recn_read_stats);
