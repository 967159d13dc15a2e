#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# python/optinc with torch through optincd on the testbed, N = 2 and 4:
# numpy/torch all-reduce within the bound and in place, errors with the
# library's text; DDP with optinc.torch.allreduce_hook: k steps leave every
# rank's parameters bit-identical, one step's averaged buckets equal gloo's
# within the documented bound, float32/bfloat16/float16 buckets, a NaN on
# one rank seen on all (liboptinc 0.3's rule; SKIP before it); the 'optinc'
# process-group backend. N = 2 also: a rank that leaves and a missing
# switch (at creation, or killed during training) raise within the
# timeout, and the hook overlaps the backward pass.
. "$(dirname "$0")/../net/lib.sh"

require_root
PY=/usr/bin/python3
RANK_PY=$SRC_ROOT/selftests/python/py_rank.py
SIZES=${OPTINC_PY_SIZES:-2 4}
CHECKS=(numpy_f32_avg torch_in_place numpy_i32_sum_exact numpy_f16_avg
	requests_in_order noncontiguous_refused library_error_text stats
	f32_grads_vs_gloo bf16_grads_vs_gloo f16_grads_vs_gloo
	nan_seen_everywhere backend_is_optinc backend_sum_bound
	backend_gloo_collectives backend_ddp)
HASHES=(numpy_f32_avg f32_initial f32_params f32_bucket_order bf16_params
	f16_params backend_sum backend_ddp_params nan_params)
GONE_TIMEOUT_MS=2000
NOSW_TIMEOUT_MS=1500
T_TMP=$(mktemp -d)
export PYTHONPATH=$SRC_ROOT/python${PYTHONPATH:+:$PYTHONPATH}

# TAP descriptions must not carry '#' (it starts a directive)
detail_of() {
	grep -h -m1 "^check $2 " "$1" 2>/dev/null | cut -d' ' -f4- | tr -d '#'
}

# check_line DIR N TAG NAME [RANKS]: every rank (or those in RANKS)
# logged "check NAME ok"; "skip" on all of them is a SKIP with the reason.
check_line() {
	local dir=$1 n=$2 tag=$3 name=$4 ranks=${5:-} ok=0 skip=0 r logs=()

	[ -n "$ranks" ] || ranks=$(seq 0 $((n - 1)))
	for r in $ranks; do
		logs+=("$dir/rank$r.log")
		grep -q "^check $name ok" "$dir/rank$r.log" 2>/dev/null && ok=$((ok + 1))
		grep -q "^check $name skip" "$dir/rank$r.log" 2>/dev/null && skip=$((skip + 1))
	done
	if [ "$skip" -eq "${#logs[@]}" ]; then
		tap_skip "$tag: $name" "$(detail_of "${logs[0]}" "$name")"
	elif [ "$ok" -eq "${#logs[@]}" ]; then
		tap_pass "$tag: $name ($(detail_of "${logs[0]}" "$name"))"
	else
		tap_fail "$tag: $name"
		grep -H "^check $name \|Error" "${logs[@]}" | tap_diag
	fi
}

# hash_line DIR N TAG NAME: every rank logged the same "hash NAME X".
hash_line() {
	local dir=$1 n=$2 tag=$3 name=$4 h cnt

	h=$(grep -h "^hash $name " "$dir"/rank*.log | sort | uniq -c)
	cnt=$(echo "$h" | awk 'NF { print $1 }')
	if [ "$name" = nan_params ] &&
	   [ "$(grep -l '^check nan_seen_everywhere skip' "$dir"/rank*.log | wc -l)" -eq "$n" ]; then
		tap_skip "$tag: $name bit-identical" "the NaN step did not run"
	elif [ "$(echo "$h" | grep -c .)" -eq 1 ] && [ "$cnt" = "$n" ]; then
		tap_pass "$tag: $name bit-identical on $n ranks ($(echo "$h" | awk '{ print $4 }'))"
	else
		tap_fail "$tag: $name bit-identical on $n ranks"
		echo "$h" | sed 's/^/hashes: /' | tap_diag
	fi
}

# run_ranks TB DIR SECS ARGS...: py_rank.py on every server of TB.
run_ranks() {
	local tb=$1 dir=$2 secs=$3 t0=$SECONDS

	shift 3
	mkdir -p "$dir"
	"$TESTBED" run --tb "$tb" -t "$secs" -o "$dir" -q "$PY" "$RANK_PY" "$@" \
		>/dev/null 2>&1
	local rc=$?
	grep -h '^# ' "$dir/rank0.log" | sed 's/^/# rank 0: /'
	echo "# $* on $tb: $((SECONDS - t0)) s, status $rc"
	return $rc
}

run_all() {
	local tb=$1 n=$2 dir=$T_TMP/$1-all c h

	run_ranks "$tb" "$dir" 240 all $((29500 + n * 10))
	ok_if "N=$n: every rank finished the scenarios" test $? -eq 0
	for c in "${CHECKS[@]}"; do
		check_line "$dir" "$n" "N=$n" "$c"
	done
	for h in "${HASHES[@]}"; do
		hash_line "$dir" "$n" "N=$n" "$h"
	done
}

# The last rank leaves before step 2: the others' backward raises.
run_gone() {
	local tb=$1 n=$2 dir=$T_TMP/$1-gone

	OPTINC_TIMEOUT_MS=$GONE_TIMEOUT_MS run_ranks "$tb" "$dir" 60 gone 29590
	check_line "$dir" "$n" "N=$n" rank_gone_raises "$(seq 0 $((n - 2)))"
}

# optincd killed after step 3 of a training loop: every rank raises.
run_switch_gone() {
	local tb=$1 n=$2 dir=$T_TMP/$1-swgone pid i

	mkdir -p "$dir"
	OPTINC_TIMEOUT_MS=$GONE_TIMEOUT_MS run_ranks "$tb" "$dir" 60 swgone 29592 &
	pid=$!
	for ((i = 0; i < 300; i++)); do
		grep -q '^# step 3$' "$dir/rank0.log" 2>/dev/null && break
		sleep 0.1
	done
	kill -KILL "$(cat "/run/optinc-testbed/$tb/daemon.pid")"
	echo "# optincd of $tb killed after step $(grep -c '^# step' "$dir/rank0.log")"
	wait $pid
	check_line "$dir" "$n" "N=$n" switch_gone_raises
}

run_overlap() {
	local tb=$1 n=$2 dir=$T_TMP/$1-overlap

	run_ranks "$tb" "$dir" 120 overlap 29595
	check_line "$dir" "$n" "N=$n" hook_overlaps
}

[ -x "$PY" ] && "$PY" -c 'import numpy, torch' 2>/dev/null ||
	skip_all "needs $PY with numpy and torch (make deps: python3-numpy python3-torch)"
nsizes=$(echo "$SIZES" | wc -w)
per_size=$((2 + ${#CHECKS[@]} + ${#HASHES[@]}))
extra=0
case " $SIZES " in *" 2 "*) extra=5 ;; esac
tap_plan $((nsizes * per_size + extra + 1))
for n in $SIZES; do
	tb=$(tb_name "py$n")
	ok_if "N=$n: testbed with optincd up" tb_up "$tb" -n "$n"
	run_all "$tb" "$n"
	if [ "$n" = 2 ]; then
		run_overlap "$tb" "$n"
		run_gone "$tb" "$n"
		run_switch_gone "$tb" "$n"
	fi
	tb_down "$tb"
done
if [ "$extra" -gt 0 ]; then
	tb=$(tb_name pyns)
	ok_if "N=2: testbed without a switch up" tb_up "$tb" -n 2 --no-switch
	run_ranks "$tb" "$T_TMP/$tb" 30 noswitch 0 "$NOSW_TIMEOUT_MS"
	check_line "$T_TMP/$tb" 2 "no switch" no_switch_raises
	tb_down "$tb"
fi
ok_if "no namespace left behind" nothing_left
tap_end
