#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Shared by the scale selftests: the net tests' TAP and testbed helpers,
# plus ranks of several jobs on one testbed and the switch's job counters.
. "$(dirname "${BASH_SOURCE[0]}")/../net/lib.sh"

SW_PORT=47000
# bytes a frame carries in front of the UDP payload (Ethernet, IPv4, UDP)
# shellcheck disable=SC2034 # used by the scripts that source this
FRAME_HDR=42
S_PIDS=()

# Start rank $3 of a job in server namespace $2 of testbed $1:
# JOB SIZE TOKEN LOG CMD...; its pid is appended to S_PIDS. The switch is
# $RANK_SW (default 10.77.0.254).
rank_start() {
	local tb=$1 srv=$2 rank=$3 job=$4 size=$5 token=$6 log=$7

	shift 7
	ip netns exec "$tb-h$srv" env OPTINC_SWITCH="${RANK_SW:-10.77.0.254}:$SW_PORT" \
		OPTINC_JOB="$job" OPTINC_RANK="$rank" OPTINC_SIZE="$size" \
		OPTINC_TOKEN="$token" "$@" </dev/null >"$log" 2>&1 &
	S_PIDS+=($!)
}

# Wait for every pid in S_PIDS, at most $1 seconds; stragglers are killed.
ranks_wait() {
	local limit=$1 w pid rc=0

	( sleep "$limit"; kill -KILL "${S_PIDS[@]}" 2>/dev/null ) &
	w=$!
	for pid in "${S_PIDS[@]}"; do
		wait "$pid" || rc=1
	done
	kill "$w" 2>/dev/null
	wait "$w" 2>/dev/null
	S_PIDS=()
	return $rc
}

ranks_kill() {
	[ ${#S_PIDS[@]} -gt 0 ] && kill -KILL "${S_PIDS[@]}" 2>/dev/null
	S_PIDS=()
}

# A job's counters on the switch, through optincctl as an operator reads
# them: "slots frames_in bytes_in frames_out bytes_out".
job_counters() {
	"$TESTBED" ctl --tb "$1" -j daemon job "$2" | python3 -c '
import json, sys
j = json.load(sys.stdin)
print(j["slots_completed"], j["frames_in"], j["bytes_in"], j["frames_out"], j["bytes_out"])'
}

# "a b c" minus "x y z", element by element.
counters_delta() {
	local -a a b
	local i out=

	read -ra a <<<"$1"
	read -ra b <<<"$2"
	for ((i = 0; i < ${#a[@]}; i++)); do
		out="$out $((a[i] - b[i]))"
	done
	echo "${out# }"
}

# All rank logs in a directory PASSed, and there are $2 of them.
logs_pass() {
	[ "$(grep -lx PASS "$1"/rank*.log 2>/dev/null | wc -l)" -eq "$2" ]
}

# The hash every rank of a job printed (one line), or nothing if they differ.
logs_hash() {
	local h

	h=$(sed -n 's/^rank .* hash \([0-9a-f]*\)$/\1/p' "$1"/rank*.log | sort -u)
	[ "$(echo "$h" | wc -l)" -eq 1 ] && echo "$h"
}

same_hash() {
	echo "# hashes: $1 and $2"
	[ -n "$1" ] && [ "$1" = "$2" ]
}

# What a job's ranks sent by their own counts: "frames bytes retransmits
# distinct", frames and bytes with the JOINs, distinct = rank 0's frames of
# the calls less its retransmissions and probes (one slot each). Printed
# with %.0f: mawk prints sums past 2^31 as 2.38e+09, which bash cannot add.
logs_sent() {
	awk '/^join frames/ { f += $3; b += $5 }
	     /^frames sent/ { f += $3; r += $7; b += $10
			      if (FILENAME ~ /rank0.log$/) u = $3 - $7 - $NF }
	     END { printf "%.0f %.0f %.0f %.0f\n", f, b, r, u }' "$1"/rank*.log
}
