# SPDX-License-Identifier: GPL-2.0
# selftests/neuron_fake/: the fake Neuron driver the tests load in the VM,
# built by `make all` for KVER (and KDIR) as encd.ko is, into
# $(BUILD)/$(KVER)/selftests/neuron_fake/neuron_fake.ko: a mirror of the
# sources with symlinks, neuron_abi.h among them. It is a test's module:
# neither `make install` nor the packages have it.

NEURON_FAKE_SRCS := $(TOP)/selftests/neuron_fake/neuron_fake.c $(TOP)/selftests/neuron_fake/Kbuild \
	$(TOP)/tools/neuron/neuron_abi.h
NEURON_FAKE_DIR := $(BUILD)/$(KVER)/selftests/neuron_fake
NEURON_FAKE := $(NEURON_FAKE_DIR)/neuron_fake.ko

.PHONY: neuron-fake
all: neuron-fake
neuron-fake: $(NEURON_FAKE)

$(NEURON_FAKE): $(NEURON_FAKE_SRCS)
	@test -n "$(KVER)" || { echo "no linux-headers-*-amd64 installed: run 'make deps'" >&2; exit 1; }
	@mkdir -p $(NEURON_FAKE_DIR)
	@ln -sf $(NEURON_FAKE_SRCS) $(NEURON_FAKE_DIR)/
	$(MAKE) -C $(KDIR) M=$(NEURON_FAKE_DIR) modules

# The test of the fake's ABI is compiled against the same header.
$(BUILD)/selftests/neuron_abi_test: $(TOP)/tools/neuron/neuron_abi.h
