// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the run-fronted heap (core/runheap.h) against a reference
 * that scans every node: whatever mix of ordered and unordered keys goes
 * in, the minimum comes out.
 */
#include "unit.h"
#include "core/runheap.h"
#include "rbq_check.h"

#define N 5000

static struct runheap_node nodes[N];
static int in_queue[N];

static fq_u64 rnd_state = 88172645463325252ULL;

static fq_u64 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* The smallest key among nodes the reference says are queued. */
static fq_u64 ref_min(void)
{
	fq_u64 m = ~0ULL;
	int i;

	for (i = 0; i < N; i++)
		if (in_queue[i] && nodes[i].rn.key < m)
			m = nodes[i].rn.key;
	return m;
}

/*
 * Keys like deadlines: mostly a clock that moves forward (into the run),
 * sometimes a random one behind or ahead of it (into the tree, or a new
 * run tail far ahead that sends what follows into the tree).
 */
static fq_u64 clock_key(fq_u64 *clock)
{
	fq_u64 r = rnd() % 100;

	*clock += rnd() % 8;
	if (r < 90)
		return *clock;
	if (r < 98)
		return *clock > 50 ? *clock - rnd() % 50 : 0;
	return *clock + rnd() % 5000;
}

/* The run's length, or -1 if its keys go down or its links disagree. */
static int run_length_if_sorted(const struct runheap *h)
{
	const struct runheap_node *n = h->run_head, *prev = NULL;
	int len = 0;

	for (; n; prev = n, n = runheap_run_next(n), len++)
		if (!runheap_in_run(n) || runheap_run_prev(n) != prev ||
		    (prev && n->rn.key < prev->rn.key))
			return -1;
	return prev == h->run_tail ? len : -1;
}

UNIT_TEST(random_insert_remove_pop_matches_reference)
{
	struct runheap h;
	fq_u64 clock = 0;
	int step, i, live = 0, from_run = 0, from_heap = 0, requeued = 0;

	runheap_init(&h);
	memset(in_queue, 0, sizeof(in_queue));
	for (step = 0; step < 400000; step++) {
		fq_u64 op = rnd() % 10;

		i = rnd() % N;
		if (!in_queue[i] && op < 4) {
			runheap_insert(&h, &nodes[i], clock_key(&clock));
			in_queue[i] = 1;
			live++;
		} else if (in_queue[i] && op < 5) {
			runheap_remove(&h, &nodes[i]);
			in_queue[i] = 0;
			live--;
		} else if (live && op == 5) {
			/*
			 * A later key, as a flow's next head has: the root
			 * (what edf does) or any queued node
			 */
			struct runheap_node *n = in_queue[i] ? &nodes[i] : runheap_peek(&h);

			runheap_requeue(&h, n, n->rn.key + rnd() % (rnd() % 4 ? 8 : 5000));
			requeued++;
		} else if (live && op >= 6) {
			struct runheap_node *n = runheap_peek(&h);

			if (runheap_in_run(n))
				from_run++;
			else
				from_heap++;
			ASSERT_TRUE(runheap_pop(&h) == n);
			EXPECT_EQ(runheap_key(n), ref_min());
			in_queue[n - nodes] = 0;
			live--;
		}
		if (step % 1000 == 0) {
			int marked = 0, j;

			EXPECT_EQ(h.count, live);
			EXPECT_EQ(h.count, h.tree.count + run_length_if_sorted(&h));
			/* the tree behind the run keeps its own rules */
			EXPECT_EQ(rbq_check_shape(&h.tree), 0);
			/* the run's mark is on the run's nodes and on no other */
			for (j = 0; j < N; j++) {
				if (!runheap_in_run(&nodes[j]))
					continue;
				EXPECT_TRUE(in_queue[j]);
				marked++;
			}
			EXPECT_EQ(marked, run_length_if_sorted(&h));
			if (live)
				EXPECT_EQ(runheap_key(runheap_peek(&h)), ref_min());
			else
				EXPECT_TRUE(runheap_is_empty(&h));
		}
	}
	EXPECT_EQ(h.count, live);
	/* both parts were exercised, and requeue */
	EXPECT_TRUE(from_run > 10000);
	EXPECT_TRUE(from_heap > 10000);
	EXPECT_TRUE(requeued > 10000);
	while (live--) {
		struct runheap_node *n = runheap_pop(&h);

		ASSERT_TRUE(n != NULL);
		EXPECT_EQ(runheap_key(n), ref_min());
		in_queue[n - nodes] = 0;
	}
	EXPECT_TRUE(runheap_is_empty(&h));
	EXPECT_TRUE(runheap_pop(&h) == NULL);
}

/* Keys in order never touch the tree, and equal ones leave in order. */
UNIT_TEST(ordered_keys_stay_in_the_run_in_fifo_order)
{
	struct runheap h;
	int i;

	runheap_init(&h);
	for (i = 0; i < N; i++)
		runheap_insert(&h, &nodes[i], i / 4);
	EXPECT_EQ(h.tree.count, 0);
	EXPECT_EQ(h.count, N);
	for (i = 0; i < N; i++)
		ASSERT_TRUE(runheap_pop(&h) == &nodes[i]);
	EXPECT_TRUE(runheap_is_empty(&h));
}

/*
 * What edf does with it: every flow leaves and comes back with its next
 * deadline, len / rate later.  At one rate the deadlines come back in
 * order (all in the run); at mixed rates the order holds across both.
 */
/*
 * What edf does with it: every flow leaves and comes back with its next
 * deadline, a period later (a period of 1000 / rate, rate i % @rates + 1).
 * At one rate the deadlines come back in order (all in the run); at mixed
 * rates the order holds across both parts.  @requeue: half the flows
 * come back by runheap_requeue() instead.  Returns how many came out of
 * order; *@heap_inserts: how many went into the tree.
 */
static int flows_round(int rates, bool requeue, int *heap_inserts)
{
	static fq_u64 deadline[1000];
	struct runheap h;
	fq_u64 last = 0;
	int i, step, disorder = 0;

	runheap_init(&h);
	for (i = 0; i < 1000; i++) {
		deadline[i] = i;
		runheap_insert(&h, &nodes[i], deadline[i]);
	}
	*heap_inserts = 0;
	for (step = 0; step < 200000; step++) {
		struct runheap_node *n = runheap_peek(&h);

		i = n - nodes;
		disorder += runheap_key(n) < last;
		last = runheap_key(n);
		deadline[i] += 1000 / (i % rates + 1);
		/* as edf: a flow with more packets stays; odd steps pop and insert */
		if (requeue && step % 2) {
			runheap_requeue(&h, n, deadline[i]);
		} else {
			runheap_remove(&h, n);
			runheap_insert(&h, n, deadline[i]);
		}
		*heap_inserts += !runheap_in_run(n);
	}
	return h.count == 1000 && run_length_if_sorted(&h) >= 0 ? disorder : -1;
}

UNIT_TEST(deadlines_of_flows_come_out_in_order)
{
	int heap_inserts;

	bool requeue;

	for (requeue = false; ; requeue = true) {
		EXPECT_EQ(flows_round(1, requeue, &heap_inserts), 0);
		EXPECT_EQ(heap_inserts, 0);
		EXPECT_EQ(flows_round(3, requeue, &heap_inserts), 0);
		EXPECT_TRUE(heap_inserts > 10000);
		if (requeue)
			break;
	}
}

UNIT_TEST(remove_from_the_run_head_middle_tail)
{
	struct runheap h;
	struct runheap_node a, b, c, d;

	runheap_init(&h);
	runheap_insert(&h, &a, 1);
	runheap_insert(&h, &b, 2);
	runheap_insert(&h, &c, 3);
	runheap_insert(&h, &d, 0);	/* behind the run: the tree */
	EXPECT_TRUE(!runheap_in_run(&d));
	EXPECT_TRUE(runheap_peek(&h) == &d);
	runheap_remove(&h, &b);		/* middle */
	runheap_remove(&h, &d);		/* the tree's only node */
	EXPECT_TRUE(runheap_peek(&h) == &a);
	runheap_remove(&h, &a);		/* head */
	EXPECT_TRUE(runheap_peek(&h) == &c);
	runheap_insert(&h, &a, 7);	/* after c */
	runheap_remove(&h, &a);		/* tail */
	EXPECT_TRUE(h.run_tail == &c);
	runheap_remove(&h, &c);		/* the only node */
	EXPECT_TRUE(runheap_is_empty(&h));
	EXPECT_EQ(h.count, 0);
	runheap_insert(&h, &b, 9);	/* a new run after the last emptied */
	EXPECT_TRUE(runheap_in_run(&b));
	EXPECT_TRUE(runheap_pop(&h) == &b);
}

/* A key far ahead at the tail gives way: the run goes on behind it. */
UNIT_TEST(a_tail_far_ahead_moves_to_the_tree)
{
	struct runheap h;
	struct runheap_node a, far, b, c, behind;

	runheap_init(&h);
	runheap_insert(&h, &a, 1);
	runheap_insert(&h, &far, 1000);
	runheap_insert(&h, &b, 5);
	EXPECT_TRUE(!runheap_in_run(&far) && runheap_in_run(&a) && runheap_in_run(&b));
	runheap_insert(&h, &c, 6);
	EXPECT_TRUE(runheap_in_run(&c) && h.run_tail == &c);
	runheap_insert(&h, &behind, 3);	/* below the last two: the tree */
	EXPECT_TRUE(!runheap_in_run(&behind) && h.run_tail == &c);
	EXPECT_EQ(h.tree.count, 2);
	EXPECT_TRUE(runheap_pop(&h) == &a);
	EXPECT_TRUE(runheap_pop(&h) == &behind);
	EXPECT_TRUE(runheap_pop(&h) == &b);
	EXPECT_TRUE(runheap_pop(&h) == &c);
	EXPECT_TRUE(runheap_pop(&h) == &far);
	EXPECT_TRUE(runheap_is_empty(&h));
}

/* The tail grows in place; the head jumps to the tail; others move. */
UNIT_TEST(requeue_in_place_at_the_tail_and_from_head_to_tail)
{
	struct runheap h;
	struct runheap_node a, b, c, d;

	runheap_init(&h);
	runheap_insert(&h, &a, 1);
	runheap_insert(&h, &b, 2);
	runheap_insert(&h, &c, 3);
	/* an earlier key (not what edf asks) still keeps the order */
	runheap_requeue(&h, &c, 0);
	EXPECT_TRUE(runheap_peek(&h) == &c);
	EXPECT_EQ(run_length_if_sorted(&h), 2);
	runheap_requeue(&h, &c, 3);
	runheap_requeue(&h, &c, 10);		/* the tail */
	EXPECT_TRUE(h.run_tail == &c && runheap_in_run(&c) && c.rn.key == 10);
	runheap_requeue(&h, &a, 12);		/* head after the tail */
	EXPECT_TRUE(h.run_head == &b && h.run_tail == &a && runheap_in_run(&a));
	EXPECT_EQ(run_length_if_sorted(&h), 3);
	/* head, before the tail: out and in, and the tail gives way */
	runheap_requeue(&h, &b, 11);
	EXPECT_TRUE(h.run_head == &c && h.run_tail == &b && !runheap_in_run(&a));
	EXPECT_EQ(run_length_if_sorted(&h), 2);
	runheap_insert(&h, &d, 0);		/* the tree */
	runheap_requeue(&h, &d, 20);		/* out of the tree, to the run */
	EXPECT_TRUE(runheap_in_run(&d) && h.run_tail == &d && h.tree.count == 1);
	EXPECT_EQ(h.count, 4);
	EXPECT_TRUE(runheap_pop(&h) == &c);
	EXPECT_TRUE(runheap_pop(&h) == &b);
	EXPECT_TRUE(runheap_pop(&h) == &a);
	EXPECT_TRUE(runheap_pop(&h) == &d);
	EXPECT_TRUE(runheap_is_empty(&h));
}

int main(void)
{
	return unit_run();
}
