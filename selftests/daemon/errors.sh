#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Every error optincd gives names what it is about: each option of --help
# given a bad value names that option, a failed EAL start-up names the
# usual fixes, and each bad telemetry request answers an error object
# naming the bad parameter (not a bare null), which optincctl prints.
# No network: one net_null port (selftests/daemon/lib.sh). TAP.
set -u
. "$(dirname "$0")/lib.sh"

# refused WANT ARGS...: optincd (after --) exits non-zero saying WANT
refused() {
	local want=$1 out rc

	shift
	out=$(timeout 20 "$D" "${EAL[@]}" -- "$@" 2>&1)
	rc=$?
	[ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -qF -- "$want" <<<"$out" && return 0
	echo "# exit $rc, wanted '$want' in:"
	sed 's/^/#   /' <<<"$out" | tail -n 5
	return 1
}

# Every option --help lists (but --help), given a value it cannot take,
# is refused with an error that names it.
every_option_named() {
	local opt bad=0 n=0

	for opt in $("$D" -- --help | sed -n 's/^  \(--[a-z-]*\).*/\1/p'); do
		[ "$opt" = --help ] && continue
		n=$((n + 1))
		refused "$opt '%bad%'" --addr 10.77.0.254 "$opt" %bad% || bad=1
	done
	echo "# $n options tried"
	[ "$n" -ge 9 ] && [ $bad = 0 ]
}

# The same as the last line of a config file: FILE:LINE: and the option.
config_option_named() {
	printf 'addr 10.77.0.254\nmtu 20\n' >"$T_TMP/mtu.conf"
	refused "$T_TMP/mtu.conf:2: --mtu '20': not an MTU" --config "$T_TMP/mtu.conf"
}

# An EAL that cannot start (an option it does not know) gets optincd's
# hint with the options a first start usually lacks.
eal_hint() {
	local out

	out=$(timeout 20 "$D" --no-such-eal-option -- --addr 10.77.0.254 2>&1)
	[ $? -eq 1 ] && grep -q "optincd: EAL start-up failed" <<<"$out" &&
		grep -q -- "--no-huge -m 256" <<<"$out" && grep -q -- "--vdev" <<<"$out" &&
		! grep -q "Cause: Invalid EAL arguments" <<<"$out" && return 0
	echo "# exit $?:"
	tail -n 3 <<<"$out" | sed 's/^/#   /'
	return 1
}

start() {
	d_start "$T_TMP/d.log" . -- --addr 10.77.0.254 --job id=1,size=2 --job id=7,size=4
}

# tel_error CMD PARAM TEXT: CMD's answer, through DPDK's own client
# (dpdk-telemetry.py, Debian's dpdk-dev), is {"error": ..TEXT.., "param": PARAM}
tel_error() {
	local raw

	raw=$(echo "$1" | timeout 20 dpdk-telemetry.py -f "$prefix" 2>&1)
	python3 - "$raw" "$@" <<'PYEOF' && return 0
import json, sys
raw, cmd, param, text = sys.argv[1:5]
v = json.loads(raw)[cmd.split(",")[0]]
sys.exit(0 if isinstance(v, dict) and v.get("param") == param and
         text in v.get("error", "") else 1)
PYEOF
	echo "# $1 answered: $raw"
	return 1
}

ctl_says() {
	local want=$1 out

	shift
	out=$("$C" --prefix "$prefix" "$@" 2>&1)
	[ $? -ne 0 ] && [ "$out" = "$want" ] && return 0
	echo "# optincctl $*: '$out'"
	return 1
}

tap_plan 14
ok_if "every option of --help given a bad value is refused naming itself" every_option_named
ok_if "an option without its value: '--addr needs a value'" refused "--addr needs a value" --addr
ok_if "a word that is not an option is named" refused "unexpected argument 'stray'" --addr 10.77.0.254 stray
ok_if "an option from a config file: FILE:LINE: and the option" config_option_named
ok_if "a failed EAL start names --no-huge, --no-pci and --vdev" eal_hint
ok_if "optincd starts (jobs 1 and 7)" start
ok_if "/optinc/job,abc: error object naming the job id" tel_error /optinc/job,abc id "job id 'abc': not a number in 1..65535"
ok_if "/optinc/job: the missing job id named" tel_error /optinc/job id "job id missing: /optinc/job,ID"
ok_if "/optinc/members,5: no such job, named" tel_error /optinc/members,5 id "job id '5': no such job"
ok_if "/optinc/job,1,2: one parameter only" tel_error /optinc/job,1,2 params "one parameter"
ok_if "/optinc/table,1: the missing file named" tel_error /optinc/table,1 file "table file missing: /optinc/table,ID,FILE"
ok_if "/optinc/table,x,f: the bad job id named" tel_error /optinc/table,x,f id "job id 'x'"
ok_if "/optinc/info,1: no parameters taken" tel_error /optinc/info,1 params "/optinc/info takes no parameters, got '1'"
ok_if "optincctl prints the daemon's refusal (daemon job 5)" ctl_says \
	"optincctl: optincd refused /optinc/job,5: job id '5': no such job (see /optinc/jobs)" daemon job 5
tap_end
