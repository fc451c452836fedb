// SPDX-License-Identifier: GPL-2.0
/*
 * plugin_json_keys PLUGIN.so KIND: loads one of our tc plugins as tc does
 * (dlopen, <kind>_qdisc_util) and checks the JSON its statistics hooks
 * print into the objects tc prints them in.
 *
 * tc -j puts a qdisc's TCA_STATS_APP beside its own keys at the qdisc's
 * top level ("kind", "handle", ..., "bytes", "packets", "drops", ...),
 * and, from iproute2 6.2 on, a class's inside the class's "stats" object
 * after tc's own "bytes", "packets", "drops", ...  A plugin key that is
 * one of those makes an object with a key twice, which JSON readers take
 * differently (most keep the last: tc's counter replaced by ours).  So
 * every key a hook prints is recorded in the object it lands in, seeded
 * with tc's, and a repeat, or a value printed with no key inside an
 * object, is an error.
 *
 * ip's link plugins (link_vcsw.so, link_vcsw_slave.so: <kind>_link_util)
 * print their options and counters into one object, ip -d -j's
 * "info_data" or "info_slave_data", so there an option and a group of
 * counters of the same name collide: their print_opt is given every
 * attribute at once.
 *
 * The iproute2 helpers the plugin calls are this program's own (it is
 * linked with -rdynamic, as tc is): the printers record; the parsers,
 * which no statistics hook calls, fail.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../tc/tc_abi.h"
#include "../../tc/vcsw_ipdecl.h"

#include <linux/pkt_sched_aoq.h>
#include <linux/pkt_sched_dtable.h>
#include <linux/pkt_sched_edf.h>
#include <linux/pkt_sched_fbs.h>

#define MAX_DEPTH	16
#define MAX_KEYS	512

struct level {
	const char *name;
	bool array;
	int nkeys;
	const char *keys[MAX_KEYS];
};

static struct level levels[MAX_DEPTH];
static int depth;
static int errors;
static const char *what;	/* the hook and statistics being printed */

static struct level *top(void)
{
	return &levels[depth - 1];
}

static void error(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: %s: ", what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	errors++;
}

static void record(const char *key)
{
	struct level *l = top();
	int i;

	if (l->array)
		return;		/* array elements have no keys */
	if (!key) {
		error("a value with no key in object \"%s\"", l->name);
		return;
	}
	for (i = 0; i < l->nkeys; i++)
		if (!strcmp(l->keys[i], key))
			error("key \"%s\" twice in object \"%s\"", key, l->name);
	/* a copy: a plugin may build its keys in one buffer, one after another */
	if (l->nkeys < MAX_KEYS)
		l->keys[l->nkeys++] = strdup(key);
}

static void push(const char *name, bool array)
{
	if (depth == MAX_DEPTH) {
		error("objects nested deeper than %d", MAX_DEPTH);
		exit(1);
	}
	levels[depth] = (struct level){ .name = name ? name : "(element)", .array = array };
	depth++;
}

static void pop(bool array)
{
	if (depth <= 1 || top()->array != array) {
		error("a close of an %s that is not open", array ? "array" : "object");
		return;
	}
	depth--;
}

static bool to_json(enum output_type t)
{
	return t == PRINT_JSON || t == PRINT_ANY;
}

/* ---- what the plugin calls: json_print.h -------------------------------- */

void open_json_object(const char *str)
{
	if (!top()->array || str)
		record(str);
	push(str, false);
}

void close_json_object(void)
{
	pop(false);
}

void open_json_array(enum output_type type, const char *str)
{
	if (!to_json(type))
		return;
	record(str);
	push(str, true);
}

void close_json_array(enum output_type type, const char *str)
{
	if (to_json(type))
		pop(true);
}

void print_nl(void)
{
}

#define PRINTER(name, type)						\
int name(enum output_type t, enum color_attr color, const char *key,	\
	 const char *fmt, type value)					\
{									\
	if (to_json(t))							\
		record(key);						\
	return 0;							\
}
PRINTER(print_color_uint, unsigned int)
PRINTER(print_color_int, int)
PRINTER(print_color_u64, uint64_t)
PRINTER(print_color_string, const char *)
PRINTER(print_color_bool, bool)
PRINTER(print_color_on_off, bool)

void tc_print_rate(enum output_type t, const char *key, const char *fmt,
		   unsigned long long rate)
{
	if (to_json(t))
		record(key);
}

char *sprint_time64(__s64 time, char *buf)
{
	snprintf(buf, SPRINT_BSIZE, "%lldns", (long long)time);
	return buf;
}

int show_details;

/* ---- parsers: no statistics hook calls them ----------------------------- */

static int not_here(const char *name)
{
	error("the statistics hook called %s()", name);
	return -1;
}

int addattr8(struct nlmsghdr *n, int maxlen, int type, __u8 data) { return not_here(__func__); }
int addattr16(struct nlmsghdr *n, int maxlen, int type, __u16 data) { return not_here(__func__); }
int addattr32(struct nlmsghdr *n, int maxlen, int type, __u32 data) { return not_here(__func__); }
int addattr64(struct nlmsghdr *n, int maxlen, int type, __u64 data) { return not_here(__func__); }
int addattr_l(struct nlmsghdr *n, int maxlen, int type, const void *data, int alen)
{
	return not_here(__func__);
}
struct rtattr *addattr_nest(struct nlmsghdr *n, int maxlen, int type)
{
	not_here(__func__);
	return NULL;
}
int addattr_nest_end(struct nlmsghdr *n, struct rtattr *nest) { return not_here(__func__); }
int parse_rtattr_flags(struct rtattr *tb[], int max, struct rtattr *rta, int len,
		       unsigned short flags)
{
	return not_here(__func__);
}
int get_u32(__u32 *val, const char *arg, int base) { return not_here(__func__); }
int get_size(unsigned int *size, const char *str) { return not_here(__func__); }
int get_time64(__s64 *time, const char *str) { return not_here(__func__); }
int get_rate64(__u64 *rate, const char *str) { return not_here(__func__); }
int get_percent_rate64(__u64 *rate, const char *str, const char *dev)
{
	return not_here(__func__);
}
int ll_addr_a2n(char *lladdr, int len, const char *arg) { return not_here(__func__); }

/* ---- the objects tc prints statistics in -------------------------------- */

/* tc_qdisc.c: the qdisc's own keys, then its counters beside them */
static const char *const qdisc_keys[] = {
	"kind", "handle", "root", "parent", "refcnt", "options", "dev",
	"offloaded", "ingress_block", "egress_block",
	"bytes", "packets", "drops", "overlimits", "requeues", "rate", "pps",
	"backlog", "qlen", "sw_bytes", "sw_packets", "hw_bytes", "hw_packets",
};

/* tc_class.c (6.2 on): the class object, then its "stats" */
static const char *const class_keys[] = {
	"class", "handle", "dev", "root", "parent", "leaf",
};
static const char *const class_stats_keys[] = {
	"bytes", "packets", "drops", "overlimits", "requeues", "rate", "pps",
	"backlog", "qlen", "sw_bytes", "sw_packets", "hw_bytes", "hw_packets",
};

static void seed(const char *const *keys, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		record(keys[i]);
}

/*
 * One TCA_STATS_APP of @len bytes: @head (a type word, or nothing), then
 * bytes of 1, so that every counter is non-zero and the parts a plugin
 * prints only when set (the credit link's block) are printed too.
 */
static void print_stats(struct qdisc_util *qu, bool class, const void *head,
			size_t head_len, size_t len)
{
	static union {
		struct rtattr rta;
		char buf[RTA_SPACE(4096)];
	} a;

	memset(&a, 0, sizeof(a));
	a.rta.rta_len = RTA_LENGTH(len);
	memset(RTA_DATA(&a.rta), 1, len);
	if (head_len)
		memcpy(RTA_DATA(&a.rta), head, head_len);

	depth = 0;
	push("(top)", true);		/* tc's array of qdiscs or classes */
	push(class ? "class" : "qdisc", false);
	if (class) {
		seed(class_keys, sizeof(class_keys) / sizeof(class_keys[0]));
		open_json_object("stats");
		seed(class_stats_keys, sizeof(class_stats_keys) / sizeof(class_stats_keys[0]));
	} else {
		seed(qdisc_keys, sizeof(qdisc_keys) / sizeof(qdisc_keys[0]));
	}
	qu->print_xstats(qu, stdout, &a.rta);
	if (depth != (class ? 3 : 2))
		error("%d objects or arrays left open", depth - (class ? 3 : 2));
}

/*
 * A link plugin's options and counters: every attribute of its table
 * present, each long enough for any of them and filled with bytes of 1
 * (every counter non-zero, every index in range).
 */
#define LINK_ATTR_LEN	4096

static int print_link(struct link_util *lu, const char *kind)
{
	static union {
		struct rtattr rta;
		char buf[RTA_SPACE(LINK_ATTR_LEN)];
	} *a;
	struct rtattr **tb;
	int i;

	a = calloc(lu->maxattr + 1, sizeof(*a));
	tb = calloc(lu->maxattr + 1, sizeof(*tb));
	if (!a || !tb) {
		printf("FAIL: out of memory\n");
		return 1;
	}
	for (i = 1; i <= lu->maxattr; i++) {
		a[i].rta.rta_type = i;
		a[i].rta.rta_len = RTA_LENGTH(LINK_ATTR_LEN);
		memset(RTA_DATA(&a[i].rta), 1, LINK_ATTR_LEN);
		tb[i] = &a[i].rta;
	}
	what = kind;
	depth = 0;
	push("(top)", true);		/* ip's array of links */
	push("link", false);
	open_json_object(strstr(kind, "_slave") ? "info_slave_data" : "info_data");
	lu->print_opt(lu, stdout, tb);
	close_json_object();
	if (depth != 2)
		error("%d objects or arrays left open", depth - 2);
	free(tb);
	free(a);
	if (!errors)
		printf("ok: %s: link options and counters keys\n", kind);
	return errors ? 1 : 0;
}

int main(int argc, char **argv)
{
	char sym[64];
	struct qdisc_util *qu;
	struct link_util *lu;
	void *dl;
	__u32 type;

	if (argc != 3) {
		fprintf(stderr, "usage: %s PLUGIN.so KIND\n", argv[0]);
		return 2;
	}
	/* every symbol now: one this program lacks fails here, not later */
	dl = dlopen(argv[1], RTLD_NOW);
	if (!dl) {
		printf("FAIL: %s\n", dlerror());
		return 1;
	}
	snprintf(sym, sizeof(sym), "%s_link_util", argv[2]);
	lu = dlsym(dl, sym);
	if (lu) {
		if (!lu->print_opt) {
			printf("FAIL: %s has no print_opt\n", sym);
			return 1;
		}
		return print_link(lu, argv[2]);
	}
	snprintf(sym, sizeof(sym), "%s_qdisc_util", argv[2]);
	qu = dlsym(dl, sym);
	if (!qu || !qu->print_xstats) {
		printf("FAIL: %s has no %s with a print_xstats\n", argv[1], sym);
		return 1;
	}

	if (!strcmp(argv[2], "dtable")) {
		type = TC_DTABLE_XSTATS_CLASS;
		what = "dtable class xstats";
		print_stats(qu, true, &type, sizeof(type), sizeof(struct tc_dtable_class_xstats));
		type = TC_DTABLE_XSTATS_QDISC;
		what = "dtable qdisc xstats";
		print_stats(qu, false, &type, sizeof(type), sizeof(struct tc_dtable_xstats));
	} else if (!strcmp(argv[2], "fbs")) {
		type = TC_FBS_XSTATS_CLASS;
		what = "fbs class xstats";
		print_stats(qu, true, &type, sizeof(type), sizeof(struct tc_fbs_class_xstats));
		type = TC_FBS_XSTATS_QDISC;
		what = "fbs qdisc xstats";
		print_stats(qu, false, &type, sizeof(type), sizeof(struct tc_fbs_xstats));
	} else if (!strcmp(argv[2], "aoq")) {
		/* told apart by size, as no options were printed before */
		what = "aoq class xstats";
		print_stats(qu, true, NULL, 0, sizeof(struct tc_aoq_class_stats));
		what = "aoq qdisc xstats";
		print_stats(qu, false, NULL, 0, sizeof(struct tc_aoq_qd_stats));
	} else if (!strcmp(argv[2], "edf")) {
		what = "edf class xstats";
		print_stats(qu, true, NULL, 0, sizeof(struct tc_edf_class_stats));
		what = "edf qdisc xstats";
		print_stats(qu, false, NULL, 0, sizeof(struct tc_edf_qd_stats));
	} else {
		printf("FAIL: no statistics known for kind %s\n", argv[2]);
		return 1;
	}
	if (!errors)
		printf("ok: %s: class and qdisc xstats keys\n", argv[2]);
	return errors ? 1 : 0;
}
