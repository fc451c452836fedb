/* SPDX-License-Identifier: GPL-2.0 */
/*
 * recn_trace.h: the RECN experiment's traffic trace and what fabric-replay
 * puts on the wire for it (Documentation/recn.rst, "In the VM").
 *
 * A trace line is "time_ns src dst len sl" (scripts/recn-traffic.awk
 * writes them, qsim recn and fabric-replay read them): a frame of len
 * bytes, counted from its Ethernet header on without the fabric header,
 * offered by host src to host dst on service level sl at time_ns after
 * the start.  '#' starts a comment.
 *
 * fabric-replay sends each frame as one UDP datagram whose payload starts
 * with a probe: the frame's source, SL, sequence number, its length in
 * the trace and the time the trace offered it (not when it was sent:
 * queueing at the source counts, as in qsim).  A frame shorter than a
 * probe needs goes out a few bytes longer and counts as the trace's.  The receiver counts, per SL, what arrived inside the
 * measured window.  No I/O here; unit-tested on the host
 * (selftests/unit/test_recn_trace.c).
 */
#ifndef FQ_RECN_TRACE_H
#define FQ_RECN_TRACE_H

#include <stdbool.h>
#include <stdint.h>

#define RT_SLS		8
/* a trace's latest time, 2^62 ns (146 years): start + time cannot wrap */
#define RT_TIME_MAX	(1ULL << 62)
/* Ethernet + IPv4 + UDP: what a frame's len holds besides the payload. */
#define RT_FRAME_OVERHEAD	(14 + 20 + 8)
#define RT_PROBE_LEN	28
#define RT_PROBE_MAGIC	0x52454341u	/* "RECA" */
/* the shortest frame that holds a probe */
#define RT_FRAME_MIN	(RT_FRAME_OVERHEAD + RT_PROBE_LEN)

struct rt_frame {
	uint64_t	t_ns;
	uint32_t	src;
	uint32_t	dst;
	uint32_t	len;
	uint8_t		sl;
};

enum rt_parse {
	RT_FRAME,	/* a frame */
	RT_BLANK,	/* blank or a comment */
	RT_BAD,		/* not "time src dst len sl" with sl < 8, src != dst,
			   time at most RT_TIME_MAX */
};

enum rt_parse rt_parse_line(const char *line, struct rt_frame *f);

struct rt_probe {
	uint32_t	src;
	uint8_t		sl;
	uint32_t	seq;
	uint32_t	len;		/* the trace's */
	uint64_t	offered_ns;	/* CLOCK_REALTIME */
};

/* Writes RT_PROBE_LEN bytes. */
void rt_probe_put(uint8_t *buf, const struct rt_probe *p);
/* False if @len is short or the magic or SL is wrong. */
bool rt_probe_get(const uint8_t *buf, uint32_t len, struct rt_probe *p);

/* The UDP payload that makes a frame of @len bytes: never below a probe. */
uint32_t rt_payload_len(uint32_t len);

/* What a receiver saw of one SL in the window [lo, hi) of arrival times. */
struct rt_sl_stats {
	uint64_t	frames;
	uint64_t	bytes;		/* the trace's len */
	uint64_t	lat_sum_ns;
	uint64_t	lat_max_ns;
	uint64_t	outside;	/* arrived before or after the window */
};

struct rt_window {
	uint64_t	start;		/* the run's: frames offered before are stale */
	uint64_t	lo;
	uint64_t	hi;
	struct rt_sl_stats sl[RT_SLS];
	uint64_t	bad;		/* datagrams without a valid probe */
	uint64_t	stale;		/* an earlier run's frames, not counted */
};

/* Counts the frame of probe @p, arrived at @rx_ns. */
void rt_account(struct rt_window *w, const struct rt_probe *p, uint64_t rx_ns);

#endif /* FQ_RECN_TRACE_H */
