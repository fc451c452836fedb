// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-vc-count: count the fabric frames that arrive on an interface by
 * the VC their header carries, as they come off the wire (a packet socket
 * sees them before fabric_hdr strips the header).  For tests that check
 * what a switch put on the wire, e.g. that a frame it demoted says VC1.
 *
 *   fabric-vc-count -i IFACE -n COUNT -t TIMEOUT_MS [-r FILE] [-s]
 *
 * Stops after COUNT fabric frames or the timeout and prints
 * "frames=N vc0=N vc1=N other=N vc2=N vc3=N" (other: VCs 2 and 3, the
 * VCs a two-VC fabric does not have); -r names a file created once the
 * socket is bound; -s prints, on a second line "order=...", each frame's
 * VC in the order they came (one digit a frame).  Exit 0 if COUNT frames
 * arrived, 1 on timeout.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "core/fabric_hdr_core.h"

#define PROG "fabric-vc-count"

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static void usage(void)
{
	fprintf(stderr, "usage: " PROG " -i IFACE -n COUNT -t TIMEOUT_MS [-r FILE] [-s]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	unsigned long frames = 0, vc[4] = { 0, 0, 0, 0 }, want = 0;
	const char *ifname = NULL, *ready = NULL;
	char *order = NULL;
	bool seq = false;
	long long deadline, timeout = 0;
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	unsigned char buf[2048];
	int fd, opt;

	while ((opt = getopt(argc, argv, "i:n:t:r:s")) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'n': want = strtoul(optarg, NULL, 0); break;
		case 't': timeout = strtoll(optarg, NULL, 0); break;
		case 'r': ready = optarg; break;
		case 's': seq = true; break;
		default: usage();
		}
	}
	if (!ifname || !want || want > 10000000 || timeout <= 0)
		usage();
	if (seq && !(order = calloc(want + 1, 1))) {
		fprintf(stderr, PROG ": out of memory\n");
		return 2;
	}
	sll.sll_protocol = htons(ETH_P_FABRIC);
	sll.sll_ifindex = if_nametoindex(ifname);
	if (!sll.sll_ifindex) {
		fprintf(stderr, PROG ": %s: %s\n", ifname, strerror(errno));
		return 2;
	}
	/* SOCK_DGRAM: the link layer header is removed, the fabric header is not */
	fd = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_FABRIC));
	if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		fprintf(stderr, PROG ": packet socket: %s\n", strerror(errno));
		return 2;
	}
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (f)
			fclose(f);
	}
	deadline = now_ms() + timeout;
	while (frames < want) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long long left = deadline - now_ms();
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		struct fhc_fields f;
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			break;
		n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
		/* a frame this host sends is no arrival */
		if (n < FABRIC_HDR_LEN || from.sll_pkttype == PACKET_OUTGOING)
			continue;
		fhc_decode(buf, &f);
		if (order)
			order[frames] = (char)('0' + (f.vc & 3));
		frames++;
		vc[f.vc & 3]++;
	}
	printf("frames=%lu vc0=%lu vc1=%lu other=%lu vc2=%lu vc3=%lu\n", frames,
	       vc[0], vc[1], vc[2] + vc[3], vc[2], vc[3]);
	if (order)
		printf("order=%s\n", order);
	return frames >= want ? 0 : 1;
}
