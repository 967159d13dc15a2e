# SPDX-License-Identifier: BSD-3-Clause
# tools/: one include per tool; each tool's build.mk adds its programs and tests.

include tools/optincctl/build.mk
include tools/onn/build.mk
include tools/bench/build.mk
include tools/bench/core-bench.mk
