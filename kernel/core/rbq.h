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
 */
#ifndef FQ_RBQ_H
#define FQ_RBQ_H

#include "core_types.h"

/*
 * The colour is the low bit of the parent's address (nodes are at least
 * pointer-aligned), so that a node is 32 bytes: runheap.h puts one in each
 * of edf's flows, and every byte of a flow is zeroed when it is made.  A
 * zeroed node is black with no parent.  Bit 1 is never set by the tree:
 * runheap.h marks the nodes of its run with it.
 */
struct rbq_node {
	struct rbq_node	*left;
	struct rbq_node	*right;
	unsigned long	parent_red;	/* parent's address | RBQ_RED */
	fq_u64		key;
};

#define RBQ_RED		1UL

static fq_always_inline struct rbq_node *rbq_parent(const struct rbq_node *n)
{
	return (struct rbq_node *)(n->parent_red & ~RBQ_RED);
}

static fq_always_inline void rbq_set_parent(struct rbq_node *n,
					    struct rbq_node *p)
{
	n->parent_red = (unsigned long)p | (n->parent_red & RBQ_RED);
}

static fq_always_inline bool rbq_is_red(const struct rbq_node *n)
{
	return n && (n->parent_red & RBQ_RED);
}

static fq_always_inline void rbq_set_red(struct rbq_node *n, bool red)
{
	n->parent_red = (n->parent_red & ~RBQ_RED) | (red ? RBQ_RED : 0);
}

struct rbq {
	struct rbq_node	*root;
	struct rbq_node	*first;		/* leftmost: smallest key, oldest tie */
	fq_u32		count;
};

static inline void rbq_init(struct rbq *t)
{
	t->root = NULL;
	t->first = NULL;
	t->count = 0;
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
	while ((p = rbq_parent(n)) && n == p->right)
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

/*
 * The fixups below restructure with the colours they know instead of
 * generic rotations and colour setters: a node known to be black gets its
 * parent word written whole, and a double rotation moves the inner node
 * up in one step.  edf pays an insert and an erase at every packet whose
 * flow comes back out of order; this took a quarter off their
 * instructions (Documentation/benchmarks.rst, "The tree's rebalance").
 * The insert's two mirrored halves are written out: choosing each link's
 * side at run time cost 10 instructions a packet more in core_cost's
 * edf-shuffled.
 */

/* Put @top, black, where @old was under @parent (or at the root). */
static fq_always_inline void rbq_raise_black(struct rbq *t,
					     struct rbq_node *parent,
					     struct rbq_node *old,
					     struct rbq_node *top)
{
	top->parent_red = (unsigned long)parent;
	rbq_replace_child(t, parent, old, top);
}

/* @c (possibly NULL) now hangs under @p; it keeps its colour. */
static fq_always_inline void rbq_adopt(struct rbq_node *c, struct rbq_node *p)
{
	if (c)
		rbq_set_parent(c, p);
}

/*
 * @z is red and linked; restore the rules.  While its parent is red, a
 * red uncle lets the colours flip and the problem move two levels up;
 * a black one ends it with one rotation (z outer) or two (z inner: z
 * itself goes up to the grandparent's place).
 */
static inline void rbq_insert_fixup(struct rbq *t, struct rbq_node *z)
{
	struct rbq_node *p, *g, *u, *top;

	for (;;) {
		p = rbq_parent(z);
		if (!p) {
			z->parent_red = 0;		/* the root is black */
			return;
		}
		if (!(p->parent_red & RBQ_RED))
			return;
		g = rbq_parent(p);		/* p is red: g exists, black */
		u = p == g->left ? g->right : g->left;
		if (rbq_is_red(u)) {
			p->parent_red = (unsigned long)g;
			u->parent_red = (unsigned long)g;
			g->parent_red |= RBQ_RED;
			z = g;
			continue;
		}
		if (p == g->left) {
			if (z == p->right) {
				p->right = z->left;
				rbq_adopt(p->right, p);
				g->left = z->right;
				rbq_adopt(g->left, g);
				z->left = p;
				p->parent_red = (unsigned long)z | RBQ_RED;
				z->right = g;
				top = z;
			} else {
				g->left = p->right;
				rbq_adopt(g->left, g);
				p->right = g;
				top = p;
			}
		} else {
			if (z == p->left) {
				p->left = z->right;
				rbq_adopt(p->left, p);
				g->right = z->left;
				rbq_adopt(g->right, g);
				z->right = p;
				p->parent_red = (unsigned long)z | RBQ_RED;
				z->left = g;
				top = z;
			} else {
				g->right = p->left;
				rbq_adopt(g->right, g);
				p->left = g;
				top = p;
			}
		}
		/* g was black, so its parent word is its parent's address */
		rbq_raise_black(t, (struct rbq_node *)g->parent_red, g, top);
		g->parent_red = (unsigned long)top | RBQ_RED;
		return;
	}
}

/*
 * Queue @n with @key behind every node whose key is not larger.  The
 * descent keeps no flag of its own: @n is leftmost only if it went left at
 * every level, which ends it under the old leftmost node.
 */
static inline void rbq_insert(struct rbq *t, struct rbq_node *n, fq_u64 key)
{
	struct rbq_node **link = &t->root, *parent = NULL;

	while (*link) {
		parent = *link;
		link = key < parent->key ? &parent->left : &parent->right;
	}
	n->key = key;
	n->left = NULL;
	n->right = NULL;
	n->parent_red = (unsigned long)parent | RBQ_RED;
	*link = n;
	if (!parent || (parent == t->first && link == &parent->left))
		t->first = n;
	t->count++;
	rbq_insert_fixup(t, n);
}

/*
 * The key comparisons an insert of @key would make now: one per level it
 * descends, the way rbq_insert() goes.  Not on any fast path: tests check
 * the tree's cost with it, without a clock.
 */
static inline fq_u32 rbq_insert_depth(const struct rbq *t, fq_u64 key)
{
	const struct rbq_node *n = t->root;
	fq_u32 depth = 0;

	for (; n; depth++)
		n = key < n->key ? n->left : n->right;
	return depth;
}

/* Put @v (possibly NULL) where @u is. */
static inline void rbq_transplant(struct rbq *t, struct rbq_node *u,
				  struct rbq_node *v)
{
	rbq_replace_child(t, rbq_parent(u), u, v);
	if (v)
		rbq_set_parent(v, rbq_parent(u));
}

/*
 * @x (possibly NULL, child of @xp) is one black short: repair.  Its
 * sibling w exists (its side is at least one black high).  A red w is
 * rotated above xp first, so that x's new sibling is black.  A black w
 * with no red child turns red and the shortage moves up to xp.  Else a
 * red nephew ends it: the far one by w taking xp's place, the near one
 * by itself taking it (the double rotation in one step), in xp's colour
 * with both below it black.
 */
static inline void rbq_erase_fixup(struct rbq *t, struct rbq_node *x,
				   struct rbq_node *xp)
{
	struct rbq_node *w, *near, *far, *gp, *top;
	bool left;

	while (x != t->root && !rbq_is_red(x)) {
		left = x == xp->left;
		w = left ? xp->right : xp->left;
		if (w->parent_red & RBQ_RED) {
			/* xp is black, w's children black and present */
			gp = (struct rbq_node *)xp->parent_red;
			if (left) {
				near = w->left;
				xp->right = near;
				w->left = xp;
			} else {
				near = w->right;
				xp->left = near;
				w->right = xp;
			}
			/* near, the new w, gets its parent word below */
			xp->parent_red = (unsigned long)w | RBQ_RED;
			rbq_raise_black(t, gp, xp, w);
			w = near;
		}
		near = left ? w->left : w->right;
		far = left ? w->right : w->left;
		if (rbq_is_red(far)) {
			if (left) {
				xp->right = near;
				w->left = xp;
			} else {
				xp->left = near;
				w->right = xp;
			}
			rbq_adopt(near, xp);
			far->parent_red = (unsigned long)w;
			top = w;
		} else if (rbq_is_red(near)) {
			if (left) {
				xp->right = near->left;
				rbq_adopt(xp->right, xp);
				w->left = near->right;
				rbq_adopt(w->left, w);
				near->left = xp;
				near->right = w;
			} else {
				xp->left = near->right;
				rbq_adopt(xp->left, xp);
				w->right = near->left;
				rbq_adopt(w->right, w);
				near->right = xp;
				near->left = w;
			}
			w->parent_red = (unsigned long)near;
			top = near;
		} else {
			w->parent_red = (unsigned long)xp | RBQ_RED;
			x = xp;
			xp = rbq_parent(x);
			continue;
		}
		/* top takes xp's place and colour; xp goes black below it */
		gp = rbq_parent(xp);
		top->parent_red = xp->parent_red;
		rbq_replace_child(t, gp, xp, top);
		xp->parent_red = (unsigned long)top;
		return;
	}
	if (x)
		x->parent_red &= ~RBQ_RED;
}

/*
 * Take out the first node @n, the one a queue takes most: it has no left
 * child, so its right subtree is black-height 0, a red leaf or nothing.
 * That leaf (else the parent) is the next first, and takes @n's place.
 * Only for @n == t->first: reached through rbq_erase() and rbq_pop().
 */
static inline void rbq_erase_first(struct rbq *t, struct rbq_node *n)
{
	struct rbq_node *x = n->right, *xp = rbq_parent(n);
	bool removed_red = rbq_is_red(n);

	if (xp)
		xp->left = x;
	else
		t->root = x;
	t->first = x ? x : xp;
	n->right = NULL;
	n->parent_red = 0;
	t->count--;
	if (x) {
		x->parent_red = (unsigned long)xp;	/* black now */
		return;
	}
	if (!removed_red)
		rbq_erase_fixup(t, NULL, xp);
}

/* Take @n, which is in @t, out of it. */
static inline void rbq_erase(struct rbq *t, struct rbq_node *n)
{
	struct rbq_node *y, *x, *xp;
	bool removed_red;

	if (t->first == n) {
		rbq_erase_first(t, n);
		return;
	}
	if (!n->left || !n->right) {
		/* at most one child: it takes n's place */
		x = n->left ? n->left : n->right;
		xp = rbq_parent(n);
		removed_red = rbq_is_red(n);
		rbq_transplant(t, n, x);
	} else {
		/* two children: n's successor y moves into n's place */
		y = n->right;
		while (y->left)
			y = y->left;
		removed_red = rbq_is_red(y);
		x = y->right;
		if (rbq_parent(y) == n) {
			xp = y;
		} else {
			xp = rbq_parent(y);
			rbq_transplant(t, y, y->right);
			y->right = n->right;
			rbq_set_parent(y->right, y);
		}
		rbq_transplant(t, n, y);
		y->left = n->left;
		rbq_set_parent(y->left, y);
		rbq_set_red(y, rbq_is_red(n));
	}
	n->left = NULL;
	n->right = NULL;
	n->parent_red = 0;
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
