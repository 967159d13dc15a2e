# SPDX-License-Identifier: GPL-2.0
# selftests/net: integration tests on the namespace testbed (root needed).
# allreduce_check is one rank of a test; the scripts drive the testbed.

NET_CHECK := $(O)/selftests/net/allreduce_check
NET_TESTS := selftests/net/testbed.sh selftests/net/allreduce.sh

$(NET_CHECK).o: EXTRA_CFLAGS += -Itools/bench

$(NET_CHECK): $(NET_CHECK).o $(LIB_SO_REAL) $(O)/lib/$(LIB_SONAME) $(CORE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(O)/lib/$(LIB_SONAME) \
		$(CORE_LIB) -Wl,-rpath,'$$ORIGIN/../../lib' -lm

ALL_TARGETS += $(NET_CHECK)
TEST_PROGS += $(NET_TESTS)
