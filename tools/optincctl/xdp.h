/* SPDX-License-Identifier: BSD-3-Clause */
/* optincctl's xdp object: attach, detach and show the server-side programs. */
#ifndef OPTINCCTL_XDP_H
#define OPTINCCTL_XDP_H

/**
 * optincctl_xdp() - run "optincctl [-j] xdp COMMAND ..."
 * @argc: words after "xdp"
 * @argv: them (argv[0] is the command: attach, detach, show, help)
 * @json: print JSON instead of text
 *
 * Return: 0 or a negative errno; the error has been printed.
 */
int optincctl_xdp(int argc, char **argv, int json);

#endif /* OPTINCCTL_XDP_H */
