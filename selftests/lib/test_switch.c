// SPDX-License-Identifier: GPL-2.0
/*
 * The loopback test switch (udpswitch.c) as a process, for tests whose
 * ranks are processes (mpirun, a C++ program): prints "port P", serves one
 * job until its standard input closes or SIGTERM, then prints its counters.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "udpswitch.h"

static void tsw_stop(int sig)
{
	(void)sig;
}

static int tsw_opts(int argc, char **argv, struct udpsw_opts *o)
{
	int opt;

	while ((opt = getopt(argc, argv, "n:j:t:w:")) != -1) {
		switch (opt) {
		case 'n': o->size = atoi(optarg); break;
		case 'j': o->job = atoi(optarg); break;
		case 't': o->token = strtoul(optarg, NULL, 0); break;
		case 'w': o->window = atoi(optarg); break;
		default: return -EINVAL;
		}
	}
	return o->size && o->job ? 0 : -EINVAL;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = tsw_stop };
	struct udpsw_opts o = { .job = 1 };
	struct udpsw_stats st;
	struct udpsw *sw;
	char buf[64];
	int err;

	if (tsw_opts(argc, argv, &o)) {
		fprintf(stderr, "usage: test_switch -n SIZE [-j JOB] [-t TOKEN] [-w SLOTS]\n");
		return 2;
	}
	err = udpsw_start(&o, &sw);
	if (err) {
		fprintf(stderr, "test_switch: cannot start: %s\n", strerror(-err));
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	printf("port %u\n", udpsw_port(sw));
	fflush(stdout);
	while (read(STDIN_FILENO, buf, sizeof(buf)) > 0)
		;
	udpsw_get_stats(sw, &st);
	udpsw_stop(sw);
	printf("rx %llu tx %llu complete %llu resend %llu\n",
	       (unsigned long long)st.rx, (unsigned long long)st.tx,
	       (unsigned long long)st.complete, (unsigned long long)st.resend);
	return 0;
}
