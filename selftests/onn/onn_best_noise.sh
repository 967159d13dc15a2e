#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# train --keep-best --best-noise K: every --best-every epoch, the exact
# network and average go through the same K chips with the --noise
# error; the one that loses the fewest points is written. From an exact
# N = 2 network (paused at epoch 200, every row right with 0.3 to
# spare): K = 0 is --keep-best alone, byte for byte; at rate 0 (a network
# that does not move) every check counts the same points, more than 0
# (the chips are the same every check, not new draws); at 3e-3 the kept
# epoch is the one with the fewest points lost of all checks, the counts
# stopped past the kept one are larger, a sparser schedule counts the
# same at the epochs it checks; the model is another than --keep-best's
# (widest clean margin), the same twice. Bad values, and the option
# without --keep-best or --noise, are refused by name. TAP output.
. "$(dirname "$0")/lib.sh"

begin 6 best-noise

exact_n2

# run (lib.sh): 12 epochs on from that network
args="$base --epochs2 212 --stop-margin 0.3 --slack 0.02 --noise 3e-3 --keep-best --ema 0.9"
# per checked epoch "EPOCH LOST MARGIN LOST MARGIN" (network, average):
# points lost and the worst margin on the chips, "L+ -" for a count
# stopped past the kept one at L, "- -" for a network not exact
counts() {
	sed -n 's/^epoch \([0-9]*\)\/.* 4 chips lose: network \(.*\), average \(.*\) (kept: .*/\1,\2,\3/p' "$1" |
		awk -F, '{ printf "%s", $1
			   for (i = 2; i <= 3; i++) {
				   n = split($i, f, " at ")
				   printf " %s %s", f[1], (n > 1 ? f[2] : "-")
			   }
			   print "" }'
}
# "EPOCH KIND LOST MARGIN" of the line "keeping epoch E's KIND (...)"
kept() {
	sed -n "s/^keeping epoch \([0-9]*\)'s \([a-z]*\) (exact, margin [-+.0-9]*; on the 4 chips of --best-noise \([0-9]*\) points lost, worst margin \([-+.0-9]*\))/\1 \2 \3 \4/p" "$1"
}

run a --lr2 1e-4
run z --lr2 1e-4 --best-noise 0
[ -s "$dir/a.onn" ] && cmp -s "$dir/a.onn" "$dir/z.onn"
tap_result $? "--best-noise 0 writes the model --keep-best alone writes, byte for byte"

run s --lr2 0 --epochs2 206 --best-noise 4
cs=$(counts "$dir/s.log")
echo "# rate 0, epoch network average: $(echo "$cs" | tr '\n' ',')"
echo "$cs" | awk 'NR == 1 { l = $2; m = $3 }
	$2 != l || $4 != l || $3 != m || $5 != m { bad = 1 }
	END { exit bad || NR != 6 || !(l > 0) }'
tap_result $? "rate 0: every one of 6 checks counts the same points lost and worst margin for network and average, more than 0 lost (the same chips)"

run b --lr2 1e-4 --best-noise 4
cb=$(counts "$dir/b.log") kb=$(kept "$dir/b.log")
echo "# 3e-3, epoch network average: $(echo "$cb" | tr '\n' ','); kept: $kb"
{ echo "$kb"; echo "$cb"; } | awk 'NR == 1 { e = $1; k = $2 == "average" ? 4 : 2; l = $3; m = $4; next }
	{ n++ }
	$1 == e && ($k != l || $(k + 1) != m) { bad = 1 }
	{ for (i = 2; i <= 4; i += 2) {
		  if ($i == "-")
			  continue
		  if ($i ~ /\+/ ? $i + 0 <= l : $i + 0 < l || ($i == l && $(i + 1) > m))
			  bad = 1
	  } }
	END { exit bad || n != 12 || e == "" }'
tap_result $? "the kept epoch has the fewest points lost of 12 checks, of those the widest worst margin on the chips; every count stopped early is past it"

run c --lr2 1e-4 --best-noise 4 --best-every 3
cc=$(counts "$dir/c.log")
echo "# --best-every 3: $(echo "$cc" | tr '\n' ',')"
{ echo "$cb"; echo; echo "$cc"; } | awk '!NF { two = 1; next }
	!two { one[$1] = $0; next }
	{ m++; split(one[$1], o, " ") }
	$1 % 3 { bad = 1 }
	{ for (i = 2; i <= 4; i += 2)
		  if ($(i + 1) != "-" && o[i + 1] != "-" &&
		      ($i != o[i] || $(i + 1) != o[i + 1]))
			  bad = 1 }
	END { exit bad || m != 4 }'
tap_result $? "--best-every 3: 4 checks, at epochs 201..210 by 3, each full count and margin the one of --best-every 1"

run d --lr2 1e-4 --best-noise 4
[ -s "$dir/b.onn" ] && cmp -s "$dir/b.onn" "$dir/d.onn" && ! cmp -s "$dir/a.onn" "$dir/b.onn"
tap_result $? "--best-noise 4: another model than --keep-best alone (widest margin: $(grep ^keeping "$dir/a.log" | cut -c1-40)), the same twice"

args="$base --epochs2 202 --noise 1e-3 --keep-best"
refused --best-noise 1001 x -1 2y
ok=$?
refused --best-every 0 x
ok2=$?
args="$base --epochs2 202 --keep-best"
out=$("$ONN" train $args --best-noise 2 -o "$dir/r.onn" 2>&1)
args="$base --epochs2 202 --noise 1e-3"
out2=$("$ONN" train $args --best-noise 2 -o "$dir/r.onn" 2>&1)
echo "# without --noise: $out; without --keep-best: $out2"
[ $ok = 0 ] && [ $ok2 = 0 ] && [ ! -e "$dir/r.onn" ] &&
	[[ "$out" == *"--best-noise 2: need K <= 1000, --keep-best and --noise"* ]] &&
	[[ "$out2" == *"--best-noise 2: need K <= 1000, --keep-best and --noise"* ]]
tap_result $? "--best-noise 1001, x, -1, 2y and --best-every 0, x refused by name; --best-noise without --noise or --keep-best refused"
tap_end
