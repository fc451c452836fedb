/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sch_edf's own declarations, shared by the module's three files:
 *
 *   sch_edf_main.c    flows, classes, deadlines, enqueue and dequeue
 *   sch_edf_recn.c    RECN at the host: SAQs honoured at the qdisc
 *   sch_edf_config.c  netlink configuration, dumps, class operations and
 *                     the module itself
 *
 * What every packet runs through stays in sch_edf_main.c or inline here,
 * so that splitting the file adds no call to the common path.
 */
#ifndef _FQ_SCH_EDF_H
#define _FQ_SCH_EDF_H

#include <linux/ethtool.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/jhash.h>
#include <linux/kernel.h>
#include <linux/list_sort.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/netdevice.h>
#include <linux/rbtree.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <net/netlink.h>
#include <net/pkt_cls.h>
#include <net/pkt_sched.h>
#include <net/sch_generic.h>
#include <net/sock.h>

#include "include/uapi/linux/pkt_sched_edf.h"
#include "core/edf_core.h"
#include "core/runheap.h"
#include "fabric_hdr.h"
#include "fabric_link.h"
#include "qdisc_gso.h"

#define EDF_FLOW_BUCKETS_LOG	10
#define EDF_GC_BATCH		8	/* idle flows looked at per gc call */
#define EDF_EVICT_BATCH		64	/* entries looked at for one to evict */
#define EDF_FLOW_GRACE_NS	NSEC_PER_SEC	/* idle flows kept at least */

#define EDF_DEFAULT_LIMIT	10000
#define EDF_DEFAULT_FLOW_LIMIT	100
#define EDF_DEFAULT_MAX_FLOWS	65536
#define EDF_DEFAULT_ELIG_NS	20000ULL
#define EDF_DEFAULT_HORIZON_NS	(2 * NSEC_PER_SEC)
#define EDF_MAX_LIMIT		TC_EDF_LIMIT_MAX
#define EDF_MAX_FLOWS_LIMIT	TC_EDF_FLOWS_MAX
#define EDF_MAX_ELIG_NS		TC_EDF_ELIG_MAX_NS
#define EDF_MIN_TIME_NS		TC_EDF_TIME_MIN_NS
#define EDF_MAX_TIME_NS		TC_EDF_TIME_MAX_NS
#define EDF_MAX_BURST		TC_EDF_BURST_MAX	/* bytes, a class's token bucket */
/* When neither the qdisc nor the device tells the link rate. */
#define EDF_FALLBACK_LINK_RATE	(1000000000ULL / 8)
#define EDF_RECN_RECOUNT_NS	(100 * NSEC_PER_USEC)	/* edf_recn_recount() */
#define EDF_RECN_RECOUNT_BUDGET	4096	/* frames one count looks at */

enum edf_flow_state {
	EDF_FLOW_IDLE,		/* no packets; on q->idle unless shared */
	EDF_FLOW_WAITING,	/* head waits for its eligible time */
	EDF_FLOW_READY,		/* head in the ready heap of its VC, or the
				 * qdisc's only packet (q->direct) */
	EDF_FLOW_HELD,		/* recn on: head counted in a SAQ that may
				 * not go; on q->recn_held[vc][saq] */
};

struct edf_class;

/*
 * One flow's state.  Flows are made and freed as fast as new ones come,
 * and every byte of one is zeroed when it is allocated (init_on_alloc is
 * on in Debian's kernels), so it is kept small (EDF_FLOW_MAX_SIZE):
 * fields never in use at the same time share storage, a flow is on no
 * list of its class's (edf_purge_flows()), and its idle times are 32-bit
 * stamps (edf_stamp()).
 *
 * The table's search reads hash_node and key alone until the key
 * matches: they are the first 32 bytes, and flows are 32-byte aligned
 * (edf_module_init()), so each flow the search passes costs it one cache
 * line.
 */
#define EDF_FLOW_MAX_SIZE	160
#define EDF_FLOW_ALIGN		32
struct edf_flow {
	struct rb_node		hash_node;	/* q->flows[], if per flow */
	unsigned long		key;
	struct edf_class	*cl;
	struct list_head	idle_node;	/* q->idle, by listed_since */
	union {
		/* EDF_FLOW_WAITING, EDF_FLOW_READY (not q->direct) */
		struct runheap_node	heap_node;
		/* EDF_FLOW_HELD: in no heap, on q->recn_held[held_vc][held_saq] */
		struct list_head	held_node;
	};
	struct list_head	recn_node;	/* q->recn_active: recn on, packets */
	struct sk_buff		*head;
	struct sk_buff		*tail;
	u32			qlen;
	u32			hash;		/* flow id in the fabric header */
	u32			seq;
	u32			socket_hash;	/* of the socket a flow is keyed by */
	u32			idle_since;	/* when it last emptied (edf_stamp) */
	u32			listed_since;	/* when it went on q->idle (edf_stamp) */
	u8			state;
	bool			shared;		/* the class's own flow */
	/*
	 * recn on, a class without perflow: the frames of one destination
	 * wait in a flow of their own, so that those of a congested one can
	 * be held while the rest go; the class's own flow (edf_flow_clock())
	 * still gives their deadlines, flow id and sequence, so the order is
	 * the class's as before.
	 */
	bool			dest;
	u8			held_vc;
	u8			held_saq;
	/* best effort: the VC's epoch of last_deadline (edf_be_prev()) */
	u32			be_epoch:EDF_BE_EPOCH_BITS;
	u64			last_deadline;
};

struct edf_class {
	struct Qdisc_class_common common;
	u8			mode;
	u8			vc;
	bool			smooth;
	bool			perflow;
	/*
	 * a token bucket of @rate and @burst bytes (rate mode; 0: none): a
	 * head is eligible @burst_ns (@burst at @rate) before its deadline,
	 * which holds the class to its rate with bursts of @burst, as the
	 * paper's Traditional 4 VCs shapes multimedia and best effort
	 */
	u32			burst;
	u64			burst_ns;
	u64			rate;		/* bytes/s, 0 for control: link */
	u64			latency;	/* frame mode, ns */
	struct edf_flow		shared;		/* used when !perflow */
	u32			nflows;		/* in q->flows (edf_purge_flows()) */
	u32			active_flows;
	u32			qlen;
	u32			filter_cnt;
	u64			backlog;
	struct gnet_stats_basic_sync bstats;
	struct gnet_stats_queue	qstats;
	/* "tc class ... estimator": of bstats, NULL without one */
	struct net_rate_estimator __rcu *rate_est;
	struct tc_edf_class_stats xs;	/* counters kept in uapi shape */
};

struct edf_sched {
	/* configuration */
	u64			rate;		/* pacing, bytes/s; 0: off */
	u64			link_rate;	/* rate, else device speed
						 * (edf_speed_list) */
	u64			eligibility;
	u64			horizon;
	u32			limit;
	u32			flow_limit;
	u32			max_flows;
	u32			default_minor;
	bool			ttd;
	struct fabric_link	*link;		/* credits on: the device's */
	u16			priomap[TC_EDF_PRIO_BANDS];
	/* what each band resolves to (edf_resolve_bands); NULL: default_cl */
	struct edf_class	*band_cl[TC_EDF_PRIO_BANDS];

	/* scheduling state */
	struct runheap		waiting;	/* held flows (smooth, burst) by eligible time */
	struct runheap		ready[__TC_EDF_VC_MAX]; /* by head deadline */
	/*
	 * The flow of the only packet queued, in no heap (state READY), or
	 * NULL: edf_direct_spill()
	 */
	struct edf_flow		*direct;
	struct edf_be_clock	be[__TC_EDF_VC_MAX]; /* best-effort clocks */
	u8			vcs;		/* VCs the classes may use */
	u64			next_tx;	/* pacer */
	struct qdisc_watchdog	watchdog;

	/* flows */
	struct rb_root		*flows;		/* EDF_FLOW_BUCKETS buckets */
	struct list_head	idle;
	u32			nflows;
	/*
	 * No entry of q->idle is due for a look before this (U64_MAX: none
	 * listed): the dequeue's test of whether the collector has work
	 * is one load (edf_flow_gc_due()).
	 */
	u64			gc_due_ns;

	struct edf_class	default_cl;	/* unclassified traffic */
	struct Qdisc_class_hash	clhash;
	struct tcf_proto __rcu	*filter_list;
	struct tcf_block	*block;
	struct tc_edf_qd_stats	xs;

	/* RECN at the host (q->link's SAQs): sch_edf_recn.c */
	bool			recn;
	struct recn_host_cfg	recn_cfg;
	u32			recn_held_mask[RECN_HOST_VCS];	/* lists not empty */
	u32			recn_held_flows;
	struct list_head	recn_held[RECN_HOST_VCS][RECN_SAQ_MAX];
	struct list_head	recn_active;	/* flows with packets */
	u32			recn_active_n;
	u32			recn_gen;	/* the link's, when last counted */
	u32			recn_pass_gen;	/* ... of the count under way */
	u32			recn_left;	/* its flows not yet looked at */
	u64			recn_next_ns;	/* no count before this */

	/* on edf_speed_list (sch_edf_config.c); under RTNL */
	struct list_head	speed_node;
	struct Qdisc		*sch;
};

/*
 * edf_skb_cb.msg_flags besides FABRIC_HDR_F_*: credits on, the link's
 * credits were taken for the frame without the header, for which there
 * was no memory (edf_take_credits()); it leaves so.
 */
#define EDF_MSG_BARE	0x80

struct edf_skb_cb {
	u64	deadline;
	u8	msg_flags;	/* FABRIC_HDR_F_HEAD / _TAIL, EDF_MSG_BARE */
	u16	recn_tag;	/* where the link's RECN counts it, or
				 * FABRIC_LINK_RECN_NONE */
};

struct edf_recn_look {
	u32	ready[RECN_HOST_VCS];
	u8	asked;		/* bit vc: ready[vc] is the link's answer */
};

extern struct kmem_cache *edf_flow_cache;

static inline struct edf_skb_cb *edf_skb_cb(struct sk_buff *skb)
{
	qdisc_cb_private_validate(skb, sizeof(struct edf_skb_cb));
	return (struct edf_skb_cb *)qdisc_skb_cb(skb)->data;
}

/* The flow whose clock, id and sequence @f's packets take (edf_flow.dest). */
static __always_inline struct edf_flow *edf_flow_clock(struct edf_flow *f)
{
	return unlikely(f->dest) ? &f->cl->shared : f;
}

/*
 * Best-effort clocks (self-clocked from their VC's frontier): every VC
 * but VC0, unless the class is shaped by a token bucket, whose clock is
 * its own.
 */
static inline bool edf_class_is_besteffort(const struct edf_class *cl)
{
	return cl->vc != TC_EDF_VC_REGULATED && !cl->burst;
}

/* How long before its deadline a head of @cl may leave, if it is held. */
static inline u64 edf_class_eligibility(const struct edf_sched *q,
				 const struct edf_class *cl)
{
	return cl->burst ? cl->burst_ns : q->eligibility;
}

/*
 * Put a flow with packets where its head packet belongs; @direct: the
 * head is the only packet queued and may leave at once (credits off), so
 * if it is eligible it waits in no heap (q->direct).
 */
static __always_inline void edf_flow_place(struct edf_sched *q,
					   struct edf_flow *f, u64 now,
					   bool direct)
{
	struct edf_class *cl = f->cl;
	u64 d = edf_skb_cb(f->head)->deadline;

	if (cl->smooth || cl->burst) {
		u64 elig = edf_class_eligibility(q, cl);

		if (!edf_is_eligible(now, d, elig)) {
			f->state = EDF_FLOW_WAITING;
			runheap_insert(&q->waiting, &f->heap_node,
				       edf_eligible_time(d, elig));
			cl->xs.held++;
			q->xs.held++;
			return;
		}
	}
	if (direct) {
		f->state = EDF_FLOW_READY;
		q->direct = f;
	} else {
		f->state = EDF_FLOW_READY;
		runheap_insert(&q->ready[cl->vc], &f->heap_node, d);
	}
}

/* sch_edf_main.c */
void edf_class_init(struct edf_class *cl, u32 classid);
struct edf_class *edf_find_class(struct Qdisc *sch, u32 classid);
void edf_resolve_bands(struct Qdisc *sch);
void edf_flow_free(struct edf_sched *q, struct edf_flow *f);
void edf_flow_purge(struct Qdisc *sch, struct edf_flow *f,
		    struct sk_buff **to_free);
void edf_purge_flows(struct Qdisc *sch, struct edf_class *cl, bool drop);
void edf_direct_spill(struct edf_sched *q);
bool edf_gets_header(const struct edf_sched *q, const struct sk_buff *skb);
int edf_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		struct sk_buff **to_free);
struct sk_buff *edf_dequeue(struct Qdisc *sch);
struct sk_buff *edf_drop_one(struct Qdisc *sch, u64 now);
void edf_recn_split_shared(struct Qdisc *sch, struct edf_class *cl, u64 now,
			   unsigned int *pkts, unsigned int *bytes);
void edf_recn_join_dests(struct Qdisc *sch);

/* sch_edf_recn.c */
void edf_recn_arrive(struct Qdisc *sch, struct edf_class *cl,
		     struct edf_flow *f, struct sk_buff *skb, u32 len);
void edf_recn_took(struct edf_sched *q, struct edf_flow *f, struct sk_buff *skb);
bool edf_recn_may_go(struct edf_sched *q, struct edf_flow *f,
		     struct edf_recn_look *k);
void edf_recn_hold(struct edf_sched *q, struct edf_flow *f);
void edf_recn_unhold(struct edf_sched *q, struct edf_flow *f);
void edf_recn_release(struct edf_sched *q, u64 now);
bool edf_recn_recount_due(const struct edf_sched *q);
void edf_recn_recount(struct Qdisc *sch, u64 now);
void edf_recn_recount_soon(struct edf_sched *q, struct fabric_link *link);
void edf_recn_untag_all(struct Qdisc *sch);
void edf_recn_split_all(struct Qdisc *sch);
void edf_recn_list_active(struct Qdisc *sch);
struct edf_flow *edf_recn_first_held(struct edf_sched *q);

#endif /* _FQ_SCH_EDF_H */
