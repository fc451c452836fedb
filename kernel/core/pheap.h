/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An intrusive min pairing heap keyed by a 64-bit time.
 *
 * The schedulers keep heaps over flows, not packets: a flow sits in a heap
 * by the key of its head packet.  An intrusive heap needs no array, so it
 * never allocates on the fast path and never has to be resized when the
 * number of active flows jumps: its memory is the node inside each flow.
 * Insert is O(1), removing the minimum or any node O(log n) amortised.
 *
 * Ties leave in no particular order; callers that need FIFO among equal
 * keys must make keys unique.
 */
#ifndef FQ_PHEAP_H
#define FQ_PHEAP_H

#include "core_types.h"

struct pheap_node {
	struct pheap_node *child;	/* first child */
	struct pheap_node *next;	/* next sibling */
	struct pheap_node *prev;	/* previous sibling, or parent if first */
	fq_u64 key;
};

struct pheap {
	struct pheap_node *root;
	fq_u32 count;
};

static inline void pheap_init(struct pheap *h)
{
	h->root = NULL;
	h->count = 0;
}

static inline bool pheap_is_empty(const struct pheap *h)
{
	return !h->root;
}

static inline struct pheap_node *pheap_peek(const struct pheap *h)
{
	return h->root;
}

/* Link two detached roots; the larger becomes the first child. */
static inline struct pheap_node *pheap_meld(struct pheap_node *a,
					    struct pheap_node *b)
{
	struct pheap_node *t;

	if (!a)
		return b;
	if (!b)
		return a;
	if (b->key < a->key) {
		t = a;
		a = b;
		b = t;
	}
	b->prev = a;
	b->next = a->child;
	if (a->child)
		a->child->prev = b;
	a->child = b;
	a->next = NULL;
	a->prev = NULL;
	return a;
}

/* Two-pass pairing of a sibling list into one tree. */
static inline struct pheap_node *pheap_merge_pairs(struct pheap_node *first)
{
	struct pheap_node *pairs = NULL, *a = first, *b, *rest, *m, *res = NULL;

	/* left to right: meld neighbours, stack the results */
	while (a) {
		b = a->next;
		if (!b) {
			a->prev = NULL;
			a->next = pairs;
			pairs = a;
			break;
		}
		rest = b->next;
		a->next = a->prev = NULL;
		b->next = b->prev = NULL;
		m = pheap_meld(a, b);
		m->next = pairs;
		pairs = m;
		a = rest;
	}
	/* right to left: fold the stack into one tree */
	while (pairs) {
		m = pairs;
		pairs = pairs->next;
		m->next = NULL;
		res = pheap_meld(res, m);
	}
	return res;
}

static inline void pheap_insert(struct pheap *h, struct pheap_node *n,
				fq_u64 key)
{
	n->key = key;
	n->child = n->next = n->prev = NULL;
	h->root = pheap_meld(h->root, n);
	h->count++;
}

static inline struct pheap_node *pheap_pop(struct pheap *h)
{
	struct pheap_node *r = h->root;

	if (!r)
		return NULL;
	h->root = pheap_merge_pairs(r->child);
	r->child = r->next = r->prev = NULL;
	h->count--;
	return r;
}

/* Remove any node that is in @h. */
static inline void pheap_remove(struct pheap *h, struct pheap_node *n)
{
	struct pheap_node *sub;

	if (n == h->root) {
		pheap_pop(h);
		return;
	}
	if (n->prev->child == n)
		n->prev->child = n->next;
	else
		n->prev->next = n->next;
	if (n->next)
		n->next->prev = n->prev;
	sub = pheap_merge_pairs(n->child);
	n->child = n->next = n->prev = NULL;
	h->root = pheap_meld(h->root, sub);
	h->count--;
}

/* Give a node in @h a new key. */
static inline void pheap_update(struct pheap *h, struct pheap_node *n,
				fq_u64 key)
{
	pheap_remove(h, n);
	pheap_insert(h, n, key);
}

#endif /* FQ_PHEAP_H */
