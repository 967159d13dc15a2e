#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The afxdp transport as a plugin (lib/xport_plugin.h): liboptinc.so NEEDs
# neither libxdp nor libbpf, the plugin does; a udp communicator never
# loads it; afxdp finds it beside liboptinc.so; a missing plugin, one whose
# libraries are missing, a file that is no plugin and a plugin of another
# interface version are errors that name the file (and dlerror()'s words);
# make install puts it in LIBDIR/optinc/ and the installed library loads
# it from there. Needs no privileges and no network but loopback. TAP.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
O=${O:-build}
case $O in /*) ;; *) O=$top/$O ;; esac
so=$O/lib/liboptinc.so
plugin=$O/lib/optinc/liboptinc-afxdp.so
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck source=../tap.sh
. "$top/selftests/tap.sh"

needed() {	# needed FILE: its NEEDED libraries, one a line
	readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'
}

lib_needs_no_xdp() {
	needed "$so" >"$tmp/needed" && cat "$tmp/needed" &&
		! grep -E 'libxdp|libbpf' "$tmp/needed" &&
		! nm "$O/lib/liboptinc.a" 2>/dev/null | grep -E ' [Uu] (xsk_|bpf_)'
}

plugin_built() {
	needed "$plugin" >"$tmp/needed" && cat "$tmp/needed" &&
		grep -q '^libxdp' "$tmp/needed" && grep -q '^libbpf' "$tmp/needed" &&
		[ "$(nm -D --defined-only "$plugin" | awk '$2 ~ /^[TDBRVW]$/ { print $3 }')" = \
		  optinc_xport_plugin ]
}

# One rank of one, to a port nobody listens on: prints the result and
# which of the plugin and libxdp the process has mapped by then.
app_build() {
	cat >"$tmp/app.c" <<'EOC'
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <optinc/optinc.h>
int main(void)
{
	struct optinc_comm *c = NULL;
	OPTINC_OPTS(o, .rank = 0, .size = 1, .switch_addr = "127.0.0.1:9",
		    .timeout_ms = 300);
	char line[512];
	int err, xdp = 0, pl = 0;
	FILE *f;

	err = optinc_comm_create(&o, &c);
	f = fopen("/proc/self/maps", "r");
	while (f && fgets(line, sizeof(line), f)) {
		xdp |= strstr(line, "libxdp") != NULL;
		pl |= strstr(line, "liboptinc-afxdp") != NULL;
	}
	printf("create %s: %s\nmapped libxdp %d plugin %d\n",
	       optinc_strerror(err), optinc_comm_errmsg(NULL), xdp, pl);
	optinc_comm_destroy(c);
	return 0;
}
EOC
	cc -std=gnu11 -Wall -Wextra -Werror -I"$top/lib/include" -o "$tmp/app" \
		"$tmp/app.c" -L"$O/lib" -loptinc -Wl,-rpath,"$O/lib"
}

run_app() {	# run_app VAR=VALUE...: the app's output in $tmp/app.out
	env -u OPTINC_AFXDP_PLUGIN -u OPTINC_LOG -u OPTINC_PEERS "$@" \
		"$tmp/app" >"$tmp/app.out" 2>&1
	cat "$tmp/app.out"
}

udp_never_loads() {
	run_app OPTINC_TRANSPORT=udp &&
		grep -q 'mapped libxdp 0 plugin 0' "$tmp/app.out"
}

afxdp_finds_it() {
	run_app OPTINC_TRANSPORT=afxdp OPTINC_LOG=info &&
		grep -qF "optinc: transport afxdp: plugin $O/lib/optinc/liboptinc-afxdp.so" "$tmp/app.out" &&
		grep -q 'mapped libxdp 1 plugin 1' "$tmp/app.out" &&
		grep -q '; using the udp transport' "$tmp/app.out"
}

missing_named() {
	run_app OPTINC_TRANSPORT=afxdp OPTINC_AFXDP_PLUGIN="$tmp/none/liboptinc-afxdp.so" &&
		grep -qF "create datatype, operation or transport not supported: transport afxdp: plugin liboptinc-afxdp.so not found (tried $tmp/none/liboptinc-afxdp.so)" "$tmp/app.out" &&
		grep -q 'OPTINC_AFXDP_PLUGIN' "$tmp/app.out" &&
		run_app OPTINC_TRANSPORT=afxdp OPTINC_AFXDP_PLUGIN=liboptinc-afxdp.so &&
		grep -q "OPTINC_AFXDP_PLUGIN=liboptinc-afxdp.so: must be a path" "$tmp/app.out"
}

# A plugin NEEDing a library that is gone: dlopen() fails, dlerror() says why.
dep_missing_named() {
	echo 'int nothere(void) { return 1; }' >"$tmp/nothere.c"
	printf 'int nothere(void);\nint optinc_xport_plugin(void) { return nothere(); }\n' >"$tmp/dep.c"
	cc -shared -fPIC -o "$tmp/libnothere.so" "$tmp/nothere.c" &&
		cc -shared -fPIC -o "$tmp/dep.so" "$tmp/dep.c" -L"$tmp" -lnothere &&
		rm "$tmp/libnothere.so" &&
		run_app OPTINC_TRANSPORT=afxdp OPTINC_AFXDP_PLUGIN="$tmp/dep.so" &&
		grep -qF "transport afxdp: cannot load plugin $tmp/dep.so: libnothere.so: cannot open shared object file" "$tmp/app.out"
}

not_a_plugin_named() {
	echo 'int something(void) { return 1; }' >"$tmp/other.c"
	cc -shared -fPIC -o "$tmp/other.so" "$tmp/other.c" &&
		run_app OPTINC_TRANSPORT=afxdp OPTINC_AFXDP_PLUGIN="$tmp/other.so" &&
		grep -qF "transport afxdp: $tmp/other.so is no liboptinc transport plugin: $tmp/other.so: undefined symbol: optinc_xport_plugin" "$tmp/app.out"
}

other_version_refused() {
	echo 'const struct { unsigned int version; } optinc_xport_plugin = { 999 };' >"$tmp/v999.c"
	cc -shared -fPIC -o "$tmp/v999.so" "$tmp/v999.c" &&
		run_app OPTINC_TRANSPORT=afxdp OPTINC_AFXDP_PLUGIN="$tmp/v999.so" &&
		grep -qE "transport afxdp: plugin $tmp/v999.so has interface version 999, this liboptinc needs [0-9]+: install both from one build" "$tmp/app.out"
}

# make install into a DESTDIR: the plugin in LIBDIR/optinc/, found there
# (beside the installed liboptinc.so) by a program linked with the staged
# library, whatever the build tree holds.
installed_finds_it() {
	local root=$tmp/root lib

	make -C "$top" -s --no-print-directory O="$O" DESTDIR="$root" install >/dev/null ||
		return 1
	lib=$(dirname "$(find "$root" -name liboptinc.so.0 | head -1)")
	[ -f "$lib/optinc/liboptinc-afxdp.so" ] || { echo "no $lib/optinc/liboptinc-afxdp.so"; return 1; }
	cc -std=gnu11 -I"$top/lib/include" -o "$tmp/app_inst" "$tmp/app.c" \
		-L"$lib" -loptinc -Wl,-rpath,"$lib" &&
		env -u OPTINC_AFXDP_PLUGIN OPTINC_TRANSPORT=afxdp OPTINC_LOG=info \
			"$tmp/app_inst" >"$tmp/app.out" 2>&1
	cat "$tmp/app.out"
	grep -qF "optinc: transport afxdp: plugin $lib/optinc/liboptinc-afxdp.so" "$tmp/app.out"
}

tap_plan 9
ok_run "readelf -d liboptinc.so: neither libxdp nor libbpf; liboptinc.a needs neither" lib_needs_no_xdp
ok_run "the plugin $O/lib/optinc/liboptinc-afxdp.so NEEDs libxdp and libbpf and exports optinc_xport_plugin only" plugin_built
if ! app_build >"$tmp/build.out" 2>&1; then
	sed 's/^/# /' "$tmp/build.out"
fi
ok_run "a udp communicator maps neither the plugin nor libxdp" udp_never_loads
ok_run "afxdp loads the plugin beside liboptinc.so (OPTINC_LOG=info names it) and, with no XDP program, falls back to udp saying so" afxdp_finds_it
ok_run "a missing plugin: OPTINC_ERR_UNSUPPORTED naming the path tried and OPTINC_AFXDP_PLUGIN; a bare name is refused" missing_named
ok_run "a plugin whose library is missing: the path and dlerror()'s words" dep_missing_named
ok_run "a file that is no plugin: the path and dlerror()'s words" not_a_plugin_named
ok_run "a plugin of another interface version is refused before use" other_version_refused
ok_run "make install puts the plugin in LIBDIR/optinc/ and the installed library loads it from there" installed_finds_it
tap_end
