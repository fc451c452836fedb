// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-topo: builds a k-ary n-tree (folded butterfly) of vcsw switches
 * and hosts (Documentation/topology.rst).  In network namespaces joined
 * by veth pairs inside one kernel ("build", "destroy"), or, for machines
 * joined by NICs, as one script per machine ("machines").  The wiring is
 * fabric_tree.h's, the one fabric-cac routes on, so the routes it prints
 * for a host work on what this tool built.
 *
 * The tool writes shell commands (ip, tc, sysctl, fabric-route) and, to
 * build or destroy, runs them with /bin/sh (or $FABRIC_TOPO_SHELL): what
 * it does can always be read first ("script"), and a fabric built by
 * hand is the same fabric.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_util.h"
#include "fabric_tree.h"
#include "../kernel/core/fabric_hdr_core.h"

#define PROG "fabric-topo"

/* namespaces are cheap, but a host's neighbours and routes grow as hosts^2 */
#define TOPO_NS_MAX_HOSTS	1024

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " --tree K,N [ --name NAME ] [ --link RATE ]\n"
		"                   [ --arch { trad | simple | advanced | ideal | recn } ]\n"
		"                   [ --credits { on | off } ] [ --buffer SIZE ]\n"
		"                   [ --in-buffer SIZE ] [ --vcs { 2 | 3 | 4 } ]\n"
		"                   [ --mac MAC ] [ --net A.B ]\n"
		"                   { build | destroy | script | machines }\n"
		"A k-ary n-tree (folded butterfly): K^N hosts, N stages of 2K-port vcsw\n"
		"switches, wired and numbered as fabric-cac's (Documentation/admission.rst).\n"
		"  build      create it in network namespaces NAME-hH (hosts, device eth0)\n"
		"             and NAME-sS.G.M (switches: stage, group, member; device sw0,\n"
		"             ports p0 .. p2K-1 in port order)\n"
		"  destroy    delete those namespaces, and with them every device\n"
		"  script     print what build runs, as a shell script\n"
		"  machines   print, for machines joined by NICs, one script per switch\n"
		"             and host machine (the NICs named by shell variables)\n"
		"Options (default):\n"
		"  --name       prefix of the namespaces, 1 to 32 of [A-Za-z0-9_.-] (ft)\n"
		"  --link       every link's rate, emulated by the switches' ports and\n"
		"               paced by the hosts' edf; RATE as 100mbit, 1g (none)\n"
		"  --arch       the switches' architecture, vcsw's arch (advanced); recn:\n"
		"               RECN on every port and host edf too (recn.rst), its\n"
		"               times from --link: Xoffs repeated every 1514-byte\n"
		"               frame's time, leases of 4 and idle SAQs freed after\n"
		"               20 (at least 1 ms at the hosts); the defaults without\n"
		"               --link; a link under 57 kbit/s makes times vcsw\n"
		"               cannot hold and is refused\n"
		"  --credits    per-VC credit flow control on every link (on; recn\n"
		"               needs it)\n"
		"  --buffer     each output VC buffer of a switch port, bytes, k or m,\n"
		"               2048 .. 64m (vcsw's default)\n"
		"  --in-buffer  each input buffer a switch port advertises, with\n"
		"               credits (vcsw's default)\n"
		"  --vcs        VCs of every switch, link and host edf (2); 4: the\n"
		"               paper's Traditional 4 VCs\n"
		"  --mac        host h's address is MAC + h (02:fa:00:00:00:00)\n"
		"  --net        host h's IPv4 address is A.B.0.0/16 + h + 1 (10.59)\n"
		"Each host runs edf with the fabric header (ttd on), permanent\n"
		"neighbour entries for every other host (no ARP or IPv6 broadcast\n"
		"ever enters the looped fabric) and a route to every other host:\n"
		"the least loaded choice is fabric-cac's business; these spread\n"
		"destinations over the top switches (destination mod k at each\n"
		"climb).  fabric-cac routes HOST | ip netns exec NAME-hHOST\n"
		"fabric-route -b - puts a reservation's route in their place.\n"
		"build and destroy run the script with $FABRIC_TOPO_SHELL, else /bin/sh.\n");
}

struct topo {
	struct ft_tree	t;
	const char	*name;
	uint64_t	link_bps;	/* 0: not emulated */
	const char	*arch;
	bool		credits;
	uint64_t	buffer;		/* 0: vcsw's default */
	uint64_t	in_buffer;
	unsigned int	vcs;		/* 2 .. 4 */
	uint8_t		mac[6];
	unsigned int	net[2];
	bool		machines;	/* NICs, a script per machine */
};

/* RECN's times in ns (--arch recn), 0: the defaults of vcsw and edf. */
struct recn_times {
	uint64_t	refresh;
	uint64_t	lease;
	uint64_t	idle;
};

/* edf refuses a recn_idle under 1 ms (edf.rst, "RECN at the host"). */
#define TOPO_EDF_RECN_IDLE_MIN	((uint64_t)1000000)

/*
 * RECN's times scale with the link: a switch notices a point drain, and
 * an Xoff crosses a link, at the pace of frames, so with --link they
 * count full 1514-byte frames' times (the defaults suit 1 Gbit/s and up
 * and would expire leases between two frames of a slow link).
 */
static struct recn_times recn_times(const struct topo *o)
{
	struct recn_times r = { 0 };
	uint64_t frame_ns;

	if (!o->link_bps)
		return r;
	frame_ns = 1514ULL * 8 * 1000000000ULL / o->link_bps;
	if (frame_ns < 1000)
		frame_ns = 1000;	/* vcsw's least: 1 us */
	r.refresh = frame_ns;
	r.lease = 4 * frame_ns;
	r.idle = 20 * frame_ns;
	return r;
}

static bool is_recn(const struct topo *o)
{
	return !strcmp(o->arch, "recn");
}

/* Where the commands go: stdout, or the shell that runs them. */
static FILE *out;

/* A switch's name: NAME-sS.G.M (stage, group, member). */
static const char *sw_name(const struct topo *o, unsigned int sw, char *buf,
			   size_t len)
{
	unsigned int stage = sw / o->t.per_stage, rest = sw % o->t.per_stage;

	snprintf(buf, len, "%s-s%u.%u.%u", o->name, stage,
		 rest / o->t.pow[stage], rest % o->t.pow[stage]);
	return buf;
}

/* Where a switch's commands run: its namespace, or this machine (NULL). */
static const char *sw_ns(const struct topo *o, unsigned int sw, char *buf,
			 size_t len)
{
	return o->machines ? NULL : sw_name(o, sw, buf, len);
}

static const char *host_ns(const struct topo *o, unsigned int h, char *buf,
			   size_t len)
{
	if (o->machines)
		return NULL;
	snprintf(buf, len, "%s-h%u", o->name, h);
	return buf;
}

/* "ip -n NS ...", "tc -n NS ...", or without -n on a machine. */
static void ns_cmd(const char *tool, const char *ns, const char *fmt, ...)
{
	va_list ap;

	fprintf(out, ns ? "%s -n %s " : "%s ", tool, ns);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
}

/* A command run inside the namespace (sysctl, fabric-route). */
static void in_ns(const char *ns, const char *fmt, ...)
{
	va_list ap;

	if (ns)
		fprintf(out, "ip netns exec %s ", ns);
	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
	fputc('\n', out);
}

/* A switch port's device: p3 in a namespace, "$P3" on a machine. */
static const char *port_dev(const struct topo *o, unsigned int p, char *buf,
			    size_t len)
{
	snprintf(buf, len, o->machines ? "\"$P%u\"" : "p%u", p);
	return buf;
}

/* The same in a here-document, which expands $P3 as one word unquoted. */
static const char *port_dev_batch(const struct topo *o, unsigned int p,
				  char *buf, size_t len)
{
	snprintf(buf, len, o->machines ? "$P%u" : "p%u", p);
	return buf;
}

/* "ip -n NS -batch - <<EOF" (without -n on a machine); the caller ends it. */
static void ip_batch(const char *ns)
{
	if (ns)
		fprintf(out, "ip -n %s -batch - <<EOF\n", ns);
	else
		fprintf(out, "ip -batch - <<EOF\n");
}

static const char *host_dev(const struct topo *o)
{
	return o->machines ? "\"$NIC\"" : "eth0";
}

/*
 * The switch, its ports in port order, credits, all up: one sysctl and
 * one ip for all of it.  Starting a program is most of what a build
 * costs in an emulated VM (a command per port and step made a 2,2 tree
 * of 116 programs, now 60).
 */
static void emit_switch(const struct topo *o, unsigned int sw)
{
	unsigned int stage = sw / o->t.per_stage, p, nports;
	char nsb[64], dev[16], rate[40] = "", buffer[40] = "", in_buffer[40] = "";
	char vcs[16] = "", recn[96] = "";
	const char *ns = sw_ns(o, sw, nsb, sizeof(nsb));
	struct recn_times rt = recn_times(o);

	/* the top stage's up ports are not wired */
	nports = stage + 1 < o->t.n ? 2 * o->t.k : o->t.k;
	if (o->link_bps)
		snprintf(rate, sizeof(rate), " rate %" PRIu64 "bit", o->link_bps);
	if (o->buffer)
		snprintf(buffer, sizeof(buffer), " buffer %" PRIu64, o->buffer);
	if (o->in_buffer)
		snprintf(in_buffer, sizeof(in_buffer), " in_buffer %" PRIu64,
			 o->in_buffer);
	/* only when asked: the script of a two-VC fabric stays as it was */
	if (o->vcs != 2)
		snprintf(vcs, sizeof(vcs), " vcs %u", o->vcs);
	/* set while the switch is down, as vcsw wants */
	if (is_recn(o) && rt.refresh)
		snprintf(recn, sizeof(recn),
			 " recn_refresh %" PRIu64 "us recn_lease %" PRIu64
			 "us recn_idle %" PRIu64 "us", rt.refresh / 1000,
			 rt.lease / 1000, rt.idle / 1000);
	/*
	 * a looped fabric would carry a router solicitation for ever: IPv6
	 * off on every port before any is up
	 */
	if (ns)
		fprintf(out, "ip netns exec %s ", ns);
	fprintf(out, "sysctl -qw");
	for (p = 0; p < nports; p++)
		fprintf(out, " net.ipv6.conf.%s.disable_ipv6=1",
			port_dev(o, p, dev, sizeof(dev)));
	fputc('\n', out);
	ip_batch(ns);
	/*
	 * and a fabric frame with neither route nor known destination (a
	 * broadcast, a host's bad route table) is dropped, not flooded round
	 * the fabric's loops
	 */
	fprintf(out, "link add sw0 type vcsw arch %s%s%s%s%s flood off\n", o->arch,
		vcs, rate, buffer, recn);
	for (p = 0; p < nports; p++) {
		port_dev_batch(o, p, dev, sizeof(dev));
		/* in port order: the port's index is the number routes name */
		fprintf(out, "link set %s master sw0\n", dev);
		if (o->credits)
			fprintf(out, "link set %s type vcsw_slave credits on%s\n",
				dev, in_buffer);
		if (is_recn(o))
			fprintf(out, "link set %s type vcsw_slave recn on\n", dev);
	}
	fprintf(out, "link set sw0 up\n");
	for (p = 0; p < nports; p++)
		fprintf(out, "link set %s up\n",
			port_dev_batch(o, p, dev, sizeof(dev)));
	fprintf(out, "EOF\n");
}

static void host_addr(const struct topo *o, unsigned int h, char *buf,
		      size_t len)
{
	snprintf(buf, len, "%u.%u.%u.%u", o->net[0], o->net[1], (h + 1) >> 8,
		 (h + 1) & 0xff);
}

/*
 * The route from @a to @b: destination mod k at each climb, so the
 * destinations below one switch spread over the switches above it.
 */
static void default_route(const struct topo *o, unsigned int a, unsigned int b,
			  char *buf, size_t len)
{
	unsigned int L = ft_turn_stage(&o->t, a, b), i;
	struct ft_route r;
	size_t off = 0;

	ft_route(&o->t, a, b, b % o->t.pow[L], &r);
	for (i = 0; i < r.nhops; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u", i ? "," : "",
					r.hop[i].out_port);
}

static void emit_host(const struct topo *o, unsigned int h)
{
	const char *dev = host_dev(o);
	char nsb[64], addr[20], mac[18], route[FT_MAX_HOPS * 4], rate[40] = "";
	const char *ns = host_ns(o, h, nsb, sizeof(nsb));
	struct recn_times rt = recn_times(o);
	char recn[80] = "";
	unsigned int b;

	ft_host_mac(o->mac, h, mac, sizeof(mac));
	host_addr(o, h, addr, sizeof(addr));
	if (o->machines) {
		in_ns(ns, "sysctl -qw net.ipv6.conf.%s.disable_ipv6=1", dev);
		ns_cmd("ip", ns, "link set dev %s address %s", dev, mac);
	} else {
		in_ns(ns, "sysctl -qw net.ipv6.conf.eth0.disable_ipv6=1");
	}
	ns_cmd("ip", ns, "addr add %s/16 dev %s", addr, dev);
	if (o->link_bps)
		snprintf(rate, sizeof(rate), " rate %" PRIu64 "bit", o->link_bps);
	if (is_recn(o) && rt.lease)
		snprintf(recn, sizeof(recn), " recn on recn_lease %" PRIu64
			 "us recn_idle %" PRIu64 "us", rt.lease / 1000,
			 (rt.idle > TOPO_EDF_RECN_IDLE_MIN ? rt.idle :
			  TOPO_EDF_RECN_IDLE_MIN) / 1000);
	else if (is_recn(o))
		snprintf(recn, sizeof(recn), " recn on");
	ns_cmd("tc", ns, "qdisc replace dev %s root handle 1: edf ttd on%s%s%s%s",
	       dev, rate, o->credits ? " credits on" : "",
	       o->vcs != 2 ? (o->vcs == 3 ? " vcs 3" : " vcs 4") : "", recn);
	ns_cmd("ip", ns, "link set %s up", dev);
	/* one process for all neighbours and one for all routes */
	ip_batch(ns);
	for (b = 0; b < o->t.hosts; b++) {
		if (b == h)
			continue;
		ft_host_mac(o->mac, b, mac, sizeof(mac));
		host_addr(o, b, addr, sizeof(addr));
		fprintf(out, "neigh replace %s lladdr %s dev %s nud permanent\n", addr,
		       mac, o->machines ? "$NIC" : dev);
	}
	fprintf(out, "EOF\n");
	in_ns(ns, "fabric-route -b - <<EOF");
	for (b = 0; b < o->t.hosts; b++) {
		if (b == h)
			continue;
		ft_host_mac(o->mac, b, mac, sizeof(mac));
		default_route(o, h, b, route, sizeof(route));
		fprintf(out, "replace dev %s to %s ports %s\n",
		       o->machines ? "$NIC" : dev, mac, route);
	}
	fprintf(out, "EOF\n");
}

/* ---- namespaces ------------------------------------------------------------------ */

static void emit_ns_script(const struct topo *o)
{
	unsigned int nsw = ft_switches(&o->t), sw, h, g, u, stage, rest, gg, m;
	char a[64], b[64], mac[18];

	fprintf(out, "# %s: a %u-ary %u-tree, %u hosts, %u switches\n", o->name, o->t.k,
	       o->t.n, o->t.hosts, nsw);
	fprintf(out, "set -e\n");
	for (sw = 0; sw < nsw; sw++)
		fprintf(out, "ip netns add %s\n", sw_name(o, sw, a, sizeof(a)));
	for (h = 0; h < o->t.hosts; h++)
		fprintf(out, "ip netns add %s\n", host_ns(o, h, a, sizeof(a)));
	/* host h to down port h mod k of leaf (0, h / k, 0) */
	for (h = 0; h < o->t.hosts; h++) {
		ft_host_mac(o->mac, h, mac, sizeof(mac));
		fprintf(out, "ip link add eth0 netns %s address %s type veth peer name p%u netns %s\n",
		       host_ns(o, h, a, sizeof(a)), mac, h % o->t.k,
		       sw_name(o, ft_switch_number(&o->t, 0, h / o->t.k, 0),
			       b, sizeof(b)));
	}
	/* up port k + u of (s, g, m) to down port g mod k of (s+1, g / k, m + u k^s) */
	for (sw = 0; sw < nsw; sw++) {
		stage = sw / o->t.per_stage;
		if (stage + 1 >= o->t.n)
			break;
		rest = sw % o->t.per_stage;
		gg = rest / o->t.pow[stage];
		m = rest % o->t.pow[stage];
		for (u = 0; u < o->t.k; u++) {
			g = ft_switch_number(&o->t, stage + 1, gg / o->t.k,
					     m + u * o->t.pow[stage]);
			fprintf(out, "ip link add p%u netns %s type veth peer name p%u netns %s\n",
			       o->t.k + u, sw_name(o, sw, a, sizeof(a)),
			       gg % o->t.k, sw_name(o, g, b, sizeof(b)));
		}
	}
	for (sw = 0; sw < nsw; sw++)
		emit_switch(o, sw);
	for (h = 0; h < o->t.hosts; h++)
		emit_host(o, h);
}

static void emit_ns_destroy(const struct topo *o)
{
	unsigned int nsw = ft_switches(&o->t), i;
	char a[64];

	/* deleting a namespace deletes its virtual devices, veth peers too */
	for (i = 0; i < nsw; i++)
		fprintf(out, "ip netns del %s 2>/dev/null || true\n",
		       sw_name(o, i, a, sizeof(a)));
	for (i = 0; i < o->t.hosts; i++)
		fprintf(out, "ip netns del %s 2>/dev/null || true\n",
		       host_ns(o, i, a, sizeof(a)));
}

/* ---- machines with NICs ------------------------------------------------------------ */

/* What port @p of switch @sw is cabled to, for the operator. */
static void describe_port(const struct topo *o, unsigned int sw, unsigned int p,
			  char *buf, size_t len)
{
	unsigned int stage = sw / o->t.per_stage, rest = sw % o->t.per_stage;
	unsigned int g = rest / o->t.pow[stage], m = rest % o->t.pow[stage];
	char peer[64];

	if (p < o->t.k && stage == 0) {
		snprintf(buf, len, "host %u (%s-h%u)", g * o->t.k + p, o->name,
			 g * o->t.k + p);
	} else if (p < o->t.k) {
		/* down port p of (s, g, m): up port k + m / k^(s-1) of (s-1, g k + p, m mod k^(s-1)) */
		sw_name(o, ft_switch_number(&o->t, stage - 1, g * o->t.k + p,
					    m % o->t.pow[stage - 1]),
			peer, sizeof(peer));
		snprintf(buf, len, "%s port %u", peer,
			 o->t.k + m / o->t.pow[stage - 1]);
	} else {
		sw_name(o, ft_switch_number(&o->t, stage + 1, g / o->t.k,
					    m + (p - o->t.k) * o->t.pow[stage]),
			peer, sizeof(peer));
		snprintf(buf, len, "%s port %u", peer, g % o->t.k);
	}
}

static void emit_machines(const struct topo *o)
{
	unsigned int nsw = ft_switches(&o->t), sw, h, p, nports, stage;
	char label[64], what[96];

	fprintf(out, "# %s: a %u-ary %u-tree of %u host and %u switch machines; run each\n"
	       "# part on its machine with the NICs cabled as it says\n",
	       o->name, o->t.k, o->t.n, o->t.hosts, nsw);
	for (sw = 0; sw < nsw; sw++) {
		stage = sw / o->t.per_stage;
		nports = stage + 1 < o->t.n ? 2 * o->t.k : o->t.k;
		sw_name(o, sw, label, sizeof(label));
		fprintf(out, "\n### machine %s: a switch of stage %u\n", label, stage);
		fprintf(out, "# set P0 .. P%u to its NICs, in this order:\n", nports - 1);
		for (p = 0; p < nports; p++) {
			describe_port(o, sw, p, what, sizeof(what));
			fprintf(out, "#   P%u: to %s\n", p, what);
		}
		fprintf(out, "set -e\n");
		for (p = 0; p < nports; p++)
			fprintf(out, ": \"${P%u:?P%u: the NIC to %s}\"\n", p, p,
			       (describe_port(o, sw, p, what, sizeof(what)), what));
		emit_switch(o, sw);
	}
	for (h = 0; h < o->t.hosts; h++) {
		describe_port(o, ft_switch_number(&o->t, 0, h / o->t.k, 0),
			      h % o->t.k, what, sizeof(what));
		sw_name(o, ft_switch_number(&o->t, 0, h / o->t.k, 0), label,
			sizeof(label));
		fprintf(out, "\n### machine %s-h%u: host %u, its NIC to %s port %u\n",
		       o->name, h, h, label, h % o->t.k);
		fprintf(out, "set -e\n: \"${NIC:?NIC: the NIC to %s port %u}\"\n", label,
		       h % o->t.k);
		emit_host(o, h);
	}
}

/* ---- running what was printed -------------------------------------------------------- */

/* Run what @emit prints with /bin/sh; its exit status. */
static int run_sh(const struct topo *o, void (*emit)(const struct topo *))
{
	int st;

	fflush(stdout);
	/* /bin/sh expands the variable itself: any value is only a path */
	out = popen(getenv("FABRIC_TOPO_SHELL") ? "exec \"$FABRIC_TOPO_SHELL\" -s" :
		    "exec /bin/sh -s", "w");
	if (!out) {
		fprintf(stderr, PROG ": /bin/sh: %s\n", strerror(errno));
		out = stdout;
		return -1;
	}
	emit(o);
	st = pclose(out);
	out = stdout;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/*
 * A namespace of the fabric exists already (another fabric of the same
 * name?): say so, and build nothing, since a failed build destroys
 * every namespace of the fabric's names.
 */
static bool ns_taken(const struct topo *o)
{
	unsigned int nsw = ft_switches(&o->t), i;
	char name[64], path[128];

	for (i = 0; i < nsw + o->t.hosts; i++) {
		if (i < nsw)
			sw_name(o, i, name, sizeof(name));
		else
			host_ns(o, i - nsw, name, sizeof(name));
		snprintf(path, sizeof(path), "/run/netns/%s", name);
		if (!access(path, F_OK)) {
			fprintf(stderr, PROG ": namespace %s exists: destroy that fabric first, or build under another --name\n",
				name);
			return true;
		}
	}
	return false;
}

/* ---- options ------------------------------------------------------------------------- */

/* A name for files in /run/netns, and for a shell word without quotes. */
static bool valid_name(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n <= 32 && *s != '-' && *s != '.' &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") == n;
}

static int parse_options(int argc, char **argv, struct topo *o)
{
	static const struct option opts[] = {
		{ "tree", required_argument, NULL, 't' },
		{ "name", required_argument, NULL, 'n' },
		{ "link", required_argument, NULL, 'l' },
		{ "arch", required_argument, NULL, 'a' },
		{ "credits", required_argument, NULL, 'c' },
		{ "buffer", required_argument, NULL, 'b' },
		{ "in-buffer", required_argument, NULL, 'i' },
		{ "vcs", required_argument, NULL, 'v' },
		{ "mac", required_argument, NULL, 'm' },
		{ "net", required_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const uint8_t mac[6] = FT_MAC_BASE;
	const char *mac_arg = NULL;
	unsigned int k = 0, n = 0;
	int c;

	memcpy(o->mac, mac, 6);
	o->name = "ft";
	o->arch = "advanced";
	o->credits = true;
	o->vcs = 2;
	o->net[0] = 10;
	o->net[1] = 59;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (!parse_uint_pair(optarg, ',', UINT32_MAX, UINT32_MAX, &k, &n) ||
			    ft_init(&o->t, k, n)) {
				fprintf(stderr, PROG ": --tree: want K,N with K 2 .. %d, N 1 .. %d, K^N at most %d\n",
					FT_MAX_K, FT_MAX_N, FT_MAX_HOSTS);
				return -1;
			}
			break;
		case 'n':
			if (!valid_name(optarg)) {
				fprintf(stderr, PROG ": --name: 1 to 32 letters, digits, _, - or ., not starting with - or .\n");
				return -1;
			}
			o->name = optarg;
			break;
		case 'l':
			if (!parse_rate_bps(optarg, &o->link_bps)) {
				fprintf(stderr, PROG ": --link: want a rate 1 .. 1000gbit, e.g. 100mbit\n");
				return -1;
			}
			break;
		case 'a':
			if (strcmp(optarg, "trad") && strcmp(optarg, "simple") &&
			    strcmp(optarg, "advanced") && strcmp(optarg, "ideal") &&
			    strcmp(optarg, "recn")) {
				fprintf(stderr, PROG ": --arch: trad, simple, advanced, ideal or recn\n");
				return -1;
			}
			o->arch = optarg;
			break;
		case 'v':
			if (strcmp(optarg, "2") && strcmp(optarg, "3") && strcmp(optarg, "4")) {
				fprintf(stderr, PROG ": --vcs: 2, 3 or 4\n");
				return -1;
			}
			o->vcs = (unsigned int)(optarg[0] - '0');
			break;
		case 'c':
			if (strcmp(optarg, "on") && strcmp(optarg, "off")) {
				fprintf(stderr, PROG ": --credits: on or off\n");
				return -1;
			}
			o->credits = !strcmp(optarg, "on");
			break;
		case 'b':
		case 'i':
			if (!parse_size_bytes(optarg, 2048, 64 << 20,
					      c == 'b' ? &o->buffer : &o->in_buffer)) {
				fprintf(stderr, PROG ": --%s: want bytes 2048 .. 64m (k, m suffixes)\n",
					c == 'b' ? "buffer" : "in-buffer");
				return -1;
			}
			break;
		case 'm':
			mac_arg = optarg;
			break;
		case 'N':
			if (!parse_uint_pair(optarg, '.', 223, 255, &o->net[0], &o->net[1]) ||
			    !o->net[0] || o->net[0] == 127) {
				fprintf(stderr, PROG ": --net: want A.B, a unicast /16 (e.g. 10.59)\n");
				return -1;
			}
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (!k) {
		fprintf(stderr, PROG ": --tree K,N is needed\n");
		return -1;
	}
	if (mac_arg && !ft_parse_mac_base(&o->t, mac_arg, o->mac)) {
		fprintf(stderr, PROG ": --mac: want a unicast address with room for %u hosts in its low three bytes\n",
			o->t.hosts);
		return -1;
	}
	if (is_recn(o) && !o->credits) {
		fprintf(stderr, PROG ": --arch recn: RECN's messages ride the credit links: not with --credits off\n");
		return -1;
	}
	/* vcsw holds RECN's times in 32 bits of ns: recn_idle, 20 frames */
	if (is_recn(o) && o->link_bps && recn_times(o).idle > UINT32_MAX) {
		fprintf(stderr, PROG ": --arch recn: --link %" PRIu64 "bit makes recn_idle %" PRIu64
			" ns, more than vcsw's 2^32 - 1: want 57kbit or faster\n",
			o->link_bps, recn_times(o).idle);
		return -1;
	}
	if (is_recn(o) && o->vcs != 2) {
		fprintf(stderr, PROG ": --arch recn runs two VCs: not with --vcs %u\n", o->vcs);
		return -1;
	}
	if (o->in_buffer && !o->credits) {
		fprintf(stderr, PROG ": --in-buffer is what credits advertise: not with --credits off\n");
		return -1;
	}
	/* a route is at most FHC_ROUTE_HOPS switches: 2n - 1 */
	if (2 * o->t.n - 1 > FHC_ROUTE_HOPS) {
		fprintf(stderr, PROG ": --tree: %u stages make routes of %u switches, more than a route holds (%d)\n",
			o->t.n, 2 * o->t.n - 1, FHC_ROUTE_HOPS);
		return -1;
	}
	/* addresses .0.1 .. .255.254 of the /16 */
	if (o->t.hosts > 65533) {
		fprintf(stderr, PROG ": --tree: more hosts than a /16 has addresses\n");
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct topo o = { 0 };
	const char *cmd;
	int rc;

	out = stdout;
	if (parse_options(argc, argv, &o))
		return 2;
	if (optind + 1 != argc) {
		fprintf(stderr, PROG ": want one of build, destroy, script, machines\n");
		return 2;
	}
	cmd = argv[optind];
	if (!strcmp(cmd, "machines")) {
		o.machines = true;
		emit_machines(&o);
		return 0;
	}
	if (strcmp(cmd, "build") && strcmp(cmd, "destroy") && strcmp(cmd, "script")) {
		fprintf(stderr, PROG ": \"%s\": want build, destroy, script or machines\n", cmd);
		return 2;
	}
	if (o.t.hosts > TOPO_NS_MAX_HOSTS) {
		fprintf(stderr, PROG ": %u hosts: at most %d in namespaces (their neighbours and routes grow as hosts^2)\n",
			o.t.hosts, TOPO_NS_MAX_HOSTS);
		return 2;
	}
	if (!strcmp(cmd, "script")) {
		emit_ns_script(&o);
		return 0;
	}
	if (!strcmp(cmd, "destroy"))
		return run_sh(&o, emit_ns_destroy) ? 1 : 0;
	if (ns_taken(&o))
		return 1;
	rc = run_sh(&o, emit_ns_script);
	if (rc) {
		fprintf(stderr, PROG ": build failed (status %d): what was built is destroyed\n", rc);
		run_sh(&o, emit_ns_destroy);
		return 1;
	}
	return 0;
}
