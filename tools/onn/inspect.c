// SPDX-License-Identifier: BSD-3-Clause
/*
 * optinc-onn area, info and check-table: the area model of a structure or
 * a model file, a model's layers, and an exhaustive check of a table file
 * against the exact average (and against its model, when given).
 */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <optinc/core.h>

#include "onn.h"

static int inspect_model(const char *path, struct optinc_onn *m, uint8_t sha[32])
{
	char err[512];
	int ret = optinc_onn_load(path, m, sha, err, sizeof(err));

	if (ret)
		fprintf(stderr, "optinc-onn: %s\n", err);
	return ret;
}

static int inspect_area_model(const char *path)
{
	unsigned int size[OPTINC_ONN_MAX_LAYERS + 1], l;
	int approx[OPTINC_ONN_MAX_LAYERS];
	struct optinc_onn m;
	int err = inspect_model(path, &m, NULL);

	if (err)
		return err;
	size[0] = m.layer[0].in;
	for (l = 0; l < m.nlayers; l++) {
		size[l + 1] = m.layer[l].out;
		approx[l] = m.layer[l].form == OPTINC_ONN_BLOCKS;
	}
	optinc_onn_area_report(stdout, m.nlayers, size, approx);
	optinc_onn_free(&m);
	return 0;
}

/* optinc-onn area MODEL | area W0-W1-..-WL [all|none|LIST] */
int optinc_onn_cmd_area(int argc, char **argv)
{
	unsigned int size[OPTINC_ONN_MAX_LAYERS + 1], n;
	int approx[OPTINC_ONN_MAX_LAYERS];
	const char *spec = argc > 2 ? argv[2] : "all";

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: optinc-onn area MODEL | area W0-W1-..-WL [all|none|LIST]\n");
		return -EINVAL;
	}
	/* a model's name may hold '-' (onn-n4.onn): what is not widths is a file */
	if (optinc_onn_parse_arch(argv[1], size, &n)) {
		if (argc > 2) {
			fprintf(stderr, "optinc-onn: area: '%s' is not W0-W1-..-WL, and a model file takes no layer list\n",
				argv[1]);
			return -EINVAL;
		}
		return inspect_area_model(argv[1]);
	}
	if (optinc_onn_parse_approx(spec, n, approx)) {
		fprintf(stderr, "optinc-onn: area: bad layer list '%s' for %u layers (all, none or e.g. 2-7)\n",
			spec, n);
		return -EINVAL;
	}
	optinc_onn_area_report(stdout, n, size, approx);
	return 0;
}

/* optinc-onn info [--units] MODEL */
int optinc_onn_cmd_info(int argc, char **argv)
{
	unsigned int l, i, on[OPTINC_ONN_MAX_LAYERS];
	int units = argc == 3 && !strcmp(argv[1], "--units");
	const char *path = argv[argc - 1];
	struct optinc_onn m;
	uint8_t sha[32];
	int err;

	if (argc == 3 && !units)
		fprintf(stderr, "optinc-onn: info: unknown option '%s'\n", argv[1]);
	if (argc != 2 + units || path[0] == '-') {
		fprintf(stderr, "usage: optinc-onn info [--units] MODEL\n");
		return -EINVAL;
	}
	err = inspect_model(path, &m, sha);
	if (err)
		return err;
	if (units && (err = optinc_onn_units_on(&m, on))) {
		fprintf(stderr, "optinc-onn: info --units: %s: %s\n", path,
			err == -EINVAL ? "only B = 8 models are evaluated" : strerror(-err));
		optinc_onn_free(&m);
		return err;
	}
	printf("%s: N = %u, B = %u, input scale %g, %u layers, sha256 ",
	       path, m.members, m.bits, m.in_scale, m.nlayers);
	for (i = 0; i < 32; i++)
		printf("%02x", sha[i]);
	printf("\n");
	for (l = 0; l < m.nlayers; l++) {
		const struct optinc_onn_layer *y = &m.layer[l];

		printf("  layer %u: %u -> %u, %s, ", l + 1, y->in, y->out,
		       y->act == OPTINC_ONN_ACT_RELU ? "relu" : "linear");
		if (y->form == OPTINC_ONN_DENSE)
			printf("dense");
		else
			printf("%u blocks Sigma*U of %ux%u (%u MZIs each)",
			       y->nblocks, y->k, y->k, optinc_onn_mzis(y->k));
		if (units && y->act == OPTINC_ONN_ACT_RELU)
			printf(", %u of %u units on somewhere", on[l], y->out);
		printf("\n");
	}
	optinc_onn_free(&m);
	return 0;
}

/* The table must be what its model computes, and come from that model. */
static int inspect_against_model(const char *table, const uint8_t *buf,
				 const char *model)
{
	const struct optinc_table_file_hdr *h = (const void *)buf;
	struct optinc_onn_eval ev;
	struct optinc_onn m;
	uint8_t sha[32];
	int err;

	err = inspect_model(model, &m, sha);
	if (err)
		return err;
	err = -EINVAL;
	if (memcmp(sha, h->model_sha256, 32))
		fprintf(stderr, "optinc-onn: %s: made from another model than %s (hash differs)\n",
			table, model);
	else if (optinc_onn_evaluate(&m, 0, 0, 0, &ev))
		fprintf(stderr, "optinc-onn: %s: cannot evaluate\n", model);
	else if (ev.entries != le32toh(h->entries) ||
		 memcmp(ev.out, buf + OPTINC_TABLE_HDR_LEN, ev.entries))
		fprintf(stderr, "optinc-onn: %s: entries differ from what %s computes\n",
			table, model);
	else
		err = 0;
	if (ev.out)
		optinc_onn_eval_free(&ev);
	optinc_onn_free(&m);
	if (!err)
		printf("%s: equals the evaluation of %s\n", table, model);
	return err;
}

static const struct option inspect_table_opts[] = {
	{ "members", required_argument, NULL, 'N' },
	{ "bits", required_argument, NULL, 'B' },
	{ "model", required_argument, NULL, 'm' },
	{ "require-exact", no_argument, NULL, 'x' },
	{ NULL, 0, NULL, 0 },
};

static int inspect_count(const char *path, const uint8_t *buf,
			 unsigned int members, unsigned int bits,
			 uint32_t hdr_wrong, int exact)
{
	uint32_t n = optinc_onn_domain_size(members, bits), i, wrong = 0;
	uint8_t *ref = malloc(n);

	if (!ref)
		return -ENOMEM;
	optinc_table_fill_exact(ref, members, bits);
	for (i = 0; i < n; i++)
		wrong += ref[i] != buf[OPTINC_TABLE_HDR_LEN + i];
	free(ref);
	printf("%s: N = %u, B = %u, %u entries, %u wrong (%.4f %% right)\n",
	       path, members, bits, n, wrong, 100.0 * (n - wrong) / n);
	if (wrong != hdr_wrong) {
		fprintf(stderr, "optinc-onn: %s: header says %u wrong entries, table has %u\n",
			path, hdr_wrong, wrong);
		return -EINVAL;
	}
	if (exact && wrong) {
		fprintf(stderr, "optinc-onn: %s: %u wrong entries, exact required\n",
			path, wrong);
		return -EDOM;
	}
	return 0;
}

/* optinc-onn check-table TABLE -N N [-B 8] [--model MODEL] [--require-exact] */
int optinc_onn_cmd_check_table(int argc, char **argv)
{
	unsigned int members = 0, bits = 8;
	const char *model = NULL;
	int opt, exact = 0, err;
	uint32_t hdr_wrong;
	uint8_t *buf;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "N:B:", inspect_table_opts, NULL)) != -1) {
		switch (opt) {
		case 'N': members = strtoul(optarg, NULL, 0); break;
		case 'B': bits = strtoul(optarg, NULL, 0); break;
		case 'm': model = optarg; break;
		case 'x': exact = 1; break;
		default: goto usage;
		}
	}
	if (optind + 1 != argc || !members)
		goto usage;
	err = optinc_onn_table_load(argv[optind], members, bits, &buf, &hdr_wrong);
	if (err)
		return err;
	err = inspect_count(argv[optind], buf, members, bits, hdr_wrong, exact);
	if (!err && model)
		err = inspect_against_model(argv[optind], buf, model);
	free(buf);
	return err;
usage:
	fprintf(stderr, "usage: optinc-onn check-table TABLE -N MEMBERS [-B 8] [--model MODEL] [--require-exact]\n");
	return -EINVAL;
}
