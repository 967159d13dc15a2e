# SPDX-License-Identifier: GPL-2.0
# selftests/mpi: the PMPI shim (mpi/) under mpirun on one host, against
# the loopback test switch (selftests/lib/test_switch): no namespaces or
# root. Included by mpi/build.mk when mpicc is there.

MPI_SHIM_TEST := $(O)/selftests/mpi/mpi_shim

$(MPI_SHIM_TEST): selftests/mpi/mpi_shim.c
	$(call msg,MPICC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(MPICC) $(BASE_CFLAGS) $(CFLAGS) -MF $@.d -MT $@ -o $@ $< -lm

ALL_TARGETS += $(MPI_SHIM_TEST)
TEST_PROGS += selftests/mpi/shim.sh
