// SPDX-License-Identifier: GPL-2.0
/*
 * fabric_slot: FBS slot verification on the receive path (part of
 * fabric_hdr.ko; fabric_slot.h).
 *
 * The paper's prototype checks that every packet received was sent in
 * the slot the schedule gives it, by the node it names.  Here a sender's
 * fbs qdisc ("verify on") tags each frame with its slot and its node,
 * and the receiver's fbs qdisc publishes its own slot clock on the
 * device the frames arrive on.  A frame is expected to have arrived a
 * known delay after its slot began (one slot for a frame that fills its
 * slot over one hop); the receiver takes its arrival back by that delay
 * to the middle of a slot and asks its own clock which slot that is:
 * the frame's, or it came early or late by more than half a slot, the
 * paper's margin (Eq. 1).
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
	bool			set;		/* a clock was published */
	atomic64_t		frames, in_slot, early, late, foreign;
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
	if (fabric_slot_find(dev)) {
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
			   u64 delay_ns)
{
	/*
	 * BHs off: the qdisc's dequeue writes from softirq, its init from
	 * process context (lockdep: a softirq on this CPU would spin on the
	 * lock that the interrupted init holds)
	 */
	write_seqlock_bh(&w->lock);
	w->clock = *e;
	w->delay_ns = delay_ns;
	w->set = true;
	write_sequnlock_bh(&w->lock);
}
EXPORT_SYMBOL_GPL(fabric_slot_watch_set);

void fabric_slot_watch_read(struct fabric_slot_watch *w, struct fabric_slot_counts *c)
{
	/*
	 * A frame is counted, then judged: the verdicts read first and the
	 * total last, so that a frame arriving meanwhile never makes the
	 * verdicts add up to more than the total
	 */
	c->in_slot = atomic64_read(&w->in_slot);
	c->early = atomic64_read(&w->early);
	c->late = atomic64_read(&w->late);
	c->foreign = atomic64_read(&w->foreign);
	smp_rmb();
	c->frames = atomic64_read(&w->frames);
}
EXPORT_SYMBOL_GPL(fabric_slot_watch_read);

void fabric_slot_rcv(struct net_device *dev, const struct fhc_fields *f)
{
	struct fabric_slot_watch *w;
	struct fbs_exec clock;
	unsigned int seq;
	u64 now, delay;
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
