# SPDX-License-Identifier: GPL-2.0
# tools/: encctl (libmnl over the "encd" generic netlink family, and libenc).

ENCCTL := $(BUILD)/tools/encctl
ENCCTL_SRCS := $(wildcard $(TOP)/tools/encctl/*.c)
ENCCTL_HDRS := $(wildcard $(TOP)/tools/encctl/*.h)
ENCCTL_LIBS := $(shell pkg-config --libs libmnl json-c 2>/dev/null || echo -lmnl -ljson-c)

.PHONY: tools
tools: $(ENCCTL)

$(ENCCTL): $(ENCCTL_SRCS) $(ENCCTL_HDRS) $(LIBENC_A) uapi/linux/encd.h uapi/linux/encd_netlink.h
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -DENCCTL_VERSION='"$(ENCD_VERSION)"' -o $@ $(ENCCTL_SRCS) \
		$(LIBENC_A) $(LIBENC_LDLIBS) $(ENCCTL_LIBS) -lpthread
