// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-meter: small helpers every part uses: the run's clock, signals,
 * error messages, memory and addresses.
 */
#include <arpa/inet.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "fabric-meter.h"

/* Every run ends: this long after its --duration at the latest. */
#define HARD_CAP_EXTRA_S	30

volatile sig_atomic_t stop_requested;
static clockid_t run_clock = CLOCK_REALTIME;
const char *run_clock_name = "realtime";

static void on_signal(int sig)
{
	stop_requested = 1;
}

static void on_alarm(int sig)
{
	static const char msg[] = PROG ": hard time limit reached, exiting\n";

	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0)
		_exit(1);
	_exit(1);
}

/*
 * SIGINT / SIGTERM end a run early and still print results; SIGALRM is
 * the hard cap, armed at --duration + HARD_CAP_EXTRA_S.
 */
void catch_signals(double duration_s)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	alarm((unsigned int)ceil(duration_s) + HARD_CAP_EXTRA_S);
}

int64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

int64_t now_ns(void)
{
	return clock_ns(run_clock);
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs(PROG ": ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs("\n" PROG ": try '" PROG " --help'\n", stderr);
	return EXIT_USAGE;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		fprintf(stderr, PROG ": out of memory\n");
		exit(1);
	}
	return p;
}

int resolve(const char *addr, uint16_t port, struct sockaddr_storage *ss,
	    socklen_t *len)
{
	struct addrinfo hints = {
		.ai_family = AF_UNSPEC,
		.ai_socktype = SOCK_DGRAM,
		.ai_flags = AI_NUMERICSERV,
	};
	struct addrinfo *res;
	char serv[8];
	int err;

	snprintf(serv, sizeof(serv), "%u", port);
	err = getaddrinfo(addr, serv, &hints, &res);
	if (err) {
		fprintf(stderr, PROG ": cannot resolve '%s': %s\n", addr, gai_strerror(err));
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

const char *addr_str(const struct sockaddr_storage *ss)
{
	static char buf[INET6_ADDRSTRLEN + 8];
	const void *a = ss->ss_family == AF_INET6 ?
		(const void *)&((const struct sockaddr_in6 *)ss)->sin6_addr :
		(const void *)&((const struct sockaddr_in *)ss)->sin_addr;

	if (!inet_ntop(ss->ss_family, a, buf, sizeof(buf)))
		return "?";
	return buf;
}

int set_clock(const char *name)
{
	if (!strcmp(name, "realtime"))
		run_clock = CLOCK_REALTIME;
	else if (!strcmp(name, "tai"))
		run_clock = CLOCK_TAI;
	else if (!strcmp(name, "monotonic"))
		run_clock = CLOCK_MONOTONIC;
	else
		return usage_error("invalid --clock '%s': want realtime, tai or monotonic", name);
	run_clock_name = name;
	return 0;
}

uint8_t clock_code(void)
{
	return run_clock == CLOCK_REALTIME ? 0 : run_clock == CLOCK_TAI ? 1 : 2;
}
