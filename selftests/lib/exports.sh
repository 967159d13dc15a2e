#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# liboptinc's ABI: only the API listed in lib/liboptinc.map is exported,
# the soname is liboptinc.so.0, optinc.pc is filled in, and a program
# built with nothing but the installed header and -loptinc runs: TAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
O=${O:-build}
case $O in /*) ;; *) O=$top/$O ;; esac
so=$O/lib/liboptinc.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
. "$here/../tap.sh"

exports_match() {
	sed -n 's/^[[:space:]]*\(optinc_[a-z_0-9]*\);$/\1/p' "$top/lib/liboptinc.map" |
		sort >"$tmp/want"
	nm -D --defined-only "$so" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }' |
		sed 's/@.*//' | sort >"$tmp/got"
	diff -u "$tmp/want" "$tmp/got"
}

soname_is() {
	readelf -d "$so" | grep -q "SONAME.*\[$1\]" &&
		test -e "$O/lib/$1" && test -e "$O/lib/liboptinc.a"
}

pc_filled() {
	grep -q '^Libs: -L${libdir} -loptinc' "$O/lib/optinc.pc" &&
		grep -q '^libdir=/' "$O/lib/optinc.pc" &&
		! grep -q '@' "$O/lib/optinc.pc"
}

links_alone() {
	local pc="pkg-config --define-variable=libdir=$O/lib"

	mkdir -p "$tmp/inc/optinc"
	cp "$top/lib/include/optinc/optinc.h" "$tmp/inc/optinc/"
	cat >"$tmp/app.c" <<'EOC'
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <optinc/optinc.h>
int main(void)
{
	struct optinc_comm *c;
	OPTINC_OPTS(o, .bits = 16);
	int err;

	unsetenv("OPTINC_RANK");
	unsetenv("OMPI_COMM_WORLD_RANK");
	unsetenv("PMI_RANK");
	unsetenv("SLURM_PROCID");
	err = optinc_comm_create(&o, &c);
	printf("%u %s: %s\n", optinc_version(), optinc_strerror(err),
	       optinc_comm_errmsg(NULL));
	return optinc_version() != OPTINC_LIB_VERSION_CODE ||
	       err != OPTINC_ERR_INVALID ||
	       !strstr(optinc_comm_errmsg(NULL), "rank not set");
}
EOC
	PKG_CONFIG_PATH=$O/lib $pc --exists optinc &&
	cc -std=c11 -Wall -Wextra -Werror -I"$tmp/inc" -o "$tmp/app" "$tmp/app.c" \
		$(PKG_CONFIG_PATH=$O/lib $pc --libs optinc) -Wl,-rpath,"$O/lib" &&
	"$tmp/app" &&
	cc -std=c11 -Wall -Wextra -Werror -I"$tmp/inc" -o "$tmp/app_static" \
		"$tmp/app.c" "$O/lib/liboptinc.a" \
		$(PKG_CONFIG_PATH=$O/lib $pc --static --libs-only-other --libs-only-l optinc | sed 's/-loptinc//') &&
	"$tmp/app_static"
}

tap_plan 4
ok_run "only the API in liboptinc.map is exported" exports_match
ok_run "soname liboptinc.so.0, links and static archive are there" soname_is liboptinc.so.0
ok_run "optinc.pc has its prefix and libdir filled in" pc_filled
ok_run "a program with only optinc.h and optinc.pc builds (shared and static) and runs" links_alone
tap_end
