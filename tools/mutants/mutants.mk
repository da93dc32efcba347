# SPDX-License-Identifier: GPL-2.0
# tools/mutants/: the mutation check (tools/mutants/README.md).
#
#   make check-mutants [MUTANTS="sig-compare deadline"] [KVER=6.12]
#
# Each mutant is built and tested in a copy of the checkout under
# build/mutants/, in the VM lane its patch names; the table is printed and
# kept in build/mutants/table.txt.

.PHONY: check-mutants
check-mutants: deps
	@test -n "$(KVER)" || { echo "no linux-headers-*-amd64 installed: run 'make deps'" >&2; exit 1; }
	@python3 $(TOP)/tools/mutants/check-mutants.py --kver $(KVER) $(MUTANTS)
