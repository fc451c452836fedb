// SPDX-License-Identifier: GPL-2.0
/*
 * Admission control and route choice on a k-ary n-tree (fabric_cac.h).
 */
#include <stdlib.h>
#include <string.h>

#include "fabric_cac.h"

int cac_init(struct cac *c, unsigned int k, unsigned int n, uint64_t link_bps,
	     unsigned int cap_pct)
{
	memset(c, 0, sizeof(*c));
	if (ft_init(&c->t, k, n) || !link_bps || !cap_pct || cap_pct > 100)
		return CAC_EINVAL;
	c->load_bps = calloc(ft_links(&c->t), sizeof(*c->load_bps));
	if (!c->load_bps)
		return CAC_ENOMEM;
	c->link_bps = link_bps;
	c->cap_pct = cap_pct;
	c->next_id = 1;
	return CAC_OK;
}

void cac_free(struct cac *c)
{
	free(c->load_bps);
	free(c->resv);
	memset(c, 0, sizeof(*c));
}

uint64_t cac_cap_bps(const struct cac *c)
{
	/* split so that no link rate can overflow the product */
	return c->link_bps / 100 * c->cap_pct +
	       c->link_bps % 100 * c->cap_pct / 100;
}

/* The links of route @choice from @src to @dst; returns how many. */
static unsigned int route_links(const struct cac *c, unsigned int src,
				unsigned int dst, unsigned int choice,
				unsigned int *links)
{
	struct ft_route r;
	unsigned int i, n = 0;

	ft_route(&c->t, src, dst, choice, &r);
	links[n++] = ft_host_link(src);
	for (i = 0; i < r.nhops; i++)
		links[n++] = ft_port_link(&c->t, r.hop[i].sw, r.hop[i].out_port);
	return n;
}

static void charge(struct cac *c, const struct cac_resv *v, int sign)
{
	unsigned int links[FT_MAX_HOPS + 1], n, i;

	n = route_links(c, v->src, v->dst, v->choice, links);
	for (i = 0; i < n; i++)
		c->load_bps[links[i]] += sign > 0 ? v->rate_bps : -v->rate_bps;
}

static struct cac_resv *find(struct cac *c, unsigned int id)
{
	unsigned int i;

	for (i = 0; i < c->nresv; i++)
		if (c->resv[i].id == id)
			return &c->resv[i];
	return NULL;
}

/* bits in @bytes over @ns, rounded up; bytes <= 2^30: no overflow */
static uint64_t bits_per_s(uint64_t bytes, uint64_t ns)
{
	return (bytes * 8 * 1000000000ULL + ns - 1) / ns;
}

uint64_t cac_frame_mean_bps(const struct cac_frame *f)
{
	return bits_per_s(f->bytes, f->period_ns);
}

uint64_t cac_frame_peak_bps(const struct cac_frame *f)
{
	return bits_per_s(f->bytes, f->latency_ns);
}

uint64_t cac_frame_charged_bps(const struct cac_frame *f)
{
	return f->charge == CAC_CHARGE_PEAK ? cac_frame_peak_bps(f) :
					      cac_frame_mean_bps(f);
}

/*
 * Host @src's class @cls holds one kind of reservation: rate ones, or
 * frames of one latency (@f NULL: a rate reservation is to join it).
 */
static bool class_agrees(const struct cac *c, unsigned int src,
			 unsigned int cls, const struct cac_frame *f)
{
	uint64_t want = f ? f->latency_ns : 0;
	unsigned int i;

	for (i = 0; i < c->nresv; i++)
		if (c->resv[i].src == src && c->resv[i].cls == cls &&
		    c->resv[i].frame.latency_ns != want)
			return false;
	return true;
}

bool cac_pair_route(const struct cac *c, unsigned int src, unsigned int dst,
		    unsigned int *choice)
{
	unsigned int i;

	for (i = 0; i < c->nresv; i++)
		if (c->resv[i].src == src && c->resv[i].dst == dst) {
			*choice = c->resv[i].choice;
			return true;
		}
	return false;
}

/* The lowest id no reservation holds: ids wrapped past the last one. */
static unsigned int lowest_free_id(struct cac *c)
{
	unsigned int id = 1;

	while (find(c, id))
		id++;
	return id;
}

static int check_args(struct cac *c, unsigned int id, unsigned int src,
		      unsigned int dst, unsigned int cls, uint64_t rate_bps,
		      const struct cac_frame *f)
{
	if (src >= c->t.hosts || dst >= c->t.hosts || src == dst || !rate_bps)
		return CAC_EINVAL;
	if (id && find(c, id))
		return CAC_EINVAL;
	if (f && cac_frame_peak_bps(f) > cac_cap_bps(c))
		return CAC_EPEAK;
	if (!class_agrees(c, src, cls, f))
		return CAC_ECLASS;
	return CAC_OK;
}

static bool frame_valid(const struct cac_frame *f)
{
	return f->latency_ns >= CAC_FRAME_MIN_NS &&
	       f->latency_ns <= CAC_FRAME_MAX_NS &&
	       f->period_ns >= f->latency_ns &&
	       f->period_ns <= CAC_PERIOD_MAX_NS &&
	       f->bytes && f->bytes <= CAC_FRAME_MAX_BYTES &&
	       (f->charge == CAC_CHARGE_MEAN || f->charge == CAC_CHARGE_PEAK);
}

static int commit(struct cac *c, unsigned int id, unsigned int src,
		  unsigned int dst, unsigned int cls, uint64_t rate_bps,
		  const struct cac_frame *f, unsigned int choice,
		  struct cac_resv *out)
{
	struct cac_resv *v;

	if (c->nresv == c->maxresv) {
		unsigned int want = c->maxresv ? 2 * c->maxresv : 64;
		struct cac_resv *r = realloc(c->resv, want * sizeof(*r));

		if (!r)
			return CAC_ENOMEM;
		c->resv = r;
		c->maxresv = want;
	}
	if (!id)
		id = c->next_id && !find(c, c->next_id) ? c->next_id :
							 lowest_free_id(c);
	v = &c->resv[c->nresv++];
	v->id = id;
	/* an id of UINT_MAX leaves next_id 0: lowest_free_id() from then on */
	if (id >= c->next_id && c->next_id)
		c->next_id = id + 1;
	v->src = src;
	v->dst = dst;
	v->cls = cls;
	v->rate_bps = rate_bps;
	if (f)
		v->frame = *f;
	else
		memset(&v->frame, 0, sizeof(v->frame));
	v->choice = choice;
	charge(c, v, 1);
	if (out)
		*out = *v;
	return CAC_OK;
}

/*
 * The most loaded link of route @choice with @rate_bps added, and the
 * sum over its links; false if some link would pass the cap.
 */
static bool route_fits(const struct cac *c, unsigned int src, unsigned int dst,
		       unsigned int choice, uint64_t rate_bps, uint64_t *max,
		       uint64_t *sum)
{
	unsigned int links[FT_MAX_HOPS + 1], n, i;
	uint64_t cap = cac_cap_bps(c);
	bool fits = true;

	n = route_links(c, src, dst, choice, links);
	*max = 0;
	*sum = 0;
	for (i = 0; i < n; i++) {
		uint64_t l = c->load_bps[links[i]];

		/* l <= cap always, so this cannot wrap where it matters */
		if (rate_bps > cap - l)
			fits = false;
		l += rate_bps;
		if (l > *max)
			*max = l;
		*sum += l;
	}
	return fits;
}

/* The least loaded route that fits (the header's order), or CAC_EFULL. */
static int add_least_loaded(struct cac *c, unsigned int id, unsigned int src,
			    unsigned int dst, unsigned int cls, uint64_t rate_bps,
			    const struct cac_frame *f, struct cac_resv *out)
{
	uint64_t best_max = 0, best_sum = 0, max, sum;
	unsigned int choice, count, best = 0;
	bool found = false;
	int err = check_args(c, id, src, dst, cls, rate_bps, f);

	if (err)
		return err;
	/* the host sends all of a pair's traffic by one route: the pair's */
	if (cac_pair_route(c, src, dst, &choice)) {
		if (!route_fits(c, src, dst, choice, rate_bps, &max, &sum))
			return CAC_EFULL;
		return commit(c, id, src, dst, cls, rate_bps, f, choice, out);
	}
	count = ft_route_count(&c->t, src, dst);
	for (choice = 0; choice < count; choice++) {
		if (!route_fits(c, src, dst, choice, rate_bps, &max, &sum))
			continue;
		if (!found || max < best_max ||
		    (max == best_max && sum < best_sum)) {
			found = true;
			best = choice;
			best_max = max;
			best_sum = sum;
		}
	}
	if (!found)
		return CAC_EFULL;
	return commit(c, id, src, dst, cls, rate_bps, f, best, out);
}

static int add_on(struct cac *c, unsigned int id, unsigned int src,
		  unsigned int dst, unsigned int cls, uint64_t rate_bps,
		  const struct cac_frame *f, unsigned int choice,
		  struct cac_resv *out)
{
	uint64_t max, sum;
	unsigned int pair;
	int err = check_args(c, id, src, dst, cls, rate_bps, f);

	if (err)
		return err;
	if (choice >= ft_route_count(&c->t, src, dst))
		return CAC_EINVAL;
	if (cac_pair_route(c, src, dst, &pair) && pair != choice)
		return CAC_EROUTE;
	if (!route_fits(c, src, dst, choice, rate_bps, &max, &sum))
		return CAC_EFULL;
	return commit(c, id, src, dst, cls, rate_bps, f, choice, out);
}

int cac_add(struct cac *c, unsigned int id, unsigned int src, unsigned int dst,
	    unsigned int cls, uint64_t rate_bps, struct cac_resv *out)
{
	return add_least_loaded(c, id, src, dst, cls, rate_bps, NULL, out);
}

int cac_add_on(struct cac *c, unsigned int id, unsigned int src,
	       unsigned int dst, unsigned int cls, uint64_t rate_bps,
	       unsigned int choice, struct cac_resv *out)
{
	return add_on(c, id, src, dst, cls, rate_bps, NULL, choice, out);
}

int cac_add_frame(struct cac *c, unsigned int id, unsigned int src,
		  unsigned int dst, unsigned int cls, const struct cac_frame *f,
		  struct cac_resv *out)
{
	if (!frame_valid(f))
		return CAC_EINVAL;
	return add_least_loaded(c, id, src, dst, cls, cac_frame_charged_bps(f), f,
				out);
}

int cac_add_frame_on(struct cac *c, unsigned int id, unsigned int src,
		     unsigned int dst, unsigned int cls, const struct cac_frame *f,
		     unsigned int choice, struct cac_resv *out)
{
	if (!frame_valid(f))
		return CAC_EINVAL;
	return add_on(c, id, src, dst, cls, cac_frame_charged_bps(f), f, choice,
		      out);
}

int cac_remove(struct cac *c, unsigned int id)
{
	struct cac_resv *v = id ? find(c, id) : NULL;

	if (!v)
		return CAC_ENOENT;
	charge(c, v, -1);
	/* keep the order: the first of a pair's reservations is its oldest */
	memmove(v, v + 1, (size_t)(c->resv + c->nresv - (v + 1)) * sizeof(*v));
	c->nresv--;
	return CAC_OK;
}
