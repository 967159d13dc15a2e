# SPDX-License-Identifier: BSD-3-Clause
# optinc: `make` builds everything, `make check` runs every test,
# `make demo` runs the main job (`make demo-paper`: its PyTorch workloads).
# Quiet unless V=1. Outputs go to $(O)/.

O	?= build
PREFIX	?= /usr/local
LIBDIR	?= $(PREFIX)/lib
DATADIR	?= $(PREFIX)/share
# truth tables and ONN models (models/), found there by optincd
OPTINC_DATADIR ?= $(DATADIR)/optinc
DESTDIR	?=
CC	?= cc
V	?= 0

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-7s %s\n' $(1) $(2)
endif

CFLAGS	?= -O2 -g
# a call to an undeclared function links against a guess: an error, not a warning
WARN	:= -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes \
	   -Werror=implicit-function-declaration -Werror=incompatible-pointer-types
BASE_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE -MMD -MP -Iinclude -Ilib/include
ALL_CFLAGS = $(BASE_CFLAGS) $(CFLAGS) $(EXTRA_CFLAGS)

# Each part adds its outputs to these lists in its build.mk.
BINS	:=	# installed programs (in $(O)/bin)
LIBS	:=	# installed libraries
PLUGINS	:=	# installed in $(LIBDIR)/optinc/, loaded by liboptinc when asked for
PCFILE	:=	# optinc.pc, made by lib/build.mk
TEST_PROGS :=	# test executables and scripts run by `make check`
# selftests/tap.c: TAP output, linked into the C tests not on kselftest_harness.h
TAP_OBJ := $(O)/selftests/tap.o
ALL_TARGETS :=

.PHONY: all check deps install clean demo demo-paper bench models soak
all:

include lib/core/build.mk
include lib/build.mk
include daemon/build.mk
include tools/build.mk
include examples/build.mk
include bpf/build.mk
include kmod/build.mk
include selftests/build.mk
include python/build.mk
-include mpi/build.mk

all: $(ALL_TARGETS)

$(O)/%.o: %.c
	$(call msg,CC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -c -o $@ $<

deps:
	$(Q)scripts/install-deps

check: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)O=$(O) selftests/run-tests $(TEST_PROGS)

# Programs in $(BINS) and the testbed tool (it runs the optincd beside it),
# libraries in $(LIBS) (symlinks kept), liboptinc's plugins in
# $(LIBDIR)/optinc/, the public header, the pkg-config
# file $(PCFILE), and the shipped models/ (truth tables, ONN models) in
# $(OPTINC_DATADIR), where optincd looks for a table= given by file name;
# python/build.mk adds the Python package, kmod/build.mk the module (with
# KDIR= or the running kernel's build directory).
INSTALL_MODELS := $(wildcard models/*.tbl models/*.onn)
TESTBED_TOOL := tools/testbed/optinc-testbed

install: all
	$(Q)install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include/optinc \
		$(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(LIBDIR)/optinc \
		$(DESTDIR)$(OPTINC_DATADIR)
	$(Q)install -m 0755 $(BINS) $(TESTBED_TOOL) $(DESTDIR)$(PREFIX)/bin/
	$(Q)install -m 0644 lib/include/optinc/optinc.h $(DESTDIR)$(PREFIX)/include/optinc/
	$(Q)cp -P $(LIBS) $(DESTDIR)$(LIBDIR)/
	$(Q)install -m 0755 $(PLUGINS) $(DESTDIR)$(LIBDIR)/optinc/
	$(Q)install -m 0644 $(PCFILE) $(DESTDIR)$(LIBDIR)/pkgconfig/
	$(Q)install -m 0644 $(INSTALL_MODELS) $(DESTDIR)$(OPTINC_DATADIR)/

clean:
	$(Q)rm -rf $(O)

-include $(shell find $(O) -name '*.d' 2>/dev/null)
