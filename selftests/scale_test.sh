#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# See scale_test.py. Runs in the test VM (encd loaded), never on the host.
exec python3 "$(dirname "$0")/scale_test.py" "$@"
