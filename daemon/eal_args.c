// SPDX-License-Identifier: BSD-3-Clause
/*
 * EAL arguments as optincd hands them to rte_eal_init(): a net_af_packet
 * vdev given without ring geometry gets one that carries jumbo frames.
 *
 * net_af_packet's default ring frame (2048 bytes) truncates every frame
 * longer than about 1980 bytes, whatever the interface MTU. A ring frame of
 * 9216 bytes holds the kernel's 66-byte tpacket2 offset plus a 9150-byte
 * Ethernet frame (MTU 9000 with room to spare). The PMD addresses frame i
 * at i * framesz, so a block must hold a whole number of frames, and the
 * kernel wants whole pages: 36864 bytes (9 pages, 4 frames). The kernel
 * allocates a block in a power of two (64 KiB), 16 KiB per frame in the
 * end; 256 frames cost 4 MiB per direction and port. The PMD wants mbufs
 * with framesz - 32 bytes of data room, which port.c provides.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "optincd.h"

#define EAL_AFP_RING	"blocksz=36864,framesz=9216,framecnt=256"

static bool eal_is_afp(const char *vdev)
{
	return !strncmp(vdev, "net_af_packet", 13) ||
	       !strncmp(vdev, "eth_af_packet", 13);
}

static bool eal_has_ring(const char *vdev)
{
	return strstr(vdev, "blocksz=") || strstr(vdev, "framesz=") ||
	       strstr(vdev, "framecnt=");
}

/* @arg, with the jumbo ring appended when @vdev is an af_packet one. */
static char *eal_vdev(const char *arg, const char *vdev)
{
	char *s;

	if (!eal_is_afp(vdev) || eal_has_ring(vdev))
		return strdup(arg);
	if (asprintf(&s, "%s," EAL_AFP_RING, arg) < 0)
		return NULL;
	return s;
}

/*
 * The strings belong to eal_owned; rte_eal_init() gets another array of
 * the same pointers, which it may reorder and overwrite.
 */
static char **eal_owned;
static int eal_owned_n;

/**
 * optinc_eal_args() - copy argv, giving af_packet vdevs a jumbo ring
 * @argc: argument count
 * @argv: arguments of main()
 * @out:  the copy for rte_eal_init(), NULL-terminated
 *
 * Only arguments before a "--" are EAL's; they are looked at as
 * "--vdev VALUE" and "--vdev=VALUE". optinc_eal_args_free() frees them.
 *
 * Return: 0, or -ENOMEM.
 */
int optinc_eal_args(int argc, char **argv, char ***out)
{
	char **v = calloc((size_t)argc + 1, sizeof(*v));
	bool eal = true;
	int i;

	eal_owned = calloc((size_t)argc + 1, sizeof(*eal_owned));
	if (!v || !eal_owned) {
		free(v);
		return -ENOMEM;
	}
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (eal && !strcmp(a, "--"))
			eal = false;
		if (eal && i > 0 && !strcmp(argv[i - 1], "--vdev"))
			v[i] = eal_vdev(a, a);
		else if (eal && !strncmp(a, "--vdev=", 7))
			v[i] = eal_vdev(a, a + 7);
		else
			v[i] = strdup(a);
		eal_owned[eal_owned_n++] = v[i];
		if (!v[i]) {
			free(v);
			optinc_eal_args_free();
			return -ENOMEM;
		}
	}
	*out = v;
	return 0;
}

void optinc_eal_args_free(void)
{
	int i;

	for (i = 0; i < eal_owned_n; i++)
		free(eal_owned[i]);
	free(eal_owned);
	eal_owned = NULL;
	eal_owned_n = 0;
}
