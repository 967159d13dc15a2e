# SPDX-License-Identifier: BSD-3-Clause
# optinc-core-bench: the switch's per-frame work on one core, no I/O;
# --stages: each reduction stage's cycles per element.

CORE_BENCH := $(O)/bin/optinc-core-bench

$(CORE_BENCH): $(O)/tools/bench/core-bench.o $(O)/tools/bench/core-stages.o \
		$(CORE_LIB)
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -lm

ALL_TARGETS += $(CORE_BENCH)
