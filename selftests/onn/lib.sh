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

# exact_n2: the exact N = 2 network the noise suites start from ($base,
# 200 stage-2 epochs at 3e-3: every row right with 0.3 to spare) in
# $dir/p.ckpt; a bail-out when it is not that
exact_n2() {
	base="-N 2 --seed 3 --epochs1 0 --batch 64 --lr-end 1"
	"$ONN" train $base --epochs2 200 --lr2 3e-3 --stop-margin 0.3 \
		-o "$dir/p.onn" --checkpoint "$dir/p.ckpt" >"$dir/p.log" 2>&1
	grep -Eq "^epoch 200/.* exact 100.0000% \(0 wrong\) margin \+0\.(29|30)" "$dir/p.log" ||
		tap_bail "the N = 2 network is not exact with margin 0.3 at epoch 200: $(grep ^epoch "$dir/p.log" | tail -1)"
}

# run NAME OPTIONS..: `train $args OPTIONS..` resumed from a copy of
# $dir/p.ckpt (exact_n2); NAME.log, NAME.onn
run() {
	local name=$1
	shift
	cp "$dir/p.ckpt" "$dir/$name.ckpt"
	"$ONN" train $args "$@" --resume --checkpoint "$dir/$name.ckpt" \
		-o "$dir/$name.onn" >"$dir/$name.log" 2>&1
}
