// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: edf's queue of flows (kernel/core/runheap.h, a sorted run
 * in front of the red-black tree of rbq.h), under the keys any socket can
 * cause: deadlines from SO_TXTIME anywhere in 64 bits, ties, runs in
 * order broken by one key far ahead, bursts of flows in no order, flows
 * removed from the middle (a flow purged, a class changed) and requeued
 * with a later key (a flow's next head).
 *
 * What must hold after every operation: the queue holds exactly the
 * flows put in and not taken out; its peek and pop give a smallest key;
 * the run is sorted and linked both ways; the tree keeps its rules
 * (selftests/unit/rbq_check.h); the count is right.
 */
#include "fuzz.h"

#include "core/runheap.h"
#include "../unit/rbq_check.h"

#define FZ_NODES	128
#define FZ_MAX_OPS	4000

static struct runheap H;
static struct runheap_node node[FZ_NODES];
static bool queued[FZ_NODES];

/* A key: near the others, equal to one, far ahead, or anything. */
static fq_u64 read_key(struct fuzz_in *in, fq_u64 base)
{
	switch (fuzz_below(in, 4)) {
	case 0:
		return base + fuzz_u8(in);
	case 1:
		return base;
	case 2:
		return base + ((fq_u64)fuzz_u16(in) << 20);
	default:
		return fuzz_u64(in);
	}
}

static void check_queue(void)
{
	const struct runheap_node *n, *prev = NULL, *min = NULL;
	fq_u32 i, in_run = 0, count = 0;

	for (i = 0; i < FZ_NODES; i++) {
		if (!queued[i])
			continue;
		count++;
		if (!min || node[i].rn.key < min->rn.key)
			min = &node[i];
	}
	FUZZ_CHECK(H.count == count);
	FUZZ_CHECK(runheap_is_empty(&H) == !count);
	/* the peek is a smallest key (ties may leave in either part's order) */
	if (min)
		FUZZ_CHECK(runheap_peek(&H)->rn.key == min->rn.key);
	else
		FUZZ_CHECK(!runheap_peek(&H));
	/* the run: sorted, linked both ways, every node of it queued */
	for (n = H.run_head; n; prev = n, n = runheap_run_next(n)) {
		FUZZ_CHECK(n >= node && n < node + FZ_NODES && queued[n - node]);
		FUZZ_CHECK(runheap_in_run(n));
		FUZZ_CHECK(runheap_run_prev(n) == prev);
		if (prev)
			FUZZ_CHECK(prev->rn.key <= n->rn.key);
		FUZZ_CHECK(++in_run <= count);
	}
	FUZZ_CHECK(H.run_tail == prev);
	/* the tree: its rules, and the rest of the nodes */
	FUZZ_CHECK(rbq_check_shape(&H.tree) == 0);
	FUZZ_CHECK(H.tree.count + in_run == count);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	fq_u64 base = fuzz_u64(&in);
	fq_u32 op;

	runheap_init(&H);
	memset(node, 0, sizeof(node));
	memset(queued, 0, sizeof(queued));
	for (op = 0; op < FZ_MAX_OPS && fuzz_more(&in); op++) {
		fq_u32 i = fuzz_below(&in, FZ_NODES);
		struct runheap_node *n;

		switch (fuzz_below(&in, 6)) {
		case 5: {	/* a burst of flows, their keys in any order */
			fq_u32 j, burst = fuzz_below(&in, 32);

			for (j = 0; j < burst; j++, i = (i + 1) % FZ_NODES) {
				if (queued[i])
					continue;
				runheap_insert(&H, &node[i], base + fuzz_u16(&in));
				queued[i] = true;
			}
			break;
		}
		case 0:
		case 1:	/* a flow gets its first packet */
			if (queued[i])
				break;
			runheap_insert(&H, &node[i], read_key(&in, base));
			queued[i] = true;
			break;
		case 2:	/* a flow is taken out (purged, its class changed) */
			if (!queued[i])
				break;
			runheap_remove(&H, &node[i]);
			queued[i] = false;
			break;
		case 3: {	/* a queued flow's next head: a later key */
			fq_u64 key;

			if (!queued[i])
				break;
			key = node[i].rn.key + (fuzz_u8(&in) & 1 ? 0 : read_key(&in, 0));
			if (key < node[i].rn.key)
				key = ~0ULL;	/* edf's deadlines saturate */
			runheap_requeue(&H, &node[i], key);
			break;
		}
		default:	/* the head flow's packet leaves */
			n = runheap_pop(&H);
			if (!n)
				break;
			FUZZ_CHECK(queued[n - node]);
			queued[n - node] = false;
			base = n->rn.key;	/* the clock is about here now */
			break;
		}
		check_queue();
	}
	return 0;
}
