// SPDX-License-Identifier: (LGPL-2.1 OR BSD-3-Clause)
/* Result codes, their names, and the message of a communicator's last error. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* The message of this thread's last failed optinc_comm_create(). */
static __thread char err_create[OPTINC_ERRMSG_LEN];

unsigned int optinc_version(void)
{
	return OPTINC_LIB_VERSION_CODE;
}

const char *optinc_strerror(int err)
{
	switch (err) {
	case OPTINC_OK:
		return "success";
	case OPTINC_ERR_INVALID:
		return "invalid argument or option";
	case OPTINC_ERR_NOMEM:
		return "out of memory";
	case OPTINC_ERR_TIMEOUT:
		return "timed out: the switch or a rank did not answer";
	case OPTINC_ERR_REFUSED:
		return "the switch refused the join";
	case OPTINC_ERR_RANGE:
		return "input value not finite or out of range";
	case OPTINC_ERR_UNSUPPORTED:
		return "datatype, operation or transport not supported";
	case OPTINC_ERR_PROTO:
		return "protocol error: unexpected answer from the switch";
	case OPTINC_ERR_SYSTEM:
		return "a system call failed";
	default:
		return "unknown result code";
	}
}

int optinc_vseterr(struct optinc_comm *c, int err, const char *fmt,
		   va_list ap)
{
	vsnprintf(c->errmsg, sizeof(c->errmsg), fmt, ap);
	return err;
}

int optinc_seterr(struct optinc_comm *c, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	optinc_vseterr(c, err, fmt, ap);
	va_end(ap);
	return err;
}

void optinc_keep_create_err(const char *msg)
{
	snprintf(err_create, sizeof(err_create), "%s", msg);
}

/* optinc_comm_errmsg(NULL); a comm's own messages are in request.c */
const char *optinc_create_errmsg(void)
{
	return err_create;
}
