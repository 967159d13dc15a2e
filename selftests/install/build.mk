# SPDX-License-Identifier: GPL-2.0
# selftests/install: `make install` into a temporary DESTDIR, and a program
# built against it through pkg-config (install.sh builds hello.c itself).

TEST_PROGS += selftests/install/install.sh
