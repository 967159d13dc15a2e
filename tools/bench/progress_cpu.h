/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CPU time and context switches of liboptinc's progress threads in
 * this process (they name themselves "optinc-progress"), from /proc: what
 * the overlap benchmark prints and the library's test checks while idle.
 */
#ifndef OPTINC_BENCH_PROGRESS_CPU_H
#define OPTINC_BENCH_PROGRESS_CPU_H

#include <dirent.h>
#include <stdio.h>
#include <string.h>

/* utime + stime (ticks) and context switches of this process's progress threads. */
static inline int optinc_progress_cpu(long *ticks, long *switches)
{
	char path[300], buf[512], *p;
	struct dirent *d;
	long ut, st, v, nv;
	int n = 0;
	DIR *dir = opendir("/proc/self/task");
	FILE *f;

	*ticks = *switches = 0;
	while (dir && (d = readdir(dir))) {
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", d->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		p = fgets(buf, sizeof(buf), f);
		fclose(f);
		if (!p || strncmp(buf, "optinc-progress", 15))
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/stat", d->d_name);
		f = fopen(path, "r");
		if (f && fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) &&
		    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld",
			   &ut, &st) == 2)
			*ticks += ut + st;
		if (f)
			fclose(f);
		snprintf(path, sizeof(path), "/proc/self/task/%s/status", d->d_name);
		f = fopen(path, "r");
		v = nv = 0;
		while (f && fgets(buf, sizeof(buf), f)) {
			sscanf(buf, "voluntary_ctxt_switches: %ld", &v);
			sscanf(buf, "nonvoluntary_ctxt_switches: %ld", &nv);
		}
		if (f)
			fclose(f);
		*switches += v + nv;
		n++;
	}
	if (dir)
		closedir(dir);
	return n;
}

#endif /* OPTINC_BENCH_PROGRESS_CPU_H */
