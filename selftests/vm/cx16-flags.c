// SPDX-License-Identifier: GPL-2.0
/*
 * cx16-flags: check that cmpxchg16b leaves RFLAGS as an x86 CPU does.
 *
 *	cx16-flags [ --rounds N ]
 *
 * QEMU before 8.0 emulates cmpxchg16b under TCG with a helper that
 * recomputes the arithmetic flags from the emulator's saved record of
 * the last flag-setting instruction without first bringing that record
 * up to date.  When the instruction just before was evaluated lazily
 * (its result not yet written back) and the saved record says "the flags
 * are the value in CC_SRC", the helper takes whatever operand the newer
 * instruction left in CC_SRC for a whole RFLAGS value: its bits, TF, DF,
 * NT, AC and reserved ones included, show up in the next pushf or in the
 * frame of the next interrupt, and iret loads them.  A kernel that runs
 * with DF or TF set by surprise corrupts memory or faults at random; on
 * such a QEMU the VM's CPU has no cmpxchg16b (scripts/vm-run.sh).
 *
 * Each round stores the emulator's record (a cmpxchg16b, then a jump that
 * ends the translation block), subtracts a pattern (the lazily evaluated
 * instruction, whose operand is the pattern) and runs cmpxchg16b again,
 * then reads RFLAGS.  A CPU sets ZF there and keeps the flags of the
 * subtraction otherwise; none sets a reserved bit or TF, DF or NT.
 * Exit status 0 when every round was clean, 1 with the first bad round
 * printed, 2 on bad usage.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* TF, DF, NT and the bits an x86 CPU keeps at zero (3, 5, 15, 22-31) */
#define NEVER_SET_HERE 0xffc0c528UL
#define FLAG_ZF 0x40UL

static unsigned __int128 slot __attribute__((aligned(16)));

static uint64_t flags_after_cmpxchg16b(uint64_t pattern)
{
	uint64_t flags, x = 1;

	asm volatile("xor %%eax, %%eax\n\t"
		     "xor %%edx, %%edx\n\t"
		     "xor %%ebx, %%ebx\n\t"
		     "xor %%ecx, %%ecx\n\t"
		     "cmpxchg16b %[m]\n\t"
		     "jmp 1f\n"
		     "1:\n\t"
		     "sub %[p], %[x]\n\t"
		     "cmpxchg16b %[m]\n\t"
		     "pushfq\n\t"
		     "pop %[f]\n\t"
		     : [f] "=r"(flags), [m] "+m"(slot), [x] "+r"(x)
		     : [p] "r"(pattern)
		     : "rax", "rbx", "rcx", "rdx", "cc", "memory");
	return flags;
}

int main(int argc, char **argv)
{
	unsigned long rounds = 10000, i;
	uint64_t pattern = 0x9e3779b97f4a7c15ULL;

	if (argc == 3 && !strcmp(argv[1], "--rounds"))
		rounds = strtoul(argv[2], NULL, 0);
	else if (argc != 1) {
		fprintf(stderr, "usage: cx16-flags [ --rounds N ]\n");
		return 2;
	}
	for (i = 0; i < rounds; i++) {
		uint64_t f = flags_after_cmpxchg16b(pattern);

		if ((f & NEVER_SET_HERE) || !(f & FLAG_ZF)) {
			printf("round %lu: pattern %#llx gave RFLAGS %#llx (bits %#llx no CPU sets here%s)\n",
			       i, (unsigned long long)pattern,
			       (unsigned long long)f,
			       (unsigned long long)(f & NEVER_SET_HERE),
			       f & FLAG_ZF ? "" : ", ZF clear after a successful exchange");
			return 1;
		}
		/* the next pattern: all bit positions get their turn */
		pattern = pattern * 6364136223846793005ULL + 1442695040888963407ULL;
	}
	printf("%lu rounds, RFLAGS clean after every cmpxchg16b\n", rounds);
	return 0;
}
