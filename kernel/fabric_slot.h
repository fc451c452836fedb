/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel-internal API of FBS slot verification (fabric_slot.c in
 * fabric_hdr.ko): a host's fbs qdisc publishes its slot clock on its
 * device, and the receive path judges each slot-tagged frame that
 * arrives there against it (Documentation/fbs.rst, "Verification").
 * The receive path lives in fabric_hdr.ko, which the qdisc depends on,
 * so the judging is here and the qdisc only writes the clock.
 */
#ifndef _FABRIC_SLOT_H
#define _FABRIC_SLOT_H

#include <linux/netdevice.h>
#include <linux/netlink.h>

#include "core/fabric_hdr_core.h"
#include "core/fbs_exec.h"

struct fabric_slot_watch;

struct fabric_slot_counts {
	u64 frames;		/* slot-tagged frames judged */
	u64 in_slot;		/* arrived in the slot they were sent in */
	u64 early;		/* before it, by this host's clock */
	u64 late;		/* after it */
	u64 foreign;		/* a slot beyond this host's period */
	/* arrival latencies of the judged frames but foreign ones */
	u64 lat_sum_ns;
	u64 lat_max_ns;
};

/*
 * The device's watch, new (one per device: -EBUSY with a message when
 * another qdisc has it).  Under RTNL.
 */
struct fabric_slot_watch *fabric_slot_watch_get(struct net_device *dev,
						struct netlink_ext_ack *extack);
/* Gone from the receive path; freed after an RCU grace period.  Under RTNL. */
void fabric_slot_watch_put(struct fabric_slot_watch *w);
/*
 * Publish the executor's clock; @delay_ns: how long after its slot began
 * a frame is expected to have arrived; @rate (bytes/s; 0: a slot is one
 * @frame of bytes) times a frame on this host's link.  From the qdisc:
 * its dequeue (softirq) and its configuration (process context).
 */
void fabric_slot_watch_set(struct fabric_slot_watch *w, const struct fbs_exec *e,
			   u64 delay_ns, u64 rate, u32 frame);
/* The counts, and the latency histogram into @lat_hist[FBS_LAT_BUCKETS]. */
void fabric_slot_watch_read(struct fabric_slot_watch *w, struct fabric_slot_counts *c,
			    u64 *lat_hist);

/*
 * fabric_hdr_main.c's receive path: a decoded frame of @len bytes (from
 * its Ethernet header) that arrived on @dev
 */
void fabric_slot_rcv(struct net_device *dev, const struct fhc_fields *f, u32 len);
void fabric_slot_exit(void);

#endif /* _FABRIC_SLOT_H */
