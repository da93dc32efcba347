#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The netlink family and encctl while worlds form, fail and go: see
# netlink_world_test.py. Runs in the test VM (encd loaded), never on the host.
exec python3 "$(dirname "$0")/netlink_world_test.py" "$@"
