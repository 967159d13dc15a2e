// SPDX-License-Identifier: BSD-3-Clause
/*
 * Finding the maps of the OptINC programs attached to an interface through
 * the programs themselves: pins live in a bpffs that `ip netns exec` does
 * not carry from one command to the next, the attached programs do.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>

#include "loader.h"

#define MAPS_MAX_IDS	8

static void maps_init(struct optinc_bpf_maps *m)
{
	memset(m, 0, sizeof(*m));
	m->cfg = m->jobs = m->xsks = m->ctrs = -1;
}

static int *maps_slot(struct optinc_bpf_maps *m, const char *name)
{
	if (!strcmp(name, OPTINC_BPF_MAP_CFG))
		return &m->cfg;
	if (!strcmp(name, OPTINC_BPF_MAP_JOBS))
		return &m->jobs;
	if (!strcmp(name, OPTINC_BPF_MAP_XSKS))
		return &m->xsks;
	if (!strcmp(name, OPTINC_BPF_MAP_CTRS))
		return &m->ctrs;
	return NULL;
}

/**
 * optinc_bpf_prog_maps() - name and OptINC maps of a program
 * @id:   the program's id
 * @name: its name (16 bytes)
 * @m:    NULL, or where to store fds of the OptINC maps it uses that
 *        @m does not have yet
 * Return: 0 or a negative errno.
 */
int optinc_bpf_prog_maps(__u32 id, char name[16], struct optinc_bpf_maps *m)
{
	__u32 ids[MAPS_MAX_IDS], len, i;
	struct bpf_prog_info pi;
	struct bpf_map_info mi;
	int fd, mfd, *slot, err = 0;

	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0)
		return -errno;
	memset(&pi, 0, sizeof(pi));
	pi.nr_map_ids = MAPS_MAX_IDS;
	pi.map_ids = (__u64)(unsigned long)ids;
	len = sizeof(pi);
	if (bpf_obj_get_info_by_fd(fd, &pi, &len)) {
		err = -errno;
		goto out;
	}
	memcpy(name, pi.name, 16);
	for (i = 0; m && i < pi.nr_map_ids && i < MAPS_MAX_IDS; i++) {
		mfd = bpf_map_get_fd_by_id(ids[i]);
		if (mfd < 0)
			continue;
		memset(&mi, 0, sizeof(mi));
		len = sizeof(mi);
		slot = bpf_obj_get_info_by_fd(mfd, &mi, &len) ? NULL :
		       maps_slot(m, mi.name);
		if (slot && *slot < 0)
			*slot = mfd;
		else
			close(mfd);
	}
out:
	close(fd);
	return err;
}

/*
 * Our program among the programs libxdp's dispatcher @disp_id runs: the
 * freplace link whose target is the dispatcher. Links, not libxdp's pins,
 * since those live in a bpffs. Return: its id, or 0.
 */
static __u32 maps_dispatched(__u32 disp_id)
{
	struct bpf_link_info li;
	__u32 id = 0, found = 0, len;
	char name[16];
	int fd;

	while (!found && !bpf_link_get_next_id(id, &id)) {
		fd = bpf_link_get_fd_by_id(id);
		if (fd < 0)
			continue;
		memset(&li, 0, sizeof(li));
		len = sizeof(li);
		if (!bpf_obj_get_info_by_fd(fd, &li, &len) &&
		    li.type == BPF_LINK_TYPE_TRACING &&
		    li.tracing.target_obj_id == disp_id &&
		    !optinc_bpf_prog_maps(li.prog_id, name, NULL) &&
		    !strcmp(name, OPTINC_BPF_PROG_XDP))
			found = li.prog_id;
		close(fd);
	}
	return found;
}

static int maps_xdp(int ifindex, struct optinc_bpf_maps *m)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	char name[16];
	__u32 id, ours = 0;
	int err;

	err = bpf_xdp_query(ifindex, 0, &q);
	if (err)
		return err;
	id = q.drv_prog_id ? q.drv_prog_id : q.skb_prog_id;
	if (!id)
		return 0;
	err = optinc_bpf_prog_maps(id, name, NULL);
	if (err)
		return err;
	if (!strcmp(name, OPTINC_BPF_DISPATCHER))
		ours = maps_dispatched(id);
	if (ours) {
		m->disp_id = id;
		id = ours;
	} else if (strcmp(name, OPTINC_BPF_PROG_XDP)) {
		m->other_id = id;
		memcpy(m->other, name, sizeof(m->other));
		return 0;
	}
	m->xdp_id = id;
	m->xdp_mode = q.drv_prog_id ? XDP_ATTACHED_DRV : XDP_ATTACHED_SKB;
	return optinc_bpf_prog_maps(id, name, m);
}

/**
 * optinc_bpf_maps_get() - the OptINC XDP program and maps of an interface
 * @ifindex: the interface, in the caller's network namespace
 * @m:       filled; release with optinc_bpf_maps_put()
 *
 * Return: 0 when our XDP program is attached, -ENOENT when it is not
 * (m->other_id names another XDP program, if any), another negative errno
 * when the kernel could not be asked.
 */
int optinc_bpf_maps_get(int ifindex, struct optinc_bpf_maps *m)
{
	int err;

	maps_init(m);
	err = maps_xdp(ifindex, m);
	if (!err && !m->xdp_id)
		err = -ENOENT;
	if (err)
		optinc_bpf_maps_put(m);
	return err;
}

void optinc_bpf_maps_put(struct optinc_bpf_maps *m)
{
	int *fds[] = { &m->cfg, &m->jobs, &m->xsks, &m->ctrs };
	unsigned int i;

	for (i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		if (*fds[i] >= 0)
			close(*fds[i]);
		*fds[i] = -1;
	}
}
