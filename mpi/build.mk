# SPDX-License-Identifier: BSD-3-Clause
# mpi: liboptinc_mpi.so, the PMPI shim that sends MPI_Allreduce through
# optinc (LD_PRELOAD it, or link it before -lmpi), built when Open MPI's
# mpicc is there; then the scale selftests (selftests/scale/build.mk).

-include selftests/scale/build.mk
