// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of RECN at a host (kernel/core/recn_host.h): SAQs made by
 * the switch's notifications, Xoff and Xon and the lease, release when
 * a SAQ empties, FULL when none is free, messages a host must not
 * believe; a host beside a switch input that runs RECN, where the host's
 * innocent frames keep going while its congested ones wait; and a long
 * random run held to the counts and to the liveness of every frame.
 */
#include "unit.h"
#include "core/recn_host.h"

#define MS 1000000ULL

static struct recn_host_cfg cfg_host(void)
{
	return (struct recn_host_cfg){ .nsaq = 2, .lease_ns = 8 * MS, .idle_ns = 40 * MS };
}

/* a route leaving the first switch by @a, the next by @b (-1: it ends) */
static fq_u32 route2(int a, int b)
{
	unsigned int p[2] = { (unsigned int)a, (unsigned int)b };
	fq_u32 r = 0;

	fhc_route_build(p, b < 0 ? 1 : 2, &r);
	return r;
}

static struct recn_wire_msg wmsg(fq_u8 kind, fq_u8 vc, fq_u64 turns, fq_u8 len, fq_u8 sl)
{
	return (struct recn_wire_msg){
		.m = { .kind = kind, .pt = { .turns = turns, .len = len, .sl = sl } },
		.vc = vc,
	};
}

static bool rx1(struct recn_host *h, struct recn_wire_msg m, fq_u64 now)
{
	return recn_host_receive(h, &m, 1, now);
}

static unsigned int count_out(const struct recn_wire_msg *out, unsigned int n, fq_u8 kind)
{
	unsigned int i, c = 0;

	for (i = 0; i < n; i++)
		c += out[i].m.kind == kind;
	return c;
}

UNIT_TEST(config_checked)
{
	struct recn_host_cfg c = cfg_host();

	EXPECT_EQ(recn_host_cfg_check(&c), RECN_HOST_CFG_OK);
	c.nsaq = 0;
	EXPECT_EQ(recn_host_cfg_check(&c), RECN_HOST_CFG_NSAQ);
	c.nsaq = RECN_SAQ_MAX + 1;
	EXPECT_EQ(recn_host_cfg_check(&c), RECN_HOST_CFG_NSAQ);
	c = cfg_host();
	c.lease_ns = 3999;
	EXPECT_EQ(recn_host_cfg_check(&c), RECN_HOST_CFG_LEASE);
	c = cfg_host();
	c.idle_ns = recn_host_period(c.lease_ns) - 1;
	EXPECT_EQ(recn_host_cfg_check(&c), RECN_HOST_CFG_IDLE);
	/* what the set gets is what recn_core accepts */
	{
		struct recn_cfg s;

		c = cfg_host();
		recn_host_set_cfg(&s, &c);
		EXPECT_EQ(recn_cfg_check(&s), RECN_CFG_OK);
	}
}

UNIT_TEST(notify_xoff_xon_release)
{
	struct recn_host_cfg c = cfg_host();
	struct recn_wire_msg out[RECN_HOST_OUT_MAX];
	fq_u32 hot = route2(2, 1), cold = route2(3, -1), q, q2, qc, gen;
	struct recn_host h;
	bool woke;

	recn_host_init(&h, &c);
	/* nothing known: frames count in their detection queue (first digit) */
	q = recn_host_arrive(&h, 1, hot, 4, 1000, 0);
	EXPECT_EQ(q, recn_detq_of(hot));
	EXPECT_TRUE(recn_host_may_go(&h, 1, q));
	recn_host_depart(&h, 1, q, 1000, 1);
	/* the switch names the point: its port 2 (digit 3) for SL 4; the
	 * caller must count its queue again (gen) */
	gen = h.gen;
	EXPECT_TRUE(rx1(&h, wmsg(RECN_MSG_NOTIFY, 1, 3, 1, 4), 2));
	EXPECT_TRUE(h.gen != gen);
	/* a repeat makes nothing */
	gen = h.gen;
	EXPECT_TRUE(!rx1(&h, wmsg(RECN_MSG_NOTIFY, 1, 3, 1, 4), 2));
	EXPECT_EQ(h.gen, gen);
	EXPECT_EQ(recn_host_saqs(&h), 1);
	q = recn_host_arrive(&h, 1, hot, 4, 1000, 3);
	EXPECT_TRUE(RECN_Q_IS_SAQ(q));
	/* another SL, another VC and another port stay out of it */
	EXPECT_TRUE(!RECN_Q_IS_SAQ(recn_host_arrive(&h, 1, hot, 5, 1000, 3)));
	EXPECT_TRUE(!RECN_Q_IS_SAQ(recn_host_arrive(&h, 0, hot, 4, 1000, 3)));
	qc = recn_host_arrive(&h, 1, cold, 4, 1000, 3);
	EXPECT_TRUE(!RECN_Q_IS_SAQ(qc));
	/* a VC RECN does not run on counts nowhere */
	EXPECT_EQ(recn_host_arrive(&h, 2, hot, 4, 1000, 3), RECN_HOST_NONE);
	EXPECT_TRUE(recn_host_may_go(&h, 2, RECN_HOST_NONE));
	EXPECT_TRUE(recn_host_may_go(&h, 1, q));
	EXPECT_EQ(recn_host_ready(&h, 1), 1u);
	/* Xoff: it waits, the rest goes */
	EXPECT_TRUE(!rx1(&h, wmsg(RECN_MSG_XOFF, 1, 3, 1, 4), 4));
	EXPECT_TRUE(!recn_host_may_go(&h, 1, q));
	EXPECT_TRUE(recn_host_may_go(&h, 1, qc));
	EXPECT_EQ(recn_host_ready(&h, 1), 0u);
	/* Xon: it may go, and the caller is told to run the qdisc */
	EXPECT_TRUE(rx1(&h, wmsg(RECN_MSG_XON, 1, 3, 1, 4), 5));
	EXPECT_TRUE(recn_host_may_go(&h, 1, q));
	/* a second frame of the point, then both leave: the SAQ stays */
	q2 = recn_host_arrive(&h, 1, hot, 4, 1000, 6);
	EXPECT_EQ(q2, q);
	recn_host_depart(&h, 1, q, 1000, 7);
	recn_host_depart(&h, 1, q2, 1000, 8);
	EXPECT_EQ(recn_host_saqs(&h), 1);
	EXPECT_EQ(h.nout, 0);
	/* so the point's next frame is still set aside, and an Xoff holds
	 * it with no new notification (freed at once, it would have gone
	 * unheld into the switch's buffer) */
	q = recn_host_arrive(&h, 1, hot, 4, 1000, 9);
	EXPECT_EQ(q, q2);
	EXPECT_TRUE(!rx1(&h, wmsg(RECN_MSG_XOFF, 1, 3, 1, 4), 10));
	EXPECT_TRUE(!recn_host_may_go(&h, 1, q));
	EXPECT_TRUE(rx1(&h, wmsg(RECN_MSG_XON, 1, 3, 1, 4), 11));
	recn_host_depart(&h, 1, q, 1000, 12);
	/* empty for less than recn_idle: kept; then freed, RELEASE said */
	EXPECT_TRUE(recn_host_tick(&h, 12 + c.idle_ns - 1, &woke));
	EXPECT_EQ(recn_host_saqs(&h), 1);
	EXPECT_TRUE(!recn_host_tick(&h, 12 + c.idle_ns, &woke));
	EXPECT_EQ(recn_host_saqs(&h), 0);
	ASSERT_EQ(recn_host_take_out(&h, out), 1);
	EXPECT_EQ(out[0].m.kind, RECN_MSG_RELEASE);
	EXPECT_EQ(out[0].vc, 1);
	EXPECT_EQ(out[0].m.pt.turns, 3);
	EXPECT_EQ(out[0].m.pt.sl, 4);
	EXPECT_EQ(h.nout, 0);
	/* no SAQ left: the tick has nothing to do */
	EXPECT_TRUE(!recn_host_tick(&h, 13 + c.idle_ns, &woke));
	EXPECT_TRUE(!woke);
	EXPECT_EQ(h.set[1].st.notify_rx, 2);
	EXPECT_EQ(h.set[1].st.xoff_rx, 2);
	EXPECT_EQ(h.set[1].st.xon_rx, 2);
	EXPECT_EQ(h.set[1].st.release_tx, 1);
	EXPECT_EQ(h.set[1].st.saq_alloc, 1);
	EXPECT_EQ(h.set[1].st.saq_idle_free, 1);
}

/* Frames queued before the SAQ was made move into it; others stay. */
UNIT_TEST(a_new_saq_takes_the_queued_frames)
{
	struct recn_host_cfg c = cfg_host();
	struct recn_wire_msg out[RECN_HOST_OUT_MAX];
	fq_u32 hot = route2(2, 1), cold = route2(3, -1), q[6], i;
	struct recn_set *s;
	struct recn_host h;
	bool woke;

	recn_host_init(&h, &c);
	s = &h.set[1];
	for (i = 0; i < 6; i++)
		q[i] = recn_host_arrive(&h, 1, i % 2 ? cold : hot, 4, 1000, i);
	EXPECT_EQ(s->detq[recn_detq_of(hot)].frames, 3);
	rx1(&h, wmsg(RECN_MSG_NOTIFY, 1, 3, 1, 4), 10);
	rx1(&h, wmsg(RECN_MSG_XOFF, 1, 3, 1, 4), 10);
	/* counted where they were: the hot ones still may go */
	EXPECT_TRUE(recn_host_may_go(&h, 1, q[0]));
	for (i = 0; i < 6; i++)
		q[i] = recn_host_retag(&h, 1, q[i], i % 2 ? cold : hot, 4, 1000, 11);
	EXPECT_EQ(s->detq[recn_detq_of(hot)].frames, 0);
	EXPECT_EQ(s->detq[recn_detq_of(cold)].frames, 3);
	EXPECT_EQ(s->saq[0].frames, 3);
	for (i = 0; i < 6; i++)
		EXPECT_EQ(recn_host_may_go(&h, 1, q[i]), i % 2 == 1);
	/* counting again changes nothing more */
	for (i = 0; i < 6; i++)
		EXPECT_EQ(recn_host_retag(&h, 1, q[i], i % 2 ? cold : hot, 4, 1000, 12), q[i]);
	/* a longer point takes the hot frames from the shorter one; the
	 * shorter, empty, is freed after recn_idle and says so */
	rx1(&h, wmsg(RECN_MSG_NOTIFY, 1, 3 | 2 << 6, 2, 4), 13);
	for (i = 0; i < 6; i += 2)
		q[i] = recn_host_retag(&h, 1, q[i], hot, 4, 1000, 14);
	EXPECT_EQ(s->saq[1].frames, 3);
	EXPECT_TRUE(s->saq[0].used);
	EXPECT_EQ(recn_host_take_out(&h, out), 0);
	recn_host_tick(&h, 14 + c.idle_ns, &woke);
	EXPECT_TRUE(!s->saq[0].used);
	EXPECT_TRUE(s->saq[1].used);
	EXPECT_EQ(recn_host_take_out(&h, out), 1);
	EXPECT_EQ(out[0].m.kind, RECN_MSG_RELEASE);
	EXPECT_EQ(out[0].m.pt.len, 1);
	/* not stopped: they go */
	EXPECT_TRUE(recn_host_may_go(&h, 1, q[0]));
}

UNIT_TEST(lease_ends_when_xon_is_lost)
{
	struct recn_host_cfg c = cfg_host();
	fq_u32 hot = route2(2, 1), q;
	struct recn_host h;
	fq_u64 t;
	bool woke, ended = false;

	recn_host_init(&h, &c);
	rx1(&h, wmsg(RECN_MSG_NOTIFY, 1, 3, 1, 4), 0);
	q = recn_host_arrive(&h, 1, hot, 4, 1000, 1);
	rx1(&h, wmsg(RECN_MSG_XOFF, 1, 3, 1, 4), 2);
	/* repeated Xoffs keep it stopped past one lease */
	for (t = 2; t < 3 * c.lease_ns; t += recn_host_period(c.lease_ns)) {
		if (t % (2 * MS) < recn_host_period(c.lease_ns))
			rx1(&h, wmsg(RECN_MSG_XOFF, 1, 3, 1, 4), t);
		EXPECT_TRUE(recn_host_tick(&h, t, &woke));
		EXPECT_TRUE(!woke);
		EXPECT_TRUE(!recn_host_may_go(&h, 1, q));
	}
	/* then the Xoffs stop (the Xon was lost): the lease ends within a tick */
	for (; t < 5 * c.lease_ns && !ended; t += recn_host_period(c.lease_ns)) {
		recn_host_tick(&h, t, &woke);
		ended = recn_host_may_go(&h, 1, q);
		EXPECT_EQ(woke, ended);
	}
	EXPECT_TRUE(ended);
	EXPECT_EQ(h.set[1].st.lease_expired, 1);
}

UNIT_TEST(full_and_idle_free)
{
	struct recn_host_cfg c = cfg_host();	/* two SAQs */
	struct recn_wire_msg out[RECN_HOST_OUT_MAX];
	struct recn_host h;
	unsigned int n;
	fq_u64 t;
	bool woke;

	recn_host_init(&h, &c);
	rx1(&h, wmsg(RECN_MSG_NOTIFY, 1, 3, 1, 4), 0);
	rx1(&h, wmsg(RECN_MSG_NOTIFY, 1, 4, 1, 4), 0);
	/* a repeat is no new SAQ */
	rx1(&h, wmsg(RECN_MSG_NOTIFY, 1, 3, 1, 4), 0);
	EXPECT_EQ(recn_host_saqs(&h), 2);
	EXPECT_EQ(h.nout, 0);
	rx1(&h, wmsg(RECN_MSG_NOTIFY, 1, 5, 1, 4), 0);
	n = recn_host_take_out(&h, out);
	EXPECT_EQ(n, 1);
	EXPECT_EQ(count_out(out, n, RECN_MSG_FULL), 1);
	EXPECT_EQ(out[0].m.pt.turns, 5);
	/* no frame ever came: both are freed after idle, each with a RELEASE */
	for (t = 0; t <= c.idle_ns + recn_host_period(c.lease_ns); t += recn_host_period(c.lease_ns))
		recn_host_tick(&h, t, &woke);
	EXPECT_EQ(recn_host_saqs(&h), 0);
	n = recn_host_take_out(&h, out);
	EXPECT_EQ(count_out(out, n, RECN_MSG_RELEASE), 2);
	EXPECT_EQ(h.set[1].st.saq_idle_free, 2);
}

UNIT_TEST(what_a_host_does_not_believe)
{
	struct recn_host_cfg c = cfg_host();
	struct recn_host h;

	recn_host_init(&h, &c);
	rx1(&h, wmsg(RECN_MSG_NOTIFY, 0, 3, 1, 0), 0);
	/* RELEASE and FULL come from upstream, and a host has none */
	rx1(&h, wmsg(RECN_MSG_RELEASE, 0, 3, 1, 0), 1);
	rx1(&h, wmsg(RECN_MSG_FULL, 0, 3, 1, 0), 1);
	EXPECT_EQ(h.set[0].st.stale_rx, 2);
	EXPECT_EQ(recn_host_saqs(&h), 1);
	/* Xoff for a point it has no SAQ for */
	rx1(&h, wmsg(RECN_MSG_XOFF, 0, 9, 1, 0), 1);
	EXPECT_EQ(h.set[0].st.stale_rx, 3);
	/* a point no route can pass */
	rx1(&h, wmsg(RECN_MSG_NOTIFY, 0, 3 << 6, 1, 0), 1);
	EXPECT_EQ(h.set[0].st.bad_rx, 1);
	EXPECT_EQ(recn_host_saqs(&h), 1);
	EXPECT_EQ(h.nout, 0);
}

/* A full stage drops and counts; it never overruns. */
UNIT_TEST(stage_is_bounded)
{
	struct recn_host_cfg c = { .nsaq = 1, .lease_ns = 8 * MS, .idle_ns = 40 * MS };
	struct recn_host h;
	unsigned int i;

	recn_host_init(&h, &c);
	rx1(&h, wmsg(RECN_MSG_NOTIFY, 1, 1, 1, 0), 0);
	for (i = 0; i < 3 * RECN_HOST_OUT_MAX; i++)
		rx1(&h, wmsg(RECN_MSG_NOTIFY, 1, 2 + i % 40, 1, 0), 0);
	EXPECT_EQ(h.nout, RECN_HOST_OUT_MAX);
	EXPECT_EQ(h.out_dropped, 3 * RECN_HOST_OUT_MAX - RECN_HOST_OUT_MAX);
}

/* ---- a host and the switch input behind its link --------------------------- */

/*
 * A host's two flows on VC1, FIFOs held as edf holds flows: a flow whose
 * head may not go is passed over.  The switch's input set (side "in":
 * upstream is the host, port 0) drains the hot point's frames one in
 * @hot_every steps (its output is congested) and the cold ones at once.
 * The link carries one frame a step, under credits of @buf frames for
 * the whole VC at the switch.
 */
#define FLOW_MAX 4096

struct hflow {
	fq_u32 route;
	fq_u32 q[FLOW_MAX];	/* the host's count of each frame */
	unsigned int head, tail;
	unsigned int sent;
};

struct wire {
	struct recn_wire_msg m[64];
	unsigned int n;
};

/* the switch input's messages go to the host (upstream 0) */
static void sw_send(void *ctx, fq_u32 to, const struct recn_msg *m)
{
	struct wire *w = ctx;

	if (to == 0 && w->n < 64)
		w->m[w->n++] = (struct recn_wire_msg){ .m = *m, .vc = 1 };
}

/* one frame's place at the switch: its queue there, its flow */
struct swf {
	fq_u32 q;
	int flow;
};

static unsigned int run_pair(bool host_recn, unsigned int steps, unsigned int *sent_cold)
{
	struct recn_host_cfg hc = { .nsaq = 8, .lease_ns = 8 * MS, .idle_ns = 40 * MS };
	static struct swf swq[2][FLOW_MAX];	/* per switch queue kind: 0 SAQ/hot, 1 cold */
	unsigned int swh[2] = { 0 }, swt[2] = { 0 };
	struct hflow f[2] = { { .route = route2(2, -1) }, { .route = route2(3, -1) } };
	struct recn_cfg sc;
	struct recn_host h;
	struct recn_set sw;
	struct wire w = { .n = 0 };
	unsigned int step, inbuf = 0, buf = 40, rr = 0, i, k;
	fq_u32 gen = 0;
	fq_u64 now;
	bool woke;

	recn_cfg_default(&sc, 1000);
	recn_init(&sw, &sc);
	recn_host_init(&h, &hc);
	for (step = 0; step < steps; step++) {
		now = (fq_u64)step * 10000;	/* a frame every 10 us */
		/* the host: both flows always have frames to send */
		for (i = 0; i < 2; i++) {
			while (f[i].tail - f[i].head < 8) {
				f[i].q[f[i].tail % FLOW_MAX] =
					host_recn ? recn_host_arrive(&h, 1, f[i].route, 4, 1000, now) :
						    RECN_HOST_NONE;
				f[i].tail++;
			}
		}
		/* the host sends one frame, round robin between flows that may go */
		for (k = 0; k < 2 && inbuf < buf; k++) {
			struct hflow *g = &f[(rr + k) % 2];
			fq_u32 hq = g->q[g->head % FLOW_MAX];
			struct swf e;
			int sq;

			if (host_recn && !recn_host_may_go(&h, 1, hq))
				continue;
			recn_host_depart(&h, 1, hq, 1000, now);
			g->head++;
			g->sent++;
			sq = recn_classify(&sw, g->route, 4);
			e.q = sq < 0 ? recn_detq_of(g->route) : (fq_u32)RECN_Q_SAQ(sq);
			e.flow = (int)(g - f);
			recn_arrive(&sw, e.q, g->route, 4, 1000, 0, now, sw_send, &w);
			swq[e.flow][swt[e.flow]++ % FLOW_MAX] = e;
			inbuf++;
			rr = (rr + k + 1) % 2;
			break;
		}
		/* the switch: cold frames leave at once; hot ones 1 in 4 steps */
		for (i = 0; i < 2; i++) {
			struct swf *e;

			if (swh[i] == swt[i] || (i == 0 && step % 4))
				continue;
			e = &swq[i][swh[i]++ % FLOW_MAX];
			recn_depart(&sw, e->q, 1000, now, sw_send, &w);
			inbuf--;
		}
		/* the hot output is congested: the switch's output notifies the input */
		if (step == 10) {
			struct recn_msg m = { .kind = RECN_MSG_NOTIFY,
					      .pt = { .turns = 3, .len = 1, .sl = 4 } };
			recn_receive(&sw, &m, RECN_NO_UPSTREAM, now, sw_send, &w);
		}
		/* the switch's messages reach the host at once; the host's go
		 * nowhere; new SAQs take what is queued, as edf does */
		if (host_recn && w.n)
			recn_host_receive(&h, w.m, w.n, now);
		if (host_recn && h.gen != gen) {
			gen = h.gen;
			for (i = 0; i < 2; i++)
				for (k = f[i].head; k != f[i].tail; k++)
					f[i].q[k % FLOW_MAX] = recn_host_retag(&h, 1, f[i].q[k % FLOW_MAX],
									       f[i].route, 4, 1000, now);
		}
		w.n = 0;
		h.nout = 0;
		if (step % 50 == 0) {
			recn_tick(&sw, now, sw_send, &w);
			if (host_recn)
				recn_host_tick(&h, now, &woke);
		}
	}
	*sent_cold = f[1].sent;
	return f[0].sent;
}

UNIT_TEST(host_saq_keeps_the_cold_flow_going)
{
	unsigned int hot_off, cold_off, hot_on, cold_on, steps = 20000;

	hot_off = run_pair(false, steps, &cold_off);
	hot_on = run_pair(true, steps, &cold_on);
	/* without: the switch's buffer fills with hot frames, and both get
	 * the hot output's quarter */
	EXPECT_TRUE(cold_off < steps * 3 / 10);
	/* with: the hot frames wait at the host, the cold flow has the rest */
	EXPECT_TRUE(cold_on > steps * 6 / 10);
	/* and the hot flow still gets its output's quarter */
	EXPECT_TRUE(hot_on > steps * 2 / 10);
	EXPECT_TRUE(hot_off > steps * 2 / 10);
}

/* ---- random ----------------------------------------------------------------- */

static fq_u32 rng_state = 12345;

static fq_u32 rnd(void)
{
	rng_state = rng_state * 1103515245u + 12345u;
	return rng_state >> 8;
}

/*
 * Frames of random routes and SLs on both VCs, held in per-flow FIFOs;
 * random messages from the switch; a flow's head goes when the host lets
 * it.  Every count must match the frames queued, no frame may be counted
 * in a SAQ not in use, and once the messages stop everything leaves.
 */
UNIT_TEST(random_run_counts_and_liveness)
{
	struct recn_host_cfg c = { .nsaq = 4, .lease_ns = 40000, .idle_ns = 100000 };
	enum { FLOWS = 16, STEPS = 200000 };
	static struct hflow f[FLOWS];
	fq_u8 fvc[FLOWS], fsl[FLOWS];
	struct recn_wire_msg out[RECN_HOST_OUT_MAX];
	struct recn_host h;
	unsigned int step, i, queued = 0, drained_at = 0;
	fq_u32 gen = 0;
	fq_u64 now = 0;
	bool woke;

	recn_host_init(&h, &c);
	for (i = 0; i < FLOWS; i++) {
		f[i] = (struct hflow){ .route = i % 5 ? route2((int)(i % 3), (int)(i % 4) - 1) : 0 };
		fvc[i] = (fq_u8)(i % 3 == 2 ? 0 : 1);
		fsl[i] = (fq_u8)(i % 2);
	}
	for (step = 0; step < STEPS || queued; step++) {
		unsigned int r = rnd();

		now += 1000 + r % 3000;
		if (step < STEPS && r % 3 == 0) {
			i = rnd() % FLOWS;
			if (f[i].tail - f[i].head < FLOW_MAX) {
				f[i].q[f[i].tail++ % FLOW_MAX] =
					recn_host_arrive(&h, fvc[i], f[i].route, fsl[i], 100 + rnd() % 1400, now);
				queued++;
			}
		}
		if (step < STEPS && r % 7 == 0) {
			struct recn_wire_msg m = wmsg((fq_u8)(RECN_MSG_NOTIFY + rnd() % 5),
						      (fq_u8)(rnd() % 2), rnd() % 4, 1, (fq_u8)(rnd() % 2));

			recn_host_receive(&h, &m, 1, now);
		}
		/* two chances a step to send */
		for (int k = 0; k < 2; k++) {
			i = rnd() % FLOWS;
			if (f[i].head == f[i].tail)
				continue;
			if (!recn_host_may_go(&h, fvc[i], f[i].q[f[i].head % FLOW_MAX]))
				continue;
			{
				fq_u32 q = f[i].q[f[i].head % FLOW_MAX];
				struct recn_set *s = &h.set[fvc[i]];

				/* the SAQ it counts in is still the one it was */
				if (RECN_Q_IS_SAQ(q))
					ASSERT_TRUE(s->saq[q - RECN_DETQS].used &&
						    s->saq[q - RECN_DETQS].frames > 0);
				/* bytes are not checked at a host; frames are */
				recn_host_depart(&h, fvc[i], q, 0, now);
			}
			f[i].head++;
			queued--;
		}
		if (step % 20 == 0)
			recn_host_tick(&h, now, &woke);
		if (h.gen != gen) {
			unsigned int j;

			gen = h.gen;
			for (i = 0; i < FLOWS; i++)
				for (j = f[i].head; j != f[i].tail; j++)
					f[i].q[j % FLOW_MAX] = recn_host_retag(&h, fvc[i], f[i].q[j % FLOW_MAX],
									       f[i].route, fsl[i], 0, now);
		}
		recn_host_take_out(&h, out);
		if (step == STEPS)
			drained_at = step;
		/* after the messages stop, every lease ends: all must leave */
		ASSERT_TRUE(step < STEPS + 100000);
	}
	(void)drained_at;
	/* the counts came back to nothing */
	for (i = 0; i < RECN_HOST_VCS; i++) {
		const struct recn_set *s = &h.set[i];
		unsigned int d, j;

		for (d = 0; d < RECN_DETQS; d++)
			EXPECT_EQ(s->detq[d].frames, 0);
		for (j = 0; j < RECN_SAQ_MAX; j++)
			EXPECT_EQ(s->saq[j].frames, 0);
	}
	/* and an idle host frees what is left */
	for (i = 0; i < 200; i++) {
		now += recn_host_period(c.lease_ns);
		recn_host_tick(&h, now, &woke);
	}
	EXPECT_EQ(recn_host_saqs(&h), 0);
	EXPECT_TRUE(h.set[0].st.saq_alloc + h.set[1].st.saq_alloc > 100);
	EXPECT_TRUE(h.set[0].st.xoff_rx + h.set[1].st.xoff_rx > 100);
}

int main(void)
{
	return unit_run();
}
