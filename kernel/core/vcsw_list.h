/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The soft switch's queued frame (struct vcsw_node, embedded by the caller
 * in its own descriptor, so nothing here allocates) and the doubly linked
 * FIFO its buffers are made of: shared by vcsw_port.h, vcsw_recn.h and
 * vcsw_xbar.h.
 */
#ifndef FQ_VCSW_LIST_H
#define FQ_VCSW_LIST_H

#include "core_types.h"
#include "pheap.h"
#include "rbq.h"

struct vcsw_node {
	union {
		struct {			/* fifo, takeover: a list */
			struct vcsw_node	*next;
			struct vcsw_node	*prev;
		};
		struct rbq_node		rb;	/* ideal: key deadline */
	};
	struct pheap_node	heap;		/* key: deadline */
	fq_u64			deadline;
	fq_u64			enq_ns;
	fq_u32			len;
	fq_u16			out;		/* output port (vcsw_xbar.h) */
	fq_u8			vc;
	bool			in_takeover;	/* in U (takeover mode) */
	bool			timed;		/* deadline from a header */
	/* RECN (vcsw_recn.h) */
	fq_u8			sl;		/* service level */
	fq_u8			from;		/* input port, or RECN_NO_UPSTREAM */
	fq_u8			rq_q;		/* its queue in the set */
	fq_u32			route;		/* as its input saw it; 0: none */
	fq_u32			rq_seq;		/* frames its queue had taken before it */
};

/* A doubly linked FIFO of nodes. */
struct vcsw_list {
	struct vcsw_node	*head;
	struct vcsw_node	*tail;
	fq_u32			count;
};

/* ---- lists ----------------------------------------------------------------- */

static inline void vcsw_list_init(struct vcsw_list *l)
{
	l->head = NULL;
	l->tail = NULL;
	l->count = 0;
}

static inline void vcsw_list_insert_after(struct vcsw_list *l,
					  struct vcsw_node *pos,
					  struct vcsw_node *n)
{
	n->prev = pos;
	n->next = pos ? pos->next : l->head;
	if (n->next)
		n->next->prev = n;
	else
		l->tail = n;
	if (pos)
		pos->next = n;
	else
		l->head = n;
	l->count++;
}

static inline void vcsw_list_append(struct vcsw_list *l, struct vcsw_node *n)
{
	vcsw_list_insert_after(l, l->tail, n);
}

static inline void vcsw_list_unlink(struct vcsw_list *l, struct vcsw_node *n)
{
	if (n->prev)
		n->prev->next = n->next;
	else
		l->head = n->next;
	if (n->next)
		n->next->prev = n->prev;
	else
		l->tail = n->prev;
	n->next = NULL;
	n->prev = NULL;
	l->count--;
}

/* The node that embeds @r. */
static inline struct vcsw_node *vcsw_node_of_rb(const struct rbq_node *r)
{
	return (struct vcsw_node *)((char *)r - offsetof(struct vcsw_node, rb));
}

#endif /* FQ_VCSW_LIST_H */
