# SPDX-License-Identifier: GPL-2.0
# lib/: libenc, the enc_* API over /dev/encd. Every lib/*.c goes into both
# $(BUILD)/lib/libenc.a and $(BUILD)/lib/libenc.so.1 (PIC objects serve both).
#
# `make install` puts the library, its headers (with uapi/linux/encd.h, which
# enc.h includes) and libenc.pc under $(DESTDIR)$(PREFIX).

LIBENC_SOVERSION := 1
LIBENC_DIR := $(BUILD)/lib
LIBENC_A := $(LIBENC_DIR)/libenc.a
LIBENC_SO := $(LIBENC_DIR)/libenc.so
LIBENC_SONAME := libenc.so.$(LIBENC_SOVERSION)
LIBENC_PC := $(LIBENC_DIR)/libenc.pc
LIBENC_LDLIBS := $(shell pkg-config --libs json-c 2>/dev/null || echo -ljson-c) -lpthread

LIBENC_SRCS := $(wildcard $(TOP)/lib/*.c)
LIBENC_OBJS := $(patsubst $(TOP)/lib/%.c,$(LIBENC_DIR)/obj/%.o,$(LIBENC_SRCS))
LIBENC_CFLAGS := $(USER_CFLAGS) -fPIC $(shell pkg-config --cflags json-c 2>/dev/null)

PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include

.PHONY: lib install install-lib
lib: $(LIBENC_A) $(LIBENC_SO) $(LIBENC_PC)

$(LIBENC_DIR)/obj/%.o: $(TOP)/lib/%.c $(TOP)/uapi/linux/encd.h
	@mkdir -p $(dir $@)
	$(CC) $(LIBENC_CFLAGS) -MMD -MP -c -o $@ $<

-include $(LIBENC_OBJS:.o=.d)

$(LIBENC_A): $(LIBENC_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(LIBENC_SO): $(LIBENC_OBJS)
	$(CC) -shared -Wl,-soname,$(LIBENC_SONAME) -Wl,--no-undefined -o $@.$(LIBENC_SOVERSION) \
		$^ $(LIBENC_LDLIBS)
	ln -sf $(LIBENC_SONAME) $@

# libenc.pc for a given prefix: $(call libenc_pc,prefix,libdir,includedir)
libenc_pc = sed -e 's|@PREFIX@|$(1)|' -e 's|@LIBDIR@|$(2)|' -e 's|@INCLUDEDIR@|$(3)|' \
	-e 's|@VERSION@|$(ENCD_VERSION)|' $(TOP)/lib/libenc.pc.in

$(LIBENC_PC): $(TOP)/lib/libenc.pc.in $(TOP)/lib/lib.mk
	@mkdir -p $(dir $@)
	$(call libenc_pc,$(PREFIX),$(LIBDIR),$(INCLUDEDIR)) > $@

install-lib: lib
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/enc \
		$(DESTDIR)$(INCLUDEDIR)/linux
	install -m 0644 $(LIBENC_A) $(DESTDIR)$(LIBDIR)/
	install -m 0755 $(LIBENC_SO).$(LIBENC_SOVERSION) $(DESTDIR)$(LIBDIR)/
	ln -sf $(LIBENC_SONAME) $(DESTDIR)$(LIBDIR)/libenc.so
	install -m 0644 $(TOP)/lib/include/enc/*.h $(DESTDIR)$(INCLUDEDIR)/enc/
	install -m 0644 $(TOP)/uapi/linux/encd.h $(DESTDIR)$(INCLUDEDIR)/linux/
	$(call libenc_pc,$(PREFIX),$(LIBDIR),$(INCLUDEDIR)) > $(DESTDIR)$(LIBDIR)/pkgconfig/libenc.pc
