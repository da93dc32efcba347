#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The "encd" generic netlink family follows its YNL spec, held to it by
# tools/netlink/spec-check.py and driven by the kernel's YNL: see
# netlink_spec_test.py. Runs in the test VM (encd loaded), never on the host.
exec python3 "$(dirname "$0")/netlink_spec_test.py" "$@"
