// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of RECN (kernel/core/recn_core.h): points and their rewrites,
 * where frames go, detection and notification, Xon/Xoff and its lease,
 * allocation and release of SAQs, recovery from lost messages, and a long
 * random run held to the set's invariants and to per-flow order.
 */
#include "unit.h"
#include "core/recn_core.h"

/* ---- a recorder for what a set sends ------------------------------------ */

#define LOG_MAX 4096

struct sent {
	fq_u32 to;
	struct recn_msg m;
};

struct log {
	struct sent e[LOG_MAX];
	unsigned int n;
};

static void log_send(void *ctx, fq_u32 to, const struct recn_msg *m)
{
	struct log *l = ctx;

	if (l->n < LOG_MAX)
		l->e[l->n++] = (struct sent){ .to = to, .m = *m };
}

/* how many messages of @kind went to @to (any: ~0u) since @from */
static unsigned int log_count(const struct log *l, unsigned int from, fq_u8 kind, fq_u32 to)
{
	unsigned int i, n = 0;

	for (i = from; i < l->n; i++)
		if (l->e[i].m.kind == kind && (to == ~0u || l->e[i].to == to))
			n++;
	return n;
}

static struct recn_cfg cfg_small(void)
{
	struct recn_cfg c;

	recn_cfg_default(&c, 1000);	/* detect 2000, xoff 4000, xon 2000 */
	return c;
}

/* a route through switches leaving by @a, then @b (-1: it ends) */
static fq_u32 route2(int a, int b)
{
	unsigned int p[2] = { (unsigned int)a, (unsigned int)b };
	fq_u32 r = 0;

	fhc_route_build(p, b < 0 ? 1 : 2, &r);
	return r;
}

static struct recn_point pt_of(fq_u64 turns, fq_u8 len, fq_u8 sl)
{
	return (struct recn_point){ .turns = turns, .len = len, .sl = sl };
}

/* ---- points ------------------------------------------------------------- */

UNIT_TEST(points_valid_and_covering)
{
	struct recn_point p;
	fq_u32 out = 99;

	EXPECT_TRUE(recn_point_valid(&(struct recn_point){ .turns = 3, .len = 1 }));
	EXPECT_TRUE(recn_point_valid(&(struct recn_point){ .turns = 0, .len = 1 }));
	/* 3, then the end: a frame for the host behind the next switch's port 2 */
	EXPECT_TRUE(recn_point_valid(&(struct recn_point){ .turns = 3, .len = 2 }));
	EXPECT_TRUE(!recn_point_valid(&(struct recn_point){ .turns = 3, .len = 0 }));
	EXPECT_TRUE(!recn_point_valid(&(struct recn_point){ .turns = 3, .len = 7 }));
	EXPECT_TRUE(!recn_point_valid(&(struct recn_point){ .turns = 3 << 6, .len = 1 }));
	/* a digit after the end */
	EXPECT_TRUE(!recn_point_valid(&(struct recn_point){ .turns = 3 << 6, .len = 2 }));
	EXPECT_TRUE(recn_point_valid(&(struct recn_point){ .turns = 0x3fffffffffULL >> 2, .len = 6 }));

	p = pt_of(3 | 2 << 6, 2, 5);	/* out of port 2, then port 1 */
	EXPECT_TRUE(recn_point_covers(&p, route2(2, 1), 5));
	EXPECT_TRUE(!recn_point_covers(&p, route2(2, 1), 4));	/* SL */
	EXPECT_TRUE(!recn_point_covers(&p, route2(2, 0), 5));
	EXPECT_TRUE(!recn_point_covers(&p, route2(2, -1), 5));
	/* a prefix covers longer routes through it */
	EXPECT_TRUE(recn_point_covers(&(struct recn_point){ .turns = 3, .len = 1, .sl = 5 },
				      route2(2, 7), 5));
	/* "ends at the next switch's port 2": only routes that end there */
	p = pt_of(3, 2, 0);
	EXPECT_TRUE(recn_point_covers(&p, route2(2, -1), 0));
	EXPECT_TRUE(!recn_point_covers(&p, route2(2, 0), 0));

	EXPECT_TRUE(recn_point_prefix(&(struct recn_point){ .turns = 3, .len = 1, .sl = 5 },
				      &(struct recn_point){ .turns = 3 | 2 << 6, .len = 2, .sl = 5 }));
	EXPECT_TRUE(!recn_point_prefix(&(struct recn_point){ .turns = 3, .len = 1, .sl = 4 },
				       &(struct recn_point){ .turns = 3 | 2 << 6, .len = 2, .sl = 5 }));

	/* output 4's point [2] is [5, 2] at the inputs, and back */
	p = pt_of(3, 1, 1);
	EXPECT_TRUE(recn_point_up_from_output(&p, 4));
	EXPECT_EQ(p.turns, 5 | 3 << 6);
	EXPECT_EQ(p.len, 2);
	EXPECT_TRUE(recn_point_down_to_output(&p, &out));
	EXPECT_EQ(out, 4);
	EXPECT_EQ(p.turns, 3);
	EXPECT_EQ(p.len, 1);
	EXPECT_TRUE(!recn_point_down_to_output(&p, &out));	/* ends here */
	p = pt_of(0x3fffffffffULL >> 2, 6, 0);
	EXPECT_TRUE(!recn_point_up_from_output(&p, 1));		/* too long */
}

UNIT_TEST(cfg_check_names_each_fault)
{
	struct recn_cfg c = cfg_small(), b;

	EXPECT_EQ(recn_cfg_check(&c), RECN_CFG_OK);
	b = c; b.nsaq = 0;
	EXPECT_EQ(recn_cfg_check(&b), RECN_CFG_NSAQ);
	b = c; b.nsaq = RECN_SAQ_MAX + 1;
	EXPECT_EQ(recn_cfg_check(&b), RECN_CFG_NSAQ);
	b = c; b.detect = 0;
	EXPECT_EQ(recn_cfg_check(&b), RECN_CFG_DETECT);
	b = c; b.xon = b.xoff;
	EXPECT_EQ(recn_cfg_check(&b), RECN_CFG_XON);
	b = c; b.refresh_ns = b.lease_ns;
	EXPECT_EQ(recn_cfg_check(&b), RECN_CFG_REFRESH);
	b = c; b.refresh_ns = 0;
	EXPECT_EQ(recn_cfg_check(&b), RECN_CFG_REFRESH);
	b = c; b.idle_ns = b.refresh_ns - 1;
	EXPECT_EQ(recn_cfg_check(&b), RECN_CFG_IDLE);
}

/* ---- where frames go ---------------------------------------------------- */

UNIT_TEST(classify_takes_the_longest_point_of_the_sl)
{
	struct recn_cfg c = cfg_small();
	struct recn_set s;
	struct log l = { .n = 0 };
	struct recn_msg m = { .kind = RECN_MSG_NOTIFY };

	recn_init(&s, &c);
	EXPECT_EQ(recn_classify(&s, route2(2, 1), 5), -1);
	m.pt = pt_of(3, 1, 5);
	recn_receive(&s, &m, 0, 0, log_send, &l);
	m.pt = pt_of(3 | 2 << 6, 2, 5);
	recn_receive(&s, &m, 0, 0, log_send, &l);
	EXPECT_EQ(s.st.saq_alloc, 2);
	EXPECT_EQ(recn_classify(&s, route2(2, 1), 5), 1);	/* the longer */
	EXPECT_EQ(recn_classify(&s, route2(2, 0), 5), 0);
	EXPECT_EQ(recn_classify(&s, route2(2, 1), 6), -1);	/* other SL */
	EXPECT_EQ(recn_classify(&s, route2(1, 1), 5), -1);
	EXPECT_EQ(recn_classify(&s, 0, 5), -1);			/* no route */
	EXPECT_EQ(recn_detq_of(route2(2, 1)), 3);
	EXPECT_EQ(l.n, 0);	/* a notified set sends nothing for it */
}

/* ---- detection and notification ----------------------------------------- */

UNIT_TEST(detection_notifies_each_sender_once_per_period)
{
	struct recn_cfg c = cfg_small();
	struct recn_set s;
	struct log l = { .n = 0 };
	fq_u32 r = route2(3, 1), q = recn_detq_of(r);
	int i;

	recn_init(&s, &c);
	/* below the threshold: nothing */
	recn_arrive(&s, q, r, 2, 1000, 1, 0, log_send, &l);
	EXPECT_EQ(l.n, 0);
	/* at 2000 bytes the sender of the frame is told, once */
	recn_arrive(&s, q, r, 2, 1000, 1, 0, log_send, &l);
	ASSERT_EQ(l.n, 1);
	EXPECT_EQ(l.e[0].to, 1);
	EXPECT_EQ(l.e[0].m.kind, RECN_MSG_NOTIFY);
	EXPECT_TRUE(recn_point_eq(&l.e[0].m.pt, &(struct recn_point){ .turns = 4, .len = 1, .sl = 2 }));
	recn_arrive(&s, q, r, 2, 100, 1, 10, log_send, &l);
	EXPECT_EQ(l.n, 1);
	/* another sender, another SL: each told on its own */
	recn_arrive(&s, q, r, 2, 100, 6, 20, log_send, &l);
	recn_arrive(&s, q, r, 3, 100, 6, 20, log_send, &l);
	EXPECT_EQ(log_count(&l, 0, RECN_MSG_NOTIFY, 6), 2);
	EXPECT_EQ(s.st.root_alloc, 2);
	/* a frame without a route tells no one */
	for (i = 0; i < 5; i++)
		recn_arrive(&s, 9, 0, 2, 1000, 1, 30, log_send, &l);
	EXPECT_EQ(l.n, 3);
	/* after a refresh period a lost notification is sent again */
	recn_tick(&s, c.refresh_ns + 20, log_send, &l);
	recn_arrive(&s, q, r, 2, 100, 1, c.refresh_ns + 30, log_send, &l);
	EXPECT_EQ(log_count(&l, 3, RECN_MSG_NOTIFY, 1), 1);
	/* no upstream (a host): nothing to tell */
	recn_init(&s, &c);
	l.n = 0;
	for (i = 0; i < 10; i++)
		recn_arrive(&s, q, r, 2, 1000, RECN_NO_UPSTREAM, 0, log_send, &l);
	EXPECT_EQ(l.n, 0);
	/* its root, told to no one, goes once the queue is below detect */
	EXPECT_TRUE(s.root[0].used);
	for (i = 0; i < 8; i++)
		recn_depart(&s, q, 1000, 1, log_send, &l);
	EXPECT_TRUE(s.root[0].used);
	recn_depart(&s, q, 1000, 1, log_send, &l);
	EXPECT_TRUE(!s.root[0].used);
	EXPECT_EQ(s.detq[q].roots, 0);
}

UNIT_TEST(root_xoff_and_xon_with_hysteresis)
{
	struct recn_cfg c = cfg_small();
	struct recn_set s;
	struct log l = { .n = 0 };
	fq_u32 r = route2(3, -1), q = recn_detq_of(r);
	unsigned int mark;
	int i;

	recn_init(&s, &c);
	for (i = 0; i < 3; i++)	/* 3000 bytes: told, not stopped */
		recn_arrive(&s, q, r, 0, 1000, 2, 0, log_send, &l);
	EXPECT_EQ(log_count(&l, 0, RECN_MSG_XOFF, ~0u), 0);
	recn_arrive(&s, q, r, 0, 1000, 2, 0, log_send, &l);	/* 4000 */
	EXPECT_EQ(log_count(&l, 0, RECN_MSG_XOFF, 2), 1);
	/* a sender told only now is stopped at once with the others */
	recn_arrive(&s, q, r, 0, 1000, 5, 0, log_send, &l);
	EXPECT_EQ(log_count(&l, 0, RECN_MSG_NOTIFY, 5), 1);
	EXPECT_EQ(log_count(&l, 0, RECN_MSG_XOFF, 5), 1);
	EXPECT_EQ(log_count(&l, 0, RECN_MSG_XOFF, 2), 1);
	/* 5000 -> 3000: still above xon; -> 2000: Xon to both */
	mark = l.n;
	recn_depart(&s, q, 1000, 1, log_send, &l);
	recn_depart(&s, q, 1000, 1, log_send, &l);
	EXPECT_EQ(l.n, mark);
	recn_depart(&s, q, 1000, 1, log_send, &l);
	EXPECT_EQ(log_count(&l, mark, RECN_MSG_XON, 2), 1);
	EXPECT_EQ(log_count(&l, mark, RECN_MSG_XON, 5), 1);
	/* while stopped, the Xoff is repeated every refresh period */
	for (i = 0; i < 2; i++)
		recn_arrive(&s, q, r, 0, 1000, 2, 2, log_send, &l);
	mark = l.n;
	recn_tick(&s, 2 + c.refresh_ns - 1, log_send, &l);
	EXPECT_EQ(l.n, mark);
	recn_tick(&s, 2 + c.refresh_ns, log_send, &l);
	EXPECT_EQ(log_count(&l, mark, RECN_MSG_XOFF, ~0u), 2);
}

/* A stopped port whose frames still come is told again, not every frame. */
UNIT_TEST(xoff_again_to_a_port_that_still_sends)
{
	struct recn_cfg c = cfg_small();
	struct recn_set s;
	struct log l = { .n = 0 };
	fq_u32 r = route2(3, -1), q = recn_detq_of(r);
	fq_u64 gap = c.refresh_ns / 8;
	unsigned int mark;
	int i;

	recn_init(&s, &c);
	for (i = 0; i < 4; i++)
		recn_arrive(&s, q, r, 0, 1000, 2, 0, log_send, &l);
	ASSERT_EQ(log_count(&l, 0, RECN_MSG_XOFF, 2), 1);
	mark = l.n;
	/* what was on the way arrives at once: no repeat yet */
	recn_arrive(&s, q, r, 0, 1000, 2, gap - 1, log_send, &l);
	EXPECT_EQ(l.n, mark);
	/* still coming a gap later: the Xoff was lost, say it again */
	recn_arrive(&s, q, r, 0, 1000, 2, gap, log_send, &l);
	recn_arrive(&s, q, r, 0, 1000, 2, gap + 1, log_send, &l);
	EXPECT_EQ(log_count(&l, mark, RECN_MSG_XOFF, 2), 1);
	recn_arrive(&s, q, r, 0, 1000, 2, 2 * gap, log_send, &l);
	EXPECT_EQ(log_count(&l, mark, RECN_MSG_XOFF, 2), 2);
	EXPECT_EQ(l.n, mark + 2);
}

/* ---- SAQs ---------------------------------------------------------------- */

UNIT_TEST(saq_alloc_repeat_full_and_bad)
{
	struct recn_cfg c = cfg_small();
	struct recn_set s;
	struct log l = { .n = 0 };
	struct recn_msg m = { .kind = RECN_MSG_NOTIFY };
	unsigned int i;

	c.nsaq = 3;
	recn_init(&s, &c);
	for (i = 0; i < 5; i++) {
		m.pt = pt_of(1 + i, 1, 0);
		recn_receive(&s, &m, 0, 0, log_send, &l);
		recn_receive(&s, &m, 0, 0, log_send, &l);	/* a repeat */
	}
	EXPECT_EQ(s.st.saq_alloc, 3);
	EXPECT_EQ(s.st.saq_full, 4);	/* each try of the two left out */
	EXPECT_EQ(s.st.notify_rx, 10);
	/* each refused one is answered with FULL downstream */
	ASSERT_EQ(l.n, 4);
	for (i = 0; i < 4; i++) {
		EXPECT_EQ(l.e[i].to, RECN_DOWNSTREAM);
		EXPECT_EQ(l.e[i].m.kind, RECN_MSG_FULL);
		EXPECT_EQ(l.e[i].m.pt.turns, 4 + i / 2);
	}
	l.n = 0;
	m.pt = pt_of(1 << 6, 2, 0);
	recn_receive(&s, &m, 0, 0, log_send, &l);
	m.pt = pt_of(1, 0, 0);
	recn_receive(&s, &m, 0, 0, log_send, &l);
	m.kind = 77;
	m.pt = pt_of(1, 1, 0);
	recn_receive(&s, &m, 0, 0, log_send, &l);
	EXPECT_EQ(s.st.bad_rx, 3);
	m.kind = RECN_MSG_XOFF;
	m.pt = pt_of(9, 1, 0);
	recn_receive(&s, &m, 0, 0, log_send, &l);
	EXPECT_EQ(s.st.stale_rx, 1);
	EXPECT_EQ(l.n, 0);
}

UNIT_TEST(new_saq_waits_for_frames_queued_before_it)
{
	struct recn_cfg c = cfg_small();
	struct recn_set s;
	struct log l = { .n = 0 };
	struct recn_msg m = { .kind = RECN_MSG_NOTIFY, .pt = pt_of(3, 1, 0) };
	fq_u32 r = route2(2, 1), d = recn_detq_of(r);
	int q;

	recn_init(&s, &c);
	recn_arrive(&s, d, r, 0, 500, RECN_NO_UPSTREAM, 0, log_send, &l);
	recn_arrive(&s, d, r, 0, 500, RECN_NO_UPSTREAM, 0, log_send, &l);
	recn_receive(&s, &m, 0, 0, log_send, &l);
	q = recn_classify(&s, r, 0);
	ASSERT_EQ(q, 0);
	recn_arrive(&s, RECN_Q_SAQ(0), r, 0, 500, RECN_NO_UPSTREAM, 0, log_send, &l);
	EXPECT_TRUE(!recn_saq_ready(&s, 0));
	EXPECT_EQ(recn_next(&s, -1, NULL, NULL), (int)d);
	recn_depart(&s, d, 500, 1, log_send, &l);
	EXPECT_TRUE(!recn_saq_ready(&s, 0));
	recn_depart(&s, d, 500, 1, log_send, &l);
	EXPECT_TRUE(recn_saq_ready(&s, 0));
	EXPECT_EQ(recn_next(&s, (fq_s32)d, NULL, NULL), RECN_Q_SAQ(0));

	/* a longer point waits for the shorter SAQ its frames went to */
	m.pt = pt_of(3 | 2 << 6, 2, 0);
	recn_receive(&s, &m, 0, 0, log_send, &l);
	ASSERT_EQ(recn_classify(&s, r, 0), 1);
	recn_arrive(&s, RECN_Q_SAQ(1), r, 0, 500, RECN_NO_UPSTREAM, 0, log_send, &l);
	EXPECT_TRUE(!recn_saq_ready(&s, 1));
	/* SAQ 0 empties and, a leaf, is freed: the wait ends with it */
	recn_depart(&s, RECN_Q_SAQ(0), 500, 2, log_send, &l);
	EXPECT_TRUE(!s.saq[0].used);
	EXPECT_TRUE(recn_saq_ready(&s, 1));
	EXPECT_EQ(log_count(&l, 0, RECN_MSG_RELEASE, RECN_DOWNSTREAM), 1);
}

/* Of two shorter SAQs, a new one waits for the longer: its frames went there. */
UNIT_TEST(new_saq_waits_for_the_longest_prefix)
{
	unsigned int ports[3] = { 2, 1, 0 };
	struct recn_cfg c = cfg_small();
	struct recn_set s;
	struct log l = { .n = 0 };
	struct recn_msg m = { .kind = RECN_MSG_NOTIFY, .pt = pt_of(3, 1, 0) };
	fq_u32 r;

	ASSERT_TRUE(fhc_route_build(ports, 3, &r));
	recn_init(&s, &c);
	recn_receive(&s, &m, 0, 0, log_send, &l);
	recn_arrive(&s, RECN_Q_SAQ(0), r, 0, 100, RECN_NO_UPSTREAM, 0, log_send, &l);
	m.pt = pt_of(3 | 2 << 6, 2, 0);
	recn_receive(&s, &m, 0, 0, log_send, &l);
	ASSERT_EQ(recn_classify(&s, r, 0), 1);
	recn_arrive(&s, RECN_Q_SAQ(1), r, 0, 100, RECN_NO_UPSTREAM, 0, log_send, &l);
	m.pt = pt_of(3 | 2 << 6 | 1 << 12, 3, 0);
	recn_receive(&s, &m, 0, 0, log_send, &l);
	ASSERT_EQ(recn_classify(&s, r, 0), 2);
	recn_arrive(&s, RECN_Q_SAQ(2), r, 0, 100, RECN_NO_UPSTREAM, 0, log_send, &l);
	EXPECT_EQ(s.saq[2].wait_q, RECN_Q_SAQ(1));
	recn_depart(&s, RECN_Q_SAQ(0), 100, 1, log_send, &l);
	EXPECT_TRUE(!recn_saq_ready(&s, 2));
	recn_depart(&s, RECN_Q_SAQ(1), 100, 1, log_send, &l);
	EXPECT_TRUE(recn_saq_ready(&s, 2));
}

/*
 * A SAQ still waiting for its detection queue passes the wait on: to a
 * longer SAQ made while it holds nothing, and to those waiting for it
 * when it is freed.  (qsim recn found flows reordered without this.)
 */
UNIT_TEST(a_wait_passes_down_a_chain_of_saqs)
{
	unsigned int ports[2] = { 2, 1 };
	struct recn_cfg c = cfg_small();
	struct recn_set s;
	struct log l = { .n = 0 };
	struct recn_msg m = { .kind = RECN_MSG_NOTIFY, .pt = pt_of(3, 1, 0) };
	fq_u32 r, d;
	int round;

	ASSERT_TRUE(fhc_route_build(ports, 2, &r));
	d = recn_detq_of(r);
	for (round = 0; round < 2; round++) {
		recn_init(&s, &c);
		recn_arrive(&s, d, r, 0, 100, RECN_NO_UPSTREAM, 0, log_send, &l);
		recn_receive(&s, &m, 0, 0, log_send, &l);	/* S: [3], waits for d */
		m.pt = pt_of(3 | 2 << 6, 2, 0);
		recn_receive(&s, &m, 0, 0, log_send, &l);	/* P: [3, 2], S empty */
		m.pt = pt_of(3, 1, 0);
		ASSERT_EQ(recn_classify(&s, r, 0), 1);
		recn_arrive(&s, RECN_Q_SAQ(1), r, 0, 100, RECN_NO_UPSTREAM, 0, log_send, &l);
		if (round) {
			/* S, empty and a leaf, is freed by time: P still waits */
			recn_tick(&s, c.idle_ns, log_send, &l);
			ASSERT_TRUE(!s.saq[0].used);
		}
		EXPECT_TRUE(!recn_saq_ready(&s, 1));
		EXPECT_EQ(recn_next(&s, -1, NULL, NULL), (int)d);
		recn_depart(&s, d, 100, 1, log_send, &l);
		EXPECT_TRUE(recn_saq_ready(&s, 1));
	}
}

UNIT_TEST(round_robin_among_ready_queues)
{
	struct recn_cfg c = cfg_small();
	struct recn_set s;
	struct log l = { .n = 0 };
	struct recn_msg m = { .kind = RECN_MSG_NOTIFY, .pt = pt_of(3, 1, 0) };
	int order[8], i, q = -1;

	recn_init(&s, &c);
	recn_receive(&s, &m, 0, 0, log_send, &l);
	for (i = 0; i < 2; i++) {
		recn_arrive(&s, 1, route2(0, -1), 0, 100, RECN_NO_UPSTREAM, 0, log_send, &l);
		recn_arrive(&s, 5, route2(4, -1), 0, 100, RECN_NO_UPSTREAM, 0, log_send, &l);
		recn_arrive(&s, RECN_Q_SAQ(0), route2(2, -1), 0, 100, RECN_NO_UPSTREAM, 0,
			    log_send, &l);
	}
	for (i = 0; i < 6; i++) {
		q = recn_next(&s, q, NULL, NULL);
		ASSERT_TRUE(q >= 0);
		order[i] = q;
		recn_depart(&s, (fq_u32)q, 100, 0, log_send, &l);
	}
	EXPECT_EQ(order[0], 1);
	EXPECT_EQ(order[1], 5);
	EXPECT_EQ(order[2], RECN_Q_SAQ(0));
	EXPECT_EQ(order[3], 1);
	EXPECT_EQ(order[4], 5);
	EXPECT_EQ(order[5], RECN_Q_SAQ(0));
	EXPECT_EQ(recn_next(&s, q, NULL, NULL), -1);
}

/* recn_next() written plainly: one look at each queue after @last */
static int next_plain(const struct recn_set *s, fq_s32 last, const fq_u64 *okmask)
{
	fq_u32 n = RECN_DETQS + s->cfg.nsaq, k, q;

	for (k = 1; k <= n; k++) {
		q = (fq_u32)(((fq_s64)last + k + n) % n);
		if (q < RECN_DETQS ? !(s->busy >> q & 1) : !recn_saq_ready(s, q - RECN_DETQS))
			continue;
		if (okmask[q / 64] >> (q % 64) & 1)
			return (int)q;
	}
	return -1;
}

static bool ok_by_mask(void *ctx, fq_u32 q)
{
	const fq_u64 *m = ctx;

	return m[q / 64] >> (q % 64) & 1;
}

/* Random sets, random filters, every starting point: as the plain scan. */
UNIT_TEST(next_finds_what_a_plain_scan_finds)
{
	struct recn_cfg c = cfg_small();
	struct recn_set s;
	int round, wrong = 0;

	for (round = 0; round < 20000; round++) {
		fq_u64 okmask[2];
		fq_u32 i;
		fq_s32 last;

		c.nsaq = 1 + unit_rnd_below(RECN_SAQ_MAX);
		recn_init(&s, &c);
		s.busy = (fq_u64)unit_rnd_below(1u << 30) << 34 ^ unit_rnd_below(1u << 30);
		if (unit_rnd_below(4) == 0)
			s.busy &= (fq_u64)unit_rnd_below(1u << 30);	/* sparse */
		for (i = 0; i < c.nsaq; i++) {
			s.saq[i].used = unit_rnd_below(4) != 0;
			/* the set keeps a mask of the SAQs in use */
			if (s.saq[i].used)
				s.saq_used |= 1u << i;
			s.saq[i].frames = unit_rnd_below(3);
			s.saq[i].stopped = unit_rnd_below(5) == 0;
		}
		okmask[0] = unit_rnd_below(3) ? ~0ULL : (fq_u64)unit_rnd_below(1u << 30) << 30 ^ unit_rnd_below(1u << 30);
		okmask[1] = unit_rnd_below(3) ? ~0ULL : unit_rnd_below(1u << 16);
		last = (fq_s32)unit_rnd_below(RECN_DETQS + c.nsaq + 1) - 1;
		if (recn_next(&s, last, ok_by_mask, okmask) != next_plain(&s, last, okmask))
			wrong++;
		/* among some queues only: as the scan with them alone allowed */
		{
			fq_u64 det = (fq_u64)unit_rnd_below(1u << 30) << 34 ^ unit_rnd_below(1u << 30);
			fq_u32 saqs = unit_rnd_below(1u << 16);
			fq_u64 both[2] = { okmask[0] & det, okmask[1] & ((fq_u64)saqs << 0) };

			if (recn_next_among(&s, last, det, saqs, ok_by_mask, okmask) !=
			    next_plain(&s, last, both))
				wrong++;
		}
	}
	EXPECT_EQ(wrong, 0);
}

UNIT_TEST(xoff_stops_a_saq_and_a_lost_xon_ends_with_the_lease)
{
	struct recn_cfg c = cfg_small();
	struct recn_set s;
	struct log l = { .n = 0 };
	struct recn_msg m = { .kind = RECN_MSG_NOTIFY, .pt = pt_of(3, 1, 1) };
	fq_u32 r = route2(2, -1);

	recn_init(&s, &c);
	recn_receive(&s, &m, 0, 0, log_send, &l);
	recn_arrive(&s, RECN_Q_SAQ(0), r, 1, 100, RECN_NO_UPSTREAM, 0, log_send, &l);
	EXPECT_TRUE(recn_saq_ready(&s, 0));
	m.kind = RECN_MSG_XOFF;
	recn_receive(&s, &m, 0, 100, log_send, &l);
	EXPECT_TRUE(!recn_saq_ready(&s, 0));
	EXPECT_EQ(recn_next(&s, -1, NULL, NULL), -1);
	/* a repeated Xoff extends the lease */
	recn_receive(&s, &m, 0, 100 + c.lease_ns / 2, log_send, &l);
	recn_tick(&s, 100 + c.lease_ns, log_send, &l);
	EXPECT_TRUE(!recn_saq_ready(&s, 0));
	recn_tick(&s, 100 + c.lease_ns / 2 + c.lease_ns, log_send, &l);
	EXPECT_TRUE(recn_saq_ready(&s, 0));
	EXPECT_EQ(s.st.lease_expired, 1);
	/* an Xon ends it at once */
	recn_receive(&s, &m, 0, 2 * c.lease_ns, log_send, &l);
	m.kind = RECN_MSG_XON;
	recn_receive(&s, &m, 0, 2 * c.lease_ns + 1, log_send, &l);
	EXPECT_TRUE(recn_saq_ready(&s, 0));
}

UNIT_TEST(saq_release_leaf_and_lost_release)
{
	struct recn_cfg c = cfg_small();
	struct recn_set s;
	struct log l = { .n = 0 };
	struct recn_msg m = { .kind = RECN_MSG_NOTIFY, .pt = pt_of(3, 1, 0) };
	fq_u32 r = route2(2, -1);
	int i;

	recn_init(&s, &c);
	recn_receive(&s, &m, 0, 0, log_send, &l);
	/* congested itself: it tells upstream ports 4 and 7, so it is no leaf */
	for (i = 0; i < 3; i++) {
		recn_arrive(&s, RECN_Q_SAQ(0), r, 0, 1000, 4, 0, log_send, &l);
		recn_arrive(&s, RECN_Q_SAQ(0), r, 0, 1000, 7, 0, log_send, &l);
	}
	EXPECT_EQ(log_count(&l, 0, RECN_MSG_NOTIFY, 4), 1);
	EXPECT_EQ(log_count(&l, 0, RECN_MSG_NOTIFY, 7), 1);
	EXPECT_TRUE(recn_point_eq(&l.e[0].m.pt, &m.pt));
	for (i = 0; i < 6; i++)
		recn_depart(&s, RECN_Q_SAQ(0), 1000, 10, log_send, &l);
	EXPECT_TRUE(s.saq[0].used);		/* empty, not a leaf */
	/*
	 * A RELEASE in the period of the notification may have crossed it
	 * (recn_forget_port()): port 7 stays told, and is notified again at
	 * its next frame
	 */
	m.kind = RECN_MSG_RELEASE;
	recn_receive(&s, &m, 7, 20, log_send, &l);
	EXPECT_TRUE(s.saq[0].used);
	EXPECT_EQ(s.saq[0].t.told, 1ULL << 4 | 1ULL << 7);
	EXPECT_EQ(s.saq[0].t.fresh, 1ULL << 4);
	/* after the period a RELEASE is believed */
	recn_tick(&s, c.refresh_ns, log_send, &l);
	recn_receive(&s, &m, 4, c.refresh_ns, log_send, &l);
	EXPECT_TRUE(s.saq[0].used);
	recn_receive(&s, &m, 7, c.refresh_ns, log_send, &l);
	EXPECT_TRUE(!s.saq[0].used);		/* the last one released it */
	EXPECT_EQ(log_count(&l, 0, RECN_MSG_RELEASE, RECN_DOWNSTREAM), 1);
	recn_receive(&s, &m, 7, c.refresh_ns, log_send, &l);
	EXPECT_EQ(s.st.stale_rx, 1);

	/* the same, but port 7's RELEASE is lost: freed after idle_ns */
	m.kind = RECN_MSG_NOTIFY;
	recn_receive(&s, &m, 0, 100, log_send, &l);
	for (i = 0; i < 3; i++)
		recn_arrive(&s, RECN_Q_SAQ(0), r, 0, 1000, 7, 100, log_send, &l);
	for (i = 0; i < 3; i++)
		recn_depart(&s, RECN_Q_SAQ(0), 1000, 200, log_send, &l);
	recn_tick(&s, 200 + c.idle_ns - 1, log_send, &l);
	EXPECT_TRUE(s.saq[0].used);
	recn_tick(&s, 200 + c.idle_ns, log_send, &l);
	EXPECT_TRUE(!s.saq[0].used);
	EXPECT_EQ(s.st.saq_idle_free, 1);
	/* a SAQ notified but never used goes the same way */
	m.kind = RECN_MSG_NOTIFY;
	recn_receive(&s, &m, 0, 5000000, log_send, &l);
	recn_tick(&s, 5000000 + c.idle_ns, log_send, &l);
	EXPECT_EQ(s.st.saq_idle_free, 2);
	EXPECT_EQ(s.st.saq_alloc, s.st.saq_free);
}

UNIT_TEST(root_released_frees_and_renotifies)
{
	struct recn_cfg c = cfg_small();
	struct recn_set s;
	struct log l = { .n = 0 };
	struct recn_msg m = { .kind = RECN_MSG_RELEASE, .pt = pt_of(4, 1, 0) };
	fq_u32 r = route2(3, -1), d = recn_detq_of(r);
	int i;

	recn_init(&s, &c);
	for (i = 0; i < 3; i++)
		recn_arrive(&s, d, r, 0, 1000, 0, 0, log_send, &l);
	EXPECT_EQ(s.st.root_alloc, 1);
	for (i = 0; i < 3; i++)
		recn_depart(&s, d, 1000, 1, log_send, &l);
	EXPECT_TRUE(s.root[0].used);		/* port 0 may hold a SAQ */
	/* in the period of its notification: it may have crossed it */
	recn_receive(&s, &m, 0, 2, log_send, &l);
	EXPECT_TRUE(s.root[0].used);
	recn_tick(&s, c.refresh_ns, log_send, &l);
	recn_receive(&s, &m, 0, c.refresh_ns, log_send, &l);
	EXPECT_TRUE(!s.root[0].used);
	EXPECT_EQ(s.detq[d].roots, 0);
	/* congestion again: a new root, a new notification */
	for (i = 0; i < 2; i++)
		recn_arrive(&s, d, r, 0, 1000, 0, c.refresh_ns + 1, log_send, &l);
	EXPECT_EQ(s.st.root_alloc, 2);
	EXPECT_EQ(log_count(&l, 0, RECN_MSG_NOTIFY, 0), 2);
	/* more (queue, SL) pairs than roots: counted, nothing breaks */
	for (i = 0; i < 40; i++)
		recn_arrive(&s, d, r, (fq_u8)(i + 1), 1000, 0, c.refresh_ns + 2, log_send, &l);
	EXPECT_EQ(s.st.root_full, 40 - RECN_ROOT_MAX + 1);
}

/* ---- what the review found --------------------------------------------- */

/*
 * A SAQ that lives long (no leaf) keeps no finished wait: after 2^31 more
 * frames through the queue it once waited for, the wrapped counts would
 * make it look waiting again and never be served.
 */
UNIT_TEST(a_finished_wait_does_not_come_back)
{
	struct recn_cfg c = cfg_small();
	struct recn_set s;
	struct log l = { .n = 0 };
	struct recn_msg m = { .kind = RECN_MSG_NOTIFY, .pt = pt_of(3, 1, 0) };
	fq_u32 r = route2(2, -1), d = recn_detq_of(r);
	int i;

	recn_init(&s, &c);
	recn_arrive(&s, d, r, 0, 1000, RECN_NO_UPSTREAM, 0, log_send, &l);
	recn_receive(&s, &m, 0, 0, log_send, &l);
	for (i = 0; i < 3; i++)		/* tells port 4: no leaf */
		recn_arrive(&s, RECN_Q_SAQ(0), r, 0, 1000, 4, 0, log_send, &l);
	recn_depart(&s, d, 1000, 0, log_send, &l);	/* its wait is over */
	recn_tick(&s, 1, log_send, &l);
	for (i = 0; i < 3; i++)
		recn_depart(&s, RECN_Q_SAQ(0), 1000, 1, log_send, &l);
	ASSERT_TRUE(s.saq[0].used);
	/* 2^31 frames later (set, not sent: the counts are all it reads) */
	s.detq[d].arrived += 0x80000000u;
	s.detq[d].departed += 0x80000000u;
	recn_arrive(&s, RECN_Q_SAQ(0), r, 0, 1000, 4, 2, log_send, &l);
	EXPECT_TRUE(recn_saq_ready(&s, 0));
}

/* A tick whose clock reads a little behind the last event's frees nothing. */
UNIT_TEST(a_clock_a_little_behind_frees_nothing)
{
	struct recn_cfg c = cfg_small();
	struct recn_set s;
	struct log l = { .n = 0 };
	struct recn_msg m = { .kind = RECN_MSG_NOTIFY, .pt = pt_of(3, 1, 0) };
	fq_u32 r = route2(2, -1);
	int i;

	recn_init(&s, &c);
	recn_receive(&s, &m, 0, 1000000, log_send, &l);
	for (i = 0; i < 3; i++)
		recn_arrive(&s, RECN_Q_SAQ(0), r, 0, 1000, 4, 1000000, log_send, &l);
	for (i = 0; i < 3; i++)
		recn_depart(&s, RECN_Q_SAQ(0), 1000, 1000010, log_send, &l);
	recn_tick(&s, 1000005, log_send, &l);
	EXPECT_TRUE(s.saq[0].used);
	recn_init(&s, &c);
	recn_receive(&s, &m, 0, 2000, log_send, &l);
	recn_tick(&s, 1999, log_send, &l);
	EXPECT_TRUE(s.saq[0].used);
	EXPECT_EQ(s.st.saq_idle_free, 0);
}

/*
 * A root and a SAQ of one name (an output side: detection queue 4's root
 * for SL 0, then a SAQ for [4] notified from downstream): the SAQ takes
 * over the root's told ports, and the root's queue draining sends no Xon
 * that would undo the SAQ's Xoff.
 *
 * The root had stopped them (Xoff); the SAQ starts empty, at xon bytes
 * or fewer, so it lets them go again at once.  Kept stopped, they would
 * send nothing to it, no departure of its own would ever say Xon, and
 * the Xoff, repeated at every refresh, would hold until the SAQ was
 * freed idle (found by selftests/fuzz/fuzz_recn.c).  Their frames then
 * fill the SAQ, which stops them again at xoff bytes as any SAQ does.
 */
UNIT_TEST(a_saq_takes_over_the_root_of_its_name)
{
	struct recn_cfg c = cfg_small();
	struct recn_set s;
	struct log l = { .n = 0 };
	struct recn_msg m = { .kind = RECN_MSG_NOTIFY, .pt = pt_of(4, 1, 0) };
	fq_u32 r = route2(3, -1), d = recn_detq_of(r);
	fq_u64 t = 10 * c.refresh_ns;
	unsigned int mark;
	int i;

	recn_init(&s, &c);
	for (i = 0; i < 4; i++)
		recn_arrive(&s, d, r, 0, 1000, 1, 0, log_send, &l);
	ASSERT_EQ(log_count(&l, 0, RECN_MSG_XOFF, 1), 1);
	mark = l.n;
	recn_receive(&s, &m, 0, 0, log_send, &l);
	ASSERT_EQ(recn_classify(&s, r, 0), 0);
	EXPECT_EQ(s.detq[d].roots, 0);
	EXPECT_EQ(s.saq[0].t.told, 1 << 1);
	/* empty: the root's Xoff ends, and is not repeated at the refresh */
	EXPECT_EQ(log_count(&l, mark, RECN_MSG_XON, 1), 1);
	EXPECT_TRUE(!s.saq[0].t.xoff);
	mark = l.n;
	recn_tick(&s, t, log_send, &l);
	EXPECT_EQ(log_count(&l, mark, RECN_MSG_XOFF, 1), 0);
	/* the ports' frames stop it again at xoff bytes */
	for (i = 0; i < 4; i++)
		recn_arrive(&s, RECN_Q_SAQ(0), r, 0, 1000, 1, t, log_send, &l);
	EXPECT_EQ(log_count(&l, mark, RECN_MSG_XOFF, 1), 1);
	EXPECT_TRUE(s.saq[0].t.xoff);
	mark = l.n;
	for (i = 0; i < 2; i++)
		recn_depart(&s, d, 1000, t + 1, log_send, &l);
	EXPECT_EQ(log_count(&l, mark, RECN_MSG_XON, 1), 0);
	/* the SAQ's own Xon, when it drains */
	for (i = 0; i < 2; i++)
		recn_depart(&s, d, 1000, t + 2, log_send, &l);
	for (i = 0; i < 2; i++)
		recn_depart(&s, RECN_Q_SAQ(0), 1000, t + 2, log_send, &l);
	EXPECT_EQ(log_count(&l, mark, RECN_MSG_XON, 1), 1);
}

/*
 * A port that could not give the point a SAQ answers FULL, so the
 * notifier does not wait for a SAQ that is not there: it is a leaf again
 * and freed when it empties.  It asks that port again only after its
 * refresh period; a port whose SAQ went (RELEASE), at its next frame.
 */
UNIT_TEST(a_refused_notification_leaves_a_leaf)
{
	struct recn_cfg c = cfg_small();
	struct recn_set up, s;
	struct log l = { .n = 0 }, lu = { .n = 0 };
	struct recn_msg m = { .kind = RECN_MSG_NOTIFY, .pt = pt_of(3, 1, 0) };
	fq_u32 r = route2(2, -1);
	int i;

	c.nsaq = 1;
	recn_init(&up, &c);
	recn_receive(&up, &(struct recn_msg){ .kind = RECN_MSG_NOTIFY, .pt = pt_of(9, 1, 0) },
		     0, 0, log_send, &lu);
	recn_init(&s, &c);
	recn_receive(&s, &m, 0, 0, log_send, &l);
	for (i = 0; i < 2; i++)
		recn_arrive(&s, RECN_Q_SAQ(0), r, 0, 1000, 0, 0, log_send, &l);
	ASSERT_EQ(l.n, 1);
	recn_receive(&up, &l.e[0].m, 0, 0, log_send, &lu);
	EXPECT_EQ(up.st.saq_full, 1);
	ASSERT_EQ(log_count(&lu, 0, RECN_MSG_FULL, RECN_DOWNSTREAM), 1);
	recn_receive(&s, &lu.e[lu.n - 1].m, 0, 0, log_send, &l);
	EXPECT_EQ(s.saq[0].t.told, 0);
	for (i = 0; i < 2; i++)
		recn_depart(&s, RECN_Q_SAQ(0), 1000, 1, log_send, &l);
	EXPECT_TRUE(!s.saq[0].used);
	/* and is not asked again at its next frame, only after a period */
	recn_init(&s, &c);
	recn_receive(&s, &m, 0, 0, log_send, &l);
	l.n = 0;
	for (i = 0; i < 2; i++)
		recn_arrive(&s, RECN_Q_SAQ(0), r, 0, 1000, 0, 0, log_send, &l);
	m.kind = RECN_MSG_FULL;
	recn_receive(&s, &m, 0, 0, log_send, &l);
	recn_arrive(&s, RECN_Q_SAQ(0), r, 0, 1000, 0, 1, log_send, &l);
	EXPECT_EQ(log_count(&l, 0, RECN_MSG_NOTIFY, 0), 1);
	recn_tick(&s, c.refresh_ns, log_send, &l);
	recn_arrive(&s, RECN_Q_SAQ(0), r, 0, 1000, 0, c.refresh_ns, log_send, &l);
	EXPECT_EQ(log_count(&l, 0, RECN_MSG_NOTIFY, 0), 2);
	m.kind = RECN_MSG_RELEASE;
	recn_receive(&s, &m, 0, c.refresh_ns, log_send, &l);
	recn_arrive(&s, RECN_Q_SAQ(0), r, 0, 1000, 0, c.refresh_ns + 1, log_send, &l);
	EXPECT_EQ(log_count(&l, 0, RECN_MSG_NOTIFY, 0), 3);
	EXPECT_EQ(s.st.full_rx, 1);
	EXPECT_EQ(s.st.release_rx, 1);
}

/* A RELEASE from a port never told is stale: it frees nothing. */
UNIT_TEST(a_release_from_a_port_not_told_is_stale)
{
	struct recn_cfg c = cfg_small();
	struct recn_set s;
	struct log l = { .n = 0 };
	struct recn_msg m = { .kind = RECN_MSG_NOTIFY, .pt = pt_of(3, 1, 0) };
	fq_u32 r = route2(3, -1), d = recn_detq_of(r);
	int i;

	recn_init(&s, &c);
	recn_receive(&s, &m, 0, 0, log_send, &l);
	m.kind = RECN_MSG_RELEASE;
	recn_receive(&s, &m, 200, 0, log_send, &l);
	recn_receive(&s, &m, 5, 0, log_send, &l);
	EXPECT_TRUE(s.saq[0].used);
	EXPECT_EQ(s.st.stale_rx, 2);
	EXPECT_EQ(l.n, 0);
	/* a root's told port of another SL is not touched either */
	for (i = 0; i < 2; i++)
		recn_arrive(&s, d, r, 0, 1000, 0, 0, log_send, &l);
	recn_arrive(&s, d, r, 1, 1000, 0, 0, log_send, &l);
	for (i = 0; i < 3; i++)
		recn_depart(&s, d, 1000, 1, log_send, &l);
	m.pt = pt_of(d, 1, 1);
	recn_receive(&s, &m, 0, 2, log_send, &l);
	EXPECT_EQ(s.st.root_alloc, 2);
	EXPECT_TRUE(s.root[0].used && s.root[0].sl == 0 && (s.root[0].t.told & 1));
}

/* A root whose queue still holds frames is not freed by time. */
UNIT_TEST(a_root_with_frames_is_not_idle)
{
	struct recn_cfg c = cfg_small();
	struct recn_set s;
	struct log l = { .n = 0 };
	fq_u32 r = route2(3, -1), d = recn_detq_of(r);
	int i;

	recn_init(&s, &c);
	recn_arrive(&s, d, r, 0, 1000, 1, 0, log_send, &l);
	recn_depart(&s, d, 1000, 0, log_send, &l);
	for (i = 0; i < 3; i++)
		recn_arrive(&s, d, r, 0, 1000, 1, 10, log_send, &l);
	ASSERT_TRUE(s.root[0].used);
	recn_tick(&s, c.idle_ns + 20, log_send, &l);
	EXPECT_TRUE(s.root[0].used);
}

/* ---- a long random run -------------------------------------------------- */

#define RUN_FRAMES 4096

struct frame {
	fq_u32 route, len, flow;
	fq_u8 sl;
	fq_u64 seq;
	int next;		/* the next frame of the same queue, or -1 */
};

struct fifo {
	int head, tail;
};

static void fifo_push(struct fifo *f, struct frame *fr, int i)
{
	fr[i].next = -1;
	if (f->tail >= 0)
		fr[f->tail].next = i;
	else
		f->head = i;
	f->tail = i;
}

static int fifo_pop(struct fifo *f, struct frame *fr)
{
	int i = f->head;

	f->head = fr[i].next;
	if (f->head < 0)
		f->tail = -1;
	return i;
}

static void check_set(int *unit_failed, const struct recn_set *s, const struct fifo *fq,
		      const struct frame *fr)
{
	fq_u32 q, i, j;

	for (q = 0; q < RECN_DETQS + s->cfg.nsaq; q++) {
		fq_u32 bytes = 0, frames = 0;
		int k;

		for (k = fq[q].head; k >= 0; k = fr[k].next) {
			bytes += fr[k].len;
			frames++;
		}
		if (q < RECN_DETQS) {
			EXPECT_EQ(s->detq[q].bytes, bytes);
			EXPECT_EQ(s->detq[q].frames, frames);
			EXPECT_EQ(s->busy >> q & 1, frames != 0);
		} else {
			const struct recn_saq *a = &s->saq[q - RECN_DETQS];

			EXPECT_EQ(a->bytes, bytes);
			EXPECT_EQ(a->frames, frames);
			if (!a->used)
				EXPECT_EQ(frames, 0);
		}
	}
	for (i = 0; i < s->cfg.nsaq; i++) {
		if (!s->saq[i].used)
			continue;
		EXPECT_TRUE(recn_point_valid(&s->saq[i].pt));
		for (j = i + 1; j < s->cfg.nsaq; j++)
			if (s->saq[j].used)
				EXPECT_TRUE(!recn_point_eq(&s->saq[i].pt, &s->saq[j].pt));
	}
	for (i = 0; i < RECN_ROOT_MAX; i++) {
		const struct recn_root *r = &s->root[i];

		EXPECT_EQ(s->detq[r->detq].roots >> i & 1, r->used);
	}
}

/*
 * Thousands of frames of 24 flows over 4 SLs through one set with 4 SAQs,
 * fed by 3 upstream ports, while random notifications, Xoffs, Xons and
 * releases arrive (some for points no route takes, some malformed) and
 * time passes.  Every frame leaves, each flow's frames in order, and the
 * set's counts match the queues the test keeps itself.
 */
UNIT_TEST(random_run_keeps_order_and_counts)
{
	static struct frame fr[RUN_FRAMES];
	struct fifo fq[RECN_DETQS + RECN_SAQ_MAX];
	fq_u64 next_seq[24] = { 0 }, want_seq[24] = { 0 };
	struct recn_cfg c = cfg_small();
	struct recn_set s;
	struct log l = { .n = 0 };
	fq_u64 now = 0, left = 0;
	int made = 0, last = -1, round;
	fq_u32 q;

	c.nsaq = 4;
	recn_init(&s, &c);
	for (q = 0; q < RECN_DETQS + RECN_SAQ_MAX; q++)
		fq[q] = (struct fifo){ -1, -1 };
	for (round = 0; made < RUN_FRAMES || left; round++) {
		unsigned int op = unit_rnd_below(10);

		now += unit_rnd_below(50000);
		if (op < 4 && made < RUN_FRAMES) {
			struct frame *f = &fr[made];
			fq_u32 flow = unit_rnd_below(24);
			int saq;

			/* flow f: out of port f % 3, then f / 3 % 4, SL f % 4 */
			f->flow = flow;
			f->route = route2((int)(flow % 3), (int)(flow / 3 % 4) - 1);
			f->sl = (fq_u8)(flow % 4);
			f->len = 64 + unit_rnd_below(1436);
			f->seq = next_seq[flow]++;
			saq = recn_classify(&s, f->route, f->sl);
			q = saq >= 0 ? RECN_Q_SAQ((fq_u32)saq) : recn_detq_of(f->route);
			fifo_push(&fq[q], fr, made);
			recn_arrive(&s, q, f->route, f->sl, f->len, unit_rnd_below(4), now, log_send, &l);
			made++;
			left++;
		} else if (op < 7) {
			int k;

			last = recn_next(&s, last, NULL, NULL);
			if (last < 0)
				continue;
			k = fifo_pop(&fq[last], fr);
			EXPECT_EQ(fr[k].seq, want_seq[fr[k].flow]);
			want_seq[fr[k].flow] = fr[k].seq + 1;
			recn_depart(&s, (fq_u32)last, fr[k].len, now, log_send, &l);
			left--;
		} else if (op < 9) {
			struct recn_msg m;
			fq_u32 flow = unit_rnd_below(24);

			m.kind = (fq_u8)(1 + unit_rnd_below(6));	/* 6: no such kind */
			m.pt = pt_of(flow % 3 + 1, 1, (fq_u8)(flow % 4));
			if (unit_rnd_below(2))
				m.pt = pt_of(m.pt.turns | (fq_u64)(flow / 3 % 4) << 6, 2, m.pt.sl);
			if (!unit_rnd_below(20))
				m.pt.len = (fq_u8)unit_rnd_below(9);	/* often malformed */
			recn_receive(&s, &m, unit_rnd_below(4), now, log_send, &l);
		} else {
			recn_tick(&s, now, log_send, &l);
		}
		if (!(round % 97))
			check_set(unit_failed, &s, fq, fr);
		l.n = 0;
		/* when only stopped SAQs hold frames, time must free them */
		if (made == RUN_FRAMES && left && recn_next(&s, last, NULL, NULL) < 0) {
			now += c.lease_ns;
			recn_tick(&s, now, log_send, &l);
			ASSERT_TRUE(recn_next(&s, last, NULL, NULL) >= 0);
		}
		ASSERT_TRUE(round < 10 * RUN_FRAMES);
	}
	check_set(unit_failed, &s, fq, fr);
	EXPECT_TRUE(s.st.saq_alloc > 20);
	EXPECT_TRUE(s.st.xoff_rx > 20);
	EXPECT_TRUE(s.st.bad_rx > 0);
	/* everything drained: time frees every line */
	now += c.idle_ns;
	recn_tick(&s, now, log_send, &l);
	for (q = 0; q < c.nsaq; q++)
		EXPECT_TRUE(!s.saq[q].used);
	for (q = 0; q < RECN_ROOT_MAX; q++)
		EXPECT_TRUE(!s.root[q].used);
	EXPECT_EQ(s.st.saq_alloc, s.st.saq_free);
}

int main(void)
{
	return unit_run();
}
