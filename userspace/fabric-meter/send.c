// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-meter send: drives the classes, each flow on a socket of its own
 * with its own markings, once every destination answered a HELLO, and
 * ends each flow with an end mark the receiver answers.  With --rtt it
 * reads the reflector's echoes and measures round trips itself.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h"
#include "fabric-meter.h"

/* The end marks queue behind the class's data: let short queues drain first. */
#define FIN_GAP_NS		(50 * 1000000LL)

struct send_cfg {
	struct sockaddr_storage dst;
	socklen_t dst_len;
	const char *dst_name;
	uint16_t port;
	double duration_s, wait_s;
	uint64_t seed;
	bool have_seed, rtt, quiet;
	int nclasses;		/* flows of all classes: one socket each */
	int nspecs;		/* --class options */
	int class_base;		/* --class-base: id of the first class */
	struct sclass *cls[MAX_FLOWS];
	struct output_cfg out;
};

static int open_class_socket(struct send_cfg *c, struct sclass *s)
{
	int fd, tos, one = 1;
	struct sockaddr_storage any;

	if (!s->have_dst) {
		s->dst = c->dst;
		s->dst_len = c->dst_len;
	}
	any = (struct sockaddr_storage){ .ss_family = s->dst.ss_family };
	fd = socket(s->dst.ss_family, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		fprintf(stderr, PROG ": socket: %s\n", strerror(errno));
		return -1;
	}
	if (s->have_prio &&
	    setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &s->prio, sizeof(s->prio))) {
		fprintf(stderr, PROG ": class %s: SO_PRIORITY %#x: %s%s\n", s->name, s->prio,
			strerror(errno), errno == EPERM ? " (above 6 needs CAP_NET_ADMIN)" : "");
		goto fail;
	}
	if (s->dscp >= 0) {
		tos = s->dscp << 2;
		if (s->dst.ss_family == AF_INET6 ?
		    setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos)) :
		    setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos))) {
			fprintf(stderr, PROG ": class %s: DSCP %d: %s\n", s->name, s->dscp,
				strerror(errno));
			goto fail;
		}
	}
	if (s->pacing &&
	    setsockopt(fd, SOL_SOCKET, SO_MAX_PACING_RATE, &s->pacing, sizeof(s->pacing))) {
		fprintf(stderr, PROG ": class %s: SO_MAX_PACING_RATE: %s\n", s->name, strerror(errno));
		goto fail;
	}
	if (s->txtime_ns && edf_txtime_enable(fd)) {
		fprintf(stderr, PROG ": class %s: SO_TXTIME: %s\n", s->name, strerror(errno));
		goto fail;
	}
	if (c->rtt) {
		int buf = RCVBUF_BYTES;

		if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)))
			setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	}
	/* bound, so echoes find us and ICMP errors are not reported per send */
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&any, s->dst_len)) {
		fprintf(stderr, PROG ": bind: %s\n", strerror(errno));
		goto fail;
	}
	set_port(&s->dst, s->port ? s->port : c->port);
	s->fd = fd;
	return 0;
fail:
	close(fd);
	return -1;
}

/*
 * Is anyone there?  HELLO on a connected socket every 100 ms until an
 * ACK, for --wait seconds.  A connected socket sees ICMP errors: a port
 * nobody listens on is refused at once.
 */
static int probe_peer(struct send_cfg *c, const struct sockaddr_storage *to, socklen_t len)
{
	struct sockaddr_storage dst = *to;
	uint16_t port = get_port(to);
	uint8_t b[FM_HDR_LEN + 4] = { 0 }, in[FM_HDR_LEN + 4];
	struct fm_hdr h = { .type = FM_T_HELLO };
	int64_t end = now_ns() + (int64_t)(c->wait_s * NSEC_PER_SEC);
	struct pollfd pfd;
	int fd, err = 0;
	ssize_t n;

	fd = socket(dst.ss_family, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&dst, len)) {
		err = errno;
		goto out;
	}
	hdr_put(b, &h);
	b[FM_HDR_LEN] = clock_code();
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN };
	while (!stop_requested && now_ns() < end) {
		if (send(fd, b, sizeof(b), 0) < 0 && errno != ECONNREFUSED) {
			err = errno;
			if (err != ENOBUFS && err != EAGAIN)
				goto out;
		}
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = recv(fd, in, sizeof(in), 0);
		if (n < 0) {
			err = errno;	/* ECONNREFUSED: keep trying until --wait */
			continue;
		}
		if (!hdr_get(in, n, &h) || h.type != FM_T_ACK)
			continue;
		close(fd);
		if (n > FM_HDR_LEN && in[FM_HDR_LEN]) {
			fprintf(stderr, PROG ": the peer at %s port %u measures on another clock; give both ends the same --clock\n",
				addr_str(&dst), port);
			return EXIT_PEER;
		}
		return 0;
	}
out:
	if (fd >= 0)
		close(fd);
	if (stop_requested)
		return 1;
	fprintf(stderr, PROG ": no answer from %s port %u within %.1f s%s%s%s\n",
		addr_str(&dst), port, c->wait_s, err ? " (" : "",
		err ? strerror(err) : "", err ? ")" : "");
	fprintf(stderr, PROG ": is '" PROG " %s --port %u' running there and the path up?\n",
		c->rtt ? "reflect" : "recv", port);
	return EXIT_PEER;
}

static bool same_dst(const struct sclass *a, const struct sclass *b)
{
	return a->dst_len == b->dst_len && !memcmp(&a->dst, &b->dst, a->dst_len);
}

static uint8_t send_buf[MAX_SEG];

static int send_part(struct sclass *s, const struct pending *p, uint16_t parts,
		     int64_t *now)
{
	union {
		char buf[EDF_TXTIME_CMSG_SPACE];
		struct cmsghdr align;
	} ctl;
	uint32_t len = s->seg;
	struct fm_hdr h;
	struct iovec iov;
	struct msghdr m = { 0 };
	uint64_t d;

	if (s->part == parts - 1)
		len = p->size - (uint32_t)(parts - 1) * s->seg;
	if (len < FM_HDR_LEN)
		len = FM_HDR_LEN;
	*now = now_ns();
	h = (struct fm_hdr){
		.type = FM_T_DATA, .cls = s->id, .flow = s->flow, .seq = s->seq, .msg = p->msg,
		.part = s->part, .parts = parts, .size = p->size,
		.gen_ns = (uint64_t)p->gen, .send_ns = (uint64_t)*now,
	};
	hdr_put(send_buf, &h);
	iov = (struct iovec){ send_buf, len };
	m.msg_name = &s->dst;
	m.msg_namelen = s->dst_len;
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	if (s->txtime_ns) {
		m.msg_control = ctl.buf;
		m.msg_controllen = 0;
		d = edf_frame_next_deadline(&s->edf, edf_now_ns(), (uint64_t)s->txtime_ns, parts);
		edf_txtime_cmsg_append(&m, d);
	}
	if (sendmsg(s->fd, &m, 0) < 0) {
		if (errno == EAGAIN || errno == ENOBUFS)
			return 1;	/* full: wait for room */
		s->errors++;
		return -1;
	}
	s->seq++;
	s->sent_pkts++;
	s->sent_bytes += len;
	return 0;
}

/* Send what is pending until the socket is full; returns -1 on a hard error. */
static int class_flush(struct sclass *s)
{
	struct pending *p;
	uint16_t parts;
	int64_t now;
	int ret;

	while (s->qlen) {
		p = &s->q[s->qhead];
		parts = (uint16_t)((p->size + s->seg - 1) / s->seg);
		ret = send_part(s, p, parts, &now);
		if (ret > 0) {
			s->blocked = true;
			return 0;
		}
		if (ret < 0) {
			fprintf(stderr, PROG ": class %s: send to %s: %s\n", s->name,
				addr_str(&s->dst), strerror(errno));
			return -1;
		}
		if (++s->part == parts) {
			s->part = 0;
			s->sent_msgs++;
			s->qhead = (s->qhead + 1) % PENDING_MAX;
			s->qlen--;
		}
	}
	s->blocked = false;
	return 0;
}

/* Messages generated up to @now join the class's queue (or are dropped). */
static void class_generate(struct sclass *s, int64_t start, int64_t now, int64_t end)
{
	struct tm_msg msg;

	while (!s->gen_done && s->next_gen <= now) {
		if (s->qlen == PENDING_MAX) {
			s->src_drops++;
		} else {
			s->q[(s->qhead + s->qlen) % PENDING_MAX] = (struct pending){
				.gen = s->next_gen, .size = s->next_size, .msg = s->msgs,
			};
			s->qlen++;
		}
		s->msgs++;
		tm_model_next(&s->model, &msg);
		s->next_gen = start + (int64_t)(s->offset_ns + msg.at_ns);
		s->next_size = msg.size;
		if (s->next_gen >= end)
			s->gen_done = true;
	}
}

static void drain_echoes(struct send_cfg *c, struct result *res);

/*
 * Wait @ns; in round-trip mode read echoes meanwhile, as they come, so
 * their receive times are not those of a later read.
 */
static void wait_reading(struct send_cfg *c, struct result *res, int64_t ns)
{
	int64_t until = now_ns() + ns, left;
	struct pollfd pfd[MAX_FLOWS];
	struct timespec ts;
	int i;

	for (i = 0; i < c->nclasses; i++)
		pfd[i] = (struct pollfd){ .fd = c->cls[i]->fd, .events = POLLIN };
	while ((left = until - now_ns()) > 0) {
		ts = (struct timespec){ left / NSEC_PER_SEC, left % NSEC_PER_SEC };
		if (!c->rtt) {
			nanosleep(&ts, NULL);
			continue;
		}
		if (ppoll(pfd, c->nclasses, &ts, NULL) > 0)
			drain_echoes(c, res);
	}
}

static void send_fin(const struct sclass *s)
{
	uint8_t b[FM_FIN_LEN] = { 0 };
	struct fm_hdr h = {
		.type = FM_T_FIN, .cls = s->id, .flow = s->flow, .seq = s->seq,
		.send_ns = (uint64_t)now_ns(),
	};
	struct fm_fin f = {
		.sent_pkts = s->sent_pkts, .sent_msgs = s->sent_msgs,
		.sent_bytes = s->sent_bytes, .src_drops = s->src_drops,
		.target_ns = s->target_ns, .kind = (uint8_t)s->tp.kind,
		.nflows = s->all_flows,
	};

	hdr_put(b, &h);
	memcpy(f.name, s->name, FM_NAME_LEN);
	fin_put(b, &f);
	/* a full socket or a lost datagram: the next round sends it again */
	sendto(s->fd, b, sizeof(b), 0, (const struct sockaddr *)&s->dst, s->dst_len);
}

/* Reads the answers waiting on @s's socket; true once one is to its FIN. */
static bool fin_answered(const struct sclass *s)
{
	uint8_t in[FM_HDR_LEN + 4];
	struct fm_hdr h;
	bool yes = false;
	ssize_t n;

	while ((n = recv(s->fd, in, sizeof(in), MSG_DONTWAIT)) >= 0 ||
	       errno == ECONNREFUSED)
		if (n >= 0 && hdr_get(in, (unsigned int)n, &h) && h.type == FM_T_ACK &&
		    h.cls == s->id && h.flow == s->flow)
			yes = true;
	return yes;
}

/*
 * End marks.  The receiver names a class, and ends the run, only with
 * every flow's FIN, so each flow sends its FIN until the receiver answers
 * it (every FIN_GAP_NS, for at most --wait): at the end of a run a FIN
 * can meet a full socket (the class's queue is long) or be dropped on
 * the path like any datagram.  The first goes FIN_GAP_NS after the last
 * data so short queues drain first.  Round trips need none: the sender
 * measures them itself, and a reflector would not answer.
 */
static void send_fins(struct send_cfg *c, struct result *res)
{
	int64_t until = now_ns() + FIN_GAP_NS + (int64_t)(c->wait_s * NSEC_PER_SEC);
	int64_t now, next = 0;
	bool answered[MAX_FLOWS] = { false };
	struct pollfd pfd[MAX_FLOWS];
	int i, n, left = c->nclasses;

	wait_reading(c, res, FIN_GAP_NS);
	if (c->rtt)
		return;
	while (left && !stop_requested) {
		/* a round of FINs every FIN_GAP_NS, not at every answer */
		now = now_ns();
		if (now >= next) {
			for (i = 0; i < c->nclasses; i++)
				if (!answered[i])
					send_fin(c->cls[i]);
			if (now >= until)
				break;
			next = now + FIN_GAP_NS;
		}
		for (i = n = 0; i < c->nclasses; i++)
			if (!answered[i])
				pfd[n++] = (struct pollfd){ .fd = c->cls[i]->fd, .events = POLLIN };
		poll(pfd, n, (int)((next - now + 999999) / 1000000));
		for (i = 0; i < c->nclasses; i++)
			if (!answered[i] && fin_answered(c->cls[i])) {
				answered[i] = true;
				left--;
			}
	}
	for (i = 0; i < c->nclasses && left; i++)
		if (!answered[i])
			fprintf(stderr, PROG ": class %s flow %u: the receiver did not answer its end mark within %.1f s\n",
				c->cls[i]->name, c->cls[i]->flow, c->wait_s);
}

/* Round trip: drain echoes from every class socket into @res. */
static void drain_echoes(struct send_cfg *c, struct result *res)
{
	static struct rx rx;
	static bool prepared;
	struct fm_hdr h;
	int i, k, n;
	int64_t now;

	if (!prepared) {
		rx_prepare(&rx);
		prepared = true;
	}
	for (i = 0; i < c->nclasses; i++) {
		struct sclass *s = c->cls[i];

		do {
			for (k = 0; k < RECV_BATCH; k++)
				rx.mm[k].msg_hdr.msg_namelen = sizeof(rx.from[k]);
			n = recvmmsg(s->fd, rx.mm, RECV_BATCH, MSG_TRUNC, NULL);
			now = now_ns();
			for (k = 0; k < n; k++) {
				if (!hdr_get(rx.buf[k], rx.mm[k].msg_len, &h) ||
				    h.type != FM_T_ECHO || h.cls != s->id || h.flow != s->flow)
					continue;
				result_add(&res[s->idx], &h, rx.mm[k].msg_len, now, c->out.window);
			}
		} while (n == RECV_BATCH);
	}
}

static int send_loop(struct send_cfg *c, struct result *res, int64_t start)
{
	int64_t end = start + (int64_t)(c->duration_s * NSEC_PER_SEC);
	int64_t now, wake, t;
	struct pollfd pfd[MAX_FLOWS];	/* a socket per flow */
	struct progress prog;
	struct timespec ts;
	uint64_t sent;
	int i, n;

	progress_init(&prog, start, c->quiet);
	while (!stop_requested && (now = now_ns()) < end) {
		wake = end;
		sent = 0;
		for (i = 0; i < c->nclasses; i++) {
			struct sclass *s = c->cls[i];

			class_generate(s, start, now, end);
			if (!s->blocked && s->qlen && class_flush(s))
				return 1;
			if (!s->gen_done && s->next_gen < wake)
				wake = s->next_gen;
			sent += s->sent_pkts;
		}
		if (c->rtt)
			drain_echoes(c, res);
		progress_show(&prog, now, c->duration_s, "datagrams sent", sent);
		n = 0;
		for (i = 0; i < c->nclasses; i++) {
			struct sclass *s = c->cls[i];
			short ev = (s->blocked ? POLLOUT : 0) | (c->rtt ? POLLIN : 0);

			if (ev)
				pfd[n++] = (struct pollfd){ .fd = s->fd, .events = ev };
		}
		now = now_ns();
		if (wake <= now)
			continue;
		t = wake - now;
		ts = (struct timespec){ t / NSEC_PER_SEC, t % NSEC_PER_SEC };
		if (ppoll(pfd, n, &ts, NULL) > 0) {
			for (i = 0; i < c->nclasses; i++)
				c->cls[i]->blocked = false;	/* try again */
		}
	}
	progress_end(&prog);
	/* what is still queued at the end is not sent */
	for (i = 0; i < c->nclasses; i++) {
		c->cls[i]->unsent = c->cls[i]->qlen;
		c->cls[i]->qlen = 0;
	}
	return 0;
}

/*
 * A class of N flows is N sockets, each with rate / N.  Multimedia flows
 * start their frames interval / N apart and at different places of the
 * group of pictures (or trace), so their big frames do not coincide.
 */
static int add_class(struct send_cfg *c, const char *spec)
{
	struct sclass *t = xcalloc(1, sizeof(*t)), *s;
	int ret, j;

	ret = parse_class(spec, t);
	if (ret) {
		free(t);
		return ret;
	}
	if (c->nclasses + t->nflows > MAX_FLOWS) {
		free(t);
		return usage_error("at most %d flows in all classes", MAX_FLOWS);
	}
	t->idx = (uint8_t)c->nspecs;
	if (!t->have_id)
		t->id = (uint8_t)c->nspecs;
	t->tp.rate_bps /= t->nflows;
	for (j = 0; j < t->nflows; j++) {
		s = t;
		if (j) {
			s = xcalloc(1, sizeof(*s));
			*s = *t;
			s->tp.trace = t->tp.trace ? &t->trace : NULL;
		}
		/* flow ids, and the multimedia flows' spread over the frame
		 * interval, count across every sender of the class */
		s->flow = (uint8_t)(t->first_flow + j);
		if (t->tp.kind == TM_MULTIMEDIA) {
			s->offset_ns = t->tp.interval_ns * s->flow / t->all_flows;
			s->tp.phase = (unsigned int)s->flow * 5;
		}
		c->cls[c->nclasses++] = s;
	}
	c->nspecs++;
	return 0;
}

static int parse_send_args(int argc, char **argv, struct send_cfg *c)
{
	static const struct option opts[] = {
		{ "dst",      required_argument, NULL, OPT_DST },
		{ "port",     required_argument, NULL, OPT_PORT },
		{ "class",    required_argument, NULL, OPT_CLASS },
		{ "class-base", required_argument, NULL, OPT_CLASS_BASE },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "seed",     required_argument, NULL, OPT_SEED },
		{ "rtt",      no_argument,	 NULL, OPT_RTT },
		{ "wait",     required_argument, NULL, OPT_WAIT },
		{ "json",     no_argument,	 NULL, OPT_JSON },
		{ "csv",      no_argument,	 NULL, OPT_CSV },
		{ "output",   required_argument, NULL, OPT_OUT },
		{ "data",     required_argument, NULL, OPT_DATA },
		{ "quiet",    no_argument,	 NULL, OPT_QUIET },
		{ "clock",    required_argument, NULL, OPT_CLOCK },
		{ "window",   required_argument, NULL, OPT_WINDOW },
		{ "help",     no_argument,	 NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool have_dst = false, have_duration = false;
	const char *dst = NULL;
	uint64_t v;
	int o, ret;

	*c = (struct send_cfg){ .port = DEFAULT_PORT, .wait_s = 2, .out.window = 0.1 };
	while ((o = getopt_long(argc, argv, ":hq", opts, NULL)) != -1) {
		if (o == 'q')
			o = OPT_QUIET;
		ret = common_option(o, optarg, &c->out, &c->quiet);
		if (ret < 0)
			return -ret;
		if (ret)
			continue;
		switch (o) {
		case OPT_DST:
			dst = optarg;
			have_dst = true;
			break;
		case OPT_PORT:
			if (!parse_u64(optarg, 10, 65535, &v) || !v)
				return usage_error("invalid --port '%s': want 1 .. 65535", optarg);
			c->port = (uint16_t)v;
			break;
		case OPT_CLASS:
			if (c->nspecs == MAX_CLASSES)
				return usage_error("at most %d classes", MAX_CLASSES);
			ret = add_class(c, optarg);
			if (ret)
				return ret;
			break;
		case OPT_DURATION:
			if (!parse_double(optarg, 0, MAX_DURATION_S, &c->duration_s) ||
			    c->duration_s <= 0)
				return usage_error("invalid --duration '%s': want seconds, > 0 and <= 3600", optarg);
			have_duration = true;
			break;
		case OPT_CLASS_BASE:
			if (!parse_u64(optarg, 10, MAX_CLASSES - 1, &v))
				return usage_error("invalid --class-base '%s': want 0 .. %d",
						   optarg, MAX_CLASSES - 1);
			c->class_base = (int)v;
			break;
		case OPT_SEED:
			if (!parse_u64(optarg, 0, UINT64_MAX, &c->seed))
				return usage_error("invalid --seed '%s'", optarg);
			c->have_seed = true;
			break;
		case OPT_RTT:
			c->rtt = true;
			break;
		case OPT_WAIT:
			if (!parse_double(optarg, 0, 60, &c->wait_s))
				return usage_error("invalid --wait '%s': want seconds 0 .. 60", optarg);
			break;
		case 'h':
			return -1;
		default:
			return option_error(o, argv);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	for (o = 0; !have_dst && o < c->nclasses; o++)
		if (!c->cls[o]->have_dst)
			return usage_error("send: --dst is required (or dst= in every --class)");
	if (!have_duration)
		return usage_error("send: --duration is required, so the run ends by itself");
	if (!c->nspecs)
		return usage_error("send: give at least one --class");
	if (c->class_base + c->nspecs > MAX_CLASSES)
		return usage_error("--class-base %d: %d classes do not fit below %d",
				   c->class_base, c->nspecs, MAX_CLASSES);
	for (o = 0; o < c->nclasses; o++)
		if (!c->cls[o]->have_id)
			c->cls[o]->id = (uint8_t)(c->cls[o]->id + c->class_base);
	c->dst_name = dst;
	if (have_dst && resolve(dst, c->port, &c->dst, &c->dst_len))
		return EXIT_USAGE;
	return 0;
}

int cmd_send(int argc, char **argv)
{
	static struct result res[MAX_CLASSES];
	struct send_cfg c;
	char err[256];
	int64_t start, end;
	int i, j, ret;

	ret = parse_send_args(argc, argv, &c);
	if (ret < 0) {
		usage(stdout);
		return 0;
	}
	if (ret)
		return ret;
	if (!c.have_seed)
		c.seed = (uint64_t)clock_ns(CLOCK_MONOTONIC);
	for (i = 0; i < c.nclasses; i++) {
		struct sclass *s = c.cls[i];

		for (j = 0; j < i && s->flow == s->first_flow; j++)
			if (!strcmp(c.cls[j]->name, s->name))
				return usage_error("two classes named '%s': give name=", s->name);
		if (!s->tp.seed)
			s->tp.seed = c.seed + (uint64_t)i * 0x9E3779B97F4A7C15ULL;
		else
			s->tp.seed += s->flow;
		if (tm_model_init(&s->model, &s->tp, err, sizeof(err)))
			return usage_error("class %s: %s", s->name, err);
		if (open_class_socket(&c, s))
			return 1;
		if (s->flow != s->first_flow)
			continue;
		result_init(&res[s->idx], s->id);
		snprintf(res[s->idx].name, sizeof(res[s->idx].name), "%s", s->name);
		res[s->idx].kind = s->tp.kind;
		res[s->idx].target_ns = s->target_ns;
	}
	catch_signals(c.duration_s + c.wait_s);
	/* at a destination (address and port) one class id is one class */
	for (i = 0; i < c.nclasses; i++)
		for (j = 0; j < i; j++)
			if (same_dst(c.cls[i], c.cls[j]) && c.cls[i]->id == c.cls[j]->id &&
			    c.cls[i]->idx != c.cls[j]->idx)
				return usage_error("classes %s and %s: one class id (%u) to one destination",
						   c.cls[j]->name, c.cls[i]->name, c.cls[i]->id);
	/* every destination must answer before the run starts */
	for (i = 0; i < c.nclasses; i++) {
		for (j = 0; j < i && !same_dst(c.cls[i], c.cls[j]); j++)
			;
		if (j < i)
			continue;
		ret = probe_peer(&c, &c.cls[i]->dst, c.cls[i]->dst_len);
		if (ret)
			return ret;
	}

	start = now_ns();
	for (i = 0; i < c.nclasses; i++) {
		struct tm_msg msg;
		struct sclass *s = c.cls[i];

		tm_model_next(&s->model, &msg);
		s->next_gen = start + (int64_t)(s->offset_ns + msg.at_ns);
		s->next_size = msg.size;
		s->gen_done = s->next_gen >= start + (int64_t)(c.duration_s * NSEC_PER_SEC);
	}
	ret = send_loop(&c, res, start);
	end = now_ns();
	send_fins(&c, res);
	if (c.rtt) {
		/* echoes still on their way back */
		wait_reading(&c, res, NSEC_PER_SEC / 2);
		for (i = 0; i < c.nclasses; i++) {
			struct sclass *s = c.cls[i];
			struct fm_fin f = {
				.sent_pkts = s->sent_pkts, .sent_msgs = s->sent_msgs,
				.sent_bytes = s->sent_bytes, .src_drops = s->src_drops,
				.target_ns = s->target_ns, .kind = (uint8_t)s->tp.kind,
				.nflows = s->nflows,
			};

			snprintf(f.name, sizeof(f.name), "%s", s->name);
			result_fin(&res[s->idx], s->flow, &f);
		}
		apply_fins(res);
		ret = print_results(&c.out, res, "send", "roundtrip", (end - start) / 1e9) || ret;
	} else {
		FILE *f = stdout;

		if (c.out.file && !(f = fopen(c.out.file, "w"))) {
			fprintf(stderr, PROG ": %s: %s\n", c.out.file, strerror(errno));
			return 1;
		}
		if (c.out.fmt == OUT_JSON)
			fprintf(f, "{\"tool\":\"" PROG "\",\"version\":1,\"role\":\"send\","
				"\"mode\":\"oneway\",\"clock\":\"%s\",\"duration_s\":%.3f,\"classes\":[",
				run_clock_name, (end - start) / 1e9);
		else if (c.out.fmt == OUT_CSV)
			fputs("class,name,kind,sent,bytes,messages,source_drops,unsent\n", f);
		else
			fprintf(f, "send oneway to %s, clock %s, %.3f s\n%-12s %-10s %9s %11s %9s %8s %7s\n",
				c.dst_name ? c.dst_name : "each class's dst", run_clock_name,
				(end - start) / 1e9, "class", "kind",
				"sent", "bytes", "messages", "srcdrop", "unsent");
		for (i = 0; i < c.nclasses; i++) {
			struct sclass *s = c.cls[i];
			const char *k = tm_kind_name(s->tp.kind);
			char nm[FM_NAME_LEN + 8];

			if (s->all_flows > 1)
				snprintf(nm, sizeof(nm), "%s/%u", s->name, s->flow);
			else
				snprintf(nm, sizeof(nm), "%s", s->name);

			if (c.out.fmt == OUT_JSON)
				fprintf(f, "%s{\"id\":%d,\"name\":\"%s\",\"kind\":\"%s\",\"sent\":%" PRIu64
					",\"bytes\":%" PRIu64 ",\"messages\":%" PRIu64
					",\"source_drops\":%" PRIu64 ",\"unsent\":%" PRIu64 "}",
					i ? "," : "", s->id, nm, k, s->sent_pkts, s->sent_bytes,
					s->sent_msgs, s->src_drops, s->unsent);
			else if (c.out.fmt == OUT_CSV)
				fprintf(f, "%d,%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
					",%" PRIu64 "\n", s->id, nm, k, s->sent_pkts, s->sent_bytes,
					s->sent_msgs, s->src_drops, s->unsent);
			else
				fprintf(f, "%-12s %-10s %9" PRIu64 " %11" PRIu64 " %9" PRIu64 " %8"
					PRIu64 " %7" PRIu64 "\n", nm, k, s->sent_pkts,
					s->sent_bytes, s->sent_msgs, s->src_drops, s->unsent);
		}
		if (c.out.fmt == OUT_JSON)
			fputs("]}\n", f);
		if (fm_output_close(f, f == stdout ? "stdout" : c.out.file))
			ret = 1;
	}
	for (i = c.nclasses - 1; i >= 0; i--) {
		close(c.cls[i]->fd);
		if (c.cls[i]->flow == c.cls[i]->first_flow)
			tm_trace_free(&c.cls[i]->trace);
		free(c.cls[i]);
	}
	return ret;
}
