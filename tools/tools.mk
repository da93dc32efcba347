# SPDX-License-Identifier: GPL-2.0
# tools/: encctl (libmnl over the "encd" generic netlink family, libenc, and
# libenc-json for the programs it reads).

ENCCTL := $(BUILD)/tools/encctl
ENCCTL_SRCS := $(wildcard $(TOP)/tools/encctl/*.c)
ENCCTL_HDRS := $(wildcard $(TOP)/tools/encctl/*.h) $(TOP)/tools/neuron/neuron_abi.h
ENCCTL_LIBS := $(shell pkg-config --libs libmnl json-c 2>/dev/null || echo -lmnl -ljson-c)

.PHONY: tools
tools: $(ENCCTL)

$(ENCCTL): $(ENCCTL_SRCS) $(ENCCTL_HDRS) $(LIBENC_JSON_A) $(LIBENC_A) uapi/linux/encd.h \
		uapi/linux/encd_netlink.h
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -I$(TOP)/tools/neuron -DENCCTL_VERSION='"$(ENCD_VERSION)"' -o $@ $(ENCCTL_SRCS) \
		$(LIBENC_JSON_A) $(LIBENC_A) $(LIBENC_JSON_LDLIBS) $(LIBENC_LDLIBS) $(ENCCTL_LIBS)
