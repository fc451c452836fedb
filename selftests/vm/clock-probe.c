// SPDX-License-Identifier: GPL-2.0
/*
 * clock-probe: how far another machine's CLOCK_MONOTONIC is from ours,
 * for the two-VM test (vm/pair_clocks.sh), whose point is that the two
 * clocks differ and nothing synchronises them.
 *
 *   clock-probe serve -p PORT            answer every probe, forever
 *   clock-probe ask -a ADDR -p PORT [-n TRIES]
 *
 * "ask" sends TRIES probes one after the other (default 50).  For each it
 * reads its own clock just before sending (t1) and just after the answer
 * (t2); the answer carries the server's clock when it answered (r).  The
 * server's clock then read r while ours read somewhere in [t1, t2], so
 * offset = r - (t1 + t2) / 2 is known to within (t2 - t1) / 2.  The probe
 * with the shortest round trip gives the tightest bound, and it is the
 * one printed, as one line:
 *
 *   offset_ns OFFSET rtt_ns RTT at_ns AT
 *
 * (OFFSET: the server's clock minus ours; RTT: the probe's round trip;
 * AT: our clock in mid-probe, all in nanoseconds).  Two lines taken
 * some time apart give the drift of one clock against the other.
 * Exit 0 when at least one probe was answered, 1 otherwise.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROG "clock-probe"
#define PROBE_MAGIC	0xC10CC10Cu
#define ANSWER_WAIT_MS	1000

/* a probe and its answer: the asker's sequence number, the server's clock */
struct probe {
	uint32_t magic;
	uint32_t seq;
	uint64_t server_ns;
} __attribute__((packed));

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: " PROG " serve -p PORT\n"
		   "       " PROG " ask -a ADDR -p PORT [ -n TRIES ]\n"
		   "ask prints: offset_ns OFFSET rtt_ns RTT at_ns LOCAL_CLOCK\n");
}

static int udp_socket(uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons(port) };
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	if (fd < 0) {
		perror(PROG ": socket");
		exit(1);
	}
	if (port && bind(fd, (struct sockaddr *)&sin, sizeof(sin))) {
		perror(PROG ": bind");
		exit(1);
	}
	return fd;
}

static int serve(uint16_t port)
{
	int fd = udp_socket(port);

	for (;;) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		struct probe p;
		ssize_t n;

		n = recvfrom(fd, &p, sizeof(p), 0, (struct sockaddr *)&from, &fl);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			perror(PROG ": recvfrom");
			return 1;
		}
		if (n != sizeof(p) || ntohl(p.magic) != PROBE_MAGIC)
			continue;	/* not ours: no answer */
		p.server_ns = htobe64(now_ns());
		sendto(fd, &p, sizeof(p), 0, (struct sockaddr *)&from, fl);
	}
}

static int ask(const char *addr, uint16_t port, unsigned int tries)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(port) };
	uint64_t best_rtt = UINT64_MAX, best_mid = 0;
	int64_t best_off = 0;
	int fd = udp_socket(0);
	unsigned int i;

	if (inet_pton(AF_INET, addr, &to.sin_addr) != 1) {
		fprintf(stderr, PROG ": bad address '%s'\n", addr);
		return 2;
	}
	for (i = 0; i < tries; i++) {
		struct probe p = { .magic = htonl(PROBE_MAGIC), .seq = htonl(i) };
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t t1, t2, server;
		struct probe r;

		t1 = now_ns();
		if (sendto(fd, &p, sizeof(p), 0, (struct sockaddr *)&to, sizeof(to)) < 0) {
			perror(PROG ": sendto");
			return 1;
		}
		/* an answer to an earlier, timed-out probe is not this one's */
		for (;;) {
			if (poll(&pfd, 1, ANSWER_WAIT_MS) <= 0)
				break;
			if (recv(fd, &r, sizeof(r), 0) != sizeof(r) ||
			    ntohl(r.magic) != PROBE_MAGIC || ntohl(r.seq) != i)
				continue;
			t2 = now_ns();
			server = be64toh(r.server_ns);
			if (t2 - t1 < best_rtt) {
				best_rtt = t2 - t1;
				best_mid = t1 + (t2 - t1) / 2;
				best_off = (int64_t)(server - best_mid);
			}
			break;
		}
	}
	if (best_rtt == UINT64_MAX) {
		fprintf(stderr, PROG ": no answer from %s port %u\n", addr, port);
		return 1;
	}
	printf("offset_ns %" PRId64 " rtt_ns %" PRIu64 " at_ns %" PRIu64 "\n",
	       best_off, best_rtt, best_mid);
	return 0;
}

int main(int argc, char **argv)
{
	const char *addr = NULL;
	unsigned long port = 0, tries = 50;
	int c;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	optind = 2;
	while ((c = getopt(argc, argv, "a:p:n:h")) != -1) {
		switch (c) {
		case 'a':
			addr = optarg;
			break;
		case 'p':
			port = strtoul(optarg, NULL, 10);
			break;
		case 'n':
			tries = strtoul(optarg, NULL, 10);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!port || port > 65535 || !tries || tries > 100000) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "serve"))
		return serve(port);
	if (!strcmp(argv[1], "ask") && addr)
		return ask(addr, port, tries);
	usage(stderr);
	return 2;
}
