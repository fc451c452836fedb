// SPDX-License-Identifier: GPL-2.0
/*
 * vcsw: netlink.  The switch's and its ports' attributes
 * (uapi/linux/vcsw.h): policies, validation, applying a configuration,
 * and the dumps with their statistics (Documentation/vcsw.rst,
 * "Parameters" and "Statistics").  Everything here runs under RTNL.
 */
#include "vcsw_priv.h"

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
	[IFLA_VCSW_VC2_BUFFER]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_buffer_range),
	[IFLA_VCSW_VC3_BUFFER]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_buffer_range),
	[IFLA_VCSW_VCS]		= NLA_POLICY_RANGE(NLA_U8, VCSW_NUM_VCS, VCSW_MAX_VCS),
	[IFLA_VCSW_FDB_MAX]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_fdb_max_range),
	[IFLA_VCSW_AGEING]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_ageing_range),
	[IFLA_VCSW_FDB_COUNT]	= { .type = NLA_REJECT },
	[IFLA_VCSW_STATS]	= { .type = NLA_REJECT },
	[IFLA_VCSW_GROUP_FWD_MASK] = { .type = NLA_U16 },
	[IFLA_VCSW_ARCH]	= NLA_POLICY_MAX(NLA_U8, VCSW_ARCH_MAX),
	[IFLA_VCSW_WORMHOLE]	= NLA_POLICY_MAX(NLA_U8, 1),
	[IFLA_VCSW_FLOOD] = NLA_POLICY_MAX(NLA_U8, 1),
};

static struct netlink_range_validation vcsw_unit_range = {
	.min = 1,
	.max = 65535,
};

/* 0: the default (VCSW_DEFAULT_IN_BUFFER or two full-size frames) */
static struct netlink_range_validation vcsw_in_buffer_range = {
	.min = 0,
	.max = 64 << 20,
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
	[IFLA_VCSW_PORT_CREDITS]	= NLA_POLICY_MAX(NLA_U8, 1),
	[IFLA_VCSW_PORT_CREDIT_UNIT]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_unit_range),
	[IFLA_VCSW_PORT_VC0_IN_BUFFER]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_in_buffer_range),
	[IFLA_VCSW_PORT_VC1_IN_BUFFER]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_in_buffer_range),
	[IFLA_VCSW_PORT_CREDIT_STATS]	= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_VC0_IN_STATS]	= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_VC1_IN_STATS]	= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_INDEX]		= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_VC2_STATS]	= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_VC3_STATS]	= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_VC2_IN_BUFFER]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_in_buffer_range),
	[IFLA_VCSW_PORT_VC3_IN_BUFFER]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_in_buffer_range),
	[IFLA_VCSW_PORT_VC2_IN_STATS]	= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_VC3_IN_STATS]	= { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_VC2_CREDIT_STATS] = { .type = NLA_REJECT },
	[IFLA_VCSW_PORT_VC3_CREDIT_STATS] = { .type = NLA_REJECT },
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
	if (data && data[IFLA_VCSW_ARCH] && data[IFLA_VCSW_VC0_MODE]) {
		NL_SET_ERR_MSG_ATTR(extack, data[IFLA_VCSW_VC0_MODE],
				    "vc0 is the old name of arch: give one of them");
		return -EINVAL;
	}
	if (data && data[IFLA_VCSW_GROUP_FWD_MASK] &&
	    nla_get_u16(data[IFLA_VCSW_GROUP_FWD_MASK]) & VCSW_GROUP_FWD_RESTRICTED) {
		NL_SET_ERR_MSG_ATTR(extack, data[IFLA_VCSW_GROUP_FWD_MASK],
				    "STP, PAUSE and LACP groups (bits 0-2) are never relayed");
		return -EINVAL;
	}
	return 0;
}

/* The architecture the old VC0 discipline names. */
static u8 vcsw_arch_of_mode(u8 mode)
{
	switch (mode) {
	case VCSW_MODE_FIFO:
		return VCSW_ARCH_TRAD;
	case VCSW_MODE_IDEAL:
		return VCSW_ARCH_IDEAL;
	default:
		return VCSW_ARCH_ADVANCED;
	}
}

/*
 * The output buffers were made smaller: what waits in an input for an
 * output VC that can no longer hold it would never cross, and would hold
 * up its input for good.  It is dropped (drops_full of the input VC) and
 * its credits go back; the crossbar then moves what was behind it.
 * RTNL held.
 */
static void vcsw_inputs_drop_unfit(struct vcsw *sw)
{
	unsigned int i, vc;

	spin_lock_bh(&sw->lock);
	for (i = 0; i < sw->nslots; i++) {
		struct vcsw_slave *q = sw->slot_port[i];

		if (!q)
			continue;
		for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
			struct vcsw_list gone;

			vcsw_list_init(&gone);
			sw->in_frames -= vcsw_xbar_remove_unfit(sw->slots, i, vc, &gone);
			vcsw_input_free(q, &gone, NULL);
		}
	}
	spin_unlock_bh(&sw->lock);
	vcsw_kick_bh(sw, NULL);
}

/*
 * Every port and its link to @vcs VCs.  Only while the switch is down
 * (vcsw_changelink() refuses otherwise), so no frame waits in a VC that
 * goes: vcsw_dev_stop() dropped them all, and the receive path drops
 * while down.  A link's books start again (a new epoch): the peer hears
 * messages of the new count, and refuses them (msgs_malformed) until it
 * has the same.  RTNL held.
 */
static void vcsw_set_vcs(struct vcsw *sw, u8 vcs)
{
	struct vcsw_slave *p;

	if (vcs == sw->vcs)
		return;
	spin_lock_bh(&sw->lock);
	WRITE_ONCE(sw->vcs, vcs);
	list_for_each_entry(p, &sw->ports, list) {
		vcsw_xport_set_vcs(&p->x, vcs);
		spin_lock(&p->lock);
		fcr_set_vcs(&p->cp.l, vcs);
		if (p->credits)
			vcsw_credit_restart(p);
		vcsw_credit_kick(p);
		spin_unlock(&p->lock);
	}
	spin_unlock_bh(&sw->lock);
}

/* Validated by the policy: apply it all, under RTNL, to every port. */
static void vcsw_apply(struct vcsw *sw, struct nlattr *data[])
{
	struct vcsw_slave *p;
	u8 arch = sw->arch;
	bool shrunk = false;
	unsigned int vc;

	if (!data)
		return;
	if (data[IFLA_VCSW_VC0_MODE])
		arch = vcsw_arch_of_mode(nla_get_u8(data[IFLA_VCSW_VC0_MODE]));
	if (data[IFLA_VCSW_ARCH])
		arch = nla_get_u8(data[IFLA_VCSW_ARCH]);
	spin_lock_bh(&sw->lock);
	sw->arch = arch;
	if (data[IFLA_VCSW_WORMHOLE]) {
		sw->wormhole = nla_get_u8(data[IFLA_VCSW_WORMHOLE]);
		if (!sw->wormhole)
			vcsw_wormhole_release(sw, 0, true);
	}
	spin_unlock_bh(&sw->lock);
	if (data[IFLA_VCSW_RATE])
		WRITE_ONCE(sw->rate, nla_get_u64(data[IFLA_VCSW_RATE]));
	for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
		struct nlattr *a = data[vcsw_buffer_attr[vc]];

		if (!a)
			continue;
		if (nla_get_u32(a) < sw->buffer[vc])
			shrunk = true;
		WRITE_ONCE(sw->buffer[vc], nla_get_u32(a));
	}
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
	if (data[IFLA_VCSW_FLOOD])
		WRITE_ONCE(sw->flood, nla_get_u8(data[IFLA_VCSW_FLOOD]));
	if (data[IFLA_VCSW_FDB_MAX])
		vcsw_fdb_trim(sw);
	if (data[IFLA_VCSW_VCS])
		vcsw_set_vcs(sw, nla_get_u8(data[IFLA_VCSW_VCS]));

	list_for_each_entry(p, &sw->ports, list) {
		rcu_read_lock();
		local_bh_disable();
		spin_lock(&sw->lock);
		vcsw_xport_set_arch(&p->x, sw->arch);
		p->x.wormhole = sw->wormhole;
		for (vc = 0; vc < VCSW_MAX_VCS; vc++)
			p->x.out.vc[vc].limit = sw->buffer[vc];
		if (p->x.out.rate != sw->rate) {
			p->x.out.rate = sw->rate;
			/* the new rate counts from now on */
			p->x.out.link_free = 0;
			hrtimer_try_to_cancel(&p->timer);
		}
		spin_unlock(&sw->lock);
		/* serve it, and let the crossbar see the new sizes */
		vcsw_kick(sw, p);
		local_bh_enable();
		rcu_read_unlock();
	}
	if (shrunk)
		vcsw_inputs_drop_unfit(sw);
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
	struct vcsw *sw = netdev_priv(dev);

	if (data && data[IFLA_VCSW_VCS] &&
	    nla_get_u8(data[IFLA_VCSW_VCS]) != sw->vcs && netif_running(dev)) {
		NL_SET_ERR_MSG_ATTR(extack, data[IFLA_VCSW_VCS],
				    "vcs changes only while the switch is down");
		return -EBUSY;
	}
	vcsw_apply(sw, data);
	return 0;
}

static size_t vcsw_get_size(const struct net_device *dev)
{
	return 5 * nla_total_size(sizeof(u8)) +	/* VC0_MODE, ARCH, WORMHOLE, FLOOD, VCS */
	       nla_total_size_64bit(sizeof(u64)) +	/* RATE */
	       /* VC0..VC3_BUFFER, FDB_MAX, AGEING, FDB_COUNT */
	       7 * nla_total_size(sizeof(u32)) +
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
	if (nla_put_u8(skb, IFLA_VCSW_VC0_MODE, vcsw_arch_vc_mode(sw->arch, 0)) ||
	    nla_put_u8(skb, IFLA_VCSW_ARCH, sw->arch) ||
	    nla_put_u8(skb, IFLA_VCSW_WORMHOLE, sw->wormhole) ||
	    nla_put_u8(skb, IFLA_VCSW_FLOOD, READ_ONCE(sw->flood)) ||
	    nla_put_u64_64bit(skb, IFLA_VCSW_RATE, sw->rate, IFLA_VCSW_PAD) ||
	    nla_put_u8(skb, IFLA_VCSW_VCS, sw->vcs) ||
	    nla_put_u32(skb, IFLA_VCSW_VC0_BUFFER, sw->buffer[0]) ||
	    nla_put_u32(skb, IFLA_VCSW_VC1_BUFFER, sw->buffer[1]) ||
	    nla_put_u32(skb, IFLA_VCSW_VC2_BUFFER, sw->buffer[2]) ||
	    nla_put_u32(skb, IFLA_VCSW_VC3_BUFFER, sw->buffer[3]) ||
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
	const int *in_attr = vcsw_in_buffer_attr;
	struct vcsw_slave *p = vcsw_slave_of_rtnl(sdev);
	u32 unit, cfg[VCSW_MAX_VCS];
	bool sizes = false;
	const u8 *add, *del;
	unsigned int vc;
	bool credits;
	s32 lo, hi;
	int err;

	if (!p || !data)
		return 0;
	credits = data[IFLA_VCSW_PORT_CREDITS] ?
		  nla_get_u8(data[IFLA_VCSW_PORT_CREDITS]) : p->credits;
	unit = data[IFLA_VCSW_PORT_CREDIT_UNIT] ?
	       nla_get_u32(data[IFLA_VCSW_PORT_CREDIT_UNIT]) : p->credit_unit;
	for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
		sizes |= !!data[in_attr[vc]];
		cfg[vc] = data[in_attr[vc]] ? nla_get_u32(data[in_attr[vc]]) :
					      p->in_cfg[vc];
		/* a frame larger than the buffer could never be sent to us */
		if (cfg[vc] && cfg[vc] < roundup(sdev->mtu + ETH_HLEN, unit)) {
			NL_SET_ERR_MSG_ATTR(extack, data[in_attr[vc]] ?: data[IFLA_VCSW_PORT_CREDIT_UNIT],
					    "input buffer smaller than a full-size frame (MTU + 14 bytes, in whole credit units)");
			return -EINVAL;
		}
	}
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
	if (data[IFLA_VCSW_PORT_CREDITS] || data[IFLA_VCSW_PORT_CREDIT_UNIT] || sizes)
		vcsw_credit_configure(p, credits, unit, cfg);
	return 0;
}

static size_t vcsw_get_slave_size(const struct net_device *dev,
				  const struct net_device *sdev)
{
	return nla_total_size_64bit(sizeof(u64)) +		/* RATE */
	       nla_total_size_64bit(sizeof(struct vcsw_port_stats)) +
	       /* VC0..VC3_STATS, VC0..VC3_IN_STATS */
	       2 * VCSW_MAX_VCS * nla_total_size_64bit(sizeof(struct vcsw_vc_stats)) +
	       nla_total_size(sizeof(u8)) +			/* TRUST */
	       nla_total_size_64bit(sizeof(u64)) +		/* VC0_RATE */
	       nla_total_size(sizeof(u32)) +			/* VC0_BURST */
	       nla_total_size(sizeof(u8)) +			/* VC0_EXCEED */
	       2 * nla_total_size(sizeof(s32)) +		/* TTD_MIN, TTD_MAX */
	       nla_total_size(sizeof(u8)) +			/* CREDITS */
	       5 * nla_total_size(sizeof(u32)) +	/* CREDIT_UNIT, VC0..VC3_IN_BUFFER */
	       nla_total_size_64bit(sizeof(struct vcsw_credit_stats)) +
	       /* VC2/3_CREDIT_STATS */
	       2 * nla_total_size_64bit(sizeof(struct vcsw_credit_vc_stats)) +
	       nla_total_size(sizeof(u32));			/* INDEX */
}

/*
 * The credit counters and books of @p, for a dump: the link's in @cs with
 * VCs 0 and 1, every VC's in @vcs.
 */
static void vcsw_credit_read_stats(struct vcsw_slave *p, struct vcsw_credit_stats *cs,
				   struct vcsw_credit_vc_stats *vcs)
{
	struct fcr_stats st;
	unsigned int vc;

	memset(cs, 0, sizeof(*cs));
	memset(vcs, 0, VCSW_MAX_VCS * sizeof(*vcs));
	spin_lock_bh(&p->lock);
	fcr_port_read_stats(&p->cp, &st);
	for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
		vcs[vc].stalls = p->cst_stalls[vc];
		vcs[vc].violations = st.vc[vc].violations;
		vcs[vc].lost_units = st.vc[vc].lost_units;
		vcs[vc].twice_units = st.vc[vc].twice_units;
		vcs[vc].late_units = st.vc[vc].late_units;
		if (p->credits) {
			vcs[vc].tx_credits = fcr_tx_credits(&p->cp.l, vc);
			vcs[vc].rx_buffer = p->cp.l.rx[vc].buffer;
			vcs[vc].rx_held = p->cp.l.rx[vc].held;
		}
	}
	for (vc = 0; vc < VCSW_NUM_VCS; vc++) {
		cs->stalls[vc] = vcs[vc].stalls;
		cs->violations[vc] = vcs[vc].violations;
		cs->lost_units[vc] = vcs[vc].lost_units;
		cs->twice_units[vc] = vcs[vc].twice_units;
		cs->late_units[vc] = vcs[vc].late_units;
		cs->tx_credits[vc] = vcs[vc].tx_credits;
		cs->rx_buffer[vc] = vcs[vc].rx_buffer;
		cs->rx_held[vc] = vcs[vc].rx_held;
	}
	cs->restarts = p->cp.restarts;
	spin_unlock_bh(&p->lock);
	cs->msgs_sent = st.msgs_sent;
	cs->msgs_received = st.msgs_received;
	cs->msgs_malformed = st.msgs_malformed;
	cs->msgs_unit = st.msgs_unit;
	cs->msgs_stale = st.msgs_stale;
	cs->resyncs = st.resyncs;
	cs->peer_epochs = st.peer_epochs;
	cs->msgs_off = atomic64_read(&p->cst_msgs_off);
	cs->msgs_tx_fail = atomic64_read(&p->cst_tx_fail);
}

static int vcsw_fill_slave_info(struct sk_buff *skb,
				const struct net_device *dev,
				const struct net_device *sdev)
{
	struct vcsw_slave *p = vcsw_slave_of_rtnl(sdev);
	struct vcsw_credit_vc_stats cvs[VCSW_MAX_VCS];
	struct vcsw_vc_stats vst, ist;
	unsigned int start = skb->len, vcs;
	struct vcsw_credit_stats cs;
	struct vcsw_port_stats ps;
	u64 *ctr = (u64 *)&ps;
	u64 rate, vc0_rate;
	int i;

	BUILD_BUG_ON(sizeof(ps) != VCSW_PS_MAX * sizeof(u64));
	if (!p)
		return 0;
	for (i = 0; i < VCSW_PS_MAX; i++)
		ctr[i] = atomic64_read(&p->st[i]);
	spin_lock_bh(&p->sw->lock);
	rate = p->x.out.rate;
	vcs = p->x.out.vcs;
	spin_unlock_bh(&p->sw->lock);
	vcsw_credit_read_stats(p, &cs, cvs);
	spin_lock_bh(&p->police_lock);
	vc0_rate = p->police.rate;
	spin_unlock_bh(&p->police_lock);

	if (nla_put_u64_64bit(skb, IFLA_VCSW_PORT_RATE, rate, IFLA_VCSW_PORT_PAD) ||
	    nla_put_64bit(skb, IFLA_VCSW_PORT_STATS, sizeof(ps), &ps,
			  IFLA_VCSW_PORT_PAD) ||
	    nla_put_u8(skb, IFLA_VCSW_PORT_TRUST, p->trusted) ||
	    nla_put_u64_64bit(skb, IFLA_VCSW_PORT_VC0_RATE, vc0_rate,
			      IFLA_VCSW_PORT_PAD) ||
	    nla_put_u32(skb, IFLA_VCSW_PORT_VC0_BURST, p->vc0_burst) ||
	    nla_put_u8(skb, IFLA_VCSW_PORT_VC0_EXCEED, p->trust.exceed) ||
	    nla_put_s32(skb, IFLA_VCSW_PORT_TTD_MIN, p->trust.ttd_min) ||
	    nla_put_s32(skb, IFLA_VCSW_PORT_TTD_MAX, p->trust.ttd_max) ||
	    nla_put_u8(skb, IFLA_VCSW_PORT_CREDITS, p->credits) ||
	    nla_put_u32(skb, IFLA_VCSW_PORT_CREDIT_UNIT, p->credit_unit) ||
	    nla_put_64bit(skb, IFLA_VCSW_PORT_CREDIT_STATS, sizeof(cs), &cs,
			  IFLA_VCSW_PORT_PAD) ||
	    nla_put_u32(skb, IFLA_VCSW_PORT_INDEX, p->idx))
		return -EMSGSIZE;
	for (i = 0; i < VCSW_MAX_VCS; i++) {
		if (nla_put_u32(skb, vcsw_in_buffer_attr[i], p->cp.in_bytes[i]))
			return -EMSGSIZE;
		/*
		 * the statistics of the VCs the switch has, a VC at a time
		 * (all of them at once would not fit on the stack)
		 */
		if (i >= vcs)
			continue;
		spin_lock_bh(&p->sw->lock);
		vcsw_vc_read_stats(&p->x.out.vc[i], &vst);
		vcsw_vc_read_stats(&p->x.in[i], &ist);
		spin_unlock_bh(&p->sw->lock);
		if (nla_put_64bit(skb, vcsw_out_stats_attr[i], sizeof(vst), &vst,
				  IFLA_VCSW_PORT_PAD) ||
		    nla_put_64bit(skb, vcsw_in_stats_attr[i], sizeof(ist), &ist,
				  IFLA_VCSW_PORT_PAD))
			return -EMSGSIZE;
		if (i >= VCSW_NUM_VCS &&
		    nla_put_64bit(skb, i == 2 ? IFLA_VCSW_PORT_VC2_CREDIT_STATS :
						IFLA_VCSW_PORT_VC3_CREDIT_STATS,
				  sizeof(cvs[i]), &cvs[i], IFLA_VCSW_PORT_PAD))
			return -EMSGSIZE;
	}
	/* as in vcsw_fill_info(): a forgotten attribute shows at once */
	WARN_ON_ONCE(skb->len - start > vcsw_get_slave_size(dev, sdev));
	return 0;
}

struct rtnl_link_ops vcsw_link_ops __read_mostly = {
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
