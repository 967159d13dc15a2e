#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# table2.sh: our runs of the paper's Table II (which layers are realised as
# Sigma*U blocks against the accuracy reached, the wrong outputs by error
# value, the normalised area). For each layer list of -l, one network of
# the structure -a is trained with the same recipe and budget (optinc-onn
# train, seed -s, at most -e stage-2 epochs, stopping earlier when every
# point is right with the stopping margin), then judged as realised from
# its phases: accuracy over the whole domain and by error value (output -
# exact average, with each value's share of the wrong points), area from
# the file, accuracy under MZI phase noise (mean, min-max over -k seeds),
# and the truth table compiled from it (kept with -d, for
# `optinc-demo --table`). Prints Markdown (and appends it to -o).
# Documentation/onn.md, section 9, has our table beside the paper's.
set -u

ROOT=$(cd "$(dirname "$(readlink -f "$0")")/../.." && pwd)
O=${O:-build}
case $O in
/*) ;;
*) O=$ROOT/$O ;;
esac
ONN=${ONN:-$O/bin/optinc-onn}
export OPENBLAS_NUM_THREADS=1
grep -qw avx2 /proc/cpuinfo && export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-Haswell}

MEMBERS=4
ARCH=4-64-128-256-128-64-4
LISTS="none 2-5 1-5 2-6 all"
EPOCHS=200 SEED=1 JOBS=1 SEEDS=10 NOISE=1e-3
TRAIN_ARGS="--epochs1 0 --batch 256 --lr2 2e-3 --stop-margin 0.1"
DIR='' OUT=- REPORT=0

usage() {
	cat <<EOF
usage: table2.sh [-N MEMBERS] [-a ARCH] [-l 'LISTS'] [-e EPOCHS] [-s SEED]
                 [-t 'TRAIN OPTIONS'] [-n SIGMA] [-k SEEDS] [-j JOBS]
                 [-d DIR [-r]] [-o FILE]
  -N   members (default $MEMBERS)
  -a   layer widths (default $ARCH)
  -l   layer lists realised as Sigma*U blocks, one row each (default
       "$LISTS"; optinc-onn's all, none or e.g. 2-5)
  -e   stage-2 epochs at most, the same for every row (default $EPOCHS)
  -s   training seed (default $SEED)
  -t   the rest of the recipe (default "$TRAIN_ARGS")
  -n   MZI phase noise sigma in rad for the noise column (default $NOISE;
       0: no noise column), over -k seeds 1..K (default $SEEDS)
  -j   rows trained at once (default $JOBS; one CPU each)
  -d   keep each row's model, log and table in DIR (default: a scratch
       folder, removed)
  -r   train nothing: the table of an earlier run kept in -d DIR, with
       that run's options
  -o   append the Markdown to FILE too (default: standard output only)
EOF
}

die() {
	echo "table2.sh: $*" >&2
	exit 2
}

while getopts "N:a:l:e:s:t:n:k:j:d:o:rh" opt; do
	case $opt in
	N) MEMBERS=$OPTARG ;;
	a) ARCH=$OPTARG ;;
	l) LISTS=$OPTARG ;;
	e) EPOCHS=$OPTARG ;;
	s) SEED=$OPTARG ;;
	t) TRAIN_ARGS=$OPTARG ;;
	n) NOISE=$OPTARG ;;
	k) SEEDS=$OPTARG ;;
	j) JOBS=$OPTARG ;;
	d) DIR=$OPTARG ;;
	o) OUT=$OPTARG ;;
	r) REPORT=1 ;;
	h) usage; exit 0 ;;
	*) usage >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 0 ] || die "unexpected argument '$1'"
for o in N:MEMBERS e:EPOCHS s:SEED k:SEEDS j:JOBS; do
	v=${o#*:}
	[[ ${!v} =~ ^[0-9]+$ ]] && [ "${!v}" -gt 0 ] ||
		die "-${o%%:*}: '${!v}' is not a positive integer"
done
[ -n "$LISTS" ] || die "-l: no layer list"
[ -x "$ONN" ] || die "$ONN not built (make)"
for l in $LISTS; do
	"$ONN" area "$ARCH" "$l" > /dev/null || die "-a/-l: '$ARCH' '$l' refused by optinc-onn area"
done
[ "$REPORT" = 0 ] || [ -n "$DIR" ] || die "-r: needs -d DIR of an earlier run"
if [ -n "$DIR" ]; then
	mkdir -p "$DIR" || die "-d: cannot make '$DIR'"
else
	DIR=$(mktemp -d /tmp/onn-table2.XXXXXX)
	trap 'rm -rf "$DIR"' EXIT
fi

# row LIST: train, verify, compile, area and noise into $DIR/LIST.*
row() {
	local l=$1 f=$DIR/$1 t0 t1

	# nothing of an earlier run in the same -d DIR may stand for this one
	rm -f "$f".{err,onn,secs,verify,area,noise,tbl}
	t0=$(date +%s)
	# shellcheck disable=SC2086  # TRAIN_ARGS is a list of options
	"$ONN" train -N "$MEMBERS" --arch "$ARCH" --approx "$l" --seed "$SEED" \
		--epochs2 "$EPOCHS" $TRAIN_ARGS --checkpoint "$f.ckpt" \
		-o "$f.onn" > "$f.train.log" 2>&1 ||
		{ echo "train failed: $(grep -m1 -e '^optinc-onn' -e '^train: ' "$f.train.log" ||
			tail -1 "$f.train.log")" > "$f.err"; return 1; }
	t1=$(date +%s)
	echo $((t1 - t0)) > "$f.secs"
	rm -f "$f.ckpt"
	"$ONN" verify "$f.onn" > "$f.verify" 2>&1 &&
	"$ONN" area "$f.onn" > "$f.area" 2>&1 &&
	"$ONN" compile "$f.onn" -o "$f.tbl" > /dev/null 2>&1 ||
		{ echo "verify, area or compile failed" > "$f.err"; return 1; }
	if [ "$NOISE" != 0 ]; then
		"$ONN" verify "$f.onn" --phase-noise "$NOISE" --seeds "$SEEDS" \
			> "$f.noise" 2>&1 ||
			{ echo "verify --phase-noise failed: $(tail -1 "$f.noise")" > "$f.err"; return 1; }
	fi
}

# errors FILE: "value: points (share)" of a verify output, largest first
errors() {
	awk '/^  error  points/ { on = 1; next }
	     on && $1 ~ /^[-+]?[0-9]+$/ { v[$1] = $2; n += $2 }
	     END {
		if (!n) { print "none"; exit }
		k = 0
		for (e in v) o[k++] = e
		for (i = 0; i < k; i++) for (j = i + 1; j < k; j++)
			if (v[o[j]] > v[o[i]] || (v[o[j]] == v[o[i]] && o[j] + 0 < o[i] + 0)) {
				x = o[i]; o[i] = o[j]; o[j] = x
			}
		s = ""
		for (i = 0; i < k && i < 8; i++)
			s = s sprintf("%s%+d: %d (%.1f %%)", i ? ", " : "", o[i], v[o[i]], 100 * v[o[i]] / n)
		if (k > 8) s = s sprintf(", %d more values", k - 8)
		print s
	     }' "$1"
}

# noise FILE: "mean % (min-max)" from verify --phase-noise's row of one sigma
noise() {
	awk '/^  sigma\/rad/ { on = 1; next }
	     on && NF >= 6 { printf "%s %% (%s-%s)\n", $2, $4, $6; found = 1; exit }
	     END { if (!found) print "?" }' "$1"
}

# what the table's head says of the run: kept in DIR/run for -r
if [ "$REPORT" = 0 ]; then
	start=$(date -u '+%Y-%m-%d %H:%M UTC')
	load0=$(cut -d' ' -f1-3 /proc/loadavg)
	running=0
	for l in $LISTS; do
		row "$l" &
		running=$((running + 1))
		if [ "$running" -ge "$JOBS" ]; then
			wait -n
			running=$((running - 1))
		fi
	done
	wait
	load1=$(cut -d' ' -f1-3 /proc/loadavg)
	declare -p MEMBERS ARCH LISTS EPOCHS SEED TRAIN_ARGS NOISE SEEDS JOBS \
		start load0 load1 > "$DIR/run"
else
	[ -e "$DIR/run" ] || die "-r: $DIR/run not found: not a folder of table2.sh -d"
	. "$DIR/run"
fi

{
	echo "\`tools/onn/table2.sh -N $MEMBERS -a $ARCH -l '$LISTS' -e $EPOCHS -s $SEED -t '$TRAIN_ARGS' -n $NOISE -k $SEEDS -j $JOBS\`,"
	echo "$start, $(nproc) CPUs, load before/after: $load0 / $load1; $(sed -n 's/^BLAS: //p' "$DIR/${LISTS%% *}.train.log" 2>/dev/null | head -1)"
	echo
	hdr="| layers as Sigma*U | area | epochs (s) | right | accuracy | slicer margin | wrong outputs by error value (points, share of wrong) |"
	sep="| --- | --- | --- | --- | --- | --- | --- |"
	if [ "$NOISE" != 0 ]; then
		hdr="$hdr phase noise $NOISE rad, $SEEDS seeds |"
		sep="$sep --- |"
	fi
	echo "$hdr"
	echo "$sep"
	for l in $LISTS; do
		f=$DIR/$l
		if [ -e "$f.err" ] || [ ! -e "$f.verify" ]; then
			line="| $l | - | - | - | - | - | $(cat "$f.err" 2>/dev/null || echo "not run") |"
			[ "$NOISE" != 0 ] && line="$line - |"
			echo "$line"
			continue
		fi
		# "M: N = 4, B = 8, 6 layers: R of T points right (P %), worst margin W"
		read -r right total pct margin < <(sed -n '1s/.*: \([0-9]*\) of \([0-9]*\) points right (\([0-9.]*\) %), worst margin \(.*\)/\1 \2 \3 \4/p' "$f.verify")
		area=$(tail -1 "$f.area" | sed 's/.*ratio //')
		epochs=$(sed -n 's/^trained \([0-9]*\) epochs.*/\1/p' "$f.train.log")
		line="| $l | $area | ${epochs:-?} ($(cat "$f.secs")) | $right of $total | $pct % | $margin | $(errors "$f.verify") |"
		[ "$NOISE" != 0 ] && line="$line $(noise "$f.noise") |"
		echo "$line"
	done
	echo
} > "$DIR/table.md"
if [ "$OUT" = - ]; then cat "$DIR/table.md"; else tee -a "$OUT" < "$DIR/table.md"; fi
# a row that failed is in the table, and the exit status
for l in $LISTS; do
	[ ! -e "$DIR/$l.err" ] && [ -e "$DIR/$l.verify" ] || exit 1
done
