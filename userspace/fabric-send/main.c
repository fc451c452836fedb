// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-send's command line (fabric-send.h): the options, their checks
 * and the usage text; main() picks the mode they ask for.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fabric-send.h"
#include "../lib/cli_util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " -i DEV --dst-mac MAC --src-ip A --dst-ip B --dport P\n"
		"                   [ --sport P ] [ --ttd NS ] [ --vc N ] [ --sl N ]\n"
		"                   [ --flow ID ] [ --seq N ] [ --route R ] [ --count N ]\n"
		"                   [ --interval US ]\n"
		"                   [ --payload STR ] [ --message N ]\n"
		"                   [ --malform { short | version | inner-type | truncated |\n"
		"                               ctrl } ]\n"
		"       " PROG " -i DEV --dst-mac MAC --fuzz [ --seed N ] [ --count N ]\n"
		"                   [ --fuzz-macs ] [ --src-ip A ] [ --dst-ip B ]\n"
		"       " PROG " -i DEV --link-fuzz UNIT [ --seed N ] [ --count N ]\n"
		"                   [ --interval US ]\n"
		"       " PROG " -i DEV --recn-fuzz [ --seed N ] [ --count N ] [ --interval US ]\n"
		"       " PROG " -h | --help\n"
		"Send Ethernet + fabric header + IPv4 + UDP frames on DEV, source MAC\n"
		"DEV's own (on a device without Ethernet, a GRE tunnel, the frames go\n"
		"without theirs, fabric their packets' type; not with the fuzzers).\n"
		"Defaults: --sport 49152 --ttd 1000000 (1 ms ahead) --vc 0\n"
		"--sl 0 --flow 0 --seq 0 --count 1 --interval 0 --payload fabric.\n"
		"--route R (32 bits, default 0: forward by MAC) is the source route\n"
		"the switches follow, a turnpool of 6-bit digits (fabric-header.rst).\n"
		"The sequence number grows by one per frame.  --ttd is signed (negative:\n"
		"already late) and must fit 32 bits.  --malform sends a frame the\n"
		"receiver must drop: only %d header bytes, version 2, inner EtherType\n"
		"0x%04x, an IPv4 total length %d bytes longer than the packet, or\n"
		"(ctrl) a control frame, inner EtherType 0x%04x, that only a qdisc with\n"
		"credits on takes (a receiver without one drops it as drop_link_msg).\n"
		"--message N groups the frames into messages of N: the first frame of\n"
		"each carries the head flag, the N-th the tail flag (a --count that is\n"
		"not a multiple of N leaves the last message without its tail, as a\n"
		"sender that died mid-message would).  Without it both flags are clear.\n"
		"--fuzz sends --count random and mutated frames, the same ones for the\n"
		"same --seed (default 1): fabric frames with every VC, boundary TTDs,\n"
		"random routes and flags, IPv4, IPv6, ARP or other inner types, cut\n"
		"short, padded past the MTU or bit-flipped, and some frames of other\n"
		"EtherTypes; to --dst-mac, or with --fuzz-macs also to broadcast,\n"
		"multicast, 802.1D link-local and unknown addresses.  It prints how\n"
		"many it sent of each kind, as the receiver's validation classes them:\n"
		"  fuzz seed=N sent=N refused=N valid=N short=N version=N inner_type=N\n"
		"       truncated=N other=N ctrl=N\n"
		"(refused: frames the packet socket would not send, e.g. past the MTU).\n"
		"--link-fuzz UNIT plays the other end of a credit link to DEV's peer\n"
		"(a host's qdisc or a vcsw port with credits on, counting UNIT bytes\n"
		"per credit) and sends it --count forged and mutated link messages:\n"
		"cut short or too long, other types, VC counts, units and epochs,\n"
		"numbers repeated, going back or leaping, totals and grants at\n"
		"random.  It first listens for one of the peer's own messages (a\n"
		"peer speaks at least every 64 ms; it gives up after 30 s), so that\n"
		"most of the forged ones echo its epoch and reach its grant.  It\n"
		"prints what the peer must have made of them:\n"
		"  link-fuzz seed=N sent=N peer_epoch=N received=N malformed=N unit=N\n"
		"            stale=N recn=N\n"
		"(recn: of another type that is RECN's: malformed to a host's qdisc, a\n"
		"RECN frame to a vcsw port).\n"
		"(peer_epoch 0: not heard).  Only for a link that neither pads nor\n"
		"loses frames (a veth): the counts assume every byte arrives.\n"
		"--recn-fuzz sends --count forged RECN link frames (recn.rst) to DEV's\n"
		"peer, a vcsw port with recn on: valid ones for random points, padded\n"
		"or not, and ones with a fault (a byte changed, cut short, a count, kind,\n"
		"VC, point or reserved byte wrong).  It prints what the peer must make\n"
		"of them: taken (frames_rx), refused (frames_refused), or other (no\n"
		"RECN type: the credit path's):\n"
		"  recn-fuzz seed=N sent=N taken=N refused=N other=N\n",
		FS_SHORT_HDR_BYTES, FS_BOGUS_ETHERTYPE, FS_TRUNCATE_BY, ETH_P_FABRIC);
}

/* ---- argument parsing ------------------------------------------------------ */

static bool fs_parse_s64(const char *s, long long min, long long max,
			 long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 0);
	return !errno && end != s && !*end && *v >= min && *v <= max;
}

static int fs_bad(const char *opt, const char *val)
{
	fprintf(stderr, PROG ": Illegal \"%s\" value \"%s\"\n", opt, val);
	return -1;
}

static int fs_parse(int argc, char **argv, struct fs_opts *o)
{
	enum { O_DST_MAC = 256, O_SRC_IP, O_DST_IP, O_SPORT, O_DPORT, O_TTD,
	       O_VC, O_SL, O_FLOW, O_SEQ, O_COUNT, O_INTERVAL, O_PAYLOAD,
	       O_MALFORM, O_MESSAGE, O_FUZZ, O_FUZZ_MACS, O_SEED, O_LINK_FUZZ, O_RECN_FUZZ,
	       O_ROUTE };
	static const struct option opts[] = {
		{ "dev",	required_argument, NULL, 'i' },
		{ "dst-mac",	required_argument, NULL, O_DST_MAC },
		{ "src-ip",	required_argument, NULL, O_SRC_IP },
		{ "dst-ip",	required_argument, NULL, O_DST_IP },
		{ "sport",	required_argument, NULL, O_SPORT },
		{ "dport",	required_argument, NULL, O_DPORT },
		{ "ttd",	required_argument, NULL, O_TTD },
		{ "vc",		required_argument, NULL, O_VC },
		{ "sl",		required_argument, NULL, O_SL },
		{ "flow",	required_argument, NULL, O_FLOW },
		{ "seq",	required_argument, NULL, O_SEQ },
		{ "count",	required_argument, NULL, O_COUNT },
		{ "interval",	required_argument, NULL, O_INTERVAL },
		{ "payload",	required_argument, NULL, O_PAYLOAD },
		{ "malform",	required_argument, NULL, O_MALFORM },
		{ "message",	required_argument, NULL, O_MESSAGE },
		{ "fuzz",	no_argument,	   NULL, O_FUZZ },
		{ "fuzz-macs",	no_argument,	   NULL, O_FUZZ_MACS },
		{ "seed",	required_argument, NULL, O_SEED },
		{ "link-fuzz",	required_argument, NULL, O_LINK_FUZZ },
		{ "recn-fuzz",	no_argument,	   NULL, O_RECN_FUZZ },
		{ "route",	required_argument, NULL, O_ROUTE },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t u;
	long long s;
	int c;

	memset(o, 0, sizeof(*o));
	o->sport = 49152;
	o->hdr.ttd_ns = 1000000;
	o->count = 1;
	o->payload = "fabric";
	o->seed = 1;

	while ((c = getopt_long(argc, argv, "i:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o->dev = optarg;
			break;
		case O_DST_MAC:
			if (!parse_mac(optarg, o->dst_mac))
				return fs_bad("dst-mac", optarg);
			o->have_dst_mac = true;
			break;
		case O_SRC_IP:
			if (inet_pton(AF_INET, optarg, &o->src_ip) != 1)
				return fs_bad("src-ip", optarg);
			o->have_src_ip = true;
			break;
		case O_DST_IP:
			if (inet_pton(AF_INET, optarg, &o->dst_ip) != 1)
				return fs_bad("dst-ip", optarg);
			o->have_dst_ip = true;
			break;
		case O_SPORT:
			if (!parse_u64(optarg, 0, 65535, &u))
				return fs_bad("sport", optarg);
			o->sport = (uint16_t)u;
			break;
		case O_DPORT:
			if (!parse_u64(optarg, 0, 65535, &u))
				return fs_bad("dport", optarg);
			o->dport = (uint16_t)u;
			o->have_dport = true;
			break;
		case O_TTD:
			if (!fs_parse_s64(optarg, INT32_MIN, INT32_MAX, &s))
				return fs_bad("ttd", optarg);
			o->hdr.ttd_ns = (int32_t)s;
			break;
		case O_VC:
			if (!parse_u64(optarg, 0, FABRIC_HDR_VC_MASK, &u))
				return fs_bad("vc", optarg);
			o->hdr.vc = (uint8_t)u;
			break;
		case O_SL:
			if (!parse_u64(optarg, 0, 255, &u))
				return fs_bad("sl", optarg);
			o->hdr.sl = (uint8_t)u;
			break;
		case O_FLOW:
			if (!parse_u64(optarg, 0, UINT32_MAX, &u))
				return fs_bad("flow", optarg);
			o->hdr.flow_id = (uint32_t)u;
			break;
		case O_SEQ:
			if (!parse_u64(optarg, 0, UINT32_MAX, &u))
				return fs_bad("seq", optarg);
			o->hdr.seq = (uint32_t)u;
			break;
		case O_ROUTE:
			if (!parse_u64(optarg, 0, UINT32_MAX, &u))
				return fs_bad("route", optarg);
			o->hdr.route = (uint32_t)u;
			break;
		case O_COUNT:
			if (!parse_u64(optarg, 0, ULONG_MAX, &u))
				return fs_bad("count", optarg);
			o->count = (unsigned long)u;
			break;
		case O_INTERVAL:
			if (!parse_u64(optarg, 0, 60000000, &u))
				return fs_bad("interval", optarg);
			o->interval_us = (unsigned long)u;
			break;
		case O_PAYLOAD:
			if (strlen(optarg) > FS_MAX_PAYLOAD) {
				fprintf(stderr, PROG ": payload longer than %d bytes\n",
					FS_MAX_PAYLOAD);
				return -1;
			}
			o->payload = optarg;
			break;
		case O_MESSAGE:
			if (!parse_u64(optarg, 0, ULONG_MAX, &u) || !u)
				return fs_bad("message", optarg);
			o->message = (unsigned long)u;
			break;
		case O_MALFORM:
			if (!strcmp(optarg, "short"))
				o->malform = FS_SHORT;
			else if (!strcmp(optarg, "version"))
				o->malform = FS_VERSION;
			else if (!strcmp(optarg, "inner-type"))
				o->malform = FS_INNER_TYPE;
			else if (!strcmp(optarg, "truncated"))
				o->malform = FS_TRUNCATED;
			else if (!strcmp(optarg, "ctrl"))
				o->malform = FS_CTRL;
			else
				return fs_bad("malform", optarg);
			break;
		case O_FUZZ:
			o->fuzz = true;
			break;
		case O_FUZZ_MACS:
			o->fuzz_macs = true;
			break;
		case O_SEED:
			if (!parse_u64(optarg, 0, ULLONG_MAX, &u))
				return fs_bad("seed", optarg);
			o->seed = u;
			break;
		case O_LINK_FUZZ:
			if (!parse_u64(optarg, 0, 65535, &u) || !u)
				return fs_bad("link-fuzz", optarg);
			o->link_fuzz_unit = (uint32_t)u;
			break;
		case O_RECN_FUZZ:
			o->recn_fuzz = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, PROG ": What is \"%s\"?\n", argv[optind]);
		usage(stderr);
		return -1;
	}
	if (o->fuzz_macs && !o->fuzz) {
		fprintf(stderr, PROG ": --fuzz-macs needs --fuzz\n");
		return -1;
	}
	if ((o->link_fuzz_unit || o->recn_fuzz) &&
	    (o->fuzz || o->malform || o->message || (o->link_fuzz_unit && o->recn_fuzz))) {
		fprintf(stderr, PROG ": --link-fuzz and --recn-fuzz go alone\n");
		return -1;
	}
	if ((o->link_fuzz_unit || o->recn_fuzz) && o->dev) {
		/* sent to the link group, not to --dst-mac */
		memcpy(o->dst_mac, "\x01\x80\xc2\x00\x00\x0e", ETH_ALEN);
		return 0;
	}
	if (o->fuzz && o->dev && o->have_dst_mac)
		return 0;
	if (!o->dev || !o->have_dst_mac || !o->have_src_ip ||
	    !o->have_dst_ip || !o->have_dport) {
		fprintf(stderr, PROG ": -i, --dst-mac, --src-ip, --dst-ip and --dport are required\n");
		usage(stderr);
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	uint8_t src_mac[ETH_ALEN];
	struct sockaddr_ll sll;
	struct fs_opts o;
	int fd, rc;

	if (fs_parse(argc, argv, &o) < 0)
		return 1;
	memset(&sll, 0, sizeof(sll));
	fd = fs_open(&o, &sll, src_mac);
	if (fd < 0)
		return 1;

	rc = o.fuzz ? fs_fuzz(&o, fd, &sll, src_mac) :
	     o.recn_fuzz ? fs_recn_fuzz(&o, fd, &sll, src_mac) :
	     o.link_fuzz_unit ? fs_link_fuzz(&o, fd, &sll, src_mac) :
				fs_send(&o, fd, &sll, src_mac);
	close(fd);
	return rc;
}
