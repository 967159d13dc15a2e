# SPDX-License-Identifier: BSD-3-Clause
# optinc: `make` builds everything, `make check` runs every test,
# `make demo` runs the main job (`make demo-paper`: its PyTorch workloads).
# Quiet unless V=1. Outputs go to $(O)/.

O	?= build
PREFIX	?= /usr/local
LIBDIR	?= $(PREFIX)/lib
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
WARN	:= -Wall -Wextra -Wno-unused-parameter -Wshadow -Wstrict-prototypes
BASE_CFLAGS := -std=gnu11 $(WARN) -D_GNU_SOURCE -MMD -MP -Iinclude -Ilib/include
ALL_CFLAGS = $(BASE_CFLAGS) $(CFLAGS) $(EXTRA_CFLAGS)

# Each part adds its outputs to these lists in its build.mk.
BINS	:=	# installed programs (in $(O)/bin)
LIBS	:=	# installed libraries
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

# Programs in $(BINS), libraries in $(LIBS) (symlinks kept), the public
# header and the pkg-config file $(PCFILE); python/build.mk adds the
# Python package.
install: all
	$(Q)install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/include/optinc \
		$(DESTDIR)$(LIBDIR)/pkgconfig
	$(Q)install -m 0755 $(BINS) $(DESTDIR)$(PREFIX)/bin/
	$(Q)install -m 0644 lib/include/optinc/optinc.h $(DESTDIR)$(PREFIX)/include/optinc/
	$(Q)cp -P $(LIBS) $(DESTDIR)$(LIBDIR)/
	$(Q)install -m 0644 $(PCFILE) $(DESTDIR)$(LIBDIR)/pkgconfig/

clean:
	$(Q)rm -rf $(O)

-include $(shell find $(O) -name '*.d' 2>/dev/null)
