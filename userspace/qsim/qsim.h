/* SPDX-License-Identifier: GPL-2.0 */
/*
 * qsim: trace-driven simulator of the project's schedulers, built from the
 * same portable core (kernel/core/) as the kernel modules.  Each family of
 * disciplines is one subcommand in its own file:
 *
 *   qsim port   ...   switch output port, two VCs (fifo / takeover / ideal)
 *   qsim table  ...   table schedulers (dtable / sbt / rr)
 *   qsim lanes  ...   lane schedulers at flit level (aoq / fbrr / arr / pbrr)
 *   qsim switch ...   input/output buffered switch, lossless (trad / simple /
 *                     advanced / ideal)
 *   qsim fbs    ...   FBS slot schedules: drifting clocks held in step by
 *                     back-pressure
 *   qsim recn   ...   RECN congestion isolation in a two-level lossless
 *                     fabric (fifo / voq / recn)
 *
 * A subcommand gets argv with argv[0] set to its own name and returns the
 * process exit status.
 */
#ifndef QSIM_H
#define QSIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct qsim_cmd {
	const char *name;
	const char *summary;	/* one line for "qsim --help" */
	int (*main)(int argc, char **argv);
};

/* Each subcommand's file defines one of these; main.c lists them. */
extern const struct qsim_cmd qsim_cmd_port;
extern const struct qsim_cmd qsim_cmd_table;
extern const struct qsim_cmd qsim_cmd_lanes;
extern const struct qsim_cmd qsim_cmd_switch;
extern const struct qsim_cmd qsim_cmd_fbs;
extern const struct qsim_cmd qsim_cmd_recn;

/*
 * The latest time or deadline a trace of port, switch or table may give:
 * 2^62 ns (146 years, as recn's traces, RT_TIME_MAX).  The clock then
 * has 3 * 2^62 ns left before 64 bits wrap for what is queued to leave:
 * a port holds at most its two buffers, 2 * (2^32 - 1) bytes, 8.6 * 10^18
 * ns at 1 byte/s; a switch's hosts hold any number of frames, and should
 * they take longer the core's sums saturate (edf_add_sat()) and the run
 * stops "stuck", it does not wrap.  2^64 - 1, the subcommands' "no next
 * event", is never a time: a trace's "18446744073709551615" (or, to
 * sscanf(), "-1") ended table's trace and stopped switch as stuck.  A
 * deadline less the clock, ttd_ns, printed signed, is right while both
 * are below 2^63.
 */
#define QSIM_TIME_MAX	(1ULL << 62)

/*
 * The blanks between a trace line's words: those sscanf() skipped when
 * it read the lines, a CRLF line's "\r" too.  The words go through
 * split_words(), each number through parse_u64(): sscanf()'s %u wrapped
 * past 2^32 (flow 4294967297 was flow 1) and took a sign.
 */
#define QSIM_BLANKS	" \t\r\n\v\f"

/* flows.c: for the trace-driven subcommands */
struct qsim_flow {
	uint32_t id;
	uint64_t next_seq;	/* arrivals so far: the next one's number */
	uint64_t last_dep_seq;	/* +1; 0: none departed yet */
};

/* The flow with @id, added if new; NULL when out of memory. */
struct qsim_flow *qsim_flow_of(struct qsim_flow **flows, size_t *nflows,
			       uint32_t id);
/* Frame @seq of @f leaves: false if a later one left before it. */
bool qsim_flow_departs(struct qsim_flow *f, uint64_t seq);
/* Room for element @n in *@arr of *@cap elements of @size; -1: no memory. */
int qsim_reserve(void **arr, size_t *cap, size_t n, size_t size);
/* A trace line's data, blanks skipped; NULL for a blank line or comment. */
char *qsim_trace_data(char *line);

#endif
