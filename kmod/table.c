// SPDX-License-Identifier: GPL-2.0
/*
 * optinc.ko: truth tables of onn mode. A table file arrives in netlink
 * chunks, is checked by the core's optinc_table_parse() and kept for its
 * job id; jobs in onn mode hold a reference. All under RTNL.
 */
#include <linux/mm.h>
#include <linux/rtnetlink.h>
#include <linux/slab.h>
#include "optinc_kmod.h"

static void table_release(struct kref *ref)
{
	struct optinc_ktable *t = container_of(ref, struct optinc_ktable, ref);

	kvfree(t->by_sum);
	kvfree(t->buf);
	kfree(t);
}

/* Drop a reference to @t (NULL: nothing). */
void optinc_ktable_put(struct optinc_ktable *t)
{
	if (t)
		kref_put(&t->ref, table_release);
}

/* Free the tables of a switch and an unfinished upload. */
void optinc_tables_destroy(struct optinc_kswitch *sw)
{
	struct optinc_ktable *t;
	unsigned long id;

	xa_for_each(&sw->tables, id, t)
		optinc_ktable_put(t);
	xa_destroy(&sw->tables);
	kvfree(sw->stage.buf);
	sw->stage.buf = NULL;
}

static void table_stage_reset(struct optinc_tstage *st)
{
	kvfree(st->buf);
	memset(st, 0, sizeof(*st));
}

/* Keep table @t for job @id. Return: 1, or a negative errno. */
static int table_store(struct optinc_kswitch *sw, u16 id,
		       struct optinc_ktable *t, struct netlink_ext_ack *extack)
{
	void *old;

	old = xa_store(&sw->tables, id, t, GFP_KERNEL);
	if (xa_is_err(old)) {
		optinc_ktable_put(t);
		return xa_err(old);
	}
	optinc_ktable_put(old);
	return 1;
}

/*
 * Its by-sum form, where it has one: onn jobs then add values, not
 * symbols (the core's optinc_table_by_sum()). Without memory for it the
 * table is used as it is, and so is one of more than 2^24 entries (N >
 * 21): the check reads every entry in one loop, under RTNL, which for N =
 * 64's 1.4e9 would hold the CPU for seconds.
 */
static void table_by_sum(struct optinc_ktable *t)
{
	if (t->t.fanin || t->t.entries > (1u << 24))
		return;
	t->by_sum = kvmalloc(OPTINC_TABLE_BY_SUM_LEN(t->t.members), GFP_KERNEL);
	if (t->by_sum && optinc_table_by_sum(&t->t, t->by_sum)) {
		kvfree(t->by_sum);
		t->by_sum = NULL;
	}
}

/* A complete upload: check it with the core's parser, then store it. */
static int table_install(struct optinc_kswitch *sw, struct optinc_tstage *st,
			 struct netlink_ext_ack *extack)
{
	const struct optinc_table_file_hdr *h = st->buf;
	struct optinc_kjob *job = xa_load(&sw->jobs, st->job);
	struct optinc_job_err e;
	struct optinc_ktable *t;
	const char *why;
	int err;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	err = optinc_table_parse(st->buf, st->total, &t->t, &why);
	if (err) {
		/* @why points to a constant string of the core */
		if (extack)
			extack->_msg = why;
		kfree(t);
		return err;
	}
	if (job && job->cfg.job.mode == OPTINC_MODE_ONN &&
	    optinc_job_cfg_check(&job->cfg.job, &t->t, &e)) {
		if (extack)	/* static, as a literal would be */
			extack->_msg = e.msg;
		kfree(t);
		return -EINVAL;
	}
	kref_init(&t->ref);
	t->wrong = le32_to_cpu(h->wrong);
	t->buf = st->buf;
	st->buf = NULL;
	table_by_sum(t);
	return table_store(sw, st->job, t, extack);
}

static int table_stage_start(struct optinc_tstage *st, u16 id, u32 total,
			     struct netlink_ext_ack *extack)
{
	if (!total) {
		NL_SET_ERR_MSG(extack, "table-total is required with offset 0");
		return -EINVAL;
	}
	st->buf = kvmalloc(total, GFP_KERNEL);
	if (!st->buf) {
		NL_SET_ERR_MSG(extack, "no memory for the truth table");
		return -ENOMEM;
	}
	st->job = id;
	st->total = total;
	return 0;
}

/**
 * optinc_table_chunk() - take one chunk of a truth-table file for job @id
 * @sw:     the switch
 * @id:     the job id the table is for
 * @off:    offset of the chunk; 0 starts a new upload
 * @total:  file size, with @off 0
 * @data:   the chunk
 * @len:    its size
 * @extack: where to say what is wrong
 *
 * The chunk that completes the file has it checked and stored; the
 * caller then has a job of that id switch to it (optinc_job_retable()).
 *
 * Return: 0, 1 when this chunk completed and stored the table, or a
 * negative errno; any error drops the upload.
 */
int optinc_table_chunk(struct optinc_kswitch *sw, u16 id, u32 off, u32 total,
		       const void *data, u32 len,
		       struct netlink_ext_ack *extack)
{
	struct optinc_tstage *st = &sw->stage;
	int err;

	ASSERT_RTNL();
	if (!off) {
		table_stage_reset(st);
		err = table_stage_start(st, id, total, extack);
		if (err)
			goto out_reset;
	} else if (!st->buf || st->job != id || off != st->filled) {
		NL_SET_ERR_MSG(extack,
			       "table chunk out of order: start again at offset 0");
		err = -EINVAL;
		goto out_reset;
	}
	if (len > st->total - st->filled) {
		NL_SET_ERR_MSG(extack, "table chunk runs past table-total");
		err = -EINVAL;
		goto out_reset;
	}
	memcpy((u8 *)st->buf + off, data, len);
	st->filled += len;
	if (st->filled < st->total)
		return 0;
	err = table_install(sw, st, extack);
out_reset:
	table_stage_reset(st);
	return err;
}
