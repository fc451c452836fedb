/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fabric-replay: replays a RECN traffic trace (userspace/lib/recn_trace.h)
 * on live hosts of a fabric and measures, per service level, what
 * arrives: the VM half of the RECN experiment (Documentation/recn.rst,
 * "In the VM"; selftests/demo/recn.sh).
 *
 *   main.c   the command line and usage
 *   send.c   one host's frames of the trace, each at its time, on a UDP
 *            socket per SL whose SO_PRIORITY picks the host qdisc's class
 *   recv.c   one host's receiver: per SL, frames, bytes and latency
 *            inside the measured window
 *
 * Every host's sender and receiver share one wall clock (namespaces of
 * one machine, or machines kept in step by PTP): CLOCK_REALTIME.
 */
#ifndef FABRIC_REPLAY_H
#define FABRIC_REPLAY_H

#include <stdint.h>

#define PROG "fabric-replay"

struct fr_send_opts {
	const char	*trace;		/* "-": stdin */
	uint32_t	host;
	uint64_t	start_ns;	/* CLOCK_REALTIME of the trace's time 0 */
	uint64_t	until_ns;	/* frames offered at or after it stay unsent */
	uint8_t		net[2];		/* host h is A.B.0.0 + h + 1 (fabric-topo's) */
	uint16_t	port;
	uint32_t	prio_base;	/* SO_PRIORITY of SL 0; SL s: + s */
};

struct fr_recv_opts {
	uint16_t	port;
	uint64_t	start_ns;	/* frames offered before it are stale */
	uint64_t	lo_ns;		/* the window, CLOCK_REALTIME */
	uint64_t	hi_ns;
	uint64_t	linger_ns;	/* listen on past hi_ns, for the outside count */
};

uint64_t fr_now_ns(void);
int fr_send(const struct fr_send_opts *o);
int fr_recv(const struct fr_recv_opts *o);

#endif /* FABRIC_REPLAY_H */
