# SPDX-License-Identifier: BSD-3-Clause
# examples/: the Fashion-MNIST trainer; selftests/demo: the ring baseline's
# tests and the short training test; `make demo` runs tools/demo/optinc-demo.

RING_TEST := $(O)/selftests/demo/ring_test

$(RING_TEST): $(O)/selftests/demo/ring_test.o $(O)/lib/ring.o
	$(call msg,LD,$@)
	$(Q)$(CC) -o $@ $^ -lm

ALL_TARGETS += $(RING_TEST)
TEST_PROGS += $(RING_TEST)
