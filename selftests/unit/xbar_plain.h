/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The crossbar's rule in its plain form, for the unit tests to check
 * kernel/core/vcsw_xbar.h against: for each output in turn from the
 * cursor, for each VC in order, every input asked in turn from the
 * output's round-robin position; round robin takes the first head that
 * goes there, the deadline architectures the smallest deadline (the
 * first in turn on a tie); only the chosen head is checked for room.
 * vcsw_xbar_step() asks only the inputs with frames and only for the
 * outputs their heads go to, as the run's look (struct vcsw_xbar_look)
 * has them, and must choose the same.
 */
#ifndef FQ_TEST_XBAR_PLAIN_H
#define FQ_TEST_XBAR_PLAIN_H

#include "core/vcsw_xbar.h"

static int xbar_plain_pick(struct vcsw_xport *const *ports, unsigned int n,
			   unsigned int o, unsigned int vc, unsigned int arch,
			   fq_u64 now)
{
	struct vcsw_xport *out = ports[o];
	struct vcsw_node *best = NULL;
	unsigned int k, i, first = out->rr[vc] % n;
	int chosen = -1;

	for (k = 0; k < n; k++) {
		struct vcsw_node *h;

		i = (first + k) % n;
		h = vcsw_vc_pick_for(&ports[i]->in[vc], (fq_u16)o);
		if (!h || h->out != o)
			continue;
		if (!best || (!vcsw_arch_round_robin(arch) &&
			      h->deadline < best->deadline)) {
			best = h;
			chosen = (int)i;
		}
		if (vcsw_arch_round_robin(arch))
			break;
	}
	if (!best || !vcsw_vc_has_room(&out->out.vc[vc], best->len))
		return -1;
	if (out->wormhole &&
	    (vcsw_port_qlen(&out->out) || !vcsw_port_link_ready(&out->out, now)))
		return -1;
	return chosen;
}

/* The output (*@o) and input (*@in) of the next move, or false: none. */
static bool xbar_plain_step(struct vcsw_xport *const *ports, unsigned int n,
			    unsigned int arch, fq_u64 now, unsigned int cursor,
			    unsigned int *o, int *in)
{
	unsigned int k, vc;

	for (k = 0; k < n; k++) {
		*o = (cursor + k) % n;
		for (vc = 0; vc < ports[*o]->out.vcs; vc++) {
			*in = xbar_plain_pick(ports, n, *o, vc, arch, now);
			if (*in >= 0)
				return true;
		}
	}
	return false;
}

/*
 * vcsw_xbar_step() with the run's @look checked against the plain rule:
 * the frame moved, or NULL; on a disagreement, *@bad is set and nothing
 * more is moved.
 */
static struct vcsw_node *xbar_checked_step(struct vcsw_xport *const *ports,
					   unsigned int n, unsigned int arch,
					   fq_u64 now, unsigned int *cursor,
					   struct vcsw_xbar_look *look,
					   bool *bad)
{
	unsigned int o = 0, from = 0;
	struct vcsw_node *m;
	int in = -1;
	bool want;

	want = n && xbar_plain_step(ports, n, arch, now, *cursor % n, &o, &in);
	m = vcsw_xbar_step(ports, n, arch, now, cursor, &from, look);
	if (!want != !m || (m && (m->out != o || (int)from != in))) {
		printf("# crossbar, %s, %u ports: moved %s (in %u, out %u), the plain rule %s (in %d, out %u)\n",
		       vcsw_arch_name(arch), n, m ? "one" : "none", from,
		       m ? m->out : 0, want ? "one" : "none", in, o);
		*bad = true;
		return NULL;
	}
	return m;
}

#endif /* FQ_TEST_XBAR_PLAIN_H */
