# SPDX-License-Identifier: GPL-2.0
# selftests: unit tests of the core (kselftest harness) and the parts'
# own suites, each registered in TEST_PROGS.

# kselftest_harness.h is GPL-2.0 kernel code: taken from Debian's
# linux-source package at build time, never committed.
KSFT_TAR ?= $(firstword $(wildcard /usr/src/linux-source-*.tar.xz))
KSFT_DIR := $(O)/kselftest
KSFT_HDR := $(KSFT_DIR)/kselftest_harness.h

$(KSFT_HDR):
	$(call msg,KSFT,$@)
	@test -n "$(KSFT_TAR)" || { echo "kselftest headers: install linux-source-6.1 (make deps)" >&2; exit 1; }
	@mkdir -p $(KSFT_DIR)
	$(Q)tar -xJf $(KSFT_TAR) -C $(KSFT_DIR) --strip-components=4 \
		--wildcards '*/tools/testing/selftests/kselftest_harness.h' \
		'*/tools/testing/selftests/kselftest.h'
	@touch $@

UNIT_TESTS := test_wire test_reduce test_agg test_quant test_quant_isa \
	      test_table test_cascade test_bind test_ratelimit test_switch
UNIT_BINS := $(UNIT_TESTS:%=$(O)/selftests/unit/%)
UNIT_OBJS := $(UNIT_TESTS:%=$(O)/selftests/unit/%.o)

$(UNIT_OBJS): EXTRA_CFLAGS += -I$(KSFT_DIR) -Wno-sign-compare
$(UNIT_OBJS): $(KSFT_HDR)

$(O)/selftests/unit/%: $(O)/selftests/unit/%.o $(CORE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) -o $@ $^ -lm

ALL_TARGETS += $(UNIT_BINS)
# the runner's own test first: a runner that miscounts makes the rest moot
TEST_PROGS += selftests/runner/runner_test.sh $(UNIT_BINS)

-include selftests/netlink/build.mk
-include selftests/layout/build.mk
-include selftests/lib/build.mk
-include selftests/net/build.mk
-include selftests/fuzz/build.mk
-include selftests/reliability/build.mk
-include selftests/python/build.mk
-include selftests/install/build.mk
