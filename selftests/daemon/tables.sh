#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Where optincd finds a truth table (daemon/options.c, optinc_table_find()):
# as given first, then a bare file name in --table-dir (by default the
# directory `make install` puts models/ in); a table found nowhere is an
# error naming both places; a path with '/' is never searched for; the
# same order for a table installed at run time (optincctl daemon table).
# The default directory is tested on a staged install (install/install.sh).
# No network: one net_null port (selftests/daemon/lib.sh). TAP.
set -u
. "$(dirname "$0")/lib.sh"
TBL=$SRC_ROOT/models/onn-n4.tbl
mkdir -p "$T_TMP/share" "$T_TMP/cwd" "$T_TMP/empty"
cp "$TBL" "$T_TMP/share/onn-n4.tbl"
cp "$TBL" "$T_TMP/cwd/onn-n4.tbl"

# start DIR OPTIONS...: optincd in working directory DIR
start() {
	local dir=$1

	shift
	d_start "$T_TMP/d.log" "$dir" -- --addr 10.77.0.254 "$@"
}

stop() {
	d_stop
}

# job_is ID SERVED TABLE: job ID's served flag and table as /optinc/job says
job_is() {
	local got

	got=$("$C" --prefix "$prefix" -j daemon job "$1" 2>&1 | python3 -c '
import json, sys
j = json.load(sys.stdin)
print(j["served"], j.get("table", ""))' 2>&1)
	[ "$got" = "$2 $3" ] && return 0
	echo "# job $1: '$got', wanted '$2 $3'"
	return 1
}

logs() {
	grep -qF -- "$1" "$T_TMP/d.log" && return 0
	echo "# not in optincd's log: $1"
	sed 's/^/#   /' "$T_TMP/d.log"
	return 1
}

# A bare name not in the working directory: found in --table-dir.
from_dir() {
	start "$T_TMP/empty" --table-dir "$T_TMP/share" \
		--job id=1,size=4,table=onn-n4.tbl &&
		job_is 1 1 "$T_TMP/share/onn-n4.tbl" &&
		logs "job 1 size 4 bits 8 mode onn table $T_TMP/share/onn-n4.tbl"
	local rc=$?
	stop
	return $rc
}

# As given first: the working directory's file wins over --table-dir's.
as_given_first() {
	start "$T_TMP/cwd" --table-dir "$T_TMP/share" \
		--job id=1,size=4,table=onn-n4.tbl && job_is 1 1 onn-n4.tbl
	local rc=$?
	stop
	return $rc
}

# Found nowhere: the job is not served, and the error names both places.
nowhere() {
	start "$T_TMP/empty" --table-dir "$T_TMP/share" \
		--job id=1,size=4,table=onn-n9.tbl --job id=2,size=4,table=sub/onn-n4.tbl &&
		job_is 1 0 "" && job_is 2 0 "" &&
		logs "job 1: table 'onn-n9.tbl': no such file in optincd's working directory ($T_TMP/empty) nor in --table-dir $T_TMP/share" &&
		logs "job 2: table 'sub/onn-n4.tbl': No such file or directory"
}

# At run time (optincd of nowhere() still runs): optincctl sends a name it
# cannot resolve as it is, and optincd finds it in --table-dir.
installed_by_name() {
	local out

	out=$(cd "$T_TMP/empty" && "$C" --prefix "$prefix" daemon table 1 onn-n4.tbl 2>&1) &&
		grep -qF "table $T_TMP/share/onn-n4.tbl" <<<"$out" &&
		job_is 1 1 "$T_TMP/share/onn-n4.tbl" && return 0
	echo "# optincctl: $out"
	return 1
}

installed_nowhere() {
	local out want

	want="optincctl: job 1: table 'onn-n9.tbl': no such file in optincd's working directory ($T_TMP/empty) nor in --table-dir $T_TMP/share"
	out=$(cd "$T_TMP/empty" && "$C" --prefix "$prefix" daemon table 1 onn-n9.tbl 2>&1)
	[ $? -ne 0 ] && [ "$out" = "$want" ] && job_is 1 1 "$T_TMP/share/onn-n4.tbl" && return 0
	echo "# optincctl: '$out'"
	return 1
}

tap_plan 5
ok_if "a bare name not in the working directory is found in --table-dir" from_dir
ok_if "as given first: the working directory's table wins" as_given_first
ok_if "a table found nowhere: job not served, the error names both places (a path with / is not searched)" nowhere
ok_if "optincctl daemon table 1 NAME: found in --table-dir at run time" installed_by_name
ok_if "at run time, a name found nowhere is refused naming both places" installed_nowhere
stop
tap_end
