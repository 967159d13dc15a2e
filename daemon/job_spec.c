// SPDX-License-Identifier: BSD-3-Clause
/*
 * A job spec, "key=value,..." as --job and a job added at run time take
 * it: each key, its range, and the checks of the job as a whole.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "optincd.h"

#define OPTS_JOB_NUM(k, f, b, hi) \
	{ k, b, hi, offsetof(struct optinc_job_conf, f), \
	  sizeof(((struct optinc_job_conf *)0)->f) }

/*
 * The numeric keys of a job spec: where each goes and the most its field
 * holds. Which values make a job is the core's to say
 * (optinc_job_cfg_check(), after the whole spec); the uplink's keys are
 * optincd's own, bounded here.
 */
static const struct opts_job_num {
	const char *key;
	int base;
	unsigned long long max;
	size_t off, size;
} opts_job_nums[] = {
	OPTS_JOB_NUM("id", job.id, 10, 65535),
	OPTS_JOB_NUM("size", job.size, 10, 65535),
	OPTS_JOB_NUM("bits", job.bits, 10, 255),
	OPTS_JOB_NUM("token", job.token, 0, UINT32_MAX),
	OPTS_JOB_NUM("window", job.window, 10, 65535),
	OPTS_JOB_NUM("max-elems", job.max_elems, 10, 65535),
	OPTS_JOB_NUM("up-job", up_job, 10, 65535),
	OPTS_JOB_NUM("up-rank", up_rank, 10, OPTINC_MAX_MEMBERS - 1),
	OPTS_JOB_NUM("up-token", up_token, 0, UINT32_MAX),
	OPTS_JOB_NUM("fanin", job.fanin, 10, 65535),
};

static void opts_job_store(struct optinc_job_conf *j,
			   const struct opts_job_num *d, unsigned long long v)
{
	void *p = (char *)j + d->off;

	if (d->size == sizeof(uint8_t))
		*(uint8_t *)p = (uint8_t)v;
	else if (d->size == sizeof(uint16_t))
		*(uint16_t *)p = (uint16_t)v;
	else
		*(uint32_t *)p = (uint32_t)v;
}

static int opts_job_num(struct optinc_job_conf *j, const char *key,
			const char *val, const char *spec)
{
	const struct opts_job_num *d;
	unsigned long long v;
	char why[160];
	unsigned int i;

	for (i = 0; i < RTE_DIM(opts_job_nums); i++) {
		d = &opts_job_nums[i];
		if (strcmp(key, d->key))
			continue;
		if (optinc_opts_num(val, d->base, 0, d->max, &v)) {
			snprintf(why, sizeof(why), "%s=%s: not a number in "
				 "0..%llu", key, val, d->max);
			return optinc_opts_err("job", spec, why);
		}
		opts_job_store(j, d, v);
		return 0;
	}
	snprintf(why, sizeof(why), "unknown key '%s' (keys: id size bits mode "
		 "table token window max-elems up up-job up-rank up-token "
		 "fanin)", key);
	return optinc_opts_err("job", spec, why);
}

/* One key=value of a job spec; @spec is the whole spec, for errors. */
static int opts_job_key(struct optinc_job_conf *j, char *kv, bool *mode_set,
			const char *spec)
{
	char why[160], *val = strchr(kv, '=');

	if (!val) {
		snprintf(why, sizeof(why), "'%s' is not key=value", kv);
		return optinc_opts_err("job", spec, why);
	}
	*val++ = '\0';
	if (!strcmp(kv, "mode")) {
		if (strcmp(val, "exact") && strcmp(val, "onn")) {
			snprintf(why, sizeof(why), "mode=%s: not exact or onn", val);
			return optinc_opts_err("job", spec, why);
		}
		j->job.mode = strcmp(val, "onn") ? OPTINC_MODE_EXACT : OPTINC_MODE_ONN;
		*mode_set = true;
		return 0;
	}
	if (!strcmp(kv, "up")) {
		if (optinc_uplink_parse(j, val))
			return optinc_opts_err("job", spec, "up= needs IPV4[:UDP]");
		return 0;
	}
	if (!strcmp(kv, "table")) {
		free(j->table);
		j->table = *val ? strdup(val) : NULL;
		if (!j->table)
			return optinc_opts_err("job", spec, "table= needs a file name");
		return 0;
	}
	return opts_job_num(j, kv, val, spec);
}

/* The value of @j's field @f, as a spec would write it. */
static void opts_job_value(const struct optinc_job_conf *j,
			   enum optinc_job_field f, char *buf, size_t len)
{
	const struct optinc_job_cfg *c = &j->job;
	unsigned int v[OPTINC_JF_NR] = {
		[OPTINC_JF_ID] = c->id, [OPTINC_JF_SIZE] = c->size,
		[OPTINC_JF_BITS] = c->bits, [OPTINC_JF_WINDOW] = c->window,
		[OPTINC_JF_MAX_ELEMS] = c->max_elems, [OPTINC_JF_FANIN] = c->fanin,
	};

	if (f == OPTINC_JF_MODE)
		snprintf(buf, len, "%s", c->mode == OPTINC_MODE_ONN ? "onn" : "exact");
	else if (f == OPTINC_JF_TABLE)
		snprintf(buf, len, "%s", j->table ? j->table : "");
	else
		snprintf(buf, len, "%u", v[f]);
}

/*
 * The job as a whole: required keys, then the core's checks of the values
 * (as "key=value: why"), then what a table file asks of mode.
 */
static int opts_job_shape(struct optinc_job_conf *j, bool mode_set,
			  const char *spec)
{
	struct optinc_job_err e;
	char why[192], val[64];

	if (!j->job.id)
		return optinc_opts_err("job", spec, "id= is required");
	if (!j->job.size)
		return optinc_opts_err("job", spec, "size= is required");
	j->mode_set = mode_set;
	if (j->table && !mode_set)
		j->job.mode = OPTINC_MODE_ONN;
	if (optinc_job_cfg_check(&j->job, NULL, &e)) {
		opts_job_value(j, e.field, val, sizeof(val));
		snprintf(why, sizeof(why), "%s=%s: %s",
			 optinc_job_field_names[e.field], val, e.why);
		return optinc_opts_err("job", spec, why);
	}
	if (j->job.mode == OPTINC_MODE_ONN && !j->table)
		return optinc_opts_err("job", spec, "mode=onn needs table=FILE");
	if (j->job.mode == OPTINC_MODE_EXACT && j->table)
		return optinc_opts_err("job", spec, "table= is only used with mode=onn");
	return 0;
}

/* A job spec "key=value,..." into @j, checked as a whole; @name for errors. */
int optinc_opts_job_parse(struct optinc_job_conf *j, const char *name,
			  const char *val)
{
	char *copy = strdup(val), *tok, *save = NULL;
	bool mode_set = false;
	int ret = 0;

	*j = (struct optinc_job_conf){ .job = {
		.bits = 8, .mode = OPTINC_MODE_EXACT,
		.window = OPTINC_DEF_WINDOW, .max_elems = OPTINC_DEF_MAX_ELEMS,
	} };
	if (!copy)
		return optinc_opts_err(name, val, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save))
		ret = opts_job_key(j, tok, &mode_set, val);
	free(copy);
	if (!ret)
		ret = opts_job_shape(j, mode_set, val);
	if (ret) {
		free(j->table);
		j->table = NULL;
	}
	return ret;
}

/**
 * optinc_opts_job_spec() - a job spec given while optincd runs
 * @spec:    "key=value,...", as --job takes it
 * @j:       filled; j->table is allocated (the caller frees it)
 * @why:     set to the problem, as --job would print it
 * @why_len: size of @why
 *
 * The same parser and checks as --job at start; that the id is new is the
 * job table's to check. Runs on a control thread, one call at a time.
 *
 * Return: 0, or -EINVAL with @why set.
 */
int optinc_opts_job_spec(const char *spec, struct optinc_job_conf *j,
			 char *why, size_t why_len)
{
	int ret;

	optinc_opts_where[0] = '\0';
	ret = optinc_opts_job_parse(j, "job", spec);
	if (ret)
		snprintf(why, why_len, "%s", optinc_opts_last);
	return ret;
}
