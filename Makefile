# SPDX-License-Identifier: GPL-2.0
#
# encd: `make` builds the module, libenc, the tools and the selftests.
# `make check` runs every test in a QEMU VM; `make demo` forms a world there.
# `make install`, `make uninstall` and `make deb`: see tools/pkg/pkg.mk.
# KVER picks the kernel: the newest installed Debian 6.1 amd64 headers unless
# given (`make check KVER=6.12` takes the newest 6.12 one).

TOP := $(CURDIR)
BUILD := $(TOP)/build

kver_newest = $(shell ls -d /usr/src/linux-headers-$(1)*-amd64 2>/dev/null | \
	sed 's|.*/linux-headers-||' | grep -v -e cloud -e rt | sort -V | tail -n 1)
ifeq ($(KVER),)
KVER := $(call kver_newest,6.1.)
else ifeq ($(findstring -amd64,$(KVER)),)
override KVER := $(call kver_newest,$(KVER).)
endif
KDIR ?= /lib/modules/$(KVER)/build

ENCD_VERSION := 0.1
CC ?= cc
WARN := -Wall -Wextra -Werror -Wno-unused-parameter -Wmissing-prototypes
USER_CFLAGS := -O2 -g -std=gnu11 $(WARN) -D_GNU_SOURCE -I$(TOP)/uapi -I$(TOP)/lib/include

# The module is built out of tree per kernel, so lanes for two kernels can
# coexist: build/<kver>/ mirrors kmod/ and uapi/ with symlinks.
MODDIR := $(BUILD)/$(KVER)/kmod
MODULE := $(MODDIR)/encd.ko

.PHONY: all module clean deps
all: module lib tools selftests

module: $(MODULE)

# Test builds: `make ENCD_FAULT_INJECTION=y` adds kmod/fault.c (the debug lane
# builds so). The options a module was built with are kept next to it, so
# that building with other ones rebuilds it.
MODOPTS := $(MODDIR)/.encd-options
.PHONY: FORCE
$(MODOPTS): FORCE
	@mkdir -p $(MODDIR)
	@echo 'ENCD_FAULT_INJECTION=$(ENCD_FAULT_INJECTION)' | cmp -s - $@ || \
		echo 'ENCD_FAULT_INJECTION=$(ENCD_FAULT_INJECTION)' >$@

$(MODULE): $(wildcard kmod/*.c kmod/*.h kmod/Kbuild uapi/linux/*.h) $(MODOPTS)
	@test -n "$(KVER)" || { echo "no linux-headers-*-amd64 installed: run 'make deps'" >&2; exit 1; }
	@mkdir -p $(MODDIR) $(BUILD)/$(KVER)/uapi/linux
	@ln -sf $(TOP)/uapi/linux/*.h $(BUILD)/$(KVER)/uapi/linux/
	@for f in $(TOP)/kmod/*.c $(TOP)/kmod/*.h $(TOP)/kmod/Kbuild; do ln -sf $$f $(MODDIR)/; done
	$(MAKE) -C $(KDIR) M=$(MODDIR) modules

deps:
	@$(TOP)/tools/deps.sh

clean:
	rm -rf $(BUILD)

include lib/lib.mk
include tools/tools.mk
include selftests/selftests.mk
include selftests/neuron_fake/neuron_fake.mk
include tools/vm/vm.mk
include tools/bench/bench.mk
include tools/netlink/netlink.mk
include tools/pkg/pkg.mk
include tools/mutants/mutants.mk

# The kernel's coding style, by the kernel's own checker (compat.h must test
# the kernel version: that is what it is for), and well-formed kernel-doc.
.PHONY: checkpatch
checkpatch:
	@src=$$($(TOP)/tools/kernel-source.sh) && \
	$$src/scripts/checkpatch.pl --no-tree --quiet --ignore LINUX_VERSION_CODE \
		-f kmod/*.c kmod/*.h uapi/linux/*.h && \
	out=$$($$src/scripts/kernel-doc -none kmod/*.c kmod/*.h uapi/linux/*.h 2>&1) && \
	{ [ -z "$$out" ] || { echo "$$out"; false; }; }

# Every sentence kmod/ and lib/ can return is explained in
# Documentation/troubleshooting.rst.
.PHONY: check-docs
check-docs:
	@python3 $(TOP)/tools/check-troubleshooting.py

# tools/syzkaller/encd.txt describes the uapi as uapi/linux/encd.h has it.
.PHONY: check-syzkaller
check-syzkaller:
	@python3 $(TOP)/tools/syzkaller/check.py

# selftests/encd_peer, the tests' own peer, speaks the protocol of
# kmod/wire.h (its test programs check it again when they start).
.PHONY: check-peer-constants
check-peer-constants:
	@python3 -B $(TOP)/selftests/encd_peer/wire.py $(TOP)/kmod/wire.h
host-check: checkpatch check-docs check-ynl check-syzkaller check-peer-constants check-launch-env \
	check-rules

# The launcher environment's parser (lib/launch.c) needs nothing but libc:
# its selftest runs natively first, before any VM boots (and in each lane).
.PHONY: check-launch-env
check-launch-env: $(BUILD)/selftests/launch_env_test
	@$< >$<.log 2>&1 || { cat $<.log; exit 1; }; tail -n 1 $<.log

# The pure rules the module compiles (kmod/rules.h: departures; kmod/
# schedule.h: the trees, the hypercube, the barrier) are checked in user
# space, exhaustively and in seconds, before any VM boots (and in each lane).
.PHONY: check-rules
check-rules: $(BUILD)/selftests/departure_rules_test $(BUILD)/selftests/schedule_test
	@for t in $^; do \
		$$t >$$t.log 2>&1 || { cat $$t.log; exit 1; }; \
		echo "$${t##*/}: $$(tail -n 1 $$t.log | sed 's/^# //')$$(grep -o '[0-9]* states' $$t.log | \
			tail -n 1 | sed 's/^/, /')"; \
	done
