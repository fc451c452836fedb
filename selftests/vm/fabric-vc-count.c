// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-vc-count: count the fabric frames that arrive on an interface by
 * the VC their header carries, as they come off the wire (a packet socket
 * sees them before fabric_hdr strips the header).  For tests that check
 * what a switch put on the wire, e.g. that a frame it demoted says VC1.
 *
 *   fabric-vc-count -i IFACE -n COUNT -t TIMEOUT_MS [-r FILE] [-s] [-q]
 *
 * Stops after COUNT fabric frames or the timeout and prints
 * "frames=N vc0=N vc1=N other=N vc2=N vc3=N" (other: VCs 2 and 3, the
 * VCs a two-VC fabric does not have); -r names a file created once the
 * socket is bound; -s prints, on a second line "order=...", each frame's
 * VC in the order they came (one digit a frame).  -q checks the frames'
 * numbering, for the segments of GSO frames: it prints "seq flows=N
 * gaps=N missing=N dups=N far=N heads=N tails=N big=N drops=N".  Per
 * flow (at most 64 are followed, later ones are not checked): gaps,
 * frames whose number is not the one after the frame before (out of
 * order: frames a veth's peer received on different CPUs interleave);
 * missing, numbers between the lowest and the highest that no frame
 * carried; dups, numbers carried twice; far, frames more than 2^20
 * numbers from their flow's first (not checked).  heads and tails: the
 * frames flagged first and last of a message; big: frames longer than
 * 2048 bytes (GSO packets that arrived whole); drops: the
 * frames the socket itself lost (it asks for a 64 MB buffer; then there
 * should be none, or the other counts are short).  SIGTERM
 * ends the count early, as a timeout does.  Exit 0 if COUNT frames
 * arrived, 1 on timeout or SIGTERM.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
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
	fprintf(stderr, "usage: " PROG " -i IFACE -n COUNT -t TIMEOUT_MS [-r FILE] [-s] [-q]\n");
	exit(2);
}

#define SEQ_FLOWS 64
#define SEQ_SPAN (1 << 20)	/* numbers followed either side of a flow's first */

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	stop = 1;
}

/* -q: which numbers each flow's frames carried, and what was counted */
struct seq_flow {
	fq_u32 flow_id, first, last;
	long lo, hi;			/* lowest, highest seen, from first */
	unsigned char *seen;		/* a bit per number, first at SEQ_SPAN */
};

struct seq_check {
	unsigned int flows;
	struct seq_flow flow[SEQ_FLOWS];
	unsigned long gaps, dups, far, heads, tails, big;
};

static void seq_mark(struct seq_check *c, struct seq_flow *sf, fq_u32 seq)
{
	long off = (fq_s32)(seq - sf->first), bit;

	if (off <= -SEQ_SPAN || off >= SEQ_SPAN) {
		c->far++;
		return;
	}
	bit = off + SEQ_SPAN;
	if (sf->seen[bit / 8] & (1 << bit % 8))
		c->dups++;
	sf->seen[bit / 8] |= 1 << bit % 8;
	if (off < sf->lo)
		sf->lo = off;
	if (off > sf->hi)
		sf->hi = off;
}

static void seq_note(struct seq_check *c, const struct fhc_fields *f,
		     ssize_t len)
{
	struct seq_flow *sf;
	unsigned int i;

	c->heads += f->head;
	c->tails += f->tail;
	c->big += len > 2048;
	for (i = 0; i < c->flows; i++) {
		sf = &c->flow[i];
		if (sf->flow_id != f->flow_id)
			continue;
		c->gaps += f->seq != sf->last + 1;
		sf->last = f->seq;
		seq_mark(c, sf, f->seq);
		return;
	}
	if (c->flows == SEQ_FLOWS)
		return;
	sf = &c->flow[c->flows];
	sf->seen = calloc(2 * SEQ_SPAN / 8, 1);
	if (!sf->seen) {
		fprintf(stderr, PROG ": out of memory\n");
		exit(2);
	}
	c->flows++;
	sf->flow_id = f->flow_id;
	sf->first = sf->last = f->seq;
	seq_mark(c, sf, f->seq);
}

/* Numbers between a flow's lowest and highest that no frame carried. */
static unsigned long seq_missing(const struct seq_check *c)
{
	unsigned long missing = 0;
	unsigned int i;
	long off, bit;

	for (i = 0; i < c->flows; i++)
		for (off = c->flow[i].lo; off <= c->flow[i].hi; off++) {
			bit = off + SEQ_SPAN;
			missing += !(c->flow[i].seen[bit / 8] & (1 << bit % 8));
		}
	return missing;
}

int main(int argc, char **argv)
{
	unsigned long frames = 0, vc[4] = { 0, 0, 0, 0 }, want = 0;
	const char *ifname = NULL, *ready = NULL;
	char *order = NULL;
	bool seq = false, number = false;
	struct seq_check sc = { 0 };
	long long deadline, timeout = 0;
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	unsigned char buf[2049];
	int fd, opt;

	while ((opt = getopt(argc, argv, "i:n:t:r:sq")) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'n': want = strtoul(optarg, NULL, 0); break;
		case 't': timeout = strtoll(optarg, NULL, 0); break;
		case 'r': ready = optarg; break;
		case 's': seq = true; break;
		case 'q': number = true; break;
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
	/*
	 * -q must see every frame: room for a transfer's worth of whole GSO
	 * packets (as root; else the default stays), and the socket's own
	 * drops reported with the result
	 */
	if (number) {
		int rcvbuf = 64 << 20;

		setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf));
	}
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (f)
			fclose(f);
	}
	/* no SA_RESTART: the signal interrupts poll() and recvfrom() */
	sigaction(SIGTERM, &(struct sigaction){ .sa_handler = on_term }, NULL);
	deadline = now_ms() + timeout;
	while (frames < want && !stop) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		long long left = deadline - now_ms();
		struct sockaddr_ll from;
		socklen_t fl = sizeof(from);
		struct fhc_fields f;
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			break;
		/* MSG_TRUNC: the frame's length, however much of it fits */
		n = recvfrom(fd, buf, sizeof(buf), MSG_TRUNC,
			     (struct sockaddr *)&from, &fl);
		/* a frame this host sends is no arrival */
		if (n < FABRIC_HDR_LEN || from.sll_pkttype == PACKET_OUTGOING)
			continue;
		fhc_decode(buf, &f);
		if (order)
			order[frames] = (char)('0' + (f.vc & 3));
		frames++;
		vc[f.vc & 3]++;
		if (number)
			seq_note(&sc, &f, n);
	}
	printf("frames=%lu vc0=%lu vc1=%lu other=%lu vc2=%lu vc3=%lu\n", frames,
	       vc[0], vc[1], vc[2] + vc[3], vc[2], vc[3]);
	if (order)
		printf("order=%s\n", order);
	if (number) {
		struct tpacket_stats st = { 0 };
		socklen_t sl = sizeof(st);

		if (getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &sl))
			st.tp_drops = (unsigned int)-1;
		printf("seq flows=%u gaps=%lu missing=%lu dups=%lu far=%lu heads=%lu tails=%lu big=%lu drops=%u\n",
		       sc.flows, sc.gaps, seq_missing(&sc), sc.dups, sc.far,
		       sc.heads, sc.tails, sc.big, st.tp_drops);
	}
	return frames >= want ? 0 : 1;
}
