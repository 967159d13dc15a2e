// SPDX-License-Identifier: GPL-2.0
/* Unit tests: block quantization, its round trip and the error bounds. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <optinc/core.h>
#include <optinc/quant.h>
#include "kselftest_harness.h"

static float frand(double scale)
{
	return (float)(((double)rand() / RAND_MAX * 2 - 1) * scale);
}

FIXTURE(q) {
	float x[8][1024];
};

FIXTURE_VARIANT(q) {
	unsigned int bits;
};

FIXTURE_VARIANT_ADD(q, b8) { .bits = 8 };
FIXTURE_VARIANT_ADD(q, b16) { .bits = 16 };

FIXTURE_SETUP(q)
{
	srand(7);
}

FIXTURE_TEARDOWN(q)
{
}

TEST_F(q, exponent_is_smallest_without_clamping)
{
	unsigned int B = variant->bits;
	float v[1];
	__s8 e;

	v[0] = 1.0f;	/* 1 < 2^1 (1 - 2^-B), but not < 2^0 */
	ASSERT_EQ(0, optinc_block_exp(v, 1, B, &e));
	EXPECT_EQ(1, e);
	v[0] = 0.75f;
	ASSERT_EQ(0, optinc_block_exp(v, 1, B, &e));
	EXPECT_EQ(0, e);
	v[0] = (float)(1.0 - ldexp(1.0, -(int)B));	/* the boundary itself */
	ASSERT_EQ(0, optinc_block_exp(v, 1, B, &e));
	EXPECT_EQ(1, e);
	v[0] = 0.0f;
	ASSERT_EQ(0, optinc_block_exp(v, 1, B, &e));
	EXPECT_EQ(OPTINC_EXP_MIN, e);
	v[0] = NAN;
	EXPECT_EQ(-ERANGE, optinc_block_exp(v, 1, B, &e));
	v[0] = -INFINITY;
	EXPECT_EQ(-ERANGE, optinc_block_exp(v, 1, B, &e));
}

/* The maximum is found wherever it sits: in a chunk, in the tail, negative. */
TEST_F(q, exponent_sees_every_element)
{
	unsigned int B = variant->bits, n, at;
	float v[53];
	__s8 e;

	for (n = 1; n <= 53; n += 13) {
		for (at = 0; at < n; at++) {
			memset(v, 0, sizeof(v));
			v[0] = 0.25f;
			v[at] = at & 1 ? -3.0f : 3.0f;	/* 3 < 2^2 (1 - 2^-B) */
			ASSERT_EQ(0, optinc_block_exp(v, n, B, &e));
			EXPECT_EQ(2, e);
			v[at] = NAN;
			EXPECT_EQ(-ERANGE, optinc_block_exp(v, n, B, &e));
			v[at] = INFINITY;
			EXPECT_EQ(-ERANGE, optinc_block_exp(v, n, B, &e));
		}
	}
	v[0] = 1e-45f;	/* the smallest subnormal: clamped to the minimum */
	ASSERT_EQ(0, optinc_block_exp(v, 1, B, &e));
	EXPECT_EQ(OPTINC_EXP_MIN, e);
	v[0] = -3.4e38f;
	ASSERT_EQ(0, optinc_block_exp(v, 1, B, &e));
	EXPECT_EQ(OPTINC_EXP_MAX, e);
}

TEST_F(q, round_trip_within_half_a_step)
{
	unsigned int B = variant->bits, i, t;
	__u8 enc[2048];
	float y[1024];
	__s8 e;

	for (t = 0; t < 200; t++) {
		double scale = ldexp(1.0, rand() % 60 - 30);

		for (i = 0; i < 1024; i++)
			self->x[0][i] = frand(scale);
		ASSERT_EQ(0, optinc_block_exp(self->x[0], 1024, B, &e));
		optinc_quantize(self->x[0], 1024, e, B, enc);
		optinc_dequantize(enc, 1024, e, B, y);
		for (i = 0; i < 1024; i++)
			ASSERT_LE(fabs((double)y[i] - self->x[0][i]),
				  optinc_quant_step(e, B) / 2);
	}
}

/* The switch's exact average of N quantized blocks vs the true mean. */
TEST_F(q, average_within_one_step)
{
	unsigned int B = variant->bits, esz = B / 8, i, t;
	int n, r;

	for (t = 0; t < 50; t++) {
		static __u8 enc[8][2048], res[2048];
		static __u32 acc[1024];
		enum optinc_kind k = B == 8 ? OPTINC_K_AVG8 : OPTINC_K_AVG16;
		__s8 e = OPTINC_EXP_MIN, er;
		float y[1024];

		n = 1 + rand() % 8;
		for (r = 0; r < n; r++) {
			for (i = 0; i < 1024; i++)
				self->x[r][i] = frand(ldexp(1.0, rand() % 8));
			ASSERT_EQ(0, optinc_block_exp(self->x[r], 1024, B, &er));
			e = er > e ? er : e;	/* what op MAX agrees on */
		}
		for (r = 0; r < n; r++) {
			optinc_quantize(self->x[r], 1024, e, B, enc[r]);
			if (r == 0)
				optinc_acc_load(k, acc, enc[r], 1024);
			else
				optinc_acc_fold(k, acc, enc[r], 1024);
		}
		ASSERT_EQ(1024 * esz, optinc_acc_finish(k, acc, 1024, (__u16)n,
							NULL, res));
		optinc_dequantize(res, 1024, e, B, y);
		for (i = 0; i < 1024; i++) {
			double mean = 0;

			for (r = 0; r < n; r++)
				mean += self->x[r][i];
			mean /= n;
			ASSERT_LE(fabs(y[i] - mean), optinc_quant_step(e, B));
		}
	}
}

TEST_F(q, sum_within_n_half_steps)
{
	unsigned int B = variant->bits, i;
	static __u8 enc[8][2048], res[4096];
	static __u32 acc[1024];
	enum optinc_kind k = B == 8 ? OPTINC_K_SUM8 : OPTINC_K_SUM16;
	__s8 e = OPTINC_EXP_MIN, er;
	float y[1024];
	int n = 8, r;

	for (r = 0; r < n; r++) {
		for (i = 0; i < 1024; i++)
			self->x[r][i] = frand(3.0);
		ASSERT_EQ(0, optinc_block_exp(self->x[r], 1024, B, &er));
		e = er > e ? er : e;
	}
	for (r = 0; r < n; r++) {
		optinc_quantize(self->x[r], 1024, e, B, enc[r]);
		if (r == 0)
			optinc_acc_load(k, acc, enc[r], 1024);
		else
			optinc_acc_fold(k, acc, enc[r], 1024);
	}
	optinc_acc_finish(k, acc, 1024, (__u16)n, NULL, res);
	optinc_dequantize_sum(res, 1024, e, B, y);
	for (i = 0; i < 1024; i++) {
		double sum = 0;

		for (r = 0; r < n; r++)
			sum += self->x[r][i];
		ASSERT_LE(fabs(y[i] - sum), n * optinc_quant_step(e, B) / 2);
	}
}

TEST_F(q, extremes_do_not_wrap)
{
	unsigned int B = variant->bits;
	float v[4] = { 3.4e38f, -3.4e38f, 1e-45f, 0 }, y[4];
	__u8 enc[8];
	__s8 e;

	ASSERT_EQ(0, optinc_block_exp(v, 4, B, &e));
	EXPECT_EQ(OPTINC_EXP_MAX, e);
	optinc_quantize(v, 4, e, B, enc);
	optinc_dequantize(enc, 4, e, B, y);
	EXPECT_GT(y[0], 1e38f);	/* saturates, keeps the sign */
	EXPECT_LT(y[1], -1e38f);
	EXPECT_EQ(0.0f, y[3]);
	ASSERT_EQ(0, optinc_block_exp(v + 2, 1, B, &e));
	optinc_quantize(v + 2, 1, e, B, enc);
	optinc_dequantize(enc, 1, e, B, y);
	EXPECT_LE(fabs(y[0] - 1e-45f), optinc_quant_step(e, B) / 2);
}

TEST_HARNESS_MAIN
