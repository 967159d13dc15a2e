/* SPDX-License-Identifier: BSD-3-Clause */
/* optincctl's kmod object: optinc.ko, the kernel datapath, over generic netlink. */
#ifndef OPTINCCTL_KMOD_H
#define OPTINCCTL_KMOD_H

#include <stdio.h>

/*
 * Run `optincctl [-j] kmod ARGS...`: @argc/@argv are the words after
 * "kmod". Prints text, or JSON when @json is set, on stdout; reports an
 * error once on stderr. Return: 0, or a negative errno.
 */
int optincctl_kmod(int argc, char **argv, int json);

/* The grammar of the kmod object, for `optincctl help`. */
void optincctl_kmod_usage(FILE *f);

#endif /* OPTINCCTL_KMOD_H */
