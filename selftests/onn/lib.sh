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

# refused OPT V..: `train $args OPT V` must fail for every V, naming OPT,
# and write no model; each answer is printed as a TAP comment. 0 when so.
refused() {
	local opt=$1 v out rc bad=0
	shift
	for v in "$@"; do
		out=$("$ONN" train $args "$opt" "$v" -o "$dir/r.onn" 2>&1)
		rc=$?
		echo "# $opt $v: exit $rc: $out"
		[ $rc -ne 0 ] && [[ "$out" == *"$opt"* ]] || bad=1
	done
	[ ! -e "$dir/r.onn" ] && [ $bad = 0 ]
}
