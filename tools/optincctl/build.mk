# SPDX-License-Identifier: BSD-3-Clause
# tools/optincctl: optincctl, the datapaths' command line (Debian: libjson-c-dev).

# select.c: the datapath-neutral grammar (-d daemon|kmod) over daemon.c
# and kmod.c. Objects: daemon (DPDK telemetry), table, kmod (generic netlink, libnl),
# xdp (bpf/'s loader library with libbpf/libxdp).
OPTINCCTL_SRCS := tools/optincctl/optincctl.c tools/optincctl/print.c \
		  tools/optincctl/tel.c tools/optincctl/daemon.c \
		  tools/optincctl/table.c tools/optincctl/kmod.c \
		  tools/optincctl/words.c tools/optincctl/select.c \
		  tools/optincctl/xdp.c tools/optincctl/batch.c
OPTINCCTL_LIBS := $(CORE_LIB) $(O)/bpf/liboptinc-bpf.a
OPTINCCTL_LDLIBS = $(shell pkg-config --libs json-c 2>/dev/null || echo -ljson-c) \
	$(shell pkg-config --libs libnl-genl-3.0 2>/dev/null || echo -lnl-genl-3 -lnl-3) \
	$(BPF_LDLIBS)
OPTINCCTL_FLAGS := $(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null || echo -I/usr/include/libnl3)

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

# The man pages (optincctl.8, optincd.8) and bash completion, with `make install`.
MANDIR	?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
.PHONY: install-ctl-docs
install: install-ctl-docs
install-ctl-docs: all
	$(Q)install -d $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(BASHCOMPDIR)
	$(Q)install -m 0644 Documentation/man/optincctl.8 Documentation/man/optincd.8 \
		$(DESTDIR)$(MANDIR)/man8/
	$(Q)install -m 0644 tools/optincctl/optincctl.bash $(DESTDIR)$(BASHCOMPDIR)/optincctl
