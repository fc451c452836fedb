/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The netlink attributes of each VC of the soft switch, by VC number
 * (uapi/linux/vcsw.h numbers them in the order they were added, not by
 * VC): one table for kernel/vcsw_netlink.c and the ip plugins.
 */
#ifndef FQ_VCSW_VC_ATTRS_H
#define FQ_VCSW_VC_ATTRS_H

#include "../include/uapi/linux/vcsw.h"

/* not every user reads every table */
#define VCSW_VC_TABLE static const int __attribute__((unused))

/* The switch's output buffer of each VC (IFLA_INFO_DATA). */
VCSW_VC_TABLE vcsw_buffer_attr[VCSW_MAX_VCS] = {
	IFLA_VCSW_VC0_BUFFER, IFLA_VCSW_VC1_BUFFER,
	IFLA_VCSW_VC2_BUFFER, IFLA_VCSW_VC3_BUFFER,
};

/* A port's input buffer, output and input statistics (IFLA_INFO_SLAVE_DATA). */
VCSW_VC_TABLE vcsw_in_buffer_attr[VCSW_MAX_VCS] = {
	IFLA_VCSW_PORT_VC0_IN_BUFFER, IFLA_VCSW_PORT_VC1_IN_BUFFER,
	IFLA_VCSW_PORT_VC2_IN_BUFFER, IFLA_VCSW_PORT_VC3_IN_BUFFER,
};
VCSW_VC_TABLE vcsw_out_stats_attr[VCSW_MAX_VCS] = {
	IFLA_VCSW_PORT_VC0_STATS, IFLA_VCSW_PORT_VC1_STATS,
	IFLA_VCSW_PORT_VC2_STATS, IFLA_VCSW_PORT_VC3_STATS,
};
VCSW_VC_TABLE vcsw_in_stats_attr[VCSW_MAX_VCS] = {
	IFLA_VCSW_PORT_VC0_IN_STATS, IFLA_VCSW_PORT_VC1_IN_STATS,
	IFLA_VCSW_PORT_VC2_IN_STATS, IFLA_VCSW_PORT_VC3_IN_STATS,
};

#endif /* FQ_VCSW_VC_ATTRS_H */
