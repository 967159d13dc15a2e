// SPDX-License-Identifier: BSD-3-Clause
/*
 * optinc-onn verify and compile: a model file as realised (matrices rebuilt
 * from phases and attenuations) over every point of its domain; accuracy,
 * wrong outputs by error (the paper's Table II), accuracy under MZI phase
 * noise, and the truth table the switch looks up.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onn.h"

static int verify_load(const char *path, struct optinc_onn *m, uint8_t sha[32])
{
	char err[512];
	int ret = optinc_onn_load(path, m, sha, err, sizeof(err));

	if (ret)
		fprintf(stderr, "optinc-onn: %s\n", err);
	else if (m->bits != 8)
		fprintf(stderr, "optinc-onn: %s: only B = 8 models can be evaluated\n",
			path);
	if (!ret && m->bits != 8) {
		optinc_onn_free(m);
		ret = -EINVAL;
	}
	return ret;
}

/* verify's first line: what finish prints of its result, too. */
void optinc_onn_eval_summary(const char *path, const struct optinc_onn *m,
			     const struct optinc_onn_eval *ev)
{
	printf("%s: N = %u, B = %u, %u layers: %u of %u points right (%.4f %%), worst margin %+.4f\n",
	       path, m->members, m->bits, m->nlayers, ev->entries - ev->wrong,
	       ev->entries, 100.0 * (ev->entries - ev->wrong) / ev->entries,
	       ev->min_margin);
}

/*
 * Accuracy under phase noise: mean, min and max over @trials draws, then
 * the wrong points summed over the draws and the most in one draw. The
 * counts say what four decimals cannot: one point of 390,625 is 0.00026 %,
 * so a mean of 100.0000 % may still have lost a point.
 */
static int verify_noise(const struct optinc_onn *m, double sigma,
			unsigned int trials, uint64_t seed, uint32_t layers)
{
	double sum = 0, lo = 100, hi = 0, acc;
	unsigned long long lost = 0;
	struct optinc_onn_eval ev;
	uint32_t most = 0;
	unsigned int t;
	int err;

	for (t = 0; t < trials; t++) {
		err = optinc_onn_evaluate(m, sigma, seed + t, layers, &ev);
		if (err)
			return err;
		acc = 100.0 * (ev.entries - ev.wrong) / ev.entries;
		lost += ev.wrong;
		most = ev.wrong > most ? ev.wrong : most;
		optinc_onn_eval_free(&ev);
		sum += acc;
		lo = acc < lo ? acc : lo;
		hi = acc > hi ? acc : hi;
	}
	printf("  %10.4g  %10.4f %%  %10.4f %%  %10.4f %%  %12llu  %11u\n",
	       sigma, sum / trials, lo, hi, lost, most);
	return 0;
}

/* One layer of the profile; "-" where the layer got no noise. */
static void verify_profile_row(const struct optinc_onn *m, unsigned int l,
			       const struct optinc_onn_profile *p,
			       int profiled)
{
	const struct optinc_onn_layer *ly = &m->layer[l];
	char shape[24];

	snprintf(shape, sizeof(shape), "%ux%u", ly->out, ly->in);
	if (profiled)
		printf("  %5u  %-10s %-6s  %9.3g  %14.4g  %16.4g\n", l + 1,
		       shape, ly->form == OPTINC_ONN_DENSE ? "dense" : "blocks",
		       p->dw[l], p->alone[l], p->rel[l]);
	else
		printf("  %5u  %-10s %-6s  %9s  %14s  %16.4g\n", l + 1, shape,
		       ly->form == OPTINC_ONN_DENSE ? "dense" : "blocks",
		       "-", "-", p->rel[l]);
}

/* verify --noise-profile: one sigma, the means over @trials draws. */
static int verify_profile(const struct optinc_onn *m, double sigma,
			  unsigned int trials, uint64_t seed, uint32_t layers)
{
	struct optinc_onn_profile p, sum;
	unsigned int t, l;
	int err;

	memset(&sum, 0, sizeof(sum));
	for (t = 0; t < trials; t++) {
		err = optinc_onn_noise_profile(m, sigma, seed + t, layers, &p);
		if (err)
			return err;
		for (l = 0; l < m->nlayers; l++) {
			sum.dw[l] += p.dw[l] / trials;
			sum.alone[l] += p.alone[l] / trials;
			sum.rel[l] += p.rel[l] / trials;
		}
		sum.all += p.all / trials;
	}
	printf("noise profile at sigma %g rad (means over the seeds; rms over every point):\n",
	       sigma);
	printf("  layer  out x in   form         dW/W    outputs, alone  error/act, together\n");
	for (l = 0; l < m->nlayers; l++)
		verify_profile_row(m, l, &sum, layers >> l & 1);
	printf("  together: outputs move by %.4g (rms; the slicer's half step is 0.5)\n",
	       sum.all);
	return 0;
}

/* "layers 1 2 8" of @layers' bits (from 0) among @m's layers, or "". */
static void verify_layer_names(const struct optinc_onn *m, uint32_t layers,
			       char *buf, size_t len)
{
	size_t at = 0;
	unsigned int l;

	buf[0] = 0;
	if ((layers & ((1ull << m->nlayers) - 1)) == ((1ull << m->nlayers) - 1))
		return;
	at = snprintf(buf, len, ", layers");
	for (l = 0; l < m->nlayers && at < len; l++)
		if (layers >> l & 1)
			at += snprintf(buf + at, len - at, " %u", l + 1);
}

/*
 * Accuracy at each sigma of @list (checked by verify_sigmas_ok(): numbers
 * and commas), then, with @profile, each sigma's profile, and with @hot,
 * each sigma's @hot steepest outputs of points. The list is walked, not
 * cut up, so that the later loops read it whole again.
 */
static int verify_noise_list(const struct optinc_onn *m, const char *list,
			     unsigned int trials, uint64_t seed,
			     uint32_t layers, int profile, unsigned int hot)
{
	const char *p;
	char *end, names[160];
	int err = 0;

	verify_layer_names(m, layers, names, sizeof(names));
	printf("accuracy under MZI phase noise (%u seeds each: %llu..%llu%s):\n",
	       trials, (unsigned long long)seed,
	       (unsigned long long)(seed + trials - 1), names);
	printf("  sigma/rad        mean           min           max     wrong (all) wrong (most)\n");
	for (p = list, end = NULL; !err && (!end || *end); p = end + 1)
		err = verify_noise(m, strtod(p, &end), trials, seed, layers);
	for (p = list, end = NULL; profile && !err && (!end || *end); p = end + 1)
		err = verify_profile(m, strtod(p, &end), trials, seed, layers);
	for (p = list, end = NULL; hot && !err && (!end || *end); p = end + 1)
		err = optinc_onn_hot(m, strtod(p, &end), trials, seed, layers,
				     hot);
	return err;
}

static const struct option verify_opts[] = {
	{ "noise", required_argument, NULL, 'n' },
	{ "phase-noise", required_argument, NULL, 'n' },
	{ "trials", required_argument, NULL, 't' },
	{ "seeds", required_argument, NULL, 't' },
	{ "seed", required_argument, NULL, 's' },
	{ "noise-layers", required_argument, NULL, 'l' },
	{ "noise-profile", no_argument, NULL, 'p' },
	{ "hot", required_argument, NULL, 'H' },
	{ "require-exact", no_argument, NULL, 'x' },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* Each sigma of a comma-separated list: a number of radians, 0..10. */
static int verify_sigmas_ok(const char *list)
{
	const char *p = list;
	char *end;
	double v;

	do {
		v = strtod(p, &end);
		if (end == p || (*end && *end != ',') || !(v >= 0 && v <= 10)) {
			fprintf(stderr, "optinc-onn: verify: --phase-noise '%s': '%.*s' is not a sigma in radians (0..10)\n",
				list, (int)strcspn(p, ","), p);
			return -EINVAL;
		}
		p = end + 1;
	} while (*end);
	return 0;
}

/* A count option's value, 1..100000, or its name and value refused. */
static int verify_count(const char *opt, const char *arg, unsigned int *v)
{
	char *end;
	unsigned long n = strtoul(arg, &end, 10);

	if (end == arg || *end || !n || n > 100000) {
		fprintf(stderr, "optinc-onn: verify: --%s '%s': need a count of 1..100000\n",
			opt, arg);
		return -EINVAL;
	}
	*v = n;
	return 0;
}

struct verify_args {
	const char *model, *out;
	const char *noise;
	const char *layer_list;
	unsigned int trials;
	uint64_t seed;
	uint32_t layers;
	int exact, profile;
	unsigned int hot;	/* --hot: outputs of points to list */
};

/*
 * --noise-layers, once the model is loaded: its layers (1 = the first) and
 * ranges, as --approx takes them, into a mask (bit 0 = layer 1).
 */
static int verify_noise_layers(struct verify_args *a,
			       const struct optinc_onn *m)
{
	if (!a->layer_list ||
	    !optinc_onn_parse_layers(a->layer_list, m->nlayers, &a->layers))
		return 0;
	fprintf(stderr, "optinc-onn: verify: --noise-layers '%s': need layers and ranges of 1..%u, as 2-4,7, or all (%s has %u layers)\n",
		a->layer_list, m->nlayers, a->model, m->nlayers);
	return -EINVAL;
}

static int verify_parse(int argc, char **argv, struct verify_args *a,
			const char *usage)
{
	int opt, err = 0;

	memset(a, 0, sizeof(*a));
	a->trials = 5;
	a->seed = 1;
	a->layers = OPTINC_ONN_ALL_LAYERS;
	optind = 1;
	while (!err &&
	       (opt = getopt_long(argc, argv, "o:h", verify_opts, NULL)) != -1) {
		switch (opt) {
		case 'n': a->noise = optarg; err = verify_sigmas_ok(optarg); break;
		case 't': err = verify_count("seeds", optarg, &a->trials); break;
		case 's': a->seed = strtoull(optarg, NULL, 0); break;
		case 'l': a->layer_list = optarg; break;
		case 'p': a->profile = 1; break;
		case 'H': err = verify_count("hot", optarg, &a->hot); break;
		case 'x': a->exact = 1; break;
		case 'o': a->out = optarg; break;
		case 'h': printf("%s", usage); return 1;
		default: fprintf(stderr, "%s", usage); return -EINVAL;
		}
	}
	if (err)
		return err;
	if (a->layer_list && !a->noise) {
		fprintf(stderr, "optinc-onn: verify: --noise-layers '%s' without --phase-noise\n",
			a->layer_list);
		return -EINVAL;
	}
	if (a->profile && !a->noise) {
		fprintf(stderr, "optinc-onn: verify: --noise-profile without --phase-noise\n");
		return -EINVAL;
	}
	if (a->hot && !a->noise) {
		fprintf(stderr, "optinc-onn: verify: --hot without --phase-noise\n");
		return -EINVAL;
	}
	if (optind + 1 != argc) {
		fprintf(stderr, "%s", usage);
		return -EINVAL;
	}
	a->model = argv[optind];
	return 0;
}

static int verify_run(struct verify_args *a, int compile)
{
	struct optinc_onn_eval ev;
	struct optinc_onn m;
	uint8_t sha[32];
	int err;

	err = verify_load(a->model, &m, sha);
	if (err)
		return err;
	err = verify_noise_layers(a, &m);
	if (err)
		goto out_free;
	err = optinc_onn_evaluate(&m, 0, 0, 0, &ev);
	if (err) {
		fprintf(stderr, "optinc-onn: %s: evaluation failed: %s\n",
			a->model, strerror(-err));
		goto out_free;
	}
	optinc_onn_eval_summary(a->model, &m, &ev);
	printf("wrong outputs by error (output - exact average):\n");
	optinc_onn_histogram(stdout, &ev);
	optinc_onn_wrong_by_value(stdout, &ev);
	if (compile)
		err = optinc_onn_table_write(a->out, &m, sha, &ev);
	if (!err && compile)
		printf("table written to %s (%u entries, %u wrong)\n", a->out,
		       ev.entries, ev.wrong);
	if (!err && a->exact && ev.wrong) {
		fprintf(stderr, "optinc-onn: %s: %u points wrong, exact required\n",
			a->model, ev.wrong);
		err = -EDOM;
	}
	optinc_onn_eval_free(&ev);
	if (!err && a->noise && !compile)
		err = verify_noise_list(&m, a->noise, a->trials, a->seed,
					  a->layers, a->profile, a->hot);
out_free:
	optinc_onn_free(&m);
	return err;
}

int optinc_onn_cmd_verify(int argc, char **argv)
{
	struct verify_args a;
	int err = verify_parse(argc, argv, &a,
		"usage: optinc-onn verify MODEL [--phase-noise S1,S2,.. [--seeds K] [--seed S] [--noise-layers L] [--noise-profile] [--hot N]] [--require-exact]\n"
		"  --phase-noise (or --noise): N(0, S^2) rad on every MZI and output phase\n"
		"  --seeds (or --trials) K: noise draws with seeds S..S+K-1 (5); mean, min, max\n"
		"  --noise-layers L: only layers L (e.g. 1,8 or 2-7; 1 = the first) get their draws\n"
		"  --noise-profile: also, per layer, how far the draws move its matrix, the\n"
		"    outputs with it perturbed alone, and its activations with L together\n"
		"  --hot N: also, over the same draws, how far each output of each point\n"
		"    moves, and the N that move most for their clean margin (rms / margin)\n");

	if (err)
		return err > 0 ? 0 : err;
	return verify_run(&a, 0);
}

int optinc_onn_cmd_compile(int argc, char **argv)
{
	struct verify_args a;
	int err = verify_parse(argc, argv, &a,
		"usage: optinc-onn compile MODEL -o TABLE [--require-exact]\n");

	if (err)
		return err > 0 ? 0 : err;
	if (!a.out) {
		fprintf(stderr, "optinc-onn: compile: -o TABLE is required\n");
		return -EINVAL;
	}
	return verify_run(&a, 1);
}
