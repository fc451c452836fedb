// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the lane schedulers (paper: aoq-anchored-opportunity-
 * queueing): the worked example of section 2, the fairness bound of
 * Theorem 1 (RFB <= 2M) over random traces with pipeline bubbles and
 * blocked lanes, and the weighted variant of section 3.3.
 */
#include "unit.h"
#include "core/aoq_core.h"

#define T_LANES		8
#define T_PKTS		128

/* A flit-level lane model: packets whose flits arrive over time. */
struct t_pkt {
	unsigned int size;
	unsigned int arrive[128];	/* cycle each flit arrives */
	unsigned int sent;
	unsigned int done_at;
};

struct t_lane {
	struct t_pkt pkt[T_PKTS];
	unsigned int npkts;
	unsigned int head;		/* first packet not fully sent */
	bool blocked;			/* downstream congestion: cannot send */
	fq_u64 visits;			/* S_i: opportunities, counted here */
	fq_u64 visits_cur;		/* opportunities of the head packet */
};

struct t_model {
	struct t_lane lane[T_LANES];
	unsigned int nlanes;
	unsigned int now;
	fq_u64 m;			/* M: most opportunities a packet needed */
	unsigned int last_sent[T_LANES];	/* cycle a lane's last unit went */
};

static bool t_arrived(const struct t_lane *l, unsigned int now)
{
	const struct t_pkt *p;

	if (l->head >= l->npkts)
		return false;
	p = &l->pkt[l->head];
	return p->sent < p->size && p->arrive[p->sent] <= now;
}

static bool t_backlogged(void *ctx, unsigned int lane)
{
	struct t_model *m = ctx;

	return t_arrived(&m->lane[lane], m->now);
}

static enum aoq_tx t_send(void *ctx, unsigned int lane)
{
	struct t_model *m = ctx;
	struct t_lane *l = &m->lane[lane];
	struct t_pkt *p;

	l->visits++;
	l->visits_cur++;
	if (l->blocked || !t_arrived(l, m->now))
		return AOQ_TX_NONE;
	p = &l->pkt[l->head];
	m->last_sent[lane] = m->now;
	if (++p->sent < p->size)
		return AOQ_TX_UNIT;
	p->done_at = m->now;
	if (l->visits_cur > m->m)
		m->m = l->visits_cur;
	l->visits_cur = 0;
	l->head++;
	return AOQ_TX_TAIL;
}

static const struct aoq_ops t_ops = {
	.send = t_send,
	.backlogged = t_backlogged,
};

/* Active by definition 2: busy, or flits waiting. */
static bool t_active(const struct t_model *m, unsigned int lane)
{
	const struct t_lane *l = &m->lane[lane];

	if (l->head >= l->npkts)
		return false;
	return l->pkt[l->head].sent > 0 || t_arrived(l, m->now);
}

static void t_add_pkt(struct t_model *m, unsigned int lane, unsigned int size,
		      unsigned int at, unsigned int gap)
{
	struct t_pkt *p = &m->lane[lane].pkt[m->lane[lane].npkts++];
	unsigned int i;

	p->size = size;
	for (i = 0; i < size; i++)
		p->arrive[i] = at + i * gap;
}

/* Cycles are numbered from 1 as in the paper. */
static void t_run(struct aoq_sched *s, struct t_model *m, unsigned int cycles)
{
	unsigned int i;

	for (m->now = 1; m->now <= cycles; m->now++) {
		for (i = 0; i < m->nlanes; i++)
			if (t_backlogged(m, i))
				aoq_lane_arrive(s, i);
		aoq_dequeue(s, m->now, &t_ops, m);
	}
}

static int worked_ok(enum aoq_mode mode, const unsigned int *want)
{
	static struct t_model m;
	struct aoq_sched s;
	unsigned int i;

	memset(&m, 0, sizeof(m));
	m.nlanes = 4;
	aoq_init(&s, mode, 4);
	for (i = 0; i < 4; i++)
		t_add_pkt(&m, i, 10, 0, 0);
	t_run(&s, &m, 60);
	for (i = 0; i < 4; i++)
		if (m.lane[i].pkt[0].done_at != want[i])
			return 0;
	/* the busy period ended: counts start again from zero */
	return s.nactive == 0 && aoq_lane_count(&s, 0) == 0 &&
	       s.busy_periods == 1;
}

UNIT_TEST(worked_example_fbrr_37_to_40)
{
	static const unsigned int want[] = { 37, 38, 39, 40 };

	EXPECT_TRUE(worked_ok(AOQ_MODE_FBRR, want));
}

UNIT_TEST(worked_example_anchored_10_to_40)
{
	static const unsigned int want[] = { 10, 20, 30, 40 };

	EXPECT_TRUE(worked_ok(AOQ_MODE_AOQ, want));
	EXPECT_TRUE(worked_ok(AOQ_MODE_ARR, want));
	EXPECT_TRUE(worked_ok(AOQ_MODE_PBRR, want));
}

/*
 * A bubble in the anchor's packet: anchored disciplines serve others
 * meanwhile and come back; pbrr idles.
 */
UNIT_TEST(bubble_strays_and_returns)
{
	static struct t_model m;
	struct aoq_sched s;
	enum aoq_mode mode;

	for (mode = AOQ_MODE_AOQ; mode < AOQ_MODE_COUNT; mode++) {
		memset(&m, 0, sizeof(m));
		m.nlanes = 2;
		aoq_init(&s, mode, 2);
		/* lane 0: 4 flits, one every 3 cycles; lane 1: 6 flits at once */
		t_add_pkt(&m, 0, 4, 1, 3);
		t_add_pkt(&m, 1, 6, 1, 0);
		t_run(&s, &m, 40);
		switch (mode) {
		case AOQ_MODE_AOQ:
		case AOQ_MODE_ARR:
			/* 0 at 1,4,7,10; lane 1 fills 2,3,5,6,8,9 */
			EXPECT_EQ(m.lane[0].pkt[0].done_at, 10);
			EXPECT_EQ(m.lane[1].pkt[0].done_at, 9);
			break;
		case AOQ_MODE_PBRR:
			/* lane 0 alone until 10, then lane 1 11..16 */
			EXPECT_EQ(m.lane[0].pkt[0].done_at, 10);
			EXPECT_EQ(m.lane[1].pkt[0].done_at, 16);
			break;
		case AOQ_MODE_FBRR:
			EXPECT_EQ(m.lane[0].pkt[0].done_at, 10);
			EXPECT_EQ(m.lane[1].pkt[0].done_at, 9);
			break;
		default:
			break;
		}
		/* every cycle with an active lane was an opportunity to someone */
		EXPECT_TRUE(s.lane[0].offered >= 4);
		EXPECT_EQ(s.lane[0].used, 4);
		EXPECT_EQ(s.lane[1].used, 6);
	}
}

/* A newly active lane starts at the VirtualCount, not at zero. */
UNIT_TEST(new_lane_gets_virtual_count)
{
	static struct t_model m;
	struct aoq_sched s;

	memset(&m, 0, sizeof(m));
	m.nlanes = 3;
	aoq_init(&s, AOQ_MODE_AOQ, 3);
	/* lane 0 has bubbles, so lane 1 is offered opportunities too */
	t_add_pkt(&m, 0, 50, 0, 2);
	t_add_pkt(&m, 1, 50, 0, 0);
	t_add_pkt(&m, 2, 5, 30, 0);
	t_run(&s, &m, 29);
	EXPECT_TRUE(s.vcount > 0);
	m.now = 30;
	aoq_lane_arrive(&s, 2);
	EXPECT_EQ(s.lane[2].oc, s.vcount);
	/* it sorts after lanes with a smaller count, not to the front by credit */
	EXPECT_TRUE(s.lane[2].oc >= s.lane[aoq_list_at(&s, 0)].oc);
}

/* An anchor stalled longer than the stall time is given up, counted. */
UNIT_TEST(stall_releases_anchor)
{
	static struct t_model m;
	struct aoq_sched s;
	enum aoq_mode mode;

	for (mode = AOQ_MODE_AOQ; mode < AOQ_MODE_COUNT; mode++) {
		if (mode == AOQ_MODE_FBRR)
			continue;
		memset(&m, 0, sizeof(m));
		m.nlanes = 2;
		aoq_init(&s, mode, 2);
		s.stall = 20;
		/* lane 0: 3 of 10 flits arrive, the rest never (sender died) */
		t_add_pkt(&m, 0, 10, 0, 0);
		m.lane[0].pkt[0].arrive[3] = 1000000;
		t_add_pkt(&m, 1, 8, 5, 0);
		t_run(&s, &m, 100);
		EXPECT_EQ(s.lane[0].abandoned, 1);
		EXPECT_EQ(m.lane[0].pkt[0].sent, 3);
		EXPECT_TRUE(m.lane[1].pkt[0].done_at > 0);
		if (mode == AOQ_MODE_PBRR)	/* waited for the stall: 3 + 20 */
			EXPECT_TRUE(m.lane[1].pkt[0].done_at >= 23 + 8);
		/* lane 0 is no longer active: nothing of it waits */
		EXPECT_TRUE(!s.lane[0].active);
		EXPECT_EQ(s.nactive, 0);
	}
}

/*
 * The qdisc calls dequeue once when the stall time is up (its watchdog):
 * that one call must release the dead anchor and send from another lane,
 * or nothing would call it again.
 */
UNIT_TEST(stall_release_sends_in_same_cycle)
{
	static struct t_model m;
	struct aoq_sched s;
	enum aoq_mode mode;
	int lane;

	for (mode = AOQ_MODE_AOQ; mode < AOQ_MODE_COUNT; mode++) {
		if (mode == AOQ_MODE_FBRR)
			continue;
		memset(&m, 0, sizeof(m));
		m.nlanes = 2;
		aoq_init(&s, mode, 2);
		s.stall = 1000;
		t_add_pkt(&m, 0, 10, 0, 0);
		m.lane[0].pkt[0].arrive[2] = 1000000;	/* dies after 2 flits */
		t_run(&s, &m, 3);
		EXPECT_EQ(s.anchor, 0);
		/* lane 1 arrives; nothing is called until the stall is up */
		t_add_pkt(&m, 1, 1, 4, 0);
		m.now = 4;
		aoq_lane_arrive(&s, 1);
		lane = aoq_dequeue(&s, 4, &t_ops, &m);
		if (mode == AOQ_MODE_PBRR)
			EXPECT_EQ(lane, -1);	/* pbrr waits on its anchor */
		m.now = 2 + 1000 + 1;
		if (lane < 0) {
			lane = aoq_dequeue(&s, m.now, &t_ops, &m);
			EXPECT_EQ(lane, 1);
		}
		EXPECT_EQ(m.lane[1].pkt[0].sent, 1);
		if (mode == AOQ_MODE_PBRR)
			EXPECT_EQ(s.lane[0].abandoned, 1);
	}
}

/* Without a stall time a dead anchor keeps pbrr waiting forever. */
UNIT_TEST(no_stall_pbrr_waits)
{
	static struct t_model m;
	struct aoq_sched s;

	memset(&m, 0, sizeof(m));
	m.nlanes = 2;
	aoq_init(&s, AOQ_MODE_PBRR, 2);
	t_add_pkt(&m, 0, 10, 0, 0);
	m.lane[0].pkt[0].arrive[3] = 1000000;
	t_add_pkt(&m, 1, 8, 5, 0);
	t_run(&s, &m, 200);
	EXPECT_EQ(m.lane[1].pkt[0].sent, 0);
	EXPECT_EQ(s.lane[0].abandoned, 0);
}

/* A blocked lane does not stop the others (work conservation), but pbrr. */
UNIT_TEST(blocked_lane_work_conserving)
{
	static struct t_model m;
	struct aoq_sched s;
	enum aoq_mode mode;
	unsigned int i, sent;

	for (mode = AOQ_MODE_AOQ; mode < AOQ_MODE_COUNT; mode++) {
		memset(&m, 0, sizeof(m));
		m.nlanes = 3;
		aoq_init(&s, mode, 3);
		for (i = 0; i < 3; i++)
			t_add_pkt(&m, i, 20, 0, 0);
		m.lane[0].blocked = true;
		t_run(&s, &m, 40);
		sent = m.lane[1].pkt[0].sent + m.lane[2].pkt[0].sent;
		if (mode == AOQ_MODE_PBRR)
			EXPECT_EQ(sent, 0);
		else
			EXPECT_EQ(sent, 40);
		EXPECT_EQ(m.lane[0].pkt[0].sent, 0);
		/* the blocked lane was offered opportunities it could not use */
		EXPECT_TRUE(s.lane[0].offered > 0);
		EXPECT_EQ(s.lane[0].used, 0);
	}
}

/* xorshift64*: fast, reproducible */
static fq_u64 t_rng = 88172645463325252ULL;

static unsigned int t_rand(unsigned int n)
{
	t_rng ^= t_rng >> 12;
	t_rng ^= t_rng << 25;
	t_rng ^= t_rng >> 27;
	return (unsigned int)((t_rng * 2685821657736338717ULL) >> 33) % n;
}

struct t_pair {
	bool on;
	fq_s32 lo, hi;
};

/* the core's own measure of relative fairness */
static struct aoq_rf t_rf;

/*
 * One random trace: lanes, packets with random sizes, arrival times and
 * bubbles, lanes blocked for random stretches.  Returns RF over every
 * interval in which two lanes were both active; *mout gets M.
 */
static fq_u64 t_random_trace(struct aoq_sched *s, struct t_model *m,
			     fq_u64 *mout, fq_u64 *spread, fq_u64 base)
{
	static struct t_pair pair[T_LANES][T_LANES];
	bool act[T_LANES];
	unsigned int i, j, k, cycles, maxsz, bubble;
	fq_u64 rf = 0;

	/* reset only what a trace uses: the model is large */
	for (i = 0; i < T_LANES; i++) {
		m->lane[i].npkts = m->lane[i].head = 0;
		m->lane[i].blocked = false;
		m->lane[i].visits = m->lane[i].visits_cur = 0;
	}
	m->m = 0;
	memset(pair, 0, sizeof(pair));
	m->nlanes = 2 + t_rand(T_LANES - 1);
	aoq_init(s, AOQ_MODE_AOQ, m->nlanes);
	s->vcount = base;	/* lanes start their counts here */
	s->rf = &t_rf;
	t_rf.max = 0;
	maxsz = 1 + t_rand(20);
	bubble = t_rand(4);
	cycles = 0;
	for (i = 0; i < m->nlanes; i++) {
		unsigned int at = t_rand(20), npk = 1 + t_rand(5);

		for (k = 0; k < npk; k++) {
			struct t_pkt *p = &m->lane[i].pkt[m->lane[i].npkts++];

			p->size = 1 + t_rand(maxsz);
			p->sent = p->done_at = 0;
			for (j = 0; j < p->size; j++) {
				p->arrive[j] = at;
				if (bubble && !t_rand(bubble + 1))
					at += 1 + t_rand(8);	/* a bubble */
			}
			at += t_rand(30);
			if (at > cycles)
				cycles = at;
		}
	}
	cycles = cycles * 10 + 2000;
	for (m->now = 1; m->now <= cycles; m->now++) {
		for (i = 0; i < m->nlanes; i++)
			if (m->lane[i].head != m->lane[i].npkts)
				break;
		if (i == m->nlanes)
			break;		/* all sent */
		for (i = 0; i < m->nlanes; i++) {
			/* blocked stretches: downstream congestion */
			if (!t_rand(16))
				m->lane[i].blocked = !m->lane[i].blocked;
			if (t_backlogged(m, i))
				aoq_lane_arrive(s, i);
			act[i] = t_active(m, i);
			if (act[i] != aoq_lane_is_active(s, i)) {
				if (getenv("AOQ_DEBUG"))
					printf("# lane %u now %u model %d core %d busy %d\n", i, m->now, act[i], aoq_lane_is_active(s, i), s->lane[i].busy);
				return ~(fq_u64)0;	/* model and core disagree */
			}
		}
		for (i = 0; i < m->nlanes; i++)
			for (j = i + 1; j < m->nlanes; j++) {
				struct t_pair *pr = &pair[i][j];
				fq_s32 d = (fq_s32)(m->lane[i].visits - m->lane[j].visits);

				if (!act[i] || !act[j]) {
					pr->on = false;
					continue;
				}
				if (!pr->on) {
					pr->on = true;
					pr->lo = pr->hi = d;
				}
			}
		aoq_dequeue(s, m->now, &t_ops, m);
		for (i = 0; i < m->nlanes; i++)
			for (j = i + 1; j < m->nlanes; j++) {
				struct t_pair *pr = &pair[i][j];
				fq_s32 d = (fq_s32)(m->lane[i].visits - m->lane[j].visits);

				if (!pr->on)
					continue;
				if (d < pr->lo)
					pr->lo = d;
				if (d > pr->hi)
					pr->hi = d;
				if ((fq_u64)(pr->hi - pr->lo) > rf)
					rf = pr->hi - pr->lo;
			}
		/*
		 * A lane whose tail went with nothing behind it is idle until
		 * its next flit arrives: its intervals end here, even if that
		 * flit comes at the start of the next cycle.
		 */
		for (i = 0; i < m->nlanes; i++)
			if (!t_active(m, i))
				for (j = 0; j < m->nlanes; j++)
					pair[i < j ? i : j][i < j ? j : i].on = false;
	}
	for (i = 0; i < m->nlanes; i++)
		if (m->lane[i].head != m->lane[i].npkts)
			return ~(fq_u64)0;	/* never finished: not work conserving */
	/* the core measures the same RF as the model, to the opportunity */
	if (t_rf.max != rf * AOQ_OC_UNIT) {
		if (getenv("AOQ_DEBUG"))
			printf("# core RF %llu model RF %llu\n",
			       (unsigned long long)(t_rf.max / AOQ_OC_UNIT),
			       (unsigned long long)rf);
		return ~(fq_u64)0;
	}
	*mout = m->m;
	*spread = aoq_max_spread(s);
	return rf;
}

static void rfb_traces(unsigned int ntraces, bool near_wrap, int *unit_failed)
{
	static struct t_model m;
	struct aoq_sched s;
	fq_u64 rf, mm, spread, worst_ratio_rf = 0, worst_m = 1, max_rf = 0;
	fq_u64 base = 0;
	unsigned int n, bad = 0;

	for (n = 0; n < ntraces; n++) {
		/* counts cross the top of their range within the trace */
		if (near_wrap)
			base = (fq_u64)0 - (fq_u64)(1 + t_rand(200)) * AOQ_OC_UNIT;
		rf = t_random_trace(&s, &m, &mm, &spread, base);
		if (rf == ~(fq_u64)0) {
			if (bad++ < 5)
				UNIT_FAIL("trace %u: model and core disagree or stuck", n);
			continue;
		}
		if (rf > 2 * mm || spread > mm) {
			if (bad++ < 5)
				UNIT_FAIL("trace %u: RF %llu spread %llu M %llu", n,
					  (unsigned long long)rf,
					  (unsigned long long)spread,
					  (unsigned long long)mm);
		}
		if (rf > max_rf)
			max_rf = rf;
		if (rf * worst_m > worst_ratio_rf * mm) {
			worst_ratio_rf = rf;
			worst_m = mm;
		}
	}
	printf("# %u traces%s: largest RF %llu, worst RF/M %llu/%llu\n",
	       ntraces, near_wrap ? " across the wrap" : "",
	       (unsigned long long)max_rf, (unsigned long long)worst_ratio_rf,
	       (unsigned long long)worst_m);
	EXPECT_EQ(bad, 0);
	/* the traces were not trivially fair: some RF came close to the bound */
	EXPECT_TRUE(max_rf > 10);
}

UNIT_TEST(rfb_at_most_2m_random_traces)
{
	rfb_traces(100000, false, unit_failed);
}

/*
 * The same with counts that start just below the wrap, on a generator of
 * their own so the tests after it see the sequence they always saw.
 */
UNIT_TEST(rfb_at_most_2m_across_wrap)
{
	fq_u64 saved = t_rng;

	t_rng = 0x2545f4914f6cdd1dULL;
	rfb_traces(20000, true, unit_failed);
	t_rng = saved;
}

/* FBRR has no bound in terms of M; here it is not unfair either, but ARR is. */
UNIT_TEST(arr_unfair_with_variable_sizes)
{
	static struct t_model m;
	struct aoq_sched s;
	unsigned int i;

	/* lane 0: big packets, lane 1: one-flit packets; both backlogged */
	memset(&m, 0, sizeof(m));
	m.nlanes = 2;
	aoq_init(&s, AOQ_MODE_ARR, 2);
	for (i = 0; i < T_PKTS; i++) {
		t_add_pkt(&m, 0, 100, 0, 0);
		t_add_pkt(&m, 1, 1, 0, 0);
	}
	t_run(&s, &m, 2000);
	/* arr: 100 opportunities to lane 0 per 1 to lane 1 */
	EXPECT_TRUE(s.lane[0].offered > 50 * s.lane[1].offered);
	/* aoq offers them in proportion 1:1 up to one packet */
	memset(&m, 0, sizeof(m));
	m.nlanes = 2;
	aoq_init(&s, AOQ_MODE_AOQ, 2);
	for (i = 0; i < T_PKTS; i++) {
		t_add_pkt(&m, 0, 100, 0, 0);
		t_add_pkt(&m, 1, 1, 0, 0);
	}
	t_run(&s, &m, 2000);
	EXPECT_TRUE(aoq_max_spread(&s) <= 100);
}

static void weighted_run(const fq_u32 *w, unsigned int n, bool blocking,
			 int *unit_failed)
{
	static struct t_model m;
	struct aoq_sched s;
	fq_u64 total = 0, wsum = 0;
	unsigned int i, k;

	memset(&m, 0, sizeof(m));
	m.nlanes = n;
	aoq_init(&s, AOQ_MODE_AOQ, n);
	for (i = 0; i < n; i++) {
		aoq_set_weight(&s, i, w[i]);
		for (k = 0; k < T_PKTS; k++)
			t_add_pkt(&m, i, 2 + (k * 7 + i) % 9, 0, 0);
	}
	for (m.now = 1; m.now <= 600 && !*unit_failed; m.now++) {
		for (i = 0; i < n; i++) {
			if (blocking)
				m.lane[i].blocked = !t_rand(4);
			if (t_backlogged(&m, i))
				aoq_lane_arrive(&s, i);
		}
		aoq_dequeue(&s, m.now, &t_ops, &m);
		for (i = 0; i < n; i++)	/* all stay backlogged throughout */
			if (!aoq_lane_is_active(&s, i))
				UNIT_FAIL("lane %u ran dry at %u", i, m.now);
	}
	for (i = 0; i < n; i++) {
		total += s.lane[i].offered;
		wsum += w[i];
	}
	for (i = 0; i < n; i++) {
		double share = (double)s.lane[i].offered / (double)total;
		double want = (double)w[i] / (double)wsum;

		printf("#   weight %u: %.4f of opportunities, want %.4f\n", w[i],
		       share, want);
		if (share < want * 0.95 || share > want * 1.05)
			UNIT_FAIL("lane %u share %.4f want %.4f", i, share, want);
	}
}

UNIT_TEST(weighted_opportunities_proportional)
{
	static const fq_u32 w1[] = { 1, 2, 4 };
	static const fq_u32 w2[] = { 1, 1, 3, 5 };

	weighted_run(w1, 3, false, unit_failed);
	weighted_run(w2, 4, true, unit_failed);
}

/* Changing the mode keeps activity and rebuilds the list. */
UNIT_TEST(mode_change_keeps_lanes)
{
	static struct t_model m;
	struct aoq_sched s;
	unsigned int i;

	memset(&m, 0, sizeof(m));
	m.nlanes = 4;
	aoq_init(&s, AOQ_MODE_FBRR, 4);
	for (i = 0; i < 4; i++)
		t_add_pkt(&m, i, 10, 0, 0);
	t_run(&s, &m, 6);
	aoq_set_mode(&s, AOQ_MODE_AOQ);
	EXPECT_EQ(s.nlist, 4);
	for (m.now = 7; m.now <= 40; m.now++)
		aoq_dequeue(&s, m.now, &t_ops, &m);
	for (i = 0; i < 4; i++)
		EXPECT_EQ(m.lane[i].pkt[0].sent, 10);
	EXPECT_EQ(s.nactive, 0);
}

/*
 * A GSO message whose last segment the lane's child refused
 * (aoq_lane_cut() after its first three frames were queued) ends with
 * its last frame queued: pbrr's anchor must not hold the link, busy and
 * empty, for the stall time.  Lane 0 is the anchor with that message,
 * lane 1 has a message of two frames; with a stall time of 1000 cycles,
 * lane 1 is done within ten, in every mode.  And a frame queued after
 * the cut continues the message: then the stall time does end it.
 */
UNIT_TEST(a_message_without_its_tail_ends_with_its_last_frame)
{
	static const enum aoq_mode modes[] = {
		AOQ_MODE_PBRR, AOQ_MODE_AOQ, AOQ_MODE_ARR, AOQ_MODE_FBRR
	};
	static struct t_model m;
	unsigned int k, i, later;
	struct aoq_sched s;

	for (later = 0; later < 2; later++)
		for (k = 0; k < sizeof(modes) / sizeof(modes[0]); k++) {
			memset(&m, 0, sizeof(m));
			m.nlanes = 2;
			aoq_init(&s, modes[k], 2);
			s.stall = 1000;
			/* 5 segments, the last two never come: 3 queued, the tail refused */
			t_add_pkt(&m, 0, 5, 0, 0);
			m.lane[0].pkt[0].arrive[3] = 1u << 30;
			m.lane[0].pkt[0].arrive[4] = 1u << 30;
			t_add_pkt(&m, 1, 2, 0, 0);
			for (i = 0; i < 3; i++)
				aoq_lane_arrive(&s, 0);
			aoq_lane_cut(&s, 0);
			if (later) {
				/* a frame of lane 0 queued after it: the message goes on */
				m.lane[0].pkt[0].arrive[3] = 0;
				aoq_lane_arrive(&s, 0);
			}
			aoq_lane_arrive(&s, 1);
			aoq_lane_arrive(&s, 1);
			for (m.now = 1; m.now <= 10; m.now++)
				aoq_dequeue(&s, m.now, &t_ops, &m);
			EXPECT_EQ(m.lane[0].pkt[0].sent, 3 + later);
			if (!later || modes[k] != AOQ_MODE_PBRR) {
				EXPECT_EQ(m.lane[1].pkt[0].sent, 2);
			} else {
				/* pbrr waits on its anchor's unfinished message */
				EXPECT_EQ(m.lane[1].pkt[0].sent, 0);
				EXPECT_TRUE(s.lane[0].busy);
			}
			if (!later)
				EXPECT_TRUE(!s.lane[0].busy && !s.lane[0].active);
			EXPECT_EQ(s.abandoned, 0);
		}
}

/*
 * max_spread is mode aoq's (Documentation/aoq.rst: 0 in the others): a
 * change of mode restarts the counts it is taken from, and the other
 * modes keep none to measure it with.  A spread of an aoq phase must
 * not stand through an fbrr one, nor into the next aoq phase.
 */
UNIT_TEST(mode_change_restarts_max_spread)
{
	static struct t_model m;
	struct aoq_sched s;

	memset(&m, 0, sizeof(m));
	m.nlanes = 2;
	aoq_init(&s, AOQ_MODE_AOQ, 2);
	/* a long message against short ones: the counts spread */
	t_add_pkt(&m, 0, 30, 0, 0);
	t_add_pkt(&m, 1, 1, 0, 0);
	t_add_pkt(&m, 1, 1, 0, 0);
	t_add_pkt(&m, 1, 30, 0, 0);
	t_run(&s, &m, 20);
	ASSERT_TRUE(aoq_max_spread(&s) > 0);
	aoq_set_mode(&s, AOQ_MODE_FBRR);
	EXPECT_EQ(aoq_max_spread(&s), 0);
	for (; m.now <= 40; m.now++)
		aoq_dequeue(&s, m.now, &t_ops, &m);
	EXPECT_EQ(aoq_max_spread(&s), 0);
	aoq_set_mode(&s, AOQ_MODE_AOQ);
	EXPECT_EQ(aoq_max_spread(&s), 0);
}

/*
 * The scheduler's own bookkeeping is consistent: the ActiveList holds
 * each active lane at most once, never the anchor, and together with the
 * anchor it is every active lane, in order of their counts (mode aoq).
 */
static int t_lists_ok(const struct aoq_sched *s)
{
	unsigned int i, j, nact = 0;

	for (i = 0; i < AOQ_MAX_LANES; i++)
		nact += s->lane[i].active;
	if (nact != s->nactive || s->nlist > AOQ_MAX_LANES)
		return 0;
	for (i = 0; i < s->nlist; i++) {
		if (!s->lane[aoq_list_at(s, i)].active || (int)aoq_list_at(s, i) == s->anchor)
			return 0;
		for (j = i + 1; j < s->nlist; j++)
			if (aoq_list_at(s, i) == aoq_list_at(s, j))
				return 0;
	}
	if (s->mode == AOQ_MODE_AOQ &&
	    s->nlist + (s->anchor >= 0) != s->nactive)
		return 0;
	/* the other modes keep no list: aoq_track_spread() relies on it */
	if (s->mode != AOQ_MODE_AOQ && s->nlist)
		return 0;
	for (i = 1; s->mode == AOQ_MODE_AOQ && i < s->nlist; i++)
		if (aoq_oc_before(s->lane[aoq_list_at(s, i)].oc,
				  s->lane[aoq_list_at(s, i - 1)].oc))
			return 0;
	return 1;
}

/*
 * The ActiveList is a ring (aoq_list_at()): taking its head moves its
 * start, removing a lane elsewhere closes the gap.  Random arrivals of
 * messages of one to three frames, held children, class delete and
 * re-add, weight and mode changes, on 2 to 64 lanes, with the ring's
 * start wrapping some 240 times: after every operation the list holds
 * every active lane but the anchor once, in order of their counts.
 */
struct t_ring {
	unsigned int q[AOQ_MAX_LANES];		/* frames queued */
	unsigned int msg_left[AOQ_MAX_LANES];	/* frames to the tail */
	bool held[AOQ_MAX_LANES];
	fq_u32 rnd;
};

static fq_u32 t_ring_rnd(struct t_ring *r, fq_u32 n)
{
	r->rnd = r->rnd * 1103515245u + 12345u;
	return (r->rnd >> 8) % n;
}

static enum aoq_tx t_ring_send(void *ctx, unsigned int lane)
{
	struct t_ring *r = ctx;

	if (!r->q[lane] || r->held[lane])
		return AOQ_TX_NONE;
	r->q[lane]--;
	if (!r->msg_left[lane])
		r->msg_left[lane] = 1 + t_ring_rnd(r, 3);
	/* the last frame queued ends its message: no lane waits for more */
	if (--r->msg_left[lane] && r->q[lane])
		return AOQ_TX_UNIT;
	r->msg_left[lane] = 0;
	return AOQ_TX_TAIL;
}

static bool t_ring_backlogged(void *ctx, unsigned int lane)
{
	struct t_ring *r = ctx;

	return r->q[lane] > 0;
}

static const struct aoq_ops t_ring_ops = {
	.send = t_ring_send,
	.backlogged = t_ring_backlogged,
};

UNIT_TEST(active_list_ring_stays_consistent)
{
	static struct aoq_sched s;
	static struct t_ring r;
	unsigned int round, step, lane, nlanes, prev_head, wraps = 0, sent = 0;
	int bad = 0;
	fq_u64 now = 1;

	memset(&r, 0, sizeof(r));
	r.rnd = 4242;
	for (round = 0; round < 40 && !bad; round++) {
		nlanes = 2 + t_ring_rnd(&r, AOQ_MAX_LANES - 1);
		memset(r.q, 0, sizeof(r.q));
		memset(r.msg_left, 0, sizeof(r.msg_left));
		memset(r.held, 0, sizeof(r.held));
		aoq_init(&s, AOQ_MODE_AOQ, nlanes);
		for (step = 0; step < 10000 && !bad; step++) {
			lane = t_ring_rnd(&r, nlanes);
			prev_head = s.lhead;
			switch (t_ring_rnd(&r, 40)) {
			case 0 ... 9:
				r.q[lane] += 1 + t_ring_rnd(&r, 3);
				aoq_lane_arrive(&s, lane);
				break;
			case 10 ... 11:
				r.held[lane] = !r.held[lane];
				break;
			case 12:
				r.q[lane] = 0;
				r.msg_left[lane] = 0;
				aoq_lane_reset(&s, lane, 1 + t_ring_rnd(&r, 4));
				break;
			case 13:
				aoq_set_weight(&s, lane, 1 + t_ring_rnd(&r, 8));
				break;
			case 14:
				if (!t_ring_rnd(&r, 20))
					aoq_set_mode(&s, t_ring_rnd(&r, 2) ? AOQ_MODE_AOQ :
						     (enum aoq_mode)t_ring_rnd(&r, AOQ_MODE_COUNT));
				break;
			default:
				sent += aoq_dequeue(&s, now++, &t_ring_ops, &r) >= 0;
				break;
			}
			wraps += s.lhead < prev_head;
			if (!t_lists_ok(&s)) {
				UNIT_FAIL("round %u step %u: the ActiveList is inconsistent",
					  round, step);
				bad = 1;
			}
		}
	}
	EXPECT_EQ(bad, 0);
	printf("#   %u wraps of the ring, %u frames sent\n", wraps, sent);
	EXPECT_TRUE(wraps > 100);	/* the ring's start went round */
	EXPECT_TRUE(sent > 50000);
}

/* Two lanes of one-frame messages; lane 1 can be held (a tbf child). */
struct t_churn {
	unsigned int q[2];
	bool hold1;
	fq_u64 sent[2];
};

static enum aoq_tx t_churn_send(void *ctx, unsigned int lane)
{
	struct t_churn *c = ctx;

	if (!c->q[lane] || (lane == 1 && c->hold1))
		return AOQ_TX_NONE;
	c->q[lane]--;
	c->sent[lane]++;
	return AOQ_TX_TAIL;
}

static bool t_churn_backlogged(void *ctx, unsigned int lane)
{
	struct t_churn *c = ctx;

	return c->q[lane] > 0;
}

static const struct aoq_ops t_churn_ops = {
	.send = t_churn_send,
	.backlogged = t_churn_backlogged,
};

/* What sch_aoq does when a lane's class is added again. */
static void t_lane_readd(struct aoq_sched *s, unsigned int lane)
{
	aoq_lane_reset(s, lane, 1);
}

/*
 * A lane visited while its child holds its frame (tbf), then found idle
 * when the child drops it (codel): the visits offered no message of its.
 * Its next message, one frame sent at the first visit, took one
 * opportunity; the stale visits came with it and M read 50 and more.
 */
UNIT_TEST(idle_lane_forgets_unused_opportunities)
{
	struct t_churn c = { .q = { 100000, 1 }, .hold1 = true };
	struct aoq_sched s;
	unsigned int now = 0;

	aoq_init(&s, AOQ_MODE_AOQ, 2);
	aoq_lane_arrive(&s, 0);
	aoq_lane_arrive(&s, 1);
	while (++now <= 50)
		aoq_dequeue(&s, now, &t_churn_ops, &c);
	EXPECT_EQ(c.sent[1], 0);
	c.q[1] = 0;	/* the child dropped what it held */
	while (++now <= 100)
		aoq_dequeue(&s, now, &t_churn_ops, &c);
	c.q[1] = 1;
	c.hold1 = false;
	aoq_lane_arrive(&s, 1);
	while (++now <= 150)
		aoq_dequeue(&s, now, &t_churn_ops, &c);
	EXPECT_EQ(c.sent[1], 1);
	EXPECT_EQ(s.lane[1].max_msg_opps, 1);
	EXPECT_EQ(s.max_msg_opps, 1);
}

/*
 * Class delete and re-add of a lane that keeps receiving frames (the
 * default lane), thousands of times within one busy period, held open by
 * lane 1 whose child holds its frames back (sch_aoq with a tbf child).
 * The core must never list a lane twice nor write outside itself; the
 * busy period must still end and the next one start level.
 */
UNIT_TEST(lane_readd_during_busy_period)
{
	static struct {
		struct aoq_sched s;
		fq_u8 guard[16384];
	} g;
	static fq_u8 zero[sizeof(g.guard)];
	struct aoq_sched *s = &g.s;
	struct t_churn c = { .q = { 0, 5 }, .hold1 = true };
	fq_u64 now = 1;
	unsigned int n, bad = 0;

	aoq_init(s, AOQ_MODE_AOQ, 2);
	aoq_lane_arrive(s, 1);
	for (n = 0; n < 10000 && !bad; n++, now++) {
		c.q[0] = 1;
		aoq_lane_arrive(s, 0);
		if (!t_lists_ok(s) || !s->lane[1].active ||
		    s->lane[0].inc != aoq_weight_inc(1) ||
		    s->lane[1].inc != aoq_weight_inc(1) ||
		    s->lane[1].weight != 1) {
			UNIT_FAIL("cycle %u: scheduler state corrupted", n);
			bad = 1;
			break;
		}
		aoq_dequeue(s, now, &t_churn_ops, &c);
		/* class delete: the child's frames go, then the lane */
		c.q[0] = 0;
		aoq_lane_remove(s, 0);
		t_lane_readd(s, 0);
	}
	EXPECT_EQ(bad, 0);
	EXPECT_EQ(c.sent[0], 10000);
	EXPECT_MEM_EQ(g.guard, zero, sizeof(zero));
	if (bad)
		return;
	/* lane 1's child lets its frames go: the busy period ends */
	c.hold1 = false;
	for (n = 0; n < 10 && s->nactive; n++, now++)
		aoq_dequeue(s, now, &t_churn_ops, &c);
	EXPECT_EQ(c.sent[1], 5);
	EXPECT_EQ(s->nactive, 0);
	EXPECT_EQ(s->busy_periods, 1);
	/* and the next one starts level */
	c.q[0] = c.q[1] = 3;
	aoq_lane_arrive(s, 0);
	aoq_lane_arrive(s, 1);
	EXPECT_EQ(s->lane[0].oc, s->lane[1].oc);
	EXPECT_TRUE(t_lists_ok(s));
}

/* Two lanes, each backlogged with 10-flit packets. */
struct t_pair_model {
	unsigned int left[3];		/* flits left of the packet in service */
	fq_u64 used[3];
	bool never_tail[3];		/* a sender that never ends its message */
};

static enum aoq_tx t_pm_send(void *ctx, unsigned int lane)
{
	struct t_pair_model *p = ctx;

	p->used[lane]++;
	if (p->never_tail[lane])
		return AOQ_TX_UNIT;
	if (!p->left[lane])
		p->left[lane] = 10;
	return --p->left[lane] ? AOQ_TX_UNIT : AOQ_TX_TAIL;
}

static bool t_pm_backlogged(void *ctx, unsigned int lane)
{
	return true;
}

static const struct aoq_ops t_pm_ops = {
	.send = t_pm_send,
	.backlogged = t_pm_backlogged,
};

/*
 * Opportunity counts near the top of their range: a link that never
 * drains never rebases them, and they wrap.  Two lanes that are both
 * always backlogged must still share the opportunities within the bound
 * (M = 10 here) across the wrap, in every sorted comparison.
 */
UNIT_TEST(counts_across_wrap_stay_fair)
{
	static const fq_u64 before[] = { 1, 5, 17, 10000 };
	struct aoq_sched s;
	struct t_pair_model p;
	unsigned int i, k;
	fq_u64 now, d;

	for (k = 0; k < sizeof(before) / sizeof(before[0]); k++) {
		memset(&p, 0, sizeof(p));
		aoq_init(&s, AOQ_MODE_AOQ, 2);
		s.vcount = (fq_u64)0 - before[k] * AOQ_OC_UNIT;
		for (i = 0; i < 2; i++)
			aoq_lane_arrive(&s, i);
		EXPECT_EQ(s.lane[0].oc, s.vcount);
		for (now = 1; now <= 40000; now++)
			aoq_dequeue(&s, now, &t_pm_ops, &p);
		d = p.used[0] > p.used[1] ? p.used[0] - p.used[1] :
					    p.used[1] - p.used[0];
		if (d > 20 || aoq_max_spread(&s) > 10)
			UNIT_FAIL("%llu opportunities before the wrap: lanes got %llu and %llu, spread %llu",
				  (unsigned long long)before[k],
				  (unsigned long long)p.used[0],
				  (unsigned long long)p.used[1],
				  (unsigned long long)aoq_max_spread(&s));
		EXPECT_TRUE(t_lists_ok(&s));
	}
}

/*
 * A sender that never sets the tail flag keeps its lane backlogged and
 * busy for ever.  The message bound ends its message: the other lane's
 * one-frame messages get their turn (aoq: about half of the frames; arr
 * and pbrr: one message per anchor turn).
 */
UNIT_TEST(never_ending_message_is_bounded)
{
	struct aoq_sched s;
	struct t_pair_model p;
	enum aoq_mode mode;
	fq_u64 now;

	for (mode = AOQ_MODE_AOQ; mode < AOQ_MODE_COUNT; mode++) {
		memset(&p, 0, sizeof(p));
		p.never_tail[0] = true;
		aoq_init(&s, mode, 2);
		aoq_lane_arrive(&s, 0);
		aoq_lane_arrive(&s, 1);
		for (now = 1; now <= 10000; now++)
			aoq_dequeue(&s, now, &t_pm_ops, &p);
		printf("#   mode %d: never-ending lane %llu frames, other lane %llu\n",
		       mode, (unsigned long long)s.lane[0].used,
		       (unsigned long long)s.lane[1].used);
		if (mode == AOQ_MODE_AOQ || mode == AOQ_MODE_FBRR)
			EXPECT_TRUE(s.lane[1].used >= 4000);
		else
			EXPECT_TRUE(s.lane[1].used >= 10);
		EXPECT_EQ(s.lane[0].used + s.lane[1].used, 10000);
		/* every message of lane 0 was ended at the bound, and said so */
		EXPECT_EQ(s.lane[0].forced, s.lane[0].used / AOQ_MSG_LIMIT_DEFAULT);
		EXPECT_EQ(s.lane[0].messages, s.lane[0].forced);
		EXPECT_EQ(s.forced, s.lane[0].forced);
		EXPECT_EQ(s.lane[1].forced, 0);
		EXPECT_EQ(s.lane[0].abandoned, 0);
	}
}

/*
 * The bound is the caller's: msg_limit units end a message, real tails
 * before it end it as usual, 0 switches the bound off.
 */
UNIT_TEST(message_limit_counts_units)
{
	static const fq_u32 limits[] = { 1, 3, 10, 11, 0 };
	struct aoq_sched s;
	struct t_pair_model p;
	unsigned int k;
	fq_u64 now;

	for (k = 0; k < sizeof(limits) / sizeof(limits[0]); k++) {
		memset(&p, 0, sizeof(p));
		p.never_tail[0] = true;		/* lane 1: 10-unit messages */
		aoq_init(&s, AOQ_MODE_AOQ, 2);
		s.msg_limit = limits[k];
		aoq_lane_arrive(&s, 0);
		aoq_lane_arrive(&s, 1);
		for (now = 1; now <= 3000; now++)
			aoq_dequeue(&s, now, &t_pm_ops, &p);
		if (!limits[k]) {
			/* no bound: lane 0 is the anchor for good */
			EXPECT_EQ(s.lane[1].used, 0);
			EXPECT_EQ(s.forced, 0);
			continue;
		}
		EXPECT_EQ(s.lane[0].forced, s.lane[0].used / limits[k]);
		/*
		 * lane 1's 10-unit messages: units 1..9 are not tails, so a
		 * bound below 10 ends a message at every multiple of it up
		 * to 9, and the real tail ends the rest
		 */
		EXPECT_EQ(s.lane[1].forced,
			  s.lane[1].used / 10 * (9 / limits[k]) +
			  (s.lane[1].used % 10 < 9 ? s.lane[1].used % 10 : 9) / limits[k]);
		EXPECT_EQ(s.forced, s.lane[0].forced + s.lane[1].forced);
		EXPECT_TRUE(s.lane[1].used >= 1300);
		/* every unit used its opportunity: M is the bound */
		EXPECT_EQ(s.max_msg_opps, limits[k]);
		EXPECT_TRUE(aoq_max_spread(&s) <= s.max_msg_opps);
	}
}

/*
 * An idle lane left behind while VirtualCount runs on for more than half
 * the counter's range comes back at VirtualCount, not as far ahead as a
 * signed comparison of its stale count would make it look: the leads of
 * idle lanes are checked again as VirtualCount moves.
 */
UNIT_TEST(idle_lane_far_behind_comes_back_level)
{
	struct aoq_sched s;
	struct t_pair_model p;
	unsigned int step;
	fq_u64 now = 1;

	memset(&p, 0, sizeof(p));
	aoq_init(&s, AOQ_MODE_AOQ, 3);
	/* lane 2 ahead of lanes 0 and 1 when it goes idle */
	aoq_lane_arrive(&s, 0);
	aoq_lane_arrive(&s, 1);
	aoq_lane_arrive(&s, 2);
	s.lane[2].oc += 5 * AOQ_OC_UNIT;
	aoq_deactivate(&s, 2);
	EXPECT_TRUE(s.lead & aoq_bit(2));
	/* lanes 0 and 1 (and VirtualCount) move on by 3 * 2^62 */
	for (step = 0; step < 12; step++) {
		s.lane[0].oc += 1ULL << 60;
		s.lane[1].oc += 1ULL << 60;
		aoq_dequeue(&s, ++now, &t_pm_ops, &p);
	}
	EXPECT_TRUE(!(s.lead & aoq_bit(2)));
	++now;
	aoq_lane_arrive(&s, 2);
	EXPECT_EQ(s.lane[2].oc, s.vcount);
	/* and gets its share */
	memset(&p, 0, sizeof(p));
	for (step = 0; step < 3000; step++)
		aoq_dequeue(&s, ++now, &t_pm_ops, &p);
	EXPECT_TRUE(p.used[2] >= 900 && p.used[2] <= 1100);
}

/*
 * Relative fairness per discipline (Definition 4), lanes of 100-unit
 * messages against lanes of one-unit messages, all backlogged, with
 * bubbles: FBRR and AOQ are fair (RF of a few opportunities for FBRR,
 * within 2M for AOQ); ARR and PBRR are not, their RF grows with time.
 */
UNIT_TEST(relative_fairness_per_mode)
{
	static struct t_model m;
	static struct aoq_rf rf;
	struct aoq_sched s;
	enum aoq_mode mode;
	unsigned int i, k;
	fq_u64 got[AOQ_MODE_COUNT];

	for (mode = AOQ_MODE_AOQ; mode < AOQ_MODE_COUNT; mode++) {
		memset(&m, 0, sizeof(m));
		memset(&rf, 0, sizeof(rf));
		m.nlanes = 4;
		aoq_init(&s, mode, 4);
		s.rf = &rf;
		for (i = 0; i < 4; i++)
			for (k = 0; k < T_PKTS; k++)
				t_add_pkt(&m, i, i < 2 ? 100 : 1, 0, i == 0 ? 1 : 0);
		t_run(&s, &m, 4000);
		got[mode] = fq_div64(rf.max, AOQ_OC_UNIT);
		printf("#   mode %d: RF %llu, M %llu\n", mode,
		       (unsigned long long)got[mode], (unsigned long long)m.m);
		if (mode == AOQ_MODE_AOQ)
			EXPECT_TRUE(got[mode] <= 2 * m.m);
	}
	EXPECT_TRUE(got[AOQ_MODE_FBRR] <= 2);
	EXPECT_TRUE(got[AOQ_MODE_ARR] >= 1000);
	EXPECT_TRUE(got[AOQ_MODE_PBRR] >= 1000);
}

/*
 * The qdisc reads its clock only when a cycle needs it (AOQ_NOW_LAZY).
 * The same random traces (multi-unit messages with bubbles, senders that
 * die mid-message, blocked stretches, a short stall time) run once with
 * the time given to every cycle and once read through ops->now(), in
 * every mode: the lane each cycle serves, the anchor and its progress
 * (the qdisc's watchdog deadline), and every lane's counters are the
 * same.  Traces of one-unit messages that nothing blocks never read the
 * clock.
 *
 * Both runs are also held to the stall rule itself, kept here apart from
 * the core: a lane's progress is the later of its last unit sent and the
 * cycle it became the anchor; the anchor's progress is that, a message
 * is given up only when that lies more than the stall time back, and an
 * anchor that far back at the start of a cycle is given up in it.
 */
static unsigned int lazy_reads, lazy_abandoned, stall_errors;

static fq_u64 t_now(void *ctx)
{
	lazy_reads++;
	return ((struct t_model *)ctx)->now;
}

static const struct aoq_ops t_lazy_ops = {
	.send = t_send,
	.backlogged = t_backlogged,
	.now = t_now,
};

#define LAZY_CYCLES	400

static fq_u32 lazy_rnd;

static unsigned int lazy_rand(unsigned int n)
{
	lazy_rnd = lazy_rnd * 1103515245u + 12345u;
	return (lazy_rnd >> 8) % n;
}

/*
 * One packet of up to @maxsz units into lane @i of @m, its units from
 * cycle @at with a bubble of up to @bubble cycles before one in
 * @bubble_odds of them; a sender that dies mid-packet now and then.
 * Returns the cycle after its last unit.
 */
static unsigned int t_random_pkt(struct t_model *m, unsigned int i,
				 unsigned int maxsz, unsigned int at,
				 unsigned int bubble_odds, unsigned int bubble)
{
	struct t_pkt *p = &m->lane[i].pkt[m->lane[i].npkts++];
	unsigned int j;

	p->size = 1 + lazy_rand(maxsz);
	for (j = 0; j < p->size; j++) {
		p->arrive[j] = at;
		if (!lazy_rand(bubble_odds))
			at += 1 + lazy_rand(bubble);	/* a bubble */
	}
	if (maxsz > 1 && !lazy_rand(10))	/* the sender dies */
		p->arrive[lazy_rand(p->size)] = 1000000;
	return at;
}

/*
 * One trace, messages of up to @maxsz units (1: no blocking, no dying
 * sender either); @log gets values per cycle and per lane, returns their
 * number.
 */
static unsigned int lazy_trace(enum aoq_mode mode, fq_u32 seed, bool lazy,
			       unsigned int maxsz, fq_u64 *log)
{
	static struct t_model m;
	struct aoq_sched s;
	unsigned int i, k, n = 0, anchor_at = 0;

	lazy_rnd = seed;
	memset(&m, 0, sizeof(m));
	m.nlanes = 2 + lazy_rand(T_LANES - 1);
	aoq_init(&s, mode, m.nlanes);
	s.stall = 5 + lazy_rand(30);
	s.msg_limit = lazy_rand(2) ? 0 : 1 + lazy_rand(12);
	for (i = 0; i < m.nlanes; i++) {
		unsigned int at = lazy_rand(20);

		for (k = 0; k < 1 + lazy_rand(6); k++) {
			at = t_random_pkt(&m, i, maxsz, at, 4, 40);
			at += lazy_rand(30);
		}
	}
	for (m.now = 1; m.now <= LAZY_CYCLES; m.now++) {
		int a0 = s.anchor;
		fq_u64 ab0[T_LANES], p0[T_LANES];

		for (i = 0; i < m.nlanes; i++) {
			if (maxsz > 1 && !lazy_rand(16))
				m.lane[i].blocked = !m.lane[i].blocked;
			if (t_backlogged(&m, i))
				aoq_lane_arrive(&s, i);
			ab0[i] = s.lane[i].abandoned;
			p0[i] = m.last_sent[i];
			if ((int)i == a0 && anchor_at > p0[i])
				p0[i] = anchor_at;
		}
		log[n++] = (fq_u64)(fq_s64)aoq_dequeue(&s, lazy ? AOQ_NOW_LAZY : m.now,
						      lazy ? &t_lazy_ops : &t_ops, &m);
		for (i = 0; i < m.nlanes; i++) {
			bool gave_up = s.lane[i].abandoned != ab0[i];

			if (gave_up && m.now - p0[i] <= s.stall)
				stall_errors++;		/* too early */
			if ((int)i == a0 && mode != AOQ_MODE_FBRR &&
			    m.now - p0[i] > s.stall && !gave_up)
				stall_errors++;		/* too late */
		}
		if (s.anchor >= 0 && (s.anchor != a0 || s.lane[s.anchor].abandoned != ab0[s.anchor]))
			anchor_at = m.now;
		if (s.anchor >= 0 &&
		    s.lane[s.anchor].progress != (anchor_at > m.last_sent[s.anchor] ?
						  anchor_at : m.last_sent[s.anchor]))
			stall_errors++;			/* wrong watchdog deadline */
		log[n++] = (fq_u64)(fq_s64)s.anchor;
		log[n++] = s.anchor >= 0 ? s.lane[s.anchor].progress : 0;
		if (!lazy_rand(8)) {
			aoq_sweep(&s, lazy ? AOQ_NOW_LAZY : m.now,
				  lazy ? &t_lazy_ops : &t_ops, &m);
			log[n++] = s.nactive;
		}
	}
	lazy_abandoned += s.abandoned;
	for (i = 0; i < m.nlanes; i++) {
		log[n++] = s.lane[i].abandoned;
		log[n++] = s.lane[i].messages;
		log[n++] = s.lane[i].forced;
		log[n++] = s.lane[i].offered;
		log[n++] = s.lane[i].used;
	}
	return n;
}

static fq_u64 lazy_log[2][LAZY_CYCLES * 4 + T_LANES * 5];

UNIT_TEST(lazy_clock_decides_as_the_given_one)
{
	unsigned int trace, na, nb, reads_single = 0, reads_multi = 0;
	enum aoq_mode mode;

	for (mode = AOQ_MODE_AOQ; mode < AOQ_MODE_COUNT; mode++) {
		for (trace = 0; trace < 2000; trace++) {
			fq_u32 seed = 1000 * mode + trace;
			unsigned int maxsz = trace % 4 ? 12 : 1, i;

			na = lazy_trace(mode, seed, false, maxsz, lazy_log[0]);
			lazy_reads = 0;
			nb = lazy_trace(mode, seed, true, maxsz, lazy_log[1]);
			if (maxsz == 1)
				reads_single += lazy_reads;
			else
				reads_multi += lazy_reads;
			if (na != nb || memcmp(lazy_log[0], lazy_log[1], na * sizeof(fq_u64))) {
				for (i = 0; i < na && lazy_log[0][i] == lazy_log[1][i]; i++)
					;
				UNIT_FAIL("mode %d trace %u: differs at entry %u", mode, trace, i);
				return;
			}
		}
	}
	printf("#   %u messages given up; clock reads: %u with one-unit messages, %u with longer\n",
	       lazy_abandoned / 2, reads_single, reads_multi);
	EXPECT_TRUE(lazy_abandoned / 2 > 1000);	/* stalls were exercised */
	EXPECT_EQ(reads_single, 0);
	EXPECT_EQ(stall_errors, 0);
	EXPECT_TRUE(reads_multi > 0);
}

/*
 * aoq_cycle_common() against aoq_dequeue_general(): random lanes of
 * random weights (so that a lane sent back to the list is not always
 * the last), messages of one unit mostly and of several, bubbles,
 * blocked lanes, dying senders, sweeps, lanes reset and mode changes,
 * half of them with counts that wrap.  Two runs of each trace, one
 * through aoq_dequeue() (the common cycle where it applies) and one
 * through aoq_dequeue_general() alone, must leave the scheduler in the
 * same state, byte for byte, after every cycle, and send the same
 * lanes.  The fast run counts how each cycle
 * went: not the common one, the common one with the lane back to the
 * list or out, or the common one finished by aoq_common_rest().
 */
#define COMMON_CYCLES	300

static unsigned int common_not, common_fast, common_out, common_rest;
static unsigned int common_drops;

static fq_u64 t_hash(const void *p, size_t n, fq_u64 h)
{
	const unsigned char *b = p;
	fq_u64 w;

	for (; n >= 8; n -= 8, b += 8) {
		memcpy(&w, b, 8);
		h = (h ^ w) * 1099511628211ULL;
	}
	while (n--)
		h = (h ^ *b++) * 1099511628211ULL;
	return h;
}

/* the scheduler's state: its fields and the lanes in use, every byte */
static fq_u64 t_hash_sched(const struct aoq_sched *s, fq_u64 h)
{
	return t_hash(s, offsetof(struct aoq_sched, lane) +
		      s->nlanes * sizeof(s->lane[0]), h);
}

static fq_u64 common_trace(fq_u32 seed, bool fast)
{
	static struct t_model m;
	struct aoq_sched s;
	fq_u64 h = 14695981039346656037ULL;
	unsigned int i, k, maxsz;
	bool lazy, weighted;

	lazy_rnd = seed;
	memset(&m, 0, sizeof(m));
	m.nlanes = 2 + lazy_rand(T_LANES - 1);
	maxsz = lazy_rand(3) ? 1 : 2 + lazy_rand(10);
	lazy = lazy_rand(2);
	weighted = !lazy_rand(3);
	aoq_init(&s, AOQ_MODE_AOQ, m.nlanes);
	/*
	 * Half the traces start a few opportunities below the wrap of the
	 * counts, so that the lane's place at the end of the list is found
	 * across it (aoq_oc_before(), not <)
	 */
	if (lazy_rand(2))
		s.vcount = s.vcount_checked = (fq_u64)0 -
			(1 + lazy_rand(8)) * AOQ_OC_UNIT / (1 + lazy_rand(4));
	s.stall = lazy_rand(4) ? 5 + lazy_rand(30) : 0;
	s.msg_limit = lazy_rand(2) ? 0 : 1 + lazy_rand(12);
	for (i = 0; i < m.nlanes; i++) {
		unsigned int at = lazy_rand(20);

		if (weighted && lazy_rand(2))
			aoq_set_weight(&s, i, 1 + lazy_rand(16));
		/* about one unit per cycle from all lanes together */
		for (k = 0; k < T_PKTS / 2 + lazy_rand(T_PKTS / 2); k++) {
			at = t_random_pkt(&m, i, maxsz, at, 8, 20);
			at += lazy_rand(2 * m.nlanes);
		}
	}
	for (m.now = 1; m.now <= COMMON_CYCLES; m.now++) {
		fq_u64 now = lazy ? AOQ_NOW_LAZY : m.now;
		const struct aoq_ops *ops = lazy ? &t_lazy_ops : &t_ops;
		int lane;

		for (i = 0; i < m.nlanes; i++) {
			/* blocked now and then, for a few cycles */
			if (!lazy_rand(m.lane[i].blocked ? 4 : 128))
				m.lane[i].blocked = !m.lane[i].blocked;
			/*
			 * a child drops what waits: the lane may sit in the
			 * list with nothing to send, found on its next visit
			 */
			if (!lazy_rand(16) && m.lane[i].head < m.lane[i].npkts &&
			    !m.lane[i].pkt[m.lane[i].head].sent &&
			    t_arrived(&m.lane[i], m.now)) {
				m.lane[i].head++;
				common_drops++;
			}
			if (t_backlogged(&m, i))
				aoq_lane_arrive(&s, i);
		}
		if (!lazy_rand(200)) {		/* a lane deleted and added */
			i = lazy_rand(m.nlanes);
			aoq_lane_reset(&s, i, 1 + lazy_rand(16));
		}
		if (!lazy_rand(300)) {		/* to another mode and back */
			aoq_set_mode(&s, (enum aoq_mode)(1 + lazy_rand(3)));
			aoq_dequeue_general(&s, now, ops, &m);
			aoq_set_mode(&s, AOQ_MODE_AOQ);
		}
		if (!fast) {
			lane = aoq_dequeue_general(&s, now, ops, &m);
		} else {
			int head = s.nlist ? (int)aoq_list_at(&s, 0) : -1;

			lane = aoq_cycle_common(&s, now, ops, &m);
			if (lane == AOQ_NOT_COMMON) {
				common_not++;
				lane = aoq_dequeue_general(&s, now, ops, &m);
			} else if (lane >= 0 && lane == head && !s.lane[lane].active) {
				common_out++;
			} else if (lane >= 0 && s.anchor < 0 && s.nlist &&
				   aoq_list_at(&s, s.nlist - 1) == (unsigned int)lane) {
				common_fast++;
			} else {
				common_rest++;
			}
		}
		h = t_hash(&lane, sizeof(lane), h);
		h = t_hash_sched(&s, h);
		if (!lazy_rand(16)) {
			aoq_sweep(&s, now, ops, &m);
			h = t_hash_sched(&s, h);
		}
	}
	return h;
}

UNIT_TEST(common_cycle_decides_as_the_general)
{
	unsigned int trace;

	for (trace = 0; trace < 3000; trace++) {
		fq_u32 seed = 7000 + trace;

		if (common_trace(seed, false) != common_trace(seed, true)) {
			UNIT_FAIL("trace %u: the common cycle decided otherwise", trace);
			return;
		}
	}
	printf("#   cycles: %u not the common one; common: %u back to the list, %u out, %u finished by aoq_common_rest(); %u drops\n",
	       common_not, common_fast, common_out, common_rest, common_drops / 2);
	/* every way through was taken, many times */
	EXPECT_TRUE(common_fast > 50000);
	EXPECT_TRUE(common_out > 10000);
	EXPECT_TRUE(common_rest > 10000);
	EXPECT_TRUE(common_not > 10000);
	EXPECT_TRUE(common_drops / 2 > 10000);
}

int main(void)
{
	return unit_run();
}
