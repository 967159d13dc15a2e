#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# C++ against the installed header: `make install` into a temporary
# DESTDIR, then cxx_opts.cpp built with g++ -std=c++17 and -std=c++20
# -Wall -Wextra -Werror (with ../tap.c, as C++ too), flags from the
# staged optinc.pc through PKG_CONFIG_SYSROOT_DIR, each binary run against
# the staged library and the loopback test switch; designators out of
# declaration order must not compile (the C++ rule of OPTINC_OPTS). TAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
O=${O:-build}
case $O in /*) Oabs=$O ;; *) Oabs=$top/$O ;; esac
tmp=$(mktemp -d)
root=$tmp/root
sw_pid=

cleanup() {
	[ -n "$sw_pid" ] && kill "$sw_pid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
. "$here/../tap.sh"

# PREFIX and LIBDIR as the build was made with (make passes them on in
# MAKEFLAGS); the staged optinc.pc is found wherever that put it.
staged() {
	make -C "$top" -s --no-print-directory O="$O" DESTDIR="$root" install ||
		return 1
	pc=$(find "$root" -name optinc.pc | head -1)
	libdir=$(dirname "$(find "$root" -name liboptinc.so.0 | head -1)")
	[ -n "$pc" ] && [ -n "$(find "$root" -path '*/include/optinc/optinc.h')" ] &&
		[ -e "$libdir/liboptinc.so.0" ]
}

pcq() {
	PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_PATH=$(dirname "$pc") \
		pkg-config "$@" optinc
}

cxx_build() {	# cxx_build STD OUT [EXTRA FLAGS]
	local std=$1 out=$2 cflags libs

	shift 2
	cflags=$(pcq --cflags) && libs=$(pcq --libs) || return 1
	case $cflags in *"$root"*) ;; *) echo "cflags '$cflags' not in $root"; return 1 ;; esac
	g++ -std="$std" -Wall -Wextra -Werror "$@" $cflags -o "$out" \
		"$here/cxx_opts.cpp" "$here/../tap.c" $libs -Wl,-rpath,"$libdir" \
		-lpthread
}

cxx_run() {	# the binary uses the staged library, and passes
	ldd "$1" | grep -q "liboptinc.so.0 => $root" && "$1" "127.0.0.1:$port"
}

# Out-of-order designators are an error in C++20: the rule the docs state.
cxx_order_refused() {
	printf '#include <optinc/optinc.h>\nint main() { OPTINC_OPTS(o, .bits = 16, .rank = 0); return o.rank; }\n' \
		>"$tmp/order.cpp"
	! g++ -std=c++20 -Wall -Wextra -Werror $(pcq --cflags) -c -o "$tmp/order.o" \
		"$tmp/order.cpp" 2>"$tmp/order.err" &&
		grep -q "designator order" "$tmp/order.err"
}

tap_plan 6
if ! command -v g++ >/dev/null || ! command -v pkg-config >/dev/null; then
	for i in $(seq 6); do tap_fail "g++ and pkg-config are installed (g++, pkg-config)"; done
	tap_end
fi
ok_run "make install DESTDIR=<tmp> stages the header, the library and optinc.pc" staged
coproc SW { exec "$Oabs/selftests/lib/test_switch" -n 2; }
sw_pid=$SW_PID
read -r _ port <&"${SW[0]}"
echo "# test switch on 127.0.0.1:${port:-?}"
for std in c++17 c++20; do
	ok_run "g++ -std=$std -Wall -Wextra -Werror with the staged optinc.pc builds cxx_opts.cpp" \
		cxx_build "$std" "$tmp/cxx-$std"
	ok_run "$std: runs on the staged library; defaults from the members' initialisers; OPTINC_OPTS(o, .rank, .size, .switch_addr, .bits = 16, ...): float32 and int32 SUM on two ranks right" \
		cxx_run "$tmp/cxx-$std"
done
ok_run "C++20: designators out of declaration order do not compile" cxx_order_refused
tap_end
