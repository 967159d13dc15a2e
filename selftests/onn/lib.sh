#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared by the onn selftests: the tool, one BLAS thread and kernel set
# (OpenBLAS falls back to its slowest kernels on CPUs it does not know),
# and TAP (selftests/tap.sh).
set -u
O=${O:-build}
ONN=${ONN:-$O/bin/optinc-onn}
export OPENBLAS_NUM_THREADS=1
grep -qw avx2 /proc/cpuinfo && export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-Haswell}

# shellcheck source=../tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"

# begin PLAN NAME: the TAP plan, a bail-out when the tool is not built, and
# $dir, a scratch folder /tmp/optinc-onn-NAME.* removed on exit
begin() {
	dir=$(mktemp -d "/tmp/optinc-onn-$2.XXXXXX")
	trap 'rm -rf "$dir"' EXIT
	tap_plan "$1"
	[ -x "$ONN" ] || tap_bail "$ONN not built"
}
