// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-stat: print the fabric header receive statistics the fabric_hdr
 * module keeps per network namespace and device, read through its generic
 * netlink family.  Without a device it dumps every device of the current
 * namespace that has received fabric frames.  With --wait-rx it first
 * waits until the device has received that many frames: a script's wait
 * for its traffic, polled here rather than by starting this program
 * again and again (in a slow VM each start cost more than the traffic).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <net/if.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <linux/fabric_hdr.h>

#include "fabric_genl.h"

#define PROG "fabric-stat"

struct fs_dev {
	uint32_t	ifindex;
	const char	*ifname;	/* NULL: the namespace's unattributed counters */
	uint64_t	val[FABRIC_A_MAX + 1];
	uint64_t	hist[FABRIC_LATE_BUCKETS];
};

struct fs_print {
	bool		json;
	unsigned int	count;
};

/* Counters in the order they are printed, with their names in both formats. */
static const struct {
	int		attr;
	const char	*name;
} fs_counters[] = {
	{ FABRIC_A_RX_FRAMES,		"rx_frames" },
	{ FABRIC_A_RX_BYTES,		"rx_bytes" },
	{ FABRIC_A_LATE,		"late" },
	{ FABRIC_A_LATE_MAX_NS,		"late_max_ns" },
	{ FABRIC_A_DROP_SHORT,		"drop_short" },
	{ FABRIC_A_DROP_VERSION,	"drop_version" },
	{ FABRIC_A_DROP_INNER_TYPE,	"drop_inner_type" },
	{ FABRIC_A_DROP_TRUNCATED,	"drop_truncated" },
	{ FABRIC_A_DROP_NOMEM,		"drop_nomem" },
	{ FABRIC_A_DROP_LINK_MSG,	"drop_link_msg" },
	{ FABRIC_A_DROP_LINK_LAYER,	"drop_link_layer" },
};

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: " PROG " [ -j | --json ] [ DEV ]\n"
		"       " PROG " [ -j | --json ] --wait-rx FRAMES [ --timeout SECONDS ] DEV\n"
		"       " PROG " -h | --help\n"
		"Print the fabric header receive statistics of DEV, or of every\n"
		"device of the current network namespace that received fabric\n"
		"frames.  Needs the fabric_hdr module.\n"
		"--wait-rx FRAMES   first wait until DEV's rx_frames is at least\n"
		"                   FRAMES (checked every 10 ms); exit 1 if that\n"
		"                   takes longer than --timeout SECONDS (default 60,\n"
		"                   at most 86400; fractions allowed)\n");
}

/* ---- netlink plumbing ---------------------------------------------------- */

/* ---- statistics ----------------------------------------------------------- */

static int fs_stats_attr_cb(const struct nlattr *attr, void *data)
{
	uint16_t type = mnl_attr_get_type(attr);
	struct fs_dev *d = data;
	size_t len;

	switch (type) {
	case FABRIC_A_IFINDEX:
		if (mnl_attr_validate(attr, MNL_TYPE_U32) == 0)
			d->ifindex = mnl_attr_get_u32(attr);
		break;
	case FABRIC_A_IFNAME:
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) == 0)
			d->ifname = mnl_attr_get_str(attr);
		break;
	case FABRIC_A_LATE_HIST:
		/* a kernel with more or fewer buckets: show what both know */
		len = mnl_attr_get_payload_len(attr);
		if (len > sizeof(d->hist))
			len = sizeof(d->hist);
		memcpy(d->hist, mnl_attr_get_payload(attr), len);
		break;
	case FABRIC_A_RX_FRAMES ... FABRIC_A_LATE_MAX_NS:
	case FABRIC_A_DROP_NOMEM:
	case FABRIC_A_DROP_LINK_MSG:
	case FABRIC_A_DROP_LINK_LAYER:
		if (mnl_attr_validate(attr, MNL_TYPE_U64) == 0)
			d->val[type] = mnl_attr_get_u64(attr);
		break;
	}
	return MNL_CB_OK;
}

static void fs_json_string(const char *str)
{
	const unsigned char *p;

	putchar('"');
	for (p = (const unsigned char *)str; *p; p++) {
		if (*p == '"' || *p == '\\')
			printf("\\%c", *p);
		else if (*p < 0x20)
			printf("\\u%04x", *p);
		else
			putchar(*p);
	}
	putchar('"');
}

static void fs_print_json(const struct fs_dev *d, unsigned int nr)
{
	unsigned int i;

	printf("%s{\"ifindex\":%" PRIu32 ",\"ifname\":", nr ? ",\n" : "",
	       d->ifindex);
	if (d->ifname)
		fs_json_string(d->ifname);
	else
		printf("null");
	for (i = 0; i < sizeof(fs_counters) / sizeof(fs_counters[0]); i++)
		printf(",\"%s\":%" PRIu64, fs_counters[i].name,
		       d->val[fs_counters[i].attr]);
	printf(",\"late_hist\":[");
	for (i = 0; i < FABRIC_LATE_BUCKETS; i++)
		printf("%s%" PRIu64, i ? "," : "", d->hist[i]);
	printf("]}");
}

/* Bucket bounds in us, see FABRIC_LATE_BUCKETS in the uapi header. */
static void fs_bucket_range(unsigned int b, char *buf, size_t len)
{
	if (b == 0)
		snprintf(buf, len, "[0, 1)");
	else if (b == FABRIC_LATE_BUCKETS - 1)
		snprintf(buf, len, "[%lu, inf)", 1UL << (b - 1));
	else
		snprintf(buf, len, "[%lu, %lu)", 1UL << (b - 1), 1UL << b);
}

static void fs_print_text(const struct fs_dev *d, unsigned int nr)
{
	char range[32];
	unsigned int i;

	if (nr)
		putchar('\n');
	if (d->ifname)
		printf("%s (ifindex %" PRIu32 ")\n", d->ifname, d->ifindex);
	else
		printf("unattributed (devices whose statistics entry could not be allocated)\n");
	for (i = 0; i < sizeof(fs_counters) / sizeof(fs_counters[0]); i++)
		printf("  %-16s %" PRIu64 "\n", fs_counters[i].name,
		       d->val[fs_counters[i].attr]);
	if (!d->val[FABRIC_A_LATE]) {
		printf("  lateness histogram: no late frames\n");
		return;
	}
	printf("  lateness histogram (us late):\n");
	for (i = 0; i < FABRIC_LATE_BUCKETS; i++) {
		fs_bucket_range(i, range, sizeof(range));
		printf("    %-16s %" PRIu64 "\n", range, d->hist[i]);
	}
}

static int fs_stats_cb(const struct nlmsghdr *nlh, void *data)
{
	struct fg_sock *s = data;
	struct fs_print *pr = s->priv;
	struct fs_dev d;

	memset(&d, 0, sizeof(d));
	if (mnl_attr_parse(nlh, sizeof(struct genlmsghdr), fs_stats_attr_cb,
			   &d) < 0)
		return MNL_CB_ERROR;
	if (pr->json)
		fs_print_json(&d, pr->count);
	else
		fs_print_text(&d, pr->count);
	pr->count++;
	return MNL_CB_OK;
}

/* DEV's ifindex, or 0 after saying on stderr that there is no such device */
static unsigned int fs_ifindex(const char *dev)
{
	unsigned int ifindex = if_nametoindex(dev);

	if (!ifindex)
		fprintf(stderr, PROG ": %s: no such device in this network namespace\n",
			dev);
	return ifindex;
}

static int fs_get_stats(struct fg_sock *s, uint16_t family, const char *dev,
			bool json)
{
	char buf[256];
	struct fs_print pr = { .json = json };
	struct nlmsghdr *nlh;
	unsigned int ifindex = 0;
	int ret;

	if (dev) {
		ifindex = fs_ifindex(dev);
		if (!ifindex)
			return -1;
	}
	nlh = fg_msg(s, buf, family, dev ? NLM_F_ACK : NLM_F_DUMP,
		     FABRIC_CMD_GET_STATS, FABRIC_GENL_VERSION);
	if (dev)
		mnl_attr_put_u32(nlh, FABRIC_A_IFINDEX, ifindex);

	if (json)
		printf("[\n");
	ret = fg_talk(s, nlh, fs_stats_cb, &pr);
	if (json)
		printf("%s]\n", pr.count ? "\n" : "");
	else if (!ret && !dev && !pr.count)
		printf("no fabric frames received in this network namespace\n");
	fflush(stdout);
	if (ret < 0) {
		if (dev && s->err == ENOENT)
			fprintf(stderr, PROG ": %s: no fabric statistics for this device (no fabric frame received yet)\n",
				dev);
		else if (dev && s->err == ENODEV)
			fprintf(stderr, PROG ": %s: no such device in this network namespace\n",
				dev);
		else
			fprintf(stderr, PROG ": reading statistics: %s\n",
				fg_strerror(s));
		return -1;
	}
	return 0;
}

/* ---- waiting for frames ---------------------------------------------------- */

static int fs_rx_frames_cb(const struct nlmsghdr *nlh, void *data)
{
	struct fg_sock *s = data;
	struct fs_dev d;

	memset(&d, 0, sizeof(d));
	if (mnl_attr_parse(nlh, sizeof(struct genlmsghdr), fs_stats_attr_cb,
			   &d) < 0)
		return MNL_CB_ERROR;
	*(uint64_t *)s->priv = d.val[FABRIC_A_RX_FRAMES];
	return MNL_CB_OK;
}

static double fs_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * Poll DEV's rx_frames every 10 ms until it reaches @want; a device that
 * has received nothing yet (ENOENT) counts 0.  Returns 0 when reached, 1
 * on timeout, -1 on an error (said on stderr).
 */
static int fs_wait_rx(struct fg_sock *s, const char *dev, uint64_t want,
		      double timeout_s)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	double deadline = fs_now() + timeout_s;
	unsigned int ifindex;
	char buf[256];
	uint64_t rx;

	ifindex = fs_ifindex(dev);
	if (!ifindex)
		return -1;
	for (;;) {
		struct nlmsghdr *nlh = fg_msg(s, buf, s->family, NLM_F_ACK,
					      FABRIC_CMD_GET_STATS,
					      FABRIC_GENL_VERSION);

		mnl_attr_put_u32(nlh, FABRIC_A_IFINDEX, ifindex);
		rx = 0;
		if (fg_talk(s, nlh, fs_rx_frames_cb, &rx) < 0 && s->err != ENOENT) {
			fprintf(stderr, PROG ": %s: reading statistics: %s\n",
				dev, fg_strerror(s));
			return -1;
		}
		if (rx >= want)
			return 0;
		if (fs_now() >= deadline) {
			fprintf(stderr, PROG ": %s: %" PRIu64 " of %" PRIu64
				" frames after %g s\n", dev, rx, want, timeout_s);
			return 1;
		}
		nanosleep(&tick, NULL);
	}
}

/* "N" or "N.M" seconds, above 0 and at most a day */
static bool fs_parse_seconds(const char *arg, double *out)
{
	char *end;
	double v;

	if (!*arg || !strchr("0123456789.", *arg))
		return false;
	errno = 0;
	v = strtod(arg, &end);
	if (errno || *end || !(v > 0) || v > 86400)
		return false;
	*out = v;
	return true;
}

static bool fs_parse_u64(const char *arg, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!*arg || !strchr("0123456789", *arg))
		return false;
	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || *end)
		return false;
	*out = v;
	return true;
}

/* Say that --OPT's ARG is not WHAT; the exit code of a usage error. */
static int fs_bad(const char *opt, const char *arg, const char *what)
{
	fprintf(stderr, PROG ": --%s: \"%s\" is not %s\n", opt, arg, what);
	return 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "wait-rx", required_argument, NULL, 'w' },
		{ "timeout", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false, wait = false, timeout_set = false;
	double timeout_s = 60;
	uint64_t want = 0;
	struct fg_sock s;
	int c, ret;

	while ((c = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'w':
			if (!fs_parse_u64(optarg, &want))
				return fs_bad("wait-rx", optarg, "a count of frames");
			wait = true;
			break;
		case 't':
			if (!fs_parse_seconds(optarg, &timeout_s))
				return fs_bad("timeout", optarg,
					      "a number of seconds above 0 and at most 86400");
			timeout_set = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (argc - optind > 1) {
		fprintf(stderr, PROG ": at most one device, got \"%s\" too\n",
			argv[optind + 1]);
		usage(stderr);
		return 1;
	}

	if (wait && optind >= argc) {
		fprintf(stderr, PROG ": --wait-rx needs a device\n");
		return 1;
	}
	if (timeout_set && !wait) {
		fprintf(stderr, PROG ": --timeout is only for --wait-rx\n");
		return 1;
	}

	if (fg_open(&s, PROG) < 0)
		return 1;
	ret = 0;
	if (wait)
		ret = fs_wait_rx(&s, argv[optind], want, timeout_s);
	/* after a timeout too: the counts say how far the traffic got */
	if (ret >= 0 && fs_get_stats(&s, s.family, optind < argc ? argv[optind] : NULL, json))
		ret = -1;
	fg_close(&s);
	return ret ? 1 : 0;
}
