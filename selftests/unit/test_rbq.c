// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the sorted queue (kernel/core/rbq.h): the red-black
 * invariants and the order (by key, ties in insertion order) after every
 * operation of long random sequences, and the cost of an insert counted in
 * key comparisons, which must stay within the tree height whatever order
 * the keys come in.
 */
#include <math.h>

#include "unit.h"
#include "core/rbq.h"
#include "rbq_check.h"

#define NODES 4096
#define RANDOM_NODES 512

struct item {
	struct rbq_node rb;	/* first: tests cast back */
	fq_u64 seq;		/* insertion order */
	bool in;
};

static struct item items[NODES];

static fq_u64 rnd_state = 0x2545f4914f6cdd1dULL;

static fq_u64 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/*
 * The whole tree: its shape (rbq_check.h), and equal keys in insertion
 * order.  0 when all hold.
 */
static int check_tree(const struct rbq *t)
{
	const struct rbq_node *n, *prev = NULL;
	int bad = rbq_check_shape(t);

	if (bad)
		return bad;
	for (n = t->first; n; prev = n, n = rbq_next(n))
		if (prev && prev->key == n->key &&
		    ((const struct item *)prev)->seq > ((const struct item *)n)->seq)
			return 6;
	return 0;
}

UNIT_TEST(empty_and_single)
{
	struct rbq t;

	rbq_init(&t);
	EXPECT_TRUE(rbq_first(&t) == NULL);
	EXPECT_TRUE(rbq_pop(&t) == NULL);
	rbq_insert(&t, &items[0].rb, 7);
	EXPECT_EQ(check_tree(&t), 0);
	EXPECT_TRUE(rbq_first(&t) == &items[0].rb);
	EXPECT_TRUE(rbq_pop(&t) == &items[0].rb);
	EXPECT_EQ(t.count, 0);
	EXPECT_TRUE(t.root == NULL && t.first == NULL);
}

UNIT_TEST(ties_leave_in_insertion_order)
{
	struct rbq t;
	fq_u64 seq = 0;
	int i;

	rbq_init(&t);
	/* keys 5, 3, 5, 3, ... : each key's items in the order inserted */
	for (i = 0; i < 1000; i++) {
		items[i].seq = seq++;
		rbq_insert(&t, &items[i].rb, i % 2 ? 3 : 5);
	}
	EXPECT_EQ(check_tree(&t), 0);
	for (i = 0; i < 1000; i++) {
		struct item *it = (struct item *)rbq_pop(&t);
		int want = i < 500 ? 2 * i + 1 : 2 * (i - 500);

		ASSERT_TRUE(it != NULL);
		if (it != &items[want]) {
			UNIT_FAIL("pop %d: item %d, want %d", i, (int)(it - items), want);
			return;
		}
	}
	EXPECT_TRUE(rbq_pop(&t) == NULL);
}

/*
 * Random inserts (keys from a small range, so ties are common), pops and
 * erasures of random nodes, checked against the rules after every step.
 */
UNIT_TEST(random_operations_keep_the_rules)
{
	fq_u64 seq = 0, pops = 0, erases = 0;
	int step, bad = 0, live = 0;
	struct rbq t;

	rbq_init(&t);
	memset(items, 0, sizeof(items));
	for (step = 0; step < 200000 && !bad; step++) {
		fq_u64 r = rnd();
		int i = (int)(rnd() % RANDOM_NODES);

		if (r % 8 < 4 && !items[i].in) {
			items[i].seq = seq++;
			items[i].in = true;
			rbq_insert(&t, &items[i].rb, rnd() % 64);
			live++;
		} else if (r % 8 < 6 && live) {
			struct item *it = (struct item *)rbq_pop(&t);
			struct item *j;

			/* the smallest key, oldest among equals */
			for (j = items; j < items + RANDOM_NODES; j++)
				if (j->in && j != it &&
				    (j->rb.key < it->rb.key ||
				     (j->rb.key == it->rb.key && j->seq < it->seq)))
					bad = 100;
			it->in = false;
			live--;
			pops++;
		} else if (items[i].in) {
			rbq_erase(&t, &items[i].rb);
			items[i].in = false;
			live--;
			erases++;
		}
		if (!bad && (step < 20000 || step % 97 == 0))
			bad = check_tree(&t);
		if (!bad && t.count != (fq_u32)live)
			bad = 200;
	}
	if (bad)
		printf("# step %d: check %d failed\n", step, bad);
	EXPECT_EQ(bad, 0);
	EXPECT_TRUE(pops > 10000 && erases > 5000);
	printf("# %d steps, %llu pops, %llu erasures, %d left\n", step,
	       (unsigned long long)pops, (unsigned long long)erases, live);
}

/*
 * Inserting n keys in falling, rising, equal or random order: no insert
 * costs more comparisons than the height bound 2 log2(n + 1).
 */
UNIT_TEST(insert_cost_within_height)
{
	static const char *const names[] = { "falling", "rising", "equal", "random" };
	int order;

	for (order = 0; order < 4; order++) {
		fq_u64 worst = 0;
		struct rbq t;
		int i;

		rbq_init(&t);
		for (i = 0; i < NODES; i++) {
			fq_u64 key, cost;

			switch (order) {
			case 0: key = 1000000 - i; break;
			case 1: key = i; break;
			case 2: key = 42; break;
			default: key = rnd() % 100000; break;
			}
			items[i].seq = i;
			cost = rbq_insert_depth(&t, key);
			rbq_insert(&t, &items[i].rb, key);
			if (cost > worst)
				worst = cost;
			if (cost > 2 * log2(i + 2)) {
				UNIT_FAIL("%s: insert %d cost %llu comparisons", names[order], i,
					  (unsigned long long)cost);
				return;
			}
		}
		EXPECT_EQ(check_tree(&t), 0);
		printf("# %s: %d inserts, at most %llu comparisons each\n", names[order],
		       NODES, (unsigned long long)worst);
		while (rbq_pop(&t))
			;
		EXPECT_EQ(t.count, 0);
	}
}

int main(void)
{
	return unit_run();
}
