# SPDX-License-Identifier: GPL-2.0
# selftests/reliability: switch failure, loss matrix and soak on the
# namespace testbed (root needed); rel_rank is one rank of them.

REL_RANK := $(O)/selftests/reliability/rel_rank
REL_TESTS := selftests/reliability/failover.sh selftests/reliability/loss_matrix.sh \
	     selftests/reliability/fallbacks.sh \
	     selftests/reliability/soak.sh

$(REL_RANK): $(REL_RANK).o $(LIB_SO_REAL) $(O)/lib/$(LIB_SONAME)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(O)/lib/$(LIB_SONAME) \
		-Wl,-rpath,'$$ORIGIN/../../lib' -lm

ALL_TARGETS += $(REL_RANK)
TEST_PROGS += $(REL_TESTS)

# make soak [SOAK_SECS=3600]: the soak test for a long time
.PHONY: soak
soak: $(REL_RANK) $(OPTINCD)
	$(Q)O=$(O) SOAK_SECS=$${SOAK_SECS:-3600} OPTINC_TEST_TIMEOUT=$$(( $${SOAK_SECS:-3600} + 300 )) \
		selftests/run-tests selftests/reliability/soak.sh

# failover of the library without root, on selftests/lib's loopback switch
REL_LO := $(O)/selftests/reliability/failover_lo

$(REL_LO): $(REL_LO).o $(LIBTEST_HARNESS) $(LIBTEST_LINK)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBTEST_HARNESS) \
		$(O)/lib/$(LIB_SONAME) $(CORE_LIB) \
		-Wl,-rpath,'$$ORIGIN/../../lib' -lpthread -lm

ALL_TARGETS += $(REL_LO)
TEST_PROGS += $(REL_LO)
