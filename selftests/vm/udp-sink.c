// SPDX-License-Identifier: GPL-2.0
/*
 * udp-sink: receive a known number of UDP datagrams within a deadline and
 * print their payloads, one per line, for shell tests to compare.  The
 * shell cannot tell when a background receiver has bound its socket, so
 * -r names a file that appears once it has; tests poll for it instead of
 * sleeping.
 *
 *   udp-sink -p PORT -n COUNT -t TIMEOUT_MS [-a ADDR] [-r FILE]
 *
 * Exit 0 once COUNT datagrams arrived, 1 if the timeout struck first
 * (with the number received on stderr).  COUNT 0 inverts the test: exit 0
 * if nothing arrives within the timeout, 1 on the first datagram.
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

#define PROG "udp-sink"

static void usage(FILE *f)
{
	fprintf(f, "Usage: " PROG " -p PORT -n COUNT -t TIMEOUT_MS [ -a ADDR ] [ -r FILE ]\n");
}

static bool parse_ulong(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	if (*s == '-')
		return false;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return !errno && end != s && !*end && *v <= max;
}

static int bad_value(int opt, const char *val)
{
	fprintf(stderr, PROG ": Illegal \"-%c\" value \"%s\"\n", opt, val);
	return 1;
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Bind to @addr (IPv4 or IPv6 literal, default any) and @port. */
static int open_socket(const char *addr, unsigned short port)
{
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6 };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct sockaddr *sa;
	socklen_t salen;
	int fd;

	if (!addr || inet_pton(AF_INET, addr, &sin.sin_addr) == 1) {
		sin.sin_port = htons(port);
		sa = (struct sockaddr *)&sin;
		salen = sizeof(sin);
	} else if (inet_pton(AF_INET6, addr, &sin6.sin6_addr) == 1) {
		sin6.sin6_port = htons(port);
		sa = (struct sockaddr *)&sin6;
		salen = sizeof(sin6);
	} else {
		fprintf(stderr, PROG ": Illegal address \"%s\"\n", addr);
		return -1;
	}

	fd = socket(sa->sa_family, SOCK_DGRAM, 0);
	if (fd < 0) {
		fprintf(stderr, PROG ": socket: %s\n", strerror(errno));
		return -1;
	}
	if (bind(fd, sa, salen) < 0) {
		fprintf(stderr, PROG ": bind %s port %u: %s\n",
			addr ? addr : "*", port, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Create @path atomically, so a poller never sees it half written. */
static int signal_ready(const char *path)
{
	char tmp[4096];
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		fprintf(stderr, PROG ": ready file name too long\n");
		return -1;
	}
	f = fopen(tmp, "w");
	if (!f || fputs("ready\n", f) == EOF || fclose(f) == EOF ||
	    rename(tmp, path) < 0) {
		fprintf(stderr, PROG ": writing %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static char buf[65536];
	unsigned long port = 0, count = 0, timeout_ms = 0, got = 0;
	const char *addr = NULL, *ready = NULL;
	bool have_port = false, have_count = false, have_timeout = false;
	long long deadline, left;
	struct pollfd pfd;
	ssize_t n;
	int c, fd;

	while ((c = getopt(argc, argv, "p:n:t:a:r:h")) != -1) {
		switch (c) {
		case 'p':
			have_port = parse_ulong(optarg, 65535, &port) && port;
			if (!have_port)
				return bad_value(c, optarg);
			break;
		case 'n':
			have_count = parse_ulong(optarg, 1000000000UL, &count);
			if (!have_count)
				return bad_value(c, optarg);
			break;
		case 't':
			have_timeout = parse_ulong(optarg, 3600000UL, &timeout_ms);
			if (!have_timeout)
				return bad_value(c, optarg);
			break;
		case 'a':
			addr = optarg;
			break;
		case 'r':
			ready = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (!have_port || !have_count || !have_timeout || optind < argc) {
		usage(stderr);
		return 1;
	}

	fd = open_socket(addr, (unsigned short)port);
	if (fd < 0)
		return 1;
	if (ready && signal_ready(ready) < 0)
		return 1;

	deadline = now_ms() + (long long)timeout_ms;
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (!count || got < count) {
		left = deadline - now_ms();
		if (left <= 0)
			break;
		if (poll(&pfd, 1, (int)left) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, PROG ": poll: %s\n", strerror(errno));
			return 1;
		}
		if (!(pfd.revents & POLLIN))
			continue;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, PROG ": recv: %s\n", strerror(errno));
			return 1;
		}
		fwrite(buf, 1, (size_t)n, stdout);
		putchar('\n');
		fflush(stdout);
		got++;
		if (!count) {
			fprintf(stderr, PROG ": expected no datagram, got one\n");
			return 1;
		}
	}
	close(fd);
	if (count && got < count) {
		fprintf(stderr, PROG ": timeout after %lu ms: got %lu of %lu datagrams\n",
			timeout_ms, got, count);
		return 1;
	}
	return 0;
}
