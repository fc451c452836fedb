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

/*
 * RECN thresholds, bytes: no buffer is larger than 64m, so a threshold
 * above that could never be reached.  detect and xoff of 0 would call
 * every queue congested; xon 0 (Xon only once empty) is a choice.
 */
static struct netlink_range_validation vcsw_recn_bytes_range = {
	.min = 1,
	.max = 64 << 20,
};

static struct netlink_range_validation vcsw_recn_xon_range = {
	.min = 0,
	.max = 64 << 20,
};

/*
 * RECN times, ns: the tick that keeps them runs at most every
 * microsecond (vcsw_recn_arm()), so a shorter time could not be kept.
 */
static struct netlink_range_validation vcsw_recn_time_range = {
	.min = 1000,
	.max = U32_MAX,
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
	[IFLA_VCSW_RECN_SAQS]	= NLA_POLICY_RANGE(NLA_U32, 1, RECN_SAQ_MAX),
	[IFLA_VCSW_RECN_DETECT]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_recn_bytes_range),
	[IFLA_VCSW_RECN_XOFF]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_recn_bytes_range),
	[IFLA_VCSW_RECN_XON]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_recn_xon_range),
	[IFLA_VCSW_RECN_LEASE]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_recn_time_range),
	[IFLA_VCSW_RECN_REFRESH] = NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_recn_time_range),
	[IFLA_VCSW_RECN_IDLE]	= NLA_POLICY_FULL_RANGE(NLA_U32, &vcsw_recn_time_range),
};

static struct netlink_range_validation vcsw_unit_range = {
	.min = 1,
	.max = 65535,
};

/* 0: the default (VCSW_DEFAULT_IN_BUFFER or two full-size frames) */
static struct netlink_range_validation vcsw_in_buffer_range = {
	.min = 0,
	.max = VCSW_IN_BUFFER_MAX,
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
	[IFLA_VCSW_PORT_RECN]		= NLA_POLICY_MAX(NLA_U8, 1),
	[IFLA_VCSW_PORT_RECN_STATS]	= { .type = NLA_REJECT },
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

/* The architecture the switch has after a request. */
static u8 vcsw_arch_of(const struct vcsw *sw, struct nlattr *data[])
{
	if (data[IFLA_VCSW_ARCH])
		return nla_get_u8(data[IFLA_VCSW_ARCH]);
	if (data[IFLA_VCSW_VC0_MODE])
		return vcsw_arch_of_mode(nla_get_u8(data[IFLA_VCSW_VC0_MODE]));
	return sw->arch;
}

/*
 * The VC0 discipline the old attribute reports.  It has no name for
 * recn (VCSW_MODE_RECN is the core's, not the uapi's): recn's queues are
 * FIFOs, and an older ip then prints a name it knows.
 */
static u8 vcsw_vc0_mode_of(u8 arch)
{
	return arch == VCSW_ARCH_RECN ? VCSW_MODE_FIFO : vcsw_arch_vc_mode(arch, 0);
}

/* The RECN attributes and the fields of struct recn_cfg they set. */
static const struct vcsw_recn_field {
	int	attr;
	size_t	off;
	bool	ns;		/* a u64 time; else a u32 */
} vcsw_recn_fields[] = {
	{ IFLA_VCSW_RECN_SAQS,		offsetof(struct recn_cfg, nsaq),	false },
	{ IFLA_VCSW_RECN_DETECT,	offsetof(struct recn_cfg, detect),	false },
	{ IFLA_VCSW_RECN_XOFF,		offsetof(struct recn_cfg, xoff),	false },
	{ IFLA_VCSW_RECN_XON,		offsetof(struct recn_cfg, xon),		false },
	{ IFLA_VCSW_RECN_LEASE,		offsetof(struct recn_cfg, lease_ns),	true },
	{ IFLA_VCSW_RECN_REFRESH,	offsetof(struct recn_cfg, refresh_ns),	true },
	{ IFLA_VCSW_RECN_IDLE,		offsetof(struct recn_cfg, idle_ns),	true },
};

static u64 vcsw_recn_get(const struct recn_cfg *c, const struct vcsw_recn_field *f)
{
	const void *v = (const char *)c + f->off;

	return f->ns ? *(const u64 *)v : *(const u32 *)v;
}

static void vcsw_recn_set(struct recn_cfg *c, const struct vcsw_recn_field *f, u32 val)
{
	void *v = (char *)c + f->off;

	if (f->ns)
		*(u64 *)v = val;
	else
		*(u32 *)v = val;
}

/*
 * @c: the switch's RECN configuration with the request's values in it.
 * Returns whether any of them differs from the switch's.
 */
static bool vcsw_recn_cfg_of(const struct vcsw *sw, struct nlattr *data[],
			     struct recn_cfg *c)
{
	bool changed = false;
	unsigned int i;

	*c = sw->recn_cfg;
	for (i = 0; i < ARRAY_SIZE(vcsw_recn_fields); i++) {
		const struct vcsw_recn_field *f = &vcsw_recn_fields[i];

		if (!data[f->attr])
			continue;
		vcsw_recn_set(c, f, nla_get_u32(data[f->attr]));
		changed |= vcsw_recn_get(c, f) != vcsw_recn_get(&sw->recn_cfg, f);
	}
	return changed;
}

/*
 * The thresholds and times hold together only as a whole, so the policy
 * cannot check them: say which rule @c breaks, naming the attribute the
 * request gave (or the other one of the pair, if it gave that).
 */
static int vcsw_recn_cfg_refuse(const struct recn_cfg *c, struct nlattr *data[],
				struct netlink_ext_ack *extack)
{
	switch (recn_cfg_check(c)) {
	case RECN_CFG_OK:
		return 0;
	case RECN_CFG_NSAQ:
		NL_SET_ERR_MSG_ATTR(extack, data[IFLA_VCSW_RECN_SAQS],
				    "recn_saqs must be 1 to " __stringify(RECN_SAQ_MAX));
		break;
	case RECN_CFG_DETECT:
		NL_SET_ERR_MSG_ATTR(extack, data[IFLA_VCSW_RECN_DETECT],
				    "recn_detect must not be 0");
		break;
	case RECN_CFG_XON:
		NL_SET_ERR_MSG_ATTR(extack, data[IFLA_VCSW_RECN_XON] ?: data[IFLA_VCSW_RECN_XOFF],
				    "recn_xon must be below recn_xoff");
		break;
	case RECN_CFG_REFRESH:
		NL_SET_ERR_MSG_ATTR(extack,
				    data[IFLA_VCSW_RECN_REFRESH] ?: data[IFLA_VCSW_RECN_LEASE],
				    "recn_refresh must be below recn_lease");
		break;
	case RECN_CFG_IDLE:
		NL_SET_ERR_MSG_ATTR(extack,
				    data[IFLA_VCSW_RECN_IDLE] ?: data[IFLA_VCSW_RECN_REFRESH],
				    "recn_idle must not be below recn_refresh");
		break;
	default:
		NL_SET_ERR_MSG_MOD(extack, "invalid recn settings");
		break;
	}
	return -EINVAL;
}

/*
 * What the policy cannot see, because the switch's state decides it:
 * checked before vcsw_apply() changes anything, so a refused request
 * leaves the old configuration whole.  What the buffers are kept as
 * (vcs, arch to or from recn, the RECN sets) changes only while the
 * switch is down, when no frame waits in them.  RTNL held.
 */
static int vcsw_check(struct vcsw *sw, struct nlattr *data[],
		      struct netlink_ext_ack *extack)
{
	struct nlattr *arch_attr = data[IFLA_VCSW_ARCH] ?: data[IFLA_VCSW_VC0_MODE];
	bool running = netif_running(sw->dev);
	u8 arch = vcsw_arch_of(sw, data);
	bool recn_given = false;
	struct recn_cfg c;
	unsigned int i;
	u8 vcs;

	vcs = data[IFLA_VCSW_VCS] ? nla_get_u8(data[IFLA_VCSW_VCS]) : sw->vcs;
	if (vcs != sw->vcs && running) {
		NL_SET_ERR_MSG_ATTR(extack, data[IFLA_VCSW_VCS],
				    "vcs changes only while the switch is down");
		return -EBUSY;
	}
	if ((arch == VCSW_ARCH_RECN) != (sw->arch == VCSW_ARCH_RECN) && running) {
		NL_SET_ERR_MSG_ATTR(extack, arch_attr,
				    "arch recn is entered and left only while the switch is down");
		return -EBUSY;
	}
	/* a port's RECN sets are those of VCs 0 and 1 (VCSW_RECN_VCS) */
	if (arch == VCSW_ARCH_RECN && vcs != VCSW_NUM_VCS) {
		NL_SET_ERR_MSG_ATTR(extack, data[IFLA_VCSW_VCS] ?: arch_attr,
				    "arch recn runs two VCs");
		return -EINVAL;
	}
	vcsw_recn_cfg_of(sw, data, &c);
	for (i = 0; i < ARRAY_SIZE(vcsw_recn_fields); i++) {
		struct nlattr *a = data[vcsw_recn_fields[i].attr];

		if (!a)
			continue;
		recn_given = true;
		/* the sets hold copies of the old values: only new, empty sets take others */
		if (running && nla_get_u32(a) != vcsw_recn_get(&sw->recn_cfg, &vcsw_recn_fields[i])) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "recn settings change only while the switch is down");
			return -EBUSY;
		}
	}
	if (!recn_given && arch != VCSW_ARCH_RECN)
		return 0;
	return vcsw_recn_cfg_refuse(&c, data, extack);
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
	u64 now;

	spin_lock_bh(&sw->lock);
	now = ktime_get_ns();
	for (i = 0; i < sw->nslots; i++) {
		struct vcsw_slave *q = sw->slot_port[i];

		if (!q)
			continue;
		for (vc = 0; vc < VCSW_MAX_VCS; vc++) {
			struct vcsw_list gone;

			vcsw_list_init(&gone);
			sw->in_frames -= vcsw_xbar_remove_unfit(sw->slots, i, vc, &gone, now);
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

/*
 * Validated by the policy and vcsw_check(): apply it all, under RTNL, to
 * every port.
 */
static void vcsw_apply(struct vcsw *sw, struct nlattr *data[])
{
	struct vcsw_slave *p;
	struct recn_cfg recn;
	bool shrunk = false;
	bool recn_reset;
	unsigned int vc;
	u8 arch;

	if (!data)
		return;
	arch = vcsw_arch_of(sw, data);
	recn_reset = vcsw_recn_cfg_of(sw, data, &recn) ||
		     (arch == VCSW_ARCH_RECN) != (sw->arch == VCSW_ARCH_RECN);
	spin_lock_bh(&sw->lock);
	sw->arch = arch;
	sw->recn_cfg = recn;
	if (data[IFLA_VCSW_WORMHOLE]) {
		sw->wormhole = nla_get_u8(data[IFLA_VCSW_WORMHOLE]);
		if (!sw->wormhole)
			vcsw_wormhole_release(sw, 0, true);
	}
	spin_unlock_bh(&sw->lock);
	/*
	 * The sets hold a copy of the configuration and were made for the
	 * old architecture: every port's sets start again (the switch is down,
	 * vcsw_check(), so nothing waits in them)
	 */
	if (recn_reset)
		vcsw_recn_reset(sw);
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

/* A request, checked whole (vcsw_check()) before any of it is applied. */
static int vcsw_configure(struct vcsw *sw, struct nlattr *data[],
			  struct netlink_ext_ack *extack)
{
	int err;

	if (data) {
		err = vcsw_check(sw, data, extack);
		if (err)
			return err;
	}
	vcsw_apply(sw, data);
	return 0;
}

static int vcsw_create(struct net *src_net, struct net_device *dev,
		       struct nlattr *tb[], struct nlattr *data[],
		       struct netlink_ext_ack *extack)
{
	int err = vcsw_configure(netdev_priv(dev), data, extack);

	return err ?: register_netdevice(dev);
}
FQ_RTNL_NEWLINK(vcsw_newlink, vcsw_create)

static int vcsw_changelink(struct net_device *dev, struct nlattr *tb[],
			   struct nlattr *data[], struct netlink_ext_ack *extack)
{
	return vcsw_configure(netdev_priv(dev), data, extack);
}

static size_t vcsw_get_size(const struct net_device *dev)
{
	return 5 * nla_total_size(sizeof(u8)) +	/* VC0_MODE, ARCH, WORMHOLE, FLOOD, VCS */
	       nla_total_size_64bit(sizeof(u64)) +	/* RATE */
	       /* VC0..VC3_BUFFER, FDB_MAX, AGEING, FDB_COUNT */
	       7 * nla_total_size(sizeof(u32)) +
	       /* RECN_SAQS .. RECN_IDLE */
	       ARRAY_SIZE(vcsw_recn_fields) * nla_total_size(sizeof(u32)) +
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
	if (nla_put_u8(skb, IFLA_VCSW_VC0_MODE, vcsw_vc0_mode_of(sw->arch)) ||
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
	 * Whatever the architecture, so the settings arch recn would start
	 * with can be seen (and set) before; set only from these u32
	 * attributes or the defaults, so the times fit
	 */
	for (i = 0; i < ARRAY_SIZE(vcsw_recn_fields); i++)
		if (nla_put_u32(skb, vcsw_recn_fields[i].attr,
				vcsw_recn_get(&sw->recn_cfg, &vcsw_recn_fields[i])))
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
		/*
		 * A frame larger than the buffer could never be sent to us:
		 * checked for what this request sets (a buffer, or the unit
		 * the buffers are counted in).  A buffer an MTU increase has
		 * since passed is not (vcsw.rst): it must not refuse every
		 * other change to the port, fdb_add or trust say.
		 */
		if (cfg[vc] && (data[in_attr[vc]] || data[IFLA_VCSW_PORT_CREDIT_UNIT]) &&
		    cfg[vc] < roundup(sdev->mtu + ETH_HLEN, unit)) {
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
	/* any time, in any architecture: it says what the far end is */
	if (data[IFLA_VCSW_PORT_RECN])
		vcsw_recn_set_peer(p, nla_get_u8(data[IFLA_VCSW_PORT_RECN]));
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
	       nla_total_size(sizeof(u32)) +			/* INDEX */
	       nla_total_size(sizeof(u8)) +			/* RECN */
	       nla_total_size_64bit(sizeof(struct vcsw_recn_stats));
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

/*
 * The port's RECN counters, in every architecture: RECN frames arrive
 * and are refused (frames_refused) in any, and the sets' counters, kept
 * in arch recn only, start again at 0 with the sets.  A function of its
 * own: vcsw_fill_slave_info()'s frame is large already.
 */
static noinline_for_stack int vcsw_fill_recn_stats(struct sk_buff *skb,
						   struct vcsw_slave *p)
{
	struct vcsw_recn_stats rs;

	vcsw_recn_read_stats(p, &rs);
	return nla_put_64bit(skb, IFLA_VCSW_PORT_RECN_STATS, sizeof(rs), &rs,
			     IFLA_VCSW_PORT_PAD);
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
	    nla_put_u32(skb, IFLA_VCSW_PORT_INDEX, p->idx) ||
	    nla_put_u8(skb, IFLA_VCSW_PORT_RECN, READ_ONCE(p->recn_peer)) ||
	    vcsw_fill_recn_stats(skb, p))
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
