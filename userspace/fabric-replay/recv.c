// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-replay recv: what arrives at one host, per SL, inside the
 * measured window.  Arrival is the kernel's receive timestamp
 * (SO_TIMESTAMPNS), so the time this process waits for the CPU does not
 * count as fabric latency.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fabric-replay.h"
#include "recn_trace.h"

#define FR_RCVBUF	(16 << 20)

static uint64_t rx_time(struct msghdr *m)
{
	struct cmsghdr *c;

	for (c = CMSG_FIRSTHDR(m); c; c = CMSG_NXTHDR(m, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_TIMESTAMPNS) {
			struct timespec ts;

			memcpy(&ts, CMSG_DATA(c), sizeof(ts));
			return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
		}
	}
	return fr_now_ns();
}

int fr_recv(const struct fr_recv_opts *o)
{
	struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons(o->port),
				    .sin_addr.s_addr = htonl(INADDR_ANY) };
	struct rt_window w = { .start = o->start_ns, .lo = o->lo_ns, .hi = o->hi_ns };
	uint64_t end = o->hi_ns + o->linger_ns, now;
	static uint8_t buf[65536];
	char ctl[CMSG_SPACE(sizeof(struct timespec))];
	int fd, one = 1, size = FR_RCVBUF, s;

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror(PROG ": socket");
		return 1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size)))
		perror(PROG ": SO_RCVBUF");
	if (setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		fprintf(stderr, PROG ": port %u: %s\n", o->port, strerror(errno));
		close(fd);
		return 1;
	}
	/* ready: a script can wait for this before the senders start */
	printf("listening\n");
	fflush(stdout);
	while ((now = fr_now_ns()) < end) {
		struct iovec iov = { .iov_base = buf, .iov_len = sizeof(buf) };
		struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = ctl, .msg_controllen = sizeof(ctl) };
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t left_ms = (end - now) / 1000000 + 1;
		struct rt_probe p;
		ssize_t n;

		if (poll(&pfd, 1, left_ms > 1000 ? 1000 : (int)left_ms) <= 0)
			continue;
		n = recvmsg(fd, &m, MSG_DONTWAIT);
		if (n < 0)
			continue;
		if (!rt_probe_get(buf, (uint32_t)n, &p)) {
			w.bad++;
			continue;
		}
		rt_account(&w, &p, rx_time(&m));
	}
	close(fd);
	for (s = 0; s < RT_SLS; s++) {
		const struct rt_sl_stats *st = &w.sl[s];

		printf("sl %d frames %" PRIu64 " bytes %" PRIu64 " lat_avg_ns %" PRIu64
		       " lat_max_ns %" PRIu64 " outside %" PRIu64 "\n", s, st->frames, st->bytes,
		       st->frames ? st->lat_sum_ns / st->frames : 0, st->lat_max_ns, st->outside);
	}
	printf("bad %" PRIu64 "\nstale %" PRIu64 "\n", w.bad, w.stale);
	return 0;
}
