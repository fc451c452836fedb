// SPDX-License-Identifier: GPL-2.0
/*
 * A QEMU TCG plugin for make profile (scripts/profile.sh): counts how
 * often the guest executes each instruction of the kernel's half of the
 * address space, and writes "ADDRESS COUNT" lines (hex, decimal) for
 * every one executed when QEMU exits.  Under -icount shift=0 the
 * deterministic VM's guest time is its instruction count, so these counts
 * add up to what the benchmarks report, split by address; the guest's
 * /proc/kallsyms turns them into functions.
 *
 * Usage: qemu-system-x86_64 -plugin PATH/insn-profile.so,out=FILE ...
 *
 * The few declarations of QEMU's plugin API it uses are written here, as
 * Debian ships the plugin-capable binary but not the header.  They hold
 * for plugin API version 1 (QEMU 7.2, bookworm's) and have not changed
 * since in what this plugin calls.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
	void (*cb)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb));
void qemu_plugin_register_vcpu_insn_exec_inline(struct qemu_plugin_insn *insn,
						enum qemu_plugin_op op,
						void *ptr, uint64_t imm);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
				    void (*cb)(qemu_plugin_id_t id, void *p),
				    void *userdata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb,
						 size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

#define EXPORT __attribute__((visibility("default")))

EXPORT int qemu_plugin_version = 1;

/* x86-64's kernel text, modules included, lies above this */
#define KERNEL_TEXT_START 0xffffffff80000000ULL

/*
 * One counter per instruction address, in an open-addressed table that
 * never moves: the translated code adds to the counter's address.  A
 * kernel executes far fewer distinct instructions than this.
 */
#define SLOTS_LOG 22
#define SLOTS (1u << SLOTS_LOG)

struct slot {
	uint64_t vaddr;
	uint64_t count;
};

static struct slot *slots;
static unsigned int used;
static const char *out_path = "insn-profile.txt";

static struct slot *slot_of(uint64_t vaddr)
{
	uint64_t i = (vaddr * 0x9e3779b97f4a7c15ULL) >> (64 - SLOTS_LOG);

	for (;; i = (i + 1) & (SLOTS - 1)) {
		if (slots[i].vaddr == vaddr)
			return &slots[i];
		if (!slots[i].vaddr) {
			if (used >= SLOTS / 2)
				return NULL;	/* full enough: stop counting new ones */
			used++;
			slots[i].vaddr = vaddr;
			return &slots[i];
		}
	}
}

/* Each time QEMU translates a block: a counter for each kernel instruction. */
static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t vaddr = qemu_plugin_insn_vaddr(insn);
		struct slot *s;

		if (vaddr < KERNEL_TEXT_START)
			continue;
		s = slot_of(vaddr);
		if (s)
			qemu_plugin_register_vcpu_insn_exec_inline(insn,
				QEMU_PLUGIN_INLINE_ADD_U64, &s->count, 1);
	}
}

static void write_counts(qemu_plugin_id_t id, void *p)
{
	FILE *f = fopen(out_path, "w");
	unsigned int i;

	if (!f) {
		perror(out_path);
		return;
	}
	for (i = 0; i < SLOTS; i++)
		if (slots[i].count)
			fprintf(f, "%" PRIx64 " %" PRIu64 "\n",
				slots[i].vaddr, slots[i].count);
	if (used >= SLOTS / 2)
		fprintf(f, "# table full: some instructions were not counted\n");
	fclose(f);
}

EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
			       int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!strncmp(argv[i], "out=", 4)) {
			out_path = strdup(argv[i] + 4);
		} else {
			fprintf(stderr, "insn-profile: unknown argument %s\n", argv[i]);
			return -1;
		}
	}
	slots = calloc(SLOTS, sizeof(*slots));
	if (!slots || !out_path)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
	qemu_plugin_register_atexit_cb(id, write_counts, NULL);
	return 0;
}
