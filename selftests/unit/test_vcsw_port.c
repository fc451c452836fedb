// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the soft switch's port buffer (kernel/core/vcsw_port.h):
 * the enqueue and dequeue rules of each discipline on hand-made cases,
 * then the appendix's theorems on 100,000 random traces.
 */
#include <math.h>

#include "unit.h"
#include "core/vcsw_port.h"

#define MAXP 64

struct pkt {
	struct vcsw_node node;
	fq_u64 arrival;
	fq_u32 flow;
	fq_u32 seq;		/* per flow, in arrival order */
	int id;
};

static struct pkt pkts[MAXP];

static fq_u64 rnd_state = 0x9e3779b97f4a7c15ULL;

static fq_u64 rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

static struct pkt *mk(int i, fq_u64 deadline, fq_u32 len, fq_u8 vc)
{
	struct pkt *p = &pkts[i];

	memset(p, 0, sizeof(*p));
	p->id = i;
	p->node.deadline = deadline;
	p->node.len = len;
	p->node.vc = vc;
	p->node.timed = true;
	return p;
}

#define PKT(n) ((struct pkt *)(n))

/* Enqueue deadlines at time 0, dequeue everything, return the id order. */
static int drain_order(fq_u8 mode, const fq_u64 *dl, int n, int *out,
		       struct vcsw_vc_stats *st)
{
	struct vcsw_port port;
	struct vcsw_node *nd;
	int i, k = 0;

	vcsw_port_init(&port, mode, 1 << 20, 1 << 20, 0);
	for (i = 0; i < n; i++)
		if (vcsw_port_enqueue(&port, &mk(i, dl[i], 100, 0)->node, 0))
			return -1;
	while ((nd = vcsw_port_dequeue(&port, 0)))
		out[k++] = PKT(nd)->id;
	vcsw_vc_read_stats(&port.vc[0], st);
	return k;
}

UNIT_TEST(fifo_keeps_arrival_order)
{
	const fq_u64 dl[] = { 10, 5, 20, 3 };
	struct vcsw_vc_stats st;
	int out[4];

	ASSERT_EQ(drain_order(VCSW_MODE_FIFO, dl, 4, out, &st), 4);
	EXPECT_EQ(out[0], 0);
	EXPECT_EQ(out[1], 1);
	EXPECT_EQ(out[2], 2);
	EXPECT_EQ(out[3], 3);
	/* 10 leaves before 5 and 3, 5 before 3, 20 before 3 */
	EXPECT_EQ(st.order_errors, 3);
	EXPECT_EQ(st.takeovers, 0);
	EXPECT_EQ(st.packets, 4);
	EXPECT_EQ(st.bytes, 400);
}

UNIT_TEST(takeover_rules)
{
	/* L = [10, 20], U = [5, 3]: 5 overtakes 10, then 3 (behind 5 in U) */
	const fq_u64 dl[] = { 10, 5, 20, 3 };
	struct vcsw_vc_stats st;
	int out[4];

	ASSERT_EQ(drain_order(VCSW_MODE_TAKEOVER, dl, 4, out, &st), 4);
	EXPECT_EQ(out[0], 1);
	EXPECT_EQ(out[1], 3);
	EXPECT_EQ(out[2], 0);
	EXPECT_EQ(out[3], 2);
	EXPECT_EQ(st.takeovers, 2);
	/* 5 left while 3 waited */
	EXPECT_EQ(st.order_errors, 1);
}

UNIT_TEST(takeover_equal_deadline_goes_to_ordered)
{
	struct vcsw_port port;

	vcsw_port_init(&port, VCSW_MODE_TAKEOVER, 1000, 1000, 0);
	vcsw_port_enqueue(&port, &mk(0, 10, 100, 0)->node, 0);
	vcsw_port_enqueue(&port, &mk(1, 10, 100, 0)->node, 0);
	EXPECT_EQ(port.vc[0].ordered.count, 2);
	EXPECT_EQ(port.vc[0].takeover.count, 0);
	vcsw_port_enqueue(&port, &mk(2, 9, 100, 0)->node, 0);
	EXPECT_EQ(port.vc[0].takeover.count, 1);
	/* a tie between the heads goes to the ordered FIFO */
	vcsw_port_enqueue(&port, &mk(3, 20, 100, 0)->node, 0);
	EXPECT_EQ(PKT(vcsw_port_dequeue(&port, 0))->id, 2);
	EXPECT_EQ(PKT(vcsw_port_dequeue(&port, 0))->id, 0);
	EXPECT_EQ(PKT(vcsw_port_dequeue(&port, 0))->id, 1);
	EXPECT_EQ(PKT(vcsw_port_dequeue(&port, 0))->id, 3);
	EXPECT_TRUE(vcsw_port_dequeue(&port, 0) == NULL);
}

UNIT_TEST(ideal_sorted_stable)
{
	const fq_u64 dl[] = { 10, 5, 20, 5, 3 };
	struct vcsw_vc_stats st;
	int out[5];

	ASSERT_EQ(drain_order(VCSW_MODE_IDEAL, dl, 5, out, &st), 5);
	EXPECT_EQ(out[0], 4);
	EXPECT_EQ(out[1], 1);
	EXPECT_EQ(out[2], 3);
	EXPECT_EQ(out[3], 0);
	EXPECT_EQ(out[4], 2);
	EXPECT_EQ(st.order_errors, 0);
}

UNIT_TEST(vc0_strictly_before_vc1)
{
	struct vcsw_port port;

	vcsw_port_init(&port, VCSW_MODE_TAKEOVER, 1000, 1000, 0);
	vcsw_port_enqueue(&port, &mk(0, 1, 100, 1)->node, 0);
	vcsw_port_enqueue(&port, &mk(1, 1000, 100, 0)->node, 0);
	vcsw_port_enqueue(&port, &mk(2, 0, 100, 1)->node, 0);
	EXPECT_EQ(PKT(vcsw_port_dequeue(&port, 0))->id, 1);
	/* VC1 is a FIFO whatever the deadlines say */
	EXPECT_EQ(PKT(vcsw_port_dequeue(&port, 0))->id, 0);
	EXPECT_EQ(PKT(vcsw_port_dequeue(&port, 0))->id, 2);
	EXPECT_EQ(port.vc[1].st.order_errors, 1);
	EXPECT_EQ(port.vc[0].st.packets, 1);
	EXPECT_EQ(port.vc[1].st.packets, 2);
}

/*
 * Four VCs (Traditional 4 VCs): each VC strictly before the next whatever
 * the deadlines and the arrival order, each with its own byte limit; with
 * two, frames that say VC2 or VC3 are best effort, VC1.
 */
UNIT_TEST(four_vcs_each_strictly_before_the_next)
{
	static const fq_u8 vcs_in[] = { 3, 2, 1, 3, 0, 2, 1, 0, 3, 2 };
	struct vcsw_port port;
	struct vcsw_node *nd;
	unsigned int i, k = 0, vc;
	int prev_vc = -1, prev_id[VCSW_MAX_VCS] = { -1, -1, -1, -1 };

	vcsw_port_init(&port, VCSW_MODE_FIFO, 1000, 1000, 0);
	vcsw_port_set_vcs(&port, 4);
	EXPECT_EQ(port.vcs, 4);
	for (i = 0; i < sizeof(vcs_in); i++)
		ASSERT_EQ(vcsw_port_enqueue(&port, &mk(i, 100 - i, 100, vcs_in[i])->node, 0),
			  VCSW_ENQ_OK);
	EXPECT_EQ(vcsw_port_qlen(&port), sizeof(vcs_in));
	EXPECT_EQ(port.vc[3].backlog, 300);
	while ((nd = vcsw_port_dequeue(&port, 0))) {
		/* VC by VC, and each VC a FIFO */
		EXPECT_TRUE((int)nd->vc >= prev_vc);
		EXPECT_TRUE(PKT(nd)->id > prev_id[nd->vc]);
		prev_vc = nd->vc;
		prev_id[nd->vc] = PKT(nd)->id;
		k++;
	}
	EXPECT_EQ(k, sizeof(vcs_in));
	for (vc = 0; vc < VCSW_MAX_VCS; vc++)
		EXPECT_EQ(port.vc[vc].st.packets, vc == 0 ? 2 : vc == 1 ? 2 : 3);
	/* VC3's own limit: 1000 bytes, whatever VC2 holds */
	for (i = 0; i < 10; i++)
		EXPECT_EQ(vcsw_port_enqueue(&port, &mk(i, 1, 100, 3)->node, 0), VCSW_ENQ_OK);
	EXPECT_EQ(vcsw_port_enqueue(&port, &mk(10, 1, 100, 3)->node, 0), VCSW_ENQ_FULL);
	EXPECT_EQ(vcsw_port_enqueue(&port, &mk(11, 1, 100, 2)->node, 0), VCSW_ENQ_OK);
	EXPECT_EQ(port.vc[3].st.drops_full, 1);
	while (vcsw_port_pop(&port))
		;
	EXPECT_EQ(vcsw_port_qlen(&port), 0);

	/* two VCs: VC2 and VC3 are VC1, in arrival order */
	vcsw_port_init(&port, VCSW_MODE_FIFO, 1000, 1000, 0);
	EXPECT_EQ(port.vcs, 2);
	for (i = 0; i < sizeof(vcs_in); i++)
		ASSERT_EQ(vcsw_port_enqueue(&port, &mk(i, 100 - i, 100, vcs_in[i])->node, 0),
			  VCSW_ENQ_OK);
	EXPECT_EQ(port.vc[0].backlog, 200);
	EXPECT_EQ(port.vc[1].backlog, 800);
	EXPECT_EQ(port.vc[2].backlog + port.vc[3].backlog, 0);
	EXPECT_EQ(PKT(vcsw_port_dequeue(&port, 0))->id, 4);
	EXPECT_EQ(PKT(vcsw_port_dequeue(&port, 0))->id, 7);
	for (i = 0; i < sizeof(vcs_in); i++) {
		if (vcs_in[i] == 0)
			continue;
		nd = vcsw_port_dequeue(&port, 0);
		ASSERT_TRUE(nd != NULL);
		EXPECT_EQ(PKT(nd)->id, (int)i);
		EXPECT_EQ(nd->vc, 1);
	}
	/* the count is 2 or 4 */
	vcsw_port_set_vcs(&port, 9);
	EXPECT_EQ(port.vcs, VCSW_MAX_VCS);
	vcsw_port_set_vcs(&port, 0);
	EXPECT_EQ(port.vcs, 2);
}

UNIT_TEST(byte_limits_per_vc)
{
	struct vcsw_port port;

	vcsw_port_init(&port, VCSW_MODE_FIFO, 250, 100, 0);
	EXPECT_EQ(vcsw_port_enqueue(&port, &mk(0, 1, 100, 0)->node, 0), VCSW_ENQ_OK);
	EXPECT_EQ(vcsw_port_enqueue(&port, &mk(1, 1, 100, 0)->node, 0), VCSW_ENQ_OK);
	EXPECT_EQ(vcsw_port_enqueue(&port, &mk(2, 1, 100, 0)->node, 0), VCSW_ENQ_FULL);
	EXPECT_EQ(vcsw_port_enqueue(&port, &mk(3, 1, 50, 0)->node, 0), VCSW_ENQ_OK);
	EXPECT_EQ(vcsw_port_enqueue(&port, &mk(4, 1, 1, 0)->node, 0), VCSW_ENQ_FULL);
	/* VC1 has its own limit, untouched by VC0's backlog */
	EXPECT_EQ(vcsw_port_enqueue(&port, &mk(5, 1, 100, 1)->node, 0), VCSW_ENQ_OK);
	EXPECT_EQ(vcsw_port_enqueue(&port, &mk(6, 1, 1, 1)->node, 0), VCSW_ENQ_FULL);
	EXPECT_EQ(vcsw_port_enqueue(&port, &mk(7, 1, 5000, 1)->node, 0), VCSW_ENQ_FULL);
	EXPECT_EQ(port.vc[0].st.drops_full, 2);
	EXPECT_EQ(port.vc[1].st.drops_full, 2);
	EXPECT_EQ(port.vc[0].st.max_backlog_bytes, 250);
	EXPECT_EQ(port.vc[0].st.max_backlog_packets, 3);
	vcsw_port_dequeue(&port, 0);
	EXPECT_EQ(port.vc[0].backlog, 150);
	EXPECT_EQ(vcsw_port_enqueue(&port, &mk(8, 1, 100, 0)->node, 0), VCSW_ENQ_OK);
}

UNIT_TEST(link_rate_misses_and_sojourn)
{
	struct vcsw_port port;
	struct vcsw_node *n;

	/* 1e6 bytes/s: 1000 bytes take 1 ms */
	vcsw_port_init(&port, VCSW_MODE_FIFO, 1 << 20, 1 << 20, 1000000);
	vcsw_port_enqueue(&port, &mk(0, 5000000, 1000, 0)->node, 0);
	vcsw_port_enqueue(&port, &mk(1, 1500000, 1000, 0)->node, 0);
	EXPECT_TRUE(vcsw_port_link_ready(&port, 0));
	n = vcsw_port_dequeue(&port, 0);
	EXPECT_EQ(PKT(n)->id, 0);
	EXPECT_EQ(port.link_free, 1000000);
	EXPECT_TRUE(!vcsw_port_link_ready(&port, 999999));
	EXPECT_TRUE(vcsw_port_link_ready(&port, 1000000));
	n = vcsw_port_dequeue(&port, 2000000);
	EXPECT_EQ(PKT(n)->id, 1);
	EXPECT_EQ(port.link_free, 3000000);
	EXPECT_EQ(port.vc[0].st.deadline_misses, 1);
	/* FIFO: the first left while the second's smaller deadline waited */
	EXPECT_EQ(port.vc[0].st.order_errors, 1);
	/* 0 us and 2000 us: buckets 0 and 11 ([1024, 2048) us) */
	EXPECT_EQ(port.vc[0].st.sojourn_hist[0], 1);
	EXPECT_EQ(port.vc[0].st.sojourn_hist[11], 1);
	EXPECT_EQ(vcsw_sojourn_bucket(999), 0);
	EXPECT_EQ(vcsw_sojourn_bucket(1000), 1);
	EXPECT_EQ(vcsw_sojourn_bucket(~0ULL), VCSW_SOJOURN_BUCKETS - 1);
}

UNIT_TEST(set_mode_keeps_packets_and_order)
{
	const fq_u64 dl[] = { 10, 5, 20, 3, 7, 30 };
	struct vcsw_port port;
	fq_u64 last = 0;
	int i;

	vcsw_port_init(&port, VCSW_MODE_FIFO, 1 << 20, 1 << 20, 0);
	for (i = 0; i < 6; i++)
		vcsw_port_enqueue(&port, &mk(i, dl[i], 100, 0)->node, 0);
	vcsw_port_set_mode(&port, VCSW_MODE_IDEAL);
	EXPECT_EQ(vcsw_port_qlen(&port), 6);
	for (i = 0; i < 6; i++) {
		struct vcsw_node *n = vcsw_port_dequeue(&port, 0);

		ASSERT_TRUE(n != NULL);
		EXPECT_TRUE(n->deadline >= last);
		last = n->deadline;
	}
	EXPECT_EQ(port.vc[0].backlog, 0);
	EXPECT_TRUE(pheap_is_empty(&port.vc[0].waiting));
}

/*
 * ideal is a sorted buffer fed by arrivals in any order.  The hardest
 * order for a sorted list is falling deadlines (each frame goes to the
 * front, behind the whole buffer); with a tree every insert costs at most
 * its height in deadline comparisons, so the cost per frame grows with
 * log2 of the backlog, not with the backlog.
 */
static fq_u64 ideal_fill(struct vcsw_node *nodes, fq_u32 n, int pattern,
			 fq_u64 *worst)
{
	struct vcsw_node *prev = NULL;
	struct vcsw_port port;
	fq_u64 last = 0, total;
	fq_u32 i;

	vcsw_port_init(&port, VCSW_MODE_IDEAL, ~(fq_u32)0, ~(fq_u32)0, 0);
	*worst = 0;
	total = 0;
	for (i = 0; i < n; i++) {
		fq_u64 cost;

		memset(&nodes[i], 0, sizeof(nodes[i]));
		/* falling; or falling with every 8th deadline repeated */
		nodes[i].deadline = 10000000 - (pattern ? i / 8 : i);
		nodes[i].len = 64;
		nodes[i].timed = true;
		cost = rbq_insert_depth(&port.vc[0].sorted, nodes[i].deadline);
		if (vcsw_port_enqueue(&port, &nodes[i], 0) != VCSW_ENQ_OK)
			return 0;
		total += cost;
		if (cost > *worst)
			*worst = cost;
	}
	/* and it drains in deadline order, ties in arrival order */
	for (i = 0; i < n; i++) {
		struct vcsw_node *d = vcsw_port_dequeue(&port, 0);

		if (!d || d->deadline < last ||
		    (prev && d->deadline == last && d < prev))
			return 0;
		last = d->deadline;
		prev = d;
	}
	if (port.vc[0].st.order_errors)
		return 0;
	return total;
}

UNIT_TEST(ideal_insert_cost_is_logarithmic)
{
	static const fq_u32 sizes[] = { 1024, 16384, 262144 };
	struct vcsw_node *nodes = calloc(262144, sizeof(*nodes));
	double per_frame[3];
	int s, pattern;

	ASSERT_TRUE(nodes != NULL);
	for (pattern = 0; pattern < 2; pattern++) {
		for (s = 0; s < 3; s++) {
			fq_u64 worst, total = ideal_fill(nodes, sizes[s], pattern, &worst);
			double bound = 2 * log2(sizes[s] + 1.0);

			ASSERT_TRUE(total > 0);
			per_frame[s] = (double)total / sizes[s];
			printf("# ideal, %s deadlines, %u frames: %.1f comparisons per insert, "
			       "at most %llu (bound %.1f)\n", pattern ? "falling, repeated" : "falling",
			       sizes[s], per_frame[s], (unsigned long long)worst, bound);
			EXPECT_TRUE(worst <= bound);
		}
		/*
		 * 256 times the backlog: a walk of the buffer would cost 256
		 * times as much per frame, the tree's height about twice
		 */
		EXPECT_TRUE(per_frame[2] < 3 * per_frame[0]);
	}
	free(nodes);
}

/* Ties: frames with equal deadlines leave in arrival order. */
UNIT_TEST(ideal_ties_in_arrival_order)
{
	struct vcsw_node *nodes = calloc(20000, sizeof(*nodes));
	fq_u64 last_dl = 0;
	struct vcsw_node *last = NULL;
	struct vcsw_port port;
	int i, bad = 0;

	ASSERT_TRUE(nodes != NULL);
	vcsw_port_init(&port, VCSW_MODE_IDEAL, ~(fq_u32)0, ~(fq_u32)0, 0);
	for (i = 0; i < 20000; i++) {
		nodes[i].deadline = 1000 + (fq_u64)i * 7919 % 16;
		nodes[i].len = 100;
		vcsw_port_enqueue(&port, &nodes[i], 0);
	}
	for (i = 0; i < 20000; i++) {
		struct vcsw_node *d = vcsw_port_dequeue(&port, 0);

		if (!d || d->deadline < last_dl ||
		    (last && d->deadline == last_dl && d < last))
			bad++;
		last = d;
		last_dl = d ? d->deadline : 0;
	}
	EXPECT_EQ(bad, 0);
	EXPECT_EQ(vcsw_port_qlen(&port), 0);
	EXPECT_EQ(port.vc[0].st.order_errors, 0);
	free(nodes);
}

/* ---- ingress ---------------------------------------------------------------- */

UNIT_TEST(ingress_deadline)
{
	EXPECT_EQ(vcsw_ingress_deadline(5000000000ULL, 1000), 5000001000ULL);
	EXPECT_EQ(vcsw_ingress_deadline(5000000000ULL, -2147483648LL), 2852516352ULL);
	/* early in a boot: before the clock's start is the earliest, not the last */
	EXPECT_EQ(vcsw_ingress_deadline(1000000000ULL, -2147483648LL), 0);
	EXPECT_EQ(vcsw_ingress_deadline(0, -1), 0);
	EXPECT_EQ(vcsw_ingress_deadline(0, 2147483647LL), 2147483647ULL);
}

/* ---- random traces ------------------------------------------------------- */

struct trace {
	int n;
	fq_u64 rate;
	fq_u32 limit;
};

/* Flows with non-decreasing deadlines (ties allowed) and random gaps. */
static void gen_trace(struct trace *t)
{
	fq_u64 fdl[6] = { 0 }, now = 0;
	fq_u32 fseq[6] = { 0 };
	int flows = 1 + rnd() % 6, i;
	fq_u8 fvc[6];

	/* a flow lives in one VC; most flows are regulated */
	for (i = 0; i < 6; i++)
		fvc[i] = rnd() % 5 ? 0 : 1;

	t->n = 2 + rnd() % (MAXP - 2);
	t->rate = 1000000 + rnd() % 100000000;	/* 1 .. 101 MB/s */
	t->limit = rnd() % 4 ? 1 << 20 : 2000 + rnd() % 8000;
	for (i = 0; i < t->n; i++) {
		struct pkt *p = &pkts[i];
		fq_u32 f = rnd() % flows;
		fq_u64 lead;

		memset(p, 0, sizeof(*p));
		now += rnd() % 3 ? rnd() % 20000 : 0;
		/* per flow: after the last deadline, or after now plus a lead */
		lead = rnd() % 200000;
		if (rnd() % 8 == 0)
			fdl[f] += 0;			/* a repeated deadline */
		else
			fdl[f] = edf_max(fdl[f] + 1 + rnd() % 30000, now + lead);
		p->id = i;
		p->flow = f;
		p->seq = fseq[f]++;
		p->arrival = now;
		p->node.deadline = fdl[f];
		p->node.len = 64 + rnd() % 1437;
		p->node.vc = fvc[f];
		p->node.timed = true;
	}
}

struct run_result {
	fq_u64 order_errors;
	fq_u64 drops;
	int reordered;
	int theorem_broken;
};

/* Appendix theorems 1, 2 and lemma 1 on VC0 of a takeover port. */
static int check_takeover_invariants(const struct vcsw_vc *v)
{
	const struct vcsw_node *n, *tail = v->ordered.tail;

	if (v->takeover.count && !v->ordered.count)
		return 1;				/* lemma 1 */
	for (n = v->ordered.head; n && n->next; n = n->next)
		if (n->deadline > n->next->deadline)
			return 2;			/* theorem 1 */
	for (n = v->takeover.head; n; n = n->next)
		if (n->deadline >= tail->deadline)
			return 3;			/* theorem 2 */
	return 0;
}

static void run_trace(const struct trace *t, fq_u8 mode, struct run_result *r)
{
	fq_s64 last_seq[6] = { -1, -1, -1, -1, -1, -1 };
	struct vcsw_port port;
	fq_u64 now = 0;
	int next = 0, i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < t->n; i++) {
		pkts[i].node.next = pkts[i].node.prev = NULL;
		pkts[i].node.in_takeover = false;
	}
	vcsw_port_init(&port, mode, t->limit, t->limit, t->rate);
	while (next < t->n || vcsw_port_qlen(&port)) {
		fq_u64 td = edf_max(now, port.link_free);

		if (next < t->n && (!vcsw_port_qlen(&port) ||
				    pkts[next].arrival <= td)) {
			now = edf_max(now, pkts[next].arrival);
			vcsw_port_enqueue(&port, &pkts[next].node, now);
			next++;
		} else {
			struct pkt *p;

			now = td;
			p = PKT(vcsw_port_dequeue(&port, now));
			if (!p) {
				r->theorem_broken = 10;
				return;
			}
			if ((fq_s64)p->seq <= last_seq[p->flow])
				r->reordered++;
			last_seq[p->flow] = p->seq;
		}
		if (mode == VCSW_MODE_TAKEOVER && !r->theorem_broken)
			r->theorem_broken = check_takeover_invariants(&port.vc[0]);
	}
	r->order_errors = port.vc[0].st.order_errors;
	r->drops = port.vc[0].st.drops_full + port.vc[1].st.drops_full;
}

UNIT_TEST(random_traces_appendix_theorems)
{
	fq_u64 sum[3] = { 0 }, worse = 0, with_errors = 0;
	int broken = 0, reordered = 0, ideal_errors = 0, drops_differ = 0;
	int i;

	for (i = 0; i < 100000; i++) {
		struct run_result r[3];
		struct trace t;
		int m;

		gen_trace(&t);
		for (m = 0; m < 3; m++) {
			run_trace(&t, (fq_u8)m, &r[m]);
			sum[m] += r[m].order_errors;
			reordered += r[m].reordered;
		}
		if (r[VCSW_MODE_TAKEOVER].theorem_broken && !broken) {
			broken = r[VCSW_MODE_TAKEOVER].theorem_broken;
			printf("# trace %d: theorem check %d failed\n", i, broken);
		}
		if (r[VCSW_MODE_IDEAL].order_errors)
			ideal_errors++;
		if (r[VCSW_MODE_TAKEOVER].order_errors >
		    r[VCSW_MODE_FIFO].order_errors)
			worse++;
		if (r[VCSW_MODE_FIFO].order_errors)
			with_errors++;
		if (r[0].drops != r[1].drops)
			drops_differ++;
	}
	printf("# order errors over 100000 traces: fifo %llu takeover %llu ideal %llu; "
	       "takeover worse than fifo on %llu of %llu traces with errors\n",
	       (unsigned long long)sum[0], (unsigned long long)sum[1],
	       (unsigned long long)sum[2], (unsigned long long)worse,
	       (unsigned long long)with_errors);
	EXPECT_EQ(broken, 0);
	EXPECT_EQ(reordered, 0);
	EXPECT_EQ(ideal_errors, 0);
	/*
	 * Take-over is not better on every single trace: serving a small
	 * deadline early changes which packets wait together later, and a
	 * handful of traces (about 3 in 10,000) end with one or two more
	 * order errors than FIFO.  Over the traces it removes most of them.
	 */
	EXPECT_TRUE(worse * 1000 < with_errors);
	EXPECT_TRUE(sum[1] * 2 < sum[0]);
	EXPECT_TRUE(with_errors > 1000);	/* the traces do exercise it */
	(void)drops_differ;
}

int main(void)
{
	return unit_run();
}
