// SPDX-License-Identifier: GPL-2.0
/*
 * sch_edf: configuration over netlink (qdisc and classes), the dumps,
 * the class operations and the module.  Scheduling is in sch_edf_main.c.
 */
#include "sch_edf.h"

/* Ranges wider than NLA_POLICY_RANGE's 16 bits. */
static struct netlink_range_validation edf_limit_range = {
	.min = 1, .max = EDF_MAX_LIMIT,
};
static struct netlink_range_validation edf_flows_range = {
	.min = 1, .max = EDF_MAX_FLOWS_LIMIT,
};
static struct netlink_range_validation edf_elig_range = {
	.min = 0, .max = EDF_MAX_ELIG_NS,
};
static struct netlink_range_validation edf_time_range = {
	.min = EDF_MIN_TIME_NS, .max = EDF_MAX_TIME_NS,
};
static struct netlink_range_validation edf_burst_range = {
	.min = 0, .max = EDF_MAX_BURST,
};
static struct netlink_range_validation edf_minor_range = {
	.min = 0, .max = 0xffff,
};
static struct netlink_range_validation edf_recn_lease_range = {
	.min = 4 * NSEC_PER_USEC, .max = 10 * NSEC_PER_SEC,
};
/*
 * A new SAQ counts as empty until the qdisc counts its queue again
 * (edf_recn_recount(): at least 100 us apart), and an empty one is freed
 * after recn_idle: at least 1 ms, so that it lives to take its frames.
 */
static struct netlink_range_validation edf_recn_idle_range = {
	.min = NSEC_PER_MSEC, .max = 60 * NSEC_PER_SEC,
};

static const struct nla_policy edf_policy[TCA_EDF_MAX + 1] = {
	[TCA_EDF_RATE]		= { .type = NLA_U64 },
	[TCA_EDF_ELIGIBILITY]	= NLA_POLICY_FULL_RANGE(NLA_U64, &edf_elig_range),
	[TCA_EDF_LIMIT]		= NLA_POLICY_FULL_RANGE(NLA_U32, &edf_limit_range),
	[TCA_EDF_FLOW_LIMIT]	= NLA_POLICY_FULL_RANGE(NLA_U32, &edf_limit_range),
	[TCA_EDF_MAX_FLOWS]	= NLA_POLICY_FULL_RANGE(NLA_U32, &edf_flows_range),
	[TCA_EDF_TTD]		= NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_EDF_HORIZON]	= NLA_POLICY_FULL_RANGE(NLA_U64, &edf_time_range),
	[TCA_EDF_DEFAULT]	= NLA_POLICY_FULL_RANGE(NLA_U32, &edf_minor_range),
	[TCA_EDF_PRIOMAP]	= NLA_POLICY_EXACT_LEN(sizeof(u16) * TC_EDF_PRIO_BANDS),
	[TCA_EDF_CREDITS]	= NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_EDF_CREDIT_UNIT]	= { .type = NLA_U32 },	/* range: fabric_link */
	[TCA_EDF_VCS]		= NLA_POLICY_RANGE(NLA_U8, 2, __TC_EDF_VC_MAX),
	[TCA_EDF_RECN]		= NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_EDF_RECN_SAQS]	= NLA_POLICY_RANGE(NLA_U8, 1, RECN_SAQ_MAX),
	[TCA_EDF_RECN_LEASE]	= NLA_POLICY_FULL_RANGE(NLA_U64, &edf_recn_lease_range),
	[TCA_EDF_RECN_IDLE]	= NLA_POLICY_FULL_RANGE(NLA_U64, &edf_recn_idle_range),
	[TCA_EDF_LINK_RATE]	= { .type = NLA_REJECT,
				    .reject_message = "link_rate is read only: give rate" },
};

static const struct nla_policy edf_class_policy[TCA_EDF_CLASS_MAX + 1] = {
	[TCA_EDF_CLASS_MODE]	= NLA_POLICY_MAX(NLA_U8, TC_EDF_MODE_MAX),
	[TCA_EDF_CLASS_RATE]	= { .type = NLA_U64 },
	[TCA_EDF_CLASS_LATENCY]	= NLA_POLICY_FULL_RANGE(NLA_U64, &edf_time_range),
	[TCA_EDF_CLASS_VC]	= NLA_POLICY_MAX(NLA_U8, TC_EDF_VC_MAX),
	[TCA_EDF_CLASS_SMOOTH]	= NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_EDF_CLASS_PERFLOW]	= NLA_POLICY_MAX(NLA_U8, 1),
	[TCA_EDF_CLASS_BURST]	= NLA_POLICY_FULL_RANGE(NLA_U32, &edf_burst_range),
};

/* NLA_POLICY_RANGE cannot hold 64-bit bounds on this kernel: check here. */
static int edf_check_rate(u64 rate, bool zero_ok,
			  struct netlink_ext_ack *extack)
{
	if (rate == 0 && zero_ok)
		return 0;
	if (rate < EDF_RATE_MIN || rate > EDF_RATE_MAX) {
		if (zero_ok)
			NL_SET_ERR_MSG_MOD(extack,
					   "rate must be 0 (off) or between 1kbit and 400gbit");
		else
			NL_SET_ERR_MSG_MOD(extack,
					   "class rate must be between 1kbit and 400gbit");
		return -EINVAL;
	}
	return 0;
}

/* The device's speed, bytes/s; 0 when it tells none (no link, no ethtool). */
static u64 edf_device_speed(struct net_device *dev)
{
	struct ethtool_link_ksettings ks;

	ASSERT_RTNL();
	if (__ethtool_get_link_ksettings(dev, &ks) == 0 &&
	    ks.base.speed != SPEED_UNKNOWN && ks.base.speed)
		return (u64)ks.base.speed * 1000000ULL / 8;
	return 0;
}

static u64 edf_device_rate(struct net_device *dev)
{
	return edf_device_speed(dev) ?: EDF_FALLBACK_LINK_RATE;
}

/*
 * Every edf qdisc, for the device notifier: one without "rate" takes the
 * device's speed, which a NIC may only know once its link is up, and
 * which changes when the link renegotiates (a carrier change).  Added
 * and removed under RTNL, as the notifier runs; the lock is for the
 * reader's sake all the same.
 */
static LIST_HEAD(edf_speed_list);
static DEFINE_SPINLOCK(edf_speed_lock);

static bool edf_follows_device(const struct edf_sched *q,
			       const struct net_device *dev)
{
	return !q->rate && qdisc_dev(q->sch) == dev;
}

static int edf_device_event(struct notifier_block *nb, unsigned long event,
			    void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct edf_sched *q;
	bool ours = false;
	u64 rate;

	if (event != NETDEV_UP && event != NETDEV_CHANGE)
		return NOTIFY_DONE;
	spin_lock(&edf_speed_lock);
	list_for_each_entry(q, &edf_speed_list, speed_node)
		ours |= edf_follows_device(q, dev);
	spin_unlock(&edf_speed_lock);
	if (!ours)
		return NOTIFY_DONE;
	/*
	 * Drivers may sleep to tell their speed: ask before the locks.  A
	 * link going down tells no speed: the last one known stays.
	 */
	rate = edf_device_speed(dev);
	if (!rate)
		return NOTIFY_DONE;
	spin_lock(&edf_speed_lock);
	list_for_each_entry(q, &edf_speed_list, speed_node) {
		if (!edf_follows_device(q, dev) || q->link_rate == rate)
			continue;
		if (q->link)
			fabric_link_set_rate(q->link, rate);
		sch_tree_lock(q->sch);
		q->link_rate = rate;
		q->default_cl.rate = rate;
		sch_tree_unlock(q->sch);
	}
	spin_unlock(&edf_speed_lock);
	return NOTIFY_DONE;
}

static struct notifier_block edf_device_notifier = {
	.notifier_call = edf_device_event,
};

/* Fewer VCs than a class uses would leave it no VC: refused. */
static int edf_check_vcs(struct Qdisc *sch, u8 vcs, const struct nlattr *attr,
			 struct netlink_ext_ack *extack)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct Qdisc_class_common *c;
	unsigned int i;

	for (i = 0; i < q->clhash.hashsize; i++)
		hlist_for_each_entry(c, &q->clhash.hash[i], hnode)
			if (container_of(c, struct edf_class, common)->vc >= vcs) {
				NL_SET_ERR_MSG_ATTR(extack, attr,
						    "a class uses a VC beyond vcs: move it first");
				return -EINVAL;
			}
	return 0;
}

/*
 * "recn" and its settings as asked: *@on and *@cfg, checked against the
 * credits the qdisc will have (@credits) and its queue.
 */
static int edf_recn_parse(struct Qdisc *sch, struct nlattr **tb, bool credits,
			  bool *on, struct recn_host_cfg *cfg,
			  struct netlink_ext_ack *extack)
{
	struct edf_sched *q = qdisc_priv(sch);

	*on = tb[TCA_EDF_RECN] ? nla_get_u8(tb[TCA_EDF_RECN]) : q->recn;
	*cfg = q->recn_cfg;
	if (tb[TCA_EDF_RECN_SAQS])
		cfg->nsaq = nla_get_u8(tb[TCA_EDF_RECN_SAQS]);
	if (tb[TCA_EDF_RECN_LEASE])
		cfg->lease_ns = nla_get_u64(tb[TCA_EDF_RECN_LEASE]);
	if (tb[TCA_EDF_RECN_IDLE])
		cfg->idle_ns = nla_get_u64(tb[TCA_EDF_RECN_IDLE]);
	if (!*on) {
		if (tb[TCA_EDF_RECN_SAQS] || tb[TCA_EDF_RECN_LEASE] || tb[TCA_EDF_RECN_IDLE]) {
			NL_SET_ERR_MSG_MOD(extack,
					   "recn_saqs, recn_lease and recn_idle need recn on");
			return -EINVAL;
		}
		*cfg = q->recn_cfg;
	} else if (!credits) {
		NL_SET_ERR_MSG_MOD(extack,
				   "recn needs credits on: RECN's messages come over the credit link");
		return -EINVAL;
	} else if (recn_host_cfg_check(cfg) == RECN_HOST_CFG_IDLE) {
		NL_SET_ERR_MSG_ATTR(extack, tb[TCA_EDF_RECN_IDLE],
				    "recn_idle must be at least a quarter of recn_lease");
		return -EINVAL;
	}
	return 0;
}

/*
 * Turn the link's RECN on for @link (the qdisc's link after this
 * change), or see that new settings may be given it (edf_recn_commit()
 * gives them).  On failure nothing changed, but a link new to the qdisc
 * is the caller's to put.
 */
static int edf_recn_prepare(struct edf_sched *q, struct fabric_link *link, bool on,
			    const struct recn_host_cfg *cfg,
			    struct netlink_ext_ack *extack)
{
	if (!on)
		return 0;
	if (!q->recn || link != q->link)
		return fabric_link_recn_get(link, cfg, extack);
	return fabric_link_recn_can_set(link, cfg, extack);
}

/*
 * The change, under the tree lock, before q->link changes: frames
 * counted where the old settings put them are taken out first, so that
 * the link never counts a frame twice or one that is gone; frames queued
 * when RECN goes on (or anew) are counted at the next dequeue, those of
 * a class's one queue in their destinations' queues by then; when it
 * goes off, the destinations' queues join their class's one queue again.
 */
static void edf_recn_commit(struct Qdisc *sch, struct fabric_link *link, bool on,
			    const struct recn_host_cfg *cfg)
{
	struct edf_sched *q = qdisc_priv(sch);
	bool same = q->recn && on && link == q->link && recn_host_cfg_eq(cfg, &q->recn_cfg);
	bool was_on = q->recn;

	if (same)
		return;
	if (was_on)
		edf_recn_untag_all(sch);
	if (q->recn && on)
		fabric_link_recn_set(link, cfg);
	q->recn = on;
	q->recn_cfg = *cfg;
	if (on) {
		edf_recn_split_all(sch);
		edf_recn_list_active(sch);
		edf_recn_recount_soon(q, link);
	} else if (was_on) {
		edf_recn_join_dests(sch);
	}
}

static int edf_change(struct Qdisc *sch, struct nlattr *opt,
		      struct netlink_ext_ack *extack)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct nlattr *tb[TCA_EDF_MAX + 1];
	u64 rate = q->rate, elig = q->eligibility, horizon = q->horizon;
	u32 limit = q->limit, flow_limit = q->flow_limit;
	unsigned int dropped_pkts = 0, dropped_bytes = 0;
	struct fabric_link *link, *old_link;
	struct sk_buff *skb;
	u8 vcs = q->vcs;
	struct recn_host_cfg recn_cfg;
	bool recn, credits, old_recn, repace, released;
	u32 held;
	u64 link_rate;
	int err;

	if (!opt)
		return 0;
	err = nla_parse_nested(tb, TCA_EDF_MAX, opt, edf_policy, extack);
	if (err < 0)
		return err;
	if (tb[TCA_EDF_VCS]) {
		vcs = nla_get_u8(tb[TCA_EDF_VCS]);
		err = edf_check_vcs(sch, vcs, tb[TCA_EDF_VCS], extack);
		if (err)
			return err;
	}

	if (tb[TCA_EDF_RATE]) {
		rate = nla_get_u64(tb[TCA_EDF_RATE]);
		err = edf_check_rate(rate, true, extack);
		if (err)
			return err;
	}
	if (tb[TCA_EDF_LIMIT])
		limit = nla_get_u32(tb[TCA_EDF_LIMIT]);
	/*
	 * A limit given alone takes the flows' down with it: "limit 50" must
	 * not be refused for the flow_limit of 100 the user never gave.
	 */
	if (tb[TCA_EDF_FLOW_LIMIT])
		flow_limit = nla_get_u32(tb[TCA_EDF_FLOW_LIMIT]);
	else
		flow_limit = min(flow_limit, limit);
	if (flow_limit > limit) {
		NL_SET_ERR_MSG_MOD(extack, "flow_limit cannot exceed limit");
		return -EINVAL;
	}
	if (tb[TCA_EDF_ELIGIBILITY])
		elig = nla_get_u64(tb[TCA_EDF_ELIGIBILITY]);
	if (tb[TCA_EDF_HORIZON])
		horizon = nla_get_u64(tb[TCA_EDF_HORIZON]);
	if (elig > horizon) {
		NL_SET_ERR_MSG_MOD(extack,
				   "eligibility longer than the horizon: no deadline could use it");
		return -EINVAL;
	}
	if (tb[TCA_EDF_TTD] && nla_get_u8(tb[TCA_EDF_TTD]) &&
	    qdisc_dev(sch)->type != ARPHRD_ETHER) {
		NL_SET_ERR_MSG_MOD(extack, "ttd needs an Ethernet device");
		return -EOPNOTSUPP;
	}
	credits = tb[TCA_EDF_CREDITS] ? nla_get_u8(tb[TCA_EDF_CREDITS]) : !!q->link;
	err = edf_recn_parse(sch, tb, credits, &recn, &recn_cfg, extack);
	if (err)
		return err;
	/*
	 * With a link already, RECN is readied first: a new credit unit or
	 * VC count restarts the link's books at once, so that goes last of
	 * what may fail (fabric_link_configure())
	 */
	if (q->link) {
		err = edf_recn_prepare(q, q->link, recn, &recn_cfg, extack);
		if (err)
			return err;
	}
	link = fabric_link_configure(sch, q->link, tb[TCA_EDF_CREDITS],
				     tb[TCA_EDF_CREDIT_UNIT], vcs, extack);
	if (IS_ERR(link)) {
		if (q->link && recn && !q->recn)
			fabric_link_recn_put(q->link);
		return PTR_ERR(link);
	}
	if (!q->link) {
		err = edf_recn_prepare(q, link, recn, &recn_cfg, extack);
		if (err) {
			if (link)
				fabric_link_put(link);
			return err;
		}
	}
	/* drivers may sleep to tell their speed: ask before taking the lock */
	link_rate = rate ? rate : edf_device_rate(qdisc_dev(sch));
	if (link)
		fabric_link_set_rate(link, link_rate);

	sch_tree_lock(sch);
	err = fabric_link_may_start(sch, q->link, link, extack);
	if (err) {
		sch_tree_unlock(sch);
		/* new to the qdisc: RECN, if readied, was readied on it */
		if (recn)
			fabric_link_recn_put(link);
		fabric_link_put(link);
		return err;
	}
	/* the heaps see the new settings; the direct packet was outside */
	edf_direct_spill(q);
	old_recn = q->recn;
	held = q->recn_held_flows;
	edf_recn_commit(sch, link, recn, &recn_cfg);
	released = q->recn_held_flows < held;
	old_link = q->link;
	q->link = link;
	q->vcs = vcs;
	repace = rate != q->rate;
	if (repace)
		q->next_tx = 0;		/* no wait left over from the old rate */
	q->rate = rate;
	q->link_rate = link_rate;
	q->eligibility = elig;
	q->horizon = horizon;
	q->limit = limit;
	q->flow_limit = flow_limit;
	if (tb[TCA_EDF_MAX_FLOWS])
		q->max_flows = nla_get_u32(tb[TCA_EDF_MAX_FLOWS]);
	if (tb[TCA_EDF_TTD]) {
		bool ttd = nla_get_u8(tb[TCA_EDF_TTD]);

		/* the VC, SL and route a frame counts under change with it */
		if (q->recn && ttd != q->ttd)
			edf_recn_recount_soon(q, q->link);
		q->ttd = ttd;
	}
	if (tb[TCA_EDF_DEFAULT])
		q->default_minor = nla_get_u32(tb[TCA_EDF_DEFAULT]);
	if (tb[TCA_EDF_PRIOMAP])
		memcpy(q->priomap, nla_data(tb[TCA_EDF_PRIOMAP]),
		       sizeof(q->priomap));
	edf_resolve_bands(sch);
	q->default_cl.rate = q->link_rate;

	/* a lower limit takes effect now, as in the in-tree qdiscs */
	while (sch->q.qlen > q->limit) {
		skb = edf_drop_one(sch, ktime_get_ns());
		if (!skb)
			break;
		dropped_pkts++;
		dropped_bytes += qdisc_pkt_len(skb);
		rtnl_kfree_skbs(skb, skb);
	}
	if (dropped_pkts)
		qdisc_tree_reduce_backlog(sch, dropped_pkts, dropped_bytes);
	sch_tree_unlock(sch);
	/* no frame is counted there now (edf_recn_commit()) */
	if (old_recn && !recn)
		fabric_link_recn_put(old_link);
	if (old_link && old_link != link)
		fabric_link_put(old_link);
	/*
	 * Heads that waited for credits go now, if credits went off, and
	 * those the pacer held for the old rate: its watchdog is still set
	 * for then, and a backlog that gets no new packet would wait for it.
	 * So do the flows the change let go (recn off, or set anew): held
	 * for a SAQ, they waited for its Xon, which no longer comes (its
	 * SAQ is gone), and not for the link's credits, which wake only a
	 * qdisc they refused.
	 */
	if ((!link && old_link) || repace || released)
		__netif_schedule(qdisc_root(sch));
	return 0;
}

static int edf_init(struct Qdisc *sch, struct nlattr *opt,
		    struct netlink_ext_ack *extack)
{
	struct edf_sched *q = qdisc_priv(sch);
	int err, i;

	/* first: edf_destroy() takes it off the list, also after a failure */
	INIT_LIST_HEAD(&q->speed_node);
	q->sch = sch;
	q->limit = EDF_DEFAULT_LIMIT;
	q->flow_limit = EDF_DEFAULT_FLOW_LIMIT;
	q->max_flows = EDF_DEFAULT_MAX_FLOWS;
	q->eligibility = EDF_DEFAULT_ELIG_NS;
	q->horizon = EDF_DEFAULT_HORIZON_NS;
	q->vcs = 2;
	q->link_rate = edf_device_rate(qdisc_dev(sch));
	recn_host_cfg_default(&q->recn_cfg);
	for (i = 0; i < RECN_HOST_VCS * RECN_SAQ_MAX; i++)
		INIT_LIST_HEAD(&q->recn_held[i / RECN_SAQ_MAX][i % RECN_SAQ_MAX]);
	INIT_LIST_HEAD(&q->recn_active);
	runheap_init(&q->waiting);
	for (i = 0; i < __TC_EDF_VC_MAX; i++)
		runheap_init(&q->ready[i]);
	INIT_LIST_HEAD(&q->idle);
	q->gc_due_ns = U64_MAX;
	qdisc_watchdog_init(&q->watchdog, sch);

	edf_class_init(&q->default_cl, 0);
	q->default_cl.mode = TC_EDF_MODE_RATE;
	q->default_cl.vc = TC_EDF_VC_BESTEFFORT;
	q->default_cl.rate = q->link_rate;

	q->flows = kvcalloc(1 << EDF_FLOW_BUCKETS_LOG, sizeof(*q->flows),
			    GFP_KERNEL);
	if (!q->flows)
		return -ENOMEM;
	for (i = 0; i < (1 << EDF_FLOW_BUCKETS_LOG); i++)
		q->flows[i] = RB_ROOT;

	err = tcf_block_get(&q->block, &q->filter_list, sch, extack);
	if (err)
		return err;
	err = qdisc_class_hash_init(&q->clhash);
	if (err)
		return err;
	spin_lock(&edf_speed_lock);
	list_add(&q->speed_node, &edf_speed_list);
	spin_unlock(&edf_speed_lock);
	return edf_change(sch, opt, extack);
}

/* A class's own flow (shared): its packets dropped, its state forgotten. */
static void edf_class_purge_shared(struct Qdisc *sch, struct edf_class *cl)
{
	edf_flow_purge(sch, &cl->shared, NULL);
	edf_flow_free(qdisc_priv(sch), &cl->shared);
}

/*
 * Drop a class's packets and forget its flows.  Our own counters go down
 * here; the caller tells the parents (qdisc_tree_reduce_backlog) where
 * they counted the packets.  Runs under the tree lock or at teardown.
 */
static void edf_class_purge(struct Qdisc *sch, struct edf_class *cl)
{
	edf_purge_flows(sch, cl, true);
	edf_class_purge_shared(sch, cl);
}

static void edf_reset(struct Qdisc *sch)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct Qdisc_class_common *c;
	struct edf_class *cl;
	unsigned int i;

	/* one walk of the table for all classes, then their own flows */
	edf_purge_flows(sch, NULL, true);
	for (i = 0; i < q->clhash.hashsize; i++) {
		hlist_for_each_entry(c, &q->clhash.hash[i], hnode) {
			cl = container_of(c, struct edf_class, common);
			edf_class_purge_shared(sch, cl);
		}
	}
	edf_class_purge_shared(sch, &q->default_cl);
	q->next_tx = 0;
	memset(q->be, 0, sizeof(q->be));
	qdisc_watchdog_cancel(&q->watchdog);
}

/* teardown, after edf_purge_flows() of every class */
static void edf_destroy_class(struct Qdisc *sch, struct edf_class *cl)
{
	edf_class_purge_shared(sch, cl);
	gen_kill_estimator(&cl->rate_est);
	kfree(cl);
}

static void edf_destroy(struct Qdisc *sch)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct Qdisc_class_common *c;
	struct hlist_node *next;
	unsigned int i;

	tcf_block_put(q->block);
	qdisc_watchdog_cancel(&q->watchdog);
	/* one walk of the table for all classes, then their own flows */
	edf_purge_flows(sch, NULL, true);
	if (q->clhash.hash) {
		for (i = 0; i < q->clhash.hashsize; i++)
			hlist_for_each_entry_safe(c, next, &q->clhash.hash[i], hnode)
				edf_destroy_class(sch, container_of(c, struct edf_class,
								    common));
		qdisc_class_hash_destroy(&q->clhash);
	}
	if (q->flows) {
		edf_class_purge_shared(sch, &q->default_cl);
		kvfree(q->flows);
	}
	/* after the purges: no frame is counted in the link's SAQs */
	if (q->recn)
		fabric_link_recn_put(q->link);
	if (q->link)
		fabric_link_put(q->link);
	spin_lock(&edf_speed_lock);
	list_del_init(&q->speed_node);
	spin_unlock(&edf_speed_lock);
}

static int edf_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;
	if (nla_put_u64_64bit(skb, TCA_EDF_RATE, q->rate, TCA_EDF_PAD) ||
	    nla_put_u64_64bit(skb, TCA_EDF_LINK_RATE, q->link_rate, TCA_EDF_PAD) ||
	    nla_put_u64_64bit(skb, TCA_EDF_ELIGIBILITY, q->eligibility,
			      TCA_EDF_PAD) ||
	    nla_put_u32(skb, TCA_EDF_LIMIT, q->limit) ||
	    nla_put_u32(skb, TCA_EDF_FLOW_LIMIT, q->flow_limit) ||
	    nla_put_u32(skb, TCA_EDF_MAX_FLOWS, q->max_flows) ||
	    nla_put_u8(skb, TCA_EDF_TTD, q->ttd) ||
	    nla_put_u64_64bit(skb, TCA_EDF_HORIZON, q->horizon, TCA_EDF_PAD) ||
	    nla_put_u32(skb, TCA_EDF_DEFAULT, q->default_minor) ||
	    nla_put(skb, TCA_EDF_PRIOMAP, sizeof(q->priomap), q->priomap) ||
	    nla_put_u8(skb, TCA_EDF_CREDITS, !!q->link) ||
	    nla_put_u8(skb, TCA_EDF_VCS, q->vcs) ||
	    (q->link && nla_put_u32(skb, TCA_EDF_CREDIT_UNIT,
				    fabric_link_unit(q->link))) ||
	    nla_put_u8(skb, TCA_EDF_RECN, q->recn) ||
	    (q->recn &&
	     (nla_put_u8(skb, TCA_EDF_RECN_SAQS, q->recn_cfg.nsaq) ||
	      nla_put_u64_64bit(skb, TCA_EDF_RECN_LEASE, q->recn_cfg.lease_ns, TCA_EDF_PAD) ||
	      nla_put_u64_64bit(skb, TCA_EDF_RECN_IDLE, q->recn_cfg.idle_ns, TCA_EDF_PAD))))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int edf_dump_stats(struct Qdisc *sch, struct gnet_dump *d)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct tc_edf_qd_stats st;
	struct Qdisc_class_common *c;
	unsigned int i;
	u32 active;

	sch_tree_lock(sch);
	active = q->default_cl.active_flows;
	for (i = 0; i < q->clhash.hashsize; i++)
		hlist_for_each_entry(c, &q->clhash.hash[i], hnode)
			active += container_of(c, struct edf_class,
					       common)->active_flows;
	st = q->xs;
	st.flows = q->nflows;
	st.eligible_wait = q->waiting.count;
	st.recn_held_flows = q->recn_held_flows;
	sch_tree_unlock(sch);
	if (q->recn)
		fabric_link_recn_read_stats(q->link, &st.recn);
	st.active_flows = active;
	if (q->link) {
		fabric_link_read_stats(q->link, &st.credits);
		st.credit_vcs = q->vcs;
		for (i = 0; i < ARRAY_SIZE(st.credit_stalls_hi); i++)
			fabric_link_read_vc(q->link, 2 + i, &st.credit_tx_credits_hi[i],
					    &st.credit_stalls_hi[i]);
	}
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

/* ---- class ops ------------------------------------------------------ */

static struct Qdisc *edf_leaf(struct Qdisc *sch, unsigned long arg)
{
	return NULL;	/* flows are the queues: no child qdiscs */
}

static unsigned long edf_search(struct Qdisc *sch, u32 classid)
{
	return (unsigned long)edf_find_class(sch, classid);
}

static bool edf_class_is_busy(const struct edf_class *cl)
{
	return cl->qlen > 0;
}

static int edf_change_class(struct Qdisc *sch, u32 classid, u32 parentid,
			    struct nlattr **tca, unsigned long *arg,
			    struct netlink_ext_ack *extack)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct edf_class *cl = (struct edf_class *)*arg;
	struct nlattr *tb[TCA_EDF_CLASS_MAX + 1];
	struct nlattr *opt = tca[TCA_OPTIONS];
	u8 mode, vc;
	bool smooth, perflow, new = !cl;
	u64 rate, latency;
	u32 burst;
	int err;

	if (!opt) {
		NL_SET_ERR_MSG_MOD(extack, "edf class options are required");
		return -EINVAL;
	}
	if (parentid && parentid != TC_H_ROOT && parentid != sch->handle) {
		NL_SET_ERR_MSG_MOD(extack, "edf classes hang directly off the qdisc");
		return -EINVAL;
	}
	err = nla_parse_nested(tb, TCA_EDF_CLASS_MAX, opt, edf_class_policy,
			       extack);
	if (err < 0)
		return err;

	if (new) {
		if (!classid || TC_H_MAJ(classid ^ sch->handle) ||
		    !TC_H_MIN(classid)) {
			NL_SET_ERR_MSG_MOD(extack, "invalid class id");
			return -EINVAL;
		}
		if (edf_find_class(sch, classid)) {
			NL_SET_ERR_MSG_MOD(extack, "class id already in use");
			return -EEXIST;
		}
		if (!tb[TCA_EDF_CLASS_MODE]) {
			NL_SET_ERR_MSG_MOD(extack,
					   "a new class needs a mode: rate, control, frame or txtime");
			return -EINVAL;
		}
		mode = TC_EDF_MODE_RATE;
		vc = TC_EDF_VC_REGULATED;
		smooth = false;
		perflow = true;
		rate = 0;
		latency = 0;
		burst = 0;
	} else {
		mode = cl->mode;
		vc = cl->vc;
		smooth = cl->smooth;
		perflow = cl->perflow;
		rate = cl->rate;
		latency = cl->latency;
		burst = cl->burst;
	}

	if (tb[TCA_EDF_CLASS_MODE])
		mode = nla_get_u8(tb[TCA_EDF_CLASS_MODE]);
	if (tb[TCA_EDF_CLASS_VC]) {
		vc = nla_get_u8(tb[TCA_EDF_CLASS_VC]);
		/* best-effort classes share one clock by default (weights) */
		if (new && !tb[TCA_EDF_CLASS_PERFLOW])
			perflow = vc == TC_EDF_VC_REGULATED;
	}
	if (tb[TCA_EDF_CLASS_SMOOTH])
		smooth = nla_get_u8(tb[TCA_EDF_CLASS_SMOOTH]);
	if (tb[TCA_EDF_CLASS_PERFLOW])
		perflow = nla_get_u8(tb[TCA_EDF_CLASS_PERFLOW]);
	if (tb[TCA_EDF_CLASS_RATE]) {
		rate = nla_get_u64(tb[TCA_EDF_CLASS_RATE]);
		err = edf_check_rate(rate, false, extack);
		if (err)
			return err;
	}
	if (tb[TCA_EDF_CLASS_LATENCY])
		latency = nla_get_u64(tb[TCA_EDF_CLASS_LATENCY]);
	if (tb[TCA_EDF_CLASS_BURST])
		burst = nla_get_u32(tb[TCA_EDF_CLASS_BURST]);
	if (vc >= q->vcs) {
		NL_SET_ERR_MSG_MOD(extack,
				   "VC beyond the qdisc's vcs: raise vcs first (tc qdisc change ... vcs 4)");
		return -EINVAL;
	}
	if (burst && mode != TC_EDF_MODE_RATE) {
		NL_SET_ERR_MSG_MOD(extack, "burst needs rate mode: a token bucket of the class's rate");
		return -EINVAL;
	}
	if (burst && smooth) {
		NL_SET_ERR_MSG_MOD(extack, "burst and smooth both hold packets: give one");
		return -EINVAL;
	}

	/*
	 * A rate belongs to rate classes, a latency to frame classes: what
	 * another mode would never read is refused, and a class that
	 * changes mode drops the old mode's setting (it would still be
	 * shown)
	 */
	if (tb[TCA_EDF_CLASS_RATE] && mode != TC_EDF_MODE_RATE) {
		NL_SET_ERR_MSG_MOD(extack, "a rate applies to rate classes only");
		return -EINVAL;
	}
	if (tb[TCA_EDF_CLASS_LATENCY] && mode != TC_EDF_MODE_FRAME) {
		NL_SET_ERR_MSG_MOD(extack, "a frame latency applies to frame classes only");
		return -EINVAL;
	}
	if (mode != TC_EDF_MODE_RATE)
		rate = 0;
	if (mode != TC_EDF_MODE_FRAME)
		latency = 0;

	if (mode == TC_EDF_MODE_RATE && !rate) {
		NL_SET_ERR_MSG_MOD(extack, "rate mode needs a rate");
		return -EINVAL;
	}
	if (mode == TC_EDF_MODE_FRAME && !latency) {
		NL_SET_ERR_MSG_MOD(extack, "frame mode needs a frame latency");
		return -EINVAL;
	}
	if (smooth && vc != TC_EDF_VC_REGULATED) {
		NL_SET_ERR_MSG_MOD(extack, "smooth applies to regulated classes only");
		return -EINVAL;
	}

	if (new) {
		cl = kzalloc(sizeof(*cl), GFP_KERNEL);
		if (!cl)
			return -ENOMEM;
		edf_class_init(cl, classid);
	}
	/*
	 * The estimator first, as the in-tree classful qdiscs do (it may
	 * sleep): a change refused below keeps an existing class's new one
	 */
	if (tca[TCA_RATE]) {
		err = gen_replace_estimator(&cl->bstats, NULL, &cl->rate_est,
					    NULL, true, tca[TCA_RATE]);
		if (err) {
			NL_SET_ERR_MSG_MOD(extack, "invalid rate estimator");
			if (new)
				kfree(cl);
			return err;
		}
	}

	sch_tree_lock(sch);
	/* under the lock: an enqueue on another cpu may just have filled it */
	if (!new && edf_class_is_busy(cl) &&
	    (vc != cl->vc || smooth != cl->smooth || perflow != cl->perflow ||
	     !burst != !cl->burst)) {
		sch_tree_unlock(sch);
		NL_SET_ERR_MSG_MOD(extack,
				   "class has queued packets: change vc, smooth, perflow or burst on or off when it is idle");
		return -EBUSY;
	}
	/*
	 * Idle: only state goes.  A class that changes VC, or goes in or out
	 * of best effort (a token bucket), forgets its clocks as well: a
	 * best-effort one reads its VC's virtual time, which may run hours
	 * ahead of now (edf_be_clock), and another VC's epochs.
	 */
	if (!new && (perflow != cl->perflow || vc != cl->vc || !burst != !cl->burst)) {
		edf_purge_flows(sch, cl, false);
		edf_flow_free(q, &cl->shared);
	}
	cl->mode = mode;
	cl->vc = vc;
	cl->smooth = smooth;
	cl->perflow = perflow;
	cl->rate = rate;
	cl->latency = latency;
	cl->burst = burst;
	cl->burst_ns = edf_bucket_eligibility(burst, rate);
	if (new) {
		qdisc_class_hash_insert(&q->clhash, &cl->common);
		edf_resolve_bands(sch);
	}
	sch_tree_unlock(sch);

	if (new)
		qdisc_class_hash_grow(sch, &q->clhash);
	*arg = (unsigned long)cl;
	return 0;
}

static int edf_delete_class(struct Qdisc *sch, unsigned long arg,
			    struct netlink_ext_ack *extack)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct edf_class *cl = (struct edf_class *)arg;
	unsigned int qlen, backlog;

	if (cl->filter_cnt) {
		NL_SET_ERR_MSG_MOD(extack, "filters still point to this class");
		return -EBUSY;
	}

	sch_tree_lock(sch);
	qlen = cl->qlen;
	backlog = cl->backlog;
	edf_class_purge(sch, cl);
	qdisc_tree_reduce_backlog(sch, qlen, backlog);
	qdisc_class_hash_remove(&q->clhash, &cl->common);
	edf_resolve_bands(sch);
	sch_tree_unlock(sch);

	gen_kill_estimator(&cl->rate_est);
	kfree(cl);
	return 0;
}

static struct tcf_block *edf_tcf_block(struct Qdisc *sch, unsigned long cl,
				       struct netlink_ext_ack *extack)
{
	struct edf_sched *q = qdisc_priv(sch);

	if (cl) {
		NL_SET_ERR_MSG_MOD(extack, "filters attach to the edf qdisc, not to its classes");
		return NULL;
	}
	return q->block;
}

static unsigned long edf_bind_tcf(struct Qdisc *sch, unsigned long parent,
				  u32 classid)
{
	struct edf_class *cl = edf_find_class(sch, classid);

	if (cl)
		cl->filter_cnt++;
	return (unsigned long)cl;
}

static void edf_unbind_tcf(struct Qdisc *sch, unsigned long arg)
{
	struct edf_class *cl = (struct edf_class *)arg;

	cl->filter_cnt--;
}

static int edf_dump_class(struct Qdisc *sch, unsigned long arg,
			  struct sk_buff *skb, struct tcmsg *tcm)
{
	struct edf_class *cl = (struct edf_class *)arg;
	struct nlattr *opts;

	tcm->tcm_parent = TC_H_ROOT;
	tcm->tcm_handle = cl->common.classid;
	tcm->tcm_info = 0;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;
	if (nla_put_u8(skb, TCA_EDF_CLASS_MODE, cl->mode) ||
	    (cl->rate &&
	     nla_put_u64_64bit(skb, TCA_EDF_CLASS_RATE, cl->rate,
			       TCA_EDF_CLASS_PAD)) ||
	    (cl->latency &&
	     nla_put_u64_64bit(skb, TCA_EDF_CLASS_LATENCY, cl->latency,
			       TCA_EDF_CLASS_PAD)) ||
	    nla_put_u8(skb, TCA_EDF_CLASS_VC, cl->vc) ||
	    nla_put_u8(skb, TCA_EDF_CLASS_SMOOTH, cl->smooth) ||
	    nla_put_u8(skb, TCA_EDF_CLASS_PERFLOW, cl->perflow) ||
	    nla_put_u32(skb, TCA_EDF_CLASS_BURST, cl->burst))
		goto nla_put_failure;
	return nla_nest_end(skb, opts);

nla_put_failure:
	nla_nest_cancel(skb, opts);
	return -EMSGSIZE;
}

static int edf_dump_class_stats(struct Qdisc *sch, unsigned long arg,
				struct gnet_dump *d)
{
	struct edf_class *cl = (struct edf_class *)arg;
	struct tc_edf_class_stats st;

	sch_tree_lock(sch);
	st = cl->xs;
	st.packets = u64_stats_read(&cl->bstats.packets);
	st.bytes = u64_stats_read(&cl->bstats.bytes);
	st.active_flows = cl->active_flows;
	st.flows = cl->nflows;
	st.qlen = cl->qlen;
	st.backlog = cl->backlog;
	cl->qstats.backlog = cl->backlog;
	sch_tree_unlock(sch);

	if (gnet_stats_copy_basic(d, NULL, &cl->bstats, true) < 0 ||
	    gnet_stats_copy_rate_est(d, &cl->rate_est) < 0 ||
	    gnet_stats_copy_queue(d, NULL, &cl->qstats, st.qlen) < 0)
		return -1;
	return gnet_stats_copy_app(d, &st, sizeof(st));
}

static void edf_walk(struct Qdisc *sch, struct qdisc_walker *arg)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct Qdisc_class_common *c;
	unsigned int i;

	if (arg->stop)
		return;
	for (i = 0; i < q->clhash.hashsize; i++) {
		hlist_for_each_entry(c, &q->clhash.hash[i], hnode)
			if (!tc_qdisc_stats_dump(sch, (unsigned long)c, arg))
				return;
	}
}

static const struct Qdisc_class_ops edf_class_ops = {
	.leaf		= edf_leaf,
	.find		= edf_search,
	.change		= edf_change_class,
	.delete		= edf_delete_class,
	.walk		= edf_walk,
	.tcf_block	= edf_tcf_block,
	.bind_tcf	= edf_bind_tcf,
	.unbind_tcf	= edf_unbind_tcf,
	.dump		= edf_dump_class,
	.dump_stats	= edf_dump_class_stats,
};

static struct Qdisc_ops edf_qdisc_ops __read_mostly = {
	.cl_ops		= &edf_class_ops,
	.id		= "edf",
	.priv_size	= sizeof(struct edf_sched),
	.enqueue	= edf_enqueue,
	.dequeue	= edf_dequeue,
	.peek		= qdisc_peek_dequeued,
	.init		= edf_init,
	.reset		= edf_reset,
	.destroy	= edf_destroy,
	.change		= edf_change,
	.dump		= edf_dump,
	.dump_stats	= edf_dump_stats,
	.owner		= THIS_MODULE,
};

static int __init edf_module_init(void)
{
	int err;

	BUILD_BUG_ON(sizeof(struct edf_flow) > EDF_FLOW_MAX_SIZE);
	BUILD_BUG_ON(sizeof(struct edf_flow) % EDF_FLOW_ALIGN);
	BUILD_BUG_ON(offsetof(struct edf_flow, key) + sizeof(unsigned long) >
		     EDF_FLOW_ALIGN);
	/*
	 * Aligned to EDF_FLOW_ALIGN, not to a cache line: the search's
	 * fields stay in one line (struct edf_flow), and a slab page holds
	 * 25 flows instead of 21, which the allocator zeroes page by page.
	 */
	edf_flow_cache = kmem_cache_create("edf_flow", sizeof(struct edf_flow),
					   EDF_FLOW_ALIGN, 0, NULL);
	if (!edf_flow_cache)
		return -ENOMEM;
	err = register_netdevice_notifier(&edf_device_notifier);
	if (err)
		goto out_cache;
	err = register_qdisc(&edf_qdisc_ops);
	if (err)
		goto out_notifier;
	return 0;

out_notifier:
	unregister_netdevice_notifier(&edf_device_notifier);
out_cache:
	kmem_cache_destroy(edf_flow_cache);
	return err;
}

static void __exit edf_module_exit(void)
{
	unregister_qdisc(&edf_qdisc_ops);
	unregister_netdevice_notifier(&edf_device_notifier);
	kmem_cache_destroy(edf_flow_cache);
}

module_init(edf_module_init);
module_exit(edf_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("EDF / virtual clock deadline scheduler with two VCs and TTD header");
FQ_MODULE_ALIAS_QDISC("edf");