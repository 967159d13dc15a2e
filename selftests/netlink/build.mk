# SPDX-License-Identifier: GPL-2.0
# selftests/netlink: the netlink spec against what follows from it: the
# generated files, the module's handlers and counters, optincd's telemetry
# keys, optincctl's printer (scripts/nlspec check), and that the check
# catches drift, on mutated copies. No VM (selftests/kmod/run-vm checks
# the loaded module's policies against the spec).
TEST_PROGS += selftests/netlink/spec_drift.py
