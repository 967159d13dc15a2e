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

#define OPTS_JOB_NUM(k, f, b, lo, hi) \
	{ k, b, lo, hi, offsetof(struct optinc_job_conf, f), \
	  sizeof(((struct optinc_job_conf *)0)->f) }

/* The numeric keys of a job spec: where each goes and what it may be. */
static const struct opts_job_num {
	const char *key;
	int base;
	unsigned long long min, max;
	size_t off, size;
} opts_job_nums[] = {
	OPTS_JOB_NUM("id", id, 10, 1, 65535),
	OPTS_JOB_NUM("size", size, 10, 1, OPTINC_MAX_MEMBERS),
	OPTS_JOB_NUM("bits", bits, 10, 8, 16),
	OPTS_JOB_NUM("token", token, 0, 0, UINT32_MAX),
	OPTS_JOB_NUM("window", window, 10, 1, OPTINC_MAX_WINDOW),
	OPTS_JOB_NUM("max-elems", max_elems, 10, 1, 65535),
	OPTS_JOB_NUM("up-job", up_job, 10, 1, 65535),
	OPTS_JOB_NUM("up-rank", up_rank, 10, 0, OPTINC_MAX_MEMBERS - 1),
	OPTS_JOB_NUM("up-token", up_token, 0, 0, UINT32_MAX),
	OPTS_JOB_NUM("fanin", fanin, 10, 1, OPTINC_MAX_MEMBERS),
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
		if (!strcmp(key, "bits") &&
		    (optinc_opts_num(val, 10, 8, 16, &v) || (v != 8 && v != 16))) {
			snprintf(why, sizeof(why), "bits=%s: must be 8 or 16", val);
			return optinc_opts_err("job", spec, why);
		}
		if (optinc_opts_num(val, d->base, d->min, d->max, &v)) {
			snprintf(why, sizeof(why), "%s=%s: must be %llu..%llu",
				 key, val, d->min, d->max);
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
		j->mode = strcmp(val, "onn") ? OPTINC_MODE_EXACT : OPTINC_MODE_ONN;
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

/* The job as a whole: required keys, mode and table. */
static int opts_job_shape(struct optinc_job_conf *j, bool mode_set,
			  const char *spec)
{
	if (!j->id)
		return optinc_opts_err("job", spec, "id= is required");
	if (!j->size)
		return optinc_opts_err("job", spec, "size= is required");
	j->mode_set = mode_set;
	if (j->table && !mode_set)
		j->mode = OPTINC_MODE_ONN;
	if (j->mode == OPTINC_MODE_ONN && !j->table)
		return optinc_opts_err("job", spec, "mode=onn needs table=FILE");
	if (j->mode == OPTINC_MODE_EXACT && j->table)
		return optinc_opts_err("job", spec, "table= is only used with mode=onn");
	if (j->mode == OPTINC_MODE_ONN && j->bits != 8)
		return optinc_opts_err("job", spec, "mode=onn needs bits=8");
	return 0;
}

/* A job spec "key=value,..." into @j, checked as a whole; @name for errors. */
int optinc_opts_job_parse(struct optinc_job_conf *j, const char *name,
			  const char *val)
{
	char *copy = strdup(val), *tok, *save = NULL;
	bool mode_set = false;
	int ret = 0;

	*j = (struct optinc_job_conf){
		.bits = 8, .mode = OPTINC_MODE_EXACT,
		.window = OPTINC_DEF_WINDOW, .max_elems = OPTINC_DEF_MAX_ELEMS,
	};
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
