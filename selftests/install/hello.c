// SPDX-License-Identifier: GPL-2.0
/*
 * The smallest liboptinc program, built by selftests/install/install.sh
 * against a staged `make install` through pkg-config: the version of the
 * library it runs on, then one int32 SUM (exact) on the switch and rank
 * that OPTINC_SWITCH, OPTINC_JOB, OPTINC_RANK and OPTINC_SIZE name.
 */
#include <stdio.h>
#include <optinc/optinc.h>

int main(void)
{
	int32_t x[4] = { 1, -2, 3, -4 };
	struct optinc_comm *comm;
	OPTINC_OPTS(opts, .bits = 8);
	int err;

	printf("liboptinc %u, header %u\n", optinc_version(),
	       OPTINC_LIB_VERSION_CODE);
	err = optinc_comm_create(&opts, &comm);
	if (err) {
		fprintf(stderr, "%s: %s\n", optinc_strerror(err),
			optinc_comm_errmsg(NULL));
		return 1;
	}
	err = optinc_allreduce(comm, x, x, 4, OPTINC_INT32, OPTINC_SUM);
	if (err)
		fprintf(stderr, "%s\n", optinc_comm_errmsg(comm));
	else
		printf("sum %d %d %d %d\n", x[0], x[1], x[2], x[3]);
	optinc_comm_destroy(comm);
	return err ? 1 : 0;
}
