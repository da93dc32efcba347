#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# World formation on loopback, black-box through `encctl world`: see
# bootstrap_test.py. Runs in the test VM (encd loaded), never on the host.
exec python3 "$(dirname "$0")/bootstrap_test.py" "$@"
