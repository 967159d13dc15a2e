# SPDX-License-Identifier: BSD-3-Clause
# tools/onn: optinc-onn (train, verify, compile the ONN into truth tables),
# its tests in selftests/onn, and `make models` (the shipped models/).

ONN_LIB_SRCS := model.c mesh.c approx.c area.c realise.c eval.c table.c \
		rng.c spec.c net.c data.c ckpt.c train.c verify.c inspect.c \
		construct.c fold.c cascade.c lp.c finish.c profile.c hot.c
ONN_LIB_OBJS := $(ONN_LIB_SRCS:%.c=$(O)/tools/onn/%.o)
ONN_OBJS := $(ONN_LIB_OBJS) $(O)/tools/onn/main.o
ONN_BIN	 := $(O)/bin/optinc-onn
ONN_LDLIBS := -lglpk -lopenblas -lcrypto -lm
ONN_DEPS_OK := $(O)/tools/onn/.deps-ok

# a missing BLAS or libcrypto is named, not left to a compiler error
$(ONN_DEPS_OK):
	@mkdir -p $(dir $@)
	@echo '#include <cblas.h>' | $(CC) -E -x c - >/dev/null 2>&1 || \
		{ echo "optinc-onn: cblas.h not found: install libopenblas-dev (make deps)" >&2; exit 1; }
	@echo '#include <openssl/evp.h>' | $(CC) -E -x c - >/dev/null 2>&1 || \
		{ echo "optinc-onn: openssl/evp.h not found: install libssl-dev (make deps)" >&2; exit 1; }
	@echo '#include <glpk.h>' | $(CC) -E -x c - >/dev/null 2>&1 || \
		{ echo "optinc-onn: glpk.h not found: install libglpk-dev (make deps)" >&2; exit 1; }
	@touch $@

$(ONN_OBJS): EXTRA_CFLAGS += -O2
$(ONN_OBJS): | $(ONN_DEPS_OK)

$(ONN_BIN): $(ONN_OBJS) $(CORE_LIB)
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(ONN_LDLIBS)

ONN_TESTS := test_onn
ONN_TEST_BINS := $(ONN_TESTS:%=$(O)/selftests/onn/%)

$(O)/selftests/onn/%.o: EXTRA_CFLAGS += -Itools/onn
$(O)/selftests/onn/%.o: | $(ONN_DEPS_OK)

$(O)/selftests/onn/%: $(O)/selftests/onn/%.o $(ONN_LIB_OBJS) $(TAP_OBJ) $(CORE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(ONN_LDLIBS)

ALL_TARGETS += $(ONN_BIN) $(ONN_TEST_BINS)
BINS += $(ONN_BIN)
TEST_PROGS += $(ONN_TEST_BINS) selftests/onn/onn_e2e.sh selftests/onn/onn_construct.sh \
	      selftests/onn/onn_shipped.sh selftests/onn/onn_realise.sh \
	      selftests/onn/onn_noise.sh selftests/onn/onn_table2.sh \
	      selftests/onn/onn_slow.sh selftests/onn/onn_best.sh \
	      selftests/onn/onn_boost.sh selftests/onn/onn_ema.sh \
	      selftests/onn/onn_stop.sh selftests/onn/onn_revive.sh \
	      selftests/onn/onn_lrfirst.sh selftests/onn/onn_revive_hidden.sh \
	      selftests/onn/onn_init.sh selftests/onn/onn_finish.sh \
	      selftests/onn/onn_axes.sh selftests/onn/onn_noise_hot.sh \
	      selftests/onn/onn_best_noise.sh

# `make models`: retrain the shipped ONNs with their fixed seeds, verify
# them exhaustively and compile their tables (hours on one core; a rerun
# resumes from the checkpoints in $(O)/models). Recipes: Documentation/onn.md.
# one thread and one kernel set: the float results, hence the models,
# depend on them (OpenBLAS picks its slowest kernels on CPUs it does not
# recognise, such as this project's VMs)
ONN_ENV := OPENBLAS_NUM_THREADS=1 OPENBLAS_CORETYPE=Haswell
# A model's recipe is one or more phases, each a train command resuming
# the checkpoint of the one before (--stop-after ends a phase early).
# `make models` starts from scratch; `make models ONN_RESUME=1` continues
# an interrupted run from its checkpoints.
# N = 4: 430 epochs of stage 2, then 370 with MZI phase noise 1e-3 rad in
# the loop on every point (robust to it: Documentation/onn.md, section 2)
ONN_PHASES_N4 := 1 2
ONN_TRAIN_N4_1 := -N 4 --seed 1 --epochs1 0 --epochs2 800 --batch 256 --lr2 2e-3 \
		  --stop-margin 0.3 --stop-after 430
ONN_TRAIN_N4_2 := -N 4 --seed 1 --epochs1 0 --epochs2 800 --batch 256 --lr2 1e-3 \
		  --stop-margin 0.4 --slack 0.5 --noise 1e-3
# N = 8, layers 2-7 as blocks (Table I), our best training so far (not
# exact, so not shipped: Documentation/onn.md, section 8), the first
# 162,173 epochs with the first layer along S (--s-invariant: 2,041 rows,
# 0.12-0.17 s an epoch here): the first 7,500 epochs of a 40,000-epoch cosine from 2e-3;
# a cosine from 1.8e-3 down to 2e-5 to epoch 15,000; 4,000 epochs flat at
# 4e-5 and 14,000 flat at 8e-5; a cosine from 8e-5 down to 2e-6 to epoch
# 37,000; with every value of S weighted 1 (--s-weights uniform), 4,058
# epochs flat at 2e-5, then flat at 6e-5 to epoch 54,536; with a loss
# margin of 0.15 instead of 0.3, two cosines from 6e-5 down to 1e-6 of
# 8,000 epochs each, flat at 1.5e-5 to epoch 93,342 and flat at 2.5e-5
# to epoch 109,977; then the 13 first-layer units off on every row
# revived, on below S = 27.5 + 32 i (--revive), and on at 2.5e-5 to
# epoch 162,173; then with each first-layer row seeing s_0..s_2 through
# S_3 and s_3 apart (--s-low 3: 12,625 rows, about 0.6 s an epoch), flat
# at 1e-5 to epoch 171,350; then through S_2 and s_2, s_3 apart (--s-low
# 2: 75,625 rows, 3.3-3.8 s an epoch) flat at 5e-6 to epoch 171,545
# and on at that rate to epoch 173,397 (two phases, as the runs were:
# the parameter average starts again at a resume), then on with the rows
# wrong at the last evaluation weighing 4 times (--boost 3) to epoch
# 175,290 and on to 175,550 (two phases, as the runs were: the boost
# is not in the checkpoint), then on from there at half the rate with
# seed 4's shuffles (the seed may change on resume: another walk from
# the same network) to epoch 176,437. Phases
# that write a model write their best epoch's
# network or parameter average (--ema, --keep-best); the last one's is
# the result. The phases are the runs of 2026-12-05 and 06 as they were run (a
# flat rate is a cosine ending at 1 times itself; a run stopped by a
# signal, one whose stage 2 ends there): 176,437 epochs, about 12 hours
# on one core here (about 42,300 s of training). A cosine over part of a
# stage sets --lr2 and --lr-end so that the stage's own cosine passes
# through the rates named (Documentation/onn.md, section 8, shows how).
# The model and its log go to
# $(O)/models; the same model, and the checkpoint to resume the run
# from, are in models/n8-train.
ONN_N8T := -N 8 --approx 2-7 --seed 1 --s-invariant --input-gain 8 \
	   --epochs1 0 --batch 256
ONN_N8TU := $(ONN_N8T) --s-weights uniform
ONN_N8TM := $(ONN_N8TU) --margin2 0.15 --ema 0.999 --keep-best
ONN_N8TM3 := $(subst --s-invariant,--s-low 3,$(ONN_N8TM))
ONN_N8TM2 := $(subst --s-invariant,--s-low 2,$(ONN_N8TM))
ONN_PHASES_N8T := 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20
ONN_TRAIN_N8T_1 := $(ONN_N8T) --epochs2 40000 --lr2 2e-3 --stop-after 7500
ONN_TRAIN_N8T_2 := $(ONN_N8T) --epochs2 15000 --lr2 3.6e-3 --lr-end 0.0056
ONN_TRAIN_N8T_3 := $(ONN_N8T) --epochs2 40000 --lr2 4e-5 --lr-end 1 \
		   --stop-after 19000
ONN_TRAIN_N8T_4 := $(ONN_N8T) --epochs2 40000 --lr2 8e-5 --lr-end 1 \
		   --stop-after 33000
ONN_TRAIN_N8T_5 := $(ONN_N8T) --epochs2 37000 --lr2 2.7341768e-3 \
		   --lr-end 7.3148157e-4 --ema 0.999 --keep-best
ONN_TRAIN_N8T_6 := $(ONN_N8TU) --epochs2 60000 --lr2 2e-5 --lr-end 1 \
		   --stop-after 41058
ONN_TRAIN_N8T_7 := $(ONN_N8TU) --epochs2 49281 --lr2 6e-5 --lr-end 1 \
		   --ema 0.999 --keep-best
ONN_TRAIN_N8T_8 := $(ONN_N8TU) --epochs2 54536 --lr2 6e-5 --lr-end 1 \
		   --ema 0.999 --keep-best
ONN_TRAIN_N8T_9 := $(ONN_N8TM) --epochs2 62536 --lr2 1.4822873e-3 \
		   --lr-end 6.7463306e-4
ONN_TRAIN_N8T_10 := $(ONN_N8TM) --epochs2 70536 --lr2 1.8800953e-3 \
		    --lr-end 5.3188794e-4
ONN_TRAIN_N8T_11 := $(ONN_N8TM) --epochs2 93342 --lr2 1.5e-5 --lr-end 1
ONN_TRAIN_N8T_12 := $(ONN_N8TM) --epochs2 109977 --lr2 2.5e-5 --lr-end 1
ONN_TRAIN_N8T_13 := $(ONN_N8TM) --epochs2 113165 --lr2 2.5e-5 --lr-end 1 \
		    --revive 27.5,32,4e-4
ONN_TRAIN_N8T_14 := $(ONN_N8TM) --epochs2 162173 --lr2 2.5e-5 --lr-end 1
ONN_TRAIN_N8T_15 := $(ONN_N8TM3) --epochs2 171350 --lr2 1e-5 --lr-end 1
ONN_TRAIN_N8T_16 := $(ONN_N8TM2) --epochs2 171545 --lr2 5e-6 --lr-end 1
ONN_TRAIN_N8T_17 := $(ONN_N8TM2) --epochs2 173397 --lr2 5e-6 --lr-end 1
ONN_TRAIN_N8T_18 := $(ONN_N8TM2) --epochs2 175290 --lr2 5e-6 --lr-end 1 --boost 3
ONN_TRAIN_N8T_19 := $(ONN_N8TM2) --epochs2 175550 --lr2 5e-6 --lr-end 1 --boost 3
ONN_TRAIN_N8T_20 := $(subst --seed 1,--seed 4,$(ONN_N8TM2)) --epochs2 176437 \
		    --lr2 2.5e-6 --lr-end 1 --boost 3

# N = 16, layers 2-9 as blocks (Table I), along S alone (4,081 rows,
# 1.2-1.4 s an epoch here beside one other run): one cosine over 4,000
# epochs from 2e-3 down to 2e-5, the best epoch's network or average
# written (Documentation/onn.md, section 8: the figure it reached, and
# what would finish it). About 1.5 hours on one core, then verify's
# minutes on all 5,764,801 points. The model, its log and verify's
# report go to $(O)/models; the log and the report are in
# models/n16-train.
ONN_PHASES_N16T := 1
ONN_TRAIN_N16T_1 := -N 16 --approx 2-9 --seed 1 --s-invariant --input-gain 8 \
		    --epochs1 0 --batch 256 --epochs2 4000 --lr2 2e-3 \
		    --lr-end 0.01 --ema 0.999 --keep-best

# N = 8 with its first layer on the axes (S_2, s_2, s_3) (--first-axes,
# Documentation/onn.md sections 2 and 5), from random weights, 2026-12-07
# (75,625 rows, 5-6.5 s an epoch here): 445 epochs at 2e-3 (the start of
# a 40,000-epoch cosine; the run was stopped there by hand), then one
# cosine through 1.5e-3 at epoch 446 down to 3e-5 at epoch 1,250. About
# 2 hours on one core. n8-axes-noise is the same run branched at epoch
# 290 with MZI phase noise 1e-4 on every layer in the loop (8.5-14 s an
# epoch): to 352 at 2e-3, then a cosine through 1.5e-3 meant to end at
# epoch 680, cut at 434 (9.3e-4) for one that ends at 625 with 3e-5, to
# fit the session. A second session went on from both ends the same day:
# n8-axes one cosine from 3e-4 at epoch 1,251 down to 5e-6 at 2,550 (4.1
# s an epoch), then 350 epochs flat at 5e-6 with the rows wrong at the
# last evaluation weighing 4 times (--boost 3; 4.2 s an epoch): about 3.7
# hours in all; n8-axes-noise one cosine from 2e-4 at 626 down to 5e-6 at
# 1,325 (8.6 s an epoch; about 3.3 hours in all). Neither
# was exact. A third session went on with n8-axes from epoch 2,900: one
# cosine from 2e-4 down to 5e-6 at epoch 4,300 (2.4-2.8 s an epoch), the
# 961 hidden units off on every row revived at its start (--revive-hidden
# 1e-3), stopped and resumed at epochs 3,146 and 3,389 as the run was;
# the last phase with MZI phase noise 1e-4 on every layer in the loop
# (4.5-15 s an epoch, median 5.2) and --stop-margin 0.3, so that it goes
# on past the first exact epochs (3,404 on) and keeps the exact one of the
# widest margin (exact, worst margin +0.114, about 5.5 hours of one core
# in all; the shipped N = 8 until phase 8). A fourth session added
# phase 8: 350 epochs flat at 1e-5, noise 1e-4 in the loop, the rows the
# noise moves trained (--noise-hot 2 --boost 3), and the epoch kept by
# the noise itself (--best-noise 20 --best-every 5: every fifth epoch the
# exact network and average on the same 20 chips, the fewest points lost
# kept, then the widest worst margin on them): 9.8 s an epoch, 29 s one
# with a check (medians), 4,671 s beside another run. It kept the average
# of epoch 4,565 (worst margin +0.109; on the 20 chips none lost, worst
# +0.055), which loses no point on verify's seeds 1-30 at 1e-4 (on 31-60
# 37 points, as phase 7's end 35), and is the shipped N = 8 (models-n8
# below). Section 2 gives what each phase reached, clean
# and under noise; models/n8-axes holds the logs, verify's reports and
# the checkpoint (epoch 4,650).
ONN_N8A := -N 8 --approx 2-7 --seed 1 --s-low 2 --first-axes --input-gain 8 \
	   --epochs1 0 --batch 256 --ema 0.999 --keep-best
# MZI phase noise 1e-4 on every layer in the loop (n8-axes-noise, n8-axes's
# last phase)
ONN_NOISE_1E4 := --noise 1e-4 --noise-layers all
ONN_N8AN := $(ONN_N8A) $(ONN_NOISE_1E4)
ONN_PHASES_N8A := 1 2 3 4 5 6 7 8
ONN_TRAIN_N8A_1 := $(ONN_N8A) --epochs2 40000 --lr2 2e-3 --stop-after 445
ONN_TRAIN_N8A_2 := $(ONN_N8A) --epochs2 1250 --lr2 0.0020769116 \
		   --lr-end 0.014444525
ONN_TRAIN_N8A_3 := $(ONN_N8A) --epochs2 2550 --lr2 0.00057770923 \
		   --lr-end 0.008654873
ONN_TRAIN_N8A_4 := $(ONN_N8A) --epochs2 2900 --lr2 5e-6 --lr-end 1 --boost 3
ONN_N8A5 := $(ONN_N8A) --epochs2 4300 --lr2 0.00081981027 --lr-end 0.0060989721
ONN_TRAIN_N8A_5 := $(ONN_N8A5) --revive-hidden 1e-3 --stop-after 3146
ONN_TRAIN_N8A_6 := $(ONN_N8A5) --stop-after 3389
ONN_TRAIN_N8A_7 := $(ONN_N8A5) $(ONN_NOISE_1E4) --stop-margin 0.3
ONN_TRAIN_N8A_8 := $(ONN_N8AN) --epochs2 4650 --lr2 1e-5 --lr-end 1 \
		   --stop-margin 0.3 --noise-hot 2 --boost 3 --best-noise 20 \
		   --best-every 5
ONN_PHASES_N8AN := 1 2 3 4 5
ONN_TRAIN_N8AN_1 := $(ONN_N8A) --epochs2 40000 --lr2 2e-3 --stop-after 290
ONN_TRAIN_N8AN_2 := $(ONN_N8AN) --epochs2 40000 --lr2 2e-3 --stop-after 352
ONN_TRAIN_N8AN_3 := $(ONN_N8AN) --epochs2 680 --lr2 0.0031503655 \
		    --lr-end 0.0095227046 --stop-after 434
ONN_TRAIN_N8AN_4 := $(ONN_N8AN) --epochs2 625 --lr2 0.0042763874 \
		    --lr-end 0.0070152671
ONN_TRAIN_N8AN_5 := $(ONN_N8AN) --epochs2 1325 --lr2 0.00036356101 \
		    --lr-end 0.01375285

# the last step of a model's recipe on FILE (no .onn): its table, which an
# exact model must give, or the accuracy of one that is not (verify's
# report in FILE.verify, its first line also appended to the log)
onn_COMPILE = $(ONN_ENV) $(ONN_BIN) compile $(1).onn -o $(1).tbl --require-exact > /dev/null
onn_VERIFY = $(ONN_ENV) $(ONN_BIN) verify $(1).onn > $(1).verify && \
	     head -1 $(1).verify | tee -a $(1).train.log

# models-NAME: $(1) the key of its ONN_PHASES_ and ONN_TRAIN_ lists, $(2)
# the folder of onn-NAME.onn and .train.log, $(3) NAME, $(4) COMPILE or
# VERIFY (the last step)
define onn_model_rule
.PHONY: models-$(3)
models-$(3): $$(ONN_BIN)
	$$(call msg,TRAIN,$(2)/onn-$(3).onn)
	@mkdir -p $$(O)/models $(2)
	$$(Q)$$(if $$(ONN_RESUME),,rm -f $$(O)/models/onn-$(3).ckpt $(2)/onn-$(3).train.log)
	$$(Q)$$(foreach p,$$(ONN_PHASES_$(1)),$$(ONN_ENV) nice -n 10 \
		$$(ONN_BIN) train $$(ONN_TRAIN_$(1)_$$(p)) --resume \
		--checkpoint $$(O)/models/onn-$(3).ckpt \
		-o $(2)/onn-$(3).onn >> $(2)/onn-$(3).train.log &&) true
	$$(call msg,$(4),$(2)/onn-$(3).onn)
	$$(Q)$$(call onn_$(4),$(2)/onn-$(3))
endef
$(eval $(call onn_model_rule,N4,models,n4,COMPILE))
$(eval $(call onn_model_rule,N8T,$(O)/models,n8-train,VERIFY))
$(eval $(call onn_model_rule,N16T,$(O)/models,n16-train,VERIFY))
$(eval $(call onn_model_rule,N8A,$(O)/models,n8-axes,VERIFY))
$(eval $(call onn_model_rule,N8AN,$(O)/models,n8-axes-noise,VERIFY))
models: models-n4

# The shipped N = 8: the network `make models-n8-axes` trains (exact from
# training alone, no finishing: Documentation/onn.md, section 2, "Exact on
# axes"), kept in models/n8-axes; models-n8 verifies it over the whole
# domain, copies it and compiles its table. Seconds.
# ONN_N8_FROM=$(O)/models/onn-n8-axes.onn ships a fresh `make
# models-n8-axes` instead.
ONN_N8_FROM ?= models/n8-axes/onn-n8-axes.onn

.PHONY: models-n8
models-n8: $(ONN_BIN)
	$(call msg,VERIFY,$(ONN_N8_FROM))
	$(Q)$(ONN_ENV) $(ONN_BIN) verify $(ONN_N8_FROM) --require-exact > /dev/null
	$(Q)cp $(ONN_N8_FROM) models/onn-n8.onn
	$(call msg,COMPILE,models/onn-n8.tbl)
	$(Q)$(ONN_ENV) $(ONN_BIN) compile models/onn-n8.onn -o models/onn-n8.tbl \
		--require-exact > /dev/null
models: models-n8

# The N = 8 shipped before 2026-12-07, into $(O)/models: the trained
# network of models/n8-train (108 of 390,625 points wrong) finished by
# `optinc-onn finish` (Documentation/onn.md, section 5, "Finishing a
# model"): six of layer 7's units that are off everywhere become windows
# of S on both sides of the three low drops where it is wrong (S = 28, 60,
# 124: --window auto finds them; they are 124-127,120-123,60-63,56-59,
# 28-31,24-27), the two readout rows with wrong points are fitted again by
# linear programs (the smallest rows with the widest margin). About a
# minute and a half; its log is also in models/n8-train.
# ONN_N8F_FROM=$(O)/models/onn-n8-train.onn finishes a fresh
# `make models-n8-train` instead.
ONN_N8F_FROM ?= models/n8-train/onn-n8.onn
ONN_FINISH_N8 := --window auto --gap 3

.PHONY: models-n8-finish
models-n8-finish: $(ONN_BIN)
	$(call msg,FINISH,$(O)/models/onn-n8-finished.onn)
	@mkdir -p $(O)/models
	$(Q)$(ONN_ENV) $(ONN_BIN) finish $(ONN_N8F_FROM) $(ONN_FINISH_N8) \
		-o $(O)/models/onn-n8-finished.onn > $(O)/models/onn-n8-finished.log
	$(call msg,COMPILE,$(O)/models/onn-n8-finished.tbl)
	$(Q)$(ONN_ENV) $(ONN_BIN) compile $(O)/models/onn-n8-finished.onn \
		-o $(O)/models/onn-n8-finished.tbl --require-exact > /dev/null

# Models built in closed form (optinc-onn construct, no training): the
# Table I architectures for N = 8 and N = 16, into $(O)/models (N = 16's
# table is 5.8 MB and verifying it takes minutes).
ONN_CONSTRUCT_N8 := -N 8 --arch 4-64-128-256-512-256-128-64-4 --approx 2-7
ONN_CONSTRUCT_N16 := -N 16 --arch 4-64-128-256-512-1024-512-256-128-64-4 \
		     --approx 2-9

# $(1) N, $(2) the folder, $(3) the target
define onn_construct_rule
.PHONY: $(3)
$(3): $$(ONN_BIN)
	$$(call msg,CONSTRUCT,$(2)/onn-n$(1).onn)
	@mkdir -p $(2)
	$$(Q)$$(ONN_ENV) $$(ONN_BIN) construct $$(ONN_CONSTRUCT_N$(1)) \
		-o $(2)/onn-n$(1).onn > $(2)/onn-n$(1).construct.log
	$$(Q)$$(ONN_ENV) nice -n 10 $$(ONN_BIN) verify $(2)/onn-n$(1).onn \
		--require-exact >> $(2)/onn-n$(1).construct.log
	$$(call msg,COMPILE,$(2)/onn-n$(1).tbl)
	$$(Q)$$(ONN_ENV) nice -n 10 $$(ONN_BIN) compile $(2)/onn-n$(1).onn \
		-o $(2)/onn-n$(1).tbl --require-exact > /dev/null
endef
$(eval $(call onn_construct_rule,8,$(O)/models,models-n8-construct))
$(eval $(call onn_construct_rule,16,$(O)/models,models-n16))
