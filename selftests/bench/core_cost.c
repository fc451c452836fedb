// SPDX-License-Identifier: GPL-2.0
/*
 * core_cost: drive one discipline of the portable core (kernel/core/) with
 * a fixed packet pattern, for instruction counting under
 * `valgrind --tool=callgrind` (scripts/bench.sh runs it).  The cost per
 * packet is the difference between a run of 2N and a run of N packets
 * divided by N, so setup and teardown cancel out.
 *
 * Usage: core_cost DISCIPLINE FLOWS PATH PACKETS
 *        core_cost --list          the disciplines, one per line
 *   PATH uncongested: each packet is enqueued and dequeued at once
 *        backlogged:  every flow holds packets; each step enqueues one
 *                     and dequeues one, the scheduler choosing among all
 *                     flows
 * Prints "checksum=N" so the work cannot be optimised away, and the
 * number of packets dequeued.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/edf_core.h"
#include "core/pheap.h"

struct core_discipline {
	const char *name;
	int (*setup)(unsigned int flows);
	void (*enqueue)(unsigned int flow, unsigned int len, fq_u64 now);
	/* returns the length of the packet sent, 0 when empty */
	unsigned int (*dequeue)(fq_u64 now);
};

/* ---- edf: per-flow virtual clock, a pairing heap over flows --------------- */

#define EDF_RING	8	/* deadlines a flow can hold */

struct edf_flow {
	struct pheap_node node;
	fq_u64 last_deadline;
	fq_u64 deadline[EDF_RING];
	unsigned int len[EDF_RING];
	unsigned int head, count;
};

static struct edf_flow *edf_flows;
static struct pheap edf_heap;
static const fq_u64 edf_rate = 50000000000ULL;	/* bytes/s: 400gbit */

static int edf_setup(unsigned int flows)
{
	edf_flows = calloc(flows, sizeof(*edf_flows));
	pheap_init(&edf_heap);
	return edf_flows ? 0 : -1;
}

static void edf_enqueue(unsigned int flow, unsigned int len, fq_u64 now)
{
	struct edf_flow *f = &edf_flows[flow];
	fq_u64 d;

	if (f->count == EDF_RING)
		return;		/* flow limit: dropped */
	d = edf_vclock_deadline(f->last_deadline, now, len, edf_rate);
	f->last_deadline = d;
	f->deadline[(f->head + f->count) % EDF_RING] = d;
	f->len[(f->head + f->count) % EDF_RING] = len;
	/* a flow's deadlines only grow: the heap key is its head's */
	if (!f->count++)
		pheap_insert(&edf_heap, &f->node, d);
}

static unsigned int edf_dequeue(fq_u64 now)
{
	struct pheap_node *n = pheap_pop(&edf_heap);
	struct edf_flow *f;
	unsigned int len;

	if (!n)
		return 0;
	f = (struct edf_flow *)((char *)n - offsetof(struct edf_flow, node));
	len = f->len[f->head];
	f->head = (f->head + 1) % EDF_RING;
	if (--f->count)
		pheap_insert(&edf_heap, &f->node, f->deadline[f->head]);
	return len;
}

static const struct core_discipline disciplines[] = {
	{ "edf", edf_setup, edf_enqueue, edf_dequeue },
};

int main(int argc, char **argv)
{
	const struct core_discipline *d = NULL;
	unsigned long long packets, i, sent = 0, checksum = 0;
	unsigned int flows, k, backlogged;
	fq_u64 now = 0;

	if (argc == 2 && !strcmp(argv[1], "--list")) {
		for (k = 0; k < sizeof(disciplines) / sizeof(disciplines[0]); k++)
			printf("%s\n", disciplines[k].name);
		return 0;
	}
	if (argc != 5) {
		fprintf(stderr, "usage: core_cost DISCIPLINE FLOWS {uncongested|backlogged} PACKETS\n");
		return 2;
	}
	for (k = 0; k < sizeof(disciplines) / sizeof(disciplines[0]); k++)
		if (!strcmp(argv[1], disciplines[k].name))
			d = &disciplines[k];
	flows = strtoul(argv[2], NULL, 10);
	backlogged = !strcmp(argv[3], "backlogged");
	packets = strtoull(argv[4], NULL, 10);
	if (!d || !flows || (!backlogged && strcmp(argv[3], "uncongested"))) {
		fprintf(stderr, "core_cost: bad arguments\n");
		return 2;
	}
	if (d->setup(flows))
		return 1;
	/* backlogged: two packets in every flow before the clock starts */
	if (backlogged)
		for (k = 0; k < 2 * flows; k++)
			d->enqueue(k % flows, 60, now);

	for (i = 0; i < packets; i++) {
		/* 60-byte packets, one flow after another, 10 ns apart */
		now += 10;
		d->enqueue(i % flows, 60, now);
		checksum += d->dequeue(now);
		sent++;
	}
	printf("checksum=%llu sent=%llu\n", checksum, sent);
	return 0;
}
