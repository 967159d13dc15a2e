# SPDX-License-Identifier: BSD-3-Clause
# mpi: liboptinc_mpi.so, the PMPI shim that sends MPI_Allreduce through
# optinc (LD_PRELOAD it, or link it before -lmpi), built when Open MPI's
# mpicc is there (openmpi-bin, libopenmpi-dev); then its loopback tests
# (selftests/mpi/build.mk) and the scale selftests (selftests/scale/build.mk).

MPICC ?= $(shell command -v mpicc 2>/dev/null)

ifneq ($(MPICC),)
MPI_SHIM := $(O)/lib/liboptinc_mpi.so
MPI_SHIM_OBJS := $(O)/mpi/optinc_mpi.o $(O)/mpi/requests.o

$(MPI_SHIM_OBJS): $(O)/mpi/%.o: mpi/%.c
	$(call msg,MPICC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(MPICC) $(BASE_CFLAGS) $(CFLAGS) -fPIC -fvisibility=default \
		-MF $(@:.o=.d) -MT $@ -c -o $@ $<

$(MPI_SHIM): $(MPI_SHIM_OBJS) $(LIB_SO_REAL) $(O)/lib/$(LIB_SONAME)
	$(call msg,LD,$@)
	$(Q)$(MPICC) -shared $(CFLAGS) $(LDFLAGS) -Wl,-z,defs -o $@ \
		$(MPI_SHIM_OBJS) $(O)/lib/$(LIB_SONAME) -Wl,-rpath,'$$ORIGIN' \
		-lpthread

ALL_TARGETS += $(MPI_SHIM)
LIBS += $(MPI_SHIM)
-include selftests/mpi/build.mk
endif

-include selftests/scale/build.mk
