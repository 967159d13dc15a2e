#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# `make install` into a temporary DESTDIR, as a packager stages it: the
# programs and the testbed tool, liboptinc with its symlinks, the header,
# optinc.pc, the shipped tables and models in PREFIX/share/optinc (where
# the staged optincd looks by default); the testbed tool runs the optincd
# beside it; a small C program (hello.c) built through pkg-config with
# PKG_CONFIG_SYSROOT_DIR and PKG_CONFIG_PATH, as README and library.md
# say, runs on the staged library against the loopback test switch; with
# KDIR= the module lands in DESTDIR/lib/modules/KVER/extra. TAP
# (selftests/net/lib.sh).
set -u
. "$(dirname "$0")/../net/lib.sh"
here=$SRC_ROOT/selftests/install
T_TMP=$(mktemp -d)
root=$T_TMP/root
sw_pid=
cleanup() {
	[ -n "$sw_pid" ] && kill "$sw_pid" 2>/dev/null
	tb_cleanup
}
trap cleanup EXIT
PROGS="optincd optincctl optinc-onn optinc-bench optinc-overlap-bench optinc-io-bench optinc-testbed"

skip_one() {	# skip_one DESCRIPTION REASON
	T_NUM=$((T_NUM + 1))
	echo "ok $T_NUM - $1 # SKIP $2"
}

# PREFIX and LIBDIR as the build was made (make passes them on in
# MAKEFLAGS); they are read back from the staged optinc.pc.
staged() {
	make -C "$SRC_ROOT" -s --no-print-directory O="$O" DESTDIR="$root" install \
		>"$T_TMP/install.log" 2>&1 || { sed 's/^/# /' "$T_TMP/install.log"; return 1; }
	pc=$(find "$root" -name optinc.pc | head -1)
	[ -n "$pc" ] || { echo "# no optinc.pc under $root"; return 1; }
	prefix=$(sed -n 's/^prefix=//p' "$pc")
	libdir=$(sed -n 's/^libdir=//p' "$pc")
	echo "# prefix $prefix, libdir $libdir"
	[ -n "$prefix" ] && [ -n "$libdir" ]
}

progs() {
	local p bad=0

	for p in $PROGS; do
		[ -x "$root$prefix/bin/$p" ] || { echo "# missing: $prefix/bin/$p"; bad=1; }
	done
	return $bad
}

# liboptinc.so and liboptinc.so.0 (the soname) -> liboptinc.so.0.Y.Z, and the archive
libs() {
	local d=$root$libdir real

	real=$(readlink "$d/liboptinc.so.0")
	[ "$(readlink "$d/liboptinc.so")" = "$real" ] &&
		[[ $real == liboptinc.so.0.* ]] && [ -f "$d/$real" ] && [ ! -L "$d/$real" ] &&
		[ -f "$d/liboptinc.a" ] && return 0
	ls -l "$d" | sed 's/^/# /'
	return 1
}

header() {
	cmp "$SRC_ROOT/lib/include/optinc/optinc.h" "$root$prefix/include/optinc/optinc.h"
}

# every shipped table and model, unchanged
models() {
	local f n=0

	for f in "$SRC_ROOT"/models/*.tbl "$SRC_ROOT"/models/*.onn; do
		cmp "$f" "$root$prefix/share/optinc/$(basename "$f")" || return 1
		n=$((n + 1))
	done
	echo "# $n tables and models in $prefix/share/optinc"
	[ "$n" -ge 4 ]
}

# The staged optincd's default table directory is where they were put.
table_dir() {
	local dir

	dir=$("$root$prefix/bin/optincd" -- --help | sed -n 's/.*when the working directory has none (\(.*\))$/\1/p')
	echo "# optincd looks in $dir"
	[ "$dir" = "$prefix/share/optinc" ] && [ -f "$root$dir/onn-n4.tbl" ]
}

# The installed testbed tool starts the optincd installed beside it.
testbed_beside() {
	local tb cmd

	tb=$(tb_name oinst)
	T_TBS+=("$tb")
	env -u O -u OPTINCD "$root$prefix/bin/optinc-testbed" up --tb "$tb" -n 1 \
		>"$T_TMP/tb.log" 2>&1 || { sed 's/^/# /' "$T_TMP/tb.log"; return 1; }
	cmd=$(cut -d' ' -f1 "/run/optinc-testbed/$tb/daemon.cmd")
	env -u O "$root$prefix/bin/optinc-testbed" down --tb "$tb"
	echo "# it ran $cmd"
	[ "$cmd" = "$root$prefix/bin/optincd" ]
}

pcq() {
	PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_PATH=$root$libdir/pkgconfig \
		pkg-config "$@" optinc
}

# The flags point into the staged tree; without the sysroot they would not.
pc_flags() {
	local cflags libs

	cflags=$(pcq --cflags) && libs=$(pcq --libs) || return 1
	echo "# cflags $cflags, libs $libs"
	[[ " $cflags " == *" -I$root$prefix/include "* ]] &&
		[[ " $libs " == *" -L$root$libdir "* ]] && [[ " $libs " == *" -loptinc "* ]]
}

hello_build() {
	# shellcheck disable=SC2046
	cc -Wall -Wextra -Werror $(pcq --cflags) -o "$T_TMP/hello" "$here/hello.c" \
		$(pcq --libs) -Wl,-rpath,"$root$libdir"
}

hello_run() {
	local out port

	coproc SW { exec "$O/selftests/lib/test_switch" -n 1; }
	sw_pid=$SW_PID
	read -r _ port <&"${SW[0]}"
	out=$(OPTINC_SWITCH=127.0.0.1:$port OPTINC_JOB=1 OPTINC_RANK=0 OPTINC_SIZE=1 \
		timeout 20 "$T_TMP/hello" 2>&1)
	echo "# hello: ${out//$'\n'/; }"
	ldd "$T_TMP/hello" | grep -q "liboptinc.so.0 => $root$libdir/" &&
		grep -qx "sum 1 -2 3 -4" <<<"$out"
}

# The Debian kernel's headers (the VM's), as kmod/build.mk finds them.
deb_kdir() {
	local d

	d=$(dpkg-query -W -f='${Depends}' linux-headers-amd64 2>/dev/null |
		sed -n 's|^\(linux-headers-[^ ,]*\).*|/usr/src/\1|p')
	[ -n "$d" ] && [ -e "$d/Makefile" ] && echo "$d"
}

module() {
	local ko

	make -C "$SRC_ROOT" -s --no-print-directory O="$O" DESTDIR="$T_TMP/kroot" \
		KDIR="$kdir" install >"$T_TMP/kinstall.log" 2>&1 ||
		{ sed 's/^/# /' "$T_TMP/kinstall.log"; return 1; }
	ko=$(find "$T_TMP/kroot/lib/modules" -path '*/extra/optinc.ko')
	echo "# $ko"
	[ -n "$ko" ] && grep -qa 'name=optinc' "$ko"
}

tap_plan 11
if ! command -v pkg-config >/dev/null || ! command -v cc >/dev/null; then
	for i in $(seq 11); do ok_if "cc and pkg-config are installed (make deps)" false; done
	tap_end
	exit 1
fi
if ok_if "make install DESTDIR=<tmp> stages the tree (optinc.pc found)" staged; then
	ok_if "programs in PREFIX/bin: $PROGS" progs
	ok_if "liboptinc.so and .so.0 -> .so.0.y.z (symlinks kept), liboptinc.a, in LIBDIR" libs
	ok_if "the header in PREFIX/include/optinc" header
	ok_if "models/ tables and ONN models in PREFIX/share/optinc" models
	ok_if "the staged optincd looks for tables there by default" table_dir
	if [ "$(id -u)" = 0 ]; then
		ok_if "the staged optinc-testbed runs the optincd beside it" testbed_beside
	else
		skip_one "the staged optinc-testbed runs the optincd beside it" "needs root"
	fi
	ok_if "pkg-config with PKG_CONFIG_SYSROOT_DIR + PKG_CONFIG_PATH: flags into DESTDIR" pc_flags
	if ok_if "hello.c builds with the staged flags" hello_build; then
		ok_if "and runs on the staged liboptinc: int32 SUM through the test switch" hello_run
	else
		ok_if "and runs on the staged liboptinc" false
	fi
else
	for i in $(seq 9); do ok_if "(not staged)" false; done
fi
kdir=$(deb_kdir)
if [ -n "$kdir" ]; then
	ok_if "make install KDIR=$kdir: optinc.ko in DESTDIR/lib/modules/KVER/extra" module
else
	skip_one "make install KDIR=...: the module" "no kernel headers (linux-headers-amd64, make deps)"
fi
tap_end
