# SPDX-License-Identifier: BSD-3-Clause
# kmod: optinc.ko, built by Kbuild (the top-level Kbuild file) against kernel
# headers. Not part of `make all`, which must work without headers:
#   make kmod [KDIR=...]   the module, $(O)/kmod/optinc.ko
#   make kmod-vm           the module for Debian's kernel and the static
#                          programs selftests/kmod/run-vm boots with
#   make kmod-vm-lib       liboptinc's allreduce_check and collective_check
#                          (static) and optincd,
#                          to run the same allreduce through both datapaths
# Kbuild writes next to its sources, so it builds in $(O)/kmod/src, a tree
# of links to the sources.

KMOD_HDRS_PKG := linux-headers-amd64
# the core files the module is built from: Kbuild's list, the one list
KMOD_CORE := $(patsubst %.o,%.c,$(filter lib/core/%.o,$(shell cat Kbuild)))
KMOD_SRCS := $(wildcard kmod/*.c kmod/*.h) $(KMOD_CORE) \
	     lib/core/compat.h
KMOD_DEPS := Kbuild $(KMOD_SRCS) include/optinc/core.h include/optinc/bind.h include/optinc/ratelimit.h include/optinc/switch.h \
	     include/optinc/wire.h \
	     include/uapi/linux/optinc.h
KMOD_TREE := $(O)/kmod/src
KMOD_KO   := $(O)/kmod/optinc.ko
KMOD_STAMP := $(O)/kmod/kdir

# Headers of Debian's kernel (what the VM boots), from the package.
kmod_deb_kdir = $(shell dpkg-query -W -f='$${Depends}' $(KMOD_HDRS_PKG) \
	2>/dev/null | sed -n 's|^\(linux-headers-[^ ,]*\).*|/usr/src/\1|p')
# KDIR, else the running kernel's headers, else Debian's.
kmod_kdir = $(or $(KDIR),$(wildcard /lib/modules/$(shell uname -r)/build),$(kmod_deb_kdir))

.PHONY: kmod kmod-vm kmod-vm-lib kmod-clean kmod-force install-kmod nlspec

# The netlink spec and what scripts/nlspec generates from it (the uapi
# header, kmod/nl_policy.c, kmod/nl_spec.[ch], daemon/tlm_ctrs.h, kmod.md's
# reference): after editing the spec,
# `make nlspec`; selftests/netlink/spec_drift.py fails until then.
NLSPEC_SRC := Documentation/netlink/specs/optinc.yaml scripts/nlspec

nlspec:
	$(Q)scripts/nlspec gen

kmod: $(KMOD_KO)

# Rebuild when KDIR changes; rewritten only when it differs.
$(KMOD_STAMP): kmod-force
	@mkdir -p $(dir $@)
	@kdir='$(kmod_kdir)'; test -e "$$kdir/Makefile" || { \
		echo "kmod: no kernel headers$${kdir:+ in $$kdir}: install $(KMOD_HDRS_PKG) (make deps) or set KDIR=" >&2; \
		exit 1; }
	@echo '$(kmod_kdir)' | cmp -s - $@ || echo '$(kmod_kdir)' > $@

# The sub-make gets none of our MAKEFLAGS (O= would mean something else).
$(KMOD_KO): $(KMOD_DEPS) $(KMOD_STAMP)
	$(call msg,KMOD,$@)
	@mkdir -p $(KMOD_TREE)/kmod $(KMOD_TREE)/lib/core
	@for f in Kbuild $(KMOD_SRCS); do ln -sfn $(CURDIR)/$$f $(KMOD_TREE)/$$f; done
	@ln -sfn $(CURDIR)/include $(KMOD_TREE)/include
	$(Q)env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $(MAKE) -C "$$(cat $(KMOD_STAMP))" \
		M=$(abspath $(KMOD_TREE)) modules >$(KMOD_TREE)/build.log 2>&1 || \
		{ cat $(KMOD_TREE)/build.log >&2; exit 1; }
	$(Q)if [ "$(V)" = 1 ]; then cat $(KMOD_TREE)/build.log; fi
	@# quiet, but not about the compiler's warnings (one hid here once)
	$(Q)grep -A3 'warning:' $(KMOD_TREE)/build.log >&2 || true
	$(Q)cp $(KMOD_TREE)/optinc.ko $@

kmod-clean:
	$(Q)rm -rf $(O)/kmod

# `make install` installs the module when KDIR= is given or the running
# kernel's build directory exists (never for Debian's headers alone: they
# are the VM's kernel), by Kbuild's modules_install: into
# $(INSTALL_MOD_PATH)/lib/modules/KVER/$(INSTALL_MOD_DIR)/optinc.ko,
# INSTALL_MOD_PATH being DESTDIR unless given. Kbuild runs depmod only
# where the headers have a System.map: else `depmod -a KVER` once installed.
KMOD_INSTALL_KDIR := $(or $(KDIR),$(wildcard /lib/modules/$(shell uname -r)/build))
INSTALL_MOD_PATH ?= $(DESTDIR)
INSTALL_MOD_DIR ?= extra

install: install-kmod
ifneq ($(KMOD_INSTALL_KDIR),)
install-kmod: $(KMOD_KO)
	$(call msg,INSTALL,$(INSTALL_MOD_PATH)/lib/modules/.../$(INSTALL_MOD_DIR)/optinc.ko)
	$(Q)env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL $(MAKE) -C "$$(cat $(KMOD_STAMP))" \
		M=$(abspath $(KMOD_TREE)) INSTALL_MOD_PATH=$(abspath $(INSTALL_MOD_PATH)) \
		INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) modules_install \
		>$(KMOD_TREE)/install.log 2>&1 || \
		{ cat $(KMOD_TREE)/install.log >&2; exit 1; }
	$(Q)if [ "$(V)" = 1 ]; then cat $(KMOD_TREE)/install.log; fi
else
install-kmod:
	@echo "  SKIP    optinc.ko: no KDIR= and no /lib/modules/$(shell uname -r)/build (make install KDIR=...)"
endif

# ---- the VM test: static programs for an initramfs

KMOD_T := $(O)/selftests/kmod
NL_CFLAGS = $(shell pkg-config --cflags libnl-genl-3.0 2>/dev/null || echo -I/usr/include/libnl3)
NL_STATIC_LIBS = $(shell pkg-config --static --libs libnl-genl-3.0 2>/dev/null || echo -lnl-genl-3 -lnl-3 -lpthread)
KMOD_VM_PROGS := $(KMOD_T)/optincctl $(KMOD_T)/kmod_rank \
		 $(KMOD_T)/kmod_table $(KMOD_T)/nocap $(KMOD_T)/nlfuzz \
		 $(KMOD_T)/nlpolicy $(KMOD_T)/ps_inject $(KMOD_T)/nlspec.policy
# liboptinc's allreduce test rank, statically linked (kmod-vm-lib); the
# afxdp transport is a plugin, so liboptinc.a needs nothing more
KMOD_LIB_STATIC = -lpthread
# optincctl's xdp object links the XDP loader (libxdp, libbpf)
KMOD_CTL_STATIC = $(shell pkg-config --static --libs libxdp libbpf 2>/dev/null)

# the optincctl that ships, linked statically
$(KMOD_T)/optincctl: $(OPTINCCTL_OBJS) $(OPTINCCTL_LIBS)
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -static -o $@ $^ $(NL_STATIC_LIBS) -ljson-c $(KMOD_CTL_STATIC)

$(KMOD_T)/kmod_rank $(KMOD_T)/kmod_table $(KMOD_T)/nocap $(KMOD_T)/nlfuzz \
$(KMOD_T)/nlpolicy: %: %.o $(CORE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) -static -o $@ $^

# what nlpolicy checks the loaded module against: the spec's policies
$(KMOD_T)/nlspec.policy: $(NLSPEC_SRC)
	$(call msg,NLSPEC,$@)
	@mkdir -p $(dir $@)
	$(Q)scripts/nlspec policy >$@

$(KMOD_T)/ps_inject: $(O)/selftests/net/ps_inject.o $(CORE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) -static -o $@ $^

$(KMOD_T)/allreduce_check: $(O)/selftests/net/allreduce_check.o $(O)/lib/liboptinc.a
	$(call msg,LD,$@)
	$(Q)$(CC) -static -o $@ $^ $(KMOD_LIB_STATIC) -lm

$(KMOD_T)/collective_check: $(O)/selftests/net/collective_check.o \
		$(O)/selftests/lib/dtref.o $(O)/lib/liboptinc.a
	$(call msg,LD,$@)
	$(Q)$(CC) -static -o $@ $^ $(KMOD_LIB_STATIC) -lm

# The VM boots Debian's kernel: build for its headers (KDIR= still wins).
kmod-vm: KDIR = $(kmod_deb_kdir)
kmod-vm: $(KMOD_KO) $(KMOD_VM_PROGS)

kmod-vm-lib: $(KMOD_T)/allreduce_check $(KMOD_T)/collective_check $(O)/bin/optincd

TEST_PROGS += selftests/kmod/run-vm
