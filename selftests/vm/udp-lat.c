// SPDX-License-Identifier: GPL-2.0
/*
 * udp-lat: UDP traffic generator and one-way latency meter for the VM
 * selftests of the edf qdisc.
 *
 * Sender and receiver run on the same machine (in different network
 * namespaces), so they share CLOCK_MONOTONIC: the sender stamps each
 * datagram as it hands it to the kernel, the receiver subtracts that stamp
 * from its own clock on receipt.  No clock synchronisation is needed, and
 * the result covers the whole path: socket, qdisc, veth, and the
 * receiver's own scheduling delay.
 *
 * Every datagram, and every segment of a UDP_SEGMENT (GSO) send, starts
 * with this header, in network byte order:
 *
 *    0  u32 magic     0x51A7E11A
 *    4  u16 stream    stream id
 *    6  u16 flags     UL_F_*
 *    8  u32 seq       per stream, one per datagram, from 0
 *   12  u32 frame     per stream, from 0; a plain datagram is a one-part frame
 *   16  u16 part      0 .. parts-1
 *   18  u16 parts     datagrams in the frame
 *   20  u64 send_ns   sender's CLOCK_MONOTONIC at the sendmsg call; for
 *                     frames taken once, before the frame's first send
 *   28  zeros up to --size
 *
 * With --txtime-frame, --txtime-offset or --txtime-fixed each send also carries an
 * SO_TXTIME time (CLOCK_MONOTONIC) for the edf qdisc's frame and txtime
 * classes, computed with userspace/lib/edf_frame.h.
 *
 * usage() documents the command line and the output.
 */
#include <arpa/inet.h>
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h"
#include "edf_frame.h"

#ifndef UDP_SEGMENT
#define UDP_SEGMENT		103
#endif

#define PROG			"udp-lat"

#define UL_MAGIC		0x51A7E11AU
#define UL_HDR_LEN		28
#define UL_F_FRAME		0x0001	/* one part of a --frame-bytes frame */
#define UL_F_GSO		0x0002	/* one segment of a UDP_SEGMENT send */

#define EXIT_USAGE		2
#define EXIT_NO_GSO		4

#define NSEC_PER_SEC		1000000000LL
#define MAX_DURATION_S		86400.0
#define MAX_TXTIME_US		(MAX_DURATION_S * 1e6)
#define MAX_SAMPLES		2000000
#define RCVBUF_BYTES		(4 << 20)
#define RECV_BATCH		64
/* Only the header is read; MSG_TRUNC still reports the full length. */
#define RECV_SNAP		64
#define MAX_PAYLOAD4		65507	/* 65535 - IPv4 header - UDP header */
#define MAX_PAYLOAD6		65527	/* 65535 - UDP header */
/* UDP_MAX_SEGMENTS of Linux 6.1, the VM kernel (later kernels allow 128). */
#define GSO_MAX_SEGS		64
#define MAX_STREAMS		256
/* Pause after a full queue: short, as the qdisc may drain any moment. */
#define BLOCKED_SLEEP_NS	100000LL
/*
 * A sender given only --count must still end: if every send is refused
 * for this long the queue is not draining, and waiting longer is no test.
 */
#define STALL_NS		(10 * NSEC_PER_SEC)

struct ul_hdr {
	uint32_t magic;
	uint16_t stream;
	uint16_t flags;
	uint32_t seq;
	uint32_t frame;
	uint16_t part;
	uint16_t parts;
	uint64_t send_ns;
};

static volatile sig_atomic_t stop_requested;

/* ---- small helpers ------------------------------------------------------- */

static void usage(FILE *f)
{
	fputs(
"Usage: " PROG " recv --port P --duration S [options]\n"
"       " PROG " send --dst ADDR --port P {--count N | --duration S | --burst N} [options]\n"
"       " PROG " -h | --help\n"
"\n"
"One-way UDP latency on one machine: the sender stamps each datagram with\n"
"CLOCK_MONOTONIC, the receiver subtracts the stamp from its own clock.\n"
"\n"
"recv options:\n"
"  --port P               UDP port to bind\n"
"  --ports K              bind K ports P..P+K-1 (for send --streams; default 1)\n"
"  --bind ADDR            local IPv4 or IPv6 address (default: any, both families)\n"
"  --duration S           stop after S seconds (required; fractions allowed)\n"
"  --count N              stop earlier, after N datagrams carrying our header\n"
"  --frames               reassemble frames by frame id, report frame latency\n"
"  --frame-window LO:HI   also count frames with latency in [LO, HI] us\n"
"                         (implies --frames; default: every complete frame)\n"
"  --log FILE             one line per datagram, in arrival order:\n"
"                         stream seq arrival_ns send_ns len\n"
"  --ready FILE           write \"ready\" to FILE once bound\n"
"\n"
"send options:\n"
"  --dst ADDR             destination IPv4 or IPv6 address\n"
"  --port P               destination port (stream i: P+i)\n"
"  --src-port P           source port (stream i: P+i; default: ephemeral)\n"
"  --stream ID            stream id (stream i: ID+i; default 0)\n"
"  --streams K            K streams on K sockets, sent round robin (default 1)\n"
"  --same-port            send every stream to --port, so one socket on the\n"
"                         receiver sees their exact relative order\n"
"  --size BYTES           datagram (or frame part) size including the\n"
"                         28-byte header (default 64)\n"
"  --rate PPS             fixed rate, per stream\n"
"  --interval US          fixed interval, per stream\n"
"  --poisson MEAN_US      exponential inter-departure times with this mean\n"
"                         (no pacing option: as fast as possible)\n"
"  --seed N               random seed for --poisson (default: from the clock)\n"
"  --count N              datagrams (frames with --frame-bytes) per stream\n"
"  --duration S           stop after S seconds\n"
"  --burst N              N datagrams per stream back to back, then stop\n"
"  --prio N               SO_PRIORITY: decimal, 0x hex or tc MAJ:MIN (1:2 is\n"
"                         0x10002); give once for all streams or once per stream\n"
"  --tos N                IP_TOS (IPV6_TCLASS); once, or once per stream\n"
"  --max-pacing-rate B    SO_MAX_PACING_RATE, bytes per second\n"
"  --frame-bytes B        send frames of B bytes, in parts of --size bytes\n"
"                         sharing one frame id and one send_ns\n"
"  --frame-interval US    one frame every US microseconds (with --frame-bytes)\n"
"  --gso                  send each frame in one sendmsg with UDP_SEGMENT\n"
"  --reconnect N          every N rounds, dissolve each stream's connection\n"
"                         and connect the same socket again: a new local\n"
"                         port (unless --src-port) and so a new socket hash,\n"
"                         as a client that reconnects has\n"
"  --no-retry             count a datagram refused by a full or dropping qdisc\n"
"                         (ENOBUFS) in blocked=, dropped= and errors= and go\n"
"                         on, instead of retrying it\n"
"  --txtime-frame US      with --frame-bytes, without --gso: give each part\n"
"                         the SO_TXTIME deadline max(previous, now) + US / parts,\n"
"                         so the frame is due US microseconds after it starts\n"
"  --txtime-offset US     give every send the SO_TXTIME now + US (may be\n"
"                         negative: already late)\n"
"  --txtime-fixed US      give every send the same SO_TXTIME: the sender's\n"
"                         start + US, so those sent before it tie\n"
"\n"
"A datagram refused with ENOBUFS or EAGAIN (full qdisc or socket buffer) is\n"
"retried after 100 us; each refusal counts in blocked=.  A refusal with ENOBUFS\n"
"means the qdisc dropped what was sent: its datagrams (with --gso, the segments\n"
"the kernel cut it into) count in dropped=, so sent= + dropped= is what reached\n"
"the qdisc.\n"
"\n"
"Output (stdout):\n"
"  recv, per stream:  stream=ID packets=N bytes=N lost=N bad=N lat_mean_us=X\n"
"    lat_p50_us=X lat_p90_us=X lat_p99_us=X lat_p999_us=X lat_max_us=X\n"
"    bps_active=X bps_total=X [frames=N frames_incomplete=N frame_mean_us=X\n"
"    frame_p50_us=X frame_p90_us=X frame_p99_us=X frame_p999_us=X\n"
"    frame_max_us=X frames_in_window=N]\n"
"  then:              total packets=N bytes=N bad=N\n"
"  send:              sent=N bytes=N blocked=N dropped=N errors=N duration_s=X\n"
"                     [reconnects=N]\n"
"  bytes are UDP payload bytes.  lost = highest seq + 1 - packets.  bad on a\n"
"  stream line counts datagrams of that stream with an inconsistent header;\n"
"  on the total line also those without our magic.  bps_active is over the\n"
"  stream's first to last arrival, bps_total over the whole run (--duration,\n"
"  unless --count or a signal ended it earlier).\n"
"\n"
"Times given with --txtime-* are CLOCK_MONOTONIC, the edf qdisc's clock.\n"
"\n"
"Exit status: 0 ok; 1 nothing received / nothing sent / runtime error;\n"
"2 bad arguments; 4 UDP_SEGMENT not supported (send --gso).\n",
	      f);
}

static int usage_error(const char *fmt, const char *arg)
{
	fputs(PROG ": ", stderr);
	fprintf(stderr, fmt, arg);
	fputs("\n" PROG ": try '" PROG " --help'\n", stderr);
	return EXIT_USAGE;
}

static int bad_value(const char *opt, const char *val, const char *want)
{
	fprintf(stderr, PROG ": invalid --%s value '%s': want %s\n", opt, val, want);
	return EXIT_USAGE;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* Sleep until CLOCK_MONOTONIC @t; an absolute target cannot drift. */
static void sleep_until(int64_t t)
{
	struct timespec ts = {
		.tv_sec = t / NSEC_PER_SEC,
		.tv_nsec = t % NSEC_PER_SEC,
	};

	while (!stop_requested &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static void on_signal(int sig)
{
	stop_requested = 1;
}

/* SIGINT / SIGTERM end a run early but still print its results. */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		fprintf(stderr, PROG ": out of memory\n");
		exit(1);
	}
	return p;
}

/* xorshift64*: cheap, seedable, good enough for sampling and Poisson gaps. */
static uint64_t rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545F4914F6CDD1DULL;
}

/* Uniform in (0, 1], so log() of it is finite. */
static double rng_unit(uint64_t *s)
{
	return ((rng_next(s) >> 11) + 1) * (1.0 / 9007199254740992.0);
}

/*
 * An IPv4 literal in dotted quad only (inet_pton takes no "1.2.3"), or an
 * IPv6 literal, which may carry a scope, a device name or index
 * ("fe80::1%veth0").  No getaddrinfo(): the helpers are linked statically
 * (cheaper to start under TCG), where it would want glibc's shared NSS
 * modules at run time.
 */
static int resolve(const char *addr, uint16_t port, struct sockaddr_storage *ss,
		   socklen_t *len)
{
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	char buf[INET6_ADDRSTRLEN + IF_NAMESIZE + 1], *scope, *end;
	unsigned long index;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, addr, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		*len = sizeof(*sin);
		return 0;
	}
	if (strlen(addr) >= sizeof(buf))
		return -1;
	strcpy(buf, addr);
	scope = strchr(buf, '%');
	if (scope)
		*scope++ = '\0';
	if (inet_pton(AF_INET6, buf, &sin6->sin6_addr) != 1)
		return -1;
	if (scope) {
		errno = 0;
		index = strtoul(scope, &end, 10);
		if (!*scope || *end || errno || index > UINT32_MAX)
			index = if_nametoindex(scope);
		if (!index)
			return -1;
		sin6->sin6_scope_id = index;
	}
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	*len = sizeof(*sin6);
	return 0;
}

/* ---- wire header ---------------------------------------------------------- */

#define OFF_SEND_NS	20

static void hdr_put(uint8_t *p, const struct ul_hdr *h)
{
	put32(p + 0, h->magic);
	put16(p + 4, h->stream);
	put16(p + 6, h->flags);
	put32(p + 8, h->seq);
	put32(p + 12, h->frame);
	put16(p + 16, h->part);
	put16(p + 18, h->parts);
	put64(p + OFF_SEND_NS, h->send_ns);
}

/* Decode @len bytes at @p; false unless they hold our header. */
static bool hdr_get(const uint8_t *p, size_t len, struct ul_hdr *h)
{
	if (len < UL_HDR_LEN || get32(p) != UL_MAGIC)
		return false;
	h->magic = UL_MAGIC;
	h->stream = get16(p + 4);
	h->flags = get16(p + 6);
	h->seq = get32(p + 8);
	h->frame = get32(p + 12);
	h->part = get16(p + 16);
	h->parts = get16(p + 18);
	h->send_ns = get64(p + OFF_SEND_NS);
	return true;
}

/* ---- receiver: latency samples --------------------------------------------- */

struct samples {
	int64_t *v;		/* kept samples, ns */
	size_t n, cap;
	uint64_t seen;		/* all samples, also those not kept */
	double sum_ns;
	int64_t max_ns;
};

static uint64_t sample_rng = 0x9E3779B97F4A7C15ULL;

static bool samples_grow(struct samples *s)
{
	size_t cap = s->cap ? s->cap * 2 : 4096;
	int64_t *v;

	if (cap > MAX_SAMPLES)
		cap = MAX_SAMPLES;
	v = realloc(s->v, cap * sizeof(*v));
	if (!v)
		return false;
	s->v = v;
	s->cap = cap;
	return true;
}

/*
 * Mean and max cover every sample.  Percentiles come from at most
 * MAX_SAMPLES kept ones; past that, reservoir sampling keeps them a uniform
 * pick from the whole run rather than its beginning.
 */
static void samples_add(struct samples *s, int64_t x)
{
	uint64_t j;

	s->seen++;
	s->sum_ns += (double)x;
	if (s->seen == 1 || x > s->max_ns)
		s->max_ns = x;
	if (s->n < MAX_SAMPLES && (s->n < s->cap || samples_grow(s))) {
		s->v[s->n++] = x;
		return;
	}
	if (!s->n)
		return;
	j = rng_next(&sample_rng) % s->seen;
	if (j < s->n)
		s->v[j] = x;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted @v, in microseconds. */
static double pct_us(const int64_t *v, size_t n, double p)
{
	size_t rank = (size_t)ceil(p * (double)n);

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return v[rank - 1] / 1000.0;
}

/* Print " PREFIX_mean_us=.. PREFIX_p50_us=.. ..."; zeros without samples. */
static void print_samples(const char *prefix, struct samples *s)
{
	static const struct { const char *name; double p; } pcts[] = {
		{ "p50", 0.50 }, { "p90", 0.90 }, { "p99", 0.99 }, { "p999", 0.999 },
	};
	size_t i;

	printf(" %s_mean_us=%.1f", prefix,
	       s->seen ? s->sum_ns / (double)s->seen / 1000.0 : 0.0);
	if (s->n)
		qsort(s->v, s->n, sizeof(*s->v), cmp_i64);
	for (i = 0; i < sizeof(pcts) / sizeof(pcts[0]); i++)
		printf(" %s_%s_us=%.1f", prefix, pcts[i].name,
		       s->n ? pct_us(s->v, s->n, pcts[i].p) : 0.0);
	printf(" %s_max_us=%.1f", prefix, s->seen ? s->max_ns / 1000.0 : 0.0);
}

/* ---- receiver: frame reassembly -------------------------------------------- */

/* A frame of which some but not all parts have arrived. */
struct pending {
	bool used;
	uint32_t id;
	uint16_t parts, got;
	uint64_t send_ns;
	uint64_t *seen;		/* bitmap of parts, so a duplicate cannot complete it */
};

/* Pending frames of one stream by frame id: open addressing, linear probing. */
struct frame_table {
	struct pending *slot;
	size_t size, used;	/* size is a power of two */
};

static size_t ft_home(const struct frame_table *t, uint32_t id)
{
	return (size_t)((id * 0x9E3779B97F4A7C15ULL) >> 32) & (t->size - 1);
}

static void ft_grow(struct frame_table *t)
{
	struct frame_table n = { .size = t->size ? t->size * 2 : 64 };
	size_t i, j;

	n.slot = xcalloc(n.size, sizeof(*n.slot));
	for (i = 0; i < t->size; i++) {
		if (!t->slot[i].used)
			continue;
		for (j = ft_home(&n, t->slot[i].id); n.slot[j].used; j = (j + 1) & (n.size - 1))
			;
		n.slot[j] = t->slot[i];
	}
	n.used = t->used;
	free(t->slot);
	*t = n;
}

/* The pending entry for frame @id, created empty (parts 0) if new. */
static struct pending *ft_get(struct frame_table *t, uint32_t id)
{
	size_t i;

	if ((t->used + 1) * 2 > t->size)
		ft_grow(t);
	for (i = ft_home(t, id); t->slot[i].used; i = (i + 1) & (t->size - 1))
		if (t->slot[i].id == id)
			return &t->slot[i];
	t->slot[i] = (struct pending){ .used = true, .id = id };
	t->used++;
	return &t->slot[i];
}

/* Remove @p, shifting later entries of its probe run back into the hole. */
static void ft_remove(struct frame_table *t, struct pending *p)
{
	size_t mask = t->size - 1, hole = (size_t)(p - t->slot), j = hole, home;

	free(p->seen);
	for (;;) {
		j = (j + 1) & mask;
		if (!t->slot[j].used)
			break;
		home = ft_home(t, t->slot[j].id);
		/* An entry whose home lies cyclically in (hole, j] must stay. */
		if (hole <= j ? (hole < home && home <= j) : (hole < home || home <= j))
			continue;
		t->slot[hole] = t->slot[j];
		hole = j;
	}
	t->slot[hole] = (struct pending){ .used = false };
	t->used--;
}

static void ft_free(struct frame_table *t)
{
	size_t i;

	for (i = 0; i < t->size; i++)
		free(t->slot[i].seen);
	free(t->slot);
}

/* ---- receiver ----------------------------------------------------------------- */

struct recv_cfg {
	const char *bind, *log, *ready;
	uint16_t port, nports;
	double duration_s;
	uint64_t count;		/* 0: until --duration */
	bool frames;
	double win_lo_us, win_hi_us;
};

struct rstream {
	uint64_t packets, bytes, bad;
	uint32_t max_seq;
	int64_t first_ns, last_ns;
	struct samples lat;
	/* --frames */
	struct frame_table pending;
	uint64_t frames_done, frames_in_window;
	struct samples frame_lat;
};

struct receiver {
	const struct recv_cfg *cfg;
	struct rstream *streams[65536];
	FILE *log;
	uint64_t packets, bytes, bad;
	double run_s;		/* how long we listened: --duration unless cut short */
};

static struct rstream *rstream_get(struct receiver *rx, uint16_t id)
{
	if (!rx->streams[id])
		rx->streams[id] = xcalloc(1, sizeof(struct rstream));
	return rx->streams[id];
}

static void frame_done(struct receiver *rx, struct rstream *s, int64_t lat_ns)
{
	double us = lat_ns / 1000.0;

	s->frames_done++;
	samples_add(&s->frame_lat, lat_ns);
	if (us >= rx->cfg->win_lo_us && us <= rx->cfg->win_hi_us)
		s->frames_in_window++;
}

/* A frame is complete with its last missing part; its latency runs from
 * the frame's send_ns (shared by all parts) to that part's arrival. */
static void frame_part(struct receiver *rx, struct rstream *s,
		       const struct ul_hdr *h, int64_t arrival)
{
	struct pending *p;

	if (h->parts == 1) {
		frame_done(rx, s, arrival - (int64_t)h->send_ns);
		return;
	}
	p = ft_get(&s->pending, h->frame);
	if (!p->parts) {
		p->parts = h->parts;
		p->send_ns = h->send_ns;
		p->seen = xcalloc((h->parts + 63) / 64, sizeof(uint64_t));
	}
	if (p->parts != h->parts) {
		s->bad++;
		rx->bad++;
		return;
	}
	if (p->seen[h->part / 64] & (1ULL << (h->part % 64)))
		return;
	p->seen[h->part / 64] |= 1ULL << (h->part % 64);
	if (++p->got < p->parts)
		return;
	frame_done(rx, s, arrival - (int64_t)p->send_ns);
	ft_remove(&s->pending, p);
}

/* Account one datagram; true if it carried a usable header. */
static bool take_datagram(struct receiver *rx, const uint8_t *buf, size_t len,
			  int64_t arrival)
{
	struct rstream *s;
	struct ul_hdr h;

	if (!hdr_get(buf, len, &h)) {
		rx->bad++;
		return false;
	}
	s = rstream_get(rx, h.stream);
	if (!h.parts || h.part >= h.parts) {
		s->bad++;
		rx->bad++;
		return false;
	}
	if (!s->packets || h.seq > s->max_seq)
		s->max_seq = h.seq;
	if (!s->packets)
		s->first_ns = arrival;
	s->last_ns = arrival;
	s->packets++;
	s->bytes += len;
	rx->packets++;
	rx->bytes += len;
	samples_add(&s->lat, arrival - (int64_t)h.send_ns);
	if (rx->cfg->frames)
		frame_part(rx, s, &h, arrival);
	if (rx->log)
		fprintf(rx->log, "%u %" PRIu32 " %" PRId64 " %" PRIu64 " %zu\n",
			h.stream, h.seq, arrival, h.send_ns, len);
	return true;
}

/*
 * Read what one socket has queued, up to @room datagrams.  One clock read
 * per batch: the batch was all queued by then, and a later read per
 * datagram would only add our own copying time to the latency.
 */
static int drain_socket(struct receiver *rx, int fd, uint64_t room, uint64_t *got)
{
	static uint8_t bufs[RECV_BATCH][RECV_SNAP];
	static struct iovec iov[RECV_BATCH];
	static struct mmsghdr msgs[RECV_BATCH];
	unsigned int vlen = room < RECV_BATCH ? (unsigned int)room : RECV_BATCH;
	int64_t arrival;
	int i, n;

	for (i = 0; i < RECV_BATCH; i++) {
		iov[i] = (struct iovec){ bufs[i], RECV_SNAP };
		msgs[i].msg_hdr = (struct msghdr){ .msg_iov = &iov[i], .msg_iovlen = 1 };
	}
	n = recvmmsg(fd, msgs, vlen, MSG_DONTWAIT | MSG_TRUNC, NULL);
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return 0;
		fprintf(stderr, PROG ": recvmmsg: %s\n", strerror(errno));
		return -1;
	}
	arrival = now_ns();
	for (i = 0; i < n; i++)
		if (take_datagram(rx, bufs[i], msgs[i].msg_len, arrival))
			(*got)++;
	return 0;
}

/* Ask for a 4 MB receive buffer: bursts released by a qdisc must not
 * overflow the socket and look like loss.  SO_RCVBUFFORCE passes
 * net.core.rmem_max when we may. */
static void set_rcvbuf(int fd)
{
	int want = RCVBUF_BYTES, have = 0;
	socklen_t len = sizeof(have);

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &want, sizeof(want)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &want, sizeof(want));
	/* The kernel reports twice what it was given. */
	if (!getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &have, &len) && have / 2 < want)
		fprintf(stderr, PROG ": warning: receive buffer is %d bytes, not %d (net.core.rmem_max)\n",
			have / 2, want);
}

/* Without --bind, listen on both families if the kernel has IPv6. */
static int open_recv_socket(const char *addr, uint16_t port)
{
	struct sockaddr_storage ss = { 0 };
	socklen_t len;
	int fd, off = 0;

	if (addr) {
		if (resolve(addr, port, &ss, &len) < 0)
			return -1;	/* checked while parsing arguments */
		fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = in6addr_any;
		sin6->sin6_port = htons(port);
		len = sizeof(*sin6);
		fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		if (fd >= 0)
			setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof(off));
		if (fd < 0 && errno == EAFNOSUPPORT) {
			struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

			memset(&ss, 0, sizeof(ss));
			sin->sin_family = AF_INET;
			sin->sin_addr.s_addr = htonl(INADDR_ANY);
			sin->sin_port = htons(port);
			len = sizeof(*sin);
			fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		}
	}
	if (fd < 0) {
		fprintf(stderr, PROG ": socket: %s\n", strerror(errno));
		return -1;
	}
	set_rcvbuf(fd);
	if (bind(fd, (struct sockaddr *)&ss, len) < 0) {
		fprintf(stderr, PROG ": bind %s port %u: %s\n", addr ? addr : "*",
			port, strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Create @path atomically, so a poller never sees it half written. */
static int signal_ready(const char *path)
{
	char tmp[4096];
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp)) {
		fprintf(stderr, PROG ": ready file name too long\n");
		return -1;
	}
	f = fopen(tmp, "w");
	if (!f || fputs("ready\n", f) == EOF || fclose(f) == EOF ||
	    rename(tmp, path) < 0) {
		fprintf(stderr, PROG ": writing %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static void print_stream(struct receiver *rx, unsigned int id, struct rstream *s)
{
	const struct recv_cfg *c = rx->cfg;
	uint64_t expect = s->packets ? (uint64_t)s->max_seq + 1 : 0;
	int64_t active = s->last_ns - s->first_ns;

	printf("stream=%u packets=%" PRIu64 " bytes=%" PRIu64 " lost=%" PRIu64
	       " bad=%" PRIu64, id, s->packets, s->bytes,
	       expect > s->packets ? expect - s->packets : 0, s->bad);
	print_samples("lat", &s->lat);
	printf(" bps_active=%.1f bps_total=%.1f",
	       active > 0 ? s->bytes * 8.0 * NSEC_PER_SEC / (double)active : 0.0,
	       rx->run_s > 0 ? s->bytes * 8.0 / rx->run_s : 0.0);
	if (c->frames) {
		printf(" frames=%" PRIu64 " frames_incomplete=%zu", s->frames_done,
		       s->pending.used);
		print_samples("frame", &s->frame_lat);
		printf(" frames_in_window=%" PRIu64, s->frames_in_window);
	}
	putchar('\n');
}

static void print_results(struct receiver *rx)
{
	unsigned int id;

	for (id = 0; id < 65536; id++)
		if (rx->streams[id])
			print_stream(rx, id, rx->streams[id]);
	printf("total packets=%" PRIu64 " bytes=%" PRIu64 " bad=%" PRIu64 "\n",
	       rx->packets, rx->bytes, rx->bad);
	fflush(stdout);
}

static void free_streams(struct receiver *rx)
{
	unsigned int id;

	for (id = 0; id < 65536; id++) {
		if (!rx->streams[id])
			continue;
		free(rx->streams[id]->lat.v);
		free(rx->streams[id]->frame_lat.v);
		ft_free(&rx->streams[id]->pending);
		free(rx->streams[id]);
	}
}

static int recv_loop(struct receiver *rx, struct pollfd *pfd, unsigned int nfd)
{
	const struct recv_cfg *c = rx->cfg;
	int64_t start = now_ns(), deadline = start + (int64_t)(c->duration_s * NSEC_PER_SEC);
	int64_t end;
	uint64_t got = 0;
	unsigned int i;
	int ret = 0;

	while (!stop_requested && (!c->count || got < c->count)) {
		int64_t left = deadline - now_ns();

		if (left <= 0)
			break;
		/* Round up, so we do not spin on a sub-millisecond rest. */
		if (poll(pfd, nfd, (int)((left + 999999) / 1000000)) < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, PROG ": poll: %s\n", strerror(errno));
			ret = -1;
			break;
		}
		for (i = 0; i < nfd && ret == 0; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			if (c->count && got >= c->count)
				break;
			ret = drain_socket(rx, pfd[i].fd,
					   c->count ? c->count - got : RECV_BATCH, &got);
		}
		if (ret)
			break;
	}
	/* Poll rounds up to a millisecond; do not count that past the deadline. */
	end = now_ns();
	if (end > deadline)
		end = deadline;
	rx->run_s = (double)(end - start) / NSEC_PER_SEC;
	return ret;
}

static int parse_window(const char *s, struct recv_cfg *c)
{
	char buf[64], *colon;

	if (strlen(s) >= sizeof(buf) || !(colon = strchr(strcpy(buf, s), ':')))
		return -1;
	*colon = '\0';
	if (!parse_double(buf, 0, 1e12, &c->win_lo_us) ||
	    !parse_double(colon + 1, 0, 1e12, &c->win_hi_us) ||
	    c->win_lo_us > c->win_hi_us)
		return -1;
	return 0;
}

enum {
	OPT_PORT = 256, OPT_PORTS, OPT_BIND, OPT_DURATION, OPT_COUNT, OPT_FRAMES,
	OPT_FRAME_WINDOW, OPT_LOG, OPT_READY, OPT_DST, OPT_SRC_PORT, OPT_STREAM,
	OPT_STREAMS, OPT_SAME_PORT, OPT_SIZE, OPT_RATE, OPT_INTERVAL, OPT_POISSON,
	OPT_SEED, OPT_BURST, OPT_PRIO, OPT_TOS, OPT_PACING, OPT_FRAME_BYTES,
	OPT_FRAME_INTERVAL, OPT_GSO, OPT_TXTIME_FRAME, OPT_TXTIME_OFFSET,
	OPT_NO_RETRY,
	OPT_RECONNECT, OPT_TXTIME_FIXED,
};

/* getopt_long's complaint, in our words; @argv is the subcommand's. */
static int option_error(int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		return usage_error("option '%s' needs a value", arg);
	return usage_error("unknown option '%s'", arg);
}

static int parse_recv_args(int argc, char **argv, struct recv_cfg *c)
{
	static const struct option opts[] = {
		{ "port",	  required_argument, NULL, OPT_PORT },
		{ "ports",	  required_argument, NULL, OPT_PORTS },
		{ "bind",	  required_argument, NULL, OPT_BIND },
		{ "duration",	  required_argument, NULL, OPT_DURATION },
		{ "count",	  required_argument, NULL, OPT_COUNT },
		{ "frames",	  no_argument,	     NULL, OPT_FRAMES },
		{ "frame-window", required_argument, NULL, OPT_FRAME_WINDOW },
		{ "log",	  required_argument, NULL, OPT_LOG },
		{ "ready",	  required_argument, NULL, OPT_READY },
		{ "help",	  no_argument,	     NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct sockaddr_storage ss;
	socklen_t len;
	uint64_t v;
	int o, idx;

	*c = (struct recv_cfg){ .nports = 1, .win_hi_us = INFINITY };
	while ((o = getopt_long(argc, argv, ":h", opts, &idx)) != -1) {
		const char *name = o >= OPT_PORT ? opts[idx].name : "";

		switch (o) {
		case OPT_PORT:
			if (!parse_u64(optarg, 10, 65535, &v) || !v)
				return bad_value(name, optarg, "a port 1..65535");
			c->port = (uint16_t)v;
			break;
		case OPT_PORTS:
			if (!parse_u64(optarg, 10, MAX_STREAMS, &v) || !v)
				return bad_value(name, optarg, "1..256");
			c->nports = (uint16_t)v;
			break;
		case OPT_BIND:
			if (resolve(optarg, 0, &ss, &len) < 0)
				return bad_value(name, optarg, "an IPv4 or IPv6 address");
			c->bind = optarg;
			break;
		case OPT_DURATION:
			if (!parse_double(optarg, 0, MAX_DURATION_S, &c->duration_s) ||
			    c->duration_s <= 0)
				return bad_value(name, optarg, "seconds, > 0 and <= 86400");
			break;
		case OPT_COUNT:
			if (!parse_u64(optarg, 10, UINT64_MAX, &c->count) || !c->count)
				return bad_value(name, optarg, "a count > 0");
			break;
		case OPT_FRAMES:
			c->frames = true;
			break;
		case OPT_FRAME_WINDOW:
			if (parse_window(optarg, c) < 0)
				return bad_value(name, optarg, "LO_US:HI_US with 0 <= LO <= HI");
			c->frames = true;
			break;
		case OPT_LOG:
			c->log = optarg;
			break;
		case OPT_READY:
			c->ready = optarg;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return option_error(o, argv);
		}
	}
	if (optind < argc)
		return usage_error("recv: unexpected argument '%s'", argv[optind]);
	if (!c->port)
		return usage_error("recv: %s is required", "--port");
	if (c->duration_s <= 0)
		return usage_error("recv: %s is required (every run must end by itself)",
				   "--duration");
	if ((unsigned int)c->port + c->nports - 1 > 65535)
		return usage_error("recv: %s go past port 65535", "--port + --ports");
	return 0;
}

static int cmd_recv(int argc, char **argv)
{
	static struct receiver rx;
	struct pollfd pfd[MAX_STREAMS];
	struct recv_cfg c;
	unsigned int i;
	int ret;

	ret = parse_recv_args(argc, argv, &c);
	if (ret)
		return ret;
	rx.cfg = &c;
	for (i = 0; i < c.nports; i++) {
		pfd[i].fd = open_recv_socket(c.bind, (uint16_t)(c.port + i));
		pfd[i].events = POLLIN;
		if (pfd[i].fd < 0)
			return 1;
	}
	if (c.log) {
		rx.log = fopen(c.log, "w");
		if (!rx.log) {
			fprintf(stderr, PROG ": %s: %s\n", c.log, strerror(errno));
			return 1;
		}
		/* Big buffer: a write per datagram would slow the receiver. */
		setvbuf(rx.log, NULL, _IOFBF, 1 << 20);
	}
	if (c.ready && signal_ready(c.ready) < 0)
		return 1;

	catch_signals();
	ret = recv_loop(&rx, pfd, c.nports);
	for (i = 0; i < c.nports; i++)
		close(pfd[i].fd);
	print_results(&rx);
	if (rx.log && fclose(rx.log) == EOF) {
		fprintf(stderr, PROG ": writing %s: %s\n", c.log, strerror(errno));
		ret = -1;
	}
	free_streams(&rx);
	if (ret < 0)
		return 1;
	if (!rx.packets) {
		fprintf(stderr, PROG ": no datagrams received\n");
		if (rx.bad)
			fprintf(stderr, PROG ": (%" PRIu64 " without a valid header)\n", rx.bad);
		return 1;
	}
	return 0;
}

/* ---- sender ------------------------------------------------------------------ */

enum pace { PACE_BLAST, PACE_FIXED, PACE_POISSON };

struct send_cfg {
	struct sockaddr_storage dst;
	socklen_t dst_len;
	uint16_t port, src_port, stream, nstreams;
	bool same_port;
	size_t size;
	enum pace pace;
	const char *pace_opt;	/* which option chose the pace, for errors */
	double gap_ns;		/* fixed gap, or Poisson mean, between rounds */
	uint64_t seed;
	bool have_seed;
	uint64_t count;		/* rounds, 0: until --duration */
	double duration_s;	/* 0: until --count */
	uint64_t burst;
	uint64_t prio[MAX_STREAMS], tos[MAX_STREAMS];
	unsigned int nprio, ntos;
	uint64_t pacing;
	bool have_pacing;
	size_t frame_bytes;	/* 0: plain datagrams */
	double frame_gap_us;
	bool gso;
	bool no_retry;		/* a refused datagram is an error, not waited out */
	uint64_t reconnect;	/* rounds between reconnections; 0: never */
	uint16_t parts;		/* of a frame */
	uint64_t txtime_latency_ns;	/* --txtime-frame; 0: off */
	bool have_txtime_offset;
	bool txtime_fixed;	/* --txtime-fixed: the offset is from the start */
	int64_t txtime_offset_ns;
};

struct sstream {
	int fd;
	uint16_t id;
	uint32_t seq, frame;
	struct edf_frame_clock txclock;	/* --txtime-frame deadlines */
};

struct sender {
	const struct send_cfg *cfg;
	struct sstream st[MAX_STREAMS];
	uint8_t *buf;
	uint64_t sent, bytes, blocked, errors;
	uint64_t dropped;	/* datagrams the qdisc dropped (ENOBUFS) */
	uint64_t reconnects;	/* of each stream's socket (--reconnect) */
	int64_t deadline;	/* 0: none */
	int64_t start;
	int64_t last_progress;
	int64_t last_retry;	/* of the refused sends since the last progress */
	bool gso_worked;
	int last_errno;		/* reported once per kind, not per datagram */
};

enum xmit_res { XMIT_SENT, XMIT_ERROR, XMIT_STOP, XMIT_NO_GSO };

/* One sendmsg, with UDP_SEGMENT if @gso_size, SCM_TXTIME if @txtime. */
static int send_buf(int fd, const uint8_t *buf, size_t len, uint16_t gso_size,
		    uint64_t txtime)
{
	union {
		char buf[CMSG_SPACE(sizeof(uint16_t)) + EDF_TXTIME_CMSG_SPACE];
		struct cmsghdr align;
	} ctrl;
	struct iovec iov = { (void *)buf, len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	msg.msg_control = ctrl.buf;
	if (gso_size) {
		memset(&ctrl, 0, sizeof(ctrl));
		msg.msg_controllen = CMSG_SPACE(sizeof(uint16_t));
		cm = CMSG_FIRSTHDR(&msg);
		cm->cmsg_level = SOL_UDP;
		cm->cmsg_type = UDP_SEGMENT;
		cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
		memcpy(CMSG_DATA(cm), &gso_size, sizeof(gso_size));
	}
	if (txtime)
		edf_txtime_cmsg_append(&msg, txtime);
	if (!msg.msg_controllen)
		msg.msg_control = NULL;
	return sendmsg(fd, &msg, MSG_DONTWAIT) < 0 ? -1 : 0;
}

/* Errors with which a kernel turns down UDP_SEGMENT itself (old kernel,
 * device without checksum offload, xfrm) rather than this one datagram. */
static bool gso_refused(int err)
{
	return err == ENOPROTOOPT || err == EOPNOTSUPP || err == EIO || err == EINVAL;
}

/*
 * --txtime-offset: now + offset; --txtime-fixed: the start + offset.  0
 * would mean no txtime, so at least 1.
 */
static uint64_t offset_txtime(const struct sender *sn, int64_t now)
{
	const struct send_cfg *c = sn->cfg;
	int64_t t = (c->txtime_fixed ? sn->start : now) + c->txtime_offset_ns;

	return t > 0 ? (uint64_t)t : 1;
}

/*
 * Send the first @len bytes of sn->buf on @s.  A full qdisc (ENOBUFS, seen
 * thanks to IP_RECVERR) or socket buffer (EAGAIN) is waited out; other
 * errors lose this datagram and are counted.  @restamp rewrites send_ns
 * before each try, so it is the time of the sendmsg call that succeeded.
 * @txtime is the send's SO_TXTIME (0: none); --txtime-offset sets it anew
 * at each try, from the same clock reading as send_ns.
 */
static enum xmit_res xmit(struct sender *sn, struct sstream *s, size_t len,
			  uint16_t gso_size, bool restamp, uint64_t txtime)
{
	int64_t now;

	for (;;) {
		now = now_ns();
		if (restamp)
			put64(sn->buf + OFF_SEND_NS, (uint64_t)now);
		if (sn->cfg->have_txtime_offset)
			txtime = offset_txtime(sn, now);
		if (!send_buf(s->fd, sn->buf, len, gso_size, txtime)) {
			sn->last_progress = now_ns();
			sn->last_retry = 0;
			if (gso_size)
				sn->gso_worked = true;
			return XMIT_SENT;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != ENOBUFS)
			break;
		sn->blocked++;
		/*
		 * ENOBUFS: the qdisc took the datagram and dropped it.  A GSO
		 * send is refused only if every one of its segments was
		 * (a qdisc that queues some returns success).
		 */
		if (errno == ENOBUFS)
			sn->dropped += gso_size ? (len + gso_size - 1) / gso_size : 1;
		if (sn->cfg->no_retry)
			break;
		now = now_ns();
		if (stop_requested || (sn->deadline && now >= sn->deadline))
			return XMIT_STOP;
		/*
		 * Time this process did not run is no stall of the qdisc's:
		 * a loaded host may leave the VM unscheduled for seconds while
		 * its clock runs on.  A retry that came a second or more
		 * after the last one moves the mark by that much.
		 */
		if (sn->last_retry && now - sn->last_retry > NSEC_PER_SEC)
			sn->last_progress += now - sn->last_retry;
		sn->last_retry = now;
		if (now - sn->last_progress > STALL_NS) {
			fprintf(stderr, PROG ": every send refused for %lld s (%s), giving up\n",
				STALL_NS / NSEC_PER_SEC, strerror(errno));
			return XMIT_STOP;
		}
		sleep_until(now + BLOCKED_SLEEP_NS);
	}
	if (gso_size && !sn->gso_worked && gso_refused(errno)) {
		fprintf(stderr, PROG ": UDP_SEGMENT not supported\n"
			PROG ": sendmsg with UDP_SEGMENT: %s\n", strerror(errno));
		return XMIT_NO_GSO;
	}
	if (errno != sn->last_errno)
		fprintf(stderr, PROG ": send on stream %u: %s (counted in errors=)\n",
			s->id, strerror(errno));
	sn->last_errno = errno;
	sn->errors++;
	return XMIT_ERROR;
}

/* Write the header of one part at @off in sn->buf. */
static void put_part(struct sender *sn, size_t off, const struct sstream *s,
		     uint32_t seq, uint16_t part, uint16_t flags, uint64_t send_ns)
{
	struct ul_hdr h = {
		.magic = UL_MAGIC,
		.stream = s->id,
		.flags = flags,
		.seq = seq,
		.frame = s->frame,
		.part = part,
		.parts = flags & UL_F_FRAME ? sn->cfg->parts : 1,
		.send_ns = send_ns,
	};

	hdr_put(sn->buf + off, &h);
}

static size_t part_len(const struct send_cfg *c, unsigned int part)
{
	if (part + 1 < c->parts)
		return c->size;
	return c->frame_bytes - (size_t)(c->parts - 1) * c->size;
}

/* A plain datagram is a frame of one part. */
static enum xmit_res send_datagram(struct sender *sn, struct sstream *s)
{
	enum xmit_res r;

	put_part(sn, 0, s, s->seq, 0, 0, 0);
	r = xmit(sn, s, sn->cfg->size, 0, true, 0);
	if (r == XMIT_SENT) {
		s->seq++;
		s->frame++;
		sn->sent++;
		sn->bytes += sn->cfg->size;
	}
	return r;
}

/* Parts one sendmsg each; one stamp for the frame, so its latency
 * includes the time spent sending its earlier parts.  --txtime-frame
 * gives each part its deadline in the frame as the qdisc would give a
 * GSO frame's segments, "now" being the time the part is sent. */
static enum xmit_res send_frame_parts(struct sender *sn, struct sstream *s)
{
	const struct send_cfg *c = sn->cfg;
	uint64_t stamp = (uint64_t)now_ns(), txtime = 0;
	enum xmit_res r = XMIT_SENT;
	unsigned int p;
	size_t len;

	for (p = 0; p < c->parts; p++) {
		len = part_len(c, p);
		put_part(sn, 0, s, s->seq, (uint16_t)p, UL_F_FRAME, stamp);
		if (c->txtime_latency_ns)
			txtime = edf_frame_next_deadline(&s->txclock, (uint64_t)now_ns(),
							 c->txtime_latency_ns, c->parts);
		r = xmit(sn, s, len, 0, false, txtime);
		if (r == XMIT_STOP || r == XMIT_NO_GSO)
			break;
		if (r == XMIT_SENT) {
			s->seq++;
			sn->sent++;
			sn->bytes += len;
		}
	}
	s->frame++;
	return r;
}

/* The whole frame in one sendmsg; the kernel cuts it every --size bytes,
 * so each slice of the buffer carries its own header. */
static enum xmit_res send_frame_gso(struct sender *sn, struct sstream *s)
{
	const struct send_cfg *c = sn->cfg;
	uint64_t stamp = (uint64_t)now_ns();
	enum xmit_res r;
	unsigned int p;

	for (p = 0; p < c->parts; p++)
		put_part(sn, p * c->size, s, s->seq + p, (uint16_t)p,
			 UL_F_FRAME | UL_F_GSO, stamp);
	r = xmit(sn, s, c->frame_bytes, (uint16_t)c->size, false, 0);
	if (r == XMIT_SENT) {
		s->seq += c->parts;
		sn->sent += c->parts;
		sn->bytes += c->frame_bytes;
	}
	s->frame++;
	return r;
}

static enum xmit_res send_item(struct sender *sn, struct sstream *s)
{
	if (!sn->cfg->frame_bytes)
		return send_datagram(sn, s);
	if (sn->cfg->gso)
		return send_frame_gso(sn, s);
	return send_frame_parts(sn, s);
}

static int set_opt(int fd, int level, int name, const void *val, socklen_t len,
		   const char *what)
{
	if (setsockopt(fd, level, name, val, len) < 0) {
		fprintf(stderr, PROG ": setsockopt %s: %s\n", what, strerror(errno));
		return -1;
	}
	return 0;
}

/* Stream @i's socket, connected so that send errors reach us and the
 * path MTU can be read. */
static int open_send_socket(const struct send_cfg *c, unsigned int i)
{
	bool v6 = c->dst.ss_family == AF_INET6;
	struct sockaddr_storage ss;
	int fd, one = 1, val;

	fd = socket(c->dst.ss_family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		fprintf(stderr, PROG ": socket: %s\n", strerror(errno));
		return -1;
	}
	/* Without it UDP hides ENOBUFS from a dropping qdisc (udp_send_skb). */
	if (set_opt(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_RECVERR : IP_RECVERR,
		    &one, sizeof(one), "IP_RECVERR") < 0)
		goto fail;
	/* TOS before priority: setting IP_TOS also rewrites sk_priority. */
	if (c->ntos) {
		val = (int)c->tos[c->ntos == 1 ? 0 : i];
		if (set_opt(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_TCLASS : IP_TOS,
			    &val, sizeof(val), v6 ? "IPV6_TCLASS" : "IP_TOS") < 0)
			goto fail;
	}
	if (c->nprio) {
		val = (int)(uint32_t)c->prio[c->nprio == 1 ? 0 : i];
		if (set_opt(fd, SOL_SOCKET, SO_PRIORITY, &val, sizeof(val), "SO_PRIORITY") < 0)
			goto fail;
	}
	if ((c->txtime_latency_ns || c->have_txtime_offset) && edf_txtime_enable(fd) < 0) {
		fprintf(stderr, PROG ": setsockopt SO_TXTIME: %s\n", strerror(errno));
		goto fail;
	}
	/* 64-bit value: Linux reads all of it when given 8 bytes. */
	if (c->have_pacing &&
	    set_opt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &c->pacing, sizeof(c->pacing),
		    "SO_MAX_PACING_RATE") < 0)
		goto fail;
	if (c->src_port) {
		memset(&ss, 0, sizeof(ss));
		ss.ss_family = c->dst.ss_family;
		set_port(&ss, (uint16_t)(c->src_port + i));
		if (bind(fd, (struct sockaddr *)&ss, c->dst_len) < 0) {
			fprintf(stderr, PROG ": bind source port %u: %s\n",
				c->src_port + i, strerror(errno));
			goto fail;
		}
	}
	ss = c->dst;
	set_port(&ss, (uint16_t)(c->port + (c->same_port ? 0 : i)));
	if (connect(fd, (struct sockaddr *)&ss, c->dst_len) < 0) {
		fprintf(stderr, PROG ": connect: %s\n", strerror(errno));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

/*
 * Dissolve @fd's connection (AF_UNSPEC) and connect it to stream @i's
 * destination again.  Unless bound, the socket gives up its port and
 * takes a new one: the kernel sees a new connection on the same socket.
 */
static int reconnect_send_socket(const struct send_cfg *c, unsigned int i, int fd)
{
	struct sockaddr_storage ss = { .ss_family = AF_UNSPEC };

	if (connect(fd, (struct sockaddr *)&ss, sizeof(ss)) < 0) {
		fprintf(stderr, PROG ": disconnect: %s\n", strerror(errno));
		return -1;
	}
	ss = c->dst;
	set_port(&ss, (uint16_t)(c->port + (c->same_port ? 0 : i)));
	if (connect(fd, (struct sockaddr *)&ss, c->dst_len) < 0) {
		fprintf(stderr, PROG ": connect again: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Check before sending that the kernel takes UDP_SEGMENT (exit 4 if not)
 * and that a segment fits the path MTU: otherwise every send would fail
 * with EINVAL, which we could not tell from a missing feature.
 */
static int check_gso(const struct send_cfg *c, int fd)
{
	bool v6 = c->dst.ss_family == AF_INET6;
	int val = (int)c->size, mtu = 0;
	socklen_t len = sizeof(mtu);
	size_t hdrs = (v6 ? 40 : 20) + 8;

	if (setsockopt(fd, SOL_UDP, UDP_SEGMENT, &val, sizeof(val)) < 0) {
		fprintf(stderr, PROG ": UDP_SEGMENT not supported\n"
			PROG ": setsockopt UDP_SEGMENT: %s\n", strerror(errno));
		return EXIT_NO_GSO;
	}
	val = 0;	/* back to per-send control messages only */
	setsockopt(fd, SOL_UDP, UDP_SEGMENT, &val, sizeof(val));
	if (!getsockopt(fd, v6 ? IPPROTO_IPV6 : IPPROTO_IP, v6 ? IPV6_MTU : IP_MTU,
			&mtu, &len) && mtu > 0 && c->size + hdrs > (size_t)mtu) {
		fprintf(stderr, PROG ": --gso: --size %zu does not fit the path MTU %d (at most %zu)\n",
			c->size, mtu, (size_t)mtu - hdrs);
		return EXIT_USAGE;
	}
	return 0;
}

/* Start time of round @round (one item per stream), for paced modes. */
static int64_t round_time(const struct send_cfg *c, uint64_t round, int64_t start,
			  int64_t *poisson_t, uint64_t *rng)
{
	if (c->pace == PACE_FIXED)
		return start + (int64_t)llround((double)round * c->gap_ns);
	if (round)
		*poisson_t += (int64_t)llround(-c->gap_ns * log(rng_unit(rng)));
	return *poisson_t;
}

static int send_loop(struct sender *sn, int64_t start)
{
	const struct send_cfg *c = sn->cfg;
	int64_t poisson_t = start;
	uint64_t rng = c->have_seed ? c->seed : (uint64_t)start ^ (uint64_t)getpid() << 32;
	uint64_t round;
	unsigned int i;
	int64_t t;

	if (!rng)
		rng = 1;	/* xorshift's one fixed point */
	for (round = 0; !c->count || round < c->count; round++) {
		if (stop_requested)
			break;
		if (c->pace != PACE_BLAST) {
			t = round_time(c, round, start, &poisson_t, &rng);
			if (sn->deadline && t >= sn->deadline)
				break;
			sleep_until(t);
		} else if (sn->deadline && now_ns() >= sn->deadline) {
			break;
		}
		if (stop_requested)
			break;
		if (c->reconnect && round && !(round % c->reconnect)) {
			for (i = 0; i < c->nstreams; i++)
				if (reconnect_send_socket(c, i, sn->st[i].fd) < 0)
					return 1;
			sn->reconnects++;
		}
		for (i = 0; i < c->nstreams; i++) {
			switch (send_item(sn, &sn->st[i])) {
			case XMIT_NO_GSO:
				return EXIT_NO_GSO;
			case XMIT_STOP:
				return 0;
			default:
				break;
			}
		}
	}
	return 0;
}

/* Settings that only make sense together, checked once all are known. */
static int check_send_args(struct send_cfg *c, bool have_dst)
{
	size_t max = c->dst.ss_family == AF_INET6 ? MAX_PAYLOAD6 : MAX_PAYLOAD4;
	size_t last;

	if (!have_dst)
		return usage_error("send: %s is required", "--dst");
	if (!c->port)
		return usage_error("send: %s is required", "--port");
	if (c->burst) {
		if (c->count)
			return usage_error("send: %s", "--burst and --count exclude each other");
		if (c->pace_opt)
			return usage_error("send: --burst sends back to back; drop %s", c->pace_opt);
		if (c->frame_bytes)
			return usage_error("send: %s", "--burst does not combine with frames");
		c->count = c->burst;
	}
	if (!c->count && c->duration_s <= 0)
		return usage_error("send: %s", "give --count, --duration or --burst, so the run ends by itself");
	if (c->size > max) {
		fprintf(stderr, PROG ": --size %zu is more than a UDP datagram holds (%zu)\n",
			c->size, max);
		return EXIT_USAGE;
	}
	if (c->nprio > 1 && c->nprio != c->nstreams)
		return usage_error("send: give --prio once, or once per stream (%s)", "--streams");
	if (c->ntos > 1 && c->ntos != c->nstreams)
		return usage_error("send: give --tos once, or once per stream (%s)", "--streams");
	if ((unsigned int)c->stream + c->nstreams - 1 > 65535)
		return usage_error("send: %s go past stream id 65535", "--stream + --streams");
	if (!c->same_port && (unsigned int)c->port + c->nstreams - 1 > 65535)
		return usage_error("send: %s go past port 65535", "--port + --streams");
	if (c->src_port && (unsigned int)c->src_port + c->nstreams - 1 > 65535)
		return usage_error("send: %s go past port 65535", "--src-port + --streams");
	if (c->txtime_latency_ns && c->have_txtime_offset)
		return usage_error("send: %s", "--txtime-frame, --txtime-offset and --txtime-fixed exclude each other");
	if (!c->frame_bytes) {
		if (c->frame_gap_us > 0)
			return usage_error("send: %s", "--frame-interval needs --frame-bytes");
		if (c->gso)
			return usage_error("send: %s", "--gso needs --frame-bytes");
		if (c->txtime_latency_ns)
			return usage_error("send: %s", "--txtime-frame needs --frame-bytes");
		return 0;
	}
	if (c->gso && c->txtime_latency_ns)
		return usage_error("send: %s", "--txtime-frame is for frames sent in parts; "
				   "the qdisc gives a --gso frame its deadlines itself");

	if (c->frame_gap_us <= 0)
		return usage_error("send: %s", "--frame-bytes needs --frame-interval");
	if (c->pace_opt)
		return usage_error("send: frames are paced by --frame-interval; drop %s",
				   c->pace_opt);
	if ((c->frame_bytes + c->size - 1) / c->size > 65535)
		return usage_error("send: %s", "a frame may have at most 65535 parts");
	c->parts = (uint16_t)((c->frame_bytes + c->size - 1) / c->size);
	last = c->frame_bytes - (size_t)(c->parts - 1) * c->size;
	if (last < UL_HDR_LEN) {
		fprintf(stderr, PROG ": --frame-bytes %zu in parts of %zu leaves a last part of %zu bytes, less than the %d-byte header\n",
			c->frame_bytes, c->size, last, UL_HDR_LEN);
		return EXIT_USAGE;
	}
	if (c->gso && c->frame_bytes > max) {
		fprintf(stderr, PROG ": --gso: a frame is one UDP send, at most %zu bytes\n", max);
		return EXIT_USAGE;
	}
	if (c->gso && c->parts > GSO_MAX_SEGS) {
		fprintf(stderr, PROG ": --gso: %u parts, the kernel takes at most %d segments per send\n",
			c->parts, GSO_MAX_SEGS);
		return EXIT_USAGE;
	}
	c->pace = PACE_FIXED;
	c->gap_ns = c->frame_gap_us * 1000.0;
	return 0;
}

/* Pick the pace; --rate, --interval and --poisson exclude each other. */
static int set_pace(struct send_cfg *c, const char *opt, enum pace pace, double gap_ns)
{
	if (c->pace_opt) {
		fprintf(stderr, PROG ": --%s and %s exclude each other\n", opt, c->pace_opt);
		return EXIT_USAGE;
	}
	c->pace_opt = opt[0] == 'r' ? "--rate" : opt[0] == 'i' ? "--interval" : "--poisson";
	c->pace = pace;
	c->gap_ns = gap_ns;
	return 0;
}

static int parse_send_args(int argc, char **argv, struct send_cfg *c)
{
	static const struct option opts[] = {
		{ "dst",	     required_argument, NULL, OPT_DST },
		{ "port",	     required_argument, NULL, OPT_PORT },
		{ "src-port",	     required_argument, NULL, OPT_SRC_PORT },
		{ "stream",	     required_argument, NULL, OPT_STREAM },
		{ "streams",	     required_argument, NULL, OPT_STREAMS },
		{ "same-port",	     no_argument,	NULL, OPT_SAME_PORT },
		{ "size",	     required_argument, NULL, OPT_SIZE },
		{ "rate",	     required_argument, NULL, OPT_RATE },
		{ "interval",	     required_argument, NULL, OPT_INTERVAL },
		{ "poisson",	     required_argument, NULL, OPT_POISSON },
		{ "seed",	     required_argument, NULL, OPT_SEED },
		{ "count",	     required_argument, NULL, OPT_COUNT },
		{ "duration",	     required_argument, NULL, OPT_DURATION },
		{ "burst",	     required_argument, NULL, OPT_BURST },
		{ "prio",	     required_argument, NULL, OPT_PRIO },
		{ "tos",	     required_argument, NULL, OPT_TOS },
		{ "max-pacing-rate", required_argument, NULL, OPT_PACING },
		{ "frame-bytes",     required_argument, NULL, OPT_FRAME_BYTES },
		{ "frame-interval",  required_argument, NULL, OPT_FRAME_INTERVAL },
		{ "gso",	     no_argument,	NULL, OPT_GSO },
		{ "no-retry",	     no_argument,	NULL, OPT_NO_RETRY },
		{ "reconnect",	     required_argument, NULL, OPT_RECONNECT },
		{ "txtime-frame",    required_argument, NULL, OPT_TXTIME_FRAME },
		{ "txtime-offset",   required_argument, NULL, OPT_TXTIME_OFFSET },
		{ "txtime-fixed",    required_argument, NULL, OPT_TXTIME_FIXED },
		{ "help",	     no_argument,	NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_dst = false;
	uint64_t v;
	double d;
	int o, idx, ret;

	*c = (struct send_cfg){ .size = 64, .nstreams = 1 };
	while ((o = getopt_long(argc, argv, ":h", opts, &idx)) != -1) {
		const char *name = o >= OPT_PORT ? opts[idx].name : "";

		switch (o) {
		case OPT_DST:
			if (resolve(optarg, 0, &c->dst, &c->dst_len) < 0)
				return bad_value(name, optarg, "an IPv4 or IPv6 address");
			have_dst = true;
			break;
		case OPT_PORT:
		case OPT_SRC_PORT:
			if (!parse_u64(optarg, 10, 65535, &v) || !v)
				return bad_value(name, optarg, "a port 1..65535");
			*(o == OPT_PORT ? &c->port : &c->src_port) = (uint16_t)v;
			break;
		case OPT_STREAM:
			if (!parse_u64(optarg, 10, 65535, &v))
				return bad_value(name, optarg, "a stream id 0..65535");
			c->stream = (uint16_t)v;
			break;
		case OPT_STREAMS:
			if (!parse_u64(optarg, 10, MAX_STREAMS, &v) || !v)
				return bad_value(name, optarg, "1..256");
			c->nstreams = (uint16_t)v;
			break;
		case OPT_SAME_PORT:
			c->same_port = true;
			break;
		case OPT_SIZE:
			if (!parse_u64(optarg, 10, MAX_PAYLOAD6, &v) || v < UL_HDR_LEN)
				return bad_value(name, optarg, "bytes, 28 (the header) .. 65527");
			c->size = (size_t)v;
			break;
		case OPT_RATE:
			if (!parse_double(optarg, 0, 1e9, &d) || d <= 0)
				return bad_value(name, optarg, "packets per second, > 0");
			if ((ret = set_pace(c, name, PACE_FIXED, 1e9 / d)))
				return ret;
			break;
		case OPT_INTERVAL:
		case OPT_POISSON:
			if (!parse_double(optarg, 0, MAX_DURATION_S * 1e6, &d) || d <= 0)
				return bad_value(name, optarg, "microseconds, > 0");
			if ((ret = set_pace(c, name, o == OPT_INTERVAL ? PACE_FIXED : PACE_POISSON,
					    d * 1000.0)))
				return ret;
			break;
		case OPT_SEED:
			if (!parse_u64(optarg, 0, UINT64_MAX, &c->seed))
				return bad_value(name, optarg, "an unsigned integer");
			c->have_seed = true;
			break;
		case OPT_COUNT:
		case OPT_BURST:
			if (!parse_u64(optarg, 10, UINT64_MAX, &v) || !v)
				return bad_value(name, optarg, "a count > 0");
			*(o == OPT_COUNT ? &c->count : &c->burst) = v;
			break;
		case OPT_DURATION:
			if (!parse_double(optarg, 0, MAX_DURATION_S, &c->duration_s) ||
			    c->duration_s <= 0)
				return bad_value(name, optarg, "seconds, > 0 and <= 86400");
			break;
		case OPT_PRIO:
			if (c->nprio == MAX_STREAMS)
				return usage_error("send: too many %s values", "--prio");
			if (!parse_prio(optarg, &c->prio[c->nprio]))
				return bad_value(name, optarg, "a 32-bit number (0x hex allowed) or MAJ:MIN");
			c->nprio++;
			break;
		case OPT_TOS:
			if (c->ntos == MAX_STREAMS)
				return usage_error("send: too many %s values", "--tos");
			if (!parse_u64(optarg, 0, 255, &c->tos[c->ntos]))
				return bad_value(name, optarg, "0..255 (0x hex allowed)");
			c->ntos++;
			break;
		case OPT_PACING:
			if (!parse_u64(optarg, 10, UINT64_MAX, &c->pacing) || !c->pacing)
				return bad_value(name, optarg, "bytes per second, > 0");
			c->have_pacing = true;
			break;
		case OPT_FRAME_BYTES:
			if (!parse_u64(optarg, 10, 64ULL << 20, &v) || v < UL_HDR_LEN)
				return bad_value(name, optarg, "bytes, 28 .. 64 MiB");
			c->frame_bytes = (size_t)v;
			break;
		case OPT_FRAME_INTERVAL:
			if (!parse_double(optarg, 0, MAX_DURATION_S * 1e6, &c->frame_gap_us) ||
			    c->frame_gap_us <= 0)
				return bad_value(name, optarg, "microseconds, > 0");
			break;
		case OPT_NO_RETRY:
			c->no_retry = true;
			break;
		case OPT_RECONNECT:
			if (!parse_u64(optarg, 10, UINT64_MAX, &v) || !v)
				return bad_value(name, optarg, "rounds, > 0");
			c->reconnect = v;
			break;
		case OPT_GSO:
			c->gso = true;
			break;
		case OPT_TXTIME_FRAME:
			if (!parse_double(optarg, 0, MAX_TXTIME_US, &d) || llround(d * 1000.0) < 1)
				return bad_value(name, optarg, "microseconds, > 0 and <= 86400 s");
			c->txtime_latency_ns = (uint64_t)llround(d * 1000.0);
			break;
		case OPT_TXTIME_OFFSET:
		case OPT_TXTIME_FIXED:
			if (c->have_txtime_offset)
				return usage_error("send: %s", "give one of --txtime-offset and --txtime-fixed, once");
			if (!parse_double(optarg, -MAX_TXTIME_US, MAX_TXTIME_US, &d))
				return bad_value(name, optarg, "microseconds, at most 86400 s either way");
			c->txtime_offset_ns = llround(d * 1000.0);
			c->have_txtime_offset = true;
			c->txtime_fixed = o == OPT_TXTIME_FIXED;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			return option_error(o, argv);
		}
	}
	if (optind < argc)
		return usage_error("send: unexpected argument '%s'", argv[optind]);
	return check_send_args(c, have_dst);
}

static int cmd_send(int argc, char **argv)
{
	static struct sender sn;
	struct send_cfg c;
	int64_t start, end;
	unsigned int i;
	int ret;

	ret = parse_send_args(argc, argv, &c);
	if (ret)
		return ret;
	sn.cfg = &c;
	for (i = 0; i < c.nstreams; i++) {
		sn.st[i] = (struct sstream){ .id = (uint16_t)(c.stream + i) };
		sn.st[i].fd = open_send_socket(&c, i);
		if (sn.st[i].fd < 0)
			return 1;
	}
	if (c.gso) {
		ret = check_gso(&c, sn.st[0].fd);
		if (ret)
			return ret;
	}
	/* Zeroed: bytes after each header are the (zero) payload. */
	sn.buf = xcalloc(1, c.gso ? c.frame_bytes : c.size);

	catch_signals();
	start = now_ns();
	sn.start = start;
	sn.last_progress = start;
	if (c.duration_s > 0)
		sn.deadline = start + (int64_t)(c.duration_s * NSEC_PER_SEC);
	ret = send_loop(&sn, start);
	end = now_ns();
	for (i = 0; i < c.nstreams; i++)
		close(sn.st[i].fd);
	free(sn.buf);
	if (ret)
		return ret;

	printf("sent=%" PRIu64 " bytes=%" PRIu64 " blocked=%" PRIu64 " dropped=%" PRIu64
	       " errors=%" PRIu64 " duration_s=%.3f", sn.sent, sn.bytes, sn.blocked,
	       sn.dropped, sn.errors,
	       (double)(end - start) / NSEC_PER_SEC);
	if (c.reconnect)
		printf(" reconnects=%" PRIu64, sn.reconnects);
	printf("\n");
	fflush(stdout);
	if (!sn.sent) {
		fprintf(stderr, PROG ": nothing sent\n");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	opterr = 0;	/* we word getopt's complaints ourselves */
	if (argc < 2)
		return usage_error("%s", "missing subcommand: recv or send");
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "recv"))
		return cmd_recv(argc - 1, argv + 1);
	if (!strcmp(argv[1], "send"))
		return cmd_send(argc - 1, argv + 1);
	return usage_error("unknown subcommand '%s' (want recv or send)", argv[1]);
}
