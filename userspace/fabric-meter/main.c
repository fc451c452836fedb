// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-meter entry point: the role on the command line, the options the
 * roles share, the usage text; check-trace, which reads a frame-size trace
 * as send's trace= would.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli_util.h"
#include "fabric-meter.h"

int option_error(int o, char **argv)
{
	if (o == '?')
		return usage_error("unknown option '%s'", argv[optind - 1]);
	if (o == ':')
		return usage_error("option '%s' needs a value", argv[optind - 1]);
	return usage_error("unexpected option '%s'", argv[optind - 1]);
}

/* Options the roles share; 1 if @o was one of them, <0 on error (exit code). */
int common_option(int o, const char *arg, struct output_cfg *out, bool *quiet)
{
	double d;
	int ret;

	switch (o) {
	case OPT_JSON:
		out->fmt = OUT_JSON;
		return 1;
	case OPT_CSV:
		out->fmt = OUT_CSV;
		return 1;
	case OPT_OUT:
		out->file = arg;
		return 1;
	case OPT_DATA:
		out->data_dir = arg;
		return 1;
	case OPT_QUIET:
		*quiet = true;
		return 1;
	case OPT_CLOCK:
		ret = set_clock(arg);
		return ret ? -ret : 1;
	case OPT_WINDOW:
		if (!parse_double(arg, 0, 1, &d))
			return -usage_error("invalid --window '%s': want a fraction 0 .. 1", arg);
		out->window = d;
		return 1;
	default:
		return 0;
	}
}

/* ---- trace check --------------------------------------------------------------------- */

static int cmd_check_trace(int argc, char **argv)
{
	struct tm_trace t;
	char err[256];
	FILE *f;

	if (argc != 2)
		return usage_error("check-trace: want one FILE");
	f = fopen(argv[1], "r");
	if (!f) {
		fprintf(stderr, PROG ": %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	if (tm_trace_parse(f, argv[1], &t, err, sizeof(err))) {
		fclose(f);
		fprintf(stderr, PROG ": %s\n", err);
		return 1;
	}
	fclose(f);
	printf("%zu frames, mean %.0f bytes\n", t.n, t.mean);
	tm_trace_free(&t);
	return 0;
}

void usage(FILE *f)
{
	fputs(
"Usage: " PROG " recv    --duration S [--port P] [--ports K] [--bind ADDR] [options]\n"
"       " PROG " send    --dst ADDR --duration S --class SPEC... [--port P] [--rtt] [options]\n"
"       " PROG " reflect --duration S [--port P] [--ports K] [--bind ADDR]\n"
"       " PROG " check-trace FILE\n"
"\n"
"Per-class traffic and latency.  send drives the classes; recv measures\n"
"one-way latency (both ends on the same or synchronised clocks); with\n"
"--rtt the sender measures round trips through a reflector.\n"
"\n"
"Class SPEC: KIND[,key=value]...   KIND: control, multimedia, besteffort,\n"
"  background, cbr.  Keys: rate=BIT/S (required; k, m, g), name=NAME,\n"
"  min=/max=/size=BYTES, interval=TIME (multimedia, default 40ms),\n"
"  trace=FILE (multimedia frame sizes), alpha=SHAPE, burst=MESSAGES,\n"
"  seg=BYTES (datagram size, default 1400), prio=N|MAJ:MIN (SO_PRIORITY),\n"
"  dscp=0..63, pacing=BIT/S (SO_MAX_PACING_RATE), target=TIME (deadline),\n"
"  txtime=TIME (SO_TXTIME frame deadlines for edf), port=P, seed=N,\n"
"  flows=N (N sockets sharing the rate), flow=F (their ids start at F,\n"
"  default 0), allflows=T (the class has T flows over all senders: the\n"
"  receiver waits for all their end marks; default F + N).\n"
"  TIME: ns, us, ms, s (bare number: us).\n"
"\n"
"Common options:\n"
"  --duration S     run time (required; hard cap S + 30 s)\n"
"  --port P         UDP port (default 5201)\n"
"  --clock C        realtime (default), tai or monotonic; same on both ends\n"
"  --json | --csv   output format (default: a table)\n"
"  --output FILE    write the results there instead of stdout\n"
"  --data DIR       also write DIR/results.json, results.csv and per class\n"
"                   CLASS.cdf, CLASS.msg.cdf, CLASS.msg.hist (for gnuplot)\n"
"  --window F       in-window: message latency within target +- F (0.1)\n"
"  -q, --quiet      no progress line (shown only on a terminal anyway)\n"
"send:  --dst ADDR, --class SPEC (repeat), --class-base B (id of the first\n"
"       class, 0), --seed N, --rtt, --wait S (peer answer timeout, default 2)\n"
"recv:  --ports K, --bind ADDR, --ready FILE, --expect N (classes whose\n"
"       end marks end the run), --linger S (after the last end mark, 0.2)\n"
"\n"
"Exit: 0 ok, 1 runtime error or nothing received, 2 bad arguments,\n"
"3 peer unreachable.  See Documentation/fabric-meter.rst.\n", f);
}

int main(int argc, char **argv)
{
	opterr = 0;
	if (argc < 2)
		return usage_error("missing role: send, recv, reflect or check-trace");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "recv"))
		return cmd_recv(argc - 1, argv + 1);
	if (!strcmp(argv[1], "send"))
		return cmd_send(argc - 1, argv + 1);
	if (!strcmp(argv[1], "reflect"))
		return cmd_reflect(argc - 1, argv + 1);
	if (!strcmp(argv[1], "check-trace"))
		return cmd_check_trace(argc - 1, argv + 1);
	return usage_error("unknown role '%s' (want send, recv, reflect or check-trace)", argv[1]);
}
