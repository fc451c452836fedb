/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A min priority queue of 64-bit keys: a sorted run in front of a pairing
 * heap (pheap.h).
 *
 * A key at or above the run's last one joins the run's tail, in O(1); any
 * other goes into the heap.  The minimum is the smaller of the run's head
 * and the heap's root.  Deadline schedulers insert mostly in key order:
 * a flow that leaves the queue comes back with its next deadline, which
 * under a virtual clock at equal rates, or on a link that keeps up, is
 * above every other flow's.  Those then never touch the heap, whose
 * removal of the minimum costs O(log n) amortised, growing with the
 * number of flows; keys out of order (flows of different rates, SO_TXTIME)
 * still cost what the heap costs.
 *
 * Intrusive, as the heap: no allocation.  Ties leave in no particular
 * order between the two parts; within the run they leave in order of
 * insertion.
 *
 * A node in the run links through the heap node's next and prev, and
 * marks its membership in child, which only the heap uses: no flag of its
 * own, so that a node is the heap node's 32 bytes (edf keeps one per
 * flow, and every byte of a flow is zeroed when a flow is made).
 */
#ifndef FQ_RUNHEAP_H
#define FQ_RUNHEAP_H

#include "pheap.h"

struct runheap_node {
	/* first: the heap's roots convert back by a cast */
	struct pheap_node hn;	/* key; in the run, next and prev link it
				 * and child is RUNHEAP_IN_RUN */
};

/* hn.child of a node in the run: never a node's address */
#define RUNHEAP_IN_RUN	((struct pheap_node *)1UL)

/* Whether @n, in a runheap, is in its run (else in its heap). */
static fq_always_inline bool runheap_in_run(const struct runheap_node *n)
{
	return n->hn.child == RUNHEAP_IN_RUN;
}

struct runheap {
	struct pheap heap;
	struct runheap_node *run_head, *run_tail;
	fq_u32 count;		/* in the run and the heap */
};

static inline void runheap_init(struct runheap *h)
{
	pheap_init(&h->heap);
	h->run_head = h->run_tail = NULL;
	h->count = 0;
}

static inline bool runheap_is_empty(const struct runheap *h)
{
	return !h->run_head && pheap_is_empty(&h->heap);
}

static inline fq_u64 runheap_key(const struct runheap_node *n)
{
	return n->hn.key;
}

static fq_always_inline struct runheap_node *
runheap_peek(const struct runheap *h)
{
	struct runheap_node *r = h->run_head;
	struct pheap_node *p = pheap_peek(&h->heap);

	if (!p || (r && r->hn.key <= p->key))
		return r;
	return (struct runheap_node *)p;
}

/* Take @n out of the run. */
static fq_always_inline void runheap_unlink(struct runheap *h,
					   struct runheap_node *n)
{
	struct runheap_node *prev, *next;

	prev = (struct runheap_node *)n->hn.prev;
	next = (struct runheap_node *)n->hn.next;
	if (prev)
		prev->hn.next = n->hn.next;
	else
		h->run_head = next;
	if (next)
		next->hn.prev = n->hn.prev;
	else
		h->run_tail = prev;
	n->hn.child = n->hn.next = n->hn.prev = NULL;
}

static fq_always_inline void runheap_insert(struct runheap *h,
					   struct runheap_node *n, fq_u64 key)
{
	struct runheap_node *t = h->run_tail;

	h->count++;
	if (t && key < t->hn.key) {
		struct pheap_node *before = t->hn.prev;

		if (before && key < before->key) {
			pheap_insert(&h->heap, &n->hn, key);
			return;
		}
		/*
		 * Below the tail only: the tail goes to the heap instead, so
		 * that one key far ahead (a slow flow's) does not send every
		 * key after it to the heap.
		 */
		runheap_unlink(h, t);
		pheap_insert(&h->heap, &t->hn, t->hn.key);
		t = h->run_tail;
	}
	n->hn.key = key;
	n->hn.child = RUNHEAP_IN_RUN;
	n->hn.next = NULL;
	n->hn.prev = t ? &t->hn : NULL;
	if (t)
		t->hn.next = &n->hn;
	else
		h->run_head = n;
	h->run_tail = n;
}

/* Remove any node that is in @h. */
static fq_always_inline void runheap_remove(struct runheap *h,
					   struct runheap_node *n)
{
	h->count--;
	if (runheap_in_run(n))
		runheap_unlink(h, n);
	else
		pheap_remove(&h->heap, &n->hn);
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

	if (runheap_in_run(n) && key >= n->hn.key) {
		if (n == t) {
			n->hn.key = key;
			return;
		}
		if (n == h->run_head && key >= t->hn.key) {
			struct runheap_node *next = (struct runheap_node *)n->hn.next;

			h->run_head = next;
			next->hn.prev = NULL;
			n->hn.key = key;
			n->hn.next = NULL;
			n->hn.prev = &t->hn;
			t->hn.next = &n->hn;
			h->run_tail = n;
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
