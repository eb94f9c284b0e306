# SPDX-License-Identifier: GPL-2.0
#
# kprof top-level Makefile.  `make` builds kmod/kprof.ko and user/kprofcat.
# KDIR selects the kernel tree; without one for the running kernel we build
# against the Debian 6.1 cloud headers of the test bed (see scripts/deps).
#
#   make demo    boot the 6.1 test-bed VM, profile tests/progs/demo with kprofcat
#   make check   host tests + the in-guest suite on every test-bed kernel
#                (VM_KERNELS: 6.1, 6.12, newest, 6.1-rt, debug), through prove
#   make check-quick  the same on 6.1 only, for iteration
#   make lint    checkpatch --strict on all C (user/ and tests/ in its
#                user-space mode), sparse on the kernel code
#   make dkms-check  dkms builds kprof.ko for both test-bed kernels (no install)
#   make install     kprofcat, its man page and the module's source for DKMS
#                    (PREFIX, DESTDIR); make uninstall removes them
#   make deb     Debian packages kprof-dkms and kprofcat in build/deb/,
#                checked by lintian
#   make deb-check   make deb in a pristine Debian 12 root, apt-get install,
#                    DKMS's kprof.ko in the 6.1 guest (also in check)
#   make deps    install/fetch what all of this needs (scripts/deps)
# Each target installs or builds what it needs the first time it runs
# (scripts/deps --build, --demo, --quick or all of it; see below).

KPROF_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/kprof
export KPROF_CACHE

# The test-bed kernels (tests/vm/run --kernel): Debian 12's 6.1 and 6.12
# cloud kernels, the newest cloud kernel Debian ships (7.x, built in a
# chroot), Debian 12's 6.1 PREEMPT_RT, the debug kernel (Debian's 6.1
# source and cloud config with KASAN, lockdep, UBSAN, KFENCE, kmemleak,
# fault injection...) and the kcsan one (the same with KCSAN in place of
# KASAN, lockdep and kmemleak), both built by scripts/debug-kernel.
VM_KERNELS := 6.1 6.12 newest 6.1-rt debug kcsan

# The deps rule below comes before `all`; plain `make` still means all.
.DEFAULT_GOAL := all

ifeq ($(origin KDIR),undefined)
  ifneq ($(wildcard /lib/modules/$(shell uname -r)/build/Makefile),)
    KDIR := /lib/modules/$(shell uname -r)/build
  else
    # The headers scripts/deps installs: the cloud meta-package's target.
    KDIR := /usr/src/$(firstword $(shell dpkg-query -W -f='$${Depends}' \
		linux-headers-cloud-amd64 2>/dev/null))
  endif
endif

# CI builds with warnings as errors: W=1 -Werror for the module, -Werror
# for userspace (tests/Makefile always uses -Werror).
ifneq ($(CI),)
  KPROF_WERROR := 1
endif
export KPROF_WERROR
KBUILD_WERROR := $(if $(KPROF_WERROR),KCFLAGS=-Werror)

# What each entry target needs, from least to most; when something its
# goals need is missing, scripts/deps installs that level first:
#   build  `make`, kmod, user: compilers, libdw, kernel headers
#   deb    `make deb`: build's packages but no kernel headers, debhelper,
#          dh-dkms, lintian, git
#   demo   `make demo`: + QEMU, busybox and the 6.1 kernel image
#   quick  `make check-quick`: + the test and lint tools, linux-source-6.1
#   full   everything else (check, bench, experiment, dkms-check,
#          deb-check, deps):
#          every test-bed kernel, the newest's chroot, the debug and
#          kcsan kernels
# scripts/deps writes a kernel's build.env once its image, headers and
# build chroot (if any) are in place; scripts/kbuild checks the headers.
# The debug and kcsan kernels are complete once their slowdown is measured.
kernel_ok = $(and $(wildcard $(KPROF_CACHE)/kernels/$(1)/current/vmlinuz), \
	$(wildcard $(KPROF_CACHE)/kernels/$(1)/current/build.env), \
	$(if $(filter debug kcsan,$(1)),$(wildcard $(KPROF_CACHE)/kernels/$(1)/current/slowdown),ok))
MISSING_KERNELS := $(strip $(foreach k,$(VM_KERNELS),$(if $(call kernel_ok,$(k)),,$(k))))
USER_OK := $(and $(wildcard /usr/include/elfutils/libdwfl.h), \
	$(wildcard /usr/include/elfutils/debuginfod.h), $(shell command -v cc), \
	$(wildcard /usr/include/protobuf-c/protobuf-c.h), $(shell command -v protoc-c))
BUILD_OK := $(and $(wildcard $(KDIR)/Makefile), $(USER_OK))
DEB_OK := $(and $(USER_OK), $(shell command -v dpkg-buildpackage), \
	$(shell command -v dh_dkms), $(shell command -v lintian), $(shell command -v git))
DEMO_OK := $(and $(BUILD_OK), $(call kernel_ok,6.1), \
	$(shell command -v qemu-system-x86_64), $(shell command -v busybox), \
	$(shell command -v cpio), $(shell command -v file), $(shell command -v modinfo))
QUICK_OK := $(and $(DEMO_OK), \
	$(wildcard $(KPROF_CACHE)/linux-source-6.1/scripts/checkpatch.pl), \
	$(shell command -v sparse), $(shell command -v prove), \
	$(shell command -v perf), $(shell command -v go), $(shell command -v rsvg-convert), \
	$(shell command -v chromium), $(shell command -v debuginfod), $(shell command -v node))
DEPS_OK := $(and $(QUICK_OK), $(if $(MISSING_KERNELS),,kernels), \
	$(shell command -v dkms), $(shell command -v mmdebstrap))

# A fresh machine has none of the above, and the values computed from the
# cache (KDIR, the kernel releases) are only right once it is filled.  So
# when something is missing, every entry target first runs scripts/deps
# through an included makefile: make remakes it, then restarts and reads
# this file again with the cache in place.  One restart at most
# (MAKE_RESTARTS), so a deps run that leaves something missing fails in
# the build that needs it instead of looping.  KPROF_NO_DEPS=1 never runs
# it: debian/rules's `make install` sets it, since in a package build the
# Build-Depends say what is needed and dpkg-buildpackage checks them.
GOALS := $(or $(MAKECMDGOALS),all)
BUILD_GOALS := all kmod user clean install
DEMO_GOALS := $(BUILD_GOALS) demo
QUICK_GOALS := $(DEMO_GOALS) check-quick tests checkpatch
ifneq ($(KPROF_NO_DEPS),)
  DEPS_RUN :=
else ifeq ($(filter-out $(BUILD_GOALS),$(GOALS)),)
  DEPS_RUN := $(if $(BUILD_OK),,scripts/deps --build)
else ifeq ($(filter-out deb,$(GOALS)),)
  DEPS_RUN := $(if $(DEB_OK),,scripts/deps --deb)
else ifeq ($(filter-out $(DEMO_GOALS),$(GOALS)),)
  DEPS_RUN := $(if $(DEMO_OK),,scripts/deps --demo)
else ifeq ($(filter-out $(QUICK_GOALS),$(GOALS)),)
  DEPS_RUN := $(if $(QUICK_OK),,scripts/deps --quick)
else ifneq ($(filter-out deps clean uninstall,$(GOALS)),)
  DEPS_RUN := $(if $(DEPS_OK),,scripts/deps)
endif
# A dry run (make -n) says what would be done and installs nothing, yet
# make remakes an included makefile even then: no deps run under it.
ifneq ($(findstring n,$(firstword -$(MAKEFLAGS))),)
  DEPS_RUN :=
endif
ifneq ($(DEPS_RUN),)
ifeq ($(MAKE_RESTARTS),)
-include build/deps-ran.mk
endif
endif
.PHONY: FORCE
build/deps-ran.mk: FORCE
	@echo "make: dependencies missing; running $(DEPS_RUN) first" >&2
	@$(DEPS_RUN)
	@mkdir -p build && echo '# $(DEPS_RUN) ran; see the top-level Makefile' >$@

# Where tests/ builds its programs (tests/Makefile's OUTPUT, as kselftest's
# OUTPUT=): build/tests, or KPROF_TEST_OUTPUT, which the scripts that run
# them (tests/vm/run, bench/, tests/experiments/) read too.
KPROF_TEST_OUTPUT ?= $(CURDIR)/build/tests
override KPROF_TEST_OUTPUT := $(abspath $(KPROF_TEST_OUTPUT))
export KPROF_TEST_OUTPUT
TEST_OUT := $(patsubst $(CURDIR)/%,%,$(KPROF_TEST_OUTPUT))
HOST_TESTS := $(patsubst tests/%.c,$(TEST_OUT)/%,$(wildcard tests/host/*_test.c))
CHECKPATCH := $(KPROF_CACHE)/linux-source-6.1/scripts/checkpatch.pl
LINT_FILES = $(filter-out %.mod.c,$(wildcard kmod/*.[ch] common/*.h \
	include/uapi/linux/*.h tests/vm/warn/*.c \
	tests/testpmu/*.c))
# Userspace C: kprofcat (the generated protobuf code aside), and the tests.
USER_LINT_FILES = $(filter-out %.pb-c.c %.pb-c.h,$(wildcard user/*/*.[ch] \
	user/*/*/*.[ch]))
TEST_LINT_FILES = $(wildcard tests/lib/*.[ch] tests/host/*.c tests/module/*.c \
	tests/progs/*.c tests/experiments/*.c)
# checkpatch's user-space mode: not findings here are the kernel's own
# conventions userspace does not have (u32, ARRAY_SIZE, BIT, __printf,
# fallthrough, kstrto*: PREFER_KERNEL_TYPES ... SSCANF_TO_KSTRTO), other
# libraries' names (libdw's and protobuf-c's CamelCase and typedefs),
# format strings kept whole for grep (LONG_LINE_STRING), perf script's own
# output format (a space before a newline), volatile sig_atomic_t, usage()
# in its usage text and ring.c's per-architecture barrier.
USER_LINT_IGNORE := PREFER_KERNEL_TYPES,ARRAY_SIZE,BIT_MACRO,\
	PREFER_DEFINED_ATTRIBUTE_MACRO,PREFER_FALLTHROUGH,SSCANF_TO_KSTRTO,\
	CAMELCASE,NEW_TYPEDEFS,LONG_LINE_STRING,QUOTED_WHITESPACE_BEFORE_NEWLINE,\
	VOLATILE,EMBEDDED_FUNCTION_NAME,ARCH_DEFINES
# In the tests, also kselftest's idioms: macros that return from the test
# (as the harness's own do), declare fixture variants, iterate as
# for_each does, or assert on their arguments; braces around an
# EXPECT/ASSERT (each is two statements), sscanf() checked by one,
# expected output that repeats a word, and a program's own asm labels.
TEST_LINT_IGNORE := $(USER_LINT_IGNORE),MACRO_WITH_FLOW_CONTROL,\
	COMPLEX_MACRO,MULTISTATEMENT_MACRO_USE_DO_WHILE,MACRO_ARG_REUSE,\
	BRACES,NAKED_SSCANF,REPEATED_WORD,AVOID_EXTERNS

.PHONY: all kmod user tests deps check check-quick lint checkpatch sparse layering demo experiment \
	bench clean dkms-check install uninstall deb deb-check

all: kmod user

deps:
	@scripts/deps

kmod: | $(if $(wildcard $(KDIR)/Makefile),,deps)
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 $(KBUILD_WERROR) modules

user:
	$(MAKE) -C user

# Test programs, into $(KPROF_TEST_OUTPUT); they link user/libkprof.a.
tests: $(if $(wildcard user/Makefile),user)
	$(MAKE) -C tests OUTPUT=$(KPROF_TEST_OUTPUT)

# `make lint` first (it is fast), then prove runs every entry as a program
# (scripts/check-run: each entry's output is kept in build/check/, and a
# failed run ends naming each failed entry with its log's last lines):
# the host test binaries, the test bed's own tests, one VM boot per kernel
# running the whole in-guest suite (tests/vm/suite), one on the icount
# clock running the throttle and cost tests (tests/vm/kernel-6.1-icount),
# and one more 6.1 boot, as `make experiment` boots it, running the
# experiment script's refusals and restore (tests/experiments/safety-vm).
# tests/vm/run builds the module for each kernel under build/<series>/;
# building them all first makes a compile error show before any VM boots.
# tests/host/convert-check comes last: it also reads back the guest
# captures the kernel entries exported.  check-quick is the same on 6.1
# alone.
check: tests lint
	@for k in $(VM_KERNELS); do tests/vm/run --kernel $$k --testpmu --build-only || exit; done
	PROVE_FLAGS='$(PROVE_FLAGS)' scripts/check-run $(HOST_TESTS) tests/vm/selftest tests/vm/testpmu-selftest \
		tests/host/dkms-check tests/host/install-check tests/host/deb-check tests/host/arch-check tests/host/production-check tests/host/report-check \
		tests/host/browser-check tests/experiments/safety-vm \
		$(addprefix tests/vm/kernel-,$(VM_KERNELS)) tests/vm/kernel-6.1-icount \
		tests/host/convert-check

check-quick: tests lint
	KPROF_SELFTEST_KERNELS=6.1 PROVE_FLAGS='$(PROVE_FLAGS)' scripts/check-run $(HOST_TESTS) tests/host/arch-check tests/host/install-check \
		tests/host/production-check tests/host/report-check \
		tests/host/browser-check tests/vm/selftest tests/experiments/safety-vm tests/vm/kernel-6.1

lint: checkpatch sparse layering

# No circle and no upward edge among the files of kmod/ and user/, nor
# among user/'s folders (includes by gcc -MM, calls by nm on the objects).
layering: kmod user
	scripts/layering

# dkms.conf through dkms add/build/remove for both test-bed kernels, in a
# temporary dkms tree: nothing installed, nothing loaded (also in check).
dkms-check:
	tests/host/dkms-check

# make deb in a pristine Debian 12 root from a clone, lintian, apt-get
# install of the packages, DKMS's kprof.ko loaded in the 6.1 guest (also
# in check; mmdebstrap, mount and chroot run as root, through sudo for
# another user).
deb-check:
	tests/host/deb-check

# kprofcat and its man page go under $(DESTDIR)$(PREFIX); the module's
# source goes where DKMS looks for a package's source, whatever the
# prefix: $(DESTDIR)/usr/src/kprof-VERSION, ready for `dkms add`.  Neither
# target runs dkms: registering the module builds and installs it for
# every kernel with headers, root's decision (and a DESTDIR is no system),
# so install prints the commands, and uninstall the one that unregisters
# the module its source built.
PREFIX ?= /usr/local
KPROF_VERSION := $(shell cat VERSION)
DKMS_SRC := /usr/src/kprof-$(KPROF_VERSION)
# What a DKMS build reads: dkms.conf and the VERSION it reads, the top
# Kbuild (obj-m += kmod/), kmod/ and the headers it includes from
# include/uapi and common/ (tests/host/dkms-check builds from the same).
DKMS_FILES = dkms.conf VERSION Kbuild kmod/Kbuild \
	$(filter-out %.mod.c,$(wildcard kmod/*.[ch])) \
	$(wildcard include/uapi/linux/*.h common/*.h)
DKMS_DIRS := kmod include/uapi/linux include/uapi include common
INSTALL_BIN := $(DESTDIR)$(PREFIX)/bin/kprofcat
INSTALL_MAN := $(DESTDIR)$(PREFIX)/share/man/man1/kprofcat.1

install: user
	install -D -m 0755 user/kprofcat $(INSTALL_BIN)
	install -D -m 0644 user/kprofcat.1 $(INSTALL_MAN)
	@set -e; for f in $(DKMS_FILES); do \
		install -D -m 0644 $$f $(DESTDIR)$(DKMS_SRC)/$$f; done
	@echo "kprof: module source in $(DESTDIR)$(DKMS_SRC); to build kprof.ko for every"
	@echo "kernel with headers, and again when a new kernel's headers arrive:"
	@echo "  sudo dkms add kprof/$(KPROF_VERSION)"
	@echo "  sudo dkms build kprof/$(KPROF_VERSION)"
	@echo "  sudo dkms install kprof/$(KPROF_VERSION)"
	@echo "  sudo modprobe kprof"

uninstall:
	@echo "kprof: DKMS builds kprof.ko from $(DKMS_SRC); if it still has kprof/$(KPROF_VERSION):"
	@echo "  sudo dkms remove kprof/$(KPROF_VERSION) --all"
	rm -f $(INSTALL_BIN) $(INSTALL_MAN)
	rm -f $(addprefix $(DESTDIR)$(DKMS_SRC)/,$(DKMS_FILES))
	@set -e; for d in $(addprefix $(DESTDIR)$(DKMS_SRC)/,$(DKMS_DIRS)) $(DESTDIR)$(DKMS_SRC); do \
		if [ -d $$d ]; then rmdir $$d; fi; done

# Debian packages, built with dpkg-buildpackage from a copy of the files
# git knows (tracked, and new ones not ignored) in build/deb/kprof-VERSION/,
# so the .debs and .changes land in build/deb/: kprof-dkms (the module's
# source, which DKMS builds for every kernel with headers where it is
# installed), kprofcat and kprofcat-dbgsym.  debian/changelog's version
# must be VERSION's.  lintian then checks them and fails on an error.
DEB_DIR := build/deb
deb:
	@v=$$(dpkg-parsechangelog -l debian/changelog -S Version) && \
	[ "$$v" = "$(KPROF_VERSION)" ] || { echo "make deb: debian/changelog is at" \
		"version $$v, VERSION says $(KPROF_VERSION): add an entry" \
		"(dch -v $(KPROF_VERSION))" >&2; exit 1; }
	@[ "$$(git rev-parse --show-toplevel 2>/dev/null)" = "$(CURDIR)" ] || { \
		echo "make deb: packs the files git lists, and $(CURDIR) is not" \
		"a git checkout of kprof: run it in a git clone" >&2; exit 1; }
	rm -rf $(DEB_DIR)
	mkdir -p $(DEB_DIR)/kprof-$(KPROF_VERSION)
	git ls-files -z --cached --others --exclude-standard | \
		xargs -0 cp -dp --parents -t $(DEB_DIR)/kprof-$(KPROF_VERSION)
	cd $(DEB_DIR)/kprof-$(KPROF_VERSION) && dpkg-buildpackage -b -us -uc
	lintian --fail-on error --info $(DEB_DIR)/kprof_$(KPROF_VERSION)_*.changes
	@ls -1 $(DEB_DIR)/*.deb

# LINUX_VERSION_CODE is ignored: an out-of-tree module that supports 6.1
# and 6.12 needs version checks, which in-tree code never does.
checkpatch:
	$(CHECKPATCH) --strict --no-tree --quiet --show-types \
		--ignore LINUX_VERSION_CODE -f $(LINT_FILES)
	$(CHECKPATCH) --strict --no-tree --quiet --show-types \
		--ignore $(subst $(eval) ,,$(USER_LINT_IGNORE)) -f $(USER_LINT_FILES)
	$(CHECKPATCH) --strict --no-tree --quiet --show-types \
		--ignore $(subst $(eval) ,,$(TEST_LINT_IGNORE)) -f $(TEST_LINT_FILES)

# Sparse (C=2: check every file, built or not) on every kernel's build
# tree (the newest's sparse is its chroot's); any warning fails.
# check-quick lints the 6.1 tree alone.
SPARSE_KERNELS = $(if $(filter check-quick,$(MAKECMDGOALS)),6.1,$(VM_KERNELS))
sparse:
	@set -e; log=build/sparse.log; mkdir -p build; : >$$log; \
	for k in $(SPARSE_KERNELS); do \
		tests/vm/run --kernel $$k --warn-module --testpmu --build-only; \
		for d in build/$$k build/$$k/warn build/$$k/testpmu; do \
			[ -f $$d/Kbuild ] || { echo "sparse: no $$d/Kbuild (no kmod/ yet?)"; continue; }; \
			echo "sparse: $$d" >>$$log; \
			scripts/kbuild $$k $$d -s C=2 W=1 modules >>$$log 2>&1 || \
				{ cat $$log; exit 1; }; \
		done; \
	done; \
	if grep -E 'warning:|error:' $$log; then exit 1; fi; \
	echo "sparse: clean on $(SPARSE_KERNELS)"

# The demo needs kprofcat and tests/progs/demo, not the test programs.
demo: user
	tests/vm/run --kernel 6.1 --no-tests -- tests/vm/demo

# kprof against stock perf in the test-bed VMs: tests/out/experiments/,
# its report index.html and report.md.  KERNELS picks the kernels (6.1,
# 6.12, newest, 6.1-rt); the guests run on QEMU's instruction counter
# (tests/vm/run --icount) unless CLOCK=plain.
KERNELS ?= 6.1 6.12 newest
CLOCK ?= icount
experiment: tests
	tests/experiments/run-vm --kernels "$(KERNELS)" $(if $(filter plain,$(CLOCK)),--plain,\
		$(if $(filter icount,$(CLOCK)),,$(error CLOCK=$(CLOCK): want icount or plain)))

# Benchmarks that print numbers against their perf peer; no pass/fail.
bench: tests
	bench/run $(BENCH_FLAGS)

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	-$(MAKE) -C user clean
	-$(MAKE) -C tests OUTPUT=$(KPROF_TEST_OUTPUT) clean
	rm -rf build
