# SPDX-License-Identifier: GPL-2.0
# selftests/lib, the library's interface beyond lib/build.mk's tests: the
# settings resolver and the ring (white-box, linked with liboptinc.a), the nonfinite
# setting end to end, a program built
# against the 0.2 header run against this liboptinc.so.0, a C++ program
# built against the installed header, and the loopback test switch as a
# process for tests whose ranks are processes (cxx.sh, selftests/mpi).

LIBX_SWITCH := $(O)/selftests/lib/test_switch
LIBX_ENV := $(O)/selftests/lib/lib_env
LIBX_ABI := $(O)/selftests/lib/abi_0_2
LIBX_NF := $(O)/selftests/lib/lib_nonfinite
LIBX_RING := $(O)/selftests/lib/lib_ring

$(LIBX_SWITCH): $(LIBX_SWITCH).o $(O)/selftests/lib/udpswitch.o $(CORE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lpthread

$(LIBX_ENV): $(LIBX_ENV).o $(O)/selftests/lib/libtest.o $(TAP_OBJ) $(LIB_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -ldl -lpthread -lm

# the ring's own layer, white-box (lib/ring.h is not exported)
$(LIBX_RING): $(LIBX_RING).o $(O)/selftests/lib/libtest.o $(TAP_OBJ) $(LIB_A)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -ldl -lpthread -lm

# abi_0_2.c includes abi/optinc-0.2.h (the 0.2 header as released), never
# the current one
$(LIBX_ABI): $(LIBX_ABI).o $(O)/selftests/lib/udpswitch.o $(TAP_OBJ) $(LIBTEST_LINK)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(O)/selftests/lib/udpswitch.o $(TAP_OBJ) \
		$(O)/lib/$(LIB_SONAME) $(CORE_LIB) \
		-Wl,-rpath,'$$ORIGIN/../../lib' -lpthread -lm

# opts.nonfinite and OPTINC_NONFINITE end to end (needs liboptinc 0.3's rule)
$(LIBX_NF): %: %.o $(LIBTEST_HARNESS) $(LIBTEST_LINK)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBTEST_HARNESS) \
		$(O)/lib/$(LIB_SONAME) $(CORE_LIB) \
		-Wl,-rpath,'$$ORIGIN/../../lib' -lpthread -lm

ALL_TARGETS += $(LIBX_SWITCH) $(LIBX_ENV) $(LIBX_ABI) $(LIBX_NF) $(LIBX_RING)
TEST_PROGS += $(LIBX_ENV) $(LIBX_ABI) $(LIBX_NF) $(LIBX_RING) selftests/lib/cxx.sh
