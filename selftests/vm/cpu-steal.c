// SPDX-License-Identifier: GPL-2.0
/*
 * cpu-steal: how much CPU time everything else took while we waited.
 *
 * Spins on the clock and adds up the gaps between consecutive clock reads:
 * the time other tasks, interrupts and softirqs ran.  In the
 * deterministic benchmark VM (qemu -icount, one vCPU) guest time is
 * instruction count, so the stolen time is the instructions spent on work
 * we started, e.g. draining a qdisc's backlog in NET_TX softirq and
 * ksoftirqd.  The kernel's own accounting cannot tell this: without
 * CONFIG_IRQ_TIME_ACCOUNTING (Debian's default) softirq time is charged to
 * whichever task it interrupted.
 *
 * Usage: cpu-steal [--quiet-ms MS] [--max-s S] READY_FILE
 *   Writes READY_FILE once spinning, then stops when no gap longer than
 *   100 us has been seen for MS milliseconds (default 100), or after S
 *   seconds (default 10).  Prints "stolen_ns=N gaps=N elapsed_ns=N".
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* a loop turn takes well under a microsecond; anything longer was stolen */
#define GAP_NS		1000ULL
/* a gap this long is work, not just a timer tick */
#define BUSY_GAP_NS	100000ULL

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static void usage(void)
{
	fprintf(stderr, "usage: cpu-steal [--quiet-ms MS] [--max-s S] READY_FILE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	uint64_t quiet_ns = 100 * 1000000ULL, max_ns = 10 * 1000000000ULL;
	uint64_t start, prev, last_busy, stolen = 0, gaps = 0;
	const char *ready = NULL;
	int i, fd;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--quiet-ms") && i + 1 < argc)
			quiet_ns = strtoull(argv[++i], NULL, 10) * 1000000ULL;
		else if (!strcmp(argv[i], "--max-s") && i + 1 < argc)
			max_ns = strtoull(argv[++i], NULL, 10) * 1000000000ULL;
		else if (argv[i][0] != '-' && !ready)
			ready = argv[i];
		else
			usage();
	}
	if (!ready || !quiet_ns || !max_ns)
		usage();
	fd = open(ready, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "cpu-steal: %s: %s\n", ready, strerror(errno));
		return 1;
	}
	close(fd);

	start = prev = last_busy = now_ns();
	for (;;) {
		uint64_t t = now_ns(), gap = t - prev;

		if (gap > GAP_NS) {
			stolen += gap;
			gaps++;
			if (gap > BUSY_GAP_NS)
				last_busy = t;
		}
		prev = t;
		if (t - last_busy >= quiet_ns || t - start >= max_ns)
			break;
	}
	printf("stolen_ns=%llu gaps=%llu elapsed_ns=%llu\n",
	       (unsigned long long)stolen, (unsigned long long)gaps,
	       (unsigned long long)(prev - start));
	return prev - start >= max_ns;
}
