// SPDX-License-Identifier: BSD-3-Clause
/*
 * Loader of the OptINC XDP/TC programs: open -> configure -> load -> attach
 * -> pin, one cleanup path; detach undoes all of it; query reads the maps.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <linux/if_link.h>
#include <linux/magic.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <optinc/wire.h>
#include "loader.h"
#include "optinc_xdp.skel.h"

#define LD_PIN_PROG_XDP	"xdp_prog"
#define LD_PIN_PROG_TC	"tc_prog"

static const char *const ld_pins[] = {
	OPTINC_BPF_MAP_CFG, OPTINC_BPF_MAP_JOBS, OPTINC_BPF_MAP_XSKS,
	OPTINC_BPF_MAP_CTRS, LD_PIN_PROG_XDP, LD_PIN_PROG_TC,
};

static int ld_err(int err, const char *ifname, const char *what)
{
	fprintf(stderr, "xdp: %s: %s: %s\n", ifname, what, strerror(-err));
	return err;
}

static int ld_ifindex(const char *ifname)
{
	int ifindex = if_nametoindex(ifname);

	if (!ifindex)
		return ld_err(-ENODEV, ifname, "no such interface");
	return ifindex;
}

static int ld_bpffs_mounted(void)
{
	struct statfs st;

	return !statfs(OPTINC_BPF_FS, &st) && st.f_type == BPF_FS_MAGIC;
}

static void ld_pin_dir(const char *ifname, char *dir, size_t len)
{
	snprintf(dir, len, "%s/%s", OPTINC_BPF_PIN_DIR, ifname);
}

/* bpffs on /sys/fs/bpf (mounted if it is not) and an empty pin directory. */
static int ld_pin_prepare(const char *ifname, const char *dir)
{
	if (!ld_bpffs_mounted() &&
	    mount("bpf", OPTINC_BPF_FS, "bpf", 0, "mode=0700"))
		return ld_err(-errno, ifname, "mount bpffs on " OPTINC_BPF_FS);
	if (mkdir(OPTINC_BPF_PIN_DIR, 0700) && errno != EEXIST)
		return ld_err(-errno, ifname, "mkdir " OPTINC_BPF_PIN_DIR);
	if (mkdir(dir, 0700)) {
		if (errno == EEXIST)
			fprintf(stderr, "xdp: %s: %s exists: stale pins, or pins of the same name from another network namespace ('optincctl xdp detach %s' removes stale ones)\n",
				ifname, dir, ifname);
		return ld_err(-errno, ifname, "mkdir pin directory");
	}
	return 0;
}

/* Remove what ld_pin() made; nothing else. */
static void ld_unpin(const char *ifname)
{
	char dir[64], path[128];
	unsigned int i;

	if (!ld_bpffs_mounted())
		return;
	ld_pin_dir(ifname, dir, sizeof(dir));
	for (i = 0; i < sizeof(ld_pins) / sizeof(ld_pins[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, ld_pins[i]);
		unlink(path);
	}
	rmdir(dir);
	rmdir(OPTINC_BPF_PIN_DIR);	/* only when no other interface's pins */
}

static int ld_pin(const char *ifname, struct optinc_xdp *skel)
{
	struct bpf_map *maps[] = { skel->maps.optinc_cfg, skel->maps.optinc_jobs,
				   skel->maps.optinc_xsks, skel->maps.optinc_ctrs };
	char dir[64], path[128];
	unsigned int i;
	int err;

	ld_pin_dir(ifname, dir, sizeof(dir));
	err = ld_pin_prepare(ifname, dir);
	if (err)
		return err;
	for (i = 0; i < sizeof(maps) / sizeof(maps[0]) && !err; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, ld_pins[i]);
		err = bpf_map__pin(maps[i], path);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, LD_PIN_PROG_XDP);
	err = err ?: bpf_program__pin(skel->progs.optinc_xdp, path);
	snprintf(path, sizeof(path), "%s/%s", dir, LD_PIN_PROG_TC);
	err = err ?: bpf_program__pin(skel->progs.optinc_tc, path);
	if (err) {
		ld_unpin(ifname);
		return ld_err(err, ifname, "pin maps and programs");
	}
	return 0;
}

/*
 * "No clsact qdisc" and "clsact exists" are answers here, not errors: keep
 * libbpf from printing the kernel's words for them.
 */
static int ld_tc_query(struct bpf_tc_hook *hook, struct bpf_tc_opts *opts)
{
	libbpf_print_fn_t old = libbpf_set_print(NULL);
	int err = bpf_tc_query(hook, opts);

	libbpf_set_print(old);
	return err;
}

static int ld_tc_hook_create(struct bpf_tc_hook *hook)
{
	libbpf_print_fn_t old = libbpf_set_print(NULL);
	int err = bpf_tc_hook_create(hook);

	libbpf_set_print(old);
	return err;
}

/* Our TC filter: its program id into m->tc_id, maps m lacks into @m. */
static void ld_maps_tc(int ifindex, struct optinc_bpf_maps *m)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = OPTINC_BPF_TC_HANDLE,
		    .priority = OPTINC_BPF_TC_PRIO);
	char name[16];

	if (ld_tc_query(&hook, &opts) ||
	    optinc_bpf_prog_maps(opts.prog_id, name, NULL) ||
	    strcmp(name, OPTINC_BPF_PROG_TC))
		return;
	m->tc_id = opts.prog_id;
	optinc_bpf_prog_maps(opts.prog_id, name, m);
}

/* Both programs; -ENOENT when neither is attached. */
static int ld_maps_get(int ifindex, struct optinc_bpf_maps *m)
{
	int err = optinc_bpf_maps_get(ifindex, m);

	if (err && err != -ENOENT)
		return err;
	ld_maps_tc(ifindex, m);
	if (m->xdp_id || m->tc_id)
		return 0;
	optinc_bpf_maps_put(m);
	return -ENOENT;
}

/* Refuse to replace a program that is there already, ours or not. */
static int ld_check_free(const char *ifname, int ifindex)
{
	struct optinc_bpf_maps m;
	int err = ld_maps_get(ifindex, &m);

	if (!err) {
		optinc_bpf_maps_put(&m);
		fprintf(stderr, "xdp: %s: OptINC programs are attached already (xdp id %u, tc id %u)\n",
			ifname, m.xdp_id, m.tc_id);
		return -EEXIST;
	}
	if (err != -ENOENT)
		return ld_err(err, ifname, "query attached programs");
	if (m.other_id) {
		fprintf(stderr, "xdp: %s: XDP program '%s' (id %u) is attached: detach it first\n",
			ifname, m.other, m.other_id);
		return -EBUSY;
	}
	return 0;
}

static int ld_tc_attach(const char *ifname, int ifindex, int prog_fd,
			struct optinc_bpf_cfg *cfg)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = OPTINC_BPF_TC_HANDLE,
		    .priority = OPTINC_BPF_TC_PRIO, .prog_fd = prog_fd);
	int err;

	err = ld_tc_hook_create(&hook);
	if (err && err != -EEXIST)
		return ld_err(err, ifname, "create clsact qdisc");
	if (!err)
		cfg->flags |= OPTINC_BPF_F_CLSACT;
	err = bpf_tc_attach(&hook, &opts);
	if (err) {
		if (cfg->flags & OPTINC_BPF_F_CLSACT) {
			hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
			bpf_tc_hook_destroy(&hook);
		}
		return ld_err(err, ifname, "attach TC egress program");
	}
	return 0;
}

static void ld_tc_detach(int ifindex, __u32 flags)
{
	LIBBPF_OPTS(bpf_tc_hook, hook, .ifindex = ifindex,
		    .attach_point = BPF_TC_EGRESS);
	LIBBPF_OPTS(bpf_tc_opts, opts, .handle = OPTINC_BPF_TC_HANDLE,
		    .priority = OPTINC_BPF_TC_PRIO);

	bpf_tc_detach(&hook, &opts);
	if (flags & OPTINC_BPF_F_CLSACT) {
		hook.attach_point = BPF_TC_INGRESS | BPF_TC_EGRESS;
		bpf_tc_hook_destroy(&hook);
	}
}

static int ld_cfg_write(const char *ifname, struct optinc_xdp *skel,
			const struct optinc_bpf_cfg *cfg)
{
	__u32 zero = 0;
	int err;

	err = bpf_map__update_elem(skel->maps.optinc_cfg, &zero, sizeof(zero),
				   cfg, sizeof(*cfg), BPF_ANY);
	return err ? ld_err(err, ifname, "write configuration map") : 0;
}

/* Attach the loaded programs; on failure nothing stays attached. */
static int ld_attach_progs(const char *ifname, int ifindex,
			   struct optinc_xdp *skel, const struct optinc_xdp_opts *o,
			   struct optinc_bpf_cfg *cfg)
{
	__u32 mode = o->generic ? XDP_FLAGS_SKB_MODE : XDP_FLAGS_DRV_MODE;
	int err;

	memset(cfg, 0, sizeof(*cfg));
	cfg->port = o->port ? o->port : OPTINC_UDP_PORT;
	cfg->dscp = o->dscp;
	cfg->pcp = o->pcp;
	cfg->priority = o->priority;
	err = ld_cfg_write(ifname, skel, cfg);
	if (err)
		return err;
	err = ld_tc_attach(ifname, ifindex,
			   bpf_program__fd(skel->progs.optinc_tc), cfg);
	if (err)
		return err;
	err = ld_cfg_write(ifname, skel, cfg);	/* with OPTINC_BPF_F_CLSACT */
	if (err)
		goto out_tc;
	err = bpf_xdp_attach(ifindex, bpf_program__fd(skel->progs.optinc_xdp),
			     mode | XDP_FLAGS_UPDATE_IF_NOEXIST, NULL);
	if (err) {
		ld_err(err, ifname, o->generic ? "attach XDP (generic mode)" :
			"attach XDP (native mode; 'mode generic' if the driver has none)");
		goto out_tc;
	}
	return 0;
out_tc:
	ld_tc_detach(ifindex, cfg->flags);
	return err;
}

/**
 * optinc_xdp_attach() - load the OptINC programs and attach them to @ifname
 * @ifname: the server's interface towards the switch
 * @o:      mode and tagging
 *
 * XDP (native or generic) and a clsact egress filter; maps and programs
 * pinned in OPTINC_BPF_PIN_DIR/@ifname. Fails when any XDP program (ours
 * too) is attached already. Errors are printed.
 * Return: 0 or a negative errno.
 */
int optinc_xdp_attach(const char *ifname, const struct optinc_xdp_opts *o)
{
	struct optinc_xdp *skel;
	struct optinc_bpf_cfg cfg;
	int ifindex, err;

	ifindex = ld_ifindex(ifname);
	if (ifindex < 0)
		return ifindex;
	err = ld_check_free(ifname, ifindex);
	if (err)
		return err;
	skel = optinc_xdp__open();
	if (!skel)
		return ld_err(-errno, ifname, "open BPF object");
	err = optinc_xdp__load(skel);
	if (err) {
		ld_err(err, ifname, "load BPF programs");
		goto out_destroy;
	}
	err = ld_attach_progs(ifname, ifindex, skel, o, &cfg);
	if (err)
		goto out_destroy;
	err = ld_pin(ifname, skel);
	if (err) {
		bpf_xdp_detach(ifindex, o->generic ? XDP_FLAGS_SKB_MODE :
			       XDP_FLAGS_DRV_MODE, NULL);
		ld_tc_detach(ifindex, cfg.flags);
	}
out_destroy:
	optinc_xdp__destroy(skel);
	return err;
}

/* Our XDP program off @ifindex, if it is still the one attached. */
static int ld_xdp_detach(const char *ifname, int ifindex,
			 const struct optinc_bpf_maps *m)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, opts);
	__u32 mode = m->xdp_mode == XDP_ATTACHED_SKB ? XDP_FLAGS_SKB_MODE :
						     XDP_FLAGS_DRV_MODE;
	int err;

	opts.old_prog_fd = bpf_prog_get_fd_by_id(m->xdp_id);
	if (opts.old_prog_fd < 0)
		return ld_err(-errno, ifname, "get XDP program");
	err = bpf_xdp_detach(ifindex, mode, &opts);
	close(opts.old_prog_fd);
	return err ? ld_err(err, ifname, "detach XDP program") : 0;
}

/**
 * optinc_xdp_detach() - undo optinc_xdp_attach() on @ifname
 *
 * Removes our XDP program, our TC filter, the clsact qdisc when attach
 * created it, and the pins. Programs of others are left alone.
 * Return: 0, -ENOENT when no OptINC program is attached, or a negative errno.
 */
int optinc_xdp_detach(const char *ifname)
{
	struct optinc_bpf_maps m;
	struct optinc_bpf_cfg cfg = { 0 };
	__u32 zero = 0;
	int ifindex, err;

	ifindex = ld_ifindex(ifname);
	if (ifindex < 0)
		return ifindex;
	err = ld_maps_get(ifindex, &m);
	if (err == -ENOENT) {
		ld_unpin(ifname);
		fprintf(stderr, "xdp: %s: no OptINC programs attached\n", ifname);
		return err;
	}
	if (err)
		return ld_err(err, ifname, "query attached programs");
	if (m.cfg >= 0)
		bpf_map_lookup_elem(m.cfg, &zero, &cfg);
	if (m.xdp_id)
		err = ld_xdp_detach(ifname, ifindex, &m);
	if (m.tc_id)
		ld_tc_detach(ifindex, cfg.flags);
	optinc_bpf_maps_put(&m);
	ld_unpin(ifname);
	return err;
}

/* Per-CPU counters, summed. */
static int ld_read_ctrs(int fd, struct optinc_bpf_count *ctr)
{
	int ncpu = libbpf_num_possible_cpus();
	struct optinc_bpf_count *v;
	__u32 i;
	int c;

	if (ncpu <= 0)
		return ncpu ? ncpu : -EINVAL;
	v = calloc(ncpu, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (i = 0; i < OPTINC_CTR_NR; i++) {
		memset(&ctr[i], 0, sizeof(ctr[i]));
		if (bpf_map_lookup_elem(fd, &i, v))
			continue;
		for (c = 0; c < ncpu; c++) {
			ctr[i].packets += v[c].packets;
			ctr[i].bytes += v[c].bytes;
		}
	}
	free(v);
	return 0;
}

static void ld_read_jobs(int fd, struct optinc_xdp_info *info)
{
	struct optinc_xdp_job *j;
	__u16 key, prev;
	int first = 1;

	info->njobs = 0;
	while (info->njobs < OPTINC_BPF_MAX_JOBS &&
	       !bpf_map_get_next_key(fd, first ? NULL : &prev, &key)) {
		first = 0;
		prev = key;
		j = &info->jobs[info->njobs];
		j->id = key;
		if (!bpf_map_lookup_elem(fd, &key, &j->v))
			info->njobs++;
	}
}

/**
 * optinc_xdp_query() - what is attached to @ifname, its settings and counters
 * Return: 0, -ENOENT when no OptINC program is attached (not printed), or
 * a negative errno (printed).
 */
int optinc_xdp_query(const char *ifname, struct optinc_xdp_info *info)
{
	struct optinc_bpf_maps m;
	char dir[64];
	__u32 zero = 0;
	int err;

	memset(info, 0, sizeof(*info));
	snprintf(info->ifname, sizeof(info->ifname), "%s", ifname);
	info->ifindex = ld_ifindex(ifname);
	if (info->ifindex < 0)
		return info->ifindex;
	err = ld_maps_get(info->ifindex, &m);
	if (err)
		return err == -ENOENT ? err :
		       ld_err(err, ifname, "query attached programs");
	info->xdp_id = m.xdp_id;
	info->xdp_mode = m.xdp_mode;
	info->tc_id = m.tc_id;
	if (m.cfg >= 0)
		bpf_map_lookup_elem(m.cfg, &zero, &info->cfg);
	if (m.jobs >= 0)
		ld_read_jobs(m.jobs, info);
	if (m.ctrs >= 0)
		err = ld_read_ctrs(m.ctrs, info->ctr);
	optinc_bpf_maps_put(&m);
	ld_pin_dir(ifname, dir, sizeof(dir));
	if (ld_bpffs_mounted() && !access(dir, F_OK))
		snprintf(info->pin_dir, sizeof(info->pin_dir), "%s", dir);
	return err ? ld_err(err, ifname, "read counters") : 0;
}
