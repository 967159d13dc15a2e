// SPDX-License-Identifier: BSD-3-Clause
/*
 * Area model: a k x k Clements mesh has k(k-1)/2 MZIs, a diagonal has one
 * attenuator per entry; MZIs and attenuators count one unit each.
 * Dense (SVD) m x n layer: U (m x m) + V (n x n) meshes, min(m, n)
 * attenuators. Approximated layer: max/min blocks of k x k mesh plus k
 * attenuators, k = min(m, n).
 */
#include "onn.h"

void optinc_onn_area_layer(unsigned int in, unsigned int out,
			   struct optinc_onn_area *a)
{
	unsigned int k = optinc_onn_block_k(in, out);
	uint64_t nb = (in + out - k) / k;

	a->dense_mzi = (uint64_t)optinc_onn_mzis(out) + optinc_onn_mzis(in);
	a->dense_att = k;
	a->approx_mzi = nb * optinc_onn_mzis(k);
	a->approx_att = nb * k;
}

/**
 * optinc_onn_area_report() - per-layer and total area, approximated / dense
 * @size:   nlayers + 1 widths
 * @approx: per layer, nonzero when the layer is approximated
 *
 * Return: the total ratio (approximated network / all-dense network).
 */
double optinc_onn_area_report(FILE *f, unsigned int nlayers,
			      const unsigned int *size, const int *approx)
{
	uint64_t dense = 0, used = 0, d, a;
	struct optinc_onn_area ar;
	unsigned int l;

	if (f)
		fprintf(f, "layer  shape       form    dense MZI   att    approx MZI   att   ratio\n");
	for (l = 0; l < nlayers; l++) {
		optinc_onn_area_layer(size[l], size[l + 1], &ar);
		d = ar.dense_mzi + ar.dense_att;
		a = approx[l] ? ar.approx_mzi + ar.approx_att : d;
		dense += d;
		used += a;
		if (f)
			fprintf(f, "%5u  %4ux%-5u  %-6s %10llu %5llu %13llu %5llu  %5.1f%%\n",
				l + 1, size[l + 1], size[l],
				approx[l] ? "blocks" : "dense",
				(unsigned long long)ar.dense_mzi,
				(unsigned long long)ar.dense_att,
				(unsigned long long)ar.approx_mzi,
				(unsigned long long)ar.approx_att,
				100.0 * a / d);
	}
	if (f)
		fprintf(f, "total: %llu units dense, %llu as built: ratio %.1f%%\n",
			(unsigned long long)dense, (unsigned long long)used,
			100.0 * used / dense);
	return (double)used / dense;
}
