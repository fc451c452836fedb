// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the table schedulers (kernel/core/dtable_core.h), given
 * what a user's tc commands can give them and children that behave as
 * any qdisc may.  The input is a configuration (mode, credit, class
 * sizes, the table), checked as sch_dtable checks it, then a sequence of
 * operations: packets queued, children held back or dropping what they
 * hold (and saying so from inside our calls, as netem over tbf does),
 * dequeues by each of sch_dtable's paths, and new configurations
 * installed with packets queued.
 *
 * What must hold after every operation:
 * - the state the core's comments promise: a class with packets is
 *   active and its table entries marked, a class without is idle (or
 *   drained, in the modes that drain lazily), cur is an active class;
 * - no packet waits while nothing holds it back: a pick that finds no
 *   class happens only when every class with packets is held back
 *   (sch_dtable then returns NULL and relies on the children's timers);
 * - each class's packet count is what it sent.
 */
#include "fuzz.h"

#include "core/dtable_core.h"

#define FZ_RING		64	/* packets a fake child holds at most */
#define FZ_MAX_ENTRIES	1024	/* 16 words of the walk's bitmap; the qdisc takes 4096 */
#define FZ_MAX_OPS	2000

/* A child qdisc: a ring of packet lengths, and how it misbehaves. */
struct fz_child {
	fq_u32 len[FZ_RING];
	fq_u32 head, tail;	/* only grow; the slot is their value % FZ_RING */
	bool held;		/* packets, none may leave now (a shaper) */
	fq_u32 drop_on_peek;	/* head packets it drops when asked for its head */
	bool notify_early;	/* inside our calls, says it is empty after each drop */
	fq_u32 drop_on_dequeue;	/* packets it drops after handing one over */
	fq_u64 sent;		/* packets it handed over */
};

static struct dt_class cls[DT_MAX_CLASSES];
static struct fz_child kid[DT_MAX_CLASSES];
static struct dt_entry tables[2][FZ_MAX_ENTRIES];
static struct dt_sched S;
static fq_u32 ncls;

/* the packet a take callback took: its class (-1 for none), its length */
static int taken_cls;
static fq_u32 taken_len;

static fq_u32 kid_qlen(fq_u32 c)
{
	return kid[c].tail - kid[c].head;
}

/*
 * The child drops its head packet and tells its parent when it is empty
 * (sch_dtable's qlen_notify ignores a child that still holds packets).
 * @early: inside our call into it, it counts itself empty after each
 * drop, as a child does that holds the packet it is about to hand over.
 */
static void kid_drop(fq_u32 c, bool early)
{
	kid[c].head++;
	if (!kid_qlen(c) || (early && S.asking == (fq_s32)c))
		dt_class_idle(&S, c);
}

static int kid_peek(void *ctx, fq_u32 c)
{
	struct fz_child *k = &kid[c];

	while (k->drop_on_peek && kid_qlen(c)) {
		k->drop_on_peek--;
		kid_drop(c, k->notify_early);
	}
	if (!kid_qlen(c))
		return DT_IDLE;
	if (k->held)
		return DT_HELD;
	return (int)k->len[k->head % FZ_RING];
}

/* The child hands over its head (its length), then drops as it may. */
static fq_u32 kid_dequeue(fq_u32 c)
{
	struct fz_child *k = &kid[c];
	fq_u32 len = k->len[k->head % FZ_RING];

	k->head++;
	k->sent++;
	while (k->drop_on_dequeue && kid_qlen(c)) {
		k->drop_on_dequeue--;
		kid_drop(c, true);
	}
	return len;
}

/* sch_dtable's dtable_take_head(): the picks of rr and sbt take as they ask */
static int kid_take(void *ctx, fq_u32 c)
{
	int len = kid_peek(ctx, c);

	if (len < 0)
		return len;
	taken_cls = (int)c;
	taken_len = kid_dequeue(c);
	return (int)taken_len;
}

/*
 * The qdisc's dequeue of class @c's head inside the bracket dt_enter()
 * opened: the packet's length is charged and the class left as its
 * child's queue is.
 */
static void take_entered(fq_u32 c)
{
	fq_u32 len = kid_dequeue(c);

	dt_sent(&S, c, len, kid_qlen(c) != 0);
}

/* Does any class hold a packet that may leave now? */
static bool anything_may_leave(void)
{
	fq_u32 c;

	for (c = 0; c < ncls; c++)
		if (kid_qlen(c) && !kid[c].held)
			return true;
	return false;
}

/* The head of class @c, just picked (-1: none), leaves: was one sent? */
static bool send_picked(int c)
{
	if (c < 0)
		return false;
	dt_enter(&S, (fq_u32)c);
	take_entered((fq_u32)c);
	return true;
}

/* One pick and dequeue by dt_pick() (dtable_dequeue_any()'s way). */
static bool dequeue_by_pick(void)
{
	return send_picked(dt_pick(&S, kid_peek, NULL));
}

/*
 * One dequeue by the path sch_dtable takes in the table's mode, credits
 * off (dtable_qdisc_dequeue()): dtable mode serves cur by
 * dt_cur_ready() and walks by dt_walk_dtable(), rr and sbt take the
 * packet as they pick.  Each falls back to dt_pick() where the qdisc
 * does.  False when nothing was sent.
 */
static bool dequeue_split(void)
{
	int c, len;

	if (S.mode == DT_MODE_RR || S.mode == DT_MODE_SBT) {
		taken_cls = -1;
		c = S.mode == DT_MODE_RR ?
		    dt_pick_mode(&S, DT_MODE_RR, kid_take, NULL) :
		    dt_pick_sbt_take(&S, kid_take, kid_peek, NULL);
		if (c < 0) {
			/* a take is a send: a pick that took must say so */
			FUZZ_CHECK(taken_cls < 0);
			return false;
		}
		if (taken_cls >= 0) {
			/* the class returned is the one whose head was taken */
			FUZZ_CHECK(taken_cls == c);
			dt_sent(&S, (fq_u32)c, taken_len, kid_qlen((fq_u32)c) != 0);
			return true;
		}
		/* sbt's lone class is only peeked: the qdisc takes its head */
		FUZZ_CHECK(S.mode == DT_MODE_SBT);
		return send_picked(c);
	}
	if (S.cur < 0)
		return send_picked(dt_walk_dtable(&S, kid_peek, NULL));
	c = S.cur;
	len = dt_cur_ready(&S, kid_peek, NULL);
	if (len >= 0) {
		take_entered((fq_u32)c);	/* dt_cur_ready() left it entered */
		return true;
	}
	if (len == DT_CUR_RELEASED)
		return send_picked(dt_walk_dtable(&S, kid_peek, NULL));
	return dequeue_by_pick();
}

/*
 * A table and its configuration from the input, checked as sch_dtable's
 * dtable_prepare() checks them; true when accepted.  Weights are drawn
 * mostly small, with the edges of what the check allows.
 */
static bool read_config(struct fuzz_in *in, struct dt_entry *t, fq_u32 *n,
			fq_u8 *mode, fq_u32 *credit, fq_u32 *mtu)
{
	fq_u32 i, bad, recipe;
	int err;

	*mode = fuzz_below(in, 3);
	switch (fuzz_below(in, 4)) {
	case 0:
		*credit = 1 + fuzz_below(in, 64);
		break;
	case 1:
		*credit = fuzz_u32(in) % (DT_MAX_CREDIT + 2);	/* 0 and max + 1 too */
		break;
	default:
		*credit = 64 * (1 + fuzz_below(in, 32));
		break;
	}
	for (i = 0; i < ncls; i++)
		mtu[i] = fuzz_u8(in) & 1 ? 1 + fuzz_below(in, 65536) : 1500;
	/* one entry per class as sbt takes them, a few each, or any number */
	switch (fuzz_below(in, 4)) {
	case 0:
		*n = ncls;
		break;
	case 1:
		*n = ncls * (1 + fuzz_below(in, 4));
		break;
	default:
		*n = 1 + fuzz_below(in, FZ_MAX_ENTRIES);
		break;
	}
	/*
	 * The classes in turn with weights that fit their sizes (valid in
	 * every mode, as long as the table is), in turn with weights from
	 * the input, or both from the input.
	 */
	recipe = fuzz_below(in, 3);
	for (i = 0; i < *n; i++) {
		fq_u32 c = recipe < 2 ? i % ncls : fuzz_below(in, ncls + 1);
		fq_u8 w = recipe ? fuzz_u8(in) : 0;

		t[i].cls = (fq_u16)c;
		t[i].weight = w == 255 ? fuzz_u32(in) :
			      w == 254 ? DT_MAX_WEIGHT :
			      w == 253 ? DT_MAX_WEIGHT + 1 :
			      w >= 128 ? (fq_u32)(w - 127) * 64 : w;
		if (!recipe && c < ncls && *credit)
			t[i].weight = (mtu[c] + *credit - 1) / *credit;
	}
	err = dt_table_check(t, *n, *mode, *credit, mtu, ncls, &bad);
	if (err != DT_TABLE_OK) {
		/* the entry or class it names is one there is */
		FUZZ_CHECK(bad < (err == DT_TABLE_UNSERVED ? ncls : *n) || err == DT_TABLE_EMPTY ||
			   err == DT_TABLE_TOO_LONG || err == DT_TABLE_BAD_CREDIT);
		return false;
	}
	return true;
}

/* What dt_sched's comments promise between our calls. */
static void check_state(void)
{
	fq_u32 c, e;

	FUZZ_CHECK(S.asking == -1);
	FUZZ_CHECK(S.cur >= -1 && S.cur < (fq_s32)ncls);
	/* only dtable mode serves a class, and that class is active */
	if (S.cur >= 0)
		FUZZ_CHECK(S.mode == DT_MODE_DTABLE && cls[S.cur].active &&
			   !cls[S.cur].drained);
	for (c = 0; c < ncls; c++) {
		bool has = kid_qlen(c) != 0;

		/* drained: active, emptied by our dequeue, not refilled */
		if (cls[c].drained)
			FUZZ_CHECK(!has && cls[c].active && dt_drains_lazily(&S));
		/* with packets, active; without, idle unless drained */
		FUZZ_CHECK(cls[c].active == has || cls[c].drained);
		/* every packet it sent counted once */
		FUZZ_CHECK(cls[c].packets == kid[c].sent);
	}
	/* the walk's bits are the active classes' entries */
	for (e = 0; e < S.n; e++)
		FUZZ_CHECK((S.emask[e / 64] >> (e % 64) & 1) ==
			   cls[S.table[e].cls].active);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	fq_u32 mtu[DT_MAX_CLASSES], n, credit, i, op;
	fq_u8 mode;
	int cur_t = 0;

	ncls = 1 + fuzz_below(&in, fuzz_u8(&in) & 1 ? DT_MAX_CLASSES : 8);
	memset(cls, 0, sizeof(cls));
	memset(kid, 0, sizeof(kid));
	if (!read_config(&in, tables[0], &n, &mode, &credit, mtu))
		return 0;
	for (i = 0; i < ncls; i++)
		cls[i].mtu = mtu[i];
	dt_init(&S, cls, ncls, tables[0], n, mode, credit);

	for (op = 0; op < FZ_MAX_OPS && fuzz_more(&in); op++) {
		fq_u32 c = fuzz_below(&in, ncls);
		struct fz_child *k = &kid[c];
		bool sent;

		switch (fuzz_below(&in, 8)) {
		case 0:
		case 1:	/* a packet for class c: any size, GSO's too */
			if (kid_qlen(c) == FZ_RING)
				break;	/* the child drops it: nothing changes */
			k->len[k->tail++ % FZ_RING] = fuzz_u8(&in) & 1 ?
				1 + fuzz_below(&in, 65536) : 1 + fuzz_below(&in, 1500);
			dt_class_active(&S, c);
			break;
		case 2:	/* the child is held back, or let go (its timer) */
			k->held = fuzz_u8(&in) & 1;
			break;
		case 3:	/* the child will drop while asked or dequeued */
			k->drop_on_peek = fuzz_below(&in, 4);
			k->notify_early = fuzz_u8(&in) & 1;
			k->drop_on_dequeue = fuzz_below(&in, 3);
			break;
		case 4:	/* the child drops on its own (a timer, a reset) */
			if (kid_qlen(c))
				kid_drop(c, false);
			break;
		case 5: {	/* tc qdisc change: a new table and its mtus */
			fq_u32 nn, nc, nm[DT_MAX_CLASSES];
			fq_u8 nmode;

			if (!read_config(&in, tables[!cur_t], &nn, &nmode, &nc, nm))
				break;
			cur_t = !cur_t;
			for (i = 0; i < ncls; i++)
				cls[i].mtu = nm[i];
			dt_set_table(&S, tables[cur_t], nn, nmode, nc);
			break;
		}
		default:	/* a dequeue, by the qdisc's split path or dt_pick() */
			sent = fuzz_u8(&in) & 1 ? dequeue_split() : dequeue_by_pick();
			/*
			 * Our children hand over every head they show, so
			 * nothing sent means the pick found no class: then
			 * every class with packets must be held back (the
			 * peeks may have emptied some), or they would wait
			 * until the next enqueue.
			 */
			if (!sent)
				FUZZ_CHECK(!anything_may_leave());
			break;
		}
		check_state();
	}
	return 0;
}
