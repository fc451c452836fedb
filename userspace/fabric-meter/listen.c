// SPDX-License-Identifier: GPL-2.0
/*
 * fabric-meter recv and reflect, the listening roles.  recv measures the
 * one-way latency of what senders send it; reflect sends every DATA
 * datagram back to its sender, which measures round trips.  Both answer
 * a sender's HELLO.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cli_util.h"
#include "fabric-meter.h"

/* ---- receiving sockets ------------------------------------------------------------ */

void rx_prepare(struct rx *rx)
{
	int i;

	for (i = 0; i < RECV_BATCH; i++) {
		rx->iov[i] = (struct iovec){ rx->buf[i], RECV_SNAP };
		rx->mm[i].msg_hdr = (struct msghdr){
			.msg_name = &rx->from[i],
			.msg_namelen = sizeof(rx->from[i]),
			.msg_iov = &rx->iov[i],
			.msg_iovlen = 1,
		};
	}
}

static int open_bound(const struct sockaddr_storage *bind_ss, socklen_t len, bool big_buf)
{
	int one = 1, zero = 0, buf = RCVBUF_BYTES;
	int fd = socket(bind_ss->ss_family, SOCK_DGRAM | SOCK_NONBLOCK, 0);

	if (fd < 0) {
		fprintf(stderr, PROG ": socket: %s\n", strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind_ss->ss_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
	if (big_buf && setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	if (bind(fd, (const struct sockaddr *)bind_ss, len)) {
		fprintf(stderr, PROG ": bind %s port %u: %s\n", addr_str(bind_ss),
			ntohs(((const struct sockaddr_in *)bind_ss)->sin_port), strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

struct listen_cfg {
	struct sockaddr_storage bind;
	socklen_t bind_len;
	uint16_t port, nports;
	double duration_s;
	const char *ready;
	bool quiet;
	int expect;		/* classes whose FIN ends the run; 0: any seen */
	double linger_s;
	struct output_cfg out;
};

static int open_listeners(struct listen_cfg *c, int *fds)
{
	int i;

	for (i = 0; i < c->nports; i++) {
		set_port(&c->bind, (uint16_t)(c->port + i));
		fds[i] = open_bound(&c->bind, c->bind_len, true);
		if (fds[i] < 0)
			return -1;
	}
	if (c->ready) {
		FILE *f = fopen(c->ready, "w");

		if (!f || fputs("ready\n", f) < 0 || fclose(f)) {
			fprintf(stderr, PROG ": --ready %s: %s\n", c->ready, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static void send_ack(int fd, const struct sockaddr_storage *to, socklen_t len,
		     const struct fm_hdr *hello, uint8_t status)
{
	uint8_t b[FM_HDR_LEN + 4] = { 0 };
	struct fm_hdr h = *hello;

	h.type = FM_T_ACK;
	hdr_put(b, &h);
	b[FM_HDR_LEN] = status;
	sendto(fd, b, sizeof(b), 0, (const struct sockaddr *)to, len);
}

/* A HELLO: answer it; status 1 when the sender's clock differs from ours. */
static void answer_hello(int fd, struct mmsghdr *m, const uint8_t *p, unsigned int len,
			 const struct fm_hdr *h)
{
	uint8_t clk = len > FM_HDR_LEN ? p[FM_HDR_LEN] : 0;

	send_ack(fd, m->msg_hdr.msg_name, m->msg_hdr.msg_namelen, h,
		 clk == clock_code() ? 0 : 1);
}

/* ---- recv ------------------------------------------------------------------------ */

static int recv_loop(struct listen_cfg *c, int *fds, struct result *res, int64_t start)
{
	static struct rx rx;
	struct pollfd pfd[256];
	int64_t deadline = start + (int64_t)(c->duration_s * NSEC_PER_SEC);
	int64_t all_done = 0, now;
	uint64_t total = 0;
	struct progress prog;
	struct fm_hdr h;
	struct fm_fin fin;
	int i, n, k, fins, seen;

	progress_init(&prog, start, c->quiet);
	rx_prepare(&rx);
	for (i = 0; i < c->nports; i++)
		pfd[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	while (!stop_requested) {
		now = now_ns();
		if (now >= deadline || (all_done && now >= all_done))
			break;
		progress_show(&prog, now, c->duration_s, "datagrams received", total);
		n = poll(pfd, c->nports, 100);
		if (n <= 0)
			continue;
		for (i = 0; i < c->nports; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			for (k = 0; k < RECV_BATCH; k++)
				rx.mm[k].msg_hdr.msg_namelen = sizeof(rx.from[k]);
			n = recvmmsg(fds[i], rx.mm, RECV_BATCH, MSG_TRUNC, NULL);
			if (n <= 0)
				continue;
			now = now_ns();
			for (k = 0; k < n; k++) {
				unsigned int len = rx.mm[k].msg_len;

				if (!hdr_get(rx.buf[k], len, &h))
					continue;
				switch (h.type) {
				case FM_T_DATA:
					result_add(&res[h.cls], &h, len, now, c->out.window);
					total++;
					break;
				case FM_T_HELLO:
					answer_hello(fds[i], &rx.mm[k], rx.buf[k], len, &h);
					break;
				case FM_T_FIN:
					if (!fin_get(rx.buf[k], len, &fin))
						break;
					result_fin(&res[h.cls], h.flow, &fin);
					/* the sender repeats its FIN until answered */
					send_ack(fds[i], rx.mm[k].msg_hdr.msg_name,
						 rx.mm[k].msg_hdr.msg_namelen, &h, 0);
					break;
				default:
					break;
				}
			}
		}
		/* every class that sent something said it is done: linger, stop */
		if (!all_done) {
			fins = seen = 0;
			for (i = 0; i < MAX_CLASSES; i++) {
				fins += res[i].have_fin;
				seen += res[i].seen || res[i].have_fin;
			}
			if (fins && fins == seen && (!c->expect || fins >= c->expect))
				all_done = now_ns() + (int64_t)(c->linger_s * NSEC_PER_SEC);
		}
	}
	progress_end(&prog);
	return 0;
}

/* ---- common listener options ---------------------------------------------------- */

static int parse_listen_args(int argc, char **argv, struct listen_cfg *c, bool is_recv)
{
	static const struct option opts[] = {
		{ "bind",     required_argument, NULL, OPT_BIND },
		{ "port",     required_argument, NULL, OPT_PORT },
		{ "ports",    required_argument, NULL, OPT_PORTS },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "ready",    required_argument, NULL, OPT_READY },
		{ "json",     no_argument,	 NULL, OPT_JSON },
		{ "csv",      no_argument,	 NULL, OPT_CSV },
		{ "output",   required_argument, NULL, OPT_OUT },
		{ "data",     required_argument, NULL, OPT_DATA },
		{ "quiet",    no_argument,	 NULL, OPT_QUIET },
		{ "clock",    required_argument, NULL, OPT_CLOCK },
		{ "expect",   required_argument, NULL, OPT_EXPECT },
		{ "linger",   required_argument, NULL, OPT_LINGER },
		{ "window",   required_argument, NULL, OPT_WINDOW },
		{ "help",     no_argument,	 NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *bind_addr = "::";
	bool have_duration = false;
	uint64_t v;
	int o, ret;

	*c = (struct listen_cfg){ .port = DEFAULT_PORT, .nports = 1, .linger_s = 0.2,
				  .out.window = 0.1 };
	while ((o = getopt_long(argc, argv, ":hq", opts, NULL)) != -1) {
		if (o == 'q')
			o = OPT_QUIET;
		ret = common_option(o, optarg, &c->out, &c->quiet);
		if (ret < 0)
			return -ret;
		if (ret)
			continue;
		switch (o) {
		case OPT_BIND:
			bind_addr = optarg;
			break;
		case OPT_PORT:
			if (!parse_u64(optarg, 10, 65535, &v) || !v)
				return usage_error("invalid --port '%s': want 1 .. 65535", optarg);
			c->port = (uint16_t)v;
			break;
		case OPT_PORTS:
			if (!parse_u64(optarg, 10, 256, &v) || !v)
				return usage_error("invalid --ports '%s': want 1 .. 256", optarg);
			c->nports = (uint16_t)v;
			break;
		case OPT_DURATION:
			if (!parse_double(optarg, 0, MAX_DURATION_S, &c->duration_s) ||
			    c->duration_s <= 0)
				return usage_error("invalid --duration '%s': want seconds, > 0 and <= 3600", optarg);
			have_duration = true;
			break;
		case OPT_READY:
			c->ready = optarg;
			break;
		case OPT_EXPECT:
			if (!parse_u64(optarg, 10, MAX_CLASSES, &v))
				return usage_error("invalid --expect '%s': want 0 .. 64 classes", optarg);
			c->expect = (int)v;
			break;
		case OPT_LINGER:
			if (!parse_double(optarg, 0, 60, &c->linger_s))
				return usage_error("invalid --linger '%s': want seconds 0 .. 60", optarg);
			break;
		case 'h':
			return -1;
		default:
			return option_error(o, argv);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (!have_duration)
		return usage_error("%s: --duration is required, so the run ends by itself",
				   is_recv ? "recv" : "reflect");
	if ((unsigned int)c->port + c->nports - 1 > 65535)
		return usage_error("--port + --ports go past port 65535");
	if (resolve(bind_addr, c->port, &c->bind, &c->bind_len))
		return EXIT_USAGE;
	return 0;
}

int cmd_recv(int argc, char **argv)
{
	static struct result res[MAX_CLASSES];
	struct listen_cfg c;
	int fds[256], i, ret;
	int64_t start, end;
	uint64_t total = 0;

	ret = parse_listen_args(argc, argv, &c, true);
	if (ret < 0) {
		usage(stdout);
		return 0;
	}
	if (ret)
		return ret;
	if (open_listeners(&c, fds))
		return 1;
	for (i = 0; i < MAX_CLASSES; i++)
		result_init(&res[i], i);
	catch_signals(c.duration_s);
	start = now_ns();
	recv_loop(&c, fds, res, start);
	end = now_ns();
	for (i = 0; i < c.nports; i++)
		close(fds[i]);
	apply_fins(res);
	for (i = 0; i < MAX_CLASSES; i++)
		total += res[i].packets;
	ret = print_results(&c.out, res, "recv", "oneway", (end - start) / 1e9);
	if (ret)
		return ret;
	if (!total) {
		fprintf(stderr, PROG ": nothing received on port %u%s\n", c.port,
			c.nports > 1 ? " and up" : "");
		return 1;
	}
	return 0;
}

/* ---- reflect ----------------------------------------------------------------------- */

int cmd_reflect(int argc, char **argv)
{
	static struct rx rx;
	struct listen_cfg c;
	struct pollfd pfd[256];
	int fds[256], i, k, n, ret;
	int64_t start, deadline, now;
	uint64_t echoed = 0;
	struct progress prog;
	struct fm_hdr h;

	ret = parse_listen_args(argc, argv, &c, false);
	if (ret < 0) {
		usage(stdout);
		return 0;
	}
	if (ret)
		return ret;
	if (open_listeners(&c, fds))
		return 1;
	catch_signals(c.duration_s);
	start = now_ns();
	deadline = start + (int64_t)(c.duration_s * NSEC_PER_SEC);
	progress_init(&prog, start, c.quiet);
	rx_prepare(&rx);
	for (i = 0; i < c.nports; i++)
		pfd[i] = (struct pollfd){ .fd = fds[i], .events = POLLIN };
	while (!stop_requested && (now = now_ns()) < deadline) {
		progress_show(&prog, now, c.duration_s, "datagrams echoed", echoed);
		if (poll(pfd, c.nports, 100) <= 0)
			continue;
		for (i = 0; i < c.nports; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			/* whole datagrams: the echo has the size of the original */
			for (k = 0; k < RECV_BATCH; k++)
				rx.mm[k].msg_hdr.msg_namelen = sizeof(rx.from[k]);
			n = recvmmsg(fds[i], rx.mm, RECV_BATCH, MSG_TRUNC, NULL);
			now = now_ns();
			for (k = 0; k < n; k++) {
				unsigned int len = rx.mm[k].msg_len;
				static uint8_t out[MAX_SEG];

				if (!hdr_get(rx.buf[k], len, &h))
					continue;
				if (h.type == FM_T_HELLO) {
					answer_hello(fds[i], &rx.mm[k], rx.buf[k], len, &h);
					continue;
				}
				if (h.type != FM_T_DATA || len > MAX_SEG)
					continue;
				h.type = FM_T_ECHO;
				h.echo_ns = (uint64_t)now;
				memset(out, 0, len);
				hdr_put(out, &h);
				if (sendto(fds[i], out, len, 0, rx.mm[k].msg_hdr.msg_name,
					   rx.mm[k].msg_hdr.msg_namelen) == (ssize_t)len)
					echoed++;
			}
		}
	}
	progress_end(&prog);
	for (i = 0; i < c.nports; i++)
		close(fds[i]);
	if (c.out.fmt == OUT_JSON)
		printf("{\"tool\":\"" PROG "\",\"role\":\"reflect\",\"echoed\":%" PRIu64 "}\n", echoed);
	else
		printf("reflect: echoed %" PRIu64 " datagrams\n", echoed);
	return 0;
}
