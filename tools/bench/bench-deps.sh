#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Installs what `make bench-peers` compares encd against, from Debian only:
# OpenMPI (mpirun and mpicc, for tools/bench/bench-mpi.c), PyTorch (for
# tools/bench/bench-torch.py) and matplotlib (the plot). `make check` never
# runs this: only the benchmark asks for these peers. Like tools/deps.sh it
# asks dpkg first and touches apt only for what is missing.
set -eu

packages=(openmpi-bin libopenmpi-dev python3-torch python3-matplotlib)

missing=()
for p in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
	[ "$status" = installed ] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
[ "$(id -u)" = 0 ] || { echo "bench-deps: need root to install: ${missing[*]}" >&2; exit 1; }
echo "bench-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends "${missing[@]}"
