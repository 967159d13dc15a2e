# SPDX-License-Identifier: GPL-2.0
# selftests/xdp: the server-side XDP/TC programs and the afxdp transport,
# in network namespaces the tests make themselves (root needed).

XDPT_DIR := $(O)/selftests/xdp
XDPCTL	 := $(XDPT_DIR)/xdpctl

$(XDPCTL): $(XDPT_DIR)/xdpctl.o $(O)/tools/optincctl/xdp.o $(BPF_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(BPF_LDLIBS)

XDP_FRAMES := $(XDPT_DIR)/oi_frames

$(XDP_FRAMES): $(XDPT_DIR)/oi_frames.o $(CORE_LIB)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

# liboptinc's afxdp transport alone: its plugin, loaded by liboptinc's
# own loader (lib/transport.c, from liboptinc.a)
XDP_XPORT := $(XDPT_DIR)/xport_afxdp

$(XDP_XPORT): $(XDPT_DIR)/xport_afxdp.o $(LIB_A) | $(AFXDP_SO)
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ -ldl -lpthread -lm

# another party's XDP program, for xdp_coexist.sh
XDP_OTHER := $(XDPT_DIR)/xdp_other.bpf.o

$(XDP_OTHER): selftests/xdp/xdp_other.bpf.c
	$(call msg,BPF,$@)
	@mkdir -p $(dir $@)
	$(Q)$(BPF_CLANG) $(BPF_CFLAGS) -c -o $@ $<

# coexist-vm: the dispatcher path on Debian's kernel, which (unlike this
# machine's) loads freplace programs
XDP_TESTS := selftests/xdp/xdp_prog.sh selftests/xdp/xdp_coexist.sh \
	     selftests/xdp/afxdp_testbed.sh selftests/xdp/coexist-vm

ALL_TARGETS += $(XDPCTL) $(XDP_FRAMES) $(XDP_XPORT) $(XDP_OTHER)
TEST_PROGS += $(XDP_TESTS)
