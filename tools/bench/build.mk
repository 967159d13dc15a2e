# SPDX-License-Identifier: BSD-3-Clause
# tools/bench: optinc-bench (liboptinc all-reduce over a size range),
# optinc-io-bench (optinc's frames without the float work, through optincd
# or reflected by a forwarder) and,
# when Open MPI's mpicc is there, optinc-mpi-bench (MPI_Allreduce, same
# table); `make bench` runs tools/bench/optinc-bench.sh, `make bench-tail`
# tools/bench/tail-bench.sh.

BENCH := $(O)/bin/optinc-bench
BENCH_OBJ := $(O)/tools/bench/optinc-bench.o
MPICC ?= $(shell command -v mpicc 2>/dev/null)

$(BENCH_OBJ): EXTRA_CFLAGS += -Itools/bench

$(BENCH): $(BENCH_OBJ) $(LIB_SO_REAL) $(O)/lib/$(LIB_SONAME) $(CORE_LIB)
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(O)/lib/$(LIB_SONAME) \
		$(CORE_LIB) -Wl,-rpath,'$$ORIGIN/../lib' -lm

ALL_TARGETS += $(BENCH)
BINS += $(BENCH)

# optinc-overlap-bench: non-blocking calls hidden behind compute
OVL_BENCH := $(O)/bin/optinc-overlap-bench
OVL_BENCH_OBJ := $(O)/tools/bench/overlap-bench.o

$(OVL_BENCH_OBJ): EXTRA_CFLAGS += -Itools/bench

$(OVL_BENCH): $(OVL_BENCH_OBJ) $(LIB_SO_REAL) $(O)/lib/$(LIB_SONAME) $(CORE_LIB)
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(O)/lib/$(LIB_SONAME) \
		$(CORE_LIB) -Wl,-rpath,'$$ORIGIN/../lib' -lm

ALL_TARGETS += $(OVL_BENCH)
BINS += $(OVL_BENCH)

# optinc-io-bench: optinc's frames without the float work (I/O limit)
IO_BENCH := $(O)/bin/optinc-io-bench
IO_BENCH_OBJ := $(O)/tools/bench/io-bench.o

$(IO_BENCH_OBJ): EXTRA_CFLAGS += -Itools/bench

$(IO_BENCH): $(IO_BENCH_OBJ) $(CORE_LIB)
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

ALL_TARGETS += $(IO_BENCH)
BINS += $(IO_BENCH)

ifneq ($(MPICC),)
MPI_BENCH := $(O)/bin/optinc-mpi-bench

$(MPI_BENCH): tools/bench/mpi-bench.c tools/bench/refdata.h $(CORE_LIB)
	$(call msg,MPICC,$@)
	@mkdir -p $(dir $@) $(O)/tools/bench
	$(Q)$(MPICC) $(BASE_CFLAGS) $(CFLAGS) -Itools/bench \
		-MF $(O)/tools/bench/mpi-bench.d -MT $@ -o $@ $< $(CORE_LIB) -lm

ALL_TARGETS += $(MPI_BENCH)
endif

bench: all
	$(Q)O=$(O) tools/bench/optinc-bench.sh

# make bench-tail [TAIL_ARGS='-B OTHER/build ...']: call time under loss
# (p50/p99, Documentation/reliability.md, "Tail loss")
.PHONY: bench-tail
bench-tail: all
	$(Q)O=$(O) tools/bench/tail-bench.sh $(TAIL_ARGS)

# optinc-codec-bench: the codec's stages per instruction-set path vs memcpy
CODEC_BENCH := $(O)/bin/optinc-codec-bench

$(CODEC_BENCH): $(O)/tools/bench/codec-bench.o $(CORE_LIB)
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

ALL_TARGETS += $(CODEC_BENCH)

# optinc-line-bench: N members' frames into a switch's DPDK ports (net_memif),
# every result checked; tools/bench/line-bench.sh runs it against optincd
# and dpdk-testpmd (Documentation/bench.md)
LINE_BENCH := $(O)/bin/optinc-line-bench
LINE_BENCH_OBJ := $(O)/tools/bench/line-bench.o

$(LINE_BENCH_OBJ): EXTRA_CFLAGS += $(DPDK_CFLAGS)
$(LINE_BENCH_OBJ): | $(O)/daemon/.dpdk-found

$(LINE_BENCH): $(LINE_BENCH_OBJ) $(CORE_LIB)
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(DPDK_LIBS)

ALL_TARGETS += $(LINE_BENCH)
BINS += $(LINE_BENCH)
