#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# train stopped by SIGINT or SIGTERM: the epoch in progress ends, then the
# checkpoint and the model are written as at the end of stage 2, and the
# exit status is 0. With --keep-best the model is the best epoch's (the
# trainer's count of what it wrote is the fewest of any epoch, and the file
# verifies); without it, the last epoch's network,
# which is the checkpoint's (resuming it with stage 2 cut to the epochs
# done writes the same file). TAP output.
. "$(dirname "$0")/lib.sh"

begin 2 stop

# N = 2 at a high rate: 0.1 s epochs whose accuracy swings; far more of
# them than the test waits for
args="-N 2 --seed 3 --epochs1 0 --batch 64 --lr2 2e-2 --lr-end 1"

# run_stopped SIGNAL LOG OPTIONS..: train, send SIGNAL once 5 epochs are
# done; prints the exit status (or "hung" after 60 s)
run_stopped() {
	local sig=$1 log=$2 pid i
	shift 2
	: >"$log"	# before the job's own redirection makes it
	# a job started with & has SIGINT ignored, which the trainer respects
	env --default-signal=INT "$ONN" train $args --epochs2 100000 "$@" >"$log" 2>&1 &
	pid=$!
	for ((i = 0; i < 600; i++)); do
		[ "$(grep -c '^epoch ' "$log")" -ge 5 ] && break
		sleep 0.1
	done
	kill -"$sig" $pid
	for ((i = 0; i < 600; i++)); do
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 $pid 2>/dev/null; then
		kill -9 $pid
		echo hung
		return
	fi
	wait $pid
	echo $?
}

rc=$(run_stopped INT "$dir/k.log" --keep-best --checkpoint "$dir/k.ckpt" -o "$dir/k.onn")
e=$(sed -n 's/^stopped by SIGINT after epoch \([0-9]*\): checkpoint in .*/\1/p' "$dir/k.log")
least=$(sed -n 's/^epoch .* exact [0-9.]*% (\([0-9]*\) wrong).*/\1/p' "$dir/k.log" | sort -n | head -1)
right=$("$ONN" verify "$dir/k.onn" 2>/dev/null | sed -n 's/.*: \([0-9]*\) of 2401 points right.*/\1/p')
echo "# exit $rc, stopped after epoch ${e:-?} ($(grep -c '^epoch ' "$dir/k.log") epoch lines); fewest wrong $least; verify: ${right:-no model} right"
[ "$rc" = 0 ] && [ -n "$e" ] && [ "$(grep -c '^epoch ' "$dir/k.log")" = "$e" ] &&
	[ -n "$least" ] && grep -q "^trained $e epochs .*: $least of 2401 points wrong" "$dir/k.log" &&
	[ -n "$right" ] && [ -s "$dir/k.ckpt" ]
tap_result $? "SIGINT: exit 0 after a whole epoch, the checkpoint and the best epoch's model written"

rc=$(run_stopped TERM "$dir/t.log" --checkpoint "$dir/t.ckpt" -o "$dir/t.onn")
e=$(sed -n 's/^stopped by SIGTERM after epoch \([0-9]*\): checkpoint in .*/\1/p' "$dir/t.log")
cp "$dir/t.ckpt" "$dir/r.ckpt"
"$ONN" train $args --epochs2 "${e:-1}" --resume --checkpoint "$dir/r.ckpt" \
	-o "$dir/r.onn" >"$dir/r.log" 2>&1
echo "# exit $rc, stopped after epoch ${e:-?}; resumed: $(grep '^resumed' "$dir/r.log")"
[ "$rc" = 0 ] && [ -n "$e" ] && grep -q "^resumed from .* after epoch $e$" "$dir/r.log" &&
	[ -s "$dir/t.onn" ] && cmp -s "$dir/t.onn" "$dir/r.onn"
tap_result $? "SIGTERM: exit 0, the model is the last epoch's network, the one its checkpoint holds"
tap_end
