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

# Every mutant still applies to the tree: a stale one shows here, in
# seconds, not half an hour into check-mutants.
.PHONY: check-mutant-patches
check-mutant-patches:
	@cd $(TOP) && for p in tools/mutants/*.patch; do \
		git apply --check "$$p" 2>/dev/null || { \
			echo "check-mutant-patches: $$p no longer applies: regenerate it" >&2; exit 1; }; \
	done
host-check: check-mutant-patches
