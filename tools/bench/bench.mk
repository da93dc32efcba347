# SPDX-License-Identifier: GPL-2.0
# tools/bench/: benchmarks. They print figures; they are not tests.
#
#   make bench-sig [KVER=6.12]   kernel op-signature throughput vs OpenSSL MD5,
#                                in a VM with encd loaded (never the host)
#   make bench-peers             encd vs OpenMPI (mpirun, btl tcp) vs
#                                torch.distributed (gloo) forming a world, ANDing
#                                17 bytes and broadcasting 129, N = 8, 16, 32 in
#                                one VM; the table and a PNG plot go to
#                                build/<kver>/bench-peers/. Installs the peers
#                                first (tools/bench/bench-deps.sh): only this
#                                target does.
#   make scale-model             tools/bench/scale-model's table to 1,000,000
#                                ranks (SCALE_MODEL_ARGS: its options)
#
# Uses the VM lane's variables, so it is included after tools/vm/vm.mk.

BENCH_SIG := $(BUILD)/tools/bench/bench-sig
BENCH_MPI := $(BUILD)/tools/bench/bench-mpi
SCALE_MODEL := $(BUILD)/tools/bench/scale-model
BENCH_PEERS_OUT = $(BUILD)/$(VM_KVER)/bench-peers

.PHONY: bench-sig vm-bench-sig bench-deps bench-peers vm-bench-peers scale-model
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

bench-deps:
	@$(TOP)/tools/bench/bench-deps.sh

bench-peers: deps bench-deps
	@$(MAKE) --no-print-directory vm-bench-peers

$(BENCH_MPI): $(TOP)/tools/bench/bench-mpi.c
	@mkdir -p $(dir $@)
	mpicc $(USER_CFLAGS) -o $@ $<

vm-bench-peers: vm-kver
	@$(MAKE) --no-print-directory module lib tools $(BENCH_MPI) KVER=$(VM_KVER)
	@$(VM_DIR)/run.sh --kernel /boot/vmlinuz-$(VM_KVER) --modules-dir /lib/modules/$(VM_KVER) \
		--out $(BENCH_PEERS_OUT) --mem 3072 --timeout 3600 -- \
		sh -c 'insmod "$$0" num_vcores=32 && exec python3 "$$@"' \
		$(BUILD)/$(VM_KVER)/kmod/encd.ko $(TOP)/tools/bench/bench-peers.py \
		$(ENCCTL) $(BENCH_MPI) $(BENCH_PEERS_ARGS)
	@/usr/bin/python3 $(TOP)/tools/bench/bench-peers-report.py $(BENCH_PEERS_OUT)/output.log \
		$(BENCH_PEERS_OUT)/bench-peers.txt $(BENCH_PEERS_OUT)/bench-peers.png

$(SCALE_MODEL): $(TOP)/tools/bench/scale-model.c $(TOP)/kmod/schedule.h $(TOP)/kmod/wire.h \
		$(TOP)/uapi/linux/encd.h
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -I$(TOP)/kmod -I$(TOP)/tools/bench/include -o $@ $< -lm

scale-model: $(SCALE_MODEL)
	@$(SCALE_MODEL) $(SCALE_MODEL_ARGS)

-include $(TOP)/tools/bench/bench-bootstrap.mk

# `make` builds the model too: it needs nothing but the C library.
tools: $(SCALE_MODEL)
