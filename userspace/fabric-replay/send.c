// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-replay send: one host's frames of the trace, each at its time.
 * A socket per SL, so that each SL's SO_PRIORITY picks its class in the
 * host's qdisc; the sockets' send buffers are made large enough that a
 * backlog waits in the qdisc (where RECN and the credits act on it), not
 * in a blocked sendto() that would hold every other SL back too.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h"
#include "fabric-replay.h"
#include "recn_trace.h"

/* room for a whole run's backlog of one SL: the qdisc's limit decides */
#define FR_SNDBUF	(64 << 20)
#define FR_PAYLOAD_MAX	65507

uint64_t fr_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000ULL),
			       .tv_nsec = (long)(t % 1000000000ULL) };

	while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static int open_sockets(const struct fr_send_opts *o, int *fd)
{
	int s, buf = FR_SNDBUF, one = 1;

	for (s = 0; s < RT_SLS; s++) {
		int prio = (int)(o->prio_base + (uint32_t)s);

		fd[s] = socket(AF_INET, SOCK_DGRAM, 0);
		if (fd[s] < 0) {
			perror(PROG ": socket");
			return -1;
		}
		/* FORCE passes wmem_max, as root; else what the sysctl allows */
		if (setsockopt(fd[s], SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)) &&
		    setsockopt(fd[s], SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf)))
			perror(PROG ": SO_SNDBUF");
		/*
		 * without it UDP hides the qdisc's drops (ENOBUFS) and every
		 * send "works": errors would not count them
		 */
		if (setsockopt(fd[s], IPPROTO_IP, IP_RECVERR, &one, sizeof(one))) {
			perror(PROG ": IP_RECVERR");
			return -1;
		}
		/* a class id needs CAP_NET_ADMIN */
		if (setsockopt(fd[s], SOL_SOCKET, SO_PRIORITY, &prio, sizeof(prio))) {
			fprintf(stderr, PROG ": SO_PRIORITY %x:%x: %s\n", (unsigned int)prio >> 16,
				(unsigned int)prio & 0xffff, strerror(errno));
			return -1;
		}
	}
	return 0;
}

int fr_send(const struct fr_send_opts *o)
{
	static uint8_t payload[FR_PAYLOAD_MAX];
	uint64_t frames = 0, bytes = 0, errors = 0, lag_max = 0, now;
	uint32_t seq[RT_SLS] = { 0 };
	int fd[RT_SLS], s, rc = 0;
	unsigned long lineno = 0;
	char line[256];
	struct rt_frame f;
	int r;
	FILE *in;

	for (s = 0; s < RT_SLS; s++)
		fd[s] = -1;
	in = strcmp(o->trace, "-") ? fopen(o->trace, "r") : stdin;
	if (!in) {
		fprintf(stderr, PROG ": %s: %s\n", o->trace, strerror(errno));
		return 1;
	}
	if (open_sockets(o, fd)) {
		rc = 1;
		goto out;
	}
	while ((r = read_line(line, sizeof(line), in))) {
		struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(o->port) };
		struct rt_probe p;
		uint32_t plen;

		lineno++;
		if (r < 0) {
			fprintf(stderr, PROG ": %s:%lu: longer than %zu characters\n",
				o->trace, lineno, sizeof(line) - 1);
			rc = 1;
			goto out;
		}
		switch (rt_parse_line(line, &f)) {
		case RT_BLANK:
			continue;
		case RT_BAD:
			fprintf(stderr, PROG ": %s:%lu: want \"time_ns src dst len sl\", src != dst, sl 0 .. 7\n",
				o->trace, lineno);
			rc = 1;
			goto out;
		case RT_FRAME:
			break;
		}
		if (f.src != o->host || f.t_ns >= o->until_ns)
			continue;
		plen = rt_payload_len(f.len);
		if (f.dst > 65532 || plen > FR_PAYLOAD_MAX) {
			fprintf(stderr, PROG ": %s:%lu: host %" PRIu32 " or %" PRIu32 " bytes out of range\n",
				o->trace, lineno, f.dst, f.len);
			rc = 1;
			goto out;
		}
		to.sin_addr.s_addr = htonl((uint32_t)o->net[0] << 24 | (uint32_t)o->net[1] << 16 |
					   (f.dst + 1));
		p = (struct rt_probe){ .src = o->host, .sl = f.sl, .seq = seq[f.sl]++,
				       .len = f.len, .offered_ns = o->start_ns + f.t_ns };
		now = fr_now_ns();
		if (now < p.offered_ns) {
			sleep_until(p.offered_ns);
			now = fr_now_ns();
		}
		if (now - p.offered_ns > lag_max)
			lag_max = now - p.offered_ns;
		rt_probe_put(payload, &p);
		if (sendto(fd[f.sl], payload, plen, 0, (struct sockaddr *)&to, sizeof(to)) < 0) {
			errors++;
			continue;
		}
		frames++;
		bytes += f.len;
	}
	if (ferror(in)) {
		fprintf(stderr, PROG ": %s: read error\n", o->trace);
		rc = 1;
	}
	printf("sent frames %" PRIu64 " bytes %" PRIu64 " errors %" PRIu64 " lag_max_ns %" PRIu64 "\n",
	       frames, bytes, errors, lag_max);
out:
	for (s = 0; s < RT_SLS; s++)
		if (fd[s] >= 0)
			close(fd[s]);
	if (in != stdin)
		fclose(in);
	return rc;
}
