# SPDX-License-Identifier: BSD-3-Clause
# daemon/: optincd, the OptINC switch on DPDK (Debian: libdpdk-dev).

OPTINCD_SRCS := daemon/main.c daemon/options.c daemon/eal_args.c \
		daemon/port.c daemon/l2.c daemon/arp.c daemon/icmp.c daemon/agg.c \
		daemon/datapath.c daemon/telemetry.c daemon/uplink.c
OPTINCD_OBJS := $(OPTINCD_SRCS:%.c=$(O)/%.o)
OPTINCD      := $(O)/bin/optincd

# Expanded only when optincd is built, so `make deps` works without DPDK.
DPDK_CFLAGS = $(shell pkg-config --cflags libdpdk)
DPDK_LIBS   = $(shell pkg-config --libs libdpdk)

$(O)/daemon/.dpdk-found:
	@pkg-config --exists libdpdk || { echo "optincd: DPDK not found: install libdpdk-dev (make deps)" >&2; exit 1; }
	@mkdir -p $(dir $@) && touch $@

$(OPTINCD_OBJS): EXTRA_CFLAGS += $(DPDK_CFLAGS)
$(OPTINCD_OBJS): | $(O)/daemon/.dpdk-found

$(OPTINCD): $(OPTINCD_OBJS) $(CORE_LIB)
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OPTINCD_OBJS) $(CORE_LIB) $(DPDK_LIBS) -lpthread

BINS += $(OPTINCD)
ALL_TARGETS += $(OPTINCD)

TEST_PROGS += selftests/daemon/options.sh selftests/daemon/datapath.sh \
	      selftests/daemon/line.sh
