#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared by the onn selftests: the tool, one BLAS thread and kernel set
# (OpenBLAS falls back to its slowest kernels on CPUs it does not know),
# and "ok STATUS TEXT" TAP lines; $failed is 1 after a failing one.
set -u
O=${O:-build}
ONN=${ONN:-$O/bin/optinc-onn}
export OPENBLAS_NUM_THREADS=1
grep -qw avx2 /proc/cpuinfo && export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-Haswell}

n=0 failed=0
ok() {
	n=$((n + 1))
	if [ "$1" -eq 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		failed=1
	fi
}

# begin PLAN NAME: the TAP plan, a bail-out when the tool is not built, and
# $dir, a scratch folder /tmp/optinc-onn-NAME.* removed on exit
begin() {
	dir=$(mktemp -d "/tmp/optinc-onn-$2.XXXXXX")
	trap 'rm -rf "$dir"' EXIT
	echo "1..$1"
	if [ ! -x "$ONN" ]; then
		echo "Bail out! $ONN not built"
		exit 1
	fi
}
