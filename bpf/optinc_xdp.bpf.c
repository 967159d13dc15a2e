// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * Server-side OptINC programs: XDP steers a registered job's answers to its
 * AF_XDP socket and drops malformed OptINC frames; TC egress tags outgoing
 * DATA/JOIN frames (DSCP, skb priority, VLAN PCP) so a fabric can
 * prioritise them.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/pkt_cls.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>
#include <xdp/xdp_helpers.h>

#include <optinc/wire.h>
#include "optinc_bpf.h"

#define IP_MF_OFFSET	0x3fff
#define VLAN_HLEN	4
#define VLAN_PCP_SHIFT	13

char LICENSE[] SEC("license") = "Dual BSD/GPL";

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct optinc_bpf_cfg);
} optinc_cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, OPTINC_BPF_MAX_JOBS);
	__type(key, __u16);
	__type(value, struct optinc_bpf_job);
} optinc_jobs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, OPTINC_BPF_MAX_QUEUES);
	__type(key, __u32);
	__type(value, __u32);
} optinc_xsks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, OPTINC_CTR_NR);
	__type(key, __u32);
	__type(value, struct optinc_bpf_count);
} optinc_ctrs SEC(".maps");

/*
 * Where libxdp's dispatcher runs several XDP programs on one interface:
 * before the programs of default priority (50), and the next program runs
 * only on what we pass (frames we redirect or drop are ours).
 */
struct {
	__uint(priority, OPTINC_BPF_XDP_PRIO);
	__uint(XDP_PASS, 1);
} XDP_RUN_CONFIG(optinc_xdp);

/* A frame's headers, as far as oi_parse() got. */
struct oi_pkt {
	struct iphdr *ip;
	struct udphdr *udp;
	struct optinc_hdr *oh;
	__u32 l3_off;
	int vlan;		/* a VLAN tag is in the frame data */
	__u16 tci;		/* its TCI (host order) */
};

static __always_inline void oi_count(__u32 ctr, __u64 bytes)
{
	struct optinc_bpf_count *c = bpf_map_lookup_elem(&optinc_ctrs, &ctr);

	if (c) {
		c->packets++;
		c->bytes += bytes;
	}
}

static __always_inline struct optinc_bpf_cfg *oi_cfg(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&optinc_cfg, &zero);
}

/*
 * Find IPv4/UDP of an Ethernet frame (one VLAN tag allowed) and tell
 * whether it touches @port. Every header is bounds-checked against @end.
 * Return: 1 with pk->ip/udp set for an unfragmented UDP datagram from or
 * to @port, 0 for any other frame.
 */
static __always_inline int oi_parse_udp(void *data, void *end, __u16 port,
					struct oi_pkt *pk)
{
	struct ethhdr *eth = data;
	struct iphdr *ip;
	struct udphdr *udp;
	__u16 proto;
	__u32 ihl;

	if ((void *)(eth + 1) > end)
		return 0;
	proto = eth->h_proto;
	pk->l3_off = sizeof(*eth);
	pk->vlan = 0;
	if (proto == bpf_htons(ETH_P_8021Q) || proto == bpf_htons(ETH_P_8021AD)) {
		if (data + sizeof(*eth) + VLAN_HLEN > end)
			return 0;
		pk->tci = bpf_ntohs(*(__be16 *)(data + sizeof(*eth)));
		proto = *(__be16 *)(data + sizeof(*eth) + 2);
		pk->l3_off += VLAN_HLEN;
		pk->vlan = 1;
	}
	if (proto != bpf_htons(ETH_P_IP))
		return 0;
	ip = data + pk->l3_off;
	if ((void *)(ip + 1) > end || ip->version != 4 ||
	    ip->protocol != IPPROTO_UDP || (ip->frag_off & bpf_htons(IP_MF_OFFSET)))
		return 0;
	ihl = ip->ihl * 4;
	if (ihl < sizeof(*ip))
		return 0;
	udp = (void *)ip + ihl;
	if ((void *)(udp + 1) > end)
		return 0;
	if (udp->source != bpf_htons(port) && udp->dest != bpf_htons(port))
		return 0;
	pk->ip = ip;
	pk->udp = udp;
	return 1;
}

/*
 * Check an OptINC frame of @len bytes (the whole frame, also what is not
 * in the linear data): lengths, magic, version, type.
 * Return: -1 with pk->oh set when well-formed, else the drop counter.
 */
static __always_inline int oi_check(void *end, __u64 len, struct oi_pkt *pk)
{
	__u32 ihl = pk->ip->ihl * 4;
	__u32 tot = bpf_ntohs(pk->ip->tot_len);
	__u32 ulen = bpf_ntohs(pk->udp->len);
	struct optinc_hdr *oh = (void *)(pk->udp + 1);

	if (tot < ihl + sizeof(struct udphdr) || pk->l3_off + tot > len ||
	    ulen < sizeof(struct udphdr) + OPTINC_HDR_LEN ||
	    ulen > tot - ihl)
		return OPTINC_CTR_XDP_DROP_SHORT;
	if ((void *)oh + OPTINC_HDR_LEN > end)
		return OPTINC_CTR_XDP_DROP_SHORT;
	if (oh->magic != bpf_htons(OPTINC_MAGIC))
		return OPTINC_CTR_XDP_DROP_MAGIC;
	if (oh->version != OPTINC_VERSION)
		return OPTINC_CTR_XDP_DROP_VERSION;
	if (oh->type == 0 || oh->type > OPTINC_T_MAX)
		return OPTINC_CTR_XDP_DROP_TYPE;
	pk->oh = oh;
	return -1;
}

/* A well-formed frame: steer it when it answers a registered job. */
static __always_inline int oi_steer(struct xdp_md *ctx, __u16 port,
				    struct oi_pkt *pk, __u32 *ctr)
{
	struct optinc_bpf_job *job;
	__u16 id;
	__u8 t = pk->oh->type;

	*ctr = OPTINC_CTR_XDP_PASS_OPTINC;
	if (pk->udp->source != bpf_htons(port) ||
	    (t != OPTINC_T_RESULT && t != OPTINC_T_JOIN_ACK && t != OPTINC_T_NACK))
		return XDP_PASS;
	id = bpf_ntohs(pk->oh->job);
	job = bpf_map_lookup_elem(&optinc_jobs, &id);
	if (!job || pk->udp->dest != bpf_htons(job->port))
		return XDP_PASS;
	if (ctx->rx_queue_index != job->queue) {
		*ctr = OPTINC_CTR_XDP_PASS_QUEUE;
		return XDP_PASS;
	}
	if (bpf_redirect_map(&optinc_xsks, job->queue, XDP_PASS) != XDP_REDIRECT) {
		*ctr = OPTINC_CTR_XDP_PASS_NO_XSK;
		return XDP_PASS;
	}
	*ctr = OPTINC_CTR_XDP_REDIRECT;
	return XDP_REDIRECT;
}

SEC("xdp.frags")
int optinc_xdp(struct xdp_md *ctx)
{
	void *data = (void *)(long)ctx->data;
	void *end = (void *)(long)ctx->data_end;
	__u64 len = bpf_xdp_get_buff_len(ctx);
	struct optinc_bpf_cfg *cfg = oi_cfg();
	struct oi_pkt pk;
	__u32 ctr = OPTINC_CTR_XDP_PASS;
	int act = XDP_PASS, bad;

	if (cfg && oi_parse_udp(data, end, cfg->port, &pk)) {
		bad = oi_check(end, len, &pk);
		if (bad >= 0) {
			ctr = bad;
			act = XDP_DROP;
		} else {
			act = oi_steer(ctx, cfg->port, &pk, &ctr);
		}
	}
	oi_count(ctr, len);
	return act;
}

/*
 * What optinc_tc writes, read before the first write: helpers that change
 * the packet invalidate every pointer into it.
 */
struct oi_tag {
	__u8 vihl, tos;		/* IPv4 bytes 0 and 1 */
};

/* DSCP into the IPv4 TOS byte (ECN bits kept), checksum fixed. */
static __always_inline void oi_set_dscp(struct __sk_buff *skb, __u32 l3_off,
					const struct oi_tag *tg, __u8 dscp)
{
	__u8 ntos = (dscp << 2) | (tg->tos & 3);

	if (ntos == tg->tos)
		return;
	bpf_l3_csum_replace(skb, l3_off + offsetof(struct iphdr, check),
			    bpf_htons(tg->vihl << 8 | tg->tos),
			    bpf_htons(tg->vihl << 8 | ntos), 2);
	bpf_skb_store_bytes(skb, l3_off + offsetof(struct iphdr, tos), &ntos,
			    1, 0);
}

/* PCP of the frame's VLAN tag, in the data or in the skb's metadata. */
static __always_inline void oi_set_pcp(struct __sk_buff *skb,
				       const struct oi_pkt *pk, __u8 pcp)
{
	__u16 tci;
	__be16 ntci;
	__u32 proto;

	if (pk->vlan) {
		ntci = bpf_htons((pk->tci & 0x1fff) | (__u16)pcp << VLAN_PCP_SHIFT);
		bpf_skb_store_bytes(skb, sizeof(struct ethhdr), &ntci, 2, 0);
		return;
	}
	if (!skb->vlan_present)
		return;
	tci = (skb->vlan_tci & 0x1fff) | (__u16)pcp << VLAN_PCP_SHIFT;
	proto = skb->vlan_proto;
	if (bpf_skb_vlan_pop(skb) == 0)
		bpf_skb_vlan_push(skb, proto, tci);
}

/* Headers of egress frames are linear nearly always; pull them if not. */
static __always_inline int oi_tc_parse(struct __sk_buff *skb, __u16 port,
				       struct oi_pkt *pk)
{
	__u32 want = sizeof(struct ethhdr) + VLAN_HLEN + 60 +
		     sizeof(struct udphdr) + OPTINC_HDR_LEN;
	__u32 linear = skb->data_end - skb->data;

	if (linear < want && skb->len > linear)
		bpf_skb_pull_data(skb, skb->len < want ? skb->len : want);
	return oi_parse_udp((void *)(long)skb->data,
			    (void *)(long)skb->data_end, port, pk);
}

/* Return: 1 for a well-formed DATA or JOIN frame to the OptINC port. */
static __always_inline int oi_tc_ours(struct __sk_buff *skb, __u16 port,
				      struct oi_pkt *pk)
{
	__u8 t;

	if (pk->udp->dest != bpf_htons(port) ||
	    oi_check((void *)(long)skb->data_end, skb->len, pk) >= 0)
		return 0;
	t = pk->oh->type;
	return t == OPTINC_T_DATA || t == OPTINC_T_JOIN;
}

SEC("tc")
int optinc_tc(struct __sk_buff *skb)
{
	struct optinc_bpf_cfg *cfg = oi_cfg();
	struct oi_pkt pk;
	struct oi_tag tg;
	__u32 len = skb->len;

	if (!cfg || !oi_tc_parse(skb, cfg->port, &pk)) {
		oi_count(OPTINC_CTR_TC_PASS, len);
		return TC_ACT_OK;
	}
	if (!oi_tc_ours(skb, cfg->port, &pk)) {
		oi_count(OPTINC_CTR_TC_OPTINC, len);
		return TC_ACT_OK;
	}
	tg.vihl = *(__u8 *)pk.ip;
	tg.tos = pk.ip->tos;
	if (cfg->priority)
		skb->priority = cfg->priority;
	if (cfg->dscp != OPTINC_BPF_KEEP)
		oi_set_dscp(skb, pk.l3_off, &tg, cfg->dscp);
	if (cfg->pcp != OPTINC_BPF_KEEP)
		oi_set_pcp(skb, &pk, cfg->pcp);
	oi_count(OPTINC_CTR_TC_TAGGED, len);
	return TC_ACT_OK;
}
