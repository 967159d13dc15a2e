# SPDX-License-Identifier: GPL-2.0
# selftests/net: integration tests on the namespace testbed (root needed).
# allreduce_check is one rank of a test, onn_check predicts onn results;
# the scripts drive the testbed.

NET_CHECK := $(O)/selftests/net/allreduce_check
COLL_CHECK := $(O)/selftests/net/collective_check
ONN_CHECK := $(O)/selftests/net/onn_check
NB_CHECK := $(O)/selftests/net/nb_check
PS_INJECT := $(O)/selftests/net/ps_inject
NET_TESTS := selftests/net/testbed.sh selftests/net/allreduce.sh \
	     selftests/net/onn.sh selftests/net/io_bench.sh \
	     selftests/net/collectives.sh selftests/net/nb.sh \
	     selftests/net/portsec.sh selftests/net/ratelimit.sh \
	     selftests/net/testbed_opts.sh

$(NET_CHECK).o $(ONN_CHECK).o: EXTRA_CFLAGS += -Itools/bench

$(ONN_CHECK): $(ONN_CHECK).o $(CORE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

$(NET_CHECK): $(NET_CHECK).o $(LIB_SO_REAL) $(O)/lib/$(LIB_SONAME) $(CORE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(O)/lib/$(LIB_SONAME) \
		$(CORE_LIB) -Wl,-rpath,'$$ORIGIN/../../lib' -lm

$(COLL_CHECK): $(COLL_CHECK).o $(O)/selftests/lib/dtref.o $(LIB_SO_REAL) \
		$(O)/lib/$(LIB_SONAME)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(O)/selftests/lib/dtref.o \
		$(O)/lib/$(LIB_SONAME) -Wl,-rpath,'$$ORIGIN/../../lib' -lm

# nb_check: one rank of nb.sh (non-blocking calls), with selftests/lib's schedule
$(NB_CHECK).o: EXTRA_CFLAGS += -Itools/bench -Iselftests/lib

$(NB_CHECK): $(NB_CHECK).o $(O)/selftests/lib/dtref.o $(LIB_SO_REAL) \
		$(O)/lib/$(LIB_SONAME) $(CORE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(O)/selftests/lib/dtref.o \
		$(O)/lib/$(LIB_SONAME) $(CORE_LIB) \
		-Wl,-rpath,'$$ORIGIN/../../lib' -lpthread -lm

# forged frames from a server's port (portsec.sh, and the VM's hijack replay)
$(PS_INJECT): $(PS_INJECT).o $(CORE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

ALL_TARGETS += $(NET_CHECK) $(ONN_CHECK) $(COLL_CHECK) $(NB_CHECK) $(PS_INJECT)
TEST_PROGS += $(NET_TESTS)
