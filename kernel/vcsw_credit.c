// SPDX-License-Identifier: GPL-2.0
/*
 * vcsw: credit flow control on a port's link (Documentation/credits.rst):
 * the input buffers' sizes, the books as frames arrive and leave, the
 * periodic link message, and turning credits on and off.  The books
 * themselves are the portable core's (core/fabric_credit.h).
 */
#include <net/sch_generic.h>

#include "vcsw_priv.h"


bool vcsw_slave_up(const struct vcsw_slave *p)
{
	return netif_running(p->dev) && netif_carrier_ok(p->dev);
}

/*
 * The input buffer of @vc in effect: configured, or the default, two
 * full-size frames, in 64 bits: a device with no MTU ceiling (a dummy)
 * may have one of 2^31 - 1, whose two frames wrapped a u32 to 128.
 * No more than a buffer may be configured (VCSW_IN_BUFFER_MAX).
 */
u32 vcsw_in_bytes(u32 cfg, u32 unit, unsigned int mtu)
{
	u64 frame = roundup((u64)mtu + ETH_HLEN, unit);

	if (cfg)
		return cfg;
	return clamp_t(u64, 2 * frame, VCSW_DEFAULT_IN_BUFFER, VCSW_IN_BUFFER_MAX);
}

/*
 * What input VC @vc of a port whose buffers are @bytes may hold in
 * frames: the credit books decide what is taken, and besides each buffer
 * they keep room for frames found lost that come after all (at most a
 * buffer more, core fabric_credit.h).  And a frame an untrusted port
 * demotes from VC0 waits in input VC1 while it holds the VC0 credits its
 * sender counted it on: VC1 holds both.  A bound on memory, never the
 * reason for a drop.
 */
u32 vcsw_in_limit(const u32 *bytes, unsigned int vc)
{
	if (vc == 1)
		return 2 * (bytes[0] + bytes[1]);
	return 2 * bytes[vc];
}

/*
 * The base period of the port's link messages: a quarter of its smallest
 * input VC at the switch's link rate, 1 to 4 ms (core fcr_base_period());
 * an idle link's grows to 64 ms (fcr_msg_period()).  p->lock held.
 */
static u64 vcsw_credit_period(const struct vcsw_slave *p)
{
	u32 bytes = U32_MAX;
	unsigned int vc;

	for (vc = 0; vc < p->cp.l.vcs; vc++)
		bytes = min(bytes, p->cp.in_bytes[vc]);
	return fcr_base_period(bytes, READ_ONCE(p->sw->rate));
}

/* Send the link message soon, from the port's timer.  p->lock held. */
void vcsw_credit_kick(struct vcsw_slave *p)
{
	lockdep_assert_held(&p->lock);
	if (!p->dead && p->credits)
		hrtimer_start(&p->ctimer, 0, HRTIMER_MODE_REL_SOFT);
}

/*
 * Start the books again with a new epoch (credits turned on, a new unit,
 * the link back up): the peer takes it for a restart, and we believe no
 * grant until it has heard of the new epoch.  What frames counted in the
 * old books still hold stays out of the advertised buffer until they
 * leave.  p->lock held.
 */
void vcsw_credit_restart(struct vcsw_slave *p)
{
	u32 epoch;
	unsigned int vc;

	lockdep_assert_held(&p->lock);
	epoch = fcr_epoch_new(get_random_u32(), p->cp.l.epoch, p->cp.prev_epoch);
	fcr_port_start(&p->cp, epoch, p->credit_unit, FCR_DEFAULT_QUIET_NS);
	for (vc = 0; vc < VCSW_MAX_VCS; vc++)
		p->stalled[vc] = false;
}

/*
 * A data frame of @len bytes on @vc arrived on @p at @now: count it in
 * the books if the port has credits (@c says so; the frame now holds room
 * until vcsw_credit_release()).  False: the sender had no credits for it
 * (a violation, counted): drop it.
 */
bool vcsw_credit_arrive(struct vcsw_slave *p, struct fcr_charge *c,
			u32 len, u8 vc, u64 now)
{
	bool ok = true;

	c->gen = 0;
	spin_lock(&p->lock);
	if (!p->dead)
		ok = fcr_port_arrive(&p->cp, c, len, vc, now);
	/* a refusal moved the grant while our messages were backed off */
	if (unlikely(fcr_woke(&p->cp.l)))
		vcsw_credit_kick(p);
	spin_unlock(&p->lock);
	return ok;
}

/*
 * The frame counted in @c left @p's input, forwarded or dropped: its room
 * comes back, to these books or to what they advertise (counted by
 * earlier ones), and the peer hears of it soon if enough came back.
 */
void vcsw_credit_release(struct vcsw_slave *p, struct fcr_charge *c)
{
	bool tell;

	if (!c->gen)
		return;
	spin_lock(&p->lock);
	tell = fcr_port_release(&p->cp, c);
	/* or what we say changed while our messages were backed off */
	if (fcr_woke(&p->cp.l) || tell)
		vcsw_credit_kick(p);
	spin_unlock(&p->lock);
}

/*
 * Put the link message @msg on @p's wire (straight to the driver, never
 * behind the data it pays for: fabric_link_xmit_msg()).
 */
static void vcsw_credit_send(struct vcsw_slave *p, const u8 *msg, u32 len)
{
	if (!vcsw_slave_up(p) || fabric_link_xmit_msg(p->dev, msg, len))
		atomic64_inc(&p->cst_tx_fail);
}

/*
 * Whether @dev's qdiscs may still hold frames the port handed it.  Our
 * link messages go straight to the driver and overtake what waits there,
 * so a VC's quiet time runs from the first look that found this false
 * after its last frame (core fcr_tx_device_seen()): a shaping or
 * delaying qdisc on a port holds frames longer than the quiet time, and
 * each quiet total would count them lost again.  The driver's rings are
 * not looked at as such: byte queue limits would show our own messages
 * there, and a driver that reaps its completions late would keep a link
 * from ever being quiet.  (A lockless qdisc, pfifo_fast, reads as not
 * empty from the moment a run finds the ring stopped until a run after
 * the ring woke finds nothing: that only delays quiet.)  Racy reads, one
 * word per queue (qdisc_is_empty(), not a sum over CPUs): a guess in
 * time, as the quiet time is; each message asks again.  RCU held.
 */
static bool vcsw_dev_holds_frames(struct net_device *dev)
{
	unsigned int i;

	for (i = 0; i < dev->real_num_tx_queues; i++) {
		struct Qdisc *q = rcu_dereference(netdev_get_tx_queue(dev, i)->qdisc);

		if (q && !qdisc_is_empty(q))
			return true;
	}
	return false;
}

/*
 * The periodic link message, sooner when vcsw_credit_kick() asks, and
 * less often while the link is idle (the core's back-off,
 * fcr_msg_period(); what ends it kicks).  Every hrtimer_start() of this
 * timer is under p->lock, so is the look at whether one armed it again
 * while this ran: then it stays as armed (forwarding a queued timer is
 * not allowed).
 */
enum hrtimer_restart vcsw_credit_timer(struct hrtimer *t)
{
	struct vcsw_slave *p = container_of(t, struct vcsw_slave, ctimer);
	u8 msg[FCR_MSG_MAX];
	enum hrtimer_restart ret = HRTIMER_NORESTART;
	u64 now;
	u32 len;

	spin_lock(&p->lock);
	if (p->dead || !p->credits) {
		spin_unlock(&p->lock);
		return HRTIMER_NORESTART;
	}
	/*
	 * under p->lock: a frame is handed (vcsw_credit_handed()) once it
	 * is in the device, so what we do not see there now has left it,
	 * or still counts as queued
	 */
	now = ktime_get_ns();
	rcu_read_lock();
	fcr_tx_device_seen(&p->cp.l, now, vcsw_dev_holds_frames(p->dev));
	rcu_read_unlock();
	len = fcr_msg_build(&p->cp.l, msg, now);
	if (!hrtimer_is_queued(t)) {
		hrtimer_forward_now(t, ns_to_ktime(fcr_msg_period(&p->cp.l,
								 vcsw_credit_period(p))));
		ret = HRTIMER_RESTART;
	}
	spin_unlock(&p->lock);
	rcu_read_lock();
	vcsw_credit_send(p, msg, len);
	rcu_read_unlock();
	return ret;
}

/*
 * The port's link came up or went down (RTNL): on the way up, a port with
 * credits starts its books again, so whatever the link lost while down
 * (frames, messages, the peer's own restart) costs nothing.
 */
void vcsw_credit_link_change(struct vcsw_slave *p)
{
	bool up = vcsw_slave_up(p);

	if (up == p->link_up)
		return;
	p->link_up = up;
	spin_lock_bh(&p->lock);
	if (up && p->credits) {
		vcsw_credit_restart(p);
		vcsw_credit_kick(p);
	}
	spin_unlock_bh(&p->lock);
}

/*
 * Input buffer sizes in effect for @cfg (0: the default), applied to the
 * buffers and the books.  The switch's lock and p->lock held.
 */
static void vcsw_credit_set_sizes(struct vcsw_slave *p, const u32 *cfg)
{
	unsigned int vc;

	for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
		p->in_cfg[vc] = cfg[vc];
		fcr_port_set_buffer(&p->cp, vc,
				    vcsw_in_bytes(cfg[vc], p->credit_unit, p->dev->mtu));
	}
	for (vc = 0; vc < VCSW_MAX_VCS; vc++)
		p->x.in[vc].limit = vcsw_in_limit(p->cp.in_bytes, vc);
	/* a new grant while our messages were backed off */
	if (fcr_woke(&p->cp.l))
		vcsw_credit_kick(p);
}

/* A new MTU changes the default input buffers.  RTNL held. */
void vcsw_credit_mtu_change(struct vcsw_slave *p)
{
	u32 cfg[VCSW_MAX_VCS];

	spin_lock_bh(&p->sw->lock);
	spin_lock(&p->lock);
	memcpy(cfg, p->in_cfg, sizeof(cfg));
	vcsw_credit_set_sizes(p, cfg);
	spin_unlock(&p->lock);
	spin_unlock_bh(&p->sw->lock);
}

/*
 * Credits on or off, the unit, the input buffers (validated).  Turning
 * them on or changing the unit starts new books (a new epoch); turning
 * them off leaves what the input holds to drain, lossy from then on.
 * RTNL held.
 */
void vcsw_credit_configure(struct vcsw_slave *p, bool on, u32 unit,
			   const u32 *cfg)
{
	struct vcsw *sw = p->sw;
	unsigned int vc;
	bool restart;

	spin_lock_bh(&sw->lock);
	spin_lock(&p->lock);
	restart = on && (!p->credits || unit != p->credit_unit);
	if (p->credits && !on) {
		/* what the input holds drains; counted by closed books */
		fcr_port_stop(&p->cp);
		for (vc = 0; vc < VCSW_MAX_VCS; vc++)
			p->stalled[vc] = false;
	}
	WRITE_ONCE(p->credits, on);
	p->credit_unit = unit;
	if (restart)
		vcsw_credit_restart(p);
	vcsw_credit_set_sizes(p, cfg);
	if (on)
		vcsw_credit_kick(p);
	spin_unlock(&p->lock);
	spin_unlock_bh(&sw->lock);
	/* without credits what waited for them goes; the crossbar may move */
	vcsw_kick_bh(sw, p);
}
