// SPDX-License-Identifier: GPL-2.0
/* Prints the layout of optinc.h's structs, for py_unit.py to compare with ctypes. */
#include <stddef.h>
#include <stdio.h>

#include <optinc/optinc.h>

#define F(s, f)	printf("%s %s %zu %zu\n", #s, #f, offsetof(struct s, f), \
		       sizeof(((struct s *)0)->f))

int main(void)
{
	printf("optinc_opts sizeof %zu 0\n", sizeof(struct optinc_opts));
	F(optinc_opts, sz); F(optinc_opts, rank); F(optinc_opts, size);
	F(optinc_opts, switch_addr); F(optinc_opts, job); F(optinc_opts, token);
	F(optinc_opts, bits); F(optinc_opts, timeout_ms);
	F(optinc_opts, retx_ms); F(optinc_opts, window); F(optinc_opts, mtu);
	F(optinc_opts, block); F(optinc_opts, algo); F(optinc_opts, transport);
	F(optinc_opts, bind_addr); F(optinc_opts, peers);
	F(optinc_opts, ring_port); F(optinc_opts, reserved0);
	F(optinc_opts, nonfinite);
	printf("optinc_comm_stats sizeof %zu 0\n",
	       sizeof(struct optinc_comm_stats));
	F(optinc_comm_stats, sz); F(optinc_comm_stats, calls);
	F(optinc_comm_stats, frames_sent); F(optinc_comm_stats, frames_rcvd);
	F(optinc_comm_stats, bytes_sent); F(optinc_comm_stats, bytes_rcvd);
	F(optinc_comm_stats, retransmits); F(optinc_comm_stats, dup_results);
	F(optinc_comm_stats, frames_ignored); F(optinc_comm_stats, probes);
	F(optinc_comm_stats, tail_probes);
	printf("codes %d %d %d %d %d %d %d %d\n", OPTINC_ERR_INVALID,
	       OPTINC_ERR_NOMEM, OPTINC_ERR_TIMEOUT, OPTINC_ERR_REFUSED,
	       OPTINC_ERR_RANGE, OPTINC_ERR_UNSUPPORTED, OPTINC_ERR_PROTO,
	       OPTINC_ERR_SYSTEM);
	printf("enums %d %d %d %d %d %d %d %d %d %d %d %d %d\n", OPTINC_FLOAT32,
	       OPTINC_INT32, OPTINC_FLOAT16, OPTINC_BFLOAT16, OPTINC_FLOAT64,
	       OPTINC_SUM, OPTINC_AVG, OPTINC_MAX, OPTINC_MIN,
	       OPTINC_NONFINITE_NAN, OPTINC_NONFINITE_ERROR, OPTINC_ALGO_OPTINC,
	       OPTINC_ALGO_RING);
	return 0;
}
