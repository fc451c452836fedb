// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-meter: per-class results, shared by the receiver and the
 * round-trip sender: packets and messages counted and timed per flow of
 * a class, and what the flows' end marks say.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fabric-meter.h"

#define MAX_KEEP		1000000		/* kept samples per statistic */

void result_init(struct result *r, int cls)
{
	memset(r, 0, sizeof(*r));
	snprintf(r->name, sizeof(r->name), "class%d", cls);
	r->kind = -1;
	ls_init(&r->pkt, MAX_KEEP, 0);
	ls_init(&r->msg, MAX_KEEP, 0);
}

/*
 * Deadline misses and messages in the window, from the kept message
 * latencies: the receiver learns a class's target only from its end mark,
 * after the samples.  All samples are kept up to MAX_KEEP per class;
 * past that these are the fractions of a uniform pick.
 */
double result_miss_ratio(const struct result *r)
{
	return r->msg.n ? 1.0 - ls_cdf_at(&r->msg, r->target_ns) : 0.0;
}

double result_in_window(const struct result *r)
{
	int64_t lo = (int64_t)llround(r->target_ns * (1.0 - r->window));
	int64_t hi = (int64_t)llround(r->target_ns * (1.0 + r->window));

	return r->msg.n ? ls_cdf_at(&r->msg, hi) - ls_cdf_at(&r->msg, lo - 1) : 0.0;
}

static struct rflow *result_flow(struct result *r, unsigned int flow)
{
	if (!r->fl)
		r->fl = xcalloc(MAX_FLOWS, sizeof(*r->fl));
	return &r->fl[flow];
}

static void result_close_msg(struct result *r, struct rflow *f)
{
	if (!f->cur_valid)
		return;
	if (f->cur_got < f->cur_parts)
		r->msgs_incomplete++;
	f->cur_valid = false;
}

/* An end mark of one flow. */
void result_fin(struct result *r, unsigned int flow, const struct fm_fin *fin)
{
	struct rflow *f = result_flow(r, flow);
	unsigned int i, n = 0;

	if (f->have_fin)
		return;
	f->have_fin = true;
	f->seen = true;
	f->fin = *fin;
	for (i = 0; i < MAX_FLOWS; i++)
		n += r->fl[i].have_fin;
	r->have_fin = n >= fin->nflows;
}

/* One DATA datagram: latency = @rx - send (packet), @rx - gen (message). */
void result_add(struct result *r, const struct fm_hdr *h, size_t len,
		int64_t rx, double window)
{
	struct rflow *f = result_flow(r, h->flow);
	int64_t lat;

	if (!r->seen) {
		r->seen = true;
		r->first_rx = rx;
	}
	f->seen = true;
	if (h->seq < f->next_seq) {
		/* older than the newest: reordered, or a duplicate */
		r->reordered++;
	} else {
		f->next_seq = (uint64_t)h->seq + 1;
	}
	r->packets++;
	r->bytes += len;
	r->last_rx = rx;
	ls_add(&r->pkt, rx - (int64_t)h->send_ns);

	if (f->cur_valid && f->cur_msg != h->msg) {
		if ((int32_t)(h->msg - f->cur_msg) < 0) {
			r->late_old++;	/* a part of an earlier message */
			return;
		}
		result_close_msg(r, f);
	}
	if (!f->cur_valid) {
		f->cur_valid = true;
		f->cur_msg = h->msg;
		f->cur_got = 0;
		f->cur_parts = h->parts ? h->parts : 1;
		f->cur_gen = h->gen_ns;
	}
	if (++f->cur_got == f->cur_parts) {
		lat = rx - (int64_t)f->cur_gen;
		ls_add(&r->msg, lat);
		r->window = window;
		f->cur_valid = false;
	}
}

/* Per flow: its end mark's count, else its highest sequence number + 1. */
uint64_t result_sent(const struct result *r)
{
	uint64_t n = 0;
	int i;

	if (!r->fl)
		return 0;
	for (i = 0; i < MAX_FLOWS; i++)
		n += r->fl[i].have_fin ? r->fl[i].fin.sent_pkts : r->fl[i].next_seq;
	return n;
}

uint64_t result_lost(const struct result *r)
{
	uint64_t sent = result_sent(r);

	return sent > r->packets ? sent - r->packets : 0;
}

double result_tput(const struct result *r)
{
	int64_t span = r->last_rx - r->first_rx;

	return span > 0 ? r->bytes * 8e9 / (double)span : 0;
}

const char *result_kind(const struct result *r)
{
	return r->kind >= 0 ? tm_kind_name(r->kind) : "unknown";
}

/*
 * Results take names, kinds and targets from the sender's end marks, and
 * add up their counts.
 */
void apply_fins(struct result *res)
{
	struct fm_fin *sum;
	int i, j;

	for (i = 0; i < MAX_CLASSES; i++) {
		struct result *r = &res[i];
		bool named = false;

		if (!r->fl)
			continue;
		sum = &r->fin;
		for (j = 0; j < MAX_FLOWS; j++) {
			struct rflow *f = &r->fl[j];

			result_close_msg(r, f);
			if (!f->have_fin)
				continue;
			if (!named && f->fin.name[0]) {
				snprintf(r->name, sizeof(r->name), "%s", f->fin.name);
				r->kind = f->fin.kind;
				r->target_ns = f->fin.target_ns;
				named = true;
			}
			sum->sent_pkts += f->fin.sent_pkts;
			sum->sent_msgs += f->fin.sent_msgs;
			sum->sent_bytes += f->fin.sent_bytes;
			sum->src_drops += f->fin.src_drops;
		}
	}
}
