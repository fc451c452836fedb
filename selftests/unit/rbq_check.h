/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The red-black tree's own rules (kernel/core/rbq.h), checked by walking
 * it: for test_rbq, and for test_runheap, whose run fronts such a tree.
 */
#ifndef FQ_UNIT_RBQ_CHECK_H
#define FQ_UNIT_RBQ_CHECK_H

#include "core/rbq.h"

/*
 * Black height of the subtree at @n, or -1 if it breaks a rule: a red node
 * with a red child, unequal black heights, a child whose parent pointer is
 * wrong, a low bit other than the colour set, or keys out of order.
 */
static inline int rbq_check_subtree(const struct rbq_node *n,
				    const struct rbq_node *parent)
{
	int l, r;

	if (!n)
		return 1;
	if (rbq_parent(n) != parent || (n->parent_red & 6UL))
		return -1;
	if (rbq_is_red(n) && (rbq_is_red(n->left) || rbq_is_red(n->right)))
		return -1;
	if (n->left && n->left->key > n->key)
		return -1;
	if (n->right && n->right->key < n->key)
		return -1;
	l = rbq_check_subtree(n->left, n);
	r = rbq_check_subtree(n->right, n);
	if (l < 0 || r < 0 || l != r)
		return -1;
	return l + !rbq_is_red(n);
}

/*
 * The whole tree's shape: a black root without a parent, the rules below
 * it, the cached first node, the count, and keys not falling in order.
 * 0 when all hold, else which failed (1 to 5).
 */
static inline int rbq_check_shape(const struct rbq *t)
{
	const struct rbq_node *n, *prev = NULL;
	fq_u32 count = 0;

	if (t->root && (rbq_is_red(t->root) || rbq_parent(t->root)))
		return 1;
	if (rbq_check_subtree(t->root, NULL) < 0)
		return 2;
	n = t->root;
	while (n && n->left)
		n = n->left;
	if (n != t->first)
		return 3;
	for (; n; prev = n, n = rbq_next(n), count++)
		if (prev && prev->key > n->key)
			return 4;
	if (count != t->count)
		return 5;
	return 0;
}

#endif /* FQ_UNIT_RBQ_CHECK_H */
