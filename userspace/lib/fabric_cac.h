/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Central admission control for regulated traffic on a k-ary n-tree, as
 * the EDF paper's network runs it (section 4.1): each reservation (a
 * source, a destination, a rate) gets one fixed route, the least
 * occupied of its minimal up*-down* routes (or, when the pair already
 * holds reservations, theirs), and is refused if on that
 * route some link's regulated load would pass the cap (70 % of the link
 * by default).  Reservations come and go one at a time; removing one
 * gives its rate back on every link of its route.
 *
 * "Least occupied" compares routes by the load of their most loaded
 * link once the reservation is added, then by the sum over their links,
 * then by choice number, so the answer is the same wherever it runs.
 */
#ifndef FQ_FABRIC_CAC_H
#define FQ_FABRIC_CAC_H

#include <stdbool.h>
#include <stdint.h>

#include "fabric_tree.h"

/*
 * A frame reservation: a frame of up to @bytes every @period_ns, each to
 * be through within @latency_ns (the sender's edf "frame LATENCY"
 * class).  Its links are charged the mean rate, bytes / period, as the
 * paper charges its multimedia connections (frames that coincide then
 * borrow room, and may be late), or with CAC_CHARGE_PEAK the rate while
 * a frame is sent, bytes / latency, so that frames that all coincide
 * still fit under the cap.  That peak must fit under the cap on its own
 * in either case, or no frame could ever make its latency.  A period shorter than the latency is
 * refused: edf's frame deadlines follow on from the previous frame's, so
 * the frames would fall further behind with every one.
 */
enum cac_charge {
	CAC_CHARGE_MEAN = 0,	/* bytes / period: the paper's average */
	CAC_CHARGE_PEAK,	/* bytes / latency: frames never late for the link */
};

struct cac_frame {
	uint64_t	latency_ns;	/* CAC_FRAME_MIN_NS .. CAC_FRAME_MAX_NS */
	uint64_t	period_ns;	/* latency_ns .. CAC_PERIOD_MAX_NS */
	uint64_t	bytes;		/* 1 .. CAC_FRAME_MAX_BYTES */
	enum cac_charge	charge;		/* what its links are charged */
};

#define CAC_FRAME_MIN_NS	1000ULL			/* edf's range */
#define CAC_FRAME_MAX_NS	10000000000ULL
#define CAC_PERIOD_MAX_NS	3600000000000ULL	/* an hour */
#define CAC_FRAME_MAX_BYTES	(1ULL << 30)

struct cac_resv {
	unsigned int	id;		/* 1 .. ; 0: a free slot */
	unsigned int	src, dst;
	unsigned int	cls;		/* the host's edf class, for its config */
	uint64_t	rate_bps;	/* charged: the rate, or a frame's mean */
	struct cac_frame frame;		/* latency_ns 0: a rate reservation */
	unsigned int	choice;		/* which route (ft_route()) */
};

struct cac {
	struct ft_tree	t;
	uint64_t	link_bps;	/* every link's rate */
	unsigned int	cap_pct;	/* 1 .. 100 */
	uint64_t	*load_bps;	/* per link (ft_links()) */
	struct cac_resv	*resv;
	unsigned int	nresv, maxresv;
	unsigned int	next_id;
};

enum cac_err {
	CAC_OK = 0,
	CAC_EINVAL = -1,	/* a host out of range, src == dst, rate 0 */
	CAC_EFULL = -2,		/* every route would pass the cap somewhere */
	CAC_ENOMEM = -3,
	CAC_ENOENT = -4,	/* no reservation of that id */
	CAC_EPEAK = -5,		/* a frame's rate over its latency passes the cap */
	CAC_ECLASS = -6,	/* the host's class is of another kind or latency */
	CAC_EROUTE = -7,	/* the pair's reservations take another route */
};

int cac_init(struct cac *c, unsigned int k, unsigned int n, uint64_t link_bps,
	     unsigned int cap_pct);
void cac_free(struct cac *c);

/*
 * Admit @rate_bps from @src to @dst: CAC_OK and *@out (its id and route)
 * or an error, with nothing changed.  @id 0 takes the next id; else
 * that id (a state file read back), which must be unused.
 */
int cac_add(struct cac *c, unsigned int id, unsigned int src, unsigned int dst,
	    unsigned int cls, uint64_t rate_bps, struct cac_resv *out);

/*
 * A host keeps one route per destination (fabric-route), so all of a
 * pair's reservations take one route, the first's: cac_add() admits a
 * pair that holds reservations on that route or not at all, and
 * cac_add_on() refuses another route with CAC_EROUTE.  True and
 * *@choice if @src to @dst holds a reservation.
 */
bool cac_pair_route(const struct cac *c, unsigned int src, unsigned int dst,
		    unsigned int *choice);

/* Like cac_add(), but on the route @choice given, as long as it fits. */
int cac_add_on(struct cac *c, unsigned int id, unsigned int src,
	       unsigned int dst, unsigned int cls, uint64_t rate_bps,
	       unsigned int choice, struct cac_resv *out);

/*
 * cac_add() and cac_add_on() for a frame reservation (struct cac_frame):
 * CAC_EINVAL for terms out of range, CAC_EPEAK, and CAC_ECLASS when
 * @src's class @cls already holds rate reservations or frames of another
 * latency (the class has one mode and one latency; rate reservations in
 * a frame class are refused the same way).
 */
int cac_add_frame(struct cac *c, unsigned int id, unsigned int src,
		  unsigned int dst, unsigned int cls, const struct cac_frame *f,
		  struct cac_resv *out);
int cac_add_frame_on(struct cac *c, unsigned int id, unsigned int src,
		     unsigned int dst, unsigned int cls, const struct cac_frame *f,
		     unsigned int choice, struct cac_resv *out);

/*
 * A frame's mean rate (bytes / period), its rate within its latency, and
 * of the two the one its charge names.
 */
uint64_t cac_frame_mean_bps(const struct cac_frame *f);
uint64_t cac_frame_peak_bps(const struct cac_frame *f);
uint64_t cac_frame_charged_bps(const struct cac_frame *f);

int cac_remove(struct cac *c, unsigned int id);

/* The cap in bits/s of one link. */
uint64_t cac_cap_bps(const struct cac *c);

#endif /* FQ_FABRIC_CAC_H */
