/* SPDX-License-Identifier: BSD-3-Clause */
/* optinc-core-bench's parts: the per-frame run (core-bench.c), the stages. */
#ifndef OPTINC_CORE_BENCH_H
#define OPTINC_CORE_BENCH_H

int core_stages(int rounds);

#endif /* OPTINC_CORE_BENCH_H */
