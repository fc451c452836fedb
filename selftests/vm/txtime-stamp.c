// SPDX-License-Identifier: GPL-2.0
/*
 * txtime-stamp: pin a tc BPF program that gives every packet a transmit
 * time, so that etf can be measured with packets that carry none.
 *
 * etf accepts only packets whose skb->tstamp lies in the future; sockets
 * set it with SO_TXTIME, but the benchmark's pktgen packets have none and
 * etf would drop them all.  The program, for a clsact egress hook (which
 * runs before the root qdisc), sets
 *
 *	skb->tstamp = CLOCK_TAI now + OFFSET
 *
 * (etf takes no other clock) and returns TC_ACT_UNSPEC, so the next filter on the hook still runs.
 * Attach it with
 *
 *	tc filter add dev DEV egress prio 1 bpf object-pinned PIN direct-action
 *
 * It is a handful of instructions written out here rather than compiled,
 * so the VM image needs neither clang nor libbpf.
 *
 * Usage: txtime-stamp PIN OFFSET_NS
 *   PIN is a path in a mounted bpffs (it must not exist yet).
 */
#include <errno.h>
#include <linux/bpf.h>
#include <linux/pkt_cls.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static int sys_bpf(int cmd, union bpf_attr *attr)
{
	return (int)syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })

int main(int argc, char **argv)
{
	static char log[4096];
	union bpf_attr attr;
	uint64_t offset;
	char *end;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: txtime-stamp PIN OFFSET_NS\n");
		return 2;
	}
	errno = 0;
	offset = strtoull(argv[2], &end, 0);
	if (errno || *end || end == argv[2]) {
		fprintf(stderr, "txtime-stamp: bad offset '%s'\n", argv[2]);
		return 2;
	}

	struct bpf_insn prog[] = {
		/* r6 = skb (r1 does not survive the call) */
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_6, BPF_REG_1, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ktime_get_tai_ns),
		/* r1 = offset: a 64-bit immediate takes two instructions */
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, 0, 0, (int32_t)(uint32_t)offset),
		INSN(0, 0, 0, 0, (int32_t)(uint32_t)(offset >> 32)),
		INSN(BPF_ALU64 | BPF_ADD | BPF_X, BPF_REG_0, BPF_REG_1, 0, 0),
		INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_6, BPF_REG_0,
		     offsetof(struct __sk_buff, tstamp), 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, TC_ACT_UNSPEC),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};

	memset(&attr, 0, sizeof(attr));
	attr.prog_type = BPF_PROG_TYPE_SCHED_CLS;
	attr.insns = (uintptr_t)prog;
	attr.insn_cnt = sizeof(prog) / sizeof(prog[0]);
	attr.license = (uintptr_t)"GPL";
	attr.log_buf = (uintptr_t)log;
	attr.log_size = sizeof(log);
	attr.log_level = 1;
	fd = sys_bpf(BPF_PROG_LOAD, &attr);
	if (fd < 0) {
		fprintf(stderr, "txtime-stamp: loading the program: %s\n%s",
			strerror(errno), log);
		return 1;
	}

	memset(&attr, 0, sizeof(attr));
	attr.pathname = (uintptr_t)argv[1];
	attr.bpf_fd = (uint32_t)fd;
	if (sys_bpf(BPF_OBJ_PIN, &attr) < 0) {
		fprintf(stderr, "txtime-stamp: pinning at %s: %s\n", argv[1],
			strerror(errno));
		return 1;
	}
	return 0;
}
