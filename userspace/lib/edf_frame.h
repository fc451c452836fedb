/* SPDX-License-Identifier: GPL-2.0 */
/*
 * edf_frame.h: deadlines for frames that an application sends in several
 * calls, for the frame classes of the edf qdisc (Documentation/edf.rst,
 * "Frames sent in several calls").  Header only, plain C.
 *
 * A frame class gives the N packets of one GSO send the deadlines
 *
 *	D(Pi) = max(D(Pi-1), now) + LATENCY / N
 *
 * so that the frame completes about LATENCY after it started.  A frame
 * sent one datagram per call reaches the qdisc as N one-packet frames,
 * each due LATENCY after it: the whole frame would take N * LATENCY.  The
 * application computes the frame's deadlines itself, with the same
 * formula (edf_frame_deadline() of the qdisc's core), and attaches each
 * to its packet with SO_TXTIME; a frame class honours them as
 * D = max(D', txtime).
 *
 *	struct edf_frame_clock clk = { 0 };
 *
 *	edf_txtime_enable(fd);
 *	for each part of an N-part frame:
 *		d = edf_frame_next_deadline(&clk, edf_now_ns(), LATENCY, N);
 *		sendmsg() the part with edf_txtime_cmsg_append(&msg, d)
 *
 * Times are CLOCK_MONOTONIC nanoseconds, the qdisc's clock.  One clock
 * per socket: the qdisc keeps a socket's deadlines as one flow.
 */
#ifndef FQ_EDF_FRAME_H
#define FQ_EDF_FRAME_H

#include <linux/net_tstamp.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "core/edf_core.h"

#ifndef SO_TXTIME
#define SO_TXTIME		61
#define SCM_TXTIME		SO_TXTIME
#endif

/* Control buffer space one SCM_TXTIME message takes. */
#define EDF_TXTIME_CMSG_SPACE	CMSG_SPACE(sizeof(uint64_t))

/* The deadline clock of one socket's frames. */
struct edf_frame_clock {
	uint64_t last_deadline;		/* D(Pi-1); 0 before the first packet */
};

/* CLOCK_MONOTONIC in nanoseconds: the clock of "now" and of the txtimes. */
static inline uint64_t edf_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * EDF_NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/*
 * Deadline of the next packet, one of the @parts packets of a frame due
 * @latency_ns after it starts, sent at @now_ns: the previous deadline or
 * now, whichever is later, plus latency / parts.  A frame that starts
 * while the previous one's deadlines are still ahead follows them.
 */
static inline uint64_t edf_frame_next_deadline(struct edf_frame_clock *c,
					       uint64_t now_ns,
					       uint64_t latency_ns,
					       uint32_t parts)
{
	c->last_deadline = edf_frame_deadline(c->last_deadline, now_ns,
					      latency_ns, parts);
	return c->last_deadline;
}

/*
 * Let @fd's packets carry txtimes on CLOCK_MONOTONIC (no capability
 * needed for that clock).  Returns setsockopt()'s result: 0, or -1 with
 * errno set.
 */
static inline int edf_txtime_enable(int fd)
{
	struct sock_txtime cfg = {
		.clockid = CLOCK_MONOTONIC,
		.flags = 0,
	};

	return setsockopt(fd, SOL_SOCKET, SO_TXTIME, &cfg, sizeof(cfg));
}

/*
 * Append SCM_TXTIME = @txtime_ns to @msg's control messages.  msg_control
 * must be aligned for struct cmsghdr (a union with one, as in cmsg(3))
 * and have EDF_TXTIME_CMSG_SPACE bytes free after the first
 * msg_controllen bytes; start with msg_controllen = 0.
 */
static inline void edf_txtime_cmsg_append(struct msghdr *msg, uint64_t txtime_ns)
{
	struct cmsghdr *cm = (struct cmsghdr *)
		((char *)msg->msg_control + msg->msg_controllen);

	memset(cm, 0, EDF_TXTIME_CMSG_SPACE);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_TXTIME;
	cm->cmsg_len = CMSG_LEN(sizeof(txtime_ns));
	memcpy(CMSG_DATA(cm), &txtime_ns, sizeof(txtime_ns));
	msg->msg_controllen += EDF_TXTIME_CMSG_SPACE;
}

#endif /* FQ_EDF_FRAME_H */
