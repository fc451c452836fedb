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
 * Each is a sorted run in front of a red-black tree (core/runheap.h):
 * O(1) for a flow that comes back after every other, as flows of one
 * rate do, O(log active flows) in the worst case for one out of order.
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
 * That frontier is virtual time, ahead of now by as much as the weights
 * are below the link; it starts again from now when the VC drains
 * (core/edf_core.h, struct edf_be_clock).
 *
 * With "rate" the qdisc paces its own output at the link rate, so queues
 * form here and not in the device (needed on veth).  With "ttd on" the
 * fabric header (fabric_hdr.ko) is pushed at dequeue, carrying the time
 * to deadline D - now, so the next hop needs no synchronised clock.
 *
 * Paper: edf-deadline-qos-two-vcs, sections 3.1 to 3.3.
 */
#include "sch_edf.h"

struct kmem_cache *edf_flow_cache __read_mostly;

/*
 * Flows allocated and not yet freed, by every edf qdisc: with no edf qdisc
 * left it must read 0, which a leak test can check exactly (the slab cache
 * may be merged with others, and memory figures are coarse).  Per cpu:
 * under mq an edf per queue makes and frees flows on each queue's cpu,
 * and one shared counter would move its cache line between them at every
 * flow.  A cpu's own count goes negative when it frees flows another
 * made; only the sum means anything.
 */
static DEFINE_PER_CPU(long, edf_flows_allocated);

static int edf_flows_allocated_get(char *buf, const struct kernel_param *kp)
{
	long sum = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		sum += per_cpu(edf_flows_allocated, cpu);
	return sysfs_emit(buf, "%ld\n", sum);
}

static const struct kernel_param_ops edf_flows_allocated_ops = {
	.get = edf_flows_allocated_get,
};
module_param_cb(flows_allocated, &edf_flows_allocated_ops, NULL, 0444);
MODULE_PARM_DESC(flows_allocated, "flows held by all edf qdiscs (read only)");

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
	INIT_LIST_HEAD(&f->recn_node);
	f->key = key;
	f->cl = cl;
	f->hash = hash;
	f->shared = shared;
	f->state = EDF_FLOW_IDLE;
}

/* Forget a flow that has no packets: its state goes with it. */
void edf_flow_free(struct edf_sched *q, struct edf_flow *f)
{
	list_del_init(&f->idle_node);
	if (f->shared) {
		f->last_deadline = 0;
		f->seq = 0;
		return;
	}
	rb_erase(&f->hash_node, edf_flow_bucket(q, f->key));
	f->cl->nflows--;
	f->cl->xs.flows_collected++;
	q->nflows--;
	q->xs.flows_collected++;
	kmem_cache_free(edf_flow_cache, f);
	this_cpu_dec(edf_flows_allocated);
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

/*
 * A flow's idle times are stamps of 2^EDF_STAMP_SHIFT ns (about a
 * millisecond) in 32 bits, 8 bytes of the flow instead of 16.  Only
 * their differences are read, against a grace of a second; they wrap
 * after 52 days, when a flow idle that long may look recent once and
 * wait one more grace period.  The grace in stamps is rounded up and one
 * more, so that a flow is kept EDF_FLOW_GRACE_NS at least.
 */
#define EDF_STAMP_SHIFT		20
#define EDF_FLOW_GRACE_STAMPS	\
	(DIV_ROUND_UP_ULL(EDF_FLOW_GRACE_NS, 1ULL << EDF_STAMP_SHIFT) + 1)

static u32 edf_stamp(u64 ns)
{
	return (u32)(ns >> EDF_STAMP_SHIFT);
}

/* Whether a grace period has passed since the stamp @since. */
static bool edf_stamp_aged(u32 since, u64 now)
{
	return edf_stamp(now) - since >= EDF_FLOW_GRACE_STAMPS;
}

/*
 * A flow carries no state once its next packet would start from where
 * any flow's would: its last deadline has passed, or for best effort
 * the VC's frontier has (edf_be_start()), or the VC was idle since.
 */
static bool edf_flow_is_stateless(const struct edf_sched *q,
				  const struct edf_flow *f, u64 now)
{
	const struct edf_be_clock *be;

	if (f->last_deadline <= now)
		return true;
	if (!edf_class_is_besteffort(f->cl))
		return false;
	be = &q->be[f->cl->vc];
	return edf_be_prev(be, f->last_deadline, f->be_epoch) <=
	       edf_be_start(be, now);
}

static bool edf_flow_is_collectable(const struct edf_sched *q,
				    const struct edf_flow *f, u64 now)
{
	return edf_stamp_aged(f->idle_since, now) &&
	       edf_flow_is_stateless(q, f, now);
}

/*
 * When an entry stamped @since, at or before @now, is first aged: the
 * start of the stamp a grace period after it, or @now if it is aged.
 */
static u64 edf_stamp_due_ns(u32 since, u64 now)
{
	u32 age = edf_stamp(now) - since;

	if (age >= EDF_FLOW_GRACE_STAMPS)
		return now;
	return ((now >> EDF_STAMP_SHIFT) + EDF_FLOW_GRACE_STAMPS - age)
		<< EDF_STAMP_SHIFT;
}

static void edf_flow_list_idle(struct edf_sched *q, struct edf_flow *f, u64 now)
{
	f->listed_since = edf_stamp(now);
	/*
	 * The first entry sets when the collector is due; one listed
	 * behind others is due no earlier than they are.
	 */
	if (list_empty(&q->idle))
		q->gc_due_ns = edf_stamp_due_ns(f->listed_since, now);
	list_add_tail(&f->idle_node, &q->idle);
}

/*
 * Whether the entry listed first may have been listed a grace period:
 * one load per packet.  q->gc_due_ns is never later than that entry's
 * due time: entries that leave q->idle elsewhere (freed, evicted,
 * purged) do not move it, which only makes the next collection look at
 * the new first entry and find it not due yet.
 */
static bool edf_flow_gc_due(const struct edf_sched *q, u64 now)
{
	return now >= q->gc_due_ns;
}

static void edf_flow_gc(struct edf_sched *q, u64 now)
{
	struct edf_flow *f, *tmp;
	int n = 0;

	list_for_each_entry_safe(f, tmp, &q->idle, idle_node) {
		/* in listing order: the first listed too recently ends the look */
		if (++n > EDF_GC_BATCH || !edf_stamp_aged(f->listed_since, now))
			break;
		if (f->state != EDF_FLOW_IDLE) {
			list_del_init(&f->idle_node);
		} else if (edf_flow_is_collectable(q, f, now)) {
			edf_flow_free(q, f);
		} else {
			/* emptied lately, or its deadline is far ahead */
			list_del(&f->idle_node);
			edf_flow_list_idle(q, f, now);
		}
	}
	/* @now when the batch left entries that are due */
	if (list_empty(&q->idle)) {
		q->gc_due_ns = U64_MAX;
	} else {
		f = list_first_entry(&q->idle, struct edf_flow, idle_node);
		q->gc_due_ns = edf_stamp_due_ns(f->listed_since, now);
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
 * A new flow for @skb, which has none in @cl, where the search that
 * found none ended (@p, @parent): out of line, as a flow is made once
 * for many packets.
 */
static noinline struct edf_flow *edf_flow_create(struct edf_sched *q,
						 struct edf_class *cl,
						 struct sk_buff *skb,
						 unsigned long key, u64 now,
						 struct rb_node **p,
						 struct rb_node *parent)
{
	struct rb_root *root = edf_flow_bucket(q, key);
	struct sock *sk = skb->sk;
	struct edf_flow *f;

	if (q->nflows >= q->max_flows) {
		edf_flow_gc(q, now);
		/* still full: collect the flow that has been idle longest */
		if (q->nflows >= q->max_flows && !edf_flow_evict(q))
			return ERR_PTR(-ENOSPC);
		/*
		 * Where it goes now: the collection may have changed the
		 * tree.  (It only frees flows, so the search still finds
		 * none.)
		 */
		edf_flow_search(root, key, cl, &p, &parent);
	}

	f = kmem_cache_zalloc(edf_flow_cache, GFP_ATOMIC | __GFP_NOWARN);
	if (unlikely(!f))
		return ERR_PTR(-ENOMEM);
	this_cpu_inc(edf_flows_allocated);
	edf_flow_init(f, cl, key, skb_get_hash(skb), false);
	if (sk && sk_fullsock(sk))
		f->socket_hash = sk->sk_hash;
	rb_link_node(&f->hash_node, parent, p);
	rb_insert_color(&f->hash_node, root);
	cl->nflows++;
	cl->xs.flows_created++;
	q->nflows++;
	q->xs.flows_created++;
	return f;
}

/*
 * recn on, @cl without perflow: @skb's destination queue (see
 * edf_flow.dest), keyed by where it goes: its destination address and
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
		f = edf_flow_create(q, cl, skb, key, now, link, parent);
		if (IS_ERR(f))
			return f;
	}
	f->dest = true;
	return f;
}

/*
 * @skb's flow, and in *@clock the flow whose clock gives its deadline
 * (edf_flow_clock(), known here without a look at the flow).
 */
static __always_inline struct edf_flow *edf_flow_lookup(struct edf_sched *q,
							struct edf_class *cl,
							struct sk_buff *skb,
							u64 now,
							struct edf_flow **clock)
{
	struct rb_node **link, *parent;
	struct sock *sk = skb->sk;
	struct edf_flow *f;
	unsigned long key;

	if (!cl->perflow) {
		*clock = &cl->shared;
		if (likely(!q->recn))
			return &cl->shared;
		return edf_recn_dest_flow(q, cl, skb, now);
	}

	key = edf_flow_key(skb);
	f = edf_flow_search(edf_flow_bucket(q, key), key, cl, &link, &parent);
	if (!f) {
		f = edf_flow_create(q, cl, skb, key, now, link, parent);
		*clock = f;
		return f;
	}
	*clock = f;
	/*
	 * A closed socket's memory is soon reused by a new one: a new
	 * connection starts a new flow.  (The old one has no packets left:
	 * they held the socket.)  A socket whose hash changed while it has
	 * packets here is the same socket connected again (a UDP socket's
	 * new port): the same flow, whose deadlines must not go back behind
	 * its queued ones; it starts afresh once it has emptied.
	 */
	if (sk && sk_fullsock(sk) && f->socket_hash != sk->sk_hash && !f->qlen) {
		f->socket_hash = sk->sk_hash;
		f->last_deadline = 0;
		f->seq = 0;
		f->hash = skb_get_hash(skb);
	}
	return f;
}

/* The heap a waiting or ready flow is in; not the direct one's (unplace). */

static struct runheap *edf_flow_heap(struct edf_sched *q, struct edf_flow *f)
{
	if (f->state == EDF_FLOW_WAITING)
		return &q->waiting;
	return &q->ready[f->cl->vc];
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
void edf_direct_spill(struct edf_sched *q)
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
	f->idle_since = edf_stamp(now);
	f->cl->active_flows--;
	if (edf_class_is_besteffort(f->cl))
		edf_be_drain(&q->be[f->cl->vc]);
	/*
	 * A class's own flow is never collected: it costs nothing idle.
	 * One still listed from an earlier idle time stays where it is.
	 */
	if (!f->shared && list_empty(&f->idle_node))
		edf_flow_list_idle(q, f, now);
}

/*
 * RECN goes on: the frames @cl's one queue holds go to their
 * destinations' queues (edf_recn_dest_flow()), in order and with the
 * deadlines they have.  Left there, they would be held all together for
 * the SAQ of the first one's destination while the later frames to the
 * others, queued apart, left before them.  A frame whose destination's
 * queue cannot be made (no memory, max_flows) is dropped and counted;
 * the caller fixes the tree's backlog by the frames and bytes this adds
 * to *@pkts and *@bytes.
 */
void edf_recn_split_shared(struct Qdisc *sch, struct edf_class *cl, u64 now,
			   unsigned int *pkts, unsigned int *bytes)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct edf_flow *one = &cl->shared, *f;
	struct sk_buff *skb;
	int reason;

	if (cl->perflow || !one->head)
		return;
	edf_flow_unplace(q, one);
	while (one->head) {
		skb = edf_flow_take_head(one);
		f = edf_recn_dest_flow(q, cl, skb, now);
		if (IS_ERR(f)) {
			reason = PTR_ERR(f) == -ENOSPC ? TC_EDF_DROP_FLOWS : TC_EDF_DROP_NOMEM;
			q->xs.drops[reason]++;
			cl->xs.drops[reason]++;
			cl->qstats.drops++;
			qdisc_qstats_drop(sch);
			cl->qlen--;
			cl->backlog -= qdisc_pkt_len(skb);
			sch->q.qlen--;
			qdisc_qstats_backlog_dec(sch, skb);
			(*pkts)++;
			*bytes += qdisc_pkt_len(skb);
			rtnl_kfree_skbs(skb, skb);
			continue;
		}
		edf_flow_add_skb(f, skb);
		if (f->qlen == 1) {
			cl->active_flows++;
			if (edf_class_is_besteffort(cl))
				edf_be_wake(&q->be[cl->vc]);
			edf_flow_place(q, f, now, false);
		}
	}
	/*
	 * After the wakes: a best-effort VC that drained here would start
	 * its clock again, and the class's next frames with it, ahead of
	 * the deadlines its queued frames have.
	 */
	edf_flow_went_idle(q, one, now);
}

/* Two lists of frames in deadline order as one; @a's first on a tie. */
static struct sk_buff *edf_skb_merge(struct sk_buff *a, struct sk_buff *b)
{
	struct sk_buff *head = NULL, **tail = &head;

	while (a && b) {
		if (edf_skb_cb(b)->deadline < edf_skb_cb(a)->deadline) {
			*tail = b;
			b = b->next;
		} else {
			*tail = a;
			a = a->next;
		}
		tail = &(*tail)->next;
	}
	*tail = a ? a : b;
	return head;
}

/*
 * Bins of merged queues: bin i holds 2^i of them, as a binary counter
 * (lib/list_sort.c sorts so), so that joining k queues of n frames in all
 * takes n log k steps, not n k.  Flows are at most 2^20.
 */
#define EDF_JOIN_BINS	24

/*
 * The frames of @cl's destination queues, the flows from @first on its
 * list @dests up to the first of another class, go back to @cl's one
 * queue; returns the list's next flow (of another class) or NULL.
 */
static struct edf_flow *edf_recn_join_class(struct edf_sched *q,
					    struct edf_flow *first,
					    struct list_head *dests, u64 now)
{
	struct sk_buff *bins[EDF_JOIN_BINS] = { NULL }, *all = NULL, *carry;
	struct edf_class *cl = first->cl;
	struct edf_flow *one = &cl->shared, *f = first, *next;
	unsigned int i, moved = 0;

	list_for_each_entry_from(f, dests, recn_node) {
		if (f->cl != cl)
			break;
		edf_flow_unplace(q, f);
		carry = f->head;
		moved += f->qlen;
		for (i = 0; i < EDF_JOIN_BINS - 1 && bins[i]; i++) {
			carry = edf_skb_merge(bins[i], carry);
			bins[i] = NULL;
		}
		bins[i] = edf_skb_merge(bins[i], carry);
	}
	next = list_entry_is_head(f, dests, recn_node) ? NULL : f;
	for (i = 0; i < EDF_JOIN_BINS; i++)
		all = edf_skb_merge(all, bins[i]);

	/* frames the one queue kept (none while recn was on) go first on a tie */
	if (one->head)
		edf_flow_unplace(q, one);
	else {
		cl->active_flows++;
		if (edf_class_is_besteffort(cl))
			edf_be_wake(&q->be[cl->vc]);
	}
	one->head = edf_skb_merge(one->head, all);
	one->qlen += moved;
	for (one->tail = one->head; one->tail->next; one->tail = one->tail->next)
		;
	edf_flow_place(q, one, now, false);

	/* after the wake, as in edf_recn_split_shared() */
	f = first;
	list_for_each_entry_from(f, dests, recn_node) {
		if (f->cl != cl)
			break;
		f->head = f->tail = NULL;
		f->qlen = 0;
		edf_flow_went_idle(q, f, now);
	}
	return next;
}

static int edf_flow_cmp_class(void *priv, const struct list_head *a,
			      const struct list_head *b)
{
	const struct edf_class *ca = list_entry(a, struct edf_flow, recn_node)->cl;
	const struct edf_class *cb = list_entry(b, struct edf_flow, recn_node)->cl;

	return ca == cb ? 0 : ca < cb ? -1 : 1;
}

/*
 * RECN went off (after edf_recn_untag_all(), so no flow is held or
 * listed): each class without perflow takes the frames of its
 * destinations' queues back into its one queue, in deadline order.  Left
 * apart, a destination's older frames and its newer ones in the one queue
 * would leave by the ready heap's order among equal deadlines, which
 * serves them in turn: in a txtime class, whose frames may share a
 * deadline, the newer would pass the older.  Merged by deadline, each
 * destination's frames keep their order.
 */
void edf_recn_join_dests(struct Qdisc *sch)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct edf_flow *f, *tmp;
	u64 now = ktime_get_ns();
	LIST_HEAD(dests);
	struct rb_node *n;
	unsigned int i;

	if (!q->flows)
		return;
	for (i = 0; i < (1U << EDF_FLOW_BUCKETS_LOG); i++)
		for (n = rb_first(&q->flows[i]); n; n = rb_next(n)) {
			f = rb_entry(n, struct edf_flow, hash_node);
			if (f->dest && f->head && !f->cl->perflow)
				list_add_tail(&f->recn_node, &dests);
		}
	list_sort(NULL, &dests, edf_flow_cmp_class);
	f = list_first_entry_or_null(&dests, struct edf_flow, recn_node);
	while (f)
		f = edf_recn_join_class(q, f, &dests, now);
	list_for_each_entry_safe(f, tmp, &dests, recn_node)
		list_del_init(&f->recn_node);
}

/* Drop every packet of a flow; the caller fixes the tree's backlog. */
void edf_flow_purge(struct Qdisc *sch, struct edf_flow *f,
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
		if (unlikely(q->recn))
			edf_recn_took(q, f, skb);
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

/*
 * Forget the flows in the table of class @cl, or of every class if @cl
 * is NULL, their packets dropped first if @drop (else they have none);
 * not the classes' own flows (shared).  Flows are found by hash alone,
 * so this walks the whole table: only a class's deletion or change of
 * perflow, a reset and teardown ask for it, all under the tree lock,
 * where a list of each class's flows would cost every new flow 16 bytes
 * and a list insertion.  (fq walks all its flows at a reset too.)  The
 * caller fixes the tree's backlog.
 */
void edf_purge_flows(struct Qdisc *sch, struct edf_class *cl, bool drop)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct rb_node *n, *next;
	struct edf_flow *f;
	unsigned int i;

	if (!q->flows)
		return;
	for (i = 0; i < (1U << EDF_FLOW_BUCKETS_LOG); i++) {
		/* the erase leaves the order of the nodes after @n as it was */
		for (n = rb_first(&q->flows[i]); n; n = next) {
			next = rb_next(n);
			f = rb_entry(n, struct edf_flow, hash_node);
			if (cl && f->cl != cl)
				continue;
			if (drop)
				edf_flow_purge(sch, f, NULL);
			edf_flow_free(q, f);
		}
	}
}

/* ---- classes -------------------------------------------------------- */

struct edf_class *edf_find_class(struct Qdisc *sch, u32 classid)
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
void edf_resolve_bands(struct Qdisc *sch)
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

void edf_class_init(struct edf_class *cl, u32 classid)
{
	cl->common.classid = classid;
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
	u64 d, start = now, prev = f->last_deadline;

	/* best-effort clocks run from the VC's frontier (see top) */
	if (edf_class_is_besteffort(cl)) {
		struct edf_be_clock *be = &q->be[cl->vc];

		start = edf_be_start(be, now);
		prev = edf_be_prev(be, prev, f->be_epoch);
		f->be_epoch = be->epoch & EDF_BE_EPOCH_MASK;
	}

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
			d = edf_monotonic(prev,
					  edf_txtime_to_deadline(q, cl, txtime, start, now));
			break;
		}
		d = edf_frame_deadline(prev, start, cl->latency, parts);
		break;
	case TC_EDF_MODE_TXTIME:
		d = txtime ? edf_txtime_to_deadline(q, cl, txtime, start, now) : start;
		d = edf_monotonic(prev, d);
		break;
	default:
		d = edf_vclock_deadline(prev, start, len,
					edf_class_rate(q, cl));
		break;
	}
	/* from the start: a best-effort lead is virtual time (edf_be_clock) */
	d = edf_cap_lead(d, start);
	f->last_deadline = d;
	return d;
}

/* ---- enqueue / dequeue ---------------------------------------------- */

/*
 * Whether @skb with the header fits @dev's MTU: a GSO packet kept whole
 * if its segments each would.  With ttd on, a frame that would not is
 * refused at enqueue; one queued before ttd went on leaves without the
 * header (edf_gets_header()).
 */
static bool edf_header_fits(const struct net_device *dev,
			    const struct sk_buff *skb)
{
	unsigned int room = dev->mtu + dev->hard_header_len;

	if (skb_is_gso(skb))
		return skb_gso_validate_mac_len(skb, room - FABRIC_HDR_LEN);
	return skb->len + FABRIC_HDR_LEN <= room;
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
	struct edf_flow *f, *clock;
	struct edf_skb_cb *cb;
	u32 len = qdisc_pkt_len(skb);

	if (unlikely(sch->q.qlen >= q->limit))
		return edf_drop(skb, sch, cl, TC_EDF_DROP_LIMIT, to_free);
	/* it was the only one: now it has company, in the heaps */
	if (unlikely(q->direct))
		edf_direct_spill(q);
	if (q->ttd && unlikely(!edf_header_fits(qdisc_dev(sch), skb)))
		return edf_drop(skb, sch, cl, TC_EDF_DROP_OVERSIZE, to_free);

	f = edf_flow_lookup(q, cl, skb, now, &clock);
	if (IS_ERR(f))
		return edf_drop(skb, sch, cl, PTR_ERR(f) == -ENOSPC ?
				TC_EDF_DROP_FLOWS : TC_EDF_DROP_NOMEM, to_free);
	if (unlikely(f->qlen >= q->flow_limit))
		return edf_drop(skb, sch, cl, TC_EDF_DROP_FLOW_LIMIT, to_free);

	cb = edf_skb_cb(skb);
	/* a destination queue's deadlines are its class's (edf_flow.dest) */
	cb->deadline = edf_deadline(q, clock, len, parts, txtime, now);
	cb->msg_flags = msg_flags;
	/* recn off as well: RECN going on reads it in every frame queued */
	cb->recn_tag = FABRIC_LINK_RECN_NONE;

	edf_flow_add_skb(f, skb);
	if (f->qlen == 1) {
		/* it stays on q->idle, if it is there: edf_flow_gc() */
		cl->active_flows++;
		if (edf_class_is_besteffort(cl))
			edf_be_wake(&q->be[cl->vc]);
		edf_flow_place(q, f, now, !sch->q.qlen && !q->link);
	}
	if (unlikely(q->recn))
		edf_recn_arrive(sch, cl, f, skb, len);
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

int edf_enqueue(struct sk_buff *skb, struct Qdisc *sch,
		struct sk_buff **to_free)
{
	struct edf_class *cl;
	u64 now, txtime;

	cl = edf_classify(skb, sch);
	if (unlikely(IS_ERR(cl))) {
		__qdisc_drop(skb, to_free);
		if (PTR_ERR(cl) == -EINPROGRESS)
			return NET_XMIT_SUCCESS | __NET_XMIT_STOLEN;
		qdisc_qstats_drop(sch);
		return NET_XMIT_SUCCESS | __NET_XMIT_BYPASS;
	}
	/*
	 * A perflow class keys a forwarded packet by its hash (edf_flow_key()),
	 * which may be a call into the flow dissector: made here, before the
	 * clock is read, while only four values are live across it, the
	 * lookup only reads it (make profile: four values spilled and
	 * reloaded around the call there).
	 */
	if (cl->perflow)
		skb_get_hash(skb);
	now = ktime_get_ns();
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
 * not carry) leaves without it, and so does a frame queued before ttd
 * went on that the header would take over the MTU (edf_push_ttd() asks
 * here first).  Only memory can still fail the push: with credits on,
 * edf_take_credits() makes its room before it counts the frame, and a
 * frame it found none for leaves without the header (EDF_MSG_BARE).
 */
bool edf_gets_header(const struct edf_sched *q, const struct sk_buff *skb)
{
	return q->ttd && skb_headlen(skb) >= ETH_HLEN && skb->dev &&
	       edf_header_fits(skb->dev, skb) &&
	       (!skb_is_gso(skb) || fabric_hdr_gso_whole_ok(skb->dev, skb)) &&
	       fhc_inner_probe_len(ntohs(((const struct ethhdr *)skb->data)->h_proto));
}

#define EDF_CREDITS_TAKEN	BIT(31)	/* edf_take_credits(): @f may go */
#define EDF_CREDITS_TOO_BIG	BIT(30)	/* ... its head never will: drop it */

/*
 * Credits on: take the link's credits for @f's head as it will leave:
 * with the header (its class's VC, 20 bytes more) if it gets one, else
 * on its own header's VC, VC1 without one.  @refused: wire VCs already
 * refused in this dequeue; nothing overtakes a refused head on them.
 * Returns EDF_CREDITS_TAKEN, EDF_CREDITS_TOO_BIG (larger than the peer's
 * whole buffer), or @refused with the head's wire VC added.
 * (By value: a pointer to the caller's local would cost the dequeue a
 * stack canary per packet, credits on or off.)
 */
static unsigned int edf_take_credits(struct edf_sched *q, struct edf_flow *f,
				     unsigned int refused)
{
	struct sk_buff *skb = f->head;
	bool hdr = edf_gets_header(q, skb);
	unsigned int vc;

	/* the push at dequeue must then not fail: the credits say header */
	if (hdr && unlikely((edf_skb_cb(skb)->msg_flags & EDF_MSG_BARE) ||
			    fabric_hdr_make_room(skb))) {
		edf_skb_cb(skb)->msg_flags |= EDF_MSG_BARE;
		hdr = false;
	}
	vc = hdr ? f->cl->vc : fabric_link_skb_vc(q->link, skb);

	if (refused & BIT(vc))
		return refused;
	switch (fabric_link_take(q->link, vc, skb->len + (hdr ? FABRIC_HDR_LEN : 0))) {
	case FABRIC_LINK_GO:
		return EDF_CREDITS_TAKEN;
	case FABRIC_LINK_TOO_BIG:
		return EDF_CREDITS_TOO_BIG;
	default:
		return refused | BIT(vc);
	}
}

static void edf_drop_too_big(struct Qdisc *sch, struct edf_flow *f, u64 now);

/*
 * The flow whose head goes next: the smallest deadline of VC0, else of
 * VC1 (else VC2, VC3).  With credits on, a head the link has no credits
 * for stays, and nothing else on its wire VC overtakes it (without ttd both our VCs go
 * on the wire's VC1), while the other wire VC may go: NULL when neither
 * can, and the link's next credits run us again.
 */
static __always_inline struct edf_flow *edf_pick_flow(struct Qdisc *sch,
						      const bool recn, u64 now)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct edf_recn_look look = { .asked = 0 };
	unsigned int vc, refused = 0, r;
	struct runheap_node *n;
	struct edf_flow *f;

	for (vc = TC_EDF_VC_REGULATED; vc < q->vcs; vc++) {
		while ((n = runheap_peek(&q->ready[vc]))) {
			f = container_of(n, struct edf_flow, heap_node);
			/* a head its SAQ holds back: the flow waits, the VC goes on */
			if (recn && !edf_recn_may_go(q, f, &look)) {
				edf_recn_hold(q, f);
				continue;
			}
			if (!q->link)
				return f;
			r = edf_take_credits(q, f, refused);
			if (r == EDF_CREDITS_TAKEN)
				return f;
			/* each turn drops a packet off the queue: as many as it held */
			if (unlikely(r == EDF_CREDITS_TOO_BIG)) {
				edf_drop_too_big(sch, f, now);
				continue;
			}
			refused = r;
			break;
		}
	}
	return NULL;
}

/*
 * recn on: a count of the queue if one is due, the flows whose SAQs may
 * go back, then the pick.  Out of line, so that the common path keeps
 * its registers.  Flows are held only while recn is on
 * (edf_recn_untag_all()).
 */
static noinline struct edf_flow *edf_pick_flow_recn(struct Qdisc *sch, u64 now)
{
	struct edf_sched *q = qdisc_priv(sch);

	if (edf_recn_recount_due(q) && now >= q->recn_next_ns)
		edf_recn_recount(sch, now);
	if (q->recn_held_flows)
		edf_recn_release(q, now);
	return edf_pick_flow(sch, true, now);
}

static void edf_account_departure(struct edf_sched *q, struct edf_class *cl,
				  u64 deadline, u64 now)
{
	u64 late;

	if (edf_class_is_besteffort(cl))
		edf_be_depart(&q->be[cl->vc], deadline);
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
 * Push the fabric header.  A dequeue never drops: a parent that peeks
 * must not see packets vanish under it.  A packet that cannot carry the
 * header (queued before "ttd on": a frame the header would take over the
 * MTU, or GSO for a device that segments in hardware; an inner type the
 * fabric does not carry; no memory) leaves without it and is counted,
 * as edf_take_credits() counted it (edf_gets_header(), EDF_MSG_BARE).
 */
static noinline void edf_push_ttd(struct Qdisc *sch, struct sk_buff *skb,
			 struct edf_flow *f, u64 deadline, u8 msg_flags, u64 now)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct edf_flow *id = edf_flow_clock(f);
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

	if (unlikely((msg_flags & EDF_MSG_BARE) || !edf_gets_header(q, skb) ||
		     fabric_hdr_push(skb, &fields))) {
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
	/* out of line: the common path keeps its registers */
	if (unlikely(q->recn))
		edf_recn_took(q, f, skb);
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

/*
 * @f's head is larger than the link's peer can ever take: dropped
 * (oversize), so that it does not hold its wire VC for good.
 */
static noinline void edf_drop_too_big(struct Qdisc *sch, struct edf_flow *f, u64 now)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct edf_class *cl = f->cl;

	q->xs.drops[TC_EDF_DROP_OVERSIZE]++;
	cl->xs.drops[TC_EDF_DROP_OVERSIZE]++;
	cl->qstats.drops++;
	fabric_dequeue_drop(sch, edf_take(sch, f, now));
}

/*
 * The bytes a packet of @segs frames puts on the wire, from the Ethernet
 * header on, for the pacer: what the root counted (a GSO packet's headers
 * once per segment, qdisc_pkt_len_init()), and the fabric header,
 * @pushed bytes, on each of its frames.
 */
static u32 edf_wire_len(const struct sk_buff *skb, unsigned int segs,
			unsigned int pushed)
{
	return qdisc_pkt_len(skb) + pushed * max(segs, 1U);
}

static noinline struct sk_buff *edf_dequeue_busy(struct Qdisc *sch)
{
	struct edf_sched *q = qdisc_priv(sch);
	struct edf_skb_cb *cb;
	struct edf_class *cl;
	struct sk_buff *skb;
	struct edf_flow *f;
	struct runheap_node *n;
	unsigned int pushed, segs;
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
		if (likely(!q->recn))
			f = edf_pick_flow(sch, false, now);
		else
			f = edf_pick_flow_recn(sch, now);
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

	pushed = 0;
	if (q->ttd) {
		pushed = skb->len;
		edf_push_ttd(sch, skb, f, cb->deadline, cb->msg_flags, now);
		pushed = skb->len - pushed;
	}
	/* after the push, which still reads the flow; most often nothing is due */
	if (edf_flow_gc_due(q, now))
		edf_flow_gc(q, now);

	/*
	 * A GSO packet kept whole counts its segments, in the class's
	 * counters (its xstats, dump) as in the qdisc's: bstats_update()
	 * twice, its segment count read once.
	 */
	segs = skb_is_gso(skb) ? skb_shinfo(skb)->gso_segs : 1;
	if (q->rate)
		q->next_tx = edf_pacer_next(q->next_tx, now,
					    edf_wire_len(skb, segs, pushed),
					    q->rate);
	_bstats_update(&cl->bstats, qdisc_pkt_len(skb), segs);
	_bstats_update(&sch->bstats, qdisc_pkt_len(skb), segs);
	return skb;
}

/*
 * The second dequeue of every __qdisc_run() finds the qdisc empty: it is
 * answered here, without the busy path's saving of registers.
 */
struct sk_buff *edf_dequeue(struct Qdisc *sch)
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
struct sk_buff *edf_drop_one(struct Qdisc *sch, u64 now)
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
