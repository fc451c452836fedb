// SPDX-License-Identifier: GPL-2.0
/*
 * vcsw: a soft switch whose output ports have the two-VC buffers of
 * edf-deadline-qos-two-vcs (sections 3.2 to 3.4).
 *
 *	ip link add sw0 type vcsw vc0 takeover rate 1gbit vc0_buffer 64k
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
 * switch's discipline (fifo / takeover / ideal) strictly before the VC1
 * FIFO, each VC within its byte limit.  With a rate the port emulates a
 * link of that speed: a frame may start only when the previous one has
 * been "on the wire" for len / rate, an hrtimer wakes the port then, so
 * queues really form on veth.  On departure the header's TTD becomes
 * D - now.
 *
 * Locking: configuration and port membership change under RTNL.  The
 * port list and the forwarding table are read under RCU from the receive
 * path (softirq).  Each port's buffer is guarded by its spinlock, taken
 * by the receive path of any port, by the port's hrtimer (softirq mode)
 * and, with BHs off, by configuration; frames are handed to the device
 * after the lock is dropped.  A port's trust settings and policer have a
 * lock of their own, taken on that port's receive path and, with BHs
 * off, by configuration.  Never two port locks at once; the table's lock
 * nests in none.
 *
 * A port joins in the order of the bridge's br_add_if(): it is built,
 * its receive handler registered (frames it gets then are dropped, not
 * learned or forwarded), the upper-device link made, and only then is it
 * listed and enabled; a failure undoes exactly the steps taken, and the
 * port was never reachable from the table or the port list.
 */
#include <linux/etherdevice.h>
#include <linux/hrtimer.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/jiffies.h>
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netdevice.h>
#include <linux/rculist.h>
#include <linux/rhashtable.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/netlink.h>
#include <net/rtnetlink.h>

#include "include/uapi/linux/vcsw.h"
#include "core/vcsw_clock.h"
#include "core/vcsw_port.h"
#include "core/vcsw_trust.h"
#include "fabric_hdr.h"

#define VCSW_DEFAULT_MODE	VCSW_MODE_TAKEOVER
#define VCSW_DEFAULT_BUFFER	65536
#define VCSW_DEFAULT_FDB_MAX	1024
#define VCSW_DEFAULT_AGEING	300
/* entries the clock hand looks at, at most, to find one to evict */
#define VCSW_FDB_EVICT_SCAN	32
/* the collector runs again after the next expiry, within these bounds */
#define VCSW_GC_MIN_DELAY	(HZ / 10)
#define VCSW_GC_MAX_DELAY	(10 * HZ)

/* untrusted ports by default believe no regulated traffic, TTD 0 .. 100 ms */
#define VCSW_DEFAULT_VC0_BURST	16384
#define VCSW_DEFAULT_TTD_MIN	0
#define VCSW_DEFAULT_TTD_MAX	100000000

/* Port counters, in the order of struct vcsw_port_stats. */
enum vcsw_pstat {
	VCSW_PS_RX_PACKETS,
	VCSW_PS_RX_BYTES,
	VCSW_PS_RX_FABRIC,
	VCSW_PS_DROP_MALFORMED,
	VCSW_PS_DROP_NOMEM,
	VCSW_PS_DROP_DOWN,
	VCSW_PS_DROP_XMIT,
	VCSW_PS_DROP_REWRITE,
	VCSW_PS_DROP_LOOP,
	VCSW_PS_FLOODED,
	VCSW_PS_DROP_DISABLED,
	VCSW_PS_DROP_LINK_LOCAL,
	VCSW_PS_DROP_OVERSIZE,
	VCSW_PS_POLICE_DROP,
	VCSW_PS_POLICE_DEMOTE,
	VCSW_PS_TTD_CLAMPED,
	VCSW_PS_MAX,
};

/* Switch counters, in the order of struct vcsw_stats. */
enum vcsw_sstat {
	VCSW_SS_FDB_LEARNED,
	VCSW_SS_FDB_MOVED,
	VCSW_SS_FDB_AGED,
	VCSW_SS_FDB_EVICTED,
	VCSW_SS_FDB_LEARN_FAIL,
	VCSW_SS_MAX,
};

struct vcsw;

struct vcsw_slave {
	struct list_head	list;		/* in vcsw->ports, RCU */
	struct vcsw		*sw;
	struct net_device	*dev;
	bool			enabled;	/* a member: learns, forwards */
	spinlock_t		lock;		/* @q, @dead, @txq, @sending */
	bool			dead;		/* leaving: refuse frames */
	struct vcsw_port	q;
	/*
	 * Frames the buffer released, in order, for the one context that
	 * is handing them to the device (@sending): see vcsw_slave_flush().
	 */
	struct sk_buff_head	txq;
	bool			sending;
	struct hrtimer		timer;		/* link free again */
	/* trust: written under RTNL, read by the receive path */
	bool			trusted;
	u32			vc0_burst;
	/*
	 * @trust and @police, written under RTNL and this lock: the receive
	 * path sees a configuration change whole (never a new ttd_min with
	 * an old ttd_max).
	 */
	spinlock_t		police_lock;
	struct vcsw_trust	trust;
	struct vcsw_police	police;
	atomic64_t		st[VCSW_PS_MAX];
};

struct vcsw_fdb {
	struct rhash_head	rhnode;		/* in vcsw->fdb, key @addr */
	struct list_head	list;		/* in vcsw->fdb_list, RCU */
	struct rcu_head		rcu;
	u8			addr[ETH_ALEN];
	bool			is_static;	/* READ_ONCE: fdb_add sets it */
	bool			gone;		/* deleted; under fdb_lock */
	bool			hit;		/* seen since the hand passed */
	struct vcsw_slave	*port;		/* READ_ONCE: learning moves it */
	unsigned long		updated;	/* jiffies */
};

struct vcsw {
	struct net_device	*dev;
	struct list_head	ports;		/* RTNL writes, RCU reads */
	spinlock_t		fdb_lock;	/* table, list, hand and count */
	struct rhashtable	fdb;
	struct list_head	fdb_list;	/* every entry: the clock's circle */
	struct list_head	*fdb_hand;	/* next entry the clock looks at */
	u32			fdb_count;
	struct delayed_work	fdb_gc;
	atomic64_t		st[VCSW_SS_MAX];
	/* configuration: written under RTNL, read by the data path */
	u32			fdb_max;
	u32			ageing;		/* s; 0: never */
	u16			group_fwd_mask;
	u8			mode;
	u64			rate;
	u32			buffer[VCSW_NUM_VCS];
};

static const struct rhashtable_params vcsw_fdb_params = {
	.head_offset		= offsetof(struct vcsw_fdb, rhnode),
	.key_offset		= offsetof(struct vcsw_fdb, addr),
	.key_len		= ETH_ALEN,
	.automatic_shrinking	= true,
};

/* A queued frame: the core's node plus the frame. */
struct vcsw_ent {
	struct vcsw_node	node;
	struct sk_buff		*skb;
};

/* Carried from dequeue to transmission, outside the port lock. */
struct vcsw_skb_cb {
	u64	deadline;
	bool	timed;
};

static struct kmem_cache *vcsw_ent_cache __read_mostly;
static const struct net_device_ops vcsw_netdev_ops;

static struct vcsw_skb_cb *vcsw_cb(struct sk_buff *skb)
{
	BUILD_BUG_ON(sizeof(struct vcsw_skb_cb) > sizeof(skb->cb));
	return (struct vcsw_skb_cb *)skb->cb;
}

static void vcsw_count(struct vcsw_slave *p, enum vcsw_pstat s)
{
	atomic64_inc(&p->st[s]);
}

static void vcsw_sw_count(struct vcsw *sw, enum vcsw_sstat s)
{
	atomic64_inc(&sw->st[s]);
}

static rx_handler_result_t vcsw_handle_frame(struct sk_buff **pskb);

/* The port behind @dev, or NULL; caller holds RTNL. */
static struct vcsw_slave *vcsw_slave_of_rtnl(const struct net_device *dev)
{
	if (rcu_access_pointer(dev->rx_handler) != vcsw_handle_frame)
		return NULL;
	return rcu_dereference_rtnl(dev->rx_handler_data);
}

/* ---- forwarding table ---------------------------------------------------- */

/* Caller holds rcu_read_lock(). */
static struct vcsw_fdb *vcsw_fdb_find_rcu(struct vcsw *sw, const u8 *addr)
{
	return rhashtable_lookup(&sw->fdb, addr, vcsw_fdb_params);
}

/* Caller holds fdb_lock. */
static struct vcsw_fdb *vcsw_fdb_find_locked(struct vcsw *sw, const u8 *addr)
{
	lockdep_assert_held(&sw->fdb_lock);
	return rhashtable_lookup_fast(&sw->fdb, addr, vcsw_fdb_params);
}

static bool vcsw_fdb_expired(const struct vcsw *sw, const struct vcsw_fdb *f,
			     unsigned long now)
{
	u32 ageing = READ_ONCE(sw->ageing);

	return !READ_ONCE(f->is_static) && ageing &&
	       time_after(now, READ_ONCE(f->updated) + ageing * HZ);
}

static void vcsw_fdb_del(struct vcsw *sw, struct vcsw_fdb *f)
{
	lockdep_assert_held(&sw->fdb_lock);
	rhashtable_remove_fast(&sw->fdb, &f->rhnode, vcsw_fdb_params);
	if (sw->fdb_hand == &f->list)
		sw->fdb_hand = f->list.next;
	list_del_rcu(&f->list);
	f->gone = true;
	sw->fdb_count--;
	kfree_rcu(f, rcu);
}

/*
 * The table as the clock's circle (core/vcsw_clock.h): fdb_list in order,
 * the hand sw->fdb_hand, which steps over the list head.  Expiry is
 * judged at one @now for the whole walk.  fdb_lock held.
 */
struct vcsw_fdb_clock {
	struct vcsw	*sw;
	unsigned long	now;
};

static void *vcsw_fdb_clock_advance(void *circle)
{
	struct vcsw *sw = ((struct vcsw_fdb_clock *)circle)->sw;
	struct list_head *pos = sw->fdb_hand;

	if (pos == &sw->fdb_list)
		pos = pos->next;
	if (pos == &sw->fdb_list)
		return NULL;
	sw->fdb_hand = pos->next;
	return list_entry(pos, struct vcsw_fdb, list);
}

static bool vcsw_fdb_clock_is_static(void *circle, void *entry)
{
	return ((struct vcsw_fdb *)entry)->is_static;
}

/* hit is set by learning without the lock */
static bool vcsw_fdb_clock_hit(void *circle, void *entry)
{
	return READ_ONCE(((struct vcsw_fdb *)entry)->hit);
}

static void vcsw_fdb_clock_clear_hit(void *circle, void *entry)
{
	WRITE_ONCE(((struct vcsw_fdb *)entry)->hit, false);
}

static bool vcsw_fdb_clock_expired(void *circle, void *entry)
{
	struct vcsw_fdb_clock *c = circle;

	return vcsw_fdb_expired(c->sw, entry, c->now);
}

static const struct vcsw_clock_ops vcsw_fdb_clock_ops = {
	.advance	= vcsw_fdb_clock_advance,
	.is_static	= vcsw_fdb_clock_is_static,
	.hit		= vcsw_fdb_clock_hit,
	.clear_hit	= vcsw_fdb_clock_clear_hit,
	.expired	= vcsw_fdb_clock_expired,
};

/*
 * Make room for one entry: the learned entry the clock picks, looking at
 * @scan entries at most, static ones included.  False if it found only
 * static entries.  Caller holds fdb_lock.
 */
static bool vcsw_fdb_evict_one(struct vcsw *sw, unsigned int scan)
{
	struct vcsw_fdb_clock c = { .sw = sw, .now = jiffies };
	struct vcsw_fdb *victim;

	lockdep_assert_held(&sw->fdb_lock);
	victim = vcsw_clock_victim(&vcsw_fdb_clock_ops, &c, scan);
	if (!victim)
		return false;
	vcsw_fdb_del(sw, victim);
	vcsw_sw_count(sw, VCSW_SS_FDB_EVICTED);
	return true;
}

/*
 * Insert @f (filled in) for its address, evicting a learned entry if the
 * table is at its bound.  0, -EEXIST (the address has an entry), -ENOSPC
 * (only static entries) or the table's error.  Caller holds fdb_lock.
 */
static int vcsw_fdb_insert(struct vcsw *sw, struct vcsw_fdb *f)
{
	int err;

	lockdep_assert_held(&sw->fdb_lock);
	if (vcsw_fdb_find_locked(sw, f->addr))
		return -EEXIST;
	if (sw->fdb_count >= READ_ONCE(sw->fdb_max) &&
	    !vcsw_fdb_evict_one(sw, VCSW_FDB_EVICT_SCAN))
		return -ENOSPC;
	err = rhashtable_lookup_insert_fast(&sw->fdb, &f->rhnode, vcsw_fdb_params);
	if (err)
		return err;
	/* behind the hand: the last the clock looks at */
	list_add_tail_rcu(&f->list, sw->fdb_hand);
	sw->fdb_count++;
	return 0;
}

/* Receive path: remember that @addr lives behind @p. */
static void vcsw_fdb_learn(struct vcsw *sw, struct vcsw_slave *p,
			   const u8 *addr)
{
	struct vcsw_fdb *f;
	int err;

	f = vcsw_fdb_find_rcu(sw, addr);
	if (likely(f)) {
		if (READ_ONCE(f->is_static))
			return;
		if (unlikely(READ_ONCE(f->port) != p)) {
			WRITE_ONCE(f->port, p);
			vcsw_sw_count(sw, VCSW_SS_FDB_MOVED);
		}
		if (READ_ONCE(f->updated) != jiffies)
			WRITE_ONCE(f->updated, jiffies);
		if (!READ_ONCE(f->hit))
			WRITE_ONCE(f->hit, true);
		return;
	}

	f = kzalloc(sizeof(*f), GFP_ATOMIC);
	if (unlikely(!f)) {
		vcsw_sw_count(sw, VCSW_SS_FDB_LEARN_FAIL);
		return;
	}
	ether_addr_copy(f->addr, addr);
	f->port = p;
	f->updated = jiffies;
	spin_lock(&sw->fdb_lock);
	err = vcsw_fdb_insert(sw, f);
	spin_unlock(&sw->fdb_lock);
	if (likely(!err)) {
		vcsw_sw_count(sw, VCSW_SS_FDB_LEARNED);
		return;
	}
	/* -EEXIST: another CPU learned it first */
	if (err != -EEXIST)
		vcsw_sw_count(sw, VCSW_SS_FDB_LEARN_FAIL);
	kfree(f);
}

/* Forget @p's entries: learned only, or all (port leaving). */
static void vcsw_fdb_flush_port(struct vcsw *sw, struct vcsw_slave *p,
				bool with_static)
{
	struct vcsw_fdb *f, *tmp;

	spin_lock_bh(&sw->fdb_lock);
	list_for_each_entry_safe(f, tmp, &sw->fdb_list, list)
		if (f->port == p && (with_static || !f->is_static))
			vcsw_fdb_del(sw, f);
	spin_unlock_bh(&sw->fdb_lock);
}

static void vcsw_fdb_flush_all(struct vcsw *sw)
{
	struct vcsw_fdb *f, *tmp;

	spin_lock_bh(&sw->fdb_lock);
	list_for_each_entry_safe(f, tmp, &sw->fdb_list, list)
		vcsw_fdb_del(sw, f);
	spin_unlock_bh(&sw->fdb_lock);
}

/* entries trimmed per hold of fdb_lock when the bound is lowered */
#define VCSW_FDB_TRIM_BATCH	256

/*
 * Down to fdb_max entries after the bound was lowered, learned entries
 * only.  Each eviction may look at the whole circle: a run of static
 * entries ahead of the hand must not stop the trim while learned ones
 * remain behind it (the hand moves on, so the walk stays linear).  The
 * lock is let go between batches: from 65536 entries to 1 is too long
 * to keep bottom halves off.  RTNL held.
 */
static void vcsw_fdb_trim(struct vcsw *sw)
{
	bool more = true;
	unsigned int n;

	while (more) {
		spin_lock_bh(&sw->fdb_lock);
		for (n = 0; n < VCSW_FDB_TRIM_BATCH; n++) {
			more = sw->fdb_count > sw->fdb_max &&
			       vcsw_fdb_evict_one(sw, sw->fdb_count);
			if (!more)
				break;
		}
		spin_unlock_bh(&sw->fdb_lock);
		cond_resched();
	}
}

static int vcsw_fdb_add_static(struct vcsw *sw, struct vcsw_slave *p,
			       const u8 *addr, struct netlink_ext_ack *extack)
{
	struct vcsw_fdb *f, *n;
	int err = 0;

	if (!is_valid_ether_addr(addr)) {
		NL_SET_ERR_MSG_MOD(extack, "static entry needs a unicast address");
		return -EINVAL;
	}
	n = kzalloc(sizeof(*n), GFP_KERNEL);
	if (!n)
		return -ENOMEM;
	ether_addr_copy(n->addr, addr);
	n->port = p;
	n->is_static = true;
	n->updated = jiffies;
	spin_lock_bh(&sw->fdb_lock);
	f = vcsw_fdb_find_locked(sw, addr);
	if (f) {
		/* a learned or static entry becomes static here */
		WRITE_ONCE(f->port, p);
		WRITE_ONCE(f->is_static, true);
		goto out;
	}
	err = vcsw_fdb_insert(sw, n);
	if (err == -ENOSPC)
		NL_SET_ERR_MSG_MOD(extack, "forwarding table full of static entries (fdb_max)");
	else if (err)
		NL_SET_ERR_MSG_MOD(extack, "cannot insert the entry");
	else
		n = NULL;
out:
	spin_unlock_bh(&sw->fdb_lock);
	kfree(n);
	return err;
}

/* Whether @addr has a static entry on @p.  RTNL held. */
static bool vcsw_fdb_has_static(struct vcsw *sw, struct vcsw_slave *p,
				const u8 *addr)
{
	struct vcsw_fdb *f;
	bool found;

	spin_lock_bh(&sw->fdb_lock);
	f = vcsw_fdb_find_locked(sw, addr);
	found = f && f->is_static && f->port == p;
	spin_unlock_bh(&sw->fdb_lock);
	return found;
}

/* Delete @addr's static entry on @p, if it has one.  RTNL held. */
static void vcsw_fdb_del_static(struct vcsw *sw, struct vcsw_slave *p,
				const u8 *addr)
{
	struct vcsw_fdb *f;

	spin_lock_bh(&sw->fdb_lock);
	f = vcsw_fdb_find_locked(sw, addr);
	if (f && f->is_static && f->port == p)
		vcsw_fdb_del(sw, f);
	spin_unlock_bh(&sw->fdb_lock);
}

/*
 * The collector: delete learned entries not seen for @ageing seconds, then
 * run again when the next one would expire (within VCSW_GC_MIN_DELAY and
 * VCSW_GC_MAX_DELAY).  The walk is under RCU, each deletion under the
 * table's lock, so learning goes on meanwhile; one pass is bounded by
 * fdb_max entries.  Runs while the switch is up.
 */
static void vcsw_fdb_gc(struct work_struct *work)
{
	struct vcsw *sw = container_of(to_delayed_work(work), struct vcsw, fdb_gc);
	unsigned long ageing = (unsigned long)READ_ONCE(sw->ageing) * HZ;
	unsigned long now = jiffies, next = VCSW_GC_MAX_DELAY;
	struct vcsw_fdb *f;

	if (ageing) {
		rcu_read_lock();
		list_for_each_entry_rcu(f, &sw->fdb_list, list) {
			unsigned long expires = READ_ONCE(f->updated) + ageing;

			if (READ_ONCE(f->is_static))
				continue;
			if (time_after(expires, now)) {
				next = min(next, expires - now);
				continue;
			}
			spin_lock_bh(&sw->fdb_lock);
			if (!f->gone && vcsw_fdb_expired(sw, f, now)) {
				vcsw_fdb_del(sw, f);
				vcsw_sw_count(sw, VCSW_SS_FDB_AGED);
			}
			spin_unlock_bh(&sw->fdb_lock);
		}
		rcu_read_unlock();
	}
	queue_delayed_work(system_long_wq, &sw->fdb_gc,
			   clamp_t(unsigned long, next, VCSW_GC_MIN_DELAY,
				   VCSW_GC_MAX_DELAY));
}

/* ---- output ports ---------------------------------------------------------- */

static void vcsw_ent_free(struct vcsw_ent *e)
{
	kfree_skb(e->skb);
	kmem_cache_free(vcsw_ent_cache, e);
}

/*
 * Take every frame that may leave by @now off the buffer into @out and
 * arm the timer for the next one.  Caller holds p->lock.
 */
static void vcsw_slave_service(struct vcsw_slave *p, u64 now,
			       struct sk_buff_head *out)
{
	struct vcsw_node *n;

	while (vcsw_port_qlen(&p->q) && vcsw_port_link_ready(&p->q, now)) {
		struct vcsw_ent *e;
		struct sk_buff *skb;

		n = vcsw_port_dequeue(&p->q, now);
		e = container_of(n, struct vcsw_ent, node);
		skb = e->skb;
		vcsw_cb(skb)->deadline = n->deadline;
		vcsw_cb(skb)->timed = n->timed;
		kmem_cache_free(vcsw_ent_cache, e);
		__skb_queue_tail(out, skb);
	}
	if (vcsw_port_qlen(&p->q) && !hrtimer_is_queued(&p->timer))
		hrtimer_start(&p->timer, ns_to_ktime(p->q.link_free),
			      HRTIMER_MODE_ABS_SOFT);
}

/*
 * Hand frames to the device, outside the port lock, under RCU.  Returns
 * how many it took off @list.
 */
static unsigned int vcsw_slave_send(struct vcsw_slave *p, struct sk_buff_head *list)
{
	unsigned int n = 0;
	struct sk_buff *skb;
	int rc;

	while ((skb = __skb_dequeue(list))) {
		struct vcsw_skb_cb cb = *vcsw_cb(skb);

		n++;

		if (cb.timed) {
			s64 ttd = (s64)(cb.deadline - ktime_get_ns());

			if (unlikely(fabric_hdr_set_ttd(skb, ETH_HLEN, ttd))) {
				vcsw_count(p, VCSW_PS_DROP_REWRITE);
				kfree_skb(skb);
				continue;
			}
		}
		if (unlikely(!netif_running(p->dev) || !netif_carrier_ok(p->dev))) {
			vcsw_count(p, VCSW_PS_DROP_DOWN);
			kfree_skb(skb);
			continue;
		}
		memset(skb->cb, 0, sizeof(skb->cb));
		skb->dev = p->dev;
		/* net_xmit_eval() is a macro that evaluates its argument twice */
		rc = dev_queue_xmit(skb);
		if (unlikely(net_xmit_eval(rc)))
			vcsw_count(p, VCSW_PS_DROP_XMIT);
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
	unsigned int sent = 0;

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
		spin_unlock(&p->lock);
		sent += vcsw_slave_send(p, &list);
		spin_lock(&p->lock);
	}
	p->sending = false;
	spin_unlock(&p->lock);
}

static enum hrtimer_restart vcsw_slave_timer(struct hrtimer *t)
{
	struct vcsw_slave *p = container_of(t, struct vcsw_slave, timer);

	rcu_read_lock();
	spin_lock(&p->lock);
	if (!p->dead)
		vcsw_slave_service(p, ktime_get_ns(), &p->txq);
	vcsw_slave_flush(p);
	rcu_read_unlock();
	return HRTIMER_NORESTART;
}

/* Drop everything waiting on @p. */
static void vcsw_slave_purge(struct vcsw_slave *p, bool count)
{
	struct sk_buff *skb;
	struct vcsw_node *n;

	spin_lock_bh(&p->lock);
	while ((n = vcsw_port_pop(&p->q))) {
		if (count)
			vcsw_count(p, VCSW_PS_DROP_DOWN);
		vcsw_ent_free(container_of(n, struct vcsw_ent, node));
	}
	/* released but not yet taken by the sending context */
	while ((skb = __skb_dequeue(&p->txq))) {
		if (count)
			vcsw_count(p, VCSW_PS_DROP_DOWN);
		kfree_skb(skb);
	}
	spin_unlock_bh(&p->lock);
}

/* Receive path (softirq, RCU): queue @skb on @out and send what may go. */
static void vcsw_forward_one(struct vcsw_slave *out, struct sk_buff *skb,
			     u64 deadline, u8 vc, bool timed, u64 now)
{
	struct vcsw_ent *e;

	if (unlikely(!netif_running(out->dev))) {
		vcsw_count(out, VCSW_PS_DROP_DOWN);
		kfree_skb(skb);
		return;
	}
	/* as a bridge: nothing the output device's MTU cannot carry */
	if (unlikely(!is_skb_forwardable(out->dev, skb))) {
		vcsw_count(out, VCSW_PS_DROP_OVERSIZE);
		kfree_skb(skb);
		return;
	}
	e = kmem_cache_alloc(vcsw_ent_cache, GFP_ATOMIC);
	if (unlikely(!e)) {
		vcsw_count(out, VCSW_PS_DROP_NOMEM);
		kfree_skb(skb);
		return;
	}
	memset(&e->node, 0, sizeof(e->node));
	e->skb = skb;
	e->node.deadline = deadline;
	e->node.len = skb->len;
	e->node.vc = vc;
	e->node.timed = timed;

	spin_lock(&out->lock);
	if (unlikely(out->dead)) {
		spin_unlock(&out->lock);
		vcsw_count(out, VCSW_PS_DROP_DOWN);
		vcsw_ent_free(e);
		return;
	}
	if (unlikely(vcsw_port_enqueue(&out->q, &e->node, now) != VCSW_ENQ_OK)) {
		/* counted by the core as drops_full of the VC */
		spin_unlock(&out->lock);
		vcsw_ent_free(e);
		return;
	}
	vcsw_slave_service(out, now, &out->txq);
	vcsw_slave_flush(out);
}

/* ---- receive path ------------------------------------------------------------ */

/*
 * Check a frame carrying EtherType ETH_P_FABRIC (skb->data at the fabric
 * header) and read it.  False: malformed, drop it.
 */
static bool vcsw_read_header(struct sk_buff *skb, struct fhc_fields *f)
{
	u32 want;

	if (!pskb_may_pull(skb, min_t(u32, skb->len, FABRIC_HDR_LEN)))
		return false;
	if (skb->len >= FABRIC_HDR_LEN) {
		want = FABRIC_HDR_LEN + fhc_inner_probe_len(fhc_get_be16(skb->data + 2));
		if (!pskb_may_pull(skb, min_t(u32, skb->len, want)))
			return false;
	}
	if (fhc_validate(skb->data, skb_headlen(skb), skb->len) != FHC_OK)
		return false;
	fhc_decode(skb->data, f);
	return true;
}

/* One frame, skb->data at its Ethernet header: to its port, or flooded. */
static void vcsw_deliver(struct vcsw *sw, struct vcsw_slave *in,
			 struct sk_buff *skb, const u8 *dst, u64 deadline,
			 u8 vc, bool timed, u64 now)
{
	struct vcsw_slave *out = NULL, *p, *last = NULL;

	if (!is_multicast_ether_addr(dst)) {
		struct vcsw_fdb *f = vcsw_fdb_find_rcu(sw, dst);

		if (f && !vcsw_fdb_expired(sw, f, jiffies))
			out = READ_ONCE(f->port);
	}
	if (out) {
		if (unlikely(out == in)) {
			vcsw_count(in, VCSW_PS_DROP_LOOP);
			consume_skb(skb);
			return;
		}
		vcsw_forward_one(out, skb, deadline, vc, timed, now);
		return;
	}

	/* flood: a clone to every other port, the frame itself to the last */
	list_for_each_entry_rcu(p, &sw->ports, list) {
		struct sk_buff *c;

		if (p == in || !netif_running(p->dev))
			continue;
		if (last) {
			c = skb_clone(skb, GFP_ATOMIC);
			if (unlikely(!c)) {
				vcsw_count(last, VCSW_PS_DROP_NOMEM);
			} else {
				vcsw_count(last, VCSW_PS_FLOODED);
				vcsw_forward_one(last, c, deadline, vc, timed, now);
			}
		}
		last = p;
	}
	if (last) {
		vcsw_count(last, VCSW_PS_FLOODED);
		vcsw_forward_one(last, skb, deadline, vc, timed, now);
	} else {
		consume_skb(skb);
	}
}

/*
 * An untrusted port's claims (Documentation/trust.rst): the TTD held to
 * [ttd_min, ttd_max], VC0 policed to vc0_rate, as core/vcsw_trust.h
 * decides.  False: drop the frame.
 */
static bool vcsw_untrusted_ingress(struct vcsw_slave *in, u32 len, u64 now,
				   s64 *ttd, u8 *vc)
{
	unsigned int r;

	spin_lock(&in->police_lock);
	r = vcsw_trust_ingress(&in->trust, &in->police, len, now, ttd, vc);
	spin_unlock(&in->police_lock);
	if (r & VCSW_TRUST_CLAMPED)
		vcsw_count(in, VCSW_PS_TTD_CLAMPED);
	if (r & VCSW_TRUST_DEMOTED)
		vcsw_count(in, VCSW_PS_POLICE_DEMOTE);
	if (unlikely(r & VCSW_TRUST_DROP)) {
		vcsw_count(in, VCSW_PS_POLICE_DROP);
		return false;
	}
	return true;
}

static rx_handler_result_t vcsw_handle_frame(struct sk_buff **pskb)
{
	u8 dst[ETH_ALEN] __aligned(2), src[ETH_ALEN] __aligned(2);
	struct sk_buff *skb = *pskb, *segs, *next;
	bool is_fabric, timed = false;
	struct fhc_fields f;
	u64 now, deadline;
	struct vcsw_slave *in;
	struct vcsw *sw;
	u8 vc = FABRIC_VC_BESTEFFORT;

	if (unlikely(skb->pkt_type == PACKET_LOOPBACK))
		return RX_HANDLER_PASS;
	in = rcu_dereference(skb->dev->rx_handler_data);
	sw = in->sw;

	skb = skb_share_check(skb, GFP_ATOMIC);
	if (unlikely(!skb)) {
		vcsw_count(in, VCSW_PS_DROP_NOMEM);
		return RX_HANDLER_CONSUMED;
	}
	/*
	 * The frame has left its sender, as IP's receive path would say.  A
	 * veth peer in this host hands the skb over still charged to the
	 * sending socket: frames waiting in our port buffers would then fill
	 * that socket's send buffer and block the sender, a back-pressure
	 * no switch has (and per socket, not per link).
	 */
	skb_orphan(skb);
	vcsw_count(in, VCSW_PS_RX_PACKETS);
	atomic64_add(skb->len + ETH_HLEN, &in->st[VCSW_PS_RX_BYTES]);
	ether_addr_copy(dst, eth_hdr(skb)->h_dest);
	ether_addr_copy(src, eth_hdr(skb)->h_source);

	/* as a bridge: a frame from no valid source is not taken at all */
	if (unlikely(!is_valid_ether_addr(src)))
		goto malformed;
	/*
	 * The header is checked before the frame's fate is decided, so every
	 * fabric frame is counted alike (rx_fabric or drop_malformed),
	 * wherever it goes.
	 */
	is_fabric = eth_hdr(skb)->h_proto == htons(ETH_P_FABRIC);
	if (is_fabric) {
		if (unlikely(!vcsw_read_header(skb, &f)))
			goto malformed;
		vcsw_count(in, VCSW_PS_RX_FABRIC);
	}
	/*
	 * IEEE 802.1D link-local groups are not relayed unless group_fwd_mask
	 * asks (never STP, PAUSE or LACP).  The switch runs none of their
	 * protocols and passes nothing to the port's own stack (where, for
	 * one, fabric_hdr would strip a header and hand the frame to the
	 * port again): they are dropped.
	 */
	if (unlikely(is_link_local_ether_addr(dst)) &&
	    !(READ_ONCE(sw->group_fwd_mask) & BIT(dst[5]))) {
		vcsw_count(in, VCSW_PS_DROP_LINK_LOCAL);
		kfree_skb(skb);
		return RX_HANDLER_CONSUMED;
	}
	/* a port still joining, or a switch that is down, forwards nothing */
	if (unlikely(!READ_ONCE(in->enabled) || !netif_running(sw->dev))) {
		vcsw_count(in, VCSW_PS_DROP_DISABLED);
		kfree_skb(skb);
		return RX_HANDLER_CONSUMED;
	}

	now = ktime_get_ns();
	deadline = now;
	if (is_fabric) {
		s64 ttd = f.ttd_ns;

		vc = f.vc == FABRIC_VC_REGULATED ? 0 : 1;
		if (unlikely(!READ_ONCE(in->trusted))) {
			if (!vcsw_untrusted_ingress(in, skb->len + ETH_HLEN, now, &ttd, &vc))
				goto drop;
			/*
			 * A demoted frame says best effort on the wire too, or
			 * the next hop (a trusted inter-switch port, the
			 * receiver) would put it back into VC0.
			 */
			if (vc == 1 && f.vc == FABRIC_VC_REGULATED) {
				f.vc = FABRIC_VC_BESTEFFORT;
				if (unlikely(fabric_hdr_rewrite(skb, 0, &f))) {
					vcsw_count(in, VCSW_PS_DROP_REWRITE);
					goto drop;
				}
			}
		}
		deadline = vcsw_ingress_deadline(now, ttd);
		timed = true;
	}
	vcsw_fdb_learn(sw, in, src);

	/* transmit from the Ethernet header on */
	skb_push(skb, skb->data - skb_mac_header(skb));
	skb_forward_csum(skb);
	skb_clear_tstamp(skb);

	if (likely(!skb_is_gso(skb))) {
		vcsw_deliver(sw, in, skb, dst, deadline, vc, timed, now);
		return RX_HANDLER_CONSUMED;
	}
	/*
	 * A GSO frame (veth passes TSO aggregates through) is queued as the
	 * frames that will be on the wire, so that buffer limits, the link
	 * rate and the counters see real frame sizes.  Fabric frames are
	 * never GSO: the hosts segment before pushing the header.  A frame
	 * that cannot be segmented (a type no GSO handler knows, a bad
	 * offload from a packet socket) is malformed.
	 */
	segs = skb_gso_segment(skb, 0);
	if (IS_ERR_OR_NULL(segs)) {
		vcsw_count(in, PTR_ERR(segs) == -ENOMEM ? VCSW_PS_DROP_NOMEM :
						       VCSW_PS_DROP_MALFORMED);
		kfree_skb(skb);
		return RX_HANDLER_CONSUMED;
	}
	consume_skb(skb);
	skb_list_walk_safe(segs, skb, next) {
		skb_mark_not_on_list(skb);
		vcsw_deliver(sw, in, skb, dst, deadline, vc, timed, now);
	}
	return RX_HANDLER_CONSUMED;

malformed:
	vcsw_count(in, VCSW_PS_DROP_MALFORMED);
drop:
	kfree_skb(skb);
	return RX_HANDLER_CONSUMED;
}

/* ---- ports: add and remove ------------------------------------------------- */

static int vcsw_add_slave(struct net_device *dev, struct net_device *sdev,
			  struct netlink_ext_ack *extack)
{
	struct vcsw *sw = netdev_priv(dev);
	struct vcsw_slave *p;
	int err, i;

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

	/* built complete, but not enabled: it neither learns nor forwards */
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return -ENOMEM;
	p->sw = sw;
	p->dev = sdev;
	spin_lock_init(&p->lock);
	skb_queue_head_init(&p->txq);
	vcsw_port_init(&p->q, sw->mode, sw->buffer[0], sw->buffer[1], sw->rate);
	fq_hrtimer_setup(&p->timer, vcsw_slave_timer, CLOCK_MONOTONIC,
			 HRTIMER_MODE_ABS_SOFT);
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
	list_add_tail_rcu(&p->list, &sw->ports);
	WRITE_ONCE(p->enabled, true);
	return 0;

err_handler:
	/* waits for every handler that may have seen p: none kept it */
	netdev_rx_handler_unregister(sdev);
err_promisc:
	dev_set_promiscuity(sdev, -1);
err_free:
	kfree(p);
	return err;
}

/* RTNL held. */
static void vcsw_slave_remove(struct vcsw *sw, struct vcsw_slave *p)
{
	WRITE_ONCE(p->enabled, false);
	spin_lock_bh(&p->lock);
	p->dead = true;
	spin_unlock_bh(&p->lock);
	hrtimer_cancel(&p->timer);

	netdev_rx_handler_unregister(p->dev);
	list_del_rcu(&p->list);
	netdev_upper_dev_unlink(p->dev, sw->dev);
	dev_set_promiscuity(p->dev, -1);
	/* no receive handler of this port runs now, so nothing learns it */
	synchronize_net();
	vcsw_fdb_flush_port(sw, p, true);
	/* and nobody still holds a table entry or list pointer to it */
	synchronize_net();
	vcsw_slave_purge(p, true);
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
	case NETDEV_UNREGISTER:
		vcsw_slave_remove(p->sw, p);
		break;
	case NETDEV_DOWN:
	case NETDEV_CHANGE:
		if (!netif_running(dev) || !netif_carrier_ok(dev))
			vcsw_slave_purge(p, true);
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

	return rhashtable_init(&sw->fdb, &vcsw_fdb_params);
}

static void vcsw_dev_uninit(struct net_device *dev)
{
	struct vcsw *sw = netdev_priv(dev);
	struct vcsw_slave *p, *tmp;

	cancel_delayed_work_sync(&sw->fdb_gc);
	list_for_each_entry_safe(p, tmp, &sw->ports, list)
		vcsw_slave_remove(sw, p);
	vcsw_fdb_flush_all(sw);
	/* no reader left: ports are gone, with a grace period each */
	rhashtable_destroy(&sw->fdb);
}

static int vcsw_dev_open(struct net_device *dev)
{
	struct vcsw *sw = netdev_priv(dev);

	queue_delayed_work(system_long_wq, &sw->fdb_gc, VCSW_GC_MIN_DELAY);
	return 0;
}

/*
 * Down: forward nothing (the receive path checks netif_running(), which
 * is false before we are called), so drop what waits in the port
 * buffers and, as a bridge does, forget what was learned.
 */
static int vcsw_dev_stop(struct net_device *dev)
{
	struct vcsw *sw = netdev_priv(dev);
	struct vcsw_slave *p;

	cancel_delayed_work_sync(&sw->fdb_gc);
	/* receive handlers that saw the switch up are done after this */
	synchronize_net();
	list_for_each_entry(p, &sw->ports, list) {
		vcsw_slave_purge(p, true);
		vcsw_fdb_flush_port(sw, p, false);
	}
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

static void vcsw_setup(struct net_device *dev)
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
	sw->mode = VCSW_DEFAULT_MODE;
	sw->rate = 0;
	sw->buffer[0] = VCSW_DEFAULT_BUFFER;
	sw->buffer[1] = VCSW_DEFAULT_BUFFER;
	sw->fdb_max = VCSW_DEFAULT_FDB_MAX;
	sw->ageing = VCSW_DEFAULT_AGEING;
	sw->group_fwd_mask = 0;
}

/* ---- netlink ------------------------------------------------------------------ */

static struct netlink_range_validation vcsw_rate_range = {
	.min = 0,
	.max = EDF_RATE_MAX,
};

static struct netlink_range_validation vcsw_buffer_range = {
	.min = 2048,
	.max = 64 << 20,
};

static struct netlink_range_validation vcsw_fdb_max_range = {
	.min = 1,
	.max = 65536,
};

static struct netlink_range_validation vcsw_ageing_range = {
	.min = 0,
	.max = 1000000,
};

static const struct nla_policy vcsw_policy[IFLA_VCSW_MAX + 1] = {
	[IFLA_VCSW_VC0_MODE]	= NLA_POLICY_MAX(NLA_U8, VCSW_MODE_MAX),
	[IFLA_VCSW_RATE]	= NLA_POLICY_FULL_RANGE(NLA_U64, &vcsw_rate_range),
	[IFLA_VCSW_VC0_BUFFER]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_buffer_range),
	[IFLA_VCSW_VC1_BUFFER]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_buffer_range),
	[IFLA_VCSW_FDB_MAX]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_fdb_max_range),
	[IFLA_VCSW_AGEING]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_ageing_range),
	[IFLA_VCSW_FDB_COUNT]	= { .type = NLA_REJECT },
	[IFLA_VCSW_STATS]	= { .type = NLA_REJECT },
	[IFLA_VCSW_GROUP_FWD_MASK] = { .type = NLA_U16 },
};

static const struct nla_policy vcsw_slave_policy[IFLA_VCSW_PORT_MAX + 1] = {
	[IFLA_VCSW_PORT_FDB_ADD]	= NLA_POLICY_ETH_ADDR,
	[IFLA_VCSW_PORT_FDB_DEL]	= NLA_POLICY_ETH_ADDR,
	[IFLA_VCSW_PORT_FDB_FLUSH]	= { .type = NLA_FLAG },
	[IFLA_VCSW_PORT_RATE]		= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_STATS]		= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_VC0_STATS]	= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_VC1_STATS]	= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_TRUST]		= NLA_POLICY_MAX(NLA_U8, 1),
	[IFLA_VCSW_PORT_VC0_RATE]	= NLA_POLICY_FULL_RANGE(NLA_U64, &vcsw_rate_range),
	[IFLA_VCSW_PORT_VC0_BURST]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_buffer_range),
	[IFLA_VCSW_PORT_VC0_EXCEED]	= NLA_POLICY_MAX(NLA_U8, VCSW_EXCEED_MAX),
	[IFLA_VCSW_PORT_TTD_MIN]	= { .type = NLA_S32 },
	[IFLA_VCSW_PORT_TTD_MAX]	= { .type = NLA_S32 },
};

static int vcsw_validate(struct nlattr *tb[], struct nlattr *data[],
			 struct netlink_ext_ack *extack)
{
	if (tb[IFLA_ADDRESS]) {
		if (nla_len(tb[IFLA_ADDRESS]) != ETH_ALEN ||
		    !is_valid_ether_addr(nla_data(tb[IFLA_ADDRESS]))) {
			NL_SET_ERR_MSG_MOD(extack, "invalid MAC address");
			return -EADDRNOTAVAIL;
		}
	}
	if (data && data[IFLA_VCSW_GROUP_FWD_MASK] &&
	    nla_get_u16(data[IFLA_VCSW_GROUP_FWD_MASK]) & VCSW_GROUP_FWD_RESTRICTED) {
		NL_SET_ERR_MSG_ATTR(extack, data[IFLA_VCSW_GROUP_FWD_MASK],
				    "STP, PAUSE and LACP groups (bits 0-2) are never relayed");
		return -EINVAL;
	}
	return 0;
}

/* Validated by the policy: apply it all, under RTNL, to every port. */
static void vcsw_apply(struct vcsw *sw, struct nlattr *data[])
{
	struct vcsw_slave *p;

	if (!data)
		return;
	if (data[IFLA_VCSW_VC0_MODE])
		WRITE_ONCE(sw->mode, nla_get_u8(data[IFLA_VCSW_VC0_MODE]));
	if (data[IFLA_VCSW_RATE])
		WRITE_ONCE(sw->rate, nla_get_u64(data[IFLA_VCSW_RATE]));
	if (data[IFLA_VCSW_VC0_BUFFER])
		WRITE_ONCE(sw->buffer[0], nla_get_u32(data[IFLA_VCSW_VC0_BUFFER]));
	if (data[IFLA_VCSW_VC1_BUFFER])
		WRITE_ONCE(sw->buffer[1], nla_get_u32(data[IFLA_VCSW_VC1_BUFFER]));
	if (data[IFLA_VCSW_FDB_MAX])
		WRITE_ONCE(sw->fdb_max, nla_get_u32(data[IFLA_VCSW_FDB_MAX]));
	if (data[IFLA_VCSW_AGEING]) {
		WRITE_ONCE(sw->ageing, nla_get_u32(data[IFLA_VCSW_AGEING]));
		/* the collector looks again with the new lifetime */
		if (netif_running(sw->dev))
			mod_delayed_work(system_long_wq, &sw->fdb_gc, 0);
	}
	if (data[IFLA_VCSW_GROUP_FWD_MASK])
		WRITE_ONCE(sw->group_fwd_mask,
			   nla_get_u16(data[IFLA_VCSW_GROUP_FWD_MASK]));
	if (data[IFLA_VCSW_FDB_MAX])
		vcsw_fdb_trim(sw);

	list_for_each_entry(p, &sw->ports, list) {
		rcu_read_lock();
		local_bh_disable();
		spin_lock(&p->lock);
		vcsw_port_set_mode(&p->q, sw->mode);
		p->q.vc[0].limit = sw->buffer[0];
		p->q.vc[1].limit = sw->buffer[1];
		if (p->q.rate != sw->rate) {
			p->q.rate = sw->rate;
			/* the new rate counts from now on */
			p->q.link_free = 0;
			hrtimer_try_to_cancel(&p->timer);
		}
		if (!p->dead)
			vcsw_slave_service(p, ktime_get_ns(), &p->txq);
		vcsw_slave_flush(p);
		local_bh_enable();
		rcu_read_unlock();
	}
}

static int vcsw_create(struct net *src_net, struct net_device *dev,
		       struct nlattr *tb[], struct nlattr *data[],
		       struct netlink_ext_ack *extack)
{
	vcsw_apply(netdev_priv(dev), data);
	return register_netdevice(dev);
}
FQ_RTNL_NEWLINK(vcsw_newlink, vcsw_create)

static int vcsw_changelink(struct net_device *dev, struct nlattr *tb[],
			   struct nlattr *data[], struct netlink_ext_ack *extack)
{
	vcsw_apply(netdev_priv(dev), data);
	return 0;
}

static size_t vcsw_get_size(const struct net_device *dev)
{
	return nla_total_size(sizeof(u8)) +		/* VC0_MODE */
	       nla_total_size_64bit(sizeof(u64)) +	/* RATE */
	       /* VC0_BUFFER, VC1_BUFFER, FDB_MAX, AGEING, FDB_COUNT */
	       5 * nla_total_size(sizeof(u32)) +
	       nla_total_size_64bit(sizeof(struct vcsw_stats)) +	/* STATS */
	       nla_total_size(sizeof(u16));		/* GROUP_FWD_MASK */
}

static int vcsw_fill_info(struct sk_buff *skb, const struct net_device *dev)
{
	struct vcsw *sw = netdev_priv(dev);
	unsigned int start = skb->len;
	struct vcsw_stats st;
	u64 *ctr = (u64 *)&st;
	int i;

	BUILD_BUG_ON(sizeof(st) != VCSW_SS_MAX * sizeof(u64));
	for (i = 0; i < VCSW_SS_MAX; i++)
		ctr[i] = atomic64_read(&sw->st[i]);
	if (nla_put_u8(skb, IFLA_VCSW_VC0_MODE, sw->mode) ||
	    nla_put_u64_64bit(skb, IFLA_VCSW_RATE, sw->rate, IFLA_VCSW_PAD) ||
	    nla_put_u32(skb, IFLA_VCSW_VC0_BUFFER, sw->buffer[0]) ||
	    nla_put_u32(skb, IFLA_VCSW_VC1_BUFFER, sw->buffer[1]) ||
	    nla_put_u32(skb, IFLA_VCSW_FDB_MAX, sw->fdb_max) ||
	    nla_put_u32(skb, IFLA_VCSW_AGEING, sw->ageing) ||
	    nla_put_u32(skb, IFLA_VCSW_FDB_COUNT, READ_ONCE(sw->fdb_count)) ||
	    nla_put_64bit(skb, IFLA_VCSW_STATS, sizeof(st), &st, IFLA_VCSW_PAD) ||
	    nla_put_u16(skb, IFLA_VCSW_GROUP_FWD_MASK, sw->group_fwd_mask))
		return -EMSGSIZE;
	/*
	 * The message was sized with vcsw_get_size(); slab rounding usually
	 * hides an attribute it forgot, until the day it does not.  Say so
	 * on every dump instead.
	 */
	WARN_ON_ONCE(skb->len - start > vcsw_get_size(dev));
	return 0;
}

static int vcsw_slave_changelink(struct net_device *dev,
				 struct net_device *sdev, struct nlattr *tb[],
				 struct nlattr *data[],
				 struct netlink_ext_ack *extack)
{
	struct vcsw_slave *p = vcsw_slave_of_rtnl(sdev);
	const u8 *add, *del;
	s32 lo, hi;
	int err;

	if (!p || !data)
		return 0;
	lo = data[IFLA_VCSW_PORT_TTD_MIN] ?
	     nla_get_s32(data[IFLA_VCSW_PORT_TTD_MIN]) : p->trust.ttd_min;
	hi = data[IFLA_VCSW_PORT_TTD_MAX] ?
	     nla_get_s32(data[IFLA_VCSW_PORT_TTD_MAX]) : p->trust.ttd_max;
	if (lo > hi) {
		NL_SET_ERR_MSG_MOD(extack, "ttd_min is above ttd_max");
		return -EINVAL;
	}
	/*
	 * A refused request changes nothing: what can fail is checked or
	 * done first.  Static entries change only under RTNL, so the entry
	 * fdb_del found is still there when it is deleted, after fdb_add.
	 */
	add = data[IFLA_VCSW_PORT_FDB_ADD] ? nla_data(data[IFLA_VCSW_PORT_FDB_ADD]) : NULL;
	del = data[IFLA_VCSW_PORT_FDB_DEL] ? nla_data(data[IFLA_VCSW_PORT_FDB_DEL]) : NULL;
	if (add && del && ether_addr_equal(add, del)) {
		NL_SET_ERR_MSG_MOD(extack, "fdb_add and fdb_del name the same address");
		return -EINVAL;
	}
	if (del && !vcsw_fdb_has_static(p->sw, p, del)) {
		NL_SET_ERR_MSG_MOD(extack, "no static entry for this address on this port");
		return -ENOENT;
	}
	if (add) {
		err = vcsw_fdb_add_static(p->sw, p, add, extack);
		if (err)
			return err;
	}

	/* nothing can fail from here */
	if (del)
		vcsw_fdb_del_static(p->sw, p, del);
	if (data[IFLA_VCSW_PORT_FDB_FLUSH])
		vcsw_fdb_flush_port(p->sw, p, false);
	spin_lock_bh(&p->police_lock);
	p->trust.ttd_min = lo;
	p->trust.ttd_max = hi;
	if (data[IFLA_VCSW_PORT_VC0_EXCEED])
		p->trust.exceed = nla_get_u8(data[IFLA_VCSW_PORT_VC0_EXCEED]);
	if (data[IFLA_VCSW_PORT_VC0_RATE] || data[IFLA_VCSW_PORT_VC0_BURST]) {
		u64 rate = data[IFLA_VCSW_PORT_VC0_RATE] ?
			   nla_get_u64(data[IFLA_VCSW_PORT_VC0_RATE]) : p->police.rate;

		if (data[IFLA_VCSW_PORT_VC0_BURST])
			p->vc0_burst = nla_get_u32(data[IFLA_VCSW_PORT_VC0_BURST]);
		/* a new contract starts with a full bucket */
		vcsw_police_init(&p->police, rate, p->vc0_burst);
	}
	spin_unlock_bh(&p->police_lock);
	if (data[IFLA_VCSW_PORT_TRUST])
		WRITE_ONCE(p->trusted, nla_get_u8(data[IFLA_VCSW_PORT_TRUST]));
	return 0;
}

static size_t vcsw_get_slave_size(const struct net_device *dev,
				  const struct net_device *sdev)
{
	return nla_total_size_64bit(sizeof(u64)) +		/* RATE */
	       nla_total_size_64bit(sizeof(struct vcsw_port_stats)) +
	       2 * nla_total_size_64bit(sizeof(struct vcsw_vc_stats)) +
	       nla_total_size(sizeof(u8)) +			/* TRUST */
	       nla_total_size_64bit(sizeof(u64)) +		/* VC0_RATE */
	       nla_total_size(sizeof(u32)) +			/* VC0_BURST */
	       nla_total_size(sizeof(u8)) +			/* VC0_EXCEED */
	       2 * nla_total_size(sizeof(s32));			/* TTD_MIN, TTD_MAX */
}

static int vcsw_fill_slave_info(struct sk_buff *skb,
				const struct net_device *dev,
				const struct net_device *sdev)
{
	struct vcsw_slave *p = vcsw_slave_of_rtnl(sdev);
	struct vcsw_vc_stats vst[VCSW_NUM_VCS];
	unsigned int start = skb->len;
	struct vcsw_port_stats ps;
	u64 *ctr = (u64 *)&ps;
	u64 rate, vc0_rate;
	int i;

	BUILD_BUG_ON(sizeof(ps) != VCSW_PS_MAX * sizeof(u64));
	if (!p)
		return 0;
	for (i = 0; i < VCSW_PS_MAX; i++)
		ctr[i] = atomic64_read(&p->st[i]);
	spin_lock_bh(&p->lock);
	for (i = 0; i < VCSW_NUM_VCS; i++)
		vcsw_vc_read_stats(&p->q.vc[i], &vst[i]);
	rate = p->q.rate;
	spin_unlock_bh(&p->lock);
	spin_lock_bh(&p->police_lock);
	vc0_rate = p->police.rate;
	spin_unlock_bh(&p->police_lock);

	if (nla_put_u64_64bit(skb, IFLA_VCSW_PORT_RATE, rate, IFLA_VCSW_PORT_PAD) ||
	    nla_put_64bit(skb, IFLA_VCSW_PORT_STATS, sizeof(ps), &ps,
			  IFLA_VCSW_PORT_PAD) ||
	    nla_put_64bit(skb, IFLA_VCSW_PORT_VC0_STATS, sizeof(vst[0]), &vst[0],
			  IFLA_VCSW_PORT_PAD) ||
	    nla_put_64bit(skb, IFLA_VCSW_PORT_VC1_STATS, sizeof(vst[1]), &vst[1],
			  IFLA_VCSW_PORT_PAD) ||
	    nla_put_u8(skb, IFLA_VCSW_PORT_TRUST, p->trusted) ||
	    nla_put_u64_64bit(skb, IFLA_VCSW_PORT_VC0_RATE, vc0_rate,
			      IFLA_VCSW_PORT_PAD) ||
	    nla_put_u32(skb, IFLA_VCSW_PORT_VC0_BURST, p->vc0_burst) ||
	    nla_put_u8(skb, IFLA_VCSW_PORT_VC0_EXCEED, p->trust.exceed) ||
	    nla_put_s32(skb, IFLA_VCSW_PORT_TTD_MIN, p->trust.ttd_min) ||
	    nla_put_s32(skb, IFLA_VCSW_PORT_TTD_MAX, p->trust.ttd_max))
		return -EMSGSIZE;
	/* as in vcsw_fill_info(): a forgotten attribute shows at once */
	WARN_ON_ONCE(skb->len - start > vcsw_get_slave_size(dev, sdev));
	return 0;
}

static struct rtnl_link_ops vcsw_link_ops __read_mostly = {
	.kind			= "vcsw",
	.priv_size		= sizeof(struct vcsw),
	.setup			= vcsw_setup,
	.maxtype		= IFLA_VCSW_MAX,
	.policy			= vcsw_policy,
	.validate		= vcsw_validate,
	.newlink		= vcsw_newlink,
	.changelink		= vcsw_changelink,
	.get_size		= vcsw_get_size,
	.fill_info		= vcsw_fill_info,
	.slave_maxtype		= IFLA_VCSW_PORT_MAX,
	.slave_policy		= vcsw_slave_policy,
	.slave_changelink	= vcsw_slave_changelink,
	.get_slave_size		= vcsw_get_slave_size,
	.fill_slave_info	= vcsw_fill_slave_info,
};

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
MODULE_DESCRIPTION("Soft switch with two-VC deadline port buffers (fifo / takeover / ideal)");
MODULE_ALIAS_RTNL_LINK("vcsw");
