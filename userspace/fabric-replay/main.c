// SPDX-License-Identifier: GPL-2.0
/* fabric-replay's command line (fabric-replay.h). */
#include <errno.h>
#include <stdbool.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli_util.h"
#include "fabric-replay.h"
#include "recn_trace.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " send --trace FILE --host H --start NS [ --until NS ]\n"
		"                     [ --net A.B ] [ --port P ] [ --class-base MAJ:MIN ]\n"
		"       " PROG " recv --start NS --warmup NS --until NS [ --port P ]\n"
		"                     [ --linger NS ]\n"
		"       " PROG " now\n"
		"Replays a RECN traffic trace (lines \"time_ns src dst len sl\",\n"
		"scripts/recn-traffic.awk) on the hosts of a fabric built by fabric-topo;\n"
		"Documentation/recn.rst, \"In the VM\".\n"
		"  send   host H's frames (src H), each at --start + time_ns of\n"
		"         CLOCK_REALTIME, as a UDP datagram to host dst's address, A.B.0.0 +\n"
		"         dst + 1 (--net, 10.59), port --port (5301), whose frame is len\n"
		"         bytes from the Ethernet header on (at least %d: the probe);\n"
		"         the datagram of SL s leaves a socket whose SO_PRIORITY is the\n"
		"         class MAJ:MIN + s (--class-base, 1:100: edf's classes 1:100 ..\n"
		"         1:107, whose minors give the fabric header's SL).  Frames\n"
		"         offered at --until ns or later are not sent.  Prints\n"
		"           sent frames N bytes N errors N lag_max_ns N\n"
		"         (errors: datagrams the kernel refused, the qdisc's drops\n"
		"         included; lag: how late the latest frame left against its time)\n"
		"  recv   listens on --port (printing \"listening\" once it does); counts\n"
		"         per SL the frames that arrive from --start + --warmup to --start\n"
		"         + --until ns, listens --linger ns longer (1 s) and prints per SL\n"
		"           sl S frames N bytes N lat_avg_ns N lat_max_ns N outside N\n"
		"         then \"bad N\" (datagrams without a probe) and \"stale N\"\n"
		"         (frames offered before --start: an earlier run's); bytes are the\n"
		"         trace's lengths, latency from the time the trace offered the\n"
		"         frame to its arrival (the kernel's receive timestamp)\n"
		"  now    prints CLOCK_REALTIME in ns, for --start\n",
		RT_FRAME_MIN);
}

/*
 * MAJ:MIN, a class handle as parse_prio() reads one (not sscanf()'s
 * "%x:%x", which kept the low 32 bits: 100000001:100 was 1:100), with
 * room for the eight SLs' classes above MIN.
 */
static int parse_class(const char *s, uint32_t *prio)
{
	uint64_t v;

	if (!strchr(s, ':') || !parse_prio(s, &v) || !(v >> 16) || (v & 0xffff) > 0xffff - 7)
		return -1;
	*prio = (uint32_t)v;
	return 0;
}

static int bad(const char *what)
{
	fprintf(stderr, PROG ": %s\n", what);
	return 2;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "trace", required_argument, NULL, 't' },
		{ "host", required_argument, NULL, 'H' },
		{ "start", required_argument, NULL, 's' },
		{ "until", required_argument, NULL, 'u' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "net", required_argument, NULL, 'n' },
		{ "port", required_argument, NULL, 'p' },
		{ "class-base", required_argument, NULL, 'c' },
		{ "linger", required_argument, NULL, 'l' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct fr_send_opts so = { .net = { 10, 59 }, .port = 5301,
				   .prio_base = 1 << 16 | 0x100, .until_ns = UINT64_MAX };
	uint64_t start = 0, until = 0, warmup = 0, linger = 1000000000ULL, v;
	bool have_start = false, have_until = false, have_warmup = false, have_host = false;
	bool have_net = false, have_class = false, have_linger = false;
	const char *cmd;
	unsigned int a, b;
	int c;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
		usage(stdout);
		return 0;
	}
	optind = 2;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			so.trace = optarg;
			break;
		case 'H':
			if (!parse_u64(optarg, 10, 65535, &v))
				return bad("--host: want 0 .. 65535");
			so.host = (uint32_t)v;
			have_host = true;
			break;
		case 's':
			if (!parse_u64(optarg, 10, UINT64_MAX / 2, &start))
				return bad("--start: want ns of CLOCK_REALTIME (fabric-replay now)");
			have_start = true;
			break;
		case 'u':
			if (!parse_u64(optarg, 10, 1000000000000ULL, &until) || !until)
				return bad("--until: want 1 .. 10^12 ns");
			have_until = true;
			break;
		case 'w':
			if (!parse_u64(optarg, 10, 1000000000000ULL, &warmup))
				return bad("--warmup: want 0 .. 10^12 ns");
			have_warmup = true;
			break;
		case 'l':
			if (!parse_u64(optarg, 10, 60000000000ULL, &linger))
				return bad("--linger: want 0 .. 60 s in ns");
			have_linger = true;
			break;
		case 'n':
			if (!parse_uint_pair(optarg, '.', 223, 255, &a, &b) || !a || a == 127)
				return bad("--net: want A.B, a unicast /16 (e.g. 10.59)");
			so.net[0] = (uint8_t)a;
			so.net[1] = (uint8_t)b;
			have_net = true;
			break;
		case 'p':
			if (!parse_u64(optarg, 10, 65535, &v) || !v)
				return bad("--port: want 1 .. 65535");
			so.port = (uint16_t)v;
			break;
		case 'c':
			if (parse_class(optarg, &so.prio_base))
				return bad("--class-base: want MAJ:MIN in hex, MAJ 1 .. ffff, MIN 0 .. fff8");
			have_class = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc)
		return bad("unexpected arguments");
	if (!strcmp(cmd, "now")) {
		if (optind != 2)
			return bad("now takes no options");
		printf("%" PRIu64 "\n", fr_now_ns());
		return 0;
	}
	if (!strcmp(cmd, "send")) {
		if (!so.trace || !have_host || !have_start)
			return bad("send: --trace, --host and --start are needed");
		if (have_warmup || have_linger)
			return bad("send: --warmup and --linger are the receiver's");
		so.start_ns = start;
		if (have_until)
			so.until_ns = until;
		/* hosts are A.B.0.1 .. A.B.255.254 */
		if (so.host > 65532)
			return bad("--host: a /16 holds hosts 0 .. 65532");
		return fr_send(&so);
	}
	if (!strcmp(cmd, "recv")) {
		struct fr_recv_opts ro = { .port = so.port, .linger_ns = linger };

		if (!have_start || !have_until || !have_warmup)
			return bad("recv: --start, --warmup and --until are needed");
		if (warmup >= until)
			return bad("recv: --warmup must be below --until");
		if (so.trace || have_host || have_net || have_class)
			return bad("recv: --trace, --host, --net and --class-base are the sender's");
		ro.start_ns = start;
		ro.lo_ns = start + warmup;
		ro.hi_ns = start + until;
		return fr_recv(&ro);
	}
	fprintf(stderr, PROG ": \"%s\": want send, recv or now\n", cmd);
	return 2;
}
