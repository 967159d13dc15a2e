// SPDX-License-Identifier: BSD-3-Clause
/* The training set: every point of unit P's domain, in table-index order. */
#include <errno.h>
#include <stdlib.h>

#include "train.h"

int optinc_onn_data_init(struct optinc_onn_data *d, unsigned int members,
			 unsigned int bits)
{
	unsigned int k, s[8], v;
	uint32_t i;

	d->n = optinc_onn_domain_size(members, bits);
	d->in = d->out = bits / 2;
	d->x = malloc(sizeof(float) * d->n * d->in);
	d->t = malloc((size_t)d->n * d->out);
	if (!d->x || !d->t) {
		optinc_onn_data_free(d);
		return -ENOMEM;
	}
	for (i = 0; i < d->n; i++) {
		optinc_onn_domain_point(i, members, bits, s);
		v = optinc_onn_exact(s, members, bits);
		for (k = 0; k < d->in; k++) {
			d->x[(size_t)i * d->in + k] = s[k] * optinc_onn_in_scale(members);
			d->t[(size_t)i * d->out + k] = v >> (2 * k) & 3;
		}
	}
	return 0;
}

void optinc_onn_data_free(struct optinc_onn_data *d)
{
	free(d->x);
	free(d->t);
	d->x = NULL;
	d->t = NULL;
}
