# SPDX-License-Identifier: GPL-2.0
# selftests/: every selftests/*_test.c becomes $(BUILD)/selftests/<name>, a
# kselftest_harness.h program that tools/vm runs inside the VM (with the
# module parameters in selftests/<name>.modparams and the time limit in
# selftests/<name>.settings, when those files exist).
# The harness comes from Debian's linux-source-6.1 at build time; it is looked
# up only when a selftest is built, and once.
#
# The gcomm-demo tool that tools/demo.sh runs is built here too, as
# $(BUILD)/tools/gcomm-demo.

SELFTESTS_SRCS := $(wildcard $(TOP)/selftests/*_test.c)
SELFTESTS := $(patsubst $(TOP)/selftests/%.c,$(BUILD)/selftests/%,$(SELFTESTS_SRCS))
SELFTESTS_HDRS := $(wildcard $(TOP)/selftests/*.h)
GCOMM_DEMO := $(BUILD)/tools/gcomm-demo

KSFT_DIR = $(eval KSFT_DIR := $(shell $(TOP)/tools/kernel-source.sh)/tools/testing/selftests)$(KSFT_DIR)
# The harness defines non-static fixture functions without prototypes, and
# its ASSERT_EQ(0, unsigned_field) idiom compares across signedness.
SELFTESTS_CFLAGS = $(USER_CFLAGS) -Wno-missing-prototypes -Wno-sign-compare -I$(KSFT_DIR) -I$(TOP)/lib
# libenc-json for the tests that read programs as JSON; json-c also for
# netlink_test, which reads encctl's output itself.
SELFTESTS_LDLIBS := $(LIBENC_JSON_A) $(LIBENC_A) $(LIBENC_JSON_LDLIBS) $(LIBENC_LDLIBS) \
	$(shell pkg-config --libs libcrypto 2>/dev/null || echo -lcrypto)

.PHONY: selftests gcomm-demo
selftests: $(SELFTESTS) $(GCOMM_DEMO)
gcomm-demo: $(GCOMM_DEMO)

$(BUILD)/selftests/%_test: $(TOP)/selftests/%_test.c $(SELFTESTS_HDRS) $(LIBENC_JSON_A) \
		$(LIBENC_A) $(TOP)/uapi/linux/encd.h $(TOP)/uapi/linux/encd_netlink.h
	@test -d "$(KSFT_DIR)" || { echo "no kselftest headers in $(KSFT_DIR)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(CC) $(SELFTESTS_CFLAGS) -o $@ $< $(SELFTESTS_LDLIBS)

# They run the module's own schedules and departure rules: they are rebuilt
# when those change.
$(BUILD)/selftests/schedule_test: $(TOP)/kmod/schedule.h
$(BUILD)/selftests/departure_rules_test: $(TOP)/kmod/rules.h

$(GCOMM_DEMO): $(TOP)/tools/gcomm-demo/gcomm-demo.c $(LIBENC_A) $(TOP)/uapi/linux/encd.h
	@mkdir -p $(dir $@)
	$(CC) $(USER_CFLAGS) -o $@ $< $(LIBENC_A) $(LIBENC_LDLIBS)
