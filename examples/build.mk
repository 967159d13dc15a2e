# SPDX-License-Identifier: BSD-3-Clause
# examples/: the Fashion-MNIST trainer; tools/demo: the demo's table tool;
# selftests/demo: the ring baseline's tests and the short training tests.
# `make demo` runs tools/demo/optinc-demo; `make demo-paper` runs it with
# the paper's two workloads under PyTorch (tools/demo/workloads).

TRAIN_FMNIST := $(O)/examples/train_fmnist
TABLE_INJECT := $(O)/tools/demo/optinc-table-inject
RING_TEST := $(O)/selftests/demo/ring_test

# Expanded only when the trainer is built.
BLAS_CFLAGS = $(shell pkg-config --cflags openblas)
BLAS_LIBS = $(shell pkg-config --libs openblas zlib)

$(O)/examples/.deps-found:
	@pkg-config --exists openblas zlib || { echo "train_fmnist: OpenBLAS or zlib not found: install libopenblas-dev zlib1g-dev (make deps)" >&2; exit 1; }
	@mkdir -p $(dir $@) && touch $@

$(O)/examples/train_fmnist.o: EXTRA_CFLAGS += $(BLAS_CFLAGS)
$(O)/examples/train_fmnist.o: | $(O)/examples/.deps-found

$(TRAIN_FMNIST): $(O)/examples/train_fmnist.o $(LIB_SO)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< -L$(O)/lib -loptinc \
		-Wl,-rpath,'$$ORIGIN/../lib' $(BLAS_LIBS) -lm

$(TABLE_INJECT): $(O)/tools/demo/table_inject.o $(CORE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

# kselftest_harness.h is extracted by selftests/build.mk (included later)
$(O)/selftests/demo/ring_test.o: EXTRA_CFLAGS += -I$(O)/kselftest
$(O)/selftests/demo/ring_test.o: $(O)/kselftest/kselftest_harness.h

$(RING_TEST): $(O)/selftests/demo/ring_test.o $(O)/lib/ring.o $(O)/lib/log.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

ALL_TARGETS += $(TRAIN_FMNIST) $(TABLE_INJECT) $(RING_TEST)
TEST_PROGS += $(RING_TEST) selftests/demo/train_test.sh selftests/demo/workloads.sh

# deps first, then the build: never in parallel with the package install
demo: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)O=$(O) tools/demo/optinc-demo $(DEMO_ARGS)

# The ResNet and the language model, each with the optinc hook and with
# gloo: 3-7 minutes each on the 2-core machine. PAPER_ARGS go to both runs.
demo-paper: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)O=$(O) tools/demo/optinc-demo --workload resnet $(PAPER_ARGS)
	$(Q)O=$(O) tools/demo/optinc-demo --workload lm $(PAPER_ARGS)
