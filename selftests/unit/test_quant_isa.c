// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests: every instruction-set path of the codec gives the scalar
 * reference's results bit for bit, on random and edge inputs, every
 * exponent, every code, unaligned buffers and every length up to a few
 * vectors.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <optinc/quant.h>
#include "kselftest_harness.h"

#define QN	1100	/* longest array: a few blocks and a tail */
/* block j's length in the block tests */
#define QUANT_LEN	(n - j * bl < bl ? n - j * bl : bl)

static __u32 rnd32(void)
{
	return (__u32)rand() << 16 ^ (__u32)rand();
}

static float bits2f(__u32 b)
{
	float f;

	memcpy(&f, &b, sizeof(f));
	return f;
}

/* A float with a random sign, exponent field in [lo, hi], mantissa. */
static float rnd_float(int lo, int hi)
{
	__u32 ex = (__u32)(lo + rand() % (hi - lo + 1));

	return bits2f((rnd32() & 0x807fffffu) | ex << 23);
}

/* Values the rule treats specially, for the bits and exponent e. */
static float edge_value(unsigned int B, int e)
{
	double step = ldexp(1.0, e - ((int)B - 1));
	static const float fixed[] = { 0.0f, -0.0f, 1e-45f, -1e-45f,
		1.1754942e-38f, 1.17549435e-38f, -1.17549435e-38f, 1.0f, -1.0f,
		FLT_MAX, -FLT_MAX, INFINITY, -INFINITY };
	double lim = ldexp(1.0, (int)B - 1) - 1;
	double top = ldexp(1.0, e) * (1 - ldexp(1.0, -(int)B));
	long k = (long)(rand() % (2 * (long)lim + 3)) - (long)lim - 1;
	float f;

	switch (rand() % 8) {
	case 0:
		return fixed[rand() % (sizeof(fixed) / sizeof(fixed[0]))];
	case 1:		/* halfway between two codes: ties to even */
		return (float)((k + 0.5) * step);
	case 2:		/* exactly on a code */
		return (float)(k * step);
	case 3:		/* at the block maximum and next to it */
		f = (float)top;
		f = rand() % 3 == 0 ? nextafterf(f, 0) : rand() % 2 ? nextafterf(f, INFINITY) : f;
		return rand() % 2 ? -f : f;
	case 4:		/* a float ulp beside a tie */
		f = (float)((k + 0.5) * step);
		return nextafterf(f, rand() % 2 ? INFINITY : -INFINITY);
	case 5:
		return rnd_float(0, 0);	/* subnormal */
	case 6:
		return rnd_float(1, 254);
	default:
		return (float)(((double)rand() / RAND_MAX * 2 - 1) * top);
	}
}

FIXTURE(isa) {
	float x[QN + 8], y[QN + 8], z[QN + 8];
	__u8 a[4 * QN + 8], b[4 * QN + 8];
	int absent;	/* the CPU lacks this path */
};

FIXTURE_VARIANT(isa) {
	const char *name;
	unsigned int bits;
};

FIXTURE_VARIANT_ADD(isa, avx2_b8) { .name = "avx2", .bits = 8 };
FIXTURE_VARIANT_ADD(isa, avx2_b16) { .name = "avx2", .bits = 16 };
FIXTURE_VARIANT_ADD(isa, sse41_b8) { .name = "sse4.1", .bits = 8 };
FIXTURE_VARIANT_ADD(isa, sse41_b16) { .name = "sse4.1", .bits = 16 };
FIXTURE_VARIANT_ADD(isa, portable_b8) { .name = "portable", .bits = 8 };
FIXTURE_VARIANT_ADD(isa, portable_b16) { .name = "portable", .bits = 16 };
FIXTURE_VARIANT_ADD(isa, scalar_b8) { .name = "scalar", .bits = 8 };
FIXTURE_VARIANT_ADD(isa, scalar_b16) { .name = "scalar", .bits = 16 };

FIXTURE_SETUP(isa)
{
	int err = optinc_quant_use(variant->name);

	self->absent = err == -EOPNOTSUPP;
	if (self->absent)
		return;
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, strcmp(optinc_quant_isa(), variant->name));
	srand(11);
}

/* the harness runs a test after a SKIP in setup: each test skips itself */
#define ISA_SKIP() do { if (self->absent) \
	SKIP(return, "this CPU has no %s", variant->name); } while (0)

FIXTURE_TEARDOWN(isa)
{
	optinc_quant_use(NULL);
}

/* Both exponents of x[0..n) agree (the code too), and are returned. */
static int exp_same(struct __test_metadata *_metadata, const float *x,
		    __u32 n, unsigned int B, __s8 *e)
{
	__s8 ea = 99, eb = 99;
	int ra = optinc_block_exp(x, n, B, &ea);
	int rb = optinc_block_exp_ref(x, n, B, &eb);

	EXPECT_EQ(rb, ra);
	if (!rb)
		EXPECT_EQ(eb, ea);
	*e = eb;
	return rb;
}

/* quantize, then dequantize that, both ways: the same bytes and bits. */
static int codec_same(FIXTURE_DATA(isa) *self, const float *x, __u32 n,
		      __s8 e, unsigned int B)
{
	__u32 len = n * B / 8;

	memset(self->a, 0x5a, len + 8);
	memset(self->b, 0x5a, len + 8);
	optinc_quantize(x, n, e, B, self->a);
	optinc_quantize_ref(x, n, e, B, self->b);
	if (memcmp(self->a, self->b, len + 8))
		return -1;
	memset(self->y, 0x5a, sizeof(self->y));
	memset(self->z, 0x5a, sizeof(self->z));
	optinc_dequantize(self->a, n, e, B, self->y);
	optinc_dequantize_ref(self->a, n, e, B, self->z);
	return memcmp(self->y, self->z, sizeof(self->y)) ? -2 : 0;
}

TEST_F(isa, random_blocks_every_length)
{
	unsigned int B = variant->bits, t;
	__u32 n, i, off, done = 0;
	__s8 e;

	ISA_SKIP();

	for (t = 0; t < 3000; t++) {
		n = t < 300 ? t : t % 7 == 0 ? 256 : (__u32)rand() % (QN - 3);
		off = (__u32)rand() % 4;	/* unaligned starts */
		double scale = ldexp(1.0, rand() % 280 - 150);

		for (i = 0; i < n; i++)
			self->x[off + i] = (float)(((double)rand() / RAND_MAX * 2 - 1) * scale);
		if (exp_same(_metadata, self->x + off, n, B, &e))
			continue;
		ASSERT_EQ(0, codec_same(self, self->x + off, n, e, B)) {
			TH_LOG("%s B=%u n=%u e=%d", variant->name, B, n, e);
		}
		done += n;
	}
	TH_LOG("%u elements compared", done);
}

/* Edge values at every exponent, also exponents other than the block's. */
TEST_F(isa, edge_values_every_exponent)
{
	unsigned int B = variant->bits, t;
	__u32 n, i;
	int e, r;
	__s8 eb;

	ISA_SKIP();

	for (e = OPTINC_EXP_MIN; e <= OPTINC_EXP_MAX; e++) {
		for (t = 0; t < 12; t++) {
			n = 1 + (__u32)rand() % 300;
			for (i = 0; i < n; i++)
				self->x[i] = edge_value(B, e);
			r = exp_same(_metadata, self->x, n, B, &eb);
			ASSERT_EQ(0, codec_same(self, self->x, n, (__s8)e, B)) {
				TH_LOG("%s B=%u n=%u e=%d", variant->name, B, n, e);
			}
			if (!r)
				ASSERT_EQ(0, codec_same(self, self->x, n, eb, B));
		}
	}
}

TEST_F(isa, nan_quantizes_as_the_reference)
{
	unsigned int B = variant->bits, i;

	ISA_SKIP();

	for (i = 0; i < 64; i++)
		self->x[i] = i % 3 ? NAN : -NAN;
	self->x[5] = bits2f(0x7fc00001u);
	ASSERT_EQ(0, codec_same(self, self->x, 64, 3, B));
}

/* Every code at every exponent, and the exponent sweep over bit patterns. */
TEST_F(isa, every_code_every_exponent)
{
	unsigned int B = variant->bits, esz = B / 8;
	__u32 ncode = 1u << B, c, i;
	int e;

	ISA_SKIP();

	for (e = OPTINC_EXP_MIN; e <= OPTINC_EXP_MAX; e++) {
		for (c = 0; c < ncode; c += QN) {
			__u32 n = ncode - c < QN ? ncode - c : QN;

			for (i = 0; i < n; i++) {
				if (esz == 1)
					self->a[i] = (__u8)(c + i);
				else {
					self->a[2 * i] = (__u8)((c + i) >> 8);
					self->a[2 * i + 1] = (__u8)(c + i);
				}
			}
			optinc_dequantize(self->a, n, (__s8)e, B, self->y);
			optinc_dequantize_ref(self->a, n, (__s8)e, B, self->z);
			ASSERT_EQ(0, memcmp(self->y, self->z, n * 4)) {
				TH_LOG("%s B=%u e=%d codes from %u", variant->name, B, e, c);
			}
		}
	}
}

TEST_F(isa, sums_every_exponent)
{
	unsigned int B = variant->bits, i, t;
	int e;

	ISA_SKIP();

	for (e = OPTINC_EXP_MIN; e <= OPTINC_EXP_MAX; e++) {
		for (t = 0; t < 8; t++) {
			__u32 n = (__u32)rand() % QN, off = (__u32)rand() % 4;

			for (i = 0; i < n; i++) {
				__u32 s = t < 2 ? rnd32() : (__u32)(rand() % 4001 - 2000);

				if (t == 2 && i < 6)	/* the extremes */
					s = (__u32[]){ 0x7fffffffu, 0x80000000u, 0, 1,
						       0xffffffffu, 0x01000001u }[i];
				self->a[off + 4 * i] = (__u8)(s >> 24);
				self->a[off + 4 * i + 1] = (__u8)(s >> 16);
				self->a[off + 4 * i + 2] = (__u8)(s >> 8);
				self->a[off + 4 * i + 3] = (__u8)s;
			}
			optinc_dequantize_sum(self->a + off, n, (__s8)e, B, self->y);
			optinc_dequantize_sum_ref(self->a + off, n, (__s8)e, B, self->z);
			ASSERT_EQ(0, memcmp(self->y, self->z, n * 4)) {
				TH_LOG("%s B=%u e=%d n=%u", variant->name, B, e, n);
			}
		}
	}
}

/* One value: a stride through all bit patterns, and each mantissa edge. */
TEST_F(isa, exponent_of_every_kind_of_maximum)
{
	unsigned int B = variant->bits, ex, k;
	__u32 b, m, cnt = 0;
	float v[40];
	__s8 e;

	ISA_SKIP();

	for (b = 0; b < 0x80000000u - 9973; b += 9973, cnt++) {
		v[0] = bits2f(b | (cnt & 1) << 31);
		exp_same(_metadata, v, 1, B, &e);
	}
	for (ex = 0; ex < 256; ex++) {
		for (k = 0; k < 6; k++) {
			m = (1u << 23) - (1u << (24 - B));
			m = k == 0 ? m : k == 1 ? m - 1 : k == 2 ? m + 1 :
			    k == 3 ? 0 : k == 4 ? 0x7fffff : 1;
			memset(v, 0, sizeof(v));
			v[rand() % 40] = bits2f(ex << 23 | m);
			exp_same(_metadata, v, 1 + (__u32)rand() % 40, B, &e);
			exp_same(_metadata, v, 40, B, &e);
			cnt += 2;
		}
	}
	TH_LOG("%u maxima compared", cnt);
}

/* The maximum, a NaN or an infinity anywhere in a block is seen. */
TEST_F(isa, exponent_sees_every_position)
{
	unsigned int B = variant->bits;
	__u32 n, at, i;
	__s8 e;

	ISA_SKIP();

	for (n = 1; n <= 300; n += n < 70 ? 1 : 37) {
		for (at = 0; at < n; at++) {
			for (i = 0; i < n; i++)
				self->x[i] = rnd_float(100, 120);
			self->x[at] = rnd_float(121, 121);
			ASSERT_EQ(0, exp_same(_metadata, self->x, n, B, &e));
			self->x[at] = at & 1 ? NAN : -INFINITY;
			ASSERT_EQ(-ERANGE, exp_same(_metadata, self->x, n, B, &e));
		}
	}
}

static float finite_edge(unsigned int B)
{
	float f;

	do
		f = edge_value(B, rand() % 256 - 128);
	while (!isfinite(f));
	return f;
}

/* an exponent per block: mostly near the data's, some at the extremes */
static __s8 rnd_exp(void)
{
	return (__s8)(rand() % 4 ? rand() % 40 - 30 : rand() % 256 - 128);
}

/* Block calls: up to 8 QN values in blocks of bl, starting unaligned. */
struct blk {
	float x[8 * QN + 8], y[8 * QN + 8], z[8 * QN + 8];
	__u8 a[32 * QN + 8], b[32 * QN + 8], codes[32 * QN + 8];
	__s8 e[8 * QN], er[8 * QN], own[8 * QN];
	__u32 n, bl, nb, off;
};

static void blk_fill(struct blk *k, unsigned int t, unsigned int B)
{
	static const __u32 blocks[] = { 256, 1, 7, 8, 33, 64, 100, 255 };
	__u32 i, j;

	k->bl = blocks[t % 8];
	k->n = (__u32)rand() % (8 * QN);
	k->off = t % 3 ? 0 : 1 + (__u32)rand() % 7;	/* aligned or not */
	k->nb = (k->n + k->bl - 1) / k->bl;
	for (j = 0; j < k->nb; j++) {
		double scale = ldexp(1.0, rand() % 200 - 130);

		for (i = j * k->bl; i < k->n && i < (j + 1) * k->bl; i++)
			k->x[k->off + i] = rand() % 50 ? (float)(((double)rand() / RAND_MAX * 2 - 1)
							       * scale) : finite_edge(B);
	}
}

/* the reference, a call per block: quantize into b, or dequantize into z */
static void blk_ref(struct blk *k, unsigned int B, int stage, const __u8 *src)
{
	__u32 j, o = k->off, n = k->n, bl = k->bl, esz = B / 8;

	for (j = 0; j < k->nb; j++) {
		const float *x = k->x + o + j * bl;

		if (stage == 0)
			optinc_quantize_ref(x, QUANT_LEN, k->e[j], B, k->b + o + j * bl * esz);
		else if (stage == 1)
			optinc_dequantize_ref(src + o + j * bl * esz, QUANT_LEN, k->e[j], B,
					      k->z + o + j * bl);
		else
			optinc_dequantize_sum_ref(src + o + j * bl * 4, QUANT_LEN, k->e[j], B,
						  k->z + o + j * bl);
	}
}

/* optinc_block_exps() and the fused exponent + codes, and where they stop */
TEST_F(isa, block_exps_equal_per_block_calls)
{
	static struct blk k;
	unsigned int B = variant->bits, esz = B / 8, t;
	__u32 i, j, n, bad;

	ISA_SKIP();
	for (t = 0; t < 400; t++) {
		blk_fill(&k, t, B);
		n = k.n;
		bad = 12345;
		ASSERT_EQ(0, optinc_block_exps(k.x + k.off, n, k.bl, B, k.e, &bad));
		memset(k.a, 0x5a, n * esz + 8);
		memset(k.b, 0x5a, n * esz + 8);
		ASSERT_EQ(0, optinc_block_exps_codes(k.x + k.off, n, k.bl, B, k.own,
						     k.a + k.off, &bad));
		for (j = 0; j < k.nb; j++) {
			ASSERT_EQ(0, optinc_block_exp_ref(k.x + k.off + j * k.bl,
							  n - j * k.bl < k.bl ? n - j * k.bl : k.bl,
							  B, &k.er[j]));
			ASSERT_EQ(k.er[j], k.e[j]);
			ASSERT_EQ(k.er[j], k.own[j]);
		}
		blk_ref(&k, B, 0, NULL);	/* codes at the own exponent */
		ASSERT_EQ(0, memcmp(k.a, k.b, n * esz + 8));
		if (!n)
			continue;
		i = (__u32)rand() % n;	/* a value that is not finite stops them */
		k.x[k.off + i] = rand() % 2 ? NAN : -INFINITY;
		ASSERT_EQ(-ERANGE, optinc_block_exps(k.x + k.off, n, k.bl, B, k.e, &bad));
		ASSERT_EQ(i / k.bl, bad);
		for (j = 0; j < bad; j++)
			ASSERT_EQ(k.er[j], k.e[j]);
		ASSERT_EQ(-ERANGE, optinc_block_exps_codes(k.x + k.off, n, k.bl, B, k.own,
							   k.codes, &bad));
		ASSERT_EQ(i / k.bl, bad);
	}
}

/* the block calls of quantize (from codes too) and both dequantizes */
TEST_F(isa, block_codecs_equal_per_block_calls)
{
	static struct blk k;
	unsigned int B = variant->bits, esz = B / 8, t;
	__u32 i, j, n, o;

	ISA_SKIP();
	for (t = 0; t < 400; t++) {
		blk_fill(&k, t, B);
		n = k.n, o = k.off;
		ASSERT_EQ(0, optinc_block_exps_codes(k.x + o, n, k.bl, B, k.own, k.codes + o,
						     NULL));
		for (j = 0; j < k.nb; j++)	/* another rank's larger exponent, or not */
			k.e[j] = rand() % 3 ? k.own[j] : rand() % 2 ?
				 (__s8)(k.own[j] + (k.own[j] < 127)) : rnd_exp();
		memset(k.a, 0x5a, n * esz + 8);
		memset(k.b, 0x5a, n * esz + 8);
		optinc_quantize_blocks_from(k.x + o, n, k.bl, k.e, k.own, k.codes + o, B,
					    k.a + o);
		blk_ref(&k, B, 0, NULL);
		ASSERT_EQ(0, memcmp(k.a, k.b, n * esz + 8));
		memset(k.a, 0x5a, n * esz + 8);
		optinc_quantize_blocks(k.x + o, n, k.bl, k.e, B, k.a + o);
		ASSERT_EQ(0, memcmp(k.a, k.b, n * esz + 8)) {
			TH_LOG("%s B=%u n=%u block=%u", variant->name, B, n, k.bl);
		}
		memset(k.y, 0x5a, sizeof(k.y));
		memset(k.z, 0x5a, sizeof(k.z));
		optinc_dequantize_blocks(k.a + o, n, k.bl, k.e, B, k.y + o);
		blk_ref(&k, B, 1, k.a);
		ASSERT_EQ(0, memcmp(k.y, k.z, sizeof(k.y)));
		for (i = 0; i < 4 * n; i++)
			k.a[o + i] = (__u8)rand();
		optinc_dequantize_sum_blocks(k.a + o, n, k.bl, k.e, B, k.y + o);
		blk_ref(&k, B, 2, k.a);
		ASSERT_EQ(0, memcmp(k.y, k.z, sizeof(k.y)));
	}
}

#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>

/*
 * Frameworks may set flush-to-zero and denormals-are-zero (MXCSR bits 15
 * and 6): the paths still give what the reference then gives (no fast
 * path makes a subnormal; subnormal inputs flush alike).
 */
TEST_F(isa, same_with_ftz_and_daz)
{
	unsigned int B = variant->bits, t, i, csr = _mm_getcsr();
	__u32 n;
	__s8 e;

	ISA_SKIP();
	_mm_setcsr(csr | 0x8040);
	for (t = 0; t < 3000; t++) {
		n = 1 + (__u32)rand() % 300;
		for (i = 0; i < n; i++)
			self->x[i] = rand() % 3 ? rnd_float(0, 20) : finite_edge(B);
		if (!exp_same(_metadata, self->x, n, B, &e))
			EXPECT_EQ(0, codec_same(self, self->x, n, e, B));
		e = (__s8)(rand() % 256 - 128);
		EXPECT_EQ(0, codec_same(self, self->x, n, e, B)) {
			TH_LOG("%s B=%u n=%u e=%d", variant->name, B, n, e);
		}
	}
	_mm_setcsr(csr);
}
#endif

TEST_HARNESS_MAIN
