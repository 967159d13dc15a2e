#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tools/onn/table2.sh (our runs of the paper's Table II) on a small
# network: each row's figures are those of the model it kept, as
# optinc-onn verify and area judge it again; bad options are named.
# TAP output.
. "$(dirname "$0")/lib.sh"

T2=tools/onn/table2.sh
begin 10 table2

out=$(ONN=$ONN "$T2" -N 2 -a 4-32-32-4 -l 'none all 2' -e 12 -k 2 -j 2 \
	-d "$dir/rows" -o "$dir/t.md" 2>&1)
rc=$?
rows=$(echo "$out" | grep -c '^| \(none\|all\|2\) |')
[ "$rc" -le 1 ] && [ "$rows" -eq 3 ] && [ -s "$dir/rows/all.tbl" ]
tap_result $? "3 rows trained, judged and compiled (exit $rc)"
[ "$(cat "$dir/t.md")" = "$out" ]
tap_result $? "-o appends the same Markdown that was printed"

# row LIST: the row's cells, one per line, without the outer bars
cells() {
	echo "$out" | grep "^| $1 |" | sed 's/^| //; s/ |$//' | tr '|' '\n' |
		sed 's/^ *//; s/ *$//'
}
ok=0
for l in none all 2; do
	mapfile -t c < <(cells "$l")
	v=$("$ONN" verify "$dir/rows/$l.onn" | head -1)
	a=$("$ONN" area 4-32-32-4 "$l" | tail -1)
	[[ $v == *": ${c[3]} points right (${c[4]}), worst margin ${c[5]}" ]] &&
		[[ $a == *"ratio ${c[1]}" ]] || { ok=1; echo "# row $l: '${c[*]}' / $v / $a"; }
done
tap_result $ok "accuracy, margin and area of every row are those of its model"

# the largest error value's count is the histogram's largest
mapfile -t c < <(cells all)
top=$("$ONN" verify "$dir/rows/all.onn" |
	awk '/^  error  points/ { on = 1; next } on && NF == 2 { if ($2 > m) m = $2 } END { print m + 0 }')
first=${c[6]%%,*}
[ "${first#*: }" != "${c[6]}" ] && [ "$(echo "$first" | sed 's/.*: \([0-9]*\) (.*/\1/')" = "$top" ]
tap_result $? "errors by value, most frequent first ($first; histogram's most: $top)"

noise=$("$ONN" verify "$dir/rows/2.onn" --phase-noise 1e-3 --seeds 2 |
	awk '/^  sigma\/rad/ { on = 1; next } on && NF >= 6 { print $2 " % (" $4 "-" $6 ")"; exit }')
mapfile -t c < <(cells 2)
[ "${c[7]}" = "$noise" ]
tap_result $? "noise column is verify --phase-noise 1e-3 --seeds 2's mean (min-max): ${c[7]}"

re=$("$T2" -r -d "$dir/rows" -N 3 -o - 2>&1)
[ "$re" = "$out" ]
tap_result $? "-r: the same table again from the kept rows, with their run's options"

"$T2" -e 0 > "$dir/err" 2>&1
[ $? -eq 2 ] && grep -q -- "-e: '0' is not a positive integer" "$dir/err"
tap_result $? "-e 0 refused by name: $(cat "$dir/err")"
"$T2" -a 4-32-32-4 -l '1-9' > "$dir/err" 2>&1
[ $? -eq 2 ] && grep -q -- "'1-9' refused" "$dir/err"
tap_result $? "a layer list the structure has not refused: $(tail -1 "$dir/err")"
"$T2" extra > "$dir/err" 2>&1
[ $? -eq 2 ] && grep -q "unexpected argument 'extra'" "$dir/err"
tap_result $? "a stray argument refused: $(cat "$dir/err")"
"$T2" -t '--no-such-option' -N 2 -a 4-8-4 -l all -e 1 -n 0 > "$dir/out" 2>&1
[ $? -eq 1 ] && grep -q "^| all | - |.*train failed: .*no-such-option" "$dir/out"
tap_result $? "a failing training is a row that says so, and exit 1: $(grep '^| all' "$dir/out")"
tap_end
