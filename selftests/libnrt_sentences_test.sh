#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# get_nccl_comm's failures in libnrt's sentences, with a fake host of
# encd_peer: see libnrt_sentences_test.py. Runs in the test VM (encd
# loaded), never on the host.
exec python3 "$(dirname "$0")/libnrt_sentences_test.py" "$@"
