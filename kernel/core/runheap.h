/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A min priority queue of 64-bit keys: a sorted run in front of a
 * red-black tree (rbq.h).
 *
 * A key at or above the run's last one joins the run's tail, in O(1); any
 * other goes into the tree.  The minimum is the smaller of the run's head
 * and the tree's first node.  Deadline schedulers insert mostly in key
 * order: a flow that leaves the queue comes back with its next deadline,
 * which under a virtual clock at equal rates, or on a link that keeps up,
 * is above every other flow's.  Those then never touch the tree.  Keys out
 * of order (flows of different rates, SO_TXTIME, a flow whose next packet
 * came in among other flows' packets) cost the tree's O(log n) in the
 * worst case, not only amortised: a pairing heap, which this used before,
 * costs less to insert into but about three times as much per removal
 * when most keys go through it, and can take O(n) in one removal after a
 * burst of inserts (Documentation/benchmarks.rst, "edf: out of order").
 *
 * Intrusive, as the tree: no allocation.  Ties leave in no particular
 * order between the two parts; within each they leave in order of
 * insertion.
 *
 * A node in the run links through the tree node's left (previous) and
 * right (next), and marks its membership with RUNHEAP_IN_RUN in
 * parent_red, a bit the tree never sets: no flag of its own, so that a
 * node is the tree node's 32 bytes (edf keeps one per flow, and every
 * byte of a flow is zeroed when a flow is made).
 */
#ifndef FQ_RUNHEAP_H
#define FQ_RUNHEAP_H

#include "rbq.h"

struct runheap_node {
	struct rbq_node rn;	/* key; in the run, left and right link it */
};

/* rn.parent_red of a node in the run: bit 1, never set by the tree */
#define RUNHEAP_IN_RUN	2UL

/* Whether @n, in a runheap, is in its run (else in its tree). */
static fq_always_inline bool runheap_in_run(const struct runheap_node *n)
{
	return n->rn.parent_red == RUNHEAP_IN_RUN;
}

/* The run's neighbours of @n, which is in the run. */
static fq_always_inline struct runheap_node *
runheap_run_next(const struct runheap_node *n)
{
	return (struct runheap_node *)n->rn.right;
}

static fq_always_inline struct runheap_node *
runheap_run_prev(const struct runheap_node *n)
{
	return (struct runheap_node *)n->rn.left;
}

struct runheap {
	struct rbq tree;
	struct runheap_node *run_head, *run_tail;
	fq_u32 count;		/* in the run and the tree */
};

static inline void runheap_init(struct runheap *h)
{
	rbq_init(&h->tree);
	h->run_head = h->run_tail = NULL;
	h->count = 0;
}

static inline bool runheap_is_empty(const struct runheap *h)
{
	return !h->run_head && !rbq_first(&h->tree);
}

static inline fq_u64 runheap_key(const struct runheap_node *n)
{
	return n->rn.key;
}

static fq_always_inline struct runheap_node *
runheap_peek(const struct runheap *h)
{
	struct runheap_node *r = h->run_head;
	struct rbq_node *p = rbq_first(&h->tree);

	if (!p || (r && r->rn.key <= p->key))
		return r;
	return (struct runheap_node *)p;
}

/* Take @n out of the run. */
static fq_always_inline void runheap_unlink(struct runheap *h,
					   struct runheap_node *n)
{
	struct runheap_node *prev = runheap_run_prev(n);
	struct runheap_node *next = runheap_run_next(n);

	if (prev)
		prev->rn.right = n->rn.right;
	else
		h->run_head = next;
	if (next)
		next->rn.left = n->rn.left;
	else
		h->run_tail = prev;
	n->rn.left = n->rn.right = NULL;
	n->rn.parent_red = 0;
}

/* @n at the run's tail, with @key at or above the tail's. */
static fq_always_inline void runheap_append(struct runheap *h,
					   struct runheap_node *n, fq_u64 key)
{
	struct runheap_node *t = h->run_tail;

	n->rn.key = key;
	n->rn.parent_red = RUNHEAP_IN_RUN;
	n->rn.right = NULL;
	n->rn.left = t ? &t->rn : NULL;
	if (t)
		t->rn.right = &n->rn;
	else
		h->run_head = n;
	h->run_tail = n;
}

static fq_always_inline void runheap_insert(struct runheap *h,
					   struct runheap_node *n, fq_u64 key)
{
	struct runheap_node *t = h->run_tail;

	h->count++;
	if (t && key < t->rn.key) {
		struct runheap_node *before = runheap_run_prev(t);

		if (before && key < before->rn.key) {
			rbq_insert(&h->tree, &n->rn, key);
			return;
		}
		/*
		 * Below the tail only: the tail goes to the tree instead, so
		 * that one key far ahead (a slow flow's) does not send every
		 * key after it to the tree.
		 */
		runheap_unlink(h, t);
		rbq_insert(&h->tree, &t->rn, t->rn.key);
	}
	runheap_append(h, n, key);
}

/* Remove any node that is in @h. */
static fq_always_inline void runheap_remove(struct runheap *h,
					   struct runheap_node *n)
{
	h->count--;
	if (runheap_in_run(n))
		runheap_unlink(h, n);
	else
		rbq_erase(&h->tree, &n->rn);
}

/*
 * @n, in @h, takes the later key @key (a flow's next head: its deadlines
 * never go back).  The run's tail takes it where it is; the run's head,
 * if the key goes at or after the tail, moves to the tail in one step
 * (a backlogged flow of one rate leaves and comes back that way); any
 * other node is taken out and put back in.
 */
static fq_always_inline void runheap_requeue(struct runheap *h,
					    struct runheap_node *n, fq_u64 key)
{
	struct runheap_node *t = h->run_tail;

	if (runheap_in_run(n) && key >= n->rn.key) {
		if (n == t) {
			n->rn.key = key;
			return;
		}
		if (n == h->run_head && key >= t->rn.key) {
			struct runheap_node *next = runheap_run_next(n);

			h->run_head = next;
			next->rn.left = NULL;
			runheap_append(h, n, key);
			return;
		}
	}
	runheap_remove(h, n);
	runheap_insert(h, n, key);
}

static fq_always_inline struct runheap_node *
runheap_pop(struct runheap *h)
{
	struct runheap_node *n = runheap_peek(h);

	if (n)
		runheap_remove(h, n);
	return n;
}

#endif /* FQ_RUNHEAP_H */
