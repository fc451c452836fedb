// SPDX-License-Identifier: GPL-2.0
/*
 * mac-flood: send plain Ethernet frames on a packet socket, each from a
 * different source MAC address if asked, to fill a switch's forwarding
 * table the way a hostile or broken host would.
 *
 *	mac-flood -i DEV [ --count N ] [ --dst MAC ] [ --src MAC | --random-src ]
 *	          [ --seed S ] [ --ethertype T ] [ --len BYTES ] [ --interval US ]
 *	          [ --vlan ID ] [ --payload HEX ]
 *
 * --random-src gives frame i the source 02:SS:xx:xx:xx:xx, where SS is the
 * seed's low byte and the last four bytes are a bijection of i (an odd
 * multiplier modulo 2^32, plus the seed): up to 2^32 distinct, locally
 * administered unicast addresses, the same ones for the same seed.
 * Without either, the source is DEV's own address.  --vlan puts an
 * 802.1Q tag with that id in front of the EtherType (--len includes it).
 * --payload puts those bytes after the EtherType of every frame (a
 * forged message of some protocol), where the frame's number goes
 * otherwise; --len must leave room for them.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <net/if.h>
#include <netpacket/packet.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/if_ether.h>

#define PROG "mac-flood"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " -i DEV [ --count N ] [ --dst MAC ] [ --src MAC | --random-src ]\n"
		"                 [ --seed S ] [ --ethertype T ] [ --len BYTES ] [ --interval US ]\n"
		"                 [ --vlan ID ] [ --payload HEX ]\n"
		"Defaults: --count 1 --dst ff:ff:ff:ff:ff:ff --seed 1 --ethertype 0x88b6\n"
		"--len 60 (14 to 1514, 18 up with --vlan); the source is DEV's address\n"
		"unless given; --vlan ID (1 to 4094) tags every frame; --payload HEX\n"
		"(an even number of hex digits) follows the EtherType instead of the\n"
		"frame's number.\n");
}

static bool parse_mac(const char *s, uint8_t *mac)
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

static bool parse_ul(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	if (*s == '-')
		return false;
	errno = 0;
	*v = strtoul(s, &end, 0);
	return !errno && end != s && !*end && *v <= max;
}

/* "0a1B..." into @out (at most @max bytes); the count, or -1 */
static long parse_hex(const char *s, uint8_t *out, size_t max)
{
	size_t n = strlen(s), i;

	if (!n || n % 2 || n / 2 > max)
		return -1;
	for (i = 0; i < n / 2; i++) {
		unsigned int b;

		if (!isxdigit((unsigned char)s[2 * i]) || !isxdigit((unsigned char)s[2 * i + 1]) ||
		    sscanf(s + 2 * i, "%2x", &b) != 1)
			return -1;
		out[i] = (uint8_t)b;
	}
	return (long)(n / 2);
}

static void sleep_us(unsigned long us)
{
	struct timespec ts = {
		.tv_sec = (time_t)(us / 1000000),
		.tv_nsec = (long)(us % 1000000) * 1000,
	};

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int main(int argc, char **argv)
{
	enum { O_COUNT = 256, O_DST, O_SRC, O_RANDOM, O_SEED, O_TYPE, O_LEN,
	       O_INTERVAL, O_VLAN, O_PAYLOAD };
	static const struct option opts[] = {
		{ "dev",	required_argument, NULL, 'i' },
		{ "count",	required_argument, NULL, O_COUNT },
		{ "dst",	required_argument, NULL, O_DST },
		{ "src",	required_argument, NULL, O_SRC },
		{ "random-src",	no_argument,	   NULL, O_RANDOM },
		{ "seed",	required_argument, NULL, O_SEED },
		{ "ethertype",	required_argument, NULL, O_TYPE },
		{ "len",	required_argument, NULL, O_LEN },
		{ "interval",	required_argument, NULL, O_INTERVAL },
		{ "vlan",	required_argument, NULL, O_VLAN },
		{ "payload",	required_argument, NULL, O_PAYLOAD },
		{ "help",	no_argument,	   NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint8_t frame[ETH_FRAME_LEN], dst[ETH_ALEN], src[ETH_ALEN];
	uint8_t payload[ETH_FRAME_LEN];
	long payload_len = 0;
	unsigned long count = 1, seed = 1, type = 0x88b6, len = 60;
	unsigned long interval = 0, vlan = 0, i;
	size_t hlen = ETH_HLEN;
	bool have_src = false, random_src = false;
	const char *dev = NULL;
	struct sockaddr_ll sll;
	struct ifreq ifr;
	int c, fd;

	memset(dst, 0xff, sizeof(dst));
	while ((c = getopt_long(argc, argv, "i:h", opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			dev = optarg;
			break;
		case O_COUNT:
			if (!parse_ul(optarg, ULONG_MAX, &count))
				goto bad;
			break;
		case O_DST:
			if (!parse_mac(optarg, dst))
				goto bad;
			break;
		case O_SRC:
			if (!parse_mac(optarg, src))
				goto bad;
			have_src = true;
			break;
		case O_RANDOM:
			random_src = true;
			break;
		case O_SEED:
			if (!parse_ul(optarg, UINT32_MAX, &seed))
				goto bad;
			break;
		case O_TYPE:
			if (!parse_ul(optarg, 0xffff, &type))
				goto bad;
			break;
		case O_LEN:
			if (!parse_ul(optarg, ETH_FRAME_LEN, &len) || len < ETH_HLEN)
				goto bad;
			break;
		case O_INTERVAL:
			if (!parse_ul(optarg, 60000000, &interval))
				goto bad;
			break;
		case O_PAYLOAD:
			payload_len = parse_hex(optarg, payload, sizeof(payload));
			if (payload_len < 0)
				goto bad;
			break;
		case O_VLAN:
			if (!parse_ul(optarg, 4094, &vlan) || !vlan)
				goto bad;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (vlan)
		hlen += 4;
	if (!dev || optind < argc || (have_src && random_src) ||
	    len < hlen + (size_t)payload_len) {
		usage(stderr);
		return 1;
	}

	fd = socket(AF_PACKET, SOCK_RAW, 0);
	if (fd < 0) {
		perror(PROG ": packet socket");
		return 1;
	}
	memset(&ifr, 0, sizeof(ifr));
	memset(&sll, 0, sizeof(sll));
	if (strlen(dev) >= sizeof(ifr.ifr_name) ||
	    !(sll.sll_ifindex = (int)if_nametoindex(dev))) {
		fprintf(stderr, PROG ": %s: no such device\n", dev);
		return 1;
	}
	strcpy(ifr.ifr_name, dev);
	if (!have_src) {
		if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) {
			perror(PROG ": SIOCGIFHWADDR");
			return 1;
		}
		memcpy(src, ifr.ifr_hwaddr.sa_data, ETH_ALEN);
	}
	sll.sll_family = AF_PACKET;
	sll.sll_halen = ETH_ALEN;
	memcpy(sll.sll_addr, dst, ETH_ALEN);

	memset(frame, 0, sizeof(frame));
	memcpy(frame, dst, ETH_ALEN);
	if (vlan) {
		frame[12] = 0x81;
		frame[13] = 0x00;
		frame[14] = (uint8_t)(vlan >> 8);
		frame[15] = (uint8_t)vlan;
	}
	frame[hlen - 2] = (uint8_t)(type >> 8);
	frame[hlen - 1] = (uint8_t)type;
	memcpy(frame + hlen, payload, (size_t)payload_len);
	for (i = 0; i < count; i++) {
		if (i && interval)
			sleep_us(interval);
		if (random_src) {
			uint32_t a = (uint32_t)i * 2654435761u + (uint32_t)seed;

			src[0] = 0x02;
			src[1] = (uint8_t)seed;
			src[2] = (uint8_t)(a >> 24);
			src[3] = (uint8_t)(a >> 16);
			src[4] = (uint8_t)(a >> 8);
			src[5] = (uint8_t)a;
		}
		memcpy(frame + ETH_ALEN, src, ETH_ALEN);
		/* frame i carries i, so a receiver can tell them apart */
		if (!payload_len && len >= hlen + 4) {
			frame[hlen] = (uint8_t)(i >> 24);
			frame[hlen + 1] = (uint8_t)(i >> 16);
			frame[hlen + 2] = (uint8_t)(i >> 8);
			frame[hlen + 3] = (uint8_t)i;
		}
		if (sendto(fd, frame, len, 0, (struct sockaddr *)&sll,
			   sizeof(sll)) != (ssize_t)len) {
			fprintf(stderr, PROG ": %s: frame %lu of %lu: %s\n", dev,
				i + 1, count, strerror(errno));
			return 1;
		}
	}
	close(fd);
	return 0;
bad:
	fprintf(stderr, PROG ": Illegal \"%s\" value \"%s\"\n", argv[optind - 1], optarg);
	return 1;
}
