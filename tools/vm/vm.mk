# SPDX-License-Identifier: GPL-2.0
# tools/vm/: the test lanes, each a QEMU VM that loads encd (never the host).
#
#   make check [KVER=6.12] [TESTS="gcomm_test ..."]   Debian's kernel
#   make check-debug [TESTS=...]   a KASAN/lockdep/kmemleak kernel built from
#                                  linux-source-6.1 (cached in /var/cache/encd)
#   make demo                      tools/demo.sh (it loads encd) in a 6.1 VM
#
# VM_MEM, VM_DEBUG_MEM (MiB) and VM_TIMEOUT (seconds for the whole VM); each
# test program's own limit is in selftests/settings. Every lane installs its
# dependencies first, then builds, so each target re-runs make once deps are
# in place (KVER is only known once the headers are installed).

VM_DIR := $(TOP)/tools/vm
VM_MEM ?= 2048
# kmemleak's scans, two after every test program, take time in proportion
# to the VM's memory: twice as long with 2 GiB as with 1 GiB.
VM_DEBUG_MEM ?= 1024
VM_TIMEOUT ?= 1800
# KASAN, lockdep and those scans make the debug lane several times slower.
VM_DEBUG_TIMEOUT ?= 3600
# The skips each lane allows; any other skip fails it (run-tests.sh). The
# fail-nth programs need fault injection, which only the debug lane has: its
# kernel's (CONFIG_FAULT_INJECTION, FAILSLAB, FAIL_PAGE_ALLOC) for the
# allocation failures, its module's (ENCD_FAULT_INJECTION=y) for
# socket_failnth_test's socket and crypto failures. Debian's lanes allow
# those four to skip, the debug lane allows nothing to.
VM_ALLOW_SKIP := bootstrap_failnth_test failnth_test program_failnth_test socket_failnth_test
VM_DEBUG_ALLOW_SKIP :=
# Each Debian lane ends with the install test (tools/pkg/install-test.sh:
# the packages, DKMS building the module inside a VM for the lane's
# kernel), unless TESTS picks programs; VM_INSTALL= leaves it out, and
# `make check-install [KVER=6.12]` runs it alone.
VM_INSTALL ?= --install
# The worlds across VMs each Debian lane forms (unless TESTS picks
# programs): one of 2 VMs and one of 4, each VM a host of 4 ranks.
VM_MULTIHOST ?= 2 4
# The Slurm cluster of VMs (tools/slurm-cluster.sh: srun forms a world of
# 16 ranks on 4 nodes, then one task is killed) runs in the 6.1 lane only.
VM_SLURM ?= $(if $(findstring 6.1.,$(VM_KVER)),4)
# A KVER given on the command line ("6.12") reaches here as given: the lanes
# need the installed version's full name.
VM_KVER := $(if $(findstring -amd64,$(KVER)),$(KVER),$(call kver_newest,$(KVER).))

# Everything after deps runs in a second make: KVER (and what else the
# Makefile reads off the installed packages) is worked out when make starts,
# before deps has installed the headers on a fresh machine. The host's own
# checks (host-check: lints, the install tree, the native selftests) come
# first.
.PHONY: check check-debug demo host-check vm-check vm-check-debug vm-demo vm-kver
check: deps
	@$(MAKE) --no-print-directory host-check vm-check
check-debug demo: deps
	@$(MAKE) --no-print-directory vm-$@

vm-kver:
	@test -n "$(VM_KVER)" || { echo "no installed Debian kernel matches KVER=$(KVER)" >&2; exit 1; }
	@test -r /boot/vmlinuz-$(VM_KVER) || { echo "/boot/vmlinuz-$(VM_KVER) is missing: run 'make deps'" >&2; exit 1; }

vm-check: vm-kver
	@$(MAKE) --no-print-directory all KVER=$(VM_KVER)
	@$(VM_DIR)/check.sh --kernel /boot/vmlinuz-$(VM_KVER) --modules-dir /lib/modules/$(VM_KVER) \
		--build $(BUILD)/$(VM_KVER) $(if $(TESTS),,$(foreach v,$(VM_MULTIHOST),--multihost $(v)) \
			$(foreach v,$(VM_SLURM),--slurm $(v)) $(VM_INSTALL)) \
		$(foreach t,$(VM_ALLOW_SKIP),--allow-skip $(t)) \
		--mem $(VM_MEM) --timeout $(VM_TIMEOUT) -- $(TESTS)

# The module is built against the debug kernel's tree into build/debug-amd64
# (the top Makefile takes a KVER without "-amd64" for a short Debian one),
# with fault injection at its socket and crypto calls (kmod/fault.c), which
# only this kernel can offer. The kernel panics on the first WARN; the
# runner checks kmemleak, the taint and the kernel log after every program.
VM_DEBUG_KVER := debug-amd64
vm-check-debug:
	@kdir=$$($(VM_DIR)/debug-kernel.sh) && \
	$(MAKE) --no-print-directory all KVER=$(VM_DEBUG_KVER) KDIR=$$kdir ENCD_FAULT_INJECTION=y && \
	$(VM_DIR)/check.sh --kernel $$kdir/arch/x86/boot/bzImage --build $(BUILD)/$(VM_DEBUG_KVER) \
		$(foreach t,$(VM_DEBUG_ALLOW_SKIP),--allow-skip $(t)) --append panic_on_warn=1 --mem $(VM_DEBUG_MEM) --timeout $(VM_DEBUG_TIMEOUT) -- $(TESTS)

# The soak (selftests/soak_test.py) alone, for SOAK_S seconds, in the debug
# kernel's VM: KASAN, lockdep, and kmemleak after it. Not in make check,
# whose debug lane runs it for a minute.
SOAK_S ?= 3600
.PHONY: soak
soak: deps
	@ENCD_SOAK_S=$(SOAK_S) ENCD_TEST_TIMEOUT=$$(($(SOAK_S) + 600)) \
		$(MAKE) --no-print-directory vm-check-debug TESTS=soak_test \
		VM_DEBUG_TIMEOUT=$$(($(SOAK_S) + 1200))

vm-demo: vm-kver
	@test -f $(TOP)/tools/demo.sh || { echo "tools/demo.sh does not exist yet" >&2; exit 1; }
	@$(MAKE) --no-print-directory all KVER=$(VM_KVER)
	@$(VM_DIR)/run.sh --kernel /boot/vmlinuz-$(VM_KVER) --modules-dir /lib/modules/$(VM_KVER) \
		--out $(BUILD)/$(VM_KVER)/demo --mem $(VM_MEM) --timeout $(VM_TIMEOUT) -- \
		env ENCD_KO=$(BUILD)/$(VM_KVER)/kmod/encd.ko \
		NEURON_FAKE_KO=$(BUILD)/$(VM_KVER)/selftests/neuron_fake/neuron_fake.ko \
		bash $(TOP)/tools/demo.sh
