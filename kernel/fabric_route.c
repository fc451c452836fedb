// SPDX-License-Identifier: GPL-2.0
/*
 * fabric_route.c  A host's source routes (part of fabric_hdr.ko).
 *
 * On a fabric whose vcsw switches forward by source route
 * (Documentation/fabric-header.rst, "Source routes"), the host writes
 * each frame's route into its fabric header.  The routes live here, per
 * network namespace, one per device and destination MAC address, set by
 * whoever runs admission control (fabric-cac prints them as fabric-route
 * commands) through the fabric_hdr generic netlink family.
 * fabric_hdr_push() takes the route for every frame a qdisc sends with a
 * header (edf with ttd on) that does not name one itself; a destination
 * without a route is reached by MAC as before.
 *
 * Locking: writers (generic netlink, device and namespace teardown) hold
 * fr->lock, a mutex: they run in process context; those that name a
 * device take RTNL first, as the device notifier holds it, so a device
 * cannot go between the check and the insertion.  Readers (the transmit
 * path, dumps) walk the table under RCU; entries are freed after a grace
 * period.
 */

#include <linux/etherdevice.h>
#include <linux/if_arp.h>
#include <linux/jhash.h>
#include <linux/netdevice.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <net/sock.h>

#include "include/uapi/linux/fabric_hdr.h"
#include "core/fabric_hdr_core.h"
#include "fabric_route.h"

#define FABRIC_ROUTE_HASH_BITS	10

struct fabric_route {
	struct hlist_node	node;
	struct rcu_head		rcu;
	int			ifindex;
	u8			dst[ETH_ALEN];
	u32			route;
};

struct fabric_route_net {
	struct mutex		lock;		/* serialises changes */
	unsigned int		count;		/* under @lock */
	/* routes added or removed, from 1, under @lock: a dump's cb->seq */
	unsigned int		gen;
	u32			seed;		/* of the hash: crafted MACs */
	struct hlist_head	table[1U << FABRIC_ROUTE_HASH_BITS];
};

static unsigned int fabric_route_net_id __read_mostly;

static struct fabric_route_net *fabric_route_net(const struct net *net)
{
	return net_generic(net, fabric_route_net_id);
}

static struct hlist_head *fabric_route_bucket(struct fabric_route_net *fr,
					      int ifindex, const u8 *dst)
{
	u32 a, b = 0;

	memcpy(&a, dst, 4);
	memcpy(&b, dst + 4, 2);

	return &fr->table[jhash_3words(a, b, (u32)ifindex, fr->seed) >>
			  (32 - FABRIC_ROUTE_HASH_BITS)];
}

/* Under rcu_read_lock() or fr->lock. */
static struct fabric_route *fabric_route_lookup(struct fabric_route_net *fr,
						int ifindex, const u8 *dst)
{
	struct fabric_route *r;

	hlist_for_each_entry_rcu(r, fabric_route_bucket(fr, ifindex, dst), node,
				 lockdep_is_held(&fr->lock))
		if (r->ifindex == ifindex && ether_addr_equal(r->dst, dst))
			return r;
	return NULL;
}

/**
 * fabric_route_find - the source route from @dev to @dst, or 0 (none)
 * @dev: the device the frame leaves by
 * @dst: its destination MAC address
 *
 * Any context.
 *
 * Return: the route, or 0 when there is none.
 */
u32 fabric_route_find(const struct net_device *dev, const u8 *dst)
{
	struct fabric_route_net *fr = fabric_route_net(dev_net(dev));
	struct fabric_route *r;
	u32 route = 0;

	/* nothing to look for in a namespace with no routes (the usual) */
	if (!READ_ONCE(fr->count))
		return 0;
	rcu_read_lock();
	r = fabric_route_lookup(fr, dev->ifindex, dst);
	if (r)
		route = READ_ONCE(r->route);
	rcu_read_unlock();
	return route;
}

/* A route added or removed: a dump under way is told (cb->seq). */
static void fabric_route_changed(struct fabric_route_net *fr)
{
	lockdep_assert_held(&fr->lock);
	WRITE_ONCE(fr->gen, fr->gen + 1 ?: 1);
}

static void fabric_route_unlink(struct fabric_route_net *fr,
				struct fabric_route *r)
{
	lockdep_assert_held(&fr->lock);
	hlist_del_rcu(&r->node);
	WRITE_ONCE(fr->count, fr->count - 1);
	fabric_route_changed(fr);
	kfree_rcu(r, rcu);
}

/* Every route of @ifindex (0: of every device) goes.  fr->lock held. */
static unsigned int fabric_route_flush(struct fabric_route_net *fr, int ifindex)
{
	struct fabric_route *r;
	struct hlist_node *tmp;
	unsigned int i, n = 0;

	lockdep_assert_held(&fr->lock);
	for (i = 0; i < ARRAY_SIZE(fr->table) && fr->count; i++)
		hlist_for_each_entry_safe(r, tmp, &fr->table[i], node)
			if (!ifindex || r->ifindex == ifindex) {
				fabric_route_unlink(fr, r);
				n++;
			}
	return n;
}

/* ---- generic netlink -------------------------------------------------------- */

/*
 * The device a request names: one of this namespace, Ethernet (a route
 * follows an Ethernet header).  Under RTNL, which keeps it from going
 * (or moving to another namespace) until the request is done.
 */
static struct net_device *fabric_route_dev(struct genl_info *info)
{
	struct net_device *dev;

	ASSERT_RTNL();
	if (!info->attrs[FABRIC_A_IFINDEX]) {
		GENL_SET_ERR_MSG(info, "no device (FABRIC_A_IFINDEX)");
		return ERR_PTR(-EINVAL);
	}
	dev = __dev_get_by_index(genl_info_net(info),
				 nla_get_u32(info->attrs[FABRIC_A_IFINDEX]));
	if (!dev) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[FABRIC_A_IFINDEX],
				    "no such device in this namespace");
		return ERR_PTR(-ENODEV);
	}
	if (dev->type != ARPHRD_ETHER) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[FABRIC_A_IFINDEX],
				    "routes need an Ethernet device");
		return ERR_PTR(-EOPNOTSUPP);
	}
	return dev;
}

/* The destination a request names: a unicast address (checked). */
static const u8 *fabric_route_dst(struct genl_info *info)
{
	const struct nlattr *a = info->attrs[FABRIC_A_ROUTE_DST];

	if (!a) {
		GENL_SET_ERR_MSG(info, "no destination (FABRIC_A_ROUTE_DST)");
		return ERR_PTR(-EINVAL);
	}
	if (!is_valid_ether_addr(nla_data(a))) {
		NL_SET_ERR_MSG_ATTR(info->extack, a,
				    "the destination must be a unicast address, not zero");
		return ERR_PTR(-EINVAL);
	}
	return nla_data(a);
}

int fabric_route_genl_new(struct sk_buff *skb, struct genl_info *info)
{
	struct fabric_route_net *fr = fabric_route_net(genl_info_net(info));
	/* a flag, not NLM_F_REPLACE: generic netlink reads that bit as a dump's */
	bool replace = nla_get_flag(info->attrs[FABRIC_A_ROUTE_REPLACE]);
	const struct nlattr *ra = info->attrs[FABRIC_A_ROUTE];
	struct fabric_route *r, *fresh;
	struct net_device *dev;
	const u8 *dst;
	int err = 0;
	u32 route;

	if (!ra) {
		GENL_SET_ERR_MSG(info, "no route (FABRIC_A_ROUTE)");
		return -EINVAL;
	}
	route = nla_get_u32(ra);
	if (fhc_route_hops(route) < 0) {
		NL_SET_ERR_MSG_ATTR(info->extack, ra,
				    "not a route a switch follows: bit 31 set, bit 30 clear, 1 to 5 port digits from the lowest up");
		return -EINVAL;
	}
	dst = fabric_route_dst(info);
	if (IS_ERR(dst))
		return PTR_ERR(dst);
	/* charged to the caller's memory cgroup: any namespace may hold routes */
	fresh = kzalloc(sizeof(*fresh), GFP_KERNEL_ACCOUNT);
	if (!fresh)
		return -ENOMEM;
	ether_addr_copy(fresh->dst, dst);
	fresh->route = route;

	rtnl_lock();
	dev = fabric_route_dev(info);
	if (IS_ERR(dev)) {
		rtnl_unlock();
		kfree(fresh);
		return PTR_ERR(dev);
	}
	fresh->ifindex = dev->ifindex;
	mutex_lock(&fr->lock);
	r = fabric_route_lookup(fr, fresh->ifindex, dst);
	if (r) {
		if (replace) {
			WRITE_ONCE(r->route, route);
		} else {
			GENL_SET_ERR_MSG(info, "a route to this destination exists (replace it)");
			err = -EEXIST;
		}
	} else if (fr->count >= FABRIC_ROUTE_MAX) {
		GENL_SET_ERR_MSG(info, "the namespace holds as many routes as it may");
		err = -ENOSPC;
	} else {
		hlist_add_head_rcu(&fresh->node,
				   fabric_route_bucket(fr, fresh->ifindex, dst));
		WRITE_ONCE(fr->count, fr->count + 1);
		fabric_route_changed(fr);
		fresh = NULL;
	}
	mutex_unlock(&fr->lock);
	rtnl_unlock();
	kfree(fresh);
	return err;
}

int fabric_route_genl_del(struct sk_buff *skb, struct genl_info *info)
{
	struct fabric_route_net *fr = fabric_route_net(genl_info_net(info));
	struct fabric_route *r;
	struct net_device *dev;
	const u8 *dst = NULL;
	int err = 0;

	/*
	 * A route is deleted by its device and destination.  A request with
	 * a route in it means something else by it (or is a mistaken add):
	 * read as the delete it would otherwise be, it could flush the
	 * device's or the namespace's whole table.
	 */
	if (info->attrs[FABRIC_A_ROUTE] || info->attrs[FABRIC_A_ROUTE_REPLACE]) {
		GENL_SET_ERR_MSG(info, "a delete names a device and a destination, not a route");
		return -EINVAL;
	}
	/* no device: flush the namespace */
	if (!info->attrs[FABRIC_A_IFINDEX]) {
		if (info->attrs[FABRIC_A_ROUTE_DST]) {
			GENL_SET_ERR_MSG(info, "a destination needs its device");
			return -EINVAL;
		}
		mutex_lock(&fr->lock);
		fabric_route_flush(fr, 0);
		mutex_unlock(&fr->lock);
		return 0;
	}
	if (info->attrs[FABRIC_A_ROUTE_DST]) {
		dst = fabric_route_dst(info);
		if (IS_ERR(dst))
			return PTR_ERR(dst);
	}
	rtnl_lock();
	dev = fabric_route_dev(info);
	if (IS_ERR(dev)) {
		rtnl_unlock();
		return PTR_ERR(dev);
	}
	mutex_lock(&fr->lock);
	if (!dst) {
		fabric_route_flush(fr, dev->ifindex);
	} else {
		r = fabric_route_lookup(fr, dev->ifindex, dst);
		if (r) {
			fabric_route_unlink(fr, r);
		} else {
			GENL_SET_ERR_MSG(info, "no route to this destination");
			err = -ENOENT;
		}
	}
	mutex_unlock(&fr->lock);
	rtnl_unlock();
	return err;
}

static int fabric_route_fill(struct sk_buff *msg, struct netlink_callback *cb,
			     const struct genl_family *family,
			     const struct fabric_route *r)
{
	void *hdr;

	hdr = genlmsg_put(msg, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  family, NLM_F_MULTI, FABRIC_CMD_ROUTE_GET);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(cb, hdr);
	if (nla_put_u32(msg, FABRIC_A_IFINDEX, r->ifindex) ||
	    nla_put(msg, FABRIC_A_ROUTE_DST, ETH_ALEN, r->dst) ||
	    nla_put_u32(msg, FABRIC_A_ROUTE, READ_ONCE(r->route))) {
		genlmsg_cancel(msg, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return 0;
}

/*
 * Every route of the namespace, bucket by bucket: cb->args[0] is the
 * bucket, cb->args[1] how many of it were sent.  A table that changes
 * between two parts of a dump may show a route twice or not at all, so
 * the messages after such a change carry NLM_F_DUMP_INTR (cb->seq is the
 * table's generation) and the reader dumps again.
 */
int fabric_route_genl_dump(struct sk_buff *skb, struct netlink_callback *cb,
			   const struct genl_family *family)
{
	struct fabric_route_net *fr = fabric_route_net(sock_net(skb->sk));
	unsigned long bucket = cb->args[0], skip = cb->args[1], idx;
	struct fabric_route *r;

	rcu_read_lock();
	cb->seq = READ_ONCE(fr->gen);
	for (; bucket < ARRAY_SIZE(fr->table); bucket++, skip = 0) {
		idx = 0;
		hlist_for_each_entry_rcu(r, &fr->table[bucket], node) {
			if (idx++ < skip)
				continue;
			if (fabric_route_fill(skb, cb, family, r)) {
				rcu_read_unlock();
				cb->args[0] = bucket;
				cb->args[1] = idx - 1;
				return skb->len;
			}
		}
	}
	rcu_read_unlock();
	cb->args[0] = bucket;
	cb->args[1] = 0;
	return skb->len;
}

/* ---- devices and namespaces ------------------------------------------------ */

/* A device leaves its namespace (unregistered or moved): its routes go. */
void fabric_route_dev_gone(struct net_device *dev)
{
	struct fabric_route_net *fr = fabric_route_net(dev_net(dev));

	if (!READ_ONCE(fr->count))
		return;
	mutex_lock(&fr->lock);
	fabric_route_flush(fr, dev->ifindex);
	mutex_unlock(&fr->lock);
}

static int __net_init fabric_route_net_init(struct net *net)
{
	struct fabric_route_net *fr = fabric_route_net(net);
	unsigned int i;

	mutex_init(&fr->lock);
	fr->count = 0;
	fr->gen = 1;
	fr->seed = get_random_u32();
	for (i = 0; i < ARRAY_SIZE(fr->table); i++)
		INIT_HLIST_HEAD(&fr->table[i]);
	return 0;
}

static void __net_exit fabric_route_net_exit(struct net *net)
{
	struct fabric_route_net *fr = fabric_route_net(net);

	mutex_lock(&fr->lock);
	fabric_route_flush(fr, 0);
	mutex_unlock(&fr->lock);
	mutex_destroy(&fr->lock);
}

static struct pernet_operations fabric_route_net_ops = {
	.init	= fabric_route_net_init,
	.exit	= fabric_route_net_exit,
	.id	= &fabric_route_net_id,
	.size	= sizeof(struct fabric_route_net),
};

int fabric_route_init(void)
{
	return register_pernet_subsys(&fabric_route_net_ops);
}

/* After the netlink family and the devices' notifier are gone. */
void fabric_route_exit(void)
{
	unregister_pernet_subsys(&fabric_route_net_ops);
}
