// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-send: build Ethernet + fabric header + IPv4 + UDP frames by hand
 * and send them on a raw packet socket.  The kernel side only ever sees
 * fabric frames that our qdiscs or the soft switch made, so tests and users
 * need a way to inject frames with chosen header fields, including late
 * ones (negative TTD) and deliberately malformed ones, to exercise the
 * receive path's checks.  The header is encoded by the same core code the
 * kernel uses.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <netpacket/packet.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/if_ether.h>

#include "../kernel/core/fabric_hdr_core.h"
#include "frame_fuzz.h"
#include "link_fuzz.h"
#include "recn_fuzz.h"

#define PROG "fabric-send"

#define FS_IP_HLEN	20
#define FS_UDP_HLEN	8
#define FS_MAX_PAYLOAD	8972	/* fills a 9000-byte IPv4 packet (jumbo frames);
				   the device's MTU decides what goes */
#define FS_FRAME_MAX	(ETH_HLEN + FABRIC_HDR_LEN + FS_IP_HLEN + FS_UDP_HLEN + \
			 FS_MAX_PAYLOAD)

/* The inner EtherType sent by --malform inner-type: carried by nobody. */
#define FS_BOGUS_ETHERTYPE	0x1234
/* How many header bytes --malform short keeps. */
#define FS_SHORT_HDR_BYTES	10
/* How much --malform truncated overstates the IPv4 total length. */
#define FS_TRUNCATE_BY		100

enum fs_malform {
	FS_OK,
	FS_SHORT,
	FS_VERSION,
	FS_INNER_TYPE,
	FS_TRUNCATED,
	FS_CTRL,	/* a control frame (a link message's type) nobody asked for */
};

struct fs_opts {
	const char	*dev;
	uint8_t		dst_mac[ETH_ALEN];
	bool		have_dst_mac;
	struct in_addr	src_ip;
	struct in_addr	dst_ip;
	bool		have_src_ip;
	bool		have_dst_ip;
	uint16_t	sport;
	uint16_t	dport;
	bool		have_dport;
	struct fhc_fields hdr;
	unsigned long	count;
	unsigned long	interval_us;
	unsigned long	message;	/* frames per message, 0: flags left clear */
	const char	*payload;
	enum fs_malform	malform;
	bool		fuzz;		/* random and mutated frames */
	bool		fuzz_macs;	/* ... to random destinations too */
	uint32_t	link_fuzz_unit;	/* forged link messages; 0: not */
	bool		recn_fuzz;	/* forged RECN link frames */
	unsigned long long seed;
};

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
		"DEV's own.  Defaults: --sport 49152 --ttd 1000000 (1 ms ahead) --vc 0\n"
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
		"random.  It first listens up to a second for one of the peer's own\n"
		"messages, so that most of the forged ones echo its epoch and reach\n"
		"its grant.  It prints what the peer must have made of them:\n"
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

static bool fs_parse_u64(const char *s, unsigned long long max,
			 unsigned long long *v)
{
	char *end;

	/* strtoull quietly negates "-1" */
	if (*s == '-')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && end != s && !*end && *v <= max;
}

static bool fs_parse_mac(const char *s, uint8_t *mac)
{
	unsigned int b[ETH_ALEN];
	char tail;
	int i;

	if (sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3],
		   &b[4], &b[5], &tail) != ETH_ALEN)
		return false;
	for (i = 0; i < ETH_ALEN; i++)
		mac[i] = (uint8_t)b[i];
	return true;
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
	unsigned long long u;
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
			if (!fs_parse_mac(optarg, o->dst_mac))
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
			if (!fs_parse_u64(optarg, 65535, &u))
				return fs_bad("sport", optarg);
			o->sport = (uint16_t)u;
			break;
		case O_DPORT:
			if (!fs_parse_u64(optarg, 65535, &u))
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
			if (!fs_parse_u64(optarg, FABRIC_HDR_VC_MASK, &u))
				return fs_bad("vc", optarg);
			o->hdr.vc = (uint8_t)u;
			break;
		case O_SL:
			if (!fs_parse_u64(optarg, 255, &u))
				return fs_bad("sl", optarg);
			o->hdr.sl = (uint8_t)u;
			break;
		case O_FLOW:
			if (!fs_parse_u64(optarg, UINT32_MAX, &u))
				return fs_bad("flow", optarg);
			o->hdr.flow_id = (uint32_t)u;
			break;
		case O_SEQ:
			if (!fs_parse_u64(optarg, UINT32_MAX, &u))
				return fs_bad("seq", optarg);
			o->hdr.seq = (uint32_t)u;
			break;
		case O_ROUTE:
			if (!fs_parse_u64(optarg, UINT32_MAX, &u))
				return fs_bad("route", optarg);
			o->hdr.route = (uint32_t)u;
			break;
		case O_COUNT:
			if (!fs_parse_u64(optarg, ULONG_MAX, &u))
				return fs_bad("count", optarg);
			o->count = (unsigned long)u;
			break;
		case O_INTERVAL:
			if (!fs_parse_u64(optarg, 60000000, &u))
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
			if (!fs_parse_u64(optarg, ULONG_MAX, &u) || !u)
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
			if (!fs_parse_u64(optarg, ULLONG_MAX, &u))
				return fs_bad("seed", optarg);
			o->seed = u;
			break;
		case O_LINK_FUZZ:
			if (!fs_parse_u64(optarg, 65535, &u) || !u)
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

/* ---- frame building -------------------------------------------------------- */

/* One's complement sum over @len bytes, folded later. */
static uint32_t fs_csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	while (len > 1) {
		sum += (uint32_t)(p[0] << 8 | p[1]);
		p += 2;
		len -= 2;
	}
	if (len)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

static uint16_t fs_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* Build the frame with sequence number @seq into @buf; return its length. */
static size_t fs_build(const struct fs_opts *o, const uint8_t *src_mac,
		       unsigned long index, uint32_t seq, uint8_t *buf)
{
	size_t plen = strlen(o->payload);
	size_t ip_len = FS_IP_HLEN + FS_UDP_HLEN + plen;
	struct fhc_fields hdr = o->hdr;
	uint8_t *eth = buf;
	uint8_t *fh = eth + ETH_HLEN;
	uint8_t *ip = fh + FABRIC_HDR_LEN;
	uint8_t *udp = ip + FS_IP_HLEN;
	uint8_t pseudo[12];
	uint32_t sum;
	uint16_t csum;

	memcpy(eth, o->dst_mac, ETH_ALEN);
	memcpy(eth + ETH_ALEN, src_mac, ETH_ALEN);
	fhc_put_be16(eth + 2 * ETH_ALEN, ETH_P_FABRIC);

	hdr.version = o->malform == FS_VERSION ? 2 : FABRIC_HDR_VERSION;
	hdr.inner_proto = o->malform == FS_INNER_TYPE ? FS_BOGUS_ETHERTYPE :
			  o->malform == FS_CTRL ? ETH_P_FABRIC : FHC_ETH_P_IP;
	hdr.seq = seq;
	if (o->message) {
		hdr.head = index % o->message == 0;
		hdr.tail = index % o->message == o->message - 1;
	}
	fhc_encode(fh, &hdr);
	if (o->malform == FS_SHORT)
		return ETH_HLEN + FS_SHORT_HDR_BYTES;

	memset(ip, 0, FS_IP_HLEN);
	ip[0] = 0x45;
	fhc_put_be16(ip + 2, (uint16_t)(ip_len + (o->malform == FS_TRUNCATED ?
						  FS_TRUNCATE_BY : 0)));
	fhc_put_be16(ip + 4, (uint16_t)seq);		/* identification */
	fhc_put_be16(ip + 6, 0x4000);			/* don't fragment */
	ip[8] = 64;
	ip[9] = IPPROTO_UDP;
	memcpy(ip + 12, &o->src_ip, 4);
	memcpy(ip + 16, &o->dst_ip, 4);
	fhc_put_be16(ip + 10, fs_csum_fold(fs_csum_add(0, ip, FS_IP_HLEN)));

	fhc_put_be16(udp, o->sport);
	fhc_put_be16(udp + 2, o->dport);
	fhc_put_be16(udp + 4, (uint16_t)(FS_UDP_HLEN + plen));
	fhc_put_be16(udp + 6, 0);
	memcpy(udp + FS_UDP_HLEN, o->payload, plen);

	memcpy(pseudo, ip + 12, 8);
	pseudo[8] = 0;
	pseudo[9] = IPPROTO_UDP;
	fhc_put_be16(pseudo + 10, (uint16_t)(FS_UDP_HLEN + plen));
	sum = fs_csum_add(0, pseudo, sizeof(pseudo));
	csum = fs_csum_fold(fs_csum_add(sum, udp, FS_UDP_HLEN + plen));
	/* 0 means "no checksum" in UDP over IPv4 */
	fhc_put_be16(udp + 6, csum ? csum : 0xffff);

	return ETH_HLEN + FABRIC_HDR_LEN + ip_len;
}

/* ---- sending ------------------------------------------------------------- */

static int fs_open(const struct fs_opts *o, struct sockaddr_ll *sll,
		   uint8_t *src_mac)
{
	struct ifreq ifr;
	int fd;

	/* protocol 0: send only, no copy of every received frame queued */
	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		fprintf(stderr, PROG ": packet socket: %s%s\n", strerror(errno),
			errno == EPERM ? " (needs CAP_NET_RAW)" : "");
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	if (strlen(o->dev) >= sizeof(ifr.ifr_name) ||
	    !(sll->sll_ifindex = (int)if_nametoindex(o->dev))) {
		fprintf(stderr, PROG ": %s: no such device\n", o->dev);
		goto err;
	}
	strcpy(ifr.ifr_name, o->dev);
	if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
		fprintf(stderr, PROG ": %s: reading MAC address: %s\n", o->dev,
			strerror(errno));
		goto err;
	}
	if (ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER) {
		fprintf(stderr, PROG ": %s: not an Ethernet device\n", o->dev);
		goto err;
	}
	memcpy(src_mac, ifr.ifr_hwaddr.sa_data, ETH_ALEN);

	sll->sll_family = AF_PACKET;
	sll->sll_protocol = 0;
	if (bind(fd, (struct sockaddr *)sll, sizeof(*sll)) < 0) {
		fprintf(stderr, PROG ": bind to %s: %s\n", o->dev,
			strerror(errno));
		goto err;
	}
	sll->sll_protocol = htons(ETH_P_FABRIC);
	sll->sll_halen = ETH_ALEN;
	memcpy(sll->sll_addr, o->dst_mac, ETH_ALEN);
	return fd;
err:
	close(fd);
	return -1;
}

static void fs_sleep_us(unsigned long us)
{
	struct timespec ts = {
		.tv_sec = (time_t)(us / 1000000),
		.tv_nsec = (long)(us % 1000000) * 1000,
	};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* --fuzz: COUNT random frames, each counted by what the receiver makes of it */
static int fs_fuzz(const struct fs_opts *o, int fd, const struct sockaddr_ll *sll,
		   const uint8_t *src_mac)
{
	static uint8_t frame[FF_FRAME_MAX];
	unsigned long n[FF_NCLASSES] = { 0 }, sent = 0, refused = 0, i;
	struct ff_params p;
	struct ff_rng rng;
	enum ff_class cls;
	size_t len;
	int k;

	memset(&p, 0, sizeof(p));
	memcpy(p.dst_mac, o->dst_mac, ETH_ALEN);
	memcpy(p.src_mac, src_mac, ETH_ALEN);
	p.random_dst_mac = o->fuzz_macs;
	memcpy(p.src_ip, &o->src_ip, 4);
	memcpy(p.dst_ip, &o->dst_ip, 4);
	ff_seed(&rng, o->seed);

	for (i = 0; i < o->count; i++) {
		if (i && o->interval_us)
			fs_sleep_us(o->interval_us);
		len = ff_build(&rng, &p, frame, &cls);
		if (sendto(fd, frame, len, 0, (const struct sockaddr *)sll,
			   sizeof(*sll)) == (ssize_t)len) {
			n[cls]++;
			sent++;
		} else if (errno == EMSGSIZE || errno == EINVAL) {
			refused++;	/* past the MTU, or too short for the device */
		} else if (errno == ENOBUFS || errno == EAGAIN) {
			i--;		/* the device queue is full: send it again */
			fs_sleep_us(100);
		} else {
			fprintf(stderr, PROG ": %s: sending fuzz frame %lu: %s\n",
				o->dev, i + 1, strerror(errno));
			return 1;
		}
	}
	printf("fuzz seed=%llu sent=%lu refused=%lu", o->seed, sent, refused);
	for (k = 0; k < FF_NCLASSES; k++)
		printf(" %s=%lu", ff_class_names[k], n[k]);
	printf("\n");
	return 0;
}

/*
 * The epoch in one of the link messages that @dev's peer sends (every
 * millisecond while its credits are on), waiting up to @timeout_ms; 0 if
 * none came.
 */
static uint32_t fs_hear_peer_epoch(int ifindex, int timeout_ms)
{
	struct sockaddr_ll sll = {
		.sll_family = AF_PACKET,
		.sll_protocol = htons(ETH_P_FABRIC),
		.sll_ifindex = ifindex,
	};
	struct timespec t0, t;
	uint8_t buf[256];
	uint32_t epoch = 0;
	int fd, left;

	fd = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_FABRIC));
	if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0)
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &t);
		left = timeout_ms - (int)((t.tv_sec - t0.tv_sec) * 1000 +
					  (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0 || poll(&pfd, 1, left) <= 0)
			break;
		n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from,
			     &fl);
		if (n < ETH_HLEN + FABRIC_HDR_LEN + FABRIC_CTRL_LINK_LEN ||
		    from.sll_pkttype == PACKET_OUTGOING ||
		    !fcr_is_ctrl(buf + ETH_HLEN, (fq_u32)(n - ETH_HLEN)) ||
		    buf[ETH_HLEN + FABRIC_HDR_LEN] != FABRIC_CTRL_LINK)
			continue;
		epoch = fhc_get_be32(buf + ETH_HLEN + FABRIC_HDR_LEN + 4);
		if (epoch)
			break;
	}
out:
	if (fd >= 0)
		close(fd);
	return epoch;
}

/* --recn-fuzz: COUNT forged RECN frames, each counted as the peer takes it */
static int fs_recn_fuzz(const struct fs_opts *o, int fd,
			const struct sockaddr_ll *sll, const uint8_t *src_mac)
{
	static uint8_t frame[RF_FRAME_MAX];
	unsigned long n[RF_NCLASSES] = { 0 }, i;
	struct rf_state st;
	enum rf_class cls;
	size_t len;
	int k;

	rf_init(&st, o->seed, src_mac);
	for (i = 0; i < o->count; i++) {
		if (i && o->interval_us)
			fs_sleep_us(o->interval_us);
		len = rf_build(&st, frame, &cls);
		while (sendto(fd, frame, len, 0, (const struct sockaddr *)sll,
			      sizeof(*sll)) != (ssize_t)len) {
			if (errno != ENOBUFS && errno != EAGAIN) {
				fprintf(stderr, PROG ": %s: sending RECN frame %lu: %s\n",
					o->dev, i + 1, strerror(errno));
				return 1;
			}
			fs_sleep_us(100);
		}
		n[cls]++;
	}
	printf("recn-fuzz seed=%llu sent=%lu", o->seed, o->count);
	for (k = 0; k < RF_NCLASSES; k++)
		printf(" %s=%lu", rf_class_names[k], n[k]);
	printf("\n");
	return 0;
}

/* --link-fuzz: COUNT forged link messages, each counted as the peer takes it */
static int fs_link_fuzz(const struct fs_opts *o, int fd,
			const struct sockaddr_ll *sll, const uint8_t *src_mac)
{
	static uint8_t frame[LF_FRAME_MAX];
	unsigned long n[LF_NCLASSES] = { 0 }, i;
	/*
	 * The peer speaks at least every 64 ms (every millisecond unless
	 * its link is idle): the first message ends the
	 * wait, and the bound only matters on a host that leaves the VM
	 * unscheduled for a while
	 */
	uint32_t echo = fs_hear_peer_epoch(sll->sll_ifindex, 30000);
	struct lf_state st;
	enum lf_class cls;
	size_t len;
	int k;

	lf_init(&st, o->seed, src_mac, o->link_fuzz_unit, echo);
	for (i = 0; i < o->count; i++) {
		if (i && o->interval_us)
			fs_sleep_us(o->interval_us);
		len = lf_build(&st, frame, &cls);
		/* the model took it: it must go, however long that takes */
		while (sendto(fd, frame, len, 0, (const struct sockaddr *)sll,
			      sizeof(*sll)) != (ssize_t)len) {
			if (errno != ENOBUFS && errno != EAGAIN) {
				fprintf(stderr, PROG ": %s: sending link message %lu: %s\n",
					o->dev, i + 1, strerror(errno));
				return 1;
			}
			fs_sleep_us(100);
		}
		n[cls]++;
	}
	printf("link-fuzz seed=%llu sent=%lu peer_epoch=%" PRIu32, o->seed,
	       o->count, echo);
	for (k = 0; k < LF_NCLASSES; k++)
		printf(" %s=%lu", lf_class_names[k], n[k]);
	printf("\n");
	return 0;
}

int main(int argc, char **argv)
{
	static uint8_t frame[FS_FRAME_MAX];
	uint8_t src_mac[ETH_ALEN];
	struct sockaddr_ll sll;
	struct fs_opts o;
	unsigned long i;
	uint32_t seq;
	size_t len;
	int fd;

	if (fs_parse(argc, argv, &o) < 0)
		return 1;
	memset(&sll, 0, sizeof(sll));
	fd = fs_open(&o, &sll, src_mac);
	if (fd < 0)
		return 1;

	if (o.fuzz || o.link_fuzz_unit || o.recn_fuzz) {
		int rc = o.fuzz ? fs_fuzz(&o, fd, &sll, src_mac) :
			 o.recn_fuzz ? fs_recn_fuzz(&o, fd, &sll, src_mac) :
				       fs_link_fuzz(&o, fd, &sll, src_mac);

		close(fd);
		return rc;
	}
	seq = o.hdr.seq;
	for (i = 0; i < o.count; i++, seq++) {
		if (i && o.interval_us)
			fs_sleep_us(o.interval_us);
		len = fs_build(&o, src_mac, i, seq, frame);
		if (sendto(fd, frame, len, 0, (struct sockaddr *)&sll,
			   sizeof(sll)) != (ssize_t)len) {
			fprintf(stderr, PROG ": %s: sending frame %lu of %lu: %s\n",
				o.dev, i + 1, o.count, strerror(errno));
			close(fd);
			return 1;
		}
	}
	close(fd);
	return 0;
}
