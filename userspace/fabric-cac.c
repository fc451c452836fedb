// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-cac: central admission control for regulated traffic on a
 * k-ary n-tree fabric (Documentation/admission.rst).  Each reservation
 * gets a fixed route, the least loaded of its minimal up-down routes,
 * or is refused if it would load some link past the cap.  The state
 * lives in a file, so reservations can be added and removed one at a
 * time from scripts; the algorithm is userspace/lib/fabric_cac.c.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "fabric_cac.h"
#include "../kernel/core/fabric_hdr_core.h"

#define PROG "fabric-cac"

/* enum cac_charge as the command line, the output and JSON say it */
static const char *const charge_names[] = {
	[CAC_CHARGE_MEAN] = "mean",
	[CAC_CHARGE_PEAK] = "peak",
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " [ -j ] --state FILE [ --tree K,N --link RATE [ --cap PCT ] ]\n"
		"                  { add SRC DST { RATE | frame LATENCY size BYTES every PERIOD\n"
		"                                     [ charge { mean | peak } ] } [ class N ] |\n"
		"                    del ID | show |\n"
		"                    routes HOST [ dev DEV ] [ mac MAC ] |\n"
		"                    classes HOST [ dev DEV ] [ mac MAC ] }\n"
		"A k-ary n-tree (folded butterfly) of k^N hosts, numbered 0 .. k^N-1,\n"
		"and N stages of 2K-port switches; every link RATE (e.g. 1gbit, 40mbit;\n"
		"suffixes k, m, g, optionally followed by bit).  --cap is the most of a\n"
		"link that regulated traffic may take, in percent (default 70).  The\n"
		"tree, link and cap are given when FILE does not exist yet, and kept in\n"
		"it; given again, they must match.\n"
		"  add SRC DST RATE [ class N ]  reserve RATE from host SRC to host DST\n"
		"                                (class: the sender's edf class minor,\n"
		"                                default 1); prints the reservation's id\n"
		"                                and route, or fails (exit 3) if every\n"
		"                                route would pass the cap somewhere\n"
		"  add SRC DST frame LATENCY size BYTES every PERIOD [ charge { mean | peak } ]\n"
		"      [ class N ]               reserve a frame of up to BYTES (k, m: 1024s)\n"
		"                                every PERIOD, each through within LATENCY\n"
		"                                (ns, us, ms, s; 1us .. 10s; PERIOD at least\n"
		"                                LATENCY, at most 3600s): links are charged\n"
		"                                BYTES / PERIOD (charge mean, the default) or\n"
		"                                BYTES / LATENCY (charge peak: frames that\n"
		"                                coincide still fit); refused (exit 3) if\n"
		"                                BYTES / LATENCY alone passes the cap.  A class of a\n"
		"                                host holds rate reservations or frames of one\n"
		"                                LATENCY, not both (exit 1)\n"
		"  del ID                        remove a reservation, freeing its rate\n"
		"  show                          every reservation and its route, and the\n"
		"                                load of every link that carries some\n"
		"  routes HOST [ dev DEV ] [ mac MAC ]\n"
		"                                the routes HOST sends by, as fabric-route\n"
		"                                commands (fabric-route -b -): one per\n"
		"                                destination, from device DEV (eth0), host\n"
		"                                h's address MAC + h (02:fa:00:00:00:00)\n"
		"  classes HOST [ dev DEV ] [ mac MAC ]\n"
		"                                what HOST's edf (handle 1:) needs, as tc\n"
		"                                commands (tc -b -): each class at the sum\n"
		"                                of its reservations' rates (a frame class:\n"
		"                                edf frame LATENCY perflow on), and a filter\n"
		"                                per destination into the class of the\n"
		"                                oldest reservation to it\n"
		"-j prints JSON.  A route is the switches it crosses, each as\n"
		"stage/group/member and the output port taken (0 .. K-1 down, K .. 2K-1\n"
		"up), and the turnpool that says it in the fabric header's route field\n"
		"(fabric-send --route) to vcsw switches whose port indexes are those\n"
		"port numbers.\n");
}

static bool parse_host(const struct cac *c, const char *s, unsigned int *h)
{
	uint64_t v;

	if (!parse_u64(s, 10, c->t.hosts - 1, &v))
		return false;
	*h = (unsigned int)v;
	return true;
}

struct opts {
	bool		json;
	const char	*state;
	bool		have_tree;
	unsigned int	k, n;
	uint64_t	link_bps;
	unsigned int	cap_pct;
	bool		have_cap;
};

/* ---- the state file ---------------------------------------------------------- */

/* Word @s as parse_u64() takes it, an unsigned int of at most @max. */
static bool parse_uint(const char *s, unsigned int max, unsigned int *v)
{
	uint64_t x;

	if (!parse_u64(s, 10, max, &x))
		return false;
	*v = (unsigned int)x;
	return true;
}

/*
 * The state is read word by word, each number through parse_u64() at
 * most what its field holds: sscanf()'s %u wrapped past 2^32, so that
 * "resv 4294967297 ..." was reservation 1 and "tree 4294967298 2" a
 * 2-ary tree.  The ranges are cac_init()'s and cac_add_on()'s to check.
 */

/* Line 1: "fabric-cac 1 tree K N link BPS cap PCT" */
static bool parse_head(char *line, unsigned int *k, unsigned int *n, uint64_t *link,
		       unsigned int *cap)
{
	char *w[9];

	return split_words(line, " \t\n", w, 9) == 9 && !strcmp(w[0], "fabric-cac") &&
	       !strcmp(w[1], "1") && !strcmp(w[2], "tree") &&
	       parse_uint(w[3], UINT32_MAX, k) && parse_uint(w[4], UINT32_MAX, n) &&
	       !strcmp(w[5], "link") && parse_u64(w[6], 10, UINT64_MAX, link) &&
	       !strcmp(w[7], "cap") && parse_uint(w[8], 100, cap);
}

/*
 * Then one line per reservation: "resv ID SRC DST CLASS BPS CHOICE", and
 * for a frame reservation "frame LATENCY_NS BYTES PERIOD_NS" after it,
 * and "peak" after that if it is charged its peak (BPS then is its mean
 * or its peak, checked against the terms).  Into @r and @frame; false if
 * @line is not one.
 */
static bool parse_resv(char *line, struct cac_resv *r, bool *frame)
{
	unsigned int n;
	char *w[12];

	/* without its newline the line was cut short: its last number too */
	if (!strchr(line, '\n'))
		return false;
	n = split_words(line, " \t\n", w, 12);
	if ((n != 7 && n != 11 && n != 12) || strcmp(w[0], "resv") ||
	    (n > 7 && strcmp(w[7], "frame")) || (n == 12 && strcmp(w[11], "peak")))
		return false;
	memset(r, 0, sizeof(*r));
	*frame = n > 7;
	r->frame.charge = n == 12 ? CAC_CHARGE_PEAK : CAC_CHARGE_MEAN;
	return parse_uint(w[1], UINT32_MAX, &r->id) && r->id &&
	       parse_uint(w[2], UINT32_MAX, &r->src) &&
	       parse_uint(w[3], UINT32_MAX, &r->dst) &&
	       parse_uint(w[4], 0xffff, &r->cls) && r->cls &&
	       parse_u64(w[5], 10, UINT64_MAX, &r->rate_bps) &&
	       parse_uint(w[6], UINT32_MAX, &r->choice) &&
	       (!*frame || (parse_u64(w[8], 10, UINT64_MAX, &r->frame.latency_ns) &&
			    parse_u64(w[9], 10, UINT64_MAX, &r->frame.bytes) &&
			    parse_u64(w[10], 10, UINT64_MAX, &r->frame.period_ns)));
}

static int state_load(struct cac *c, struct opts *o)
{
	unsigned int k, n, cap, line = 1;
	struct cac_resv r, v;
	uint64_t link;
	char buf[256];
	bool frame;
	FILE *f;
	int err;

	f = fopen(o->state, "r");
	if (!f) {
		if (errno != ENOENT) {
			fprintf(stderr, PROG ": %s: %s\n", o->state, strerror(errno));
			return -1;
		}
		if (!o->have_tree || !o->link_bps) {
			fprintf(stderr, PROG ": %s does not exist yet: give --tree and --link\n",
				o->state);
			return -1;
		}
		if (cac_init(c, o->k, o->n, o->link_bps, o->cap_pct)) {
			fprintf(stderr, PROG ": no such tree: k 2 .. %d, n 1 .. %d, at most %d hosts\n",
				FT_MAX_K, FT_MAX_N, FT_MAX_HOSTS);
			return -1;
		}
		return 0;
	}
	if (!fgets(buf, sizeof(buf), f) || !parse_head(buf, &k, &n, &link, &cap) ||
	    cac_init(c, k, n, link, cap)) {
		fprintf(stderr, PROG ": %s:1: not a fabric-cac state\n", o->state);
		fclose(f);
		return -1;
	}
	if ((o->have_tree && (o->k != k || o->n != n)) ||
	    (o->link_bps && o->link_bps != link) ||
	    (o->have_cap && o->cap_pct != cap)) {
		fprintf(stderr, PROG ": %s holds tree %u,%u, link %" PRIu64
			", cap %u%%: options differ\n", o->state, k, n, link, cap);
		fclose(f);
		return -1;
	}
	while (fgets(buf, sizeof(buf), f)) {
		line++;
		if (!parse_resv(buf, &r, &frame)) {
			fprintf(stderr, PROG ": %s:%u: not a reservation\n", o->state, line);
			fclose(f);
			return -1;
		}
		if (frame) {
			err = cac_add_frame_on(c, r.id, r.src, r.dst, r.cls, &r.frame, r.choice,
					       &v);
			if (!err && v.rate_bps != r.rate_bps)
				err = CAC_EINVAL;
		} else {
			err = cac_add_on(c, r.id, r.src, r.dst, r.cls, r.rate_bps, r.choice,
					 NULL);
		}
		if (err) {
			fprintf(stderr, PROG ": %s:%u: reservation %u %s\n", o->state,
				line, r.id, err == CAC_EFULL ? "does not fit" :
				err == CAC_EROUTE ? "takes another route than its pair's first" :
				"is invalid");
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

/* Written whole to FILE.tmp, then renamed: never half a state. */
static int state_save(const struct cac *c, const char *path)
{
	char tmp[4096];
	unsigned int i;
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -1;
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, PROG ": %s: %s\n", tmp, strerror(errno));
		return -1;
	}
	fprintf(f, "fabric-cac 1 tree %u %u link %" PRIu64 " cap %u\n", c->t.k,
		c->t.n, c->link_bps, c->cap_pct);
	for (i = 0; i < c->nresv; i++) {
		const struct cac_resv *v = &c->resv[i];

		fprintf(f, "resv %u %u %u %u %" PRIu64 " %u", v->id, v->src, v->dst,
			v->cls, v->rate_bps, v->choice);
		if (v->frame.latency_ns)
			fprintf(f, " frame %" PRIu64 " %" PRIu64 " %" PRIu64 "%s",
				v->frame.latency_ns, v->frame.bytes, v->frame.period_ns,
				v->frame.charge == CAC_CHARGE_PEAK ? " peak" : "");
		fprintf(f, "\n");
	}
	if (fclose(f) || rename(tmp, path)) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- printing --------------------------------------------------------------- */

static void print_route(const struct cac *c, const struct cac_resv *v, bool json)
{
	const struct ft_tree *t = &c->t;
	unsigned int i, ports[FT_MAX_HOPS];
	struct ft_route r;
	fq_u32 turnpool;
	bool said;

	ft_route(t, v->src, v->dst, v->choice, &r);
	for (i = 0; i < r.nhops; i++)
		ports[i] = r.hop[i].out_port;
	/* a route of more than five switches has no turnpool: 0, "none" */
	said = fhc_route_build(ports, r.nhops, &turnpool);
	if (json) {
		printf("{\"id\":%u,\"src\":%u,\"dst\":%u,\"class\":%u,\"rate_bps\":%" PRIu64,
		       v->id, v->src, v->dst, v->cls, v->rate_bps);
		if (v->frame.latency_ns)
			printf(",\"frame\":{\"latency_ns\":%" PRIu64 ",\"bytes\":%" PRIu64
			       ",\"period_ns\":%" PRIu64 ",\"peak_bps\":%" PRIu64
			       ",\"charge\":\"%s\"}",
			       v->frame.latency_ns, v->frame.bytes, v->frame.period_ns,
			       cac_frame_peak_bps(&v->frame),
			       charge_names[v->frame.charge]);
		printf(",\"route\":[");
	} else if (v->frame.latency_ns) {
		char lat[32], per[32];

		printf("resv %u: %u -> %u class %u frame %s size %" PRIu64 " every %s (%s %"
		       PRIu64 " bit/s) route", v->id, v->src, v->dst, v->cls,
		       fmt_time_ns(v->frame.latency_ns, lat, sizeof(lat)), v->frame.bytes,
		       fmt_time_ns(v->frame.period_ns, per, sizeof(per)),
		       charge_names[v->frame.charge], v->rate_bps);
	} else {
		printf("resv %u: %u -> %u class %u rate %" PRIu64 " bit/s route",
		       v->id, v->src, v->dst, v->cls, v->rate_bps);
	}
	for (i = 0; i < r.nhops; i++) {
		unsigned int idx = r.hop[i].sw % t->per_stage;
		unsigned int s = r.hop[i].stage;
		unsigned int g = idx / t->pow[s], m = idx % t->pow[s];

		if (json)
			printf("%s{\"stage\":%u,\"group\":%u,\"member\":%u,\"port\":%u}",
			       i ? "," : "", s, g, m, r.hop[i].out_port);
		else
			printf(" %u/%u/%u:%u", s, g, m, r.hop[i].out_port);
	}
	if (json)
		printf("],\"turnpool\":%" PRIu32 "}", said ? turnpool : 0);
	else if (said)
		printf(" turnpool 0x%" PRIx32 "\n", turnpool);
	else
		printf(" turnpool none\n");
}

static void show(const struct cac *c, bool json)
{
	const struct ft_tree *t = &c->t;
	unsigned int i, first = 1;

	if (json)
		printf("{\"tree\":{\"k\":%u,\"n\":%u,\"hosts\":%u},\"link_bps\":%" PRIu64
		       ",\"cap_pct\":%u,\"reservations\":[", t->k, t->n, t->hosts,
		       c->link_bps, c->cap_pct);
	else
		printf("tree %u-ary %u-tree: %u hosts, %u switches; link %" PRIu64
		       " bit/s, cap %u %%\n", t->k, t->n, t->hosts, ft_switches(t),
		       c->link_bps, c->cap_pct);
	for (i = 0; i < c->nresv; i++) {
		if (json && i)
			printf(",");
		print_route(c, &c->resv[i], json);
	}
	printf(json ? "],\"links\":[" : "");
	for (i = 0; i < ft_links(t); i++) {
		uint64_t l = c->load_bps[i];
		unsigned int sw, port, s, idx;

		if (!l)
			continue;
		if (i < t->hosts) {
			if (json)
				printf("%s{\"host\":%u,\"load_bps\":%" PRIu64 "}",
				       first ? "" : ",", i, l);
			else
				printf("link host %u up: %" PRIu64 " bit/s (%.1f %%)\n",
				       i, l, 100.0 * l / c->link_bps);
		} else {
			sw = (i - t->hosts) / (2 * t->k);
			port = (i - t->hosts) % (2 * t->k);
			s = sw / t->per_stage;
			idx = sw % t->per_stage;
			if (json)
				printf("%s{\"stage\":%u,\"group\":%u,\"member\":%u,\"port\":%u,\"load_bps\":%" PRIu64 "}",
				       first ? "" : ",", s, idx / t->pow[s],
				       idx % t->pow[s], port, l);
			else
				printf("link %u/%u/%u:%u: %" PRIu64 " bit/s (%.1f %%)\n",
				       s, idx / t->pow[s], idx % t->pow[s], port, l,
				       100.0 * l / c->link_bps);
		}
		first = 0;
	}
	printf(json ? "]}\n" : "");
}

/* The reservation @i of @src is the first (the oldest) to its destination. */
static bool first_to_dst(const struct cac *c, unsigned int i)
{
	unsigned int j;

	for (j = 0; j < i; j++)
		if (c->resv[j].src == c->resv[i].src &&
		    c->resv[j].dst == c->resv[i].dst)
			return false;
	return true;
}

/*
 * The routes host @src sends by: one per destination (a host's table
 * has one route to each; of several reservations to one destination the
 * first, the oldest, gives it), as fabric-route commands or JSON.
 */
static int print_host_routes(const struct cac *c, unsigned int src,
			     const char *dev, const uint8_t *base, bool json)
{
	unsigned int i, k, n = 0, ports[FT_MAX_HOPS];
	char mac[18], list[FT_MAX_HOPS * 4];
	struct ft_route r;
	fq_u32 turnpool;

	if (json)
		printf("[");
	for (i = 0; i < c->nresv; i++) {
		const struct cac_resv *v = &c->resv[i];
		size_t off = 0;

		if (v->src != src)
			continue;
		if (!first_to_dst(c, i))
			continue;
		ft_route(&c->t, v->src, v->dst, v->choice, &r);
		for (k = 0; k < r.nhops; k++) {
			ports[k] = r.hop[k].out_port;
			off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%u",
						k ? "," : "", ports[k]);
		}
		if (!fhc_route_build(ports, r.nhops, &turnpool)) {
			fprintf(stderr, PROG ": routes: %u -> %u crosses %u switches, more than a route holds\n",
				v->src, v->dst, r.nhops);
			return -1;
		}
		ft_host_mac(base, v->dst, mac, sizeof(mac));
		if (json)
			printf("%s{\"dev\":\"%s\",\"to\":\"%s\",\"dst\":%u,\"ports\":[%s],\"turnpool\":%" PRIu32 "}",
			       n ? "," : "", dev, mac, v->dst, list, turnpool);
		else
			printf("replace dev %s to %s ports %s\n", dev, mac, list);
		n++;
	}
	if (json)
		printf("]\n");
	return 0;
}

/*
 * What host @src's edf needs for its reservations, as tc -batch commands
 * or JSON: each class it names, at the sum of its reservations' rates
 * for the class as a whole (perflow off: the reservation is the class's,
 * not each flow's), or a frame class at its latency (perflow on: two
 * streams' frames due at once must not queue behind each other's
 * deadlines), and a flower filter per destination sending the traffic
 * to that host into the class of the oldest reservation to it.
 */
static void print_host_classes(const struct cac *c, unsigned int src,
			       const char *dev, const uint8_t *base, bool json)
{
	unsigned int i, j, n = 0;
	char mac[18], lat[32];
	uint64_t sum;

	printf(json ? "{\"classes\":[" : "");
	for (i = 0; i < c->nresv; i++) {
		const struct cac_resv *v = &c->resv[i];

		if (v->src != src)
			continue;
		/* a class once, at its first reservation */
		for (j = 0; j < i; j++)
			if (c->resv[j].src == src && c->resv[j].cls == v->cls)
				break;
		if (j < i)
			continue;
		sum = 0;
		for (j = i; j < c->nresv; j++)
			if (c->resv[j].src == src && c->resv[j].cls == v->cls)
				sum += c->resv[j].rate_bps;
		if (json && v->frame.latency_ns)
			printf("%s{\"dev\":\"%s\",\"classid\":\"1:%x\",\"mode\":\"frame\",\"latency_ns\":%"
			       PRIu64 ",\"rate_bps\":%" PRIu64 "}", n++ ? "," : "", dev,
			       v->cls, v->frame.latency_ns, sum);
		else if (json)
			printf("%s{\"dev\":\"%s\",\"classid\":\"1:%x\",\"mode\":\"rate\",\"rate_bps\":%" PRIu64 "}",
			       n++ ? "," : "", dev, v->cls, sum);
		else if (v->frame.latency_ns)
			/* each stream its own chain of frame deadlines */
			printf("class replace dev %s parent 1: classid 1:%x edf frame %s perflow on\n",
			       dev, v->cls, fmt_time_ns(v->frame.latency_ns, lat, sizeof(lat)));
		else
			printf("class replace dev %s parent 1: classid 1:%x edf rate %" PRIu64 "bit perflow off\n",
			       dev, v->cls, sum);
	}
	printf(json ? "],\"filters\":[" : "");
	n = 0;
	for (i = 0; i < c->nresv; i++) {
		const struct cac_resv *v = &c->resv[i];

		if (v->src != src || !first_to_dst(c, i))
			continue;
		ft_host_mac(base, v->dst, mac, sizeof(mac));
		/* the handle names the destination: replace finds it again */
		if (json)
			printf("%s{\"dev\":\"%s\",\"to\":\"%s\",\"dst\":%u,\"classid\":\"1:%x\"}",
			       n++ ? "," : "", dev, mac, v->dst, v->cls);
		else
			printf("filter replace dev %s parent 1: protocol all pref 1 handle %u flower dst_mac %s classid 1:%x\n",
			       dev, v->dst + 1, mac, v->cls);
	}
	printf(json ? "]}\n" : "");
}

/* ---- main ------------------------------------------------------------------------ */

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "state", required_argument, NULL, 's' },
		{ "tree", required_argument, NULL, 't' },
		{ "link", required_argument, NULL, 'l' },
		{ "cap", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int ch;

	memset(o, 0, sizeof(*o));
	o->cap_pct = 70;
	while ((ch = getopt_long(argc, argv, "+jh", lo, NULL)) != -1) {
		switch (ch) {
		case 's':
			o->state = optarg;
			break;
		case 't':
			/* K and N in range: cac_init()'s to say, or the state's */
			if (!parse_uint_pair(optarg, ',', UINT32_MAX, UINT32_MAX, &o->k,
					     &o->n)) {
				fprintf(stderr, PROG ": --tree: want K,N, e.g. 4,2\n");
				return -1;
			}
			o->have_tree = true;
			break;
		case 'l':
			if (!parse_rate_bps(optarg, &o->link_bps)) {
				fprintf(stderr, PROG ": --link: want a rate 1 .. 1000gbit, e.g. 40mbit\n");
				return -1;
			}
			break;
		case 'c':
			if (!parse_u64(optarg, 10, 100, &v) || !v) {
				fprintf(stderr, PROG ": --cap: want a percentage 1 .. 100\n");
				return -1;
			}
			o->cap_pct = (unsigned int)v;
			o->have_cap = true;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (!o->state) {
		fprintf(stderr, PROG ": --state FILE is required\n");
		return -1;
	}
	return 0;
}

/*
 * What follows add's terms: "class N" and, for a frame, "charge mean" or
 * "charge peak", each at most once, in either order.
 */
static int parse_add_options(int argc, char **argv, bool frame, uint64_t *cls,
			     enum cac_charge *charge)
{
	bool have_class = false, have_charge = false;
	int i;

	for (i = 0; i < argc; i += 2) {
		if (!strcmp(argv[i], "class") && !have_class) {
			have_class = true;
			if (i + 1 < argc && parse_u64(argv[i + 1], 0, 0xffff, cls) && *cls)
				continue;
			fprintf(stderr, PROG ": add: want \"class N\", N 1 .. 0xffff\n");
			return -1;
		}
		if (frame && !strcmp(argv[i], "charge") && !have_charge) {
			have_charge = true;
			if (i + 1 < argc && !strcmp(argv[i + 1], "mean")) {
				*charge = CAC_CHARGE_MEAN;
				continue;
			}
			if (i + 1 < argc && !strcmp(argv[i + 1], "peak")) {
				*charge = CAC_CHARGE_PEAK;
				continue;
			}
			fprintf(stderr, PROG ": add: want \"charge mean\" or \"charge peak\"\n");
			return -1;
		}
		fprintf(stderr, PROG ": add: after the terms, want%s \"class N\", each once; not \"%s\"\n",
			frame ? " \"charge mean|peak\" and" : "", argv[i]);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct cac_frame fr = { 0 };
	struct cac_resv v;
	struct opts o;
	struct cac c;
	uint64_t rate, id, cls = 1;
	unsigned int src, dst;
	int err, rc = 1;

	if (parse_opts(argc, argv, &o) || optind >= argc)
		return optind >= argc ? (usage(stderr), 1) : 1;
	if (state_load(&c, &o))
		return 1;
	argv += optind;
	argc -= optind;
	if (!strcmp(argv[0], "show") && argc == 1) {
		show(&c, o.json);
		rc = 0;
	} else if (!strcmp(argv[0], "add") && argc >= 4) {
		bool frame = !strcmp(argv[3], "frame");
		int terms = frame ? 9 : 4;	/* words before the options */

		if (!parse_host(&c, argv[1], &src) || !parse_host(&c, argv[2], &dst) ||
		    src == dst) {
			fprintf(stderr, PROG ": add: hosts are 0 .. %u, two different ones\n",
				c.t.hosts - 1);
			goto out;
		}
		if (frame && (argc < 9 ||
			      !parse_time_ns(argv[4], CAC_FRAME_MIN_NS, CAC_FRAME_MAX_NS, &fr.latency_ns) ||
			      strcmp(argv[5], "size") ||
			      !parse_size_bytes(argv[6], 1, CAC_FRAME_MAX_BYTES, &fr.bytes) ||
			      strcmp(argv[7], "every") ||
			      !parse_time_ns(argv[8], fr.latency_ns, CAC_PERIOD_MAX_NS,
					     &fr.period_ns))) {
			fprintf(stderr, PROG ": add: want \"frame LATENCY size BYTES every PERIOD\": LATENCY 1us .. 10s, BYTES 1 .. 1024m, PERIOD LATENCY .. 3600s (e.g. frame 20ms size 250k every 40ms)\n");
			goto out;
		}
		if (!frame && !parse_rate_bps(argv[3], &rate)) {
			fprintf(stderr, PROG ": add: want a rate, e.g. 10mbit, or \"frame ...\"\n");
			goto out;
		}
		if (parse_add_options(argc - terms, argv + terms, frame, &cls,
				      &fr.charge))
			goto out;
		err = frame ? cac_add_frame(&c, 0, src, dst, (unsigned int)cls, &fr, &v) :
			      cac_add(&c, 0, src, dst, (unsigned int)cls, rate, &v);
		if (err == CAC_EFULL || err == CAC_EPEAK) {
			unsigned int pair;

			if (err == CAC_EFULL && cac_pair_route(&c, src, dst, &pair))
				fprintf(stderr, PROG ": refused: the route of the reservations from %u to %u (choice %u, the one %u sends to %u by) would load a link past %u %% of %" PRIu64 " bit/s\n",
					src, dst, pair, src, dst, c.cap_pct, c.link_bps);
			else if (err == CAC_EFULL)
				fprintf(stderr, PROG ": refused: every route from %u to %u would load a link past %u %% of %" PRIu64 " bit/s\n",
					src, dst, c.cap_pct, c.link_bps);
			else
				fprintf(stderr, PROG ": refused: a frame of %" PRIu64 " bytes within its latency takes %" PRIu64 " bit/s, past %u %% of a link's %" PRIu64 " bit/s\n",
					fr.bytes, cac_frame_peak_bps(&fr), c.cap_pct, c.link_bps);
			rc = 3;
			goto out;
		}
		if (err == CAC_ECLASS) {
			fprintf(stderr, PROG ": add: host %u's class %" PRIu64 " holds %s; give another class\n",
				src, cls, frame ? "rate reservations or frames of another latency" :
						  "frame reservations");
			goto out;
		}
		if (err || state_save(&c, o.state))
			goto out;
		print_route(&c, &v, o.json);
		if (o.json)
			printf("\n");
		rc = 0;
	} else if ((!strcmp(argv[0], "routes") || !strcmp(argv[0], "classes")) &&
		   argc >= 2 && argc % 2 == 0) {
		uint8_t base[6] = FT_MAC_BASE;
		const char *dev = "eth0";
		unsigned int i;

		if (!parse_host(&c, argv[1], &src)) {
			fprintf(stderr, PROG ": %s: hosts are 0 .. %u\n", argv[0],
				c.t.hosts - 1);
			goto out;
		}
		for (i = 2; i < (unsigned int)argc; i += 2) {
			if (!strcmp(argv[i], "dev") && *argv[i + 1] &&
			    strlen(argv[i + 1]) < 16 && !strpbrk(argv[i + 1], " \t\n/")) {
				dev = argv[i + 1];
			} else if (!strcmp(argv[i], "mac") &&
				   ft_parse_mac_base(&c.t, argv[i + 1], base)) {
			} else {
				fprintf(stderr, PROG ": %s: want \"dev DEV\" or \"mac MAC\" (unicast, room for every host in its low three bytes), got \"%s %s\"\n",
					argv[0], argv[i], argv[i + 1]);
				goto out;
			}
		}
		if (!strcmp(argv[0], "classes"))
			print_host_classes(&c, src, dev, base, o.json);
		else if (print_host_routes(&c, src, dev, base, o.json))
			goto out;
		rc = 0;
	} else if (!strcmp(argv[0], "del") && argc == 2) {
		if (!parse_u64(argv[1], 10, UINT32_MAX, &id) ||
		    cac_remove(&c, (unsigned int)id)) {
			fprintf(stderr, PROG ": del: no reservation %s\n", argv[1]);
			goto out;
		}
		if (state_save(&c, o.state))
			goto out;
		rc = 0;
	} else {
		fprintf(stderr, PROG ": what is \"%s\"?\n", argv[0]);
		usage(stderr);
	}
out:
	cac_free(&c);
	return rc;
}
