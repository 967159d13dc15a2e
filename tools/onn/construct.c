// SPDX-License-Identifier: BSD-3-Clause
/*
 * optinc-onn construct: a closed-form ONN for the quantized average, built
 * directly in the optics' form (Sigma * U blocks where approximated).
 *
 * The target depends on the symbol sums only through S = sum_k 4^k s_k, and
 * as S goes from 0 to 255N the average q(S) changes at 255 points a_p (q
 * differs between S = a_p and a_p + 1). Symbol k of the output is then
 *   t_k(S) = t_k(0) + sum_p D_kp rho_p(S),  rho_p(S) = clamp(S - a_p, 0, 1)
 * with D_kp the change of symbol k at a_p; rho_p is exactly 0 or 1 at every
 * integer S. The layers, in the roles of this file's "hinge plan" (for
 * networks with a layer wide enough for two hinges per transition; fold.c
 * has the plan for narrower ones, which shares the readout and decode):
 *  - copy (1 .. h-1): every output a copy of S (the first layer computes S
 *    from the s_k; blocks use U = I);
 *  - hinge (h): out[p] = ReLU(S - a_p), out[in + p] = ReLU(S - a_p - 1),
 *    both from input copy p, U = I, the a_p in the biases;
 *  - ramp (h+1): rho_p = ReLU(out[p] - out[in + p]), rows e_p - e_(in+p);
 *  - readout (h+2): the four functionals D_k. over rho, orthonormalised per
 *    block (a block's rows must be orthogonal), plus biases that keep every
 *    value positive so that the ReLU passes it;
 *  - pass (h+3 .. L-1): U = I on the readout signals;
 *  - decode (L, dense): t_k = t_k(0) + the readout signals through R.
 * Every block's rows are orthogonal by construction, so each is exactly
 * diag(d) U with U orthogonal and is stored as attenuations and Clements
 * phases like a trained one; verify and compile then judge the file.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <optinc/core.h>

#include "construct.h"

/* The transition points of q(S) and the symbol changes there. */
static int con_targets(struct con *c)
{
	unsigned int s, k, p = 0, q, qn;

	/* a cascade's target is the average over N1 x N (scale.md 3.4) */
	c->smax = 255 * c->members * (c->fanin ? c->fanin : 1);
	c->a = calloc(c->smax, sizeof(*c->a));
	c->dsym = calloc((size_t)c->smax * CON_SYMS, sizeof(*c->dsym));
	if (!c->a || !c->dsym)
		return -ENOMEM;
	for (s = 0, q = 0; s < c->smax; s++, q = qn) {
		qn = optinc_avg_rhe(s + 1, c->smax / 255);
		if (qn == q)
			continue;
		c->a[p] = s;
		for (k = 0; k < CON_SYMS; k++)
			c->dsym[p * CON_SYMS + k] = (int)con_sym(qn, k) -
						    (int)con_sym(q, k);
		p++;
	}
	c->pairs = p;
	return 0;
}

/* The readout's functionals over its inputs: the ramps, one per transition. */
static int con_hinge_fn(struct con *c)
{
	unsigned int in = c->size[c->h + 2], p, k;

	c->fn = calloc((size_t)in * CON_SYMS, sizeof(double));
	if (!c->fn)
		return -ENOMEM;
	for (p = 0; p < c->pairs; p++)
		for (k = 0; k < CON_SYMS; k++)
			c->fn[(size_t)p * CON_SYMS + k] = c->dsym[p * CON_SYMS + k];
	return 0;
}

/*
 * Pick the plan: one hinge per transition if a layer is wide enough for
 * them (then every other role follows from that layer), else the folded
 * plan of fold.c (coarse and fine steps, for networks as narrow as 64).
 */
static int con_roles(struct con *c, const char **why)
{
	unsigned int l, in, out;

	if (c->approx[c->nl - 1]) {
		*why = "the last layer must be dense (it decodes the readout signals)";
		return -EINVAL;
	}
	for (l = 1; l + 3 < c->nl; l++) {
		in = c->size[l];
		out = c->size[l + 1];
		if (in >= c->pairs && out >= in + c->pairs &&
		    c->size[l + 2] >= c->pairs)
			break;
	}
	if (l + 3 < c->nl) {
		c->h = l;
		return con_hinge_fn(c);
	}
	return con_fold_plan(c, why);
}

/* Desired rows of the copy layers: output i is input i mod in (or S). */
static void con_copy(const struct con *c, unsigned int l, double *w, double *b)
{
	unsigned int in = c->size[l], out = c->size[l + 1], i, k;

	for (i = 0; i < out; i++) {
		if (l == 0)
			for (k = 0; k < in; k++)
				w[(size_t)i * in + k] = (double)(1u << (2 * k));
		else
			w[(size_t)i * in + i % in] = 1.0;
		b[i] = 0;
	}
}

static void con_hinge(const struct con *c, double *w, double *b)
{
	unsigned int in = c->size[c->h], p;

	for (p = 0; p < c->pairs; p++) {
		w[(size_t)p * in + p] = 1.0;
		b[p] = -(double)c->a[p];
		w[(size_t)(in + p) * in + p] = 1.0;
		b[in + p] = -(double)c->a[p] - 1.0;
	}
}

static void con_ramp(const struct con *c, double *w, double *b)
{
	unsigned int in = c->size[c->h + 1], hin = c->size[c->h], p;

	for (p = 0; p < c->pairs; p++) {
		w[(size_t)p * in + p] = 1.0;
		w[(size_t)p * in + hin + p] = -1.0;
	}
	(void)b;
}

/* Input columns block j of an in -> out layer reads: all, or a segment. */
static void con_segment(unsigned int in, unsigned int out, int blocks,
			unsigned int j, unsigned int *c0, unsigned int *c1)
{
	unsigned int k = optinc_onn_block_k(in, out);

	*c0 = blocks && out < in ? j * k : 0;
	*c1 = blocks && out < in ? j * k + k : in;
}

/*
 * Readout: per input segment, the four functionals restricted to it are
 * orthonormalised (modified Gram-Schmidt); each basis vector is one output
 * row reading only that segment, and r[][] keeps the coefficients that
 * give the functionals back.
 */
static int con_readout(struct con *c, double *w)
{
	unsigned int l = c->h + 2, in = c->size[l], out = c->size[l + 1];
	unsigned int nseg = out < in && c->approx[l] ? in / out : 1;
	unsigned int j, k, m, i, c0, c1;
	double *v = malloc(sizeof(double) * in), nrm, dot;

	if (!v)
		return -ENOMEM;
	c->nsig = 0;
	for (j = 0; j < nseg; j++) {
		unsigned int first = c->nsig;

		con_segment(in, out, c->approx[l], j, &c0, &c1);
		for (k = 0; k < CON_SYMS; k++) {
			memset(v, 0, sizeof(double) * in);
			for (i = c0; i < c1; i++)
				v[i] = c->fn[(size_t)i * CON_SYMS + k];
			for (m = first; m < c->nsig; m++) {
				dot = 0;
				for (i = c0; i < c1; i++)
					dot += w[(size_t)m * in + i] * v[i];
				c->r[m][k] = dot;
				for (i = c0; i < c1; i++)
					v[i] -= dot * w[(size_t)m * in + i];
			}
			for (nrm = 0, i = c0; i < c1; i++)
				nrm += v[i] * v[i];
			nrm = sqrt(nrm);
			if (nrm < 1e-9)
				continue;
			if (c->nsig == CON_MAX_SIG || c->nsig == out) {
				free(v);
				return -E2BIG;
			}
			m = c->nsig++;
			for (i = c0; i < c1; i++)
				w[(size_t)m * in + i] = v[i] / nrm;
			c->r[m][k] = nrm;
		}
	}
	free(v);
	return 0;
}

/* The readout's inputs (ramps, 0 or 1) at S = @s. */
static void con_inputs_at(const struct con *c, unsigned int s, double *v)
{
	unsigned int p;

	if (c->fold) {
		con_fold_inputs_at(c, s, v);
		return;
	}
	for (p = 0; p < c->pairs; p++)
		v[p] = c->a[p] < s;
}

/*
 * Readout biases: each signal's least value over every S, lifted to 1;
 * and the decoder's constants: the symbols at S = 0 less what the ramps
 * already give there.
 */
static int con_readout_bias(struct con *c, const double *w, double *b)
{
	unsigned int in = c->size[c->h + 2], m, i, k, s;
	double *v = calloc(in, sizeof(double)), y, lo;

	if (!v)
		return -ENOMEM;
	for (m = 0; m < c->nsig; m++) {
		lo = 0;
		for (s = 0; s <= c->smax; s++) {
			con_inputs_at(c, s, v);
			for (y = 0, i = 0; i < in; i++)
				y += w[(size_t)m * in + i] * v[i];
			if (y < lo)
				lo = y;
		}
		c->beta[m] = 1.0 - lo;
		b[m] = c->beta[m];
	}
	con_inputs_at(c, 0, v);
	for (k = 0; k < CON_SYMS; k++) {
		c->t0[k] = con_sym(optinc_avg_rhe(0, c->smax / 255), k);
		for (i = 0; i < in; i++)
			c->t0[k] -= c->fn[(size_t)i * CON_SYMS + k] * v[i];
	}
	free(v);
	return 0;
}

static void con_pass(const struct con *c, unsigned int l, double *w)
{
	unsigned int in = c->size[l], m;

	for (m = 0; m < c->nsig; m++)
		w[(size_t)m * in + m] = 1.0;
}

static void con_decode(const struct con *c, double *w, double *b)
{
	unsigned int in = c->size[c->nl - 1], k, m;

	for (k = 0; k < CON_SYMS; k++) {
		b[k] = c->t0[k];
		for (m = 0; m < c->nsig; m++) {
			w[(size_t)k * in + m] = c->r[m][k];
			b[k] -= c->r[m][k] * c->beta[m];
		}
	}
}

/*
 * Rows of @u (k x k) that are zero become an orthonormal completion: unit
 * vectors e_x with what the other rows leave of them, normalised. A
 * residual down to 0.05 is still well conditioned in double; Hadamard rows
 * over m columns leave 1 - rows / m of each e_x, which can be small.
 */
#define CON_MIN_RESIDUAL	0.05
static int con_complete(unsigned int k, double *u, const double *d)
{
	unsigned int i, m, e = 0, x;
	double *v = malloc(sizeof(double) * k), dot, nrm;

	if (!v)
		return -ENOMEM;
	for (i = 0; i < k; i++) {
		if (d[i] > 0)
			continue;
		for (nrm = 0; e < k && nrm < CON_MIN_RESIDUAL; e++) {
			memset(v, 0, sizeof(double) * k);
			v[e] = 1.0;
			for (m = 0; m < k; m++) {
				if (m == i || (d[m] <= 0 && m > i))
					continue;
				dot = u[(size_t)m * k + e];
				for (x = 0; dot != 0 && x < k; x++)
					v[x] -= dot * u[(size_t)m * k + x];
			}
			for (nrm = 0, x = 0; x < k; x++)
				nrm += v[x] * v[x];
			nrm = sqrt(nrm);
		}
		if (nrm < CON_MIN_RESIDUAL) {
			free(v);
			return -EDOM;
		}
		for (x = 0; x < k; x++)
			u[(size_t)i * k + x] = v[x] / nrm;
	}
	free(v);
	return 0;
}

/* Block @j of desired weights @w as diag(d) U, U orthogonal, into @ly. */
static int con_block(struct optinc_onn_layer *ly, const double *w,
		     unsigned int j, const char **why)
{
	unsigned int k = ly->k, r0 = ly->out >= ly->in ? j * k : 0;
	unsigned int c0 = ly->out >= ly->in ? 0 : j * k, i, m, x;
	double *u = calloc((size_t)k * k + k, sizeof(double)), *d = u + k * k;
	double complex *z = malloc(sizeof(*z) * k * k);
	double *ph = malloc(sizeof(double) * k * k), dot;
	int err = u && z && ph ? 0 : -ENOMEM;

	for (i = 0; i < k && !err; i++) {
		const double *row = w + (size_t)(r0 + i) * ly->in + c0;

		for (x = 0; x < k; x++)
			d[i] += row[x] * row[x];
		d[i] = sqrt(d[i]);
		for (x = 0; d[i] > 0 && x < k; x++)
			u[(size_t)i * k + x] = row[x] / d[i];
		for (m = 0; d[i] > 0 && m < i; m++) {
			for (dot = 0, x = 0; d[m] > 0 && x < k; x++)
				dot += u[(size_t)i * k + x] * u[(size_t)m * k + x];
			if (fabs(dot) > 1e-9) {
				*why = "two rows of a block are not orthogonal";
				err = -EDOM;
				break;
			}
		}
	}
	if (!err)
		err = con_complete(k, u, d);
	for (i = 0; i < k * k && !err; i++)
		z[i] = u[i];
	if (!err)
		err = optinc_onn_block_phases(k, z, ph);
	for (i = 0; i < k * k && !err; i++)
		ly->phase[(size_t)j * k * k + i] = (float)ph[i];
	for (i = 0; i < k && !err; i++)
		ly->sigma[j * k + i] = (float)d[i];
	free(u);
	free(z);
	free(ph);
	return err;
}

/* Desired weights and biases of layer @l by its role. */
static int con_layer_weights(struct con *c, unsigned int l, double *w,
			     double *b)
{
	int err = 0;

	if (c->fold && l <= c->h + 1)
		con_fold_layer(c, l, w, b);
	else if (l < c->h)
		con_copy(c, l, w, b);
	else if (l == c->h)
		con_hinge(c, w, b);
	else if (l == c->h + 1)
		con_ramp(c, w, b);
	else if (l == c->h + 2)
		err = con_readout(c, w) ?: con_readout_bias(c, w, b);
	else if (l + 1 < c->nl)
		con_pass(c, l, w);
	else
		con_decode(c, w, b);
	return err;
}

static int con_layer(struct con *c, struct optinc_onn *mo, unsigned int l,
		     const char **why)
{
	unsigned int in = c->size[l], out = c->size[l + 1], i, j;
	struct optinc_onn_layer *ly = &mo->layer[l];
	double *w = calloc((size_t)in * out + out, sizeof(double));
	double *b = w + (size_t)in * out;
	int err = w ? 0 : -ENOMEM;

	if (!err)
		err = optinc_onn_layer_alloc(ly, in, out, l + 1 < c->nl ?
					     OPTINC_ONN_ACT_RELU : OPTINC_ONN_ACT_NONE,
					     c->approx[l] ? OPTINC_ONN_BLOCKS :
							    OPTINC_ONN_DENSE);
	if (!err)
		err = con_layer_weights(c, l, w, b);
	if (err == -E2BIG)
		*why = "the readout layer is too narrow for its signals";
	for (i = 0; i < out && !err; i++)
		ly->bias[i] = (float)b[i];
	for (i = 0; !err && !c->approx[l] && i < in * out; i++)
		ly->w[i] = (float)w[i];
	for (j = 0; !err && c->approx[l] && j < ly->nblocks; j++)
		err = con_block(ly, w, j, why);
	free(w);
	return err;
}

static int con_build(struct con *c, struct optinc_onn *mo, const char **why)
{
	unsigned int l;
	int err;

	memset(mo, 0, sizeof(*mo));
	mo->members = c->members;
	mo->bits = 2 * CON_SYMS;
	mo->in_scale = 1.0f;
	err = con_targets(c);
	if (!err)
		err = con_roles(c, why);
	for (l = 0; l < c->nl && !err; l++) {
		mo->nlayers = l + 1;
		err = con_layer(c, mo, l, why);
	}
	return err;
}

static void con_usage(FILE *f)
{
	fprintf(f,
		"usage: optinc-onn construct -N MEMBERS --arch W0-W1-..-WL --approx LAYERS -o MODEL\n"
		"  a closed-form ONN (no training) for the B = 8 average, in the optics' form;\n"
		"  judge it with verify and compile like a trained one\n"
		"  -N, --members N    servers (1..64)\n"
		"  --arch SPEC        layer widths, 4-...-4\n"
		"  --approx LAYERS    layers built as Sigma * U blocks: all, none, \"2-7\"\n"
		"  -o, --output FILE  model file to write\n"
		"  --fanin N1         instead: the second level of a cascade (N first-level\n"
		"                     switches of N1 = 2..4 servers; --arch 5-...-4), run over\n"
		"                     its whole domain and written as a cascade truth table\n"
		"                     (version 2) to FILE\n");
}

static int con_args(int argc, char **argv, struct con *c, const char **out)
{
	static const struct option opts[] = {
		{ "members", required_argument, NULL, 'N' },
		{ "arch", required_argument, NULL, 'a' },
		{ "approx", required_argument, NULL, 'x' },
		{ "output", required_argument, NULL, 'o' },
		{ "fanin", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	const char *arch = NULL, *approx = "none";
	char *end;
	int o;

	while ((o = getopt_long(argc, argv, "N:o:h", opts, NULL)) != -1) {
		switch (o) {
		case 'N':
			c->members = strtoul(optarg, &end, 10);
			if (*end || !c->members || c->members > 64) {
				fprintf(stderr, "optinc-onn construct: --members \"%s\" is not in 1..64\n", optarg);
				return -EINVAL;
			}
			break;
		case 'a': arch = optarg; break;
		case 'x': approx = optarg; break;
		case 'o': *out = optarg; break;
		case 'f':
			c->fanin = strtoul(optarg, &end, 10);
			if (*end || c->fanin < 2 || c->fanin > 4) {
				fprintf(stderr, "optinc-onn construct: --fanin \"%s\" is not in 2..4\n", optarg);
				return -EINVAL;
			}
			break;
		case 'h': con_usage(stdout); return 1;
		default: con_usage(stderr); return -EINVAL;
		}
	}
	c->arch = arch;
	c->approx_spec = approx;
	if (!c->members || !arch || !*out || optind != argc) {
		con_usage(stderr);
		return -EINVAL;
	}
	if (c->fanin && c->members > OPTINC_CASCADE_MAX_MEMBERS) {
		fprintf(stderr, "optinc-onn construct: --fanin: at most %u members\n",
			OPTINC_CASCADE_MAX_MEMBERS);
		return -EINVAL;
	}
	if (optinc_onn_parse_arch(arch, c->size, &c->nl) ||
	    c->size[0] != (c->fanin ? OPTINC_CASCADE_DIGITS : CON_SYMS) ||
	    c->size[c->nl] != CON_SYMS) {
		fprintf(stderr, "optinc-onn construct: --arch \"%s\" is not W0-..-WL with W0 = %u, WL = 4\n",
			arch, c->fanin ? OPTINC_CASCADE_DIGITS : CON_SYMS);
		return -EINVAL;
	}
	if (optinc_onn_parse_approx(approx, c->nl, c->approx)) {
		fprintf(stderr, "optinc-onn construct: --approx \"%s\" is not all, none or a list of layers 1..%u\n",
			approx, c->nl);
		return -EINVAL;
	}
	return 0;
}

int optinc_onn_cmd_construct(int argc, char **argv)
{
	struct con c = { 0 };
	struct optinc_onn mo;
	const char *out = NULL, *why = NULL;
	char err_msg[256];
	int err = con_args(argc, argv, &c, &out);

	if (err)
		return err > 0 ? 0 : err;
	err = con_build(&c, &mo, &why);
	if (err) {
		fprintf(stderr, "optinc-onn construct: N = %u, --arch %s --approx %s: %s\n",
			c.members, c.arch, c.approx_spec,
			why ? why : strerror(-err));
	} else {
		if (c.fold)
			printf("N = %u: %u transitions of the average over S = 0..%u, folded: %u coarse steps (layers 1-2), fold into r in 0..%u (3), %u fine steps (hinges %u, ramps %u), readout %u (%u signals), decode %u\n",
			       c.members, c.pairs, c.smax, c.tc, c.rmax,
			       c.tf, c.h + 1, c.h + 2, c.h + 3, c.nsig, c.nl);
		else
			printf("N = %u: %u transitions of the average over S = 0..%u; hinge layer %u, ramps %u, readout %u (%u signals), decode %u\n",
			       c.members, c.pairs, c.smax, c.h + 1, c.h + 2,
			       c.h + 3, c.nsig, c.nl);
		if (c.fanin)
			err = optinc_onn_cascade_table(out, &mo, c.fanin);
		else
			err = optinc_onn_save(out, &mo, err_msg, sizeof(err_msg));
		if (err && !c.fanin)
			fprintf(stderr, "optinc-onn construct: %s\n", err_msg);
	}
	optinc_onn_free(&mo);
	free(c.a);
	free(c.dsym);
	free(c.fn);
	con_fold_free(&c);
	return err;
}
