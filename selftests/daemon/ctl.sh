#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# optincctl's one grammar (-d daemon|kmod, switch/port/job/table) against
# a live optincd: every new spelling prints exactly what the datapath's own
# spelling prints, -n enters a namespace, and each wrong word is named.
# optinc.ko's side runs in the VM (selftests/kmod/vm-tests.sh). No network:
# one net_null port.
# shellcheck source=lib.sh
. "$(dirname "$0")/lib.sh"

require_root
P=$prefix
NS=optinc-ctl-$$
trap 'ip netns del "$NS" 2>/dev/null; d_cleanup' EXIT

# same NAME NEW... -- OLD...: both spellings succeed with the same output
same() {
	local name=$1 new=() old a b

	shift
	while [ "$1" != -- ]; do new+=("$1"); shift; done
	shift
	if a=$("$C" "${new[@]}" 2>&1) && b=$("$C" "$@" 2>&1) &&
	   [ "$a" = "$b" ] && [ -n "$a" ]; then
		old=0
	else
		old=1
		echo "# $name: new: $a" | head -5
		echo "# $name: old: $b" | head -5
	fi
	ok_if "$name" test $old = 0
}

# refused NAME TEXT ARGS...: optincctl fails and its error says TEXT
refused() {
	local name=$1 want=$2 out rc

	shift 2
	out=$("$C" "$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && grep -qF -- "$want" <<<"$out"; then
		rc=0
	else
		echo "# $name: exit $rc: $out"
		rc=1
	fi
	ok_if "$name" test $rc = 0
}

tap_plan 35
d_start "$T_TMP/d.log" . -- --addr 10.77.0.254 \
	--job id=5,size=4,bits=16,window=8,max-elems=1024 \
	--job id=6,size=4,table="$SRC_ROOT/models/onn-n4.tbl"
ok_if "optincd answers optincctl" test $? = 0

same "job show = daemon jobs" --prefix "$P" job show -- --prefix "$P" daemon jobs
same "-d daemon:PREFIX job show ID = daemon job ID (JSON)" \
	-j -d "daemon:$P" job show 6 -- -j --prefix "$P" daemon job 6
same "port show = daemon ports (JSON)" -j -d "daemon:$P" port show -- \
	-j --prefix "$P" daemon ports
# the switch's counters move between two calls: compare what stays
sw=$("$C" -j -d "daemon:$P" switch show 2>&1)
ok_if "switch show = daemon show" /usr/bin/python3 -c '
import json, sys
s = json.loads(sys.argv[1])
assert s["addr"] == "10.77.0.254" and s["ports"] == 1 and "unknown_job" in s["drops"]
' "$sw"
same "table load ID FILE = daemon table ID FILE" -d "daemon:$P" table load 6 \
	"$SRC_ROOT/models/onn-n4.tbl" -- --prefix "$P" daemon table 6 \
	"$SRC_ROOT/models/onn-n4.tbl"
same "table show FILE needs no datapath" table show "$SRC_ROOT/models/onn-n4.tbl" -- \
	-d kmod:nosuch table show "$SRC_ROOT/models/onn-n4.tbl"
# the shipped table has a by-sum form (onn.md section 6), and is the exact
# average (no patches); one with 8 sums off it is the average and 8
# patches, one with 9 is looked up; one with wrong entries near the
# averages (not whole sums) has no by-sum form
by_sum_is() {
	local got

	got=$("$C" -j table show "$1" | /usr/bin/python3 -c '
import json, sys
t = json.load(sys.stdin)
print(t["by_sum"], t["by_avg"], t["patches"])')
	[ "$got" = "$2" ] || { echo "# $1: by_sum by_avg patches '$got', wanted '$2'"; return 1; }
}
ok_if "table show: the shipped N = 4 table has a by-sum form, the exact average" \
	by_sum_is "$SRC_ROOT/models/onn-n4.tbl" "yes yes 0"
for k in 8 9; do
	"$O/tools/demo/optinc-table-inject" -n 4 -o "$T_TMP/sums$k.tbl" \
		--errors $k --by-sum >/dev/null
done
ok_if "table show: 8 sums off the exact average are 8 patches" \
	by_sum_is "$T_TMP/sums8.tbl" "yes yes 8"
ok_if "table show: 9 sums off the exact average are looked up" \
	by_sum_is "$T_TMP/sums9.tbl" "yes no 0"
"$O/tools/demo/optinc-table-inject" -n 4 -o "$T_TMP/wrong.tbl" --errors 40 \
	--near 20 >/dev/null
ok_if "table show: a table with 40 wrong entries has none" \
	by_sum_is "$T_TMP/wrong.tbl" "no no 0"

ip netns add "$NS"
same "-n NETNS: the daemon's socket is found from another namespace" \
	-n "$NS" -d "daemon:$P" job show -- --prefix "$P" daemon jobs
refused "-n names a missing namespace" "-n optinc-none-$$: /run/netns/optinc-none-$$" \
	-n "optinc-none-$$" job show
refused "-d names a bad datapath" "-d 'frob': not daemon[:PREFIX] or kmod[:SWITCH]" \
	-d frob job show
refused "-d kmod: with an empty switch is named" "empty SWITCH after ':'" \
	-d kmod: job show
"$C" -d "daemon:$P" job add id 7 size 2 token 9 >/dev/null
ok_if "job add on optincd (-d daemon) while it runs" test $? = 0
out=$("$C" --prefix "$P" daemon job 7 2>&1)
ok_if "the added job is shown: size 2" grep -q "job 7 size 2" <<<"$out"
refused "the same id again is refused by name" "job 7 exists" -d "daemon:$P" job add id 7 size 2
refused "a bad spec names its key" "size=99: must be 1..64" -d "daemon:$P" job add id 8 size 99
"$C" -d "daemon:$P" job del 7
ok_if "job del 7" test $? = 0
refused "the deleted job is gone" "no such job" -d "daemon:$P" job show 7
# a command that fails with ENOENT (here: no daemon with this prefix) is
# not taken for an unknown object and tried again as one
refused "no optincd at a prefix: the socket is named" "No such file or directory" \
	--prefix "optinc-none-$$" job show
out=$("$C" --prefix "optinc-none-$$" job show 2>&1)
[ "$(wc -l <<<"$out")" = 1 ] || echo "# job show, no daemon: $out"
ok_if "... in one line, with no \"Command is unknown\" after it" \
	test "$(wc -l <<<"$out")" = 1
# -b FILE: the commands of a file in one process
printf 'job show\n\n# a comment\n  port show\n' >"$T_TMP/b1"
a=$("$C" --prefix "$P" -b "$T_TMP/b1" 2>&1)
b=$("$C" --prefix "$P" job show 2>&1; "$C" --prefix "$P" port show 2>&1)
[ "$a" = "$b" ] || { echo "# -b: $a" | head -5; echo "# one by one: $b" | head -5; }
ok_if "-b FILE prints what its lines print one by one (blank and # lines skipped)" \
	test -n "$a" -a "$a" = "$b"
printf 'job show\njob show 77\njob add id 9 size 2\n' >"$T_TMP/b2"
out=$("$C" -d "daemon:$P" -b "$T_TMP/b2" 2>&1)
rc=$?
"$C" -d "daemon:$P" job show 9 >/dev/null 2>&1
left=$?
[ $rc -ne 0 ] && grep -qF "$T_TMP/b2:2: failed" <<<"$out" && [ $left -ne 0 ] ||
	echo "# -b stopping: exit $rc, job 9 shown: $((!left)): $out" | tail -3
ok_if "-b stops at the first failing line, named FILE:2, and runs no line after it" \
	test $rc -ne 0 -a $left -ne 0 -a -n "$(grep -F "$T_TMP/b2:2: failed" <<<"$out")"
# jobs up to OPTINC_MAX_JOBS (256, optinc.ko's limit too), with jobs 5 and
# 6: the next is refused by its count, and all go again (one -b batch each
# way, from standard input)
seq 100 353 | sed 's/.*/job add id & size 2 window 1 max-elems 8/' |
	"$C" -d "daemon:$P" -b - >/dev/null
added=$?
echo "# batch of 254 job adds: exit $added"
refused "the 257th job is refused: the most jobs a switch takes" \
	"the switch has 256 jobs, the most it takes" -d "daemon:$P" job add id 400 size 2
seq 100 353 | sed 's/.*/job del &/' | "$C" -d "daemon:$P" -b - >/dev/null
ok_if "254 jobs added and deleted again (-b -)" test "$added" = 0 -a $? = 0 -a \
	"$("$C" -j --prefix "$P" daemon jobs | grep -o '"id": *[0-9]*' | wc -l)" = 2
refused "kmod job del without a switch names -d kmod:SWITCH" \
	"job del on kmod needs a switch: -d kmod:SWITCH" -d kmod job del 3
refused "an unknown verb is named" 'Command "frob" is unknown, try "optincctl job help"' \
	-d "daemon:$P" job frob
refused "a job id that is not a number is named" 'job "x1": not a job id' \
	-d "daemon:$P" job show x1
refused "port add on optincd is refused by name" "port add: optincd's ports" \
	-d "daemon:$P" port add eth0
# the man pages: no groff warnings, and they name every option there is
MAN=$SRC_ROOT/Documentation/man
out=$(groff -man -ww -z "$MAN/optincctl.8" "$MAN/optincd.8" 2>&1)
[ -z "$out" ] || echo "# groff: $out"
ok_if "optincctl.8 and optincd.8 format without warnings" test -z "$out"
missing=
for o in $("$D" -- --help 2>&1 | grep -o -- '--[a-z-]*' | sort -u); do
	sed 's/\\-/-/g' "$MAN/optincd.8" | grep -q -- "$o" || missing="$missing $o"
done
for o in $("$C" help 2>&1 | sed -n 's/^ *optincctl \([a-z]*\) .*/\1/p' | sort -u); do
	sed 's/\\-/-/g' "$MAN/optincctl.8" | grep -q "^\.B.* $o\|^\.B $o" || missing="$missing $o"
done
[ -z "$missing" ] || echo "# not in the man pages:$missing"
ok_if "every option of optincd and object of optincctl is in its man page" test -z "$missing"
# bash completion, with Debian's bash-completion
comp() {
	bash -c '. /usr/share/bash-completion/bash_completion && . "$1" &&
		COMP_LINE=$2 && COMP_POINT=${#COMP_LINE} &&
		read -ra COMP_WORDS <<<"$COMP_LINE" && COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) &&
		_optincctl && echo "${COMPREPLY[*]}"' comp "$SRC_ROOT/tools/optincctl/optincctl.bash" "$1"
}
got="$(comp "optincctl -d kmod:s0 jo")|$(comp "optincctl job a")|$(comp "optincctl -d km")|$(comp "optincctl job add ma")"
[ "$got" = "job|add|kmod kmod:|max-elems" ] || echo "# completion: $got"
ok_if "bash completion: objects, verbs, datapaths, job keys" test "$got" = "job|add|kmod kmod:|max-elems"
out=$("$C" job help 2>&1)
ok_if "job help prints the grammar" grep -q "job add id ID size N" <<<"$out"
tap_end
