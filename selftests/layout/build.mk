# SPDX-License-Identifier: GPL-2.0
# selftests/layout: the shape of the source tree: no import circles between
# the files of the switch's directories (scripts/callgraph --check), and
# that the check catches one, on a copy with a back-call put in.
TEST_PROGS += selftests/layout/circles.py
