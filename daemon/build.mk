# SPDX-License-Identifier: BSD-3-Clause
# daemon/: optincd, the OptINC switch on DPDK (Debian: libdpdk-dev).

OPTINCD_SRCS := daemon/main.c daemon/options.c daemon/eal_args.c \
		daemon/port.c daemon/l2.c daemon/l2_fwd.c daemon/arp.c daemon/icmp.c daemon/agg.c daemon/tx.c \
		daemon/job.c daemon/job_live.c daemon/table.c \
		daemon/datapath.c daemon/telemetry.c daemon/tlm_show.c daemon/uplink.c \
		daemon/optval.c daemon/job_spec.c daemon/lcore.c
OPTINCD_OBJS := $(OPTINCD_SRCS:%.c=$(O)/%.o)
OPTINCD      := $(O)/bin/optincd

# Expanded only when optincd is built, so `make deps` works without DPDK.
DPDK_CFLAGS = $(shell pkg-config --cflags libdpdk)
DPDK_LIBS   = $(shell pkg-config --libs libdpdk)

$(O)/daemon/.dpdk-found:
	@pkg-config --exists libdpdk || { echo "optincd: DPDK not found: install libdpdk-dev (make deps)" >&2; exit 1; }
	@mkdir -p $(dir $@) && touch $@

# log types "optinc" and "optinc.SUFFIX" (RTE_LOG_REGISTER_DEFAULT/_SUFFIX)
$(OPTINCD_OBJS): EXTRA_CFLAGS += $(DPDK_CFLAGS) -DRTE_LOG_DEFAULT_LOGTYPE=optinc
$(OPTINCD_OBJS): | $(O)/daemon/.dpdk-found

# A table= given as a bare file name is looked for in $(OPTINC_DATADIR),
# where `make install` puts models/ (optincd --table-dir overrides it).
# The stamp rebuilds options.o when the directory changes.
OPTINCD_DATADIR_STAMP := $(O)/daemon/datadir
$(OPTINCD_DATADIR_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(OPTINC_DATADIR)' | cmp -s - $@ || echo '$(OPTINC_DATADIR)' > $@
$(O)/daemon/options.o: $(OPTINCD_DATADIR_STAMP)
$(O)/daemon/options.o: EXTRA_CFLAGS += -DOPTINC_TABLE_DIR='"$(OPTINC_DATADIR)"'

$(OPTINCD): $(OPTINCD_OBJS) $(CORE_LIB)
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OPTINCD_OBJS) $(CORE_LIB) $(DPDK_LIBS) -lpthread

BINS += $(OPTINCD)
ALL_TARGETS += $(OPTINCD)

TEST_PROGS += selftests/daemon/options.sh selftests/daemon/datapath.sh \
	      selftests/daemon/ctl.sh selftests/daemon/errors.sh \
	      selftests/daemon/tables.sh selftests/daemon/logging.sh \
	      selftests/daemon/line.sh
