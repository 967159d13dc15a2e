#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared by the daemon suites that run one optincd on a net_null port (no
# network): selftests/net/lib.sh's TAP and cleanup, the binaries, EAL
# arguments with a file prefix of this process, and starting and stopping
# that optincd. T_TMP is a temporary directory, removed at exit.
. "$(dirname "${BASH_SOURCE[0]}")/../net/lib.sh"
D=$O/bin/optincd
C=$O/bin/optincctl
prefix=optinc-$(basename "$0" .sh)-$$
T_TMP=$(mktemp -d)
pid=
EAL=(-l 0 --no-huge -m 64 --no-pci --no-shconf --file-prefix "$prefix"
     --vdev net_null0,no-rx=1)

d_cleanup() {
	[ -n "$pid" ] && kill -INT "$pid" 2>/dev/null && wait "$pid"
	rm -rf "/var/run/dpdk/$prefix"
	tb_cleanup
}
trap d_cleanup EXIT

# d_start LOG DIR EAL-ARGS... -- OPTIONS...: optincd in working directory
# DIR (output in LOG), ready once /optinc/info answers; false if it exits.
d_start() {
	local log=$1 dir=$2

	shift 2
	(cd "$dir" && exec "$D" "${EAL[@]}" "$@") >"$log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do
		"$C" --prefix "$prefix" daemon show >/dev/null 2>&1 && return 0
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	sed 's/^/# /' "$log"
	return 1
}

# d_stop: SIGINT, and optincd's exit status.
d_stop() {
	local rc

	kill -INT "$pid" && wait "$pid"
	rc=$?
	pid=
	return $rc
}
