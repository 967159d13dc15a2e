#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# optincd's options, config file and truth-table checks (a bad table leaves
# only its job unserved), its start and stop
# with telemetry, and optincctl's command line. No network: one net_null
# port. Prints TAP.
set -u
. "$(dirname "$0")/../tap.sh"
O=${O:-build}
D=$O/bin/optincd
C=$O/bin/optincctl
prefix=optinc-opts-$$
tmp=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill -INT "$pid" 2>/dev/null && wait "$pid"
	rm -rf "$tmp" "/var/run/dpdk/$prefix"
}
trap cleanup EXIT
EAL=(-l 0 --no-huge -m 64 --no-pci --no-shconf --file-prefix "$prefix"
     --vdev net_null0,no-rx=1)

# refuse NAME TEXT OPTION...: optincd exits non-zero and its error says TEXT
refuse() {
	local name=$1 want=$2 out rc

	shift 2
	out=$(timeout 20 "$D" "${EAL[@]}" -- "$@" 2>&1)
	rc=$?
	if [ $rc -ne 0 ] && [ $rc -ne 124 ] && grep -qF -- "$want" <<<"$out"; then
		tap_pass "$name"
	else
		tap_fail "$name" "exit $rc, wanted '$want' in:" "$out"
	fi
}

# mktable FILE N VERSION CUT: a truth table for N members, CUT bytes short
mktable() {
	python3 - "$@" <<'PYEOF'
import struct, sys
path, n, ver, cut = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
radix = 3 * n + 1
entries = radix ** 4
hdr = struct.pack('<8sHHHHII32sII', b'OINCTBL1', ver, n, 8, radix, entries,
                  0, bytes(32), 0, 0)
data = hdr + bytes(entries)
open(path, 'wb').write(data[:len(data) - cut])
PYEOF
}

tap_plan 25

out=$(timeout 20 "$D" "${EAL[@]}" -- --help 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q -- "--job SPEC" <<<"$out"; then
	tap_pass "--help prints the usage and exits 0"
else
	tap_fail "--help prints the usage and exits 0" "exit $rc" "$out"
fi
# as a newcomer types it: no EAL options, so no --no-huge and no vdev
out=$(timeout 20 "$D" -- --help 2>&1)
rc=$?
if [ $rc -eq 0 ] && grep -q -- "--job SPEC" <<<"$out" && ! grep -q EAL: <<<"$out"; then
	tap_pass "optincd -- --help answers without starting the EAL (no hugepages needed)"
else
	tap_fail "optincd -- --help answers without starting the EAL" "exit $rc" "$out"
fi

refuse "--addr is required" "--addr is required" --job id=1,size=2
refuse "bad --addr named" "--addr '10.77.0.300'" --addr 10.77.0.300
refuse "bad --port named" "--port '70000'" --addr 10.77.0.254 --port 70000
refuse "bad --mac named" "--mac '01:00:5e:00:00:01'" --addr 10.77.0.254 --mac 01:00:5e:00:00:01
refuse "bad --idle-us named" "--idle-us 'soon'" --addr 10.77.0.254 --idle-us soon
refuse "bad --rate-limit rate named" "--rate-limit 'fast'" --addr 10.77.0.254 --rate-limit fast
refuse "bad --rate-limit burst named" "--rate-limit '1000,0': not a burst" --addr 10.77.0.254 --rate-limit 1000,0
refuse "unknown option named" "unknown option '--frob'" --addr 10.77.0.254 --frob 1
refuse "job size out of range" "size=99: must be 1..64" --addr 10.77.0.254 --job id=1,size=99
refuse "job id required" "id= is required" --addr 10.77.0.254 --job size=2
refuse "job unknown key" "unknown key 'colour'" --addr 10.77.0.254 --job id=1,size=2,colour=red
refuse "job bits 8 or 16" "bits=12: must be 8 or 16" --addr 10.77.0.254 --job id=1,size=2,bits=12
refuse "onn needs a table" "mode=onn needs table=FILE" --addr 10.77.0.254 --job id=1,size=2,mode=onn
refuse "duplicate job id" "a job with this id exists" --addr 10.77.0.254 --job id=1,size=2 --job id=1,size=4

printf 'addr 10.77.0.254\n# comment\n\njob id=1,size=2,window=0\n' >"$tmp/bad.conf"
refuse "config error names file and line" "$tmp/bad.conf:4: --job" --config "$tmp/bad.conf"

mktable "$tmp/good.tbl" 2 1 0
mktable "$tmp/trunc.tbl" 2 1 100
mktable "$tmp/v2.tbl" 2 2 0
mktable "$tmp/n3.tbl" 3 1 0
# Bad tables leave their job unserved; optincd runs the others.
J="window=8,max-elems=1024"
"$D" "${EAL[@]}" -- --addr 10.77.0.254 --job id=1,size=2,table="$tmp/good.tbl",$J \
	--job id=2,size=2,table="$tmp/trunc.tbl",$J --job id=3,size=2,table="$tmp/v2.tbl",$J \
	--job id=4,size=2,table="$tmp/n3.tbl",$J >"$tmp/bad.log" 2>&1 &
pid=$!
for _ in $(seq 100); do
	"$C" --prefix "$prefix" daemon show >/dev/null 2>&1 && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
served=$("$C" --prefix "$prefix" -j daemon jobs 2>&1 | python3 -c '
import json, sys
print(" ".join("%s:%s:%s" % (j["id"], j["mode"], j["served"]) for j in json.load(sys.stdin)))' 2>&1)
# bad_table NAME TEXT: the log names job, file and problem; only job 1 served
bad_table() {
	if grep -F -- "$2" "$tmp/bad.log" | grep -q "the job is not served" &&
	   [ "$served" = "1:onn:1 2:exact:0 3:exact:0 4:exact:0" ]; then
		tap_pass "$1"
	else
		tap_fail "$1" "jobs: $served" "$(cat "$tmp/bad.log")"
	fi
}
bad_table "truncated table: its job not served, optincd runs" \
	"job 2: table '$tmp/trunc.tbl': file truncated"
bad_table "wrong table version: its job not served" \
	"job 3: table '$tmp/v2.tbl': unsupported table version"
bad_table "table for another N: its job not served" \
	"job 4: table '$tmp/n3.tbl': made for N=3 B=8"
kill -INT "$pid"
wait "$pid"
pid=

cat >"$tmp/ok.conf" <<CONF
# optincd config: one option per line
addr 10.77.0.254
--port 47001
job id=5,size=4,bits=16,window=8,max-elems=1024
job=id=6,size=2,table=$tmp/good.tbl
idle-us 1000
rate-limit 500,16
CONF
"$D" "${EAL[@]}" -- --config "$tmp/ok.conf" >"$tmp/ok.log" 2>&1 &
pid=$!
# ready once /optinc/info answers: the socket appears before the commands
for _ in $(seq 100); do
	"$C" --prefix "$prefix" daemon show >/dev/null 2>&1 && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
jobs_json=$("$C" --prefix "$prefix" -j daemon jobs 2>&1)
if python3 -c '
import json, sys
j = {x["id"]: x for x in json.loads(sys.argv[1])}
assert j[5]["bits"] == 16 and j[5]["size"] == 4 and j[5]["mode"] == "exact"
assert j[6]["mode"] == "onn" and j[6]["size"] == 2
' "$jobs_json" 2>/dev/null; then
	tap_pass "config file jobs shown by optincctl daemon jobs"
else
	tap_fail "config file jobs shown by optincctl daemon jobs" "$jobs_json" "$(cat "$tmp/ok.log")"
fi
show=$("$C" --prefix "$prefix" -j daemon show 2>&1)
if python3 -c '
import json, sys
s = json.loads(sys.argv[1])
assert s["udp_port"] == 47001 and s["addr"] == "10.77.0.254" and s["ports"] == 1
assert s["idle_us_max"] == 1000 and "unknown_job" in s["drops"]
assert s["rate_limit_pps"] == 500 and s["rate_limit_burst"] == 16
' "$show" 2>/dev/null && "$C" --prefix "$prefix" -j daemon ports 2>&1 |
	python3 -c 'import json, sys; assert json.load(sys.stdin)[0]["rate_limited"] == 0'; then
	tap_pass "optincctl daemon show reads the telemetry"
else
	tap_fail "optincctl daemon show reads the telemetry" "$show"
fi
kill -INT "$pid"
wait "$pid"
rc=$?
pid=
if [ $rc -eq 0 ] && grep -q "optincd: stopping" "$tmp/ok.log"; then
	tap_pass "SIGINT stops optincd with exit 0"
else
	tap_fail "SIGINT stops optincd with exit 0" "exit $rc" "$(cat "$tmp/ok.log")"
fi

out=$("$C" frob 2>&1)
rc=$?
if [ $rc -ne 0 ] && [ "$out" = 'Command "frob" is unknown, try "optincctl help".' ]; then
	tap_pass "optincctl names an unknown object"
else
	tap_fail "optincctl names an unknown object" "exit $rc" "$out"
fi
out=$("$C" --prefix "$prefix-none" daemon show 2>&1)
if [ $? -ne 0 ] && grep -q "is it running with --file-prefix $prefix-none" <<<"$out"; then
	tap_pass "optincctl says when no optincd answers"
else
	tap_fail "optincctl says when no optincd answers" "$out"
fi
tap_end
