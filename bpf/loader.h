/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * User-space side of the OptINC XDP/TC programs: attach, detach and read
 * them (loader.c), and find the maps of the programs attached to an
 * interface (maps.c, also linked into liboptinc's afxdp transport).
 */
#ifndef OPTINC_BPF_LOADER_H
#define OPTINC_BPF_LOADER_H

#include <net/if.h>
#include <linux/types.h>
#include "optinc_bpf.h"

/**
 * struct optinc_bpf_maps - the OptINC programs attached to an interface
 * @xdp_id:   our XDP program's id, 0 when none is attached
 * @xdp_mode: XDP_ATTACHED_DRV or XDP_ATTACHED_SKB
 * @disp_id:  id of libxdp's dispatcher that runs our XDP program, 0 when
 *            ours is attached directly
 * @tc_id:    our TC egress program's id, 0 when none is attached (found
 *            by the loader only)
 * @other_id: id of another XDP program (or of a dispatcher without ours)
 *            found on the interface, or 0
 * @other:    its name
 * @cfg, @jobs, @xsks, @ctrs: map fds, -1 when not found
 */
struct optinc_bpf_maps {
	__u32	xdp_id;
	__u8	xdp_mode;
	__u32	disp_id;
	__u32	tc_id;
	__u32	other_id;
	char	other[16];
	int	cfg, jobs, xsks, ctrs;
};

int optinc_bpf_maps_get(int ifindex, struct optinc_bpf_maps *m);
int optinc_bpf_prog_maps(__u32 id, char name[16], struct optinc_bpf_maps *m);
void optinc_bpf_maps_put(struct optinc_bpf_maps *m);

/**
 * struct optinc_xdp_opts - how to attach
 * @generic:  XDP in generic (skb) mode instead of native (driver) mode
 * @port:     OptINC UDP port, 0: OPTINC_UDP_PORT
 * @dscp:     DSCP of outgoing DATA/JOIN frames (0..63) or OPTINC_BPF_KEEP
 * @pcp:      their VLAN PCP (0..7) or OPTINC_BPF_KEEP
 * @priority: their skb->priority, 0: leave
 */
struct optinc_xdp_opts {
	int	generic;
	__u16	port;
	__u8	dscp;
	__u8	pcp;
	__u32	priority;
};

/* What optinc_xdp_query() found on one interface. */
struct optinc_xdp_job {
	__u16	id;
	struct optinc_bpf_job v;
};

struct optinc_xdp_info {
	char	ifname[IF_NAMESIZE];
	int	ifindex;
	__u32	xdp_id;
	__u8	xdp_mode;
	__u32	disp_id;
	__u32	tc_id;
	struct optinc_bpf_cfg cfg;
	char	pin_dir[64];	/* "" when not pinned in this mount namespace */
	unsigned int njobs;
	struct optinc_xdp_job jobs[OPTINC_BPF_MAX_JOBS];
	struct optinc_bpf_count ctr[OPTINC_CTR_NR];
};

int optinc_xdp_attach(const char *ifname, const struct optinc_xdp_opts *o);
int optinc_xdp_detach(const char *ifname);
int optinc_xdp_query(const char *ifname, struct optinc_xdp_info *info);

#endif /* OPTINC_BPF_LOADER_H */
