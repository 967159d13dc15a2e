# SPDX-License-Identifier: GPL-2.0
# selftests/scale: many jobs on one optincd, two levels of optincd
# (cascade), and MPI programs through the PMPI shim (mpi/), on the
# namespace testbed (root needed). Included by
# mpi/build.mk.

SCALE_RANK := $(O)/selftests/scale/scale_rank
SCALE_TESTS := selftests/scale/jobs.sh selftests/scale/jobs_runtime.sh

$(SCALE_RANK).o: EXTRA_CFLAGS += -Itools/bench

$(SCALE_RANK): $(SCALE_RANK).o $(LIB_SO_REAL) $(O)/lib/$(LIB_SONAME) $(CORE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(O)/lib/$(LIB_SONAME) \
		$(CORE_LIB) -Wl,-rpath,'$$ORIGIN/../../lib' -lm

ALL_TARGETS += $(SCALE_RANK)

SCALE_TESTS += selftests/scale/cascade.sh selftests/scale/uplink_faults.sh

# a plain MPI program (no optinc in it), for the shim's test
ifneq ($(MPICC),)
MPI_AR := $(O)/selftests/scale/mpi_allreduce

$(MPI_AR): selftests/scale/mpi_allreduce.c
	$(call msg,MPICC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(MPICC) $(BASE_CFLAGS) $(CFLAGS) -MF $@.d -MT $@ -o $@ $< -lm

ALL_TARGETS += $(MPI_AR)
SCALE_TESTS += selftests/scale/mpi.sh
endif

TEST_PROGS += $(SCALE_TESTS)
