// SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
/*
 * Sending and receiving through the communicator's transport, counted;
 * finding the transport a communicator names, loading its plugin.
 */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "xport_plugin.h"
#include "plugin_dir.h"	/* OPTINC_PLUGIN_DIR: $(LIBDIR)/optinc, made by lib/build.mk */

int optinc_xmit(struct optinc_comm *c, const struct optinc_pkt *p,
		unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		c->st.bytes_sent += p[i].len;
	c->st.frames_sent += n;
	return c->xp->ops->send(c, c->xp, p, n);
}

/* Receive into c->rxp[]; returns the frames received (0: timeout). */
int optinc_recv(struct optinc_comm *c, int timeout_ms)
{
	unsigned int i;
	int r;

	for (i = 0; i < OPTINC_RX_BATCH; i++) {
		c->rxp[i].buf = c->rx + (size_t)i * c->rx_room;
		c->rxp[i].len = c->rx_room;
	}
	r = c->xp->ops->recv(c, c->xp, c->rxp, OPTINC_RX_BATCH, timeout_ms);
	if (r <= 0)
		return r;
	c->st.frames_rcvd += r;
	for (i = 0; i < (unsigned int)r; i++)
		c->st.bytes_rcvd += c->rxp[i].len;
	return r;
}

/* ---- which transport: built in, or loaded from its plugin ---- */

/*
 * Where the afxdp plugin is looked for, in this order:
 * 1. OPTINC_AFXDP_PLUGIN (cfg.afxdp_plugin): that file, nothing else;
 * 2. optinc/ beside the liboptinc that is running (dladdr): the install
 *    dir of an installed library, $(O)/lib/optinc/ in the build tree, so
 *    that tests find the plugin of their own build first;
 * 3. OPTINC_PLUGIN_DIR, $(LIBDIR)/optinc at build time, where make
 *    install puts it (for a program linked with liboptinc.a, or a library
 *    copied elsewhere).
 * The first file that exists is the one: it loads, or the error says why.
 */
#define XPORT_CANDIDATES	3

static pthread_mutex_t xport_lock = PTHREAD_MUTEX_INITIALIZER;
static const struct optinc_xport_ops *xport_afxdp;	/* kept until exit */
static char xport_afxdp_path[PATH_MAX];

static const struct optinc_xport_host xport_host = {
	.vseterr = optinc_vseterr,
	.vlog	 = optinc_vlog,
};

/* The file names to try; Return: how many. */
static int xport_candidates(const struct optinc_comm *c,
			    char path[][PATH_MAX])
{
	const char *file = OPTINC_AFXDP_PLUGIN_FILE;
	Dl_info di;
	int n = 0;
	char *slash;

	if (c->cfg.afxdp_plugin) {
		snprintf(path[n++], PATH_MAX, "%s", c->cfg.afxdp_plugin);
		return n;
	}
	if (dladdr((void *)xport_candidates, &di) && di.dli_fname &&
	    (slash = strrchr(di.dli_fname, '/')))
		snprintf(path[n++], PATH_MAX, "%.*s/optinc/%s",
			 (int)(slash - di.dli_fname), di.dli_fname, file);
	snprintf(path[n++], PATH_MAX, "%s/%s", OPTINC_PLUGIN_DIR, file);
	return n;
}

/* Check and start the plugin dlopen()ed from @path as @h. */
static int xport_start(struct optinc_comm *c, const char *path, void *h)
{
	const struct optinc_xport_plugin *pl;
	size_t len;
	int err;

	dlerror();
	pl = dlsym(h, OPTINC_XPORT_PLUGIN_SYMBOL);
	if (!pl)
		return optinc_seterr(c, OPTINC_ERR_UNSUPPORTED,
				     "transport afxdp: %s is no liboptinc transport plugin: %s",
				     path, dlerror());
	if (pl->version != OPTINC_XPORT_PLUGIN_VERSION)
		return optinc_seterr(c, OPTINC_ERR_UNSUPPORTED,
				     "transport afxdp: plugin %s has interface version %u, this liboptinc needs %u: install both from one build",
				     path, pl->version,
				     OPTINC_XPORT_PLUGIN_VERSION);
	if (pl->lib_version != OPTINC_LIB_VERSION_CODE ||
	    pl->comm_size != sizeof(struct optinc_comm))
		return optinc_seterr(c, OPTINC_ERR_UNSUPPORTED,
				     "transport afxdp: plugin %s was built for liboptinc %u (comm of %u bytes), this is %u (%zu bytes): install both from one build",
				     path, pl->lib_version, pl->comm_size,
				     OPTINC_LIB_VERSION_CODE,
				     sizeof(struct optinc_comm));
	if (!pl->ops || strcmp(pl->ops->name, "afxdp"))
		return optinc_seterr(c, OPTINC_ERR_UNSUPPORTED,
				     "transport afxdp: plugin %s is transport '%s'",
				     path, pl->ops ? pl->ops->name : "(none)");
	err = pl->init ? pl->init(&xport_host) : 0;
	if (err)
		return optinc_seterr(c, err,
				     "transport afxdp: plugin %s did not start: %s",
				     path, optinc_strerror(err));
	xport_afxdp = pl->ops;
	len = OPTINC_MIN(strlen(path), sizeof(xport_afxdp_path) - 1);
	memcpy(xport_afxdp_path, path, len);
	xport_afxdp_path[len] = '\0';
	return 0;
}

static int xport_load_afxdp(struct optinc_comm *c)
{
	char path[XPORT_CANDIDATES][PATH_MAX], tried[512];
	int n, i, len = 0, err;
	void *h;

	n = xport_candidates(c, path);
	tried[0] = '\0';
	for (i = 0; i < n; i++) {
		if (access(path[i], F_OK)) {
			len += snprintf(tried + len, sizeof(tried) - len, "%s%s",
					i ? ", " : "", path[i]);
			if (len >= (int)sizeof(tried))
				len = sizeof(tried) - 1;
			continue;
		}
		h = dlopen(path[i], RTLD_NOW | RTLD_LOCAL);
		if (!h)
			return optinc_seterr(c, OPTINC_ERR_UNSUPPORTED,
					     "transport afxdp: cannot load plugin %s: %s",
					     path[i], dlerror());
		err = xport_start(c, path[i], h);
		if (err)
			dlclose(h);
		else
			optinc_log(OPTINC_LOG_INFO,
				   "transport afxdp: plugin %s", path[i]);
		return err;
	}
	return optinc_seterr(c, OPTINC_ERR_UNSUPPORTED,
			     "transport afxdp: plugin %s not found (tried %s): install it (make install puts it in %s) or set OPTINC_AFXDP_PLUGIN to its path",
			     OPTINC_AFXDP_PLUGIN_FILE, tried,
			     OPTINC_PLUGIN_DIR);
}

/**
 * optinc_xport_get() - the transport called @name
 * @from: where @name came from ("OPTINC_TRANSPORT", "opts.transport")
 * udp is built in; afxdp is loaded from its plugin at its first use in the
 * process and stays loaded.
 * Return: 0 with *ops set, OPTINC_ERR_INVALID for an unknown name, or
 * OPTINC_ERR_UNSUPPORTED when the plugin cannot be loaded; the comm's
 * message says which, naming the files.
 */
int optinc_xport_get(struct optinc_comm *c, const char *name,
		     const char *from, const struct optinc_xport_ops **ops)
{
	int err = 0;

	if (!strcmp(name, optinc_udp_ops.name)) {
		*ops = &optinc_udp_ops;
		return 0;
	}
	if (strcmp(name, "afxdp"))
		return optinc_seterr(c, OPTINC_ERR_INVALID,
				     "%s=%.32s: unknown transport (udp, afxdp)",
				     from, name);
	pthread_mutex_lock(&xport_lock);
	if (!xport_afxdp)
		err = xport_load_afxdp(c);
	else if (c->cfg.afxdp_plugin &&
		 strcmp(c->cfg.afxdp_plugin, xport_afxdp_path))
		optinc_log(OPTINC_LOG_WARN,
			   "OPTINC_AFXDP_PLUGIN=%s: plugin %s is loaded already; using it",
			   c->cfg.afxdp_plugin, xport_afxdp_path);
	*ops = xport_afxdp;
	pthread_mutex_unlock(&xport_lock);
	return err;
}
