// SPDX-License-Identifier: GPL-2.0
/*
 * nocap: run a command without CAP_NET_ADMIN (dropped from the bounding
 * set and from the current sets, so that exec cannot give it back).
 */
#include <stdio.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/capability.h>

int main(int argc, char **argv)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	unsigned int bit = 1u << (CAP_NET_ADMIN % 32), w = CAP_NET_ADMIN / 32;

	if (argc < 2) {
		fprintf(stderr, "usage: nocap COMMAND [ARG]...\n");
		return 2;
	}
	if (prctl(PR_CAPBSET_DROP, CAP_NET_ADMIN, 0, 0, 0) ||
	    syscall(SYS_capget, &h, d)) {
		perror("nocap: drop CAP_NET_ADMIN");
		return 1;
	}
	d[w].effective &= ~bit;
	d[w].permitted &= ~bit;
	d[w].inheritable &= ~bit;
	if (syscall(SYS_capset, &h, d)) {
		perror("nocap: capset");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
