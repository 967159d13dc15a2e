#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The shipped ONNs (models/): each model verified exhaustively as realised
# from its phases, each table checked entry by entry against the exact
# average and against its model. TAP output.
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

set -- models/onn-n*.onn
if [ ! -e "$1" ]; then
	echo "1..1"
	echo "not ok 1 - no shipped model in models/"
	exit 1
fi
echo "1..$(($# * 2))"
for model in "$@"; do
	members=${model#models/onn-n}
	members=${members%.onn}
	table=models/onn-n$members.tbl
	out=$("$ONN" verify "$model" --require-exact 2>&1)
	ok $? "N = $members: $(echo "$out" | head -1)"
	out=$("$ONN" check-table "$table" -N "$members" --model "$model" \
		--require-exact 2>&1)
	ok $? "N = $members: $(echo "$out" | tr '\n' ' ')"
done
exit $failed
