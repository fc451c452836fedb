// SPDX-License-Identifier: GPL-2.0
/*
 * tcp-bulk: one TCP bulk transfer, to measure and to check what a qdisc
 * does to TSO/GSO traffic (edf keeping GSO packets whole with the fabric
 * header, and that header's segmentation).
 *
 *   tcp-bulk -l ADDR -p PORT -t TIMEOUT_MS [-r FILE]   receive
 *   tcp-bulk -c ADDR -p PORT -b BYTES -t TIMEOUT_MS    send
 *
 * The sender writes BYTES of a known pattern in 64 KB writes, shuts its
 * side down and waits for the receiver to close, so that everything sent
 * was received.  The receiver takes one connection, reads to the end,
 * checks every byte against the pattern and prints
 *
 *   bytes=N ns=N bad=N
 *
 * ns: CLOCK_MONOTONIC from the first byte to the end of the stream (in
 * the deterministic VM, guest time, so bytes per guest second is a cost
 * measure); bad: bytes that differ from the pattern.  -r names a file
 * created once the receiver listens.  Exit 0 when the stream ended
 * within the timeout with no bad byte (the receiver) or was sent whole
 * (the sender); 1 otherwise.  IPv4 or IPv6 literal addresses.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define PROG "tcp-bulk"
#define CHUNK 65536

static void usage(void)
{
	fprintf(stderr,
		"usage: " PROG " -l ADDR -p PORT -t TIMEOUT_MS [-r FILE]\n"
		"       " PROG " -c ADDR -p PORT -b BYTES -t TIMEOUT_MS\n");
	exit(2);
}

static bool parse_ull(const char *s, unsigned long long max,
		      unsigned long long *v)
{
	char *end;

	if (*s == '-')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && end != s && !*end && *v <= max;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * The stream repeats a table of PERIOD bytes, PERIOD prime so that a
 * chunk misplaced by any multiple of a segment size shows.  Read from
 * the table both ends copy and compare at memory speed, so the figure
 * is the kernel's, not the pattern's.
 */
#define PERIOD 65521
static unsigned char table[PERIOD + CHUNK];

static void table_init(void)
{
	unsigned int i, x = 12345;

	for (i = 0; i < sizeof(table); i++) {
		if (i < PERIOD) {
			x = x * 1103515245 + 12345;
			table[i] = x >> 16;
		} else {
			table[i] = table[i - PERIOD];
		}
	}
}

/* @n (at most CHUNK) bytes of the stream from @off */
static const unsigned char *pattern_at(unsigned long long off)
{
	return table + off % PERIOD;
}

/* bytes of @buf that differ from the stream at @off */
static unsigned long long count_bad(const unsigned char *buf, size_t n,
				    unsigned long long off)
{
	const unsigned char *want = pattern_at(off);
	unsigned long long bad = 0;
	size_t i;

	if (!memcmp(buf, want, n))
		return 0;
	for (i = 0; i < n; i++)
		bad += buf[i] != want[i];
	return bad;
}

static int parse_addr(const char *addr, unsigned short port,
		      struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *a4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &a4->sin_addr) == 1) {
		a4->sin_family = AF_INET;
		a4->sin_port = htons(port);
		*len = sizeof(*a4);
		return AF_INET;
	}
	if (inet_pton(AF_INET6, addr, &a6->sin6_addr) == 1) {
		a6->sin6_family = AF_INET6;
		a6->sin6_port = htons(port);
		*len = sizeof(*a6);
		return AF_INET6;
	}
	fprintf(stderr, PROG ": bad address \"%s\"\n", addr);
	exit(2);
}

/* Wait until @fd is ready for @events or @deadline (ns) passed. */
static bool wait_fd(int fd, short events, long long deadline)
{
	struct pollfd pfd = { .fd = fd, .events = events };
	long long left;

	while ((left = (deadline - now_ns()) / 1000000) > 0) {
		if (poll(&pfd, 1, (int)(left > 60000 ? 60000 : left)) > 0)
			return true;
	}
	return false;
}

static int receive(const char *addr, unsigned short port, long long deadline,
		   const char *ready)
{
	unsigned long long bytes = 0, bad = 0;
	static unsigned char buf[CHUNK];
	struct sockaddr_storage ss;
	long long first = 0, last = 0;
	socklen_t len;
	int lfd, fd, one = 1, family;
	ssize_t n;

	family = parse_addr(addr, port, &ss, &len);
	lfd = socket(family, SOCK_STREAM, 0);
	if (lfd < 0 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(lfd, (struct sockaddr *)&ss, len) || listen(lfd, 1)) {
		fprintf(stderr, PROG ": listen: %s\n", strerror(errno));
		return 2;
	}
	if (ready) {
		FILE *f = fopen(ready, "w");

		if (f)
			fclose(f);
	}
	if (!wait_fd(lfd, POLLIN, deadline) || (fd = accept(lfd, NULL, NULL)) < 0) {
		fprintf(stderr, PROG ": no connection\n");
		return 1;
	}
	for (;;) {
		if (!wait_fd(fd, POLLIN, deadline)) {
			fprintf(stderr, PROG ": timeout after %llu bytes\n", bytes);
			return 1;
		}
		n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, PROG ": read: %s\n", strerror(errno));
			return 1;
		}
		if (n == 0)
			break;
		last = now_ns();
		if (!bytes)
			first = last;
		bad += count_bad(buf, n, bytes);
		bytes += n;
	}
	close(fd);
	printf("bytes=%llu ns=%lld bad=%llu\n", bytes, last - first, bad);
	return bad ? 1 : 0;
}

static int send_all(const char *addr, unsigned short port,
		    unsigned long long total, long long deadline)
{
	static unsigned char buf[CHUNK];
	const unsigned char *p;
	unsigned long long sent = 0;
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, family;
	size_t want;
	ssize_t n;

	family = parse_addr(addr, port, &ss, &len);
	fd = socket(family, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&ss, len)) {
		fprintf(stderr, PROG ": connect: %s\n", strerror(errno));
		return 1;
	}
	while (sent < total) {
		want = total - sent < CHUNK ? (size_t)(total - sent) : CHUNK;
		p = pattern_at(sent);
		if (!wait_fd(fd, POLLOUT, deadline)) {
			fprintf(stderr, PROG ": timeout after %llu bytes\n", sent);
			return 1;
		}
		n = write(fd, p, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			fprintf(stderr, PROG ": write: %s\n", strerror(errno));
			return 1;
		}
		sent += n;
	}
	shutdown(fd, SHUT_WR);
	/* the receiver closes once it read everything */
	while (wait_fd(fd, POLLIN, deadline) && read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	const char *listen_addr = NULL, *connect_addr = NULL, *ready = NULL;
	unsigned long long port = 0, bytes = 0, timeout = 0;
	int opt;

	table_init();
	while ((opt = getopt(argc, argv, "l:c:p:b:t:r:")) != -1) {
		switch (opt) {
		case 'l': listen_addr = optarg; break;
		case 'c': connect_addr = optarg; break;
		case 'p':
			if (!parse_ull(optarg, 65535, &port) || !port)
				usage();
			break;
		case 'b':
			if (!parse_ull(optarg, 1ULL << 40, &bytes) || !bytes)
				usage();
			break;
		case 't':
			if (!parse_ull(optarg, 24ULL * 3600 * 1000, &timeout) ||
			    !timeout)
				usage();
			break;
		case 'r': ready = optarg; break;
		default: usage();
		}
	}
	if (!port || !timeout || !listen_addr == !connect_addr ||
	    (connect_addr && !bytes))
		usage();
	if (listen_addr)
		return receive(listen_addr, port,
			       now_ns() + (long long)timeout * 1000000, ready);
	return send_all(connect_addr, port, bytes,
			now_ns() + (long long)timeout * 1000000);
}
