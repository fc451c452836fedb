// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-send's fuzzers (fabric-send.h): --fuzz, --link-fuzz and
 * --recn-fuzz send the frames that userspace/lib's frame_fuzz, link_fuzz
 * and recn_fuzz make, and count each as the receiver must take it.
 * --link-fuzz first listens for the peer's epoch, to echo it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fabric-send.h"
#include "frame_fuzz.h"
#include "link_fuzz.h"
#include "recn_fuzz.h"

/* --fuzz: COUNT random frames, each counted by what the receiver makes of it */
int fs_fuzz(const struct fs_opts *o, int fd, const struct sockaddr_ll *sll,
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
		for (;;) {
			if (sendto(fd, frame, len, 0, (const struct sockaddr *)sll,
				   sizeof(*sll)) == (ssize_t)len) {
				n[cls]++;
				sent++;
				break;
			}
			if (errno == EMSGSIZE || errno == EINVAL) {
				refused++;	/* past the MTU, or too short for the device */
				break;
			}
			if (errno != ENOBUFS && errno != EAGAIN) {
				fprintf(stderr, PROG ": %s: sending fuzz frame %lu: %s\n",
					o->dev, i + 1, strerror(errno));
				return 1;
			}
			/*
			 * The device queue is full: this frame again, so that
			 * the frames follow from the seed alone
			 */
			fs_sleep_us(100);
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
int fs_recn_fuzz(const struct fs_opts *o, int fd,
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
int fs_link_fuzz(const struct fs_opts *o, int fd,
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
