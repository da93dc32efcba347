#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The tree and hypercube partners the kernel uses, N = 1..64, watched by a
# fake host of encd_peer: see partners_test.py. Runs in the test VM (encd
# loaded), never on the host.
exec python3 "$(dirname "$0")/partners_test.py" "$@"
