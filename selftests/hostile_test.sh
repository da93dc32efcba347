#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# See hostile_test.py. Runs in the test VM (encd loaded), never on the host.
exec python3 "$(dirname "$0")/hostile_test.py" "$@"
