/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside fabric_hdr.ko: a device's end of its credit link, shared by
 * fabric_link.c (the books) and fabric_link_recn.c (RECN at the host).
 */
#ifndef _FABRIC_LINK_PRIV_H
#define _FABRIC_LINK_PRIV_H

#include <linux/hrtimer.h>
#include <linux/spinlock.h>

#include "core/fabric_credit.h"
#include "fabric_link.h"

struct fabric_link_recn;

struct fabric_link {
	struct hlist_node	node;		/* fabric_links, by device */
	struct rcu_head		rcu;
	struct net_device	*dev;
	unsigned int		users;		/* under fabric_links_lock */
	bool			alone;		/* its one user wants no other
						 * (fabric_link_claim_alone());
						 * under fabric_links_lock */

	spinlock_t		lock;
	bool			dead;		/* no more timer starts */
	bool			carrier;	/* as last seen: restart when back */
	bool			mc_joined;	/* dev_mc_add() of the group took */
	struct fcr_link		books;
	u32			prev_epoch;	/* the books' before these */
	struct hrtimer		timer;
	bool			stalled[FCR_MAX_VCS];	/* for @stalls */
	bool			waiting;	/* a qdisc refused: wake it */
	u64			heard_ns;	/* a peer's message last taken,
						 * or our books started */
	u64			stalls[FCR_MAX_VCS];
	u64			grew_ns[FCR_MAX_VCS];	/* credits last grew */
	u64			restarts;
	u64			rate;		/* bytes/s, 0: not known */
	atomic64_t		msgs_tx_fail;
	/* RECN at this host (fabric_link_recn.c), or NULL; under @lock */
	struct fabric_link_recn	*recn;
	u32			recn_gen;	/* fabric_link_recn_gen() */
};

/* fabric_link_recn.c */
bool fabric_link_recn_rcv(struct fabric_link *l, struct sk_buff *skb);
void fabric_link_recn_free(struct fabric_link *l);

#endif /* _FABRIC_LINK_PRIV_H */
