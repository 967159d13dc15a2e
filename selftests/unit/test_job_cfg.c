// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: a job's configuration as every datapath checks it
 * (lib/core/job_cfg.c): each field's bounds, the field an error names and
 * its message, the checks against a truth table, and a job set up from
 * the configuration.
 */
#include <stdlib.h>
#include <string.h>
#include <optinc/core.h>
#include "kselftest_harness.h"

static struct optinc_job_cfg good(void)
{
	return (struct optinc_job_cfg){
		.id = 7, .size = 4, .bits = 8, .mode = OPTINC_MODE_EXACT,
		.token = 42, .window = OPTINC_DEF_WINDOW,
		.max_elems = OPTINC_DEF_MAX_ELEMS,
	};
}

/* @c must fail on @field with the whole message @msg. */
static int refused(const struct optinc_job_cfg *c, const struct optinc_table *t,
		   enum optinc_job_field field, const char *msg)
{
	struct optinc_job_err e = { .field = OPTINC_JF_NR };

	if (optinc_job_cfg_check(c, t, &e) != -EINVAL || e.field != field ||
	    !e.msg || strcmp(e.msg, msg) || !e.why ||
	    !strstr(e.msg, e.why) ||
	    strncmp(e.msg, optinc_job_field_names[field],
		    strlen(optinc_job_field_names[field]))) {
		fprintf(stderr, "# wanted field %d '%s', got %d '%s'\n", field,
			msg, e.field, e.msg ? e.msg : "(none)");
		return 0;
	}
	return 1;
}

TEST(defaults_and_bounds_pass)
{
	struct optinc_job_cfg c = good();
	struct optinc_job_err e;

	EXPECT_EQ(0, optinc_job_cfg_check(&c, NULL, &e));
	c.size = OPTINC_MAX_MEMBERS;
	c.window = OPTINC_MAX_WINDOW;
	c.max_elems = 65535;
	c.bits = 16;
	c.id = 65535;
	EXPECT_EQ(0, optinc_job_cfg_check(&c, NULL, &e));
	c = good();
	c.size = 1;
	c.window = 1;
	c.max_elems = 1;
	EXPECT_EQ(0, optinc_job_cfg_check(&c, NULL, &e));
}

TEST(each_field_out_of_range)
{
	struct optinc_job_cfg c;

	c = good(); c.id = 0;
	EXPECT_TRUE(refused(&c, NULL, OPTINC_JF_ID, "id must be 1..65535"));
	c = good(); c.size = 0;
	EXPECT_TRUE(refused(&c, NULL, OPTINC_JF_SIZE, "size must be 1..64"));
	c = good(); c.size = OPTINC_MAX_MEMBERS + 1;
	EXPECT_TRUE(refused(&c, NULL, OPTINC_JF_SIZE, "size must be 1..64"));
	c = good(); c.bits = 12;
	EXPECT_TRUE(refused(&c, NULL, OPTINC_JF_BITS, "bits must be 8 or 16"));
	c = good(); c.mode = 2;
	EXPECT_TRUE(refused(&c, NULL, OPTINC_JF_MODE, "mode must be exact or onn"));
	c = good(); c.window = 0;
	EXPECT_TRUE(refused(&c, NULL, OPTINC_JF_WINDOW, "window must be 1..4096"));
	c = good(); c.window = OPTINC_MAX_WINDOW + 1;
	EXPECT_TRUE(refused(&c, NULL, OPTINC_JF_WINDOW, "window must be 1..4096"));
	c = good(); c.max_elems = 0;
	EXPECT_TRUE(refused(&c, NULL, OPTINC_JF_MAX_ELEMS, "max-elems must be 1..65535"));
	c = good(); c.fanin = OPTINC_MAX_MEMBERS + 1;
	EXPECT_TRUE(refused(&c, NULL, OPTINC_JF_FANIN, "fanin must be 1..64 (none: one level)"));
	c = good(); c.mode = OPTINC_MODE_ONN; c.bits = 16;
	EXPECT_TRUE(refused(&c, NULL, OPTINC_JF_MODE, "mode onn needs 8-bit values"));
}

TEST(against_a_table)
{
	struct optinc_table t = { .members = 4, .bits = 8, .radix = 13 };
	struct optinc_job_cfg c = good();
	struct optinc_job_err e;

	c.mode = OPTINC_MODE_ONN;
	EXPECT_EQ(0, optinc_job_cfg_check(&c, &t, &e));
	t.members = 8;
	EXPECT_TRUE(refused(&c, &t, OPTINC_JF_TABLE,
			    "table is for another number of members or bits than the job"));
	t.members = 4;
	t.fanin = 3;	/* a cascade table for a one-level job */
	EXPECT_TRUE(refused(&c, &t, OPTINC_JF_FANIN,
			    "fanin and the table's fan-in differ (a cascade table needs its fan-in, a one-level table none)"));
	c.fanin = 3;	/* the second level it is for */
	EXPECT_EQ(0, optinc_job_cfg_check(&c, &t, &e));
	t.fanin = 0;	/* and a one-level table for a second level */
	EXPECT_EQ(-EINVAL, optinc_job_cfg_check(&c, &t, &e));
	EXPECT_EQ(OPTINC_JF_FANIN, e.field);
}

TEST(setup_from_the_configuration)
{
	struct optinc_table t = { .members = 4, .bits = 8, .radix = 13 };
	struct optinc_job_cfg c = good();
	struct optinc_job job;
	__u64 len;
	void *mem;

	c.window = 2;
	c.max_elems = 16;
	c.fanin = 0;
	len = optinc_job_mem(c.window, c.max_elems);
	mem = aligned_alloc(64, len);
	ASSERT_NE(NULL, mem);
	memset(&job, 0xa5, sizeof(job));
	ASSERT_EQ(0, optinc_job_setup(&job, &c, NULL, mem, len));
	EXPECT_EQ(7, job.id);
	EXPECT_EQ(4, job.size);
	EXPECT_EQ(42, job.token);
	EXPECT_EQ(2, job.window);
	EXPECT_EQ(16, job.max_elems);
	EXPECT_EQ(0, job.fanin);
	EXPECT_EQ(OPTINC_MODE_EXACT, job.mode);
	EXPECT_EQ(NULL, job.table);
	EXPECT_EQ(0, job.joined);
	/* onn with its table; onn whose table has not come: exact for now */
	c.mode = OPTINC_MODE_ONN;
	ASSERT_EQ(0, optinc_job_setup(&job, &c, &t, mem, len));
	EXPECT_EQ(OPTINC_MODE_ONN, job.mode);
	EXPECT_EQ(&t, job.table);
	ASSERT_EQ(0, optinc_job_setup(&job, &c, NULL, mem, len));
	EXPECT_EQ(OPTINC_MODE_EXACT, job.mode);
	EXPECT_EQ(NULL, job.table);
	/* too little memory is the core's refusal, as before */
	EXPECT_EQ(-EINVAL, optinc_job_setup(&job, &c, NULL, mem, len - 1));
	free(mem);
}

TEST_HARNESS_MAIN
