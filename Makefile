# SPDX-License-Identifier: GPL-2.0
#
# kprof top-level Makefile.  `make` builds kmod/kprof.ko and user/kprofcat.
# KDIR selects the kernel tree; without one for the running kernel we build
# against the Debian 6.1 cloud headers of the test bed (see scripts/deps).

KPROF_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/kprof
export KPROF_CACHE

# Kernel release of each test-bed kernel, from the image cache.
kver = $(notdir $(realpath $(KPROF_CACHE)/kernels/$(1)/current))

ifeq ($(origin KDIR),undefined)
  ifneq ($(wildcard /lib/modules/$(shell uname -r)/build/Makefile),)
    KDIR := /lib/modules/$(shell uname -r)/build
  else
    KDIR := /usr/src/linux-headers-$(call kver,6.1)
  endif
endif

# CI builds with warnings as errors: W=1 for the module, -Werror here.
ifneq ($(CI),)
  KPROF_WERROR := 1
endif
export KPROF_WERROR

.PHONY: all kmod user deps clean

all: kmod user

deps:
	@scripts/deps

kmod: | $(if $(wildcard $(KDIR)/Makefile),,deps)
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

user:
	$(MAKE) -C user

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	$(MAKE) -C user clean
	rm -rf build
