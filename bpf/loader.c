// SPDX-License-Identifier: BSD-3-Clause
/*
 * Loader of the OptINC XDP/TC programs: open -> attach XDP through libxdp
 * (which loads the object) -> configure -> attach TC -> pin, one cleanup
 * path; detach undoes all of it; query reads the maps.
 */
#include <errno.h>
#include <stdarg.h>
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
#include <xdp/libxdp.h>

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

/*
 * libxdp's dispatcher runs each program as an freplace (BPF_PROG_TYPE_EXT)
 * extension of itself. Return: 0 when the kernel loads such programs, else
 * the errno of loading one (EPERM where a kernel refuses them outright).
 */
static int ld_ext_probe(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd;

	if (libbpf_probe_bpf_prog_type(BPF_PROG_TYPE_EXT, NULL) == 1)
		return 0;
	fd = bpf_prog_load(BPF_PROG_TYPE_EXT, NULL, "GPL", insns, 2, NULL);
	if (fd >= 0)
		close(fd);
	return fd >= 0 || errno == EINVAL ? -EOPNOTSUPP : -errno;
}

/*
 * Another XDP program is attached: ours can run beside it only from
 * libxdp's dispatcher, which needs freplace programs.
 */
static int ld_check_other(const char *ifname, const struct optinc_bpf_maps *m)
{
	int err = ld_ext_probe();

	if (!err)
		return 0;
	fprintf(stderr, "xdp: %s: XDP program '%s' (id %u) is attached, and this kernel cannot run a second one beside it: libxdp's dispatcher needs freplace (BPF_PROG_TYPE_EXT) programs, and loading one fails: %s. Detach that program first ('xdp-loader unload %s --all' or 'ip link set dev %s xdp off'), or use a kernel that loads freplace programs ('bpftool feature probe' says 'program_type ext is available')\n",
		ifname, m->other, m->other_id, strerror(-err), ifname, ifname);
	return -EBUSY;
}

/* Refuse a second attach of ours; check that ours can join another's. */
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
	return m.other_id ? ld_check_other(ifname, &m) : 0;
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

/* Configuration and TC filter; on failure neither stays. */
static int ld_attach_tc(const char *ifname, int ifindex,
			struct optinc_xdp *skel, const struct optinc_xdp_opts *o,
			struct optinc_bpf_cfg *cfg)
{
	int err;

	memset(cfg, 0, sizeof(*cfg));
	cfg->port = o->port ? o->port : OPTINC_UDP_PORT;
	cfg->dscp = o->dscp;
	cfg->pcp = o->pcp;
	cfg->priority = o->priority;
	err = ld_tc_attach(ifname, ifindex,
			   bpf_program__fd(skel->progs.optinc_tc), cfg);
	if (err)
		return err;
	err = ld_cfg_write(ifname, skel, cfg);	/* with OPTINC_BPF_F_CLSACT */
	if (err)
		ld_tc_detach(ifindex, cfg->flags);
	return err;
}

/*
 * While libxdp loads: warnings only (libbpf's info lines are about the
 * sections it skips, libxdp's about its own fallbacks).
 */
static int ld_libxdp_print(enum libxdp_print_level level, const char *fmt,
			   va_list ap)
{
	return level == LIBXDP_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

static int ld_libbpf_print(enum libbpf_print_level level, const char *fmt,
			   va_list ap)
{
	return level == LIBBPF_WARN ? vfprintf(stderr, fmt, ap) : 0;
}

/*
 * Our XDP program through libxdp, which loads the whole object: into its
 * dispatcher where the kernel has freplace (beside the programs there),
 * else alone on a free interface. Where freplace fails, the dispatcher
 * cannot load: libxdp is told to skip it rather than fail at it loudly.
 */
static int ld_attach_xdp(const char *ifname, int ifindex,
			 struct xdp_program *xp, const struct optinc_xdp_opts *o)
{
	enum xdp_attach_mode mode = o->generic ? XDP_MODE_SKB : XDP_MODE_NATIVE;
	libxdp_print_fn_t old = libxdp_set_print(ld_libxdp_print);
	libbpf_print_fn_t old_bpf = libbpf_set_print(ld_libbpf_print);
	int err;

	if (ld_ext_probe())
		setenv("LIBXDP_SKIP_DISPATCHER", "1", 0);
	err = xdp_program__attach(xp, ifindex, mode, 0);
	libbpf_set_print(old_bpf);
	libxdp_set_print(old);
	if (err)
		ld_err(err, ifname, o->generic ? "attach XDP through libxdp (generic mode)" :
		       "attach XDP through libxdp (native mode; 'mode generic' if the driver has none)");
	return err;
}

/**
 * optinc_xdp_attach() - load the OptINC programs and attach them to @ifname
 * @ifname: the server's interface towards the switch
 * @o:      mode and tagging
 *
 * XDP (native or generic) through libxdp and a clsact egress filter; maps
 * and programs pinned in OPTINC_BPF_PIN_DIR/@ifname. Fails when ours is
 * attached already, and when another XDP program is and the kernel cannot
 * run ours beside it (libxdp's dispatcher needs freplace). Errors are
 * printed.
 * Return: 0 or a negative errno.
 */
int optinc_xdp_attach(const char *ifname, const struct optinc_xdp_opts *o)
{
	enum xdp_attach_mode mode = o->generic ? XDP_MODE_SKB : XDP_MODE_NATIVE;
	DECLARE_LIBXDP_OPTS(xdp_program_opts, xo, .prog_name = OPTINC_BPF_PROG_XDP);
	libbpf_print_fn_t old;
	struct xdp_program *xp;
	struct optinc_xdp *skel;
	struct optinc_bpf_cfg cfg;
	int ifindex, err;

	ifindex = ld_ifindex(ifname);
	if (ifindex < 0)
		return ifindex;
	err = ld_check_free(ifname, ifindex);
	if (err)
		return err;
	old = libbpf_set_print(ld_libbpf_print);	/* libxdp's section: info */
	skel = optinc_xdp__open();
	libbpf_set_print(old);
	if (!skel)
		return ld_err(-errno, ifname, "open BPF object");
	xo.obj = skel->obj;
	xp = xdp_program__create(&xo);
	err = libxdp_get_error(xp);
	if (err) {
		ld_err(err, ifname, "libxdp: take the XDP program");
		goto out_destroy;
	}
	err = ld_attach_xdp(ifname, ifindex, xp, o);
	if (err)
		goto out_close;
	err = ld_attach_tc(ifname, ifindex, skel, o, &cfg);
	if (err)
		goto out_xdp;
	err = ld_pin(ifname, skel);
	if (!err)
		goto out_close;
	ld_tc_detach(ifindex, cfg.flags);
out_xdp:
	xdp_program__detach(xp, ifindex, mode, 0);
out_close:
	xdp_program__close(xp);
out_destroy:
	optinc_xdp__destroy(skel);
	return err;
}

/* Our program out of libxdp's dispatcher; the other programs stay. */
static int ld_xdp_undispatch(const char *ifname, int ifindex,
			     const struct optinc_bpf_maps *m)
{
	libbpf_print_fn_t old = libbpf_set_print(ld_libbpf_print);
	struct xdp_multiprog *mp = xdp_multiprog__get_from_ifindex(ifindex);
	struct xdp_program *p = NULL;
	int err = libxdp_get_error(mp);

	if (err) {
		libbpf_set_print(old);
		return ld_err(err, ifname, "libxdp: read the dispatcher");
	}
	while ((p = xdp_multiprog__next_prog(p, mp)) &&
	       xdp_program__id(p) != m->xdp_id)
		;
	if (!p) {
		fprintf(stderr, "xdp: %s: libxdp's dispatcher (id %u) runs our program (id %u) but does not list it: its pins under %s/xdp are not visible here (detach where attach ran, outside 'ip netns exec')\n",
			ifname, m->disp_id, m->xdp_id, OPTINC_BPF_FS);
		err = -ENOENT;
	} else {
		err = xdp_program__detach(p, ifindex,
					  xdp_multiprog__attach_mode(mp), 0);
		if (err)
			ld_err(err, ifname, "libxdp: detach our program from the dispatcher");
	}
	xdp_multiprog__close(mp);
	libbpf_set_print(old);
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

	if (m->disp_id)
		return ld_xdp_undispatch(ifname, ifindex, m);
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
	info->disp_id = m.disp_id;
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
