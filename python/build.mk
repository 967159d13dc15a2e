# SPDX-License-Identifier: BSD-3-Clause
# python: the optinc package (pure Python, ctypes over liboptinc.so.0),
# installed where Debian's python3 looks: PREFIX/lib/python3/dist-packages
# for PREFIX=/usr, PREFIX/lib/python3.X/dist-packages otherwise (Debian's
# python3 searches /usr/local/lib/python3.X/dist-packages, not .../python3/).
# From the build tree: PYTHONPATH=python (Documentation/python.md).

PYTHON3	?= /usr/bin/python3
ifeq ($(PREFIX),/usr)
PYDIR	?= $(PREFIX)/lib/python3/dist-packages
else
PYDIR	?= $(PREFIX)/lib/python$(shell $(PYTHON3) -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo 3)/dist-packages
endif
PY_SRCS	:= $(wildcard python/optinc/*.py)

.PHONY: install-python
install: install-python
install-python:
	$(Q)install -d $(DESTDIR)$(PYDIR)/optinc
	$(Q)install -m 0644 $(PY_SRCS) $(DESTDIR)$(PYDIR)/optinc/
