// SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
/*
 * liboptinc-afxdp.so's entry point (xport_plugin.h): the afxdp transport of
 * transport_afxdp.c, and the two functions of liboptinc it calls, which
 * liboptinc lends it at init (they are hidden there).
 */
#include "xport_plugin.h"

extern const struct optinc_xport_ops optinc_afxdp_ops;

static const struct optinc_xport_host *afxdp_host;

int optinc_seterr(struct optinc_comm *c, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err = afxdp_host->vseterr(c, err, fmt, ap);
	va_end(ap);
	return err;
}

void optinc_log(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	afxdp_host->vlog(level, fmt, ap);
	va_end(ap);
}

static int afxdp_plugin_init(const struct optinc_xport_host *host)
{
	if (!host || !host->vseterr || !host->vlog)
		return OPTINC_ERR_INVALID;
	afxdp_host = host;
	return 0;
}

__attribute__((visibility("default")))
const struct optinc_xport_plugin optinc_xport_plugin = {
	.version	= OPTINC_XPORT_PLUGIN_VERSION,
	.lib_version	= OPTINC_LIB_VERSION_CODE,
	.comm_size	= sizeof(struct optinc_comm),
	.ops		= &optinc_afxdp_ops,
	.init		= afxdp_plugin_init,
};
