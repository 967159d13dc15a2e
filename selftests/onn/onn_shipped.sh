#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The shipped ONNs (models/): each model verified exhaustively as realised
# from its phases, each table checked entry by entry against the exact
# average and against its model. TAP output.
. "$(dirname "$0")/lib.sh"

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
