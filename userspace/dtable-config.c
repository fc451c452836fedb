// SPDX-License-Identifier: GPL-2.0
/*
 * dtable-config: turn bandwidth and latency requirements into a DTable
 * arbitration table with the methodology of the Omni-Path QoS paper
 * (sections 3.3.2 and 3.3.3), and print it with the tc commands that
 * install it on a dtable qdisc.  The arithmetic is in
 * kernel/core/dtable_config.h; this file is the command line and output.
 * Documentation/dtable-config.rst has worked examples.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_util.h"
#include "core/dtable_config.h"

#define PROG "dtable-config"

static struct dtc_config cfg;

static void usage(FILE *f)
{
	fprintf(f,
"Usage: " PROG " --entries N --gmtu BYTES --w W --k K [--credit BYTES]\n"
"                     --sl NAME:SHARE:DISTANCE:MTU [--sl ...] [--json] [--dev DEV]\n"
"\n"
"  --entries N     arbitration table entries (1..%u)\n"
"  --gmtu BYTES    general MTU: the largest packet of any SL\n"
"  --w W           maximum weight decoupling parameter: M = GMTU x w\n"
"  --k K           bandwidth pool decoupling parameter: pool = N x GMTU x k (k <= w)\n"
"  --credit BYTES  bytes per weight unit (default 64)\n"
"  --sl NAME:SHARE:DISTANCE:MTU\n"
"                  one service level, in class order (class i is classid 1:i+1):\n"
"                  SHARE a fraction (0.3) or a percentage (30%%); DISTANCE the\n"
"                  largest gap in entries between two of its entries; MTU bytes\n"
"                  Shares adding up to less than 1 are normalised to add up\n"
"                  to 1 (same proportions: the link is always shared in\n"
"                  full); more than 1 is refused\n"
"  --json          print a JSON object instead of the readable table\n"
"  --dev DEV       device named in the tc commands (default DEV)\n"
"\n"
"Exit status: 0 table built, 1 requirements that cannot be met, 2 usage.\n",
		DT_MAX_ENTRIES);
}

/*
 * Digits only (parse_u64()): strtoul() skipped blanks and then took a
 * sign, so that --entries " -18446744073709551615" was 1.
 */
static int parse_u32(const char *s, const char *what, fq_u32 *v)
{
	uint64_t x;

	if (!parse_u64(s, 10, UINT32_MAX, &x)) {
		fprintf(stderr, PROG ": %s: \"%s\" is not a number\n", what, s);
		return -1;
	}
	*v = (fq_u32)x;
	return 0;
}

/* "0.3" or "30%" into parts per 10^9 */
static int parse_share(const char *s, fq_s64 *ppb)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v))
		return -1;
	if (*end == '%') {
		v /= 100.0;
		end++;
	}
	if (*end || v <= 0.0 || v > 1.0)
		return -1;
	*ppb = llround(v * DTC_ONE);
	return 0;
}

static int parse_sl(const char *arg)
{
	char buf[128], *f[4], *p;
	struct dtc_sl *s;
	int i;

	if (cfg.nsl >= DT_MAX_CLASSES) {
		fprintf(stderr, PROG ": at most %u --sl\n", DT_MAX_CLASSES);
		return -1;
	}
	if (strlen(arg) >= sizeof(buf))
		goto bad;
	strcpy(buf, arg);
	p = buf;
	for (i = 0; i < 4; i++) {
		f[i] = p;
		p = strchr(p, ':');
		if (i < 3) {
			if (!p)
				goto bad;
			*p++ = 0;
		} else if (p) {
			goto bad;
		}
	}
	s = &cfg.sl[cfg.nsl];
	if (!*f[0] || strlen(f[0]) >= DTC_NAME_MAX) {
		fprintf(stderr, PROG ": --sl %s: the name must be 1..%d characters\n",
			arg, DTC_NAME_MAX - 1);
		return -1;
	}
	for (p = f[0]; *p; p++) {
		if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-') {
			fprintf(stderr, PROG ": --sl %s: names take letters, digits, '_' and '-'\n",
				arg);
			return -1;
		}
	}
	strcpy(s->name, f[0]);
	if (parse_share(f[1], &s->share)) {
		fprintf(stderr, PROG ": --sl %s: share \"%s\" is not a fraction in (0, 1] or a percentage\n",
			arg, f[1]);
		return -1;
	}
	if (parse_u32(f[2], "--sl distance", &s->distance) ||
	    parse_u32(f[3], "--sl MTU", &s->mtu_bytes))
		return -1;
	cfg.nsl++;
	return 0;
bad:
	fprintf(stderr, PROG ": --sl \"%s\": want NAME:SHARE:DISTANCE:MTU\n", arg);
	return -1;
}

static void print_tc(FILE *f, const char *dev, const char *end)
{
	fq_u32 i;

	fprintf(f, "tc qdisc replace dev %s root handle 1: dtable mode dtable classes %u credit %u mtu ",
		dev, cfg.nsl, cfg.credit);
	for (i = 0; i < cfg.nsl; i++)
		fprintf(f, "%s%u", i ? "," : "", cfg.sl[i].mtu_bytes);
	fprintf(f, " table");
	for (i = 0; i < cfg.len; i++)
		fprintf(f, " %u:%u", cfg.table[i].cls, cfg.table[i].weight);
	fputs(end, f);
}

/*
 * A device name that goes into the JSON string and the printed command
 * line as it is, which a shell runs as it is: letters, digits and
 * ". _ - @ +" (no quote, backslash, blank, shell character, control
 * character or byte above ASCII), 1..15 of them as the kernel takes
 * (dev_valid_name()), not "." or "..".
 */
static int valid_dev_name(const char *name)
{
	const char *p;

	if (!*name || strlen(name) > 15 || !strcmp(name, ".") || !strcmp(name, ".."))
		return 0;
	for (p = name; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c >= 0x80 || (!isalnum(c) && !strchr("._-@+", c)))
			return 0;
	}
	return 1;
}

static void print_json(const char *dev)
{
	fq_u32 i;

	/* entries: as asked; table_entries: as built (unused slots dropped) */
	printf("{\"entries\":%u,\"table_entries\":%u,\"gmtu\":%u,\"w\":%u,\"k\":%u,\"credit\":%u,",
	       cfg.n, cfg.len, cfg.gmtu_bytes, cfg.w, cfg.k, cfg.credit);
	printf("\"pool\":%llu,\"max_weight\":%llu,\"total_weight_before\":%llu,\"total_weight\":%llu,\n",
	       (unsigned long long)cfg.pool, (unsigned long long)cfg.max_weight,
	       (unsigned long long)cfg.total_before, (unsigned long long)cfg.total_after);
	printf(" \"shares_sum\":%.5f,\"normalised\":%s,\n",
	       (double)cfg.shares_sum / DTC_ONE, cfg.normalised ? "true" : "false");
	printf(" \"sls\":[\n");
	for (i = 0; i < cfg.nsl; i++) {
		const struct dtc_sl *s = &cfg.sl[i];

		printf("  {\"name\":\"%s\",\"class\":%u,\"given_share\":%.5f,\"wanted_share\":%.5f,\"distance\":%u,"
		       "\"mtu\":%u,\"entries\":%u,\"min_share\":%.5f,\"max_share\":%.5f,"
		       "\"entry_weight\":%llu,\"real_share\":%.5f,\"dweight\":%lld,"
		       "\"dweight_unapplied\":%lld,\"total_weight\":%llu,\"share\":%.5f,"
		       "\"max_gap\":%u}%s\n",
		       s->name, i, (double)s->given / DTC_ONE, (double)s->share / DTC_ONE,
		       s->distance, s->mtu,
		       s->entries, dtc_min_share(&cfg, s), dtc_max_share(&cfg, s),
		       (unsigned long long)s->entry_weight,
		       dtc_frac(s->weight_before, cfg.total_before),
		       (long long)s->dweight, (long long)s->dweight_left,
		       (unsigned long long)s->total_weight,
		       dtc_frac(s->total_weight, cfg.total_after),
		       dtc_max_gap(cfg.table, cfg.len, i),
		       i + 1 < cfg.nsl ? "," : "");
	}
	printf(" ],\n \"table\":[");
	for (i = 0; i < cfg.len; i++)
		printf("%s{\"index\":%u,\"sl\":%u,\"weight\":%u}", i ? (i % 4 ? "," : ",\n  ") : "\n  ",
		       i, cfg.table[i].cls, cfg.table[i].weight);
	printf("\n ],\n \"tc\":\"");
	print_tc(stdout, dev, "\"}\n");
}

static void print_text(const char *dev)
{
	fq_u32 i;

	printf("N %u entries, GMTU %u bytes (%u credits of %u bytes), w %u, k %u\n",
	       cfg.n, cfg.gmtu_bytes, cfg.gmtu, cfg.credit, cfg.w, cfg.k);
	printf("pool %llu credits, largest entry weight M %llu credits\n",
	       (unsigned long long)cfg.pool, (unsigned long long)cfg.max_weight);
	if (cfg.normalised) {
		printf("the shares add up to %.5f, less than 1: normalised to add up to 1, in the\n"
		       "same proportions (dtable shares the whole link whenever it is busy):",
		       (double)cfg.shares_sum / DTC_ONE);
		for (i = 0; i < cfg.nsl; i++)
			printf("%s %s %.5f -> %.5f", i ? "," : "", cfg.sl[i].name,
			       (double)cfg.sl[i].given / DTC_ONE,
			       (double)cfg.sl[i].share / DTC_ONE);
		printf("\n");
	}
	printf("\n");
	printf("%-4s %-10s %5s %5s %4s %8s %8s %8s %7s %8s %8s %7s %8s %8s\n",
	       "cls", "SL", "dist", "gap", "n", "MTU", "min", "max", "share",
	       "E.W.", "R.share", "Dweight", "F.weight", "F.share");
	for (i = 0; i < cfg.nsl; i++) {
		const struct dtc_sl *s = &cfg.sl[i];

		printf("%-4u %-10s %5u %5u %4u %8u %8.5f %8.5f %7.5f %8llu %8.5f %7lld %8llu %8.5f\n",
		       i, s->name, s->distance, dtc_max_gap(cfg.table, cfg.len, i),
		       s->entries, s->mtu, dtc_min_share(&cfg, s),
		       dtc_max_share(&cfg, s), (double)s->share / DTC_ONE,
		       (unsigned long long)s->entry_weight,
		       dtc_frac(s->weight_before, cfg.total_before),
		       (long long)s->dweight, (unsigned long long)s->total_weight,
		       dtc_frac(s->total_weight, cfg.total_after));
		if (s->dweight_left)
			printf("     warning: %lld of the correction could not be applied (entries at the %s)\n",
			       (long long)s->dweight_left,
			       s->dweight_left < 0 ? "MTU" : "largest weight, 16777216 credits");
	}
	printf("%-4s %-10s %5s %5s %4u %8s %8s %8s %7s %8s %8s %7s %8llu\n",
	       "", "total", "", "", cfg.len, "", "", "", "", "",
	       "", "", (unsigned long long)cfg.total_after);
	if (cfg.len < cfg.n)
		printf("(%u unused slots dropped: the table has %u entries)\n",
		       cfg.n - cfg.len, cfg.len);
	printf("\ntable (entry: class/weight in credits)\n");
	for (i = 0; i < cfg.len; i++)
		printf("%s%4u: %u/%-4u", i % 8 ? "  " : (i ? "\n" : ""), i,
		       cfg.table[i].cls, cfg.table[i].weight);
	printf("\n\ntc commands:\n");
	print_tc(stdout, dev, "\n");
	for (i = 0; i < cfg.nsl; i++)
		printf("# class 1:%u is SL %s (priority 1:%u selects it)\n",
		       i + 1, cfg.sl[i].name, i + 1);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "entries", required_argument, NULL, 'n' },
		{ "gmtu", required_argument, NULL, 'g' },
		{ "w", required_argument, NULL, 'w' },
		{ "k", required_argument, NULL, 'k' },
		{ "credit", required_argument, NULL, 'c' },
		{ "sl", required_argument, NULL, 's' },
		{ "json", no_argument, NULL, 'j' },
		{ "dev", required_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dev = "DEV";
	int json = 0, have = 0, o;

	cfg.credit = 64;
	while ((o = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (o) {
		case 'n':
			if (parse_u32(optarg, "--entries", &cfg.n))
				return 2;
			have |= 1;
			break;
		case 'g':
			if (parse_u32(optarg, "--gmtu", &cfg.gmtu_bytes))
				return 2;
			have |= 2;
			break;
		case 'w':
			if (parse_u32(optarg, "--w", &cfg.w))
				return 2;
			have |= 4;
			break;
		case 'k':
			if (parse_u32(optarg, "--k", &cfg.k))
				return 2;
			have |= 8;
			break;
		case 'c':
			if (parse_u32(optarg, "--credit", &cfg.credit))
				return 2;
			break;
		case 's':
			if (parse_sl(optarg))
				return 2;
			break;
		case 'j':
			json = 1;
			break;
		case 'd':
			if (!valid_dev_name(optarg)) {
				fprintf(stderr, PROG ": --dev %s: not a device name we print "
					"(1..15 letters, digits or . _ - @ +)\n", optarg);
				return 2;
			}
			dev = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": unexpected argument \"%s\"\n", argv[optind]);
		return 2;
	}
	if (have != 15 || !cfg.nsl) {
		fprintf(stderr, PROG ": --entries, --gmtu, --w, --k and at least one --sl are required\n");
		usage(stderr);
		return 2;
	}
	if (dtc_build(&cfg)) {
		fprintf(stderr, PROG ": %s\n", cfg.err);
		return 1;
	}
	if (json)
		print_json(dev);
	else
		print_text(dev);
	return 0;
}
