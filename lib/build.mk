# SPDX-License-Identifier: BSD-3-Clause
# lib: liboptinc, the application library (shared and static) with the
# core archive inside, its pkg-config file, the afxdp transport's plugin,
# and its tests in selftests/lib.

LIB_SRCS := lib/error.c lib/log.c lib/env.c lib/comm.c lib/join.c \
	    lib/transport.c lib/transport_udp.c lib/pipe.c \
	    lib/allreduce.c lib/ar_switch.c lib/ar_ring.c lib/dtype.c \
	    lib/ring.c lib/request.c
LIB_OBJS := $(LIB_SRCS:%.c=$(O)/%.o)

LIB_HDR	 := lib/include/optinc/optinc.h
LIB_VERSION := $(shell sed -n 's/^\#define OPTINC_LIB_\(MAJOR\|MINOR\|PATCH\)[[:space:]]*\([0-9]*\).*/\2/p' $(LIB_HDR) | paste -sd.)
LIB_SONAME := liboptinc.so.$(firstword $(subst ., ,$(LIB_VERSION)))
LIB_SO_REAL := $(O)/lib/liboptinc.so.$(LIB_VERSION)
LIB_SO	 := $(O)/lib/liboptinc.so
LIB_A	 := $(O)/lib/liboptinc.a
LIB_PC	 := $(O)/lib/optinc.pc
LIB_MAP	 := lib/liboptinc.map

# The afxdp transport is a plugin (lib/xport_plugin.h) that liboptinc
# dlopen()s only when a communicator asks for afxdp: it alone needs libxdp
# and libbpf. Installed in $(LIBDIR)/optinc/, built in $(O)/lib/optinc/:
# the same place relative to liboptinc.so, where the library looks first.
AFXDP_SRCS := lib/transport_afxdp.c lib/afxdp_plugin.c
AFXDP_OBJS := $(AFXDP_SRCS:%.c=$(O)/%.o)
AFXDP_SO   := $(O)/lib/optinc/liboptinc-afxdp.so
AFXDP_MAP  := lib/liboptinc-afxdp.map
# the afxdp transport finds the XDP program's maps with bpf/maps.c
LIB_XDP_OBJ := $(O)/bpf/maps.o
LIB_XDP_LIBS = $(shell pkg-config --libs libxdp libbpf 2>/dev/null || echo -lxdp -lbpf)
LIB_PLUGIN_H := $(O)/lib/plugin_dir.h

$(LIB_OBJS) $(AFXDP_OBJS): EXTRA_CFLAGS += -fPIC -fvisibility=hidden
$(O)/lib/transport.o: EXTRA_CFLAGS += -I$(O)/lib
$(O)/lib/transport.o: $(LIB_PLUGIN_H)

$(LIB_SO_REAL): $(LIB_OBJS) $(CORE_LIB) $(LIB_MAP)
	$(call msg,LD,$@)
	$(Q)$(CC) -shared $(CFLAGS) $(LDFLAGS) -Wl,-soname,$(LIB_SONAME) \
		-Wl,--version-script=$(LIB_MAP) -Wl,-z,defs \
		-o $@ $(LIB_OBJS) $(CORE_LIB) -ldl -lpthread -lm

$(O)/lib/$(LIB_SONAME) $(LIB_SO): $(LIB_SO_REAL)
	$(call msg,LN,$@)
	$(Q)ln -sf $(notdir $<) $@

$(AFXDP_SO): $(AFXDP_OBJS) $(LIB_XDP_OBJ) $(CORE_LIB) $(AFXDP_MAP)
	$(call msg,LD,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -shared $(CFLAGS) $(LDFLAGS) \
		-Wl,--version-script=$(AFXDP_MAP) -Wl,-z,defs \
		-o $@ $(AFXDP_OBJS) $(LIB_XDP_OBJ) $(CORE_LIB) $(LIB_XDP_LIBS)

# the core's objects go in too, so that -loptinc is all a static link needs
$(LIB_A): $(LIB_OBJS) $(CORE_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@
	$(Q)ar rcs $@ $^

# Regenerated when PREFIX or LIBDIR change, rewritten only when they differ
# (so transport.o, which includes the plugin dir, rebuilds only then).
$(LIB_PC): lib/optinc.pc.in FORCE
	@mkdir -p $(dir $@)
	$(Q)sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' \
		-e 's|@VERSION@|$(LIB_VERSION)|' $< > $@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; \
	    else mv $@.tmp $@; printf '  %-7s %s\n' GEN $@; fi

$(LIB_PLUGIN_H): FORCE
	@mkdir -p $(dir $@)
	$(Q)printf '#define OPTINC_PLUGIN_DIR "%s"\n' '$(LIBDIR)/optinc' > $@.tmp
	$(Q)if cmp -s $@.tmp $@; then rm -f $@.tmp; \
	    else mv $@.tmp $@; printf '  %-7s %s\n' GEN $@; fi

.PHONY: FORCE
FORCE:

ALL_TARGETS += $(LIB_SO_REAL) $(O)/lib/$(LIB_SONAME) $(LIB_SO) $(LIB_A) \
	       $(LIB_PC) $(AFXDP_SO)
LIBS += $(LIB_SO_REAL) $(O)/lib/$(LIB_SONAME) $(LIB_SO) $(LIB_A)
PLUGINS += $(AFXDP_SO)
PCFILE := $(LIB_PC)

# ---- tests: a loopback UDP switch on core's state machine, ranks as threads

LIBTEST_HARNESS := $(O)/selftests/lib/udpswitch.o $(O)/selftests/lib/libtest.o \
		   $(O)/selftests/lib/dtref.o $(TAP_OBJ)
LIBTEST_PROGS := $(O)/selftests/lib/lib_api $(O)/selftests/lib/lib_allreduce \
		 $(O)/selftests/lib/lib_dtypes $(O)/selftests/lib/lib_nb \
		 $(O)/selftests/lib/lib_tail
LIBTEST_LINK := $(LIB_SO_REAL) $(O)/lib/$(LIB_SONAME) $(CORE_LIB)

$(LIBTEST_PROGS): %: %.o $(LIBTEST_HARNESS) $(LIBTEST_LINK)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBTEST_HARNESS) \
		$(O)/lib/$(LIB_SONAME) $(CORE_LIB) \
		-Wl,-rpath,'$$ORIGIN/../../lib' -lpthread -lm

$(O)/selftests/lib/lib_nb.o: EXTRA_CFLAGS += -Itools/bench

ALL_TARGETS += $(LIBTEST_PROGS)
TEST_PROGS += $(LIBTEST_PROGS) selftests/lib/exports.sh selftests/lib/plugin.sh
