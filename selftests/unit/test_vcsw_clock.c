// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the clock that picks the forwarding-table entry to evict
 * (kernel/core/vcsw_clock.h): each rule on hand-made circles, then
 * random learning, hits, expiries, deletions and trims compared step by
 * step with a plain array that applies the rules directly.
 *
 * The circle here is built as kernel/vcsw_fdb.c builds its own: a doubly
 * linked list with a head that is no entry, the hand stepping over it, a
 * new entry added just behind the hand, and a deleted entry under the
 * hand moving the hand to its successor.
 */
#include "unit.h"
#include "core/vcsw_clock.h"

#define NENT	512
#define SCAN	32		/* as VCSW_FDB_EVICT_SCAN */

struct ent {
	struct ent	*next, *prev;
	int		id;
	bool		is_static, hit, expired;
};

struct circle {
	struct ent	head;
	struct ent	*hand;
	unsigned int	count;
	unsigned int	looked;		/* entries advance() returned */
	unsigned int	calls;		/* advance() calls */
};

static struct ent ents[NENT];

static void *circle_advance(void *circle)
{
	struct circle *c = circle;
	struct ent *pos = c->hand;

	c->calls++;
	if (pos == &c->head)
		pos = pos->next;
	if (pos == &c->head)
		return NULL;
	c->hand = pos->next;
	c->looked++;
	return pos;
}

static bool circle_is_static(void *circle, void *entry)
{
	return ((struct ent *)entry)->is_static;
}

static bool circle_hit(void *circle, void *entry)
{
	return ((struct ent *)entry)->hit;
}

static void circle_clear_hit(void *circle, void *entry)
{
	((struct ent *)entry)->hit = false;
}

static bool circle_expired(void *circle, void *entry)
{
	return ((struct ent *)entry)->expired;
}

static const struct vcsw_clock_ops circle_ops = {
	.advance	= circle_advance,
	.is_static	= circle_is_static,
	.hit		= circle_hit,
	.clear_hit	= circle_clear_hit,
	.expired	= circle_expired,
};

static void circle_init(struct circle *c)
{
	c->head.next = &c->head;
	c->head.prev = &c->head;
	c->hand = &c->head;
	c->count = 0;
	c->looked = 0;
}

/* Entry @id, added behind the hand (the last the clock looks at). */
static struct ent *circle_add(struct circle *c, int id, bool is_static,
			      bool hit)
{
	struct ent *e = &ents[id];

	e->id = id;
	e->is_static = is_static;
	e->hit = hit;
	e->expired = false;
	e->next = c->hand;
	e->prev = c->hand->prev;
	e->prev->next = e;
	c->hand->prev = e;
	c->count++;
	return e;
}

static void circle_del(struct circle *c, struct ent *e)
{
	if (c->hand == e)
		c->hand = e->next;
	e->prev->next = e->next;
	e->next->prev = e->prev;
	e->next = NULL;
	e->prev = NULL;
	c->count--;
}

/* The victim's id, deleted as the kernel deletes it, or -1. */
static int circle_evict(struct circle *c, unsigned int scan)
{
	struct ent *e;

	c->looked = 0;
	c->calls = 0;
	e = vcsw_clock_victim(&circle_ops, c, scan);
	if (!e)
		return -1;
	circle_del(c, e);
	return e->id;
}

/* The id the next call looks at first, -1 for none. */
static int circle_at_hand(const struct circle *c)
{
	const struct ent *e = c->hand == &c->head ? c->head.next : c->hand;

	return e == &c->head ? -1 : e->id;
}

/* Entries @first .. @first + @n - 1 alike, behind the hand. */
static void add_run(struct circle *c, int first, int n, bool is_static,
		    bool hit)
{
	int i;

	for (i = first; i < first + n; i++)
		circle_add(c, i, is_static, hit);
}

/* @n learned entries 0 .. n-1, all hit or none; the hand at entry 0. */
static void learned(struct circle *c, int n, bool hit)
{
	circle_init(c);
	add_run(c, 0, n, false, hit);
}

/* ---- the rules, one by one ---------------------------------------------- */

UNIT_TEST(clock_second_chance)
{
	struct circle c;

	learned(&c, 4, false);
	ents[0].hit = true;
	ents[2].hit = true;
	/* 0 was hit: spared, its hit taken; 1 was not: the victim */
	EXPECT_EQ(circle_evict(&c, SCAN), 1);
	EXPECT_EQ(c.looked, 2);
	EXPECT_TRUE(!ents[0].hit);
	EXPECT_TRUE(ents[2].hit);
	EXPECT_EQ(circle_evict(&c, SCAN), 3);
	EXPECT_TRUE(!ents[2].hit);
	/* a second chance, not a third: round again, 0 goes */
	EXPECT_EQ(circle_evict(&c, SCAN), 0);
	EXPECT_EQ(c.count, 1);
	/* hit again since the hand passed it: 2 survives this turn too */
	ents[2].hit = true;
	EXPECT_EQ(circle_evict(&c, SCAN), 2);
	EXPECT_EQ(c.looked, 2);		/* spared once, then taken */
}

UNIT_TEST(clock_expired_taken_first)
{
	struct circle c;

	learned(&c, 3, true);
	ents[1].expired = true;
	/* expired beats hit: 1 goes though it was hit, and before 2 */
	EXPECT_EQ(circle_evict(&c, SCAN), 1);
	EXPECT_TRUE(!ents[0].hit);
	EXPECT_TRUE(ents[2].hit);
	/* expired ahead of an idle entry: the hand takes whichever is first */
	learned(&c, 3, true);
	ents[0].expired = true;
	ents[1].hit = false;
	EXPECT_EQ(circle_evict(&c, SCAN), 0);
	EXPECT_EQ(c.looked, 1);
}

UNIT_TEST(clock_static_skipped_but_counted)
{
	struct circle c;

	circle_init(&c);
	add_run(&c, 0, 3, true, false);
	circle_add(&c, 3, false, false);
	/* three statics fill a scan of three: nothing, the hand at 3 */
	EXPECT_EQ(circle_evict(&c, 3), -1);
	EXPECT_EQ(c.looked, 3);
	EXPECT_EQ(circle_at_hand(&c), 3);
	EXPECT_EQ(circle_evict(&c, 3), 3);
	/* an idle static entry is never the victim, nor the fallback */
	circle_init(&c);
	circle_add(&c, 0, true, false);
	circle_add(&c, 1, false, true);
	EXPECT_EQ(circle_evict(&c, 2), 1);
	EXPECT_TRUE(ents[0].next);
}

UNIT_TEST(clock_scan_bound)
{
	struct circle c;
	int i;

	/* 40 entries all hit: 32 lose their hit, then the first goes */
	learned(&c, 40, true);
	EXPECT_EQ(circle_evict(&c, SCAN), 0);
	EXPECT_EQ(c.looked, SCAN);
	for (i = 1; i < 40; i++)
		EXPECT_EQ(ents[i].hit, i >= SCAN);
	EXPECT_EQ(circle_at_hand(&c), SCAN);
	/* an idle entry just beyond the scan is not reached */
	learned(&c, 40, true);
	ents[SCAN].hit = false;
	EXPECT_EQ(circle_evict(&c, SCAN), 0);
	learned(&c, 40, true);
	ents[SCAN - 1].hit = false;
	EXPECT_EQ(circle_evict(&c, SCAN), SCAN - 1);
	/* a scan of 0 looks at nothing */
	EXPECT_EQ(circle_evict(&c, 0), -1);
	EXPECT_EQ(c.looked, 0);
}

UNIT_TEST(clock_fallback_is_the_first_spared)
{
	struct circle c;

	circle_init(&c);
	circle_add(&c, 0, true, false);
	circle_add(&c, 1, false, true);
	circle_add(&c, 2, true, false);
	circle_add(&c, 3, false, true);
	circle_add(&c, 4, false, true);
	EXPECT_EQ(circle_evict(&c, 5), 1);
	EXPECT_TRUE(!ents[3].hit && !ents[4].hit);
	/* a scan longer than the circle comes back to an entry it spared */
	learned(&c, 3, true);
	EXPECT_EQ(circle_evict(&c, 100), 0);
	EXPECT_EQ(c.looked, 4);
	EXPECT_EQ(circle_at_hand(&c), 1);
}

UNIT_TEST(clock_only_static_returns_none)
{
	struct circle c;

	/* an empty circle: the hand finds nothing and stops at once */
	circle_init(&c);
	EXPECT_EQ(circle_evict(&c, SCAN), -1);
	EXPECT_EQ(c.calls, 1);
	add_run(&c, 0, 5, true, false);
	/* round and round the statics, within the bound */
	EXPECT_EQ(circle_evict(&c, SCAN), -1);
	EXPECT_EQ(c.looked, SCAN);
	EXPECT_EQ(c.count, 5);
	/* the trim's scan: the whole count */
	EXPECT_EQ(circle_evict(&c, c.count), -1);
	EXPECT_EQ(c.looked, 5);
}

UNIT_TEST(clock_hand_persists)
{
	struct circle c;

	learned(&c, 4, false);
	ents[0].hit = true;
	EXPECT_EQ(circle_evict(&c, SCAN), 1);
	/* from 2 on, not from the start where 0 has no hit left */
	EXPECT_EQ(circle_at_hand(&c), 2);
	EXPECT_EQ(circle_evict(&c, SCAN), 2);
	/* a new entry goes behind the hand: looked at last */
	circle_add(&c, 5, false, false);
	ents[3].hit = true;
	EXPECT_EQ(circle_evict(&c, SCAN), 0);
	EXPECT_EQ(circle_evict(&c, SCAN), 5);
	EXPECT_EQ(circle_evict(&c, SCAN), 3);
	EXPECT_EQ(circle_evict(&c, SCAN), -1);
}

/* Lowering the bound: evict with the whole count until below it. */
static unsigned int trim(struct circle *c, unsigned int max)
{
	unsigned int n = 0;

	while (c->count > max && circle_evict(c, c->count) >= 0)
		n++;
	return n;
}

UNIT_TEST(clock_trim_behind_statics)
{
	struct circle c;

	circle_init(&c);
	add_run(&c, 0, 100, true, false);
	add_run(&c, 100, 10, false, true);
	/* more statics than the receive path's scan: it finds nothing */
	EXPECT_EQ(circle_evict(&c, SCAN), -1);
	/* the trim goes past them to every learned entry */
	EXPECT_EQ(trim(&c, 1), 10);
	EXPECT_EQ(c.count, 100);
}

/* ---- against a reference, on random operations -------------------------- */

/*
 * The same table as an array in circle order; @hand is the index looked
 * at next, @n (the list head) when it is past the last.
 */
struct ref {
	int		id[NENT];
	bool		is_static[NENT], hit[NENT], expired[NENT];
	unsigned int	n, hand, looked;
	unsigned int	fallbacks;	/* victims that had a second chance */
};

static void ref_del(struct ref *r, unsigned int j)
{
	memmove(&r->id[j], &r->id[j + 1], (r->n - j - 1) * sizeof(r->id[0]));
	memmove(&r->is_static[j], &r->is_static[j + 1], r->n - j - 1);
	memmove(&r->hit[j], &r->hit[j + 1], r->n - j - 1);
	memmove(&r->expired[j], &r->expired[j + 1], r->n - j - 1);
	r->n--;
	if (j < r->hand)
		r->hand--;
}

static void ref_add(struct ref *r, int id, bool is_static)
{
	unsigned int j = r->hand;

	memmove(&r->id[j + 1], &r->id[j], (r->n - j) * sizeof(r->id[0]));
	memmove(&r->is_static[j + 1], &r->is_static[j], r->n - j);
	memmove(&r->hit[j + 1], &r->hit[j], r->n - j);
	memmove(&r->expired[j + 1], &r->expired[j], r->n - j);
	r->id[j] = id;
	r->is_static[j] = is_static;
	r->hit[j] = false;
	r->expired[j] = false;
	r->n++;
	r->hand++;
}

static int ref_evict(struct ref *r, unsigned int scan)
{
	int victim = -1, fallback = -1, id;
	unsigned int j;

	for (r->looked = 0; r->looked < scan && r->n; r->looked++) {
		if (r->hand == r->n)
			r->hand = 0;
		j = r->hand++;
		if (r->is_static[j])
			continue;
		if (!r->hit[j] || r->expired[j]) {
			victim = j;
			r->looked++;
			break;
		}
		r->hit[j] = false;
		if (fallback < 0)
			fallback = j;
	}
	if (victim < 0 && fallback >= 0) {
		victim = fallback;
		r->fallbacks++;
	}
	if (victim < 0)
		return -1;
	id = r->id[victim];
	ref_del(r, victim);
	return id;
}

/* The circle from the head, and the hand, as the reference has them. */
static bool same(const struct circle *c, const struct ref *r)
{
	const struct ent *e = c->head.next;
	unsigned int j = 0, hand = r->n;

	for (; e != &c->head; e = e->next, j++) {
		if (j >= r->n || e->id != r->id[j] ||
		    e->is_static != r->is_static[j] || e->hit != r->hit[j] ||
		    e->expired != r->expired[j])
			return false;
		if (e == c->hand)
			hand = j;
	}
	if (c->hand == &c->head)
		hand = r->n;
	return j == r->n && c->count == r->n && hand == r->hand;
}

/* A frame from the address of @r's entry @j: hit, and not expired. */
static void seen(struct ref *r, unsigned int j)
{
	struct ent *e = &ents[r->id[j]];

	r->hit[j] = true;
	e->hit = true;
	r->expired[j] = false;
	e->expired = false;
}

static void expire(struct ref *r, unsigned int j)
{
	r->expired[j] = true;
	ents[r->id[j]].expired = true;
}

/* Evict as the kernel does, in the circle and the reference alike. */
static int evict_both(struct circle *c, struct ref *r, unsigned int scan,
		      bool present[], int *unit_failed)
{
	int want = ref_evict(r, scan), got = circle_evict(c, scan);

	if (got != want || c->looked != r->looked) {
		UNIT_FAIL("victim %d after %u, the reference's %d after %u",
			  got, c->looked, want, r->looked);
		return -2;
	}
	if (got >= 0)
		present[got] = false;
	return got;
}

/*
 * A switch's life in phases of 5,000 steps: hosts that keep sending
 * (most frames from known addresses, now and then from all of them, so
 * that whole scans give second chances and the fallback goes), then a
 * flood of new addresses; all
 * the while entries expire, the collector deletes some, fdb_add makes
 * some static and the bound moves (trims).  Every eviction must pick the
 * reference's victim after looking at as many entries, and leave the
 * same circle, hits and hand.
 */
UNIT_TEST(clock_random_against_reference)
{
	static struct ref r;
	unsigned int step, max = 96, evictions = 0, refused = 0;
	bool present[NENT] = { false };
	struct circle c;
	int id, got;

	unit_rnd_state = 0x853c49e6748fea9bULL;
	circle_init(&c);
	memset(&r, 0, sizeof(r));
	for (step = 0; step < 200000; step++) {
		bool flood = (step / 5000) % 2;
		unsigned int op = unit_rnd() % 1000;	/* per mille */
		int j = r.n ? (int)(unit_rnd() % r.n) : -1;

		id = unit_rnd() % NENT;
		if (op < (flood ? 600 : 150)) {	/* a new address? */
			if (present[id])
				continue;
			if (c.count >= max) {
				got = evict_both(&c, &r, SCAN, present, unit_failed);
				if (got == -2)
					return;
				if (got < 0) {
					refused++;	/* learn_fail */
					continue;
				}
				evictions++;
			}
			circle_add(&c, id, false, false);
			ref_add(&r, id, false);
			present[id] = true;
		} else if (j < 0) {
			continue;
		} else if (op < 900) {		/* a frame from a known address */
			if (!r.is_static[j])
				seen(&r, j);
		} else if (op < 940) {		/* every host sends, but in a flood */
			for (j = 0; j < (int)r.n && !flood; j++)
				if (!r.is_static[j])
					seen(&r, j);
		} else if (op < 960) {		/* ageing */
			if (!r.is_static[j])
				expire(&r, j);
		} else if (op < 985) {		/* the collector, a flush */
			id = r.id[j];
			ref_del(&r, j);
			circle_del(&c, &ents[id]);
			present[id] = false;
		} else if (op < 997) {		/* fdb_add on a known address */
			r.is_static[j] = true;
			ents[r.id[j]].is_static = true;
		} else {			/* the bound changes */
			/* mostly beyond the scan, now and then within it */
			max = unit_rnd() % 4 ? 1 + SCAN + unit_rnd() % 96 :
					       1 + unit_rnd() % SCAN;
			while (c.count > max) {
				got = evict_both(&c, &r, c.count, present, unit_failed);
				if (got == -2)
					return;
				if (got < 0)
					break;
				evictions++;
			}
		}
		if (!same(&c, &r)) {
			UNIT_FAIL("step %u: the circle and the reference differ", step);
			return;
		}
	}
	printf("# %u evictions (%u of an entry that had its second chance), %u refused\n",
	       evictions, r.fallbacks, refused);
	EXPECT_TRUE(evictions > 10000);
	EXPECT_TRUE(r.fallbacks > 1000);
	EXPECT_TRUE(refused > 10);
}

int main(void)
{
	return unit_run();
}
