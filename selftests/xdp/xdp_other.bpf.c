// SPDX-License-Identifier: GPL-2.0
/*
 * Another party's XDP program for the coexistence test: counts the frames it
 * sees and passes them, at libxdp's default priority.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <xdp/xdp_helpers.h>

char LICENSE[] SEC("license") = "GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} other_seen SEC(".maps");

struct {
	__uint(priority, XDP_DEFAULT_RUN_PRIO);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(other_xdp);

SEC("xdp")
int other_xdp(struct xdp_md *ctx)
{
	__u32 zero = 0;
	__u64 *n = bpf_map_lookup_elem(&other_seen, &zero);

	if (n)
		__sync_fetch_and_add(n, 1);
	return XDP_PASS;
}
