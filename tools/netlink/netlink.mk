# SPDX-License-Identifier: GPL-2.0
# tools/netlink/: the code of the "encd" netlink family generated from its
# spec by the kernel's YNL generator (ynl-gen.sh says which files).
#
#   make ynl-regen    rewrites the generated files from the spec
#   make check-ynl    fails when they are not what the spec gives, or the
#                     spec does not validate against the kernel's schema
#                     (make check runs it)

.PHONY: ynl-regen check-ynl
ynl-regen:
	@$(TOP)/tools/netlink/ynl-gen.sh

check-ynl:
	@$(TOP)/tools/netlink/ynl-gen.sh --check
