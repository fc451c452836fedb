// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the k-ary n-tree routes and the admission control
 * (userspace/lib/fabric_tree.c, fabric_cac.c).
 */
#include "unit.h"
#include "fabric_tree.c"
#include "fabric_cac.c"

#define MBIT 1000000ULL

/*
 * The wiring as fabric_tree.h documents it, written out again: where
 * output @port of switch (@stage, @g, @m) leads.  Sets *@host for a
 * leaf's down port, else the switch reached.
 */
static void wire(const struct ft_tree *t, unsigned int stage, unsigned int g,
		 unsigned int m, unsigned int port, int *host,
		 unsigned int *s2, unsigned int *g2, unsigned int *m2)
{
	*host = -1;
	if (port >= t->k) {		/* up */
		*s2 = stage + 1;
		*g2 = g / t->k;
		*m2 = m + (port - t->k) * t->pow[stage];
	} else if (stage == 0) {
		*host = (int)(g * t->k + port);
	} else {			/* down */
		*s2 = stage - 1;
		*g2 = g * t->k + port;
		*m2 = m % t->pow[stage - 1];
	}
}

/* Every route of every pair, walked along the wiring, ends at its host. */
static int walk_all(const struct ft_tree *t)
{
	unsigned int a, b, c, i, s, g, m;
	struct ft_route r;
	int bad = 0, host = -1;

	for (a = 0; a < t->hosts; a++) {
		for (b = 0; b < t->hosts; b++) {
			unsigned int count, L, top_seen[FT_MAX_K * FT_MAX_K] = { 0 };

			if (a == b)
				continue;
			L = ft_turn_stage(t, a, b);
			count = ft_route_count(t, a, b);
			if (count != t->pow[L])
				bad++;
			for (c = 0; c < count; c++) {
				ft_route(t, a, b, c, &r);
				if (r.nhops != 2 * L + 1) {
					bad++;
					continue;
				}
				s = 0, g = a / t->k, m = 0;
				for (i = 0; i < r.nhops; i++) {
					/* up for L hops, then down: never down then up */
					if (r.hop[i].stage != s ||
					    r.hop[i].sw != ft_switch_number(t, s, g, m) ||
					    (i < L) != (r.hop[i].out_port >= t->k))
						bad++;
					wire(t, s, g, m, r.hop[i].out_port, &host, &s, &g, &m);
				}
				if (host != (int)b)
					bad++;
				/* the routes turn at different switches */
				if (count <= FT_MAX_K * FT_MAX_K &&
				    top_seen[r.hop[L].sw % t->per_stage]++ &&
				    L > 0)
					bad++;
			}
		}
	}
	return bad;
}

UNIT_TEST(tree_routes_follow_the_wiring_to_their_host)
{
	static const unsigned int kn[][2] = {
		{ 2, 1 }, { 2, 2 }, { 2, 3 }, { 2, 4 }, { 3, 3 }, { 4, 2 }, { 4, 3 },
		{ 8, 2 },
	};
	struct ft_tree t;
	unsigned int i;

	for (i = 0; i < sizeof(kn) / sizeof(kn[0]); i++) {
		ASSERT_EQ(ft_init(&t, kn[i][0], kn[i][1]), 0);
		EXPECT_EQ(walk_all(&t), 0);
	}
}

UNIT_TEST(tree_sizes_and_limits)
{
	struct ft_tree t;

	ASSERT_EQ(ft_init(&t, 4, 3), 0);
	EXPECT_EQ(t.hosts, 64);
	EXPECT_EQ(ft_switches(&t), 48);
	EXPECT_EQ(ft_links(&t), 64 + 48 * 8);
	EXPECT_EQ(ft_turn_stage(&t, 0, 3), 0);
	EXPECT_EQ(ft_turn_stage(&t, 0, 4), 1);
	EXPECT_EQ(ft_turn_stage(&t, 0, 63), 2);
	EXPECT_EQ(ft_route_count(&t, 0, 63), 16);
	EXPECT_EQ(ft_init(&t, 1, 3), -1);
	EXPECT_EQ(ft_init(&t, 33, 1), -1);
	EXPECT_EQ(ft_init(&t, 2, 7), -1);
	EXPECT_EQ(ft_init(&t, 32, 4), -1);	/* a million hosts */
	EXPECT_EQ(ft_init(&t, 16, 4), 0);	/* 65536 */
}

/*
 * 2-ary 2-tree, 100 Mbit/s links, cap 70 %: hosts 0, 1 on leaf 0, hosts
 * 2, 3 on leaf 1, two top switches; every route between the leaves has
 * a choice of top.
 */
UNIT_TEST(least_loaded_route_refusal_at_the_cap_and_removal)
{
	struct cac_resv v;
	struct cac c;

	ASSERT_EQ(cac_init(&c, 2, 2, 100 * MBIT, 70), CAC_OK);
	EXPECT_EQ(cac_cap_bps(&c), 70 * MBIT);
	/* all empty: the first route */
	ASSERT_EQ(cac_add(&c, 0, 0, 2, 1, 30 * MBIT, &v), CAC_OK);
	EXPECT_EQ(v.id, 1);
	EXPECT_EQ(v.choice, 0);
	/* top 0's way from leaf 0 carries 30 now: host 1 goes over top 1 */
	ASSERT_EQ(cac_add(&c, 0, 1, 3, 1, 30 * MBIT, &v), CAC_OK);
	EXPECT_EQ(v.choice, 1);
	/* host 0's own link is on every route: 30 + 50 > 70 */
	EXPECT_EQ(cac_add(&c, 0, 0, 3, 1, 50 * MBIT, &v), CAC_EFULL);
	/* exactly the cap fits */
	ASSERT_EQ(cac_add(&c, 0, 0, 3, 1, 40 * MBIT, &v), CAC_OK);
	EXPECT_EQ(v.id, 3);
	EXPECT_EQ(c.load_bps[ft_host_link(0)], 70 * MBIT);
	EXPECT_EQ(cac_add(&c, 0, 0, 2, 1, 1, &v), CAC_EFULL);
	/* removal gives the rate back on every link of the route */
	ASSERT_EQ(cac_remove(&c, 1), CAC_OK);
	EXPECT_EQ(c.load_bps[ft_host_link(0)], 40 * MBIT);
	EXPECT_EQ(cac_remove(&c, 1), CAC_ENOENT);
	ASSERT_EQ(cac_add(&c, 0, 0, 2, 1, 30 * MBIT, &v), CAC_OK);
	EXPECT_EQ(v.id, 4);
	/* a given route: taken if it fits, refused if not, checked */
	EXPECT_EQ(cac_add_on(&c, 9, 2, 0, 1, 70 * MBIT, 1, &v), CAC_OK);
	/* leaf 1's way up to top 1 is full now, to top 0 empty */
	EXPECT_EQ(cac_add_on(&c, 11, 3, 0, 1, 1, 1, &v), CAC_EFULL);
	EXPECT_EQ(cac_add_on(&c, 10, 3, 1, 1, 1, 0, &v), CAC_OK);
	EXPECT_EQ(cac_add_on(&c, 12, 3, 1, 1, 1, 2, &v), CAC_EINVAL);
	EXPECT_EQ(cac_add_on(&c, 9, 3, 1, 1, 1, 0, &v), CAC_EINVAL);	/* id in use */
	/* ids go on after the largest */
	ASSERT_EQ(cac_add(&c, 0, 1, 2, 1, 1, &v), CAC_OK);
	EXPECT_EQ(v.id, 11);
	EXPECT_EQ(cac_add(&c, 0, 1, 1, 1, 1, &v), CAC_EINVAL);
	EXPECT_EQ(cac_add(&c, 0, 1, 4, 1, 1, &v), CAC_EINVAL);
	EXPECT_EQ(cac_add(&c, 0, 1, 2, 1, 0, &v), CAC_EINVAL);
	cac_free(&c);
	EXPECT_EQ(cac_init(&c, 2, 2, 100 * MBIT, 0), CAC_EINVAL);
	EXPECT_EQ(cac_init(&c, 2, 2, 100 * MBIT, 101), CAC_EINVAL);
}

/*
 * Frame reservations on the same 2-ary 2-tree: links are charged the
 * mean rate, the rate within the latency must fit under the cap alone,
 * terms out of range are refused, and one class of a host holds one kind
 * of reservation (rate, or frames of one latency).
 */
UNIT_TEST(frame_reservations_charge_the_mean_and_refuse_a_peak_past_the_cap)
{
	/* 250 kB every 40 ms within 20 ms: 50 Mbit/s mean, 100 within */
	struct cac_frame f = { 20000000, 40000000, 250000, CAC_CHARGE_MEAN }, g;
	struct cac_resv v;
	struct cac c;

	ASSERT_EQ(cac_init(&c, 2, 2, 200 * MBIT, 70), CAC_OK);
	EXPECT_EQ(cac_frame_mean_bps(&f), 50 * MBIT);
	EXPECT_EQ(cac_frame_peak_bps(&f), 100 * MBIT);
	ASSERT_EQ(cac_add_frame(&c, 0, 0, 2, 5, &f, &v), CAC_OK);
	EXPECT_EQ(v.rate_bps, 50 * MBIT);
	EXPECT_EQ(v.frame.latency_ns, 20000000);
	EXPECT_EQ(c.load_bps[ft_host_link(0)], 50 * MBIT);
	/* a second stream of the class, another destination: 100 of 140 */
	ASSERT_EQ(cac_add_frame(&c, 0, 0, 3, 5, &f, &v), CAC_OK);
	EXPECT_EQ(c.load_bps[ft_host_link(0)], 100 * MBIT);
	/* the mean would pass the cap (150 > 140) */
	EXPECT_EQ(cac_add_frame(&c, 0, 0, 1, 5, &f, &v), CAC_EFULL);
	/* 1 byte over: the rate within the latency passes 140 Mbit/s */
	g = (struct cac_frame){ 1000000, 100000000, 17501, CAC_CHARGE_MEAN };
	EXPECT_EQ(cac_frame_peak_bps(&g), 140008000);
	EXPECT_EQ(cac_add_frame(&c, 0, 1, 2, 6, &g, &v), CAC_EPEAK);
	g.bytes = 17500;
	ASSERT_EQ(cac_add_frame(&c, 0, 1, 2, 6, &g, &v), CAC_OK);
	EXPECT_EQ(v.rate_bps, 1400000);
	/* class 5 of host 0 is a 20-ms frame class: no rate, no other latency */
	EXPECT_EQ(cac_add(&c, 0, 0, 1, 5, MBIT, &v), CAC_ECLASS);
	g = f;
	g.latency_ns = 10000000;
	g.bytes = 1000;
	EXPECT_EQ(cac_add_frame(&c, 0, 0, 1, 5, &g, &v), CAC_ECLASS);
	/* another host's class 5, or host 0's class 7, are free */
	ASSERT_EQ(cac_add_frame(&c, 0, 0, 1, 7, &g, &v), CAC_OK);
	ASSERT_EQ(cac_add(&c, 0, 3, 1, 5, MBIT, &v), CAC_OK);
	/* and a rate class takes no frames */
	EXPECT_EQ(cac_add_frame(&c, 0, 3, 0, 5, &g, &v), CAC_ECLASS);
	/* terms: a period shorter than the latency, out of edf's range, 0 */
	g = (struct cac_frame){ 2000000, 1999999, 1000, CAC_CHARGE_MEAN };
	EXPECT_EQ(cac_add_frame(&c, 0, 2, 3, 1, &g, &v), CAC_EINVAL);
	g = (struct cac_frame){ 999, 1000000, 1, CAC_CHARGE_MEAN };
	EXPECT_EQ(cac_add_frame(&c, 0, 2, 3, 1, &g, &v), CAC_EINVAL);
	g = (struct cac_frame){ CAC_FRAME_MAX_NS + 1, CAC_PERIOD_MAX_NS, 1, CAC_CHARGE_MEAN };
	EXPECT_EQ(cac_add_frame(&c, 0, 2, 3, 1, &g, &v), CAC_EINVAL);
	g = (struct cac_frame){ 1000000, CAC_PERIOD_MAX_NS + 1, 1, CAC_CHARGE_MEAN };
	EXPECT_EQ(cac_add_frame(&c, 0, 2, 3, 1, &g, &v), CAC_EINVAL);
	g = (struct cac_frame){ 1000000, 1000000, 0, CAC_CHARGE_MEAN };
	EXPECT_EQ(cac_add_frame(&c, 0, 2, 3, 1, &g, &v), CAC_EINVAL);
	g = (struct cac_frame){ CAC_FRAME_MAX_NS, CAC_PERIOD_MAX_NS, CAC_FRAME_MAX_BYTES + 1, CAC_CHARGE_MEAN };
	EXPECT_EQ(cac_add_frame(&c, 0, 2, 3, 1, &g, &v), CAC_EINVAL);
	/* the largest terms do not overflow: 2^33 bits in 10 s, in an hour */
	g.bytes = CAC_FRAME_MAX_BYTES;
	EXPECT_EQ(cac_frame_peak_bps(&g), 858993460);
	EXPECT_EQ(cac_frame_mean_bps(&g), 2386093);
	/* a stated route; removal gives the mean back */
	EXPECT_EQ(cac_add_frame_on(&c, 40, 2, 0, 1, &f, 2, &v), CAC_EINVAL);
	ASSERT_EQ(cac_add_frame_on(&c, 40, 2, 0, 1, &f, 1, &v), CAC_OK);
	EXPECT_EQ(c.load_bps[ft_host_link(2)], 50 * MBIT);
	ASSERT_EQ(cac_remove(&c, 40), CAC_OK);
	EXPECT_EQ(c.load_bps[ft_host_link(2)], 0);
	ASSERT_EQ(cac_remove(&c, 1), CAC_OK);
	ASSERT_EQ(cac_remove(&c, 2), CAC_OK);
	/* what stays on host 0's link: class 7's 1000 bytes every 40 ms */
	EXPECT_EQ(c.load_bps[ft_host_link(0)], 200000);
	cac_free(&c);
}

/*
 * charge peak: the links carry each frame's rate within its latency, so
 * frames that all start together still fit under the cap; streams that
 * charge mean fit where peak ones are refused.  The class holds both.
 */
UNIT_TEST(frame_reservations_charged_their_peak_fit_together)
{
	/* 250 kB every 40 ms within 20 ms: 50 Mbit/s mean, 100 within */
	struct cac_frame f = { 20000000, 40000000, 250000, CAC_CHARGE_PEAK };
	struct cac_resv v;
	struct cac c;

	ASSERT_EQ(cac_init(&c, 2, 2, 200 * MBIT, 70), CAC_OK);
	EXPECT_EQ(cac_frame_charged_bps(&f), 100 * MBIT);
	ASSERT_EQ(cac_add_frame(&c, 0, 0, 2, 5, &f, &v), CAC_OK);
	EXPECT_EQ(v.rate_bps, 100 * MBIT);
	EXPECT_EQ(v.frame.charge, CAC_CHARGE_PEAK);
	EXPECT_EQ(c.load_bps[ft_host_link(0)], 100 * MBIT);
	/* a second such stream from host 0: 200 > 140 */
	EXPECT_EQ(cac_add_frame(&c, 0, 0, 3, 5, &f, &v), CAC_EFULL);
	/* charged its mean, the same stream still passes: 100 + 50 > 140 */
	f.charge = CAC_CHARGE_MEAN;
	EXPECT_EQ(cac_frame_charged_bps(&f), 50 * MBIT);
	EXPECT_EQ(cac_add_frame(&c, 0, 0, 3, 5, &f, &v), CAC_EFULL);
	f.bytes = 200000;	/* 40 Mbit/s mean */
	ASSERT_EQ(cac_add_frame(&c, 0, 0, 3, 5, &f, &v), CAC_OK);
	EXPECT_EQ(c.load_bps[ft_host_link(0)], 140 * MBIT);
	/* removal gives the peak back */
	ASSERT_EQ(cac_remove(&c, 1), CAC_OK);
	EXPECT_EQ(c.load_bps[ft_host_link(0)], 40 * MBIT);
	/* a stated route, and a charge that is neither */
	f.charge = CAC_CHARGE_PEAK;
	ASSERT_EQ(cac_add_frame_on(&c, 9, 1, 2, 5, &f, 1, &v), CAC_OK);
	EXPECT_EQ(c.load_bps[ft_host_link(1)], 80 * MBIT);
	f.charge = (enum cac_charge)2;
	EXPECT_EQ(cac_add_frame(&c, 0, 1, 3, 5, &f, &v), CAC_EINVAL);
	EXPECT_EQ(cac_add_frame_on(&c, 10, 1, 3, 5, &f, 0, &v), CAC_EINVAL);
	cac_free(&c);
}

/* Loads from the reservations alone, recomputed from scratch. */
static void loads_from_scratch(const struct cac *c, uint64_t *load)
{
	unsigned int links[FT_MAX_HOPS + 1], i, j, n;

	memset(load, 0, ft_links(&c->t) * sizeof(*load));
	for (i = 0; i < c->nresv; i++) {
		n = route_links(c, c->resv[i].src, c->resv[i].dst,
				c->resv[i].choice, links);
		for (j = 0; j < n; j++)
			load[links[j]] += c->resv[i].rate_bps;
	}
}

/* The largest load on route @choice once @rate is added; -1 past the cap. */
static long long route_max(const struct cac *c, unsigned int a, unsigned int b,
			   unsigned int choice, uint64_t rate)
{
	unsigned int links[FT_MAX_HOPS + 1], j, n;
	uint64_t max = 0;

	n = route_links(c, a, b, choice, links);
	for (j = 0; j < n; j++) {
		uint64_t l = c->load_bps[links[j]] + rate;

		if (l > cac_cap_bps(c))
			return -1;
		if (l > max)
			max = l;
	}
	return (long long)max;
}

/* The route @a to @b's reservations take, -1 if it holds none. */
static int held_route(const struct cac *c, unsigned int a, unsigned int b)
{
	unsigned int i;

	for (i = 0; i < c->nresv; i++)
		if (c->resv[i].src == a && c->resv[i].dst == b)
			return (int)c->resv[i].choice;
	return -1;
}

/* A host sends to one destination by one route: all its reservations'. */
static bool one_route_per_pair(const struct cac *c)
{
	unsigned int i, j;

	for (i = 0; i < c->nresv; i++)
		for (j = 0; j < i; j++)
			if (c->resv[i].src == c->resv[j].src &&
			    c->resv[i].dst == c->resv[j].dst &&
			    c->resv[i].choice != c->resv[j].choice) {
				printf("# %u -> %u: reservations %u and %u on routes %u and %u\n",
				       c->resv[i].src, c->resv[i].dst,
				       c->resv[j].id, c->resv[i].id,
				       c->resv[j].choice, c->resv[i].choice);
				return false;
			}
	return true;
}

/*
 * Thousands of reservations, a quarter of them frame streams, come and
 * go on a 4-ary 3-tree (64 hosts, 16 routes between the farthest): the loads always equal what the
 * reservations add up to, no link ever passes the cap, a pair's
 * reservations all take one route, a refusal means no route it may take
 * had room, and an admission took a route whose most loaded link is the
 * least of all the routes it could take (the pair's own, once it holds
 * one).
 */
UNIT_TEST(random_reservations_keep_loads_exact_and_choices_least_loaded)
{
	static uint64_t load[64 + 48 * 8];
	unsigned int ids[4096], nids = 0, op, i, admitted = 0, refused = 0, peaks = 0;
	struct { uint64_t s; } r = { 88172645463325252ULL };
	struct cac c;

	ASSERT_EQ(cac_init(&c, 4, 3, 1000 * MBIT, 70), CAC_OK);
	ASSERT_EQ(ft_links(&c.t), sizeof(load) / sizeof(load[0]));
	for (op = 0; op < 20000; op++) {
		r.s ^= r.s << 13, r.s ^= r.s >> 7, r.s ^= r.s << 17;
		if (nids && (r.s % 3 == 0 || nids == 4096)) {
			i = (unsigned int)(r.s >> 20) % nids;
			ASSERT_EQ(cac_remove(&c, ids[i]), CAC_OK);
			ids[i] = ids[--nids];
		} else {
			unsigned int a = (unsigned int)(r.s >> 8) % 64;
			unsigned int b = (unsigned int)(r.s >> 16) % 64;
			uint64_t rate = ((r.s >> 24) % 200 + 1) * MBIT;
			/* every fourth a frame stream, class 2: 10 ms, 10..100 ms */
			struct cac_frame f = { 10000000, 10000000 * ((r.s >> 52) % 10 + 1),
					       (r.s >> 32) % 900000 + 1,
					       (r.s >> 62) & 1 ? CAC_CHARGE_PEAK :
								 CAC_CHARGE_MEAN };
			bool frame = (r.s >> 60) % 4 == 0;
			long long best = -1, m;
			unsigned int cnt, ch;
			struct cac_resv v;
			int err;

			if (a == b)
				continue;
			if (frame)
				rate = cac_frame_charged_bps(&f);
			cnt = ft_route_count(&c.t, a, b);
			for (ch = 0; ch < cnt; ch++) {
				if (held_route(&c, a, b) >= 0 &&
				    ch != (unsigned int)held_route(&c, a, b))
					continue;	/* the pair keeps its route */
				m = route_max(&c, a, b, ch, rate);
				if (m >= 0 && (best < 0 || m < best))
					best = m;
			}
			err = frame ? cac_add_frame(&c, 0, a, b, 2, &f, &v) :
				      cac_add(&c, 0, a, b, 1, rate, &v);
			if (frame && cac_frame_peak_bps(&f) > cac_cap_bps(&c)) {
				EXPECT_EQ(err, CAC_EPEAK);
				peaks++;
			} else if (best < 0) {
				EXPECT_EQ(err, CAC_EFULL);
				refused++;
			} else {
				ASSERT_EQ(err, CAC_OK);
				ids[nids++] = v.id;
				admitted++;
				/* the chosen route's max, counted after the add */
				EXPECT_EQ(route_max(&c, a, b, v.choice, 0), best);
			}
		}
		if (!one_route_per_pair(&c)) {
			UNIT_FAIL("a pair's reservations on two routes");
			return;
		}
		loads_from_scratch(&c, load);
		for (i = 0; i < ft_links(&c.t); i++) {
			if (c.load_bps[i] != load[i] || load[i] > cac_cap_bps(&c)) {
				UNIT_FAIL("link %u: load %" PRIu64 ", from scratch %" PRIu64,
					  i, c.load_bps[i], load[i]);
				return;
			}
		}
	}
	/* both outcomes happened often enough to mean something */
	EXPECT_TRUE(admitted > 2000);
	EXPECT_TRUE(refused > 500);
	EXPECT_TRUE(peaks > 50);
	printf("# %u admitted, %u refused, %u frames past the cap within their latency\n",
	       admitted, refused, peaks);
	while (nids)
		ASSERT_EQ(cac_remove(&c, ids[--nids]), CAC_OK);
	for (i = 0; i < ft_links(&c.t); i++)
		EXPECT_EQ(c.load_bps[i], 0);
	cac_free(&c);
}

/*
 * A host's table has one route per destination and its class one rate
 * for the reservations in it, so all of a pair's traffic crosses one
 * route: a second reservation for the pair is charged there, though
 * another route is less loaded, or the links that route crosses carry
 * more than admission counted (two of 30 and one of 40 Mbit/s on links
 * capped at 70).
 */
UNIT_TEST(a_pair_keeps_one_route)
{
	struct cac_resv a, b, x, v;
	struct cac c;
	unsigned int choice;

	ASSERT_EQ(cac_init(&c, 2, 2, 100 * MBIT, 70), CAC_OK);
	EXPECT_TRUE(!cac_pair_route(&c, 0, 2, &choice));
	ASSERT_EQ(cac_add(&c, 0, 0, 2, 1, 30 * MBIT, &a), CAC_OK);
	ASSERT_TRUE(cac_pair_route(&c, 0, 2, &choice));
	EXPECT_EQ(choice, a.choice);
	/* the other route is empty, but 0 sends to 2 by a's */
	ASSERT_EQ(cac_add(&c, 0, 0, 2, 1, 30 * MBIT, &b), CAC_OK);
	EXPECT_EQ(b.choice, a.choice);
	EXPECT_EQ(c.load_bps[ft_host_link(0)], 60 * MBIT);
	/* 1 -> 3 shares the top switch's links of a's route only if they fit */
	ASSERT_EQ(cac_add(&c, 0, 1, 3, 1, 40 * MBIT, &x), CAC_OK);
	EXPECT_TRUE(x.choice != a.choice);
	/* the pair's route is full at 70: 11 more is refused, not rerouted */
	EXPECT_EQ(cac_add(&c, 0, 0, 2, 2, 11 * MBIT, &v), CAC_EFULL);
	EXPECT_EQ(cac_add(&c, 0, 0, 2, 2, 10 * MBIT, &v), CAC_OK);
	EXPECT_EQ(v.choice, a.choice);
	/* a state file's line on another route for the pair */
	EXPECT_EQ(cac_add_on(&c, 0, 0, 2, 1, MBIT, 1 - a.choice, &v), CAC_EROUTE);
	/* once the pair holds nothing, any route again */
	ASSERT_EQ(cac_remove(&c, a.id), CAC_OK);
	ASSERT_EQ(cac_remove(&c, b.id), CAC_OK);
	ASSERT_EQ(cac_remove(&c, 4), CAC_OK);
	EXPECT_TRUE(!cac_pair_route(&c, 0, 2, &choice));
	EXPECT_EQ(cac_add_on(&c, 0, 0, 2, 1, MBIT, 1 - a.choice, &v), CAC_OK);
	cac_free(&c);
}

/*
 * fabric-cac's routes and classes take a pair's first reservation in the
 * list as its oldest: removing one keeps the others' order.
 */
UNIT_TEST(removal_keeps_the_order_of_admission)
{
	unsigned int i, k, id;
	struct cac c;

	ASSERT_EQ(cac_init(&c, 4, 2, 1000 * MBIT, 70), CAC_OK);
	for (i = 0; i < 200; i++)
		ASSERT_EQ(cac_add(&c, 0, i % 16, (i * 7 + 1) % 16 == i % 16 ?
					 (i + 1) % 16 : (i * 7 + 1) % 16,
				  1, MBIT, NULL), CAC_OK);
	/* every third, from the front, the middle and the end */
	for (id = 1; id <= 200; id += 3)
		ASSERT_EQ(cac_remove(&c, id), CAC_OK);
	for (k = 1; k < c.nresv; k++)
		if (c.resv[k - 1].id >= c.resv[k].id) {
			UNIT_FAIL("resv %u stands before resv %u",
				  c.resv[k - 1].id, c.resv[k].id);
			break;
		}
	EXPECT_EQ(c.nresv, 200 - 67);
	cac_free(&c);
}

/*
 * A state file may name any id: after UINT_MAX the next is not 0 (which
 * means none, so could never be removed) but the lowest free one.
 */
UNIT_TEST(ids_after_the_largest_are_never_zero)
{
	struct cac_resv v, w;
	struct cac c;

	ASSERT_EQ(cac_init(&c, 2, 2, 100 * MBIT, 70), CAC_OK);
	ASSERT_EQ(cac_add_on(&c, 1, 2, 3, 1, MBIT, 0, NULL), CAC_OK);
	ASSERT_EQ(cac_add_on(&c, 0xffffffffu, 0, 1, 1, MBIT, 0, NULL), CAC_OK);
	ASSERT_EQ(cac_add(&c, 0, 2, 3, 1, MBIT, &v), CAC_OK);
	EXPECT_EQ(v.id, 2);
	ASSERT_EQ(cac_add(&c, 0, 2, 3, 1, MBIT, &w), CAC_OK);
	EXPECT_EQ(w.id, 3);
	EXPECT_EQ(cac_remove(&c, v.id), CAC_OK);
	EXPECT_EQ(cac_remove(&c, 0xffffffffu), CAC_OK);
	cac_free(&c);
}

int main(void)
{
	return unit_run();
}
