# SPDX-License-Identifier: GPL-2.0
# selftests/mpi: the PMPI shim (mpi/) under mpirun on one host, against
# the loopback test switch (selftests/lib/test_switch): no namespaces or
# root. Included by mpi/build.mk when mpicc is there.

MPI_SHIM_TEST := $(O)/selftests/mpi/mpi_shim

$(MPI_SHIM_TEST): selftests/mpi/mpi_shim.c
	$(call msg,MPICC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(MPICC) $(BASE_CFLAGS) $(CFLAGS) -MF $@.d -MT $@ -o $@ $< -lm

# a stand-in for liboptinc's non-blocking calls, preloaded before the shim
MPI_NB_STUB := $(O)/selftests/mpi/libnbstub.so

$(MPI_NB_STUB): selftests/mpi/nb_stub.c $(LIB_SO_REAL) $(O)/lib/$(LIB_SONAME)
	$(call msg,CC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -fPIC -shared -MF $@.d -MT $@ -o $@ $< \
		$(O)/lib/$(LIB_SONAME) -Wl,-rpath,'$$ORIGIN/../../lib' -lpthread

ALL_TARGETS += $(MPI_SHIM_TEST) $(MPI_NB_STUB)
TEST_PROGS += selftests/mpi/shim.sh
