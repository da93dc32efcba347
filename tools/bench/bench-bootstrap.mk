# SPDX-License-Identifier: GPL-2.0
#   make bench-bootstrap [KVER=6.12]   world formation time for N = 2 .. 64
#                                      ranks in one VM, by phase, against the
#                                      loopback RTT bound (never the host)

BENCH_RTT := $(BUILD)/tools/bench/bench-bootstrap-rtt

.PHONY: bench-bootstrap vm-bench-bootstrap
bench-bootstrap: deps
	@$(MAKE) --no-print-directory vm-bench-bootstrap

$(BENCH_RTT): $(TOP)/tools/bench/bench-bootstrap-rtt.c
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $< -lpthread

vm-bench-bootstrap: vm-kver
	@$(MAKE) --no-print-directory module lib tools $(BENCH_RTT) KVER=$(VM_KVER)
	@$(VM_DIR)/run.sh --kernel /boot/vmlinuz-$(VM_KVER) --modules-dir /lib/modules/$(VM_KVER) \
		--out $(BUILD)/$(VM_KVER)/bench-bootstrap $(VM_OPTS) -- \
		sh -c 'insmod "$$0" num_vcores=80 && exec "$$1" "$$2" "$$3"' \
		$(BUILD)/$(VM_KVER)/kmod/encd.ko $(TOP)/tools/bench/bench-bootstrap.sh \
		$(ENCCTL) $(BENCH_RTT)
