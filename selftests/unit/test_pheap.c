// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the intrusive pairing heap against a sorted reference. */
#include "unit.h"
#include "core/pheap.h"

#define N 5000

static struct pheap_node nodes[N];
static int in_heap[N];

static fq_u64 rnd_state = 88172645463325252ULL;

static fq_u64 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* The smallest key among nodes the reference says are in the heap. */
static fq_u64 ref_min(void)
{
	fq_u64 m = ~0ULL;
	int i;

	for (i = 0; i < N; i++)
		if (in_heap[i] && nodes[i].key < m)
			m = nodes[i].key;
	return m;
}

UNIT_TEST(pops_in_key_order)
{
	struct pheap h;
	fq_u64 last = 0;
	int i;

	pheap_init(&h);
	EXPECT_TRUE(pheap_is_empty(&h));
	EXPECT_TRUE(pheap_pop(&h) == NULL);
	for (i = 0; i < N; i++)
		pheap_insert(&h, &nodes[i], rnd() % 1000);
	EXPECT_EQ(h.count, N);
	for (i = 0; i < N; i++) {
		struct pheap_node *n = pheap_pop(&h);

		ASSERT_TRUE(n != NULL);
		EXPECT_TRUE(n->key >= last);
		last = n->key;
	}
	EXPECT_TRUE(pheap_is_empty(&h));
	EXPECT_EQ(h.count, 0);
}

UNIT_TEST(random_insert_remove_update_matches_reference)
{
	struct pheap h;
	int step, i, live = 0;

	pheap_init(&h);
	memset(in_heap, 0, sizeof(in_heap));
	for (step = 0; step < 200000; step++) {
		fq_u64 op = rnd() % 10;

		i = rnd() % N;
		if (!in_heap[i] && op < 4) {
			pheap_insert(&h, &nodes[i], rnd() % 100000);
			in_heap[i] = 1;
			live++;
		} else if (in_heap[i] && op < 6) {
			pheap_remove(&h, &nodes[i]);
			in_heap[i] = 0;
			live--;
		} else if (in_heap[i] && op < 8) {
			pheap_update(&h, &nodes[i], rnd() % 100000);
		} else if (live && op == 9) {
			struct pheap_node *n = pheap_pop(&h);

			ASSERT_TRUE(n != NULL);
			EXPECT_EQ(n->key, ref_min());
			in_heap[n - nodes] = 0;
			live--;
		}
		if (step % 1000 == 0) {
			EXPECT_EQ(h.count, live);
			if (live)
				EXPECT_EQ(pheap_peek(&h)->key, ref_min());
		}
	}
	EXPECT_EQ(h.count, live);
}

UNIT_TEST(remove_root_and_only_node)
{
	struct pheap h;
	struct pheap_node a, b;

	pheap_init(&h);
	pheap_insert(&h, &a, 5);
	pheap_remove(&h, &a);
	EXPECT_TRUE(pheap_is_empty(&h));
	pheap_insert(&h, &a, 5);
	pheap_insert(&h, &b, 3);
	pheap_remove(&h, &b);
	EXPECT_TRUE(pheap_peek(&h) == &a);
	pheap_update(&h, &a, 1);
	EXPECT_EQ(pheap_pop(&h)->key, 1);
	EXPECT_TRUE(pheap_is_empty(&h));
}

int main(void)
{
	return unit_run();
}
