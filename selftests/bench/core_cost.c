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
 *        backlogged:  every flow holds packets (two each, queued 10 ns
 *                     apart before the measured loop); each step enqueues
 *                     one and dequeues one, the scheduler choosing among
 *                     all flows
 *   FLOWS is the number of distinct flows the pattern cycles over; a core
 *   with fewer classes or lanes maps flow f to f % its limit (and says so
 *   on stderr).
 * Prints "checksum=N" (the bytes dequeued) so the work cannot be optimised
 * away, the number of packets dequeued and the number refused at enqueue.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/edf_core.h"
#include "core/runheap.h"
#include "core/vcsw_port.h"
#include "core/vcsw_xbar.h"
#include "core/dtable_core.h"
#include "core/aoq_core.h"

struct core_discipline {
	const char *name;
	int (*setup)(unsigned int flows);
	/* 0, or -1 when the packet was refused (dropped) */
	int (*enqueue)(unsigned int flow, unsigned int len, fq_u64 now);
	/* returns the length of the packet sent, 0 when empty */
	unsigned int (*dequeue)(fq_u64 now);
};

/* flows beyond what a core takes share its classes or lanes: flow % cap */
static unsigned int cap_flows(const char *what, unsigned int flows,
			      unsigned int cap)
{
	if (flows <= cap)
		return flows;
	fprintf(stderr, "core_cost: %u flows capped at %u %s (flow %% %u)\n",
		flows, cap, what, cap);
	return cap;
}

/*
 * Per-class packet queues for the cores that hold no packets themselves
 * (dtable, aoq): a ring of packet lengths per class, sized for the
 * backlogged pattern (two packets per flow, plus slack); a full ring
 * refuses the packet, and main() counts it as dropped.
 */
struct len_ring {
	unsigned int *len;
	unsigned int head, count;
};

static struct len_ring *rings;
static unsigned int ring_mask;

static int rings_setup(unsigned int nq, unsigned int flows)
{
	/* the average plus room for the swings of a turn of 25 packets */
	unsigned int per = 2 * ((flows + nq - 1) / nq) + 64, size = 1, i;

	while (size < per)
		size <<= 1;
	ring_mask = size - 1;
	rings = calloc(nq, sizeof(*rings));
	if (!rings)
		return -1;
	for (i = 0; i < nq; i++) {
		rings[i].len = calloc(size, sizeof(*rings[i].len));
		if (!rings[i].len)
			return -1;
	}
	return 0;
}

static int ring_push(unsigned int q, unsigned int len)
{
	struct len_ring *r = &rings[q];

	if (r->count > ring_mask)
		return -1;
	r->len[(r->head + r->count++) & ring_mask] = len;
	return 0;
}

/* the head's length, 0 when empty */
static unsigned int ring_head(unsigned int q)
{
	const struct len_ring *r = &rings[q];

	return r->count ? r->len[r->head] : 0;
}

static unsigned int ring_pop(unsigned int q)
{
	struct len_ring *r = &rings[q];
	unsigned int len = r->len[r->head];

	r->head = (r->head + 1) & ring_mask;
	r->count--;
	return len;
}

/* ---- edf: per-flow virtual clock, a run-fronted heap over flows ----------- */

#define EDF_RING	8	/* deadlines a flow can hold */

struct edf_flow {
	struct runheap_node node;
	fq_u64 last_deadline;
	fq_u64 deadline[EDF_RING];
	unsigned int len[EDF_RING];
	unsigned int head, count;
};

static struct edf_flow *edf_flows;
static struct runheap edf_heap;
static const fq_u64 edf_rate = 50000000000ULL;	/* bytes/s: 400gbit */

static int edf_setup(unsigned int flows)
{
	edf_flows = calloc(flows, sizeof(*edf_flows));
	runheap_init(&edf_heap);
	return edf_flows ? 0 : -1;
}

static int edf_enqueue(unsigned int flow, unsigned int len, fq_u64 now)
{
	struct edf_flow *f = &edf_flows[flow];
	fq_u64 d;

	if (f->count == EDF_RING)
		return -1;	/* flow limit: dropped */
	d = edf_vclock_deadline(f->last_deadline, now, len, edf_rate);
	f->last_deadline = d;
	f->deadline[(f->head + f->count) % EDF_RING] = d;
	f->len[(f->head + f->count) % EDF_RING] = len;
	/* a flow's deadlines only grow: the heap key is its head's */
	if (!f->count++)
		runheap_insert(&edf_heap, &f->node, d);
	return 0;
}

static unsigned int edf_dequeue(fq_u64 now)
{
	struct runheap_node *n = runheap_peek(&edf_heap);
	struct edf_flow *f;
	unsigned int len;

	if (!n)
		return 0;
	f = (struct edf_flow *)((char *)n - offsetof(struct edf_flow, node));
	len = f->len[f->head];
	f->head = (f->head + 1) % EDF_RING;
	/* as sch_edf: a flow with more stays, with its next head's key */
	if (--f->count)
		runheap_requeue(&edf_heap, &f->node, f->deadline[f->head]);
	else
		runheap_remove(&edf_heap, &f->node);
	return len;
}

/*
 * edf-shuffled: the same core, but each packet's flow is drawn at random
 * (a fixed xorshift sequence) instead of cycling.  A flow's next head then
 * arrived among other flows' packets in no order, so a backlogged flow
 * that leaves comes back behind some flows and ahead of others: its key
 * goes through the tree behind the run, not to the run's tail.  The draw
 * (about 8 instructions) is counted in the figure.
 */
static unsigned int edf_shuffled_flows;
static fq_u64 edf_shuffle_state;

static int edf_shuffled_setup(unsigned int flows)
{
	edf_shuffled_flows = flows;
	edf_shuffle_state = 0x9e3779b97f4a7c15ULL;
	return edf_setup(flows);
}

static int edf_shuffled_enqueue(unsigned int flow, unsigned int len, fq_u64 now)
{
	fq_u64 x = edf_shuffle_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	edf_shuffle_state = x;
	return edf_enqueue((unsigned int)(x % edf_shuffled_flows), len, now);
}

/*
 * ---- vcsw-fifo, vcsw-takeover, vcsw-ideal: the soft switch's port buffer --
 *
 * One output port (kernel/core/vcsw_port.h) with VC0 in each mode; every
 * packet is regulated (VC0) and carries a deadline, now plus an offset of
 * its flow: 0 to 31 steps of 25 ns chosen by a hash of the flow number.
 * Each flow's deadlines grow, but flows interleave, so takeover sends some
 * arrivals to its take-over FIFO and ideal inserts some behind the tail.
 * VC1 stays empty.  No emulated link (rate 0): dequeue only asks whether
 * the link is free.  The port's own bookkeeping (order-error heap,
 * counters, sojourn histogram) is part of what is counted.  Packets are
 * nodes from a preallocated pool sized for the backlogged pattern.
 */
static struct vcsw_port vp;
static struct vcsw_node *vp_nodes, *vp_free;

static int vp_setup(unsigned int flows, fq_u8 mode)
{
	unsigned int n = 2 * flows + 2, i;

	vp_nodes = calloc(n, sizeof(*vp_nodes));
	if (!vp_nodes)
		return -1;
	for (i = 0; i < n; i++) {
		vp_nodes[i].next = vp_free;
		vp_free = &vp_nodes[i];
	}
	/* byte limits out of reach: nothing is refused for space */
	vcsw_port_init(&vp, mode, ~(fq_u32)0, ~(fq_u32)0, 0);
	return 0;
}

static int vp_fifo_setup(unsigned int flows)
{
	return vp_setup(flows, VCSW_MODE_FIFO);
}

static int vp_takeover_setup(unsigned int flows)
{
	return vp_setup(flows, VCSW_MODE_TAKEOVER);
}

static int vp_ideal_setup(unsigned int flows)
{
	return vp_setup(flows, VCSW_MODE_IDEAL);
}

static int vp_enqueue(unsigned int flow, unsigned int len, fq_u64 now)
{
	struct vcsw_node *n = vp_free;

	if (!n)
		return -1;
	vp_free = n->next;
	/* the top 5 bits of a multiplicative hash: offsets 0 .. 775 ns */
	n->deadline = now + (((fq_u32)flow * 2654435761U) >> 27) * 25;
	n->len = len;
	n->vc = 0;
	n->timed = true;
	if (vcsw_port_enqueue(&vp, n, now) != VCSW_ENQ_OK) {
		n->next = vp_free;
		vp_free = n;
		return -1;
	}
	return 0;
}

static unsigned int vp_dequeue(fq_u64 now)
{
	struct vcsw_node *n;
	unsigned int len;

	if (!vcsw_port_link_ready(&vp, now))
		return 0;
	n = vcsw_port_dequeue(&vp, now);
	if (!n)
		return 0;
	len = n->len;
	n->next = vp_free;
	vp_free = n;
	return len;
}

/*
 * ---- vcsw-xbar: the crossbar of a Traditional switch of 8 ports, 4 VCs ----
 *
 * kernel/core/vcsw_xbar.h as the soft switch runs it: flow f arrives at
 * input f % 8 on VC f % 4, for an output other than its input chosen by
 * f / 8.  Every dequeue makes one crossbar move (vcsw_xbar_step(), which
 * notes the inputs with frames and where their heads go, then asks those)
 * and sends one frame from the outputs in turn.  What a move costs grows
 * with the ports and VCs, which a one-port case never shows
 * (Documentation/benchmarks.rst, "The crossbar's ask" and "The
 * crossbar's inputs").  No emulated links, no limits.
 */
#define XB_PORTS 8

static struct vcsw_xport xb_port[XB_PORTS];
static struct vcsw_xport *xb_ports[XB_PORTS];
static unsigned int xb_cursor, xb_next_out;

static int xb_setup(unsigned int flows)
{
	unsigned int i;

	if (vp_setup(flows, VCSW_MODE_FIFO))
		return -1;
	for (i = 0; i < XB_PORTS; i++) {
		vcsw_xport_init(&xb_port[i], VCSW_ARCH_TRAD, ~(fq_u32)0,
				~(fq_u32)0, 0);
		vcsw_xport_set_vcs(&xb_port[i], 4);
		xb_ports[i] = &xb_port[i];
	}
	return 0;
}

static int xb_enqueue(unsigned int flow, unsigned int len, fq_u64 now)
{
	struct vcsw_node *n = vp_free;
	unsigned int in = flow % XB_PORTS;

	if (!n)
		return -1;
	vp_free = n->next;
	n->deadline = now;
	n->len = len;
	n->vc = (fq_u8)(flow % 4);
	n->timed = true;
	n->out = (fq_u16)((in + 1 + (flow / XB_PORTS) % (XB_PORTS - 1)) % XB_PORTS);
	if (vcsw_xbar_arrive(xb_ports, XB_PORTS, in, n, now) != VCSW_ENQ_OK) {
		n->next = vp_free;
		vp_free = n;
		return -1;
	}
	return 0;
}

static unsigned int xb_dequeue(fq_u64 now)
{
	unsigned int from, k, len;
	struct vcsw_xbar_look look;
	struct vcsw_node *n;

	/* frames arrived since the last step: a run of its own */
	vcsw_xbar_look_init(&look);
	vcsw_xbar_step(xb_ports, XB_PORTS, VCSW_ARCH_TRAD, now, &xb_cursor, &from, &look);
	for (k = 0; k < XB_PORTS; k++) {
		struct vcsw_port *p = &xb_port[xb_next_out].out;

		xb_next_out = (xb_next_out + 1) % XB_PORTS;
		n = vcsw_port_dequeue(p, now);
		if (n) {
			len = n->len;
			n->next = vp_free;
			vp_free = n;
			return len;
		}
	}
	return 0;
}

/*
 * ---- dtable, sbt, rr: the table schedulers ---------------------------------
 *
 * kernel/core/dtable_core.h with one table entry per class, classes =
 * min(flows, DT_MAX_CLASSES), flow f in class f % classes.  The core holds
 * no packets: each class is a ring of lengths here, and the head callback
 * reads it.  Classes are sized for 1500-byte packets; dtable entries weigh
 * 24 credits of 64 bytes (1536 bytes: 25 of our 60-byte packets per
 * turn), sbt entries 25 packets (sbt-packet: one, sbt's default and the
 * bench's dtable-sbt), rr entries are unweighted.
 */
#define DTB_MTU		1500
#define DTB_CREDIT	64

static struct dt_sched dtb;
static struct dt_class dtb_cls[DT_MAX_CLASSES];
static struct dt_entry dtb_table[DT_MAX_CLASSES];
static unsigned int dtb_ncls;

static int dtb_head(void *ctx, fq_u32 cls)
{
	unsigned int len = ring_head(cls);

	return len ? (int)len : DT_IDLE;
}

static int dtb_setup(unsigned int flows, fq_u8 mode, fq_u32 sbt_weight)
{
	fq_u32 mtus[DT_MAX_CLASSES], bad, i;
	int err;

	dtb_ncls = cap_flows("classes", flows, DT_MAX_CLASSES);
	if (rings_setup(dtb_ncls, flows))
		return -1;
	for (i = 0; i < dtb_ncls; i++) {
		dtb_cls[i].mtu = DTB_MTU;
		mtus[i] = DTB_MTU;
		dtb_table[i].cls = (fq_u16)i;
		dtb_table[i].weight = mode == DT_MODE_DTABLE ?
			(DTB_MTU + DTB_CREDIT - 1) / DTB_CREDIT :
			mode == DT_MODE_SBT ? sbt_weight : 1;
	}
	err = dt_table_check(dtb_table, dtb_ncls, mode, DTB_CREDIT, mtus,
			     dtb_ncls, &bad);
	if (err != DT_TABLE_OK) {
		fprintf(stderr, "core_cost: %s (entry or class %u)\n",
			dt_table_strerror(err), bad);
		return -1;
	}
	dt_init(&dtb, dtb_cls, dtb_ncls, dtb_table, dtb_ncls, mode, DTB_CREDIT);
	return 0;
}

static int dtb_dtable_setup(unsigned int flows)
{
	return dtb_setup(flows, DT_MODE_DTABLE, 0);
}

static int dtb_sbt_setup(unsigned int flows)
{
	return dtb_setup(flows, DT_MODE_SBT, DTB_MTU / 60);
}

static int dtb_sbt_packet_setup(unsigned int flows)
{
	return dtb_setup(flows, DT_MODE_SBT, 1);
}

static int dtb_rr_setup(unsigned int flows)
{
	return dtb_setup(flows, DT_MODE_RR, 0);
}

static int dtb_enqueue(unsigned int flow, unsigned int len, fq_u64 now)
{
	unsigned int c = flow % dtb_ncls;

	if (ring_push(c, len))
		return -1;
	dt_class_active(&dtb, c);
	return 0;
}

static unsigned int dtb_dequeue(fq_u64 now)
{
	int c = dt_pick(&dtb, dtb_head, NULL);
	unsigned int len;

	if (c < 0)
		return 0;
	len = ring_pop(c);
	dt_sent(&dtb, c, len, rings[c].count != 0);
	return len;
}

/*
 * ---- aoq, fbrr: the lane schedulers ----------------------------------------
 *
 * kernel/core/aoq_core.h with lanes = min(flows, AOQ_MAX_LANES), flow f in
 * lane f % lanes, all of weight 1.  As in sch_aoq, the unit is a frame and
 * every packet is a message of one frame (send() returns its tail).  Each
 * lane is a ring of lengths here; one dequeue is one scheduling cycle.
 */
static struct aoq_sched aqs;
static unsigned int aqs_nlanes, aqs_sent;

static enum aoq_tx aqs_send(void *ctx, unsigned int lane)
{
	if (!rings[lane].count)
		return AOQ_TX_NONE;
	aqs_sent = ring_pop(lane);
	return AOQ_TX_TAIL;
}

static bool aqs_backlogged(void *ctx, unsigned int lane)
{
	return rings[lane].count != 0;
}

static const struct aoq_ops aqs_ops = {
	.send = aqs_send,
	.backlogged = aqs_backlogged,
};

static int aqs_setup(unsigned int flows, enum aoq_mode mode)
{
	aqs_nlanes = cap_flows("lanes", flows, AOQ_MAX_LANES);
	if (rings_setup(aqs_nlanes, flows))
		return -1;
	aoq_init(&aqs, mode, aqs_nlanes);
	return 0;
}

static int aqs_aoq_setup(unsigned int flows)
{
	return aqs_setup(flows, AOQ_MODE_AOQ);
}

static int aqs_fbrr_setup(unsigned int flows)
{
	return aqs_setup(flows, AOQ_MODE_FBRR);
}

static int aqs_enqueue(unsigned int flow, unsigned int len, fq_u64 now)
{
	unsigned int lane = flow % aqs_nlanes;

	if (ring_push(lane, len))
		return -1;
	aoq_lane_arrive(&aqs, lane);
	return 0;
}

static unsigned int aqs_dequeue(fq_u64 now)
{
	return aoq_dequeue(&aqs, now, &aqs_ops, NULL) >= 0 ? aqs_sent : 0;
}

static const struct core_discipline disciplines[] = {
	{ "edf", edf_setup, edf_enqueue, edf_dequeue },
	{ "edf-shuffled", edf_shuffled_setup, edf_shuffled_enqueue, edf_dequeue },
	{ "vcsw-fifo", vp_fifo_setup, vp_enqueue, vp_dequeue },
	{ "vcsw-takeover", vp_takeover_setup, vp_enqueue, vp_dequeue },
	{ "vcsw-ideal", vp_ideal_setup, vp_enqueue, vp_dequeue },
	{ "vcsw-xbar", xb_setup, xb_enqueue, xb_dequeue },
	{ "dtable", dtb_dtable_setup, dtb_enqueue, dtb_dequeue },
	{ "sbt", dtb_sbt_setup, dtb_enqueue, dtb_dequeue },
	{ "sbt-packet", dtb_sbt_packet_setup, dtb_enqueue, dtb_dequeue },
	{ "rr", dtb_rr_setup, dtb_enqueue, dtb_dequeue },
	{ "aoq", aqs_aoq_setup, aqs_enqueue, aqs_dequeue },
	{ "fbrr", aqs_fbrr_setup, aqs_enqueue, aqs_dequeue },
};

int main(int argc, char **argv)
{
	const struct core_discipline *d = NULL;
	unsigned long long packets, i, sent = 0, dropped = 0, checksum = 0;
	unsigned int flows, k, backlogged, len;
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
	/*
	 * backlogged: two packets in every flow before the measured loop,
	 * arriving like the others (10 ns apart), so that no core is handed
	 * a burst of simultaneous arrivals it would never see in use
	 */
	if (backlogged)
		for (k = 0; k < 2 * flows; k++) {
			now += 10;
			dropped += d->enqueue(k % flows, 60, now) != 0;
		}

	for (i = 0; i < packets; i++) {
		/* 60-byte packets, one flow after another, 10 ns apart */
		now += 10;
		dropped += d->enqueue(i % flows, 60, now) != 0;
		len = d->dequeue(now);
		checksum += len;
		sent += len != 0;
	}
	printf("checksum=%llu sent=%llu dropped=%llu\n", checksum, sent, dropped);
	return 0;
}
