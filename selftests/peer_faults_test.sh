#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# See peer_faults_test.py. Runs in the test VM (encd loaded), never on the host.
exec python3 "$(dirname "$0")/peer_faults_test.py" "$@"
