# SPDX-License-Identifier: GPL-2.0
# lib/: two libraries.
#   libenc       the enc_* API over /dev/encd; needs only libc and pthreads.
#                Every lib/*.c goes into $(BUILD)/lib/libenc.a and libenc.so.1.
#   libenc-json  the JSON reader of collective programs, over libenc's public
#                API and json-c: every lib/json/*.c goes into libenc-json.a and
#                libenc-json.so.1. A library of its own so that linking libenc
#                never pulls json-c.
# PIC objects serve both the .a and the .so of each.
#
# `make install` (install-lib) puts both libraries, their headers (with
# uapi/linux/*.h, which enc.h includes), their .pc files and the man pages
# of their functions under $(DESTDIR)$(PREFIX); `make uninstall` removes them.
# `make check-man` (part of `make check`) lints the man pages.

LIBENC_DIR := $(BUILD)/lib

LIBENC_SOVERSION := 1
LIBENC_A := $(LIBENC_DIR)/libenc.a
LIBENC_SO := $(LIBENC_DIR)/libenc.so
LIBENC_SONAME := libenc.so.$(LIBENC_SOVERSION)
LIBENC_PC := $(LIBENC_DIR)/libenc.pc
# What a program linked with $(LIBENC_A) also needs.
LIBENC_LDLIBS := -lpthread

LIBENC_JSON_SOVERSION := 1
LIBENC_JSON_A := $(LIBENC_DIR)/libenc-json.a
LIBENC_JSON_SO := $(LIBENC_DIR)/libenc-json.so
LIBENC_JSON_SONAME := libenc-json.so.$(LIBENC_JSON_SOVERSION)
LIBENC_JSON_PC := $(LIBENC_DIR)/libenc-json.pc
# What a program linked with $(LIBENC_JSON_A) also needs, besides $(LIBENC_A).
LIBENC_JSON_LDLIBS := $(shell pkg-config --libs json-c 2>/dev/null || echo -ljson-c)

LIBENC_SRCS := $(wildcard $(TOP)/lib/*.c)
LIBENC_OBJS := $(patsubst $(TOP)/lib/%.c,$(LIBENC_DIR)/obj/%.o,$(LIBENC_SRCS))
LIBENC_JSON_SRCS := $(wildcard $(TOP)/lib/json/*.c)
LIBENC_JSON_OBJS := $(patsubst $(TOP)/lib/%.c,$(LIBENC_DIR)/obj/%.o,$(LIBENC_JSON_SRCS))
LIBENC_CFLAGS := $(USER_CFLAGS) -fPIC
$(LIBENC_JSON_OBJS): LIBENC_CFLAGS += $(shell pkg-config --cflags json-c 2>/dev/null)

LIBENC_HDRS := $(wildcard $(TOP)/lib/include/enc/*.h)
# Documentation/man/man3: a page per function or family; an alias is a .so page.
LIBENC_MAN3 := $(wildcard $(TOP)/Documentation/man/man3/*.3)

PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
MANDIR ?= $(PREFIX)/share/man

.PHONY: lib install install-lib uninstall uninstall-lib check-man
lib: $(LIBENC_A) $(LIBENC_SO) $(LIBENC_PC) $(LIBENC_JSON_A) $(LIBENC_JSON_SO) $(LIBENC_JSON_PC)

$(LIBENC_DIR)/obj/%.o: $(TOP)/lib/%.c $(TOP)/uapi/linux/encd.h
	@mkdir -p $(dir $@)
	$(CC) $(LIBENC_CFLAGS) -MMD -MP -c -o $@ $<

-include $(LIBENC_OBJS:.o=.d) $(LIBENC_JSON_OBJS:.o=.d)

$(LIBENC_A): $(LIBENC_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(LIBENC_SO): $(LIBENC_OBJS)
	$(CC) -shared -Wl,-soname,$(LIBENC_SONAME) -Wl,--no-undefined -o $@.$(LIBENC_SOVERSION) \
		$^ $(LIBENC_LDLIBS)
	ln -sf $(LIBENC_SONAME) $@

$(LIBENC_JSON_A): $(LIBENC_JSON_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

# Linked against the libenc.so just built, so it records libenc.so.1 as needed.
$(LIBENC_JSON_SO): $(LIBENC_JSON_OBJS) $(LIBENC_SO)
	$(CC) -shared -Wl,-soname,$(LIBENC_JSON_SONAME) -Wl,--no-undefined \
		-o $@.$(LIBENC_JSON_SOVERSION) $(LIBENC_JSON_OBJS) -L$(LIBENC_DIR) -lenc \
		$(LIBENC_JSON_LDLIBS)
	ln -sf $(LIBENC_JSON_SONAME) $@

# A .pc file for a given prefix: $(call lib_pc,name,prefix,libdir,includedir)
lib_pc = sed -e 's|@PREFIX@|$(2)|' -e 's|@LIBDIR@|$(3)|' -e 's|@INCLUDEDIR@|$(4)|' \
	-e 's|@VERSION@|$(ENCD_VERSION)|' $(TOP)/lib/$(1).pc.in

$(LIBENC_DIR)/%.pc: $(TOP)/lib/%.pc.in $(TOP)/lib/lib.mk
	@mkdir -p $(dir $@)
	$(call lib_pc,$*,$(PREFIX),$(LIBDIR),$(INCLUDEDIR)) > $@

install-lib: lib
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/enc \
		$(DESTDIR)$(INCLUDEDIR)/linux $(DESTDIR)$(MANDIR)/man3
	install -m 0644 $(LIBENC_A) $(LIBENC_JSON_A) $(DESTDIR)$(LIBDIR)/
	install -m 0755 $(LIBENC_SO).$(LIBENC_SOVERSION) \
		$(LIBENC_JSON_SO).$(LIBENC_JSON_SOVERSION) $(DESTDIR)$(LIBDIR)/
	ln -sf $(LIBENC_SONAME) $(DESTDIR)$(LIBDIR)/libenc.so
	ln -sf $(LIBENC_JSON_SONAME) $(DESTDIR)$(LIBDIR)/libenc-json.so
	install -m 0644 $(LIBENC_HDRS) $(DESTDIR)$(INCLUDEDIR)/enc/
	install -m 0644 $(TOP)/uapi/linux/*.h $(DESTDIR)$(INCLUDEDIR)/linux/
	$(call lib_pc,libenc,$(PREFIX),$(LIBDIR),$(INCLUDEDIR)) > \
		$(DESTDIR)$(LIBDIR)/pkgconfig/libenc.pc
	$(call lib_pc,libenc-json,$(PREFIX),$(LIBDIR),$(INCLUDEDIR)) > \
		$(DESTDIR)$(LIBDIR)/pkgconfig/libenc-json.pc
	install -m 0644 $(LIBENC_MAN3) $(DESTDIR)$(MANDIR)/man3/

uninstall-lib:
	rm -f $(addprefix $(DESTDIR)$(LIBDIR)/,libenc.a libenc.so $(LIBENC_SONAME) \
		libenc-json.a libenc-json.so $(LIBENC_JSON_SONAME) \
		pkgconfig/libenc.pc pkgconfig/libenc-json.pc)
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/enc/,$(notdir $(LIBENC_HDRS)))
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/linux/,$(notdir $(wildcard $(TOP)/uapi/linux/*.h)))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man3/,$(notdir $(LIBENC_MAN3)))
	rmdir --ignore-fail-on-non-empty $(DESTDIR)$(INCLUDEDIR)/enc 2>/dev/null || true

# Every page renders without a warning: groff's on each page (a .so alias is
# resolved from the man directory, as man(1) does), and mandoc's lint on each
# page that is not an alias when mandoc is installed.
check-man:
	@cd $(TOP)/Documentation/man && fail=0; \
	for f in man3/*.3; do \
		out=$$(groff -man -ww -z $$f 2>&1; \
		       if ! grep -q '^\.so ' $$f && command -v mandoc >/dev/null; then \
				mandoc -T lint $$f 2>&1; fi); \
		[ -z "$$out" ] || { echo "$$out"; fail=1; }; \
	done; \
	[ $$fail = 0 ] && echo "check-man: $(words $(LIBENC_MAN3)) pages render cleanly"

host-check: check-man
