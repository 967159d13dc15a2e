// SPDX-License-Identifier: GPL-2.0
/*
 * A C++ program against the installed <optinc/optinc.h> (built by cxx.sh
 * as C++17 and C++20): OPTINC_OPTS with designators in declaration order,
 * defaults from the members' initialisers, and one float32 and one int32
 * all-reduce on two ranks (threads) through the test switch at argv[1].
 * TAP through ../tap.h (cxx.sh builds ../tap.c with it).
 */
#include <cmath>
#include <cstdio>
#include <cstring>
#include <thread>
#include <type_traits>
#include <vector>

#include <optinc/optinc.h>

#include "../tap.h"

static_assert(std::is_standard_layout<optinc_opts>::value,
	      "optinc_opts is passed to C");
static_assert(std::is_aggregate<optinc_opts>::value,
	      "OPTINC_OPTS is aggregate initialisation");

namespace {

void ok(bool good, const char *what)
{
	tap_ok(good, "%s (C++ %ld)", what, __cplusplus);
}

bool defaults_right()
{
	OPTINC_OPTS(d);
	OPTINC_OPTS(o, .rank = 1, .bits = 16);

	return d.sz == sizeof(optinc_opts) && d.rank == -1 && d.size == -1 &&
	       d.algo == -1 && d.nonfinite == -1 && !d.switch_addr &&
	       !d.bits && !d.job && !d.transport &&
	       o.sz == sizeof(optinc_opts) && o.rank == 1 && o.bits == 16 &&
	       o.size == -1 && o.algo == -1 && o.nonfinite == -1;
}

struct rank_result {
	int err = 0;
	int bad = 0;
	char msg[256] = "";
};

float val(int rank, int i)
{
	return static_cast<float>(std::sin(0.01 * i + rank));
}

void rank_main(int rank, const char *addr, rank_result *res)
{
	OPTINC_OPTS(o, .rank = rank, .size = 2, .switch_addr = addr,
		    .bits = 16, .timeout_ms = 5000);
	std::vector<float> f(1000);
	std::vector<int32_t> n(1000);
	optinc_comm *comm = nullptr;

	for (int i = 0; i < 1000; i++) {
		f[i] = val(rank, i);
		n[i] = i + rank;
	}
	res->err = optinc_comm_create(&o, &comm);
	if (res->err) {
		std::snprintf(res->msg, sizeof(res->msg), "%s",
			      optinc_comm_errmsg(nullptr));
		return;
	}
	res->err = optinc_allreduce(comm, f.data(), f.data(), f.size(),
				    OPTINC_FLOAT32, OPTINC_SUM);
	if (!res->err)
		res->err = optinc_allreduce(comm, n.data(), n.data(), n.size(),
					    OPTINC_INT32, OPTINC_SUM);
	if (res->err)
		std::snprintf(res->msg, sizeof(res->msg), "%s",
			      optinc_comm_errmsg(comm));
	for (int i = 0; i < 1000 && !res->err; i++) {
		/* 16 bits: step 2^-14 for |x| < 2, the bound is 2 * step / 2 */
		double ref = val(0, i) + val(1, i);
		res->bad += !(std::fabs(f[i] - ref) <= 1.0 / 8192) ||
			    n[i] != 2 * i + 1;
	}
	optinc_comm_destroy(comm);
}

bool allreduce_right(const char *addr)
{
	rank_result res[2];
	std::thread t0(rank_main, 0, addr, &res[0]);
	std::thread t1(rank_main, 1, addr, &res[1]);
	bool good = true;

	t0.join();
	t1.join();
	for (int r = 0; r < 2; r++) {
		if (res[r].err || res[r].bad) {
			tap_diag("rank %d: %s: %s; %d wrong", r,
				 optinc_strerror(res[r].err), res[r].msg,
				 res[r].bad);
			good = false;
		}
	}
	return good;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 2) {
		std::fprintf(stderr, "usage: cxx_opts 127.0.0.1:PORT\n");
		return 2;
	}
	tap_plan(3);
	ok(defaults_right(),
	   "OPTINC_OPTS(d) and OPTINC_OPTS(o, .rank = 1, .bits = 16): sz, -1s and zeros from the members' initialisers");
	ok(optinc_version() == OPTINC_LIB_VERSION_CODE,
	   "links to the installed library of the same version");
	ok(allreduce_right(argv[1]),
	   "two ranks: OPTINC_OPTS(o, .rank, .size, .switch_addr, .bits = 16, .timeout_ms), float32 and int32 SUM right");
	return tap_done();
}
