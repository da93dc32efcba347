# SPDX-License-Identifier: GPL-2.0
# tools/bench/: benchmarks. They print figures; they are not tests.
#
#   make bench-sig [KVER=6.12]   kernel op-signature throughput vs OpenSSL MD5,
#                                in a VM with encd loaded (never the host)
#
# Uses the VM lane's variables, so it is included after tools/vm/vm.mk.

BENCH_SIG := $(BUILD)/tools/bench/bench-sig

.PHONY: bench-sig vm-bench-sig
bench-sig: deps
	@$(MAKE) --no-print-directory vm-bench-sig

$(BENCH_SIG): $(TOP)/tools/bench/bench-sig.c $(LIBENC_A) $(TOP)/uapi/linux/encd.h
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $< $(LIBENC_A) $(LIBENC_LDLIBS) \
		$(shell pkg-config --libs libcrypto 2>/dev/null || echo -lcrypto)

vm-bench-sig: vm-kver
	@$(MAKE) --no-print-directory module lib $(BENCH_SIG) KVER=$(VM_KVER)
	@$(VM_DIR)/run.sh --kernel /boot/vmlinuz-$(VM_KVER) --modules-dir /lib/modules/$(VM_KVER) \
		--out $(BUILD)/$(VM_KVER)/bench-sig $(VM_OPTS) -- \
		sh -c 'insmod "$$0" && exec "$$1"' $(BUILD)/$(VM_KVER)/kmod/encd.ko $(BENCH_SIG)

-include $(TOP)/tools/bench/bench-bootstrap.mk
