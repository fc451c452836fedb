/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Compatibility with the kernels we build for, force-included in every
 * file (kernel/Kbuild).  The module sources are written against one API;
 * each shim here names the kernel change that made it necessary and is
 * chosen by a probe of the kernel's headers (a header that exists, a
 * macro that is defined, or a declaration kernel/Kbuild found), never by
 * a version number, so point releases with backports build too.
 *
 * Built and tested: Debian 6.1 and 6.12 (and its PREEMPT_RT flavour).
 * Expected to build (the shims below cover the changes we know of, up to
 * 6.15): the kernels in between and after, see Documentation/testing.rst.
 */
#ifndef FQ_COMPAT_H
#define FQ_COMPAT_H

#include <linux/version.h>
#include <linux/netdevice.h>
#include <linux/hrtimer.h>

/*
 * 6.5 (e.g. "net: move gso declarations and functions to their own
 * files"): skb_gso_segment() is declared in <net/gso.h>.
 */
#if __has_include(<net/gso.h>)
#include <net/gso.h>
#endif

/* 6.12: <asm/unaligned.h> moved to <linux/unaligned.h>. */
#if __has_include(<linux/unaligned.h>)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * 6.12 ("net: move NETIF_F_LLTX to private flags"): a lockless-TX device
 * says so with dev->lltx; the feature bit is gone.
 */
static inline void fq_netdev_set_lltx(struct net_device *dev)
{
#ifdef NETIF_F_LLTX
	dev->features |= NETIF_F_LLTX;
#else
	dev->lltx = true;
#endif
}

/*
 * 6.12 ("net: move NETIF_F_NETNS_LOCAL to private flags"): a device that
 * must stay in its namespace says so with dev->netns_local, since renamed
 * dev->netns_immutable ("net: rename netns_local to netns_immutable",
 * 6.15, in Debian's 6.12 too).  FQ_HAVE_NETNS_IMMUTABLE comes from a probe
 * of <linux/netdevice.h> in kernel/Kbuild.
 */
static inline void fq_netdev_set_netns_local(struct net_device *dev)
{
#if defined(NETIF_F_NETNS_LOCAL)
	dev->features |= NETIF_F_NETNS_LOCAL;
#elif defined(FQ_HAVE_NETNS_IMMUTABLE)
	dev->netns_immutable = true;
#else
	dev->netns_local = true;
#endif
}

/*
 * 6.13 added hrtimer_setup(), which sets the callback with the rest;
 * 6.15 removed hrtimer_init().  FQ_HAVE_HRTIMER_SETUP comes from a probe
 * of <linux/hrtimer.h> in kernel/Kbuild.
 */
static inline void fq_hrtimer_setup(struct hrtimer *timer,
				    enum hrtimer_restart (*fn)(struct hrtimer *),
				    clockid_t clock, enum hrtimer_mode mode)
{
#ifdef FQ_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/*
 * Classification by a qdisc's filters.  TC_ACT_REDIRECT from a qdisc's
 * filter chain is not something a qdisc can honour (the packet would be
 * sent from inside our enqueue); kernels with tcf_classify_qdisc() turn it
 * into a drop, and so do we, on every kernel, with the same call in every
 * module.
 */
#include <net/pkt_cls.h>

static inline int fq_tcf_classify(struct sk_buff *skb,
				  const struct tcf_proto *filters,
				  struct tcf_result *res)
{
	int ret = tcf_classify(skb, NULL, filters, res, false);

	return ret == TC_ACT_REDIRECT ? TC_ACT_SHOT : ret;
}

/*
 * Module autoload: before 6.9 "tc qdisc add ... KIND" asks for module
 * "sch_KIND", since 6.9 for "net-sch-KIND" (MODULE_ALIAS_NET_SCH).  A
 * qdisc module answers to both on every kernel.
 */
#define FQ_MODULE_ALIAS_QDISC(kind)		\
	MODULE_ALIAS("sch_" kind);		\
	MODULE_ALIAS("net-sch-" kind)

/*
 * 6.15 ("rtnetlink: Pack newlink() params into struct"): newlink() takes
 * struct rtnl_newlink_params.  FQ_HAVE_RTNL_NEWLINK_PARAMS comes from a
 * probe of <net/rtnetlink.h> in kernel/Kbuild; vcsw_netlink.c defines its newlink
 * once and adapts it with FQ_RTNL_NEWLINK().
 */
#ifdef FQ_HAVE_RTNL_NEWLINK_PARAMS
#define FQ_RTNL_NEWLINK(name, impl)					\
static int name(struct net_device *dev,					\
		struct rtnl_newlink_params *params,			\
		struct netlink_ext_ack *extack)				\
{									\
	return impl(params->src_net, dev, params->tb, params->data,	\
		    extack);						\
}
#else
#define FQ_RTNL_NEWLINK(name, impl)					\
static int name(struct net *src_net, struct net_device *dev,		\
		struct nlattr *tb[], struct nlattr *data[],		\
		struct netlink_ext_ack *extack)				\
{									\
	return impl(src_net, dev, tb, data, extack);			\
}
#endif

#endif /* FQ_COMPAT_H */
