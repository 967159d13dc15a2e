// SPDX-License-Identifier: (GPL-2.0 OR BSD-3-Clause)
/*
 * A job's configuration, checked once for every datapath. optincd parses
 * "key=value" specs, optinc.ko netlink attributes (whose policy, generated
 * from the spec, already bounds each one), the test switch its arguments;
 * what values make a job is decided here, and an error names the field in
 * the words the job's keys use everywhere ("size", "bits", ...), so that
 * each datapath can point at its own option or attribute.
 */
#include <optinc/core.h>
#include "compat.h"

#define OI_STR_(x)	#x
#define OI_STR(x)	OI_STR_(x)

const char *const optinc_job_field_names[OPTINC_JF_NR] = {
	[OPTINC_JF_ID] = "id", [OPTINC_JF_SIZE] = "size",
	[OPTINC_JF_BITS] = "bits", [OPTINC_JF_MODE] = "mode",
	[OPTINC_JF_WINDOW] = "window", [OPTINC_JF_MAX_ELEMS] = "max-elems",
	[OPTINC_JF_FANIN] = "fanin", [OPTINC_JF_TABLE] = "table",
};

/* @key is the field's name: the whole message is built at compile time */
#define JOB_ERR(e, f, key, why_) \
	((e)->field = (f), (e)->why = (why_), (e)->msg = key " " why_, -EINVAL)

/* The values of each field alone. */
static int job_cfg_ranges(const struct optinc_job_cfg *c,
			  struct optinc_job_err *e)
{
	if (!c->id)
		return JOB_ERR(e, OPTINC_JF_ID, "id", "must be 1..65535");
	if (!c->size || c->size > OPTINC_MAX_MEMBERS)
		return JOB_ERR(e, OPTINC_JF_SIZE, "size",
			       "must be 1.." OI_STR(OPTINC_MAX_MEMBERS));
	if (c->bits != 8 && c->bits != 16)
		return JOB_ERR(e, OPTINC_JF_BITS, "bits", "must be 8 or 16");
	if (c->mode != OPTINC_MODE_EXACT && c->mode != OPTINC_MODE_ONN)
		return JOB_ERR(e, OPTINC_JF_MODE, "mode", "must be exact or onn");
	if (!c->window || c->window > OPTINC_MAX_WINDOW)
		return JOB_ERR(e, OPTINC_JF_WINDOW, "window",
			       "must be 1.." OI_STR(OPTINC_MAX_WINDOW));
	if (!c->max_elems)
		return JOB_ERR(e, OPTINC_JF_MAX_ELEMS, "max-elems",
			       "must be 1..65535");
	if (c->fanin > OPTINC_MAX_MEMBERS)
		return JOB_ERR(e, OPTINC_JF_FANIN, "fanin",
			       "must be 1.." OI_STR(OPTINC_MAX_MEMBERS) " (none: one level)");
	return 0;
}

/**
 * optinc_job_cfg_check() - can @c be a job, with truth table @t
 * @c: the configuration
 * @t: the job's truth table, parsed (optinc_table_parse()); NULL when the
 *     datapath has none yet (an onn job's table comes with its own checks)
 * @e: set to what is wrong
 *
 * Return: 0, or -EINVAL with @e set.
 */
int optinc_job_cfg_check(const struct optinc_job_cfg *c,
			 const struct optinc_table *t, struct optinc_job_err *e)
{
	int ret = job_cfg_ranges(c, e);

	if (ret)
		return ret;
	if (c->mode == OPTINC_MODE_ONN && c->bits != 8)
		return JOB_ERR(e, OPTINC_JF_MODE, "mode", "onn needs 8-bit values");
	if (!t)
		return 0;
	if (t->members != c->size || t->bits != c->bits)
		return JOB_ERR(e, OPTINC_JF_TABLE, "table",
			       "is for another number of members or bits than the job");
	/* a second level (fanin) looks up cascade tables, and only it */
	if (t->fanin != c->fanin)
		return JOB_ERR(e, OPTINC_JF_FANIN, "fanin",
			       "and the table's fan-in differ (a cascade table needs its fan-in, a one-level table none)");
	return 0;
}

/**
 * optinc_job_setup() - a job from checked configuration @c, in @mem
 * @job:     zeroed, or a job of the past to be reused whole
 * @c:       passed optinc_job_cfg_check() with @t
 * @t:       the truth table of an onn job (kept), or NULL: an onn job
 *           whose table has not come yet is set up exact (optincd serves
 *           it only once a table is installed, which makes it onn)
 * @mem:     optinc_job_mem(c->window, c->max_elems) bytes, 8-byte aligned
 * @mem_len: size of @mem
 *
 * Return: 0, or -EINVAL (optinc_job_init()).
 */
int optinc_job_setup(struct optinc_job *job, const struct optinc_job_cfg *c,
		     const struct optinc_table *t, void *mem, __u64 mem_len)
{
	job->id = c->id;
	job->size = c->size;
	job->token = c->token;
	job->window = c->window;
	job->max_elems = c->max_elems;
	job->fanin = c->fanin;
	job->mode = c->mode == OPTINC_MODE_ONN && t ? OPTINC_MODE_ONN :
						      OPTINC_MODE_EXACT;
	job->table = job->mode == OPTINC_MODE_ONN ? t : NULL;
	return optinc_job_init(job, mem, mem_len);
}
