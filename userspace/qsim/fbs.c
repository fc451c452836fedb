// SPDX-License-Identifier: GPL-2.0
/*
 * qsim fbs: N nodes execute a cyclic FBS slot schedule on one crossbar
 * switch, each on a clock of its own drift, with or without feedback
 * (paper: fm-qos-feedback-based-synchronization).  Each node is the
 * portable executor of kernel/core/fbs_exec.h; the switch is the part
 * simulated here: a destination's output carries one frame at a time, so
 * a frame that finds the output still busy with the previous frame to
 * that destination waits (wormhole back-pressure), and, with feedback,
 * so does its sender, which starts its next slot late.
 *
 * Verification as the paper's prototype: each frame carries its slot and
 * sender, and the receiver, executing the same schedule, counts a frame
 * whose middle arrives outside its own window for that slot (the paper's
 * Eq. 1: skew under half a slot with full-size frames).
 *
 *   qsim fbs --all-to-all 8 --empty 832 --drift-ppm 300 [--periods K] [--json]
 *   qsim fbs --all-to-all 8 --drift-ppm 300 --find-max
 *
 * --drift-ppm P makes node 0's clock P ppm slow, the others exact: the
 * worst case, since a node ahead is held back by feedback but a node
 * behind cannot be hurried, and its frames arrive late.  --drifts gives
 * each node's drift (ppm, positive: fast).  Deterministic: no randomness.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "core/fbs_exec.h"
#include "fbs_text.h"
#include "qsim.h"

struct fbs_result {
	uint64_t frames;
	uint64_t wrong;			/* frames outside the receiver's window */
	uint64_t missed;		/* frames that could not end in their slot */
	uint64_t stalls, stall_ns;	/* over all nodes */
	uint64_t max_skew_ns;		/* largest spread of the nodes' slot starts */
	uint64_t first_wrong;		/* slot number (from 0, over all periods) */
	uint32_t first_src, first_dst;
};

struct fbs_frame {
	uint32_t src, dst;
	uint64_t at;			/* delivery starts */
};

/* what the simulated links are: times in ns */
struct fbs_links {
	uint64_t slot_ns, frame_ns;	/* a slot; a frame's time on the wire */
	uint64_t credit_ns;		/* last byte out to its credits back at the sender */
	bool feedback;
};

/*
 * Run @periods periods of @s; @drift_ppb per node.  0, or -1 out of
 * memory.
 */
static int fbs_simulate(const struct fbs_sched *s, const int64_t *drift_ppb,
			const struct fbs_links *ln, uint64_t periods, struct fbs_result *r)
{
	struct fbs_exec e[FBS_MAX_NODES];
	struct fbs_feedback fb[FBS_MAX_NODES];
	uint64_t start[FBS_MAX_NODES], held[FBS_MAX_NODES], busy[FBS_MAX_NODES];
	struct fbs_credit_wait wait[FBS_MAX_NODES];	/* for each node's last frame's */
	struct fbs_frame fr[FBS_MAX_NODES];
	uint64_t k, total = periods * s->slots, frame_ns = ln->frame_ns;
	uint32_t i, nf;

	memset(r, 0, sizeof(*r));
	r->first_wrong = UINT64_MAX;
	for (i = 0; i < s->nodes; i++) {
		/* bootstrap done: every node starts slot 0 at the same instant */
		if (!fbs_exec_init(&e[i], ln->slot_ns, drift_ppb[i], s->slots, 0))
			return -1;
		fbs_feedback_init(&fb[i], ln->slot_ns - frame_ns);
		busy[i] = 0;
		wait[i] = (struct fbs_credit_wait){ 0, 0 };
	}
	for (k = 0; k < total; k++) {
		uint32_t t = (uint32_t)(k % s->slots);
		uint64_t lo = UINT64_MAX, hi = 0;

		nf = 0;
		for (i = 0; i < s->nodes; i++) {
			uint16_t d = fbs_dst(s, t, i);
			uint64_t at, sent;

			start[i] = e[i].slot_start;
			lo = start[i] < lo ? start[i] : lo;
			hi = start[i] > hi ? start[i] : hi;
			held[i] = 0;
			if (d == FBS_IDLE)
				continue;
			/*
			 * With feedback a node sends once its last frame's
			 * credits are back; the output to d takes the frame
			 * once the previous one to d has left.
			 */
			sent = ln->feedback && wait[i].back > start[i] ? wait[i].back : start[i];
			/* a frame that cannot end in its slot waits for the next period */
			if (sent > fbs_exec_send_by(&e[i], frame_ns)) {
				r->missed++;
				continue;
			}
			at = sent > busy[d] ? sent : busy[d];
			busy[d] = at + frame_ns;
			if (ln->feedback) {
				/* all it lost before it went was the wait for credits */
				uint64_t gated = fbs_credit_wait_gated(&wait[i], &e[i], sent);

				fbs_credit_wait_back(&wait[i], at + frame_ns + ln->credit_ns);
				held[i] = fbs_feedback_held(&fb[i], &e[i], sent, wait[i].back,
							    frame_ns, gated);
			}
			fr[nf].src = i;
			fr[nf].dst = d;
			fr[nf].at = at;
			nf++;
		}
		if (hi - lo > r->max_skew_ns)
			r->max_skew_ns = hi - lo;
		for (i = 0; i < s->nodes; i++) {
			fbs_exec_advance(&e[i], held[i]);
			fbs_credit_wait_advanced(&wait[i], &e[i], held[i]);
		}
		/* each frame against its receiver's window for this slot */
		for (i = 0; i < nf; i++) {
			uint64_t mid = fr[i].at + frame_ns / 2;
			uint32_t d = fr[i].dst;

			r->frames++;
			if (mid >= start[d] && mid < e[d].slot_start)
				continue;
			if (!r->wrong++) {
				r->first_wrong = k;
				r->first_src = fr[i].src;
				r->first_dst = d;
			}
		}
	}
	for (i = 0; i < s->nodes; i++) {
		r->stalls += e[i].stalls;
		r->stall_ns += e[i].stall_ns;
	}
	return 0;
}

static void fbs_usage(FILE *f)
{
	fprintf(f,
"Usage: qsim fbs {--schedule FILE | --all-to-all N} [--empty E]\n"
"                {--drift-ppm P | --drifts P0,P1,...} [--periods K]\n"
"                [--slot-ns NS] [--frame-ns NS] [--credit-ns NS] [--no-feedback]\n"
"                [--find-max [--max-empty M]] [--json]\n"
"  --schedule    a schedule as fbs-sched reads it (Documentation/fbs.rst)\n"
"  --all-to-all  the paper's Fig. 6 round of N nodes (1..%u)\n"
"  --empty       E idle slots appended to each period (default 0)\n"
"  --drift-ppm   node 0's clock P ppm slow, the others exact\n"
"  --drifts      each node's drift in ppm, positive fast (as many as nodes)\n"
"  --periods     periods run (default 20)\n"
"  --slot-ns     nominal slot (default 10000); --frame-ns a frame's time on the\n"
"                wire (default: the slot, full-size frames)\n"
"  --credit-ns   from a frame's last byte out of the switch to its credits back\n"
"                at the sender (default 0); a sender waits for them to send again\n"
"  --no-feedback the nodes ignore back-pressure: they move on when their clock\n"
"                says, and their frames queue in the switch\n"
"  --find-max    the largest E with no frame in a wrong slot over the periods\n"
"                (binary search up to M, default four times the Eq. 3 bound)\n",
		FBS_MAX_NODES);
}

static bool parse_drifts(const char *list, int64_t *v, uint32_t *n)
{
	char buf[1024], *save = NULL, *tok;
	double p;

	*n = 0;
	if (strlen(list) >= sizeof(buf))
		return false;
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n == FBS_MAX_NODES || !parse_double(tok, -100000, 100000, &p))
			return false;
		v[(*n)++] = llround(p * 1000);
	}
	return *n > 0;
}

static void fbs_print(const struct fbs_result *r, const struct fbs_names *nm,
		      uint32_t slots, bool json)
{
	if (json) {
		printf("\"frames\":%" PRIu64 ",\"wrong_slot\":%" PRIu64 ",\"missed\":%" PRIu64
		       ",\"stalls\":%" PRIu64 ",\"stall_ns\":%" PRIu64 ",\"max_skew_ns\":%" PRIu64
		       ",\"first_wrong\":", r->frames, r->wrong, r->missed, r->stalls, r->stall_ns,
		       r->max_skew_ns);
		if (r->wrong)
			printf("{\"period\":%" PRIu64 ",\"slot\":%" PRIu64 ",\"from\":\"%s\",\"to\":\"%s\"}",
			       r->first_wrong / slots, r->first_wrong % slots + 1,
			       nm->name[r->first_src], nm->name[r->first_dst]);
		else
			printf("null");
		return;
	}
	printf("frames %" PRIu64 ", in a wrong slot %" PRIu64 ", missed their slot %" PRIu64
	       ", stalls %" PRIu64 " (%.1f us in all), largest skew %.2f us\n", r->frames, r->wrong,
	       r->missed, r->stalls, r->stall_ns / 1e3, r->max_skew_ns / 1e3);
	if (r->wrong)
		printf("first wrong: period %" PRIu64 " slot %" PRIu64 ", %s to %s\n",
		       r->first_wrong / slots, r->first_wrong % slots + 1,
		       nm->name[r->first_src], nm->name[r->first_dst]);
}

static int fbs_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "schedule", required_argument, NULL, 's' },
		{ "all-to-all", required_argument, NULL, 'a' },
		{ "empty", required_argument, NULL, 'e' },
		{ "drift-ppm", required_argument, NULL, 'd' },
		{ "drifts", required_argument, NULL, 'D' },
		{ "periods", required_argument, NULL, 'p' },
		{ "slot-ns", required_argument, NULL, 'S' },
		{ "frame-ns", required_argument, NULL, 'F' },
		{ "credit-ns", required_argument, NULL, 'C' },
		{ "no-feedback", no_argument, NULL, 'n' },
		{ "find-max", no_argument, NULL, 'm' },
		{ "max-empty", required_argument, NULL, 'M' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *file = NULL;
	uint64_t all = 0, empty = 0, periods = 20, slot_ns = 10000, frame_ns = 0, credit_ns = 0;
	uint64_t max_empty = 0, spread, lo, hi, base;
	int64_t drift[FBS_MAX_NODES] = { 0 }, dmin, dmax;
	uint32_t ndrift = 0, i;
	bool feedback = true, find = false, json = false, have_drift = false;
	struct fbs_names nm;
	struct fbs_sched s;
	struct fbs_links ln;
	struct fbs_result r;
	double p;
	int c, rc = 2;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's': file = optarg; break;
		case 'a':
			if (!parse_u64(optarg, 10, FBS_MAX_NODES, &all) || !all) {
				fprintf(stderr, "qsim fbs: --all-to-all: want 1 to %d nodes\n", FBS_MAX_NODES);
				return 2;
			}
			break;
		case 'e':
			if (!parse_u64(optarg, 10, FBS_MAX_SLOTS, &empty)) {
				fprintf(stderr, "qsim fbs: --empty: want 0 to %u\n", FBS_MAX_SLOTS);
				return 2;
			}
			break;
		case 'd':
			if (have_drift || !parse_double(optarg, 0.001, 100000, &p)) {
				fprintf(stderr, "qsim fbs: --drift-ppm: want one of --drift-ppm or --drifts, 0.001 to 100000\n");
				return 2;
			}
			drift[0] = -llround(p * 1000);
			have_drift = true;
			break;
		case 'D':
			if (have_drift || !parse_drifts(optarg, drift, &ndrift)) {
				fprintf(stderr, "qsim fbs: --drifts: want one of --drift-ppm or --drifts, up to %d ppm values from -100000 to 100000\n",
					FBS_MAX_NODES);
				return 2;
			}
			have_drift = true;
			break;
		case 'p':
			if (!parse_u64(optarg, 10, 1000000, &periods) || !periods) {
				fprintf(stderr, "qsim fbs: --periods: want 1 to 1000000\n");
				return 2;
			}
			break;
		case 'S':
			if (!parse_u64(optarg, 10, FBS_EXEC_MAX_SLOT_NS, &slot_ns) || !slot_ns) {
				fprintf(stderr, "qsim fbs: --slot-ns: want 1 to %llu\n", FBS_EXEC_MAX_SLOT_NS);
				return 2;
			}
			break;
		case 'F':
			if (!parse_u64(optarg, 10, FBS_EXEC_MAX_SLOT_NS, &frame_ns) || !frame_ns) {
				fprintf(stderr, "qsim fbs: --frame-ns: want 1 to the slot\n");
				return 2;
			}
			break;
		case 'C':
			if (!parse_u64(optarg, 10, FBS_EXEC_MAX_SLOT_NS, &credit_ns)) {
				fprintf(stderr, "qsim fbs: --credit-ns: want 0 to %llu\n", FBS_EXEC_MAX_SLOT_NS);
				return 2;
			}
			break;
		case 'n': feedback = false; break;
		case 'm': find = true; break;
		case 'M':
			if (!parse_u64(optarg, 10, FBS_MAX_SLOTS, &max_empty) || !max_empty) {
				fprintf(stderr, "qsim fbs: --max-empty: want 1 to %u\n", FBS_MAX_SLOTS);
				return 2;
			}
			break;
		case 'j': json = true; break;
		case 'h': fbs_usage(stdout); return 0;
		default: fbs_usage(stderr); return 2;
		}
	}
	if (optind != argc || !file == !all) {
		fprintf(stderr, "qsim fbs: want --schedule FILE or --all-to-all N\n");
		return 2;
	}
	if (!frame_ns)
		frame_ns = slot_ns;
	if (frame_ns > slot_ns) {
		fprintf(stderr, "qsim fbs: a frame of %" PRIu64 " ns does not fit a %" PRIu64 " ns slot\n",
			frame_ns, slot_ns);
		return 2;
	}
	if (frame_ns + credit_ns > slot_ns)
		fprintf(stderr, "qsim fbs: warning: a frame and its credits take %" PRIu64
			" ns, more than a slot: senders fall behind their clocks\n", frame_ns + credit_ns);
	ln.slot_ns = slot_ns;
	ln.frame_ns = frame_ns;
	ln.credit_ns = credit_ns;
	ln.feedback = feedback;
	if (file) {
		FILE *f = fopen(file, "r");
		char err[512];

		if (!f) {
			perror(file);
			return 2;
		}
		c = fbs_text_read(f, file, &s, &nm, err, sizeof(err));
		fclose(f);
		if (c) {
			fprintf(stderr, "qsim fbs: %s\n", err);
			return 2;
		}
	} else {
		if (!fbs_sched_alloc(&s, (fq_u32)all, (fq_u32)all)) {
			fprintf(stderr, "qsim fbs: out of memory\n");
			return 2;
		}
		fbs_fill_all_to_all(&s, 0);
		fbs_names_default(&nm, (unsigned int)all);
	}
	if (ndrift && ndrift != s.nodes) {
		fprintf(stderr, "qsim fbs: --drifts gives %u drifts for %u nodes\n", ndrift, s.nodes);
		goto out;
	}
	{
		struct fbs_conflict cf;

		if (fbs_find_conflict(&s, &cf)) {
			fprintf(stderr, "qsim fbs: the schedule has a conflict: in slot %u %s receives from %s and %s\n",
				cf.slot + 1, nm.name[cf.dst], nm.name[cf.a], nm.name[cf.b]);
			goto out;
		}
	}
	dmin = dmax = drift[0];
	for (i = 1; i < s.nodes; i++) {
		dmin = drift[i] < dmin ? drift[i] : dmin;
		dmax = drift[i] > dmax ? drift[i] : dmax;
	}
	spread = (uint64_t)(dmax - dmin);	/* the drift Eq. 3 speaks of */
	base = s.slots;
	if ((uint64_t)s.slots + empty > FBS_MAX_SLOTS) {
		fprintf(stderr, "qsim fbs: more than %u slots per period\n", FBS_MAX_SLOTS);
		goto out;
	}
	rc = 1;
	if (!find) {
		if (empty && !fbs_sched_extend(&s, s.slots + (fq_u32)empty))
			goto nomem;
		if (fbs_simulate(&s, drift, &ln, periods, &r))
			goto nomem;
		if (json) {
			printf("{\"nodes\":%u,\"slots\":%u,\"empty\":%" PRIu64 ",\"periods\":%" PRIu64
			       ",\"feedback\":%s,", s.nodes, s.slots, empty, periods,
			       feedback ? "true" : "false");
			fbs_print(&r, &nm, s.slots, true);
			printf("}\n");
		} else {
			printf("%u nodes, %u slots per period (%" PRIu64 " empty), %" PRIu64
			       " periods, feedback %s\n", s.nodes, s.slots, empty, periods,
			       feedback ? "on" : "off");
			fbs_print(&r, &nm, s.slots, false);
		}
		rc = r.wrong ? 1 : 0;
		goto out;
	}
	/* --find-max: the largest E that keeps every frame in its slot */
	if (!spread) {
		fprintf(stderr, "qsim fbs: --find-max needs clocks that drift apart\n");
		rc = 2;
		goto out;
	}
	if (!max_empty) {
		uint64_t m = 4 * fbs_max_slots(spread);

		max_empty = m + base > FBS_MAX_SLOTS ? FBS_MAX_SLOTS - base : m;
	}
	if (max_empty + base > FBS_MAX_SLOTS) {
		fprintf(stderr, "qsim fbs: --max-empty: more than %u slots per period\n", FBS_MAX_SLOTS);
		rc = 2;
		goto out;
	}
	if (!fbs_sched_extend(&s, (fq_u32)(base + max_empty)))
		goto nomem;
	/* lo: no wrong frame; hi: some (or beyond the range) */
	lo = 0;
	hi = max_empty + 1;
	s.slots = (fq_u32)base;
	if (fbs_simulate(&s, drift, &ln, periods, &r))
		goto nomem;
	if (r.wrong) {
		hi = 0;
	} else {
		while (hi - lo > 1) {
			uint64_t mid = lo + (hi - lo) / 2;

			s.slots = (fq_u32)(base + mid);
			if (fbs_simulate(&s, drift, &ln, periods, &r))
				goto nomem;
			if (r.wrong)
				hi = mid;
			else
				lo = mid;
		}
	}
	s.slots = (fq_u32)base;
	{
		uint64_t bound = fbs_max_slots(spread);

		if (json) {
			printf("{\"nodes\":%u,\"slots\":%" PRIu64 ",\"periods\":%" PRIu64
			       ",\"feedback\":%s,\"drift_spread_ppm\":%.3f,\"max_empty\":",
			       s.nodes, base, periods, feedback ? "true" : "false", spread / 1e3);
			if (!hi)
				printf("null");
			else if (hi > max_empty)
				printf("\">=%" PRIu64 "\"", max_empty);
			else
				printf("%" PRIu64, lo);
			printf(",\"eq3_max_slots\":%" PRIu64 ",\"eq3_max_empty\":%" PRId64 "}\n",
			       bound, (int64_t)bound - (int64_t)base);
		} else {
			printf("%u nodes, %" PRIu64 " slots + empty ones, %" PRIu64
			       " periods, feedback %s, clocks %.3f ppm apart\n", s.nodes, base,
			       periods, feedback ? "on" : "off", spread / 1e3);
			if (!hi)
				printf("largest empty run: none: frames land in a wrong slot even without empty slots\n");
			else if (hi > max_empty)
				printf("largest empty run: at least %" PRIu64 " (none failed up to there)\n",
				       max_empty);
			else
				printf("largest empty run: %" PRIu64 " slots (%" PRIu64 " put a frame in a wrong slot)\n",
				       lo, hi);
			printf("Eq. 3: a cycle of at most %" PRIu64 " slots, so %" PRId64
			       " empty after a %" PRIu64 "-slot round\n", bound,
			       (int64_t)bound - (int64_t)base, base);
		}
		rc = hi && hi <= max_empty ? 0 : 1;
	}
	goto out;
nomem:
	fprintf(stderr, "qsim fbs: out of memory or a drift beyond 10 %%\n");
	rc = 2;
out:
	fbs_sched_free(&s);
	return rc;
}

const struct qsim_cmd qsim_cmd_fbs = {
	.name = "fbs",
	.summary = "FBS slot schedules: nodes with drifting clocks, with feedback",
	.main = fbs_main,
};
