/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause) */
/*
 * A transport in its own shared object, loaded by lib/transport.c only
 * when a communicator asks for it (as NCCL loads its net plugins), so that
 * liboptinc itself needs none of the transport's libraries: the afxdp
 * transport (lib/transport_afxdp.c) is liboptinc-afxdp.so, with libxdp and
 * libbpf. Never installed: a plugin is built from the same tree as the
 * library that loads it, since its ops work on struct optinc_comm.
 */
#ifndef OPTINC_LIB_XPORT_PLUGIN_H
#define OPTINC_LIB_XPORT_PLUGIN_H

#include "transport.h"

/* Changes whenever this file, transport.h or struct optinc_comm does. */
#define OPTINC_XPORT_PLUGIN_VERSION	1
/* The one symbol a plugin exports: a struct optinc_xport_plugin. */
#define OPTINC_XPORT_PLUGIN_SYMBOL	"optinc_xport_plugin"
#define OPTINC_AFXDP_PLUGIN_FILE	"liboptinc-afxdp.so"

/**
 * struct optinc_xport_host - what the loading library lends a plugin
 * @vseterr: optinc_vseterr(): set the comm's message, return @err
 * @vlog:    optinc_vlog(): a line on stderr at OPTINC_LOG's level
 */
struct optinc_xport_host {
	int (*vseterr)(struct optinc_comm *c, int err, const char *fmt,
		       va_list ap);
	void (*vlog)(int level, const char *fmt, va_list ap);
};

/**
 * struct optinc_xport_plugin - a plugin's entry point
 * @version:     OPTINC_XPORT_PLUGIN_VERSION it was built with; the loader
 *               refuses any other before it touches the rest
 * @lib_version: OPTINC_LIB_VERSION_CODE it was built with (must match)
 * @comm_size:   sizeof(struct optinc_comm) it was built with (must match)
 * @ops:         the transport; ops->name is what opts.transport names
 * @init:        called once, before any op, with the host's functions;
 *               Return: 0 or a result code (the plugin cannot be used)
 */
struct optinc_xport_plugin {
	unsigned int version;
	unsigned int lib_version;
	unsigned int comm_size;
	const struct optinc_xport_ops *ops;
	int (*init)(const struct optinc_xport_host *host);
};

#endif /* OPTINC_LIB_XPORT_PLUGIN_H */
