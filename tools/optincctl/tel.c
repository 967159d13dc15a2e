// SPDX-License-Identifier: BSD-3-Clause
/*
 * A client of DPDK's telemetry socket (v2): SOCK_SEQPACKET, the server
 * greets with a JSON object that says max_output_len, then answers each
 * command ("/optinc/job,1") with {"/optinc/job": VALUE}.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "optincctl.h"

#define TEL_SOCKET	"dpdk_telemetry.v2"
#define TEL_HELLO_MAX	4096

/* Where EAL puts its runtime directory, as rte_eal_init() decides it. */
static void tel_path(char *buf, size_t len, const char *prefix)
{
	const char *dir = "/var/run";

	if (getuid() != 0) {
		dir = getenv("XDG_RUNTIME_DIR");
		if (!dir)
			dir = "/tmp";
	}
	snprintf(buf, len, "%s/dpdk/%s/" TEL_SOCKET, dir, prefix);
}

static int tel_hello(struct optincctl_tel *t)
{
	char buf[TEL_HELLO_MAX + 1];
	json_object *hello, *v;
	ssize_t n;

	n = recv(t->fd, buf, TEL_HELLO_MAX, 0);
	if (n <= 0)
		return n < 0 ? -errno : -ECONNRESET;
	buf[n] = '\0';
	hello = json_tokener_parse(buf);
	t->max_len = 16384;
	if (hello && json_object_object_get_ex(hello, "max_output_len", &v))
		t->max_len = (size_t)json_object_get_uint64(v);
	json_object_put(hello);
	return 0;
}

/**
 * optincctl_tel_open() - connect to optincd's telemetry socket
 * @t:      the connection
 * @prefix: optincd's --file-prefix
 *
 * Return: 0, or a negative errno (reported).
 */
int optincctl_tel_open(struct optincctl_tel *t, const char *prefix)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int ret;

	tel_path(t->path, sizeof(t->path), prefix);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", t->path);
	t->fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	if (t->fd < 0) {
		ret = -errno;
		fprintf(stderr, "optincctl: socket: %s\n", strerror(-ret));
		return ret;
	}
	ret = connect(t->fd, (struct sockaddr *)&sun, sizeof(sun)) ? -errno :
	      tel_hello(t);
	if (ret) {
		fprintf(stderr, "optincctl: cannot talk to optincd at %s: %s "
			"(is it running with --file-prefix %s?)\n", t->path,
			strerror(-ret), prefix);
		close(t->fd);
		t->fd = -1;
		return ret;
	}
	return 0;
}

static json_object *tel_value(json_object *reply, const char *cmd)
{
	size_t n = strcspn(cmd, ",");
	char key[128];
	json_object *v;

	snprintf(key, sizeof(key), "%.*s", (int)n, cmd);
	if (!json_object_object_get_ex(reply, key, &v) ||
	    json_object_is_type(v, json_type_null))
		return NULL;
	return json_object_get(v);
}

/*
 * optincd refuses a request's parameters with {"error": WHY, "param":
 * NAME} (daemon/telemetry.c tlm_error()); /optinc/table's "installed" 0 is an answer.
 */
static int tel_refused(const char *cmd, json_object *v)
{
	json_object *why, *param;

	if (!json_object_is_type(v, json_type_object) ||
	    !json_object_object_get_ex(v, "error", &why) ||
	    !json_object_object_get_ex(v, "param", &param))
		return 0;
	fprintf(stderr, "optincctl: optincd refused %s: %s\n", cmd,
		json_object_get_string(why));
	return -EINVAL;
}

/**
 * optincctl_tel_query() - send one command, get its value
 * @t:   the connection
 * @cmd: the command with its parameters, e.g. "/optinc/job,1"
 * @out: the value (put it with json_object_put())
 *
 * Return: 0, -ENOENT when the daemon answers null (no such command, or
 * it is stopping; not reported), -EINVAL when it refused the parameters
 * (a job it does not have; reported), or another negative errno
 * (reported).
 */
int optincctl_tel_query(struct optincctl_tel *t, const char *cmd,
			json_object **out)
{
	char *buf = malloc(t->max_len + 1);
	json_object *reply;
	ssize_t n = -1;
	int ret = 0;

	if (!buf)
		return -ENOMEM;
	if (send(t->fd, cmd, strlen(cmd), 0) < 0 ||
	    (n = recv(t->fd, buf, t->max_len, 0)) < 0)
		ret = -errno;
	else if (n == 0)
		ret = -ECONNRESET;
	if (ret) {
		fprintf(stderr, "optincctl: %s: %s\n", cmd, strerror(-ret));
		goto out;
	}
	buf[n] = '\0';
	reply = json_tokener_parse(buf);
	if (!reply) {
		fprintf(stderr, "optincctl: %s: the answer is not JSON\n", cmd);
		ret = -EBADMSG;
		goto out;
	}
	*out = tel_value(reply, cmd);
	json_object_put(reply);
	if (!*out)
		ret = -ENOENT;
	else if ((ret = tel_refused(cmd, *out))) {
		json_object_put(*out);
		*out = NULL;
	}
out:
	free(buf);
	return ret;
}

void optincctl_tel_close(struct optincctl_tel *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}
