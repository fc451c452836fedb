// SPDX-License-Identifier: GPL-2.0
/*
 * sch_edf: deadline (EDF / virtual clock) scheduling for host egress.
 *
 * Each class is a reservation.  Every packet gets a deadline from its
 * flow's reservation when it is enqueued (core/edf_core.h):
 *
 *   rate R      D = max(D', now) + len / R           (virtual clock)
 *   control     the same at the link rate
 *   frame L     D = max(D', now) + L / parts          (one GSO send = a frame)
 *   txtime      D = the packet's SO_TXTIME, no further than now + horizon
 *               and no earlier than now (a late one is counted)
 *
 * where D' is the flow's previous deadline.  A flow's deadlines never go
 * backwards, so its packets can wait in one FIFO and the scheduler only
 * needs the flows' head packets: queues over flows, not over packets.
 * Each is a sorted run in front of a pairing heap (core/runheap.h):
 * O(1) for a flow that comes back after every other, as flows of one
 * rate do, O(log active flows) for one out of order.
 *
 * Two virtual channels, or up to four ("vcs", the paper's Traditional 4
 * VCs), each strictly before the next.  Regulated classes (VC0) go
 * strictly before best-effort ones.  In a "smooth" regulated class a
 * head packet first waits in the eligible heap until E = D - eligibility
 * (a class with a token bucket, "burst", until D - burst / rate), then
 * moves to the ready heap;
 * the ready heap sends earliest deadline first.  A packet that finds the
 * qdisc empty and may leave at once (eligible, credits off) waits in no
 * heap: it is the qdisc's direct packet (q->direct), which the next
 * enqueue first puts in its heap, and which is the next to leave
 * otherwise.  That is most packets when the link keeps up, and saves each
 * a heap insertion and removal.  Best-effort classes are
 * scheduled the same way but their clock starts from the VC's service
 * frontier (self-clocked), so a class that wakes up does not starve the
 * others: their rates act as weights for what regulated traffic leaves.
 *
 * With "rate" the qdisc paces its own output at the link rate, so queues
 * form here and not in the device (needed on veth).  With "ttd on" the
 * fabric header (fabric_hdr.ko) is pushed at dequeue, carrying the time
 * to deadline D - now, so the next hop needs no synchronised clock.
 *
 * Paper: edf-deadline-qos-two-vcs, sections 3.1 to 3.3.
 */
#include <linux/ethtool.h>
#include <linux/if_arp.h>
#include <linux/if_ether.h>
#include <linux/jhash.h>
#include <linux/kernel.h>
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
#define EDF_MAX_LIMIT		1000000
#define EDF_MAX_FLOWS_LIMIT	1048576
#define EDF_MAX_ELIG_NS		NSEC_PER_SEC
#define EDF_MIN_TIME_NS		1000ULL
#define EDF_MAX_TIME_NS		(10 * NSEC_PER_SEC)
#define EDF_MAX_BURST		(64 << 20)	/* bytes, a class's token bucket */
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

struct edf_flow {
	struct rb_node		hash_node;	/* q->flows[], if per flow */
	unsigned long		key;
	struct edf_class	*cl;
	struct list_head	cl_node;	/* cl->flows */
	struct list_head	idle_node;	/* q->idle, by listed_since */
	struct runheap_node	heap_node;
	struct list_head	held_node;	/* EDF_FLOW_HELD */
	struct list_head	recn_node;	/* q->recn_active: recn on, packets */
	u8			held_vc;	/* ... on q->recn_held[held_vc] */
	u8			held_saq;	/*     [held_saq] */
	/*
	 * recn on, a class without perflow: the frames of one destination
	 * wait in a flow of their own, so that those of a congested one can
	 * be held while the rest go; the class's own flow (@clock) still
	 * gives their deadlines, flow id and sequence, so the order is the
	 * class's as before.  NULL for every other flow.
	 */
	struct edf_flow		*clock;
	struct sk_buff		*head;
	struct sk_buff		*tail;
	u32			qlen;
	u32			hash;		/* flow id in the fabric header */
	u32			seq;
	u8			state;
	bool			shared;		/* the class's own flow */
	u64			last_deadline;
	u64			idle_since;	/* when it last emptied */
	u64			listed_since;	/* when it went on q->idle */
	u32			socket_hash;	/* of the socket a flow is keyed by */
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
	struct list_head	flows;
	u32			nflows;
	u32			active_flows;
	u32			qlen;
	u32			filter_cnt;
	u64			backlog;
	struct gnet_stats_basic_sync bstats;
	struct gnet_stats_queue	qstats;
	struct tc_edf_class_stats xs;	/* counters kept in uapi shape */
};

struct edf_sched {
	/* configuration */
	u64			rate;		/* pacing, bytes/s; 0: off */
	u64			link_rate;	/* rate, else device speed */
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
	u64			be_vtime[__TC_EDF_VC_MAX]; /* best-effort service frontiers */
	u8			vcs;		/* VCs the classes may use */
	u64			next_tx;	/* pacer */
	struct qdisc_watchdog	watchdog;

	/* flows */
	struct rb_root		*flows;		/* EDF_FLOW_BUCKETS buckets */
	struct list_head	idle;
	u32			nflows;

	struct edf_class	default_cl;	/* unclassified traffic */
	struct Qdisc_class_hash	clhash;
	struct tcf_proto __rcu	*filter_list;
	struct tcf_block	*block;
	struct tc_edf_qd_stats	xs;

	/* RECN at the host (q->link's SAQs): see "RECN" below */
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
};

struct edf_skb_cb {
	u64	deadline;
	u8	msg_flags;	/* FABRIC_HDR_F_HEAD / _TAIL */
	u16	recn_tag;	/* where the link's RECN counts it, or
				 * FABRIC_LINK_RECN_NONE */
};

static struct kmem_cache *edf_flow_cache __read_mostly;

/*
 * Flows allocated and not yet freed, by every edf qdisc: with no edf qdisc
 * left it must read 0, which a leak test can check exactly (the slab cache
 * may be merged with others, and memory figures are coarse).  One atomic
 * per flow created or freed, next to a slab allocation or free.
 */
static atomic_long_t edf_flows_allocated = ATOMIC_LONG_INIT(0);

static int edf_flows_allocated_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%ld\n", atomic_long_read(&edf_flows_allocated));
}

static const struct kernel_param_ops edf_flows_allocated_ops = {
	.get = edf_flows_allocated_get,
};
module_param_cb(flows_allocated, &edf_flows_allocated_ops, NULL, 0444);
MODULE_PARM_DESC(flows_allocated, "flows held by all edf qdiscs (read only)");

static struct edf_skb_cb *edf_skb_cb(struct sk_buff *skb)
{
	qdisc_cb_private_validate(skb, sizeof(struct edf_skb_cb));
	return (struct edf_skb_cb *)qdisc_skb_cb(skb)->data;
}

/*
 * Best-effort clocks (self-clocked from their VC's frontier): every VC
 * but VC0, unless the class is shaped by a token bucket, whose clock is
 * its own.
 */
static bool edf_class_is_besteffort(const struct edf_class *cl)
{
	return cl->vc != TC_EDF_VC_REGULATED && !cl->burst;
}

/* How long before its deadline a head of @cl may leave, if it is held. */
static u64 edf_class_eligibility(const struct edf_sched *q,
				 const struct edf_class *cl)
{
	return cl->burst ? cl->burst_ns : q->eligibility;
}

/* ---- flows ---------------------------------------------------------- */

static struct rb_root *edf_flow_bucket(struct edf_sched *q, unsigned long key)
{
	return &q->flows[hash_long(key, EDF_FLOW_BUCKETS_LOG)];
}

static void edf_flow_init(struct edf_flow *f, struct edf_class *cl,
			  unsigned long key, u32 hash, bool shared)
{
	RB_CLEAR_NODE(&f->hash_node);
	INIT_LIST_HEAD(&f->idle_node);
	INIT_LIST_HEAD(&f->held_node);
	INIT_LIST_HEAD(&f->recn_node);
	f->key = key;
	f->cl = cl;
	f->hash = hash;
	f->shared = shared;
	f->state = EDF_FLOW_IDLE;
}

/* Forget a flow that has no packets: its state goes with it. */
static void edf_flow_free(struct edf_sched *q, struct edf_flow *f)
{
	list_del_init(&f->idle_node);
	if (f->shared) {
		f->last_deadline = 0;
		f->seq = 0;
		return;
	}
	rb_erase(&f->hash_node, edf_flow_bucket(q, f->key));
	list_del(&f->cl_node);
	f->cl->nflows--;
	f->cl->xs.flows_collected++;
	q->nflows--;
	q->xs.flows_collected++;
	kmem_cache_free(edf_flow_cache, f);
	atomic_long_dec(&edf_flows_allocated);
}

/*
 * An idle flow whose last deadline has passed carries no state:
 * max(D', now) = now for its next packet.  It is still kept for
 * EDF_FLOW_GRACE_NS after it emptied, because a flow that sends again
 * soon would otherwise pay for a free and a new allocation per packet.
 *
 * A flow goes on q->idle when it empties and is not taken off when it
 * gets packets again: a flow that empties at every packet (a link that
 * keeps up) would otherwise pay two list operations per packet, checked
 * ones on kernels with list debugging.  So q->idle holds idle flows and
 * some that became active since, in the order they were listed
 * (listed_since).  The collector looks only at entries listed for a
 * grace period or more, a few per call: an idle one past its grace whose
 * deadline has passed goes; an active one leaves the list (it comes back
 * when it empties); any other goes to the back for another grace
 * period.  So each entry is looked at once per grace period at most, and
 * an idle flow goes between one and two grace periods after it emptied.
 */
static bool edf_flow_is_collectable(const struct edf_flow *f, u64 now)
{
	return f->last_deadline <= now &&
	       now - f->idle_since >= EDF_FLOW_GRACE_NS;
}

static void edf_flow_list_idle(struct edf_sched *q, struct edf_flow *f, u64 now)
{
	f->listed_since = now;
	list_add_tail(&f->idle_node, &q->idle);
}

/* Whether the entry listed first has been listed a grace period. */
static bool edf_flow_gc_due(const struct edf_sched *q, u64 now)
{
	const struct edf_flow *f;

	if (list_empty(&q->idle))
		return false;
	f = list_first_entry(&q->idle, struct edf_flow, idle_node);
	return now - f->listed_since >= EDF_FLOW_GRACE_NS;
}

static void edf_flow_gc(struct edf_sched *q, u64 now)
{
	struct edf_flow *f, *tmp;
	int n = 0;

	list_for_each_entry_safe(f, tmp, &q->idle, idle_node) {
		/* in listing order: the first listed too recently ends the look */
		if (++n > EDF_GC_BATCH || now - f->listed_since < EDF_FLOW_GRACE_NS)
			break;
		if (f->state != EDF_FLOW_IDLE) {
			list_del_init(&f->idle_node);
		} else if (edf_flow_is_collectable(f, now)) {
			edf_flow_free(q, f);
		} else {
			/* emptied lately, or its deadline is far ahead */
			list_del(&f->idle_node);
			edf_flow_list_idle(q, f, now);
		}
	}
}

/*
 * The table is full and nothing was due: free the idle flow listed
 * longest, even within its grace, unlisting the active ones in front of
 * it.  False when the first EDF_EVICT_BATCH entries held no idle flow
 * (they are unlisted: the next call looks further).
 */
static bool edf_flow_evict(struct edf_sched *q)
{
	struct edf_flow *f, *tmp;
	int n = 0;

	list_for_each_entry_safe(f, tmp, &q->idle, idle_node) {
		if (++n > EDF_EVICT_BATCH)
			break;
		if (f->state == EDF_FLOW_IDLE) {
			edf_flow_free(q, f);
			return true;
		}
		list_del_init(&f->idle_node);
	}
	return false;
}

/* A packet's flow key: its socket if local, else its 5-tuple hash. */
static unsigned long edf_flow_key(struct sk_buff *skb)
{
	struct sock *sk = skb->sk;

	/*
	 * Local sockets are flows by socket: their hash can change on
	 * retransmission timeouts, which would split a flow in two and
	 * reorder it.  Forwarded traffic is a flow by its 5-tuple hash.
	 */
	if (sk && sk_fullsock(sk))
		return (unsigned long)sk;
	return skb_get_hash(skb);
}

/*
 * The flow of @key in @cl, or NULL with *@link and *@parent where it
 * would go in the tree @root.
 */
static __always_inline struct edf_flow *
edf_flow_search(struct rb_root *root, unsigned long key, struct edf_class *cl,
		struct rb_node ***link, struct rb_node **parent)
{
	struct rb_node **p = &root->rb_node, *up = NULL;
	struct edf_flow *f;

	while (*p) {
		up = *p;
		f = rb_entry(up, struct edf_flow, hash_node);
		if (f->key == key && f->cl == cl)
			return f;
		if (f->key < key || (f->key == key && f->cl < cl))
			p = &up->rb_right;
		else
			p = &up->rb_left;
	}
	*link = p;
	*parent = up;
	return NULL;
}

/*
 * A new flow for @skb, which has none in @cl: out of line, as a flow is
 * made once for many packets.
 */
static noinline struct edf_flow *edf_flow_create(struct edf_sched *q,
						 struct edf_class *cl,
						 struct sk_buff *skb,
						 unsigned long key, u64 now)
{
	struct rb_root *root = edf_flow_bucket(q, key);
	struct rb_node **p, *parent;
	struct sock *sk = skb->sk;
	struct edf_flow *f;

	if (q->nflows >= q->max_flows) {
		edf_flow_gc(q, now);
		/* still full: collect the flow that has been idle longest */
		if (q->nflows >= q->max_flows && !edf_flow_evict(q))
			return ERR_PTR(-ENOSPC);
	}
	/*
	 * Where it goes: the collection may have changed the tree.  (It
	 * only frees flows, so the search still finds none.)
	 */
	f = edf_flow_search(root, key, cl, &p, &parent);
	if (unlikely(f))
		return f;

	f = kmem_cache_zalloc(edf_flow_cache, GFP_ATOMIC | __GFP_NOWARN);
	if (unlikely(!f))
		return ERR_PTR(-ENOMEM);
	atomic_long_inc(&edf_flows_allocated);
	edf_flow_init(f, cl, key, skb_get_hash(skb), false);
	if (sk && sk_fullsock(sk))
		f->socket_hash = sk->sk_hash;
	rb_link_node(&f->hash_node, parent, p);
	rb_insert_color(&f->hash_node, root);
	list_add_tail(&f->cl_node, &cl->flows);
	cl->nflows++;
	cl->xs.flows_created++;
	q->nflows++;
	q->xs.flows_created++;
	return f;
}

/*
 * recn on, @cl without perflow: @skb's destination queue (see
 * edf_flow.clock), keyed by where it goes: its destination address and
 * the route its own fabric header names, if any.
 */
static noinline struct edf_flow *edf_recn_dest_flow(struct edf_sched *q,
						    struct edf_class *cl,
						    struct sk_buff *skb, u64 now)
{
	const struct ethhdr *eth = (const struct ethhdr *)skb->data;
	struct rb_node **link, *parent;
	u32 dest[2] = { 0, 0 }, hdr[5] = { 0 };
	unsigned long key;
	struct edf_flow *f;

	if (skb_headlen(skb) >= ETH_HLEN) {
		memcpy(dest, eth->h_dest, ETH_ALEN);
		/* its own header's VC, SL and route; not the message flags */
		if (eth->h_proto == htons(ETH_P_FABRIC) &&
		    !skb_copy_bits(skb, ETH_HLEN, hdr, FABRIC_HDR_LEN))
			hdr[0] &= htonl(0xfcff0000 & ~((FABRIC_HDR_F_HEAD | FABRIC_HDR_F_TAIL) << 24));
	}
	dest[1] ^= hdr[0];
	key = jhash_3words(dest[0], dest[1], hdr[4], 0x7ec9);
	f = edf_flow_search(edf_flow_bucket(q, key), key, cl, &link, &parent);
	if (!f) {
		f = edf_flow_create(q, cl, skb, key, now);
		if (IS_ERR(f))
			return f;
	}
	f->clock = &cl->shared;
	return f;
}

static __always_inline struct edf_flow *edf_flow_lookup(struct edf_sched *q,
							struct edf_class *cl,
							struct sk_buff *skb,
							u64 now)
{
	struct rb_node **link, *parent;
	struct sock *sk = skb->sk;
	struct edf_flow *f;
	unsigned long key;

	if (!cl->perflow) {
		if (likely(!q->recn))
			return &cl->shared;
		return edf_recn_dest_flow(q, cl, skb, now);
	}

	key = edf_flow_key(skb);
	f = edf_flow_search(edf_flow_bucket(q, key), key, cl, &link, &parent);
	if (!f)
		return edf_flow_create(q, cl, skb, key, now);
	/*
	 * A closed socket's memory is soon reused by a new one: a new
	 * connection starts a new flow.  (The old one has no packets left:
	 * they held the socket.)
	 */
	if (sk && sk_fullsock(sk) && f->socket_hash != sk->sk_hash) {
		f->socket_hash = sk->sk_hash;
		f->last_deadline = 0;
		f->seq = 0;
		f->hash = skb_get_hash(skb);
	}
	return f;
}

/* The heap a waiting or ready flow is in; not the direct one's (unplace). */
static void edf_recn_unhold(struct edf_sched *q, struct edf_flow *f);
static void edf_recn_depart(struct edf_sched *q, struct sk_buff *skb);

static struct runheap *edf_flow_heap(struct edf_sched *q, struct edf_flow *f)
{
	if (f->state == EDF_FLOW_WAITING)
		return &q->waiting;
	return &q->ready[f->cl->vc];
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

/* Take a flow out of where its head waits: a heap or the direct slot. */
static __always_inline void edf_flow_unplace(struct edf_sched *q,
					     struct edf_flow *f)
{
	if (f == q->direct)
		q->direct = NULL;
	else if (unlikely(f->state == EDF_FLOW_HELD))
		edf_recn_unhold(q, f);
	else
		runheap_remove(edf_flow_heap(q, f), &f->heap_node);
}

/*
 * Put the direct packet's flow in its ready heap: before any other packet
 * is queued, and before a change of configuration (credits, eligibility,
 * the limit's drops) that only the heaps know about.
 */
static void edf_direct_spill(struct edf_sched *q)
{
	struct edf_flow *f = q->direct;

	if (!f)
		return;
	q->direct = NULL;
	q->xs.direct_spills++;
	runheap_insert(&q->ready[f->cl->vc], &f->heap_node,
		       edf_skb_cb(f->head)->deadline);
}

static void edf_flow_add_skb(struct edf_flow *f, struct sk_buff *skb)
{
	skb->next = NULL;
	if (f->head)
		f->tail->next = skb;
	else
		f->head = skb;
	f->tail = skb;
	f->qlen++;
}

static struct sk_buff *edf_flow_take_head(struct edf_flow *f)
{
	struct sk_buff *skb = f->head;

	f->head = skb->next;
	if (!f->head)
		f->tail = NULL;
	skb_mark_not_on_list(skb);
	f->qlen--;
	return skb;
}

/* The flow has no more packets: out of the heaps, maybe collectable. */
static __always_inline void edf_flow_went_idle(struct edf_sched *q,
					       struct edf_flow *f, u64 now)
{
	f->state = EDF_FLOW_IDLE;
	f->idle_since = now;
	f->cl->active_flows--;
	if (unlikely(q->recn) && !list_empty(&f->recn_node)) {
		list_del_init(&f->recn_node);
		q->recn_active_n--;
	}
	/*
	 * A class's own flow is never collected: it costs nothing idle.
	 * One still listed from an earlier idle time stays where it is.
	 */
	if (!f->shared && list_empty(&f->idle_node))
		edf_flow_list_idle(q, f, now);
}

/* Drop every packet of a flow; the caller fixes the tree's backlog. */
static void edf_flow_purge(struct Qdisc *sch, struct edf_flow *f,
			   struct sk_buff **to_free)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct edf_class *cl = f->cl;
	struct sk_buff *skb;

	if (f->state != EDF_FLOW_IDLE) {
		edf_flow_unplace(q, f);
		edf_flow_went_idle(q, f, 0);	/* freed by the caller */
	}
	while (f->head) {
		skb = edf_flow_take_head(f);
		edf_recn_depart(q, skb);
		cl->qlen--;
		cl->backlog -= qdisc_pkt_len(skb);
		sch->q.qlen--;
		qdisc_qstats_backlog_dec(sch, skb);
		if (to_free)
			__qdisc_drop(skb, to_free);
		else
			rtnl_kfree_skbs(skb, skb);
	}
}

/* ---- classes -------------------------------------------------------- */

static struct edf_class *edf_find_class(struct Qdisc *sch, u32 classid)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct Qdisc_class_common *c = qdisc_class_find(&q->clhash, classid);

	return c ? container_of(c, struct edf_class, common) : NULL;
}

static struct edf_class *edf_find_minor(struct Qdisc *sch, u32 minor)
{
	return minor ? edf_find_class(sch, TC_H_MAKE(sch->handle, minor)) : NULL;
}

/*
 * Resolve each priomap band to its class, else the "default" class, else
 * NULL (the qdisc's own default_cl), so that the enqueue path reads one
 * pointer instead of making two hash lookups per packet.  Called under
 * the tree lock whenever the priomap, "default" or the set of classes
 * changes, so the pointers never outlive their class.
 */
static void edf_resolve_bands(struct Qdisc *sch)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct edf_class *dflt = edf_find_minor(sch, q->default_minor);
	struct edf_class *cl;
	unsigned int i;

	for (i = 0; i < TC_EDF_PRIO_BANDS; i++) {
		cl = edf_find_minor(sch, q->priomap[i]);
		q->band_cl[i] = cl ? cl : dflt;
	}
}

static void edf_class_init(struct edf_class *cl, u32 classid)
{
	cl->common.classid = classid;
	INIT_LIST_HEAD(&cl->flows);
	gnet_stats_basic_sync_init(&cl->bstats);
	edf_flow_init(&cl->shared, cl, 0, 0, true);
}

/*
 * What the filters say: a class; NULL when none named one;
 * ERR_PTR(-EINPROGRESS) when an action took the packet (queued, stolen,
 * trapped); ERR_PTR(-EPERM) when one dropped it.  Out of line, so that
 * its result on the stack does not cost the enqueue path of the many
 * trees without filters a stack canary.
 */
static noinline struct edf_class *edf_classify_by_filters(struct sk_buff *skb,
							  struct Qdisc *sch,
							  struct tcf_proto *fl)
{
	struct edf_class *cl;
	struct tcf_result res;
	int result;

	result = fq_tcf_classify(skb, fl, &res);
	if (result < 0)
		return NULL;
#ifdef CONFIG_NET_CLS_ACT
	switch (result) {
	case TC_ACT_QUEUED:
	case TC_ACT_STOLEN:
	case TC_ACT_TRAP:
		return ERR_PTR(-EINPROGRESS);
	case TC_ACT_SHOT:
		return ERR_PTR(-EPERM);
	}
#endif
	cl = (struct edf_class *)res.class;
	return cl ? cl : edf_find_class(sch, res.classid);
}

/*
 * Classification order, as in the other classful qdiscs: skb->priority
 * naming one of our classes, then the filters, then the priomap by
 * skb->priority, then the default class.  An error pointer when a
 * filter's action took or dropped the packet (edf_classify_by_filters).
 */
static struct edf_class *edf_classify(struct sk_buff *skb, struct Qdisc *sch)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct edf_class *cl = NULL;
	struct tcf_proto *fl;

	if (TC_H_MAJ(skb->priority ^ sch->handle) == 0) {
		cl = edf_find_class(sch, skb->priority);
		if (cl)
			return cl;
	}

	fl = rcu_dereference_bh(q->filter_list);
	/* no filters, no call: most edf trees classify by priority */
	if (fl) {
		cl = edf_classify_by_filters(skb, sch, fl);
		if (cl)
			return cl;
	}

	cl = q->band_cl[skb->priority & TC_PRIO_MAX];
	if (!cl) {
		cl = &q->default_cl;
		q->xs.unclassified++;
	}
	return cl;
}

/* ---- deadlines ------------------------------------------------------ */

/* The packet's SO_TXTIME deadline on our clock, or 0 if it has none. */
static u64 edf_skb_txtime(const struct sk_buff *skb)
{
	const struct sock *sk = skb->sk;

	if (!skb->tstamp || !sk || !sk_fullsock(sk) ||
	    !sock_flag(sk, SOCK_TXTIME) || sk->sk_clockid != CLOCK_MONOTONIC)
		return 0;
	return ktime_to_ns(skb->tstamp);
}

/* Whether a packet's SO_TXTIME counts in @cl (edf_deadline()). */
static bool edf_class_takes_txtime(const struct edf_class *cl)
{
	return cl->mode == TC_EDF_MODE_FRAME || cl->mode == TC_EDF_MODE_TXTIME;
}

static u64 edf_class_rate(const struct edf_sched *q, const struct edf_class *cl)
{
	if (cl->mode == TC_EDF_MODE_CONTROL || !cl->rate)
		return q->link_rate;
	return cl->rate;
}

/*
 * A packet's SO_TXTIME as a deadline between @start, what it would get
 * without one, and now + horizon (edf_txtime_deadline()).  A txtime
 * before @start is counted: it is ordered at @start, so that no socket
 * jumps ahead of work already due by stamping a time in the past.
 */
static u64 edf_txtime_to_deadline(struct edf_sched *q, struct edf_class *cl,
				  u64 txtime, u64 start, u64 now)
{
	if (unlikely(edf_txtime_is_late(txtime, start))) {
		q->xs.txtime_late++;
		cl->xs.txtime_late++;
	}
	return edf_txtime_deadline(txtime, start, now, q->horizon);
}

static __always_inline u64 edf_deadline(struct edf_sched *q, struct edf_flow *f,
			u32 len, u32 parts, u64 txtime, u64 now)
{
	struct edf_class *cl = f->cl;
	u64 d, start = now;

	/* best-effort clocks run from the VC's frontier (see top) */
	if (edf_class_is_besteffort(cl))
		start = edf_max(now, q->be_vtime[cl->vc]);

	/*
	 * The virtual clock and the frame's share start from the flow's last
	 * deadline, so only a txtime class's deadline (its SO_TXTIME, or the
	 * arrival without one) or a frame's SO_TXTIME can fall before it;
	 * capping the lead keeps the order too (the last deadline was capped
	 * as well).
	 */
	switch (cl->mode) {
	case TC_EDF_MODE_FRAME:
		if (txtime) {
			d = edf_monotonic(f->last_deadline,
					  edf_txtime_to_deadline(q, cl, txtime, start, now));
			break;
		}
		d = edf_frame_deadline(f->last_deadline, start, cl->latency, parts);
		break;
	case TC_EDF_MODE_TXTIME:
		d = txtime ? edf_txtime_to_deadline(q, cl, txtime, start, now) : start;
		d = edf_monotonic(f->last_deadline, d);
		break;
	default:
		d = edf_vclock_deadline(f->last_deadline, start, len,
					edf_class_rate(q, cl));
		break;
	}
	d = edf_cap_lead(d, now);
	f->last_deadline = d;
	return d;
}

/* ---- RECN at the host ----------------------------------------------- */

/*
 * With recn on (Documentation/recn.rst, "Hosts"), the link counts each
 * frame in the SAQ or detection queue its route and SL go to, and a frame
 * counted in a SAQ the switch behind the link stopped (Xoff), or that
 * waits for older frames of its point, may not go.  The frames stay in
 * their flows, in order; a flow whose head may not go is held: out of its
 * ready heap, on the list of that SAQ, until the SAQ may go again (an Xon
 * or the lease's end, after which the link runs our queue).  The VC's
 * other flows go on meanwhile: that is the isolation.  The pick looks at
 * the head's tag only, and asks the link (its lock) only about a head
 * counted in a SAQ.
 */

static bool edf_gets_header(const struct edf_sched *q, const struct sk_buff *skb);

struct edf_recn_look {
	u32	ready[RECN_HOST_VCS];
	u8	asked;		/* bit vc: ready[vc] is the link's answer */
};

static const struct fhc_fields *edf_recn_push(const struct edf_sched *q,
					      const struct edf_class *cl,
					      const struct sk_buff *skb,
					      struct fhc_fields *push);

static noinline u16 edf_recn_arrive(struct Qdisc *sch, struct edf_class *cl,
				    struct sk_buff *skb, u32 len)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct fhc_fields push;

	return fabric_link_recn_arrive(q->link, skb, edf_recn_push(q, cl, skb, &push), len);
}

/* @skb leaves the qdisc, sent or dropped: out of the link's count. */
static void edf_recn_depart(struct edf_sched *q, struct sk_buff *skb)
{
	u16 tag = edf_skb_cb(skb)->recn_tag;

	if (unlikely(tag != FABRIC_LINK_RECN_NONE) && q->link)
		fabric_link_recn_depart(q->link, tag, qdisc_pkt_len(skb));
}

static bool edf_recn_may_go(struct edf_sched *q, struct edf_flow *f,
			    struct edf_recn_look *k)
{
	u16 tag = edf_skb_cb(f->head)->recn_tag;
	unsigned int vc;

	if (!fabric_link_recn_tag_is_saq(tag))
		return true;
	vc = fabric_link_recn_tag_vc(tag);
	if (!(k->asked & BIT(vc))) {
		k->ready[vc] = fabric_link_recn_ready(q->link, vc);
		k->asked |= BIT(vc);
	}
	return k->ready[vc] & BIT(fabric_link_recn_tag_saq(tag));
}

/* @f, at the root of its ready heap, waits for its head's SAQ. */
static void edf_recn_hold(struct edf_sched *q, struct edf_flow *f)
{
	u16 tag = edf_skb_cb(f->head)->recn_tag;

	runheap_remove(&q->ready[f->cl->vc], &f->heap_node);
	f->state = EDF_FLOW_HELD;
	f->held_vc = fabric_link_recn_tag_vc(tag);
	f->held_saq = fabric_link_recn_tag_saq(tag);
	list_add_tail(&f->held_node, &q->recn_held[f->held_vc][f->held_saq]);
	q->recn_held_mask[f->held_vc] |= BIT(f->held_saq);
	q->recn_held_flows++;
	q->xs.recn_held++;
}

static void edf_recn_unhold(struct edf_sched *q, struct edf_flow *f)
{
	list_del_init(&f->held_node);
	if (list_empty(&q->recn_held[f->held_vc][f->held_saq]))
		q->recn_held_mask[f->held_vc] &= ~BIT(f->held_saq);
	q->recn_held_flows--;
}

/* Flows held for SAQs that may go now go back where their heads belong. */
static noinline void edf_recn_release(struct edf_sched *q, u64 now)
{
	struct edf_flow *f, *tmp;
	unsigned int vc, i;
	u32 go;

	for (vc = 0; vc < RECN_HOST_VCS; vc++) {
		if (!q->recn_held_mask[vc])
			continue;
		go = q->recn_held_mask[vc] & fabric_link_recn_ready(q->link, vc);
		for (; go; go &= go - 1) {
			i = __ffs(go);
			list_for_each_entry_safe(f, tmp, &q->recn_held[vc][i], held_node) {
				edf_recn_unhold(q, f);
				edf_flow_place(q, f, now, false);
			}
		}
	}
}

/* Every flow held goes back where its head belongs; the pick holds again. */
static void edf_recn_release_all(struct edf_sched *q, u64 now)
{
	struct edf_flow *f, *tmp;
	unsigned int vc, i;

	for (vc = 0; vc < RECN_HOST_VCS; vc++)
		for (; q->recn_held_mask[vc]; ) {
			i = __ffs(q->recn_held_mask[vc]);
			list_for_each_entry_safe(f, tmp, &q->recn_held[vc][i], held_node) {
				edf_recn_unhold(q, f);
				edf_flow_place(q, f, now, false);
			}
		}
}

/* What edf_push_ttd() will write, or NULL (edf_recn_arrive()). */
static const struct fhc_fields *edf_recn_push(const struct edf_sched *q,
					      const struct edf_class *cl,
					      const struct sk_buff *skb,
					      struct fhc_fields *push)
{
	if (!edf_gets_header(q, skb))
		return NULL;
	*push = (struct fhc_fields){
		.vc = cl->vc,
		.sl = TC_H_MIN(cl->common.classid) & 0xff,
	};
	return push;
}

/*
 * The link made SAQs (or RECN went on): count the queued frames again,
 * so the frames of a congested point already queued go to its SAQ (a
 * sender's backlog would fill the switch's buffer otherwise), then let
 * the pick hold flows anew.  A count costs as many frames as are queued
 * and the switch decides how often SAQs are made, so it is bounded: it
 * looks at EDF_RECN_RECOUNT_BUDGET frames at most, going on where it
 * stopped (each flow looked at goes to the tail of q->recn_active) until
 * every flow that had packets when it began was looked at, and the next
 * one comes no sooner than EDF_RECN_RECOUNT_NS or four times what this
 * one took.  Frames queued meanwhile are counted right at their enqueue.
 * A flow longer than the budget is counted only in part (the rest stays
 * where it was counted, and only goes unheld).
 */
static noinline void edf_recn_recount(struct Qdisc *sch, u64 now)
{
	struct edf_sched *q = qdisc_priv(sch);
	u32 gen = fabric_link_recn_gen(q->link);
	unsigned int budget = EDF_RECN_RECOUNT_BUDGET;
	struct fhc_fields push;
	struct sk_buff *skb;
	struct edf_flow *f;
	u64 end;

	if (gen != q->recn_pass_gen) {
		q->recn_pass_gen = gen;
		q->recn_left = q->recn_active_n;
	}
	while (q->recn_left && !list_empty(&q->recn_active)) {
		f = list_first_entry(&q->recn_active, struct edf_flow, recn_node);
		/* a flow that would not fit: later, unless it is the first */
		if (f->qlen > budget && budget < EDF_RECN_RECOUNT_BUDGET)
			break;
		for (skb = f->head; skb && budget; skb = skb->next, budget--) {
			struct edf_skb_cb *cb = edf_skb_cb(skb);

			cb->recn_tag = fabric_link_recn_retag(q->link, skb,
							      edf_recn_push(q, f->cl, skb, &push),
							      cb->recn_tag, qdisc_pkt_len(skb));
		}
		list_move_tail(&f->recn_node, &q->recn_active);
		q->recn_left--;
		if (!budget)
			break;
	}
	if (!q->recn_left || list_empty(&q->recn_active))
		q->recn_gen = gen;
	end = ktime_get_ns();
	q->recn_next_ns = end + max_t(u64, EDF_RECN_RECOUNT_NS, 4 * (end - now));
	edf_recn_release_all(q, now);
}

/* Count everything queued again at the next dequeue (a new pass). */
static void edf_recn_recount_soon(struct edf_sched *q, struct fabric_link *link)
{
	q->recn_gen = fabric_link_recn_gen(link) - 1;
	q->recn_pass_gen = q->recn_gen;
	q->recn_next_ns = 0;
}

/* Is a count due (edf_recn_recount())? */
static bool edf_recn_recount_due(const struct edf_sched *q)
{
	return fabric_link_recn_gen(q->link) != q->recn_gen;
}

/* RECN goes off or anew: no frame stays counted in the link (commit). */
static void edf_recn_untag_all(struct Qdisc *sch)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct edf_flow *f, *tmp;
	struct sk_buff *skb;

	list_for_each_entry_safe(f, tmp, &q->recn_active, recn_node) {
		for (skb = f->head; skb; skb = skb->next) {
			edf_recn_depart(q, skb);
			edf_skb_cb(skb)->recn_tag = FABRIC_LINK_RECN_NONE;
		}
		list_del_init(&f->recn_node);
	}
	q->recn_active_n = 0;
	edf_recn_release_all(q, ktime_get_ns());
}

static void edf_recn_list_class(struct edf_sched *q, struct edf_class *cl)
{
	struct edf_flow *f;

	list_for_each_entry(f, &cl->flows, cl_node)
		if (f->head && list_empty(&f->recn_node)) {
			list_add_tail(&f->recn_node, &q->recn_active);
			q->recn_active_n++;
		}
	if (cl->shared.head && list_empty(&cl->shared.recn_node)) {
		list_add_tail(&cl->shared.recn_node, &q->recn_active);
		q->recn_active_n++;
	}
}

/* RECN goes on: the flows with packets, for edf_recn_retag_all(). */
static void edf_recn_list_active(struct Qdisc *sch)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct Qdisc_class_common *c;
	unsigned int i;

	for (i = 0; i < q->clhash.hashsize; i++)
		hlist_for_each_entry(c, &q->clhash.hash[i], hnode)
			edf_recn_list_class(q, container_of(c, struct edf_class, common));
	edf_recn_list_class(q, &q->default_cl);
}

/* A held flow, for edf_drop_one() when nothing else is left. */
static struct edf_flow *edf_recn_first_held(struct edf_sched *q)
{
	unsigned int vc;

	for (vc = 0; vc < RECN_HOST_VCS; vc++)
		if (q->recn_held_mask[vc])
			return list_first_entry(&q->recn_held[vc][__ffs(q->recn_held_mask[vc])],
						struct edf_flow, held_node);
	return NULL;
}

/* ---- enqueue / dequeue ---------------------------------------------- */

/*
 * With ttd on, a frame that could not carry the header is refused here;
 * a GSO packet kept whole, if its segments could not.
 */
static bool edf_too_big_for_ttd(const struct Qdisc *sch,
				const struct sk_buff *skb)
{
	const struct net_device *dev = qdisc_dev(sch);
	unsigned int room = dev->mtu + dev->hard_header_len;

	if (skb_is_gso(skb))
		return !skb_gso_validate_mac_len(skb, room - FABRIC_HDR_LEN);
	return skb->len + FABRIC_HDR_LEN > room;
}

static int edf_drop(struct sk_buff *skb, struct Qdisc *sch,
		    struct edf_class *cl, int reason, struct sk_buff **to_free)
{
	struct edf_sched *q = qdisc_priv(sch);

	q->xs.drops[reason]++;
	cl->xs.drops[reason]++;
	cl->qstats.drops++;
	return qdisc_drop(skb, sch, to_free);
}

/* Inlined in both callers: one function per packet on the common path. */
static __always_inline int edf_enqueue_one(struct sk_buff *skb, struct Qdisc *sch,
			   struct edf_class *cl, u32 parts, u8 msg_flags,
			   u64 txtime, u64 now, struct sk_buff **to_free)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct edf_skb_cb *cb;
	struct edf_flow *f;
	u32 len = qdisc_pkt_len(skb);

	if (unlikely(sch->q.qlen >= q->limit))
		return edf_drop(skb, sch, cl, TC_EDF_DROP_LIMIT, to_free);
	/* it was the only one: now it has company, in the heaps */
	if (unlikely(q->direct))
		edf_direct_spill(q);
	if (q->ttd && unlikely(edf_too_big_for_ttd(sch, skb)))
		return edf_drop(skb, sch, cl, TC_EDF_DROP_OVERSIZE, to_free);

	f = edf_flow_lookup(q, cl, skb, now);
	if (IS_ERR(f))
		return edf_drop(skb, sch, cl, PTR_ERR(f) == -ENOSPC ?
				TC_EDF_DROP_FLOWS : TC_EDF_DROP_NOMEM, to_free);
	if (unlikely(f->qlen >= q->flow_limit))
		return edf_drop(skb, sch, cl, TC_EDF_DROP_FLOW_LIMIT, to_free);

	cb = edf_skb_cb(skb);
	/* a destination queue's deadlines are its class's (edf_flow.clock) */
	cb->deadline = edf_deadline(q, f->clock ? f->clock : f, len, parts, txtime, now);
	cb->msg_flags = msg_flags;
	cb->recn_tag = FABRIC_LINK_RECN_NONE;
	if (unlikely(q->recn))
		cb->recn_tag = edf_recn_arrive(sch, cl, skb, len);

	edf_flow_add_skb(f, skb);
	if (f->qlen == 1) {
		/* it stays on q->idle, if it is there: edf_flow_gc() */
		cl->active_flows++;
		edf_flow_place(q, f, now, !sch->q.qlen && !q->link);
		if (unlikely(q->recn)) {
			list_add_tail(&f->recn_node, &q->recn_active);
			q->recn_active_n++;
		}
	}
	cl->qlen++;
	cl->backlog += len;
	sch->q.qlen++;
	qdisc_qstats_backlog_inc(sch, skb);
	return NET_XMIT_SUCCESS;
}

/*
 * A GSO packet is one frame of a frame-mode class, whose packets each get
 * a share of the frame's latency, and a credit link counts wire frames
 * (credits.rst, Hosts): there it is cut into wire packets here, each with
 * its own deadline.  Elsewhere it stays whole with one deadline for its
 * length, as fq keeps it; with ttd on it gets one header, which the
 * fabric header's GSO copies into the segments when they are cut
 * (fabric_hdr_gso.c), unless the device would cut them in hardware.
 */
static bool edf_must_segment(struct Qdisc *sch,
			     const struct edf_class *cl, const struct sk_buff *skb)
{
	const struct edf_sched *q = qdisc_priv(sch);

	return skb_is_gso(skb) &&
	       (q->link || cl->mode == TC_EDF_MODE_FRAME ||
		(q->ttd && !fabric_hdr_gso_whole_ok(qdisc_dev(sch), skb)));
}

/* What edf_enqueue_one() needs besides the segment. */
struct edf_seg_ctx {
	struct edf_class	*cl;
	u64			txtime, now;
};

static int edf_enqueue_seg(struct sk_buff *seg, struct Qdisc *sch, void *ctx,
			   u32 parts, u8 flags, struct sk_buff **to_free)
{
	struct edf_seg_ctx *c = ctx;

	return edf_enqueue_one(seg, sch, c->cl, parts, flags, c->txtime, c->now,
			       to_free);
}

/* Out of line: its context on the stack would cost every packet a canary. */
static noinline int edf_enqueue_segments(struct sk_buff *skb, struct Qdisc *sch,
				struct edf_class *cl, u64 txtime, u64 now,
				struct sk_buff **to_free)
{
	struct edf_sched *q = qdisc_priv(sch);
	netdev_features_t features = netif_skb_features(skb);
	struct edf_seg_ctx c = { .cl = cl, .txtime = txtime, .now = now };
	struct sk_buff *segs;

	segs = skb_gso_segment(skb, features & ~NETIF_F_GSO_MASK);
	if (IS_ERR_OR_NULL(segs))
		return edf_drop(skb, sch, cl, TC_EDF_DROP_NOMEM, to_free);
	q->xs.gso_segmented++;
	return fq_enqueue_segments(skb, segs, sch, edf_enqueue_seg, &c, to_free);
}

static int edf_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		       struct sk_buff **to_free)
{
	struct edf_class *cl;
	u64 now = ktime_get_ns();
	u64 txtime;

	cl = edf_classify(skb, sch);
	if (unlikely(IS_ERR(cl))) {
		__qdisc_drop(skb, to_free);
		if (PTR_ERR(cl) == -EINPROGRESS)
			return NET_XMIT_SUCCESS | __NET_XMIT_STOLEN;
		qdisc_qstats_drop(sch);
		return NET_XMIT_SUCCESS | __NET_XMIT_BYPASS;
	}
	/* rate and control classes do not read it: no look at the socket */
	txtime = edf_class_takes_txtime(cl) ? edf_skb_txtime(skb) : 0;
	if (edf_must_segment(sch, cl, skb))
		return edf_enqueue_segments(skb, sch, cl, txtime, now, to_free);
	return edf_enqueue_one(skb, sch, cl, 1,
			       FABRIC_HDR_F_HEAD | FABRIC_HDR_F_TAIL,
			       txtime, now, to_free);
}

/* Move regulated flows whose head became eligible to the ready heap. */
static void edf_release_eligible(struct edf_sched *q, u64 now)
{
	struct runheap_node *n;
	struct edf_flow *f;

	while ((n = runheap_peek(&q->waiting)) && runheap_key(n) <= now) {
		runheap_remove(&q->waiting, n);
		f = container_of(n, struct edf_flow, heap_node);
		f->state = EDF_FLOW_READY;
		runheap_insert(&q->ready[f->cl->vc], &f->heap_node,
			     edf_skb_cb(f->head)->deadline);
	}
}

/*
 * Whether the push at dequeue (ttd on) will give @skb the header: what
 * fabric_hdr_push() refuses (a GSO packet queued before ttd went on, for
 * a device that would cut it in hardware; an inner type the fabric does
 * not carry) leaves without it.  Only memory can still fail it; then the
 * frame is shorter than counted and on VC1, which the receiver's quiet
 * resynchronisation repairs.
 */
static bool edf_gets_header(const struct edf_sched *q, const struct sk_buff *skb)
{
	return q->ttd && skb_headlen(skb) >= ETH_HLEN &&
	       (!skb_is_gso(skb) ||
		(skb->dev && fabric_hdr_gso_whole_ok(skb->dev, skb))) &&
	       fhc_inner_probe_len(ntohs(((const struct ethhdr *)skb->data)->h_proto));
}

/*
 * Credits on: take the link's credits for @f's head as it will leave:
 * with the header (its class's VC, 20 bytes more) if it gets one, else
 * on its own header's VC, VC1 without one.  @refused: wire VCs already
 * refused in this dequeue; nothing overtakes a refused head on them.
 */
static bool edf_take_credits(struct edf_sched *q, struct edf_flow *f,
			     unsigned int *refused)
{
	struct sk_buff *skb = f->head;
	bool hdr = edf_gets_header(q, skb);
	unsigned int vc = hdr ? f->cl->vc : fabric_link_skb_vc(skb);

	if (*refused & BIT(vc))
		return false;
	if (fabric_link_take(q->link, vc, skb->len + (hdr ? FABRIC_HDR_LEN : 0)))
		return true;
	*refused |= BIT(vc);
	return false;
}

/*
 * The flow whose head goes next: the smallest deadline of VC0, else of
 * VC1 (else VC2, VC3).  With credits on, a head the link has no credits
 * for stays, and nothing else on its wire VC overtakes it (without ttd both our VCs go
 * on the wire's VC1), while the other wire VC may go: NULL when neither
 * can, and the link's next credits run us again.
 */
static struct edf_flow *edf_pick_flow(struct edf_sched *q)
{
	struct edf_recn_look look = { .asked = 0 };
	unsigned int vc, refused = 0;
	struct runheap_node *n;
	struct edf_flow *f;

	for (vc = TC_EDF_VC_REGULATED; vc < q->vcs; vc++) {
		while ((n = runheap_peek(&q->ready[vc]))) {
			f = container_of(n, struct edf_flow, heap_node);
			/* a head its SAQ holds back: the flow waits, the VC goes on */
			if (unlikely(q->recn) && !edf_recn_may_go(q, f, &look)) {
				edf_recn_hold(q, f);
				continue;
			}
			if (!q->link || edf_take_credits(q, f, &refused))
				return f;
			break;
		}
	}
	return NULL;
}

static void edf_account_departure(struct edf_sched *q, struct edf_class *cl,
				  u64 deadline, u64 now)
{
	u64 late;

	if (edf_class_is_besteffort(cl))
		q->be_vtime[cl->vc] = edf_max(q->be_vtime[cl->vc], deadline);
	if (now <= deadline)
		return;
	late = now - deadline;
	cl->xs.deadline_misses++;
	q->xs.deadline_misses++;
	if (late > cl->xs.max_lateness_ns)
		cl->xs.max_lateness_ns = late;
	if (late > q->xs.max_lateness_ns)
		q->xs.max_lateness_ns = late;
}

/*
 * Push the fabric header.  Whatever can fail for a packet's size was
 * checked at enqueue (edf_enqueue_one), so a dequeue never drops: a parent
 * that peeks must not see packets vanish under it.  A packet that still
 * cannot carry the header (GSO queued before "ttd on" for a device that
 * segments in hardware, an inner type the fabric does not carry, no
 * memory) leaves without it and is counted.
 */
static noinline void edf_push_ttd(struct Qdisc *sch, struct sk_buff *skb,
			 struct edf_flow *f, u64 deadline, u8 msg_flags, u64 now)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct edf_flow *id = f->clock ? f->clock : f;	/* the class's, if its */
	s64 ttd = deadline >= now ? (s64)min_t(u64, deadline - now, S32_MAX) :
				    -(s64)min_t(u64, now - deadline, S32_MAX);
	struct fhc_fields fields = {
		.vc = f->cl->vc,
		.head = msg_flags & FABRIC_HDR_F_HEAD,
		.tail = msg_flags & FABRIC_HDR_F_TAIL,
		.sl = TC_H_MIN(f->cl->common.classid) & 0xff,
		.ttd_ns = fhc_clamp_ttd(ttd),
		.flow_id = id->hash,
		.seq = id->seq,
	};

	if (unlikely(fabric_hdr_push(skb, &fields))) {
		q->xs.ttd_skipped++;
		return;
	}
	/* a GSO packet's segments take the numbers after its own */
	id->seq += skb_is_gso(skb) ? max_t(u32, skb_shinfo(skb)->gso_segs, 1) : 1;
	q->xs.ttd_pushed++;
}

/*
 * Whether @f, whose head just left, stays in its VC's ready heap with its
 * next head (runheap_requeue(): a flow's deadlines never go back): it was
 * there, and the next head is eligible too.
 */
static __always_inline bool edf_flow_stays_ready(const struct edf_sched *q,
						 const struct edf_flow *f, u64 now)
{
	const struct edf_class *cl = f->cl;

	if (f->state != EDF_FLOW_READY || f == q->direct)
		return false;
	if (!cl->smooth && !cl->burst)
		return true;
	return edf_is_eligible(now, edf_skb_cb(f->head)->deadline,
			       edf_class_eligibility(q, cl));
}

/*
 * Take the head packet of flow @f, the root of its heap or the direct
 * packet (both callers found it there), and keep the flow and all
 * counters consistent.
 */
static __always_inline struct sk_buff *edf_take(struct Qdisc *sch,
						struct edf_flow *f, u64 now)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct edf_class *cl = f->cl;
	struct sk_buff *skb;

	skb = edf_flow_take_head(f);
	edf_recn_depart(q, skb);
	if (!f->head) {
		edf_flow_unplace(q, f);
		edf_flow_went_idle(q, f, now);
	} else if (edf_flow_stays_ready(q, f, now)) {
		runheap_requeue(&q->ready[cl->vc], &f->heap_node,
				edf_skb_cb(f->head)->deadline);
	} else {
		edf_flow_unplace(q, f);
		edf_flow_place(q, f, now, false);
	}
	cl->qlen--;
	cl->backlog -= qdisc_pkt_len(skb);
	sch->q.qlen--;
	qdisc_qstats_backlog_dec(sch, skb);
	return skb;
}

static noinline struct sk_buff *edf_dequeue_busy(struct Qdisc *sch)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct edf_skb_cb *cb;
	struct edf_class *cl;
	struct sk_buff *skb;
	struct edf_flow *f;
	struct runheap_node *n;
	u64 now;

	now = ktime_get_ns();
	if (q->rate && now < q->next_tx) {
		q->xs.throttled++;
		qdisc_watchdog_schedule_ns(&q->watchdog, q->next_tx);
		return NULL;
	}

	/* the only packet queued, if direct: no heap holds another */
	f = q->direct;
	if (!f) {
		edf_release_eligible(q, now);
		if (unlikely(q->recn) && edf_recn_recount_due(q) && now >= q->recn_next_ns)
			edf_recn_recount(sch, now);
		if (unlikely(q->recn_held_flows))
			edf_recn_release(q, now);
		f = edf_pick_flow(q);
	}
	if (!f) {
		/*
		 * Only smoothed packets, none eligible yet, or heads waiting
		 * for credits (the link wakes us when they come), or for
		 * their SAQ (so does the link), or for a count that is due
		 */
		u64 wake = U64_MAX;

		n = runheap_peek(&q->waiting);
		if (n)
			wake = runheap_key(n);
		if (unlikely(q->recn) && edf_recn_recount_due(q))
			wake = min(wake, q->recn_next_ns);
		if (wake != U64_MAX)
			qdisc_watchdog_schedule_ns(&q->watchdog, wake);
		return NULL;
	}

	cl = f->cl;
	skb = edf_take(sch, f, now);
	cb = edf_skb_cb(skb);
	edf_account_departure(q, cl, cb->deadline, now);

	if (q->ttd)
		edf_push_ttd(sch, skb, f, cb->deadline, cb->msg_flags, now);
	/* after the push, which still reads the flow; most often nothing is due */
	if (edf_flow_gc_due(q, now))
		edf_flow_gc(q, now);

	if (q->rate)
		q->next_tx = edf_vclock_deadline(q->next_tx, now, skb->len,
						 q->rate);
	/* the class's packets and bytes in its xstats are these (dump) */
	_bstats_update(&cl->bstats, qdisc_pkt_len(skb), 1);
	qdisc_bstats_update(sch, skb);
	return skb;
}

/*
 * The second dequeue of every __qdisc_run() finds the qdisc empty: it is
 * answered here, without the busy path's saving of registers.
 */
static struct sk_buff *edf_dequeue(struct Qdisc *sch)
{
	if (!sch->q.qlen)
		return NULL;
	return edf_dequeue_busy(sch);
}

/*
 * Drop one packet to make room after "limit" shrank: best-effort first
 * (the last VC first), then held packets (smooth, burst) still waiting,
 * then regulated ones.  Within a heap it is the root's packet: a heap has no cheap maximum, and this
 * runs only on a configuration change.
 */
static struct sk_buff *edf_drop_one(struct Qdisc *sch, u64 now)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct runheap_node *n = NULL;
	struct edf_flow *f;
	unsigned int vc;

	for (vc = __TC_EDF_VC_MAX - 1; vc > TC_EDF_VC_REGULATED && !n; vc--)
		n = runheap_peek(&q->ready[vc]);
	if (!n)
		n = runheap_peek(&q->waiting);
	if (!n)
		n = runheap_peek(&q->ready[TC_EDF_VC_REGULATED]);
	if (n)
		f = container_of(n, struct edf_flow, heap_node);
	else if (q->recn_held_flows)
		f = edf_recn_first_held(q);	/* held back for a SAQ: last */
	else
		return NULL;
	q->xs.drops[TC_EDF_DROP_LIMIT]++;
	f->cl->xs.drops[TC_EDF_DROP_LIMIT]++;
	f->cl->qstats.drops++;
	qdisc_qstats_drop(sch);
	return edf_take(sch, f, now);
}

/* ---- configuration -------------------------------------------------- */

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

static u64 edf_device_rate(struct net_device *dev)
{
	struct ethtool_link_ksettings ks;

	ASSERT_RTNL();
	if (__ethtool_get_link_ksettings(dev, &ks) == 0 &&
	    ks.base.speed != SPEED_UNKNOWN && ks.base.speed)
		return (u64)ks.base.speed * 1000000ULL / 8;
	return EDF_FALLBACK_LINK_RATE;
}

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
 * when RECN goes on (or anew) are counted at the next dequeue.
 */
static void edf_recn_commit(struct Qdisc *sch, struct fabric_link *link, bool on,
			    const struct recn_host_cfg *cfg)
{
	struct edf_sched *q = qdisc_priv(sch);
	bool same = q->recn && on && link == q->link && recn_host_cfg_eq(cfg, &q->recn_cfg);

	if (same)
		return;
	if (q->recn)
		edf_recn_untag_all(sch);
	if (q->recn && on)
		fabric_link_recn_set(link, cfg);
	q->recn = on;
	q->recn_cfg = *cfg;
	if (on) {
		edf_recn_list_active(sch);
		edf_recn_recount_soon(q, link);
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
	bool recn, credits, old_recn;
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
	if (tb[TCA_EDF_FLOW_LIMIT])
		flow_limit = nla_get_u32(tb[TCA_EDF_FLOW_LIMIT]);
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
	/* the heaps see the new settings; the direct packet was outside */
	edf_direct_spill(q);
	old_recn = q->recn;
	edf_recn_commit(sch, link, recn, &recn_cfg);
	old_link = q->link;
	q->link = link;
	q->vcs = vcs;
	if (rate != q->rate)
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
	/* heads that waited for credits go now, if credits went off */
	if (!link && old_link)
		__netif_schedule(qdisc_root(sch));
	return 0;
}

static int edf_init(struct Qdisc *sch, struct nlattr *opt,
		    struct netlink_ext_ack *extack)
{
	struct edf_sched *q = qdisc_priv(sch);
	int err, i;

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
	return edf_change(sch, opt, extack);
}

/* Forget every flow of a class; all must be idle (no packets). */
static void edf_class_free_flows(struct edf_sched *q, struct edf_class *cl)
{
	struct edf_flow *f, *tmp;

	list_for_each_entry_safe(f, tmp, &cl->flows, cl_node)
		edf_flow_free(q, f);
	edf_flow_free(q, &cl->shared);
}

/*
 * Drop a class's packets and forget its flows.  Our own counters go down
 * here; the caller tells the parents (qdisc_tree_reduce_backlog) where
 * they counted the packets.  Runs under the tree lock or at teardown.
 */
static void edf_class_purge(struct Qdisc *sch, struct edf_class *cl)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct edf_flow *f;

	list_for_each_entry(f, &cl->flows, cl_node)
		edf_flow_purge(sch, f, NULL);
	edf_flow_purge(sch, &cl->shared, NULL);
	edf_class_free_flows(q, cl);
}

static void edf_reset(struct Qdisc *sch)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct Qdisc_class_common *c;
	struct edf_class *cl;
	unsigned int i;

	for (i = 0; i < q->clhash.hashsize; i++) {
		hlist_for_each_entry(c, &q->clhash.hash[i], hnode) {
			cl = container_of(c, struct edf_class, common);
			edf_class_purge(sch, cl);
		}
	}
	edf_class_purge(sch, &q->default_cl);
	q->next_tx = 0;
	memset(q->be_vtime, 0, sizeof(q->be_vtime));
	qdisc_watchdog_cancel(&q->watchdog);
}

static void edf_destroy_class(struct Qdisc *sch, struct edf_class *cl)
{
	edf_class_purge(sch, cl);
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
	if (q->clhash.hash) {
		for (i = 0; i < q->clhash.hashsize; i++)
			hlist_for_each_entry_safe(c, next, &q->clhash.hash[i], hnode)
				edf_destroy_class(sch, container_of(c, struct edf_class,
								    common));
		qdisc_class_hash_destroy(&q->clhash);
	}
	if (q->flows) {
		edf_class_purge(sch, &q->default_cl);
		kvfree(q->flows);
	}
	/* after the purges: no frame is counted in the link's SAQs */
	if (q->recn)
		fabric_link_recn_put(q->link);
	if (q->link)
		fabric_link_put(q->link);
}

static int edf_dump(struct Qdisc *sch, struct sk_buff *skb)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct nlattr *opts;

	opts = nla_nest_start_noflag(skb, TCA_OPTIONS);
	if (!opts)
		goto nla_put_failure;
	if (nla_put_u64_64bit(skb, TCA_EDF_RATE, q->rate, TCA_EDF_PAD) ||
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
	if (!new && perflow != cl->perflow)
		edf_class_free_flows(q, cl);	/* idle: only state goes */
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

	edf_flow_cache = kmem_cache_create("edf_flow", sizeof(struct edf_flow),
					   0, SLAB_HWCACHE_ALIGN, NULL);
	if (!edf_flow_cache)
		return -ENOMEM;
	err = register_qdisc(&edf_qdisc_ops);
	if (err)
		kmem_cache_destroy(edf_flow_cache);
	return err;
}

static void __exit edf_module_exit(void)
{
	unregister_qdisc(&edf_qdisc_ops);
	kmem_cache_destroy(edf_flow_cache);
}

module_init(edf_module_init);
module_exit(edf_module_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("EDF / virtual clock deadline scheduler with two VCs and TTD header");
FQ_MODULE_ALIAS_QDISC("edf");
