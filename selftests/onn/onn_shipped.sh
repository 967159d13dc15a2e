#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The shipped ONNs (models/): each model verified exhaustively as realised
# from its phases, each table checked entry by entry against the exact
# average and against its model. TAP output.
. "$(dirname "$0")/lib.sh"

set -- models/onn-n*.onn
if [ ! -e "$1" ]; then
	tap_plan 1
	tap_fail "no shipped model in models/"
	tap_end
fi
tap_plan $(($# * 2))
for model in "$@"; do
	members=${model#models/onn-n}
	members=${members%.onn}
	table=models/onn-n$members.tbl
	out=$("$ONN" verify "$model" --require-exact 2>&1)
	tap_result $? "N = $members: $(echo "$out" | head -1)"
	out=$("$ONN" check-table "$table" -N "$members" --model "$model" \
		--require-exact 2>&1)
	tap_result $? "N = $members: $(echo "$out" | tr '\n' ' ')"
done
tap_end
