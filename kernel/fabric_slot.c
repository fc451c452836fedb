// SPDX-License-Identifier: GPL-2.0
/*
 * fabric_slot: FBS slot verification on the receive path (part of
 * fabric_hdr.ko; fabric_slot.h).
 *
 * The paper's prototype checks that every packet received was sent in
 * the slot the schedule gives it.  Here a sender's fbs qdisc ("verify
 * on") tags each frame with its slot and its node (the node is not
 * checked: any host can tag a frame, and so only skew these counts;
 * Documentation/trust.rst, "FBS"),
 * and the receiver's fbs qdisc publishes its own slot clock on the
 * device the frames arrive on.  A frame is expected to have arrived a
 * known delay after its slot began (one slot for a frame that fills its
 * slot over one hop); the receiver takes its arrival back by that delay
 * to the middle of a slot and asks its own clock which slot that is:
 * the frame's, or it came early or late by more than half a slot, the
 * paper's margin (Eq. 1).  The frame's time to deadline, which the
 * sender set to end a known time after its slot began, tells how long
 * after that the frame arrived: its latency, kept in a histogram.
 *
 * The clock is a copy of the executor under a seqlock: the qdisc writes
 * it as its slots end, the receive path reads it on any CPU.  Watches
 * are found by device in an RCU hash, as the credit links are.
 */
#include <linux/atomic.h>
#include <linux/hashtable.h>
#include <linux/netdevice.h>
#include <linux/rculist.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "fabric_slot.h"

struct fabric_slot_watch {
	struct hlist_node	node;
	struct net_device	*dev;
	struct rcu_head		rcu;
	seqlock_t		lock;
	struct fbs_exec		clock;		/* the executor's, as published */
	u64			delay_ns;
	u64			rate;		/* bytes/s; 0: a slot per frame */
	u32			frame;
	bool			set;		/* a clock was published */
	atomic64_t		frames, in_slot, early, late, foreign;
	atomic64_t		lat_sum, lat_max, lat_hist[FBS_LAT_BUCKETS];
};

#define FABRIC_SLOT_HASH_BITS	6
static DEFINE_HASHTABLE(fabric_slot_watches, FABRIC_SLOT_HASH_BITS);
static DEFINE_SPINLOCK(fabric_slot_hash_lock);

static struct fabric_slot_watch *fabric_slot_find(const struct net_device *dev)
{
	struct fabric_slot_watch *w;

	hash_for_each_possible_rcu(fabric_slot_watches, w, node, (unsigned long)dev)
		if (w->dev == dev)
			return w;
	return NULL;
}

struct fabric_slot_watch *fabric_slot_watch_get(struct net_device *dev,
						struct netlink_ext_ack *extack)
{
	struct fabric_slot_watch *w;

	ASSERT_RTNL();
	/* an RCU list, whoever else holds RTNL: as its readers read it */
	rcu_read_lock();
	w = fabric_slot_find(dev);
	rcu_read_unlock();
	if (w) {
		NL_SET_ERR_MSG_MOD(extack, "another qdisc on this device verifies slots already");
		return ERR_PTR(-EBUSY);
	}
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return ERR_PTR(-ENOMEM);
	w->dev = dev;
	seqlock_init(&w->lock);
	spin_lock_bh(&fabric_slot_hash_lock);
	hash_add_rcu(fabric_slot_watches, &w->node, (unsigned long)dev);
	spin_unlock_bh(&fabric_slot_hash_lock);
	return w;
}
EXPORT_SYMBOL_GPL(fabric_slot_watch_get);

void fabric_slot_watch_put(struct fabric_slot_watch *w)
{
	spin_lock_bh(&fabric_slot_hash_lock);
	hash_del_rcu(&w->node);
	spin_unlock_bh(&fabric_slot_hash_lock);
	kfree_rcu(w, rcu);
}
EXPORT_SYMBOL_GPL(fabric_slot_watch_put);

void fabric_slot_watch_set(struct fabric_slot_watch *w, const struct fbs_exec *e,
			   u64 delay_ns, u64 rate, u32 frame)
{
	/*
	 * BHs off: the qdisc's dequeue writes from softirq, its init from
	 * process context (lockdep: a softirq on this CPU would spin on the
	 * lock that the interrupted init holds)
	 */
	write_seqlock_bh(&w->lock);
	w->clock = *e;
	w->delay_ns = delay_ns;
	w->rate = rate;
	w->frame = frame;
	w->set = true;
	write_sequnlock_bh(&w->lock);
}
EXPORT_SYMBOL_GPL(fabric_slot_watch_set);

void fabric_slot_watch_read(struct fabric_slot_watch *w, struct fabric_slot_counts *c,
			    u64 *lat_hist)
{
	unsigned int i;

	/*
	 * A frame is counted, then judged: the verdicts read first and the
	 * total last, so that a frame arriving meanwhile never makes the
	 * verdicts add up to more than the total
	 */
	c->in_slot = atomic64_read(&w->in_slot);
	c->early = atomic64_read(&w->early);
	c->late = atomic64_read(&w->late);
	c->foreign = atomic64_read(&w->foreign);
	c->lat_sum_ns = atomic64_read(&w->lat_sum);
	c->lat_max_ns = atomic64_read(&w->lat_max);
	for (i = 0; i < FBS_LAT_BUCKETS; i++)
		lat_hist[i] = atomic64_read(&w->lat_hist[i]);
	smp_rmb();
	c->frames = atomic64_read(&w->frames);
}
EXPORT_SYMBOL_GPL(fabric_slot_watch_read);

/*
 * The latency of a frame of @len bytes with @ttd_ns left, by the watch's
 * settings as read with its clock, into the histogram
 */
static void fabric_slot_count_lat(struct fabric_slot_watch *w, const struct fbs_exec *clock,
				  u64 delay, u64 rate, u32 frame, s32 ttd_ns, u32 len)
{
	u64 wire = rate ? div64_u64((u64)len * NSEC_PER_SEC, rate) :
		   div_u64(clock->slot_ns * len, frame ?: 1);
	u64 lat = fbs_arrival_ns(delay + clock->slot_ns / 2, ttd_ns, wire);
	s64 max = atomic64_read(&w->lat_max);

	atomic64_add(lat, &w->lat_sum);
	atomic64_inc(&w->lat_hist[fbs_lat_bucket(lat, clock->slot_ns)]);
	/* receive paths on several CPUs: the largest one stays */
	while ((u64)max < lat) {
		s64 old = atomic64_cmpxchg(&w->lat_max, max, lat);

		if (old == max)
			break;
		max = old;
	}
}

void fabric_slot_rcv(struct net_device *dev, const struct fhc_fields *f, u32 len)
{
	struct fabric_slot_watch *w;
	struct fbs_exec clock;
	unsigned int seq;
	u64 now, delay, rate;
	u32 frame;
	bool set;

	if ((f->flow_id & FABRIC_SLOT_TAG_MASK) != FABRIC_SLOT_TAG)
		return;
	now = ktime_get_ns();
	rcu_read_lock();
	w = fabric_slot_find(dev);
	if (!w)
		goto out;
	do {
		seq = read_seqbegin(&w->lock);
		clock = w->clock;
		delay = w->delay_ns;
		rate = w->rate;
		frame = w->frame;
		set = w->set;
	} while (read_seqretry(&w->lock, seq));
	if (!set)
		goto out;
	atomic64_inc(&w->frames);
	smp_mb__after_atomic();		/* counted before judged: watch_read() */
	if (f->seq >= clock.slots) {
		atomic64_inc(&w->foreign);
		goto out;
	}
	fabric_slot_count_lat(w, &clock, delay, rate, frame, f->ttd_ns, len);
	/* where in our slots the frame's expected arrival falls: mid-slot */
	now += clock.slot_ns / 2;
	switch (fbs_exec_judge(&clock, f->seq, now > delay ? now - delay : 0)) {
	case FBS_IN_SLOT:
		atomic64_inc(&w->in_slot);
		break;
	case FBS_EARLY:
		atomic64_inc(&w->early);
		break;
	case FBS_LATE:
		atomic64_inc(&w->late);
		break;
	}
out:
	rcu_read_unlock();
}

void fabric_slot_exit(void)
{
	/* every qdisc put its watch before the module could go */
	WARN_ON(!hash_empty(fabric_slot_watches));
}
