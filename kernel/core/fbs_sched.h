/* SPDX-License-Identifier: GPL-2.0 */
/*
 * FBS slot schedules (paper: fm-qos-feedback-based-synchronization,
 * sections 3.2 and 4): the analysis behind fbs-sched and qsim fbs.
 * Userspace only: an executor takes the finished table (fbs_exec.h).
 *
 * A schedule is cyclic: a period of P slots, and in each slot each of N
 * nodes sends one maximum-size frame to one destination node (itself
 * included, as in the paper's Fig. 6) or stays idle.
 *
 * Conflict-free: no node receives from two senders in one slot; on one
 * crossbar switch nothing then blocks in the network.
 *
 * The schedule graph (section 4.1) has, for each send, a start and an end
 * transition.  From a send's end, one arc goes to the sender's next send
 * (a local arc: the sender's own state machine) and one to the closest
 * following send to the same destination.  When that send is another
 * node's, the arc is a network arc: the later sender cannot finish before
 * the earlier frame to that destination has left the switch, and it
 * learns so only by back-pressure.  In a conflict-free cyclic schedule
 * every send has exactly one such successor, found here by walking the
 * destination's senders in slot order.
 *
 * Self-synchronizing (section 4.3): the graph has a synchronization
 * cycle, a cycle of dependences that includes every node as a sender
 * exactly once.  Here a node is "included once" when the cycle enters it
 * by a network arc at one send, may follow the node's local arcs to a
 * later send of its own (less than a period on), and leaves it by that
 * send's network arc to the next node.  The cycle's span is the number
 * of slots it covers, entry to exit and arc to arc; it returns to its
 * first send, so the span is a whole number of periods.  The search
 * looks for the cycle of the smallest span: a span of one period cannot
 * be beaten, and ends the search.
 *
 * Eq. 3: skew accumulates along the cycle, (span) x (slot) x (drift), and
 * must stay under half a slot: span x drift <= 1/2, whatever the slot's
 * length.  The paper's Fig. 10 counts the bound inclusively (200 ppm:
 * 2500 slots, 2500 x 0.0002 = 0.5), so the largest number of slots
 * between synchronizations is floor(1 / (2 x drift)).  Its overhead is
 * the synchronization round's slots over the round and those slots:
 * 8 / (1666 + 8) = 0.48 % for an 8-node round at 300 ppm.
 */
#ifndef FQ_FBS_SCHED_H
#define FQ_FBS_SCHED_H

#ifdef __KERNEL__
#error "fbs_sched.h is for userspace"
#endif

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "core_types.h"

#define FBS_MAX_NODES	64		/* a node set is one 64-bit mask */
#define FBS_MAX_SLOTS	(1U << 20)	/* a period; 1 M slots is ~10 s at 10 us */
#define FBS_IDLE	0xffffU		/* a node's slot without a send */
#define FBS_PPB		1000000000ULL	/* drift in parts per 10^9 */

struct fbs_sched {
	fq_u32 nodes;
	fq_u32 slots;		/* the period */
	fq_u16 *dst;		/* [slot * nodes + node]: destination or FBS_IDLE */
};

static inline fq_u16 fbs_dst(const struct fbs_sched *s, fq_u32 slot, fq_u32 node)
{
	return s->dst[(size_t)slot * s->nodes + node];
}

static inline fq_u16 *fbs_dst_at(struct fbs_sched *s, fq_u32 slot, fq_u32 node)
{
	return &s->dst[(size_t)slot * s->nodes + node];
}

/* A schedule of @nodes x @slots, every slot idle; false: no memory or bad size. */
static inline bool fbs_sched_alloc(struct fbs_sched *s, fq_u32 nodes, fq_u32 slots)
{
	size_t i, n;

	s->dst = NULL;
	s->nodes = s->slots = 0;
	if (!nodes || nodes > FBS_MAX_NODES || !slots || slots > FBS_MAX_SLOTS)
		return false;
	n = (size_t)nodes * slots;
	s->dst = malloc(n * sizeof(*s->dst));
	if (!s->dst)
		return false;
	for (i = 0; i < n; i++)
		s->dst[i] = FBS_IDLE;
	s->nodes = nodes;
	s->slots = slots;
	return true;
}

static inline void fbs_sched_free(struct fbs_sched *s)
{
	free(s->dst);
	s->dst = NULL;
}

/* Grow the period to @slots, the new slots idle; false: no memory or too long. */
static inline bool fbs_sched_extend(struct fbs_sched *s, fq_u32 slots)
{
	size_t i, old = (size_t)s->slots * s->nodes, n = (size_t)slots * s->nodes;
	fq_u16 *d;

	if (slots < s->slots || slots > FBS_MAX_SLOTS)
		return false;
	d = realloc(s->dst, n * sizeof(*d));
	if (!d)
		return false;
	for (i = old; i < n; i++)
		d[i] = FBS_IDLE;
	s->dst = d;
	s->slots = slots;
	return true;
}

/*
 * The paper's Fig. 6 pattern: in slot k of the round, node i sends to
 * node (i + k) mod N, so over N slots every node sends once to every node
 * (itself first) and receives once from each.
 */
static inline void fbs_fill_all_to_all(struct fbs_sched *s, fq_u32 first_slot)
{
	fq_u32 k, i;

	for (k = 0; k < s->nodes; k++)
		for (i = 0; i < s->nodes; i++)
			*fbs_dst_at(s, first_slot + k, i) = (fq_u16)((i + k) % s->nodes);
}

struct fbs_conflict {
	fq_u32 slot, dst, a, b;		/* senders a < b both send to dst */
};

/* The first slot where a node receives from two senders; false if none. */
static inline bool fbs_find_conflict(const struct fbs_sched *s, struct fbs_conflict *c)
{
	fq_u16 from[FBS_MAX_NODES];
	fq_u32 t, i, d;

	for (t = 0; t < s->slots; t++) {
		for (i = 0; i < s->nodes; i++)
			from[i] = FBS_IDLE;
		for (i = 0; i < s->nodes; i++) {
			d = fbs_dst(s, t, i);
			if (d == FBS_IDLE)
				continue;
			if (from[d] != FBS_IDLE) {
				c->slot = t;
				c->dst = d;
				c->a = from[d];
				c->b = i;
				return true;
			}
			from[d] = (fq_u16)i;
		}
	}
	return false;
}

/* Bit i set: node i sends at least once in the period. */
static inline fq_u64 fbs_senders(const struct fbs_sched *s)
{
	fq_u64 m = 0;
	fq_u32 t, i;

	for (t = 0; t < s->slots; t++)
		for (i = 0; i < s->nodes; i++)
			if (fbs_dst(s, t, i) != FBS_IDLE)
				m |= 1ULL << i;
	return m;
}

/* ---- the synchronization cycle ------------------------------------------ */

struct fbs_cycle {
	fq_u32 len;			/* nodes on it: the schedule's N */
	fq_u32 node[FBS_MAX_NODES];	/* in dependence order */
	fq_u32 entry[FBS_MAX_NODES];	/* slot of the send the arc enters */
	fq_u32 exit[FBS_MAX_NODES];	/* slot of the send whose arc leaves */
	fq_u64 span;			/* slots covered: a multiple of the period */
	fq_u32 sync_slots;		/* distinct slots of its sends */
	bool minimal;			/* no cycle of a smaller span exists */
};

/*
 * The search's view of the schedule: each node's sends in slot order and
 * each send's network successor.  Sends are numbered slot-major.
 */
struct fbs_graph {
	const struct fbs_sched *s;
	fq_u32 nsends;
	fq_u32 *slot;		/* [send] */
	fq_u32 *node;		/* [send] */
	fq_u32 *succ;		/* [send]: next send to the same destination */
	fq_u32 *succ_dist;	/* [send]: slots to it, 1 .. P */
	fq_u32 *by_node;	/* sends grouped by node, slot order within */
	fq_u32 first[FBS_MAX_NODES + 1];	/* node i's sends: by_node[first[i] .. first[i+1]) */
	fq_u32 *pos;		/* [send]: its index in by_node */
	/* search state */
	fq_u64 budget;
	bool exhausted;
	fq_u32 depth_node[FBS_MAX_NODES], depth_entry[FBS_MAX_NODES];
	fq_u32 depth_exit[FBS_MAX_NODES];
	struct fbs_cycle *best;
};

static inline void fbs_graph_free(struct fbs_graph *g)
{
	free(g->slot);
	free(g->node);
	free(g->succ);
	free(g->succ_dist);
	free(g->by_node);
	free(g->pos);
}

/*
 * No send yet, for send numbers: they run past 16 bits (64 nodes x 2^20
 * slots), so FBS_IDLE, a destination's, would name a real send.
 */
#define FBS_NO_SEND	0xffffffffU

static inline bool fbs_graph_build(struct fbs_graph *g, const struct fbs_sched *s)
{
	fq_u32 t, i, n = 0, d, j, k, cnt[FBS_MAX_NODES] = { 0 };
	fq_u32 *last, *first_to;

	memset(g, 0, sizeof(*g));
	g->s = s;
	for (t = 0; t < s->slots; t++)
		for (i = 0; i < s->nodes; i++)
			if (fbs_dst(s, t, i) != FBS_IDLE)
				n++;
	g->nsends = n;
	g->slot = malloc((n + 1) * sizeof(fq_u32));
	g->node = malloc((n + 1) * sizeof(fq_u32));
	g->succ = malloc((n + 1) * sizeof(fq_u32));
	g->succ_dist = malloc((n + 1) * sizeof(fq_u32));
	g->by_node = malloc((n + 1) * sizeof(fq_u32));
	g->pos = malloc((n + 1) * sizeof(fq_u32));
	last = malloc(s->nodes * sizeof(fq_u32));
	first_to = malloc(s->nodes * sizeof(fq_u32));
	if (!g->slot || !g->node || !g->succ || !g->succ_dist || !g->by_node ||
	    !g->pos || !last || !first_to) {
		free(last);
		free(first_to);
		fbs_graph_free(g);
		return false;
	}
	/* number the sends; link each to the previous send to its destination */
	for (d = 0; d < s->nodes; d++)
		last[d] = first_to[d] = FBS_NO_SEND;
	n = 0;
	for (t = 0; t < s->slots; t++) {
		for (i = 0; i < s->nodes; i++) {
			d = fbs_dst(s, t, i);
			if (d == FBS_IDLE)
				continue;
			g->slot[n] = t;
			g->node[n] = i;
			cnt[i]++;
			if (last[d] == FBS_NO_SEND)
				first_to[d] = n;
			else
				g->succ[last[d]] = n;
			last[d] = n;
			n++;
		}
	}
	/* the last send to a destination in the period: its successor is
	 * the first of the next period */
	for (d = 0; d < s->nodes; d++)
		if (last[d] != FBS_NO_SEND)
			g->succ[last[d]] = first_to[d];
	for (j = 0; j < n; j++) {
		k = g->succ[j];
		g->succ_dist[j] = (g->slot[k] + s->slots - g->slot[j]) % s->slots;
		if (!g->succ_dist[j])
			g->succ_dist[j] = s->slots;	/* only sender to d, once */
	}
	g->first[0] = 0;
	for (i = 0; i < s->nodes; i++)
		g->first[i + 1] = g->first[i] + cnt[i];
	memset(cnt, 0, sizeof(cnt));
	for (j = 0; j < n; j++) {
		i = g->node[j];
		g->pos[j] = g->first[i] + cnt[i];
		g->by_node[g->pos[j]] = j;
		cnt[i]++;
	}
	free(last);
	free(first_to);
	return true;
}

static inline void fbs_cycle_record(struct fbs_graph *g, fq_u32 len, fq_u64 span)
{
	struct fbs_cycle *c = g->best;
	fq_u32 i, j, distinct = 0;

	c->len = len;
	c->span = span;
	for (i = 0; i < len; i++) {
		c->node[i] = g->depth_node[i];
		c->entry[i] = g->depth_entry[i];
		c->exit[i] = g->depth_exit[i];
	}
	/* the slots its sends occupy, entries and exits, each counted once */
	for (i = 0; i < 2 * len; i++) {
		fq_u32 t = i < len ? c->entry[i] : c->exit[i - len];
		bool seen = false;

		for (j = 0; j < i && !seen; j++)
			seen = (j < len ? c->entry[j] : c->exit[j - len]) == t;
		distinct += !seen;
	}
	c->sync_slots = distinct;
}

/*
 * Depth-first search for the cycle: at @depth the path has entered node
 * g->depth_node[depth] at send @entry (a send number) with @span slots
 * covered; @visited holds the nodes on the path.
 */
static inline void fbs_cycle_dfs(struct fbs_graph *g, fq_u32 depth, fq_u32 entry,
				 fq_u64 visited, fq_u64 span)
{
	const struct fbs_sched *s = g->s;
	fq_u32 x = g->depth_node[depth], x0 = g->depth_node[0];
	fq_u32 nx = g->first[x + 1] - g->first[x], k;

	for (k = 0; k < nx; k++) {
		/* the node's sends from the entry on, nearest first */
		fq_u32 o = g->by_node[g->first[x] + (g->pos[entry] - g->first[x] + k) % nx];
		fq_u32 local = (g->slot[o] + s->slots - g->slot[entry]) % s->slots;
		fq_u32 nxt = g->succ[o], y = g->node[nxt];
		fq_u64 sp = span + local + g->succ_dist[o], rest;

		if (g->budget == 0) {
			g->exhausted = true;
			return;
		}
		g->budget--;
		if (y == x)
			continue;	/* a local arc: not a dependence on another node */
		/* each node still to visit adds an arc of a slot at least, and
		 * the cycle closes on a whole number of periods */
		rest = sp + (s->nodes - 1 - depth);
		if ((rest + s->slots - 1) / s->slots * s->slots >= g->best->span)
			continue;
		g->depth_exit[depth] = g->slot[o];
		if (y == x0) {
			/* closed: a cycle if it has every node and ends at its start */
			if (depth + 1 == s->nodes && g->slot[nxt] == g->depth_entry[0])
				fbs_cycle_record(g, depth + 1, sp);
			continue;
		}
		if (visited & (1ULL << y) || depth + 1 >= s->nodes)
			continue;
		g->depth_node[depth + 1] = y;
		g->depth_entry[depth + 1] = g->slot[nxt];
		fbs_cycle_dfs(g, depth + 1, nxt, visited | (1ULL << y), sp);
		if (g->best->span == s->slots || g->exhausted)
			return;		/* one period: nothing is shorter */
	}
}

/*
 * The synchronization cycle of the smallest span, within @budget search
 * steps (0: a default that covers every schedule of the paper many times
 * over).  Returns 1 and fills @c when one was found (c->minimal says
 * whether the search completed or the span is one period, so none is
 * shorter), 0 when none exists, -1 when the budget ran out first
 * without one, -2 out of memory.  Every node must send for a cycle to
 * exist: the caller reports which do not (fbs_senders()).
 */
static inline int fbs_sync_cycle(const struct fbs_sched *s, struct fbs_cycle *c,
				 fq_u64 budget)
{
	struct fbs_graph g;
	fq_u32 j;

	memset(c, 0, sizeof(*c));
	c->span = ~0ULL;
	if (fbs_senders(s) != (s->nodes == 64 ? ~0ULL : (1ULL << s->nodes) - 1))
		return 0;
	if (s->nodes == 1) {
		/* nobody to keep in step with: the node's own period */
		c->len = 1;
		c->span = s->slots;
		c->minimal = true;
		c->sync_slots = 1;
		for (j = 0; j < s->slots && fbs_dst(s, j, 0) == FBS_IDLE; j++)
			;
		c->entry[0] = c->exit[0] = j;
		return 1;
	}
	if (!fbs_graph_build(&g, s))
		return -2;
	g.budget = budget ? budget : 50000000ULL;
	g.best = c;
	g.depth_node[0] = 0;
	/* every cycle passes node 0: start at each of its sends */
	for (j = g.first[0]; j < g.first[1]; j++) {
		g.depth_entry[0] = g.slot[g.by_node[j]];
		fbs_cycle_dfs(&g, 0, g.by_node[j], 1ULL, 0);
		if (c->span == s->slots || g.exhausted)
			break;
	}
	fbs_graph_free(&g);
	if (c->span == ~0ULL) {
		c->span = 0;
		return g.exhausted ? -1 : 0;
	}
	c->minimal = !g.exhausted || c->span == s->slots;
	return 1;
}

/* ---- Eq. 3 -------------------------------------------------------------- */

/*
 * The most slots a synchronization cycle may span at a drift of
 * @drift_ppb parts per 10^9: floor(1 / (2 x drift)), inclusive as the
 * paper's Fig. 10 (above).  0 drift: no bound (~0).
 */
static inline fq_u64 fbs_max_slots(fq_u64 drift_ppb)
{
	return drift_ppb ? FBS_PPB / (2 * drift_ppb) : ~0ULL;
}

/*
 * Synchronization overhead in parts per 10^9: a round of @round_slots
 * every @max_slots intervening slots, as the paper's section 5.1 counts
 * it (8 in every 1674).
 */
static inline fq_u64 fbs_overhead_ppb(fq_u64 round_slots, fq_u64 max_slots)
{
	if (max_slots == ~0ULL)
		return 0;
	return (fq_u64)((__int128)round_slots * FBS_PPB / (max_slots + round_slots));
}

#endif /* FQ_FBS_SCHED_H */
