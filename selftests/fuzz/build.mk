# SPDX-License-Identifier: GPL-2.0
# selftests/fuzz: libFuzzer harness of the datapath's frame handling (the
# core built again with clang, -fsanitize=fuzzer,address,undefined), its
# seed corpus generator, a 30 s run in `make check` and `make fuzz`.

FUZZ_CC ?= clang
FUZZ_RUNS ?= 10000000
FUZZ_FLAGS := -g -O1 -fsanitize=fuzzer,address,undefined \
	      -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_DIR := $(O)/selftests/fuzz
FUZZ_BIN := $(FUZZ_DIR)/fuzz_frame
FUZZ_GEN := $(FUZZ_DIR)/gen_seeds
FUZZ_SEEDS := $(FUZZ_DIR)/seeds/.stamp
FUZZ_SRCS := selftests/fuzz/fuzz_frame.c $(CORE_SRCS)
# empty when clang or its fuzzer runtime (libclang-rt-14-dev) is missing
FUZZ_HAVE := $(shell printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' | \
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -x c - -o /dev/null 2>/dev/null && echo y)

$(FUZZ_BIN): $(FUZZ_SRCS) selftests/fuzz/fuzz.h include/optinc/core.h include/optinc/wire.h \
	    include/optinc/switch.h include/optinc/bind.h include/optinc/ratelimit.h
	$(call msg,FUZZCC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(FUZZ_CC) -std=gnu11 -Iinclude -Ilib/core $(FUZZ_FLAGS) -o $@ $(FUZZ_SRCS)

$(FUZZ_GEN): $(FUZZ_DIR)/gen_seeds.o $(CORE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) -o $@ $^

$(FUZZ_SEEDS): $(FUZZ_GEN)
	$(call msg,GEN,$(dir $@))
	@rm -rf $(dir $@) && mkdir -p $(dir $@)
	$(Q)$(FUZZ_GEN) $(dir $@) && touch $@

ifeq ($(FUZZ_HAVE),y)
ALL_TARGETS += $(FUZZ_BIN)
endif
ALL_TARGETS += $(FUZZ_SEEDS)
TEST_PROGS += selftests/fuzz/fuzz_short.sh

# make fuzz [FUZZ_RUNS=N]: a long run on a corpus kept in $(FUZZ_DIR)/corpus
.PHONY: fuzz
fuzz: $(FUZZ_SEEDS)
	@test "$(FUZZ_HAVE)" = y || { echo "fuzz: $(FUZZ_CC) cannot link -fsanitize=fuzzer: install clang and libclang-rt-14-dev" >&2; exit 1; }
	$(Q)$(MAKE) --no-print-directory $(FUZZ_BIN)
	@mkdir -p $(FUZZ_DIR)/corpus $(FUZZ_DIR)/crashes
	$(Q)$(FUZZ_BIN) -runs=$(FUZZ_RUNS) -print_final_stats=1 \
		-artifact_prefix=$(FUZZ_DIR)/crashes/ \
		$(FUZZ_DIR)/corpus $(dir $(FUZZ_SEEDS)) >$(FUZZ_DIR)/fuzz.log 2>&1; \
		rc=$$?; grep -E 'stat::|DONE|ERROR|SUMMARY|runtime error|artifact' $(FUZZ_DIR)/fuzz.log; \
		echo "fuzz: exit $$rc, log $(FUZZ_DIR)/fuzz.log"; exit $$rc

# make fuzz-cov [FUZZ_COV_SECS=N]: the fuzzer built for source coverage
# (clang's -fprofile-instr-generate), run from the seeds for N seconds
# (default 30), and llvm-cov's line and branch coverage of the switch's
# rules and the slot state machine it reaches.
FUZZ_COV_SECS ?= 30
FUZZ_COV_BIN := $(FUZZ_DIR)/fuzz_frame_cov
FUZZ_COV_FILES := lib/core/switch.c lib/core/sw_send.c lib/core/agg.c lib/core/reply.c \
		  lib/core/bind.c lib/core/ratelimit.c lib/core/frame.c \
		  lib/core/upstate.c lib/core/uplink.c
.PHONY: fuzz-cov
fuzz-cov: $(FUZZ_SEEDS)
	@test "$(FUZZ_HAVE)" = y || { echo "fuzz-cov: $(FUZZ_CC) cannot link -fsanitize=fuzzer: install clang and libclang-rt-14-dev" >&2; exit 1; }
	$(Q)$(FUZZ_CC) -std=gnu11 -Iinclude -Ilib/core -g -O1 -fsanitize=fuzzer \
		-fprofile-instr-generate -fcoverage-mapping -o $(FUZZ_COV_BIN) $(FUZZ_SRCS)
	@rm -rf $(FUZZ_DIR)/cov && mkdir -p $(FUZZ_DIR)/cov/corpus
	$(Q)LLVM_PROFILE_FILE=$(FUZZ_DIR)/cov/run.profraw $(FUZZ_COV_BIN) \
		-max_total_time=$(FUZZ_COV_SECS) $(FUZZ_DIR)/cov/corpus \
		$(dir $(FUZZ_SEEDS)) >$(FUZZ_DIR)/cov/log 2>&1
	$(Q)llvm-profdata merge -o $(FUZZ_DIR)/cov/run.profdata $(FUZZ_DIR)/cov/run.profraw
	$(Q)llvm-cov report $(FUZZ_COV_BIN) -instr-profile=$(FUZZ_DIR)/cov/run.profdata \
		$(FUZZ_COV_FILES)
