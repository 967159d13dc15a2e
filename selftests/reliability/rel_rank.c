// SPDX-License-Identifier: GPL-2.0
/*
 * One rank of the reliability tests: all-reduces in a loop for a time or
 * a number of calls, every result checked (int32 SUM in place, exact;
 * float32 AVG against a double reference within the quantization bound),
 * the slowest call timed, a hash of all results and the counters printed.
 */
#include <getopt.h>
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <optinc/optinc.h>

#define REL_HIST	2048		/* 1 us * 1.01^2048: up to 700 s */
#define REL_HIST_LO	0.001		/* ms */
#define REL_HIST_STEP	1.01

struct rel_cfg {
	double secs;
	unsigned long calls;
	size_t count;
	unsigned int sleep_ms;
	double tol;
	unsigned long rss_every;	/* -r: memory every this many calls */
};

struct rel_run {
	int rank, size;
	unsigned long call;
	uint64_t hash;
	double max_ms;
	/*
	 * Call times for the percentiles, in a fixed histogram (buckets 1 %
	 * wide from 1 us): a list of every call grew by 4 bytes a call,
	 * 528 KiB in the hour of `make soak`, and hid the library's memory.
	 */
	unsigned int ms_hist[REL_HIST];
	unsigned long max_call;
	int stop;
};

static double rel_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long rel_rss_kb(void)
{
	char line[256];
	long kb = -1;
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "VmRSS:", 6))
			kb = strtol(line + 6, NULL, 10);
	if (f)
		fclose(f);
	return kb;
}

/* -r: the process's memory now, resident and of the heap (glibc). */
static void rel_rss_line(unsigned long call)
{
	long rss = -1, anon = -1, file = -1;
	struct mallinfo2 mi = mallinfo2();
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	while (f && fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "VmRSS:", 6))
			rss = strtol(line + 6, NULL, 10);
		else if (!strncmp(line, "RssAnon:", 8))
			anon = strtol(line + 8, NULL, 10);
		else if (!strncmp(line, "RssFile:", 8))
			file = strtol(line + 8, NULL, 10);
	}
	if (f)
		fclose(f);
	printf("# rss call %lu kb %ld anon %ld file %ld heap_used %zu heap_arena %zu heap_mmap %zu\n",
	       call, rss, anon, file, mi.uordblks + mi.hblkhd, mi.arena,
	       mi.hblkhd);
}

static uint32_t rel_ival(unsigned long call, int rank, size_t i)
{
	return (uint32_t)(call * 2654435761u + rank * 40503u + i * 7u);
}

static float rel_fval(unsigned long call, int rank, size_t i)
{
	return (float)sin(0.001 * (double)(i + 1) * (rank + 1) + call);
}

static void rel_hash(struct rel_run *r, const void *p, size_t len)
{
	const unsigned char *b = p;
	size_t i;

	for (i = 0; i < len; i++)
		r->hash = (r->hash ^ b[i]) * 1099511628211ull;
}

/*
 * x[n] is this rank's wish to stop (its time is up): the sum tells every
 * rank, so all stop after the same call.
 */
static int rel_int(struct optinc_comm *c, struct rel_run *r, uint32_t *x,
		   size_t n, int stop)
{
	uint32_t want;
	size_t i;
	int k, err;

	for (i = 0; i < n; i++)
		x[i] = rel_ival(r->call, r->rank, i);
	x[n] = stop;
	err = optinc_allreduce(c, x, x, n + 1, OPTINC_INT32, OPTINC_SUM);
	if (err) {
		printf("FAIL call %lu int32: %s\n", r->call,
		       optinc_comm_errmsg(c));
		return err;
	}
	for (i = 0; i < n; i++) {
		for (want = 0, k = 0; k < r->size; k++)
			want += rel_ival(r->call, k, i);
		if (x[i] != want) {
			printf("FAIL call %lu int32 [%zu] = %u, want %u\n",
			       r->call, i, x[i], want);
			return -1;
		}
	}
	rel_hash(r, x, n * 4);
	r->stop = x[n] != 0;
	return 0;
}

static int rel_float(struct optinc_comm *c, struct rel_run *r, float *x,
		     float *y, size_t n, double tol)
{
	double want;
	size_t i;
	int k, err;

	for (i = 0; i < n; i++)
		x[i] = rel_fval(r->call, r->rank, i);
	err = optinc_allreduce(c, x, y, n, OPTINC_FLOAT32, OPTINC_AVG);
	if (err) {
		printf("FAIL call %lu float32: %s\n", r->call,
		       optinc_comm_errmsg(c));
		return err;
	}
	for (i = 0; i < n; i++) {
		for (want = 0, k = 0; k < r->size; k++)
			want += rel_fval(r->call, k, i);
		want /= r->size;
		if (!(fabs(y[i] - want) <= tol)) {
			printf("FAIL call %lu float32 [%zu] = %.9g, want %.9g +- %g\n",
			       r->call, i, y[i], want, tol);
			return -1;
		}
	}
	rel_hash(r, y, n * 4);
	return 0;
}

static void rel_keep_ms(struct rel_run *r, double ms)
{
	double b = ms > REL_HIST_LO ?
		   log(ms / REL_HIST_LO) / log(REL_HIST_STEP) : 0;

	r->ms_hist[b < REL_HIST - 1 ? (int)b : REL_HIST - 1]++;
}

/* The call time below which @q of the calls fall, to 0.5 %. */
static double rel_pct_ms(const struct rel_run *r, double q)
{
	unsigned long n = 0, k, seen = 0;
	int i;

	for (i = 0; i < REL_HIST; i++)
		n += r->ms_hist[i];
	if (!n)
		return 0;
	k = (unsigned long)(q * (double)(n - 1));
	for (i = 0; i < REL_HIST - 1; i++) {
		seen += r->ms_hist[i];
		if (seen > k)
			break;
	}
	return REL_HIST_LO * pow(REL_HIST_STEP, i + 0.5);
}

static int rel_loop(struct optinc_comm *c, const struct rel_cfg *cfg,
		    struct rel_run *r)
{
	uint32_t *xi = malloc((cfg->count + 1) * 4);
	float *xf = malloc(cfg->count * 4), *yf = malloc(cfg->count * 4);
	double end = rel_now() + cfg->secs, t0, ms;
	int err = 0;

	if (!xi || !xf || !yf)
		return -1;
	for (r->call = 0; !err && !r->stop; r->call++) {
		t0 = rel_now();
		err = rel_int(c, r, xi, cfg->count,
			      r->call + 1 >= cfg->calls || t0 >= end) ?:
		      rel_float(c, r, xf, yf, cfg->count, cfg->tol);
		ms = (rel_now() - t0) * 1e3;
		rel_keep_ms(r, ms);
		if (ms > r->max_ms) {
			r->max_ms = ms;
			r->max_call = r->call;
		}
		if (ms > 300)
			printf("# call %lu took %.0f ms\n", r->call, ms);
		if (r->call == 10)
			printf("# rss_start_kb %ld\n", rel_rss_kb());
		if (cfg->rss_every && r->call % cfg->rss_every == 0)
			rel_rss_line(r->call);
		if (cfg->sleep_ms)
			usleep(cfg->sleep_ms * 1000);
	}
	free(xi);
	free(xf);
	free(yf);
	return err;
}

static int rel_parse(int argc, char **argv, struct rel_cfg *cfg)
{
	int o;

	while ((o = getopt(argc, argv, "t:n:c:s:e:r:")) != -1) {
		switch (o) {
		case 't': cfg->secs = atof(optarg); break;
		case 'n': cfg->calls = strtoul(optarg, NULL, 0); break;
		case 'c': cfg->count = strtoul(optarg, NULL, 0); break;
		case 's': cfg->sleep_ms = strtoul(optarg, NULL, 0); break;
		case 'e': cfg->tol = atof(optarg); break;
		case 'r': cfg->rss_every = strtoul(optarg, NULL, 0); break;
		default:
			fprintf(stderr, "usage: rel_rank [-t SECS] [-n CALLS] [-c COUNT] [-s SLEEP_MS] [-e TOL] [-r RSS_EVERY]\n");
			return -1;
		}
	}
	return cfg->count ? 0 : -1;
}

int main(int argc, char **argv)
{
	struct rel_cfg cfg = { .secs = 10, .calls = ~0UL, .count = 20000,
			       .tol = 0.02 };
	struct optinc_comm_stats st = { .sz = sizeof(st) };
	struct rel_run r = { .hash = 1469598103934665603ull };
	struct optinc_comm *c;
	int err;

	if (rel_parse(argc, argv, &cfg))
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	err = optinc_comm_create(NULL, &c);
	if (err) {
		printf("FAIL comm_create: %s\n", optinc_comm_errmsg(NULL));
		return 1;
	}
	r.rank = optinc_comm_rank(c);
	r.size = optinc_comm_size(c);
	err = rel_loop(c, &cfg, &r);
	optinc_comm_get_stats(c, &st);
	printf("# rss_end_kb %ld\n", rel_rss_kb());
	printf("# call_ms median %.1f p99 %.1f max %.1f\n", rel_pct_ms(&r, 0.5),
	       rel_pct_ms(&r, 0.99), r.max_ms);
	printf("%s rank %d calls %lu max_ms %.0f (call %lu) retransmits %llu dup_results %llu probes %llu hash %016llx\n",
	       err ? "FAIL" : "PASS", r.rank, r.call, r.max_ms, r.max_call,
	       (unsigned long long)st.retransmits,
	       (unsigned long long)st.dup_results,
	       (unsigned long long)st.probes,
	       (unsigned long long)r.hash);
	optinc_comm_destroy(c);
	return err ? 1 : 0;
}
