// SPDX-License-Identifier: BSD-3-Clause
/*
 * Jobs' truth tables (onn mode): read and checked against the job, at
 * start or when a job is added, and installed while the job runs: a
 * control thread loads the file and hands it to the lcore, which puts it
 * in use between two poll rounds; the control thread frees what it
 * replaced.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <rte_byteorder.h>
#include "optincd.h"

static int table_read_file(const char *path, void **buf, size_t *len)
{
	struct stat st;
	FILE *f = fopen(path, "rb");
	int ret = 0;

	if (!f)
		return -errno;
	if (fstat(fileno(f), &st)) {
		ret = -errno;
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = -EINVAL;
		goto out;
	}
	*len = (size_t)st.st_size;
	*buf = malloc(*len ? *len : 1);
	if (!*buf)
		ret = -ENOMEM;
	else if (fread(*buf, 1, *len, f) != *len)
		ret = -EIO;
	if (ret) {
		free(*buf);
		*buf = NULL;
	}
out:
	fclose(f);
	return ret;
}

void optinc_agg_table_free(struct optinc_agg_table *t)
{
	if (!t)
		return;
	free(t->by_sum);
	free(t->buf);
	free(t->path);
	free(t);
}

/*
 * Its by-sum form, where it has one: the job then adds values, not
 * symbols (the core's optinc_table_by_sum()). Without memory for it the
 * table is used as it is.
 */
static void table_by_sum(struct optinc_agg_table *t)
{
	if (t->t.fanin)
		return;
	t->by_sum = malloc(OPTINC_TABLE_BY_SUM_LEN(t->t.members));
	if (t->by_sum && optinc_table_by_sum(&t->t, t->by_sum)) {
		free(t->by_sum);
		t->by_sum = NULL;
	}
}

/* The file's own checks (the core's), then the job's: its N, B and fan-in. */
static int table_check(const struct optinc_agg_job *j,
			   struct optinc_agg_table *t, size_t len,
			   char *why, size_t why_len)
{
	const struct optinc_table_file_hdr *h = t->buf;
	const struct optinc_job_cfg *c = &j->conf.job;
	struct optinc_job_err e;
	const char *msg = NULL;

	if (optinc_table_parse(t->buf, len, &t->t, &msg)) {
		snprintf(why, why_len, "%s", msg);
		return -EINVAL;
	}
	if (!optinc_job_cfg_check(c, &t->t, &e)) {
		t->wrong = rte_le_to_cpu_32(h->wrong);
		table_by_sum(t);
		return 0;
	}
	if (e.field == OPTINC_JF_TABLE)
		snprintf(why, why_len, "made for N=%u B=%u, the job has "
			 "size=%u bits=%u", t->t.members, t->t.bits, c->size,
			 c->bits);
	else if (e.field == OPTINC_JF_FANIN && t->t.fanin)
		snprintf(why, why_len, "a cascade table (fan-in %u): the job "
			 "needs fanin=%u", t->t.fanin, t->t.fanin);
	else if (e.field == OPTINC_JF_FANIN)
		snprintf(why, why_len, "a one-level table: the job (fanin=%u) "
			 "needs a cascade table (version 2) of fan-in %u",
			 c->fanin, c->fanin);
	else
		snprintf(why, why_len, "%s", e.msg);
	return -EINVAL;
}

/*
 * Load and check a truth table for @j: found as optinc_table_find() says,
 * the core's checks of the file, then N and B against the job. @why gets
 * the problem.
 */
int optinc_agg_table_load(const struct optinc_agg_job *j, const char *path,
			  struct optinc_agg_table **out, char *why,
			  size_t why_len)
{
	struct optinc_agg_table *t = calloc(1, sizeof(*t));
	size_t len = 0;
	int ret;

	if (!t) {
		snprintf(why, why_len, "out of memory");
		ret = -ENOMEM;
	} else if (!(ret = optinc_table_find(optinc_agg_conf(), path, &t->path, why,
					     why_len))) {
		ret = table_read_file(t->path, &t->buf, &len);
		snprintf(why, why_len, "%s", ret == -EINVAL ?
			 "not a regular file" : strerror(-ret));
	}
	if (!ret)
		ret = table_check(j, t, len, why, why_len);
	if (ret) {
		optinc_agg_table_free(t);
		return ret;
	}
	*out = t;
	return 0;
}

/*
 * A job's configured table (j->conf.table), loaded before the job is set
 * up (optinc_job_setup() puts it in use). Return: 0, or a negative errno
 * with @why set.
 */
int optinc_agg_job_table(struct optinc_agg_job *j, char *why, size_t why_len)
{
	return optinc_agg_table_load(j, j->conf.table, &j->table, why, why_len);
}

/* Give @t to the lcore; free it when refused, and what it replaced. */
static int table_hand_over(struct optinc_agg_job *j, struct optinc_agg_table *t,
			   char *why, size_t why_len)
{
	struct optinc_agg_table *old;
	int ret = optinc_live_table_hand_over(j, t, &old);

	if (ret) {
		snprintf(why, why_len, "the datapath did not take it within "
			 "2 s (is optincd stopping?)");
		optinc_agg_table_free(t);
		return ret;
	}
	optinc_agg_table_free(old);
	return 0;
}

/**
 * optinc_agg_table_install() - install or replace a job's truth table
 * @j:       the job
 * @path:    the table file, as optincd's working directory sees it
 * @why:     set to the problem when refused
 * @why_len: size of @why
 *
 * Runs on a control thread (telemetry), one call at a time. The file gets
 * the same checks as at start; a bad one leaves the job as it was. A good
 * one makes the job an onn job from the lcore's next poll round on (see
 * optinc_agg_sync(), job_live.c); a job refused at start for its table is served from
 * then on. A job started with mode=exact is the reference and takes none.
 *
 * Return: 0, or a negative errno with @why set (and logged with the job
 * and the file).
 */
int optinc_agg_table_install(struct optinc_agg_job *j, const char *path,
			     char *why, size_t why_len)
{
	struct optinc_agg_table *t;
	int ret;

	if (j->conf.mode_set && j->conf.job.mode == OPTINC_MODE_EXACT) {
		snprintf(why, why_len, "the job was started with mode=exact "
			 "and takes no table");
		ret = -EPERM;
	} else {
		ret = optinc_agg_table_load(j, path, &t, why, why_len);
		if (!ret)
			ret = table_hand_over(j, t, why, why_len);
	}
	if (ret) {
		OPTINC_LOG(ERR, "job %u: table '%s': %s; the job keeps its "
			   "mode and table", j->conf.job.id, path, why);
		return ret;
	}
	OPTINC_LOG(INFO, "job %u: table '%s' installed (%u wrong entries), "
		   "mode onn", j->conf.job.id, t->path, t->wrong);
	return 0;
}
