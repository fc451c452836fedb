// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of RECN in the soft switch (kernel/core/vcsw_recn.h and the
 * recn parts of vcsw_port.h and vcsw_xbar.h), on a four-port switch as
 * kernel/vcsw_main.c drives it: frames into input buffers, the crossbar,
 * outputs sending, the box delivered after each step, link messages to a
 * callback.  Hand-made cases (no head-of-line blocking, notification
 * from an output to its inputs and over the link, Xoff and Xon, a lease
 * that runs out, release), then random traffic with random link messages:
 * nothing lost, no flow reordered, every SAQ freed at the end.
 */
#include "unit.h"
#include "core/vcsw_xbar_recn.h"
#include "xbar_plain.h"

#define NPORTS	4
#define MAXF	4096
#define LEN	1000

struct frame {
	struct vcsw_node node;
	fq_u32 flow;
	fq_u32 seq;
	bool used;
};

static struct frame frames[MAXF];
static struct vcsw_xport xp[NPORTS];
static struct vcsw_xport *ports[NPORTS] = { &xp[0], &xp[1], &xp[2], &xp[3] };
static struct vcsw_rq rq_in[NPORTS][VCSW_NUM_VCS], rq_out[NPORTS][VCSW_NUM_VCS];
static struct vcsw_rq_box box;
static struct recn_cfg cfg;
static unsigned int cursor, arch;

/* what went over the links */
struct sent {
	fq_u32 port;
	fq_u8 vc;
	struct recn_msg m;
};
static struct sent sent[4096];
static unsigned int nsent;

static void on_link(void *ctx, fq_u32 port, fq_u8 vc, const struct recn_msg *m)
{
	if (nsent < sizeof(sent) / sizeof(sent[0]))
		sent[nsent++] = (struct sent){ port, vc, *m };
}

static void setup_arch(unsigned int a, fq_u32 in_limit, fq_u32 out_limit)
{
	unsigned int p, vc;

	arch = a;
	memset(frames, 0, sizeof(frames));
	memset(&box, 0, sizeof(box));
	nsent = 0;
	cursor = 0;
	recn_cfg_default(&cfg, LEN);
	for (p = 0; p < NPORTS; p++) {
		vcsw_xport_init(&xp[p], arch, in_limit, out_limit, 0);
		for (vc = 0; vc < VCSW_NUM_VCS; vc++) {
			vcsw_rq_init(&rq_in[p][vc], &cfg, &box, (fq_u16)p, VCSW_RQ_IN, (fq_u8)vc,
				     true);
			vcsw_rq_init(&rq_out[p][vc], &cfg, &box, (fq_u16)p, VCSW_RQ_OUT,
				     (fq_u8)vc, true);
			vcsw_vc_attach_recn(&xp[p].in[vc], &rq_in[p][vc], arch == VCSW_ARCH_RECN);
			vcsw_vc_attach_recn(&xp[p].out.vc[vc], &rq_out[p][vc],
					    arch == VCSW_ARCH_RECN);
		}
	}
}

static void setup(fq_u32 in_limit, fq_u32 out_limit)
{
	setup_arch(VCSW_ARCH_RECN, in_limit, out_limit);
}

/* A route out of port @a here, then port @b at the next switch (-1: none). */
static fq_u32 route2(int a, int b)
{
	unsigned int hops[2] = { (unsigned int)a, (unsigned int)b };
	fq_u32 r = 0;

	if (!fhc_route_build(hops, b < 0 ? 1 : 2, &r))
		abort();	/* the test's own mistake */
	return r;
}

static struct frame *new_frame(void)
{
	unsigned int i;

	for (i = 0; i < MAXF; i++)
		if (!frames[i].used) {
			memset(&frames[i], 0, sizeof(frames[i]));
			frames[i].used = true;
			return &frames[i];
		}
	return NULL;
}

/* A frame of @len at input @in for @route with @sl on @vc; NULL if refused. */
static struct frame *arrive_len(unsigned int in, fq_u32 route, fq_u8 sl, fq_u8 vc, fq_u32 len,
				fq_u64 now, fq_u32 flow, fq_u32 seq)
{
	struct frame *f = new_frame();

	if (!f)
		abort();	/* more frames queued than the test has */
	f->node.len = len;
	f->node.vc = vc;
	f->node.sl = sl;
	f->node.route = route;
	f->node.out = (fq_u16)fhc_route_port(route);
	f->node.from = (fq_u8)in;
	f->node.deadline = now;
	f->flow = flow;
	f->seq = seq;
	if (vcsw_xbar_arrive(ports, NPORTS, in, &f->node, now) != VCSW_ENQ_OK) {
		f->used = false;
		return NULL;
	}
	return f;
}

/* The same, LEN bytes long: VCSW_ENQ_*. */
static int arrive(unsigned int in, fq_u32 route, fq_u8 sl, fq_u8 vc, fq_u64 now,
		  fq_u32 flow, fq_u32 seq)
{
	return arrive_len(in, route, sl, vc, LEN, now, flow, seq) ? VCSW_ENQ_OK : VCSW_ENQ_FULL;
}

/*
 * The crossbar until it moves nothing, one look for the run
 * (vcsw_xbar_run()), every step checked against the plain rule
 * (xbar_plain.h): an input of a recn switch has a head for each output,
 * so the crossbar must ask it for every output.  Aborts on a
 * disagreement, which every test here would otherwise misread.
 */
static void xrun(fq_u64 now)
{
	struct vcsw_xbar_look look;
	bool bad = false;

	vcsw_xbar_look_init(&look);
	while (xbar_checked_step(ports, NPORTS, arch, now, &cursor, &look, &bad))
		;
	if (bad) {
		printf("# the crossbar left the plain rule\n");
		abort();
	}
}

/* Deliver the box and run the crossbar, as vcsw_recn_settle() does. */
static void settle(fq_u64 now)
{
	unsigned int round;

	xrun(now);
	for (round = 0; round < 8 && box.count; round++)
		if (vcsw_xbar_recn_deliver(ports, NPORTS, &box, now, on_link, NULL))
			xrun(now);
}

/* Output @o sends one frame (NULL: none may go), and the box is settled. */
static struct frame *send1(unsigned int o, fq_u64 now)
{
	struct vcsw_node *n = vcsw_port_dequeue(&xp[o].out, now);
	struct frame *f;

	if (!n)
		return NULL;
	f = (struct frame *)n;
	f->used = false;
	settle(now);
	return f;
}

/*
 * The set holds what its queues hold: frames and bytes per queue as the
 * core counts them, all of them as the VC counts them.  0 if so.
 */
static int set_matches_queues(const struct vcsw_rq *rq, const struct vcsw_vc *v)
{
	fq_u32 q, frames = 0, bytes = 0;

	for (q = 0; q < VCSW_RQ_QUEUES; q++) {
		const struct vcsw_node *n;
		fq_u32 f = 0, b = 0, want_f, want_b;

		for (n = rq->q[q].head; n; n = n->next) {
			f++;
			b += n->len;
			if (n->rq_q != q)
				return 1;
		}
		if (f != rq->q[q].count)
			return 2;
		want_f = RECN_Q_IS_SAQ(q) ? rq->set.saq[q - RECN_DETQS].frames : rq->set.detq[q].frames;
		want_b = RECN_Q_IS_SAQ(q) ? rq->set.saq[q - RECN_DETQS].bytes : rq->set.detq[q].bytes;
		if (f != want_f || b != want_b)
			return 3;
		frames += f;
		bytes += b;
	}
	return frames == rq->frames && bytes == v->backlog ? 0 : 4;
}

/* Tick every set as the switch does; true if a lease ended somewhere. */
static bool tick(fq_u64 now)
{
	bool woke = false;

	vcsw_xbar_recn_tick(ports, NPORTS, &box, now, on_link, NULL, &woke);
	settle(now);
	return woke;
}

static int saq_of(const struct vcsw_rq *rq, fq_u64 turns, fq_u8 len, fq_u8 sl)
{
	struct recn_point pt = { turns, len, sl };

	return recn_saq_find(&rq->set, &pt);
}

static unsigned int link_sent(fq_u32 port, fq_u8 kind)
{
	unsigned int i, k = 0;

	for (i = 0; i < nsent; i++)
		k += sent[i].port == port && sent[i].m.kind == kind;
	return k;
}

/*
 * Input 0 holds frames for output 1, which is full, then one for output
 * 2: with recn the last crosses, with trad it waits behind the others.
 */
UNIT_TEST(no_head_of_line_blocking_behind_a_full_output)
{
	unsigned int a, k;

	for (a = 0; a < 2; a++) {
		setup_arch(a ? VCSW_ARCH_RECN : VCSW_ARCH_TRAD, 100 * LEN, 2 * LEN);
		for (k = 0; k < 4; k++)
			EXPECT_EQ(arrive(0, route2(1, -1), 4, 1, 0, 0, k), VCSW_ENQ_OK);
		EXPECT_EQ(arrive(0, route2(2, -1), 4, 1, 0, 1, 0), VCSW_ENQ_OK);
		settle(0);
		EXPECT_EQ(vcsw_port_qlen(&xp[1].out), 2);
		EXPECT_EQ(vcsw_port_qlen(&xp[2].out), a ? 1u : 0u);
	}
}

/*
 * Output 1's frames for the next switch's port 3 pile up: the root there
 * notifies input 0, which sets a SAQ aside for the point "1, then 3" (as
 * seen at the input: digits 2, 4) with the frames' SL.  The next frame of
 * the point and SL goes to it, one of another SL does not; once it has
 * crossed, the empty SAQ is freed and says so downstream.
 */
UNIT_TEST(congestion_at_an_output_makes_saqs_upstream)
{
	fq_u32 hot = route2(1, 3);
	struct frame *a, *b;
	unsigned int k;
	int i;

	setup(100 * LEN, 100 * LEN);
	/* each crosses at once: the input never holds two, the output does */
	for (k = 0; k < 2; k++) {
		EXPECT_EQ(arrive(0, hot, 5, 1, 0, 0, k), VCSW_ENQ_OK);
		settle(0);
	}
	/* output side: the root of detection queue 4 (port 3 + 1) with SL 5 */
	EXPECT_EQ(rq_out[1][1].set.st.root_alloc, 1);
	EXPECT_EQ(rq_out[1][1].set.st.notify_tx, 1);
	i = saq_of(&rq_in[0][1], 2 | 4 << 6, 2, 5);
	ASSERT_TRUE(i >= 0);
	/* the CAM line holds the SL */
	EXPECT_EQ(saq_of(&rq_in[0][1], 2 | 4 << 6, 2, 4), -1);
	EXPECT_EQ(arrive(0, hot, 5, 1, 0, 0, 2), VCSW_ENQ_OK);
	EXPECT_EQ(arrive(0, hot, 6, 1, 0, 1, 0), VCSW_ENQ_OK);
	a = &frames[2];
	b = &frames[3];
	EXPECT_EQ(a->node.rq_q, RECN_Q_SAQ((fq_u32)i));
	EXPECT_EQ(b->node.rq_q, 2);
	settle(0);
	EXPECT_EQ(vcsw_vc_qlen(&xp[1].out.vc[1]), 4);
	/* empty, and nothing upstream holds a SAQ for it: freed, and told */
	EXPECT_EQ(saq_of(&rq_in[0][1], 2 | 4 << 6, 2, 5), -1);
	EXPECT_EQ(rq_in[0][1].set.st.saq_free, 1);
	EXPECT_EQ(rq_out[1][1].set.st.release_rx, 1);
	/* nothing went to the link: no queue of the input was congested */
	EXPECT_EQ(link_sent(0, RECN_MSG_NOTIFY), 0);
}

/*
 * Output 1 never sends: Xoff reaches input 0's SAQ, which stops; frames
 * for output 2 still cross; the output drains below xon, and the SAQ's
 * frames cross again.  The input's SAQ, congested itself, notifies the
 * link's far end with the point as it sees it.
 */
UNIT_TEST(xoff_stops_a_saq_and_xon_restarts_it)
{
	fq_u32 hot = route2(1, 3);
	unsigned int k, sent_out;
	int i;

	setup(100 * LEN, 100 * LEN);
	for (k = 0; k < 12; k++) {
		EXPECT_EQ(arrive(0, hot, 5, 1, 0, 0, k), VCSW_ENQ_OK);
		settle(0);
	}
	i = saq_of(&rq_in[0][1], 2 | 4 << 6, 2, 5);
	ASSERT_TRUE(i >= 0);
	EXPECT_TRUE(rq_out[1][1].set.st.xoff_tx >= 1);
	EXPECT_TRUE(rq_in[0][1].set.saq[i].stopped);
	/* the output holds what came before the Xoff, not all twelve */
	EXPECT_TRUE(vcsw_vc_qlen(&xp[1].out.vc[1]) < 12);
	EXPECT_TRUE(rq_in[0][1].set.saq[i].frames > 0);
	EXPECT_TRUE(link_sent(0, RECN_MSG_NOTIFY) >= 1);
	EXPECT_EQ(sent[0].m.pt.turns, 2 | 4 << 6);
	EXPECT_EQ(sent[0].m.pt.len, 2);
	EXPECT_EQ(sent[0].m.pt.sl, 5);
	EXPECT_EQ(sent[0].vc, 1);
	/* another output is not held up */
	EXPECT_EQ(arrive(0, route2(2, -1), 5, 1, 0, 1, 0), VCSW_ENQ_OK);
	settle(0);
	EXPECT_EQ(vcsw_port_qlen(&xp[2].out), 1);
	/* drain output 1: Xon lets the SAQ go, and every frame comes out in order */
	for (k = 0, sent_out = 0; k < 100 && sent_out < 12; k++) {
		struct frame *f = send1(1, 1000);

		if (!f)
			break;
		EXPECT_EQ(f->seq, sent_out);
		sent_out++;
	}
	EXPECT_EQ(sent_out, 12);
	EXPECT_TRUE(rq_out[1][1].set.st.xon_tx >= 1);
}

/* The ports the root of output @o's detection queue @d with @sl told, or 0. */
static fq_u64 root_told(unsigned int o, fq_u32 d, fq_u8 sl)
{
	const struct recn_set *s = &rq_out[o][1].set;
	unsigned int i;

	for (i = 0; i < RECN_ROOT_MAX; i++)
		if (s->root[i].used && s->root[i].detq == d && s->root[i].sl == sl)
			return s->root[i].t.told;
	return 0;
}

/* Input @in's SAQ on VC 1, if it has exactly one, else -1. */
static int only_saq(unsigned int in)
{
	fq_u32 used = rq_in[in][1].set.saq_used;

	if (!used || (used & (used - 1)))
		return -1;
	return __builtin_ctz(used);
}

/*
 * A RELEASE that crosses a notification.  Output 1 (the hot spot, a
 * route that ends at the next hop: its root is detection queue 0) lets
 * input 0's stopped SAQ go at Xon; the crossbar moves all of it in one
 * run, so the first of its frames finds the root congested again, which
 * notifies input 0 anew (a refresh period has passed) and stops it, and
 * the last empties the SAQ, which is freed: RELEASE.  Both are delivered
 * after the run: the notification gives input 0 a new SAQ, stopped, and
 * the RELEASE reaches the root after it.  The root must still count
 * input 0 as told, or it never repeats its Xoff there: the new SAQ's
 * lease runs out while the hot spot is still full, and every frame it
 * gathered meanwhile goes on into it (vcsw_recn, 2026-12-07: a host's
 * frames through a port that churned so took the whole hot spot, and
 * the others' SAQs stayed stopped).
 */
UNIT_TEST(release_crossing_a_notification_keeps_the_port_told)
{
	fq_u32 hot = route2(1, -1), seq = 0, out;
	fq_u64 now = 0, leases, free0, notified0;
	struct frame *f;
	unsigned int k;
	int i;

	setup(100 * LEN, 100 * LEN);
	/* input 0 faces a host that does not run RECN: its SAQs are leaves */
	vcsw_rq_init(&rq_in[0][1], &cfg, &box, 0, VCSW_RQ_IN, 1, false);
	for (k = 0; k < 8; k++) {
		EXPECT_EQ(arrive(0, hot, 5, 1, now, 0, seq++), VCSW_ENQ_OK);
		settle(now);
	}
	i = only_saq(0);
	ASSERT_TRUE(i >= 0);
	ASSERT_TRUE(rq_in[0][1].set.saq[i].stopped);
	ASSERT_TRUE(rq_in[0][1].set.saq[i].frames >= 2);
	/* a refresh period on: the root may notify input 0 again */
	now += cfg.refresh_ns;
	tick(now);
	free0 = rq_in[0][1].set.st.saq_free;
	notified0 = rq_in[0][1].set.st.notify_rx;
	/* output 1 sends until its Xon lets the SAQ go */
	for (out = 0; out < 8 && rq_in[0][1].set.st.xon_rx == 0; out++) {
		f = send1(1, now);
		ASSERT_TRUE(f != NULL);
		EXPECT_EQ(f->seq, out);
	}
	ASSERT_TRUE(rq_in[0][1].set.st.xon_rx >= 1);
	/* it crossed whole, was freed, and its RELEASE crossed a notification */
	EXPECT_EQ(vcsw_vc_qlen(&xp[0].in[1]), 0);
	EXPECT_EQ(rq_in[0][1].set.st.saq_free, free0 + 1);
	EXPECT_EQ(rq_in[0][1].set.st.notify_rx, notified0 + 1);
	i = only_saq(0);
	ASSERT_TRUE(i >= 0);
	EXPECT_TRUE(rq_in[0][1].set.saq[i].stopped);
	EXPECT_TRUE(root_told(1, 0, 5) & 1);
	/*
	 * More frames for the hot spot wait in the new SAQ while output 1,
	 * still above xon, sends nothing: its repeated Xoff keeps them there,
	 * lease after lease.
	 */
	for (k = 0; k < 3; k++)
		EXPECT_EQ(arrive(0, hot, 5, 1, now, 0, seq++), VCSW_ENQ_OK);
	settle(now);
	leases = rq_in[0][1].set.st.lease_expired;
	for (k = 0; k < 4 * cfg.lease_ns / cfg.refresh_ns; k++) {
		now += cfg.refresh_ns;
		tick(now);
	}
	EXPECT_EQ(rq_in[0][1].set.st.lease_expired, leases);
	EXPECT_EQ(vcsw_vc_qlen(&xp[0].in[1]), 3);
	/* then output 1 drains, and every frame leaves in order */
	for (; out < seq; out++) {
		f = send1(1, now);
		if (!f) {
			now += cfg.refresh_ns;
			tick(now);
			f = send1(1, now);
		}
		ASSERT_TRUE(f != NULL);
		EXPECT_EQ(f->seq, out);
	}
	EXPECT_EQ(vcsw_vc_qlen(&xp[0].in[1]), 0);
	EXPECT_EQ(vcsw_port_qlen(&xp[1].out), 0);
}

/*
 * A tick that comes late, after the lease of a SAQ whose notifier still
 * holds its Xoff.  Output 1 (the hot spot) never sends, so its root
 * stays past xoff and repeats the Xoff at every tick; the input's SAQ
 * must stay stopped whatever order the tick takes the ports in: the
 * repeat has to reach the input before its lease is looked at, or the
 * lease ends and the crossbar moves the SAQ's frames into the full
 * output before the repeat lands (the debug kernel, whose timers come
 * late, 2026-12-07: 840 leases ran out at each port facing a hot host
 * in one vcsw_recn run).  Input 0 is ticked before the output, input 2
 * after it.
 */
UNIT_TEST(late_tick_keeps_a_saq_stopped_while_its_notifier_holds_xoff)
{
	unsigned int ins[2] = { 0, 2 }, v, k, held;
	fq_u32 hot = route2(1, -1), seq = 0;
	fq_u64 now = 0;
	int i;

	for (v = 0; v < 2; v++) {
		unsigned int in = ins[v];

		setup(100 * LEN, 100 * LEN);
		/* the input faces a host that does not run RECN: a leaf SAQ */
		vcsw_rq_init(&rq_in[in][1], &cfg, &box, (fq_u16)in, VCSW_RQ_IN, 1, false);
		now = 0;
		for (k = 0; k < 12; k++) {
			EXPECT_EQ(arrive(in, hot, 5, 1, now, 0, seq++), VCSW_ENQ_OK);
			settle(now);
		}
		i = only_saq(in);
		ASSERT_TRUE(i >= 0);
		ASSERT_TRUE(rq_in[in][1].set.saq[i].stopped);
		held = vcsw_vc_qlen(&xp[in].in[1]);
		ASSERT_TRUE(held >= 2);
		/* ticks late by a lease and more, many times over */
		for (k = 0; k < 1000; k++) {
			now += cfg.lease_ns + cfg.refresh_ns * (k % 3);
			EXPECT_TRUE(!tick(now));
		}
		EXPECT_EQ(rq_in[in][1].set.st.lease_expired, 0);
		EXPECT_TRUE(rq_in[in][1].set.saq[i].stopped);
		EXPECT_EQ(vcsw_vc_qlen(&xp[in].in[1]), held);
	}
}

/*
 * The tick finds the box holding an Xon that a settle left there (it
 * stops after a few rounds, vcsw_recn_settle()): the tick delivers it,
 * and must say that a SAQ may go, or nothing runs the crossbar for it
 * until some other event (the tick's own delivery ignored what reached
 * the sets, since the outputs are ticked first).
 */
UNIT_TEST(tick_reports_an_xon_left_in_the_box)
{
	fq_u32 hot = route2(1, -1), xon;
	unsigned int k, held;
	bool woke = false;
	int i;

	setup(100 * LEN, 100 * LEN);
	vcsw_rq_init(&rq_in[0][1], &cfg, &box, 0, VCSW_RQ_IN, 1, false);
	for (k = 0; k < 12; k++) {
		EXPECT_EQ(arrive(0, hot, 5, 1, 0, 0, k), VCSW_ENQ_OK);
		settle(0);
	}
	i = only_saq(0);
	ASSERT_TRUE(i >= 0);
	ASSERT_TRUE(rq_in[0][1].set.saq[i].stopped);
	held = vcsw_vc_qlen(&xp[0].in[1]);
	ASSERT_TRUE(held > 0);
	/* output 1 sends until it posts Xon; nobody delivers it */
	xon = rq_out[1][1].set.st.xon_tx;
	for (k = 0; k < 12 && rq_out[1][1].set.st.xon_tx == xon; k++)
		ASSERT_TRUE(vcsw_port_dequeue(&xp[1].out, 0) != NULL);
	ASSERT_TRUE(rq_out[1][1].set.st.xon_tx > xon);
	ASSERT_TRUE(box.count > 0);
	/* a tick within the lease: only the Xon can let the SAQ go */
	vcsw_xbar_recn_tick(ports, NPORTS, &box, cfg.refresh_ns, on_link, NULL, &woke);
	EXPECT_TRUE(!rq_in[0][1].set.saq[i].stopped);
	EXPECT_EQ(rq_in[0][1].set.st.lease_expired, 0);
	EXPECT_TRUE(woke);
	/* and the crossbar the caller runs for it moves the SAQ's frames */
	xrun(cfg.refresh_ns);
	EXPECT_TRUE(vcsw_vc_qlen(&xp[0].in[1]) < held);
}

/*
 * The far end of port 1 notifies a point behind it: port 1's output side
 * sets frames for it aside; Xoff from there stops them and not the
 * others; the lease ends it when no Xon comes; the empty SAQ is freed
 * and RELEASE goes back over the link.
 */
UNIT_TEST(link_notification_xoff_lease_and_release)
{
	struct recn_msg m = { RECN_MSG_NOTIFY, { 5, 1, 2 } };
	fq_u32 far = route2(1, 4), near = route2(1, 0);
	struct frame *f;
	int i;

	setup(100 * LEN, 100 * LEN);
	EXPECT_EQ(vcsw_xbar_recn_receive(ports, NPORTS, 1, 1, &m, 0), VCSW_RECN_RX_TAKEN);
	i = saq_of(&rq_out[1][1], 5, 1, 2);
	ASSERT_TRUE(i >= 0);
	m.kind = RECN_MSG_XOFF;
	EXPECT_EQ(vcsw_xbar_recn_receive(ports, NPORTS, 1, 1, &m, 0), VCSW_RECN_RX_TAKEN);
	/* a repeat changes nothing; an Xon wakes the SAQ, and says so */
	EXPECT_EQ(vcsw_xbar_recn_receive(ports, NPORTS, 1, 1, &m, 0), VCSW_RECN_RX_TAKEN);
	m.kind = RECN_MSG_XON;
	EXPECT_EQ(vcsw_xbar_recn_receive(ports, NPORTS, 1, 1, &m, 0), VCSW_RECN_RX_WOKE);
	EXPECT_TRUE(!rq_out[1][1].set.saq[i].stopped);
	m.kind = RECN_MSG_XOFF;
	EXPECT_EQ(vcsw_xbar_recn_receive(ports, NPORTS, 1, 1, &m, 0), VCSW_RECN_RX_TAKEN);
	EXPECT_TRUE(rq_out[1][1].set.saq[i].stopped);
	EXPECT_EQ(arrive(0, far, 2, 1, 0, 0, 0), VCSW_ENQ_OK);
	EXPECT_EQ(arrive(0, near, 2, 1, 0, 1, 0), VCSW_ENQ_OK);
	settle(0);
	EXPECT_EQ(rq_out[1][1].set.saq[i].frames, 1);
	f = send1(1, 10);
	ASSERT_TRUE(f != NULL);
	EXPECT_EQ(f->flow, 1);
	EXPECT_TRUE(send1(1, 20) == NULL);
	/* no Xon: the lease ends it, and the tick says so */
	EXPECT_TRUE(!tick(cfg.lease_ns - 10));
	EXPECT_TRUE(rq_out[1][1].set.saq[i].stopped);
	EXPECT_TRUE(tick(cfg.lease_ns + 10));
	EXPECT_TRUE(!rq_out[1][1].set.saq[i].stopped);
	EXPECT_EQ(rq_out[1][1].set.st.lease_expired, 1);
	f = send1(1, cfg.lease_ns + 20);
	ASSERT_TRUE(f != NULL);
	EXPECT_EQ(f->flow, 0);
	/* empty and a leaf: freed, and the far end told */
	EXPECT_EQ(saq_of(&rq_out[1][1], 5, 1, 2), -1);
	EXPECT_EQ(link_sent(1, RECN_MSG_RELEASE), 1);
	/* a message for a VC recn does not run, or a port past the end */
	EXPECT_EQ(vcsw_xbar_recn_receive(ports, NPORTS, 1, 2, &m, 0), VCSW_RECN_RX_NONE);
	EXPECT_EQ(vcsw_xbar_recn_receive(ports, NPORTS, NPORTS, 1, &m, 0), VCSW_RECN_RX_NONE);
}

/* Where posted messages go, and points rewritten on the way. */
UNIT_TEST(messages_find_their_way)
{
	struct vcsw_rq_note n = { { RECN_MSG_NOTIFY, { 4, 1, 3 } }, 2, VCSW_RQ_OUT, 1, 1 };
	enum vcsw_rq_side side;
	struct recn_msg m;
	fq_u32 port;

	/* an output tells input 2: its own digit (1 + 1) in front */
	EXPECT_EQ(vcsw_rq_dest_of(&n, &m, &port, &side), VCSW_RQ_TO_SET);
	EXPECT_EQ(port, 2);
	EXPECT_EQ(side, VCSW_RQ_IN);
	EXPECT_EQ(m.pt.turns, 2 | 4 << 6);
	EXPECT_EQ(m.pt.len, 2);
	/* an input's RELEASE goes to the output the point names first */
	n = (struct vcsw_rq_note){ { RECN_MSG_RELEASE, { 3 | 5 << 6, 2, 3 } },
				   RECN_DOWNSTREAM, VCSW_RQ_IN, 1, 0 };
	EXPECT_EQ(vcsw_rq_dest_of(&n, &m, &port, &side), VCSW_RQ_TO_SET);
	EXPECT_EQ(port, 2);
	EXPECT_EQ(side, VCSW_RQ_OUT);
	EXPECT_EQ(m.pt.turns, 5);
	EXPECT_EQ(m.pt.len, 1);
	/* a point of one digit ends at the switch: nothing downstream */
	n.m.pt = (struct recn_point){ 3, 1, 3 };
	EXPECT_EQ(vcsw_rq_dest_of(&n, &m, &port, &side), VCSW_RQ_TO_NONE);
	/* an input's notification goes over its link, unchanged */
	n = (struct vcsw_rq_note){ { RECN_MSG_NOTIFY, { 3 | 5 << 6, 2, 3 } }, 0, VCSW_RQ_IN, 1, 3 };
	EXPECT_EQ(vcsw_rq_dest_of(&n, &m, &port, &side), VCSW_RQ_TO_LINK);
	EXPECT_EQ(port, 3);
	EXPECT_EQ(m.pt.turns, 3 | 5 << 6);
	/* so does an output's RELEASE */
	n.side = VCSW_RQ_OUT;
	n.to = RECN_DOWNSTREAM;
	EXPECT_EQ(vcsw_rq_dest_of(&n, &m, &port, &side), VCSW_RQ_TO_LINK);
	/* an output's point that would be too long upstream goes nowhere */
	n = (struct vcsw_rq_note){ { RECN_MSG_NOTIFY, { 0x3fffffff, 6, 3 } }, 1, VCSW_RQ_OUT, 1, 1 };
	EXPECT_EQ(vcsw_rq_dest_of(&n, &m, &port, &side), VCSW_RQ_TO_NONE);
	EXPECT_EQ(vcsw_rq_side_of_link_msg(&(struct recn_msg){ RECN_MSG_FULL, { 1, 1, 0 } }),
		  VCSW_RQ_IN);
	EXPECT_EQ(vcsw_rq_side_of_link_msg(&(struct recn_msg){ RECN_MSG_XON, { 1, 1, 0 } }),
		  VCSW_RQ_OUT);
}

/* A full box drops what is posted, and counts it on the set that posted. */
UNIT_TEST(a_full_box_drops_and_counts)
{
	struct recn_msg m = { RECN_MSG_XON, { 1, 1, 0 } };
	unsigned int k;

	setup(100 * LEN, 100 * LEN);
	for (k = 0; k < VCSW_RQ_BOX + 5; k++)
		vcsw_rq_post(&rq_out[2][0], 1, &m);
	EXPECT_EQ(box.count, VCSW_RQ_BOX);
	EXPECT_EQ(box.dropped, 5);
	EXPECT_EQ(rq_out[2][0].dropped, 5);
	vcsw_xbar_recn_deliver(ports, NPORTS, &box, 0, on_link, NULL);
	EXPECT_EQ(box.count, 0);
	/* each reached input 1's set, which has no such SAQ: stale */
	EXPECT_EQ(rq_in[1][0].set.st.stale_rx, VCSW_RQ_BOX);
}

/*
 * Random traffic through the four ports: flows from each input over two
 * hops with random SLs on both VCs; outputs that send at random speeds
 * (one slow: congestion); random link messages, valid or not, from the
 * far ends; ticks.  Nothing is lost or reordered, the sets' counts match
 * the queues, and once the traffic ends and everything has drained, every
 * SAQ and root is freed.
 */
#define RFLOWS	48
UNIT_TEST(random_traffic_keeps_order_and_frees_everything)
{
	struct { fq_u32 in, route, next_seq, out_seq; fq_u8 sl, vc; } fl[RFLOWS];
	fq_u64 now = 0, alloc = 0, freed = 0, queued_in = 0;
	unsigned int step, i, p, vc, k, sent_total = 0, arrived_total = 0;

	setup(16 * LEN, 24 * LEN);
	for (i = 0; i < RFLOWS; i++) {
		unsigned int a = unit_rnd_below(NPORTS), b;

		do {
			b = unit_rnd_below(NPORTS);
		} while (b == a);
		fl[i].in = a;
		fl[i].route = route2((int)b, (int)unit_rnd_below(6) - 1);
		fl[i].sl = (fq_u8)unit_rnd_below(8);
		fl[i].vc = fl[i].sl < 4 ? 0 : 1;
		fl[i].next_seq = fl[i].out_seq = 0;
	}
	for (step = 0; step < 60000; step++) {
		bool traffic = step < 40000;

		now += 200 + unit_rnd_below(400);
		/* arrivals, only into room (the credits' promise) */
		for (k = 0; traffic && k < 2; k++) {
			unsigned int f = unit_rnd_below(RFLOWS);

			if (!vcsw_vc_has_room(&xp[fl[f].in].in[fl[f].vc], LEN))
				continue;
			ASSERT_EQ(arrive(fl[f].in, fl[f].route, fl[f].sl, fl[f].vc, now, f,
					 fl[f].next_seq), VCSW_ENQ_OK);
			fl[f].next_seq++;
			arrived_total++;
		}
		settle(now);
		/* outputs send; output 3 at a quarter of the speed */
		for (p = 0; p < NPORTS; p++) {
			struct frame *f;

			if (p == 3 && unit_rnd_below(4))
				continue;
			f = send1(p, now);
			if (!f)
				continue;
			if (f->seq != fl[f->flow].out_seq)
				UNIT_FAIL("flow %u: seq %u after %u", f->flow, f->seq,
					  fl[f->flow].out_seq);
			fl[f->flow].out_seq = f->seq + 1;
			sent_total++;
		}
		/* the far ends say things, some of them nonsense */
		if (!unit_rnd_below(8)) {
			struct recn_msg m;

			m.kind = (fq_u8)(1 + unit_rnd_below(6));
			m.pt.len = (fq_u8)(1 + unit_rnd_below(3));
			m.pt.turns = unit_rnd_below(8) |
				     (fq_u64)unit_rnd_below(6) << 6 * unit_rnd_below(3);
			m.pt.sl = (fq_u8)unit_rnd_below(9);
			vcsw_xbar_recn_receive(ports, NPORTS, unit_rnd_below(NPORTS),
					       (fq_u8)unit_rnd_below(2), &m, now);
			settle(now);
		}
		if (!(step % 64))
			tick(now);
		/* the sets hold what the queues hold */
		if (!(step % 256)) {
			for (p = 0; p < NPORTS; p++)
				for (vc = 0; vc < VCSW_NUM_VCS; vc++) {
					EXPECT_EQ(set_matches_queues(&rq_in[p][vc], &xp[p].in[vc]), 0);
					EXPECT_EQ(set_matches_queues(&rq_out[p][vc], &xp[p].out.vc[vc]),
						  0);
				}
		}
	}
	/* drained, with time for the leases and idle lines to end */
	for (step = 0; step < 20; step++) {
		now += cfg.idle_ns;
		tick(now);
		for (p = 0; p < NPORTS; p++)
			while (send1(p, now))
				sent_total++;
	}
	EXPECT_EQ(sent_total, arrived_total);
	for (p = 0; p < NPORTS; p++)
		for (vc = 0; vc < VCSW_NUM_VCS; vc++) {
			const struct vcsw_rq *s[2] = { &rq_in[p][vc], &rq_out[p][vc] };

			for (k = 0; k < 2; k++) {
				queued_in += s[k]->frames;
				alloc += s[k]->set.st.saq_alloc;
				freed += s[k]->set.st.saq_free;
				EXPECT_EQ(recn_saqs_used(&s[k]->set), 0);
				for (i = 0; i < RECN_ROOT_MAX; i++)
					EXPECT_TRUE(!s[k]->set.root[i].used);
			}
		}
	EXPECT_EQ(queued_in, 0);
	EXPECT_EQ(alloc, freed);
	/* the run did exercise RECN: lines made and Xoffs sent */
	EXPECT_TRUE(alloc > 20);
	printf("# %u frames, %llu SAQs allocated and freed, %u link messages, box dropped %llu\n",
	       arrived_total, (unsigned long long)alloc, nsent,
	       (unsigned long long)box.dropped);
}

/*
 * An output buffer made smaller on a live switch (vcsw_xbar_remove_unfit())
 * takes a frame out of the middle of an input's set: a SAQ that waits
 * for its point's older frame in the detection queue must go on waiting.
 * @variant 0: the frame taken is in the SAQ itself; 1: it is a frame of
 * another point behind the older one in the detection queue.
 */
static void remove_unfit_case(int *unit_failed, int variant)
{
	fq_u32 hot = route2(1, 3), other = route2(1, 2);
	struct recn_msg m = { RECN_MSG_NOTIFY, { 2 | 4 << 6, 2, 5 } };
	struct vcsw_list gone;
	fq_u32 order[8], n = 0, k;
	struct frame *f;
	int s;

	setup(100 * LEN, 3 * LEN);
	/* output 1 full, from input 2 (no route: forwarded by MAC) */
	for (k = 0; k < 3; k++)
		ASSERT_TRUE(arrive_len(2, route2(1, -1), 0, 1, LEN, 0, 9, k) != NULL);
	settle(0);
	ASSERT_EQ(vcsw_vc_qlen(&xp[1].out.vc[1]), 3);
	/* flow 0: its first frame waits in input 0's detection queue of output 1 */
	ASSERT_TRUE(arrive_len(0, hot, 5, 1, 500, 0, 0, 0) != NULL);
	/* output 1 notifies input 0 of the point (1, then 3): a SAQ, behind it */
	vcsw_rq_receive(&rq_in[0][1], &m, 1, 0);
	s = saq_of(&rq_in[0][1], 2 | 4 << 6, 2, 5);
	ASSERT_TRUE(s >= 0);
	ASSERT_TRUE(recn_saq_waiting(&rq_in[0][1].set, (fq_u32)s));
	if (variant == 0) {
		/* flow 0's next frames go to the SAQ: a large one, then a small one */
		ASSERT_TRUE(arrive_len(0, hot, 5, 1, 2500, 0, 0, 1) != NULL);
		ASSERT_TRUE(arrive_len(0, hot, 5, 1, 500, 0, 0, 2) != NULL);
	} else {
		/* a large frame of another point behind it in the detection queue */
		ASSERT_TRUE(arrive_len(0, other, 5, 1, 2500, 0, 1, 0) != NULL);
		ASSERT_TRUE(arrive_len(0, hot, 5, 1, 500, 0, 0, 1) != NULL);
	}
	/* output 1's buffer made smaller: the 2500-byte frame can never cross */
	xp[1].out.vc[1].limit = 2 * LEN;
	vcsw_list_init(&gone);
	EXPECT_EQ(vcsw_xbar_remove_unfit(ports, 0, 1, &gone, 0), 1);
	EXPECT_EQ(set_matches_queues(&rq_in[0][1], &xp[0].in[1]), 0);
	/* the older frame is still in the detection queue: the SAQ still waits */
	EXPECT_TRUE(recn_saq_waiting(&rq_in[0][1].set, (fq_u32)s));
	/* a frame to output 3 crosses: the round robin moves past queue 2 */
	ASSERT_TRUE(arrive_len(0, route2(3, -1), 0, 1, 500, 0, 7, 0) != NULL);
	settle(0);
	/* drain output 1: flow 0 in order */
	for (k = 0; k < 20; k++) {
		f = send1(1, 10 + k);
		if (!f)
			break;
		if (f->flow == 0 && n < 8)
			order[n++] = f->seq;
	}
	ASSERT_EQ(n, 2);
	EXPECT_TRUE(order[0] < order[1]);
}

UNIT_TEST(taking_a_frame_out_keeps_a_saq_behind_older_frames)
{
	remove_unfit_case(unit_failed, 0);
	remove_unfit_case(unit_failed, 1);
}

/*
 * A frame taken out (vcsw_rq_remove()) was not served: the round robin
 * goes on from the queue served last.  Input 0 holds frames for outputs
 * 1, 2, 3 and 1 again; output 1's first is served; taking output 3's out
 * must leave output 2's next, not send the round robin past queue 4 and
 * back to output 1's.
 */
UNIT_TEST(taking_a_frame_out_leaves_the_round_robin)
{
	static const unsigned int outs[4] = { 1, 2, 3, 1 };
	struct vcsw_node n[4], *next;
	struct vcsw_rq rq;
	unsigned int k;

	recn_cfg_default(&cfg, LEN);
	memset(&box, 0, sizeof(box));
	memset(n, 0, sizeof(n));
	vcsw_rq_init(&rq, &cfg, &box, 0, VCSW_RQ_IN, 1, false);
	for (k = 0; k < 4; k++) {
		n[k].len = 500;
		n[k].vc = 1;
		n[k].route = route2((int)outs[k], -1);
		n[k].out = (fq_u16)outs[k];
		vcsw_rq_link(&rq, &n[k]);
	}
	next = vcsw_rq_pick(&rq, 0xffff);
	ASSERT_TRUE(next == &n[0]);
	vcsw_rq_unlink(&rq, next);
	vcsw_rq_remove(&rq, &n[2], 0);
	next = vcsw_rq_pick(&rq, 0xffff);
	EXPECT_TRUE(next == &n[1]);
	EXPECT_EQ(rq.frames, 2);
}

/*
 * A SAQ that a removal empties (an output buffer made smaller,
 * vcsw_xbar_remove_unfit()) is empty from the removal on: its idle time
 * counts from then, not from the set's last operation before it.
 */
UNIT_TEST(a_saq_emptied_by_a_removal_idles_from_then)
{
	fq_u32 hot = route2(1, 3);
	struct recn_msg m = { RECN_MSG_NOTIFY, { 2 | 4 << 6, 2, 5 } };
	fq_u64 t1 = 1000, t2;
	struct vcsw_list gone;
	struct vcsw_node *nd;
	fq_u32 k;
	int s;

	setup(100 * LEN, 3 * LEN);
	t2 = t1 + 5 * cfg.idle_ns;
	/* output 1 full, from input 2: what input 0 holds for it waits */
	for (k = 0; k < 3; k++)
		ASSERT_TRUE(arrive_len(2, route2(1, -1), 0, 1, LEN, 0, 9, k) != NULL);
	settle(0);
	vcsw_rq_receive(&rq_in[0][1], &m, 1, 0);
	s = saq_of(&rq_in[0][1], 2 | 4 << 6, 2, 5);
	ASSERT_TRUE(s >= 0);
	/* at t1 three frames in the SAQ, too long for the smaller buffer */
	for (k = 0; k < 3; k++)
		ASSERT_TRUE(arrive_len(0, hot, 5, 1, 2500, t1, 0, k) != NULL);
	settle(t1);
	ASSERT_EQ(rq_in[0][1].set.saq[s].frames, 3);
	/* told upstream: the SAQ does not go the moment it empties */
	ASSERT_TRUE(rq_in[0][1].set.saq[s].t.told != 0);
	xp[1].out.vc[1].limit = 2 * LEN;
	vcsw_list_init(&gone);
	EXPECT_EQ(vcsw_xbar_remove_unfit(ports, 0, 1, &gone, t2), 3);
	while ((nd = gone.head)) {
		vcsw_list_unlink(&gone, nd);
		((struct frame *)nd)->used = false;
	}
	EXPECT_EQ(rq_in[0][1].set.saq[s].frames, 0);
	tick(t2 + cfg.idle_ns / 2);
	EXPECT_TRUE(rq_in[0][1].set.saq[s].used);
	tick(t2 + cfg.idle_ns + 1);
	EXPECT_TRUE(!rq_in[0][1].set.saq[s].used);
}

/*
 * A tick repeats the Xoff of every stopped point to every port told of
 * it, every set into the one box: the box must be delivered as it fills,
 * or the sets ticked last lose their repeats on every tick.  Every output
 * set holds RECN_ROOT_MAX stopped roots, each told to the four inputs:
 * 4 ports x 2 VCs x 16 x 4 = 512 repeats a tick, more than the box holds.
 * Each reaches its input (which has no SAQ for it: stale_rx), none is
 * dropped, over 100 ticks.
 */
UNIT_TEST(a_tick_delivers_every_repeat)
{
	fq_u64 want = 0, got = 0, dropped = 0;
	unsigned int p, vc, r, t;

	setup(100 * LEN, 100 * LEN);
	for (p = 0; p < NPORTS; p++)
		for (vc = 0; vc < VCSW_NUM_VCS; vc++)
			for (r = 0; r < RECN_ROOT_MAX; r++) {
				struct recn_set *st = &rq_out[p][vc].set;
				struct recn_root *ro = &st->root[r];

				ro->used = true;
				ro->detq = (fq_u8)(1 + r / 4);
				ro->sl = (fq_u8)(r % 4);
				ro->t.told = 0xf;
				ro->t.xoff = true;
				st->detq[ro->detq].roots |= (fq_u16)(1u << r);
				st->detq[ro->detq].frames = 1;
				st->detq[ro->detq].bytes = 100 * LEN;
				want += 4;
			}
	ASSERT_TRUE(want > VCSW_RQ_BOX);
	want *= 100;
	for (t = 1; t <= 100; t++)
		tick(t * cfg.refresh_ns);
	for (p = 0; p < NPORTS; p++)
		for (vc = 0; vc < VCSW_NUM_VCS; vc++) {
			got += rq_in[p][vc].set.st.xoff_rx;
			dropped += rq_out[p][vc].dropped;
		}
	EXPECT_EQ(box.dropped, 0);
	EXPECT_EQ(dropped, 0);
	EXPECT_EQ(got, want);
}

/*
 * Emptying a VC (a port purged, the architecture changed) takes the
 * frames of stopped SAQs too, and a set switched to fifo and back keeps
 * every frame, each flow in order.
 */
UNIT_TEST(purge_and_mode_switch_take_every_frame)
{
	struct recn_msg m = { RECN_MSG_NOTIFY, { 5, 1, 2 } };
	struct vcsw_node *nd;
	fq_u32 k, last = 0, got = 0;
	int i;

	setup(100 * LEN, 100 * LEN);
	vcsw_xbar_recn_receive(ports, NPORTS, 1, 1, &m, 0);
	m.kind = RECN_MSG_XOFF;
	vcsw_xbar_recn_receive(ports, NPORTS, 1, 1, &m, 0);
	i = saq_of(&rq_out[1][1], 5, 1, 2);
	ASSERT_TRUE(i >= 0);
	for (k = 0; k < 6; k++) {
		EXPECT_EQ(arrive(0, route2(1, k % 2 ? 4 : 0), 2, 1, 0, k % 2, k), VCSW_ENQ_OK);
		settle(0);
	}
	EXPECT_EQ(rq_out[1][1].set.saq[i].frames, 3);
	/* to fifo and back, with frames in a stopped SAQ */
	vcsw_vc_set_mode(&xp[1].out.vc[1], VCSW_MODE_FIFO);
	EXPECT_EQ(rq_out[1][1].frames, 0);
	EXPECT_EQ(vcsw_vc_qlen(&xp[1].out.vc[1]), 6);
	vcsw_vc_set_mode(&xp[1].out.vc[1], VCSW_MODE_RECN);
	EXPECT_EQ(set_matches_queues(&rq_out[1][1], &xp[1].out.vc[1]), 0);
	/* a purge takes them all, stopped or not */
	while ((nd = vcsw_port_pop(&xp[1].out))) {
		struct frame *f = (struct frame *)nd;

		if (f->flow == 1) {
			EXPECT_TRUE(!got || f->seq > last);
			last = f->seq;
			got++;
		}
		f->used = false;
	}
	EXPECT_EQ(got, 3);
	EXPECT_EQ(vcsw_vc_qlen(&xp[1].out.vc[1]), 0);
	EXPECT_EQ(set_matches_queues(&rq_out[1][1], &xp[1].out.vc[1]), 0);
}

int main(void)
{
	return unit_run();
}
