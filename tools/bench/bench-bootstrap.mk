# SPDX-License-Identifier: GPL-2.0
#   make bench-bootstrap [KVER=6.12]   world formation for N = 2 .. 256 ranks in
#                                      one VM (one host, and hosts as network
#                                      namespaces), bytes sent by the root host
#                                      and per host, warm validation + broadcast
#                                      against the loopback RTT bound; then
#                                      1,024 ranks across 4 VMs (never the host);
#                                      then worlds of 16,384, 65,536 and 131,072
#                                      ranks in one VM, formed and ended
#   make bench-scale                   only the last part
#
# BENCH_MEM (MiB) sizes each VM: 256 rank processes need about 1 GiB.

BENCH_RTT := $(BUILD)/tools/bench/bench-bootstrap-rtt
BENCH_MEM ?= 3072
BENCH_RANKS ?= 256
# Each of the 4 VMs of the 1,024-rank world.
BENCH_VM_MEM ?= 2048

.PHONY: bench-bootstrap vm-bench-bootstrap vm-bench-multihost bench-scale vm-bench-scale
bench-bootstrap: deps
	@$(MAKE) --no-print-directory vm-bench-bootstrap vm-bench-multihost vm-bench-scale

bench-scale: deps
	@$(MAKE) --no-print-directory vm-bench-scale

$(BENCH_RTT): $(TOP)/tools/bench/bench-bootstrap-rtt.c
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $< -lpthread

vm-bench-bootstrap: vm-kver
	@$(MAKE) --no-print-directory module lib tools $(BENCH_RTT) KVER=$(VM_KVER)
	@$(VM_DIR)/run.sh --kernel /boot/vmlinuz-$(VM_KVER) --modules-dir /lib/modules/$(VM_KVER) \
		--out $(BUILD)/$(VM_KVER)/bench-bootstrap --mem $(BENCH_MEM) --timeout 3600 -- \
		sh -c 'insmod "$$0" num_vcores=$(BENCH_RANKS) && exec python3 "$$@"' \
		$(BUILD)/$(VM_KVER)/kmod/encd.ko $(TOP)/tools/bench/bench-bootstrap.py \
		$(ENCCTL) $(BENCH_RTT) $(BENCH_BOOTSTRAP_ARGS)

# 1,024 ranks: 4 VMs of 256, formation and bytes per host.
vm-bench-multihost: vm-kver
	@$(MAKE) --no-print-directory module tools KVER=$(VM_KVER)
	@$(TOP)/tools/multihost-bootstrap.sh --kver $(VM_KVER) --vms 4 \
		--ranks-per-vm $(BENCH_RANKS) --mem $(BENCH_VM_MEM) --bench

# Worlds of 16,384 to 131,072 ranks in one VM: two kernel hosts and fake
# hosts (selftests/scale_test.py), formation and the job's end, the root's
# bytes and frames for each and the kernel memory a world rank costs.
SCALE_CASES := $(foreach n,16384 65536 131072,a_world_of_$(n)_ranks_forms_and_ends)
vm-bench-scale: vm-kver
	@$(MAKE) --no-print-directory module lib tools KVER=$(VM_KVER)
	@$(VM_DIR)/run.sh --kernel /boot/vmlinuz-$(VM_KVER) --modules-dir /lib/modules/$(VM_KVER) \
		--out $(BUILD)/$(VM_KVER)/bench-scale --mem $(BENCH_MEM) --timeout 1800 -- \
		sh -c 'insmod "$$0" num_vcores=4 && exec python3 "$$@"' \
		$(BUILD)/$(VM_KVER)/kmod/encd.ko $(TOP)/selftests/scale_test.py $(SCALE_CASES)
