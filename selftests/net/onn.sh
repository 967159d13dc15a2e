#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The ONN datapath of optincd on the testbed, N = 4: float32 AVG through an
# onn job with the shipped 100 % table is bit-identical to an exact job;
# with a table that has known wrong entries (installed while optincd runs)
# the results differ exactly at the elements whose P-unit index hits one,
# as onn_check predicts from every rank's quantized inputs; bad tables
# (truncated, wrong version, another N) are refused, at start and at run
# time, with a message naming job, file and problem, and the other jobs
# keep answering. Prints TAP.
. "$(dirname "$0")/lib.sh"

require_root
CHECK=$O/selftests/net/allreduce_check
PREDICT=$O/selftests/net/onn_check
INJECT=$O/tools/demo/optinc-table-inject
TABLE=$SRC_ROOT/models/onn-n4.tbl
N=4
COUNT=${OPTINC_ONN_COUNT:-200003}
SEED=41
WRONG=40
T_TMP=$(mktemp -d)
tb=$(tb_name onn)

# job_run NAME JOB [ARGS...]: every rank all-reduces the data through JOB
# and writes its result to $T_TMP/NAME/rankI.f32.
job_run() {
	local name=$1 job=$2 dir=$T_TMP/$1

	shift 2
	mkdir -p "$dir"
	"$TESTBED" run --tb "$tb" -t 120 -o "$dir" sh -c \
		'OPTINC_JOB=$1; export OPTINC_JOB; shift; exec "$@" -w "$0.$OPTINC_RANK"' \
		"$dir/rank.f32" "$job" "$CHECK" -c "$COUNT" -t float -o avg \
		-s "$SEED" "$@" >/dev/null 2>&1
	echo "# $name (job $job), rank 0: $(grep -h -E '^rank .* time|float32|allreduce|comm_create' "$dir/rank0.log" | tr '\n' ' ')"
}

# The rank results of a run: one hash if all ranks agree.
run_hash() {
	sed -n 's/^rank .* hash \([0-9a-f]*\)$/\1/p' "$T_TMP/$1"/rank*.log | sort -u
}

all_agree() {
	local h

	h=$(run_hash "$1")
	[ -n "$h" ] && [ "$(echo "$h" | wc -l)" -eq 1 ] &&
		[ "$(grep -l '^rank .* hash' "$T_TMP/$1"/rank*.log | wc -l)" -eq $N ]
}

all_pass() {
	[ "$(grep -lx PASS "$T_TMP/$1"/rank*.log | wc -l)" -eq $N ]
}

same_results() {
	all_agree "$1" && all_agree "$2" && [ "$(run_hash "$1")" = "$(run_hash "$2")" ] &&
		cmp -s "$T_TMP/$1/rank.f32.0" "$T_TMP/$2/rank.f32.0"
}

refused_no_job() {
	[ "$(grep -l 'no such job on the switch' "$T_TMP/$1"/rank*.log | wc -l)" -eq $N ]
}

# predict TABLE ONN_RUN EXACT_RUN: onn_check agrees element by element.
predict() {
	local out

	out=$("$PREDICT" -n $N -c "$COUNT" -s "$SEED" -T "$1" \
		-O "$T_TMP/$2/rank.f32.0" -E "$T_TMP/$3/rank.f32.0")
	echo "$out" | sed 's/^/# /'
	PREDICTED_HITS=$(sed -n 's/.*: \([0-9]*\) hit a wrong entry.*/\1/p' <<<"$out")
	grep -qx PASS <<<"$out"
}

tel_job() {
	"$TESTBED" tel --tb "$tb" "/optinc/job,$1" |
		python3 -c "import json, sys; print(json.load(sys.stdin)['/optinc/job']['$2'])"
}

daemon_log() {
	grep -F -- "$1" "$(state_dir_of "$tb")/daemon.log" >/dev/null
}

state_dir_of() { echo "${OPTINC_TB_STATE:-/run/optinc-testbed}/$1"; }

# install_refused JOB FILE TEXT: optincctl fails and says job, file, problem.
install_refused() {
	local out

	out=$("$TESTBED" ctl --tb "$tb" daemon table "$1" "$2" 2>&1)
	local rc=$?
	echo "# $out"
	[ $rc -ne 0 ] && grep -qF "job $1: table '$2': $3" <<<"$out"
}

install_ok() {
	"$TESTBED" ctl --tb "$tb" daemon table "$1" "$2" | sed 's/^/# /'
	[ "${PIPESTATUS[0]}" -eq 0 ] && [ "$(tel_job "$1" table)" = "$2" ] &&
		[ "$(tel_job "$1" mode)" = onn ] && [ "$(tel_job "$1" served)" = 1 ]
}

make_tables() {
	local d=$T_TMP

	head -c -100 "$TABLE" >"$d/trunc.tbl" &&
	python3 -c '
import sys
b = bytearray(open(sys.argv[1], "rb").read()); b[8] = 2
open(sys.argv[2], "wb").write(b)' "$TABLE" "$d/v2.tbl" &&
	"$INJECT" -n 3 --delta 1 -o "$d/n3.tbl" >/dev/null &&
	"$INJECT" -n $N --from "$TABLE" --errors $WRONG --delta 4 --near 6 \
		--seed 5 -o "$d/wrong.tbl" | sed 's/^/# /'
}

for bin in "$CHECK" "$PREDICT" "$INJECT"; do
	[ -x "$bin" ] || { tap_plan 1; ok_if "$bin is built" false; exit 1; }
done
tap_plan 22
ok_if "test tables written (truncated, version 2, N=3, $WRONG wrong entries)" make_tables
ok_if "N=$N: testbed up, job 1 exact, 2 onn, 3 with a truncated table, 4 mode=exact" \
	tb_up "$tb" -n $N --job id=1,size=$N --job id=2,size=$N,table="$TABLE" \
	--job id=3,size=$N,table="$T_TMP/trunc.tbl" --job id=4,size=$N,mode=exact
ok_if "start: job 3's table refused, naming job, file and problem" \
	daemon_log "job 3: table '$T_TMP/trunc.tbl': file truncated"
ok_if "start: job 3 not served, job 2 onn" \
	test "$(tel_job 3 served)/$(tel_job 2 mode)/$(tel_job 2 served)" = "0/onn/1"

job_run exact 1
ok_if "exact job: every rank within the bound" all_pass exact
job_run onn 2
ok_if "onn job, shipped table: every rank within the bound" all_pass onn
ok_if "onn job, shipped table: bit-identical to the exact job (hash $(run_hash onn))" \
	same_results onn exact
ok_if "onn job, shipped table: matches the per-element prediction" \
	predict "$TABLE" onn exact

job_run nojob 3
ok_if "job 3 (bad table) answered like an unknown job" refused_no_job nojob
ok_if "job 3: JOINs counted as no_job drops" \
	test "$("$TESTBED" tel --tb "$tb" /optinc/job,3 | python3 -c '
import json, sys; print(json.load(sys.stdin)["/optinc/job"]["drops"]["unknown_job"] > 0)')" = True

ok_if "run time: table with $WRONG wrong entries installed in job 2" \
	install_ok 2 "$T_TMP/wrong.tbl"
ok_if "job 2 reports the table's wrong entries" test "$(tel_job 2 table_wrong)" = $WRONG
job_run wrong 2
ok_if "wrong table: all ranks agree" all_agree wrong
ok_if "wrong table: results differ exactly where the index hits a wrong entry" \
	predict "$T_TMP/wrong.tbl" wrong exact
ok_if "wrong table: some elements hit a wrong entry (${PREDICTED_HITS:-0})" \
	test "${PREDICTED_HITS:-0}" -gt 0

ok_if "run time: truncated table refused" \
	install_refused 2 "$T_TMP/trunc.tbl" "file truncated"
ok_if "run time: version 2 table refused" \
	install_refused 2 "$T_TMP/v2.tbl" "unsupported table version"
ok_if "run time: N=3 table refused" \
	install_refused 2 "$T_TMP/n3.tbl" "made for N=3 B=8, the job has size=4"
ok_if "run time: mode=exact job takes no table" \
	install_refused 4 "$TABLE" "the job was started with mode=exact"
job_run exact2 1
job_run wrong2 2
ok_if "after the refusals job 1 answers and job 2 keeps its table" \
	eval 'same_results exact2 exact && same_results wrong2 wrong'

ok_if "run time: the shipped table installed in job 3" install_ok 3 "$TABLE"
job_run onn3 3
ok_if "job 3 now serves, bit-identical to the exact job" same_results onn3 exact
tb_down "$tb"
tap_end
