// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-route: a host's source routes, kept by the fabric_hdr module per
 * network namespace, device and destination MAC address
 * (Documentation/fabric-header.rst, "Routes on a host").  A frame a
 * qdisc sends with a fabric header (edf ttd on) to a destination with a
 * route carries it, and the vcsw switches on the way forward it by it.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/if_ether.h>
#include <linux/netlink.h>

#include <linux/fabric_hdr.h>

#include "../kernel/core/fabric_hdr_core.h"
#include "cli_util.h"
#include "fabric_genl.h"

#define PROG "fabric-route"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " add     dev DEV to MAC { ports P[,P...] | turnpool N }\n"
		"       " PROG " replace dev DEV to MAC { ports P[,P...] | turnpool N }\n"
		"       " PROG " del     dev DEV to MAC\n"
		"       " PROG " flush   [ dev DEV ]\n"
		"       " PROG " [ -j ] show [ dev DEV ]\n"
		"       " PROG " -b FILE     (a command per line; - for stdin)\n"
		"Frames that a qdisc sends from DEV with a fabric header (edf ttd on)\n"
		"to MAC carry the route: leave the first switch by port P, the next\n"
		"by the next P, up to %d switches, ports 0 to %d (as fabric-cac\n"
		"prints them), or the header's route field N itself.  add and\n"
		"replace need CAP_NET_ADMIN; -j prints JSON.\n",
		FHC_ROUTE_HOPS, FHC_ROUTE_MAX_PORT);
}

struct fr_route {
	uint32_t	ifindex;
	uint8_t		dst[ETH_ALEN];
	bool		has_dst;
	uint32_t	route;
	bool		has_route;
};

/* "2,0,5": the route leaving by those ports */
static int fr_parse_ports(const char *s, uint32_t *route)
{
	unsigned int ports[FHC_ROUTE_HOPS], n = 0;
	const char *p = s;
	char *end;

	for (;;) {
		unsigned long v;

		if (n == FHC_ROUTE_HOPS || *p < '0' || *p > '9')
			return -1;
		errno = 0;
		v = strtoul(p, &end, 10);
		if (errno || v > FHC_ROUTE_MAX_PORT)
			return -1;
		ports[n++] = (unsigned int)v;
		if (!*end)
			break;
		if (*end != ',')
			return -1;
		p = end + 1;
	}
	return fhc_route_build(ports, n, route) ? 0 : -1;
}

/*
 * A 32-bit number; whether a switch follows it, the kernel says.  No
 * sign: strtoull() took one after blanks, " -18446744073709551615" was 1.
 */
static int fr_parse_turnpool(const char *s, uint32_t *route)
{
	uint64_t v;

	if (!parse_u64(s, 0, UINT32_MAX, &v))
		return -1;
	*route = (uint32_t)v;
	return 0;
}

/*
 * "dev DEV to MAC ports ...": the words after the command.  @want_route:
 * the command needs a route (add, replace), or takes none.
 */
static int fr_parse(int argc, char **argv, bool want_route, struct fr_route *r)
{
	int i;

	memset(r, 0, sizeof(*r));
	for (i = 0; i < argc; i += 2) {
		const char *key = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!val) {
			fprintf(stderr, PROG ": \"%s\" needs a value\n", key);
			return -1;
		}
		if (!strcmp(key, "dev")) {
			r->ifindex = if_nametoindex(val);
			if (!r->ifindex) {
				fprintf(stderr, PROG ": %s: no such device in this network namespace\n",
					val);
				return -1;
			}
		} else if (!strcmp(key, "to")) {
			if (!parse_mac(val, r->dst)) {
				fprintf(stderr, PROG ": \"%s\" is not a MAC address\n", val);
				return -1;
			}
			r->has_dst = true;
		} else if (want_route && !strcmp(key, "ports")) {
			if (fr_parse_ports(val, &r->route) < 0) {
				fprintf(stderr, PROG ": \"%s\": want 1 to %d ports 0 to %d, by commas\n",
					val, FHC_ROUTE_HOPS, FHC_ROUTE_MAX_PORT);
				return -1;
			}
			r->has_route = true;
		} else if (want_route && !strcmp(key, "turnpool")) {
			if (fr_parse_turnpool(val, &r->route) < 0) {
				fprintf(stderr, PROG ": \"%s\" is not a 32-bit number\n", val);
				return -1;
			}
			r->has_route = true;
		} else {
			fprintf(stderr, PROG ": unknown word \"%s\"\n", key);
			return -1;
		}
	}
	return 0;
}

/* The ports of @route, "2,0,5", into @buf. */
static const char *fr_ports(uint32_t route, char *buf, size_t len)
{
	size_t off = 0;
	int port;

	buf[0] = '\0';
	while (route && (port = fhc_route_port(route)) >= 0 && off < len) {
		off += (size_t)snprintf(buf + off, len - off, "%s%d", off ? "," : "", port);
		route = fhc_route_next(route);
	}
	return buf;
}

/* ---- show -------------------------------------------------------------- */

/* a dump interrupted by changes is read again, this many times at most */
#define FR_DUMP_TRIES	16

struct fr_show {
	bool		json;
	uint32_t	ifindex;	/* 0: every device */
	struct fr_route	*routes;	/* of one whole dump */
	unsigned int	count, size;
	bool		nomem;
};

static int fr_attr_cb(const struct nlattr *attr, void *data)
{
	struct fr_route *r = data;

	switch (mnl_attr_get_type(attr)) {
	case FABRIC_A_IFINDEX:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			r->ifindex = mnl_attr_get_u32(attr);
		break;
	case FABRIC_A_ROUTE_DST:
		if (mnl_attr_get_payload_len(attr) == ETH_ALEN) {
			memcpy(r->dst, mnl_attr_get_payload(attr), ETH_ALEN);
			r->has_dst = true;
		}
		break;
	case FABRIC_A_ROUTE:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0) {
			r->route = mnl_attr_get_u32(attr);
			r->has_route = true;
		}
		break;
	}
	return MNL_CB_OK;
}

/* Keep each route of the dump: printed only once the dump ran whole. */
static int fr_show_cb(const struct nlmsghdr *nlh, void *data)
{
	struct fg_sock *s = data;
	struct fr_show *sh = s->priv;
	struct fr_route r = { 0 };

	if (mnl_attr_parse(nlh, sizeof(struct genlmsghdr), fr_attr_cb, &r) < 0 ||
	    !r.has_dst || !r.has_route)
		return MNL_CB_OK;
	if (sh->ifindex && r.ifindex != sh->ifindex)
		return MNL_CB_OK;
	if (sh->count == sh->size) {
		unsigned int size = sh->size ? 2 * sh->size : 64;
		struct fr_route *more = realloc(sh->routes, size * sizeof(*more));

		if (!more) {
			sh->nomem = true;
			return MNL_CB_OK;	/* read to the end, then fail */
		}
		sh->routes = more;
		sh->size = size;
	}
	sh->routes[sh->count++] = r;
	return MNL_CB_OK;
}

static void fr_print(const struct fr_show *sh)
{
	char name[IF_NAMESIZE], ports[64];
	unsigned int i;

	if (sh->json)
		printf("[\n");
	for (i = 0; i < sh->count; i++) {
		const struct fr_route *r = &sh->routes[i];
		const uint8_t *d = r->dst;

		if (!if_indextoname(r->ifindex, name))
			snprintf(name, sizeof(name), "if%u", r->ifindex);
		fr_ports(r->route, ports, sizeof(ports));
		if (sh->json)
			printf("%s  {\"dev\":\"%s\",\"ifindex\":%u,"
			       "\"to\":\"%02x:%02x:%02x:%02x:%02x:%02x\","
			       "\"ports\":[%s],\"turnpool\":%" PRIu32 "}",
			       i ? ",\n" : "", name, r->ifindex,
			       d[0], d[1], d[2], d[3], d[4], d[5], ports, r->route);
		else
			printf("dev %s to %02x:%02x:%02x:%02x:%02x:%02x ports %s turnpool 0x%08" PRIx32 "\n",
			       name, d[0], d[1], d[2], d[3], d[4], d[5], ports, r->route);
	}
	if (sh->json)
		printf("%s]\n", sh->count ? "\n" : "");
	fflush(stdout);
}

/*
 * A dump of a table that changes between its parts may show a route
 * twice or miss one: the kernel marks it (EINTR from fg_talk), and it is
 * read again from the start.
 */
static int fr_show(struct fg_sock *s, uint32_t ifindex, bool json)
{
	struct fr_show sh = { .json = json, .ifindex = ifindex };
	struct nlmsghdr *nlh;
	unsigned int tries = 0;
	char buf[256];
	int ret;

	do {
		sh.count = 0;
		sh.nomem = false;
		nlh = fg_msg(s, buf, s->family, NLM_F_DUMP, FABRIC_CMD_ROUTE_GET,
			     FABRIC_GENL_VERSION);
		ret = fg_talk(s, nlh, fr_show_cb, &sh);
	} while (ret < 0 && s->err == EINTR && ++tries < FR_DUMP_TRIES);
	if (!ret && sh.nomem) {
		fprintf(stderr, PROG ": reading routes: out of memory\n");
		ret = -1;
	} else if (ret < 0) {
		fprintf(stderr, PROG ": reading routes: %s%s\n", fg_strerror(s),
			s->err == EINTR ? " (the table kept changing while read)" : "");
	} else {
		fr_print(&sh);
	}
	free(sh.routes);
	return ret < 0 ? -1 : 0;
}

/* ---- changes ----------------------------------------------------------- */

static int fr_none_cb(const struct nlmsghdr *nlh, void *data)
{
	(void)nlh;
	(void)data;
	return MNL_CB_OK;
}

static int fr_change(struct fg_sock *s, uint8_t cmd, bool replace,
		     const struct fr_route *r, const char *what)
{
	struct nlmsghdr *nlh;
	char buf[256];

	nlh = fg_msg(s, buf, s->family, NLM_F_ACK, cmd, FABRIC_GENL_VERSION);
	if (replace)
		mnl_attr_put(nlh, FABRIC_A_ROUTE_REPLACE, 0, NULL);
	if (r->ifindex)
		mnl_attr_put_u32(nlh, FABRIC_A_IFINDEX, r->ifindex);
	if (r->has_dst)
		mnl_attr_put(nlh, FABRIC_A_ROUTE_DST, ETH_ALEN, r->dst);
	if (r->has_route)
		mnl_attr_put_u32(nlh, FABRIC_A_ROUTE, r->route);
	if (fg_talk(s, nlh, fr_none_cb, NULL) < 0) {
		fprintf(stderr, PROG ": %s: %s\n", what, fg_strerror(s));
		return -1;
	}
	return 0;
}

/*
 * One command, @argv[0] the command's name ("add" ...), on @s (NULL: only
 * check it).  Return 0 done, 1 refused by the kernel, 2 not understood.
 */
static int fr_run(struct fg_sock *s, int argc, char **argv, bool json)
{
	bool add, replace, del, flush, show;
	const char *cmd = argc ? argv[0] : "show";
	struct fr_route r;
	int ret;

	add = !strcmp(cmd, "add");
	replace = !strcmp(cmd, "replace");
	del = !strcmp(cmd, "del");
	flush = !strcmp(cmd, "flush");
	show = !strcmp(cmd, "show") || !strcmp(cmd, "list");
	if (!add && !replace && !del && !flush && !show) {
		fprintf(stderr, PROG ": unknown command \"%s\"\n", cmd);
		return 2;
	}
	if (fr_parse(argc ? argc - 1 : 0, argv + 1, add || replace, &r) < 0)
		return 2;
	if ((add || replace || del) && (!r.ifindex || !r.has_dst)) {
		fprintf(stderr, PROG ": %s needs dev DEV and to MAC\n", cmd);
		return 2;
	}
	if ((add || replace) && !r.has_route) {
		fprintf(stderr, PROG ": %s needs ports or turnpool\n", cmd);
		return 2;
	}
	if ((flush || show) && r.has_dst) {
		fprintf(stderr, PROG ": %s takes dev DEV only\n", cmd);
		return 2;
	}
	if (!s)
		return 0;
	if (show)
		ret = fr_show(s, r.ifindex, json);
	else if (flush)
		ret = fr_change(s, FABRIC_CMD_ROUTE_DEL, false, &r, "flush");
	else if (del)
		ret = fr_change(s, FABRIC_CMD_ROUTE_DEL, false, &r, "del");
	else
		ret = fr_change(s, FABRIC_CMD_ROUTE_NEW, replace, &r, cmd);
	return ret ? 1 : 0;
}

#define FR_MAX_WORDS	16

/*
 * -b FILE ("-": standard input): a command per line, as on the command
 * line without "fabric-route"; blank lines and "#" comments skipped.  All
 * run; the first failure is reported with its line and sets the exit
 * status (admission control prints thousands of routes: one process and
 * one socket for all of them).
 */
static int fr_batch(struct fg_sock *s, const char *file, bool json)
{
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	char line[1024], *argv[FR_MAX_WORDS + 1];
	unsigned int lineno = 0;
	int ret = 0, rc, argc;

	if (!f) {
		fprintf(stderr, PROG ": %s: %s\n", file, strerror(errno));
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *w, *save = NULL;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			fprintf(stderr, PROG ": %s:%u: line too long\n", file, lineno);
			ret = ret ? ret : 2;
			while (fgets(line, sizeof(line), f) && !strchr(line, '\n'))
				;
			continue;
		}
		argc = 0;
		for (w = strtok_r(line, " \t\r\n", &save); w && *w != '#';
		     w = strtok_r(NULL, " \t\r\n", &save)) {
			if (argc == FR_MAX_WORDS)
				break;
			argv[argc++] = w;
		}
		if (!argc)
			continue;
		if (w && *w != '#') {
			fprintf(stderr, PROG ": %s:%u: more than %d words\n", file,
				lineno, FR_MAX_WORDS);
			ret = ret ? ret : 2;
			continue;
		}
		argv[argc] = NULL;
		rc = fr_run(s, argc, argv, json);
		if (rc) {
			fprintf(stderr, PROG ": %s:%u: failed\n", file, lineno);
			ret = ret ? ret : rc;
		}
	}
	if (f != stdin)
		fclose(f);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "batch", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *batch = NULL;
	bool json = false;
	struct fg_sock s;
	int c, ret;

	while ((c = getopt_long(argc, argv, "+jb:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'b':
			batch = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (batch && optind < argc) {
		fprintf(stderr, PROG ": -b FILE takes no command besides\n");
		return 2;
	}
	/* a command line not understood says so before the module is asked */
	if (!batch) {
		ret = fr_run(NULL, argc - optind, argv + optind, json);
		if (ret) {
			usage(stderr);
			return ret;
		}
	}
	if (fg_open(&s, PROG) < 0)
		return 1;
	ret = batch ? fr_batch(&s, batch, json) :
		      fr_run(&s, argc - optind, argv + optind, json);
	fg_close(&s);
	return ret;
}
