/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A k-ary n-tree (a folded butterfly): k^n hosts, n stages of k^(n-1)
 * switches of 2k ports, and its up*-down* routes.  Shared by the
 * admission control tool (fabric-cac) and its unit tests.
 *
 * Stage 0 holds the leaf switches, stage n-1 the top.  A switch of stage
 * s is (g, m): g, its group, numbers the subtree of k^(s+1) hosts below
 * it (hosts g*k^(s+1) .. (g+1)*k^(s+1) - 1), and m, 0 .. k^s - 1, tells
 * the k^s switches of one subtree apart.  Ports 0 .. k-1 go down (port d
 * of a leaf to host g*k + d; port d of a higher switch to the subtree
 * g*k + d), ports k .. 2k-1 up: up port k + u of (g, m) at stage s is
 * wired to down port g mod k of (g / k, m + u * k^s) at stage s + 1.
 * The top stage's up ports are unused.
 *
 * A route from host a to host b climbs to the lowest stage L whose
 * subtrees hold both (a / k^(L+1) == b / k^(L+1)), choosing any up port
 * at each of the L climbs, then descends, the down port at each stage
 * given by b.  So there are k^L minimal routes, told apart by their
 * choices of up ports, and no route ever turns from down to up: with
 * up*-down* routes a cycle of channels waiting on each other cannot
 * form, so credit flow control cannot deadlock.
 */
#ifndef FQ_FABRIC_TREE_H
#define FQ_FABRIC_TREE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FT_MAX_K	32	/* 64-port switches, vcsw's most */
#define FT_MAX_N	6
#define FT_MAX_HOSTS	65536
#define FT_MAX_HOPS	(2 * FT_MAX_N - 1)

struct ft_tree {
	unsigned int	k;
	unsigned int	n;
	unsigned int	hosts;		/* k^n */
	unsigned int	per_stage;	/* switches per stage, k^(n-1) */
	unsigned int	pow[FT_MAX_N + 1]; /* k^i */
};

/* A switch's number, 0 .. n * k^(n-1) - 1: stage-major, then g, then m. */
struct ft_hop {
	unsigned int	sw;		/* switch number */
	unsigned int	stage;
	unsigned int	out_port;	/* 0 .. 2k-1 */
};

struct ft_route {
	unsigned int	nhops;		/* switches crossed, 2L + 1 */
	struct ft_hop	hop[FT_MAX_HOPS];
};

/* 0, or -1 if k or n are out of range (k 2 .. 32, n 1 .. 6, k^n <= 65536). */
int ft_init(struct ft_tree *t, unsigned int k, unsigned int n);

unsigned int ft_switches(const struct ft_tree *t);
unsigned int ft_switch_number(const struct ft_tree *t, unsigned int stage,
			      unsigned int g, unsigned int m);

/* The stage a route from @a to @b turns at, 0 .. n-1 (a != b). */
unsigned int ft_turn_stage(const struct ft_tree *t, unsigned int a,
			   unsigned int b);

/* How many minimal routes from @a to @b: k^turn_stage. */
unsigned int ft_route_count(const struct ft_tree *t, unsigned int a,
			    unsigned int b);

/*
 * Route @choice (0 .. ft_route_count() - 1) from @a to @b: its digits
 * base k are the up ports taken, the first climb's lowest.
 */
void ft_route(const struct ft_tree *t, unsigned int a, unsigned int b,
	      unsigned int choice, struct ft_route *r);

/*
 * The links a route loads, each a direction of one cable, numbered
 * 0 .. ft_links() - 1: a host's link to its leaf (host * 1), then every
 * switch output port (hosts + sw * 2k + port).
 */
unsigned int ft_links(const struct ft_tree *t);
static inline unsigned int ft_host_link(unsigned int host)
{
	return host;
}
unsigned int ft_port_link(const struct ft_tree *t, unsigned int sw,
			  unsigned int port);

/*
 * Hosts' MAC addresses: host h's is a base plus h in its low three bytes
 * (02:fa:00:00:00:00 by default, so host 3 is 02:fa:00:00:00:03).
 */
#define FT_MAC_BASE	{ 0x02, 0xfa, 0, 0, 0, 0 }

/* A base for @t's hosts: unicast, with room for every host.  True if so. */
bool ft_parse_mac_base(const struct ft_tree *t, const char *s, uint8_t *base);
void ft_host_mac(const uint8_t *base, unsigned int h, char *buf, size_t len);

#endif /* FQ_FABRIC_TREE_H */
