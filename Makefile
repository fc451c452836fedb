# SPDX-License-Identifier: GPL-2.0
#
# fabric-qos top-level Makefile.  Targets:
#   make              modules, tc/ip plugins, tools, test programs
#   make setup        install build/VM dependencies, fetch the VM kernel
#   make check [T=re] [VM_KERNEL=k] [LIVE=1]  run the tests (host unit
#                     tests and the qemu VMs, or this live host)
#   make check-debug [T=re] [DEBUG_PASS=suite|fuzz]  the VM tests on a
#                     KASAN/lockdep/kmemleak kernel, then the fuzzers at length
#   make bench [T=re] benchmarks in the deterministic VM (Documentation/benchmarks.rst)
#   make profile P="CASE PATH FLOWS CLASSES"  one benchmark case's guest
#                     instructions by kernel function, in build/profile/
#   make demo [S=names] [LIVE=1]  the paper's architectures side by side, tables
#                     and plots in build/demo/ (Documentation/demo.rst)
#   make recn-demo [VM=1]  RECN in qsim (also part of make demo): a congestion
#                     tree and the paper's sweep; build/recn-demo/; VM=1 (and
#                     make demo): the sweep in the VM too
#   make fbs-demo     FBS in the VM: empty slots against Eq. 3, corruption
#                     without feedback; tables and plots in build/fbs-demo/
#                     (Documentation/fbs.rst; NODES, DRIFT, PERIODS)
#   make aoq-plots    simulated delay curves of aoq (Documentation/aoq.rst)
#   make fuzz [F=regex] [FUZZ_TIME=s]  the cores' fuzz targets at length,
#                     each FUZZ_TIME seconds (600), corpora kept in build/fuzz/
#   make install      modules, plugins and tools on this host (DESTDIR ok)
#   make clean
#
# Variables: VM_KERNEL (6.1, 6.12 or 6.12-rt: the VM kernel to build for,
# check, bench or demo on), KDIR (kernel build tree; default: the VM
# kernel's headers, use KDIR=/lib/modules/$(uname -r)/build on a live
# host), FQ_CACHE, PREFIX, TC_LIB_DIR, IP_LIB_DIR, DESTDIR, V=1.

FQ_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/fabric-qos
export FQ_CACHE

# The VM kernel to build for, run and benchmark on: 6.1, 6.12 or 6.12-rt
# (make check without it runs the suite on 6.1 and on 6.12).
VM_KERNEL ?=
export VM_KERNEL
FQ_VM_KERNEL := $(or $(VM_KERNEL),6.1)
export FQ_VM_KERNEL

ifeq ($(origin KDIR),undefined)
ifneq ($(LIVE),)
# make check LIVE=1 / make demo LIVE=1: this host's own kernel
KDIR := /lib/modules/$(shell uname -r)/build
KREL ?= $(shell uname -r)
else
KREL ?= $(shell cat $(FQ_CACHE)/vm-abi-$(FQ_VM_KERNEL) 2>/dev/null)
# headers unpacked by make setup next to the kernel they belong to
KDIR := $(FQ_CACHE)/kernel/$(KREL)/build
endif
else
# the release the tree was built for, as modules_install would name it
KREL ?= $(shell sed -n 's/.*UTS_RELEASE "\(.*\)"/\1/p' $(KDIR)/include/generated/utsrelease.h 2>/dev/null)
endif

MULTIARCH := $(shell dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || $(CC) -print-multiarch)
PREFIX ?= /usr/local
TC_LIB_DIR ?= /usr/lib/$(MULTIARCH)/tc
IP_LIB_DIR ?= /usr/lib/$(MULTIARCH)/ip
MODULE_DIR = /lib/modules/$(KREL)/updates/fabric-qos

B := build
W ?= 1
CC ?= cc
USER_CFLAGS := -O2 -g -Wall -Wextra -Wno-unused-parameter -std=gnu11 \
	-D_GNU_SOURCE -Ikernel/include/uapi -Ikernel -Iuserspace/lib $(CFLAGS)
USER_LDLIBS := -Wl,--as-needed -lmnl -lm
CORE_HEADERS := $(wildcard kernel/core/*.h kernel/include/uapi/linux/*.h)

TOOLS := $(patsubst userspace/%.c,$(B)/bin/%,$(wildcard userspace/*.c)) $(B)/bin/qsim \
	$(B)/bin/fabric-meter $(B)/bin/fabric-replay $(B)/bin/fabric-send
QSIM_SOURCES := $(wildcard userspace/qsim/*.c)
METER_SOURCES := $(wildcard userspace/fabric-meter/*.c)
REPLAY_SOURCES := $(wildcard userspace/fabric-replay/*.c)
SEND_SOURCES := $(wildcard userspace/fabric-send/*.c)
TC_PLUGINS := $(patsubst tc/%.c,$(B)/tc/%.so,$(wildcard tc/q_*.c))
IP_PLUGINS := $(patsubst tc/%.c,$(B)/tc/%.so,$(wildcard tc/link_*.c))
UNIT_TESTS := $(patsubst selftests/unit/%.c,$(B)/selftests/unit/%,$(wildcard selftests/unit/test_*.c))
VM_HELPERS := $(patsubst selftests/vm/%.c,$(B)/selftests/vm/%,$(wildcard selftests/vm/*.c))

.PHONY: all modules userspace plugins selftests-build setup setup-if-needed \
	check check-locked check-debug check-debug-locked bench bench-locked demo demo-locked recn-demo recn-demo-locked fbs-demo fbs-demo-locked build-quiet \
	profile profile-locked fuzzers fuzz \
	install install-files \
	clean help

all: modules userspace plugins selftests-build

help:
	@sed -n '3,21s/^# \{0,1\}//p' Makefile

kdir-ready:
	@if [ ! -f "$(KDIR)/Makefile" ]; then \
		echo "fabric-qos: no kernel build tree at '$(KDIR)'." >&2; \
		echo "  run 'make setup' (VM kernel headers) or pass KDIR=/lib/modules/\$$(uname -r)/build" >&2; \
		exit 1; fi
.PHONY: kdir-ready

# Kernels built with CONFIG_DEBUG_INFO_BTF_MODULES whose headers ship
# vmlinux (Debian's 6.12) make BTF for each module with pahole, from the
# package dwarves, which the headers package does not depend on.  Without
# pahole the modules are built without BTF (they load the same; only BTF
# users such as bpftrace miss their types) rather than not at all.
PAHOLE ?= pahole
KBUILD_BTF = $(if $(shell command -v $(PAHOLE) 2>/dev/null),PAHOLE=$(PAHOLE),CONFIG_DEBUG_INFO_BTF_MODULES=)

# Objects built for another kernel go first: Kbuild would keep some.  So
# do objects built outside scripts/check.sh when it builds (FQ_CHECK_BUILD
# =1): it reads the modules' warnings from its own build's log, and an
# object built before, with the same flags, would not be compiled again,
# its warnings gone with that build's log.  check.sh removes
# kernel/.built-for when it found warnings, so that the next check
# compiles everything again and finds them again.
# Another build after a check's keeps its objects (scripts/mkinitramfs.sh
# installs them: wiping them there compiled every module twice more per
# check); only if it compiled one does the tag lose "(make check)".  The
# check's build touches the tag after Kbuild, so that an object newer
# than the tag was compiled by some other build.
BUILT_FOR = $(KDIR)$(if $(FQ_CHECK_BUILD), (make check))
modules: kdir-ready
	@tag=$$(cat kernel/.built-for 2>/dev/null); \
	if [ "$$tag" != "$(BUILT_FOR)" ] && \
		{ [ -n "$(FQ_CHECK_BUILD)" ] || [ "$$tag" != "$(KDIR) (make check)" ]; }; then \
		rm -f kernel/*.o kernel/*.ko kernel/*.mod kernel/*.mod.c kernel/.*.cmd \
			kernel/modules.order modules.order Module.symvers; \
		echo "$(BUILT_FOR)" > kernel/.built-for; fi
	@$(MAKE) -C $(KDIR) M=$(CURDIR) W=$(W) $(KBUILD_BTF) modules; rc=$$?; \
	if [ -n "$(FQ_CHECK_BUILD)" ] || \
		find kernel -maxdepth 1 -name '*.o' -newer kernel/.built-for | grep -q .; then \
		echo "$(BUILT_FOR)" > kernel/.built-for; fi; \
	exit $$rc

userspace: $(TOOLS)
plugins: $(TC_PLUGINS) $(IP_PLUGINS)
selftests-build: $(UNIT_TESTS) $(VM_HELPERS) $(B)/bench/core_cost \
	$(B)/selftests/tc/plugin_json_keys

# The tools' common code (userspace/lib), compiled once into an archive
# that every tool links: each tool used to compile all of it again, a
# fifth of the tree's build.
LIB_OBJS := $(patsubst userspace/lib/%.c,$(B)/lib/%.o,$(wildcard userspace/lib/*.c))
LIBFQ := $(B)/lib/libfabricqos.a
$(B)/lib/%.o: userspace/lib/%.c $(CORE_HEADERS) $(wildcard userspace/lib/*.h)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -c -o $@ $<
$(LIBFQ): $(LIB_OBJS)
	rm -f $@ && $(AR) rcs $@ $^

$(B)/bin/%: userspace/%.c $(CORE_HEADERS) $(wildcard userspace/lib/*.h) $(LIBFQ)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $< $(LIBFQ) $(USER_LDLIBS)

# qsim: one file per family of disciplines (userspace/qsim/qsim.h)
$(B)/bin/qsim: $(QSIM_SOURCES) userspace/qsim/qsim.h $(CORE_HEADERS) $(wildcard userspace/lib/*.h) $(LIBFQ)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Iuserspace/qsim -o $@ $(QSIM_SOURCES) $(LIBFQ) $(USER_LDLIBS)

# fabric-meter: one file per job (userspace/fabric-meter/fabric-meter.h)
$(B)/bin/fabric-meter: $(METER_SOURCES) userspace/fabric-meter/fabric-meter.h $(CORE_HEADERS) \
		$(wildcard userspace/lib/*.h) $(LIBFQ)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $(METER_SOURCES) $(LIBFQ) $(USER_LDLIBS)

# fabric-send: one file per job (userspace/fabric-send/fabric-send.h)
$(B)/bin/fabric-send: $(SEND_SOURCES) userspace/fabric-send/fabric-send.h $(CORE_HEADERS) \
		$(wildcard userspace/lib/*.h) $(LIBFQ)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $(SEND_SOURCES) $(LIBFQ) $(USER_LDLIBS)

# fabric-replay: the RECN trace on live hosts (userspace/fabric-replay/fabric-replay.h)
$(B)/bin/fabric-replay: $(REPLAY_SOURCES) userspace/fabric-replay/fabric-replay.h \
		userspace/lib/recn_trace.c userspace/lib/recn_trace.h userspace/lib/cli_util.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $(REPLAY_SOURCES) userspace/lib/recn_trace.c $(USER_LDLIBS)

# host-side cost of the portable cores, counted with callgrind by make bench
$(B)/bench/core_cost: selftests/bench/core_cost.c $(CORE_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $<

# tc/*.h: the iproute2 6.1 ABI the plugins declare ourselves (tc_abi.h...)
$(B)/tc/%.so: tc/%.c $(wildcard tc/*.h) $(CORE_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -fPIC -shared -o $@ $<

# Loads a tc plugin as tc does (host/tc_json_keys): -rdynamic, so that the
# plugin finds the iproute2 helpers in the program.
$(B)/selftests/tc/plugin_json_keys: selftests/tc/plugin_json_keys.c $(wildcard tc/*.h) $(CORE_HEADERS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -rdynamic -o $@ $<

# The unit tests run the portable cores, the code the modules run, under
# AddressSanitizer and UndefinedBehaviorSanitizer: an index out of bounds
# or an overflowing shift stops the test where the kernel would go on.
# UNIT_SANITIZE= builds them without (make clean first: make does not see
# a change of flags).
UNIT_SANITIZE ?= -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
# -O1, as for the fuzz targets: under the sanitizers -O2 took 124 s of CPU
# to build the unit tests (test_aoq_core alone 30 s) and -O1 75 s, where
# running them all takes some 30 s at either level.
UNIT_OPT ?= -O1
$(B)/selftests/unit/%: selftests/unit/%.c $(wildcard selftests/unit/*.h) $(CORE_HEADERS) $(wildcard userspace/lib/*.h userspace/lib/*.c)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(UNIT_OPT) $(UNIT_SANITIZE) -Iselftests/unit -o $@ $< -lm

# Fuzz targets of the portable cores (selftests/fuzz/): libFuzzer, which
# only clang has, with the unit tests' sanitizers.  make check runs each a
# fixed number of inputs (host/fuzz_cores); make fuzz runs them at length.
FUZZ_CC ?= clang
FUZZ_CFLAGS := -O1 -g -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-Wall -Wextra -Wno-unused-parameter -std=gnu11 -D_GNU_SOURCE \
	-Ikernel/include/uapi -Ikernel -Iselftests/fuzz
FUZZERS := $(patsubst selftests/fuzz/%.c,$(B)/fuzz/%,$(wildcard selftests/fuzz/fuzz_*.c))
fuzzers: $(FUZZERS)
# what the tests build besides all: the fuzz targets, where clang is
FUZZERS_IF_CLANG = $(if $(shell command -v $(FUZZ_CC) 2>/dev/null),fuzzers)
$(B)/fuzz/%: selftests/fuzz/%.c selftests/fuzz/fuzz.h $(wildcard selftests/unit/*.h) $(CORE_HEADERS)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $<

# No VM: the fuzz targets run on the host, one after the other.
fuzz: fuzzers
	@scripts/fuzz.sh '$(F)' '$(or $(FUZZ_TIME),600)'

# The VM tests' helpers are linked statically: under TCG a program of
# glibc's shared libraries takes ~60 ms more to start than a static one,
# and the tests start them thousands of times.  Those that use libmnl
# (no static archive in Debian) stay dynamic.
vm_helper_link = $(if $(shell grep -l 'libmnl' $(1)),$(USER_LDLIBS),-static -lm)
# a helper that reads netlink acks shares the tools' reader, one that
# talks to fabric_hdr's family the tools' socket (which reads acks too)
vm_helper_srcs = $(if $(shell grep -l '"nl_ack.h"\|"fabric_genl.h"' $(1)),userspace/lib/nl_ack.c) \
	$(if $(shell grep -l '"fabric_genl.h"' $(1)),userspace/lib/fabric_genl.c)
$(B)/selftests/vm/%: selftests/vm/%.c $(CORE_HEADERS) $(wildcard userspace/lib/*.h) \
		userspace/lib/nl_ack.c userspace/lib/fabric_genl.c
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $< $(call vm_helper_srcs,$<) $(call vm_helper_link,$<)

# The kernels a target needs: check runs the default pair unless
# VM_KERNEL names one; the others use VM_KERNEL or 6.1.
SETUP_KERNELS = $(or $(VM_KERNEL),$(if $(filter check check-locked,$(MAKECMDGOALS)),6.1 6.12,6.1))

setup:
	@scripts/setup.sh $(VM_KERNEL)

# quick when everything is there: dpkg queries and file checks only
setup-if-needed:
	@scripts/setup.sh --check $(SETUP_KERNELS) || scripts/setup.sh $(SETUP_KERNELS)

# A sub-make so KDIR is read after setup has written the VM kernel's ABI.
# One check at a time per tree: the build, build/ and the VM are shared.
check: $(if $(LIVE),,setup-if-needed)
	@mkdir -p $(B)
	@flock $(B)/.check.lock $(MAKE) --no-print-directory check-locked

# The suite on a kernel built to find bugs (KASAN, lockdep, kmemleak...):
# scripts/debug-kernel.sh builds it once into FQ_CACHE; our modules are
# built against it, so the next plain check rebuilds them.
check-debug: setup-if-needed
	@mkdir -p $(B)
	@flock $(B)/.check.lock $(MAKE) --no-print-directory check-debug-locked

# Two passes: the whole suite with short fuzzing, then the fuzzers at
# length (a million frames, about 10^5 configuration changes); KASAN and
# lockdep slow the VM down several times, so its timeouts stretch, every
# guest gets fq.slow=1, and the deterministic tests' VM boots as the fast
# one does (FQ_VM_SLOW, scripts/check.sh).
# DEBUG_PASS=suite or DEBUG_PASS=fuzz runs only that one (on 2 cores the
# two take longer than one sitting: Documentation/debug-kernel.rst).
DEBUG_FUZZ = fq.fuzz_frames=1000000 fq.tc_fuzz_ops=12000 fq.tc_fuzz_rounds=5
DEBUG_PASS ?=
ifneq ($(filter-out suite fuzz,$(DEBUG_PASS)),)
$(error DEBUG_PASS=$(DEBUG_PASS): want suite or fuzz)
endif
check-debug-locked:
	@rel=$$(scripts/debug-kernel.sh) && \
	$(MAKE) --no-print-directory build-quiet KREL=$$rel && \
	export FQ_VM_ABI=$$rel FQ_VM_MEM=2048 FQ_VM_SLOW=1 && \
	{ [ '$(DEBUG_PASS)' = fuzz ] || FQ_VM_TIMEOUT_SCALE=4 scripts/check.sh '$(T)'; } && \
	{ [ '$(DEBUG_PASS)' = suite ] || FQ_VM_TIMEOUT_SCALE=40 FQ_VM_APPEND="$(DEBUG_FUZZ)" \
		scripts/check.sh '$(or $(T),vm/(fabric_fuzz|tc_fuzz))'; }

# Benchmarks boot the VM too: the same lock, so two VMs never run at once.
bench: setup-if-needed
	@mkdir -p $(B)
	@flock $(B)/.check.lock $(MAKE) --no-print-directory bench-locked

# A benchmark case's instructions by kernel function (scripts/profile.sh):
# make profile P="CASE PATH FLOWS CLASSES [PACKETS]" [TAG=NAME]
profile: setup-if-needed
	@mkdir -p $(B)
	@flock $(B)/.check.lock $(MAKE) --no-print-directory profile-locked

profile-locked: build-quiet
	@scripts/profile.sh '$(P)' '$(TAG)'

# The demo boots the deterministic VM (or, with LIVE=1, runs on this host).
demo: setup-if-needed
	@mkdir -p $(B)
	@flock $(B)/.check.lock $(MAKE) --no-print-directory demo-locked

# S=recn, or no S: also the RECN measurements in qsim (scripts/recn-demo.sh)
demo-locked: build-quiet
	@$(if $(filter-out recn,$(S)),scripts/demo.sh $(if $(LIVE),--live) $(filter-out recn,$(S)),$(if $(S),true,scripts/demo.sh $(if $(LIVE),--live)))
	@$(if $(or $(if $(S),,all),$(filter recn,$(S))),scripts/recn-demo.sh $(if $(LIVE),,--vm),true)

# RECN in qsim alone: no VM (Documentation/recn.rst); VM=1: also in the VM
ifneq ($(VM),1)
recn-demo: $(B)/bin/qsim
	@scripts/recn-demo.sh
else
recn-demo: setup-if-needed
	@mkdir -p $(B)
	@flock $(B)/.check.lock $(MAKE) --no-print-directory recn-demo-locked
endif

recn-demo-locked: build-quiet
	@scripts/recn-demo.sh --vm

fbs-demo: setup-if-needed
	@mkdir -p $(B)
	@flock $(B)/.check.lock $(MAKE) --no-print-directory fbs-demo-locked

fbs-demo-locked: build-quiet
	@scripts/fbs-demo.sh

# The quiet build behind check, bench and demo uses every core (a serial
# build took 48 s of the check's critical path on 2 cores, -j2 28 s),
# unless the caller's own -j already shares its jobs; each target's
# output stays together in the log (a warning with its context).
NPROC := $(shell nproc 2>/dev/null || echo 1)
build-quiet:
	@$(MAKE) --no-print-directory $(if $(findstring jobserver,$(MAKEFLAGS)),,-j$(NPROC)) \
		--output-sync=target all $(FUZZERS_IF_CLANG) >$(B)/make.log 2>&1 || \
		{ cat $(B)/make.log; echo "fabric-qos: build failed" >&2; exit 1; }

# needs gnuplot (gnuplot-nox); the outputs are committed, so the build does not
aoq-plots: $(B)/bin/qsim
	@scripts/aoq-plots.sh $(B)/bin/qsim
.PHONY: aoq-plots

# check.sh builds the modules for each kernel it boots
# The tree's own build is the check's build for its first kernel (the
# default VM_KERNEL): compiled once, as check.sh would (W=1, tagged), and
# its log kept for check.sh, which finds the modules' warnings there and
# the tools' and plugins' (its own build of that kernel compiles nothing).
check-locked:
	@$(MAKE) --no-print-directory build-quiet $(if $(LIVE),,W=1 FQ_CHECK_BUILD=1)
	@cp $(B)/make.log $(B)/check-build.log
	@FQ_LIVE=$(if $(LIVE),1,0) FQ_CHECK_KERNELS="$(or $(VM_KERNEL),6.1 6.12)" \
		scripts/check.sh '$(T)'

bench-locked: build-quiet
	@scripts/bench.sh '$(T)'

# Files only, no depmod: used by `make install` and by the VM image.
install-files: all
	@test -n "$(KREL)" || { echo "fabric-qos: unknown kernel release; set KDIR" >&2; exit 1; }
	install -d $(DESTDIR)$(MODULE_DIR) $(DESTDIR)$(PREFIX)/bin \
		$(DESTDIR)$(TC_LIB_DIR) $(DESTDIR)$(IP_LIB_DIR) \
		$(DESTDIR)$(PREFIX)/include/linux
	install -m 644 kernel/*.ko $(DESTDIR)$(MODULE_DIR)/
	$(if $(TOOLS),install -m 755 $(TOOLS) $(DESTDIR)$(PREFIX)/bin/)
	$(if $(TC_PLUGINS),install -m 644 $(TC_PLUGINS) $(DESTDIR)$(TC_LIB_DIR)/)
	$(if $(IP_PLUGINS),install -m 644 $(IP_PLUGINS) $(DESTDIR)$(IP_LIB_DIR)/)
	install -m 644 kernel/include/uapi/linux/*.h $(DESTDIR)$(PREFIX)/include/linux/

install: install-files
	$(if $(DESTDIR),,depmod -a $(KREL))

clean:
	-[ -f "$(KDIR)/Makefile" ] && $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(B)
