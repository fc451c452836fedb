// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the table schedulers (kernel/core/dtable_core.h) and the
 * DTable configurator (kernel/core/dtable_config.h): Algorithm 2 step by
 * step on hand-made queues, SBT's reset and lone-class exception, round
 * robin, and the configurator against the paper's Tables 5, 6 and 10.
 */
#include "unit.h"

/* the steps of the classes' entry lists, counted (dt_mark(), dt_idle_passes()) */
static unsigned long list_steps;
#define DT_LIST_STEP()	(list_steps++)

#include "core/dtable_core.h"
#include "core/dtable_config.h"

/* ---- fake queues: per class a list of packet lengths ------------------- */

#define FQ_MAXPKT	256

struct fake {
	int len[DT_MAX_CLASSES][FQ_MAXPKT];
	int head[DT_MAX_CLASSES], tail[DT_MAX_CLASSES];
	bool held[DT_MAX_CLASSES];
	bool endless[DT_MAX_CLASSES];	/* saturated: refills itself */
	/*
	 * Children that drop while they are asked for their head, as netem
	 * over a tbf or codel do: drop_on_peek head packets go, and the
	 * child tells its parent (qlen_notify: dt_class_idle()) when it is
	 * empty, or with notify_early after every drop, as a child does
	 * that counts itself empty while it holds the packet it is about
	 * to hand over.
	 */
	int drop_on_peek[DT_MAX_CLASSES];
	bool notify_early[DT_MAX_CLASSES];
	int dropped;
};

static struct dt_class CLS[DT_MAX_CLASSES];
static struct dt_sched S;

/*
 * Each class's queue is a ring of FQ_MAXPKT lengths: head and tail only
 * grow, so a saturated class (endless) can send for ever.
 */
static bool fake_room(const struct fake *f, int c)
{
	return f->tail[c] - f->head[c] < FQ_MAXPKT;
}

static int fake_len(const struct fake *f, int c)
{
	return f->len[c][f->head[c] % FQ_MAXPKT];
}

static int fake_head(void *ctx, fq_u32 c)
{
	struct fake *f = ctx;

	while (f->drop_on_peek[c] > 0 && f->head[c] != f->tail[c]) {
		f->drop_on_peek[c]--;
		f->head[c]++;
		f->dropped++;
		if (f->head[c] == f->tail[c] || f->notify_early[c])
			dt_class_idle(&S, c);
	}
	if (f->head[c] == f->tail[c])
		return DT_IDLE;
	return f->held[c] ? DT_HELD : fake_len(f, c);
}

static void fake_push(struct fake *f, int c, int len)
{
	if (!fake_room(f, c)) {
		/* a test that queues more is wrong, not the scheduler */
		fprintf(stderr, "fake_push: class %d holds %d packets already\n",
			c, FQ_MAXPKT);
		abort();
	}
	f->len[c][f->tail[c]++ % FQ_MAXPKT] = len;
	dt_class_active(&S, c);
}

static struct fake F;

/*
 * sbt keeps the weight left of all classes as a running sum; step()
 * counts the picks and charges after which it is not the real sum (the
 * sbt tests expect none).
 */
static int sbt_left_errors;

static void check_sbt_left(const struct dt_sched *s)
{
	fq_u64 sum = 0;
	fq_u32 i;

	if (s->mode != DT_MODE_SBT)
		return;
	for (i = 0; i < s->ncls; i++)
		sum += s->cls[i].left;
	if (s->sbt_left != sum)
		sbt_left_errors++;
}

/* one dequeue: the class sent from and the length, or -1 */
static int step(struct dt_sched *s, struct fake *f, int *len)
{
	int c = dt_pick(s, fake_head, f);

	check_sbt_left(s);
	if (c < 0)
		return -1;
	*len = fake_len(f, c);
	if (f->endless[c])
		fake_push(f, c, *len);
	f->head[c]++;
	dt_charge(s, c, *len);
	check_sbt_left(s);
	if (f->head[c] == f->tail[c])
		dt_class_idle(s, c);
	return c;
}

#define EXPECT_STEP(s, f, wc, wl)					\
	do {								\
		int l_ = -1, c_ = step((s), (f), &l_);			\
		EXPECT_EQ(c_, (wc));					\
		if ((wc) >= 0)						\
			EXPECT_EQ(l_, (wl));				\
	} while (0)


static void setup(struct dt_entry *t, fq_u32 n, fq_u32 ncls, fq_u8 mode,
		  fq_u32 credit, fq_u32 mtu)
{
	fq_u32 i;

	memset(&F, 0, sizeof(F));
	sbt_left_errors = 0;
	memset(CLS, 0, sizeof(CLS));
	for (i = 0; i < ncls; i++)
		CLS[i].mtu = mtu;
	dt_init(&S, CLS, ncls, t, n, mode, credit);
}

/* ---- Algorithm 2 ---------------------------------------------------------- */

UNIT_TEST(dtable_weight_deficit_and_idle)
{
	/* weights 300 and 200 bytes; real, varying lengths */
	static struct dt_entry t[] = { { .cls = 0, .weight = 3 }, { .cls = 1, .weight = 2 } };

	setup(t, 2, 2, DT_MODE_DTABLE, 100, 150);
	fake_push(&F, 0, 100);
	fake_push(&F, 0, 100);
	fake_push(&F, 0, 150);
	fake_push(&F, 0, 50);
	fake_push(&F, 1, 150);
	fake_push(&F, 1, 150);
	fake_push(&F, 1, 150);

	/* entry 0: 300 bytes, 100 + 100 go, 150 does not fit in 100 */
	EXPECT_STEP(&S, &F, 0, 100);
	EXPECT_EQ(dt_class_deficit(&S, 0), 200);
	EXPECT_STEP(&S, &F, 0, 100);
	/* entry 1: 200 bytes, 150 goes, the 50 left becomes its deficit */
	EXPECT_STEP(&S, &F, 1, 150);
	EXPECT_EQ(CLS[0].deficit, 100);
	/* entry 0 again: 100 + 300; it empties and its deficit is cleared */
	EXPECT_STEP(&S, &F, 0, 150);
	EXPECT_EQ(CLS[1].deficit, 50);
	EXPECT_STEP(&S, &F, 0, 50);
	EXPECT_EQ(CLS[0].deficit, 0);
	EXPECT_EQ(S.cur, -1);
	/* entry 1: 50 + 200: one packet, 100 left as deficit; entry 0 is idle
	 * and skipped; entry 1: 100 + 200 */
	EXPECT_STEP(&S, &F, 1, 150);
	EXPECT_STEP(&S, &F, 1, 150);
	EXPECT_EQ(dt_class_skipped(&S, 0), 1);
	EXPECT_EQ(CLS[1].deficit, 0);
	EXPECT_STEP(&S, &F, -1, 0);
	EXPECT_EQ(CLS[0].packets, 4);
	EXPECT_EQ(CLS[0].bytes, 400);
	EXPECT_EQ(CLS[1].bytes, 450);
}

UNIT_TEST(dtable_deficit_builds_over_walks)
{
	/* weights of 100 bytes for packets of 250: the deficit grows walk
	 * after walk until the packet fits */
	static struct dt_entry t[] = { { .cls = 0, .weight = 1 }, { .cls = 1, .weight = 1 } };

	setup(t, 2, 2, DT_MODE_DTABLE, 100, 250);
	fake_push(&F, 0, 250);
	fake_push(&F, 1, 100);
	EXPECT_STEP(&S, &F, 1, 100);	/* class 0 saved 100 first */
	EXPECT_EQ(CLS[0].deficit, 100);
	EXPECT_STEP(&S, &F, 0, 250);	/* 200, then 300 on the next walk */
	EXPECT_EQ(dt_class_visited(&S, 0), 3);
	EXPECT_EQ(dt_class_skipped(&S, 1), 1);
	EXPECT_EQ(S.walks, 3);	/* passes started at entry 0 */
}

UNIT_TEST(dtable_held_class_keeps_deficit)
{
	static struct dt_entry t[] = { { .cls = 0, .weight = 2 }, { .cls = 1, .weight = 2 } };

	setup(t, 2, 2, DT_MODE_DTABLE, 100, 150);
	fake_push(&F, 0, 150);
	fake_push(&F, 0, 150);
	fake_push(&F, 1, 100);
	EXPECT_STEP(&S, &F, 0, 150);	/* 50 left */
	F.held[0] = true;
	EXPECT_STEP(&S, &F, 1, 100);
	EXPECT_EQ(CLS[0].deficit, 50);	/* held, not idle: keeps it */
	EXPECT_STEP(&S, &F, -1, 0);
	EXPECT_EQ(S.empty_scans, 1);
	F.held[0] = false;
	EXPECT_STEP(&S, &F, 0, 150);
	EXPECT_EQ(CLS[0].deficit, 0);	/* emptied */
}

/*
 * A class whose child lets one packet out per visit and then holds the
 * rest (fq pacing a socket, a tbf) gives up the link each time with most
 * of its entry's weight unused.  Kept, that weight grew by an entry per
 * visit (900 bytes here), and once the child let go the class sent it
 * all in one run while the other class waited: after these 5000 visits,
 * about 45000 packets in a row.  It keeps at most a packet size.
 */
UNIT_TEST(dtable_held_class_banks_no_weight)
{
	static struct dt_entry t[] = { { .cls = 0, .weight = 10 }, { .cls = 1, .weight = 10 } };
	fq_u64 worst = 0;
	int visit, i, run = 0, c, len;

	setup(t, 2, 2, DT_MODE_DTABLE, 100, 150);
	F.endless[0] = F.endless[1] = true;
	fake_push(&F, 0, 100);
	fake_push(&F, 1, 100);
	for (visit = 0; visit < 5000; visit++) {
		F.held[0] = false;
		/* class 1 may hold the link for its 10 packets first */
		for (i = 0; i < 12 && step(&S, &F, &len) != 0; i++)
			;
		EXPECT_TRUE(i < 12);
		F.held[0] = true;
		EXPECT_STEP(&S, &F, 1, 100);
		if (CLS[0].deficit > worst)
			worst = CLS[0].deficit;
	}
	EXPECT_TRUE(worst <= 150);
	F.held[0] = false;
	while ((c = step(&S, &F, &len)) == 1)
		;
	for (run = 0; c == 0 && run < 100000; run++)
		c = step(&S, &F, &len);
	/* a visit's 1000 bytes and at most 150 kept: 11 packets */
	EXPECT_TRUE(run <= 11);
}

UNIT_TEST(dtable_oversized_packet_goes)
{
	static struct dt_entry t[] = { { .cls = 0, .weight = 1 }, { .cls = 1, .weight = 1 } };

	setup(t, 2, 2, DT_MODE_DTABLE, 100, 100);
	fake_push(&F, 0, 9000);
	fake_push(&F, 0, 100);
	fake_push(&F, 1, 100);
	EXPECT_STEP(&S, &F, 0, 9000);	/* charged what it had */
	EXPECT_STEP(&S, &F, 1, 100);
	EXPECT_STEP(&S, &F, 0, 100);
}

/* the walk jumps over idle classes; their passes are still counted */
UNIT_TEST(dtable_idle_passes_counted)
{
	static struct dt_entry t[] = {
		{ .cls = 0, .weight = 1 }, { .cls = 1, .weight = 1 },
		{ .cls = 0, .weight = 1 }, { .cls = 1, .weight = 1 },
	};
	int i;

	setup(t, 4, 2, DT_MODE_DTABLE, 100, 100);
	for (i = 0; i < 10; i++)
		fake_push(&F, 0, 100);
	for (i = 0; i < 10; i++)
		EXPECT_STEP(&S, &F, 0, 100);
	EXPECT_STEP(&S, &F, -1, 0);
	/* entries 0, 2, 0, 2 ...: the walk went by entries 1 and 3 nine times */
	EXPECT_EQ(dt_class_visited(&S, 0), 10);
	EXPECT_EQ(dt_class_skipped(&S, 0), 0);
	EXPECT_EQ(dt_class_visited(&S, 1), 9);
	EXPECT_EQ(dt_class_skipped(&S, 1), 9);
	EXPECT_EQ(S.walks, 5);
	/* waking up folds them in once */
	fake_push(&F, 1, 100);
	EXPECT_EQ(dt_class_skipped(&S, 1), 9);
	EXPECT_STEP(&S, &F, 1, 100);
	EXPECT_EQ(dt_class_visited(&S, 1), 10);
}

/* saturated classes of equal packets get bytes in proportion to weights */
UNIT_TEST(dtable_saturated_shares)
{
	static struct dt_entry t[] = {
		{ .cls = 0, .weight = 7 }, { .cls = 1, .weight = 12 }, { .cls = 0, .weight = 7 }, { .cls = 2, .weight = 12 },
	};
	int i, l;
	fq_u64 b[3];

	setup(t, 4, 3, DT_MODE_DTABLE, 100, 100);
	for (i = 0; i < 3; i++) {
		F.endless[i] = true;
		fake_push(&F, i, 100);
	}
	for (i = 0; i < 38 * 100; i++)
		step(&S, &F, &l);
	for (i = 0; i < 3; i++)
		b[i] = CLS[i].bytes;
	EXPECT_EQ(b[0], 140000);
	EXPECT_EQ(b[1], 120000);
	EXPECT_EQ(b[2], 120000);
}

/* ---- SBT and RR ------------------------------------------------------------ */

UNIT_TEST(sbt_keeps_link_then_resets)
{
	static struct dt_entry t[] = { { .cls = 0, .weight = 3 }, { .cls = 1, .weight = 1 } };

	setup(t, 2, 2, DT_MODE_SBT, 1, 1500);
	F.endless[0] = F.endless[1] = true;
	fake_push(&F, 0, 1000);
	fake_push(&F, 1, 60);	/* packets, not bytes, are counted */
	EXPECT_STEP(&S, &F, 0, 1000);
	EXPECT_STEP(&S, &F, 0, 1000);
	EXPECT_STEP(&S, &F, 0, 1000);
	EXPECT_STEP(&S, &F, 1, 60);
	/* restored; the scan starts again at the class served last */
	EXPECT_STEP(&S, &F, 1, 60);
	EXPECT_EQ(S.resets, 1);
	EXPECT_STEP(&S, &F, 0, 1000);
	EXPECT_STEP(&S, &F, 0, 1000);
	EXPECT_STEP(&S, &F, 0, 1000);
	/* two rounds: 3 : 1 in packets whatever their sizes */
	EXPECT_EQ(CLS[0].packets, 6);
	EXPECT_EQ(CLS[1].packets, 2);
	EXPECT_STEP(&S, &F, 0, 1000);
	EXPECT_EQ(S.resets, 2);
	EXPECT_EQ(S.lone_sends, 0);
	EXPECT_EQ(sbt_left_errors, 0);
}

UNIT_TEST(sbt_lone_active_class_exception)
{
	static struct dt_entry t[] = { { .cls = 0, .weight = 1 }, { .cls = 1, .weight = 5 } };

	setup(t, 2, 2, DT_MODE_SBT, 1, 1500);
	fake_push(&F, 0, 100);
	fake_push(&F, 0, 100);
	fake_push(&F, 0, 100);
	EXPECT_STEP(&S, &F, 0, 100);	/* on its weight */
	EXPECT_STEP(&S, &F, 0, 100);	/* no weight, but alone */
	EXPECT_STEP(&S, &F, 0, 100);
	EXPECT_EQ(S.lone_sends, 2);
	EXPECT_EQ(S.resets, 0);
	EXPECT_EQ(CLS[1].left, 5);	/* the idle class kept its weight */
	/* both active, class 0 out of weight: class 1 sends its five */
	fake_push(&F, 0, 100);
	fake_push(&F, 0, 100);
	F.endless[1] = true;
	fake_push(&F, 1, 200);
	EXPECT_STEP(&S, &F, 1, 200);
	EXPECT_STEP(&S, &F, 1, 200);
	EXPECT_STEP(&S, &F, 1, 200);
	EXPECT_STEP(&S, &F, 1, 200);
	EXPECT_STEP(&S, &F, 1, 200);
	EXPECT_EQ(S.resets, 0);
	/* now every active class is out: restored */
	EXPECT_STEP(&S, &F, 1, 200);	/* the scan starts at the last served */
	EXPECT_EQ(S.resets, 1);
	EXPECT_EQ(S.lone_sends, 2);
	EXPECT_EQ(sbt_left_errors, 0);
}

UNIT_TEST(sbt_restores_when_all_zero_alone)
{
	static struct dt_entry t[] = { { .cls = 0, .weight = 1 }, { .cls = 1, .weight = 1 } };

	setup(t, 2, 2, DT_MODE_SBT, 1, 1500);
	fake_push(&F, 1, 10);
	fake_push(&F, 0, 10);
	fake_push(&F, 0, 10);
	fake_push(&F, 0, 10);
	EXPECT_STEP(&S, &F, 0, 10);
	EXPECT_STEP(&S, &F, 1, 10);
	/* every weight is zero: restored rather than a free ride */
	EXPECT_STEP(&S, &F, 0, 10);
	EXPECT_EQ(S.resets, 1);
	EXPECT_STEP(&S, &F, 0, 10);	/* alone, zero weight, class 1 has 1 */
	EXPECT_EQ(S.lone_sends, 1);
	EXPECT_STEP(&S, &F, -1, 0);
	EXPECT_EQ(sbt_left_errors, 0);
}

/* idle classes in between: the scan jumps them, the ratios hold */
UNIT_TEST(sbt_with_idle_classes)
{
	static struct dt_entry t[] = {
		{ .cls = 0, .weight = 1 }, { .cls = 1, .weight = 2 },
		{ .cls = 2, .weight = 3 }, { .cls = 3, .weight = 4 },
		{ .cls = 4, .weight = 5 }, { .cls = 5, .weight = 6 },
	};
	int i, l;

	setup(t, 6, 6, DT_MODE_SBT, 1, 1500);
	for (i = 1; i <= 4; i += (i == 1 ? 2 : 1)) {
		F.endless[i] = true;
		fake_push(&F, i, 100);
	}
	for (i = 0; i < 110; i++)
		EXPECT_TRUE(step(&S, &F, &l) >= 0);
	EXPECT_EQ(CLS[1].packets, 20);
	EXPECT_EQ(CLS[3].packets, 40);
	EXPECT_EQ(CLS[4].packets, 50);
	EXPECT_EQ(S.lone_sends, 0);
	EXPECT_EQ(S.resets, 9);	/* the tenth round is still on its weights */
	EXPECT_EQ(sbt_left_errors, 0);
}

UNIT_TEST(rr_one_packet_each)
{
	static struct dt_entry t[] = { { .cls = 0, .weight = 1 }, { .cls = 1, .weight = 1 }, { .cls = 2, .weight = 1 } };

	setup(t, 3, 3, DT_MODE_RR, 1, 1500);
	fake_push(&F, 0, 1000);
	fake_push(&F, 0, 1000);
	fake_push(&F, 2, 64);
	fake_push(&F, 2, 64);
	fake_push(&F, 2, 64);
	EXPECT_STEP(&S, &F, 0, 1000);
	EXPECT_STEP(&S, &F, 2, 64);
	EXPECT_STEP(&S, &F, 0, 1000);
	EXPECT_STEP(&S, &F, 2, 64);
	EXPECT_STEP(&S, &F, 2, 64);
	EXPECT_STEP(&S, &F, -1, 0);
	EXPECT_EQ(dt_class_skipped(&S, 1), 3);	/* the walk passed it 3 times */
}

UNIT_TEST(table_check_rejects)
{
	static struct dt_entry ok[] = { { .cls = 0, .weight = 2 }, { .cls = 1, .weight = 1 } };
	static struct dt_entry missing[] = { { .cls = 0, .weight = 2 }, { .cls = 3, .weight = 1 } };
	static struct dt_entry zero[] = { { .cls = 0, .weight = 2 }, { .cls = 1, .weight = 0 } };
	static struct dt_entry dup[] = { { .cls = 0, .weight = 2 }, { .cls = 1, .weight = 1 }, { .cls = 0, .weight = 2 } };
	static struct dt_entry unused[] = { { .cls = 0, .weight = 2 }, { .cls = 0, .weight = 2 } };
	fq_u32 mtu[2] = { 100, 64 }, bad;

	EXPECT_EQ(DT_TABLE_OK, dt_table_check(ok, 2, DT_MODE_DTABLE, 64, mtu, 2, &bad));
	EXPECT_EQ(dt_table_check(ok, 2, DT_MODE_DTABLE, 32, mtu, 2, &bad), DT_TABLE_BELOW_MTU);
	EXPECT_EQ(bad, 0);	/* 2 x 32 < 100 */
	EXPECT_EQ(dt_table_check(missing, 2, DT_MODE_DTABLE, 64, mtu, 2, &bad), DT_TABLE_NO_CLASS);
	EXPECT_EQ(bad, 1);
	EXPECT_EQ(dt_table_check(zero, 2, DT_MODE_SBT, 64, mtu, 2, &bad), DT_TABLE_ZERO_WEIGHT);
	EXPECT_EQ(DT_TABLE_OK, dt_table_check(zero, 2, DT_MODE_RR, 64, mtu, 2, &bad));
	EXPECT_EQ(dt_table_check(dup, 3, DT_MODE_SBT, 64, mtu, 2, &bad), DT_TABLE_SBT_DUP);
	EXPECT_EQ(DT_TABLE_OK, dt_table_check(dup, 3, DT_MODE_DTABLE, 64, mtu, 2, &bad));
	EXPECT_EQ(dt_table_check(unused, 2, DT_MODE_DTABLE, 64, mtu, 2, &bad), DT_TABLE_UNSERVED);
	EXPECT_EQ(dt_table_check(ok, DT_MAX_ENTRIES + 1, DT_MODE_DTABLE, 64, mtu, 2, &bad), DT_TABLE_TOO_LONG);
}

/* the served class keeps what it holds, up to a packet size */
UNIT_TEST(table_change_keeps_a_packet_of_served_credit)
{
	static struct dt_entry t1[] = { { .cls = 0, .weight = 3 }, { .cls = 1, .weight = 3 } };
	static struct dt_entry t2[] = { { .cls = 1, .weight = 2 }, { .cls = 0, .weight = 2 } };

	setup(t1, 2, 2, DT_MODE_DTABLE, 100, 150);
	fake_push(&F, 0, 100);
	fake_push(&F, 0, 100);
	fake_push(&F, 1, 100);
	EXPECT_STEP(&S, &F, 0, 100);	/* 200 left of its 300 */
	dt_set_table(&S, t2, 2, DT_MODE_DTABLE, 100);
	EXPECT_EQ(CLS[0].deficit, 150);
	EXPECT_STEP(&S, &F, 1, 100);	/* the new table starts at entry 0 */
	EXPECT_STEP(&S, &F, 0, 100);
	EXPECT_EQ(dt_class_deficit(&S, 0), 0);
}

/*
 * Entries of 100 bytes, mtu 150: class 0's head of 150 does not fit, so
 * it keeps its 100 as deficit while class 1 sends.
 */
static struct dt_entry kept_table[] = { { .cls = 0, .weight = 1 }, { .cls = 1, .weight = 1 } };

/* the class the step sent from (1 wanted), its length in *len */
static int class_0_keeps_100(int *len)
{
	setup(kept_table, 2, 2, DT_MODE_DTABLE, 100, 150);
	fake_push(&F, 0, 150);
	fake_push(&F, 1, 100);
	fake_push(&F, 1, 100);
	return step(&S, &F, len);
}

/* a deficit means something in dtable mode only: a new mode clears them */
UNIT_TEST(mode_change_clears_deficits)
{
	int len = 0;

	EXPECT_EQ(class_0_keeps_100(&len), 1);
	EXPECT_EQ(len, 100);
	EXPECT_EQ(CLS[0].deficit, 100);
	dt_set_table(&S, kept_table, 2, DT_MODE_RR, 100);
	EXPECT_EQ(CLS[0].deficit, 0);
	dt_set_table(&S, kept_table, 2, DT_MODE_DTABLE, 100);
	EXPECT_EQ(CLS[0].deficit, 0);	/* not the old spell's 100 back */
}

/* a lowered mtu holds every deficit to it, not the served class's alone */
UNIT_TEST(mtu_change_holds_every_deficit_to_it)
{
	int len = 0;

	EXPECT_EQ(class_0_keeps_100(&len), 1);
	EXPECT_EQ(len, 100);
	EXPECT_EQ(CLS[0].deficit, 100);
	CLS[0].mtu = 60;
	dt_set_table(&S, kept_table, 2, DT_MODE_DTABLE, 100);
	EXPECT_EQ(CLS[0].deficit, 60);
}

UNIT_TEST(same_schedule_compares_what_the_walk_uses)
{
	static struct dt_entry t[] = { { .cls = 0, .weight = 3 }, { .cls = 1, .weight = 2 } };
	static struct dt_entry copy[] = { { .cls = 0, .weight = 3 }, { .cls = 1, .weight = 2 } };
	static struct dt_entry heavier[] = { { .cls = 0, .weight = 3 }, { .cls = 1, .weight = 3 } };
	static struct dt_entry swapped[] = { { .cls = 1, .weight = 3 }, { .cls = 0, .weight = 2 } };

	setup(t, 2, 2, DT_MODE_DTABLE, 100, 100);
	EXPECT_TRUE(dt_same_schedule(&S, t, 2, DT_MODE_DTABLE, 100));
	EXPECT_TRUE(dt_same_schedule(&S, copy, 2, DT_MODE_DTABLE, 100));
	EXPECT_TRUE(!dt_same_schedule(&S, heavier, 2, DT_MODE_DTABLE, 100));
	EXPECT_TRUE(!dt_same_schedule(&S, swapped, 2, DT_MODE_DTABLE, 100));
	EXPECT_TRUE(!dt_same_schedule(&S, copy, 1, DT_MODE_DTABLE, 100));
	EXPECT_TRUE(!dt_same_schedule(&S, copy, 2, DT_MODE_RR, 100));
	EXPECT_TRUE(!dt_same_schedule(&S, copy, 2, DT_MODE_DTABLE, 64));
	setup(t, 2, 2, DT_MODE_DTABLE, 0, 1);	/* credit 0 means 1 */
	EXPECT_TRUE(dt_same_schedule(&S, copy, 2, DT_MODE_DTABLE, 1));
}

/* ---- children that drop while asked (qlen_notify inside a pick) ------------ */

/*
 * The class being served empties by a drop inside its own peek: netem hands
 * its last packet to a tbf that refuses it and tells dtable from inside
 * head().  The pick must go on to the next class; it once lost track of
 * the class it was asking about and wrote to class -1.
 */
UNIT_TEST(drop_in_peek_of_the_served_class)
{
	static struct dt_entry t[] = { { .cls = 0, .weight = 3 }, { .cls = 1, .weight = 3 } };

	setup(t, 2, 2, DT_MODE_DTABLE, 100, 150);
	fake_push(&F, 0, 100);
	fake_push(&F, 0, 100);
	fake_push(&F, 1, 100);
	EXPECT_STEP(&S, &F, 0, 100);
	ASSERT_EQ(S.cur, 0);			/* 200 bytes left to class 0 */
	F.drop_on_peek[0] = 1;
	EXPECT_STEP(&S, &F, 1, 100);
	EXPECT_EQ(F.dropped, 1);
	EXPECT_TRUE(!CLS[0].active);
	EXPECT_EQ(CLS[0].deficit, 0);		/* it went idle: lost */
	EXPECT_STEP(&S, &F, -1, 0);
	EXPECT_EQ(S.asking, -1);
}

/*
 * A child that says it is empty while it still holds packets (notify on
 * every drop) must not leave its class idle: the packets would wait for
 * the next enqueue into the class.  Every mode; weights that let one
 * packet out per turn, so the class needs the walk to come back.
 */
UNIT_TEST(drop_in_peek_leaves_a_holding_class_active)
{
	static struct dt_entry t[] = { { .cls = 0, .weight = 2 }, { .cls = 1, .weight = 2 } };
	static const fq_u8 modes[] = { DT_MODE_DTABLE, DT_MODE_SBT, DT_MODE_RR };
	unsigned int m;
	int c, l, sent;

	for (m = 0; m < 3; m++) {
		t[0].weight = t[1].weight = modes[m] == DT_MODE_SBT ? 1 : 2;
		setup(t, 2, 2, modes[m], 100, 150);
		fake_push(&F, 0, 150);
		fake_push(&F, 0, 150);
		fake_push(&F, 0, 150);
		fake_push(&F, 1, 150);
		F.drop_on_peek[0] = 1;
		F.notify_early[0] = true;
		for (sent = 0; sent < 10 && (c = step(&S, &F, &l)) >= 0; sent++)
			EXPECT_TRUE(CLS[c].active == (F.head[c] != F.tail[c]));
		if (sent != 3 || F.head[0] != F.tail[0] || F.head[1] != F.tail[1])
			UNIT_FAIL("mode %u: %d sent, %d of class 0 and %d of class 1 stranded",
				  modes[m], sent, F.tail[0] - F.head[0], F.tail[1] - F.head[1]);
		EXPECT_EQ(F.dropped, 1);
	}
}

/* dt_class_idle() twice, or of a class that is not there, changes nothing */
UNIT_TEST(class_idle_is_idempotent)
{
	static struct dt_entry t[] = { { .cls = 0, .weight = 3 }, { .cls = 1, .weight = 3 } };

	setup(t, 2, 2, DT_MODE_DTABLE, 100, 100);
	fake_push(&F, 0, 100);
	fake_push(&F, 0, 100);
	fake_push(&F, 1, 100);
	EXPECT_STEP(&S, &F, 0, 100);
	F.head[0] = F.tail[0];			/* the child purged (graft) */
	dt_class_idle(&S, 0);
	dt_class_idle(&S, 0);
	dt_class_idle(&S, 2);
	dt_class_idle(&S, (fq_u32)-1);
	EXPECT_EQ(S.cur, -1);
	EXPECT_EQ(S.acc, 0);
	EXPECT_STEP(&S, &F, 1, 100);
	EXPECT_STEP(&S, &F, -1, 0);
	EXPECT_EQ(dt_class_skipped(&S, 0), 0);
}

/*
 * The adapter's dequeue, bracketed as sch_dtable does it: the child may
 * drop more (drop_on_dequeue) and notify while handing the packet over.
 */
static int drop_on_dequeue[DT_MAX_CLASSES];
/* make a class our dequeue emptied idle at once, as before the lazy drain */
static bool eager_drain;

/*
 * sch_dtable's split dequeue: in dtable mode the class being served
 * through dt_cur_ready() first (its bracket left open), the walk alone
 * when there is none; dt_pick() for everything else.
 */
static bool cur_fast;
static int cur_fast_taken, cur_fast_released, cur_fast_declined;

/* does any child hold a packet (the qdisc's queue length, as a test)? */
static bool fake_queued(const struct fake *f)
{
	fq_u32 c;

	for (c = 0; c < DT_MAX_CLASSES; c++)
		if (f->head[c] != f->tail[c])
			return true;
	return false;
}

/*
 * The child of class @c hands over its head (its length), then drops
 * drop_on_dequeue[c] more, telling the parent from inside the call.
 */
static int fake_dequeue_head(struct dt_sched *s, struct fake *f, fq_u32 c)
{
	int len = fake_len(f, c);

	f->head[c]++;

	while (drop_on_dequeue[c] > 0 && f->head[c] != f->tail[c]) {
		drop_on_dequeue[c]--;
		f->head[c]++;
		f->dropped++;
		dt_class_idle(s, c);		/* notified from inside */
	}
	return len;
}

/*
 * sch_dtable's own dequeues in rr and sbt take the head inside the ask
 * (dtable_take_head()): the child dequeues as it is asked, dropping what
 * it drops then.  A pick may take one packet, of the class it returns.
 */
static int taken_cls = -1, taken_len;
static int takes, take_errors, picks_untaken;

static int fake_take(void *ctx, fq_u32 c)
{
	struct fake *f = ctx;
	int len = fake_head(ctx, c);

	if (len < 0)
		return len;
	take_errors += taken_cls >= 0;	/* a second packet in one pick */
	taken_cls = (int)c;
	taken_len = len;
	takes++;
	fake_dequeue_head(&S, f, c);
	return len;
}

static int pick_taking(struct dt_sched *s, struct fake *f)
{
	taken_cls = -1;
	if (s->mode == DT_MODE_SBT)
		return dt_pick_sbt_take(s, fake_take, fake_head, f);
	return dt_pick_mode(s, DT_MODE_RR, fake_take, f);
}

static int step_bracketed(struct dt_sched *s, struct fake *f, int *len)
{
	int c = -1, ready = -1;

	if (cur_fast && s->mode != DT_MODE_DTABLE) {
		c = pick_taking(s, f);
		if (c < 0) {
			take_errors += taken_cls >= 0;
			return -1;
		}
		if (taken_cls >= 0) {
			take_errors += taken_cls != c;
			*len = taken_len;
			dt_sent(s, c, *len, f->head[c] != f->tail[c]);
			return c;
		}
		picks_untaken++;
		dt_enter(s, c);
		ready = 0;	/* to the dequeue below */
	}

	if (cur_fast && s->mode == DT_MODE_DTABLE && s->cur >= 0) {
		c = s->cur;
		ready = dt_cur_ready(s, fake_head, f);
		cur_fast_taken += ready >= 0;
		cur_fast_released += ready == DT_CUR_RELEASED;
		cur_fast_declined += ready == -1;
		/* dtable_dequeue_any() looks at the queue before its pick */
		if (ready == -1 && !fake_queued(f))
			return -1;
	}
	if (ready < 0) {
		if (cur_fast && s->mode == DT_MODE_DTABLE && s->cur < 0)
			c = dt_walk_dtable(s, fake_head, f);
		else
			c = dt_pick(s, fake_head, f);
		if (c < 0)
			return -1;
		dt_enter(s, c);
	}
	*len = fake_dequeue_head(s, f, c);
	if (eager_drain) {
		dt_charge(s, c, *len);
		dt_leave(s, c, f->head[c] != f->tail[c]);
	} else {
		dt_sent(s, c, *len, f->head[c] != f->tail[c]);
	}
	return c;
}

/*
 * The class being served empties itself while asked (its child drops
 * what it held and says so from inside the ask): it goes idle, losing
 * the link and what it held, and the walk follows, as in dt_pick(), in
 * sch_dtable's split dequeue too, where nothing else would ask again
 * (the queue is empty).  Then each of two classes gets a packet: the
 * walk, not the old served class's leftover, decides the order.
 */
static void served_class_empties(bool fast, int *order)
{
	static struct dt_entry t[] = { { .cls = 0, .weight = 4 }, { .cls = 1, .weight = 4 } };
	int l, i;

	setup(t, 2, 2, DT_MODE_DTABLE, 100, 150);
	cur_fast = fast;
	fake_push(&F, 0, 100);
	fake_push(&F, 0, 100);
	fake_push(&F, 0, 100);
	order[0] = step_bracketed(&S, &F, &l);	/* 0, holding 300 */
	F.drop_on_peek[0] = 2;
	order[1] = step_bracketed(&S, &F, &l);	/* drops both: nothing */
	order[2] = S.cur;
	order[3] = CLS[0].active;
	order[4] = (int)dt_class_deficit(&S, 0);
	fake_push(&F, 1, 100);
	fake_push(&F, 0, 100);
	for (i = 5; i < 8; i++)
		order[i] = step_bracketed(&S, &F, &l);
	order[8] = (int)S.empty_scans;
	cur_fast = false;
}

UNIT_TEST(served_class_that_empties_while_asked_goes_idle)
{
	int slow[9], fast[9], i;

	served_class_empties(false, slow);
	served_class_empties(true, fast);
	EXPECT_EQ(slow[0], 0);
	EXPECT_EQ(slow[1], -1);
	EXPECT_EQ(slow[2], -1);		/* no class served */
	EXPECT_EQ(slow[3], 0);		/* idle */
	EXPECT_EQ(slow[4], 0);		/* what it held is gone */
	EXPECT_EQ(slow[5], 1);		/* the walk goes on from class 0 */
	EXPECT_EQ(slow[6], 0);
	EXPECT_EQ(slow[7], -1);
	EXPECT_EQ(F.dropped, 2);
	for (i = 0; i < 9; i++)
		EXPECT_EQ(fast[i], slow[i]);
}

UNIT_TEST(drop_in_dequeue_leaves_a_holding_class_active)
{
	static struct dt_entry t[] = { { .cls = 0, .weight = 4 }, { .cls = 1, .weight = 4 } };
	int l;

	setup(t, 2, 2, DT_MODE_DTABLE, 100, 150);
	memset(drop_on_dequeue, 0, sizeof(drop_on_dequeue));
	fake_push(&F, 0, 150);
	fake_push(&F, 0, 150);
	fake_push(&F, 0, 150);
	fake_push(&F, 1, 150);
	drop_on_dequeue[0] = 1;
	EXPECT_EQ(step_bracketed(&S, &F, &l), 0);
	EXPECT_TRUE(CLS[0].active);
	EXPECT_EQ(S.cur, 0);			/* still served: 250 left */
	EXPECT_EQ(dt_class_deficit(&S, 0), 250);
	EXPECT_EQ(step_bracketed(&S, &F, &l), 0);
	EXPECT_EQ(step_bracketed(&S, &F, &l), 1);
	EXPECT_EQ(step_bracketed(&S, &F, &l), -1);
	EXPECT_EQ(F.dropped, 1);
}

/*
 * Random children in every mode: packets of up to twice the class's
 * size (GSO), drops inside peeks and dequeues with early and late
 * notifications, children that hold packets back.  After every pick and
 * dequeue a class is active exactly when its queue holds a packet; a
 * pick that finds nothing leaves no packet that could go; in the end
 * every packet not dropped has been sent.  Fresh random tables each
 * round; 3000 rounds of 60 operations.
 */
static fq_u32 pick_rnd_state = 12345;

static fq_u32 pick_rnd(fq_u32 n)
{
	pick_rnd_state = pick_rnd_state * 1103515245u + 12345u;
	return (pick_rnd_state >> 8) % n;
}

static int check_invariants(const char *where, int round)
{
	fq_u32 c;

	if (S.cur < -1 || S.cur >= (fq_s32)S.ncls || S.asking != -1) {
		printf("#   round %d %s: cur %d asking %d\n", round, where, S.cur, S.asking);
		return 1;
	}
	/* dt_ask() and dt_sent() take dtable's cur as active, not drained */
	if (S.cur >= 0 && (S.mode != DT_MODE_DTABLE || !CLS[S.cur].active ||
			   CLS[S.cur].drained)) {
		printf("#   round %d %s: mode %u cur %d active %d drained %d\n", round,
		       where, S.mode, S.cur, CLS[S.cur].active, CLS[S.cur].drained);
		return 1;
	}
	/*
	 * A class with packets is active; one without is idle, unless our
	 * dequeue drained it in a mode that leaves it for the walk to find.
	 */
	for (c = 0; c < S.ncls; c++) {
		bool has = F.head[c] != F.tail[c];

		if (CLS[c].drained && (has || !CLS[c].active)) {
			printf("#   round %d %s: class %u drained, active %d with %d packets\n",
			       round, where, c, CLS[c].active, F.tail[c] - F.head[c]);
			return 1;
		}
		if (CLS[c].active != has && (has || !dt_drains_lazily(&S))) {
			printf("#   round %d %s: class %u active %d with %d packets\n",
			       round, where, c, CLS[c].active, F.tail[c] - F.head[c]);
			return 1;
		}
	}
	/* the walk's bits are the active classes' entries */
	for (c = 0; c < S.n; c++) {
		bool bit = S.emask[c / 64] >> (c % 64) & 1;

		if (bit != CLS[S.table[c].cls].active) {
			printf("#   round %d %s: entry %u bit %d, class %u active %d\n",
			       round, where, c, bit, S.table[c].cls,
			       CLS[S.table[c].cls].active);
			return 1;
		}
	}
	return 0;
}

UNIT_TEST(random_children_keep_the_state_consistent)
{
	static struct dt_entry t[24];
	int round, bad = 0, pushed = 0, sent = 0;

	for (round = 0; round < 3000 && !bad; round++) {
		fq_u8 mode = round % 3;
		fq_u32 ncls = 2 + pick_rnd(5), n = ncls + pick_rnd(2 * ncls + 1), credit = 64, mtu = 1000;
		fq_u32 i, c, op;
		int l, k;

		for (i = 0; i < n; i++) {
			t[i].cls = i < ncls ? i : pick_rnd(ncls);
			t[i].weight = mode == DT_MODE_DTABLE ? 16 + pick_rnd(32) :
				      mode == DT_MODE_SBT ? 1 + pick_rnd(4) : 1;
		}
		setup(t, n, ncls, mode, credit, mtu);
		memset(drop_on_dequeue, 0, sizeof(drop_on_dequeue));
		for (op = 0; op < 60 && !bad; op++) {
			c = pick_rnd(ncls);
			switch (pick_rnd(6)) {
			case 0:
			case 1:
				if (fake_room(&F, c)) {
					fake_push(&F, c, 1 + pick_rnd(2 * mtu));
					pushed++;
				}
				break;
			case 2:
				F.drop_on_peek[c] = pick_rnd(3);
				F.notify_early[c] = pick_rnd(2);
				drop_on_dequeue[c] = pick_rnd(2);
				break;
			case 3:
				F.held[c] = !F.held[c];
				break;
			default:
				k = step_bracketed(&S, &F, &l);
				if (k >= 0) {
					sent++;
				} else {
					for (i = 0; i < ncls; i++)
						if (F.head[i] != F.tail[i] && !F.held[i])
							bad = printf("#   round %d: class %u can send, pick found nothing\n",
								     round, i);
				}
				break;
			}
			bad = bad || check_invariants("after an operation", round);
		}
		/* drain: children release what they hold, nobody drops */
		for (c = 0; c < ncls; c++)
			F.held[c] = false;
		for (k = 0; k < 2 * FQ_MAXPKT * (int)ncls && !bad; k++) {
			if (step_bracketed(&S, &F, &l) < 0)
				break;
			sent++;
			bad = check_invariants("draining", round);
		}
		for (c = 0; c < ncls && !bad; c++)
			if (F.head[c] != F.tail[c])
				bad = printf("#   round %d: %d packets of class %u never left\n",
					     round, F.tail[c] - F.head[c], c);
		pushed -= F.dropped;
	}
	EXPECT_EQ(bad, 0);
	EXPECT_EQ(sent, pushed);
	EXPECT_TRUE(sent > 10000);		/* not vacuous */
}

/*
 * sbt against Algorithm 1 written plainly: every class with packets is
 * looked at in table order from the entry served last, held ones count
 * as unable to send; the core walks its bitmap of active entries and
 * keeps the weight left as a running sum.  Its picks must be the
 * reference's.  Random pushes, held children and dequeues, 3000 rounds
 * of 80 operations on fresh tables of up to 8 classes, and every eighth
 * round 800 operations on one of 60 to 256 (a bitmap of several words).
 *
 * The reference also counts the statistics as they are defined: every
 * entry of a class with packets the scan passes is visited (and skipped,
 * unless it sends), and an idle class's entry is visited and skipped
 * each time the walk's position moves over it.  The core passes classes
 * out of weight without asking them and counts a whole lap of them at
 * once when the round is over: its counts must still be these.
 */
struct sbt_ref {
	fq_u32 left[DT_MAX_CLASSES];
	fq_u32 pos;
	bool free_ride;
	fq_u64 visited[DT_MAX_CLASSES];
	fq_u64 skipped[DT_MAX_CLASSES];
};

static bool sbt_ref_has_packets(fq_u32 c)
{
	return F.head[c] != F.tail[c];
}

/* the walk moves from r->pos to @to: the idle classes it passes */
static void sbt_ref_move(struct sbt_ref *r, const struct dt_entry *t, fq_u32 n,
			 fq_u32 to)
{
	fq_u32 p = r->pos;

	while (p != to) {
		p = (p + 1) % n;
		if (!sbt_ref_has_packets(t[p].cls)) {
			r->visited[t[p].cls]++;
			r->skipped[t[p].cls]++;
		}
	}
	r->pos = to;
}

static int sbt_ref_pick(struct sbt_ref *r, const struct dt_entry *t, fq_u32 n,
			fq_u32 ncls)
{
	fq_u32 k, c, active, sum;
	int pass, last = -1;

	r->free_ride = false;
	for (pass = 0; pass < 2; pass++) {
		active = 0;
		for (k = 0; k < n; k++) {
			fq_u32 p = (r->pos + k) % n;

			c = t[p].cls;
			if (!sbt_ref_has_packets(c))
				continue;
			r->visited[c]++;
			if (!F.held[c]) {
				active++;
				last = (int)p;
				if (r->left[c]) {
					sbt_ref_move(r, t, n, p);
					return (int)c;
				}
			}
			r->skipped[c]++;
		}
		if (!active)
			return -1;
		for (c = 0, sum = 0; c < ncls; c++)
			sum += r->left[c];
		if (active == 1 && sum) {
			r->free_ride = true;
			sbt_ref_move(r, t, n, (fq_u32)last);
			return (int)t[last].cls;
		}
		for (k = 0; k < n; k++)
			r->left[t[k].cls] = t[k].weight;
	}
	return -1;
}

UNIT_TEST(sbt_decides_as_algorithm_1)
{
	static struct dt_entry t[DT_MAX_CLASSES];
	struct sbt_ref r;
	int round, op, l, mismatches = 0, picks = 0;
	fq_u64 visits = 0;

	for (round = 0; round < 3000 && !mismatches; round++) {
		bool big = round % 8 == 7;
		fq_u32 ncls = big ? 60 + pick_rnd(DT_MAX_CLASSES - 59) : 2 + pick_rnd(7);
		fq_u32 i, c;

		/* one entry per class, in a random order */
		for (i = 0; i < ncls; i++)
			t[i].cls = i;
		for (i = ncls - 1; i > 0; i--) {
			fq_u32 j = pick_rnd(i + 1), x = t[i].cls;

			t[i].cls = t[j].cls;
			t[j].cls = x;
		}
		memset(&r, 0, sizeof(r));
		for (i = 0; i < ncls; i++) {
			t[i].weight = 1 + pick_rnd(4);
			r.left[t[i].cls] = t[i].weight;
		}
		setup(t, ncls, ncls, DT_MODE_SBT, 1, 1000);
		for (op = 0; op < (big ? 800 : 80) && !mismatches; op++) {
			int want, got;

			c = pick_rnd(ncls);
			switch (pick_rnd(5)) {
			case 0:
			case 1:
				if (fake_room(&F, c))
					fake_push(&F, c, 100);
				break;
			case 2:
				F.held[c] = pick_rnd(4) == 0;
				break;
			default:
				want = sbt_ref_pick(&r, t, ncls, ncls);
				got = step_bracketed(&S, &F, &l);
				picks += got >= 0;
				if (want >= 0 && !r.free_ride && r.left[want])
					r.left[want]--;
				if (want != got)
					mismatches = printf("#   round %d op %d: picked %d, Algorithm 1 %d\n",
							    round, op, got, want);
				break;
			}
			for (i = 0; i < ncls && !mismatches; i++) {
				if (dt_class_visited(&S, i) != r.visited[i] ||
				    dt_class_skipped(&S, i) != r.skipped[i])
					mismatches = printf("#   round %d op %d: class %u visited %llu skipped %llu, expected %llu %llu\n",
							    round, op, i,
							    (unsigned long long)dt_class_visited(&S, i),
							    (unsigned long long)dt_class_skipped(&S, i),
							    (unsigned long long)r.visited[i],
							    (unsigned long long)r.skipped[i]);
			}
		}
		for (i = 0; i < ncls; i++)
			visits += r.visited[i];
	}
	EXPECT_EQ(mismatches, 0);
	EXPECT_EQ(sbt_left_errors, 0);
	EXPECT_TRUE(picks > 50000);	/* not vacuous */
	EXPECT_TRUE(visits > 50000);
}

/*
 * The lazy drain changes no decision: the same random operations (pushes,
 * drops inside peeks and dequeues, held children, dequeues, a new table
 * in any mode, as "tc qdisc change" installs) run once with drained
 * classes made idle at once and once with them left for the walk, and
 * after every operation the pick, every class's visits, skips and
 * deficit, and the walk's position and counters are the same, and the
 * state is consistent (check_invariants()).  2000 rounds of 80
 * operations, starting in each mode.
 */
#define LAZY_ROUNDS	2000
#define LAZY_OPS	80

static fq_u64 lazy_log[2][LAZY_ROUNDS * LAZY_OPS];
static int lazy_bad;

static fq_u64 mix(fq_u64 h, fq_u64 v)
{
	return (h ^ v) * 0x100000001b3ULL;
}

static fq_u64 state_hash(int picked, int len)
{
	fq_u64 h = mix(0xcbf29ce484222325ULL, (fq_u64)(fq_s64)picked);
	fq_u32 c;

	h = mix(h, (fq_u64)len);
	h = mix(h, S.walks);
	h = mix(h, S.empty_scans);
	h = mix(h, S.pos);
	h = mix(h, (fq_u64)(fq_s64)S.cur);
	for (c = 0; c < S.ncls; c++) {
		h = mix(h, dt_class_visited(&S, c));
		h = mix(h, dt_class_skipped(&S, c));
		h = mix(h, dt_class_deficit(&S, c));
		h = mix(h, CLS[c].packets);
	}
	return h;
}

/* a valid random table for @ncls classes in @mode, in @t; its length */
static fq_u32 lazy_table(struct dt_entry *t, fq_u32 ncls, fq_u8 mode, fq_u32 *rnd)
{
	fq_u32 n, i, j, x;

#define LRND(n) ((*rnd = *rnd * 1103515245u + 12345u) >> 8) % (n)
	n = mode == DT_MODE_SBT ? ncls : ncls + LRND(2 * ncls + 1);
	for (i = 0; i < n; i++) {
		t[i].cls = i < ncls ? i : LRND(ncls);
		t[i].weight = mode == DT_MODE_DTABLE ? 16 + LRND(32) :
			      mode == DT_MODE_SBT ? 1 + LRND(4) : 1;
	}
	for (i = n - 1; i > 0; i--) {	/* shuffled: any class first */
		j = LRND(i + 1);
		x = t[i].cls;
		t[i].cls = t[j].cls;
		t[j].cls = x;
	}
#undef LRND
	return n;
}

static int lazy_run(fq_u8 mode, bool eager, bool fast, fq_u64 *log)
{
	static struct dt_entry t[2][24];
	fq_u32 rnd = 777 + mode, sent = 0;
	int round, op, n_log = 0, cur_t = 0;

#define LRND(n) ((rnd = rnd * 1103515245u + 12345u) >> 8) % (n)
	eager_drain = eager;
	cur_fast = fast;
	for (round = 0; round < LAZY_ROUNDS; round++) {
		fq_u32 ncls = 2 + LRND(6), n, c;

		n = lazy_table(t[cur_t], ncls, mode, &rnd);
		setup(t[cur_t], n, ncls, mode, 64, 1000);
		memset(drop_on_dequeue, 0, sizeof(drop_on_dequeue));
		for (op = 0; op < LAZY_OPS; op++) {
			int picked = -2, l = 0;

			c = LRND(ncls);
			switch (LRND(9)) {
			case 8: {
				fq_u8 m = LRND(3);

				cur_t = !cur_t;
				n = lazy_table(t[cur_t], ncls, m, &rnd);
				dt_set_table(&S, t[cur_t], n, m, 64);
				break;
			}
			case 0:
			case 1:
			case 2:
				if (fake_room(&F, c))
					fake_push(&F, c, 1 + LRND(2000));
				break;
			case 3:
				F.drop_on_peek[c] = LRND(8) == 0;
				F.notify_early[c] = LRND(2);
				drop_on_dequeue[c] = LRND(8) == 0;
				break;
			case 4:
				F.held[c] = LRND(4) == 0;
				break;
			default:
				picked = step_bracketed(&S, &F, &l);
				sent += picked >= 0;
				break;
			}
			log[n_log++] = state_hash(picked, l);
			if (!lazy_bad)
				lazy_bad = check_invariants("lazy drain", round);
		}
	}
#undef LRND
	eager_drain = false;
	cur_fast = false;
	return (int)sent;
}

/* the first operation at which the two logs differ, -1 for none */
static int logs_differ(void)
{
	int i;

	for (i = 0; i < LAZY_ROUNDS * LAZY_OPS; i++)
		if (lazy_log[0][i] != lazy_log[1][i])
			return i;
	return -1;
}

#define EXPECT_SAME_LOG(mode)						\
	do {								\
		int i_ = logs_differ();					\
		if (i_ >= 0)						\
			UNIT_FAIL("mode %u: round %d operation %d differs", \
				  (mode), i_ / LAZY_OPS, i_ % LAZY_OPS); \
	} while (0)

UNIT_TEST(lazy_drain_decides_as_the_eager_one)
{
	fq_u8 mode;

	for (mode = DT_MODE_DTABLE; mode <= DT_MODE_RR; mode++) {
		int sent = lazy_run(mode, true, false, lazy_log[0]);

		EXPECT_EQ(lazy_run(mode, false, false, lazy_log[1]), sent);
		EXPECT_TRUE(sent > 20000);	/* not vacuous */
		EXPECT_EQ(lazy_bad, 0);
		EXPECT_SAME_LOG(mode);
	}
}

/*
 * sch_dtable's dequeue takes the class being served through
 * dt_cur_ready(); when cur gives up the link there, the walk follows, and
 * when it declines, dt_pick() decides, asking the head again: the same decisions, counts and state as
 * dt_pick() alone, with children that drop and notify while asked.
 * In rr and sbt its picks take the packet as they ask (fake_take()):
 * the same again, with never more than one packet taken per pick, and
 * sbt's lone class, only peeked, dequeued after.
 */
UNIT_TEST(cur_fast_path_decides_as_the_pick)
{
	fq_u8 mode;

	takes = take_errors = picks_untaken = 0;
	cur_fast_taken = cur_fast_released = cur_fast_declined = 0;
	for (mode = DT_MODE_DTABLE; mode <= DT_MODE_RR; mode++) {
		int sent = lazy_run(mode, false, false, lazy_log[0]);

		EXPECT_EQ(lazy_run(mode, false, true, lazy_log[1]), sent);
		EXPECT_EQ(lazy_bad, 0);
		EXPECT_SAME_LOG(mode);
	}
	/* both ways out of the fast path, many times */
	EXPECT_TRUE(cur_fast_taken > 2000);
	EXPECT_TRUE(cur_fast_released > 2000);
	EXPECT_TRUE(cur_fast_declined > 500);
	EXPECT_EQ(take_errors, 0);
	EXPECT_TRUE(takes > 20000);
	EXPECT_TRUE(picks_untaken > 500);
}

/* ---- configurator ------------------------------------------------------------ */

static struct dtc_config C;

static void cfg(fq_u32 n, fq_u32 gmtu, fq_u32 w, fq_u32 k, fq_u32 credit)
{
	memset(&C, 0, sizeof(C));
	C.n = n;
	C.gmtu_bytes = gmtu;
	C.w = w;
	C.k = k;
	C.credit = credit;
}

static void sl(const char *name, fq_s64 share_ppb, fq_u32 d, fq_u32 mtu)
{
	struct dtc_sl *s = &C.sl[C.nsl++];

	snprintf(s->name, sizeof(s->name), "%s", name);
	s->share = share_ppb;
	s->distance = d;
	s->mtu_bytes = mtu;
}

static int same5(double v, const char *want)
{
	char b[32];

	snprintf(b, sizeof(b), "%.5f", v);
	return !strcmp(b, want);
}

UNIT_TEST(config_paper_table5)
{
	static const char *mins[] = { "0.05556", "0.05556", "0.08333" };
	static const char *maxs[] = { "0.66667", "0.33333", "0.33333" };
	static const int ew[] = { 7, 12, 12 }, dw[] = { -43, 21, 21 };
	static const int ent[] = { 64, 32, 32 };
	fq_u32 i;

	/* the paper's shares are 0.33334, 0.33333, 0.33333 (Table 5, phi) */
	cfg(128, 3, 4, 3, 1);
	sl("SL0", 333340000, 2, 1);
	sl("SL1", 333330000, 4, 2);
	sl("SL2", 333330000, 4, 3);
	ASSERT_EQ(dtc_build(&C), 0);
	EXPECT_EQ(C.pool, 1152);
	EXPECT_EQ(C.max_weight, 12);
	EXPECT_EQ(C.len, 128);
	EXPECT_EQ(C.total_before, 1216);
	EXPECT_EQ(C.total_after, 1215);
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(C.sl[i].entries, ent[i]);
		EXPECT_EQ(C.sl[i].entry_weight, ew[i]);
		EXPECT_EQ(C.sl[i].dweight, dw[i]);
		EXPECT_EQ(C.sl[i].dweight_left, 0);
		EXPECT_EQ(C.sl[i].total_weight, 405);
		EXPECT_TRUE(same5(dtc_min_share(&C, &C.sl[i]), mins[i]));
		EXPECT_TRUE(same5(dtc_max_share(&C, &C.sl[i]), maxs[i]));
		EXPECT_TRUE(same5(dtc_frac(C.sl[i].total_weight, C.total_after), "0.33333"));
		EXPECT_TRUE(dtc_max_gap(C.table, C.len, i) <= C.sl[i].distance);
	}
	EXPECT_TRUE(same5(dtc_frac(C.sl[0].weight_before, C.total_before), "0.36842"));
	/* the layout of Table 6: 0 1 0 2 ... */
	for (i = 0; i < 128; i++)
		EXPECT_EQ(C.table[i].cls, (i % 2) ? (i % 4 == 1 ? 1 : 2) : 0);
	/* -43 from SL0's last entry (126) backwards: 126 .. 42 lose one */
	EXPECT_EQ(C.table[40].weight, 7);
	EXPECT_EQ(C.table[42].weight, 6);
	EXPECT_EQ(C.table[126].weight, 6);
	/* +21 from SL1's last (125) backwards: 125 .. 45 */
	EXPECT_EQ(C.table[41].weight, 12);
	EXPECT_EQ(C.table[45].weight, 13);
	EXPECT_EQ(C.table[127].weight, 13);
	EXPECT_EQ(C.table[43].weight, 12);
}

UNIT_TEST(config_paper_table6_spread)
{
	struct dt_entry t[] = {
		{ .cls = 0, .weight = 4 }, { .cls = 1, .weight = 2 },
		{ .cls = 0, .weight = 4 }, { .cls = 2, .weight = 3 },
		{ .cls = 0, .weight = 4 }, { .cls = 1, .weight = 2 },
		{ .cls = 0, .weight = 4 }, { .cls = 2, .weight = 3 },
	};
	static const fq_u32 want[] = { 4, 2, 3, 4, 3, 3, 3, 4 };
	fq_u32 i;

	EXPECT_EQ(dtc_spread(t, 8, 0, -3, 1, 100), 0);
	EXPECT_EQ(dtc_spread(t, 8, 1, 1, 1, 100), 0);
	EXPECT_EQ(dtc_spread(t, 8, 2, 2, 1, 100), 0);
	for (i = 0; i < 8; i++)
		EXPECT_EQ(t[i].weight, want[i]);
	/* never below the MTU: only entry 0 is above 3, 3 are reported */
	EXPECT_EQ(dtc_spread(t, 8, 0, -4, 3, 100), -3);
	EXPECT_EQ(t[0].weight, 3);
	EXPECT_EQ(t[2].weight, 3);
	/* never above the bound: class 1's entries at 2 and 3 take 3 of 5 */
	EXPECT_EQ(dtc_spread(t, 8, 1, 5, 1, 4), 2);
	EXPECT_EQ(t[1].weight, 4);
	EXPECT_EQ(t[5].weight, 4);
}

/*
 * The bandwidth correction raised an entry already at the largest weight
 * a qdisc takes (2^24): dtable-config printed a table the qdisc refuses
 * (entry 16777217), exit 0.  Now the correction stops at the bound, and
 * what it could not place is reported as left over.
 */
UNIT_TEST(config_correction_stays_within_the_largest_weight)
{
	fq_u32 i, mtus[3], bad;

	cfg(4, 65536, 1024, 128, 1);
	sl("a", 500000000, 4, 1);
	sl("b", 500000, 4, 1);
	sl("c", 499500000, 2, 1);
	EXPECT_EQ(dtc_build(&C), 0);
	for (i = 0; i < C.len; i++)
		if (C.table[i].weight > DT_MAX_WEIGHT)
			UNIT_FAIL("entry %u weighs %u", i, C.table[i].weight);
	for (i = 0; i < C.nsl; i++)
		mtus[i] = C.sl[i].mtu_bytes;
	EXPECT_EQ(dt_table_check(C.table, C.len, DT_MODE_DTABLE, 1, mtus, C.nsl, &bad),
		  DT_TABLE_OK);
}

UNIT_TEST(config_paper_table10)
{
	static const int tw[] = { 416, 1248, 2080, 208, 208 };
	static const int dw[] = { -32, 0, 32, 0, 0 };
	fq_u32 i, vo = 0;

	/* flits of 64 bits... the paper's units are 64-byte credits */
	cfg(128, 1024, 8, 2, 64);
	sl("VO", 100000000, 2, 128);
	sl("VI", 300000000, 4, 256);
	sl("CL", 500000000, 8, 512);
	sl("BE", 50000000, 16, 1024);
	sl("BK", 50000000, 16, 1024);
	ASSERT_EQ(dtc_build(&C), 0);
	EXPECT_EQ(C.pool, 4096);
	EXPECT_EQ(C.total_before, 4160);
	EXPECT_EQ(C.total_after, 4160);
	for (i = 0; i < 5; i++) {
		EXPECT_EQ(C.sl[i].total_weight, tw[i]);
		EXPECT_EQ(C.sl[i].dweight, dw[i]);
		EXPECT_TRUE(dtc_max_gap(C.table, C.len, i) <= C.sl[i].distance);
	}
	EXPECT_TRUE(same5(dtc_min_share(&C, &C.sl[0]), "0.03125"));
	EXPECT_TRUE(same5(dtc_max_share(&C, &C.sl[0]), "2.00000"));
	/* VO: the first 32 entries keep 7, the last 32 have 6; CL: 130 */
	for (i = 0; i < C.len; i++) {
		if (C.table[i].cls == 0) {
			EXPECT_EQ(C.table[i].weight, vo < 32 ? 7 : 6);
			vo++;
		} else if (C.table[i].cls == 2) {
			EXPECT_EQ(C.table[i].weight, 130);
		}
	}
	EXPECT_EQ(vo, 64);
}

UNIT_TEST(config_rejects)
{
	cfg(128, 1024, 8, 2, 64);
	sl("VO", 20000000, 2, 128);	/* 0.02 < min 0.03125 */
	sl("VI", 980000000, 2, 128);
	EXPECT_EQ(dtc_build(&C), -1);
	EXPECT_TRUE(strstr(C.err, "outside") != NULL);

	cfg(128, 1024, 8, 2, 64);
	sl("BE", 300000000, 16, 1024);	/* 0.3 > max 0.25 */
	EXPECT_EQ(dtc_build(&C), -1);

	cfg(16, 1024, 8, 2, 64);
	sl("A", 500000000, 2, 1024);
	sl("B", 400000000, 2, 1024);
	sl("C", 100000000, 4, 1024);	/* 8 + 8 + 4 > 16 */
	EXPECT_EQ(dtc_build(&C), -1);
	EXPECT_TRUE(strstr(C.err, "entries") != NULL);

	cfg(16, 1024, 2, 3, 64);	/* k > w */
	sl("A", 500000000, 2, 1024);
	EXPECT_EQ(dtc_build(&C), -1);

	cfg(16, 1024, 8, 2, 64);
	sl("A", 600000000, 2, 1024);
	sl("B", 500000000, 2, 1024);	/* 1.1 in all */
	EXPECT_EQ(dtc_build(&C), -1);

	cfg(16, 512, 8, 2, 64);
	sl("A", 500000000, 2, 1024);	/* MTU above GMTU */
	EXPECT_EQ(dtc_build(&C), -1);
}

/*
 * Shares adding up to less than 1 keep their proportions: 5 / 15 / 25 %
 * of a link shared in full are 1/9, 3/9 and 5/9.  Taken as they were,
 * the correction made them 14.3 / 32.1 / 53.6 %.
 */
UNIT_TEST(config_shares_below_one_keep_their_proportions)
{
	static const double want[] = { 1.0 / 9, 3.0 / 9, 5.0 / 9 };
	fq_u32 i;

	cfg(128, 1024, 16, 2, 64);
	sl("A", 50000000, 2, 128);
	sl("B", 150000000, 4, 256);
	sl("C", 250000000, 8, 512);
	ASSERT_EQ(dtc_build(&C), 0);
	for (i = 0; i < 3; i++) {
		double got = dtc_frac(C.sl[i].total_weight, C.total_after);

		if (got < want[i] - 0.0005 || got > want[i] + 0.0005)
			UNIT_FAIL("SL %s: final share %.5f, want %.5f", C.sl[i].name, got, want[i]);
	}
	/* C's 5/9 is above what its 16 entries allow with w 8 */
	cfg(128, 1024, 8, 2, 64);
	sl("A", 50000000, 2, 128);
	sl("B", 150000000, 4, 256);
	sl("C", 250000000, 8, 512);
	EXPECT_EQ(dtc_build(&C), -1);
	EXPECT_TRUE(strstr(C.err, "share 0.55556 (normalised") != NULL);
}

/* normalising is said, and done only below 1 */
UNIT_TEST(config_normalising_is_reported)
{
	cfg(128, 1024, 16, 2, 64);
	sl("A", 50000000, 2, 128);
	sl("B", 150000000, 4, 256);
	sl("C", 250000000, 8, 512);
	ASSERT_EQ(dtc_build(&C), 0);
	EXPECT_TRUE(C.normalised);
	EXPECT_EQ(C.shares_sum, 450000000);
	EXPECT_EQ(C.sl[0].given, 50000000);
	EXPECT_EQ(C.sl[0].share, 111111111);
	EXPECT_EQ(C.sl[1].share, 333333333);
	EXPECT_EQ(C.sl[2].share, 555555556);

	/* the paper's Table 10 adds up to 1: untouched */
	cfg(128, 1024, 8, 2, 64);
	sl("VO", 100000000, 2, 128);
	sl("VI", 300000000, 4, 256);
	sl("CL", 500000000, 8, 512);
	sl("BE", 50000000, 16, 1024);
	sl("BK", 50000000, 16, 1024);
	ASSERT_EQ(dtc_build(&C), 0);
	EXPECT_TRUE(!C.normalised);
	EXPECT_EQ(C.sl[2].share, 500000000);

	/* a lone SL of any share gets the whole link */
	cfg(16, 1024, 8, 2, 64);
	sl("A", 100000000, 2, 1024);
	ASSERT_EQ(dtc_build(&C), 0);
	EXPECT_EQ(C.sl[0].share, 1000000000);
	EXPECT_EQ(C.total_after, C.sl[0].total_weight);
}

/* our own case: distances that do not divide N, unused slots dropped */
UNIT_TEST(config_uneven_distances)
{
	fq_u32 i;

	cfg(100, 1500, 8, 2, 64);
	sl("A", 300000000, 3, 1500);
	sl("B", 300000000, 7, 1500);
	sl("C", 100000000, 20, 1500);
	ASSERT_EQ(dtc_build(&C), 0);
	for (i = 0; i < 3; i++) {
		EXPECT_TRUE(dtc_max_gap(C.table, C.len, i) <= C.sl[i].distance);
		EXPECT_TRUE(C.sl[i].entries >= (100 + C.sl[i].distance - 1) / C.sl[i].distance);
	}
	EXPECT_TRUE(C.len <= 100);
	for (i = 0; i < C.len; i++)
		EXPECT_TRUE(C.table[i].weight >= C.sl[C.table[i].cls].mtu);
}

static fq_u32 rnd_state = 12345;

static fq_u32 rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

/*
 * Property: whatever the distances, a table that is built never has a gap
 * above an SL's distance, never an entry below its MTU, and a saturated
 * run of the scheduler over it gives byte shares of total_weight / total.
 */
UNIT_TEST(config_property_gaps_and_shares)
{
	int iter, built = 0;

	for (iter = 0; iter < 400; iter++) {
		fq_u32 n = 8 + rnd() % 500, nsl = 1 + rnd() % 6, i, j, room;
		fq_u64 want_n = 0;
		int bad = 0;

		cfg(n, 1024, 16, 1, 64);
		room = n;
		for (i = 0; i < nsl && room; i++) {
			fq_u32 d = 1 + rnd() % (i == 0 ? 8 : n);
			fq_u32 e = (n + d - 1) / d;

			if (e > room)
				break;
			room -= e;
			want_n += e;
			sl("x", 0, d, 64 * (1 + rnd() % 16));
		}
		if (!C.nsl)
			continue;
		/* a share each SL can take: a bit above its entry count's share */
		for (i = 0; i < C.nsl; i++) {
			fq_u32 e = (n + C.sl[i].distance - 1) / C.sl[i].distance;

			C.sl[i].share = (fq_s64)e * DTC_ONE / n;
		}
		if (dtc_build(&C))
			continue;
		built++;
		for (i = 0; i < C.nsl; i++) {
			if (dtc_max_gap(C.table, C.len, i) > C.sl[i].distance)
				bad = 1;
		}
		for (j = 0; j < C.len; j++)
			if (C.table[j].weight < C.sl[C.table[j].cls].mtu)
				bad = 2;
		if (bad) {
			UNIT_FAIL("iteration %d: n %u, %u SLs, failure %d", iter, n, C.nsl, bad);
			return;
		}
		/* run the scheduler: one packet of 64 bytes per credit unit */
		{
			int l;
			fq_u32 k;
			fq_u64 sent = 0;

			setup(C.table, C.len, C.nsl, DT_MODE_DTABLE, 64, 64);
			for (k = 0; k < C.nsl; k++) {
				F.endless[k] = true;
				fake_push(&F, k, 64);
			}
			for (k = 0; k < C.total_after * 3; k++)
				step(&S, &F, &l);
			for (k = 0; k < C.nsl; k++) {
				sent += CLS[k].bytes;
				if (CLS[k].bytes != 3 * 64 * C.sl[k].total_weight)
					bad = 3;
			}
			if (bad || sent != 3 * 64 * C.total_after) {
				UNIT_FAIL("iteration %d: shares off", iter);
				return;
			}
		}
	}
	/* not vacuous */
	EXPECT_TRUE(built > 200);
}

/* ---- held classes: one ask per pick ------------------------------------------ */

static long asks[DT_MAX_CLASSES];

static int counting_head(void *ctx, fq_u32 c)
{
	asks[c]++;
	return fake_head(ctx, c);
}

/*
 * rr's pick as sch_dtable.c makes it, with a rest of its own head
 * (DT_DEFINE_RR_HELD()); @own_rest false: dt_pick(), whose rest is passed
 * the head.
 */
DT_DEFINE_RR_HELD(rr_held_counting, counting_head)

static int pick_counting(struct dt_sched *s, struct fake *f, bool own_rest)
{
	if (own_rest)
		return dt_pick_rr_with(s, counting_head, f, rr_held_counting);
	return dt_pick(s, counting_head, f);
}

/*
 * A pick whose active classes are all held (a shaping child) asks each
 * held class once: a head held now is held for the rest of the dequeue.
 * A table of 4096 entries, class 0's but for class 1's one in the middle
 * and class 2's two: the walk met class 1's lone entry again and again,
 * up to n asks and n walks counted per pick; class 2's second entry was
 * asked too (2000 asks), though its first had just found it held.  Both
 * entries still count as visited and skipped.  1000 picks, each an
 * enqueue's run of the qdisc, then the hold lifts and class 1 goes.
 */
static void held_classes_asked_once(int *unit_failed, fq_u8 mode, bool own_rest)
{
	static struct dt_entry t[DT_MAX_ENTRIES];
	fq_u32 i, n = DT_MAX_ENTRIES;
	fq_u64 walks0;
	int k, l;

	for (i = 0; i < n; i++) {
		t[i].cls = i == n / 2 ? 1 : i == 100 || i == 3000 ? 2 : 0;
		t[i].weight = 1;
	}
	setup(t, n, 3, mode, 1500, 1500);
	memset(asks, 0, sizeof(asks));
	fake_push(&F, 1, 500);
	fake_push(&F, 2, 600);
	F.held[1] = F.held[2] = 1;
	walks0 = S.walks;
	for (k = 0; k < 1000; k++)
		if (pick_counting(&S, &F, own_rest) >= 0) {
			UNIT_FAIL("pick %d served a held class", k);
			return;
		}
	EXPECT_EQ(asks[0], 0);
	EXPECT_EQ(asks[1], 1000);
	EXPECT_EQ(asks[2], 1000);
	EXPECT_EQ(dt_class_visited(&S, 1), 1000);
	EXPECT_EQ(dt_class_skipped(&S, 2), 2000);
	/* a lap at most per pick */
	EXPECT_TRUE(S.walks - walks0 <= 1000);
	F.held[1] = 0;
	EXPECT_STEP(&S, &F, 1, 500);
	F.held[2] = 0;
	EXPECT_STEP(&S, &F, 2, 600);
	EXPECT_EQ(step(&S, &F, &l), -1);
}

UNIT_TEST(dtable_held_classes_asked_once_per_pick)
{
	held_classes_asked_once(unit_failed, DT_MODE_DTABLE, false);
}

UNIT_TEST(rr_held_classes_asked_once_per_pick)
{
	held_classes_asked_once(unit_failed, DT_MODE_RR, false);
}

UNIT_TEST(rr_held_classes_asked_once_per_pick_own_rest)
{
	held_classes_asked_once(unit_failed, DT_MODE_RR, true);
}

/*
 * A held class on every entry but one: class 1 (a shaping child holding
 * its head) on 4095 entries, class 0 on the last, always sending.  Each
 * of class 0's packets takes a walk past class 1's entries, which asked
 * class 1's child at every one of them, 4095 asks a packet; now once.
 * Class 0 still gets every pick, and class 1's entries still count as
 * visited and skipped.
 */
static void held_class_of_many_entries(int *unit_failed, fq_u8 mode, bool own_rest)
{
	static struct dt_entry t[DT_MAX_ENTRIES];
	fq_u32 i, n = DT_MAX_ENTRIES;
	int k, picks = 2000, len;

	for (i = 0; i < n; i++) {
		t[i].cls = i == n - 1 ? 0 : 1;
		t[i].weight = 1;
	}
	/* a credit of one packet: class 0 takes a walk per packet */
	setup(t, n, 2, mode, 500, 500);
	memset(asks, 0, sizeof(asks));
	F.endless[0] = true;
	fake_push(&F, 0, 500);
	fake_push(&F, 1, 500);
	F.held[1] = 1;
	for (k = 0; k < picks; k++) {
		if (pick_counting(&S, &F, own_rest) != 0) {
			UNIT_FAIL("pick %d did not serve class 0", k);
			return;
		}
		/* what step() does with the packet picked */
		len = fake_len(&F, 0);
		fake_push(&F, 0, len);
		F.head[0]++;
		dt_charge(&S, 0, len);
	}
	/* once per pick; a pick may end in class 1 and find it again */
	EXPECT_TRUE(asks[1] <= 2 * picks);
	EXPECT_TRUE(asks[1] >= picks / 2);
	EXPECT_TRUE(dt_class_skipped(&S, 1) >= (fq_u64)(picks - 1) * (n - 1));
}

UNIT_TEST(dtable_held_class_of_many_entries)
{
	held_class_of_many_entries(unit_failed, DT_MODE_DTABLE, false);
}

UNIT_TEST(rr_held_class_of_many_entries)
{
	held_class_of_many_entries(unit_failed, DT_MODE_RR, false);
}

UNIT_TEST(rr_held_class_of_many_entries_own_rest)
{
	held_class_of_many_entries(unit_failed, DT_MODE_RR, true);
}

/*
 * A class's entries are kept by 64-entry word (dt_set_table()): its walk
 * bits and its idle passes must be those of its entries one by one, on
 * tables of several words with classes of many entries in each.  The
 * reference counts each idle class's passes from the definition (entry i
 * passed once per walk, plus [i <= pos now] - [i <= pos when it went
 * idle]) over the whole table; check_invariants() compares every walk
 * bit with its class.  Random pushes, holds, picks and new tables, in
 * dtable and rr.
 */
static void idle_passes_plain(const struct dt_sched *s, fq_u64 *passes)
{
	fq_u32 i;

	for (i = 0; i < s->ncls; i++)
		passes[i] = 0;
	for (i = 0; i < s->n; i++) {
		const struct dt_class *c = &s->cls[s->table[i].cls];

		passes[s->table[i].cls] += s->walks - c->idle_walks +
					   (i <= s->pos) - (i <= c->idle_pos);
	}
}

static fq_u32 wide_table(struct dt_entry *t, fq_u32 ncls, fq_u8 mode)
{
	fq_u32 n = ncls + pick_rnd(DT_MAX_ENTRIES - ncls + 1), i;

	for (i = 0; i < n; i++) {
		/* every class once, then runs and scatter of a few */
		t[i].cls = i < ncls ? i : pick_rnd(4) ? t[i - 1].cls : pick_rnd(ncls);
		t[i].weight = mode == DT_MODE_DTABLE ? 1 + pick_rnd(4) : 1;
	}
	return n;
}

UNIT_TEST(wide_tables_keep_walk_bits_and_idle_passes)
{
	static struct dt_entry t[2][DT_MAX_ENTRIES];
	static fq_u64 plain[DT_MAX_CLASSES];
	int round, op, bad = 0, sent = 0, checked = 0, l;

	for (round = 0; round < 240 && !bad; round++) {
		fq_u8 mode = round % 2 ? DT_MODE_RR : DT_MODE_DTABLE;
		fq_u32 ncls = 2 + pick_rnd(DT_MAX_CLASSES - 1), n, c, i;
		int cur_t = 0;

		n = wide_table(t[cur_t], ncls, mode);
		setup(t[cur_t], n, ncls, mode, 500, 1000);
		for (op = 0; op < 300 && !bad; op++) {
			c = pick_rnd(ncls);
			switch (pick_rnd(8)) {
			case 0:
			case 1:
			case 2:
				if (fake_room(&F, c))
					fake_push(&F, c, 1 + pick_rnd(1000));
				break;
			case 3:
				F.held[c] = pick_rnd(4) == 0;
				break;
			case 4:
				if (pick_rnd(8))
					break;
				/* a new table, or the same one again */
				if (pick_rnd(2)) {
					cur_t = !cur_t;
					n = wide_table(t[cur_t], ncls, mode);
				}
				dt_set_table(&S, t[cur_t], n, mode, 500);
				break;
			default:
				sent += step_bracketed(&S, &F, &l) >= 0;
				break;
			}
			bad = check_invariants("wide table", round);
			idle_passes_plain(&S, plain);
			for (i = 0; i < ncls && !bad; i++) {
				if (CLS[i].active)
					continue;
				checked++;
				if (dt_idle_passes(&S, &CLS[i]) != plain[i])
					bad = printf("#   round %d op %d: class %u (%u entries) idle passes %llu, expected %llu\n",
						     round, op, i, CLS[i].nent,
						     (unsigned long long)dt_idle_passes(&S, &CLS[i]),
						     (unsigned long long)plain[i]);
			}
		}
	}
	EXPECT_EQ(bad, 0);
	EXPECT_TRUE(sent > 10000);	/* not vacuous */
	EXPECT_TRUE(checked > 100000);
}

/*
 * A class on every other entry of 4096 (2048 entries, in all 64 words)
 * empties and fills again with each of its packets, beside a class
 * always backlogged on the rest.  Its wake-up (idle passes counted,
 * walk bits set) and its leaving the walk took a step per entry, 6144
 * a packet; by word, at most 3 x 64.
 */
static void wide_class_wakes_by_word(int *unit_failed, fq_u8 mode)
{
	static struct dt_entry t[DT_MAX_ENTRIES];
	fq_u32 i, n = DT_MAX_ENTRIES, sent1 = 0;
	int k, l, cycles = 3000;
	fq_u64 passes[DT_MAX_CLASSES];

	for (i = 0; i < n; i++) {
		t[i].cls = i % 2;
		t[i].weight = 1;
	}
	/* a credit of one packet per entry */
	setup(t, n, 2, mode, 500, 500);
	F.endless[0] = true;
	fake_push(&F, 0, 500);
	list_steps = 0;
	for (k = 0; k < cycles; k++) {
		fake_push(&F, 1, 500);
		/* class 1 sends at its next entry, the walk finds it empty at the one after */
		for (i = 0; i < 8 && (CLS[1].active || F.head[1] != F.tail[1]); i++)
			sent1 += step_bracketed(&S, &F, &l) == 1;
		if (CLS[1].active) {
			UNIT_FAIL("cycle %d: class 1 still in the walk", k);
			return;
		}
	}
	EXPECT_EQ(sent1, (fq_u32)cycles);
	/*
	 * 3 x 64 a cycle, with a cycle's slack; and no fewer, or the
	 * steps are not being counted (DT_LIST_STEP() gone from a loop)
	 */
	EXPECT_TRUE(list_steps <= 3UL * 64 * (cycles + 1));
	EXPECT_TRUE(list_steps >= 3UL * 64 * cycles);
	if (list_steps > 3UL * 64 * (cycles + 1) || list_steps < 3UL * 64 * cycles)
		printf("#   %lu list steps in %d cycles\n", list_steps, cycles);
	/* and the passes are still every entry's */
	idle_passes_plain(&S, passes);
	EXPECT_EQ(dt_idle_passes(&S, &CLS[1]), passes[1]);
	EXPECT_TRUE(dt_class_visited(&S, 1) >= (fq_u64)cycles);
}

UNIT_TEST(dtable_wide_class_wakes_by_word)
{
	wide_class_wakes_by_word(unit_failed, DT_MODE_DTABLE);
}

UNIT_TEST(rr_wide_class_wakes_by_word)
{
	wide_class_wakes_by_word(unit_failed, DT_MODE_RR);
}

int main(void)
{
	return unit_run();
}
