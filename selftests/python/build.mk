# SPDX-License-Identifier: GPL-2.0
# selftests/python: the Python package (python/optinc) without namespaces
# (py_unit.py, with layout printing the header's struct layout for it) and
# through optincd on the testbed with torch DDP (ddp.sh, root needed).

PY_LAYOUT := $(O)/selftests/python/layout

$(PY_LAYOUT): $(O)/selftests/python/layout.o
	$(call msg,LD,$@)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^

ALL_TARGETS += $(PY_LAYOUT)
TEST_PROGS += selftests/python/py_unit.py selftests/python/ddp.sh
