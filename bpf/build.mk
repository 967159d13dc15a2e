# SPDX-License-Identifier: BSD-3-Clause
# bpf: the OptINC XDP/TC programs (%.bpf.c -> %.bpf.o -> %.skel.h) and
# their user-space side: BPF_LIB (loader + map lookup, for optincctl) and
# BPF_MAPS_OBJ (map lookup alone, for liboptinc's afxdp transport).

BPF_CLANG ?= clang
BPFTOOL	?= bpftool
BPF_ARCH_INC := /usr/include/$(shell $(CC) -dumpmachine 2>/dev/null)
BPF_CFLAGS := -O2 -g -target bpf -Wall -I$(BPF_ARCH_INC) -Iinclude -Ibpf

BPF_PROGS := bpf/optinc_xdp.bpf.c
BPF_OBJS  := $(BPF_PROGS:%.bpf.c=$(O)/%.bpf.o)
BPF_SKELS := $(BPF_PROGS:%.bpf.c=$(O)/%.skel.h)

BPF_LIB_OBJS := $(O)/bpf/loader.o $(O)/bpf/maps.o
BPF_LIB	     := $(O)/bpf/liboptinc-bpf.a
BPF_MAPS_OBJ := $(O)/bpf/maps.o
BPF_LDLIBS   := $(shell pkg-config --libs libxdp libbpf 2>/dev/null || echo -lxdp -lbpf -lelf -lz)

$(O)/bpf/%.bpf.o: bpf/%.bpf.c bpf/optinc_bpf.h include/optinc/wire.h
	$(call msg,BPF,$@)
	@command -v $(BPF_CLANG) >/dev/null || { echo "bpf: $(BPF_CLANG) not found: install clang llvm (make deps)" >&2; exit 1; }
	@test -e /usr/include/bpf/bpf_helpers.h || { echo "bpf: bpf/bpf_helpers.h not found: install libbpf-dev (make deps)" >&2; exit 1; }
	@mkdir -p $(dir $@)
	$(Q)$(BPF_CLANG) $(BPF_CFLAGS) -c -o $@ $<

$(O)/bpf/%.skel.h: $(O)/bpf/%.bpf.o
	$(call msg,SKEL,$@)
	@command -v $(BPFTOOL) >/dev/null || { echo "bpf: $(BPFTOOL) not found: install bpftool (make deps)" >&2; exit 1; }
	$(Q)$(BPFTOOL) gen skeleton $< name $* > $@.tmp && mv $@.tmp $@

$(O)/bpf/loader.o: $(BPF_SKELS)
$(BPF_LIB_OBJS): EXTRA_CFLAGS += -fPIC -I$(O)/bpf

$(BPF_LIB): $(BPF_LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)ar rcs $@ $^

ALL_TARGETS += $(BPF_LIB)

# the loader includes the skeleton; keep both for rebuilds and inspection
.SECONDARY: $(BPF_OBJS) $(BPF_SKELS)

-include selftests/xdp/build.mk
