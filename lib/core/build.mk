# SPDX-License-Identifier: BSD-3-Clause
# lib/core: the freestanding reduction code, linked into every user-space
# datapath and tool as a static archive; kmod/ compiles the same sources.

CORE_SRCS := lib/core/frame.c lib/core/reduce.c lib/core/pam4.c \
	     lib/core/table.c lib/core/agg.c lib/core/reply.c \
	     lib/core/quant.c lib/core/quant_x86.c lib/core/quant_port.c \
	     lib/core/cascade.c lib/core/bind.c lib/core/ratelimit.c \
	     lib/core/switch.c lib/core/uplink.c lib/core/upstate.c \
	     lib/core/job_cfg.c lib/core/sw_send.c lib/core/sw_count.c
CORE_OBJS := $(CORE_SRCS:%.c=$(O)/%.o)
CORE_LIB  := $(O)/lib/liboptinc-core.a

$(CORE_OBJS): EXTRA_CFLAGS += -fPIC -O3
# compares that may see a NaN vectorize only when they need not trap
$(O)/lib/core/quant_port.o: EXTRA_CFLAGS += -fno-trapping-math

$(CORE_LIB): $(CORE_OBJS)
	$(call msg,AR,$@)
	$(Q)ar rcs $@ $^

ALL_TARGETS += $(CORE_LIB)
