#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# selftests/run-tests itself: fake suites with a short plan, no plan, two
# plans, extra lines, a shell error, a skipped suite, skipped tests and a
# right one; the runner must fail or pass each as documented, and its
# totals must add up. Then suites on selftests/tap.sh (run by /bin/sh, as
# in the kmod VM): short of their plan, skipped, each kind of line, the
# plan at the end. TAP.
set -u
RUNNER=$(cd "$(dirname "$0")/.." && pwd)/run-tests
TAP=$(cd "$(dirname "$0")/.." && pwd)/tap.sh
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
# shellcheck source=../tap.sh
. "$TAP"

fake() {
	local name=$1

	shift
	printf '#!/bin/sh\n%s\n' "$*" >"$T/$name"
	chmod +x "$T/$name"
}

# run NAME...: the runner over fake suites; output in $T/out, status in $T/rc
run() {
	(cd "$T" && O="$T/o" "$RUNNER" "$@" >"$T/out" 2>&1; echo $? >"$T/rc")
}

rc_is() { [ "$(cat "$T/rc")" -eq "$1" ]; }
says() { grep -q -- "$1" "$T/out"; }

fake short 'echo "1..5"; echo "ok 1 - one"'
fake noplan 'echo "ok 1 - one"'
fake twoplans 'echo "1..1"; echo "ok 1 - a"; echo "1..1"; echo "ok 1 - b"'
fake extra 'echo "1..1"; echo "ok 1 - a"; echo "ok 2 - b"'
fake shellerr 'echo "1..1"; echo "ok 1 - a"; echo "x.sh: line 9: foo: command not found"'
fake skipall 'echo "1..0 # SKIP needs a thing"; exit 4'
fake skipone 'echo "1..2"; echo "ok 1 - a"; echo "ok 2 - b # SKIP no b"'
fake good 'echo "1..2"; echo "ok 1 - a"; echo "ok 2 - b"'
fake failing 'echo "1..2"; echo "ok 1 - a"; echo "not ok 2 - b"; exit 1'

# the same through selftests/tap.sh
fake tapshort ". \"$TAP\"; tap_plan 3; tap_pass one; tap_pass two; tap_end"
fake tapskipall ". \"$TAP\"; skip_all 'needs a widget'; tap_pass never"
fake tapmix ". \"$TAP\"; tap_plan 5; ok_if a true; ok_if b false; tap_skip c 'no c'
	tap_result 0 d; ok_run e sh -c 'echo e-said-this; exit 3'; tap_end"
fake taplate ". \"$TAP\"; tap_plan; tap_pass a; tap_pass b; tap_end"
fake tapskiplate ". \"$TAP\"; tap_plan 3; tap_pass a; skip_all 'gone'; tap_pass never"

tap_plan 16
run ./short
ok_if "a suite whose plan says 5 but ran 1 fails" \
	eval 'rc_is 1 && says "plan 1..5 but 1 test lines" && says "^1 passed, 1 failed"'
run ./noplan
ok_if "a suite without a plan fails" eval 'rc_is 1 && says "printed no TAP plan"'
run ./twoplans
ok_if "a suite with two plans fails" eval 'rc_is 1 && says "printed 2 TAP plans"'
run ./extra
ok_if "a suite with more test lines than its plan fails" \
	eval 'rc_is 1 && says "plan 1..1 but 2 test lines"'
run ./shellerr
ok_if "a suite with a shell error fails" eval 'rc_is 1 && says "shell error"'
run ./skipall
ok_if "a suite that exits 4 with plan 1..0 and a SKIP reason is one skipped suite, with its reason" \
	eval 'rc_is 0 && says "# SKIP .*needs a thing" && says "^0 passed, 0 failed, 1 skipped"'
run ./skipone
ok_if "a skipped test line counts as skipped, not passed" \
	eval 'rc_is 0 && says "^1 passed, 0 failed, 1 skipped"'
run ./good ./failing ./skipall ./skipone
ok_if "totals add up over suites: 4 passed, 1 failed, 2 skipped" \
	eval 'rc_is 1 && says "^4 passed, 1 failed, 2 skipped$"'
ok_if "the runner's own plan matches its suites and it counts them" \
	eval 'says "^1\.\.4$" && says "# 4 suites: 3 ran, 1 skipped"'
ok_if "the summary is the last line" \
	eval '[ "$(tail -n 1 "$T/out")" = "4 passed, 1 failed, 2 skipped" ]'
ok_if "the failing suite's not ok lines come again just before the summary" \
	eval 'tail -n 3 "$T/out" | head -n 2 | tr "\n" "|" |
	      grep -q "^# failed in suite 2 (.*failing.log):|#   not ok 2 - b|$"'
run ./tapshort
ok_if "tap.sh: a suite that runs fewer tests than its plan fails, and says so itself" \
	eval 'rc_is 1 && says "plan 1..3 but 2 test lines" && says "# planned 3 tests, ran 2" &&
	      says "^2 passed, 1 failed, 0 skipped"'
run ./tapskipall
ok_if "tap.sh: skip_all is one skipped suite with its reason, and nothing after it runs" \
	eval 'rc_is 0 && says "# SKIP .*needs a widget" && ! says never &&
	      says "^0 passed, 0 failed, 1 skipped"'
run ./tapmix
ok_if "tap.sh: ok_if, tap_skip, tap_result and ok_run counted; ok_run shows the failing output" \
	eval 'rc_is 1 && says "^# not ok 5 - e$" && says "^# # e-said-this" &&
	      says "^# ok 3 - c # SKIP no c$" && says "^2 passed, 2 failed, 1 skipped"'
run ./taplate
ok_if "tap.sh: tap_plan without a count puts the plan at the end" \
	eval 'rc_is 0 && says "^# 1\.\.2$" && says "^2 passed, 0 failed, 0 skipped"'
run ./tapskiplate
ok_if "tap.sh: skip_all after the plan skips the tests left" \
	eval 'rc_is 0 && ! says never && says "^1 passed, 0 failed, 2 skipped"'
tap_end
