/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fabric-meter: traffic generator and latency meter for QoS classes.
 *
 * A sender drives several traffic classes (control, multimedia,
 * best-effort, background, cbr: userspace/lib/traffic_model.h), each on
 * its own UDP socket with its own markings (SO_PRIORITY, DSCP,
 * SO_MAX_PACING_RATE, SO_TXTIME frame deadlines for the edf qdisc).  Every
 * datagram carries a header with its class, sequence number, message and
 * part, the time its message was generated and the time it was sent.  A
 * receiver computes per class the one-way latency of every packet and of
 * every message (multimedia: a video frame, from its generation to its
 * last packet) and prints sent, received, lost, mean, percentiles, max,
 * jitter, throughput, deadline misses and the CDF (userspace/lib/
 * latstats.h).  With a reflector at the far end the sender measures round
 * trips instead, on its own clock.
 *
 * Documentation/fabric-meter.rst describes every option and the output.
 *
 * One file a job, in userspace/fabric-meter/; this header is what they
 * share:
 *
 *   main.c     the command line: the roles, the options they share, the
 *              usage text; check-trace
 *   util.c     the run's clock, signals, error messages, addresses
 *   wire.c     the probe header and the end mark on the wire
 *   results.c  per-class results of the receiver and the round-trip sender
 *   output.c   results as a table, JSON, CSV and gnuplot data; the
 *              progress line
 *   listen.c   the listening roles: recv and reflect
 *   class.c    a --class SPEC
 *   send.c     the sender
 */
#ifndef FABRIC_METER_H
#define FABRIC_METER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>

#include "edf_frame.h"
#include "latstats.h"
#include "traffic_model.h"

#define PROG			"fabric-meter"

#define FM_HDR_LEN		48
#define FM_T_DATA		1
#define FM_T_FIN		2	/* sender: a class is done; body: fm_fin */
#define FM_T_HELLO		3	/* sender: anyone there?  body: clock */
#define FM_T_ACK		4	/* receiver / reflector: yes; body: status */
#define FM_T_ECHO		5	/* reflector: a DATA datagram sent back */
#define FM_FIN_LEN		(FM_HDR_LEN + 64)
#define FM_NAME_LEN		16

#define EXIT_USAGE		2
#define EXIT_PEER		3

#define NSEC_PER_SEC		1000000000LL
#define MAX_CLASSES		64
#define MAX_FLOWS		256	/* per class, and in all on one sender */
#define MAX_DURATION_S		3600.0
#define DEFAULT_PORT		5201
#define MAX_SEG			65507
#define PENDING_MAX		256		/* messages waiting per class */
#define RCVBUF_BYTES		(8 << 20)
#define RECV_BATCH		64
#define RECV_SNAP		(FM_FIN_LEN)

/* ---- util.c: small helpers ------------------------------------------------- */

/* Set by SIGINT / SIGTERM: the run ends early and still prints results. */
extern volatile sig_atomic_t stop_requested;
/* The run's clock by its --clock name, for the results. */
extern const char *run_clock_name;

/* SIGINT / SIGTERM stop the run; SIGALRM, at @duration_s + 30 s, exits. */
void catch_signals(double duration_s);
/* Clock @id in ns. */
int64_t clock_ns(clockid_t id);
/* The run's clock (--clock) in ns. */
int64_t now_ns(void);
/* A message and a pointer to --help on stderr; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...);
/* calloc, or exit 1 with a message. */
void *xcalloc(size_t n, size_t size);
/* @addr and @port as a UDP address; 0, or -1 with a message. */
int resolve(const char *addr, uint16_t port, struct sockaddr_storage *ss,
	    socklen_t *len);
/* The address of @ss as text, in a static buffer. */
const char *addr_str(const struct sockaddr_storage *ss);
/* --clock @name: 0, or the exit code with a message. */
int set_clock(const char *name);
/* The run's clock as a HELLO carries it: 0 realtime, 1 tai, 2 monotonic. */
uint8_t clock_code(void);

/* ---- wire.c: probe header and end mark ------------------------------------- */

/* A datagram's header, decoded (the layout: wire.c). */
struct fm_hdr {
	uint8_t type, flow;
	uint16_t cls;
	uint32_t seq, msg;
	uint16_t part, parts;
	uint32_t size;
	uint64_t gen_ns, send_ns, echo_ns;
};

/* The body of an end mark (FM_T_FIN), decoded. */
struct fm_fin {
	uint64_t sent_pkts, sent_msgs, sent_bytes, src_drops;
	int64_t target_ns;
	uint8_t kind;
	char name[FM_NAME_LEN + 1];
	uint16_t nflows;	/* flows of the class */
};

/* Write header @h at @p (FM_HDR_LEN bytes). */
void hdr_put(uint8_t *p, const struct fm_hdr *h);
/* Read the header of a @len-byte datagram; false if it is none of ours. */
bool hdr_get(const uint8_t *p, size_t len, struct fm_hdr *h);
/* Write end mark @f after the header at @p (FM_FIN_LEN bytes in all). */
void fin_put(uint8_t *p, const struct fm_fin *f);
/*
 * Read the end mark of a @len-byte datagram; false if it is too short.  A
 * class name that fm_name_valid() refuses is read as none ("").
 */
bool fin_get(const uint8_t *p, size_t len, struct fm_fin *f);
/*
 * Whether @name may name a class: 1 .. FM_NAME_LEN of [A-Za-z0-9_.-].  The
 * receiver names files (--data) and JSON strings after it, and any host
 * can send it an end mark.
 */
bool fm_name_valid(const char *name);

/* ---- results.c: per-class results ------------------------------------------ */

/* A flow of a class, as the receiver sees it. */
struct rflow {
	bool seen, have_fin;
	struct fm_fin fin;
	uint64_t next_seq;		/* highest seq + 1 */
	/* the message being reassembled */
	bool cur_valid;
	uint32_t cur_msg;
	uint16_t cur_got, cur_parts;
	uint64_t cur_gen;
};

/* A class: its flows' statistics together. */
struct result {
	bool seen, have_fin;		/* have_fin: from every flow */
	char name[FM_NAME_LEN + 1];
	int kind;
	int64_t target_ns;
	struct fm_fin fin;		/* the flows' end marks added up */
	uint64_t packets, bytes, reordered, late_old;
	int64_t first_rx, last_rx;
	struct ls_stats pkt, msg;
	uint64_t msgs_incomplete;
	double window;			/* in window: within target x (1 +- window) */
	struct rflow *fl;		/* MAX_FLOWS, allocated when first seen */
};

/* An empty result for class @cls, named class<cls> until an end mark names it. */
void result_init(struct result *r, int cls);
/* Deadline misses: the fraction of messages later than the target. */
double result_miss_ratio(const struct result *r);
/* The fraction of messages within target x (1 +- window). */
double result_in_window(const struct result *r);
/* An end mark of one flow. */
void result_fin(struct result *r, unsigned int flow, const struct fm_fin *fin);
/* One DATA datagram: latency = @rx - send (packet), @rx - gen (message). */
void result_add(struct result *r, const struct fm_hdr *h, size_t len,
		int64_t rx, double window);
/* Datagrams sent: per flow, its end mark's count, else its highest seq + 1. */
uint64_t result_sent(const struct result *r);
/* Datagrams sent and not received. */
uint64_t result_lost(const struct result *r);
/* Throughput in bit/s, from the first to the last datagram received. */
double result_tput(const struct result *r);
/* The class's kind as text, "unknown" until an end mark tells it. */
const char *result_kind(const struct result *r);
/* Names, kinds, targets and counts from the end marks of @res[MAX_CLASSES]. */
void apply_fins(struct result *res);

/* ---- output.c: results and progress ---------------------------------------- */

/* What the results are written as, and where (--json, --csv, --output...). */
struct output_cfg {
	enum { OUT_TABLE, OUT_JSON, OUT_CSV } fmt;
	const char *file;
	const char *data_dir;
	double window;		/* in_window: message latency within target +- this */
};

/* The progress line on stderr, on a terminal only. */
struct progress {
	bool on;
	int64_t start, next;
};

/*
 * Finish output @f (named @what in messages): stdout is flushed, a file
 * closed.  0, or -1 with a message when anything written to it was lost
 * (a full disk, a closed pipe): results that did not arrive are an error.
 */
int fm_output_close(FILE *f, const char *what);
/* Write @res[MAX_CLASSES] as @o says (and its data files); 0, or 1. */
int print_results(const struct output_cfg *o, struct result *res,
		  const char *role, const char *mode, double duration_s);
/* Progress from @start; none with @quiet or when stderr is no terminal. */
void progress_init(struct progress *p, int64_t start, bool quiet);
/* The progress line, "@what @n", at most once a second. */
void progress_show(struct progress *p, int64_t now, double duration_s,
		   const char *what, uint64_t n);
/* Clear the progress line. */
void progress_end(struct progress *p);

/* ---- listen.c: recv and reflect -------------------------------------------- */

/* A batch of datagrams for recvmmsg, the first RECV_SNAP bytes of each. */
struct rx {
	struct mmsghdr mm[RECV_BATCH];
	struct iovec iov[RECV_BATCH];
	struct sockaddr_storage from[RECV_BATCH];
	uint8_t buf[RECV_BATCH][RECV_SNAP];
};

/* Point @rx's messages at its buffers. */
void rx_prepare(struct rx *rx);
/* fabric-meter recv ARGS: one-way latency per class; the exit code. */
int cmd_recv(int argc, char **argv);
/* fabric-meter reflect ARGS: send DATA back to its sender; the exit code. */
int cmd_reflect(int argc, char **argv);

/* ---- class.c and send.c: the sender ---------------------------------------- */

/* A message generated and not yet sent. */
struct pending {
	int64_t gen;		/* absolute generation time */
	uint32_t size, msg;
};

/* A flow of a --class: its configuration and its sending state. */
struct sclass {
	/* configuration */
	char name[FM_NAME_LEN + 1];
	struct tm_params tp;
	struct tm_trace trace;
	uint32_t seg;		/* datagram size, header included */
	uint32_t prio;
	bool have_prio;
	int dscp;		/* -1: unset */
	uint64_t pacing;	/* bytes/s, 0: unset */
	int64_t target_ns;
	int64_t txtime_ns;	/* SO_TXTIME frame latency, 0: off */
	uint16_t port;		/* 0: --port */
	uint8_t id, flow;	/* class id on the wire, flow in the class */
	uint8_t idx;		/* the --class it came from: this sender's results */
	bool have_dst;		/* dst= : its own destination, in dst */
	bool have_id;		/* id= : its own class id */
	uint16_t nflows;	/* this sender's flows of the class */
	uint16_t first_flow;	/* flow= : the first of them */
	uint16_t all_flows;	/* allflows= : of every sender, for the FIN */
	double offset_ns;	/* the flow's first message is this much later */
	/* state */
	struct tm_model model;
	int fd;
	struct sockaddr_storage dst;
	socklen_t dst_len;
	int64_t next_gen;	/* the next message: generation time, size */
	uint32_t next_size;
	bool gen_done;
	struct pending q[PENDING_MAX];
	unsigned int qhead, qlen;
	uint16_t part;		/* next part of q[qhead] */
	bool blocked;
	struct edf_frame_clock edf;
	uint32_t seq, msgs;
	uint64_t sent_pkts, sent_bytes, sent_msgs, src_drops, unsent, errors;
};

/* A --class @spec into @s; 0, or EXIT_USAGE with a message. */
int parse_class(const char *spec, struct sclass *s);
/* fabric-meter send ARGS: drive the classes; the exit code. */
int cmd_send(int argc, char **argv);

/* ---- main.c: the command line ---------------------------------------------- */

/* getopt_long codes of the long options. */
enum {
	OPT_BIND = 256, OPT_PORT, OPT_PORTS, OPT_DURATION, OPT_READY, OPT_JSON,
	OPT_CSV, OPT_OUT, OPT_DATA, OPT_QUIET, OPT_CLOCK, OPT_EXPECT, OPT_LINGER,
	OPT_DST, OPT_CLASS, OPT_CLASS_BASE, OPT_SEED, OPT_RTT, OPT_WAIT, OPT_WINDOW,
};

/* The usage text, to @f. */
void usage(FILE *f);
/* The message for an option getopt_long refused or a role does not take. */
int option_error(int o, char **argv);
/* Options the roles share; 1 if @o was one of them, <0 on error (exit code). */
int common_option(int o, const char *arg, struct output_cfg *out, bool *quiet);

#endif /* FABRIC_METER_H */
