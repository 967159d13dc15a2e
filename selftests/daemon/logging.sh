#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# optincd logs through DPDK's log types "optinc", "optinc.agg" and
# "optinc.uplink" (daemon/optincd.h), so EAL's --log-level controls it:
# debug lines only when asked for (optinc:debug: telemetry requests and
# table swaps; 'optinc.*:debug': a member's JOIN), nothing below the
# level asked for (optinc:warning hides the start-up lines). One net_null
# optincd (selftests/daemon/lib.sh), then a one-server testbed for a JOIN.
# TAP.
set -u
. "$(dirname "$0")/lib.sh"
require_root
FRAMES=$SRC_ROOT/selftests/daemon/frames.py

# logged LOG EAL-ARGS...: optincd with EAL-ARGS, asked /optinc/info once
# by optincctl and given the N = 4 table for its job, stopped; its output
# in $T_TMP/LOG
logged() {
	local log=$T_TMP/$1

	shift
	d_start "$log" . "$@" -- --addr 10.77.0.254 --job id=1,size=4 &&
		"$C" --prefix "$prefix" daemon table 1 "$SRC_ROOT/models/onn-n4.tbl" >/dev/null
	d_stop || return 1
	grep -q "optincd: stopping" "$log" || [ "$*" = --log-level=optinc:warning ] ||
		{ sed 's/^/# /' "$log"; return 1; }
}

has() { grep -qF -- "$2" "$T_TMP/$1" && return 0; echo "# not in $1: $2"; return 1; }
has_line() { grep -qxF -- "$2" "$T_TMP/$1" && return 0; echo "# no line in $1: $2"; return 1; }
lacks() { ! grep -F -- "$2" "$T_TMP/$1" | sed 's/^/# unwanted: /' | grep -q .; }

tb=$(tb_name olog)
# JOIN of job 1 (size 1) from the testbed's server; optincd's log in $1
join_logged() {
	local extra=$1 out

	tb_up "$tb" -n 1 ${extra:+--eal-args "$extra"} || return 1
	out=$("$TESTBED" exec --tb "$tb" 0 timeout 20 python3 "$FRAMES" join-data 2>&1)
	cp "/run/optinc-testbed/$tb/daemon.log" "$T_TMP/join${extra:+-debug}.log"
	tb_down "$tb"
	[ "$out" = "10 -20 30 -40" ] && return 0
	echo "# join-data: $out"
	return 1
}

tap_plan 12
ok_if "optincd at the default level" logged default.log
ok_if "  no debug line" eval 'lacks default.log "optincd: telemetry:" && lacks default.log "the datapath uses table"'
ok_if "  the start-up lines at info" has default.log "optincd: switch 10.77.0.254"
ok_if "optincd with --log-level=optinc:debug" logged optinc.log --log-level=optinc:debug
ok_if "  and each telemetry request at debug" has optinc.log "optincd: telemetry: /optinc/info"
ok_if "  and the datapath taking a new table at debug" has optinc.log \
	"optincd: job 1: the datapath uses table '$SRC_ROOT/models/onn-n4.tbl' from now on"
ok_if "  only type optinc at debug" has_line optinc.log "optincd: debug messages on for log type optinc"
ok_if "--log-level=optinc:warning: no info lines, still stops" logged warn.log --log-level=optinc:warning
ok_if "  nothing below warning" lacks warn.log "optincd: switch"
ok_if "a member's JOIN at the default level" join_logged ""
ok_if "  leaves no debug line" lacks join.log "rank 0 joined"
if join_logged '--log-level=optinc.*:debug'; then
	ok_if "--log-level='optinc.*:debug': the JOIN at debug (optinc.agg), no telemetry lines (optinc)" \
		eval 'has join-debug.log "optincd: job 1: rank 0 joined from port 0" && lacks join-debug.log "optincd: telemetry:"'
else
	ok_if "--log-level='optinc.*:debug': a member's JOIN" false
fi
tap_end
