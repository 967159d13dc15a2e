#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# optinc-onn construct: the closed-form ONN in the optics' form is right on
# every domain point as realised from its phases, for several N; it is the
# same file every time; architectures it cannot fill are refused with the
# reason. TAP output.
. "$(dirname "$0")/lib.sh"
ARCH8=4-64-128-256-512-256-128-64-4

begin 16 con

for members in 1 2 3; do
	m=$dir/n$members.onn
	"$ONN" construct -N $members --arch $ARCH8 --approx 2-7 -o "$m" \
		>"$dir/c$members.log" 2>&1
	tap_result $? "construct N = $members: $(head -1 "$dir/c$members.log")"
	out=$("$ONN" verify "$m" --require-exact 2>&1)
	tap_result $? "N = $members: $(echo "$out" | head -1)"
done
"$ONN" compile "$dir/n3.onn" -o "$dir/n3.tbl" --require-exact >/dev/null 2>&1 &&
	"$ONN" check-table "$dir/n3.tbl" -N 3 --model "$dir/n3.onn" \
		--require-exact >/dev/null 2>&1
tap_result $? "N = 3: compiled table equals the exact average and the model"
"$ONN" construct -N 3 --arch $ARCH8 --approx 2-7 -o "$dir/again.onn" \
	>/dev/null 2>&1 && cmp -s "$dir/n3.onn" "$dir/again.onn"
tap_result $? "construct gives the same file twice"

# the folded plan: widths of 64, and the cascade's second level
"$ONN" construct -N 4 --arch 4-64-64-64-128-256-128-64-4 --approx 2-7 \
	-o "$dir/f4.onn" >"$dir/f4.log" 2>&1 && grep -q folded "$dir/f4.log"
tap_result $? "construct N = 4, widths 64: $(head -1 "$dir/f4.log")"
out=$("$ONN" verify "$dir/f4.onn" --require-exact 2>&1)
tap_result $? "N = 4 folded: $(echo "$out" | head -1)"
out=$("$ONN" construct -N 2 --fanin 3 --arch 5-64-64-64-128-256-128-64-4 \
	--approx 2-7 -o "$dir/c.tbl" 2>&1)
[ $? -eq 0 ] && [[ $out == *"16807 of 16807 points right"* ]]
tap_result $? "cascade N = 2, N1 = 3 folded: $(echo "$out" | tail -1)"
"$ONN" check-table "$dir/c.tbl" -N 2 >/dev/null 2>&1
[ $? -ne 0 ]
tap_result $? "a cascade table is no one-level table"

out=$("$ONN" construct -N 4 --arch 4-64-128-256-128-64-4 --approx 2-5 \
	-o "$dir/x.onn" 2>&1)
[ $? -ne 0 ] && [ ! -e "$dir/x.onn" ] && [[ $out == *"wide enough"* ]]
tap_result $? "too narrow for either plan refused: \"$out\""
out=$("$ONN" construct -N 2 --arch $ARCH8 --approx all -o "$dir/x.onn" 2>&1)
[ $? -ne 0 ] && [[ $out == *"last layer must be dense"* ]]
tap_result $? "approximated last layer refused: \"$out\""
out=$("$ONN" construct -N 2 --arch 3-64-4 -o "$dir/x.onn" 2>&1)
[ $? -ne 0 ] && [[ $out == *"--arch"* ]]
tap_result $? "bad --arch named: \"$out\""
out=$("$ONN" construct -N 65 --arch $ARCH8 -o "$dir/x.onn" 2>&1)
[ $? -ne 0 ] && [[ $out == *"--members"* ]]
tap_result $? "bad --members named: \"$out\""
tap_end
