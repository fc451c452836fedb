/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A sorted queue: an intrusive red-black tree keyed by a 64-bit time.
 *
 * The switch's fully sorted buffer ("ideal") needs a queue whose every
 * operation stays cheap whatever the arrivals: frames arrive with any
 * deadline, possibly each one earlier than all the others, so a sorted
 * list costs a walk of the whole buffer per frame, in softirq, under the
 * port lock.  A red-black tree bounds the work of insert and erase by its
 * height, at most 2 log2(n + 1) for n nodes, in the worst case and not
 * only on average (a pairing heap's pop can take O(n) once).
 *
 * Equal keys leave in insertion order: an insert descends right past every
 * equal key, so in-order position follows arrival among ties.  The
 * leftmost node (the next to leave) is cached, so peeking costs nothing.
 * Nodes live in the caller's packet descriptors; nothing here allocates.
 *
 * @compares counts the key comparisons made by inserts (one per level
 * descended), so tests can check the cost without a clock.
 */
#ifndef FQ_RBQ_H
#define FQ_RBQ_H

#include "core_types.h"

struct rbq_node {
	struct rbq_node	*left;
	struct rbq_node	*right;
	struct rbq_node	*parent;
	fq_u64		key;
	bool		red;
};

struct rbq {
	struct rbq_node	*root;
	struct rbq_node	*first;		/* leftmost: smallest key, oldest tie */
	fq_u32		count;
	fq_u64		compares;	/* by inserts, since rbq_init() */
};

static inline void rbq_init(struct rbq *t)
{
	t->root = NULL;
	t->first = NULL;
	t->count = 0;
	t->compares = 0;
}

static inline struct rbq_node *rbq_first(const struct rbq *t)
{
	return t->first;
}

/* The node after @n in key order (ties in insertion order), or NULL. */
static inline struct rbq_node *rbq_next(const struct rbq_node *n)
{
	const struct rbq_node *p;

	if (n->right) {
		n = n->right;
		while (n->left)
			n = n->left;
		return (struct rbq_node *)n;
	}
	while ((p = n->parent) && n == p->right)
		n = p;
	return (struct rbq_node *)p;
}

/* Make @new take @old's place under @parent (or at the root). */
static inline void rbq_replace_child(struct rbq *t, struct rbq_node *parent,
				     struct rbq_node *old, struct rbq_node *new)
{
	if (!parent)
		t->root = new;
	else if (parent->left == old)
		parent->left = new;
	else
		parent->right = new;
}

static inline void rbq_rotate_left(struct rbq *t, struct rbq_node *x)
{
	struct rbq_node *y = x->right;

	x->right = y->left;
	if (y->left)
		y->left->parent = x;
	y->parent = x->parent;
	rbq_replace_child(t, x->parent, x, y);
	y->left = x;
	x->parent = y;
}

static inline void rbq_rotate_right(struct rbq *t, struct rbq_node *x)
{
	struct rbq_node *y = x->left;

	x->left = y->right;
	if (y->right)
		y->right->parent = x;
	y->parent = x->parent;
	rbq_replace_child(t, x->parent, x, y);
	y->right = x;
	x->parent = y;
}

static inline bool rbq_is_red(const struct rbq_node *n)
{
	return n && n->red;
}

static inline void rbq_insert_fixup(struct rbq *t, struct rbq_node *z)
{
	struct rbq_node *p, *g, *u;

	while ((p = z->parent) && p->red) {
		g = p->parent;		/* p is red, so not the root */
		if (p == g->left) {
			u = g->right;
			if (rbq_is_red(u)) {
				p->red = false;
				u->red = false;
				g->red = true;
				z = g;
				continue;
			}
			if (z == p->right) {
				rbq_rotate_left(t, p);
				z = p;
				p = z->parent;
			}
			p->red = false;
			g->red = true;
			rbq_rotate_right(t, g);
		} else {
			u = g->left;
			if (rbq_is_red(u)) {
				p->red = false;
				u->red = false;
				g->red = true;
				z = g;
				continue;
			}
			if (z == p->left) {
				rbq_rotate_right(t, p);
				z = p;
				p = z->parent;
			}
			p->red = false;
			g->red = true;
			rbq_rotate_left(t, g);
		}
	}
	t->root->red = false;
}

/* Queue @n with @key behind every node whose key is not larger. */
static inline void rbq_insert(struct rbq *t, struct rbq_node *n, fq_u64 key)
{
	struct rbq_node **link = &t->root, *parent = NULL;
	bool leftmost = true;
	fq_u32 depth = 0;

	while (*link) {
		parent = *link;
		depth++;
		if (key < parent->key) {
			link = &parent->left;
		} else {
			link = &parent->right;
			leftmost = false;
		}
	}
	t->compares += depth;
	n->key = key;
	n->left = NULL;
	n->right = NULL;
	n->parent = parent;
	n->red = true;
	*link = n;
	if (leftmost)
		t->first = n;
	t->count++;
	rbq_insert_fixup(t, n);
}

/* Put @v (possibly NULL) where @u is. */
static inline void rbq_transplant(struct rbq *t, struct rbq_node *u,
				  struct rbq_node *v)
{
	rbq_replace_child(t, u->parent, u, v);
	if (v)
		v->parent = u->parent;
}

/* @x (possibly NULL, child of @xp) is one black short: repair. */
static inline void rbq_erase_fixup(struct rbq *t, struct rbq_node *x,
				   struct rbq_node *xp)
{
	struct rbq_node *w;

	while (x != t->root && !rbq_is_red(x)) {
		/* x's sibling exists: its side is at least one black high */
		if (x == xp->left) {
			w = xp->right;
			if (w->red) {
				w->red = false;
				xp->red = true;
				rbq_rotate_left(t, xp);
				w = xp->right;
			}
			if (!rbq_is_red(w->left) && !rbq_is_red(w->right)) {
				w->red = true;
				x = xp;
				xp = x->parent;
				continue;
			}
			if (!rbq_is_red(w->right)) {
				w->left->red = false;
				w->red = true;
				rbq_rotate_right(t, w);
				w = xp->right;
			}
			w->red = xp->red;
			xp->red = false;
			w->right->red = false;
			rbq_rotate_left(t, xp);
		} else {
			w = xp->left;
			if (w->red) {
				w->red = false;
				xp->red = true;
				rbq_rotate_right(t, xp);
				w = xp->left;
			}
			if (!rbq_is_red(w->left) && !rbq_is_red(w->right)) {
				w->red = true;
				x = xp;
				xp = x->parent;
				continue;
			}
			if (!rbq_is_red(w->left)) {
				w->right->red = false;
				w->red = true;
				rbq_rotate_left(t, w);
				w = xp->left;
			}
			w->red = xp->red;
			xp->red = false;
			w->left->red = false;
			rbq_rotate_right(t, xp);
		}
		x = t->root;
	}
	if (x)
		x->red = false;
}

/* Take @n, which is in @t, out of it. */
static inline void rbq_erase(struct rbq *t, struct rbq_node *n)
{
	struct rbq_node *y, *x, *xp;
	bool removed_red;

	if (t->first == n)
		t->first = rbq_next(n);
	if (!n->left || !n->right) {
		/* at most one child: it takes n's place */
		x = n->left ? n->left : n->right;
		xp = n->parent;
		removed_red = n->red;
		rbq_transplant(t, n, x);
	} else {
		/* two children: n's successor y moves into n's place */
		y = n->right;
		while (y->left)
			y = y->left;
		removed_red = y->red;
		x = y->right;
		if (y->parent == n) {
			xp = y;
		} else {
			xp = y->parent;
			rbq_transplant(t, y, y->right);
			y->right = n->right;
			y->right->parent = y;
		}
		rbq_transplant(t, n, y);
		y->left = n->left;
		y->left->parent = y;
		y->red = n->red;
	}
	n->left = NULL;
	n->right = NULL;
	n->parent = NULL;
	t->count--;
	if (!removed_red)
		rbq_erase_fixup(t, x, xp);
}

/* Remove and return the first node, or NULL. */
static inline struct rbq_node *rbq_pop(struct rbq *t)
{
	struct rbq_node *n = t->first;

	if (n)
		rbq_erase(t, n);
	return n;
}

#endif /* FQ_RBQ_H */
