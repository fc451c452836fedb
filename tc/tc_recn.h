/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tc_recn.h	RECN at a host (Documentation/recn.rst, "Hosts"): the ranges
 * of the options that set it up, and the statistics a qdisc with "recn on"
 * prints under "recn:" (struct tc_fabric_recn_xstats).  Static inline, as
 * tc_credits.h, so each plugin stays one .so.
 */
#ifndef FABRIC_QOS_TC_RECN_H
#define FABRIC_QOS_TC_RECN_H

#include <inttypes.h>

#include <linux/fabric_hdr.h>

#include "tc_abi.h"
#include "../kernel/core/recn_core.h"

/*
 * The ranges of the kernel's policy (sch_edf_config.c), checked in the plugin
 * too so that a bad value is named with its option; that recn_idle is at
 * least a quarter of recn_lease the kernel checks, as it knows the lease
 * a change keeps.
 */
#define TC_RECN_SAQS_MAX	RECN_SAQ_MAX
#define TC_RECN_LEASE_MIN	4000ULL			/* 4 us */
#define TC_RECN_LEASE_MAX	10000000000ULL		/* 10 s */
#define TC_RECN_IDLE_MIN	1000000ULL		/* 1 ms */
#define TC_RECN_IDLE_MAX	60000000000ULL		/* 60 s */

static inline void tc_recn_print_counter(const char *key, __u64 v)
{
	print_color_string(PRINT_FP, COLOR_NONE, NULL, " %s ", key);
	print_color_u64(PRINT_ANY, COLOR_NONE, key, "%" PRIu64, v);
}

/*
 * Two lines " recn: ..." and a JSON object "recn", when RECN is on (a
 * kernel whose statistics end before them, or RECN off, prints nothing).
 * @held_flows and @held are the qdisc's: the flows it holds back now for
 * a stopped SAQ, and the times it held one; the rest is the link's.
 */
static inline void tc_recn_print_xstats(const struct tc_fabric_recn_xstats *st,
					__u32 held_flows, __u64 held)
{
	if (!st->nsaq)
		return;
	print_nl();
	print_color_string(PRINT_FP, COLOR_NONE, NULL, " recn:", NULL);
	open_json_object("recn");
	/* nsaq is per VC; saqs counts those in use on both of RECN's VCs */
	tc_recn_print_counter("nsaq", st->nsaq);
	tc_recn_print_counter("saqs", st->saqs);
	tc_recn_print_counter("held_flows", held_flows);
	tc_recn_print_counter("held", held);
	tc_recn_print_counter("frames_rx", st->frames_rx);
	tc_recn_print_counter("frames_refused", st->frames_refused);
	tc_recn_print_counter("frames_tx", st->frames_tx);
	tc_recn_print_counter("msgs_dropped", st->msgs_dropped);
	print_nl();
	print_color_string(PRINT_FP, COLOR_NONE, NULL, " ", NULL);
	tc_recn_print_counter("notify_rx", st->notify_rx);
	tc_recn_print_counter("xoff_rx", st->xoff_rx);
	tc_recn_print_counter("xon_rx", st->xon_rx);
	tc_recn_print_counter("release_tx", st->release_tx);
	tc_recn_print_counter("full_tx", st->full_tx);
	tc_recn_print_counter("saq_alloc", st->saq_alloc);
	tc_recn_print_counter("saq_idle_free", st->saq_idle_free);
	tc_recn_print_counter("lease_expired", st->lease_expired);
	tc_recn_print_counter("stale_rx", st->stale_rx);
	tc_recn_print_counter("bad_rx", st->bad_rx);
	close_json_object();
}

#endif
