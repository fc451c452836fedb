// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the lane schedulers of aoq (kernel/core/aoq_core.h), fed
 * as sch_aoq feeds them, by senders that need not behave: messages of any
 * length whose tail may never come, lanes whose child holds its frames
 * back or drops them without a word, weights, modes, message limits and
 * stall times changed at any moment, classes deleted and added with
 * frames queued, and a clock that moves as the input says.
 *
 * What must hold after every operation:
 * - the lanes' flags, masks and counts agree; the anchor is an active
 *   lane; in mode aoq the ActiveList holds every other active lane once,
 *   sorted by opportunity count;
 * - a lane with frames queued is active (the core drops only lanes it
 *   finds empty), so none is forgotten;
 * - a cycle sends at most one unit, from the lane it returns, and in
 *   every mode but pbrr (which idles on its lane by design) it sends one
 *   whenever some lane has a frame its child lets go;
 * - every unit sent is counted once, in the lane's used count;
 * - in mode aoq every active lane's count is at least VirtualCount,
 *   which goes back only when a busy period ends (aoq_cycle_aoq()).
 *
 * A message whose tail its child refused is cut, as sch_aoq cuts a GSO
 * message whose last segment was refused.
 */
#include "fuzz.h"

#include "core/aoq_core.h"

#define FZ_RING		256	/* units a lane's child holds at most */
#define FZ_MAX_OPS	2000

/* A lane's child: a ring of units, each the tail of its message or not. */
struct fz_lane {
	bool tail[FZ_RING];
	fq_u32 head, count;
	bool held;		/* none may leave now (a shaper) */
	bool deleted;		/* its class is gone: nothing comes (sch_aoq) */
	fq_u64 sent;		/* units it handed over since the lane began */
};

static struct aoq_sched S;
static struct fz_lane L[AOQ_MAX_LANES];
static fq_u64 now;
/* VirtualCount and the busy periods ended at the last check */
static fq_u64 last_vcount, last_busy_periods;

/* what the cycle under way sent: units, and the lane of the last */
static unsigned int cycle_units;
static int cycle_lane;

static enum aoq_tx lane_send(void *ctx, unsigned int lane)
{
	struct fz_lane *l = &L[lane];
	bool tail;

	FUZZ_CHECK(lane < S.nlanes);	/* the core visits only its lanes */
	if (!l->count || l->held)
		return AOQ_TX_NONE;
	tail = l->tail[l->head];
	l->head = (l->head + 1) % FZ_RING;
	l->count--;
	l->sent++;
	cycle_units++;
	cycle_lane = (int)lane;
	return tail ? AOQ_TX_TAIL : AOQ_TX_UNIT;
}

static bool lane_backlogged(void *ctx, unsigned int lane)
{
	return L[lane].count != 0;
}

static fq_u64 lane_now(void *ctx)
{
	return now;
}

static const struct aoq_ops ops = {
	.send = lane_send,
	.backlogged = lane_backlogged,
	.now = lane_now,
};

static fq_u32 units_queued(void)
{
	fq_u32 i, n = 0;

	for (i = 0; i < S.nlanes; i++)
		n += L[i].count;
	return n;
}

static bool anything_may_leave(void)
{
	fq_u32 i;

	for (i = 0; i < S.nlanes; i++)
		if (L[i].count && !L[i].held)
			return true;
	return false;
}

/* sch_aoq's purge of a lane's child (class deleted, child reset) */
static void lane_purge(unsigned int lane)
{
	L[lane].head = 0;
	L[lane].count = 0;
}

/* What aoq_core.h's comments promise between our calls. */
static void check_state(void)
{
	unsigned int i, in_list = 0;
	fq_u64 mask = 0;

	FUZZ_CHECK(S.nlanes >= 1 && S.nlanes <= AOQ_MAX_LANES);
	for (i = 0; i < AOQ_MAX_LANES; i++) {
		const struct aoq_lane *l = &S.lane[i];

		if (l->active)
			mask |= aoq_bit(i);
		/* a lane in a message is active */
		FUZZ_CHECK(!l->busy || l->active);
		/* frames queued: active (the core keeps it until it is empty) */
		if (i < S.nlanes && L[i].count)
			FUZZ_CHECK(l->active);
		/* every unit it sent counted once */
		FUZZ_CHECK(l->used == L[i].sent);
	}
	/* VirtualCount never goes back within a busy period */
	if (S.busy_periods == last_busy_periods)
		FUZZ_CHECK(!aoq_oc_before(S.vcount, last_vcount));
	last_vcount = S.vcount;
	last_busy_periods = S.busy_periods;
	FUZZ_CHECK(mask == S.active_mask);
	FUZZ_CHECK((unsigned int)__builtin_popcountll(mask) == S.nactive);
	FUZZ_CHECK(!(mask >> (S.nlanes - 1) >> 1));	/* no lane beyond nlanes */
	FUZZ_CHECK(!(S.lead & mask));			/* leads are idle lanes' */
	if (S.anchor >= 0)
		FUZZ_CHECK(S.anchor < (int)S.nlanes && S.lane[S.anchor].active);
	if (!aoq_mode_is_sorted(&S)) {
		FUZZ_CHECK(S.nlist == 0);
		return;
	}
	/* no active lane counts less than VirtualCount (Eq. 2 takes the least) */
	for (i = 0; i < S.nlanes; i++)
		if (S.lane[i].active)
			FUZZ_CHECK(!aoq_oc_before(S.lane[i].oc, S.vcount));
	/* the ActiveList: the active lanes but the anchor, once, sorted */
	for (i = 0; i < S.nlist; i++) {
		unsigned int lane = aoq_list_at(&S, i);

		FUZZ_CHECK(lane < S.nlanes && S.lane[lane].active);
		FUZZ_CHECK((int)lane != S.anchor);
		if (i)
			FUZZ_CHECK(!aoq_oc_before(S.lane[lane].oc,
						  S.lane[aoq_list_at(&S, i - 1)].oc));
	}
	for (i = 0; i < S.nlist; i++) {
		unsigned int j;

		for (j = i + 1; j < S.nlist; j++)
			FUZZ_CHECK(aoq_list_at(&S, i) != aoq_list_at(&S, j));
	}
	in_list = S.nlist + (S.anchor >= 0);
	FUZZ_CHECK(in_list == S.nactive);
}

/* One cycle as sch_aoq's dequeue runs it, and its sweep when empty. */
static void cycle(struct fuzz_in *in)
{
	bool lazy = fuzz_u8(in) & 1;
	bool may = anything_may_leave();
	int lane;

	cycle_units = 0;
	cycle_lane = -1;
	lane = aoq_dequeue(&S, lazy ? AOQ_NOW_LAZY : now, &ops, NULL);
	/* one unit at most, from the lane returned */
	FUZZ_CHECK(cycle_units == (lane >= 0));
	FUZZ_CHECK(lane == cycle_lane);
	/* work conserving, but pbrr waits on its lane by design */
	if (lane < 0 && S.mode != AOQ_MODE_PBRR)
		FUZZ_CHECK(!may);
	if (!units_queued() && S.nactive)
		aoq_sweep(&S, S.now, &ops, NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_in in = { data, size };
	unsigned int op;

	aoq_init(&S, (enum aoq_mode)fuzz_below(&in, AOQ_MODE_COUNT),
		 1 + fuzz_below(&in, AOQ_MAX_LANES));
	memset(L, 0, sizeof(L));
	now = fuzz_u32(&in);
	last_vcount = S.vcount;
	last_busy_periods = S.busy_periods;

	for (op = 0; op < FZ_MAX_OPS && fuzz_more(&in); op++) {
		unsigned int lane = fuzz_below(&in, S.nlanes), k, n, lost;
		struct fz_lane *l = &L[lane];
		unsigned int what = fuzz_below(&in, 14);

		/* a deleted class gets nothing until it is added again */
		if (l->deleted && what <= 5)
			continue;
		switch (what) {
		case 0:
		case 1:
		case 2:	/* a message of n units arrives, its tail maybe lost */
			n = 1 + fuzz_below(&in, 8);
			lost = fuzz_u8(&in);
			for (k = 0; k < n && l->count < FZ_RING; k++) {
				l->tail[(l->head + l->count) % FZ_RING] =
					k == n - 1 && lost < 0xf0;
				l->count++;
			}
			aoq_lane_arrive(&S, lane);
			/* refused at enqueue, as sch_aoq tells the core */
			if (lost >= 0xf8)
				aoq_lane_cut(&S, lane);
			break;
		case 3:	/* its child holds back, or lets go */
			l->held = fuzz_u8(&in) & 1;
			break;
		case 4:	/* its child drops n units and tells nobody */
			n = fuzz_below(&in, 4);
			while (n-- && l->count) {
				l->head = (l->head + 1) % FZ_RING;
				l->count--;
			}
			break;
		case 5:	/* tc class change: a weight, clamped by the core */
			aoq_set_weight(&S, lane, fuzz_below(&in, AOQ_WEIGHT_MAX + 64));
			break;
		case 6:	/* tc qdisc change: the mode */
			aoq_set_mode(&S, (enum aoq_mode)fuzz_below(&in, AOQ_MODE_COUNT));
			break;
		case 7:	/* tc qdisc change: the message limit */
			S.msg_limit = fuzz_below(&in, 4) ? fuzz_below(&in, 16) :
							   fuzz_u32(&in);
			break;
		case 8:	/* tc qdisc change: the stall time, 0 for none */
			S.stall = fuzz_below(&in, 3) ? fuzz_u16(&in) : 0;
			break;
		case 9:	/* time goes on, by a little or a lot */
			now += fuzz_u8(&in) & 1 ? fuzz_u16(&in) : fuzz_u32(&in);
			break;
		case 10:	/* the class is deleted (and maybe added again) */
			lane_purge(lane);
			l->deleted = fuzz_u8(&in) & 1;
			if (l->deleted) {
				aoq_lane_remove(&S, lane);
			} else {
				aoq_lane_reset(&S, lane, 1 + fuzz_below(&in, AOQ_WEIGHT_MAX));
				l->sent = 0;
			}
			break;
		default:
			cycle(&in);
			break;
		}
		check_state();
	}
	return 0;
}
