// SPDX-License-Identifier: GPL-2.0
/*
 * fbs-sched: FBS slot schedules (Documentation/fbs.rst).  Checks a
 * schedule (conflict-free? self-synchronizing? how many slots may pass
 * between synchronizations at a clock drift, Eq. 3?), builds schedules
 * (the paper's equal-bandwidth all-to-all round, and reservations around
 * one) and prints the paper's Fig. 10 table.  The analysis is
 * kernel/core/fbs_sched.h; the text format userspace/lib/fbs_text.c.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "fbs_text.h"

#define PROG "fbs-sched"

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " check FILE [--drift-ppm P] [--json]\n"
"       " PROG " all-to-all N [--names A,B,...] [--drift-ppm P | --empty E]\n"
"       " PROG " reserve FILE --nodes A,B,... [--drift-ppm P] [--period SLOTS]\n"
"       " PROG " bounds [--ppm P,...] [--round N,...] [--json]\n"
"       " PROG " tc FILE {--slot TIME [--rate RATE] | --rate RATE} [--frame BYTES] [--node NAME]\n"
"                [--dev DEV] [--mac BASE] [--credits] [--verify [--delay TIME]]\n"
"                [--drift-ppm P]\n"
"\n"
"check       is the schedule in FILE (- for stdin) conflict-free and\n"
"            self-synchronizing; its synchronization cycle; with a drift,\n"
"            the most slots allowed between synchronizations (Eq. 3) and\n"
"            the overhead of synchronizing that often\n"
"all-to-all  the paper's Fig. 6 round for N nodes (1..%u): in slot k node i\n"
"            sends to node i+k; then E empty slots, or as many as the drift\n"
"            allows (the cycle then spans the Eq. 3 bound exactly)\n"
"reserve     an all-to-all round, then the reservations of FILE, one per\n"
"            line \"SRC DST SLOTS\" (SLOTS slots per period from SRC to DST),\n"
"            spread over the period without conflicts; the period defaults\n"
"            to the most the drift allows\n"
"bounds      the Fig. 10 table: per drift, the most slots between\n"
"            synchronizations and the overhead of a round of N slots\n"
"            (default: 200 to 500 ppm, rounds of 8 and 64 slots)\n"
"tc          each node's fbs qdisc as tc -b commands (one node with --node):\n"
"            its column of FILE as the table, a class per destination, and\n"
"            with --mac a flower filter per destination's address (BASE +\n"
"            the node's index, as fabric-topo numbers hosts); --slot with\n"
"            --rate: a slot longer than a frame at the link's rate (room for\n"
"            the credits' way back), --frame the largest frame (the\n"
"            qdisc's default: the device's MTU); --credits for the\n"
"            feedback; --verify marks frames with their slot and node\n"
"            and judges those that arrive, expected --delay after their\n"
"            slot began (default one slot); --drift-ppm gives the clocks a\n"
"            drift (tests)\n"
"\n"
"--drift-ppm P  the clocks' drift rate in parts per million (0 < P <= 100000,\n"
"               up to three decimals)\n"
"--json         a JSON object instead of text\n"
"\n"
"Schedules are text: the node names on the first line, then one line per\n"
"slot with each node's destination or \"-\", and \"empty N\" for N idle slots.\n"
"Exit status: 0 good (check: conflict-free, self-synchronizing and, with a\n"
"drift, within Eq. 3), 1 not, 2 usage or input errors.\n",
		FBS_MAX_NODES);
}

/* "300" or "0.5" ppm into parts per 10^9 */
static bool parse_ppm(const char *s, fq_u64 *ppb)
{
	double v;

	if (!parse_double(s, 0.001, 100000, &v) || fabs(v * 1000 - llround(v * 1000)) > 1e-6)
		return false;
	*ppb = (fq_u64)llround(v * 1000);
	return true;
}

/* --drift-ppm's argument; false after saying what is wrong */
static bool opt_drift(const char *arg, fq_u64 *ppb)
{
	if (parse_ppm(arg, ppb))
		return true;
	fprintf(stderr, PROG ": --drift-ppm: \"%s\": want 0.001 to 100000\n", arg);
	return false;
}

static void print_ppm(FILE *out, fq_u64 ppb)
{
	if (ppb % 1000)
		fprintf(out, "%.3f", ppb / 1000.0);
	else
		fprintf(out, "%" PRIu64, ppb / 1000);
}

static int read_sched(const char *path, struct fbs_sched *s, struct fbs_names *nm)
{
	char err[512];
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	int rc;

	if (!f) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return -1;
	}
	rc = fbs_text_read(f, path, s, nm, err, sizeof(err));
	if (f != stdin)
		fclose(f);
	if (rc)
		fprintf(stderr, PROG ": %s\n", err);
	return rc;
}

/* ---- check ---------------------------------------------------------------- */

static int cmd_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "drift-ppm", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct fbs_conflict cf;
	struct fbs_cycle cyc;
	struct fbs_names nm;
	struct fbs_sched s;
	fq_u64 drift = 0, maxs = 0, silent, senders;
	bool json = false, conflict, sync, within = true;
	int c, found;
	fq_u32 i;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			if (!opt_drift(optarg, &drift))
				return 2;
			break;
		case 'j': json = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, PROG ": check: want one schedule file\n");
		return 2;
	}
	if (read_sched(argv[optind], &s, &nm))
		return 2;

	conflict = fbs_find_conflict(&s, &cf);
	senders = fbs_senders(&s);
	silent = ~senders & (s.nodes == 64 ? ~0ULL : (1ULL << s.nodes) - 1);
	found = fbs_sync_cycle(&s, &cyc, 0);
	if (found == -2) {
		fprintf(stderr, PROG ": out of memory\n");
		fbs_sched_free(&s);
		return 2;
	}
	sync = found == 1;
	if (drift) {
		maxs = fbs_max_slots(drift);
		within = sync && cyc.span <= maxs;
	}

	if (json) {
		printf("{\"nodes\":%u,\"slots\":%u,\"conflict_free\":%s,\"conflict\":",
		       s.nodes, s.slots, conflict ? "false" : "true");
		if (conflict)
			printf("{\"slot\":%u,\"to\":\"%s\",\"senders\":[\"%s\",\"%s\"]}",
			       cf.slot + 1, nm.name[cf.dst], nm.name[cf.a], nm.name[cf.b]);
		else
			printf("null");
		printf(",\"never_send\":[");
		for (i = 0, c = 0; i < s.nodes; i++)
			if (silent & (1ULL << i))
				printf("%s\"%s\"", c++ ? "," : "", nm.name[i]);
		printf("],\"self_synchronizing\":%s,\"search_exhausted\":%s,\"sync_cycle\":",
		       sync ? "true" : "false", found == -1 ? "true" : "false");
		if (sync) {
			printf("[");
			for (i = 0; i < cyc.len; i++)
				printf("%s{\"node\":\"%s\",\"entry_slot\":%u,\"exit_slot\":%u,\"to\":\"%s\"}",
				       i ? "," : "", nm.name[cyc.node[i]], cyc.entry[i] + 1,
				       cyc.exit[i] + 1,
				       nm.name[fbs_dst(&s, cyc.exit[i], cyc.node[i])]);
			printf("],\"cycle_slots\":%" PRIu64 ",\"cycle_minimal\":%s,\"sync_slots\":%u",
			       cyc.span, cyc.minimal ? "true" : "false", cyc.sync_slots);
		} else {
			printf("null,\"cycle_slots\":null,\"cycle_minimal\":null,\"sync_slots\":null");
		}
		if (drift) {
			printf(",\"drift_ppm\":");
			print_ppm(stdout, drift);
			printf(",\"max_slots_between_sync\":%" PRIu64, maxs);
			if (sync)
				printf(",\"overhead_percent\":%.4f,\"within_bound\":%s",
				       fbs_overhead_ppb(cyc.sync_slots, maxs) / 1e7,
				       within ? "true" : "false");
			else
				printf(",\"overhead_percent\":null,\"within_bound\":false");
		} else {
			printf(",\"drift_ppm\":null,\"max_slots_between_sync\":null,"
			       "\"overhead_percent\":null,\"within_bound\":null");
		}
		printf("}\n");
	} else {
		printf("%u nodes, %u slots per period\n", s.nodes, s.slots);
		if (conflict)
			printf("conflict-free: no: in slot %u, %s receives from %s and %s\n",
			       cf.slot + 1, nm.name[cf.dst], nm.name[cf.a], nm.name[cf.b]);
		else
			printf("conflict-free: yes\n");
		if (silent) {
			printf("never send:");
			for (i = 0; i < s.nodes; i++)
				if (silent & (1ULL << i))
					printf(" %s", nm.name[i]);
			printf(" (a synchronization cycle needs every node as a sender)\n");
		}
		if (sync) {
			printf("self-synchronizing: yes\nsynchronization cycle:");
			for (i = 0; i < cyc.len; i++) {
				printf(" %s%s@%u", i ? "-> " : "", nm.name[cyc.node[i]], cyc.entry[i] + 1);
				if (cyc.exit[i] != cyc.entry[i])
					printf("..%u", cyc.exit[i] + 1);
			}
			printf(" -> %s@%u\n", nm.name[cyc.node[0]], cyc.entry[0] + 1);
			printf("cycle spans %" PRIu64 " slots (%" PRIu64 " period%s)%s, its sends in %u slots\n",
			       cyc.span, cyc.span / s.slots, cyc.span / s.slots == 1 ? "" : "s",
			       cyc.minimal ? "" : " (search budget spent: maybe not the shortest)",
			       cyc.sync_slots);
		} else if (found == -1) {
			printf("self-synchronizing: unknown: the search budget ran out before a cycle was found\n");
		} else {
			printf("self-synchronizing: no: no cycle of dependences includes every node as a sender once\n");
		}
		if (drift) {
			printf("at ");
			print_ppm(stdout, drift);
			printf(" ppm: at most %" PRIu64 " slots between synchronizations (Eq. 3)", maxs);
			if (sync)
				printf(", overhead %.2f %% (%u sync slots in every %" PRIu64 ")\n"
				       "the cycle's %" PRIu64 " slots are %s the bound\n",
				       fbs_overhead_ppb(cyc.sync_slots, maxs) / 1e7, cyc.sync_slots,
				       maxs + cyc.sync_slots, cyc.span, within ? "within" : "beyond");
			else
				printf("\n");
		}
	}
	fbs_sched_free(&s);
	return !conflict && sync && within ? 0 : 1;
}

/* ---- all-to-all and reserve ----------------------------------------------- */

/* "A,B,C" into @nm; false with a message */
static bool parse_names(const char *list, struct fbs_names *nm)
{
	char buf[FBS_MAX_NODES * FBS_NAME_MAX + 1], *save = NULL, *tok;

	nm->n = 0;
	if (strlen(list) >= sizeof(buf))
		goto bad;
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (nm->n == FBS_MAX_NODES || !*tok || strlen(tok) >= FBS_NAME_MAX ||
		    !strcmp(tok, "-") || !strcmp(tok, "empty") ||
		    strspn(tok, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != strlen(tok) ||
		    fbs_name_find(nm, tok) >= 0)
			goto bad;
		strcpy(nm->name[nm->n++], tok);
	}
	if (nm->n)
		return true;
bad:
	fprintf(stderr, PROG ": names: \"%s\": want 1 to %d distinct names (letters, digits, _ . -), comma-separated\n",
		list, FBS_MAX_NODES);
	return false;
}

static int cmd_all_to_all(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "names", required_argument, NULL, 'n' },
		{ "drift-ppm", required_argument, NULL, 'd' },
		{ "empty", required_argument, NULL, 'e' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct fbs_names nm = { 0 };
	struct fbs_sched s;
	fq_u64 drift = 0, empty = 0, n;
	bool have_empty = false;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (!parse_names(optarg, &nm))
				return 2;
			break;
		case 'd':
			if (!opt_drift(optarg, &drift))
				return 2;
			break;
		case 'e':
			if (!parse_u64(optarg, 10, FBS_MAX_SLOTS, &empty)) {
				fprintf(stderr, PROG ": --empty: \"%s\": want 0 to %u\n", optarg, FBS_MAX_SLOTS);
				return 2;
			}
			have_empty = true;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind + 1 != argc || !parse_u64(argv[optind], 10, FBS_MAX_NODES, &n) || !n) {
		fprintf(stderr, PROG ": all-to-all: want the number of nodes, 1 to %d\n", FBS_MAX_NODES);
		return 2;
	}
	if (nm.n && nm.n != n) {
		fprintf(stderr, PROG ": --names gives %u names for %" PRIu64 " nodes\n", nm.n, n);
		return 2;
	}
	if (!nm.n)
		fbs_names_default(&nm, (unsigned int)n);
	if (have_empty && drift) {
		fprintf(stderr, PROG ": --empty or --drift-ppm, not both\n");
		return 2;
	}
	if (drift) {
		/* the round's cycle spans the whole period: N + E <= bound */
		fq_u64 maxs = fbs_max_slots(drift);

		if (maxs < n) {
			fprintf(stderr, PROG ": at this drift a cycle may span %" PRIu64
				" slots, fewer than the round's %" PRIu64 "\n", maxs, n);
			return 1;
		}
		empty = maxs - n;
	}
	if (n + empty > FBS_MAX_SLOTS || !fbs_sched_alloc(&s, (fq_u32)n, (fq_u32)(n + empty))) {
		fprintf(stderr, PROG ": a period of %" PRIu64 " slots is more than %u or out of memory\n",
			n + empty, FBS_MAX_SLOTS);
		return 2;
	}
	fbs_fill_all_to_all(&s, 0);
	fbs_text_write(stdout, &s, &nm);
	fbs_sched_free(&s);
	return 0;
}

struct resv {
	fq_u32 src, dst, slots;
};

/*
 * Place @r's slots in [@first, @first + @len): aim for even spacing, take
 * the first free slot from each aim on (the sender idle, the receiver
 * not yet receiving).  false if the region has no room left for one.
 */
static bool place(struct fbs_sched *s, fq_u8 *rx, fq_u32 first, fq_u32 len,
		  const struct resv *r)
{
	fq_u32 k, j;

	for (k = 0; k < r->slots; k++) {
		fq_u32 aim = (fq_u32)((fq_u64)k * len / r->slots);

		for (j = 0; j < len; j++) {
			fq_u32 t = first + (aim + j) % len;

			if (fbs_dst(s, t, r->src) == FBS_IDLE && !rx[(size_t)t * s->nodes + r->dst])
				break;
		}
		if (j == len)
			return false;
		j = first + (aim + j) % len;
		*fbs_dst_at(s, j, r->src) = (fq_u16)r->dst;
		rx[(size_t)j * s->nodes + r->dst] = 1;
	}
	return true;
}

static int read_resv(const char *path, const struct fbs_names *nm, struct resv **out,
		     size_t *nout)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char buf[512], *w[3];
	unsigned int line = 0;
	uint64_t k;
	struct resv *v = NULL, *nv;
	int r;
	size_t n = 0;
	int ia, ib;

	if (!f) {
		fprintf(stderr, PROG ": %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((r = read_line(buf, sizeof(buf), f))) {
		char *hash = strchr(buf, '#');

		line++;
		if (r < 0) {
			fprintf(stderr, PROG ": %s:%u: line longer than %zu characters\n",
				path, line, sizeof(buf) - 1);
			goto bad;
		}
		if (hash)
			*hash = '\0';
		if (strspn(buf, " \t\r\n") == strlen(buf))
			continue;
		/* not sscanf()'s %lu: it took "-18446744073709551615" for 1 */
		if (split_words(buf, " \t\r\n\v\f", w, 3) != 3 ||
		    !parse_u64(w[2], 10, FBS_MAX_SLOTS, &k) || !k) {
			fprintf(stderr, PROG ": %s:%u: want \"SRC DST SLOTS\" (SLOTS from 1 to %u)\n",
				path, line, FBS_MAX_SLOTS);
			goto bad;
		}
		ia = fbs_name_find(nm, w[0]);
		ib = fbs_name_find(nm, w[1]);
		if (ia < 0 || ib < 0) {
			fprintf(stderr, PROG ": %s:%u: %s is not a node of --nodes\n", path, line,
				ia < 0 ? w[0] : w[1]);
			goto bad;
		}
		nv = realloc(v, (n + 1) * sizeof(*v));
		if (!nv) {
			fprintf(stderr, PROG ": out of memory\n");
			goto bad;
		}
		v = nv;
		v[n].src = (fq_u32)ia;
		v[n].dst = (fq_u32)ib;
		v[n].slots = (fq_u32)k;
		n++;
	}
	if (f != stdin)
		fclose(f);
	*out = v;
	*nout = n;
	return 0;
bad:
	if (f != stdin)
		fclose(f);
	free(v);
	return -1;
}

static int cmd_reserve(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nodes", required_argument, NULL, 'n' },
		{ "drift-ppm", required_argument, NULL, 'd' },
		{ "period", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	fq_u64 drift = 0, period = 0, maxs = ~0ULL, sent[FBS_MAX_NODES] = { 0 },
	       got[FBS_MAX_NODES] = { 0 };
	struct fbs_names nm = { 0 };
	struct resv *rv = NULL;
	struct fbs_sched s;
	size_t nrv = 0, i;
	fq_u8 *rx;
	int c, rc = 1;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (!parse_names(optarg, &nm))
				return 2;
			break;
		case 'd':
			if (!opt_drift(optarg, &drift))
				return 2;
			break;
		case 'p':
			if (!parse_u64(optarg, 10, FBS_MAX_SLOTS, &period) || !period) {
				fprintf(stderr, PROG ": --period: \"%s\": want 1 to %u\n", optarg, FBS_MAX_SLOTS);
				return 2;
			}
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind + 1 != argc || !nm.n) {
		fprintf(stderr, PROG ": reserve: want --nodes and one reservations file\n");
		return 2;
	}
	if (drift)
		maxs = fbs_max_slots(drift);
	if (!period) {
		if (!drift) {
			fprintf(stderr, PROG ": reserve: --period, or --drift-ppm to take the most it allows\n");
			return 2;
		}
		period = maxs < FBS_MAX_SLOTS ? maxs : FBS_MAX_SLOTS;
	}
	if (period > maxs) {
		fprintf(stderr, PROG ": a period of %" PRIu64 " slots is beyond the %" PRIu64
			" Eq. 3 allows at this drift\n", period, maxs);
		return 1;
	}
	if (period < nm.n) {
		fprintf(stderr, PROG ": a period of %" PRIu64 " slots has no room for the %u-slot round\n",
			period, nm.n);
		return 1;
	}
	if (read_resv(argv[optind], &nm, &rv, &nrv))
		return 2;
	/* a node sends one frame and receives one per slot */
	for (i = 0; i < nrv; i++) {
		sent[rv[i].src] += rv[i].slots;
		got[rv[i].dst] += rv[i].slots;
	}
	for (i = 0; i < nm.n; i++) {
		if (sent[i] > period - nm.n || got[i] > period - nm.n) {
			fprintf(stderr, PROG ": %s %s %" PRIu64 " slots, more than the %" PRIu64
				" the period leaves after the round\n", nm.name[i],
				sent[i] > period - nm.n ? "sends" : "receives",
				sent[i] > period - nm.n ? sent[i] : got[i], period - nm.n);
			free(rv);
			return 1;
		}
	}
	if (!fbs_sched_alloc(&s, nm.n, (fq_u32)period)) {
		fprintf(stderr, PROG ": out of memory\n");
		free(rv);
		return 2;
	}
	rx = calloc((size_t)period * nm.n, 1);
	if (!rx) {
		fprintf(stderr, PROG ": out of memory\n");
		goto out;
	}
	fbs_fill_all_to_all(&s, 0);
	for (i = 0; i < nrv; i++) {
		if (!place(&s, rx, nm.n, (fq_u32)period - nm.n, &rv[i])) {
			fprintf(stderr, PROG ": reservation %zu (%s to %s, %u slots) finds no free slot:"
				" a longer period may have room\n", i + 1, nm.name[rv[i].src],
				nm.name[rv[i].dst], rv[i].slots);
			goto out;
		}
	}
	fbs_text_write(stdout, &s, &nm);
	rc = 0;
out:
	free(rx);
	free(rv);
	fbs_sched_free(&s);
	return rc;
}

/* ---- bounds: Fig. 10 ------------------------------------------------------ */

static bool parse_list(const char *s, bool ppm, fq_u64 *v, unsigned int *n, unsigned int max)
{
	char buf[256], *save = NULL, *tok;

	*n = 0;
	if (strlen(s) >= sizeof(buf))
		return false;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (*n == max)
			return false;
		if (ppm ? !parse_ppm(tok, &v[*n]) :
			  !parse_u64(tok, 10, FBS_MAX_SLOTS, &v[*n]) || !v[*n])
			return false;
		(*n)++;
	}
	return *n > 0;
}

static int cmd_bounds(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "ppm", required_argument, NULL, 'p' },
		{ "round", required_argument, NULL, 'r' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	fq_u64 ppb[32] = { 200000, 250000, 300000, 350000, 400000, 450000, 500000 };
	fq_u64 round[8] = { 8, 64 };
	unsigned int np = 7, nr = 2, i, j;
	bool json = false;
	int c;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (!parse_list(optarg, true, ppb, &np, 32)) {
				fprintf(stderr, PROG ": --ppm: \"%s\": want up to 32 drifts, 0.001 to 100000\n", optarg);
				return 2;
			}
			break;
		case 'r':
			if (!parse_list(optarg, false, round, &nr, 8)) {
				fprintf(stderr, PROG ": --round: \"%s\": want up to 8 round lengths in slots\n", optarg);
				return 2;
			}
			break;
		case 'j': json = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	if (json) {
		printf("[");
		for (i = 0; i < np; i++) {
			printf("%s{\"drift_ppm\":", i ? "," : "");
			print_ppm(stdout, ppb[i]);
			printf(",\"max_slots_between_sync\":%" PRIu64 ",\"overhead_percent\":{",
			       fbs_max_slots(ppb[i]));
			for (j = 0; j < nr; j++)
				printf("%s\"%" PRIu64 "\":%.4f", j ? "," : "", round[j],
				       fbs_overhead_ppb(round[j], fbs_max_slots(ppb[i])) / 1e7);
			printf("}}");
		}
		printf("]\n");
		return 0;
	}
	printf("%-12s %-18s", "clock (ppm)", "intervening slots");
	for (j = 0; j < nr; j++) {
		char h[32];

		snprintf(h, sizeof(h), "overhead, %" PRIu64 " slots", round[j]);
		printf(" %-20s", h);
	}
	printf("\n");
	for (i = 0; i < np; i++) {
		char p[32];

		snprintf(p, sizeof(p), ppb[i] % 1000 ? "%.3f" : "%.0f", ppb[i] / 1000.0);
		printf("%-12s %-18" PRIu64, p, fbs_max_slots(ppb[i]));
		for (j = 0; j < nr; j++) {
			char o[32];

			snprintf(o, sizeof(o), "%.2f %%",
				 fbs_overhead_ppb(round[j], fbs_max_slots(ppb[i])) / 1e7);
			printf(" %-20s", o);
		}
		printf("\n");
	}
	return 0;
}

/* ---- tc: each node's qdisc ------------------------------------------------ */

/* a tc TIME word: digits, a point, then ns, us, ms or s */
static bool time_word(const char *s)
{
	size_t n = strspn(s, "0123456789.");

	return n && n < 16 && (!s[n] || !strcmp(s + n, "ns") || !strcmp(s + n, "us") ||
			       !strcmp(s + n, "ms") || !strcmp(s + n, "s"));
}

/* a base MAC with room for 64 nodes in its low three bytes */
static bool parse_base_mac(const char *s, fq_u8 *mac)
{
	return parse_unicast_mac(s, mac) &&
	       (mac[3] << 16 | mac[4] << 8 | mac[5]) + FBS_MAX_NODES <= 0xffffff;
}

/*
 * Node @x's table word for slot @t: its destination; -1 (unreserved,
 * best effort may go) in a slot in which nobody sends; -2 (silent)
 * where another node's reservation is, since a best-effort frame there
 * could meet it at its receiver.
 */
static int table_word(const struct fbs_sched *s, fq_u32 t, fq_u32 x)
{
	fq_u32 i;

	if (fbs_dst(s, t, x) != FBS_IDLE)
		return fbs_dst(s, t, x);
	for (i = 0; i < s->nodes; i++)
		if (fbs_dst(s, t, i) != FBS_IDLE)
			return -2;
	return -1;
}

static void print_node(const struct fbs_sched *s, const struct fbs_names *nm, fq_u32 x,
		       const char *dev, const char *timing, const fq_u8 *mac, bool credits,
		       bool verify, const char *delay, fq_u64 drift)
{
	fq_u32 t, k, reserved = 0;

	for (t = 0; t < s->slots; t++)
		reserved += fbs_dst(s, t, x) != FBS_IDLE;
	printf("# node %s (%u): %u of %u slots reserved\n", nm->name[x], x, reserved, s->slots);
	printf("qdisc replace dev %s root handle 1: fbs dests %u %s table", dev, s->nodes, timing);
	for (t = 0; t < s->slots; t += k) {
		int w = table_word(s, t, x);

		for (k = 1; t + k < s->slots && table_word(s, t + k, x) == w; k++)
			;
		if (w == -1)
			printf(" -");
		else if (w == -2)
			printf(" x");
		else
			printf(" %d", w);
		if (k > 1)
			printf("*%u", k);
	}
	if (drift) {
		printf(" drift ");
		print_ppm(stdout, drift);
	}
	if (verify)
		printf(" node %u verify on", x);
	if (verify && delay)
		printf(" delay %s", delay);
	printf("%s\n", credits ? " credits on" : "");
	if (!mac)
		return;
	for (t = 0; t < s->nodes; t++) {
		fq_u32 a = (mac[3] << 16 | mac[4] << 8 | mac[5]) + t;

		printf("filter replace dev %s parent 1: protocol all pref 1 handle %u flower"
		       " dst_mac %02x:%02x:%02x:%02x:%02x:%02x classid 1:%x\n", dev, t + 1,
		       mac[0], mac[1], mac[2], (a >> 16) & 0xff, (a >> 8) & 0xff, a & 0xff, t + 1);
	}
}

static int cmd_tc(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "slot", required_argument, NULL, 's' },
		{ "rate", required_argument, NULL, 'r' },
		{ "frame", required_argument, NULL, 'f' },
		{ "node", required_argument, NULL, 'n' },
		{ "dev", required_argument, NULL, 'D' },
		{ "mac", required_argument, NULL, 'm' },
		{ "credits", no_argument, NULL, 'c' },
		{ "verify", no_argument, NULL, 'v' },
		{ "delay", required_argument, NULL, 'y' },
		{ "drift-ppm", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *slot = NULL, *rate = NULL, *node = NULL, *dev = "eth0", *delay = NULL;
	fq_u64 frame = 0, bps = 0, drift = 0;
	char timing[96];
	bool credits = false, have_mac = false, verify = false;
	struct fbs_names nm;
	struct fbs_sched s;
	fq_u8 mac[6];
	fq_u32 x;
	int c, ix = -1;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's': slot = optarg; break;
		case 'r': rate = optarg; break;
		case 'f':
			if (!parse_u64(optarg, 10, 65535, &frame) || frame < 60) {
				fprintf(stderr, PROG ": --frame: \"%s\": want 60 to 65535 bytes\n", optarg);
				return 2;
			}
			break;
		case 'n': node = optarg; break;
		case 'D':
			if (!*optarg || strlen(optarg) >= 16 || strpbrk(optarg, " \t/")) {
				fprintf(stderr, PROG ": --dev: \"%s\" is not a device name\n", optarg);
				return 2;
			}
			dev = optarg;
			break;
		case 'm':
			if (!parse_base_mac(optarg, mac)) {
				fprintf(stderr, PROG ": --mac: \"%s\": want a unicast MAC with room for %d nodes in its low three bytes\n",
					optarg, FBS_MAX_NODES);
				return 2;
			}
			have_mac = true;
			break;
		case 'c': credits = true; break;
		case 'v': verify = true; break;
		case 'y':
			if (!time_word(optarg)) {
				fprintf(stderr, PROG ": --delay: \"%s\": want a time such as 200us\n", optarg);
				return 2;
			}
			delay = optarg;
			break;
		case 'd':
			if (!opt_drift(optarg, &drift))
				return 2;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind + 1 != argc) {
		fprintf(stderr, PROG ": tc: want one schedule file\n");
		return 2;
	}
	if ((!slot && !rate) || (rate && !slot && !frame)) {
		fprintf(stderr, PROG ": tc: want --slot TIME [--rate RATE], or --rate RATE and --frame BYTES\n");
		return 2;
	}
	if (delay && !verify) {
		fprintf(stderr, PROG ": tc: --delay goes with --verify\n");
		return 2;
	}
	if (slot && !time_word(slot)) {
		fprintf(stderr, PROG ": --slot: \"%s\": want a time such as 120us\n", slot);
		return 2;
	}
	if (rate && !parse_rate_bps(rate, &bps)) {
		fprintf(stderr, PROG ": --rate: \"%s\": want a rate such as 100mbit\n", rate);
		return 2;
	}
	if (slot)
		snprintf(timing, sizeof(timing), "slot %s", slot);
	if (slot && rate)
		snprintf(timing + strlen(timing), sizeof(timing) - strlen(timing),
			 " rate %" PRIu64 "bit", bps);
	if (slot && frame)
		snprintf(timing + strlen(timing), sizeof(timing) - strlen(timing),
			 " frame %" PRIu64, frame);
	if (!slot)
		snprintf(timing, sizeof(timing), "rate %" PRIu64 "bit frame %" PRIu64, bps, frame);
	if (read_sched(argv[optind], &s, &nm))
		return 2;
	if (node && (ix = fbs_name_find(&nm, node)) < 0) {
		fprintf(stderr, PROG ": --node: %s is not a node of %s\n", node, argv[optind]);
		fbs_sched_free(&s);
		return 2;
	}
	if (s.slots > 32000) {
		fprintf(stderr, PROG ": %u slots: the fbs qdisc takes at most 32000\n", s.slots);
		fbs_sched_free(&s);
		return 1;
	}
	for (x = 0; x < s.nodes; x++)
		if (ix < 0 || (int)x == ix)
			print_node(&s, &nm, x, dev, timing, have_mac ? mac : NULL, credits,
				   verify, delay, drift);
	fbs_sched_free(&s);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "check"))
		return cmd_check(argc - 1, argv + 1);
	if (!strcmp(argv[1], "all-to-all"))
		return cmd_all_to_all(argc - 1, argv + 1);
	if (!strcmp(argv[1], "reserve"))
		return cmd_reserve(argc - 1, argv + 1);
	if (!strcmp(argv[1], "bounds"))
		return cmd_bounds(argc - 1, argv + 1);
	if (!strcmp(argv[1], "tc"))
		return cmd_tc(argc - 1, argv + 1);
	fprintf(stderr, PROG ": unknown command \"%s\"\n", argv[1]);
	usage(stderr);
	return 2;
}
