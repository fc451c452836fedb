// SPDX-License-Identifier: GPL-2.0
/*
 * vcsw: the forwarding table.  Learned and static entries in a resizable
 * hash table, aged by a clock hand that also picks the entry to evict
 * when the table is full (Documentation/vcsw.rst, "The forwarding
 * table").  The data path looks entries up under RCU; changes take
 * fdb_lock.
 */
#include "vcsw_priv.h"

static const struct rhashtable_params vcsw_fdb_params = {
	.head_offset		= offsetof(struct vcsw_fdb, rhnode),
	.key_offset		= offsetof(struct vcsw_fdb, addr),
	.key_len		= ETH_ALEN,
	.automatic_shrinking	= true,
};

/* ---- forwarding table ---------------------------------------------------- */

/* Caller holds rcu_read_lock(). */
struct vcsw_fdb *vcsw_fdb_find_rcu(struct vcsw *sw, const u8 *addr)
{
	return rhashtable_lookup(&sw->fdb, addr, vcsw_fdb_params);
}

/* Caller holds fdb_lock. */
static struct vcsw_fdb *vcsw_fdb_find_locked(struct vcsw *sw, const u8 *addr)
{
	lockdep_assert_held(&sw->fdb_lock);
	return rhashtable_lookup_fast(&sw->fdb, addr, vcsw_fdb_params);
}

bool vcsw_fdb_expired(const struct vcsw *sw, const struct vcsw_fdb *f,
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
 * table is at its bound, found within @scan entries.  0, -EEXIST (the
 * address has an entry), -ENOSPC (only static entries) or the table's
 * error.  Caller holds fdb_lock.
 */
static int vcsw_fdb_insert(struct vcsw *sw, struct vcsw_fdb *f,
			   unsigned int scan)
{
	int err;

	lockdep_assert_held(&sw->fdb_lock);
	if (vcsw_fdb_find_locked(sw, f->addr))
		return -EEXIST;
	if (sw->fdb_count >= READ_ONCE(sw->fdb_max) &&
	    !vcsw_fdb_evict_one(sw, scan))
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
void vcsw_fdb_learn(struct vcsw *sw, struct vcsw_slave *p,
		    const u8 *addr)
{
	struct vcsw_fdb *f;
	int err;

	f = vcsw_fdb_find_rcu(sw, addr);
	if (likely(f)) {
		if (READ_ONCE(f->is_static))
			return;
		if (unlikely(READ_ONCE(f->port) != p)) {
			/*
			 * Under the lock: fdb_add may have made the entry
			 * static since it was read above, and a static entry
			 * is never moved by learning (a host could take
			 * another's static address's traffic).  A move is
			 * rare, so the lock costs nothing per frame.
			 */
			spin_lock(&sw->fdb_lock);
			if (!f->gone && !f->is_static && f->port != p) {
				WRITE_ONCE(f->port, p);
				vcsw_sw_count(sw, VCSW_SS_FDB_MOVED);
			}
			spin_unlock(&sw->fdb_lock);
			if (READ_ONCE(f->is_static))
				return;
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
	err = vcsw_fdb_insert(sw, f, VCSW_FDB_EVICT_SCAN);
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
void vcsw_fdb_flush_port(struct vcsw *sw, struct vcsw_slave *p,
			 bool with_static)
{
	struct vcsw_fdb *f, *tmp;

	spin_lock_bh(&sw->fdb_lock);
	list_for_each_entry_safe(f, tmp, &sw->fdb_list, list)
		if (f->port == p && (with_static || !f->is_static))
			vcsw_fdb_del(sw, f);
	spin_unlock_bh(&sw->fdb_lock);
}

void vcsw_fdb_flush_all(struct vcsw *sw)
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
void vcsw_fdb_trim(struct vcsw *sw)
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

int vcsw_fdb_add_static(struct vcsw *sw, struct vcsw_slave *p,
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
	/*
	 * The whole circle if need be, as vcsw_fdb_trim(): a run of static
	 * entries at the hand must not refuse a static entry while learned
	 * ones are in the table (vcsw.rst).  Once per request, under RTNL.
	 */
	err = vcsw_fdb_insert(sw, n, sw->fdb_count);
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
bool vcsw_fdb_has_static(struct vcsw *sw, struct vcsw_slave *p,
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
void vcsw_fdb_del_static(struct vcsw *sw, struct vcsw_slave *p,
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
void vcsw_fdb_gc(struct work_struct *work)
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

int vcsw_fdb_init(struct vcsw *sw)
{
	return rhashtable_init(&sw->fdb, &vcsw_fdb_params);
}

void vcsw_fdb_destroy(struct vcsw *sw)
{
	rhashtable_destroy(&sw->fdb);
}
