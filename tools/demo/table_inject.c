// SPDX-License-Identifier: BSD-3-Clause
/* optinc-table-inject: a copy of an ONN truth table with wrong entries (Table II). */
#include <endian.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <optinc/core.h>

struct inject_opts {
	unsigned int members, errors, delta, near, by_sum;
	unsigned long long seed;
	const char *from, *out;
};

static unsigned long long inject_rand(unsigned long long *s)
{
	unsigned long long x = (*s += 0x9e3779b97f4a7c15ull);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static int read_file(const char *path, unsigned char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		goto out_err;
	if (fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0 ||
	    fseek(f, 0, SEEK_SET) < 0)
		goto out_close;
	*buf = malloc(n ? n : 1);
	if (!*buf || fread(*buf, 1, n, f) != (size_t)n) {
		free(*buf);
		goto out_close;
	}
	*len = n;
	fclose(f);
	return 0;
out_close:
	fclose(f);
out_err:
	fprintf(stderr, "optinc-table-inject: reading %s: %s\n", path,
		strerror(errno ? errno : EIO));
	return -EIO;
}

/* The source table's entries and model hash, or the exact table. */
static int load_source(const struct inject_opts *o, __u8 *out, __u32 entries,
		       __u8 *sha)
{
	struct optinc_table t;
	const char *why = NULL;
	unsigned char *buf;
	size_t len;

	memset(sha, 0, 32);
	if (!o->from) {
		optinc_table_fill_exact(out, o->members, 8);
		return 0;
	}
	if (read_file(o->from, &buf, &len) < 0)
		return -EIO;
	if (optinc_table_parse(buf, len, &t, &why) < 0 ||
	    t.members != o->members || t.bits != 8 || t.entries != entries) {
		fprintf(stderr, "optinc-table-inject: %s: %s\n", o->from,
			why ? why : "not a table for these members and 8 bits");
		free(buf);
		return -EINVAL;
	}
	memcpy(out, t.out, entries);
	memcpy(sha, ((const struct optinc_table_file_hdr *)buf)->model_sha256,
	       32);
	free(buf);
	return 0;
}

/* Average (offset binary) an entry stands for: the P sums say the sum. */
static unsigned int entry_avg(__u32 idx, __u32 radix, unsigned int members)
{
	return optinc_avg_rhe(optinc_pam4_plain_sum(idx, radix, 4), members);
}

/* @v moved by +-delta (@up), reflected into 0..255; -1 where neither fits. */
static int inject_move(int v, unsigned int delta, int up)
{
	int w = v + (up ? (int)delta : -(int)delta);

	if (w < 0 || w > 255)
		w = v * 2 - w;
	return w < 0 || w > 255 ? -1 : w;
}

/*
 * --by-sum: @errors sums S, every entry of each moved by the same +-delta,
 * as a trained ONN's errors fall (Documentation/onn.md, section 8): the
 * table keeps a by-sum form where its source had one.
 */
static int inject_sums(const struct inject_opts *o, __u8 *out, __u32 entries)
{
	__u32 radix = 3 * o->members + 1, len = 255 * o->members + 1, s, i;
	unsigned long long seed = o->seed;
	signed char *dir = calloc(len, 1);	/* 0, or +-1: the sum's move */
	__u32 done = 0, tries = 0;
	int avg, v;

	if (!dir)
		return -ENOMEM;
	while (done < o->errors && tries++ < 100u * len) {
		s = inject_rand(&seed) % len;
		avg = optinc_avg_rhe(s, o->members);
		if (dir[s] || (o->near && abs(avg - 128) > (int)o->near) ||
		    inject_move(avg, o->delta, 1) < 0)
			continue;
		dir[s] = (inject_rand(&seed) & 1) ? 1 : -1;
		done++;
	}
	for (i = 0; i < entries && done == o->errors; i++) {
		s = optinc_pam4_plain_sum(i, radix, 4);
		v = dir[s] ? inject_move(out[i], o->delta, dir[s] > 0) : -1;
		if (v >= 0)
			out[i] = v;
	}
	free(dir);
	if (done < o->errors) {
		fprintf(stderr, "optinc-table-inject: only %u of %u sums could be changed\n",
			done, o->errors);
		return -ERANGE;
	}
	return 0;
}

/* Change @errors entries by +-delta, with --near only averages close to 0. */
static int inject(const struct inject_opts *o, __u8 *out, __u32 entries)
{
	__u32 radix = 3 * o->members + 1, idx, done = 0, tries = 0;
	unsigned long long seed = o->seed;
	unsigned char *hit = calloc(entries, 1);
	int v, avg;

	if (o->by_sum) {
		free(hit);
		return inject_sums(o, out, entries);
	}
	if (!hit)
		return -ENOMEM;
	while (done < o->errors && tries++ < 100u * entries) {
		idx = inject_rand(&seed) % entries;
		avg = entry_avg(idx, radix, o->members);
		if (hit[idx] || (o->near && abs(avg - 128) > (int)o->near))
			continue;
		v = inject_move(out[idx], o->delta, inject_rand(&seed) & 1);
		if (v < 0)
			continue;
		out[idx] = v;
		hit[idx] = 1;
		done++;
	}
	free(hit);
	if (done < o->errors) {
		fprintf(stderr, "optinc-table-inject: only %u of %u entries could be changed\n",
			done, o->errors);
		return -ERANGE;
	}
	return 0;
}

static int write_table(const struct inject_opts *o, const __u8 *out,
		       __u32 entries, const __u8 *sha)
{
	struct optinc_table_file_hdr h = { .magic = OPTINC_TABLE_MAGIC };
	__u8 *exact = malloc(entries);
	__u32 i, wrong = 0;
	FILE *f;

	if (!exact)
		return -ENOMEM;
	optinc_table_fill_exact(exact, o->members, 8);
	for (i = 0; i < entries; i++)
		wrong += exact[i] != out[i];
	free(exact);
	h.version = htole16(OPTINC_TABLE_VERSION);
	h.members = htole16(o->members);
	h.bits = htole16(8);
	h.radix = htole16(3 * o->members + 1);
	h.entries = htole32(entries);
	h.wrong = htole32(wrong);
	memcpy(h.model_sha256, sha, 32);
	f = fopen(o->out, "wb");
	if (!f || fwrite(&h, sizeof(h), 1, f) != 1 ||
	    fwrite(out, 1, entries, f) != entries || fclose(f) != 0) {
		fprintf(stderr, "optinc-table-inject: writing %s: %s\n", o->out,
			strerror(errno));
		return -EIO;
	}
	printf("%s: N=%u, %u entries, %u wrong (accuracy %.4f %%)\n", o->out,
	       o->members, entries, wrong, 100.0 * (entries - wrong) / entries);
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: optinc-table-inject -n N -o OUT [--from TABLE] [--errors K]\n"
		"                           [--delta D] [--near A] [--seed S] [--by-sum]\n"
		"Writes a B=8 truth table for N members: TABLE (or the exact average)\n"
		"with K more entries off by +-D; --near A picks only entries whose\n"
		"average is within A of zero (the ones gradients hit most); --by-sum\n"
		"moves K sums of the members' values instead, every entry of each\n"
		"(as a trained ONN's errors fall).\n");
}

static int parse_args(int argc, char **argv, struct inject_opts *o)
{
	static const struct option lopts[] = {
		{ "members", 1, NULL, 'n' }, { "out", 1, NULL, 'o' },
		{ "from", 1, NULL, 'f' }, { "errors", 1, NULL, 'e' },
		{ "delta", 1, NULL, 'd' }, { "near", 1, NULL, 'a' },
		{ "seed", 1, NULL, 's' }, { "by-sum", 0, NULL, 'b' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "n:o:f:e:d:a:s:b", lopts,
				NULL)) != -1) {
		switch (c) {
		case 'n': o->members = strtoul(optarg, NULL, 0); break;
		case 'o': o->out = optarg; break;
		case 'f': o->from = optarg; break;
		case 'e': o->errors = strtoul(optarg, NULL, 0); break;
		case 'd': o->delta = strtoul(optarg, NULL, 0); break;
		case 'a': o->near = strtoul(optarg, NULL, 0); break;
		case 's': o->seed = strtoull(optarg, NULL, 0); break;
		case 'b': o->by_sum = 1; break;
		default: return -EINVAL;
		}
	}
	if (optind != argc || !o->out || o->members < 1 || o->members > 16 ||
	    o->delta < 1 || o->delta > 255)
		return -EINVAL;
	return 0;
}

int main(int argc, char **argv)
{
	struct inject_opts o = { .delta = 1, .seed = 1 };
	__u32 entries, radix;
	__u8 sha[32], *out;
	int ret;

	if (parse_args(argc, argv, &o) < 0) {
		usage();
		return 2;
	}
	radix = 3 * o.members + 1;
	entries = radix * radix * radix * radix;
	out = malloc(entries);
	if (!out) {
		fprintf(stderr, "optinc-table-inject: out of memory\n");
		return 1;
	}
	ret = load_source(&o, out, entries, sha);
	if (!ret)
		ret = inject(&o, out, entries);
	if (!ret)
		ret = write_table(&o, out, entries, sha);
	free(out);
	return ret ? 1 : 0;
}
