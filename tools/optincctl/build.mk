# SPDX-License-Identifier: BSD-3-Clause
# tools/optincctl: optincctl, the datapaths' command line (Debian: libjson-c-dev).

OPTINCCTL_SRCS := tools/optincctl/optincctl.c tools/optincctl/print.c \
		  tools/optincctl/tel.c tools/optincctl/daemon.c \
		  tools/optincctl/table.c
OPTINCCTL_LIBS := $(CORE_LIB)
OPTINCCTL_LDLIBS = $(shell pkg-config --libs json-c 2>/dev/null || echo -ljson-c)

# The kmod object comes with optinc.ko's netlink header (libnl-genl).
ifeq ($(words $(wildcard include/uapi/linux/optinc.h tools/optincctl/kmod.c)),2)
OPTINCCTL_SRCS += tools/optincctl/kmod.c
OPTINCCTL_LDLIBS += $(shell pkg-config --libs libnl-genl-3.0 2>/dev/null || echo -lnl-genl-3 -lnl-3)
OPTINCCTL_FLAGS += -DOPTINCCTL_KMOD $(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null || echo -I/usr/include/libnl3)
endif

# The xdp object comes with bpf/ (its loader library and libbpf/libxdp).
ifeq ($(words $(wildcard bpf/loader.h tools/optincctl/xdp.c)),2)
OPTINCCTL_SRCS += tools/optincctl/xdp.c
OPTINCCTL_LIBS += $(O)/bpf/liboptinc-bpf.a
OPTINCCTL_LDLIBS += $(BPF_LDLIBS)
OPTINCCTL_FLAGS += -DOPTINCCTL_XDP
endif

OPTINCCTL_OBJS := $(OPTINCCTL_SRCS:%.c=$(O)/%.o)
OPTINCCTL      := $(O)/bin/optincctl

$(O)/tools/optincctl/.json-c-found:
	@test -e /usr/include/json-c/json.h || { echo "optincctl: json-c not found: install libjson-c-dev (make deps)" >&2; exit 1; }
	@mkdir -p $(dir $@) && touch $@

$(OPTINCCTL_OBJS): EXTRA_CFLAGS += $(OPTINCCTL_FLAGS)
$(OPTINCCTL_OBJS): | $(O)/tools/optincctl/.json-c-found

$(OPTINCCTL): $(OPTINCCTL_OBJS) $(OPTINCCTL_LIBS)
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OPTINCCTL_OBJS) $(OPTINCCTL_LIBS) $(OPTINCCTL_LDLIBS)

BINS += $(OPTINCCTL)
ALL_TARGETS += $(OPTINCCTL)
